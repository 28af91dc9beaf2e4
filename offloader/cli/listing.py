"""``offload ls`` and ``offload stats``."""

from __future__ import annotations

import time
from typing import Any

import click

from ._common import emit_json, human_age, human_bytes, json_option, run_async, table, with_ws, workdir_option
from .inventory import _basename, _inventory

__all__ = ["ls_command", "stats"]


@click.command("ls")
@workdir_option
@json_option
@click.argument("session", required=False)
def ls_command(workdir: str, as_json: bool, session: str | None) -> None:
    """List sessions, or the offloaded items of SESSION (size, tokens, tool, age)."""
    sessions = run_async(with_ws, workdir, lambda ws: _inventory(ws, session))
    now = time.time()
    if session is None:
        rows = [
            {
                "session": s.name,
                "items": len(s.items),
                "bytes": s.bytes,
                "tokens": sum(i.tokens for i in s.items),
                "last_modified": s.last,
            }
            for s in sessions
        ]
        if as_json:
            emit_json(rows)
            return
        table(
            f"{len(rows)} sessions in {workdir}",
            ["session", "items", "size", "tokens", "age"],
            [
                [r["session"], r["items"], human_bytes(r["bytes"]), r["tokens"], human_age(now - r["last_modified"])]
                for r in rows
            ],
        )
        return
    if not sessions:
        raise click.ClickException(f"no session {session!r} in {workdir}")
    items = sorted(sessions[0].items, key=lambda i: i.mtime)
    if as_json:
        emit_json(
            [
                {
                    "path": i.path,
                    "bytes": i.size,
                    "tokens": i.tokens,
                    "tool": i.tool,
                    "status": i.status,
                    "mtime": i.mtime,
                }
                for i in items
            ]
        )
        return
    table(
        f"{len(items)} items in session {session}",
        ["item", "tool", "size", "tokens", "status", "age"],
        [
            [_basename(i.path), i.tool[:40], human_bytes(i.size), i.tokens, i.status, human_age(now - i.mtime)]
            for i in items
        ],
    )


@click.command()
@workdir_option
@json_option
def stats(workdir: str, as_json: bool) -> None:
    """Counts, bytes and tokens kept out of context, per session and per tool.

    Tokens are summed over the ledgers (what each offload kept out of context).
    Torn final lines of context.jsonl / ledger.jsonl (a writer killed mid-line)
    are reported; readers skip them.
    """
    sessions = run_async(with_ws, workdir, lambda ws: _inventory(ws, None, check_torn=True))
    per_session = []
    per_tool: dict[str, dict[str, Any]] = {}
    totals = {
        "sessions": len(sessions),
        "items": 0,
        "bytes": 0,
        "offloads": 0,
        "tokens_offloaded": 0,
        "context_messages": 0,
        "removed_by_gc": 0,
    }
    torn: list[str] = []
    for s in sessions:
        row = {
            "session": s.name,
            "items": len(s.items),
            "bytes": s.bytes,
            "offloads": 0,
            "tokens_offloaded": 0,
            "context_messages": 0,
        }
        for e in s.ledger:
            kind = e.get("kind")
            if kind == "tool_result":
                tokens = int(e.get("tokens", 0) or 0)
                row["offloads"] += 1
                row["tokens_offloaded"] += tokens
                tool = per_tool.setdefault(
                    str(e.get("tool", "")),
                    {"tool": str(e.get("tool", "")), "offloads": 0, "bytes": 0, "tokens_offloaded": 0},
                )
                tool["offloads"] += 1
                tool["bytes"] += int(e.get("bytes", 0) or 0)
                tool["tokens_offloaded"] += tokens
            elif kind == "context":
                row["context_messages"] += int(e.get("messages", 0) or 0)
            elif kind == "gc":
                totals["removed_by_gc"] += 1
        for key in ("items", "bytes", "offloads", "tokens_offloaded", "context_messages"):
            totals[key] += row[key]
        per_session.append(row)
        torn.extend(s.torn)
    tools = sorted(per_tool.values(), key=lambda t: -t["tokens_offloaded"])
    if as_json:
        emit_json({"totals": totals, "sessions": per_session, "tools": tools, "torn_lines": torn})
        return
    table(f"Totals for {workdir}", list(totals), [list(totals.values())])
    table(
        "By tool",
        ["tool", "offloads", "bytes", "tokens offloaded"],
        [[t["tool"][:50], t["offloads"], human_bytes(t["bytes"]), t["tokens_offloaded"]] for t in tools[:30]],
    )
    top = sorted(per_session, key=lambda r: -r["tokens_offloaded"])[:30]
    table(
        f"By session (top {len(top)} of {len(per_session)})",
        ["session", "items", "size", "offloads", "tokens offloaded", "context msgs"],
        [
            [
                r["session"],
                r["items"],
                human_bytes(r["bytes"]),
                r["offloads"],
                r["tokens_offloaded"],
                r["context_messages"],
            ]
            for r in top
        ],
    )
    if torn:
        click.echo(f"torn final lines (skipped by readers): {', '.join(torn)}")
