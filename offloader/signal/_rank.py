"""Ranking candidate lines: priors, template rarity, structure, position and streams.

A line's *template* is the line with digits, hex, quoted strings and paths masked.
A template seen many times in one output is not news, even when it says
"error" (a compile line, a file in a listing, a commit message); its first
occurrence (the last, for a summary) stands for all of them. A one-off line
among repeated templates is news, whether or not a keyword matched it.
"""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Collection, Iterator
from dataclasses import dataclass, field

from ._code import SOURCE_REACH, is_code, is_template, starts_like_source
from ._documents import MARKDOWN_REACH, in_embedded_document, manual_span, starts_like_markup, starts_like_pydoc
from ._patterns import CLEAN_VERDICT, FAILURE_COUNT, NOT_A_PROGRAM, TOOL_DIAGNOSTIC, classify, without_healthy
from ._prose import SET_APART_REACH, in_running_prose, in_set_apart_block
from ._reference import DESCRIPTION_REACH, describes_option, lists_levels
from ._scan import Scan
from ._vcs import MESSAGE_REACH, in_commit_message, is_blame_line, lists_commits

__all__ = ["Unit", "attach_context", "rank", "strip_ansi", "template", "weights"]

#: A tool's word that the error just reported did not stop it (``make: [Makefile:7: prep] Error 1 (ignored)``),
#: and how many lines above it such an error may be.
_IGNORED = re.compile(r"\((error )?ignored\)\s*$", re.IGNORECASE)
IGNORED_REACH = 3
#: Characters of a line masked into its template.
TEMPLATE_CHARS = 400
#: Characters of a very long line looked at around its match (for classification and templates).
WINDOW = 2048
#: Outputs up to this many bytes also get a rarity pass over every line (no keyword needed).
NOVELTY_BYTES = 256 * 1024
#: Up to this many one-off lines are located by ``list.index`` (C), beyond by one Python pass.
_FEW_RARE = 64
#: A template seen more often than this is not failure evidence (a listing, a log format).
REPEATED = 5
#: What a line known to come from stderr adds to its score (its first occurrence, if not repeated).
STDERR_BONUS = 1.0
#: The least score of a failure line's first occurrence: above a one-off line without priors (1.4).
FAILURE_FLOOR = 1.5
#: What a line without priors scores when its template is unique among repeated ones.
NOVEL_SCORE = 1.4
#: The least score of the first occurrence of a line with a failure word said a few times: above a novel line.
FEW_TIMES_FLOOR = NOVEL_SCORE + 0.05
#: Only the strongest priors (labels, exceptions, verdicts, exit status) make a line failure evidence.
FAILURE_WEIGHT = 3.0
#: What a later occurrence of a failure that is said only a few times scores when it says something else
#: (a second schema error of the same shape, another column): after every first occurrence, before the tail.
RESTATED_FAILURE_SCORE = 0.5
#: The failure weight of a summary that counts failures (``found 2 errors``): as ``1 failed`` weighs.
COUNTED_FAILURE = 2.5
#: The most a failure line in running prose scores (a manual's "exits with a non-zero status"): a failure
#: word in prose, below a one-off line.
PROSE_SCORE = 1.2
#: A line's label (what precedes and makes its first match, see _label) is at most this many bytes.
LABEL_CHARS = 24
#: A runner's closing verdict is looked for in this many last lines.
VERDICT_LINES = 30

_ANSI = re.compile(r"\x1b\[[0-9;:?<=>]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]")
#: A path: a run of characters other than spaces, quotes, brackets, ``:`` and ``,`` that holds a slash.
#: It is tried only where such a run starts, or where another alternative of _MASK can end inside
#: one (after a closing quote, or after a byte run's ``-ab``/``ab:``); elsewhere it cannot match.
#: The same matches as ``[^...]*[/\\][^...]*`` tried from every character (tested), without
#: re-reading a long run from each of its characters (quadratic in Python's re).
_PATH = (
    r"(?:(?<![^\s'\"():,\[\]`‘’])|(?<=[:-][0-9a-fA-F]{2})|(?<=[0-9a-fA-F]{2}[:-]))"
    r"[^\s'\"():,\[\]/\\]*+[/\\][^\s'\"():,\[\]]*"
)
_MASK = re.compile(
    rf"'[^']*'|\"[^\"]*\"|`[^`]*`|‘[^’]*’|{_PATH}"
    r"|\b[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){3,}[:-]?|[\w-]*[0-9][\w-]*"
)
_NAMES = re.compile(
    rf"{_PATH}|\b[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{{0,4}}\b(?![:(])"
    r"|\b[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,4}(?=:\d)"
)
#: Every match of _NAMES holds a slash, a backslash or a dot before a lower-case letter.
_NAME_HINT = re.compile(r"[/\\]|\.[a-z]")
#: A name joined by hyphens or underscores, in lower case, with a failure word as one of its parts
#: (``audit-failed-jobs``, ``error_handler``, ``max_errors``, ``on-failure``): a package, file, job or
#: setting, not a report. Codes in capitals (``ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL``) stay words.
_FAILURE_WORD_PART = r"(?:errors?|fail(?:ed|ures?|ing|s)?)"
_FAILURE_NAME = re.compile(
    rf"\b[a-z0-9]+(?:[-_][a-z0-9]+)*[-_]{_FAILURE_WORD_PART}\b(?:[-_][a-z0-9]+)*"
    rf"|\b{_FAILURE_WORD_PART}(?:[-_][a-z0-9]+)+\b"
)
#: Every ASCII digit as ``0``: a line's template does not change (each class of _MASK takes all digits alike).
_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_ZERO_DIGIT_CHARS = str.maketrans("123456789", "000000000")
#: Every ASCII digit but 0 and 5 as ``1``: the priors' answers do not change (they tell apart
#: 0, 5 (HTTP 5xx), non-zero and any digit; checked by a test).
_PRIOR_DIGITS = bytes.maketrans(b"2346789", b"1111111")
_FRAME_BEFORE = re.compile(r"^\s+(File \"|at |in |from )|^\s+\S.*\(.*:\d+(:\d+)?\)\s*$")
_EXCEPTION_LINE = re.compile(r"^(\w+\.)*\w*(Error|Exception|Exit|Interrupt|Failure)\b|^\s*Caused by\b|^E\s")
#: A field of an indented record (pretty JSON, YAML): ``    "error": "..."``, ``  status: failed``.
_FIELD = re.compile(r"^([ \t]+)(\"[^\"]*\"|[\w.-]+)\s*:")
#: A labelled field of a report: ``   Severity: High``, ``   More Info: https://...``.
_LABELLED_FIELD = re.compile(r"^[ \t]+[A-Za-z][\w -]{0,30}:(\s|$)")
#: Sibling fields before a field that matched (they say which record it is).
SIBLINGS = 4
#: Lines shown from the block indented under a report's first line (its shallowest lines:
#: ``   Severity: High`` ... ``   Location: app/x.py:5:4`` under ``>> Issue: ...``).
BLOCK_LINES = 4
#: How many lines of a block are read for them, at most.
BLOCK_REACH = 12
#: An indented failure line brings the whole block indented deeper under it when that block ends
#: within this many lines (promtool's ``FAILED:`` over its ``exp:[...]`` and ``got:[...]``).
NESTED_REACH = 16
#: How far above an indented line the line its block hangs from (its heading: a file name over
#: a linter's indented findings) is looked for.
HEADING_REACH = 40
#: A line that only says where: a file and line (and column), a colon after them or not.
_WHERE_SOURCE = r"^\s*[^\s:]+:\d+(:\d+)?:?\s*$"
#: How far above a report that names no file the line that names one is looked for, over a
#: compiler's source excerpt (indented lines and a blank line).
NAMED_REACH = 5
#: A line that only says where, ending in a colon or not (``src/ledger_post.f90:11:26:``).
_WHERE = re.compile(_WHERE_SOURCE)
#: A file and line anywhere in a line (``x.go:88``, ``(settle.escript, line 25)``, ``Foo.java(12)``).
_LOCATION = re.compile(r"[\w./\\-]+\.[A-Za-z]\w{0,9}(:\d+|, line \d+|\(\d+\))")
#: A report that says where it is: a path with a folder, or a file and line (a dotted name such as
#: ``orders.id`` in ``UNIQUE constraint failed: orders.id`` is a column, not a place).
_SAYS_WHERE = re.compile(rf"[\w.-]*[/\\][\w.-]+|{_LOCATION.pattern}")
#: How far below ``Traceback (most recent call last):`` its exception line is looked for.
TRACEBACK_REACH = 200
#: A unified diff's file header (``+++ b/path``), and the lines of a hunk's body.
_DIFF_FILE = re.compile(r"^\+\+\+ \S")
_DIFF_BODY = re.compile(r"^([ +\\-]|@@ )")
#: A unified diff's hunk header (``@@ -12,7 +12,9 @@``): the lines under it are a file's text.
_HUNK = re.compile(r"^@@ -[0-9]+(,[0-9]+)? \+[0-9]+(,[0-9]+)? @@")
#: A hunk's header is looked for at most this many lines above one of its lines.
HUNK_REACH = 200
#: A failure line that names a unit after its status: ``[  FAILED  ] spec/tax_spec.lua @ 115: adds line 37
#: (N ms)``, ``--- FAIL: TestTotal (0.00s)``; the name is what the line holds after the status, its time aside.
_UNIT_STATUS = re.compile(r"^\s*(?:\[[^\]]*\]|-{3}\s+[A-Z]+:|[A-Z]{3,}:?)\s+(?P<name>\S.*?)(?:\s+\([^)]*\))?\s*$")
#: A unit's name is this long at least, and the line that began the unit is this many lines above at most.
UNIT_NAME_CHARS = 8
UNIT_REACH = 12
_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):")
_CONTEXT_AFTER = re.compile(
    r"^\s*[\^~]+[\^~\s-]*$|^\s*-->|^\s*\|\s|^\s+(at |File \")|^\s*\d+\s*\|"
    rf"|{_WHERE_SOURCE}"  # a line that only says where (``templates/svc.yaml:20:7``)
    r"|^l\.\d+ "  # TeX's line of the error under its ``! Undefined control sequence.``
    r"|\b(got|expected|want|wanted|actual|left|right|received|but was|found|instead)\b\s*[:=]"
    # a wanted value said in words: ``Package 'x' has version '1.4.2', required version is '>= 2.0'``
    r"|\b(required|expected|wanted) (version|value|type|size|length) (is|was)\b"
    r"|^\s*(Expected|Received|Actual|got|expected|left|right|\+|-)[\s:]"
)


def strip_ansi(text: str) -> str:
    """``text`` without terminal escape sequences."""
    return _ANSI.sub("", text) if "\x1b" in text else text


def template(line: str) -> str:
    """The line with quoted strings, paths, byte runs (``5b:6c:05:...``) and every token that holds a
    digit (``1207``, ``0x7f3a``, ``web-7d9f8c6b5-x2kq9``, ``12ms``) masked (its first 160 characters)."""
    return _MASK.sub("#", line.strip()[:TEMPLATE_CHARS])[:160]


@dataclass(slots=True)
class Unit:
    """A line worth showing, with the lines that explain it (location, got/want, caret)."""

    lineno: int
    start: int
    end: int
    focus: int
    score: float
    kind: str  # fail | summary | warn | word | novel
    failure: bool  # evidence that the run failed (a strong, non-repeated failure line)
    context: list[tuple[int, int, int]] = field(default_factory=list)  # (lineno, start, end) shown with it


def _decode_window(scan: Scan, start: int, end: int, focus: int) -> str:
    if end - start > WINDOW:
        start = max(start, focus - WINDOW // 2)
        end = min(end, start + WINDOW)
    # every carriage-return state of a progress line is read (the match may be in an earlier one)
    return strip_ansi(bytes(scan.data[start:end]).decode("utf-8", "replace")).rstrip("\r").replace("\r", " ")


def rank(scan: Scan, stderr_lines: Collection[int] = ()) -> list[Unit]:
    """Score every candidate line of ``scan`` (and, for small outputs, every rare line).

    A line's template is its masked text plus the priors it matches: lines of one
    shape that differ in what they say (``HTTP/1.1" 200`` vs ``HTTP/1.1" 500``) differ.
    """
    rows: list[tuple[int, int, int, int, str]] = []  # lineno, start, end, focus, text
    mark = scan.mark.decode("utf-8", "replace") if scan.mark else None
    marked: set[int] = set()
    for c in scan.candidates:
        text = _decode_window(scan, c.start, c.end, c.focus)
        if mark is not None and text.startswith(mark):
            text = text[len(mark) :]
            marked.add(c.lineno)
        rows.append((c.lineno, c.start, c.end, c.focus, text))
    line_counts: Counter[str] | None = None
    templates: dict[str, str] = {}  # template of each digit-zeroed line, shared by both passes
    if scan.size <= NOVELTY_BYTES:
        rows, line_counts = _with_rare_lines(scan, rows, templates)
    row_weights, keys = _keys([r[4] for r in rows], templates)
    counts = Counter(keys)
    seen: Counter[tuple[str, tuple[float, ...]]] = Counter()
    last_of = {k: i for i, k in enumerate(keys)}
    units: list[Unit] = []
    said: set[str] = set()  # the failure lines met so far, digits zeroed
    verdict = _closing_verdict(rows, row_weights, scan.lines)
    ignored = {r[0] for r in rows if _IGNORED.search(r[4])}
    manual = manual_span(scan.data, scan.size)  # a rendered manual page: documentation, not a report
    head = bytes(scan.data[: max(SOURCE_REACH, MARKDOWN_REACH)])
    # a file's text or a help document, not a run's report
    written = starts_like_source(head) or starts_like_markup(head) or starts_like_pydoc(head)
    for i, (lineno, start, end, focus, text) in enumerate(rows):
        key = keys[i]
        seen[key] += 1
        tf = counts[key]
        stderr = lineno in marked or lineno in stderr_lines
        if not any(key[1]) and not stderr:  # no prior: rare within the whole output or nothing
            # (past NOVELTY_BYTES the whole output is not counted: its candidates of this template are
            # a lower bound, so 6,000 ``errors=0`` lines, healthy once their zeros are removed, stay out)
            tf = line_counts.get(key[0], 1) if line_counts is not None else tf
            if tf > 1 or not text.strip() or len(key[0]) <= 3:
                continue
        unit = _score(lineno, start, end, focus, key[1], tf, seen[key], last_of[key] == i, scan.lines)
        if stderr:
            unit.score += STDERR_BONUS * (1.0 if seen[key] == 1 else 0.1) / (1.0 + math.log2(tf))
        if lineno < verdict:  # said before a clean closing verdict: logged by the run, not its outcome
            unit.failure = False
        if ignored and (lineno in ignored or not ignored.isdisjoint(range(lineno + 1, lineno + 1 + IGNORED_REACH))):
            unit.failure = False  # an error the tool says it ignored (make's ``-`` commands)
        if unit.failure and (
            written
            or (manual is not None and manual[0] <= start < manual[1])
            or is_code(text)
            or is_template(text)
            or in_embedded_document(scan.data, focus)
            or _in_prose(scan, start, end, text)
            or _in_reference(scan, start, text)
            or _in_diff_hunk(scan, start, text)
            or _in_commit(scan, start, end, text)
        ):
            unit.failure, unit.kind, unit.score = False, "word", min(unit.score, PROSE_SCORE)
        if unit.failure and unit.kind == "fail":
            zeroed = text.translate(_ZERO_DIGIT_CHARS)
            if seen[key] > 1 and zeroed not in said:  # the same report about something else
                unit.score = max(unit.score, RESTATED_FAILURE_SCORE)
            said.add(zeroed)
        units.append(unit)
    return units


def _keys(
    texts: list[str], templates: dict[str, str]
) -> tuple[list[tuple[float, float, float, float]], list[tuple[str, tuple[float, ...]]]]:
    """The weights and the (template, weights) key of each line, each computed once per shape.

    Lines that differ only in digits the priors do not tell apart share their weights
    (every digit but 0 and 5 as 1: the priors ask only for 0, 5xx, non-zero or any digit),
    and lines that differ only in digits share a template (``templates``, see :func:`_template_of`).
    """
    weight_memo: dict[bytes, tuple[float, float, float, float]] = {}
    cleaned_memo: dict[str, tuple[float, float, float, float]] = {}
    row_weights: list[tuple[float, float, float, float]] = []
    keys: list[tuple[str, tuple[float, ...]]] = []
    for text in texts:
        raw = text.encode("utf-8", "surrogatepass")
        shape = raw.translate(_PRIOR_DIGITS)
        weight = weight_memo.get(shape)
        if weight is None:
            weight = weight_memo[shape] = weights(text, cleaned_memo)
        row_weights.append(weight)
        keys.append((_template_of(raw.translate(_ZERO_DIGITS).decode("utf-8", "surrogatepass"), templates), weight))
    return row_weights, keys


def _template_of(zeroed: str, templates: dict[str, str]) -> str:
    """``template`` of a line whose digits are zeroed (the line's own template), once per distinct one."""
    masked = templates.get(zeroed)
    if masked is None:
        masked = templates[zeroed] = template(zeroed)
    return masked


def _closing_verdict(
    rows: list[tuple[int, int, int, int, str]], levels: list[tuple[float, float, float, float]], total: int
) -> int:
    """The line number of a clean closing verdict (``306 passed``, ``BUILD SUCCESS``), or 0.

    It counts only among the last lines, when no summary there mentions a failure
    (once healthy zero counts such as ``0 failed`` are removed) and no failure line follows it.
    """
    verdict = 0
    for (lineno, _, _, _, text), (fail, summary, word, _) in zip(rows, levels, strict=True):
        if lineno <= total - VERDICT_LINES:
            continue
        if summary > 0 and (fail > 0 or word > 0):
            return 0
        if fail == 0 and word == 0 and CLEAN_VERDICT.search(text):
            verdict = lineno
        elif fail >= FAILURE_WEIGHT:
            verdict = 0
    return verdict


def weights(
    text: str, memo: dict[str, tuple[float, float, float, float]] | None = None
) -> tuple[float, float, float, float]:
    """(fail, summary, word, warn): the strongest prior of each kind in ``text``.

    ``memo`` keeps them by the text left once healthy zeros and names are removed: lines that
    differ only in their paths (``po/cs/refunds.po:2: warning: ...``) are classified once.
    """
    cleaned = without_healthy(text)
    if _NAME_HINT.search(cleaned):
        cleaned = _NAMES.sub(" ", cleaned)
    if "-" in cleaned or "_" in cleaned:
        cleaned = _FAILURE_NAME.sub(" ", cleaned)
    if memo is not None:
        known = memo.get(cleaned)
        if known is None:
            known = memo[cleaned] = _weights_of_cleaned(cleaned)
        return known
    return _weights_of_cleaned(cleaned)


def _weights_of_cleaned(cleaned: str) -> tuple[float, float, float, float]:
    """``weights`` of a line whose healthy zeros and names are already removed."""
    fail = summary = word = warn = 0.0
    for prior, _ in classify(cleaned):
        if prior is TOOL_DIAGNOSTIC and NOT_A_PROGRAM.match(cleaned):
            continue  # ``warning: invalid value, using the default``: a level, not a program
        if prior.kind == "fail":
            fail = max(fail, prior.weight)
        elif prior.kind == "summary":
            summary = max(summary, prior.weight)
        elif prior.kind == "word":
            word = max(word, prior.weight)
        elif prior.kind == "warn":
            warn = max(warn, prior.weight)
    if summary and not fail and FAILURE_COUNT.search(cleaned):
        fail = COUNTED_FAILURE
    return fail, summary, word, warn


def _score(
    lineno: int,
    start: int,
    end: int,
    focus: int,
    prior_weights: tuple[float, ...],
    tf: int,
    nth: int,
    last: bool,
    total: int,
) -> Unit:
    fail, summary, word, warn = prior_weights
    rarity = 1.0 / (1.0 + math.log2(tf))
    if summary >= fail and summary > 0:
        kind, base = "summary", summary + (1.0 if lineno > total * 0.9 else 0.0)
        # a summary repeated per unit: only its last occurrence speaks for the run
        score = base * (1.0 if last else 0.25 * rarity)
    elif fail > 0:
        kind, base = "fail", fail + (0.3 if nth == 1 else 0.0)
        score = base * (rarity if nth == 1 else 0.1 * rarity)
    elif word or warn:
        kind = "warn" if warn > word else "word"
        score = max(word, warn) * (rarity if nth == 1 else 0.1 * rarity)
    else:
        kind, score = "novel", NOVEL_SCORE
    # a summary that still names failures once its zero counts are gone (``2399 ok, 1 failed``)
    failure = (fail >= FAILURE_WEIGHT or (kind == "summary" and fail > 0)) and tf <= REPEATED
    if failure and kind == "fail" and nth == 1:
        # a failure said a few times (a restart loop's ``exited: worker (exit status 78)``) still
        # outranks lines that are merely new or use a failure word
        score = max(score, FAILURE_FLOOR)
    elif kind == "fail" and nth == 1 and tf <= REPEATED:
        # a failure word said a few times (pkg-config's ``... could not be satisfied.``, once per query)
        # still outranks lines that are merely new
        score = max(score, FEW_TIMES_FLOOR)
    return Unit(lineno, start, end, focus, score, kind, failure)


def _with_rare_lines(
    scan: Scan, rows: list[tuple[int, int, int, int, str]], templates: dict[str, str]
) -> tuple[list[tuple[int, int, int, int, str]], Counter[str]]:
    """For a small output: template every line; add lines whose template is unique among repeated ones.

    Templates are made from the lines with their digits zeroed (the same templates: every
    digit is masked alike), once per distinct such line: most lines of a templated output
    differ only in their digits, so the lines are counted by the C ``Counter`` and only the
    distinct ones pass through Python.
    """
    raw = bytes(scan.data[: scan.size])
    shapes = raw.translate(_ZERO_DIGITS).decode("utf-8", "replace").split("\n")
    if b"\x1b" in raw or b"\r" in raw:  # else every line is already as shown
        shapes = [_as_shown(x) for x in shapes]
    counts: Counter[str] = Counter()
    unique: list[str] = []  # lines (digits zeroed) whose template no other line has, so far
    for shape, n in Counter(shapes).items():
        masked = _template_of(shape, templates)
        counts[masked] += n
        if n == 1:
            unique.append(shape)
    repeated = sum(n for n in counts.values() if n >= 3)
    if repeated < 0.5 * len(shapes) or len(shapes) < 20:
        return rows, counts  # not a templated output: rarity says nothing here
    rare_shapes = {x for x in unique if counts[templates[x]] == 1 and x.strip() and len(templates[x]) > 3}
    if not rare_shapes:
        return rows, counts
    have = {r[0] for r in rows}
    if len(rare_shapes) <= _FEW_RARE:  # each occurs once: found by the C scan of list.index
        found = sorted(shapes.index(x) for x in rare_shapes)
    else:
        found = [i for i, x in enumerate(shapes) if x in rare_shapes]
    rare = [i for i in found if (i + 1) not in have]
    if not rare:
        return rows, counts
    pieces = raw.split(b"\n")  # aligned with the decoded lines: decoding never adds or drops a newline
    before = list(itertools.accumulate(map(len, pieces), initial=0))  # bytes of the lines before each, newlines aside
    extra = [
        (
            i + 1,
            before[i] + i,
            before[i] + i + len(pieces[i]),
            before[i] + i,
            _as_shown(pieces[i].decode("utf-8", "replace")),
        )
        for i in rare
    ]
    return sorted(rows + extra), counts


def _as_shown(line: str) -> str:
    """A line as a terminal shows it: no escapes, the last carriage-return state."""
    return strip_ansi(line).rstrip("\r").rsplit("\r", 1)[-1]


def _line_before(scan: Scan, start: int) -> tuple[int, int] | None:
    if start <= 0:
        return None
    return scan.data.rfind(b"\n", 0, start - 1) + 1, start - 1


def _line_after(scan: Scan, end: int) -> tuple[int, int] | None:
    if end >= scan.size:
        return None
    stop = scan.data.find(b"\n", end + 1, scan.size)
    return end + 1, scan.size if stop < 0 else stop


def _text(scan: Scan, bounds: tuple[int, int]) -> str:
    start, end = bounds
    return _decode_window(scan, start, end, start)


def _in_prose(scan: Scan, start: int, end: int, text: str) -> bool:
    """Whether the line at ``start``-``end`` (shown as ``text``) is inside a wrapped paragraph of prose,
    or in a block a document sets apart from its prose (an example, a table)."""
    before, after = _line_before(scan, start), _line_after(scan, end)
    if in_running_prose(text, _text(scan, before) if before else "", _text(scan, after) if after else ""):
        return True
    return in_set_apart_block(
        text,
        (upper for _, _, upper in _lines_before(scan, start, SET_APART_REACH)),
        (lower for _, _, lower in _lines_after(scan, end, SET_APART_REACH)),
    )


def _in_reference(scan: Scan, start: int, text: str) -> bool:
    """Whether the line starting at ``start`` (shown as ``text``) describes an option or lists levels."""
    if lists_levels(text):
        return True
    return describes_option(text, (upper for _, _, upper in _lines_before(scan, start, DESCRIPTION_REACH)))


def _in_diff_hunk(scan: Scan, start: int, text: str) -> bool:
    """Whether the line starting at ``start`` (shown as ``text``) is a line of a unified diff's hunk:
    a patch shows a file's text (``+        raise SystemExit("error: %s" % exc)``), not a run's report."""
    if _HUNK.match(text):  # the header's own text is the function the hunk is in
        return True
    if text[:1] not in ("+", "-", " ") or text.startswith(("+++ ", "--- ")):
        return False
    for _, _, upper in _lines_before(scan, start, HUNK_REACH):
        if _HUNK.match(upper):
            return True
        if not _DIFF_BODY.match(upper) or upper.startswith(("+++ ", "--- ")):
            return False
    return False


def _in_commit(scan: Scan, start: int, end: int, text: str) -> bool:
    """Whether the line at ``start``-``end`` (shown as ``text``) is a commit's message or subject, or a file's
    line under ``git blame`` (see :mod:`._vcs`)."""
    if is_blame_line(text):
        return True
    if in_commit_message(text, (upper for _, _, upper in _lines_before(scan, start, MESSAGE_REACH))):
        return True
    before, after = _line_before(scan, start), _line_after(scan, end)
    return lists_commits(text, _text(scan, before) if before else "", _text(scan, after) if after else "")


def _lines_before(scan: Scan, start: int, limit: int) -> Iterator[tuple[int, tuple[int, int], str]]:
    """Up to ``limit`` lines upwards from the line starting at ``start``: (lines back, bounds, text)."""
    for back in range(1, limit + 1):
        bounds = _line_before(scan, start)
        if bounds is None:
            return
        yield back, bounds, _text(scan, bounds)
        start = bounds[0]


def _lines_after(scan: Scan, end: int, limit: int) -> Iterator[tuple[int, tuple[int, int], str]]:
    """Up to ``limit`` lines downwards from the line ending at ``end``: (lines ahead, bounds, text)."""
    for ahead in range(1, limit + 1):
        bounds = _line_after(scan, end)
        if bounds is None:
            return
        yield ahead, bounds, _text(scan, bounds)
        end = bounds[1]


def attach_context(scan: Scan, unit: Unit) -> None:
    """Give a unit its explaining neighbours: the last frame before an exception line, and
    the caret, location or got/want lines after a failure or summary line, or the lines that
    go on under its label (``npm error ...``, ``[ERROR] ...``, ``E   ...``: one report)."""
    if unit.context or unit.kind == "warn":
        return
    text = _text(scan, (unit.start, unit.end))
    label = _label(scan, unit)
    framed = False  # the last frame before an exception line was added
    if _EXCEPTION_LINE.search(text):
        # the last frame: indented lines back to (and with) the nearest frame header
        found: list[tuple[int, int, int]] = []
        for back, bounds, prev in _lines_before(scan, unit.start, 5):
            if not prev.startswith((" ", "\t")):
                break
            found.append((unit.lineno - back, *bounds))
            if _FRAME_BEFORE.search(prev):
                unit.context.extend(found)
                framed = True
                break
    field = _FIELD.match(text)
    if field is not None:
        _add_siblings(scan, unit, field.group(1))
    if text[:1] in (" ", "\t") and not framed:
        _add_heading(scan, unit)
    elif text[:1] in ("+", "-") and text[:4] not in ("+++ ", "--- "):
        _add_diff_file(scan, unit)
    elif _TRACEBACK.match(text):
        _add_traceback_end(scan, unit)
    elif not unit.context and (unit.failure or not _SAYS_WHERE.search(text)):
        _add_named_line_before(scan, unit)
    if unit.failure:
        _add_unit_output(scan, unit, text)
    followed = False  # lines after it were added
    # inside an indented report (an unindented one brings its block below): the lines indented
    # under it, shown only if a location follows them
    nested = text[:1] in (" ", "\t")
    between: list[tuple[int, int, int]] = []
    for ahead, bounds, after in _lines_after(scan, unit.end, 4):
        row = (unit.lineno + ahead, *bounds)
        if (
            _CONTEXT_AFTER.search(after)
            or (label and after.startswith(label) and after[len(label) :].strip())
            or (nested and after[:1] in (" ", "\t") and _LOCATION.search(after))  # ``in function f/1 (x.erl, line 25)``
        ):
            unit.context.extend([*between, row])
            between = []
            followed = True
        elif nested and after.strip() and _indent(after) > _indent(text):  # it goes on (a term on its own line)
            between.append(row)
        else:
            break
    if text[:1] not in (" ", "\t") and not followed:
        _add_block(scan, unit, fields_only=unit.kind != "fail")
    elif nested and not followed and unit.kind == "fail":
        _add_nested_block(scan, unit, _indent(text))
    unit.context[:] = dict.fromkeys(unit.context)  # a line two rules chose (a one-frame traceback's frame) once


def _add_unit_output(scan: Scan, unit: Unit, text: str) -> None:
    """What a failed unit printed: the lines between a failure line that names the unit and the line
    above that names it too, where the unit began (``[ RUN      ] spec/tax_spec.lua @ 115: ...``,
    ``=== RUN   TestTotal``): the assertion and its got/want values (``Passed in: (number) 1890``)."""
    status = _UNIT_STATUS.match(text)
    if status is None or len(status.group("name")) < UNIT_NAME_CHARS:
        return
    name = status.group("name")
    printed: list[tuple[int, int, int]] = []
    for back, bounds, prev in _lines_before(scan, unit.start, UNIT_REACH):
        if name in prev:
            unit.context.extend(reversed(printed))
            return
        printed.append((unit.lineno - back, *bounds))


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" \t"))


def _add_heading(scan: Scan, unit: Unit) -> None:
    """The unindented line an indented line's block hangs from (a file name over its findings),
    when the lines between are all indented and none is blank; else, where a blank line comes
    first, the nearest line above that is indented less (htmlhint's indented path over its
    findings)."""
    indent = _indent(_text(scan, (unit.start, unit.end)))
    nearer: tuple[int, int, int] | None = None
    for back, bounds, prev in _lines_before(scan, unit.start, HEADING_REACH):
        if not prev.strip():
            break
        if _indent(prev) == 0:
            unit.context.append((unit.lineno - back, *bounds))
            return
        if nearer is None and _indent(prev) < indent:
            nearer = (unit.lineno - back, *bounds)
    if nearer is not None:
        unit.context.append(nearer)


def _add_diff_file(scan: Scan, unit: Unit) -> None:
    """The file header (``+++ b/path``) of the hunk a changed line of a unified diff is in."""
    for back, bounds, prev in _lines_before(scan, unit.start, 2 * HEADING_REACH):
        if _DIFF_FILE.match(prev):
            unit.context.append((unit.lineno - back, *bounds))
            return
        if not _DIFF_BODY.match(prev):
            return


def _add_traceback_end(scan: Scan, unit: Unit) -> None:
    """What a traceback's header leads to: its last frame and the exception line that ends it."""
    last_frame: list[tuple[int, int, int]] = []
    for ahead, bounds, line in _lines_after(scan, unit.end, TRACEBACK_REACH):
        if line[:1] in (" ", "\t"):
            if line.lstrip().startswith('File "'):
                last_frame = []
            last_frame.append((unit.lineno + ahead, *bounds))
            continue
        if line.strip():
            unit.context.extend([*last_frame[:3], (unit.lineno + ahead, *bounds)])
        return


def _add_named_line_before(scan: Scan, unit: Unit) -> None:
    """The line just before a report that names no file, or any failure, or past one blank line, when
    that line names one (``== [a.sql] FAIL`` over ``L: 7 | P: 1 | PRS | Found unparsable section``, a
    loop's ``== lessc styles/checkout.less`` over an error that names the file again); or, over
    the source excerpt and caret a compiler prints between them (indented lines, a blank line), its location line
    (gfortran's ``src/ledger_post.f90:11:26:``, then the excerpt, then ``Error: ...``)."""
    excerpt: list[tuple[int, int, int]] = []
    for back, bounds, prev in _lines_before(scan, unit.start, NAMED_REACH):
        row = (unit.lineno - back, *bounds)
        # the line just before, or past one blank line (a loop's ``== batches/batch-037.json``; but a
        # line that only says where ends the report before the blank line: cfn-lint's)
        nearest = back == 1 or (back == 2 and not excerpt and prev[:1] not in (" ", "\t") and not _WHERE.match(prev))
        if nearest and prev.strip() and len(prev) <= 160 and _NAMES.search(prev):
            unit.context.append(row)
            return
        if not prev.strip() or prev[:1] in (" ", "\t"):
            if prev.strip():
                excerpt.insert(0, row)
            continue  # over the excerpt
        if excerpt and _WHERE.match(prev):
            unit.context.extend([row, *excerpt])
        return


def _add_block(scan: Scan, unit: Unit, *, fields_only: bool) -> None:
    """The shallowest lines of the block indented under a report's first line, up to BLOCK_LINES of
    the first BLOCK_REACH (blank lines may part it); deeper lines (stack frames) are left to the
    reader. ``fields_only``: only when those lines are labelled fields (``   Severity: High``), as
    under a line that is not itself a failure (a one-off line over a hex dump brings none)."""
    rows: list[tuple[int, int, int, int]] = []  # (indent, lineno, start, end)
    for ahead, bounds, after in _lines_after(scan, unit.end, BLOCK_REACH):
        if not after.strip():
            continue  # a blank line between the parts of one report (a sanitizer's)
        if _indent(after) == 0:
            break
        rows.append((_indent(after), unit.lineno + ahead, *bounds))
    if not rows:
        return
    shallowest = min(depth for depth, *_ in rows)
    chosen = [(n, s, e) for depth, n, s, e in rows if depth == shallowest][:BLOCK_LINES]
    if fields_only and not all(_LABELLED_FIELD.match(_text(scan, (s, e))) for _, s, e in chosen):
        return
    unit.context.extend(chosen)


def _add_nested_block(scan: Scan, unit: Unit, indent: int) -> None:
    """The lines indented deeper than ``indent`` right under an indented failure line, all of them,
    when they end (a blank line, or a line no deeper) within NESTED_REACH lines; else none."""
    rows: list[tuple[int, int, int]] = []
    for ahead, bounds, after in _lines_after(scan, unit.end, NESTED_REACH + 1):
        if not after.strip() or _indent(after) <= indent:
            unit.context.extend(rows)
            return
        rows.append((unit.lineno + ahead, *bounds))
    if len(rows) < NESTED_REACH + 1:  # the output ends inside the block
        unit.context.extend(rows)


def _label(scan: Scan, unit: Unit) -> str:
    """What a line says before and with its first match, when that is a label (``npm error``,
    ``[ERROR``, ``E   ``): short, at the line's start, without digits (a time stamp is none)."""
    if unit.kind == "novel" or unit.focus - unit.start >= LABEL_CHARS:
        return ""
    label = bytes(scan.data[unit.start : unit.focus + 1]).decode("utf-8", "ignore")
    return label if len(label) >= 3 and not any(ch.isdigit() for ch in label) else ""


def _add_siblings(scan: Scan, unit: Unit, indent: str) -> None:
    """The fields of the same record before ``unit`` (same indentation, back to the record's start)."""
    for back, bounds, prev in _lines_before(scan, unit.start, SIBLINGS):
        field = _FIELD.match(prev)
        if field is None or field.group(1) != indent:
            break
        unit.context.append((unit.lineno - back, *bounds))
