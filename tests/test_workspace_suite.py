"""The behavioural suite every workspace backend must pass.

Each test runs once per backend in ``tests/backends`` (local folder, Docker
container, E2B sandbox, fsspec memory and S3 ...) through the ``workspace``
fixture, so the layout, naming, safety and tools are provably the same.
"""

from __future__ import annotations

import base64
import json

import anyio
import pytest

from offloader import DataBlock, Offloader, TextBlock, ToolResultBlock
from workspaces import InvalidPattern, PathOutsideWorkspace, Workspace

pytestmark = pytest.mark.anyio

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)


def _result(tid: str, text: str, name: str = "bash") -> ToolResultBlock:
    return ToolResultBlock(id=tid, name=name, content=(TextBlock(text),))


async def test_workspace_satisfies_the_offloader_protocol(workspace: Workspace) -> None:
    assert isinstance(workspace, Offloader)


async def test_offload_tool_result_stores_the_whole_text_under_the_session(workspace: Workspace) -> None:
    text = "\n".join(f"line {i}" for i in range(1, 5001))
    ref = await workspace.offload_tool_result("s1", _result("call_1", text))
    assert ref == workspace.reference("sessions/s1/tool_result-call_1.txt")
    assert (await workspace.read_bytes(ref)).decode() == text


async def test_offload_tool_result_keeps_every_block_in_order_with_media_tags(workspace: Workspace) -> None:
    result = ToolResultBlock(
        id="mixed",
        name="screenshot",
        content=(TextBlock("before"), DataBlock("image/png", data=PNG, name="shot.png"), TextBlock("after")),
    )
    ref = await workspace.offload_tool_result("s1", result)
    body = (await workspace.read_bytes(ref)).decode()
    before, tag, after = body.split("\n")
    assert before == "before" and after == "after"
    assert tag.startswith("<data url='workspace:///data/") and "media_type='image/png'/>" in tag  # AgentScope's form
    url = tag.split("url='", 1)[1].split("'", 1)[0]
    assert await workspace.read_bytes(url) == PNG


async def test_same_id_and_same_content_returns_the_same_reference(workspace: Workspace) -> None:
    first = await workspace.offload_tool_result("s1", _result("dup", "same"))
    second = await workspace.offload_tool_result("s1", _result("dup", "same"))
    assert first == second


async def test_same_id_with_different_content_never_overwrites(workspace: Workspace) -> None:
    first = await workspace.offload_tool_result("s1", _result("dup", "one"))
    second = await workspace.offload_tool_result("s1", _result("dup", "two"))
    assert first != second
    assert await workspace.read_bytes(first) == b"one"
    assert await workspace.read_bytes(second) == b"two"


async def test_offload_context_appends_one_json_line_per_message(workspace: Workspace) -> None:
    ref = await workspace.offload_context("s1", [{"role": "user", "content": "hello"}])
    ref2 = await workspace.offload_context(
        "s1", [{"role": "assistant", "content": "hi"}, {"role": "user", "content": "bye"}]
    )
    assert ref == ref2 == workspace.reference("sessions/s1/context.jsonl")
    lines = (await workspace.read_bytes(ref)).decode().splitlines()
    # each message as its framework serializes it: these dicts as they are
    assert [json.loads(line) for line in lines] == [
        {"role": "user", "content": "hello"},
        {"role": "assistant", "content": "hi"},
        {"role": "user", "content": "bye"},
    ]


async def test_concurrent_offload_context_calls_lose_nothing(workspace: Workspace) -> None:
    async with anyio.create_task_group() as tg:
        for i in range(40):
            tg.start_soon(workspace.offload_context, "busy", [{"role": "user", "content": f"m{i}" * 50}])
    lines = (await workspace.read_bytes("sessions/busy/context.jsonl")).decode().splitlines()
    assert sorted(json.loads(line)["content"] for line in lines) == sorted(f"m{i}" * 50 for i in range(40))


async def test_offload_data_block_writes_media_once_named_by_hash(workspace: Workspace) -> None:
    block = DataBlock("image/png", data=PNG)
    first = await workspace.offload_data_block(block)
    second = await workspace.offload_data_block(block)
    assert isinstance(first, DataBlock) and first.data is None
    assert first.url == second.url and first.url is not None
    assert first.url.startswith("workspace:///data/") and first.url.endswith(".png")
    assert await workspace.read_bytes(first.url) == PNG


async def test_hostile_ids_stay_inside_the_session_folder(workspace: Workspace) -> None:
    for hostile in ["../../etc/passwd", "/abs/path", "a\x00b", "x" * 2048, "..\\..\\win", "ключ"]:
        ref = await workspace.offload_tool_result(hostile, _result(hostile, "content"))
        rel = workspace.relative(ref)
        assert rel.startswith("sessions/") and ".." not in rel.split("/")
        assert len(rel.split("/")[-1]) < 100


async def test_paths_outside_the_workdir_are_refused(workspace: Workspace) -> None:
    for bad in ["../outside.txt", "/etc/passwd", "sessions/../../x", "..\\x"]:
        with pytest.raises(PathOutsideWorkspace):
            await workspace.read_bytes(bad)


async def test_read_shows_numbered_lines_and_how_to_continue(workspace: Workspace) -> None:
    ref = await workspace.offload_tool_result("s1", _result("r", "\n".join(f"row {i}" for i in range(1, 101))))
    out = await workspace.read(ref, offset=10, limit=3)
    assert out.splitlines()[:3] == ["    10\trow 10", "    11\trow 11", "    12\trow 12"]
    assert "offset=13" in out


async def test_read_shows_a_huge_single_line_in_windows(workspace: Workspace) -> None:
    line = "".join(f"{i:06d}," for i in range(100_000))  # 700 KB, one line
    ref = await workspace.offload_tool_result("s1", _result("wide", line))
    first = await workspace.read(ref)
    assert len(first) < 5000 and "column=" in first
    col = int(first.split("column=")[1].split("]")[0])
    second = await workspace.read(ref, offset=1, limit=1, column=col)
    assert line[col - 1 : col + 20] in second


async def test_grep_finds_numbered_matches_with_context(workspace: Workspace) -> None:
    text = "\n".join("ERROR boom" if i == 50 else f"ok {i}" for i in range(1, 101))
    ref = await workspace.offload_tool_result("s1", _result("g", text))
    out = await workspace.grep("ERROR", context=1)
    assert ref in out
    assert "    50: ERROR boom" in out and "    49- ok 49" in out and "    51- ok 51" in out


async def test_grep_rejects_an_invalid_regex_with_a_clear_error(workspace: Workspace) -> None:
    await workspace.offload_tool_result("s1", _result("g", "text"))
    with pytest.raises(InvalidPattern):
        await workspace.grep("(unclosed")


async def test_grep_survives_a_catastrophic_backtracking_pattern(workspace: Workspace) -> None:
    await workspace.offload_tool_result("s1", _result("evil", "a" * 30_000 + "!"))
    with anyio.fail_after(20):
        out = await workspace.grep("(a+)+$")
    assert "no matches" in out  # the line ends in "!", so the correct answer is no match


async def test_grep_treats_shell_syntax_as_a_plain_pattern(workspace: Workspace) -> None:
    await workspace.offload_tool_result("s1", _result("sh", "safe text\n'; rm -rf / #"))
    out = await workspace.grep("'; rm -rf / #")
    assert "1 matching lines" in out
    assert await workspace.read_bytes("sessions/s1/tool_result-sh.txt")


async def test_glob_lists_matching_files_newest_first(workspace: Workspace) -> None:
    await workspace.offload_tool_result("s1", _result("a", "a"))
    await anyio.sleep(1.1)
    await workspace.offload_tool_result("s1", _result("b", "b"))
    out = (await workspace.glob("tool_result-*.txt")).splitlines()
    assert out[:2] == [
        workspace.reference("sessions/s1/tool_result-b.txt"),
        workspace.reference("sessions/s1/tool_result-a.txt"),
    ]


async def test_glob_refuses_to_climb_out(workspace: Workspace) -> None:
    with pytest.raises(PathOutsideWorkspace):
        await workspace.glob("../*")


async def test_tools_report_errors_as_tool_errors(workspace: Workspace) -> None:
    tools = {t.name: t for t in workspace.tools()}
    assert set(tools) >= {"Read", "Grep", "Glob"}
    outcome = await tools["Read"].invoke({"path": "../../etc/passwd"})
    assert outcome.is_error and "outside" in outcome.text
    outcome = await tools["Read"].invoke({"path": "sessions/missing.txt"})
    assert outcome.is_error and "not found" in outcome.text
    outcome = await tools["Grep"].invoke({"pattern": "(("})
    assert outcome.is_error and "invalid regular expression" in outcome.text


async def test_sessions_lists_and_purge_removes_only_that_session(workspace: Workspace) -> None:
    await workspace.offload_tool_result("keep", _result("k", "k"))
    await workspace.offload_tool_result("drop", _result("d", "d"))
    assert await workspace.sessions() == ["drop", "keep"]
    await workspace.purge_session("drop")
    assert await workspace.sessions() == ["keep"]
    assert await workspace.read_bytes("sessions/keep/tool_result-k.txt") == b"k"


async def test_ledger_records_each_offload(workspace: Workspace) -> None:
    await workspace.offload_tool_result("s1", _result("l1", "x" * 1000, name="fetch"))
    await workspace.flush()  # backends that batch ledger lines write them now
    lines = (await workspace.read_bytes("sessions/s1/ledger.jsonl")).decode().splitlines()
    entry = json.loads(lines[-1])
    assert entry["tool"] == "fetch" and entry["bytes"] == 1000 and entry["tokens"] > 0
    assert entry["ref"] == workspace.reference("sessions/s1/tool_result-l1.txt")


async def test_invalid_utf8_and_binary_content_is_kept_byte_exact(workspace: Workspace) -> None:
    text = "ok \udcff surrogate"  # a lone surrogate, as from errors="surrogateescape" decoding
    ref = await workspace.offload_tool_result("s1", _result("bin", text))
    assert len(await workspace.read_bytes(ref)) > 0
    raw = bytes(range(256)) * 10
    ref2 = await workspace.write_bytes("sessions/s1/blob.bin", raw)
    assert await workspace.read_bytes(ref2) == raw
    assert "binary" in await workspace.read(ref2)


async def test_batched_ledger_lines_are_written_on_flush_and_never_lost(workspace: Workspace) -> None:
    workspace.ledger_batch = 3  # instance override of the class default
    await workspace.offload_tool_result("lb", _result("a", "a"))
    await workspace.offload_tool_result("lb", _result("b", "b"))
    with pytest.raises(FileNotFoundError):
        await workspace.read_bytes("sessions/lb/ledger.jsonl")
    await workspace.offload_tool_result("lb", _result("c", "c"))  # third entry fills the batch
    await workspace.offload_tool_result("lb", _result("d", "d"))
    await workspace.flush()
    lines = (await workspace.read_bytes("sessions/lb/ledger.jsonl")).decode().splitlines()
    assert [json.loads(line)["tool_id"] for line in lines] == ["a", "b", "c", "d"]
