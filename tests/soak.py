"""A chaos soak: writer processes, a gc process with tight limits, random SIGKILLs; then every promise is checked.

Run: ``python -m tests.soak --backend local --seconds 60`` (``local``, ``s3``, ``docker``);
``nox -s soak`` runs every backend for longer; ``tests/test_soak.py`` runs a bounded one in CI.

Writers offload tool results and append messages (sessions shared between
writers) and journal each acknowledged reference, with the time it was handed
out, in a journal file of their own outside the workspace. The collector runs
gc in a loop with policies cycling through ``max_age`` 0 and 1 s, a few files
and a few kilobytes, all with a short grace period. The conductor SIGKILLs a
random process (the collector included) every ``kill_every`` seconds and
restarts it. Afterwards one ordinary collection runs (the next collection a
crash leaves behind) and the conductor checks:

* every acknowledged result reads back whole, unless the ledger records its
  removal by gc at least ``grace`` seconds after it was handed out;
* every context line is intact JSON; every acknowledged message is there
  exactly once, unless gc recorded removing its log ``grace`` seconds later;
* the ledger agrees with the files; no temp file is left.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import time
from collections import Counter
from contextlib import AbstractAsyncContextManager
from pathlib import Path
from typing import Any

import anyio

GRACE = 2.0
#: A reference is handed out a round trip after its file's mtime, and S3 stamps whole seconds:
#: a removal counts as early only if it came more than this before ``GRACE`` had passed.
_SLACK = 1.0
_SESSIONS = 6
#: Mean seconds between SIGKILLs: a restarted process needs a few seconds to import and connect remotely.
KILL_EVERY = {"local": 1.5, "s3": 5.0, "docker": 5.0}


def _payload(tid: str) -> str:
    rng = random.Random(tid)
    return f"{tid}\n" + "".join(f"line {i} {rng.random():.6f}\n" for i in range(rng.randint(1, 400)))


def _open(spec: dict[str, Any]) -> AbstractAsyncContextManager[Any]:
    if spec["kind"] == "local":
        from workspaces import LocalWorkspace

        return LocalWorkspace(spec["path"])
    if spec["kind"] == "s3":
        from workspaces.fsspec import FsspecWorkspace

        return FsspecWorkspace(spec["url"], **spec["options"])
    from tests.docker_support import engine_client
    from workspaces.docker import DockerWorkspace

    client = engine_client()
    assert client is not None, "no Docker engine answers"
    return DockerWorkspace(client.containers.get(spec["container"]), workdir=spec["workdir"], client=client)


# ------------------------------------------------------------ roles (child processes)


async def _writer(spec: dict[str, Any], journal: str, seed: int) -> None:
    from offloader.core.messages import Message, TextBlock, ToolResultBlock

    rng = random.Random(seed)
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    async with _open(spec) as ws:
        n = 0
        while True:
            n += 1
            session = f"s{rng.randrange(_SESSIONS)}"
            if rng.random() < 0.6:
                tid = f"w{seed}-{n}"
                ref = await ws.offload_tool_result(session, ToolResultBlock(tid, "bash", (TextBlock(_payload(tid)),)))
                record = {"op": "result", "id": tid, "ref": ref, "session": session}
            else:
                texts = [f"m{seed}-{n}-{k}" for k in range(rng.randint(1, 3))]
                await ws.offload_context(session, [Message("user", (TextBlock(t),)) for t in texts])
                record = {"op": "context", "texts": texts, "session": session}
            record["t"] = time.time()  # acknowledged (handed out) now
            os.write(fd, (json.dumps(record) + "\n").encode())


async def _collector(spec: dict[str, Any], journal: str, seed: int) -> None:
    from workspaces.retention import RetentionPolicy, collect_garbage

    rng = random.Random(seed)
    policies: list[dict[str, Any]] = [
        {"max_age": 0},
        {"max_age": 1},
        {"max_files": 5},
        {"max_bytes": 20_000},
        {"max_age": 1, "max_files": 3, "max_bytes": 10_000},
    ]
    fd = os.open(journal, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    async with _open(spec) as ws:
        while True:
            policy = rng.choice(policies)
            report = await collect_garbage(ws, RetentionPolicy(temp_grace=GRACE, **policy))
            os.write(fd, (json.dumps({"op": "gc", "removed": len(report.removed), "t": time.time()}) + "\n").encode())


def _child(role: str, spec: str, journal: str, seed: int) -> None:
    fn = _writer if role == "writer" else _collector
    anyio.run(fn, json.loads(spec), journal, seed)


# ------------------------------------------------------------ the conductor


def run(
    spec: dict[str, Any], folder: Path, *, seconds: float, writers: int = 3, kill_every: float = 1.5
) -> dict[str, Any]:
    """Run the soak for ``seconds``; return its figures (``problems`` lists every broken promise)."""
    folder.mkdir(parents=True, exist_ok=True)
    rng = random.Random(seconds)
    procs: dict[str, subprocess.Popen[bytes]] = {}
    seeds = iter(range(1, 1_000_000))
    kills = Counter[str]()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent.parent), *sys.path])}

    def start(name: str) -> None:
        role = "gc" if name == "gc" else "writer"
        seed = next(seeds)
        argv = [sys.executable, "-m", "tests.soak", "--child", role, json.dumps(spec), str(folder / f"{seed}.jsonl")]
        with open(folder / f"{seed}.err", "wb") as err:  # the child keeps its own descriptor
            procs[name] = subprocess.Popen([*argv, str(seed)], env=env, stderr=err)

    for i in range(writers):
        start(f"w{i}")
    start("gc")
    deadline = time.monotonic() + seconds
    try:
        while time.monotonic() < deadline:
            time.sleep(min(rng.uniform(0.3, 2 * kill_every), max(0.0, deadline - time.monotonic())))
            if time.monotonic() >= deadline:
                break
            for name, p in list(procs.items()):
                if p.poll() is not None:  # died on its own: a bug, reported below
                    kills[f"crashed-{name}"] += 1
                    start(name)
            victim = rng.choice(sorted(procs))
            procs[victim].send_signal(signal.SIGKILL)
            procs[victim].wait()
            kills["gc" if victim == "gc" else "writer"] += 1
            start(victim)
    finally:
        for p in procs.values():
            p.send_signal(signal.SIGKILL)
            p.wait()
    return anyio.run(_check, spec, folder, kills)


async def _check(spec: dict[str, Any], folder: Path, kills: Counter[str]) -> dict[str, Any]:
    from workspaces.inventory import fold_status, inventory
    from workspaces.retention import RetentionPolicy

    journal = [json.loads(line) for f in folder.glob("*.jsonl") for line in f.read_text().splitlines() if line]
    problems: list[str] = []
    await anyio.sleep(GRACE + 0.5)
    async with _open(spec) as ws:
        await ws.gc(RetentionPolicy(temp_grace=GRACE))  # the next ordinary collection after a crash
        inv = await inventory(ws)
        removed_at: dict[str, float] = {}
        for s in inv.sessions.values():
            for e in s.ledger:
                if e.get("status") == "removed":
                    removed_at[str(e["ref"])] = max(removed_at.get(str(e["ref"]), 0.0), float(e["time"]))
        results = [r for r in journal if r["op"] == "result"]
        lost_results = 0
        for r in results:
            try:
                whole = (await ws.read_bytes(r["ref"])).decode() == _payload(r["id"])
            except FileNotFoundError:
                whole = False
            if not whole and removed_at.get(r["ref"], 0.0) < r["t"] + GRACE - _SLACK:
                lost_results += 1
                problems.append(f"result lost or torn: {r['ref']} (handed out at {r['t']:.3f})")
        seen: Counter[str] = Counter()
        torn = 0
        for name, s in inv.sessions.items():
            if "context.jsonl" not in s.meta:
                continue
            raw = await ws.read_bytes(f"sessions/{name}/context.jsonl")
            body, _, tail = raw.rpartition(b"\n")
            torn += bool(tail)  # an unterminated tail: a writer killed mid-append (never acknowledged)
            for line in body.split(b"\n") if body else []:
                try:
                    seen[json.loads(line)["content"][0]["text"]] += 1
                except (ValueError, KeyError, IndexError, TypeError):
                    problems.append(f"a context line of {name} is not intact JSON: {line[:80]!r}")
        lost_messages = duplicated = 0
        for r in (r for r in journal if r["op"] == "context"):
            log_ref = ws.reference(f"sessions/{r['session']}/context.jsonl")
            for text in r["texts"]:
                if seen[text] > 1:
                    duplicated += 1
                    problems.append(f"message duplicated: {text}")
                elif seen[text] == 0 and removed_at.get(log_ref, 0.0) < r["t"] + GRACE - _SLACK:
                    lost_messages += 1
                    problems.append(f"message lost: {text} in {r['session']}")
        mismatches = 0
        for s in inv.sessions.values():
            present = {i.path.rsplit("/", 1)[-1] for i in s.items.values()} | set(s.meta)
            for item in s.items.values():
                if item.status in ("removed", ""):
                    mismatches += 1
                    problems.append(f"ledger says {item.status or 'nothing'} for the file {item.path}")
            refs = {str(e["ref"]) for e in s.ledger if e.get("kind") == "tool_result"}
            for ref in refs:
                status = fold_status(s.entries_for(ref.rsplit("/", 1)[-1]))
                if status != "removed" and ref.rsplit("/", 1)[-1] not in present:
                    mismatches += 1
                    problems.append(f"ledger says {status} for {ref}, which is gone")
        temps = [t.path for s in inv.sessions.values() for t in s.temps] + [t.path for t in inv.media_temps]
        problems.extend(f"temp file left: {t}" for t in temps)
    return {
        "offloads": len(results),
        "messages": sum(len(r["texts"]) for r in journal if r["op"] == "context"),
        "gc_runs": sum(1 for r in journal if r["op"] == "gc"),
        "gc_removed_files": sum(r["removed"] for r in journal if r["op"] == "gc"),
        "removed_by_gc_results": sum(1 for r in results if r["ref"] in removed_at),
        "kills": dict(kills),
        "lost_results": lost_results,
        "lost_messages": lost_messages,
        "duplicated_messages": duplicated,
        "torn_tails": torn,
        "ledger_mismatches": mismatches,
        "temp_files_left": len(temps),
        "problems": problems[:50],
    }


def spec_for(backend: str, folder: Path) -> dict[str, Any]:
    """How a child opens the workspace under test (a folder, a fresh bucket, or a workdir in a container)."""
    if backend == "local":
        return {"kind": "local", "path": str(folder / "ws")}
    if backend == "s3":
        from tests.s3_server import shared_server

        server = shared_server()
        return {"kind": "s3", "url": f"s3://{server.new_bucket()}/soak", "options": server.storage_options()}
    from tests.backends.docker import _SHARED

    container = _SHARED.get()
    return {"kind": "docker", "container": container.id, "workdir": f"/soak/{secrets.token_hex(4)}"}


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        _child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
        return
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--backend", choices=["local", "s3", "docker"], default="local")
    parser.add_argument("--seconds", type=float, default=60.0)
    parser.add_argument("--writers", type=int, default=3)
    parser.add_argument("--kill-every", type=float, default=None, help="mean seconds between SIGKILLs")
    parser.add_argument("--folder", default=None)
    args = parser.parse_args()
    import tempfile

    folder = Path(args.folder or tempfile.mkdtemp(prefix=f"soak-{args.backend}-"))
    kill_every = args.kill_every or KILL_EVERY[args.backend]
    figures = run(
        spec_for(args.backend, folder), folder, seconds=args.seconds, writers=args.writers, kill_every=kill_every
    )
    print(json.dumps({"backend": args.backend, "seconds": args.seconds, **figures}, indent=2))
    sys.exit(1 if figures["problems"] else 0)


if __name__ == "__main__":
    main()
