"""Single lines whose reading decides whether a run failed: what a client, a dependency tool or a REPL
says, and names and counts that only look like failures.

Each test puts the line in the middle of a long synthetic log; the corpus (``unseen-118`` to
``unseen-123``) holds the real runs these lines come from (curl, jdeps, jshell, tcltest, Tcl's
``pkg_mkIndex``).
"""

from __future__ import annotations

import pytest

from offloader.signal import read_signal
from offloader.signal._render import render_line
from offloader.signal._scan import scan
from tests.signal_support import context_of


def _among(*lines: str, n: int = 600) -> str:
    """A long run's log (lines alike, digits aside) with ``lines`` in its middle."""
    rows = [f"sync: copied object {i:05d} of {n} to the archive bucket in {i % 9 + 1}ms" for i in range(n)]
    return "\n".join([*rows[: n // 2], *lines, *rows[n // 2 :]]) + "\n"


@pytest.mark.parametrize(
    "line",
    [
        "HTTP/1.1 502 Bad Gateway",
        "< HTTP/2 503 Service Unavailable",
        "HTTP/1.1 500 Internal Server Error",
        "502 http://127.0.0.1:18400/api/v1/retry_queue",  # curl -w '%{http_code} %{url}'
    ],
)
def test_an_http_server_error_a_client_received_is_failure_evidence(line: str) -> None:
    assert read_signal(_among(line)).failing


@pytest.mark.parametrize(
    "line", ["HTTP/1.1 200 OK", "200 http://127.0.0.1:18400/api/v1/retry_queue", "5020 https://example.com/a"]
)
def test_a_success_status_or_a_bigger_number_before_a_url_is_no_failure(line: str) -> None:
    assert not read_signal(_among(line)).failing


@pytest.mark.parametrize(
    "line",
    [
        "paydesk-3.2.0.jar -> not found",
        "   com.paydesk.retry.RetryQueueService        -> com.acme.gateway.GatewayClient        not found",
    ],
)
def test_a_dependency_that_maps_to_nothing_is_failure_evidence(line: str) -> None:
    assert read_signal(_among(line)).failing


def test_a_dependency_that_maps_to_a_module_is_no_failure() -> None:
    line = "   com.paydesk.retry.RetryQueueService        -> java.lang.Exception        java.base"
    assert not read_signal(_among(line)).failing


@pytest.mark.parametrize(
    "line",
    [
        "Exception java.lang.IllegalStateException: unknown error code E-0112 in exception report",
        "|  Exception java.lang.ArithmeticException: / by zero",
    ],
)
def test_an_exception_jshell_reports_is_failure_evidence(line: str) -> None:
    assert read_signal(_among(line, "      at describe (#13:3)")).failing


def test_an_exception_named_in_prose_after_the_word_exception_is_no_failure() -> None:
    line = "the Exception handler maps java.lang.IllegalStateException: to a 409 response"
    assert not read_signal(_among(line)).failing


def _kinds(text: str, needle: str) -> set[str]:
    """The kinds of the ranked lines of ``text`` that hold ``needle``."""
    lines = text.splitlines()
    return {u.kind for u in read_signal(text).units if needle in lines[u.lineno - 1]}


def test_a_namespaced_procedure_named_failed_is_a_name_not_a_failure_word() -> None:
    procs = [f"  ::paydesk::{area}::failed                        record" for area in ("billing", "tax", "refunds")]
    assert "fail" not in _kinds(_among(*procs), "::failed")


def test_a_namespaced_name_does_not_hide_a_failure_verdict_after_it() -> None:
    assert read_signal(_among("test tests::retry_failed ... FAILED")).failing


@pytest.mark.parametrize(
    "line",
    [
        "failed payments: 67 (all queued in the retry queue, 67 retries pending)",
        "failed jobs: 4 (all retried)",
    ],
)
def test_failed_items_all_handled_said_label_first_are_bookkeeping(line: str) -> None:
    assert not read_signal(_among(line)).failing


def test_failed_items_a_few_of_them_handled_are_still_failures() -> None:
    assert read_signal(_among("failed payments: 67 (3 queued for retry)")).failing


def test_the_number_of_an_id_before_failed_is_no_count_of_failures() -> None:
    line = "paydesk[currency]: payment PAY-10017 failed (E-0412 card_declined), queued for retry 1/5"
    assert _kinds(_among(line), "PAY-10017") == {"fail"}


@pytest.mark.parametrize("line", ["-3 failed", "tests: 3 failed, 12 passed", "=== 1 failed in 0.2s ==="])
def test_a_count_set_apart_by_a_dash_or_a_space_before_failed_is_the_runs_count(line: str) -> None:
    assert "summary" in _kinds(_among(line), "failed")


def _jobs(last_words: str, verdict: str) -> list[str]:
    """A nightly loop's log: many jobs alike, one stopped from outside after ``last_words``."""
    lines = []
    for job in range(30):
        lines += [f"=== job area_{job:02d} (timeout 3s) ==="]
        lines += [f"INFO  area_{job:02d}: batch {b:03d}/012 posted" for b in range(12)]
        if job == 15:
            lines += [last_words, verdict]
    return lines


@pytest.mark.parametrize(
    "verdict", ["!!! job area_15 exited with status 124", "[exit status 137]", "Killed", "area_15.1 stopped (rc=143)"]
)
def test_a_process_stopped_from_outside_shows_what_it_printed_last(verdict: str) -> None:
    lines = _jobs("INFO  area_15: waiting for lease on partition 7 (held by worker-3)", verdict)
    at = lines.index(verdict) + 1
    assert at - 1 in context_of(lines, at)


def test_a_process_that_failed_by_itself_brings_no_line_above_for_that() -> None:
    lines = _jobs("INFO  area_15: waiting for lease on partition 7", "!!! job area_15 exited with status 1")
    at = len(lines) - lines[::-1].index("!!! job area_15 exited with status 1")
    assert at - 1 not in context_of(lines, at)


def _calls(*error: str) -> list[str]:
    """A driver script's log: many calls of a tool that went well, then ``error``, then more."""
    ok = [f"ledgerctl export --period 2024-{m % 12 + 1:02d}: wrote {m * 7} rows" for m in range(300)]
    return [*ok[:150], *error, *ok[150:]]


def test_a_command_line_parsers_error_brings_the_usage_line_that_names_the_command() -> None:
    error = ["Usage: ledgerctl export [OPTIONS]", "Try 'ledgerctl export --help' for help.", ""]
    lines = _calls(*error, "Error: Missing option '--period'.")
    at = lines.index("Error: Missing option '--period'.") + 1
    assert at - 3 in context_of(lines, at)


def test_a_usage_line_far_above_an_error_is_not_its_own() -> None:
    lines = _calls("Usage: ledgerctl export [OPTIONS]", *(f"  option {i}" for i in range(8)), "Error: disk full")
    at = lines.index("Error: disk full") + 1
    assert lines.index("Usage: ledgerctl export [OPTIONS]") + 1 not in context_of(lines, at)


def test_a_program_refusing_to_act_words_a_failure() -> None:
    line = "ledger-close: period 2030-03 has 3 unposted journal entries (je_4471, je_4472); refusing to close"
    assert _kinds(_among(line), "refusing to close") == {"fail"}


def test_a_long_line_of_the_tail_shows_its_start_and_its_end() -> None:
    libs = " ".join(f"src/area_{i:02d}/libarea_{i:02d}.a" for i in range(40))
    data = f"gcc -std=c11 -O0 -Wall -o ledgerd main.c {libs}\n".encode()
    shown = render_line(scan(data), 1, 0, len(data) - 1, cap=300, tail=True)
    assert "gcc -std=c11 -O0 -Wall -o ledgerd" in shown
    assert shown.split(" ... [line 1 cut")[0].endswith("src/area_39/libarea_39.a")


@pytest.mark.parametrize(
    "line",
    [
        "<** 535 5.7.8 Authentication credentials invalid",
        "** ops@example.test R=relay T=smtp H=127.0.0.1 [127.0.0.1]: SMTP error from remote mail server after RCPT "
        "TO:<ops@example.test>: 550 5.1.1 <ops@example.test>: Recipient address rejected",
        "postfix/smtp[12]: 4F2A1: to=<a@example.test>, status=bounced (host said: 550 5.1.1 User unknown)",
    ],
)
def test_a_mail_servers_permanent_refusal_is_failure_evidence(line: str) -> None:
    assert read_signal(_among(line)).failing


@pytest.mark.parametrize("line", ["<-  250 2.0.0 Ok: queued as 4F2A1", "<** 450 4.2.0 Mailbox busy, try again later"])
def test_a_mail_servers_acceptance_or_temporary_refusal_is_no_failure(line: str) -> None:
    assert not read_signal(_among(line)).failing


def test_many_counts_of_failed_rows_do_not_outrank_a_real_error_as_the_runs_tally() -> None:
    seeded = [f"# area_{i:02d}: {i + 8} failed rows, {i + 8} error rows, error codes E000..E016" for i in range(36)]
    error = "psql:t/03_error_codes.sql:20: ERROR:  function error_codes_severity(unknown) does not exist"
    files = [f"t/{i:02d}_area.sql .. ok" for i in range(36)]
    lines = [row for pair in zip(files, seeded, strict=True) for row in pair]
    lines.insert(5, error)
    kinds = {u.lineno: (u.kind, u.score) for u in read_signal("\n".join(lines) + "\n").units}
    error_score = kinds[6][1]
    assert all(kind != "summary" and score < error_score for n, (kind, score) in kinds.items() if n != 6)


def test_a_raised_exception_whose_class_is_private_is_failure_evidence() -> None:
    line = "grpc._channel._InactiveRpcError: <_InactiveRpcError of RPC that terminated with:"
    assert read_signal(_among(line, "\tstatus = StatusCode.INVALID_ARGUMENT")).failing


def test_a_traceback_brings_what_the_program_was_doing_past_a_warning_logged_in_between() -> None:
    warning = "[IPKernelApp] WARNING | Kernel is running over TCP without encryption. " + "x" * 200
    lines = _calls(
        "[NbConvertApp] Converting notebook notebooks/reconciliation.ipynb to html",
        warning,
        "Traceback (most recent call last):",
        '  File "/x/nbconvert/app.py", line 12, in convert',
        "    raise AssertionError(reason)",
        "AssertionError: refund total 1999 != 2000",
    )
    at = lines.index("Traceback (most recent call last):") + 1
    assert at - 2 in context_of(lines, at)


def test_java_util_loggings_severe_level_is_failure_evidence() -> None:
    line = (
        "01-Jan-2026 00:00:00.000 SEVERE [main] org.apache.catalina.core.StandardContext.startInternal "
        "Context [/refunds] startup failed due to previous errors"
    )
    assert read_signal(_among(line)).failing


def test_no_severe_lines_counted_is_healthy() -> None:
    assert not read_signal(_among("log: 26 WARNING lines, 0 SEVERE lines")).failing


@pytest.mark.parametrize(
    "line",
    [
        "01-Jan-2026 00:00:00.000 INFO [main] org.apache.catalina.startup.Catalina.start Server startup in [100] "
        "milliseconds",
        "Started PaymentsApplication in 3.2 seconds (process running for 3.9)",
    ],
)
def test_a_servers_word_that_it_is_up_is_a_verdict(line: str) -> None:
    assert _kinds(_among(line), "tarted") | _kinds(_among(line), "startup") == {"summary"}
