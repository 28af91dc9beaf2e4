"""The cheap paths give the same answers as the general ones, and never stale ones.

* A Retriever keeps a small file's line index in memory: a repeated range read
  of an unchanged file costs one stat and one content read; a changed file
  (size or mtime) is re-indexed.
* Read jumps to a deep offset with a fresh retrieval line index and prints
  exactly what a scan from the start prints; a stale index is ignored.
* ContextOffloader knows the stored file's size without a stat, and the
  compact-JSON preview is an exact prefix of the full ``indent=2`` layout.

Runs on a real LocalWorkspace; a thin subclass records primitive calls.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offloader import ContextOffloader
from offloader.retrieval import INDEX_SUFFIX, Retriever
from offloader.signal import make_preview
from offloader.signal._json import _layout, _parse_items
from offloader.tokens import HeuristicCounter, TiktokenCounter
from workspaces import FileInfo, LocalWorkspace

pytestmark = pytest.mark.anyio

ROW = b"%06d " + b"z" * 60 + b"\n"


class CountingWorkspace(LocalWorkspace):
    """A LocalWorkspace that records which primitives were called, with their paths."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.calls: list[tuple[str, str]] = []

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        self.calls.append(("read", path))
        return await super()._read(path, start, end)

    async def _stat(self, path: str) -> FileInfo | None:
        self.calls.append(("stat", path))
        return await super()._stat(path)


@pytest.fixture
async def ws(tmp_path: Path) -> AsyncIterator[CountingWorkspace]:
    async with CountingWorkspace(tmp_path / "ws") as workspace:
        yield workspace


async def _put(ws: LocalWorkspace, data: bytes) -> str:
    return await ws.write_bytes("sessions/s/tool_result-x.txt", data)


# ------------------------------------------------------------ Retriever


async def test_repeated_range_read_of_an_unchanged_file_costs_one_stat_and_one_read(ws: CountingWorkspace) -> None:
    ref = await _put(ws, b"".join(ROW % i for i in range(20_000)))
    retriever = Retriever(ws)
    await retriever.retrieve(ref, line_range={"start": 1, "end": 2})  # builds the index
    ws.calls.clear()
    out = await retriever.retrieve(ref, line_range={"start": 19_901, "end": 19_910})
    assert "019900 zzz" in out
    assert ws.calls == [("stat", "sessions/s/tool_result-x.txt"), ("read", "sessions/s/tool_result-x.txt")]


async def test_a_retriever_reading_an_existing_index_keeps_it_for_the_next_read(ws: CountingWorkspace) -> None:
    ref = await _put(ws, b"".join(ROW % i for i in range(5_000)))
    await Retriever(ws).retrieve(ref, line_range={"start": 1, "end": 2})  # another retriever built it
    retriever = Retriever(ws)
    await retriever.retrieve(ref, line_range={"start": 10, "end": 11})
    ws.calls.clear()
    await retriever.retrieve(ref, line_range={"start": 4_000, "end": 4_001})
    assert [kind for kind, _ in ws.calls] == ["stat", "read"]


async def test_same_retriever_sees_new_content_of_another_size(ws: CountingWorkspace) -> None:
    ref = await _put(ws, b"one\ntwo\n")
    retriever = Retriever(ws)
    assert "two" in await retriever.retrieve(ref, line_range={"start": 2, "end": 2})
    await _put(ws, b"first line is longer now\nsecond\nthird\n")
    out = await retriever.retrieve(ref, line_range={"start": 2, "end": 3})
    assert out.splitlines()[1:] == ["  2| second", "  3| third"]


async def test_same_retriever_sees_new_content_of_the_same_size(ws: CountingWorkspace) -> None:
    ref = await _put(ws, b"aa\nbbbb\ncc\n")
    retriever = Retriever(ws)
    assert "bbbb" in await retriever.retrieve(ref, line_range={"start": 2, "end": 2})
    await _put(ws, b"aaaa\nbb\ncc\n")  # same 11 bytes, other line starts
    host = ws.path / "sessions/s/tool_result-x.txt"
    os.utime(host, (1_000_000_000, 1_000_000_000))  # a distinct mtime, whatever the clock resolution
    out = await retriever.retrieve(ref, line_range={"start": 2, "end": 2})
    assert out.splitlines()[1:] == ["  2| bb"]


# ------------------------------------------------------------ Read


async def _indexed(ws: CountingWorkspace, data: bytes) -> str:
    ref = await _put(ws, data)
    await Retriever(ws).retrieve(ref, line_range={"start": 1, "end": 1})
    assert (ws.path / ("sessions/s/tool_result-x.txt" + INDEX_SUFFIX)).exists()
    return ref


@pytest.mark.parametrize("offset", [2, 3, 19_999, 20_000, 20_001, 20_002, 50_000])
async def test_read_with_an_index_prints_what_a_scan_prints(ws: CountingWorkspace, offset: int) -> None:
    # over one 1 MB chunk, so Read uses the index; the last line has no newline and is long
    data = b"".join(ROW % i for i in range(20_000)) + b"last line without newline " + b"w" * 3_000
    ref = await _indexed(ws, data)
    jumped = await ws.read(ref, offset=offset, limit=7)
    os.remove(ws.path / ("sessions/s/tool_result-x.txt" + INDEX_SUFFIX))
    scanned = await ws.read(ref, offset=offset, limit=7)
    assert jumped == scanned


async def test_read_deep_in_an_indexed_file_starts_reading_at_the_line(ws: CountingWorkspace) -> None:
    ref = await _indexed(ws, b"".join(ROW % i for i in range(60_000)))  # ~4 MB
    ws.calls.clear()
    out = await ws.read(ref, offset=40_000, limit=3)
    assert out.splitlines()[0] == f"{40_000:>6}\t039999 " + "z" * 60
    content_reads = [c for c in ws.calls if c == ("read", "sessions/s/tool_result-x.txt")]
    assert len(content_reads) == 1  # one read from the line on, none from byte 0


async def test_read_ignores_a_stale_index(ws: CountingWorkspace) -> None:
    ref = await _indexed(ws, b"".join(ROW % i for i in range(20_000)))
    await _put(ws, b"".join(b"new %d " % i + b"n" * 60 + b"\n" for i in range(20_000)))  # other line starts
    os.utime(ws.path / "sessions/s/tool_result-x.txt", (1_000_000_000, 1_000_000_000))
    out = await ws.read(ref, offset=15_000, limit=1)
    assert out == f"{15_000:>6}\tnew 14999 {'n' * 60}\n[more lines follow; continue with offset=15001]"


# ------------------------------------------------------------ ContextOffloader and previews


async def test_offloading_text_into_a_workspace_asks_no_stat_and_reports_the_stored_size(
    ws: CountingWorkspace,
) -> None:
    text = "ошибка: сборка не удалась\n" * 20_000
    out = await ContextOffloader(ws).process_tool_result(
        "s", {"toolUseId": "t1", "status": "success", "content": [{"text": text}]}
    )
    assert not [c for c in ws.calls if c[0] == "stat"]
    size = (ws.path / "sessions/s/tool_result-t1.txt").stat().st_size
    assert f"(text/plain, {size:,} bytes, all 1 blocks)" in out["content"][0]["text"]


def test_compact_json_preview_is_an_exact_prefix_of_the_indented_layout() -> None:
    value = {"rows": [{"id": i, "name": f"naïve {i}", "tags": [], "meta": {}} for i in range(2_000)], "n": 2_000}
    preview = make_preview(json.dumps(value), counter=TiktokenCounter(), preview_tokens=500)
    shown = preview.split("\n", 1)[1].rsplit("\n... [pretty-printed view cut", 1)[0]
    assert len(shown) > 500
    assert json.dumps(value, indent=2, ensure_ascii=False).startswith(shown)


def test_json_preview_is_the_same_without_orjson(monkeypatch: pytest.MonkeyPatch) -> None:
    text = json.dumps({"rows": [{"id": i, "note": "é ✓", "x": [1.5, None, True]} for i in range(3_000)]})
    counter = TiktokenCounter()
    with_orjson = make_preview(text, counter=counter, preview_tokens=400)
    monkeypatch.setitem(sys.modules, "orjson", None)  # import orjson now raises ImportError
    assert make_preview(text, counter=counter, preview_tokens=400) == with_orjson


def test_json_that_orjson_refuses_is_still_previewed_as_json() -> None:
    text = json.dumps({"rows": [{"v": float("nan")} for _ in range(3_000)]})
    preview = make_preview(text, counter=TiktokenCounter(), preview_tokens=300)
    assert preview.startswith('[JSON object, 36,010 bytes (members read from the start and the end): "rows": array')
    assert '"v": NaN' in preview


def test_integers_beyond_64_bits_keep_their_exact_digits_in_a_json_preview() -> None:
    text = json.dumps({"big": 2**80, "rows": [{"id": i} for i in range(5_000)]})
    preview = make_preview(text, counter=TiktokenCounter(), preview_tokens=300)
    assert '"big": 1208925819614629174706176,' in preview


_JSON_VALUES = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(), inner, max_size=4),
    max_leaves=20,
)


@settings(max_examples=300, deadline=None)
@given(value=_JSON_VALUES, depth=st.integers(0, 3))
def test_the_pretty_view_lays_out_a_value_exactly_as_json_dumps_with_indent_2(value: object, depth: int) -> None:
    pad = "  " * depth
    out: list[str] = []
    _layout(value, pad, out)
    assert "".join(out) == json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad)


_ITEMS = st.lists(
    st.recursive(
        st.none()
        | st.booleans()
        | st.integers(min_value=-(2**80), max_value=2**80)
        | st.floats(allow_nan=False, allow_infinity=False)
        | st.text(alphabet=st.characters(exclude_categories=("Cs",))),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3),
        max_leaves=12,
    ),
    min_size=1,
    max_size=6,
)


@settings(max_examples=400, deadline=None)
@given(items=_ITEMS, spaced=st.booleans())
def test_items_parsed_at_once_are_laid_out_exactly_as_json_dumps_with_indent_2(
    items: list[object], spaced: bool
) -> None:
    # floats under 1e-4 and integers past 64 bits go through the json module; the rest through orjson
    closed = json.dumps(items, ensure_ascii=False, separators=(", ", ": ") if spaced else (",", ":"))
    parsed = _parse_items(closed)
    assert parsed is not None
    values, laid_out = parsed
    assert values == json.loads(closed)
    if laid_out is not None:
        assert laid_out == json.dumps(values, indent=2, ensure_ascii=False)[2:-2]


def test_items_orjson_would_read_otherwise_are_read_by_the_json_module() -> None:
    assert _parse_items("[18446744073709551616, 1]") == ([18446744073709551616, 1], None)
    assert _parse_items("[1.5e-07, 2]") == ([1.5e-07, 2], None)
    assert _parse_items('[NaN, "x"]') is not None and _parse_items('[NaN, "x"]')[1] is None  # type: ignore[index]


@settings(max_examples=150, deadline=None)
@given(items=_ITEMS, repeat=st.integers(50, 400), budget=st.sampled_from([200, 600, 1000]))
def test_the_pretty_head_of_any_cut_compact_array_is_a_prefix_of_its_indented_layout(
    items: list[object], repeat: int, budget: int
) -> None:
    repeat = max(repeat, 20_000 // len(json.dumps(items)) + 1)  # over any budget here by length alone
    value = {"status": "ok", "rows": items * repeat, "total": len(items) * repeat}
    text = json.dumps(value, ensure_ascii=False)
    preview = make_preview(text, counter=TiktokenCounter(), preview_tokens=budget)
    assert preview.startswith("[JSON object, ") and '"status": "ok"' in preview.split("\n", 1)[0]
    shown = preview.split("\n", 1)[1].split("\n... [pretty-printed view cut", 1)[0]
    assert json.dumps(value, indent=2, ensure_ascii=False).startswith(shown)


class ParallelRecordingWorkspace(LocalWorkspace):
    """A LocalWorkspace that records how each offload asked to schedule its caller's work (``parallel``)."""

    def __init__(self, workdir: Path) -> None:
        super().__init__(workdir)
        self.parallel: list[bool | None] = []

    async def offload_tool_result_with(self, session_id: str, tool_result: Any, work: Any, **kwargs: Any) -> Any:
        self.parallel.append(kwargs.get("parallel"))
        return await super().offload_tool_result_with(session_id, tool_result, work, **kwargs)


@pytest.mark.parametrize(
    ("text", "parallel"),
    [
        (json.dumps({"rows": [{"id": i, "name": f"n{i}"} for i in range(120_000)], "total": 120_000}), False),
        ("".join(f"step {i} done\n" for i in range(120_000)) + "ERROR: boom\n", None),
    ],
    ids=["compact JSON: one hop", "a log: the preview beside the store"],
)
async def test_a_preview_that_reads_only_the_ends_runs_in_the_store_hop_whatever_the_size(
    tmp_path: Path, text: str, parallel: bool | None
) -> None:
    assert len(text) > 1_000_000  # over the size from which work and store otherwise run in parallel
    async with ParallelRecordingWorkspace(tmp_path / "ws") as ws:
        out = await ContextOffloader(ws).process_tool_result("s", {"toolUseId": "t", "content": [{"text": text}]})
    assert ws.parallel == [parallel]
    assert "[Offloaded:" in out["content"][0]["text"]


@pytest.fixture
def count_hops(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """One entry per worker-thread hop (``offloader.core.threads.run_sync``) made from here on."""
    from offloader.core import threads

    hops: list[str] = []
    real = threads.run_sync

    async def counted(func: Any, *args: Any) -> Any:
        hops.append(getattr(func, "__qualname__", repr(func)))
        return await real(func, *args)

    monkeypatch.setattr(threads, "run_sync", counted)
    return hops


async def test_a_result_over_the_threshold_by_count_is_counted_previewed_and_stored_in_one_hop(
    tmp_path: Path, count_hops: list[str]
) -> None:
    text = "".join(f"line {i} of the build\n" for i in range(800))  # ~8,000 tokens, within the length bound
    async with LocalWorkspace(tmp_path / "ws") as ws:
        offloader = ContextOffloader(ws, max_result_tokens=2500, preview_tokens=500, counter=TiktokenCounter())
        count_hops.clear()
        out = await offloader.process_tool_result("s", {"toolUseId": "t", "content": [{"text": text}]})
        assert count_hops == ["Workspace.offload_tool_result_with.<locals>.both"]
    assert "[Offloaded:" in out["content"][0]["text"]


async def test_a_result_that_fits_by_count_stores_nothing_in_its_one_hop(tmp_path: Path, count_hops: list[str]) -> None:
    text = "word " * 2000  # 2,000 tokens: under the threshold, though long enough to be counted
    result = {"toolUseId": "t", "content": [{"text": text}]}
    async with LocalWorkspace(tmp_path / "ws") as ws:
        offloader = ContextOffloader(ws, max_result_tokens=2500, preview_tokens=500, counter=TiktokenCounter())
        count_hops.clear()
        assert await offloader.process_tool_result("s", result) is result
        assert len(count_hops) == 1
        assert await ws.find_files(".") == []  # nothing stored


async def test_only_a_local_workspace_stores_in_the_hop_of_the_callers_work(tmp_path: Path) -> None:
    from workspaces.fsspec import FsspecWorkspace

    async with LocalWorkspace(tmp_path / "ws") as local, FsspecWorkspace(f"memory://hop-{os.getpid()}") as remote:
        assert local.stores_in_one_hop()
        assert not remote.stores_in_one_hop()  # a round trip: the preview overlaps it (Docker and E2B alike)


async def test_a_result_that_fits_by_count_stores_nothing_where_the_store_runs_beside_the_work() -> None:
    # a backend without a blocking store (fsspec here; Docker and E2B alike) counts first, then stores
    from workspaces.fsspec import FsspecWorkspace

    text = "word " * 2000
    result = {"toolUseId": "t", "content": [{"text": text}]}
    async with FsspecWorkspace(f"memory://fits-{os.getpid()}-{id(text)}") as ws:
        offloader = ContextOffloader(ws, max_result_tokens=2500, preview_tokens=500, counter=TiktokenCounter())
        assert await offloader.process_tool_result("s", result) is result
        assert await ws.find_files(".") == []
        over = {"toolUseId": "u", "content": [{"text": text * 2}]}
        assert "[Offloaded:" in (await offloader.process_tool_result("s", over))["content"][0]["text"]


class RecordingHeuristic(HeuristicCounter):
    """The heuristic counter, recording what it is asked to count."""

    def __init__(self) -> None:
        self.seen: list[str] = []

    def count(self, text: str) -> int:
        self.seen.append(text)
        return super().count(text)


async def test_a_result_shorter_than_a_quarter_of_the_threshold_is_neither_counted_nor_handed_to_a_thread(
    tmp_path: Path, count_hops: list[str]
) -> None:
    counter = RecordingHeuristic()  # counts at most a text's UTF-8 bytes, so 4 bytes a character bound it
    result = {"toolUseId": "t", "content": [{"text": "é" * 2500}]}
    async with LocalWorkspace(tmp_path / "ws") as ws:
        offloader = ContextOffloader(ws, max_result_tokens=10_000, counter=counter)
        count_hops.clear()
        assert await offloader.process_tool_result("s", result) is result
        assert count_hops == []
    assert counter.seen == []


async def test_a_counter_that_may_count_more_than_bytes_is_asked_even_for_a_short_result(tmp_path: Path) -> None:
    from offloader.tokens import CallableCounter

    seen: list[str] = []
    counter = CallableCounter(lambda text: seen.append(text) or 20_000)  # e.g. a model's count with its framing
    result = {"toolUseId": "t", "content": [{"text": "short"}]}
    async with LocalWorkspace(tmp_path / "ws") as ws:
        out = await ContextOffloader(ws, max_result_tokens=10_000, counter=counter).process_tool_result("s", result)
    assert seen[0] == "short"  # the count (then the preview's)
    assert "[Offloaded:" in out["content"][0]["text"]
