"""Documents: what a manual page or a Markdown file says about failures is talk about failures.

``man git-bundle`` shows ``fatal: Refusing to create empty bundle.`` as an example,
``man pgrep`` a table of exit codes (``3   Fatal error: out of memory etc.``) and gcloud's
pages lists of states and log levels (``SUCCEEDED, or FAILED state``,
``root=FATAL,com.example=INFO``); a changelog says ``fix pre-aborted writes``, a README
quotes ``Error: Cannot find module 'some-library'``. None of it reports a failure of the run
that printed it.

A manual page as ``man`` renders it is framed: its first line, the header, ends with the
page's title and section (``GIT-BUNDLE(1)   Git Manual   GIT-BUNDLE(1)``), its first section
heading is ``NAME``, and its footer line ends with the same title. The lines from the header
to the footer are the page; lines outside it (a command that ran after ``man`` in the same
script) are read as usual.

Python's help (``pydoc logging``, ``help(str)``) starts with its own header over a blank line
(``Help on package logging:``, ``Help on class str in module builtins:``) and is documentation
to its end.

A Markdown or reStructuredText file starts as its markup does:

- a heading over a blank line or a comment (``# Node.js 20 ChangeLog``, ``# Util`` over
  ``<!--introduced_in=v0.10.0-->``). A Go build's package header has no gap under it
  (``# example.com/app`` over ``./main.go:5:2: ...``), nor has a TAP stream's ``# Subtest: name``;
- an underlined title (``Release History`` over ``===============``), or one over- and
  underlined alike over a blank line (RST), with inline markup further on (````literal````,
  ``:mod:`name```, ``[text](url)``, a ``.. contents::`` directive). Tools print such banners
  too: fail2ban-regex's ``Running tests`` over ``=============``, the mysql client's statements
  between ``------`` rules; and a test runner's rules are not under a title: unittest's ``..F``
  progress over ``=====`` is no words, Robot Framework's ruled ``Tests`` runs on without a
  blank line;
- front matter: ``---``, ``key: value`` lines, ``---``, then text that is not more of the same (a
  YAML stream of records goes on with ``key: value``);
- a title block (``% Rust Release Notes``), RST fields (``:title: ...``) or an explicit markup
  start (``.. _quickstart:``, ``.. image:: ...`` over its indented options, a ``..`` comment) or a
  substitution (``|Logo|``), over a blank line or more of its kind;
- a bold title over a blank line (``**To list all jobs**``).

An HTML page starts with its doctype or ``<html>`` (after an XML declaration, if any): a fetched
documentation page, a saved report. An XML document of other kinds (a JUnit report) is not one.

A Debian changelog (``debian/changelog``, ``zcat /usr/share/doc/*/changelog.Debian.gz``) starts with
an entry's header: ``package (version) distribution; urgency=...``; its bullets say what was fixed.

A JSON document can carry such a file in a string: a package index's ``"description"`` holds
the project's README (``"# filesystem_spec\\n\\n[![PyPI version]..."``), an issue tracker's
``"body"`` the issue's Markdown. A failure word inside a string value that starts as a Markdown
or RST file does is that file's text.
"""

from __future__ import annotations

import bisect
import json
import re
from typing import Any

from ._prose import is_sentence

__all__ = [
    "BLANK",
    "MARKDOWN_REACH",
    "TITLE_RULE",
    "after_markdown",
    "code_fences",
    "in_embedded_document",
    "manual_span",
    "starts_like_markup",
    "starts_like_pydoc",
]

#: A Markdown heading: ``# Node.js 20 ChangeLog``, ``## Release notes ##``.
_HEADING = re.compile(rb"#{1,6}[ \t]+[^\s#].*")
#: The header of Python's help: ``Help on built-in function len in module builtins:``.
_PYDOC_HEADER = re.compile(rb"Help on [\w -]+ [\w.<>-]+(?: in (?:module )?[\w.]+)?:\r?\n\r?\n")
#: What a heading stands over: a blank line or a comment (``<!--introduced_in=v0.10.0-->``).
_UNDER_HEADING = re.compile(rb"[ \t]*\r?$|<!--")
#: A title's text: it starts with a letter, a digit, a quotation or emphasis, and holds a word of two letters.
_TITLE_TEXT = re.compile(rb"(?=[^\r\n]*[A-Za-z]{2})[A-Za-z0-9`*\"'(:|\[][^\r\n]*?\r?")
#: A title's over- or underline: one punctuation character repeated, nothing else.
TITLE_RULE = re.compile(rb"([=\-~*^#+`'\"_.:])\1{2,}[ \t]*\r?")
BLANK = re.compile(rb"[ \t]*\r?")
#: Front matter's fence and its ``key: value`` lines.
_FENCE = re.compile(rb"---[ \t]*\r?")
_FIELD = re.compile(rb"[A-Za-z_][\w-]*:(?:[ \t].*)?\r?")
#: A title block's line (``% Title``), an RST field (``:title: ...``), an explicit markup start, a substitution
#: (``|Logo|``).
_MARKUP_LINE = re.compile(
    rb"%[ \t]+\S.*|:[A-Za-z][\w -]*:(?:[ \t].*)?\r?|\.\.(?:[ \t]+\S.*)?\r?|\|[A-Za-z][\w.-]*\|_?[ \t]*\r?"
)
#: A bold title: ``**To list all key phrases detection jobs**``.
_BOLD_TITLE = re.compile(rb"\*\*[^*\s][^*]*\*\*[ \t]*\r?")
_HTML_START = re.compile(rb"(?i)[ \t\r\n]*(?:<\?xml[^>]*\?>[ \t\r\n]*)?(?:<!doctype[ \t]+html\b|<html\b)")
_DEBIAN_CHANGELOG = re.compile(rb"[a-z0-9][a-z0-9.+-]+ \([^()\s]+\) [a-z0-9][\w./ -]*; urgency=[a-z]+.*")
#: Inline markup: ````literal````, ``:mod:`crcmod```, ```link`_``, ``[text](url)``, ``**bold**``, a directive, a
#: substitution (``|PyPI|``).
_INLINE_MARKUP = re.compile(
    rb"``[^`\n]+``|:[a-z]+:`|`[^`\n]+`_|\]\([^)\s]+\)|\*\*[^*\s][^*\n]*\*\*|\n\.\. [a-z-]+::|\|[A-Za-z][\w.-]*\|"
)
#: A Markdown code fence at a line's start (its code's language may follow).
_CODE_FENCE = re.compile(rb"^(?:```|~~~)", re.MULTILINE)
#: What starts a line of Markdown markup: a heading, a list item, a quotation, a table row, a link or an
#: image, HTML, inline code.
_MARKDOWN_MARKUP = re.compile(r"[#>|*+\-\[!<`]|[0-9]+[.)][ \t]")
#: A JSON string's opening quote is looked for at most this many bytes before a match inside it.
JSON_STRING_REACH = 64 * 1024
#: Only this many bytes at the start are read to tell a Markdown or RST file.
MARKDOWN_REACH = 1024
#: A page's title and section, as its header and footer show them: ``GIT-BUNDLE(1)``, ``ssl(3ssl)``,
#: ``Tcl_Eval(3tcl)``, ``after(n)``.
_TITLE = rb"[\w.:+@-]+\((?:[0-9][\w]{0,8}|n|l)\)"
_HEADER = re.compile(rb".*?(" + _TITLE + rb")[ \t]*\r?")
#: The page's first section heading, at the start of a line near the top.
_NAME_HEADING = re.compile(rb"\n(NAME|Name)[ \t]*\r?\n")
_FOOTER_TITLE = re.compile(rb"(" + _TITLE + rb")[ \t]*\r?$")
#: The header is the first line that is not blank, within this many bytes of the start.
HEADER_REACH = 512
#: At most this many lines that end like a footer are tried, from the last one upwards.
FOOTER_TRIES = 8


def manual_span(data: Any, size: int) -> tuple[int, int] | None:
    """The byte range ``[start, end)`` of the manual page that ``data[:size]`` begins with, or None.

    The range runs from the header line to the end of the footer line: the last line that
    ends with the title the header ends with (a title too long for the header overlaps the
    one before it, so the header only needs to end with the footer's title).
    """
    head = bytes(data[: min(size, HEADER_REACH)])
    start = len(head) - len(head.lstrip(b" \t\r\n"))
    line_end = head.find(b"\n", start)
    if line_end < 0:
        return None
    header = _HEADER.fullmatch(head, start, line_end)
    if header is None:
        return None
    if _NAME_HEADING.search(head, line_end) is None:
        return None
    title = header.group(1)
    section = title[title.rindex(b"(") :]
    stop = size
    for _ in range(FOOTER_TRIES):
        found = data.rfind(section, line_end, stop)
        if found < 0:
            return None
        begin = data.rfind(b"\n", line_end, found) + 1
        end = data.find(b"\n", found, size)
        end = size if end < 0 else end
        footer = _FOOTER_TITLE.search(bytes(data[begin:end]))
        if footer is not None and title.endswith(footer.group(1)):
            return start, end
        stop = found
    return None


def starts_like_markup(data: bytes) -> bool:
    """Whether ``data`` (an output's first bytes) starts as a Markdown or RST file, an HTML page or a Debian
    changelog does (see the module's docstring)."""
    if _HTML_START.match(data, 0, MARKDOWN_REACH):
        return True
    lines = data[:MARKDOWN_REACH].lstrip(b" \t\r\n").split(b"\n")
    if len(lines) < 2:
        return False
    first, second = lines[0], lines[1]
    if _DEBIAN_CHANGELOG.fullmatch(first.rstrip(b"\r")):
        return True
    if _HEADING.fullmatch(first):
        return _UNDER_HEADING.match(second) is not None
    if _BOLD_TITLE.fullmatch(first):
        return BLANK.fullmatch(second) is not None
    if _FENCE.fullmatch(first):
        return _after_front_matter(lines[1:])
    if _MARKUP_LINE.fullmatch(first):
        if first.startswith(b"..") and second.startswith((b" ", b"\t")):  # a comment's text, a directive's options
            return True
        return BLANK.fullmatch(second) is not None or _MARKUP_LINE.fullmatch(second) is not None
    return _underlined_title(lines) and _INLINE_MARKUP.search(data, 0, MARKDOWN_REACH) is not None


def _underlined_title(lines: list[bytes]) -> bool:
    """Whether ``lines`` start with an underlined title, or one over- and underlined alike over a blank line."""
    rule = TITLE_RULE.fullmatch(lines[0])
    if rule is not None:  # overlined: the rule, the title, the same rule
        if len(lines) < 4 or not _TITLE_TEXT.fullmatch(lines[1].strip()):
            return False
        under = TITLE_RULE.fullmatch(lines[2])
        return under is not None and under.group(1) == rule.group(1) and BLANK.fullmatch(lines[3]) is not None
    return _TITLE_TEXT.fullmatch(lines[0]) is not None and TITLE_RULE.fullmatch(lines[1]) is not None


def _after_front_matter(lines: list[bytes]) -> bool:
    """Whether ``lines`` (after an opening ``---``) are ``key: value`` lines closed by ``---``, then text
    that is not more of the same."""
    fields = 0
    for i, line in enumerate(lines):
        if _FENCE.fullmatch(line):
            rest = [x for x in lines[i + 1 : i + 4] if not BLANK.fullmatch(x)]
            return fields > 0 and bool(rest) and not (_FIELD.fullmatch(rest[0]) or _FENCE.fullmatch(rest[0]))
        if _FIELD.fullmatch(line):
            fields += 1
        elif not (line.startswith((b" ", b"\t", b"-")) or BLANK.fullmatch(line)):  # a value continued, a list item
            return False
    return False


def in_embedded_document(data: Any, at: int) -> bool:
    """Whether byte ``at`` of ``data`` is inside a JSON string value that starts as a Markdown or RST file
    does (see the module's docstring): its opening quote, the first one before ``at`` that no backslash
    escapes, follows a colon, and the value's first characters, unescaped, start like such a file."""
    low = max(0, at - JSON_STRING_REACH)
    i = at
    while True:
        quote = data.rfind(b'"', low, i)
        if quote < 0:
            return False
        if not _escaped(data, quote, low):
            break
        i = quote
    j = quote
    while j > low and data[j - 1] in b" \t":
        j -= 1
    if j == low or data[j - 1] != 0x3A:  # not a value: a key, or outside any string
        return False
    value = _unescaped(bytes(data[quote + 1 : quote + 1 + 2 * MARKDOWN_REACH]))
    return value is not None and starts_like_markup(value.encode("utf-8", "surrogatepass"))


def _escaped(data: Any, i: int, low: int) -> bool:
    """Whether the byte at ``i`` of ``data`` follows an odd run of backslashes (counted back to ``low``)."""
    k = i
    while k > low and data[k - 1] == 0x5C:
        k -= 1
    return (i - k) % 2 == 1


def _unescaped(raw: bytes) -> str | None:
    """A JSON string's first characters from its escaped bytes ``raw`` (the string may go on past them)."""
    end = len(raw)
    i = raw.find(b'"')
    while i >= 0:  # the closing quote: the first one no backslash escapes
        if not _escaped(raw, i, 0):
            end = i
            break
        i = raw.find(b'"', i + 1)
    for cut in range(end, max(-1, end - 7), -1):  # an escape cut short (``\u00``) is dropped
        try:
            value = json.loads(b'"' + raw[:cut] + b'"')
        except ValueError:
            continue
        return value if isinstance(value, str) else None
    return None


def code_fences(data: Any, size: int) -> list[int]:
    """The offsets of the lines of ``data[:size]`` that open or close a Markdown code fence."""
    return [m.start() for m in _CODE_FENCE.finditer(data, 0, size)]


def after_markdown(fences: list[int], at: int, text: str) -> bool:
    """Whether the line at byte ``at`` (shown as ``text``), in the output of a run that read a Markdown
    file setting its code apart in ``fences`` and then failed, is the failed command's, not the file's:
    outside every fence, at the line's start, neither markup (a heading, a list item, a quotation, a
    table row, a link, HTML) nor a sentence. Such a file quotes output in its fences and talks in
    sentences (``cat README.md && npm test``: the test runner's ``not ok 1 - ...`` after the file)."""
    if len(fences) < 2 or bisect.bisect(fences, at) % 2:
        return False
    return text[:1] not in (" ", "\t") and _MARKDOWN_MARKUP.match(text) is None and not is_sentence(text)


def starts_like_pydoc(data: bytes) -> bool:
    """Whether ``data`` (an output's first bytes) starts as Python's help does (see the module's docstring)."""
    return _PYDOC_HEADER.match(data.lstrip(b"\r\n")) is not None
