"""Held-out outputs (group ``unseen-85``): an eighty-fifth batch, code-coverage tools as an agent runs them after the
tests of generated projects, all offline: coverage.py, pytest-cov, gcovr, lcov with genhtml, ``go test -cover`` with
``go tool cover -func``, and c8 over ``node --test``.

Failing runs: ``coverage run -m pytest -v`` then ``coverage report -m --fail-under=90`` over 120 modules, ``coverage run
-m pytest -q`` with one failing refunds test followed by ``coverage xml -o -`` (the failure above a long XML report),
``pytest --cov --cov-report=term-missing --cov-fail-under=85`` of 120 modules, ``make test`` of a C project of 80 files
built with ``--coverage`` then ``gcovr --fail-under-line 85`` (the threshold error after the table and summary),
``lcov --capture --initial`` then ``lcov --capture`` of 120 objects after one was rebuilt without rerunning the tests (a
stale ``.gcda``: ``stamp mismatch with notes file``), ``go test -v -cover -coverprofile`` of 14 packages with a failing
``refunds`` test followed by ``go tool cover -func``, and ``c8 --check-coverage --lines 90 node --test`` of 30 modules.
Clean runs named after errors, failures, retries and exceptions (``failed_payments``, ``error_handler``,
``retry_queue``, ``exception_report``): ``coverage report --skip-covered --fail-under=70``, ``coverage json -o -
--pretty-print``, ``pytest --cov --cov-report=term-missing:skip-covered --cov-fail-under=70``, ``lcov --capture`` and
``genhtml``, and ``go test -cover`` with ``go tool cover -func`` passing. Labels were written with each scenario, before
the engine saw the output. Needs coverage 7.18.0, pytest 9.2.0, pytest-cov 7.1.0 and gcovr 8.8 from PyPI (installed
once into ``/tmp/offloader-corpus-venvs/u85-cov``), gcc, make and lcov (Debian ``gcc``, ``make``, ``lcov``), Go
(Debian ``golang-go``) and c8 12.0.0 from the npm registry (installed once under ``/tmp/u85-node``, npm cache
``/tmp/u85-npm-cache``) with Node.js 20.
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-85"

_NODE_TOOLS = Path("/tmp/u85-node")


def _venv() -> Path:
    return make_venv(VENVS / "u85-cov", "coverage==7.18.0 pytest==9.2.0 pytest-cov==7.1.0 gcovr==8.8")


def _pytest_rule(m: re.Match[bytes]) -> bytes:
    """pytest's closing rule with the duration written as 1.00s, centred again as pytest centres it."""
    title = m.group(1) + b" in 1.00s"
    n = max((80 - len(title) - 2) // 2, 1)
    line = b"=" * n + b" " + title + b" " + b"=" * n
    return line + b"=" if len(line) + 1 <= 80 else line


def _sorted_runs(out: bytes, prefix: bytes) -> bytes:
    """``out`` with each run of consecutive lines starting with ``prefix`` sorted (genhtml lists the files it
    processes in an order that differs between two runs)."""
    lines = out.split(b"\n")
    i = 0
    while i < len(lines):
        j = i
        while j < len(lines) and lines[j].startswith(prefix):
            j += 1
        lines[i:j] = sorted(lines[i:j])
        i = max(j, i + 1)
    return b"\n".join(lines)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, timestamps, genhtml's order."""
    out = _sorted_runs(out, b"Processing file ")
    out = re.sub(rb"^=+ (.+) in \d+\.\d+s =+$", _pytest_rule, out, flags=re.M)
    return substitute(
        scrub(out, root),
        (r" in \d+\.\d+s\b", " in 1.00s"),
        (r"timestamp=\"\d+\"", 'timestamp="1700000000000"'),
        (r"\"timestamp\": \"[^\"]+\"", '"timestamp": "2026-01-01T00:00:00.000000"'),
        (r"\t\d+\.\d+s\t", "\t0.010s\t"),
        (r"\t\d+\.\d+s$", "\t0.010s"),
        (r"\(\d+\.\d+s\)$", "(0.00s)"),
        (r"duration_ms:? \d+(\.\d+)?", "duration_ms 1.0"),
        (r"^# duration_ms .*$", "# duration_ms 1.0"),
        (r"^Subroutine .* redefined at .*\n", ""),
        (r" at 0x[0-9a-f]+>", " at 0x7f0000000000>"),
    )


# ---------------------------------------------------------------- a Python project


_PARTS = ["service", "repository", "handler", "validator", "report", "client"]
_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
]  # fmt: skip


def _py_module(mod: str, nfuncs: int) -> str:
    funcs = []
    for i in range(nfuncs):
        funcs.append(
            f"def {mod}_step{i}(amount, flag=False):\n"
            f'    """Step {i} of the {mod.replace("_", " ")} flow."""\n'
            "    if amount < 0:\n"
            f'        raise ValueError("negative amount in {mod}")\n'
            f"    total = amount * {i + 2}\n"
            "    if flag:\n"
            "        total += 1\n"
            f"    if total > {1000 * (i + 1)}:\n"
            "        total = total // 2\n"
            "    return total\n"
        )
    return f'"""{mod.replace("_", " ").capitalize()}: part of the shop platform."""\n\n\n' + "\n\n".join(funcs)


def _py_project(root: Path, modules: list[str], tested: dict[str, int], *, nfuncs: int = 6, bug: str = "") -> None:
    """A package ``shop`` of ``modules``; the tests call the first ``tested[mod]`` functions of each (the rest are
    never run); ``bug`` is a test whose expected value is wrong."""
    files = {"shop/__init__.py": '"""The shop platform."""\n', "tests/__init__.py": ""}
    for mod in modules:
        files[f"shop/{mod}.py"] = _py_module(mod, nfuncs)
        tests = [f"from shop import {mod}\n"]
        for i in range(tested[mod]):
            name = f"test_{mod}_step{i}"
            base = 10 * (i + 2)
            expected = base + (1 if name == bug else 0)
            tests.append(f"\ndef {name}():\n    assert {mod}.{mod}_step{i}(10) == {expected}\n")
            tests.append(f"\ndef {name}_flagged():\n    assert {mod}.{mod}_step{i}(10, flag=True) == {base + 1}\n")
        files[f"tests/test_{mod}.py"] = "".join(tests)
    files["pyproject.toml"] = '[tool.pytest.ini_options]\naddopts = "-p no:cacheprovider"\n'
    write(root, files)


def _all_modules() -> list[str]:
    return [f"{area}_{part}" for area in _AREAS for part in _PARTS]


def _py(root: Path, cmd: str) -> bytes:
    bin_ = _venv() / "bin"
    return _settle(sh(f"export PATH={bin_}:$PATH PYTHONDONTWRITEBYTECODE=1; {cmd}", root), root)


@case(
    "u85_coverage_report_fail_under",
    "coverage.py",
    clean=False,
    group=GROUP,
    decisive=["is less than fail-under=90", "TOTAL "],
)
def _coverage_fail_under(root: Path) -> bytes:
    mods = _all_modules()
    _py_project(root, mods, {m: 2 + (i * 7) % 5 for i, m in enumerate(mods)})
    return _py(root, "coverage run --source=shop -m pytest -v && coverage report -m --fail-under=90")


_CLEAN_MODULES = [
    "failed_payments", "error_handler", "retry_queue", "exception_report", "failed_webhooks", "error_codes",
    "retry_policy", "exception_mapper", "dead_letter_errors", "payment_failures", "refund_retry", "audit_errors",
    "timeout_exceptions", "failed_logins", "error_budget", "retry_scheduler", "invoice_errors", "failed_exports",
    "exception_notifier", "error_metrics", "retry_backoff", "failed_shipments", "ledger_exceptions", "error_pages",
]  # fmt: skip


@case(
    "u85_coverage_skip_covered_clean",
    "coverage.py",
    clean=True,
    group=GROUP,
    decisive=["skipped due to complete coverage", " passed in 1.00s"],
)
def _coverage_skip_covered(root: Path) -> bytes:
    mods = [f"{m}_{p}" for m in _CLEAN_MODULES for p in ("core", "api", "jobs")]
    _py_project(root, mods, {m: 4 if i % 4 else 3 for i, m in enumerate(mods)}, nfuncs=4)
    cmd = "coverage run --source=shop -m pytest -v && coverage report --skip-covered --fail-under=70"
    return _py(root, cmd)


@case(
    "u85_coverage_xml_test_failure",
    "coverage.py",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_refunds_handler.py::test_refunds_handler_step1",
        "assert 30 == 31",
        "1 failed, ",
    ],
)
def _coverage_xml(root: Path) -> bytes:
    mods = _all_modules()
    _py_project(root, mods, {m: 1 + i % 4 for i, m in enumerate(mods)}, bug="test_refunds_handler_step1")
    return _py(root, "coverage run --source=shop -m pytest -q; coverage xml -o -")


@case(
    "u85_coverage_json_clean",
    "coverage.py",
    clean=True,
    group=GROUP,
    decisive=[" passed in 1.00s", '"totals": {'],
)
def _coverage_json(root: Path) -> bytes:
    mods = [f"{m}_{p}" for m in _CLEAN_MODULES for p in ("core", "api")]
    _py_project(root, mods, {m: 4 if i % 3 else 3 for i, m in enumerate(mods)}, nfuncs=4)
    cmd = (
        "coverage run --source=shop -m pytest -q && coverage report --fail-under=70 --format=total"
        " && coverage json -o - --pretty-print"
    )
    return _py(root, cmd)


@case(
    "u85_pytest_cov_fail_under",
    "pytest-cov",
    clean=False,
    group=GROUP,
    decisive=["FAIL Required test coverage of 85% not reached"],
)
def _pytest_cov_fail(root: Path) -> bytes:
    mods = _all_modules()
    _py_project(root, mods, {m: 6 if i % 3 else 2 for i, m in enumerate(mods)})
    return _py(root, "python -m pytest -v --cov=shop --cov-report=term-missing --cov-fail-under=85")


@case(
    "u85_pytest_cov_clean",
    "pytest-cov",
    clean=True,
    group=GROUP,
    decisive=["Required test coverage of 70% reached"],
)
def _pytest_cov_clean(root: Path) -> bytes:
    mods = [f"{m}_{p}" for m in _CLEAN_MODULES for p in ("core", "api", "jobs", "tasks")]
    _py_project(root, mods, {m: 4 if i % 5 else 3 for i, m in enumerate(mods)}, nfuncs=4)
    cmd = "python -m pytest -v --cov=shop --cov-report=term-missing:skip-covered --cov-fail-under=70"
    return _py(root, cmd)


# ---------------------------------------------------------------- a C project built with --coverage

#: lcov and genhtml are Perl: a fixed hash seed keeps the order of the files they list the same between runs.
_PERL = "export PERL_HASH_SEED=0 PERL_PERTURB_KEYS=0; "


def _c_project(root: Path, names: list[str], tested: dict[str, int]) -> None:
    files = {}
    decls = []
    calls = []
    for name in names:
        body = [f"/* {name}.c: part of the shop platform. */\n#include <stdio.h>\n"]
        for i in range(4):
            fn = f"{name}_step{i}"
            decls.append(f"int {fn}(int amount, int flag);")
            body.append(
                f"\nint {fn}(int amount, int flag)\n{{\n    int total;\n    if (amount < 0) {{\n"
                f'        fprintf(stderr, "negative amount in {name}\\n");\n        return -1;\n    }}\n'
                f"    total = amount * {i + 2};\n    if (flag)\n        total += 1;\n    return total;\n}}\n"
            )
            if i < tested[name]:
                calls.append(
                    f'    check({fn}(10, 0) == {10 * (i + 2)}, "{fn}");\n'
                    f'    check({fn}(10, 1) == {10 * (i + 2) + 1}, "{fn} flagged");\n'
                )
        files[f"src/{name}.c"] = "".join(body)
    files["tests/run_tests.c"] = (
        "#include <stdio.h>\n#include <stdlib.h>\n"
        + "\n".join(decls)
        + "\n\nstatic int failures;\n\nstatic void check(int ok, const char *name)\n{\n"
        '    printf("%s - %s\\n", ok ? "ok" : "not ok", name);\n    if (!ok)\n        failures++;\n}\n\n'
        "int main(void)\n{\n" + "".join(calls) + '    printf("%d failures\\n", failures);\n'
        "    return failures != 0;\n}\n"
    )
    objs = " ".join(f"build/{n}.o" for n in names)
    files["Makefile"] = (
        "CFLAGS = -O0 -g --coverage -Wall\n\n"
        f"OBJS = {objs} build/run_tests.o\n\n"
        "build/run_tests: $(OBJS)\n\tgcc --coverage -o $@ $(OBJS)\n\n"
        "build/%.o: src/%.c\n\t@mkdir -p build\n\tgcc $(CFLAGS) -c -o $@ $<\n\n"
        "build/run_tests.o: tests/run_tests.c\n\t@mkdir -p build\n\tgcc $(CFLAGS) -c -o $@ $<\n\n"
        "test: build/run_tests\n\t./build/run_tests\n\n.PHONY: test\n"
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _c_names(parts: list[str]) -> list[str]:
    return [f"{area}_{part}" for area in _AREAS for part in parts]


@case(
    "u85_gcovr_fail_under_line",
    "gcovr",
    clean=False,
    group=GROUP,
    decisive=["Failed minimum line coverage (got", "src/refunds_ledger.c"],
)
def _gcovr_fail(root: Path) -> bytes:
    names = _c_names(["engine", "ledger", "queue", "store"])
    tested = {n: (3 if i % 6 else 4) for i, n in enumerate(names)}
    tested["refunds_ledger"] = 0
    _c_project(root, names, tested)
    gcovr = _venv() / "bin" / "gcovr"
    cmd = f"make -j1 test && {gcovr} -r . --fail-under-line 85 --txt-summary"
    return _settle(sh(cmd, root), root)


@case(
    "u85_lcov_stale_gcda",
    "lcov",
    clean=False,
    group=GROUP,
    decisive=["shipping_queue.gcda:stamp mismatch with notes file", "geninfo: ERROR: GCOV failed for"],
)
def _lcov_stale(root: Path) -> bytes:
    names = _c_names(["engine", "ledger", "queue", "store", "api", "jobs"])
    _c_project(root, names, {n: 3 for n in names})
    sh("make -j1 test", root)
    src = root / "src" / "shipping_queue.c"
    src.write_text(src.read_text() + "\nint shipping_queue_extra(int x)\n{\n    return x + 1;\n}\n")
    cmd = _PERL + (
        "make -j1 build/run_tests && lcov --capture --initial --directory build --output-file base.info"
        " && lcov --capture --directory build --output-file test.info"
        " && lcov -a base.info -a test.info -o coverage.info && genhtml coverage.info -o html"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u85_lcov_genhtml_clean",
    "lcov",
    clean=True,
    group=GROUP,
    decisive=["Overall coverage rate:", "Finished .info-file creation"],
)
def _lcov_clean(root: Path) -> bytes:
    names = [f"{m}_{p}" for m in _CLEAN_MODULES for p in ("core", "jobs")]
    _c_project(root, names, {n: 4 if i % 5 else 3 for i, n in enumerate(names)})
    cmd = _PERL + (
        "make -j1 test && lcov --capture --directory build --output-file coverage.info"
        " && genhtml coverage.info -o html && lcov --list coverage.info"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- Go


def _go_project(root: Path, pkgs: list[str], *, bug: str = "") -> None:
    files = {"go.mod": "module example.com/shop\n\ngo 1.19\n"}
    for p, pkg in enumerate(pkgs):
        body = [f'// Package {pkg} is part of the shop platform.\npackage {pkg}\n\nimport "errors"\n']
        tests = [f'package {pkg}\n\nimport "testing"\n']
        for i in range(8):
            fn = f"Step{i}"
            body.append(
                f"\n// {fn} is step {i} of the {pkg} flow.\nfunc {fn}(amount int, flag bool) (int, error) {{\n"
                f'\tif amount < 0 {{\n\t\treturn 0, errors.New("negative amount in {pkg}")\n\t}}\n'
                f"\ttotal := amount * {i + 2}\n\tif flag {{\n\t\ttotal++\n\t}}\n\treturn total, nil\n}}\n"
            )
            if i < 3 + (p + i) % 5:
                want = 10 * (i + 2) + (1 if f"{pkg}.{fn}" == bug else 0)
                for case_ in range(3):
                    tests.append(
                        f"\nfunc Test{fn}Case{case_}(t *testing.T) {{\n\tgot, err := {fn}(10, false)\n"
                        f'\tif err != nil {{\n\t\tt.Fatalf("unexpected error: %v", err)\n\t}}\n'
                        f'\tif got != {want} {{\n\t\tt.Errorf("{fn}(10) = %d, want {want}", got)\n\t}}\n}}\n'
                    )
        files[f"{pkg}/{pkg}.go"] = "".join(body)
        files[f"{pkg}/{pkg}_test.go"] = "".join(tests)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _go(root: Path, cmd: str) -> bytes:
    env = f"GOCACHE={root / 'gocache'} GOPATH={root / 'gopath'} GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local"
    return _settle(sh(f"{env} {cmd}", root), root)


@case(
    "u85_go_cover_test_failure",
    "go test -cover",
    clean=False,
    group=GROUP,
    decisive=[
        "--- FAIL: TestStep2Case0",
        "refunds_test.go:71: Step2(10) = 40, want 41",
        "FAIL\texample.com/shop/refunds",
    ],
)
def _go_fail(root: Path) -> bytes:
    pkgs = ["audit", "billing", "cart", "catalog", "coupons", "invoice", "ledger", "orders", "pricing", "refunds"]
    pkgs += ["search", "session", "shipping", "webhooks"]
    _go_project(root, pkgs, bug="refunds.Step2")
    return _go(root, "go test -v -cover -coverprofile=cover.out ./... ; go tool cover -func=cover.out")


@case(
    "u85_go_cover_clean",
    "go test -cover",
    clean=True,
    group=GROUP,
    decisive=["total:\t", "ok  \texample.com/shop/failedpayments"],
)
def _go_clean(root: Path) -> bytes:
    pkgs = ["errorhandler", "exceptionreport", "failedjobs", "failedpayments", "retryqueue", "retrypolicy"]
    pkgs += ["errorcodes", "deadletter", "exceptionmapper", "failedlogins"]
    _go_project(root, pkgs)
    return _go(root, "go test -cover -coverprofile=cover.out ./... && go tool cover -func=cover.out")


# ---------------------------------------------------------------- Node: c8


def _c8() -> str:
    if not (_NODE_TOOLS / "node_modules" / ".bin" / "c8").exists():
        _NODE_TOOLS.mkdir(parents=True, exist_ok=True)
        sh("npm install --cache /tmp/u85-npm-cache --no-audit --no-fund c8@12.0.0", _NODE_TOOLS)
    return str(_NODE_TOOLS / "node_modules" / ".bin" / "c8")


@case(
    "u85_c8_check_coverage",
    "c8",
    clean=False,
    group=GROUP,
    decisive=["ERROR: Coverage for lines (", "does not meet global threshold (90%)"],
)
def _c8_fail(root: Path) -> bytes:
    files = {"package.json": '{"name": "shop", "version": "1.0.0", "private": true}\n'}
    mods = [f"{a}_{p}" for a in _AREAS[:15] for p in ("service", "client")]
    for k, mod in enumerate(mods):
        fns = []
        for i in range(5):
            fns.append(
                f"function step{i}(amount, flag = false) {{\n  if (amount < 0) {{\n"
                f"    throw new Error('negative amount in {mod}');\n  }}\n  let total = amount * {i + 2};\n"
                "  if (flag) {\n    total += 1;\n  }\n  return total;\n}\n"
            )
        exports = ", ".join(f"step{i}" for i in range(5))
        files[f"src/{mod}.js"] = f"'use strict';\n// {mod}: part of the shop platform.\n\n" + "\n".join(fns)
        files[f"src/{mod}.js"] += f"\nmodule.exports = {{ {exports} }};\n"
        tests = ["'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\n"]
        tests.append(f"const m = require('../src/{mod}.js');\n")
        for i in range(1 + k % 4):
            tests.append(
                f"\ntest('{mod} step{i}', () => {{\n  assert.strictEqual(m.step{i}(10), {10 * (i + 2)});\n}});\n"
            )
        files[f"test/{mod}.test.js"] = "".join(tests)
    write(root, files)
    cmd = f"{_c8()} --check-coverage --lines 90 --reporter=text node --test --test-reporter=tap test/"
    return _settle(sh(cmd, root), root)
