"""Held-out outputs (group ``unseen-79``): a seventy-ninth batch, Node.js test runners in depth, as a coding agent runs
them on a generated JavaScript service whose modules, suites and tests are named after the business words
(``error-reporter``, ``failed-payments``, ``retry-queue``, ``exception-tracker``; ``it('reports the error ...')``), so
clean runs are full of those words.

Failing runs: ``mocha test/unit; mocha test/integration`` with the spec reporter where one unit test of
``failed-payments`` fails and the clean integration run ends the output, mocha's dot reporter with an uncaught
``TypeError`` in a ``"before each" hook`` of ``retry-queue`` among warnings the service logs, ``vitest run
--reporter=verbose`` with a failing ``toEqual`` and its diff, vitest's default reporter with a snapshot mismatch,
``jest --ci --verbose -i`` with a failed and an obsolete snapshot, node's built-in runner with
``--test-reporter=junit`` where one ``exception-tracker`` test fails in the middle of the XML, and ``c8
--check-coverage`` over a mocha run whose line coverage is under the 90 % threshold. Clean runs named after errors and
failures: mocha's json reporter, ``vitest run --reporter=verbose``, ``ava --tap`` and node's runner with
``--test-reporter=dot`` among the retry warnings the service logs. Labels were written with each scenario, before the
engine saw the output. Needs Node.js 20 with npm (Debian ``nodejs``, ``npm``), with mocha 12.0.0, vitest 4.1.12, jest
30.5.2, ava 7.0.0 and c8 12.0.0 from the npm registry (installed once under ``/tmp/u79-tools``, cached in
``/tmp/u79-npm-cache``).
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-79"

#: mocha, vitest, jest, ava and c8, installed once and kept between runs.
_TOOLS = Path("/tmp/u79-tools")
_NPM_CACHE = "/tmp/u79-npm-cache"
_NPM_TOOLS = "mocha@12.0.0 vitest@4.1.12 jest@30.5.2 ava@7.0.0 c8@12.0.0"

_ENV = {
    "FORCE_COLOR": "0",
    "NO_COLOR": "1",
    "CI": "1",
    "npm_config_cache": _NPM_CACHE,
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
}


def _bin() -> Path:
    if not (_TOOLS / ".complete").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        (_TOOLS / "package.json").write_text('{"name": "u79-tools", "private": true}\n')
        sh(f"npm install --no-audit --no-fund --silent {_NPM_TOOLS} && touch .complete", _TOOLS, env=_ENV)
    return _TOOLS / "node_modules/.bin"


def _link_modules(root: Path) -> None:
    """The tools visible to the project (vitest's and jest's own imports resolve from its node_modules)."""
    _bin()
    if not (root / "node_modules").exists():
        (root / "node_modules").symlink_to(_TOOLS / "node_modules")


def _run(cmd: str, root: Path, extra: dict[str, str] | None = None) -> bytes:
    env = {**_ENV, "PATH": f"{_bin()}:/usr/bin:/bin", **(extra or {})}
    return sh(cmd, root, env=env, timeout=300)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, clock times, host names."""
    return substitute(
        scrub(out, root),
        (r"passing \(\d+(\.\d+)?m?s\)", "passing (1s)"),
        (r" \(\d+ ?ms\)", ""),
        (r"(Start at\s+)\d\d:\d\d:\d\d", r"\g<1>12:00:00"),
        (r"(Duration\s+)\d.*$", r"\g<1>1.00s"),
        (r"(\d+ tests?(?: \| \d+ (?:failed|skipped))?\)) \d+ms", r"\1 1ms"),
        (r"(\d+ tests?(?:, \d+ (?:failed|skipped))?\)) \d+ms", r"\1 1ms"),
        (r"(Time:\s+)\d+(\.\d+)? s.*$", r"\g<1>1.0 s"),
        (r'time="[0-9.e-]+"', 'time="0.001"'),
        (r'hostname="[^"]*"', 'hostname="ci-runner"'),
        (r'timestamp="[^"]*"', 'timestamp="2026-01-01T00:00:00"'),
        (r"(duration_ms:? )[0-9.]+", r"\g<1>1.0"),
        (r'"duration": \d+', '"duration": 1'),
        (r'"(start|end)": "[^"]*"', r'"\1": "2026-01-01T00:00:00.000Z"'),
        (r" \d+(\.\d+)?m?s$", ""),
    )


# ---------------------------------------------------------------- the service and its tests

_FILES = [
    "error-reporter", "failed-payments", "retry-queue", "exception-tracker", "billing", "orders", "refunds",
    "invoice", "ledger", "webhooks", "audit", "shipping", "coupons", "session",
]  # fmt: skip

_TITLES = [
    "reports the error for {a} item {i}",
    "moves failed payment {i} to the retry queue",
    "keeps exception {i} out of the audit log",
    "marks webhook {i} failed after five retries",
    "records the error code of {a} batch {i}",
    "drops retry {i} once the invoice is paid",
]


def _status(n: int) -> str:
    return ("failed", "retrying", "settled")[n % 3]


def _expected(area: str, n: int) -> str:
    code = f"'E{1000 + n}'" if n % 3 == 0 else "null"
    return f"{{ id: {n}, area: '{area}', status: '{_status(n)}', attempts: {n % 5}, errorCode: {code} }}"


def _source(area: str, esm: bool, extra: tuple[str, str] = ("", "")) -> str:
    """The module of ``area``; ``extra`` is more code and the names it exports (comma-separated)."""
    names = "AREA, status, describeItem" + (f", {extra[1]}" if extra[1] else "")
    exports = f"export {{ {names} }};" if esm else f"module.exports = {{ {names} }};"
    return (
        f"'use strict';\n// {area}: part of the payments service.\nconst AREA = '{area}';\n\n"
        "function status(n) {\n  return ['failed', 'retrying', 'settled'][n % 3];\n}\n\n"
        "function describeItem(n) {\n"
        "  if (process.env.SERVICE_LOG === 'warn' && n % 7 === 0) {\n"
        "    console.warn(`[${AREA}] attempt ${n % 5} for item ${n} failed, scheduled retry ${(n % 5) + 1}/5`);\n"
        "  }\n"
        "  const errorCode = n % 3 === 0 ? 'E' + (1000 + n) : null;\n"
        "  return { id: n, area: AREA, status: status(n), attempts: n % 5, errorCode };\n}\n"
        f"{extra[0]}\n{exports}\n"
    )


def _check(style: str, area: str, n: int) -> str:
    if style in ("vitest", "jest"):
        return f"expect(mod.describeItem({n})).toEqual({_expected(area, n)});"
    if style == "ava":
        return f"t.deepEqual(mod.describeItem({n}), {_expected(area, n)});"
    return f"assert.deepStrictEqual(mod.describeItem({n}), {_expected(area, n)});"


def _test_file(style: str, area: str, count: int, src: str, overrides: dict[int, str], hooks: dict[int, str]) -> str:
    """One test file of ``count`` tests of ``area``, in groups of 12; ``overrides`` replaces a test's body, ``hooks``
    puts code before a group's tests (a ``beforeEach``)."""
    if style == "vitest":
        head = f"import {{ describe, it, expect }} from 'vitest';\nimport * as mod from '{src}';\n\n"
    elif style == "ava":
        head = f"const test = require('ava');\nconst mod = require('{src}');\n\n"
    elif style == "node":
        head = "'use strict';\nconst assert = require('node:assert');\nconst { describe, it } = require('node:test');\n"
        head += f"const mod = require('{src}');\n\n"
    elif style == "jest":
        head = f"'use strict';\nconst mod = require('{src}');\n\n"
    else:
        head = f"'use strict';\nconst assert = require('node:assert');\nconst mod = require('{src}');\n\n"
    lines = [head]
    if style == "ava":
        for n in range(count):
            title = _TITLES[n % len(_TITLES)].format(a=area, i=n)
            lines.append(f"test('{title}', (t) => {{\n  {overrides.get(n, _check(style, area, n))}\n}});\n\n")
        return "".join(lines)
    lines.append(f"describe('{area}', () => {{\n")
    for g in range(0, count, 12):
        lines.append(f"  describe('{area} batch {g // 12 + 1}', () => {{\n")
        if g in hooks:
            lines.append(hooks[g])
        for n in range(g, min(g + 12, count)):
            title = _TITLES[n % len(_TITLES)].format(a=area, i=n)
            lines.append(f"    it('{title}', () => {{\n      {overrides.get(n, _check(style, area, n))}\n    }});\n")
        lines.append("  });\n")
    lines.append("});\n")
    return "".join(lines)


_VITEST_CONFIG = """
    import { defineConfig } from 'vitest/config';
    import { BaseSequencer } from 'vitest/node';

    class ByName extends BaseSequencer {
      async sort(files) {
        return [...files].sort((a, b) => a.moduleId.localeCompare(b.moduleId));
      }
    }

    export default defineConfig({ cacheDir: '.vite-cache', test: { sequence: { sequencer: ByName } } });
"""

_JEST_SEQUENCER = """
    const Sequencer = require('@jest/test-sequencer').default;

    class ByName extends Sequencer {
      sort(tests) {
        return [...tests].sort((a, b) => a.path.localeCompare(b.path));
      }
    }

    module.exports = ByName;
"""


def _project(
    root: Path,
    style: str,
    *,
    files: list[str] = _FILES,
    count: int = 48,
    tests: str = "test",
    suffix: str = ".spec.js",
    esm: bool = False,
    overrides: dict[str, dict[int, str]] | None = None,
    hooks: dict[str, dict[int, str]] | None = None,
    extras: dict[str, tuple[str, str]] | None = None,
) -> None:
    """A payments service with one module per business area under ``src`` and a test file per module."""
    pkg = {"name": "payments-service", "version": "3.4.0", "private": True}
    if esm:
        pkg["type"] = "module"
    if style == "vitest":  # the files in name order, whatever the last run's durations
        write(root, {"vitest.config.js": _VITEST_CONFIG})
    if style == "jest":
        write(root, {"sequencer.cjs": _JEST_SEQUENCER})
    (root / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    depth = "../" * (tests.count("/") + 1)
    for area in files:
        write(root, {f"src/{area}.js": _source(area, esm, (extras or {}).get(area, ("", "")))})
        body = _test_file(
            style, area, count, f"{depth}src/{area}.js", (overrides or {}).get(area, {}), (hooks or {}).get(area, {})
        )
        write(root, {f"{tests}/{area}{suffix}": body})
    _link_modules(root)


# ---------------------------------------------------------------- mocha


@case(
    "u79_mocha_spec_unit_then_integration",
    "mocha",
    clean=False,
    group=GROUP,
    decisive=[
        "AssertionError [ERR_ASSERTION]: payment 24 should be queued for retry",
        "reports the error for failed-payments item 24:",
        "test/unit/failed-payments.spec.js:",
        "1 failing",
    ],
)
def _mocha_spec_unit_then_integration(root: Path) -> bytes:
    check = "assert.strictEqual(mod.describeItem(24).status, 'retrying', 'payment 24 should be queued for retry');"
    _project(root, "mocha", tests="test/unit", overrides={"failed-payments": {24: check}})
    _project(root, "mocha", files=_FILES[:8], count=36, tests="test/integration")
    cmd = "mocha --reporter spec 'test/unit/*.spec.js'; mocha --reporter spec 'test/integration/*.spec.js'"
    return _settle(_run(cmd, root), root)


_QUEUES = ("const queues = {};\n", "queues")


@case(
    "u79_mocha_dot_before_each_hook",
    "mocha",
    clean=False,
    group=GROUP,
    decisive=[
        '"before each" hook for "reports the error for retry-queue item 24"',
        "TypeError: Cannot read properties of undefined (reading 'connect')",
        "1 failing",
    ],
)
def _mocha_dot_before_each_hook(root: Path) -> bytes:
    hook = "    beforeEach(function () {\n      this.conn = mod.queues.primary.connect();\n    });\n"
    _project(root, "mocha", count=60, hooks={"retry-queue": {24: hook}}, extras={"retry-queue": _QUEUES})
    return _settle(_run("mocha --reporter dot 'test/*.spec.js'", root, {"SERVICE_LOG": "warn"}), root)


@case(
    "u79_mocha_json_clean",
    "mocha",
    clean=True,
    group=GROUP,
    decisive=['"passes": 560', '"failures": 0'],
)
def _mocha_json_clean(root: Path) -> bytes:
    _project(root, "mocha", count=40)
    out = _run("mocha --reporter json 'test/*.spec.js'", root)
    return substitute(_settle(out, root), (r'"speed": "\w+"', '"speed": "fast"'))


_UNCOVERED = (
    "function summarizeFailures(items) {\n"
    "  const out = { failed: 0, retrying: 0, settled: 0 };\n"
    "  for (const item of items) {\n"
    "    if (!item) {\n      continue;\n    }\n"
    "    out[item.status] = (out[item.status] || 0) + 1;\n"
    "  }\n"
    "  return out;\n"
    "}\n",
    "summarizeFailures",
)


def _retry_worker() -> tuple[str, str]:
    steps = "".join(
        f"  if (job.attempts === {k}) {{\n    job.delay = {100 * 2**k};\n    job.note = 'retry {k} of the job';\n  }}\n"
        for k in range(8)
    )
    return (
        f"function scheduleRetry(job) {{\n{steps}  return job;\n}}\n" + _UNCOVERED[0],
        "scheduleRetry, summarizeFailures",
    )


@case(
    "u79_c8_mocha_threshold",
    "c8",
    clean=False,
    group=GROUP,
    decisive=["does not meet global threshold (90%)", "retry-queue.js"],
)
def _c8_mocha_threshold(root: Path) -> bytes:
    extras = {"refunds": _UNCOVERED, "retry-queue": _retry_worker()}
    _project(root, "mocha", count=40, extras=extras)
    cmd = "c8 --check-coverage --lines 90 --reporter=text mocha 'test/*.spec.js'"
    return _settle(_run(cmd, root), root)


@case(
    "u79_mocha_tap_clean_with_warnings",
    "mocha",
    clean=True,
    group=GROUP,
    decisive=["# pass 840", "# fail 0"],
)
def _mocha_tap_clean_with_warnings(root: Path) -> bytes:
    _project(root, "mocha", count=60)
    return _settle(_run("mocha --reporter tap 'test/*.spec.js'", root, {"SERVICE_LOG": "warn"}), root)


# ---------------------------------------------------------------- vitest

_VITEST = "vitest run --no-file-parallelism --maxWorkers=1 --no-color"


@case(
    "u79_vitest_verbose_toequal",
    "vitest",
    clean=False,
    group=GROUP,
    decisive=[
        "AssertionError: expected { id: 20, area: 'refunds'",
        "FAIL  test/refunds.test.js > refunds > refunds batch 2 > keeps exception 20 out of the audit log",
        "Tests  1 failed | 629 passed (630)",
    ],
)
def _vitest_verbose_toequal(root: Path) -> bytes:
    check = (
        "expect(mod.describeItem(20))"
        ".toEqual({ id: 20, area: 'refunds', status: 'failed', attempts: 0, errorCode: 'E1020' });"
    )
    _project(root, "vitest", count=45, suffix=".test.js", esm=True, overrides={"refunds": {20: check}})
    return _settle(_run(f"{_VITEST} --reporter=verbose", root), root)


@case(
    "u79_vitest_verbose_clean",
    "vitest",
    clean=True,
    group=GROUP,
    decisive=["Test Files  14 passed (14)", "Tests  560 passed (560)"],
)
def _vitest_verbose_clean(root: Path) -> bytes:
    _project(root, "vitest", count=40, suffix=".test.js", esm=True)
    return _settle(_run(f"{_VITEST} --reporter=verbose", root), root)


def _render(currency: str) -> tuple[str, str]:
    return (
        "function renderInvoice(n) {\n"
        "  return [\n"
        "    `Invoice INV-${String(n).padStart(4, '0')}`,\n"
        "    `Customer: acme-${n}`,\n"
        f"    `Total: ${{(n * 1.25).toFixed(2)}} {currency}`,\n"
        "    `Status: ${status(n)}, retry scheduled`,\n"
        "  ].join('\\n');\n}\n",
        "renderInvoice",
    )


@case(
    "u79_vitest_default_snapshot",
    "vitest",
    clean=False,
    group=GROUP,
    decisive=[
        "Snapshot `invoice > invoice batch 1 > moves failed payment 7 to the retry queue 1` mismatched",
        "Snapshots  1 failed",
        "Tests  1 failed | 419 passed (420)",
    ],
)
def _vitest_default_snapshot(root: Path) -> bytes:
    check = "expect(mod.renderInvoice(7)).toMatchSnapshot();"
    kw = {"count": 30, "suffix": ".test.js", "esm": True, "overrides": {"invoice": {7: check}}}
    _project(root, "vitest", extras={"invoice": _render("EUR")}, **kw)
    _run(f"{_VITEST} -u", root)
    _project(root, "vitest", extras={"invoice": _render("USD")}, **kw)
    return _settle(_run(_VITEST, root, {"SERVICE_LOG": "warn"}), root)


# ---------------------------------------------------------------- jest


def _payload(version: int) -> tuple[str, str]:
    return (
        "function renderPayload(n) {\n"
        f"  return {{ event: 'payment.failed', version: {version}, id: `evt_${{n}}`, "
        "retry: n % 5, status: status(n) };\n"
        "}\n",
        "renderPayload",
    )


@case(
    "u79_jest_ci_snapshots",
    "jest",
    clean=False,
    group=GROUP,
    decisive=[
        "● webhooks › webhooks batch 1 › marks webhook 9 failed after five retries",
        "1 snapshot failed from 1 test suite",
        "1 snapshot obsolete from 1 test suite",
        "Tests:       1 failed, 671 passed, 672 total",
    ],
)
def _jest_ci_snapshots(root: Path) -> bytes:
    snap = {"webhooks": {9: "expect(mod.renderPayload(9)).toMatchSnapshot();"}}
    first = {**snap, "audit": {4: "expect(mod.describeItem(4)).toMatchSnapshot();"}}
    kw = {"suffix": ".test.js"}
    _project(root, "jest", overrides=first, extras={"webhooks": _payload(1)}, **kw)
    jest = f"jest --cacheDirectory {root / '.jest-cache'} --testSequencer ./sequencer.cjs"
    _run(f"{jest} -i --ci=false", root)
    _project(root, "jest", overrides=snap, extras={"webhooks": _payload(2)}, **kw)
    return _settle(_run(f"{jest} --ci --verbose -i", root), root)


# ---------------------------------------------------------------- ava


@case(
    "u79_ava_tap_clean",
    "ava",
    clean=True,
    group=GROUP,
    decisive=["# pass 560", "# fail 0"],
)
def _ava_tap_clean(root: Path) -> bytes:
    _project(root, "ava", count=40, suffix=".test.js")
    return _settle(_run("ava --tap --serial --concurrency=1", root), root)


# ---------------------------------------------------------------- node --test


@case(
    "u79_node_test_junit_failure",
    "node-test",
    clean=False,
    group=GROUP,
    decisive=[
        '<testcase name="reports the error for exception-tracker item 30"',
        '<failure type="testCodeFailure" message="exception 30 keeps its error code',
        "<!-- fail 1 -->",
    ],
)
def _node_test_junit_failure(root: Path) -> bytes:
    check = "assert.strictEqual(mod.describeItem(30).errorCode, 'E1031', 'exception 30 keeps its error code');"
    _project(root, "node", count=48, suffix=".test.js", overrides={"exception-tracker": {30: check}})
    cmd = "node --test --test-concurrency=1 --test-reporter=junit test/"
    return _settle(_run(cmd, root), root)
