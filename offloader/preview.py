"""Previews that keep the signal: head, outcome lines and tail, within a token budget.

A truncated head alone makes a failing build look like a success: the failure
is usually at the end, or in a few lines in the middle. :func:`make_preview`
shows the first lines, the lines that carry the outcome (errors, exceptions,
tracebacks, failures, exit codes, ``N passed, M failed`` summaries) and the last
lines, each with its line number (``{n:>6}\\t{line}``, as the Read tool prints
them), joined by ``... [lines a-b omitted] ...`` markers.

Cost is linear in the text and independent of the tokenizer's speed on it: the
outcome lines are found by one RE2 scan over the UTF-8 bytes (from both ends,
stopping once enough are found), and the counter is only ever fed the lines
that may go into the preview. JSON is previewed readably: a shape summary (top
level keys, array length) and a pretty-printed head.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any

import re2  # type: ignore[import-untyped]

from .tokens import MAX_CHARS_PER_TOKEN, TokenCounter, exceeds, head_within

__all__ = ["json_shape", "make_preview", "preview_over_budget"]

# One compiled pattern; group 1 marks summary-grade lines, which rank first.
_SIGNAL = re2.compile(
    rb"(?im)(\b\d+ (?:passed|failed|errors?|failures?|skipped|xfailed|xpassed|warnings?)\b"
    rb"|exit(?:ed with)? (?:code|status)|returned non-zero|build (?:failed|succeeded|successful)"
    rb"|tests? (?:run|failed|passed)|make: \*\*\*|npm err!|^(?:failed|error)\b)"
    rb"|traceback|exception|error|errno|fatal|panic|fail|abort|segmentation fault|core dumped"
    rb"|assertion|denied|timed out|killed|not found|undefined reference|cannot |unable to"
)
_SUMMARY = re2.compile(_SIGNAL.pattern.split(rb")|traceback", 1)[0] + rb")")
_SCAN_CHUNK = 256 * 1024
_SIGNALS_PER_END = 64
_MARKER_TOKENS = 16
_JSON_PARSE_LIMIT = 20_000_000
_CONTINUATION_BYTES = bytes(range(0x80, 0xC0))


@dataclass(frozen=True, slots=True)
class _Signal:
    lineno: int
    start: int
    end: int
    focus: int
    summary: bool


def make_preview(text: str, *, counter: TokenCounter, preview_tokens: int, max_line_chars: int = 400) -> str:
    """A preview of ``text`` within ``preview_tokens`` (measured with ``counter``).

    Text that already fits is returned unchanged. Lines longer than
    ``max_line_chars`` are cut (around the match for outcome lines) and say so.
    """
    if isinstance(preview_tokens, bool) or not isinstance(preview_tokens, int) or preview_tokens < 0:
        raise ValueError(f"preview_tokens must be a non-negative int, got {preview_tokens!r}")
    if isinstance(max_line_chars, bool) or not isinstance(max_line_chars, int) or max_line_chars < 20:
        raise ValueError(f"max_line_chars must be an int >= 20, got {max_line_chars!r}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if preview_tokens == 0:
        return ""
    if not exceeds(counter, text, preview_tokens):
        return text
    return preview_over_budget(text, counter, preview_tokens, max_line_chars)


def preview_over_budget(text: str, counter: TokenCounter, preview_tokens: int, max_line_chars: int = 400) -> str:
    """:func:`make_preview` for a caller that already knows ``text`` exceeds the budget."""
    parsed, dumps = _maybe_json(text)
    if parsed is not _NOT_JSON:
        return _json_preview(text, parsed, dumps, counter, preview_tokens, max_line_chars)
    return _Lines(text, counter, max_line_chars).preview(preview_tokens)


# ------------------------------------------------------------ JSON


class _NotJson:
    pass


_NOT_JSON = _NotJson()


def _maybe_json(text: str) -> tuple[Any, Any]:
    """``(value, dumps)`` for JSON text, ``dumps`` laying a value out as ``json.dumps(indent=2)`` does."""
    stripped = text[:64].lstrip() or text.lstrip()
    if stripped[:1] not in ("{", "[") or len(text) > _JSON_PARSE_LIMIT:
        return _NOT_JSON, None
    try:
        import orjson  # optional: parses and lays out several times faster than json
    except ImportError:
        pass
    else:
        try:
            return orjson.loads(text), _orjson_dumps
        except (ValueError, TypeError):
            pass  # what orjson refuses (NaN, huge ints, lone surrogates) json may still accept
    try:
        return json.loads(text), _json_dumps
    except ValueError:
        return _NOT_JSON, None


def _json_dumps(value: Any) -> str:
    return json.dumps(value, indent=2, ensure_ascii=False, default=str)


def _orjson_dumps(value: Any) -> str:
    import orjson

    return orjson.dumps(value, option=orjson.OPT_INDENT_2).decode("utf-8")


def _type_name(value: Any) -> str:
    if isinstance(value, dict):
        return f"object({len(value)} keys)"
    if isinstance(value, list):
        return f"array[{len(value)}]"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "null"


def json_shape(value: Any, *, max_keys: int = 20) -> str:
    """A one-line summary of a JSON value: its top-level keys with types, or array length."""
    if isinstance(value, dict):
        keys = list(value)
        shown = ", ".join(f"{k}: {_type_name(value[k])}" for k in keys[:max_keys])
        more = f", ... {len(keys) - max_keys} more" if len(keys) > max_keys else ""
        return f"JSON object with {len(keys)} keys: {shown}{more}"
    if isinstance(value, list):
        if not value:
            return "JSON array, empty"
        kinds = sorted({_type_name(v).split("(")[0].split("[")[0] for v in value[:1000]})
        desc = f"JSON array of {len(value)} items ({', '.join(kinds)})"
        first = value[0]
        if isinstance(first, dict):
            keys = list(first)[:max_keys]
            desc += f"; first item keys: {', '.join(map(str, keys))}"
        return desc
    return f"JSON {_type_name(value)}"


def _json_preview(text: str, parsed: Any, dumps: Any, counter: TokenCounter, budget: int, max_line_chars: int) -> str:
    shape = json_shape(parsed)
    if text.strip().count("\n") >= 3:  # already pretty: line numbers match the stored text
        head = f"[{shape}]\n"
        rest = max(1, budget - counter.count(head))
        return head + _Lines(text, counter, max_line_chars).preview(rest)
    head = f"[{shape}; pretty-printed below, the stored text is compact]\n"
    rest = max(1, budget - counter.count(head) - _MARKER_TOKENS)
    # Lay out only as much of the document as the preview can show, not all of it.
    limit = (rest + 1) * 4
    while True:
        part, complete = _project(parsed, limit)
        if dumps is _orjson_dumps and _has_huge_float(part):
            # orjson reads integers beyond 64 bits as floats: show the source's exact digits
            parsed, dumps = json.loads(text), _json_dumps
            part, complete = _project(parsed, limit)
        pretty = dumps(part) if complete else dumps(part)[:limit]  # past ``limit`` a cut part shows
        shown = head_within(counter, pretty, rest)
        if complete or len(shown) < len(pretty) or limit >= (rest + 1) * MAX_CHARS_PER_TOKEN:
            break
        limit *= 2
    if not complete or len(shown) < len(pretty):
        cut = shown.rfind("\n")
        if cut > 0:
            shown = shown[:cut]
        shown += f"\n... [pretty-printed view cut; the whole JSON is {len(text):,} characters] ..."
    return head + shown


def _project(value: Any, limit: int) -> tuple[Any, bool]:
    """A copy of ``value`` with containers cut once ``limit`` characters of layout are certain.

    Laid out with indent=2, the copy's first ``limit`` characters equal the whole
    value's: each kept item is charged a lower bound of its own layout, and items
    are only dropped once the charges reach ``limit``. Returns (copy, nothing dropped).
    """
    room = limit
    complete = True

    def cut(v: Any) -> Any:
        nonlocal room, complete
        if isinstance(v, dict):
            out: dict[Any, Any] = {}
            for k, item in v.items():
                if room <= 0:
                    complete = False
                    break
                room -= len(str(k)) + 4  # "key": and the line break
                out[k] = cut(item)
            room -= 2
            return out
        if isinstance(v, list):
            kept: list[Any] = []
            for item in v:
                if room <= 0:
                    complete = False
                    break
                room -= 1
                kept.append(cut(item))
            room -= 2
            return kept
        room -= len(v) + 2 if isinstance(v, str) else 1
        return v

    return cut(value), complete


def _has_huge_float(value: Any) -> bool:
    """Whether ``value`` holds an integral float outside the 64-bit integer range."""
    if isinstance(value, float):
        return value.is_integer() and not -(2**63) <= value < 2**64
    if isinstance(value, dict):
        return any(_has_huge_float(v) for v in value.values())
    if isinstance(value, list):
        return any(_has_huge_float(v) for v in value)
    return False


# ------------------------------------------------------------ lines


class _Lines:
    """Line-oriented preview over the UTF-8 bytes of one text."""

    def __init__(self, text: str, counter: TokenCounter, max_line_chars: int) -> None:
        self.data = text.encode("utf-8", "surrogatepass")
        self.counter = counter
        self.cap = max_line_chars
        self.size = len(self.data) - 1 if self.data.endswith(b"\n") else len(self.data)
        self.total = 0  # set by signals(), which counts the newlines once while scanning

    # -- line access

    def _bounds_at(self, pos: int) -> tuple[int, int]:
        start = self.data.rfind(b"\n", 0, pos) + 1
        end = self.data.find(b"\n", pos)
        return start, (self.size if end < 0 or end > self.size else end)

    def render(
        self, lineno: int, start: int, end: int, *, focus: int | None = None, cap: int | None = None, tail: bool = False
    ) -> str:
        """``{n:>6}\\t{line}``; a line over ``cap`` characters is cut (around ``focus``,
        or keeping its end with ``tail``) and says which bytes are shown."""
        cap = cap or self.cap
        length = end - start
        if length <= cap:  # a character is at least one byte: the whole line fits
            return f"{lineno:>6}\t{self._decode(start, end)}"
        if tail:
            lo, hi = max(start, end - cap * 4), end
        else:
            lo = start if focus is None else max(start, focus - cap // 3)
            hi = min(end, lo + cap * 4)
        # Valid UTF-8 cut at arbitrary bytes: "ignore" drops only the split characters at the edges.
        raw = self.data[lo:hi]
        piece = raw.decode("utf-8", "ignore")
        if lo == start and hi == end and len(piece) <= cap:
            return f"{lineno:>6}\t{piece}"
        if tail:
            piece = piece[-cap:]
            first = end - len(piece.encode("utf-8", "surrogatepass"))
            last = end
        else:
            piece = piece[:cap]
            first = lo + len(raw) - len(raw.lstrip(_CONTINUATION_BYTES))
            last = first + len(piece.encode("utf-8", "surrogatepass"))
        note = f" ... [line {lineno:,} cut: bytes {first - start + 1:,}-{last - start:,} of {length:,}]"
        return f"{lineno:>6}\t{piece}{note}"

    def _decode(self, start: int, end: int) -> str:
        return self.data[start:end].decode("utf-8", "surrogatepass")

    # -- signals

    def signals(self) -> tuple[list[_Signal], list[_Signal]]:
        """Outcome lines scanning from the start and from the end (each side capped).

        Also sets ``total``: every newline is counted exactly once, and the scan
        reads the text in place (no chunk copies).
        """
        forward: list[_Signal] = []
        pos, lineno = 0, 1
        while pos < self.size and len(forward) < _SIGNALS_PER_END:
            stop = self._chunk_end(pos + _SCAN_CHUNK)
            lineno = self._collect(pos, stop, lineno, forward, _SIGNALS_PER_END)
            time.sleep(0)  # RE2 holds the GIL: let other threads (the event loop) run between chunks
            pos = stop
        scanned_to = pos
        self.total = lineno + self.data.count(b"\n", scanned_to, self.size)
        backward: list[_Signal] = []
        end, end_line = self.size, self.total
        seen = {s.lineno for s in forward}
        while end > scanned_to and len(backward) < _SIGNALS_PER_END:
            start = max(scanned_to, self._chunk_end(end - _SCAN_CHUNK))
            first = end_line - self.data.count(b"\n", start, end)
            found: list[_Signal] = []
            self._collect(start, end, first, found, None, count_rest=False)
            time.sleep(0)
            backward.extend(s for s in reversed(found) if s.lineno not in seen)
            end, end_line = start, first
        return forward, backward[:_SIGNALS_PER_END]

    def _chunk_end(self, pos: int) -> int:
        if pos >= self.size:
            return self.size
        nl = self.data.find(b"\n", pos, self.size)
        return self.size if nl < 0 else nl + 1

    def _collect(
        self, start: int, stop: int, lineno: int, out: list[_Signal], limit: int | None, *, count_rest: bool = True
    ) -> int:
        """Append outcome lines in ``data[start:stop]`` (whole lines); return the next line number
        (only counted to ``stop`` with ``count_rest``, else to the last outcome line)."""
        data = self.data
        last_line, last_pos = -1, start
        for match in _SIGNAL.finditer(data, start, stop):
            pos = match.start()
            lineno += data.count(b"\n", last_pos, pos)
            last_pos = pos
            if lineno == last_line:
                continue
            last_line = lineno
            lo, hi = self._bounds_at(pos)
            summary = match.group(1) is not None or _SUMMARY.search(data, lo, hi) is not None
            out.append(_Signal(lineno, lo, hi, pos, summary))
            if limit is not None and len(out) >= limit:
                break
        return lineno + data.count(b"\n", last_pos, stop) if count_rest else lineno

    # -- assembly

    def preview(self, budget: int) -> str:
        picked: dict[int, str] = {}
        order: list[int] = []
        used = 2 * _MARKER_TOKENS  # the gaps after the head and before the tail

        def take(lineno: int, rendered: str, limit: int, *, gap: bool = False) -> bool:
            """Pick a line if it fits ``limit``; ``gap`` reserves room for one more marker."""
            nonlocal used
            if lineno in picked:
                return True
            cost = self.counter.count(rendered) + 1 + (_MARKER_TOKENS if gap else 0)
            if used + cost > limit:
                return False
            picked[lineno] = rendered
            order.append(lineno)
            used += cost
            return True

        forward, backward = self.signals()
        ranked = [s for s in backward if s.summary] + [s for s in forward if s.summary]
        errors_f = [s for s in forward if not s.summary]
        errors_b = [s for s in backward if not s.summary]
        for i in range(max(len(errors_f), len(errors_b))):
            ranked.extend(errors_f[i : i + 1] + errors_b[i : i + 1])
        signal_limit = int(budget * 0.35)
        for sig in ranked:
            cap = self.cap
            while cap >= 40:  # a long outcome line is shown in a narrower window rather than dropped
                rendered = self.render(sig.lineno, sig.start, sig.end, focus=sig.focus, cap=cap)
                if take(sig.lineno, rendered, signal_limit, gap=True):
                    break
                cap //= 2

        tail_limit = used + int(budget * 0.25)
        end, lineno = self.size, self.total
        while self.total > 1:  # a single line is shown from its start by the head below
            start = self.data.rfind(b"\n", 0, end) + 1
            if not take(lineno, self.render(lineno, start, end, tail=True), tail_limit):
                if lineno == self.total:
                    self._take_cut(lineno, start, end, tail_limit - used, take, tail_limit, tail=True)
                break
            if start == 0:
                break
            end, lineno = start - 1, lineno - 1

        start, lineno = 0, 1
        while start <= self.size:
            end = self.data.find(b"\n", start, self.size)
            end = self.size if end < 0 else end
            if lineno == 1 and end - start > self.cap and 1 not in picked:
                self._take_cut(1, start, end, budget - used, take, budget, tail=False)
                break
            if not take(lineno, self.render(lineno, start, end), budget):
                break
            start, lineno = end + 1, lineno + 1

        text = self._assemble(picked)
        while order and self.counter.count(text) > budget:
            del picked[order.pop()]
            text = self._assemble(picked)
        return text

    def _take_cut(self, lineno: int, start: int, end: int, room: int, take: Any, limit: int, *, tail: bool) -> None:
        """Show as much of one long line as ``room`` tokens allow (its start, or its end)."""
        room -= _MARKER_TOKENS + 24  # line number and cut note
        if room <= 0:
            return
        if tail:
            chars = room * 4
            while chars >= 20:
                if take(lineno, self.render(lineno, start, end, cap=chars, tail=True), limit):
                    return
                chars //= 2
            return
        window = self.data[start : min(end, start + (room + 1) * 64)].decode("utf-8", "ignore")
        shown = head_within(self.counter, window, room)
        if shown:
            take(lineno, self.render(lineno, start, end, cap=len(shown)), limit)

    def _assemble(self, picked: dict[int, str]) -> str:
        out: list[str] = []
        prev = 0
        for lineno in sorted(picked):
            if lineno > prev + 1:
                out.append(_omitted(prev + 1, lineno - 1))
            out.append(picked[lineno])
            prev = lineno
        if prev < self.total:
            out.append(_omitted(prev + 1, self.total))
        return "\n".join(out)


def _omitted(a: int, b: int) -> str:
    return f"... [line {a:,} omitted] ..." if a == b else f"... [lines {a:,}-{b:,} omitted] ..."
