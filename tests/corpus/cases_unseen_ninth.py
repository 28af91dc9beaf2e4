"""Held-out outputs (group ``unseen-9``): a ninth batch, made to measure the engine after eight rounds of fixes.

Byte-compiling a tree with one syntax error (``python -m compileall -f``), build systems reporting
one failed step among hundreds (``ninja -v -k 0`` with a failing code generator, ``meson setup``
stopped by a missing dependency after many header and function checks), config validators
(``systemd-analyze verify`` over many units, one with a relative ``ExecStart=``, among deprecation
notices), test runners in other styles (``behave`` with one failing scenario, ``robot`` with one
failing test), ``sphinx-build -W`` with one undefined label, data tools failing in the middle of a
batch (a pydantic ``ValidationError`` caught and printed per record, an ``alembic upgrade head``
whose 287th migration fails in SQLite, a pandas report ending in a ``KeyError`` after numpy
warnings, an ``iconv`` loop whose error does not name its file), a 1.6 MB ``gunicorn`` log with one
"Error handling request" traceback, and clean runs whose text talks about errors (``nm -D`` of libc,
a passing ``behave`` suite about payment failures, ``compileall`` over error-handler modules, a
``sphinx-build -W`` of pages about error codes). Labels were written with each scenario, before
the engine saw the output.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import PY, WORDS, case, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-9"

# ---------------------------------------------------------------- Python byte-compilation


def _py_tree(root: Path, stems: list[str], broken: str = "") -> None:
    for i in range(360):
        area, n = WORDS[i % 20], i // 20
        stem = stems[i % len(stems)]
        rel = f"src/shop/{area}/{stem}_{n:02d}.py"
        body = (
            f'"""{area}: {stem.replace("_", " ")} helpers, part {n}."""\n\n'
            "import logging\n\nLOG = logging.getLogger(__name__)\n\n\n"
            f"def handle_{stem}(event, retries=0):\n"
            f'    LOG.info("handled %s (retries=%d)", event["id"], retries)\n'
            f'    return {{"id": event["id"], "area": "{area}", "errors": 0}}\n'
        )
        if rel == broken:
            body = (
                '"""ledger: posting helpers."""\n\n\ndef post(total, rows):\n'
                '    print(f"posting {total} over {len(rows)} rows"\n'
                "    return total\n"
            )
        write(root, {rel: body})


@case(
    "compileall_one_syntax_error",
    "python -m compileall -f",
    clean=False,
    group=GROUP,
    decisive=[
        'File "src/shop/ledger/posting_07.py", line 5',
        "SyntaxError: '(' was never closed",
    ],
)
def _compileall_fail(root: Path) -> bytes:
    _py_tree(root, ["models", "views", "tasks", "posting"], broken="src/shop/ledger/posting_07.py")
    return sh(f"{PY} -m compileall -f src", root)


@case("compileall_error_handlers_clean", "python -m compileall -f", clean=True, group=GROUP, decisive=[])
def _compileall_clean(root: Path) -> bytes:
    _py_tree(root, ["error_handler", "failure_modes", "exception_mapping", "fatal_alerts", "retry_on_failure"])
    return sh(f"{PY} -m compileall -f src", root)


# ---------------------------------------------------------------- build systems: ninja, meson


@case(
    "ninja_codegen_step_failed",
    "ninja -v -j1 -k 0",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED: gen/ledger_07.h",
        "schemas/ledger_07.json: field 'amount' has unknown type 'decimal128'",
        "ninja: build stopped: cannot make progress due to previous errors.",
    ],
)
def _ninja(root: Path) -> bytes:
    write(
        root,
        {
            "tools/gen_header.py": """
            import json
            import sys

            TYPES = {"string": "const char *", "int64": "int64_t", "bool": "bool", "money": "int64_t"}
            src, out = sys.argv[1], sys.argv[2]
            schema = json.load(open(src))
            lines = [f"/* generated from {src} */", "#pragma once", "#include <stdint.h>", "#include <stdbool.h>"]
            lines.append(f"struct {schema['name']} {{")
            for field, kind in schema["fields"].items():
                if kind not in TYPES:
                    print(f"gen_header: {src}: field '{field}' has unknown type '{kind}'", file=sys.stderr)
                    sys.exit(1)
                lines.append(f"    {TYPES[kind]} {field};")
            lines.append("};")
            open(out, "w").write("\\n".join(lines) + "\\n")
            """
        },
    )
    rules = [
        "rule gen",
        f"  command = {PY} tools/gen_header.py $in $out",
        "  description = GEN $out",
        "rule stamp",
        "  command = cat $in > $out",
        "",
    ]
    headers = []
    for i in range(300):
        area, n = WORDS[i % 20], i // 20
        kind = "decimal128" if (area, n) == ("ledger", 7) else "money"
        fields = {"id": "int64", "name": "string", "amount": kind, "active": "bool"}
        write(root, {f"schemas/{area}_{n:02d}.json": json.dumps({"name": f"{area}_{n:02d}", "fields": fields})})
        rules.append(f"build gen/{area}_{n:02d}.h: gen schemas/{area}_{n:02d}.json")
        headers.append(f"gen/{area}_{n:02d}.h")
    rules.append(f"build gen/all.stamp: stamp {' '.join(headers)}")
    rules.append("default gen/all.stamp")
    write(root, {"build.ninja": "\n".join(rules) + "\n"})
    return sh("ninja -v -j1 -k 0", root)


@case(
    "meson_setup_missing_dependency",
    "meson setup",
    clean=False,
    group=GROUP,
    decisive=["Run-time dependency ledgerio found: NO", 'ERROR: Dependency "ledgerio" not found'],
)
def _meson(root: Path) -> bytes:
    env = _pip_tool(root, "meson==1.12.1")
    headers = sorted(p.name for p in Path("/usr/include").glob("*.h"))[:140]
    headers += ["ledger/compat.h", "sys/ledger_ioctl.h", "openssl/evp.h"]
    functions = ["strlcpy", "strlcat", "reallocarray", "explicit_bzero", "memfd_create", "getrandom", "arc4random"]
    hlist = ", ".join(f"'{h}'" for h in headers)
    flist = ", ".join(f"'{f}'" for f in functions * 3)
    write(
        root,
        {
            "meson.build": f"""
            project('ledgerd', 'c', version: '2.4.0', default_options: ['warning_level=2'])
            cc = meson.get_compiler('c')
            foreach h : [{hlist}]
              cc.has_header(h)
            endforeach
            foreach f : [{flist}]
              cc.has_function(f)
            endforeach
            ledgerio = dependency('ledgerio', version: '>=2.4')
            executable('ledgerd', 'main.c', dependencies: [ledgerio])
            """,
            "main.c": "int main(void) { return 0; }\n",
        },
    )
    return sh(f"{env} meson setup build", root)


# ---------------------------------------------------------------- config validators


@case(
    "systemd_analyze_verify_units",
    "systemd-analyze verify (loop over units)",
    clean=False,
    group=GROUP,
    decisive=[
        "ledger-post-07.service:6: Neither a valid executable name nor an absolute path: usr/local/bin/ledger-post",
        "Unit ledger-post-07.service has a bad unit file setting.",
    ],
)
def _systemd(root: Path) -> bytes:
    for i in range(160):
        area, n = WORDS[i % 20], i // 20
        name = f"{area}-worker-{n:02d}.service" if area != "ledger" else f"ledger-post-{n:02d}.service"
        exec_start = "usr/local/bin/ledger-post --queue main" if name == "ledger-post-07.service" else "/bin/sh -c true"
        extra = "MemoryLimit=512M\n" if i % 11 == 3 else "MemoryMax=512M\n"
        write(
            root,
            {
                f"units/{name}": f"""
                [Unit]
                Description={area} worker {n} (retries failed jobs, error budget 0.1%)
                After=network.target

                [Service]
                ExecStart={exec_start}
                Restart=on-failure
                RestartSec=5
                {extra}
                [Install]
                WantedBy=multi-user.target
                """
            },
        )
    script = (
        'rc=0; for u in units/*.service; do echo "verifying $u"; '
        'if systemd-analyze verify --man=no "$u"; then echo "  ok"; else rc=1; fi; done; exit $rc'
    )
    return sh(script, root)


# ---------------------------------------------------------------- test runners: behave, robot


def _behave_suite(root: Path, bug: bool) -> None:
    regions = ["de", "fr", "es", "it", "nl", "be", "at", "pl", "se", "dk"]
    rates = {"de": 19, "fr": 20, "es": 21, "it": 22, "nl": 21, "be": 21, "at": 20, "pl": 23, "se": 25, "dk": 25}
    titles = [
        "VAT after failed card payments", "Retry failure handling", "Invoice totals", "Refund error paths",
        "Partial captures", "Chargeback failures", "Credit notes", "Dunning after payment failure",
        "Currency rounding", "Tax exemptions",
    ]  # fmt: skip
    for f in range(20):
        title = titles[f % 10] + f" (suite {f:02d})"
        scen = [f"Feature: {title}", "  As the billing service", "  I want correct totals even when payments fail", ""]
        for s in range(20):
            region = regions[(f + s) % 10]
            net = 100 + f * 7 + s
            name = f"Total for {region} invoice {f:02d}-{s:02d} after a failed retry"
            if (f, s) == (13, 11):
                region, net, name = "pt-madeira", 100, "Reduced rate rounds half up in Madeira"
            rate = 18 if region == "pt-madeira" else rates[region]
            scen += [
                f"  Scenario: {name}",
                f"    Given an invoice of {net}.00 net in {region}",
                f"    When VAT at {rate} percent is applied",
                "    Then no error is reported",
                f"    And the invoice total is {net * (100 + rate) / 100:.2f}",
                "",
            ]
        write(root, {f"features/billing_{f:02d}.feature": "\n".join(scen)})
    bug_line = '    if ctx.region == "pt-madeira":\n        total -= Decimal("0.01")\n' if bug else ""
    (root / "features" / "steps").mkdir()
    (root / "features" / "steps" / "billing_steps.py").write_text(
        "from decimal import ROUND_HALF_UP, Decimal\n\nfrom behave import given, then, when\n\n\n"
        "@given('an invoice of {net} net in {region}')\ndef step_invoice(ctx, net, region):\n"
        "    ctx.net, ctx.region, ctx.errors = Decimal(net), region, []\n\n\n"
        "@when('VAT at {rate} percent is applied')\ndef step_vat(ctx, rate):\n"
        "    total = (ctx.net * (100 + Decimal(rate)) / 100).quantize(Decimal('0.01'), rounding=ROUND_HALF_UP)\n"
        f"{bug_line}    ctx.total = total\n\n\n"
        "@then('no error is reported')\ndef step_no_error(ctx):\n    assert ctx.errors == [], ctx.errors\n\n\n"
        "@then('the invoice total is {expected}')\ndef step_total(ctx, expected):\n"
        '    assert ctx.total == Decimal(expected), f"invoice total {ctx.total} != expected {expected}"\n'
    )


@case(
    "behave_one_failing_scenario",
    "behave -f plain",
    clean=False,
    group=GROUP,
    decisive=[
        "Reduced rate rounds half up in Madeira",
        "invoice total 117.99 != expected 118.00",
        "399 scenarios passed, 1 failed",
    ],
)
def _behave_fail(root: Path) -> bytes:
    env = _pip_tool(root, "behave==1.3.3")
    _behave_suite(root, bug=True)
    return sh(f"{env} behave -f plain --no-timings --no-color", root)


@case("behave_payment_failures_clean", "behave -f plain", clean=True, group=GROUP, decisive=[])
def _behave_clean(root: Path) -> bytes:
    env = _pip_tool(root, "behave==1.3.3")
    _behave_suite(root, bug=False)
    return sh(f"{env} behave -f plain --no-timings --no-color", root)


@case(
    "robot_one_failing_test",
    "robot (console verbose)",
    clean=False,
    group=GROUP,
    decisive=["Refund Is Capped At Captured Amount", "120.0 != 100.0", "400 tests, 399 passed, 1 failed"],
)
def _robot(root: Path) -> bytes:
    env = _pip_tool(root, "robotframework==7.5")
    for s, area in enumerate(["Orders", "Payments", "Refunds", "Shipping", "Catalog", "Search", "Coupons", "Audit"]):
        lines = ["*** Settings ***", f"Documentation    {area} acceptance tests.", "", "*** Test Cases ***"]
        for t in range(50):
            if (area, t) == ("Refunds", 23):
                lines += [
                    "Refund Is Capped At Captured Amount",
                    "    ${captured}=    Set Variable    100.00",
                    "    ${refunded}=    Evaluate    min(120.0, float($captured)) + 20.0",
                    "    Should Be Equal As Numbers    ${refunded}    ${captured}",
                    "",
                ]
                continue
            lines += [
                f"{area} Scenario {t:03d} Handles Error Budget",
                f"    ${{total}}=    Evaluate    {t} * 2 + {s}",
                f"    Should Be Equal As Numbers    ${{total}}    {t * 2 + s}",
                "",
            ]
        write(root, {f"tests/{s:02d}_{area.lower()}.robot": "\n".join(lines)})
    return sh(f"{env} robot --outputdir out --console verbose --consolecolors off tests", root)


# ---------------------------------------------------------------- documentation: sphinx-build -W


def _sphinx_docs(root: Path, sections: list[str], stems: list[str], bad_ref: str = "") -> None:
    write(
        root,
        {
            "docs/conf.py": 'project = "Shop"\nauthor = "Platform team"\nextensions = []\nhtml_theme = "alabaster"\n',
            "docs/index.rst": "Shop handbook\n=============\n\n.. toctree::\n   :glob:\n\n   */*\n",
        },
    )
    for i in range(240):
        sec, n = sections[i % len(sections)], i // len(sections)
        stem = stems[i % len(stems)]
        title = f"{stem.replace('_', ' ').title()} {n:02d}"
        label = f"{sec}-{stem}-{n:02d}".replace("_", "-")
        ref = bad_ref if f"{sec}/{stem}_{n:02d}" == "ledger/settle_08" else label
        body = [
            f".. _{label}:",
            "",
            title,
            "=" * len(title),
            "",
            f"This page describes {stem.replace('_', ' ')} for the {sec} service: error codes, failed retries",
            "and the exceptions the API returns.",
            "",
            "Details",
            "-------",
            "",
            f"See :ref:`{ref}` for the flow; a failure here is retried with ``retries=3``.",
            "",
            ".. code-block:: python",
            "",
            f"   raise {stem.title().replace('_', '')}Error('payment failed')",
            "",
        ]
        write(root, {f"docs/{sec}/{stem}_{n:02d}.rst": "\n".join(body)})


@case(
    "sphinx_build_W_undefined_label",
    "sphinx-build -W -b html",
    clean=False,
    group=GROUP,
    decisive=["ledger/settle_08.rst:12: WARNING: undefined label: 'settle-flow'", "build finished with problems"],
)
def _sphinx_fail(root: Path) -> bytes:
    env = _pip_tool(root, "sphinx==9.0.4")
    _sphinx_docs(root, WORDS, ["settle", "guide", "api"], bad_ref="settle-flow")
    return sh(f"{env} sphinx-build -W -b html docs _build", root)


@case("sphinx_build_error_codes_clean", "sphinx-build -W -b html", clean=True, group=GROUP, decisive=[])
def _sphinx_clean(root: Path) -> bytes:
    env = _pip_tool(root, "sphinx==9.0.4")
    _sphinx_docs(root, ["errors", "failures", "exceptions", "fatal"], ["error_codes", "failure_recovery", "panic"])
    return sh(f"{env} sphinx-build -W -b html docs _build", root)


# ---------------------------------------------------------------- data tools: pydantic, alembic, pandas, iconv


@case(
    "pydantic_validation_error_in_batch",
    "python + pydantic (batch import)",
    clean=False,
    group=GROUP,
    decisive=[
        "order ORD-04417 rejected: 1 validation error for Order",
        "lines.2.quantity",
        "Input should be a valid integer, unable to parse string as an integer",
    ],
)
def _pydantic(root: Path) -> bytes:
    env = _pip_tool(root, "pydantic==2.14.4")
    write(
        root,
        {
            "import_orders.py": """
            import sys
            from decimal import Decimal

            from pydantic import BaseModel, ValidationError


            class Line(BaseModel):
                sku: str
                quantity: int
                unit_price: Decimal


            class Order(BaseModel):
                id: str
                customer: str
                lines: list[Line]


            imported = rejected = 0
            for i in range(6000):
                raw = {
                    "id": f"ORD-{i:05d}",
                    "customer": f"cust-{i % 700:04d}",
                    "lines": [{"sku": f"SKU-{(i + k) % 900:04d}", "quantity": str(1 + (i + k) % 5),
                               "unit_price": f"{3 + k}.{i % 100:02d}"} for k in range(4)],
                }
                if i == 4417:
                    raw["lines"][2]["quantity"] = "three"
                try:
                    order = Order.model_validate(raw)
                except ValidationError as exc:
                    print(f"order {raw['id']} rejected: {exc}", flush=True)
                    rejected += 1
                    continue
                total = sum(line.quantity * line.unit_price for line in order.lines)
                print(f"order {order.id} ({order.customer}): {len(order.lines)} lines, total {total}, errors=0")
                imported += 1
            print(f"imported {imported} orders, rejected {rejected}")
            sys.exit(1 if rejected else 0)
            """
        },
    )
    return sh(f"{env} {PY} import_orders.py", root)


@case(
    "alembic_upgrade_fails_midway",
    "alembic upgrade head",
    clean=False,
    group=GROUP,
    decisive=[
        "Running upgrade 0286 -> 0287, add invoice customer index",
        "(sqlite3.OperationalError) no such column: customer_ref",
    ],
)
def _alembic(root: Path) -> bytes:
    env = _pip_tool(root, "alembic==1.20.1", "sqlalchemy==2.1.9")
    sh(f"{env} alembic init migrations", root)
    ini = (root / "alembic.ini").read_text()
    (root / "alembic.ini").write_text(ini.replace("driver://user:pass@localhost/dbname", "sqlite:///shop.db"))
    for k in range(1, 401):
        down = f'"{k - 1:04d}"' if k > 1 else "None"
        if k == 1:
            doc, body = "create invoices", 'op.create_table("invoices", sa.Column("id", sa.Integer, primary_key=True))'
        elif k == 287:
            doc, body = (
                "add invoice customer index",
                'op.create_index("ix_invoices_customer", "invoices", ["customer_ref"])',
            )
        elif k % 3 == 0:
            table = f"{WORDS[k % 20]}_{k:04d}"
            doc = f"create {table}"
            body = (
                f'op.create_table("{table}", sa.Column("id", sa.Integer, primary_key=True), sa.Column("note", sa.Text))'
            )
        else:
            doc, body = (
                f"add invoices.attr_{k:04d}",
                f'op.add_column("invoices", sa.Column("attr_{k:04d}", sa.String(40)))',
            )
        write(
            root,
            {
                f"migrations/versions/{k:04d}_step.py": f'"""{doc}\n\nRevision ID: {k:04d}\n"""\n'
                "import sqlalchemy as sa\nfrom alembic import op\n\n"
                f'revision = "{k:04d}"\ndown_revision = {down}\nbranch_labels = None\ndepends_on = None\n\n\n'
                f"def upgrade():\n    {body}\n\n\ndef downgrade():\n    pass\n"
            },
        )
    return sh(f"{env} alembic upgrade head", root)


@case(
    "pandas_report_keyerror_after_warnings",
    "python + pandas/numpy (report script)",
    clean=False,
    group=GROUP,
    decisive=["KeyError: 'net_amount'", 'report.py", line 24, in summarize'],
)
def _pandas(root: Path) -> bytes:
    env = _pip_tool(root, "pandas==3.1.1", "numpy==2.4.6")
    write(
        root,
        {
            "report.py": """
            import numpy as np
            import pandas as pd
            ZONES, DIRS = ("eu", "us", "ap"), ("west", "east", "north", "south")
            REGIONS = [f"{z}-{d}-{n}" for z in ZONES for d in DIRS for n in range(1, 26)]


            def load(i, region):
                n = 30 + i % 20
                df = pd.DataFrame(
                    {
                        "order_id": np.arange(n) + i * 1000,
                        "gross": np.round(np.arange(n) * 1.25 + i, 2),
                        "refunds": np.arange(n) % 4,
                        "channel": np.where(np.arange(n) % 3, "web", "store"),
                    }
                )
                df["net_amount"] = df["gross"] - df["refunds"] * 0.5
                if region == "ap-south-12":
                    df = df.rename(columns={"net_amount": "net"})  # upstream export renamed the column
                return df


            def summarize(region, df):
                by_channel = df["net_amount"].groupby(df["channel"]).agg(["count", "sum", "mean"])
                growth = np.log(df["refunds"].to_numpy() / df["refunds"].sum())
                return by_channel, float(np.nanmax(growth))


            for i, region in enumerate(REGIONS):
                table, peak = summarize(region, load(i, region))
                print(f"region {region}: {table['count'].sum()} orders, net {table['sum'].sum():.2f}, peak {peak:.3f}")
                if i % 10 == 0:
                    print(table.to_string())
            print("report complete")
            """
        },
    )
    return sh(f"{env} {PY} report.py", root)


@case(
    "iconv_loop_illegal_sequence",
    "iconv (loop over exports)",
    clean=False,
    group=GROUP,
    decisive=["converting exports/customers_ledger_07.csv", "iconv: illegal input sequence at position"],
    note="iconv's message does not name the file; the line before it does; the loop exits 0",
)
def _iconv(root: Path) -> bytes:
    names = ["Müller", "García", "Ødegaard", "Núñez", "Dupré", "Smith", "Łukasz", "Björk"]
    for i in range(300):
        area, n = WORDS[i % 20], i // 20
        rows = ["id,name,city,note"]
        for r in range(40):
            name = names[(i + r) % 8].replace("Ł", "L").replace("Ø", "O")
            note = "discount €5" if (area, n, r) == ("ledger", 7, 23) else "no errors"
            rows.append(f"{i * 100 + r},{name},Köln,{note}")
        write(root, {f"exports/customers_{area}_{n:02d}.csv": "\n".join(rows) + "\n"})
    script = (
        'mkdir -p latin1; for f in exports/*.csv; do echo "converting $f"; '
        'iconv -f UTF-8 -t ISO-8859-1 "$f" -o "latin1/${f#exports/}"; done; '
        'echo "done: $(ls latin1 | wc -l) files written to latin1/"'
    )
    return sh(script, root)


# ---------------------------------------------------------------- a big service log: gunicorn


@case(
    "gunicorn_error_handling_request_big",
    "gunicorn (access and error log)",
    clean=False,
    group=GROUP,
    decisive=[
        "Error handling request GET /api/regions/eu-south-3/invoices/7731",
        "KeyError: 'eu-south-3'",
    ],
)
def _gunicorn(root: Path) -> bytes:
    env = _pip_tool(root, "gunicorn==27.0.1")
    write(
        root,
        {
            "app.py": """
            import json

            RATES = {"eu-west-1": 0.21, "eu-central-1": 0.19, "us-east-1": 0.07, "ap-south-1": 0.18}


            def app(environ, start_response):
                parts = environ["PATH_INFO"].strip("/").split("/")
                if parts == ["healthz"]:
                    body = b"ok"
                else:
                    region, invoice = parts[2], int(parts[4])
                    body = json.dumps({"invoice": invoice, "tax": round(RATES[region] * invoice, 2)}).encode()
                start_response("200 OK", [("Content-Type", "application/json"), ("Content-Length", str(len(body)))])
                return [body]
            """,
            "client.py": """
            import time
            import urllib.error
            import urllib.request

            BASE = "http://127.0.0.1:58931"
            for _ in range(100):
                try:
                    urllib.request.urlopen(BASE + "/healthz").read()
                    break
                except OSError:
                    time.sleep(0.1)
            regions = ["eu-west-1", "eu-central-1", "us-east-1", "ap-south-1"]
            for i in range(12000):
                path = "/healthz" if i % 100 == 0 else f"/api/regions/{regions[i % 4]}/invoices/{i}"
                if i == 7731:
                    path = "/api/regions/eu-south-3/invoices/7731"
                try:
                    urllib.request.urlopen(BASE + path).read()
                except urllib.error.HTTPError:
                    pass
            """,
        },
    )
    return sh(
        f"{env} gunicorn -w 1 -b 127.0.0.1:58931 --access-logfile - --error-logfile - app:app & pid=$!; "
        f"{PY} client.py; kill -TERM $pid; wait $pid",
        root,
    )


# ---------------------------------------------------------------- a clean listing full of error words


@case("nm_dynamic_symbols_libc_clean", "nm -D --defined-only", clean=True, group=GROUP, decisive=[])
def _nm(root: Path) -> bytes:
    return sh("nm -D --defined-only /lib/x86_64-linux-gnu/libc.so.6", root)
