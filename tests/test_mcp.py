"""``offload mcp``: the real MCP client library talking to the server over stdio.

The server is started exactly as a user would (``python -m offloader.cli mcp
--workdir DIR``) and driven through ``mcp.client.Client``; hostile arguments
must come back as tool errors and touch nothing outside the workdir.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import anyio
import pytest

pytest.importorskip("mcp")

from mcp.client import Client
from mcp.client.stdio import StdioServerParameters, stdio_client

from offloader.integrations.mcp import build_mcp_server, mcp_tools, run_mcp_server
from workspaces import LocalWorkspace

LOG = "".join(f"line {i:04d} ok\n" for i in range(1, 3001)).replace("line 2500 ok", "line 2500 ERROR disk full")


@pytest.fixture(scope="module")
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(scope="module")
def workdir(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("mcp") / "ws"


@pytest.fixture(scope="module")
async def client(workdir: Path, anyio_backend: str) -> AsyncIterator[Client]:
    """One ``offload mcp`` subprocess for the module; its stderr goes to a file (pytest captures sys.stderr)."""
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "offloader.cli", "mcp", "--workdir", str(workdir)]
    )
    with open(workdir.parent / "server.log", "w") as errlog:
        async with Client(stdio_client(params, errlog=errlog)) as c:
            yield c


async def _call(client: Client, name: str, arguments: dict[str, object]) -> tuple[str, bool]:
    result = await client.call_tool(name, arguments)
    (content,) = result.content
    assert content.type == "text"
    return content.text, bool(result.is_error)


async def _offload(client: Client, content: str = LOG) -> str:
    text, is_error = await _call(client, "offload", {"content": content, "name": "build"})
    assert not is_error, text
    return text.split(" at ", 1)[1].split("\n", 1)[0]


@pytest.mark.anyio
async def test_lists_read_grep_glob_retrieve_and_offload(client: Client, workdir: Path) -> None:
    listed = {t.name: t for t in (await client.list_tools()).tools}
    assert sorted(listed) == ["Glob", "Grep", "Read", "offload", "retrieve_offloaded_content"]
    async with LocalWorkspace(workdir) as ws:
        expected = {t.name: t.parameters for t in mcp_tools(ws)}
    assert {name: t.input_schema for name, t in listed.items()} == expected
    assert listed["Read"].annotations is not None and listed["Read"].annotations.read_only_hint
    assert listed["offload"].annotations is not None and not listed["offload"].annotations.read_only_hint


@pytest.mark.anyio
async def test_offload_stores_the_whole_text_in_the_workdir(client: Client, workdir: Path) -> None:
    ref = await _offload(client)
    assert Path(ref).parent.parent == workdir / "sessions"
    assert Path(ref).read_text() == LOG


@pytest.mark.anyio
async def test_read_pages_through_an_offloaded_file(client: Client) -> None:
    ref = await _offload(client)
    text, is_error = await _call(client, "Read", {"path": ref, "offset": 2499, "limit": 2})
    assert not is_error
    assert text.splitlines() == [
        "  2499\tline 2499 ok",
        "  2500\tline 2500 ERROR disk full",
        "[more lines follow; continue with offset=2501]",
    ]


@pytest.mark.anyio
async def test_grep_finds_the_error_line(client: Client) -> None:
    ref = await _offload(client)
    text, is_error = await _call(client, "Grep", {"pattern": "ERROR|FAIL", "path": ref})
    assert not is_error
    assert "  2500: line 2500 ERROR disk full" in text


@pytest.mark.anyio
async def test_glob_lists_offloaded_files(client: Client) -> None:
    ref = await _offload(client)
    text, is_error = await _call(client, "Glob", {"pattern": "sessions/**/*.txt"})
    assert not is_error
    assert ref in text.splitlines()


@pytest.mark.anyio
async def test_retrieve_searches_by_pattern_with_context(client: Client) -> None:
    ref = await _offload(client)
    text, is_error = await _call(
        client, "retrieve_offloaded_content", {"reference": ref, "pattern": "ERROR", "context_lines": 1}
    )
    assert not is_error
    assert "line 2499 ok" in text and "line 2500 ERROR disk full" in text and "line 2501 ok" in text
    assert "line 2498 ok" not in text


@pytest.mark.anyio
@pytest.mark.parametrize(
    ("tool", "arguments", "message"),
    [
        ("Read", {"path": "../../../etc/passwd"}, "outside the workdir"),
        ("Read", {"path": "/etc/passwd"}, "outside the workdir"),
        ("Read", {"path": "sessions/\x00x"}, "NUL"),
        ("Grep", {"pattern": "root", "path": "../.."}, "outside the workdir"),
        ("Glob", {"pattern": "*", "path": "/etc"}, "outside the workdir"),
        ("retrieve_offloaded_content", {"reference": "/etc/passwd"}, "outside the workdir"),
        ("Grep", {"pattern": "(["}, "invalid regular expression"),
        ("Grep", {"pattern": "(a+)+$", "context": 1000}, "context must be between 0 and 50"),
        ("Read", {"path": "x", "limit": -1}, "limit must be a positive integer"),
        ("Read", {"path": "x", "mode": "w"}, "unknown argument"),
        ("Read", {"path": 123}, "path must be a str"),
        ("offload", {"content": ["not", "text"]}, "content must be a string"),
        ("Grep", {}, "missing required argument"),
        ("offload", {"content": "x", "session": ""}, "session must be a non-empty string"),
        ("Write", {"path": "x"}, "unknown tool"),
    ],
)
async def test_hostile_arguments_are_rejected_as_tool_errors(
    client: Client, workdir: Path, tool: str, arguments: dict[str, object], message: str
) -> None:
    text, is_error = await _call(client, tool, arguments)
    assert is_error
    assert message in text


@pytest.mark.anyio
async def test_offload_into_a_traversing_session_stays_inside_the_workdir(client: Client, workdir: Path) -> None:
    ref = await _offload_to_session(client, "../../escape")
    assert Path(ref).resolve().is_relative_to(workdir.resolve())
    assert not (workdir.parent.parent / "escape").exists()


async def _offload_to_session(client: Client, session: str) -> str:
    text, is_error = await _call(client, "offload", {"content": "secret", "session": session})
    assert not is_error, text
    return text.split(" at ", 1)[1].split("\n", 1)[0]


@pytest.mark.anyio
async def test_read_through_a_symlink_leaving_the_workdir_is_refused(
    client: Client, workdir: Path, tmp_path: Path
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("do not read\n")
    (workdir / "link.txt").symlink_to(outside)
    text, is_error = await _call(client, "Read", {"path": "link.txt"})
    assert is_error
    assert "do not read" not in text


@pytest.mark.anyio
async def test_offload_refuses_content_over_its_size_limit(tmp_path: Path) -> None:
    from offloader.integrations.mcp import offload_tool

    async with LocalWorkspace(tmp_path / "ws") as ws:
        outcome = await offload_tool(ws, max_bytes=10).invoke({"content": "x" * 11})
        assert outcome.is_error
        assert "limit is 10 bytes" in outcome.text
        assert not (tmp_path / "ws" / "sessions").exists()


@pytest.mark.anyio
async def test_in_process_server_answers_the_same_tools(tmp_path: Path) -> None:
    async with LocalWorkspace(tmp_path / "ws") as ws, Client(build_mcp_server(ws)) as c:
        names = [t.name for t in (await c.list_tools()).tools]
        assert names == ["Read", "Grep", "Glob", "retrieve_offloaded_content", "offload"]


def test_http_transport_refuses_a_non_loopback_host(tmp_path: Path) -> None:
    with pytest.raises(ValueError, match="loopback only"):
        run_mcp_server(tmp_path, "streamable-http", host="0.0.0.0")
    assert not (tmp_path / "sessions").exists()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port: int = s.getsockname()[1]
        return port


@pytest.mark.anyio
async def test_streamable_http_on_loopback_serves_the_tools(tmp_path: Path) -> None:
    port = _free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "offloader.cli", "mcp", "--workdir", str(tmp_path / "ws"), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=os.environ.copy(),
    )
    try:
        deadline = time.monotonic() + 30
        while True:
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                assert proc.poll() is None, proc.stderr.read().decode() if proc.stderr else ""
                assert time.monotonic() < deadline, "server did not start"
                await anyio.sleep(0.1)
        async with Client(f"http://127.0.0.1:{port}/mcp") as c:
            text = (await c.call_tool("offload", {"content": "over http\n"})).content[0]
            assert text.type == "text" and "Stored 10 bytes" in text.text
    finally:
        proc.terminate()
        proc.wait(timeout=10)


@pytest.mark.anyio
async def test_in_process_server_over_every_workspace_backend(workspace: Any) -> None:
    async with Client(build_mcp_server(workspace)) as c:
        stored = (await c.call_tool("offload", {"content": LOG})).content[0]
        assert stored.type == "text"
        ref = stored.text.split(" at ", 1)[1].split("\n", 1)[0]
        found = (await c.call_tool("retrieve_offloaded_content", {"reference": ref, "pattern": "ERROR"})).content[0]
        assert found.type == "text" and "line 2500 ERROR disk full" in found.text
        refused = await c.call_tool("Read", {"path": "../../etc/passwd"})
        assert refused.is_error
