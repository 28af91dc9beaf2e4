"""deepagents with a workspace as its backend: a real deep agent, a scripted LangChain model.

The model is LangChain's ``GenericFakeChatModel`` (the only stand-in: there are
no API keys here) with ``bind_tools`` accepted; it replays fixed tool calls and
records what it was sent. deepagents' own middleware evicts the big tool result
into the workspace and its own ``read_file`` / ``grep`` / ``execute`` tools read
it back. The backend contract itself is then checked on every workspace backend.
"""

from __future__ import annotations

import base64
import threading
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest

pytest.importorskip("deepagents")

from deepagents import create_deep_agent
from deepagents.backends.protocol import BackendProtocol, SandboxBackendProtocol
from langchain_core.callbacks import CallbackManagerForLLMRun
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, BaseMessage, ToolMessage
from langchain_core.outputs import ChatResult
from pydantic import Field

from offloader.integrations.deepagents import WorkspaceBackend, WorkspaceSandboxBackend, deepagents_backend
from workspaces import LocalWorkspace, Workspace

NEEDLE_LINE = 4322


def build_log() -> str:
    """Return the build log (6,000 lines, about 330 KB)."""
    lines = [f"line {i:06d} ok " + "x" * 40 for i in range(1, 6001)]
    lines[NEEDLE_LINE - 1] = f"line {NEEDLE_LINE:06d} NEEDLE compiler crashed"
    return "\n".join(lines)


class ScriptedChatModel(GenericFakeChatModel):
    """GenericFakeChatModel that accepts ``bind_tools`` and records every input it gets."""

    seen: list[list[BaseMessage]] = Field(default_factory=list)

    def bind_tools(self, tools: Sequence[Any], **kwargs: Any) -> ScriptedChatModel:
        return self

    def _generate(
        self,
        messages: list[BaseMessage],
        stop: list[str] | None = None,
        run_manager: CallbackManagerForLLMRun | None = None,
        **kwargs: Any,
    ) -> ChatResult:
        self.seen.append(list(messages))
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)


def _calls(*steps: tuple[str, dict[str, Any], str] | str) -> Iterator[AIMessage]:
    for step in steps:
        if isinstance(step, str):
            yield AIMessage(content=step)
        else:
            name, args, call_id = step
            yield AIMessage(content="", tool_calls=[{"name": name, "args": args, "id": call_id}])


def _tool_message(messages: list[BaseMessage], call_id: str) -> str:
    (found,) = [m for m in messages if isinstance(m, ToolMessage) and m.tool_call_id == call_id]
    return str(found.content)


class Run:
    def __init__(self, workdir: Path, model: ScriptedChatModel, result: dict[str, Any]) -> None:
        self.workdir = workdir
        self.model = model
        self.result = result


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
async def run(tmp_path_factory: pytest.TempPathFactory, anyio_backend: str) -> AsyncIterator[Run]:
    """Fetch the big log, grep the evicted file, read around the match, count lines with execute, answer."""
    workdir = tmp_path_factory.mktemp("deepagents") / "ws"
    model = ScriptedChatModel(
        messages=_calls(
            ("build_log", {}, "call_big"),
            ("grep", {"pattern": "NEEDLE", "path": "/large_tool_results", "output_mode": "content"}, "call_grep"),
            (
                "read_file",
                {"file_path": "/large_tool_results/call_big", "offset": NEEDLE_LINE - 2, "limit": 3},
                "call_read",
            ),
            ("execute", {"command": "wc -l < large_tool_results/call_big"}, "call_exec"),
            "The compiler crashed.",
        )
    )
    async with LocalWorkspace(workdir, allow_host_commands=True) as ws:
        agent = create_deep_agent(model=model, tools=[build_log], backend=deepagents_backend(ws))
        result = await agent.ainvoke({"messages": [{"role": "user", "content": "Why did the build fail?"}]})
        yield Run(workdir, model, result)


@pytest.mark.anyio
async def test_agent_answers_after_five_model_calls(run: Run) -> None:
    assert len(run.model.seen) == 5
    assert run.result["messages"][-1].content == "The compiler crashed."


@pytest.mark.anyio
async def test_big_tool_result_is_evicted_whole_into_the_workspace(run: Run) -> None:
    assert (run.workdir / "large_tool_results" / "call_big").read_text() == build_log()


@pytest.mark.anyio
async def test_model_sees_a_preview_and_the_evicted_path_not_the_whole_result(run: Run) -> None:
    stub = _tool_message(run.model.seen[1], "call_big")
    assert "/large_tool_results/call_big" in stub
    assert len(stub) < 10_000
    assert "NEEDLE" not in stub


@pytest.mark.anyio
async def test_grep_finds_the_needle_in_the_evicted_file(run: Run) -> None:
    out = _tool_message(run.model.seen[2], "call_grep")
    assert "/large_tool_results/call_big" in out
    assert f"{NEEDLE_LINE}: line {NEEDLE_LINE:06d} NEEDLE compiler crashed" in out


@pytest.mark.anyio
async def test_read_file_returns_exactly_the_requested_window(run: Run) -> None:
    out = _tool_message(run.model.seen[3], "call_read")
    lines = build_log().splitlines()
    assert lines[NEEDLE_LINE - 2] in out and lines[NEEDLE_LINE - 1] in out and lines[NEEDLE_LINE] in out
    assert lines[NEEDLE_LINE - 3] not in out and lines[NEEDLE_LINE + 1] not in out


@pytest.mark.anyio
async def test_execute_runs_inside_the_workspace(run: Run) -> None:
    out = _tool_message(run.model.seen[4], "call_exec")
    assert "5999" in out  # 6,000 lines, no final newline


def test_backend_kind_follows_whether_the_workspace_runs_commands(tmp_path: Path) -> None:
    from workspaces.fsspec import FsspecWorkspace

    local = deepagents_backend(LocalWorkspace(tmp_path / "ws"))  # host commands only on request
    assert type(local) is WorkspaceBackend and not isinstance(local, SandboxBackendProtocol)
    host = deepagents_backend(LocalWorkspace(tmp_path / "ws", allow_host_commands=True))
    assert isinstance(host, WorkspaceSandboxBackend) and isinstance(host, SandboxBackendProtocol)
    store = deepagents_backend(FsspecWorkspace("memory://deepagents-kind"))
    assert type(store) is WorkspaceBackend
    assert isinstance(store, BackendProtocol) and not isinstance(store, SandboxBackendProtocol)


# ---------------------------------------------------------------- the backend contract, every backend


@pytest.fixture
def backend(workspace: Workspace) -> WorkspaceBackend:
    return deepagents_backend(workspace)


@pytest.mark.anyio
async def test_write_then_read_pages_with_pagination_metadata(backend: WorkspaceBackend) -> None:
    written = await backend.awrite("/notes/log.txt", "".join(f"row {i}\n" for i in range(1, 11)))
    assert written.error is None and written.path == "/notes/log.txt"
    page = await backend.aread("/notes/log.txt", offset=3, limit=4)
    assert page.error is None and page.file_data is not None
    assert page.file_data["content"] == "row 4\nrow 5\nrow 6\nrow 7\n"
    assert (page.start_line, page.end_line, page.next_offset) == (4, 7, 7)
    last = await backend.aread("/notes/log.txt", offset=8, limit=10)
    assert last.file_data is not None and last.file_data["content"] == "row 9\nrow 10\n"
    assert (last.total_lines, last.next_offset) == (10, None)


@pytest.mark.anyio
async def test_read_past_the_end_and_missing_files_are_errors(backend: WorkspaceBackend) -> None:
    await backend.awrite("/a.txt", "one\n")
    assert "exceeds file length" in ((await backend.aread("/a.txt", offset=5)).error or "")
    assert "not found" in ((await backend.aread("/missing.txt")).error or "")


@pytest.mark.anyio
async def test_images_are_read_as_base64(backend: WorkspaceBackend) -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(256))
    (up,) = await backend.aupload_files([("/img/x.png", png)])
    assert up.error is None
    got = await backend.aread("/img/x.png")
    assert got.file_data is not None and got.file_data["encoding"] == "base64"
    assert base64.b64decode(got.file_data["content"]) == png


@pytest.mark.anyio
async def test_edit_replaces_a_unique_string_and_refuses_an_ambiguous_one(backend: WorkspaceBackend) -> None:
    await backend.awrite("/cfg.ini", "a=1\nb=1\n")
    edited = await backend.aedit("/cfg.ini", "a=1", "a=2")
    assert edited.error is None and edited.occurrences == 1
    ambiguous = await backend.aedit("/cfg.ini", "=", ":")
    assert ambiguous.error is not None and "appears 2 times" in ambiguous.error
    (down,) = await backend.adownload_files(["/cfg.ini"])
    assert down.content == b"a=2\nb=1\n"


@pytest.mark.anyio
async def test_ls_lists_files_and_folders_one_level(backend: WorkspaceBackend) -> None:
    await backend.aupload_files([("/top.txt", b"t"), ("/sub/inner.txt", b"i"), ("/sub/deep/x.txt", b"x")])
    listing = await backend.als("/")
    assert listing.error is None and listing.entries is not None
    assert [(e["path"], e.get("is_dir")) for e in listing.entries] == [("/sub/", True), ("/top.txt", False)]
    inner = await backend.als("/sub")
    assert inner.entries is not None
    assert [e["path"] for e in inner.entries] == ["/sub/deep/", "/sub/inner.txt"]
    assert "not_a_directory" in ((await backend.als("/top.txt")).error or "")


@pytest.mark.anyio
async def test_glob_and_literal_grep(backend: WorkspaceBackend) -> None:
    await backend.aupload_files([("/src/a.py", b"x = f(1)\ny = 2\n"), ("/src/b.txt", b"f(1) again\n")])
    found = await backend.aglob("*.py")
    assert found.matches is not None and [m["path"] for m in found.matches] == ["/src/a.py"]
    hits = await backend.agrep("f(1)", "/src")  # parentheses are literal, not a regex group
    assert hits.error is None and hits.matches is not None
    assert [(m["path"], m["line"], m["text"]) for m in hits.matches] == [
        ("/src/a.py", 1, "x = f(1)"),
        ("/src/b.txt", 1, "f(1) again"),
    ]
    only_py = await backend.agrep("f(1)", "/src", glob="*.py")
    assert only_py.matches is not None and len(only_py.matches) == 1
    capped = await backend.agrep("f(1)", "/", max_count=1)
    assert capped.matches is not None and len(capped.matches) == 1 and capped.truncated


@pytest.mark.anyio
async def test_workspace_references_are_accepted_as_paths(backend: WorkspaceBackend) -> None:
    ref = await backend.workspace.offload_tool_result("s1", {"toolUseId": "t1", "content": [{"text": "hello\n"}]})
    got = await backend.aread(ref)
    assert got.file_data is not None and got.file_data["content"] == "hello\n"


@pytest.mark.anyio
async def test_paths_leaving_the_workdir_are_refused_everywhere(backend: WorkspaceBackend) -> None:
    for path in ["/../escape.txt", "../../escape.txt", "/a/../../escape.txt", "/a\x00b"]:
        # deepagents' contract (FilesystemBackend): traversal raises ValueError
        for call in (
            backend.awrite(path, "x"),
            backend.aread(path),
            backend.aedit(path, "a", "b"),
            backend.als(path),
            backend.agrep("x", path),
            backend.adelete(path),
        ):
            with pytest.raises(ValueError):
                await call
        assert [r.error for r in await backend.aupload_files([(path, b"x")])] == ["invalid_path"], path
        assert [r.error for r in await backend.adownload_files([path])] == ["invalid_path"], path
    assert (await backend.aglob("../*")).error
    assert await backend.workspace.glob("**") == f"[no files match '**' under {backend.workspace.workdir}]"


@pytest.mark.anyio
async def test_sync_methods_work_from_a_worker_thread_of_the_running_loop(backend: WorkspaceBackend) -> None:
    await backend.awrite("/s.txt", "sync\n")
    got = await anyio.to_thread.run_sync(backend.read, "/s.txt")
    assert got.file_data is not None and got.file_data["content"] == "sync\n"
    written = await anyio.to_thread.run_sync(backend.write, "/t.txt", "from a thread\n")
    assert written.error is None
    assert await backend.workspace.read_bytes("t.txt") == b"from a thread\n"


def test_sync_methods_work_without_any_event_loop(tmp_path: Path) -> None:
    backend = deepagents_backend(LocalWorkspace(tmp_path / "ws"))
    results: list[Any] = []
    thread = threading.Thread(
        target=lambda: results.append((backend.write("/x.txt", "plain\n"), backend.read("/x.txt")))
    )
    thread.start()
    thread.join()
    written, read = results[0]
    assert written.error is None
    assert read.file_data["content"] == "plain\n"


@pytest.mark.anyio
async def test_execute_reports_exit_code_and_combined_output(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws", allow_host_commands=True) as ws:
        backend = deepagents_backend(ws)
        assert isinstance(backend, WorkspaceSandboxBackend)
        ok = await backend.aexecute("echo out; echo err >&2; exit 3")
        assert ok.exit_code == 3 and "out" in ok.output and "err" in ok.output
        here = await backend.aexecute("pwd")
        assert here.output.strip() == str(tmp_path / "ws")


@pytest.mark.anyio
async def test_execute_is_offered_exactly_when_the_workspace_runs_commands(backend: WorkspaceBackend) -> None:
    runs_commands = backend.workspace.runs_commands
    assert isinstance(backend, SandboxBackendProtocol) == runs_commands
    if isinstance(backend, WorkspaceSandboxBackend):
        await backend.awrite("/data.txt", "a\nb\nc\n")
        out = await backend.aexecute("wc -l < data.txt")
        assert out.exit_code == 0 and out.output.strip() == "3"


@pytest.mark.anyio
async def test_a_local_workspace_refuses_host_commands_unless_asked(tmp_path: Path) -> None:
    from offloader.core.errors import UnsupportedOperation

    async with LocalWorkspace(tmp_path / "ws") as ws:
        assert not ws.runs_commands
        with pytest.raises(UnsupportedOperation, match="allow_host_commands=True"):
            await ws.exec(["id", "-un"])
        forced = WorkspaceSandboxBackend(ws)  # even a hand-built sandbox backend cannot run them
        out = await forced.aexecute("id -un")
        assert out.exit_code is None and "allow_host_commands" in out.output


@pytest.mark.anyio
async def test_execute_validates_timeout_and_command(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws", allow_host_commands=True) as ws:
        backend = WorkspaceSandboxBackend(ws)
        for bad in (0, -1):
            with pytest.raises(ValueError, match="timeout must be positive"):
                await backend.aexecute("true", timeout=bad)
        with pytest.raises(ValueError):
            WorkspaceSandboxBackend(ws, default_timeout=0)
        empty = await backend.aexecute("  ")
        assert empty.exit_code == 1 and "non-empty" in empty.output


@pytest.mark.anyio
async def test_delete_removes_files_and_folders(backend: WorkspaceBackend) -> None:
    await backend.aupload_files([("/keep.txt", b"k"), ("/drop.txt", b"d"), ("/dir/a.txt", b"a"), ("/dir/b/c", b"c")])
    assert (await backend.adelete("/drop.txt")).path == "/drop.txt"
    assert (await backend.adelete("/dir")).error is None
    missing = await backend.adelete("/dir")
    assert missing.path is None and "not found" in (missing.error or "")
    listing = await backend.als("/")
    assert [e["path"] for e in listing.entries or []] == ["/keep.txt"]
    assert (await backend.adelete("/")).error


@pytest.mark.anyio
async def test_read_reports_total_lines_and_refuses_non_utf8(backend: WorkspaceBackend) -> None:
    await backend.awrite("/n.txt", "".join(f"{i}\n" for i in range(10)))
    window = await backend.aread("/n.txt", offset=2, limit=3)
    assert window.file_data is not None and window.file_data["content"] == "2\n3\n4\n"
    assert (window.total_lines, window.start_line, window.end_line, window.next_offset) == (10, 3, 5, 5)
    await backend.workspace.write_bytes("latin.txt", "café".encode("latin-1"))
    bad = await backend.aread("/latin.txt")
    assert bad.file_data is None and bad.error is not None and "utf-8" in bad.error


def test_ls_of_an_empty_local_folder_is_empty_not_missing(tmp_path: Path) -> None:
    (tmp_path / "ws" / "empty").mkdir(parents=True)
    backend = deepagents_backend(LocalWorkspace(tmp_path / "ws"))
    assert backend.ls("/empty").entries == []
    assert "path_not_found" in (backend.ls("/nope").error or "")
    assert backend.delete("/empty").error is None and not (tmp_path / "ws" / "empty").exists()


@pytest.mark.anyio
async def test_sync_methods_work_inside_the_running_loop(tmp_path: Path) -> None:
    backend = deepagents_backend(LocalWorkspace(tmp_path / "ws"))
    await backend.awrite("/a.txt", "async\n")  # the workspace is now used by this loop
    assert backend.write("/b.txt", "sync in loop\n").error is None  # blocks this loop: runs on the loop thread
    got = backend.read("/b.txt")
    assert got.file_data is not None and got.file_data["content"] == "sync in loop\n"
    assert (await backend.aread("/a.txt")).total_lines == 1
