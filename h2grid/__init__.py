"""The HTTP/2 grid: h2spec on every h2 endpoint and the known HTTP/2 attacks as bounded probes, each
judged while a legitimate client keeps requesting (`python -m h2grid`, `./test.sh -m h2grid`).

An endpoint is a server's parser owner (catalog.parser_owner) in one mode: h2 over TLS by ALPN, or h2c
by prior knowledge (endpoints.py). h2spec's result of every case and each attack's outcome are pinned
in the "http2" section of that entry's record (record.py), written only with H2GRID_RECORD=1;
docs/http2-grid.md is rendered from the records (docs.py).
"""
