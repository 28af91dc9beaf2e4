"""A second Docker engine of a test's own, so the test may SIGKILL and restart it.

The shared engine (``/var/run/docker.sock``, started by ``.ci/docker-up.sh``)
serves every other test and must never be killed. This one gets its own socket,
data root, exec root, pidfile and (empty) config file under one short folder in
``/tmp`` (unix socket paths are limited to 108 bytes). Same options as CI's
engine: no iptables, no bridge, vfs storage. Needs root and ``dockerd``.

``kill()`` is the crash: dockerd and the containerd it started both get
SIGKILL. Containers' shims survive it; what happens to their processes on
``start()`` depends on ``live_restore`` (see ``tests/test_faults_docker.py``).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import time
from pathlib import Path
from typing import Any

__all__ = ["PrivateEngine"]

_START_SECONDS = 60.0


class PrivateEngine:
    """``dockerd`` on ``unix://<root>/d.sock``; ``start()``, ``kill()``, ``stop()`` (blocking calls)."""

    def __init__(self, *, live_restore: bool) -> None:
        self.live_restore = live_restore
        self.root = Path(tempfile.mkdtemp(prefix="ofl-dk-", dir="/tmp"))
        self.url = f"unix://{self.root}/d.sock"
        (self.root / "daemon.json").write_text("{}")
        self._proc: subprocess.Popen[bytes] | None = None
        self.starts = 0

    def argv(self) -> list[str]:
        r = self.root
        argv = ["dockerd", "--config-file", f"{r}/daemon.json", "-H", self.url, "--data-root", f"{r}/data"]
        argv += ["--exec-root", f"{r}/x", "--pidfile", f"{r}/d.pid", "--iptables=false", "--bridge=none"]
        argv += ["--storage-driver=vfs", "--log-level=warn"]
        return argv + (["--live-restore"] if self.live_restore else [])

    def client(self, timeout: int = 20) -> Any:
        import docker

        return docker.DockerClient(base_url=self.url, timeout=timeout)

    def start(self) -> None:
        """Start dockerd and wait until it answers; RuntimeError (with its log) if it does not."""
        self.starts += 1
        log = open(self.root / f"dockerd-{self.starts}.log", "wb")  # noqa: SIM115 - the child keeps writing to it
        with log:
            self._proc = subprocess.Popen(self.argv(), stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
        deadline = time.monotonic() + _START_SECONDS
        while True:
            if self._proc.poll() is not None:
                raise RuntimeError(f"dockerd exited with {self._proc.returncode}: {self.log_tail()}")
            with contextlib.suppress(Exception):
                client = self.client(timeout=5)  # asks the engine for its API version at once
                client.close()
                return
            if time.monotonic() > deadline:
                raise RuntimeError(f"dockerd did not answer within {_START_SECONDS} s: {self.log_tail()}")
            time.sleep(0.1)

    def kill(self) -> None:
        """SIGKILL dockerd and its containerd, as a crash would; reap them; drop their stale pidfiles."""
        if self._proc is None:
            return
        containerd = self._containerd_pid()
        self._proc.kill()
        self._proc.wait()
        self._proc = None
        if containerd is not None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(containerd, signal.SIGKILL)
        for stale in (self.root / "d.pid", self.root / "x" / "containerd" / "containerd.pid"):
            stale.unlink(missing_ok=True)

    def stop(self) -> None:
        """Remove every container (live-restored ones outlive dockerd), stop dockerd, delete the folder."""
        if self._proc is not None:
            with contextlib.suppress(Exception):
                client = self.client()
                for container in client.containers.list(all=True):
                    with contextlib.suppress(Exception):
                        container.remove(force=True)
                client.close()
            self._proc.terminate()
            try:
                self._proc.wait(20)
            except subprocess.TimeoutExpired:
                self.kill()
            self._proc = None
        for mount in self._mounts():  # dockerd bind-mounts its data root onto itself and leaves it
            subprocess.run(["umount", "-l", mount], capture_output=True)
        shutil.rmtree(self.root, ignore_errors=True)

    def _mounts(self) -> list[str]:
        """Mount points under our folder, deepest first (``/proc/self/mountinfo``'s fifth field)."""
        with open("/proc/self/mountinfo") as f:
            points = [line.split()[4].replace("\\040", " ") for line in f]
        mine = [p for p in points if p == str(self.root) or p.startswith(f"{self.root}/")]
        return sorted(set(mine), key=len, reverse=True)

    def log_tail(self, lines: int = 20) -> str:
        logs = sorted(self.root.glob("dockerd-*.log"))
        return "\n".join(logs[-1].read_text(errors="replace").splitlines()[-lines:]) if logs else ""

    def _containerd_pid(self) -> int | None:
        """The containerd this dockerd started (its pidfile under our exec root), if it is ours."""
        with contextlib.suppress(OSError, ValueError):
            pid = int((self.root / "x" / "containerd" / "containerd.pid").read_text().strip())
            if str(self.root) in Path(f"/proc/{pid}/cmdline").read_text(errors="replace"):
                return pid
        return None
