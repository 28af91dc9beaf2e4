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

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ._removal import remove_victims
from ._retention_plan import RemovedFile, plan_removals, referenced_media
from .inventory import PIN_STATUSES, check_folder_name, inventory

if TYPE_CHECKING:
    from .base import Workspace

__all__ = ["PIN_STATUSES", "GcReport", "RemovedFile", "RetentionPolicy", "collect_garbage"]


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
    referenced = await referenced_media(ws, inv) if inv.media else set()
    plan = plan_removals(inv, policy, now, report, referenced)
    report.kept_files = len(plan.kept)
    report.kept_bytes = sum(f.size for f in plan.kept)
    if dry_run:
        report.removed = [removed for victim in plan.victims for removed in victim.removed()]
        return report
    await remove_victims(ws, inv, plan.victims, report, progress, now - policy.temp_grace)
    return report
