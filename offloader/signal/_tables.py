"""A row of a drawn table holds records, and a message in one of its cells is a value, not a report.

A query's result (``sqlite3 -box``, ``duckdb``, the ``mysql`` client), a tool's listing drawn with
box characters or pipes shows what is stored: a ``failed_jobs`` table whose ``error`` column reads
``ValueError: invalid literal ...`` or ``error: webhook endpoint returned 500`` did not fail; the
query that printed it succeeded. A row is known by its borders: the same bar (``│``, ``┃``, ``║``
or ``|``) opens and closes it and parts at least two cells, and a row or a rule of the same table
is right above or below it.

A cell that holds only a status word (``FAILED``, ``error``, pm2's ``errored``, ``INVALID``, ``✗ failed``) is a
verdict the table reports, as a test runner's summary table does: such a row stays failure evidence, unless it
is the table's header (ruled above and below), whose cells name its columns, or the rows next to it hold other
values in that column (a settings listing's ``| system_versioning_alter_history | ERROR |`` between ``UTC`` and
``DEFAULT``): a column of statuses holds statuses only. ``errors`` alone is a name (a queue, a folder), not a
verdict.
"""

from __future__ import annotations

import re

__all__ = ["in_table_of_records", "is_table_row"]

_BARS = "│┃║|"
#: A table's rule: box-drawing lines (``├─────┼───┤``) or ASCII ones (``+-----+---+``, ``|---|:--|``).
_RULE = re.compile(r"[ \t]*[┌├└┏┣┗╔╠╚╒╞╘+|]?[─━═╌┄\-+┼┬┴╋╬╪┤┐┘┫┓┛╣╗╝╡╕╛:| ]{3,}[ \t]*")
#: A cell that is a status word alone: the table's verdict on its row.
_STATUS = re.compile(
    r"(?i)(?:[✗✘❌×!]\s*)?(?:fail(?:ed|ure|ing)?|error(?:ed)?|err|fatal|crash(?:ed)?|broken|abort(?:ed)?|invalid|"
    r"rejected|denied|refused|unhealthy|corrupt(?:ed)?|unreachable|missing|degraded|exited|"
    r"timed?[ -]?out|killed|panic(?:ked)?|not ok)"
)

#: A cell that says a row went well, is not judged, or answers yes or no: a status column's other values.
_FINE = re.compile(
    r"(?i)(?:[✓✔√]\s*)?(?:ok|pass(?:ed|ing)?|succe(?:ss|ssful|eded)|skip(?:ped)?|xfail(?:ed)?|todo|pending|"
    r"valid|accepted|up|healthy|running|online|active|ready|done|complete(?:d)?|warn(?:ing)?|unknown|n/?a|-+|—|"
    r"yes|no|true|false)"
)
#: A record's field that names its status (pm2's ``│ status │ errored │``): its value is the verdict.
_STATUS_FIELD = re.compile(r"(?i)status|state|result|outcome|health|verdict|conclusion")


def _bar(text: str) -> str:
    """The bar that opens and closes ``text`` as a row of at least two cells, or ""."""
    row = text.strip()
    bar = row[:1]
    if bar not in _BARS or row[-1:] != bar or row.count(bar) < 3:
        return ""
    return bar


def _cells(text: str, bar: str) -> list[str]:
    return [cell.strip() for cell in text.strip()[1:-1].split(bar)]


def is_table_row(text: str) -> bool:
    """Whether ``text`` is bordered as a table's row (a cheap first test of :func:`in_table_of_records`)."""
    return bool(_bar(text))


def in_table_of_records(text: str, above: str, below: str) -> bool:
    """Whether ``text`` is a row of a drawn table (between ``above`` and ``below``) whose failure words
    are in cells holding more than a status word (see the module's docstring)."""
    bar = _bar(text)
    if not bar:
        return False
    ruled = [bool(line.strip()) and _RULE.fullmatch(line) is not None for line in (above, below)]
    if all(ruled):
        return True  # the table's header: its cells name the columns
    if not any(ruled) and _bar(above) != bar and _bar(below) != bar:
        return False
    cells = _cells(text, bar)
    statuses = [i for i, cell in enumerate(cells) if _STATUS.fullmatch(cell)]
    if not statuses:
        return True  # the failure words are in cells that hold more: stored values
    if any(_STATUS_FIELD.fullmatch(cell) for cell in cells):
        return False
    for line in (above, below):
        if _bar(line) != bar or len(other := _cells(line, bar)) != len(cells):
            continue
        if all(other[i] and not _STATUS.fullmatch(other[i]) and not _FINE.fullmatch(other[i]) for i in statuses):
            return True  # the column holds other values: a setting's value, not a verdict
    return False
