"""LangChain deepagents: a backend over any workspace.

``create_deep_agent(model, tools, backend=deepagents_backend(workspace))`` makes
deepagents' filesystem tools (``ls``, ``read_file``, ``write_file``,
``edit_file``, ``glob``, ``grep``) and its large-tool-result eviction
(``/large_tool_results/{tool_call_id}``) read and write the workspace: a host
folder, a Docker container, an E2B sandbox or an fsspec store. Workspaces that
can run commands get the sandbox variant, so deepagents' ``execute`` tool runs
inside them.

Paths: the workspace's workdir is the virtual root ``/`` (``/notes/a.md`` is
``{workdir}/notes/a.md``); a workspace reference (``{workdir}/sessions/...``, as
this project's offloader returns) is accepted too. Nothing can leave the workdir:
``..``, NUL bytes and escaping symlinks are refused as errors in the result, the
way deepagents reports failures, never raised.

Every operation is async on the workspace; the sync variants deepagents calls
from worker threads run the same coroutine on the loop that owns the workspace
(or on a fresh loop when none is running).
"""

from __future__ import annotations

import asyncio
import base64
import shlex
import threading
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from typing import Any, TypeVar

import anyio
from deepagents.backends.protocol import (
    BackendProtocol,
    EditResult,
    ExecuteResponse,
    FileDownloadResponse,
    FileUploadResponse,
    GlobResult,
    GrepMatch,
    GrepResult,
    LsResult,
    ReadResult,
    SandboxBackendProtocol,
    WriteResult,
)
from deepagents.backends.protocol import FileInfo as DeepFileInfo
from deepagents.backends.utils import (
    _get_backend_read_file_type,
    check_empty_content,
    compile_grep_include_glob,
    normalize_read_bounds,
    perform_string_replacement,
)

from offloader.core import text as _text
from offloader.core.errors import PathOutsideWorkspace, UnsupportedOperation, WorkspaceError
from workspaces import FileInfo, Workspace

__all__ = ["WorkspaceBackend", "WorkspaceSandboxBackend", "deepagents_backend"]

_T = TypeVar("_T")
_CHUNK = 1 << 20
_BINARY_PROBE = 8192


def deepagents_backend(workspace: Workspace, **options: Any) -> WorkspaceBackend:
    """The right backend for ``workspace``: the sandbox variant when it can run commands."""
    if type(workspace)._exec is not Workspace._exec:
        return WorkspaceSandboxBackend(workspace, **options)
    return WorkspaceBackend(workspace, **options)


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
        self._loop: asyncio.AbstractEventLoop | None = None
        self._loop_thread: int | None = None

    # ------------------------------------------------------------ plumbing

    def _rel(self, path: str | None) -> str:
        """Workdir-relative path for a virtual path (``/a/b``), a reference or a relative path."""
        if path is None:
            return ""
        if not isinstance(path, str):
            raise TypeError(f"path must be a string, got {type(path).__name__}")
        root = self.workspace.workdir.rstrip("/")
        if path == root or path.startswith(root + "/") or "://" in path:
            return self.workspace.relative(path)
        return _text.normalise_relative(path.lstrip("/"))

    @staticmethod
    def _virtual(rel: str) -> str:
        return "/" + rel

    async def _ready(self) -> None:
        """Open the workspace; remember the loop that uses it so sync callers can reach it."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # not asyncio (trio): sync callers get a fresh loop
            loop = None
        if loop is not None and loop is not self._loop and (self._loop is None or not self._loop.is_running()):
            self._loop, self._loop_thread = loop, threading.get_ident()
        await self.workspace.open()

    async def _files(self, rel: str) -> list[FileInfo]:
        """Files under ``rel`` (the file itself if it is one), without temp files or index sidecars."""
        await self._ready()
        return await self.workspace._candidate_files(rel, None)

    def _sync(self, fn: Callable[..., Awaitable[_T]], *args: Any) -> _T:
        """Run an async method from sync code (deepagents calls these from worker threads)."""
        try:
            asyncio.get_running_loop()
        except RuntimeError:
            pass
        else:
            raise RuntimeError("sync backend method called inside a running event loop; use the async variant")
        loop = self._loop
        if loop is not None and loop.is_running() and self._loop_thread != threading.get_ident():
            return asyncio.run_coroutine_threadsafe(fn(*args), loop).result()  # type: ignore[arg-type]
        return anyio.run(lambda: fn(*args))

    # ------------------------------------------------------------ ls

    async def als(self, path: str) -> LsResult:
        try:
            rel = self._rel(path)
            await self._ready()
            if rel and await self.workspace.stat(rel) is not None:
                return LsResult(error=f"Path '{path}': not_a_directory")
            files = await self._files(rel)
        except (WorkspaceError, OSError, ValueError, TypeError) as exc:
            return LsResult(error=f"Error listing '{path}': {exc}")
        if not files and rel:
            return LsResult(error=f"Path '{path}': path_not_found")
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
        try:
            rel = self._rel(file_path)
            await self._ready()
            info = await self.workspace.stat(rel) if rel else None
            if info is None:
                return ReadResult(error=f"File '{file_path}' not found")
            if _get_backend_read_file_type(rel) != "text":
                raw = await self.workspace.read_bytes(rel)
                return ReadResult(
                    file_data={"content": base64.standard_b64encode(raw).decode("ascii"), "encoding": "base64"}
                )
            return await self._read_window(rel, info.size, file_path, offset, limit)
        except (WorkspaceError, OSError, ValueError, TypeError) as exc:
            return ReadResult(error=f"Error reading file '{file_path}': {exc}")

    async def _read_window(self, rel: str, size: int, shown: str, offset: int, limit: int) -> ReadResult:
        """Lines ``offset .. offset+limit-1`` (0-based), reading only as far as needed."""
        offset, limit = normalize_read_bounds(offset, limit)
        head = await self.workspace.read_bytes(rel, 0, min(size, _BINARY_PROBE))
        if b"\x00" in head:
            return ReadResult(error=f"File '{shown}' is binary; it cannot be read as text")
        if size == 0 or (size <= _BINARY_PROBE and not head.strip()):
            text = head.decode("utf-8", "replace")
            return ReadResult(file_data={"content": check_empty_content(text) or text, "encoding": "utf-8"})
        if limit == 0:
            return ReadResult(file_data={"content": "", "encoding": "utf-8"}, no_lines_requested=True)
        lines: list[bytes] = []
        line_no = 0  # 0-based index of the line being assembled
        partial = b""
        more = False
        pos = 0
        while pos < size and not more:
            chunk = await self.workspace.read_bytes(rel, pos, min(size, pos + _CHUNK))
            if not chunk:
                break
            pos += len(chunk)
            pieces = (partial + chunk).split(b"\n")
            partial = pieces.pop()
            for piece in pieces:
                if line_no >= offset + limit:
                    more = True
                    break
                if line_no >= offset:
                    lines.append(piece + b"\n")
                line_no += 1
        if not more and partial:
            if line_no >= offset + limit:
                more = True
            else:
                if line_no >= offset:
                    lines.append(partial)
                line_no += 1
        if not lines:
            return ReadResult(error=f"Line offset {offset} exceeds file length ({line_no} lines)")
        content = b"".join(lines).decode("utf-8", "replace").replace("\r\n", "\n")
        end = offset + len(lines)
        return ReadResult(
            file_data={"content": content, "encoding": "utf-8"},
            total_lines=None if more else line_no,
            start_line=offset + 1,
            end_line=end,
            next_offset=end if more else None,
        )

    def read(self, file_path: str, offset: int = 0, limit: int = 2000) -> ReadResult:
        return self._sync(self.aread, file_path, offset, limit)

    # ------------------------------------------------------------ write / edit

    async def awrite(self, file_path: str, content: str) -> WriteResult:
        try:
            rel = self._rel(file_path)
            if not rel:
                return WriteResult(error="Error writing file: a file path is required")
            await self._ready()
            await self.workspace.write_bytes(rel, content.encode("utf-8", "surrogatepass"))
        except (WorkspaceError, OSError, ValueError, TypeError, UnicodeError) as exc:
            return WriteResult(error=f"Error writing file '{file_path}': {exc}")
        return WriteResult(path=self._virtual(rel))

    def write(self, file_path: str, content: str) -> WriteResult:
        return self._sync(self.awrite, file_path, content)

    async def aedit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        try:
            rel = self._rel(file_path)
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
        except (WorkspaceError, OSError, ValueError, TypeError, UnicodeError) as exc:
            return EditResult(error=f"Error editing file '{file_path}': {exc}")
        return EditResult(path=self._virtual(rel), occurrences=int(occurrences))

    def edit(self, file_path: str, old_string: str, new_string: str, replace_all: bool = False) -> EditResult:
        return self._sync(self.aedit, file_path, old_string, new_string, replace_all)

    # ------------------------------------------------------------ grep / glob

    async def agrep(
        self, pattern: str, path: str | None = None, glob: str | None = None, *, max_count: int | None = None
    ) -> GrepResult:
        """Literal (not regex) search, as deepagents specifies; linear time whatever the input."""
        try:
            regex = _text.compile_pattern(pattern, literal=True)
            rel = self._rel(path)
            files = await self._files(rel)
            include = compile_grep_include_glob(glob) if glob else None
        except (WorkspaceError, OSError, ValueError, TypeError) as exc:
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
        try:
            match = compile_grep_include_glob(pattern)
            rel = self._rel(path)
            files = await self._files(rel)
        except (WorkspaceError, OSError, ValueError, TypeError) as exc:
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
                rel = self._rel(path)
                if not rel:
                    raise PathOutsideWorkspace("cannot write to the workdir itself")
                await self.workspace.write_bytes(rel, bytes(data))
                out.append(FileUploadResponse(path=path))
            except (PathOutsideWorkspace, TypeError):
                out.append(FileUploadResponse(path=path, error="invalid_path"))
            except IsADirectoryError:
                out.append(FileUploadResponse(path=path, error="is_directory"))
            except PermissionError:
                out.append(FileUploadResponse(path=path, error="permission_denied"))
            except (WorkspaceError, OSError) as exc:
                out.append(FileUploadResponse(path=path, error=str(exc) or type(exc).__name__))
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
            except (PathOutsideWorkspace, TypeError):
                out.append(FileDownloadResponse(path=path, error="invalid_path"))
            except FileNotFoundError:
                out.append(FileDownloadResponse(path=path, error="file_not_found"))
            except IsADirectoryError:
                out.append(FileDownloadResponse(path=path, error="is_directory"))
            except PermissionError:
                out.append(FileDownloadResponse(path=path, error="permission_denied"))
            except (WorkspaceError, OSError) as exc:
                out.append(FileDownloadResponse(path=path, error=str(exc) or type(exc).__name__))
        return out

    def download_files(self, paths: list[str]) -> list[FileDownloadResponse]:
        return self._sync(self.adownload_files, paths)


class WorkspaceSandboxBackend(WorkspaceBackend, SandboxBackendProtocol):
    """The sandbox variant: ``execute`` runs ``sh -c COMMAND`` inside the workspace (cwd = workdir).

    ``default_timeout`` (default 120 s) applies when deepagents passes none;
    ``max_output_bytes`` (default 1 MB) caps what comes back, flagged ``truncated``.
    """

    def __init__(
        self, workspace: Workspace, *, default_timeout: float = 120.0, max_output_bytes: int = 1 << 20, **options: Any
    ) -> None:
        super().__init__(workspace, **options)
        self.default_timeout = default_timeout
        self.max_output_bytes = max_output_bytes

    @property
    def id(self) -> str:
        return f"{type(self.workspace).__name__}:{self.workspace.workdir}"

    def execute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        return self._sync(lambda: self.aexecute(command, timeout=timeout))

    async def aexecute(self, command: str, *, timeout: int | None = None) -> ExecuteResponse:
        if not isinstance(command, str) or not command.strip():
            return ExecuteResponse(output="Error: command must be a non-empty string", exit_code=None)
        limit = float(timeout) if timeout else self.default_timeout
        try:
            await self._ready()
            result = await self.workspace.exec(["sh", "-c", command], timeout=limit)
        except UnsupportedOperation as exc:
            return ExecuteResponse(output=f"Error: {exc}", exit_code=None)
        except TimeoutError:
            return ExecuteResponse(
                output=f"Error: command timed out after {limit:g}s: {shlex.quote(command)}", exit_code=124
            )
        data = (
            result.stdout
            + (b"\n" if result.stdout and result.stderr and not result.stdout.endswith(b"\n") else b"")
            + result.stderr
        )
        truncated = len(data) > self.max_output_bytes
        return ExecuteResponse(
            output=data[: self.max_output_bytes].decode("utf-8", "replace"),
            exit_code=result.exit_code,
            truncated=truncated,
        )


def _file_info(path: str, info: FileInfo) -> DeepFileInfo:
    modified = datetime.fromtimestamp(info.mtime, UTC).isoformat() if info.mtime else None
    entry: DeepFileInfo = {"path": path, "is_dir": False, "size": info.size}
    if modified:
        entry["modified_at"] = modified
    return entry
