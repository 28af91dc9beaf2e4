"""Scale of the ``offload`` CLI: ls, stats and gc --dry-run over 100,000 items in 1,000 sessions.

Generates the tree directly in the on-disk layout (tool results, ledgers,
context logs; half the sessions 30 days old), then times each command as a
subprocess (interpreter start-up included, median of ``--repeat`` runs) next to
a bare ``os.walk`` + ``stat`` of the same tree, the floor any listing pays.

    python benchmarks/bench_cli_scale.py [--sessions 1000] [--items 100] [--repeat 1]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def generate(root: str, sessions: int, items: int) -> None:
    """Write ``sessions * items`` tool results plus one ledger and one context log per session."""
    old = time.time() - 30 * 86400
    for s in range(sessions):
        folder = os.path.join(root, "sessions", f"session-{s:04d}")
        os.makedirs(folder)
        ledger = []
        for i in range(items):
            name = f"tool_result-call-{s}-{i}.txt"
            body = f"result {s}/{i}\n" * (8 + i % 40)
            path = os.path.join(folder, name)
            with open(path, "w") as f:
                f.write(body)
            ledger.append(
                json.dumps(
                    {
                        "time": old,
                        "kind": "tool_result",
                        "ref": path,
                        "tool": f"tool{i % 7}",
                        "tool_id": f"call-{s}-{i}",
                        "bytes": len(body),
                        "tokens": len(body) // 4,
                        "status": "offloaded",
                    }
                )
            )
        with open(os.path.join(folder, "ledger.jsonl"), "w") as f:
            f.write("\n".join(ledger) + "\n")
        with open(os.path.join(folder, "context.jsonl"), "w") as f:
            f.write(json.dumps({"role": "user", "content": [{"type": "text", "text": "hi"}]}) + "\n")
        if s % 2:
            for name in os.listdir(folder):
                os.utime(os.path.join(folder, name), (old, old))


def bare_walk(root: str) -> float:
    start = time.perf_counter()
    n = 0
    for dirpath, _, files in os.walk(os.path.join(root, "sessions")):
        for name in files:
            os.stat(os.path.join(dirpath, name), follow_symlinks=False)
            n += 1
    return time.perf_counter() - start


def timed(argv: list[str], repeat: int) -> float:
    runs = []
    for _ in range(repeat):
        start = time.perf_counter()
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        runs.append(time.perf_counter() - start)
    return statistics.median(runs)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sessions", type=int, default=1000)
    parser.add_argument("--items", type=int, default=100)
    parser.add_argument("--repeat", type=int, default=1)
    args = parser.parse_args()
    tmp = tempfile.mkdtemp(prefix="offload-scale-")
    root = os.path.join(tmp, "ws")
    try:
        start = time.perf_counter()
        generate(root, args.sessions, args.items)
        made = time.perf_counter() - start
        startup = timed([sys.executable, "-m", "offloader.cli", "--help"], args.repeat)
        walk = statistics.median(bare_walk(root) for _ in range(args.repeat))
        cli = [sys.executable, "-m", "offloader.cli"]
        rows = [
            ("offload ls", [*cli, "ls", "--workdir", root, "--json"]),
            ("offload ls session-0001", [*cli, "ls", "session-0001", "--workdir", root, "--json"]),
            ("offload stats", [*cli, "stats", "--workdir", root, "--json"]),
            (
                "offload gc --max-age 7d --dry-run",
                [*cli, "gc", "--workdir", root, "--max-age", "7d", "--dry-run", "--json"],
            ),
            (
                "offload gc --max-files 50000 --temp-grace 0 --dry-run",
                [*cli, "gc", "--workdir", root, "--max-files", "50000", "--temp-grace", "0", "--dry-run", "--json"],
            ),
        ]
        n = args.sessions * args.items
        print(
            f"{n:,} items in {args.sessions:,} sessions (generated in {made:.1f} s); "
            f"median of {args.repeat}; CLI start-up alone {startup:.2f} s; bare os.walk+stat {walk:.2f} s\n"
        )
        print("| command | time (s) | minus start-up (s) | vs bare walk+stat |")
        print("|---|---:|---:|---:|")
        for label, argv in rows:
            t = timed(argv, args.repeat)
            print(f"| `{label}` | {t:.2f} | {t - startup:.2f} | {(t - startup) / walk:.1f}x |")
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()
