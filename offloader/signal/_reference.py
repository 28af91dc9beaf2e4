"""A program's reference text: what its options do and which levels it logs at, not what went wrong.

A ``--help`` text describes the failures a program can report: ``--timeout=<seconds>   ... before
it is killed``, ``--asan   - AddressSanitizer: detects use-after-free``, ``(corresponding to
WARNING, ERROR, and CRITICAL logging levels)``. None of it reports a failure of the run that
printed it. Two shapes say so, whatever the program:

* an option's description: the option line itself (indented, an option first, then its
  description after a gap of spaces, or nothing), and the lines that go on under it, at the
  column its description starts at or indented under an option line that has none (or that has
  it in parentheses, as V8 writes: its details are deeper on the line right under it);
* a list of levels: an indented line that names three or more logging levels and does not
  start with one (``Levels: CRITICAL, ERROR, WARNING,``, ``mapping => CRITICAL=0, ERROR=1,
  WARNING=2``). A report starts with the level it is at.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from ._lines import indent_of

__all__ = ["describes_option", "lists_levels"]

#: One option with its argument, if any: ``-q``, ``--log-level=<LEVEL>``, ``-o FILE``, ``--color[=WHEN]``.
_OPTION = r"--?[A-Za-z0-9?][\w.?-]*(?:\[?=\S*|[ ](?:<[^>]+>|[A-Z][A-Z_]*\b|'[^']*'|\[[^\]]+\]))?"
#: An option line: indented, one option or several (``-q, --quiet``), then the description after a gap of
#: two spaces or more (``=``/``-`` in front of it, as cmake and LLVM write) or in parentheses after one
#: space (``--crash-on-aborted-evacuation (crash when evacuation of page fails)``, as V8 writes), or nothing.
_OPTION_LINE = re.compile(
    rf"([ \t]+){_OPTION}(?:,?[ ]{_OPTION})*(?:(?P<gap>[ \t]{{2,}}(?:[=-][ ]+)?|[ ](?=\([a-z]))(?=\S)|[ \t]*$)"
)
#: Lines that go on under an option line are looked for at most this many lines up.
DESCRIPTION_REACH = 12
_LEVEL = re.compile(
    r"\b(trace|debug|verbose|info|notice|warn|warning|error|err|critical|crit|fatal|alert|emerg|emergency|"
    r"severe|notset)\b",
    re.IGNORECASE,
)
#: The same level under its other names.
_LEVEL_NAMES = {"warn": "warning", "err": "error", "crit": "critical", "emerg": "emergency"}
#: A line that names at least this many different levels lists them.
LISTED_LEVELS = 3


def _description_column(line: str) -> int | None:
    """Where the description of an option line starts (its length when it has none), or None
    when ``line`` is no option line."""
    option = _OPTION_LINE.match(line)
    if option is None:
        return None
    return option.end() if option.group("gap") else len(line.rstrip())


def _describes_in_parentheses(line: str) -> bool:
    """Whether ``line`` is an option line with its description in parentheses after one space (V8's)."""
    option = _OPTION_LINE.match(line)
    return option is not None and option.group("gap") == " "


def describes_option(line: str, above: Iterable[str]) -> bool:
    """Whether ``line`` is an option line or goes on under one (``above``: the lines above it,
    nearest first): every line between them is at its indentation, and that indentation is where
    the option's description starts, or deeper than the option when it has none on its line or has
    it in parentheses (then on the line right under it)."""
    if _description_column(line) is not None:
        return True
    indent = indent_of(line)
    if indent == 0 or not line.strip():
        return False
    for n, upper in enumerate(above):
        if n >= DESCRIPTION_REACH or not upper.strip():
            return False
        column = _description_column(upper)
        if column is not None:
            if n == 0 and indent_of(upper) < indent and _describes_in_parentheses(upper):
                return True  # right under V8's option line, deeper than it (``type: bool  default: ...``)
            return column == indent or (column == len(upper.rstrip()) and indent_of(upper) < indent)
        if indent_of(upper) != indent:
            return False
    return False


def lists_levels(line: str) -> bool:
    """Whether ``line`` is indented and names :data:`LISTED_LEVELS` or more logging levels, and no
    level labels it (``ERROR: invalid level 'loud', expected one of debug, info, warning`` reports)."""
    if indent_of(line) == 0 or _LEVEL.match(line.lstrip(" \t[(<")) is not None:
        return False
    levels = {_LEVEL_NAMES.get(m.lower(), m.lower()) for m in _LEVEL.findall(line)}
    return len(levels) >= LISTED_LEVELS
