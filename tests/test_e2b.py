"""E2BWorkspace through the real ``e2b`` SDK, over envd's real wire protocol.

No E2B endpoint is reachable from here, so ``tests/envd_server.py`` stands in
for the cloud sandbox: a loopback server built on the Connect RPC stubs the SDK
ships, running real ``bash -l -c`` processes on a temporary root. The SDK runs
in debug mode (``debug=True, sandbox_url=...``), which skips only the control
plane (create/kill/connect API calls); every file and command operation
travels as it would to a real sandbox: Connect JSON over HTTP/1.1 for the
Filesystem and Process services, plain HTTP for ``/files`` and ``/health``.

Covered here: the request count of each operation (asserted on the recorded
wire traffic), fault mapping (429 and 502 retried with bounded backoff, 507,
a process killed mid-command, a command timeout, the server going away),
shell quoting and symlink confinement, and the server's own conformance to
envd's behaviour through the SDK. Not covered: the control plane (real sandbox
creation, API keys, templates), authentication, HTTP/2 multiplexing, real
disk-full conditions (507 is injected), and latency of the real network.
"""

from __future__ import annotations

import json
import os
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from offloader.core.errors import (
    BackendUnavailable,
    CommandTimeout,
    PathOutsideWorkspace,
)

try:
    from e2b import AsyncSandbox
    from e2b.exceptions import FileNotFoundException

    from tests.envd_server import EnvdServer, RecordedRequest, running_server
    from workspaces.e2b import E2BWorkspace
except ImportError as exc:  # pragma: no cover - the e2b extra is missing
    if os.environ.get("OFFLOAD_REQUIRE_E2B") == "1":
        raise
    pytest.skip(f"the e2b SDK or the test server cannot be imported: {exc}", allow_module_level=True)

pytestmark = pytest.mark.anyio

WORKDIR = "/home/user/workspace"


def _starts(r: RecordedRequest) -> bool:
    return r.path == "/process.Process/Start"


def _uploads(r: RecordedRequest) -> bool:
    return r.is_upload


def _downloads(r: RecordedRequest) -> bool:
    return r.is_download


@pytest.fixture
def server(tmp_path: Path) -> Iterator[EnvdServer]:
    with running_server(tmp_path / "sandbox") as srv:
        yield srv


@pytest.fixture
async def ws(server: EnvdServer) -> AsyncIterator[E2BWorkspace]:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, backoff=0.01) as workspace:
        server.clear()
        yield workspace


def _host(server: EnvdServer, rel: str) -> Path:
    return server.host(f"{WORKDIR}/{rel}")


def _result(tid: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": tid, "content": text}


# ---------------------------------------------------------------- wire traffic


async def test_a_small_offload_is_one_request(ws: E2BWorkspace, server: EnvdServer) -> None:
    ref = await ws.offload_tool_result("s1", _result("t1", "x" * 150_000))
    assert ref == f"{WORKDIR}/sessions/s1/tool_result-t1.txt"
    assert server.count() == server.count(_starts) == 1
    assert _host(server, "sessions/s1/tool_result-t1.txt").read_bytes() == b"x" * 150_000


async def test_a_large_offload_is_exactly_one_upload_plus_a_commit(ws: E2BWorkspace, server: EnvdServer) -> None:
    body = os.urandom(600_000).hex()
    await ws.offload_tool_result("s1", _result("big", body))
    assert server.count(_uploads) == 1
    assert server.count(_starts) == 1
    assert server.count() == 2
    assert _host(server, "sessions/s1/tool_result-big.txt").read_text() == body
    assert not [p for p in _host(server, "").iterdir() if p.name.startswith(".tmp-")]


async def test_buffered_ledger_lines_are_appended_in_one_request_on_flush(ws: E2BWorkspace, server: EnvdServer) -> None:
    for i in range(3):
        await ws.offload_tool_result("s1", _result(f"t{i}", "hello"))
    assert server.count() == 3
    await ws.flush()
    assert server.count() == 4
    lines = _host(server, "sessions/s1/ledger.jsonl").read_text().splitlines()
    assert [json.loads(line)["tool_id"] for line in lines] == ["t0", "t1", "t2"]


async def test_with_ledger_batch_1_each_offload_also_appends_its_ledger_line(server: EnvdServer) -> None:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, ledger_batch=1) as ws:
        server.clear()
        await ws.offload_tool_result("s1", _result("t1", "hello"))
        assert server.count() == server.count(_starts) == 2
        assert _host(server, "sessions/s1/ledger.jsonl").read_text().count("\n") == 1


async def test_offload_context_appends_without_downloading_the_log(ws: E2BWorkspace, server: EnvdServer) -> None:
    for i in range(3):
        await ws.offload_context("s1", [{"role": "user", "content": f"message {i}"}])
    assert server.count(_downloads) == 0
    assert server.count(_uploads) == 0
    assert server.count() == 3  # one append per call (ledger lines are batched)
    lines = _host(server, "sessions/s1/context.jsonl").read_text().splitlines()
    assert [line.count("message") for line in lines] == [1, 1, 1]


async def test_a_ranged_read_transfers_only_the_range(ws: E2BWorkspace, server: EnvdServer) -> None:
    data = os.urandom(1_000_000)
    await ws.write_bytes("blob.bin", data)
    server.clear()
    assert await ws.read_bytes("blob.bin", 500_000, 500_100) == data[500_000:500_100]
    assert await ws.read_bytes("blob.bin", 999_990) == data[999_990:]
    assert server.count(_downloads) == 0
    assert server.count() == 2


async def test_a_whole_file_read_is_one_download(ws: E2BWorkspace, server: EnvdServer) -> None:
    await ws.write_bytes("a.txt", b"hello")
    server.clear()
    assert await ws.read_bytes("a.txt") == b"hello"
    assert server.count() == server.count(_downloads) == 1


async def test_commands_travel_as_connect_json_streams_with_sandbox_headers(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    await ws.write_bytes("a.txt", b"hello")
    request = server.requests[-1]
    assert request.path == "/process.Process/Start"
    assert request.headers["connect-protocol-version"] == "1"
    assert request.headers["content-type"] == "application/connect+json"  # server stream, JSON codec
    assert request.headers["e2b-sandbox-id"] == "debug_sandbox_id"
    assert int(request.headers["connect-timeout-ms"]) > 0


# ---------------------------------------------------------------- writes


async def test_an_exclusive_upload_of_a_large_file_also_refuses_to_overwrite(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    big = os.urandom(300_000)
    assert await ws._write([("big.bin", big)], exclusive=True) == [True]
    assert await ws._write([("big.bin", os.urandom(300_000))], exclusive=True) == [False]
    assert _host(server, "big.bin").read_bytes() == big


async def test_a_replacing_write_swaps_the_file_atomically(ws: E2BWorkspace, server: EnvdServer) -> None:
    await ws.write_bytes("state.json", b'{"v": 1}')
    inode = _host(server, "state.json").stat().st_ino
    await ws.write_bytes("state.json", b'{"v": 2}')
    assert _host(server, "state.json").read_bytes() == b'{"v": 2}'
    assert _host(server, "state.json").stat().st_ino != inode  # renamed into place, never rewritten


async def test_shell_syntax_in_names_and_patterns_stays_literal(ws: E2BWorkspace, server: EnvdServer) -> None:
    name = "odd/$(touch pwned) `id` ; rm -rf x 'q\".txt"
    await ws.write_bytes(name, b"needle\n")
    assert _host(server, name).read_bytes() == b"needle\n"
    assert "needle" in await ws.grep("needle'; touch pwned2; echo '|needle")
    assert not list(_host(server, "").rglob("pwned*"))


async def test_a_symlink_leading_outside_the_workdir_is_refused(
    ws: E2BWorkspace, server: EnvdServer, tmp_path: Path
) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    _host(server, "sessions").mkdir()
    (_host(server, "sessions") / "evil").symlink_to(outside)
    with pytest.raises(PathOutsideWorkspace):
        await ws.write_bytes("sessions/evil/x.txt", b"data")
    with pytest.raises(PathOutsideWorkspace):
        await ws._append("sessions/evil/log.jsonl", b"line\n")
    with pytest.raises(PathOutsideWorkspace):
        await ws._remove("sessions/evil/x", recursive=True)
    with pytest.raises(PathOutsideWorkspace):
        await ws._list("sessions/evil")
    await ws._remove("sessions/evil", recursive=True)  # removes the link itself, never its target
    assert not (_host(server, "sessions") / "evil").is_symlink()
    assert outside.is_dir() and list(outside.iterdir()) == []


# ---------------------------------------------------------------- faults


async def test_grep_exit_status_1_means_no_match_not_an_error(ws: E2BWorkspace) -> None:
    await ws.write_bytes("a.txt", b"alpha\n")
    assert await ws._grep_native("zeta", "", ignore_case=False, glob=None) == []
    assert await ws._grep_native("ALPHA", "", ignore_case=True, glob=None) == ["a.txt"]
    assert "alpha" not in await ws.grep("zeta")


async def test_rate_limited_requests_are_retried_then_succeed(ws: E2BWorkspace, server: EnvdServer) -> None:
    server.fail_next(429, times=2)
    ref = await ws.offload_tool_result("s1", _result("t1", "hello"))
    assert await ws.read_bytes(ref) == b"hello"
    assert server.count() == 2 + 1 + 1  # two refused, then the write, then the read


async def test_a_bad_gateway_answer_is_retried(ws: E2BWorkspace, server: EnvdServer) -> None:
    server.fail_next(502, prefix="/files")
    await ws._write([("big.bin", b"z" * 300_000)])
    assert server.count(_uploads) == 2
    assert _host(server, "big.bin").read_bytes() == b"z" * 300_000


async def test_persistent_rate_limiting_gives_up_after_the_bounded_retries(server: EnvdServer) -> None:
    async with E2BWorkspace(debug=True, sandbox_url=server.url, retries=2, backoff=0.01) as ws:
        server.clear()
        server.fail_next(429, times=100)
        with pytest.raises(BackendUnavailable, match="rate"):
            await ws.write_bytes("a.txt", b"x")
        assert server.count() == 3


async def test_a_sandbox_that_was_not_found_is_unavailable_without_retrying(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    server.fail_next(502, times=10, message="The sandbox debug_sandbox_id was not found")
    with pytest.raises(BackendUnavailable):
        await ws.write_bytes("a.txt", b"x")
    assert server.count(_starts) == 1


async def test_a_file_operation_killed_mid_command_raises_and_commits_nothing(
    ws: E2BWorkspace, server: EnvdServer
) -> None:
    server.kill_next()
    with pytest.raises(InterruptedError):
        await ws._write([("k.txt", b"data")], exclusive=True)
    assert not _host(server, "k.txt").exists()
    assert await ws._write([("k.txt", b"data")], exclusive=True) == [True]


async def test_a_command_killed_mid_way_reports_envd_exit_code(ws: E2BWorkspace, server: EnvdServer) -> None:
    async with anyio.create_task_group() as tg:
        results = []

        async def run() -> None:
            results.append(await ws.exec(["sleep", "30"]))

        tg.start_soon(run)
        with anyio.fail_after(10):
            while not server.running_pids():
                await anyio.sleep(0.02)
        server.kill_processes()
    assert results[0].exit_code == -1


async def test_a_command_past_its_timeout_raises_and_is_ended(ws: E2BWorkspace, server: EnvdServer) -> None:
    with pytest.raises(CommandTimeout):
        await ws.exec(["sleep", "30"], timeout=0.5)
    with anyio.fail_after(5):
        while server.running_pids():
            await anyio.sleep(0.05)


async def test_exec_feeds_stdin_and_returns_exit_code_and_output(ws: E2BWorkspace) -> None:
    result = await ws.exec(["sh", "-c", "cat; echo oops >&2; exit 3"], stdin=b"piped input")
    assert (result.exit_code, result.stdout, result.stderr) == (3, b"piped input", b"oops\n")


async def test_a_server_that_went_away_raises_backend_unavailable(ws: E2BWorkspace, server: EnvdServer) -> None:
    server.stop()
    with anyio.fail_after(30):
        with pytest.raises(BackendUnavailable):
            await ws.offload_tool_result("s1", _result("t1", "hello"))
        with pytest.raises(BackendUnavailable):
            await ws.read_bytes("sessions/s1/ledger.jsonl")


# ---------------------------------------------------------------- lifecycle


async def test_an_attached_sandbox_is_left_running_on_close(server: EnvdServer) -> None:
    sandbox = await AsyncSandbox.create(debug=True, sandbox_url=server.url)
    kills: list[bool] = []

    async def kill(*args: Any, **kwargs: Any) -> bool:  # spy: debug mode has no control plane to kill through
        kills.append(True)
        return True

    sandbox.kill = kill  # type: ignore[method-assign]
    async with E2BWorkspace(sandbox) as ws:
        await ws.write_bytes("a.txt", b"x")
    assert kills == []


async def test_a_created_sandbox_is_killed_on_close(server: EnvdServer) -> None:
    kills: list[bool] = []
    ws = E2BWorkspace(debug=True, sandbox_url=server.url)
    await ws.open()

    async def kill(*args: Any, **kwargs: Any) -> bool:  # spy: debug mode has no control plane to kill through
        kills.append(True)
        return True

    ws.sandbox.kill = kill  # type: ignore[method-assign]
    await ws.close()
    assert kills == [True]


async def test_a_failed_open_kills_the_sandbox_it_created(server: EnvdServer, monkeypatch: pytest.MonkeyPatch) -> None:
    kills: list[bool] = []

    async def kill(self: Any, *args: Any, **kwargs: Any) -> bool:  # spy: debug mode has no control plane
        kills.append(True)
        return True

    monkeypatch.setattr(AsyncSandbox, "kill", kill)
    server.fail_next(502, times=10, message="The sandbox debug_sandbox_id was not found")
    with pytest.raises(BackendUnavailable):
        await E2BWorkspace(debug=True, sandbox_url=server.url).open()
    assert kills == [True]


async def test_open_creates_the_workdir_in_the_sandbox(ws: E2BWorkspace, server: EnvdServer) -> None:
    assert server.host(WORKDIR).is_dir()


def test_a_relative_workdir_is_rejected() -> None:
    with pytest.raises(ValueError, match="absolute"):
        E2BWorkspace(workdir="workspace")


# ---------------------------------------------------------------- server conformance (SDK -> server)


@pytest.fixture
async def sandbox(server: EnvdServer) -> AsyncSandbox:
    return await AsyncSandbox.create(debug=True, sandbox_url=server.url)


async def test_server_make_dir_reports_an_existing_folder(sandbox: AsyncSandbox) -> None:
    assert await sandbox.files.make_dir("/home/user/d/e") is True
    assert await sandbox.files.make_dir("/home/user/d/e") is False


async def test_server_list_dir_honours_depth(sandbox: AsyncSandbox) -> None:
    await sandbox.files.write("/home/user/l/a/b/c.txt", b"c")
    one = {e.path for e in await sandbox.files.list("/home/user/l")}
    two = {e.path for e in await sandbox.files.list("/home/user/l", depth=2)}
    assert one == {"/home/user/l/a"}
    assert two == {"/home/user/l/a", "/home/user/l/a/b"}


async def test_server_answers_not_found_as_envd_does(sandbox: AsyncSandbox) -> None:
    assert await sandbox.files.exists("/home/user/missing") is False
    with pytest.raises(FileNotFoundException):
        await sandbox.files.read("/home/user/missing")
    with pytest.raises(FileNotFoundException):
        await sandbox.files.list("/home/user/missing")


async def test_server_move_and_remove(sandbox: AsyncSandbox, server: EnvdServer) -> None:
    await sandbox.files.write("/home/user/m.txt", b"m")
    info = await sandbox.files.rename("/home/user/m.txt", "/home/user/sub/n.txt")
    assert info.path == "/home/user/sub/n.txt"
    await sandbox.files.remove("/home/user/sub")
    assert not server.host("/home/user/sub").exists()


async def test_server_reports_exit_status_strings(sandbox: AsyncSandbox) -> None:
    from e2b.sandbox.commands.command_handle import CommandExitException

    with pytest.raises(CommandExitException) as info:
        await sandbox.commands.run("echo out; exit 3")
    assert (info.value.exit_code, info.value.error, info.value.stdout) == (3, "exit status 3", "out\n")


async def test_server_lists_and_signals_running_processes(sandbox: AsyncSandbox) -> None:
    handle = await sandbox.commands.run("sleep 30", background=True)
    listed = await sandbox.commands.list()
    assert [p.pid for p in listed] == [handle.pid]
    assert listed[0].args == ["-l", "-c", "sleep 30"]
    assert await sandbox.commands.kill(handle.pid) is True
    from e2b.sandbox.commands.command_handle import CommandExitException

    with pytest.raises(CommandExitException) as info:
        await handle.wait()
    assert (info.value.exit_code, info.value.error) == (-1, "signal: killed")
    assert await sandbox.commands.kill(handle.pid) is False


async def test_server_streams_stdin_to_a_process(sandbox: AsyncSandbox) -> None:
    handle = await sandbox.commands.run("cat", background=True, stdin=True)
    await handle.send_stdin("typed")
    await handle.close_stdin()
    assert (await handle.wait()).stdout == "typed"


async def test_server_accepts_multipart_batches_and_gzip_octet_streams(
    sandbox: AsyncSandbox, server: EnvdServer
) -> None:
    batch = [{"path": "/home/user/u/1.txt", "data": b"1"}, {"path": "/home/user/u/2.txt", "data": b"2"}]
    await sandbox.files.write_files(batch)  # type: ignore[arg-type]
    await sandbox.files.write("/home/user/u/3.txt", b"3" * 1000, gzip=True)
    assert [server.host(f"/home/user/u/{i}.txt").read_bytes()[:1] for i in (1, 2, 3)] == [b"1", b"2", b"3"]
    uploads = [r for r in server.requests if r.is_upload]
    assert uploads[0].headers["content-type"].startswith("multipart/form-data")
    assert uploads[1].headers["content-encoding"] == "gzip"


async def test_server_health_answers_no_content(sandbox: AsyncSandbox) -> None:
    assert await sandbox.is_running() is True


async def test_server_sends_keepalive_events_on_a_quiet_stream(sandbox: AsyncSandbox) -> None:
    from e2b.envd.process import process_pb
    from protobuf import Oneof

    request = process_pb.StartRequest(process=process_pb.ProcessConfig(cmd="/bin/bash", args=["-l", "-c", "sleep 0.5"]))
    kinds = []
    async for response in sandbox.commands._rpc.start(request, headers={"Keepalive-Ping-Interval": "0.1"}):
        assert response.event is not None and isinstance(response.event.event, Oneof)
        kinds.append(response.event.event.field)
    assert kinds[0] == "start" and kinds[-1] == "end"
    assert "keepalive" in kinds
