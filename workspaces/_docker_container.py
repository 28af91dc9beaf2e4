"""The container a DockerWorkspace lives in: attached or created, released on close, and its execs.

Everything goes through the synchronous ``docker`` SDK, so each call runs in a
worker thread; at most ``_ENGINE_SLOTS`` at once per workspace (the SDK pools 10
connections and more at once break its pool). An exec is one create (cheap), one
start with a hijacked socket (costly: the engine enters the container) and one
inspect (cheap).
"""

from __future__ import annotations

import contextlib
import socket
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import anyio
import anyio.to_thread

from offloader.core.backend import ExecResult
from offloader.core.errors import BackendUnavailable, CommandTimeout

from . import _docker_engine as _engine
from . import _posix

__all__ = ["ContainerRunner"]

#: Engine calls one workspace makes at once (under the SDK's pool of 10 connections).
_ENGINE_SLOTS = 8


@dataclass(eq=False, kw_only=True)
class ContainerRunner:
    """Attach to ``given`` (a ``Container``, id or name) or create one from ``image``; run commands in it.

    ``client`` is a docker SDK client (None: from the environment); ``workdir`` is
    where commands run unless told otherwise: the workspace sets it to the
    workdir's real path once it is known.
    """

    given: Any
    image: str
    client: Any
    user: str
    timeout: float
    command: list[str]
    create_kwargs: dict[str, Any]
    workdir: str
    container: Any = None
    _owned: bool = field(default=False, init=False)
    _slots: anyio.CapacityLimiter | None = field(default=None, init=False)

    def name(self) -> str:
        """The container's name (or short id) for messages."""
        c = self.container
        if c is None:
            return repr(self.given)
        return repr(getattr(c, "name", None) or c.id[:12])

    async def start(self) -> None:
        """Attach or create (in a worker thread); a container that is not running is unavailable."""
        await anyio.to_thread.run_sync(self._attach_or_create)

    def _attach_or_create(self) -> None:
        with _engine.engine_errors(self.name(), "connecting"):
            if self.client is None:
                import docker

                self.client = docker.from_env(timeout=max(1, int(self.timeout)))
            given = self.given
            if given is None:
                import docker.errors

                try:
                    options = {"detach": True, "init": True, **self.create_kwargs}
                    created = self.client.containers.create(self.image, self.command, **options)
                except docker.errors.ImageNotFound as exc:
                    raise BackendUnavailable(
                        f"image {self.image!r} is not on the engine (build or pull it first)"
                    ) from exc
                self.container, self._owned = created, True
                created.start()
            elif isinstance(given, str):
                self.container = self.client.containers.get(given)
            else:
                self.container = given
            self.container.reload()
            if self.container.status != "running":
                raise BackendUnavailable(f"container {self.name()} is {self.container.status}, not running")

    async def release(self) -> None:
        """Remove the container if this runner created it; an attached one is left running."""
        if self.container is not None and self._owned:
            container, self.container = self.container, None

            def remove() -> None:
                with contextlib.suppress(Exception):  # already gone or engine down: nothing to release
                    container.remove(force=True)

            await anyio.to_thread.run_sync(remove)

    async def run(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,
        workdir: str | None = None,
        env: Mapping[str, str] | None = _posix.C_LOCALE,
    ) -> ExecResult:
        """Run ``argv`` (in ``workdir``, default :attr:`workdir`); the exit code is returned, not raised."""

        def run() -> ExecResult:
            return self._run_blocking(argv, stdin, timeout or self.timeout, workdir, env)

        if self._slots is None:  # made on first use: a limiter belongs to the running event loop
            self._slots = anyio.CapacityLimiter(_ENGINE_SLOTS)
        return await anyio.to_thread.run_sync(run, limiter=self._slots)

    def _run_blocking(
        self,
        argv: Sequence[str],
        stdin: bytes | None,
        timeout: float,
        workdir: str | None,
        env: Mapping[str, str] | None,
    ) -> ExecResult:
        """One exec: create (cheap), start with a hijacked socket (costly), inspect (cheap)."""
        if self.container is None:
            raise BackendUnavailable("the container was released")
        api = self.client.api
        with _engine.engine_errors(self.name(), "starting a command"):
            created = api.exec_create(
                self.container.id,
                list(argv),
                stdin=stdin is not None,
                workdir=workdir or self.workdir,
                user=self.user,
                environment=dict(env) if env else None,
            )
            stream = api.exec_start(created["Id"], socket=True)
        sock: socket.socket = getattr(stream, "_sock", stream)
        deadline = time.monotonic() + timeout
        try:
            sock.settimeout(timeout)
            sender = _engine.send_stdin(sock, stdin) if stdin is not None else None
            finished = None if stdin is None else lambda: not api.exec_inspect(created["Id"]).get("Running")
            raw = _engine.read_all(sock, deadline, finished)
            if sender is not None:
                sender.join(max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise CommandTimeout(f"{argv[0]!r} did not finish within {timeout} s in {self.name()}") from None
        except OSError as exc:
            self.check_alive()
            raise BackendUnavailable(f"lost the connection to {self.name()}: {exc}") from exc
        finally:
            _engine.close_quietly(stream, sock)
        stdout, stderr = _engine.demux(raw)
        with _engine.engine_errors(self.name(), "reading a command's exit code"):
            state = api.exec_inspect(created["Id"])
            while state.get("Running") and time.monotonic() < deadline:
                time.sleep(0.005)
                state = api.exec_inspect(created["Id"])
        code = state.get("ExitCode")
        if code is None or code < 0 or code >= 128:
            self.check_alive()
        return ExecResult(-1 if code is None else int(code), stdout, stderr)

    def check_alive(self) -> None:
        """Raise BackendUnavailable if the container stopped or vanished."""
        with _engine.engine_errors(self.name(), "checking the container"):
            self.container.reload()
        if self.container.status != "running":
            raise BackendUnavailable(f"container {self.name()} is {self.container.status}, not running")
