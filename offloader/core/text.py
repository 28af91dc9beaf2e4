"""Pure text helpers shared by every backend: paths, globs, line search, windows.

Everything here works on bytes so a 5 MB file is searched without decoding it
whole, and uses RE2 (linear time) so no pattern can backtrack forever.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

import re2  # type: ignore[import-untyped]

from .errors import InvalidPattern, PathOutsideWorkspace

__all__ = [
    "Hit",
    "binary_sample",
    "compile_pattern",
    "cut_utf8",
    "glob_matcher",
    "line_window",
    "normalise_relative",
    "search",
]


def normalise_relative(path: str) -> str:
    """Normalise a workdir-relative path; refuse anything that climbs out.

    Backslashes count as separators (a Windows-style ``..\\..`` is caught too).
    Returns ``""`` for the workdir itself.
    """
    if "\x00" in path:
        raise PathOutsideWorkspace("path contains a NUL byte")
    if any(ord(c) < 32 for c in path):
        raise PathOutsideWorkspace(f"path contains a control character: {path!r}")
    parts: list[str] = []
    for part in path.replace("\\", "/").split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                raise PathOutsideWorkspace(f"{path!r} is outside the workdir")
            parts.pop()
        else:
            parts.append(part)
    return "/".join(parts)


def compile_pattern(pattern: str, *, ignore_case: bool = False, literal: bool = False) -> object:
    """Compile a user regex with RE2 over bytes; an invalid one raises InvalidPattern."""
    if not isinstance(pattern, str) or pattern == "":
        raise InvalidPattern("pattern must be a non-empty string")
    source = re.escape(pattern) if literal else pattern
    flags = "(?m)" + ("(?i)" if ignore_case else "")
    try:
        return re2.compile((flags + source).encode("utf-8"))
    except Exception as exc:  # re2.error is not a stable public name
        raise InvalidPattern(f"invalid regular expression {pattern!r}: {exc}") from None


@dataclass(frozen=True, slots=True)
class Hit:
    """One output line of a search: 1-based number, its bytes, match span if matched."""

    line_no: int
    text: bytes
    match: tuple[int, int] | None  # byte span within ``text``; None for context lines


def _line_bounds(data: bytes, pos: int) -> tuple[int, int]:
    start = data.rfind(b"\n", 0, pos) + 1
    end = data.find(b"\n", pos)
    return start, (len(data) if end < 0 else end)


def search(
    data: bytes,
    regex: object,
    *,
    context: int = 0,
    max_matches: int | None = None,
    line_range: tuple[int, int] | None = None,
) -> tuple[list[Hit], int]:
    """Find matching lines (and ``context`` lines around them).

    Returns the hits in order and the total number of matching lines (which may
    exceed what was returned when ``max_matches`` cut it short). Cost is one
    linear RE2 scan plus counting newlines between matches.
    """
    lo_byte, hi_byte, first_line = 0, len(data), 1
    if line_range is not None:
        lo_byte, hi_byte, first_line = _range_bytes(data, *line_range)
    match_lines: list[tuple[int, int, int, tuple[int, int]]] = []  # (line_no, start, end, span)
    total = 0
    line_no, counted_to = first_line, lo_byte
    pos = lo_byte
    while pos <= hi_byte:
        m = regex.search(data, pos, hi_byte)  # type: ignore[attr-defined]
        if m is None:
            break
        start, end = _line_bounds(data, m.start())
        end = min(end, hi_byte)
        line_no += data.count(b"\n", counted_to, start)
        counted_to = start
        total += 1
        if max_matches is None or len(match_lines) < max_matches:
            match_lines.append((line_no, start, end, (m.start() - start, max(m.end(), m.start()) - start)))
        pos = end + 1
    hits: list[Hit] = []
    last_emitted = 0
    for idx, (no, start, end, span) in enumerate(match_lines):
        if context:
            before: list[Hit] = []
            s = start
            for k in range(1, context + 1):
                if no - k <= last_emitted or s <= lo_byte:
                    break
                ps, pe = _line_bounds(data, s - 1)
                before.append(Hit(no - k, data[ps:pe], None))
                s = ps
            hits.extend(reversed(before))
        hits.append(Hit(no, data[start:end], span))
        last_emitted = no
        if context:
            next_match = match_lines[idx + 1][0] if idx + 1 < len(match_lines) else None
            e = end
            for k in range(1, context + 1):
                if (next_match is not None and no + k >= next_match) or e >= hi_byte:
                    break
                ns, ne = _line_bounds(data, e + 1)
                hits.append(Hit(no + k, data[ns : min(ne, hi_byte)], None))
                last_emitted = no + k
                e = ne
    return hits, total


def _range_bytes(data: bytes, first: int, last: int) -> tuple[int, int, int]:
    """Byte span of lines ``first..last`` (1-based, inclusive)."""
    first = max(first, 1)
    pos, line = 0, 1
    while line < first:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return len(data), len(data), line
        pos, line = nl + 1, line + 1
    start = pos
    while line < last:
        nl = data.find(b"\n", pos)
        if nl < 0:
            return start, len(data), first
        pos, line = nl + 1, line + 1
    nl = data.find(b"\n", pos)
    return start, (len(data) if nl < 0 else nl), first


#: NUL bytes make a sample binary when more than one of its lines in this many holds one (two lines at least),
#: or when they come in more than one run per this many bytes (two runs at least): a text output keeps a stray
#: NUL (a bundler's ``\\0`` virtual-module prefix in a debug dump) or a run of them (a log's padding after a
#: crash) in a line or two, while an executable, an archive or UTF-16 text has them everywhere.
NUL_LINES_PER = 100
NUL_RUN_BYTES = 1000
_NUL_RUN = re.compile(rb"\x00+")


def nuls_make_binary(sample: bytes) -> bool:
    """Whether the NUL bytes in ``sample`` (the first bytes of an output or a file) make it binary."""
    if b"\0" not in sample:
        return False
    if len(_NUL_RUN.findall(sample)) > max(1, len(sample) // NUL_RUN_BYTES):
        return True
    lines = sample.split(b"\n")
    return sum(1 for line in lines if b"\0" in line) > max(1, len(lines) // NUL_LINES_PER)


#: Control bytes that text does not hold (tab, newlines, form feed, backspace and ESC excepted).
_CONTROL_BYTES = bytes([*range(0x00, 0x08), *range(0x0E, 0x1B), *range(0x1C, 0x20), 0x7F])
_HIGH_BYTES = bytes(range(0x80, 0x100))
#: Text in a legacy 8-bit encoding (Latin-1, cp1252) has at most this share of control bytes and at
#: least this share of ASCII (random or compressed bytes: about 10 % control bytes, 37 % printable ASCII).
LEGACY_MAX_CONTROL = 0.01
LEGACY_MIN_ASCII = 0.5


def binary_sample(sample: bytes, offset: int = 0) -> str | None:
    """Why ``sample`` (bytes of an output or a file, from ``offset``) is not text, or None.

    NUL bytes in many of its lines make it binary (:func:`nuls_make_binary`), and so does invalid
    UTF-8, unless it reads as text in a legacy 8-bit encoding (a Latin-1 log, a cp1252 console).
    A few stray bytes, or a character cut by the sample's edges, do not.
    """
    if nuls_make_binary(sample):
        return f"NUL byte at offset {offset + sample.find(bytes(1)):,}"
    try:
        sample.decode("utf-8")
    except UnicodeDecodeError as exc:
        bad = sample.decode("utf-8", "replace").count("\ufffd")
        if (bad * 100 > len(sample) or bad > 64) and not _legacy_text(sample):
            return f"invalid UTF-8 at offset {offset + exc.start:,}"
    return None


def _legacy_text(sample: bytes) -> bool:
    """Whether ``sample`` (not UTF-8) reads as text in an 8-bit encoding: few control bytes, mostly ASCII."""
    controls = len(sample) - len(sample.translate(None, _CONTROL_BYTES))
    ascii_bytes = len(sample.translate(None, _HIGH_BYTES))
    return controls <= len(sample) * LEGACY_MAX_CONTROL and ascii_bytes >= len(sample) * LEGACY_MIN_ASCII


def cut_utf8(data: bytes, limit: int) -> bytes:
    """The longest prefix of ``data`` within ``limit`` bytes that ends on a character boundary."""
    if len(data) <= limit:
        return data
    end = limit
    while end > 0 and (data[end] & 0xC0) == 0x80:
        end -= 1
    return data[:end]


def line_window(text: bytes, start: int, width: int) -> tuple[str, int, int]:
    """Decode ``width`` bytes of a line from ``start``, moved to character boundaries.

    Returns the text and the byte span actually shown (so callers can say where
    to continue reading).
    """
    while 0 < start < len(text) and (text[start] & 0xC0) == 0x80:
        start -= 1
    chunk = cut_utf8(text[start:], width)
    return chunk.decode("utf-8", "replace"), start, start + len(chunk)


def glob_matcher(pattern: str) -> re.Pattern[str]:
    """Compile a glob to a regex over workdir-relative paths.

    ``*`` and ``?`` stay within one path segment, ``**`` crosses segments,
    ``[abc]`` and ``{a,b}`` work as in shells. A pattern without ``/`` matches
    the file name at any depth (as ripgrep's and gitignore's globs do).
    """
    if not isinstance(pattern, str) or not pattern:
        raise InvalidPattern("glob must be a non-empty string")
    if "\x00" in pattern:
        raise InvalidPattern("glob contains a NUL byte")
    if any(part == ".." for part in pattern.replace("\\", "/").split("/")):
        raise PathOutsideWorkspace(f"glob {pattern!r} reaches outside the workdir")
    body = pattern.lstrip("/")
    anchored = "/" in body
    regex = "".join(_glob_tokens(body))
    if not anchored:
        regex = "(?:.*/)?" + regex
    try:
        return re.compile(regex + r"\Z", re.DOTALL)
    except re.error as exc:
        raise InvalidPattern(f"invalid glob {pattern!r}: {exc}") from None


def _glob_tokens(pattern: str) -> Iterator[str]:
    i, n, depth = 0, len(pattern), 0
    while i < n:
        c = pattern[i]
        if pattern.startswith("**/", i):
            yield "(?:.*/)?"
            i += 3
            continue
        if pattern.startswith("**", i):
            yield ".*"
            i += 2
            continue
        if c == "*":
            yield "[^/]*"
        elif c == "?":
            yield "[^/]"
        elif c == "[":
            close = pattern.find("]", i + 2 if pattern[i + 1 : i + 2] in ("!", "]") else i + 1)
            if close < 0:
                yield re.escape(c)
            else:
                inner = pattern[i + 1 : close]
                if inner.startswith("!"):
                    inner = "^" + inner[1:]
                yield "[" + inner.replace("\\", "\\\\") + "]"
                i = close
        elif c == "{":
            depth += 1
            yield "(?:"
        elif c == "}" and depth:
            depth -= 1
            yield ")"
        elif c == "," and depth:
            yield "|"
        else:
            yield re.escape(c)
        i += 1
