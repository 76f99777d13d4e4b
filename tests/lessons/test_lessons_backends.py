"""What docs/backends/ says the Redis and Mongo clients do per request, shown on the installed clients with
the suite's own client settings (backends/) against a real redis-server."""
from __future__ import annotations

import asyncio
import shutil
import subprocess
import threading
import time

import pytest

from serverproc import free_port


@pytest.fixture(scope="module")
def redis_url(tmp_path_factory):
    """A bare redis-server on a free loopback port (no persistence), for this module's tests."""
    server = shutil.which("redis-server")
    if server is None:
        pytest.skip("redis-server is not installed")
    port = free_port()
    proc = subprocess.Popen([server, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
                             "--dir", str(tmp_path_factory.mktemp("redis"))], stdout=subprocess.DEVNULL)
    import redis

    client = redis.Redis(port=port)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.set("name", "Hello, World!")
            break
        except redis.exceptions.ConnectionError:
            assert time.monotonic() < deadline and proc.poll() is None, "redis-server did not start"
            time.sleep(0.05)
    client.close()
    yield f"redis://127.0.0.1:{port}/0"
    proc.terminate()
    proc.wait(10)


@pytest.mark.parametrize("client", ["hiredis", "redispy"])
def test_redis_py_parser_decodes_the_reply_and_get_has_no_response_callback(redis_url, client):
    """redis.md, step 5: with decode_responses=True the parser hands back str (hiredis's Reader is
    made with the encoding; the pure-Python parser calls encoder.decode); GET has no response
    callback, so the value leaves parse_response as the parser returned it."""
    import redis

    from backends.redis_sync import client_kwargs

    r = redis.Redis.from_url(redis_url, **client_kwargs(client))
    assert "GET" not in r.response_callbacks
    conn = r.connection_pool.get_connection()
    try:
        parsed = []
        real = conn._parser.read_response
        conn._parser.read_response = lambda *args, **kwargs: parsed.append(real(*args, **kwargs)) or parsed[-1]
        conn.send_command("GET", "name")
        value = r.parse_response(conn, "GET")
    finally:
        r.connection_pool.release(conn)
        r.close()
    assert parsed == ["Hello, World!"] and value is parsed[0]  # decoded by the parser, passed through


def test_redis_asyncio_packs_with_hiredis_and_the_redispy_variant_in_python(redis_url):
    """redis.md, step 2: redis.asyncio's connection packs commands with hiredis's C packer
    (HiredisRespSerializer) when hiredis is installed, from redis-py 8.2.0 on (8.1 packs in Python:
    the project's lower bound is 8.2.0); the suite's redispy variant turns it off. Both send the same
    RESP bytes."""
    import redis.asyncio
    from redis.connection import HiredisRespSerializer

    from backends.redis_async import client_kwargs

    async def packed(client: str):
        r = redis.asyncio.Redis.from_url(redis_url, **client_kwargs(client))
        conn = r.connection_pool.make_connection()
        try:
            packer = conn._command_packer
            return packer, b"".join(conn.pack_command("GET", "name")), await r.get("name")
        finally:
            await r.aclose()

    hiredis_packer, hiredis_bytes, hiredis_value = asyncio.run(packed("hiredis"))
    python_packer, python_bytes, python_value = asyncio.run(packed("redispy"))
    assert isinstance(hiredis_packer, HiredisRespSerializer) and python_packer is None
    assert hiredis_bytes == python_bytes == b"*2\r\n$3\r\nGET\r\n$4\r\nname\r\n"
    assert hiredis_value == python_value == "Hello, World!"


def test_pymongo_opens_two_connections_on_ferretdb_the_monitors_and_the_commands(backends):
    """connections.md: a MongoClient opens the server monitor's connection and the command's; its
    round-trip-time monitor starts only in streaming mode (a hello answer with a topologyVersion),
    which FerretDB never sends: no third connection, no RTT thread."""
    import psutil
    import pymongo

    backends.ensure("mongo")
    port = int(backends.mongo_url.rsplit(":", 1)[1].split("/")[0])

    def open_to_mongo() -> int:
        return sum(1 for c in psutil.Process().net_connections("tcp")
                   if c.raddr and c.raddr.port == port and c.status == psutil.CONN_ESTABLISHED)

    before = open_to_mongo()
    client = pymongo.MongoClient(backends.mongo_url, serverSelectionTimeoutMS=5000)
    try:
        assert "topologyVersion" not in client.admin.command("hello")  # so no streaming hello
        client.get_database().users.find_one({"_id": 1})
        time.sleep(1.0)  # a streaming monitor would have started its RTT thread by now
        threads = {thread.name for thread in threading.enumerate()}
        assert "pymongo_server_monitor_thread" in threads and "pymongo_server_rtt_thread" not in threads, threads
        assert open_to_mongo() - before == 2
    finally:
        client.close()
