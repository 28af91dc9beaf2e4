"""Held-out outputs (group ``unseen-61``): a sixty-first batch, the machine-readable reports an agent reads after a
CI-style run: JUnit XML (pytest's ``--junitxml`` read back with ``cat`` as the one line pytest writes, or through
``xmllint --format``; Node's ``--test-reporter=junit``), TAP (``prove -v``, Node's ``--test-reporter=tap``),
GitHub Actions workflow commands (``ruff check --output-format=github`` and pytest-github-actions-annotate-failures
with ``GITHUB_ACTIONS=true``), TeamCity service messages (the teamcity-messages pytest plugin), a Cobertura report
from coverage.py read back with ``cat``, SARIF (ESLint with ``@microsoft/eslint-formatter-sarif``) and checkstyle
XML (ESLint's ``-f checkstyle`` through ``xmllint --format``).

Failing runs: ``cat`` of the JUnit XML of 491 pytest cases (one line but for the failure's text) where
``test_prorate_refunds[75-1]`` fails on a rounding assertion, a GitHub Actions style job (grouped steps: pytest -v
of half the suites, ``ruff check --output-format=github`` with one undefined name in ``src/shop/shipping.py``, pytest
-v of the other half, then ``compileall``), ``GITHUB_ACTIONS=true pytest -v`` of 490 cases where the annotate plugin
writes ``::error file=tests/test_invoice.py,...`` in the middle, ``pytest --teamcity`` of 491 cases where one ledger
case raises ``KeyError: 'GBX'``, ``prove -v --merge`` of 24 TAP files where one assertion of
``t/13_ledger_retry.t`` fails, ``node --test --test-reporter=junit`` of 28 files (392 cases) where a coupon case
fails a deep equality, and ``eslint -f checkstyle | xmllint --format -`` of 144 files with hundreds of warnings and
one ``no-undef`` error. Clean runs named after errors, retries and failures: ``pytest -q --junitxml`` then
``xmllint --format`` of suites ``test_errors``, ``test_retry``, ``test_failed_jobs`` and ``test_exceptions`` (with
skips), ``pytest --teamcity`` of the same suites printing ``retry attempt ... after error`` lines (TeamCity's
``testStdOut``), ``coverage run -m pytest`` then ``coverage xml`` and ``cat`` of the Cobertura report over modules
named after the business words, ``node --test --test-reporter=tap`` of suites ``retry``, ``errors``, ``failed`` and
``exceptions`` with diagnostics, and ESLint's SARIF of a clean project with folders ``errors/``, ``retry/`` and
``failed_jobs/`` (``"results": []``). Labels were written with each scenario, before the engine saw the output.
Needs pytest 9.2.0, pytest-github-actions-annotate-failures 0.4.2, teamcity-messages 1.33, coverage 7.17.3 and ruff
0.17.5 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u61-reports``), eslint 8.57.0 and @microsoft/eslint-formatter-sarif 3.1.0 from the npm
registry (installed once under ``/tmp/u61-tools``), Node.js 20, Perl's prove and xmllint (Debian ``nodejs``,
``npm``, ``perl``, ``libxml2-utils``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, WORDS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-61"

#: pytest, its two reporting plugins, coverage and ruff, made once and kept between runs.
_VENV = VENVS / "u61-reports"
_PY_TOOLS = (
    "pytest==9.2.0 pytest-github-actions-annotate-failures==0.4.2 teamcity-messages==1.33 coverage==7.17.3 ruff==0.17.5"
)
#: eslint and the SARIF formatter, installed once and kept between runs.
_TOOLS = Path("/tmp/u61-tools")
_NPM_TOOLS = "eslint@8.57.0 @microsoft/eslint-formatter-sarif@3.1.0"

_ENV = {
    "PYTHONPATH": "src",
    "PYTHONHASHSEED": "0",
    "PYTHONDONTWRITEBYTECODE": "1",
    "FORCE_COLOR": "0",
    "COLUMNS": "120",
    "npm_config_cache": "/tmp/u61-npm-cache",
    "npm_config_update_notifier": "false",
}


def _venv() -> Path:
    make_venv(_VENV, _PY_TOOLS)
    return _VENV / "bin"


def _npm() -> Path:
    if not (_TOOLS / ".complete").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        (_TOOLS / "package.json").write_text('{"name": "u61-tools", "private": true}\n')
        sh(f"npm install --no-audit --no-fund --silent {_NPM_TOOLS} && touch .complete", _TOOLS, env=_ENV)
    return _TOOLS / "node_modules"


def _pytest() -> str:
    return f"{_venv()}/python -m pytest -p no:cacheprovider"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, durations, addresses, the host."""
    return substitute(
        scrub(out, root),
        (r" in \d+\.\d+s\b", " in 1.00s"),
        (r'time="[0-9.]+"', 'time="0.001"'),
        (r'timestamp="[^"]+"', 'timestamp="2026-01-01T00:00:00"'),
        (r"timestamp='[^']+'", "timestamp='2026-01-01T00:00:00.000'"),
        (r"duration='\d+'", "duration='0'"),
        (r'hostname="[^"]+"', 'hostname="ci-runner"'),
        (r"0x[0-9a-f]{8,16}", "0x7f0000000000"),
        (r"duration_ms: [0-9.]+", "duration_ms: 1.0"),
        (r"duration_ms [0-9.]+", "duration_ms 100.0"),
        (r"\d+ wallclock secs \(.*\)$", "0 wallclock secs"),
        (r'version="7\.17\.3" timestamp="\d+"', 'version="7.17.3" timestamp="1700000000000"'),
    )


# ---------------------------------------------------------------- a Python project and its tests


def _pairs(count: int, failing: bool) -> list[tuple[int, int]]:
    """(amount, days) pairs whose proration is never exactly half a cent, plus (75, 1) when ``failing``."""
    out: list[tuple[int, int]] = []
    i = 0
    while len(out) < count:
        amount, days = 100 + i * 37, 1 + i % 29
        if amount * days % 30 != 15:
            out.append((amount, days))
        i += 1
    if failing:
        out.insert(count // 2, (75, 1))
    return out


def _shop(root: Path, areas: list[str], *, per: int = 24, fail: str = "", keyerror: str = "", notes: bool = False,
          skips: bool = False) -> None:  # fmt: skip
    """A package ``shop`` with one module per area and its tests (about ``4 * per`` cases each): ``fail`` gets one
    proration case rounded half to even, ``keyerror`` one currency its rate table lacks."""
    files = {"src/shop/__init__.py": '"""The shop: amounts, rates and proration per business area."""\n'}
    for area in areas:
        files[f"src/shop/{area}.py"] = f'''
            """{area.replace("_", " ").capitalize()}: amounts for the shop, in cents."""

            RATES = {{"EUR": 100, "USD": 108, "GBP": 86, "CHF": 97, "SEK": 1130, "JPY": 16200}}


            def prorate(amount, days, period=30):
                return round(amount * days / period)


            def discount(amount, pct):
                return amount - amount * pct // 100


            def fee(amount, bps):
                return (amount * bps + 5000) // 10000


            def convert(amount, currency):
                return amount * RATES[currency] // 100
        '''
        codes = ["EUR", "USD", "GBP", "CHF", "SEK", "JPY"] * (per // 6)
        if area == keyerror:
            codes.insert(len(codes) // 2 + 1, "GBX")
        note = '    print(f"retry attempt {n % 3 + 1} after error: upstream 503, backing off {n * 50} ms")\n'
        skip = '@pytest.mark.skip(reason="sandbox for failed callbacks not configured")\n' if skips else ""
        files[f"tests/test_{area}.py"] = (
            f"import pytest\n\nfrom shop import {area}\n\nPRORATE = {_pairs(per, area == fail)!r}\n"
            f"CODES = {codes!r}\n\n\n"
            f'@pytest.mark.parametrize("amount,days", PRORATE)\ndef test_prorate_{area}(amount, days):\n'
            f"    assert {area}.prorate(amount, days) == (amount * days + 15) // 30\n\n\n"
            f'@pytest.mark.parametrize("amount", range(100, {per * 100 + 1}, 100))\n'
            f"def test_discount_{area}(amount):\n    assert {area}.discount(amount, 10) == amount - amount // 10\n\n\n"
            f'@pytest.mark.parametrize("bps", range(0, {per * 25}, 25))\ndef test_fee_{area}(bps):\n'
            f"    assert {area}.fee(10000, bps) == bps\n\n\n"
            f'@pytest.mark.parametrize("n,currency", list(enumerate(CODES)))\n'
            f"def test_convert_{area}(n, currency):\n"
            + (note if notes else "")
            + f"    assert {area}.convert(10000, currency) == {area}.RATES[currency] * 100\n\n\n"
            f"{skip}def test_{area}_sandbox_roundtrip():\n    assert {area}.convert(0, 'EUR') == 0\n"
        )
    write(root, files)


_SHOP = ["billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "catalog", "pricing"]
_CLEAN = ["errors", "retry", "failed_jobs", "exceptions", "audit", "webhooks"]


@case(
    "u61_pytest_junit_oneline_fail",
    "pytest junitxml (cat)",
    clean=False,
    group=GROUP,
    decisive=[
        'errors="0" failures="1"',
        'name="test_prorate_refunds[75-1]"',
        "tests/test_refunds.py:11: AssertionError",
    ],
)
def _junit_oneline(root: Path) -> bytes:
    _shop(root, _SHOP, per=12, fail="refunds")
    cmd = f"{_pytest()} -q --junitxml=build/junit.xml tests > build.log 2>&1; cat build/junit.xml"
    return _settle(sh(cmd, root, env=_ENV), root)


@case(
    "u61_pytest_junit_pretty_clean",
    "pytest junitxml (xmllint --format)",
    clean=True,
    group=GROUP,
    decisive=["432 passed, 6 skipped", '<testsuite name="pytest" errors="0" failures="0" skipped="6" tests="438"'],
)
def _junit_pretty_clean(root: Path) -> bytes:
    _shop(root, _CLEAN, per=18, skips=True)
    cmd = f"{_pytest()} -q --junitxml=build/junit.xml tests && xmllint --format build/junit.xml"
    return _settle(sh(cmd, root, env=_ENV), root)


_CI_JOB = """
status=0
echo "::group::Unit tests (billing to ledger)"
$PYTEST -v tests/test_[a-l]*.py || status=$?
echo "::endgroup::"
echo "::group::Lint (ruff)"
$RUFF check --output-format=github src tests || status=$?
echo "::endgroup::"
echo "::group::Unit tests (orders to tax)"
$PYTEST -v tests/test_[m-z]*.py || status=$?
echo "::endgroup::"
echo "::group::Byte-compile"
$PY -m compileall -f src tests || status=$?
echo "::endgroup::"
exit $status
"""


@case(
    "u61_gha_job_ruff_annotation",
    "GitHub Actions job (ruff --output-format=github)",
    clean=False,
    group=GROUP,
    decisive=["F821 Undefined name `zone_rates`", "[exit status 1]"],
)
def _gha_job(root: Path) -> bytes:
    _shop(root, _SHOP, per=10)
    with (root / "src/shop/shipping.py").open("a") as f:
        f.write("\n\ndef zone_surcharge(amount, zone):\n    return amount * zone_rates[zone] // 100\n")
    write(root, {"ci.sh": _CI_JOB})
    bins = _venv()
    env = {**_ENV, "GITHUB_ACTIONS": "true", "PYTEST": _pytest(), "RUFF": f"{bins}/ruff", "PY": f"{bins}/python"}
    return _settle(sh("bash ci.sh", root, env=env), root)


@case(
    "u61_gha_pytest_annotate_fail",
    "pytest (GitHub Actions annotations)",
    clean=False,
    group=GROUP,
    decisive=[
        "::error file=tests/test_invoice.py,line=21::test_fee_invoice[275]",
        "FAILED tests/test_invoice.py::test_fee_invoice[275]",
        "1 failed, 489 passed",
    ],
)
def _gha_annotate(root: Path) -> bytes:
    _shop(root, _SHOP, per=12)
    tax = root / "src/shop/invoice.py"
    capped = "return min((amount * bps + 5000) // 10000, amount * 250 // 10000)"
    tax.write_text(tax.read_text().replace("return (amount * bps + 5000) // 10000", capped))
    return _settle(sh(f"{_pytest()} -v tests", root, env={**_ENV, "GITHUB_ACTIONS": "true"}), root)


@case(
    "u61_teamcity_pytest_keyerror",
    "pytest (TeamCity service messages)",
    clean=False,
    group=GROUP,
    decisive=[
        "##teamcity[testFailed",
        "FAILED tests/test_ledger.py::test_convert_ledger[7-GBX] - KeyError: 'GBX'",
        "1 failed, 490 passed",
    ],
)
def _teamcity_fail(root: Path) -> bytes:
    _shop(root, _SHOP, per=12, keyerror="ledger")
    return _settle(sh(f"{_pytest()} --teamcity tests", root, env=_ENV), root)


@case(
    "u61_teamcity_pytest_clean_retry",
    "pytest (TeamCity service messages)",
    clean=True,
    group=GROUP,
    decisive=["294 passed in"],
)
def _teamcity_clean(root: Path) -> bytes:
    _shop(root, _CLEAN, per=12, notes=True)
    return _settle(sh(f"{_pytest()} --teamcity tests", root, env=_ENV), root)


@case(
    "u61_coverage_xml_cat_clean",
    "coverage.py xml (Cobertura, cat)",
    clean=True,
    group=GROUP,
    decisive=["980 passed in", "Wrote XML report to build/coverage.xml"],
)
def _coverage_clean(root: Path) -> bytes:
    _shop(root, WORDS, per=12)
    bins = _venv()
    cmd = (
        f"{bins}/coverage run --branch --source=src,tests -m pytest -p no:cacheprovider -q tests"
        f" && {bins}/coverage xml -o build/coverage.xml && cat build/coverage.xml"
    )
    return _settle(sh(cmd, root, env=_ENV), root)


# ---------------------------------------------------------------- TAP from prove


_TAP_FILES = [
    "billing_invoices", "billing_tax", "orders_queue", "orders_split", "cart_store", "cart_merge", "coupons_stack",
    "coupons_expiry", "pricing_rules", "pricing_tiers", "refunds_flow", "refunds_partial", "ledger_retry",
    "ledger_close", "shipping_rates", "shipping_labels", "webhooks_out", "webhooks_sign", "audit_trail", "audit_export",
    "session_store", "search_index", "catalog_sync", "invoice_pdf",
]  # fmt: skip


@case(
    "u61_prove_tap_fail",
    "prove (TAP)",
    clean=False,
    group=GROUP,
    decisive=[
        "#   Failed test 'ledger_retry attempt 17 waits 1000 ms'",
        "(Wstat: 256 (exited 1) Tests: 40 Failed: 1)",
        "Result: FAIL",
    ],
)
def _prove_fail(root: Path) -> bytes:
    files = {
        "lib/Shop/Backoff.pm": """
            package Shop::Backoff;
            use strict;
            use warnings;
            use Exporter 'import';
            our @EXPORT_OK = qw(delay);

            sub delay { my ($n) = @_; return $n <= 0 ? 0 : 100 * 2 ** ($n - 1); }

            1;
        """
    }
    for k, name in enumerate(_TAP_FILES, 1):
        want = [0 if n % 8 == 0 else 100 * 2 ** (n % 8 - 1) for n in range(1, 41)]
        if name == "ledger_retry":
            want[16] = 1000
        files[f"t/{k:02d}_{name}.t"] = (
            "use strict;\nuse warnings;\nuse lib 'lib';\nuse Test::More tests => 40;\nuse Shop::Backoff qw(delay);\n\n"
            f"my @want = ({', '.join(map(str, want))});\n"
            f'for my $n (1 .. 40) {{ is(delay($n % 8), $want[$n - 1], "{name} attempt $n waits $want[$n - 1] ms"); }}\n'
        )
    write(root, files)
    return _settle(sh("prove -v --merge t/", root), root)


# ---------------------------------------------------------------- node --test reporters


def _node_suites(root: Path, names: list[str], *, tests: int, broken: str = "", notes: bool = False) -> None:
    files = {}
    for name in names:
        area, title = name.split("_")[0], name.replace("_", " ")
        lines = [
            "'use strict';",
            "const { describe, it } = require('node:test');",
            "const assert = require('node:assert');",
            "",
            "function applyCoupon(cents, pct, fixed) {",
            "  const afterPct = cents - Math.floor((cents * pct) / 100);",
            "  return { cents: Math.max(0, afterPct - fixed), pct, fixed };",
            "}",
            "",
            f"describe('{title}', () => {{",
        ]
        for k in range(tests):
            cents, pct, fixed = 1000 + 125 * k, 5 * (k % 5), 50 * (k % 3)
            want = max(0, cents - cents * pct // 100 - fixed)
            if name == broken and k == tests // 2:
                want += 1  # the fixture's total was computed with rounding up
            expected = f"{{ cents: {want}, pct: {pct}, fixed: {fixed} }}"
            body = f"assert.deepStrictEqual(applyCoupon({cents}, {pct}, {fixed}), {expected});"
            lines.append(f"  it('{title} case {k + 1} takes {pct}% and {fixed} off {cents}', (t) => {{")
            if notes:
                lines.append(f"    t.diagnostic('{area}: retry after transient error, attempt {k % 3 + 1}');")
            lines += [f"    {body}", "  });"]
        lines.append("});")
        files[f"tests/{name}.test.js"] = "\n".join(lines) + "\n"
    write(root, files)


_NODE_FILES = [
    f"{area}_{part}"
    for area in ["billing", "orders", "cart", "coupons", "tax", "refunds", "ledger"]
    for part in ["totals", "rounding", "limits", "stacking"]
]


@case(
    "u61_node_junit_fail",
    "node --test (junit reporter)",
    clean=False,
    group=GROUP,
    decisive=[
        'name="coupons stacking case 8 takes 10% and 50 off 1875"',
        "[Error [ERR_TEST_FAILURE]: Expected values to be strictly deep-equal:",
        "tests/coupons_stacking.test.js:33:12",
        "<!-- fail 1 -->",
    ],
)
def _node_junit(root: Path) -> bytes:
    _node_suites(root, _NODE_FILES, tests=14, broken="coupons_stacking")
    cmd = "node --test --test-concurrency=1 --test-reporter=junit tests/"
    return _settle(sh(cmd, root, env=_ENV), root)


@case(
    "u61_node_tap_clean_retry",
    "node --test (tap reporter)",
    clean=True,
    group=GROUP,
    decisive=["# pass 360", "# fail 0"],
)
def _node_tap(root: Path) -> bytes:
    names = [f"{a}_{p}" for a in ["retry", "errors", "failed", "exceptions"] for p in ["backoff", "mapper", "payments"]]
    _node_suites(root, names, tests=30, notes=True)
    cmd = "node --test --test-concurrency=1 --test-reporter=tap tests/"
    return _settle(sh(cmd, root, env=_ENV), root)


# ---------------------------------------------------------------- ESLint: SARIF and checkstyle


_ESLINTRC = (
    '{"root": true, "env": {"node": true, "es2022": true}, "parserOptions": {"sourceType": "module"},\n'
    ' "rules": {"no-unused-vars": "warn", "no-undef": "error", "eqeqeq": "warn"}}\n'
)


def _js_project(root: Path, areas: list[str], per: int, *, warnings: bool, undefined: str = "") -> None:
    files = {".eslintrc.json": _ESLINTRC}
    for area in areas:
        for k in range(1, per + 1):
            unused = f"  const {area}Trace{k} = cents * {k};\n  const attempt = {k};\n" if warnings else ""
            compare = "==" if warnings else "==="
            rate = "zoneRate" if f"{area}/rates_{k:02d}.js" == undefined else f"{k + 3}"
            files[f"src/{area}/rates_{k:02d}.js"] = (
                f"// {area}: rate table {k} for the shop.\n\n"
                f"export const NAME = '{area}-{k}';\n\n"
                f"export function rate{k}(cents, region) {{\n{unused}"
                f"  if (region {compare} 'EU') {{\n    return Math.round((cents * {rate}) / 100);\n  }}\n"
                f"  return cents;\n}}\n"
            )
    write(root, files)


@case(
    "u61_eslint_sarif_clean_errors",
    "eslint (SARIF formatter)",
    clean=True,
    group=GROUP,
    decisive=['"results": []'],
)
def _eslint_sarif_clean(root: Path) -> bytes:
    mods = _npm()
    _js_project(root, ["errors", "retry", "failed_jobs", "exceptions", "audit", "webhooks"], 20, warnings=False)
    cmd = f"{mods}/.bin/eslint -f {mods}/@microsoft/eslint-formatter-sarif/sarif.js src"
    return _settle(sh(cmd, root, env=_ENV), root)


@case(
    "u61_eslint_checkstyle_undef",
    "eslint (checkstyle through xmllint)",
    clean=False,
    group=GROUP,
    decisive=["'zoneRate' is not defined. (no-undef)", '<file name="/tmp/work/src/ledger/rates_07.js">'],
)
def _eslint_checkstyle(root: Path) -> bytes:
    mods = _npm()
    areas = ["billing", "cart", "coupons", "invoice", "ledger", "orders", "refunds", "shipping", "tax"]
    _js_project(root, areas, 16, warnings=True, undefined="ledger/rates_07.js")
    cmd = f"{mods}/.bin/eslint -f checkstyle src | xmllint --format -"
    return _settle(sh(cmd, root, env=_ENV), root)
