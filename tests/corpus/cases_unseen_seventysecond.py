"""Held-out outputs (group ``unseen-72``): a seventy-second batch, the Rust toolchain in depth, all offline (rustup's
stable cargo, rustc, rustdoc and clippy already on the machine; workspaces of path-only crates, no crates.io).

The crates, modules and tests are named after the payments platform's business words (``error_reporter``,
``failed_payments``, ``retry_queue``, ``exception_log``; tests like ``handles_error_on_refund_017``), so clean runs
are full of those words. Failing runs: ``cargo build --keep-going`` of a 16-crate workspace with dozens of warnings and
one E0502 borrow-checker error in ``retry_queue``; ``cargo test --workspace --no-fail-fast`` of about 400 tests where
one ``assert_eq!`` in ``failed_payments`` fails in the middle; ``cargo test -- --nocapture`` whose tests print
retry and error log lines and one ``unwrap()`` on an ``Err`` fails; ``cargo test --doc`` where one of 180 doc examples
fails its assertion; ``cargo clippy -v --keep-going -- -D warnings`` with one lint in ``pricing_rules`` among the
verbose checker lines; ``cargo check --message-format=json`` with one E0499 among JSON warnings; a
``#[should_panic(expected = ...)]`` test whose panic message differs, among 40 passing should-panic tests that print
their panics under ``--nocapture``; and ``RUST_BACKTRACE=1 cargo run`` of a settlement worker whose thread panics
deep in a recursive call chain after a long log. Clean runs: ``cargo build`` of 18 crates with many unused-code
warnings, ``cargo test --release`` with ignored timing tests run and printing their results, ``cargo check
--message-format=json`` with warnings, and ``cargo test --workspace`` of 300 tests named after errors and retries.
Labels were written with each scenario, before the engine saw the output. Needs nothing beyond rustup's stable
toolchain with clippy (already on the machine).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-72"

#: The toolchain's own cargo (not rustup's proxy), so that a CARGO_HOME in the scenario's folder is enough.
_BIN = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin"


def _cargo(root: Path, backtrace: int = 0) -> str:
    return (
        f"CARGO_HOME={root / 'cargo-home'} CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0 RUST_BACKTRACE={backtrace} "
        f"PATH={_BIN}:$PATH "
        f"RUSTC={_BIN}/rustc RUSTDOC={_BIN}/rustdoc {_BIN}/cargo"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, hashes in file names, durations."""
    return substitute(
        scrub(out, root),
        (r"-([0-9a-f]{16})\b", "-0000000000000000"),
        (r"metadata=[0-9a-f]+", "metadata=0000000000000000"),
        (r" in \d+(\.\d+)?m?s\b", " in 1.00s"),
        (r"took \d+(\.\d+)?(ns|µs|ms|s)\b", "took 1.000ms"),
        (r"/tmp/rustdoctest[A-Za-z0-9]+", "/tmp/rustdoctest000000"),
        (r"0x[0-9a-f]{6,16}\b", "0x0000000000000000"),
        (r"^thread '([^']*)' \(\d+\) panicked", r"thread '\1' (1000) panicked"),
    )


_CRATES = [
    "error_reporter", "failed_payments", "retry_queue", "exception_log", "billing_core", "orders_api", "cart_store",
    "tax_rates", "refunds_flow", "invoice_render", "ledger_sync", "shipping_labels", "catalog_index", "pricing_rules",
    "coupons_engine", "webhooks_out", "audit_trail", "session_store", "auth_tokens", "export_jobs",
]  # fmt: skip

_VERBS = [
    "handles_error_on_refund", "retries_failed_payment", "records_exception_in_log", "reports_error_total",
    "rejects_expired_session", "skips_retry_when_settled", "flags_failed_webhook", "keeps_audit_of_error",
]  # fmt: skip


def _workspace(root: Path, names: list[str], *, release_debug: bool = False) -> None:
    members = ", ".join(f'"crates/{n}"' for n in names)
    extra = "\n[profile.release]\ndebug = false\n" if release_debug else ""
    write(root, {"Cargo.toml": f'[workspace]\nresolver = "2"\nmembers = [{members}]\n{extra}'})


def _crate(root: Path, name: str, deps: list[str], body: str, *, main: str = "", edition: str = "2021") -> None:
    dep_lines = "".join(f'{d} = {{ path = "../{d}" }}\n' for d in deps)
    files = {
        f"crates/{name}/Cargo.toml": (
            f'[package]\nname = "{name}"\nversion = "0.7.0"\nedition = "{edition}"\n\n[dependencies]\n{dep_lines}'
        ),
        f"crates/{name}/src/lib.rs": body,
    }
    if main:
        files[f"crates/{name}/src/main.rs"] = main
    write(root, files)


def _score(i: int, k: int) -> int:
    return k * (i + 3) + 7


def _lib(name: str, i: int, deps: list[str], *, warnings: int = 0, tests: int = 0, extra: str = "",
         printing: bool = False) -> str:  # fmt: skip
    """A crate body: ``score`` (used by the tests), a use of each dependency, ``warnings`` unused-code warnings
    (two each) and ``tests`` unit tests named after the business words."""
    uses = "".join(f"    total += {d}::score(cents % 5);\n" for d in deps)
    parts = [f"//! {name}: part of the payments platform.\n"]
    if warnings:
        parts.append("use std::collections::HashMap;\n")
    parts.append(
        f"pub fn score(k: u64) -> u64 {{\n    k * {i + 3} + 7\n}}\n\n"
        f"pub fn weight(cents: u64) -> u64 {{\n    let mut total = cents % 97;\n{uses}    total += 1;\n    total\n}}\n"
    )
    for w in range(warnings):
        parts.append(
            f"\npub fn retry_error_batch_{w}(amount: u64, failed: bool) -> u64 {{\n"
            f"    let failed_attempts_{w} = amount % 7;\n    amount + {w}\n}}\n"
            f"\nfn unused_exception_helper_{w}(x: u64) -> u64 {{\n    x + {w}\n}}\n"
        )
    parts.append(extra)
    if tests:
        body = []
        for k in range(tests):
            verb = _VERBS[(k + i) % len(_VERBS)]
            say = f'        println!("[{name}] case {k}: retry attempt {k % 4}, last error code E{500 + k % 4}");\n'
            body.append(
                f"    #[test]\n    fn {verb}_{k:03d}() {{\n{say if printing else ''}"
                f"        assert_eq!(score({k}), {_score(i, k)});\n    }}\n"
            )
        parts.append("\n#[cfg(test)]\nmod tests {\n    use super::*;\n\n" + "\n".join(body) + "}\n")
    return "\n".join(parts)


def _build_ws(root: Path, names: list[str], *, warnings: int = 0, tests: int = 0,
              special: dict[str, str] | None = None, users: dict[str, list[str]] | None = None, after: int = -1,
              tests_by_name: dict[str, int] | None = None, printing: bool = False) -> None:  # fmt: skip
    """``names`` as crates in one chain, each using the two before it, so that cargo's order is always the same.
    A ``special`` crate (its extra code, no warnings) hangs off the chain's crate at index ``after`` and is used
    only by the crates ``users`` names (a chain of their own): with enough users, cargo builds it right after
    that crate, in the middle of the run."""
    special = special or {}
    users = users or {}
    off = set(special) | {u for who in users.values() for u in who}
    chain = [n for n in names if n not in off]
    for i, name in enumerate(names):
        if name in special:
            deps = [chain[after]]
        elif name in off:
            owner = next(s for s, who in users.items() if name in who)
            j = users[owner].index(name)
            deps = [owner, *users[owner][max(0, j - 1) : j]]
        else:
            k = chain.index(name)
            deps = chain[max(0, k - 2) : k]
        n = (tests_by_name or {}).get(name, tests)
        w = 0 if name in special else warnings
        body = _lib(name, i, deps, warnings=w, tests=n, extra=special.get(name, ""), printing=printing)
        _crate(root, name, deps, body)
    _workspace(root, names)


# ---------------------------------------------------------------- cargo build: a borrow-checker error among warnings

_RETRY_QUEUE_BORROW = """
pub struct RetryQueue {
    pub pending: Vec<u64>,
    pub failed: Vec<u64>,
}

impl RetryQueue {
    pub fn requeue_failed(&mut self, limit: u64) -> usize {
        for job in self.pending.iter() {
            if *job > limit {
                self.pending.push(job + 1);
            }
        }
        self.pending.len()
    }
}
"""


@case(
    "u72_build_borrowck_among_warnings",
    "cargo build --keep-going",
    clean=False,
    group=GROUP,
    decisive=[
        "error[E0502]: cannot borrow `self.pending` as mutable because it is also borrowed as immutable",
        "--> crates/retry_queue/src/lib.rs:",
        "error: could not compile `retry_queue` (lib) due to 1 previous error",
    ],
)
def _build_borrowck(root: Path) -> bytes:
    users = {"retry_queue": ["catalog_index", "pricing_rules", "coupons_engine", "webhooks_out"]}
    _build_ws(root, _CRATES[:16], warnings=4, special={"retry_queue": _RETRY_QUEUE_BORROW}, users=users, after=6)
    # retry_queue's four users cannot build; the rest of the chain still does, after it.
    return _settle(sh(f"{_cargo(root)} build -j1 --keep-going --offline", root), root)


# ---------------------------------------------------------------- cargo test: one assertion among 400 tests

_FAILED_PAYMENTS_REFUND = """
pub fn refund_total(cents: &[u64], fee: u64) -> u64 {
    cents.iter().sum::<u64>() - fee - 50
}

#[cfg(test)]
mod refund_tests {
    use super::*;

    #[test]
    fn handles_error_on_partial_refund() {
        let total = refund_total(&[500, 400, 350], 0);
        assert_eq!(total, 1250, "refund total for invoice INV-2291");
    }

    #[test]
    fn refund_of_nothing_is_zero() {
        assert_eq!(refund_total(&[50], 0), 0);
    }
}
"""


@case(
    "u72_test_workspace_assert_eq",
    "cargo test --workspace --no-fail-fast",
    clean=False,
    group=GROUP,
    decisive=[
        "panicked at crates/failed_payments/src/lib.rs:",
        "assertion `left == right` failed: refund total for invoice INV-2291",
        "left: 1200",
        "test result: FAILED.",
    ],
)
def _test_workspace_assert(root: Path) -> bytes:
    _build_ws(root, _CRATES[:16], warnings=1, tests=25, special={"failed_payments": _FAILED_PAYMENTS_REFUND})
    cmd = f"{_cargo(root)} test -j1 --offline --workspace --no-fail-fast -- --test-threads=1"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- cargo test -- --nocapture: printed noise, an unwrap

_LEDGER_SYNC_GATEWAY = """
#[derive(Debug)]
pub enum SyncError {
    GatewayTimeout { payment_id: String, attempts: u32 },
}

pub fn sync_payment(id: &str, attempts: u32) -> Result<u64, SyncError> {
    if attempts >= 5 {
        return Err(SyncError::GatewayTimeout { payment_id: id.to_string(), attempts });
    }
    Ok(u64::from(attempts) * 100)
}

#[cfg(test)]
mod gateway_sync {
    use super::*;

    #[test]
    fn retries_failed_payment_until_synced() {
        for attempt in 0..6 {
            println!("[ledger_sync] syncing pay_0117 to the gateway, attempt {attempt}, previous error: timeout");
            let cents = sync_payment("pay_0117", attempt).unwrap();
            println!("[ledger_sync] pay_0117 synced {cents} cents, retry queue depth {}", 6 - attempt);
        }
    }
}
"""


@case(
    "u72_test_nocapture_unwrap_err",
    "cargo test -- --nocapture",
    clean=False,
    group=GROUP,
    decisive=[
        'called `Result::unwrap()` on an `Err` value: GatewayTimeout { payment_id: "pay_0117", attempts: 5 }',
        "panicked at crates/ledger_sync/src/lib.rs:",
        "error: test failed, to rerun pass `-p ledger_sync --lib`",
    ],
)
def _test_nocapture(root: Path) -> bytes:
    _build_ws(root, _CRATES[:12], tests=20, printing=True, special={"ledger_sync": _LEDGER_SYNC_GATEWAY},
              tests_by_name={"ledger_sync": 20})  # fmt: skip
    # ledger_sync gets its own unit tests too: its body is the special code plus 20 printing tests.
    cmd = f"{_cargo(root)} test -j1 --offline --workspace -- --nocapture --test-threads=1"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- cargo test --doc: one failing example


def _documented(name: str, i: int, n: int, wrong: int = -1) -> str:
    parts = [f"//! {name}: retry delays and error budgets, with examples.\n"]
    for k in range(n):
        expect = 2 * (k + i + 1) + (5 if k == wrong else 0)
        parts.append(
            f"/// Returns the retry delay in seconds after failed attempt `{k}` of a job.\n///\n"
            f"/// ```\n/// let delay = {name}::retry_delay_{k}(2);\n/// assert_eq!(delay, {expect});\n/// ```\n"
            f"pub fn retry_delay_{k}(attempt: u64) -> u64 {{\n    attempt * {k + i + 1}\n}}\n"
        )
    return "\n".join(parts)


@case(
    "u72_doctest_failing_example",
    "cargo test --doc",
    clean=False,
    group=GROUP,
    decisive=[
        "---- crates/exception_log/src/lib.rs - retry_delay_17 (line ",
        "left: 42",
        "test result: FAILED.",
    ],
)
def _doctest(root: Path) -> bytes:
    names = ["error_reporter", "failed_payments", "retry_queue", "exception_log", "billing_core", "orders_api"]
    for i, name in enumerate(names):
        body = _documented(name, i, 30, wrong=17 if name == "exception_log" else -1)
        _crate(root, name, names[max(0, i - 1) : i], body, edition="2024")  # a chain: cargo's order is fixed
    _workspace(root, names)
    cmd = f"{_cargo(root)} test -j1 --offline --workspace --doc --no-fail-fast -- --test-threads=1"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- cargo clippy -D warnings: one lint

_PRICING_RANGE_LOOP = """
pub fn discounted(amounts: &[u64], pct: u64) -> u64 {
    let mut sum = 0;
    for i in 0..amounts.len() {
        sum += amounts[i] * (100 - pct) / 100;
    }
    sum
}
"""


@case(
    "u72_clippy_deny_one_lint",
    "cargo clippy -v -- -D warnings",
    clean=False,
    group=GROUP,
    decisive=[
        "error: the loop variable `i` is only used to index `amounts`",
        "--> crates/pricing_rules/src/lib.rs:",
        "error: could not compile `pricing_rules` (lib) due to 1 previous error",
    ],
)
def _clippy(root: Path) -> bytes:
    _build_ws(
        root,
        _CRATES[:16],
        special={"pricing_rules": _PRICING_RANGE_LOOP},
        users={"pricing_rules": ["coupons_engine", "webhooks_out", "catalog_index", "ledger_sync"]},
        after=6,
    )
    cmd = f"{_cargo(root)} clippy -v -j1 --offline --workspace --keep-going -- -D warnings"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- cargo check --message-format=json

_LEDGER_TWO_MUT = """
pub struct Ledger {
    pub entries: Vec<i64>,
}

impl Ledger {
    pub fn post_pair(&mut self, debit: i64, credit: i64) {
        let debits = &mut self.entries;
        let credits = &mut self.entries;
        debits.push(debit);
        credits.push(credit);
    }
}
"""


@case(
    "u72_check_json_e0499",
    "cargo check --message-format=json",
    clean=False,
    group=GROUP,
    decisive=[
        "error[E0499]: cannot borrow `self.entries` as mutable more than once at a time",
        "error: could not compile `ledger_sync` (lib) due to 1 previous error",
        '"reason":"build-finished","success":false',
    ],
)
def _check_json(root: Path) -> bytes:
    _build_ws(root, _CRATES[:14], warnings=2, special={"ledger_sync": _LEDGER_TWO_MUT},
              users={"ledger_sync": ["catalog_index", "pricing_rules", "shipping_labels"]}, after=6)  # fmt: skip
    cmd = f"{_cargo(root)} check -j1 --offline --workspace --keep-going --message-format=json"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- #[should_panic] with the wrong message


def _retry_budget(n: int, panicking: int) -> str:
    tests = []
    for k in range(n):
        tests.append(
            f"    #[test]\n    fn {_VERBS[k % 8]}_{k:03d}() {{\n"
            f"        assert_eq!(budget({k % 6}), {5 - k % 6});\n    }}\n"
        )
    for k in range(panicking):
        tests.append(
            '    #[test]\n    #[should_panic(expected = "retry budget exhausted")]\n'
            f'    fn failed_job_exhausts_retry_budget_{k:03d}() {{\n        schedule("job_{k:04d}", {6 + k});\n    }}\n'
        )
    tests.append(
        '    #[test]\n    #[should_panic(expected = "retry budget exhausted")]\n'
        '    fn failed_job_with_huge_attempt_exhausts_budget() {\n        schedule("job_0042", 300);\n    }\n'
    )
    return (
        "//! retry_queue: failed jobs are retried until their budget is exhausted.\n\n"
        "pub fn budget(attempts: u32) -> u32 {\n    if attempts > 5 {\n"
        '        panic!("retry budget exhausted after {attempts} failed attempts");\n    }\n    5 - attempts\n}\n\n'
        "pub fn schedule(job: &str, attempt: u32) -> u32 {\n    if attempt > 250 {\n"
        '        panic!("attempt counter overflow for job {job}");\n    }\n    budget(attempt)\n}\n\n'
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n" + "\n".join(tests) + "}\n"
    )


@case(
    "u72_should_panic_wrong_message",
    "cargo test -- --nocapture",
    clean=False,
    group=GROUP,
    decisive=[
        "note: panic did not contain expected string",
        'expected substring: "retry budget exhausted"',
        "test result: FAILED.",
    ],
)
def _should_panic(root: Path) -> bytes:
    _crate(root, "retry_queue", [], _retry_budget(120, 40))
    _workspace(root, ["retry_queue"])
    cmd = f"{_cargo(root)} test -j1 --offline -p retry_queue -- --nocapture --test-threads=1"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- RUST_BACKTRACE=1: a worker thread's panic

_RETRY_DRAIN = """
pub fn drain(jobs: &[u64], depth: usize) -> u64 {
    if depth == jobs.len() {
        return lookup_ledger(jobs, depth);
    }
    jobs[depth] + drain(jobs, depth + 1)
}

fn lookup_ledger(jobs: &[u64], depth: usize) -> u64 {
    let entry = jobs.get(depth + 3).expect("ledger entry for failed payment must exist");
    *entry
}
"""

_WORKER_MAIN = """
use std::thread;

fn main() {
    let jobs: Vec<u64> = (0..48).map(|k| 1000 + k * 7).collect();
    for batch in 0..400 {
        let failed = batch % 5;
        println!(
            "[settlement] batch {batch:03}: settled {} payments, {failed} failed, {failed} queued for retry, weight {}",
            40 - failed,
            billing_core::weight(batch)
        );
    }
    let worker = thread::Builder::new()
        .name("retry-worker-3".to_string())
        .spawn(move || retry_queue::drain(&jobs, 0))
        .unwrap();
    let settled = worker.join().unwrap();
    println!("[settlement] retry queue drained: {settled}");
}
"""


@case(
    "u72_backtrace_worker_panic",
    "RUST_BACKTRACE=1 cargo run",
    clean=False,
    group=GROUP,
    decisive=[
        "panicked at crates/retry_queue/src/lib.rs:",
        "ledger entry for failed payment must exist",
    ],
)
def _backtrace(root: Path) -> bytes:
    names = ["error_reporter", "failed_payments", "exception_log", "retry_queue"]
    _build_ws(root, names, special={"retry_queue": _RETRY_DRAIN})
    _crate(root, "billing_core", ["exception_log", "retry_queue"], _lib("billing_core", 4, ["exception_log"]),
           main=_WORKER_MAIN)  # fmt: skip
    _workspace(root, [*names, "billing_core"])
    cmd = f"{_cargo(root, backtrace=1)} run -j1 --offline -p billing_core"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- clean runs named after errors and retries

_PERF_TESTS = """
#[cfg(test)]
mod perf {
    use std::hint::black_box;
    use std::time::Instant;

    #[test]
    #[ignore = "timing run, use --release --include-ignored"]
    fn perf_settle_failed_payments() {
        let start = Instant::now();
        let mut checksum: u64 = 0;
        for k in 0..100_000u64 {
            checksum += black_box(k);
        }
        println!("perf: settled 100000 failed payments, checksum {checksum}, took {:?}", start.elapsed());
    }

    #[test]
    #[ignore = "timing run, use --release --include-ignored"]
    fn perf_retry_backoff_table() {
        let start = Instant::now();
        let table: Vec<u64> = (0..64).map(|a| black_box(100u64.saturating_mul(1 << (a % 20)))).collect();
        println!("perf: built retry backoff table of {} rows, took {:?}", table.len(), start.elapsed());
    }
}
"""


@case(
    "u72_test_release_timing_clean",
    "cargo test --release -- --include-ignored",
    clean=True,
    group=GROUP,
    decisive=["Finished `release` profile [optimized] target(s)", "perf: settled 100000 failed payments, checksum"],
)
def _release_timing(root: Path) -> bytes:
    _build_ws(root, _CRATES[:10], tests=30, special={"failed_payments": _PERF_TESTS})
    cmd = f"{_cargo(root)} test -j1 --offline --release --workspace -- --include-ignored --nocapture --test-threads=1"
    return _settle(sh(cmd, root), root)


@case(
    "u72_build_clean_warnings",
    "cargo build",
    clean=True,
    group=GROUP,
    decisive=[
        "Finished `dev` profile [unoptimized + debuginfo] target(s)",
        "warning: `failed_payments` (lib) generated",
    ],
)
def _build_clean(root: Path) -> bytes:
    _build_ws(root, _CRATES[:18], warnings=5)
    return _settle(sh(f"{_cargo(root)} build -j1 --offline", root), root)


@case(
    "u72_check_json_clean",
    "cargo check --message-format=json",
    clean=True,
    group=GROUP,
    decisive=['"reason":"build-finished","success":true'],
)
def _check_json_clean(root: Path) -> bytes:
    _build_ws(root, _CRATES[:12], warnings=2)
    return _settle(sh(f"{_cargo(root)} check -j1 --offline --workspace --message-format=json", root), root)


@case(
    "u72_test_workspace_clean",
    "cargo test --workspace",
    clean=True,
    group=GROUP,
    decisive=[
        "test result: ok. 31 passed; 0 failed",
        "Running unittests src/lib.rs (target/debug/deps/failed_payments-",
    ],
)
def _test_clean(root: Path) -> bytes:
    _build_ws(root, _CRATES[:14], tests=22, tests_by_name={"failed_payments": 31})
    cmd = f"{_cargo(root)} test -j1 --offline --workspace -- --test-threads=1"
    return _settle(sh(cmd, root), root)
