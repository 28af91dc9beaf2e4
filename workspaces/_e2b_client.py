"""Requests to one E2B sandbox: bounded retries, SDK errors mapped to ours, scripts with marked output.

The transport half of :class:`~workspaces.e2b.E2BWorkspace` (the file primitives
live there). Retries are bounded, with jittered exponential backoff:

* an HTTP answer that means the request was not processed (429, and the 502 /
  503 of the proxy in front of envd) is retried for every request;
* a connection that failed mid-request leaves the outcome unknown: retried only
  for idempotent requests (reads, stats, listings, uploads of temp files, commits
  that give the same result twice); an append or a gc removal raises
  :class:`BackendUnavailable` saying its effect is unknown, so a retry can never
  append a line twice;
* no connection at all (refused: the sandbox is gone or the network is down) is
  not retried here: the SDK has already retried connecting;
* a timeout is never retried: a slow sandbox raises within ``request_timeout``
  (an ``AsyncSandbox`` option, the SDK's default 60 s: the wait for an answer
  to start) or ``script_timeout`` (a whole file-operation command).
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
    from connectrpc.errors import ConnectError
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

__all__ = ["SandboxClient", "cut_short"]

T = TypeVar("T")

_MAX_BACKOFF = 5.0  # seconds: the longest wait between two retries
_STALL_MARGIN = 1.0  # seconds past a command's time limit before its stalled stream is given up


class SandboxClient:
    """One sandbox's requests, run as ``user`` in ``workdir``; ``sandbox`` is set by :meth:`create` or the caller."""

    def __init__(
        self,
        sandbox: AsyncSandbox | None,
        *,
        workdir: str,
        user: str | None,
        retries: int,
        backoff: float,
        script_timeout: float,
    ) -> None:
        self.sandbox: Any = sandbox
        self._workdir = workdir
        self._user = user
        self._retries = retries
        self._backoff = backoff
        self._script_timeout = script_timeout

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
        await self.call(lambda: self.sandbox.files.make_dir(path, user=self._user), idempotent=True)

    async def read(self, ref: str) -> bytes:
        """A whole file (``GET /files``, which follows symlinks inside the sandbox)."""
        data = await self.call(
            lambda: self.sandbox.files.read(ref, format="bytes", user=self._user), ref, idempotent=True
        )
        return bytes(data)

    async def info(self, ref: str) -> Any:
        """The Filesystem.Stat answer for ``ref``; ``FileNotFoundError`` when it is missing."""
        return await self.call(lambda: self.sandbox.files.get_info(ref, user=self._user), ref, idempotent=True)

    async def upload(self, files: list[tuple[str, bytes]]) -> None:
        """One ``write_files`` request for ``(absolute path, data)`` pairs (multipart; envd creates parents).

        Only ever temp files of fresh names: writing one twice gives the same result (idempotent)."""
        entries = [{"path": ref, "data": data} for ref, data in files]
        await self.call(lambda: self.sandbox.files.write_files(entries, user=self._user), idempotent=True)

    async def script(
        self, body: str, *, envs: dict[str, str] | None = None, ref: str = "", idempotent: bool = False
    ) -> str:
        """Run one bash script in the workdir; return stdout after :data:`MARK`, mapping exit codes.

        ``idempotent``: running it twice gives the same result, so a dropped connection is retried."""
        if envs:  # payload variables stay readable by the script but are not copied into every child process
            body = f"export -n {' '.join(envs)}\n{body}"
        limit = self._script_timeout
        try:
            result = await self.call(
                lambda: self.sandbox.commands.run(
                    PRELUDE + body, cwd=self._workdir, envs=envs or None, user=self._user, timeout=limit
                ),
                ref,
                idempotent=idempotent,
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
        timed_out: Exception | None = None
        try:
            # the SDK does not end a background command's wait on a stream that stalls: bound it here
            with anyio.move_on_after(timeout + _STALL_MARGIN if timeout else None):
                result = await handle.wait()
                return ExecResult(result.exit_code, result.stdout.encode(), result.stderr.encode())
        except CommandExitException as exc:
            return ExecResult(exc.exit_code, exc.stdout.encode(), exc.stderr.encode())
        except (SandboxNotRunningException, SandboxUnreachableException) as exc:
            raise BackendUnavailable(f"the E2B sandbox went away while running {name!r}: {exc}") from exc
        except TimeoutException as exc:
            timed_out = exc
        except SandboxException as exc:
            raise _mapped(exc) from exc
        with contextlib.suppress(Exception):  # best effort: envd already ends a process past its deadline
            await handle.kill()
        raise CommandTimeout(f"{name!r} did not finish within {timeout} s") from timed_out

    async def call(self, make: Callable[[], Awaitable[T]], ref: str = "", *, idempotent: bool = False) -> T:
        """Await ``make()``; retry what is safe to retry (see the module's docstring); map SDK errors."""
        attempt = 0
        while True:
            try:
                return await make()
            except CommandExitException:
                raise
            except Exception as exc:
                kind = _kind(exc)
                if attempt < self._retries and (kind == "refused" or (kind == "dropped" and idempotent)):
                    delay = min(self._backoff * 2**attempt, _MAX_BACKOFF) * (0.5 + random.random() / 2)
                    attempt += 1
                    await anyio.sleep(delay)
                    continue
                error = _error(exc, kind, ref, idempotent=idempotent, attempts=attempt + 1)
                if error is exc:
                    raise
                raise error from exc


def cut_short(exc: BaseException) -> bool:
    """True if a failed request may have started a command that did not finish its own cleanup:
    killed in the sandbox, timed out, or its connection dropped (the SDK's error is the cause)."""
    return isinstance(exc, (InterruptedError, CommandTimeout)) or (
        exc.__cause__ is not None and _kind(exc.__cause__) in ("dropped", "timeout")
    )


def _kind(exc: BaseException) -> str:
    """``refused``: an HTTP answer saying the request was not processed (429, the proxy's 502/503);
    ``dropped``: the connection failed mid-request (outcome unknown); ``unreachable``: no connection
    could be made; ``timeout``; ``gone``; or ``other``."""
    if isinstance(exc, SandboxNotRunningException):
        return "gone"  # the health probe confirmed it: retrying cannot help
    if _cause(exc, lambda e: type(e) in (ConnectionError, ConnectionRefusedError) or isinstance(e, httpx.ConnectError)):
        return "unreachable"  # no connection: the SDK has already retried connecting
    if isinstance(exc, SandboxUnreachableException):  # (a TimeoutException too)
        return "dropped" if _transport_failure(exc) else "refused"
    if isinstance(exc, (TimeoutException, httpx.TimeoutException)):
        return "timeout"
    if isinstance(exc, RateLimitException):
        return "refused"
    return "dropped" if _transport_failure(exc) else "other"


def _transport_failure(exc: BaseException) -> bool:
    """True if a connection-level error (socket, httpx transport, the SDK's pyqwest) is in the chain."""
    return _cause(
        exc,
        lambda e: (
            (isinstance(e, (OSError, httpx.TransportError)) and not isinstance(e, SandboxException))
            or type(e).__module__.startswith("pyqwest")
        ),
    )


def _cause(exc: BaseException, test: Callable[[BaseException], bool]) -> bool:
    """True if ``test`` holds for ``exc`` or anything in its chain of causes."""
    seen: BaseException | None = exc
    while seen is not None:
        if test(seen):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


def _error(exc: Exception, kind: str, ref: str, *, idempotent: bool, attempts: int) -> Exception:
    """The workspace error for a request that failed for good."""
    tries = f" ({attempts} attempts)" if attempts > 1 else ""
    unknown = "" if idempotent else "; it may or may not have taken effect (not retried: it is not idempotent)"
    if kind == "unreachable":
        return BackendUnavailable(f"the E2B sandbox is unreachable (no connection): {exc}")
    if kind == "dropped":
        return BackendUnavailable(f"the connection to the E2B sandbox dropped mid-request{tries}{unknown}: {exc}")
    if kind == "timeout":
        return BackendUnavailable(f"the E2B sandbox did not answer in time{unknown}: {exc}")
    if isinstance(exc, SandboxException):
        return _mapped(exc, ref)
    if isinstance(exc, ConnectError):  # an envd answer the SDK left unmapped
        return WorkspaceError(f"E2B error: {exc}")
    return exc


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
