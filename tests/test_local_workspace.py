"""LocalWorkspace specifics: confinement on a real filesystem, cross-process appends, atomicity."""

from __future__ import annotations

import base64
import contextlib
import json
import multiprocessing
import os
from pathlib import Path

import anyio
import pytest
from agentscope.message import Base64Source, Msg, URLSource
from agentscope.message import DataBlock as ASDataBlock
from agentscope.message import TextBlock as ASTextBlock
from agentscope.message import ToolResultBlock as ASToolResultBlock
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offloader import TextBlock, ToolResultBlock
from offloader.core.records import read_record
from workspaces import LocalWorkspace, PathOutsideWorkspace, WorkspaceClosed

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


def _inside(root: Path, path: Path) -> bool:
    return os.path.realpath(path).startswith(os.path.realpath(root) + os.sep)


async def test_reference_is_the_absolute_host_path(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        ref = await ws.offload_tool_result("s", ToolResultBlock("t", "x", (TextBlock("hi"),)))
    assert ref == str(tmp_path / "sessions" / "s" / "tool_result-t.txt")
    assert Path(ref).read_text() == "hi"


async def test_a_symlink_planted_inside_pointing_outside_is_not_followed(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "secret.txt").write_text("secret")
    root = tmp_path / "ws"
    async with LocalWorkspace(root) as ws:
        (root / "sessions").mkdir()
        (root / "sessions" / "evil").symlink_to(outside, target_is_directory=True)
        (root / "link.txt").symlink_to(outside / "secret.txt")
        with pytest.raises(PathOutsideWorkspace):
            await ws.read_bytes("sessions/evil/secret.txt")
        with pytest.raises(PathOutsideWorkspace):
            await ws.read_bytes("link.txt")
        with pytest.raises(PathOutsideWorkspace):
            await ws.offload_tool_result("evil", ToolResultBlock("t", "x", (TextBlock("pwn"),)))
        assert (await ws.grep("secret")).startswith("[no matches")
        assert "secret.txt" not in await ws.glob("**/*")
        await ws.purge_session("evil")
    assert (outside / "secret.txt").read_text() == "secret"
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sid=st.text(min_size=1, max_size=80), tid=st.text(min_size=1, max_size=80), path=st.text(max_size=80))
def test_random_ids_and_paths_never_escape_the_workdir(tmp_path: Path, sid: str, tid: str, path: str) -> None:
    root = tmp_path / "h"

    async def scenario() -> None:
        async with LocalWorkspace(root) as ws:
            ref = await ws.offload_tool_result(sid, ToolResultBlock(tid, "t", (TextBlock("c"),)))
            assert _inside(root, Path(ref))
            try:
                rel = ws.relative(path)
            except (PathOutsideWorkspace, TypeError):
                return
            assert _inside(root, root / (rel or ".")) or rel == ""
            with contextlib.suppress(PathOutsideWorkspace, OSError):
                await ws.write_bytes(path, b"data")

    anyio.run(scenario)
    for dirpath, _dirs, files in os.walk(tmp_path):
        for name in files:
            assert _inside(root, Path(dirpath) / name)


def _append_worker(root: str, worker: int, count: int) -> None:
    async def run() -> None:
        async with LocalWorkspace(root) as ws, anyio.create_task_group() as tg:
            for i in range(count):
                msg = {"role": "user", "content": f"w{worker}-m{i}-" + "x" * 3000}
                tg.start_soon(ws.offload_context, "shared", [msg])

    anyio.run(run)


def test_200_concurrent_appends_from_4_processes_give_200_intact_lines(tmp_path: Path) -> None:
    ctx = multiprocessing.get_context("spawn")
    procs = [ctx.Process(target=_append_worker, args=(str(tmp_path), w, 50)) for w in range(4)]
    for p in procs:
        p.start()
    for p in procs:
        p.join(120)
        assert p.exitcode == 0
    lines = (tmp_path / "sessions" / "shared" / "context.jsonl").read_text().splitlines()
    texts = sorted(read_record(line).content[0].text for line in lines)  # type: ignore[union-attr]
    assert len(lines) == 200
    assert texts == sorted(f"w{w}-m{i}-" + "x" * 3000 for w in range(4) for i in range(50))


async def test_writes_leave_no_temporary_files(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        for i in range(20):
            await ws.offload_tool_result("s", ToolResultBlock(f"t{i}", "x", (TextBlock("y" * 10000),)))
    leftovers = [p for p in tmp_path.rglob("*") if p.name.startswith(".tmp-")]
    assert leftovers == []


async def test_a_reader_never_sees_a_torn_file(tmp_path: Path) -> None:
    big = "z" * 2_000_000
    async with LocalWorkspace(tmp_path) as ws:
        target = tmp_path / "sessions" / "s" / "tool_result-t.txt"
        seen: list[int] = []

        async def reader() -> None:
            for _ in range(200):
                if target.exists():
                    seen.append(len(target.read_bytes()))
                await anyio.sleep(0)

        async with anyio.create_task_group() as tg:
            tg.start_soon(reader)
            await ws.offload_tool_result("s", ToolResultBlock("t", "x", (TextBlock(big),)))
    assert all(n == len(big) for n in seen)


@pytest.mark.parametrize(
    "text",
    [
        "".join(f"{i:07d} ok\n" for i in range(300_000)),  # ASCII, over 1 MB: written piece by piece
        "ошибка\n" * 200_000,  # non-ASCII
        "a\udcff b " * 200_000,  # a lone surrogate (surrogateescape'd bytes) among ASCII
    ],
)
async def test_stored_file_and_ledger_size_are_the_utf8_of_the_text(tmp_path: Path, text: str) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        await ws.offload_tool_result("s", ToolResultBlock("t", "x", (TextBlock(text),)))
    expected = text.encode("utf-8", "surrogatepass")
    assert (tmp_path / "sessions/s/tool_result-t.txt").read_bytes() == expected
    ledger = [json.loads(line) for line in (tmp_path / "sessions/s/ledger.jsonl").read_text().splitlines()]
    assert [e["bytes"] for e in ledger] == [len(expected)]


async def test_agentscope_objects_are_accepted_and_data_blocks_keep_their_type(tmp_path: Path) -> None:
    b64 = base64.b64encode(PNG).decode()
    async with LocalWorkspace(tmp_path) as ws:
        block = ASDataBlock(name="p.png", source=Base64Source(data=b64, media_type="image/png"))
        saved = await ws.offload_data_block(block)
        assert isinstance(saved, ASDataBlock) and isinstance(saved.source, URLSource)
        assert await ws.read_bytes(str(saved.source.url)) == PNG
        ref = await ws.offload_tool_result(
            "s", ASToolResultBlock(id="c1", name="t", output=[ASTextBlock(text="see image"), block])
        )
        assert "see image" in Path(ref).read_text() and "workspace:///data/" in Path(ref).read_text()
        ctx = await ws.offload_context("s", [Msg(name="u", role="user", content=[ASTextBlock(text="q"), block])])
        line = json.loads(Path(ctx).read_text())  # AgentScope's own form: Msg.model_dump_json()
        assert line["content"][1]["source"] == {"type": "url", "url": str(saved.source.url), "media_type": "image/png"}
        assert Msg.model_validate_json(Path(ctx).read_text()).content[1].source.url == saved.source.url


async def test_a_closed_workspace_refuses_work(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path)
    async with ws:
        pass
    with pytest.raises(WorkspaceClosed):
        await ws.offload_context("s", [{"role": "user", "content": "late"}])


async def test_purge_session_cannot_remove_the_workdir(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        await ws.offload_tool_result("..", ToolResultBlock("t", "x", (TextBlock("a"),)))
        await ws.purge_session("..")
        assert tmp_path.exists()
