"""Held-out outputs (group ``unseen-78``): a seventy-eighth batch, R as an agent runs it on a generated package and
scripts, with Debian's R 4.2 and testthat 3.1 only (no CRAN reached).

Failing runs: ``R CMD build`` then ``R CMD check --no-manual --no-build-vignettes`` of a package ``paymentsops`` with
NOTEs (a global variable without a visible binding, a non-standard top-level file), WARNINGs (a codoc mismatch, an
undocumented function) and one failing testthat expectation in ``test-refunds.R`` (the check log's ``Running
'testthat.R'`` ... ``ERROR`` with the tail of the test output); the same for a package ``ledgerops`` whose examples
stop with an error; ``testthat::test_dir`` with the TAP reporter over hundreds of expectations and one failure in the
middle; ``testthat::test_dir`` with the summary reporter where one test errors with a backtrace; a shell loop of
``Rscript pipeline.R`` over eight regions where one region stops with ``Error in reconcile_ledger(...)`` and a
``traceback()`` from ``options(error = )``; an invoice script whose amount parsing warns ``There were 50 or more
warnings`` midway and whose validation stops at the end; a loop of ``R CMD INSTALL`` over six packages with C code
where the third has a compile error. Clean runs full of the business words (``error_reporter``, ``failed_payments``,
``retry_queue``, ``handle_error``): ``R CMD check`` of a package ``errorreporter`` with its test log, ``test_dir``
with the progress reporter over files ``test-error_reporter.R`` and ``test-failed_payments.R``, the pipeline with every
region reconciled, and ``R CMD INSTALL`` of packages with C files ``handle_error.c`` and ``retry_queue.c``. Labels were
written with each scenario, before the engine saw the output. Needs Debian ``r-base-core``, ``r-base-dev`` and
``r-cran-testthat``.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-78"

_ENV = "R_LIBS_USER=/nonexistent R_KEEP_PKG_SOURCE=no _R_CHECK_FORCE_SUGGESTS_=false SOURCE_DATE_EPOCH=1700000000"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, dates, temporary files."""
    return substitute(
        scrub(out, root),
        (r"\[\d+s(/\d+s)?\]", "[1s/1s]"),
        (r"Duration: \d+(\.\d+)? s", "Duration: 0.1 s"),
        (r" \[\d+(\.\d+)?s\]", " [0.1s]"),
        (r"/tmp/Rtmp[A-Za-z0-9]+", "/tmp/RtmpABCDEF"),
        (r"file[0-9a-f]{6,}", "file000000"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d( UTC)?", "2026-01-01 00:00:00"),
        (r"elapsed \d+\.\d+s", "elapsed 0.10s"),
        (r"^( *)\d+\.\d+ +\d+\.\d+ +\d+\.\d+ *$", r"\1 1.000   0.100   1.100"),
    )


def _r(cmd: str, root: Path) -> bytes:
    return _settle(sh(f"HOME={root / 'home'} TMPDIR={root / 'tmp'} {_ENV} {cmd}", root), root)


def _dirs(root: Path) -> None:
    """A home, a temporary folder and an empty local repository (no CRAN is reached from this machine)."""
    (root / "tmp").mkdir(exist_ok=True)
    (root / "repo/src/contrib").mkdir(parents=True, exist_ok=True)
    (root / "repo/src/contrib/PACKAGES").write_text("")
    write(root, {"home/.Rprofile": f'options(repos = c(CRAN = "file://{root / "repo"}"))\n'})


# ---------------------------------------------------------------- a package


_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping",
    "catalog", "pricing", "coupons", "webhooks", "audit", "export", "session", "auth",
]  # fmt: skip

_FUNCS = {
    "error_reporter": (
        "error_reporter",
        'msgs, sink = "log"',
        'vapply(msgs, function(m) paste0("[", sink, "] error: ", m), character(1), USE.NAMES = FALSE)',
    ),
    "failed_payments": (
        "failed_payments",
        'ledger, status = "failed"',
        "ledger[ledger$status == status, , drop = FALSE]",
    ),
    "retry_queue": (
        "retry_queue",
        "jobs, max_tries = 3",
        "jobs[jobs$tries < max_tries, , drop = FALSE]",
    ),
    "handle_error": (
        "handle_error",
        'cond, context = "payment"',
        'structure(list(message = conditionMessage(cond), context = context), class = "handled_error")',
    ),
}


def _rd(name: str, args: str, title: str, example: str) -> str:
    items = "".join(f"\\item{{{a.split('=')[0].strip()}}}{{the {a.split('=')[0].strip()}.}}\n" for a in args.split(","))
    return (
        f"\\name{{{name}}}\n\\alias{{{name}}}\n\\title{{{title}}}\n\\description{{{title}.}}\n"
        f"\\usage{{{name}({args})}}\n\\arguments{{\n{items}}}\n\\value{{The result.}}\n"
        f"\\examples{{\n{example}\n}}\n"
    )


def _package(
    root: Path,
    pkg: str,
    *,
    reporter: str = "check",
    license: str = "MIT + file LICENSE",
    extra_r: dict[str, str] | None = None,
    extra_rd: dict[str, str] | None = None,
) -> Path:
    """A package ``pkg`` under ``root``: the four business functions and one summary per area, each documented,
    each with tests of many expectations."""
    base = root / pkg
    files: dict[str, str] = {
        "DESCRIPTION": (
            f"Package: {pkg}\nType: Package\nTitle: Payment Operations Helpers for the Billing Platform\n"
            'Version: 0.4.2\nAuthors@R: person("Billing", "Team", email = "billing@example.com",\n'
            '    role = c("aut", "cre"))\nDescription: Helpers that report errors, list failed payments, drain the\n'
            f"    retry queue and summarise ledgers for the billing platform.\nLicense: {license}\n"
            "Encoding: UTF-8\nSuggests: testthat (>= 3.0.0)\nConfig/testthat/edition: 3\n"
        ),
        "LICENSE": "YEAR: 2024\nCOPYRIGHT HOLDER: Billing Team\n",
        "NAMESPACE": 'exportPattern("^[a-z]")\n',
        "tests/testthat.R": (
            f'library(testthat)\nlibrary({pkg})\n\nset.seed(42)\ntest_check("{pkg}", reporter = "{reporter}")\n'
        ),
    }
    for fname, (fn, args, body) in _FUNCS.items():
        files[f"R/{fname}.R"] = f"{fn} <- function({args}) {{\n  {body}\n}}\n"
        example = {
            "error_reporter": 'error_reporter(c("card declined", "timeout"))',
            "failed_payments": 'failed_payments(data.frame(id = 1:3, status = c("ok", "failed", "ok")))',
            "retry_queue": "retry_queue(data.frame(id = 1:4, tries = c(0, 1, 3, 5)))",
            "handle_error": 'handle_error(simpleError("card declined"), "checkout")',
        }[fname]
        files[f"man/{fn}.Rd"] = _rd(fn, args, f"The {fn.replace('_', ' ')} helper", example)
    for area in _AREAS:
        fn = f"{area}_summary"
        files[f"R/{area}.R"] = (
            f"{fn} <- function(amounts, rate = 1) {{\n  stopifnot(is.numeric(amounts))\n"
            "  round(sum(amounts) * rate, 2)\n}\n"
        )
        files[f"man/{fn}.Rd"] = _rd(fn, "amounts, rate = 1", f"Summarise {area} amounts", f"{fn}(c(120, 80.5))")
        checks = "".join(
            f"  expect_equal({fn}(rep(1, {i})), {i})\n  expect_equal({fn}(rep(2, {i}), rate = 0.5), {i})\n"
            for i in range(1, 13)
        )
        files[f"tests/testthat/test-{area}.R"] = (
            f'test_that("{area} totals add up", {{\n{checks}}})\n\n'
            f'test_that("{area} rejects text amounts", {{\n  expect_error({fn}("12.50"))\n}})\n'
        )
    files["tests/testthat/test-error_reporter.R"] = (
        'test_that("error_reporter prefixes every message", {\n'
        '  out <- error_reporter(c("card declined", "timeout", "retry exhausted"))\n'
        "  expect_length(out, 3)\n"
        '  expect_equal(out[1], "[log] error: card declined")\n'
        '  expect_match(out, "error: ")\n})\n'
    )
    files["tests/testthat/test-failed_payments.R"] = (
        'test_that("failed_payments keeps only the failed rows", {\n'
        '  ledger <- data.frame(id = 1:6, status = c("ok", "failed", "ok", "failed", "failed", "ok"))\n'
        "  failed <- failed_payments(ledger)\n"
        "  expect_equal(nrow(failed), 3)\n"
        '  expect_true(all(failed$status == "failed"))\n})\n'
    )
    files["tests/testthat/test-retry_queue.R"] = (
        'test_that("retry_queue drops exhausted jobs", {\n'
        "  jobs <- data.frame(id = 1:5, tries = c(0, 1, 2, 3, 4))\n"
        "  expect_equal(retry_queue(jobs)$id, 1:3)\n"
        "  expect_equal(nrow(retry_queue(jobs, max_tries = 10)), 5)\n})\n"
    )
    files["tests/testthat/test-handle_error.R"] = (
        'test_that("handle_error keeps the message and context", {\n'
        '  h <- handle_error(simpleError("card declined"), "checkout")\n'
        '  expect_s3_class(h, "handled_error")\n'
        '  expect_equal(h$message, "card declined")\n'
        '  expect_error(stop("failed payment 17"), "failed payment")\n})\n'
    )
    files.update(extra_r or {})
    files.update(extra_rd or {})
    write(base, files)
    return base


def _build_check(root: Path, pkg: str, after: str = "", env: str = "") -> bytes:
    _dirs(root)
    cmd = (
        f"R CMD build --no-build-vignettes {pkg} && "
        f"R CMD check --no-manual --no-build-vignettes {pkg}_0.4.2.tar.gz{after}"
    )
    return _r(f"{env}sh -c '{cmd}'", root)


@case(
    "u78_rcmd_check_testthat_fail",
    "R CMD check",
    clean=False,
    group=GROUP,
    decisive=[
        "Running the tests in ‘tests/testthat.R’ failed.",
        "not ok 284 refund is capped at the original charge",
        "Status: 1 ERROR, 2 WARNINGs, 3 NOTEs",
    ],
)
def _check_fail(root: Path) -> bytes:
    extra_r = {
        # a codoc mismatch: the Rd says max_tries = 3, the code grew a backoff
        "R/retry_queue.R": (
            "retry_queue <- function(jobs, max_tries = 3, backoff = 2) {\n"
            "  jobs[jobs$tries < max_tries, , drop = FALSE]\n}\n"
        ),
        "R/refund_total.R": (
            "refund_total <- function(amounts, charged) {\n  sum(amounts)\n}\n\n"
            "ledger_balance <- function(entries) {\n  sum(entries$amount_cents) + ledger_offset_cents\n}\n"
        ),
        "deploy_notes.txt": "release notes: retry_queue got a backoff\n",
        "tests/testthat/test-refunds_cap.R": (
            'test_that("refund is capped at the original charge", {\n'
            "  charged <- 1000\n"
            "  expect_equal(refund_total(c(500, 700), charged = charged), 1000)\n})\n"
        ),
    }
    extra_rd = {
        "man/ledger_balance.Rd": _rd(
            "ledger_balance", "entries", "Ledger balance", "\\dontrun{ledger_balance(data.frame())}"
        ),
    }
    _package(root, "paymentsops", reporter="tap", license="MIT", extra_r=extra_r, extra_rd=extra_rd)
    return _build_check(root, "paymentsops", env="_R_CHECK_TESTS_NLINES_=0 ")


@case(
    "u78_rcmd_check_examples_error",
    "R CMD check",
    clean=False,
    group=GROUP,
    decisive=[
        "Running examples in ‘ledgerops-Ex.R’ failed",
        'Error in retry_backoff(c(1, 2, 3), base = "2s")',
        "Status: 1 ERROR",
    ],
)
def _check_examples(root: Path) -> bytes:
    extra_r = {
        "R/retry_backoff.R": (
            "retry_backoff <- function(tries, base = 2) {\n"
            '  if (!is.numeric(base)) stop("base must be numeric seconds, got ", class(base))\n'
            "  base ^ tries\n}\n"
        ),
    }
    extra_rd = {
        "man/retry_backoff.Rd": _rd(
            "retry_backoff", "tries, base = 2", "Backoff of the retry queue", 'retry_backoff(c(1, 2, 3), base = "2s")'
        ),
    }
    _package(root, "ledgerops", reporter="summary", extra_r=extra_r, extra_rd=extra_rd)
    _package(root, "retryops", reporter="summary")
    _dirs(root)
    cmd = (
        "R CMD build --no-build-vignettes ledgerops && R CMD build --no-build-vignettes retryops && "
        "for t in ledgerops_0.4.2.tar.gz retryops_0.4.2.tar.gz; do "
        "R CMD check --no-manual --no-build-vignettes $t; done"
    )
    return _r(f"sh -c '{cmd}'", root)


@case(
    "u78_rcmd_check_clean_errorreporter",
    "R CMD check",
    clean=True,
    group=GROUP,
    decisive=["Status: OK"],
)
def _check_clean(root: Path) -> bytes:
    _package(root, "errorreporter", reporter="location")
    return _build_check(root, "errorreporter", " && cat errorreporter.Rcheck/tests/testthat.Rout")


# ---------------------------------------------------------------- testthat::test_dir


def _test_files(root: Path, failing: str = "", erroring: str = "") -> None:
    """``tests/testthat`` with a helper that sources the code, and one file per area of many tests."""
    files = {
        "R/payments.R": (
            'error_reporter <- function(msgs) paste0("error: ", msgs)\n'
            'failed_payments <- function(ledger) ledger[ledger$status == "failed", , drop = FALSE]\n'
            "retry_queue <- function(jobs, max_tries = 3) jobs[jobs$tries < max_tries, , drop = FALSE]\n"
            "handle_error <- function(cond) list(message = conditionMessage(cond), handled = TRUE)\n"
            "refund_total <- function(amounts, charged) min(sum(amounts), charged)\n"
            "charge_card <- function(order_id, cents) {\n"
            '  if (cents > 50000) stop(sprintf("gateway rejected order %d: amount %d over limit", order_id, cents))\n'
            '  cat(sprintf("[gateway] order %d captured %d cents\\n", order_id, cents))\n'
            '  list(order_id = order_id, cents = cents, status = "captured")\n}\n'
        ),
        "tests/testthat/helper-load.R": 'source(file.path("..", "..", "R", "payments.R"))\n',
    }
    areas = ["error_reporter", "failed_payments", "retry_queue", "handle_error", *_AREAS]
    for area in areas:
        blocks = []
        for t in range(8):
            order = 88000 + 10 * areas.index(area) + t
            lines = [f"  amounts <- seq(100, {100 * (t + 2)}, by = 100)", f"  charge_card({order}L, {1200 + t}L)"]
            for k in range(4):
                lines.append(f"  expect_equal(refund_total(amounts, charged = {10**6}), sum(amounts))  # case {k}")
            if area == "retry_queue":
                lines.append("  jobs <- data.frame(id = 1:4, tries = c(0, 1, 3, 5))")
                lines.append("  expect_equal(nrow(retry_queue(jobs)), 2)")
            if area == "handle_error":
                lines.append('  h <- handle_error(simpleError("card declined"))')
                lines.append('  expect_equal(h$message, "card declined")')
            if area == "failed_payments":
                lines.append('  ledger <- data.frame(id = 1:3, status = c("failed", "ok", "failed"))')
                lines.append("  expect_equal(failed_payments(ledger)$id, c(1, 3))")
            if area == "error_reporter":
                lines.append('  expect_match(error_reporter("timeout"), "^error: ")')
            blocks.append(
                f'test_that("{area} batch {t} refunds stay under the charge", {{\n' + "\n".join(lines) + "\n})\n"
            )
        if area == failing:
            blocks.insert(
                3,
                'test_that("partial refund leaves the remainder on the invoice", {\n'
                "  charged <- 1000\n"
                "  refunded <- refund_total(c(300, 200), charged)\n"
                "  expect_equal(charged - refunded, 600)\n})\n",
            )
        if area == erroring:
            blocks.insert(
                2,
                'test_that("large orders are captured in one charge", {\n'
                "  res <- charge_card(order_id = 88123L, cents = 125000L)\n"
                '  expect_equal(res$status, "captured")\n})\n',
            )
        files[f"tests/testthat/test-{area}.R"] = "\n".join(blocks)
    write(root, files)


@case(
    "u78_testthat_junit_fail",
    "Rscript testthat::test_dir (junit)",
    clean=False,
    group=GROUP,
    decisive=[
        '<testcase time="0.1" classname="invoice" name="partial_refund_leaves_the_remainder_on_the_invoice">',
        "charged - refunded not equal to 600. ('test-invoice.R:31')",
        "Error: Test failures",
    ],
)
def _junit_fail(root: Path) -> bytes:
    _test_files(root, failing="invoice")
    _dirs(root)
    out = _r("""Rscript -e 'testthat::test_dir("tests/testthat", reporter = "junit")'""", root)
    return substitute(
        out,
        (r'time="\d+(\.\d+)?"', 'time="0.1"'),
        (r'timestamp="[^"]*"', 'timestamp="2026-01-01T00:00:00Z"'),
        (r'hostname="[^"]*"', 'hostname="ci-runner"'),
    )


@case(
    "u78_testthat_summary_error",
    "Rscript testthat::test_dir (summary)",
    clean=False,
    group=GROUP,
    decisive=[
        "Error ('test-pricing.R:",
        "gateway rejected order 88123: amount 125000 over limit",
        "Error: Test failures",
    ],
)
def _summary_error(root: Path) -> bytes:
    _test_files(root, erroring="pricing")
    _dirs(root)
    cmd = """Rscript -e 'set.seed(7); testthat::test_dir("tests/testthat", reporter = "summary")'"""
    return _r(cmd, root)


@case(
    "u78_testthat_progress_clean",
    "Rscript testthat::test_dir (progress)",
    clean=True,
    group=GROUP,
    decisive=["[ FAIL 0 | WARN 0 | SKIP 0 | PASS 672 ]"],
)
def _progress_clean(root: Path) -> bytes:
    _test_files(root)
    _dirs(root)
    reporter = "testthat::ProgressReporter$new(update_interval = 0, min_time = Inf, show_praise = FALSE)"
    return _r(f"""Rscript -e 'testthat::test_dir("tests/testthat", reporter = {reporter})'""", root)


# ---------------------------------------------------------------- Rscript data pipelines

_REGIONS = ["eu-west", "eu-central", "us-east", "us-west", "apac-south", "apac-east", "latam", "africa"]

_PIPELINE = r"""
options(error = function() { traceback(3); q(status = 1) })
args <- commandArgs(trailingOnly = TRUE)
region <- args[[1]]
broken <- if (length(args) > 1) args[[2]] else ""
set.seed(nchar(region) * 31)

log_step <- function(...) cat(sprintf("[%s] %s\n", region, sprintf(...)))

load_payments <- function(batch) {
  n <- 40 + batch %% 7
  data.frame(
    id = sprintf("%s-%04d-%03d", region, batch, seq_len(n)),
    cents = as.integer(round(runif(n, 500, 90000))),
    status = sample(c("captured", "failed", "retry"), n, replace = TRUE, prob = c(0.85, 0.1, 0.05))
  )
}

failed_payments <- function(p) p[p$status == "failed", , drop = FALSE]
retry_queue <- function(p) p[p$status == "retry", , drop = FALSE]

error_reporter <- function(batch, failed) {
  log_step("error_reporter: batch %02d has %d failed payments (%d cents)", batch, nrow(failed), sum(failed$cents))
}

post_entries <- function(p) {
  debit <- sum(p$cents[p$status == "captured"])
  data.frame(debit = debit, credit = if (region == broken) debit - 1250L else debit)
}

reconcile_ledger <- function(batch, ledger) {
  if (ledger$debit != ledger$credit) {
    stop(sprintf("ledger out of balance for %s batch %d: debit %d != credit %d",
                 region, batch, ledger$debit, ledger$credit))
  }
  invisible(TRUE)
}

run_batch <- function(batch) {
  p <- load_payments(batch)
  log_step("batch %02d: loaded %d payments", batch, nrow(p))
  error_reporter(batch, failed_payments(p))
  log_step("retry_queue: batch %02d queued %d payments for retry", batch, nrow(retry_queue(p)))
  ledger <- post_entries(p)
  log_step("batch %02d: posted debit %d credit %d", batch, ledger$debit, ledger$credit)
  if (batch == 17) reconcile_ledger(batch, ledger)
  log_step("batch %02d: written to warehouse", batch)
}

log_step("pipeline start: 24 batches")
for (b in 1:24) run_batch(b)
log_step("pipeline done: 24/24 batches reconciled and written")
"""


def _pipeline(root: Path, broken: str) -> bytes:
    write(root, {"pipeline.R": _PIPELINE})
    _dirs(root)
    loop = " ".join(_REGIONS)
    cmd = (
        f"for region in {loop}; do Rscript pipeline.R $region {broken or 'none'} "
        '|| echo "pipeline failed for region $region (exit $?)"; done'
    )
    return _r(f"sh -c '{cmd}'", root)


@case(
    "u78_rscript_pipeline_traceback",
    "Rscript (options(error = traceback))",
    clean=False,
    group=GROUP,
    decisive=[
        "Error in reconcile_ledger(batch, ledger) :",
        "ledger out of balance for us-east batch 17",
        "pipeline failed for region us-east (exit 1)",
    ],
)
def _pipeline_fail(root: Path) -> bytes:
    return _pipeline(root, "us-east")


@case(
    "u78_rscript_pipeline_clean",
    "Rscript",
    clean=True,
    group=GROUP,
    decisive=["[africa] pipeline done: 24/24 batches reconciled and written"],
)
def _pipeline_clean(root: Path) -> bytes:
    return _pipeline(root, "")


_INVOICES = r"""
set.seed(2024)
n <- 2400
customers <- sprintf("cus_%05d", sample(10000:99999, 300))
raw <- data.frame(
  invoice = sprintf("INV-%06d", seq_len(n)),
  customer = sample(customers, n, replace = TRUE),
  amount = sprintf("%.2f", runif(n, 5, 900)),
  stringsAsFactors = FALSE
)
# the EU export writes a decimal comma for some rows
eu <- seq(17, n, by = 9)
raw$amount[eu] <- sub(".", ",", raw$amount[eu], fixed = TRUE)

parse_amount <- function(x) as.integer(round(as.numeric(x) * 100))

cat("parsing", n, "invoice rows\n")
amount_cents <- vapply(raw$amount, parse_amount, integer(1), USE.NAMES = FALSE)
raw$amount_cents <- amount_cents
cat("parsed amounts\n")

totals <- aggregate(amount_cents ~ customer, data = raw, FUN = sum, na.action = na.pass)
totals <- totals[order(totals$customer), ]
options(width = 100)
cat("per-customer totals (cents):\n")
print(totals, row.names = FALSE)

validate_invoices <- function(df) {
  bad <- df$invoice[is.na(df$amount_cents)]
  if (length(bad)) stop(sprintf("%d invoices have no amount_cents (first: %s)", length(bad), bad[1]))
  invisible(df)
}
cat("validating before export\n")
validate_invoices(raw)
cat("exported invoices.csv\n")
"""


@case(
    "u78_rscript_warnings_50",
    "Rscript (warnings)",
    clean=False,
    group=GROUP,
    decisive=[
        "There were 50 or more warnings (use warnings() to see the first 50)",
        "265 invoices have no amount_cents (first: INV-000017)",
    ],
)
def _warnings_50(root: Path) -> bytes:
    write(root, {"monthly_invoices.R": _INVOICES})
    _dirs(root)
    return _r("Rscript monthly_invoices.R", root)


# ---------------------------------------------------------------- R CMD INSTALL of packages with C code


def _native(root: Path, pkg: str, units: list[str], broken: str = "") -> None:
    files = {
        f"{pkg}/DESCRIPTION": (
            f"Package: {pkg}\nVersion: 1.2.0\nTitle: Native Helpers for {pkg}\n"
            "Description: Fast native helpers for the billing platform.\nLicense: MIT + file LICENSE\n"
            'Authors@R: person("Billing", "Team", email = "billing@example.com", role = c("aut", "cre"))\n'
        ),
        f"{pkg}/LICENSE": "YEAR: 2024\nCOPYRIGHT HOLDER: Billing Team\n",
        f"{pkg}/NAMESPACE": f'useDynLib({pkg}, .registration = TRUE)\nexportPattern("^[a-z]")\n',
        f"{pkg}/src/types.h": (
            "#ifndef TYPES_H\n#define TYPES_H\n#include <R.h>\n#include <Rinternals.h>\n"
            "typedef struct { int id; int cents; int tries; } entry_t;\n#endif\n"
        ),
    }
    calls = []
    for unit in units:
        body = (
            f'#include "types.h"\n\nstatic int {unit}_weight(const entry_t *e) {{\n'
            "    int unused_total = 0;\n    return e->cents * (e->tries + 1);\n}\n\n"
            f"SEXP {unit}_c(SEXP cents) {{\n    entry_t e = {{1, asInteger(cents), 0}};\n"
            f"    return ScalarInteger({unit}_weight(&e));\n}}\n"
        )
        if unit == broken:
            body = body.replace("e->cents * (e->tries + 1)", "e->amount_cents * (e->tries + 1)")
        files[f"{pkg}/src/{unit}.c"] = body
        files[f"{pkg}/R/{unit}.R"] = f"{unit} <- function(cents) .Call({unit}_c, as.integer(cents))\n"
        calls.append(unit)
    decls = "".join(f"extern SEXP {u}_c(SEXP);\n" for u in calls)
    table = "".join(f'    {{"{u}_c", (DL_FUNC) &{u}_c, 1}},\n' for u in calls)
    files[f"{pkg}/src/init.c"] = (
        "#include <R.h>\n#include <Rinternals.h>\n#include <R_ext/Rdynload.h>\n\n"
        f"{decls}\nstatic const R_CallMethodDef calls[] = {{\n{table}    {{NULL, NULL, 0}}\n}};\n\n"
        f"void R_init_{pkg}(DllInfo *dll) {{\n    R_registerRoutines(dll, NULL, calls, NULL, NULL);\n"
        "    R_useDynamicSymbols(dll, FALSE);\n}\n"
    )
    files[f"{pkg}/src/Makevars"] = "PKG_CFLAGS = -Wall -Wextra\n"
    write(root, files)


_NATIVE = {
    "billingcore": ["billing_weight", "tax_rounding", "invoice_lines", "coupons_apply", "pricing_tiers"],
    "retryqueue": ["retry_queue", "handle_error", "failed_payments", "error_reporter", "backoff_policy"],
    "ledgernative": ["ledger_post", "ledger_balance", "refunds_cap", "audit_entry", "export_rows"],
    "shippingrates": ["shipping_zone", "shipping_weight", "cart_totals", "orders_split"],
    "webhookssign": ["webhooks_sign", "webhooks_verify", "session_token", "auth_digest"],
    "searchindex": ["search_tokens", "catalog_rank", "exceptions_log", "retry_budget"],
}


def _install(root: Path, broken: str = "") -> bytes:
    for pkg, units in _NATIVE.items():
        _native(root, pkg, units, broken)
    (root / "lib").mkdir()
    _dirs(root)
    pkgs = " ".join(_NATIVE)
    cmd = f'for p in {pkgs}; do R CMD INSTALL --no-test-load -l lib $p || echo "install of $p failed"; done; ls lib'
    out = _r(f"MAKEFLAGS=-j1 sh -c '{cmd}'", root)
    return substitute(out, (r"-ffile-prefix-map=\S+", "-ffile-prefix-map=/build/r-base=."))


@case(
    "u78_rcmd_install_compile_error",
    "R CMD INSTALL",
    clean=False,
    group=GROUP,
    decisive=[
        "refunds_cap.c:5:13: error: ‘entry_t’ has no member named ‘amount_cents’",
        "ERROR: compilation failed for package ‘ledgernative’",
        "install of ledgernative failed",
    ],
)
def _install_fail(root: Path) -> bytes:
    return _install(root, broken="refunds_cap")


@case(
    "u78_rcmd_install_clean",
    "R CMD INSTALL",
    clean=True,
    group=GROUP,
    decisive=["* DONE (retryqueue)", "* DONE (searchindex)"],
)
def _install_clean(root: Path) -> bytes:
    return _install(root)
