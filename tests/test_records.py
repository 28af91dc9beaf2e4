"""context.jsonl keeps each message in its framework's own serialization, and reads every form back."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

from offloader.core.messages import DataBlock, Message, TextBlock
from offloader.core.records import read_record
from workspaces import LocalWorkspace

PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(64))


@pytest.mark.anyio
async def test_agentscope_messages_are_stored_as_model_dump_json_and_load_back(tmp_path: Path) -> None:
    msg_mod = pytest.importorskip("agentscope.message")
    image = msg_mod.DataBlock(
        source=msg_mod.Base64Source(data=base64.b64encode(PNG).decode(), media_type="image/png"), name="shot"
    )
    msgs = [
        msg_mod.UserMsg(name="user", content=[msg_mod.TextBlock(text="look"), image]),
        msg_mod.AssistantMsg(name="bot", content="seen"),
    ]
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ref = await ws.offload_context("s", msgs)
        lines = (await ws.read_bytes(ref)).decode().splitlines()
        loaded = [msg_mod.Msg.model_validate_json(line) for line in lines]  # AgentScope reads its own form
        assert lines[1] == msgs[1].model_dump_json()
        url = str(loaded[0].content[1].source.url)
        assert url.startswith("workspace:///data/") and await ws.read_bytes(url) == PNG
        assert loaded[0].content[1].id == image.id and loaded[0].content[1].created_at == image.created_at
        back = [read_record(line) for line in lines]  # and so do we
        assert back[0].content[0] == TextBlock("look")
        assert isinstance(back[0].content[1], DataBlock) and back[0].content[1].url == url
        assert back[1] == Message("assistant", (TextBlock("seen"),), name="bot", id=msgs[1].id)


@pytest.mark.anyio
async def test_message_dicts_are_stored_as_they_are_media_by_url(tmp_path: Path) -> None:
    strands_msg = {"role": "user", "content": [{"text": "hi"}, {"image": {"format": "png", "source": {"bytes": PNG}}}]}
    openai_msg = {"role": "assistant", "content": "hello", "tool_calls": None}
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ref = await ws.offload_context("s", [strands_msg, openai_msg])
        first, second = (await ws.read_bytes(ref)).decode().splitlines()
        assert json.loads(second) == openai_msg
        stored = json.loads(first)
        assert stored["content"][0] == {"text": "hi"}
        location = stored["content"][1]["image"]["source"]["location"]
        assert await ws.read_bytes(location["uri"]) == PNG
        assert read_record(first).content[0] == TextBlock("hi")
        assert read_record(second).content == (TextBlock("hello"),)


@pytest.mark.anyio
async def test_canonical_records_still_round_trip(tmp_path: Path) -> None:
    msg = Message("user", (TextBlock("x"), DataBlock("image/png", data=PNG)), name="n", id="1")
    async with LocalWorkspace(tmp_path / "ws", media_names="agentscope") as ws:
        ref = await ws.offload_context("s", [msg])
        (line,) = (await ws.read_bytes(ref)).decode().splitlines()
        back = read_record(line)
        assert back.content[0] == TextBlock("x") and back.name == "n" and back.id == "1"
        url = back.content[1].url  # type: ignore[union-attr]
        import hashlib

        assert url == f"workspace:///data/{hashlib.sha256(base64.b64encode(PNG)).hexdigest()}.png"
    with pytest.raises(ValueError, match="media_names"):
        LocalWorkspace(tmp_path / "x", media_names="md5")


@pytest.mark.anyio
async def test_the_compactor_takes_every_stored_form_back(tmp_path: Path) -> None:
    from offloader.compaction import ContextCompactor
    from offloader.tokens import HeuristicCounter

    msg_mod = pytest.importorskip("agentscope.message")
    originals = [
        msg_mod.UserMsg(name="user", content="x " * 3000),  # AgentScope
        {"role": "assistant", "content": [{"text": "y " * 3000}]},  # Strands
        {"role": "user", "content": "z " * 3000},  # OpenAI
        Message("assistant", (TextBlock("w " * 3000),)),  # canonical
    ]
    async with LocalWorkspace(tmp_path / "ws") as ws:
        ref = await ws.offload_context("log", originals)
        records = [json.loads(line) for line in (await ws.read_bytes(ref)).decode().splitlines()]
        assert [read_record(r).role for r in records] == ["user", "assistant", "user", "assistant"]
        compactor = ContextCompactor(ws, window=2_000, counter=HeuristicCounter())
        result = await compactor.compact("again", [*records, {"role": "user", "content": "and now?"}])
        assert result.tokens_after < result.tokens_before
