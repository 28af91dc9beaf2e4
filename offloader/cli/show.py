"""``offload show`` and ``offload grep``: read offloaded content back."""

from __future__ import annotations

import re
from typing import Any

import click

from ._common import WORKDIR_HELP, emit_json, is_url, json_option, run_async, with_ws, workdir_option

__all__ = ["grep", "show"]


@click.command()
@click.option(
    "--workdir",
    default=None,
    envvar="OFFLOAD_WORKDIR",
    help=WORKDIR_HELP + " Default: inferred from REF, else ./.offload.",
)
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
@json_option
@click.argument("ref")
def show(
    workdir: str | None,
    line_range: str | None,
    pattern: str | None,
    context_lines: int | None,
    ignore_case: bool,
    as_json: bool,
    ref: str,
) -> None:
    """Show offloaded content REF: the same engine as the retrieve_offloaded_content tool."""
    from offloader.retrieval import retrieve

    span: tuple[int, int] | None = None
    if line_range is not None:
        m = re.fullmatch(r"\s*(\d+)\s*[:-]\s*(\d+)\s*", line_range)
        if not m:
            raise click.BadParameter("use A:B, e.g. 10:20", param_hint="--lines")
        span = (int(m.group(1)), int(m.group(2)))
    if workdir is None:
        workdir = _infer_workdir(ref) or ".offload"

    async def go(ws: Any) -> str:
        return await retrieve(
            ws, ref, pattern=pattern, line_range=span, context_lines=context_lines, ignore_case=ignore_case
        )

    text = run_async(with_ws, workdir, go)
    if as_json:
        emit_json({"ref": ref, "text": text})
    else:
        click.echo(text)


def _infer_workdir(ref: str) -> str | None:
    """The workdir of an absolute reference ``{workdir}/sessions/...`` or ``{workdir}/data/...``."""
    for marker in ("/sessions/", "/data/"):
        if marker in ref and (ref.startswith("/") or is_url(ref)):
            return ref[: ref.rindex(marker)] or "/"
    return None


_HIT = re.compile(r"^\s*(\d+)([:-]) (.*)$")


@click.command()
@workdir_option
@click.option("--session", default=None, help="Only this session.")
@click.option(
    "--glob",
    "glob",
    default=None,
    help="Only files matching this glob. Default: offloaded content (tool results, context logs).",
)
@click.option("--context", default=0, type=click.IntRange(0, 50), help="Lines of context.")
@click.option("-i", "--ignore-case", is_flag=True)
@click.option("--max-matches", default=100, show_default=True, type=click.IntRange(min=1))
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
    from workspaces.base import Workspace

    path = Workspace.session_dir(session) if session is not None else "sessions"
    if glob is None:
        glob = "{tool_result-*.txt,context.jsonl}"  # content, not ledgers, state or indexes

    async def go(ws: Any) -> str:
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
