"""ContextOffloader: threshold, shape-preserving replacement, storage, failure safety, hooks."""

from __future__ import annotations

import json
import logging
from pathlib import Path
from typing import Any

import pytest

from offloader import (
    ContextOffloader,
    DataBlock,
    HeuristicCounter,
    InMemoryStorage,
    JsonBlock,
    TextBlock,
    TiktokenCounter,
    TokenCounter,
    ToolResultBlock,
    WorkspaceStorage,
)
from offloader.storage import StoredContent
from workspaces import LocalWorkspace

pytestmark = pytest.mark.anyio

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(256)) * 4
LOG = "\n".join(f"step {i}: compiled module_{i}.c" for i in range(3000)) + "\nerror: linker failed\nexit code 2\n"


class FeedCounter:
    """Wraps a real counter and records the characters it was fed."""

    def __init__(self, inner: TokenCounter) -> None:
        self.inner = inner
        self.name = inner.name
        self.fed = 0

    def count(self, text: str) -> int:
        self.fed += len(text)
        return self.inner.count(text)


class FlakyStorage:
    """A real InMemoryStorage with injected faults: the only way to make storage fail on cue."""

    def __init__(self, fail_on_store: int, fail_delete: bool = False) -> None:
        self.inner = InMemoryStorage()
        self.fail_on_store = fail_on_store
        self.fail_delete = fail_delete
        self.stores = 0

    async def store(self, key: str, content: bytes, content_type: str = "text/plain") -> str:
        self.stores += 1
        if self.stores == self.fail_on_store:
            raise OSError("disk full")
        return await self.inner.store(key, content, content_type)

    async def retrieve(self, reference: str) -> StoredContent:
        return await self.inner.retrieve(reference)

    async def delete(self, reference: str) -> None:
        if self.fail_delete:
            raise OSError("read-only")
        await self.inner.delete(reference)

    async def list(self) -> list[str]:
        return await self.inner.list()


def canonical(
    text: str = LOG, *, tool_id: str = "call-1", name: str = "bash", extra: tuple[Any, ...] = ()
) -> ToolResultBlock:
    return ToolResultBlock(tool_id, name, (TextBlock(text), *extra))


def offloader(storage: Any = None, **kwargs: Any) -> ContextOffloader:
    return ContextOffloader(storage if storage is not None else InMemoryStorage(), **kwargs)


def replacement_text(result: Any) -> str:
    if isinstance(result, ToolResultBlock):
        first = result.content[0]
        assert isinstance(first, TextBlock)
        return first.text
    raise AssertionError(f"not canonical: {result!r}")


# ------------------------------------------------------------ threshold


async def test_result_under_threshold_is_returned_as_the_same_object() -> None:
    small = {"role": "tool", "tool_call_id": "c1", "content": "short output"}
    assert await offloader().process_tool_result("s", small) is small


async def test_result_over_threshold_is_replaced_with_header_preview_and_references() -> None:
    storage = InMemoryStorage()
    out = await offloader(storage).process_tool_result("s", canonical())
    text = replacement_text(out)
    assert text.startswith("[Offloaded: 1 blocks, ~")
    assert "retrieve_offloaded_content" in text
    assert "error: linker failed" in text and "exit code 2" in text
    [ref] = await storage.list()
    assert f"  {ref} (text/plain, {len(LOG):,} chars)" in text


async def test_replacement_fits_preview_budget_plus_a_small_frame() -> None:
    counter = TiktokenCounter()
    out = await offloader(preview_tokens=300, max_result_tokens=600, counter=counter).process_tool_result(
        "s", canonical()
    )
    assert counter.count(replacement_text(out)) <= 300 + 150


async def test_header_estimates_the_token_count_of_the_whole_result() -> None:
    out = await offloader(counter=HeuristicCounter()).process_tool_result("s", canonical("abcd" * 100_000))
    tokens = int(replacement_text(out).split("~", 1)[1].split(" ", 1)[0].replace(",", ""))
    assert 95_000 <= tokens <= 105_000


async def test_fifty_mb_result_feeds_the_tokenizer_a_bounded_amount() -> None:
    fed = []
    for size in (50_000, 50_000_000):
        counter = FeedCounter(TiktokenCounter())
        await offloader(counter=counter).process_tool_result("s", canonical("x = 1\n" * (size // 6)))
        fed.append(counter.fed)
    assert fed[1] <= fed[0] * 1.25  # longer line numbers; the text is 1,000x longer


async def test_guidance_names_file_tools_when_retrieval_tool_is_disabled() -> None:
    out = await offloader(include_retrieval_tool=False).process_tool_result("s", canonical())
    text = replacement_text(out)
    assert "use your file tools" in text
    assert "retrieve_offloaded_content" not in text


# ------------------------------------------------------------ shapes


async def test_strands_tool_result_stays_a_strands_tool_result() -> None:
    result = {"toolUseId": "t1", "status": "error", "content": [{"text": LOG}]}
    out = await offloader().process_tool_result("s", result)
    assert set(out) == {"toolUseId", "status", "content"}
    assert (out["toolUseId"], out["status"]) == ("t1", "error")
    assert out["content"][0]["text"].startswith("[Offloaded:")


async def test_wrapped_strands_tool_result_stays_wrapped() -> None:
    result = {"toolResult": {"toolUseId": "t1", "status": "success", "content": [{"text": LOG}]}}
    out = await offloader().process_tool_result("s", result)
    assert out["toolResult"]["content"][0]["text"].startswith("[Offloaded:")


async def test_openai_tool_message_keeps_string_content() -> None:
    message = {"role": "tool", "tool_call_id": "c1", "content": LOG}
    out = await offloader().process_tool_result("s", message)
    assert out["role"] == "tool" and out["tool_call_id"] == "c1"
    assert isinstance(out["content"], str) and out["content"].startswith("[Offloaded:")


async def test_anthropic_tool_result_block_stays_one() -> None:
    block = {"type": "tool_result", "tool_use_id": "tu1", "content": [{"type": "text", "text": LOG}]}
    out = await offloader().process_tool_result("s", block)
    assert out["type"] == "tool_result" and out["tool_use_id"] == "tu1"
    assert out["content"][0]["type"] == "text"


async def test_agentscope_tool_result_block_stays_one() -> None:
    from agentscope.message import TextBlock as AsText
    from agentscope.message import ToolResultBlock as AsResult
    from agentscope.message import ToolResultState

    result = AsResult(id="as1", name="shell", output=[AsText(text=LOG)], state=ToolResultState.SUCCESS)
    out = await offloader().process_tool_result("s", result)
    assert isinstance(out, AsResult)
    assert (out.id, out.name, out.state, out.created_at) == ("as1", "shell", "success", result.created_at)
    first = out.output[0]
    assert isinstance(first, AsText) and first.text.startswith("[Offloaded:")


async def test_agentscope_string_output_stays_a_string() -> None:
    from agentscope.message import ToolResultBlock as AsResult

    out = await offloader().process_tool_result("s", AsResult(id="as1", name="shell", output=LOG))
    assert isinstance(out.output, str) and out.output.startswith("[Offloaded:")


async def test_unknown_shape_is_a_type_error() -> None:
    with pytest.raises(TypeError, match="tool result"):
        await offloader().process_tool_result("s", {"unexpected": 1})


# ------------------------------------------------------------ blocks in a Storage


async def test_every_block_is_stored_with_its_content_type() -> None:
    storage = InMemoryStorage()
    result = canonical(extra=(JsonBlock({"rows": list(range(10))}), DataBlock("image/png", data=PNG)))
    await offloader(storage).process_tool_result("s", result)
    stored = [await storage.retrieve(r) for r in await storage.list()]
    assert [s.content_type for s in stored] == ["text/plain", "application/json", "image/png"]
    assert stored[0].content == LOG.encode()
    assert json.loads(stored[1].content) == {"rows": list(range(10))}
    assert stored[2].content == PNG


async def test_media_becomes_a_placeholder_with_its_reference() -> None:
    storage = InMemoryStorage()
    out = await offloader(storage).process_tool_result("s", canonical(extra=(DataBlock("image/png", data=PNG),)))
    image_ref = (await storage.list())[1]
    assert out.content[1] == TextBlock(f"[image: png, {len(PNG):,} bytes | ref: {image_ref}]")


async def test_strands_image_and_document_become_placeholders() -> None:
    result = {
        "toolUseId": "t1",
        "status": "success",
        "content": [
            {"text": LOG},
            {"image": {"format": "png", "source": {"bytes": PNG}}},
            {"document": {"format": "pdf", "name": "report", "source": {"bytes": b"%PDF-1.7 ..."}}},
        ],
    }
    out = await offloader().process_tool_result("s", result)
    assert out["content"][1]["text"].startswith(f"[image: png, {len(PNG):,} bytes | ref: mem_")
    assert out["content"][2]["text"].startswith("[document: pdf, report, 12 bytes | ref: mem_")


async def test_url_media_is_kept_as_it_was() -> None:
    url_image = {"type": "image_url", "image_url": {"url": "https://example.invalid/a.png"}}
    message = {"role": "tool", "tool_call_id": "c1", "content": [{"type": "text", "text": LOG}, url_image]}
    out = await offloader().process_tool_result("s", message)
    assert out["content"][1] is url_image


async def test_empty_blocks_keep_block_indexes_consistent() -> None:
    storage = InMemoryStorage()
    result = ToolResultBlock("c9", "bash", (TextBlock(""), TextBlock(LOG), DataBlock("image/png", data=PNG)))
    await offloader(storage).process_tool_result("s", result)
    assert [r.split("_", 2)[2] for r in await storage.list()] == ["c9_1", "c9_2"]


async def test_references_are_unique_when_a_tool_call_id_repeats() -> None:
    storage = InMemoryStorage()
    off = offloader(storage)
    await off.process_tool_result("s", canonical(LOG + "first"))
    await off.process_tool_result("s", canonical(LOG + "second"))
    first, second = await storage.list()
    assert first != second
    assert (await storage.retrieve(first)).content.endswith(b"first")
    assert (await storage.retrieve(second)).content.endswith(b"second")


# ------------------------------------------------------------ a workspace as storage


async def test_workspace_storage_uses_the_workspace_layout(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        result = canonical(extra=(DataBlock("image/png", data=PNG),))
        out = await ContextOffloader(ws).process_tool_result("sess", result)
        text = replacement_text(out)
        whole = ws.reference("sessions/sess/tool_result-call-1.txt")
        assert f"  {whole} (text/plain, " in text
        body = (tmp_path / "ws/sessions/sess/tool_result-call-1.txt").read_text()
        assert body.startswith(LOG) and "<data url='workspace:///data/" in body
        image_ref = out.content[1].text.split("ref: ", 1)[1].rstrip("]")
        assert Path(image_ref).read_bytes() == PNG
        assert "error: linker failed" in await ws.grep("linker failed", path=whole)


async def test_workspace_references_are_unique_when_a_tool_call_id_repeats(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        off = ContextOffloader(ws)
        a = await off.process_tool_result("sess", canonical(LOG + "first"))
        b = await off.process_tool_result("sess", canonical(LOG + "second"))
        ref_a = replacement_text(a).rsplit("\n", 1)[1].strip().split(" (")[0]
        ref_b = replacement_text(b).rsplit("\n", 1)[1].strip().split(" (")[0]
        assert ref_a != ref_b
        assert Path(ref_a).read_text().endswith("first")
        assert Path(ref_b).read_text().endswith("second")


async def test_workspace_storage_adapter_stores_blocks_individually(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws:
        storage = WorkspaceStorage(ws, session_id="sess")
        await ContextOffloader(storage).process_tool_result("sess", canonical(extra=(JsonBlock({"a": 1}),)))
        assert [Path(r).name for r in await storage.list()] == ["call-1_0.txt", "call-1_1.json"]


# ------------------------------------------------------------ failure safety


async def test_storage_failure_keeps_the_original_and_removes_stored_blocks(caplog: pytest.LogCaptureFixture) -> None:
    storage = FlakyStorage(fail_on_store=2)
    result = canonical(extra=(DataBlock("image/png", data=PNG),))
    with caplog.at_level(logging.WARNING, logger="offloader.offloader"):
        out = await offloader(storage).process_tool_result("s", result)
    assert out is result
    assert await storage.list() == []  # the first block was stored, then removed
    assert "kept in context" in caplog.text and "disk full" in caplog.text


async def test_failed_cleanup_is_recorded_in_the_log(caplog: pytest.LogCaptureFixture) -> None:
    storage = FlakyStorage(fail_on_store=2, fail_delete=True)
    result = canonical(extra=(DataBlock("image/png", data=PNG),))
    with caplog.at_level(logging.WARNING, logger="offloader.offloader"):
        out = await offloader(storage).process_tool_result("s", result)
    assert out is result
    [left] = await storage.list()
    assert f"could not be removed: {left}" in caplog.text


async def test_preview_failure_keeps_the_original_and_removes_stored_blocks() -> None:
    class BreaksAfterFirstCount:
        """A real HeuristicCounter that fails once the offload decision is made (injected fault)."""

        name = "breaks"

        def __init__(self) -> None:
            self.calls = 0

        def count(self, text: str) -> int:
            self.calls += 1
            if self.calls > 1:
                raise RuntimeError("tokenizer crashed")
            return HeuristicCounter().count(text)

    storage = InMemoryStorage()
    result = canonical("word " * 100_000)
    assert await offloader(storage, counter=BreaksAfterFirstCount()).process_tool_result("s", result) is result
    assert await storage.list() == []


async def test_closed_workspace_keeps_the_original(tmp_path: Path) -> None:
    ws = LocalWorkspace(tmp_path / "ws")
    await ws.open()
    await ws.close()
    result = canonical()
    assert await ContextOffloader(ws).process_tool_result("s", result) is result


# ------------------------------------------------------------ hooks and exclusions


async def test_should_offload_receives_tool_name_and_tokens_and_can_refuse() -> None:
    calls = []

    def decide(tool_name: str, tokens: int) -> bool:
        calls.append((tool_name, tokens))
        return False

    result = canonical(name="search")
    assert await offloader(should_offload=decide).process_tool_result("s", result) is result
    assert calls and calls[0][0] == "search" and calls[0][1] > 2500


async def test_async_should_offload_is_awaited() -> None:
    async def decide(tool_name: str, tokens: int) -> bool:
        return tool_name == "big_tool"

    off = offloader(should_offload=decide)
    kept = canonical(name="small_tool")
    assert await off.process_tool_result("s", kept) is kept
    assert replacement_text(await off.process_tool_result("s", canonical(name="big_tool"))).startswith("[Offloaded")


async def test_failing_should_offload_falls_back_to_offloading(caplog: pytest.LogCaptureFixture) -> None:
    def decide(tool_name: str, tokens: int) -> bool:
        raise RuntimeError("bug in hook")

    with caplog.at_level(logging.WARNING, logger="offloader.offloader"):
        out = await offloader(should_offload=decide).process_tool_result("s", canonical())
    assert replacement_text(out).startswith("[Offloaded")
    assert "should_offload raised" in caplog.text


@pytest.mark.parametrize("tool", ["retrieve_offloaded_content", "Read", "Grep", "Glob"])
async def test_read_back_tools_are_never_offloaded(tool: str) -> None:
    result = canonical(name=tool)
    assert await offloader().process_tool_result("s", result) is result


async def test_exclude_tools_is_configurable() -> None:
    off = offloader(exclude_tools=("noisy",))
    noisy, read = canonical(name="noisy"), canonical(name="Read")
    assert await off.process_tool_result("s", noisy) is noisy
    assert await off.process_tool_result("s", read) is not read


async def test_tool_name_argument_names_results_that_carry_none() -> None:
    message = {"role": "tool", "tool_call_id": "c1", "content": LOG}
    assert await offloader().process_tool_result("s", message, tool_name="Grep") is message


# ------------------------------------------------------------ retrieval tool


async def test_retrieval_tool_reads_back_what_was_offloaded() -> None:
    off = offloader()
    out = await off.process_tool_result("s", canonical())
    ref = replacement_text(out).rsplit("\n", 1)[1].strip().split(" (")[0]
    [tool] = off.tools()
    assert tool.name == "retrieve_offloaded_content"
    found = await tool.invoke({"reference": ref, "pattern": "linker failed"})
    assert not found.is_error and "error: linker failed" in found.text


async def test_no_tools_when_retrieval_tool_is_disabled() -> None:
    assert offloader(include_retrieval_tool=False).tools() == []


# ------------------------------------------------------------ arguments


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_result_tokens": 0}, "max_result_tokens must be a positive int"),
        ({"max_result_tokens": True}, "max_result_tokens must be a positive int"),
        ({"preview_tokens": -5}, "preview_tokens must be a positive int"),
        ({"preview_tokens": 2500}, r"preview_tokens \(2500\) must be smaller than max_result_tokens \(2500\)"),
    ],
)
async def test_invalid_sizes_are_rejected(kwargs: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        offloader(**kwargs)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"storage": object()}, "storage must be a Storage"),
        ({"counter": object()}, "counter must have"),
        ({"should_offload": 3}, "should_offload must be callable"),
        ({"exclude_tools": "Read"}, "not a single str"),
    ],
)
async def test_invalid_collaborators_are_rejected(kwargs: dict[str, Any], message: str) -> None:
    storage = kwargs.pop("storage", InMemoryStorage())
    with pytest.raises(TypeError, match=message):
        ContextOffloader(storage, **kwargs)


async def test_empty_session_id_is_rejected() -> None:
    with pytest.raises(ValueError, match="session_id"):
        await offloader().process_tool_result("", canonical())
