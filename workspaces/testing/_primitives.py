"""The primitives' contract, through the public calls that reach them.

Exclusive and replacing writes, exact ranged reads, atomic concurrent appends,
listing, removal, declared capabilities, and the grep prefilter's promise never
to drop a file the regex matches.
"""

from __future__ import annotations

import random

import anyio
import pytest

from offloader.core import text as _text
from offloader.core.errors import InvalidPattern, PathOutsideWorkspace, UnsupportedOperation

from ..base import Workspace
from ._common import ANYIO

# Alphabets of the prefilter check: regex syntax, and text with the letters RE2 folds
# beyond ASCII (Kelvin sign, long s) so case-insensitive literals are put to the test.
_PATTERN_CHARS = "abkS.|*+?{}2,\\^$"
_TEXT_CHARS = "abkKS\u017f\u212a\n{},.|"


class PrimitiveTests:
    """What every backend's primitives promise, checked through the base class."""

    pytestmark = ANYIO

    async def test_an_exclusive_write_leaves_an_existing_file_untouched(self, workspace: Workspace) -> None:
        assert await workspace.write_files([("a/x.txt", b"first")], exclusive=True) == [True]
        assert await workspace.write_files([("a/x.txt", b"second"), ("a/y.txt", b"y")], exclusive=True) == [
            False,
            True,
        ]
        assert await workspace.read_bytes("a/x.txt") == b"first"

    async def test_concurrent_exclusive_writes_have_exactly_one_winner(self, workspace: Workspace) -> None:
        wins: list[bool] = []

        async def write(i: int) -> None:
            wins.extend(await workspace.write_files([("race.txt", f"writer {i}".encode())], exclusive=True))

        async with anyio.create_task_group() as tg:
            for i in range(8):
                tg.start_soon(write, i)
        assert wins.count(True) == 1
        assert (await workspace.read_bytes("race.txt")).startswith(b"writer ")

    async def test_a_replacing_write_swaps_the_whole_file(self, workspace: Workspace) -> None:
        await workspace.write_bytes("r.txt", b"old content that is longer")
        await workspace.write_bytes("r.txt", b"new")
        assert await workspace.read_bytes("r.txt") == b"new"

    async def test_a_ranged_read_returns_exactly_those_bytes(self, workspace: Workspace) -> None:
        data = bytes(random.Random(7).randrange(256) for _ in range(3 << 20))
        await workspace.write_bytes("big.bin", data)
        assert await workspace.read_bytes("big.bin", 1_000_000, 1_000_100) == data[1_000_000:1_000_100]
        assert await workspace.read_bytes("big.bin", len(data) - 5) == data[-5:]
        assert await workspace.read_bytes("big.bin", len(data) - 5, len(data) + 100) == data[-5:]
        assert await workspace.read_bytes("big.bin", 10, 10) == b""

    async def test_a_missing_file_raises_file_not_found_whole_or_ranged(self, workspace: Workspace) -> None:
        with pytest.raises(FileNotFoundError):
            await workspace.read_bytes("nope.txt")
        with pytest.raises(FileNotFoundError):
            await workspace.read_bytes("nope.txt", 10, 20)
        assert await workspace.stat("nope.txt") is None

    async def test_concurrent_appends_lose_and_interleave_nothing(self, workspace: Workspace) -> None:
        lines = [f"{i:03d}:{'x' * 20_000}\n".encode() for i in range(12)]
        async with anyio.create_task_group() as tg:
            for line in lines:
                tg.start_soon(workspace.append_bytes, "log/app.jsonl", line)
        got = (await workspace.read_bytes("log/app.jsonl")).splitlines(keepends=True)
        assert sorted(got) == sorted(lines)

    async def test_list_stat_and_remove(self, workspace: Workspace) -> None:
        await workspace.write_files([("d/a.txt", b"aa"), ("d/sub/b.txt", b"bbb")])
        assert sorted((f.path, f.size) for f in await workspace.list_files("d")) == [
            ("d/a.txt", 2),
            ("d/sub/b.txt", 3),
        ]
        assert await workspace.list_files("nothing-here") == []
        info = await workspace.stat("d/a.txt")
        assert info is not None and info.size == 2 and info.mtime > 0
        listed = {f.path: f for f in await workspace.list_files("d")}
        assert listed["d/a.txt"] == info  # one truth: gc compares a listing with a later stat
        assert await workspace.stat("d") is None  # folders are not regular files
        await workspace.remove("d/a.txt")
        await workspace.remove("d/a.txt")  # missing is not an error
        await workspace.remove("d", recursive=True)
        assert await workspace.list_files("d") == []

    async def test_the_workdir_itself_can_be_neither_written_nor_removed(self, workspace: Workspace) -> None:
        for target in ("", ".", workspace.workdir):
            with pytest.raises(PathOutsideWorkspace):
                await workspace.write_bytes(target, b"x")
            with pytest.raises(PathOutsideWorkspace):
                await workspace.remove(target, recursive=True)

    async def test_exec_follows_the_declared_capability(self, workspace: Workspace) -> None:
        if workspace.runs_commands:
            done = await workspace.exec(["sh", "-c", "cat; echo done >&2; exit 3"], stdin=b"in")
            assert (done.exit_code, done.stdout, done.stderr.strip()) == (3, b"in", b"done")
        else:
            with pytest.raises(UnsupportedOperation):
                await workspace.exec(["true"])

    async def test_the_grep_prefilter_never_drops_a_file_the_regex_matches(self, workspace: Workspace) -> None:
        if not workspace.capabilities.native_grep:
            pytest.skip(f"{type(workspace).__name__} declares no native grep (Grep runs in-process)")
        rng = random.Random(11)
        texts = ["".join(rng.choice(_TEXT_CHARS) for _ in range(rng.randrange(1, 12))) for _ in range(24)]
        await workspace.write_files([(f"p/{i:02d}.txt", t.encode()) for i, t in enumerate(texts)])
        checked = 0
        while checked < 40:
            pattern = "".join(rng.choice(_PATTERN_CHARS) for _ in range(rng.randrange(1, 8)))
            ignore_case = rng.random() < 0.5
            try:
                regex = _text.compile_pattern(pattern, ignore_case=ignore_case)
            except InvalidPattern:
                continue
            checked += 1
            candidates = await workspace._grep_native(pattern, "p", ignore_case=ignore_case, glob=None)
            if candidates is None:
                continue  # nothing provable: the base searches every file
            matching = {f"p/{i:02d}.txt" for i, t in enumerate(texts) if regex.search(t.encode())}  # type: ignore[attr-defined]
            assert matching <= set(candidates), (pattern, ignore_case)
