"""The ``offload`` command line: run, ls, show, grep, stats, gc, demo (and mcp).

Every command takes ``--workdir`` (a folder, default ``./.offload`` or
``$OFFLOAD_WORKDIR``; an fsspec URL such as ``s3://bucket/prefix`` where the
command does not need a local disk) and ``--json`` for machine-readable output.
Tables use ``rich`` on a terminal and plain aligned text when piped.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import shutil
import subprocess
import sys
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, NoReturn

import anyio
import click

if TYPE_CHECKING:
    from workspaces.base import Workspace

__all__ = ["main", "parse_duration", "parse_size"]

_WORKDIR_HELP = "Workspace folder, or an fsspec URL (s3://bucket/prefix) where the command allows it."
_SIGNAL = re.compile(
    rb"(?i)\b(error|errors|fail|failed|failure|fatal|exception|traceback|panic|abort(ed)?|denied|"
    rb"segmentation fault|timed? ?out|warning|assert(ion)?)\b"
)
_CHUNK = 1 << 20
_MAX_LINE_SHOWN = 400
#: Outputs up to this size get ``offloader.preview.make_preview`` (reads the file);
#: larger ones a streaming head / signal lines / tail preview in bounded memory.
_PREVIEW_IN_MEMORY = 8 << 20


# ------------------------------------------------------------ shared plumbing


def _workdir_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option(
        "--workdir", default=".offload", show_default=True, envvar="OFFLOAD_WORKDIR", help=_WORKDIR_HELP
    )(f)


def _json_option(f: Callable[..., Any]) -> Callable[..., Any]:
    return click.option("--json", "as_json", is_flag=True, help="Print JSON instead of text.")(f)


def _is_url(workdir: str) -> bool:
    return "://" in workdir and not workdir.startswith("file://")


def _open_workspace(workdir: str) -> Workspace:
    """A LocalWorkspace for a folder, a FsspecWorkspace for a URL."""
    if _is_url(workdir):
        try:
            from workspaces import FsspecWorkspace
        except (ImportError, AttributeError) as exc:
            raise click.UsageError(f"{workdir}: fsspec workspaces are not available ({exc})") from exc
        return FsspecWorkspace(workdir)  # type: ignore[no-any-return]
    from workspaces import LocalWorkspace

    return LocalWorkspace(workdir.removeprefix("file://"))


def _console() -> Any:
    from rich.console import Console

    return Console(highlight=False, soft_wrap=True)


def _emit_json(obj: Any) -> None:
    click.echo(json.dumps(obj, indent=2, ensure_ascii=False, default=str))


def _table(title: str, columns: Sequence[str], rows: Sequence[Sequence[Any]]) -> None:
    """A rich table on a terminal, aligned plain text when piped."""
    console = _console()
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


def _human_bytes(n: float) -> str:
    for unit in ("B", "KB", "MB", "GB"):
        if abs(n) < 1024 or unit == "GB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} TB"


def _human_age(seconds: float) -> str:
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


def _run_async(fn: Callable[..., Any], *args: Any) -> Any:
    """Run a coroutine function; workspace errors become a clean CLI error."""
    from workspaces.errors import WorkspaceError

    try:
        return anyio.run(fn, *args)
    except (WorkspaceError, FileNotFoundError, ValueError) as exc:
        raise click.ClickException(str(exc)) from exc


# ------------------------------------------------------------ the group


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(package_name="offloader")
def main() -> None:
    """Keep large command and tool output out of an agent's context, without losing it."""


# ------------------------------------------------------------ run


@main.command(context_settings={"ignore_unknown_options": True, "allow_interspersed_args": False})
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
@_json_option
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
    if _is_url(workdir):
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
        _emit_json({"exit_code": code, **outcome})
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
            while chunk := os.read(fd, _CHUNK):
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
                    shutil.copyfileobj(err, out, _CHUNK)
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
        scan = await anyio.to_thread.run_sync(_scan_for_preview, host, preview_tokens)
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


@dataclass
class _Preview:
    """Head, signal lines and tail of a file, gathered in one bounded-memory pass."""

    budget: int
    lines: int = 0
    head: list[tuple[int, str]] = field(default_factory=list)
    signals: list[tuple[int, str]] = field(default_factory=list)
    signal_count: int = 0
    tail: deque[tuple[int, str]] = field(default_factory=deque)
    _head_used: int = 0
    _tail_used: int = 0
    _signal_used: int = 0
    _head_full: bool = False

    def add(self, no: int, raw: bytes, length: int) -> None:
        text = raw.decode("utf-8", "replace")
        if length > len(raw):
            text += f" [... {length} bytes]"
        cost = len(text) + 8
        if not self._head_full:
            if self._head_used + cost <= self.budget * 2 // 5 or not self.head:
                self.head.append((no, text))
                self._head_used += cost
                return
            self._head_full = True
        if _SIGNAL.search(raw):
            self.signal_count += 1
            if self._signal_used + cost <= self.budget // 5:
                self.signals.append((no, text))
                self._signal_used += cost
        self.tail.append((no, text))
        self._tail_used += cost
        while self._tail_used > self.budget * 2 // 5 and len(self.tail) > 1:
            self._tail_used -= len(self.tail.popleft()[1]) + 8

    def render(self) -> list[str]:
        tail = list(self.tail)
        first_tail = tail[0][0] if tail else self.lines + 1
        signals = [s for s in self.signals if s[0] < first_tail]
        out: list[str] = []
        last = 0
        for no, text in [*self.head, *signals, *tail]:
            if no > last + 1:
                out.append(f"... [lines {last + 1}-{no - 1} omitted] ...")
            out.append(f"{no:>6}\t{text}")
            last = no
        return out


def _scan_for_preview(path: str, preview_tokens: int) -> _Preview:
    """One streaming pass over ``path``: O(preview) memory whatever the file size."""
    preview = _Preview(budget=preview_tokens * 4)
    no = 0
    carry = b""
    carry_len = 0
    with open(path, "rb") as f:
        while chunk := f.read(_CHUNK):
            start = 0
            while True:
                nl = chunk.find(b"\n", start)
                piece = chunk[start:] if nl < 0 else chunk[start:nl]
                if len(carry) < _MAX_LINE_SHOWN:
                    carry += piece[: _MAX_LINE_SHOWN - len(carry)]
                carry_len += len(piece)
                if nl < 0:
                    break
                no += 1
                preview.add(no, carry, carry_len)
                carry, carry_len = b"", 0
                start = nl + 1
    if carry_len:
        no += 1
        preview.add(no, carry, carry_len)
    preview.lines = no
    return preview


# ------------------------------------------------------------ inventory (ls, stats)


@dataclass
class _Item:
    path: str
    size: int
    mtime: float
    tool: str = ""
    tokens: int = 0
    status: str = ""


@dataclass
class _SessionInventory:
    name: str
    items: list[_Item] = field(default_factory=list)
    bytes: int = 0
    last: float = 0.0
    ledger: list[dict[str, Any]] = field(default_factory=list)
    torn: list[str] = field(default_factory=list)


async def _inventory(ws: Workspace, session: str | None, *, check_torn: bool = False) -> list[_SessionInventory]:
    """Sessions with their offloaded items, joined with their ledgers (one listing, one read per ledger)."""
    from offloader.naming import safe_name

    await ws._ready()
    top = f"sessions/{safe_name(session)}" if session is not None else "sessions"
    found: dict[str, _SessionInventory] = {}
    ledgers: list[tuple[_SessionInventory, str]] = []
    for info in await ws._list(top):
        parts = info.path.split("/")
        if len(parts) < 3 or parts[-1].startswith(".tmp-"):
            continue
        inv = found.setdefault(parts[1], _SessionInventory(parts[1]))
        inv.bytes += info.size
        inv.last = max(inv.last, info.mtime)
        name = parts[-1]
        if len(parts) == 3 and name in ("ledger.jsonl", "context.jsonl", "state.json"):
            if name == "ledger.jsonl" or (name == "context.jsonl" and check_torn and info.size):
                ledgers.append((inv, info.path))
            continue
        if name.endswith(".lineidx"):
            continue
        inv.items.append(_Item(info.path, info.size, info.mtime, tokens=(info.size + 3) // 4))
    limiter = anyio.CapacityLimiter(32)  # reads overlap: remote stores pay latency per call

    async def load(inv: _SessionInventory, path: str) -> None:
        async with limiter:
            if path.endswith("ledger.jsonl"):
                inv.ledger = _parse_jsonl(await ws._read(path), path, inv.torn)
            else:
                info = await ws._stat(path)
                if info is not None and info.size and await ws._read(path, info.size - 1, info.size) != b"\n":
                    inv.torn.append(path)

    async with anyio.create_task_group() as tg:
        for inv, path in ledgers:
            tg.start_soon(load, inv, path)
    for inv in found.values():
        by_name = {_basename(e.get("ref", "")): e for e in inv.ledger if e.get("kind") == "tool_result"}
        for item in inv.items:
            entry = by_name.get(_basename(item.path))
            if entry:
                item.tool = str(entry.get("tool", ""))
                item.tokens = int(entry.get("tokens", item.tokens) or 0)
                item.status = str(entry.get("status", ""))
        for e in inv.ledger:  # later statuses (compaction, pins) override
            if e.get("kind") != "tool_result" and "status" in e:
                for item in inv.items:
                    if _basename(item.path) == _basename(str(e.get("ref", ""))):
                        item.status = str(e["status"])
    return sorted(found.values(), key=lambda s: s.name)


def _basename(path: str) -> str:
    return path.rsplit("/", 1)[-1]


def _parse_jsonl(raw: bytes, path: str, torn: list[str]) -> list[dict[str, Any]]:
    """Parse JSON lines; a torn (unterminated, unparsable) final line is skipped and reported."""
    if raw.endswith(b"\n"):  # fast path: the whole log as one JSON array (one decoder call)
        try:
            parsed = json.loads(b"[" + raw[:-1].replace(b"\n", b",") + b"]")
            return [e for e in parsed if isinstance(e, dict)]
        except ValueError:
            pass  # a bad line somewhere: parse line by line below
    entries: list[dict[str, Any]] = []
    lines = raw.split(b"\n")
    for i, line in enumerate(lines):
        if not line:
            continue
        try:
            entry = json.loads(line)
        except ValueError:
            if i == len(lines) - 1:
                torn.append(path)
            continue
        if isinstance(entry, dict):
            entries.append(entry)
    return entries


@main.command("ls")
@_workdir_option
@_json_option
@click.argument("session", required=False)
def ls_command(workdir: str, as_json: bool, session: str | None) -> None:
    """List sessions, or the offloaded items of SESSION (size, tokens, tool, age)."""
    sessions = _run_async(_with_ws, workdir, lambda ws: _inventory(ws, session))
    now = time.time()
    if session is None:
        rows = [
            {
                "session": s.name,
                "items": len(s.items),
                "bytes": s.bytes,
                "tokens": sum(i.tokens for i in s.items),
                "last_modified": s.last,
            }
            for s in sessions
        ]
        if as_json:
            _emit_json(rows)
            return
        _table(
            f"{len(rows)} sessions in {workdir}",
            ["session", "items", "size", "tokens", "age"],
            [
                [r["session"], r["items"], _human_bytes(r["bytes"]), r["tokens"], _human_age(now - r["last_modified"])]
                for r in rows
            ],
        )
        return
    if not sessions:
        raise click.ClickException(f"no session {session!r} in {workdir}")
    items = sorted(sessions[0].items, key=lambda i: i.mtime)
    if as_json:
        _emit_json(
            [
                {
                    "path": i.path,
                    "bytes": i.size,
                    "tokens": i.tokens,
                    "tool": i.tool,
                    "status": i.status,
                    "mtime": i.mtime,
                }
                for i in items
            ]
        )
        return
    _table(
        f"{len(items)} items in session {session}",
        ["item", "tool", "size", "tokens", "status", "age"],
        [
            [_basename(i.path), i.tool[:40], _human_bytes(i.size), i.tokens, i.status, _human_age(now - i.mtime)]
            for i in items
        ],
    )


async def _with_ws(workdir: str, fn: Callable[[Any], Any]) -> Any:
    async with _open_workspace(workdir) as ws:
        return await fn(ws)


@main.command()
@_workdir_option
@_json_option
def stats(workdir: str, as_json: bool) -> None:
    """Counts, bytes and tokens kept out of context, per session and per tool.

    Tokens are summed over the ledgers (what each offload kept out of context).
    Torn final lines of context.jsonl / ledger.jsonl (a writer killed mid-line)
    are reported; readers skip them.
    """
    sessions = _run_async(_with_ws, workdir, lambda ws: _inventory(ws, None, check_torn=True))
    per_session = []
    per_tool: dict[str, dict[str, Any]] = {}
    totals = {
        "sessions": len(sessions),
        "items": 0,
        "bytes": 0,
        "offloads": 0,
        "tokens_offloaded": 0,
        "context_messages": 0,
        "removed_by_gc": 0,
    }
    torn: list[str] = []
    for s in sessions:
        row = {
            "session": s.name,
            "items": len(s.items),
            "bytes": s.bytes,
            "offloads": 0,
            "tokens_offloaded": 0,
            "context_messages": 0,
        }
        for e in s.ledger:
            kind = e.get("kind")
            if kind == "tool_result":
                tokens = int(e.get("tokens", 0) or 0)
                row["offloads"] += 1
                row["tokens_offloaded"] += tokens
                tool = per_tool.setdefault(
                    str(e.get("tool", "")),
                    {"tool": str(e.get("tool", "")), "offloads": 0, "bytes": 0, "tokens_offloaded": 0},
                )
                tool["offloads"] += 1
                tool["bytes"] += int(e.get("bytes", 0) or 0)
                tool["tokens_offloaded"] += tokens
            elif kind == "context":
                row["context_messages"] += int(e.get("messages", 0) or 0)
            elif kind == "gc":
                totals["removed_by_gc"] += 1
        for key in ("items", "bytes", "offloads", "tokens_offloaded", "context_messages"):
            totals[key] += row[key]
        per_session.append(row)
        torn.extend(s.torn)
    tools = sorted(per_tool.values(), key=lambda t: -t["tokens_offloaded"])
    if as_json:
        _emit_json({"totals": totals, "sessions": per_session, "tools": tools, "torn_lines": torn})
        return
    _table(f"Totals for {workdir}", list(totals), [list(totals.values())])
    _table(
        "By tool",
        ["tool", "offloads", "bytes", "tokens offloaded"],
        [[t["tool"][:50], t["offloads"], _human_bytes(t["bytes"]), t["tokens_offloaded"]] for t in tools[:30]],
    )
    top = sorted(per_session, key=lambda r: -r["tokens_offloaded"])[:30]
    _table(
        f"By session (top {len(top)} of {len(per_session)})",
        ["session", "items", "size", "offloads", "tokens offloaded", "context msgs"],
        [
            [
                r["session"],
                r["items"],
                _human_bytes(r["bytes"]),
                r["offloads"],
                r["tokens_offloaded"],
                r["context_messages"],
            ]
            for r in top
        ],
    )
    if torn:
        click.echo(f"torn final lines (skipped by readers): {', '.join(torn)}")


# ------------------------------------------------------------ show, grep


@main.command()
@click.option(
    "--workdir",
    default=None,
    envvar="OFFLOAD_WORKDIR",
    help=_WORKDIR_HELP + " Default: inferred from REF, else ./.offload.",
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
@_json_option
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

    text = _run_async(_with_ws, workdir, go)
    if as_json:
        _emit_json({"ref": ref, "text": text})
    else:
        click.echo(text)


def _infer_workdir(ref: str) -> str | None:
    """The workdir of an absolute reference ``{workdir}/sessions/...`` or ``{workdir}/data/...``."""
    for marker in ("/sessions/", "/data/"):
        if marker in ref and (ref.startswith("/") or _is_url(ref)):
            return ref[: ref.rindex(marker)] or "/"
    return None


_HIT = re.compile(r"^\s*(\d+)([:-]) (.*)$")


@main.command()
@_workdir_option
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
@_json_option
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

    text = _run_async(_with_ws, workdir, go)
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
    _emit_json({"pattern": pattern, "matches": matches, "summary": text.splitlines()[0] if text else ""})


# ------------------------------------------------------------ gc


@main.command()
@_workdir_option
@click.option("--max-age", default=None, help="Remove what is older than this: 30m, 12h, 7d, 2w.")
@click.option("--max-bytes", default=None, help="Keep at most this much: 500M, 1G.")
@click.option("--max-files", default=None, type=click.IntRange(min=0), help="Keep at most N items + media.")
@click.option("--session", default=None, help="Only this session (media in data/ are left alone).")
@click.option(
    "--temp-grace", default="10m", show_default=True, help="Never touch temp or fresh files younger than this."
)
@click.option("--dry-run", is_flag=True, help="Report what would be removed; remove nothing.")
@click.option("-v", "--verbose", is_flag=True, help="List every removed file.")
@_json_option
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
    """Remove old offloaded content; never what a live session still references.

    Pinned (kept while the session is live): items named in the session's
    state.json and items whose latest ledger status is pinned/mild/truncated.
    Only sessions/ and unreferenced data/ files are ever removed.
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
    report = _run_async(_with_ws, workdir, lambda ws: _gc_with_progress(ws, policy, dry_run, not as_json))
    if as_json:
        _emit_json(report.as_dict())
        return
    verb = "would remove" if dry_run else "removed"
    click.echo(
        f"{verb} {len(report.removed)} files ({_human_bytes(report.removed_bytes)}) of {report.scanned} "
        f"scanned; kept {report.kept_files} files ({_human_bytes(report.kept_bytes)}), "
        f"{report.pinned} pinned"
    )
    shown = report.removed if verbose else report.removed[:20]
    for r in shown:
        click.echo(f"  {r.reason:<16} {_human_bytes(r.size):>9}  {r.path}")
    if len(shown) < len(report.removed):
        click.echo(f"  ... and {len(report.removed) - len(shown)} more (use -v or --json)")
    for note in report.over_limit:
        click.echo(f"note: {note}")
    if report.skipped_changed:
        click.echo(f"note: {report.skipped_changed} files changed during the collection and were kept")


async def _gc_with_progress(ws: Any, policy: Any, dry_run: bool, show: bool) -> Any:
    from workspaces.retention import collect_garbage

    console = _console()
    if not (show and console.is_terminal) or dry_run:
        return await collect_garbage(ws, policy, dry_run=dry_run)
    from rich.progress import Progress

    with Progress(console=console, transient=True) as bar:
        task = bar.add_task("removing", total=None)

        def step(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        return await collect_garbage(ws, policy, dry_run=dry_run, progress=step)


# ------------------------------------------------------------ demo


@main.command()
@click.option(
    "--keep",
    "keep_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Use this folder instead of a temporary one (and keep it).",
)
@_json_option
def demo(keep_dir: str | None, as_json: bool) -> None:
    """A scripted agent loop (no model, no network) showing offload, retrieval and compaction.

    In a temporary LocalWorkspace: a tool returns a 1.4 MB build log, which is
    offloaded (the context keeps a preview and a reference); the agent greps the
    needle back; then a 120-turn conversation is compacted under a 16k window.
    Prints a before/after token table.
    """
    import tempfile

    if keep_dir is not None:
        report = anyio.run(_demo, keep_dir, not as_json)
    else:
        with tempfile.TemporaryDirectory(prefix="offload-demo-") as tmp:
            report = anyio.run(_demo, tmp, not as_json)
    if as_json:
        _emit_json(report)
        return
    _table(
        "Tokens in the agent's context",
        ["step", "before", "after", "kept out"],
        [[r["step"], r["before"], r["after"], r["before"] - r["after"]] for r in report["steps"]],
    )


_NEEDLE = "ERROR shard-7421: checksum mismatch (expected 9f2c, got 11aa)"


def _build_log(lines: int) -> str:
    out = []
    for i in range(1, lines + 1):
        out.append(f"[{i:06d}] compiling module_{i % 997:03d}.c ... ok ({(i * 37) % 1000} ms)")
        if i == lines * 3 // 5:
            out.append(_NEEDLE)
    out.append("build finished: 1 error, 0 warnings")
    return "\n".join(out)


async def _demo(folder: str, narrate: bool) -> dict[str, Any]:
    from offloader.compaction import ContextCompactor
    from offloader.messages import TextBlock, ToolResultBlock
    from offloader.retrieval import retrieve
    from offloader.tokens import default_counter
    from workspaces import LocalWorkspace

    def say(text: str) -> None:
        if narrate:
            click.echo(text)

    counter = default_counter()
    steps: list[dict[str, Any]] = []
    async with LocalWorkspace(os.path.join(folder, ".offload")) as ws:
        # 1. a tool call returns a large result: offload it, keep a preview + reference
        log = _build_log(30_000)
        before = counter.count(log)
        result = ToolResultBlock("call-build-1", "bash", (TextBlock(log),), is_error=True)
        preview_text, ref = await _demo_offload(ws, result, counter)
        after = counter.count(preview_text)
        steps.append({"step": "offload a 30,000-line build log", "before": before, "after": after, "ref": ref})
        say(f"1. offloaded {len(log):,} bytes to {ref}\n   the context keeps a {after}-token preview:")
        shown = [
            x
            for x in preview_text.splitlines()
            if x.startswith("[Offloaded") or "ERROR" in x or "omitted" in x or "/sessions/" in x
        ]
        for line in shown[:8]:
            say(f"   | {line[:160]}")
        steps[-1]["needle_in_preview"] = _NEEDLE in preview_text
        # 2. the agent retrieves the needle by pattern
        found = await retrieve(ws, ref, pattern="checksum mismatch", context_lines=1)
        steps.append(
            {
                "step": "retrieve the failing line by pattern",
                "before": before,
                "after": counter.count(found),
                "found": _NEEDLE in found,
            }
        )
        say("2. retrieve_offloaded_content(pattern='checksum mismatch', context_lines=1):")
        for line in found.splitlines()[:5]:
            say(f"   | {line}")
        # 3. a long conversation is compacted under a window
        conversation = _demo_conversation(120)
        compactor = ContextCompactor(ws, window=16_000, counter=counter)
        done = await compactor.compact("demo", conversation)
        steps.append(
            {
                "step": f"compact a {len(conversation)}-message conversation (16k window)",
                "before": done.tokens_before,
                "after": done.tokens_after,
                "level": str(done.level),
            }
        )
        say(
            f"3. compacted {len(conversation)} messages -> {len(done.messages)} ({done.level}); "
            f"everything removed is in {ws.reference(ws.session_dir('demo'))}/"
        )
    return {"workspace": folder, "steps": steps}


async def _demo_offload(ws: Any, result: Any, counter: Any) -> tuple[str, str]:
    """Offload through ContextOffloader, as an agent loop's after-tool hook would."""
    from offloader.offloader import ContextOffloader

    replaced = await ContextOffloader(ws, counter=counter, preview_tokens=300).process_tool_result("demo", result)
    text = "\n".join(getattr(b, "text", "") for b in replaced.content)
    ref = next(w.strip("()[]<>,.'\"") for w in text.split() if "/sessions/" in w)
    return text, ref


def _demo_conversation(turns: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a build assistant."}]
    for t in range(turns // 3):
        msgs.append({"role": "user", "content": f"Step {t}: check shard {t} and report the failing tests."})
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call-{t}",
                        "type": "function",
                        "function": {"name": "run_tests", "arguments": json.dumps({"shard": t})},
                    }
                ],
            }
        )
        body = "\n".join(f"test_{t}_{k} ... {'FAILED' if k == 7 else 'ok'} ({k * 3} ms)" for k in range(60))
        msgs.append({"role": "tool", "tool_call_id": f"call-{t}", "content": body})
    msgs.append({"role": "user", "content": "Summarise which shards failed."})
    return msgs


# ------------------------------------------------------------ mcp


@main.command()
@click.option("--workdir", default=".offload", show_default=True, help="Workspace folder.")
@click.option(
    "--http",
    "port",
    type=click.IntRange(1, 65535),
    default=None,
    help="Serve streamable HTTP on 127.0.0.1:PORT instead of stdio.",
)
def mcp(workdir: str, port: int | None) -> None:
    """Serve the workspace's Read, Grep, Glob, retrieve and offload tools over MCP."""
    from offloader.integrations.mcp import run_mcp_server

    if port is None:
        run_mcp_server(workdir)
    else:
        run_mcp_server(workdir, "streamable-http", port=port)


if __name__ == "__main__":
    main()
