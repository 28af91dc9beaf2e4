"""What every corpus case shares: the case registry, running a command, writing files."""

from __future__ import annotations

import os
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
