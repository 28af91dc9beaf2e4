"""Held-out outputs (group ``unseen-19``): a nineteenth batch, compilers and test tools of more languages.

``ghc --make -fkeep-going -Wall`` over 120 Haskell modules full of warnings with one type error,
SBCL loading 20 files (style warnings) then running 1,200 ``sb-rt`` tests with one wrong value,
``raco test`` over 20 rackunit files (1,500 checks, one failure), ``gnatmake -k -gnatwa`` over 120 Ada
packages with one body that adds a string to an integer, ``gdc -funittest`` running 80 D modules'
unittests with one failed assertion, SWI-Prolog's plunit over 20 test files (one wrong answer),
``tcc -vv`` over 200 C files (the include tree of every file) with one undeclared identifier,
``yasm -Worphan-labels`` over 120 assembly files with one undefined symbol, and ``gforth`` running
40 ttester files with one incorrect result. Clean runs whose text talks about errors: ``zig test``
(PyPI ``ziglang``) over 400 tests named after error unions, Guile's SRFI-64 runner whose log (printed
after the run) lists every ``test-error`` with its ``actual-error``, and ``clojure.test`` over 20
namespaces with tests of error codes and thrown exceptions. Labels were written with each scenario,
before the engine saw the output. Needs ``ghc``, ``sbcl``, ``racket``, ``gnat``, ``gdc``,
``swi-prolog-nox``, ``tcc``, ``yasm``, ``gforth``, ``guile-3.0`` and ``clojure`` (Debian packages),
and the PyPI registry.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-19"

_DURATION = r"sed -E 's/[0-9]+\.[0-9]+ sec/<t> sec/g'"


# ---------------------------------------------------------------- Haskell


def _hs_module(area: str, k: int) -> str:
    mod = f"{area.capitalize()}.M{k:02d}"
    return (
        f"module {mod} (summarise{k:02d}, render{k:02d}) where\n\n"
        "import Data.List (sortBy, nub)\n"
        "import Data.Char (toUpper)\n\n"
        f"summarise{k:02d} xs = sum (map (* {k + 2}) xs)\n\n"
        f"render{k:02d} :: [Int] -> String\n"
        f'render{k:02d} xs = let xs = [{k}, {k + 1}] in "{area} " ++ show (length xs)\n'
    )


@case(
    "ghc_make_keep_going_type_error",
    "ghc --make -fkeep-going -Wall",
    clean=False,
    group=GROUP,
    decisive=["src/Refunds/Ledger.hs:6:", "Couldn't match type ‘[Char]’ with ‘Int’"],
)
def _ghc(root: Path) -> bytes:
    imports, uses = [], []
    for a in range(20):
        for k in range(6):
            area = WORDS[a]
            write(root, {f"src/{area.capitalize()}/M{k:02d}.hs": _hs_module(area, k)})
            imports.append(f"import {area.capitalize()}.M{k:02d}")
            uses.append(f"  putStrLn (render{k:02d} [summarise{k:02d} [1, 2, 3]])")
    write(
        root,
        {
            "src/Refunds/Ledger.hs": (
                "module Refunds.Ledger (refundTotal) where\n\n"
                "import Data.List (foldl')\n\n"
                "refundTotal :: [Int] -> Int\n"
                'refundTotal xs = foldl\' (+) 0 xs + "0.15"\n'
            ),
        },
    )
    main = "module Main where\n\n" + "\n".join(imports) + "\nimport Refunds.Ledger\n\nmain = do\n"
    main += "\n".join(uses) + "\n  print (refundTotal [1, 2, 3])\n"
    (root / "src" / "Main.hs").write_text(main)
    return sh("mkdir -p build && ghc --make -fkeep-going -Wall -isrc -outputdir build -o build/shop src/Main.hs", root)


# ---------------------------------------------------------------- Common Lisp (SBCL, sb-rt)


def _lisp_file(a: int) -> str:
    area = WORDS[a]
    out = ["(in-package :shop-tests)\n"]
    for f in range(10):
        out.append(
            f"(defun {area}-step-{f} (amount rate region)\n"
            f'  (let ((fee (* amount {f + 1})) (note "{area} batch {f}"))\n'
            "    (+ amount (round (* amount rate) 100))))\n"
        )
    for i in range(60):
        n = a * 60 + i
        if n == 677:
            out.append(f"(deftest {area}-balance.{n} (apply-refund 80) 70)\n")
        else:
            out.append(f"(deftest {area}-total.{n} ({area}-step-{i % 10} {n} 10 :eu) {n + round(n * 10 / 100)})\n")
    return "".join(out)


@case(
    "sbcl_sb_rt_failed_test",
    "sbcl --non-interactive (sb-rt)",
    clean=False,
    group=GROUP,
    decisive=[
        "Test LEDGER-BALANCE.677 failed",
        "Actual values: 68",
        "1 out of 1200 total tests failed: LEDGER-BALANCE.677.",
    ],
)
def _sbcl(root: Path) -> bytes:
    files = " ".join(f'"src/{w}.lisp"' for w in WORDS)
    write(
        root,
        {
            "run.lisp": f"""
            (require :sb-rt)
            (defpackage :shop-tests (:use :cl :sb-rt))
            (in-package :shop-tests)
            (defun apply-refund (amount) (round (* amount 85) 100))
            (dolist (f '({files}))
              (format t "~&;; loading ~a~%" f)
              (load f))
            (unless (do-tests) (sb-ext:exit :code 1))
            """,
            **{f"src/{w}.lisp": _lisp_file(a) for a, w in enumerate(WORDS)},
        },
    )
    return scrub(sh("sbcl --noinform --non-interactive --load run.lisp", root), root)


# ---------------------------------------------------------------- Racket (raco test)


def _rkt_file(a: int) -> str:
    area = WORDS[a]
    out = [
        "#lang racket/base\n(require rackunit)\n",
        "(define (apply-refund amount) (round (* amount 85/100)))\n",
        f'(define (line-total qty price) (* qty price))\n(printf "loading {area} fixtures\\n")\n',
    ]
    for i in range(75):
        if area == "ledger" and i == 41:
            out.append(
                '(test-case "applies refund once"\n  (check-equal? (apply-refund 80) 70 "refund applied twice"))\n'
            )
            continue
        out.append(
            f'(test-case "{area} line total {i}"\n'
            f'  (printf "{area}: checking order {a * 75 + i} ({i % 7 + 1} lines)\\n")\n'
            f"  (check-equal? (line-total {i % 5 + 1} {i}) {(i % 5 + 1) * i}))\n"
        )
    return "".join(out)


@case(
    "raco_test_rackunit_failure",
    "raco test",
    clean=False,
    group=GROUP,
    decisive=["applies refund once", "actual:     68", "1/1500 test failures"],
)
def _raco(root: Path) -> bytes:
    write(root, {f"tests/{w}-test.rkt": _rkt_file(a) for a, w in enumerate(WORDS)})
    return sh("raco test tests", root)


# ---------------------------------------------------------------- Ada (gnatmake)


def _ada_pkg(name: str, n: int, bad: bool) -> dict[str, str]:
    spec = f"package {name} is\n   function Total (A, B : Integer) return Integer;\n"
    spec += "".join(f"   function Step_{s} (X : Integer) return Integer;\n" for s in range(4))
    spec += f"end {name};\n"
    body = [f"package body {name} is\n", "   function Total (A, B : Integer) return Integer is\n"]
    body.append("      Pending : Integer := 3;\n   begin\n")
    body.append('      return A + B + "0.15";\n' if bad else f"      return A + B + {n};\n")
    body.append("   end Total;\n")
    for s in range(4):
        body.append(
            f"   function Step_{s} (X : Integer) return Integer is\n"
            f"      Scratch_{s} : Integer;\n   begin\n      return X * {s + 2};\n   end Step_{s};\n"
        )
    body.append(f"end {name};\n")
    return {f"{name.lower()}.ads": spec, f"{name.lower()}.adb": "".join(body)}


@case(
    "gnatmake_ada_type_error",
    "gnatmake -k -gnatwa",
    clean=False,
    group=GROUP,
    decisive=[
        'ledger_refunds.adb:5:22: error: expected type "Standard.Integer"',
        'gnatmake: "ledger_refunds.adb" compilation error',
    ],
)
def _gnat(root: Path) -> bytes:
    names = []
    files: dict[str, str] = {}
    for a, w in enumerate(WORDS):
        for kind in ("Rules", "Store", "Report", "Queue", "Cache", "Client"):
            name = f"{w.capitalize()}_{kind}"
            names.append(name)
            files.update(_ada_pkg(name, a, False))
    names.insert(34, "Ledger_Refunds")
    files.update(_ada_pkg("Ledger_Refunds", 7, True))
    main = "with Ada.Text_IO;\n" + "".join(f"with {n};\n" for n in names)
    main += "procedure Main is\n   Count : Integer;\nbegin\n"
    main += "".join(f"   Ada.Text_IO.Put_Line (Integer'Image ({n}.Total (1, 2)));\n" for n in names)
    main += "end Main;\n"
    files["main.adb"] = main
    write(root, files)
    return sh("gnatmake -k -gnatwa main.adb", root)


# ---------------------------------------------------------------- D (gdc -funittest)


def _d_module(area: str, k: int, bad: bool) -> str:
    mod = f"{area}_{k}"
    out = [f"module {mod};\nimport std.stdio;\n\n"]
    out.append("long lineTotal(long qty, long price) { return qty * price; }\n")
    out.append("long applyRefund(long amount) { return amount * 85 / 100; }\n\n")
    for t in range(16):
        out.append(
            "unittest\n{\n"
            f'    writeln("{mod}: reconciled batch {t} ({t * 3 + k} entries, 0 errors)");\n'
            f"    assert(lineTotal({t + 1}, {k + 10}) == {(t + 1) * (k + 10)});\n}}\n"
        )
        if bad and t == 4:
            out.append('unittest\n{\n    assert(applyRefund(80) == 70, "refund applied twice");\n}\n')
    return "".join(out)


@case(
    "gdc_unittest_module_failed",
    "gdc -funittest (run)",
    clean=False,
    group=GROUP,
    decisive=[
        "core.exception.AssertError@src/ledger_2.d(34): refund applied twice",
        "1/80 modules FAILED unittests",
    ],
)
def _gdc(root: Path) -> bytes:
    files = {}
    for w in WORDS:
        for k in range(4):
            files[f"src/{w}_{k}.d"] = _d_module(w, k, w == "ledger" and k == 2)
    write(root, files)
    build = "mkdir -p build && gdc -funittest -fmain -Wall -o build/shop_tests src/*.d"
    # the backtrace's addresses change with every run (ASLR)
    run = "./build/shop_tests > run.out 2>&1; st=$?; sed -E 's/\\[0x[0-9a-f]+\\]/[0x...]/' run.out; exit $st"
    return sh(f"{build} && {{ {run}; }}", root)


# ---------------------------------------------------------------- Prolog (SWI-Prolog plunit)


def _pl_file(a: int) -> str:
    area = WORDS[a]
    out = [f":- begin_tests({area}).\n\n"]
    for i in range(60):
        if area == "refunds" and i == 33:
            out.append("test(refund_once, [true(Y == 70)]) :-\n    apply_refund(80, Y).\n\n")
            continue
        if i % 6 != 5:
            out.append(
                f"test({area}_total_{i}) :-\n"
                f'    format("{area}: order ~w has ~w lines~n", [{a * 60 + i}, {i % 7 + 1}]),\n'
                f"    line_total({i % 5 + 1}, {i}, T), T =:= {(i % 5 + 1) * i}.\n\n"
            )
        else:
            out.append(f"test({area}_total_{i}) :-\n    line_total({i % 5 + 1}, {i}, T), T =:= {(i % 5 + 1) * i}.\n\n")
    out.append(f":- end_tests({area}).\n")
    return "".join(out)


@case(
    "swipl_plunit_wrong_answer",
    "swipl -g run_tests (plunit)",
    clean=False,
    group=GROUP,
    decisive=["test refund_once: wrong answer", "Got:      68", "% 1 test failed"],
)
def _swipl(root: Path) -> bytes:
    loads = "".join(f":- consult('tests/{w}.pl').\n" for w in WORDS)
    write(
        root,
        {
            "run.pl": (
                ":- use_module(library(plunit)).\n"
                "line_total(Q, P, T) :- T is Q * P.\n"
                "apply_refund(X, Y) :- Y is round(X * 0.85).\n" + loads
            ),
            **{f"tests/{w}.pl": _pl_file(a) for a, w in enumerate(WORDS)},
        },
    )
    run = f"swipl -g run_tests -t halt run.pl > run.out 2>&1; st=$?; {_DURATION} run.out; exit $st"
    return scrub(sh(run, root), root)


# ---------------------------------------------------------------- tcc


def _c_file(area: str, k: int, bad: bool) -> str:
    headers = "#include <stdio.h>\n#include <string.h>\n#include <errno.h>\n#include <stdlib.h>\n"
    return (
        headers
        + f'#include "{area}.h"\n\n'
        + f"int {area}_total_{k}(int qty, int price) {{\n"
        + f"    int total = qty * price + {k};\n"
        + ("    return total + balanc;\n" if bad else "    return total;\n")
        + "}\n\n"
        + f"int {area}_report_{k}(const char *name) {{\n"
        + f'    if (strlen(name) == 0) {{ errno = EINVAL; return audit_log("{area}: empty name"); }}\n'
        + f'    printf("{area} %s\\n", name);\n    return {area}_flush_{k}(stdout);\n}}\n'
    )


@case(
    "tcc_vv_undeclared_identifier",
    "tcc -vv -Wall (loop over sources)",
    clean=False,
    group=GROUP,
    decisive=["src/ledger_07.c:9: error: 'balanc' undeclared"],
)
def _tcc(root: Path) -> bytes:
    files = {}
    for w in WORDS:
        files[f"src/{w}.h"] = f"#pragma once\nint {w}_total(int qty, int price);\n"
        for k in range(10):
            files[f"src/{w}_{k:02d}.c"] = _c_file(w, k, w == "ledger" and k == 7)
    write(root, files)
    return sh(
        'mkdir -p build; st=0; for f in src/*.c; do echo "  CC      $f"; '
        "tcc -vv -Wall -Isrc -c $f -o build/$(basename $f .c).o || st=1; done; "
        '[ $st = 0 ] && echo "  LD      build/shop" && tcc -o build/shop build/*.o; exit $st',
        root,
    )


# ---------------------------------------------------------------- yasm


def _asm_file(area: str, k: int, bad: bool) -> str:
    lines = [
        "section .data\n",
        f'msg_{k} db "{area} batch {k} done", 10\n',
        "section .text\n",
        f"global {area}_entry_{k}\n",
        f"{area}_entry_{k}:\n",
        "    push rbp\n",
        "    mov eax, [retry_count]\n" if bad else f"    mov eax, {k + 1}\n",
        "validate\n",
        f"    mov cl, {k * 40}\n",
        f"    add eax, {k * 3}\n",
        "cleanup\n",
        "    pop rbp\n",
        "done\n",
        "    ret\n",
    ]
    return "".join(lines)


@case(
    "yasm_undefined_symbol",
    "yasm -f elf64 -Worphan-labels (loop over sources)",
    clean=False,
    group=GROUP,
    decisive=["src/refunds_06.asm:7: error: undefined symbol `retry_count' (first use)"],
)
def _yasm(root: Path) -> bytes:
    files = {}
    for w in WORDS:
        for k in range(12):
            files[f"src/{w}_{k:02d}.asm"] = _asm_file(w, k, w == "refunds" and k == 6)
    write(root, files)
    return sh(
        'mkdir -p obj; st=0; for f in src/*.asm; do echo "  AS      $f"; '
        "yasm -f elf64 -g dwarf2 -Worphan-labels -o obj/$(basename $f .asm).o $f || st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- gforth (ttester)


def _fs_file(n: int) -> str:
    area = WORDS[n % 20]
    out = ['s" ./prelude.fs" included\n\n']
    for i in range(40):
        if n == 24 and i == 17:
            out.append("T{ 80 refund-after-fee -> 70 }T\n")
        else:
            out.append(f"T{{ {i + 1} {n + 2} line-total -> {(i + 1) * (n + 2)} }}T\n")
        if i % 2 == 0:
            out.append(f".( {area}: checked {i + 1} of 40 totals) cr\n")
    out.append(f"#fails @ . .( incorrect results in tests/t{n:02d}_{area}.fs) cr\n")
    out.append("#fails @ 0<> [if] 1 (bye) [then] bye\n")
    return "".join(out)


@case(
    "gforth_ttester_incorrect_result",
    "gforth (ttester, loop over test files)",
    clean=False,
    group=GROUP,
    decisive=["INCORRECT RESULT: T{ 80 refund-after-fee -> 70 }T", "1 incorrect results in tests/t24_refunds.fs"],
)
def _gforth(root: Path) -> bytes:
    files = {
        "tests/prelude.fs": (
            's" /usr/share/gforth/0.7.3/test/ttester.fs" included\n'
            "variable #fails\n"
            ": count-fail ( c-addr u -- ) 1 #fails +! type source type cr ;\n"
            "' count-fail error-xt !\n"
            ": line-total ( qty price -- n ) * ;\n"
            ": refund-after-fee ( n -- m ) 85 * 100 / ;\n"
        )
    }
    for n in range(40):
        files[f"tests/t{n:02d}_{WORDS[n % 20]}.fs"] = _fs_file(n)
    write(root, files)
    return sh(
        'st=0; for f in tests/t*.fs; do echo "== gforth $f"; gforth $f || st=1; done; exit $st',
        root,
    )


# ---------------------------------------------------------------- zig test (clean)


def _zig_tests() -> str:
    out = [
        'const std = @import("std");\n\n',
        "const LedgerError = error{ Timeout, InvalidAmount, Declined };\n\n",
        "fn charge(amount: i64) LedgerError!i64 {\n"
        "    if (amount < 0) return error.InvalidAmount;\n"
        "    if (amount > 100000) return error.Declined;\n"
        "    return amount;\n}\n\n",
    ]
    for i in range(400):
        area = WORDS[i % 20]
        kind = i % 4
        if kind == 0:
            out.append(
                f'test "{area} charge {i} returns error.InvalidAmount for a negative amount" {{\n'
                f"    try std.testing.expectError(error.InvalidAmount, charge(-{i + 1}));\n}}\n"
            )
        elif kind == 1:
            out.append(
                f'test "{area} charge {i} returns error.Declined above the limit" {{\n'
                f"    try std.testing.expectError(error.Declined, charge({100001 + i}));\n}}\n"
            )
        elif kind == 2:
            out.append(
                f'test "{area} errors: 0 after reconcile {i}" {{\n'
                f'    std.debug.print("{area}: reconcile {i} finished, errors=0 failed=0\\n", .{{}});\n'
                f"    try std.testing.expectEqual(@as(i64, {i}), try charge({i}));\n}}\n"
            )
        else:
            out.append(
                f'test "{area} parse {i} rejects malformed id with error.InvalidCharacter" {{\n'
                "    try std.testing.expectError(error.InvalidCharacter, "
                f'std.fmt.parseInt(u32, "{area}-{i}", 10));\n}}\n'
            )
    return "".join(out)


@case(
    "zig_test_error_unions_clean",
    "zig test (PyPI ziglang)",
    clean=True,
    group=GROUP,
    decisive=["All 400 tests passed."],
)
def _zig(root: Path) -> bytes:
    env = _pip_tool(root, "ziglang==0.17.1")
    write(root, {"src/ledger.zig": _zig_tests()})
    cache = f"ZIG_GLOBAL_CACHE_DIR={root / 'zcache'} ZIG_LOCAL_CACHE_DIR={root / 'zlocal'}"
    return scrub(sh(f"{env} {cache} {PY} -m ziglang test src/ledger.zig", root), root)


# ---------------------------------------------------------------- Guile SRFI-64 (clean)


def _scm_file(a: int) -> str:
    area = WORDS[a]
    out = [f';; tests for the {area} module\n(test-group "{area}"\n']
    for i in range(18):
        kind = i % 3
        if kind == 0:
            out.append(
                f'  (test-equal "{area} error-message {400 + i}" "E{400 + i}"\n'
                f'    (string-append "E" (number->string {400 + i})))\n'
            )
        elif kind == 1:
            out.append(
                f'  (test-error "{area} raises error on malformed record {i}" #t\n'
                f'    (error "malformed record" "{area}" {i}))\n'
            )
        else:
            out.append(f'  (test-assert "{area} retry after failure {i} succeeds" (= (* {i} 2) {2 * i}))\n')
    out.append(")\n")
    return "".join(out)


@case(
    "guile_srfi64_log_clean",
    "guile (SRFI-64 runner, then cat of its log)",
    clean=True,
    group=GROUP,
    decisive=["# of expected passes      360"],
)
def _guile(root: Path) -> bytes:
    loads = "".join(f'(load "tests/{w}.scm")\n' for w in WORDS)
    write(
        root,
        {
            "run.scm": (
                "(use-modules (srfi srfi-64))\n"
                '(test-begin "shop")\n' + loads + "(define fails (test-runner-fail-count (test-runner-current)))\n"
                '(test-end "shop")\n'
                "(exit (zero? fails))\n"
            ),
            **{f"tests/{w}.scm": _scm_file(a) for a, w in enumerate(WORDS)},
        },
    )
    return scrub(sh("guile --no-auto-compile run.scm; st=$?; cat shop.log; exit $st", root), root)


# ---------------------------------------------------------------- clojure.test (clean)


def _clj_ns(area: str) -> str:
    out = [
        f"(ns shop.{area}-test\n  (:require [clojure.test :refer [deftest is testing]]))\n\n",
        "(def error-codes {400 :bad-request 404 :not-found 409 :conflict 503 :unavailable})\n",
        "(defn line-total [qty price] (* qty price))\n\n",
    ]
    for t in range(12):
        out.append(
            f"(deftest {area}-error-codes-{t}\n"
            f'  (println "{area}: checking error code table, batch {t} (0 errors so far)")\n'
            f'  (println "{area}: retry policy for batch {t}: 3 attempts, backoff 200ms, on-error=requeue")\n'
            f'  (println "{area}: exceptions table loaded, failed_count column present")\n'
            f'  (testing "error code {404} maps to not-found"\n'
            "    (is (= :not-found (error-codes 404))))\n"
            f'  (testing "a failed payment throws ex-info"\n'
            '    (is (thrown-with-msg? clojure.lang.ExceptionInfo #"payment failed"\n'
            f'          (throw (ex-info "payment failed: card declined" {{:order {t}}})))))\n'
            f"  (is (= {(t + 1) * 7} (line-total {t + 1} 7))))\n\n"
        )
    return "".join(out)


@case(
    "clojure_test_error_codes_clean",
    "clojure (clojure.test run-tests)",
    clean=True,
    group=GROUP,
    decisive=["Ran 240 tests containing 720 assertions.", "0 failures, 0 errors."],
)
def _clojure(root: Path) -> bytes:
    write(root, {f"test/shop/{w}_test.clj": _clj_ns(w) for w in WORDS})
    nses = " ".join(f"'shop.{w}-test" for w in WORDS)
    expr = (
        f"(require {nses}) "
        f"(let [r (clojure.test/run-tests {nses})] (System/exit (if (clojure.test/successful? r) 0 1)))"
    )
    return sh(f'clojure -cp test -e "{expr}"', root)
