"""Test-only: count the serializations of the /json value in every process of a server.

Put on PYTHONPATH by tests/test_json_per_request.py (never by the servers themselves), so Python
imports it at startup in the server process and in every worker it forks or spawns, before any
app or framework module. It wraps json.dumps, ujson.dumps, orjson.dumps and msgspec.json.encode, the
functions the Python apps' JSON machinery ends in (Flask's JSON provider, Falcon's JSONHandler, tornado's
and the stdlib apps' dumps, Sanic's default dumps, BlackSheep's json settings, Django's JsonResponse,
Litestar's Response.render; orjson: Emmett's serializer, which binds orjson.dumps when emmett_core is
imported, after this module ran), and appends one byte to the file named by REFSUITE_JSON_SPY each time
one of them serializes {"message": "Hello, World!"}. The wrapper calls the original function with the
same arguments and returns its result: the code path the apps run is the one they run without it.
"""
import os

_path = os.environ.get("REFSUITE_JSON_SPY")

if _path:
    import json

    _HELLO = {"message": "Hello, World!"}
    _fd = os.open(_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)

    def _counting(dumps):
        def dumps_and_count(obj, *args, **kwargs):
            if obj == _HELLO:
                os.write(_fd, b".")  # one O_APPEND write: safe across threads, greenlets, processes
            return dumps(obj, *args, **kwargs)

        return dumps_and_count

    json.dumps = _counting(json.dumps)
    for _library in ("ujson", "orjson"):
        try:
            _module = __import__(_library)
        except ImportError:
            continue
        _module.dumps = _counting(_module.dumps)
    try:
        import msgspec.json
    except ImportError:
        pass
    else:
        msgspec.json.encode = _counting(msgspec.json.encode)
