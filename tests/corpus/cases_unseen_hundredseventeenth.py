"""Held-out outputs (group ``unseen-117``): a hundred-and-seventeenth batch, Emacs Lisp in batch mode as an agent runs
it on a generated payments package, ``paydesk``, of 36 modules named after business words (``failed-payments``,
``error-codes``, ``retry-queue``, ``exception-report``, ``refunds`` ...), all offline with Debian's Emacs 28.

Failing runs: ``emacs -Q --batch -f batch-byte-compile`` over the 36 files with hundreds of warnings and one
``Malformed cl-loop macro`` error in the middle, ``ert-run-tests-batch-and-exit`` over 432 tests where one test of
the retry queue fails (ERT's backtrace and condition block in the middle), an ERT run whose tests log every payment
they process and where one test signals ``Unknown error code``, an ERT run where an ``:expected-result :failed`` test
unexpectedly passes (only ``PASSED`` in capitals and the summary say so), ``make lint`` (checkdoc over every file,
then package-lint) where package-lint finds one unprefixed function, and a ``--script`` reconciliation that dies
with ``Debugger entered--Lisp error:`` and its backtrace. Clean runs full of those business words: ``make`` of every
``.elc`` with warnings then a load check, an ERT run of 360 tests with expected failures (lowercase ``failed``) and
skipped tests, a ``--script`` report of failed payments, error codes and retries, and ``package-install-file`` of
the package as a tarball into a fresh ``package-user-dir``. Labels were written with each scenario, before the
engine saw the output. Needs Emacs and package-lint (Debian ``emacs-nox``, ``elpa-package-lint``) and make.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-117"

_EMACS = "emacs -Q --batch"
_PL = "/usr/share/emacs/site-lisp/elpa"
_PACKAGE_LINT = f"-L {_PL}/package-lint-0.16 -L {_PL}/let-alist-1.0.6 -l package-lint"

#: The 36 modules of the package, in load order.
_MODULES = [
    "failed-payments", "error-codes", "retry-queue", "exception-report", "billing", "orders", "cart", "tax",
    "refunds", "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit",
    "export", "session", "auth", "errors-log", "retry-policy", "chargebacks", "settlements", "payouts", "disputes",
    "fraud-score", "currency", "fees", "statements", "reconcile", "failed-webhooks", "dead-letters", "alerts",
    "exceptions-inbox",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, dates and durations."""
    return substitute(
        scrub(out, root),
        (r"\(\d+\.\d+ sec\)", "(0.000100 sec)"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d[+-]\d{4}", "2026-01-01 00:00:00+0000"),
        (r", \d+\.\d+ sec\)", ", 0.500000 sec)"),
        (r"\d+\.\d+ seconds", "0.10 seconds"),
    )


def _module(i: int, name: str, *, warn: bool = False, extra: str = "") -> str:
    """The source of ``paydesk-NAME.el``: a header, a table of records and a few functions; ``warn`` adds the
    kind of code the byte compiler warns about."""
    p = f"paydesk-{name}"
    prev = f"(require 'paydesk-{_MODULES[i - 1]})\n" if i else ""
    body = f"""\
;;; {p}.el --- Paydesk {name.replace("-", " ")} handling  -*- lexical-binding: t -*-

;; Copyright (C) 2024 Paydesk Ops

;; Author: Paydesk Ops <ops@paydesk.example>
;; Keywords: tools

;;; Commentary:

;; The {name} part of the paydesk payments desk: a table of records by id,
;; totals, retry delays and error codes.

;;; Code:

(require 'cl-lib)
{prev}
(defgroup {p} nil
  "Paydesk {name}."
  :group 'tools)

(defcustom {p}-limit {(i + 1) * 10}
  "Most {name} records to keep."
  :type 'integer)

(defvar {p}--table (make-hash-table :test #'equal)
  "Records of {name}, by id.")

(defun {p}-add (id amount)
  "Store AMOUNT under ID in the {name} table."
  (puthash id amount {p}--table))

(defun {p}-get (id)
  "Return the amount stored under ID, or 0."
  (gethash id {p}--table 0))

(defun {p}-total ()
  "Return the sum of all {name} amounts."
  (let ((sum 0))
    (maphash (lambda (_id amount) (setq sum (+ sum amount))) {p}--table)
    sum))

(defun {p}-count ()
  "Return how many {name} records there are."
  (hash-table-count {p}--table))

(defun {p}-retry-delay (attempt)
  "Return the delay in seconds before retry ATTEMPT."
  (* 60 (expt 2 (max 0 (1- attempt)))))

(defun {p}-error-code (status)
  "Return the error code string of STATUS."
  (format "E-%04d" (+ {i * 100} status)))

(defun {p}-failed-p (record)
  "Return non-nil when RECORD has failed."
  (eq (plist-get record :status) 'failed))

(defun {p}-clear ()
  "Remove every {name} record."
  (clrhash {p}--table))
"""
    if warn:
        body += f"""
(defun {p}--legacy-sum (rows)
  "Sum ROWS the way the old {name} exporter did, keeping a count of failed retries for the exception report."
  (let ((retries 0) (failed-rows nil))
    (apply #'+ rows)))

(defun {p}--bump ()
  "Count one more {name} event."
  (setq {p}-events (1+ {p}-events)))

(defun {p}--notify (id)
  "Tell the ops channel about ID."
  (paydesk-ops-notify '{name} id))
"""
        if i % 3 == 0:
            body += f"""
(defun {p}--refresh ()
  "Refresh the {name} report buffer."
  (font-lock-fontify-buffer))
"""
    return body + extra + f"\n(provide '{p})\n;;; {p}.el ends here\n"


def _package(root: Path, *, warn: bool = False, extras: dict[str, str] | None = None) -> list[str]:
    """The 36 modules in ``root`` and the main file ``paydesk.el``; the file names, in load order."""
    extras = extras or {}
    files = {f"paydesk-{m}.el": _module(i, m, warn=warn, extra=extras.get(m, "")) for i, m in enumerate(_MODULES)}
    requires = "".join(f"(require 'paydesk-{m})\n" for m in _MODULES)
    files["paydesk.el"] = f"""\
;;; paydesk.el --- Payments desk: failed payments, retries, error codes  -*- lexical-binding: t -*-

;; Copyright (C) 2024 Paydesk Ops

;; Author: Paydesk Ops <ops@paydesk.example>
;; Version: 2.4.0
;; Package-Requires: ((emacs "26.1"))
;; Keywords: tools
;; URL: https://paydesk.example/emacs

;;; Commentary:

;; Paydesk keeps the payments desk's queues in Emacs: failed payments, the
;; retry queue, error codes and the monthly exception report.

;;; Code:

(defconst paydesk-version "2.4.0"
  "The version of paydesk.")

(defconst paydesk-modules '({" ".join(_MODULES)})
  "The modules of paydesk, in load order.")

{requires}
(provide 'paydesk)
;;; paydesk.el ends here
"""
    write(root, files)
    return [f"paydesk-{m}.el" for m in _MODULES] + ["paydesk.el"]


# ---------------------------------------------------------------- byte compilation


_BROKEN_REFUNDS = """
(defun paydesk-refunds-partial-total (items)
  "Return the refunded total of ITEMS, a list of plists with :amount."
  (cl-loop for item in items
           when (plist-get item :refunded)
           sum (plist-get item :amount) into total
           finally return))
"""


@case(
    "u117_bytecomp_error",
    "emacs batch-byte-compile",
    clean=False,
    group=GROUP,
    decisive=["paydesk-refunds.el:76:1: Error: Malformed ‘cl-loop’ macro", "[exit status 1]"],
)
def _bytecomp_error(root: Path) -> bytes:
    files = _package(root, warn=True, extras={"refunds": _BROKEN_REFUNDS})
    return _settle(sh(f"{_EMACS} -L . -f batch-byte-compile {' '.join(files)}", root), root)


_MAKEFILE = """\
EMACS ?= emacs
SRCS := $(wildcard paydesk*.el)
ELCS := $(SRCS:.el=.elc)

all: compile load-check

compile: $(ELCS)

%.elc: %.el
\t@echo "  ELC      $@"
\t@$(EMACS) -Q --batch -L . -f batch-byte-compile $<

LOADED := (message "paydesk %s: %d modules loaded" paydesk-version (length paydesk-modules))

load-check: compile
\t$(EMACS) -Q --batch -L . -l paydesk.elc --eval '$(LOADED)'

test: compile
\t$(EMACS) -Q --batch -L . -L test -l ert $(patsubst %,-l %,$(wildcard test/*-tests.el)) \\
\t  -f ert-run-tests-batch-and-exit

lint:
\t@for f in $(SRCS); do echo "checkdoc $$f"; \\
\t  $(EMACS) -Q --batch --eval "(checkdoc-file \\"$$f\\")" 2>&1 | grep -v '^Warning (emacs): $$' || true; done
\t$(EMACS) -Q --batch -L . $(PACKAGE_LINT) --eval '(setq package-lint-main-file "paydesk.el")' \\
\t  -f package-lint-batch-and-exit $(SRCS)

.PHONY: all compile load-check test lint
"""


@case(
    "u117_make_compile_clean",
    "make (emacs byte-compile)",
    clean=True,
    group=GROUP,
    decisive=["paydesk 2.4.0: 36 modules loaded"],
)
def _make_compile_clean(root: Path) -> bytes:
    _package(root, warn=True)
    write(root, {"Makefile": _MAKEFILE})
    return _settle(sh("make -j1 all", root), root)


# ---------------------------------------------------------------- ERT


def _tests(i: int, name: str, *, extra: str = "", noisy: bool = False) -> str:
    """``test/paydesk-NAME-tests.el``: 12 ERT tests of the module (``noisy`` ones log every payment they post)."""
    p = f"paydesk-{name}"
    post = f"(paydesk-test-post '{name} 20)\n  " if noisy else ""
    return f"""\
;;; {p}-tests.el --- Tests of {p}  -*- lexical-binding: t -*-

;;; Code:

(require 'ert)
(require '{p})
{"(require 'paydesk-test-helpers)" if noisy else ""}

(ert-deftest {p}-test-add-and-get ()
  {post}({p}-clear)
  ({p}-add "PAY-{i:03d}01" 1250)
  (should (= ({p}-get "PAY-{i:03d}01") 1250)))

(ert-deftest {p}-test-get-missing ()
  ({p}-clear)
  (should (= ({p}-get "PAY-missing") 0)))

(ert-deftest {p}-test-total ()
  {post}({p}-clear)
  ({p}-add "a" 100)
  ({p}-add "b" 250)
  (should (= ({p}-total) 350)))

(ert-deftest {p}-test-count ()
  ({p}-clear)
  ({p}-add "a" 1)
  (should (= ({p}-count) 1)))

(ert-deftest {p}-test-retry-delay-first ()
  (should (= ({p}-retry-delay 1) 60)))

(ert-deftest {p}-test-retry-delay-second ()
  (should (= ({p}-retry-delay 2) 120)))

(ert-deftest {p}-test-retry-delay-third ()
  (should (= ({p}-retry-delay 3) 240)))

(ert-deftest {p}-test-error-code-declined ()
  (should (equal ({p}-error-code 5) "E-{i * 100 + 5:04d}")))

(ert-deftest {p}-test-error-code-timeout ()
  {post}(should (equal ({p}-error-code 8) "E-{i * 100 + 8:04d}")))

(ert-deftest {p}-test-failed-p-true ()
  (should ({p}-failed-p '(:id "PAY-1" :status failed))))

(ert-deftest {p}-test-failed-p-false ()
  (should-not ({p}-failed-p '(:id "PAY-2" :status settled))))

(ert-deftest {p}-test-clear ()
  ({p}-add "x" 1)
  ({p}-clear)
  (should (= ({p}-count) 0)))
{extra}
(provide '{p}-tests)
;;; {p}-tests.el ends here
"""


def _suite(root: Path, modules: list[str], *, extras: dict[str, str] | None = None, noisy: bool = False) -> str:
    """The package and its test files in ``root/test``; the ``-l`` arguments that load the tests in order."""
    extras = extras or {}
    _package(root)
    files = {
        f"test/paydesk-{m}-tests.el": _tests(i, m, extra=extras.get(m, ""), noisy=noisy) for i, m in enumerate(modules)
    }
    if noisy:
        files["test/paydesk-test-helpers.el"] = """\
            ;;; paydesk-test-helpers.el --- Shared test helpers  -*- lexical-binding: t -*-
            ;;; Code:
            (defun paydesk-test-post (area n)
              "Post N made-up payments of AREA, logging each one."
              (dotimes (k n)
                (let ((status (if (= (% k 7) 3) 'failed 'settled)))
                  (message "paydesk[%s]: posted PAY-%05d amount=%d currency=EUR status=%s"
                           area (+ 10000 k) (* 125 (1+ k)) status)
                  (when (eq status 'failed)
                    (message "paydesk[%s]: payment PAY-%05d failed (E-0412 card_declined), queued for retry 1/5"
                             area (+ 10000 k))))))
            (provide 'paydesk-test-helpers)
            ;;; paydesk-test-helpers.el ends here
        """
    write(root, files)
    return " ".join(f"-l test/paydesk-{m}-tests.el" for m in modules)


def _ert(root: Path, loads: str) -> bytes:
    return _settle(sh(f"{_EMACS} -L . -L test -l ert {loads} -f ert-run-tests-batch-and-exit", root), root)


_BACKOFF_TEST = """
(ert-deftest paydesk-ledger-test-retry-backoff-schedule ()
  "The retry backoff of ledger postings doubles for four attempts."
  (should (equal (mapcar #'paydesk-ledger-backoff '(1 2 3 4)) '(60 120 240 480))))
"""
_BACKOFF = """
(defun paydesk-ledger-backoff (attempt)
  "Return the backoff in seconds of ledger posting ATTEMPT, capped at the retry limit."
  (min 240 (paydesk-ledger-retry-delay attempt)))
"""


@case(
    "u117_ert_one_failure",
    "emacs ert",
    clean=False,
    group=GROUP,
    decisive=[
        "Test paydesk-ledger-test-retry-backoff-schedule condition:",
        "261/433  paydesk-ledger-test-retry-backoff-schedule",
        "Ran 433 tests, 432 results as expected, 1 unexpected",
    ],
)
def _ert_one_failure(root: Path) -> bytes:
    loads = _suite(root, _MODULES, extras={"ledger": _BACKOFF_TEST})
    (root / "paydesk-ledger.el").write_text(_module(10, "ledger", extra=_BACKOFF))
    return _ert(root, loads)


def _expected_failure(p: str, n: int) -> str:
    return f"""
(ert-deftest {p}-test-known-bug-{n} ()
  "Known bug #{n}: the legacy exporter reports failed payments twice."
  :expected-result :failed
  (should (= (length (delete-dups (list "PAY-1" "PAY-1"))) 2)))
"""


def _skipped(p: str) -> str:
    return f"""
(ert-deftest {p}-test-live-gateway-retry ()
  "Retry a failed payment against the live gateway (needs PAYDESK_GATEWAY_URL)."
  (skip-unless (getenv "PAYDESK_GATEWAY_URL"))
  (should t))
"""


@case(
    "u117_ert_clean_expected_failures",
    "emacs ert",
    clean=True,
    group=GROUP,
    decisive=["Ran 369 tests, 365 results as expected, 0 unexpected, 4 skipped"],
)
def _ert_clean(root: Path) -> bytes:
    modules = _MODULES[:30]
    extras = {modules[k]: _expected_failure(f"paydesk-{modules[k]}", k) for k in (3, 9, 15, 21, 27)}
    for k in (4, 10, 16, 22):
        extras[modules[k]] = _skipped(f"paydesk-{modules[k]}")
    return _ert(root, _suite(root, modules, extras=extras))


_UNKNOWN_CODE = """
(defconst paydesk-exception-report--codes
  '(("E-0412" . "card declined") ("E-0419" . "insufficient funds") ("E-0501" . "gateway timeout"))
  "The error codes the exception report knows how to describe.")

(defun paydesk-exception-report-describe (code)
  "Return the description of error CODE, or signal an error."
  (or (cdr (assoc code paydesk-exception-report--codes))
      (error "Unknown error code: %s" code)))
"""
_UNKNOWN_CODE_TEST = """
(ert-deftest paydesk-exception-report-test-describe-all-codes ()
  "Every error code seen last month has a description in the exception report."
  (paydesk-test-post 'exception-report 20)
  (dolist (code '("E-0412" "E-0419" "E-4512" "E-0501"))
    (should (stringp (paydesk-exception-report-describe code)))))
"""


@case(
    "u117_ert_noisy_error",
    "emacs ert",
    clean=False,
    group=GROUP,
    decisive=[
        '(error "Unknown error code: E-4512")',
        "paydesk-exception-report-test-describe-all-codes (0.000100 sec)",
        "Ran 217 tests, 216 results as expected, 1 unexpected",
    ],
)
def _ert_noisy_error(root: Path) -> bytes:
    modules = _MODULES[:18]
    loads = _suite(root, modules, extras={"exception-report": _UNKNOWN_CODE_TEST}, noisy=True)
    (root / "paydesk-exception-report.el").write_text(_module(3, "exception-report", extra=_UNKNOWN_CODE))
    return _ert(root, "-L test " + loads)


_ROUNDING_BUG = """
(ert-deftest paydesk-tax-test-known-bug-rounding ()
  "Known bug: tax on 0.5 cent amounts rounds down (PAY-2207)."
  :expected-result :failed
  (should (= (round 2.5) 2)))
"""


@case(
    "u117_ert_unexpected_pass",
    "emacs ert",
    clean=False,
    group=GROUP,
    decisive=["194/198  paydesk-tax-test-known-bug-rounding", "Ran 198 tests, 197 results as expected, 1 unexpected"],
)
def _ert_unexpected_pass(root: Path) -> bytes:
    modules = _MODULES[:16]
    extras = {modules[k]: _expected_failure(f"paydesk-{modules[k]}", k) for k in (2, 5, 8, 11, 14)}
    extras["tax"] = _ROUNDING_BUG
    return _ert(root, _suite(root, modules, extras=extras))


# ---------------------------------------------------------------- lint


def _doc_issues(name: str) -> str:
    """Functions checkdoc has something to say about."""
    p = f"paydesk-{name}"
    return f"""
(defun {p}-retry-failed (id attempt)
  "retry the failed {name} payment"
  (list id attempt))

(defun {p}-report-exceptions (rows)
  "Report the exceptions of the {name} desk."
  (length rows))
"""


_UNPREFIXED = """
(defun refund-total (items)
  "Return the total of the refunded ITEMS."
  (apply #'+ (mapcar (lambda (item) (plist-get item :amount)) items)))
"""


@case(
    "u117_make_lint_package_lint",
    "make lint (checkdoc, package-lint)",
    clean=False,
    group=GROUP,
    decisive=["error: \"refund-total\" doesn't start with package's prefix", "make: *** [Makefile:"],
)
def _make_lint(root: Path) -> bytes:
    extras = {m: _doc_issues(m) for m in _MODULES}
    extras["refunds"] += _UNPREFIXED
    _package(root, extras=extras)
    write(root, {"Makefile": _MAKEFILE})
    return _settle(sh(f"make lint PACKAGE_LINT='{_PACKAGE_LINT}'", root), root)


# ---------------------------------------------------------------- scripts


def _script(count: int, broken_at: int = 0) -> str:
    """``reconcile.el``: run with ``--script``, posts ``count`` payments through the fee, ledger and retry modules
    and prints a line per payment; payment ``broken_at`` has no amount."""
    return f"""\
;;; reconcile.el --- Nightly reconciliation of failed payments  -*- lexical-binding: t -*-
(add-to-list 'load-path (file-name-directory load-file-name))
(require 'paydesk)

(defun paydesk-fees-apply (amount rate)
  "Return the fee on AMOUNT at RATE, in cents."
  (round (* amount rate)))

(defun paydesk-reconcile-payment (payment)
  "Reconcile PAYMENT, a plist; return its status."
  (let* ((amount (plist-get payment :amount))
         (fee (paydesk-fees-apply amount 0.029))
         (status (plist-get payment :status)))
    (paydesk-ledger-add (plist-get payment :id) (- amount fee))
    (when (eq status 'failed)
      (paydesk-retry-queue-add (plist-get payment :id) (paydesk-retry-queue-retry-delay 1)))
    (princ (format "%-10s %-8s amount=%6d fee=%4d retry=%s code=%s\\n"
                   (plist-get payment :id) status amount fee
                   (if (eq status 'failed) "queued" "-")
                   (if (eq status 'failed) (paydesk-error-codes-error-code 12) "-")))
    status))

(defun paydesk-reconcile-run (payments)
  "Reconcile every payment of PAYMENTS; print a summary."
  (let ((failed 0) (settled 0))
    (dolist (payment payments)
      (if (eq (paydesk-reconcile-payment payment) 'failed)
          (setq failed (1+ failed))
        (setq settled (1+ settled))))
    (princ (format "\\nfailed payments: %d (all queued in the retry queue, %d retries pending)\\n"
                   failed (paydesk-retry-queue-count)))
    (princ (format "error codes seen: E-0212 x%d\\nexception report: 0 unresolved exceptions\\n" failed))
    (princ (format "Reconciliation complete: %d payments, %d settled, ledger total %d\\n"
                   (length payments) settled (paydesk-ledger-total)))))

(princ "paydesk nightly reconciliation (failed payments, retry queue, error codes)\\n")
(paydesk-reconcile-run
 (cl-loop for k from 1 to {count}
          collect (list :id (format "PAY-%05d" k)
                        :amount (if (= k {broken_at}) nil (* 37 k))
                        :status (if (= (% k 9) 4) 'failed 'settled))))
"""


@case(
    "u117_script_reconcile_clean",
    "emacs --script",
    clean=True,
    group=GROUP,
    decisive=["Reconciliation complete: 600 payments, 533 settled"],
)
def _script_clean(root: Path) -> bytes:
    _package(root)
    write(root, {"reconcile.el": _script(600)})
    return _settle(sh("emacs --script reconcile.el", root), root)


@case(
    "u117_script_backtrace",
    "emacs --script",
    clean=False,
    group=GROUP,
    decisive=["Debugger entered--Lisp error: (wrong-type-argument number-or-marker-p nil)", "paydesk-fees-apply(nil"],
)
def _script_backtrace(root: Path) -> bytes:
    _package(root)
    write(root, {"reconcile.el": _script(600, broken_at=431)})
    return _settle(sh("emacs --script reconcile.el", root), root)


# ---------------------------------------------------------------- package.el


@case(
    "u117_package_install_clean",
    "emacs package-install-file",
    clean=True,
    group=GROUP,
    decisive=["Done (Total of 38 files compiled, 1 skipped)"],
)
def _package_install(root: Path) -> bytes:
    src = root / "paydesk-2.4.0"
    src.mkdir()
    _package(src, warn=True)
    write(src, {"paydesk-pkg.el": '(define-package "paydesk" "2.4.0" "Payments desk" \'((emacs "26.1")))\n'})
    sh("tar -cf paydesk-2.4.0.tar paydesk-2.4.0", root)
    install = (
        f'(progn (setq package-user-dir "{root / "elpa"}") (package-initialize)'
        ' (package-install-file "paydesk-2.4.0.tar"))'
    )
    return _settle(sh(f"{_EMACS} -l package --eval '{install}'", root), root)
