"""The store under FsspecWorkspace and FsspecStorage: an fsspec filesystem (its async API on
asyncio when it has one, worker threads otherwise), or, for ``file://``, descriptors only."""

from __future__ import annotations

import contextlib
import errno
import functools
import inspect
import stat as stat_mod
from datetime import datetime
from typing import Any

import anyio
import anyio.to_thread
import fsspec
import sniffio

from offloader.core.errors import PathOutsideWorkspace, WorkspaceClosed
from offloader.core.extras import MissingExtra

from ._confined import ConfinedTree

__all__ = ["SEGMENTS", "ConfinedFiles", "Store", "mtime_of", "remove_local"]

#: Suffix of the folder holding an appended log's segment objects (``context.jsonl.d/``).
SEGMENTS = ".d"


class Store:
    """One fsspec filesystem: its async API on asyncio when it has one, worker threads otherwise."""

    def __init__(self, url: str, options: dict[str, Any]) -> None:
        protocol, _ = fsspec.core.split_protocol(url)
        self.protocol = protocol or "file"
        try:
            self.cls = fsspec.get_filesystem_class(self.protocol)
        except ImportError as exc:
            if self.protocol in ("s3", "s3a"):
                raise MissingExtra(f"{self.protocol}:// workspaces", "s3", "s3fs") from exc
            raise
        self.root = str(self.cls._strip_protocol(url)).rstrip("/")
        self.options = {"skip_instance_cache": True, "use_listings_cache": False, **options}
        self.is_async = False
        self.is_local = self.protocol in ("file", "local")
        self.local = ConfinedFiles(self.root) if self.is_local else None
        self.fs: Any = None
        self.conditional_create = False  # the store enforces pipe_file(mode="create") itself
        self.conditional_delete = self.protocol in ("s3", "s3a")  # DeleteObject with If-Match (until refused)
        self.lock = anyio.Lock()  # serialises check-then-write on stores without a conditional write

    async def open(self) -> None:
        if self.local is not None:  # file:// never goes through fsspec: descriptors only
            await anyio.to_thread.run_sync(self.local.tree.open)
            self.fs = self.local
            return
        self.is_async = bool(getattr(self.cls, "async_impl", False)) and sniffio.current_async_library() == "asyncio"
        if self.is_async:
            options = dict(self.options)
            if self.protocol in ("s3", "s3a") and "session" not in options:
                options["session"] = await anyio.to_thread.run_sync(_warm_botocore_session)
            self.fs = self.cls(asynchronous=True, **options)
            if hasattr(self.fs, "set_session"):
                await self.fs.set_session()
        else:
            self.fs = await anyio.to_thread.run_sync(functools.partial(self.cls, **self.options))
        # s3fs sends If-None-Match: * for mode="create" (versions whose pipe_file takes a mode)
        pipe = getattr(self.fs, "_pipe_file", None) or self.fs.pipe_file
        self.conditional_create = self.protocol in ("s3", "s3a") and "mode" in inspect.signature(pipe).parameters

    async def close(self) -> None:
        if self.local is not None and self.fs is not None:
            await anyio.to_thread.run_sync(self.local.tree.close)
        creator = getattr(self.fs, "_s3creator", None)
        if self.is_async and creator is not None:
            await creator.__aexit__(None, None, None)
        self.fs = None

    async def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if self.fs is None:
            raise WorkspaceClosed("the filesystem is not open")
        if self.is_async:
            return await getattr(self.fs, "_" + name)(*args, **kwargs)
        return await anyio.to_thread.run_sync(functools.partial(getattr(self.fs, name), *args, **kwargs))

    async def put(self, path: str, data: bytes, *, exclusive: bool, **kwargs: Any) -> bool:
        """Write one object atomically; with ``exclusive``, False if it already exists."""
        if self.local is not None:
            local = self.local
            return await anyio.to_thread.run_sync(lambda: local.tree.write(local.rel(path), data, exclusive=exclusive))
        if self.conditional_create:
            try:
                await self.call("pipe_file", path, data, mode="create" if exclusive else "overwrite", **kwargs)
            except FileExistsError:
                return False
            return True
        if not exclusive:
            await self.call("pipe_file", path, data, **kwargs)
            return True
        async with self.lock:  # best effort: no conditional write on this store
            if await self.call("exists", path):
                return False
            await self.call("pipe_file", path, data, **kwargs)
            return True

    async def refresh(self, path: str, data: bytes) -> None:
        """Rewrite ``path`` with its own bytes, so that it reads as just written.

        Where gc deletes with ``If-Match`` (S3), the rewrite also changes the ETag
        although the bytes stay the same: an object stored by a plain PUT is
        rewritten as a one-part multipart upload (ETag ``md5-1``) and the other way
        round. A gc delete carrying the ETag it checked before the refresh then
        fails (412) instead of removing a reference that was just handed out.
        """
        info = await self.info(path) if self.conditional_delete and data else None
        if info is None or "-" in str(info.get("ETag") or ""):
            await self.put(path, data, exclusive=False)
            return
        bucket, key, _ = self.fs.split_path(path)
        target = {"Bucket": bucket, "Key": key}
        upload = await self.call("call_s3", "create_multipart_upload", **target)
        try:
            part = await self.call(
                "call_s3", "upload_part", **target, UploadId=upload["UploadId"], PartNumber=1, Body=data
            )
            parts = {"Parts": [{"PartNumber": 1, "ETag": part["ETag"]}]}
            await self.call(
                "call_s3", "complete_multipart_upload", **target, UploadId=upload["UploadId"], MultipartUpload=parts
            )
        except BaseException:
            with anyio.CancelScope(shield=True):  # no half upload left behind (best effort: S3 may be gone)
                with contextlib.suppress(OSError):
                    await self.call("call_s3", "abort_multipart_upload", **target, UploadId=upload["UploadId"])
            raise
        self.fs.invalidate_cache(path)

    async def remove_exact(self, path: str, info: dict[str, Any]) -> bool:
        """Remove the object ``info`` describes; False if it changed meanwhile.

        On S3 the delete carries ``If-Match`` with the object's ETag, so an upload
        landing between the caller's last check and the delete makes it fail (412)
        instead of removing the new object. A store that refuses the header is
        then deleted from unconditionally (the window stays open there).
        """
        etag = info.get("ETag")
        if self.conditional_delete and etag:
            bucket, key, _ = self.fs.split_path(path)
            try:
                await self.call("call_s3", "delete_object", Bucket=bucket, Key=key, IfMatch=etag)
            except FileNotFoundError:
                return False
            except OSError as exc:
                code = _s3_error_code(exc)
                if code == "PreconditionFailed":
                    return False
                if code not in ("NotImplemented", "InvalidArgument", "InvalidRequest"):
                    raise
                self.conditional_delete = False  # this store has no conditional delete
            else:
                self.fs.invalidate_cache(path)
                return True
        await self.call("rm_file", path)
        return True

    async def find(self, path: str) -> dict[str, dict[str, Any]]:
        try:
            found = await self.call("find", path, detail=True)
        except FileNotFoundError:
            return {}
        return {name.rstrip("/"): info for name, info in found.items() if info.get("type") == "file"}

    async def info(self, path: str) -> dict[str, Any] | None:
        try:
            info: dict[str, Any] = await self.call("info", path)
        except FileNotFoundError:
            return None
        return info


class ConfinedFiles:
    """The fsspec calls this module makes, for ``file://``, through descriptors (:class:`ConfinedTree`).

    A folder swapped for a symlink mid-call can make a call fail, never reach
    outside the root (see ``workspaces._beneath``).
    """

    def __init__(self, root: str) -> None:
        self.root = root
        self.tree = ConfinedTree(root)

    def rel(self, path: str) -> str:
        path = path.rstrip("/")
        if path == self.root:
            return ""
        if not path.startswith(self.root + "/"):
            raise PathOutsideWorkspace(f"{path} is outside {self.root}")
        return path[len(self.root) + 1 :]

    def cat_file(self, path: str, start: int | None = None, end: int | None = None) -> bytes:
        return self.tree.read(self.rel(path), start or 0, end)

    def info(self, path: str) -> dict[str, Any]:
        st = self.tree.stat(self.rel(path))
        if st is None:
            raise FileNotFoundError(errno.ENOENT, "no such file", path)
        kind = "directory" if stat_mod.S_ISDIR(st.st_mode) else "file" if stat_mod.S_ISREG(st.st_mode) else "other"
        return {"name": path, "type": kind, "size": st.st_size, "mtime": st.st_mtime}

    def find(self, path: str, detail: bool = True) -> dict[str, dict[str, Any]]:
        rel = self.rel(path)
        info = self.info(path)
        if info["type"] == "file":
            return {path: info}
        prefix = f"{self.root}/"
        return {prefix + r: {"type": "file", "size": size, "mtime": mtime} for r, size, mtime in self.tree.list(rel)}

    def rm_file(self, path: str) -> None:
        self.tree.remove(self.rel(path))


def remove_local(tree: ConfinedTree, path: str, recursive: bool, ref: str) -> None:
    st = tree.stat(path)
    if st is not None and stat_mod.S_ISDIR(st.st_mode):
        if not recursive:
            if tree.stat(path + SEGMENTS) is None:
                raise IsADirectoryError(errno.EISDIR, "is a directory", ref)
        else:
            tree.remove(path, recursive=True)
    elif st is not None:
        tree.remove(path)
    tree.remove(path + SEGMENTS, recursive=True)


def _s3_error_code(exc: BaseException) -> str:
    """The S3 error code (``PreconditionFailed``, ...) behind an s3fs error, or ""."""
    seen: BaseException | None = exc
    while seen is not None:
        response = getattr(seen, "response", None)
        if isinstance(response, dict):
            return str(response.get("Error", {}).get("Code", ""))
        seen = seen.__cause__
    return ""


def mtime_of(info: dict[str, Any]) -> float:
    for key in ("mtime", "LastModified", "last_modified", "created", "updated"):
        value = info.get(key)
        if isinstance(value, datetime):
            return value.timestamp()
        if isinstance(value, (int, float)):
            return float(value)
        if isinstance(value, str):
            try:
                return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()
            except ValueError:
                continue
    return 0.0


def _warm_botocore_session() -> Any:
    """An aiobotocore session whose config files and S3 models are already read (in a worker thread).

    s3fs would read them on the event loop when it first connects: a throwaway
    client, made here on a private loop, loads them into the session's caches.
    """
    import asyncio

    from aiobotocore.session import AioSession  # type: ignore[import-untyped]

    session = AioSession()

    async def make_client() -> None:
        fake = {"aws_access_key_id": "warm", "aws_secret_access_key": "warm"}  # no request is sent
        async with session.create_client("s3", region_name="us-east-1", **fake):
            pass

    asyncio.run(make_client())
    return session
