"""Runtimes' reports of a condition nobody handled, and a compiler's warning heading over its message.

Each test builds a small synthetic output around lines as SBCL 2.2 and .NET print them; the corpus
(``unseen-100``) holds the real runs.
"""

from __future__ import annotations

import pytest

from offloader.signal import read_signal
from tests.signal_support import context_of


def _log(lines: list[str], at: int = 300) -> list[str]:
    """A long run's log with ``lines`` in its middle."""
    before = [f"ledger entry {i:05d} area=tax cents={i * 7:6d} attempt=1 status=settled" for i in range(at)]
    after = [f"ledger entry {i:05d} area=tax cents={i * 7:6d} attempt=1 status=settled" for i in range(at, 2 * at)]
    return [*before, *lines, *after]


@pytest.mark.parametrize(
    "headline",
    [
        'Unhandled PAYMENT-RETRY-EXHAUSTED in thread #<SB-THREAD:THREAD "main thread" RUNNING',
        'Unhandled UIOP/LISP-BUILD:COMPILE-FILE-ERROR in thread #<SB-THREAD:THREAD "main thread" RUNNING',
        "Unhandled exception. System.InvalidOperationException: Sequence contains no elements",
    ],
)
def test_a_runtimes_unhandled_condition_is_failure_evidence(headline: str) -> None:
    lines = _log([headline, "   at Ledger.Settle(Entry entry) in /src/Ledger.cs:line 42"])
    signal = read_signal("\n".join(lines) + "\n")
    assert [u.lineno for u in signal.units if u.failure] == [301]


def test_unhandled_work_named_in_prose_is_no_failure_evidence() -> None:
    lines = _log(["Unhandled requests in thread pool: 0 (all 1200 entries settled)"])
    assert not read_signal("\n".join(lines) + "\n").failing


def test_a_warning_heading_brings_the_message_under_it() -> None:
    notes = []
    for i in range(400):
        notes += [f"; in: DEFUN SETTLE-{i}", "; note: unable to", ";   optimize", "; due to type uncertainty:"]
        notes += [";   The first argument is a NUMBER, not a DOUBLE-FLOAT.", "; "]
    warning = ["; caught WARNING:", ";   The binding of AMOUNT is a (VALUES NULL &OPTIONAL), not a NUMBER."]
    lines = [*notes[:1200], *warning, ";   See also:", *notes[1200:]]
    assert next(u for u in read_signal("\n".join(lines)).units if u.lineno == 1201).kind == "warn"
    assert context_of(lines, 1201) == [1202]


def test_a_warning_that_says_all_on_its_line_brings_nothing() -> None:
    lines = [f"; in: DEFUN SETTLE-{i}" for i in range(400)]
    lines.insert(200, "WARNING: the variable AMOUNT is defined but never used")
    assert next(u for u in read_signal("\n".join(lines)).units if u.lineno == 201).kind == "warn"
    assert context_of(lines, 201) == []


def test_ghcs_call_stack_of_an_error_call_is_failure_evidence_with_its_message_and_caller() -> None:
    lines = _log(
        [
            "settle: ErrorCodes.describeCode: unknown error code E999",
            "CallStack (from HasCallStack):",
            "  error, called at src/Payments/ErrorCodes/Describe.hs:12:22 in main:Payments.ErrorCodes.Describe",
        ]
    )
    assert [u.lineno for u in read_signal("\n".join(lines)).units if u.failure] == [302]
    assert context_of(lines, 302) == [301, 303]
