#!/usr/bin/env python3
"""Fresh-install smoke: build the wheel, install it into a new venv once per extra, smoke-run each feature.

Catches a dependency a feature imports but its extra does not declare (the way
``sniffio`` once was): each venv holds only what ``pip install 'offloader[EXTRA]'``
brings. The checks themselves are in ``.ci/smoke_checks.py`` and run inside each
venv from a temporary folder, so the installed wheel is imported, never the
source tree. Every example names its install (``Install (from a checkout): ...``
in its docstring) and is run in the venv of exactly that install.

    python3 .ci/wheel_smoke.py            # core and every feature extra (not the union, ``all``)
    python3 .ci/wheel_smoke.py core mcp   # only these
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import tomllib
import venv
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
#: Extras for developing offloader itself, not features of it.
DEV_EXTRAS = {"test", "bench", "dev", "docs", "peers"}
#: ``all`` is the union of the feature extras, each smoke-run on its own here; that the union resolves is shown by
#: ``nox -s tests``, whose fresh venv installs ``.[test]`` (which includes ``all``). Ask for it by name to run it.
UNION_EXTRAS = {"all"}
_INSTALL = re.compile(r"^Install \(from a checkout\): ``pip install -e (?:'\.\[([\w,-]+)\]'|\.)``", re.MULTILINE)


def targets() -> list[str]:
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]
    return ["core", *(e for e in extras if e not in DEV_EXTRAS)]


def default_targets() -> list[str]:
    return [t for t in targets() if t not in UNION_EXTRAS]


def examples_by_target() -> dict[str, list[str]]:
    """Each example under the install its docstring names; an example that names none is an error."""
    found: dict[str, list[str]] = {}
    for script in sorted((ROOT / "examples").glob("*.py")):
        if script.name.startswith("_"):
            continue
        m = _INSTALL.search(script.read_text())
        if m is None:
            sys.exit(f"{script.name}: its docstring names no install ('Install (from a checkout): ``pip ...``')")
        found.setdefault(m.group(1) or "core", []).append(script.name)
    return found


def build_wheel(out: Path) -> Path:
    subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps", "-w", str(out), str(ROOT)], check=True)
    (wheel,) = out.glob("offloader-*.whl")
    return wheel


def smoke(target: str, wheel: Path, examples: list[str], work: Path) -> str:
    """Install ``wheel[target]`` into a new venv and run the checks there; a report line (raises on failure)."""
    started = time.monotonic()
    env_dir = work / f"venv-{target}"
    venv.create(env_dir, with_pip=True)
    python = env_dir / "bin" / "python"
    spec = str(wheel) if target == "core" else f"{wheel}[{target}]"
    _run(target, [str(python), "-m", "pip", "install", "-q", "--disable-pip-version-check", spec])
    run_dir = work / f"run-{target}"
    run_dir.mkdir()
    shutil.copy(ROOT / ".ci" / "smoke_checks.py", run_dir)
    for name in examples:
        shutil.copy(ROOT / "examples" / name, run_dir / name)
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "VIRTUAL_ENV")}
    env["PATH"] = f"{env_dir}/bin:{env['PATH']}"
    out = _run(target, [str(python), "smoke_checks.py", target, *examples], cwd=run_dir, env=env)
    shutil.rmtree(env_dir, ignore_errors=True)  # keep the disk footprint small
    return f"smoke {target}: ok ({time.monotonic() - started:.0f} s)" + "".join(f"\n{line}" for line in out)


def _run(target: str, argv: list[str], **kwargs: Any) -> list[str]:
    done = subprocess.run(argv, capture_output=True, text=True, **kwargs)
    if done.returncode:
        raise SmokeFailed(f"smoke {target}: {' '.join(argv[-3:])} exited {done.returncode}\n{done.stdout}{done.stderr}")
    return done.stdout.splitlines()


class SmokeFailed(Exception):
    """One target's install or checks failed; the message holds its output."""


def main(argv: list[str]) -> int:
    jobs = int(os.environ.get("OFFLOAD_SMOKE_JOBS", "2"))  # pip and imports are partly I/O: two at once pay off
    known = targets()
    chosen = argv or default_targets()
    unknown = sorted(set(chosen) - set(known))
    if unknown:
        sys.exit(f"unknown targets {unknown}; known: {known}")
    by_target = examples_by_target()
    stray = sorted(set(by_target) - set(known))
    if stray:
        sys.exit(f"examples name installs that are not extras: {stray}")
    failed: list[str] = []
    with tempfile.TemporaryDirectory(prefix="offload-wheel-smoke-") as tmp:
        work = Path(tmp)
        wheel = build_wheel(work / "dist")
        print(f"built {wheel.name}; {len(chosen)} fresh installs, {jobs} at a time", flush=True)
        with ThreadPoolExecutor(max_workers=jobs) as pool:
            running = {pool.submit(smoke, t, wheel, by_target.get(t, []), work): t for t in chosen}
            for future in as_completed(running):
                try:
                    print(future.result(), flush=True)
                except SmokeFailed as exc:
                    failed.append(running[future])
                    print(exc, flush=True)
    if failed:
        print(f"FAILED: {', '.join(sorted(failed))}", flush=True)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
