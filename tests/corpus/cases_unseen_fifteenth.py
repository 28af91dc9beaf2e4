"""Held-out outputs (group ``unseen-15``): a fifteenth batch, to measure the engine after fourteen rounds of fixes.

Test runners and their report formats the corpus had not seen: ``bats --formatter tap`` (300 tests
over five files, one failing status check), ``shunit2`` (300 tests with a probe log between them,
one ``assertEquals`` failing), ``phpunit --debug`` (400 tests announced as started and ended, one
``assertSame`` failing), ``meson test`` over 61 C test programs with one failing, followed by its
``meson-logs/testlog.txt``, and from the npm registry ``jasmine`` (specs whose code under test logs,
one failing expectation), ``tape`` (raw TAP, one failing ``t.equal``), ``cucumber-js`` (60
scenarios, one failing step) and ``c8 --check-coverage`` over a passing ``node --test`` run that
misses its line threshold; from PyPI ``pytest-rerunfailures`` (a flaky test that still fails after
two reruns), ``pytest-timeout`` (a test stopped by the timeout, with its stack dump), a 1.4 MB
``pytest-randomly`` run of 15,000 tests with one order-dependent failure, and ``locust --headless``
against a local server whose checkout endpoint sometimes answers 500. Clean runs whose text talks
about errors: R ``testthat`` with the location reporter over tests such as ``rejects invalid input
with an informative error``, the ``qunit`` CLI (TAP, ``# fail 0``), ``uvu`` suites named
``errors`` and ``crash recovery``, and ``pytest-bdd`` scenarios such as ``Failed payment is
reported to the user``. Labels were written with each scenario, before the engine saw the output.
Needs ``bats``, ``shunit2``, ``phpunit``, ``meson`` and ``r-cran-testthat`` (Debian packages), and
the PyPI and npm registries.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, write
from cases_unseen_build import _npm, _pip_tool

GROUP = "unseen-15"

# ---------------------------------------------------------------- shell test frameworks


@case(
    "bats_tap_one_failing_status",
    "bats --formatter tap",
    clean=False,
    group=GROUP,
    decisive=[
        "not ok 137 rejects an expired session token",
        "test/03-session.bats, line",
        '`[ "$status" -eq 3 ]\' failed',
    ],
)
def _bats(root: Path) -> bytes:
    write(
        root,
        {
            "bin/session": """
            #!/bin/bash
            # session check TOKEN: 0 for a valid token, 2 for an expired one
            case "$2" in
              expired*) echo "expired: $2"; exit 2 ;;
              *) echo "ok $2" ;;
            esac
            """
        },
    )
    (root / "bin" / "session").chmod(0o755)
    for f, area in enumerate(["auth", "billing", "session", "orders", "export"]):
        body = ["#!/usr/bin/env bats", "", "setup() {", '  export PATH="$BATS_TEST_DIRNAME/../bin:$PATH"', "}", ""]
        for i in range(60):
            if f == 2 and i == 16:
                body += [
                    '@test "rejects an expired session token" {',
                    "  run session check expired-7f3a",
                    '  [ "$status" -eq 3 ]',
                    '  [ "$output" = "expired: expired-7f3a" ]',
                    "}",
                    "",
                ]
                continue
            body += [
                f'@test "{area} accepts token {i:03d}" {{',
                f"  run session check {area}-{i:03d}",
                '  [ "$status" -eq 0 ]',
                f'  [ "$output" = "ok {area}-{i:03d}" ]',
                "}",
                "",
            ]
        (root / "test").mkdir(exist_ok=True)
        (root / "test" / f"{f + 1:02d}-{area}.bats").write_text("\n".join(body))
    return sh("bats --formatter tap --print-output-on-failure test/", root)


@case(
    "shunit2_one_assert_failing",
    "shunit2",
    clean=False,
    group=GROUP,
    decisive=["test_healthz_reports_ready", "expected:<200> but was:<503>", "FAILED (failures=2)"],
)
def _shunit2(root: Path) -> bytes:
    lines = [
        "#!/bin/bash",
        "# unit tests for the probe helpers",
        "probe() {",
        '  case "$1" in',
        "    /healthz) code=503 ;;",
        "    *) code=200 ;;",
        "  esac",
        '  echo "probe $1 -> $code" >&2',
        '  echo "$code"',
        "}",
        'parse_status() { set -- $1; echo "$2"; }',
    ]
    for i in range(300):
        area = WORDS[i % 20]
        if i == 173:
            lines.append(
                'test_healthz_reports_ready() {\n  assertEquals "status of /healthz" 200 "$(probe /healthz)"\n}'
            )
            continue
        lines.append(
            f"test_{area}_endpoint_{i:03d}() {{\n"
            f'  assertEquals "status of /api/{area}/{i}" 200 "$(probe /api/{area}/{i})"\n'
            f'  assertEquals "parsed line {i}" 200 "$(parse_status \'HTTP/1.1 200 OK\')"\n}}'
        )
    lines.append(". shunit2")
    (root / "probe_test.sh").write_text("\n".join(lines) + "\n")
    return sh("bash probe_test.sh", root)


# ---------------------------------------------------------------- PHP, C (meson), R


@case(
    "phpunit_debug_one_failure",
    "phpunit --debug",
    clean=False,
    group=GROUP,
    decisive=[
        "1) LedgerTest::testRoundsHalfCentsUp",
        "Failed asserting that 1000 is identical to 1001.",
        "tests/LedgerTest.php:",
    ],
)
def _phpunit(root: Path) -> bytes:
    write(
        root,
        {
            "src/Ledger.php": """
            <?php
            final class Ledger
            {
                public static function toCents(int $units, int $cents): int
                {
                    return $units * 100 + $cents;
                }

                public static function halfUp(float $cents): int
                {
                    return (int) floor($cents);
                }
            }
            """
        },
    )
    for c, name in enumerate(["Billing", "Orders", "Tax", "Ledger", "Refunds", "Shipping", "Coupons", "Audit"]):
        methods = []
        for i in range(50):
            if name == "Ledger" and i == 23:
                methods.append(
                    "    public function testRoundsHalfCentsUp(): void\n    {\n"
                    "        $this->assertSame(1001, Ledger::halfUp(1000.5));\n    }\n"
                )
                continue
            methods.append(
                f"    public function testConvertsAmount{i:03d}(): void\n    {{\n"
                f"        $this->assertSame({i * 100 + c}, Ledger::toCents({i}, {c}));\n    }}\n"
            )
        (root / "tests").mkdir(exist_ok=True)
        (root / "tests" / f"{name}Test.php").write_text(
            "<?php\nuse PHPUnit\\Framework\\TestCase;\n\nrequire_once __DIR__ . '/../src/Ledger.php';\n\n"
            f"final class {name}Test extends TestCase\n{{\n" + "\n".join(methods) + "}\n"
        )
    return scrub(sh("phpunit --debug tests", root), root)


@case(
    "meson_test_one_failing_with_testlog",
    "meson test (+ meson-logs/testlog.txt)",
    clean=False,
    group=GROUP,
    decisive=["crc_header_frame", "checksum mismatch: got 0x1f want 0x2e"],
)
def _meson_test(root: Path) -> bytes:
    names = []
    files = {
        "src/framer.h": "int framer_checksum(const unsigned char *buf, int n);\n",
        "src/framer.c": """
        #include "framer.h"
        int framer_checksum(const unsigned char *buf, int n) {
            int sum = 0;
            for (int i = 0; i < n; i++) sum += buf[i];
            return sum & 0xff;
        }
        """,
    }
    for i in range(60):
        name = f"{WORDS[i % 20]}_frame_{i:02d}"
        names.append(name)
        files[f"tests/{name}.c"] = f"""
        #include <stdio.h>
        #include "framer.h"
        int main(void) {{
            unsigned char buf[] = {{{i}, {i + 1}, {i + 2}}};
            int got = framer_checksum(buf, 3);
            printf("{name}: checksum 0x%02x for 3 bytes\\n", got);
            return got == {(3 * i + 3) & 0xFF} ? 0 : 1;
        }}
        """
    names.insert(31, "crc_header_frame")
    files["tests/crc_header_frame.c"] = """
    #include <stdio.h>
    #include "framer.h"
    int main(void) {
        unsigned char header[] = {0x10, 0x0f};
        int got = framer_checksum(header, 2);
        printf("crc_header_frame: checking 2 header bytes\\n");
        if (got != 0x2e) {
            fprintf(stderr, "frame 7: checksum mismatch: got 0x%02x want 0x2e\\n", got);
            return 1;
        }
        return 0;
    }
    """
    listed = ", ".join(f"'{n}'" for n in names)
    files["meson.build"] = f"""
    project('framer', 'c')
    inc = include_directories('src')
    lib = static_library('framer', 'src/framer.c')
    foreach n : [{listed}]
      test(n, executable(n, 'tests/' + n + '.c', include_directories: inc, link_with: lib))
    endforeach
    """
    write(root, files)
    cmd = (
        "meson setup build >/dev/null && meson compile -C build >/dev/null && "
        "env -i PATH=/usr/bin:/bin LC_ALL=C.UTF-8 meson test -C build --print-errorlogs; st=$?; "
        "cat build/meson-logs/testlog.txt; exit $st"
    )  # a clean environment: the testlog lists the inherited one
    return scrub(sh(cmd, root), root)


@case("testthat_location_reporter_clean", "Rscript testthat::test_dir (location)", clean=True, group=GROUP, decisive=[])
def _testthat_clean(root: Path) -> bytes:
    files = {
        "tests/helper-amounts.R": """
        parse_amount <- function(x) {
          if (!grepl("^[0-9]+(\\\\.[0-9]{1,2})?$", x)) stop("invalid amount: ", x)
          round(as.numeric(x) * 100)
        }
        report_failure <- function(msg) paste("fatal error:", msg)
        """
    }
    topics = ["errors", "invalid-input", "validation", "failures", "crash-recovery", "parsing", "amounts", "reports"]
    for t, topic in enumerate(topics):
        blocks = []
        for i in range(15):
            blocks.append(
                f'test_that("rejects invalid input with an informative error {t}-{i:02d}", {{\n'
                f'  expect_error(parse_amount("{i}.x"), "invalid amount")\n'
                f'  expect_equal(parse_amount("{i}.{t}5"), {i * 100 + t * 10 + 5})\n}})\n'
                f'test_that("reports a fatal error to the user {t}-{i:02d}", {{\n'
                f'  expect_equal(report_failure("disk {i}"), "fatal error: disk {i}")\n}})\n'
            )
        files[f"tests/test-{topic}.R"] = "\n".join(blocks)
    write(root, files)
    return sh('Rscript -e \'testthat::test_dir("tests", reporter = "location")\'', root)


# ---------------------------------------------------------------- JavaScript test runners


@case(
    "jasmine_one_failing_expectation",
    "jasmine",
    clean=False,
    group=GROUP,
    decisive=["Cart totals applies the loyalty discount", "Expected 68 to equal 70.", "spec/cart_spec.js:"],
)
def _jasmine(root: Path) -> bytes:
    _npm(root, "jasmine@7.0.0")
    files = {
        "spec/support/jasmine.json": '{"spec_dir": "spec", "spec_files": ["**/*_spec.js"], "random": false}\n',
        "src/cart.js": """
        function total(items, discount) {
          const sum = items.reduce((a, b) => a + b, 0);
          console.log(`priced cart: ${items.length} items, subtotal ${sum}, discount ${discount}`);
          return Math.round(sum * (1 - discount));
        }
        module.exports = { total };
        """,
    }
    for f in range(8):
        area = WORDS[f]
        specs = []
        for i in range(50):
            if f == 2 and i == 27:
                specs.append(
                    "  it('applies the loyalty discount', () => {\n"
                    "    expect(total([50, 30], 0.15)).toEqual(70);\n  });"
                )
                continue
            specs.append(
                f"  it('sums {area} cart {i}', () => {{\n    expect(total([{i}, {i}], 0)).toEqual({2 * i});\n  }});"
            )
        title = "Cart totals" if f == 2 else f"{area} totals"
        files[f"spec/{'cart' if f == 2 else area}_spec.js"] = (
            "const { total } = require('../src/cart');\n\n"
            f"describe('{title}', () => {{\n" + "\n".join(specs) + "\n});\n"
        )
    write(root, files)
    return scrub(sh("npx jasmine --random=false", root), root)


@case(
    "tape_raw_tap_one_failing",
    "tape (raw TAP)",
    clean=False,
    group=GROUP,
    decisive=["refund keeps the original currency", "expected: 'EUR'", "actual:   'USD'"],
)
def _tape(root: Path) -> bytes:
    _npm(root, "tape@5.10.2")
    files = {
        "src/refunds.js": """
        function refund(order, amount) {
          const currency = order.total > 1000 ? 'USD' : order.currency;
          return { amount, currency };
        }
        module.exports = { refund };
        """
    }
    for f in range(6):
        area = WORDS[10 + f]
        tests = ["const test = require('tape');", "const { refund } = require('../src/refunds');", ""]
        for i in range(40):
            if f == 4 and i == 19:
                tests.append(
                    "test('refunds: large order', (t) => {\n"
                    "  const r = refund({ total: 1500, currency: 'EUR' }, 200);\n"
                    "  t.equal(r.amount, 200, 'refund amount is kept');\n"
                    "  t.equal(r.currency, 'EUR', 'refund keeps the original currency');\n  t.end();\n});"
                )
                continue
            tests.append(
                f"test('{area}: order {i}', (t) => {{\n"
                f"  const r = refund({{ total: {i * 10}, currency: 'EUR' }}, {i});\n"
                f"  t.equal(r.amount, {i}, 'amount of order {i}');\n"
                f"  t.equal(r.currency, 'EUR', 'currency of order {i}');\n  t.end();\n}});"
            )
        files[f"test/{f:02d}-{area}.js"] = "\n".join(tests) + "\n"
    write(root, files)
    return scrub(sh("npx tape 'test/**/*.js'", root), root)


def _feature(name: str, scenarios: list[tuple[str, int, int, int, str]]) -> str:
    out = [f"Feature: {name}", ""]
    for title, ordered, shipped, returned, refund in scenarios:
        out += [
            f"  Scenario: {title}",
            f"    Given an order of {ordered} items at 5.00 EUR each",
            f"    When {shipped} items are shipped",
            f"    And the customer returns {returned} items",
            f'    Then the refund is "{refund}" EUR',
            "",
        ]
    return "\n".join(out)


@case(
    "cucumber_js_one_failing_step",
    "cucumber-js",
    clean=False,
    group=GROUP,
    decisive=["Scenario: Refund after partial shipment", "+ '20.00'", "scenarios (1 failed,"],
)
def _cucumber(root: Path) -> bytes:
    _npm(root, "@cucumber/cucumber@12.9.0")
    files = {
        "features/step_definitions/steps.js": """
        const assert = require('node:assert');
        const { Given, When, Then } = require('@cucumber/cucumber');

        Given('an order of {int} items at {float} EUR each', function (n, price) {
          this.ordered = n;
          this.price = price;
        });
        When('{int} items are shipped', function (n) {
          this.shipped = n;
        });
        When('the customer returns {int} items', function (n) {
          const billable = this.shipped < this.ordered ? n - 1 : n;
          this.refund = billable * this.price;
        });
        Then('the refund is {string} EUR', function (expected) {
          assert.strictEqual(this.refund.toFixed(2), expected);
        });
        """
    }
    for f in range(12):
        area = WORDS[f]
        rows = [(f"Refund of {area} order {i}", 4 + i, 4 + i, 1 + i % 3, f"{(1 + i % 3) * 5:.2f}") for i in range(5)]
        if f == 7:
            rows[2] = ("Refund after partial shipment", 6, 2, 5, "25.00")
        files[f"features/{area}.feature"] = _feature(f"Refunds for {area}", rows)
    write(root, files)
    return scrub(sh("npx cucumber-js --format pretty", root, env={"CUCUMBER_PUBLISH_QUIET": "true"}), root)


@case(
    "c8_check_coverage_lines_threshold",
    "c8 --check-coverage (node --test)",
    clean=False,
    group=GROUP,
    decisive=["does not meet global threshold (95%)", "refunds.js"],
)
def _c8(root: Path) -> bytes:
    _npm(root, "c8@12.0.0")
    files = {}
    for m in range(30):
        area = WORDS[m % 20]
        name = f"{area}{m:02d}"
        files[f"src/{name}.js"] = (
            f"function total(rows) {{\n  let sum = 0;\n  for (const r of rows) sum += r;\n  return sum;\n}}\n"
            f"module.exports = {{ total, area: '{area}' }};\n"
        )
        tests = [
            "const test = require('node:test');",
            "const assert = require('node:assert');",
            f"const m = require('../src/{name}');",
        ]
        tests += [f"test('{name} totals {i}', () => assert.strictEqual(m.total([{i}, 1]), {i + 1}));" for i in range(8)]
        files[f"test/{name}.test.js"] = "\n".join(tests) + "\n"
    branches = "\n".join(
        f"  if (reason === 'r{k}') {{\n    const fee = amount * {k} / 100;\n    return amount - fee;\n  }}"
        for k in range(40)
    )
    files["src/refunds.js"] = (
        f"function refund(amount, reason) {{\n{branches}\n  return amount;\n}}\nmodule.exports = {{ refund }};\n"
    )
    files["test/refund.test.js"] = (
        "const test = require('node:test');\nconst assert = require('node:assert');\n"
        "const { refund } = require('../src/refunds');\n"
        "test('full refund without a reason', () => assert.strictEqual(refund(100, 'none'), 100));\n"
    )
    write(root, files)
    return scrub(sh("npx c8 --check-coverage --lines 95 --reporter text node --test test/", root), root)


@case("qunit_tap_clean", "qunit (CLI, TAP)", clean=True, group=GROUP, decisive=[])
def _qunit_clean(root: Path) -> bytes:
    _npm(root, "qunit@3.0.0")
    files = {
        "src/errors.js": """
        class ValidationError extends Error {}
        function validate(input) {
          if (typeof input !== 'string' || input.trim() === '') throw new ValidationError('invalid input');
          return input.trim();
        }
        function fatal(msg) { return `fatal error: ${msg}`; }
        module.exports = { ValidationError, validate, fatal };
        """
    }
    for f, mod in enumerate(["errors", "invalid input", "failures", "crash recovery", "timeouts", "exceptions"]):
        tests = ["const { ValidationError, validate, fatal } = require('../src/errors');", f"QUnit.module('{mod}');"]
        for i in range(60):
            tests.append(
                f"QUnit.test('rejects invalid input {f}-{i:02d}', (assert) => {{\n"
                f"  assert.throws(() => validate('  '), ValidationError);\n"
                f"  assert.strictEqual(validate(' v{i} '), 'v{i}');\n}});"
            )
            if i % 6 == 0:
                tests.append(
                    f"QUnit.test('reports a fatal error to the user {f}-{i:02d}', (assert) => {{\n"
                    f"  assert.strictEqual(fatal('disk {i} full'), 'fatal error: disk {i} full');\n}});"
                )
        files[f"test/{f:02d}-{mod.replace(' ', '-')}.js"] = "\n".join(tests) + "\n"
    write(root, files)
    return scrub(sh("npx qunit 'test/*.js'", root), root)


@case("uvu_suites_clean", "uvu", clean=True, group=GROUP, decisive=[])
def _uvu_clean(root: Path) -> bytes:
    _npm(root, "uvu@0.5.6")
    files = {
        "src/retry.js": """
        function backoff(attempt) { return Math.min(2 ** attempt * 100, 30000); }
        function classify(status) { return status >= 500 ? 'error' : status >= 400 ? 'failure' : 'ok'; }
        module.exports = { backoff, classify };
        """
    }
    suites = ["errors", "crash recovery", "failures", "invalid input", "fatal errors", "panics", "timeouts", "retry"]
    for f in range(40):
        name = f"{suites[f % len(suites)]} {f:02d}"
        tests = [
            "const { suite } = require('uvu');",
            "const assert = require('uvu/assert');",
            "const { backoff, classify } = require('../src/retry');",
            f"const S = suite('{name}');",
        ]
        for i in range(12):
            tests.append(
                f"S('classifies status {500 + i} as an error', () => {{ assert.is(classify({500 + i}), 'error'); }});"
            )
            tests.append(
                f"S('backs off after failure {i}', () => {{ assert.is(backoff({i % 6}), {2 ** (i % 6) * 100}); }});"
            )
        if f % 5 == 0:
            tests.append(f"S.after(() => console.log('suite {name}: 0 errors, 0 failures, 24 checks'));")
        tests.append("S.run();")
        files[f"tests/{f:02d}.js"] = "\n".join(tests) + "\n"
    write(root, files)
    return scrub(sh("npx uvu tests", root), root)


# ---------------------------------------------------------------- pytest plugins


def _pytest_modules(root: Path, modules: int, tests: int, prefix: str) -> None:
    for mod in range(modules):
        area = WORDS[mod % 20]
        body = [f"def test_{area}_{mod:03d}_{i:03d}():\n    assert {i} * 3 == {3 * i}\n" for i in range(tests)]
        (root / f"{prefix}_{area}_{mod:03d}.py").write_text("\n".join(body))


@case(
    "pytest_rerunfailures_still_failing",
    "pytest -v --reruns 2 (pytest-rerunfailures)",
    clean=False,
    group=GROUP,
    decisive=[
        "test_sync_reserves_stock FAILED",
        "AssertionError: reserved 0 of 3 units",
        "1 failed, 599 passed, 2 rerun",
    ],
)
def _reruns(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0", "pytest-rerunfailures==16.7")
    (root / "tests").mkdir()
    _pytest_modules(root / "tests", 6, 100, "test")
    (root / "tests" / "test_billing_000.py").unlink()
    body = [f"def test_billing_000_{i:03d}():\n    assert {i} * 3 == {3 * i}\n" for i in range(99)]
    body.insert(
        57,
        "class Warehouse:\n    def __init__(self):\n        self.reserved = 0\n\n"
        "    def reserve(self, sku, n):\n        if sku.startswith('EU-'):\n"
        "            return  # replica lag: nothing reserved\n"
        "        self.reserved += n\n\n\n"
        "def test_sync_reserves_stock():\n    wh = Warehouse()\n    wh.reserve('EU-4411', 3)\n"
        "    assert wh.reserved == 3, f'reserved {wh.reserved} of 3 units'\n",
    )
    (root / "tests" / "test_inventory.py").write_text("\n".join(body))
    return sh(f"{env} {PY} -m pytest -p no:cacheprovider -v --reruns 2 tests", root)


@case(
    "pytest_timeout_stack_dump",
    "pytest -v --timeout=2 (pytest-timeout)",
    clean=False,
    group=GROUP,
    decisive=["test_renewal_waits_for_lock", "Timeout (>2.0s) from pytest-timeout", "tests/leases.py:14: Failed"],
)
def _timeout(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0", "pytest-timeout==2.4.0")
    (root / "tests").mkdir()
    _pytest_modules(root / "tests", 5, 80, "test")
    write(
        root,
        {
            "tests/leases.py": """
            import threading
            import time

            LOCK = threading.Lock()


            def keeper():
                with LOCK:
                    time.sleep(30)


            def wait_for_lock():
                while not LOCK.acquire(timeout=0.1):
                    time.sleep(0.05)
                LOCK.release()
                return True
            """,
            "tests/test_leases.py": "\n".join(
                [
                    "import threading",
                    "import time",
                    "",
                    "import leases",
                    "",
                    *[f"def test_lease_{i:02d}():\n    assert leases.LOCK is not None\n" for i in range(30)],
                    "def test_renewal_waits_for_lock():",
                    "    threading.Thread(target=leases.keeper, name='lease-keeper', daemon=True).start()",
                    "    time.sleep(0.2)",
                    "    assert leases.wait_for_lock()",
                    "",
                    *[f"def test_lease_after_{i:02d}():\n    assert True\n" for i in range(30)],
                ]
            ),
        },
    )
    return scrub(sh(f"{env} {PY} -m pytest -p no:cacheprovider -v --timeout=2 tests", root), root)


@case(
    "pytest_randomly_order_dependent_big",
    "pytest -v -p randomly (15,000 tests)",
    clean=False,
    group=GROUP,
    decisive=["::test_registry_starts_with_default_currency FAILED", "assert ['EUR', 'JPY'] == ['EUR']"],
)
def _randomly(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0", "pytest-randomly==5.1.0")
    (root / "tests").mkdir()
    _pytest_modules(root / "tests", 149, 100, "test")
    body = ["import registry", ""]
    body += [f"def test_register_currency_{i:02d}():\n    registry.register('JPY')\n" for i in range(60)]
    body.insert(40, "def test_registry_starts_with_default_currency():\n    assert registry.codes() == ['EUR']\n")
    write(
        root,
        {
            "tests/registry.py": """
            _CODES = {"EUR"}


            def register(code):
                _CODES.add(code)


            def codes():
                return sorted(_CODES)
            """
        },
    )
    (root / "tests" / "test_currency_registry.py").write_text("\n".join(body))
    return sh(f"{env} {PY} -m pytest -p no:cacheprovider -v -p randomly --randomly-seed=1234 tests", root)


@case(
    "pytest_bdd_scenarios_clean",
    "pytest -v (pytest-bdd)",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _bdd_clean(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0", "pytest-bdd==9.0.1")
    scenarios = []
    for i in range(40):
        scenarios += [
            f"  Scenario: Rejecting invalid card number shows an error {i:02d}",
            f"    Given a cart with {i + 1} items",
            '    When the customer pays with card "0000"',
            '    Then the checkout shows the error "invalid card number"',
            "",
            f"  Scenario: Failed payment is reported to the user {i:02d}",
            f"    Given a cart with {i + 2} items",
            '    When the customer pays with card "4000-declined"',
            '    Then the checkout shows the error "payment failed"',
            "",
            f"  Scenario: Valid card completes checkout {i:02d}",
            f"    Given a cart with {i + 3} items",
            '    When the customer pays with card "4242"',
            "    Then the order is confirmed with 0 errors",
            "",
        ]
    write(
        root,
        {
            "tests/features/checkout.feature": "Feature: Checkout errors\n\n" + "\n".join(scenarios),
            "tests/test_checkout.py": """
            from pytest_bdd import given, parsers, scenarios, then, when

            scenarios("features/checkout.feature")


            def checkout(cart, card):
                if card == "0000":
                    return {"error": "invalid card number", "errors": 1}
                if card.endswith("declined"):
                    return {"error": "payment failed", "errors": 1}
                return {"error": None, "errors": 0, "items": cart["items"]}


            @given(parsers.parse("a cart with {n:d} items"), target_fixture="cart")
            def cart(n):
                return {"items": n}


            @when(parsers.parse('the customer pays with card "{card}"'), target_fixture="result")
            def pay(cart, card):
                return checkout(cart, card)


            @then(parsers.parse('the checkout shows the error "{msg}"'))
            def shows_error(result, msg):
                assert result["error"] == msg


            @then("the order is confirmed with 0 errors")
            def confirmed(result):
                assert result["errors"] == 0
            """,
        },
    )
    return sh(f"{env} {PY} -m pytest -p no:cacheprovider -v tests", root)


# ---------------------------------------------------------------- load testing


@case(
    "locust_headless_checkout_500s",
    "locust --headless",
    clean=False,
    group=GROUP,
    decisive=["GET /api/checkout: HTTPError('500 Server Error: Internal Server Error for url:"],
)
def _locust(root: Path) -> bytes:
    env = _pip_tool(root, "locust==2.47.0")
    endpoints = [f"/api/{w}" for w in WORDS if w != "errors"] + ["/api/checkout"]
    tasks = "\n".join(
        f"    @task\n    def t{k}(self):\n        self.client.get('{p}')\n" for k, p in enumerate(endpoints)
    )
    write(
        root,
        {
            "server.py": """
            import http.server
            import itertools

            counter = itertools.count()


            class H(http.server.BaseHTTPRequestHandler):
                protocol_version = "HTTP/1.1"

                def do_GET(self):
                    if self.path == "/api/checkout" and next(counter) % 7 == 3:
                        self.send_error(500)
                        return
                    body = b'{"ok": true}'
                    self.send_response(200)
                    self.send_header("Content-Type", "application/json")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)

                def log_message(self, *args):
                    pass


            srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), H)
            with open("port", "w") as f:
                f.write(str(srv.server_address[1]))
            srv.serve_forever()
            """,
            "locustfile.py": "from locust import HttpUser, constant, task\n\n\nclass Shopper(HttpUser):\n"
            "    wait_time = constant(0.05)\n\n" + tasks,
        },
    )
    cmd = (
        f"{PY} server.py & srv=$!; for i in $(seq 100); do [ -s port ] && break; sleep 0.1; done; "
        f"{env} {PY} -m locust -f locustfile.py --headless -u 20 -r 20 -t 8s -H http://127.0.0.1:$(cat port); "
        "st=$?; kill $srv; exit $st"
    )
    return sh(cmd, root)
