"""Durability under faults: SIGKILL mid-write, a full disk, and a concurrent soak with gc running.

Real processes, a real filesystem and a real (1 MB tmpfs) full disk; no mocks.
"""

from __future__ import annotations

import json
import multiprocessing
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from offloader.core.messages import Message, TextBlock, ToolResultBlock
from offloader.core.records import read_record
from workspaces import LocalWorkspace, NotEnoughSpace
from workspaces.retention import RetentionPolicy

_FORK = multiprocessing.get_context("fork")


def _payload(tid: str) -> str:
    """Deterministic content for a tool id, 1-200 KB, so a torn file is detectable."""
    n = 50 + (sum(map(ord, tid)) * 7919) % 10_000
    return "\n".join(f"{tid} line {i}" for i in range(n))


def _jsonl(path: Path) -> tuple[list[dict[str, object]], bool]:
    """Parsed lines, and whether the final line is torn (no newline, unparsable)."""
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    entries = [json.loads(x) for x in lines[:-1] if x]  # every complete line must parse
    torn = bool(lines[-1])
    if torn:
        with pytest.raises(ValueError):
            json.loads(lines[-1])
    return entries, torn


# ------------------------------------------------------------ crash consistency


def _offload_forever(root: str, tag: str) -> None:
    async def loop() -> None:
        async with LocalWorkspace(root) as ws:
            i = 0
            while True:
                tid = f"t-{tag}-{i}"
                sid = f"s{i % 3}"
                await ws.offload_tool_result(sid, ToolResultBlock(tid, "bash", (TextBlock(_payload(tid)),)))
                await ws.offload_context(sid, [Message("user", (TextBlock(_payload(tid)[:5000]),))])
                i += 1

    anyio.run(loop)


def test_sigkill_at_random_moments_leaves_no_torn_file_and_a_matching_ledger(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    rng = random.Random(1234)
    kills = 60
    for k in range(kills):
        child = _FORK.Process(target=_offload_forever, args=(str(root), str(k)))
        child.start()
        # Each child first makes progress (its first result is stored), however loaded the machine is; the
        # kill then lands at a random moment of what follows.
        first = root / "sessions" / "s0" / f"tool_result-t-{k}-0.txt"
        deadline = time.monotonic() + 60
        while not first.exists() and time.monotonic() < deadline:
            time.sleep(0.005)
        assert first.exists(), f"child {k} stored nothing in 60 s"
        time.sleep(rng.uniform(0.02, 0.25))
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join()
        assert child.exitcode == -signal.SIGKILL
    files = {p.name: p for p in root.glob("sessions/*/tool_result-*.txt")}
    assert len(files) >= kills  # every child made progress before its kill
    for name, path in files.items():  # no visible file is torn: each holds exactly what was offloaded
        assert path.read_text() == _payload(name.removeprefix("tool_result-").removesuffix(".txt")), name
    listed: set[str] = set()
    torn_logs = []
    for session in root.glob("sessions/*"):
        for log in ("context.jsonl", "ledger.jsonl"):
            if (session / log).exists() and _jsonl(session / log)[1]:
                torn_logs.append(f"sessions/{session.name}/{log}")
        ledger, _ = _jsonl(session / "ledger.jsonl")
        for entry in ledger:
            if entry["kind"] == "tool_result":
                path = Path(str(entry["ref"]))
                assert path.exists() and path.stat().st_size == entry["bytes"]  # the ledger matches the files
                assert path.name not in listed  # no duplicate entries
                listed.add(path.name)
    assert len(set(files) - listed) <= kills  # at most the one in flight per kill is unrecorded
    stats = subprocess.run(
        [sys.executable, "-m", "offloader.cli", "stats", "--workdir", str(root), "--json"],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    reported = json.loads(stats.stdout)["torn_lines"]
    assert sorted(t for t in torn_logs if t.endswith("context.jsonl")) == sorted(
        t for t in reported if t.endswith("context.jsonl")
    )


def test_gc_sweeps_debris_of_killed_writers(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    for k in range(8):
        child = _FORK.Process(target=_offload_forever, args=(str(root), str(k)))
        child.start()
        time.sleep(0.1)
        assert child.pid is not None
        os.kill(child.pid, signal.SIGKILL)
        child.join()
    debris = tmp_path / "ws/sessions/s0/.tmp-0123456789ab"
    debris.write_bytes(b"partial")  # what a writer killed between create and rename leaves

    async def sweep() -> None:
        async with LocalWorkspace(root) as ws:
            await ws.gc(RetentionPolicy(temp_grace=0))

    anyio.run(sweep)
    assert not list(root.rglob(".tmp-*"))
    assert list(root.glob("sessions/*/tool_result-*.txt"))


# ------------------------------------------------------------ disk full


def _visible(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def test_offload_on_a_full_disk_raises_not_enough_space_and_leaves_nothing(full_disk: Path) -> None:
    async def go() -> None:
        async with LocalWorkspace(full_disk / "ws") as ws:
            await ws.offload_tool_result("s", ToolResultBlock("small", "bash", (TextBlock("fits"),)))
            before = _visible(full_disk / "ws")
            with pytest.raises(NotEnoughSpace):
                await ws.offload_tool_result("s", ToolResultBlock("big", "bash", (TextBlock("x" * 2_000_000),)))
            assert _visible(full_disk / "ws") == before  # no temp file, no half file, no ledger line
            assert not list((full_disk / "ws").rglob(".tmp-*"))

    anyio.run(go)


def test_context_offloader_on_a_full_disk_keeps_the_original_result_in_context(full_disk: Path) -> None:
    from offloader.offloader import ContextOffloader

    async def go() -> None:
        async with LocalWorkspace(full_disk / "ws") as ws:
            result = ToolResultBlock("big", "bash", (TextBlock("z " * 1_500_000),))
            kept = await ContextOffloader(ws).process_tool_result("s", result)
            assert kept is result  # nothing lost: the agent still sees the whole result
            assert not list((full_disk / "ws").rglob("tool_result-*")) and not list((full_disk / "ws").rglob(".tmp-*"))

    anyio.run(go)


def test_context_append_on_a_full_disk_leaves_no_torn_line(full_disk: Path) -> None:
    async def go() -> None:
        async with LocalWorkspace(full_disk / "ws") as ws:
            await ws.offload_context("s", [Message("user", (TextBlock("first"),))])
            log = full_disk / "ws/sessions/s/context.jsonl"
            size = log.stat().st_size
            with pytest.raises(NotEnoughSpace):
                await ws.offload_context("s", [Message("user", (TextBlock("y" * 2_000_000),))])
            assert log.stat().st_size == size and _jsonl(log)[1] is False

    anyio.run(go)


def test_offload_run_on_a_full_disk_fails_clearly_and_keeps_nothing(full_disk: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "offloader.cli", "run", "--workdir", str(full_disk / "ws"), "--", "seq", "1", "1000000"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode != 0 and "no space" in done.stderr.lower()
    assert not list((full_disk / "ws").rglob("tool_result-*")) and not list((full_disk / "ws").rglob(".tmp-*"))


# ------------------------------------------------------------ soak


_PROCS, _TASKS, _EACH, _SESSIONS = 4, 50, 5, 100


def _soak_writer(root: str, proc: int) -> None:
    async def session_task(ws: LocalWorkspace, k: int) -> None:
        sid = f"live-{(proc * _TASKS + k) % _SESSIONS}"
        for j in range(_EACH):
            tid = f"p{proc}-k{k}-j{j}"
            await ws.offload_tool_result(sid, ToolResultBlock(tid, "soak", (TextBlock(_payload(tid)[:20_000]),)))
            await ws.offload_context(sid, [Message("assistant", (TextBlock(tid),))])

    async def main() -> None:
        async with LocalWorkspace(root) as ws, anyio.create_task_group() as tg:
            for k in range(_TASKS):
                tg.start_soon(session_task, ws, k)

    anyio.run(main)


def _soak_gc(root: str, stop: object) -> None:
    async def main() -> None:
        async with LocalWorkspace(root) as ws:
            while not stop.is_set():  # type: ignore[attr-defined]
                await ws.gc(RetentionPolicy(max_age=3600))
                await anyio.sleep(0.05)

    anyio.run(main)


def test_soak_1000_offloads_from_100_sessions_in_4_processes_with_gc_running(tmp_path: Path) -> None:
    root = tmp_path / "ws"

    async def seed_old() -> None:  # stale sessions the concurrent gc must remove
        async with LocalWorkspace(root) as ws:
            for i in range(20):
                await ws.offload_tool_result(f"old-{i}", ToolResultBlock("t", "old", (TextBlock("old" * 100),)))

    anyio.run(seed_old)
    past = time.time() - 2 * 86400
    for f in root.glob("sessions/old-*/*"):
        os.utime(f, (past, past))
    stop = _FORK.Event()
    collector = _FORK.Process(target=_soak_gc, args=(str(root), stop))
    collector.start()
    writers = [_FORK.Process(target=_soak_writer, args=(str(root), p)) for p in range(_PROCS)]
    for w in writers:
        w.start()
    for w in writers:
        w.join(timeout=120)
        assert w.exitcode == 0
    stop.set()
    collector.join(timeout=60)
    assert collector.exitcode == 0

    expected = {f"p{p}-k{k}-j{j}" for p in range(_PROCS) for k in range(_TASKS) for j in range(_EACH)}
    assert len(expected) == 1000
    recorded: list[str] = []
    messages: list[str] = []
    for session in root.glob("sessions/live-*"):
        ledger, torn = _jsonl(session / "ledger.jsonl")
        assert not torn
        for e in ledger:
            if e["kind"] == "tool_result":
                recorded.append(str(e["tool_id"]))
                assert Path(str(e["ref"])).read_text() == _payload(str(e["tool_id"]))[:20_000]
        context, torn = _jsonl(session / "context.jsonl")
        assert not torn
        messages.extend(str(read_record(m).content[0].text) for m in context)  # type: ignore[arg-type,union-attr]
    assert len(recorded) == len(set(recorded)) == 1000 and set(recorded) == expected  # none lost or duplicated
    assert sorted(messages) == sorted(expected)
    assert len({p.parent.name for p in root.glob("sessions/live-*/ledger.jsonl")}) == _SESSIONS
    # gc did run, concurrently: only the ledgers of the stale sessions are left, recording the removals
    assert {p.name for p in root.glob("sessions/old-*/*")} == {"ledger.jsonl"}
    for ledger_path in root.glob("sessions/old-*/ledger.jsonl"):
        assert _jsonl(ledger_path)[0][-1]["status"] == "removed"


def test_append_after_a_writer_died_mid_line_does_not_fuse_with_the_torn_tail(tmp_path: Path) -> None:
    async def go() -> None:
        async with LocalWorkspace(tmp_path / "ws") as ws:
            await ws.offload_context("s", [Message("user", (TextBlock("one"),))])
            log = tmp_path / "ws/sessions/s/context.jsonl"
            with open(log, "ab") as f:
                f.write(b'{"role":"user","content":[{"ty')  # what SIGKILL mid-write leaves
            await ws.offload_context("s", [Message("user", (TextBlock("two"),))])
            entries, torn = _jsonl(log)
            assert not torn and [e["content"][0]["text"] for e in entries] == ["one", "two"]  # type: ignore[index]

    anyio.run(go)
