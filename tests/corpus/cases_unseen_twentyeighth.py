"""Held-out outputs (group ``unseen-28``): a twenty-eighth batch, structured and semi-structured application logs
written by real logging libraries, as an agent sees them when it runs a service or a batch job.

Failing runs: a Node ``pino`` log of an orders worker pricing 3,000 jobs where one throws a ``TypeError`` (its
stack in the ``err.stack`` field of a JSON line), a ``pino`` log of a webhooks sender read through ``pino-pretty``
where one delivery fails, a ``winston`` JSON log of a ledger export where one entry carries a nested ``cause``
(a refused connection), a ``bunyan`` log of a search indexer read through the ``bunyan`` CLI where one document
cannot be indexed, a Python ``structlog`` JSON log of an invoice batch where one record raises (``exc_info``
rendered into an ``exception`` field), a ``loguru`` log of a shipping label run where ``logger.exception`` writes
a traceback with its variable annotations in the middle of a long log, and a stdlib ``logging`` log in JSON lines
(``python-json-logger``) of a coupon import where one row fails. Clean runs whose text talks about errors: a
``pino`` log of a service whose routes are ``/api/errors`` and ``/api/failed-jobs``, all answering 200, a
``structlog`` logfmt log of a sync with ``errors=0 failed=0`` counters in every line, a ``structlog`` console log
of ``error_budget_recalculated`` events and a Prometheus text exposition (``prometheus_client``
``generate_latest``) with ``http_errors_total`` and ``jobs_failed_total`` at zero. Every log has a fixed clock
(a Date replaced in Node, a timestamp processor, patcher or filter in Python), fixed seeds and no hostname or
pid, so the outputs are the same on every run. Labels were written with each scenario, before the engine saw the
output. Needs Node.js with npm (Debian ``nodejs``, ``npm``) and ``pino``, ``pino-pretty``, ``winston`` and
``bunyan`` from the npm registry, with ``structlog``, ``loguru``, ``python-json-logger`` and ``prometheus-client``
from PyPI.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-28"

_PINO = "pino@10.4.0"
_PINO_PRETTY = "pino-pretty@13.2.0"
_WINSTON = "winston@3.19.0"
_BUNYAN = "bunyan@2.0.5"
_STRUCTLOG = "structlog==26.1.0"
_LOGURU = "loguru==0.7.3"
_JSON_LOGGER = "python-json-logger==4.2.0"
_PROMETHEUS = "prometheus-client==0.26.0"

#: A fixed clock for Node: every reading of the time moves 7 ms on from 2026-03-02T09:00:00Z.
_CLOCK_JS = """
const RealDate = Date;
let now = RealDate.UTC(2026, 2, 2, 9, 0, 0);
global.Date = class extends RealDate {
  constructor(...args) {
    if (args.length) super(...args);
    else super((now += 7));
  }
  static now() {
    return (now += 7);
  }
};
"""

#: A fixed clock for Python: ``tick()`` is 2026-03-02T09:00:00Z plus 11 ms for every call.
_CLOCK_PY = """
from datetime import datetime, timedelta, timezone

_NOW = [datetime(2026, 3, 2, 9, 0, 0, tzinfo=timezone.utc)]


def tick():
    _NOW[0] += timedelta(milliseconds=11)
    return _NOW[0]


def stamp():
    return tick().isoformat(timespec="milliseconds").replace("+00:00", "Z")
"""


def _npm(root: Path, *packages: str) -> None:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh(f"npm install --no-audit --no-fund --silent {' '.join(packages)}", root)
    (root / "clock.js").write_text(_CLOCK_JS.lstrip())


def _py(root: Path, reqs: str) -> str:
    (root / "clock.py").write_text(_CLOCK_PY.lstrip())
    return py_tools(root, reqs) + " PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 TZ=UTC"


# ---------------------------------------------------------------- pino


@case(
    "pino_orders_worker_3000_jobs_one_type_error",
    "node worker.js (pino JSON lines, 3,000 jobs)",
    clean=False,
    group=GROUP,
    decisive=[
        '"level":50',
        '"jobId":"job-01742","err":{"type":"TypeError",'
        '"message":"Cannot read properties of undefined (reading \'amount\')"',
        '"msg":"job failed"',
        '"msg":"batch finished"',
        "[exit status 1]",
    ],
)
def _pino_worker(root: Path) -> bytes:
    _npm(root, _PINO)
    write(
        root,
        {
            "worker.js": r"""
            require("./clock");
            const pino = require("pino");

            const log = pino({ base: { service: "orders-worker" } }, pino.destination({ dest: 1, sync: true }));
            const AREAS = ["billing", "orders", "cart", "tax", "refunds", "shipping", "pricing", "coupons"];

            function makeJob(n) {
              const lines = [];
              for (let i = 0; i < 1 + (n % 4); i++) {
                const amount = 100 + ((n * 13 + i) % 900);
                lines.push({ sku: `sku-${(n * 31 + i * 7) % 9000}`, qty: 1 + ((n + i) % 3), price: { amount } });
              }
              if (n === 1742) delete lines[1].price; // a catalog entry that lost its price
              return { id: `job-${String(n).padStart(5, "0")}`, area: AREAS[n % AREAS.length], lines };
            }

            function priceJob(job) {
              return job.lines.reduce((sum, line) => sum + line.price.amount * line.qty, 0);
            }

            function runJob(job) {
              const total = priceJob(job);
              return { total, lines: job.lines.length };
            }

            let failed = 0;
            log.info({ jobs: 3000, concurrency: 1 }, "batch started");
            for (let n = 1; n <= 3000; n++) {
              const job = makeJob(n);
              log.debug({ jobId: job.id }, "job picked");
              try {
                const res = runJob(job);
                log.info({ jobId: job.id, area: job.area, lines: res.lines, totalCents: res.total }, "job priced");
              } catch (err) {
                failed++;
                log.error({ jobId: job.id, err }, "job failed");
              }
              if (n % 500 === 0) log.info({ done: n, failed }, "progress");
            }
            log.info({ processed: 3000, priced: 3000 - failed, failed }, "batch finished");
            process.exitCode = failed ? 1 : 0;
            """,
        },
    )
    return scrub(sh("node worker.js", root), root)


@case(
    "pino_service_errors_routes_all_200_clean",
    "node server-log.js (pino JSON lines, routes /api/errors and /api/failed-jobs)",
    clean=True,
    group=GROUP,
    decisive=['"msg":"server stopped"', '"requests":2400,"status5xx":0,"status4xx":0'],
)
def _pino_clean(root: Path) -> bytes:
    _npm(root, _PINO)
    write(
        root,
        {
            "server-log.js": r"""
            require("./clock");
            const pino = require("pino");

            const log = pino({ base: { service: "ops-api" } }, pino.destination({ dest: 1, sync: true }));
            const ROUTES = [
              "/api/errors", "/api/failed-jobs", "/api/errors/summary", "/api/retry-queue", "/api/exceptions",
            ];

            log.info({ port: 8080, routes: ROUTES }, "server listening");
            let n = 0;
            for (let i = 0; i < 2400; i++) {
              const url = ROUTES[i % ROUTES.length] + (i % 7 === 0 ? "?since=24h" : "");
              const reqId = `req-${String(i + 1).padStart(5, "0")}`;
              log.info({ reqId, req: { method: "GET", url } }, "incoming request");
              const responseTime = 3 + ((i * 17) % 40);
              log.info({ reqId, res: { statusCode: 200 }, responseTime, errors: 0 }, "request completed");
              n++;
            }
            log.info({ requests: n, status5xx: 0, status4xx: 0 }, "server stopped");
            """,
        },
    )
    return scrub(sh("node server-log.js", root), root)


@case(
    "pino_pretty_webhooks_sender_one_delivery_failed",
    "node sender.js | pino-pretty (webhook deliveries)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR (webhooks-sender): delivery failed",
        'endpoint: "https://hooks.partner-17.example/orders"',
        "Error: endpoint answered 410 Gone",
        "sent: 399",
        "INFO (webhooks-sender): run finished",
    ],
)
def _pino_pretty(root: Path) -> bytes:
    _npm(root, _PINO, _PINO_PRETTY)
    write(
        root,
        {
            "sender.js": r"""
            require("./clock");
            const pino = require("pino");

            const log = pino({ base: { name: "webhooks-sender" } }, pino.destination({ dest: 1, sync: true }));

            function deliver(partner, event) {
              if (partner === 17 && event.seq === 5) {
                const err = new Error("endpoint answered 410 Gone");
                err.statusCode = 410;
                throw err;
              }
              return 200 + (partner % 2) * 2;
            }

            let failed = 0, sent = 0;
            for (let seq = 1; seq <= 10; seq++) {
              for (let partner = 1; partner <= 40; partner++) {
                const endpoint = `https://hooks.partner-${partner}.example/orders`;
                const id = `evt_${String(seq * 1000 + partner).padStart(6, "0")}`;
                const event = { seq, id, type: "order.updated" };
                try {
                  const status = deliver(partner, event);
                  sent++;
                  log.info({ endpoint, eventId: event.id, status, attempt: 1 }, "delivered");
                } catch (err) {
                  failed++;
                  log.error({ endpoint, eventId: event.id, attempt: 1, err }, "delivery failed");
                }
              }
            }
            log.info({ sent, failed }, "run finished");
            """,
        },
    )
    pretty = "./node_modules/.bin/pino-pretty --colorize false --translateTime 'UTC:yyyy-mm-dd HH:MM:ss.l'"
    out = sh(f"node sender.js | {pretty}", root)
    return scrub(out, root)


# ---------------------------------------------------------------- winston


@case(
    "winston_json_ledger_export_nested_cause",
    "node export.js (winston JSON format)",
    clean=False,
    group=GROUP,
    decisive=[
        '"message":"ledger batch upload failed"',
        '"cause":{"address":"127.0.0.1","code":"ECONNREFUSED","errno":-111,"port":5439,"syscall":"connect"}',
        '"batch":17',
        "[exit status 1]",
    ],
)
def _winston(root: Path) -> bytes:
    _npm(root, _WINSTON)
    write(
        root,
        {
            "export.js": r"""
            require("./clock");
            const net = require("net");
            const winston = require("winston");

            const logger = winston.createLogger({
              level: "info",
              format: winston.format.combine(
                winston.format.timestamp(),
                winston.format.errors({ stack: true, cause: true }),
                winston.format.json({ deterministic: true }),
              ),
              defaultMeta: { service: "ledger-export" },
              transports: [new winston.transports.Console()],
            });

            function upload(batch) {
              return new Promise((resolve, reject) => {
                if (batch !== 17) return resolve({ accepted: 250 });
                const sock = net.connect({ host: "127.0.0.1", port: 5439 });
                sock.on("connect", () => { sock.end(); resolve({ accepted: 250 }); });
                sock.on("error", (cause) => reject(new Error("ledger batch upload failed", { cause })));
              });
            }

            async function main() {
              let failed = 0;
              logger.info("export started", { batches: 40, entriesPerBatch: 250 });
              for (let batch = 1; batch <= 40; batch++) {
                for (let e = 0; e < 250; e += 25) {
                  const account = `acct-${(batch * 7919 + e) % 100000}`;
                  logger.info("entries staged", { batch, from: e, to: e + 24, account });
                }
                try {
                  const res = await upload(batch);
                  logger.info("batch uploaded", { batch, accepted: res.accepted });
                } catch (err) {
                  failed++;
                  logger.error(err, { batch });
                }
              }
              logger.info("export finished", { batches: 40, failed });
              process.exitCode = failed ? 1 : 0;
            }
            main();
            """,
        },
    )
    return scrub(sh("node export.js", root), root)


# ---------------------------------------------------------------- bunyan


@case(
    "bunyan_cli_search_indexer_one_document_failed",
    "node indexer.js | bunyan (bunyan CLI pretty printer)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: search-indexer/4242 on indexer-1: could not index document (docId=catalog-0613)",
        "RangeError: Invalid count value: -1",
        "INFO: search-indexer/4242 on indexer-1: indexing finished (indexed=1199, failed=1)",
    ],
)
def _bunyan(root: Path) -> bytes:
    _npm(root, _BUNYAN)
    write(
        root,
        {
            "indexer.js": r"""
            require("./clock");
            const bunyan = require("bunyan");

            const log = bunyan.createLogger({
              name: "search-indexer", hostname: "indexer-1", pid: 4242, serializers: bunyan.stdSerializers,
            });

            function tokenize(doc) {
              if (doc.id === "catalog-0613") return "x".repeat(-1); // a negative field length from the feed
              return doc.title.toLowerCase().split(/\s+/);
            }

            let indexed = 0, failed = 0;
            log.info({ index: "catalog-v7", shards: 4 }, "indexing started");
            for (let n = 1; n <= 1200; n++) {
              const title = `Product ${n} for ${n % 2 ? "search" : "catalog"}`;
              const doc = { id: `catalog-${String(n).padStart(4, "0")}`, title };
              try {
                const tokens = tokenize(doc);
                indexed++;
                log.info({ docId: doc.id, tokens: tokens.length, shard: n % 4 }, "document indexed");
              } catch (err) {
                failed++;
                log.error({ docId: doc.id, err }, "could not index document");
              }
            }
            log.info({ indexed, failed }, "indexing finished");
            """,
        },
    )
    return scrub(sh("node indexer.js | ./node_modules/.bin/bunyan --no-color", root), root)


# ---------------------------------------------------------------- structlog


@case(
    "structlog_json_invoice_batch_one_exc_info",
    "python render_invoices.py (structlog JSONRenderer)",
    clean=False,
    group=GROUP,
    decisive=[
        '"event": "invoice_render_failed"',
        '"invoice_id": "inv-2026-01337"',
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
        '"event": "batch_finished"',
        "[exit status 1]",
    ],
)
def _structlog_bad(root: Path) -> bytes:
    env = _py(root, _STRUCTLOG)
    write(
        root,
        {
            "render_invoices.py": """
            import sys
            from decimal import Decimal

            import structlog

            from clock import stamp


            def add_time(logger, name, event):
                event["timestamp"] = stamp()
                return event


            structlog.configure(
                processors=[
                    structlog.processors.add_log_level,
                    add_time,
                    structlog.processors.format_exc_info,
                    structlog.processors.JSONRenderer(),
                ],
                logger_factory=structlog.PrintLoggerFactory(sys.stdout),
            )
            log = structlog.get_logger().bind(job="invoice-render")


            def total(lines):
                return sum(Decimal(amount) * qty for amount, qty in lines)


            failed = 0
            log.info("batch_started", invoices=2400)
            for n in range(1, 2401):
                invoice_id = f"inv-2026-{n:05d}"
                lines = [(f"{(n * 37 + i) % 500}.{i:02d}", 1 + i % 3) for i in range(1 + n % 3)]
                if n == 1337:
                    lines.append(("12,50", 1))  # a comma as decimal mark from the legacy importer
                try:
                    amount = total(lines)
                    log.info("invoice_rendered", invoice_id=invoice_id, lines=len(lines), total=str(amount))
                except Exception:
                    failed += 1
                    log.exception("invoice_render_failed", invoice_id=invoice_id, lines=len(lines))
            log.info("batch_finished", rendered=2400 - failed, failed=failed)
            sys.exit(1 if failed else 0)
            """,
        },
    )
    return scrub(sh(f"{env} {PY} render_invoices.py", root), root)


@case(
    "structlog_logfmt_sync_errors_zero_clean",
    "python sync.py (structlog LogfmtRenderer)",
    clean=True,
    group=GROUP,
    decisive=["event=sync_finished", "errors=0 failed=0 synced=3000"],
)
def _structlog_logfmt(root: Path) -> bytes:
    env = _py(root, _STRUCTLOG)
    areas = ", ".join(repr(a) for a in WORDS)
    write(
        root,
        {
            "sync.py": f"""
            import sys

            import structlog

            from clock import stamp


            def add_time(logger, name, event):
                event["ts"] = stamp()
                return event


            structlog.configure(
                processors=[
                    add_time,
                    structlog.processors.add_log_level,
                    structlog.processors.LogfmtRenderer(key_order=["ts", "level", "event"]),
                ],
                logger_factory=structlog.PrintLoggerFactory(sys.stdout),
            )
            log = structlog.get_logger()
            AREAS = [{areas}]

            log.info("sync_started", source="erp", target="warehouse", records=3000)
            for n in range(1, 3001):
                area = AREAS[n % len(AREAS)]
                log.info("record_synced", table=area, record=f"{{area}}-{{n:05d}}", errors=0, failed=0, retries=0)
                if n % 250 == 0:
                    log.info("checkpoint", synced=n, errors=0, failed=0, error_rate="0.000")
            log.info("sync_finished", errors=0, failed=0, synced=3000)
            """,
        },
    )
    return scrub(sh(f"{env} {PY} sync.py", root), root)


@case(
    "structlog_console_error_budget_recalculated_clean",
    "python slo.py (structlog ConsoleRenderer, no colours)",
    clean=True,
    group=GROUP,
    decisive=["slo_report_written", "services=20"],
)
def _structlog_console(root: Path) -> bytes:
    env = _py(root, _STRUCTLOG)
    areas = ", ".join(repr(a) for a in WORDS)
    write(
        root,
        {
            "slo.py": f"""
            import random
            import sys

            import structlog

            from clock import stamp


            def add_time(logger, name, event):
                event["timestamp"] = stamp()
                return event


            structlog.configure(
                processors=[
                    structlog.processors.add_log_level,
                    add_time,
                    structlog.dev.ConsoleRenderer(colors=False, sort_keys=False),
                ],
                logger_factory=structlog.PrintLoggerFactory(sys.stdout),
            )
            log = structlog.get_logger()
            rng = random.Random(28)
            AREAS = [{areas}]

            log.info("slo_window_opened", window="30d", objective="99.9%")
            for hour in range(72):
                for area in AREAS:
                    requests = 10000 + rng.randrange(5000)
                    errors = rng.randrange(6)
                    budget = round(1 - errors / (requests * 0.001), 3)
                    log.info(
                        "error_budget_recalculated",
                        service=area,
                        hour=hour,
                        requests=requests,
                        errors=errors,
                        error_budget_remaining=budget,
                        burn_rate=round(errors / (requests * 0.001), 3),
                    )
            log.info("slo_report_written", services=20, hours=72, path="reports/slo-2026-03-02.json")
            """,
        },
    )
    return scrub(sh(f"{env} {PY} slo.py", root), root)


# ---------------------------------------------------------------- loguru


@case(
    "loguru_shipping_labels_exception_with_variables",
    "python labels.py (loguru, diagnose=True)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR    | __main__:run:",
        "Could not price parcel parcel-0917",
        "ZeroDivisionError: division by zero",
        "Done: 1799 labels printed, 1 failed",
    ],
)
def _loguru(root: Path) -> bytes:
    env = _py(root, _LOGURU)
    write(
        root,
        {
            "labels.py": """
            import sys

            from loguru import logger

            from clock import tick

            logger.remove()
            logger.add(
                sys.stdout,
                colorize=False,
                backtrace=True,
                diagnose=True,
                format="{extra[ts]} | {level: <8} | {name}:{function}:{line} - {message}",
            )
            logger = logger.patch(lambda r: r["extra"].update(ts=tick().strftime("%Y-%m-%d %H:%M:%S.%f")[:-3]))


            def rate_per_kg(zone, weight_grams, base_cents):
                kilos = weight_grams // 1000
                return base_cents / kilos


            def price(parcel):
                return round(rate_per_kg(parcel["zone"], parcel["grams"], 1890 + parcel["zone"] * 115), 2)


            def run(parcels):
                printed = failed = 0
                for parcel in parcels:
                    try:
                        cents = price(parcel)
                    except Exception:
                        failed += 1
                        logger.exception("Could not price parcel {}", parcel["id"])
                        continue
                    printed += 1
                    logger.info(
                        "Label printed for {} (zone {}, {} g, {} cents/kg)",
                        parcel["id"], parcel["zone"], parcel["grams"], cents,
                    )
                    if printed % 300 == 0:
                        logger.debug("Spooler flushed after {} labels", printed)
                return printed, failed


            parcels = [
                {"id": f"parcel-{n:04d}", "zone": 1 + n % 6, "grams": 1000 + (n * 389) % 24000}
                for n in range(1, 1801)
            ]
            parcels[916]["grams"] = 640  # a letter-sized parcel: under one kilo
            logger.info("Shipping label run started: {} parcels", len(parcels))
            printed, failed = run(parcels)
            logger.info("Done: {} labels printed, {} failed", printed, failed)
            """,
        },
    )
    out = sh(f"{env} {PY} labels.py", root)
    return substitute(scrub(out, root), (r" at 0x[0-9a-f]+>", " at 0x7f2a1c0d5e40>"))  # a function's address


# ---------------------------------------------------------------- python-json-logger


@case(
    "python_json_logger_coupon_import_one_row_failed",
    "python import_coupons.py (logging + python-json-logger)",
    clean=False,
    group=GROUP,
    decisive=[
        '"level": "ERROR"',
        '"message": "row 1288 rejected"',
        "ValueError: day is out of range for month",
        '"message": "import finished: 2199 imported, 1 rejected"',
        "[exit status 2]",
    ],
)
def _json_logger(root: Path) -> bytes:
    env = _py(root, _JSON_LOGGER)
    write(
        root,
        {
            "import_coupons.py": """
            import logging
            import sys
            import time
            from datetime import datetime

            from pythonjsonlogger.json import JsonFormatter

            from clock import tick


            class FixedClock(logging.Filter):
                def filter(self, record):
                    t = tick().timestamp()
                    record.created = t
                    record.msecs = int(t * 1000) % 1000
                    return True


            handler = logging.StreamHandler(sys.stdout)
            formatter = JsonFormatter(
                "%(asctime)s %(levelname)s %(name)s %(message)s",
                rename_fields={"levelname": "level", "asctime": "time"},
            )
            formatter.converter = time.gmtime
            handler.setFormatter(formatter)
            handler.addFilter(FixedClock())
            logging.basicConfig(level=logging.INFO, handlers=[handler])
            log = logging.getLogger("coupons.import")


            def parse(row):
                code, percent, expires = row.split(";")
                return code, int(percent), datetime.strptime(expires, "%Y-%m-%d").date()


            rows = [f"SPRING{n:05d};{5 + n % 30};2026-{1 + n % 12:02d}-{1 + n % 28:02d}" for n in range(1, 2201)]
            rows[1287] = "SPRING01288;15;2026-02-30"
            imported = rejected = 0
            log.info("import started", extra={"file": "coupons-2026-03.csv", "rows": len(rows)})
            for n, row in enumerate(rows, 1):
                try:
                    code, percent, expires = parse(row)
                except ValueError:
                    rejected += 1
                    log.error("row %d rejected", n, exc_info=True, extra={"row": n, "raw": row})
                    continue
                imported += 1
                log.info("coupon imported", extra={"row": n, "code": code, "percent": percent, "expires": str(expires)})
            log.info("import finished: %d imported, %d rejected", imported, rejected)
            sys.exit(2 if rejected else 0)
            """,
        },
    )
    return scrub(sh(f"{env} {PY} import_coupons.py", root), root)


# ---------------------------------------------------------------- prometheus_client


@case(
    "prometheus_client_generate_latest_errors_zero_clean",
    "python metrics_dump.py (prometheus_client generate_latest)",
    clean=True,
    group=GROUP,
    decisive=['http_errors_total{route="/api/errors"} 0.0', 'jobs_failed_total{queue="refunds"} 0.0'],
)
def _prometheus(root: Path) -> bytes:
    env = _py(root, _PROMETHEUS) + " PROMETHEUS_DISABLE_CREATED_SERIES=True"
    areas = ", ".join(repr(a) for a in WORDS)
    write(
        root,
        {
            "metrics_dump.py": f"""
            import random
            import sys

            from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

            reg = CollectorRegistry()
            AREAS = [{areas}]
            rng = random.Random(28)
            requests = Counter("http_requests", "HTTP requests served.", ["route", "method", "status"], registry=reg)
            errors = Counter("http_errors", "HTTP requests answered with a 5xx status.", ["route"], registry=reg)
            latency = Histogram("http_request_duration_seconds", "Request latency.", ["route"], registry=reg)
            jobs = Counter("jobs_processed", "Background jobs processed.", ["queue"], registry=reg)
            failed = Counter("jobs_failed", "Background jobs that failed.", ["queue"], registry=reg)
            retries = Counter("jobs_retried", "Background jobs retried.", ["queue"], registry=reg)
            depth = Gauge("queue_depth", "Jobs waiting.", ["queue"], registry=reg)

            routes = ["/api/errors", "/api/failed-jobs"] + [f"/api/{{a}}" for a in AREAS]
            for route in routes:
                errors.labels(route).inc(0)
                for method in ("GET", "POST", "PUT", "DELETE"):
                    for status in ("200", "201", "204", "304"):
                        requests.labels(route, method, status).inc(rng.randrange(1, 5000))
                for _ in range(200):
                    latency.labels(route).observe(rng.random() * 0.8)
            for queue in AREAS:
                jobs.labels(queue).inc(rng.randrange(100, 9000))
                failed.labels(queue).inc(0)
                retries.labels(queue).inc(0)
                depth.labels(queue).set(0)
            sys.stdout.write(generate_latest(reg).decode())
            """,
        },
    )
    return scrub(sh(f"{env} {PY} metrics_dump.py", root), root)
