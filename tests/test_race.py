"""Confinement under a race, on every backend that claims it (LocalWorkspace, file:// fsspec).

A separate process swaps ``sessions/s1``, ``sessions`` and ``data`` for symlinks
to a decoy folder and back while the workspace offloads, reads, greps, globs and
purges (see ``tests/race_support.py``). Pass: 0 files created, changed or removed
outside the workdir, and no outside content or name returned. Errors mid-flip are
fine. ``OFFLOAD_RACE_SECONDS`` sets the length (``nox -s race`` runs 60 s).
"""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from tests.race_support import MARK, Flipper, differences, drive, plant_decoy, race_seconds, settle, snapshot
from workspaces import LocalWorkspace
from workspaces.fsspec import FsspecWorkspace

pytestmark = pytest.mark.anyio

EXERCISED = {"offload_tool_result", "offload_context", "offload_data_block", "read", "grep", "glob", "purge_session"}
BACKENDS: dict[str, Callable[[Path], Any]] = {
    "local": lambda root: LocalWorkspace(root),
    "file": lambda root: FsspecWorkspace(f"file://{root}"),
}


@pytest.mark.parametrize("backend", sorted(BACKENDS))
async def test_no_escape_while_folders_flip_to_symlinks(tmp_path: Path, backend: str) -> None:
    root, decoy = tmp_path / "ws", tmp_path / "decoy"
    plant_decoy(decoy)
    before = snapshot(tmp_path, skip=root)
    async with BACKENDS[backend](root) as ws:
        assert ws.race_free_confinement
        await ws.offload_context("s1", [{"role": "user", "content": "warm up"}])
        with Flipper(root, decoy) as flipper:
            outcome = await drive(ws, race_seconds(), until=EXERCISED, overtime=flipper.overtime)
        settle(root)
    escapes = differences(before, snapshot(tmp_path, skip=root))
    print(f"\n{backend}: {len(escapes)} escapes, {len(outcome.leaks)} leaks; {outcome.summary()}")
    assert escapes == []
    assert outcome.leaks == []
    assert set(outcome.succeeded) >= EXERCISED, "an operation never got through the race: nothing was tested"


async def test_every_backend_that_claims_race_free_confinement_is_raced_here(workspace: Any) -> None:
    """The shared backends: exactly Local and file:// claim it, and both are in BACKENDS above."""
    local_fs = getattr(getattr(workspace, "_fs", None), "local", None) is not None
    name = "file" if local_fs else "local" if isinstance(workspace, LocalWorkspace) else type(workspace).__name__
    assert workspace.race_free_confinement == (name in BACKENDS)


def test_the_race_check_sees_a_write_through_a_swapped_folder(tmp_path: Path) -> None:
    """Control: a path-based writer (the old check-then-open) is caught by the same snapshot."""
    root, decoy = tmp_path / "ws", tmp_path / "decoy"
    plant_decoy(decoy)
    (root / "sessions").mkdir(parents=True)
    before = snapshot(tmp_path, skip=root)
    (root / "sessions" / "s1").symlink_to(decoy / "s1", target_is_directory=True)
    with open(os.path.join(root, "sessions/s1/context.jsonl"), "a") as f:  # what a name-based append does
        f.write("line\n")
    (root / "sessions" / "s1").unlink()
    assert differences(before, snapshot(tmp_path, skip=root)) == ["changed decoy/s1/context.jsonl"]
    assert MARK in (decoy / "s1" / "ledger.jsonl").read_text()


_HOSTILE_CHILD = r"""
import glob, os, sys
ws, decoy = sys.argv[1], sys.argv[2]
sys.stdout.write("line of output\n" * 50000)
sys.stdout.flush()
session = os.path.join(ws, "sessions", "cli")
os.rename(session, session + ".real")
os.makedirs(os.path.join(decoy, "cli"), exist_ok=True)
for tmp in glob.glob(os.path.join(session + ".real", ".tmp-run-*")):
    os.rename(tmp, os.path.join(decoy, "cli", os.path.basename(tmp)))
os.symlink(os.path.join(decoy, "cli"), session)
"""


def test_offload_run_child_cannot_redirect_the_stored_output(tmp_path: Path) -> None:
    """The command ``offload run`` runs swaps its session folder for a link while its output is stored."""
    root, decoy = tmp_path / "ws", tmp_path / "decoy"
    decoy.mkdir()
    done = subprocess.run(
        [sys.executable, "-m", "offloader.cli", "run", "--workdir", str(root), "--quiet", "--",
         sys.executable, "-c", _HOSTILE_CHILD, str(root), str(decoy)],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    planted = sorted(p.name for p in (decoy / "cli").iterdir())
    assert [n for n in planted if not n.startswith(".tmp-run-")] == [], done.stderr  # nothing of ours out there
    assert len(planted) == 1  # only the temp file the command itself moved out
    assert "Traceback" not in done.stderr
