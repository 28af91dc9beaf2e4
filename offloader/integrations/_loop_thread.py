"""Run coroutines from sync code, including from inside a running event loop.

Sync framework APIs (deepagents' ``read``/``write``, Strands' sync storage
calls) may be called from a worker thread, from plain scripts, or from code
already inside an event loop (Jupyter, an async agent that calls a sync hook).
:class:`LoopThread` runs the coroutine on the loop that owns the object when
that loop runs in another thread, and otherwise on a dedicated loop in a
daemon thread of its own, so a caller inside a running loop never deadlocks
it and never needs a second ``asyncio.run``.
"""

from __future__ import annotations

import asyncio
import threading
import weakref
from collections.abc import Awaitable, Callable
from typing import TypeVar

__all__ = ["LoopThread"]

_T = TypeVar("_T")


class LoopThread:
    """Run coroutines synchronously; see the module docstring."""

    def __init__(self) -> None:
        self._owner: asyncio.AbstractEventLoop | None = None
        self._owner_thread: int | None = None
        self._own: asyncio.AbstractEventLoop | None = None
        self._lock = threading.Lock()

    def note_loop(self) -> None:
        """Remember the running asyncio loop as the owner (called from async entry points)."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # trio or no loop: sync callers use the dedicated loop
            return
        if loop is self._own:
            return
        if self._owner is None or not self._owner.is_running():
            self._owner, self._owner_thread = loop, threading.get_ident()

    def run(self, make: Callable[[], Awaitable[_T]]) -> _T:
        """``await make()`` from sync code and return its result (exceptions propagate)."""
        owner = self._owner
        if owner is not None and owner.is_running() and self._owner_thread != threading.get_ident():
            return asyncio.run_coroutine_threadsafe(_call(make), owner).result()
        return asyncio.run_coroutine_threadsafe(_call(make), self._loop()).result()

    def _loop(self) -> asyncio.AbstractEventLoop:
        with self._lock:
            if self._own is None or self._own.is_closed():
                loop = asyncio.new_event_loop()
                thread = threading.Thread(target=loop.run_forever, name="offloader-sync-loop", daemon=True)
                thread.start()
                weakref.finalize(self, _stop, loop)
                self._own = loop
            return self._own

    def close(self) -> None:
        """Stop the dedicated loop (it is restarted on the next ``run``)."""
        with self._lock:
            loop, self._own = self._own, None
        if loop is not None:
            _stop(loop)


async def _call(make: Callable[[], Awaitable[_T]]) -> _T:
    return await make()


def _stop(loop: asyncio.AbstractEventLoop) -> None:
    if not loop.is_closed():
        loop.call_soon_threadsafe(loop.stop)
