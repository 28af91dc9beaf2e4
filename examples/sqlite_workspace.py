"""A custom workspace backend: offloaded content in one SQLite database file.

The whole backend is the class below: it declares its capabilities and
implements the six primitives over a table ``files(path, data, mtime)``; the
base class gives it the layout, naming, confinement, offloading, Read/Grep/Glob,
retrieval and gc. Blocking sqlite3 calls run in worker threads, one at a time on
one connection. ``tests/test_sqlite_example.py`` runs the conformance suite
(``workspaces.testing``) on it; docs/write-a-backend.md walks through it. Run::

    python examples/sqlite_workspace.py [DATABASE]

Install (from a checkout): ``pip install -e .``.
"""

from __future__ import annotations

import errno
import os
import sqlite3
import sys
import tempfile
import threading
import time
from collections.abc import Callable, Sequence
from typing import TypeVar

import anyio
import anyio.to_thread

from offloader.core.backend import Capabilities, FileInfo
from workspaces import NotEnoughSpace, Workspace

T = TypeVar("T")

_SCHEMA = "CREATE TABLE IF NOT EXISTS files (path TEXT PRIMARY KEY, data BLOB NOT NULL, mtime REAL NOT NULL)"


class SqliteWorkspace(Workspace):
    """Offloaded content in a SQLite database; references are ``sqlite:///{database}/{path}``.

    ``max_bytes`` caps the database size (SQLite's ``max_page_count``): a write
    past it raises NotEnoughSpace and leaves nothing behind.
    """

    # No commands, no search engine next to the data; SQLite appends and inserts
    # atomically (one transaction each), also across processes.
    capabilities = Capabilities(exec=False, native_grep=False, append=True, exclusive_write=True)

    def __init__(self, database: str | os.PathLike[str], *, max_bytes: int | None = None) -> None:
        self.database = os.path.abspath(os.fspath(database))
        super().__init__(f"sqlite://{self.database}")
        self._max_bytes = max_bytes
        self._db: sqlite3.Connection | None = None
        self._lock = threading.Lock()  # one statement at a time on the shared connection

    async def _run(self, work: Callable[[sqlite3.Connection], T]) -> T:
        """Run ``work`` in a worker thread, in one transaction; SQLITE_FULL becomes NotEnoughSpace."""

        def call() -> T:
            with self._lock:
                assert self._db is not None, "the workspace is not open"
                try:
                    with self._db:  # commits, or rolls back on an exception
                        return work(self._db)
                except sqlite3.OperationalError as exc:
                    if "full" in str(exc):
                        raise NotEnoughSpace(errno.ENOSPC, f"{self.database} is full: {exc}") from exc
                    raise

        return await anyio.to_thread.run_sync(call)

    async def _open(self) -> None:
        def connect() -> None:
            db = sqlite3.connect(self.database, check_same_thread=False, timeout=30, isolation_level=None)
            db.execute("PRAGMA journal_mode=WAL")
            db.execute(_SCHEMA)
            if self._max_bytes is not None:
                page = db.execute("PRAGMA page_size").fetchone()[0]
                db.execute(f"PRAGMA max_page_count = {max(1, self._max_bytes // page)}")
            db.isolation_level = "IMMEDIATE"  # every transaction takes the write lock up front
            self._db = db

        await anyio.to_thread.run_sync(connect)

    async def _close(self) -> None:
        if self._db is not None:
            db, self._db = self._db, None
            await anyio.to_thread.run_sync(db.close)

    # ------------------------------------------------------------ primitives

    async def _read(self, path: str, start: int = 0, end: int | None = None) -> bytes:
        length = -1 if end is None else end - start  # substr counts from 1; -1: to the end
        sql = "SELECT substr(data, ?, CASE WHEN ? < 0 THEN length(data) ELSE ? END) FROM files WHERE path = ?"
        row = await self._run(lambda db: db.execute(sql, (start + 1, length, length, path)).fetchone())
        if row is None:
            raise FileNotFoundError(errno.ENOENT, "no such file", self.reference(path))
        return bytes(row[0])

    async def _write(self, files: Sequence[tuple[str, bytes]], *, exclusive: bool = False) -> list[bool]:
        verb = "INSERT OR IGNORE" if exclusive else "INSERT OR REPLACE"
        now = time.time()

        sql = f"{verb} INTO files (path, data, mtime) VALUES (?, ?, ?)"  # one transaction: all or nothing
        return await self._run(lambda db: [db.execute(sql, (p, data, now)).rowcount == 1 for p, data in files])

    async def _append(self, path: str, data: bytes) -> None:
        # One statement, so concurrent appends never interleave; ``||`` yields text, CAST keeps the bytes.
        sql = (
            "INSERT INTO files (path, data, mtime) VALUES (?, ?, ?) ON CONFLICT(path) DO UPDATE "
            "SET data = CAST(data || excluded.data AS BLOB), mtime = excluded.mtime"
        )
        await self._run(lambda db: db.execute(sql, (path, data, time.time())))

    async def _list(self, path: str) -> list[FileInfo]:
        low, high = _prefix_range(path)
        sql = "SELECT path, length(data), mtime FROM files WHERE path >= ? AND path < ? ORDER BY path"
        rows = await self._run(lambda db: db.execute(sql, (low, high)).fetchall())
        return [FileInfo(p, size, mtime) for p, size, mtime in rows]

    async def _stat(self, path: str) -> FileInfo | None:
        sql = "SELECT length(data), mtime FROM files WHERE path = ?"
        row = await self._run(lambda db: db.execute(sql, (path,)).fetchone())
        return None if row is None else FileInfo(path, row[0], row[1])

    async def _remove(self, path: str, *, recursive: bool = False) -> None:
        def remove(db: sqlite3.Connection) -> None:
            if db.execute("DELETE FROM files WHERE path = ?", (path,)).rowcount == 0 and _is_folder(db, path):
                if not recursive:
                    raise IsADirectoryError(errno.EISDIR, "is a directory", self.reference(path))
                db.execute("DELETE FROM files WHERE path >= ? AND path < ?", _prefix_range(path))

        await self._run(remove)


def _prefix_range(folder: str) -> tuple[str, str]:
    """Key range of every path under ``folder`` ("" = all): ``folder/`` up to ``folder0``."""
    return (f"{folder}/", f"{folder}0") if folder else ("", "\U0010ffff")


def _is_folder(db: sqlite3.Connection, path: str) -> bool:
    found = db.execute("SELECT 1 FROM files WHERE path >= ? AND path < ? LIMIT 1", _prefix_range(path))
    return found.fetchone() is not None


async def main(database: str) -> None:
    async with SqliteWorkspace(database) as ws:
        log = "\n".join(f"step {i}: ok" for i in range(5000)) + "\nstep 5000: FAILED (disk quota)\n"
        ref = await ws.offload_tool_result("demo", {"type": "tool_result", "tool_use_id": "build", "content": log})
        print("offloaded to", ref)
        print(await ws.grep("FAILED"))
        assert "step 5000: FAILED" in await ws.read(ref, offset=5001, limit=1)
        print("OK: the log is in", database)


if __name__ == "__main__":
    target = sys.argv[1] if len(sys.argv) > 1 else os.path.join(tempfile.mkdtemp(), "offload.db")
    anyio.run(main, target)
