"""The confinement race: a second process swaps workdir folders for symlinks while a workspace works.

``run_race`` drives a workspace (offload_tool_result, offload_context,
offload_data_block, read, grep, glob, purge_session) for ``seconds`` while a
flipper (a separate process, or a shell loop inside a container) keeps turning
``sessions/s1``, ``sessions`` and ``data`` into symlinks to a decoy folder
outside the workdir and back. The decoy mirrors the layout and holds files
carrying ``MARK``, so a write through a swapped link changes or adds a file
there and a read, grep or glob through one returns ``MARK`` or a decoy name.

Errors while the folders flip are expected and counted, not failures. The
outcome counts escapes (decoy files created, changed or removed) and leaks
(outside content or names returned to the caller).
"""

from __future__ import annotations

import hashlib
import os
import random
import secrets
import subprocess
import sys
import threading
import time
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from offloader import DataBlock, TextBlock, ToolResultBlock

MARK = "OUTSIDE-DECOY-7f3a"
#: Decoy files a redirected path would reach: (path under the decoy root, content).
DECOY_FILES = (
    "s1/ledger.jsonl",
    "s1/context.jsonl",
    f"s1/{MARK}-s1.txt",
    "sessions/s1/ledger.jsonl",
    "sessions/s1/context.jsonl",
    f"sessions/{MARK}-sessions.txt",
    f"data/{MARK}-data.txt",
)
#: Workdir folder -> decoy folder it is swapped to.
FLIPS = (("sessions/s1", "s1"), ("sessions", "sessions"), ("data", "data"))
DEFAULT_SECONDS = 10.0


def race_seconds() -> float:
    """Seconds per backend: ``OFFLOAD_RACE_SECONDS`` (60 for the full run), else a CI-sized default."""
    return float(os.environ.get("OFFLOAD_RACE_SECONDS", DEFAULT_SECONDS))


def plant_decoy(decoy: Path) -> None:
    for rel in DECOY_FILES:
        path = decoy / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f'{{"note":"{MARK}"}}\n')


def snapshot(top: Path, *, skip: Path | None = None) -> dict[str, str]:
    """Every entry under ``top`` (links not followed): path -> kind and content digest."""
    seen: dict[str, str] = {}
    for dirpath, dirnames, filenames in os.walk(top):
        if skip is not None:
            dirnames[:] = [d for d in dirnames if Path(dirpath, d) != skip]
        for name in dirnames + filenames:
            path = Path(dirpath, name)
            rel = str(path.relative_to(top))
            if path.is_symlink():
                seen[rel] = f"link:{os.readlink(path)}"
            elif path.is_dir():
                seen[rel] = "dir"
            else:
                try:
                    seen[rel] = hashlib.sha256(path.read_bytes()).hexdigest()
                except OSError as exc:
                    seen[rel] = f"unreadable:{exc.errno}"
    return seen


def differences(before: dict[str, str], after: dict[str, str]) -> list[str]:
    out = [f"created {p}" for p in after.keys() - before.keys()]
    out += [f"removed {p}" for p in before.keys() - after.keys()]
    out += [f"changed {p}" for p in before.keys() & after.keys() if before[p] != after[p]]
    return sorted(out)


#: The marker that slows the flippers down when the race has gone into overtime (see ``flip_forever``).
OVERTIME = "flip-overtime"


def flip_forever(root: str, decoy: str, stop: threading.Event | None = None) -> None:
    """Swap each flipped folder for a symlink to its decoy and back, as fast as possible.

    The flipper itself works through descriptors (``O_NOFOLLOW``), so it never renames
    anything inside the decoy when an outer folder is a link at that moment. Once a
    file named :data:`OVERTIME` exists beside the decoy, the folders stay real for up
    to 20 ms between rounds of flips (still flipping), so that an operation the race
    has starved so far gets through and is tested too.
    """
    overtime = os.path.join(os.path.dirname(decoy.rstrip("/")), OVERTIME)
    top = os.open(root, os.O_RDONLY | os.O_DIRECTORY)
    flips = [(rel.rpartition("/"), os.path.join(decoy, target)) for rel, target in FLIPS]
    nofollow = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
    while stop is None or not stop.is_set():
        for (parent, _, name), target in flips:
            stash = f"{name}.real-{random.getrandbits(32):08x}"  # never blocked by an orphaned stash
            try:
                fd = os.open(parent, nofollow, dir_fd=top) if parent else os.dup(top)
            except OSError:
                continue
            try:
                moved = False
                try:
                    os.rename(name, stash, src_dir_fd=fd, dst_dir_fd=fd)
                    moved = True
                except FileNotFoundError:
                    pass
                os.symlink(target, name, dir_fd=fd)
                if random.random() < 0.3:
                    time.sleep(0)
                os.unlink(name, dir_fd=fd)
                if moved:
                    os.rename(stash, name, src_dir_fd=fd, dst_dir_fd=fd)
            except OSError:
                pass
            finally:
                os.close(fd)
        # Now and then every folder stays real for up to a millisecond, so that an operation whose walk is
        # long (a ranged read through several folders) can also get through; the flips resume at once.
        if random.random() < 0.5:
            time.sleep(random.uniform(0, 0.02 if os.path.exists(overtime) else 0.001))


class Flipper:
    """Flippers running while the workspace works: threads in this process (they switch at every
    syscall that releases the GIL, so they land between a check and a use) plus one separate
    process (true parallelism)."""

    def __init__(self, root: Path, decoy: Path, *, threads: int = 1, processes: int = 1) -> None:
        self._stop = threading.Event()
        self._decoy = decoy
        self._threads = [
            threading.Thread(target=flip_forever, args=(str(root), str(decoy), self._stop), daemon=True)
            for _ in range(threads)
        ]
        for t in self._threads:
            t.start()
        code = "import sys; from tests.race_support import flip_forever; flip_forever(sys.argv[1], sys.argv[2])"
        env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(Path(__file__).parent.parent), *sys.path])}
        self._procs = [
            subprocess.Popen([sys.executable, "-c", code, str(root), str(decoy)], env=env) for _ in range(processes)
        ]

    def overtime(self) -> None:
        """Leave the folders real for longer between flips (see :func:`flip_forever`)."""
        (self._decoy.parent / OVERTIME).touch()

    def stop(self) -> None:
        self._stop.set()
        for p in self._procs:
            p.kill()
            p.wait()
        for t in self._threads:
            t.join()
        (self._decoy.parent / OVERTIME).unlink(missing_ok=True)  # not part of what the race may leave behind

    def __enter__(self) -> Flipper:
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()


def settle(root: Path) -> None:
    """Remove a symlink left by a flipper killed mid-flip (stashed folders stay, inside the workdir)."""
    for rel, _ in FLIPS:
        path = root / rel
        if path.is_symlink():
            path.unlink()


@dataclass
class RaceOutcome:
    ops: int = 0
    errors: int = 0
    leaks: list[str] = field(default_factory=list)
    error_kinds: dict[str, int] = field(default_factory=dict)
    succeeded: dict[str, int] = field(default_factory=dict)

    def summary(self) -> str:
        return f"{self.ops} calls, {self.errors} failed mid-flip {self.error_kinds}, succeeded {self.succeeded}"

    def failed(self, exc: BaseException) -> None:
        self.errors += 1
        kind = type(exc).__name__
        self.error_kinds[kind] = self.error_kinds.get(kind, 0) + 1


def _check(outcome: RaceOutcome, what: str, text: Any) -> None:
    body = text.decode("utf-8", "replace") if isinstance(text, bytes) else str(text)
    if MARK in body:
        outcome.leaks.append(f"{what} returned outside content: {body[:200]!r}")


async def drive(
    ws: Any,
    seconds: float,
    *,
    workers: int = 3,
    until: Iterable[str] = (),
    overtime: Callable[[], None] | None = None,
) -> RaceOutcome:
    """Run every operation in a loop from ``workers`` tasks for ``seconds``; then go on (up to three times as
    long again) while an operation named in ``until`` has not yet succeeded once, as on a loaded machine,
    calling ``overtime`` once when that begins (the flippers then leave longer gaps)."""
    outcome = RaceOutcome()
    start = time.monotonic()
    wanted = set(until)
    late: list[bool] = []

    def racing() -> bool:
        elapsed = time.monotonic() - start
        if elapsed < seconds:
            return True
        if wanted <= set(outcome.succeeded) or elapsed >= 4 * seconds:
            return False
        if overtime is not None and not late:
            late.append(True)
            overtime()
        return True

    async def attempt(what: str, op: Callable[..., Awaitable[Any]], *args: Any) -> Any:
        outcome.ops += 1
        try:
            result = await op(*args)
        except Exception as exc:  # errors mid-flip are expected
            outcome.failed(exc)
            return None
        outcome.succeeded[what] = outcome.succeeded.get(what, 0) + 1
        _check(outcome, what, result)
        return result

    async def worker(w: int) -> None:
        i = 0
        while racing():
            i += 1
            blob = secrets.token_bytes(64)
            result = ToolResultBlock(
                f"t{w}-{i}", "bash", (TextBlock(f"out {w} {i}"), DataBlock("image/png", data=blob, name="x.png"))
            )
            ref = await attempt("offload_tool_result", ws.offload_tool_result, "s1", result)
            if isinstance(ref, str):
                await attempt("read_bytes", ws.read_bytes, ref)
            msg = {"role": "user", "content": [{"type": "text", "text": f"m{w}-{i}"}]}
            await attempt("offload_context", ws.offload_context, "s1", [msg])
            block = DataBlock("image/png", data=secrets.token_bytes(48))
            await attempt("offload_data_block", ws.offload_data_block, block)
            for rel in ("sessions/s1/context.jsonl", "sessions/s1/ledger.jsonl", f"sessions/s1/{MARK}-s1.txt"):
                await attempt("read", ws.read, rel)
            await attempt("grep", ws.grep, "DECOY|note", "")
            await attempt("glob", ws.glob, "**/*")
            if i % 7 == 0:
                await attempt("purge_session", ws.purge_session, "s1")
            await anyio.sleep(0)

    async with anyio.create_task_group() as tg:
        for w in range(workers):
            tg.start_soon(worker, w)
    return outcome
