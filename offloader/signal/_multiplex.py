"""Outputs that interleave several sources, each line prefixed with its source's name.

``docker compose up`` prints every service's lines after the service's name and a bar
(``orders_1    | Traceback (most recent call last):``, ``orders-1  | ...`` in Compose v2), as
Procfile runners do (honcho's and foreman's ``12:00:00 web.1  | ...``). The service's own line
starts after the bar: a traceback, a log line with its level, an indented frame. Where most
lines of an output's start carry such a prefix, the rules read each line after it (its
indentation, what starts it), and the scanner's line-start patterns also match after it; the
preview still shows the whole line, so the reader sees which service said it.

A source's name ends with its instance number (``orders_1``, ``orders-1``, ``web.1``): a log
format that puts a bar after the level (``INFO     | ...``) has none, and keeps its level.
"""

from __future__ import annotations

import re

__all__ = ["MULTIPLEX_REACH", "PREFIX", "after_prefix", "is_multiplexed"]

#: A source's prefix: an optional clock time, the source's name and instance number, padding, a bar, a space.
_PREFIX_SOURCE = r"(?:[0-9]{2}:[0-9]{2}:[0-9]{2} +)?[\w.@/-]*[._-][0-9]+[ \t]*\| "
PREFIX = re.compile(_PREFIX_SOURCE)
_PREFIX_BYTES = re.compile(_PREFIX_SOURCE.encode())
#: The prefixes are looked for among this many first bytes, and so many of their (non-blank) lines must carry one.
MULTIPLEX_REACH = 16384
MULTIPLEX_SHARE = 0.5
#: An output's start has at least this many prefixed lines to be multiplexed, among this many first lines.
MULTIPLEX_LINES = 5
MULTIPLEX_LINES_READ = 160


def is_multiplexed(head: bytes) -> bool:
    """Whether most non-blank lines of ``head`` (an output's first bytes; its first :data:`MULTIPLEX_LINES_READ`
    lines are read) carry a source's prefix."""
    if b"|" not in head:  # one byte: memchr
        return False
    lines = [line for line in head.split(b"\n", MULTIPLEX_LINES_READ)[:MULTIPLEX_LINES_READ] if line.strip()]
    prefixed = sum(1 for line in lines if _PREFIX_BYTES.match(line))
    return prefixed >= MULTIPLEX_LINES and prefixed >= MULTIPLEX_SHARE * len(lines)


def after_prefix(pattern: str) -> str:
    """``pattern`` with each line-start anchor (``^`` outside a character class) moved after a source's
    prefix: the same pattern for the line a source printed."""
    out: list[str] = []
    i, in_class = 0, False
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\":
            out.append(pattern[i : i + 2])
            i += 2
            continue
        if ch == "[" and not in_class:  # a class opens; its negation and a literal ``]`` first are its own
            end = i + 1 + (pattern[i + 1 : i + 2] == "^")
            end += pattern[end : end + 1] == "]"
            out.append(pattern[i:end])
            i, in_class = end, True
            continue
        if ch == "]":
            in_class = False
        elif ch == "^" and not in_class:
            ch = f"^(?:{_PREFIX_SOURCE})"
        out.append(ch)
        i += 1
    return "".join(out)
