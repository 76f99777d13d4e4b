"""The anatomy's driver layer and its finer split (anatomy/driver_parts.py) on py-spy-shaped stacks."""
from anatomy import driver_parts, layers

ROOT = ["_run_server_forever (sanic/server/runners.py:210)", "handle_request (handle_request:99)",
        "create_app.<locals>.redis_pooled (servers/apps/sanic_app.py:71)",
        "AsyncOperations.redis_pooled (servers/apps/operations.py:60)",
        "PooledAsyncRedis.get_name (backends/redis_async.py:70)", "Redis.execute_command (redis/asyncio/client.py:700)"]


def test_redis_asyncio_frames_are_the_driver_not_the_event_loop() -> None:
    rules = layers.rules_for("sanic", "sanic")
    assert layers.layer_of_frame("BlockingConnectionPool.get_connection (redis/asyncio/connection.py:1300)",
                                 rules) == layers.DRIVER
    assert layers.layer_of_frame("Task.__step (asyncio/tasks.py:260)", rules) == layers.SERVER


def test_parts_by_the_frame_nearest_the_leaf() -> None:
    stacks = [
        (ROOT + ["BlockingConnectionPool.get_connection (redis/asyncio/connection.py:1300)"], 4.0),
        (ROOT + ["BlockingConnectionPool.get_connection (redis/asyncio/connection.py:1300)",
                 "_ContextManagerMixin.__aenter__ (asyncio/locks.py:14)"], 1.0),
        (ROOT + ["AbstractConnection.send_packed_command (redis/asyncio/connection.py:500)",
                 "HiredisRespSerializer.pack (redis/connection.py:300)"], 2.0),
        (ROOT + ["_AsyncHiredisParser.read_response (redis/_parsers/hiredis.py:200)"], 1.0),
        (ROOT + ["CaseInsensitiveDict.get (redis/client.py:80)"], 1.0),
        (ROOT[:3] + ["json (sanic/response/convenience.py:57)"], 11.0),  # outside any driver call
    ]
    assert [driver_parts.part_of(frames) for frames, _ in stacks] == [
        driver_parts.POOL, driver_parts.ASYNC, driver_parts.ENCODE, driver_parts.PARSE, driver_parts.CLIENT, None]
    split = driver_parts.split(stacks)
    assert split == {"driver_percent": 45.0, "parts": {"pool": 20.0, "encode": 10.0, "parse": 5.0,
                                                       "asyncio": 5.0, "client": 5.0}}


def test_gevent_socket_under_redis_py_is_socket_io() -> None:
    frames = ["handle (gevent/pywsgi.py:1000)", "redis_pooled (servers/apps/flask_app.py:90)",
              "Redis.get (redis/commands/core.py:1800)", "Connection.read_response (redis/connection.py:600)",
              "_RESP3Parser.read_response (redis/_parsers/resp3.py:30)",
              "SocketBuffer._read_from_socket (redis/_parsers/socket.py:60)",
              "socket.recv_into (gevent/_socketcommon.py:700)"]
    assert driver_parts.part_of(frames) == driver_parts.SOCKET
    assert driver_parts.part_of(frames[:-1]) == driver_parts.PARSE
