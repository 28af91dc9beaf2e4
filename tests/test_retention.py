"""Retention: ``await workspace.gc(RetentionPolicy(...))`` removes only what the policy lets go."""

from __future__ import annotations

import json
import os
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

from offloader.core.messages import DataBlock, Message, TextBlock, ToolResultBlock
from workspaces import LocalWorkspace
from workspaces.retention import RetentionPolicy

pytestmark = pytest.mark.anyio

DAY = 86_400.0


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[LocalWorkspace]:
    async with LocalWorkspace(tmp_path / "ws") as w:
        yield w


def _age(path: Path, seconds: float) -> None:
    t = time.time() - seconds
    os.utime(path, (t, t))


async def _offload(ws: LocalWorkspace, session: str, tid: str, text: str = "x" * 100, age: float = 0) -> Path:
    ref = await ws.offload_tool_result(session, ToolResultBlock(tid, "bash", (TextBlock(text),)))
    if age:
        _age(Path(ref), age)
    return Path(ref)


def _age_session(ws: LocalWorkspace, session: str, seconds: float) -> None:
    for f in (ws.path / "sessions" / session).iterdir():
        _age(f, seconds)


async def test_without_limits_nothing_but_stale_temp_files_is_removed(ws: LocalWorkspace) -> None:
    item = await _offload(ws, "s1", "t1", age=30 * DAY)
    stale = item.parent / ".tmp-deadbeef"
    stale.write_bytes(b"half")
    _age(stale, 2 * 3600)
    fresh = item.parent / ".tmp-cafecafe"
    fresh.write_bytes(b"being written")
    report = await ws.gc(RetentionPolicy())
    assert [r.path for r in report.removed] == ["sessions/s1/.tmp-deadbeef"]
    assert item.exists() and fresh.exists() and not stale.exists()


async def test_session_idle_longer_than_max_age_is_removed_whole(ws: LocalWorkspace) -> None:
    await _offload(ws, "old", "t1")
    await ws.offload_context("old", [Message("user", (TextBlock("hi"),))])
    _age_session(ws, "old", 10 * DAY)
    kept = await _offload(ws, "new", "t1")
    report = await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert {r.reason for r in report.removed} == {"expired-session"}
    assert [p.name for p in (ws.path / "sessions" / "old").iterdir()] == ["ledger.jsonl"]  # the record stays
    ledger = [json.loads(x) for x in (ws.path / "sessions/old/ledger.jsonl").read_text().splitlines()]
    gone = {e["ref"].rsplit("/", 1)[-1] for e in ledger if e["kind"] == "gc" and e["status"] == "removed"}
    assert gone == {"tool_result-t1.txt", "context.jsonl"}
    assert kept.exists()
    _age_session(ws, "old", 10 * DAY)  # a later collection removes the lone, old ledger
    await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert await ws.sessions() == ["new"]


async def test_dry_run_reports_but_removes_nothing(ws: LocalWorkspace) -> None:
    item = await _offload(ws, "old", "t1")
    _age_session(ws, "old", 10 * DAY)
    report = await ws.gc(RetentionPolicy(max_age=7 * DAY), dry_run=True)
    assert report.dry_run and [r.path for r in report.removed] == ["sessions/old/tool_result-t1.txt"]
    assert item.exists()
    real = await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert real.removed == report.removed and not item.exists()


async def test_old_items_of_a_live_session_go_but_its_logs_stay(ws: LocalWorkspace) -> None:
    old = await _offload(ws, "s", "old", age=10 * DAY)
    new = await _offload(ws, "s", "new")
    report = await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert [(r.path, r.reason) for r in report.removed] == [("sessions/s/tool_result-old.txt", "age")]
    assert not old.exists() and new.exists() and (ws.path / "sessions/s/ledger.jsonl").exists()


async def test_removal_is_recorded_in_the_ledger(ws: LocalWorkspace) -> None:
    old = await _offload(ws, "s", "old", age=10 * DAY)
    await _offload(ws, "s", "new")
    await ws.gc(RetentionPolicy(max_age=7 * DAY))
    lines = [json.loads(x) for x in (ws.path / "sessions/s/ledger.jsonl").read_text().splitlines()]
    assert lines[-1]["kind"] == "gc" and lines[-1]["status"] == "removed" and lines[-1]["ref"] == str(old)


async def test_item_named_in_state_json_is_pinned_in_a_live_session(ws: LocalWorkspace) -> None:
    pinned = await _offload(ws, "s", "a", age=10 * DAY)
    await _offload(ws, "s", "b")
    await ws.write_bytes("sessions/s/state.json", json.dumps({"entries": [{"ref": str(pinned)}]}).encode())
    report = await ws.gc(RetentionPolicy(max_age=7 * DAY, max_files=0))
    assert pinned.exists() and report.pinned == 1
    assert report.over_limit  # the pin keeps the workspace above max_files, and the report says so


@pytest.mark.parametrize("status", ["pinned", "mild", "truncated"])
async def test_item_with_a_pinning_ledger_status_is_kept(ws: LocalWorkspace, status: str) -> None:
    item = await _offload(ws, "s", "a", age=10 * DAY)
    await _offload(ws, "s", "b")
    line = json.dumps({"kind": "compaction", "ref": str(item), "status": status}) + "\n"
    await ws._append("sessions/s/ledger.jsonl", line.encode())
    await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert item.exists()


async def test_user_pin_keeps_an_expired_session(ws: LocalWorkspace) -> None:
    item = await _offload(ws, "s", "a")
    await ws._append("sessions/s/ledger.jsonl", (json.dumps({"ref": str(item), "status": "pinned"}) + "\n").encode())
    _age_session(ws, "s", 30 * DAY)
    await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert item.exists()


async def test_max_files_removes_the_oldest_items_first(ws: LocalWorkspace) -> None:
    paths = [await _offload(ws, "s", f"t{i}", age=(10 - i) * 3600) for i in range(5)]
    report = await ws.gc(RetentionPolicy(max_files=2))
    assert [p.exists() for p in paths] == [False, False, False, True, True]
    assert {r.reason for r in report.removed} == {"max-files"}


async def test_max_bytes_bounds_total_bytes(ws: LocalWorkspace) -> None:
    for i in range(6):
        await _offload(ws, "s", f"t{i}", text="y" * 10_000, age=(10 - i) * 3600)
    report = await ws.gc(RetentionPolicy(max_bytes=35_000))
    assert report.kept_bytes <= 35_000
    assert sum(f.stat().st_size for f in (ws.path / "sessions").rglob("*") if f.is_file()) <= 35_000


async def test_files_younger_than_the_grace_period_survive_any_limit(ws: LocalWorkspace) -> None:
    item = await _offload(ws, "s", "t")
    await ws.gc(RetentionPolicy(max_files=0, max_bytes=0))
    assert item.exists()


async def test_session_filter_touches_only_that_session_and_no_media(ws: LocalWorkspace) -> None:
    a = await _offload(ws, "a", "t", age=10 * DAY)
    b = await _offload(ws, "b", "t", age=10 * DAY)
    (ws.path / "data").mkdir()
    orphan = ws.path / "data" / "ff.png"
    orphan.write_bytes(b"png")
    _age(orphan, 10 * DAY)
    await ws.gc(RetentionPolicy(max_age=DAY, session="a"))
    assert not a.exists() and b.exists() and orphan.exists()


async def test_media_referenced_by_a_kept_result_stay_and_orphans_follow_max_age(ws: LocalWorkspace) -> None:
    image = DataBlock("image/png", data=b"\x89PNG-kept")
    ref = await ws.offload_tool_result("s", ToolResultBlock("t", "shot", (TextBlock("see"), image)))
    orphan_block = await ws.offload_data_block(DataBlock("image/png", data=b"\x89PNG-orphan"))
    for f in (ws.path / "data").iterdir():
        _age(f, 10 * DAY)
    await ws.gc(RetentionPolicy(max_age=7 * DAY))
    left = sorted(p.name for p in (ws.path / "data").iterdir())
    assert len(left) == 1 and left[0] in Path(ref).read_text()
    assert orphan_block.url.rsplit("/", 1)[-1] not in left


async def test_nothing_outside_sessions_and_data_is_touched(ws: LocalWorkspace) -> None:
    skill = ws.path / "skills" / "s.md"
    skill.parent.mkdir(parents=True)
    skill.write_text("keep me")
    _age(skill, 100 * DAY)
    other = ws.path / "notes.txt"
    other.write_text("mine")
    _age(other, 100 * DAY)
    await ws.gc(RetentionPolicy(max_age=0, max_files=0, max_bytes=0, temp_grace=0))
    assert skill.exists() and other.exists()


async def test_a_file_rewritten_after_the_scan_is_not_removed(ws: LocalWorkspace) -> None:
    from workspaces.retention import collect_garbage

    first = await _offload(ws, "s", "a", age=10 * DAY)
    second = await _offload(ws, "s", "z", age=11 * DAY)
    await _offload(ws, "s", "b")

    def touch_left() -> None:
        for p in (first, second):
            if p.exists():
                os.utime(p, None)

    async def refresh_the_other(done: int, total: int) -> None:  # a writer refreshes a file mid-collection
        if done == 2:  # called before each removal: after the first one, touch what is left
            await anyio.to_thread.run_sync(touch_left)

    report = await collect_garbage(ws, RetentionPolicy(max_age=7 * DAY), progress=refresh_the_other)
    assert report.skipped_changed == 1 and first.exists() != second.exists()


@pytest.mark.parametrize(
    "bad", [{"max_age": -1}, {"max_files": "3"}, {"max_bytes": True}, {"temp_grace": -5}, {"session": ""}]
)
def test_invalid_policy_is_rejected(bad: dict[str, object]) -> None:
    with pytest.raises(ValueError):
        RetentionPolicy(**bad)  # type: ignore[arg-type]


async def test_retrieval_index_goes_with_its_item_and_orphans_are_swept(ws: LocalWorkspace) -> None:
    old = await _offload(ws, "s", "old", age=10 * DAY)
    await _offload(ws, "s", "new")
    side = Path(str(old) + ".lineidx")
    side.write_bytes(b"\0" * 16)
    orphan = ws.path / "sessions/s/tool_result-gone.txt.lineidx"
    orphan.write_bytes(b"\0" * 16)
    _age(orphan, DAY)
    await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert not old.exists() and not side.exists() and not orphan.exists()


# ------------------------------------------------------------ promises on every path (issue 15)


async def test_an_expired_session_keeps_its_pinned_and_fresh_items(ws: LocalWorkspace) -> None:
    mild = await _offload(ws, "s", "mild")
    named = await _offload(ws, "s", "named")
    plain = await _offload(ws, "s", "plain")
    line = json.dumps({"kind": "compaction", "ref": str(mild), "status": "mild"}) + "\n"
    await ws._append("sessions/s/ledger.jsonl", line.encode())
    await ws.write_bytes("sessions/s/state.json", json.dumps({"ref": str(named)}).encode())
    _age_session(ws, "s", 30 * DAY)
    report = await ws.gc(RetentionPolicy(max_age=7 * DAY))
    assert mild.exists() and named.exists() and not plain.exists()
    assert (ws.path / "sessions/s/state.json").exists()  # it still pins a kept item
    assert {r.path for r in report.removed} == {"sessions/s/tool_result-plain.txt"}


@pytest.mark.parametrize("max_age", [0, 1])
async def test_age_zero_never_removes_what_was_just_written(ws: LocalWorkspace, max_age: float) -> None:
    item = await _offload(ws, "s", "t")
    await ws.offload_context("s", [Message("user", (TextBlock("hi"),))])
    report = await ws.gc(RetentionPolicy(max_age=max_age))  # the default 10-minute grace holds
    assert not report.removed and item.exists() and (ws.path / "sessions/s/context.jsonl").exists()


async def test_max_bytes_counts_sidecars_and_removes_the_fewest_oldest_items(ws: LocalWorkspace) -> None:
    paths = [await _offload(ws, "s", f"t{i}", text="y" * 1000, age=(10 - i) * 3600) for i in range(4)]
    for p in paths:
        Path(str(p) + ".lineidx").write_bytes(b"\0" * 1000)
        _age(Path(str(p) + ".lineidx"), DAY)
    logs = sum(f.stat().st_size for f in (ws.path / "sessions/s").iterdir() if f.suffix == ".jsonl")
    report = await ws.gc(RetentionPolicy(max_bytes=logs + 2 * 2000))  # room for two items with their indexes
    assert [p.exists() for p in paths] == [False, False, True, True]
    assert not Path(str(paths[0]) + ".lineidx").exists()
    assert {r.reason for r in report.removed} == {"max-bytes"} and len(report.removed) == 4  # 2 items + 2 indexes


async def test_a_context_log_appended_during_the_collection_of_its_expired_session_is_kept(
    ws: LocalWorkspace,
) -> None:
    from workspaces.retention import collect_garbage

    await _offload(ws, "s", "t")
    await ws.offload_context("s", [Message("user", (TextBlock("old"),))])
    _age_session(ws, "s", 30 * DAY)

    async def resume(done: int, total: int) -> None:  # the agent resumes while gc runs
        if done == 1:
            await ws.offload_context("s", [Message("user", (TextBlock("new"),))])

    report = await collect_garbage(ws, RetentionPolicy(max_age=DAY), progress=resume)
    lines = (ws.path / "sessions/s/context.jsonl").read_text().splitlines()
    assert [json.loads(x)["content"][0]["text"] for x in lines] == ["old", "new"]
    assert report.skipped_changed >= 1


async def test_an_item_offloaded_again_during_the_collection_is_kept(ws: LocalWorkspace) -> None:
    from workspaces.retention import collect_garbage

    item = await _offload(ws, "s", "t", age=30 * DAY)
    await _offload(ws, "s", "other", age=30 * DAY)

    async def again(done: int, total: int) -> None:
        if done == 1:
            ref = await ws.offload_tool_result("s", ToolResultBlock("t", "bash", (TextBlock("x" * 100),)))
            assert Path(ref) == item

    await collect_garbage(ws, RetentionPolicy(max_age=DAY), progress=again)
    assert item.read_text() == "x" * 100


def test_gc_on_a_read_only_filesystem_is_a_clear_error_and_removes_nothing(full_disk: Path) -> None:
    import subprocess

    import anyio
    from click.testing import CliRunner

    from offloader.cli import main
    from workspaces import WorkspaceReadOnly

    mnt = full_disk  # a tmpfs of our own, remounted read-only below

    async def seed() -> Path:
        async with LocalWorkspace(mnt / "ws") as w:
            return await _offload(w, "s", "t", age=30 * DAY)

    item = anyio.run(seed)
    subprocess.run(["mount", "-o", "remount,ro", str(mnt)], check=True)

    async def collect() -> None:
        async with LocalWorkspace(mnt / "ws") as w:
            dry = await w.gc(RetentionPolicy(max_age=DAY), dry_run=True)
            assert [r.path for r in dry.removed] == ["sessions/s/tool_result-t.txt"]
            with pytest.raises(WorkspaceReadOnly, match="read-only"):
                await w.gc(RetentionPolicy(max_age=DAY))

    anyio.run(collect)
    assert item.exists()
    result = CliRunner().invoke(main, ["gc", "--workdir", str(mnt / "ws"), "--max-age", "1d"])
    assert result.exit_code == 1 and "read-only" in result.output.lower() and "Traceback" not in result.output


# ------------------------------------------------------------ ledger durability (every backend)


async def test_gc_records_results_whose_buffered_ledger_lines_died_with_their_writer(workspace: Any) -> None:
    from workspaces.inventory import inventory
    from workspaces.retention import collect_garbage

    workspace.ledger_batch = 16
    ref = await workspace.offload_tool_result("s", ToolResultBlock("t", "bash", (TextBlock("kept"),)))
    await workspace.offload_tool_result("s", ToolResultBlock("u", "bash", (TextBlock("too"),)))
    workspace._ledger_buffer.clear()  # the process dies before its batch is written
    await collect_garbage(workspace, RetentionPolicy(), now=time.time() + 3600)  # an hour later
    items = (await inventory(workspace)).sessions["s"].items
    assert {i.path.rsplit("/", 1)[-1]: i.status for i in items.values()} == {
        "tool_result-t.txt": "offloaded",
        "tool_result-u.txt": "offloaded",
    }
    assert await workspace.read_bytes(ref) == b"kept"


async def test_compaction_lines_follow_the_offload_lines_they_refer_to(workspace: Any) -> None:
    from workspaces.inventory import inventory

    workspace.ledger_batch = 16
    ref = await workspace.offload_tool_result("s", ToolResultBlock("t", "bash", (TextBlock("x"),)))
    await workspace.record_ledger("s", [{"kind": "compaction", "ref": ref, "status": "mild"}])
    await workspace.flush()
    ledger = (await inventory(workspace)).sessions["s"].ledger
    assert [e["kind"] for e in ledger] == ["tool_result", "compaction"]
    assert (await inventory(workspace)).sessions["s"].items["sessions/s/tool_result-t.txt"].status == "mild"


async def test_a_collection_killed_mid_way_is_recorded_by_the_next_one(workspace: Any) -> None:
    from workspaces.inventory import inventory
    from workspaces.retention import collect_garbage

    for tid in ("a", "b"):
        await workspace.offload_tool_result("s", ToolResultBlock(tid, "bash", (TextBlock(tid * 50),)))

    async def die(done: int, total: int) -> None:
        if done == 2:
            raise KeyboardInterrupt  # killed after the first removal, before any removal line

    later = time.time() + 3600
    with pytest.raises(KeyboardInterrupt):
        await collect_garbage(workspace, RetentionPolicy(max_files=0), progress=die, now=later)
    await collect_garbage(workspace, RetentionPolicy(), now=later)
    items = (await inventory(workspace)).sessions["s"]
    assert len(items.items) == 1
    gone = {e["ref"].rsplit("/", 1)[-1]: e for e in items.ledger if e.get("status") == "removed"}
    assert set(gone) == {"tool_result-a.txt", "tool_result-b.txt"} - {p.rsplit("/", 1)[-1] for p in items.items}
    assert all(e["reason"] == "interrupted" for e in gone.values())
