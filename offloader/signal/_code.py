"""A line of source code says what a program would do about a failure, not that one happened.

An agent reads source files as often as it runs them: ``cat app.py`` shows ``except Exception:``,
``raise SystemExit("error: %s" % exc)`` and ``logger.debug("Exception: %s", ex)``, and none of
it reports a failure of the run that printed it. A statement has a shape no report has:

* a handler: ``except ...:`` (Python), ``catch (...)`` (C-family languages, ``} catch (e) {``);
* a statement that raises, returns or imports: ``raise ValueError(...)``, ``throw new Error(...)``,
  ``return ERROR``, ``return "error", "E", "ERROR"``, ``from pip._internal.cli.status_codes import ERROR, SUCCESS``;
* a block's head: ``if kind == '#ERROR':``, ``elif error:``, ``} else if (failed) {``,
  ``def grok_environment_error(exc, prefix="error: "):``;
* an assignment of an expression: a lower-case name, then ``=``, then a string, a bracket or a
  call (``fail_msg = f'Got unexpected error: {code}'``, ``e = ProtocolError("aborted.", e)``);
  ``status = FAILED`` is a report of a value, not code;
* a call statement: a lower-case name, dotted or not, whose parenthesis, opened right after it,
  closes at the end of the line (``self.fail("Exception: not generated")``, ``print("error:",
  path);``). A report that starts with a call names it and goes on: ``fork() failed (Resource
  temporarily unavailable)``, ``free(): invalid pointer``.

A traceback's code lines are code too; its exception line (``ValueError: ...``) and a test
runner's ``E   `` lines start with a label, never like a statement, so they stay reports.

A message's template is not a message: a line that holds a printf conversion (``error
canonicalizing %s``, ``cannot open %s: %m``), as ``strings`` shows a binary's messages and a
``.po`` file lists them, says what a program would print, with nothing filled in.

A match ``grep -n`` prints is read as the line of code it shows, after the file and line number
in front of it, and a comment there is code too (``#``, ``//``, ``/*`` and a C block's `` * ``).
A match in a document, a source file or a configuration (``README.md:84:...``, ``docs/api.rst-12-...``,
``netlink.h:111:\t__u32 bus_error;``) is the file's text, whatever it says: grep puts the line right
after the number (or its indentation, two spaces or more), where a compiler or a checker puts one
space and its message (``index.rst:12: WARNING: ...``, ``x.tex:12: Undefined control sequence.``,
``ledger.c:214: error: ...``), a column (``README.md:12:81 MD013/line-length ...``) or, for Ruby,
where it failed (``app.rb:3:in 'divide': ...``). A long match (a minified bundle's one line) is read
from its start, where the file and number are. ``grep -n`` of one file puts only the number in front;
when every line starts with one and the numbers go up, a comment after it is the file's too.

A whole source file is code, docstrings and comments included (``Raises:`` sections, a table of
``MachineState.ERROR`` values). It is known by how it starts, as no run's output starts: a
``#!`` line, a Python module docstring, an import or package statement, ``#include``, ``<?php``,
``"use strict"``, a declaration (``const fs = require('fs');``), Perl's ``use strict;`` or POD
(``=head1 NAME``), a ``/*`` or ``//`` comment, or a block of two ``#`` comment lines or a ``#``
comment over one of those starts (one comment alone is a Go build's package header,
``# example.com/app``, above its errors). Line numbers in front, as
``cat -n`` and an agent's Read tool show a file, are looked past. The strings of a program
(``strings /bin/ls``) are its text too: they start with its loader's path
(``/lib64/ld-linux-x86-64.so.2``) and list every message it could print.
"""

from __future__ import annotations

import re

__all__ = ["greps_one_file", "is_code", "is_template", "starts_like_source"]

#: An import statement's start, in Python, Java, Go and JavaScript: ``from x import``, ``import a.b as c``.
_FROM_IMPORT = r"from[ \t]+\.*[\w.]+[ \t]+import[ \t]"
_IMPORT_NAMES = r"import[ \t]+[\w.]+(?:[ \t]*,[ \t]*[\w.]+)*(?:[ \t]+as[ \t]+\w+)?[ \t]*;?"
#: How a source file's first line starts (after a line number, if any).
_SOURCE_START = re.compile(
    rb"#![ \t]*/|[rRuUbB]{0,2}(?:\"\"\"|\'\'\')|"
    + _FROM_IMPORT.encode()
    + rb"|"
    + _IMPORT_NAMES.encode()
    + rb"\r?$|import[ \t]+(?:[{*(\"']|\w+[ \t]+from[ \t])"
    rb"|package[ \t]+[\w.:]+[ \t]*;?\r?$|#include\b|#pragma\b|#ifndef\b|<\?php\b|[\"']use strict[\"']|/\*|//"
    rb"|(?:const|let|var)[ \t]+[\w{}\[\], ]+=|use[ \t]+(?:strict|warnings|[0-9.]+)[ \t]*;|=(?:head[1-4]|pod)\b"
    rb"|/lib(?:64|32|x32)?/ld-[\w.-]+\.so(?:\.[0-9]+)*[ \t]*\r?$"
    # a script wrapped in a function it calls at once (a UMD bundle's ``(function (root, factory) {``), Perl's
    # ``require 5.004;``, Ruby's ``# frozen_string_literal: true`` and a coding comment
    rb"|[(!](?:async[ \t]*)?function\b|require[ \t]+v?[0-9][0-9._]*[ \t]*;"
    rb"|#[ \t]*(?:frozen_string_literal|(?:-\*-[ \t]*)?(?:en)?coding)[ \t]*[:=]"
)
_COMMENT = re.compile(rb"#(?:[ \t#!]|$)")
#: A line number in front of a file's line: ``cat -n`` (``     1\t``), a Read tool (``     1→``).
_LINE_NUMBER = re.compile(rb"[ \t]*[0-9]+(?:\t|\xe2\x86\x92|: |\|)")
#: Only this many bytes at the start are read to tell a source file.
SOURCE_REACH = 1024

_STATEMENT = re.compile(
    r"[ \t]*(?:"
    r"(?:\}[ \t]*)?(?:except\b[^:]*:|catch[ \t]*\([^)]*\))"
    r"|raise[ \t]+[A-Z_a-z][\w.]*(?:\(|[ \t]*$|[ \t]+from\b)"
    r"|throw[ \t]+(?:new[ \t]+)?[A-Z_a-z][\w.]*(?:\(|;|[ \t]*$)"
    r"|return[ \t]+(?:[\w.]+(?:\(|[ \t]*[;,]?[ \t]*$)|f?[\"'][^\"']*[\"'][ \t]*(?:[,;].*)?$)"
    rf"|{_FROM_IMPORT}"
    rf"|{_IMPORT_NAMES}[ \t]*$"
    r"|(?:(?:el)?if|else[ \t]+if|while|for)\b.*[:{][ \t]*$"
    r"|(?:async[ \t]+)?(?:def|class)[ \t]+\w+.*:[ \t]*$"
    r"|(?:[a-z_]\w*\.)*[a-z_]\w*[ \t]*=[ \t]*(?:f?[\"'(\[{]|[A-Za-z_][\w.]*\()"
    r")"
)
#: A call statement's callee: ``print(``, ``self.fail(``, ``await log.error(``, ``console.error(``.
_CALLEE = re.compile(r"[ \t]*(?:await[ \t]+)?(?:[A-Za-z_]\w*\.)*[a-z_]\w*\(")
#: What ``grep -n`` (``-rn``, ``-A``/``-B`` context lines) writes before a matched line.
_GREP_PREFIX = re.compile(r"[^\s:]+(?::[0-9]+:|-[0-9]+-)")
#: What ``grep -n`` writes before a line of the one file it searched: the line number (``-`` on a context line).
_LINE_PREFIX = re.compile(r"[0-9]+[:-]")
_LINE_NUMBER_PREFIX = re.compile(rb"([0-9]{1,9})[:-]")
#: A printf conversion: ``%s``, ``%d``, ``%-8s``, ``%.*s``, ``%lu``, ``%zu``, ``%m``; not ``%%``, ``100%s`` or a
#: URL's ``%20data``.
_CONVERSION = re.compile(
    r"(?<![%\w])%[-+ #0]?(?:\*|[0-9]{1,2})?(?:\.(?:\*|[0-9]{1,2}))?(?:hh|h|ll|l|z|j|t|L)?[sdiuxXcpm](?![A-Za-z0-9])"
)
#: The extensions of the files whose lines ``grep -n`` shows as their text: documents, source code, configuration.
_TEXT_FILE_EXTENSIONS = (
    "md|markdown|rst|adoc|asciidoc|org|html?|tex"
    "|c|h|cc|cpp|cxx|hh|hpp|hxx|m|mm|py|pyi|pyx|js|cjs|mjs|jsx|ts|cts|mts|tsx|vue|svelte|go|rs|java|kt|kts|scala"
    "|groovy|cs|fs|swift|dart|rb|php|pl|pm|lua|sh|bash|zsh|ps1|ex|exs|erl|hrl|hs|ml|mli|clj|cljs|el|scm|rkt|r|jl"
    "|sql|css|scss|sass|less|json|ya?ml|toml|ini|cfg|conf|xml|proto|tf"
)
#: A match ``grep -n`` prints from such a file: its path, line number, and the line right after them (not
#: Ruby's report of where it failed, ``app.rb:3:in 'divide': divided by 0``).
_FILE_TEXT_MATCH = re.compile(
    rf"[^\s:]+\.(?:{_TEXT_FILE_EXTENSIONS})(?::[0-9]+:|-[0-9]+-)(?!in[ \t])(?:[^\s0-9]|[ \t]{{2,}}|\t)"
)
#: How a comment of a file starts: ``#``, ``//``, ``/*`` and the `` * `` of a C block comment's next lines.
_COMMENT_STARTS = ("#", "//", "/*", "* ", "*\t")
_PAIRS = {")": "(", "]": "[", "}": "{"}
_QUOTES = "\"'`"


def is_code(line: str, numbered: bool = False) -> bool:
    """Whether ``line`` is a statement of source code (see the module's docstring), after the file
    and line number ``grep -n`` puts in front of it (``asyncio/locks.py:518:    raise ...``).

    ``numbered``: the output is ``grep -n`` of one file (:func:`greps_one_file`), so a comment after
    the bare line number is the file's too."""
    where = _GREP_PREFIX.match(line)
    if where is not None and _FILE_TEXT_MATCH.match(line):
        return True  # a document's, a source file's or a configuration's line
    if where is not None:
        line = line[where.end() :]
        comment = line.lstrip()
        if comment.startswith(_COMMENT_STARTS) or comment == "*":  # a TAP ``# fail 1`` has no prefix
            return True
    elif (number := _LINE_PREFIX.match(line)) is not None:
        rest = line[number.end() :]
        if _is_statement(rest) or (numbered and rest.lstrip().startswith(_COMMENT_STARTS)):
            return True  # ``grep -n`` of one file (a comment after a bare number may be a test's output: ctest -V)
    return _is_statement(line)


def greps_one_file(data: bytes) -> bool:
    """Whether ``data`` (an output's first bytes) is ``grep -n`` of one file: every line starts with a line
    number (``:`` after a match, ``-`` after a context line, ``--`` between groups), and the numbers go up
    (ctest -V's ``1: ...`` prefix repeats one test's number)."""
    lines = data[:SOURCE_REACH].split(b"\n")[:-1]
    last, numbers = -1, 0
    for line in lines:
        if line == b"--":
            continue
        number = _LINE_NUMBER_PREFIX.match(line)
        if number is None or int(number.group(1)) <= last:
            return False
        last, numbers = int(number.group(1)), numbers + 1
    return numbers >= 5


def _is_statement(line: str) -> bool:
    """Whether ``line`` itself is a statement: a handler, a raise, a block head, an assignment, a call."""
    if _STATEMENT.match(line):
        return True
    callee = _CALLEE.match(line)
    if callee is None:
        return False
    close = _closing(line, callee.end() - 1)
    return close is not None and line[close + 1 :].strip() in ("", ";", ",", ":", ") {", "{")


def is_template(line: str) -> bool:
    """Whether ``line`` is a message's template: it holds a printf conversion (see the module's docstring)."""
    return "%" in line and _CONVERSION.search(line) is not None


def _closing(line: str, opened: int) -> int | None:
    """The index of the bracket that closes the one at ``opened``, skipping quoted strings, or None."""
    stack: list[str] = []
    quote = ""
    i = opened
    while i < len(line):
        char = line[i]
        if quote:
            if char == "\\":
                i += 1
            elif char == quote:
                quote = ""
        elif char in _QUOTES:
            quote = char
        elif char in "([{":
            stack.append(char)
        elif char in _PAIRS:
            if not stack or stack.pop() != _PAIRS[char]:
                return None
            if not stack:
                return i
        i += 1
    return None


def starts_like_source(data: bytes) -> bool:
    """Whether ``data`` (an output's first bytes) starts as a source file does (see the module's
    docstring)."""
    lines = [line for line in data[:SOURCE_REACH].split(b"\n")[:-1] if line.strip()][:2]
    if not lines:
        return False
    first, *rest = (_without_number(line) for line in lines)
    if _SOURCE_START.match(first):
        return True
    # two comment lines, or one over a start of source (``# mypy: allow-untyped-defs`` over a docstring)
    if not rest or _COMMENT.match(first) is None:
        return False
    return _COMMENT.match(rest[0]) is not None or _SOURCE_START.match(rest[0]) is not None


def _without_number(line: bytes) -> bytes:
    number = _LINE_NUMBER.match(line)
    return line[number.end() :] if number else line
