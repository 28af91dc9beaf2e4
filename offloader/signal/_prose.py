"""Running prose: a failure word inside a wrapped paragraph is talk about failures, not a report of one.

A manual page, a ``--help`` text or a rendered document says "returns a non-zero exit status"
or "the merge is aborted" in the middle of sentences that wrap over several lines of the same
indentation. A tool reports a failure differently: under a label (``error:``, ``ERROR``,
``npm ERR!``, ``ValueError:``), at a location (``file:12:``), or on a terse line of its own
among lines that are not sentences, or with the same label starting each line (``npm error enoent
...`` over ``npm error enoent ...``). A line is in running prose when a sentence goes on across
its line break, at one indentation: from a long line above that does not end a sentence into
this one, which starts in lower case; or from this long line into one below that starts in
lower case. A paragraph in capitals (a licence's disclaimer) is read as the same words in
lower case. A list item's text starts after its marker (`` * ``, ``- ``, ``1. ``), at the column
the lines it wraps onto start at, and a quotation (``"git rebase -i --autostash"``) is one word
of its sentence, whatever it quotes.

A document also sets quoted material apart from its prose: an example log line, a table of
error codes, indented under the paragraphs' column, with a blank line on either side, a
sentence or a heading above it and the prose going on below it. A failure word in such a
block is what the document shows, not what the run reports.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = ["SET_APART_REACH", "in_running_prose", "in_set_apart_block", "is_sentence"]

#: A plain word, as prose writes them: letters (an initial capital at most), inner ``'`` or ``-``,
#: an opening parenthesis, closing punctuation. Not a label (``ERROR``, ``ERR!``), a number, a path,
#: an option (``--abort``) or code (``KillMode=``).
_WORD = re.compile(r"[(\"“‘]?[A-Za-z][a-z]*(?:['’-][a-z]+)*[\"”’]?[,.;:)?!]*[\"”’]?")
#: A list item's marker: ``* ``, ``- ``, ``• ``, ``12. ``; the item's text, and the lines it wraps
#: onto, start at the column after it.
_BULLET = re.compile(r"[ ]*(?:[*+•-]|[0-9]{1,3}[.)])[ ]+(?=\S)")
_OPENING = "\"'“‘("
#: A quotation inside a sentence (``"git rebase -i --autostash"``, ``'unexpected_napi_ids'``) is one
#: word of it, whatever it quotes.
_QUOTATION = re.compile(r"\"[^\"]*\"|“[^”]*”|`[^`]*`|(?<!\w)'[^']*'(?!\w)")
#: A sentence has at least this many words ...
SENTENCE_WORDS = 5
#: ... and at least this share of its tokens are plain words.
WORD_SHARE = 0.85
_ENDS_SENTENCE = (".", ":", "!", "?")
#: A line that a sentence goes on from is at least this long: a paragraph is wrapped near a column.
WRAPPED_CHARS = 60
#: A block set apart from a document's prose (an example, a table) is looked at over this many lines
#: either side of its line: a longer block is not a quotation.
SET_APART_REACH = 12
#: A heading has at most this many words.
HEADING_WORDS = 8
#: A table's rule under its header row (``------ -------``, ``=====  ====``, ``───┼───``).
_RULE = re.compile(r"[-=─━┼+| ]*[-=─━]{3}[-=─━┼+| ]*")


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _tokens(line: str) -> list[str]:
    """The words of ``line``, each quotation as one plain word."""
    return _QUOTATION.sub("quoted", line).split()


def _plain(token: str) -> bool:
    return _WORD.fullmatch(token) is not None


def is_sentence(line: str) -> bool:
    """Whether ``line`` is a sentence of plain words that no label starts."""
    tokens = _tokens(line)
    if len(tokens) < SENTENCE_WORDS or tokens[0].endswith(":"):
        return False
    if not (_plain(tokens[0]) and _plain(tokens[1])):  # ``npm ERR! ...``, ``E   ...``, ``27  Out of memory``
        return False
    return sum(map(_plain, tokens)) >= WORD_SHARE * len(tokens)


def _starts_lower(line: str) -> bool:
    """Whether ``line``'s first word starts in lower case (it goes on from the line above)."""
    return line.lstrip().lstrip(_OPENING)[:1].islower()


def _unbulleted(line: str) -> str:
    """``line`` with its list marker, if any, as spaces: its text starts at the column it starts at."""
    bullet = _BULLET.match(line)
    return " " * bullet.end() + line[bullet.end() :] if bullet else line


def _sentence_end(line: str) -> bool:
    """Whether ``line`` ends a sentence begun above: plain words, but for one token at most, the first
    in lower case, and a full stop (``conflict.``, ``return with exit code 63.``)."""
    tokens = _tokens(line)
    if not tokens or not _starts_lower(line) or tokens[0].endswith(":") or not _plain(tokens[0]):
        return False
    if not tokens[-1].endswith("."):
        return False
    return len(tokens) - sum(map(_plain, tokens)) <= (1 if len(tokens) >= 3 else 0)


def _continued(line: str) -> bool:
    """Whether ``line`` breaks off mid-sentence where a wrapped paragraph's line does: long (a
    paragraph is wrapped near a column), not ending a sentence."""
    return len(line.rstrip()) >= WRAPPED_CHARS and not line.rstrip().endswith(_ENDS_SENTENCE)


def in_running_prose(line: str, before: str, after: str) -> bool:
    """Whether ``line``, between ``before`` and ``after``, is part of a wrapped paragraph of prose:
    a sentence goes on across the line break above it or below it.

    Never a line that ends in a colon: it introduces what follows (``Traceback (most recent call
    last):``, ``The following tests failed:``), as a report does. Lines that are each a whole
    sentence (a script's ``echo`` lines) are not a paragraph: nothing goes on across their breaks.
    Lines in capitals next to lines in capitals are read in lower case."""
    line, before, after = _unbulleted(line), _unbulleted(before), _unbulleted(after)
    if line.isupper() and (before.isupper() or after.isupper()):  # a paragraph in capitals (a licence's
        # disclaimer, ``... OR A FAILURE OF THE PROGRAM TO OPERATE ...``) reads as the same words in lower case
        line, before, after = (x.lower() if x.isupper() else x for x in (line, before, after))
    if line.rstrip().endswith(":") or not (is_sentence(line) or _sentence_end(line)):
        return False
    indent = _indent(line)
    goes_on_from_above = (
        _starts_lower(line)
        and is_sentence(before)
        and _indent(before) == indent
        and _continued(before)
        and not _same_label(line, before)
    )
    goes_on_below = (
        is_sentence(line)
        and _continued(line)
        and _indent(after) == indent
        and _starts_lower(after)
        and (is_sentence(after) or _sentence_end(after))
        and not _same_label(line, after)
    )
    return goes_on_from_above or goes_on_below


def _same_label(line: str, other: str) -> bool:
    """Whether ``line`` and ``other`` start with the same two words: a tool's label on each line of its
    report (``npm error enoent ...`` over ``npm error enoent ...``), not a sentence going on."""
    first, second = line.split()[:2], other.split()[:2]
    return len(first) == 2 and first == second


def _heading(line: str) -> bool:
    """Whether ``line`` is a heading: a few plain words, the first capitalised, no closing punctuation."""
    tokens = _tokens(line)
    if not 0 < len(tokens) <= HEADING_WORDS or not tokens[0][:1].isupper():
        return False
    return all(_WORD.fullmatch(t) and t[-1].isalpha() for t in tokens)


def _edge(lines: Iterable[str], indent: int) -> tuple[str | None, list[str]]:
    """The first line past a block indented at least ``indent`` (None unless a blank line sets it
    apart and it sits at a shallower indent), and the block's lines met on the way; ``lines`` are
    read in order away from the block."""
    apart = False
    block: list[str] = []
    for line in lines:
        if not line.strip():
            apart = True
        elif _indent(line) >= indent:
            apart = False  # a blank line inside the block (a code example's paragraphs)
            block.append(line)
        else:
            return (line if apart else None), block
    return None, block


def in_set_apart_block(line: str, above: Iterable[str], below: Iterable[str]) -> bool:
    """Whether ``line`` is in a block a document sets apart from its prose: indented deeper than the
    lines around it, a blank line between, the prose going on below it in a sentence, and above it
    either a sentence that introduces it (``A typical log line looks like this:``) or a heading over
    a ruled table (``Error codes``, then ``code  meaning`` over ``----  -------``), both at one
    indentation. ``above`` and ``below`` are the lines around ``line``, nearest first, at most
    :data:`SET_APART_REACH` each.

    A run that reports a failure between two sentences labels it on a line of its own
    (``Error: ...``, ``The deploy failed:``): that line is not in such a block, and a heading over
    an unruled list of errors (``Summary``) does not set them apart."""
    indent = _indent(line)
    if indent == 0 or not line.strip():
        return False
    top, upper = _edge(above, indent)
    bottom, lower = _edge(below, indent)
    if top is None or bottom is None or _indent(top) != _indent(bottom) or not is_sentence(bottom):
        return False
    if top.rstrip().endswith(":") and is_sentence(top):
        return True
    return _heading(top) and any(_RULE.fullmatch(b.strip()) for b in (*upper, *lower))
