"""``offload gc``: remove old offloaded content, never what a live session references."""

from __future__ import annotations

import dataclasses
from typing import Any

import click

from ._common import (
    emit_json,
    human_bytes,
    json_option,
    make_console,
    parse_duration,
    parse_size,
    run_async,
    with_ws,
    workdir_option,
)
from .names import resolve_session

__all__ = ["gc"]


@click.command()
@workdir_option
@click.option("--max-age", default=None, help="Remove what is older than this: 30m, 12h, 7d, 2w.")
@click.option("--max-bytes", default=None, help="Keep at most this much: 500M, 1G.")
@click.option("--max-files", default=None, type=click.IntRange(min=0), help="Keep at most N items + media.")
@click.option(
    "--session",
    default=None,
    help="Only this session: the name `offload ls` prints, or the session id (media in data/ are left alone).",
)
@click.option(
    "--temp-grace", default="10m", show_default=True, help="Never touch temp or fresh files younger than this."
)
@click.option("--dry-run", is_flag=True, help="Report what would be removed; remove nothing.")
@click.option("-v", "--verbose", is_flag=True, help="List every removed file.")
@json_option
def gc(
    workdir: str,
    max_age: str | None,
    max_bytes: str | None,
    max_files: int | None,
    session: str | None,
    temp_grace: str,
    dry_run: bool,
    verbose: bool,
    as_json: bool,
) -> None:
    """Remove old offloaded content; never what a session still references.

    Never removed, on any path: files younger than --temp-grace, pinned items
    (named in the session's state.json, or ledger status pinned/mild/truncated),
    and anything a writer changes while gc runs. Each removal is recorded in the
    session's ledger. Only sessions/ and unreferenced data/ files are ever removed.
    """
    from workspaces.retention import RetentionPolicy

    try:
        policy = RetentionPolicy(
            max_age=parse_duration(max_age) if max_age else None,
            max_bytes=parse_size(max_bytes) if max_bytes else None,
            max_files=max_files,
            session=session,
            temp_grace=parse_duration(temp_grace),
        )
    except ValueError as exc:
        raise click.BadParameter(str(exc)) from exc

    async def go(ws: Any) -> Any:
        scoped = policy
        if session is not None:
            scoped = dataclasses.replace(policy, session=None, session_folder=await resolve_session(ws, session))
        return await _gc_with_progress(ws, scoped, dry_run, not as_json)

    report = run_async(with_ws, workdir, go)
    if as_json:
        emit_json(report.as_dict())
        return
    verb = "would remove" if dry_run else "removed"
    click.echo(
        f"{verb} {len(report.removed)} files ({human_bytes(report.removed_bytes)}) of {report.scanned} "
        f"scanned; kept {report.kept_files} files ({human_bytes(report.kept_bytes)}), "
        f"{report.pinned} pinned"
    )
    shown = report.removed if verbose else report.removed[:20]
    for r in shown:
        click.echo(f"  {r.reason:<16} {human_bytes(r.size):>9}  {r.path}")
    if len(shown) < len(report.removed):
        click.echo(f"  ... and {len(report.removed) - len(shown)} more (use -v or --json)")
    for note in report.over_limit:
        click.echo(f"note: {note}")
    if report.skipped_changed:
        click.echo(f"note: {report.skipped_changed} files changed during the collection and were kept")


async def _gc_with_progress(ws: Any, policy: Any, dry_run: bool, show: bool) -> Any:
    from workspaces.retention import collect_garbage

    console = make_console()
    if not (show and console.is_terminal) or dry_run:
        return await collect_garbage(ws, policy, dry_run=dry_run)
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("removing", total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return await collect_garbage(ws, policy, dry_run=dry_run, progress=step)
