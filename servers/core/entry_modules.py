"""The entry modules servers/<entry>.py, generated from the specs, and what an entry says of itself.

docstring(entry) is an entry's --help (servers.core.launch prints it) and its module's docstring.
`python -m servers.generate` (with every other derived file, servers/core/derived.py) writes one module
per Python entry of the catalog (and removes none: a module left over from a removed entry fails
tests/test_catalog.py); tests/test_specs.py fails when one on disk is not what this writes.

Every module refuses to run but as `python -m servers.<entry>`: run as a file, or found on sys.path
under a library's name (servers/tornado.py, twisted.py and sanic.py are named like the libraries
they serve), it says so instead of shadowing the library with an entry.
"""
from __future__ import annotations

import textwrap
from pathlib import Path

from servers.core import catalog, specs

SERVERS_DIR = Path(__file__).resolve().parents[1]
WIDTH = 100

TEMPLATE = '''"""{doc}
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "{module}":
    raise SystemExit(f"{{__file__}}: an entry, run it as `python -m {module}`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("{name}")
'''


def _paragraph(text: str) -> str:
    return textwrap.fill(" ".join(text.split()), WIDTH)


def docstring(entry: catalog.Entry) -> str:
    """How the stack serves a request, in the words of its server's and app's specs."""
    server, app = entry.server_spec, entry.app_spec
    parts = [f"{entry.description}.", server.details]
    if app.details:
        parts.append(app.details)
    if entry.free_threaded:
        parts.append(f"On free-threaded CPython 3.13t (.venv-ft): {server.free_threaded} Every request first checks "
                     f"that the GIL is still off (servers/core/gil_guard.py).")
    tls = entry.tls
    parts.append(f"HTTPS (--certfile, --keyfile): {tls.library}, {tls.where}; through {tls.setting}." if tls.terminates
                 else f"No HTTPS: {tls.cannot}; --certfile and --keyfile are refused.")
    parts.append(_http2(entry))
    limits = [text for text in (entry.dev_only_reason and f"Not for production: {entry.dev_only_reason}.",
                                *(f"Caveat: {text}." for text in entry.caveat_texts)) if text]
    parts += limits
    return "\n\n".join(_paragraph(part) for part in parts)


def _http2(entry: catalog.Entry) -> str:
    """The entry's HTTP/2, as its server's spec says: what it serves by default, what --http2 adds, where it runs."""
    h2 = entry.http2
    if not h2.speaks:
        return f"No HTTP/2: {h2.cannot}; --http2 is refused."
    words = {specs.ALPN: "h2 by ALPN over TLS", specs.PRIOR_KNOWLEDGE: "h2c by prior knowledge",
             specs.UPGRADE: "h2c by Upgrade"}
    served = (f"served by default: {', '.join(words[m] for m in h2.default)}" if h2.default else "off by default")
    added = (f"--http2 adds {', '.join(words[m] for m in h2.flag_adds)} through {h2.setting}" if h2.flag_adds
             else "--http2 changes nothing")
    return (f"HTTP/2 ({h2.library}), {served}; {added}. Framed {h2.where}."
            + (f" Not served: {h2.missing}." if h2.missing else ""))


def source(entry: catalog.Entry) -> str:
    return TEMPLATE.format(doc=docstring(entry), module=entry.module, name=entry.name)


def path(entry: catalog.Entry) -> Path:
    return SERVERS_DIR / f"{entry.name}.py"


def stale() -> list[str]:
    """Python entries whose module is missing or not what source() gives (python -m servers.generate writes them)."""
    return [e.name for e in catalog.python_entries()
            if not path(e).exists() or path(e).read_text() != source(e)]

