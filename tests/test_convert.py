"""Converters accept what real frameworks pass and reject unknown shapes by name."""

from __future__ import annotations

import base64

import pytest
from agentscope.message import Base64Source, Msg, URLSource
from agentscope.message import DataBlock as ASDataBlock
from agentscope.message import TextBlock as ASTextBlock
from agentscope.message import ToolResultBlock as ASToolResultBlock

from offloader import DataBlock, JsonBlock, TextBlock, ToolCallBlock, ToolResultBlock
from offloader.core.convert import (
    message_from_dict,
    message_to_dict,
    to_data_block,
    to_message,
    to_tool_result,
    with_data_url,
)

PNG = b"\x89PNG\r\n\x1a\nfake"
B64 = base64.b64encode(PNG).decode()


def test_openai_tool_message_becomes_a_tool_result() -> None:
    r = to_tool_result({"role": "tool", "tool_call_id": "call_1", "content": "out"})
    assert r == ToolResultBlock("call_1", "", (TextBlock("out"),))


def test_openai_assistant_tool_calls_are_parsed() -> None:
    m = to_message(
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "ls", "arguments": '{"path": "/"}'}}],
        }
    )
    assert m.tool_calls == (ToolCallBlock("c1", "ls", {"path": "/"}),)


def test_anthropic_tool_result_with_image_block() -> None:
    r = to_tool_result(
        {
            "type": "tool_result",
            "tool_use_id": "toolu_1",
            "is_error": True,
            "content": [
                {"type": "text", "text": "t"},
                {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": B64}},
            ],
        }
    )
    assert r.is_error and r.content == (TextBlock("t"), DataBlock("image/png", data=PNG))


def test_strands_tool_result_with_json_and_document() -> None:
    r = to_tool_result(
        {
            "toolUseId": "t1",
            "status": "error",
            "content": [{"json": {"a": 1}}, {"document": {"format": "pdf", "name": "r", "source": {"bytes": b"%PDF"}}}],
        }
    )
    assert r.is_error and r.content[0] == JsonBlock({"a": 1})
    assert r.content[1] == DataBlock("application/pdf", data=b"%PDF", name="r")


def test_strands_wrapped_tool_result() -> None:
    assert to_tool_result({"toolResult": {"toolUseId": "t2", "content": [{"text": "x"}]}}).id == "t2"


def test_agentscope_tool_result_with_text_and_data_blocks() -> None:
    block = ASToolResultBlock(
        id="as1",
        name="shot",
        state="error",
        output=[ASTextBlock(text="hello"), ASDataBlock(source=Base64Source(data=B64, media_type="image/png"))],
    )
    r = to_tool_result(block)
    assert r.id == "as1" and r.name == "shot" and r.is_error
    assert r.content == (TextBlock("hello"), DataBlock("image/png", data=PNG))


def test_agentscope_msg_round_trips_through_json() -> None:
    msg = Msg(name="user", role="user", content=[ASTextBlock(text="hi")])
    m = to_message(msg)
    assert m.role == "user" and m.text() == "hi" and m.id == msg.id
    assert message_from_dict(message_to_dict(m)) == m


def test_agentscope_data_block_comes_back_as_an_agentscope_data_block() -> None:
    block = ASDataBlock(name="pic", source=Base64Source(data=B64, media_type="image/png"))
    assert to_data_block(block) == DataBlock("image/png", data=PNG, name="pic")
    again = with_data_url(block, "workspace:///data/abc.png", "image/png")
    assert type(again) is ASDataBlock and isinstance(again.source, URLSource)
    assert str(again.source.url) == "workspace:///data/abc.png" and again.id == block.id


def test_openai_image_url_data_url_is_decoded() -> None:
    assert to_data_block({"type": "image_url", "image_url": {"url": f"data:image/png;base64,{B64}"}}).data == PNG


def test_invalid_base64_is_a_clear_error() -> None:
    with pytest.raises(ValueError, match="invalid base64"):
        to_data_block({"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": "@@@"}})


@pytest.mark.parametrize("bad", [42, object(), {"foo": "bar"}, [1, 2]])
def test_unknown_tool_result_shapes_raise_type_error_naming_the_accepted_ones(bad: object) -> None:
    with pytest.raises(TypeError, match="Strands toolResult"):
        to_tool_result(bad)


def test_unknown_content_block_is_not_dropped_silently() -> None:
    with pytest.raises(TypeError, match="expected"):
        to_message({"role": "user", "content": [{"type": "hologram"}]})
