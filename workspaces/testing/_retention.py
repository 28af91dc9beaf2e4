"""Retention on every backend: ``collect_garbage`` through the backend's own primitives.

Ages come from ``now`` (a collection run "in the future"), so no backend needs its
clock or mtimes changed.
"""

from __future__ import annotations

import json
import time

from ..base import Workspace
from ..retention import RetentionPolicy, collect_garbage
from ._common import ANYIO, result

DAY = 86_400.0


class RetentionTests:
    """What ``gc`` removes, and what it never touches."""

    pytestmark = ANYIO

    async def test_only_stale_temp_files_go_without_limits(self, workspace: Workspace) -> None:
        ref = await workspace.offload_tool_result("s1", result("t1", "x" * 100))
        await workspace.write_bytes("sessions/s1/.tmp-deadbeef", b"half")
        report = await collect_garbage(workspace, RetentionPolicy(), now=time.time() + DAY)
        assert [r.path for r in report.removed] == ["sessions/s1/.tmp-deadbeef"]
        assert await workspace.read_bytes(ref) == b"x" * 100
        assert await workspace.stat("sessions/s1/.tmp-deadbeef") is None

    async def test_an_expired_session_is_removed_whole_and_dry_run_removes_nothing(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("old", result("t1", "x"))
        await workspace.offload_context("old", [{"role": "user", "content": "hi"}])
        await workspace.flush()
        later = time.time() + 10 * DAY
        dry = await collect_garbage(workspace, RetentionPolicy(max_age=DAY), dry_run=True, now=later)
        assert dry.removed and await workspace.sessions() == ["old"]
        await collect_garbage(workspace, RetentionPolicy(max_age=DAY), now=later)
        left = [f.path for f in await workspace.list_files("sessions/old")]
        assert left in ([], ["sessions/old/ledger.jsonl"])  # the ledger may stay to record the removals

    async def test_a_user_pin_keeps_an_expired_session(self, workspace: Workspace) -> None:
        ref = await workspace.offload_tool_result("pinned", result("t1", "keep me"))
        line = {"kind": "pin", "ref": ref, "status": "pinned"}
        await workspace.append_bytes("sessions/pinned/ledger.jsonl", (json.dumps(line) + "\n").encode())
        await collect_garbage(workspace, RetentionPolicy(max_age=DAY), now=time.time() + 10 * DAY)
        assert await workspace.read_bytes(ref) == b"keep me"

    async def test_the_line_index_goes_with_its_item(self, workspace: Workspace) -> None:
        ref = await workspace.offload_tool_result("s", result("t1", "x"))
        rel = workspace.relative(ref)
        await workspace.write_bytes(rel + ".lineidx", b"index")
        await workspace.offload_tool_result("s", result("t2", "y"))
        await collect_garbage(workspace, RetentionPolicy(max_files=0), now=time.time() + DAY)
        assert await workspace.stat(rel) is None and await workspace.stat(rel + ".lineidx") is None

    async def test_nothing_outside_sessions_and_data_is_touched(self, workspace: Workspace) -> None:
        await workspace.write_bytes("skills/s.md", b"skill")
        await workspace.write_bytes("notes.txt", b"notes")
        await workspace.offload_tool_result("s", result("t1", "x"))
        await collect_garbage(workspace, RetentionPolicy(max_age=1, max_files=0, max_bytes=0), now=time.time() + DAY)
        assert await workspace.read_bytes("skills/s.md") == b"skill"
        assert await workspace.read_bytes("notes.txt") == b"notes"
