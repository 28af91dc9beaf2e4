"""Failure excerpts from the middle of a compact JSON document.

A compact (one-line) JSON document is previewed as its shape and a pretty-printed
head; an error reported deep inside it (one failed record among thousands, one
linter message in a report) is out of the head's reach. The prior scanner (one pass,
the same table as for text) finds where failure words are; each match is shown as
the innermost JSON object around it, if that object is failure evidence itself.
"""

from __future__ import annotations

from typing import Any

from ._patterns import make_scanner
from ._rank import template, weights

__all__ = ["EXCERPT_BYTES", "json_excerpts"]

#: Compact JSON up to this size is scanned for excerpts (a larger one keeps its shape and ends).
EXCERPT_BYTES = 256 * 1024
#: How far from a match the enclosing object's braces are looked for.
REACH = 400
#: An object is failure evidence when its strongest failure prior weighs at least this much.
EXCERPT_WEIGHT = 2.5


def json_excerpts(data: Any, skip: int, limit: int) -> list[tuple[int, str]]:
    """Up to ``limit`` (byte offset, object text) excerpts after byte ``skip``, one per template."""
    found: list[tuple[int, str]] = []
    seen: set[str] = set()
    last = -1
    for end in sorted(make_scanner(failures_only=True, line_starts=False).offsets(data)):
        if end <= max(skip, last) or len(found) >= limit:
            continue
        lo = data.rfind(b"{", max(0, end - REACH), end)
        hi = data.find(b"}", end, end + REACH)
        if lo < 0 or hi < 0:
            continue
        text = bytes(data[lo : hi + 1]).decode("utf-8", "replace")
        key = template(text)
        fail, _, _, _ = weights(text)
        last = hi
        if fail >= EXCERPT_WEIGHT and key not in seen:
            seen.add(key)
            found.append((lo, text))
    return found
