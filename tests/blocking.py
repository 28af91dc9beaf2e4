"""The event-loop blocking detector the whole test suite runs under (``blockbuster``), on asyncio and trio.

A blocking call (file or socket I/O, ``time.sleep``, a lock wait...) made by our
packages (``offloader``, ``workspaces``) on the thread running the event loop
raises ``BlockingError``; the same call in a worker thread is fine. blockbuster
only knows asyncio, so its loop probe is widened to recognise trio's thread too.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

__all__ = ["detect_blocking"]

#: Calls that do not wait on I/O worth a thread hop: ``abspath`` reads the cached working directory.
_ALLOWED = ("os.path.abspath",)
_IMPORTING = ("<frozen importlib._bootstrap>", {"_find_and_load"})
#: Functions that run a private event loop in a worker thread on purpose (blocking there stalls nothing).
_WORKER_LOOPS = ("workspaces/_fsspec_store.py", {"_warm_botocore_session"})
#: A synchronous API called from inside a running loop (deepagents' sync methods) must wait for its result.
_SYNC_BRIDGE = ("offloader/integrations/_loop_thread.py", {"run"})
#: A token counter reads its encoding once, on first use (like an import): not a per-call stall.
_ENCODING_LOAD = ("offloader/counters.py", {"_load_encoding"})


class _LoopProbe:
    """Stands in for the ``asyncio`` module inside blockbuster: "is an event loop running on this thread?"."""

    def __getattr__(self, name: str) -> Any:
        return getattr(asyncio, name)

    @staticmethod
    def get_running_loop() -> Any:
        try:
            return asyncio.get_running_loop()
        except RuntimeError:
            import trio

            return trio.lowlevel.current_root_task()  # RuntimeError outside trio's own thread


@contextmanager
def detect_blocking() -> Iterator[None]:
    """Raise ``blockbuster.BlockingError`` for blocking calls our packages make on the event loop."""
    import blockbuster.blockbuster as bb
    import trio  # noqa: F401  (imported by the probe; importing it under the detector would re-enter the probe)

    bb.asyncio = _LoopProbe()  # type: ignore[assignment]
    detector = bb.BlockBuster(["offloader", "workspaces"])
    for name, function in detector.functions.items():
        function.can_block_functions.append(_IMPORTING)  # a first import reads files once; not a loop stall
        function.can_block_functions.append(_WORKER_LOOPS)
        function.can_block_functions.append(_ENCODING_LOAD)
        function.can_block_functions.append(_SYNC_BRIDGE)
        if name in _ALLOWED:
            function.can_block_predicate = lambda *_, **__: True
    detector.activate()
    try:
        yield
    finally:
        detector.deactivate()
