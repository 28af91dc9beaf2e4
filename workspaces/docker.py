"""DockerWorkspace: offloaded content inside a container's own filesystem.

The agent's shell and file tools in the container see exactly what was
offloaded. Everything goes through the ``docker`` SDK (synchronous, so every
call runs in a worker thread) and small fixed ``sh`` scripts to which paths,
sizes and patterns are passed as argv, never spliced into the script text.

Engine cost model (measured on a local engine): an exec start, a
``put_archive`` and a ``get_archive`` each cost ~50-70 ms (the engine enters
the container); ``exec_create`` and ``exec_inspect`` cost ~2 ms. So every
primitive below is one *costly* engine operation (one exec start) plus two
cheap requests (create, inspect):

* ``_write`` streams one in-memory tar of the whole batch into ``tar -x``
  (parents created, real mtime, mode ``file_mode``, owned by the exec user),
  extracted under temporary names and committed per file with ``ln`` (exclusive:
  fails if the name exists, so an existing file is never touched) or
  ``mv -T`` (replace). Readers never see a partial file. ``put_archive`` alone
  cannot do this: it deletes and rewrites existing files in place.
* ``_append`` stores its stdin in a temporary file, checks the byte count,
  then appends it with one ``write`` on an ``O_APPEND`` descriptor
  (``dd oflag=append``), which concurrent appenders cannot interleave.
* ``_read`` uses ``dd`` with byte offsets, so a 100-line read of a 50 MB file
  copies one chunk, not the file.
* ``_list`` / ``_stat`` are one ``find ... -exec stat`` / one ``stat``;
  ``_grep_native`` is one ``grep -rlF`` for literals every match must contain
  (the shared policy of :mod:`workspaces._posix`).

Every script checks with ``realpath`` that the folders it touches stay inside
the workdir, so a symlink planted in the container cannot redirect writes.
Scripts fed on stdin drain it before exiting (the engine holds the stream open
while stdin is unread), and the reader also stops once the exec has exited.
"""

from __future__ import annotations

import calendar
import io
import math
import secrets
import tarfile
import time
from collections.abc import Mapping, Sequence
from typing import Any

from offloader.core import text as _text
from offloader.core.backend import Capabilities, ExecResult, FileInfo
from offloader.core.errors import (
    BackendUnavailable,
    PathOutsideWorkspace,
    UnsupportedOperation,
)
from offloader.core.extras import MissingExtra

from . import _docker_scripts as _scripts
from . import _posix
from ._docker_container import ContainerRunner
from .base import Workspace

__all__ = ["REQUIRED_TOOLS", "DockerWorkspace"]

try:
    import docker  # noqa: F401 - imported where used; checked here so a missing extra fails at import
except ModuleNotFoundError as exc:
    raise MissingExtra("DockerWorkspace", "docker", exc.name) from exc

#: Programs the image must provide (busybox provides all of them).
REQUIRED_TOOLS = ("sh", "tar", "find", "stat", "grep", "dd", "cat", "ln", "mv", "rm", "mkdir", "realpath", "truncate")

#: Used when the image has them (busybox builds may lack them): with ``flock`` appends and gc's
#: removals take a lock (and with ``tail`` and ``wc`` an append first cuts a dead writer's torn
#: last line, as LocalWorkspace does); with ``sleep`` a script stops waiting for its stdin after the workspace's
#: time limit (an engine that died mid-send under live-restore would otherwise leave it blocked).
_OPTIONAL_TOOLS = ("flock", "sleep", "tail", "wc")
_LISTED_MAX = 200_000


class DockerWorkspace(Workspace):
    """Offloaded content in a Docker container, under ``workdir`` (created if missing).

    Pass ``container`` (a ``Container`` object, id or name) to attach to a
    running container, which is left running on close; or leave it None to
    create one from ``image`` (kept alive with ``command``, removed on close).

    Keyword arguments (defaults): ``image`` ("busybox:latest"), ``workdir``
    ("/workspace"), ``client`` (``docker.from_env()``), ``user`` (the image's
    user), ``file_mode`` (0o644), ``timeout`` (60 s: the limit on every engine
    call and internal exec), ``command`` (``["sleep", "infinity"]``) and
    ``create_kwargs`` (passed to ``containers.create``, e.g. ``tmpfs``,
    ``network_mode``, ``mem_limit``; ``init=True`` is the default so the idle
    container reaps orphans, pass ``init=False`` if the engine has no docker-init),
    ``ledger_batch`` (16: ledger lines are buffered and appended together, so an
    offload costs one engine operation; see ``Workspace.ledger_batch``, set 1 to
    append every line at once).
    """

    capabilities = Capabilities(exec=True, native_grep=True)

    def __init__(
        self,
        container: Any = None,
        *,
        image: str = "busybox:latest",
        workdir: str = "/workspace",
        client: Any = None,
        user: str | None = None,
        file_mode: int = 0o644,
        timeout: float = 60.0,
        command: Sequence[str] = ("sleep", "infinity"),
        create_kwargs: Mapping[str, Any] | None = None,
        ledger_batch: int = 16,
    ) -> None:
        if not workdir.startswith("/"):
            raise ValueError(f"workdir must be an absolute path inside the container, got {workdir!r}")
        super().__init__(workdir)
        self.ledger_batch = ledger_batch
        self._file_mode = file_mode
        self._timeout = timeout
        self._runner = ContainerRunner(
            given=container,
            image=image,
            client=client,
            user=user or "",
            timeout=timeout,
            command=list(command),
            create_kwargs=dict(create_kwargs or {}),
            workdir=workdir,
        )
        self._missing: frozenset[str] = frozenset()
        self._listed: dict[FileInfo, str] = {}  # stat text of listed files, for gc's exact re-check

    @property
    def container(self) -> Any:
        """The docker SDK ``Container`` object (after ``open``)."""
        return self._runner.container

    # ------------------------------------------------------------ lifecycle

    async def _open(self) -> None:
        try:
            await self._runner.start()
            result = await self._runner.run(
                ["sh", "-c", _scripts.INIT, "sh", self.workdir, *REQUIRED_TOOLS, *_OPTIONAL_TOOLS], workdir="/"
            )
            self._raise_for(result, "preparing the workdir", "")
            lines = result.stdout.decode("utf-8", "replace").splitlines()
            self._runner.workdir = lines[0].strip()
            self._missing = frozenset(line.split(" ", 1)[1] for line in lines[1:] if line.startswith("missing "))
        except BaseException:
            await self._close()
            raise

    async def _close(self) -> None:
        await self._runner.release()

    def _name(self) -> str:
        return self._runner.name()

    # ------------------------------------------------------------ scripts

    async def _script(
        self, script: str, args: Sequence[str], *, stdin: bytes | None = None, what: str, path: str
    ) -> ExecResult:
        body = "W=$1; T=$2; shift 2\n" + _posix.EXIT_VARS + _scripts.PRELUDE + script
        limit = "" if "sleep" in self._missing else str(math.ceil(self._timeout) + 1)
        argv = ["sh", "-c", body, "sh", self._runner.workdir, limit, *args]
        result = await self._runner.run(argv, stdin=stdin)
        self._raise_for(result, what, path)
        return result

    def _need(self, *tools: str) -> None:
        missing = sorted(set(tools) & self._missing)
        if missing:
            needed = ", ".join(REQUIRED_TOOLS)
            raise UnsupportedOperation(
                f"the image of container {self._name()} lacks {', '.join(missing)} (needs {needed})"
            )

    def _raise_for(self, result: ExecResult, what: str, path: str) -> None:
        if result.exit_code == 0:
            return
        err = result.stderr.decode("utf-8", "replace").strip()
        ref = self.reference(path) if path else self.workdir
        if result.exit_code == 126 and result.stdout.startswith(b"OCI runtime"):  # the engine could not start it
            engine = result.stdout.decode("utf-8", "replace").strip()
            raise BackendUnavailable(f"container {self._name()} cannot run commands while {what} {ref}: {engine}")
        raise _posix.exit_error(result.exit_code, err, ref, doing=what, where=f"container {self._name()}")

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        self._need("dd", "realpath")
        count = -1 if end is None else end - start
        result = await self._script(_scripts.READ, [path, str(start), str(count)], what="reading", path=path)
        return result.stdout

    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        if not files:
            return []
        self._need("tar", "ln" if exclusive else "mv", "mkdir", "realpath")
        token = secrets.token_hex(6)
        now = time.time()
        buf = io.BytesIO()
        dirs: dict[str, None] = {}
        with tarfile.open(fileobj=buf, mode="w", format=tarfile.GNU_FORMAT) as tar:
            for i, (rel, data) in enumerate(files):
                folder = rel.rpartition("/")[0]
                if folder:
                    dirs[folder] = None
                info = tarfile.TarInfo(f"{folder + '/' if folder else ''}.tmp-{token}-{i}")
                info.size, info.mtime, info.mode = len(data), int(now), self._file_mode
                tar.addfile(info, io.BytesIO(data))
        args = ["x" if exclusive else "f", token, str(len(dirs)), *dirs, *(rel for rel, _ in files)]
        result = await self._script(_scripts.WRITE, args, stdin=buf.getvalue(), what="writing", path=files[0][0])
        flags = result.stdout.split()
        if len(flags) != len(files):
            raise OSError(f"writing {len(files)} files in {self._name()} reported {len(flags)} results")
        return [flag == b"1" for flag in flags]

    async def _append(self, path: str, data: bytes) -> None:
        if not data:
            return
        self._need("dd", "cat", "stat", "mkdir", "realpath")
        locked = "0" if "flock" in self._missing else "1"
        cut = "0" if {"tail", "wc"} & self._missing else "1"
        args = [path, str(len(data)), secrets.token_hex(6), locked, cut]
        await self._script(_scripts.APPEND, args, stdin=data, what="appending to", path=path)

    async def _list(self, path: str) -> list[FileInfo]:
        self._need("find", "stat", "realpath")
        result = await self._script(_scripts.LIST, [path, "*\n*"], what="listing", path=path)
        found = []
        if len(self._listed) > _LISTED_MAX:
            self._listed.clear()
        for line in result.stdout.decode("utf-8", "surrogateescape").splitlines():
            parsed = _parse_stat(line, with_name=True)
            if parsed is not None:
                found.append(parsed)
                self._listed[parsed] = "|".join(line.split("|", 2)[:2])  # the exact stat text gc re-checks
        return found

    async def _remove_if_unchanged(self, path: str, seen: FileInfo) -> bool:
        """Under ``flock`` (appends take it too): move aside, compare the exact stat text, unlink or put back."""
        stamp = self._listed.pop(seen, None)
        if stamp is None or "flock" in self._missing:
            return await super()._remove_if_unchanged(path, seen)
        args = [path, stamp, secrets.token_hex(6)]
        result = await self._script(_scripts.REMOVE_IF, args, what="removing", path=path)
        return result.stdout.strip() == b"1"

    async def _stat(self, path: str) -> FileInfo | None:
        self._need("stat", "realpath")
        result = await self._script(_scripts.STAT, [path], what="inspecting", path=path)
        line = result.stdout.decode("utf-8", "replace").strip()
        info = _parse_stat(f"{line}|./{path}", with_name=True) if line else None
        return info

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        self._need("rm", "realpath")
        await self._script(_scripts.REMOVE, [path, "1" if recursive else "0"], what="removing", path=path)

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        return await self._runner.run(argv, stdin=stdin, timeout=timeout, env=None)

    async def _grep_native(
        self, regex_source: str, path: str, *, ignore_case: bool, glob: str | None
    ) -> list[str] | None:
        """Files under ``path`` containing a literal every match needs: one ``grep -rlF``
        (the shared policy of :func:`workspaces._posix.grep_prefilter`)."""
        argv = _posix.grep_prefilter(regex_source, path, ignore_case=ignore_case)
        if argv is None or "grep" in self._missing:
            return None
        result = await self._runner.run(argv, env=_posix.C_LOCALE)
        if result.exit_code == 1:
            return []
        if result.exit_code != 0:
            return None  # unreadable files or an odd grep: let the base search everything
        return _posix.grep_candidates(result.stdout.decode("utf-8", "surrogateescape"))


def _parse_stat(line: str, *, with_name: bool) -> FileInfo | None:
    """Parse ``size|%y|./name`` (``%y`` like ``2026-01-02 03:04:05.123456789 +0000``)."""
    parts = line.split("|", 2)
    if len(parts) != 3 or not parts[0].isdigit():
        return None
    size, stamp, name = parts
    try:
        day, clock, zone = stamp.split(" ")
        whole, _, frac = clock.partition(".")
        seconds = calendar.timegm(time.strptime(f"{day} {whole}", "%Y-%m-%d %H:%M:%S"))
        sign = -1 if zone.startswith("-") else 1
        offset = sign * (int(zone[1:3]) * 3600 + int(zone[3:5]) * 60)
        mtime = seconds - offset + (float("0." + frac) if frac else 0.0)
        rel = _text.normalise_relative(name)
    except (ValueError, PathOutsideWorkspace):
        return None
    return FileInfo(rel, int(size), mtime)
