"""Cost of race-free confinement: descriptor walks vs the old realpath-then-open-by-name path.

Run: ``python benchmarks/bench_confinement.py [--size 50] [--batches 30]`` (about a minute).

Both rows are the same ``LocalWorkspace``; the "before" row swaps its folder tree
(``ws._tree``) for :class:`RealpathTree`, the previous implementation: resolve
the parent with ``realpath``, check it is inside, then act on the path by name
(which a process swapping a folder for a symlink can redirect). The "after" row
is the shipped :class:`workspaces._confined.ConfinedTree`: every path walked from the
workdir's descriptor with ``O_NOFOLLOW``, hot folders' descriptors cached and
re-checked with ``fstatat``.

Workloads, many small results (a 200-byte text each, fresh tool-call ids):

* offload_tool_result into 4 sessions (the hot path: cached session descriptors);
* offload_tool_result, each into a new session (every call walks and creates a folder);
* read_bytes of every offloaded result;
* offload_context, one short message per call (``O_APPEND`` + ``flock``).

Both workspaces are open side by side on fresh workdirs; every workload alternates
batches between them (which goes first alternates too), so load on a shared machine
hits both alike. The table shows median calls per second and the median over batch
pairs of before-time / after-time (1.00 = same speed, higher = the descriptors are faster).
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import fcntl
import os
import secrets
import shutil
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from offloader import TextBlock, ToolResultBlock
from offloader.core.layout import TMP_PREFIX
from workspaces import LocalWorkspace, PathOutsideWorkspace
from workspaces._confined import ConfinedTree, drop_torn_tail


class RealpathTree:
    """The pre-descriptor LocalWorkspace file layer: check with ``realpath``, then use the name."""

    def __init__(self, root: str, file_mode: int = 0o644) -> None:
        self.root = root
        self.real_root = ""
        self.file_mode = file_mode

    def open(self) -> None:
        os.makedirs(self.root, exist_ok=True)
        self.real_root = os.path.realpath(self.root)

    def close(self) -> None:
        pass

    def _inside(self, real: str) -> bool:
        return real == self.real_root or real.startswith(self.real_root + os.sep)

    def _checked(self, rel: str) -> str:
        path = os.path.join(self.root, rel) if rel else self.root
        if not self._inside(os.path.realpath(path)):
            raise PathOutsideWorkspace(rel)
        return path

    def _parent_dir(self, rel: str) -> str:
        path = os.path.join(self.root, rel)
        parent = os.path.dirname(path)
        os.makedirs(parent, exist_ok=True)
        if not self._inside(os.path.realpath(parent)):
            raise PathOutsideWorkspace(rel)
        return path

    def read(self, rel: str, start: int = 0, end: int | None = None) -> bytes:
        fd = os.open(self._checked(rel), os.O_RDONLY | os.O_NOFOLLOW)
        try:
            if end is None:
                with os.fdopen(os.dup(fd), "rb") as f:
                    f.seek(start)
                    return f.read()
            return os.pread(fd, max(0, end - start), start)
        finally:
            os.close(fd)

    def write(self, rel: str, data: bytes, *, exclusive: bool = False) -> bool:
        target = self._parent_dir(rel)
        if exclusive and os.path.lexists(target):
            return False
        tmp = os.path.join(os.path.dirname(target), f"{TMP_PREFIX}{secrets.token_hex(6)}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, self.file_mode)
        try:
            os.write(fd, data)
        finally:
            os.close(fd)
        if exclusive:
            try:
                os.link(tmp, target)
            except FileExistsError:
                return False
            finally:
                os.unlink(tmp)
        else:
            os.replace(tmp, target)
        return True

    def append(self, rel: str, data: bytes) -> None:
        fd = os.open(self._parent_dir(rel), os.O_RDWR | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, self.file_mode)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            drop_torn_tail(fd, os.fstat(fd).st_size)
            os.write(fd, data)
        finally:
            os.close(fd)

    def stat(self, rel: str) -> os.stat_result | None:
        try:
            return os.stat(self._checked(rel), follow_symlinks=False)
        except FileNotFoundError:
            return None

    def list(self, rel: str) -> list[tuple[str, int, float]]:
        raise NotImplementedError  # not benchmarked

    def remove(self, rel: str, *, recursive: bool = False) -> None:
        host = os.path.join(self.root, rel)
        if os.path.isdir(host) and not os.path.islink(host):
            if not recursive:
                raise IsADirectoryError(errno.EISDIR, "is a directory", rel)
            shutil.rmtree(host)
        else:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(host)


def _result(tag: str, i: int) -> ToolResultBlock:
    return ToolResultBlock(f"{tag}-{i}", "bash", (TextBlock(f"result {i}: " + "x" * 188),))


Workload = Callable[[LocalWorkspace, int, int], Awaitable[None]]


async def hot_offload(ws: LocalWorkspace, batch: int, size: int) -> None:
    for i in range(size):
        await ws.offload_tool_result(f"s{i % 4}", _result(f"hot{batch}", i))


async def new_session_offload(ws: LocalWorkspace, batch: int, size: int) -> None:
    for i in range(size):
        await ws.offload_tool_result(f"new{batch}-{i}", _result("new", i))


async def read_back(ws: LocalWorkspace, batch: int, size: int) -> None:
    for i in range(size):
        await ws.read_bytes(f"sessions/s{i % 4}/tool_result-hot{batch}-{i}.txt")


async def context_append(ws: LocalWorkspace, batch: int, size: int) -> None:
    msg = [{"role": "user", "content": f"a short message {batch}"}]
    for i in range(size):
        await ws.offload_context(f"s{i % 4}", msg)


WORKLOADS: list[tuple[str, Workload]] = [
    ("offload_tool_result, 4 sessions", hot_offload),
    ("offload_tool_result, a new session each", new_session_offload),
    ("read_bytes of those small results", read_back),
    ("offload_context, one message", context_append),
]


def file_layer(size: int, batches: int, base: str | None) -> None:
    """The two file layers called directly (no worker-thread hop): CPU time per call, less load-sensitive."""
    folders = [tempfile.mkdtemp(prefix="bench-confine-", dir=base) for _ in range(2)]
    trees: list[Any] = [RealpathTree(folders[0]), ConfinedTree(folders[1])]
    body = b"x" * 200
    ops: list[tuple[str, Callable[[Any, int, int], object]]] = [
        ("exclusive write, a session", lambda t, b, i: t.write(f"sessions/s{i % 4}/r{b}-{i}", body, exclusive=True)),
        ("append a ledger line", lambda t, b, i: t.append(f"sessions/s{i % 4}/ledger.jsonl", b'{"a":1}\n')),
        ("read a small result", lambda t, b, i: t.read(f"sessions/s{i % 4}/r{b}-{i}")),
        ("stat a small result", lambda t, b, i: t.stat(f"sessions/s{i % 4}/r{b}-{i}")),
    ]  # fmt: skip
    print(f"\nFile layer alone, {batches} alternating batches of {size}; CPU microseconds per call (lower is better)\n")
    print("| operation | before: realpath + name | after: descriptors | after / before (median of pairs) |")
    print("|---|---|---|---|")
    try:
        for tree in trees:
            tree.open()
        for name, op in ops:
            times: dict[int, list[float]] = {0: [], 1: []}
            for batch in range(batches):
                for which in (0, 1) if batch % 2 == 0 else (1, 0):
                    t0 = time.process_time()
                    for i in range(size):
                        op(trees[which], batch, i)
                    times[which].append((time.process_time() - t0) / size * 1e6)
            ratio = statistics.median(a / b for b, a in zip(times[0], times[1], strict=True) if b > 0)
            old, new = (statistics.median(times[w]) for w in (0, 1))
            print(f"| {name} | {old:.1f} | {new:.1f} | {ratio:.2f} |", flush=True)
    finally:
        for tree in trees:
            tree.close()
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


async def main(size: int, batches: int, base: str | None) -> None:
    """Both workspaces open side by side; each workload alternates batches between them."""
    folders = [tempfile.mkdtemp(prefix="bench-confine-", dir=base) for _ in range(2)]
    before, after = LocalWorkspace(folders[0]), LocalWorkspace(folders[1])
    before._tree = RealpathTree(folders[0])  # type: ignore[assignment]
    print(f"{batches} alternating batches of {size} calls per workload; calls/s (higher is better)\n")
    print("| workload | before: realpath + name | after: descriptors | after / before (median of pairs) |")
    print("|---|---|---|---|")
    try:
        async with before, after:
            for name, work in WORKLOADS:
                times: dict[int, list[float]] = {0: [], 1: []}
                for batch in range(batches):
                    order = (0, 1) if batch % 2 == 0 else (1, 0)  # alternate which goes first
                    for which in order:
                        t0 = time.perf_counter()
                        await work((before, after)[which], batch, size)
                        times[which].append(time.perf_counter() - t0)
                ratio = statistics.median(b / a for b, a in zip(times[0], times[1], strict=True))
                old, new = (size / statistics.median(times[w]) for w in (0, 1))
                print(f"| {name} | {old:,.0f} | {new:,.0f} | {ratio:.2f} |", flush=True)
    finally:
        for folder in folders:
            shutil.rmtree(folder, ignore_errors=True)


def _args() -> Any:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--size", type=int, default=50, help="calls per batch")
    parser.add_argument("--batches", type=int, default=30, help="batches per workspace and workload")
    parser.add_argument("--dir", default=None, help="where the workdirs go (default: the temp dir; try /dev/shm)")
    return parser.parse_args()


if __name__ == "__main__":
    args = _args()
    anyio.run(main, args.size, args.batches, args.dir)
    file_layer(args.size * 4, args.batches, args.dir)
