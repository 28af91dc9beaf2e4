"""Held-out outputs (group ``unseen-49``): a forty-ninth batch, JavaScript and TypeScript monorepo task runners as an
agent runs them: turbo, nx, lerna, npm workspaces and pnpm's recursive run, over 8 to 16 packages of a shop named
after the business words, each task one of tsc, esbuild or rollup (build), ``node --test`` or vitest (test) and eslint
(lint). The runners prefix every line with the package and task and end with their own summaries.

Failing runs: ``turbo run build --continue`` where ``@shop/refunds`` has a type error among 14 packages of ``tsc
--listFiles`` output, ``turbo run test --continue`` where one TAP test of ``@shop/coupons`` fails among 12 packages,
``nx run-many -t lint`` where ``@shop/shipping`` has an undefined name among hundreds of unused-variable warnings,
``lerna run test`` where a vitest assertion of ``@shop/ledger`` fails, ``npm run build --workspaces`` where rollup
cannot resolve a module of ``@shop/tax``, and ``pnpm -r --no-bail test`` where a vitest test of ``@shop/pricing``
throws a TypeError. Clean runs on packages named ``errors``, ``failed-jobs``, ``retry-queue`` and ``exceptions``:
``turbo run build lint test`` replayed from turbo's cache after one package changed, ``nx run-many -t build test``
(tsc and vitest), ``lerna run build`` (esbuild), ``npm test --workspaces`` (``node --test``) and ``pnpm -r run lint``
with warnings only. Labels were written with each scenario, before the engine saw the output. Needs Node.js 20 with
npm (Debian ``nodejs``, ``npm``) and, from the npm registry (cached under /tmp/u49-npm-cache), turbo, nx, lerna,
typescript, esbuild, rollup, vitest, eslint and pnpm.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-49"

_CACHE = "/tmp/u49-npm-cache"
_PNPM_STORE = "/tmp/u49-pnpm-store"

_TURBO = "turbo@2.11.13"
_NX = "nx@24.0.7"
_LERNA = "lerna@9.0.7"
_TSC = "typescript@5.9.3"
_ESBUILD = "esbuild@0.28.2"
_ROLLUP = "rollup@4.69.3"
_VITEST = "vitest@3.2.7"
_ESLINT = "eslint@9.9.1"
_ESLINT_JS = "@eslint/js@9.9.1"
_PNPM = "pnpm@10.34.8"

#: What every runner is told: no telemetry, no update check, no daemon, no cloud, no colours.
_ENV = {
    "TURBO_TELEMETRY_DISABLED": "1",
    "DO_NOT_TRACK": "1",
    "TURBO_NO_UPDATE_NOTIFIER": "1",
    "NX_DAEMON": "false",
    "NX_NO_CLOUD": "true",
    "NX_TUI": "false",
    "NX_SKIP_NX_CACHE": "false",
    "FORCE_COLOR": "0",
    "CI": "1",
    "npm_config_cache": _CACHE,
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
}


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, hashes, durations, dates."""
    return substitute(
        scrub(out, root),
        (r"executing [0-9a-f]{16}", "executing 0000000000000000"),
        (r"replaying logs [0-9a-f]{16}", "replaying logs 0000000000000000"),
        (r"\b\d+(\.\d+)?m?s\b", "1ms"),
        (r"Time:(\s+)1ms", r"Time:\g<1>1.000s"),
        (r"\(\d+(\.\d+)?m?s\)", "(1ms)"),
        (r"duration_ms:? [0-9.]+", "duration_ms 1.0"),
        (r"Start at +\d\d:\d\d:\d\d", "Start at  00:00:00"),
        (r"\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d_\d+Z", "2026-01-01T00_00_00_000Z"),
        (r"\b\d+(\.\d+)?kb\b", "1.0kb"),
        (r"\(node:\d+\)", "(node:1000)"),
        (r"mtime=\d+", "mtime=0"),
        (r"\(\d+% of the run\)", "(50% of the run)"),
        (r"Run duration:(\s+).*$", r"Run duration:\g<1>1ms"),
    )


def _install(root: Path, *packages: str) -> None:
    """The root's dev dependencies installed from the shared cache (not part of the output)."""
    sh(f"npm install --prefer-offline --no-audit --no-fund --silent -D {' '.join(packages)}", root, env=_ENV)


def _run(cmd: str, root: Path) -> bytes:
    return _settle(sh(cmd, root, env=_ENV), root)


def _root(root: Path, workspaces: list[str], extra: dict[str, object] | None = None) -> None:
    pkg = {
        "name": "shop",
        "version": "1.0.0",
        "private": True,
        "workspaces": workspaces,
        "packageManager": "npm@11.19.1",
        **(extra or {}),
    }
    write(root, {"package.json": json.dumps(pkg, indent=2) + "\n"})


def _package(
    root: Path, name: str, scripts: dict[str, str], deps: list[str], files: dict[str, str], proto: str = "*"
) -> None:
    pkg = {
        "name": f"@shop/{name}",
        "version": "1.0.0",
        "type": "module",
        "main": "dist/index.js",
        "scripts": scripts,
        "dependencies": {f"@shop/{d}": proto for d in deps},
    }
    body = {f"packages/{name}/package.json": json.dumps(pkg, indent=2) + "\n"}
    body.update({f"packages/{name}/{rel}": text for rel, text in files.items()})
    write(root, body)


def _ident(name: str) -> str:
    head, *rest = name.split("-")
    return head + "".join(p.capitalize() for p in rest)


def _cls(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("-"))


# ---------------------------------------------------------------- sources


_TSCONFIG = json.dumps(
    {
        "compilerOptions": {
            "target": "ES2022",
            "module": "NodeNext",
            "moduleResolution": "NodeNext",
            "strict": True,
            "declaration": True,
            "outDir": "dist",
            "rootDir": "src",
            "types": [],
            "skipLibCheck": True,
        },
        "include": ["src"],
    },
    indent=2,
)


def _ts_sources(name: str, parts: int, broken: bool = False) -> dict[str, str]:
    """A TypeScript package: ``parts`` modules and an index that re-exports them."""
    cls, ident = _cls(name), _ident(name)
    files: dict[str, str] = {}
    index = []
    for k in range(parts):
        mod = f"{ident}Part{k}"
        files[f"src/part{k}.ts"] = (
            f"export interface {cls}Line{k} {{\n  sku: string;\n  cents: number;\n  qty: number;\n}}\n\n"
            f"export function {mod}Total(lines: {cls}Line{k}[]): number {{\n"
            "  return lines.reduce((sum, line) => sum + line.cents * line.qty, 0);\n}\n\n"
            f"export function {mod}Label(line: {cls}Line{k}): string {{\n"
            f"  return `{name}:${{line.sku}}x${{line.qty}}`;\n}}\n"
        )
        index.append(f'export * from "./part{k}.js";\n')
    if broken:
        files["src/refund.ts"] = (
            "export interface RefundRequest {\n  orderId: string;\n  cents: number;\n  reason: string;\n}\n\n"
            "export function refundReference(req: RefundRequest): string {\n"
            "  const prefix = req.orderId.slice(0, 6);\n"
            "  return `${prefix}-${req.cents}`;\n}\n\n"
            "export function partialRefund(req: RefundRequest, share: number): RefundRequest {\n"
            "  const cents = Math.round(req.cents * share);\n"
            "  const reason: string = cents;\n"
            "  return { ...req, cents, reason };\n}\n"
        )
        index.append('export * from "./refund.js";\n')
    files["src/index.ts"] = "".join(index)
    files["tsconfig.json"] = _TSCONFIG + "\n"
    return files


def _js_module(name: str, parts: int) -> str:
    ident = _ident(name)
    out = [f"// {name}: part of the shop platform.\n"]
    for k in range(parts):
        out.append(
            f"export function {ident}Total{k}(lines) {{\n"
            "  return lines.reduce((sum, line) => sum + line.cents * line.qty, 0);\n}\n\n"
            f"export function {ident}Label{k}(line) {{\n  return `{name}:${{line.sku}}x${{line.qty}}`;\n}}\n\n"
        )
    return "".join(out)


def _node_tests(name: str, count: int, failing: int = -1) -> str:
    """A ``node --test`` file of ``count`` tests on the module of ``name``; test ``failing`` is wrong."""
    ident = _ident(name)
    lines = [
        "import test from 'node:test';\nimport assert from 'node:assert/strict';\n",
        "import * as m from '../src/index.js';\n\n",
    ]
    for k in range(count):
        title = f"{name} total {k} sums cents times quantity"
        want = 2 * (100 + k) + 3 * k
        if k == failing:
            title = "stacks a percent coupon after a fixed coupon"
            want += 1
        lines.append(
            f"test('{title}', () => {{\n"
            f"  const lines = [{{ sku: 'A{k}', cents: {100 + k}, qty: 2 }}, {{ sku: 'B{k}', cents: {k}, qty: 3 }}];\n"
            f"  assert.equal(m.{ident}Total{k % 4}(lines), {want});\n"
            f"  assert.equal(m.{ident}Label{k % 4}(lines[0]), '{name}:A{k}x2');\n}});\n\n"
        )
    return "".join(lines)


_ESLINT_CONFIG = """
import js from "@eslint/js";

export default [
  js.configs.recommended,
  {
    languageOptions: {
      ecmaVersion: 2022,
      sourceType: "module",
      globals: { console: "readonly", process: "readonly", setTimeout: "readonly" },
    },
    rules: { "no-unused-vars": "warn", "prefer-const": "warn", "no-console": "warn" },
  },
];
"""


# ---------------------------------------------------------------- turbo


_SHOP14 = [
    "errors", "retry", "auth", "session", "catalog", "pricing", "coupons", "cart", "tax",
    "orders", "refunds", "invoice", "ledger", "billing",
]  # fmt: skip


@case(
    "u49_turbo_build_tsc_error",
    "turbo",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refund.ts(14,9): error TS2322: Type 'number' is not assignable to type 'string'.",
        "Failed:    @shop/refunds#build",
    ],
)
def _turbo_build_fail(root: Path) -> bytes:
    _root(root, ["packages/*"])
    write(root, {"turbo.json": json.dumps({"tasks": {"build": {"dependsOn": ["^build"], "outputs": ["dist/**"]}}})})
    for i, name in enumerate(_SHOP14):
        deps = _SHOP14[max(0, i - 2) : i]
        _package(
            root,
            name,
            {"build": "tsc -p tsconfig.json --listFiles --listEmittedFiles"},
            deps,
            _ts_sources(name, 5, broken=name == "refunds"),
        )
    _install(root, _TURBO, _TSC)
    return _run("npx turbo run build --continue --concurrency=1", root)


@case(
    "u49_turbo_test_tap_failure",
    "turbo",
    clean=False,
    group=GROUP,
    decisive=["not ok 23 - stacks a percent coupon after a fixed coupon", "Failed:    @shop/coupons#test"],
)
def _turbo_test_fail(root: Path) -> bytes:
    names = ["auth", "session", "catalog", "search", "pricing", "coupons", "cart", "orders", "invoice", "shipping"]
    names += ["webhooks", "audit"]
    _root(root, ["packages/*"])
    write(root, {"turbo.json": json.dumps({"tasks": {"test": {"dependsOn": ["^test"], "outputs": []}}})})
    for i, name in enumerate(names):
        _package(
            root,
            name,
            {"test": "node --test --test-reporter=tap test/"},
            names[max(0, i - 1) : i],
            {
                "src/index.js": _js_module(name, 4),
                "test/total.test.js": _node_tests(name, 40, failing=22 if name == "coupons" else -1),
            },
        )
    _install(root, _TURBO)
    return _run("npx turbo run test --continue --concurrency=1", root)


_FAILED_WORDS = [
    "errors", "failed-jobs", "retry-queue", "exceptions", "audit", "webhooks", "ledger", "session", "billing", "export",
]  # fmt: skip


def _lint_source(name: str, functions: int, broken: bool = False) -> str:
    """A module with unused names, ``let`` never reassigned and ``console.log`` calls: eslint warnings only, unless
    ``broken`` (a call of a name that is defined nowhere)."""
    ident = _ident(name)
    out = [f"// {name}: reports for the shop's back office.\n\n"]
    for k in range(functions):
        call = "fetchRates(zone)" if broken and k == functions // 2 else "rows.length"
        out.append(
            f"export function {ident}Report{k}(rows, zone) {{\n"
            f"  let count = {call};\n"
            f"  const scratch{k} = rows.map((row) => row.id);\n"
            f'  console.log("{name} report {k}", count);\n'
            "  return count;\n}\n\n"
        )
    return "".join(out)


def _node_spec_tests(name: str, count: int) -> str:
    """A ``node --test`` file of ``count`` passing tests whose titles name errors, failures and retries."""
    ident = _ident(name)
    titles = [
        "retries a failed job three times before giving up",
        "records the error code of a declined payment",
        "wraps a thrown exception in a RetryableError",
        "moves a failed webhook delivery to the retry queue",
        "keeps the last error message of each attempt",
    ]
    lines = [
        "import test from 'node:test';\nimport assert from 'node:assert/strict';\n",
        "import * as m from '../src/index.js';\n\n",
    ]
    for k in range(count):
        title = f"{name}: {titles[k % len(titles)]} (case {k})"
        want = 2 * (100 + k) + 3 * k
        lines.append(
            f"test('{title}', () => {{\n"
            f"  const lines = [{{ sku: 'A{k}', cents: {100 + k}, qty: 2 }}, {{ sku: 'B{k}', cents: {k}, qty: 3 }}];\n"
            f"  assert.equal(m.{ident}Total{k % 4}(lines), {want});\n}});\n\n"
        )
    return "".join(lines)


@case(
    "u49_turbo_cache_replay_clean",
    "turbo",
    clean=True,
    group=GROUP,
    decisive=["Tasks:    30 successful, 30 total"],
)
def _turbo_cache_clean(root: Path) -> bytes:
    _root(root, ["packages/*"])
    tasks = {
        "build": {"dependsOn": ["^test"], "outputs": ["dist/**"]},
        "lint": {"dependsOn": ["build"]},
        "test": {"dependsOn": ["lint"]},
    }
    write(root, {"turbo.json": json.dumps({"tasks": tasks}, indent=2), "eslint.config.js": _ESLINT_CONFIG})
    scripts = {
        "build": "esbuild src/index.js --bundle --platform=node --format=esm --outfile=dist/index.js --log-level=info",
        "lint": "eslint src",
        "test": "node --test --test-reporter=spec test/",
    }
    for i, name in enumerate(_FAILED_WORDS):
        _package(
            root,
            name,
            scripts,
            _FAILED_WORDS[max(0, i - 1) : i],
            {
                "src/index.js": _js_module(name, 4) + 'export * from "./report.js";\n',
                "src/report.js": _lint_source(name, 3),
                "test/jobs.test.js": _node_spec_tests(name, 12),
            },
        )
    _install(root, _TURBO, _ESBUILD, _ESLINT, _ESLINT_JS)
    write(root, {".gitignore": "node_modules/\ndist/\n.turbo/\n"})
    sh("git init -q && git add -A && git -c user.name=shop -c user.email=shop@example.invalid commit -qm init", root)
    sh("npx turbo run build lint test --concurrency=1", root, env=_ENV)  # fills the cache
    ledger = root / "packages/ledger/src/report.js"
    ledger.write_text(ledger.read_text() + "export const LEDGER_REPORT_VERSION = 2;\n")
    return _run("npx turbo run build lint test --concurrency=1", root)


# ---------------------------------------------------------------- nx


_SHOP12 = ["auth", "session", "catalog", "search", "pricing", "cart", "tax", "shipping", "orders", "invoice"]
_SHOP12 += ["webhooks", "audit"]


def _nx_json(root: Path) -> None:
    defaults = {
        "build": {"dependsOn": ["^build"], "cache": True},
        "lint": {"cache": True},
        "test": {"dependsOn": ["build"], "cache": True},
    }
    write(root, {"nx.json": json.dumps({"targetDefaults": defaults}, indent=2) + "\n"})


@case(
    "u49_nx_lint_no_undef",
    "nx",
    clean=False,
    group=GROUP,
    decisive=["'fetchRates' is not defined", "- @shop/shipping:lint", "Running target lint for 12 projects failed"],
)
def _nx_lint_fail(root: Path) -> bytes:
    _root(root, ["packages/*"])
    _nx_json(root)
    write(root, {"eslint.config.js": _ESLINT_CONFIG})
    for i, name in enumerate(_SHOP12):
        files = {f"src/report{j}.js": _lint_source(name, 8, broken=name == "shipping" and j == 1) for j in range(3)}
        files["src/index.js"] = _js_module(name, 3)
        _package(root, name, {"lint": "eslint src"}, _SHOP12[max(0, i - 1) : i], files)
    _install(root, _NX, _ESLINT, _ESLINT_JS)
    return _run("npx nx run-many -t lint --parallel=1 --outputStyle=stream", root)


def _vitest_file(name: str, suite: str, count: int, special: str = "") -> str:
    """A vitest file of ``count`` tests on the module of ``name``; ``special`` adds one more test's body."""
    ident = _ident(name)
    out = ['import { describe, it, expect } from "vitest";\nimport * as m from "../src/index";\n\n']
    out.append(f'describe("{suite}", () => {{\n')
    for k in range(count):
        want = 2 * (100 + k) + 3 * k
        out.append(
            f'  it("sums order {k} of {name}", () => {{\n'
            f'    const lines = [{{ sku: "A{k}", cents: {100 + k}, qty: 2 }}, {{ sku: "B{k}", cents: {k}, qty: 3 }}];\n'
            f"    expect(m.{ident}Total{k % 4}(lines)).toBe({want});\n  }});\n\n"
        )
    out.append(special)
    out.append("});\n")
    return "".join(out)


@case(
    "u49_nx_build_test_clean",
    "nx",
    clean=True,
    group=GROUP,
    decisive=["Successfully ran targets build, test for 10 projects"],
)
def _nx_clean(root: Path) -> bytes:
    _root(root, ["packages/*"])
    _nx_json(root)
    for i, name in enumerate(_FAILED_WORDS):
        ident = _ident(name)
        files = {
            "src/index.js": _js_module(name, 4),
            "src/index.d.ts": "".join(
                f"export declare function {ident}Total{k}(lines: {{ cents: number; qty: number }}[]): number;\n"
                for k in range(4)
            ),
            "test/errors.test.js": _vitest_file(
                name,
                f"{name} error handling",
                14,
                '  it("throws a RetryError when every attempt failed", () => {\n'
                '    expect(() => { throw new Error("retry budget exhausted after 3 failed attempts"); })'
                ".toThrow(/failed attempts/);\n  });\n",
            ),
            "tsconfig.json": json.dumps(
                {
                    "compilerOptions": {"allowJs": True, "checkJs": False, "noEmit": True, "types": []},
                    "include": ["src"],
                }
            ),
        }
        scripts = {"build": "tsc -p tsconfig.json --listFiles", "test": "vitest run --reporter=verbose"}
        _package(root, name, scripts, _FAILED_WORDS[max(0, i - 1) : i], files)
    _install(root, _NX, _TSC, _VITEST)
    return _run("npx nx run-many -t build test --parallel=1 --outputStyle=static", root)


# ---------------------------------------------------------------- lerna


def _lerna(root: Path) -> None:
    write(root, {"lerna.json": json.dumps({"version": "1.0.0", "npmClient": "npm"}, indent=2) + "\n"})


@case(
    "u49_lerna_vitest_failure",
    "lerna",
    clean=False,
    group=GROUP,
    decisive=[
        "AssertionError: expected 1999 to be 2000",
        "test/balance.test.js > ledger balance > posts a refund against the original invoice",
        "Running target test for 11 projects failed",
    ],
)
def _lerna_fail(root: Path) -> bytes:
    names = ["auth", "catalog", "pricing", "cart", "tax", "orders", "ledger", "invoice", "shipping", "refunds"]
    names += ["audit"]
    _root(root, ["packages/*"])
    _lerna(root)
    for i, name in enumerate(names):
        special = ""
        if name == "ledger":
            special = (
                '  it("posts a refund against the original invoice", () => {\n'
                '    const lines = [{ sku: "INV-7", cents: 1999, qty: 1 }];\n'
                "    expect(m.ledgerTotal0(lines)).toBe(2000);\n  });\n"
            )
        test = "balance" if name == "ledger" else "totals"
        files = {"src/index.js": _js_module(name, 4), f"test/{test}.test.js": _vitest_file(name, f"{name} balance", 18)}
        files[f"test/{test}.test.js"] = _vitest_file(name, f"{name} balance", 30, special)
        _package(root, name, {"test": "vitest run --reporter=verbose"}, names[max(0, i - 1) : i], files)
    _install(root, _LERNA, _VITEST)
    return _run("npx lerna run test --concurrency 1 --no-bail", root)


@case(
    "u49_lerna_esbuild_clean",
    "lerna",
    clean=True,
    group=GROUP,
    decisive=["Successfully ran target build for 12 projects"],
)
def _lerna_clean(root: Path) -> bytes:
    names = [*_FAILED_WORDS, "coupons", "refunds"]
    _root(root, ["packages/*"])
    _lerna(root)
    build = "esbuild src/index.js --bundle --platform=node --format=esm --outfile=dist/index.js --analyze=verbose"
    for i, name in enumerate(names):
        files = {f"src/mod{k}.js": _js_module(f"{name}-m{k}", 3) for k in range(16)}
        files["src/index.js"] = "".join(f'export * from "./mod{k}.js";\n' for k in range(16))
        _package(root, name, {"build": build}, names[max(0, i - 1) : i], files)
    _install(root, _LERNA, _ESBUILD)
    return _run("npx lerna run build --concurrency 1 --stream", root)


# ---------------------------------------------------------------- npm workspaces


_BUILTINS = ["crypto", "zlib", "events", "url", "path", "util", "buffer", "stream"]


@case(
    "u49_npm_ws_rollup_unresolved",
    "npm workspaces",
    clean=False,
    group=GROUP,
    decisive=['Could not resolve "./tax-rates.js" from "src/index.js"', "npm error workspace @shop/tax@1.0.0"],
)
def _npm_ws_fail(root: Path) -> bytes:
    names = [w for w in WORDS if w not in ("errors", "exceptions", "retry", "export")]
    _root(root, [f"packages/{n}" for n in names])
    config = (
        "export default {\n  input: 'src/index.js',\n  output: [\n"
        "    { file: 'dist/index.mjs', format: 'es' },\n    { file: 'dist/index.cjs', format: 'cjs' },\n"
        "    { file: 'dist/index.umd.js', format: 'umd', name: 'shop' },\n  ],\n};\n"
    )
    for i, name in enumerate(names):
        cycle = {
            "src/a.js": 'import { b } from "./b.js";\nexport const a = () => b() + 1;\n',
            "src/b.js": 'import { a } from "./a.js";\nexport const b = () => 1;\nexport const c = () => a();\n',
        }
        index = "".join(f'import * as {b} from "node:{b}";\n' for b in _BUILTINS)
        index += _js_module(name, 3) + 'export * from "./a.js";\nexport * from "./b.js";\n'
        index += f"export const runtime = [{', '.join(_BUILTINS)}].length;\n"
        if name == "tax":
            index = 'import { rateFor } from "./tax-rates.js";\n' + index + "export const rate = rateFor;\n"
        files = {"src/index.js": index, "rollup.config.mjs": config, **cycle}
        _package(root, name, {"build": "rollup -c"}, names[max(0, i - 1) : i], files)
    _install(root, _ROLLUP)
    return _run("npm run build --workspaces", root)


@case(
    "u49_npm_ws_node_test_clean",
    "npm workspaces",
    clean=True,
    group=GROUP,
    decisive=["ℹ pass 29"],
    note="the label is the summary of @shop/export (29 tests), which npm runs ninth of ten, in folder order",
)
def _npm_ws_clean(root: Path) -> bytes:
    _root(root, ["packages/*"])
    for i, name in enumerate(_FAILED_WORDS):
        files = {"src/index.js": _js_module(name, 4), "test/jobs.test.js": _node_spec_tests(name, 20 + i)}
        _package(root, name, {"test": "node --test --test-reporter=spec test/"}, [], files)
    sh("npm install --prefer-offline --silent", root, env=_ENV)
    return _run("npm test --workspaces", root)


# ---------------------------------------------------------------- pnpm


def _pnpm(root: Path, names: list[str], scripts: dict[str, str], files_for, dev: list[str]) -> str:
    """A pnpm workspace of ``names`` chained by ``workspace:*``; the command that runs pnpm."""
    write(root, {"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n"})
    dev_deps = dict(d.rsplit("@", 1) for d in dev)
    pkg = {"name": "shop", "version": "1.0.0", "private": True, "devDependencies": dev_deps}
    write(root, {"package.json": json.dumps(pkg, indent=2) + "\n"})
    for i, name in enumerate(names):
        _package(root, name, scripts, names[max(0, i - 1) : i], files_for(name), proto="workspace:*")
    sh(f"npm install --prefer-offline --silent --prefix {root / 'tools'} {_PNPM}", root, env=_ENV)
    pnpm = f"{root / 'tools/node_modules/.bin/pnpm'} --config.store-dir={_PNPM_STORE}"
    sh(f"{pnpm} install --prefer-offline --reporter=silent", root, env=_ENV)
    return pnpm


@case(
    "u49_pnpm_vitest_typeerror",
    "pnpm",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: Cannot read properties of undefined (reading 'rate')",
        "pricing rules > applies the regional rate to a bundle",
        "packages/pricing test: Failed",
    ],
)
def _pnpm_fail(root: Path) -> bytes:
    names = ["auth", "session", "catalog", "search", "pricing", "coupons", "cart", "tax", "orders", "invoice"]
    names += ["shipping", "webhooks", "audit"]

    def files_for(name: str) -> dict[str, str]:
        src = _js_module(name, 4)
        special = ""
        if name == "pricing":
            src += (
                "const REGIONS = { eu: { rate: 0.2 }, us: { rate: 0.07 } };\n\n"
                "export function regionalPrice(cents, region) {\n"
                "  const rule = REGIONS[region];\n"
                "  return Math.round(cents * (1 + rule.rate));\n}\n"
            )
            special = (
                '  it("applies the regional rate to a bundle", () => {\n'
                '    expect(m.regionalPrice(1000, "apac")).toBe(1100);\n  });\n'
            )
        suite = "pricing rules" if name == "pricing" else f"{name} totals"
        return {"src/index.js": src, "test/rules.test.js": _vitest_file(name, suite, 16, special)}

    pnpm = _pnpm(root, names, {"test": "vitest run --reporter=verbose"}, files_for, [_VITEST])
    return _run(f"{pnpm} -r --stream --no-bail --workspace-concurrency=1 test", root)


@case(
    "u49_pnpm_eslint_warnings_clean",
    "pnpm",
    clean=True,
    group=GROUP,
    decisive=["packages/export lint: Done"],
)
def _pnpm_clean(root: Path) -> bytes:
    names = ["errors", "exceptions", "failed-jobs", "retry-queue", "webhooks", "audit", "billing", "export"]

    def files_for(name: str) -> dict[str, str]:
        files = {f"src/{name}-{j}.js": _lint_source(name, 6) for j in range(3)}
        files["src/index.js"] = _js_module(name, 2)
        return files

    write(root, {"eslint.config.js": _ESLINT_CONFIG})
    pnpm = _pnpm(root, names, {"lint": "eslint src"}, files_for, [_ESLINT, _ESLINT_JS])
    return _run(f"{pnpm} -r --stream --workspace-concurrency=1 run lint", root)
