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
Runner = Callable[[int], Awaitable[Any]]


async def _compare(server: EnvdServer, sides: list[Runner], repeat: int) -> list[Stats]:
    """Run the sides in rotating order (so machine noise hits all alike); per-call stats for each."""
    samples: list[list[tuple[float, int, int]]] = [[] for _ in sides]
    for i in range(repeat):
        for k in range(len(sides)):
            side = (i + k) % len(sides)
            await asyncio.sleep(0.05)  # let the previous call's server-side processes finish reaping
            server.clear()
            start = time.perf_counter()
            await sides[side](i)
            elapsed = time.perf_counter() - start
            samples[side].append((elapsed, server.count(), server.bytes_in + server.bytes_out))
    return [
        (
            statistics.median(r[0] for r in rows),
            sum(r[1] for r in rows) / len(rows),
            sum(r[2] for r in rows) / 1000 / len(rows),
        )
        for rows in samples
    ]


async def main() -> None:
    from agentscope.message import Msg, TextBlock, ToolResultBlock
    from agentscope.workspace._e2b._e2b_backend import E2BBackend
    from agentscope.workspace._e2b._e2b_workspace import E2BWorkspace as AgentScopeE2B

    root = Path(tempfile.mkdtemp(prefix="bench-e2b-"))
    server = EnvdServer(root)
    server.start()
    try:
        ours = E2BWorkspace(debug=True, sandbox_url=server.url)  # default: ledger_batch=16
        unbatched = E2BWorkspace(debug=True, sandbox_url=server.url, ledger_batch=1)
        await ours.open()
        await unbatched.open()
        sandbox = await AsyncSandbox.create(debug=True, sandbox_url=server.url)
        theirs = AgentScopeE2B(workspace_id="bench")
        theirs._sandbox = sandbox
        theirs._backend = E2BBackend(sandbox, workdir=WORKDIR)

        rows: list[tuple[str, list[Stats]]] = []
        for label, payload, repeat in (
            ("tool result, 150 KB JSON", _json_payload(150_000), 32),
            ("tool result, 5 MB log", _log_payload(5_000_000), 8),
        ):

            def ours_runner(ws: E2BWorkspace, session: str, payload: str = payload, label: str = label) -> Runner:
                async def run(i: int) -> None:
                    result = {"type": "tool_result", "tool_use_id": f"{label[-6:]}-{i}", "content": payload}
                    await ws.offload_tool_result(session, result)

                return run

            async def run_theirs(i: int, payload: str = payload, label: str = label) -> None:
                block = ToolResultBlock(id=f"{label[-6:]}-{i}", name="tool", output=[TextBlock(text=payload)])
                await theirs.offload_tool_result("theirs", block)

            sides = [ours_runner(ours, "ours"), ours_runner(unbatched, "unbatched"), run_theirs]
            rows.append((label, await _compare(server, sides, repeat)))

        # offload_context onto a log that already holds ~2 MB: append-in-place vs read + rewrite
        filler = [{"role": "user", "content": "x" * 2000} for _ in range(1000)]
        for ws in (ours, unbatched):
            await ws.offload_context("ctx", filler)
        await theirs.offload_context("ctx", [Msg(name="u", role="user", content=[TextBlock(text="x" * 2000)])] * 1000)

        def ctx_runner(ws: E2BWorkspace) -> Runner:
            async def run(i: int) -> None:
                await ws.offload_context("ctx", [{"role": "user", "content": f"turn {i}"}])

            return run

        async def ctx_theirs(i: int) -> None:
            await theirs.offload_context("ctx", [Msg(name="u", role="user", content=[TextBlock(text=f"turn {i}")])])

        sides = [ctx_runner(ours), ctx_runner(unbatched), ctx_theirs]
        rows.append(("context append onto a 2 MB log", await _compare(server, sides, 16)))
        await ours.close()
        await unbatched.close()
    finally:
        server.stop()

    print(
        "| operation | requests: ours / ours ledger_batch=1 / AgentScope | KB on the wire: ours / AgentScope "
        "| ms: ours / ours ledger_batch=1 / AgentScope | AgentScope / ours |"
    )
    print("|---|---:|---:|---:|---:|")
    for label, ((t_o, r_o, kb_o), (t_u, r_u, _), (t_t, r_t, kb_t)) in rows:
        print(
            f"| {label} | {r_o:.2f} / {r_u:.0f} / {r_t:.0f} | {kb_o:,.0f} / {kb_t:,.0f} "
            f"| {t_o * 1000:.1f} / {t_u * 1000:.1f} / {t_t * 1000:.1f} | {t_t / t_o:.2f}x |"
        )
    print()
    print("Per call: requests (averaged, so a ledger flush every 16 offloads shows as 1/16),")
    print("request+response body KB, median ms. AgentScope keeps no ledger; ours with")
    print("ledger_batch=1 appends each offload's ledger line at once (one more request).")


if __name__ == "__main__":
    asyncio.run(main())
