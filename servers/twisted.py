"""twisted.web on its Site and Resources on the asyncio reactor.

The backend routes run asyncio coroutines (AsyncMongoClient, redis.asyncio) wrapped in Deferreds, so
the reactor thread never blocks.

HTTPS (--certfile, --keyfile): pyOpenSSL (OpenSSL through cffi), on the reactor thread: the endpoint
wraps the site's HTTP protocol in a TLSMemoryBIOProtocol (twisted/protocols/tls.py) that feeds
pyOpenSSL's memory BIOs, the handshake included; through its SSL server endpoint
(ssl:PORT:privateKey=KEY:certKey=CERT).

Caveat: HTTP/1.1 (smuggling-relevant): twisted.web reads the body of `Transfer-Encoding: identity`
as the next request, frames `chunked` then `identity` on two lines as chunked, routes an absolute-
form target as a path (404), hands `GET *` and the authority-form to the app, checks no Host
[desync, refuse-shape].

Caveat: HTTP/2: after the GOAWAY of a connection error the TLS connection stays open until its
timers end it (75 s), where RFC 9113 section 5.4.1 says close, and reads on: h2 buffers every byte
read after its error, so a CONTINUATION flood grows the worker's memory without bound; HPACK
decoding errors carry PROTOCOL_ERROR, not COMPRESSION_ERROR (h2). h2spec waits out 15 cases for it.
"""
# Generated from the specs by `python -m servers.generate`: edit the spec, not this file.
# Run as a file, or imported as a library of its name (servers/ on sys.path): refuse, never shadow one.
if getattr(__spec__, "name", "") != "servers.twisted":
    raise SystemExit(f"{__file__}: an entry, run it as `python -m servers.twisted`")

from servers.core.launch import launch  # noqa: E402

if __name__ == "__main__":
    launch("twisted")
