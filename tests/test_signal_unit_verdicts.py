"""Verdicts said once per unit of a run (a crate, a package) and source quoted under diagnostics.

Each test builds a small synthetic output; the corpus tests show the same rules on real ones.
"""

from __future__ import annotations

from offloader.signal import make_preview, read_signal
from offloader.signal._rank import PROSE_SCORE, UNIT_VERDICT_SCORE
from offloader.tokens import TiktokenCounter

COUNTER = TiktokenCounter()
OK_RESULT = "test result: ok. 60 passed; 0 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0{}s"
CRATES = ["audit", "billing", "errors", "failed_jobs", "ledger", "refunds", "retry", "webhooks"]


def _cargo_test(failing_crate: str | None = None) -> str:
    """``cargo test`` over a workspace: each crate's tests (names with failure words) and its verdict."""
    lines = ["    Finished `test` profile [unoptimized + debuginfo] target(s) in 1.00s"]
    for n, crate in enumerate(CRATES):
        lines += [f"     Running unittests src/lib.rs (target/debug/deps/{crate}-0123abcd)", "", "running 60 tests"]
        lines += [f"test tests::retries_after_failed_attempt_{i} ... ok" for i in range(60)]
        lines += [f"    attempt {i} failed: connection reset (will retry)" for i in range(3)]
        if crate == failing_crate:
            lines += [
                "test tests::rounds_half_cents ... FAILED",
                "",
                "failures:",
                "",
                "---- tests::rounds_half_cents stdout ----",
                f"thread 'tests::rounds_half_cents' panicked at crates/{crate}/src/lib.rs:41:9:",
                "assertion `left == right` failed",
                "  left: 3",
                " right: 2",
                "",
                f"test result: FAILED. 59 passed; 1 failed; 0 ignored; 0 measured; 0 filtered out; finished in 0.0{n}s",
                "",
                f"error: test failed, to rerun pass `-p {crate} --lib`",
            ]
            break
        lines += ["", OK_RESULT.format(n)]
    return "\n".join(lines) + "\n"


def _go_test(failing_package: str | None = None) -> str:
    """``go test -v ./...`` over packages whose tests log failed attempts before they pass."""
    lines: list[str] = []
    for n, package in enumerate(CRATES):
        for i in range(40):
            lines += [
                f"=== RUN   TestAttempt/tries_{i}",
                f"    {package}_test.go:41: attempt 1 failed: connection reset (will retry)",
            ]
        lines += [f"--- PASS: TestAttempt/tries_{i} (0.00s)" for i in range(40)]
        if package == failing_package:
            lines += [
                "--- FAIL: TestSettle (0.00s)",
                f"    {package}_test.go:88: settle: got 41, want 42",
                "FAIL",
                f"FAIL\texample.com/{package}\t0.00{n}s",
            ]
        else:
            lines += ["PASS", f"ok  \texample.com/{package}\t0.00{n}s"]
    return "\n".join(lines) + "\n"


def test_a_clean_run_shows_every_units_verdict() -> None:
    preview = make_preview(_cargo_test(), counter=COUNTER, preview_tokens=1000)
    for n in range(len(CRATES)):
        assert OK_RESULT.format(n) in preview


def test_a_go_packages_ok_line_is_its_verdict() -> None:
    text = _go_test()
    preview = make_preview(text, counter=COUNTER, preview_tokens=1000)
    for n, package in enumerate(CRATES):
        assert f"ok  \texample.com/{package}\t0.00{n}s" in preview
    assert not read_signal(text).failing


def test_unit_verdicts_rank_higher_only_in_a_clean_run() -> None:
    verdicts = [u for u in read_signal(_cargo_test()).units if u.kind == "summary" and u.score == UNIT_VERDICT_SCORE]
    assert len(verdicts) == len(CRATES) - 1  # the last one speaks for the run and scores more
    failing = read_signal(_cargo_test("refunds"))
    assert failing.failing
    assert not [u for u in failing.units if u.score == UNIT_VERDICT_SCORE]


def test_a_failure_before_the_last_units_ok_still_counts() -> None:
    text = _go_test("errors")
    assert read_signal(text).failing
    assert "settle: got 41, want 42" in make_preview(text, counter=COUNTER, preview_tokens=1000)


def test_source_quoted_under_a_diagnostic_is_no_failure_evidence() -> None:
    lines = [f"   Compiling crate_{i} v0.1.0 (/work/crates/crate_{i})" for i in range(300)]
    lines[150:150] = [
        "warning: unused variable: `failed`",
        "  --> crates/errors/src/lib.rs:14:39",
        "   |",
        "14 | pub fn record_error(code: u32, failed: bool) -> u32 {",
        "   |                                ^^^^^^ help: prefix it with an underscore: `_failed`",
    ]
    signal = read_signal("\n".join(lines) + "\n")
    quoted = [u for u in signal.units if u.lineno == 154]
    assert quoted
    assert not quoted[0].failure
    assert quoted[0].score <= PROSE_SCORE
    assert not signal.failing


def test_a_part_of_a_double_colon_path_is_no_label() -> None:
    """Frames of a Rust or C++ backtrace, each its own template, name ``core::panic::...`` functions."""
    names = ["ledger", "refunds", "billing", "audit", "tax", "cart", "orders", "retry"]
    frames = [f"  {i}:     0x0000 - std::panic::catch_unwind::<{name}::run>" for i, name in enumerate(names)]
    frames += [f"  {i}:     0x0000 - core::error::Error::source::<{name}::Fault>" for i, name in enumerate(names)]
    lines = [f"taxd: loaded line {i:05d} (retry 0)" for i in range(1400)]
    lines += ["thread 'tax-close' panicked at src/rates.rs:12:17:", "rate table missing region 'EU-WEST'", *frames]
    signal = read_signal("\n".join(lines) + "\n")
    assert [u.lineno for u in signal.units if u.failure] == [1401]
    assert "rate table missing region 'EU-WEST'" in make_preview("\n".join(lines), counter=COUNTER, preview_tokens=400)


def test_the_last_go_packages_ok_closes_the_run_and_excuses_what_its_tests_logged() -> None:
    lines = _go_test().splitlines()
    lines[5] = "    errors_test.go:41: failed record: errors-002 990 cents after 2 attempts (failed: card declined)"
    assert not read_signal("\n".join(lines) + "\n").failing


def _go_test_json(failing: bool) -> str:
    """``go test -json`` over packages: one event per line, a test's output in its ``Output`` field."""

    def event(action: str, package: str, rest: str = "") -> str:
        return f'{{"Time":"2026-01-01T00:00:00Z","Action":"{action}","Package":"example.com/{package}"{rest}}}'

    lines: list[str] = []
    for package in CRATES:
        for i in range(30):
            test = f',"Test":"TestRetry{i}"'
            lines += [event("run", package, test)]
            output = f"    {package}_test.go:41: failed record: {package}-00{i} (failed: card declined)\\n"
            if failing and package == "ledger" and i == 7:
                output = f"    {package}_test.go:13: total = 1004, want 1005\\n"
            lines += [event("output", package, f'{test},"Output":"{output}"')]
            verdict = "fail" if failing and package == "ledger" and i == 7 else "pass"
            lines += [event(verdict, package, f'{test},"Elapsed":0')]
        lines += [event("fail" if failing and package == "ledger" else "pass", package, ',"Elapsed":0.05')]
    return "\n".join(lines) + "\n"


def test_a_go_test_json_streams_last_package_pass_closes_the_run() -> None:
    assert not read_signal(_go_test_json(failing=False)).failing


def test_a_go_test_json_streams_failed_test_is_failure_evidence_with_its_got_and_want() -> None:
    text = _go_test_json(failing=True)
    assert read_signal(text).failing
    assert "total = 1004, want 1005" in make_preview(text, counter=COUNTER, preview_tokens=1000)
