"""ContextCompactor's cost-saving paths give the same numbers as the plain computation.

The compactor converts, renders and tokenizes each new message once, in two
passes (all conversions first, then all token counts), and reuses results for
messages it has seen. These tests pin that the shortcuts change nothing.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest

from offloader.compaction import ContextCompactor
from offloader.compaction._view import _MESSAGE_OVERHEAD, _render
from offloader.core.convert import to_message
from offloader.tokens import HeuristicCounter
from tests.test_compaction_support import SHAPES, build, scripted_turns

pytestmark = pytest.mark.anyio


class _Nowhere:
    """An offloader that must never be used: the window is too large to compact."""

    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        raise AssertionError("nothing should be offloaded")

    async def offload_context(self, session_id: str, msgs: Any, **kwargs: Any) -> str:
        raise AssertionError("nothing should be offloaded")

    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any:
        return block


class _Recording(HeuristicCounter):
    def __init__(self) -> None:
        self.texts: list[str] = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return super().count(text)


def _expected(messages: list[Any]) -> int:
    counter = HeuristicCounter()
    total = 0
    for m in messages:
        text, media = _render(to_message(m))
        total += counter.count(text) + media + _MESSAGE_OVERHEAD
    return total


@pytest.mark.parametrize("shape", SHAPES)
async def test_message_tokens_equal_counting_each_message_alone(shape: str) -> None:
    messages = build(scripted_turns(6, lines=20), shape)
    result = await ContextCompactor(_Nowhere(), 10**9, counter=HeuristicCounter()).compact(
        "s", messages, system_tokens=0
    )
    assert result.tokens_before == _expected(messages)


async def test_a_message_repeated_in_one_list_is_tokenized_once_and_counted_each_time() -> None:
    messages = build(scripted_turns(3, lines=10), "openai")
    repeated = [*messages, copy.deepcopy(messages[1])]
    counter = _Recording()
    result = await ContextCompactor(_Nowhere(), 10**9, counter=counter).compact("s", repeated, system_tokens=0)
    assert result.tokens_before == _expected(repeated)
    assert len(counter.texts) == len(messages)  # the copy of messages[1] is not tokenized again


async def test_a_second_call_reuses_counts_and_gives_the_same_total() -> None:
    messages = build(scripted_turns(4, lines=10), "anthropic")
    counter = _Recording()
    compactor = ContextCompactor(_Nowhere(), 10**9, counter=counter)
    first = await compactor.compact("s", messages, system_tokens=0)
    counter.texts.clear()
    second = await compactor.compact("s", copy.deepcopy(messages), system_tokens=0)
    assert second.tokens_before == first.tokens_before == _expected(messages)
    assert counter.texts == []


async def test_an_unsupported_message_raises_before_anything_is_counted() -> None:
    counter = _Recording()
    compactor = ContextCompactor(_Nowhere(), 10**9, counter=counter)
    with pytest.raises(TypeError):
        await compactor.compact("s", [{"role": "user", "content": "hi"}, 42], system_tokens=0)
    assert counter.texts == []
