"""The Storage protocol: where :class:`~offloader.ContextOffloader` puts blocks.

Mirrors the storage contract of Strands Agents' context offloader (store,
retrieve, delete, list; content types preserved) so users can move over, while
every :class:`workspaces.Workspace` can serve as storage too: pass the workspace
itself to ``ContextOffloader`` (whole results in the session folder), or wrap it
in :class:`WorkspaceStorage` for per-block files.

Implementations here: :class:`InMemoryStorage` (evicted by agent-loop cycles)
and :class:`WorkspaceStorage`. ``FsspecStorage`` lives with the fsspec backend.
"""

from __future__ import annotations

import builtins
import contextlib
import threading
import uuid
from dataclasses import dataclass

from .core.backend import WorkspaceProtocol
from .core.layout import INDEX_SUFFIX, TYPE_SUFFIX
from .core.messages import extension_for
from .core.naming import safe_name
from .core.protocol import Storage, StoredContent

__all__ = ["InMemoryStorage", "Storage", "StoredContent", "WorkspaceStorage"]


def _check_store_args(key: str, content: bytes, content_type: str) -> None:
    if not isinstance(key, str) or not key:
        raise ValueError(f"key must be a non-empty str, got {key!r}")
    if not isinstance(content, bytes | bytearray | memoryview):
        raise TypeError(f"content must be bytes, got {type(content).__name__}")
    if not isinstance(content_type, str) or "/" not in content_type:
        raise ValueError(f"content_type must be a media type such as 'text/plain', got {content_type!r}")


# ------------------------------------------------------------ in memory


@dataclass(slots=True)
class _Entry:
    content: bytes
    content_type: str
    last_turn: int


class InMemoryStorage:
    """Blocks kept in process memory, evicted after ``evict_after_turns`` idle agent-loop cycles.

    Call :meth:`advance_turn` once per agent-loop cycle (or :meth:`on_cycle`
    with the framework's cycle counter); an entry neither stored nor retrieved
    during the last ``evict_after_turns`` cycles is dropped. Retrieving
    refreshes an entry. ``evict_after_turns=None`` keeps everything until
    :meth:`clear`. Thread-safe; references are ``mem_{n}_{key}``, unique even when
    keys repeat.
    """

    def __init__(self, evict_after_turns: int | None = 20) -> None:
        if evict_after_turns is not None and (
            isinstance(evict_after_turns, bool) or not isinstance(evict_after_turns, int) or evict_after_turns < 1
        ):
            raise ValueError(f"evict_after_turns must be a positive integer or None, got {evict_after_turns!r}")
        self.evict_after_turns = evict_after_turns
        self._entries: dict[str, _Entry] = {}
        self._counter = 0
        self._turn = 0
        self._lock = threading.Lock()

    @property
    def turn(self) -> int:
        """The current agent-loop cycle as this storage knows it."""
        return self._turn

    async def store(self, key: str, content: bytes, content_type: str = "text/plain") -> str:
        _check_store_args(key, content, content_type)
        with self._lock:
            self._counter += 1
            reference = f"mem_{self._counter}_{safe_name(key)}"
            self._entries[reference] = _Entry(bytes(content), content_type, self._turn)
        return reference

    async def retrieve(self, reference: str) -> StoredContent:
        with self._lock:
            entry = self._entries.get(reference)
            if entry is None:
                raise KeyError(f"Reference not found: {reference} (never stored, deleted or evicted)")
            entry.last_turn = self._turn
            return StoredContent(entry.content, entry.content_type)

    async def delete(self, reference: str) -> None:
        with self._lock:
            self._entries.pop(reference, None)

    async def list(self) -> list[str]:
        with self._lock:
            return list(self._entries)

    def advance_turn(self) -> builtins.list[str]:
        """Start the next agent-loop cycle and evict idle entries; returns the evicted references."""
        return self.on_cycle(self._turn + 1)

    def on_cycle(self, cycle: int) -> builtins.list[str]:
        """Set the current cycle (e.g. Strands' ``event_loop_metrics.cycle_count``) and evict."""
        if isinstance(cycle, bool) or not isinstance(cycle, int) or cycle < 0:
            raise ValueError(f"cycle must be a non-negative int, got {cycle!r}")
        with self._lock:
            self._turn = cycle
            if self.evict_after_turns is None:
                return []
            oldest = cycle - self.evict_after_turns
            stale = [ref for ref, entry in self._entries.items() if entry.last_turn < oldest]
            for ref in stale:
                del self._entries[ref]
            return stale

    def clear(self) -> None:
        """Drop every entry (e.g. when a session ends)."""
        with self._lock:
            self._entries.clear()

    def __len__(self) -> int:
        return len(self._entries)

    @property
    def _store(self) -> dict[str, tuple[bytes, str, int]]:
        """A snapshot in the shape of Strands' ``InMemoryStorage._store`` (reference -> content, type, cycle).

        Read-only; kept so code written against Strands' storage can inspect ours the same way.
        """
        with self._lock:
            return {ref: (e.content, e.content_type, e.last_turn) for ref, e in self._entries.items()}


# ------------------------------------------------------------ workspace adapter

# Files kept beside a block that are not blocks: our type sidecar, the retrieval line index.
_SIDE_FILES = (TYPE_SUFFIX, INDEX_SUFFIX)
_TYPES_BY_EXTENSION = {
    ".txt": "text/plain",
    ".json": "application/json",
    ".md": "text/markdown",
    ".csv": "text/csv",
    ".html": "text/html",
    ".jsonl": "application/x-ndjson",
    ".png": "image/png",
    ".jpg": "image/jpeg",
    ".gif": "image/gif",
    ".webp": "image/webp",
    ".pdf": "application/pdf",
}


def _type_from_extension(path: str) -> str | None:
    name = path.rpartition("/")[2]
    dot = name.rfind(".")
    return _TYPES_BY_EXTENSION.get(name[dot:].lower()) if dot > 0 else None


class WorkspaceStorage:
    """A :class:`Storage` whose blocks are files in a workspace, reachable by Read/Grep/Glob.

    Block ``key`` lands at ``sessions/{session_id}/blocks/{safe key}{ext}`` (a
    random suffix is added if that name is taken, so references never collide
    and nothing is overwritten). The reference is the file's absolute path in
    the workspace. The content type follows from the extension; when it would
    not round-trip (``text/x-log`` -> ``.x-log`` ...), a ``.content-type``
    sidecar is written in the same batch, so a store is one backend round trip.
    ``retrieve`` accepts any file of the workspace (whole offloaded results
    included) and refuses references outside it.
    """

    def __init__(self, workspace: WorkspaceProtocol, *, session_id: str = "default") -> None:
        if not isinstance(workspace, WorkspaceProtocol):
            raise TypeError(f"WorkspaceStorage needs a workspaces.Workspace, got {type(workspace).__name__}")
        self.workspace = workspace
        self.session_id = session_id
        self.folder = f"{workspace.session_dir(session_id)}/blocks"

    async def store(self, key: str, content: bytes, content_type: str = "text/plain") -> str:
        _check_store_args(key, content, content_type)
        ws = self.workspace
        ext = extension_for(content_type)
        if ext == ".bin" and content_type.lower().startswith("text/"):
            ext = ".txt"  # text stays greppable under a text name; the sidecar keeps the exact type
        base = f"{self.folder}/{safe_name(key)}"
        needs_sidecar = _type_from_extension(base + ext) != content_type.split(";", 1)[0].strip().lower()
        for attempt in range(8):
            path = f"{base}{ext}" if attempt == 0 else f"{base}-{uuid.uuid4().hex[:8]}{ext}"
            if not (needs_sidecar or content_type != content_type.lower()):
                if (await ws.write_files([(path, bytes(content))], exclusive=True))[0]:
                    return ws.reference(path)
                continue
            # Sidecar first, so a reader never sees the block with a guessed type.
            sidecar = (path + TYPE_SUFFIX, content_type.encode("utf-8"))
            wrote_sidecar, wrote_block = await ws.write_files([sidecar, (path, bytes(content))], exclusive=True)
            if wrote_block and wrote_sidecar:
                return ws.reference(path)
            if wrote_block:  # a stale sidecar was there: the block was new, replace its type
                await ws.write_files([sidecar])
                return ws.reference(path)
            if wrote_sidecar:  # the name was taken by a block without sidecar: undo ours
                await ws.remove(sidecar[0])
        raise FileExistsError(f"could not find a free name for key {key!r} under {self.folder}")

    async def retrieve(self, reference: str) -> StoredContent:
        ws = self.workspace
        try:
            rel = ws.relative(reference)
        except ValueError as exc:  # PathOutsideWorkspace is a ValueError
            raise KeyError(f"Reference not found: {reference} ({exc})") from None
        if not rel or rel.endswith(_SIDE_FILES):
            raise KeyError(f"Reference not found: {reference}")
        if "/" not in rel and await ws.stat(rel) is None:
            rel = await self._block_named(rel)  # a bare file name or stem, as Strands' FileStorage accepts
        try:
            content = await ws.read_bytes(rel)
        except (FileNotFoundError, IsADirectoryError, NotADirectoryError):
            raise KeyError(f"Reference not found: {reference}") from None
        content_type = _type_from_extension(rel)
        with contextlib.suppress(FileNotFoundError):
            content_type = (await ws.read_bytes(rel + TYPE_SUFFIX)).decode("utf-8").strip() or content_type
        return StoredContent(content, content_type or "application/octet-stream")

    async def _block_named(self, name: str) -> str:
        """``{folder}/{name}``, or the one block whose name is ``name`` plus an extension."""
        rel = f"{self.folder}/{name}"
        if "." in name or await self.workspace.stat(rel) is not None:
            return rel
        stems = [
            i.path
            for i in await self.workspace.list_files(self.folder)
            if i.path.startswith(rel + ".") and not i.path.endswith(_SIDE_FILES) and "." not in i.path[len(rel) + 1 :]
        ]
        return stems[0] if len(stems) == 1 else rel

    async def delete(self, reference: str) -> None:
        ws = self.workspace
        try:
            rel = ws.relative(reference)
        except ValueError:
            return
        if rel and "/" not in rel:
            rel = f"{self.folder}/{rel}"  # a bare block file name
        if not rel.startswith(self.folder + "/"):
            return  # only blocks this adapter wrote; whole results belong to the workspace
        for side in _SIDE_FILES:
            await ws.remove(rel + side)
        await ws.remove(rel)

    async def list(self) -> list[str]:
        ws = self.workspace
        infos = await ws.list_files(self.folder)
        return sorted(ws.reference(i.path) for i in infos if not i.path.endswith(_SIDE_FILES))
