"""Cost of race-free confinement: descriptor walks vs the old realpath-then-open-by-name path.

Run: ``python benchmarks/bench_confinement.py [--n 400] [--rounds 7]`` (about a minute).

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

Rounds alternate before/after on fresh workdirs; the table shows median calls per
second and the after/before ratio (1.00 = same speed, higher = faster).
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
from pathlib import Path
from typing import Any

import anyio

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from offloader import TextBlock, ToolResultBlock
from offloader.core.layout import TMP_PREFIX
from workspaces import LocalWorkspace, PathOutsideWorkspace
from workspaces._confined import drop_torn_tail


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


async def one_round(before: bool, n: int) -> dict[str, float]:
    """Calls per second for each workload on a fresh workdir."""
    folder = tempfile.mkdtemp(prefix="bench-confine-")
    rates: dict[str, float] = {}
    try:
        ws = LocalWorkspace(folder)
        if before:
            ws._tree = RealpathTree(folder)  # type: ignore[assignment]
        async with ws:
            refs: list[str] = []
            t0 = time.perf_counter()
            for i in range(n):
                refs.append(await ws.offload_tool_result(f"s{i % 4}", _result("hot", i)))
            rates["offload_tool_result, 4 sessions"] = n / (time.perf_counter() - t0)
            t0 = time.perf_counter()
            for i in range(n):
                await ws.offload_tool_result(f"new{i}", _result("new", i))
            rates["offload_tool_result, a new session each"] = n / (time.perf_counter() - t0)
            t0 = time.perf_counter()
            for ref in refs:
                await ws.read_bytes(ref)
            rates["read_bytes of a small result"] = n / (time.perf_counter() - t0)
            msg = [{"role": "user", "content": "a short message"}]
            t0 = time.perf_counter()
            for i in range(n):
                await ws.offload_context(f"s{i % 4}", msg)
            rates["offload_context, one message"] = n / (time.perf_counter() - t0)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    return rates


async def main(n: int, rounds: int) -> None:
    samples: dict[bool, list[dict[str, float]]] = {True: [], False: []}
    for r in range(rounds):
        for before in (r % 2 == 0, r % 2 != 0):  # alternate which goes first
            samples[before].append(await one_round(before, n))
    rows: list[tuple[str, float, float]] = []
    for name in samples[True][0]:
        old = statistics.median(s[name] for s in samples[True])
        new = statistics.median(s[name] for s in samples[False])
        rows.append((name, old, new))
    print(f"{n} calls per workload, median of {rounds} rounds, calls/s (higher is better)\n")
    print("| workload | before: realpath + name | after: descriptors | after / before |")
    print("|---|---|---|---|")
    for name, old, new in rows:
        print(f"| {name} | {old:,.0f} | {new:,.0f} | {new / old:.2f} |")


def _args() -> Any:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=400)
    parser.add_argument("--rounds", type=int, default=7)
    return parser.parse_args()


if __name__ == "__main__":
    args = _args()
    anyio.run(main, args.n, args.rounds)
