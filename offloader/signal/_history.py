"""Change histories: a NEWS file, a ChangeLog or release notes tells of failures that were fixed.

``zcat /usr/share/doc/bash/changelog.gz`` says "Fixed a bug that caused segmentation faults",
a NEWS file "nohup now always exits with status 127 when it finds an error", a release's notes
quote the compiler's ``error: 'strncat' argument 2 declared attribute 'nonstring'`` that a change
silenced. None of it reports a failure of the run that printed the file. Such a file is told by
how it starts:

- a GNU ChangeLog entry's header: a date, the author's name and address
  (``2022-04-15  Pádraig Brady  <P@draigBrady.com>``, ``Fri Jul 24 10:16:24 CEST 2009 Name <a@b>``)
  over a blank line or the entry's indented text;
- an Emacs mode line in the first line (``GNU coreutils NEWS   -*- outline -*-``): a file's text;
- a history's title among its first lines, with only titles above it: a history file's name or
  a release notes' heading (``GNU grep NEWS``, ``ChangeLog file for zlib``, ``What's new in
  at-spi2-core 2.46.0:``, ``Overview of changes in GLib 2.74.6``), or a word of history with a
  version (``Changes in 23.6``, ``CHANGES FROM 3.3 TO 3.3a``). A title has a few words and does not
  end a sentence; a tool's first line that mentions changes is a sentence or names no version
  (``Watching for file changes with StatReloader``, ``Changes not staged for commit:``);
- a version or history heading underlined (``dbus 1.14.10 (2023-09-01)`` over ``=====``,
  ``v66.1.1`` over ``-------``), or set between rules (``=== release 1.22.0 ===``);
- a version heading over its list of changes (``attr-2.4.44`` over ``- Fix ...``, ``1.3.14`` over
  ``. Bug fixes``). A tool that prints its version first goes on with its own lines, not a list;
- a README's underlined title over a blank line and a paragraph of running prose or a second
  underlined heading (``Docker on Debian`` over ``====``, then ``Please refer to ...``); a tool's
  banner over a rule goes on with its report (fail2ban-regex's ``Running tests``), maybe a list;
- a GitHub README's badges or centred HTML header (``[![Build](...)](...)``, ``<p align="center">``);
- a Python package's metadata (``cat *.dist-info/METADATA``, ``PKG-INFO``): its description is the
  project's README and often its changelog.

A history that starts otherwise (a licence, a note, ASCII art) is told by its entries: among its
first :data:`RELEASES_REACH` bytes, three release headings or more, each a short line after a blank
one, dated (``18 January 2023: Wouter``, ``20221224``, ``v1.5.4 (Feb 2023)``) or versioned
(``Version 7.88.1``), and newest first. A run's report goes forward in time: a nightly job's dated
sections come oldest first, and a log's dated lines carry a clock time.
"""

from __future__ import annotations

import itertools
import re

from ._documents import BLANK, TITLE_RULE
from ._prose import in_running_prose

__all__ = ["lists_releases_newest_first", "starts_like_change_history"]

#: A GNU ChangeLog entry's header: a date (ISO or ``date(1)``'s), maybe a time, a name, an address in angles.
_CHANGELOG_ENTRY = re.compile(
    rb"(?:\d{4}-\d\d-\d\d|(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun) [A-Z][a-z]{2} +\d{1,2} [\d:]+ (?:[A-Z]{3,5} )?\d{4})"
    rb"(?:[ \t]+\d\d:\d\d)?[ \t]+[^\s<>@\d][^<>@\r\n]*<[^\s<>@]+@[^\s<>@]+>[ \t]*"
)
#: An Emacs mode line: ``-*- outline -*-``, ``-*- mode: text; mode: fold -*-``.
_MODE_LINE = re.compile(rb".*-\*-[ \t]*(?:mode:[ \t]*)?[\w-]+[^\r\n]*-\*-.*")
#: A history file's name or a release notes' heading, as titles write them.
_HISTORY_NAME = re.compile(
    rb"\b(?:NEWS|News|CHANGES|CHANGELOG|Change ?[Ll]og|HISTORY|History|RELEASE NOTES|Release [Nn]otes|Release History"
    rb"|What's [Nn]ew|WHAT'S NEW|What has changed|Noteworthy changes|Overview of [Cc]hanges)\b"
)
#: A history file's name in capitals: its title may end a sentence (``GNU Wget NEWS -- history of changes.``).
_HISTORY_FILE = re.compile(rb"\b(?:NEWS|CHANGES|CHANGELOG|ChangeLog)\b")
#: A word of history, in any case: a title with it names a version too (``Changes in 23.6``).
_HISTORY_WORD = re.compile(rb"(?i)\b(?:news|change ?logs?|changes|release notes|history)\b")
#: A version: ``1.14.10``, ``v66.1.1``, ``bash-5.2``, ``version 5``, ``Release 252``.
_VERSION = re.compile(rb"(?<![\w.])v?\d+\.\d+(?:\.\d+)*[a-z]?(?![\w.])|(?i:\b(?:version|release)[ \t]+v?\d+)")
#: A version heading set between rules: ``=== release 1.22.0 ===``, ``----- August 7th 1996 version 2.2a -----``.
_RULED_VERSION = re.compile(rb"([=*#-])\1+[ \t]+[^\r\n]*(?i:\bversion|\brelease)[ \t]+v?\d[^\r\n]*[ \t]\1{2,}[ \t]*")
#: A list item's marker: ``- ``, ``* ``, ``+ ``, ``. ``, ``• ``, ``12. ``.
_LIST_ITEM = re.compile(rb"[ \t]*(?:[-*+.]|\xe2\x80\xa2|\d{1,3}\.)[ \t]+\S")
#: A GitHub README's header: a badge (``[![Build](...)](...)``, ``![logo](...)``) or centred HTML.
_README_HEADER = re.compile(
    rb"\[!\[[^\]\r\n]*\]\([^)\s]+\)\]\(|!\[[^\]\r\n]*\]\([^)\s]+\)"
    rb"|<(?:p|div|h[1-6]|img|picture|a)\b[^>\r\n]*\b(?:align|src|href)="
)
#: A Python package's core metadata starts so (``METADATA``, ``PKG-INFO``).
_PACKAGE_METADATA = re.compile(rb"Metadata-Version: [0-9][0-9.]*[ \t]*")
#: A title has at most this many words and characters.
TITLE_WORDS = 10
TITLE_CHARS = 100
#: A heading over a list of changes has at most this many words (``Python``, ``Bug fixes``).
HEADING_WORDS = 4
#: A history's title is looked for among this many first lines.
TITLE_LINES = 6
#: Release headings are looked for among this many first bytes, and so many make a history.
RELEASES_REACH = 16384
RELEASE_HEADINGS = 3
#: Once so many headings of one kind are met, newest first, the rest is not read.
RELEASES_SEEN = 8

_MONTH = rb"(?P<month>(?i:jan|feb|mar|apr|may|jun|jul|aug|sep|oct|nov|dec)[a-z]*)\.?"
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_YEAR = rb"(?P<year>(?:19|20)\d\d)"
#: A calendar date: ``2022-11-06``, ``2022/11/06``, ``20221224``, ``18 January 2023``, ``October 25, 2022``,
#: ``Feb 2023``. Not part of a name or a path (``backup-2024-05-03``), nor of a time (``2023:10``).
_DATES = [
    re.compile(rb"(?<![\w.:/-])" + date + rb"(?![\w/-]|[.:]\d)")
    for date in (
        _YEAR + rb"([-/.]?)(?P<mm>0[1-9]|1[0-2])\2(?P<day>[0-2]\d|3[01])",
        rb"(?P<day>[0-3]?\d)(?:st|nd|rd|th)?[ -]" + _MONTH + rb",?[ -]" + _YEAR,
        _MONTH + rb",?[ \t]+(?:(?P<day>[0-3]?\d)(?:st|nd|rd|th)?,?[ \t]+)?" + _YEAR,
    )
]
#: A heading's leading version: ``1.5.4``, ``v1.5.4``, ``Version 7.88.1``, ``Release 2.5.0``, ``attr-2.4.44``.
_HEADING_VERSION = re.compile(rb"(?:(?i:version|release)[ \t]+|[\w.+]+-)?v?(\d+(?:\.\d+)+)[a-z]?(?![\w.])")
#: A blank line (its newlines) before a line that starts at its first column.
_BLANK_LINE = re.compile(rb"\n[ \t]*\r?\n(?=\S)")
_DIGIT = re.compile(rb"\d")
#: How no heading starts: blank, or as a list item, markup, a table's row or a quote does.
_NOT_A_HEADING_START = frozenset(b" \t#|<>-*+[")
#: What no release heading holds: a clock time (a log's line), a failure word (a report's section).
_NOT_A_RELEASE = re.compile(rb"\d:\d\d|(?i:err|fail|fatal|panic|abort|exception|traceback)")


def starts_like_change_history(data: bytes) -> bool:
    """Whether ``data`` (an output's first bytes) starts as a change history or a README does (see the
    module's docstring)."""
    lines = [line.rstrip(b"\r") for line in data.lstrip(b" \t\r\n").split(b"\n")]
    if len(lines) < 3:
        return False
    first, second, third = lines[:3]
    if _CHANGELOG_ENTRY.fullmatch(first):
        return BLANK.fullmatch(second) is not None or second[:1] in b" \t"
    if _MODE_LINE.fullmatch(first) or _README_HEADER.match(first) or _PACKAGE_METADATA.fullmatch(first):
        return True
    underlined = TITLE_RULE.fullmatch(second) is not None and _title(first)
    if underlined and (_VERSION.search(first) or _HISTORY_WORD.search(first)):
        return True
    overlined = TITLE_RULE.fullmatch(first) and TITLE_RULE.fullmatch(third) and _title(second)
    if overlined and (_VERSION.search(second) or _HISTORY_WORD.search(second)):
        return True
    for i, line in enumerate(lines[:TITLE_LINES]):
        if _history_title(line):
            return all(BLANK.fullmatch(above) or _title(above) for above in lines[:i])
        if not (BLANK.fullmatch(line) or _title(line)):
            break
    if _RULED_VERSION.fullmatch(first):
        return True
    if _title(first) and _VERSION.search(first) and _over_changes(lines[1:TITLE_LINES]):
        return True
    return underlined and BLANK.fullmatch(third) is not None and _text_begins(lines[3:TITLE_LINES])


def _few_words(text: bytes) -> bool:
    """Whether ``text`` (stripped) is as short as a title is: :data:`TITLE_CHARS` and :data:`TITLE_WORDS`."""
    return 0 < len(text) <= TITLE_CHARS and len(text.split()) <= TITLE_WORDS


def _title(line: bytes) -> bool:
    """Whether ``line`` could be a title: a few words, not a sentence's end, not a list item."""
    text = line.strip()
    return _few_words(text) and not text.endswith(b".") and not text.startswith((b"-", b"*", b"[", b"+"))


def _history_title(line: bytes) -> bool:
    """Whether ``line`` is a history's title: a history file's name (``GNU Wget NEWS -- history of
    user-visible changes.``), or a title with a release notes' heading or with a word of history and a
    version."""
    text = line.strip()
    if not _few_words(text):
        return False
    if _HISTORY_FILE.search(text):
        return True
    if not _title(line):
        return False
    return _HISTORY_NAME.search(text) is not None or (
        _HISTORY_WORD.search(text) is not None and _VERSION.search(text) is not None
    )


def _over_changes(lines: list[bytes]) -> bool:
    """Whether ``lines`` (under a version heading) begin its changes: a list item first, a history's
    title, a heading over a list item or over its rule (``Bug fixes`` over ``---------``), or a paragraph
    of running prose (``This release includes ...``)."""
    text = [line for line in lines if not BLANK.fullmatch(line)]
    if not text:
        return False
    if _LIST_ITEM.match(text[0]) or _history_title(text[0]):
        return True
    if len(text) < 2:
        return False
    heading = len(text[0].split()) <= HEADING_WORDS and _title(text[0])
    if heading and (_LIST_ITEM.match(text[1]) or TITLE_RULE.fullmatch(text[1])):
        return True
    return _prose_begins(text[0], text[1])


def _text_begins(lines: list[bytes]) -> bool:
    """Whether ``lines`` (under a title and a blank line) begin a document's text: a second underlined
    heading or a paragraph of running prose (a banner over a list may head a tool's report)."""
    if len(lines) < 2:
        return False
    if TITLE_RULE.fullmatch(lines[1]):
        return True
    return _prose_begins(lines[0], lines[1])


def _prose_begins(first: bytes, second: bytes) -> bool:
    """Whether a paragraph of running prose begins with ``first`` and goes on into ``second``."""
    return in_running_prose(first.decode("utf-8", "replace"), "", second.decode("utf-8", "replace"))


def lists_releases_newest_first(data: bytes) -> bool:
    """Whether ``data`` (an output's first :data:`RELEASES_REACH` bytes) holds :data:`RELEASE_HEADINGS`
    release headings or more of one kind, dated or versioned, newest first (see the module's docstring)."""
    dated: list[tuple[int, ...]] = []
    versioned: list[tuple[int, ...]] = []
    size = min(len(data), RELEASES_REACH)
    starts = itertools.chain((0,), (found.end() for found in _BLANK_LINE.finditer(data, 0, size)))
    for start in starts:
        end = data.find(b"\n", start, size)
        line = data[start : size if end < 0 else end].rstrip()
        if not line or len(line) > TITLE_CHARS or line[0] in _NOT_A_HEADING_START or not _DIGIT.search(line):
            continue
        if not _title(line) or _NOT_A_RELEASE.search(line):
            continue
        date = _release_date(line)
        version = _HEADING_VERSION.match(line) if date is None else None
        if date is not None:
            dated.append(date)
        elif version is not None:
            versioned.append(tuple(int(part) for part in version.group(1).split(b".")))
        else:
            continue
        keys = dated if date is not None else versioned
        if len(keys) == RELEASES_SEEN and _newest_first(keys):
            return True  # enough said
    return _newest_first(dated) or _newest_first(versioned)


def _release_date(line: bytes) -> tuple[int, int, int] | None:
    """The (year, month, day) of the first date in ``line`` (day 0 when it names none), or None."""
    for pattern in _DATES:
        found = pattern.search(line)
        if found is None:
            continue
        parts = found.groupdict()
        month = parts.get("mm") or _MONTHS.index(parts["month"][:3].lower().decode()) + 1
        return int(parts["year"]), int(month), int(parts["day"] or 0)
    return None


def _newest_first(keys: list[tuple[int, ...]]) -> bool:
    """Whether ``keys`` (in the order met) are enough and go back in time: most steps down, few up."""
    if len(keys) < RELEASE_HEADINGS:
        return False
    down = sum(1 for a, b in itertools.pairwise(keys) if b < a)
    up = sum(1 for a, b in itertools.pairwise(keys) if b > a)
    return down >= RELEASE_HEADINGS - 1 and up <= down // 4
