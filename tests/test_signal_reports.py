"""Reports the engine reads as a run's outcome, and bookkeeping it does not.

Each test builds a small synthetic output around one line; the corpus tests show the rules on real outputs.
"""

from __future__ import annotations

import pytest

from offloader.signal import make_preview, read_signal
from offloader.signal._rank import PROSE_SCORE
from offloader.tokens import TiktokenCounter
from tests.signal_support import context_of

COUNTER = TiktokenCounter()


def _among(
    line: str, filler: str = "deploy: synced object {i} of 3000 to s3://shop-assets/static", n: int = 3000
) -> str:
    lines = [filler.format(i=i) for i in range(n)]
    lines[n // 2] = line
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "line",
    [
        "An error occurred (NoSuchBucket) when calling the PutObject operation: The specified bucket does not exist",
        "An unexpected error has occurred: timeout while waiting for the lock",
        " ! [remote rejected] release/2.4 -> release/2.4 (hook declined)",
        " ! [rejected]        main -> main (non-fetch first)",
        "150 GET /export/ledger?month=2024-03 500 141 bytes",
        "12:00:01 system           | retry_queue.1 stopped (rc=1)",
        "Server be_ledger/ledger-1 is DOWN. 0 active and 0 backup servers left. 0 sessions active.",
        "(error) NOGROUP No such key 'payments' or consumer group 'billing-worker' in XREADGROUP with GROUP option",
        "error[missing-attribute]: Object of type `FailedPayment` has no attribute `retry_after_seconds`",
        "Found 1 known vulnerability in 1 package",
    ],
)
def test_a_report_that_something_went_wrong_is_failure_evidence(line: str) -> None:
    signal = read_signal(_among(line))
    assert signal.failing
    assert [u.lineno for u in signal.units if u.failure] == [1501]


def test_a_sentence_that_mentions_an_error_occurring_is_no_report() -> None:
    assert not read_signal(_among("the client retries if an error occurred while it uploaded a part")).failing


@pytest.mark.parametrize("line", ["151 GET /items?limit=500 200 35 bytes", "GET /report 500ms ok"])
def test_a_number_like_a_server_error_elsewhere_in_a_request_line_is_none(line: str) -> None:
    assert not read_signal(_among(line)).failing


@pytest.mark.parametrize(
    "line",
    [
        "contract check: 600 requests, 600 as expected, 0 mismatched",
        "scan finished: 0 timeouts, 0 conflicts, 0 violations, 0 crashes",
        "ledgerd: starting worker errors-drain (retry budget 3, failed jobs 0)",
        "retryd: 3 failed jobs rescheduled, 120 consumers drained",
        "redrive: 40 failed messages redelivered to orders-queue",
        "26/01/01 00:00:00 INFO DAGScheduler: failed: HashSet()",
        '{"batch": 7, "errors": [], "status": "done"}',
        "exception: large_string",
        "  failed: bool not null",
    ],
)
def test_zero_counts_and_failures_being_handled_are_healthy(line: str) -> None:
    assert not read_signal(_among(line)).failing


def test_a_count_of_changed_files_is_a_summary() -> None:
    subjects = [f"{i:07x} billing: retry failed {word} calls with jitter" for i, word in enumerate(["a", "b"] * 40)]
    text = "\n".join(
        [f" src/module_{i}.py | 4 ++--" for i in range(130)] + [" 130 files changed, 229 insertions(+)"] + subjects
    )
    signal = read_signal(text)
    assert not signal.failing
    assert [u.kind for u in signal.units if u.lineno == 131] == ["summary"]
    assert "130 files changed" in make_preview(text, counter=COUNTER, preview_tokens=300)


def test_a_commit_subject_with_a_failure_word_is_prose_even_when_its_shape_repeats() -> None:
    areas = ["tax", "webhooks", "audit", "orders", "session", "refunds", "catalog", "billing"]
    subjects = [f"{i * 7919 % 16**7:07x} {area}: retry failed {area}_client calls" for i, area in enumerate(areas * 5)]
    signal = read_signal("\n".join(subjects) + "\n")
    assert not signal.failing
    assert max(u.score for u in signal.units) <= PROSE_SCORE


def _play(recap_failed: int) -> str:
    """An Ansible run: one task's failure, ignored or rescued, then the PLAY RECAP of 12 hosts."""
    lines = [f"ok: [retry-worker-{i:02d}] => (item=queue-{j})" for i in range(12) for j in range(200)]
    lines[1200:1200] = [
        "[ERROR]: Task failed: Module failed: non-zero return code",
        "Origin: /srv/site/roles/retry_queue/tasks/main.yml:14:3",
        "",
        '12     mode: "0640"',
        "13",
        "14 - name: Drain the retry queue",
        "    ^ column 3",
        "",
        'fatal: [retry-worker-06]: FAILED! => {"changed": true, "msg": "non-zero return code", "rc": 3}',
        "...ignoring",
    ]
    lines += ["", "PLAY RECAP " + "*" * 60]
    lines += [
        f"retry-worker-{i:02d}           : ok=200  changed=3    unreachable=0    failed={recap_failed if i == 6 else 0}"
        f"    skipped=0    rescued=0    ignored={int(i == 6)}   "
        for i in range(12)
    ]
    return "\n".join(lines) + "\n"


def test_a_play_recap_without_failures_is_a_clean_closing_verdict() -> None:
    assert not read_signal(_play(0)).failing
    assert read_signal(_play(1)).failing


def test_a_zero_count_of_unreachable_hosts_is_healthy() -> None:
    row = "web-01   : ok=4    changed=2    unreachable=0    failed=0    skipped=0    rescued=0    ignored=0"
    assert not read_signal(_among(row)).failing
    assert read_signal(_among(row.replace("unreachable=0", "unreachable=1"))).failing


def test_a_labelled_location_under_an_error_comes_with_it() -> None:
    preview = make_preview(_play(1), counter=COUNTER, preview_tokens=250)
    assert "[ERROR]: Task failed: Module failed: non-zero return code" in preview
    assert "Origin: /srv/site/roles/retry_queue/tasks/main.yml:14:3" in preview


def test_a_failure_heading_over_a_long_block_brings_its_first_line() -> None:
    """Rust's panic header, its message, then a backtrace with no blank line to end the paragraph."""
    lines = [f"taxd: loaded line {i:05d} region DE-BY net {i} cents" for i in range(1400)]
    lines += ["thread 'tax-close' (1000) panicked at src/rates.rs:12:17:", "rate table missing region 'EU-WEST'"]
    lines += ["stack backtrace:", *(f"  {i}: 0x0 - std::rt::lang_start_{i}" for i in range(60))]
    assert next(u.lineno for u in read_signal("\n".join(lines)).units if u.failure) == 1401
    assert context_of(lines, 1401) == [1402]


def test_exec_made_code_is_no_project_frame() -> None:
    site = "/venv/lib/python3.11/site-packages"
    traceback = [
        "Traceback (most recent call last):",
        '  File "/srv/migrations/versions/b1_index_refunds.py", line 18, in upgrade',
        '    op.create_index("ix_refunds_reason", "refunds", ["reason_cde"])',
        '  File "<string>", line 8, in create_index',
        '  File "<string>", line 3, in create_index',
        *[
            f'  File "{site}/alembic/ddl/impl.py", line {250 + i}, in _exec\n    return conn.execute(c)'
            for i in range(6)
        ],
        "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such column: reason_cde",
    ]
    lines = [f"INFO  [sqlalchemy.engine.Engine] [cached since {i}s] ()" for i in range(400)]
    lines[300:300] = traceback
    assert 318 in [u.lineno for u in read_signal("\n".join(lines)).units if u.failure]
    assert 302 in context_of(lines, 318)  # the migration's own frame


def test_an_exception_quoted_as_an_item_of_logged_parameters_is_data() -> None:
    line = (
        "INFO sqlalchemy.engine.Engine [generated in 0.00010s] [('webhooks', 'TimeoutError: endpoint did not "
        "answer in 30s'), ('billing', 'ConnectionError: gateway refused the connection')]"
    )
    assert not read_signal(_among(line)).failing
    assert read_signal(_among("worker stopped: TimeoutError: endpoint did not answer in 30s")).failing


def test_an_exception_named_with_its_module_is_a_report() -> None:
    line = "sqlalchemy.exc.OperationalError: (sqlite3.OperationalError) no such column: reason_cde"
    assert [u.lineno for u in read_signal(_among(line)).units if u.failure] == [1501]


@pytest.mark.parametrize("line", ["error: null pointer dereference", "failed: None of the hosts answered"])
def test_a_word_like_an_empty_value_after_a_label_is_still_a_report(line: str) -> None:
    assert read_signal(_among(line)).failing


def test_a_process_a_manager_stopped_with_a_signal_is_no_failure() -> None:
    assert not read_signal(_among("12:00:01 system           | web.1 stopped (rc=-15)")).failing


def test_a_status_cell_that_says_errored_is_the_tables_verdict() -> None:
    rows = [f"│ {i}  │ worker-{i:<8} │ fork │ {i % 4}    │ online    │ root │" for i in range(40)]
    rows[17] = "│ 17 │ retry-queue     │ fork │ 7    │ errored   │ root │"
    rule = "├────┼─────────────────┼──────┼──────┼───────────┼──────┤"
    header = "│ id │ name            │ mode │ ↺    │ status    │ user │"
    logs = [f"[worker-{i % 40}] job {i} finished in {i % 90} ms" for i in range(3000)]
    text = "\n".join([*logs[:1500], header, rule, *rows, *logs[1500:]]) + "\n"
    assert "│ 17 │ retry-queue     │ fork │ 7    │ errored   │ root │" in make_preview(
        text, counter=COUNTER, preview_tokens=400
    )
    assert not read_signal(_among("0 errored, 310 passed")).failing


def _stack_overflow_report(pointer: str) -> str:
    """A sanitizer's report under many one-off progress lines: the frame's objects, one pointed at."""

    def word(i: int) -> str:  # a name without digits: each progress line a template of its own
        return "".join(chr(97 + (i // 26**k) % 26) for k in range(3))

    lines: list[str] = []
    for d in range(30):  # one-off lines about each department among lines alike
        lines += [f"  import {word(d)} level 0: {word(d)}", *(f"    shelf {n}: 40 items" for n in range(9))]
        lines += [f"department {word(d)} imported"]
    lines += ["==1==ERROR: AddressSanitizer: stack-buffer-overflow on address 0x7ff0 at pc 0x55 bp 0x7ff sp 0x7f"]
    lines += [f"    #{i} 0x5555 in frame_{i}(std::vector<std::string>) src/catalog.cpp:{i + 10}:5" for i in range(45)]
    lines += ["", "Address 0x7ff0 is located in stack of thread T0 at offset 128 in frame", ""]
    lines += ["  This frame has 3 object(s):"]
    lines += [f"    [32, 128) 'crumb' (line 12){pointer}", "    [160, 168) '__begin1' (line 14)"]
    lines += ["    [192, 200) '__end1' (line 14)"]
    lines += ["SUMMARY: AddressSanitizer: stack-buffer-overflow src/catalog.cpp:15:38"]
    lines += ["Shadow bytes around the buggy address:"]
    lines += [f"  0x{i:012x}: 00 00 00 00 f1 f1 f1 f1 00 00 00 00 f2 f2 f2 f2" for i in range(0, 4000, 16)]
    return "\n".join(lines) + "\n"


def test_a_line_the_tool_points_at_is_shown_ahead_of_one_off_progress() -> None:
    text = _stack_overflow_report(" <== Memory access at offset 128 overflows this variable")
    preview = make_preview(text, counter=COUNTER, preview_tokens=700)
    assert "'crumb' (line 12) <== Memory access" in preview


def test_an_arrow_without_words_points_at_nothing() -> None:
    text = _stack_overflow_report(" <==")
    assert "'crumb' (line 12)" not in make_preview(text, counter=COUNTER, preview_tokens=700)


def test_a_versions_last_part_before_a_failure_word_is_no_count() -> None:
    listing = "pkg-{i} - a library for the shop's ledger, version {i}"
    assert not read_signal(_among("golang-golang-x-xerrors-dev - new Go 1.13 error values", listing)).failing
    assert read_signal(_among("build finished: 13 errors", listing)).failing


@pytest.mark.parametrize(
    "line",
    [
        "Server be_ledger/ledger-1 is UP, reason: Layer7 check passed",
        "Server be_ledger/ledger-1 is going DOWN for maintenance",
    ],
)
def test_a_component_coming_up_or_taken_down_on_purpose_is_no_failure(line: str) -> None:
    assert not read_signal(_among(line)).failing


def test_a_directive_the_tool_did_not_recognize_is_shown_among_one_off_lines() -> None:
    names = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # one-off lines: no digits to mask
    lines = [f"2026/01/01 00:00:00| Processing: acl {n}_api dstdomain .{n}.internal" for n in names]
    lines[50] = "2026/01/01 00:00:00| squid.conf(129): unrecognized: 'cache_peer_acess'"
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=400)
    assert "unrecognized: 'cache_peer_acess'" in preview


def _jest_run() -> str:
    names = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # one-off lines: no digits to mask
    lines = ["PASS test/totals.test.js", "  refunds"] + [f"    ✓ {n} settles its ledger (1 ms)" for n in names]
    lines[60] = "    ✕ splits a refund across the original payments (1 ms)"
    lines += ["", "  ● refunds › splits a refund across the original payments", ""]
    lines += ["    expect(received).toEqual(expected) // deep equality", "", "FAIL test/totals.test.js"]
    lines += [f"note: {n} fixture loaded" for n in names]
    return "\n".join(lines) + "\n"


def test_a_test_runners_failed_mark_and_failure_heading_are_shown_among_one_off_lines() -> None:
    preview = make_preview(_jest_run(), counter=COUNTER, preview_tokens=500)
    assert "✕ splits a refund across the original payments" in preview
    assert "● refunds › splits a refund across the original payments" in preview


def test_a_tally_after_a_failed_mark_is_no_failed_item() -> None:
    assert not read_signal(_among("✖ 40 problems (0 errors, 40 warnings)")).failing


def _settings_listing(value: str) -> str:
    rows = [
        f"| setting_{n:<40} | {v:<10} |" for n, v in zip(range(300), ["OFF", "ON", "DEFAULT", "UTC"] * 75, strict=True)
    ]
    rows[150] = f"| system_versioning_alter_history          | {value:<10} |"
    rule = "+" + "-" * 50 + "+" + "-" * 12 + "+"
    return "\n".join([rule, "| Variable_name" + " " * 36 + "| Value      |", rule, *rows, rule]) + "\n"


def test_a_failure_word_as_a_settings_value_is_a_stored_value() -> None:
    assert not read_signal(_settings_listing("ERROR")).failing


def test_a_status_cell_among_statuses_of_a_two_column_table_is_its_verdict() -> None:
    rows = [f"| test_{n:<40} | PASSED     |" for n in range(300)]
    rows[150] = "| test_refund_splits                        | FAILED     |"
    assert read_signal("\n".join(rows) + "\n").failing


def test_a_records_status_field_is_its_verdict() -> None:
    fields = ["│ name              │ retry-queue  │", "│ namespace         │ default      │"]
    lines = ["│ status            │ FAILED       │", *fields, *[f"log line {i} done" for i in range(400)]]
    assert read_signal("\n".join(lines) + "\n").failing


def _tap_run(line: str) -> str:
    lines = [f"ok {i} refunds: settles payment {i}" for i in range(1, 300)]
    lines[150] = line
    return "TAP version 13\n1..299\n" + "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "line",
    [
        "ok 151 errors: reports error 1 for 749 cents",
        "not ok 151 failed_webhooks: keeps the retry weight # SKIP the card processor is offline",
        "not ok 151 refunds: rounds half-cents # TODO not implemented yet",
    ],
)
def test_a_tap_results_number_and_its_skip_or_todo_directive_are_no_failure(line: str) -> None:
    assert not read_signal(_tap_run(line)).failing


def test_a_tap_result_that_failed_is_failure_evidence() -> None:
    assert read_signal(_tap_run("not ok 151 refunds: rounds half-cents")).failing


def test_a_go_frames_file_and_line_come_with_its_function() -> None:
    lines = [f"worker: drained item {i:05d} of queue {i % 7}" for i in range(300)]
    lines += ["goroutine 3 [semacquire]:", "sync.(*WaitGroup).Wait(0x0?)"]
    lines += ["\t/usr/lib/go-1.19/src/sync/waitgroup.go:139 +0x0"]
    lines += ["example.com/payments/internal/retryqueue.TestRetryQueueDrainsOnShutdown(0x0)"]
    lines += ["\t/tmp/work/internal/retryqueue/drain_test.go:23 +0x0"]
    assert context_of(lines, 304) == [305]


@pytest.mark.parametrize(
    "line",
    [
        "pub fn retry_error_batch_0(amount: u64, failed: bool) -> u64 {",
        "def report(code: int, error: str = '') -> None:",
        "function settle(amount: number, err?: Error) {",
    ],
)
def test_a_parameter_named_with_a_failure_word_and_typed_is_a_declaration(line: str) -> None:
    assert not read_signal(_among(line)).failing


def test_a_failure_label_in_parentheses_with_a_value_is_still_a_report() -> None:
    assert read_signal(_among("GET /ledger/export (error: ECONNREFUSED) after 3 attempts")).failing


def test_a_count_after_a_failure_named_label_counts_what_follows_it() -> None:
    assert not read_signal(_among("errors exceptions: 50 checks passed")).failing
    assert read_signal(_among("Failed requests:        12")).failing


def test_an_exception_told_by_its_repr_after_a_label_is_shown_among_one_off_lines() -> None:
    names = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # one-off lines: no digits to mask
    lines = [f"job {n}: charged the {n} order, deleted" for n in names]
    lines[50] = "job 317 buried: ValueError('card expired for ord-9827')"
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=400)
    assert "ValueError('card expired for ord-9827')" in preview


def _pytest_durations() -> str:
    names = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # one-off lines: no digits to mask
    lines = [f"tests/test_{n}.py::test_add_keeps_amount[timeout-retry] PASSED" for n in names]
    lines += ["", "============================= slowest 20 durations ============================="]
    lines += [
        f"0.{n:02d}s call     tests/test_{m}.py::test_add_keeps_amount[declined-error]" for n, m in enumerate(names)
    ]
    lines += ["============================= 100 passed in 1.00s ============================="]
    return "\n".join(lines) + "\n"


def test_a_parametrized_tests_id_is_its_name_and_a_sections_banner_outranks_one_off_lines() -> None:
    text = _pytest_durations()
    assert not [u for u in read_signal(text).units if u.kind == "fail"]
    assert "slowest 20 durations" in make_preview(text, counter=COUNTER, preview_tokens=300)


def test_a_failure_heading_brings_its_paragraph_past_the_lines_indented_under_it() -> None:
    """Catch2: the failed assertion indented under its heading, then ``with expansion:`` and the values."""
    passed = ["/tmp/work/tests/billing_tests.cpp:353: PASSED:", "  REQUIRE( total(1462) == 1536 )"]
    passed += ["with expansion:", "  1536 (0x600) == 1536 (0x600)", ""]
    lines = passed * 300
    lines += ["/tmp/work/tests/invoice_tests.cpp:367: FAILED:", "  REQUIRE( invoice_cents(1462, 10, 65) == 1537 )"]
    lines += ["with expansion:", "  1536 (0x600) == 1537 (0x601)", ""]
    assert context_of(lines, 1501) == [1502, 1503, 1504]


def test_r_cmd_checks_status_line_is_a_verdict_shown_among_one_off_lines() -> None:
    names = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # one-off lines: no digits to mask
    lines = [f"* checking {n} ... OK" for n in names[:40]] + ["Status: OK", ""]
    lines += [f"[ OK ] {n} keeps only the settled rows" for n in names]
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=300)
    assert "Status: OK" in preview
    assert read_signal(_among("Status: 1 ERROR, 2 WARNINGs")).failing


def test_a_junit_reports_failure_element_is_failure_evidence_and_brings_its_testcase() -> None:
    lines = ['<?xml version="1.0" encoding="utf-8"?>', "<testsuites>", '\t<testsuite name="refunds">']
    lines += [f'\t\t<testcase name="settles refund {i}" time="0.001" classname="test"/>' for i in range(600)]
    lines[300] = '\t\t<testcase name="reports the error for item 30" time="0.001" classname="test">'
    lines[301] = '\t\t\t<failure type="testCodeFailure" message="item 30 keeps its error code">'
    signal = read_signal("\n".join(lines) + "\n")
    assert [u.lineno for u in signal.units if u.failure] == [302]
    assert context_of(lines, 302)[:1] == [301]
