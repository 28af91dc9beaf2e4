"""A loopback server speaking E2B envd's wire protocol, for tests and benchmarks.

No E2B endpoint is reachable here, so this stands in for the sandbox: the real
``e2b`` SDK in debug mode (``AsyncSandbox.create(debug=True,
sandbox_url=server.url)``) talks to it exactly as it talks to envd inside a
cloud sandbox. It is built on the Connect RPC stubs the SDK ships
(``FilesystemASGIApplication``, ``ProcessASGIApplication`` and the ``*_pb``
messages, JSON codec, HTTP/1.1 on plaintext as the SDK's pyqwest transport
uses) plus envd's plain HTTP routes, served by uvicorn in a background thread.

Covered, with envd's documented behaviour:

* ``filesystem.Filesystem``: Stat, MakeDir (ALREADY_EXISTS for an existing
  folder), Move (creates the destination's parents), ListDir with ``depth``
  (0 means 1; symlinks are listed, never followed), Remove (recursive, missing
  is fine); NOT_FOUND for missing paths.
* ``process.Process``: Start as a server stream (start event with the real pid,
  stdout/stderr data events as output arrives, an end event with Go's
  ``ProcessState`` strings: ``exit status 1`` / ``signal: killed``), real
  ``/bin/bash -l -c`` processes, the stream deadline kills the process, stdin
  (SendInput, CloseStdin), SendSignal, List.
* ``GET /files`` (download, gzip when asked), ``POST /files`` (multipart, one or
  many parts, and ``application/octet-stream`` with ``Content-Encoding: gzip``),
  ``GET /health`` (204).

Sandbox paths are absolute; ``/x/y`` maps to ``<root>/x/y`` (relative paths
resolve against ``/home/user``, the default user's home). A process's ``cwd``
is mapped the same way, but paths *inside* a command string cannot be: the
commands run on this host, so callers must use paths relative to ``cwd`` (the
workspace under test does exactly that, which works unchanged in a real
sandbox).

Not covered: authentication (tokens, users and permissions are recorded but
not enforced), WatchDir/watchers, PTY, Connect/Update/StreamInput, file
metadata xattrs, the control-plane API (debug mode skips it), HTTP/2 (the SDK
uses HTTP/1.1 on plaintext), and real disk-full conditions (507 is injected).

Every request is recorded (method, path, query, headers) so tests can assert
wire traffic. :meth:`EnvdServer.fail_next` injects plain HTTP errors the way
E2B's edge proxy answers (429, 502, 503, 507); :meth:`EnvdServer.fault_next`
injects network faults: a connection dropped before or after the request took
effect, a late answer, a stream that stalls.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gzip
import json
import os
import posixpath
import shutil
import signal
import socket
import stat as stat_mod
import threading
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, MutableMapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

import uvicorn
from connectrpc.code import Code
from connectrpc.errors import ConnectError
from connectrpc.request import RequestContext
from e2b.envd.filesystem import filesystem_pb as fs_pb
from e2b.envd.filesystem.filesystem_connect import Filesystem, FilesystemASGIApplication
from e2b.envd.process import process_pb as proc_pb
from e2b.envd.process.process_connect import Process, ProcessASGIApplication
from protobuf import Oneof
from protobuf.wkt import Timestamp
from starlette.requests import Request

__all__ = ["EnvdServer", "RecordedRequest"]

Scope = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[MutableMapping[str, Any]]]
Send = Callable[[MutableMapping[str, Any]], Awaitable[None]]

HOME = "/home/user"
_DEADLINE = object()  # queued when a Start stream's deadline killed its process


@dataclass(frozen=True)
class RecordedRequest:
    """One HTTP request as it reached the server."""

    method: str
    path: str
    query: dict[str, list[str]]
    headers: dict[str, str]

    @property
    def is_upload(self) -> bool:
        return self.method == "POST" and self.path == "/files"

    @property
    def is_download(self) -> bool:
        return self.method == "GET" and self.path == "/files"


@dataclass
class _Fault:
    status: int
    message: str
    prefix: str
    times: int
    kind: str = "status"  # or one of _NETWORK_FAULTS
    delay: float = 0.0


#: What :meth:`EnvdServer.fault_next` can inject.
_NETWORK_FAULTS = ("drop", "drop_after", "slow", "stall")


@dataclass
class _Proc:
    process: asyncio.subprocess.Process
    config: proc_pb.ProcessConfig
    tag: str | None
    events: asyncio.Queue[Any] = field(default_factory=asyncio.Queue)


class EnvdServer:
    """envd on 127.0.0.1, serving a temporary ``root`` folder (start/stop from any thread)."""

    def __init__(self, root: Path) -> None:
        self.root = Path(root).resolve()
        (self.root / HOME.lstrip("/")).mkdir(parents=True, exist_ok=True)
        self.requests: list[RecordedRequest] = []
        self.bytes_in = 0  # request body bytes received since the last clear()
        self.bytes_out = 0  # response body bytes sent since the last clear()
        self._faults: list[_Fault] = []
        self._lock = threading.Lock()
        self._procs: dict[int, _Proc] = {}
        self._kill_next = 0
        self._loop: asyncio.AbstractEventLoop | None = None
        self._server: uvicorn.Server | None = None
        self._thread: threading.Thread | None = None
        self.port = 0
        fs_app = FilesystemASGIApplication(_FilesystemService(self))
        proc_app = ProcessASGIApplication(_ProcessService(self))
        self._apps: dict[str, Callable[[Scope, Receive, Send], Awaitable[None]]] = {
            fs_app.path + "/": fs_app,
            proc_app.path + "/": proc_app,
        }

    # ------------------------------------------------------------ lifecycle

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self, timeout: float = 10.0) -> None:
        """Bind a free port and serve in a daemon thread; raises RuntimeError if it cannot start."""
        sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        sock.bind(("127.0.0.1", self.port))
        self.port = sock.getsockname()[1]
        config = uvicorn.Config(self, log_level="warning", lifespan="off", access_log=False, timeout_keep_alive=30)
        self._server = uvicorn.Server(config)

        def run() -> None:
            loop = asyncio.new_event_loop()
            self._loop = loop
            try:
                loop.run_until_complete(self._server.serve(sockets=[sock]))  # type: ignore[union-attr]
            finally:
                loop.run_until_complete(self._kill_all())
                loop.close()
                sock.close()

        self._thread = threading.Thread(target=run, name="envd-server", daemon=True)
        self._thread.start()
        deadline = time.monotonic() + timeout
        while not self._server.started:
            if not self._thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError("the envd test server did not start")
            time.sleep(0.01)

    def stop(self) -> None:
        """Stop serving (running processes are killed); later requests are refused."""
        if self._server is not None and self._thread is not None:
            self._server.should_exit = True
            self._thread.join(timeout=10)
        self._server = None

    # ------------------------------------------------------------ test hooks

    def fail_next(self, status: int, *, times: int = 1, prefix: str = "/", message: str | None = None) -> None:
        """Answer the next ``times`` requests under ``prefix`` with a plain HTTP error, as E2B's proxy does."""
        text = message or {
            429: "rate limit exceeded",
            502: "bad gateway",
            503: "service unavailable",
            507: "not enough disk space",
        }.get(status, f"error {status}")
        with self._lock:
            self._faults.append(_Fault(status, text, prefix, times))

    def fault_next(self, kind: str, *, times: int = 1, prefix: str = "/", delay: float = 0.0) -> None:
        """Inject a network fault into the next ``times`` requests under ``prefix``.

        ``drop``: the connection is cut right after the answer's headers, and the
        request is never handled. ``drop_after``: the request is handled (its effect
        happens), then the answer is cut after its headers, as when a connection dies
        on the way back. ``slow``: the request waits ``delay`` seconds before it is
        handled. ``stall``: the answer's first chunk (a stream's start event) goes
        out, the rest waits ``delay`` seconds.
        """
        if kind not in _NETWORK_FAULTS:
            raise ValueError(f"unknown fault {kind!r}; one of {_NETWORK_FAULTS}")
        with self._lock:
            self._faults.append(_Fault(0, "", prefix, times, kind, delay))

    def clear(self) -> None:
        """Forget recorded requests and byte counts."""
        with self._lock:
            self.requests.clear()
            self.bytes_in = self.bytes_out = 0

    def count(self, predicate: Callable[[RecordedRequest], bool] | None = None) -> int:
        with self._lock:
            return sum(1 for r in self.requests if predicate is None or predicate(r))

    def kill_next(self, times: int = 1) -> None:
        """SIGKILL the next ``times`` processes right after they start (a command killed mid-way)."""
        with self._lock:
            self._kill_next += times

    def running_pids(self) -> list[int]:
        return [pid for pid, p in list(self._procs.items()) if p.process.returncode is None]

    def kill_processes(self) -> None:
        """SIGKILL every running process (as if the sandbox's kernel killed them)."""
        for pid in self.running_pids():
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)

    async def _kill_all(self) -> None:
        self.kill_processes()
        for proc in list(self._procs.values()):
            with contextlib.suppress(TimeoutError, ProcessLookupError):
                await asyncio.wait_for(proc.process.wait(), 5)

    # ------------------------------------------------------------ paths

    def host(self, sandbox_path: str) -> Path:
        """The host path for a sandbox path (relative paths resolve against /home/user)."""
        full = sandbox_path if sandbox_path.startswith("/") else posixpath.join(HOME, sandbox_path)
        norm = posixpath.normpath(full).lstrip("/")
        return self.root / norm if norm not in ("", ".") else self.root

    def sandbox_path(self, host: Path) -> str:
        rel = os.path.relpath(host, self.root).replace(os.sep, "/")
        return "/" if rel == "." else "/" + rel

    # ------------------------------------------------------------ ASGI

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            return

        async def counting_receive() -> MutableMapping[str, Any]:
            message = await receive()
            with self._lock:
                self.bytes_in += len(message.get("body", b""))
            return message

        async def counting_send(message: MutableMapping[str, Any]) -> None:
            with self._lock:
                self.bytes_out += len(message.get("body", b""))
            await send(message)

        await self._handle(scope, counting_receive, counting_send)

    async def _handle(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope["headers"]}
        query = parse_qs(scope.get("query_string", b"").decode("latin-1"))
        path: str = scope["path"]
        fault = None
        with self._lock:
            self.requests.append(RecordedRequest(scope["method"], path, query, headers))
            for f in self._faults:
                if path.startswith(f.prefix):
                    fault = f
                    f.times -= 1
                    if f.times <= 0:
                        self._faults.remove(f)
                    break
        if fault is not None and fault.kind == "status":
            await _drain(receive)
            await _send_json(send, fault.status, {"code": fault.status, "message": fault.message})
            return
        if fault is not None:
            await _network_fault(fault, headers, lambda s: self._route(scope, receive, s), receive, send)
            return
        await self._route(scope, receive, send)

    async def _route(self, scope: Scope, receive: Receive, send: Send) -> None:
        path: str = scope["path"]
        for prefix, app in self._apps.items():
            if path.startswith(prefix):
                await app(scope, receive, send)
                return
        if path == "/health":
            await _send(send, 204, b"", "text/plain")
        elif path == "/files" and scope["method"] == "GET":
            await self._download(Request(scope, receive), send)
        elif path == "/files" and scope["method"] == "POST":
            await self._upload(Request(scope, receive), send)
        else:
            await _send_json(send, 404, {"code": 404, "message": f"no route {scope['method']} {path}"})

    async def _download(self, request: Request, send: Send) -> None:
        target = self.host(request.query_params.get("path", ""))
        if not target.exists():
            await _send_json(send, 404, {"code": 404, "message": f"path '{target.name}' does not exist"})
            return
        if target.is_dir():
            await _send_json(send, 400, {"code": 400, "message": "path is a directory"})
            return
        data = await asyncio.to_thread(target.read_bytes)
        if "gzip" in request.headers.get("accept-encoding", ""):
            await _send(send, 200, gzip.compress(data, 1), "application/octet-stream", [(b"content-encoding", b"gzip")])
        else:
            await _send(send, 200, data, "application/octet-stream")

    async def _upload(self, request: Request, send: Send) -> None:
        ctype = request.headers.get("content-type", "")
        written: list[tuple[str, bytes]] = []
        if ctype.startswith("multipart/form-data"):
            form = await request.form(max_files=10_000, max_part_size=1 << 30)
            parts = form.getlist("file")
            single = request.query_params.get("path") if len(parts) == 1 else None
            for part in parts:
                if isinstance(part, str):
                    await _send_json(send, 400, {"code": 400, "message": "part is not a file"})
                    return
                written.append((single or part.filename or "", await part.read()))
        elif ctype.startswith("application/octet-stream"):
            body = await request.body()
            if request.headers.get("content-encoding") == "gzip":
                body = gzip.decompress(body)
            written.append((request.query_params.get("path", ""), body))
        else:
            await _send_json(send, 400, {"code": 400, "message": f"unsupported content type {ctype!r}"})
            return
        result = []
        for sandbox_path, data in written:
            target = self.host(sandbox_path)
            if target.is_dir():
                await _send_json(send, 400, {"code": 400, "message": f"path '{sandbox_path}' is a directory"})
                return
            try:
                await asyncio.to_thread(_write_in_place, target, data)
            except OSError as exc:
                if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                    raise
                await _send_json(send, 507, {"code": 507, "message": f"not enough disk space: {exc}"})
                return
            result.append({"name": target.name, "type": "file", "path": self.sandbox_path(target)})
        await _send_json(send, 200, result)


async def _network_fault(
    fault: _Fault, headers: dict[str, str], handle: Callable[[Send], Awaitable[None]], receive: Receive, send: Send
) -> None:
    """Play one network fault around ``handle`` (the normal routing). Returning with the answer
    incomplete makes uvicorn close the connection: the client sees it cut after the headers."""
    if fault.kind == "drop":
        await _drain(receive)
        ctype = headers.get("content-type", "application/octet-stream")
        ctype = "application/json" if ctype.startswith("multipart/") else ctype
        await send({"type": "http.response.start", "status": 200, "headers": [(b"content-type", ctype.encode())]})
        return
    if fault.kind == "slow":
        await asyncio.sleep(fault.delay)
        await handle(send)
        return
    chunks = 0

    async def faulty_send(message: MutableMapping[str, Any]) -> None:
        nonlocal chunks
        if message["type"] != "http.response.body":
            await send(message)
        elif fault.kind == "stall":
            chunks += 1
            if chunks == 2:
                await asyncio.sleep(fault.delay)
            await send(message)
        # drop_after: the answer's body never leaves

    await handle(faulty_send)


def _write_in_place(target: Path, data: bytes) -> None:
    """envd creates parents, then truncates and writes the file in place (not atomically)."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "wb") as f:
        f.write(data)


async def _drain(receive: Receive) -> None:
    while True:
        msg = await receive()
        if msg["type"] != "http.request" or not msg.get("more_body"):
            return


async def _send(
    send: Send, status: int, body: bytes, ctype: str, extra: list[tuple[bytes, bytes]] | None = None
) -> None:
    headers = [(b"content-type", ctype.encode()), (b"content-length", str(len(body)).encode()), *(extra or [])]
    await send({"type": "http.response.start", "status": status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


async def _send_json(send: Send, status: int, payload: Any) -> None:
    await _send(send, status, json.dumps(payload).encode(), "application/json")


# ---------------------------------------------------------------- Filesystem


def _entry(server: EnvdServer, host: Path) -> fs_pb.EntryInfo:
    st = host.lstat()
    is_link = stat_mod.S_ISLNK(st.st_mode)
    target_st = st
    if is_link:
        try:
            target_st = host.stat()
        except OSError:
            target_st = st
    if stat_mod.S_ISDIR(target_st.st_mode):
        ftype = fs_pb.FileType.DIRECTORY
    elif stat_mod.S_ISREG(target_st.st_mode):
        ftype = fs_pb.FileType.FILE
    else:
        ftype = fs_pb.FileType.SYMLINK if is_link else fs_pb.FileType.UNSPECIFIED
    ts = Timestamp(seconds=st.st_mtime_ns // 10**9, nanos=st.st_mtime_ns % 10**9)  # exact, as envd reports it
    return fs_pb.EntryInfo(
        name=host.name,
        type=ftype,
        path=server.sandbox_path(host),
        size=st.st_size,
        mode=stat_mod.S_IMODE(st.st_mode),
        permissions=stat_mod.filemode(st.st_mode),
        owner="user",
        group="user",
        modified_time=ts,
        symlink_target=os.readlink(host) if is_link else None,
        is_symlink=is_link,
    )


def _exists(host: Path) -> bool:
    return host.exists() or host.is_symlink()


class _FilesystemService(Filesystem):
    """envd's Filesystem service; unlisted methods answer UNIMPLEMENTED (the stub's default)."""

    def __init__(self, server: EnvdServer) -> None:
        self._s = server

    async def stat(self, request: fs_pb.StatRequest, ctx: RequestContext[Any, Any]) -> fs_pb.StatResponse:
        host = self._s.host(request.path)
        if not _exists(host):
            raise ConnectError(Code.NOT_FOUND, f"file not found: {request.path}")
        return fs_pb.StatResponse(entry=_entry(self._s, host))

    async def make_dir(self, request: fs_pb.MakeDirRequest, ctx: RequestContext[Any, Any]) -> fs_pb.MakeDirResponse:
        host = self._s.host(request.path)
        if host.is_dir():
            raise ConnectError(Code.ALREADY_EXISTS, f"directory already exists: {request.path}")
        if _exists(host):
            raise ConnectError(Code.INVALID_ARGUMENT, f"path already exists but it is not a directory: {request.path}")
        host.mkdir(parents=True)
        return fs_pb.MakeDirResponse(entry=_entry(self._s, host))

    async def move(self, request: fs_pb.MoveRequest, ctx: RequestContext[Any, Any]) -> fs_pb.MoveResponse:
        src, dst = self._s.host(request.source), self._s.host(request.destination)
        if not _exists(src):
            raise ConnectError(Code.NOT_FOUND, f"source file not found: {request.source}")
        dst.parent.mkdir(parents=True, exist_ok=True)
        os.rename(src, dst)
        return fs_pb.MoveResponse(entry=_entry(self._s, dst))

    async def list_dir(self, request: fs_pb.ListDirRequest, ctx: RequestContext[Any, Any]) -> fs_pb.ListDirResponse:
        host = self._s.host(request.path)
        if not _exists(host):
            raise ConnectError(Code.NOT_FOUND, f"directory not found: {request.path}")
        if not host.is_dir():
            raise ConnectError(Code.INVALID_ARGUMENT, f"path is not a directory: {request.path}")
        depth = request.depth or 1
        entries: list[fs_pb.EntryInfo] = []

        def walk(folder: Path, level: int) -> None:
            for child in sorted(folder.iterdir()):
                entries.append(_entry(self._s, child))
                if level < depth and child.is_dir() and not child.is_symlink():
                    walk(child, level + 1)

        walk(host, 1)
        return fs_pb.ListDirResponse(entries=entries)

    async def remove(self, request: fs_pb.RemoveRequest, ctx: RequestContext[Any, Any]) -> fs_pb.RemoveResponse:
        host = self._s.host(request.path)
        if host == self._s.root:
            raise ConnectError(Code.INVALID_ARGUMENT, "refusing to remove /")
        if host.is_dir() and not host.is_symlink():
            shutil.rmtree(host)
        elif _exists(host):
            host.unlink()
        return fs_pb.RemoveResponse()


# ---------------------------------------------------------------- Process


def _process_event(kind: str, value: Any) -> proc_pb.ProcessEvent:
    return proc_pb.ProcessEvent(event=Oneof(kind, value))  # type: ignore[arg-type]


def _end_event(returncode: int) -> proc_pb.ProcessEvent.EndEvent:
    """What envd reports from Go's ``ProcessState``: exit code -1 and ``signal: <name>`` when signalled."""
    if returncode >= 0:
        status = f"exit status {returncode}"
        return proc_pb.ProcessEvent.EndEvent(
            exit_code=returncode, exited=True, status=status, error=status if returncode else None
        )
    name = {signal.SIGKILL: "killed", signal.SIGTERM: "terminated"}.get(signal.Signals(-returncode), "")
    status = f"signal: {name or signal.Signals(-returncode).name}"
    return proc_pb.ProcessEvent.EndEvent(exit_code=-1, exited=False, status=status, error=status)


class _ProcessService(Process):
    """envd's Process service; Connect, Update and StreamInput answer UNIMPLEMENTED."""

    def __init__(self, server: EnvdServer) -> None:
        self._s = server

    async def start(
        self, request: proc_pb.StartRequest, ctx: RequestContext[Any, Any]
    ) -> AsyncIterator[proc_pb.StartResponse]:
        config = request.process or proc_pb.ProcessConfig()
        cwd = self._s.host(config.cwd if config.has_field("cwd") and config.cwd else HOME)
        if not cwd.is_dir():
            raise ConnectError(Code.INVALID_ARGUMENT, f"cwd '{config.cwd}' does not exist")
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(self._s.host(HOME)),
            "USER": "user",
            "LANG": "C.UTF-8",
            **dict(config.envs),
        }
        try:
            process = await asyncio.create_subprocess_exec(
                config.cmd,
                *config.args,
                cwd=cwd,
                env=env,
                stdin=asyncio.subprocess.PIPE if request.stdin else asyncio.subprocess.DEVNULL,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
                start_new_session=True,
            )
        except OSError as exc:
            raise ConnectError(Code.INTERNAL, f"error starting process: {exc}") from exc
        proc = _Proc(process, config, request.tag if request.has_field("tag") else None)
        self._s._procs[process.pid] = proc
        with self._s._lock:
            doomed, self._s._kill_next = self._s._kill_next > 0, max(0, self._s._kill_next - 1)
        if doomed:
            _signal(process, signal.SIGKILL)
        deadline = ctx.timeout_ms
        pump = asyncio.ensure_future(self._pump(proc, deadline / 1000 if deadline else None))
        try:
            yield proc_pb.StartResponse(event=_process_event("start", proc_pb.ProcessEvent.StartEvent(pid=process.pid)))
            while (event := await self._next_event(proc, ctx)) is not None:
                if event is _DEADLINE:
                    raise ConnectError(Code.DEADLINE_EXCEEDED, "context deadline exceeded")
                yield proc_pb.StartResponse(event=event)
        finally:
            if not pump.done() and process.returncode is None and deadline:
                _signal(process, signal.SIGKILL)  # the stream's deadline ends the process, as in envd

    @staticmethod
    async def _next_event(proc: _Proc, ctx: RequestContext[Any, Any]) -> Any:
        """The next queued event, or a keepalive event after the interval the client asked for."""
        interval = ctx.request_headers.get("keepalive-ping-interval")
        if not interval:
            return await proc.events.get()
        try:
            return await asyncio.wait_for(proc.events.get(), float(interval))
        except TimeoutError:
            return _process_event("keepalive", proc_pb.ProcessEvent.KeepAlive())

    async def _pump(self, proc: _Proc, deadline: float | None) -> None:
        """Forward output chunks as data events, then the end event (killing at the deadline)."""
        process = proc.process

        async def forward(stream: asyncio.StreamReader | None, name: str) -> None:
            assert stream is not None
            while chunk := await stream.read(32 * 1024):
                data = proc_pb.ProcessEvent.DataEvent(output=Oneof(name, chunk))  # type: ignore[arg-type]
                await proc.events.put(_process_event("data", data))

        readers = asyncio.gather(forward(process.stdout, "stdout"), forward(process.stderr, "stderr"))
        try:
            await asyncio.wait_for(asyncio.shield(readers), deadline)
        except TimeoutError:
            _signal(process, signal.SIGKILL)  # envd's process context ends with the request's
            await readers
            await process.wait()
            self._s._procs.pop(process.pid, None)
            await proc.events.put(_DEADLINE)
            return
        returncode = await process.wait()
        self._s._procs.pop(process.pid, None)
        await proc.events.put(_process_event("end", _end_event(returncode)))
        await proc.events.put(None)

    def _find(self, selector: proc_pb.ProcessSelector | None) -> _Proc:
        chosen = selector.selector if selector is not None else None
        if chosen is None:
            raise ConnectError(Code.INVALID_ARGUMENT, "no process selector")
        for pid, proc in self._s._procs.items():
            if (chosen.field, chosen.value) in (("pid", pid), ("tag", proc.tag)) and proc.process.returncode is None:
                return proc
        raise ConnectError(Code.NOT_FOUND, f"process with {chosen.field} {chosen.value} not found")

    async def list(self, request: proc_pb.ListRequest, ctx: RequestContext[Any, Any]) -> proc_pb.ListResponse:
        return proc_pb.ListResponse(
            processes=[
                proc_pb.ProcessInfo(config=p.config, pid=pid, tag=p.tag)
                for pid, p in self._s._procs.items()
                if p.process.returncode is None
            ]
        )

    async def send_signal(
        self, request: proc_pb.SendSignalRequest, ctx: RequestContext[Any, Any]
    ) -> proc_pb.SendSignalResponse:
        proc = self._find(request.process)
        sig = {proc_pb.Signal.SIGKILL: signal.SIGKILL, proc_pb.Signal.SIGTERM: signal.SIGTERM}.get(request.signal)
        if sig is None:
            raise ConnectError(Code.INVALID_ARGUMENT, f"invalid signal: {request.signal}")
        _signal(proc.process, sig)
        return proc_pb.SendSignalResponse()

    async def send_input(
        self, request: proc_pb.SendInputRequest, ctx: RequestContext[Any, Any]
    ) -> proc_pb.SendInputResponse:
        proc = self._find(request.process)
        if proc.process.stdin is None:
            raise ConnectError(Code.FAILED_PRECONDITION, "stdin not enabled or closed")
        chosen = request.input.input if request.input is not None else None
        if chosen is not None and chosen.field == "stdin":
            proc.process.stdin.write(chosen.value)
            await proc.process.stdin.drain()
        return proc_pb.SendInputResponse()

    async def close_stdin(
        self, request: proc_pb.CloseStdinRequest, ctx: RequestContext[Any, Any]
    ) -> proc_pb.CloseStdinResponse:
        proc = self._find(request.process)
        if proc.process.stdin is not None:
            proc.process.stdin.close()
        return proc_pb.CloseStdinResponse()


def _signal(process: asyncio.subprocess.Process, sig: int) -> None:
    """Signal the process group, as the whole command (bash and its children) ends in envd."""
    with contextlib.suppress(ProcessLookupError):
        os.killpg(process.pid, sig)


@contextlib.contextmanager
def running_server(folder: Path) -> Iterator[EnvdServer]:
    """A started server whose sandbox is ``folder``, stopped afterwards.

    A server that cannot start skips the test, or fails it under ``OFFLOAD_REQUIRE_E2B=1``.
    """
    from tests.conftest import require

    server = EnvdServer(folder)
    try:
        server.start()
    except Exception as exc:
        require("OFFLOAD_REQUIRE_E2B", f"the envd test server cannot start: {exc}")
        raise
    try:
        yield server
    finally:
        server.stop()
