"""What the signal engine attaches to one line: tests of its context rules."""

from __future__ import annotations

from offloader.signal._context import attach_context
from offloader.signal._rank import rank
from offloader.signal._scan import scan


def context_of(lines: list[str], lineno: int) -> list[int]:
    """The line numbers the engine shows with line ``lineno`` of the output made of ``lines``."""
    found = scan(("\n".join(lines) + "\n").encode())
    unit = next(u for u in rank(found) if u.lineno == lineno)
    attach_context(found, unit)
    return sorted(n for n, _, _ in unit.context)
