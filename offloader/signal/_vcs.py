"""Version control's listings: a commit's subject or message says what was done, not what failed.

``git log`` and ``git show`` indent a commit's message by four spaces under its date line
(``Date:   Thu Dec 3 ...``): ``fix the abort on a failed merge`` is a change, not a report.
``git log --oneline`` (``--graph``, ``--pretty=oneline``, ``git reflog``) lists one commit a line,
its abbreviated hash in front: ``f213eae signal: a failure line that names a unit ...``. A line
that starts so, among lines that start so, is a subject. The hash holds a digit (a word such as
``defaced`` is none), is followed by one space (``docker ps``'s 12-digit ids are followed by a
column's padding, and its ``Exited (1)`` rows stay reports), and a level word or a bracket after
it (``4bf92f35 ERROR payment failed``, a log keyed by trace id) keeps the line a report.

``git blame`` shows each line of a file behind its commit, author, date and line number
(``f213eae1 (Ada Lovelace 2026-12-01 05:45:31 +0000  89) raise SystemExit("error")``): the
line is the file's text.

A unified diff (``git diff``, ``git log -p``) shows files' text: the lines of a hunk, from its
header (``@@ -10,6 +10,8 @@ ...``) down, are a file's lines, ``+        raise SystemExit("error")``
included.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "HUNK_REACH",
    "MESSAGE_REACH",
    "diff_file_above",
    "in_commit_message",
    "in_diff_hunk",
    "is_blame_line",
    "lists_commits",
]

#: The date line of a commit in ``git log`` and ``git show``, above its message (indented by four spaces).
_COMMIT_DATE = re.compile(r"(?:Date|AuthorDate|CommitDate): ")
#: A commit's date line is looked for at most this many lines above a line of its message.
MESSAGE_REACH = 60
#: A commit listing's line: graph edges, an abbreviated hash with a digit, one space, the subject.
_COMMIT_LINE = re.compile(r"[*|/\\ ]*(?=[0-9a-f]*[0-9])[0-9a-f]{7,40} (?=\S)(?![A-Z]{3,}\b|\[)")
#: ``git blame``'s prefix: hash (``^`` at the boundary), file name if shown, then author, date and
#: line number in parentheses.
_BLAME = re.compile(r"\^?[0-9a-f]{7,40}(?: [^\s(]+)? +\([^()]*?[0-9]{4}-[0-9]{2}-[0-9]{2} [^()]*? [0-9]+\) ")


def in_commit_message(line: str, above: Iterable[str]) -> bool:
    """Whether ``line`` is in a commit's message as ``git log`` shows it: indented by four spaces under
    the commit's date line. ``above``: the lines over it, nearest first, :data:`MESSAGE_REACH` at most."""
    if not line.startswith("    "):
        return False
    for upper in above:
        if _COMMIT_DATE.match(upper):
            return True
        if upper.strip() and not upper.startswith("    "):
            return False
    return False


def lists_commits(line: str, before: str, after: str) -> bool:
    """Whether ``line``, between ``before`` and ``after``, is a commit's subject in a one-line-per-commit
    listing: it and a line next to it start with an abbreviated hash (see the module's docstring)."""
    if not _COMMIT_LINE.match(line):
        return False
    return _COMMIT_LINE.match(before) is not None or _COMMIT_LINE.match(after) is not None


def is_blame_line(line: str) -> bool:
    """Whether ``line`` is a file's line as ``git blame`` shows it."""
    return _BLAME.match(line) is not None


#: A unified diff's file header (``+++ b/path``), and the lines of a hunk's body.
_DIFF_FILE = re.compile(r"^\+\+\+ \S")
_DIFF_BODY = re.compile(r"^([ +\\-]|@@ )")
#: A unified diff's hunk header (``@@ -12,7 +12,9 @@``): the lines under it are a file's text.
_HUNK = re.compile(r"^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@")
#: A hunk's header is looked for at most this many lines above one of its lines.
HUNK_REACH = 200


def in_diff_hunk(line: str, above: Iterable[str]) -> bool:
    """Whether ``line`` is a line of a unified diff's hunk (its header included), under the lines ``above``
    (nearest first, :data:`HUNK_REACH` at most): a patch shows a file's text, not a run's report."""
    if _HUNK.match(line):  # the header's own text is the function the hunk is in
        return True
    if line[:1] not in ("+", "-", " ") or line.startswith(("+++ ", "--- ")):
        return False
    for upper in above:
        if _HUNK.match(upper):
            return True
        if not _DIFF_BODY.match(upper) or upper.startswith(("+++ ", "--- ")):
            return False
    return False


def diff_file_above(above: Iterable[str]) -> int | None:
    """How many lines above a diff's line its file header (``+++ b/path``) is, reading ``above`` (nearest
    first) through the diff's lines; None when a line that is no diff's comes first."""
    for back, upper in enumerate(above, 1):
        if _DIFF_FILE.match(upper):
            return back
        if not _DIFF_BODY.match(upper):
            return None
    return None
