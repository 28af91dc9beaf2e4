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

CI systems and log shippers prefix every line of a tool's output the same way, with the time it
arrived: ``docker logs --timestamps`` and CI logs (``2026-03-14T09:12:03.4231Z``), moreutils' ``ts``
(``Mar 14 09:12:03``), daemontools' ``tai64n`` (``@4000000065f2...``) and ``tai64nlocal`` or
svlogd (nanoseconds, or ``_`` between date and time), devscripts' ``annotate-output`` (a time and
the stream, ``09:12:03 E:``), and GNU parallel's ``--tag`` (the job's name and a tab). A plain
``2026-03-14 09:12:03`` is an application's own log format, not a prefix: its level follows it.
"""

from __future__ import annotations

import re

__all__ = ["MULTIPLEX_REACH", "PREFIX", "after_prefix", "is_multiplexed"]

#: A service's prefix: an optional clock time, the source's name and instance number, padding, a bar, a space.
_SERVICE = r"(?:[0-9]{2}:[0-9]{2}:[0-9]{2} +)?[\w.@/-]*[._-][0-9]+[ \t]*\| "
#: The time a line arrived, as a prefixing program writes it (see the module doc), then a space; after
#: it, ``annotate-output``'s stream (``O:`` for stdout, ``E:`` for stderr, ``I:`` for its own lines).
_ARRIVED = (
    r"(?:(?:[0-9]{4}-[0-9]{2}-[0-9]{2}(?:[T_][0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
    r"|[ ][0-9]{2}:[0-9]{2}:[0-9]{2}[.,][0-9]{6,9})(?:Z|[+-][0-9]{2}:?[0-9]{2})?"
    r"|[A-Z][a-z]{2} [ 0-9][0-9] [0-9]{2}:[0-9]{2}:[0-9]{2}(?:[.,][0-9]+)?"
    r"|@[0-9a-f]{24})(?: [OEI]:)?|[0-9]{2}:[0-9]{2}:[0-9]{2} [OEI]:) "
)
#: GNU parallel's ``--tag``: the job's argument, then a tab.
_TAG = r"[A-Za-z][\w.-]{0,30}\t"
#: A source's prefix: a service's, the time a line arrived (after a service's or alone), or a job's tag.
_PREFIX_SOURCE = rf"(?:{_SERVICE}(?:{_ARRIVED})?|{_ARRIVED}|{_TAG})"
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
    if b"|" not in head:  # no service's prefix (one byte: memchr); a time or a tag starts the first lines
        first = [line for line in head[:2048].split(b"\n", 2 * MULTIPLEX_LINES)[: 2 * MULTIPLEX_LINES] if line.strip()]
        if not any(_PREFIX_BYTES.match(line) for line in first):
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
