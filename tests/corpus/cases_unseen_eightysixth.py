"""Held-out outputs (group ``unseen-86``): an eighty-sixth batch, smaller language toolchains as an agent runs them on
generated projects, all from Debian packages and offline: Lua (``lua5.4``, ``luacheck``, ``busted``), Tcl (``tclsh``
with tcltest suites), Nim (``nim c -r`` with ``std/unittest``), D (``gdc`` with ``-funittest``), Free Pascal (``fpc``
with many units) and GNU Guile (SRFI-64 test suites).

Failing runs: ``busted`` of 14 spec files whose modules log every step, one assertion failing in ``refunds_spec``; a
``lua5.4`` batch job over a retry queue that dies with a nil index and its traceback after hundreds of log lines;
``tclsh all.tcl`` with ``-verbose pe`` over 12 test files, one result mismatch in ``ledger.test``; a loop of
``nim c -r`` over 10 test programs where one has a type mismatch in the middle; ``make`` of 40 D modules then the
``-funittest`` binary, an assertion failing in ``tax.d``; ``fpc -vnhiw`` of a program with 26 units where ``invoice``
has an incompatible-types error; and ``guile`` SRFI-64 suites where one ``coupons`` test fails. Clean runs named
after errors, failures and retries: ``luacheck`` of 150 files (``failed_payments``, ``error_codes``, ``retry_queue``),
``tclsh all.tcl`` of suites ``error_codes``, ``exception_report`` and ``retry_queue``, ``nim c -r`` of a unittest
program whose tests are named after failed payments and errors, and ``fpc`` of units ``failed_payments``,
``error_codes`` and ``exception_report`` with notes and hints, then its report. Labels were written with each
scenario, before the engine saw the output. Needs Debian ``lua5.4``, ``lua-check``, ``lua-busted``, ``tcl8.6``,
``nim``, ``gdc``, ``make``, ``fp-compiler`` and ``guile-3.0``.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-86"

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "ledger", "invoice", "shipping", "catalog", "pricing",
    "coupons", "webhooks", "audit", "export", "session", "auth",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, times, addresses."""
    return substitute(
        scrub(out, root),
        (r"\d+\.\d+s; \d+\.\d+MiB peakmem", "1.000s; 50.000MiB peakmem"),
        (r": \d+\.\d+ seconds", ": 0.01 seconds"),
        (r"at \d+\.\d+ seconds", "at 0.01 seconds"),
        (r"(Tests (began|ended) at ).*$", r"\1Thu Jan 01 00:00:00 UTC 2026"),
        (r"0x[0-9a-f]{6,16}", "0x0000000000000000"),
        (r"\d+ lines compiled, \d+\.\d+ sec", "1000 lines compiled, 0.1 sec"),
        (r"/tmp/cc[A-Za-z0-9]{6}", "/tmp/ccabcdef"),
        (r"\[0x[0-9a-f]+\]", "[0x0]"),
    )


# ---------------------------------------------------------------- Lua


def _lua_module(name: str, n: int) -> str:
    funcs = []
    for i in range(n):
        funcs.append(
            f"function M.step_{i}(id, amount)\n"
            f'  log("{name}", "step_{i} id=" .. id .. " amount=" .. amount)\n'
            f"  return (amount * {i + 3}) % 997\n"
            "end\n"
        )
    return (
        f"-- {name}: part of the billing platform\n"
        "local M = {}\n\n"
        "local function log(area, msg)\n"
        '  print(string.format("[%-9s] %s", area, msg))\n'
        "end\n\n" + "\n".join(funcs) + "\nreturn M\n"
    )


def _lua_spec(name: str, n: int, broken: int = -1) -> str:
    its = []
    for i in range(n):
        expected = f"({i * 7 + 5} * {i + 3}) % 997"
        if i == broken:
            expected = f"({i * 7 + 5} * {i + 3}) % 997 + 1"
        its.append(
            f'  it("{name} step {i} keeps the amount in range", function()\n'
            f"    assert.are.equal({expected}, m.step_{i}({1000 + i}, {i * 7 + 5}))\n"
            "  end)\n"
        )
    return f'local m = require("src.{name}")\n\ndescribe("{name}", function()\n' + "\n".join(its) + "end)\n"


@case(
    "u86_busted_refunds_failure",
    "busted",
    clean=False,
    group=GROUP,
    decisive=["spec/refunds_spec.lua @ 48", "refunds step 11 keeps the amount in range", "1 failure / 0 errors"],
)
def _busted_failure(root: Path) -> bytes:
    names = _AREAS[:14]
    for name in names:
        write(root, {f"src/{name}.lua": _lua_module(name, 18)})
        write(root, {f"spec/{name}_spec.lua": _lua_spec(name, 18, broken=11 if name == "refunds" else -1)})
    return _settle(sh("busted --no-auto-insulate -o utfTerminal spec/*_spec.lua", root), root)


def _clean_lua(name: str) -> str:
    body = []
    for i in range(12):
        body.append(
            f"function M.{name}_{i}(entries)\n"
            "  local total = 0\n"
            "  for _, entry in ipairs(entries) do\n"
            f'    if entry.status == "failed" then total = total + entry.amount * {i + 1} end\n'
            "  end\n"
            "  return total\n"
            "end\n"
        )
    return f"-- {name}: error and retry bookkeeping\nlocal M = {{}}\n\n" + "\n".join(body) + "\nreturn M\n"


@case(
    "u86_luacheck_clean_failed_payments",
    "luacheck",
    clean=True,
    group=GROUP,
    decisive=["Total: 0 warnings / 0 errors in 150 files"],
)
def _luacheck_clean(root: Path) -> bytes:
    stems = ["failed_payments", "error_codes", "retry_queue", "exception_report", "failed_webhooks", "errors"]
    for i in range(150):
        name = f"{stems[i % len(stems)]}_{_AREAS[i % len(_AREAS)]}_{i:02d}"
        write(root, {f"src/{name}.lua": _clean_lua(name)})
    write(root, {".luacheckrc": 'std = "lua54"\n'})
    return _settle(sh("luacheck --no-color --codes src/*.lua", root), root)


@case(
    "u86_lua_retry_queue_nil_index",
    "lua",
    clean=False,
    group=GROUP,
    decisive=["attempt to index a nil value (field 'payload')", "retry_queue.lua:31: in function 'retry_queue.drain'"],
)
def _lua_runtime_error(root: Path) -> bytes:
    write(
        root,
        {
            "retry_queue.lua": """
                -- retry_queue: re-sends failed payments with a backoff
                local M = {}

                local function log(level, msg)
                  print(string.format("%-5s retry_queue %s", level, msg))
                end

                function M.build(n)
                  local jobs = {}
                  for i = 1, n do
                    local payload = { amount = i * 13 % 500, currency = "EUR" }
                    local job = { id = 7000 + i, attempt = i % 4, payload = payload }
                    if i == 433 then job.payload = nil end
                    jobs[#jobs + 1] = job
                  end
                  return jobs
                end

                local function backoff(attempt)
                  return 2 ^ attempt * 100
                end

                function M.drain(jobs, sink)
                  local sent, requeued = 0, 0
                  for _, job in ipairs(jobs) do
                    if job.attempt >= 3 then
                      log("WARN", "job " .. job.id .. " failed 3 times, moving to dead letters")
                      requeued = requeued + 1
                    else
                      log("INFO", "job " .. job.id .. " attempt " .. job.attempt .. " backoff " .. backoff(job.attempt))
                      local amount = job.payload.amount
                      sink(job.id, amount)
                      sent = sent + 1
                    end
                  end
                  return sent, requeued
                end

                return M
            """,
            "main.lua": """
                package.path = "./?.lua;" .. package.path
                local queue = require("retry_queue")
                local totals = {}
                local function sink(id, amount)
                  totals[#totals + 1] = amount
                  print(string.format("DEBUG sink accepted job %d amount %d.00 EUR", id, amount))
                end
                local jobs = queue.build(600)
                print("INFO  main loaded " .. #jobs .. " jobs from failed_payments")
                local sent, requeued = queue.drain(jobs, sink)
                print("INFO  main sent " .. sent .. " requeued " .. requeued)
            """,
        },
    )
    return _settle(sh("lua5.4 main.lua", root), root)


# ---------------------------------------------------------------- Tcl


def _tcl_suite(name: str, n: int, broken: int = -1) -> str:
    tests = []
    for i in range(n):
        expected = i * 11 % 97
        if i == broken:
            expected += 1
        tests.append(
            f"test {name}-{i // 5 + 1}.{i % 5 + 1} {{{name} rule {i} rounds to cents}} -body {{\n"
            f"    expr {{({i} * 11) % 97}}\n"
            f"}} -result {expected}\n"
        )
    return "package require tcltest 2.5\nnamespace import ::tcltest::*\n\n" + "\n".join(tests) + "\ncleanupTests\n"


_ALL_TCL = """
    package require tcltest 2.5
    namespace import ::tcltest::*
    configure -verbose {pass error skip} -testdir [file dirname [file normalize [info script]]] {*}$argv
    runAllTests
"""


@case(
    "u86_tcltest_ledger_failure",
    "tcltest",
    clean=False,
    group=GROUP,
    decisive=["==== ledger-5.3 ledger rule 22 rounds to cents FAILED", "Files with failing tests: ledger.test"],
)
def _tcltest_failure(root: Path) -> bytes:
    for name in _AREAS[:12]:
        write(root, {f"tests/{name}.test": _tcl_suite(name, 40, broken=22 if name == "ledger" else -1)})
    write(root, {"tests/all.tcl": _ALL_TCL})
    return _settle(sh("tclsh tests/all.tcl", root), root)


@case(
    "u86_tcltest_clean_error_codes",
    "tcltest",
    clean=True,
    group=GROUP,
    decisive=["Total\t360\tPassed\t360\tSkipped\t0\tFailed\t0"],
)
def _tcltest_clean(root: Path) -> bytes:
    for name in ["error_codes", "exception_report", "retry_queue", "failed_payments", "errors", "failed_webhooks"]:
        write(root, {f"tests/{name}.test": _tcl_suite(name, 60)})
    write(root, {"tests/all.tcl": _ALL_TCL})
    return _settle(sh("tclsh tests/all.tcl", root), root)


# ---------------------------------------------------------------- Nim


def _nim_test(name: str, n: int, broken: bool = False) -> str:
    tests = []
    for i in range(n):
        tests.append(f'  test "{name} case {i}":\n    check cents({i * 3 + 1}) == {(i * 3 + 1) * 100}\n')
    bad = '\nlet retries: int = "three"\n' if broken else ""
    return (
        "import std/unittest\n\n"
        "proc cents(units: int): int = units * 100\n" + bad + f'\nsuite "{name}":\n' + "".join(tests)
    )


@case(
    "u86_nim_loop_type_mismatch",
    "nim",
    clean=False,
    group=GROUP,
    decisive=[
        "t_shipping.nim(5, 20) Error: type mismatch: got 'string' for '\"three\"' but expected 'int'",
        "FAILED: tests/t_shipping.nim",
    ],
)
def _nim_loop(root: Path) -> bytes:
    names = ["billing", "orders", "cart", "tax", "refunds", "shipping", "ledger", "invoice", "catalog", "pricing"]
    for name in names:
        write(root, {f"tests/t_{name}.nim": _nim_test(name, 12, broken=name == "shipping")})
    script = (
        'status=0; for t in tests/t_*.nim; do echo "== $t"; '
        'nim c -r --hints:on --nimcache:nimcache/$(basename $t .nim) $t || { echo "FAILED: $t"; status=1; }; '
        "done; exit $status"
    )
    return _settle(sh(script, root, timeout=300), root)


@case(
    "u86_nim_unittest_clean_failed_payments",
    "nim",
    clean=True,
    group=GROUP,
    decisive=["[SuccessX]", "[OK] failed_payments case 0"],
)
def _nim_clean(root: Path) -> bytes:
    parts = ["import std/unittest\n\nproc cents(units: int): int = units * 100\n"]
    for name in ["failed_payments", "error_codes", "retry_queue", "exception_report", "errors", "failed_webhooks"]:
        parts.append(_nim_test(name, 30).split("\n\nproc cents(units: int): int = units * 100\n", 1)[1])
    write(root, {"tests/test_all.nim": "".join(parts)})
    return _settle(sh("nim c -r --nimcache:nimcache tests/test_all.nim", root, timeout=300), root)


# ---------------------------------------------------------------- D


def _d_module(name: str, broken: bool = False) -> str:
    checks = []
    for i in range(6):
        expected = (i * 9 + 4) * 3 % 101
        if broken and i == 4:
            expected += 1
        checks.append(f"    assert(levy({i * 9 + 4}) == {expected});\n")
    return (
        f"module billing.{name};\n\n"
        "long levy(long cents)\n{\n    return cents * 3 % 101;\n}\n\n"
        "unittest\n{\n" + "".join(checks) + "}\n"
    )


@case(
    "u86_gdc_unittest_tax_failure",
    "gdc",
    clean=False,
    group=GROUP,
    decisive=["core.exception.AssertError@source/billing/tax.d(14): unittest failure", "1/40 modules FAILED unittests"],
)
def _gdc_unittest(root: Path) -> bytes:
    areas = [a for a in _AREAS if a != "export"] + ["exports", "errors", "retry", "exceptions", "search", "disputes"]
    names = areas + [f"{a}_store" for a in areas[:12]] + [f"{a}_api" for a in areas[:7]]
    objs = ["build/app.o"]
    app = 'module app;\n\nimport std.stdio;\n\nvoid main()\n{\n    writeln("billing ready");\n}\n'
    write(root, {"source/app.d": app})
    for name in names:
        write(root, {f"source/billing/{name}.d": _d_module(name, broken=name == "tax")})
        objs.append(f"build/{name}.o")
    rules = "".join(
        f"build/{n}.o: source/billing/{n}.d\n\t@mkdir -p build\n"
        f"\tgdc -c -g -O0 -Wall -Wextra -Wdeprecated -funittest -fdebug -fversion=Corpus -fversion=Billing_Strict"
        " -Isource -Ivendor/money/source -Ivendor/csv/source -MMD -MF $(basename $@).dep -o $@ $<\n\n"
        for n in names
    )
    rules += "build/app.o: source/app.d\n\t@mkdir -p build\n\tgdc -c -g -funittest -Isource -o $@ $<\n\n"
    write(
        root,
        {
            "Makefile": f"OBJS = {' '.join(objs)}\n\nall: test\n\n"
            "billing-tests: $(OBJS)\n\tgdc -g -funittest -o $@ $(OBJS)\n\n"
            "test: billing-tests\n\t./billing-tests\n\n" + rules
        },
    )
    return _settle(sh("make -j1", root, timeout=300), root)


# ---------------------------------------------------------------- Free Pascal


def _pas_unit(name: str, uses: list[str], broken: bool = False) -> str:
    uses_clause = f"uses {', '.join(uses)};\n\n" if uses else ""
    bad = "  Result := 'cents';\n" if broken else ""
    calls = "".join(f"  Result := Result + {u}.Weight(Cents);\n" for u in uses)
    return (
        f"unit {name};\n\n{{$mode objfpc}}{{$H+}}\n\ninterface\n\n{uses_clause}"
        "function Weight(Cents: LongInt): LongInt;\n\nimplementation\n\n"
        "function Weight(Cents: LongInt): LongInt;\nvar\n  Unused: LongInt;\nbegin\n"
        "  Result := Cents mod 97;\n" + calls + bad + "end;\n\nend.\n"
    )


@case(
    "u86_fpc_invoice_incompatible_types",
    "fpc",
    clean=False,
    group=GROUP,
    decisive=['invoice.pas(20,13) Error: Incompatible types: got "Constant String" expected "LongInt"', "Fatal:"],
)
def _fpc_error(root: Path) -> bytes:
    names = [
        *_AREAS, "errors", "retry", "exceptions", "search", "payouts", "disputes", "wallets", "vouchers",
        "reports", "settlement",
    ]  # fmt: skip
    for i, name in enumerate(names):
        write(root, {f"units/{name}.pas": _pas_unit(name, names[max(0, i - 2) : i], broken=name == "invoice")})
    uses = ", ".join(names)
    main = f"program platform;\n\nuses {uses};\n\nbegin\n  WriteLn(settlement.Weight(42));\nend.\n"
    write(root, {"platform.pas": main})
    return _settle(sh("mkdir -p build && fpc -B -vnhiwt -Fuunits -FUbuild platform.pas", root), root)


@case(
    "u86_fpc_clean_exception_report",
    "fpc",
    clean=True,
    group=GROUP,
    decisive=["Linking exception_report", "failed payments total: "],
)
def _fpc_clean(root: Path) -> bytes:
    names = ["failed_payments", "error_codes", "retry_queue", "exception_log", "errors", "failed_webhooks", "retries"]
    names += [f"{a}_errors" for a in _AREAS[:12]]
    for i, name in enumerate(names):
        write(root, {f"units/{name}.pas": _pas_unit(name, names[max(0, i - 2) : i])})
    uses = ", ".join(names)
    write(
        root,
        {
            "exception_report.pas": f"program exception_report;\n\nuses {uses};\n\nvar\n  I: Integer;\n\nbegin\n"
            "  for I := 1 to 40 do\n"
            "    WriteLn('failed payment ', I, ' retried, error code E', I mod 7, ': ', failed_payments.Weight(I));\n"
            "  WriteLn('failed payments total: ', retries.Weight(4000));\nend.\n"
        },
    )
    build = "mkdir -p build && fpc -B -vnhiw -Fuunits -FUbuild exception_report.pas"
    return _settle(sh(f"{build} && ./exception_report", root), root)


# ---------------------------------------------------------------- Guile


def _guile_suite(name: str, n: int, broken: int = -1) -> str:
    tests = []
    for i in range(n):
        expected = (i * 5 + 2) * 100
        if i == broken:
            expected += 5
        tests.append(f'(test-equal "{name} amount {i} in cents" {expected} (to-cents {i * 5 + 2}))\n')
    return f'(test-begin "{name}")\n' + "".join(tests) + f'(test-end "{name}")\n'


@case(
    "u86_guile_srfi64_coupons_failure",
    "guile",
    clean=False,
    group=GROUP,
    decisive=["FAIL coupons amount 17 in cents", "# of unexpected failures  1"],
)
def _guile_failure(root: Path) -> bytes:
    suites = []
    for name in _AREAS[:14]:
        write(root, {f"tests/{name}.scm": _guile_suite(name, 30, broken=17 if name == "coupons" else -1)})
        suites.append(f'(load "tests/{name}.scm")\n')
    write(
        root,
        {
            "run-tests.scm": "(use-modules (srfi srfi-64))\n(define (to-cents units) (* units 100))\n"
            "(define runner (test-runner-simple))\n(define simple-end (test-runner-on-test-end runner))\n"
            "(test-runner-on-test-end! runner (lambda (r) (simple-end r)\n"
            '  (format #t "~a: ~a~%"\n'
            "    (string-upcase (symbol->string (test-result-kind r))) (test-runner-test-name r))))\n"
            '(test-runner-current runner)\n(test-begin "billing")\n' + "".join(suites) + '(test-end "billing")\n'
        },
    )
    return _settle(sh("GUILE_AUTO_COMPILE=0 guile --no-auto-compile run-tests.scm", root), root)
