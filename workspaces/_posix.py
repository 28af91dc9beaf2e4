"""Shell plumbing shared by the backends that run POSIX scripts (Docker, E2B).

One set of script exit codes and their mapping to exceptions, argument quoting,
and one grep-prefilter policy: the user's regex is never handed to ``grep``
(its syntax differs from RE2's, and ``grep -P`` can backtrack). Instead
:func:`required_literals` proves, per alternative, a piece of text every match
must contain, and ``grep -F`` looks for those; the base class then runs the real
RE2 search on the candidate files only.
"""

from __future__ import annotations

import errno
import shlex
from collections.abc import Sequence

from offloader.core import text as _text
from offloader.core.errors import NotEnoughSpace, PathOutsideWorkspace, UnsupportedOperation

__all__ = [
    "C_LOCALE",
    "EXIT_IO",
    "EXIT_ISDIR",
    "EXIT_MISSING",
    "EXIT_OUTSIDE",
    "EXIT_SHORT",
    "EXIT_VARS",
    "exit_error",
    "grep_candidates",
    "grep_prefilter",
    "quote",
    "required_literals",
]

#: Exit codes our scripts use for their own verdicts (clear of grep's 1-2 and the shell's 126-127).
EXIT_OUTSIDE, EXIT_MISSING, EXIT_ISDIR, EXIT_IO, EXIT_SHORT = 91, 92, 93, 94, 95
#: Shell assignments naming those codes, for scripts to ``exit $E_OUTSIDE``.
EXIT_VARS = (
    f"E_OUTSIDE={EXIT_OUTSIDE} E_MISSING={EXIT_MISSING} E_ISDIR={EXIT_ISDIR} E_IO={EXIT_IO} E_SHORT={EXIT_SHORT}\n"
)
#: Scripts and grep run in the C locale (grep ``-i`` then folds ASCII only, as
#: :func:`required_literals` assumes).
C_LOCALE = {"LC_ALL": "C"}

_OPTIONAL = set("*?{")  # the atom before these may be absent
_BREAKS = set(".^$+")  # these end a literal run


def quote(*args: str) -> str:
    """Arguments quoted for a POSIX shell and joined by spaces."""
    return " ".join(shlex.quote(a) for a in args)


def exit_error(code: int, stderr: str, ref: str, *, doing: str, where: str) -> Exception:
    """The exception for a script that exited with ``code`` while ``doing`` something to ``ref``."""
    if code == EXIT_OUTSIDE:
        return PathOutsideWorkspace(f"{ref} resolves outside the workdir ({stderr})" if stderr else ref)
    if code == EXIT_MISSING:
        return FileNotFoundError(errno.ENOENT, "no such file", ref)
    if code == EXIT_ISDIR:
        return IsADirectoryError(errno.EISDIR, "is a directory", ref)
    if "No space left" in stderr or "Disk quota" in stderr:
        return NotEnoughSpace(errno.ENOSPC, f"no space left in {where} while {doing} {ref}: {stderr}")
    if code in (126, 127) or ": not found" in stderr:
        return UnsupportedOperation(f"a tool is missing in {where} while {doing} {ref}: {stderr}")
    if "Permission denied" in stderr:
        return PermissionError(errno.EACCES, f"permission denied in {where} while {doing}: {stderr}", ref)
    if "Read-only file system" in stderr:
        return OSError(errno.EROFS, f"read-only file system in {where} while {doing}: {stderr}", ref)
    return OSError(errno.EIO, f"{doing} {ref} failed in {where} (exit {code}): {stderr}", ref)


def required_literals(pattern: str, *, ignore_case: bool) -> list[str] | None:
    """For each top-level alternative of ``pattern``, the longest literal text a match must contain.

    Conservative: groups, classes, inline flags and anything unfamiliar give
    None. With ``ignore_case`` only ASCII letters other than ``k``/``s`` count
    (RE2 folds those with the Kelvin sign and long s, which grep's C locale does not).
    """
    if not pattern or any(c in pattern for c in "()[]\n\x00"):
        return None
    literals = []
    for branch in pattern.split("|"):
        best = _longest_run(branch, ignore_case)
        if not best:
            return None
        literals.append(best)
    return literals


def _longest_run(branch: str, ignore_case: bool) -> str | None:
    runs: list[str] = []
    run = ""
    i = 0
    while i < len(branch):
        c = branch[i]
        if c == "\\":
            if i + 1 >= len(branch) or branch[i + 1].isalnum():
                runs.append(run)
                run = ""
                i += 2
                continue
            c = branch[i + 1]
            i += 1
        elif c in _OPTIONAL:
            runs.append(run[:-1])
            run = ""
            if c == "{":
                end = branch.find("}", i)
                if end < 0:
                    return None
                i = end
            i += 1
            continue
        elif c in _BREAKS or c == "}":
            runs.append(run)
            run = ""
            i += 1
            continue
        nxt = branch[i + 1] if i + 1 < len(branch) else ""
        usable = c.isascii() and c.isprintable() and not (ignore_case and c.lower() in "ks")
        if nxt in _OPTIONAL or not usable:
            runs.append(run)
            run = ""
        else:
            run += c
        i += 1
    runs.append(run)
    return max(runs, key=len)


def grep_prefilter(pattern: str, path: str, *, ignore_case: bool) -> list[str] | None:
    """``grep`` argv listing the files under ``path`` that contain a required literal, or None.

    None means no literal could be proven: search every file in-process. Exit
    status 1 of the command means "no file", anything above 1 "cannot decide".
    """
    literals = required_literals(pattern, ignore_case=ignore_case)
    if literals is None:
        return None
    flags = ["-r", "-l", "-s", "-F", *(["-i"] if ignore_case else [])]
    return ["grep", *flags, *(arg for lit in literals for arg in ("-e", lit)), "--", f"./{path}"]


def grep_candidates(stdout: str, separators: Sequence[str] = ("\n",)) -> list[str]:
    """Workdir-relative paths from grep's ``-l`` output; names that would leave the workdir are dropped."""
    names = [stdout]
    for sep in separators:
        names = [piece for name in names for piece in name.split(sep)]
    out = []
    for name in names:
        if not name:
            continue
        try:
            out.append(_text.normalise_relative(name))
        except PathOutsideWorkspace:
            continue
    return out
