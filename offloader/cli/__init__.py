"""The ``offload`` command line: run, ls, show, grep, stats, gc, demo (and mcp).

Every command takes ``--workdir`` (a folder, default ``./.offload`` or
``$OFFLOAD_WORKDIR``; an fsspec URL such as ``s3://bucket/prefix`` where the
command does not need a local disk) and ``--json`` for machine-readable output.
Tables use ``rich`` on a terminal and plain aligned text when piped.

One module per command group; this module only assembles the ``click`` group.
"""

from __future__ import annotations

import click

from ._common import parse_duration, parse_size
from .demo import demo
from .gc import gc
from .listing import ls_command, stats
from .mcp import mcp
from .run import run
from .show import grep, show

__all__ = ["main", "parse_duration", "parse_size"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="offloader")
def main() -> None:
    """Keep large command and tool output out of an agent's context, without losing it."""


for _command in (run, ls_command, show, grep, stats, gc, demo, mcp):
    main.add_command(_command)
del _command
