"""Held-out outputs (group ``unseen-11``): an eleventh batch, made to measure the engine after ten rounds of fixes.

Python test runners and QA tools (``pytest -n 2`` with pytest-xdist, whose two workers interleave
their verbose lines, with one failed assertion among 1,200 tests; ``nose2 -v`` with one failed
``assertEqual``; ``pytest --doctest-modules`` with one doctest whose rounding differs;
``pydocstyle -v`` checking 300 files with one missing docstring; ``autoflake --check-diff``
over 400 modules with one unused import), data scripts on real libraries (scikit-learn fitting
120 tenants with a ``ConvergenceWarning`` flood before a ``ValueError`` on NaN input, polars
concatenating 300 daily exports until one column's type differs, jsonschema validating 1,500
order documents with one missing property, a duckdb report script stopping on a Binder Error),
Django (``manage.py test -v 2`` with one failed test among 480 after the test database is
migrated), a big aiohttp server log (12,000 access lines, one request answered 500 with a
traceback), ``openapi-spec-validator`` over 400 specs with one invalid operation, and clean runs
whose text talks about errors (an xdist run of ``test_error_paths.py``-like modules, a ``nose2``
suite about invalid input and failed jobs, Django ``makemigrations``/``check``/``migrate`` of apps
named ``errors`` and ``failures``, a duckdb report whose columns count failed and invalid rows).
Labels were written with each scenario, before the engine saw the output. Every tool is
installed from PyPI into the case's own folder.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import PY, WORDS, case, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-11"

# ---------------------------------------------------------------- pytest-xdist


def _xdist_suite(root: Path, modules: list[str], names: list[str], fail: bool) -> None:
    for k, module in enumerate(modules):
        tests = ["def double(x):\n    return 2 * x\n"]
        for i in range(60):
            name = names[(k + i) % len(names)].format(i=i)
            tests.append(f"def test_{name}_{i:02d}():\n    assert double({i}) == {2 * i}\n")
        if fail and module == "test_refunds":
            tests.insert(
                23,
                "def refund(cents, share):\n    return round(cents * share)\n\n\n"
                "def test_partial_refund_rounds_down():\n    assert refund(2499, 0.5) == 1249\n",
            )
        write(root, {f"tests/{module}.py": "\n\n".join(tests)})


@case(
    "pytest_xdist_one_failure",
    "pytest -n 2 (xdist)",
    clean=False,
    group=GROUP,
    decisive=["FAILED tests/test_refunds.py::test_partial_refund_rounds_down", "assert 1250 == 1249"],
)
def _xdist_fail(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0", "pytest-xdist==3.8.0")
    modules = [f"test_{w}" for w in WORDS]
    _xdist_suite(root, modules, ["posts_line", "sums_amount", "loads_fixture"], True)
    return sh(f"{env} {PY} -m pytest -p no:cacheprovider -n 2 -v tests", root)


@case("pytest_xdist_error_paths_clean", "pytest -n 2 (xdist)", clean=True, group=GROUP, decisive=[])
def _xdist_clean(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0", "pytest-xdist==3.8.0")
    modules = [
        "test_error_paths", "test_failed_jobs", "test_invalid_input", "test_exception_mapping", "test_fatal_signals",
        "test_error_pages", "test_failure_report", "test_retry_on_error", "test_timeout_errors", "test_abort_paths",
    ]  # fmt: skip
    names = [
        "raises_error_for_missing_sku",
        "failed_login_is_logged",
        "invalid_token_rejected",
        "reports_0_failures",
        "maps_exception_to_500_page",
        "error_count_stays_zero",
    ]
    _xdist_suite(root, modules, names, False)
    return sh(f"{env} {PY} -m pytest -p no:cacheprovider -n 2 -v tests", root)


# ---------------------------------------------------------------- nose2


def _nose2_suite(root: Path, names: list[str], fail: bool) -> None:
    write(root, {"tests/__init__.py": ""})
    for k, area in enumerate(WORDS[:12]):
        cls = f"{area.title()}Test"
        methods = []
        for i in range(60):
            name = names[(k + i) % len(names)].format(area=area)
            methods.append(f"    def test_{name}_{i:02d}(self):\n        self.assertEqual(add({i}, 1), {i + 1})\n")
        if fail and area == "invoice":
            methods.insert(
                41,
                "    def test_invoice_total_includes_tax(self):\n"
                "        subtotal, discount = 110.0, 10.0\n"
                "        total = subtotal - discount + 0.18 * subtotal\n"
                "        self.assertEqual(round(total, 1), 118.0, 'tax applied to discounted subtotal')\n",
            )
        body = (
            "import unittest\n\n\ndef add(a, b):\n    return a + b\n\n\n"
            f"class {cls}(unittest.TestCase):\n" + "\n".join(methods)
        )
        write(root, {f"tests/test_{area}.py": body})


@case(
    "nose2_verbose_one_failure",
    "nose2 -v",
    clean=False,
    group=GROUP,
    decisive=["FAIL: test_invoice_total_includes_tax", "AssertionError: 119.8 != 118.0 : tax applied to discounted"],
)
def _nose2_fail(root: Path) -> bytes:
    env = _pip_tool(root, "nose2==0.16.0")
    _nose2_suite(root, ["posts_{area}_entry", "rounds_{area}_amount", "loads_{area}_fixture"], True)
    return sh(f"{env} {PY} -m nose2 -v", root)


@case("nose2_invalid_input_suite_clean", "nose2 -v", clean=True, group=GROUP, decisive=[])
def _nose2_clean(root: Path) -> bytes:
    env = _pip_tool(root, "nose2==0.16.0")
    names = [
        "invalid_{area}_payload_is_rejected",
        "failed_{area}_job_is_retried",
        "error_{area}_page_renders",
        "exception_in_{area}_hook_is_logged",
        "fatal_{area}_config_aborts_early",
    ]
    _nose2_suite(root, names, False)
    return sh(f"{env} {PY} -m nose2 -v", root)


# ---------------------------------------------------------------- doctests, docstrings, unused imports


@case(
    "pytest_doctest_modules_one_failure",
    "pytest --doctest-modules",
    clean=False,
    group=GROUP,
    decisive=["[doctest] shop.pricing.apply_discount", "Decimal('5.03')", "Decimal('5.02')"],
)
def _doctest(root: Path) -> bytes:
    env = _pip_tool(root, "pytest==9.2.0")
    write(root, {"shop/__init__.py": ""})
    for i in range(240):
        area = WORDS[i % 20]
        write(
            root,
            {
                f"shop/{area}_{i:03d}.py": f'''
                """{area.title()} helpers, part {i}."""


                def line_total(qty, price):
                    """Return the total of a line.

                    >>> line_total(3, {i})
                    {3 * i}
                    """
                    return qty * price


                def label(sku):
                    """Return the label of a SKU.

                    >>> label("{area}-{i}")
                    '{area.upper()}-{i}'
                    """
                    return sku.upper()
                '''
            },
        )
    write(
        root,
        {
            "shop/pricing.py": '''
            """Prices after discounts."""

            from decimal import ROUND_DOWN, Decimal


            def apply_discount(price, pct):
                """Return ``price`` less ``pct`` percent, to the cent.

                >>> apply_discount(Decimal("20.00"), 10)
                Decimal('18.00')
                >>> apply_discount(Decimal("10.05"), 50)
                Decimal('5.03')
                """
                return (price * (100 - pct) / 100).quantize(Decimal("0.01"), rounding=ROUND_DOWN)
            '''
        },
    )
    return sh(f"{env} {PY} -m pytest -p no:cacheprovider -v --doctest-modules shop", root)


@case(
    "pydocstyle_verbose_one_violation",
    "pydocstyle -v",
    clean=False,
    group=GROUP,
    decisive=["shop/ledger_091.py:4 in public function `post_entry`:", "D103: Missing docstring in public function"],
)
def _pydocstyle(root: Path) -> bytes:
    env = _pip_tool(root, "pydocstyle==6.3.0")
    for i in range(300):
        area = WORDS[i % 20]
        if i == 91:
            write(root, {"shop/ledger_091.py": '"""Ledger part 91."""\n\n\ndef post_entry(entry):\n    return 1\n'})
            continue
        write(
            root,
            {
                f"shop/{area}_{i:03d}.py": f'''
                """{area.title()} part {i}."""


                def post_entry(entry):
                    """Post one {area} entry."""
                    return entry["amount"] * {i}


                class {area.title()}{i}:
                    """A {area} record."""

                    def total(self):
                        """Return the total."""
                        return {i}
                '''
            },
        )
    return sh(f"{env} {PY} -m pydocstyle -v shop", root)


@case(
    "autoflake_check_diff_unused_import",
    "autoflake --check-diff -r",
    clean=False,
    group=GROUP,
    decisive=["--- original/src/shop/billing_200.py", "-import json"],
)
def _autoflake(root: Path) -> bytes:
    env = _pip_tool(root, "autoflake==2.4.0")
    for i in range(400):
        area = WORDS[i % 20]
        head = "import json\nimport os\n" if i == 200 else "import os\n"
        body = f'{head}\n\ndef path_{i}(name):\n    return os.path.join("{area}", name)\n'
        write(root, {f"src/shop/{area}_{i:03d}.py": body})
    return sh(f"{env} {PY} -m autoflake --check-diff -r src", root)


# ---------------------------------------------------------------- data scripts


@case(
    "sklearn_convergence_warnings_then_nan",
    "python + scikit-learn (ConvergenceWarning flood)",
    clean=False,
    group=GROUP,
    decisive=["fitting tenant-057", "ValueError: Input X contains NaN."],
    note="every fit warns that lbfgs did not converge (noise); tenant 57's features hold one NaN",
)
def _sklearn(root: Path) -> bytes:
    env = _pip_tool(root, "scikit-learn==1.9.1")
    write(
        root,
        {
            "fit_tenants.py": """
            import numpy as np
            from sklearn.linear_model import LogisticRegression

            rng = np.random.default_rng(7)
            for t in range(120):
                X = rng.normal(size=(400, 12))
                y = (X[:, 0] + rng.normal(size=400) > 0).astype(int)
                if t == 57:
                    X[133, 4] = np.nan
                print(f"fitting tenant-{t:03d}: {X.shape[0]} rows, {X.shape[1]} features", flush=True)
                model = LogisticRegression(max_iter=5).fit(X, y)
                print(f"tenant-{t:03d}: train accuracy {model.score(X, y):.3f}", flush=True)
            print("all tenants fitted")
            """
        },
    )
    return sh(f"{env} {PY} -W always fit_tenants.py", root)


@case(
    "polars_concat_schema_mismatch",
    "python + polars (batch of exports)",
    clean=False,
    group=GROUP,
    decisive=[
        "reading exports/day_173.csv",
        "polars.exceptions.SchemaError: type String is incompatible with expected type Float64",
        "failed to vstack column 'amount'",
    ],
)
def _polars(root: Path) -> bytes:
    env = _pip_tool(root, "polars==2.1.0")
    for d in range(300):
        rows = ["order_id,sku,qty,amount,currency"]
        for r in range(20):
            amount = f'"{r + 2},50"' if d == 173 else f"{r + 2}.50"
            rows.append(f"{d * 100 + r},{WORDS[(d + r) % 20].upper()}-{r:03d},{1 + r % 4},{amount},EUR")
        write(root, {f"exports/day_{d:03d}.csv": "\n".join(rows) + "\n"})
    write(
        root,
        {
            "combine.py": """
            from pathlib import Path

            import polars as pl

            total = None
            for path in sorted(Path("exports").glob("day_*.csv")):
                print(f"reading {path}", flush=True)
                day = pl.read_csv(path)
                print(f"  {day.height} rows, {day['qty'].sum()} units, columns {day.columns}", flush=True)
                total = day if total is None else pl.concat([total, day])
                print(f"  running total: {total.height} rows", flush=True)
            total.write_parquet("orders.parquet")
            print(f"wrote orders.parquet: {total.height} rows")
            """
        },
    )
    return sh(f"{env} {PY} combine.py", root)


@case(
    "jsonschema_batch_one_invalid",
    "python + jsonschema (batch validation)",
    clean=False,
    group=GROUP,
    decisive=["orders/o-00913.json: schema validation failed", "'sku' is a required property"],
)
def _jsonschema(root: Path) -> bytes:
    env = _pip_tool(root, "jsonschema==4.26.0")
    for n in range(1500):
        lines = [{"sku": f"{WORDS[(n + k) % 20].upper()}-{k:02d}", "qty": 1 + k, "price": 2.5 * k} for k in range(4)]
        if n == 913:
            del lines[2]["sku"]
        doc = {"id": f"o-{n:05d}", "customer": f"c-{n % 97:03d}", "currency": "EUR", "lines": lines}
        write(root, {f"orders/o-{n:05d}.json": json.dumps(doc, indent=2)})
    schema = {
        "type": "object",
        "required": ["id", "customer", "currency", "lines"],
        "properties": {
            "id": {"type": "string", "pattern": "^o-[0-9]{5}$"},
            "currency": {"enum": ["EUR", "USD"]},
            "lines": {
                "type": "array",
                "minItems": 1,
                "items": {
                    "type": "object",
                    "required": ["sku", "qty", "price"],
                    "properties": {"sku": {"type": "string"}, "qty": {"type": "integer", "minimum": 1}},
                },
            },
        },
    }
    write(root, {"order.schema.json": json.dumps(schema, indent=2)})
    write(
        root,
        {
            "validate_orders.py": """
            import json
            import sys
            from pathlib import Path

            from jsonschema import Draft202012Validator, ValidationError

            validator = Draft202012Validator(json.loads(Path("order.schema.json").read_text()))
            for path in sorted(Path("orders").glob("o-*.json")):
                doc = json.loads(path.read_text())
                try:
                    validator.validate(doc)
                except ValidationError:
                    print(f"{path}: schema validation failed", file=sys.stderr, flush=True)
                    raise
                print(f"{path}: ok ({len(doc['lines'])} lines)", flush=True)
            print("all orders valid")
            """
        },
    )
    return sh(f"{env} {PY} validate_orders.py", root)


# ---------------------------------------------------------------- duckdb


def _duckdb_script(root: Path, typo: bool) -> str:
    env = _pip_tool(root, "duckdb==2.0.1")
    steps = [
        "create table orders as select i as id, 'c-' || (i % 97) as customer, (i % 40) + 0.5 as amount, "
        "case when i % 53 = 0 then 'failed' else 'paid' end as payment_status, "
        "date '2024-01-01' + (i % 366)::int as day from range(20000) t(i)",
        "create table refunds as select i as id, i * 7 % 20000 as order_id, (i % 9) + 0.25 as amount "
        "from range(1500) t(i)",
        "create table import_log as select i as batch, 0 as invalid_rows, 0 as error_count, "
        "'ok' as status from range(60) t(i)",
    ]
    for k, area in enumerate(WORDS):
        steps.append(
            f"select '{area}' as area, date_trunc('month', day) as month, count(*) as orders, "
            f"sum(amount) as revenue, count(*) filter (where payment_status = 'failed') as failed_payments "
            f"from orders where id % 20 = {k} group by all order by month"
        )
        if k == 11:
            col = "amout" if typo else "amount"
            steps.append(
                "create table refund_summary as\nselect date_trunc('month', o.day) as month, "
                f"sum(r.{col}) as refunded, count(*) as refunds\nfrom refunds r join orders o on o.id = r.order_id "
                "group by all"
            )
            steps.append("select * from refund_summary order by month")
    steps.append(
        "select sum(invalid_rows) as invalid_rows, sum(error_count) as errors, "
        "count(*) filter (where status <> 'ok') as failed_batches from import_log"
    )
    (root / "report.sql").write_text(";\n\n".join(steps) + ";\n")
    write(
        root,
        {
            "run_report.py": """
            import duckdb

            con = duckdb.connect("report.duckdb")
            statements = [s.strip() for s in open("report.sql").read().split(";\\n") if s.strip()]
            for i, stmt in enumerate(statements, 1):
                print(f"[{i:03d}] {stmt.splitlines()[0][:70]}", flush=True)
                rel = con.sql(stmt)
                if rel is not None:
                    print(rel, flush=True)
            print(f"report done: {len(statements)} statements")
            """
        },
    )
    return sh(f"{env} {PY} run_report.py", root)


@case(
    "duckdb_report_binder_error",
    "python + duckdb (report script)",
    clean=False,
    group=GROUP,
    decisive=["[016] create table refund_summary as", 'Binder Error: Table "r" does not have a column named "amout"'],
)
def _duckdb_fail(root: Path) -> bytes:
    return _duckdb_script(root, True)


@case("duckdb_report_failed_invalid_columns_clean", "python + duckdb (report script)", clean=True, group=GROUP,
      decisive=[])  # fmt: skip
def _duckdb_clean(root: Path) -> bytes:
    return _duckdb_script(root, False)


# ---------------------------------------------------------------- Django


_DJANGO_MANAGE = """
#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "shopsite.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
"""


def _django_project(root: Path, apps: list[str]) -> None:
    installed = ", ".join(f'"{a}"' for a in ["django.contrib.contenttypes", "django.contrib.auth", *apps])
    write(
        root,
        {
            "manage.py": _DJANGO_MANAGE,
            "shopsite/__init__.py": "",
            "shopsite/urls.py": "urlpatterns = []\n",
            "shopsite/settings.py": f"""
            from pathlib import Path

            BASE_DIR = Path(__file__).resolve().parent.parent
            SECRET_KEY = "corpus-not-secret"
            DEBUG = False
            ALLOWED_HOSTS = []
            INSTALLED_APPS = [{installed}]
            ROOT_URLCONF = "shopsite.urls"
            DATABASES = {{"default": {{"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}}}}
            DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"
            USE_TZ = True
            """,
        },
    )


@case(
    "django_test_verbose_one_failure",
    "django manage.py test -v 2",
    clean=False,
    group=GROUP,
    decisive=["FAIL: test_partial_refund_total", "AssertionError: Decimal('40.00') != Decimal('45.00')"],
)
def _django_test(root: Path) -> bytes:
    env = _pip_tool(root, "django==5.2.19")
    _django_project(root, ["orders"])
    write(
        root,
        {
            "orders/__init__.py": "",
            "orders/models.py": """
            from django.db import models


            class Order(models.Model):
                number = models.CharField(max_length=20, unique=True)
                total = models.DecimalField(max_digits=10, decimal_places=2)


            class Refund(models.Model):
                order = models.ForeignKey(Order, on_delete=models.CASCADE)
                amount = models.DecimalField(max_digits=10, decimal_places=2)
            """,
            "orders/refunds.py": """
            from decimal import Decimal


            def refundable(order_total, already_refunded):
                return order_total - already_refunded - Decimal("5.00")
            """,
            "orders/tests/__init__.py": "",
        },
    )
    for area in WORDS[:12]:
        cls = f"{area.title()}Tests"
        methods = []
        for i in range(40):
            methods.append(
                f"    def test_{area}_order_{i:02d}_is_stored(self):\n"
                f'        Order.objects.create(number="{area[:3].upper()}-{i:04d}", total=Decimal("{i}.50"))\n'
                f'        self.assertEqual(Order.objects.get(number="{area[:3].upper()}-{i:04d}").total, '
                f'Decimal("{i}.50"))\n'
            )
        if area == "refunds":
            methods.insert(
                27,
                "    def test_partial_refund_total(self):\n"
                '        self.assertEqual(refundable(Decimal("60.00"), Decimal("15.00")), Decimal("45.00"))\n',
            )
        body = (
            "from decimal import Decimal\n\nfrom django.test import TestCase\n\n"
            "from orders.models import Order\nfrom orders.refunds import refundable\n\n\n"
            f"class {cls}(TestCase):\n" + "\n".join(methods)
        )
        write(root, {f"orders/tests/test_{area}.py": body})
    return sh(f"{env} {PY} manage.py test -v 2 --noinput", root)


@case(
    "django_makemigrations_check_migrate_errors_apps_clean",
    "django manage.py makemigrations && check && migrate -v 2",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _django_migrate(root: Path) -> bytes:
    env = _pip_tool(root, "django==5.2.19")
    apps = {
        "errors": ("ErrorReport", ["error_count", "fatal_count", "last_error_code"]),
        "failures": ("FailedJob", ["attempts", "failed_at_step", "exit_status"]),
        "validation": ("InvalidRecord", ["invalid_rows", "rejected_rows", "exception_count"]),
        "ledger": ("Entry", ["amount_cents", "reversed_count", "error_budget"]),
    }
    _django_project(root, list(apps))
    for app, (model, fields) in apps.items():
        cols = "".join(f"    {f} = models.IntegerField(default=0)\n" for f in fields)
        write(
            root,
            {
                f"{app}/__init__.py": "",
                f"{app}/migrations/__init__.py": "",
                f"{app}/models.py": "from django.db import models\n\n\n"
                f"class {model}(models.Model):\n    name = models.CharField(max_length=80)\n{cols}"
                f'    error_message = models.TextField(blank=True, default="")\n',
            },
        )
    run = (
        f"{env} {PY} manage.py makemigrations && {env} {PY} manage.py check && "
        f"{env} {PY} manage.py migrate -v 2 && {env} {PY} manage.py showmigrations"
    )
    return sh(run, root)


# ---------------------------------------------------------------- aiohttp


@case(
    "aiohttp_log_one_500_big",
    "aiohttp server (access log, logging)",
    clean=False,
    group=GROUP,
    decisive=["KeyError: 'currency'", '"GET /api/invoices/INV-07311 HTTP/1.1" 500'],
    note="12,000 requests logged by aiohttp.access; one invoice lacks its currency",
)
def _aiohttp(root: Path) -> bytes:
    env = _pip_tool(root, "aiohttp==3.14.5")
    write(
        root,
        {
            "server.py": """
            import asyncio
            import logging
            import sys

            from aiohttp import ClientSession, web

            logging.basicConfig(
                level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
            )
            log = logging.getLogger("shop.invoices")
            INVOICES = {f"INV-{i:05d}": {"amount": 10 + i % 90, "currency": "EUR"} for i in range(12000)}
            del INVOICES["INV-07311"]["currency"]


            async def invoice(request):
                number = request.match_info["number"]
                inv = INVOICES[number]
                return web.json_response({"number": number, "total": f"{inv['amount']:.2f} {inv['currency']}"})


            async def health(request):
                return web.Response(text="ok")


            async def main():
                app = web.Application()
                app.router.add_get("/api/invoices/{number}", invoice)
                app.router.add_get("/healthz", health)
                runner = web.AppRunner(app)
                await runner.setup()
                await web.TCPSite(runner, "127.0.0.1", 18573).start()
                log.info("serving invoices on http://127.0.0.1:18573 (errors are logged with tracebacks)")
                async with ClientSession() as session:
                    for i in range(12000):
                        path = "/healthz" if i % 50 == 0 else f"/api/invoices/INV-{i:05d}"
                        agent = {"User-Agent": f"invoice-sync/2.{i % 7}", "Referer": f"http://shop.local/{i % 13}"}
                        async with session.get(f"http://127.0.0.1:18573{path}", headers=agent) as resp:
                            await resp.read()
                        if i % 1000 == 999:
                            log.info("sync progress: %d invoices fetched", i + 1)
                await runner.cleanup()
                log.info("sync finished")


            asyncio.run(main())
            """
        },
    )
    return sh(f"{env} {PY} server.py", root)


# ---------------------------------------------------------------- OpenAPI


@case(
    "openapi_spec_validator_one_invalid",
    "openapi-spec-validator",
    clean=False,
    group=GROUP,
    decisive=["specs/shipping-v7.yaml: Validation Error: 'responses' is a required property"],
    note="the validator stops at the first invalid file: the broken spec sorts late, after 357 valid ones",
)
def _openapi(root: Path) -> bytes:
    env = _pip_tool(root, "openapi-spec-validator==0.9.0")
    for i in range(400):
        name = f"{WORDS[i % 20]}-v{i // 20 + 1}"
        lines = ["openapi: 3.0.3", "info:", f"  title: {name} API", '  version: "1.0"', "paths:", f"  /{name}/{{id}}:"]
        lines += ["    parameters:", "      - name: id", "        in: path", "        required: true"]
        lines += ["        schema:", "          type: string"]
        for k, verb in enumerate(["get", "post", "delete"]):
            lines += [f"    {verb}:", f"      operationId: {verb}_{name.replace('-', '_')}_{k}"]
            lines += [f"      summary: {verb} one {name} item"]
            if name == "shipping-v7" and verb == "post":
                continue
            lines += ["      responses:", '        "200":', f"          description: the {name} item"]
            lines += ['        "400":', "          description: invalid request"]
            lines += ['        "500":', "          description: internal error"]
        (root / "specs").mkdir(exist_ok=True)
        (root / "specs" / f"{name}.yaml").write_text("\n".join(lines) + "\n")
    return sh(f"{env} openapi-spec-validator specs/*.yaml", root)
