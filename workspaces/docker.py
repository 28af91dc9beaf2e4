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
  ``_grep_native`` is one ``grep -rlF`` for literals every match must contain.

Every script checks with ``realpath`` that the folders it touches stay inside
the workdir, so a symlink planted in the container cannot redirect writes.
Scripts fed on stdin drain it before exiting (the engine holds the stream open
while stdin is unread), and the reader also stops once the exec has exited.
"""

from __future__ import annotations

import calendar
import contextlib
import errno
import io
import secrets
import socket
import struct
import tarfile
import threading
import time
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import Any

import anyio
import anyio.to_thread

from offloader.core import text as _text
from offloader.core.backend import ExecResult, FileInfo
from offloader.core.errors import (
    BackendUnavailable,
    CommandTimeout,
    NotEnoughSpace,
    PathOutsideWorkspace,
    UnsupportedOperation,
)
from offloader.core.extras import MissingExtra

from .base import Workspace

__all__ = ["REQUIRED_TOOLS", "DockerWorkspace"]

try:
    import docker  # noqa: F401 - imported where used; checked here so a missing extra fails at import
except ModuleNotFoundError as exc:
    raise MissingExtra("DockerWorkspace", "docker", exc.name) from exc

#: Programs the image must provide (busybox provides all of them).
REQUIRED_TOOLS = ("sh", "tar", "find", "stat", "grep", "dd", "cat", "ln", "mv", "rm", "mkdir", "realpath", "truncate")

#: Used when the image has it: appends and gc's removals then take a lock (busybox builds may lack it).
_LOCK_TOOLS = ("flock",)
_LISTED_MAX = 200_000
_ENV = {"LC_ALL": "C"}
_OPTIONAL = set("*?{")  # the atom before these may be absent
_BREAKS = set(".^$+")  # these end a literal run

# Exit codes of the scripts below, mapped to exceptions in ``_raise_for``.
_OUTSIDE, _MISSING, _IS_DIR, _SHORT = 3, 4, 5, 6

_PRELUDE = r"""
inside() {
  r=$(realpath "$1") || exit 1
  case $r in "$W"|"$W"/*) ;; *) echo "$1 resolves outside the workdir" >&2; exit 3;; esac
}
parent() { case $1 in */*) d=./${1%/*};; *) d=.;; esac; }
"""

_INIT = r"""
mkdir -p "$1" && realpath "$1" || exit 1
shift
for t; do command -v "$t" >/dev/null 2>&1 || echo "missing $t"; done
"""

_READ = r"""
p=./$1
[ -e "$p" ] || { echo "no such file: $1" >&2; exit 4; }
inside "$p"
[ -d "$p" ] && { echo "is a directory: $1" >&2; exit 5; }
if [ "$3" -ge 0 ]; then
  exec dd if="$p" bs=65536 skip="$2" count="$3" iflag=skip_bytes,count_bytes status=none
fi
exec dd if="$p" bs=65536 skip="$2" iflag=skip_bytes status=none
"""

_STAT = r"""
p=./$1
{ [ -f "$p" ] && [ ! -L "$p" ]; } || exit 0
inside "$p"
exec stat -c '%s|%y' "$p"
"""

_LIST = r"""
p=./$1
{ [ -d "$p" ] && [ ! -L "$p" ]; } || exit 0
inside "$p"
exec find "$p" -type f ! -name "$2" -exec stat -c '%s|%y|%n' {} +
"""

_WRITE = r"""
trap 'cat >/dev/null' EXIT
mode=$1; tok=$2; n=$3; shift 3
i=0
while [ "$i" -lt "$n" ]; do
  mkdir -p "./$1" || exit 1
  inside "./$1"
  shift; i=$((i+1))
done
cleanup() { i=0; for f; do parent "$f"; rm -f "$d/.tmp-$tok-$i"; i=$((i+1)); done; }
tar -x -m -o -f - || { cleanup "$@"; exit 1; }
i=0
for f; do
  parent "$f"; t=$d/.tmp-$tok-$i; q=./$f
  if [ "$mode" = x ]; then
    if [ -e "$q" ] || [ -L "$q" ]; then echo 0
    elif ln -n "$t" "$q" 2>/dev/null; then echo 1
    elif [ -e "$q" ] || [ -L "$q" ]; then echo 0
    else ln -n "$t" "$q"; cleanup "$@"; exit 1
    fi
    rm -f "$t"
  else
    if [ -d "$q" ] && [ ! -L "$q" ]; then echo "is a directory: $f" >&2; cleanup "$@"; exit 5; fi
    mv -f -T "$t" "$q" || { cleanup "$@"; exit 1; }
    echo 1
  fi
  i=$((i+1))
done
"""

_APPEND = r"""
trap 'cat >/dev/null' EXIT
p=./$1; n=$2
parent "$1"
mkdir -p "$d" || exit 1
inside "$d"
[ -L "$p" ] && { echo "refusing to append through a symlink: $1" >&2; exit 3; }
t=$d/.tmp-$3
cat > "$t" || { rm -f "$t"; exit 1; }
s=$(stat -c %s "$t")
[ "$s" = "$n" ] || { rm -f "$t"; echo "received $s of $n bytes" >&2; exit 6; }
if [ "$4" = 1 ]; then
  while :; do
    exec 9>>"$p" && flock 9 || { rm -f "$t"; exit 1; }
    [ "$p" -ef /proc/self/fd/9 ] && break
    exec 9>&-
  done
fi
before=$(stat -c %s "$p" 2>/dev/null || echo 0)
if dd if="$t" of="$p" bs="$n" count=1 oflag=append conv=notrunc status=none; then rm -f "$t"; exit 0; fi
[ "$4" = 1 ] && truncate -s "$before" "$p"
rm -f "$t"; exit 1
"""

_REMOVE_IF = r"""
p=./$1
{ [ -f "$p" ] && [ ! -L "$p" ]; } || { echo 0; exit 0; }
parent "$1"
inside "$d"
exec 9<"$p" || { echo 0; exit 0; }
flock 9 || exit 1
a=$d/.tmp-gc-$3
mv -f "$p" "$a" 2>/dev/null || { echo 0; exit 0; }
if [ "$a" -ef /proc/self/fd/9 ] && [ "$(stat -c '%s|%y' "$a")" = "$2" ]; then rm -f "$a"; echo 1; exit 0; fi
if ln "$a" "$p" 2>/dev/null; then rm -f "$a"
else
  case $p in
    *.jsonl) exec 8>>"$p"; flock 8; cat "$p" >> "$a" && mv -f "$a" "$p" ;;
    *) rm -f "$a" ;;
  esac
fi
echo 0
"""

_REMOVE = r"""
p=./$1
{ [ -e "$p" ] || [ -L "$p" ]; } || exit 0
parent "$1"
inside "$d"
if [ -d "$p" ] && [ ! -L "$p" ]; then
  [ "$2" = 1 ] || { echo "is a directory: $1" >&2; exit 5; }
  exec rm -rf "$p"
fi
exec rm -f "$p"
"""


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
        self._container_arg = container
        self._image = image
        self._client = client
        self._user = user or ""
        self._file_mode = file_mode
        self._timeout = timeout
        self._command = list(command)
        self._create_kwargs = dict(create_kwargs or {})
        self._container: Any = None
        self._owned = False
        self._real_workdir = ""
        self._missing: frozenset[str] = frozenset()
        self._listed: dict[FileInfo, str] = {}  # stat text of listed files, for gc's exact re-check

    @property
    def container(self) -> Any:
        """The docker SDK ``Container`` object (after ``open``)."""
        return self._container

    # ------------------------------------------------------------ lifecycle

    async def _open(self) -> None:
        try:
            await anyio.to_thread.run_sync(self._attach_or_create)
            result = await self._exec_sync_in_thread(
                ["sh", "-c", _INIT, "sh", self.workdir, *REQUIRED_TOOLS, *_LOCK_TOOLS], workdir="/"
            )
            self._raise_for(result, "preparing the workdir", "")
            lines = result.stdout.decode("utf-8", "replace").splitlines()
            self._real_workdir = lines[0].strip()
            self._missing = frozenset(line.split(" ", 1)[1] for line in lines[1:] if line.startswith("missing "))
        except BaseException:
            await self._close()
            raise

    def _attach_or_create(self) -> None:
        with _engine_errors(self, "connecting"):
            if self._client is None:
                import docker

                self._client = docker.from_env(timeout=max(1, int(self._timeout)))
            given = self._container_arg
            if given is None:
                import docker.errors

                try:
                    options = {"detach": True, "init": True, **self._create_kwargs}
                    created = self._client.containers.create(self._image, self._command, **options)
                except docker.errors.ImageNotFound as exc:
                    raise BackendUnavailable(
                        f"image {self._image!r} is not on the engine (build or pull it first)"
                    ) from exc
                self._container, self._owned = created, True
                created.start()
            elif isinstance(given, str):
                self._container = self._client.containers.get(given)
            else:
                self._container = given
            self._container.reload()
            if self._container.status != "running":
                raise BackendUnavailable(f"container {self._name()} is {self._container.status}, not running")

    async def _close(self) -> None:
        if self._container is not None and self._owned:
            container, self._container = self._container, None

            def remove() -> None:
                with contextlib.suppress(Exception):  # already gone or engine down: nothing to release
                    container.remove(force=True)

            await anyio.to_thread.run_sync(remove)

    def _name(self) -> str:
        c = self._container
        if c is None:
            return repr(self._container_arg)
        return repr(getattr(c, "name", None) or c.id[:12])

    # ------------------------------------------------------------ engine calls

    async def _exec_sync_in_thread(
        self,
        argv: Sequence[str],
        *,
        stdin: bytes | None = None,
        timeout: float | None = None,
        workdir: str | None = None,
        env: Mapping[str, str] | None = _ENV,
    ) -> ExecResult:
        def run() -> ExecResult:
            return self._exec_blocking(argv, stdin, timeout or self._timeout, workdir, env)

        return await anyio.to_thread.run_sync(run)

    def _exec_blocking(
        self,
        argv: Sequence[str],
        stdin: bytes | None,
        timeout: float,
        workdir: str | None,
        env: Mapping[str, str] | None,
    ) -> ExecResult:
        """One exec: create (cheap), start with a hijacked socket (costly), inspect (cheap)."""
        if self._container is None:
            raise BackendUnavailable("the container was released")
        api = self._client.api
        with _engine_errors(self, "starting a command"):
            created = api.exec_create(
                self._container.id,
                list(argv),
                stdin=stdin is not None,
                workdir=workdir or self._real_workdir or self.workdir,
                user=self._user,
                environment=dict(env) if env else None,
            )
            stream = api.exec_start(created["Id"], socket=True)
        sock: socket.socket = getattr(stream, "_sock", stream)
        deadline = time.monotonic() + timeout
        try:
            sock.settimeout(timeout)
            sender = _send_stdin(sock, stdin) if stdin is not None else None
            finished = None if stdin is None else lambda: not api.exec_inspect(created["Id"]).get("Running")
            raw = _read_all(sock, deadline, finished)
            if sender is not None:
                sender.join(max(0.0, deadline - time.monotonic()))
        except TimeoutError:
            raise CommandTimeout(f"{argv[0]!r} did not finish within {timeout} s in {self._name()}") from None
        except OSError as exc:
            self._check_alive()
            raise BackendUnavailable(f"lost the connection to {self._name()}: {exc}") from exc
        finally:
            _close_quietly(stream, sock)
        stdout, stderr = _demux(raw)
        with _engine_errors(self, "reading a command's exit code"):
            state = api.exec_inspect(created["Id"])
            while state.get("Running") and time.monotonic() < deadline:
                time.sleep(0.005)
                state = api.exec_inspect(created["Id"])
        code = state.get("ExitCode")
        if code is None or code < 0 or code >= 128:
            self._check_alive()
        return ExecResult(-1 if code is None else int(code), stdout, stderr)

    def _check_alive(self) -> None:
        """Raise BackendUnavailable if the container stopped or vanished."""
        with _engine_errors(self, "checking the container"):
            self._container.reload()
        if self._container.status != "running":
            raise BackendUnavailable(f"container {self._name()} is {self._container.status}, not running")

    async def _script(
        self, script: str, args: Sequence[str], *, stdin: bytes | None = None, what: str, path: str
    ) -> ExecResult:
        argv = ["sh", "-c", "W=$1; shift\n" + _PRELUDE + script, "sh", self._real_workdir, *args]
        result = await self._exec_sync_in_thread(argv, stdin=stdin)
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
        code = result.exit_code
        if code == 0:
            return
        err = result.stderr.decode("utf-8", "replace").strip()
        ref = self.reference(path) if path else self.workdir
        if "No space left" in err or "Disk quota" in err:
            raise NotEnoughSpace(errno.ENOSPC, f"no space left in {self._name()} while {what} {ref}")
        if code == _OUTSIDE:
            raise PathOutsideWorkspace(f"{ref} resolves outside the workdir")
        if code == _MISSING:
            raise FileNotFoundError(errno.ENOENT, "no such file", ref)
        if code == _IS_DIR:
            raise IsADirectoryError(errno.EISDIR, "is a directory", ref)
        if code == 126 and result.stdout.startswith(b"OCI runtime"):  # the engine could not start the exec at all
            engine = result.stdout.decode("utf-8", "replace").strip()
            raise BackendUnavailable(f"container {self._name()} cannot run commands while {what} {ref}: {engine}")
        if code in (126, 127) or "not found" in err:
            raise UnsupportedOperation(f"a tool is missing in container {self._name()} while {what} {ref}: {err}")
        if "Permission denied" in err:
            raise PermissionError(errno.EACCES, f"permission denied in {self._name()} while {what}: {err}", ref)
        if "Read-only file system" in err:
            raise OSError(errno.EROFS, f"read-only file system in {self._name()} while {what}: {err}", ref)
        raise OSError(f"{what} {ref} failed in {self._name()} (exit {code}): {err}")

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        if end is not None and end <= start:
            if await self._stat(path) is None:
                raise FileNotFoundError(errno.ENOENT, "no such file", self.reference(path))
            return b""
        self._need("dd", "realpath")
        count = -1 if end is None else end - start
        result = await self._script(_READ, [path, str(start), str(count)], what="reading", path=path)
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
                if not rel:
                    raise PathOutsideWorkspace("cannot write to the workdir itself")
                folder = rel.rpartition("/")[0]
                if folder:
                    dirs[folder] = None
                info = tarfile.TarInfo(f"{folder + '/' if folder else ''}.tmp-{token}-{i}")
                info.size, info.mtime, info.mode = len(data), int(now), self._file_mode
                tar.addfile(info, io.BytesIO(data))
        args = ["x" if exclusive else "f", token, str(len(dirs)), *dirs, *(rel for rel, _ in files)]
        result = await self._script(_WRITE, args, stdin=buf.getvalue(), what="writing", path=files[0][0])
        flags = result.stdout.split()
        if len(flags) != len(files):
            raise OSError(f"writing {len(files)} files in {self._name()} reported {len(flags)} results")
        return [flag == b"1" for flag in flags]

    async def _append(self, path: str, data: bytes) -> None:
        if not data:
            return
        self._need("dd", "cat", "stat", "mkdir", "realpath")
        args = [path, str(len(data)), secrets.token_hex(6), "0" if "flock" in self._missing else "1"]
        await self._script(_APPEND, args, stdin=data, what="appending to", path=path)

    async def _list(self, path: str) -> list[FileInfo]:
        self._need("find", "stat", "realpath")
        result = await self._script(_LIST, [path, "*\n*"], what="listing", path=path)
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
        result = await self._script(_REMOVE_IF, args, what="removing", path=path)
        return result.stdout.strip() == b"1"

    async def _stat(self, path: str) -> FileInfo | None:
        self._need("stat", "realpath")
        result = await self._script(_STAT, [path], what="inspecting", path=path)
        line = result.stdout.decode("utf-8", "replace").strip()
        info = _parse_stat(f"{line}|./{path}", with_name=True) if line else None
        return info

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        if not path:
            raise PathOutsideWorkspace("refusing to remove the workdir itself")
        self._need("rm", "realpath")
        await self._script(_REMOVE, [path, "1" if recursive else "0"], what="removing", path=path)

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        if not argv:
            raise ValueError("argv must not be empty")
        return await self._exec_sync_in_thread(argv, stdin=stdin, timeout=timeout, env=None)

    async def _grep_native(
        self, regex_source: str, path: str, *, ignore_case: bool, glob: str | None
    ) -> list[str] | None:
        """Files under ``path`` that contain a literal every match needs (one ``grep -rlF``).

        RE2 and the image's grep disagree on regex syntax, so the regex itself is
        never handed over: ``_required_literals`` finds, per alternative, a piece
        of text any match must contain, and grep looks for those as fixed strings.
        None (search every file in-process) when no such literals can be proven.
        """
        literals = _required_literals(regex_source, ignore_case=ignore_case)
        if literals is None or "grep" in self._missing:
            return None
        flags = ["-r", "-l", "-s", "-F", *(["-i"] if ignore_case else [])]
        argv = ["grep", *flags, *(arg for lit in literals for arg in ("-e", lit)), "--", f"./{path}"]
        result = await self._exec_sync_in_thread(argv)
        if result.exit_code == 1:
            return []
        if result.exit_code != 0:
            return None  # unreadable files or an odd grep: let the base search everything
        out = []
        for line in result.stdout.decode("utf-8", "surrogateescape").splitlines():
            try:
                out.append(_text.normalise_relative(line))
            except PathOutsideWorkspace:
                continue
        return out


def _required_literals(pattern: str, *, ignore_case: bool) -> list[str] | None:
    """For each top-level alternative of ``pattern``, the longest literal text a match must contain.

    Conservative: groups, classes, inline flags and anything unfamiliar give
    None. With ``ignore_case`` only ASCII letters other than ``k``/``s`` count
    (RE2 folds those with the Kelvin sign and long s, which grep's C locale does not).
    """
    if not pattern or any(c in pattern for c in "()[]\n\x00"):
        return None
    literals = []
    for branch in pattern.split("|"):
        runs: list[str] = []
        run = ""
        i = 0
        while i < len(branch):
            c = branch[i]
            if c == "\\":
                if i + 1 >= len(branch) or branch[i + 1].isalnum():
                    runs.append(run)
                    run = ""
                    i += 2
                    continue
                c = branch[i + 1]
                i += 1
            elif c in _OPTIONAL:
                runs.append(run[:-1])
                run = ""
                if c == "{":
                    end = branch.find("}", i)
                    if end < 0:
                        return None
                    i = end
                i += 1
                continue
            elif c in _BREAKS or c == "}":
                runs.append(run)
                run = ""
                i += 1
                continue
            nxt = branch[i + 1] if i + 1 < len(branch) else ""
            usable = c.isascii() and c.isprintable() and not (ignore_case and c.lower() in "ks")
            if nxt in _OPTIONAL or not usable:
                runs.append(run)
                run = ""
            else:
                run += c
            i += 1
        runs.append(run)
        best = max(runs, key=len)
        if not best:
            return None
        literals.append(best)
    return literals


@contextlib.contextmanager
def _engine_errors(ws: DockerWorkspace, doing: str) -> Iterator[None]:
    """Map docker SDK / transport errors to workspace errors naming the cause."""
    import docker.errors
    import requests.exceptions

    try:
        yield
    except (BackendUnavailable, CommandTimeout):
        raise
    except docker.errors.NotFound as exc:
        raise BackendUnavailable(f"container {ws._name()} no longer exists ({doing})") from exc
    except docker.errors.APIError as exc:
        if exc.status_code == 409:
            raise BackendUnavailable(f"container {ws._name()} is not running ({doing}): {exc.explanation}") from exc
        raise BackendUnavailable(f"the Docker engine refused {doing} for {ws._name()}: {exc}") from exc
    except requests.exceptions.Timeout as exc:
        raise CommandTimeout(f"the Docker engine did not answer in time ({doing})") from exc
    except (requests.exceptions.ConnectionError, docker.errors.DockerException, ConnectionError) as exc:
        raise BackendUnavailable(f"the Docker engine is unreachable ({doing}): {exc}") from exc


def _send_stdin(sock: socket.socket, data: bytes) -> threading.Thread:
    """Feed stdin from a helper thread so a chatty command cannot deadlock us."""

    def send() -> None:
        try:
            sock.sendall(data)
            sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass  # the reader sees the broken stream and reports it

    thread = threading.Thread(target=send, daemon=True)
    thread.start()
    return thread


def _read_all(sock: socket.socket, deadline: float, finished: Callable[[], bool] | None) -> bytes:
    """Read the stream to EOF. With ``finished``, stop once the command has exited:
    an engine keeps the stream open while it still holds unread stdin."""
    chunks: list[bytes] = []
    while True:
        left = deadline - time.monotonic()
        if left <= 0:
            raise TimeoutError
        sock.settimeout(left if finished is None else min(left, 0.5))
        try:
            chunk = sock.recv(1 << 20)
        except TimeoutError:
            if finished is not None and finished():
                return b"".join(chunks)
            continue
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)


def _demux(raw: bytes) -> tuple[bytes, bytes]:
    """Split Docker's multiplexed stream (8-byte frame headers) into stdout and stderr."""
    out: list[bytes] = []
    err: list[bytes] = []
    pos = 0
    view = memoryview(raw)
    while pos + 8 <= len(raw):
        kind, size = struct.unpack_from(">BxxxL", raw, pos)
        body = view[pos + 8 : pos + 8 + size]
        (err if kind == 2 else out).append(bytes(body))
        pos += 8 + size
    return b"".join(out), b"".join(err)


def _close_quietly(stream: Any, sock: socket.socket) -> None:
    for obj in (stream, sock):
        with contextlib.suppress(Exception):
            obj.close()


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
