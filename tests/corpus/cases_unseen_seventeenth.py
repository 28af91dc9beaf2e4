"""Held-out outputs (group ``unseen-17``): a seventeenth batch, to measure the engine after sixteen rounds of fixes.

The Python ecosystem beyond test runners and linters already in the corpus: a ``scrapy crawl`` at
DEBUG of a 300-page shop served by a local ``http.server`` where one product page has no price,
a ``celery`` worker (solo pool, ``redis-server`` as broker and result backend) running 400 tasks of
which one raises, a SQLAlchemy engine log of a 48-step migration batch where one backfill breaks a
NOT NULL constraint, ``pandera`` checking twelve monthly CSV exports where one has negative amounts
and an unknown status, ``tox`` running eight ``unittest`` environments where one fails,
``pre-commit run --all-files --verbose`` with ``repo: local`` hooks where one hook finds float money,
``check-jsonschema`` over 16 folders of service configs where one value has the wrong type, and
``pyflakes`` over a legacy package with hundreds of unused imports and one undefined name, and
``detect-secrets-hook -v`` over 1,400 tracked files where one settings module holds an AWS key. Clean runs
whose text talks about errors: a ``scrapy`` crawl of an error-code reference site, a SQLAlchemy log
creating ``failed_jobs`` and ``error_events`` tables, and ``interrogate -vv`` over a package made of
``errors.py``, ``exceptions.py`` and ``retry.py``. Labels were written with each scenario, before the
engine saw the output. Needs ``redis-server`` and ``git`` (Debian packages) and the PyPI registry.
"""

from __future__ import annotations

import re
import socket
import subprocess
from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-17"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- scrapy


_SPIDER = """
import scrapy


class ShopSpider(scrapy.Spider):
    name = "{name}"
    custom_settings = {{
        "CONCURRENT_REQUESTS": 1,
        "TELNETCONSOLE_ENABLED": False,
        "REMOTE_CONTROL_ENABLED": False,
        "ROBOTSTXT_OBEY": False,
        "REQUEST_FINGERPRINTER_IMPLEMENTATION": "2.7",
    }}

    def __init__(self, base, **kw):
        super().__init__(**kw)
        self.start_urls = [base + "/index.html"]

    def parse(self, response):
        for href in response.css("a.page::attr(href)").getall():
            yield response.follow(href, self.{callback})

{methods}
"""

_PRODUCT = """
    def parse_product(self, response):
        price = response.css("span.price::text").get()
        yield {
            "sku": response.css("h1::attr(data-sku)").get(),
            "name": response.css("h1::text").get(),
            "category": response.css("p.category::text").get(),
            "price": round(float(price) * 1.0, 2),
            "stock": int(response.css("span.stock::text").get()),
        }
"""

_CODE = """
    def parse_code(self, response):
        yield {
            "code": response.css("h1::attr(data-code)").get(),
            "title": response.css("h1::text").get(),
            "severity": response.css("p.severity::text").get(),
            "action": response.css("p.action::text").get(),
        }
"""


def _serve_and_crawl(root: Path, env: str, spider: str) -> bytes:
    port = _free_port()
    server = subprocess.Popen(
        [PY, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(root / "site")],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        sh(f"{PY} -c 'import socket,time; time.sleep(1); socket.create_connection((\"127.0.0.1\", {port}))'", root)
        out = sh(
            f"{env} scrapy runspider {spider} -s 'LOG_FORMAT=[%(name)s] %(levelname)s: %(message)s' "
            f"-a base=http://127.0.0.1:{port} -o items.jsonl",
            root,
        )
    finally:
        server.terminate()
        server.wait()
    out = out.replace(f"127.0.0.1:{port}".encode(), b"127.0.0.1:8000")
    out = re.sub(
        rb"'(elapsed_time_seconds|start_time|finish_time|memusage/\w+|\w+_per_minute)': .*?(,?\}?)\n",
        rb"'\1': ...\2\n",
        out,
    )
    out = re.sub(rb"\(\d+ pages/min\), scraped \d+ items \(at \d+ items/min\)", b"(N pages/min)", out)
    out = re.sub(rb"Crawled \d+ pages", b"Crawled N pages", out)
    return scrub(out, root)


@case(
    "scrapy_crawl_shop_missing_price",
    "scrapy runspider (local http.server)",
    clean=False,
    group=GROUP,
    decisive=[
        "Spider error processing <GET http://127.0.0.1:8000/products/p-0517.html>",
        'shop.py", line 29, in parse_product',
        "TypeError: float() argument must be a string or a real number, not 'NoneType'",
    ],
)
def _scrapy_fail(root: Path) -> bytes:
    env = _pip_tool(root, "scrapy==2.19.0")
    links = []
    for i in range(900):
        area = WORDS[i % 20]
        price = "" if i == 517 else f'<span class="price">{(i * 37) % 400 + 9}.95</span>'
        write(
            root,
            {
                f"site/products/p-{i:04d}.html": f"""
                <html><head><title>{area} item {i}</title></head><body>
                <h1 data-sku="SKU-{i:05d}">{area.title()} bundle {i}</h1>
                <p class="category">{area}</p>
                <div class="offer">{price} <span class="stock">{i % 17}</span></div>
                </body></html>
                """
            },
        )
        links.append(f'<a class="page" href="products/p-{i:04d}.html">item {i}</a>')
    write(root, {"site/index.html": "<html><body>\n" + "\n".join(links) + "\n</body></html>\n"})
    write(root, {"shop.py": _SPIDER.format(name="shop", callback="parse_product", methods=_PRODUCT)})
    return _serve_and_crawl(root, env, "shop.py")


@case(
    "scrapy_crawl_error_code_reference_clean",
    "scrapy runspider (local http.server)",
    clean=True,
    group=GROUP,
    decisive=["Spider closed (finished)"],
)
def _scrapy_clean(root: Path) -> bytes:
    env = _pip_tool(root, "scrapy==2.19.0")
    links = []
    for i in range(600):
        area = WORDS[i % 20]
        severity = ["error", "fatal", "warning", "critical"][i % 4]
        write(
            root,
            {
                f"site/errors/E{i + 100:04d}.html": f"""
                <html><head><title>Error E{i + 100:04d}</title></head><body>
                <h1 data-code="E{i + 100:04d}">{area} request failed: upstream error {i}</h1>
                <p class="severity">{severity}</p>
                <p class="action">Retry the {area} call; after 3 failures the exception is raised to the caller.</p>
                </body></html>
                """
            },
        )
        links.append(f'<a class="page" href="errors/E{i + 100:04d}.html">E{i + 100:04d} {area} error</a>')
    write(root, {"site/index.html": "<html><body>\n" + "\n".join(links) + "\n</body></html>\n"})
    write(root, {"errors_spider.py": _SPIDER.format(name="error_codes", callback="parse_code", methods=_CODE)})
    return _serve_and_crawl(root, env, "errors_spider.py")


# ---------------------------------------------------------------- celery


_TASKS = """
from decimal import Decimal

from celery import Celery
from celery.utils.log import get_task_logger

app = Celery("shop", broker="redis://127.0.0.1:{port}/0", backend="redis://127.0.0.1:{port}/1")
app.conf.update(
    worker_hijack_root_logger=True,
    worker_log_format="[%(levelname)s/%(processName)s] %(message)s",
    worker_task_log_format="[%(levelname)s/%(processName)s] %(task_name)s[%(task_id)s]: %(message)s",
    broker_connection_retry_on_startup=True,
    worker_prefetch_multiplier=1,
)
log = get_task_logger(__name__)
RATES = {{"eu": Decimal("0.21"), "us": Decimal("0.07"), "uk": Decimal("0.20")}}


@app.task
def settle_invoice(invoice):
    net = Decimal(invoice["net"])
    tax = (net * RATES[invoice["region"]]).quantize(Decimal("0.01"))
    log.info("invoice %s net=%s tax=%s region=%s", invoice["id"], net, tax, invoice["region"])
    return str(net + tax)
"""

_PRODUCER = """
import sys

from tasks import settle_invoice

regions = ["eu", "us", "uk"]
results = []
for i in range(900):
    invoice = {"id": f"INV-{i:05d}", "net": f"{(i * 37) % 900 + 10}.50", "region": regions[i % 3]}
    if i == 371:
        invoice["region"] = "ch"
    results.append(settle_invoice.apply_async((invoice,), task_id=f"invoice-{i:05d}"))
ok = failed = 0
for r in results:
    try:
        r.get(timeout=60)
        ok += 1
    except Exception as exc:
        failed += 1
        print(f"{r.id}: {type(exc).__name__}: {exc}")
print(f"settled {ok} invoices, {failed} failed")
sys.exit(1 if failed else 0)
"""


@case(
    "celery_worker_redis_task_keyerror",
    "celery worker (redis-server broker)",
    clean=False,
    group=GROUP,
    decisive=[
        "Task tasks.settle_invoice[invoice-00371] raised unexpected: KeyError('ch')",
        'tasks.py", line 21, in settle_invoice',
        "settled 899 invoices, 1 failed",
    ],
)
def _celery(root: Path) -> bytes:
    env = _pip_tool(root, "celery[redis]==5.7.0")
    port = _free_port()
    write(root, {"tasks.py": _TASKS.format(port=port), "producer.py": _PRODUCER})
    redis = subprocess.Popen(
        ["redis-server", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(root)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        sh(f"sleep 1; redis-cli -p {port} ping", root)
        worker = subprocess.Popen(
            f"{env} celery -A tasks worker --pool=solo --loglevel=INFO --hostname=worker1@shop -n worker1@shop "
            "> worker.log 2>&1",
            shell=True,
            cwd=root,
        )
        sh("sleep 3", root)
        producer = sh(f"{env} {PY} producer.py", root)
        sh(f"{env} celery -A tasks control shutdown", root)
        worker.wait(timeout=60)
    finally:
        redis.terminate()
        redis.wait()
    out = (root / "worker.log").read_bytes() + producer
    out = out.replace(f"127.0.0.1:{port}".encode(), b"127.0.0.1:6379")
    out = re.sub(rb"succeeded in [0-9.e-]+s", b"succeeded in 0.001s", out)
    out = re.sub(rb"0x[0-9a-f]{6,}", b"0x7f00", out)
    out = re.sub(rb"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(,\d+)?", b"2025-01-01 00:00:00", out)
    return scrub(out, root)


# ---------------------------------------------------------------- SQLAlchemy


_MIGRATE = """
import logging
import sys

from sqlalchemy import create_engine, text

logging.basicConfig(format="%(levelname)s %(name)s %(message)s", stream=sys.stdout)
logging.getLogger("sqlalchemy.engine").setLevel(logging.INFO)
log = logging.getLogger("migrate")
log.setLevel(logging.INFO)

engine = create_engine("sqlite:///shop.db")
STEPS = {steps}
applied = failed = 0
for name, statements in STEPS:
    log.info("applying %s", name)
    try:
        with engine.begin() as conn:
            for sql, params in statements:
                conn.execute(text(sql), params)
        applied += 1
    except Exception as exc:
        failed += 1
        log.error("step %s failed: %s", name, exc)
print(f"migration batch: {{applied}} applied, {{failed}} failed")
sys.exit(1 if failed else 0)
"""


def _migration_steps(tables: dict[str, list[str]], bad_row: tuple[str, int, str] | None = None) -> list:
    """Create, seed and index each table; ``bad_row`` (table, row, column) is seeded with a NULL."""
    steps: list = []
    for table, cols in tables.items():
        names = [c.split()[0] for c in cols]
        ddl = ", ".join(["id INTEGER PRIMARY KEY", *cols])
        rows = []
        for i in range(60):
            vals = {
                c.split()[0]: (f"{WORDS[(i + len(c)) % 20]}-{i % 7}" if " TEXT" in c else i * 37 % 411) for c in cols
            }
            if bad_row and bad_row[:2] == (table, i):
                vals[bad_row[2]] = None
            insert = f"INSERT INTO {table} ({', '.join(names)}) VALUES ({', '.join(':' + n for n in names)})"
            rows.append((insert, vals))
        n = len(steps)
        steps.append((f"{n + 1:03d}_create_{table}", [(f"CREATE TABLE {table} ({ddl})", {})]))
        steps.append((f"{n + 2:03d}_seed_{table}", rows))
        steps.append(
            (f"{n + 3:03d}_index_{table}", [(f"CREATE INDEX ix_{table}_{names[0]} ON {table} ({names[0]})", {})])
        )
    return steps


def _run_migration(root: Path, steps: list) -> bytes:
    env = _pip_tool(root, "sqlalchemy==2.1.9")
    write(root, {"migrate.py": _MIGRATE.format(steps=repr(steps))})
    out = sh(f"{env} {PY} migrate.py", root)
    out = re.sub(rb"\[(generated in|cached since) [0-9.]+s( ago)?\]", rb"[\1 0.0001s\2]", out)
    return scrub(out, root)


@case(
    "sqlalchemy_echo_migration_not_null_failed",
    "sqlalchemy engine log (migration script)",
    clean=False,
    group=GROUP,
    decisive=[
        "step 032_seed_invoice failed: (sqlite3.IntegrityError) NOT NULL constraint failed: invoice.currency",
        "migration batch: 59 applied, 1 failed",
    ],
)
def _sqlalchemy_fail(root: Path) -> bytes:
    tables = {
        area: ["region TEXT NOT NULL", "amount INTEGER", "status TEXT", "currency TEXT NOT NULL", "version INTEGER"]
        for area in WORDS
    }
    return _run_migration(root, _migration_steps(tables, ("invoice", 37, "currency")))


@case(
    "sqlalchemy_echo_failed_jobs_schema_clean",
    "sqlalchemy engine log (migration script)",
    clean=True,
    group=GROUP,
    decisive=["migration batch: 36 applied, 0 failed"],
)
def _sqlalchemy_clean(root: Path) -> bytes:
    tables = {
        "failed_jobs": ["queue TEXT NOT NULL", "error_message TEXT", "exception_class TEXT", "failure_count INTEGER"],
        "error_events": ["service TEXT", "error_code TEXT", "severity TEXT", "traceback_text TEXT"],
        "retry_queue": ["job_kind TEXT", "attempts INTEGER", "last_error TEXT", "fail_fast INTEGER"],
        "dead_letters": ["topic TEXT", "reason TEXT", "failed_at_offset INTEGER", "error_count INTEGER"],
        "exception_stats": ["exception_class TEXT", "raised_total INTEGER", "fatal_total INTEGER"],
        "audit_failures": ["actor TEXT", "action TEXT", "denied_reason TEXT", "errors INTEGER"],
    }
    for area in WORDS[:6]:
        tables[f"{area}_errors"] = ["error_message TEXT", "status TEXT", "failed INTEGER", "retried INTEGER"]
    return _run_migration(root, _migration_steps(tables))


# ---------------------------------------------------------------- pandera


_VALIDATE = """
import sys
from pathlib import Path

import pandas as pd
import pandera.pandas as pa
from pandera.errors import SchemaErrors

schema = pa.DataFrameSchema(
    {
        "order_id": pa.Column(str, pa.Check.str_matches(r"^ORD-[0-9]{6}$"), unique=True),
        "day": pa.Column(str),
        "region": pa.Column(str),
        "status": pa.Column(str, pa.Check.isin(["paid", "shipped", "refunded", "cancelled"])),
        "qty": pa.Column(int, pa.Check.in_range(1, 50)),
        "amount": pa.Column(float, pa.Check.ge(0)),
    },
    strict=True,
)
bad = 0
for path in sorted(Path("exports").glob("*.csv")):
    df = pd.read_csv(path)
    print(f"== {path}: {len(df)} rows, {df.shape[1]} columns")
    try:
        schema.validate(df, lazy=True)
    except SchemaErrors as exc:
        bad += 1
        print(f"{path}: schema validation FAILED")
        print(exc)
        continue
    summary = df.groupby(["day", "region"]).agg(orders=("order_id", "count"), amount=("amount", "sum"))
    for (day, region), row in summary.iterrows():
        print(f"  {day} {region:<10} orders={int(row.orders):>3} amount={row.amount:>10.2f}")
    print(f"{path}: ok")
print(f"validated {len(list(Path('exports').glob('*.csv')))} exports, {bad} invalid")
sys.exit(1 if bad else 0)
"""


@case(
    "pandera_monthly_exports_schema_errors",
    "pandera (CSV validation script)",
    clean=False,
    group=GROUP,
    decisive=[
        "exports/orders-2025-05.csv: schema validation FAILED",
        "isin(['paid', 'shipped', 'refunded', 'cancelled']) failure cases: chargeback",
        "greater_than_or_equal_to(0) failure cases: -249.12, -561.88, -552.31",
        "validated 12 exports, 1 invalid",
    ],
)
def _pandera(root: Path) -> bytes:
    env = _pip_tool(root, "pandera==0.35.0", "pandas==3.1.1")
    statuses = ["paid", "shipped", "refunded", "cancelled"]
    for m in range(1, 13):
        rows = ["order_id,day,region,status,qty,amount"]
        for i in range(900):
            n = m * 10000 + i
            status, amount = statuses[i % 4], f"{(n * 37) % 900 + 5}.{i % 100:02d}"
            if m == 5 and i in (212, 488, 731):
                amount = f"-{amount}"
            if m == 5 and i == 640:
                status = "chargeback"
            rows.append(f"ORD-{n:06d},2025-{m:02d}-{i % 28 + 1:02d},{WORDS[i % 20]},{status},{i % 9 + 1},{amount}")
        write(root, {f"exports/orders-2025-{m:02d}.csv": "\n".join(rows) + "\n"})
    write(root, {"validate.py": _VALIDATE})
    return scrub(sh(f"{env} {PY} validate.py", root), root)


# ---------------------------------------------------------------- tox


def _unittest_module(area: str, n: int, bad: int | None) -> str:
    tests = []
    for k in range(n):
        expected = k * 3 + 1
        if k == bad:
            expected += 1
        tests.append(
            f"    def test_{area}_rule_{k:02d}(self):\n"
            f"        self.assertEqual(compute({k}), {expected}, 'rule {k} of {area}')\n"
        )
    return (
        "import unittest\n\n\ndef compute(k):\n    return k * 3 + 1\n\n\n"
        f"class {area.title()}Tests(unittest.TestCase):\n" + "\n".join(tests)
    )


@case(
    "tox_envs_one_unittest_failure",
    "tox (eight unittest environments)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL: test_refunds_rule_37 (test_refunds_rules.RefundsTests.test_refunds_rule_37)",
        "AssertionError: 112 != 113 : rule 37 of refunds",
        "refunds: FAIL code 1",
    ],
)
def _tox(root: Path) -> bytes:
    env = _pip_tool(root, "tox==4.67.15")
    areas = ["billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping"]
    for area in areas:
        for part in ("rules", "rounding", "limits"):
            bad = 37 if (area, part) == ("refunds", "rules") else None
            write(root, {f"tests/{area}/test_{area}_{part}.py": _unittest_module(area, 120, bad)})
    write(
        root,
        {
            "tox.ini": f"""
            [tox]
            env_list = {", ".join(areas)}
            skip_missing_interpreters = false

            [testenv]
            skip_install = true
            commands = python -m unittest discover -v -s tests/{{env_name}} -t tests/{{env_name}}
            """
        },
    )
    out = sh(f"{env} tox -c tox.ini", root)
    out = re.sub(rb"\(\d+\.\d+=setup\[\d+\.\d+\]\+cmd\[\d+\.\d+\] seconds\)", b"(N seconds)", out)
    out = re.sub(rb"\d+\.\d+ seconds", b"N seconds", out)
    out = re.sub(rb" pid=\d+", b"", out)
    out = re.sub(rb"Ran (\d+) tests in [0-9.]+s", rb"Ran \1 tests in 0.010s", out)
    return scrub(out, root)


# ---------------------------------------------------------------- pre-commit (repo: local)


_HOOKS = {
    "scripts/check_json.py": """
    import json
    import sys

    for name in sys.argv[1:]:
        with open(name) as f:
            data = json.load(f)
        print(f"{name}: valid JSON, {len(data)} keys")
    """,
    "scripts/check_headers.py": """
    import sys

    for name in sys.argv[1:]:
        with open(name) as f:
            first = f.readline()
        print(f"{name}: header ok ({first.strip()[:40]})")
    """,
    "scripts/check_money.py": """
    import re
    import sys

    bad = 0
    for name in sys.argv[1:]:
        found = 0
        for n, line in enumerate(open(name), 1):
            if re.search(r"float\\(.*(amount|price|total)", line):
                print(f"{name}:{n}: money handled as float: {line.strip()}")
                found += 1
        if not found:
            print(f"{name}: checked, Decimal only")
        bad += found
    sys.exit(1 if bad else 0)
    """,
    "scripts/check_migrations.py": """
    import sys

    names = sorted(sys.argv[1:])
    for k, name in enumerate(names, 1):
        print(f"{name}: migration {k:03d} in order")
    """,
}


def _pre_commit_repo(root: Path, bad_money: bool) -> None:
    files = dict(_HOOKS)
    for i in range(600):
        area = WORDS[i % 20]
        files[f"src/{area}/module_{i:03d}.py"] = (
            f'"""The {area} module {i}."""\n\nfrom decimal import Decimal\n\n\n'
            f"def total_{i}(amount):\n    return Decimal(amount) * {i % 5 + 1}\n"
        )
        files[f"config/{area}-{i:03d}.json"] = f'{{"service": "{area}", "replicas": {i % 4 + 1}, "retries": 3}}\n'
    for k in range(1, 61):
        files[f"migrations/{k:04d}_{WORDS[k % 20]}.sql"] = (
            f"-- migration {k}\nALTER TABLE {WORDS[k % 20]} ADD COLUMN c{k} INT;\n"
        )
    if bad_money:
        files["src/invoice/module_250.py"] = (
            '"""The invoice module 250."""\n\n\ndef total_250(amount, rate):\n'
            "    net = float(amount)\n    return round(float(amount) * rate, 2) + net\n"
        )
    files[".pre-commit-config.yaml"] = """
    repos:
      - repo: local
        hooks:
          - id: check-json
            name: config files are valid JSON
            entry: python scripts/check_json.py
            language: system
            files: ^config/.*\\.json$
            require_serial: true
          - id: module-headers
            name: modules start with a docstring
            entry: python scripts/check_headers.py
            language: system
            types: [python]
            require_serial: true
          - id: money-decimal
            name: money uses Decimal, never float
            entry: python scripts/check_money.py
            language: system
            files: ^src/
            types: [python]
            require_serial: true
          - id: migrations-ordered
            name: migrations are numbered in order
            entry: python scripts/check_migrations.py
            language: system
            files: ^migrations/
            require_serial: true
    """
    files[".gitignore"] = "tools/\n.cache/\n"
    write(root, files)
    sh("git init -q -b main . && git add -A && git -c user.email=ci@example.com -c user.name=ci commit -qm init", root)


def _run_pre_commit(root: Path, env: str) -> bytes:
    out = sh(f"PRE_COMMIT_HOME={root / '.cache'} {env} pre-commit run --all-files --verbose", root)
    return scrub(re.sub(rb"- duration: [0-9.]+s", b"- duration: 0.05s", out), root)


@case(
    "pre_commit_local_hooks_money_float",
    "pre-commit run --all-files --verbose (repo: local hooks)",
    clean=False,
    group=GROUP,
    decisive=[
        "money uses Decimal, never float..........................................Failed",
        "src/invoice/module_250.py:5: money handled as float: net = float(amount)",
    ],
)
def _pre_commit_fail(root: Path) -> bytes:
    env = _pip_tool(root, "pre-commit==4.7.0")
    _pre_commit_repo(root, bad_money=True)
    return _run_pre_commit(root, env)


# ---------------------------------------------------------------- check-jsonschema


_SERVICE_SCHEMA = """
{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "type": "object",
  "required": ["name", "image", "replicas", "retry"],
  "properties": {
    "name": {"type": "string"},
    "image": {"type": "string", "pattern": "^registry\\\\.local/"},
    "replicas": {"type": "integer", "minimum": 1},
    "retry": {
      "type": "object",
      "required": ["max_attempts", "on_errors"],
      "properties": {
        "max_attempts": {"type": "integer", "minimum": 0},
        "backoff_seconds": {"type": "number"},
        "on_errors": {"type": "array", "items": {"type": "string"}}
      }
    },
    "fail_fast": {"type": "boolean"}
  }
}
"""


@case(
    "check_jsonschema_service_configs_wrong_type",
    "check-jsonschema -vv (loop over service folders)",
    clean=False,
    group=GROUP,
    decisive=["services/ledger/ledger-027.yaml::$.retry.max_attempts: 'three' is not of type 'integer'"],
)
def _check_jsonschema(root: Path) -> bytes:
    env = _pip_tool(root, "check-jsonschema==0.39.0")
    files = {"schema.json": _SERVICE_SCHEMA}
    for area in WORDS[:16]:
        for k in range(100):
            attempts = "three" if (area, k) == ("ledger", 27) else str(k % 5 + 1)
            files[f"services/{area}/{area}-{k:03d}.yaml"] = f"""
            name: {area}-{k}
            image: registry.local/{area}:2.{k}.0
            replicas: {k % 4 + 1}
            fail_fast: {"true" if k % 3 == 0 else "false"}
            retry:
              max_attempts: {attempts}
              backoff_seconds: {k % 7 + 0.5}
              on_errors: [timeout, connection_error, http_503]
            """
    write(root, files)
    return sh(
        'st=0; for d in services/*/; do echo "== check-jsonschema -vv --schemafile schema.json $d*.yaml"; '
        f"{env} check-jsonschema -vv --schemafile schema.json $d*.yaml || st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- pyflakes


@case(
    "pyflakes_legacy_package_undefined_name",
    "pyflakes",
    clean=False,
    group=GROUP,
    decisive=["legacy/refunds/handlers_124.py:14:12: undefined name 'refund_totl'"],
)
def _pyflakes(root: Path) -> bytes:
    env = _pip_tool(root, "pyflakes==4.1.0")
    files = {}
    for i in range(260):
        area = WORDS[i % 20]
        body = (
            f"import os\nimport sys\nimport json\nimport logging\nfrom decimal import Decimal\n"
            f"from typing import Any, Optional\n\nlog = logging.getLogger(__name__)\n\n\n"
            f"def handle_{area}_{i}(payload):\n    unused_{i} = payload.get('id')\n"
            f"    result = Decimal(payload['amount'])\n    return result\n\n\n"
            f"def retry_{area}_{i}(payload, attempts=3):\n    try:\n        return handle_{area}_{i}(payload)\n"
            f"    except Exception as exc:\n        return None\n"
        )
        if i == 124:
            body = body.replace("    return result\n", "    return refund_totl\n", 1)
        files[f"legacy/{area}/handlers_{i:03d}.py"] = body
    write(root, files)
    return sh(f"{env} pyflakes $(find legacy -name '*.py' | sort)", root)


# ---------------------------------------------------------------- interrogate


@case(
    "interrogate_errors_package_clean",
    "interrogate -vv",
    clean=True,
    group=GROUP,
    decisive=["RESULT: PASSED (minimum: 80.0%, actual: "],
)
def _interrogate(root: Path) -> bytes:
    env = _pip_tool(root, "interrogate==1.7.0")
    names = ["errors", "exceptions", "retry", "failures", "fatal", "fail_fast", "error_codes", "tracebacks"]
    files = {"errkit/__init__.py": '"""Error handling helpers."""\n'}
    for m, mod in enumerate(names + [f"{w}_errors" for w in WORDS[:24]]):
        funcs = []
        for k in range(30):
            doc = "" if (m + k) % 9 == 0 else f'    """Raise or wrap the {mod} failure number {k}."""\n'
            funcs.append(f"def raise_on_{mod}_failure_{k}(exc):\n{doc}    raise RuntimeError('error {k}') from exc\n")
        files[f"errkit/{mod}.py"] = (
            f'"""The {mod} module: error classes and what to do when a call failed."""\n\n\n'
            f"class {mod.title().replace('_', '')}Error(Exception):\n"
            f'    """A {mod} error; the failed call is in ``args[0]``."""\n\n\n' + "\n\n".join(funcs)
        )
    write(root, files)
    return sh(f"{env} interrogate -vv --fail-under 80 errkit", root)


# ---------------------------------------------------------------- detect-secrets


@case(
    "detect_secrets_hook_aws_key_in_settings",
    "detect-secrets-hook -v (all tracked files)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: Potential secrets about to be committed to git repo!",
        "Secret Type: AWS Access Key",
        "Location:    src/shipping/settings_076.py:5",
    ],
)
def _detect_secrets(root: Path) -> bytes:
    env = _pip_tool(root, "detect-secrets==1.5.0")
    files = {}
    for i in range(700):
        area = WORDS[i % 20]
        files[f"src/{area}/settings_{i:03d}.py"] = (
            f'"""Settings of the {area} service {i}."""\n\nimport os\n\n'
            f'DATABASE_URL = os.environ["{area.upper()}_DATABASE_URL"]\n'
            f'ERROR_MESSAGE = "the {area} request failed, retry later"\n'
            f"MAX_RETRIES = {i % 5 + 1}\n"
        )
        files[f"docs/{area}/runbook_{i:03d}.md"] = (
            f"# {area} runbook {i}\n\nRotate the token with `vault write {area}/token`; never paste it here.\n"
        )
    files["src/shipping/settings_076.py"] = (
        '"""Settings of the shipping service 76."""\n\nimport os\n\n'
        'AWS_ACCESS_KEY_ID = "AKIAZ3MRQ5XKLP7TWN2Q"\n'
        'ERROR_MESSAGE = "the shipping request failed, retry later"\n'
    )
    files[".gitignore"] = "tools/\n"
    write(root, files)
    sh("git init -q -b main . && git add -A", root)
    return sh(f"{env} detect-secrets-hook -v $(git ls-files | sort)", root)
