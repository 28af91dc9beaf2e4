"""Worker-thread hops for the latency-bound steps of an offload.

On asyncio, :func:`run_sync` hands a blocking function to a small pool of this
event loop's own threads through a lock-free queue and gets the outcome back with
``call_soon_threadsafe``: 50-110 µs per round trip on the 2-core test machine,
where ``anyio.to_thread.run_sync`` takes 160-220 µs (its limiter, cancel scopes
and ``queue.Queue`` each cost a share). An offload of a 150 KB result makes one
such hop, so the difference is a fifth of its time. The semantics are anyio's
defaults: the function runs in a copy of the caller's context, its exception is
raised in the caller, and the caller waits for it even when cancelled (the
thread cannot be stopped half-way). Under any other event loop (trio) the call is
``anyio.to_thread.run_sync`` itself.

A function running in one of these threads reaches back to the event loop with
:func:`run_on_loop` (anyio's ``from_thread.run`` needs an anyio worker thread).
"""

from __future__ import annotations

import asyncio
import contextvars
import queue
import threading
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
import sniffio

__all__ = ["run_on_loop", "run_sync"]

_T = TypeVar("_T")

#: Most threads one event loop's pool runs at once; beyond, calls go through anyio's pool.
MAX_WORKERS = 8
#: A worker idle this long is stopped (at the next call that finds it idle).
IDLE_SECONDS = 10.0
#: A worker waiting for work checks this often whether its event loop has closed.
POLL_SECONDS = 1.0

#: The event loop a worker thread of this module serves (set in the context its function runs in).
_WORKER_LOOP: contextvars.ContextVar[asyncio.AbstractEventLoop] = contextvars.ContextVar("offloader_worker_loop")

_Job = tuple[contextvars.Context, Callable[..., Any], tuple[Any, ...], "asyncio.Future[Any]"]


class _Worker:
    """One thread taking jobs from its own queue; only the event loop's thread hands it any."""

    def __init__(self, pool: _Pool) -> None:
        self.pool = pool
        self.jobs: queue.SimpleQueue[_Job | None] = queue.SimpleQueue()
        self.idle_since = 0.0
        threading.Thread(target=self._serve, name="offloader-worker", daemon=True).start()

    def _serve(self) -> None:
        loop = self.pool.loop
        while True:
            try:
                job = self.jobs.get(timeout=POLL_SECONDS)
            except queue.Empty:
                if loop.is_closed():
                    return
                continue
            if job is None:  # pruned by the pool
                return
            context, fn, args, future = job
            del job
            try:
                outcome: tuple[Any, BaseException | None] = (context.run(fn, *args), None)
            except BaseException as exc:  # raised in the caller, as anyio does
                outcome = (None, exc)
            del fn, args, context
            try:
                loop.call_soon_threadsafe(self.pool.report, self, future, *outcome)
            except RuntimeError:  # the event loop closed meanwhile: nobody is waiting
                return
            del outcome, future


class _Pool:
    """The worker threads of one event loop; touched only from that loop's thread."""

    def __init__(self, loop: asyncio.AbstractEventLoop) -> None:
        self.loop = loop
        self.idle: list[_Worker] = []
        self.size = 0

    def take(self) -> _Worker | None:
        """An idle worker (the most recently used), a new one, or None when MAX_WORKERS are busy."""
        now = self.loop.time()
        while self.idle and now - self.idle[0].idle_since > IDLE_SECONDS:
            self.idle.pop(0).jobs.put(None)
            self.size -= 1
        if self.idle:
            return self.idle.pop()
        if self.size >= MAX_WORKERS:
            return None
        self.size += 1
        return _Worker(self)

    def report(self, worker: _Worker, future: asyncio.Future[Any], value: Any, exc: BaseException | None) -> None:
        worker.idle_since = self.loop.time()
        self.idle.append(worker)
        if future.done():
            return
        if exc is None:
            future.set_result(value)
        else:
            future.set_exception(exc)


_POOL: anyio.lowlevel.RunVar[_Pool] = anyio.lowlevel.RunVar("offloader_worker_pool")


async def run_sync(fn: Callable[..., _T], *args: Any) -> _T:
    """``fn(*args)`` in a worker thread (see the module doc); the event loop runs meanwhile."""
    try:
        loop = asyncio.get_running_loop()
    except RuntimeError:  # not asyncio (trio)
        return await anyio.to_thread.run_sync(fn, *args)
    pool = _POOL.get(None)
    if pool is None or pool.loop is not loop:
        pool = _Pool(loop)
        _POOL.set(pool)
    worker = pool.take()
    if worker is None:
        return await anyio.to_thread.run_sync(fn, *args)
    context = contextvars.copy_context()
    context.run(sniffio.current_async_library_cvar.set, None)  # the thread is not in async code
    context.run(_WORKER_LOOP.set, loop)
    future: asyncio.Future[_T] = loop.create_future()
    with anyio.CancelScope(shield=True):  # the function cannot be stopped half-way: wait for it
        worker.jobs.put((context, fn, args, future))
        value = await future
    return value


def run_on_loop(fn: Callable[[], Awaitable[_T]]) -> _T:
    """Await ``fn()`` on the event loop of the worker thread calling this, and return its value.

    From a thread of :func:`run_sync` or of anyio's pool; RuntimeError from any other thread.
    """

    async def call() -> _T:
        return await fn()

    loop = _WORKER_LOOP.get(None)
    if loop is None:
        return anyio.from_thread.run(call)
    return asyncio.run_coroutine_threadsafe(call(), loop).result()
