"""Requests to one E2B sandbox: bounded retries, SDK errors mapped to ours, scripts with marked output.

The transport half of :class:`~workspaces.e2b.E2BWorkspace` (the file primitives
live there). HTTP 429 and proxy 502 answers are retried with bounded, jittered
exponential backoff: they mean the request was not processed. Connection
failures are not retried, since an append might have landed.
"""

from __future__ import annotations

import contextlib
import errno
import random
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import anyio

from offloader.core.extras import MissingExtra

try:
    import httpx
    from e2b import AsyncSandbox
    from e2b.exceptions import (
        FileNotFoundException,
        InvalidArgumentException,
        NotEnoughSpaceException,
        NotFoundException,
        RateLimitException,
        SandboxException,
        SandboxNotRunningException,
        SandboxUnreachableException,
        TimeoutException,
    )
    from e2b.sandbox.commands.command_handle import CommandExitException
except ModuleNotFoundError as exc:
    raise MissingExtra("E2BWorkspace", "e2b", exc.name) from exc

from offloader.core.backend import ExecResult
from offloader.core.errors import BackendUnavailable, CommandTimeout, NotEnoughSpace, WorkspaceError

from ._e2b_scripts import MARK, PRELUDE
from ._posix import exit_error

__all__ = ["SandboxClient"]

T = TypeVar("T")

_SCRIPT_TIMEOUT = 120.0  # seconds for one file-operation script
_MAX_BACKOFF = 5.0  # seconds: the longest wait between two retries


class SandboxClient:
    """One sandbox's requests, run as ``user`` in ``workdir``; ``sandbox`` is set by :meth:`create` or the caller."""

    def __init__(
        self, sandbox: AsyncSandbox | None, *, workdir: str, user: str | None, retries: int, backoff: float
    ) -> None:
        self.sandbox: Any = sandbox
        self._workdir = workdir
        self._user = user
        self._retries = retries
        self._backoff = backoff

    async def create(self, template: str, options: dict[str, Any]) -> None:
        """Start a sandbox from ``template``; any failure is :class:`BackendUnavailable`."""
        try:
            self.sandbox = await AsyncSandbox.create(template=template, **options)
        except Exception as exc:
            raise BackendUnavailable(f"cannot create a sandbox from template {template!r}: {exc}") from exc

    async def kill(self) -> None:
        """Best effort: kill the sandbox (one this workspace created)."""
        if self.sandbox is not None:
            with contextlib.suppress(Exception):
                await self.sandbox.kill()

    async def make_dir(self, path: str) -> None:
        """Create ``path`` (absolute) and its parents."""
        await self.call(lambda: self.sandbox.files.make_dir(path, user=self._user))

    async def read(self, ref: str) -> bytes:
        """A whole file (``GET /files``, which follows symlinks inside the sandbox)."""
        return bytes(await self.call(lambda: self.sandbox.files.read(ref, format="bytes", user=self._user), ref))

    async def info(self, ref: str) -> Any:
        """The Filesystem.Stat answer for ``ref``; ``FileNotFoundError`` when it is missing."""
        return await self.call(lambda: self.sandbox.files.get_info(ref, user=self._user), ref)

    async def upload(self, files: list[tuple[str, bytes]]) -> None:
        """One ``write_files`` request for ``(absolute path, data)`` pairs (multipart; envd creates parents)."""
        entries = [{"path": ref, "data": data} for ref, data in files]
        await self.call(lambda: self.sandbox.files.write_files(entries, user=self._user))

    async def script(self, body: str, *, envs: dict[str, str] | None = None, ref: str = "") -> str:
        """Run one bash script in the workdir; return stdout after :data:`MARK`, mapping exit codes."""
        if envs:  # payload variables stay readable by the script but are not copied into every child process
            body = f"export -n {' '.join(envs)}\n{body}"
        try:
            result = await self.call(
                lambda: self.sandbox.commands.run(
                    PRELUDE + body, cwd=self._workdir, envs=envs or None, user=self._user, timeout=_SCRIPT_TIMEOUT
                ),
                ref,
            )
        except CommandExitException as exc:
            raise _script_error(exc, ref) from None
        out: str = result.stdout
        return out.rsplit(MARK, 1)[-1] if MARK in out else ""

    async def run(self, command: str, *, envs: dict[str, str], timeout: float, name: str) -> ExecResult:
        """Run a shell ``command`` in the workdir; its exit code is returned, not raised."""
        handle = await self.call(
            lambda: self.sandbox.commands.run(
                command, background=True, cwd=self._workdir, envs=envs or None, user=self._user, timeout=timeout
            )
        )
        try:
            result = await handle.wait()
            return ExecResult(result.exit_code, result.stdout.encode(), result.stderr.encode())
        except CommandExitException as exc:
            return ExecResult(exc.exit_code, exc.stdout.encode(), exc.stderr.encode())
        except (SandboxNotRunningException, SandboxUnreachableException) as exc:
            raise BackendUnavailable(f"the E2B sandbox went away while running {name!r}: {exc}") from exc
        except TimeoutException as exc:
            with contextlib.suppress(Exception):  # best effort: envd already ends a process past its deadline
                await handle.kill()
            raise CommandTimeout(f"{name!r} did not finish within {timeout} s") from exc
        except SandboxException as exc:
            raise _mapped(exc) from exc

    async def call(self, make: Callable[[], Awaitable[T]], ref: str = "") -> T:
        """Await ``make()``; retry 429/502 answers with bounded backoff; map SDK errors."""
        attempt = 0
        while True:
            try:
                return await make()
            except CommandExitException:
                raise
            except (RateLimitException, SandboxUnreachableException) as exc:
                if attempt >= self._retries or not _not_processed(exc):
                    raise _mapped(exc, ref) from exc
                delay = min(self._backoff * 2**attempt, _MAX_BACKOFF) * (0.5 + random.random() / 2)
                attempt += 1
                await anyio.sleep(delay)
            except SandboxException as exc:
                raise _mapped(exc, ref) from exc


def _not_processed(exc: BaseException) -> bool:
    """True for an HTTP answer (429, 502) rather than a connection failure mid-request."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, (OSError, httpx.TransportError)) and not isinstance(seen, SandboxException):
            return False
        if type(seen).__module__.startswith("pyqwest"):
            return False
        seen = seen.__cause__ or seen.__context__
    return True


def _mapped(exc: SandboxException, ref: str = "") -> Exception:
    if isinstance(exc, FileNotFoundException):
        return FileNotFoundError(errno.ENOENT, "no such file", ref or str(exc))
    if isinstance(exc, InvalidArgumentException) and "directory" in str(exc):
        return IsADirectoryError(errno.EISDIR, "is a directory", ref or str(exc))
    if isinstance(exc, NotEnoughSpaceException):
        return NotEnoughSpace(errno.ENOSPC, f"the sandbox's disk is full: {exc}")
    if isinstance(exc, (SandboxNotRunningException, SandboxUnreachableException)):
        return BackendUnavailable(f"the E2B sandbox is gone or unreachable: {exc}")
    if isinstance(exc, RateLimitException):
        return BackendUnavailable(f"E2B kept rate-limiting requests: {exc}")
    if isinstance(exc, TimeoutException):
        return BackendUnavailable(f"the E2B sandbox did not answer in time: {exc}")
    if isinstance(exc, NotFoundException):
        return BackendUnavailable(f"the E2B sandbox was not found: {exc}")
    return WorkspaceError(f"E2B error: {exc}")


def _script_error(exc: CommandExitException, ref: str) -> Exception:
    stderr = (exc.stderr or "").strip()
    if exc.exit_code < 0:
        return InterruptedError(errno.EINTR, f"the command was killed inside the sandbox ({exc.error})", ref)
    return exit_error(exc.exit_code, stderr, ref, doing="running a file operation on", where="the sandbox")
