"""Tool-result offload, side by side: this project vs Strands Agents and AgentScope.

Run: ``python benchmarks/bench_offload.py`` (about a minute; prints markdown tables).

Payloads: a 150 KB compact JSON page and a 5 MB build log whose failure is on its
last lines, both as one text block of a Strands-shaped tool result (each
framework gets its own native shape, built outside the timed region). Every
repetition uses a fresh tool-call id, so nothing is deduplicated away.

Rows (median wall time per offload, and the ratio to the floor):

* floor: a bare atomic write of the same bytes (temp file + ``os.replace``);
* ``LocalWorkspace.offload_tool_result`` (this project, raw store);
* ``ContextOffloader`` (this project) over a ``LocalWorkspace`` and over
  ``InMemoryStorage``: token decision, signal-keeping preview, store, reshape;
* Strands Agents 1.62 ``ContextOffloader`` with its ``InMemoryStorage`` and
  ``FileStorage``, driven through its real ``AfterToolCallEvent`` hook method
  (``_handle_tool_result``) with a minimal stand-in event/agent carrying the
  attributes the hook reads; its token count is Strands' own default
  ``Model.count_tokens`` heuristic;
* AgentScope 2.0.11 ``agentscope.workspace.LocalWorkspace.offload_tool_result``.

The "failure in context" column says whether what the model would see after the
offload still contains the log's final ``BUILD FAILED`` line. A second table
shows tokenizer work for the offload decision on 50 KB vs 50 MB.
"""

from __future__ import annotations

import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
import types
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from offloader import ContextOffloader, InMemoryStorage
from offloader.tokens import TiktokenCounter, estimate_tokens
from workspaces import LocalWorkspace

FAILURE = "BUILD FAILED: exit code 2"


def json_payload() -> str:
    rows = [
        {"id": i, "name": f"customer {i}", "email": f"user{i}@example.com", "active": i % 3 != 0, "score": i * 1.5}
        for i in range(1700)
    ]
    return json.dumps({"items": rows, "next": "cursor-abc", "total": len(rows)})


def log_payload() -> str:
    lines = [
        f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d} INFO [worker-{i % 8}] compiled unit_{i}.o in 12ms"
        for i in range(72_000)
    ]
    return "\n".join(lines) + "\nld: undefined reference to `main'\n" + FAILURE + "\n"


def atomic_write(folder: Path, name: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, folder / name)


class _StrandsAgent:
    """The attributes Strands' hook reads from an agent (weak-referenceable, as it requires)."""

    def __init__(self) -> None:
        from strands.models.model import _estimate_tokens_with_heuristic

        class _Model:
            async def count_tokens(self, messages: Any, *args: Any, **kwargs: Any) -> int:
                return _estimate_tokens_with_heuristic(messages)  # Strands' default Model.count_tokens

        self.model = _Model()
        self.event_loop_metrics = types.SimpleNamespace(cycle_count=0)
        self.sandbox = None  # host filesystem for FileStorage


async def measure(rows: list[tuple[str, Callable[[int], Awaitable[Any]]]], reps: int) -> list[tuple[float, Any]]:
    """Median time per row, the rows run round-robin so machine load hits them alike."""
    for _, fn in rows:
        await fn(-1)  # warm-up (imports, encodings, folders)
    times: list[list[float]] = [[] for _ in rows]
    last: list[Any] = [None] * len(rows)
    for i in range(reps):
        for k, (_, fn) in enumerate(rows):
            start = time.perf_counter()
            last[k] = await fn(i)
            times[k].append(time.perf_counter() - start)
    return [(statistics.median(t), v) for t, v in zip(times, last, strict=True)]


def context_text(value: Any) -> str:
    """What the model would see, as text, for any of the returned shapes."""
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(str(b.get("text", "")) for b in value.get("content", []))
    return "\n".join(getattr(b, "text", "") for b in getattr(value, "content", ()))


async def bench_payload(label: str, text: str, reps: int, root: Path) -> list[tuple[str, str, float, str]]:
    from agentscope.message import TextBlock as AsText
    from agentscope.message import ToolResultBlock as AsResult
    from agentscope.workspace import LocalWorkspace as AsWorkspace
    from strands.vended_plugins.context_offloader import ContextOffloader as StrandsOffloader
    from strands.vended_plugins.context_offloader import FileStorage as StrandsFile
    from strands.vended_plugins.context_offloader import InMemoryStorage as StrandsMemory

    data = text.encode()
    results = []

    def strands_result(i: int) -> dict[str, Any]:
        return {"toolUseId": f"{label}-{i}", "status": "success", "content": [{"text": text}]}

    floor_dir = root / "floor"
    floor_dir.mkdir()

    async def floor(i: int) -> str:
        atomic_write(floor_dir, f"tool_result-{i}.txt", data)
        return "(path only)"

    rows: list[tuple[str, Callable[[int], Awaitable[Any]]]] = [("bare atomic write (floor)", floor)]

    ours = LocalWorkspace(root / "ours")
    await ours.open()
    raw_results = {i: strands_result(i) for i in range(-1, reps)}

    async def ours_raw(i: int) -> str:
        await ours.offload_tool_result("bench", raw_results[i])
        return "(path only)"

    rows.append(("offloader: LocalWorkspace.offload_tool_result", ours_raw))

    ours_ctx = LocalWorkspace(root / "ours_ctx")
    await ours_ctx.open()
    counter = TiktokenCounter()
    ctx_ws = ContextOffloader(ours_ctx, counter=counter)
    ctx_mem = ContextOffloader(InMemoryStorage(), counter=counter)

    async def ours_ctx_ws(i: int) -> Any:
        return await ctx_ws.process_tool_result("bench", raw_results[i])

    async def ours_ctx_mem(i: int) -> Any:
        return await ctx_mem.process_tool_result("bench", raw_results[i])

    rows.append(("offloader: ContextOffloader(LocalWorkspace)", ours_ctx_ws))
    rows.append(("offloader: ContextOffloader(InMemoryStorage)", ours_ctx_mem))

    for name, storage in (
        ("Strands ContextOffloader(InMemoryStorage)", StrandsMemory(evict_after_turns=None)),
        ("Strands ContextOffloader(FileStorage)", StrandsFile(str(root / "strands_files"))),
    ):
        plugin, agent = StrandsOffloader(storage=storage), _StrandsAgent()

        async def strands(i: int, plugin: Any = plugin, agent: Any = agent) -> Any:
            event = types.SimpleNamespace(
                cancel_message=None,
                tool_use={"name": "bash", "toolUseId": f"{label}-{i}"},
                selected_tool=None,
                result=strands_result(i),
                agent=agent,
            )
            await plugin._handle_tool_result(event)
            return event.result

        rows.append((name, strands))

    as_ws = AsWorkspace(workdir=str(root / "agentscope"))
    as_blocks = {i: AsResult(id=f"{label}-{i}", name="bash", output=[AsText(text=text)]) for i in range(-1, reps)}

    async def agentscope(i: int) -> str:
        await as_ws.offload_tool_result("bench", as_blocks[i])
        return "(path only)"

    rows.append(("AgentScope LocalWorkspace.offload_tool_result", agentscope))

    measured = await measure(rows, reps)
    floor_time = measured[0][0]
    for (name, _), (median, last) in zip(rows, measured, strict=True):
        shown = context_text(last)
        in_context = "n/a (returns a path)" if shown == "(path only)" else ("yes" if FAILURE in shown else "no")
        if label.startswith("150"):
            in_context = "-"
        results.append((name, in_context, median, f"{median / floor_time:.2f}x"))
    await ours.close()
    await ours_ctx.close()
    return results


def bench_tokenizer() -> list[tuple[str, str, float, int]]:
    counter = TiktokenCounter()
    line = "2024-05-01 10:00:00 INFO [worker-1] compiled unit.o in 12ms\n"
    rows = []
    for label, size in (("50 KB", 50_000), ("50 MB", 50_000_000)):
        text = line * (size // len(line))
        fed = 0

        class Feed:
            name = counter.name

            def count(self, t: str) -> int:
                nonlocal fed
                fed += len(t)
                return counter.count(t)

        start = time.perf_counter()
        estimate_tokens(Feed(), text, 2500)
        rows.append(("offloader decision (bounded prefix)", label, time.perf_counter() - start, fed))
    for label, size in (("50 KB", 50_000), ("5 MB", 5_000_000)):
        text = line * (size // len(line))
        start = time.perf_counter()
        counter.count(text)
        rows.append(
            ("full tiktoken count (what an O(result) check costs)", label, time.perf_counter() - start, len(text))
        )
    return rows


async def main() -> None:
    print(f"tokenizer: {TiktokenCounter().name}; python {sys.version.split()[0]}\n")
    print("| payload | implementation | failure in context | median ms | vs floor |")
    print("|---|---|---|---:|---:|")
    for label, text, reps in (("150 KB JSON", json_payload(), 30), ("5 MB log", log_payload(), 9)):
        with tempfile.TemporaryDirectory() as tmp:
            for name, in_context, median, ratio in await bench_payload(label, text, reps, Path(tmp)):
                print(
                    f"| {label} ({len(text.encode()) / 1e6:.2f} MB) | {name} | {in_context} | "
                    f"{median * 1000:.2f} | {ratio} |"
                )
    print()
    print("| tokenizer work for the offload decision | input | ms | characters fed |")
    print("|---|---|---:|---:|")
    for name, label, seconds, fed in bench_tokenizer():
        print(f"| {name} | {label} | {seconds * 1000:.2f} | {fed:,} |")


if __name__ == "__main__":
    asyncio.run(main())
