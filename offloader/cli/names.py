"""Every name the CLI prints can be given back to it: sessions, items and references.

* A **session** is accepted as the folder name ``ls`` prints (``build``,
  ``etc-74ccf3c5b4c19a81``), as the id given to ``offload_*`` (``/etc``), or as
  a path ending in ``sessions/{folder}``.
* An **item** (or any stored file) is accepted as the reference a preview prints
  (absolute, or relative to the current folder such as
  ``.offload/sessions/cli/tool_result-run-1.txt``), as a workdir-relative path
  (``sessions/cli/...``, ``data/...``), as a ``workspace:///data/...`` URL, or as
  the bare file name ``ls SESSION`` prints (``tool_result-run-1.txt``).

A name that fits more than one session or file is an error that lists the
candidates; a name that fits none lists the closest names there are.
"""

from __future__ import annotations

import difflib
import os
from typing import TYPE_CHECKING

import click

from offloader.core.layout import is_hidden
from offloader.core.naming import safe_name

if TYPE_CHECKING:
    from workspaces.base import Workspace

__all__ = ["infer_workdir", "resolve_item", "resolve_session"]

_MAX_LISTED = 10
_ROOTS = ("sessions", "data")


def _listed(names: list[str]) -> str:
    shown = ", ".join(names[:_MAX_LISTED])
    return shown + (f", ... ({len(names) - _MAX_LISTED} more)" if len(names) > _MAX_LISTED else "")


def _after_sessions(name: str) -> str | None:
    """``X`` in ``.../sessions/X`` or ``.../sessions/X/``; None when the name is not such a path."""
    parts = [p for p in name.replace("\\", "/").split("/") if p]
    if len(parts) >= 2 and parts[-2] == "sessions":
        return parts[-1]
    return None


async def resolve_session(ws: Workspace, name: str) -> str:
    """The session folder ``name`` designates (see the module docstring); a clear error otherwise."""
    listing = await ws.list_files("sessions")
    folders = sorted({f.path.split("/")[1] for f in listing if f.path.count("/") >= 2})
    given = _after_sessions(name) or name
    candidates = []
    if given in folders:
        candidates.append(given)  # the folder name, as ls prints it
    try:
        encoded = safe_name(name)
    except ValueError as exc:
        raise click.BadParameter(str(exc), param_hint="session") from exc
    if encoded in folders and encoded not in candidates:
        candidates.append(encoded)  # the id given to offload_*
    if len(candidates) == 1:
        return candidates[0]
    if candidates:
        raise click.ClickException(
            f"session {name!r} is ambiguous: it is the folder {candidates[0]!r} and the session id stored in "
            f"{candidates[1]!r}; give the folder name {candidates[1]!r} for the second"
        )
    close = difflib.get_close_matches(given, folders, n=_MAX_LISTED, cutoff=0.5) or folders
    hint = f"; sessions: {_listed(close)}" if close else " (the workspace has no sessions)"
    raise click.ClickException(f"no session {name!r} in {ws.workdir}{hint}")


def infer_workdir(ref: str) -> str | None:
    """The workdir in a path that contains ``.../sessions/...`` or ``.../data/...``, if any."""
    norm = ref.replace("\\", "/")
    for marker in ("/sessions/", "/data/"):
        if marker in norm:
            return norm[: norm.rindex(marker)] or "/"
    return None


async def resolve_item(ws: Workspace, ref: str, *, session: str | None = None) -> str:
    """The workdir-relative path of the stored file ``ref`` designates; a clear error otherwise.

    ``session``: a folder name that restricts a bare file name to one session.
    """
    from offloader.core.errors import PathOutsideWorkspace

    if "/" not in ref.replace("\\", "/"):
        return await _by_file_name(ws, ref, session)
    tried: list[str] = []
    forms = [ref]
    if not ref.startswith("/") and "://" not in ref:
        forms.append(os.path.abspath(ref))  # relative to the current folder: .offload/sessions/...
    for form in forms:
        try:
            rel = ws.relative(form)
        except PathOutsideWorkspace:
            continue
        if rel and rel.split("/", 1)[0] in _ROOTS and rel not in tried:
            tried.append(rel)
    found = [rel for rel in tried if await ws.stat(rel) is not None]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise click.ClickException(f"{ref!r} is ambiguous: {_listed([ws.reference(r) for r in found])}")
    if not tried:
        raise click.ClickException(
            f"{ref!r} is not inside the workspace {ws.workdir} (give --workdir, or a reference under it)"
        )
    return await _by_file_name(ws, ref.replace("\\", "/").rsplit("/", 1)[-1], session, missing=tried[0])


async def _by_file_name(ws: Workspace, name: str, session: str | None, missing: str | None = None) -> str:
    top = f"sessions/{session}" if session else "sessions"
    listing = [*await ws.list_files(top), *([] if session else await ws.list_files("data"))]
    files = [f.path for f in listing if not is_hidden(f.path)]  # not temp files, not derived indexes
    found = [p for p in files if p.rsplit("/", 1)[-1] in (name, f"tool_result-{name}.txt")]
    if missing is not None and len(found) != 1:
        raise click.ClickException(f"nothing is stored at {ws.reference(missing)}" + _closest(ws, name, files))
    if len(found) == 1:
        return found[0]
    if found:
        refs = [ws.reference(p) for p in sorted(found)]
        raise click.ClickException(
            f"{name!r} names {len(found)} files: {_listed(refs)}; give the full reference (or --session)"
        )
    where = f"session {session!r}" if session else ws.workdir
    raise click.ClickException(f"no stored file named {name!r} in {where}" + _closest(ws, name, files))


def _closest(ws: Workspace, name: str, files: list[str]) -> str:
    by_name = {p.rsplit("/", 1)[-1]: p for p in files}
    close = difflib.get_close_matches(name, list(by_name), n=3, cutoff=0.6)
    return f"; did you mean {_listed([ws.reference(by_name[c]) for c in close])}?" if close else ""
