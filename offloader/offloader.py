"""ContextOffloader: big tool results leave the context as a preview plus references.

After each tool call, hand the result to :meth:`ContextOffloader.process_tool_result`.
Under ``max_result_tokens`` it comes back unchanged (the same object). Over it,
every block is stored and the result comes back, in the shape it was given, as
one text block: a header, short guidance, a signal-keeping preview and one line
per stored block, followed by ``[image: png, N bytes | ref: R]`` placeholders for
media. If storing fails the original result is returned and nothing stays
half-stored.

The size decision costs O(``max_result_tokens``) whatever the result's size:
only a bounded prefix is tokenized (see :func:`offloader.tokens.estimate_tokens`).
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable
from dataclasses import dataclass
from typing import Any

import anyio

from .core import threads
from .core.backend import WorkspaceProtocol
from .core.convert import to_tool_result
from .core.messages import DataBlock, JsonBlock, TextBlock, ToolResultBlock, extension_for
from .core.protocol import Storage
from .core.reshape import Item, rebuild_tool_result
from .core.toolresult import media_path
from .core.tools import Tool
from .retrieval import TOOL_NAME as RETRIEVAL_TOOL_NAME
from .retrieval import retrieval_tool
from .signal import preview_over_budget, reads_only_the_ends
from .tokens import MAX_CHARS_PER_TOKEN, TokenCounter, default_counter, estimate_tokens

__all__ = ["DEFAULT_EXCLUDED_TOOLS", "RETRIEVAL_TOOL_NAME", "ContextOffloader", "ShouldOffload"]

_log = logging.getLogger("offloader.offloader")
#: A character is at most this many UTF-8 bytes.
_MAX_UTF8_BYTES_PER_CHAR = 4

#: Tools whose results are never offloaded: reading offloaded content back must not offload it again.
DEFAULT_EXCLUDED_TOOLS: tuple[str, ...] = (RETRIEVAL_TOOL_NAME, "Read", "Grep", "Glob")

ShouldOffload = Callable[[str, int], "bool | Awaitable[bool]"]


@dataclass(frozen=True, slots=True)
class _Stored:
    index: int | None  # block index, None for a whole-result file
    reference: str
    content_type: str
    size: int
    description: str


class _FitsInContext(Exception):
    """Raised in the offload's worker thread when the count finds that the result fits: nothing is stored."""


class ContextOffloader:
    """Replace oversized tool results by a preview and references to the stored blocks.

    Args:
        storage: a :class:`~offloader.storage.Storage` (each block stored with its
            content type), or a ``workspaces.Workspace`` (the workspace's own
            layout: the whole result in ``sessions/{sid}/tool_result-{id}.txt``,
            media in ``data/``; references are those files).
        max_result_tokens: offload results with more tokens than this (default 2,500).
        preview_tokens: size of the preview left in context (default 1,000; must be
            smaller than ``max_result_tokens``).
        counter: token counter (default :func:`offloader.tokens.default_counter`).
        include_retrieval_tool: point the agent at ``retrieve_offloaded_content``
            (see :meth:`tools`); when False the guidance says to use file tools.
        should_offload: ``(tool_name, tokens) -> bool`` (sync or async), asked only
            for results over the threshold; if it raises, the result is offloaded.
        exclude_tools: tool names never offloaded (default: the retrieval tool,
            Read, Grep, Glob).
    """

    def __init__(
        self,
        storage: Storage | WorkspaceProtocol,
        max_result_tokens: int = 2500,
        preview_tokens: int = 1000,
        counter: TokenCounter | None = None,
        *,
        include_retrieval_tool: bool = True,
        should_offload: ShouldOffload | None = None,
        exclude_tools: Iterable[str] = DEFAULT_EXCLUDED_TOOLS,
    ) -> None:
        self._workspace = _as_workspace(storage)
        if self._workspace is None and not all(
            inspect.iscoroutinefunction(getattr(storage, m, None)) for m in ("store", "retrieve", "delete", "list")
        ):
            raise TypeError(
                "storage must be a Storage (async store/retrieve/delete/list) or a workspaces.Workspace, "
                f"got {type(storage).__name__}"
            )
        for name, value in (("max_result_tokens", max_result_tokens), ("preview_tokens", preview_tokens)):
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if preview_tokens >= max_result_tokens:
            raise ValueError(
                f"preview_tokens ({preview_tokens}) must be smaller than max_result_tokens ({max_result_tokens})"
            )
        if counter is not None and not (
            isinstance(getattr(counter, "name", None), str) and callable(getattr(counter, "count", None))
        ):
            raise TypeError(f"counter must have a str name and count(text) -> int, got {type(counter).__name__}")
        if should_offload is not None and not callable(should_offload):
            raise TypeError(f"should_offload must be callable, got {type(should_offload).__name__}")
        if isinstance(exclude_tools, str):
            raise TypeError("exclude_tools must be a collection of tool names, not a single str")
        excluded = frozenset(exclude_tools)
        if not all(isinstance(n, str) for n in excluded):
            raise TypeError("exclude_tools must contain only str tool names")
        self.storage = storage
        self.max_result_tokens = max_result_tokens
        self.preview_tokens = preview_tokens
        self.counter: TokenCounter = counter if counter is not None else default_counter()
        self.include_retrieval_tool = bool(include_retrieval_tool)
        self.should_offload = should_offload
        self.exclude_tools = excluded

    # ------------------------------------------------------------ tools

    def tools(self) -> list[Tool]:
        """The retrieval tool bound to this storage (empty when ``include_retrieval_tool`` is False)."""
        if not self.include_retrieval_tool:
            return []
        return [retrieval_tool(self.storage)]

    # ------------------------------------------------------------ main entry

    async def process_tool_result(self, session_id: str, tool_result: Any, *, tool_name: str | None = None) -> Any:
        """What goes into the context for ``tool_result`` (see the class doc).

        ``tool_name`` overrides the name carried by the result (OpenAI tool
        messages carry none). Raises TypeError for a shape that is not a tool result.
        """
        if not isinstance(session_id, str) or not session_id:
            raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
        result = to_tool_result(tool_result)
        name = tool_name if tool_name is not None else result.name
        if name in self.exclude_tools:
            return tool_result
        text = _text_of(result)
        if self._fits_uncounted(text):
            return tool_result
        tokens: int | None = None
        counted_in_the_offload = False
        if len(text) <= (self.max_result_tokens + 1) * MAX_CHARS_PER_TOKEN or self.should_offload is not None:
            if self.should_offload is None and self._counts_in_the_store_hop():
                # counted in the offload's own worker-thread hop, which stores nothing if the result fits
                counted_in_the_offload = True
            else:
                estimate = await threads.run_sync(estimate_tokens, self.counter, text, self.max_result_tokens)
                if estimate.tokens <= self.max_result_tokens:
                    return tool_result
                if not await self._wants_offload(name, estimate.tokens, result.id):
                    return tool_result
                tokens = estimate.tokens
        # else over the threshold by length alone: the estimate, needed only for the
        # header, is made in the preview's worker thread (one thread hop fewer).
        try:
            preview, tokens, stored = await self._offload(session_id, result, text, tokens, counted_in_the_offload)
        except _FitsInContext:
            return tool_result
        except Exception:
            _log.warning(
                "tool result %r of %r (~%s tokens) kept in context: offloading failed",
                result.id,
                name,
                tokens if tokens is not None else "?",
                exc_info=True,
            )
            return tool_result
        _log.debug("offloaded %r of %r: %d stored, ~%d tokens", result.id, name, len(stored), tokens)
        items = self._replacement(result, stored, preview, tokens)
        return rebuild_tool_result(tool_result, items, result)

    def _fits_uncounted(self, text: str) -> bool:
        """Whether ``text`` fits whatever it says: a counter that counts at most its UTF-8 bytes needs no count."""
        short = len(text) * _MAX_UTF8_BYTES_PER_CHAR <= self.max_result_tokens
        return short and bool(getattr(self.counter, "at_most_bytes", False))

    def _counts_in_the_store_hop(self) -> bool:
        """Whether the count can run in the store's own worker-thread hop (a local workspace), storing
        nothing if the result fits. Elsewhere a remote store's round trip overlaps the preview instead."""
        ws = self._workspace
        if ws is None or not callable(getattr(ws, "offload_tool_result_with", None)):
            return False
        in_one_hop = getattr(ws, "stores_in_one_hop", None)
        return callable(in_one_hop) and bool(in_one_hop())

    async def _offload(
        self, session_id: str, result: ToolResultBlock, text: str, tokens: int | None, only_over: bool = False
    ) -> tuple[str, int, list[_Stored]]:
        """Store the blocks while the preview (and a missing estimate) is built in a worker thread.

        All or nothing. Returns (preview, estimated tokens, stored blocks). ``only_over``:
        the estimate decides first, and a result within ``max_result_tokens`` raises
        :class:`_FitsInContext` with nothing stored.
        """
        previews: list[tuple[str, int]] = []
        stored: list[_Stored] = []

        def work() -> tuple[str, int]:
            count = tokens
            if count is None:
                count = estimate_tokens(self.counter, text, self.max_result_tokens).tokens
                if only_over and count <= self.max_result_tokens:
                    raise _FitsInContext
            return self._preview(text), count

        ws = self._workspace
        combined = getattr(ws, "offload_tool_result_with", None) if ws is not None else None
        if ws is not None and combined is not None:  # a workspaces.Workspace: one thread hop on LocalWorkspace
            # A preview whose cost does not grow with the text (compact JSON) runs before the store in the same
            # hop whatever the size: in a thread of its own it would only contend for the GIL with the store.
            # A count that may find the result fitting (only_over) runs first too: its exception then stores nothing.
            parallel = False if only_over or reads_only_the_ends(text) else None
            ref, (preview, count, size) = await combined(
                session_id, result, lambda: (*work(), _utf8_size(text)), parallel=parallel
            )
            return preview, count, await self._workspace_entries(ws, ref, result, size)

        async def build_preview() -> None:
            previews.append(await threads.run_sync(work))

        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(build_preview)
                stored = await self._store(session_id, result, text)
        except BaseException:
            if stored and self._workspace is None:  # the store succeeded but the preview did not
                with anyio.CancelScope(shield=True):
                    await self._roll_back(self.storage, stored, result.id)  # type: ignore[arg-type]
            raise
        return previews[0][0], previews[0][1], stored

    def _preview(self, text: str) -> str:
        # Only called once the text is known to exceed max_result_tokens > preview_tokens.
        return preview_over_budget(text, self.counter, self.preview_tokens) if text else ""

    async def _wants_offload(self, name: str, tokens: int, tool_id: str) -> bool:
        if self.should_offload is None:
            return True
        try:
            verdict = self.should_offload(name, tokens)
            if inspect.isawaitable(verdict):
                verdict = await verdict
            return bool(verdict)
        except Exception:
            _log.warning("should_offload raised for %r (%r); offloading as by default", tool_id, name, exc_info=True)
            return True

    # ------------------------------------------------------------ storing

    async def _store(self, session_id: str, result: ToolResultBlock, text: str) -> list[_Stored]:
        """Store every block; ``text`` is the result's joined text (see :func:`_text_of`)."""
        if self._workspace is not None:
            return await self._store_in_workspace(self._workspace, session_id, result, text)
        storage: Storage = self.storage  # type: ignore[assignment]
        stored: list[_Stored] = []
        try:
            for index, block in enumerate(result.content):
                item = _payload(block)
                if item is None:
                    continue  # empty text or a block that stays in context; the index is still consumed
                data, content_type, description = item
                ref = await storage.store(f"{result.id}_{index}", data, content_type)
                if not isinstance(ref, str) or not ref:
                    raise TypeError(f"{type(storage).__name__}.store returned {ref!r}, expected a reference str")
                stored.append(_Stored(index, ref, content_type, len(data), description))
        except BaseException:
            with anyio.CancelScope(shield=True):
                await self._roll_back(storage, stored, result.id)
            raise
        return stored

    async def _roll_back(self, storage: Storage, stored: list[_Stored], tool_id: str) -> None:
        left: list[str] = []
        for entry in stored:
            try:
                await storage.delete(entry.reference)
            except Exception:
                left.append(entry.reference)
        if left:
            _log.warning("offload of %r failed and these blocks could not be removed: %s", tool_id, ", ".join(left))

    async def _store_in_workspace(
        self, ws: WorkspaceProtocol, session_id: str, result: ToolResultBlock, text: str
    ) -> list[_Stored]:
        ref = await ws.offload_tool_result(session_id, result)
        size = len(text) if text.isascii() else await threads.run_sync(_utf8_size, text)
        return await self._workspace_entries(ws, ref, result, size)

    async def _workspace_entries(
        self, ws: WorkspaceProtocol, ref: str, result: ToolResultBlock, text_size: int
    ) -> list[_Stored]:
        """The stored file (``text_size``: UTF-8 size of the joined text) and the media it references."""
        if all(isinstance(b, TextBlock | JsonBlock) for b in result.content):
            # The stored file is exactly the joined text (see offloader.core.toolresult.render_tool_result):
            # its size is known without asking the backend (a round trip on Docker/E2B).
            size = text_size
        else:
            info = await ws.stat(ref)
            size = info.size if info is not None else 0
        stored = [_Stored(None, ref, "text/plain", size, f"{size:,} bytes, all {len(result.content)} blocks")]
        for index, block in enumerate(result.content):
            if isinstance(block, DataBlock) and block.data is not None:
                rel = media_path(block)
                stored.append(
                    _Stored(index, ws.reference(rel), block.media_type, len(block.data), _describe_media(block))
                )
        return stored

    # ------------------------------------------------------------ replacement

    def _replacement(self, result: ToolResultBlock, stored: list[_Stored], preview: str, tokens: int) -> list[Item]:
        if self.include_retrieval_tool:
            guidance = (
                "The full tool result was stored outside the context; use the preview below if it answers "
                f"your question. For more, call {RETRIEVAL_TOOL_NAME} with a reference and a pattern (regex) "
                "or a line_range {start, end}; retrieve everything only as a last resort."
            )
        else:
            guidance = (
                "The full tool result was stored outside the context; use the preview below if it answers "
                "your question. For more, use your file tools (Read, Grep) on the references below."
            )
        refs = "\n".join(f"  {s.reference} ({s.content_type}, {s.description})" for s in stored)
        parts = [f"[Offloaded: {len(result.content)} blocks, ~{tokens:,} tokens]", guidance]
        if preview:
            parts.append(preview)
        parts.append(f"[Stored references:]\n{refs}")
        items: list[Item] = ["\n\n".join(parts)]
        by_index = {s.index: s for s in stored if s.index is not None}
        for index, block in enumerate(result.content):
            if isinstance(block, TextBlock | JsonBlock):
                continue
            entry = by_index.get(index)
            if isinstance(block, DataBlock) and entry is not None:
                items.append(_placeholder(block, entry.reference))
            else:
                items.append(index)  # URL media, tool calls, nested results: kept as they were
        return items


def _as_workspace(storage: Any) -> WorkspaceProtocol | None:
    return storage if isinstance(storage, WorkspaceProtocol) else None


def _text_of(result: ToolResultBlock) -> str:
    """Text and JSON blocks joined by newlines: what the preview shows and the count measures."""
    return "\n".join(_block_text(b) for b in result.content if isinstance(b, TextBlock | JsonBlock))


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(text.encode("utf-8", "surrogatepass"))


def _block_text(block: TextBlock | JsonBlock) -> str:
    return block.text if isinstance(block, TextBlock) else block.dumps(indent=2)


def _payload(block: Any) -> tuple[bytes, str, str] | None:
    """(bytes, content type, description) to store for one block, or None to keep it."""
    if isinstance(block, TextBlock):
        if not block.text:
            return None
        return block.text.encode("utf-8", "surrogatepass"), "text/plain", f"{len(block.text):,} chars"
    if isinstance(block, JsonBlock):
        data = block.dumps(indent=2).encode("utf-8", "surrogatepass")
        return data, "application/json", f"{len(data):,} bytes"
    if isinstance(block, DataBlock) and block.data:
        return block.data, block.media_type, _describe_media(block)
    return None


def _media_format(block: DataBlock) -> str:
    return extension_for(block.media_type).lstrip(".")


def _describe_media(block: DataBlock) -> str:
    name = f"{block.name}, " if block.name else ""
    return f"{name}{block.size or 0:,} bytes"


def _placeholder(block: DataBlock, reference: str) -> str:
    name = f"{block.name}, " if block.name else ""
    return f"[{block.kind}: {_media_format(block)}, {name}{block.size or 0:,} bytes | ref: {reference}]"
