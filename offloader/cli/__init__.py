"""The ``offload`` command line: run, ls, show, grep, stats, gc, demo (and mcp).

Global options: ``--workdir`` (a folder, default ``./.offload`` or
``$OFFLOAD_WORKDIR``; an fsspec URL such as ``s3://bucket/prefix`` where the
command does not need a local disk; each command also takes its own
``--workdir``), ``-v`` / ``--verbose``. Commands take ``--json`` for
machine-readable output. Tables use ``rich`` on a terminal and plain aligned
text when piped.

One module per command group; this module only assembles the ``click`` group.
"""

from __future__ import annotations

import logging

import click

from offloader import __version__

from ._common import Settings, parse_duration, parse_size
from .demo import demo
from .gc import gc
from .listing import ls_command, stats
from .mcp import mcp
from .run import run
from .show import grep, show

__all__ = ["main", "parse_duration", "parse_size"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="offload")
@click.option(
    "--workdir",
    default=None,
    envvar="OFFLOAD_WORKDIR",
    help="Workspace folder (or fsspec URL) for every command. [env: OFFLOAD_WORKDIR; default: ./.offload]",
)
@click.option(
    "-v",
    "--verbose",
    count=True,
    help="Log to stderr what offloader does (which tokenizer counts tokens, ...); -vv for debug detail.",
)
@click.pass_context
def main(ctx: click.Context, workdir: str | None, verbose: int) -> None:
    """Keep large command and tool output out of an agent's context, without losing it."""
    ctx.obj = Settings(workdir=workdir, verbose=verbose)
    if verbose:
        logging.basicConfig(
            level=logging.DEBUG if verbose > 1 else logging.INFO, format="offload: %(name)s: %(message)s"
        )


for _command in (run, ls_command, show, grep, stats, gc, demo, mcp):
    main.add_command(_command)
del _command
