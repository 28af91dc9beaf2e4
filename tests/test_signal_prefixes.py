"""Lines prefixed with the time they arrived or a job's tag (CI logs, ``ts``, ``tai64n``, ``annotate-output``,
``parallel --tag``): the engine reads each line after its prefix, as it does after a service's (``_multiplex``)."""

from __future__ import annotations

import pytest

from offloader.signal import make_preview, read_signal
from offloader.signal._multiplex import PREFIX, is_multiplexed
from offloader.tokens import TiktokenCounter

COUNTER = TiktokenCounter()


def _tap_run(prefix: str) -> str:
    """``node --test``'s TAP of 300 tests (one failing), each line after ``prefix`` (a time and a stream)."""
    lines = ["TAP version 13"]
    for i in range(1, 301):
        lines += [f"# Subtest: invoice {i} is rounded", f"ok {i} - invoice {i} is rounded", "  ---", "  ..."]
    lines[600] = "not ok 150 - invoice 150 is rounded"
    lines += ["1..300", "# tests 300", "# suites 0", "# pass 299", "# fail 1", "# cancelled 0", "# skipped 0"]
    lines += ["# todo 0", "# duration_ms 812.4"] + [f"# diagnostic {i}" for i in range(40)]
    return "\n".join(f"{prefix}{line}" for line in lines) + "\n"


@pytest.mark.parametrize(
    "prefix",
    [
        "2026-03-14T09:12:03.423157111 O: ",  # annotate-output with an ISO time
        "09:12:03 O: ",  # annotate-output's default
        "2026-03-14T09:12:03.426978111Z ",  # docker logs --timestamps, CI logs
        "Mar 14 09:12:03.442265 ",  # moreutils' ts
        "@4000000065f2aa1b0000000a ",  # tai64n
        "2026-03-14 09:12:03.420609111 ",  # tai64nlocal
        "2026-03-14_09:12:03.42358 ",  # svlogd -tt
    ],
)
def test_a_runners_tally_after_the_time_a_line_arrived_is_its_summary(prefix: str) -> None:
    text = _tap_run(prefix)
    assert is_multiplexed(text[:16384].encode())
    assert f"{prefix}# fail 1" in make_preview(text, counter=COUNTER, preview_tokens=400)


def test_pytests_error_line_after_a_jobs_tag_is_failure_evidence() -> None:
    # ``E`` starts the line pytest printed: after GNU parallel's tag and its tab
    lines = [f"tax\ttests/tax/test_rates.py::test_rate[{i}] PASSED" for i in range(300)]
    lines[120:120] = [
        "shipping\t    def test_zone_surcharge():",
        "shipping\t>       surcharge(zone)",
        "shipping\tE       KeyError: 'remote'",
    ]
    signal = read_signal("\n".join(lines) + "\n")
    assert [u.lineno for u in signal.units if u.failure] == [123]


@pytest.mark.parametrize(
    "line",
    [
        "2024-05-01 10:00:01 INFO [worker-1] compiled unit_1.o in 12ms",  # an application's own log format
        "12:00:01 INFO compiled unit_1.o",  # a time without a stream
        "1.056005 tests/test_errors.py::test_retry PASSED",  # a number that may be data
    ],
)
def test_an_applications_own_time_is_no_prefix(line: str) -> None:
    assert PREFIX.match(line) is None
    assert not is_multiplexed(("\n".join([line] * 50) + "\n").encode())
