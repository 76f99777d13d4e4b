"""Check the route contract's answer before any load is sent: status 200, Content-Type, exact body;
for /fortunes, TechEmpower's fortune verification (bench/run/fortunes_check.py).

A stack that answers wrongly (a 503 because a backend is down, a 404 because the data is not
seeded) is recorded as failed with what it answered, not benchmarked. Over HTTP/2 (harness.protocols h2, h2c)
the check speaks it too, with httpx and h2 (the bench extra), and an answer over HTTP/1.1 is a failure: the
load would not measure the protocol asked for.
"""
from __future__ import annotations

import http.client
import json
import random
from urllib.parse import urlsplit

from bench.run import fortunes_check
from harness import tls
from servers.apps import contract
from servers.core import catalog

HELLO_BODY = contract.HELLO.encode()
TIMEOUT = 10.0


class ContractError(AssertionError):
    """The route answered something else than the contract says."""


def fetch(base_url: str, path: str, keepalive: bool = True, http2: bool = False) -> tuple[int, dict[str, str], bytes]:
    """One request; to an https:// URL over TLS, verifying the certificate against the suite's CA (harness.tls);
    with http2, over HTTP/2 (by ALPN over TLS, by prior knowledge in cleartext)."""
    if http2:
        return _fetch_http2(base_url, path)
    parts = urlsplit(base_url)
    if parts.scheme == "https":
        conn = http.client.HTTPSConnection(parts.hostname, parts.port or 443, timeout=TIMEOUT,
                                           context=tls.ensure().client_context())
    else:
        conn = http.client.HTTPConnection(parts.hostname, parts.port or 80, timeout=TIMEOUT)
    try:
        conn.request("GET", path, headers={} if keepalive else {"Connection": "close"})
        resp = conn.getresponse()
        return resp.status, {k.lower(): v for k, v in resp.getheaders()}, resp.read()
    finally:
        conn.close()


def _fetch_http2(base_url: str, path: str) -> tuple[int, dict[str, str], bytes]:
    import httpx  # the bench extra (httpx[http2]); only HTTP/2 runs need it

    verify = tls.ensure().client_context() if base_url.startswith("https://") else True
    options = {"http2": True} if base_url.startswith("https://") else {"http1": False, "http2": True}
    try:
        with httpx.Client(verify=verify, timeout=TIMEOUT, **options) as client:
            response = client.get(base_url + path)
    except httpx.HTTPError as exc:
        raise OSError(f"GET {path} over HTTP/2: {exc}") from None
    if response.http_version != "HTTP/2":
        raise ContractError(f"GET {path}: answered over {response.http_version}, not HTTP/2")
    return response.status_code, {k.lower(): v for k, v in response.headers.items()}, response.content


def _json(body: bytes, path: str) -> object:
    try:
        return json.loads(body)
    except ValueError:
        raise ContractError(f"GET {path}: body is not JSON: {body[:80]!r}") from None


def check_answer(operation: str, path: str, status: int, headers: dict[str, str], body: bytes,
                 user_id: int | None = None) -> None:
    """Raise ContractError unless (status, headers, body) is the contract's answer for operation."""
    if status != 200:
        raise ContractError(f"GET {path}: status {status}, expected 200; body {body[:120]!r}")
    ctype = headers.get("content-type", "").split(";")[0].strip().lower()
    family = catalog.family_of(operation)
    if operation == "hello":
        if ctype != "text/plain":
            raise ContractError(f"GET {path}: Content-Type {headers.get('content-type')!r}, expected text/plain")
        if body != HELLO_BODY:
            raise ContractError(f"GET {path}: body {body[:80]!r}, expected {HELLO_BODY!r}")
        return
    if operation == "fortunes":
        failed = fortunes_check.failures(path, headers, body)
        if failed:
            raise ContractError(f"GET {path}: TechEmpower's fortune verifier fails it: "
                                + "; ".join(p.message for p in failed)[:600])
        return
    if ctype != "application/json":
        raise ContractError(f"GET {path}: Content-Type {headers.get('content-type')!r}, expected application/json")
    value = _json(body, path)
    if operation == "json":
        ok = value == {"message": contract.HELLO}
    elif family == "mongo":
        ok = (isinstance(value, dict) and value.get("id") == user_id and isinstance(value.get("name"), str)
              and set(value) == {"id", "name"})
    elif family == "redis":
        ok = isinstance(value, dict) and set(value) == {"name"} and isinstance(value["name"], str)
    else:
        ok = True  # an operation the catalog added later: a 200 JSON answer is all we know
    if not ok:
        raise ContractError(f"GET {path}: unexpected answer {body[:120]!r}")


def sample_ids(users: int, fixed_id: int, count: int = 3, seed: int = 0) -> list[int]:
    """The ids to check: the first, the last, the fixed one and a few random ones of 1..users."""
    rng = random.Random(seed)
    ids = [1, users, fixed_id, *(rng.randint(1, users) for _ in range(count))]
    return list(dict.fromkeys(i for i in ids if 1 <= i <= users))


def verify_websocket(base_url: str, path: str) -> str:
    """A WebSocket route: a text and a binary message come back as sent (on /ws/broadcast to their only client)."""
    from websockets.exceptions import WebSocketException
    from websockets.sync.client import connect

    url = "ws" + base_url.removeprefix("http") + path
    try:
        with connect(url, compression=None, open_timeout=10) as ws:
            for message in ("text \u00e9", b"\x00binary"):
                ws.send(message)
                answer = ws.recv(timeout=10)
                if answer != message:
                    raise ContractError(f"{path}: {message!r} came back as {answer!r}")
    except (OSError, TimeoutError, WebSocketException) as exc:
        raise ContractError(f"{path}: no WebSocket echo ({type(exc).__name__}: {exc})") from None
    return f"{path} echoed a text and a binary message"


def verify(base_url: str, operation: str, path_template: str, users: int, fixed_id: int, http2: bool = False) -> str:
    """Check the route for operation (over HTTP/2 with http2); returns a one-line description of what was checked."""
    if operation in catalog.WS_OPERATIONS:
        return verify_websocket(base_url, path_template)
    over = " over HTTP/2" if http2 else ""
    if "{id}" in path_template:
        ids = sample_ids(users, fixed_id)
        for user_id in ids:
            path = path_template.replace("{id}", str(user_id))
            check_answer(operation, path, *fetch(base_url, path, http2=http2), user_id=user_id)
        return f"{path_template} answered the contract{over} for ids {', '.join(map(str, ids))}"
    check_answer(operation, path_template, *fetch(base_url, path_template, http2=http2))
    return f"{path_template} answered the contract{over}"
