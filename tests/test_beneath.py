"""The descriptor tree under LocalWorkspace: cached folder descriptors, deep walks, odd files."""

from __future__ import annotations

import os
import resource
import shutil
from pathlib import Path

import pytest

from offloader import TextBlock, ToolResultBlock
from workspaces import LocalWorkspace, PathOutsideWorkspace
from workspaces._confined import ConfinedTree

pytestmark = pytest.mark.anyio


def _result(tid: str, text: str) -> ToolResultBlock:
    return ToolResultBlock(tid, "bash", (TextBlock(text),))


async def test_a_session_folder_removed_and_recreated_elsewhere_is_followed(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        await ws.offload_tool_result("s1", _result("a", "one"))
        shutil.rmtree(tmp_path / "sessions" / "s1")  # another process purges it
        (tmp_path / "sessions" / "s1").mkdir()  # and a new folder takes the name
        ref = await ws.offload_tool_result("s1", _result("b", "two"))
        assert Path(ref).read_text() == "two"
        await ws.offload_context("s1", [{"role": "user", "content": "hi"}])
    assert sorted(p.name for p in (tmp_path / "sessions" / "s1").iterdir()) == [
        "context.jsonl",
        "ledger.jsonl",
        "tool_result-b.txt",
    ]


async def test_a_renamed_session_folder_is_not_written_through_its_old_descriptor(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        await ws.offload_tool_result("s1", _result("a", "one"))
        (tmp_path / "sessions" / "s1").rename(tmp_path / "sessions" / "moved")
        await ws.offload_tool_result("s1", _result("b", "two"))
    assert (tmp_path / "sessions" / "s1" / "tool_result-b.txt").read_text() == "two"
    assert not (tmp_path / "sessions" / "moved" / "tool_result-b.txt").exists()


async def test_a_fifo_in_the_workdir_is_refused_without_blocking(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path) as ws:
        os.mkfifo(tmp_path / "pipe")
        with pytest.raises(PermissionError, match="not a regular file"):
            await ws.read_bytes("pipe")
        assert "pipe" not in await ws.glob("**/*")


@pytest.mark.parametrize("openat2", [True, False], ids=["openat2", "component-walk"])
def test_deep_paths_resolve_and_refuse_a_symlink_either_way(tmp_path: Path, openat2: bool) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    tree = ConfinedTree(str(tmp_path / "ws"))
    tree.open()
    try:
        tree._openat2 = tree._openat2 and openat2
        assert tree.write("a/b/c/d/e.txt", b"deep")
        assert tree.read("a/b/c/d/e.txt") == b"deep"
        os.symlink(outside, tmp_path / "ws" / "a" / "b" / "c" / "link")
        with pytest.raises(PathOutsideWorkspace):
            tree.write("a/b/c/link/x.txt", b"escape")
        with pytest.raises(PathOutsideWorkspace):
            tree.read("a/b/c/link/x.txt")
        with pytest.raises(FileNotFoundError):
            tree.read("a/b/missing/x.txt")
        tree.remove("a", recursive=True)
    finally:
        tree.close()
    assert list(outside.iterdir()) == []
    assert not (tmp_path / "ws" / "a").exists()


def test_listing_thousands_of_folders_holds_one_descriptor_per_level(tmp_path: Path) -> None:
    for i in range(600):
        (tmp_path / "ws" / "sessions" / f"s{i}").mkdir(parents=True)
        (tmp_path / "ws" / "sessions" / f"s{i}" / "f.txt").write_text("x")
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    tree = ConfinedTree(str(tmp_path / "ws"))
    tree.open()
    resource.setrlimit(resource.RLIMIT_NOFILE, (min(256, hard), hard))
    try:
        assert len(tree.list("sessions")) == 600
    finally:
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))
        tree.close()


def test_removal_never_enters_a_link_swapped_in(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "keep.txt").write_text("keep")
    tree = ConfinedTree(str(tmp_path / "ws"))
    tree.open()
    try:
        tree.write("sessions/s1/a.txt", b"a")
        os.symlink(outside, tmp_path / "ws" / "sessions" / "s1" / "sub")
        tree.remove("sessions/s1", recursive=True)
    finally:
        tree.close()
    assert (outside / "keep.txt").read_text() == "keep"
    assert not (tmp_path / "ws" / "sessions" / "s1").exists()
