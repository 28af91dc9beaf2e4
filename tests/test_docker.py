"""DockerWorkspace on a real engine: engine cost, container lifecycle, safety and faults.

The behavioural suite shared with every backend runs through
``tests/backends/docker.py``; this file covers what only a container has.
Images are built locally from the host's static busybox (``tests/docker_support``).
Most tests share one container (a fresh workdir each); fault tests that break
their container get their own.
"""

from __future__ import annotations

import json
import secrets
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import pytest

from offloader import Message, TextBlock, ToolResultBlock
from tests.conftest import require
from tests.docker_support import (
    GNU,
    GNU_NO_FIND,
    EngineProxy,
    RequestLog,
    build_image,
    engine_client,
    remove_quietly,
    start_container,
)
from workspaces import (
    BackendUnavailable,
    CommandTimeout,
    UnsupportedOperation,
)
from workspaces.docker import DockerWorkspace

pytestmark = pytest.mark.anyio


@pytest.fixture(scope="module")
def client() -> Any:
    found = engine_client()
    if found is None:
        require("OFFLOAD_REQUIRE_DOCKER", "no Docker engine answers (start one with .ci/docker-up.sh)")
    return found


@pytest.fixture(scope="module")
def image(client: Any) -> str:
    return build_image(client)


@pytest.fixture(scope="module")
def container(client: Any, image: str) -> Iterator[Any]:
    started = start_container(client, image)
    yield started
    remove_quietly(started)


@pytest.fixture
def own_container(client: Any, image: str) -> Iterator[Any]:
    """A container this test may stop or remove."""
    started = start_container(client, image)
    yield started
    remove_quietly(started)


def _workdir() -> str:
    return f"/ws/t-{secrets.token_hex(4)}"


@pytest.fixture
async def ws(client: Any, container: Any) -> AsyncIterator[DockerWorkspace]:
    async with DockerWorkspace(container, workdir=_workdir(), client=client) as opened:
        yield opened


def _sh(container: Any, script: str) -> str:
    """Run a shell line in the container the way an agent's own tool would; return stdout."""
    code, out = container.exec_run(["sh", "-c", script])
    assert code == 0, out
    return str(out.decode())


def _result(tid: str, text: str) -> ToolResultBlock:
    return ToolResultBlock(id=tid, name="bash", content=(TextBlock(text),))


# ------------------------------------------------------------ lifecycle


async def test_creates_a_container_from_the_image_and_removes_it_on_close(client: Any, image: str) -> None:
    import docker.errors

    async with DockerWorkspace(image=image, client=client) as ws:
        created = ws.container
        assert client.containers.get(created.id).status == "running"
        ref = await ws.offload_tool_result("s", _result("t", "kept in the container"))
        assert ref.startswith("/workspace/sessions/s/")
    with pytest.raises(docker.errors.NotFound):
        client.containers.get(created.id)


async def test_attaching_by_name_leaves_the_container_running(client: Any, container: Any) -> None:
    async with DockerWorkspace(container.name, workdir=_workdir(), client=client) as ws:
        await ws.write_bytes("a.txt", b"x")
    container.reload()
    assert container.status == "running"


async def test_the_reference_is_the_path_the_agents_shell_sees(ws: DockerWorkspace, container: Any) -> None:
    ref = await ws.offload_tool_result("s1", _result("call_1", "build failed: error 42"))
    assert ref == f"{ws.workdir}/sessions/s1/tool_result-call_1.txt"
    assert _sh(container, f"cat {ref}") == "build failed: error 42"


# ------------------------------------------------------------ engine cost


async def test_a_batch_of_files_in_new_folders_costs_one_engine_operation(client: Any, container: Any) -> None:
    log = RequestLog(client)
    async with DockerWorkspace(container, workdir=_workdir(), client=client) as ws:
        log.clear()
        written = await ws._write([("a/b/one.txt", b"1"), ("c/two.txt", b"2"), ("three.txt", b"3")], exclusive=True)
    assert written == [True, True, True]
    assert log.costly == 1  # one exec start: create and inspect are the only other requests
    assert log.total == 3


async def test_an_offload_costs_one_engine_operation(client: Any, container: Any) -> None:
    log = RequestLog(client)
    async with DockerWorkspace(container, workdir=_workdir(), client=client) as ws:
        log.clear()
        await ws.offload_tool_result("s", _result("t", "x" * 150_000))
        assert log.costly == 1  # the ledger line waits for its batch
        await ws.flush()
        assert log.costly == 2
        assert b'"tool_id":"t"' in await ws.read_bytes("sessions/s/ledger.jsonl")


async def test_with_ledger_batch_1_an_offload_costs_a_write_and_a_ledger_append(client: Any, container: Any) -> None:
    log = RequestLog(client)
    async with DockerWorkspace(container, workdir=_workdir(), client=client, ledger_batch=1) as ws:
        log.clear()
        await ws.offload_tool_result("s", _result("t", "x" * 150_000))
        assert log.costly == 2


async def test_written_files_get_a_real_mtime_and_mode_0644(ws: DockerWorkspace, container: Any) -> None:
    before = time.time()
    await ws.write_bytes("f.txt", b"data")
    mode, mtime = _sh(container, f"stat -c '%a %Y' {ws.workdir}/f.txt").split()
    assert mode == "644"
    assert before - 2 <= int(mtime) <= time.time() + 2


# ------------------------------------------------------------ safety


async def test_a_shell_looking_pattern_is_only_a_pattern(ws: DockerWorkspace, container: Any) -> None:
    await ws.write_bytes("notes.txt", b"plain text\n")
    for pattern in ("'; touch /tmp/pwned #", "$(touch /tmp/pwned)", "`touch /tmp/pwned`"):
        assert (await ws.grep(pattern)).startswith("[no matches")
        assert (await ws.glob(pattern)).startswith("[no files")
    assert _sh(container, "[ -e /tmp/pwned ] && echo created || echo absent") == "absent\n"
    assert await ws.read_bytes("notes.txt") == b"plain text\n"


async def test_the_grep_prefilter_runs_in_the_container(ws: DockerWorkspace) -> None:
    await ws.write_bytes("a/hit.txt", b"the needle is here\n")
    await ws.write_bytes("a/other.txt", b"FAILED twice\n")
    await ws.write_bytes("a/miss.txt", b"nothing\n")
    assert await ws._grep_native("needle", "a", ignore_case=False, glob=None) == ["a/hit.txt"]
    assert await ws._grep_native("NEEDLE", "a", ignore_case=True, glob=None) == ["a/hit.txt"]
    assert await ws._grep_native("ne+dle|FAIL(ED)?", "a", ignore_case=False, glob=None) is None  # a group
    assert sorted(await ws._grep_native("ne+dle|FAILED", "a", ignore_case=False, glob=None) or []) == [
        "a/hit.txt",
        "a/other.txt",
    ]
    assert await ws._grep_native("[a-z]+", "a", ignore_case=False, glob=None) is None  # nothing provable


async def test_the_event_loop_keeps_running_during_an_engine_call(ws: DockerWorkspace) -> None:
    ticks = 0

    async def tick() -> None:
        nonlocal ticks
        while True:
            ticks += 1
            await anyio.sleep(0.01)

    async with anyio.create_task_group() as tg:
        tg.start_soon(tick)
        await ws.exec(["sleep", "1"])
        tg.cancel_scope.cancel()
    assert ticks >= 20


# ------------------------------------------------------------ faults


async def test_a_stopped_container_raises_backend_unavailable(client: Any, own_container: Any) -> None:
    async with DockerWorkspace(own_container, client=client) as ws:
        await ws.write_bytes("a.txt", b"x")
        own_container.kill()
        with pytest.raises(BackendUnavailable, match="not running"):
            await ws.read_bytes("a.txt")


async def test_a_removed_container_raises_backend_unavailable(client: Any, own_container: Any) -> None:
    async with DockerWorkspace(own_container, client=client) as ws:
        await ws.write_bytes("a.txt", b"x")
        own_container.remove(force=True)
        with pytest.raises(BackendUnavailable, match="no longer exists"):
            await ws.offload_tool_result("s", _result("t", "lost?"))


async def test_an_unreachable_engine_raises_backend_unavailable(tmp_path: Any) -> None:
    import docker

    nowhere = docker.DockerClient(base_url=f"unix://{tmp_path}/no-engine.sock", version="1.41", timeout=5)
    with pytest.raises(BackendUnavailable, match="unreachable"):
        async with DockerWorkspace(image="busybox", client=nowhere):
            pass


async def test_an_engine_that_goes_away_mid_session_raises_backend_unavailable(
    client: Any, container: Any, tmp_path: Any
) -> None:
    import docker

    proxy = EngineProxy(str(tmp_path / "engine.sock"))
    via_proxy = docker.DockerClient(base_url=proxy.url, version="1.41", timeout=10)
    try:
        async with DockerWorkspace(container.id, workdir=_workdir(), client=via_proxy) as ws:
            await ws.write_bytes("a.txt", b"x")
            proxy.stop()
            with pytest.raises(BackendUnavailable, match="unreachable"):
                await ws.read_bytes("a.txt")
    finally:
        proxy.stop()


async def test_a_missing_image_is_named(client: Any) -> None:
    with pytest.raises(BackendUnavailable, match="offloader-test/absent:0"):
        async with DockerWorkspace(image="offloader-test/absent:0", client=client):
            pass


async def test_a_container_that_cannot_start_is_removed_again(client: Any, image: str) -> None:
    label = f"offloader-test-start-{secrets.token_hex(3)}"
    ws = DockerWorkspace(
        image=image, client=client, command=["/no/such/program"], create_kwargs={"labels": {label: "1"}}
    )
    with pytest.raises(BackendUnavailable):
        await ws.open()
    assert client.containers.list(all=True, filters={"label": label}) == []


async def test_an_image_without_find_fails_listing_with_a_clear_error(client: Any) -> None:
    lean = build_image(client, GNU_NO_FIND)
    async with DockerWorkspace(image=lean, client=client, create_kwargs={"labels": {"offloader-test": "1"}}) as ws:
        ref = await ws.offload_tool_result("s", _result("t", "offloading needs no find"))
        assert await ws.read_bytes(ref) == b"offloading needs no find"
        with pytest.raises(UnsupportedOperation, match="lacks find"):
            await ws.glob("**/*.txt")


async def test_a_command_over_its_time_limit_raises_command_timeout(ws: DockerWorkspace) -> None:
    started = time.monotonic()
    with pytest.raises(CommandTimeout):
        await ws.exec(["sleep", "10"], timeout=0.5)
    assert time.monotonic() - started < 5


async def test_gnu_tools_work_as_well_as_busybox(client: Any) -> None:
    gnu = build_image(client, GNU)
    async with DockerWorkspace(image=gnu, client=client, create_kwargs={"labels": {"offloader-test": "1"}}) as ws:
        ref = await ws.offload_tool_result("s", _result("t", "alpha\nneedle here\nomega"))
        await ws.offload_context("s", [{"role": "user", "content": "hello"}])
        assert await ws.read_bytes(ref, 6, 12) == b"needle"
        assert "needle here" in await ws.grep("needle")
        assert ref in await ws.glob("**/*.txt")
        assert await ws._write([(ws.relative(ref), b"other")], exclusive=True) == [False]


async def test_files_belong_to_the_user_the_workspace_runs_as(client: Any, container: Any) -> None:
    workdir = f"/tmp/as-nobody-{secrets.token_hex(3)}"
    async with DockerWorkspace(container, workdir=workdir, client=client, user="65534:65534") as ws:
        ref = await ws.offload_tool_result("s", _result("t", "owned"))
        await ws.offload_context("s", [{"role": "user", "content": "hi"}])
    owners = _sh(container, f"stat -c '%u:%g' {ref} {workdir}/sessions/s/context.jsonl").split()
    assert owners == ["65534:65534", "65534:65534"]


async def test_a_paused_container_fails_clearly_and_loses_nothing(client: Any, own_container: Any) -> None:
    from offloader.core.messages import Message, TextBlock, ToolResultBlock

    async with DockerWorkspace(own_container.id, workdir=_workdir(), client=client, ledger_batch=1) as ws:
        ref = await ws.offload_tool_result("s", ToolResultBlock("t0", "bash", (TextBlock("before"),)))
        await ws.offload_context("s", [Message("user", (TextBlock("one"),))])
        await anyio.to_thread.run_sync(own_container.pause)
        try:
            with pytest.raises((BackendUnavailable, OSError)) as failed:
                await ws.offload_context("s", [Message("user", (TextBlock("lost?"),))])
            assert "paused" in str(failed.value).lower() or isinstance(failed.value, BackendUnavailable)
        finally:
            await anyio.to_thread.run_sync(own_container.unpause)
        await ws.offload_context("s", [Message("user", (TextBlock("two"),))])
        lines = (await ws.read_bytes("sessions/s/context.jsonl")).decode().splitlines()
        assert len(lines) == 2 and all(isinstance(json.loads(x), dict) for x in lines)
        assert '"one"' in lines[0] and '"two"' in lines[1]  # the append refused while paused left nothing
        assert await ws.read_bytes(ref) == b"before"
        assert not [f for f in await ws._list("sessions") if "/.tmp-" in f.path]


async def test_a_script_whose_stdin_stops_arriving_gives_up_and_leaves_no_temp_file(
    ws: DockerWorkspace, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An engine that died mid-send under live-restore leaves a command's stdin open and silent:
    the script's ``timeout`` ends it (instead of a process blocked forever beside a temp file)."""
    import threading

    from workspaces import _docker_engine

    def never_send(sock: Any, data: bytes) -> threading.Thread:
        thread = threading.Thread(target=lambda: None)
        thread.start()
        return thread

    await ws.offload_context("s", [Message("user", (TextBlock("kept"),))])
    monkeypatch.setattr(_docker_engine, "send_stdin", never_send)
    monkeypatch.setattr(ws, "_timeout", 1.0)  # the scripts' stdin limit becomes 2 s
    with anyio.fail_after(15), pytest.raises(OSError):
        await ws._append("sessions/s/context.jsonl", b'{"never": 1}\n')
    monkeypatch.undo()
    assert (await ws.read_bytes("sessions/s/context.jsonl")).count(b"\n") == 1
    assert not [f.path for f in await ws._list("sessions") if "/.tmp-" in f"/{f.path}"]


async def test_an_append_after_a_dead_writers_torn_line_cuts_it_instead_of_fusing(
    ws: DockerWorkspace, container: Any
) -> None:
    await ws.offload_context("s", [Message("user", (TextBlock("earlier"),))])
    log = f"{ws.workdir}/sessions/s/context.jsonl"
    _sh(container, f'printf \'%s\' \'{{"role": "user", "con\' >> {log}')  # a writer killed mid-line
    await ws.offload_context("s", [Message("user", (TextBlock("next"),))])
    lines = (await ws.read_bytes("sessions/s/context.jsonl")).decode().splitlines()
    assert [json.loads(line)["content"][0]["text"] for line in lines] == ["earlier", "next"]


def test_output_that_comes_after_the_engine_reports_the_exit_is_read() -> None:
    """No engine needed: a socket pair stands in for the exec stream, and the output arrives only once the
    command is reported as exited (the engine forwards a command's last output after its exit status)."""
    import socket

    from workspaces import _docker_engine

    ours, engine = socket.socketpair()
    try:

        def finished() -> bool:
            engine.sendall(b"1\n")  # the command's last line, forwarded late
            return True

        assert _docker_engine.read_all(ours, time.monotonic() + 10, finished) == b"1\n"
    finally:
        ours.close()
        engine.close()
