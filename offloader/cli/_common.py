"""Plumbing shared by the commands: options, opening a workspace, tables, JSON, sizes and durations."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import anyio
import anyio.to_thread
import click

if TYPE_CHECKING:
    from workspaces.base import Workspace

__all__ = [
    "DEFAULT_WORKDIR",
    "WORKDIR_HELP",
    "Settings",
    "emit_json",
    "explicit_workdir",
    "human_age",
    "human_bytes",
    "is_url",
    "json_option",
    "make_console",
    "open_workspace",
    "parse_duration",
    "parse_size",
    "positive_int_option",
    "require_workdir",
    "resolve_workdir",
    "run_async",
    "table",
    "with_ws",
    "workdir_option",
]

DEFAULT_WORKDIR = ".offload"
WORKDIR_HELP = (
    "Workspace folder, or an fsspec URL (s3://bucket/prefix) where the command allows it. "
    "Default: the global --workdir ($OFFLOAD_WORKDIR), else ./.offload."
)


@dataclass(frozen=True, slots=True)
class Settings:
    """The group's global options, shared with every command through the click context."""

    workdir: str | None = None
    verbose: int = 0


def explicit_workdir(ctx: click.Context, workdir: str | None) -> str | None:
    """The command's own ``--workdir``, else the global one (or ``$OFFLOAD_WORKDIR``); None when not given."""
    if workdir:
        return workdir
    settings = ctx.find_object(Settings)
    return settings.workdir if settings is not None and settings.workdir else None


def resolve_workdir(ctx: click.Context, workdir: str | None) -> str:
    """The command's own ``--workdir``, else the global one (or ``$OFFLOAD_WORKDIR``), else ./.offload."""
    return explicit_workdir(ctx, workdir) or DEFAULT_WORKDIR


def workdir_option(f: Callable[..., Any]) -> Callable[..., Any]:
    """``--workdir`` on a command; the command receives the resolved folder or URL."""
    return click.option(
        "--workdir", default=None, help=WORKDIR_HELP, callback=lambda ctx, _param, value: resolve_workdir(ctx, value)
    )(f)


def positive_int_option(name: str, default: int, help: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An option taking a whole number of at least 1, with its default shown in ``--help``."""
    return click.option(name, default=default, show_default=True, type=click.IntRange(min=1), help=help)


def json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(f)


def is_url(workdir: str) -> bool:
    return "://" in workdir and not workdir.startswith("file://")


def open_workspace(workdir: str) -> Workspace:
    """A LocalWorkspace for a folder, a FsspecWorkspace for a URL."""
    if is_url(workdir):
        try:
            from workspaces.fsspec import FsspecWorkspace
        except (ImportError, AttributeError) as exc:
            raise click.UsageError(f"{workdir}: fsspec workspaces are not available ({exc})") from exc
        return FsspecWorkspace(workdir)  # type: ignore[no-any-return]
    from workspaces import LocalWorkspace

    return LocalWorkspace(workdir.removeprefix("file://"))


def require_workdir(workdir: str) -> None:
    """A clear error when a local workdir does not exist: only offloading creates one."""
    if is_url(workdir):
        return  # object stores have no folders to create
    folder = workdir.removeprefix("file://")
    if not os.path.isdir(folder):
        what = "is not a folder" if os.path.exists(folder) else "does not exist"
        raise click.ClickException(
            f"no workspace at {os.path.abspath(folder)}: it {what} (only offloading creates one; "
            "give --workdir or set OFFLOAD_WORKDIR)"
        )


async def with_ws(workdir: str, fn: Callable[[Any], Any]) -> Any:
    """Run ``fn(workspace)`` on an existing workspace; nothing is created."""
    await anyio.to_thread.run_sync(require_workdir, workdir)  # a stat: not on the event loop
    async with open_workspace(workdir) as ws:
        return await fn(ws)


def make_console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A rich table on a terminal, aligned plain text when piped."""
    console = make_console()
    cells = [[_cell(v) for v in row] for row in rows]
    if console.is_terminal:
        from rich.table import Table

        table = Table(title=title, title_justify="left")
        for i, c in enumerate(columns):
            table.add_column(c, justify="right" if rows and isinstance(rows[0][i], int | float) else "left")
        for row in cells:
            table.add_row(*row)
        console.print(table)
        return
    widths = [max([len(c), *(len(r[i]) for r in cells)]) for i, c in enumerate(columns)]
    click.echo(title)
    click.echo("  ".join(c.ljust(w) for c, w in zip(columns, widths, strict=True)).rstrip())
    for row in cells:
        click.echo("  ".join(v.ljust(w) for v, w in zip(row, widths, strict=True)).rstrip())


def _cell(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.1f}"
    return " ".join(str(value).split()) if isinstance(value, str) else str(value)


def human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


def human_age(seconds: float) -> str:
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{seconds / size:.0f}{unit}"
    return f"{max(seconds, 0):.0f}s"


_DURATION = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*(s|m|h|d|w)?\s*$", re.IGNORECASE)
_SIZE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([kmgt]?)(i?b?)\s*$", re.IGNORECASE)


def parse_duration(text: str) -> float:
    """Seconds in ``30s``, ``15m``, ``12h``, ``7d``, ``2w`` (a bare number is seconds)."""
    m = _DURATION.match(text)
    if not m:
        raise ValueError(f"not a duration: {text!r} (use e.g. 30s, 15m, 12h, 7d, 2w)")
    scale = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}[(m.group(2) or "s").lower()]
    return float(m.group(1)) * scale


def parse_size(text: str) -> int:
    """Bytes in ``500``, ``10K``, ``500MB``, ``1G``, ``2GiB`` (powers of 1024)."""
    m = _SIZE.match(text)
    if not m:
        raise ValueError(f"not a size: {text!r} (use e.g. 500M, 1G)")
    power = " kmgt".index(m.group(2).lower() or " ")
    return int(float(m.group(1)) * 1024**power)


def run_async(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a coroutine function; workspace errors become a clean CLI error."""
    from offloader.core.errors import WorkspaceError

    try:
        return anyio.run(fn, *args)
    except (WorkspaceError, FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc
