"""Pool size, and holders that create a pooled client on first use in the process (and event
loop) that uses it: pymongo is not fork-safe and asyncio clients are bound to the loop that
created them, so a client made at import time, before a fork or in another loop is never reused.
"""

from __future__ import annotations

import asyncio
import os
import threading
import weakref
from collections.abc import Callable
from typing import Generic, TypeVar

T = TypeVar("T")

# Connections per pool (per process, or per event loop), for every driver: pymongo's default.
# (FerretDB serves them over its own storage pool: 50 PostgreSQL connections, or 100 SQLite ones.)
# A request finding all of them busy waits up to the driver's timeout (1 s), then gets
# BackendUnavailable.
MAX_POOL_SIZE = 100

_lock = threading.Lock()


def _reset_lock() -> None:
    # A fork while another thread held the lock would leave it locked forever in the child.
    global _lock
    _lock = threading.Lock()


os.register_at_fork(after_in_child=_reset_lock)


class PerProcess(Generic[T]):
    """One value per process, made by `factory` on the first `get()` in that process."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._state: tuple[int, T] | None = None

    def get(self) -> T:
        pid = os.getpid()
        state = self._state
        if state is not None and state[0] == pid:
            return state[1]
        with _lock:
            state = self._state
            if state is None or state[0] != pid:
                # A value inherited through fork is dropped, not closed: closing a MongoClient
                # would send endSessions on sockets that the parent still uses.
                state = (pid, self._factory())
                self._state = state
            return state[1]

    def pop(self) -> T | None:
        """Forget and return this process's value (None if it has none yet)."""
        with _lock:
            state, self._state = self._state, None
        if state is None or state[0] != os.getpid():
            return None
        return state[1]


class PerLoop(Generic[T]):
    """One value per running event loop (and process), made by `factory` inside that loop."""

    def __init__(self, factory: Callable[[], T]) -> None:
        self._factory = factory
        self._state: tuple[int, weakref.ref[asyncio.AbstractEventLoop], T] | None = None

    def get(self) -> T:
        loop = asyncio.get_running_loop()
        state = self._state
        if state is not None and state[0] == os.getpid() and state[1]() is loop:
            return state[2]
        # No await between the check and the assignment, so tasks of one loop cannot race here;
        # a client left behind by another loop is dropped, as it cannot be closed from this one.
        value = self._factory()
        self._state = (os.getpid(), weakref.ref(loop), value)
        return value

    def pop(self) -> T | None:
        """Forget and return the value made in the running loop (None if there is none)."""
        state, self._state = self._state, None
        if state is None or state[0] != os.getpid() or state[1]() is not asyncio.get_running_loop():
            return None
        return state[2]
