"""Held-out outputs (group ``unseen-80``): an eightieth batch, JavaScript and TypeScript static analysis beyond ESLint
as an agent runs it on a generated single-package TypeScript project of 160 modules (20 business areas times
``Errors``, ``RetryQueue``, ``FailedPayments``, ``Reporter`` ... modules with ``handleError``-style exports).

Failing runs: ``biome lint --max-diagnostics=none`` with 160 ``noExplicitAny`` warnings and one ``debugger`` statement
(an error) in ``src/refunds/refundsRetryQueue.ts``, ``oxlint`` with 160 unused-variable warnings and one
``no-debugger`` error in ``src/ledger/ledgerFailedPayments.ts``, ``tsc --noEmit --pretty false --listFiles`` with one
type error in ``src/shipping/shippingReporter.ts``, ``knip`` with an unused file, an unused dependency and an unlisted
one among 160 unused exports, ``madge`` listing every module's imports then ``madge --circular`` finding one cycle
among the ``coupons`` modules, and ``npm pack --dry-run`` then ``publint`` of a package whose ``exports`` point at a
missing file. Clean runs full of errors, failures and retries: ``biome check`` with warnings only, ``tsc --noEmit
--pretty false --extendedDiagnostics --listFiles``, ``madge`` then ``madge --circular`` with no cycle, and ``depcheck
--json`` pretty-printed with nothing missing. Labels were written with each scenario, before the engine saw the
output. Needs Node.js 20 and npm, with @biomejs/biome 2.6.9, oxlint 1.96.0, knip 6.48.0, madge 8.0.0, depcheck 1.4.7,
publint 0.3.25 and typescript 5.9.3 from the npm registry (installed once under ``/tmp/u80-tools``).
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-80"

#: The tools, installed once and kept between runs.
_TOOLS = Path("/tmp/u80-tools")
_NPM_TOOLS = "@biomejs/biome@2.6.9 oxlint@1.96.0 knip@6.48.0 madge@8.0.0 depcheck@1.4.7 publint@0.3.25 typescript@5.9.3"
_ENV = {
    "FORCE_COLOR": "0",
    "NO_COLOR": "1",
    "npm_config_cache": "/tmp/u80-npm-cache",
    "npm_config_update_notifier": "false",
    "RAYON_NUM_THREADS": "1",
}

_PACKAGES = [("p-retry", "pRetry"), ("zod", "{ z }"), ("pino", "pino"), ("dayjs", "dayjs"), ("nanoid", "{ nanoid }")]
_KINDS = ["Errors", "RetryQueue", "FailedPayments", "Reporter", "Service", "Repository", "Validator", "Handler"]


def _bin() -> Path:
    if not (_TOOLS / ".complete").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        (_TOOLS / "package.json").write_text('{"name": "u80-tools", "private": true}\n')
        sh(f"npm install --no-audit --no-fund --silent {_NPM_TOOLS} && touch .complete", _TOOLS, env=_ENV)
    return _TOOLS / "node_modules/.bin"


def _run(cmd: str, root: Path) -> bytes:
    path = f"{_bin()}:/usr/local/bin:/usr/bin:/bin"
    return sh(cmd, root, env={**_ENV, "HOME": str(root / "home"), "PATH": path})


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"in \d+(\.\d+)?(ms|s|µs)\b", "in 10ms"),
        (r"Finished in \d+(\.\d+)?(ms|s)", "Finished in 10ms"),
        (r"\(\d+(\.\d+)?m?s\)", "(100ms)"),
        (r"^(\w[\w /]*time:\s+)\d+\.\d+s$", r"\g<1>0.10s"),
        (r"^(Memory used:\s+)\d+K$", r"\g<1>100000K"),
        (r"^(npm notice shasum:\s+).*$", r"\g<1>0000"),
        (r"^(npm notice integrity:\s+).*$", r"\g<1>sha512-0000"),
    )


def _camel(area: str) -> str:
    return area[:1].upper() + area[1:]


def _modules() -> list[tuple[str, str]]:
    """(area, module name) for the 160 modules, in dependency order."""
    return [(area, f"{area}{kind}") for area in WORDS for kind in _KINDS]


def _project(
    root: Path,
    *,
    anys: bool = False,
    unused_locals: bool = False,
    debugger_in: str = "",
    type_error_in: str = "",
    cycle: bool = False,
    packages: bool = False,
    index_all: bool = True,
) -> None:
    mods = _modules()
    where = {name: area for area, name in mods}
    files: dict[str, str] = {}
    for i, (area, name) in enumerate(mods):
        deps = [mods[j][1] for j in (i - 1, i - 7) if j >= 0]
        if cycle and name == "couponsErrors":
            deps.append("couponsFailedPayments")
        lines = []
        for d in deps:
            rel = f"./{d}" if where[d] == area else f"../{where[d]}/{d}"
            lines.append(f'import {{ handle{_camel(d)} }} from "{rel}";')
        if packages:
            pkg, ident = _PACKAGES[i % len(_PACKAGES)]
            lines.append(f'import {ident} from "{pkg}";')
        cap = _camel(name)
        const = "".join("_" + c if c.isupper() else c.upper() for c in name)
        arg = "any" if anys else f"{cap}Record"
        lines += [
            "",
            f"export interface {cap}Record {{",
            "  id: string;",
            "  attempts: number;",
            "  failed: boolean;",
            "  errorCode?: string;",
            "}",
            "",
            f"export const {const}_MAX_RETRIES = {3 + i % 5};",
            "",
            f"export function handle{cap}(record: {arg}): string {{",
        ]
        if unused_locals:
            lines.append(f'  const retryBudget = "{name}-budget";')
        if name == debugger_in:
            lines.append("  debugger;")
        if name == type_error_in:
            lines.append("  const attemptsLeft: number = record.errorCode;")
            lines.append("  record.attempts = attemptsLeft;")
        for d in deps:
            lines.append(f"  handle{_camel(d)}({{ ...record, attempts: record.attempts + 1 }});")
        if packages:
            lines.append(f"  void {_PACKAGES[i % len(_PACKAGES)][1].strip('{ }')};")
        lines += [
            "  if (record.failed) {",
            f"    return `{name}: failed after ${{record.attempts}} attempts (${{record.errorCode}})`;",
            "  }",
            f'  return "{name}: ok";',
            "}",
            "",
        ]
        files[f"src/{area}/{name}.ts"] = "\n".join(lines)
    used = mods if index_all else mods[-1:]
    index = [f'export {{ handle{_camel(n)} }} from "./{a}/{n}";' for a, n in used]
    files["src/index.ts"] = "\n".join(index) + "\n"
    files["tsconfig.json"] = json.dumps(
        {
            "compilerOptions": {
                "target": "ES2022",
                "module": "ESNext",
                "moduleResolution": "bundler",
                "strict": True,
                "noEmit": True,
                "skipLibCheck": True,
                "types": [],
            },
            "include": ["src"],
        },
        indent=2,
    )
    write(root, files)


def _package(root: Path, deps: dict[str, str], dev: dict[str, str] | None = None) -> None:
    pkg = {
        "name": "@acme/billing-errors",
        "version": "3.4.0",
        "private": True,
        "type": "module",
        "main": "src/index.ts",
        "dependencies": deps,
    }
    if dev:
        pkg["devDependencies"] = dev
    (root / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")


_BIOME = {"linter": {"rules": {"suspicious": {"noExplicitAny": "warn"}}}}


# ---------------------------------------------------------------- biome


@case(
    "u80_biome_lint_debugger",
    "biome lint",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refunds/refundsRetryQueue.ts:14:3 lint/suspicious/noDebugger",
        "This is an unexpected use of the debugger statement.",
        "Found 1 error.",
    ],
)
def _biome_lint_debugger(root: Path) -> bytes:
    _project(root, anys=True, debugger_in="refundsRetryQueue")
    _package(root, {})
    (root / "biome.json").write_text(json.dumps(_BIOME, indent=2) + "\n")
    return _settle(_run("biome lint --max-diagnostics=none .", root), root)


@case(
    "u80_biome_check_warnings_clean",
    "biome check",
    clean=True,
    group=GROUP,
    decisive=["Checked 164 files in 10ms. No fixes applied.", "Found 160 warnings."],
)
def _biome_check_warnings_clean(root: Path) -> bytes:
    _project(root, anys=True)
    _package(root, {})
    (root / "biome.json").write_text(json.dumps(_BIOME, indent=2) + "\n")
    _run("biome check --write .", root)
    return _settle(_run("biome check --max-diagnostics=60 .", root), root)


# ---------------------------------------------------------------- oxlint


@case(
    "u80_oxlint_debugger_error",
    "oxlint",
    clean=False,
    group=GROUP,
    decisive=[
        "x eslint(no-debugger): `debugger` statement is not allowed",
        ",-[src/ledger/ledgerFailedPayments.ts:15:3]",
        "Found 160 warnings and 1 error.",
    ],
)
def _oxlint_debugger_error(root: Path) -> bytes:
    _project(root, unused_locals=True, debugger_in="ledgerFailedPayments")
    _package(root, {})
    (root / ".oxlintrc.json").write_text('{"rules": {"no-debugger": "error"}}\n')
    return _settle(_run("oxlint --threads 1 src", root), root)


# ---------------------------------------------------------------- tsc


@case(
    "u80_tsc_one_type_error",
    "tsc",
    clean=False,
    group=GROUP,
    decisive=[
        "src/shipping/shippingReporter.ts(14,9): error TS2322:",
        "Type 'string | undefined' is not assignable to type 'number'.",
    ],
)
def _tsc_one_type_error(root: Path) -> bytes:
    _project(root, type_error_in="shippingReporter")
    _package(root, {}, {"typescript": "5.9.3"})
    return _settle(_run("tsc --noEmit --pretty false --listFiles -p .", root), root)


@case(
    "u80_tsc_extended_clean",
    "tsc",
    clean=True,
    group=GROUP,
    decisive=["Files:                        224"],
)
def _tsc_extended_clean(root: Path) -> bytes:
    _project(root)
    _package(root, {}, {"typescript": "5.9.3"})
    return _settle(_run("tsc --noEmit --pretty false --extendedDiagnostics --listFiles -p .", root), root)


# ---------------------------------------------------------------- knip


@case(
    "u80_knip_unused_and_unlisted",
    "knip",
    clean=False,
    group=GROUP,
    decisive=["src/legacy/retryQueueV1.ts", "Unused dependencies (1)", "ioredis  src/audit/auditHandler.ts"],
)
def _knip_unused_and_unlisted(root: Path) -> bytes:
    _project(root)
    _package(root, {"lodash": "4.17.21"}, {"typescript": "5.9.3"})
    write(
        root,
        {
            "src/legacy/retryQueueV1.ts": "export const LEGACY_RETRY_QUEUE = 'v1';\n",
            "src/audit/auditHandler.ts": (root / "src/audit/auditHandler.ts").read_text()
            + 'import Redis from "ioredis";\nexport const auditRedis = Redis;\n',
        },
    )
    return _settle(_run("knip --no-progress", root), root)


# ---------------------------------------------------------------- madge


@case(
    "u80_madge_list_then_cycle",
    "madge",
    clean=False,
    group=GROUP,
    decisive=[
        "Found 1 circular dependency!",
        "1) coupons/couponsErrors.ts > coupons/couponsFailedPayments.ts > coupons/couponsRetryQueue.ts",
    ],
)
def _madge_list_then_cycle(root: Path) -> bytes:
    _project(root, cycle=True)
    _package(root, {})
    return _settle(_run("madge --extensions ts src; madge --circular --extensions ts src", root), root)


@case(
    "u80_madge_no_cycle_clean",
    "madge",
    clean=True,
    group=GROUP,
    decisive=["No circular dependency found!"],
)
def _madge_no_cycle_clean(root: Path) -> bytes:
    _project(root)
    _package(root, {})
    return _settle(_run("madge --extensions ts src; madge --circular --extensions ts src", root), root)


# ---------------------------------------------------------------- depcheck


@case(
    "u80_depcheck_json_clean",
    "depcheck",
    clean=True,
    group=GROUP,
    decisive=['"missing": {},'],
)
def _depcheck_json_clean(root: Path) -> bytes:
    _project(root, packages=True)
    _package(root, {pkg: "1.0.0" for pkg, _ in _PACKAGES})
    return _settle(_run(f"depcheck --json . | {PY} -m json.tool", root), root)


# ---------------------------------------------------------------- publint


@case(
    "u80_publint_missing_export",
    "publint",
    clean=False,
    group=GROUP,
    decisive=['pkg.exports["./retry"].import is ./dist/retry/index.js but the file does not exist.'],
)
def _publint_missing_export(root: Path) -> bytes:
    files = {}
    for area, name in _modules():
        files[f"dist/{area}/{name}.js"] = f"export function handle{_camel(name)}(r) {{ return '{name}: ' + r.id; }}\n"
        files[f"dist/{area}/{name}.d.ts"] = (
            f"export declare function handle{_camel(name)}(r: {{id: string}}): string;\n"
        )
    files["dist/index.js"] = "export {};\n"
    files["dist/index.d.ts"] = "export {};\n"
    write(root, files)
    pkg = {
        "name": "@acme/error-reporter",
        "version": "2.1.0",
        "type": "module",
        "main": "./dist/index.js",
        "types": "./dist/index.d.ts",
        "exports": {
            ".": {"types": "./dist/index.d.ts", "import": "./dist/index.js"},
            "./errors": {"types": "./dist/errors/errorsErrors.d.ts", "import": "./dist/errors/errorsErrors.js"},
            "./retry": {"types": "./dist/retry/retryRetryQueue.d.ts", "import": "./dist/retry/index.js"},
        },
        "files": ["dist"],
        "engines": {"node": ">=20"},
        "license": "MIT",
    }
    (root / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    return _settle(_run("npm pack --dry-run && publint", root), root)
