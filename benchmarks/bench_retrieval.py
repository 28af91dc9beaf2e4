"""Retrieval on a 5 MB log: this project vs Strands Agents' retrieval vs ripgrep, in one run.

Run: ``python benchmarks/bench_retrieval.py`` (about a minute). Prints a markdown table.

* ours: ``Retriever(LocalWorkspace).retrieve`` as the ``retrieve_offloaded_content``
  tool runs it: the file is on disk, read through the workspace primitives; the
  line index already exists (its one-off build is reported on its own row).
* Strands: what Strands Agents 1.62's ``retrieve_offloaded_content`` does after
  fetching from its default ``InMemoryStorage`` (content already in memory):
  decode, then ``context_offloader.search._search_content`` with the tool's
  default budget (2,500 tokens x 4 chars).
* the shared Read tool 5,000 lines before the end of the 5 MB log, with the
  retrieval line index present (it jumps to the line) and without it (it scans
  1 MB chunks from byte 0), with its primitive reads counted;
* rg: ``rg -n -C5 PATTERN FILE`` as a subprocess writing to a pipe (what an agent's
  shell tool pays); ripgrep prints every match while both tools cap their output.
  Skipped with a note when ``rg`` is not installed.

Each cell is the median of several runs, in milliseconds. A "floor" row shows one
worker-thread round trip doing a bare ``pread`` of the same number of bytes: an
async range read through the workspace primitives costs about two of them.
"""

from __future__ import annotations

import asyncio
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # measure this checkout's code

from offloader.retrieval import INDEX_SUFFIX, Retriever
from workspaces import LocalWorkspace

ROWS = 65_000  # ~5 MB
BIG_ROWS = 650_000  # ~50 MB, to show that a range read does not depend on the file size


def _log(rows: int) -> bytes:
    levels = ("INFO", "DEBUG", "INFO", "WARN", "INFO")
    out = []
    for i in range(rows):
        level = levels[i % 5]
        out.append(
            f"2026-11-30T05:{i // 60 % 60:02d}:{i % 60:02d}.{i % 1000:03d} {level} worker-{i % 8} "
            f"request id={i:08x} path=/api/v1/items/{i % 977} status=200 took={i % 300}ms"
        )
    for at in (rows // 3, rows - 5):
        out[at] = f"2026-11-30T06:00:00.000 ERROR worker-3 FATAL database connection lost at row {at}"
    return ("\n".join(out) + "\n").encode()


Timing = tuple[float, float]  # (wall ms, CPU ms), medians


def _medians(walls: list[float], cpus: list[float]) -> Timing:
    return statistics.median(walls), statistics.median(cpus)


async def _median_ms(fn: Callable[[], Awaitable[Any]], runs: int) -> Timing:
    """Wall and CPU time (this process, worker threads included) of an async call."""
    await fn()  # warm-up
    walls, cpus = [], []
    for _ in range(runs):
        cpu, start = time.process_time(), time.perf_counter()
        await fn()
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((time.process_time() - cpu) * 1000)
    return _medians(walls, cpus)


def _child_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def _median_ms_subprocess(cmd: list[str], runs: int) -> Timing:
    """Wall time of a subprocess, and its CPU time (user + system, from rusage)."""
    subprocess.run(cmd, capture_output=True)
    walls, cpus = [], []
    for _ in range(runs):
        cpu, start = _child_cpu(), time.perf_counter()
        subprocess.run(cmd, capture_output=True)
        walls.append((time.perf_counter() - start) * 1000)
        cpus.append((_child_cpu() - cpu) * 1000)
    return _medians(walls, cpus)


def _strands() -> tuple[Any, Any] | None:
    try:
        from strands.vended_plugins.context_offloader.search import _search_content
        from strands.vended_plugins.context_offloader.storage import InMemoryStorage
    except ImportError:
        return None
    return InMemoryStorage, _search_content


Row = tuple[str, Timing, Timing | None, Timing | None]


async def _floor(host: str, size: int) -> Timing:
    """One worker-thread hop doing a bare open + pread of 100 lines' worth of bytes."""

    def pread_100() -> bytes:
        fd = os.open(host, os.O_RDONLY)
        try:
            return os.pread(fd, 100 * 110, size - 100 * 110)
        finally:
            os.close(fd)

    return await _median_ms(lambda: anyio.to_thread.run_sync(pread_100), 25)


async def _bench_file(
    ws: LocalWorkspace, label_size: str, n_rows: int, rg: str | None, strands: tuple[Any, Any] | None
) -> list[Row]:
    rows: list[Row] = []
    data = _log(n_rows)
    ref = await ws.write_bytes(f"sessions/bench/tool_result-{n_rows}.txt", data)
    host = str(ws.path / ws.relative(ref))
    retriever = Retriever(ws)
    total = data.count(b"\n")
    store = search = sref = None
    if strands is not None:
        store, search = strands[0](evict_after_turns=None), strands[1]
        sref = await store.store("bench", data, "text/plain")

    async def strands_call(pattern: str | None, span: tuple[int, int] | None) -> str:
        assert store is not None and search is not None
        content, _ = await store.retrieve(sref)
        return str(search(content.decode("utf-8"), pattern=pattern, line_range=span, context_lines=5, max_chars=10_000))

    cpu, start = time.process_time(), time.perf_counter()
    await retriever.retrieve(ref, line_range={"start": 2, "end": 3})
    build = ((time.perf_counter() - start) * 1000, (time.process_time() - cpu) * 1000)
    rows.append((f"{label_size}: first range read (builds the line index, once per file)", build, None, None))
    cases: list[tuple[str, str | None, tuple[int, int] | None]] = [
        ("rare pattern `FATAL` (2 matches)", "FATAL", None),
        ("common pattern `INFO` (60% of lines)", "INFO", None),
        ("100-line range at the start", None, (1, 100)),
        ("100-line range at the end", None, (total - 99, total)),
    ]
    if n_rows != ROWS:
        cases = cases[3:]
    else:
        rows.append(
            (
                f"{label_size}: floor, one worker-thread hop doing a bare open + pread",
                await _floor(host, len(data)),
                None,
                None,
            )
        )
    for label, pattern, span in cases:
        lr = {"start": span[0], "end": span[1]} if span else None
        ours = await _median_ms(
            lambda: retriever.retrieve(ref, pattern=pattern, line_range=lr),  # noqa: B023
            25 if span else 7,
        )
        theirs = None
        if strands is not None:
            theirs = await _median_ms(lambda: strands_call(pattern, span), 3)  # noqa: B023
        ripgrep = None
        if rg and pattern:
            cmd = [rg, "-n", "-C5", pattern, host]
            ripgrep = _median_ms_subprocess(cmd, 7)
        rows.append((f"{label_size}: {label}", ours, theirs, ripgrep))
    return rows


async def _bench_read_tool(ws: LocalWorkspace) -> list[tuple[str, Timing, int, int]]:
    """The shared Read tool 100 lines deep in the 5 MB log: scanning from byte 0 vs jumping with the index."""
    ref = ws.reference(f"sessions/bench/tool_result-{ROWS}.txt")
    rel = ws.relative(ref)
    sidecar = ws.path / (rel + INDEX_SUFFIX)
    reads: list[int] = []
    plain_read = ws._read

    async def counted(path: str, start: int = 0, end: int | None = None) -> bytes:
        data = await plain_read(path, start, end)
        reads.append(len(data))
        return data

    ws._read = counted  # type: ignore[method-assign]  # bench-only instrumentation
    offset = ROWS - 5_000
    out: list[tuple[str, Timing, int, int]] = []
    try:
        for label in ("jump with the retrieval line index", "scan from byte 0 (no index)"):
            if label.startswith("scan"):
                sidecar.rename(sidecar.with_name(sidecar.name + ".off"))
            timing = await _median_ms(lambda: ws.read(ref, offset=offset, limit=100), 25)
            reads.clear()
            await ws.read(ref, offset=offset, limit=100)
            out.append((f"5 MB: Read offset={offset:,} limit=100, {label}", timing, len(reads), sum(reads)))
    finally:
        ws._read = plain_read  # type: ignore[method-assign]
        off = sidecar.with_name(sidecar.name + ".off")
        if off.exists():
            off.rename(sidecar)
    return out


async def main() -> None:
    rg = shutil.which("rg")
    strands = _strands()
    rows: list[Row] = []
    with tempfile.TemporaryDirectory() as tmp:
        async with LocalWorkspace(Path(tmp) / "ws") as ws:
            rows += await _bench_file(ws, "5 MB", ROWS, rg, strands)
            read_rows = await _bench_read_tool(ws)
            rows += await _bench_file(ws, "50 MB", BIG_ROWS, rg, strands)
    _print(rows, rg is not None, strands is not None)
    print("\n| shared Read tool | wall ms | CPU ms | primitive reads | bytes read |")
    print("|---|---:|---:|---:|---:|")
    for label, (wall, cpu), n_reads, n_bytes in read_rows:
        print(f"| {label} | {_fmt(wall)} | {_fmt(cpu)} | {n_reads} | {n_bytes:,} |")


def _fmt(v: float | None) -> str:
    if v is None:
        return "—"
    return f"{v:.2f}" if v < 10 else f"{v:.0f}"


def _print(rows: list[Row], have_rg: bool, have_strands: bool) -> None:
    print(
        "| case | ours wall | ours CPU | Strands wall | rg wall | rg CPU | Strands / ours | ours / rg (wall) "
        "| ours / rg (CPU) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for label, ours, theirs, ripgrep in rows:
        vs_strands = f"{theirs[0] / ours[0]:.1f}x" if theirs else "—"
        wall = f"{ours[0] / ripgrep[0]:.2f}" if ripgrep else "—"
        cpu = f"{ours[1] / ripgrep[1]:.2f}" if ripgrep and ripgrep[1] else "—"
        print(
            f"| {label} | {_fmt(ours[0])} | {_fmt(ours[1])} | {_fmt(theirs[0] if theirs else None)} "
            f"| {_fmt(ripgrep[0] if ripgrep else None)} | {_fmt(ripgrep[1] if ripgrep else None)} "
            f"| {vs_strands} | {wall} | {cpu} |"
        )
    if not have_rg:
        print("\nrg (ripgrep) is not installed here: the rg columns are skipped.")
    if not have_strands:
        print("\nstrands-agents is not installed here: the Strands column is skipped.")
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(
        f"\nTimes in ms (medians). Python {sys.version.split()[0]}, {os.cpu_count()} CPUs, load average {load}. "
        "CPU time is less sensitive to a busy machine than wall time. Ranges have no rg equivalent; a "
        "100-line range of this log is cut at the 10,000-character output budget (about 90 lines), the "
        "same budget as Strands' tool."
    )


if __name__ == "__main__":
    asyncio.run(main())
