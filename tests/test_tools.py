"""The framework-neutral Tool wrapper: schemas, argument checks, errors as tool errors."""

from __future__ import annotations

import pytest

from workspaces import Tool

pytestmark = pytest.mark.anyio


async def _echo(text: str) -> str:
    return text


ECHO = Tool("Echo", "echo", {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}, _echo)


async def test_an_unexpected_failure_inside_a_tool_is_a_tool_error() -> None:
    async def broken(**_: object) -> str:
        raise RuntimeError("engine exploded")

    tool = Tool("Broken", "always fails", {"type": "object", "properties": {}}, broken)
    outcome = await tool.invoke({})
    assert outcome.is_error and outcome.text == "Error: RuntimeError: engine exploded"


async def test_unknown_and_missing_arguments_are_tool_errors() -> None:
    assert (await ECHO.invoke({"text": "a", "extra": 1})).text == "Error: unknown argument(s) for Echo: extra"
    assert (await ECHO.invoke({})).text == "Error: missing required argument(s) for Echo: text"


async def test_calling_a_tool_returns_its_text() -> None:
    assert await ECHO(text="hi") == "hi"


def test_schemas_export_for_openai_and_anthropic() -> None:
    assert ECHO.openai_schema()["function"]["parameters"]["required"] == ["text"]
    assert ECHO.anthropic_schema()["input_schema"]["properties"]["text"] == {"type": "string"}
