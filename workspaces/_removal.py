"""Retention's removals: carrying out a plan without racing writers, and keeping the ledger true.

Each removal re-checks its file against the listing the plan was made from
(``_remove_if_unchanged``), announces itself in the session's ledger first, and
records itself after; a collection killed part-way is completed by the next one.
"""

from __future__ import annotations

import contextlib
import errno
import inspect
import time
from collections.abc import Awaitable, Callable, Iterator
from typing import TYPE_CHECKING, Any

from offloader.core.errors import WorkspaceReadOnly
from offloader.core.layout import LEDGER_FILE, SESSIONS_DIR, TOOL_RESULT_PREFIX, estimate_tokens, ledger_line

from ._retention_plan import Victim
from .inventory import REMOVED, Inventory, fold_status

if TYPE_CHECKING:
    from .base import Workspace
    from .retention import GcReport

__all__ = ["remove_victims"]


async def remove_victims(
    ws: Workspace,
    inv: Inventory,
    victims: list[Victim],
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
        report.removed.extend(victim.removed())
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
