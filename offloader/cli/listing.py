"""``offload ls`` and ``offload stats``: items as ``workspaces.inventory`` defines them (as gc does).

An item is an offloaded file with its index sidecars and its ledger lines: its
``bytes`` include the sidecars, its ``tokens`` are what its offload kept out of
context (the ledger's figure, counted once however often the same content was
offloaded; ``bytes / 4`` without a ledger line). A session's ``bytes`` are all
of its files (items, ledger, context log, state); temp files of writes in
flight are not counted.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING, Any

import anyio
import click

from ._common import emit_json, human_age, human_bytes, json_option, run_async, table, with_ws, workdir_option
from .names import resolve_session

if TYPE_CHECKING:
    from workspaces.inventory import Inventory, SessionInventory

__all__ = ["ls_command", "stats"]


def _s(n: int) -> str:
    return "" if n == 1 else "s"


def _session_row(s: SessionInventory) -> dict[str, Any]:
    return {
        "session": s.name,
        "items": len(s.items),
        "bytes": s.bytes,
        "tokens": sum(i.tokens for i in s.items.values()),
        "last_modified": s.last_modified,
    }


@click.command("ls")
@workdir_option
@json_option
@click.argument("session", required=False)
def ls_command(workdir: str, as_json: bool, session: str | None) -> None:
    """List sessions, or the offloaded items of SESSION (size, tokens, tool, status, age).

    SESSION is a name `offload ls` prints, or the session id given to offload_*.
    """

    async def go(ws: Any) -> tuple[Inventory, str]:
        from workspaces.inventory import inventory

        folder = await resolve_session(ws, session) if session is not None else None
        return await inventory(ws, folder=folder), ws.workdir

    inv, root = run_async(with_ws, workdir, go)
    now = time.time()
    if session is None:
        rows = [_session_row(s) for s in sorted(inv.sessions.values(), key=lambda s: s.name)]
        if as_json:
            emit_json({"workdir": root, "sessions": rows})
            return
        table(
            f"{len(rows)} session{_s(len(rows))} in {workdir}",
            ["session", "items", "size", "tokens", "age"],
            [
                [r["session"], r["items"], human_bytes(r["bytes"]), r["tokens"], human_age(now - r["last_modified"])]
                for r in rows
            ],
        )
        return
    (s,) = inv.sessions.values()
    items = sorted(s.items.values(), key=lambda i: (i.mtime, i.path))
    if as_json:
        emit_json(
            {
                "workdir": root,
                "session": s.name,
                "items": [
                    {
                        "name": i.path.rsplit("/", 1)[-1],
                        "path": i.path,
                        "ref": f"{root}/{i.path}",
                        "bytes": i.size,
                        "tokens": i.tokens,
                        "tool": i.tool,
                        "status": i.status,
                        "mtime": i.mtime,
                    }
                    for i in items
                ],
            }
        )
        return
    table(
        f"{len(items)} item{_s(len(items))} in session {s.name}",
        ["item", "tool", "size", "tokens", "status", "age"],
        [
            [i.path.rsplit("/", 1)[-1], i.tool[:40], human_bytes(i.size), i.tokens, i.status, human_age(now - i.mtime)]
            for i in items
        ],
    )


async def _torn_context_logs(ws: Any, inv: Inventory) -> list[str]:
    """Context logs whose final line is unterminated (a writer killed mid-append)."""
    torn: list[str] = []
    limiter = anyio.CapacityLimiter(32)

    async def check(path: str, size: int) -> None:
        async with limiter:
            if await ws.read_bytes(path, size - 1, size) != b"\n":
                torn.append(path)

    async with anyio.create_task_group() as tg:
        for s in inv.sessions.values():
            log = s.meta.get("context.jsonl")
            if log is not None and log.size:
                tg.start_soon(check, log.path, log.size)
    return sorted(torn)


@click.command()
@workdir_option
@json_option
def stats(workdir: str, as_json: bool) -> None:
    """Items, bytes and tokens kept out of context, per session and per tool.

    Items, bytes and tokens are counted as `offload ls` counts them. `offloads`
    counts offload events in the ledgers (the same content offloaded twice is
    two offloads of one item). Torn final lines of context.jsonl / ledger.jsonl
    (a writer killed mid-line) are reported; readers skip them.
    """

    async def go(ws: Any) -> tuple[Inventory, list[str]]:
        from workspaces.inventory import inventory

        inv = await inventory(ws)
        return inv, await _torn_context_logs(ws, inv)

    inv, torn = run_async(with_ws, workdir, go)
    sessions = sorted(inv.sessions.values(), key=lambda s: s.name)
    per_tool: dict[str, dict[str, Any]] = {}
    per_session = []
    for s in sessions:
        row = {**_session_row(s), "offloads": 0, "context_messages": 0, "removed_by_gc": 0}
        for e in s.ledger:
            kind = e.get("kind")
            if kind == "tool_result":
                row["offloads"] += 1
            elif kind == "context":
                row["context_messages"] += int(e.get("messages", 0) or 0)
            elif kind == "gc" and e.get("status") == "removed":
                row["removed_by_gc"] += 1
        for item in s.items.values():
            tool = per_tool.setdefault(item.tool, {"tool": item.tool, "items": 0, "bytes": 0, "tokens": 0})
            tool["items"] += 1
            tool["bytes"] += item.size
            tool["tokens"] += item.tokens
        per_session.append(row)
        torn.extend(s.torn)
    keys = ("items", "bytes", "tokens", "offloads", "context_messages", "removed_by_gc")
    totals = {"sessions": len(sessions), **{k: sum(r[k] for r in per_session) for k in keys}}
    totals["media"] = len(inv.media)
    totals["media_bytes"] = sum(m.size for m in inv.media.values())
    tools = sorted(per_tool.values(), key=lambda t: (-t["tokens"], t["tool"]))
    if as_json:
        emit_json({"totals": totals, "sessions": per_session, "tools": tools, "torn_lines": sorted(set(torn))})
        return
    table(f"Totals for {workdir}", list(totals), [list(totals.values())])
    table(
        "By tool",
        ["tool", "items", "size", "tokens"],
        [[t["tool"][:50] or "(none)", t["items"], human_bytes(t["bytes"]), t["tokens"]] for t in tools[:30]],
    )
    top = sorted(per_session, key=lambda r: -r["tokens"])[:30]
    table(
        f"By session (top {len(top)} of {len(per_session)})",
        ["session", "items", "size", "tokens", "offloads", "context msgs"],
        [
            [r["session"], r["items"], human_bytes(r["bytes"]), r["tokens"], r["offloads"], r["context_messages"]]
            for r in top
        ],
    )
    if torn:
        click.echo(f"torn final lines (skipped by readers): {', '.join(sorted(set(torn)))}")
