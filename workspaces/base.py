"""The Workspace base class: layout, naming, offloading and file tools, written once.

A backend subclasses :class:`Workspace` and implements only the primitives
(``_read``, ``_write``, ``_append``, ``_list``, ``_stat``, ``_remove`` and,
optionally, ``_exec`` and ``_grep_native``). Primitives receive workdir-relative
POSIX paths that this class has already normalised and confined; they never see
raw ids or user paths.

The on-disk layout, identical on every backend, is described (and named) in
:mod:`offloader.core.layout`.
"""

from __future__ import annotations

import abc
import hashlib
import json
import logging
import time
from collections.abc import Sequence
from types import TracebackType
from typing import Any, Self

import anyio

from offloader.core import layout
from offloader.core import text as _text
from offloader.core.backend import ExecResult, FileInfo
from offloader.core.convert import message_to_dict, to_data_block, to_message, to_tool_result, with_data_url
from offloader.core.errors import PathOutsideWorkspace, UnsupportedOperation, WorkspaceClosed
from offloader.core.layout import DATA_URL_PREFIX, LEDGER_FILE, json_line, ledger_line
from offloader.core.messages import (
    DataBlock,
    JsonBlock,
    Message,
    TextBlock,
    ToolCallBlock,
    ToolResultBlock,
    extension_for,
)
from offloader.core.naming import safe_name
from offloader.core.records import native_record
from offloader.core.tools import Tool

from .retention import RetentionPolicy, collect_garbage
from .tools import FileTools

__all__ = ["Workspace"]

_log = logging.getLogger("offloader.workspaces")


class Workspace(FileTools, abc.ABC):
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

    # ------------------------------------------------------------ primitives

    @abc.abstractmethod
    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        """Bytes ``[start, end)`` of a file. FileNotFoundError if missing."""

    @abc.abstractmethod
    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        """Write a batch atomically per file, creating parent folders.

        With ``exclusive=True`` an existing file is left untouched. Returns, per
        file, True if this call wrote it and False if it already existed.
        Readers never see a partially written file.
        """

    @abc.abstractmethod
    async def _append(self, path: str, data: bytes) -> None:
        """Append ``data`` (whole lines) as one unit, creating file and parents.

        Concurrent appends to one file must never interleave or lose data.
        """

    @abc.abstractmethod
    async def _list(self, path: str) -> list[FileInfo]:
        """Every regular file under ``path`` (recursive); [] if it does not exist."""

    @abc.abstractmethod
    async def _stat(self, path: str) -> FileInfo | None:
        """Info on one regular file, or None if missing (or a folder)."""

    @abc.abstractmethod
    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        """Remove a file, or a folder tree with ``recursive``; missing is not an error."""

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        """Run a command inside the workspace (cwd = workdir). Optional."""
        raise UnsupportedOperation(f"{type(self).__name__} cannot run commands")

    async def _isdir(self, path: str) -> bool:
        """Whether ``path`` is a folder. Default: it holds a file (object stores have no empty folders)."""
        return bool(await self._list(path))

    @property
    def race_free_confinement(self) -> bool:
        """Whether confinement holds while another process swaps folders for symlinks.

        True where every path is walked from a descriptor of the workdir (LocalWorkspace,
        ``file://`` fsspec); sandbox backends refuse planted symlinks but are best effort
        against a process racing inside the sandbox (docs: concepts/confinement.md).
        """
        return False

    @property
    def runs_commands(self) -> bool:
        """Whether ``exec`` runs commands here (a backend that implements ``_exec``)."""
        return type(self)._exec is not Workspace._exec

    async def _grep_native(
        self, regex_source: str, path: str, *, ignore_case: bool, glob: str | None
    ) -> list[str] | None:
        """Optional prefilter: files under ``path`` that may match, found in one call.

        Backends that can run a search engine next to the data (a container's
        grep) return candidate paths so the base reads only those; None means
        "search every file in-process".
        """
        return None

    async def _remove_if_unchanged(self, path: str, seen: FileInfo) -> bool:
        """Remove ``path`` only if it is still the file ``seen`` (same size and mtime); True if removed.

        gc's removal step. Backends make the check and the removal one step with
        respect to ``_append`` and ``_refresh`` (the append lock, or a move aside
        then a verify), so a writer's change in between is never lost. This
        default re-stats then removes; between the two a write can slip in.
        """
        current = await self._stat(path)
        if current is None or (current.size, current.mtime) != (seen.size, seen.mtime):
            return False
        await self._remove(path)
        return True

    async def _refresh(self, path: str, data: bytes) -> None:
        """Mark an existing file whose content is ``data`` as just written (gc then keeps it).

        Used when an offload finds its content already stored. The default
        rewrites it atomically (a new mtime); it is recreated if gc removed it meanwhile.
        """
        await self._write([(path, data)])

    async def _write_and_append(
        self, files: Sequence[tuple[str, bytes]], *, exclusive: bool, append: tuple[str, bytes]
    ) -> list[bool]:
        """``_write`` then, only if the batch's last file was written, ``_append``.

        Optional: a backend that can do both in one round trip overrides it (an
        offload plus its ledger line then cost one operation). The default makes
        two calls.
        """
        written = await self._write(files, exclusive=exclusive)
        if written and written[-1]:
            await self._append(*append)
        return written

    async def _open(self) -> None:
        """Acquire resources (create a container, connect to a store)."""

    async def _close(self) -> None:
        """Release what ``_open`` acquired."""

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
        await self._ready()
        result = to_tool_result(tool_result)
        # AgentScope streams a result as chunks and joins them verbatim; other frameworks' blocks are paragraphs
        verbatim = type(tool_result).__module__.startswith("agentscope.")
        media, body = self._render_tool_result(result, "" if verbatim else "\n")
        folder = self.session_dir(session_id)
        stem = f"{folder}/{layout.TOOL_RESULT_PREFIX}{safe_name(result.id)}"
        path = f"{stem}.txt"

        def entry(p: str) -> dict[str, Any]:
            return {
                "kind": "tool_result",
                "ref": self.reference(p),
                "tool": result.name,
                "tool_id": result.id,
                "bytes": len(body),
                "tokens": layout.estimate_tokens(len(body)),
                "status": "offloaded",
                "is_error": result.is_error,
            }

        files = [*media, (path, body)]
        if self.ledger_batch <= 1:  # content and ledger line in one backend operation
            written = await self._write_and_append(
                files, exclusive=True, append=(f"{folder}/{LEDGER_FILE}", ledger_line(entry(path)))
            )
            recorded = written[-1]
        else:
            written, recorded = await self._write(files, exclusive=True), False
        if not written[-1]:
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
            await self._record(session_id, entry(path))
        return self.reference(path)

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
            record = message_to_dict(_strip_media(msg, media, self.media_names))
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
        rel = _data_path(data, self.media_names)
        await self._write([(rel, data.data)], exclusive=True)
        return with_data_url(block, DATA_URL_PREFIX + rel, data.media_type)

    def _render_tool_result(self, result: ToolResultBlock, sep: str = "\n") -> tuple[list[tuple[str, bytes]], bytes]:
        """The text file for a tool result plus the media files it references."""
        media: dict[str, bytes] = {}
        parts: list[str] = []
        for block in result.content:
            if isinstance(block, TextBlock):
                parts.append(block.text)
            elif isinstance(block, JsonBlock):
                parts.append(block.dumps(indent=2))
            elif isinstance(block, DataBlock):
                if block.data is not None:
                    rel = _data_path(block, self.media_names)
                    media[rel] = block.data
                    url = DATA_URL_PREFIX + rel
                else:
                    url = block.url or ""
                parts.append(_data_tag(url, block))
            elif isinstance(block, ToolCallBlock):
                parts.append(json.dumps({"tool_call": block.name, "id": block.id, "input": block.input}))
            else:
                inner_media, inner = self._render_tool_result(block, sep)
                media.update(inner_media)
                parts.append(inner.decode("utf-8"))
        return sorted(media.items()), sep.join(parts).encode("utf-8", "surrogatepass")

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

    async def read_bytes(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        """Raw bytes ``[start, end)`` of a file (path, reference or ``workspace:///`` URL).

        FileNotFoundError if it is missing; an empty range is ``b""`` without a backend call.
        """
        await self._ready()
        rel = self.relative(path)
        if end is not None and end <= start:
            return b""
        return await self._read(rel, start, end)

    async def write_bytes(self, path: str, data: bytes) -> str:
        """Write one file atomically (replacing it); returns its reference."""
        rel = self._target(path)
        await self.write_files([(rel, data)])
        return self.reference(rel)

    async def write_files(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        """Write a batch, each file atomically, creating folders.

        With ``exclusive`` an existing file is left untouched. Returns, per file,
        whether this call wrote it.
        """
        await self._ready()
        return await self._write([(self._target(p), bytes(d)) for p, d in files], exclusive=exclusive)

    async def append_bytes(self, path: str, data: bytes) -> None:
        """Append whole lines to a file as one unit (concurrent appends never interleave)."""
        await self._ready()
        await self._append(self._target(path), bytes(data))

    async def list_files(self, path: str = ".") -> list[FileInfo]:
        """Every regular file under ``path``, recursively, hidden ones included; [] if none."""
        await self._ready()
        return await self._list(self.relative(path))

    async def find_files(self, path: str = ".", glob: str | None = None) -> list[FileInfo]:
        """The files Glob and Grep see: ``path`` itself if it is a file, else the visible files
        under it (no temp files, no line indexes) matching ``glob``, sorted by path."""
        await self._ready()
        return await self._candidate_files(self.relative(path), glob)

    async def remove(self, path: str, *, recursive: bool = False) -> None:
        """Remove a file, or a folder tree with ``recursive``; missing is not an error."""
        await self._ready()
        rel = self.relative(path)
        if not rel:
            raise PathOutsideWorkspace("refusing to remove the workdir itself")
        await self._remove(rel, recursive=recursive)

    async def stat(self, path: str) -> FileInfo | None:
        """Size and mtime of a regular file; None if it is missing or a folder."""
        await self._ready()
        return await self._stat(self.relative(path))

    def _target(self, path: str) -> str:
        """The workdir-relative path to write to; the workdir itself is refused."""
        rel = self.relative(path)
        if not rel:
            raise PathOutsideWorkspace("cannot write to the workdir itself")
        return rel

    async def exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        """Run a command in the workspace (backends that support it)."""
        await self._ready()
        return await self._exec(list(argv), stdin=stdin, timeout=timeout)

    async def gc(self, policy: Any = None, *, dry_run: bool = False) -> Any:
        """Remove what ``policy`` (a ``workspaces.retention.RetentionPolicy``) does not keep.

        Returns a ``GcReport``; see ``workspaces.retention`` for the pinning rules.
        """
        await self.flush()
        return await collect_garbage(self, policy if policy is not None else RetentionPolicy(), dry_run=dry_run)

    def tools(self) -> list[Tool]:
        """Read, Grep and Glob bound to this workspace, as framework-neutral tools."""
        return self._file_tools()


def _data_path(block: DataBlock, names: str = "sha256") -> str:
    assert block.data is not None
    return layout.data_path(block.data, extension_for(block.media_type), names)


def _data_tag(url: str, block: DataBlock) -> str:
    """``<data url='...' name='...' media_type='...'/>``: AgentScope's placeholder, attribute for attribute."""
    attrs = {"url": url}
    if block.name:
        attrs["name"] = block.name
    attrs["media_type"] = block.media_type
    rendered = " ".join(f"{k}='{_xml_escape(v)}'" for k, v in attrs.items())
    return f"<data {rendered}/>"


def _xml_escape(value: str) -> str:
    return value.replace("&", "&amp;").replace("'", "&apos;").replace("<", "&lt;").replace(">", "&gt;")


def _strip_media(msg: Message, media: dict[str, bytes], names: str = "sha256") -> Message:
    """Replace inline media in a message by ``workspace:///data`` URLs, collecting the bytes."""

    def strip(block: Any) -> Any:
        if isinstance(block, DataBlock) and block.data is not None:
            rel = _data_path(block, names)
            media[rel] = block.data
            return DataBlock(block.media_type, url=DATA_URL_PREFIX + rel, name=block.name)
        if isinstance(block, ToolResultBlock):
            return ToolResultBlock(block.id, block.name, tuple(strip(b) for b in block.content), block.is_error)
        return block

    return Message(msg.role, tuple(strip(b) for b in msg.content), msg.name, msg.id)
