"""Held-out outputs (group ``unseen-59``): a fifty-ninth batch, front-end production builds as a coding agent runs them
on a shop's web app generated in the scenario (100 to 200 modules and components named after the business words).

Failing runs: ``vite build --debug`` (Vite 8 with Rolldown) whose config dump runs over hundreds of lines before a
refunds api module's import of a missing ``./refund-rules.js``, ``npm run build --workspaces`` over five Vite apps where
the third, ``@shop/storefront``, imports a ``roundCents`` that ``money.js`` does not export (the others build, with
Rolldown's ineffective-dynamic-import warnings), ``webpack --mode production`` (webpack 5 with babel-loader, stats
``detailed``) where a shipping component imports a missing ``../../lib/carrier-codes``, ``tsc -b --verbose`` over 20
project references (``listEmittedFiles`` on) with one type error in the ``ledger`` project, ``esbuild --bundle
--metafile`` with 144 duplicate-key warnings from a messages table and one missing export, and ``next build`` (Next.js
16 with Turbopack) whose pages log while they prerender until ``/orders/summary`` throws. Clean runs of the same app
with areas named ``errors-page``, ``failed-orders``, ``retry-banner`` and ``payment-exceptions``: ``vite build`` with
warnings, ``webpack`` with three entries and size-limit warnings, ``tsc -b --verbose``, ``esbuild --analyze=verbose``
with the same 144 warnings and ``next build`` with its route table. Labels were written with each scenario, before
the engine saw the output. Needs Node.js 20 with npm (Debian ``nodejs``, ``npm``) and, from the npm registry
(installed once into /tmp/u59-tools, each scenario getting a hard-linked copy), vite, webpack, webpack-cli,
babel-loader with @babel/core, @babel/preset-env and @babel/preset-react, typescript, esbuild, next, react and
react-dom.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-59"

#: Where the build tools are installed once from the npm registry (pinned); each scenario gets a hard-linked copy of
#: its node_modules, so that no tool sees a symbolic link out of the project.
_TOOLS = Path("/tmp/u59-tools")
_CACHE = "/tmp/u59-npm-cache"
_PACKAGES = [
    "vite@8.4.1", "webpack@5.113.0", "webpack-cli@6.0.1", "typescript@5.9.3", "esbuild@0.28.2", "next@16.5.0",
    "react@19.3.1", "react-dom@19.3.1", "babel-loader@10.1.1", "@babel/core@7.29.17", "@babel/preset-env@7.29.17",
    "@babel/preset-react@7.29.17",
]  # fmt: skip

_ENV = {
    "CI": "1",
    "FORCE_COLOR": "0",
    "NEXT_TELEMETRY_DISABLED": "1",
    "npm_config_cache": _CACHE,
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
}


def _tools(root: Path) -> None:
    """The pinned tools installed in ``_TOOLS`` (once) and hard-linked into ``root/node_modules``."""
    if not (_TOOLS / "node_modules/.bin/next").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        (_TOOLS / "package.json").write_text('{"name": "u59-tools", "version": "1.0.0", "private": true}\n')
        sh(f"npm install --no-audit --no-fund --silent {' '.join(_PACKAGES)}", _TOOLS, env=_ENV)
    sh(f"cp -al {_TOOLS / 'node_modules'} {root / 'node_modules'}", root)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, dates."""
    out = out.replace(str(root).replace("/", "\\/").encode(), b"\\/tmp\\/work")
    return substitute(
        scrub(out, root),
        (r"compiled with (.*) \([0-9a-f]{20}\)$", r"compiled with \1 (00000000000000000000)"),
        (r"\b\d+(\.\d+)? ?m?s\b", "1ms"),
        (r"\(node:\d+\)", "(node:1000)"),
        (r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z ", "2026-01-01T00:00:00.000Z "),
        (r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d: ", "2026-01-01 00:00:00: "),
        (r"^\d{1,2}:\d\d:\d\d [AP]M - ", "12:00:00 AM - "),
        (r"digest: '\d+'", "digest: '1000000000'"),
        (r"webSocketToken: '[^']*'", "webSocketToken: 'aaaaaaaaaaaa'"),
    )


def _run(cmd: str, root: Path, env: dict[str, str] | None = None) -> bytes:
    return _settle(sh(cmd, root, env={**_ENV, **(env or {})}), root)


# ---------------------------------------------------------------- the shop's app

_KINDS = ["page", "list", "row", "summary", "filters", "banner", "api", "store"]


def _pascal(name: str) -> str:
    return "".join(p.capitalize() for p in name.replace("_", "-").split("-"))


def _component(area: str, kind: str, jsx: bool) -> str:
    """One module of the app: a component (JSX or ``createElement``) or an api/store helper."""
    name = f"{_pascal(area)}{_pascal(kind)}"
    if kind == "api":
        return (
            "import { fetchJson } from '../../lib/http.js';\n\n"
            f"export async function load{_pascal(area)}(page = 1) {{\n"
            f"  const body = await fetchJson(`/api/{area}?page=${{page}}`);\n"
            f"  return body.items.map((item) => ({{ ...item, area: '{area}' }}));\n}}\n\n"
            f"export function {area.replace('-', '_')}Url(id) {{\n  return `/api/{area}/${{id}}`;\n}}\n"
        )
    if kind == "store":
        return (
            f"const state = {{ items: [], page: 1, area: '{area}' }};\n\n"
            f"export function set{_pascal(area)}(items) {{\n  state.items = items;\n  return state;\n}}\n\n"
            f"export function {area.replace('-', '_')}Count() {{\n  return state.items.length;\n}}\n"
        )
    money = "import { formatCents } from '../../lib/money.js';\n"
    if jsx:
        body = (
            f"export default function {name}({{ items = [] }}) {{\n"
            "  return (\n"
            f'    <section className="{area}-{kind}">\n'
            f"      <h2>{_pascal(area)} {kind}</h2>\n"
            "      <ul>\n"
            "        {items.map((item) => (\n"
            "          <li key={item.id}>{formatCents(item.cents)}</li>\n"
            "        ))}\n"
            "      </ul>\n"
            "    </section>\n"
            "  );\n}\n"
        )
    else:
        body = (
            "import { h } from '../../lib/dom.js';\n\n"
            f"export default function {name}({{ items = [] }}) {{\n"
            f"  return h('section', {{ className: '{area}-{kind}' }}, [\n"
            f"    h('h2', null, '{_pascal(area)} {kind}'),\n"
            "    h('ul', null, items.map((item) => h('li', { key: item.id }, formatCents(item.cents)))),\n"
            "  ]);\n}\n"
        )
    return money + body


def _app(
    root: Path, areas: list[str], *, jsx: bool, ext: str = "js", lazy: bool = True, css: bool = False
) -> dict[str, str]:
    """``src/`` of the shop: lib helpers, ``features/<area>/<area>-<kind>`` modules and an index per area; the
    components are loaded lazily by route (one chunk each) when ``lazy``, each with its stylesheet when ``css``."""
    files: dict[str, str] = {
        "src/lib/http.js": (
            "export async function fetchJson(url, attempts = 3) {\n"
            "  for (let i = 1; ; i++) {\n"
            "    const res = await fetch(url);\n"
            "    if (res.ok || i >= attempts) return res.json();\n"
            "  }\n}\n"
        ),
        "src/lib/money.js": (
            "const fmt = new Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' });\n\n"
            "export function formatCents(cents) {\n  return fmt.format(cents / 100);\n}\n\n"
            "export function sumCents(items) {\n  return items.reduce((a, b) => a + b.cents, 0);\n}\n"
        ),
        "src/lib/dom.js": (
            "export function h(tag, props, children) {\n"
            "  const el = document.createElement(tag);\n"
            "  Object.assign(el, props || {});\n"
            "  for (const c of [].concat(children ?? [])) el.append(c);\n"
            "  return el;\n}\n"
        ),
    }
    routes = []
    for area in areas:
        exports = []
        for kind in _KINDS:
            cext = ext if kind not in ("api", "store") else "js"
            files[f"src/features/{area}/{area}-{kind}.{cext}"] = _component(area, kind, jsx)
            if kind == "page":
                continue
            if kind in ("api", "store"):
                exports.append(f"export * from './{area}-{kind}.js';")
            else:
                exports.append(f"export {{ default as {_pascal(area)}{_pascal(kind)} }} from './{area}-{kind}.{cext}';")
        files[f"src/features/{area}/index.js"] = "\n".join(exports) + "\n"
        for kind in _KINDS[:6] if lazy else ["page"]:
            mod = f"./features/{area}/{area}-{kind}.{ext}"
            if lazy:
                routes.append(f"  '/{area}/{kind}': () => import('{mod}'),")
            else:
                routes.append(f"  '/{area}': {_pascal(area)}Page,")
        if css:
            for kind in _KINDS[:6]:
                rel = f"src/features/{area}/{area}-{kind}.{ext}"
                files[rel] = f"import './{area}-{kind}.css';\n" + files[rel]
                files[rel[: -len(ext)] + "css"] = (
                    f".{area}-{kind} {{\n  display: grid;\n  gap: 8px;\n  padding: 12px 16px;\n}}\n"
                    f".{area}-{kind} h2 {{\n  font: 600 18px/1.3 system-ui, sans-serif;\n  color: #1d2939;\n}}\n"
                )
    imports = "".join(f"export * as {area.replace('-', '_')} from './features/{area}/index.js';\n" for area in areas)
    eager = "" if lazy else "".join(f"import {_pascal(a)}Page from './features/{a}/{a}-page.{ext}';\n" for a in areas)
    files["src/routes.js"] = eager + "export const routes = {\n" + "\n".join(routes) + "\n};\n"
    files["src/features.js"] = imports
    files["src/main.js"] = (
        "import { routes } from './routes.js';\nimport * as features from './features.js';\n\n"
        "export async function start(path) {\n"
        "  const load = routes[path];\n"
        "  const mod = typeof load === 'function' && !load.prototype ? await load() : { default: load };\n"
        "  return { page: mod.default, features: Object.keys(features).length };\n}\n\n"
        "start(window.location.pathname);\n"
    )
    write(root, files)
    return files


_SHOP = [*WORDS, "failed-orders", "retry-banner", "errors-page", "payment-exceptions"]


# ---------------------------------------------------------------- vite


def _vite_project(root: Path, areas: list[str], *, tools: bool = True) -> None:
    if tools:
        _tools(root)
    _app(root, areas, jsx=True, ext="jsx", css=True)
    write(
        root,
        {
            "index.html": (
                '<!doctype html>\n<html lang="en">\n<head><meta charset="utf-8"><title>Shop</title></head>\n'
                '<body><div id="app"></div><script type="module" src="/src/main.js"></script></body>\n</html>\n'
            ),
            "package.json": json.dumps(
                {"name": "shop-web", "version": "3.4.0", "private": True, "type": "module"}, indent=2
            )
            + "\n",
            "vite.config.js": (
                "import { defineConfig } from 'vite';\n\n"
                "export default defineConfig({\n"
                "  build: { sourcemap: false, chunkSizeWarningLimit: 500 },\n"
                "  oxc: { jsx: { runtime: 'automatic' } },\n"
                "});\n"
            ),
        },
    )


@case(
    "u59_vite_build_unresolved_import",
    "vite build",
    clean=False,
    group=GROUP,
    decisive=[
        "[UNRESOLVED_IMPORT] Could not resolve './refund-rules.js' in src/features/refunds/refunds-api.js",
        "src/features/refunds/refunds-api.js:1:34",
        "Build failed with 1 error:",
    ],
)
def _vite_unresolved(root: Path) -> bytes:
    _vite_project(root, _SHOP)
    api = root / "src/features/refunds/refunds-api.js"
    api.write_text("import { refundWindowDays } from './refund-rules.js';\n" + api.read_text())
    return _run("./node_modules/.bin/vite build --debug", root)


def _vite_workspace(root: Path, apps: dict[str, list[str]]) -> None:
    _tools(root)
    pkg = {"name": "shop", "version": "3.4.0", "private": True, "workspaces": [f"apps/{a}" for a in apps]}
    write(root, {"package.json": json.dumps(pkg, indent=2) + "\n"})
    for app, areas in apps.items():
        _vite_project(root / "apps" / app, areas, tools=False)
        apkg = {"name": f"@shop/{app}", "version": "3.4.0", "private": True, "type": "module"}
        apkg["scripts"] = {"build": "vite build"}
        write(root, {f"apps/{app}/package.json": json.dumps(apkg, indent=2) + "\n"})


@case(
    "u59_vite_workspaces_missing_export",
    "vite build (npm workspaces)",
    clean=False,
    group=GROUP,
    decisive=[
        '[MISSING_EXPORT] "roundCents" is not exported by "src/lib/money.js".',
        "src/features/pricing/pricing-row.jsx:2:23",
        "npm error workspace @shop/storefront@3.4.0",
    ],
)
def _vite_ws_missing_export(root: Path) -> bytes:
    _vite_workspace(
        root,
        {
            "admin": WORDS[:12],
            "back-office": ["ledger", "audit", "export", "refunds", "failed-orders", "errors-page", "webhooks"],
            "storefront": ["catalog", "search", "cart", "pricing", "coupons", "tax", "shipping", "orders"],
            "checkout": ["cart", "billing", "invoice", "tax", "coupons", "session", "auth", "retry-banner"],
            "partner-portal": ["orders", "shipping", "invoice", "webhooks", "exceptions", "payment-exceptions"],
        },
    )
    row = root / "apps/storefront/src/features/pricing/pricing-row.jsx"
    row.write_text(row.read_text().replace("import { formatCents }", "import { formatCents, roundCents }"))
    row.write_text(row.read_text().replace("{formatCents(item.cents)}", "{formatCents(roundCents(item.cents))}"))
    return _run("npm run build --workspaces", root)


@case(
    "u59_vite_build_clean_failed_orders",
    "vite build",
    clean=True,
    group=GROUP,
    decisive=["modules transformed.", "✓ built in"],
)
def _vite_clean(root: Path) -> bytes:
    _vite_project(root, _SHOP)
    return _run("./node_modules/.bin/vite build", root)


# ---------------------------------------------------------------- webpack


def _webpack_project(root: Path, areas: list[str], entries: dict[str, str], stats: str) -> None:
    _tools(root)
    _app(root, areas, jsx=True, ext="jsx")
    entry = ",\n".join(f"    '{k}': '{v}'" for k, v in entries.items())
    write(
        root,
        {
            "package.json": json.dumps({"name": "shop-web", "version": "3.4.0", "private": True}, indent=2) + "\n",
            "webpack.config.js": f"""
                const path = require('path');

                module.exports = {{
                  entry: {{
                {entry},
                  }},
                  output: {{
                    path: path.resolve(__dirname, 'dist'),
                    filename: '[name].[contenthash:8].js',
                    clean: true,
                  }},
                  resolve: {{ extensions: ['.js', '.jsx'], symlinks: false }},
                  module: {{
                    rules: [
                      {{
                        test: /\\.jsx?$/,
                        exclude: /node_modules/,
                        use: {{
                          loader: 'babel-loader',
                          options: {{
                            presets: [['@babel/preset-env', {{ targets: 'defaults' }}],
                              ['@babel/preset-react', {{ runtime: 'automatic' }}]],
                          }},
                        }},
                      }},
                    ],
                  }},
                  performance: {{ hints: 'warning', maxAssetSize: 120000, maxEntrypointSize: 160000 }},
                  stats: {stats},
                }};
            """,
        },
    )
    for name, rel in entries.items():
        if not (root / rel).exists():
            write(
                root,
                {
                    rel: "import { createRoot } from 'react-dom/client';\nimport { start } from './main.js';\n\n"
                    f"start('/{name}').then(({{ page }}) =>\n"
                    f"  createRoot(document.getElementById('{name}')).render(page));\n"
                },
            )


@case(
    "u59_webpack_module_not_found",
    "webpack",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR in ./src/features/shipping/shipping-row.jsx",
        "Module not found: Error: Can't resolve '../../lib/carrier-codes'",
        "compiled with 1 error",
    ],
)
def _webpack_not_found(root: Path) -> bytes:
    _webpack_project(root, _SHOP, {"main": "./src/boot.js"}, "'detailed'")
    row = root / "src/features/shipping/shipping-row.jsx"
    row.write_text("import { carrierName } from '../../lib/carrier-codes';\n" + row.read_text())
    return _run("./node_modules/.bin/webpack --mode production", root)


@case(
    "u59_webpack_clean_retry_banner",
    "webpack",
    clean=True,
    group=GROUP,
    decisive=["compiled with 3 warnings"],
)
def _webpack_clean(root: Path) -> bytes:
    entries = {n: f"./src/{n}.js" for n in ("errors-page", "failed-orders", "retry-banner")}
    _webpack_project(root, _SHOP, entries, "{ preset: 'normal', assetsSpace: 100, modulesSpace: 400 }")
    return _run("./node_modules/.bin/webpack --mode production", root)


# ---------------------------------------------------------------- tsc -b


def _ts_projects(root: Path, names: list[str], broken: str = "") -> None:
    """A TypeScript project per business area under ``packages/``, each referencing the two before it."""
    _tools(root)
    base = {
        "compilerOptions": {
            "target": "ES2022", "module": "NodeNext", "moduleResolution": "NodeNext", "strict": True,
            "composite": True, "declaration": True, "declarationMap": True, "sourceMap": True,
            "skipLibCheck": False, "listEmittedFiles": True, "types": [],
        }
    }  # fmt: skip
    files = {"tsconfig.base.json": json.dumps(base, indent=2) + "\n"}
    files["tsconfig.json"] = json.dumps(
        {"files": [], "references": [{"path": f"packages/{n}"} for n in names]}, indent=2
    )
    for i, name in enumerate(names):
        deps = names[max(0, i - 2) : i]
        ident = _pascal(name)
        cfg = {
            "extends": "../../tsconfig.base.json",
            "compilerOptions": {"rootDir": "src", "outDir": "dist", "tsBuildInfoFile": "dist/.tsbuildinfo"},
            "include": ["src"],
            "references": [{"path": f"../{d}"} for d in deps],
        }
        files[f"packages/{name}/tsconfig.json"] = json.dumps(cfg, indent=2) + "\n"
        files[f"packages/{name}/package.json"] = json.dumps({"name": f"@shop/{name}", "type": "module"}) + "\n"
        imports = "".join(f"import {{ {_pascal(d)}Record }} from '../../{d}/dist/{d}-model.js';\n" for d in deps)
        linked = "".join(f"  {d.replace('-', '_')}?: {_pascal(d)}Record;\n" for d in deps)
        files[f"packages/{name}/src/{name}-model.ts"] = (
            f"{imports}\nexport interface {ident}Record {{\n  id: string;\n  cents: number;\n"
            f"  status: 'open' | 'settled' | 'failed';\n{linked}}}\n"
        )
        total = (
            "entries.map((e) => e.cents).join('+')" if name == broken else "entries.reduce((a, e) => a + e.cents, 0)"
        )
        files[f"packages/{name}/src/{name}-service.ts"] = (
            f"import type {{ {ident}Record }} from './{name}-model.js';\n\n"
            f"export function total{ident}(entries: {ident}Record[]): number {{\n"
            f"  const total: number = {total};\n  return total;\n}}\n\n"
            f"export function failed{ident}(entries: {ident}Record[]): {ident}Record[] {{\n"
            "  return entries.filter((e) => e.status === 'failed');\n}\n"
        )
        files[f"packages/{name}/src/{name}-format.ts"] = (
            f"export function format{ident}(cents: number): string {{\n  return `$${{(cents / 100).toFixed(2)}}`;\n}}\n"
        )
        files[f"packages/{name}/src/index.ts"] = (
            f"export * from './{name}-model.js';\nexport * from './{name}-service.js';\n"
            f"export * from './{name}-format.js';\n"
        )
    write(root, files)


_TS_AREAS = [
    "errors", "retry", "session", "auth", "catalog", "pricing", "tax", "cart", "coupons", "orders", "billing",
    "ledger", "invoice", "refunds", "shipping", "webhooks", "audit", "export", "failed-orders", "retry-banner",
]  # fmt: skip


@case(
    "u59_tsc_build_references_error",
    "tsc -b",
    clean=False,
    group=GROUP,
    decisive=[
        "packages/ledger/src/ledger-service.ts(4,9): error TS2322: Type 'string' is not assignable to type 'number'.",
        "Building project '/tmp/work/packages/ledger/tsconfig.json'...",
    ],
)
def _tsc_b_error(root: Path) -> bytes:
    _ts_projects(root, _TS_AREAS, broken="ledger")
    return _run("./node_modules/.bin/tsc -b --verbose", root)


@case(
    "u59_tsc_build_references_clean",
    "tsc -b",
    clean=True,
    group=GROUP,
    decisive=["Building project '/tmp/work/packages/retry-banner/tsconfig.json'..."],
)
def _tsc_b_clean(root: Path) -> bytes:
    _ts_projects(root, _TS_AREAS)
    return _run("./node_modules/.bin/tsc -b --verbose", root)


# ---------------------------------------------------------------- esbuild


def _esbuild_project(root: Path, areas: list[str]) -> None:
    """The shop's app with a merged table of UI messages in which every key of the second half was already set
    by the first (esbuild warns about each duplicate key)."""
    _tools(root)
    _app(root, areas, jsx=True, ext="jsx")
    rows = []
    for half in ("base", "overrides"):
        rows.append(f"  // {half}")
        for area in areas:
            for key in ("title", "empty", "failed", "retry", "loading", "saved"):
                rows.append(f"  '{area}.{key}': '{_pascal(area)} {key} ({half})',")
    messages = "export const messages = {\n" + "\n".join(rows) + "\n};\n"
    write(root, {"package.json": json.dumps({"name": "shop-web", "version": "3.4.0", "private": True}) + "\n"})
    write(root, {"src/lib/messages.js": messages})
    main = root / "src/main.js"
    main.write_text("import { messages } from './lib/messages.js';\n" + main.read_text() + "\nexport { messages };\n")


_ESBUILD = (
    "GOMAXPROCS=1 ./node_modules/.bin/esbuild --bundle --minify --jsx=automatic --log-limit=0 --metafile=dist/meta.json"
)


@case(
    "u59_esbuild_metafile_warnings_error",
    "esbuild",
    clean=False,
    group=GROUP,
    decisive=[
        'No matching export in "src/lib/money.js" for import "roundCents"',
        "src/features/tax/tax-summary.jsx:1:22:",
        "144 warnings and 1 error",
    ],
)
def _esbuild_error(root: Path) -> bytes:
    _esbuild_project(root, _SHOP)
    summary = root / "src/features/tax/tax-summary.jsx"
    summary.write_text(summary.read_text().replace("import { formatCents }", "import { formatCents, roundCents }"))
    summary.write_text(
        summary.read_text().replace("{formatCents(item.cents)}", "{formatCents(roundCents(item.cents))}")
    )
    return _run(f"{_ESBUILD} --splitting --format=esm --outdir=dist src/main.js", root)


@case(
    "u59_esbuild_analyze_clean_errors_page",
    "esbuild",
    clean=True,
    group=GROUP,
    decisive=["dist/failed-orders.js", "Done in"],
)
def _esbuild_clean(root: Path) -> bytes:
    _esbuild_project(root, _SHOP)
    entries = []
    for name in ("errors-page", "failed-orders", "retry-banner"):
        write(root, {f"src/{name}.js": f"import {{ start }} from './main.js';\n\nstart('/{name}/page');\n"})
        entries.append(f"{name}=src/{name}.js")
    return _run(f"{_ESBUILD} --splitting --format=esm --outdir=dist --analyze=verbose {' '.join(entries)}", root)


# ---------------------------------------------------------------- next build


def _next_project(root: Path, areas: list[str]) -> None:
    """A Next.js app router project: a static page per business area and per area's kind of list."""
    _tools(root)
    pkg = {"name": "shop-next", "version": "3.4.0", "private": True, "scripts": {"build": "next build"}}
    files = {
        "package.json": json.dumps(pkg, indent=2) + "\n",
        "next.config.mjs": (
            "export default {\n  reactStrictMode: true,\n  poweredByHeader: false,\n"
            "  experimental: { cpus: 1, staticGenerationMaxConcurrency: 1 },\n};\n"
        ),
        "jsconfig.json": json.dumps({"compilerOptions": {"baseUrl": ".", "paths": {"@/*": ["./*"]}}}) + "\n",
        "app/layout.jsx": (
            "export const metadata = { title: 'Shop' };\n\n"
            "export default function RootLayout({ children }) {\n"
            '  return (\n    <html lang="en">\n      <body>{children}</body>\n    </html>\n  );\n}\n'
        ),
        "app/page.jsx": "export default function Home() {\n  return <h1>Shop</h1>;\n}\n",
        "lib/money.js": "export function formatCents(cents) {\n  return `$${(cents / 100).toFixed(2)}`;\n}\n",
    }
    for area in areas:
        ident = _pascal(area)
        for kind in ("", "list", "summary", "filters", "history", "settings"):
            rel = f"app/{area}/{kind + '/' if kind else ''}page.jsx"
            route = f"/{area}/{kind}".rstrip("/")
            files[rel] = (
                "import { formatCents } from '@/lib/money';\n\n"
                f"export default function {ident}{_pascal(kind) if kind else ''}Page() {{\n"
                f"  const rows = [{{ id: '{area}-1', cents: 1999 }}, {{ id: '{area}-2', cents: 4250 }}];\n"
                f"  console.log('[{area}] prerender {route}: loaded %d rows from fixtures/{area}.json', rows.length);\n"
                f"  console.log('[{area}] prerender {route}: cache tag {area}:v3, revalidate false');\n"
                "  return (\n    <main>\n"
                f"      <h1>{ident} {kind}</h1>\n"
                "      <ul>{rows.map((r) => <li key={r.id}>{formatCents(r.cents)}</li>)}</ul>\n"
                "    </main>\n  );\n}\n"
            )
    write(root, files)


@case(
    "u59_next_build_prerender_error",
    "next build",
    clean=False,
    group=GROUP,
    decisive=['Error occurred prerendering page "/orders/summary"', "Error: ORDERS_API_URL is not set"],
)
def _next_prerender(root: Path) -> bytes:
    _next_project(root, _SHOP)
    write(
        root,
        {
            "app/orders/summary/page.jsx": """
                import { formatCents } from '@/lib/money';

                function ordersApi() {
                  const url = process.env.ORDERS_API_URL;
                  if (!url) throw new Error('ORDERS_API_URL is not set');
                  return url;
                }

                export default function OrdersSummaryPage() {
                  const api = ordersApi();
                  return <main><h1>Orders summary</h1><p>{api} {formatCents(0)}</p></main>;
                }
            """
        },
    )
    return _run("npm run build", root)


@case(
    "u59_next_build_clean_failed_orders",
    "next build",
    clean=True,
    group=GROUP,
    decisive=["✓ Compiled successfully", "├ ○ /failed-orders/summary"],
)
def _next_clean(root: Path) -> bytes:
    _next_project(root, _SHOP)
    return _run("npm run build", root)
