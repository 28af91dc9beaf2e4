"""The ``offload`` command line."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import uuid

import anyio
import click

__all__ = ["main"]


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="offloader")
def main() -> None:
    """Keep large command and tool output out of an agent's context, without losing it."""


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option("--workdir", default=".offload", show_default=True, help="Workspace folder.")
@click.option("--session", "session_id", default="cli", show_default=True, help="Session id.")
@click.option("--max-tokens", default=2500, show_default=True, type=click.IntRange(min=1),
              help="Offload when the output is larger than this.")
@click.option("--preview-tokens", default=1000, show_default=True, type=click.IntRange(min=1),
              help="Size of the preview printed instead.")
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(workdir: str, session_id: str, max_tokens: int, preview_tokens: int, command: tuple[str, ...]) -> None:
    """Run COMMAND; print its output, or a preview and a reference when it is large.

    Exits with the command's exit code.
    """
    if preview_tokens >= max_tokens:
        raise click.BadParameter("--preview-tokens must be smaller than --max-tokens")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        try:
            code = subprocess.call(list(command), stdout=out, stderr=err)
        except FileNotFoundError:
            click.echo(f"offload: command not found: {command[0]}", err=True)
            sys.exit(127)
        out.seek(0)
        err.seek(0)
        text = out.read().decode("utf-8", "replace")
        errors = err.read().decode("utf-8", "replace")
    shown = anyio.run(_run_result, workdir, session_id, command, code, text, errors, max_tokens, preview_tokens)
    click.echo(shown)
    sys.exit(code)


async def _run_result(
    workdir: str,
    session_id: str,
    command: tuple[str, ...],
    code: int,
    stdout: str,
    stderr: str,
    max_tokens: int,
    preview_tokens: int,
) -> str:
    from offloader.messages import TextBlock, ToolResultBlock
    from offloader.tokens import HeuristicCounter
    from workspaces import LocalWorkspace

    counter = HeuristicCounter()
    combined = stdout + (f"\n[stderr]\n{stderr}" if stderr else "")
    if counter.count(combined) <= max_tokens:
        return combined.rstrip("\n") + (f"\n[exit code {code}]" if code else "")
    blocks = [TextBlock(stdout)]
    if stderr:
        blocks.append(TextBlock("[stderr]\n" + stderr))
    result = ToolResultBlock(id=f"run-{uuid.uuid4().hex[:12]}", name=" ".join(command)[:200],
                             content=tuple(blocks), is_error=code != 0)
    async with LocalWorkspace(os.path.abspath(workdir)) as ws:
        ref = await ws.offload_tool_result(session_id, result)
    lines = combined.splitlines()
    budget = preview_tokens * 4
    head: list[str] = []
    used = 0
    for i, line in enumerate(lines):
        if used + len(line) > budget // 2:
            break
        head.append(f"{i + 1:>6}\t{line}")
        used += len(line)
    tail: list[str] = []
    for j in range(len(lines) - 1, len(head) - 1, -1):
        if used + len(lines[j]) > budget:
            break
        tail.append(f"{j + 1:>6}\t{lines[j]}")
        used += len(lines[j])
    tail.reverse()
    omitted = f"... [lines {len(head) + 1}-{len(lines) - len(tail)} omitted] ..."
    return "\n".join(
        [
            f"[Offloaded: {len(lines)} lines, ~{counter.count(combined)} tokens, exit code {code}]",
            f"Full output: {ref}",
            "Read it with your file tools (Read with offset/limit, Grep for a pattern).",
            *head,
            omitted,
            *tail,
        ]
    )


@main.command()
@click.option("--workdir", default=".offload", show_default=True, help="Workspace folder.")
@click.option("--http", "port", type=click.IntRange(1, 65535), default=None,
              help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio.")
def mcp(workdir: str, port: int | None) -> None:
    """Serve the workspace's Read, Grep, Glob, retrieve and offload tools over MCP."""
    from offloader.integrations.mcp import run_mcp_server

    if port is None:
        run_mcp_server(workdir)
    else:
        run_mcp_server(workdir, "streamable-http", port=port)


if __name__ == "__main__":
    main()
