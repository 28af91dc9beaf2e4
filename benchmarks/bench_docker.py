"""DockerWorkspace against the floor and against AgentScope 2.0.11, on the local engine.

Run from the repository root: ``python benchmarks/bench_docker.py [--reps N]``.
Prints a markdown table. Needs a Docker engine and ``/bin/busybox`` (the test
image is built locally, as the tests do).

* **floor**: one bare ``put_archive`` of the same bytes (one tar, folder exists).
* **ours**: ``DockerWorkspace.offload_tool_result`` as configured by default
  (one exclusive, atomic batch write; the ledger line waits for its batch of 16)
  and with ``ledger_batch=1`` (plus one append per offload).
* **AgentScope**: ``agentscope.workspace.DockerWorkspace.offload_tool_result``
  with its own ``DockerBackend`` (aiodocker) bound to the same container. Its
  provisioning (building an image with python3 and a pip-installed MCP gateway)
  needs a registry and network, so it is skipped; the offload code path measured
  is AgentScope's own, unchanged.

Engine requests are counted on the HTTP session (``RequestLog``); "costly" ones
make the engine enter the container (exec start, archive put/get), ~50-70 ms each.
Timings are medians of interleaved repetitions, so machine load hits every
column alike.
"""

from __future__ import annotations

import argparse
import io
import json
import statistics
import sys
import tarfile
import time
from collections.abc import Awaitable, Callable
from functools import partial
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from offloader import TextBlock, ToolResultBlock
from tests.docker_support import RequestLog, build_image, engine_client, remove_quietly, start_container
from workspaces.docker import DockerWorkspace


def _payloads() -> list[tuple[str, str]]:
    records = [{"id": i, "name": f"item-{i}", "tags": ["a", "b"], "score": i * 0.5} for i in range(2_000)]
    json_150k = json.dumps(records, indent=1)[:150_000]
    line = "2026-01-01T00:00:{:02d} INFO step {} compiled module_{}.c ok\n"
    log_5m = "".join(line.format(i % 60, i, i % 97) for i in range(90_000))
    return [("150 KB JSON", json_150k), ("5 MB log", log_5m[:5_000_000])]


def _tar(name: str, data: bytes) -> bytes:
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), int(time.time()), 0o644
        tar.addfile(info, io.BytesIO(data))
    return buf.getvalue()


async def _timed(fn: Callable[[], Awaitable[Any]]) -> float:
    start = time.perf_counter()
    await fn()
    return time.perf_counter() - start


Row = tuple[str, str, str, str, str]
_THEIR_REQUESTS: list[str] = []  # paths of AgentScope's (aiodocker) requests, for counting


def _their_counts(runs: int = 1) -> str:
    costly = sum(1 for path in _THEIR_REQUESTS if path.endswith(("/start", "/archive")))
    return _per_run(len(_THEIR_REQUESTS), costly, runs)


def _per_run(total: int, costly: int, runs: int) -> str:
    """Requests per operation, averaged over the runs (batched ledger flushes included)."""
    return f"{total / runs:.3g} / {costly / runs:.3g}"


def _row(operation: str, implementation: str, times: list[float], floor: float | None, requests: str) -> Row:
    median = statistics.median(times)
    ratio = f"{median / floor:.2f}x" if floor else ""
    return (operation, implementation, f"{median * 1e3:.0f} ms", ratio, requests)


async def _agentscope(container_id: str) -> tuple[Any, Any] | None:
    """AgentScope's DockerWorkspace with its own DockerBackend bound to our container, or None."""
    try:
        import aiodocker
        from agentscope.workspace import DockerWorkspace as ASDockerWorkspace
        from agentscope.workspace._docker._docker_backend import DockerBackend
    except ImportError as exc:
        print(f"AgentScope column skipped: {exc}", file=sys.stderr)
        return None
    engine = aiodocker.Docker()
    original = engine._do_query

    async def counting(path: Any, method: str, **kwargs: Any) -> Any:
        _THEIR_REQUESTS.append(str(path))
        return await original(path, method, **kwargs)

    engine._do_query = counting  # type: ignore[method-assign]
    container = await engine.containers.get(container_id)
    workspace = ASDockerWorkspace()
    workspace._backend = DockerBackend(container, "/workspace")  # what its initialize() binds after provisioning
    return workspace, engine


async def _offloads(
    ws: DockerWorkspace,
    unbatched: DockerWorkspace,
    client: Any,
    container: Any,
    theirs: Any,
    log: RequestLog,
    reps: int,
) -> list[Row]:
    rows: list[Row] = []
    for label, text in _payloads():
        data = text.encode()
        floor_t: list[float] = []
        ours_t: list[float] = []
        unbatched_t: list[float] = []
        theirs_t: list[float] = []
        ours_n = [0, 0]
        unbatched_n = [0, 0]
        their_n = [0, 0]
        for i in range(reps):
            put = partial(anyio.to_thread.run_sync, client.api.put_archive, container.id, "/floor", _tar(f"f{i}", data))
            floor_t.append(await _timed(put))
            result = ToolResultBlock(id=f"{label[:3]}-{i}", name="bash", content=(TextBlock(text),))
            log.clear()
            ours_t.append(await _timed(partial(ws.offload_tool_result, "bench", result)))
            ours_n = [ours_n[0] + log.total, ours_n[1] + log.costly]
            log.clear()
            unbatched_t.append(await _timed(partial(unbatched.offload_tool_result, "bench", result)))
            unbatched_n = [unbatched_n[0] + log.total, unbatched_n[1] + log.costly]
            if theirs is not None:
                from agentscope.message import ToolResultBlock as ASToolResult

                block = ASToolResult(id=f"{label[:3]}-{i}", name="bash", output=text)
                _THEIR_REQUESTS.clear()
                theirs_t.append(await _timed(partial(theirs.offload_tool_result, "bench", block)))
                costly = sum(1 for path in _THEIR_REQUESTS if path.endswith(("/start", "/archive")))
                their_n = [their_n[0] + len(_THEIR_REQUESTS), their_n[1] + costly]
        floor = statistics.median(floor_t)
        rows.append(_row(f"offload {label}", "bare put_archive (the floor)", floor_t, floor, "1 / 1"))
        rows.append(
            _row(
                "",
                "ours: offload_tool_result (default, ledger lines batched)",
                ours_t,
                floor,
                _per_run(ours_n[0], ours_n[1], reps),
            )
        )
        rows.append(
            _row(
                "",
                "ours: offload_tool_result, ledger_batch=1",
                unbatched_t,
                floor,
                _per_run(unbatched_n[0], unbatched_n[1], reps),
            )
        )
        if theirs_t:
            rows.append(
                _row(
                    "", "AgentScope 2.0.11 offload_tool_result", theirs_t, floor, _per_run(their_n[0], their_n[1], reps)
                )
            )
    return rows


async def _context(ws: DockerWorkspace, theirs: Any, log: RequestLog, reps: int) -> list[Row]:
    """Appending one message to a context log that already holds 5 MB."""
    await ws.offload_context("ctx", [{"role": "user", "content": "x" * 5_000_000}])
    ours_t: list[float] = []
    log.clear()
    for _ in range(reps):
        ours_t.append(await _timed(partial(ws.offload_context, "ctx", [{"role": "user", "content": "one more"}])))
    rows = [
        _row(
            "append 1 message to a 5 MB context log",
            "ours: offload_context",
            ours_t,
            None,
            _per_run(log.total, log.costly, reps),
        )
    ]
    if theirs is not None:
        from agentscope.message import Msg
        from agentscope.message import TextBlock as ASText

        await theirs.offload_context("ctx", [Msg(name="user", role="user", content=[ASText(text="x" * 5_000_000)])])
        msg = [Msg(name="user", role="user", content=[ASText(text="one more")])]
        theirs_t = []
        _THEIR_REQUESTS.clear()
        for _ in range(reps):
            theirs_t.append(await _timed(partial(theirs.offload_context, "ctx", msg)))
        rows.append(_row("", "AgentScope: get_archive whole log, rewrite it", theirs_t, None, _their_counts(reps)))
    return rows


async def _reads(ws: DockerWorkspace, client: Any, container: Any, log: RequestLog, reps: int) -> list[Row]:
    """Reading 100 lines of a 5 MB offloaded log, near its start and deep inside it."""
    text = _payloads()[1][1]
    ref = await ws.offload_tool_result("read", ToolResultBlock(id="big", name="bash", content=(TextBlock(text),)))
    rows = []
    for where, offset in (("line 1,000", 1_000), ("line 45,000 (2.5 MB in)", 45_000)):
        times: list[float] = []
        log.clear()
        for _ in range(reps):
            times.append(await _timed(partial(ws.read, ref, offset=offset, limit=100)))
        rows.append(
            _row(
                f"Read 100 lines at {where}",
                "ours: Read tool (stat, probe, 1 MB dd windows)",
                times,
                None,
                _per_run(log.total, log.costly, reps),
            )
        )

    def whole() -> bytes:
        stream, _ = client.api.get_archive(container.id, ref)
        return b"".join(stream)

    whole_t = [await _timed(partial(anyio.to_thread.run_sync, whole)) for _ in range(reps)]
    rows.append(_row("", "get_archive of the whole 5 MB file (AgentScope's read_file)", whole_t, None, "1 / 1"))
    return rows


async def main(reps: int) -> None:
    client = engine_client()
    if client is None:
        raise SystemExit("no Docker engine answers (run .ci/docker-up.sh)")
    log = RequestLog(client)
    container = start_container(client, build_image(client))
    agentscope = await _agentscope(container.id)
    theirs = agentscope[0] if agentscope else None
    rows: list[Row] = []
    try:
        container.exec_run(["mkdir", "-p", "/floor", "/workspace"])
        async with (
            DockerWorkspace(container, client=client, workdir="/ours") as ws,
            DockerWorkspace(container, client=client, workdir="/ours1", ledger_batch=1) as unbatched,
        ):
            rows += await _offloads(ws, unbatched, client, container, theirs, log, reps)
            rows += await _context(ws, theirs, log, reps)
            rows += await _reads(ws, client, container, log, reps)
    finally:
        if agentscope is not None:
            await agentscope[1].close()
        remove_quietly(container)
    print(f"DockerWorkspace on Docker {client.version()['Version']}, busybox image, medians of {reps} runs\n")
    print("| operation | implementation | latency | vs floor | HTTP requests / costly |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per measurement (median reported)")
    anyio.run(main, parser.parse_args().reps)
