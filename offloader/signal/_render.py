"""Rendering picked lines as ``{n:>6}\\t{line}`` and assembling a preview within a budget.

Lines are shown as a reader of the stored file would see them on a terminal:
escape sequences removed, a carriage-return progress bar reduced to its last
state, other control characters replaced. A line over the cap is cut around its
signal, with its end (or only its end, for the tail), and says which bytes are shown.
"""

from __future__ import annotations

import re

from ..tokens import TokenCounter, count_lines
from ._context import attach_context
from ._rank import Unit, strip_ansi
from ._scan import Scan

__all__ = ["assemble_lines", "omitted", "render_line"]

MARKER_TOKENS = 12
#: The most a line alone between two shown lines costs to be shown in place of its gap's marker (a short
#: line costs little more than the marker it replaces).
GAP_LINE_TOKENS = 2 * MARKER_TOKENS
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f]")
_CONTINUATION = bytes(range(0x80, 0xC0))
#: Shares of the budget: the head first, then signal lines up to SIGNAL_SHARE, the tail to TAIL_SHARE.
HEAD_SHARE = 0.12
SIGNAL_SHARE = 0.72
TAIL_SHARE = 0.9
#: A long line of the tail shows its start in this share of the room, and its end in the rest.
TAIL_START_SHARE = 3
#: How many characters of a long rule line (no letter or digit) the head and the tail show.
RULE_CAP = 40
_WORDLIKE = re.compile(r"[^\W_]")  # a letter or digit of any script
#: A cut signal line shows its end in this share of its room (1/3): where a record's message follows its
#: fields and a traceback's exception follows its frames.
END_SHARE = 3


def omitted(a: int, b: int) -> str:
    return f"... [line {a:,} omitted] ..." if a == b else f"... [lines {a:,}-{b:,} omitted] ..."


def _clean(piece: str, focus: int | None = None) -> str:
    """A line as a terminal shows it: no escapes; of carriage-return states the last one (or the
    one holding ``focus``, a character offset); other control characters replaced."""
    piece = strip_ansi(piece) if focus is None else piece
    if "\r" in piece:
        at, chosen = 0, ""
        for part in piece.split("\r"):
            if part.strip() and (focus is None or at <= focus or not chosen):
                chosen = part
            at += len(part) + 1
        piece = chosen
    if focus is not None:
        piece = strip_ansi(piece)
    return _CONTROL.sub("\ufffd", piece)


def render_line(
    scan: Scan, lineno: int, start: int, end: int, *, cap: int, focus: int | None = None, tail: bool = False
) -> str:
    """One line, cut to ``cap`` characters around ``focus`` (or its end with ``tail``) when longer.

    A line of carriage-return states (a progress bar) shows one state: the one
    holding ``focus``, else the last.
    """
    length = end - start
    if scan.data.find(b"\r", start, max(start, end - 1)) >= 0:
        lo, hi = _state(scan, start, end, focus)
        if (lo, hi) != (start, end):
            shown = render_line(scan, lineno, lo, hi, cap=cap, focus=focus, tail=tail).split("\t", 1)[1]
            if " ... [line " in shown:
                shown = shown.rsplit(" ... [line ", 1)[0]
            span = f"bytes {lo - start + 1:,}-{hi - start:,} of {length:,}"
            note = f" ... [line {lineno:,}: one carriage-return state, {span}]"
            return f"{lineno:>6}\t{shown}{note}"
    if length <= cap:
        text = bytes(scan.data[start:end]).decode("utf-8", "replace")
        at = None
        if focus is not None and "\r" in text:
            at = len(bytes(scan.data[start:focus]).decode("utf-8", "replace"))
        return f"{lineno:>6}\t{_clean(text, at)}"
    if tail:  # its end, where a line says what it came to, and its start, which says what it is (a command)
        both = _start_and_end(scan, lineno, start, end, cap // TAIL_START_SHARE, cap - cap // TAIL_START_SHARE, None)
        if both is not None:
            return both
        piece, first = _ending(scan, start, end, cap)
        note = f" ... [line {lineno:,} cut: bytes {first - start + 1:,}-{length:,} of {length:,}]"
        return f"{lineno:>6}\t{_clean(piece)}{note}"
    piece, first, last = _window(scan, start, end, cap, focus)
    if focus is not None and last < end:  # a signal's line ends with what it came to (an exception, a message)
        both = _start_and_end(scan, lineno, start, end, cap - cap // END_SHARE, cap // END_SHARE, focus)
        if both is not None:
            return both
    note = f" ... [line {lineno:,} cut: bytes {first - start + 1:,}-{last - start:,} of {length:,}]"
    return f"{lineno:>6}\t{_clean(piece)}{note}"


def _start_and_end(
    scan: Scan, lineno: int, start: int, end: int, near_cap: int, end_cap: int, focus: int | None
) -> str | None:
    """Line ``lineno`` as ``near_cap`` characters around ``focus`` (else from its start) and its last ``end_cap``,
    or None when the two pieces meet (the line is shown in one piece then)."""
    near, first, last = _window(scan, start, end, near_cap, focus)
    ending, after = _ending(scan, max(last, start), end, end_cap)
    if after <= last:
        return None
    length = end - start
    span = f"bytes {first - start + 1:,}-{last - start:,} and {after - start + 1:,}-{length:,}"
    return f"{lineno:>6}\t{_clean(near)} ... {_clean(ending)} ... [line {lineno:,} cut: {span} of {length:,}]"


def _window(scan: Scan, start: int, end: int, cap: int, focus: int | None) -> tuple[str, int, int]:
    """Up to ``cap`` characters of the line at ``start``-``end``, around ``focus`` (else from its start),
    with the byte offsets where they begin and end."""
    lo = start if focus is None or focus - start < cap * 2 // 3 else focus - cap // 3
    raw = bytes(scan.data[lo : min(end, lo + cap * 4)])
    piece = raw.decode("utf-8", "ignore")[:cap]  # drops only the characters split at the edges
    first = lo + len(raw) - len(raw.lstrip(_CONTINUATION))
    return piece, first, first + len(piece.encode("utf-8", "surrogatepass"))


def _ending(scan: Scan, start: int, end: int, cap: int) -> tuple[str, int]:
    """The last ``cap`` characters of the line at ``start``-``end``, with the byte offset where they begin."""
    piece = bytes(scan.data[max(start, end - cap * 4) : end]).decode("utf-8", "ignore")[-cap:]
    return piece, end - len(piece.encode("utf-8", "surrogatepass"))


def _state(scan: Scan, start: int, end: int, focus: int | None) -> tuple[int, int]:
    """Byte range of the carriage-return state holding ``focus`` (else the last non-empty one)."""
    best = (start, end)
    lo = start
    while lo <= end:
        cr = scan.data.find(b"\r", lo, end)
        hi = end if cr < 0 else cr
        if hi > lo and bytes(scan.data[lo:hi]).strip():
            best = (lo, hi)
            if focus is not None and lo <= focus < hi:
                return best
        if cr < 0:
            break
        lo = cr + 1
    return best


class _Picker:
    def __init__(self, counter: TokenCounter, budget: int) -> None:
        self.counter = counter
        self.budget = budget
        self.picked: dict[int, str] = {}
        self.order: list[int] = []
        self.used = MARKER_TOKENS  # the gap after the head
        self.ratio = 1 / 3  # estimated tokens per UTF-8 byte; calibrated by one exact count
        self.exact = False
        self.memo: dict[str, int] = {}  # token counts of rendered lines (see count_lines)

    def cost(self, rendered: str) -> int:
        """Estimated tokens of a line (the tokenizer sees the assembled preview only, once or twice)."""
        if self.exact:
            return self.counter.count(rendered) + 1
        return int(len(rendered.encode("utf-8", "surrogatepass")) * self.ratio) + 2

    def count(self, total: int) -> tuple[str, int]:
        """The preview of what is picked and its exact count (each line encoded once per preview)."""
        lines = _assemble(self.picked, total)
        return "\n".join(lines), count_lines(self.counter, lines, self.memo)

    def calibrate(self, total: int) -> None:
        """Replace the estimate of what is picked by its exact count and rescale the estimate."""
        exact = self.count(total)[1]
        if self.used > 0 and exact > 0:
            self.ratio *= max(0.25, min(4.0, exact / self.used))
        self.used = exact + MARKER_TOKENS

    def take(self, items: list[tuple[int, str]], limit: float) -> bool:
        """Pick all of ``items`` (line number, rendered) if they fit under ``limit`` tokens, else none."""
        fresh = list({n: r for n, r in items if n not in self.picked}.items())  # each line once
        if not fresh:
            return True
        first, last = min(n for n, _ in fresh), max(n for n, _ in fresh)
        joins = first - 1 in self.picked or last + 1 in self.picked
        cost = sum(self.cost(r) for _, r in fresh) + (0 if joins else MARKER_TOKENS)
        if self.used + cost > limit:
            return False
        for n, r in fresh:
            self.picked[n] = r
            self.order.append(n)
        self.used += cost
        return True


def assemble_lines(scan: Scan, units: list[Unit], counter: TokenCounter, budget: int, cap: int) -> str:
    """Head, the best-scoring units (with their context) and the tail, within ``budget`` tokens."""
    pick = _Picker(counter, budget)
    head_limit = budget * HEAD_SHARE + 2 * MARKER_TOKENS  # the gap markers are not the head's share
    _walk_head(scan, pick, head_limit, cap)
    for unit in sorted(units, key=lambda u: (-u.score, u.lineno)):
        if unit.score < 0.2:
            break
        attach_context(scan, unit)
        focus = None if unit.kind == "novel" else unit.focus  # no match: shown from its start, last state
        line: tuple[int, int, int, int | None] = (unit.lineno, unit.start, unit.end, focus)
        context: list[tuple[int, int, int, int | None]] = [(n, s, e, None) for n, s, e in unit.context]
        # with its context if it fits, else with the context lines next to it, else alone, else in narrower windows
        joined = [line, *context]
        near = _next_to(line, joined)
        joined += _lines_alone_between(scan, pick, joined, cap)
        tries = [(joined, cap), ([line], cap), ([line], cap // 2), ([line], cap // 4)]
        if 1 < len(near) < len(joined):
            tries.insert(1, (near, cap))
        for rows, width in tries:
            rows.sort(key=lambda row: row[0])
            items = [(n, render_line(scan, n, s, e, cap=width, focus=f)) for n, s, e, f in rows]
            if width >= 40 and pick.take(items, budget * SIGNAL_SHARE):
                break
    if scan.lines > 1:  # a single line is shown from its start, by the head
        _walk_tail(scan, pick, budget * TAIL_SHARE, cap)
    pick.calibrate(scan.lines)
    if scan.lines > 1:
        _walk_tail(scan, pick, budget * 0.97, cap)
    _walk_head(scan, pick, budget * 0.97, cap)
    text, tokens = pick.count(scan.lines)
    while pick.order and tokens > budget:  # drop the last picked until the estimate says it fits
        over = (tokens - budget) * 1.1 + 1
        while pick.order and over > 0:
            over -= pick.cost(pick.picked.pop(pick.order.pop()))
        text, tokens = pick.count(scan.lines)
    return text


def _next_to(
    line: tuple[int, int, int, int | None], rows: list[tuple[int, int, int, int | None]]
) -> list[tuple[int, int, int, int | None]]:
    """``line`` and the rows of ``rows`` that join it without a gap (a report's next line, not its section's header
    far above): what of a unit's context is shown when the whole does not fit."""
    numbers = {row[0]: row for row in rows}
    first = last = line[0]
    while first - 1 in numbers:
        first -= 1
    while last + 1 in numbers:
        last += 1
    return [numbers.get(n, line) for n in range(first, last + 1)]


def _walk_head(scan: Scan, pick: _Picker, limit: float, cap: int) -> None:
    start, lineno = 0, 1
    while start <= scan.size and lineno <= scan.lines:
        end = scan.data.find(b"\n", start, scan.size)
        end = scan.size if end < 0 else end
        if lineno not in pick.picked:
            rendered = render_line(scan, lineno, start, end, cap=_cap_of(scan, start, end, cap))
            if not pick.take([(lineno, rendered)], limit):
                if lineno == 1 and not pick.picked:
                    _take_cut(scan, pick, lineno, start, end, limit, tail=False)
                return
        start, lineno = end + 1, lineno + 1


def _walk_tail(scan: Scan, pick: _Picker, limit: float, cap: int) -> None:
    end, lineno = scan.size, scan.lines
    while lineno >= 1:
        start = scan.data.rfind(b"\n", 0, end) + 1
        if lineno not in pick.picked:
            rendered = render_line(scan, lineno, start, end, cap=_cap_of(scan, start, end, cap), tail=True)
            if not pick.take([(lineno, rendered)], limit):
                if lineno == scan.lines:
                    _take_cut(scan, pick, lineno, start, end, limit, tail=True)
                return
        if start == 0:
            return
        end, lineno = start - 1, lineno - 1


def _lines_alone_between(
    scan: Scan, pick: _Picker, rows: list[tuple[int, int, int, int | None]], cap: int
) -> list[tuple[int, int, int, int | None]]:
    """The short lines that would be left alone between ``rows`` and the lines picked, one or two of them: their
    gap's marker would take a line of the preview as well, and such a line is often what joins the two (node's
    ``failing tests:`` over ``test at test/totals.test.js:150:3`` over the failed test's name; dpkg's
    ``Version of retry-queue on system is 1.4.0.`` and a blank line under ``... depends on retry-queue (>= 2.0);
    however:``)."""
    taken = {n for n, *_ in rows}

    def shown(n: int) -> bool:
        return n in taken or n in pick.picked

    gaps: list[list[tuple[int, int, int, int | None]]] = []
    for n, start, end, _ in rows:
        above: list[tuple[int, int, int, int | None]] = []
        hi = start - 1
        for back in (1, 2):
            if shown(n - back) or hi < 0:
                break
            lo = scan.data.rfind(b"\n", 0, hi) + 1
            above.insert(0, (n - back, lo, hi, None))
            if shown(n - back - 1) and lo > 0:
                gaps.append(above)
                break
            hi = lo - 1
        below: list[tuple[int, int, int, int | None]] = []
        lo = end + 1
        for ahead in (1, 2):
            if shown(n + ahead) or lo > scan.size:
                break
            found = scan.data.find(b"\n", lo, scan.size)
            hi = scan.size if found < 0 else found
            below.append((n + ahead, lo, hi, None))
            if shown(n + ahead + 1) and hi < scan.size:
                gaps.append(below)
                break
            lo = hi + 1
    extra: list[tuple[int, int, int, int | None]] = []
    for gap in gaps:
        cost = sum(pick.cost(render_line(scan, row[0], row[1], row[2], cap=cap)) for row in gap)
        if cost <= GAP_LINE_TOKENS:
            extra += gap
    return list(dict.fromkeys(extra))


def _cap_of(scan: Scan, start: int, end: int, cap: int) -> int:
    """``cap``, or :data:`RULE_CAP` for a long line without a letter or digit (a drawn table's rule, a row
    of ``=``): its start shows its shape, the rest is the same characters at many tokens."""
    if end - start <= RULE_CAP * 2:
        return cap
    if _WORDLIKE.search(bytes(scan.data[start : min(end, start + cap * 4)]).decode("utf-8", "ignore")):
        return cap
    return min(cap, RULE_CAP)


def _take_cut(scan: Scan, pick: _Picker, lineno: int, start: int, end: int, limit: float, *, tail: bool) -> None:
    """Show as much of one long line as the room left allows."""
    chars = int((limit - pick.used - MARKER_TOKENS - 24) * 3)
    pick.exact = True  # one line, measured exactly
    try:
        while chars >= 20:
            if pick.take([(lineno, render_line(scan, lineno, start, end, cap=chars, tail=tail))], limit):
                return
            chars = chars * 2 // 3
    finally:
        pick.exact = False


def _assemble(picked: dict[int, str], total: int) -> list[str]:
    """The preview's lines: the picked ones in order, with a marker for each gap."""
    out: list[str] = []
    prev = 0
    for lineno in sorted(picked):
        if lineno > prev + 1:
            out.append(omitted(prev + 1, lineno - 1))
        out.append(picked[lineno])
        prev = lineno
    if prev < total:
        out.append(omitted(prev + 1, total))
    return out
