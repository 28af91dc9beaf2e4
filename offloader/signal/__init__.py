"""The signal engine: which lines of a tool's output matter, and the preview that keeps them.

Every part of the package that decides which lines matter uses this module:
:class:`~offloader.ContextOffloader`'s previews, ``offload run``'s preview and
header, and the extractive compaction summarizer.

How a line earns its place (see ``docs/concepts/previews.md``):

* **priors** (``_patterns``): one table of outcome patterns (failure labels,
  exceptions, runner verdicts, OS errors, exit status, summaries), found in one
  pass over the bytes by Hyperscan (or RE2 without it);
* **rarity** (``_rank``): a template repeated many times is not news even when
  it says "error"; a one-off line among repeated ones is, keyword or not;
* **structure**: an exception line brings its last frame, a compiler error its
  caret and location lines, an assertion its got/want lines;
* **position and streams**: the head and the tail, the first occurrence of an
  error, the last occurrence of a summary, lines known to come from stderr;
* **documents and code** (``_prose``, ``_documents``, ``_reference``, ``_code``): a
  wrapped paragraph, a rendered manual page, Python's help, a Markdown file, an option's
  description, a list of levels, a statement of source code, a whole source file, a
  diff's hunk and a commit's message talk about failures; what they say is ranked,
  never counted as a failure.

JSON is read only as far as the preview needs (``_json``); binary output is
described, never copied into the preview.
"""

from __future__ import annotations

import mmap
import os
from collections.abc import Collection
from dataclasses import dataclass
from typing import Any

from ..tokens import TokenCounter, exceeds, head_within
from ._excerpts import EXCERPT_BYTES, json_excerpts
from ._json import PREFIX_CHARS, SUFFIX_CHARS, json_shape, read_json
from ._rank import Unit, rank, strip_ansi
from ._render import MARKER_TOKENS, assemble_lines, render_line
from ._scan import TEXT_WINDOW, AsciiText, Scan, binary_reason, scan

__all__ = [
    "Signal",
    "binary_reason",
    "json_shape",
    "make_preview",
    "outcome_lines",
    "preview_file",
    "preview_over_budget",
    "read_signal",
    "reads_only_the_ends",
    "strip_ansi",
]

_HEX_BYTES = 256
#: At most this share of a compact JSON preview's room goes to excerpts from its middle.
EXCERPT_SHARE = 0.35
#: The pretty view is laid out to this many characters per token of budget (JSON runs at about 3)
PRETTY_CHARS_PER_TOKEN = 4
#: ... and again to this many when the first layout all fits (long strings, sparse text).
SPARSE_PRETTY_CHARS_PER_TOKEN = 6


@dataclass(frozen=True, slots=True)
class Signal:
    """What the engine read in one output."""

    lines: int
    size: int  # bytes
    binary: str | None  # why the output is not text, or None
    failure_lines: int  # lines that are failure evidence (strong, not a repeated template)
    units: tuple[Unit, ...]  # ranked lines, best first
    engine: str  # "hyperscan" or "re2"

    @property
    def failing(self) -> bool:
        """Whether the output itself says that something failed."""
        return self.failure_lines > 0


def read_signal(
    data: bytes | str,
    *,
    stderr_lines: Collection[int] = (),
    stderr_mark: bytes | None = None,
    engine: str | None = None,
) -> Signal:
    """Rank the lines of ``data`` (text or UTF-8 bytes) without building a preview.

    Known stderr lines are given by number (``stderr_lines``) or by a mark they
    start with (``stderr_mark``, as ``offload run`` stores them).
    """
    raw = _as_data(data) if isinstance(data, str) else data
    return _read(raw, stderr_lines, engine, stderr_mark)[0]


def _read(
    data: Any, stderr_lines: Collection[int], engine: str | None, mark: bytes | None = None
) -> tuple[Signal, Scan | None]:
    reason = binary_reason(data)
    if reason is not None:
        lines = 0
        return Signal(lines, len(data), reason, 0, (), ""), None
    result = scan(data, engine, mark)
    units = sorted(rank(result, stderr_lines), key=lambda u: (-u.score, u.lineno))
    failures = sum(1 for u in units if u.failure)
    return Signal(result.lines, len(data), None, failures, tuple(units), result.engine), result


def make_preview(
    text: str,
    *,
    counter: TokenCounter,
    preview_tokens: int,
    max_line_chars: int = 400,
    stderr_lines: Collection[int] = (),
) -> str:
    """A preview of ``text`` within ``preview_tokens`` (measured with ``counter``).

    Text that already fits is returned unchanged. ``stderr_lines`` (1-based line
    numbers) marks lines known to come from stderr; they rank higher.
    """
    if isinstance(preview_tokens, bool) or not isinstance(preview_tokens, int) or preview_tokens < 0:
        raise ValueError(f"preview_tokens must be a non-negative int, got {preview_tokens!r}")
    if isinstance(max_line_chars, bool) or not isinstance(max_line_chars, int) or max_line_chars < 20:
        raise ValueError(f"max_line_chars must be an int >= 20, got {max_line_chars!r}")
    if not isinstance(text, str):
        raise TypeError(f"text must be a str, got {type(text).__name__}")
    if preview_tokens == 0:
        return ""
    if "\0" not in text[:4096] and not exceeds(counter, text, preview_tokens):
        return text
    return preview_over_budget(text, counter, preview_tokens, max_line_chars, stderr_lines=stderr_lines)


def preview_over_budget(
    text: str | bytes,
    counter: TokenCounter,
    preview_tokens: int,
    max_line_chars: int = 400,
    *,
    stderr_lines: Collection[int] = (),
) -> str:
    """:func:`make_preview` for a caller that already knows ``text`` exceeds the budget."""
    if isinstance(text, str):
        compact = _compact_json_preview(text, counter, preview_tokens, max_line_chars)
        if compact is not None:
            return compact
    data = _as_data(text) if isinstance(text, str) else text
    return _preview(data, counter, preview_tokens, max_line_chars, stderr_lines, want_signal=False)[0]


def _as_data(text: str) -> Any:
    """The engine's bytes-like view of ``text``: a long ASCII text is not encoded whole (see AsciiText)."""
    if len(text) > TEXT_WINDOW and text.isascii():
        return AsciiText(text)
    return text.encode("utf-8", "surrogatepass")


def preview_file(
    path: str | os.PathLike[str],
    counter: TokenCounter,
    preview_tokens: int,
    *,
    max_line_chars: int = 400,
    stderr_lines: Collection[int] = (),
    stderr_mark: bytes | None = None,
) -> tuple[str, Signal]:
    """Preview a file in place (memory-mapped and scanned in windows: never read into memory whole)."""
    with open(path, "rb") as f:
        if os.fstat(f.fileno()).st_size == 0:
            return "", Signal(0, 0, None, 0, (), "")
        with mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_READ) as mapped:
            text, signal = _preview(_Mapped(mapped), counter, preview_tokens, max_line_chars, stderr_lines, stderr_mark)
            assert signal is not None
            return text, signal


def outcome_lines(text: str, limit: int = 3) -> tuple[list[str], bool]:
    """The ``limit`` lines that best say what happened (in output order), and whether it failed.

    For one-line summaries (the extractive compaction summarizer).
    """
    data = text.encode("utf-8", "surrogatepass")
    signal, result = _read(data, (), None)
    if result is None:
        return [f"binary output, {len(data):,} bytes"], False
    best = sorted(signal.units[:limit], key=lambda u: u.lineno)
    lines = [
        render_line(result, u.lineno, u.start, u.end, cap=200, focus=u.focus).split("\t", 1)[1].strip() for u in best
    ]
    return lines, signal.failing


def _preview(
    data: Any,
    counter: TokenCounter,
    budget: int,
    cap: int,
    stderr_lines: Collection[int],
    mark: bytes | None = None,
    *,
    want_signal: bool = True,
) -> tuple[str, Signal | None]:
    head = bytes(data[:PREFIX_CHARS])
    if head.lstrip()[:1] in (b"{", b"["):
        size = len(data)
        complete = size <= PREFIX_CHARS
        head_text = head.decode("utf-8", "replace" if complete else "ignore")
        tail_text = "" if complete else bytes(data[-SUFFIX_CHARS:]).decode("utf-8", "ignore")
        whole = data if size <= EXCERPT_BYTES else None
        text = _json_preview(head_text, tail_text, size, complete, counter, budget, cap, data, whole)
        if text is not None:
            return text, _read(data, stderr_lines, None, mark)[0] if want_signal else None
    signal, result = _read(data, stderr_lines, None, mark)
    if result is None:
        return _binary_preview(data, signal.binary or "", counter, budget), signal
    return assemble_lines(result, list(signal.units), counter, budget, cap), signal


def reads_only_the_ends(text: str) -> bool:
    """Whether the preview of ``text`` reads a bounded part of it (a compact JSON document: its two ends).

    Its cost is then the same for 150 KB and 50 MB, so a caller need not overlap it with the store.
    """
    return text[:64].lstrip()[:1] in ("{", "[") and text.count("\n", 0, 4096) < 3 and "\0" not in text[:4096]


def _compact_json_preview(text: str, counter: TokenCounter, budget: int, cap: int) -> str | None:
    """The preview of a compact (few-line) JSON text, read from its ends without encoding it whole."""
    if not reads_only_the_ends(text):
        return None
    size = len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))
    complete = len(text) <= PREFIX_CHARS
    tail = "" if complete else text[-SUFFIX_CHARS:]
    whole = text.encode("utf-8", "surrogatepass") if size <= EXCERPT_BYTES else None
    return _json_preview(text[:PREFIX_CHARS], tail, size, complete, counter, budget, cap, None, whole)


def _json_preview(
    head_text: str,
    tail_text: str,
    size: int,
    complete: bool,
    counter: TokenCounter,
    budget: int,
    cap: int,
    data: Any,
    whole: Any = None,
) -> str | None:
    """Shape line (scalars verbatim) and a pretty head; pretty JSON keeps its numbered lines (needs ``data``).

    Compact JSON given ``whole`` (its bytes, when small enough) also shows the failure
    evidence its pretty head does not reach, as compact excerpts.
    """
    multiline = head_text.count("\n", 0, 4096) >= 3
    if multiline and data is None:
        return None
    room = 0 if multiline else budget * PRETTY_CHARS_PER_TOKEN
    view = read_json(head_text, tail_text, size, complete, pretty_chars=room)
    if view is None:
        return None
    shape = head_within(counter, view.shape(), int(budget * 0.4))
    header = f"[{shape}]\n" if multiline else f"[{shape}; pretty-printed below, the stored text is compact]\n"
    rest = max(1, budget - counter.count(header) - 2 * MARKER_TOKENS)
    if multiline:
        signal, result = _read(data, (), None)
        if result is None:
            return None
        return header + assemble_lines(result, list(signal.units), counter, rest, cap)
    pretty = head_within(counter, view.pretty, rest)
    if len(pretty) == len(view.pretty) == room:  # sparse text: the pretty view may fill more room
        view = read_json(head_text, tail_text, size, complete, pretty_chars=budget * SPARSE_PRETTY_CHARS_PER_TOKEN)
        if view is None:
            return None
        pretty = head_within(counter, view.pretty, rest)
    cut_view = len(pretty) < len(view.pretty) or not view.complete
    found = _excerpts(whole, len(pretty) // 4, counter, int(rest * EXCERPT_SHARE), cap) if cut_view else ""
    if found:
        pretty = head_within(counter, view.pretty, max(1, rest - counter.count(found)))
    if cut_view:
        cut = pretty.rfind("\n")
        pretty = (pretty[:cut] if cut > 0 else pretty) + (
            f"\n... [pretty-printed view cut; the whole JSON is {size:,} bytes] ..."
        )
    return header + pretty + found


def _excerpts(whole: Any, skip: int, counter: TokenCounter, budget: int, cap: int) -> str:
    """Compact excerpts of failure evidence from the middle of a JSON document, within ``budget``."""
    if whole is None:
        return ""
    lines = ["", "[failure evidence further in, as stored (compact):]"]
    for offset, text in json_excerpts(whole, skip, limit=8):
        line = f"... [byte {offset:,}] {text if len(text) <= cap else text[:cap] + ' ...'}"
        if counter.count("\n".join([*lines, line])) > budget:
            break
        lines.append(line)
    return "\n".join(lines) if len(lines) > 2 else ""


def _binary_preview(data: Any, reason: str, counter: TokenCounter, budget: int) -> str:
    """Size, why it is binary, and a hex dump of the start (never the raw bytes)."""
    lines = [f"[binary output: {len(data):,} bytes ({reason}); not shown as text. Start as hex:]"]
    start = bytes(data[:_HEX_BYTES])
    for offset in range(0, len(start), 16):
        chunk = start[offset : offset + 16]
        hexes = " ".join(f"{b:02x}" for b in chunk)
        printable = "".join(chr(b) if 32 <= b < 127 else "." for b in chunk)
        lines.append(f"{offset:08x}  {hexes:<47}  {printable}")
    text = "\n".join(lines)
    return head_within(counter, text, budget)


class _Mapped:
    """A read-only mmap with the bytes methods the engine uses (``count`` reads in bounded chunks)."""

    _CHUNK = 4 << 20

    def __init__(self, mapped: mmap.mmap) -> None:
        self.raw = mapped
        self.find = mapped.find
        self.rfind = mapped.rfind

    def __len__(self) -> int:
        return len(self.raw)

    def release(self, start: int, end: int) -> None:
        """Drop a scanned range from this process's resident memory (the page cache keeps it)."""
        page = mmap.PAGESIZE
        lo = start - start % page
        if end > lo and hasattr(mmap, "MADV_DONTNEED"):
            self.raw.madvise(mmap.MADV_DONTNEED, lo, min(end, len(self.raw)) - lo)

    def __getitem__(self, index: slice) -> bytes:
        return self.raw[index]

    def count(self, sub: bytes, start: int = 0, end: int | None = None) -> int:
        end = len(self.raw) if end is None else end
        total = 0
        for lo in range(start, end, self._CHUNK):
            hi = min(end, lo + self._CHUNK)
            total += self.raw[lo:hi].count(sub)
            if hi - lo == self._CHUNK:
                self.release(lo, hi)
        return total
