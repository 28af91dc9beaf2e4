"""The general mechanisms of the signal engine, each on a small synthetic output.

The corpus tests (test_signal_corpus.py) show them on real outputs; these pin the
rule itself, including the cases where it must not apply.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence

import pytest

from offloader.signal import make_preview, read_signal
from offloader.signal._patterns import PRIORS
from offloader.signal._rank import Unit, weights
from offloader.signal._scan import scan
from offloader.tokens import TiktokenCounter
from tests.signal_support import context_of

COUNTER = TiktokenCounter()


def _suite(tail: list[str]) -> str:
    lines = [f"test_api.py::test_case_{i} PASSED" for i in range(400)]
    lines[200] = "test_api.py::test_declines ERROR payment declined: gateway timeout (simulated)"
    return "\n".join(lines + tail) + "\n"


def test_errors_logged_before_a_clean_runner_verdict_do_not_make_the_run_failing() -> None:
    assert not read_signal(_suite(["", "==== 400 passed in 1.20s ===="])).failing


def test_a_failure_after_the_verdict_still_counts() -> None:
    text = _suite(["==== 400 passed in 1.20s ====", "Traceback (most recent call last):", "KeyError: 'x'"])
    assert read_signal(text).failing


def test_a_verdict_that_mentions_failures_excuses_nothing() -> None:
    assert read_signal(_suite(["# pass 399", "# fail 1", "# todo 0"])).failing
    assert read_signal(_suite(["==== 1 failed, 399 passed in 1.20s ===="])).failing


def test_a_number_related_to_an_error_is_no_count_of_errors() -> None:
    lines = _suite(["", "==== 400 passed in 1.20s ===="]).splitlines()
    lines[-3:-3] = [f"retry attempt {i} after error: upstream 503, backing off {i * 50} ms" for i in range(12)]
    assert not read_signal("\n".join(lines) + "\n").failing
    lines[-3:-3] = ["build: 2 fatal errors"]
    assert read_signal("\n".join(lines) + "\n").failing


def _api_spec(extra: list[str]) -> str:
    lines = ["openapi: 3.1.0", "paths:"]
    for i in range(150):
        lines += [f"  /v1/orders/{i}:", "    get:", f"      operationId: getOrder{i}", "      responses:"]
        lines += ["        '200':", "          description: OK"]
    lines[200:200] = extra
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "line",
    [
        "      description: 'An RFC 7807 problem: what failed and why.'",
        "      description: Maps an HTTP 500 error to a retry.",
    ],
)
def test_a_number_naming_an_error_is_no_count_of_errors(line: str) -> None:
    assert not read_signal(_api_spec([line])).failing


def test_a_count_of_errors_in_the_same_output_still_counts() -> None:
    assert read_signal(_api_spec(["build: 2 fatal errors"])).failing


def _unittest_suites(failing: int | None) -> str:
    """A shell loop over unittest suites, each closing with its own verdict; ``failing`` says which one fails."""
    lines: list[str] = []
    for n in range(4):
        lines += [f"test_retry_{i} (tests.suite{n}.RetryTests.test_retry_{i}) ... ok" for i in range(60)]
        if n == failing:
            lines += ["test_backoff_caps (tests.suite2.RetryTests.test_backoff_caps) ... FAIL", "", "=" * 70]
            lines += ["FAIL: test_backoff_caps (tests.suite2.RetryTests.test_backoff_caps)", "-" * 70]
            lines += ["Traceback (most recent call last):", '  File "tests/suite2.py", line 9, in test_backoff_caps']
            lines += ["AssertionError: 64 != 30", ""]
        lines += ["-" * 70, f"Ran {60 + (n == failing)} tests in 0.050s", ""]
        lines += ["FAILED (failures=1)" if n == failing else "OK"]
    return "\n".join(lines) + "\n"


def test_a_units_failed_verdict_before_the_last_units_clean_one_still_counts() -> None:
    signal = read_signal(_unittest_suites(failing=2))
    assert signal.failing
    assert any(u.failure for u in signal.units if u.lineno < 200)  # the second suite's, not only its verdict


def test_a_loop_of_clean_suites_is_clean() -> None:
    assert not read_signal(_unittest_suites(failing=None)).failing


def test_failed_items_counted_before_a_clean_verdict_are_no_units_verdict() -> None:
    # ``3 failed payments`` counts the run's data, not its units: the closing verdict still speaks for it
    lines = _suite(["", "==== 400 passed in 1.20s ===="]).splitlines()
    lines[100] = "test_api.py::test_alert WARNING alert shown: 3 failed payments waiting for retry"
    assert not read_signal("\n".join(lines) + "\n").failing


def test_a_tools_own_success_line_excuses_nothing() -> None:
    assert read_signal(_suite(["Successfully installed attrs-23.2.0"])).failing


def test_a_glog_error_line_is_failure_evidence() -> None:
    lines = [
        f"I1201 05:{i // 60 % 60:02d}:{i % 60:02d}.{i:06d}  42 sync.go:88] Synced pod web-{i}" for i in range(3000)
    ]
    lines[1700] = "E1201 05:28:20.001700  42 sync.go:120] Failed to sync pod web-17: context deadline exceeded"
    signal = read_signal("\n".join(lines) + "\n")
    assert signal.failing
    assert [u.lineno for u in signal.units if u.failure] == [1701]


def test_a_failed_field_in_pretty_json_brings_the_fields_that_name_its_record() -> None:
    records = [
        f'    {{\n        "id": {i},\n        "status": "ok",\n        "ms": {i % 300}\n    }}' for i in range(900)
    ]
    records[444] = '    {\n        "id": 444,\n        "status": "failed",\n        "error": "upstream timeout"\n    }'
    text = '{\n    "results": [\n' + ",\n".join(records) + "\n    ]\n}\n"
    preview = make_preview(text, counter=COUNTER, preview_tokens=500)
    assert '"error": "upstream timeout"' in preview
    assert '"id": 444' in preview


def test_hex_byte_runs_are_one_template_so_a_one_off_line_among_them_is_kept() -> None:
    dump = [f"        {':'.join(f'{(i * 7 + j) % 256:02x}' for j in range(18))}:" for i in range(300)]
    dump.insert(150, "        Subject: CN = api.internal.example")
    preview = make_preview("Certificate:\n" + "\n".join(dump) + "\n", counter=COUNTER, preview_tokens=400)
    assert "Subject: CN = api.internal.example" in preview


def test_exception_names_in_docs_and_code_are_not_failure_evidence() -> None:
    doc = [f"     |  method_{i}(self, /, *args, **kwargs)" for i in range(300)]
    doc[100] = "     |  Static methods inherited from builtins.ValueError:"
    doc[200] = "            except TypeError:"
    assert not read_signal("\n".join(doc) + "\n").failing
    doc[250] = "TypeError: unsupported operand type(s) for +: 'int' and 'str'"
    assert read_signal("\n".join(doc) + "\n").failing


def test_a_container_that_exited_non_zero_is_failure_evidence() -> None:
    rows = [f"worker-{i:02d}   busybox   \"sh -c 'exit 0'\"   Exited (0) 3 seconds ago" for i in range(80)]
    assert not read_signal("\n".join(rows) + "\n").failing
    rows[17] = "worker-17   busybox   \"sh -c 'exit 3'\"   Exited (3) 3 seconds ago"
    assert [u.lineno for u in read_signal("\n".join(rows) + "\n").units if u.failure] == [18]


def test_generated_names_are_masked_so_a_table_row_with_an_odd_status_is_news() -> None:
    rows = ["NAME                       READY   STATUS             RESTARTS   AGE"]
    rows += [
        f"web-{i * 7919 % 99991:05x}{i % 7}c6b5-{i * 31 % 997:03x}q{i % 9}   1/1   Running   0   {i % 20 + 1}d"
        for i in range(400)
    ]
    rows.insert(250, "payments-7d9f8c6b5-x2kq9   0/1   CrashLoopBackOff   17 (2m ago)   3d")
    preview = make_preview("\n".join(rows) + "\n", counter=COUNTER, preview_tokens=400)
    assert "payments-7d9f8c6b5-x2kq9   0/1   CrashLoopBackOff" in preview


def test_not_found_as_a_verdict_is_failure_evidence_but_not_in_prose() -> None:
    libs = [f"\tlib{i:02d}.so.1 => /lib/x86_64-linux-gnu/lib{i:02d}.so.1 (0x00007f00000{i:02d}000)" for i in range(200)]
    libs[120] = "\tlib{n}.so => returns the path, or None if the library is not found in the cache"
    assert not read_signal("\n".join(libs) + "\n").failing
    libs[150] = "\tlibmeter.so => not found"
    assert [u.lineno for u in read_signal("\n".join(libs) + "\n").units if u.failure] == [151]


def test_compact_json_shows_the_failed_record_its_pretty_head_cannot_reach() -> None:
    import json

    items = [{"file": f"src/m{i}.js", "messages": [], "errorCount": 0} for i in range(900)]
    clean = json.dumps(items)
    assert "failure evidence further in" not in make_preview(clean, counter=COUNTER, preview_tokens=600)
    items[600] = {"file": "src/api/users.js", "messages": [{"message": "'fetchUser' is not defined."}], "errorCount": 1}
    preview = make_preview(json.dumps(items), counter=COUNTER, preview_tokens=600)
    assert COUNTER.count(preview) <= 600
    assert "'fetchUser' is not defined." in preview


def test_a_template_is_the_same_with_every_digit_zeroed_so_shapes_are_templated_once() -> None:
    # the rarity pass templates each line with its digits zeroed, once per distinct line
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from offloader.signal._rank import _ZERO_DIGITS, template

    alphabet = st.sampled_from(list("0123456789abcdefABCDEF xyz-_./\\:'\"`‘’()[],=\t#é٣"))

    @settings(max_examples=3000, deadline=None)
    @given(st.text(alphabet, max_size=120))
    def same(line: str) -> None:
        zeroed = line.encode("utf-8").translate(_ZERO_DIGITS).decode("utf-8")
        assert template(zeroed) == template(line)

    same()


def test_a_one_off_line_after_invalid_utf8_is_read_at_its_own_bytes() -> None:
    # rare lines are located by their byte offsets, not by the length of their decoded text
    lines = [f"2024-05-01 10:00:{i % 60:02d} INFO worker {i} done" for i in range(200)]
    lines[50] = "2024-05-01 10:00:50 INFO worker \xff\xfe\xfd done"  # invalid bytes: 3 replaced
    lines[120] = "disk quota reached on shard seven"  # the news, after them
    raw = "\n".join(lines).encode("latin-1")
    signal = read_signal(raw)
    kept = [u for u in signal.units if u.lineno == 121]
    assert kept, signal.units
    assert raw[kept[0].start : kept[0].end] == lines[120].encode()


#: The masks as first written (a path tried from every character): the reference the faster ones must equal.
_REFERENCE_PATH = r"[^\s'\"():,\[\]]*[/\\][^\s'\"():,\[\]]*"
_REFERENCE_MASK = (
    rf"'[^']*'|\"[^\"]*\"|`[^`]*`|‘[^’]*’|{_REFERENCE_PATH}"
    r"|\b[0-9a-fA-F]{2}(?:[:-][0-9a-fA-F]{2}){3,}[:-]?|[\w-]*[0-9][\w-]*"
    r"|\b[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+\b"
)
_REFERENCE_NAMES = (
    rf"{_REFERENCE_PATH}|\b[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{{0,4}}\b(?![:(]|\.[A-Z])"
    r"|\b[\w-]+(?:\.[\w-]+)*\.[a-z][a-z0-9]{0,4}(?=:\d)"
)


def test_the_path_masks_match_what_a_path_tried_from_every_character_matches() -> None:
    import re

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from offloader.signal import _rank

    pairs = [(_rank._MASK, re.compile(_REFERENCE_MASK)), (_rank._NAMES, re.compile(_REFERENCE_NAMES))]
    pieces = st.one_of(
        st.sampled_from(
            ["src/a.py", "a.b.py:12", "`x`/y", "‘a’/b", "'q'/r", "C:\\dir\\f", "aa-bb-cc-dd/x", "v1.2", "ab-"]
        ),
        st.sampled_from(["word", "dd9x", "\u0663x", "a_b", "x-1", "ee-ff"]),  # tokens with and without a digit
        st.just("12:aa-bb-cc-dd"),  # a byte run can end inside the run of a path
        st.sampled_from(list("/\\ :,()[]'\"`‘’-_.=aZ09é\t")),
    )

    @settings(max_examples=4000, deadline=None)
    @given(st.lists(pieces, max_size=14).map("".join))
    def same(line: str) -> None:
        for fast, reference in pairs:
            assert fast.sub("#", line) == reference.sub("#", line), (fast.pattern[:20], line)

    same()


def test_lines_that_go_on_under_a_failure_lines_label_are_its_context() -> None:
    from offloader.signal._context import attach_context
    from offloader.signal._rank import rank
    from offloader.signal._scan import scan

    noise = [f"  [x] compiling {i * 3} modules" for i in range(200)]
    report = [
        "npm error Lifecycle script `build` failed with error:",
        "npm error code 1",
        "npm error path /srv/app/packages/invoice",
        "npm error workspace @acme/invoice@1.0.0",
        "npm warn this line is not the report",
    ]
    found = scan(("\n".join(noise + report + noise) + "\n").encode())
    unit = next(u for u in rank(found) if u.lineno == 201)
    attach_context(found, unit)
    assert [lineno for lineno, _, _ in unit.context] == [202, 203, 204]


def test_a_label_with_digits_chains_nothing() -> None:
    # lines of one second share a time-stamped prefix: each is ranked on its own, not as the first one's context
    from offloader.signal._context import attach_context
    from offloader.signal._rank import rank
    from offloader.signal._scan import scan

    lines = [f"10:00:{i:02d} INFO step {i} done" for i in range(40)]
    lines[20:22] = ["10:00:20 ERROR step 20 failed", "10:00:20 ERROR retrying step 20 in 5s"]
    found = scan(("\n".join(lines) + "\n").encode())
    unit = next(u for u in rank(found) if u.lineno == 21)
    attach_context(found, unit)
    assert unit.context == []


def test_a_bisection_verdict_is_failure_evidence() -> None:
    steps = [f"tests/test_tax.py::test_tax_{i} PASSED [{i}%]" for i in range(100)]
    text = "\n".join(
        [*steps, "==== 100 passed in 1.02s ====", "4c3d3b9 is the first bad commit", "bisect found first bad commit"]
    )
    assert read_signal(text).failing


def test_the_priors_answer_alike_with_every_digit_but_0_and_5_as_1() -> None:
    # ranking computes a line's weights once per shape: digits the priors do not tell apart are made alike
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from offloader.signal._rank import _PRIOR_DIGITS, weights

    words = [
        "exit code ", "exit status ", "exited (", "returned ", " exit status", "Error ", 'HTTP/1.1" ', "status=",
        "code: ", " failed", " passed", "failed=", "errors: ", " errors", "Found ", "Ran ", " tests", "Files=",
        '"error": ', "E1201 ", "F0101 ", "[error]", "not ok ", "tests ", "fail ", " problems", "make: *** ",
    ]  # fmt: skip
    digits = st.one_of(
        st.text(st.sampled_from("0123456789"), min_size=1, max_size=4),
        st.sampled_from(["0", "5", "503", "599", "200", "404", "150", "05", "50"]),
    )
    pieces = st.one_of(st.sampled_from(words), digits, st.sampled_from(list(" :=.,()-\t")))

    @settings(max_examples=4000, deadline=None)
    @given(st.lists(pieces, max_size=12).map("".join))
    def alike(line: str) -> None:
        assert weights(line.encode().translate(_PRIOR_DIGITS).decode()) == weights(line), line

    alike()


def test_a_line_that_only_says_where_is_the_context_of_the_report_before_it() -> None:
    lines: list[str] = []
    for i in range(60):
        lines += [f"W2001 Parameter Owner{i} not used.", f"templates/svc-{i}.yaml:8:3", ""]
    lines[90:92] = ["E3012 'lots' is not of type 'integer'", "templates/svc-refunds.yaml:20:7"]
    assert context_of(lines, 91) == [92]


def test_an_indented_finding_brings_the_heading_its_block_hangs_from() -> None:
    lines: list[str] = []
    for i in range(40):
        lines += [f"deploy/app-{i}.yaml", '  1:1       warning  missing document start "---"  (document-start)', ""]
    lines[61:64] = ["deploy/ledger.yaml", "  1:1       warning  missing document start", "  9:3  error: duplicate key"]
    assert 62 in context_of(lines, 64)  # deploy/ledger.yaml, two lines up


def test_a_heading_past_a_blank_line_is_not_the_findings_heading() -> None:
    lines = [f"step {i} done" for i in range(40)]
    lines[20:23] = ["summary of build", "", "    error: linker failed"]
    assert 21 not in context_of(lines, 23)


def test_a_reports_first_line_brings_the_shallowest_lines_of_its_block_across_blank_lines() -> None:
    lines = [f"batch {i}: posted" for i in range(60)]
    lines[30:30] = [
        "WARNING: ThreadSanitizer: data race (pid=1)",
        "  Read of size 8 at 0x7f by thread T2:",
        "    #0 post_batch ledger.c:12",
        "",
        "  Previous write of size 8 at 0x7f by thread T1:",
        "    #0 post_batch ledger.c:12",
        "",
        "  Location is global 'ledger_total' of size 8",
        "SUMMARY: ThreadSanitizer: data race ledger.c:12 in post_batch",
    ]
    assert context_of(lines, 31) == [32, 35, 38]  # not the frames (#0 ...), not past the block


def test_a_summary_naming_a_failure_is_failure_evidence_and_a_zero_count_is_not() -> None:
    jobs = [f"job {i} on queue billing: done" for i in range(500)]
    assert read_signal("\n".join([*jobs, "scheduler finished: 499 ok, 1 failed"]) + "\n").failing
    assert not read_signal("\n".join([*jobs, "scheduler finished: 500 ok, 0 failed"]) + "\n").failing


def test_zero_error_summaries_and_the_accounting_of_errors_are_not_failure_evidence() -> None:
    lines = [f"recorded service_{i}: 0 failures, fatal=no" for i in range(500)]
    lines += ["error budget report: all 500 services within budget", "==1== ERROR SUMMARY: 0 errors from 0 contexts"]
    assert not read_signal("\n".join(lines) + "\n").failing


def test_a_sanitizer_report_is_failure_evidence_but_its_name_in_a_listing_is_not() -> None:
    listing = [f"ii  libpkg{i}  1.{i}  amd64  package number {i}" for i in range(300)]
    named = [*listing, "ii  libasan8  14.2  amd64  AddressSanitizer -- a fast memory error detector"]
    assert not read_signal("\n".join(named) + "\n").failing
    report = [*listing, "==4242==ERROR: AddressSanitizer: heap-use-after-free on address 0x602000000010"]
    assert read_signal("\n".join(report) + "\n").failing


def test_a_one_off_reports_labelled_fields_come_with_it() -> None:
    lines: list[str] = []
    for i in range(60):
        lines += [f">> Issue: [B311:blacklist] pseudo-random generator {i}", "   Severity: Low   Confidence: High"]
        lines += [f"   Location: app/jitter_{i}.py:6:24", "-" * 40]
    lines[120:120] = [
        ">> Issue: [B602:subprocess_popen_with_shell_equals_true] subprocess call with shell=True identified",
        "   Severity: High   Confidence: High",
        "   CWE: CWE-78 (https://cwe.mitre.org/data/definitions/78.html)",
        "   More Info: https://bandit.readthedocs.io/en/latest/plugins/b602.html",
        "   Location: app/export/archive_11.py:5:4",
        "5\tdef export(name):",
    ]
    assert context_of(lines, 121) == [122, 123, 124, 125]


def test_a_traceback_header_brings_its_last_frame_and_exception_line() -> None:
    lines = [f"2024-06-03 02:00:{i % 60:02d} INFO posted INV-{i}" for i in range(80)]
    lines[40:40] = [
        "Traceback (most recent call last):",
        '  File "billing.py", line 42, in <module>',
        "    post(invoice)",
        '  File "billing.py", line 27, in to_cents',
        "    return int(Decimal(str(raw)) * 100)",
        "               ^^^^^^^^^^^^^^^^^",
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    ]
    assert {44, 45, 46, 47} <= set(context_of(lines, 41))


def test_a_traceback_header_brings_the_line_just_before_it() -> None:
    # a loop's marker says which table was being loaded; the traceback never names it
    lines: list[str] = []
    for table in ("invoices", "refunds", "failed_payments", "disputes"):
        lines += [f"== {table}", *(f"{table[:3].upper()}-{i},{i * 7}.00,2024-02-03" for i in range(60))]
    at = lines.index("== failed_payments") + 1
    lines[at:at] = [
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.11/site-packages/agate/table/__init__.py", line 127, in __init__',
        "    raise ValueError(",
        "ValueError: Row 8821 has 11 values, but Table only has 10 columns.",
    ]
    assert context_of(lines, at + 1)[0] == at


def test_a_changed_line_of_a_diff_brings_its_files_header() -> None:
    lines: list[str] = []
    for i in range(30):
        name = f"conf/gw-{i}.yaml"
        lines += [f"diff -ru a/{name} b/{name}", f"--- a/{name}", f"+++ b/{name}"]
        lines += ["@@ -1,3 +1,3 @@", "-# rendered by confgen 4.1.0", "+# rendered by confgen 4.2.0", " service: gw"]
    lines[150:150] = ["@@ -13,3 +13,3 @@", "   pool_size: 19", "-  settle_timeout_seconds: 30", "+  timeout: 3"]
    assert lines[149] == "+++ b/conf/gw-21.yaml"
    assert context_of(lines, 154) == [150]  # through the hunk's body, up to its file's header


def test_a_report_that_names_no_file_brings_the_line_before_that_names_one() -> None:
    lines: list[str] = []
    for i in range(40):
        lines += [f"== [models/fct_{i}.sql] FAIL", "L:   1 | P:   1 | LT09 | Select targets should be on a new line."]
    lines[41] = "L:   7 | P:   1 |  PRS | Line 7, Position 1: Found unparsable section: 'order'"
    assert context_of(lines, 42) == [41]


def test_a_list_item_outside_a_diff_brings_no_diff_header() -> None:
    lines = [f"- step {i}: done" for i in range(60)]
    lines[30] = "- step 30: FAILED to upload artifact"
    assert all(n > 31 for n in context_of(lines, 31))  # nothing above: no hunk, no file header


def test_a_one_frame_tracebacks_lines_are_its_context_once() -> None:
    # the frame follows the header (context after it) and ends the traceback (its last frame)
    lines = [f"2024-06-03 02:00:{i % 60:02d} INFO posted INV-{i}" for i in range(80)]
    lines[40:40] = [
        "Traceback (most recent call last):",
        '  File "job.py", line 3, in <module>',
        "    settle()",
        "NameError: name 'settle' is not defined",
    ]
    assert context_of(lines, 41) == [40, 42, 43, 44]  # the line just before the header, then the frame, once


def test_a_line_offered_twice_is_picked_and_paid_for_once() -> None:
    from offloader.signal._render import _Picker

    twice, once = _Picker(COUNTER, 500), _Picker(COUNTER, 500)
    assert twice.take([(7, "E   KeyError: 'x'"), (7, "E   KeyError: 'x'")], 500)
    assert once.take([(7, "E   KeyError: 'x'")], 500)
    assert (twice.order, twice.used) == (once.order, once.used) == ([7], once.used)


def test_healthy_lines_repeated_in_a_big_output_are_not_news() -> None:
    # over 256 KB the rarity pass does not count every line; 6,000 lines the scanner flags for
    # ``errors=0`` (healthy once the zero is removed) must not each rank as a one-off line
    lines = [f"order ORD-{i:05d} (cust-{i % 400:04d}): 4 lines, total {50 + i % 37}.00, errors=0" for i in range(6_000)]
    lines[4_417] = "order ORD-04417 rejected: 1 validation error for Order"
    text = "\n".join(lines) + "\nimported 5999 orders, rejected 1\n"
    assert len(text.encode()) > 256 * 1024
    signal = read_signal(text)
    assert sum(1 for u in signal.units if u.kind == "novel") <= 2
    preview = make_preview(text, counter=COUNTER, preview_tokens=1000)
    assert "order ORD-04417 rejected: 1 validation error for Order" in preview


def test_a_programs_own_diagnostic_is_failure_evidence_without_an_exit_status() -> None:
    lines = [f"converting exports/customers_{i:03d}.csv" for i in range(300)]
    lines.insert(158, "iconv: illegal input sequence at position 725")
    text = "\n".join(lines) + "\ndone: 300 files written to latin1/\n"  # the loop itself exits 0
    assert read_signal(text).failing
    assert "iconv: illegal input sequence at position 725" in make_preview(text, counter=COUNTER, preview_tokens=600)


def test_a_programs_own_diagnostic_naming_a_mismatch_is_failure_evidence() -> None:
    lines = [f"mlr --icsv --ojson cat exports/failed_payments_2024-03-{i:02d}.csv" for i in range(1, 300)]
    lines.insert(140, "mlr: mlr: CSV header/data length mismatch 10 != 11 at filename exports/x.csv row 1878.")
    assert read_signal("\n".join(lines) + "\n").failing  # the loop's last run worked: no exit status


def test_a_programs_line_that_names_a_problem_only_in_an_option_is_no_diagnostic() -> None:
    lines = [f"autoreconf: configure.ac: tracing failed_payments_{i:03d}" for i in range(300)]
    lines.insert(140, "autoreconf: running: automake --add-missing --copy --force-missing")
    assert not read_signal("\n".join(lines) + "\n").failing
    lines.insert(141, "automake: error: cannot open < Makefile.am: No such file or directory")
    assert read_signal("\n".join(lines) + "\n").failing


def _pre_commit_run(hooks: list[tuple[str, str]]) -> list[str]:
    """A pre-commit run's lines: each hook's name and verdict, then 40 lines of what it printed."""
    lines: list[str] = []
    for i, (name, verdict) in enumerate(hooks):
        lines += [f"{name}".ljust(70, ".") + verdict, f"- hook id: hook-{i}", "- duration: 0.05s", ""]
        lines += [f"config/retry/{name.split()[0]}_{j:02d}.yaml: {j + 3} keys, valid" for j in range(40)]
    return lines


_HOOKS = [
    ("trim trailing whitespace", "Passed"),
    ("error codes have a reason and a retry rule", "Passed"),
    ("failed payment fixtures match the schema", "(no files to check)Skipped"),
    ("ruff check", "Passed"),
    ("mypy strict", "Passed"),
]


def test_a_steps_name_before_its_pass_verdict_is_no_outcome() -> None:
    assert not read_signal("\n".join(_pre_commit_run(_HOOKS)) + "\n").failing


def test_a_clean_checklists_step_verdicts_are_shown() -> None:
    preview = make_preview("\n".join(_pre_commit_run(_HOOKS)) + "\n", counter=COUNTER, preview_tokens=500)
    assert all(f"{name}".ljust(70, ".") + verdict in preview for name, verdict in _HOOKS)
    assert "- hook id: hook-3" not in preview  # a verdict that says all brings no lines under it


def test_a_failed_steps_verdict_is_still_a_failure() -> None:
    hooks = [*_HOOKS[:3], ("ruff check", "Failed"), _HOOKS[4]]
    assert read_signal("\n".join(_pre_commit_run(hooks)) + "\n").failing


def test_a_one_off_line_with_an_arrowed_location_under_it_is_a_diagnostic() -> None:
    words = ["ledger", "refunds", "payouts", "tax", "invoices", "disputes", "fees", "webhooks", "coupons", "audit"]
    lines = [f"checked {a} against {b} rules" for a in words for b in words]  # one-off lines, alike to none
    lines += [f"tests/test_{i}.py::test_case PASSED" for i in range(200)]
    lines[90:90] = ["F401 [*] `os` imported but unused", " --> src/payments/chargebacks.py:5:8", "  |", "5 | import os"]
    preview = make_preview("\n".join(lines) + "\nFound 1 error.\n", counter=COUNTER, preview_tokens=400)
    assert "F401 [*] `os` imported but unused" in preview


def test_a_dotted_names_last_part_is_a_name_not_an_outcome() -> None:
    assert weights("declared queue refunds.retry (dead letters to refunds.failed): ok")[0] == 0
    assert weights("INFO worker: event charge.failed handled for ch_00042")[0] == 0
    assert weights("INFO worker: the refunds export failed")[0] > 0  # the word alone still reads


def test_a_shells_diagnostic_is_failure_evidence() -> None:
    for said in (
        "./backup.sh: line 12: RETENTION_DAYS: unbound variable",
        "scripts/drain.sh: line 74: syntax error near unexpected token `fi'",
        "export.sh: 5: OUT_DIR: parameter not set",
    ):
        lines = [f"+ cp exports/day_{i:03d}.csv /backup/" for i in range(200)]
        assert read_signal("\n".join([*lines, said, "+ cleanup"]) + "\n").failing, said


def test_a_shells_diagnostic_among_the_source_bash_v_echoes_is_the_runs() -> None:
    script = ["#!/usr/bin/env bash", "# drain.sh: drains the retry queue.", "set -euo pipefail", ""]
    script += [f'echo "step {i}: error handling for queue {i}"' for i in range(300)]
    said = "scripts/drain.sh: line 74: syntax error near unexpected token `fi'"
    text = "\n".join([*script, said, "scripts/drain.sh: line 74: `  fi'", *script[:40]]) + "\n"
    assert read_signal(text).failing


def test_an_error_codes_name_is_no_error() -> None:
    assert weights("error code E1093 (exception_unhandled): wrote the report")[0] == 0
    assert weights("exception_report.html: 16 areas, 48 error codes, 0 unresolved")[0] < 3
    assert weights("HTTP error code: 500")[0] >= 3  # a status, not a name


def test_a_level_word_where_a_program_name_would_be_is_no_diagnostic() -> None:
    lines = [f"loaded plugin {i}" for i in range(300)]
    lines[150] = "warning: invalid value for cache_size, using the default"
    lines[200] = "note: cannot use colour output, TERM is dumb"
    lines[250] = "cc1: warning: command-line option '-Wno-invalid-offsetof' is valid for C++ but not for C"
    assert not read_signal("\n".join(lines) + "\nall 300 plugins loaded\n").failing


def test_an_error_the_tool_says_it_ignored_is_not_failure_evidence() -> None:
    head = [
        "rm obj/stale.o build/failed.lock",
        "rm: cannot remove 'obj/stale.o': No such file or directory",
        "rm: cannot remove 'build/failed.lock': No such file or directory",
        "make: [Makefile:7: prep] Error 1 (ignored)",
    ]
    body = [f"cc -O1 -c src/part_{i:03d}.c -o obj/part_{i:03d}.o" for i in range(300)]
    text = "\n".join([*head, *body, "ar rcs libledger.a obj/*.o", "build complete: libledger.a (300 objects)"])
    assert not read_signal(text).failing
    unignored = text.replace("Error 1 (ignored)", "Error 1")
    assert read_signal(unignored).failing


def test_a_failure_said_a_few_times_outranks_lines_that_are_only_new() -> None:
    # a restart loop: the cause repeats (so it is not rare), among many one-off start-up lines
    lines = [
        f"2026-12-02 05:23:{i % 60:02d},{i:03d} INFO spawned: 'worker-{i:02d}' with pid {23000 + i}" for i in range(300)
    ]
    for n, at in enumerate((31, 104, 210, 266)):
        lines[at] = f"2026-12-02 05:23:1{n},855 WARN exited: billing-worker (exit status 78; not expected)"
    lines[268] = "2026-12-02 05:23:22,855 INFO gave up: billing-worker entered FATAL state, too many start retries"
    odd = [f"{name:<24} RUNNING   pid {24000 + k}, uptime 0:00:{k:02d}" for k, name in enumerate(_NAMES)]
    text = "\n".join([*[f"setting {k} = {k * 7} from supervisord.conf" for k in range(60)], *lines, *odd])
    preview = make_preview(text, counter=COUNTER, preview_tokens=600)
    assert "WARN exited: billing-worker (exit status 78; not expected)" in preview


_NAMES = [
    f"{a}-{b}" for a in ("audit", "auth", "cart", "tax", "retry", "orders") for b in ("sweeper", "worker", "cron")
]


def _compile_log(report: list[str]) -> list[str]:
    lines = [f"gfortran -c -Wall -Jmod src/ledger_{i:03d}.f90" for i in range(400)]
    return [*lines[:200], *report, *lines[200:]]


def test_a_message_under_a_source_excerpt_brings_the_location_above_it() -> None:
    report = [
        "src/ledger_post.f90:11:26:",
        "",
        "   11 |     call post_entry(cents)",
        "      |                          1",
        "Error: Type mismatch in argument 'n' at (1); passed REAL(4) to INTEGER(4)",
    ]
    assert context_of(_compile_log(report), 205) == [201, 203, 204]


def test_a_line_that_is_not_only_a_location_is_not_taken_for_one_over_an_excerpt() -> None:
    report = [
        "gfortran -c -Wall -Jmod src/ledger_post.f90",
        "   11 |     call post_entry(cents)",
        "      |                          1",
        "Error: Type mismatch in argument 'n' at (1); passed REAL(4) to INTEGER(4)",
    ]
    assert 201 not in context_of(_compile_log(report), 204)


def test_an_indented_report_brings_the_location_under_its_continued_message() -> None:
    lines = [f"2025-03-14T09:43:{i % 60:02d} info settle batch={i} orders={i % 40} currency=USD" for i in range(3000)]
    crash = [
        "=CRASH REPORT==== 2-Dec-2026::06:11:02.633713 ===",
        "  crasher:",
        "    pid: <0.6296.0>",
        "    exception error: no match of right hand side value ",
        '                     {error,{currency_mismatch,<<"EUR">>,<<"USD">>}}',
        "      in function  settle/1 (settle.escript, line 25)",
        "    ancestors: [<0.9.0>]",
    ]
    context = context_of([*lines[:1500], *crash, *lines[1500:]], 1504)  # the exception error line
    assert context == [1501, 1505, 1506]  # its report's heading, the term, then where


def test_a_report_that_names_no_file_brings_the_named_line_past_one_blank_line() -> None:
    lines: list[str] = []
    for i in range(60):
        lines += [f"== batches/batch-{i:03d}.json", "{", '    "UnprocessedItems": {}', "}"]
    lines[148:152] = [
        "== batches/batch-037.json",
        "",
        "An error occurred (ValidationException) when calling the BatchWriteItem operation: Missing the key sku",
    ]
    assert context_of(lines, 151) == [149]


def test_a_response_time_after_the_user_agent_is_no_http_status() -> None:
    agents = ("curl/7.88.1", "kube-probe/1.29", "Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0")
    lines = [
        f'127.0.0.1 - - [02/Dec/2026:06:22:00 +0000] "GET /app-{i}.js HTTP/1.1" 200 867 "-" "{agents[i % 3]}" {500 + i}'
        for i in range(400)
    ]
    assert not read_signal("\n".join(lines)).failing
    lines[200] = (
        '127.0.0.1 - - [02/Dec/2026:06:22:00 +0000] "GET /cgi-bin/report.cgi HTTP/1.1" 500 571 "-" "curl/7.88.1" 13780'
    )
    assert read_signal("\n".join(lines)).failing


def test_tex_brings_the_line_of_its_error_under_the_message() -> None:
    lines: list[str] = []
    for i in range(300):
        lines += [
            "",
            f"Overfull \\hbox ({i}.62024pt too wide) in paragraph at lines {i}--{i + 1}",
            f"[]\\OT1/cmr/m/n/10 row {i}",
        ]
    lines[451:451] = [
        "! Undefined control sequence.",
        "l.1557 The quarter closed at \\ledgertotl",
        "   {Q3} after review.",
    ]
    assert 453 in context_of(lines, 452)


def test_a_dotted_column_name_does_not_say_where_a_report_is() -> None:
    lines: list[str] = []
    for i in range(60):
        lines += [f"== sqlite-utils insert shop.db orders batches/batch_{i:02d}.json --pk id", "", f"inserted {i} rows"]
    lines[116:119] = [
        "== sqlite-utils insert shop.db orders batches/batch_38.json --pk id",
        "",
        "Error: UNIQUE constraint failed: orders.id",
    ]
    assert context_of(lines, 119) == [117]


def _manual(paragraph: list[str]) -> str:
    """A manual page: option entries whose wrapped paragraphs are indented under each option."""
    lines = ["GIT-LEDGER(1)", "", "NAME", "       git-ledger - Reconcile the ledger of a branch", "", "OPTIONS"]
    for i in range(40):
        lines += [
            f"       --option-{i}",
            "           Reconcile the entries of the named branch against the upstream ledger before",
            "           the merge starts, and keep the journal of every change for later review.",
            "",
        ]
    lines[90:90] = paragraph
    return "\n".join(lines) + "\n"


def test_failure_words_in_a_manuals_wrapped_sentences_are_not_failure_evidence() -> None:
    text = _manual(
        [
            "       --verify",
            "           Check that the tip commit of the side branch is signed with a valid key; when it",
            "           is not, the merge is aborted and the command exits with status 1 after printing",
            "           conflict.",
            "",
        ]
    )
    assert not read_signal(text).failing


def test_a_labelled_failure_between_sentences_is_still_failure_evidence() -> None:
    text = _manual(
        [
            "           Reconcile the entries of the named branch against the upstream ledger before",
            "error: the merge is aborted because the ledger of the branch is out of balance",
            "           the merge starts, and keep the journal of every change for later review.",
        ]
    )
    assert read_signal(text).failing


def test_a_failure_sentence_among_lines_that_are_not_sentences_is_still_failure_evidence() -> None:
    lines = [f"worker {i % 8} settled batch {i} in {i % 90} ms" for i in range(400)]
    lines[233] = "Segmentation fault while the ledger worker was reading the journal of the branch"
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_non_zero_exit_status_without_its_number_is_talk_about_one() -> None:
    prose = "       The command returns a non-zero exit status when the ledger does not balance."
    lines = [f"       The ledger of batch {i} is kept in the journal until the next review." for i in range(200)]
    lines[100] = prose
    text = "\n".join(["", *lines[:100], "", prose, "", *lines[101:]]) + "\n"
    assert not read_signal(text).failing
    assert read_signal(text.replace("non-zero exit status", "non-zero exit status 3")).failing


def test_a_second_failure_of_the_same_shape_about_something_else_is_shown() -> None:
    lines = [f"{day:03d} orders={day * 7} amount={day * 113}.25" for day in range(600)]
    fields = ['      "schema": null,', '      "column": "amount",', '      "check": "greater_than_or_equal_to(0)",']
    lines[300:300] = [
        "exports/orders-05.csv: schema validation FAILED",
        "  [",
        "    {",
        '      "error": "Column \'status\' failed element-wise validator number 0: isin failure cases: chargeback"',
        "    },",
        "    {",
        *fields,
        '      "error": "Column \'amount\' failed element-wise validator number 0: '
        'greater_than_or_equal_to(0) failure cases: -249.12"',
        "    }",
        "  ]",
    ]
    text = "\n".join(lines) + "\nvalidated 12 exports, 1 invalid\n"
    preview = make_preview(text, counter=COUNTER, preview_tokens=700)
    assert "isin failure cases: chargeback" in preview
    assert "greater_than_or_equal_to(0) failure cases: -249.12" in preview


def test_a_failure_said_again_in_other_digits_only_is_not_shown_again() -> None:
    lines = [f"tick {i}: worker healthy" for i in range(400)]
    for n, at in enumerate((100, 180, 260)):
        lines[at] = f"worker-{n} exited: ERROR status {70 + n}"
    signal = read_signal("\n".join(lines) + "\n")
    scores = sorted(u.score for u in signal.units if u.failure)
    assert scores[0] < 0.2  # a later occurrence that says the same stays below the preview's cut


def test_an_indented_failure_brings_the_whole_block_under_it() -> None:
    lines: list[str] = []
    for i in range(60):
        lines += ["", f"Unit Testing:  tests/refunds-{i:02d}.yml", "  SUCCESS"]
    lines[100:102] = [
        "Unit Testing:  tests/refunds-33.yml",
        "  FAILED:",
        "    alertname: RefundsErrorsHigh, time: 10m,",
        "        exp:[",
        '              Labels:{alertname="RefundsErrorsHigh", severity="page"}',
        "            ],",
        "        got:[",
        '              Labels:{alertname="RefundsErrorsHigh", severity="ticket"}',
        "            ]",
    ]
    assert context_of(lines, 102) == [101, 103, 104, 105, 106, 107, 108, 109]


def test_a_non_zero_count_among_zero_counts_of_the_same_outcome_is_a_failing_summary() -> None:
    lines: list[str] = []
    for i in range(40):
        lines += [f"== gforth tests/t{i:02d}.fs", *[f"checked {k} of 40 totals" for k in range(10)]]
        lines.append(f"{int(i == 24)} incorrect results in tests/t{i:02d}.fs")
    text = "\n".join(lines) + "\n"
    assert read_signal(text).failing
    assert "1 incorrect results in tests/t24.fs" in make_preview(text, counter=COUNTER, preview_tokens=600)
    assert not read_signal(text.replace("1 incorrect", "0 incorrect")).failing


def test_a_program_saying_what_an_entry_requires_or_misses_is_a_diagnostic() -> None:
    for message in (
        'slapadd: dn="uid=cust-2417,ou=webhooks" (line=19423): (65) '
        "object class 'inetOrgPerson' requires attribute 'sn'",
        "sed: -e expression #1, char 5: missing command",
    ):
        lines = [f'added: "uid=cust-{i},ou=orders" ({i:08d})' for i in range(500)]
        lines[250] = message
        assert read_signal("\n".join(lines) + "\n").failing, message


def test_counts_of_matched_missed_and_ignored_lines_are_a_summary() -> None:
    # an output past NOVELTY_BYTES: the line is a candidate by its words, not by being one of a kind
    lines = [
        f"|  Failed password for invalid user u{i} from 10.0.{i % 250}.1 port {4000 + i} ssh2" for i in range(5000)
    ]
    lines[40:40] = ["", "Lines: 20000 lines, 8333 ignored, 4167 matched, 7500 missed", "", "|- Matched line(s):"]
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=600)
    assert "Lines: 20000 lines, 8333 ignored, 4167 matched, 7500 missed" in preview


def test_the_shortcuts_past_the_healthy_and_name_patterns_skip_only_lines_they_leave_alone() -> None:
    import gzip
    import json
    from pathlib import Path

    from offloader.signal._patterns import HEALTHY, without_healthy
    from offloader.signal._rank import _FAILURE_NAME, _NAME_HINT, _NAMES

    corpus = Path(__file__).parent / "corpus"
    lines = {"No Errors found", "0 FAILED", "Failures: 0", "error budget", "WITHOUT FAILURES", "a.py:3", "x\\y"}
    lines |= {"0 mismatched", "(retry 0, failed jobs 0)", "3 failed jobs rescheduled", "9 Errors Replayed"}
    lines |= {"failed: HashSet()", '"errors": [],', "failures=None", "Errors: NULL;", "error: nil }"}
    lines |= {"5 expected failures", "OK (expected failures=5)", "12 failed payments to review", "0 unexpected"}
    lines |= {"0 mismatched", "(retry 0, failed jobs 0)", "3 failed jobs rescheduled", "9 Errors Replayed"}
    for name in sorted(json.loads((corpus / "labels.json").read_text()))[::5]:
        text = gzip.decompress((corpus / "outputs" / f"{name}.txt.gz").read_bytes()).decode("utf-8", "replace")
        lines.update(text.splitlines()[:400])
    for line in lines:
        assert without_healthy(line) == HEALTHY.sub(" ", line), line
        if not _NAME_HINT.search(line):
            assert _NAMES.sub(" ", line) == line, line
        if not ("err" in line or "fail" in line or "ERR" in line or "FAIL" in line) or not (
            "-" in line or "_" in line or "." in line or "::" in line
        ):
            assert _FAILURE_NAME.sub(" ", line) == line, line


def test_an_exception_class_named_with_its_module_is_no_failure_label() -> None:
    lines = [f"     |  method_{i}(self, /, *args, **kwargs)" for i in range(300)]
    lines[120] = "     |  Methods inherited from builtins.Exception:"
    lines[200] = "     |  Static methods inherited from builtins.Exception:"
    text = "\n".join(lines) + "\n"
    assert not read_signal(text).failing
    assert read_signal(text.replace("builtins.Exception:", "Exception: worker stopped")).failing


def _htmlhint_loop(report: list[str]) -> list[str]:
    lines: list[str] = []
    for i in range(300):
        lines += [f"htmlhint templates/t-{i:03d}.html", "", "   Config loaded: /tmp/work/.htmlhintrc", ""]
        lines.append("Scanned 1 files, no errors found (<t>).")
    lines[754:754] = report  # after the 151st file's config line and the blank line under it
    return lines


def test_an_indented_finding_brings_the_less_indented_path_it_hangs_from() -> None:
    report = [
        "   /tmp/work/templates/refunds/partial-refund.html",
        '      L11 |      <img src="/static/refunds.png">',
        "                     ^ An alt attribute must be present on <img> elements. (alt-require)",
    ]
    assert context_of(_htmlhint_loop(report), 756) == [755]


def test_a_summary_that_counts_failures_is_failure_evidence() -> None:
    lines = _htmlhint_loop(["Scanned 1 files, found 2 errors in 1 files (<t>)"])
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_failure_that_names_its_file_still_brings_the_loop_header_above_it() -> None:
    lines: list[str] = []
    for i in range(80):
        lines += [
            f"== lessc styles/panel-{i:02d}.less",
            *[f".panel-{i} .row-{k} {{ padding: {k}px; }}" for k in range(8)],
        ]
    lines[400:400] = [
        "== lessc styles/checkout.less",
        "NameError: variable @brand-primery is undefined in /tmp/work/styles/checkout.less on line 8, column 12:",
    ]
    assert context_of(lines, 402)[:1] == [401]


def test_a_failure_sentence_over_a_short_status_line_is_still_failure_evidence() -> None:
    lines = [f"step {i} ok" for i in range(1, 3001)]
    lines[1500] = "Traceback (most recent call last): boom"
    assert read_signal("\n".join(lines) + "\n").failing
    lines[1500] = "error from the upstream payment gateway for the batch"
    lines[1499] = "Starting the payment worker for the orders queue now"
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_sentence_that_introduces_what_follows_is_never_prose() -> None:
    lines = [f"checked order {i}" for i in range(3000)]
    lines[1500:1500] = [
        "Ran all of the tests in the billing suite today",
        "The following tests failed:",
        "  test_refund",
    ]
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_prior_is_line_start_only_when_every_top_level_alternative_starts_with_a_caret() -> None:
    from offloader.signal._patterns import Prior

    def only(pattern: str) -> bool:
        return Prior(pattern, "fail", 1.0).line_start_only

    assert only(r"^make: \*\*\*") and only(r"^(E|F)(:| {2,})|^(error|fatal) ")
    assert only(r"^x[|]y|^z") and only(r"^a\|b") and only(r"^[]|]x|^y") and only(r"^[^]|]x")
    assert not only(r"^error:|\bfailed\b") and not only(r"(^[ \t]*|: )Error:") and not only(r"Caused by")


def test_the_json_excerpt_scan_finds_every_failure_line_embedded_in_compact_json() -> None:
    # Compact JSON has no line start inside it, so the scan for its excerpts leaves out the priors
    # anchored at one; embedded in JSON, every decisive line of the corpus is found all the same.
    import json
    from pathlib import Path

    from offloader.signal._patterns import make_scanner

    labels = json.loads((Path(__file__).parent / "corpus" / "labels.json").read_text())
    lines = [line for label in labels.values() for line in label["decisive"]]
    full = make_scanner(failures_only=True)
    reduced = make_scanner(failures_only=True, line_starts=False)
    glog = b"I0501 10:00:00 ok\nE0501 10:00:01 disk full\n"  # a glog line: found only by its line start
    assert full.offsets(glog) and not reduced.offsets(glog)
    for line in lines:
        for doc in ({"log": line}, [{"id": 7, "message": line}], {line: 1}):
            data = json.dumps(doc).encode()
            assert sorted(set(reduced.offsets(data))) == sorted(set(full.offsets(data))), data


_MANUAL_FOOTER = "Ledger 2.4.1                      2026-03-14                     LEDGER-MERGE(1)"


def _rendered_manual(body: list[str], *, footer: str = _MANUAL_FOOTER) -> str:
    lines = [
        "LEDGER-MERGE(1)                  Ledger Manual                 LEDGER-MERGE(1)",
        "",
        "NAME",
        "       ledger-merge - Join the entries of two ledgers",
        "",
        "DESCRIPTION",
        *[f"       Entry {i} of the journal is kept until the next review of the branch." for i in range(60)],
        "",
        "EXAMPLES",
        *body,
        "",
        footer,
    ]
    return "\n".join(lines) + "\n"


_MANUAL_EXAMPLES = [
    "           $ ledger merge --into main empty-branch",
    "           fatal: Refusing to merge an empty ledger.",
    "",
    "EXIT STATUS",
    "       3      Fatal error: out of memory etc.",
]


def test_examples_and_code_tables_in_a_rendered_manual_page_are_not_failure_evidence() -> None:
    assert not read_signal(_rendered_manual(_MANUAL_EXAMPLES)).failing
    unframed = _rendered_manual(_MANUAL_EXAMPLES).split("\n", 1)[1]  # the same lines without the header
    assert read_signal(unframed).failing


def test_a_failure_after_a_manual_pages_footer_is_still_failure_evidence() -> None:
    text = _rendered_manual(_MANUAL_EXAMPLES) + "fatal: not a ledger repository (or any parent)\n"
    assert read_signal(text).failing


def test_a_manual_header_without_a_footer_of_the_same_title_frames_no_page() -> None:
    text = _rendered_manual(_MANUAL_EXAMPLES, footer="Ledger 2.4.1                      2026-03-14")
    assert read_signal(text).failing


def _help_text(block: list[str]) -> str:
    options = [f"  --ledger-{i}=<path>          Read the journal of ledger {i} from this file." for i in range(80)]
    head = ["usage: ledger [-h] [--quiet] [--ledger-N=<path>]", "", "options:"]
    return "\n".join([*head, *options[:40], *block, *options[40:]]) + "\n"


def test_an_options_own_line_and_the_lines_under_it_are_not_failure_evidence() -> None:
    pip_style = [
        "  -q, --quiet                 Give less output. Option is additive, and can be",
        "                              used up to 3 times (corresponding to WARNING,",
        "                              FATAL error: out of memory levels).",
    ]
    option_line = ["  --query.timeout=2m          Maximum time a query may take before being aborted."]
    go_style = [
        "  --log-package-levels ''",
        "    Each package has its own level (eg: 'etcdmain=FATAL,etcdserver=DEBUG').",
    ]
    for block in (pip_style, option_line, go_style):
        assert not read_signal(_help_text(block)).failing, block


def test_an_option_described_in_parentheses_and_the_details_right_under_it_are_not_failure_evidence() -> None:
    v8_style = [
        "  --crash-on-aborted-evacuation (crash when evacuation of page fails)",
        "        type: bool  default: --no-crash-on-aborted-evacuation",
    ]
    assert not read_signal(_help_text(v8_style)).failing


def test_a_failure_under_a_description_but_not_at_its_column_is_still_failure_evidence() -> None:
    block = [
        "  -q, --quiet                 Give less output.",
        "      FATAL error: out of memory while reading the journal",
    ]
    assert read_signal(_help_text(block)).failing


def test_an_indented_line_naming_three_levels_lists_them_and_a_report_starts_with_its_level() -> None:
    listing = [
        "    set loglevel <LEVEL>      sets the logging level.",
        "",
        "  Levels: CRITICAL, ERROR, WARNING, NOTICE",
    ]
    assert not read_signal(_help_text(listing)).failing
    for report in (
        "  CRITICAL: the journal of ledger 7 is corrupt, at WARNING level since boot",
        "  [ERROR] invalid level 'loud', expected one of debug, info, warning",
    ):
        assert read_signal(_help_text(["", report])).failing, report


def test_a_usage_synopsis_is_no_programs_diagnostic() -> None:
    lines = [f"ledger {i} settled" for i in range(100)]
    synopsis = "usage: stubtest [-h] [--ignore-missing-stub] [--concise]"
    assert not read_signal("\n".join([synopsis, *lines]) + "\n").failing
    assert read_signal("\n".join(["stubtest: the stub is missing from the journal", *lines]) + "\n").failing


def _among_log_lines(lines: list[str]) -> str:
    log = [f"worker {i % 8} settled batch {i} in {i % 90} ms" for i in range(300)]
    return "\n".join([*log[:150], *lines, *log[150:]]) + "\n"


_CODE_STATEMENTS = [
    "        except Exception:",
    '            raise SystemExit("error: %s" % (exc,))',
    '        logger.debug("Exception: %s", ex)',
    "    return ERROR",
    "from ledger.status_codes import ERROR, SUCCESS",
    "    if kind == '#ERROR':",
    "        fail_msg = f'Got unexpected error: {error_code}'",
    "    } catch (IOException failure) {",
]


def test_statements_of_source_code_are_not_failure_evidence() -> None:
    for statement in _CODE_STATEMENTS:
        assert not read_signal(_among_log_lines([statement])).failing, statement


def test_reports_that_start_like_a_call_or_an_assignment_are_still_failure_evidence() -> None:
    for report in (
        "fork() failed: Resource temporarily unavailable",
        "connect(): failed: Connection refused",
        "status = FAILED",
    ):
        assert read_signal(_among_log_lines([report])).failing, report


_SOURCE_BODY = [
    "",
    "def settle(ledger):",
    '    """Settle every entry of ``ledger``.',
    "",
    "    Raises:",
    "        ValueError: when the ledger is out of balance.",
    '    """',
    *[f"    total_{i} = ledger.entry({i}).amount" for i in range(200)],
]


def test_a_source_file_is_code_docstrings_and_comments_included() -> None:
    body = "\n".join(_SOURCE_BODY) + "\n"
    assert read_signal(body).failing  # the docstring's ``ValueError:`` line, read as a report
    for start in ("#!/usr/bin/env python3", '"""The ledger."""', "import os", "# Copyright 2026 Ledger\n# MIT"):
        assert not read_signal(start + "\n" + body).failing, start
    numbered = "".join(f"{n:6}\t{line}\n" for n, line in enumerate(["#!/bin/sh", *_SOURCE_BODY], 1))
    assert not read_signal(numbered).failing  # as ``cat -n`` shows it


def test_a_raw_docstring_or_a_comment_over_a_docstring_or_an_import_starts_a_source_file() -> None:
    body = "\n".join(_SOURCE_BODY) + "\n"
    for start in ('r"""The ledger."""', '# mypy: allow-untyped-defs\n"""The ledger."""', "# ledger\nimport os"):
        assert not read_signal(start + "\n" + body).failing, start


def test_a_bundles_wrapper_perls_version_or_rubys_magic_comment_starts_a_source_file() -> None:
    body = "\n".join(_SOURCE_BODY) + "\n"
    for start in ("(function (root, factory) {", "!function(e){", "require 5.004;", "# frozen_string_literal: true"):
        assert not read_signal(start + "\n" + body).failing, start
    assert read_signal("(failed: 3 of 40 entries)\n" + body).failing  # a bracket alone starts no source


def test_a_return_of_a_string_is_code() -> None:
    for statement in ('            return "error", "E", "ERROR"', "    return 'failed';"):
        assert not read_signal(_among_log_lines([statement])).failing, statement


def test_a_go_builds_package_header_does_not_make_its_errors_a_source_file() -> None:
    errors = "./ledger_test.go:12:3: undefined: entry\nFAIL\texample.com/ledger [build failed]"
    for header in ("# example.com/ledger", "# command-line-arguments", "package example.com/a"):
        assert read_signal(f"{header}\n{errors}\n").failing, header


_LEDGER_BODY = [f"The ledger keeps entry {i} until the next review." for i in range(100)]


def _document(*start: str) -> str:
    body = list(_LEDGER_BODY)
    body[50] = "Error: Cannot find module 'ledger-core'"
    return "\n".join([*start, *body]) + "\n"


def test_a_markup_files_start_makes_it_a_document() -> None:
    for start in (
        ["Release History", "===============", "", "See ``ledger settle`` for the journal."],
        ["Release History", "---------------", "- Keep the [journal](https://example.com/journal)."],
        ["==============", "Ledger journal", "==============", "", ".. contents:: Sections", ""],
        ["---", "title: ledger-settle", "section: 1", "", "---", "", "The settlement of a ledger."],
        ["% Ledger Release Notes", ""],
        [":title: The ledger", ":description: Settling a ledger", ""],
        [".. _quickstart:", ""],
        ["..", "   Copyright (C) 2026 Ledger Team", ""],
        ["**To settle a ledger**", ""],
    ):
        assert not read_signal(_document(*start)).failing, start


def test_a_banner_over_a_tools_report_is_no_document_title() -> None:
    for start in (
        ["Running tests", "=============", ""],  # fail2ban-regex: an underlined title, no markup
        ["--------------", "CREATE TABLE ledger (id INT PRIMARY KEY)", "--------------", ""],  # mysql -v
        ["..F", "======================================================================"],  # unittest
        ["=====", "Tests", "=====", "Tests.Ledger :: settle"],  # Robot Framework: no blank under the rules
        ["---", "status: failed", "entry: 7", "---", "status: ok"],  # a YAML stream of records
        ["% make ledger"],  # a shell transcript
    ):
        assert read_signal(_document(*start)).failing, start


def test_a_markdown_file_is_a_document_but_a_heading_over_a_report_is_not_one() -> None:
    document = _document("# Ledger: the journal", "")
    assert not read_signal(document).failing
    assert read_signal(document.replace("journal\n\n", "journal\n", 1)).failing
    assert read_signal(document.replace("# Ledger: the journal\n\n", "# Subtest: journal\n", 1)).failing


def _chapter(block: list[str], above: str, below: str) -> str:
    paragraphs = [
        "The ledger service keeps a journal of every change and settles it at the end of each day.",
        "",
    ] * 40
    return "\n".join([*paragraphs[:40], above, "", *block, "", below, "", *paragraphs[40:]]) + "\n"


def test_an_example_block_a_document_introduces_is_not_failure_evidence() -> None:
    example = ["    ERROR worker-3 job=8812 failed: payment declined (attempt 3 of 3)"]
    introduced = "A typical log line from such a failure looks like this:"
    resumed = "Nothing needs to be done by hand: the job is retried, then parked."
    assert not read_signal(_chapter(example, introduced, resumed)).failing
    assert read_signal(_chapter(example, "Deploying the ledger service now.", resumed)).failing
    assert read_signal(_chapter([example[0].lstrip()], introduced, resumed)).failing


def test_a_ruled_table_under_a_heading_is_not_failure_evidence_but_an_unruled_list_is() -> None:
    table = ["  code   meaning", "  ------ ---------------------------", "  E100   invalid input"]
    table += ["  E300   fatal: ledger out of balance"]
    resumed = "Every exception raised by the ledger client carries one of these codes."
    assert not read_signal(_chapter(table, "Error codes", resumed)).failing
    unruled = [table[0], *table[2:]]
    assert read_signal(_chapter(unruled, "Summary", resumed)).failing


def test_a_list_items_wrapped_sentence_is_prose_and_a_quotation_is_one_word_of_it() -> None:
    notes = [f" * Entry {i} of the journal is now kept until the next review of it." for i in range(60)]
    item = [
        ' * "ledger merge --autostash" did not restore the stashed entries of the',
        "   journal when the merge was aborted.",
    ]
    assert not read_signal("\n".join([*notes[:30], "", *item, "", *notes[30:]]) + "\n").failing


def test_the_lines_of_a_diffs_hunk_are_a_files_text() -> None:
    hunk = [
        "diff --git a/ledger.py b/ledger.py",
        "--- a/ledger.py",
        "+++ b/ledger.py",
        "@@ -10,6 +10,8 @@ class Ledger:  # error: handling",
        "     def settle(self):",
        "-        pass",
        '+        print("error: the ledger is out of balance")',
        "+        FATAL: stop here",
    ]
    assert not read_signal(_among_log_lines(hunk)).failing
    assert read_signal(_among_log_lines([line for line in hunk if not line.startswith("@@")])).failing


def test_a_grep_match_is_read_as_the_line_of_code_it_shows() -> None:
    matches = [
        'ledger/locks.py:518:            raise exceptions.BrokenBarrierError("Barrier aborted")',
        "ledger/groups.py:211:            #        except Exception:",
        "ledger/loader.py-162-                        # Even the top level import failed: report that error",
    ]
    for match in matches:
        assert not read_signal(_among_log_lines([match])).failing, match
    assert read_signal(_among_log_lines(["ledger/loader.py:162: error: the import failed"])).failing


def test_a_grep_match_in_a_document_is_the_documents_text_but_a_checkers_report_is_not() -> None:
    for match in (
        "README.md:84:Error: Cannot find module 'ledger-core'",
        "docs/api.rst-12-   A failed settlement raises ``LedgerError``.",
        "CHANGELOG.md:7:- Fix the abort when a merge failed",
    ):
        assert not read_signal(_among_log_lines([match])).failing, match
    for report in (
        'docs/index.rst:12: ERROR: Unknown directive type "ledger".',
        "docs/ledger.rst:30: (ERROR/3) Unexpected indentation.",
        "./chapters/ledger.tex:12: LaTeX Error: Environment ledgertable undefined.",
    ):
        assert read_signal(_among_log_lines([report])).failing, report


def test_a_grep_match_in_a_source_or_config_file_is_the_files_text_but_a_compilers_report_is_not() -> None:
    for match in (
        "include/ledger/netlink.h:111:\t__u32 bus_error;\t/* Bus errors */",
        "include/ledger/netlink.h:80: * CAN bus error counters",
        "include/ledger/codes.h:88:LEDGER_FNS(ERROR, error)",
        'dist/ledger.cjs:5937:      error: diagnosticsChannel.channel("ledger:request:error"),',
        "deploy/ledger.yaml:12:  on_error: fail",
    ):
        assert not read_signal(_among_log_lines([match])).failing, match
    for report in (
        "src/ledger.c:214: error: 'balance' undeclared (first use in this function)",
        "src/ledger.c:214:9: error: 'balance' undeclared (first use in this function)",
        "lib/ledger.rb:3:in 'divide': divided by 0 (ZeroDivisionError)",
        "ledger.mk:12: *** missing separator.  Stop.",
    ):
        assert read_signal(_among_log_lines([report])).failing, report


def test_a_grep_match_of_one_file_is_read_after_its_line_number() -> None:
    for match in ('337:        warnopts.remove("error::BytesWarning")', "2633:        raise LedgerError(message)"):
        assert not read_signal(_among_log_lines([match])).failing, match
    assert read_signal(_among_log_lines(["1: error: the ledger test failed"])).failing  # ctest -V's prefix


def test_a_comment_in_grep_n_of_one_file_is_the_files_text() -> None:
    matches = [f"{10 * i}:    total_{i} = settle(ledger, {i})" for i in range(60)]
    matches[30] = "300:        # messages (if debug >= 0). If > 0, errors are raised"
    assert not read_signal("\n".join(matches) + "\n").failing
    steps = [f"1: settle step {i} ok" for i in range(60)]  # ctest -V: one test's number on each line
    steps[30] = "1: # error: the ledger test failed"
    assert read_signal("\n".join(steps) + "\n").failing


def test_a_grep_match_on_a_minified_line_is_read_from_the_lines_start() -> None:
    long_line = "".join(f"batch {i} settled; " for i in range(800)) + "error: settle failed; " + "done; " * 300
    assert not read_signal(_among_log_lines([f"dist/ledger.min.js:1:{long_line}"])).failing
    assert read_signal(_among_log_lines([f"ledger: {long_line}"])).failing


def test_a_listing_time_before_a_folder_named_failed_is_no_count_of_failures() -> None:
    names = [f"unit{i}" for i in range(200)]
    names[60:62], names[140] = ["errors", "failed"], "exceptions"
    listing = [f"drwxr-xr-x {2 + i % 30:2d} root root 4096 2026-03-02 09:00 {name}" for i, name in enumerate(names)]
    assert not read_signal("\n".join(listing) + "\n").failing
    listing[100] = "settle summary: 12 failed"
    assert read_signal("\n".join(listing) + "\n").failing


def test_files_cat_could_not_show_among_the_sources_it_did_are_the_runs_failure() -> None:
    module = ['"""Ledger handlers."""', "", "import logging", ""]
    body = "    if amount < 0:\n        raise ValueError('error: negative')"
    module += [f"def fee_{i}(amount):\n{body}" for i in range(80)]
    sources = "\n".join(module * 3) + "\n"
    assert not read_signal(sources).failing
    for said in ("cat: src/ledger/retry.py: No such file or directory", "[exit status 1]"):
        assert read_signal(sources.replace("import logging\n", f"import logging\n{said}\n", 1)).failing, said


_MESSAGES = ["ValueError: invalid literal for int()", "error: webhook returned 500", "failed to render the PDF"]


def _drawn_table(status: str, box: bool) -> str:
    bar, rule = ("│", "├────┼─────────┼────────┼──────────────────────────────────────┤") if box else ("|", "+----+")
    rows = [f"{bar} {i:<3}{bar} refunds {bar} {status:<6} {bar} {_MESSAGES[i % 3]:<37}{bar}" for i in range(300)]
    header = f"{bar} id {bar} queue   {bar} failed {bar} error{' ' * 33}{bar}"
    return "\n".join([rule, header, rule, *rows, rule]) + "\n"


@pytest.mark.parametrize("box", [True, False], ids=["box-drawn", "ascii"])
def test_a_message_stored_in_a_drawn_tables_cell_is_a_value_not_a_report(box: bool) -> None:
    assert not read_signal(_drawn_table("yes", box)).failing  # a query of failed jobs that succeeded


@pytest.mark.parametrize("box", [True, False], ids=["box-drawn", "ascii"])
def test_a_drawn_tables_status_cell_that_says_failed_is_its_verdict(box: bool) -> None:
    table = _drawn_table("yes", box).splitlines()
    table[150] = table[150].replace(" yes    ", " FAILED ")
    assert read_signal("\n".join(table) + "\n").failing


def test_the_one_invalid_row_of_a_drawn_table_is_shown() -> None:
    rows = [f"│ ledger_{i:02d} │ table │ data/ledger_{i:02d}.csv │ VALID   │" for i in range(300)]
    rows[170] = rows[170].replace("VALID  ", "INVALID")
    rule = "├───────────┼───────┼────────────────────┼─────────┤"
    preview = make_preview("\n".join([rule, *rows, rule]) + "\n", counter=COUNTER, preview_tokens=400)
    assert rows[170] in preview


def test_pythons_help_is_documentation_to_its_end() -> None:
    body = [f"    entry_{i}(self) -> int" for i in range(100)]
    body[50] = " |      Indicates that the settlement should be aborted."
    text = "\n".join(["Help on class Ledger in module ledger:", "", "class Ledger(builtins.object)", *body]) + "\n"
    assert not read_signal(text).failing
    assert read_signal(text.replace("Help on class Ledger in module ledger:\n", "Ledger help:\n", 1)).failing


def test_a_commit_message_in_git_log_says_what_was_fixed_not_what_failed() -> None:
    commits = []
    for i in range(20):
        message = "fatal: the ledger was aborted when it merged" if i == 10 else f"ledger: keep entry {i}"
        commits += [f"commit {i:040x}", "Author: Ledger Team <team@example.com>", "Date:   Thu Dec 3 10:00:00 2026", ""]
        commits += [f"    {message}", "", f"    The journal keeps entry {i} until the review.", ""]
    text = "\n".join(commits) + "\n"
    assert not read_signal(text).failing
    assert read_signal(text.replace("Date:   ", "When:   ")).failing


def test_a_paragraph_in_capitals_is_prose_but_a_label_in_capitals_is_a_report() -> None:
    disclaimer = [
        "  IN NO EVENT UNLESS REQUIRED BY APPLICABLE LAW OR AGREED TO IN WRITING",
        "DATA OR DATA BEING RENDERED INACCURATE OR LOSSES SUSTAINED BY YOU OR THIRD",
        "PARTIES OR A FAILURE OF THE PROGRAM TO OPERATE WITH ANY OTHER PROGRAMS),",
        "EVEN IF SUCH HOLDER OR OTHER PARTY HAS BEEN ADVISED OF THE POSSIBILITY OF",
        "SUCH DAMAGES.",
    ]
    assert not read_signal(_among_log_lines(disclaimer)).failing
    shouted = ["FATAL ERROR: THE LEDGER DATABASE COULD NOT BE REACHED AND THE SERVICE", "WILL NOW STOP"]
    assert read_signal(_among_log_lines(shouted)).failing


def test_a_messages_template_is_not_a_message() -> None:
    for template in ("error canonicalizing %s", "cannot open %s: %m", "ERROR: %-8s failed after %lu tries"):
        assert not read_signal(_among_log_lines([template])).failing, template
    for report in ("ERROR: GET /ledger%20data failed", "error: 100%s of the disk is full"):
        assert read_signal(_among_log_lines([report])).failing, report


def test_a_programs_strings_are_its_text() -> None:
    strings = ["/lib64/ld-linux-x86-64.so.2", "libc.so.6", *[f"ledger_entry_{i}" for i in range(300)]]
    strings[150] = "error canonicalizing the ledger path"
    assert not read_signal("\n".join(strings) + "\n").failing
    assert read_signal("\n".join(strings[1:]) + "\n").failing


def _package_index_page(description: str) -> str:
    releases = {f"1.{i}.0": [{"filename": f"ledger-1.{i}.0.tar.gz", "size": 1000 + i}] for i in range(300)}
    info = {"name": "ledger", "summary": "Settle a ledger", "description": description, "version": "1.299.0"}
    return json.dumps({"info": info, "releases": releases})


def test_a_readme_inside_a_json_string_is_the_readmes_text() -> None:
    body = "\n\n".join(f"The ledger keeps entry {i} until the next review." for i in range(40))
    report = "\n\nA failed import prints `ERROR: No module named ledger` and stops.\n\n"
    for start in (
        "# ledger\n\n",
        "Ledger\n======\n\nSee ``ledger settle``.\n\n",
        ".. image:: logo.svg\n   :alt: x\n\n",
    ):
        page = _package_index_page(start + body + report + body)
        assert not read_signal(page).failing, start
        assert not read_signal(json.dumps(json.loads(page), indent=2)).failing, start
    assert read_signal(_package_index_page(body + report + body)).failing  # no markup: read as text


def test_the_question_site_a_readme_points_to_is_no_stack_overflow() -> None:
    assert not read_signal(_among_log_lines(["Ask a question on Stack Overflow and tag it ledger"])).failing
    for crash in ("Stack overflow.", "fatal runtime error: stack overflow", "STACK OVERFLOW in thread 3"):
        assert read_signal(_among_log_lines([crash])).failing, crash


def test_a_failure_word_said_a_few_times_outranks_lines_that_are_only_new() -> None:
    lines = []
    areas = ["ledger", "audit", "billing", "orders", "refunds", "search", "tax", "cart"]
    names = [f"{area}-{part}" for part in ("core", "api", "web", "cli", "sdk") for area in areas]  # one-off names
    for i, name in enumerate(names):
        lines += [f"== shop-{name}-client", "2.3.0", f"shop-{name}", f"-I/opt/shop/include/shop-{name}"]
        if i == 20:
            report = "Package dependency requirement 'shop-retry >= 2.0' could not be satisfied."
            lines += [report, "Package 'shop-retry' has version '1.4.2', required version is '>= 2.0'"] * 3
    lines.append("[exit status 1]")
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=300)
    assert "could not be satisfied" in preview
    assert "required version is '>= 2.0'" in preview  # the wanted value, under the report


def test_a_version_before_a_hyphenated_name_counts_nothing() -> None:
    lines = [f"Provides: config(ledger-{i}) = 1.3.0-1 ledger-{i} = 1.3.0-1" for i in range(200)]
    lines[100] = "Provides: config(errors-failed-jobs) = 1.3.0-1 errors-failed-jobs = 1.3.0-1"
    assert not read_signal("\n".join(lines) + "\n").failing
    lines[100] = "Checked 3 packages: 1 errors, 2 warnings"
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_name_with_a_failure_word_as_a_part_is_no_report() -> None:
    for name in ("audit-report-failed-jobs", "error_handler", "max_errors", "--fail-fast", "restart: on-failure"):
        lines = [f"+ install -m755 ledger-{i} /tmp/work/BUILDROOT/usr/bin/" for i in range(200)]
        lines[100] = f"+ install -m755 {name} /tmp/work/BUILDROOT/usr/bin/"
        signal = read_signal("\n".join(lines) + "\n")
        assert not [u for u in signal.units if u.lineno == 101 and u.kind == "fail"], name
    for report in ("test_error_path FAILED", "E: shop-failed-jobs: python3-script-but-no-python3-dep"):
        assert read_signal(_among_log_lines([report])).failing, report


def test_a_versioned_symbol_named_after_a_failure_is_a_functions_name() -> None:
    rows = [
        f"{0x35E98 + 8 * i:012x}  {i:04x}00000007 R_X86_64_JUMP_SLO 0000000000000000 ledger_{i}@GLIBC_2.2.5 + 0"
        for i in range(200)
    ]
    rows[100] = "000000035e98  008300000007 R_X86_64_JUMP_SLO 0000000000000000 error@GLIBC_2.2.5 + 0"
    assert not read_signal("\n".join(rows) + "\n").failing
    rows[100] = "ld: error: undefined symbol: ledger_settle@LEDGER_1.0"
    assert read_signal("\n".join(rows) + "\n").failing


def test_an_html_page_is_a_document_but_an_xml_test_report_is_not() -> None:
    body = [f"<p>Step {i}: settle the ledger.</p>" for i in range(200)]
    body[100] = "<pre>Error: Cannot find module 'ledger-core'</pre>"
    for start in ("<!DOCTYPE html>", '<?xml version="1.0" encoding="utf-8"?>\n<html lang="en">', "<html>"):
        assert not read_signal("\n".join([start, "<body>", *body, "</body></html>"])).failing, start
    report = ['<?xml version="1.0"?>', '<testsuite name="ledger" tests="200" failures="1">']
    cases = [f'<testcase name="test_{i}"/>' for i in range(200)]
    cases[100] = '<testcase name="test_settle"><failure message="AssertionError: 3 != 4"/></testcase>'
    assert read_signal("\n".join([*report, *cases, "</testsuite>"])).failing


def test_a_failures_heading_over_its_details_is_failure_evidence_and_brings_them() -> None:
    lines = [f"localrule extract_{i}:\n    output: out/raw/ledger_{i}.csv\n    jobid: {i}" for i in range(100)]
    lines[50] = "Error in rule aggregate:\n    jobid: 47\n    output: out/agg/ledger.csv"
    text = "\n".join(lines) + "\n"
    assert read_signal(text).failing
    preview = make_preview(text, counter=COUNTER, preview_tokens=300)
    assert "Error in rule aggregate:" in preview and "output: out/agg/ledger.csv" in preview
    assert not read_signal(text.replace("Error in rule aggregate:", "Settled in rule aggregate:")).failing


def test_a_one_off_status_among_lines_that_differ_only_in_a_snake_case_name_is_news() -> None:
    words = ["billing", "orders", "cart", "tax", "refunds", "ledger", "auth", "session", "invoice", "audit"]
    names = [f"{a}_{b}" for a in words for b in words]
    lines = []
    for k, name in enumerate(names, 1):
        lines += [f"{k} of 100 START sql view model main.fct_{name} ...... [RUN]"]
        lines += [f"{k} of 100 OK created sql view model main.fct_{name} ...... [OK in 0.10s]"]
    lines[101] = "51 of 100 SKIP relation main.fct_ledger_tax ...... [SKIP]"
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=500)
    assert "SKIP relation main.fct_ledger_tax" in preview


def test_failure_lines_that_differ_in_a_snake_case_name_are_reports_each() -> None:
    words = ["billing", "orders", "cart", "tax", "refunds", "ledger", "auth"]
    failed = [f"ERROR: job settle_{word}_export failed" for word in words]
    assert read_signal(_among_log_lines(failed)).failing


def test_findings_separated_by_blank_lines_bring_the_file_they_are_grouped_under() -> None:
    lines: list[str] = []
    for i in range(80):
        lines += [f"    src/shop/module_{i}.py", "     ❱ print-in-service", "          print() left in code", "   "]
        lines += [f"           11┆ print('fetching', item_{i})", "   "]
    lines[6 * 40 + 3 : 6 * 40 + 3] = ["   ❯❯❱ shell-true", "          ERROR: subprocess called with shell=True", "   "]
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=400)
    assert "ERROR: subprocess called with shell=True" in preview and "src/shop/module_40.py" in preview


def test_a_debian_changelog_says_what_was_fixed() -> None:
    entries = []
    for i in range(40, 0, -1):
        entries += [f"ledger (1.{i}-1) unstable; urgency=medium", "", f"  * New upstream release 1.{i}."]
        entries += ["  * Fix FTBFS: error: 'balance' undeclared" if i == 20 else f"  * Refresh patch {i}.", ""]
        entries += [f" -- Ledger Team <team@example.com>  Thu, {i:02d} Dec 2026 10:00:00 +0000", ""]
    assert not read_signal("\n".join(entries)).failing
    assert read_signal("\n".join(entries[1:])).failing  # the same lines, not under an entry's header


def test_a_diagnostic_without_a_keyword_outranks_other_one_off_lines() -> None:
    diff = []
    areas = ["ledger", "audit", "billing", "orders", "refunds", "search", "tax", "cart"]
    for area in [f"{area}-{part}" for part in ("core", "api", "web") for area in areas]:  # one-off lines
        diff += [f"--- scripts/{area}.sh.orig", f"+++ scripts/{area}.sh", "@@ -2,4 +2,4 @@"]
        diff += [f'-    count=$(shopctl count {area} --status "$1")', f"+  count=$(shopctl count {area} --status"]
        diff += [f'+  echo "{area} $1: $count"', " }"]
    diff.insert(120, "scripts/refunds/retry.sh:4:16: reached EOF without matching { with }")
    preview = make_preview("\n".join([*diff, "[exit status 1]"]) + "\n", counter=COUNTER, preview_tokens=250)
    assert "reached EOF without matching" in preview


def _link_records(result_of: dict[int, str]) -> list[str]:
    lines = []
    for i, page in enumerate(["ledger", "audit", "billing", "orders", "refunds", "search", "tax", "cart"] * 12):
        lines += [
            f"URL        `{page}-{i}.html'",
            f"Name       `{page}-{i}.html'",
            f"Parent URL http://127.0.0.1/{page}",
        ]
        lines += ["Check time TIME seconds", f"Result     {result_of.get(i, 'Valid: 200 OK')}", ""]
    return lines


def test_a_field_of_an_aligned_record_brings_the_records_first_field() -> None:
    lines = _link_records({50: "Error: 404 File not found"})
    preview = make_preview("\n".join([*lines, "1 error found."]) + "\n", counter=COUNTER, preview_tokens=300)
    assert "Result     Error: 404 File not found" in preview
    assert "URL        `billing-50.html'" in preview


def test_a_runs_tally_of_failed_things_is_failure_evidence_and_its_zero_is_healthy() -> None:
    tally = ["Complete requests:      600", "Failed requests:        12", "Non-2xx responses:      12"]
    assert read_signal(_among_log_lines(tally)).failing
    assert not read_signal(_among_log_lines(["Failed transactions:\t           0"])).failing
    assert not read_signal(_among_log_lines(["Number of failed authentications: 462"])).failing  # a report's figure


def test_a_programs_complaint_names_it_with_its_version_suffix() -> None:
    report = "identify-im6.q16: Corrupt JPEG data: premature end of data segment `catalog/hero.jpg'"
    assert read_signal(_among_log_lines([report])).failing


def test_a_shell_traces_non_zero_exit_is_failure_evidence() -> None:
    assert read_signal(_among_log_lines(["+ shopctl settle --all", "+ exit 3"])).failing
    assert not read_signal(_among_log_lines(["+ shopctl settle --all", "+ exit 0"])).failing


def _subjects(prefix: str) -> list[str]:
    return [f"{prefix}{i:07x}{i % 10} ledger: keep entry {i} until the review" for i in range(100, 300)]


def test_a_one_line_commit_listing_says_what_was_done_not_what_failed() -> None:
    for prefix in ("", "* ", "| * "):
        subjects = _subjects(prefix)
        subjects[100] = f"{prefix}1b8e1450 fix the abort when a merge failed: error in the ledger"
        assert not read_signal("\n".join(subjects) + "\n").failing, prefix


def test_a_line_keyed_by_an_id_among_commit_like_lines_is_still_a_report() -> None:
    lines = _subjects("")
    for report in (
        "4bf92f35 ERROR payment failed: card declined",  # a log keyed by trace id
        "a1b2c3d4e5f6   ledger:7   Exited (1) 3 minutes ago",  # docker ps: a column's padding
        "1b8e1450 is the first bad commit",  # git bisect, among no other subjects
    ):
        body = [report] if report.startswith("1b8e1450") else [*lines[:100], report, *lines[100:]]
        log = [f"worker {i % 8} settled batch {i}" for i in range(200)]
        assert read_signal("\n".join([*log[:100], *body, *log[100:]]) + "\n").failing, report


def test_a_files_line_under_git_blame_is_the_files_text() -> None:
    lines = [
        f"{i:07x}1 (Ada Lovelace      2026-12-01 05:45:31 +0000 {n:4}) total_{n} = ledger.entry({n})"
        for n, i in enumerate(range(300), 1)
    ]
    lines[150] = '^f6a5b40 (<ada@example.com> 2026-05-08 20:20:32 +0300  151)     colorize 1 "BUILD FAILED"'
    lines[200] = "d5850ecb ledger/core.py (Ada Lovelace 2026-11-30 05:49:20 +0000 201)     echo error: stop"
    assert not read_signal("\n".join(lines) + "\n").failing
    unblamed = [line.split(") ", 1)[1] if ") " in line else line for line in lines]
    assert read_signal("\n".join(unblamed) + "\n").failing


def test_a_failed_unit_brings_what_it_printed_since_the_line_that_began_it() -> None:
    lines = []
    for i in range(400):
        name = f"spec/ledger_spec.lua @ {i}: ledger adds line {i} of batch {i % 7}"
        lines.append(f"[ RUN      ] {name}")
        if i == 233:
            lines += ["spec/ledger_spec.lua:234: Expected objects to be equal.", "Passed in:", "(number) 1890"]
            lines += ["Expected:", "(number) 2105", f"[  FAILED  ] {name} (N ms)"]
        else:
            lines.append(f"[       OK ] {name} (N ms)")
    lines += ["[==========] 400 tests ran.", "[  PASSED  ] 399 tests.", "[  FAILED  ] 1 test, listed below:"]
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=400)
    assert "(number) 1890" in preview and "(number) 2105" in preview


def _process_listing(extra: list[str]) -> str:
    rows = ["  PID  PPID USER     STAT COMMAND"]
    rows += [f" {2100 + i}  2000 root     S    python3 /srv/shop/bin/worker-{i} --queue q{i}" for i in range(120)]
    rows[60:60] = extra
    return "\n".join(rows) + "\n"


def test_a_level_given_as_an_options_value_is_configuration_not_a_report() -> None:
    mailer = " 2183  2000 root     S    python3 /srv/shop/bin/exceptions-mailer --min-level ERROR"
    assert not read_signal(_process_listing([mailer, " 2184  2000 root     S    app --log-level=error"])).failing
    assert read_signal(_among_log_lines(["ERROR --min-level ignored: settling stopped"])).failing


def test_a_dead_process_its_parent_never_reaped_is_failure_evidence() -> None:
    assert read_signal(_process_listing([" 2301  2183 root     Z    [pg_dump] <defunct>"])).failing


def test_a_labels_error_code_is_part_of_the_label() -> None:
    for line in (
        "/src/Ledger.cs(12,5): error CS1002: ; expected [/src/Ledger.csproj]",
        "src/ledger.ts(3,7): error TS2322: Type 'string' is not assignable to type 'number'.",
        "ledger.cpp(40): fatal error C1083: Cannot open include file: 'ledger.h'",
    ):
        assert read_signal(_among_log_lines([line])).failing, line


def test_lines_that_start_with_the_same_label_are_no_wrapped_paragraph() -> None:
    report = [
        "npm error code ENOENT",
        "npm error path /srv/shop/package.json",
        "npm error enoent Could not read package.json: Error: ENOENT: no such file or directory, open 'x'",
        "npm error enoent This is related to npm not being able to find a file.",
    ]
    assert read_signal(_among_log_lines(report)).failing


def test_a_sentence_going_on_with_caused_by_is_no_chained_exception() -> None:
    help_text = ["  -fpartial-inlining           Perform partial inlining.", "     caused by early inlining."]
    assert not read_signal(_among_log_lines(help_text)).failing
    assert read_signal(_among_log_lines(["Caused by: java.io.IOException: ledger.db is locked"])).failing


def test_a_clean_reports_section_headings_are_shown_when_there_is_room() -> None:
    def word(i: int) -> str:  # a made-up word, no two alike
        return "".join(chr(97 + (i * 7 + k * 5 + i // 26) % 26) for k in range(5))

    lines = [f"{word(i):<10} worst settle window: 0.0234" for i in range(20)]  # each names its own area
    lines += ["Flat profile:", "", "Each sample counts as 0.01 seconds."]
    lines += [f" {i:5.2f}   0.30   0.30    12   25.00   25.00  settle_{word(i)}" for i in range(10)]
    lines += ["", "Call graph:", ""]
    lines += [f"   The {word(i)} {word(i + 300)} is {word(i + 600)} in the {word(i + 900)}." for i in range(120)]
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=400)
    assert "Flat profile:" in preview and "Call graph:" in preview


def test_a_reports_totals_row_is_a_summary() -> None:
    def word(i: int) -> str:  # a made-up name, no two alike
        return "".join(chr(97 + (i * 7 + k * 5 + i // 26) % 26) for k in range(5))

    # rows of words alike in no two lines: no template repeats, so no line is rare among repeated ones
    above = [f"{word(i)} {word(i + 200)}      120     12    90%" for i in range(80)]
    below = [f"    {i:>6,} ( 0.01%)  {word(i + 500)} {word(i + 900)} {word(i + 1300)}" for i in range(300)]
    for totals in ("TOTAL                      9600    960    90%", "30,091,017 (100.0%)  PROGRAM TOTALS"):
        preview = make_preview("\n".join([*above, totals, *below]) + "\n", counter=COUNTER, preview_tokens=300)
        assert totals in preview


def test_failures_a_run_is_handling_are_bookkeeping_not_failures_of_the_run() -> None:
    handled = [
        "eu: 31 failed orders to retry (currency EUR)",
        "eu: retried 31 failed orders, 0 errors",
        "failed orders review: 241 failed orders, all matched to a refund or a retry",
        "error report: 21 errors queued for retry",
    ]
    for line in handled:
        assert not read_signal(_among_log_lines([line])).failing, line
    assert read_signal(_among_log_lines(["ERROR: 3 failed jobs, will not retry"])).failing
    assert read_signal(_among_log_lines(["settle: 31 failed orders"])).failing


def test_a_non_zero_return_code_is_failure_evidence() -> None:
    assert read_signal(_among_log_lines(["Verify return code: 10 (certificate has expired)"])).failing
    assert not read_signal(_among_log_lines(["Verify return code: 0 (ok)"])).failing


def test_a_checks_verdict_in_capitals_is_failure_evidence() -> None:
    for verdict in ("Chain of trust               NOT ok (expired)", "Heartbleed (CVE-2014-0160)   VULNERABLE"):
        assert read_signal(_among_log_lines([verdict])).failing, verdict
    assert not read_signal(_among_log_lines(["the ledger is not ok to settle yet, it says"])).failing


def test_npms_error_label_is_failure_evidence() -> None:
    line = "npm error `npm ci` can only install packages when your package.json and package-lock.json are in sync"
    assert read_signal(_among_log_lines([line])).failing


def test_an_installers_count_of_what_it_resolved_is_a_summary() -> None:
    for count in ("Resolved 21 packages in 1.20s", "installed 19 packages", "audited 312 packages in 2s"):
        units = read_signal(_among_log_lines([count])).units
        assert [u.kind for u in units if u.lineno == 151] == ["summary"], count


_AREA_WORDS = [
    "billing", "orders", "refunds", "ledger", "tax", "audit", "search", "cart", "shipping", "coupons",
    "invoice", "pricing", "catalog", "session", "webhooks", "export", "payouts", "returns", "stock", "loyalty",
]  # fmt: skip


def _score_of(units: Sequence[Unit], lineno: int) -> float:
    return next(u.score for u in units if u.lineno == lineno)


def test_code_that_words_a_failure_ranks_below_a_report_that_words_one() -> None:
    code = [f'        raise {a.title()}Error(f"{a} upstream failed with {{code}}")' for a in _AREA_WORDS]
    report = "ledger sync: the upload of the night batch failed, retrying"
    lines = [*code, report, *(f"synced batch {i} in {i % 70} ms" for i in range(300))]
    units = read_signal("\n".join(lines) + "\n").units
    reported = _score_of(units, len(code) + 1)
    assert all(_score_of(units, n) < reported for n in range(1, len(code) + 1))


def test_a_programs_own_one_off_message_outranks_the_located_lines_it_prints() -> None:
    alike = [f"src/ledger_{i}.py:{i + 3}:    total_{i} = settle(batch_{i})" for i in range(150)]
    pairs = [(a, b) for a in _AREA_WORDS[:6] for b in _AREA_WORDS[6:16]]
    distinct = [f"src/{a}/{b}.py:{i + 3}:    return {a}.{b}()" for i, (a, b) in enumerate(pairs)]
    notice = "grep: data/ledger.db: binary file matches"
    lines = [*alike[:75], *distinct[:30], notice, *distinct[30:], *alike[75:]]
    units = read_signal("\n".join(lines) + "\n").units
    noticed = _score_of(units, lines.index(notice) + 1)
    located = [u.score for u in units if u.kind == "novel" and u.lineno != lines.index(notice) + 1]
    assert located and all(score < noticed for score in located)


def test_a_programs_diagnostic_that_something_is_undefined_is_failure_evidence() -> None:
    assert read_signal(_among_log_lines(["expt: undefined: 0 to a negative exponent."])).failing


def _compose_up(crash: list[str], batches: int = 120) -> str:
    """``docker compose up`` of six workers: each service's lines after its name and a bar, ``crash`` in orders'."""
    lines = ["Attaching to shop_billing_1, shop_cart_1, shop_orders_1, shop_refunds_1, shop_tax_1, shop_audit_1"]
    for service in ("billing", "cart", "orders", "refunds", "tax", "audit"):
        prefix = f"{service + '_1':<10} | "
        lines += [f"{prefix}INFO {service}-worker batch {i:04d} rows={i * 7 % 50} errors=0" for i in range(batches)]
        lines += [prefix + line for line in (crash if service == "orders" else [f"INFO {service}-worker finished"])]
    return "\n".join([*lines, "shop_orders_1 exited with code 1"]) + "\n"


_CRASH = [
    "Traceback (most recent call last):",
    '  File "/app/orders/main.py", line 23, in main',
    "    settings = load_settings(os.environ)",
    '  File "/app/orders/settings.py", line 8, in parse_tax_rate',
    '    raise ValueError(f"ORDERS_TAX_RATE must be a fraction, got {raw!r}")',
    "ValueError: ORDERS_TAX_RATE must be a fraction, got '19'",
]


def test_a_services_traceback_after_its_prefix_keeps_its_exception_and_last_frame() -> None:
    preview = make_preview(_compose_up(_CRASH), counter=TiktokenCounter(), preview_tokens=400)
    assert "ValueError: ORDERS_TAX_RATE must be a fraction, got '19'" in preview
    assert 'File "/app/orders/settings.py", line 8, in parse_tax_rate' in preview
    assert "orders_1" in preview  # the line is shown whole: which service said it


def test_a_bar_after_a_level_is_no_services_prefix() -> None:
    # a log format that puts a bar after the level (``INFO     | ...``) keeps its level: no instance number
    lines = [f"INFO     | ledger settled batch {i}" for i in range(200)]
    lines.insert(100, "ERROR    | ledger batch 100 could not be settled")
    assert read_signal("\n".join(lines) + "\n").failing


def test_an_exit_code_field_that_is_not_zero_is_failure_evidence() -> None:
    for field in ("container die 3f2a (exitCode=3, name=shop_webhooks)", '        "ExitCode": 137,', "exit_code: 2"):
        assert read_signal(_among_log_lines([field])).failing, field
    assert not read_signal(_among_log_lines(['        "ExitCode": 0,'])).failing


def test_a_containers_exit_state_in_a_table_is_failure_evidence() -> None:
    table = [f"shop_{a}_1   python3 -u /app/worker.py   Up" for a in _AREA_WORDS]
    assert not read_signal("\n".join(table) + "\n").failing
    table[7] = "shop_ledger_1   python3 -u /app/worker.py   Exit 1"
    assert read_signal("\n".join(table) + "\n").failing


def test_a_failure_said_a_few_times_outranks_each_units_healthy_summary() -> None:
    lines: list[str] = []
    for a in _AREA_WORDS[:6]:
        lines += [f"{a}-worker batch {i} done" for i in range(60)] + [f"{a}-worker finished 60 batches: 0 errors"]
        if a == "orders":
            lines += ["RuntimeError: the orders queue is gone"] * 4  # a restart loop
    units = read_signal("\n".join(lines) + "\n").units
    failed = max(u.score for u in units if u.failure)
    summaries = [u.score for u in units if u.kind == "summary" and u.lineno < len(lines) * 0.9]
    assert summaries and all(score < failed for score in summaries)


def test_a_line_start_pattern_matches_after_a_services_prefix() -> None:
    # glog's fatal line starts its line: in a service's output, right after the prefix; in an output too big
    # for every line to be read, only the scan finds it
    output = _compose_up(["F1204 05:00:00.123456    1 orders.go:42] the orders queue is gone"], batches=1000).replace(
        "exited with code 1", "exited with code 0"
    )
    assert len(output) > 300_000 and read_signal(output).failing


def test_a_line_start_anchor_moves_after_the_prefix_but_not_inside_a_character_class() -> None:
    from offloader.signal._multiplex import PREFIX, after_prefix

    anchor = f"^(?:{PREFIX.pattern})"
    assert after_prefix(r"^cp: |(^|[^.\w])x|[]^]y|\^z") == rf"{anchor}cp: |({anchor}|[^.\w])x|[]^]y|\^z"


def test_a_failure_field_in_a_nested_object_brings_the_field_that_names_its_record() -> None:
    records = []
    for i, a in enumerate(_AREA_WORDS[:12]):
        code = 137 if a == "ledger" else 0
        records.append(
            {
                "Id": f"{i:064d}",
                "State": {"Status": "exited", "OOMKilled": code == 137, "Pid": 0, "ExitCode": code, "Error": ""},
                "Image": "sha256:" + "0" * 64,
                **{f"Path{j}": f"/var/lib/docker/containers/{i:064d}/file{j}" for j in range(8)},
                "Name": f"/nightly_{a}_export",
                "HostConfig": {"RestartPolicy": {"Name": "no", "MaximumRetryCount": 0}},
            }
        )
    text = json.dumps(records, indent=4)
    preview = make_preview(text, counter=TiktokenCounter(), preview_tokens=500)
    assert '"ExitCode": 137' in preview
    assert '"Name": "/nightly_ledger_export"' in preview


def test_a_zero_count_of_aborted_tests_is_healthy() -> None:
    lines = [f"[ {i:>4} tests successful ]" for i in range(300)] + ["[ 0 containers aborted ]", "[ 0 tests aborted ]"]
    assert not read_signal("\n".join(lines) + "\n").failing
    assert read_signal("\n".join([*lines, "[ 2 tests aborted ]"]) + "\n").failing


def test_a_deadlock_found_is_failure_evidence() -> None:
    threads = [f'"worker-{i}" #{i} prio=5 os_prio=0 tid=0x{i:016x} nid={i} waiting on condition' for i in range(400)]
    assert not read_signal("\n".join(threads) + "\n").failing
    threads.insert(380, "Found one Java-level deadlock:")
    signal = read_signal("\n".join(threads) + "\n")
    assert [u.lineno for u in signal.units if u.failure] == [381]


def test_a_bare_verdict_brings_the_line_that_names_what_failed() -> None:
    lines = [f"    [junit] Testcase: testAmount{i} took 0.001 sec" for i in range(400)]
    lines.insert(201, "    [junit] \tFAILED")  # under testAmount200, a line alike to all the others
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=300)
    assert "testAmount200 took" in preview


def test_a_verdict_with_its_progress_brings_the_line_that_names_what_failed() -> None:
    lines = [f"tests/test_invoice.py::test_fee[{i}] PASSED{' ' * 40}[{i // 5:3d}%]" for i in range(400)]
    annotation = "::error file=tests/test_invoice.py,line=21::test_fee[275]%0A%0Aassert 250 == 275%0A" + "x" * 120
    lines[185:187] = [f"tests/test_invoice.py::test_fee[275] {annotation}"]  # a long line: no short name over it
    lines.insert(186, f"FAILED{' ' * 60}[ 37%]")  # pytest -v, after what the test printed on its name's line
    assert context_of(lines, 187) == [186]


def test_a_worker_taking_failed_items_to_handle_is_bookkeeping() -> None:
    lines = [f"INFO webhooks: delivered wh_{i:05d} attempt 2/5" for i in range(300)]
    for said in (
        "INFO webhooks: loaded 240 failed deliveries from the dead-letter table",
        "240 failed deliveries queued",
        "failed_jobs_replay: replaying 480 failed jobs (max 4 attempts)",
        "retry_workers: 900 retries, 150 failed jobs recorded, all 4 workers joined, 0 jobs lost",
        "report: 1800 failed jobs listed, 450 with ValueError, report written",
        "read 60000 failed payments",
        "2026-01-01 09:00:00,000 INFO retry_queue: 1200 failed payment retries to schedule (error_events since 00:00)",
        "ExceptionReport for data/failed-payments-2024-03.csv: 600 payments, 168 failed, 121 queued for retry",
    ):
        assert not read_signal("\n".join([said, *lines]) + "\n").failing, said
    assert read_signal("\n".join(["found 2 failed deliveries", *lines]) + "\n").failing
    assert read_signal("\n".join(["2 failed deliveries reported", *lines]) + "\n").failing


def test_a_failures_heading_brings_the_short_paragraph_under_it() -> None:
    threads = [f'"worker-{i}" #{i} prio=5 os_prio=0 tid=0x{i:016x} nid={i} waiting on condition' for i in range(400)]
    threads[300:300] = [
        "",
        "Found one Java-level deadlock:",
        "=============================",
        '"ledger-writer":',
        "  waiting to lock monitor 0x00007f3a (object 0x00000007, a java.lang.Object),",
        '  which is held by "refund-worker"',
        '"refund-worker":',
        "  waiting to lock monitor 0x00007f3b (object 0x00000008, a java.lang.Object),",
        '  which is held by "ledger-writer"',
        "",
    ]
    preview = make_preview("\n".join(threads) + "\n", counter=COUNTER, preview_tokens=300)
    assert 'which is held by "refund-worker"' in preview and 'which is held by "ledger-writer"' in preview


@pytest.mark.parametrize(
    "tally",
    [
        "Package operations: 19 installs, 0 updates, 0 removals",
        "0 upgraded, 16 newly installed, 0 to remove and 0 not upgraded.",
        "0 pacotes atualizados, 16 pacotes novos instalados, 0 a serem removidos e 0 não atualizados.",
    ],
)
def test_a_tally_of_three_counts_is_a_summary_in_any_language(tally: str) -> None:
    lines = [f"  - Installing ledger-part-{i} (1.{i}.0): Pending..." for i in range(300)]
    lines.insert(150, tally)
    signal = read_signal("\n".join(lines) + "\n")
    assert not signal.failing
    assert signal.units[0].lineno == 151 and signal.units[0].kind == "summary"


@pytest.mark.parametrize(
    "line",
    [
        "    console.warn: [failed-payments] 3 failed payments waiting for retry",
        "WARNING: retry of the export failed, trying the mirror",
        "[warn] Last exception: ValueError in ledger export",
        "npm WARN deprecated inflight@1.0.6: This module is not supported, and leaks memory",
    ],
)
def test_a_line_labelled_a_warning_is_shown_but_no_failure_evidence(line: str) -> None:
    lines = [f"saved screenshots/desktop/page-{i}.png (1280x800)" for i in range(300)]
    lines.insert(120, line)
    signal = read_signal("\n".join(lines) + "\n")
    assert not signal.failing
    assert 121 in [u.lineno for u in signal.units[:3]]


def test_an_error_label_may_say_where_before_its_colon() -> None:
    lines = [f"==> applying migrations/{i:04d}_ledger.sql" for i in range(200)]
    lines.insert(100, "Parse error near line 3: no such column: refund_id")
    signal = read_signal("\n".join(lines) + "\n")
    assert [u.lineno for u in signal.units if u.failure] == [101]


def test_a_tables_column_headers_are_no_failure_evidence() -> None:
    rows = [f"card_declined_{i:<6}  {i % 60:<6}  {i / 7:.14f}" for i in range(200)]
    table = ["error               failed  avg_retries", "------------------  ------  ----------------", *rows]
    assert not read_signal("\n".join(table) + "\n").failing
    assert read_signal("\n".join(["error: the export failed", *rows]) + "\n").failing


def test_a_failure_word_quoted_as_an_item_is_a_value_not_a_report() -> None:
    head = "triage: 1125 train / 375 test exceptions; classes [np.str_('error'), np.str_('failed'), np.str_('retry')]"
    lines = [head, *(f"epoch {i}: loss=0.{i:04d} f1_macro=0.7{i % 10}" for i in range(300))]
    assert not read_signal("\n".join(lines) + "\n").failing
    logged = ['{"ts": 1700002100, "level": "error", "msg": "upstream timeout"}', *lines[1:]]
    assert read_signal("\n".join(logged) + "\n").failing  # a field's value keeps its meaning


def test_an_error_word_before_another_noun_is_no_count_of_errors() -> None:
    lines = [f"epoch {i}: loss=0.{i:04d}" for i in range(300)]
    clean = ["errors_router sweep: 12 trials, 630 train / 270 validation error events", *lines]
    assert not read_signal("\n".join(clean) + "\n").failing
    assert read_signal("\n".join(["sweep: found 2 fatal errors.", *lines]) + "\n").failing


def test_a_library_last_frame_brings_the_projects_deepest_frame() -> None:
    site = "/venv/lib/python3.11/site-packages/torch/nn/modules"
    traceback = [
        "Traceback (most recent call last):",
        '  File "/srv/train_items.py", line 69, in <module>',
        "    main()",
        '  File "/srv/train_items.py", line 35, in forward',
        "    return self.head(self.encoder(x))",
        *[f'  File "{site}/module.py", line {1778 + i}, in _call_impl\n    return forward_call(x)' for i in range(6)],
        f'  File "{site}/linear.py", line 134, in forward',
        "    return F.linear(input, self.weight, self.bias)",
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied (32x37 and 36x64)",
    ]
    lines = [f"INFO trainer epoch=1 step={i} loss=0.{i:04d}" for i in range(400)]
    lines[300:300] = traceback
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=400)
    assert 'File "/srv/train_items.py", line 35, in forward' in preview
    assert "return F.linear(input, self.weight, self.bias)" in preview


def test_a_retry_that_worked_is_bookkeeping() -> None:
    lines = [f"=== RUN   TestCharge{i}\n--- PASS: TestCharge{i} (0.00s)" for i in range(150)]
    lines.insert(40, "    charge_test.go:9: charge succeeded after 3 failed attempts")
    assert not read_signal("\n".join(lines) + "\n").failing
    lines[40] = "    charge_test.go:9: charge gave up after 3 failed attempts"
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_report_under_a_tests_start_brings_that_line() -> None:
    lines = [f"[ RUN      ] pricing.case_{i}\n[       OK ] pricing.case_{i} (0 ms)" for i in range(300)]
    lines[150:150] = [
        "[ RUN      ] pricing.bulk_order_line_total_overflow",
        "src/pricing.cpp:8:7: runtime error: signed integer overflow: 2147480 * 1500 cannot be represented in 'int'",
    ]
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=300)
    assert "[ RUN      ] pricing.bulk_order_line_total_overflow" in preview


def test_a_runs_count_of_its_failures_outranks_each_failure() -> None:
    kinds = [
        "no matching function for call to", "no member named", "cannot convert", "invalid operands to",
        "no viable conversion from", "call to deleted constructor of", "static assertion failed:",
        "no type named 'type' in", "use of undeclared identifier", "incomplete type", "ambiguous call to",
    ]  # fmt: skip
    errors = [f"/usr/include/c++/12/variant:{1000 + i}:5: error: {kind} 'Amount'" for i, kind in enumerate(kinds)]
    notes = [f"src/ledger.cpp:{20 + i}:9: note: in instantiation of 'visit' requested here" for i in range(60)]
    text = "\n".join([*errors, *notes[:30], "11 errors generated.", *notes[30:]]) + "\n"
    assert read_signal(text).units[0].lineno == 42


def _node_test_run() -> str:
    names = [a + b for a in "bcdfghjklmnpqrstvwxz" for b in "aeiou"]  # one-off lines that compete for room
    lines = [f"packages/{n} test: ▶ {n}" for n in names]
    lines += [f"packages/catalog test:   ✔ catalog total {i} sums cents times quantity (1ms)" for i in range(300)]
    lines += ["packages/ledger test: ✖ failing tests:", "packages/ledger test: test at test/totals.test.js:150:3"]
    lines += ["packages/ledger test: ✖ balances a partially refunded invoice (1ms)"]
    lines += ["packages/ledger test:   AssertionError [ERR_ASSERTION]: Expected values to be strictly equal:"]
    lines += [f"packages/reports test:   ✔ reports total {i} sums cents times quantity (1ms)" for i in range(300)]
    return "\n".join(lines) + "\n"


def test_a_short_line_alone_between_two_shown_lines_is_shown_instead_of_its_gap() -> None:
    preview = make_preview(_node_test_run(), counter=COUNTER, preview_tokens=600)
    assert "failing tests:" in preview and "balances a partially refunded invoice" in preview
    assert "test at test/totals.test.js:150:3" in preview


def test_two_short_lines_left_between_shown_lines_are_shown_instead_of_their_gap() -> None:
    from offloader.signal._render import _lines_alone_between, _Picker

    lines = [f"Setting up pkg-{i:02d} (1.4.0) ..." for i in range(60)]
    lines[30:30] = [
        " exception-report depends on retry-queue (>= 2.0); however:",
        "  Version of retry-queue on system is 1.4.0.",
        "",
        "dpkg: error processing package exception-report (--install):",
    ]
    found = scan("\n".join(lines).encode() + b"\n")
    pick = _Picker(COUNTER, 1000)
    pick.picked[31] = "shown"  # the line over the gap
    error = next(c for c in found.candidates if c.lineno == 34)
    between = _lines_alone_between(found, pick, [(34, error.start, error.end, None)], 400)
    assert [row[0] for row in between] == [32, 33]


def test_each_of_a_runs_few_failures_of_one_shape_outranks_titles_that_say_failed() -> None:
    words = ["refund", "payout", "delivery", "charge", "ledger", "invoice", "coupon", "webhook", "export", "audit"]
    lines: list[str] = []
    for a in words:
        for k in range(10):  # page titles that say failed, ten of each shape
            lines += [
                f"URL        `./pages/{a}-{k}.html'",
                f"Name       `{a.title()} failed #{k}'",
                "Result     Valid",
                "",
            ]
    for at, page in ((150, "weekly-digest"), (330, "refund-failed-07")):
        error = f"Result     Error: URLError: <urlopen error [Errno 2] No such file or directory: '/site/{page}.html'>"
        lines[at:at] = [f"URL        `../{page}.html'", error, ""]
    text = "\n".join(lines) + "\nThat's it. 102 links checked. 0 warnings found. 2 errors found.\n"
    preview = make_preview(text, counter=COUNTER, preview_tokens=500)
    assert "'/site/weekly-digest.html'" in preview and "'/site/refund-failed-07.html'" in preview


def test_a_count_of_checks_that_passed_is_a_runners_verdict() -> None:
    from offloader.signal._patterns import CLEAN_VERDICT, FAILED_VERDICT

    assert CLEAN_VERDICT.search("# all 180 checks passed")
    assert FAILED_VERDICT.search("3 specs failed, 20 specs passed")
    assert not FAILED_VERDICT.search("0 checks failed")
    assert weights("All 24 checks passed!")[1] > 0  # a summary


def test_a_template_error_brings_the_projects_line_that_instantiated_it() -> None:
    lines = [f"g++ -c src/m{i}.cpp -o build/m{i}.o" for i in range(80)]
    lines[40:40] = [  # as pip shows a build's output, two spaces in
        "  /usr/include/c++/12/bits/stl_algo.h: In instantiation of 'void std::__sort(_It, _It) [with _It = It]':",
        "  /usr/include/c++/12/bits/stl_algo.h:4820:18:   required from 'void std::sort(_It, _It) [with _It = It]'",
        "  src/retry_queue.cpp:24:14:   required from here",
        "  /usr/include/c++/12/bits/stl_algo.h:1938:50: error: no match for 'operator-' (operand types are 'It')",
        "   1938 |   std::__lg(__last - __first) * 2,",
    ]
    assert 43 in context_of(lines, 44)


def test_a_failure_brings_the_header_of_its_section_far_above() -> None:
    for header in ("==> logs/refunds_worker.log <==", "== batches/batch_07.json"):
        lines = [f"INFO worker: settled INV-{i:05d} in {i % 90} ms" for i in range(400)]
        lines[0] = "== batches/batch_01.json" if header.startswith("== ") else "==> logs/api.log <=="
        lines[100] = "== batches/batch_06.json" if header.startswith("== ") else "==> logs/ledger.log <=="
        lines[200] = header
        lines[340:340] = [
            "Traceback (most recent call last):",
            '  File "worker.py", line 9, in post',
            "OSError: [Errno 28]",
        ]
        assert 201 in context_of(lines, 343), header  # the exception line's section starts at line 201


def test_a_line_that_words_a_failure_brings_the_header_of_its_section() -> None:
    lines = []
    for i in range(80):  # sqlfluff: every file fails its layout rules, one has a parse error
        lines += [f"== [models/marts/fct_{i:02d}_exception_report.sql] FAIL"]
        lines += [f"L:   {n} | P:   1 | LT09 | Select targets should be on a new line." for n in range(1, 5)]
    lines[205:205] = [  # at the end of the 41st file's section (its header: line 201)
        "L:   4 | P:  25 |  PRS | Line 4, Position 25: Found unparsable section: 'and and",
        "                       | e.severity = 1'. Expected: Nothing here. Found",
        "                       | <WordSegment: ([L:  4, P: 25]) 'and'>",
    ]
    assert 201 in context_of(lines, 207)


def test_failures_a_runner_was_told_to_expect_and_zero_unexpected_results_are_healthy() -> None:
    lines = [f"   passed  {i}/369  paydesk-test-failed-payment-{i}" for i in range(1, 370)]
    lines += ["", "Ran 369 tests, 365 results as expected, 0 unexpected, 4 skipped", "5 expected failures"]
    assert not read_signal("\n".join(lines) + "\n").failing
    lines[-2] = "Ran 369 tests, 364 results as expected, 1 unexpected, 4 skipped"
    assert read_signal("\n".join(lines) + "\n").failing


def test_many_lines_counting_failed_items_are_data() -> None:
    rows = [f"{c:<10} {r:<22} {1500 + i} failed payments" for i, (c, r) in enumerate(_COMPANY_REASONS)]
    lines = ["aggregating 60000 error events by company and reason", *rows, "done in 4.2 s"]
    assert not read_signal("\n".join(lines) + "\n").failing
    assert not read_signal("\n".join([*lines[:4], *lines[-1:]]) + "\n").failing  # three such lines
    assert read_signal("\n".join([*lines[:3], *lines[-1:]]) + "\n").failing  # two: the run's own


def test_many_lines_counting_failed_units_of_the_run_are_its_failures() -> None:
    lines = [f"suite {c}: {i % 3 + 1} failed tests, 40 passed" for i, c in enumerate("abcdefghij")]
    assert read_signal("\n".join([*lines, "done"]) + "\n").failing


_COMPANY_REASONS = [
    (company, reason)
    for company in ("acme", "globex", "hooli", "initech", "umbrella")
    for reason in ("card_declined", "expired_card", "insufficient_funds", "processing_error")
]


def test_a_loggers_warning_that_words_a_failure_is_no_failure_evidence() -> None:
    lines = [f"2026-01-01 09:00:{i % 60:02d},000 INFO payments: settled INV-{i:05d}" for i in range(300)]
    lines[150] = "2026-01-01 09:00:30,000 WARNING payments: failed payment INV-00150 written off: retry_error"
    assert not read_signal("\n".join(lines) + "\n").failing
    lines[150] = "2026-01-01 09:00:30,000 ERROR payments: failed payment INV-00150 written off: retry_error"
    assert read_signal("\n".join(lines) + "\n").failing


def test_a_banner_between_a_failure_and_a_header_ends_the_search() -> None:
    lines = [f"tests/test_{i}.py::test_case PASSED" for i in range(300)]
    lines[0], lines[100] = "== batches/batch_01.json", "== batches/batch_06.json"
    lines[200] = "=================================== FAILURES ==================================="
    lines[250] = "E   AssertionError: assert 250 == 275"
    assert 101 not in context_of(lines, 251)


def test_a_test_runners_cross_mark_is_failure_evidence() -> None:
    subjects = [f"fix(refunds): log failed refunds for batch {i}" for i in range(200)]
    lines = [*subjects[:120], "✖   subject may not be empty [subject-empty]", *subjects[120:]]
    units = [u for u in read_signal("\n".join(lines) + "\n").units if u.failure]
    assert [u.lineno for u in units] == [121]


def test_a_file_named_after_an_exception_is_no_exception() -> None:
    assert weights("FailedPaymentException.cs(25,13): warning CS0162: Unreachable code detected")[0] < 3
    assert weights("Billing.Errors.FailedPaymentException: card declined")[0] >= 3
    assert weights("KeyError")[0] >= 3


def test_msbuilds_closing_line_is_a_verdict() -> None:
    from offloader.signal._patterns import CLEAN_VERDICT

    assert CLEAN_VERDICT.search("Build succeeded.") and weights("Build succeeded.")[1] > 0


def test_a_php_uncaught_exception_brings_where_it_was_thrown() -> None:
    lines = [f"[ledger-close] pay_{i:06d} settled amount={i % 400}.31 attempt={i % 3 + 1}" for i in range(300)]
    lines[200:200] = [
        "PHP Fatal error:  Uncaught DomainException: ledger 2026-01 out of balance in /src/Ledger/Balance.php:12",
        "Stack trace:",
        "#0 /src/Ledger/Closer.php(22): Payments\\Ledger\\Balance->assertBalanced()",
        "#1 /src/bin/job.php(23): Payments\\Ledger\\Closer->close()",
        "#2 {main}",
        "  thrown in /src/Ledger/Balance.php on line 12",
    ]
    assert context_of(lines, 201)[:2] == [203, 206]


def test_the_line_naming_a_report_may_sit_over_a_rule() -> None:
    lines: list[str] = []
    for i in range(60):
        lines += [
            "",
            f"FILE: src/Module{i:02d}/Handler.php",
            "-" * 70,
            "FOUND 0 ERRORS AND 2 WARNINGS AFFECTING 2 LINES",
        ]
    lines[-1] = "FOUND 1 ERROR AFFECTING 1 LINE"
    assert context_of(lines, len(lines))[0] == len(lines) - 2


def test_cobols_names_in_capitals_are_names() -> None:
    assert weights("ERROR-CODES LOADED, RETRYABLE: 00020")[0] == 0
    assert weights("FAILED-PAYMENTS DONE: 00020")[0] == 0
    assert weights("ERROR: ERROR-CODES table missing")[0] >= 3  # the level still reads


def test_no_prior_puts_a_multibyte_character_in_a_class() -> None:
    # Hyperscan matches bytes: ``[✕✖]`` would be a class of single bytes, never the character
    classes = [c for p in PRIORS for c in re.findall(r"\[[^\]]*\]", p.pattern) if not c.isascii()]
    assert classes == []


def test_a_tally_at_the_end_of_a_tap_stream_is_one_candidate_for_either_engine() -> None:
    # ``\s*$`` reached into the next line: Hyperscan found the line twice and RE2 not at all
    text = b"ok 1 - refunds settle\n# fail 0\n\n"
    assert [c.lineno for c in scan(text, engine="hyperscan").candidates] == [2]
    assert [c.lineno for c in scan(text, engine="re2").candidates] == [2]
