"""Held-out outputs (group ``unseen-18``): an eighteenth batch, to measure the engine after seventeen rounds of fixes.

The JavaScript, CSS and web front-end tools from the npm registry the corpus had not seen: ``stylelint``
with the standard config at warning severity over 161 stylesheets (two thousand warnings, one error rule:
an invalid hex colour), ``htmlhint`` run over 401 changed templates one by one (one unpaired ``</div>``),
``jshint --verbose --show-non-errors`` over 241 files (one ``==`` and a missing semicolon at the top, then
the implied globals of every file), ``tap`` (node-tap's raw TAP, 800 assertions over 20 files, one failing
``t.same``), ``sass --verbose`` building 61 stylesheets with hundreds of deprecation warnings and one
undefined variable, ``lessc`` printing the CSS of 91 stylesheets with one undefined variable, a ``tsx``
script repricing 2,400 orders that stops on a coupon it does not know, and ``swc`` compiling 20 folders to
stdout with one syntax error. Clean runs whose text talks about errors: ``ajv validate --all-errors
--errors=text`` over 1,200 ``*-errors-*.json`` reports against an error-report schema, ``vite build`` of an
admin app with pages such as ``ErrorBoundary`` and ``FailedPayments``, and ``commitlint --verbose`` over 160
messages such as ``fix(errors): report failed retries``. Labels were written with each scenario, before the
engine saw the output. Needs Node.js 20 with npm (Debian ``nodejs``, ``npm``) and the npm registry.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import WORDS, case, scrub, sh, write
from cases_unseen_build import _npm

GROUP = "unseen-18"

_DURATION = r"sed -E 's/[0-9]+(\.[0-9]+)? ?(ms|s)\b/<t>/g'"


def _camel(word: str) -> str:
    return word[:1].upper() + word[1:]


# ---------------------------------------------------------------- stylelint


def _stylesheet(i: int, area: str) -> str:
    """A stylesheet that the standard config warns about in a handful of places."""
    return (
        f"/* {area} widgets, part {i} */\n"
        f".{area}Panel {{\n  color: #FFFFFF;\n  background: rgba(0, 0, 0, 0.5);\n  margin: 0px 0px 4px 0px;\n}}\n"
        f".{area}-row-{i} {{\n  display: flex;\n  padding: 0 8px;\n}}\n"
        f".{area}-row-{i}:hover {{ border-color: #AABBCC; }}\n"
        f"@media (max-width: 600px) {{\n  .{area}Panel {{ font-weight: bold; }}\n}}\n"
    )


@case(
    "stylelint_warnings_one_invalid_hex_error",
    "stylelint (standard config, default severity warning)",
    clean=False,
    group=GROUP,
    decisive=['Unexpected invalid hex color "#ff00gg"', "src/styles/checkout-summary.css", "1 error"],
)
def _stylelint(root: Path) -> bytes:
    _npm(root, "stylelint@16.25.0", "stylelint-config-standard@38.0.0")
    files = {
        ".stylelintrc.json": json.dumps(
            {
                "extends": ["stylelint-config-standard"],
                "defaultSeverity": "warning",
                "rules": {"color-no-invalid-hex": [True, {"severity": "error"}]},
            },
            indent=2,
        )
    }
    for i in range(160):
        area = WORDS[i % 20]
        files[f"src/styles/{area}-{i:03d}.css"] = _stylesheet(i, area)
    files["src/styles/checkout-summary.css"] = (
        _stylesheet(7, "checkout")
        + ".checkout-total {\n  font-size: 18px;\n  color: #ff00gg;\n  border-top: 1px solid #DDDDDD;\n}\n"
    )
    write(root, files)
    return scrub(sh("npx stylelint 'src/**/*.css'", root), root)


# ---------------------------------------------------------------- htmlhint


def _template(i: int, area: str) -> str:
    rows = "".join(
        f'      <tr><td class="sku">SKU-{(i * 7 + k) % 500:04d}</td><td class="qty">{k % 4 + 1}</td></tr>\n'
        for k in range(6)
    )
    return (
        '<!DOCTYPE html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n'
        f"  <title>{_camel(area)} page {i}</title>\n</head>\n<body>\n"
        f'  <main class="{area}-page">\n    <h1>{_camel(area)} overview</h1>\n'
        f'    <img src="/static/{area}.png" alt="{area} icon">\n    <table>\n{rows}    </table>\n  </main>\n'
        "</body>\n</html>\n"
    )


@case(
    "htmlhint_templates_loop_tag_pair",
    "htmlhint (loop over changed templates)",
    clean=False,
    group=GROUP,
    decisive=[
        "/tmp/work/templates/refunds/partial-refund.html",
        "Tag must be paired, no start tag: [ </div> ]",
        "Scanned 1 files, found 2 errors in 1 files",
    ],
)
def _htmlhint(root: Path) -> bytes:
    _npm(root, "htmlhint@1.9.2")
    files = {
        ".htmlhintrc": json.dumps(
            {
                "tagname-lowercase": True,
                "attr-lowercase": True,
                "attr-value-double-quotes": True,
                "doctype-first": True,
                "tag-pair": True,
                "spec-char-escape": True,
                "id-unique": True,
                "src-not-empty": True,
                "alt-require": True,
                "title-require": True,
            },
            indent=2,
        )
    }
    for i in range(400):
        area = WORDS[i % 20]
        files[f"templates/{area}/{area}-{i:03d}.html"] = _template(i, area)
    files["templates/refunds/partial-refund.html"] = _template(5, "refunds").replace(
        '    <img src="/static/refunds.png" alt="refunds icon">\n',
        '    <div class="refund-summary">\n      <img src="/static/refunds.png">\n'
        "      <span>Partial refund</span></div>\n    </div>\n",
    )
    write(root, files)
    return scrub(
        sh(
            'st=0; for f in $(find templates -name "*.html" | sort); do echo "htmlhint $f"; '
            f'npx htmlhint --nocolor "$f" || st=1; done 2>&1 | {_DURATION}; exit $st',
            root,
        ),
        root,
    )


# ---------------------------------------------------------------- jshint


def _script(i: int, area: str) -> str:
    return (
        f"/* {area} module {i} */\n"
        f"function {area}Total{i}(items, rate) {{\n"
        "  var sum = 0, count = 0, skipped = 0;\n"
        "  for (var k = 0; k < items.length; k++) {\n"
        "    sum += items[k].amount;\n"
        "    count += 1;\n"
        "  }\n"
        f"  track{_camel(area)}(count);\n"
        "  return Math.round(sum * (1 + rate));\n"
        "}\n\n"
        f"function {area}Label{i}(order) {{\n"
        f"  var prefix = '{area.upper()}-';\n"
        "  return prefix + order.id;\n"
        "}\n"
    )


@case(
    "jshint_show_non_errors_one_eqeqeq",
    "jshint --verbose --show-non-errors",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refunds/partial.js: line 9, col 16, Expected '===' and instead saw '=='. (W116)",
        "2 errors",
    ],
)
def _jshint(root: Path) -> bytes:
    _npm(root, "jshint@2.13.6")
    files = {
        ".jshintrc": json.dumps(
            {"eqeqeq": True, "undef": False, "unused": False, "esversion": 6, "browser": True, "node": True},
            indent=2,
        )
    }
    for i in range(240):
        area = WORDS[i % 20]
        files[f"src/{area}/{area}_{i:03d}.js"] = _script(i, area)
    files["src/refunds/partial.js"] = (
        "/* partial refunds */\n"
        "function partialRefund(order, amount) {\n"
        "  var refunded = 0, fee = 0;\n"
        "  for (var k = 0; k < order.lines.length; k++) {\n"
        "    refunded += order.lines[k].refunded;\n"
        "  }\n"
        "  logRefund(order.id, amount);\n"
        "  var left = order.total - refunded;\n"
        "  if (amount == left) {\n"
        "    return closeOrder(order)\n"
        "  }\n"
        "  return left - amount;\n"
        "}\n"
    )
    write(root, files)
    return sh("npx jshint --verbose --show-non-errors src", root)


# ---------------------------------------------------------------- node-tap


@case(
    "tap_raw_tap_one_failing_same",
    "tap (node-tap, TAP reporter)",
    clean=False,
    group=GROUP,
    decisive=["not ok 3 - coupon lines match", "test/coupons.test.js:", "# { total: 800, pass: 799, fail: 1 }"],
)
def _tap(root: Path) -> bytes:
    _npm(root, "tap@21.8.0")
    files = {
        "src/price.js": """
        function price(lines, coupon) {
          const out = lines.map((l) => ({ sku: l.sku, amount: l.qty * l.unit }));
          if (coupon && coupon.percent) {
            for (const l of out) l.amount = Math.floor(l.amount * (100 - coupon.percent) / 100);
          }
          console.log(`priced ${out.length} lines${coupon ? ' with coupon ' + coupon.code : ''}`);
          return out;
        }
        module.exports = { price };
        """,
    }
    for f in range(20):
        area = "coupons" if f == 5 else f"{WORDS[f]}-{f:02d}"
        tests = []
        for g in range(4):
            asserts = []
            for k in range(10):
                qty, unit = k % 3 + 1, 10 + g * 5 + k
                asserts.append(
                    f"  t.equal(price([{{ sku: 'S{k}', qty: {qty}, unit: {unit} }}])[0].amount, {qty * unit}, "
                    f"'{area} line {g}.{k} amount')"
                )
            if f == 5 and g == 2:
                asserts[2] = (
                    "  t.same(\n    price([{ sku: 'A1', qty: 2, unit: 15 }, { sku: 'B2', qty: 1, unit: 9 }], "
                    "{ code: 'SPRING', percent: 10 }),\n"
                    "    [{ sku: 'A1', amount: 27 }, { sku: 'B2', amount: 9 }],\n"
                    "    'coupon lines match',\n  )"
                )
            tests.append(f"t.test('{area} group {g}', async (t) => {{\n" + "\n".join(asserts) + "\n})\n")
        files[f"test/{area}.test.js"] = "const t = require('tap')\nconst { price } = require('../src/price')\n\n" + (
            "\n".join(tests)
        )
    write(root, files)
    return scrub(sh("npx tap --jobs=1 --disable-coverage 2>&1 | sed -E 's/# time=[0-9.]+ms/# time=<t>/'", root), root)


# ---------------------------------------------------------------- sass


def _partial(i: int, area: str) -> str:
    return (
        "@import 'theme';\n\n"
        f".{area}-card-{i} {{\n  color: tone($brand);\n  border: 1px solid lighten($brand, {i % 20 + 5}%);\n"
        f"  width: (960px / {i % 6 + 2});\n  padding: map-get($spacing, {'small' if i % 2 else 'large'});\n}}\n"
        f".{area}-card-{i}__title {{\n  font-weight: 600;\n  color: darken($ink, {i % 10 + 5}%);\n}}\n"
    )


@case(
    "sass_verbose_deprecations_undefined_variable",
    "sass --verbose (directory build)",
    clean=False,
    group=GROUP,
    decisive=["Error: Undefined variable.", "color: $brand-primery;", "src/scss/checkout.scss 9:10"],
)
def _sass(root: Path) -> bytes:
    _npm(root, "sass@1.108.2")
    files = {
        "src/scss/_theme.scss": """
        $brand: #3366cc;
        $ink: #223344;
        $spacing: (small: 4px, large: 12px);
        @function tone($c) { @return darken($c, 8%); }
        """,
    }
    for i in range(60):
        area = WORDS[i % 20]
        files[f"src/scss/{area}-{i:02d}.scss"] = _partial(i, area)
    files["src/scss/checkout.scss"] = (
        "@import 'theme';\n\n.checkout-total {\n  font-size: 18px;\n  padding: map-get($spacing, large);\n}\n"
        ".checkout-total__amount {\n  font-weight: 700;\n  color: $brand-primery;\n}\n"
    )
    write(root, files)
    return sh("npx sass --no-source-map --verbose src/scss:dist/css", root)


# ---------------------------------------------------------------- lessc


def _less(i: int, area: str) -> str:
    return (
        '@import "theme.less";\n\n'
        f".{area}-panel-{i} {{\n  color: @ink;\n  background: fade(@brand, {i % 50 + 10}%);\n"
        f"  .title {{ font-weight: 600; color: darken(@brand, {i % 10 + 5}%); }}\n"
        f"  .row {{ padding: @gap (@gap * 2); &:hover {{ background: lighten(@ink, 60%); }} }}\n"
        f"  @media (max-width: 600px) {{ .row {{ padding: @gap; }} }}\n}}\n"
    )


@case(
    "lessc_loop_stdout_undefined_variable",
    "lessc (loop over stylesheets, CSS to stdout)",
    clean=False,
    group=GROUP,
    decisive=[
        "NameError: variable @brand-primery is undefined in /tmp/work/styles/checkout.less on line 8, column 12:",
        "== lessc styles/checkout.less",
    ],
)
def _lessc(root: Path) -> bytes:
    _npm(root, "less@4.9.1")
    files = {"styles/theme.less": "@brand: #3366cc;\n@ink: #223344;\n@gap: 6px;\n"}
    for i in range(90):
        area = WORDS[i % 20]
        files[f"styles/{area}-{i:02d}.less"] = _less(i, area)
    files["styles/checkout.less"] = (
        '@import "theme.less";\n\n.checkout-total {\n  font-size: 18px;\n  padding: @gap;\n'
        "  .amount {\n    font-weight: 700;\n    color: @brand-primery;\n  }\n}\n"
    )
    write(root, files)
    return scrub(
        sh(
            'st=0; for f in $(ls styles/*.less | grep -v theme.less); do echo "== lessc $f"; '
            'npx lessc --no-color "$f" || st=1; done; exit $st',
            root,
        ),
        root,
    )


# ---------------------------------------------------------------- ajv-cli


@case(
    "ajv_validate_error_reports_clean",
    "ajv validate --all-errors --errors=text",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _ajv(root: Path) -> bytes:
    _npm(root, "ajv-cli@5.0.0")
    schema = {
        "$schema": "http://json-schema.org/draft-07/schema#",
        "title": "error report",
        "type": "object",
        "required": ["service", "day", "errors", "failed_count"],
        "properties": {
            "service": {"type": "string"},
            "day": {"type": "string"},
            "failed_count": {"type": "integer", "minimum": 0},
            "error_rate": {"type": "number", "minimum": 0, "maximum": 1},
            "errors": {
                "type": "array",
                "items": {
                    "type": "object",
                    "required": ["code", "message"],
                    "properties": {
                        "code": {"type": "string"},
                        "message": {"type": "string"},
                        "fatal": {"type": "boolean"},
                    },
                },
            },
        },
    }
    write(root, {"schemas/error-report.schema.json": json.dumps(schema, indent=2)})
    (root / "reports").mkdir()
    for i in range(1200):
        area = WORDS[i % 20]
        failed = (i * 7) % 13
        report = {
            "service": area,
            "day": f"2025-{i // 100 % 12 + 1:02d}-{i % 28 + 1:02d}",
            "failed_count": failed,
            "error_rate": round(failed / 1000, 4),
            "errors": [
                {"code": f"E{100 + k}", "message": f"{area} request failed: upstream timeout", "fatal": k == 0}
                for k in range(failed % 3)
            ],
        }
        (root / "reports" / f"{area}-errors-{i:04d}.json").write_text(json.dumps(report))
    return sh(
        "npx ajv validate -s schemas/error-report.schema.json -d 'reports/*.json' --all-errors --errors=text", root
    )


# ---------------------------------------------------------------- vite build


@case(
    "vite_build_error_pages_chunks_clean",
    "vite build",
    clean=True,
    group=GROUP,
    decisive=["✓ built in"],
)
def _vite(root: Path) -> bytes:
    _npm(root, "vite@8.4.0")
    pages = [f"{_camel(WORDS[i % 20])}Page{i:03d}" for i in range(600)]
    pages += ["ErrorBoundary", "FailedPayments", "ErrorReport", "FatalErrorScreen", "ExceptionsTable", "RetryFailed"]
    files = {
        "index.html": """
        <!DOCTYPE html>
        <html lang="en">
          <head><meta charset="utf-8"><title>Shop admin</title></head>
          <body><div id="app"></div><script type="module" src="/src/main.js"></script></body>
        </html>
        """,
        "src/main.js": "const routes = {\n"
        + "".join(f"  '{p}': () => import('./pages/{p}.js'),\n" for p in pages)
        + "};\n\nexport async function show(name) {\n  const mod = await routes[name]();\n"
        "  document.getElementById('app').innerHTML = mod.render();\n}\n\n"
        "show(location.hash.slice(1) || 'ErrorBoundary');\n",
        "src/lib/format.js": """
        export function money(cents) {
          return (cents / 100).toFixed(2) + ' EUR';
        }
        export function errorBanner(message) {
          return `<div class="error-banner" role="alert">${message}</div>`;
        }
        """,
    }
    for i, p in enumerate(pages):
        rows = "".join(f"    ['{p.lower()}-{k}', {(i * 31 + k * 7) % 900}],\n" for k in range(12))
        files[f"src/pages/{p}.js"] = (
            "import { money, errorBanner } from '../lib/format.js';\n\n"
            f"const rows = [\n{rows}];\n\n"
            "export function render() {\n"
            f"  const failed = rows.filter(([, v]) => v % 7 === 0).length;\n"
            f"  const head = failed ? errorBanner(`${{failed}} rows failed validation`) : '';\n"
            f"  return head + '<h1>{p}</h1>' + rows.map(([k, v]) => `<p>${{k}}: ${{money(v)}}</p>`).join('');\n"
            "}\n"
        )
    write(root, files)
    return sh(f"npx vite build 2>&1 | {_DURATION}", root)


# ---------------------------------------------------------------- commitlint


_COMMITS = [
    "fix(errors): report failed retries with the original error code",
    "feat(billing): add invoice export for failed payments",
    "fix(auth): handle expired session error without a crash",
    "refactor(exceptions): move exception mapping into one module",
    "test(retry): cover the fatal error path of the retry worker",
    "docs(webhooks): explain what happens when a delivery fails",
    "fix(refunds): do not fail partial refunds on rounding errors",
    "chore(ci): keep --fail-fast off for the integration job",
    "perf(search): cache the error-free query plans",
    "feat(audit): log every failed login as a warning",
]


@case(
    "commitlint_verbose_error_fix_messages_clean",
    "commitlint --verbose (loop over commit messages)",
    clean=True,
    group=GROUP,
    decisive=["found 0 problems, 0 warnings"],
)
def _commitlint(root: Path) -> bytes:
    _npm(root, "@commitlint/cli@19.8.1", "@commitlint/config-conventional@19.8.1")
    write(root, {"commitlint.config.js": "module.exports = { extends: ['@commitlint/config-conventional'] };\n"})
    (root / "messages").mkdir()
    for i in range(160):
        subject = _COMMITS[i % len(_COMMITS)]
        body = (
            f"\n\nThe {WORDS[i % 20]} service raised an error in {i % 5 + 1} of {i % 9 + 10} cases;"
            "\nthis change makes the failure visible.\n\nRefs: #" + str(1000 + i)
        )
        (root / "messages" / f"{i:03d}.txt").write_text(subject + (body if i % 3 == 0 else "") + "\n")
    return sh(
        'st=0; for f in messages/*.txt; do echo "== commitlint $f"; '
        './node_modules/.bin/commitlint --verbose < "$f" || st=1; done; exit $st',
        root,
    )


# ---------------------------------------------------------------- tsx


@case(
    "tsx_script_typeerror_mid_run",
    "tsx (TypeScript script)",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: Cannot read properties of undefined (reading 'percent')",
        "/tmp/work/scripts/reprice.ts:12",
        "repricing order ORD-1377",
    ],
)
def _tsx(root: Path) -> bytes:
    _npm(root, "tsx@4.23.15")
    write(
        root,
        {
            "scripts/reprice.ts": """
            interface Coupon { code: string; percent: number }
            interface Order { id: string; region: string; lines: number[]; coupon?: string }

            const coupons: Record<string, Coupon> = {
              SPRING: { code: 'SPRING', percent: 10 },
              LOYAL: { code: 'LOYAL', percent: 15 },
            };
            const regions = ['billing', 'orders', 'cart', 'tax', 'refunds', 'shipping', 'catalog', 'pricing'];

            function discount(order: Order): number {
              if (!order.coupon) return 0;
              return coupons[order.coupon].percent;
            }

            function reprice(order: Order): number {
              const subtotal = order.lines.reduce((a, b) => a + b, 0);
              return Math.round(subtotal * (100 - discount(order))) / 100;
            }

            let total = 0;
            for (let i = 0; i < 2400; i++) {
              const order: Order = {
                id: `ORD-${i}`,
                region: regions[i % regions.length],
                lines: [i % 90 + 10, (i * 7) % 50 + 5],
                coupon: i === 1377 ? 'SUMMER' : i % 4 === 0 ? 'SPRING' : i % 9 === 0 ? 'LOYAL' : undefined,
              };
              console.log(`repricing order ${order.id} region=${order.region} lines=${order.lines.length}`);
              const price = reprice(order);
              total += price;
              console.log(`  ${order.id}: ${price.toFixed(2)} (coupon ${order.coupon ?? 'none'})`);
            }
            console.log(`repriced 2400 orders, total ${total.toFixed(2)}`);
            """,
        },
    )
    return scrub(sh("npx tsx scripts/reprice.ts", root), root)


# ---------------------------------------------------------------- swc


@case(
    "swc_compile_to_stdout_syntax_error",
    "swc (compile a folder to stdout)",
    clean=False,
    group=GROUP,
    decisive=["x Expected ',', got 'ident'", "src/orders/summary.ts:5:1", "== swc src/orders/"],
)
def _swc(root: Path) -> bytes:
    _npm(root, "@swc/cli@0.8.1", "@swc/core@1.16.22")
    files = {
        ".swcrc": json.dumps(
            {"jsc": {"parser": {"syntax": "typescript"}, "target": "es2019"}, "module": {"type": "commonjs"}},
            indent=2,
        )
    }
    for i in range(120):
        area = WORDS[i % 20]
        files[f"src/{area}/{area}-{i:03d}.ts"] = (
            f"export interface {_camel(area)}Line{i} {{ sku: string; qty: number; unit: number }}\n\n"
            f"export class {_camel(area)}Service{i} {{\n"
            "  private cache = new Map<string, number>();\n"
            f"  constructor(private readonly region: string = '{area}') {{}}\n\n"
            f"  total(lines: {_camel(area)}Line{i}[]): number {{\n"
            "    const sum = lines.reduce((a, l) => a + l.qty * l.unit, 0);\n"
            "    this.cache.set(this.region, sum);\n"
            "    return sum ?? 0;\n  }\n\n"
            "  async refresh(): Promise<void> {\n"
            f"    for (const [k, v] of this.cache) console.log(`{area} ${{k}}=${{v}}`);\n"
            "  }\n}\n"
        )
    files["src/orders/summary.ts"] = (
        "export interface Summary { id: string; amount: number }\n\n"
        "export function summarize(rows: Summary[]): Summary {\n"
        "  const amount = rows.reduce((a, r) => a + r.amount, 0);\n"
        "  return { id: rows[0].id amount };\n"
        "}\n"
    )
    write(root, files)
    return scrub(
        sh('st=0; for d in src/*/; do echo "== swc $d"; ./node_modules/.bin/swc "$d" || st=1; done; exit $st', root),
        root,
    )
