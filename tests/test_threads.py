"""Worker-thread hops (offloader.core.threads): anyio's semantics, on a pool of the event loop's own threads."""

from __future__ import annotations

import asyncio
import contextvars
import threading
import time
from typing import Any

import anyio
import pytest
import sniffio

from offloader.core import threads

pytestmark = pytest.mark.anyio

_VAR: contextvars.ContextVar[str] = contextvars.ContextVar("test_threads_var", default="unset")


def _worker_threads() -> list[threading.Thread]:
    return [t for t in threading.enumerate() if t.name == "offloader-worker"]


async def test_the_function_runs_in_another_thread_and_its_value_comes_back() -> None:
    here = threading.get_ident()
    there = await threads.run_sync(threading.get_ident)
    assert there != here
    assert await threads.run_sync(lambda a, b: a + b, 2, 3) == 5


async def test_consecutive_calls_reuse_one_thread() -> None:
    first = await threads.run_sync(threading.get_ident)
    assert await threads.run_sync(threading.get_ident) == first


async def test_the_exception_of_the_function_is_raised_in_the_caller() -> None:
    def fail() -> None:
        raise KeyError("missing")

    with pytest.raises(KeyError, match="missing"):
        await threads.run_sync(fail)
    assert await threads.run_sync(lambda: "still serving") == "still serving"


async def test_the_function_sees_a_copy_of_the_callers_context() -> None:
    _VAR.set("caller")

    def read_and_set() -> str:
        seen = _VAR.get()
        _VAR.set("worker")
        return seen

    assert await threads.run_sync(read_and_set) == "caller"
    assert _VAR.get() == "caller"


async def test_the_function_does_not_run_as_async_code() -> None:
    def library() -> str | None:
        try:
            return sniffio.current_async_library()
        except sniffio.AsyncLibraryNotFoundError:
            return None

    assert await threads.run_sync(library) is None


async def test_a_cancelled_caller_waits_for_the_function_to_finish() -> None:
    finished = threading.Event()

    def slow() -> None:
        time.sleep(0.2)
        finished.set()

    with anyio.move_on_after(0.02):
        await threads.run_sync(slow)
    assert finished.is_set()


async def test_more_calls_at_once_than_the_pool_holds_all_complete() -> None:
    results: list[int] = []
    gate = threading.Barrier(threads.MAX_WORKERS + 4, timeout=10)

    def meet(i: int) -> int:
        gate.wait()  # every call runs at the same time: beyond the pool, in anyio's threads
        return i

    async def call(i: int) -> None:
        results.append(await threads.run_sync(meet, i))

    async with anyio.create_task_group() as tg:
        for i in range(threads.MAX_WORKERS + 4):
            tg.start_soon(call, i)
    assert sorted(results) == list(range(threads.MAX_WORKERS + 4))


async def test_a_worker_idle_for_long_is_stopped(monkeypatch: pytest.MonkeyPatch) -> None:
    first = await threads.run_sync(threading.get_ident)
    monkeypatch.setattr(threads, "IDLE_SECONDS", 0.0)
    await anyio.sleep(0.01)
    assert await threads.run_sync(threading.get_ident) != first  # the idle one was pruned, a new one started
    for _ in range(200):
        if first not in {t.ident for t in _worker_threads()}:
            break
        await anyio.sleep(0.01)
    assert first not in {t.ident for t in _worker_threads()}


def test_the_workers_of_a_closed_event_loop_exit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(threads, "POLL_SECONDS", 0.02)

    async def use() -> int:
        return await threads.run_sync(threading.get_ident)

    ident = asyncio.run(use())
    deadline = time.monotonic() + 5
    while ident in {t.ident for t in _worker_threads()} and time.monotonic() < deadline:
        time.sleep(0.01)
    assert ident not in {t.ident for t in _worker_threads()}


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_under_trio_the_call_is_anyios() -> None:
    assert await threads.run_sync(lambda: threading.current_thread().name) != "offloader-worker"
    assert await threads.run_sync(lambda a: a * 2, 21) == 42


@pytest.mark.parametrize("anyio_backend", ["asyncio", "trio"])
async def test_the_function_reaches_back_to_the_event_loop(anyio_backend: str) -> None:
    loop_thread = threading.get_ident()

    async def on_the_loop() -> int:
        await anyio.sleep(0)
        return threading.get_ident()

    assert await threads.run_sync(threads.run_on_loop, on_the_loop) == loop_thread


def test_reaching_back_from_a_thread_that_serves_no_event_loop_is_an_error() -> None:
    async def nothing() -> Any:
        return None

    with pytest.raises(RuntimeError):
        threads.run_on_loop(nothing)
