"""`offload run` driven the way a person uses it: on a pseudo-terminal, with Ctrl-C, kill and SIGHUP.

The process under test is ``python -m offloader run`` started on a fresh pty as
the session leader (the pty is its controlling terminal), so Ctrl-C is a real
``\\x03`` typed into the terminal and delivered by the line discipline.
"""

from __future__ import annotations

import os
import pty
import select
import signal
import subprocess
import sys
import termios
import textwrap
import time
from collections.abc import Callable
from pathlib import Path

import pytest

pytestmark = pytest.mark.skipif(sys.platform == "win32", reason="POSIX terminals and signals")

_OFFLOAD = [sys.executable, "-m", "offloader", "run"]


def _take_terminal() -> None:
    import fcntl

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


class Terminal:
    """``offload`` running on a pty; ``read_until`` collects what the terminal shows."""

    def __init__(self, args: list[str], cwd: Path) -> None:
        self.master, slave = pty.openpty()
        env = {**os.environ, "PYTHONPATH": os.getcwd(), "COLUMNS": "200"}
        self.proc = subprocess.Popen(
            args,
            stdin=slave,
            stdout=slave,
            stderr=slave,
            cwd=cwd,
            env=env,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
        os.close(slave)
        self.shown = b""

    def read_until(self, done: Callable[[bytes], bool], timeout: float = 60) -> float:
        """Read until ``done(shown)``; return when that happened (monotonic). Fails on timeout."""
        deadline = time.monotonic() + timeout
        while not done(self.shown):
            left = deadline - time.monotonic()
            assert left > 0, f"timed out; the terminal showed:\n{self.shown.decode(errors='replace')[-3000:]}"
            ready, _, _ = select.select([self.master], [], [], min(left, 0.5))
            if ready:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: every writer has gone
                    chunk = b""
                if not chunk:
                    assert done(self.shown), f"terminal closed early:\n{self.shown.decode(errors='replace')}"
                    break
                self.shown += chunk
        return time.monotonic()

    def finish(self, timeout: float = 60) -> int:
        """Read everything up to the terminal's end; the exit status."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if select.select([self.master], [], [], 0.5)[0]:
                try:
                    chunk = os.read(self.master, 65536)
                except OSError:  # EIO: every writer has gone
                    break
                if not chunk:
                    break
                self.shown += chunk
        os.close(self.master)
        return self.proc.wait(max(deadline - time.monotonic(), 1))

    @property
    def text(self) -> str:
        return self.shown.decode("utf-8", "replace").replace("\r\n", "\n")


def _gone(pid: int) -> bool:
    """No such process, or a zombie (an orphan's parent in a container may never reap it)."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        stat = Path(f"/proc/{pid}/stat")
        if stat.exists() and stat.read_text().rsplit(")", 1)[1].split()[0] == "Z":
            return True
        time.sleep(0.05)
    return False


def _script(tmp_path: Path, body: str) -> list[str]:
    path = tmp_path / "cmd.py"
    path.write_text(textwrap.dedent(body))
    return [sys.executable, "-u", str(path)]


def _stored(text: str) -> Path:
    ref = next(line.split(": ", 1)[1] for line in text.splitlines() if line.startswith("Full output: "))
    return Path(ref.strip())


def test_first_line_arrives_before_the_command_ends(tmp_path: Path) -> None:
    gate = tmp_path / "gate"
    cmd = _script(
        tmp_path,
        f"""
        import os, time
        print("first line", flush=True)
        deadline = time.monotonic() + 60
        while not os.path.exists({str(gate)!r}) and time.monotonic() < deadline:
            time.sleep(0.02)
        print("released" if os.path.exists({str(gate)!r}) else "gate timed out")
        """,
    )
    term = Terminal([*_OFFLOAD, "--workdir", "ws", "--", *cmd], tmp_path)
    term.read_until(lambda shown: b"first line" in shown, timeout=30)
    assert term.proc.poll() is None  # the command is still waiting for the gate: the line came live
    gate.touch()
    assert term.finish() == 0
    assert "first line" in term.text and "released" in term.text


def test_ctrl_c_keeps_the_output_and_its_preview_and_exits_130(tmp_path: Path) -> None:
    pidfile = tmp_path / "child.pid"
    cmd = _script(
        tmp_path,
        f"""
        import os, sys, time
        open({str(pidfile)!r}, "w").write(str(os.getpid()))
        for i in range(3000):
            print(f"step {{i}} ok")
            if i == 1500:
                print("FATAL: disk quota exceeded in step 1500", file=sys.stderr)
        print("all steps printed")
        time.sleep(120)
        """,
    )
    term = Terminal([*_OFFLOAD, "--workdir", "ws", "--", *cmd], tmp_path)
    term.read_until(lambda shown: b"all steps printed" in shown)
    os.write(term.master, b"\x03")  # Ctrl-C typed at the terminal
    started = time.monotonic()
    assert term.finish() == 130
    assert time.monotonic() - started < 30  # the 120 s sleep was interrupted
    text = term.text
    assert "interrupted by SIGINT" in text and "exit code 130" in text
    assert "FATAL: disk quota exceeded in step 1500" in text.split("Full output: ")[1]  # in the preview
    stored = _stored(text).read_text().splitlines()
    out = [line for line in stored if not line.startswith("[stderr] ")]
    assert out == [f"step {i} ok" for i in range(3000)] + ["all steps printed"]
    assert "[stderr] FATAL: disk quota exceeded in step 1500" in stored
    assert stored[-1] == "[stderr] KeyboardInterrupt"  # the command's own reaction to the forwarded SIGINT
    assert not [p for p in (tmp_path / "ws").rglob(".tmp-*")]
    assert _gone(int(pidfile.read_text()))


def test_stream_order_is_preserved_in_the_file_and_on_the_terminal(tmp_path: Path) -> None:
    cmd = _script(
        tmp_path,
        """
        import sys, time
        for i in range(40):
            print(f"out {i}", flush=True)
            time.sleep(0.01)
            print(f"err {i}", file=sys.stderr, flush=True)
            time.sleep(0.01)
        """,
    )
    term = Terminal(
        [*_OFFLOAD, "--workdir", "ws", "--max-tokens", "50", "--preview-tokens", "20", "--", *cmd], tmp_path
    )
    assert term.finish() == 0
    expected = [line for i in range(40) for line in (f"out {i}", f"[stderr] err {i}")]
    assert _stored(term.text).read_text().splitlines() == expected
    shown = [line for line in term.text.splitlines() if line.startswith(("out ", "err "))]
    assert shown[:80] == [line.removeprefix("[stderr] ") for line in expected]


def _offload(tmp_path: Path, *args: str, **kwargs: object) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*_OFFLOAD, "--workdir", str(tmp_path / "ws"), *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        **kwargs,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP])
def test_a_signal_is_forwarded_output_kept_no_orphans_no_temp_files(tmp_path: Path, sig: signal.Signals) -> None:
    pidfile = tmp_path / "pids"
    script = (
        f"sleep 300 & echo $! > {pidfile}.grandchild; echo $$ > {pidfile}; seq 1 100000; "
        "echo 'ERROR: before the signal' >&2; echo ready; wait"
    )
    proc = _offload(tmp_path, "--", "sh", "-c", script)
    deadline = time.monotonic() + 30
    while not list((tmp_path / "ws").rglob(".tmp-run-*")) or not pidfile.exists():
        assert time.monotonic() < deadline
        time.sleep(0.05)
    time.sleep(0.5)
    proc.send_signal(sig)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 128 + sig
    assert f"interrupted by {sig.name}" in out
    lines = _stored(out).read_text().splitlines()
    assert lines[:3] == ["1", "2", "3"] and "100000" in lines
    assert not list((tmp_path / "ws").rglob(".tmp-*"))
    for pid in (int(pidfile.read_text()), int(Path(f"{pidfile}.grandchild").read_text())):
        assert _gone(pid), pid


def test_a_command_killed_by_signal_9_exits_137(tmp_path: Path) -> None:
    proc = _offload(tmp_path, "--", "sh", "-c", "echo partial; kill -9 $$")
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 137 and "partial" in out and "[exit code 137]" in out


def test_binary_output_is_summarized_not_printed(tmp_path: Path) -> None:
    payload = "import os, sys; sys.stdout.buffer.write(b'\\x89PNG\\r\\n\\x1a\\n' + os.urandom(200000))"
    proc = _offload(tmp_path, "--", sys.executable, "-c", payload)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert "binary output" in out and "PNG image" in out and len(out) < 2000
    assert _stored(out).read_bytes().startswith(b"\x89PNG")
    small = _offload(tmp_path, "--", sys.executable, "-c", "import sys; sys.stdout.buffer.write(b'\\0\\1\\2' * 10)")
    out, _ = small.communicate(timeout=60)
    assert "binary output: 30 bytes" in out and "\0" not in out


def test_a_latin1_log_is_previewed_as_text_not_as_binary(tmp_path: Path) -> None:
    payload = (
        "import sys; lines = [f'INFO exported r\\xe9sum\\xe9 {i} for caf\\xe9' for i in range(30000)]; "
        "lines[15000] = 'ERROR could not open caf\\xe9.db: disk I/O error'; "
        "sys.stdout.buffer.write('\\n'.join(lines).encode('latin-1'))"
    )
    proc = _offload(tmp_path, "--", sys.executable, "-c", payload)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and "binary output" not in out
    assert "ERROR could not open caf\ufffd.db: disk I/O error" in out
    assert b"caf\xe9.db" in _stored(out).read_bytes()  # stored as the command wrote it


def test_pty_mode_gives_the_command_a_terminal(tmp_path: Path) -> None:
    script = (
        "import sys; print('tty' if sys.stdout.isatty() and sys.stderr.isatty() else 'pipe'); "
        "print('e', file=sys.stderr)"
    )
    proc = _offload(tmp_path, "--pty", "--", sys.executable, "-c", script)
    out, _ = proc.communicate(timeout=60)
    assert proc.returncode == 0 and out.splitlines() == ["tty", "e"]
    plain = _offload(tmp_path, "--", sys.executable, "-c", script)
    out, _ = plain.communicate(timeout=60)
    assert out.splitlines() == ["pipe", "[stderr] e"]
