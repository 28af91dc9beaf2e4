"""``offload show`` and ``offload grep``: read offloaded content back."""

from __future__ import annotations

import re
from typing import Any

import click

from ._common import (
    DEFAULT_WORKDIR,
    WORKDIR_HELP,
    emit_json,
    explicit_workdir,
    json_option,
    positive_int_option,
    run_async,
    with_ws,
    workdir_option,
)
from .names import infer_workdir, resolve_item, resolve_session

__all__ = ["grep", "show"]


@click.command()
@click.option("--workdir", default=None, help=WORKDIR_HELP.replace("Default:", "Default: the workdir in REF, else"))
@click.option("--lines", "line_range", default=None, help="Line range A:B (1-based, inclusive).")
@click.option("--grep", "pattern", default=None, help="Only lines matching this RE2 pattern.")
@click.option(
    "--context",
    "context_lines",
    default=None,
    type=click.IntRange(0, 50),
    help="Lines of context around matches (or the first N lines alone).",
)
@click.option("-i", "--ignore-case", is_flag=True, help="Case-insensitive --grep.")
@click.option("--session", default=None, help="Look for a bare file name REF in this session only.")
@json_option
@click.argument("ref")
@click.pass_context
def show(
    ctx: click.Context,
    workdir: str | None,
    line_range: str | None,
    pattern: str | None,
    context_lines: int | None,
    ignore_case: bool,
    session: str | None,
    as_json: bool,
    ref: str,
) -> None:
    """Show offloaded content REF: the same engine as the retrieve_offloaded_content tool.

    REF is any name the CLI prints: a reference from a preview (absolute, or
    relative such as .offload/sessions/cli/tool_result-run-1.txt), a path in the
    workdir (sessions/..., data/...), or a file name from `offload ls SESSION`.
    """
    from offloader.retrieval import retrieve

    span: tuple[int, int] | None = None
    if line_range is not None:
        m = re.fullmatch(r"\s*(\d+)\s*[:-]\s*(\d+)\s*", line_range)
        if not m:
            raise click.BadParameter("use A:B, e.g. 10:20", param_hint="--lines")
        span = (int(m.group(1)), int(m.group(2)))
    folder = explicit_workdir(ctx, workdir) or infer_workdir(ref) or DEFAULT_WORKDIR

    async def go(ws: Any) -> tuple[str, str]:
        only = await resolve_session(ws, session) if session is not None else None
        found = ws.reference(await resolve_item(ws, ref, session=only))
        text = await retrieve(
            ws, found, pattern=pattern, line_range=span, context_lines=context_lines, ignore_case=ignore_case
        )
        return found, text

    found, text = run_async(with_ws, folder, go)
    text = _READ_ON.sub(lambda m: f"--lines {m.group(1)}:{m.group(2)}", text)
    if as_json:
        emit_json({"ref": found, "text": text})
    else:
        click.echo(text)


#: The retrieval engine's hint speaks to an agent's tool call; a person at the CLI gets the option.
_READ_ON = re.compile(r'line_range \{"start": (\d+), "end": (\d+)\}')


_HIT = re.compile(r"^\s*(\d+)([:-]) (.*)$")


@click.command()
@workdir_option
@click.option("--session", default=None, help="Only this session (the name `offload ls` prints, or the session id).")
@click.option(
    "--glob",
    "glob",
    default=None,
    help="Only files matching this glob. Default: offloaded content (tool results, context logs).",
)
@click.option("--context", default=0, type=click.IntRange(0, 50), help="Lines of context.")
@click.option("-i", "--ignore-case", is_flag=True, help="Case-insensitive matching.")
@positive_int_option("--max-matches", 100, "Stop after this many matching lines.")
@json_option
@click.argument("pattern")
def grep(
    workdir: str,
    session: str | None,
    glob: str | None,
    context: int,
    ignore_case: bool,
    max_matches: int,
    as_json: bool,
    pattern: str,
) -> None:
    """Search offloaded content for PATTERN (RE2) across sessions."""
    if glob is None:
        glob = "{tool_result-*.txt,context.jsonl}"  # content, not ledgers, state or indexes

    async def go(ws: Any) -> str:
        path = f"sessions/{await resolve_session(ws, session)}" if session is not None else "sessions"
        return str(
            await ws.grep(
                pattern, path=path, glob=glob, context=context, ignore_case=ignore_case, max_matches=max_matches
            )
        )

    text = run_async(with_ws, workdir, go)
    if not as_json:
        click.echo(text)
        return
    matches: list[dict[str, Any]] = []
    current = ""
    for line in text.splitlines()[1:]:
        hit = _HIT.match(line)
        if hit and current:
            matches.append(
                {"ref": current, "line": int(hit.group(1)), "match": hit.group(2) == ":", "text": hit.group(3)}
            )
        elif line and not line.startswith(("[", "--", "binary files")):
            current = line
    emit_json({"pattern": pattern, "matches": matches, "summary": text.splitlines()[0] if text else ""})
