"""Held-out outputs (group ``unseen-50``): a fiftieth batch, PostgreSQL as an agent uses it: a private cluster made
with ``initdb`` in the scenario's folder (Unix socket only, run as the ``postgres`` user), then migrations, restores,
dumps, plans, maintenance and the server's own log.

Failing runs: ``psql -v ON_ERROR_STOP=1 -f`` of a migration script that ``\\ir``s 12 files of ``CREATE TABLE`` and
``INSERT 0 1`` streams and stops at a view over a misspelt column (ERROR, ``LINE 4`` with its caret, HINT); ``make -k``
running ``psql -1 -v ON_ERROR_STOP=1`` per tenant database over 10 tenants where the ``refunds`` tenant's PL/pgSQL
backfill meets ``'n/a'`` (ERROR with a two-line CONTEXT, in the middle); ``psql -f`` without ON_ERROR_STOP of 2,400
``failed_jobs`` inserts where one duplicate key fails at line 1318 and the script goes on; ``pg_restore -v`` of 30
tables with their sequences, indexes, views and functions into a database where ``ledger_entries`` already exists with
three rows (four errors, then ``errors ignored on restore``); the server's log with ``log_statement=all`` where two
workers deadlock on ``retry_queue`` among 1,100 statements; and ``pg_amcheck -v --heapallindexed --all`` where an
expression index over a redefined IMMUTABLE function lacks a heap tuple. Clean runs over tables named ``error_events``,
``failed_jobs``, ``retry_queue``, ``exceptions_log``: ``pg_dump -v`` then ``pg_restore -l``, ``pg_restore -v
--exit-on-error`` with row counts, ``EXPLAIN (ANALYZE, BUFFERS)`` of 12 report queries (one a seq scan with an external
sort), ``vacuumdb -v -z`` then ``reindexdb -v``, and an idempotent schema script run twice (``NOTICE: ... already
exists, skipping``). Labels were written with each scenario, before the engine saw the output. Needs Debian
``postgresql`` (15, its binaries under ``/usr/lib/postgresql/15/bin``) and ``make``, run as root (``runuser -u
postgres``).
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-50"

_BIN = "/usr/lib/postgresql/15/bin"


@contextlib.contextmanager
def _cluster(root: Path, *settings: str) -> Iterator[str]:
    """A PostgreSQL cluster in ``root/pgdata`` with its socket in ``root/sock`` (no TCP), the server's log in
    ``root/pg.log``; the environment prefix that points the client tools at it."""
    data, sock = root / "pgdata", root / "sock"
    sock.mkdir()
    sh(f"chmod 755 {root} && chown postgres {root} {sock}", root)
    as_pg = "runuser -u postgres --"
    sh(f"{as_pg} {_BIN}/initdb -D {data} -A trust -U postgres -E UTF8 --locale=C.UTF-8", root)
    base = ("listen_addresses=''", f"unix_socket_directories={sock}", "fsync=off", "autovacuum=off")
    opts = " ".join(f"-c {s}" for s in (*base, *settings))
    sh(f'{as_pg} {_BIN}/pg_ctl -D {data} -o "{opts}" -l {root}/pg.log -w start', root)
    try:
        yield f"PGHOST={sock} PGUSER=postgres PATH={_BIN}:$PATH"
    finally:
        sh(f"{as_pg} {_BIN}/pg_ctl -D {data} -m fast -w stop", root)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, PIDs, rates."""
    return substitute(
        scrub(out, root),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\.\d+)? UTC", "2026-01-01 00:00:00.000 UTC"),
        (r"actual time=[0-9.]+\.\.[0-9.]+", "actual time=0.010..0.020"),
        (r"(Planning|Execution) Time: [0-9.]+ ms", r"\1 Time: 0.100 ms"),
    )


def _inserts(table: str, cols: str, rows: list[str]) -> str:
    return "".join(f"INSERT INTO {table} ({cols}) VALUES ({r});\n" for r in rows)


# ---------------------------------------------------------------- psql -v ON_ERROR_STOP=1 over \ir'ed migrations


def _migrations() -> dict[str, str]:
    areas = ["billing", "orders", "tax", "refunds", "shipping"]
    files = {
        "001_schemas.sql": "".join(f"CREATE SCHEMA IF NOT EXISTS {a};\n" for a in areas)
        + "CREATE EXTENSION IF NOT EXISTS plpgsql;\n",
        "002_customers.sql": "CREATE TABLE billing.customers (\n    id integer PRIMARY KEY,\n"
        "    email text NOT NULL UNIQUE,\n    region text NOT NULL\n);\n"
        + _inserts(
            "billing.customers",
            "id, email, region",
            [f"{i}, 'customer{i}@example.com', '{WORDS[i % 20]}'" for i in range(1, 241)],
        ),
        "003_invoices.sql": "CREATE TABLE billing.invoices (\n    id integer PRIMARY KEY,\n"
        "    customer_id integer NOT NULL REFERENCES billing.customers (id),\n    issued_on date NOT NULL\n);\n"
        + _inserts(
            "billing.invoices",
            "id, customer_id, issued_on",
            [f"{i}, {i % 240 + 1}, DATE '2025-01-01' + {i % 300}" for i in range(1, 401)],
        ),
        "004_invoice_lines.sql": "CREATE TABLE billing.invoice_lines (\n    id integer PRIMARY KEY,\n"
        "    invoice_id integer NOT NULL REFERENCES billing.invoices (id),\n    sku text NOT NULL,\n"
        "    amount_cent bigint NOT NULL\n);\n"
        + _inserts(
            "billing.invoice_lines",
            "id, invoice_id, sku, amount_cent",
            [f"{i}, {i % 400 + 1}, 'SKU-{i % 37:03d}', {(i * 7919) % 50000 + 100}" for i in range(1, 901)],
        ),
        "005_tax_rates.sql": "CREATE TABLE tax.rates (region text PRIMARY KEY, rate numeric(5,4) NOT NULL);\n"
        + _inserts("tax.rates", "region, rate", [f"'{w}', 0.{(k * 37) % 25:04d}" for k, w in enumerate(WORDS)]),
        "006_refunds.sql": "CREATE TABLE refunds.requests (\n    id integer PRIMARY KEY,\n"
        "    invoice_id integer NOT NULL REFERENCES billing.invoices (id),\n    reason text\n);\n"
        + _inserts(
            "refunds.requests", "id, invoice_id, reason", [f"{i}, {i * 3 % 400 + 1}, 'damaged'" for i in range(1, 121)]
        ),
        "007_indexes.sql": "CREATE INDEX invoices_customer_idx ON billing.invoices (customer_id);\n"
        "CREATE INDEX invoice_lines_invoice_idx ON billing.invoice_lines (invoice_id);\n"
        "CREATE INDEX refunds_invoice_idx ON refunds.requests (invoice_id);\n",
        "008_shipping.sql": "CREATE TABLE shipping.labels (id integer PRIMARY KEY, invoice_id integer, carrier text);\n"
        + _inserts(
            "shipping.labels",
            "id, invoice_id, carrier",
            [f"{i}, {i % 400 + 1}, '{('dhl', 'ups', 'fedex')[i % 3]}'" for i in range(1, 301)],
        ),
        "009_analyze.sql": "ANALYZE billing.customers;\nANALYZE billing.invoices;\nANALYZE billing.invoice_lines;\n",
        "010_invoice_totals.sql": "-- totals per invoice for the billing dashboard\n"
        "CREATE VIEW billing.invoice_totals AS\nSELECT invoice_id,\n    count(*) AS line_count,\n"
        "    sum(amount_cents) AS total_cents\nFROM billing.invoice_lines\nGROUP BY invoice_id;\n",
        "011_orders.sql": "CREATE TABLE orders.orders (id integer PRIMARY KEY, invoice_id integer);\n",
        "012_grants.sql": "GRANT USAGE ON SCHEMA billing TO PUBLIC;\n",
    }
    return {f"db/migrations/{k}": v for k, v in files.items()}


@case(
    "u50_psql_on_error_stop_migrations",
    "psql -v ON_ERROR_STOP=1 -f",
    clean=False,
    group=GROUP,
    decisive=[
        'psql:db/migrations/010_invoice_totals.sql:7: ERROR:  column "amount_cents" does not exist',
        "LINE 4:     sum(amount_cents) AS total_cents",
        'HINT:  Perhaps you meant to reference the column "invoice_lines.amount_cent".',
    ],
)
def _psql_on_error_stop(root: Path) -> bytes:
    files = _migrations()
    master = "".join(f"\\echo == {Path(k).name}\n\\ir migrations/{Path(k).name}\n" for k in files)
    write(root, {**files, "db/migrate.sql": "\\set ON_ERROR_STOP on\n" + master})
    with _cluster(root) as env:
        sh(f"{env} createdb shop", root)
        out = sh(f"{env} psql -X -v ON_ERROR_STOP=1 -d shop -f db/migrate.sql", root)
    return _settle(out, root)


# ---------------------------------------------------------------- make -k: one psql -1 per tenant database


_TENANTS = ["billing", "orders", "cart", "tax", "refunds", "ledger", "shipping", "invoice", "coupons", "pricing"]

_BACKFILL = """
-- backfill retry_queue.attempts from the legacy text column, then audit the change
ALTER TABLE retry_queue ADD COLUMN attempts integer;
DO $$
DECLARE
    r record;
    n integer := 0;
BEGIN
    FOR r IN SELECT id, attempts_raw FROM retry_queue ORDER BY id LOOP
        UPDATE retry_queue SET attempts = r.attempts_raw::integer WHERE id = r.id;
        n := n + 1;
        IF n % 10 = 0 THEN
            RAISE NOTICE 'retry_queue backfill: % rows', n;
        END IF;
    END LOOP;
END
$$;
ALTER TABLE retry_queue ALTER COLUMN attempts SET NOT NULL;
CREATE INDEX retry_queue_attempts_idx ON retry_queue (attempts);
"""


@case(
    "u50_make_k_tenant_backfill_plpgsql",
    "make -k (psql -1 -v ON_ERROR_STOP=1 per tenant)",
    clean=False,
    group=GROUP,
    decisive=[
        'psql:backfill.sql:16: ERROR:  invalid input syntax for type integer: "n/a"',
        "PL/pgSQL function inline_code_block line 7 at SQL statement",
        "make: *** [Makefile:9: migrate-refunds] Error 3",
    ],
)
def _make_tenants(root: Path) -> bytes:
    audit = "".join(
        f"INSERT INTO audit_log (action, detail) VALUES ('backfill', 'retry_queue step {k}');\n" for k in range(1, 91)
    )
    write(
        root,
        {
            "backfill.sql": _BACKFILL.lstrip("\n") + audit + "ANALYZE retry_queue;\n",
            "Makefile": f"PSQL ?= psql -X -v ON_ERROR_STOP=1\nTENANTS = {' '.join(_TENANTS)}\n\n"
            "all: $(addprefix migrate-,$(TENANTS))\n\t@echo all tenants migrated\n\n"
            ".PHONY: all\n"
            "migrate-%:\n\t$(PSQL) -1 -d tenant_$* -f backfill.sql\n",
        },
    )
    with _cluster(root) as env:
        for k, t in enumerate(_TENANTS):
            rows = [f"'job-{t}-{i}', '{'n/a' if t == 'refunds' and i == 143 else (i * k) % 7}'" for i in range(1, 201)]
            setup = (
                "CREATE TABLE retry_queue (id serial PRIMARY KEY, job text NOT NULL, attempts_raw text);\n"
                "CREATE TABLE audit_log (id serial PRIMARY KEY, action text, detail text);\n"
                "INSERT INTO retry_queue (job, attempts_raw) VALUES\n" + ",\n".join(f"({r})" for r in rows) + ";\n"
            )
            (root / "setup.sql").write_text(setup)
            sh(f"{env} createdb tenant_{t} && {env} psql -X -q -d tenant_{t} -f setup.sql", root)
        out = sh(f"{env} make -k", root)
    return _settle(out, root)


# ---------------------------------------------------------------- psql -f going on after an error


@case(
    "u50_psql_seed_duplicate_key_continues",
    "psql -f (no ON_ERROR_STOP)",
    clean=False,
    group=GROUP,
    decisive=[
        'psql:seed_failed_jobs.sql:1318: ERROR:  duplicate key value violates unique constraint "failed_jobs_uuid_key"',
        "DETAIL:  Key (uuid)=(5f0c3a1e-0000-4000-8000-000000001300) already exists.",
    ],
)
def _psql_seed(root: Path) -> bytes:
    head = [
        "CREATE TABLE IF NOT EXISTS failed_jobs (\n    id bigserial PRIMARY KEY,\n    uuid text NOT NULL UNIQUE,\n"
        "    queue text NOT NULL,\n    payload jsonb NOT NULL,\n    exception text NOT NULL,\n"
        "    failed_at timestamptz NOT NULL DEFAULT '2025-06-01 00:00:00+00'\n);",
        "CREATE INDEX IF NOT EXISTS failed_jobs_queue_idx ON failed_jobs (queue);",
    ]
    lines = "\n".join(head).count("\n") + 1
    rows = []
    for i in range(1, 2401):
        uid = 1300 if lines + len(rows) + 1 == 1318 else i
        rows.append(
            "INSERT INTO failed_jobs (uuid, queue, payload, exception) VALUES "
            f"('5f0c3a1e-0000-4000-8000-{uid:012d}', '{WORDS[i % 20]}', "
            f'\'{{"job": "Sync{WORDS[(i * 3) % 20].capitalize()}", "attempt": {i % 5 + 1}}}\', '
            f"'TimeoutError: upstream {WORDS[(i * 7) % 20]} did not answer');"
        )
    tail = [
        "SELECT queue, count(*) AS failed FROM failed_jobs GROUP BY queue ORDER BY queue;",
        "SELECT count(*) AS total_failed_jobs FROM failed_jobs;",
    ]
    (root / "seed_failed_jobs.sql").write_text("\n".join(head + rows + tail) + "\n")
    with _cluster(root) as env:
        sh(f"{env} createdb jobs", root)
        out = sh(f"{env} psql -X -d jobs -f seed_failed_jobs.sql", root)
    return _settle(out, root)


# ---------------------------------------------------------------- pg_dump and pg_restore


def _schema(tables: list[str], refs: dict[str, str]) -> str:
    """One table per name (a serial key, an index, a view, a comment and 40 rows), ``refs`` as foreign keys."""
    out = []
    for t in tables:
        out.append(
            f"CREATE TABLE {t} (\n    id serial PRIMARY KEY,\n    account text NOT NULL,\n"
            f"    amount_cents bigint NOT NULL DEFAULT 0,\n    status text NOT NULL DEFAULT 'open',\n"
            f"    created_at timestamptz NOT NULL DEFAULT '2025-06-01 00:00:00+00'"
            + (f",\n    {refs[t]}_id integer" if t in refs else "")
            + "\n);\n"
            f"CREATE INDEX {t}_account_idx ON {t} (account);\n"
            f"CREATE INDEX {t}_status_idx ON {t} (status, created_at);\n"
            f"COMMENT ON TABLE {t} IS '{t.replace('_', ' ')} kept by the platform';\n"
            f"CREATE VIEW {t}_open AS SELECT id, account, amount_cents FROM {t} WHERE status = 'open';\n"
            f"INSERT INTO {t} (account, amount_cents, status) SELECT 'acct-' || g, g * 137 % 9000, "
            f"CASE WHEN g % 4 = 0 THEN 'closed' ELSE 'open' END FROM generate_series(1, 40) g;\n"
            f"CREATE FUNCTION {t}_total() RETURNS bigint LANGUAGE sql STABLE AS "
            f"'SELECT coalesce(sum(amount_cents), 0) FROM {t}';\n"
        )
    for t, r in refs.items():
        out.append(f"ALTER TABLE {t} ADD CONSTRAINT {t}_{r}_fk FOREIGN KEY ({r}_id) REFERENCES {r} (id);\n")
    return "".join(out)


_PLATFORM = [
    f"{a}_{b}"
    for a in ("billing", "orders", "cart", "tax", "refunds", "ledger", "shipping", "catalog", "pricing", "coupons")
    for b in ("entries", "events", "snapshots")
]
_PLATFORM_REFS = {
    "refunds_entries": "ledger_entries",
    "billing_entries": "ledger_entries",
    "tax_events": "orders_events",
}


@case(
    "u50_pg_restore_verbose_relation_exists",
    "pg_restore -v",
    clean=False,
    group=GROUP,
    decisive=[
        'ERROR:  relation "ledger_entries" already exists',
        'ERROR:  could not create unique index "ledger_entries_pkey"',
        "pg_restore: warning: errors ignored on restore: 4",
    ],
)
def _pg_restore_error(root: Path) -> bytes:
    (root / "platform.sql").write_text(_schema(_PLATFORM, _PLATFORM_REFS))
    # the staging app's bootstrap made ledger_entries (and three rows) before anyone restored into it
    staging = (
        "CREATE TABLE ledger_entries (id integer NOT NULL, account text NOT NULL, amount_cents bigint NOT NULL, "
        "status text NOT NULL, created_at timestamptz NOT NULL);\n"
        "INSERT INTO ledger_entries VALUES (1, 'bootstrap', 0, 'open', '2025-01-01'), "
        "(2, 'bootstrap', 0, 'open', '2025-01-01'), (3, 'bootstrap', 0, 'open', '2025-01-01');\n"
    )
    (root / "staging.sql").write_text(staging)
    with _cluster(root) as env:
        sh(
            f"{env} createdb platform && {env} psql -X -q -d platform -f platform.sql && "
            f"{env} pg_dump -Fc -f platform.dump platform && "
            f"{env} createdb platform_staging && {env} psql -X -q -d platform_staging -f staging.sql",
            root,
        )
        out = sh(f"{env} pg_restore -v -d platform_staging platform.dump", root)
    return _settle(out, root)


_JOBS = [
    "error_events", "failed_jobs", "retry_queue", "exceptions_log", "dead_letters", "job_attempts",
    "webhooks_retry", "export_errors", "auth_failures", "billing_retries", "refunds_failed", "session_errors",
    "invoice_exceptions", "audit_errors", "search_failures", "shipping_retry_log",
]  # fmt: skip
_JOBS_REFS = {"retry_queue": "failed_jobs", "job_attempts": "failed_jobs", "dead_letters": "error_events"}


@case(
    "u50_pg_dump_verbose_errors_schema_clean",
    "pg_dump -v && pg_restore -l",
    clean=True,
    group=GROUP,
    decisive=["TOC Entries: 199", 'pg_dump: dumping contents of table "public.shipping_retry_log"'],
)
def _pg_dump_clean(root: Path) -> bytes:
    (root / "jobs.sql").write_text(_schema(_JOBS, _JOBS_REFS))
    with _cluster(root) as env:
        sh(f"{env} createdb jobs && {env} psql -X -q -d jobs -f jobs.sql", root)
        out = sh(f"{env} pg_dump -v -Fc -f jobs.dump jobs && {env} pg_restore -l jobs.dump", root)
    return _settle(out, root)


@case(
    "u50_pg_restore_verbose_errors_schema_clean",
    "pg_restore -v --exit-on-error && psql",
    clean=True,
    group=GROUP,
    decisive=['pg_restore: creating FK CONSTRAINT "public.retry_queue retry_queue_failed_jobs_fk"', "(16 rows)"],
)
def _pg_restore_clean(root: Path) -> bytes:
    (root / "jobs.sql").write_text(_schema(_JOBS, _JOBS_REFS))
    counts = " UNION ALL ".join(f"SELECT '{t}' AS relation, count(*) AS rows FROM {t}" for t in _JOBS)
    with _cluster(root) as env:
        sh(f"{env} createdb jobs && {env} psql -X -q -d jobs -f jobs.sql && {env} pg_dump -Fc -f jobs.dump jobs", root)
        out = sh(
            f"{env} createdb jobs_restore && {env} pg_restore -v --exit-on-error -d jobs_restore jobs.dump && "
            f'{env} psql -X -d jobs_restore -c "{counts} ORDER BY relation"',
            root,
        )
    return _settle(out, root)


# ---------------------------------------------------------------- EXPLAIN (ANALYZE, BUFFERS)

_EVENTS_SETUP = """
CREATE TABLE error_events (
    id bigserial PRIMARY KEY,
    service text NOT NULL,
    code integer NOT NULL,
    message text NOT NULL,
    occurred_at timestamptz NOT NULL
);
INSERT INTO error_events (service, code, message, occurred_at)
SELECT (ARRAY['billing','orders','cart','tax','refunds','auth','session','search'])[g % 8 + 1],
       400 + g % 104,
       'upstream call ' || g || ' answered ' || (400 + g % 104),
       timestamptz '2025-06-01 00:00:00+00' + g * interval '7 seconds'
FROM generate_series(1, 200000) g;
CREATE TABLE services (name text PRIMARY KEY, team text NOT NULL);
INSERT INTO services VALUES ('billing','payments'),('orders','commerce'),('cart','commerce'),('tax','payments'),
    ('refunds','payments'),('auth','identity'),('session','identity'),('search','discovery');
CREATE INDEX error_events_occurred_idx ON error_events (occurred_at);
VACUUM ANALYZE error_events;
VACUUM ANALYZE services;
"""

_REPORT_QUERIES = [
    "SELECT count(*) FROM error_events WHERE occurred_at >= '2025-06-10' AND occurred_at < '2025-06-11'",
    "SELECT service, count(*) FROM error_events WHERE occurred_at >= '2025-06-05' AND occurred_at < '2025-06-06' "
    "GROUP BY service ORDER BY 2 DESC",
    "SELECT s.team, count(*) FROM error_events e JOIN services s ON s.name = e.service "
    "WHERE e.occurred_at >= '2025-06-12' AND e.occurred_at < '2025-06-13' GROUP BY s.team",
    "SELECT * FROM error_events WHERE id = 123456",
    "SELECT * FROM error_events WHERE id BETWEEN 1000 AND 1040 ORDER BY id",
    "SELECT service, max(occurred_at) FROM error_events WHERE occurred_at >= '2025-06-20' GROUP BY service",
    # the dashboard's slow one: no index on service, a sort of a quarter of the table by message
    "SELECT service, code, message FROM error_events WHERE service = 'refunds' AND code >= 410 ORDER BY message",
    "SELECT date_trunc('day', occurred_at) AS day, count(*) FROM error_events "
    "WHERE occurred_at < '2025-06-03' GROUP BY 1 ORDER BY 1",
    "SELECT e.id, e.code, s.team FROM error_events e JOIN services s ON s.name = e.service "
    "WHERE e.id > 199900 ORDER BY e.id",
    "SELECT code, count(*) FROM error_events WHERE occurred_at >= '2025-06-15' AND occurred_at < '2025-06-16' "
    "GROUP BY code ORDER BY count(*) DESC LIMIT 5",
    "SELECT count(DISTINCT service) FROM error_events WHERE occurred_at >= '2025-06-18' AND occurred_at < '2025-06-19'",
    "SELECT * FROM services ORDER BY team, name",
]


@case(
    "u50_explain_analyze_buffers_error_events",
    "psql -f (EXPLAIN (ANALYZE, BUFFERS))",
    clean=True,
    group=GROUP,
    decisive=["Sort Method: external merge  Disk:", "Rows Removed by Filter: 176924"],
)
def _explain(root: Path) -> bytes:
    report = "".join(
        f"\\echo == report {k + 1}\nEXPLAIN (ANALYZE, BUFFERS) {q};\n" for k, q in enumerate(_REPORT_QUERIES)
    )
    (root / "setup.sql").write_text(_EVENTS_SETUP)
    (root / "report_plans.sql").write_text("SET max_parallel_workers_per_gather = 0;\nSET work_mem = '1MB';\n" + report)
    with _cluster(root, "shared_buffers=64MB", "default_statistics_target=1000") as env:
        sh(f"{env} createdb ops && {env} psql -X -q -d ops -f setup.sql", root)
        sh(f"{env} psql -X -q -d ops -f report_plans.sql", root)  # warm the cache: the same buffers on every run
        out = sh(f"{env} psql -X -d ops -f report_plans.sql", root)
    # psql sizes the header to the widest plan line, whose timings were just scrubbed
    return substitute(_settle(out, root), (r"^ +QUERY PLAN +$", f"{'QUERY PLAN':^100}"), (r"^-{20,}$", "-" * 100))


# ---------------------------------------------------------------- the server's log: log_statement = all


_WORKER = """
\\set ON_ERROR_STOP off
BEGIN;
UPDATE retry_queue SET attempts = attempts + 1, state = 'running' WHERE id = {first};
SELECT pg_sleep({pause});
UPDATE retry_queue SET attempts = attempts + 1, state = 'running' WHERE id = {second};
COMMIT;
"""


@case(
    "u50_server_log_deadlock_retry_queue",
    "cat pg.log (log_statement=all)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR:  deadlock detected",
        "DETAIL:  Process 4242 waits for ShareLock on transaction 900; blocked by process 4242.",
    ],
)
def _server_log(root: Path) -> bytes:
    settings = (
        "log_statement=all",
        "log_min_messages=info",
        "log_lock_waits=on",
        "deadlock_timeout=1s",
        "log_checkpoints=off",
        "log_line_prefix='%m [%p] %q%u@%d '",
    )
    load = "".join(
        f"SELECT id, job FROM retry_queue WHERE state = 'queued' AND run_after <= 100 + {i} ORDER BY id LIMIT 5;\n"
        f"UPDATE retry_queue SET state = 'done' WHERE id = {i % 200 + 1};\n"
        f"INSERT INTO job_events (job_id, kind) VALUES ({i % 200 + 1}, 'completed');\n"
        for i in range(1, 181)
    )
    write(
        root,
        {
            "setup.sql": "CREATE TABLE retry_queue (id integer PRIMARY KEY, job text, state text, attempts integer, "
            "run_after integer);\n"
            "INSERT INTO retry_queue SELECT g, 'job-' || g, 'queued', 0, g FROM generate_series(1, 200) g;\n"
            "CREATE TABLE job_events (id serial PRIMARY KEY, job_id integer, kind text);\n",
            "before.sql": load,
            "after.sql": load.replace("'completed'", "'archived'"),
            "worker_a.sql": _WORKER.format(first=3, second=7, pause=0.6),
            "worker_b.sql": _WORKER.format(first=7, second=3, pause=0.6),
        },
    )
    with _cluster(root, *settings) as env:
        sh(
            f"{env} createdb jobs && {env} psql -X -q -d jobs -f setup.sql && {env} psql -X -q -d jobs -f before.sql",
            root,
        )
        sh(
            f"({env} psql -X -q -d jobs -f worker_a.sql &) ; sleep 0.3; {env} psql -X -q -d jobs -f worker_b.sql; "
            f"sleep 0.5; {env} psql -X -q -d jobs -f after.sql",
            root,
        )
        out = sh("cat pg.log", root)
    return substitute(
        _settle(out, root),
        (r"\[\d+\]", "[4242]"),
        (r"(?<=[Pp]rocess )\d+", "4242"),
        (r"(?<=holding the lock: )\d+", "4242"),
        (r"transaction \d+", "transaction 900"),
        (r"(?<=after )[0-9.]+ ms", "1000.123 ms"),
        (r"was shut down at .*", "was shut down at 2026-01-01 00:00:00 UTC"),
    )


# ---------------------------------------------------------------- maintenance: vacuumdb, reindexdb, pg_amcheck


@case(
    "u50_vacuumdb_reindexdb_failed_jobs_clean",
    "vacuumdb -v -z && reindexdb -v",
    clean=True,
    group=GROUP,
    decisive=[
        'INFO:  finished vacuuming "jobs.public.shipping_retry_log": index scans: 1',
        'INFO:  index "shipping_retry_log_status_idx" was reindexed',
    ],
)
def _vacuum_reindex(root: Path) -> bytes:
    churn = "".join(
        f"UPDATE {t} SET status = 'closed' WHERE id % 3 = 0;\nDELETE FROM {t} WHERE id % 5 = 0;\n" for t in _JOBS
    )
    (root / "jobs.sql").write_text(_schema(_JOBS, _JOBS_REFS) + churn)
    with _cluster(root) as env:
        sh(f"{env} createdb jobs && {env} psql -X -q -d jobs -f jobs.sql", root)
        out = sh(f"{env} vacuumdb -v -z -d jobs && {env} reindexdb -v -d jobs", root)
    return substitute(
        _settle(out, root),
        (
            r"CPU: user: [0-9.]+ s, system: [0-9.]+ s, elapsed: [0-9.]+ s",
            "CPU: user: 0.00 s, system: 0.00 s, elapsed: 0.00 s",
        ),
        (
            r"avg read rate: [0-9.]+ MB/s, avg write rate: [0-9.]+ MB/s",
            "avg read rate: 0.000 MB/s, avg write rate: 0.000 MB/s",
        ),
        (r"removable cutoff: \d+", "removable cutoff: 900"),
        (r"new relfrozenxid: \d+", "new relfrozenxid: 900"),
        (r"which was \d+ XIDs old", "which was 0 XIDs old"),
    )


@case(
    "u50_pg_amcheck_heapallindexed_missing_index_tuple",
    "pg_amcheck -v --heapallindexed",
    clean=False,
    group=GROUP,
    decisive=[
        'btree index "ledger.public.retry_queue_dedupe_idx":',
        'heap tuple (0,1) from table "retry_queue" lacks matching index tuple within index "retry_queue_dedupe_idx"',
    ],
)
def _amcheck(root: Path) -> bytes:
    # an expression index over a function declared IMMUTABLE that was later redefined: the index no longer matches
    fn = "CREATE OR REPLACE FUNCTION dedupe_key(t text) RETURNS text LANGUAGE sql IMMUTABLE AS $$ SELECT {body} $$;\n"
    tables = [t for t in _PLATFORM if not t.startswith("ledger")]
    write(
        root,
        {
            "ledger.sql": _schema(tables, {})
            + fn.format(body="lower(t)")
            + "CREATE TABLE retry_queue (id serial PRIMARY KEY, job text NOT NULL);\n"
            "INSERT INTO retry_queue (job) SELECT 'Job-' || g FROM generate_series(1, 300) g;\n"
            "CREATE INDEX retry_queue_dedupe_idx ON retry_queue (dedupe_key(job));\n",
            "hotfix.sql": fn.format(body="upper(t)"),
        },
    )
    with _cluster(root) as env:
        sh(
            f"{env} createdb ledger && {env} psql -X -q -d ledger -f ledger.sql && "
            f"{env} psql -X -q -d ledger -f hotfix.sql && {env} createdb orders && "
            f"{env} psql -X -q -d orders -f ledger.sql",
            root,
        )
        out = sh(f"{env} pg_amcheck -v --heapallindexed --install-missing --all", root)
    return _settle(out, root)


# ---------------------------------------------------------------- an idempotent schema script, run twice


_IDEMPOTENT = """
CREATE SCHEMA IF NOT EXISTS ops;
SET search_path TO ops;
CREATE TABLE IF NOT EXISTS error_events (
    id bigint PRIMARY KEY,
    service text NOT NULL,
    error_code text NOT NULL,
    message text NOT NULL
);
CREATE TABLE IF NOT EXISTS failed_jobs (
    id bigint PRIMARY KEY,
    queue text NOT NULL,
    exception text NOT NULL,
    failed_attempts integer NOT NULL DEFAULT 0
);
CREATE TABLE IF NOT EXISTS retry_queue (
    id bigint PRIMARY KEY,
    failed_job_id bigint NOT NULL REFERENCES failed_jobs (id),
    retry_after integer NOT NULL
);
CREATE INDEX IF NOT EXISTS error_events_service_idx ON error_events (service, error_code);
CREATE INDEX IF NOT EXISTS failed_jobs_queue_idx ON failed_jobs (queue);
CREATE INDEX IF NOT EXISTS retry_queue_after_idx ON retry_queue (retry_after);
CREATE OR REPLACE VIEW retry_backlog AS
    SELECT f.queue, count(*) AS waiting
    FROM retry_queue r JOIN failed_jobs f ON f.id = r.failed_job_id GROUP BY f.queue;
"""


@case(
    "u50_psql_idempotent_schema_twice_clean",
    "psql -f (twice, IF NOT EXISTS)",
    clean=True,
    group=GROUP,
    decisive=["(20 rows)", " total_retry_backlog "],
)
def _idempotent(root: Path) -> bytes:
    seed = []
    for i in range(1, 301):
        w = WORDS[i % 20]
        seed.append(
            "INSERT INTO error_events VALUES "
            f"({i}, '{w}', 'E{400 + i % 104}', '{w} call failed: connection reset') ON CONFLICT (id) DO NOTHING;"
        )
        seed.append(
            f"INSERT INTO failed_jobs VALUES ({i}, '{w}', 'RetryableError: {w} timed out', {i % 4}) "
            "ON CONFLICT (id) DO NOTHING;"
        )
        seed.append(f"INSERT INTO retry_queue VALUES ({i}, {i}, {i * 60}) ON CONFLICT (id) DO NOTHING;")
    report = (
        "SELECT queue, waiting FROM retry_backlog ORDER BY queue;\n"
        "SELECT sum(waiting) AS total_retry_backlog FROM retry_backlog;\n"
    )
    (root / "schema.sql").write_text(_IDEMPOTENT.lstrip("\n") + "\n".join(seed) + "\n")
    (root / "report.sql").write_text("SET search_path TO ops;\n" + report)
    with _cluster(root) as env:
        sh(f"{env} createdb ops", root)
        cmd = f"{env} psql -X -d ops -f schema.sql"
        out = sh(f"{cmd} && {cmd} && {env} psql -X -d ops -f report.sql", root)
    return _settle(out, root)
