"""The stored format of a captured command's output (``offload run``): one file, both streams.

Lines are stored in the order they were completed (a line is placed when its
newline arrives). A line the command wrote to stderr starts with
:data:`STDERR_MARK` (``"[stderr] "``); a stdout line is stored exactly as written.
An unfinished line longer than 1 MiB is written before its newline arrives; if a
line of the other stream comes next, a newline is inserted to end the long one
(its rest follows later as a new line). A last line without a newline is stored
without one. Output of stdout alone is therefore stored byte for byte. In
``--pty`` mode the command sees a terminal, which has one stream: every line
is stored as stdout.

Readers (previews, Grep, the signal engine) call :func:`split_stream` on a line to
learn its stream and its text without the mark.
"""

from __future__ import annotations

from typing import Literal

__all__ = ["STDERR_MARK", "STDERR_MARK_BYTES", "Stream", "mark_stderr_lines", "split_stream"]

Stream = Literal["stdout", "stderr"]

#: Prefix of every stored stderr line.
STDERR_MARK = "[stderr] "
STDERR_MARK_BYTES = STDERR_MARK.encode()


def split_stream(line: str) -> tuple[Stream, str]:
    """``(stream, text)`` of one stored line: the mark is removed from stderr lines."""
    if line.startswith(STDERR_MARK):
        return "stderr", line[len(STDERR_MARK) :]
    return "stdout", line


def mark_stderr_lines(complete_lines: bytes) -> bytes:
    """Prefix each line of ``complete_lines`` (which ends with a newline) with the mark."""
    body = complete_lines[:-1].replace(b"\n", b"\n" + STDERR_MARK_BYTES)
    return STDERR_MARK_BYTES + body + b"\n"
