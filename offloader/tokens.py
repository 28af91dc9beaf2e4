"""Token counting, with costs bounded by the budget rather than the text.

``TokenCounter`` is the protocol every part of the package uses: a ``name`` and
``count(text)``. Its implementations (:class:`TiktokenCounter`,
:class:`HeuristicCounter`, :class:`CallableCounter`) live in
:mod:`offloader.counters` and are exported here.

Offload decisions must not cost O(result): :func:`exceeds`, :func:`head_within`
and :func:`estimate_tokens` only ever feed the counter a prefix whose length is
bounded by the token budget (doubling windows up to ``budget * max_chars_per_token``
characters), so a 50 MB result costs the tokenizer what a 50 KB one does.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from .counters import (
    FIRST_WINDOW_CHARS_PER_TOKEN,
    CallableCounter,
    HeuristicCounter,
    TiktokenCounter,
    TokenCounter,
    bisect_head,
    default_counter,
    verify_offline_copy,
)

__all__ = [
    "MAX_CHARS_PER_TOKEN",
    "CallableCounter",
    "HeuristicCounter",
    "TiktokenCounter",
    "TokenCounter",
    "TokenEstimate",
    "count_lines",
    "default_counter",
    "estimate_tokens",
    "exceeds",
    "head_within",
    "verify_offline_copy",
]

#: Upper bound on characters per token used to bound prefix windows. Real text
#: runs at 2-5 characters per token; text sparser than this over a whole budget
#: (megabytes of padding) is treated as exceeding it, which is the right call
#: for an offloader anyway.
MAX_CHARS_PER_TOKEN = 16
#: Line-bounded windows of head_within: a little under what dense text (JSON, code) takes.
_LINE_WINDOW_CHARS_PER_TOKEN = 3
_WINDOW_EDGE = 64
_SAMPLE_CHARS = 1024

# ------------------------------------------------------------ bounded-cost helpers


def _check_budget(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"token budget must be a non-negative int, got {n!r}")


@dataclass(frozen=True, slots=True)
class TokenEstimate:
    """A token count for a text: exact when the whole text was counted, else extrapolated."""

    tokens: int
    exact: bool
    #: Characters fed to the counter for the last (largest) window.
    counted_chars: int


def estimate_tokens(
    counter: TokenCounter, text: str, budget: int, *, max_chars_per_token: int = MAX_CHARS_PER_TOKEN
) -> TokenEstimate:
    """Count ``text`` exactly if it is within ``budget`` tokens, else estimate it.

    Text longer than ``(budget + 1) * max_chars_per_token`` characters exceeds
    the budget by length alone; its total is extrapolated from a 4 KB sample.
    Otherwise doubling prefixes are counted (from ``4 * (budget + 1)`` characters)
    until one exceeds the budget or the whole text was counted, so the counter
    is fed O(budget) characters whatever ``len(text)``.
    """
    _check_budget(budget)
    if not text:
        return TokenEstimate(0, True, 0)
    cap = max(1, (budget + 1) * max_chars_per_token)
    if len(text) > cap:
        # Over the budget by length alone: a small sample is enough to estimate the total.
        sample = min(cap, _SAMPLE_CHARS)
        tokens = counter.count(text[:sample])
        return TokenEstimate(max(math.ceil(tokens * len(text) / sample), budget + 1), False, sample)
    window = min(len(text), (budget + 1) * FIRST_WINDOW_CHARS_PER_TOKEN)
    while True:
        window = min(window, cap)
        if window >= len(text):
            return TokenEstimate(counter.count(text), True, len(text))
        prefix = text[:window]
        tokens = counter.count(prefix)
        if tokens > budget or window >= cap:
            scaled = math.ceil(tokens * len(text) / window)
            return TokenEstimate(max(scaled, budget + 1), False, window)
        window *= 2


def exceeds(counter: TokenCounter, text: str, n: int, *, max_chars_per_token: int = MAX_CHARS_PER_TOKEN) -> bool:
    """True when ``text`` has more than ``n`` tokens; costs O(n), not O(len(text)).

    Text longer than ``n * max_chars_per_token`` characters counts as exceeding.
    """
    return estimate_tokens(counter, text, n, max_chars_per_token=max_chars_per_token).tokens > n


def head_within(counter: TokenCounter, text: str, n: int, *, max_chars_per_token: int = MAX_CHARS_PER_TOKEN) -> str:
    """The longest prefix of ``text`` that fits in ``n`` tokens; costs O(n log n), not O(len).

    Uses the counter's own ``head`` when it has one (tiktoken: one encode of a
    bounded window), else bisects over character offsets inside the window.
    Python strings are sequences of code points, so a character is never split.

    A counter with ``head_count`` (tiktoken) is fed each character about once:
    windows of about 3 characters per token left, each ending after a newline
    that starts a line (where a BPE count splits: the count of the text is the
    sum of the counts of its pieces), so a multi-line text costs one encode of
    about the prefix it returns, not of a 4-characters-per-token window.
    """
    _check_budget(n)
    if n == 0 or not text:
        return ""
    if len(text) <= n and getattr(counter, "at_most_bytes", False) and _utf8_within(text, n):
        return text  # no more tokens than bytes, and no more bytes than n: it fits uncounted
    cap = (n + 1) * max_chars_per_token
    head_count = getattr(counter, "head_count", None)
    if callable(head_count):
        return _head_by_lines(head_count, text[:cap], n)
    head = getattr(counter, "head", None)
    if not callable(head):
        return bisect_head(counter, text[:cap], n)
    return _head_doubling(head, text[:cap], n)


def _utf8_within(text: str, n: int) -> bool:
    """Whether ``text`` is at most ``n`` bytes in UTF-8 (an ASCII text is as many bytes as characters)."""
    return text.isascii() or len(text.encode("utf-8", "surrogatepass")) <= n


def _head_doubling(head: Callable[[str, int], Any], text: str, n: int) -> str:
    """Doubling windows from about 4 characters per token (``text`` already bounded).

    A cut within ``_WINDOW_EDGE`` characters of a window's end may fall in a word the
    window split (tokenized otherwise than in the whole text): the next window decides.
    """
    # at least twice the edge: a smaller window's cut always falls within the edge, and would double for nothing
    size = min(len(text), max((n + 1) * FIRST_WINDOW_CHARS_PER_TOKEN, 2 * _WINDOW_EDGE))
    while True:  # usually one encode
        window = text[:size]
        result = head(window, n)
        if not isinstance(result, str) or not window.startswith(result):
            raise TypeError("a counter's head must return a prefix of its input")
        if size >= len(text) or len(result) < len(window) - _WINDOW_EDGE:
            return result
        size = min(len(text), size * 2)


def _head_by_lines(head_count: Callable[[str, int], Any], text: str, n: int) -> str:
    """Line-bounded windows, each counted once; ``text`` is already bounded."""
    start, left = 0, n
    while True:
        end = start + (left + 1) * _LINE_WINDOW_CHARS_PER_TOKEN
        if end >= len(text):
            end = len(text)
        else:
            cut = text.rfind("\n", start, end)
            while cut > start and not _splits_after(text, cut):
                cut = text.rfind("\n", start, cut)
            if cut <= start:  # no line starts in the window: the rest in doubling windows
                return text[:start] + _head_doubling(lambda w, k: head_count(w, k)[0], text[start:], left)
            end = cut + 1
        window = text[start:end]
        result, used = head_count(window, left)
        if not isinstance(result, str) or not window.startswith(result):
            raise TypeError("a counter's head_count must return a prefix of its input")
        if len(result) < len(window) or end >= len(text) or used >= left:
            return text[: start + len(result)]
        start, left = end, left - used


def count_lines(counter: TokenCounter, lines: Sequence[str], memo: dict[str, int]) -> int:
    """Tokens of ``"\\n".join(lines)``, each line counted once across calls sharing ``memo``.

    For a counter with ``splits_at_lines`` (tiktoken) the count is the sum of the
    counts of the lines (each with its newline): a BPE pre-tokenizer ends a piece
    after a newline that starts a line (not blank, no line break in its leading
    whitespace). Lines that do not start one, line breaks inside a line, or any
    other counter: one count of the joined text.
    """
    if not getattr(counter, "splits_at_lines", False) or not all(map(_starts_a_line, lines[1:])):
        return counter.count("\n".join(lines))
    total = 0
    last = len(lines) - 1
    for i, line in enumerate(lines):
        piece = line if i == last else line + "\n"
        tokens = memo.get(piece)
        if tokens is None:
            tokens = memo[piece] = counter.count(piece)
        total += tokens
    return total


def _starts_a_line(line: str) -> bool:
    if "\n" in line:
        return False
    body = line.lstrip()
    return bool(body) and "\r" not in line[: len(line) - len(body)]


def _splits_after(text: str, newline: int) -> bool:
    """Whether a BPE pre-tokenizer (cl100k, o200k) always ends a piece after ``text[newline]``.

    It does unless the whitespace that follows holds another line break (a run of
    blank lines is one piece).
    """
    i = newline + 1
    while i < len(text) and text[i].isspace():
        if text[i] in "\r\n":
            return False
        i += 1
    return i < len(text)
