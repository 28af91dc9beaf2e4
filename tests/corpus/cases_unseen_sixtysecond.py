"""Held-out outputs (group ``unseen-62``): a sixty-second batch, monorepo task runners over JavaScript and TypeScript
workspaces of 12 to 24 small packages, as an agent runs them: pnpm's recursive run, npm workspaces, yarn berry's
``workspaces foreach`` (through corepack), turbo, nx and lerna. Each package is built with tsc (``--listFiles``) and
tested with node's built-in runner or jest (``--verbose``); the runners prefix each package's lines and end with
their own summaries.

Failing runs: ``pnpm -r --no-bail run test`` of 22 packages where one ``node --test`` assertion of ``@acme/ledger``
fails, ``npm run test --workspaces`` (jest) where ``@acme/shipping`` calls a function its module does not export,
``yarn workspaces foreach -A -t run build`` where tsc finds a type error in ``@acme/invoice``, ``turbo run build test
--continue`` replaying 15 packages' logs from its cache while the changed ``@acme/coupons`` fails a test, ``nx
run-many -t build test`` (builds read from nx's cache) where a jest ``toEqual`` of ``@acme/refunds`` fails, and
``lerna run test --stream`` where tsc's ``--noEmit`` check of ``@acme/webhooks`` finds a missing property. Clean runs
on packages named ``error-reporter``, ``retry-queue``, ``failed-payments``, ``exception-tracker`` and
``dead-letter``: ``pnpm -r run build`` then ``pnpm -r run test``, ``npm test --workspaces`` with jest printing the
code's own ``console.error`` lines, ``yarn workspaces foreach`` of ``node --test`` in TAP, ``turbo run build test``
from a full cache, ``nx run-many -t build test`` and ``lerna run build --stream``. Labels were written with each
scenario, before the engine saw the output. Needs Node.js 20 with npm and corepack (Debian ``nodejs``, ``npm``), with
pnpm 10.34.8, turbo 2.11.13, nx 24.0.7, lerna 9.0.7, typescript 5.9.3 and jest 30.5.2 from the npm registry (cached
in ``/tmp/u62-npm-cache``, pnpm's store in ``/tmp/u62-pnpm-store``) and yarn 4.9.2 fetched by corepack from the npm
registry (``COREPACK_NPM_REGISTRY``, into ``/tmp/u62-corepack``).
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-62"

_CACHE = "/tmp/u62-npm-cache"
_PNPM_STORE = "/tmp/u62-pnpm-store"
_TOOLS = Path("/tmp/u62-tools")
_YARN_CACHE = "/tmp/u62-yarn-cache"

_PNPM = "pnpm@10.34.8"
_TURBO = "turbo@2.11.13"
_NX = "nx@24.0.7"
_LERNA = "lerna@9.0.7"
_TSC = "typescript@5.9.3"
_JEST = "jest@30.5.2"
_YARN = "yarn@4.9.2"

#: What every runner is told: no telemetry, no update check, no daemon, no cloud, no colours.
_ENV = {
    "TURBO_TELEMETRY_DISABLED": "1",
    "DO_NOT_TRACK": "1",
    "TURBO_NO_UPDATE_NOTIFIER": "1",
    "NX_DAEMON": "false",
    "NX_NO_CLOUD": "true",
    "NX_TUI": "false",
    "FORCE_COLOR": "0",
    "CI": "1",
    "npm_config_cache": _CACHE,
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    "COREPACK_HOME": "/tmp/u62-corepack",
    "COREPACK_NPM_REGISTRY": "https://registry.npmjs.org",
    "COREPACK_ENABLE_DOWNLOAD_PROMPT": "0",
    "COREPACK_ENABLE_AUTO_PIN": "0",
    "YARN_ENABLE_TELEMETRY": "0",
    "YARN_ENABLE_PROGRESS_BARS": "0",
    "YARN_ENABLE_GLOBAL_CACHE": "0",
    "YARN_CACHE_FOLDER": _YARN_CACHE,
}


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, hashes, durations, dates."""
    return substitute(
        scrub(out, root),
        (r"Time:(\s+)\d+(\.\d+)? ?m?s\b", r"Time:\g<1>1.000s"),
        (r"(cache (?:hit|miss|bypass)[^,]*, (?:replaying logs|executing|suppressing logs)) [0-9a-f]{16}", r"\1 0"),
        (r"\b\d+(\.\d+)?m?s\b", "1ms"),
        (r"\(\d+(\.\d+)? ?m?s\)", "(1ms)"),
        (r"^(\s+[✓✕] .*?) \(1ms\)$", r"\1"),  # jest leaves a test's time out when under 1 ms
        (r"\b\d+(\.\d+)? s\b", "1.0 s"),
        (r"duration_ms:? [0-9.]+", "duration_ms 1.0"),
        (r"completed in \d+s \d+ms", "completed in 1s 0ms"),
        (r"Done in \d+s( \d+ms)?", "Done in 1s"),
        (r"Done in \d+ms", "Done in 1s"),
        (r"\(node:\d+\)", "(node:1000)"),
        (r"Took \d+(\.\d+)? ?m?s", "Took 1ms"),
        (r"\(\d+% of the run\)", "(50% of the run)"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "2026-01-01T00:00:00.000Z"),
    )


def _tools() -> str:
    """pnpm installed once under /tmp/u62-tools (not part of any output); the command that runs it."""
    if not (_TOOLS / "node_modules/.bin/pnpm").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        sh(f"npm install --prefer-offline --silent --prefix {_TOOLS} {_PNPM}", _TOOLS, env=_ENV)
    return f"{_TOOLS / 'node_modules/.bin/pnpm'} --config.store-dir={_PNPM_STORE}"


def _install(root: Path, *packages: str) -> None:
    """The root's dev dependencies installed from the shared cache (not part of the output)."""
    sh(f"npm install --prefer-offline --no-audit --no-fund --silent -D {' '.join(packages)}", root, env=_ENV)


def _run(cmd: str, root: Path) -> bytes:
    return _settle(sh(cmd, root, env=_ENV), root)


def _git(root: Path) -> None:
    write(root, {".gitignore": "node_modules/\ndist/\n.turbo/\n.nx/\n.yarn/\n"})
    sh("git init -q && git add -A && git -c user.name=acme -c user.email=acme@example.invalid commit -qm init", root)


def _root(root: Path, extra: dict[str, object] | None = None) -> None:
    pkg = {"name": "acme", "version": "1.0.0", "private": True, "workspaces": ["packages/*"], **(extra or {})}
    write(root, {"package.json": json.dumps(pkg, indent=2) + "\n"})


def _package(
    root: Path,
    name: str,
    scripts: dict[str, str],
    deps: list[str],
    files: dict[str, str],
    *,
    proto: str = "*",
    module: bool = True,
) -> None:
    pkg: dict[str, object] = {"name": f"@acme/{name}", "version": "1.0.0"}
    if module:
        pkg["type"] = "module"
    pkg |= {"main": "dist/index.js", "scripts": scripts, "dependencies": {f"@acme/{d}": proto for d in deps}}
    body = {f"packages/{name}/package.json": json.dumps(pkg, indent=2) + "\n"}
    body.update({f"packages/{name}/{rel}": text for rel, text in files.items()})
    write(root, body)


def _ident(name: str) -> str:
    head, *rest = name.split("-")
    return head + "".join(p.capitalize() for p in rest)


def _cls(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("-"))


# ---------------------------------------------------------------- sources


def _tsconfig(module: str = "NodeNext") -> str:
    opts: dict[str, object] = {
        "target": "ES2022",
        "module": module,
        "moduleResolution": "NodeNext" if module == "NodeNext" else "Node10",
        "strict": True,
        "declaration": True,
        "outDir": "dist",
        "rootDir": "src",
        "types": [],
        "skipLibCheck": True,
    }
    return json.dumps({"compilerOptions": opts, "include": ["src"]}, indent=2) + "\n"


def _ts_sources(name: str, parts: int, extra: dict[str, str] | None = None, module: str = "NodeNext") -> dict[str, str]:
    """A TypeScript package: ``parts`` modules (plus ``extra``) and an index that re-exports them."""
    cls, ident = _cls(name), _ident(name)
    files: dict[str, str] = {}
    index = []
    for k in range(parts):
        files[f"src/part{k}.ts"] = (
            f"export interface {cls}Line{k} {{\n  sku: string;\n  cents: number;\n  qty: number;\n}}\n\n"
            f"export function {ident}Total{k}(lines: {cls}Line{k}[]): number {{\n"
            "  return lines.reduce((sum, line) => sum + line.cents * line.qty, 0);\n}\n\n"
            f"export function {ident}Label{k}(line: {cls}Line{k}): string {{\n"
            f"  return `{name}:${{line.sku}}x${{line.qty}}`;\n}}\n"
        )
        index.append(f'export * from "./part{k}.js";\n')
    for rel, text in (extra or {}).items():
        files[rel] = text
        index.append(f'export * from "./{Path(rel).stem}.js";\n')
    files["src/index.ts"] = "".join(index)
    files["tsconfig.json"] = _tsconfig(module)
    return files


#: Test titles of the clean runs: what a shop's error-handling packages test (words a keyword engine reads as
#: failures).
_TITLES = [
    "retries a failed payment {k} times before giving up",
    "reports error {k} to the error sink",
    "moves exception {k} to the dead-letter queue",
    "records failed attempt {k} with its error code",
    "rethrows a TimeoutError after retry {k}",
    "marks job {k} as failed without crashing the worker",
]


def _title(name: str, k: int, business: bool) -> str:
    if business:
        return _TITLES[k % len(_TITLES)].format(k=k)
    return f"{name} total {k} sums cents times quantity"


def _node_tests(name: str, count: int, *, business: bool = False, special: str = "", dist: bool = True) -> str:
    """A ``node --test`` file of ``count`` tests on the built module of ``name``; ``special`` adds a test."""
    ident = _ident(name)
    src = "../dist/index.js" if dist else "../src/index.js"
    lines = [
        "import { describe, it } from 'node:test';\nimport assert from 'node:assert/strict';\n",
        f"import * as m from '{src}';\n\n",
        f"describe('{name}', () => {{\n",
    ]
    for k in range(count):
        want = 2 * (100 + k) + 3 * k
        lines.append(
            f"  it('{_title(name, k, business)}', () => {{\n"
            f"    const lines = [{{ sku: 'A{k}', cents: {100 + k}, qty: 2 }}, {{ sku: 'B{k}', cents: {k}, qty: 3 }}];\n"
            f"    assert.equal(m.{ident}Total{k % 4}(lines), {want});\n"
            f"    assert.equal(m.{ident}Label{k % 4}(lines[0]), '{name}:A{k}x2');\n  }});\n\n"
        )
    lines.append(special)
    lines.append("});\n")
    return "".join(lines)


def _cjs_module(name: str, parts: int, extra: str = "") -> str:
    ident = _ident(name)
    out = [f"// {name}: part of the acme shop.\n'use strict';\n\n"]
    names = []
    for k in range(parts):
        out.append(
            f"function {ident}Total{k}(lines) {{\n"
            "  return lines.reduce((sum, line) => sum + line.cents * line.qty, 0);\n}\n\n"
            f"function {ident}Label{k}(line) {{\n  return `{name}:${{line.sku}}x${{line.qty}}`;\n}}\n\n"
        )
        names += [f"{ident}Total{k}", f"{ident}Label{k}"]
    out.append(extra)
    out.append(f"module.exports = {{ {', '.join(names)} }};\n")
    return "".join(out)


def _jest_tests(name: str, count: int, *, business: bool = False, special: str = "", head: str = "") -> str:
    ident = _ident(name)
    out = [f"const m = require('../src/index.js');\n{head}\n", f"describe('{name}', () => {{\n"]
    for k in range(count):
        want = 2 * (100 + k) + 3 * k
        out.append(
            f"  test('{_title(name, k, business)}', () => {{\n"
            f"    const lines = [{{ sku: 'A{k}', cents: {100 + k}, qty: 2 }}, {{ sku: 'B{k}', cents: {k}, qty: 3 }}];\n"
            f"    expect(m.{ident}Total{k % 4}(lines)).toBe({want});\n  }});\n\n"
        )
    out.append(special)
    out.append("});\n")
    return "".join(out)


_SHOP = [
    "auth", "session", "catalog", "search", "pricing", "coupons", "cart", "tax", "orders", "invoice", "ledger",
    "refunds", "shipping", "webhooks", "audit", "export", "billing",
]  # fmt: skip

_CLEAN = ["error-reporter", "retry-queue", "failed-payments", "exception-tracker", "dead-letter"]


# ---------------------------------------------------------------- pnpm


def _pnpm(root: Path, names: list[str], scripts: dict[str, str], files_for, dev: list[str]) -> str:
    """A pnpm workspace of ``names`` chained by ``workspace:*``; the command that runs pnpm."""
    write(root, {"pnpm-workspace.yaml": "packages:\n  - 'packages/*'\n"})
    dev_deps = dict(d.rsplit("@", 1) for d in dev)
    pkg = {"name": "acme", "version": "1.0.0", "private": True, "devDependencies": dev_deps}
    write(root, {"package.json": json.dumps(pkg, indent=2) + "\n"})
    for i, name in enumerate(names):
        _package(root, name, scripts, names[max(0, i - 2) : i], files_for(name), proto="workspace:*")
    pnpm = _tools()
    sh(f"{pnpm} install --prefer-offline --reporter=silent", root, env=_ENV)
    return pnpm


@case(
    "u62_pnpm_node_test_ledger_fail",
    "pnpm",
    clean=False,
    group=GROUP,
    decisive=[
        "test at test/totals.test.js:150:3",
        "Summary: 1 fails, 21 passes",
        "@acme/ledger@1.0.0 test: `node --test --test-reporter=spec test/`",
    ],
)
def _pnpm_fail(root: Path) -> bytes:
    names = [*_SHOP[:12], "errors", "retry", *_SHOP[12:], "exceptions", "payments", "reports"]

    def files_for(name: str) -> dict[str, str]:
        special = ""
        if name == "ledger":
            special = (
                "  it('balances a partially refunded invoice', () => {\n"
                "    const lines = [{ sku: 'INV-7', cents: 1850, qty: 1 }, { sku: 'RF-7', cents: -10, qty: 1 }];\n"
                "    assert.equal(m.ledgerTotal1(lines), 1850);\n  });\n"
            )
        return {
            "src/index.js": _cjs_module(name, 4).replace("module.exports = {", "export {").replace("'use strict';", ""),
            "test/totals.test.js": _node_tests(name, 24, special=special, dist=False),
        }

    scripts = {"test": "node --test --test-reporter=spec test/"}
    pnpm = _pnpm(root, names, scripts, files_for, [])
    return _run(f"{pnpm} -r --stream --no-bail --workspace-concurrency=1 run test", root)


@case(
    "u62_pnpm_build_test_clean",
    "pnpm",
    clean=True,
    group=GROUP,
    decisive=["packages/webhooks build: Done", "ℹ pass 21"],
)
def _pnpm_clean(root: Path) -> bytes:
    names = [*_CLEAN, "audit", "billing", "ledger", "session", "orders", "webhooks"]

    def files_for(name: str) -> dict[str, str]:
        files = _ts_sources(name, 4)
        files["test/jobs.test.js"] = _node_tests(name, 21 if name == "webhooks" else 18, business=True)
        return files

    scripts = {"build": "tsc -p tsconfig.json --listFiles", "test": "node --test --test-reporter=spec test/"}
    pnpm = _pnpm(root, names, scripts, files_for, [_TSC])
    cmd = f"{pnpm} -r --stream --workspace-concurrency=1 run build && {pnpm} -r --workspace-concurrency=1 run test"
    return _run(cmd, root)


# ---------------------------------------------------------------- npm workspaces with jest


@case(
    "u62_npm_ws_jest_missing_export",
    "npm workspaces",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: shippingZoneRate is not a function",
        "● shipping › quotes a zone rate for a parcel",
        "npm error workspace @acme/shipping@1.0.0",
    ],
)
def _npm_jest_fail(root: Path) -> bytes:
    names = ["auth", "catalog", "pricing", "cart", "tax", "orders", "shipping", "invoice", "refunds", "ledger"]
    names += ["search", "audit", "export", "webhooks"]
    _root(root)
    for name in names:
        files = {"src/index.js": _cjs_module(name, 4)}
        special = ""
        if name == "shipping":
            files["src/zones.js"] = (
                "'use strict';\n\nconst ZONES = { eu: 450, us: 700, apac: 900 };\n\n"
                "function zoneRate(zone, grams) {\n  return ZONES[zone] + Math.ceil(grams / 500) * 120;\n}\n\n"
                "module.exports = { zoneRate, ZONES };\n"
            )
            special = (
                "  test('quotes a zone rate for a parcel', () => {\n"
                "    const { shippingZoneRate } = require('../src/zones.js');\n"
                "    expect(shippingZoneRate('eu', 1200)).toBe(810);\n  });\n"
            )
        for t in range(3):
            files[f"test/totals{t}.test.js"] = _jest_tests(name, 12, special=special if t == 1 else "")
        _package(root, name, {"test": "jest --runInBand --verbose"}, [], files, module=False)
    _install(root, _JEST)
    return _run("npm run test --workspaces", root)


@case(
    "u62_npm_ws_jest_console_clean",
    "npm workspaces",
    clean=True,
    group=GROUP,
    decisive=["Tests:       96 passed, 96 total"],
    note="the label is the jest summary of @acme/webhooks, the last workspace, with 96 tests",
)
def _npm_jest_clean(root: Path) -> bytes:
    names = [*_CLEAN, "webhooks"]
    _root(root)
    for i, name in enumerate(names):
        ident = _ident(name)
        extra = (
            f"function {ident}Handle(job) {{\n"
            "  if (job.attempts >= 3) {\n"
            "    console.error(`payment ${job.id} failed after ${job.attempts} attempts: ECONNRESET`);\n"
            "    return 'dead-letter';\n  }\n"
            "  console.warn(`retrying job ${job.id} (attempt ${job.attempts + 1})`);\n"
            "  return 'retry';\n}\n\n"
        )
        src = _cjs_module(name, 4, extra).replace("module.exports = {", f"module.exports = {{ {ident}Handle,")
        special = (
            "  test('sends a job to the dead-letter queue after three failed attempts', () => {\n"
            f"    expect(m.{ident}Handle({{ id: 'job-{i}', attempts: 3 }})).toBe('dead-letter');\n"
            f"    expect(m.{ident}Handle({{ id: 'job-{i}b', attempts: 1 }})).toBe('retry');\n  }});\n"
        )
        files = {"src/index.js": src}
        count = 96 if name == "webhooks" else 20 + 3 * i
        files["test/jobs.test.js"] = _jest_tests(name, count - 1, business=True, special=special)
        _package(root, name, {"test": "jest --runInBand --verbose"}, [], files, module=False)
    _install(root, _JEST)
    return _run("npm test --workspaces", root)


# ---------------------------------------------------------------- yarn berry


def _yarn(root: Path, dev: list[str]) -> str:
    """A yarn 4 project (node_modules linker, the npm registry); dependencies installed; the yarn command."""
    pkg = {
        "name": "acme",
        "version": "1.0.0",
        "private": True,
        "workspaces": ["packages/*"],
        "packageManager": _YARN,
        "devDependencies": dict(d.rsplit("@", 1) for d in dev),
    }
    write(
        root,
        {
            "package.json": json.dumps(pkg, indent=2) + "\n",
            ".yarnrc.yml": 'nodeLinker: node-modules\nnpmRegistryServer: "https://registry.npmjs.org"\n',
        },
    )
    sh("corepack yarn install --mode=skip-build", root, env={**_ENV, "YARN_ENABLE_IMMUTABLE_INSTALLS": "false"})
    return "corepack yarn"


@case(
    "u62_yarn_foreach_tsc_invoice",
    "yarn workspaces foreach",
    clean=False,
    group=GROUP,
    decisive=[
        "src/credit.ts(10,3): error TS2322: Type 'number' is not assignable to type 'string'.",
        "The command failed in workspace @acme/invoice@workspace:packages/invoice with exit code 2",
    ],
)
def _yarn_fail(root: Path) -> bytes:
    names = ["auth", "session", "catalog", "search", "pricing", "coupons", "cart", "tax", "orders", "invoice"]
    names += ["ledger", "refunds", "shipping", "webhooks", "audit", "export"]
    for i, name in enumerate(names):
        extra = {}
        if name == "invoice":
            extra["src/credit.ts"] = (
                "export interface CreditNote {\n  invoiceId: string;\n  cents: number;\n  memo: string;\n}\n\n"
                "export function creditNote(invoiceId: string, cents: number): CreditNote {\n"
                "  const rounded = Math.round(cents);\n"
                "  let memo: string = `credit ${invoiceId}`;\n"
                "  memo = rounded;\n"
                "  return { invoiceId, cents: rounded, memo };\n}\n"
            )
        files = _ts_sources(name, 5, extra)
        deps = names[max(0, i - 1) : i]
        build = {"build": "yarn run -T tsc -p tsconfig.json --listFiles"}
        _package(root, name, build, deps, files, proto="workspace:*")
    yarn = _yarn(root, [_TSC])
    return _run(f"{yarn} workspaces foreach -A -t -v run build", root)


@case(
    "u62_yarn_foreach_tap_clean",
    "yarn workspaces foreach",
    clean=True,
    group=GROUP,
    decisive=["[@acme/session]: # fail 0"],
)
def _yarn_clean(root: Path) -> bytes:
    names = [*_CLEAN, "webhooks", "audit", "session"]
    for i, name in enumerate(names):
        files = {
            "src/index.js": _cjs_module(name, 4).replace("module.exports = {", "export {").replace("'use strict';", ""),
            "test/jobs.test.js": _node_tests(name, 16 + 2 * i, business=True, dist=False),
        }
        deps = names[max(0, i - 1) : i]
        _package(root, name, {"test": "node --test --test-reporter=tap test/"}, deps, files, proto="workspace:*")
    yarn = _yarn(root, [])
    return _run(f"{yarn} workspaces foreach -A -t -v run test", root)


# ---------------------------------------------------------------- turbo


def _turbo_repo(root: Path, names: list[str], files_for) -> None:
    _root(root, {"packageManager": "npm@11.19.1"})
    build = {"dependsOn": ["^build"], "inputs": ["src/**", "tsconfig.json"], "outputs": ["dist/**"]}
    tasks = {"build": build, "test": {"dependsOn": ["build"]}}
    write(root, {"turbo.json": json.dumps({"tasks": tasks}, indent=2) + "\n"})
    scripts = {"build": "tsc -p tsconfig.json --listFiles", "test": "node --test --test-reporter=spec test/"}
    for i, name in enumerate(names):
        _package(root, name, scripts, names[max(0, i - 2) : i], files_for(name))
    _install(root, _TURBO, _TSC)
    _git(root)


@case(
    "u62_turbo_replay_coupons_fail",
    "turbo",
    clean=False,
    group=GROUP,
    decisive=[
        "@acme/coupons:test: test at test/totals.test.js:90:3",
        "@acme/coupons#test:  ERROR  command (/tmp/work/packages/coupons) /usr/bin/npm run test exited (1)",
        "Failed:    @acme/coupons#test",
    ],
)
def _turbo_fail(root: Path) -> bytes:
    names = _SHOP[:16]

    def files_for(name: str) -> dict[str, str]:
        files = _ts_sources(name, 4)
        files["test/totals.test.js"] = _node_tests(name, 14)
        return files

    _turbo_repo(root, names, files_for)
    sh("npx turbo run build test --concurrency=1", root, env=_ENV)  # fills the cache
    test = root / "packages/coupons/test/totals.test.js"
    special = (
        "  it('stacks a percent coupon after a fixed coupon', () => {\n"
        "    const lines = [{ sku: 'FIX-5', cents: 1000, qty: 1 }];\n"
        "    assert.equal(m.couponsTotal2(lines) * 0.9 - 500, 450);\n  });\n"
    )
    test.write_text(test.read_text()[: -len("});\n")] + special + "});\n")
    return _run("npx turbo run build test --continue --concurrency=1", root)


@case(
    "u62_turbo_full_cache_clean",
    "turbo",
    clean=True,
    group=GROUP,
    decisive=["Tasks:    24 successful, 24 total", "Cached:    24 cached, 24 total"],
)
def _turbo_clean(root: Path) -> bytes:
    names = [*_CLEAN, "webhooks", "audit", "billing", "ledger", "orders", "session", "export"]

    def files_for(name: str) -> dict[str, str]:
        files = _ts_sources(name, 4)
        files["test/jobs.test.js"] = _node_tests(name, 12, business=True)
        return files

    _turbo_repo(root, names, files_for)
    sh("npx turbo run build test --concurrency=1", root, env=_ENV)  # fills the cache
    return _run("npx turbo run build test --concurrency=1", root)


# ---------------------------------------------------------------- nx


def _nx_repo(root: Path, names: list[str], files_for, scripts: dict[str, str]) -> None:
    _root(root)
    defaults = {"build": {"dependsOn": ["^build"], "cache": True}, "test": {"dependsOn": ["build"], "cache": True}}
    write(root, {"nx.json": json.dumps({"targetDefaults": defaults}, indent=2) + "\n"})
    for i, name in enumerate(names):
        _package(root, name, scripts, names[max(0, i - 1) : i], files_for(name), module=False)
    _install(root, _NX, _TSC, _JEST)
    _git(root)


@case(
    "u62_nx_jest_refunds_toequal",
    "nx",
    clean=False,
    group=GROUP,
    decisive=[
        "● refunds › splits a refund across the original payments",
        "- @acme/refunds:test",
        "Running targets build, test for 13 projects failed",
    ],
)
def _nx_fail(root: Path) -> bytes:
    names = ["auth", "session", "catalog", "pricing", "cart", "tax", "orders", "invoice", "refunds", "ledger"]
    names += ["shipping", "webhooks", "audit"]

    def files_for(name: str) -> dict[str, str]:
        files = _ts_sources(name, 4, module="CommonJS")
        special = ""
        if name == "refunds":
            special = (
                "  test('splits a refund across the original payments', () => {\n"
                "    const split = [1200, 800].map((c) => ({ payment: `pay-${c}`, cents: Math.round(c * 0.25) }));\n"
                "    expect(split).toEqual([\n"
                "      { payment: 'pay-1200', cents: 300 },\n"
                "      { payment: 'pay-800', cents: 250 },\n    ]);\n  });\n"
            )
        files["test/totals.test.js"] = _jest_tests(name, 22, special=special).replace("../src/", "../dist/")
        return files

    scripts = {"build": "tsc -p tsconfig.json --listFiles", "test": "jest --runInBand --verbose"}
    _nx_repo(root, names, files_for, scripts)
    sh("npx nx run-many -t build --parallel=1", root, env=_ENV)  # fills the cache
    return _run("npx nx run-many -t build test --parallel=1 --outputStyle=static", root)


@case(
    "u62_nx_build_test_clean",
    "nx",
    clean=True,
    group=GROUP,
    decisive=["Successfully ran targets build, test for 9 projects"],
)
def _nx_clean(root: Path) -> bytes:
    names = [*_CLEAN, "audit", "webhooks", "billing", "export"]

    def files_for(name: str) -> dict[str, str]:
        files = _ts_sources(name, 4, module="CommonJS")
        files["test/jobs.test.js"] = _jest_tests(name, 16, business=True).replace("../src/", "../dist/")
        return files

    scripts = {"build": "tsc -p tsconfig.json --listFiles", "test": "jest --runInBand --verbose"}
    _nx_repo(root, names, files_for, scripts)
    return _run("npx nx run-many -t build test --parallel=1 --outputStyle=static", root)


# ---------------------------------------------------------------- lerna


def _lerna_repo(root: Path, names: list[str], files_for, scripts: dict[str, str]) -> None:
    _root(root)
    write(root, {"lerna.json": json.dumps({"version": "1.0.0", "npmClient": "npm"}, indent=2) + "\n"})
    for i, name in enumerate(names):
        _package(root, name, scripts, names[max(0, i - 1) : i], files_for(name))
    _install(root, _LERNA, _TSC)
    _git(root)


@case(
    "u62_lerna_stream_tsc_webhooks",
    "lerna",
    clean=False,
    group=GROUP,
    decisive=[
        "error TS2339: Property 'signingSecret' does not exist on type 'WebhookEndpoint'.",
        "@acme/webhooks: src/deliver.ts(",
        "Running target test for 17 projects failed",
    ],
)
def _lerna_fail(root: Path) -> bytes:
    names = [*_SHOP[:13], "webhooks", "audit", "export", "billing"]

    def files_for(name: str) -> dict[str, str]:
        extra = {}
        if name == "webhooks":
            extra["src/deliver.ts"] = (
                "export interface WebhookEndpoint {\n  url: string;\n  secret: string;\n  retries: number;\n}\n\n"
                "export function signatureHeader(endpoint: WebhookEndpoint, body: string): string {\n"
                "  const key = endpoint.signingSecret;\n"
                "  return `t=0,v1=${key}:${body.length}`;\n}\n"
            )
        files = _ts_sources(name, 4, extra)
        files["test/totals.test.js"] = _node_tests(name, 10)
        return files

    scripts = {"test": "tsc -p tsconfig.json --listFiles && node --test --test-reporter=spec test/"}
    _lerna_repo(root, names, files_for, scripts)
    return _run("npx lerna run test --stream --concurrency 1", root)


@case(
    "u62_lerna_stream_build_clean",
    "lerna",
    clean=True,
    group=GROUP,
    decisive=["Successfully ran target build for 12 projects"],
)
def _lerna_clean(root: Path) -> bytes:
    names = [*_CLEAN, "webhooks", "audit", "billing", "ledger", "orders", "session", "export"]

    def files_for(name: str) -> dict[str, str]:
        return _ts_sources(name, 6)

    _lerna_repo(root, names, files_for, {"build": "tsc -p tsconfig.json --listFiles --extendedDiagnostics"})
    return _run("npx lerna run build --stream --concurrency 1", root)
