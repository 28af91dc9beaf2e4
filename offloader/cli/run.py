"""``offload run``: run a command, store its output in the workspace, print it or a preview."""

from __future__ import annotations

import errno
import os
import secrets
import signal
import sys
from typing import Any, NoReturn

import anyio
import click

from offloader.core.layout import TMP_PREFIX, TOOL_RESULT_PREFIX, estimate_tokens
from offloader.core.streams import STDERR_MARK

from ._child import Capture, capture, exit_status, forward_signals
from ._common import emit_json, is_url, json_option, positive_int_option, resolve_workdir
from .run_preview import SNIFF_BYTES, preview_output, sniff_binary

__all__ = ["run"]


@click.command("run", context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "--workdir",
    default=None,
    help="Workspace folder (a local disk: the output is streamed there). Default: the global --workdir.",
)
@click.option("--session", "session_id", default="cli", show_default=True, help="Session id.")
@positive_int_option("--max-tokens", 2500, "Offload when the output is larger than this.")
@positive_int_option("--preview-tokens", 1000, "Size of the preview printed instead.")
@click.option(
    "--tee/--quiet",
    default=None,
    help="Echo the command's output live as it arrives (stdout to stdout, stderr to stderr). "
    "Default: on when stdout is a terminal and --json is not given; off when piped (an agent reads only the "
    "preview). --quiet never echoes.",
)
@click.option(
    "--pty",
    "pty_mode",
    is_flag=True,
    help="Run the command on a pseudo-terminal, so tools that colour or buffer differently on a terminal "
    "behave as they do interactively. A terminal has one stream: everything is stored as stdout.",
)
@json_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
@click.pass_context
def run(
    ctx: click.Context,
    workdir: str | None,
    session_id: str,
    max_tokens: int,
    preview_tokens: int,
    tee: bool | None,
    pty_mode: bool,
    as_json: bool,
    command: tuple[str, ...],
) -> None:
    """Run COMMAND; print its output, or a preview and a reference when it is large.

    Both streams go straight to one file in the workspace (never into memory),
    lines in arrival order, each stderr line starting with "[stderr] ". Large
    output is kept there whole; the preview keeps the head, the error/failure
    lines and the tail, with line numbers. Binary output is summarized, not
    printed.

    Exits with the command's exit code (128+N when a signal N killed it). On
    SIGINT (Ctrl-C), SIGTERM or SIGHUP the signal is forwarded to the command's
    process group; what was captured is still stored and previewed, and offload
    exits with 128+N.
    """
    if preview_tokens >= max_tokens:
        raise click.BadParameter("--preview-tokens must be smaller than --max-tokens")
    workdir = resolve_workdir(ctx, workdir)
    if is_url(workdir):
        raise click.BadParameter("run streams output to a local disk; give a folder", param_hint="--workdir")
    if tee is None:
        tee = not as_json and sys.stdout.isatty()
    from offloader.core.errors import NotEnoughSpace, PathOutsideWorkspace
    from workspaces import LocalWorkspace
    from workspaces.local import HeldFolder

    ws = LocalWorkspace(workdir)
    rel_folder = ws.session_dir(session_id)
    created = [r for r in ("", "sessions", rel_folder) if not os.path.isdir(os.path.join(str(ws.path), r))]
    try:
        held = HeldFolder(str(ws.path), rel_folder)
    except (OSError, ValueError) as exc:
        raise click.ClickException(f"cannot create {os.path.join(str(ws.path), rel_folder)}: {exc}") from exc
    folder = held.path  # the session folder by descriptor: the command cannot redirect it with a symlink
    tmp = os.path.join(folder, f"{TMP_PREFIX}run-{secrets.token_hex(6)}")
    with forward_signals() as forwarder, held:
        try:
            with open(tmp, "xb", buffering=0) as dst:
                tmp = held.pin(tmp)  # from here on the stored file itself, whatever its name becomes
                try:
                    done = capture(command, dst, forwarder, tee=tee, pty_mode=pty_mode)
                except FileNotFoundError:
                    _fail(f"command not found: {command[0]}", 127)
                except PermissionError:
                    _fail(f"permission denied: {command[0]}", 126)
            try:
                if done.failure is not None:
                    _raise_space(done.failure)
                outcome = anyio.run(
                    _finish_run, ws, session_id, command, done, forwarder.first, tmp, held, max_tokens, preview_tokens
                )
            except (NotEnoughSpace, PathOutsideWorkspace) as exc:  # full disk; a folder swapped for a link
                _fail(f"{exc}; output not kept", exit_status(done.returncode, forwarder.first) or 1)
        finally:
            held.discard_temp()
            held.remove_empty(created)  # small output: leave no empty session (or workdir) behind
        code = exit_status(done.returncode, forwarder.first)
        outcome["exit_code"] = code
        try:
            if as_json:
                emit_json(outcome)
            elif outcome["offloaded"] or not tee:
                click.echo(outcome["text"] + (f"\n[exit code {code}]" if code and not outcome["offloaded"] else ""))
            elif code:
                click.echo(f"[exit code {code}]", err=True)
        except OSError:
            pass  # stdout is gone (a hung-up terminal, a closed pipe); the output is stored
    sys.exit(code)


def _fail(message: str, code: int) -> NoReturn:
    click.echo(f"offload: {message}", err=True)
    sys.exit(code)


def _raise_space(exc: OSError) -> NoReturn:
    from offloader.core.errors import NotEnoughSpace

    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        raise NotEnoughSpace(exc.errno, "no space left for the command's output") from exc
    raise exc


async def _finish_run(
    ws: Any,
    session_id: str,
    command: tuple[str, ...],
    done: Capture,
    signum: int | None,
    tmp: str,
    held: Any,
    max_tokens: int,
    preview_tokens: int,
) -> dict[str, Any]:
    """Small output whole; otherwise move the stored file into place and preview it. Stable keys."""
    from offloader.core.naming import safe_name
    from offloader.tokens import MAX_CHARS_PER_TOKEN, default_counter, exceeds

    size = done.bytes
    outcome: dict[str, Any] = {
        "exit_code": 0,
        "offloaded": False,
        "ref": None,
        "bytes": size,
        "lines": done.lines,
        "stderr_lines": done.stderr_lines,
        "binary": False,
        "signal": signal.Signals(signum).name if signum else None,
        "text": "",
    }
    if size <= max_tokens * MAX_CHARS_PER_TOKEN:  # only then is the tokenizer worth loading

        def read() -> bytes:
            with open(tmp, "rb") as f:
                return f.read()

        raw = await anyio.to_thread.run_sync(read)
        binary = sniff_binary(raw[:SNIFF_BYTES], size)
        text = binary or raw.decode("utf-8", "replace").rstrip("\n")
        if binary is not None or not exceeds(default_counter(), text, max_tokens):
            outcome.update(binary=binary is not None, text=text)
            return outcome
    async with ws:
        tid = f"run-{secrets.token_hex(6)}"
        rel = f"{ws.session_dir(session_id)}/{TOOL_RESULT_PREFIX}{safe_name(tid)}.txt"
        name = os.path.basename(rel)
        try:
            await anyio.to_thread.run_sync(held.link, name)  # atomic, never overwrites
        except OSError as exc:
            _raise_space(exc)
        ref = ws.reference(rel)
        preview = await anyio.to_thread.run_sync(preview_output, tmp, size, preview_tokens)
        code = exit_status(done.returncode, signum)
        try:
            await ws.record_ledger(
                session_id,
                [
                    {
                        "kind": "tool_result",
                        "ref": ref,
                        "tool": " ".join(" ".join(command).split())[:200],
                        "tool_id": tid,
                        "bytes": size,
                        "tokens": estimate_tokens(size),
                        "status": "offloaded",
                        "is_error": code != 0,
                        "exit_code": code,
                        "lines": preview.lines,
                        "stderr_lines": done.stderr_lines,
                    }
                ],
            )
        except BaseException:
            held.unlink(name)  # no ledger line: keep nothing half-recorded
            raise
    notes = [f"exit code {code}"]
    if signum:
        notes.append(f"interrupted by {outcome['signal']}")
    if preview.failure_lines:
        n = preview.failure_lines
        notes.append(f"{n} failure line{'s' if n != 1 else ''}")
    streams = f" ({done.stderr_lines} on stderr)" if done.stderr_lines else ""
    header = [
        f"[Offloaded: {preview.lines} lines{streams}, ~{estimate_tokens(size)} tokens, {', '.join(notes)}]",
        f"Full output: {ref}",
        "Read it with your file tools (Read with offset/limit, Grep for a pattern)"
        + (f'; stderr lines start with "{STDERR_MARK.strip()}".' if done.stderr_lines else "."),
    ]
    outcome.update(offloaded=True, ref=ref, lines=preview.lines, binary=preview.binary is not None)
    outcome["text"] = "\n".join(header + preview.body)
    return outcome
