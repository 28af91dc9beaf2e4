"""E2BWorkspace vs AgentScope 2.0.11's E2B workspace: requests and latency per offload.

Both run the real ``e2b`` SDK in debug mode against ``tests/envd_server.py`` (the
envd protocol server; no E2B endpoint is reachable here), in one process, on
the same payloads. AgentScope's own ``offload_tool_result`` / ``offload_context``
code runs unchanged on its ``E2BBackend`` bound to the same sandbox (its
``initialize()`` would install a gateway inside the sandbox, which is
irrelevant to offloading and impossible offline).

Requests are counted by the server (every HTTP request envd would receive).
Loopback latency is a floor: against a real sandbox each request also pays the
network round trip (tens of milliseconds), so the request ratio is the one
that carries over.

Run: ``python benchmarks/bench_e2b.py``
"""

from __future__ import annotations

import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from e2b import AsyncSandbox

from tests.envd_server import EnvdServer
from workspaces.e2b import E2BWorkspace

WORKDIR = "/home/user/workspace"


def _json_payload(size: int) -> str:
    rows: list[str] = []
    i = 0
    while sum(len(r) for r in rows) < size:
        rows.append(json.dumps({"id": i, "name": f"item-{i}", "tags": ["a", "b"], "score": i * 0.5}))
        i += 1
    return "[" + ",".join(rows) + "]"


def _log_payload(size: int) -> str:
    line = "2026-01-01T00:00:00Z INFO compiling module {i} ok\n"
    out: list[str] = []
    n = i = 0
    while n < size:
        text = line.format(i=i)
        out.append(text)
        n += len(text)
        i += 1
    return "".join(out)


Stats = tuple[float, float, float]  # median seconds, requests, body KB on the wire (per call)


async def _compare(
    server: EnvdServer,
    ours: Callable[[int], Awaitable[Any]],
    theirs: Callable[[int], Awaitable[Any]],
    repeat: int,
) -> tuple[Stats, Stats]:
    """Run both sides alternately (so machine noise hits both alike); per-call stats for each."""
    samples: dict[int, list[tuple[float, int, int]]] = {0: [], 1: []}
    for i in range(repeat):
        order = [(0, ours), (1, theirs)] if i % 2 == 0 else [(1, theirs), (0, ours)]
        for side, run in order:
            await asyncio.sleep(0.05)  # let the previous call's server-side processes finish reaping
            server.clear()
            start = time.perf_counter()
            await run(i)
            elapsed = time.perf_counter() - start
            samples[side].append((elapsed, server.count(), server.bytes_in + server.bytes_out))

    def stats(rows: list[tuple[float, int, int]]) -> Stats:
        return (
            statistics.median(r[0] for r in rows),
            sum(r[1] for r in rows) / len(rows),
            sum(r[2] for r in rows) / 1000 / len(rows),
        )

    return stats(samples[0]), stats(samples[1])


async def main() -> None:
    from agentscope.message import Msg, TextBlock, ToolResultBlock
    from agentscope.workspace._e2b._e2b_backend import E2BBackend
    from agentscope.workspace._e2b._e2b_workspace import E2BWorkspace as AgentScopeE2B

    root = Path(tempfile.mkdtemp(prefix="bench-e2b-"))
    server = EnvdServer(root)
    server.start()
    try:
        ours = E2BWorkspace(debug=True, sandbox_url=server.url)
        await ours.open()
        sandbox = await AsyncSandbox.create(debug=True, sandbox_url=server.url)
        theirs = AgentScopeE2B(workspace_id="bench")
        theirs._sandbox = sandbox
        theirs._backend = E2BBackend(sandbox, workdir=WORKDIR)

        rows: list[tuple[str, Stats, Stats]] = []
        for label, payload, repeat in (
            ("tool result, 150 KB JSON", _json_payload(150_000), 21),
            ("tool result, 5 MB log", _log_payload(5_000_000), 7),
        ):

            async def run_ours(i: int, payload: str = payload, label: str = label) -> None:
                result = {"type": "tool_result", "tool_use_id": f"{label[-6:]}-{i}", "content": payload}
                await ours.offload_tool_result("ours", result)

            async def run_theirs(i: int, payload: str = payload, label: str = label) -> None:
                block = ToolResultBlock(id=f"{label[-6:]}-{i}", name="tool", output=[TextBlock(text=payload)])
                await theirs.offload_tool_result("theirs", block)

            async def write_ours(i: int, payload: str = payload, label: str = label) -> None:
                # the content step of our offload alone (what AgentScope's offload does: no ledger)
                name = f"sessions/ours/tool_result-{label[-6:]}-w{i}.txt"
                await ours._write([(name, payload.encode())], exclusive=True)

            rows.append((label, *await _compare(server, run_ours, run_theirs, repeat)))
            rows.append((f"{label}, content only", *await _compare(server, write_ours, run_theirs, repeat)))

        # offload_context onto a log that already holds ~2 MB: append-in-place vs read + rewrite
        filler = [{"role": "user", "content": "x" * 2000} for _ in range(1000)]
        await ours.offload_context("ctx", filler)
        await theirs.offload_context("ctx", [Msg(name="u", role="user", content=[TextBlock(text="x" * 2000)])] * 1000)

        async def ctx_ours(i: int) -> None:
            await ours.offload_context("ctx", [{"role": "user", "content": f"turn {i}"}])

        async def ctx_theirs(i: int) -> None:
            await theirs.offload_context("ctx", [Msg(name="u", role="user", content=[TextBlock(text=f"turn {i}")])])

        rows.append(("context append onto a 2 MB log", *await _compare(server, ctx_ours, ctx_theirs, 15)))
        await ours.close()
    finally:
        server.stop()

    print("| operation | requests: ours / AgentScope | KB on the wire | ms: ours / AgentScope | time ratio |")
    print("|---|---:|---:|---:|---:|")
    for label, (t_o, r_o, kb_o), (t_t, r_t, kb_t) in rows:
        print(
            f"| {label} | {r_o:.0f} / {r_t:.0f} | {kb_o:,.0f} / {kb_t:,.0f} "
            f"| {t_o * 1000:.1f} / {t_t * 1000:.1f} | {t_t / t_o:.2f}x |"
        )
    print()
    print("Per call: requests, request+response body KB, median ms; time ratio = AgentScope / ours.")
    print("A full offload of ours includes one request for the ledger line (AgentScope keeps no ledger);")
    print("'content only' rows time our exclusive content write alone against the same AgentScope offload.")


if __name__ == "__main__":
    asyncio.run(main())
