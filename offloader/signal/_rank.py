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
from collections.abc import Collection
from dataclasses import dataclass, field

from ._code import SOURCE_REACH, greps_one_file, is_code, is_template, starts_like_source
from ._documents import (
    MARKDOWN_REACH,
    after_markdown,
    code_fences,
    in_embedded_document,
    manual_span,
    starts_like_markup,
    starts_like_pydoc,
)
from ._history import RELEASES_REACH, lists_releases_newest_first, starts_like_change_history
from ._lines import (
    WINDOW,
    as_shown,
    decode_window,
    lines_after,
    lines_before,
    neighbours,
    strip_ansi,
    without_prefix,
)
from ._patterns import (
    CHECKED_UNITS,
    CLEAN_VERDICT,
    EXIT_STATUS_LINE,
    FAILED_VERDICT,
    FAILURE_COUNT,
    LEVEL_AT_LOCATION,
    LOCATED,
    LOCATED_DIAGNOSTIC,
    NOT_A_PROGRAM,
    PROGRAM_NAME,
    TOOL_DIAGNOSTIC,
    UNIT_CLEAN_VERDICT,
    classify,
    passed_after_leader,
    without_healthy,
)
from ._prose import SET_APART_REACH, in_running_prose, in_set_apart_block
from ._reference import DESCRIPTION_REACH, describes_option, lists_levels
from ._scan import Scan
from ._tables import in_table_of_records, is_table_row
from ._vcs import HUNK_REACH, MESSAGE_REACH, in_commit_message, in_diff_hunk, is_blame_line, lists_commits

__all__ = ["Unit", "rank", "strip_ansi", "template", "weights"]

#: A tool's word that the error just reported did not stop it (``make: [Makefile:7: prep] Error 1 (ignored)``),
#: and how many lines above it such an error may be.
_IGNORED = re.compile(r"\((error )?ignored\)\s*$", re.IGNORECASE)
IGNORED_REACH = 3
#: A line of source quoted under a diagnostic, after its line number and a bar (rustc's and gcc's
#: ``14 | pub fn f(failed: bool)``): the code the diagnostic is about, not the run's word.
_SOURCE_GUTTER = re.compile(r"[ \t]*[0-9]+[ \t]*\|[ \t]")
#: Characters of a line masked into its template.
TEMPLATE_CHARS = 400
#: The rules under a table's column headers: two columns or more of dashes (``------  ------  ----`` under
#: sqlite3's ``.mode column`` header ``error   failed  avg_retries``): the line above names columns, not failures.
_COLUMN_RULES = re.compile(r"[ \t]*[-=]{2,}([ \t]+[-=]{2,}|[ \t]*\+[-=]{2,})+[ \t]*\r?")
#: A line its writer labels a warning (``WARNING: ...``, ``[warn] ...``, ``npm WARN ...``, a page's
#: ``console.warn: ...``, a logger's ``2026-01-01 09:00:00,000 WARNING payments: ...``): what it says about a
#: failure is a warning, not failure evidence.
_WARNING_LABEL = re.compile(
    r"[ \t]*(\[?([0-9]{4}-[0-9]{2}-[0-9]{2}[T ])?[0-9]{2}:[0-9]{2}:[0-9]{2}([.,][0-9]+)?(Z|[+-][0-9]{2}:?[0-9]{2})?\]?"
    r"[ \t]+)?(\[?(warn|warning)\]?:?[ \t]|console\.warn:|npm WARN\b|W: )",
    re.IGNORECASE,
)
#: What a container or sandbox says about itself while a command runs in it, not what the command did: an
#: interactive bash finds no terminal (``bash: cannot set terminal process group (1): Inappropriate ioctl for
#: device``); while a package installs, Debian's maintainer scripts find no init system to start a service with
#: (``invoke-rc.d: could not determine current runlevel``, ``invoke-rc.d: policy-rc.d denied execution of
#: start.``), debconf no terminal for its dialogs (``debconf: unable to initialize frontend: Dialog`` and the
#: reason in brackets under it), needrestart no kernel or microcode to inspect (``Failed to retrieve available
#: kernel versions.``). Shown, no outcome.
_SANDBOX_NOTICE = re.compile(
    r"[ \t]*(invoke-rc\.d: (could not determine current runlevel|policy-rc\.d denied execution of )"
    r"|bash: cannot set terminal process group \(-?[0-9]+\): Inappropriate ioctl for device"
    r"|debconf: (unable to initialize frontend: |\(|falling back to frontend: |delaying package configuration)"
    r"|Failed to (retrieve available kernel versions|check for processor microcode upgrades)\.?[ \t]*\r?$)"
)
#: A count of failed items (``1500 failed payments``): when DATA_COUNTS lines or more count failed items of one
#: noun (a table's rows, a report's groups), they are the data the run reports. A run counts its own failures once
#: or twice (``found 2 failed deliveries``, then ``2 failed deliveries reported``), or once per unit of its own
#: (:data:`_RUN_UNITS`: its tests, jobs, files), and says it with a failure word besides.
_COUNTED_FAILED_ITEMS = re.compile(r"(?:^|[^\w.:/])[0-9][0-9,]* failed ([a-z]+)")
DATA_COUNTS = 3
_RUN_UNITS = frozenset(
    {
        *CHECKED_UNITS, "test", "step", "task", "job", "build", "target", "file", "hook", "package", "module", "crate",
        "service", "host", "node", "pod", "run", "stage",
    }
)  # fmt: skip
#: Outputs up to this many bytes also get a rarity pass over every line (no keyword needed).
NOVELTY_BYTES = 256 * 1024
#: Up to this many one-off lines are located by ``list.index`` (C), beyond by one Python pass.
_FEW_RARE = 64
#: A template seen more often than this is not failure evidence (a listing, a log format).
REPEATED = 5
#: What a line known to come from stderr adds to its score (its first occurrence, if not repeated).
STDERR_BONUS = 1.0
#: The least score of a failure line's first occurrence: above a one-off line without priors (1.4) and a
#: unit's healthy summary (2.0): a restart loop's traceback, said four times, outranks each worker's ``0 errors``.
FAILURE_FLOOR = 2.05
#: The least score of a summary that counts failures, its last occurrence: above each failure line's first
#: occurrence (3.3), so a compiler's ``11 errors generated.`` is shown before the eleventh error.
FAILURE_TALLY_SCORE = 3.35
#: What a line without priors scores when its template is unique among repeated ones.
NOVEL_SCORE = 1.4
#: A section heading's score (see _headings): below every signal line.
OUTLINE_SCORE = 0.5
#: At most this many headings are added, to an output of at most OUTLINE_BYTES.
OUTLINE_LINES = 24
OUTLINE_BYTES = 64 * 1024
#: A section's heading: a Markdown heading, or a short line of words ending in a colon (``Flat profile:``).
_HEADING_LINE = re.compile(rb"(?:#{1,6}[ \t]+[^\r\n]{1,80}|[A-Z][A-Za-z ()/-]{2,58}:)\r?")
#: A heading has at most this many bytes; at most this many places of each kind are tried.
HEADING_CHARS = 90
OUTLINE_TRIES = 300
#: What a one-off line adds when it starts with a file and line number, as a diagnostic does (``path:12:7: ...``):
#: it outranks the other one-off lines (below a failure word said a few times).
LOCATED_BONUS = 0.03
#: What a one-off line adds when the next line says where it is after an arrow, as rustc, ruff and others put a
#: diagnostic's location under its message (ruff's ``F401 [*] `os` imported but unused`` over `` --> src/x.py:5:8``):
#: a diagnostic without a keyword, shown ahead of the one-off lines and of a failure word said a few times.
ARROWED_BONUS = 0.08
_ARROW_LOCATION = re.compile(r"[ \t]*--> [^\s:]+:[0-9]+")
#: What a one-off line adds when the tool points at it with an arrow and says why (AddressSanitizer's frame
#: objects: ``[32, 128) 'crumb' (line 12) <== Memory access at offset 128 overflows this variable``): more
#: than a program's name, so it is shown ahead of the one-off lines of the run's own progress.
POINTED_BONUS = 0.1
#: An arrow after a line's content that points back at it, then words: ``<== Memory access``, ``<-- here``.
_POINTED = re.compile(r"\S[ \t]+<(==+|--+)[ \t]+[A-Za-z]")
#: What a one-off line adds when a program's name starts it, as the program starts its own messages (``grep:
#: x.db: binary file matches`` among the matches it prints, each one-off and located): more than a location.
PROGRAM_BONUS = 0.04
#: What a one-off line adds when it is a section's banner (pytest's ``==== slowest 20 durations ====``,
#: ``---- Captured log call ----``): the run's outline, shown ahead of the one-off lines inside the sections.
BANNER_BONUS = 0.02
_BANNER = re.compile(r"([=\-*#~_]{3,}) \S.*\S \1[ \t]*")
#: In a run without failure evidence, what a clean verdict said once per unit (each crate's ``test result:
#: ok``, each package's ``ok``) scores, for up to this many units: above a novel line, so a clean run shows
#: each unit's verdict before the lines its units logged (only the last verdict would speak for the run).
UNIT_VERDICT_SCORE = NOVEL_SCORE + 0.1
UNIT_VERDICTS = 30
#: The least score of the first occurrence of a line with a failure word said a few times: above a novel line.
FEW_TIMES_FLOOR = NOVEL_SCORE + 0.05
#: What each later one of a failure said a few times scores (see FEW_RESTATED).
FEW_RESTATED_SCORE = FEW_TIMES_FLOOR + 0.01
#: Only the strongest priors (labels, exceptions, verdicts, exit status) make a line failure evidence.
FAILURE_WEIGHT = 3.0
#: What a later occurrence of a failure that is said only a few times scores when it says something else
#: (a second schema error of the same shape, another column): after every first occurrence, before the tail.
RESTATED_FAILURE_SCORE = 0.5
#: A failure said at most this many times in the run (``2 errors found``: two broken links): each later one is
#: news too, shown after every first occurrence but ahead of the one-off lines and of failure words said a few
#: times (a page titled ``Refund failed``).
FEW_RESTATED = 3
#: The failure weight of a summary that counts failures (``found 2 errors``): as ``1 failed`` weighs.
COUNTED_FAILURE = 2.5
#: The most a failure line in running prose scores (a manual's "exits with a non-zero status"): a failure
#: word in prose, below a one-off line.
PROSE_SCORE = 1.2
#: The most a row of a drawn table whose cell holds a failure message scores: a stored value, shown as the
#: rows around it are (the head and tail of the table, the rows after it), not as a signal.
RECORD_SCORE = 0.1
#: A runner's closing verdict is looked for in this many last lines.
VERDICT_LINES = 30

#: A path: a run of characters other than spaces, quotes, brackets, ``:`` and ``,`` that holds a slash.
#: It is tried only where such a run starts, or where another alternative of _MASK can end inside
#: one (after a closing quote, or after a byte run's ``-ab``/``ab:``); elsewhere it cannot match.
#: The same matches as ``[^...]*[/\\][^...]*`` tried from every character (tested), without
#: re-reading a long run from each of its characters (quadratic in Python's re).
_PATH = (
    r"(?:(?<![^\s'\"():,\[\]`‘’])|(?<=[:-][0-9a-fA-F]{2})|(?<=[0-9a-fA-F]{2}[:-]))"
    r"[^\s'\"():,\[\]/\\]*+[/\\][^\s'\"():,\[\]]*"
)
_MASK_SOURCE = (
    rf"'[^']*'|\"[^\"]*\"|`[^`]*`|‘[^’]*’|{_PATH}"
    r"|\b[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){3,}[:-]?|[\w-]*[0-9][\w-]*"
)
#: The template of a line without priors also masks names joined by underscores (see :func:`template`);
#: a failure line keeps them (six tests failing by name are six reports, not one said six times).
_MASK = re.compile(_MASK_SOURCE + r"|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b")
_MASK_KEEPING_NAMES = re.compile(_MASK_SOURCE)
_NAMES = re.compile(
    rf"{_PATH}|\b[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{{0,4}}\b(?![:(]|\.[A-Z])"  # not a class's module (``x.exc.E``)
    r"|\b[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,4}(?=:\d)"
)
#: Every match of _NAMES holds a slash, a backslash or a dot before a lower-case letter.
_NAME_HINT = re.compile(r"[/\\]|\.[a-z]")
#: A docutils system message's level (``x.rst:30: (ERROR/3) Unexpected indentation.``): a label, not a path.
_SYSTEM_MESSAGE = re.compile(r"\((DEBUG|INFO|WARNING|ERROR|SEVERE)/([0-9])\)")
#: A name joined by hyphens or underscores, in lower case, with a failure word as one of its parts
#: (``audit-failed-jobs``, ``error_handler``, ``max_errors``, ``on-failure``): a package, file, job or
#: setting, not a report; so is COBOL's name in capitals joined by hyphens (``ERROR-CODES``). Codes in capitals
#: joined by underscores (``ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL``) stay words. A versioned
#: symbol (``error@GLIBC_2.2.5`` in ``readelf -r``, ``err@@GLIBC_2.2.5``) is a function's name too.
_FAILURE_WORD_PART = r"(?:errors?|fail(?:ed|ures?|ing|s)?)"
_FAILURE_WORD_CAPS = r"(?:ERRORS?|FAIL(?:ED|URES?|ING|S)?)"
_FAILURE_NAME = re.compile(
    rf"\b[a-z0-9]+(?:[-_][a-z0-9]+)*[-_]{_FAILURE_WORD_PART}\b(?:[-_][a-z0-9]+)*"
    # a dotted name's last part: a queue's ``currency.failed``, a webhook event's ``charge.failed``; a namespace's
    # (Tcl's, C++'s, Rust's) ``::paydesk::alerts::failed``
    rf"|\b[a-z][a-z0-9_]*(?:\.|::){_FAILURE_WORD_PART}\b(?![.:-]?[a-z0-9])"
    rf"|\b{_FAILURE_WORD_PART}(?:[-_][a-z0-9]+)+\b"
    r"|\b\w*(?:err|fail)\w*@@?[A-Z][A-Z0-9]*_[0-9][\w.]*"
    # COBOL's names, in capitals joined by hyphens (``ERROR-CODES LOADED``, ``WS-FAILED-COUNT``)
    rf"|\b[A-Z][A-Z0-9]*(?:-[A-Z0-9]+)*-{_FAILURE_WORD_CAPS}\b(?:-[A-Z0-9]+)*|\b{_FAILURE_WORD_CAPS}(?:-[A-Z][A-Z0-9]*)+\b"
)
#: A number that counts no errors: one a word relates to an error (``retry attempt 2 after error:``, ``step 3 of
#: failures``), and one other than 1 before a noun in the singular, which names what it numbers (``RFC 7807
#: problem``, ``HTTP 500 error``); a count says ``1 fatal error``, ``10 previous errors``. A mark is put after
#: the number so the counted-failure priors do not read it as one.
_NUMBER_NOT_COUNTING = re.compile(
    r"(?i)(\b[0-9][0-9,]*) (?=(after|before|with|without|on|of|for|from|per|since|until|than|by|at|in|to) "
    r"(errors?|failures?)\b)"
    r"|(\b(?<![.,])(?:[2-9]|[1-9][0-9]+)) (?=(error|failure|problem|issue)\b(?![(s]))"
)
#: A parametrized test's id after its name (pytest's ``test_add[timeout-retry]``, ``test_x[declined-error]``):
#: names of its parameters, no report.
_PARAMETRIZED_ID = re.compile(r"(::[\w.]+)\[[^\]\n]*\]")
#: A TAP result's test number (``ok 85 errors: reports ...``): an ordinal, no count of what its name starts with.
_TAP_NUMBER = re.compile(r"^([ \t]*(?:not )?ok [0-9]+)(?= )")
#: A TAP result with a SKIP or TODO directive (``not ok 154 ... # SKIP offline``): by TAP's rules no failure.
_TAP_DIRECTIVE = re.compile(r"(?i)^([ \t]*)not (ok\b.*#[ \t]*(?:skip|todo)\b)")
#: A failure word quoted alone, neither a field's key nor its value: an item (a class label ``np.str_('failed')``,
#: ``'error'`` in a list), not a report. ``"error": "..."`` keeps its key and ``"level": "error"`` its value.
_QUOTED_FAILURE_VALUE = re.compile(
    r"(?<![:=])(?<![:=] )(['\"])(errors?|failed|failures?|failing|fail)\1(?![ \t]*[:=])", re.IGNORECASE
)
#: An exception's name and message in Python's quotes, an item of a sequence another item follows or precedes
#: (a logged tuple of parameters ``[('webhooks', 'TimeoutError: endpoint did not answer'), ...]``): stored
#: data, not a report. JSON's double-quoted items are left alone (a notebook's stored output lists its lines).
_QUOTED_ITEM = re.compile(r"(?<=[(\[,])[ \t]*'[\w.]*(Error|Exception)\b[^'\n]*'(?=[ \t]*[,)\]])")
#: A parameter of a signature named with a failure word, then its type (Rust's ``(amount: u64, failed: bool)``,
#: Python's ``(error: str = "")``, TypeScript's ``(err: Error | null``): a declaration, not a report. Only type
#: names: ``(error: timeout)`` is a report.
_TYPED_PARAMETER = re.compile(
    r"(?<=[(,])[ \t]*\w*(?:err|fail|exception)\w*[ \t]*\??:[ \t]*&?(?:bool|boolean|str|string|String|int|integer"
    r"|[iu](?:8|16|32|64|128|size)|f(?:32|64)|float|double|char|bytes|number|any|object|Error|Exception"
    r"|Option<[^>]*>|Vec<[^>]*>|Box<[^>]*>|Optional\[[^\]]*\]|list\[[^\]]*\]|dict\[[^\]]*\])"
    r"(?=[ \t]*[,)=|])",
    re.IGNORECASE,
)
#: A field of a schema whose name is a failure word, then only its type (pyarrow's ``failed: bool``,
#: ``exception: large_string``; a column listing's ``errors: int64 not null``): a declaration, not a report.
_TYPED_FIELD = re.compile(
    r"[ \t]*-?[ \t]*\w*(error|fail|exception)\w*[ \t]*:[ \t]*(bool(ean)?|str(ing)?|large_string|u?int(8|16|32|64)?"
    r"|float(16|32|64)?|double|decimal[0-9]*\([0-9, ]+\)|(date|time)(32|64)?(\[\w+\])?|timestamp\[[^\]]*\]"
    r"|(large_)?(utf8|binary)|(large_)?list<.*>|struct<.*>|map<.*>|dictionary<.*>|null|object|category)"
    r"( not null)?[ \t]*\r?",
    re.IGNORECASE,
)
#: Every ASCII digit as ``0``: a line's template does not change (each class of _MASK takes all digits alike).
_ZERO_DIGITS = bytes.maketrans(b"123456789", b"000000000")
_ZERO_DIGIT_CHARS = str.maketrans("123456789", "000000000")
#: Every ASCII digit but 0 and 5 as ``1``: the priors' answers do not change (they tell apart
#: 0, 5 (HTTP 5xx), non-zero and any digit; checked by a test).
_PRIOR_DIGITS = bytes.maketrans(b"2346789", b"1111111")


def template(line: str) -> str:
    """The line with quoted strings, paths, byte runs (``5b:6c:05:...``), every token that holds a
    digit (``1207``, ``0x7f3a``, ``web-7d9f8c6b5-x2kq9``, ``12ms``) and every name joined by underscores
    (``fct_audit``: a model, table or test, one of hundreds alike) masked (its first 160 characters)."""
    return _masked(_MASK, line)


def _masked(mask: re.Pattern[str], line: str) -> str:
    """``line`` (its first :data:`TEMPLATE_CHARS`, stripped) with each match of ``mask`` as ``#`` (160 at most)."""
    return mask.sub("#", line.strip()[:TEMPLATE_CHARS])[:160]


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


def rank(scan: Scan, stderr_lines: Collection[int] = ()) -> list[Unit]:
    """Score every candidate line of ``scan`` (and, for small outputs, every rare line).

    A line's template is its masked text plus the priors it matches: lines of one
    shape that differ in what they say (``HTTP/1.1" 200`` vs ``HTTP/1.1" 500``) differ.
    """
    rows: list[tuple[int, int, int, int, str]] = []  # lineno, start, end, focus, text
    mark = scan.mark.decode("utf-8", "replace") if scan.mark else None
    marked: set[int] = set()
    for c in scan.candidates:
        text = decode_window(scan, c.start, c.end, c.focus)
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
    unit_verdicts: list[Unit] = []  # clean verdicts said once per unit of the run (see UNIT_VERDICT_SCORE)
    checklist: list[Unit] = []  # steps a leader of dots joins to their pass verdict (``ruff format.....Passed``)
    verdict = _closing_verdict(rows, row_weights, scan.lines)
    unit_failed = _last_failed_verdict(rows, row_weights, verdict) if verdict else 0
    ignored = {r[0] for r in rows if _IGNORED.search(r[4])}
    reported = _counted_item_rows(rows, row_weights)
    manual = manual_span(scan.data, scan.size)  # a rendered manual page: documentation, not a report
    head = bytes(scan.data[: max(SOURCE_REACH, MARKDOWN_REACH)])
    # a file's text or a help document, not a run's report
    source, numbered = starts_like_source(head), greps_one_file(head)
    written = source or starts_like_markup(head) or starts_like_pydoc(head) or starts_like_change_history(head)
    releases: list[bool] = []  # whether the output lists releases newest first, read at its first failure line
    # a Markdown file's code, where a command chained after the file failed (the run's output follows it)
    chained = written and not source and any(EXIT_STATUS_LINE.fullmatch(r[4].strip()) for r in rows)
    fences = code_fences(scan.data, scan.size) if chained else []
    arrows: list[bool] = []  # whether the output has an arrowed location (see ARROWED_BONUS), read once if asked
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
        if unit.kind == "novel" and ("<=" in text or "<-" in text) and _POINTED.search(text):
            unit.score += POINTED_BONUS  # the tool's own pointer at the culprit among the lines around it
        elif unit.kind == "novel" and PROGRAM_NAME.match(text) and not NOT_A_PROGRAM.match(text):
            unit.score += PROGRAM_BONUS  # the program's own word, among the lines it prints about its input
        elif unit.kind == "novel" and LOCATED.match(text):  # a diagnostic without a keyword (shfmt's
            unit.score += LOCATED_BONUS  # ``x.sh:4:16: reached EOF without matching { with }``)
        elif unit.kind == "novel" and _has_arrows(scan, arrows) and _located_by_an_arrow(scan, end):
            unit.score += ARROWED_BONUS
        elif unit.kind == "novel" and text[:1] in "=-*#~_" and _BANNER.fullmatch(text):
            unit.score += BANNER_BONUS
        if unit_failed < lineno < verdict:  # said before a clean closing verdict: logged by the run, not its outcome
            unit.failure = False
        if lineno in reported:  # one of many counts of failed items: data, neither evidence nor the run's tally
            unit.failure = False
            if unit.kind == "summary":
                unit.kind, unit.score = "word", min(unit.score, PROSE_SCORE)
        if _SOURCE_GUTTER.match(text):  # quoted source
            unit.failure, unit.kind, unit.score = False, "word", min(unit.score, PROSE_SCORE)
        if unit.failure and (_WARNING_LABEL.match(text) or _SANDBOX_NOTICE.match(text)):
            unit.failure = False  # a warning that words a failure, a sandbox's notice: shown, not the outcome
        if unit.failure and _COLUMN_RULES.fullmatch(neighbours(scan, start, end)[1]):  # a table's column headers
            unit.failure, unit.kind, unit.score = False, "word", min(unit.score, PROSE_SCORE)
        if ignored and (lineno in ignored or not ignored.isdisjoint(range(lineno + 1, lineno + 1 + IGNORED_REACH))):
            unit.failure = False  # an error the tool says it ignored (make's ``-`` commands)
        if written and unit.failure and after_markdown(fences, start, text):
            written = False  # the Markdown file ended above: the rest is the failed command's output
        if (unit.failure or (unit.kind == "fail" and unit.score > PROSE_SCORE)) and (
            ((written or _lists_releases(scan, releases)) and not _said_by_the_run(text, source))
            or (manual is not None and manual[0] <= start < manual[1])
            or is_code(text, numbered)
            or (end - start > WINDOW and is_code(decode_window(scan, start, start + WINDOW, start)))  # its start
            or is_template(text)
            or in_embedded_document(scan.data, focus)
            or _in_prose(scan, start, end, text)
            or _in_reference(scan, start, text)
            or in_diff_hunk(text, (upper for _, _, upper in lines_before(scan, start, HUNK_REACH)))
            or _in_commit(scan, start, end, text)
        ):
            unit.failure, unit.kind, unit.score = False, "word", min(unit.score, PROSE_SCORE)
        elif unit.kind == "fail" and unit.score > PROSE_SCORE and is_code(text, numbered):
            unit.kind, unit.score = "word", PROSE_SCORE  # code that words a failure (``raise X("... failed")``)
        elif is_table_row(text) and in_table_of_records(text, *neighbours(scan, start, end)):
            unit.failure, unit.kind, unit.score = False, "word", min(unit.score, RECORD_SCORE)
        if unit.failure and unit.kind == "fail":
            zeroed = text.translate(_ZERO_DIGIT_CHARS)
            if seen[key] > 1 and zeroed not in said:  # the same report about something else
                few = tf <= FEW_RESTATED  # (one of a run's few failures: each is news)
                unit.score = max(unit.score, FEW_RESTATED_SCORE if few else RESTATED_FAILURE_SCORE)
            said.add(zeroed)
        units.append(unit)
        if unit.kind == "summary" and 1 < tf <= UNIT_VERDICTS and UNIT_CLEAN_VERDICT.search(text):
            unit_verdicts.append(unit)
        elif unit.kind == "novel" and passed_after_leader(text) is not None:
            checklist.append(unit)
    if not any(u.failure for u in units):  # a clean run: each unit's verdict, before what the units logged
        # (and each step's of a checklist short enough to show whole: pre-commit's hooks)
        for unit in unit_verdicts + (checklist if len(checklist) <= UNIT_VERDICTS else []):
            unit.score = max(unit.score, UNIT_VERDICT_SCORE)
    if scan.size <= OUTLINE_BYTES:
        units += _headings(scan, {u.start for u in units})
    return units


_TOOL_DIAGNOSTIC = re.compile(TOOL_DIAGNOSTIC.pattern)


def _has_arrows(scan: Scan, memo: list[bool]) -> bool:
    """Whether the output holds an arrow before a location (`` --> ``) anywhere, read once into ``memo``."""
    if not memo:
        memo.append(scan.data.find(b"--> ", 0, scan.size) >= 0)
    return memo[0]


def _located_by_an_arrow(scan: Scan, end: int) -> bool:
    """Whether the line after the one ending at ``end`` says where it is after an arrow (`` --> src/x.py:5:8``)."""
    return any(_ARROW_LOCATION.match(after) for _, _, after in lines_after(scan, end, 1))


def _lists_releases(scan: Scan, memo: list[bool]) -> bool:
    """Whether the output's head lists releases newest first (see :mod:`._history`), read once into ``memo``."""
    if not memo:
        memo.append(lists_releases_newest_first(bytes(scan.data[:RELEASES_REACH])))
    return memo[0]


#: A shell's diagnostic starts with the script and line it is about (``x.sh: line 74: ``, dash's ``x.sh: 5: ``):
#: said by the run, even among the script's own lines that ``bash -v`` echoes.
_SHELL_DIAGNOSTIC = re.compile(r"[^\s:]+: (line )?[0-9]+: \S")


def _said_by_the_run(text: str, source: bool) -> bool:
    """Whether ``text``, met in what starts as a file's text, is the run's own word, not the file's: the
    run's exit status alone on its line (a command chained after ``cat CHANGES.md`` failed), a shell's
    diagnostic, or in what starts as a ``source`` file a program's diagnostic at the line's start (``cat:
    src/retry.py: No such file or directory``, the files ``cat`` could not show among those it did)."""
    if EXIT_STATUS_LINE.fullmatch(text.strip()) or _SHELL_DIAGNOSTIC.match(text):
        return True
    return source and _TOOL_DIAGNOSTIC.match(text) is not None and not NOT_A_PROGRAM.match(text) and not is_code(text)


def _keys(
    texts: list[str], templates: dict[str, str]
) -> tuple[list[tuple[float, float, float, float]], list[tuple[str, tuple[float, ...]]]]:
    """The weights and the (template, weights) key of each line, each computed once per shape.

    Lines that differ only in digits the priors do not tell apart share their weights
    (every digit but 0 and 5 as 1: the priors ask only for 0, 5xx, non-zero or any digit),
    and lines that differ only in digits share a template (``templates``, see :func:`_template_of`).
    """
    weight_memo: dict[bytes, tuple[float, float, float, float]] = {}
    named: dict[str, str] = {}  # templates of lines with priors, names kept
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
        zeroed = raw.translate(_ZERO_DIGITS).decode("utf-8", "surrogatepass")
        if any(weight):  # a line with priors: its names tell its reports apart
            masked = named.get(zeroed)
            if masked is None:
                masked = named[zeroed] = _masked(_MASK_KEEPING_NAMES, zeroed)
            keys.append((masked, weight))
        else:
            keys.append((_template_of(zeroed, templates), weight))
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


def _last_failed_verdict(
    rows: list[tuple[int, int, int, int, str]], levels: list[tuple[float, float, float, float]], verdict: int
) -> int:
    """The line number of the last failing verdict before the clean closing verdict at ``verdict``, or 0.

    A chain of runs (a loop over suites, ``make && pytest; npm test``) closes with its last unit's verdict:
    a unit that said it failed before it (``FAILED (failures=1)``) keeps its failure lines as evidence.
    """
    last = 0
    for (lineno, _, _, _, text), (fail, _, _, _) in zip(rows, levels, strict=True):
        if lineno >= verdict:
            break
        if fail >= COUNTED_FAILURE and FAILED_VERDICT.search(text):
            last = lineno
    return last


def _counted_item_rows(
    rows: list[tuple[int, int, int, int, str]], levels: list[tuple[float, float, float, float]]
) -> set[int]:
    """The lines that count failed items of a noun that DATA_COUNTS lines or more count, without a failure word
    (see :data:`_COUNTED_FAILED_ITEMS`)."""
    by_noun: dict[str, list[int]] = {}
    for (lineno, _, _, _, text), (fail, summary, _, _) in zip(rows, levels, strict=True):
        if summary and fail < FAILURE_WEIGHT and " failed " in text:
            for match in _COUNTED_FAILED_ITEMS.finditer(text):
                if (noun := match.group(1).removesuffix("s")) not in _RUN_UNITS:
                    by_noun.setdefault(noun, []).append(lineno)
    return {lineno for lines in by_noun.values() if len(set(lines)) >= DATA_COUNTS for lineno in lines}


def weights(
    text: str, memo: dict[str, tuple[float, float, float, float]] | None = None
) -> tuple[float, float, float, float]:
    """(fail, summary, word, warn): the strongest prior of each kind in ``text``.

    ``memo`` keeps them by the text left once healthy zeros and names are removed: lines that
    differ only in their paths (``po/cs/refunds.po:2: warning: ...``) are classified once.
    """
    cleaned = without_healthy(text)
    if (passed := passed_after_leader(cleaned)) is not None:
        cleaned = cleaned[passed.start() :]  # what passed is a name: ``error codes are in sync.......Passed``
    if "ok " in cleaned and _TAP_NUMBER.match(cleaned):
        cleaned = _TAP_DIRECTIVE.sub(r"\1\2", _TAP_NUMBER.sub(r"\1 ~", cleaned))
    if "::" in cleaned and "[" in cleaned:
        cleaned = _PARAMETRIZED_ID.sub(r"\1", cleaned)
    if _NAME_HINT.search(cleaned):
        cleaned = _NAMES.sub(" ", _SYSTEM_MESSAGE.sub(r"(\1 \2)", cleaned) if "/" in cleaned else cleaned)
    if ("err" in cleaned or "fail" in cleaned or "ERR" in cleaned or "FAIL" in cleaned) and (
        "-" in cleaned or "_" in cleaned or "." in cleaned or "::" in cleaned
    ):  # (what each match holds)
        cleaned = _FAILURE_NAME.sub(" ", cleaned)
    if ": " in cleaned and "(" in cleaned and ("err" in cleaned or "fail" in cleaned or "xception" in cleaned):
        cleaned = _TYPED_PARAMETER.sub(" ", cleaned)
    if ("error" in cleaned or "failure" in cleaned or "problem" in cleaned or "issue" in cleaned) and (
        _NUMBER_NOT_COUNTING.search(cleaned)
    ):
        cleaned = _NUMBER_NOT_COUNTING.sub(lambda m: f"{m.group(1) or m.group(4)} ~", cleaned)
    if ("'" in cleaned or '"' in cleaned) and ("err" in (lowered := cleaned.lower()) or "fail" in lowered):
        cleaned = _QUOTED_FAILURE_VALUE.sub(" ", cleaned)
        if "'," in cleaned and ("Error" in cleaned or "Exception" in cleaned):
            cleaned = _QUOTED_ITEM.sub(" ", cleaned)
    if memo is not None:
        known = memo.get(cleaned)
        if known is None:
            known = memo[cleaned] = _weights_of_cleaned(cleaned)
        return known
    return _weights_of_cleaned(cleaned)


def _weights_of_cleaned(cleaned: str) -> tuple[float, float, float, float]:
    """``weights`` of a line whose healthy zeros and names are already removed."""
    fail = summary = word = warn = 0.0
    if ":" in cleaned and _TYPED_FIELD.fullmatch(cleaned):
        return fail, summary, word, warn
    for prior, _ in classify(cleaned):
        if prior is TOOL_DIAGNOSTIC and NOT_A_PROGRAM.match(cleaned):
            continue  # ``warning: invalid value, using the default``: a level, not a program
        if prior is LOCATED_DIAGNOSTIC and LEVEL_AT_LOCATION.match(cleaned):
            continue  # ``x.py:12: SyntaxWarning: invalid escape sequence``: a warning
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
    if failure and kind == "summary" and last:  # the run's own count of its failures (``11 errors generated.``)
        score = max(score, FAILURE_TALLY_SCORE)
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
        shapes = [as_shown(x) for x in shapes]
    if scan.prefix is not None:  # each line as its source printed it
        shapes = [without_prefix(scan, x) for x in shapes]
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
            without_prefix(scan, as_shown(pieces[i].decode("utf-8", "replace"))),
        )
        for i in rare
    ]
    return sorted(rows + extra), counts


def _headings(scan: Scan, taken: set[int]) -> list[Unit]:
    """The first section headings of a small output (``Flat profile:``, ``## Usage``) not ``taken`` (by
    their line's start), as units ranked below every signal line: where the head and the tail alone would
    show a clean report's first and last lines, they show its outline.

    A heading is found from its end (a colon ending a line) or its start (``#`` starting one); at most
    :data:`OUTLINE_TRIES` places of each are tried."""
    data, size = scan.data, scan.size
    starts: set[int] = set()
    for mark, offset in ((b":\n", 0), (b":\r\n", 0), (b"\n#", 1)):
        at = data.find(mark, 0, size)
        for _ in range(OUTLINE_TRIES):
            if at < 0:
                break
            start = data.rfind(b"\n", 0, at + offset) + 1
            end = data.find(b"\n", at + offset, size)
            end = size if end < 0 else end
            if end - start <= HEADING_CHARS and _HEADING_LINE.fullmatch(bytes(data[start:end])):
                starts.add(start)
            at = data.find(mark, at + len(mark), size)
    units: list[Unit] = []
    lineno, counted = 1, 0
    for start in sorted(starts - taken)[:OUTLINE_LINES]:
        lineno += data.count(b"\n", counted, start)
        counted = start
        end = data.find(b"\n", start, size)
        units.append(Unit(lineno, start, size if end < 0 else end, start, OUTLINE_SCORE, "novel", False))
    return units


def _in_prose(scan: Scan, start: int, end: int, text: str) -> bool:
    """Whether the line at ``start``-``end`` (shown as ``text``) is inside a wrapped paragraph of prose,
    or in a block a document sets apart from its prose (an example, a table)."""
    if in_running_prose(text, *neighbours(scan, start, end)):
        return True
    return in_set_apart_block(
        text,
        (upper for _, _, upper in lines_before(scan, start, SET_APART_REACH)),
        (lower for _, _, lower in lines_after(scan, end, SET_APART_REACH)),
    )


def _in_reference(scan: Scan, start: int, text: str) -> bool:
    """Whether the line starting at ``start`` (shown as ``text``) describes an option or lists levels."""
    if lists_levels(text):
        return True
    return describes_option(text, (upper for _, _, upper in lines_before(scan, start, DESCRIPTION_REACH)))


def _in_commit(scan: Scan, start: int, end: int, text: str) -> bool:
    """Whether the line at ``start``-``end`` (shown as ``text``) is a commit's message or subject, or a file's
    line under ``git blame`` (see :mod:`._vcs`)."""
    if is_blame_line(text):
        return True
    if in_commit_message(text, (upper for _, _, upper in lines_before(scan, start, MESSAGE_REACH))):
        return True
    return lists_commits(text, *neighbours(scan, start, end))
