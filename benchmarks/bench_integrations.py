"""Integrations end to end, side by side: whole agent turns and backend operations.

Run: ``python benchmarks/bench_integrations.py [--reps N]`` (about a minute; prints markdown).

1. **Strands**: a real ``strands.Agent`` with a scripted model (tool call, then
   answer) whose tool returns a 5 MB build log that fails on its last lines.
   Rows: no plugin (the whole log enters the context), Strands 1.62's own
   ``ContextOffloader`` plugin (``InMemoryStorage`` and ``FileStorage``), and
   this project's ``OffloaderPlugin`` (``InMemoryStorage`` and ``LocalWorkspace``).
   Columns: median time of one ``invoke_async`` (ratio to no plugin), characters
   the model received for the tool result, and whether the failure line is in them.
2. **deepagents**: the operations its eviction and ``read_file`` / ``grep`` tools
   make on a 5 MB file, on deepagents' own ``FilesystemBackend`` (virtual mode)
   and on ``deepagents_backend(LocalWorkspace)``: evict (write), read 100 lines at
   the start and near the end, literal grep. Ratio = ours / theirs.

Rows run round-robin so machine load hits them alike; medians of ``--reps`` runs.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
import time
from collections.abc import AsyncGenerator, Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

FAILURE = "BUILD FAILED: exit code 2"


def log_payload() -> str:
    lines = [
        f"2026-11-30 10:{i // 60 % 60:02d}:{i % 60:02d} INFO [worker-{i % 8}] compiled unit_{i}.o in 12ms"
        for i in range(72_000)
    ]
    return "\n".join(lines) + "\nld: undefined reference to `main'\n" + FAILURE + "\n"


LOG = log_payload()


async def measure(rows: list[tuple[str, Callable[[int], Awaitable[Any]]]], reps: int) -> list[tuple[float, Any]]:
    for _, fn in rows:
        await fn(-1)  # warm-up
    times: list[list[float]] = [[] for _ in rows]
    last: list[Any] = [None] * len(rows)
    for i in range(reps):
        for k, (_, fn) in enumerate(rows):
            start = time.perf_counter()
            last[k] = await fn(i)
            times[k].append(time.perf_counter() - start)
    return [(statistics.median(t), v) for t, v in zip(times, last, strict=True)]


# ---------------------------------------------------------------- Strands


def _strands_model() -> Any:
    from strands.models.model import Model

    class Scripted(Model):
        """Calls the log tool, then answers; records the tool result it was sent."""

        def __init__(self) -> None:
            self.received = ""

        def update_config(self, **model_config: Any) -> None:
            pass

        def get_config(self) -> dict[str, Any]:
            return {}

        async def structured_output(self, *args: Any, **kwargs: Any) -> AsyncGenerator[dict[str, Any], None]:
            raise NotImplementedError
            yield {}

        async def stream(self, messages: Any, *args: Any, **kwargs: Any) -> AsyncGenerator[Any, None]:
            results = [b["toolResult"] for m in messages for b in m["content"] if "toolResult" in b]
            yield {"messageStart": {"role": "assistant"}}
            if results:
                self.received = "\n".join(c.get("text", "") for c in results[-1]["content"])
                yield {"contentBlockDelta": {"delta": {"text": "done"}}}
                yield {"contentBlockStop": {}}
                yield {"messageStop": {"stopReason": "end_turn"}}
                return
            yield {"contentBlockStart": {"start": {"toolUse": {"toolUseId": "log-1", "name": "build_log"}}}}
            yield {"contentBlockDelta": {"delta": {"toolUse": {"input": "{}"}}}}
            yield {"contentBlockStop": {}}
            yield {"messageStop": {"stopReason": "tool_use"}}

    return Scripted


async def bench_strands(reps: int, root: Path) -> list[str]:
    from strands import Agent, tool
    from strands.vended_plugins.context_offloader import ContextOffloader as StrandsOffloader
    from strands.vended_plugins.context_offloader import FileStorage as StrandsFile
    from strands.vended_plugins.context_offloader import InMemoryStorage as StrandsMemory

    from offloader.integrations.strands import OffloaderPlugin
    from offloader.storage import InMemoryStorage
    from workspaces import LocalWorkspace

    @tool
    def build_log() -> str:
        """The build log."""
        return LOG

    scripted = _strands_model()
    workspace = LocalWorkspace(root / "ours")
    await workspace.open()

    def run(make_plugins: Callable[[int], list[Any]]) -> Callable[[int], Awaitable[str]]:
        async def once(i: int) -> str:
            model = scripted()
            agent = Agent(
                model=model, tools=[build_log], plugins=make_plugins(i), callback_handler=None, agent_id=f"bench{i + 1}"
            )
            await agent.invoke_async("Why did the build fail?")
            return str(model.received)

        return once

    rows: list[tuple[str, Callable[[int], Awaitable[Any]]]] = [
        ("no plugin (whole log in context)", run(lambda i: [])),
        ("Strands ContextOffloader, InMemoryStorage", run(lambda i: [StrandsOffloader(StrandsMemory())])),
        (
            "Strands ContextOffloader, FileStorage",
            run(lambda i: [StrandsOffloader(StrandsFile(str(root / f"strands{i + 1}")))]),
        ),
        ("OffloaderPlugin, InMemoryStorage", run(lambda i: [OffloaderPlugin(InMemoryStorage())])),
        ("OffloaderPlugin, LocalWorkspace", run(lambda i: [OffloaderPlugin(workspace)])),
    ]
    results = await measure(rows, reps)
    base = results[0][0]
    out = [
        "### Strands: one agent turn with a 5 MB tool result",
        "",
        "| configuration | median turn | ratio to no plugin | chars the model got | failure line in them |",
        "|---|---:|---:|---:|---|",
    ]
    for (label, _), (t, received) in zip(rows, results, strict=True):
        out.append(
            f"| {label} | {t * 1000:.1f} ms | {t / base:.2f}x | {len(received):,} | "
            f"{'yes' if FAILURE in received else 'no'} |"
        )
    return out


# ---------------------------------------------------------------- deepagents


async def bench_deepagents(reps: int, root: Path) -> list[str]:
    from deepagents.backends.filesystem import FilesystemBackend

    from offloader.integrations.deepagents import deepagents_backend
    from workspaces import LocalWorkspace

    theirs_root = root / "deep-theirs"
    theirs_root.mkdir()
    theirs = FilesystemBackend(root_dir=str(theirs_root), virtual_mode=True)
    workspace = LocalWorkspace(root / "deep-ours")
    await workspace.open()
    ours = deepagents_backend(workspace)
    n_lines = LOG.count("\n")

    def bound(op: Callable[[Any, int], Awaitable[Any]], backend: Any) -> Callable[[int], Awaitable[Any]]:
        async def call(i: int) -> Any:
            return await op(backend, i)

        return call

    async def evict(backend: Any, i: int) -> Any:
        return await backend.awrite(f"/large_tool_results/call_{i + 1}", LOG)

    async def read_head(backend: Any, i: int) -> Any:
        return await backend.aread("/large_tool_results/call_0", 0, 100)

    async def read_tail(backend: Any, i: int) -> Any:
        return await backend.aread("/large_tool_results/call_0", n_lines - 100, 100)

    async def grep(backend: Any, i: int) -> Any:
        return await backend.agrep("BUILD FAILED", "/large_tool_results/call_0")

    for backend in (theirs, ours):
        assert (await backend.awrite("/large_tool_results/call_0", LOG)).error is None
    out = [
        "### deepagents: backend operations on a 5 MB evicted tool result",
        "",
        "| operation | FilesystemBackend | deepagents_backend(LocalWorkspace) | ratio ours/theirs |",
        "|---|---:|---:|---:|",
    ]
    for label, op in [
        ("evict (write 5 MB)", evict),
        ("read 100 lines at the start", read_head),
        ("read 100 lines near the end", read_tail),
        ("literal grep", grep),
    ]:
        (t_theirs, r_theirs), (t_ours, r_ours) = await measure(
            [("theirs", bound(op, theirs)), ("ours", bound(op, ours))], reps
        )
        if label.startswith("read"):
            assert r_theirs.file_data["content"] == r_ours.file_data["content"], label
        if label == "literal grep":
            assert [m["line"] for m in r_theirs.matches] == [m["line"] for m in r_ours.matches], label
        out.append(f"| {label} | {t_theirs * 1000:.2f} ms | {t_ours * 1000:.2f} ms | {t_ours / t_theirs:.2f}x |")
    return out


async def main(reps: int) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        lines = [f"Payload: {len(LOG.encode()):,} bytes, {LOG.count(chr(10)):,} lines; median of {reps} runs.", ""]
        lines += await bench_strands(reps, root)
        lines.append("")
        lines += await bench_deepagents(reps, root)
        print("\n".join(lines))
        print()
        print(json.dumps({"python": sys.version.split()[0]}))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=5, help="repetitions per row (default 5)")
    asyncio.run(main(parser.parse_args().reps))
