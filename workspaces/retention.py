"""Retention: which offloaded items to remove, and removing them without racing writers.

Works on any :class:`~workspaces.base.Workspace` through its primitives, so every
backend gets the same garbage collector. Use it as
``await workspace.gc(RetentionPolicy(...))``. What an *item* is (its file, its
index sidecars, its ledger lines) is defined once in :mod:`workspaces.inventory`.

Rules (``now`` is the time the collection starts, ``grace`` is ``temp_grace``):

1. Scope. Only ``sessions/`` and ``data/`` are considered; ``skills/`` and
   anything else is never touched. With ``session=...`` only that session's
   folder is considered and ``data/`` is left alone.
2. Grace. Nothing modified less than ``grace`` seconds ago is removed, on any
   path (expired sessions included), whatever the limits. Temp files
   (``.tmp-*``) older than ``grace`` are debris of a crashed writer and go.
3. Pins. An item is pinned when its folded ledger status
   (:func:`~workspaces.inventory.fold_status`) is one of
   :data:`~workspaces.inventory.PIN_STATUSES`, or when its file name appears in
   its session's ``state.json``. Pinned items are never removed, on any path.
4. Age. With ``max_age``, an unpinned item older than ``max_age`` goes. A
   session whose every file is older than ``max_age`` (and than ``grace``) is
   *expired*: its ``context.jsonl`` and ``taskmap.mmd`` go too, and its
   ``state.json`` unless it pins a kept item. A user pin (status ``pinned``)
   keeps the whole session. The ledger of an expired session stays, recording
   the removals; a later collection removes it once it is alone in its folder
   and older than ``max_age``.
5. Media. A ``data/`` file whose ``workspace:///data/...`` URL appears in a kept
   item or kept ``context.jsonl`` stays; unreferenced media follow ``max_age``
   and the limits like items.
6. Limits. While more than ``max_files`` items remain, or more than
   ``max_bytes`` bytes remain under ``sessions/`` and ``data/``, the oldest
   removable item goes (its size counts its index sidecars). When what must be
   kept alone exceeds a limit, ``over_limit`` says so.
7. Writers. The decision uses one listing; each removal then goes through the
   backend's ``_remove_if_unchanged``, which re-checks the file under the same
   lock appends take (or moves it aside and verifies), so a file a writer
   appended to, rewrote or offloaded again during the collection is kept.
8. Records. Every removed item and log gets a ``{"kind": "gc", "status":
   "removed"}`` line in its session's ledger. A ledger line naming a file that
   no longer exists (a collection killed before it wrote its lines) gets one too,
   and a stored result older than ``grace`` that no ledger line names (a writer
   killed with its ledger lines still buffered, see ``ledger_batch``) gets its
   offload line (``"reconciled": true``): after a crash the next collection
   makes the ledger agree with the files.

``dry_run`` computes the same list and removes nothing. A read-only workspace
raises :class:`~workspaces.errors.WorkspaceReadOnly` before anything is removed.
"""

from __future__ import annotations

import contextlib
import errno
import inspect
import time
from collections.abc import Awaitable, Callable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from offloader.core.backend import FileInfo
from offloader.core.errors import WorkspaceReadOnly
from offloader.core.layout import (
    CONTEXT_FILE,
    DATA_DIR,
    DATA_URL_PREFIX,
    LEDGER_FILE,
    SESSIONS_DIR,
    STATE_FILE,
    TASKMAP_FILE,
    TOOL_RESULT_PREFIX,
    estimate_tokens,
    ledger_line,
)

from .inventory import (
    PIN_STATUSES,
    REMOVED,
    Inventory,
    Item,
    SessionInventory,
    check_folder_name,
    fold_status,
    inventory,
    is_item_file,
)

if TYPE_CHECKING:
    from .base import Workspace

__all__ = ["PIN_STATUSES", "GcReport", "RemovedFile", "RetentionPolicy", "collect_garbage"]

_USER_PIN = "pinned"
_DATA_URL = f"{DATA_URL_PREFIX}data/".encode()
_EXPIRED_META = (CONTEXT_FILE, TASKMAP_FILE)


@dataclass(frozen=True, slots=True)
class RetentionPolicy:
    """What to keep. Every limit is optional; with none set only stale temp files go.

    ``max_age``: seconds since last modification; ``max_bytes``: total bytes under
    ``sessions/`` + ``data/``; ``max_files``: items (offloaded results + media);
    ``session``: restrict to one session id (as given to ``offload_*``);
    ``session_folder``: or to one session folder, named as ``offload ls`` prints it;
    ``temp_grace``: the grace period: nothing younger is ever removed.
    """

    max_age: float | None = None
    max_bytes: int | None = None
    max_files: int | None = None
    session: str | None = None
    temp_grace: float = 600.0
    session_folder: str | None = None

    def __post_init__(self) -> None:
        for name in ("max_age", "max_bytes", "max_files"):
            value = getattr(self, name)
            if value is not None and (isinstance(value, bool) or not isinstance(value, int | float) or value < 0):
                raise ValueError(f"{name} must be a non-negative number or None, got {value!r}")
        if isinstance(self.temp_grace, bool) or not isinstance(self.temp_grace, int | float) or self.temp_grace < 0:
            raise ValueError(f"temp_grace must be a non-negative number, got {self.temp_grace!r}")
        if self.session is not None and (not isinstance(self.session, str) or not self.session):
            raise ValueError("session must be a non-empty str or None")
        if self.session_folder is not None:
            check_folder_name(self.session_folder)
            if self.session is not None:
                raise ValueError("give session or session_folder, not both")


@dataclass(frozen=True, slots=True)
class RemovedFile:
    """One file the collection removed (or would remove with ``dry_run``), and why."""

    path: str
    size: int
    reason: str  # "expired-session" | "age" | "max-files" | "max-bytes" | "stale-temp" | "orphan-sidecar"


@dataclass(slots=True)
class GcReport:
    """What a collection did: removed files, what was pinned, what remains."""

    dry_run: bool
    removed: list[RemovedFile] = field(default_factory=list)
    scanned: int = 0
    pinned: int = 0
    kept_files: int = 0
    kept_bytes: int = 0
    over_limit: list[str] = field(default_factory=list)
    skipped_changed: int = 0

    @property
    def removed_bytes(self) -> int:
        return sum(r.size for r in self.removed)

    def as_dict(self) -> dict[str, Any]:
        return {
            "dry_run": self.dry_run,
            "scanned": self.scanned,
            "removed_files": len(self.removed),
            "removed_bytes": self.removed_bytes,
            "pinned": self.pinned,
            "kept_files": self.kept_files,
            "kept_bytes": self.kept_bytes,
            "over_limit": self.over_limit,
            "skipped_changed": self.skipped_changed,
            "removed": [{"path": r.path, "size": r.size, "reason": r.reason} for r in self.removed],
        }


@dataclass(slots=True)
class _Victim:
    """One thing to remove: an item (file + sidecars) or a single file, and its session."""

    files: list[FileInfo]
    reason: str
    session: str = ""  # "" for media and temp files: no ledger line
    record: bool = True


@dataclass(slots=True)
class _Plan:
    victims: list[_Victim] = field(default_factory=list)
    kept: list[FileInfo] = field(default_factory=list)
    candidates: list[tuple[Item, str]] = field(default_factory=list)


def _pinned(s: SessionInventory, item: Item) -> bool:
    name = item.path.rsplit("/", 1)[-1]
    return item.pinned or (bool(s.state) and name.encode() in s.state)


def _plan_session(s: SessionInventory, policy: RetentionPolicy, now: float, plan: _Plan, report: GcReport) -> None:
    grace = policy.temp_grace

    def fresh(f: FileInfo) -> bool:
        return now - f.mtime <= grace

    def old(f: FileInfo) -> bool:
        return policy.max_age is not None and now - f.mtime > policy.max_age and not fresh(f)

    for t in s.temps:
        if not fresh(t):
            plan.victims.append(_Victim([t], "stale-temp", record=False))
    everything = [*s.files, *s.temps]
    user_pinned = any(item.status == _USER_PIN for item in s.items.values())
    expired = bool(everything) and all(old(f) for f in everything) and not user_pinned
    kept_pins = False
    for item in s.items.values():
        if _pinned(s, item):
            report.pinned += 1
            kept_pins = True
            plan.kept.extend(item.files)
        elif fresh(item.file):
            plan.kept.extend(item.files)
        elif old(item.file):
            plan.victims.append(_Victim(item.files, "expired-session" if expired else "age", s.name))
        else:
            plan.candidates.append((item, s.name))
            plan.kept.extend(item.files)
    for f in s.orphans:
        if not fresh(f):
            plan.victims.append(_Victim([f], "orphan-sidecar", record=False))
    for name, f in s.meta.items():
        goes = expired and (name in _EXPIRED_META or name.startswith(f"{STATE_FILE}.invalid-"))
        goes = goes or (expired and name == STATE_FILE and not kept_pins)
        if name == LEDGER_FILE and expired and not kept_pins and set(s.meta) == {LEDGER_FILE} and not s.items:
            plan.victims.append(_Victim([f], "expired-session", record=False))  # a tombstone alone: last step
        elif goes:
            plan.victims.append(_Victim([f], "expired-session", s.name))
        else:
            plan.kept.append(f)


def _plan(inv: Inventory, policy: RetentionPolicy, now: float, report: GcReport, referenced: set[str]) -> _Plan:
    plan = _Plan()
    for s in inv.sessions.values():
        _plan_session(s, policy, now, plan, report)
    grace = policy.temp_grace
    for t in inv.media_temps:
        if now - t.mtime > grace:
            plan.victims.append(_Victim([t], "stale-temp", record=False))
    for item in inv.media.values():
        if item.path in referenced or now - item.mtime <= grace:
            plan.kept.extend(item.files)
        elif policy.max_age is not None and now - item.mtime > policy.max_age:
            plan.victims.append(_Victim(item.files, "age", record=False))
        else:
            plan.candidates.append((item, ""))
            plan.kept.extend(item.files)
    _apply_limits(policy, plan, report)
    return plan


def _apply_limits(policy: RetentionPolicy, plan: _Plan, report: GcReport) -> None:
    """Evict the fewest, oldest candidates (item + sidecars) until ``max_files`` / ``max_bytes`` hold."""
    if policy.max_files is None and policy.max_bytes is None:
        return
    doomed = {f.path for v in plan.victims for f in v.files}
    counted = [f for f in plan.kept if f.path not in doomed]
    n_bytes = sum(f.size for f in counted)
    n_items = sum(1 for f in counted if is_item_file(f.path))
    gone: set[str] = set()
    for item, session in sorted(plan.candidates, key=lambda c: (c[0].mtime, c[0].path)):
        over_files = policy.max_files is not None and n_items > policy.max_files
        over_bytes = policy.max_bytes is not None and n_bytes > policy.max_bytes
        if not (over_files or over_bytes):
            break
        plan.victims.append(_Victim(item.files, "max-files" if over_files else "max-bytes", session, bool(session)))
        gone.update(f.path for f in item.files)
        n_items -= 1
        n_bytes -= item.size
    plan.kept[:] = [f for f in plan.kept if f.path not in gone]
    if policy.max_files is not None and n_items > policy.max_files:
        report.over_limit.append(f"{n_items} items kept (pinned or fresh) > max_files {policy.max_files}")
    if policy.max_bytes is not None and n_bytes > policy.max_bytes:
        report.over_limit.append(f"{n_bytes} bytes kept (pinned or fresh) > max_bytes {policy.max_bytes}")


async def _referenced_media(ws: Workspace, inv: Inventory) -> set[str]:
    """``data/`` paths whose URL appears in any item or ``context.jsonl`` (conservative: all are read)."""
    found: set[str] = set()
    for s in inv.sessions.values():
        files = [item.file for item in s.items.values()]
        if CONTEXT_FILE in s.meta:
            files.append(s.meta[CONTEXT_FILE])
        for f in files:
            try:
                data = await ws._read(f.path)
            except FileNotFoundError:
                continue
            pos = data.find(_DATA_URL)
            while pos >= 0:
                start = end = pos + len(_DATA_URL)
                while end < len(data) and data[end : end + 1] not in b"\"'<> \n\\)":
                    end += 1
                found.add(f"{DATA_DIR}/" + data[start:end].decode("utf-8", "replace"))
                pos = data.find(_DATA_URL, end)
    return found


async def collect_garbage(
    ws: Workspace,
    policy: RetentionPolicy,
    *,
    dry_run: bool = False,
    progress: Callable[[int, int], Awaitable[None] | None] | None = None,
    now: float | None = None,
) -> GcReport:
    """Apply ``policy`` to ``ws``; return what was (or, with ``dry_run``, would be) removed.

    ``progress(done, total)`` is called (and awaited if it returns an awaitable)
    before each removal. ``now``: the collection's clock (default: the current time).
    """
    now = time.time() if now is None else now
    inv = await inventory(ws, policy.session, folder=policy.session_folder, read_state=True)
    report = GcReport(dry_run=dry_run, scanned=inv.scanned)
    referenced = await _referenced_media(ws, inv) if inv.media else set()
    plan = _plan(inv, policy, now, report, referenced)
    report.kept_files = len(plan.kept)
    report.kept_bytes = sum(f.size for f in plan.kept)
    if dry_run:
        report.removed = [RemovedFile(f.path, f.size, v.reason) for v in plan.victims for f in v.files]
        return report
    await _remove_all(ws, inv, plan.victims, report, progress, now - policy.temp_grace)
    return report


async def _remove_all(
    ws: Workspace,
    inv: Inventory,
    victims: list[_Victim],
    report: GcReport,
    progress: Callable[[int, int], Awaitable[None] | None] | None,
    fresh_after: float,
) -> None:
    """Remove victims (each re-checked against its listing), then record the removals in ledgers."""
    lines: dict[str, list[dict[str, Any]]] = {}
    gone: set[str] = set()
    last = [v for v in victims if v.files[0].path.endswith(LEDGER_FILE)]  # lone tombstones go last
    ordered = [v for v in victims if v not in last] + last
    intents: dict[str, list[str]] = {}  # announced first: a collection killed mid-way leaves a record
    for v in ordered:
        if v.record and v.session:
            intents.setdefault(v.session, []).append(ws.reference(v.files[0].path))
    for session, refs in intents.items():
        with _writable(ws):
            line = ledger_line({"kind": "gc-intent", "intent": "remove", "refs": refs})
            await ws._append(f"{SESSIONS_DIR}/{session}/{LEDGER_FILE}", line)
    for i, victim in enumerate(ordered, 1):
        if progress is not None:
            step = progress(i, len(ordered))
            if inspect.isawaitable(step):
                await step
        head, *sidecars = victim.files
        with _writable(ws):
            removed = await ws._remove_if_unchanged(head.path, head)
        if not removed:
            report.skipped_changed += 1  # changed or gone since the listing: a live writer
            continue
        for side in sidecars:
            await ws._remove(side.path)
        report.removed.extend(RemovedFile(f.path, f.size, victim.reason) for f in victim.files)
        gone.add(head.path)
        if victim.record and victim.session:
            entry = {
                "time": round(time.time(), 6),  # the moment of removal: the fold orders by it
                "kind": "gc",
                "ref": ws.reference(head.path),
                "status": REMOVED,
                "reason": victim.reason,
            }
            lines.setdefault(victim.session, []).append(entry)
    await _missing_lines(ws, inv, lines)
    _unrecorded_lines(ws, inv, lines, gone, fresh_after)
    for session, entries in lines.items():
        if f"{SESSIONS_DIR}/{session}/{LEDGER_FILE}" in gone:
            continue  # the session went whole: no ledger to recreate
        data = b"".join(ledger_line(e) for e in entries)
        with _writable(ws):
            await ws._append(f"{SESSIONS_DIR}/{session}/{LEDGER_FILE}", data)


@contextlib.contextmanager
def _writable(ws: Workspace) -> Iterator[None]:
    """A read-only filesystem or a permission error becomes one clear WorkspaceReadOnly."""
    try:
        yield
    except WorkspaceReadOnly:
        raise
    except OSError as exc:
        if isinstance(exc, PermissionError) or exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
            raise WorkspaceReadOnly(
                f"gc cannot change {ws.workdir}: {exc.strerror or exc} (read-only? --dry-run only reads)"
            ) from exc
        raise


def _unrecorded_lines(
    ws: Workspace, inv: Inventory, lines: dict[str, list[dict[str, Any]]], gone: set[str], fresh_after: float
) -> None:
    """Offload lines for stored results no ledger line names (a writer died before its line was written).

    Only results older than the grace period: a younger one may still get its line from a live writer.
    """
    for s in inv.sessions.values():
        for item in s.items.values():
            name = item.path.rsplit("/", 1)[-1]
            if item.entries or item.path in gone or not name.startswith(TOOL_RESULT_PREFIX):
                continue
            if item.mtime >= fresh_after:
                continue
            entry = {
                "time": round(item.mtime, 6),
                "kind": "tool_result",
                "ref": ws.reference(item.path),
                "bytes": item.file.size,
                "tokens": estimate_tokens(item.file.size),
                "status": "offloaded",
                "reconciled": True,
            }
            lines.setdefault(s.name, []).insert(0, entry)


async def _missing_lines(ws: Workspace, inv: Inventory, lines: dict[str, list[dict[str, Any]]]) -> None:
    """Removal lines for files the ledger names but that are gone (a collection killed mid-way).

    A collection announces what it is about to remove (an ``intent`` line); a
    ref announced so, or recorded as offloaded, whose file is missing gets its
    ``removed`` line, stamped with the announcement's time when there is one.
    """
    for s in inv.sessions.values():
        if not s.ledger:
            continue
        present = {f.path.rsplit("/", 1)[-1] for f in s.files}
        refs: dict[str, list[dict[str, Any]]] = {}
        announced: dict[str, float] = {}
        for e in s.ledger:
            ref = e.get("ref")
            if isinstance(ref, str) and e.get("kind") in ("tool_result", "context", "gc", "compaction"):
                refs.setdefault(ref, []).append(e)
            if e.get("intent") == "remove" and isinstance(e.get("refs"), list):
                for r in e["refs"]:
                    if isinstance(r, str):
                        refs.setdefault(r, [])
                        announced[r] = float(e.get("time", 0.0) or 0.0)
        done = {e["ref"] for e in lines.get(s.name, [])}
        for ref, entries in refs.items():
            name = ref.rsplit("/", 1)[-1]
            status = fold_status(entries)
            if ref in done or name in present or status == REMOVED or (status == "" and ref not in announced):
                continue
            try:
                rel = ws.relative(ref)
            except ValueError:
                continue
            if not rel.startswith(f"{SESSIONS_DIR}/{s.name}/") or await ws._stat(rel) is not None:
                continue  # another session's file, or written after the listing
            entry: dict[str, Any] = {"kind": "gc", "ref": ref, "status": REMOVED, "reason": "interrupted"}
            if ref in announced:
                entry["time"] = announced[ref]
            lines.setdefault(s.name, []).append(entry)
