"""``offload run``: run a command, stream its output to the workspace, print it or a preview."""

from __future__ import annotations

import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Sequence
from typing import Any, NoReturn

import anyio
import click

from ._common import emit_json, is_url, json_option
from .run_preview import CHUNK, scan_for_preview

__all__ = ["run"]

#: Outputs up to this size get ``offloader.preview.make_preview`` (reads the file);
#: larger ones a streaming head / signal lines / tail preview in bounded memory.
_PREVIEW_IN_MEMORY = 8 << 20


@click.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
@click.option(
    "--workdir",
    default=".offload",
    show_default=True,
    envvar="OFFLOAD_WORKDIR",
    help="Workspace folder (local: the output is streamed to disk).",
)
@click.option("--session", "session_id", default="cli", show_default=True, help="Session id.")
@click.option(
    "--max-tokens",
    default=2500,
    show_default=True,
    type=click.IntRange(min=1),
    help="Offload when the output is larger than this.",
)
@click.option(
    "--preview-tokens",
    default=1000,
    show_default=True,
    type=click.IntRange(min=1),
    help="Size of the preview printed instead.",
)
@json_option
@click.argument("command", nargs=-1, required=True, type=click.UNPROCESSED)
def run(
    workdir: str, session_id: str, max_tokens: int, preview_tokens: int, as_json: bool, command: tuple[str, ...]
) -> None:
    """Run COMMAND; print its output, or a preview and a reference when it is large.

    stdout and stderr go straight to files in the workspace (never into memory),
    are kept apart (stderr follows stdout under a ``[stderr]`` marker), and the
    preview keeps the head, the error/failure lines and the tail, with line
    numbers. Exits with the command's exit code.
    """
    if preview_tokens >= max_tokens:
        raise click.BadParameter("--preview-tokens must be smaller than --max-tokens")
    if is_url(workdir):
        raise click.BadParameter("run streams output to a local disk; give a folder", param_hint="--workdir")
    from workspaces import LocalWorkspace
    from workspaces.errors import NotEnoughSpace

    ws = LocalWorkspace(workdir)
    folder = os.path.join(str(ws.path), ws.session_dir(session_id))
    created = [p for p in (os.path.dirname(folder), folder) if not os.path.isdir(p)]
    try:
        os.makedirs(folder, exist_ok=True)
    except OSError as exc:
        raise click.ClickException(f"cannot create {folder}: {exc}") from exc
    out_path = os.path.join(folder, f".tmp-run-{secrets.token_hex(6)}")
    err_path = out_path + "-stderr"
    try:
        try:
            code, failure = _run_streaming(command, out_path, err_path)
        except FileNotFoundError:
            click.echo(f"offload: command not found: {command[0]}", err=True)
            sys.exit(127)
        except PermissionError:
            click.echo(f"offload: permission denied: {command[0]}", err=True)
            sys.exit(126)
        try:
            if failure is not None:
                _raise_space(failure)
            outcome = anyio.run(
                _finish_run, ws, session_id, command, code, out_path, err_path, max_tokens, preview_tokens
            )
        except NotEnoughSpace as exc:
            click.echo(f"offload: {exc}; output not kept", err=True)
            sys.exit(code or 1)
    finally:
        for p in (out_path, err_path):
            if os.path.lexists(p):
                os.unlink(p)
        for d in reversed(created):  # small output: leave no empty session behind
            try:
                os.rmdir(d)
            except OSError:
                break  # not empty: something was offloaded (or another writer is there)
    if as_json:
        emit_json({"exit_code": code, **outcome})
    else:
        click.echo(outcome["text"])
    sys.exit(code)


def _run_streaming(command: Sequence[str], out_path: str, err_path: str) -> tuple[int, OSError | None]:
    """Run ``command``, copying stdout and stderr to two files in 1 MB chunks (bounded memory).

    The copy goes through this process (not a file handed to the child) so a
    full disk is seen here; the pipes are still drained to the end so the
    command finishes normally and its exit code is kept.
    """
    import threading

    proc = subprocess.Popen(list(command), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    failures: list[OSError] = []

    def pump(fd: int, path: str) -> None:
        with open(path, "wb", buffering=0) as dst:
            while chunk := os.read(fd, CHUNK):
                if failures:
                    continue  # keep draining so the command is never blocked
                try:
                    view = memoryview(chunk)
                    while view:
                        view = view[dst.write(view) or 0 :]
                except OSError as exc:
                    failures.append(exc)

    assert proc.stdout is not None and proc.stderr is not None
    threads = [threading.Thread(target=pump, args=(proc.stderr.fileno(), err_path), daemon=True)]
    threads[0].start()
    pump(proc.stdout.fileno(), out_path)
    threads[0].join()
    proc.stdout.close()
    proc.stderr.close()
    return proc.wait(), (failures[0] if failures else None)


def _raise_space(exc: OSError) -> NoReturn:
    import errno

    from workspaces.errors import NotEnoughSpace

    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        raise NotEnoughSpace(exc.errno, "no space left for the command's output") from exc
    raise exc


async def _finish_run(
    ws: Any,
    session_id: str,
    command: tuple[str, ...],
    code: int,
    out_path: str,
    err_path: str,
    max_tokens: int,
    preview_tokens: int,
) -> dict[str, Any]:
    """Print small output whole; otherwise move the streamed file into place and preview it."""
    from offloader.naming import safe_name
    from offloader.tokens import MAX_CHARS_PER_TOKEN, default_counter, exceeds

    async with ws:
        n_out, n_err = os.path.getsize(out_path), os.path.getsize(err_path)
        total = n_out + n_err
        if total <= max_tokens * MAX_CHARS_PER_TOKEN:  # only then is the tokenizer worth loading
            counter = default_counter()
            stdout = _read_text(out_path)
            stderr = _read_text(err_path)
            combined = stdout + (f"\n[stderr]\n{stderr}" if stderr else "")
            if not exceeds(counter, combined, max_tokens):
                text = combined.rstrip("\n") + (f"\n[exit code {code}]" if code else "")
                return {"offloaded": False, "text": text}

        def assemble() -> str:
            if n_err:
                with open(out_path, "ab") as out, open(err_path, "rb") as err:
                    out.write(b"\n[stderr]\n" if n_out else b"[stderr]\n")
                    shutil.copyfileobj(err, out, CHUNK)
            tid = f"run-{secrets.token_hex(6)}"
            rel = f"{ws.session_dir(session_id)}/tool_result-{safe_name(tid)}.txt"
            os.link(out_path, os.path.join(str(ws.path), rel))  # atomic, never overwrites
            return rel

        try:
            rel = await anyio.to_thread.run_sync(assemble)
        except OSError as exc:
            _raise_space(exc)
        ref = ws.reference(rel)
        host = os.path.join(str(ws.path), rel)
        size = os.path.getsize(host)
        scan = await anyio.to_thread.run_sync(scan_for_preview, host, preview_tokens)
        body = scan.render()
        if size <= _PREVIEW_IN_MEMORY:  # small enough to read: the package's signal-keeping preview
            body = (await anyio.to_thread.run_sync(_package_preview, host, preview_tokens)).splitlines()
        try:
            await ws._record(
                session_id,
                {
                    "kind": "tool_result",
                    "ref": ref,
                    "tool": " ".join(" ".join(command).split())[:200],
                    "tool_id": rel.rsplit("-", 1)[-1].removesuffix(".txt"),
                    "bytes": size,
                    "tokens": (size + 3) // 4,
                    "status": "offloaded",
                    "is_error": code != 0,
                    "exit_code": code,
                },
            )
        except OSError:
            os.unlink(host)  # no ledger line: keep nothing half-recorded
            raise
        header = [
            f"[Offloaded: {scan.lines} lines, ~{(size + 3) // 4} tokens, exit code {code}"
            + (f", {scan.signal_count} error/warning lines" if scan.signal_count else "")
            + "]",
            f"Full output: {ref}",
            "Read it with your file tools (Read with offset/limit, Grep for a pattern).",
        ]
        return {"offloaded": True, "ref": ref, "bytes": size, "lines": scan.lines, "text": "\n".join(header + body)}


def _package_preview(path: str, preview_tokens: int) -> str:
    from offloader.preview import make_preview
    from offloader.tokens import default_counter

    return make_preview(_read_text(path), counter=default_counter(), preview_tokens=preview_tokens)


def _read_text(path: str) -> str:
    with open(path, "rb") as f:
        return f.read().decode("utf-8", "replace")
