"""The driver layer split finer: what a Mongo or Redis call spends its CPU on.

A sample is inside a driver call when a driver frame (layers.DRIVER_PACKAGES) is on its stack;
what runs below the outermost such frame names its part, the frame nearest the leaf that a rule
below owns deciding (so the socket recv of a reply counts as socket I/O, the pool's lock as the
asyncio machinery). Unlike the layer shares, where a frame of the event loop under a driver call is
the server's (the loop's code paths are), here it is the call's: the await, futures and task
switches that an async driver costs around each command. Samples of the loop's own callbacks
(a reply arriving, a waiter woken) have no driver frame on their stack and are not counted here.
"""
from __future__ import annotations

from collections import Counter

from anatomy import layers

POOL, ENCODE, PARSE, SOCKET, ASYNC, CLIENT = "pool", "encode", "parse", "socket", "asyncio", "client"
ORDER = (POOL, ENCODE, PARSE, SOCKET, ASYNC, CLIENT)
WHAT = {
    POOL: "pool checkout and return (the checkout's liveness check of the socket included)",
    ENCODE: "packing the command into the wire protocol",
    PARSE: "reading and parsing the reply",
    SOCKET: "socket calls: send, recv, poll (gevent's cooperative sockets too)",
    ASYNC: "the asyncio/anyio machinery around the call: awaits, futures, locks, task switches",
    CLIENT: "the rest of the client: command dispatch, retries, reply callbacks, this suite's access code",
}

# (part, path prefix, function names: () for any function of that path); the first match, checked
# from the leaf up, wins. Function names are those of redis-py 8, coredis 6 and valkey-glide 2.
RULES: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (PARSE, "redis/_parsers/", ()), (PARSE, "hiredis/", ()), (PARSE, "coredis/parser", ()),
    (PARSE, "coredis/_protocols", ()),
    (ENCODE, "redis/", ("pack_command", "_pack_command_python", "pack", "encode", "pack_commands")),
    (ENCODE, "coredis/_packer", ()), (ENCODE, "coredis/", ("pack_command", "pack", "encode")),
    (ENCODE, "google/protobuf/", ()),
    (POOL, "redis/", ("get_connection", "release", "make_connection", "_checkpid", "ensure_connection",
                      "_get_free_connection", "get_available_connection", "can_read", "can_read_destructive", "connect",
                      "re_auth", "_finish_release")),
    # the write to the transport (uvloop's is C, which py-spy shows as this Python frame)
    (SOCKET, "redis/", ("send_packed_command", "sendall", "_send_packed_command")),
    (POOL, "coredis/pool/", ()), (POOL, "backends/pools.py", ()),
    (SOCKET, "socket.py", ()), (SOCKET, "selectors.py", ()), (SOCKET, "ssl.py", ()),
    (SOCKET, "asyncio/streams.py", ()), (SOCKET, "asyncio/selector_events.py", ()),
    (SOCKET, "gevent/_socket", ()), (SOCKET, "gevent/socket.py", ()), (SOCKET, "anyio/_backends/", ("send", "receive")),
    (ASYNC, "asyncio/", ()), (ASYNC, "uvloop/", ()), (ASYNC, "anyio/", ()), (ASYNC, "async_timeout/", ()),
    (ASYNC, "gevent/", ()), (ASYNC, "greenlet/", ()),
)


def _owns(path: str, prefix: str) -> bool:
    """A module path (py-spy's are relative to sys.path: redis/asyncio/connection.py) under prefix,
    as a whole package path: asyncio/ does not own redis/asyncio/."""
    for root in ("site-packages/", "/lib/python3."):
        if root in path:
            path = path.rsplit(root, 1)[1].split("/", 1)[-1] if root.startswith("/lib") else path.rsplit(root, 1)[1]
    return path.startswith(prefix)


def _function(frame: str) -> str:
    return frame.split(" (", 1)[0].rsplit(".", 1)[-1]


def part_of(frames: list[str]) -> str | None:
    """frames root first: the part of a sample inside a driver call, None for a sample outside one."""
    driver_rules = layers.Rules(tuple((p, layers.DRIVER) for p in layers.DRIVER_PACKAGES), "", "")
    outermost = next((i for i, f in enumerate(frames) if layers.layer_of_frame(f, driver_rules)), None)
    if outermost is None:
        return None
    for frame in reversed(frames[outermost:]):
        path, function = layers.frame_path(frame), _function(frame)
        for part, prefix, functions in RULES:
            if _owns(path, prefix) and (not functions or function in functions):
                return part
    return CLIENT


def split(stacks: list[tuple[list[str], float]]) -> dict:
    """{"driver_percent": share of all samples inside a driver call, "parts": part -> % of all samples}."""
    total = sum(count for _, count in stacks)
    parts: Counter = Counter()
    for frames, count in stacks:
        part = part_of(frames)
        if part is not None:
            parts[part] += count
    if not total:
        return {"driver_percent": 0.0, "parts": {}}
    return {"driver_percent": round(100.0 * sum(parts.values()) / total, 1),
            "parts": {p: round(100.0 * parts[p] / total, 1) for p in ORDER if parts[p]}}


def line(split_result: dict) -> str:
    parts = ", ".join(f"{p} {v:.1f}%" for p, v in split_result["parts"].items())
    return (f"inside driver calls: {split_result['driver_percent']:.1f}% of the sampled CPU ({parts or 'none'}; "
            "the loop's own callbacks for a reply are not in it)")
