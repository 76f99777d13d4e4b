"""Error strings of Go HTTP clients (hey, vegeta) sorted into the kinds wrk counts."""
from __future__ import annotations

def classify(message: str) -> str:
    """connect, read, write, timeout or other, for one error string of a Go HTTP client."""
    text = message.lower()
    if "dial tcp" in text or "connect:" in text or "connection refused" in text:
        return "connect"
    if "timeout" in text or "deadline exceeded" in text:
        return "timeout"
    if "broken pipe" in text or "write:" in text:
        return "write"
    if ("reset by peer" in text or "eof" in text or "read:" in text
            or "server closed" in text or "malformed http" in text):
        return "read"
    return "other"

