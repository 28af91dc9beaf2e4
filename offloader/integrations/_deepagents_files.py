"""The deepagents file backend over a workspace: ls, read, write, edit, delete, grep, glob, upload, download.

Private to :mod:`offloader.integrations.deepagents`, which documents the path
rules and adds ``execute`` for workspaces that run commands.
"""

from __future__ import annotations

import base64
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

from offloader.core.extras import MissingExtra

try:
    from deepagents.backends.protocol import (
        BackendProtocol,
        DeleteResult,
        EditResult,
        FileDownloadResponse,
        FileUploadResponse,
        GlobResult,
        GrepMatch,
        GrepResult,
        LsResult,
        ReadResult,
        WriteResult,
    )
    from deepagents.backends.protocol import FileInfo as DeepFileInfo
    from deepagents.backends.utils import (
        _get_backend_read_file_type,
        compile_grep_include_glob,
        perform_string_replacement,
        slice_read_response,
    )
except ModuleNotFoundError as exc:
    raise MissingExtra("the deepagents backend", "deepagents", exc.name) from exc

from offloader.core import text as _text
from offloader.core.errors import PathOutsideWorkspace, WorkspaceError
from workspaces import FileInfo, Workspace

from ._loop_thread import LoopThread

__all__ = ["WorkspaceBackend"]

_T = TypeVar("_T")
_BINARY_PROBE = 8192
#: Failures reported in the result; ValueError (traversal) is raised, as deepagents does.
_ERRORS = (WorkspaceError, OSError, TypeError, UnicodeError, RuntimeError)


class WorkspaceBackend(BackendProtocol):
    """deepagents ``BackendProtocol`` over a :class:`workspaces.Workspace` (no ``execute``).

    ``max_grep_file_bytes`` (default 64 MB) skips larger files in ``grep`` so one
    search cannot pull a huge object into memory.
    """

    def __init__(self, workspace: Workspace, *, max_grep_file_bytes: int = 64 << 20) -> None:
        if not isinstance(workspace, Workspace):
            raise TypeError(f"workspace must be a Workspace, got {type(workspace).__name__}")
        self.workspace = workspace
        self.max_grep_file_bytes = max_grep_file_bytes
        self._runner = LoopThread()

    # ------------------------------------------------------------ plumbing

    def _rel(self, path: str | None) -> str:
        """Workdir-relative path for a virtual path (``/a/b``), a reference or a relative path.

        Raises ``PathOutsideWorkspace`` (a ``ValueError``) for anything leaving the workdir.
        """
        if path is None:
            return ""
        if not isinstance(path, str):
            raise TypeError(f"path must be a string, got {type(path).__name__}")
        root = self.workspace.workdir.rstrip("/")
        try:
            if path == root or path.startswith(root + "/") or "://" in path:
                return self.workspace.relative(path)
            return _text.normalise_relative(path.lstrip("/"))
        except PathOutsideWorkspace as exc:
            raise PathOutsideWorkspace(f"Path traversal not allowed: {exc}") from None

    @staticmethod
    def _virtual(rel: str) -> str:
        return "/" + rel

    async def _ready(self) -> None:
        """Open the workspace; remember the loop that uses it so sync callers can reach it."""
        self._runner.note_loop()
        await self.workspace.open()

    async def _files(self, rel: str) -> list[FileInfo]:
        """Files under ``rel`` (the file itself if it is one), without temp files or index sidecars."""
        await self._ready()
        return await self.workspace.find_files(rel)

    def _sync(self, fn: Callable[..., Awaitable[_T]], *args: Any) -> _T:
        """Run an async method from sync code (any thread, inside a running loop too)."""
        return self._runner.run(lambda: fn(*args))

    # ------------------------------------------------------------ ls

    async def als(self, path: str) -> LsResult:
        rel = self._rel(path)
        try:
            await self._ready()
            if rel and await self.workspace.stat(rel) is not None:
                return LsResult(error=f"Path '{path}': not_a_directory")
            files = await self._files(rel)
            if not files and rel and not await self.workspace.is_dir(rel):
                return LsResult(error=f"Path '{path}': path_not_found")
        except _ERRORS as exc:
            return LsResult(error=f"Error listing '{path}': {exc}")
        prefix = rel + "/" if rel else ""
        entries: dict[str, DeepFileInfo] = {}
        for info in files:
            head, sep, _ = info.path[len(prefix) :].partition("/")
            if sep:
                entries.setdefault(head, {"path": self._virtual(prefix + head) + "/", "is_dir": True, "size": 0})
            else:
                entries[head] = _file_info(self._virtual(info.path), info)
        return LsResult(entries=[entries[k] for k in sorted(entries)])

    def ls(self, path: str) -> LsResult:
        return self._sync(self.als, path)

    # ------------------------------------------------------------ read

    async def aread(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        """A window of lines with ``total_lines``; a non-UTF-8 or binary text file is an error."""
        rel = self._rel(file_path)
        try:
            await self._ready()
            info = await self.workspace.stat(rel) if rel else None
            if info is None:
                return ReadResult(error=f"File '{file_path}' not found")
            raw = await self.workspace.read_bytes(rel)
            if _get_backend_read_file_type(rel) != "text":
                encoded = base64.standard_b64encode(raw).decode("ascii")
                return ReadResult(file_data={"content": encoded, "encoding": "base64"})
            if b"\x00" in raw[:_BINARY_PROBE]:
                return ReadResult(error=f"Error reading file '{file_path}': binary content, not text")
            text = raw.decode("utf-8")
        except _ERRORS as exc:
            return ReadResult(error=f"Error reading file '{file_path}': {exc}")
        return slice_read_response({"content": text, "encoding": "utf-8"}, offset, limit)

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        return self._sync(self.aread, file_path, offset, limit)

    # ------------------------------------------------------------ write / edit / delete

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        rel = self._rel(file_path)
        if not rel:
            return WriteResult(error="Error writing file: a file path is required")
        try:
            await self._ready()
            await self.workspace.write_bytes(rel, content.encode("utf-8", "surrogatepass"))
        except _ERRORS as exc:
            return WriteResult(error=f"Error writing file '{file_path}': {exc}")
        return WriteResult(path=self._virtual(rel))

    def write(self, file_path: str, content: str) -> WriteResult:
        return self._sync(self.awrite, file_path, content)

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        rel = self._rel(file_path)
        try:
            await self._ready()
            if not rel or await self.workspace.stat(rel) is None:
                return EditResult(error=f"Error: File '{file_path}' not found")
            text = (await self.workspace.read_bytes(rel)).decode("utf-8")
            outcome = perform_string_replacement(
                text, old_string.replace("\r\n", "\n"), new_string.replace("\r\n", "\n"), replace_all
            )
            if isinstance(outcome, str):
                return EditResult(error=outcome)
            new_text, occurrences = outcome
            await self.workspace.write_bytes(rel, new_text.encode("utf-8"))
        except _ERRORS as exc:
            return EditResult(error=f"Error editing file '{file_path}': {exc}")
        return EditResult(path=self._virtual(rel), occurrences=int(occurrences))

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        return self._sync(self.aedit, file_path, old_string, new_string, replace_all)

    async def adelete(self, file_path: str) -> DeleteResult:
        """Remove a file, or a folder with everything under it (a symlink itself, never its target)."""
        rel = self._rel(file_path)
        if not rel:
            return DeleteResult(error=f"Error deleting '{file_path}': refusing to delete the root")
        try:
            await self._ready()
            if await self.workspace.stat(rel) is not None:
                await self.workspace.remove(rel)
            elif await self.workspace.is_dir(rel):
                await self.workspace.remove(rel, recursive=True)
            else:
                return DeleteResult(error=f"Error: '{file_path}' not found")
        except _ERRORS as exc:
            return DeleteResult(error=f"Error deleting '{file_path}': {exc}")
        return DeleteResult(path=file_path)

    def delete(self, file_path: str) -> DeleteResult:
        return self._sync(self.adelete, file_path)

    # ------------------------------------------------------------ grep / glob

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Literal (not regex) search, as deepagents specifies; linear time whatever the input."""
        rel = self._rel(path)
        try:
            regex = _text.compile_pattern(pattern, literal=True)
            files = await self._files(rel)
            include = compile_grep_include_glob(glob) if glob else None
        except (*_ERRORS, ValueError) as exc:
            return GrepResult(error=f"Error: {exc}")
        cut = len(rel) + 1 if rel else 0
        matches: list[GrepMatch] = []
        truncated = False
        skipped: list[str] = []
        for info in files:
            if include is not None and not include(info.path[cut:] or info.path.rpartition("/")[2]):
                continue
            if info.size > self.max_grep_file_bytes:
                skipped.append(self._virtual(info.path))
                continue
            data = await self.workspace.read_bytes(info.path)
            if b"\x00" in data[:_BINARY_PROBE]:
                continue
            budget = None if max_count is None else max_count - len(matches)
            hits, total = _text.search(data, regex, max_matches=budget)
            for hit in hits:
                matches.append(
                    {"path": self._virtual(info.path), "line": hit.line_no, "text": hit.text.decode("utf-8", "replace")}
                )
            if budget is not None and total > budget:
                truncated = True
                break
        error = f"Skipped files larger than {self.max_grep_file_bytes} bytes: {', '.join(skipped)}" if skipped else None
        return GrepResult(error=error, matches=matches, truncated=truncated)

    def grep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        return self._sync(lambda: self.agrep(pattern, path, glob, max_count=max_count))

    async def aglob(self, pattern: str, path: str | None = None) -> GlobResult:
        if ".." in pattern.replace("\\", "/").split("/"):
            return GlobResult(error=f"Error: glob pattern {pattern!r} may not contain '..'")
        rel = self._rel(path)
        try:
            match = compile_grep_include_glob(pattern)
            files = await self._files(rel)
        except (*_ERRORS, ValueError) as exc:
            return GlobResult(error=f"Error: {exc}")
        cut = len(rel) + 1 if rel else 0
        found = [_file_info(self._virtual(f.path), f) for f in files if match(f.path[cut:])]
        return GlobResult(matches=found)

    def glob(self, pattern: str, path: str | None = None) -> GlobResult:
        return self._sync(self.aglob, pattern, path)

    # ------------------------------------------------------------ upload / download

    async def aupload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        out: list[FileUploadResponse] = []
        await self._ready()
        for path, data in files:
            try:
                await self.workspace.write_bytes(self._rel(path), bytes(data))
                out.append(FileUploadResponse(path=path))
            except (TypeError, WorkspaceError, OSError) as exc:
                out.append(FileUploadResponse(path=path, error=_file_error(exc)))
        return out

    def upload_files(self, files: list[tuple[str, bytes]]) -> list[FileUploadResponse]:
        return self._sync(self.aupload_files, files)

    async def adownload_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        out: list[FileDownloadResponse] = []
        await self._ready()
        for path in paths:
            try:
                rel = self._rel(path)
                if not rel or (await self.workspace.stat(rel) is None and await self._files(rel)):
                    out.append(FileDownloadResponse(path=path, error="is_directory"))
                    continue
                out.append(FileDownloadResponse(path=path, content=await self.workspace.read_bytes(rel)))
            except (TypeError, WorkspaceError, OSError) as exc:
                out.append(FileDownloadResponse(path=path, error=_file_error(exc)))
        return out

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        return self._sync(self.adownload_files, paths)


def _file_info(path: str, info: FileInfo) -> DeepFileInfo:
    modified = datetime.fromtimestamp(info.mtime, UTC).isoformat() if info.mtime else None
    entry: DeepFileInfo = {"path": path, "is_dir": False, "size": info.size}
    if modified:
        entry["modified_at"] = modified
    return entry


def _file_error(exc: BaseException) -> str:
    """deepagents' error code for a failed upload or download (its message when it has none)."""
    if isinstance(exc, PathOutsideWorkspace | TypeError):
        return "invalid_path"
    if isinstance(exc, FileNotFoundError):
        return "file_not_found"
    if isinstance(exc, IsADirectoryError):
        return "is_directory"
    if isinstance(exc, PermissionError):
        return "permission_denied"
    return str(exc) or type(exc).__name__
