"""DockerWorkspace against the floor and against AgentScope 2.0.11, on the local engine.

Run from the repository root: ``python benchmarks/bench_docker.py [--reps N]``.
Prints a markdown table. Needs a Docker engine and ``/bin/busybox`` (the test
image is built locally, as the tests do).

* **floor**: one bare ``put_archive`` of the same bytes (one tar, folder exists).
* **ours**: ``DockerWorkspace.offload_tool_result`` (one batched write that is
  exclusive and atomic, plus the ledger line) and ``_write`` alone.
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
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from offloader import TextBlock, ToolResultBlock  # noqa: E402
from tests.docker_support import RequestLog, build_image, engine_client, remove_quietly, start_container  # noqa: E402
from workspaces.docker import DockerWorkspace  # noqa: E402


def _payloads() -> list[tuple[str, str]]:
    records = [{"id": i, "name": f"item-{i}", "tags": ["a", "b"], "score": i * 0.5} for i in range(2_000)]
    json_150k = json.dumps(records, indent=1)[:150_000]
    log_5m = "".join(f"2026-01-01T00:00:{i % 60:02d} INFO step {i} compiled module_{i % 97}.c ok\n" for i in range(90_000))
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


async def _agentscope(container_id: str) -> tuple[Any, Any] | None:
    """AgentScope's DockerWorkspace with its DockerBackend bound to our container, or None."""
    try:
        import aiodocker
        from agentscope.message import ToolResultBlock as ASToolResult  # noqa: F401
        from agentscope.workspace import DockerWorkspace as ASDockerWorkspace
        from agentscope.workspace._docker._docker_backend import DockerBackend
    except ImportError as exc:
        print(f"AgentScope column skipped: {exc}", file=sys.stderr)
        return None
    docker = aiodocker.Docker()
    container = await docker.containers.get(container_id)
    workspace = ASDockerWorkspace()
    workspace._backend = DockerBackend(container, "/workspace")
    return workspace, docker


async def main(reps: int) -> None:
    client = engine_client()
    if client is None:
        raise SystemExit("no Docker engine answers (run .ci/docker-up.sh)")
    log = RequestLog(client)
    container = start_container(client, build_image(client))
    theirs = await _agentscope(container.id)
    rows: list[tuple[str, str, str, str, str]] = []
    try:
        container.exec_run(["mkdir", "-p", "/floor", "/workspace"])
        async with DockerWorkspace(container, client=client, workdir="/ours") as ws:
            for label, text in _payloads():
                data = text.encode()
                floor_t, ours_t, write_t, theirs_t = [], [], [], []
                for i in range(reps):
                    archive = _tar(f"floor-{i}.txt", data)
                    floor_t.append(
                        await _timed(lambda a=archive: anyio.to_thread.run_sync(client.api.put_archive, container.id, "/floor", a))  # type: ignore[misc]
                    )
                    result = ToolResultBlock(id=f"{label[:3]}-{i}", name="bash", content=(TextBlock(text),))
                    log.clear()
                    ours_t.append(await _timed(lambda r=result: ws.offload_tool_result("bench", r)))  # type: ignore[misc]
                    per_offload = (log.total, log.costly)
                    write_t.append(
                        await _timed(lambda i=i: ws._write([(f"w/{label[:3]}-{i}.txt", data)], exclusive=True))  # type: ignore[misc]
                    )
                    if theirs is not None:
                        from agentscope.message import ToolResultBlock as ASToolResult

                        block = ASToolResult(id=f"{label[:3]}-{i}", name="bash", output=text)
                        theirs_t.append(await _timed(lambda b=block: theirs[0].offload_tool_result("bench", b)))  # type: ignore[misc]
                floor = statistics.median(floor_t)
                ours = statistics.median(ours_t)
                write = statistics.median(write_t)
                rows.append((f"offload {label}", "bare put_archive (floor)", f"{floor * 1e3:.0f} ms", "1.00x", "1 / 1"))
                rows.append(
                    (
                        "",
                        "ours: offload_tool_result",
                        f"{ours * 1e3:.0f} ms",
                        f"{ours / floor:.2f}x",
                        f"{per_offload[0]} / {per_offload[1]}",
                    )
                )
                rows.append(("", "ours: the write alone (exclusive)", f"{write * 1e3:.0f} ms", f"{write / floor:.2f}x", "3 / 1"))
                if theirs_t:
                    t = statistics.median(theirs_t)
                    rows.append(("", "AgentScope 2.0.11 offload_tool_result", f"{t * 1e3:.0f} ms", f"{t / floor:.2f}x", "- / 3"))
            rows.extend(await _context_and_read(ws, client, container, theirs, log, reps))
    finally:
        if theirs is not None:
            await theirs[1].close()
        remove_quietly(container)
    print(f"DockerWorkspace on Docker {client.version()['Version']}, busybox image, medians of {reps} runs\n")
    print("| operation | implementation | latency | vs floor | HTTP requests / costly |")
    print("|---|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


async def _context_and_read(
    ws: DockerWorkspace, client: Any, container: Any, theirs: tuple[Any, Any] | None, log: RequestLog, reps: int
) -> list[tuple[str, str, str, str, str]]:
    """Appending one message to a 5 MB context log, and reading 100 lines of a 5 MB file."""
    rows: list[tuple[str, str, str, str, str]] = []
    big = [{"role": "user", "content": "x" * 5_000_000}]
    small = [{"role": "user", "content": "one more message"}]
    await ws.offload_context("ctx", big)
    ours_t = []
    for _ in range(reps):
        log.clear()
        ours_t.append(await _timed(lambda: ws.offload_context("ctx", small)))
    counts = (log.total, log.costly)
    rows.append(("append 1 message to a 5 MB log", "ours: offload_context", f"{statistics.median(ours_t) * 1e3:.0f} ms", "", f"{counts[0]} / {counts[1]}"))
    if theirs is not None:
        from agentscope.message import Msg
        from agentscope.message import TextBlock as ASText

        await theirs[0].offload_context("ctx", [Msg(name="user", role="user", content=[ASText(text="x" * 5_000_000)])])
        msg = [Msg(name="user", role="user", content=[ASText(text="one more message")])]
        t = [await _timed(lambda: theirs[0].offload_context("ctx", msg)) for _ in range(reps)]
        rows.append(("", "AgentScope: read whole file + rewrite it", f"{statistics.median(t) * 1e3:.0f} ms", "", "- / 3"))
    ref = await ws.offload_tool_result("read", ToolResultBlock(id="big", name="bash", content=(TextBlock(_payloads()[1][1]),)))
    read_t = []
    for _ in range(reps):
        log.clear()
        read_t.append(await _timed(lambda: ws.read(ref, offset=45_000, limit=100)))
    counts = (log.total, log.costly)
    rows.append(("Read 100 lines mid 5 MB file", "ours: Read tool (stat + probe + ranged dd)", f"{statistics.median(read_t) * 1e3:.0f} ms", "", f"{counts[0]} / {counts[1]}"))

    def whole() -> bytes:
        stream, _ = client.api.get_archive(container.id, ref)
        return b"".join(stream)

    whole_t = [await _timed(lambda: anyio.to_thread.run_sync(whole)) for _ in range(reps)]
    rows.append(("", "get_archive of the whole file (AgentScope's read_file)", f"{statistics.median(whole_t) * 1e3:.0f} ms", "", "1 / 1"))
    return rows


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per measurement (median reported)")
    anyio.run(main, parser.parse_args().reps)
