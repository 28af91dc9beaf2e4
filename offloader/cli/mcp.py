"""``offload mcp``: serve the workspace tools over MCP."""

from __future__ import annotations

import click

from ._common import workdir_option

__all__ = ["mcp"]


@click.command()
@workdir_option
@click.option(
    "--http",
    "port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio.",
)
def mcp(workdir: str, port: int | None) -> None:
    """Serve the workspace's Read, Grep, Glob, retrieve and offload tools over MCP.

    Needs the mcp extra: pip install 'offloader[mcp]'. The workdir is created
    when missing (the offload tool stores there).
    """
    from offloader.core.extras import MissingExtra

    try:
        from offloader.integrations.mcp import run_mcp_server
    except MissingExtra as exc:
        raise click.ClickException(str(exc)) from None

    if port is None:
        run_mcp_server(workdir)
    else:
        run_mcp_server(workdir, "streamable-http", port=port)
