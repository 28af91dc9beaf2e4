"""Tool-result offload, side by side in one run: this project vs Strands Agents, AgentScope and a bare write.

Run: ``python benchmarks/bench_offload.py`` (a few minutes; ``--quick`` for fewer
repetitions). Prints markdown tables and writes ``benchmarks/results/bench_offload.json``.

Payloads (each one text block of a tool result; every repetition uses a fresh id):
a 150 KB compact JSON page, a 5 MB and a 50 MB build log whose failure is in the
middle and at the end, and a 5 MB one-line JSON document whose scalars follow a big array.

Rows (median wall ms per offload, rows run round-robin so machine load hits them alike):

* ``bare_write``: an atomic write of the already-encoded bytes (temp file + ``os.replace``);
* ``ours``: ``ContextOffloader.process_tool_result`` into a ``LocalWorkspace`` (size
  decision, signal preview, store, reshape);
* ``ours_store``: ``LocalWorkspace.offload_tool_result`` alone (the storage part of
  ``ours``); ``ours - ours_store`` is the time spent outside storage;
* ``strands``: Strands Agents 1.62 ``ContextOffloader`` with ``FileStorage``, driven
  through its ``AfterToolCallEvent`` hook method with a stand-in event/agent (its
  default token heuristic);
* ``agentscope``: AgentScope 2.0.11 ``LocalWorkspace.offload_tool_result`` (stores
  and returns a path; it leaves no preview in context).

The last column is how long each offload kept the event loop's thread (the longest
stretch in which no other task could run, median over 5 calls; see ``loop_stall``):
ours does its blocking work in worker threads, Strands writes the file on the loop.

Each row also gives ``ours / Strands`` and whether ours is no slower than Strands
(the speed target); after the table, the 50 MB target (time outside storage at most
the bare write) and the retrieval target (under 1 ms) are checked. ``--dir`` puts
the stores on another file system (``/dev/shm``: memory only, no disk writeback,
so the CPU cost of each system shows).

Then retrieval: a 100-line range of the just-offloaded 50 MB log, read with the
``retrieve_offloaded_content`` retriever (median of 50 reads at spread offsets;
the first read, which builds the line index, is reported separately).

Then signal recall on the public corpus (``tests/corpus``): the share of labelled
decisive lines that are in what the model sees after the offload, at the same
1,000-token preview budget, for ours, Strands (head of the text) and a naive
first-2,000 + last-2,000-characters cut; and how many clean runs each calls failing.

Then speed on the corpus: every corpus output offloaded by ours and by Strands, alternating,
at one threshold (2,500 tokens) and preview budget (1,000): per output the median ms, and
ours / Strands across the outputs both offload (``--corpus-speed`` runs only this part).
"""

from __future__ import annotations

import argparse
import asyncio
import gzip
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

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # measure this checkout's code

from offloader import ContextOffloader  # noqa: E402
from offloader.retrieval import Retriever  # noqa: E402
from offloader.signal import read_signal, strip_ansi  # noqa: E402
from offloader.tokens import TiktokenCounter  # noqa: E402
from workspaces import LocalWorkspace  # noqa: E402

RESULTS = ROOT / "benchmarks" / "results" / "bench_offload.json"
CORPUS = ROOT / "tests" / "corpus"


# ---------------------------------------------------------------- payloads


def json_page() -> str:
    rows = [
        {"id": i, "name": f"customer {i}", "email": f"user{i}@example.com", "active": i % 3 != 0, "score": i * 1.5}
        for i in range(1700)
    ]
    return json.dumps({"items": rows, "next": "cursor-abc", "total": len(rows)})


def build_log(megabytes: int) -> str:
    lines = []
    n = megabytes * 14_400
    for i in range(n):
        lines.append(f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d} INFO [worker-{i % 8}] compiled unit_{i}.o in 12ms")
        if i == n // 2:
            lines.append("src/ledger.c:214:9: error: 'balance' undeclared (first use in this function)")
    return "\n".join(lines) + "\nld: undefined reference to `main'\nBUILD FAILED: exit code 2\n"


def one_line_json(megabytes: int) -> str:
    hits = [{"doc": f"doc-{i}", "shard": i % 12, "score": round(1 / (i + 1), 6)} for i in range(megabytes * 21_000)]
    return json.dumps({"took_ms": 812, "hits": hits, "status": "partial_failure", "failed_shards": 1})


PAYLOADS: dict[str, tuple[Callable[[], str], str]] = {
    "150 KB JSON": (json_page, '"total": 1700'),
    "5 MB log": (lambda: build_log(5), "error: 'balance' undeclared"),
    "50 MB log": (lambda: build_log(50), "error: 'balance' undeclared"),
    "5 MB one-line JSON": (lambda: one_line_json(5), '"status": "partial_failure"'),
}


# ---------------------------------------------------------------- systems


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


def strands_offloader(folder: Path, **options: int) -> Any:
    """Strands' ContextOffloader with FileStorage (its defaults unless ``options`` say otherwise)."""
    from strands.vended_plugins.context_offloader import ContextOffloader as StrandsOffloader
    from strands.vended_plugins.context_offloader import FileStorage

    plugin = StrandsOffloader(storage=FileStorage(str(folder)), **options)
    agent = _StrandsAgent()

    async def run(result: dict[str, Any]) -> Any:
        event = types.SimpleNamespace(
            cancel_message=None,
            tool_use={"name": "bash", "toolUseId": result["toolUseId"]},
            selected_tool=None,
            result=result,
            agent=agent,
        )
        await plugin._handle_tool_result(event)
        return event.result

    return run


def shown_text(value: Any) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, dict):
        return "\n".join(str(b.get("text", "")) for b in value.get("content", []))
    return "\n".join(getattr(b, "text", "") for b in getattr(value, "content", ()))


def atomic_write(folder: Path, name: str, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=folder, prefix=".tmp-")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.replace(tmp, folder / name)


async def measure(rows: dict[str, Callable[[int], Awaitable[Any]]], reps: int) -> dict[str, tuple[float, Any]]:
    """Median ms per row (round-robin), and the last value each returned."""
    for fn in rows.values():
        await fn(-1)  # warm-up (imports, encodings, folders)
    times: dict[str, list[float]] = {name: [] for name in rows}
    last: dict[str, Any] = {}
    for i in range(reps):
        for name, fn in rows.items():
            start = time.perf_counter()
            last[name] = await fn(i)
            times[name].append((time.perf_counter() - start) * 1000)
    return {name: (statistics.median(t), last[name]) for name, t in times.items()}


async def loop_stall(rows: dict[str, Callable[[int], Awaitable[Any]]], calls: int, first: int) -> dict[str, float]:
    """Per row, the longest time (median over ``calls`` calls, ms) the event loop could not run another task.

    A ticker task yields to the loop without pause while each call runs; its longest gap is the
    longest stretch the call kept the loop's thread (a write made on the loop, CPU work on it).
    Run apart from the timings (the ticker keeps the loop busy, which would change them).
    """
    stalls: dict[str, list[float]] = {name: [] for name in rows}

    async def ticker(state: dict[str, float]) -> None:
        last = time.perf_counter()
        while state["running"]:
            await asyncio.sleep(0)
            now = time.perf_counter()
            state["worst"], last = max(state["worst"], now - last), now

    for k in range(calls):
        for name, fn in rows.items():
            state = {"worst": 0.0, "running": 1.0}
            task = asyncio.ensure_future(ticker(state))
            await asyncio.sleep(0)  # the ticker is running before the call starts
            await fn(first + k)
            state["running"] = 0.0
            await task
            stalls[name].append(state["worst"] * 1000)
    return {name: round(statistics.median(v), 3) for name, v in stalls.items()}


async def bench_payload(label: str, text: str, reps: int, root: Path) -> dict[str, Any]:
    from agentscope.message import TextBlock as AsText
    from agentscope.message import ToolResultBlock as AsResult
    from agentscope.workspace import LocalWorkspace as AsWorkspace

    data = text.encode()
    stall_calls = 5  # fresh ids after the timed ones
    ids = range(-1, reps + stall_calls)
    results = {i: {"toolUseId": f"r{i}", "status": "success", "content": [{"text": text}]} for i in ids}
    (root / "bare").mkdir()
    store_ws, ours_ws = LocalWorkspace(root / "store"), LocalWorkspace(root / "ours")
    await store_ws.open()
    await ours_ws.open()
    ours = ContextOffloader(ours_ws, counter=TiktokenCounter())
    strands = strands_offloader(root / "strands")
    as_ws = AsWorkspace(workdir=str(root / "agentscope"))
    as_blocks = {i: AsResult(id=f"r{i}", name="bash", output=[AsText(text=text)]) for i in ids}

    async def bare(i: int) -> str:
        atomic_write(root / "bare", f"tool_result-{i}.txt", data)
        return ""

    async def ours_store(i: int) -> str:
        return await store_ws.offload_tool_result("bench", results[i])

    async def ours_full(i: int) -> Any:
        return await ours.process_tool_result("bench", results[i])

    async def strands_run(i: int) -> Any:
        return await strands({**results[i], "content": [{"text": text}]})

    async def agentscope(i: int) -> str:
        return await as_ws.offload_tool_result("bench", as_blocks[i])

    rows = {"bare_write": bare, "ours": ours_full, "ours_store": ours_store, "strands": strands_run}
    rows["agentscope"] = agentscope
    measured = await measure(rows, reps)
    stalls = await loop_stall({"ours": ours_full, "strands": strands_run}, stall_calls, reps)
    await store_ws.close()
    await ours_ws.close()
    out = {name: round(ms, 3) for name, (ms, _) in measured.items()}
    out["ours_outside_storage"] = round(max(0.0, out["ours"] - out["ours_store"]), 3)
    out["loop_stall_ours"], out["loop_stall_strands"] = stalls["ours"], stalls["strands"]
    needle = PAYLOADS[label][1]
    kept = {name: needle in shown_text(measured[name][1]) for name in ("ours", "strands")}
    return {"row": out, "kept": kept}


async def bench_retrieval(root: Path, reads: int = 50) -> dict[str, float]:
    """A 100-line range of a just-offloaded 50 MB log: first read, then the median of ``reads``."""
    text = build_log(50)
    ws = LocalWorkspace(root / "retrieval")
    await ws.open()
    ref = await ws.offload_tool_result("bench", {"toolUseId": "big", "content": [{"text": text}]})
    retriever = Retriever(ws)
    total = text.count("\n")
    start = time.perf_counter()
    await retriever.retrieve(ref, line_range=(total // 2, total // 2 + 99))
    first = (time.perf_counter() - start) * 1000
    times = []
    for k in range(reads):
        line = 1 + (k * 7919 * 97) % (total - 100)
        start = time.perf_counter()
        await retriever.retrieve(ref, line_range=(line, line + 99))
        times.append((time.perf_counter() - start) * 1000)
    await ws.close()
    return {"first_read_ms": round(first, 3), "median_ms": round(statistics.median(times), 3)}


# ---------------------------------------------------------------- recall on the corpus


async def bench_recall(root: Path) -> dict[str, Any]:
    labels: dict[str, dict[str, Any]] = json.loads((CORPUS / "labels.json").read_text())
    counter = TiktokenCounter()
    ws = LocalWorkspace(root / "recall")
    await ws.open()
    ours = ContextOffloader(ws, preview_tokens=1000, counter=counter)
    strands = strands_offloader(root / "recall_strands", preview_tokens=1000, max_result_tokens=2500)
    kept = {"ours": 0, "strands": 0, "naive_2000_2000": 0}
    false_alarms = {"ours": 0}
    total = 0
    missed: dict[str, list[str]] = {}
    for name, label in sorted(labels.items()):
        with gzip.open(CORPUS / "outputs" / f"{name}.txt.gz") as f:
            raw = f.read()
        text = raw.decode("utf-8", "surrogateescape")
        shown = {
            "ours": shown_text(await ours.process_tool_result("recall", _result(name, text))),
            "strands": shown_text(await strands(_result(name, text))),
            "naive_2000_2000": text if len(text) <= 4000 else text[:2000] + "\n...\n" + text[-2000:],
        }
        shown = {system: strip_ansi(seen) for system, seen in shown.items()}  # read as a terminal shows it
        for line in label["decisive"]:
            total += 1
            for system, seen in shown.items():
                if line in seen:
                    kept[system] += 1
                elif system == "ours":
                    missed.setdefault(name, []).append(line)
        if label["clean"] and read_signal(raw).failing:
            false_alarms["ours"] += 1
    clean = sum(1 for label in labels.values() if label["clean"])
    return {
        "outputs": len(labels),
        "decisive_lines": total,
        "kept": kept,
        "recall": {system: round(n / total, 4) for system, n in kept.items()},
        "clean_outputs": clean,
        "clean_called_failing": false_alarms,
        "ours_missed": missed,
    }


async def bench_corpus_speed(root: Path, reps: int = 3) -> dict[str, Any]:
    """Every corpus output offloaded by ours and by Strands, alternating, at one threshold and budget.

    Both offload above 2,500 tokens and preview in 1,000; ours stores into a
    ``LocalWorkspace``, Strands into ``FileStorage``. Per output: the median wall ms of
    ``reps`` offloads (after one warm-up), for the outputs both offloaded.
    """
    labels: dict[str, dict[str, Any]] = json.loads((CORPUS / "labels.json").read_text())
    ws = LocalWorkspace(root / "speed")
    await ws.open()
    ours = ContextOffloader(ws, preview_tokens=1000, max_result_tokens=2500, counter=TiktokenCounter())
    strands = strands_offloader(root / "speed_strands", preview_tokens=1000, max_result_tokens=2500)
    systems = {"ours": lambda r: ours.process_tool_result("speed", r), "strands": strands}
    per_output: dict[str, dict[str, float]] = {}
    for name in sorted(labels):
        with gzip.open(CORPUS / "outputs" / f"{name}.txt.gz") as f:
            text = f.read().decode("utf-8", "surrogateescape")
        times: dict[str, list[float]] = {system: [] for system in systems}
        offloaded = True
        for rep in range(reps + 1):
            for system, run in systems.items():
                start = time.perf_counter()
                shown = await run(_result(name, text))
                elapsed = (time.perf_counter() - start) * 1000
                offloaded = offloaded and shown_text(shown) != text
                if rep:
                    times[system].append(elapsed)
        if offloaded:
            per_output[name] = {system: statistics.median(t) for system, t in times.items()}
    await ws.close()
    ratios = sorted(row["ours"] / row["strands"] for row in per_output.values())
    slowest = max(per_output, key=lambda n: per_output[n]["ours"])
    return {
        "outputs": len(per_output),
        "ours_total_ms": round(sum(row["ours"] for row in per_output.values()), 1),
        "strands_total_ms": round(sum(row["strands"] for row in per_output.values()), 1),
        "ours_median_ms": round(statistics.median(row["ours"] for row in per_output.values()), 3),
        "strands_median_ms": round(statistics.median(row["strands"] for row in per_output.values()), 3),
        "ratio_median": round(statistics.median(ratios), 2),
        "ratio_p90": round(ratios[int(len(ratios) * 0.9)], 2),
        "ratio_max": round(ratios[-1], 2),
        "no_slower": sum(1 for r in ratios if r <= 1.0),
        "ours_slowest": {"output": slowest, **{k: round(v, 2) for k, v in per_output[slowest].items()}},
    }


def _result(name: str, text: str) -> dict[str, Any]:
    return {"toolUseId": f"{name}-{time.monotonic_ns()}", "status": "success", "content": [{"text": text}]}


# ---------------------------------------------------------------- main


#: Retrieval target: a 100-line range of the just-offloaded 50 MB log in under this many ms (median).
RETRIEVAL_TARGET_MS = 1.0


def _met(ok: bool) -> str:
    return "met" if ok else "**not met**"


async def main(quick: bool, folder: str | None, only: list[str] | None = None) -> None:
    reps = {"150 KB JSON": 40, "5 MB log": 15, "50 MB log": 5, "5 MB one-line JSON": 15}
    # recall: per payload, whether the model still sees its decisive line; "corpus": the public corpus
    report: dict[str, Any] = {"python": sys.version.split()[0], "folder": folder or tempfile.gettempdir()}
    report.update(payloads={}, recall={}, targets={})
    print(
        "| payload | bare write | ours | ours: storage | ours: outside storage | Strands (FileStorage) "
        "| AgentScope | ours / Strands | no slower than Strands | signal in context (ours / Strands) "
        "| event loop held (ours / Strands) |"
    )
    print("|---|---:|---:|---:|---:|---:|---:|---:|---|---|---:|")
    for label, (make, _) in PAYLOADS.items():
        if only and not any(word.lower() in label.lower() for word in only):
            continue
        text = make()
        with tempfile.TemporaryDirectory(dir=folder) as tmp:
            done = await bench_payload(label, text, max(3, reps[label] // (3 if quick else 1)), Path(tmp))
        row, sig = done["row"], done["kept"]
        row["bytes"] = len(text.encode())
        row["ours_over_strands"] = round(row["ours"] / row["strands"], 3)
        report["payloads"][label] = row
        report["recall"][label] = sig
        report["targets"][f"no slower than Strands: {label}"] = row["ours"] <= row["strands"]
        print(
            f"| {label} | {row['bare_write']:.2f} | {row['ours']:.2f} | {row['ours_store']:.2f} | "
            f"{row['ours_outside_storage']:.2f} | {row['strands']:.2f} | {row['agentscope']:.2f} | "
            f"{row['ours_over_strands']:.2f}x | {_met(row['ours'] <= row['strands'])} | "
            f"{'yes' if sig['ours'] else 'no'} / {'yes' if sig['strands'] else 'no'} | "
            f"{row['loop_stall_ours']:.2f} / {row['loop_stall_strands']:.2f} |"
        )
    if only:  # a partial run: the table only, nothing written
        return
    big = report["payloads"]["50 MB log"]
    outside_ok = big["ours_outside_storage"] <= big["bare_write"]
    report["targets"]["50 MB log: outside storage at most the bare write"] = outside_ok
    print(
        f"\n50 MB log, time outside storage {big['ours_outside_storage']:.2f} ms vs the bare write "
        f"{big['bare_write']:.2f} ms: {_met(outside_ok)}"
    )
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        report["retrieval_50mb_100_lines"] = await bench_retrieval(Path(tmp))
        report["recall"]["corpus"] = await bench_recall(Path(tmp))
        report["corpus_speed"] = await bench_corpus_speed(Path(tmp))
    r = report["retrieval_50mb_100_lines"]
    report["targets"]["retrieval under 1 ms"] = r["median_ms"] < RETRIEVAL_TARGET_MS
    print(
        f"\nretrieval, 100 lines of the just-offloaded 50 MB log: first read {r['first_read_ms']:.2f} ms "
        f"(builds the line index), then median {r['median_ms']:.3f} ms: "
        f"{_met(r['median_ms'] < RETRIEVAL_TARGET_MS)} (under {RETRIEVAL_TARGET_MS:g} ms)"
    )
    rec = report["recall"]["corpus"]
    print(
        f"\nsignal recall on the public corpus ({rec['outputs']} outputs, {rec['decisive_lines']} decisive lines, "
        "1,000-token previews):"
    )
    for system, share in rec["recall"].items():
        print(f"  {system}: {rec['kept'][system]}/{rec['decisive_lines']} ({share:.1%})")
    print(f"  clean outputs called failing by ours: {rec['clean_called_failing']['ours']} of {rec['clean_outputs']}")
    _print_corpus_speed(report["corpus_speed"])
    RESULTS.parent.mkdir(exist_ok=True)
    RESULTS.write_text(json.dumps(report, indent=2) + "\n")
    print(f"\nwritten: {RESULTS.relative_to(ROOT)}")


def _print_corpus_speed(speed: dict[str, Any]) -> None:
    slow = speed["ours_slowest"]
    print(
        f"\nspeed on the corpus ({speed['outputs']} outputs both offload; median ms per output): "
        f"ours {speed['ours_median_ms']:.2f}, Strands {speed['strands_median_ms']:.2f}; "
        f"total ours {speed['ours_total_ms']:.0f} ms, Strands {speed['strands_total_ms']:.0f} ms\n"
        f"  ours / Strands per output: median {speed['ratio_median']:.2f}x, p90 {speed['ratio_p90']:.2f}x, "
        f"max {speed['ratio_max']:.2f}x; no slower on {speed['no_slower']} of {speed['outputs']}\n"
        f"  slowest for ours: {slow['output']} ({slow['ours']:.2f} ms; Strands {slow['strands']:.2f} ms)"
    )


async def corpus_only(folder: str | None) -> None:
    with tempfile.TemporaryDirectory(dir=folder) as tmp:
        _print_corpus_speed(await bench_corpus_speed(Path(tmp)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="a third of the repetitions")
    parser.add_argument("--dir", default=None, help="folder for the stores (default: the system temp folder)")
    parser.add_argument(
        "--payload", action="append", help="only the payloads whose label contains this (repeatable); writes nothing"
    )
    parser.add_argument("--corpus-speed", action="store_true", help="only the speed on the corpus; writes nothing")
    args = parser.parse_args()
    asyncio.run(corpus_only(args.dir) if args.corpus_speed else main(args.quick, args.dir, args.payload))
