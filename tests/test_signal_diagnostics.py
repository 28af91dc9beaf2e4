"""Diagnostics worded without a failure label: at a location, of a signature, of a test, of libxml2 and bc.

Each test puts lines as the tools print them (gnuplot 5.4, GnuPG 2.2, minisign, OpenSSL 3.0, Octave 7, libxml2's
xmllint, GNU bc, scan-build 14; the corpus's ``unseen-104`` to ``unseen-109`` hold the real runs) among the lines
of a loop that goes on, so no exit status says the run failed.
"""

from __future__ import annotations

import pytest

from offloader.signal import read_signal
from tests.signal_support import context_of


def _loop(line: str) -> str:
    """A loop over 300 files that prints ``line`` in its middle and ends well."""
    lines = [f"checking releases/failed-payments-worker_{i}.tar.gz ... ok" for i in range(300)]
    lines.insert(150, line)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "line",
    [
        '"plots/06_chargebacks_daily.gp" line 6: unrecognized plot type',
        "plots/06_chargebacks_daily.gp:6: unrecognized plot type",
        "catalog/catalog-093.xml:56: element product: validity error : Element product content does not follow",
        "merchant 0163 volume=0 fee_rate=Runtime error (func=(main), adr=43): Divide by zero",
        'gpg: BAD signature from "Releases <releases@payments.example>" [unknown]',
        "Signature verification failed",
        "Verification failure",
        "!!!!! test failed",
        "scan-build: 2 bugs found.",
    ],
)
def test_a_diagnostic_worded_without_a_failure_label_is_failure_evidence(line: str) -> None:
    assert [u.lineno for u in read_signal(_loop(line)).units if u.failure] == [151]


@pytest.mark.parametrize(
    "line",
    [
        "src/ledger.py:12: SyntaxWarning: invalid escape sequence '\\d'",
        "src/ledger.c:12: note: invalid conversion happens here",
        "nofile:0:0: information: Cppcheck cannot find all the include files (use --check-config for details)",
        "src/ledger.py:12:    if invalid_entry(entry):",  # a grep -n hit of indented code
        "scan-build: No bugs found.",
        "Fixed 3 bugs in the ledger export",
        "tests/test_failed_payments.py::test_failed_retry PASSED",
    ],
)
def test_a_located_warning_a_grep_hit_or_a_clean_count_is_no_failure_evidence(line: str) -> None:
    assert not read_signal(_loop(line)).failing


def test_a_located_failure_brings_the_verdict_on_its_file_under_it() -> None:
    lines = [f"invoices/inv-{i:04d}.xml validates" for i in range(300)]
    lines[150:151] = [
        "invoices/inv-0150.xml:34: element status: Schemas validity error : Element 'status': 'charged_back' is not"
        " an element of the set {'paid', 'failed'}.",
        "invoices/inv-0150.xml fails to validate",
    ]
    assert 152 in context_of(lines, 151)
    lines[151] = "invoices/inv-0151.xml fails to validate"  # about another file: not its verdict
    assert 152 not in context_of(lines, 151)


def test_a_failure_under_a_caret_brings_the_caret_and_the_line_it_points_into() -> None:
    lines = [f"plotting plots/{i:02d}_failed_payments_daily.gp" for i in range(300)]
    lines[150:151] = [
        "plot 'data/chargebacks_daily.dat' using 1:2 with histogramz title 'chargebacks_daily'",
        "                                                            ^",
        '"plots/06_chargebacks_daily.gp" line 6: unrecognized plot type',
    ]
    assert context_of(lines, 153)[-2:] == [151, 152]
    lines[151] = "plotting 'data/chargebacks_daily.dat' (1,200 points)"  # no caret: nothing is pointed at
    assert 151 not in context_of(lines, 153)


def test_an_error_at_a_quoted_place_is_failure_evidence() -> None:
    line = "   /gpio-keys/retry-button linux,code Error at '/gpio-keys/retry-button': FDT_ERR_NOTFOUND"
    assert [u.lineno for u in read_signal(_loop(line)).units if u.failure] == [151]


@pytest.mark.parametrize(
    "line",
    [
        "exception-report 1.3.0 has requirement retry-queue<2.0, but you have retry-queue 2.1.0.",
        "exception-report 1.3.0 requires retry-queue<2.0, but you have retry-queue 2.1.0 which is incompatible.",
    ],
)
def test_pips_word_that_installed_packages_conflict_is_failure_evidence(line: str) -> None:
    assert [u.lineno for u in read_signal(_loop(line)).units if u.failure] == [151]
