"""WorkspaceSession: the Agents SDK ``Session`` protocol on every workspace backend.

The ``workspace`` fixture runs each test on a folder, a Docker container, an E2B
sandbox (the real e2b SDK against tests/envd_server.py), an fsspec memory
filesystem and S3 (s3fs against a moto server).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from agents import Agent, RunConfig, Runner
from agents.memory import Session, SessionSettings
from agents.testing import ModelCall, ModelStep, ScriptedModel, assistant_message

from offloader.integrations.openai_agents_session import ITEMS_FILE, WorkspaceSession

pytestmark = pytest.mark.anyio


def _user(text: str) -> dict[str, Any]:
    return {"role": "user", "content": text}


async def _log(ws: Any, session: WorkspaceSession) -> list[dict[str, Any]]:
    raw = await ws.read_bytes(session.path)
    return [json.loads(line) for line in raw.decode().splitlines()]


async def test_the_session_protocol_is_append_only(workspace: Any) -> None:
    session = WorkspaceSession(workspace, "chat/1")
    assert isinstance(session, Session)
    assert await session.get_items() == [] and await session.pop_item() is None
    await session.add_items([_user("a"), _user("b")])
    await session.add_items([_user("c")])
    assert [i["content"] for i in await session.get_items()] == ["a", "b", "c"]
    assert [i["content"] for i in await session.get_items(limit=2)] == ["b", "c"]
    assert await session.pop_item() == _user("c")
    assert [i["content"] for i in await session.get_items()] == ["a", "b"]
    size = (await workspace.stat(session.path)).size
    await session.clear_session()
    assert await session.get_items() == []
    await session.add_items([_user("d")])
    assert await session.get_items() == [_user("d")]
    # Nothing was rewritten: the log only grew, and every record is still there.
    assert (await workspace.stat(session.path)).size > size
    assert [r["op"] for r in await _log(workspace, session)] == ["add", "add", "pop", "clear", "add"]
    assert session.path.endswith(ITEMS_FILE)
    # Another process (a new object) replays the same state; items handed out are copies.
    other = WorkspaceSession(workspace, "chat/1", session_settings=SessionSettings(limit=1))
    items = await other.get_items()
    assert items == [_user("d")]
    items[0]["content"] = "changed"
    assert await other.get_items() == [_user("d")]
    await other.add_items([_user("e")])
    assert [i["content"] for i in await session.get_items()] == ["d", "e"]  # sees the other writer's record


async def test_a_runner_continues_a_conversation_from_the_workspace(workspace: Any) -> None:
    seen: list[list[Any]] = []

    def reply(call: ModelCall) -> Any:
        seen.append(list(call.input))
        return [assistant_message(f"answer {len(seen)}")]

    model = ScriptedModel([ModelStep.respond(reply), ModelStep.respond(reply)])
    agent = Agent(name="a", model=model)
    config = RunConfig(tracing_disabled=True)
    await Runner.run(agent, "first question", session=WorkspaceSession(workspace, "run"), run_config=config)
    await Runner.run(agent, "second question", session=WorkspaceSession(workspace, "run"), run_config=config)
    text = json.dumps(seen[1])
    assert "first question" in text and "answer 1" in text and "second question" in text
    stored = await WorkspaceSession(workspace, "run").get_items()
    assert len(stored) == 4


async def test_a_torn_last_line_waits_and_bad_records_are_skipped(tmp_path: Any) -> None:
    from workspaces import LocalWorkspace

    ws = LocalWorkspace(tmp_path / "ws")
    session = WorkspaceSession(ws, "torn")
    await session.add_items([_user("a")])
    await ws.append_bytes(session.path, b'not json\n{"op":"add","items":[{"role":"user","content":"b"}]}\n')
    path = tmp_path / "ws" / session.path
    with path.open("ab") as f:
        f.write(b'{"op":"add","items":[{"role":"user","con')  # a writer still mid-line
    assert [i["content"] for i in await session.get_items()] == ["a", "b"]
    with path.open("ab") as f:
        f.write(b'tent":"c"}]}\n')
    assert [i["content"] for i in await session.get_items()] == ["a", "b", "c"]
    await ws.purge_session("torn")  # the log is gone: the session starts over
    assert await session.get_items() == []


def test_bad_arguments_are_refused(tmp_path: Any) -> None:
    from workspaces import LocalWorkspace

    with pytest.raises(TypeError, match="Workspace"):
        WorkspaceSession("not a workspace", "x")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="session_id"):
        WorkspaceSession(LocalWorkspace(tmp_path), "")


@pytest.mark.parametrize("anyio_backend", ["trio"])
async def test_session_and_filter_work_under_trio(anyio_backend: str, tmp_path: Any) -> None:
    from offloader.integrations.openai_agents import OffloadModelInput
    from workspaces import LocalWorkspace

    async with LocalWorkspace(tmp_path / "ws") as ws:
        session = WorkspaceSession(ws, "trio")
        await session.add_items([_user("a"), _user("b")])
        assert await session.pop_item() == _user("b")
        assert await session.get_items() == [_user("a")]
        offload = OffloadModelInput(ws, "trio", max_result_tokens=300, preview_tokens=100)
        items = [
            {"type": "function_call", "call_id": "c", "name": "logs", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c", "output": "line ok\n" * 20_000},
        ]
        out = await offload.prepare(items)
        assert out[1]["output"].startswith("[Offloaded:") and items[1]["output"] == "line ok\n" * 20_000
