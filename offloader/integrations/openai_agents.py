"""OpenAI Agents SDK: offloading and compaction of every model input, and the read-back tools.

:class:`OffloadModelInput` is a ``RunConfig.call_model_input_filter``: before each
model call, every big ``function_call_output`` becomes the offloader's preview
plus references, then the Responses-API input items are compacted to the
window. It returns new items (the run's own items, ``result.to_input_list()`` and
any session keep every output whole) and is deterministic, so the input for
``history + one turn`` starts with the input for ``history`` and prompt caches
stay valid::

    from agents import Agent, RunConfig, Runner
    from offloader.integrations.openai_agents import OffloadModelInput
    from workspaces import LocalWorkspace

    offload = OffloadModelInput(LocalWorkspace(".offload"), session_id="chat-1", window=128_000)
    agent = Agent(name="builder", tools=[*my_tools, *offload.function_tools()])
    result = await Runner.run(agent, "Why did the build fail?",
                              run_config=RunConfig(call_model_input_filter=offload))

:func:`function_tool` wraps any :class:`workspaces.Tool` (Read / Grep / Glob,
``retrieve_offloaded_content``) as an SDK ``FunctionTool``. A session that keeps
its items in a workspace is :class:`~offloader.integrations.openai_agents_session.WorkspaceSession`
(also importable from here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from offloader.core.extras import MissingExtra

try:
    from agents import FunctionTool
    from agents.run_config import CallModelData, ModelInputData
    from agents.tool_context import ToolContext
except ImportError as exc:  # pragma: no cover - exercised by tests/test_extras.py in a subprocess
    raise MissingExtra("offloader.integrations.openai_agents", "openai-agents", exc.name) from exc

from offloader.core.shapes import responses as responses_shape
from offloader.integrations._session import SessionSetup
from offloader.integrations.openai_agents_session import WorkspaceSession
from offloader.integrations.plain import call_tool
from workspaces import Tool

__all__ = ["OffloadModelInput", "WorkspaceSession", "function_tool", "function_tools"]


def function_tool(tool: Tool) -> FunctionTool:
    """A framework-neutral :class:`Tool` as an Agents SDK ``FunctionTool`` (errors come back as text)."""

    async def invoke(ctx: ToolContext[Any], input_json: str) -> str:
        outcome = await call_tool([tool], tool.name, input_json)
        return outcome.text

    return FunctionTool(
        name=tool.name,
        description=tool.description,
        params_json_schema=tool.parameters,
        on_invoke_tool=invoke,
        strict_json_schema=False,  # optional parameters with defaults: not expressible in strict mode
    )


def function_tools(tools: Iterable[Tool]) -> list[FunctionTool]:
    """Several tools at once, e.g. ``Agent(tools=function_tools(workspace.tools()))``."""
    return [function_tool(t) for t in tools]


class OffloadModelInput(SessionSetup):
    """ContextOffloader + ContextCompactor as a ``call_model_input_filter``; see the module doc.

    Arguments as for :class:`~offloader.integrations._session.SessionSetup`: a workspace (whole results
    in ``sessions/{sid}/``; also enables Read / Grep / Glob) or any Storage, and a session id.
    """

    def function_tools(self) -> list[FunctionTool]:
        """:meth:`tools` as Agents SDK ``FunctionTool`` objects."""
        return function_tools(self.tools())

    async def __call__(self, data: CallModelData[Any]) -> ModelInputData:
        """The filter: the same instructions, the input items offloaded and compacted."""
        items = await self.prepare(data.model_data.input)
        return ModelInputData(input=items, instructions=data.model_data.instructions)  # type: ignore[arg-type]

    async def prepare(self, items: Sequence[Any]) -> list[Any]:
        """Input items to send: big ``function_call_output`` items offloaded, then compacted.

        The given items are never mutated; unchanged items come back as the same objects.
        """
        if isinstance(items, str | bytes) or not isinstance(items, Sequence):
            raise TypeError(f"items must be a list of Responses input items, got {type(items).__name__}")
        plain = [_as_dict(i) for i in items]
        names = responses_shape.call_names(plain)
        out: list[Any] = []
        for item in plain:
            if isinstance(item, Mapping) and item.get("type") == "function_call_output":
                item = await self._offload(item, names.get(str(item.get("call_id", "")), ""))
            out.append(item)
        if self.compactor is None:
            return out
        self.last_compaction = await self.compactor.compact(self.session_id, out)
        return list(self.last_compaction.messages)

    async def _offload(self, item: Mapping[str, Any], name: str) -> Any:
        key = await self._done.key_of(str(item.get("call_id", "")), name, item.get("output"))
        output = self._done.get(key)
        if output is not None:
            return {**item, "output": output}
        new = await self.offloader.process_tool_result(self.session_id, item, tool_name=name or None)
        if new is not item:
            self._done.put(key, new["output"])
        return new


def _as_dict(item: Any) -> Any:
    """SDK items may be pydantic models (openai types): their JSON dict, which the API accepts alike."""
    if isinstance(item, Mapping) or not hasattr(item, "model_dump"):
        return item
    return item.model_dump(mode="json", exclude_unset=True)
