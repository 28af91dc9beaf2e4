"""Read, Grep and Glob, and the tools that wrap them."""

from __future__ import annotations

import anyio
import pytest

from offloader.core.errors import InvalidPattern

from ..base import Workspace
from ._common import ANYIO, result


class FileToolTests:
    """The agent's file tools over offloaded content."""

    pytestmark = ANYIO

    async def test_read_shows_numbered_lines_and_how_to_continue(self, workspace: Workspace) -> None:
        ref = await workspace.offload_tool_result("s1", result("r", "\n".join(f"row {i}" for i in range(1, 101))))
        out = await workspace.read(ref, offset=10, limit=3)
        assert out.splitlines()[:3] == ["    10\trow 10", "    11\trow 11", "    12\trow 12"]
        assert "offset=13" in out

    async def test_read_shows_a_huge_single_line_in_windows(self, workspace: Workspace) -> None:
        line = "".join(f"{i:06d}," for i in range(100_000))  # 700 KB, one line
        ref = await workspace.offload_tool_result("s1", result("wide", line))
        first = await workspace.read(ref)
        assert len(first) < 5000 and "column=" in first
        col = int(first.split("column=")[1].split("]")[0])
        second = await workspace.read(ref, offset=1, limit=1, column=col)
        assert line[col - 1 : col + 20] in second

    async def test_grep_finds_numbered_matches_with_context(self, workspace: Workspace) -> None:
        text = "\n".join("ERROR boom" if i == 50 else f"ok {i}" for i in range(1, 101))
        ref = await workspace.offload_tool_result("s1", result("g", text))
        out = await workspace.grep("ERROR", context=1)
        assert ref in out
        assert "    50: ERROR boom" in out and "    49- ok 49" in out and "    51- ok 51" in out

    async def test_grep_rejects_an_invalid_regex_with_a_clear_error(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("s1", result("g", "text"))
        with pytest.raises(InvalidPattern):
            await workspace.grep("(unclosed")

    async def test_grep_survives_a_catastrophic_backtracking_pattern(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("s1", result("evil", "a" * 30_000 + "!"))
        with anyio.fail_after(20):
            out = await workspace.grep("(a+)+$")
        assert "no matches" in out  # the line ends in "!", so the correct answer is no match

    async def test_grep_treats_shell_syntax_as_a_plain_pattern(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("s1", result("sh", "safe text\n'; rm -rf / #"))
        out = await workspace.grep("'; rm -rf / #")
        assert "1 matching lines" in out
        assert await workspace.read_bytes("sessions/s1/tool_result-sh.txt")

    async def test_glob_lists_matching_files_newest_first(self, workspace: Workspace) -> None:
        await workspace.offload_tool_result("s1", result("a", "a"))
        await anyio.sleep(1.1)
        await workspace.offload_tool_result("s1", result("b", "b"))
        out = (await workspace.glob("tool_result-*.txt")).splitlines()
        assert out[:2] == [
            workspace.reference("sessions/s1/tool_result-b.txt"),
            workspace.reference("sessions/s1/tool_result-a.txt"),
        ]

    async def test_temp_files_and_line_indexes_are_never_shown(self, workspace: Workspace) -> None:
        await workspace.write_bytes("sessions/s/item.txt", b"needle\n")
        await workspace.write_bytes("sessions/s/.tmp-deadbeef", b"needle\n")
        await workspace.write_bytes("sessions/s/item.txt.lineidx", b"needle\n")
        assert (await workspace.glob("**")).splitlines() == [workspace.reference("sessions/s/item.txt")]
        assert [f.path for f in await workspace.find_files("sessions")] == ["sessions/s/item.txt"]
        assert "1 matching lines" in await workspace.grep("needle")

    async def test_tools_report_errors_as_tool_errors(self, workspace: Workspace) -> None:
        tools = {t.name: t for t in workspace.tools()}
        assert set(tools) >= {"Read", "Grep", "Glob"}
        outcome = await tools["Read"].invoke({"path": "../../etc/passwd"})
        assert outcome.is_error and "outside" in outcome.text
        outcome = await tools["Read"].invoke({"path": "sessions/missing.txt"})
        assert outcome.is_error and "not found" in outcome.text
        outcome = await tools["Grep"].invoke({"pattern": "(("})
        assert outcome.is_error and "invalid regular expression" in outcome.text
