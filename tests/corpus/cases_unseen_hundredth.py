"""Held-out outputs (group ``unseen-100``): a hundredth batch, Lisp and logic-language toolchains as an agent runs them
on generated projects, all offline from Debian packages: SBCL (a ``build.lisp`` that compiles 64 files, ASDF's
``load-system``, FiveAM suites, a script with an unhandled condition), Racket (``raco make``, ``raco test`` with
rackunit) and SWI-Prolog (plunit suites, consulting an application of many modules).

Failing runs: ``sbcl --non-interactive --load build.lisp`` over 64 files full of optimisation notes and
STYLE-WARNINGs where one function in ``retry-queue`` has a full WARNING (a string added to a number), ASDF's
``load-system`` of 48 components where ``ledger-sync`` has a malformed LET (an unhandled COMPILE-FILE-ERROR with
SBCL's backtrace), a FiveAM run of 40 suites with project log lines where one test of ``refunds`` fails, a reconcile
script that logs 1,200 entries and dies with an unhandled ``PAYMENT-RETRY-EXHAUSTED`` condition, ``raco make --vv`` of
40 modules where ``retry-queue.rkt`` uses an unbound identifier, ``raco test`` of 36 files where one rackunit check
in ``coupons`` fails among hundreds of passes, plunit suites where one test of ``ledger`` fails, and consulting an
application whose ``retry_queue.pl`` has a syntax error among singleton and discontiguous warnings (then the unknown
procedure at run time). Clean runs named after errors and failures: ASDF and FiveAM of ``failed-payments`` with
``error-codes`` and ``exception-report`` suites, an ``exception-report`` script that prints failed payments by error
code, ``raco make -v`` and ``raco test`` of ``error-codes`` and ``failed-payments`` modules, and plunit suites of
``failed_payments``, ``error_codes`` and ``retry_queue``. Labels were written with each scenario, before the engine saw
the output. Needs SBCL with FiveAM, Racket with rackunit and SWI-Prolog (Debian ``sbcl``, ``cl-fiveam``, ``racket``,
``swi-prolog-nox``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-100"

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "ledger", "shipping", "catalog", "pricing", "coupons",
    "webhooks", "audit", "export", "invoice", "session", "auth",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, file dates, addresses, durations."""
    return substitute(
        scrub(out, root),
        (r"\(written \d\d [A-Z]{3} \d{4} \d\d:\d\d:\d\d [AP]M\)", "(written 01 JAN 2026 00:00:00 AM)"),
        (r"\{[0-9A-F]{6,16}\}", "{1000000000}"),
        (r"\d+\.\d+ sec\b", "0.001 sec"),
        (r"-tmp[A-Z0-9]{5,10}\.fasl", "-tmpAAAAAAAA.fasl"),
        (r"compilation finished in \d+:\d\d:\d\d\.\d+", "compilation finished in 0:00:00.010"),
        (r"\b[0-9a-f]{40}\b", "0" * 40),
        (r"cpu time: \d+ real time: \d+ gc time: \d+", "cpu time: 1 real time: 1 gc time: 0"),
    )


def _sbcl(root: Path) -> str:
    """SBCL with ASDF's caches and configuration in the scenario's folder."""
    return f"XDG_CACHE_HOME={root / 'cache'} XDG_CONFIG_HOME={root / 'config'} HOME={root} sbcl"


# ---------------------------------------------------------------- SBCL


def _lisp_unit(area: str, i: int, *, notes: bool, extra: str = "") -> str:
    """One source file of ``area``: arithmetic the compiler notes about under (speed 3), an unused variable."""
    head = "(declaim (optimize (speed 3) (safety 1)))\n\n" if notes else ""
    return (
        f";;;; {area}-{i:02d}.lisp: {area} rules for the payments platform.\n\n(in-package :payments)\n\n{head}"
        f"(defun {area}-{i:02d}-fee (amount rate)\n"
        f'  "The fee of AMOUNT at RATE for {area}."\n'
        f"  (* amount rate))\n\n"
        f"(defun {area}-{i:02d}-total (items)\n"
        f"  (let ((count (length items)))\n"
        f"    (reduce #'+ items :initial-value 0)))\n\n"
        f"(defun {area}-{i:02d}-split (amount parts)\n"
        f"  (/ amount parts))\n\n"
        f"(defun {area}-{i:02d}-describe (id status)\n"
        f'  (format nil "~a ~a: ~a" "{area}" id status))\n' + extra
    )


_BUILD = """
    ;;;; build.lisp: compile every file of src/ in order, load it, and stop the build on a full warning.
    (defpackage :payments (:use :cl))
    (defvar *failed* '())
    (defvar *files* (with-open-file (in "files.txt") (loop for line = (read-line in nil) while line collect line)))
    (format t "build: compiling ~d files~%" (length *files*))
    (dolist (file *files*)
      (multiple-value-bind (fasl warnings-p failure-p) (compile-file file)
        (declare (ignore warnings-p))
        (when failure-p (push file *failed*))
        (load fasl)))
    (cond (*failed*
           (format t "~&BUILD FAILED: ~d file(s) with full warnings or errors: ~{~a~^, ~}~%"
                   (length *failed*) (reverse *failed*))
           (sb-ext:exit :code 1))
          (t (format t "~&build: ok~%")))
"""


@case(
    "u100_sbcl_build_full_warning",
    "sbcl",
    clean=False,
    group=GROUP,
    decisive=[
        'Constant "250" conflicts with its asserted type NUMBER.',
        "; in: DEFUN RETRY-QUEUE-BACKOFF-MS",
        "BUILD FAILED: 1 file(s) with full warnings or errors: src/retry-queue-03.lisp",
    ],
)
def _sbcl_build_full_warning(root: Path) -> bytes:
    files: list[str] = []
    areas = [*_AREAS[:8], "retry-queue", *_AREAS[8:]]
    for area in areas:
        for i in range(1, 5):
            extra = ""
            if area == "retry-queue" and i == 3:
                extra = (
                    "\n(defun retry-queue-backoff-ms (attempt)\n"
                    "  (declare (fixnum attempt))\n"
                    '  (+ (* attempt 100) "250"))\n'
                )
            rel = f"src/{area}-{i:02d}.lisp"
            write(root, {rel: _lisp_unit(area, i, notes=True, extra=extra)})
            files.append(rel)
    write(root, {"build.lisp": _BUILD, "files.txt": "\n".join(files) + "\n"})
    return _settle(sh(f"{_sbcl(root)} --non-interactive --load build.lisp", root), root)


def _asd(name: str, components: list[str]) -> str:
    parts = "\n".join(f'                 (:file "{c}")' for c in components)
    return (
        f'(asdf:defsystem "{name}"\n  :description "{name} for the payments platform"\n  :version "2.4.0"\n'
        f'  :serial t\n  :components ((:module "src"\n    :components ((:file "package")\n{parts}))))\n'
    )


@case(
    "u100_sbcl_asdf_compile_error",
    "sbcl",
    clean=False,
    group=GROUP,
    decisive=[
        "The LET binding spec (SEVERITY :HIGH :LOW) is malformed.",
        'Unhandled UIOP/LISP-BUILD:COMPILE-FILE-ERROR in thread #<SB-THREAD:THREAD "main thread" RUNNING',
        'compiling #<CL-SOURCE-FILE "exception-report" "src" "ledger-sync">',
    ],
)
def _sbcl_asdf_compile_error(root: Path) -> bytes:
    comps: list[str] = []
    for area in _AREAS[:12]:
        for i in range(1, 5):
            name = f"{area}-{i:02d}"
            comps.append(name)
            write(root, {f"src/{name}.lisp": _lisp_unit(area, i, notes=i % 2 == 0)})
        if area == "refunds":
            comps.append("ledger-sync")
            write(
                root,
                {
                    "src/ledger-sync.lisp": """
                        ;;;; ledger-sync.lisp: push settled refunds to the ledger, classify exceptions.
                        (in-package :payments)

                        (defun ledger-sync-classify (exception)
                          (let ((severity :high :low))
                            (if (eq (getf exception :kind) :timeout) :retry severity)))

                        (defun ledger-sync-batch (entries)
                          (mapcar #'ledger-sync-classify entries))
                    """
                },
            )
    write(
        root,
        {
            "exception-report.asd": _asd("exception-report", comps),
            "src/package.lisp": "(defpackage :payments (:use :cl))\n",
            "load.lisp": """
                (require :asdf)
                (asdf:initialize-source-registry
                 `(:source-registry (:directory ,(uiop:getcwd)) :ignore-inherited-configuration))
                (setf asdf:*asdf-verbose* t)
                (asdf:load-system "exception-report" :verbose t)
                (format t "~&exception-report loaded~%")
            """,
        },
    )
    return _settle(sh(f"{_sbcl(root)} --non-interactive --load load.lisp", root), root)


_FIVEAM_LOAD = """
    (require :asdf)
    (let ((*standard-output* (make-broadcast-stream)) (*error-output* (make-broadcast-stream)))
      (asdf:load-system :fiveam))
"""


def _fiveam_suite(area: str, tests: int, *, broken: str = "") -> str:
    """A FiveAM suite for ``area``: code under test that logs what it does, ``tests`` tests of five checks."""
    body = [
        f'(def-suite {area}-suite :in all-suites :description "{area} rules")\n(in-suite {area}-suite)\n',
        f"(defun {area}-settle (id cents attempt)\n"
        f'  (format t "~&[{area}] settle payment ~d amount=~d attempt=~d~%" id cents attempt)\n'
        f"  (if (> attempt 3) :failed (+ cents (* attempt 25))))\n",
    ]
    for t in range(1, tests + 1):
        name = f"{area}-case-{t:02d}"
        expect = 100 * t + 25
        if name == broken:
            expect += 5
        body.append(
            f"(test {name}\n"
            f"  (is (= {expect} ({area}-settle {t} {100 * t} 1)))\n"
            f"  (is (eq :failed ({area}-settle {t} {100 * t} 4)))\n"
            f"  (is (= {100 * t + 50} ({area}-settle {t} {100 * t} 2)))\n"
            f'  (is-true (plusp {t}))\n  (is (string= "{area}" "{area}")))\n'
        )
    return "\n".join(body)


def _fiveam_project(root: Path, areas: list[str], tests: int, broken: str = "") -> None:
    suites = "".join(_fiveam_suite(a, tests, broken=broken) + "\n" for a in areas)
    write(
        root,
        {
            "run-tests.lisp": _FIVEAM_LOAD
            + """
                (defpackage :payments-tests (:use :cl :fiveam))
                (in-package :payments-tests)
                (def-suite all-suites :description "every suite of the payments platform")
                (load "tests/suites.lisp")
                (sb-ext:exit :code (if (run! 'all-suites) 0 1))
            """,
            "tests/suites.lisp": "(in-package :payments-tests)\n\n" + suites,
        },
    )


@case(
    "u100_sbcl_fiveam_one_failure",
    "sbcl",
    clean=False,
    group=GROUP,
    decisive=["REFUNDS-CASE-07 in REFUNDS-SUITE", "(REFUNDS-SETTLE 7 700 1)", "Fail: 1 ("],
)
def _sbcl_fiveam_one_failure(root: Path) -> bytes:
    areas = [f"{a}-{s}" if s else a for s in ("", "batch") for a in _AREAS]
    areas = [a for a in areas if a != "refunds-batch"][:30]
    _fiveam_project(root, areas, 8, broken="refunds-case-07")
    return _settle(sh(f"{_sbcl(root)} --non-interactive --load run-tests.lisp", root), root)


@case(
    "u100_sbcl_fiveam_clean_failed_payments",
    "sbcl",
    clean=True,
    group=GROUP,
    decisive=["Did 1400 checks.", "Pass: 1400 (100%)"],
)
def _sbcl_fiveam_clean(root: Path) -> bytes:
    areas = ["failed-payments", "error-codes", "exception-report", "retry-queue", "dead-letters", "chargebacks"]
    areas += [f"{a}-errors" for a in _AREAS[:8]]
    _fiveam_project(root, areas, 20)
    return _settle(sh(f"{_sbcl(root)} --non-interactive --load run-tests.lisp", root), root)


_RECONCILE = """
    ;;;; reconcile.lisp: replay the day's ledger entries, retry the failed payments, stop when one exhausts its retries.
    (define-condition payment-retry-exhausted (error)
      ((id :initarg :id :reader payment-id) (attempts :initarg :attempts :reader attempts))
      (:report (lambda (c s)
                 (format s "payment ~a still failing after ~d attempts; giving up" (payment-id c) (attempts c)))))

    (defvar *areas* #(billing orders cart tax refunds ledger shipping catalog pricing coupons))

    (defun gateway-status (id attempt)
      (cond ((= id 913) :declined)
            ((and (zerop (mod id 37)) (< attempt 2)) :timeout)
            (t :settled)))

    (defun settle-entry (id cents)
      (loop for attempt from 1 to 5
            for status = (gateway-status id attempt)
            do (format t "~&ledger entry ~5,'0d area=~(~a~) cents=~6d attempt=~d status=~(~a~)~%"
                       id (aref *areas* (mod id 10)) cents attempt status)
            when (eq status :settled) return attempt
            finally (error 'payment-retry-exhausted :id (format nil "PAY-~5,'0d" id) :attempts 5)))

    (defun replay-ledger (count)
      (let ((retried 0))
        (dotimes (i count)
          (let ((id (1+ i)))
            (when (> (settle-entry id (* 125 (1+ (mod id 40)))) 1)
              (incf retried)
              (format t "~&retry-queue: entry ~5,'0d settled after retry (~d retried so far)~%" id retried))))
        retried))

    (format t "reconcile: replaying 1200 ledger entries~%")
    (format t "reconcile: ~d entries needed a retry~%" (replay-ledger 1200))
"""


@case(
    "u100_sbcl_unhandled_retry_exhausted",
    "sbcl",
    clean=False,
    group=GROUP,
    decisive=[
        "Unhandled PAYMENT-RETRY-EXHAUSTED in thread",
        "payment PAY-00913 still failing after 5 attempts; giving up",
        "(SETTLE-ENTRY 913 4250)",
    ],
)
def _sbcl_unhandled(root: Path) -> bytes:
    write(root, {"reconcile.lisp": _RECONCILE})
    return _settle(sh(f"{_sbcl(root)} --non-interactive --load reconcile.lisp", root), root)


_REPORT = """
    ;;;; exception-report.lisp: failed payments of the month grouped by error code, with the retry outcome.
    (defvar *codes* '(("E1001" . "card_declined") ("E1002" . "insufficient_funds") ("E1003" . "expired_card")
                      ("E2001" . "gateway_timeout") ("E2002" . "gateway_error") ("E3001" . "fraud_suspected")
                      ("E3002" . "exception_in_webhook") ("E4001" . "retry_limit_reached")))

    (defun failed-payment (i)
      (let ((code (nth (mod (* i 7) (length *codes*)) *codes*)))
        (list :id (format nil "PAY-~5,'0d" i) :code (car code) :reason (cdr code)
              :cents (* 99 (1+ (mod i 53))) :retried (mod i 4) :recovered (zerop (mod i 3)))))

    (let ((rows (loop for i from 1 to 1600 collect (failed-payment i))) (totals (make-hash-table :test 'equal)))
      (format t "exception-report: ~d failed payments, ~d error codes~%~%" (length rows) (length *codes*))
      (format t "~10a ~6a ~22a ~8a ~7a ~9a~%" "payment" "code" "reason" "cents" "retries" "recovered")
      (dolist (r rows)
        (incf (gethash (getf r :code) totals 0))
        (format t "~10a ~6a ~22a ~8d ~7d ~9a~%" (getf r :id) (getf r :code) (getf r :reason) (getf r :cents)
                (getf r :retried) (if (getf r :recovered) "yes" "no")))
      (format t "~%failed payments by error code:~%")
      (dolist (c *codes*)
        (format t "  ~a ~22a ~5d~%" (car c) (cdr c) (gethash (car c) totals 0)))
      (format t "~%exception-report: wrote ~d rows, ~d recovered after retry~%"
              (length rows) (count-if (lambda (r) (getf r :recovered)) rows)))
"""


@case(
    "u100_sbcl_exception_report_clean",
    "sbcl",
    clean=True,
    group=GROUP,
    decisive=["exception-report: wrote 1600 rows, 533 recovered after retry"],
)
def _sbcl_report_clean(root: Path) -> bytes:
    write(root, {"exception-report.lisp": _REPORT})
    return _settle(sh(f"{_sbcl(root)} --script exception-report.lisp", root), root)


# ---------------------------------------------------------------- Racket


def _rkt_module(name: str, deps: list[str], extra: str = "") -> str:
    ident = name.replace("_", "-")
    reqs = " ".join(f'"{d}.rkt"' for d in deps)
    uses = " ".join(f"({d}-weight cents)" for d in deps)
    return (
        f"#lang racket/base\n;; {name}.rkt: {name} rules of the payments platform.\n"
        f"(require racket/list racket/string {reqs})\n"
        f"(provide {ident}-weight {ident}-describe)\n\n"
        f"(define ({ident}-weight cents)\n  (+ (modulo cents 97) {uses or '0'}))\n\n"
        f'(define ({ident}-describe id status)\n  (string-join (list "{name}" (number->string id) status) " "))\n'
        + extra
    )


@case(
    "u100_raco_make_unbound_identifier",
    "raco",
    clean=False,
    group=GROUP,
    decisive=["retry-queue.rkt:14:17: retry-limt: unbound identifier", "in: retry-limt"],
)
def _raco_make_unbound(root: Path) -> bytes:
    names = [f"{a}-{s}" for s in ("rules", "store") for a in _AREAS]
    names.insert(22, "retry-queue")
    names = names[:40]
    for i, name in enumerate(names):
        extra = ""
        if name == "retry-queue":
            extra = (
                "\n(define retry-limit 5)\n"
                "(define (retry-queue-next attempt)\n  (if (< attempt retry-limt) (* attempt 200) #f))\n"
            )
        deps = names[max(0, i - 2) : i]
        body = _rkt_module(name, deps, extra)
        if extra:
            body = body.replace("(provide retry-queue-weight retry-queue-describe)", "(provide (all-defined-out))")
        write(root, {f"payments/{name}.rkt": body})
    main_reqs = "\n".join(f'         "{n}.rkt"' for n in names)
    write(root, {"payments/main.rkt": f"#lang racket/base\n(require racket/list\n{main_reqs})\n"})
    env = {"PLTUSERHOME": str(root / "plt"), "PLTSTDERR": "debug@compiler/cm error"}
    return _settle(sh("raco make -v payments/main.rkt", root, env=env), root)


def _rkt_test_file(area: str, tests: int, *, broken: int = 0) -> str:
    """A rackunit test file for ``area``: code under test that logs each payment, ``tests`` test cases."""
    cases = []
    for t in range(1, tests + 1):
        expect = 100 * t + 25 + (15 if t == broken else 0)
        cases.append(
            f'(test-case "{area} settles payment {t} on the first attempt"\n'
            f"  (check-equal? (settle {t} {100 * t} 1) {expect}"
            f' "{area}: amount plus the first attempt\'s fee")\n'
            f"  (check-eq? (settle {t} {100 * t} 4) 'failed)\n"
            f"  (check-equal? (settle {t} {100 * t} 2) {100 * t + 50}))\n"
        )
    return (
        f"#lang racket/base\n;; {area}-test.rkt: rackunit tests of {area}.\n(require rackunit)\n\n"
        f"(define (settle id cents attempt)\n"
        f'  (printf "[{area}] settle payment ~a amount=~a attempt=~a\\n" id cents attempt)\n'
        f"  (if (> attempt 3) 'failed (+ cents (* attempt 25))))\n\n" + "\n".join(cases)
    )


@case(
    "u100_raco_test_one_failure",
    "raco",
    clean=False,
    group=GROUP,
    decisive=["coupons settles payment 9 on the first attempt", "actual:     925", "1/180 test failures"],
)
def _raco_test_one_failure(root: Path) -> bytes:
    areas = [f"{a}-{s}" for s in ("rules", "store") for a in _AREAS][:18]
    areas[9] = "coupons"
    for area in areas:
        write(root, {f"tests/{area}-test.rkt": _rkt_test_file(area, 10, broken=9 if area == "coupons" else 0)})
    env = {"PLTUSERHOME": str(root / "plt")}
    return _settle(sh("raco make -v tests/*.rkt && raco test tests", root, env=env), root)


@case(
    "u100_raco_clean_error_codes",
    "raco",
    clean=True,
    group=GROUP,
    decisive=["160 tests passed"],
)
def _raco_clean(root: Path) -> bytes:
    areas = ["error-codes", "failed-payments", "exception-report", "retry-queue", "dead-letter", "chargeback-errors"]
    areas += [f"{a}-failures" for a in _AREAS[:10]]
    for area in areas:
        write(root, {f"tests/{area}-test.rkt": _rkt_test_file(area, 10)})
    env = {"PLTUSERHOME": str(root / "plt")}
    return _settle(sh("raco make -v tests/*.rkt && raco test tests", root, env=env), root)


# ---------------------------------------------------------------- SWI-Prolog


def _pl_module(area: str) -> str:
    return (
        f":- module({area}, [{area}_settle/4]).\n%% {area}.pl: {area} rules of the payments platform.\n\n"
        f"{area}_settle(Id, Cents, Attempt, Result) :-\n"
        f'    format("[{area}] settle payment ~w amount=~w attempt=~w~n", [Id, Cents, Attempt]),\n'
        f"    (   Attempt > 3\n    ->  Result = failed\n    ;   Result is Cents + Attempt * 25\n    ).\n"
    )


def _pl_tests(area: str, tests: int, *, broken: int = 0) -> str:
    lines = [f":- use_module('../src/{area}').\n\n:- begin_tests({area}).\n"]
    for t in range(1, tests + 1):
        expect = 100 * t + 25 + (15 if t == broken else 0)
        lines.append(
            f"test(settle_{t:02d}_first_attempt, [true(R == {expect})]) :-\n    {area}_settle({t}, {100 * t}, 1, R).\n"
            f"test(settle_{t:02d}_gives_up) :-\n    {area}_settle({t}, {100 * t}, 4, failed).\n"
        )
    lines.append(f":- end_tests({area}).\n")
    return "\n".join(lines)


def _pl_project(root: Path, areas: list[str], tests: int, broken: tuple[str, int] = ("", 0)) -> str:
    for area in areas:
        write(
            root,
            {
                f"src/{area}.pl": _pl_module(area),
                f"tests/test_{area}.pl": _pl_tests(area, tests, broken=broken[1] if area == broken[0] else 0),
            },
        )
    loads = ",\n".join(f"    'tests/test_{a}'" for a in areas)
    write(root, {"run_tests.pl": f":- load_files([\n{loads}\n], [if(not_loaded)]).\n"})
    return "swipl --on-error=status -g run_tests -t halt run_tests.pl"


@case(
    "u100_swipl_plunit_one_failure",
    "swipl",
    clean=False,
    group=GROUP,
    decisive=["test settle_07_first_attempt: wrong answer (compared using ==)", "Got:      725", "% 1 test failed"],
)
def _swipl_plunit_failure(root: Path) -> bytes:
    areas = [a for a in _AREAS if a != "ledger"][:13]
    areas.insert(7, "ledger")
    cmd = _pl_project(root, areas, 12, broken=("ledger", 7))
    return _settle(sh(cmd, root), root)


@case(
    "u100_swipl_plunit_clean_failed_payments",
    "swipl",
    clean=True,
    group=GROUP,
    decisive=["% All 360 tests passed"],
)
def _swipl_plunit_clean(root: Path) -> bytes:
    areas = ["failed_payments", "error_codes", "retry_queue", "exception_report", "dead_letters", "chargebacks"]
    areas += [f"{a}_errors" for a in _AREAS[:9]]
    cmd = _pl_project(root, areas, 12)
    return _settle(sh(cmd, root), root)


def _pl_app_module(area: str) -> str:
    """A module with a singleton variable and discontiguous clauses: warnings while consulting."""
    return (
        f":- module({area}_app, [{area}_report/0]).\n%% {area}_app.pl: the daily {area} report.\n\n"
        f"{area}_fee(card, Cents, Fee) :- Fee is Cents // 40.\n"
        f"{area}_report :-\n"
        f"    forall(between(1, 12, I),\n"
        f"           ( Cents is I * 125, {area}_fee(card, Cents, Fee),\n"
        f'             format("{area}: payment ~w cents=~w fee=~w~n", [I, Cents, Fee]) )).\n'
        f"{area}_fee(bank, Cents, Fee) :- Fee is Cents // 80.\n"
        f'{area}_label(Id, Status, Label) :- format(atom(Label), "{area}-~w", [Id]).\n'
    )


@case(
    "u100_swipl_consult_syntax_error",
    "swipl",
    clean=False,
    group=GROUP,
    decisive=[
        "retry_queue.pl:8:22: Syntax error: Operator expected",
        "Exported procedure retry_queue:requeue/3 is not defined",
        "Unknown procedure: retry_queue:requeue/3",
    ],
)
def _swipl_syntax_error(root: Path) -> bytes:
    areas = [f"{a}_{s}" for s in ("daily", "monthly") for a in _AREAS][:28]
    for area in areas:
        write(root, {f"src/{area}_app.pl": _pl_app_module(area)})
    write(
        root,
        {
            "src/retry_queue.pl": """
                :- module(retry_queue, [requeue/3, backoff_ms/2]).
                %% retry_queue.pl: put failed payments back on the queue with a growing delay.

                backoff_ms(Attempt, Ms) :-
                    Ms is 200 * 2 ** (Attempt - 1).

                requeue(Payment, Attempt, Delay) :-
                    backoff_ms(Attempt Delay),
                    format("requeue ~w attempt=~w delay=~wms~n", [Payment, Attempt, Delay]).
            """,
            "app.pl": (
                "".join(f":- use_module(src/{a}_app).\n" for a in areas[:15])
                + ":- use_module(src/retry_queue).\n"
                + "".join(f":- use_module(src/{a}_app).\n" for a in areas[15:])
                + "\nmain :-\n"
                + "".join(f"    {a}_report,\n" for a in areas)
                + "    retry_queue:requeue('PAY-00913', 2, Delay),\n"
                + '    format("next retry in ~w ms~n", [Delay]).\n'
            ),
        },
    )
    return _settle(sh("swipl --on-error=status -g main -t halt app.pl", root), root)
