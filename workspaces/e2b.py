"""E2BWorkspace: offloaded content inside an E2B sandbox, through the async ``e2b`` SDK.

Every primitive is a bounded number of envd requests (each one HTTP request):

=================================  ===============================================
primitive                          requests
=================================  ===============================================
``_write`` (batch <= inline_limit)  1 ``commands.run``: bytes travel base64 in the
                                   process environment, are decoded to a temp file
                                   and committed with ``ln -T`` (exclusive: fails if
                                   the name exists, so "already there" is exact and
                                   race-free) or ``mv -T`` (replace: atomic rename)
``_write`` (larger batch)           2: one ``files.write_files`` upload of temp files
                                   (multipart, parents created by envd) + one
                                   ``commands.run`` committing them the same way
``_append`` (<= inline_limit)       1 ``commands.run``: ``flock`` + ``O_APPEND``; a
                                   failed write is truncated back (no torn line);
                                   ``context.jsonl`` is never downloaded
``_append`` (larger)                2: upload a temp file + one ``commands.run``
``_read`` whole file                1 ``files.read`` (GET /files)
``_read`` byte range                1 ``commands.run`` (``tail -c | head -c |
                                   base64``): only the range crosses the wire
``_stat``                           1 Filesystem.Stat RPC (no process spawned)
``_list`` / ``_remove``             1 ``commands.run`` each (``find -P`` / ``rm``)
``_grep_native``                    1 ``commands.run`` (``grep -F`` for required literals)
=================================  ===============================================

So a tool-result offload is 1 request up to ``inline_limit`` and 2 above it
(ledger lines are batched, ``ledger_batch=16``: one more request per 16
offloads; with ``ledger_batch=1`` every offload adds one); AgentScope 2.0.11's
E2B workspace sends ``test -e`` + ``mkdir -p`` + ``files.write`` for the content.

Commands always run with ``cwd`` = the workdir and reference files by paths
relative to it; every argument is shell-quoted (``_posix.quote``) and file content never
appears in a command line. Scripts resolve symlinks (``realpath -m``) and refuse
anything that lands outside the workdir. Whole-file reads go through envd's
``GET /files``, which follows symlinks inside the sandbox.

Faults (the retry policy is :mod:`workspaces._e2b_client`'s): answers that mean
"not processed" (429, the proxy's 502 and 503) are retried with bounded, jittered
exponential backoff; a connection dropped mid-request is retried only for
idempotent operations (reads, stats, listings, removals, temp uploads, commits),
never for an append or a gc removal, which raise :class:`BackendUnavailable`
saying their effect is unknown; timeouts are not retried. A sandbox that is gone,
timed out or unreachable raises :class:`BackendUnavailable`; envd's 507 raises
:class:`NotEnoughSpace`; a missing file raises ``FileNotFoundError``.
"""

from __future__ import annotations

import base64
import contextlib
import mimetypes
import secrets
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread

from offloader.core.backend import Capabilities, ExecResult, FileInfo
from offloader.core.errors import BackendUnavailable, NotEnoughSpace, WorkspaceError
from offloader.core.layout import TMP_PREFIX

from . import _e2b_scripts as _sh
from ._e2b_client import SandboxClient, cut_short
from ._posix import EXIT_IO, EXIT_ISDIR, EXIT_MISSING, grep_candidates, grep_prefilter, quote
from .base import Workspace

if TYPE_CHECKING:
    from e2b import AsyncSandbox

__all__ = ["E2BWorkspace"]

_LISTED_MAX = 200_000


def _temp_name() -> str:
    """A fresh temp file name in the workdir (gc sweeps stale ones)."""
    return f"{TMP_PREFIX}{secrets.token_hex(8)}"


class E2BWorkspace(Workspace):
    """Offloaded content in an E2B sandbox's filesystem; references are absolute sandbox paths.

    Pass ``sandbox`` (an ``e2b.AsyncSandbox``) to attach to one you own: it is
    left running on close. Without it, ``open()`` creates one from ``template``
    with ``api_key`` (default: the ``E2B_API_KEY`` variable), ``timeout``
    (sandbox lifetime in seconds, default the SDK's) and any further
    ``AsyncSandbox.create`` options (e.g. ``envs``, ``metadata``, ``debug`` and
    ``sandbox_url``), and kills it on close.

    ``user`` runs file operations and commands as that sandbox user (default:
    the template's). ``retries`` bounds the retries (of 429/502/503 answers, and of
    dropped connections for idempotent operations), waiting ``backoff`` seconds
    doubled each time (jittered, at most 5 s). ``script_timeout`` (120 s) bounds
    each file-operation command; ``request_timeout`` (an ``AsyncSandbox`` option,
    the SDK's default 60 s) bounds the wait for any answer to start.
    ``inline_limit`` is the largest batch (bytes) sent inside a single command;
    larger ones are uploaded first (one more request); 0 always uploads.
    ``ledger_batch`` (16) buffers ledger lines and appends them together (see
    ``Workspace.ledger_batch``; written on ``flush()``/``close()``), so an offload
    is one request; 1 appends each line at once (one more request per offload).
    """

    capabilities = Capabilities(exec=True, native_grep=True)

    def __init__(
        self,
        sandbox: AsyncSandbox | None = None,
        template: str = "base",
        workdir: str = "/home/user/workspace",
        api_key: str | None = None,
        timeout: int | None = None,
        user: str | None = None,
        *,
        retries: int = 3,
        backoff: float = 0.2,
        inline_limit: int = 192 * 1024,
        ledger_batch: int = 16,
        script_timeout: float = 120.0,
        **sandbox_options: Any,
    ) -> None:
        if not workdir.startswith("/") or workdir.rstrip("/") == "":
            raise ValueError(f"workdir must be an absolute sandbox path other than '/', got {workdir!r}")
        if retries < 0 or backoff < 0 or inline_limit < 0 or not script_timeout > 0:
            raise ValueError("retries, backoff and inline_limit must be >= 0, script_timeout > 0")
        super().__init__(workdir)
        self.ledger_batch = ledger_batch
        self._client = SandboxClient(
            sandbox, workdir=workdir, user=user, retries=retries, backoff=backoff, script_timeout=script_timeout
        )
        self._listed: dict[FileInfo, str] = {}  # listing text of files, for gc's exact re-check
        self._owns_sandbox = sandbox is None
        self._template = template
        self._api_key = api_key
        self._timeout = timeout
        self._inline_limit = inline_limit
        self._sandbox_options = sandbox_options

    @property
    def sandbox(self) -> AsyncSandbox:
        """The sandbox in use (after ``open()``)."""
        if self._client.sandbox is None:
            raise WorkspaceError("E2BWorkspace is not open yet")
        return self._client.sandbox  # type: ignore[no-any-return]

    # ------------------------------------------------------------ lifecycle

    async def _open(self) -> None:
        # the SDK's uploads guess a content type: the first guess reads the system's mime tables
        await anyio.to_thread.run_sync(mimetypes.init)
        if self._client.sandbox is None:
            options = dict(self._sandbox_options)
            if self._api_key is not None:
                options["api_key"] = self._api_key
            if self._timeout is not None:
                options["timeout"] = self._timeout
            await self._client.create(self._template, options)
        try:
            await self._client.make_dir(self.workdir)
        except BaseException:
            await self._close()  # a sandbox created here must not outlive a failed open
            raise

    async def _close(self) -> None:
        if self._owns_sandbox:
            await self._client.kill()

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        if start == 0 and end is None:
            return await self._client.read(self.reference(path))
        count = None if end is None else end - start
        q = quote(path)
        pipe = f"tail -c +{start + 1} -- {q}" + ("" if count is None else f" | head -c {count}")
        script = (
            f"_in {q}; [ -e {q} ] || exit {EXIT_MISSING}; if [ -d {q} ]; then exit {EXIT_ISDIR}; fi\n"
            f"printf '%s' {quote(_sh.MARK)}; {pipe} | base64 -w0"
        )
        out = await self._script(script, path=path, idempotent=True)
        return base64.b64decode(out)

    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        if not files:
            return []
        temps = [_temp_name() for _ in files]
        envs: dict[str, str] = {}
        lines = [_sh.PUT, _sh.cleanup(temps), f"printf '%s' {quote(_sh.MARK)}"]
        inline = sum(len(data) for _, data in files) <= self._inline_limit
        for i, ((rel, data), tmp) in enumerate(zip(files, temps, strict=True)):
            if inline:
                lines.append(f"{_sh.decode(envs, f'_OFL_{i}', data)} > {quote(tmp)} || exit {EXIT_IO}")
            lines.append(f"_put {quote(rel)} {quote(tmp)} {int(exclusive)}")
        # twice gives the same files (an exclusive commit then reports "existed"); a replace of uploaded
        # temps is not repeatable (the first run moved them away)
        again = inline or exclusive
        uploaded = False
        try:
            if not inline:
                await self._upload(list(zip(temps, (data for _, data in files), strict=True)))
                uploaded = True
            out = await self._script("\n".join(lines), envs=envs, path=files[0][0], idempotent=again)
        except Exception as exc:
            await self._sweep(temps, exc, uploaded=uploaded)
            raise
        flags = out.split()
        if len(flags) != len(files):
            raise WorkspaceError(f"unexpected answer from the sandbox while writing: {out[:200]!r}")
        return [flag == "1" for flag in flags]

    async def _append(self, path: str, data: bytes) -> None:
        if not data:
            return
        q = quote(path)
        envs: dict[str, str] = {}
        temps = [] if len(data) <= self._inline_limit else [_temp_name()]
        if not temps:
            source, cleanup = _sh.decode(envs, "_OFL_A", data), ""
        else:
            source, cleanup = f"cat -- {quote(temps[0])}", _sh.cleanup(temps) + "\n"
        script = (
            f'{cleanup}_in {q}; _dir {q}; _mk "$d"\n'
            f"if [ -d {q} ]; then exit {EXIT_ISDIR}; fi\n"
            f"while :; do exec 9>>{q} && flock 9 || exit {EXIT_IO}\n"
            f"  [ {q} -ef /proc/self/fd/9 ] && break; exec 9>&-; done\n"  # gc moved it aside: reopen the name
            f"s=$(stat -c %s -- {q}) || exit {EXIT_IO}\n"
            # a dead writer's torn last line (only one holding the lock writes): cut it, as LocalWorkspace does
            f'if [ "$s" -gt 0 ] && [ -n "$(tail -c 1 -- {q})" ]; then\n'
            f"  s=$((s - $(tail -n 1 -- {q} | wc -c))) && truncate -s $s -- {q} || exit {EXIT_IO}; fi\n"
            f'{{ {source}; }} >&9 || {{ truncate -s "$s" -- {q}; exit {EXIT_IO}; }}'
        )
        uploaded = False
        try:
            if temps:
                await self._upload([(temps[0], data)])
                uploaded = True
            await self._script(script, envs=envs, path=path)
        except Exception as exc:
            await self._sweep(temps, exc, uploaded=uploaded)
            raise

    async def _list(self, path: str) -> list[FileInfo]:
        q = quote(path or ".")
        script = (
            f"_in {q}; [ -d {q} ] || exit 0\nprintf '%s' {quote(_sh.MARK)}; find -P {q} -type f -printf '%s %T@ %P\\0'"
        )
        out = await self._script(script, path=path, idempotent=True)
        found = []
        if len(self._listed) > _LISTED_MAX:
            self._listed.clear()
        for record in out.split("\0"):
            if not record:
                continue
            size, mtime, rel = record.split(" ", 2)
            info = FileInfo(f"{path}/{rel}" if path else rel, int(size), _sh.micros(mtime))
            found.append(info)
            self._listed[info] = f"{size} {mtime}"  # the exact text gc re-checks before removing
        return found

    async def _remove_if_unchanged(self, path: str, seen: FileInfo) -> bool:
        """Under ``flock`` (appends take it too): move aside, compare the exact listing text, unlink or put back."""
        stamp = self._listed.pop(seen, None)
        if stamp is None:
            return await super()._remove_if_unchanged(path, seen)
        q, a = quote(path), f'"$d/{TMP_PREFIX}gc-{secrets.token_hex(6)}"'
        script = (
            f"printf '%s' {quote(_sh.MARK)}; _dir {q}; _in \"$d\"\n"
            f"{{ [ -f {q} ] && [ ! -L {q} ]; }} || {{ echo 0; exit 0; }}\n"
            f"exec 9<{q} || {{ echo 0; exit 0; }}\nflock 9 || exit {EXIT_IO}\n"
            f"mv -f -T -- {q} {a} 2>/dev/null || {{ echo 0; exit 0; }}\n"
            f"now=$(find -P {a} -maxdepth 0 -printf '%s %T@')\n"
            f'if [ {a} -ef /proc/self/fd/9 ] && [ "$now" = {quote(stamp)} ]\n'
            f"then rm -f -- {a}; echo 1; exit 0; fi\n"
            f"if ln -T -- {a} {q} 2>/dev/null; then rm -f -- {a}\n"
            f"else case {q} in *.jsonl) exec 8>>{q}; flock 8; cat -- {q} >> {a} && mv -f -T -- {a} {q};;"
            f" *) rm -f -- {a};; esac; fi\necho 0"
        )
        return (await self._script(script, path=path)).strip() == "1"

    async def _stat(self, path: str) -> FileInfo | None:
        try:
            info = await self._client.info(self.reference(path))
        except FileNotFoundError:
            return None
        if info.type is None or info.type.value != "file":
            return None  # folders and symlinks are not regular files
        return FileInfo(path, int(info.size), info.modified_time.timestamp())

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        q = quote(path)
        folder = f"rm -rf -- {q} || exit {EXIT_IO}" if recursive else f"exit {EXIT_ISDIR}"
        script = (
            f'_in "$(dirname -- {q})"\n'
            f"if [ -d {q} ] && [ ! -L {q} ]; then {folder}; else rm -f -- {q} || exit {EXIT_IO}; fi"
        )
        await self._script(script, path=path, idempotent=True)

    async def _exec(self, argv: Sequence[str], *, stdin: bytes | None = None, timeout: float = 60.0) -> ExecResult:
        command, envs = quote(*argv), dict[str, str]()
        temps = [_temp_name()] if stdin and len(stdin) > self._inline_limit else []
        if temps:
            command = f"{_sh.cleanup(temps)}; {command} < {quote(temps[0])}"
        elif stdin:
            source = _sh.decode(envs, "_OFL_I", stdin)
            command = f"{source} | {{ unset {' '.join(envs)}; {command}; }}"
        uploaded = False
        try:
            if temps and stdin:
                await self._upload([(temps[0], stdin)])
                uploaded = True
            return await self._client.run(command, envs=envs, timeout=timeout, name=argv[0])
        except Exception as exc:
            await self._sweep(temps, exc, uploaded=uploaded)
            raise

    async def _grep_native(
        self, regex_source: str, path: str, *, ignore_case: bool, glob: str | None
    ) -> list[str] | None:
        """Files containing a literal every match needs: one ``grep -rlF`` in the sandbox
        (the shared policy of :func:`workspaces._posix.grep_prefilter`); None if grep cannot decide."""
        argv = grep_prefilter(regex_source, path, ignore_case=ignore_case)
        if argv is None:
            return None
        q = quote(f"./{path}")
        script = (
            f"_in {q}; [ -e {q} ] || exit 0\nprintf '%s' {quote(_sh.MARK)}\n"
            f"LC_ALL=C timeout 20 {quote(*argv)}\nc=$?; [ $c -le 1 ] || exit $c"
        )
        try:
            out = await self._script(script, path=path, idempotent=True)
        except (BackendUnavailable, NotEnoughSpace):
            raise
        except OSError:
            return None  # unreadable files or an odd grep: search in-process
        return grep_candidates(out)

    # ------------------------------------------------------------ plumbing

    async def _sweep(self, temps: Sequence[str], exc: Exception, *, uploaded: bool) -> None:
        """After a failed operation, remove its temp files (best effort) when some may exist: uploaded
        ones, or ones a script made before it was killed or timed out (its EXIT trap never ran).
        gc never looks at the workdir's root, where they are."""
        if temps and (uploaded or cut_short(exc)):
            with contextlib.suppress(Exception):
                await self._script(f"rm -f -- {quote(*temps)}", idempotent=True)

    async def _upload(self, files: list[tuple[str, bytes]]) -> None:
        """Upload ``(workdir-relative path, data)`` pairs in one request."""
        await self._client.upload([(self.reference(rel), data) for rel, data in files])

    async def _script(
        self, body: str, *, envs: dict[str, str] | None = None, path: str = "", idempotent: bool = False
    ) -> str:
        """Run one file-operation script; errors name ``path``; ``idempotent`` ones are retried after a drop."""
        return await self._client.script(body, envs=envs, ref=self.reference(path), idempotent=idempotent)
