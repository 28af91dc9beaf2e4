"""The Workspace base class: layout, naming, offloading and file tools, written once.

A backend subclasses :class:`Workspace`, declares its capabilities and
implements the primitives documented in :class:`workspaces.contract.Backend`;
the public file operations (:mod:`workspaces._fileops`) and the Read / Grep /
Glob tools (:mod:`workspaces.tools`) are mixins over those primitives. The
on-disk layout, identical on every backend, is described (and named) in
:mod:`offloader.core.layout`.
"""

from __future__ import annotations

import hashlib
import logging
import time
from collections.abc import Callable, Sequence
from types import TracebackType
from typing import Any, Self, TypeVar

import anyio

from offloader.core import layout, threads
from offloader.core import text as _text
from offloader.core.convert import message_to_dict, to_data_block, to_message, to_tool_result, with_data_url
from offloader.core.errors import PathOutsideWorkspace, WorkspaceClosed
from offloader.core.layout import DATA_URL_PREFIX, LEDGER_FILE, json_line, ledger_line
from offloader.core.messages import TextBlock, ToolResultBlock
from offloader.core.naming import safe_name
from offloader.core.records import native_record
from offloader.core.toolresult import media_path, render_tool_result, render_tool_text, strip_media
from offloader.core.tools import Tool

from ._fileops import FileOps
from .contract import Backend
from .retention import RetentionPolicy, collect_garbage
from .tools import FileTools

__all__ = ["Workspace"]

_log = logging.getLogger("offloader.workspaces")
_T = TypeVar("_T")

#: Text size (characters) from which an offload stores and runs the caller's work in
#: parallel threads rather than one after the other in one worker-thread hop.
PARALLEL_FROM = 1 << 20


class Workspace(FileOps, FileTools, Backend):
    """A place where offloaded content lives; implements the Offloader protocol.

    Use as ``async with LocalWorkspace(...) as ws:``. All public methods are async.
    """

    #: Absolute workdir in the workspace's own filesystem (or a URL root).
    workdir: str
    #: Ledger lines buffered before one append. 1 appends with every offload; remote
    #: backends raise it so an offload costs one round trip. Buffered lines are written
    #: when the batch fills, on the first offload after ``ledger_max_delay`` seconds,
    #: and by ``flush()``, ``gc()`` and ``close()``.
    ledger_batch: int = 1
    ledger_max_delay: float = 5.0
    #: How media files under ``data/`` are named: ``"sha256"`` of the bytes (default), or
    #: ``"agentscope"`` (sha256 of their base64 text, AgentScope's own naming). Set per instance.
    media_names: str = "sha256"

    def __init__(self, workdir: str) -> None:
        self.workdir = workdir.rstrip("/") or "/"
        self._opened = False
        self._closed = False
        self._open_lock = anyio.Lock()
        self._ledger_lock = anyio.Lock()
        self._ledger_buffer: dict[str, list[bytes]] = {}
        self._ledger_oldest: float | None = None

    # ------------------------------------------------------------ lifecycle

    async def __aenter__(self) -> Self:
        await self.open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def open(self) -> None:
        async with self._open_lock:
            if self._closed:
                raise WorkspaceClosed(f"{type(self).__name__} is closed")
            if not self._opened:
                await self._open()
                self._opened = True

    async def close(self) -> None:
        async with self._open_lock:
            if self._opened and not self._closed:
                try:
                    await self.flush()
                except Exception as exc:  # the backend may be gone; closing must still release it
                    _log.warning("could not write %d buffered ledger lines on close: %s", self._pending(), exc)
                await self._close()
            self._closed = True

    async def flush(self) -> None:
        """Write buffered ledger lines (see ``ledger_batch``)."""
        async with self._ledger_lock:
            buffer, self._ledger_buffer, self._ledger_oldest = self._ledger_buffer, {}, None
            for path in list(buffer):
                try:
                    await self._append(path, b"".join(buffer[path]))
                except BaseException:
                    for left, lines in buffer.items():  # keep what was not written, in order
                        self._ledger_buffer[left] = lines + self._ledger_buffer.get(left, [])
                    self._ledger_oldest = time.monotonic()
                    raise
                del buffer[path]

    def _pending(self) -> int:
        return sum(len(lines) for lines in self._ledger_buffer.values())

    async def _ready(self) -> None:
        if self._closed:
            raise WorkspaceClosed(f"{type(self).__name__} is closed")
        if not self._opened:
            await self.open()

    # ------------------------------------------------------------ paths

    def reference(self, path: str) -> str:
        """The reference an agent sees for a workdir-relative path."""
        rel = self.relative(path)
        return f"{self.workdir}/{rel}" if rel else self.workdir

    def relative(self, path_or_reference: str) -> str:
        """Workdir-relative path for a relative path, a reference or a ``workspace:///`` URL.

        Raises PathOutsideWorkspace for anything that would leave the workdir.
        """
        if not isinstance(path_or_reference, str):
            raise TypeError(f"path must be a str, got {type(path_or_reference).__name__}")
        p = path_or_reference
        root = self.workdir.rstrip("/")
        if p.startswith(DATA_URL_PREFIX):
            p = p[len(DATA_URL_PREFIX) :]
        elif p == root or p == root + "/":
            return ""
        elif p.startswith(root + "/"):
            p = p[len(root) + 1 :]
        elif p.startswith("/") or "://" in p:
            raise PathOutsideWorkspace(f"{path_or_reference!r} is outside the workdir {self.workdir!r}")
        return _text.normalise_relative(p)

    @staticmethod
    def session_dir(session_id: str) -> str:
        return layout.session_dir(session_id)

    # ------------------------------------------------------------ offloading

    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        """Store the whole tool result (every block, in order) and return its reference.

        The same id offloaded again with the same content returns the same
        reference; different content gets a new file, never an overwrite.
        """
        ref, _ = await self.offload_tool_result_with(session_id, tool_result, _nothing, parallel=False)
        return ref

    def stores_in_one_hop(self) -> bool:
        """Whether an offload stores in the worker-thread hop that runs the caller's work (a local disk),
        after the work when ``parallel`` is False. Elsewhere the store is a round trip the work overlaps."""
        return self._one_hop_store() is not None

    def _one_hop_store(self) -> Callable[[Sequence[tuple[str, bytes | str]], tuple[str, bytes]], list[bool]] | None:
        """The blocking store that writes the files and the ledger line at once, where there is one."""
        return self._blocking_store() if self.ledger_batch <= 1 else None

    async def offload_tool_result_with(
        self, session_id: str, tool_result: Any, work: Callable[[], _T], *, parallel: bool | None = None
    ) -> tuple[str, _T]:
        """:meth:`offload_tool_result`, running the blocking ``work`` in a worker thread meanwhile.

        Returns (reference, what ``work`` returned). A backend with a blocking store
        (``_blocking_store``) runs ``work``, the rendering, the write and the ledger
        line in one worker-thread hop (``work`` first: if it raises, nothing is
        stored); other backends, and ``parallel`` work (by default: results of
        ``PARALLEL_FROM`` characters or more), store while ``work`` runs in a thread of its own.
        """
        await self._ready()
        result = to_tool_result(tool_result)
        # AgentScope streams a result as chunks and joins them verbatim; other frameworks' blocks are paragraphs
        sep = "" if type(tool_result).__module__.startswith("agentscope.") else "\n"
        folder = self.session_dir(session_id)
        stem = f"{folder}/{layout.TOOL_RESULT_PREFIX}{safe_name(result.id)}"
        path = f"{stem}.txt"
        ledger = f"{folder}/{LEDGER_FILE}"
        store = self._one_hop_store()

        def entry(p: str, body: bytes | str) -> dict[str, Any]:
            return {
                "kind": "tool_result",
                "ref": self.reference(p),
                "tool": result.name,
                "tool_id": result.id,
                "bytes": len(body),  # a str body is ASCII (see render_and_store)
                "tokens": layout.estimate_tokens(len(body)),
                "status": "offloaded",
                "is_error": result.is_error,
            }

        def render_and_store() -> tuple[bytes | str, list[bool]]:
            assert store is not None
            media, text = render_tool_text(result, sep, self.media_names)
            # ASCII text (its size known without encoding) is handed over as str and encoded piece by piece
            body: bytes | str = text if text.isascii() else text.encode("utf-8", "surrogatepass")
            return body, store([*media, (path, body)], (ledger, ledger_line(entry(path, body))))

        async def store_async() -> tuple[bytes | str, list[bool]]:
            if store is not None:
                return await threads.run_sync(render_and_store)
            media, body = render_tool_result(result, sep, self.media_names)
            files = [*media, (path, body)]
            if self.ledger_batch <= 1:  # content and ledger line in one backend operation
                return body, await self._write_and_append(
                    files, exclusive=True, append=(ledger, ledger_line(entry(path, body)))
                )
            return body, await self._write(files, exclusive=True)  # the line is buffered below

        done: list[_T] = []
        stored: list[tuple[bytes | str, list[bool]]] = []
        if parallel is None:
            parallel = _text_chars(result) >= PARALLEL_FROM
        if store is not None and not parallel:

            def both() -> tuple[_T, bytes | str, list[bool]]:  # one worker-thread hop for everything
                value = work()
                return (value, *render_and_store())

            value, body, written = await threads.run_sync(both)
            done.append(value)
            stored.append((body, written))
        else:

            async def run_work() -> None:
                # nothing to run (a plain offload_tool_result): no worker thread for it
                done.append(work() if work is _nothing else await threads.run_sync(work))

            async def run_store() -> None:
                stored.append(await store_async())

            try:
                async with anyio.create_task_group() as tg:
                    tg.start_soon(run_work)
                    tg.start_soon(run_store)
            except BaseExceptionGroup as group:  # callers see the error itself (NotEnoughSpace, ...)
                raise group.exceptions[0] from None
        body, written = stored[0]
        recorded = written[-1] and self.ledger_batch <= 1
        if not written[-1]:  # the name was taken (the same id offloaded before): rare, compare the contents
            if isinstance(body, str):
                body = await threads.run_sync(body.encode, "ascii")
            try:
                existing: bytes | None = await self._read(path)
            except FileNotFoundError:  # removed by gc since: store it again
                existing = None
            if existing is not None and existing != body:
                path = f"{stem}-{hashlib.sha256(body).hexdigest()[:12]}.txt"
                if not (await self._write([(path, body)], exclusive=True))[0]:
                    await self._refresh(path, body)
            else:
                await self._refresh(path, body)  # an old file handed out again must not be collected
        if not recorded:
            await self._record(session_id, entry(path, body))
        return self.reference(path), done[0]

    async def offload_context(self, session_id: str, msgs: Sequence[Any], **kwargs: Any) -> str:
        """Append messages to ``sessions/{sid}/context.jsonl``; return its reference.

        One JSON object per line, written in one append (never re-reading the
        file), each message in its framework's own serialization (see
        :mod:`offloader.core.records`). Inline media go to ``data/`` first and
        are referenced by URL.
        """
        await self._ready()
        messages = [to_message(m) for m in msgs]
        path = f"{self.session_dir(session_id)}/{layout.CONTEXT_FILE}"
        if not messages:
            return self.reference(path)
        media: dict[str, bytes] = {}
        now = time.time()
        lines = []
        for original, msg in zip(msgs, messages, strict=True):
            native = native_record(original, media, self.media_names)  # the framework's own serialization
            if native is not None:
                lines.append(native)
                continue
            record = message_to_dict(strip_media(msg, media, self.media_names))
            record["time"] = now
            lines.append(json_line(record))
        if media:
            await self._write(sorted(media.items()), exclusive=True)
        await self._append(path, ("\n".join(lines) + "\n").encode("utf-8"))
        ref = self.reference(path)
        await self._record(
            session_id,
            {"kind": "context", "ref": ref, "messages": len(lines), "status": "offloaded"},
        )
        return ref

    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any:
        """Persist inline media under ``data/{sha256}{ext}`` once; return the same kind of block.

        Blocks that already point at a URL are returned unchanged.
        """
        await self._ready()
        data = to_data_block(block)
        if data.data is None:
            return block
        rel = media_path(data, self.media_names)
        await self._write([(rel, data.data)], exclusive=True)
        return with_data_url(block, DATA_URL_PREFIX + rel, data.media_type)

    async def record_ledger(self, session_id: str, entries: Sequence[dict[str, Any]]) -> None:
        """Add ledger lines for a session (compaction statuses, pins) through the offload lines' path.

        The same buffer and order as ``offload_*``'s own lines (see ``ledger_batch``), so a
        compaction line never lands before the offload line it refers to.
        """
        await self._ready()
        if self.ledger_batch <= 1 and entries:  # one append for all of them
            data = b"".join(ledger_line(e) for e in entries)
            await self._append(f"{self.session_dir(session_id)}/{LEDGER_FILE}", data)
            return
        for entry in entries:
            await self._record(session_id, entry)

    async def _record(self, session_id: str, entry: dict[str, Any]) -> None:
        """Append one ledger line for an offload (or buffer it, see ``ledger_batch``)."""
        line = ledger_line(entry)
        path = f"{self.session_dir(session_id)}/{LEDGER_FILE}"
        if self.ledger_batch <= 1:
            await self._append(path, line)
            return
        self._ledger_buffer.setdefault(path, []).append(line)
        if self._ledger_oldest is None:
            self._ledger_oldest = time.monotonic()
        if self._pending() >= self.ledger_batch or time.monotonic() - self._ledger_oldest >= self.ledger_max_delay:
            await self.flush()

    # ------------------------------------------------------------ sessions

    async def sessions(self) -> list[str]:
        """Names of the session folders (encoded ids), sorted."""
        await self._ready()
        listing = await self._list(layout.SESSIONS_DIR)
        names = {info.path.split("/")[1] for info in listing if info.path.count("/") >= 2}
        return sorted(names)

    async def purge_session(self, session_id: str) -> None:
        """Remove one session's folder, and nothing else."""
        await self._ready()
        await self._remove(self.session_dir(session_id), recursive=True)

    async def gc(self, policy: Any = None, *, dry_run: bool = False) -> Any:
        """Remove what ``policy`` (a ``workspaces.retention.RetentionPolicy``) does not keep.

        Returns a ``GcReport``; see ``workspaces.retention`` for the pinning rules.
        """
        await self.flush()
        return await collect_garbage(self, policy if policy is not None else RetentionPolicy(), dry_run=dry_run)

    def tools(self) -> list[Tool]:
        """Read, Grep and Glob bound to this workspace, as framework-neutral tools."""
        return self._file_tools()


def _nothing() -> None:
    return None


def _text_chars(result: ToolResultBlock) -> int:
    """Characters in the result's text blocks (what decides between one hop and two parallel ones)."""
    return sum(len(b.text) for b in result.content if isinstance(b, TextBlock))
