"""The multi-level context compactor.

``await ContextCompactor(workspace).compact(session_id, messages)`` keeps a
conversation under the model's window without losing anything: whatever leaves
the context is first written to the workspace and named by reference.

* **mild** -- old tool results (outside the newest 30 %) become
  ``[Offloaded tool result | ref: PATH]`` + a summary, most replaceable first,
  only as many as needed; the paired call's long arguments are shortened
  (id and name kept) after the original call is logged to ``context.jsonl``.
* **aggressive** -- the oldest messages go to ``context.jsonl`` and are replaced
  by one summary message naming it; system messages, the last user message and
  the newest ``min_messages_kept`` stay; a cut never separates a tool call from
  its result.
* **emergency** -- the same cut down to the emergency target, then giant
  messages are truncated in place, their originals offloaded first.

Every decision is kept in ``sessions/{sid}/state.json`` and replayed on the next
call, so ``history + new turn`` compacts to the previous output plus the new
turn (prompt caches survive) and a new process continues where the last left.
"""

from __future__ import annotations

import hashlib
import logging
from collections.abc import Mapping, Sequence
from typing import Any, Literal

import anyio
import anyio.to_thread

from offloader import tokens as _tokens
from offloader.core.backend import WorkspaceProtocol
from offloader.core.convert import message_to_dict, to_message
from offloader.core.layout import STATE_FILE, TASKMAP_FILE, session_dir
from offloader.core.messages import Message
from offloader.core.naming import safe_name
from offloader.core.protocol import Offloader
from offloader.tokens import HeuristicCounter, TokenCounter

from ._run import _Run
from ._state import SessionState
from ._view import _CACHE_LIMIT, _MESSAGE_OVERHEAD, _fingerprint, _render, dict_fingerprint, public_entry
from .policy import CompactionEntry, CompactionPolicy, CompactionResult
from .summarizers import ExtractiveSummarizer, Summarizer

__all__ = ["ContextCompactor"]

#: New text (characters) above which tokenizing moves to a worker thread (a cold compaction of a long
#: history took 200-330 ms of tokenizer time on the event loop).
_TOKENIZE_INLINE = 64 << 10

_log = logging.getLogger(__name__)
_TEXT_CACHE_LIMIT = 20_000


class ContextCompactor:
    """Keeps a conversation under ``window`` tokens; see the module docstring.

    ``offloader`` is any :class:`~offloader.core.protocol.Offloader`; when it also has
    ``read_bytes``/``write_bytes`` (every workspace does) the state persists in
    ``sessions/{sid}/state.json`` and ledger lines go to ``ledger.jsonl``.
    ``counter`` defaults to the package's default counter (tiktoken when
    available). ``summarizer`` defaults to :class:`ExtractiveSummarizer`.
    ``mode="collect"`` only records summaries in the ledger and never changes
    messages. ``task_map=True`` keeps a Mermaid map of the task's steps in
    ``sessions/{sid}/taskmap.mmd`` and injects it as one message (at most
    ``policy.task_map_ratio`` of the window) after the system messages and the
    cut summary.
    """

    def __init__(
        self,
        offloader: Offloader,
        window: int = 200_000,
        counter: TokenCounter | None = None,
        policy: CompactionPolicy | None = None,
        summarizer: Summarizer | None = None,
        mode: Literal["compress", "collect"] = "compress",
        task_map: bool = False,
    ) -> None:
        if not isinstance(offloader, Offloader):
            raise TypeError(f"offloader must implement the Offloader protocol, got {type(offloader).__name__}")
        if not isinstance(window, int) or isinstance(window, bool) or window <= 0:
            raise ValueError(f"window must be a positive int, got {window!r}")
        if mode not in ("compress", "collect"):
            raise ValueError(f"mode must be 'compress' or 'collect', got {mode!r}")
        self.offloader = offloader
        self.window = window
        self.counter: TokenCounter = counter if counter is not None else _default_counter()
        self.policy = policy if policy is not None else CompactionPolicy()
        self.summarizer: Summarizer = summarizer if summarizer is not None else ExtractiveSummarizer()
        self.mode = mode
        self.task_map = task_map
        self._tokens: dict[tuple[str, int], int] = {}
        self._known: dict[str, tuple[Message, int]] = {}
        self._states: dict[str, SessionState] = {}
        self._locks: dict[str, anyio.Lock] = {}

    # ------------------------------------------------------------ public

    async def compact(
        self,
        session_id: str,
        messages: Sequence[Any],
        *,
        system_tokens: int | None = None,
        overflow: bool = False,
    ) -> CompactionResult:
        """Compact ``messages`` for ``session_id``; returns a new list in the same shape.

        ``system_tokens``: tokens of the system prompt and tool schemas sent
        besides ``messages`` (default: ``system_overhead_ratio`` of the window).
        ``overflow=True``: the model just rejected the context as too long, so
        emergency compaction runs whatever the count says.
        """
        if isinstance(messages, str | bytes) or not isinstance(messages, Sequence):
            raise TypeError(f"messages must be a list of messages, got {type(messages).__name__}")
        if system_tokens is not None and (not isinstance(system_tokens, int) or system_tokens < 0):
            raise ValueError(f"system_tokens must be a non-negative int, got {system_tokens!r}")
        safe_name(session_id)  # validates the id before anything is written
        originals = list(messages)
        canon, fps, tokens, fresh, pending = self._prepare(originals)
        if fresh:  # tokenizing new text is CPU work: a large amount goes to a worker thread
            big = sum(len(text) for _, text, _ in fresh.values()) > _TOKENIZE_INLINE
            counted = await anyio.to_thread.run_sync(self._count_fresh, fresh) if big else self._count_fresh(fresh)
            for k in pending:
                tokens[k] = counted[fps[k]]
        lock = self._locks.setdefault(session_id, anyio.Lock())
        async with lock:
            state = await self._load(session_id)
            run = _Run(self, session_id, state, originals, canon, fps, tokens, system_tokens, overflow)
            result = await run.execute()
            await self._persist(session_id, state, run)
        return result

    async def state(self, session_id: str) -> list[CompactionEntry]:
        """The entries recorded for a session (loaded from the workspace if needed)."""
        state = await self._load(session_id)
        return [public_entry(e) for e in state.entries.values()]

    # ------------------------------------------------------------ tokens

    def _prepare(
        self, objs: list[Any]
    ) -> tuple[list[Message], list[str], list[int], dict[str, tuple[Message, str, int]], list[int]]:
        """Canonical forms, fingerprints and tokens of the caller's messages, cached by content.

        The fingerprint hashes the caller's own object (no conversion), so a
        message seen before costs one serialisation and one hash per turn. New
        messages are converted and rendered first and tokenized afterwards in one
        pass: interleaving the tokenizer with the Python work made both slower.
        """
        canon: list[Message] = []
        fps: list[str] = []
        tokens: list[int] = []
        fresh: dict[str, tuple[Message, str, int]] = {}  # new this call: message, rendered text, media
        pending: list[int] = []  # positions whose count comes from ``fresh``
        known = self._known
        for obj in objs:
            fp = dict_fingerprint(obj) if type(obj) is dict else self._fingerprint(obj)
            hit = known.get(fp) if fp else None
            count = 0
            if hit is not None:
                msg, count = hit
            elif fp and fp in fresh:  # the same new message twice in one list
                msg = fresh[fp][0]
                pending.append(len(canon))
            else:
                msg = to_message(obj)  # raises TypeError naming the accepted shapes
                fp = fp or _fingerprint(message_to_dict(msg))
                if fp in fresh:
                    msg = fresh[fp][0]
                else:
                    text, media = _render(msg)
                    fresh[fp] = (msg, text, media)
                pending.append(len(canon))
            canon.append(msg)
            fps.append(fp)
            tokens.append(count)
        return canon, fps, tokens, fresh, pending

    def _count_fresh(self, fresh: dict[str, tuple[Message, str, int]]) -> dict[str, int]:
        """Tokens of the new messages (one tokenizer pass), remembered by fingerprint."""
        counted: dict[str, int] = {}
        for fp, (msg, text, media) in fresh.items():
            counted[fp] = self.counter.count(text) + media + _MESSAGE_OVERHEAD
            if len(self._known) >= _CACHE_LIMIT:
                self._known.clear()
            self._known[fp] = (msg, counted[fp])
        return counted

    @staticmethod
    def _fingerprint(obj: Any) -> str:
        """Content hash of a caller's message without converting it ("" if its shape has none)."""
        if isinstance(obj, Mapping):
            return dict_fingerprint(obj)
        if isinstance(obj, Message):
            return _fingerprint(message_to_dict(obj))
        if hasattr(obj, "model_dump_json"):
            return _fingerprint(obj.model_dump_json())
        return ""

    def _count(self, msg: Message) -> int:
        """Tokens of a message the compactor built (a replacement, the cut summary, the task map).

        Cached by its rendered text, which is all the count depends on: rendering is
        cheaper than serialising and hashing the message for a key.
        """
        text, media = _render(msg)
        key = (text, media)
        cached = self._tokens.get(key)
        if cached is None:
            cached = self.counter.count(text) + media + _MESSAGE_OVERHEAD
            if len(self._tokens) >= _TEXT_CACHE_LIMIT:  # keys hold whole texts: keep it small
                self._tokens.clear()
            self._tokens[key] = cached
        return cached

    # ------------------------------------------------------------ persistence

    def _path(self, session_id: str, name: str) -> str:
        return f"{session_dir(session_id)}/{name}"

    @property
    def _workspace(self) -> WorkspaceProtocol | None:
        """The offloader when it is a workspace (state, ledger and task map are kept there)."""
        return self.offloader if isinstance(self.offloader, WorkspaceProtocol) else None

    async def _load(self, session_id: str) -> SessionState:
        state = self._states.get(session_id)
        if state is not None:
            return state
        state = SessionState()
        ws = self._workspace
        if ws is not None:
            try:
                raw = await ws.read_bytes(self._path(session_id, STATE_FILE))
            except FileNotFoundError:
                raw = None
            if raw is not None:
                try:
                    state = SessionState.from_json(raw)
                except ValueError as exc:
                    # Keep the unreadable file for inspection; start over (nothing is lost:
                    # every reference it named is still in the workspace).
                    _log.warning("session %r: %s; starting a fresh compaction state", session_id, exc)
                    bad = f"{STATE_FILE}.invalid-{hashlib.sha256(raw).hexdigest()[:12]}"
                    await ws.write_bytes(self._path(session_id, bad), raw)
        self._states[session_id] = state
        return state

    async def _persist(self, session_id: str, state: SessionState, run: _Run) -> None:
        ws = self._workspace
        if ws is None:
            state.dirty = False
            return
        if run.changed:  # through the offload lines' own path and order (batched alike)
            records = [
                {
                    "kind": "compaction",
                    "ref": e.ref,
                    "tool": e.tool,
                    "tool_id": e.id,
                    "tokens": e.tokens,
                    "summary": e.summary,
                    "score": e.score,
                    "status": e.status,
                    "degraded": e.degraded,
                }
                for e in run.changed
            ]
            await ws.record_ledger(session_id, records)
        if run.map_text is not None and run.map_text != state.task_map:
            source = run.map_text.split("```mermaid\n", 1)[1].rsplit("```", 1)[0]
            await ws.write_bytes(self._path(session_id, TASKMAP_FILE), source.encode())
            state.task_map = run.map_text
        if state.dirty:
            await ws.write_bytes(self._path(session_id, STATE_FILE), state.to_json())
        state.dirty = False


def _default_counter() -> TokenCounter:
    factory = getattr(_tokens, "default_counter", None)
    if callable(factory):
        counter: TokenCounter = factory()
        return counter
    return HeuristicCounter()
