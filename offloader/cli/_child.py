"""Running the command ``offload run`` wraps: live tee, one stored file, signals forwarded.

The command runs in its own process group, so a signal ``offload`` receives
(Ctrl-C at the terminal, ``kill``, a closed terminal) is forwarded to the whole
group; ``offload`` then keeps draining until the command has gone, removes any
process of the group that outlived it, and reports the signal. Both streams are
read by this process (never handed to the command as files), so a full disk is
seen here and the pipes are still drained to the end. The stored format is
described in :mod:`offloader.core.streams`.
"""

from __future__ import annotations

import contextlib
import os
import selectors
import signal
import subprocess
import sys
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from types import FrameType
from typing import IO

from offloader.core.streams import STDERR_MARK_BYTES, Stream, mark_stderr_lines

__all__ = ["FORWARDED_SIGNALS", "Capture", "SignalForwarder", "capture", "exit_status", "forward_signals"]

#: Signals forwarded to the command's process group; ``offload`` then exits with 128 + N.
FORWARDED_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)
_READ = 1 << 16
#: An unfinished line longer than this is written out before its newline arrives (bounded memory).
_MAX_PENDING = 1 << 20
#: After this many forwarded signals the group is killed (a command that ignores them).
_KILL_AFTER = 3
_POLL = 0.25


@dataclass
class SignalForwarder:
    """Signals received while installed, forwarded to ``pgid`` while it is set."""

    pgid: int | None = None
    received: list[int] = field(default_factory=list)

    def handle(self, signum: int, frame: FrameType | None) -> None:
        self.received.append(signum)
        if self.pgid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(self.pgid, signal.SIGKILL if len(self.received) >= _KILL_AFTER else signum)

    @property
    def first(self) -> int | None:
        return self.received[0] if self.received else None


@contextlib.contextmanager
def forward_signals() -> Iterator[SignalForwarder]:
    """Install the forwarding handlers for the block; the previous handlers come back after it."""
    forwarder = SignalForwarder()
    previous = {s: signal.signal(s, forwarder.handle) for s in FORWARDED_SIGNALS}
    try:
        yield forwarder
    finally:
        for s, handler in previous.items():
            signal.signal(s, handler)


@dataclass
class Capture:
    """What the command did and what was stored."""

    returncode: int
    lines: int = 0
    stderr_lines: int = 0
    bytes: int = 0
    failure: OSError | None = None


class _Interleaver:
    """Writes lines of both streams to one file in arrival order, stderr lines marked."""

    def __init__(self, dst: IO[bytes]) -> None:
        self._dst = dst
        self._pending: dict[Stream, bytearray] = {"stdout": bytearray(), "stderr": bytearray()}
        self._open: Stream | None = None  # the stream whose line was written without its newline
        self.lines = 0
        self.stderr_lines = 0
        self.bytes = 0
        self.failure: OSError | None = None

    def feed(self, stream: Stream, data: bytes) -> None:
        pending = self._pending[stream]
        last = data.rfind(b"\n")
        if last < 0:
            pending += data
            if len(pending) > _MAX_PENDING:
                self._emit(stream, bytes(pending), complete=False)
                pending.clear()
            return
        complete = bytes(pending) + data[: last + 1]
        pending[:] = data[last + 1 :]
        self._emit(stream, complete, complete=True)

    def close(self) -> None:
        for stream in ("stdout", "stderr"):
            if self._pending[stream]:
                self._emit(stream, bytes(self._pending[stream]), complete=False)
                self._pending[stream].clear()

    def _emit(self, stream: Stream, data: bytes, *, complete: bool) -> None:
        """Write ``data``: whole lines when ``complete``, else a piece of one line (no newline in it)."""
        parts: list[bytes] = []
        continuing = self._open == stream
        if self._open is not None and not continuing:
            parts.append(b"\n")  # the other stream's unfinished line ends here
            self.lines += 1
        if stream == "stderr":
            body = mark_stderr_lines(data) if complete else STDERR_MARK_BYTES + data
            parts.append(body[len(STDERR_MARK_BYTES) :] if continuing else body)
            self.stderr_lines += (data.count(b"\n") if complete else 1) - (1 if continuing else 0)
        else:
            parts.append(data)
        self.lines += data.count(b"\n")
        self._open = None if complete else stream
        self._write(b"".join(parts))

    def _write(self, data: bytes) -> None:
        self.bytes += len(data)
        if self.failure is not None:
            return  # keep draining so the command is never blocked
        try:
            view = memoryview(data)
            while view:
                view = view[self._dst.write(view) or 0 :]
        except OSError as exc:
            self.failure = exc

    def finish(self) -> None:
        if self._open is not None:
            self.lines += 1  # a final line without its newline still counts


def _spawn(command: Sequence[str], pty_mode: bool) -> tuple[subprocess.Popen[bytes], dict[int, Stream]]:
    if not pty_mode:
        stdin = subprocess.DEVNULL if _isatty(0) else None  # a background group must not read the terminal
        proc = subprocess.Popen(
            list(command), stdin=stdin, stdout=subprocess.PIPE, stderr=subprocess.PIPE, process_group=0
        )
        assert proc.stdout is not None and proc.stderr is not None
        return proc, {proc.stdout.fileno(): "stdout", proc.stderr.fileno(): "stderr"}
    import pty
    import termios

    master, slave = pty.openpty()
    try:
        attrs = termios.tcgetattr(slave)
        attrs[1] &= ~termios.ONLCR  # store "\n", not the terminal's "\r\n"
        termios.tcsetattr(slave, termios.TCSANOW, attrs)
        _copy_window_size(slave)
        proc = subprocess.Popen(
            list(command),
            stdin=slave,
            stdout=slave,
            stderr=slave,
            start_new_session=True,
            preexec_fn=_take_terminal,
        )
    except BaseException:
        os.close(master)
        raise
    finally:
        os.close(slave)
    return proc, {master: "stdout"}


def _take_terminal() -> None:
    import fcntl
    import termios

    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def _copy_window_size(fd: int) -> None:
    import fcntl
    import termios

    for source in (1, 0, 2):
        if _isatty(source):
            with contextlib.suppress(OSError):
                fcntl.ioctl(fd, termios.TIOCSWINSZ, fcntl.ioctl(source, termios.TIOCGWINSZ, b"\0" * 8))
            return


def _isatty(fd: int) -> bool:
    try:
        return os.isatty(fd)
    except OSError:
        return False


def capture(
    command: Sequence[str], dst: IO[bytes], forwarder: SignalForwarder, *, tee: bool, pty_mode: bool = False
) -> Capture:
    """Run ``command`` to its end, storing its output in ``dst`` and (with ``tee``) echoing it live."""
    sink = _Interleaver(dst)
    proc, fds = _spawn(command, pty_mode)
    forwarder.pgid = proc.pid
    if forwarder.received:  # a signal arrived while the command was starting
        forwarder.handle(forwarder.received.pop(), None)
    echo: dict[str, IO[bytes]] = {"stdout": sys.stdout.buffer, "stderr": sys.stderr.buffer} if tee else {}
    try:
        with selectors.DefaultSelector() as sel:
            for fd, stream in fds.items():
                sel.register(fd, selectors.EVENT_READ, stream)
            while sel.get_map():
                for key, _ in sel.select(_POLL):
                    try:
                        chunk = os.read(key.fd, _READ)
                    except OSError:  # a pty whose last writer has gone (EIO)
                        chunk = b""
                    if not chunk:
                        sel.unregister(key.fd)
                        continue
                    sink.feed(key.data, chunk)
                    if key.data in echo:
                        try:
                            echo[key.data].write(chunk)
                            echo[key.data].flush()
                        except (OSError, ValueError):  # a closed pipe or a hung-up terminal: stop echoing, keep storing
                            echo.pop(key.data)
                if forwarder.received and _exited(proc.pid):
                    _kill_group(proc.pid)  # the command has gone: nothing of its group may outlive it
        sink.close()
        sink.finish()
        if forwarder.received:
            _kill_group(proc.pid)
        returncode = proc.wait()
    finally:
        forwarder.pgid = None
        for fd in fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        if proc.returncode is None:  # an error in this process: leave nothing running
            _kill_group(proc.pid)
            proc.wait()
    return Capture(returncode, sink.lines, sink.stderr_lines, sink.bytes, sink.failure)


def _exited(pid: int) -> bool:
    """True when the child has exited (without reaping it, so its group id stays reserved)."""
    try:
        info = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
    except ChildProcessError:
        return True
    return info is not None


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def exit_status(returncode: int, received: int | None) -> int:
    """What ``offload`` exits with: 128 + N for a signal N it received, or one that killed the command."""
    if received is not None:
        return 128 + received
    return 128 - returncode if returncode < 0 else returncode
