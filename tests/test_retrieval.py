"""retrieve_offloaded_content: modes, output format, bounds, errors, and the line index.

Runs against a real LocalWorkspace and a real Storage (FsspecStorage on fsspec's
in-memory filesystem); the workspace-only behaviours (index sidecar, size-
independent range reads) use a LocalWorkspace whose primitive reads are
recorded by a thin subclass, so the test can see which bytes were read.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest

from offloader.retrieval import INDEX_SUFFIX, Retriever, UnknownReference, retrieval_tool, retrieve
from offloader.storage import Storage
from workspaces import InvalidPattern, LocalWorkspace, PathOutsideWorkspace
from workspaces.fsspec import FsspecStorage

pytestmark = pytest.mark.anyio

LOG = "".join(f"line {i} {'ERROR disk full' if i in (40, 41, 300) else 'ok'}\n" for i in range(1, 1001)).encode()


class RecordingWorkspace(LocalWorkspace):
    """A LocalWorkspace that records every primitive read (path, start, end, bytes returned)."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.reads: list[tuple[str, int, int | None, int]] = []

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        data = await super()._read(path, start, end)
        self.reads.append((path, start, end, len(data)))
        return data


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[RecordingWorkspace]:
    async with RecordingWorkspace(tmp_path / "ws") as workspace:
        yield workspace


@pytest.fixture
async def storage() -> AsyncIterator[FsspecStorage]:
    store = FsspecStorage(f"memory://retrieval-{secrets.token_hex(6)}")
    yield store
    await store.aclose()


async def _put(ws: LocalWorkspace, data: bytes, name: str = "tool_result-x.txt") -> str:
    return await ws.write_bytes(f"sessions/s/{name}", data)


def _numbers(out: str) -> list[int]:
    return [int(m.group(1)) for m in re.finditer(r"^[> ] +(\d+)\|", out, re.M)]


# ------------------------------------------------------------------ modes


async def test_pattern_marks_matches_with_context_and_gap_separators(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, LOG)
    out = await retrieve(ws, ref, pattern="ERROR", context_lines=2)
    lines = out.splitlines()
    assert lines[0] == "[3 matches for /ERROR/ in lines 1-1000]"
    assert _numbers(out) == [38, 39, 40, 41, 42, 43, 298, 299, 300, 301, 302]
    assert "---" in lines and lines.index("---") == 7
    assert [ln.split("|")[0].strip(" >") for ln in lines if ln.startswith(">")] == ["40", "41", "300"]


async def test_pattern_within_a_range_searches_only_that_range(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, LOG)
    out = await retrieve(ws, ref, pattern="ERROR", line_range={"start": 100, "end": 400}, context_lines=0)
    assert out.splitlines()[0] == "[1 match for /ERROR/ in lines 100-400]"
    assert _numbers(out) == [300]


async def test_line_range_returns_exactly_those_lines(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, LOG)
    out = await retrieve(ws, ref, line_range={"start": 10, "end": 12})
    assert out.splitlines()[0].startswith("[lines 10-12 of 1000")
    assert out.splitlines()[1:] == ["  10| line 10 ok", "  11| line 11 ok", "  12| line 12 ok"]


async def test_context_lines_alone_returns_the_first_lines(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, LOG)
    out = await retrieve(ws, ref, context_lines=3)
    assert _numbers(out) == [1, 2, 3]


async def test_full_retrieval_of_a_5mb_result_is_bounded_and_says_how_to_read_on(ws: RecordingWorkspace) -> None:
    data = b"".join(b"%07d " % i + b"x" * 72 + b"\n" for i in range(65_000))  # ~5.2 MB
    ref = await _put(ws, data)
    out = await retrieve(ws, ref)
    assert len(out) < 12_000
    last = _numbers(out)[-1]
    assert f'line_range {{"start": {last + 1}' in out and "65000 lines" in out


async def test_range_end_past_the_last_line_is_clamped(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"a\nb\nc")
    out = await retrieve(ws, ref, line_range={"start": 2, "end": 99})
    assert out.splitlines() == [f"[lines 2-3 of 3 in {ref}]", "  2| b", "  3| c"]


async def test_ignore_case_matches_regardless_of_case(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"Warning: low\nfine\nWARNING: lower\n")
    out = await retrieve(ws, ref, pattern="warning", ignore_case=True, context_lines=0)
    assert _numbers(out) == [1, 3]
    assert "[no matches" in await retrieve(ws, ref, pattern="warning", context_lines=0)


# ------------------------------------------------------------------ bounds


async def test_large_pattern_output_is_cut_at_a_line_boundary_with_a_narrowing_note(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"".join(b"INFO request %d handled\n" % i for i in range(200_000)))
    out = await Retriever(ws, max_output_chars=2_000).retrieve(ref, pattern="INFO", context_lines=0)
    lines = out.splitlines()
    assert lines[0].startswith("[") and "+ matches for /INFO/" in lines[0]
    assert all(re.fullmatch(r"> +\d+\| INFO request \d+ handled", ln) for ln in lines[1:-1])
    assert "narrow your search" in lines[-1]
    assert len(out) < 2_400


async def test_a_match_inside_a_5mb_single_line_is_shown_around_the_match(ws: RecordingWorkspace) -> None:
    line = b"a" * 3_000_000 + b" NEEDLE-here " + b"b" * 2_000_000
    ref = await _put(ws, b"head\n" + line + b"\ntail\n")
    out = await retrieve(ws, ref, pattern="NEEDLE", context_lines=1)
    assert "NEEDLE-here" in out
    assert "[col 2999877] aaa" in out and "line continues, 5000013 bytes" in out
    assert len(out) < 3_000


async def test_a_range_over_a_huge_line_reads_a_bounded_slice(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"x" * 5_000_000 + b"\nshort\n")
    out = await retrieve(ws, ref, line_range={"start": 1, "end": 2})
    assert "line continues, 5000000 bytes" in out and len(out) < 2_000
    content_reads = [r for r in ws.reads if r[0].endswith(".txt") and r[3] > 8192]
    assert all(r[3] <= 1 << 20 for r in content_reads[1:])  # only the one-off index build reads it all


# ------------------------------------------------------------------ the line index


async def test_first_range_read_builds_an_index_sidecar_hidden_from_glob_and_grep(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, LOG)
    await retrieve(ws, ref, line_range={"start": 500, "end": 510})
    assert (ws.path / "sessions/s/tool_result-x.txt").with_name("tool_result-x.txt" + INDEX_SUFFIX).exists()
    assert INDEX_SUFFIX not in await ws.glob("**/*")
    assert INDEX_SUFFIX not in await ws.grep(".", "sessions")


async def test_a_100_line_range_reads_only_those_bytes_whatever_the_file_size(ws: RecordingWorkspace) -> None:
    row = b"%08d " + b"y" * 70 + b"\n"
    ref = await _put(ws, b"".join(row % i for i in range(70_000)))  # ~5.5 MB
    retriever = Retriever(ws)
    await retriever.retrieve(ref, line_range={"start": 10, "end": 11})  # builds the index
    ws.reads.clear()
    out = await retriever.retrieve(ref, line_range={"start": 69_901, "end": 70_000})
    assert _numbers(out) == list(range(69_901, 70_001))
    assert sum(r[3] for r in ws.reads) <= 100 * len(row % 0) + 101 * 8 + 8192
    assert max(r[3] for r in ws.reads) <= 100 * len(row % 0)


async def test_a_stale_index_is_rebuilt_when_the_content_changes(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"one\ntwo\n")
    assert "two" in await retrieve(ws, ref, line_range={"start": 2, "end": 2})
    await _put(ws, b"first line is longer now\nsecond\nthird\n")
    out = await retrieve(ws, ref, line_range={"start": 2, "end": 3})
    assert out.splitlines()[1:] == ["  2| second", "  3| third"]


async def test_a_workspace_index_is_reused_by_a_new_retriever(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, LOG)
    await retrieve(ws, ref, line_range={"start": 5, "end": 6})
    ws.reads.clear()
    await retrieve(ws, ref, line_range={"start": 900, "end": 901})
    assert not any(r[3] == len(LOG) for r in ws.reads)


# ------------------------------------------------------------------ errors


async def test_an_invalid_pattern_is_an_error_never_a_literal_search(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"a (b\n")
    with pytest.raises(InvalidPattern):
        await retrieve(ws, ref, pattern="(b")


async def test_a_catastrophic_pattern_runs_in_linear_time(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"a" * 50_000 + b"!\n")
    out = await retrieve(ws, ref, pattern="(a+)+$", context_lines=0)  # backtracking engines hang here
    assert out.startswith("[no matches for /(a+)+$/")


async def test_binary_content_refuses_pattern_and_range_but_describes_itself(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR", "img.png")
    with pytest.raises(ValueError, match="binary"):
        await retrieve(ws, ref, pattern="IHDR")
    with pytest.raises(ValueError, match="binary"):
        await retrieve(ws, ref, line_range={"start": 1, "end": 1})
    assert "binary" in await retrieve(ws, ref)


async def test_a_text_log_with_a_stray_nul_is_read_as_text(ws: RecordingWorkspace) -> None:
    lines = [f"transforming module_{i}.jsx" for i in range(400)]
    lines[3] = "  filter: { id: /^\x00@vite\\/wasm-helper\\.js$/ }"
    lines[300] = "[UNRESOLVED_IMPORT] Could not resolve './refund-rules.js'"
    ref = await _put(ws, "\n".join(lines).encode())
    assert "UNRESOLVED_IMPORT" in await retrieve(ws, ref, pattern="UNRESOLVED")


async def test_unknown_reference_is_a_clear_error(ws: RecordingWorkspace) -> None:
    with pytest.raises(UnknownReference, match="nothing is stored"):
        await retrieve(ws, ws.reference("sessions/s/missing.txt"))


async def test_reference_outside_the_workspace_is_refused(ws: RecordingWorkspace, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("top secret\n")
    for bad in [str(tmp_path / "secret.txt"), "../secret.txt", "/etc/passwd"]:
        with pytest.raises(PathOutsideWorkspace):
            await retrieve(ws, bad, pattern="secret")


@pytest.mark.parametrize(
    "line_range",
    [{"start": 0, "end": 3}, {"start": 5, "end": 2}, {"start": "1", "end": 2}, {"begin": 1}, [1, 2, 3]],
)
async def test_malformed_line_ranges_are_rejected(ws: RecordingWorkspace, line_range: object) -> None:
    ref = await _put(ws, LOG)
    with pytest.raises(ValueError, match="line_range"):
        await retrieve(ws, ref, line_range=line_range)  # type: ignore[arg-type]


async def test_a_range_past_the_end_is_an_error_naming_the_length(ws: RecordingWorkspace) -> None:
    ref = await _put(ws, b"a\nb\n")
    with pytest.raises(ValueError, match=r"past the end .*\(2 lines\)"):
        await retrieve(ws, ref, line_range={"start": 3, "end": 9})


# ------------------------------------------------------------------ Storage sources


async def test_storage_source_supports_every_mode(storage: FsspecStorage) -> None:
    assert isinstance(storage, Storage)
    ref = await storage.store("call-1", LOG, "text/plain")
    assert (await retrieve(storage, ref, pattern="ERROR", context_lines=0)).startswith("[3 matches")
    assert _numbers(await retrieve(storage, ref, line_range={"start": 999, "end": 1000})) == [999, 1000]
    assert _numbers(await retrieve(storage, ref, context_lines=2)) == [1, 2]


async def test_storage_binary_content_type_is_refused_for_search(storage: FsspecStorage) -> None:
    ref = await storage.store("img", b"\x89PNG....", "image/png")
    with pytest.raises(ValueError, match="image/png"):
        await retrieve(storage, ref, pattern="PNG")


async def test_storage_json_is_searchable_text(storage: FsspecStorage) -> None:
    ref = await storage.store("api", b'{\n  "status": "failed",\n  "code": 500\n}\n', "application/json")
    assert _numbers(await retrieve(storage, ref, pattern="failed", context_lines=0)) == [2]


async def test_storage_unknown_reference_is_a_clear_error(storage: FsspecStorage) -> None:
    with pytest.raises(UnknownReference):
        await retrieve(storage, storage.url + "/nope")


# ------------------------------------------------------------------ the tool


async def test_tool_has_the_strands_compatible_name_and_parameters(ws: RecordingWorkspace) -> None:
    tool = retrieval_tool(ws)
    assert tool.name == "retrieve_offloaded_content"
    props = tool.parameters["properties"]
    assert set(props) == {"reference", "pattern", "line_range", "context_lines", "ignore_case"}
    assert props["line_range"]["required"] == ["start", "end"]
    assert props["context_lines"]["default"] == 5
    assert tool.parameters["required"] == ["reference"]


async def test_tool_returns_errors_as_tool_errors(ws: RecordingWorkspace) -> None:
    tool = retrieval_tool(ws)
    ref = await _put(ws, LOG)
    cases: list[tuple[dict[str, Any], str]] = [
        ({"reference": ref, "pattern": "("}, "invalid regular expression"),
        ({"reference": ws.reference("sessions/s/none.txt")}, "unknown reference"),
        ({"reference": "/etc/passwd"}, "outside the workdir"),
        ({"reference": ref, "line_range": {"start": 3, "end": 1}}, "line_range"),
    ]
    for args, needle in cases:
        outcome = await tool.invoke(args)
        assert outcome.is_error and needle in outcome.text, (args, outcome.text)
    ok = await tool.invoke({"reference": ref, "pattern": "ERROR", "line_range": {"start": 1, "end": 100}})
    assert not ok.is_error and ok.text.startswith("[2 matches for /ERROR/ in lines 1-100]")
