"""What every corpus case shares: the case registry, running a command, writing files."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import textwrap
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

HERE = Path(__file__).resolve().parent
OUT = HERE / "outputs"
LABELS = HERE / "labels.json"
PY = sys.executable
VENV_BIN = Path(sys.executable).parent


@dataclass
class Case:
    name: str
    tool: str
    clean: bool
    decisive: list[str]
    make: Callable[[Path], bytes]
    note: str = ""
    tags: list[str] = field(default_factory=list)
    group: str = ""  # "" for the first corpus; a name for a set added later as held-out outputs


CASES: list[Case] = []

#: The business areas the held-out scenarios name their files, services and tables after.
WORDS = [
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
]  # fmt: skip


def case(
    name: str, tool: str, *, clean: bool, decisive: list[str], note: str = "", group: str = ""
) -> Callable[..., object]:
    def register(fn: Callable[[Path], bytes]) -> Callable[[Path], bytes]:
        CASES.append(Case(name, tool, clean, decisive, fn, note, group=group))
        return fn

    return register


def sh(cmd: str, cwd: Path, *, env: dict[str, str] | None = None, timeout: int = 600) -> bytes:
    """Run ``cmd`` with stderr merged into stdout (arrival order); return the bytes."""
    full = {**os.environ, "LC_ALL": "C.UTF-8", "NO_COLOR": "1", "TERM": "dumb", **(env or {})}
    full["PATH"] = f"{VENV_BIN}:{full.get('PATH', '')}"
    proc = subprocess.run(
        cmd, shell=True, cwd=cwd, env=full, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, timeout=timeout
    )
    return proc.stdout + f"[exit status {proc.returncode}]\n".encode() if proc.returncode else proc.stdout


def write(root: Path, files: dict[str, str]) -> None:
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text).lstrip("\n"))


def label(c: Case) -> dict[str, object]:
    """The entry of ``c`` in labels.json."""
    out: dict[str, object] = {"tool": c.tool, "clean": c.clean, "decisive": c.decisive}
    if c.group:
        out["group"] = c.group
    return out


def busybox_image(root: Path) -> str:
    """A tiny image made of the host's busybox (no registry needed); its tag."""
    tag = "offloader-corpus/busybox:1"
    rootfs = root / "rootfs"
    (rootfs / "bin").mkdir(parents=True)
    shutil.copy("/bin/busybox", rootfs / "bin" / "busybox")
    for applet in ("sh", "echo", "ls", "cat", "false", "sleep", "mkdir", "seq", "touch"):
        (rootfs / "bin" / applet).symlink_to("busybox")
    sh(f"tar -C {rootfs} -c . | docker import - {tag}", root)
    return tag


def scrub(out: bytes, root: Path) -> bytes:
    """``out`` with the scenario's temporary folder written as ``/tmp/work`` (the same bytes on every run)."""
    return out.replace(str(root).encode(), b"/tmp/work")


def substitute(out: bytes, *pairs: tuple[str, str]) -> bytes:
    """``out`` with each regular expression of ``pairs`` replaced, line-anchored (a PID, port, timestamp,
    duration or thread count: what differs between two runs of the same scenario)."""
    for pattern, repl in pairs:
        out = re.sub(pattern.encode(), repl.encode(), out, flags=re.M)
    return out


#: Which pip the Python tools of a scenario install with: the machine's pip configuration (extra indexes, a
#: wheel folder, constraints) left out, so that only the pinned versions from the registry are seen.
PIP_ISOLATED = "env -u PIP_FIND_LINKS -u PIP_CONSTRAINT PIP_CONFIG_FILE=/dev/null"


#: Where the scenarios keep their virtual environments of pinned tools between runs.
VENVS = Path("/tmp/offloader-corpus-venvs")


def make_venv(venv: Path, reqs: str, *, pip_options: str = "", isolated: bool = True) -> Path:
    """A virtual environment at ``venv`` with ``reqs`` (pinned) installed, made once and kept between runs (a
    ``.complete`` mark says it was made whole); ``isolated`` leaves the machine's pip configuration out."""
    if not (venv / ".complete").exists():
        venv.parent.mkdir(parents=True, exist_ok=True)
        prefix = f"{PIP_ISOLATED} " if isolated else ""
        options = f"{pip_options} " if pip_options else ""
        sh(
            f"{PY} -m venv {venv} && {prefix}{venv}/bin/pip install -q {options}{reqs} && touch {venv / '.complete'}",
            venv.parent,
        )
    return venv


def py_tools(root: Path, reqs: str, *, deps: bool = True) -> str:
    """``reqs`` (pinned) installed in ``root/tools``, their dependencies too unless ``deps`` is False; the
    environment prefix that runs them."""
    tools = root / "tools"
    no_deps = "" if deps else " --no-deps"
    sh(f"{PIP_ISOLATED} {PY} -m pip install -q --no-cache-dir{no_deps} --target {tools} {reqs}", root)
    return f"{PIP_ISOLATED} PYTHONPATH={tools} PATH={tools / 'bin'}:$PATH"
