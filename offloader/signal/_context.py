"""The lines that explain a chosen line: its location, its got/want values, its last frame.

A line worth showing often needs a neighbour to be understood: the last frame before an
exception line, the caret and location lines a compiler prints under its error, the lines that
go on under a report's label (``npm error ...``), the heading a linter's indented findings hang
from, the file header of a changed line of a diff, what a failed unit printed since it began.
Each rule reads a few lines around the unit and adds them to its context, shown with it.
"""

from __future__ import annotations

import re

from ._lines import indent_of, lines_after, lines_before, text_of
from ._patterns import passed_after_leader
from ._rank import _NAMES, Unit
from ._scan import Scan
from ._vcs import diff_file_above

__all__ = ["attach_context"]

#: The file a located diagnostic is about (``invoices/inv-0251.xml`` of ``invoices/inv-0251.xml:34: ...``).
_LOCATED_FILE = re.compile(r"([^\s:]+\.\w+):[0-9]+[:,]")
#: A line that only points: spaces and a caret (``                  ^``), maybe with tildes under the rest.
_CARET_LINE = re.compile(r"[ \t]*\^[~^ \t]*\r?")
#: A word that says something failed.
_FAILURE_WORD = re.compile(r"(?i)\b(fail(s|ed|ure|ing)?|errors?|invalid)\b")
#: A line's label (what precedes and makes its first match, see _label) is at most this many bytes.
LABEL_CHARS = 24
_FRAME_BEFORE = re.compile(r"^\s+(File \"|at |in |from )|^\s+\S.*\(.*:\d+(:\d+)?\)\s*$")
#: A test runner's line that starts a unit (GoogleTest's ``[ RUN      ] pricing.overflow``, Go's ``=== RUN   TestX``,
#: JUnit XML's ``<testcase name="...">``):
#: a report right under it (a sanitizer's ``runtime error: ...``) is that unit's.
_UNIT_START = re.compile(r"[ \t]*(\[ RUN +\]|=== RUN\b|<testcase\b)")
#: A Python traceback's frame header, and a frame in an installed library, the interpreter's own, or code a
#: library made with ``exec`` (alembic's ``File "<string>", line 8, in create_index``).
_PYTHON_FRAME = re.compile(r"[ \t]+File \"[^\"]+\", line [0-9]+")
_LIBRARY_FRAME = re.compile(
    r"[/\\](site-packages|dist-packages|lib/python[0-9.]+|node_modules)[/\\]|<frozen |\"<string>\""
)
_EXCEPTION_LINE = re.compile(r"^(\w+\.)*\w*(Error|Exception|Exit|Interrupt|Failure)\b|^\s*Caused by\b|^E\s")
#: A field of an indented record (pretty JSON, YAML): ``    "error": "..."``, ``  status: failed``.
_FIELD = re.compile(r"^([ \t]+)(\"[^\"]*\"|[\w.-]+)\s*:")
#: A labelled field of a report: ``   Severity: High``, ``   More Info: https://...``.
_LABELLED_FIELD = re.compile(r"^[ \t]+[A-Za-z][\w -]{0,30}:(\s|$)")
#: Sibling fields before a field that matched (they say which record it is).
SIBLINGS = 4
#: A field that names its record, and the keys that do, best first: ``"Name": "/nightly_export"``, ``"id": 7``.
_NAMING_KEYS = ("name", "title", "key", "slug", "id", "uid")
_NAMING_FIELD = re.compile(r'^([ \t]*)"((?i:name|title|key|slug|id|uid))"\s*:\s*("[^"]*"|-?\d+)\s*,?\s*$')
#: A field whose value is an object (``"State": {``).
_OBJECT_FIELD = re.compile(r'^[ \t]*"[^"]*"\s*:\s*\{\s*$')
#: How far from a failure field the field that names its record is looked for, up and down.
RECORD_NAME_REACH = 60
#: A field's label in a record laid out in columns: capitalised words (``Result``, ``Parent URL``, ``D/L time``).
_LABEL_SOURCE = r"[A-Z][A-Za-z/.-]*(?: [A-Za-z/.-]+)*"
_LABEL = re.compile(_LABEL_SOURCE)
#: A field line that pads its label to the value's column (two spaces or more): ``Result     Error: 404``.
_ALIGNED_FIELD = re.compile(rf"^{_LABEL_SOURCE}  +(?=\S)")
#: How far above a field of an aligned record its first field is looked for.
RECORD_REACH = 12
#: Lines shown from the block indented under a report's first line (its shallowest lines:
#: ``   Severity: High`` ... ``   Location: app/x.py:5:4`` under ``>> Issue: ...``).
BLOCK_LINES = 4
#: How many lines of a block are read for them, at most.
BLOCK_REACH = 12
#: A failure's heading brings the paragraph under it when a blank line ends it within this many lines.
PARAGRAPH_REACH = 8
#: A rule under a heading (``=====``, ``-----``).
_RULE = re.compile(r"\s*[=\-_*~]{3,}\s*")
#: An indented failure line brings the whole block indented deeper under it when that block ends
#: within this many lines (promtool's ``FAILED:`` over its ``exp:[...]`` and ``got:[...]``).
NESTED_REACH = 16
#: How far above an indented line the line its block hangs from (its heading: a file name over
#: a linter's indented findings) is looked for.
HEADING_REACH = 40
#: A line that is only a file's path (semgrep's ``    src/shop/ledger/export.py`` over its findings).
_FILE_ALONE = re.compile(r"^[ \t]*(?:[\w.-]*/)*[\w.-]+\.[A-Za-z][\w]{0,7}[ \t]*$")
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
#: A line that starts a section of an output: ``tail``'s and ``head``'s ``==> logs/x.log <==`` over each file, a
#: loop's ``== batches/batch_07.json`` over each item; how far above a failure it is looked for, in bytes.
_SECTION_MARKER = re.compile(r"==> \S.* <==|==? [^\s=][^=\n]{0,160}")
SECTION_REACH = 262_144
#: The first section's header is looked for in this many first bytes before any other is looked for.
SECTION_HEAD = 4096
#: PHP's stack trace under an uncaught exception: its frames (``#0 /src/x.php(22): f()``, ``#3 {main}``), the line
#: that ends it, and how many lines down that line is looked for.
_PHP_FRAME = re.compile(r"[ \t]*(PHP +)?#[0-9]+ ")
_PHP_THROWN_IN = re.compile(r"[ \t]*(PHP +)?thrown in \S.* on line [0-9]+")
PHP_STACK_REACH = 40
#: A template's instantiation chain over g++'s error in it: each link, and the project's line that starts it.
_INSTANTIATION_CHAIN = re.compile(r": In (instantiation|substitution) of |:[0-9]+:[0-9]+:\s+required (from|by) ")
_REQUIRED_FROM_HERE = re.compile(r":[0-9]+:[0-9]+:\s+required from here\s*$")
#: How many lines of that chain are read upwards, at most.
TEMPLATE_CHAIN_REACH = 8
#: How far below ``Traceback (most recent call last):`` its exception line is looked for.
TRACEBACK_REACH = 200
#: The line just before a traceback's header is shown with it when it is at most this long.
BEFORE_TRACEBACK_CHARS = 160
#: A failure line that names a unit after its status: ``[  FAILED  ] spec/tax_spec.lua @ 115: adds line 37
#: (N ms)``, ``--- FAIL: TestTotal (0.00s)``; the name is what the line holds after the status, its time aside.
_UNIT_STATUS = re.compile(r"^\s*(?:\[[^\]]*\]|-{3}\s+[A-Z]+:|[A-Z]{3,}:?)\s+(?P<name>\S.*?)(?:\s+\([^)]*\))?\s*$")
#: A unit's name is this long at least, and the line that began the unit is this many lines above at most.
UNIT_NAME_CHARS = 8
UNIT_REACH = 12
_TRACEBACK = re.compile(r"^\s*Traceback \(most recent call last\):")
#: GHC's stack of an ``error`` call: its message is the line above, where it was called the line below.
_CALL_STACK = re.compile(r"CallStack \(from HasCallStack\):")
_CONTEXT_AFTER = re.compile(
    r"^\s*[\^~]+[\^~\s-]*$|^\s*-->|^\s*\|\s|^\s+(at |File \")|^\s*\d+\s*\|"
    rf"|{_WHERE_SOURCE}"  # a line that only says where (``templates/svc.yaml:20:7``)
    r"|^\s*[A-Z][a-z]+( [a-z]+)?:\s+[^\s:]+:\d+(:\d+)?\s*$"  # ... after its label (Ansible's ``Origin: x.yml:8:3``)
    r"|^l\.\d+ "  # TeX's line of the error under its ``! Undefined control sequence.``
    r"|^\t\S+:\d+ \+0x[0-9a-f]+$"  # a Go frame's file and line under its function
    r"|\b(got|expected|want|wanted|actual|left|right|received|but was|found|instead)\b\s*[:=]"
    # a wanted value said in words: ``Package 'x' has version '1.4.2', required version is '>= 2.0'``
    r"|\b(required|expected|wanted) (version|value|type|size|length) (is|was)\b"
    r"|^\s*(Expected|Received|Actual|got|expected|left|right|\+|-)[\s:]"
)

#: A failure line that is only its verdict, after its task's name or not (ant's ``    [junit] \tFAILED`` under
#: ``    [junit] Testcase: testX took 0.003 sec``; pytest -v's ``FAILED   [ 37%]`` when the test printed after its
#: name): what failed is the line above it.
_BARE_VERDICT = re.compile(
    r"([ \t]*\[[\w.-]+\])?[ \t]*(FAILED|FAILURE|FAIL|ERROR|ERRORED|CRASHED|TIMEOUT)[.!]?[ \t]*"
    r"(\[[ \t]*[0-9]{1,3}%\][ \t]*)?\r?"
)

#: Warnings logged between a traceback and the line that says what the program was doing, looked past.
WARNINGS_BEFORE_TRACEBACK = 2
_WARNING_LEVEL = re.compile(r"\b(WARN|WARNING|Warning)\b")

#: A command-line parser's usage line, and how far above its error it is looked for (the usage wraps, and a
#: ``Try ... --help`` line and a blank line may come between).
_USAGE = re.compile(r"[ \t]*usage: \S", re.IGNORECASE)
USAGE_REACH = 6

#: A process stopped from outside: ``timeout``'s status 124, a SIGKILL's 137 or a SIGTERM's 143, the shell's
#: ``Killed``. The line it printed last, right above, says what it was doing (``waiting for lease ...``).
_STOPPED = re.compile(r"(?i)\b(status|code|exit(ed)?|rc)[ :=]*(124|137|143)\b|^[ \t]*(Killed|Terminated)\b")


def attach_context(scan: Scan, unit: Unit) -> None:
    """Give a unit its explaining neighbours: the last frame before an exception line, and
    the caret, location or got/want lines after a failure or summary line, or the lines that
    go on under its label (``npm error ...``, ``[ERROR] ...``, ``E   ...``: one report)."""
    if unit.context:
        return
    text = text_of(scan, (unit.start, unit.end))
    if unit.kind == "warn":  # a warning's heading brings the message it introduces (SBCL's ``; caught WARNING:``)
        if text.rstrip().endswith(":"):
            _add_adjacent(scan, unit, below=1)
        return
    if unit.kind == "novel" and passed_after_leader(text):
        return  # a step's pass verdict says all: ``ruff format.......Passed``
    label = _label(scan, unit)
    framed = False  # the last frame before an exception line was added
    header = ""  # that frame's header line
    if _EXCEPTION_LINE.search(text):
        # the last frame: indented lines back to (and with) the nearest frame header
        found: list[tuple[int, int, int]] = []
        for back, bounds, prev in lines_before(scan, unit.start, 5):
            if not prev.startswith((" ", "\t")):
                break
            found.append((unit.lineno - back, *bounds))
            if _FRAME_BEFORE.search(prev):
                unit.context.extend(found)
                framed, header = True, prev
                break
        if framed and _LIBRARY_FRAME.search(header):  # a library's last frame: the project's deepest one too
            _add_project_frame(scan, unit)
    if unit.failure and (_BARE_VERDICT.fullmatch(text) or _STOPPED.search(text)):
        for back, bounds, prev in lines_before(scan, unit.start, 1):
            if prev.strip():
                unit.context.append((unit.lineno - back, *bounds))
    field = _FIELD.match(text)
    if field is not None:
        _add_siblings(scan, unit, field.group(1))
        if unit.failure:
            _add_record_name(scan, unit, len(field.group(1)))
    elif (aligned := _ALIGNED_FIELD.match(text)) is not None:
        _add_record_head(scan, unit, aligned.end())
    if text[:1] in (" ", "\t") and not framed:
        _add_heading(scan, unit)
    elif text[:1] in ("+", "-") and text[:4] not in ("+++ ", "--- "):
        _add_diff_file(scan, unit)
    elif _TRACEBACK.match(text):
        _add_traceback_end(scan, unit)
        _add_line_before_traceback(scan, unit)
    elif _CALL_STACK.match(text):
        _add_adjacent(scan, unit, above=1, below=1)
    elif not unit.context and (unit.failure or not _SAYS_WHERE.search(text)):
        _add_named_line_before(scan, unit)
    if ": error:" in text:
        _add_required_from_here(scan, unit)
    if "Uncaught " in text:
        _add_php_stack_end(scan, unit)
    if unit.failure or unit.kind == "fail":  # failure evidence, or a line that words a failure
        _add_section_marker(scan, unit)
    if unit.failure:
        _add_unit_output(scan, unit, text)
        _add_usage_above(scan, unit)
    followed = False  # lines after it were added
    # inside an indented report (an unindented one brings its block below): the lines indented
    # under it, shown only if a location follows them
    nested = text[:1] in (" ", "\t")
    between: list[tuple[int, int, int]] = []
    for ahead, bounds, after in lines_after(scan, unit.end, 4):
        row = (unit.lineno + ahead, *bounds)
        if (
            _CONTEXT_AFTER.search(after)
            or (label and after.startswith(label) and after[len(label) :].strip())
            or (nested and after[:1] in (" ", "\t") and _LOCATION.search(after))  # ``in function f/1 (x.erl, line 25)``
        ):
            unit.context.extend([*between, row])
            between = []
            followed = True
        elif nested and after.strip() and indent_of(after) > indent_of(text):  # it goes on (a term on its own line)
            between.append(row)
        else:
            break
    if unit.failure and not followed:
        _add_verdict_on_its_file(scan, unit, text)
    if unit.failure and not framed:
        _add_caret_above(scan, unit)
    if text[:1] not in (" ", "\t") and not followed:
        _add_block(scan, unit, fields_only=unit.kind != "fail")
        if unit.kind == "fail" and text.rstrip().endswith(":"):
            _add_paragraph(scan, unit)
    elif nested and not followed and unit.kind == "fail":
        _add_nested_block(scan, unit, indent_of(text))
    unit.context[:] = dict.fromkeys(unit.context)  # a line two rules chose (a one-frame traceback's frame) once


def _add_usage_above(scan: Scan, unit: Unit) -> None:
    """The usage line a command-line parser prints over its error (click's ``Usage: ledgerctl export [OPTIONS]``,
    then ``Try ... --help``, a blank line and ``Error: Missing option``): the only line that names the command."""
    for back, bounds, prev in lines_before(scan, unit.start, USAGE_REACH):
        if _USAGE.match(prev):
            unit.context.append((unit.lineno - back, *bounds))
            return
        if _FAILURE_WORD.search(prev):  # another report's line: its usage is not this error's
            return


def _add_adjacent(scan: Scan, unit: Unit, *, above: int = 0, below: int = 0) -> None:
    """The ``above`` lines right above the unit and the ``below`` lines right under it, whatever they say."""
    unit.context.extend((unit.lineno - back, *bounds) for back, bounds, _ in lines_before(scan, unit.start, above))
    unit.context.extend((unit.lineno + ahead, *bounds) for ahead, bounds, _ in lines_after(scan, unit.end, below))


def _add_caret_above(scan: Scan, unit: Unit) -> None:
    """A caret line right above a failure and the line it points into (gnuplot echoes the command it could not
    read, a caret under the bad word, then ``"plots/x.gp" line 6: unrecognized plot type``)."""
    above = [line for _, _, line in lines_before(scan, unit.start, 2)]
    if len(above) == 2 and _CARET_LINE.fullmatch(above[0]) and above[1].strip():
        _add_adjacent(scan, unit, above=2)


def _add_verdict_on_its_file(scan: Scan, unit: Unit, text: str) -> None:
    """The line right under a located failure that words a failure of the same file: its verdict
    (``invoices/inv-0251.xml fails to validate`` under ``invoices/inv-0251.xml:34: ... validity error : ...``)."""
    located = _LOCATED_FILE.match(text)
    if located is None:
        return
    for ahead, bounds, after in lines_after(scan, unit.end, 1):
        if located.group(1) in after and _FAILURE_WORD.search(after):
            unit.context.append((unit.lineno + ahead, *bounds))


def _add_section_marker(scan: Scan, unit: Unit) -> None:
    """The header of the section a failure is in, when the nearest line above that starts with ``==`` is one
    (``tail``'s ``==> logs/refunds_worker.log <==``, a loop's ``== batches/batch_07.json``): which file or item
    failed, maybe hundreds of lines up. A banner (``==== FAILURES ====``) ends the search, and an output whose
    start has no such line has no sections."""
    opens = scan.data[:2] == b"=="
    if not opens and scan.data.find(b"\n==", 0, min(scan.size, SECTION_HEAD)) < 0:
        return  # sections start with the output (the first file's or item's header): none here
    at = scan.data.rfind(b"\n==", max(0, unit.start - SECTION_REACH), unit.start)
    start = at + 1 if at >= 0 else (0 if opens and unit.start > 0 else -1)
    if start < 0:
        return
    end = scan.data.find(b"\n", start, unit.start)
    if end < 0:
        return
    if _SECTION_MARKER.fullmatch(text_of(scan, (start, end)).rstrip("\r")):
        unit.context.append((unit.lineno - scan.data.count(b"\n", start, unit.start), start, end))


def _add_php_stack_end(scan: Scan, unit: Unit) -> None:
    """Under PHP's ``Fatal error:  Uncaught DomainException: ...``, the first frame of its ``Stack trace:`` and
    the ``  thrown in /src/Ledger/Balance.php on line 12`` line that ends the block: where it was thrown."""
    rows = list(lines_after(scan, unit.end, PHP_STACK_REACH))
    if not rows or rows[0][2].strip().removeprefix("PHP ").strip() != "Stack trace:":
        return
    for ahead, bounds, line in rows[1:]:
        if _PHP_THROWN_IN.match(line):
            first = rows[1]
            unit.context.extend([(unit.lineno + first[0], *first[1]), (unit.lineno + ahead, *bounds)])
            return
        if not _PHP_FRAME.match(line):
            return


def _add_required_from_here(scan: Scan, unit: Unit) -> None:
    """Over a compiler's error inside a template it instantiated (g++'s ``stl_algo.h:1938:50: error: no match
    ...``), the line of the chain that is the project's own: ``src/retry_queue.cpp:24:14:   required from here``."""
    for back, bounds, prev in lines_before(scan, unit.start, TEMPLATE_CHAIN_REACH):
        if _REQUIRED_FROM_HERE.search(prev):
            unit.context.append((unit.lineno - back, *bounds))
            return
        if not _INSTANTIATION_CHAIN.search(prev):
            return


def _add_unit_output(scan: Scan, unit: Unit, text: str) -> None:
    """What a failed unit printed: the lines between a failure line that names the unit and the line
    above that names it too, where the unit began (``[ RUN      ] spec/tax_spec.lua @ 115: ...``,
    ``=== RUN   TestTotal``): the assertion and its got/want values (``Passed in: (number) 1890``)."""
    status = _UNIT_STATUS.match(text)
    if status is None or len(status.group("name")) < UNIT_NAME_CHARS:
        return
    name = status.group("name")
    printed: list[tuple[int, int, int]] = []
    for back, bounds, prev in lines_before(scan, unit.start, UNIT_REACH):
        if name in prev:
            unit.context.extend(reversed(printed))
            return
        printed.append((unit.lineno - back, *bounds))


def _add_heading(scan: Scan, unit: Unit) -> None:
    """The unindented line an indented line's block hangs from (a file name over its findings),
    when the lines between are all indented and none is blank; else, where a blank line comes
    first, the nearest line above that is indented less (htmlhint's indented path over its
    findings), or else, past blank lines, the nearest line that is only a file's path (semgrep's
    findings, separated by blank lines, under their file)."""
    indent = indent_of(text_of(scan, (unit.start, unit.end)))
    nearer: tuple[int, int, int] | None = None
    file: tuple[int, int, int] | None = None  # the nearest line above that is only a file's path
    above = lines_before(scan, unit.start, HEADING_REACH)
    for back, bounds, prev in above:
        if not prev.strip():
            break
        if indent_of(prev) == 0:
            unit.context.append((unit.lineno - back, *bounds))
            return
        if nearer is None and indent_of(prev) < indent:
            nearer = (unit.lineno - back, *bounds)
        if file is None and _FILE_ALONE.match(prev):
            file = (unit.lineno - back, *bounds)
    if file is None and nearer is None:
        # past blank lines: the file the findings are grouped under
        file = next(((unit.lineno - back, *bounds) for back, bounds, prev in above if _FILE_ALONE.match(prev)), None)
    unit.context.extend(row for row in (file, nearer) if row is not None)


def _add_diff_file(scan: Scan, unit: Unit) -> None:
    """The file header (``+++ b/path``) of the hunk a changed line of a unified diff is in."""
    above = list(lines_before(scan, unit.start, 2 * HEADING_REACH))
    back = diff_file_above(upper for _, _, upper in above)
    if back is not None:
        unit.context.append((unit.lineno - back, *above[back - 1][1]))


def _add_traceback_end(scan: Scan, unit: Unit) -> None:
    """What a traceback's header leads to: its last frame and the exception line that ends it."""
    last_frame: list[tuple[int, int, int]] = []
    for ahead, bounds, line in lines_after(scan, unit.end, TRACEBACK_REACH):
        if line[:1] in (" ", "\t"):
            if line.lstrip().startswith('File "'):
                last_frame = []
            last_frame.append((unit.lineno + ahead, *bounds))
            continue
        if line.strip():
            unit.context.extend([*last_frame[:3], (unit.lineno + ahead, *bounds)])
        return


def _add_line_before_traceback(scan: Scan, unit: Unit) -> None:
    """The line just before a traceback's header, when it is a short unindented line: what the program was
    doing when it raised (a loop's ``== failed_payments`` marker, ``Loading refunds.csv ...``), which the
    traceback itself may never name. A warning logged in between (a kernel's ``WARNING | Kernel is running over
    TCP ...``) is looked past."""
    for back, bounds, prev in lines_before(scan, unit.start, 1 + WARNINGS_BEFORE_TRACEBACK):
        if back <= WARNINGS_BEFORE_TRACEBACK and _WARNING_LEVEL.search(prev):
            continue
        if prev.strip() and prev[:1] not in (" ", "\t") and len(prev) <= BEFORE_TRACEBACK_CHARS:
            unit.context.append((unit.lineno - back, *bounds))
        return


def _add_project_frame(scan: Scan, unit: Unit) -> None:
    """The deepest frame of a Python traceback that is the project's own, when the last one is a library's
    (``File "train_items.py", line 35, in forward`` above torch's ``module.py`` frames): it says where the
    failing call was made. Its source line (the next line, deeper) comes with it."""
    after: tuple[int, int, int] | None = None  # the line below the frame header met last (its source line)
    for back, bounds, prev in lines_before(scan, unit.start, TRACEBACK_REACH):
        row = (unit.lineno - back, *bounds)
        if _TRACEBACK.match(prev) or not prev.startswith((" ", "\t")):
            return
        if _PYTHON_FRAME.match(prev) and not _LIBRARY_FRAME.search(prev):
            unit.context.extend([row, after] if after is not None else [row])
            return
        after = row


def _add_named_line_before(scan: Scan, unit: Unit) -> None:
    """The line just before a report that names no file, or any failure, or past one blank line, when
    that line names one or starts a test (``== [a.sql] FAIL`` over ``L: 7 | P: 1 | PRS | Found unparsable section``, a
    loop's ``== lessc styles/checkout.less`` over an error that names the file again); or, over
    the source excerpt and caret a compiler prints between them (indented lines, a blank line), its location line
    (gfortran's ``src/ledger_post.f90:11:26:``, then the excerpt, then ``Error: ...``)."""
    excerpt: list[tuple[int, int, int]] = []
    for back, bounds, prev in lines_before(scan, unit.start, NAMED_REACH):
        row = (unit.lineno - back, *bounds)
        # the line just before, or past one blank line (a loop's ``== batches/batch-037.json``; but a
        # line that only says where ends the report before the blank line: cfn-lint's)
        nearest = back == 1 or (back == 2 and not excerpt and prev[:1] not in (" ", "\t") and not _WHERE.match(prev))
        if nearest and prev.strip() and len(prev) <= 160 and (_NAMES.search(prev) or _UNIT_START.match(prev)):
            unit.context.append(row)
            return
        if back == 1 and _RULE.fullmatch(prev):
            continue  # over a rule under the line that names (phpcs's ``FILE: src/x.php`` over ``-----``)
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
    for ahead, bounds, after in lines_after(scan, unit.end, BLOCK_REACH):
        if not after.strip():
            continue  # a blank line between the parts of one report (a sanitizer's)
        if indent_of(after) == 0:
            break
        rows.append((indent_of(after), unit.lineno + ahead, *bounds))
    if not rows:
        return
    shallowest = min(depth for depth, *_ in rows)
    chosen = [(n, s, e) for depth, n, s, e in rows if depth == shallowest][:BLOCK_LINES]
    if fields_only and not all(_LABELLED_FIELD.match(text_of(scan, (s, e))) for _, s, e in chosen):
        return
    unit.context.extend(chosen)


def _add_paragraph(scan: Scan, unit: Unit) -> None:
    """The short paragraph a failure's heading stands over (node's ``✖ failing tests:``), its lines not indented
    under it (jstack's ``Found one Java-level deadlock:`` over a rule and the lock chain, thread by thread): every
    line up to the blank line that ends it, rules aside, when it ends within PARAGRAPH_REACH lines; else its first
    line, the message the heading introduces (Rust's ``thread 'main' panicked at src/rates.rs:12:17:`` over the
    panic's message, then the backtrace)."""
    rows: list[tuple[int, int, int]] = []
    for ahead, bounds, after in lines_after(scan, unit.end, PARAGRAPH_REACH):
        if not after.strip():
            unit.context.extend(rows)
            return
        if not _RULE.fullmatch(after):
            rows.append((unit.lineno + ahead, *bounds))
    unit.context.extend(rows[:1])


def _add_nested_block(scan: Scan, unit: Unit, indent: int) -> None:
    """The lines indented deeper than ``indent`` right under an indented failure line, all of them,
    when they end (a blank line, or a line no deeper) within NESTED_REACH lines; else none."""
    rows: list[tuple[int, int, int]] = []
    for ahead, bounds, after in lines_after(scan, unit.end, NESTED_REACH + 1):
        if not after.strip() or indent_of(after) <= indent:
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


def _add_record_head(scan: Scan, unit: Unit, column: int) -> None:
    """The first field of the aligned record a field line is in (``URL        `../coupons/rules.html'`` over
    ``Result     Error: 404 File not found``): every line between has a label and its value at ``column``,
    and a blank line (or the output's start) is over that first field."""
    head: tuple[int, int, int] | None = None
    for back, bounds, prev in lines_before(scan, unit.start, RECORD_REACH):
        if not prev.strip():
            break  # the record starts under this blank line
        if prev[column - 1 : column] != " " or prev[column : column + 1] in ("", " "):
            return  # not a field of the same record
        if not _LABEL.fullmatch(prev[:column].rstrip()):
            return
        head = (unit.lineno - back, *bounds)
    else:
        if head is not None and head[0] > 1:  # the record goes on above the reach: its head is not known
            return
    if head is not None:
        unit.context.append(head)


def _add_record_name(scan: Scan, unit: Unit, indent: int) -> None:
    """The field that names the record a failure field is in, or the record its object is a field of
    (``"Name": "/nightly_export"``, forty lines below the ``"State"`` whose ``"ExitCode": 137`` failed, in
    ``docker inspect``): the best-named one (:data:`_NAMING_KEYS`), within :data:`RECORD_NAME_REACH` lines."""
    above = list(lines_before(scan, unit.start, RECORD_NAME_REACH))
    opener = next(((n, bounds, line) for n, bounds, line in above if line.strip() and indent_of(line) < indent), None)
    levels = [indent]
    if opener is not None and _OBJECT_FIELD.match(opener[2]):  # the failure is in an object that is a field
        levels.append(indent_of(opener[2]))
    for level in levels:
        named: list[tuple[int, int, tuple[int, int, int]]] = []  # (preference, distance, row)
        for rows, sign in ((above, -1), (list(lines_after(scan, unit.end, RECORD_NAME_REACH)), 1)):
            for n, bounds, line in rows:
                if line.strip() and indent_of(line) < level:
                    break  # the record's start or end
                name = _NAMING_FIELD.match(line)
                if name is not None and len(name.group(1)) == level:
                    row = (unit.lineno + sign * n, *bounds)
                    named.append((_NAMING_KEYS.index(name.group(2).lower()), n, row))
        if named:
            best = min(named)[2]
            if best not in unit.context:
                unit.context.append(best)
            return


def _add_siblings(scan: Scan, unit: Unit, indent: str) -> None:
    """The fields of the same record before ``unit`` (same indentation, back to the record's start)."""
    for back, bounds, prev in lines_before(scan, unit.start, SIBLINGS):
        field = _FIELD.match(prev)
        if field is None or field.group(1) != indent:
            break
        unit.context.append((unit.lineno - back, *bounds))
