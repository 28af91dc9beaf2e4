"""Held-out outputs (group ``unseen-68``): a sixty-eighth batch, MariaDB and SQLite as an agent uses them from a
shell. Each MariaDB scenario starts a private server in its own folder (``mariadb-install-db``, then ``mariadbd
--no-defaults --skip-networking`` on a socket there) and shuts it down at the end; the tables are named after the
business words (``failed_payments``, ``error_events``, ``retry_queue``), so clean runs are full of them.

Failing runs: ``mariadb -vvv --force`` of a 900-statement migration where the statement at line 312 names a column
that does not exist (``ERROR 1054``) and the rest of the script goes on, ``mariadb-check --all-databases --extended``
where one MyISAM table's data file was cut short among some 60 healthy tables, ``mariadb-dump --force`` where one view
references a dropped column and the dump goes on past it, the server's error log (``cat server.log``) over three
start-ups with InnoDB's start-up and shutdown notes, aborted connections and one deadlock with its victim, the
``sqlite3`` CLI's ``.read`` (``-echo``) of a long script with one UNIQUE constraint failure in the middle, and its
``.import --csv`` of a CSV with short rows and one NOT NULL failure. Clean runs: ``mariadb-dump`` of an ``ops`` database
(tables ``failed_payments``, ``error_events``, ``retry_queue``), ``mariadb-admin status processlist variables`` with
retry workers connected, an ``EXPLAIN`` report (``mariadb -t -v``) of the error and retry queries, and SQLite's
``.schema``, ``.dump`` and ``PRAGMA integrity_check`` of an error-tracking database. Labels were written with each
scenario, before the engine saw the output. Needs MariaDB and sqlite3 (Debian ``mariadb-server``, ``mariadb-client``,
``sqlite3``).
"""

from __future__ import annotations

import random
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-68"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, durations, ids and handles."""
    return substitute(
        scrub(out, root),
        (r"^\d{4}-\d\d-\d\d [ \d]\d:\d\d:\d\d", "2026-01-01  0:00:00"),
        (r"\(\d+\.\d+ sec\)", "(0.000 sec)"),
        (r"as process \d+", "as process 1000"),
        (r"server_uid \S+", "server_uid AAAAAAAAAAAAAAAAAAAAAAAAAAA="),
        (r"OS thread handle \d+", "OS thread handle 140000000000000"),
        (r"ACTIVE \d+ sec", "ACTIVE 1 sec"),
        (r"log sequence number \d+", "log sequence number 200000"),
        (r"LSN=\d+", "LSN=200000"),
        (r"innodb_buffer_pool_size_max=\d+m", "innodb_buffer_pool_size_max=8388608m"),
        (r"(load|dump) completed at \d+ +[\d:]+", r"\1 completed at 260101  0:00:00"),
        (r"Uptime: \d+ .*$", "Uptime: 5  Threads: 4  Questions: 100  Slow queries: 0  Opens: 40  Open tables: 30"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "2026-01-01 00:00:00"),
    )


# ---------------------------------------------------------------- a private MariaDB server


def _start(root: Path, *extra: str) -> str:
    data, sock = root / "db", root / "mysqld.sock"
    if not data.exists():
        sh(
            f"mariadb-install-db --no-defaults --datadir={data} --user=root --auth-root-authentication-method=normal "
            "--skip-test-db >/dev/null 2>&1",
            root,
        )
    opts = " ".join(extra)
    sh(
        f"/usr/sbin/mariadbd --no-defaults --datadir={data} --socket={sock} --skip-networking --user=root "
        f"--pid-file={root}/mysqld.pid --innodb-buffer-pool-size=32M --innodb-flush-log-at-trx-commit=0 {opts} "
        f">>{root}/server.log 2>&1 &",
        root,
    )
    sh(f"for i in $(seq 100); do [ -S {sock} ] && break; sleep 0.1; done; sleep 0.5", root)
    return f"--no-defaults -S {sock} -uroot"


def _stop(root: Path) -> None:
    """SIGTERM to the server this scenario started (its pid file), then wait until it has removed the file."""
    sh("kill -TERM $(cat mysqld.pid); for i in $(seq 150); do [ -e mysqld.pid ] || break; sleep 0.1; done", root)


_STATUSES = ["declined", "insufficient_funds", "expired_card", "do_not_honor", "processor_error", "timeout"]


def _ops_schema(rows: int, *, engine: str = "InnoDB") -> list[str]:
    """The ``ops`` database: failed payments, error events and the retry queue, ``rows`` rows each."""
    out = [
        "CREATE DATABASE IF NOT EXISTS ops;",
        "USE ops;",
        "CREATE TABLE failed_payments (id INT PRIMARY KEY, payment_ref VARCHAR(24) NOT NULL, customer_id INT NOT NULL,"
        f" amount_cents INT NOT NULL, failure_reason VARCHAR(40), created_at DATETIME NOT NULL) ENGINE={engine};",
        "CREATE TABLE error_events (id INT PRIMARY KEY, service VARCHAR(24) NOT NULL, error_code VARCHAR(16),"
        f" message VARCHAR(120), occurred_at DATETIME NOT NULL, KEY idx_error_service (service)) ENGINE={engine};",
        "CREATE TABLE retry_queue (id INT PRIMARY KEY, payment_id INT NOT NULL, attempts INT NOT NULL DEFAULT 0,"
        f" next_retry_at DATETIME, last_error VARCHAR(80), KEY idx_retry_next (next_retry_at)) ENGINE={engine};",
    ]
    for i in range(rows):
        day = f"2025-0{i % 9 + 1}-{i % 28 + 1:02d} {i % 24:02d}:{i % 60:02d}:00"
        out.append(
            f"INSERT INTO failed_payments VALUES ({i}, 'PAY-{i:06d}', {i % 700}, {(i * 37) % 90000 + 100},"
            f" '{_STATUSES[i % 6]}', '{day}');"
        )
        out.append(
            f"INSERT INTO error_events VALUES ({i}, '{WORDS[i % 20]}', 'E{400 + i % 120}',"
            f" 'failed to charge payment PAY-{i:06d}: {_STATUSES[i % 6]}', '{day}');"
        )
        out.append(
            f"INSERT INTO retry_queue VALUES ({i}, {i}, {i % 5}, '{day}', 'retry after {_STATUSES[i % 6]} error');"
        )
    return out


# ---------------------------------------------------------------- the migration with one bad column


def _migration() -> tuple[str, int]:
    lines = [
        "-- 2025_09_ops_retry_rework.sql: move failed payments into the retry queue",
        "CREATE DATABASE IF NOT EXISTS ops;",
        "USE ops;",
        "CREATE TABLE failed_payments (id INT PRIMARY KEY, payment_ref VARCHAR(24) NOT NULL, customer_id INT,"
        " amount_cents INT, failure_reason VARCHAR(40)) ENGINE=InnoDB;",
        "CREATE TABLE retry_queue (id INT AUTO_INCREMENT PRIMARY KEY, payment_id INT NOT NULL,"
        " attempts INT NOT NULL DEFAULT 0, last_error VARCHAR(80)) ENGINE=InnoDB;",
        "CREATE TABLE error_events (id INT AUTO_INCREMENT PRIMARY KEY, service VARCHAR(24), message VARCHAR(120));",
    ]
    i = 0
    while len(lines) < 900:
        lines.append(
            f"INSERT INTO failed_payments VALUES ({i}, 'PAY-{i:06d}', {i % 300}, {(i * 53) % 40000 + 100},"
            f" '{_STATUSES[i % 6]}');"
        )
        lines.append(
            f"INSERT INTO retry_queue (payment_id, attempts, last_error) VALUES ({i}, {i % 4},"
            f" 'retry after {_STATUSES[i % 6]}');"
        )
        if i % 25 == 24:
            lines.append(f"SELECT failure_reason, COUNT(*) AS failed FROM failed_payments WHERE id <= {i} GROUP BY 1;")
        i += 1
    lines.insert(311, "UPDATE retry_queue SET retry_count = attempts + 1 WHERE last_error LIKE 'retry after time%';")
    lines += [
        "INSERT INTO error_events (service, message) SELECT 'billing', CONCAT('failed payment ', payment_ref)"
        " FROM failed_payments WHERE failure_reason = 'processor_error';",
        "SELECT COUNT(*) AS queued_retries FROM retry_queue;",
        "SELECT COUNT(*) AS error_events FROM error_events;",
    ]
    return "\n".join(lines) + "\n", lines.index(next(x for x in lines if "retry_count" in x)) + 1


@case(
    "u68_mariadb_migration_unknown_column",
    "mariadb -vvv --force",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR 1054 (42S22) at line 312: Unknown column 'retry_count' in 'SET'",
        "UPDATE retry_queue SET retry_count = attempts + 1",
    ],
)
def _migration_unknown_column(root: Path) -> bytes:
    sql, bad = _migration()
    assert bad == 312, bad
    write(root, {"migrations/2025_09_ops_retry_rework.sql": sql})
    conn = _start(root)
    try:
        out = sh(f"mariadb {conn} -vvv --force < migrations/2025_09_ops_retry_rework.sql", root)
    finally:
        _stop(root)
    return _settle(out, root)


# ---------------------------------------------------------------- mariadb-dump


@case(
    "u68_mariadb_dump_ops_clean",
    "mariadb-dump",
    clean=True,
    group=GROUP,
    decisive=["-- Dump completed", "-- Dumping data for table `retry_queue`"],
)
def _dump_clean(root: Path) -> bytes:
    write(root, {"setup.sql": "\n".join(_ops_schema(1500)) + "\n"})
    conn = _start(root)
    try:
        sh(f"mariadb {conn} < setup.sql", root)
        out = sh(f"mariadb-dump {conn} --skip-dump-date --skip-extended-insert --databases ops", root)
    finally:
        _stop(root)
    return _settle(out, root)


@case(
    "u68_mariadb_dump_force_broken_view",
    "mariadb-dump --force",
    clean=False,
    group=GROUP,
    decisive=[
        "Couldn't execute 'SHOW FIELDS FROM `v_failed_payments_by_reason`'",
        "-- failed on view `v_failed_payments_by_reason`",
    ],
)
def _dump_broken_view(root: Path) -> bytes:
    stmts = _ops_schema(900)
    stmts += [
        "CREATE VIEW v_failed_payments_by_reason AS SELECT failure_reason, COUNT(*) AS n, SUM(amount_cents) AS cents"
        " FROM failed_payments GROUP BY failure_reason;",
        "CREATE VIEW v_retry_backlog AS SELECT payment_id, attempts, last_error FROM retry_queue WHERE attempts > 2;",
        "CREATE TABLE webhooks_outbox (id INT PRIMARY KEY, event VARCHAR(40), delivered TINYINT) ENGINE=InnoDB;",
        "INSERT INTO webhooks_outbox SELECT id, CONCAT('payment.failed.', id), id % 2 FROM failed_payments;",
        "ALTER TABLE failed_payments DROP COLUMN failure_reason;",
    ]
    write(root, {"setup.sql": "\n".join(stmts) + "\n"})
    conn = _start(root)
    try:
        sh(f"mariadb {conn} < setup.sql", root)
        out = sh(f"mariadb-dump {conn} --force --skip-dump-date --skip-extended-insert --databases ops", root)
    finally:
        _stop(root)
    return _settle(out, root)


# ---------------------------------------------------------------- mariadb-check


def _check_tables() -> list[str]:
    stmts = ["CREATE DATABASE billing;", "CREATE DATABASE ops;", "CREATE DATABASE payments;"]
    for db in ("billing", "ops", "payments"):
        stmts.append(f"USE {db};")
        for area in WORDS:
            for kind in ("failed_jobs", "error_events", "retry_queue"):
                t = f"{area}_{kind}"
                stmts.append(f"CREATE TABLE {t} (id INT PRIMARY KEY, message VARCHAR(80), attempts INT) ENGINE=MyISAM;")
                values = ", ".join(f"({k}, 'failed to deliver {area} {k}: error 502', {k % 4})" for k in range(40))
                stmts.append(f"INSERT INTO {t} VALUES {values};")
    return stmts


@case(
    "u68_mariadb_check_corrupt_myisam",
    "mariadb-check --all-databases",
    clean=False,
    group=GROUP,
    decisive=["ops.refunds_retry_queue", "Size of datafile is:", "error    : Corrupt"],
)
def _check_corrupt(root: Path) -> bytes:
    write(root, {"setup.sql": "\n".join(_check_tables()) + "\n"})
    conn = _start(root)
    try:
        sh(f"mariadb {conn} < setup.sql && mariadb-admin {conn} flush-tables", root)
        data = root / "db" / "ops" / "refunds_retry_queue.MYD"
        data.write_bytes(data.read_bytes()[:900])
        out = sh(f"mariadb-check {conn} --all-databases --check --extended --verbose", root)
    finally:
        _stop(root)
    return _settle(out, root)


# ---------------------------------------------------------------- the server's error log


@case(
    "u68_mariadb_error_log_deadlock",
    "cat server.log",
    clean=False,
    group=GROUP,
    decisive=[
        "InnoDB: Transactions deadlock detected, dumping detailed information.",
        "*** WE ROLL BACK TRANSACTION (1)",
        "[ERROR] InnoDB: Transaction was aborted due to Deadlock",
    ],
)
def _error_log(root: Path) -> bytes:
    write(root, {"setup.sql": "\n".join(_ops_schema(200)) + "\n"})
    opts = ("--innodb-print-all-deadlocks=ON", "--log-warnings=4", "--innodb-buffer-pool-load-at-startup=OFF")
    conn = _start(root, *opts)
    sh(f"mariadb {conn} < setup.sql", root)
    _stop(root)
    conn = _start(root, *opts)
    first = (
        "BEGIN; UPDATE retry_queue SET attempts = attempts + 1 WHERE id = 17; SELECT SLEEP(1);"
        " UPDATE retry_queue SET attempts = attempts + 1 WHERE id = 42; COMMIT;"
    )
    second = (
        "BEGIN; UPDATE retry_queue SET last_error = 'processor_error' WHERE id = 42; SELECT SLEEP(1);"
        " UPDATE retry_queue SET last_error = 'processor_error' WHERE id = 17; COMMIT;"
    )
    sh(
        f'(mariadb {conn} ops -e "{first}" >/dev/null 2>&1 &); sleep 0.4;'
        f' mariadb {conn} ops -e "{second}" >/dev/null 2>&1; sleep 1',
        root,
    )
    sh(f"mariadb {conn} ops -e 'OPTIMIZE TABLE error_events; ANALYZE TABLE failed_payments' >/dev/null", root)
    _stop(root)
    conn = _start(root, *opts)
    sh(f"mariadb {conn} ops -e 'SELECT COUNT(*) FROM retry_queue' >/dev/null", root)
    _stop(root)
    return _settle(sh("cat server.log", root), root)


# ---------------------------------------------------------------- mariadb-admin


@case(
    "u68_mariadb_admin_status_clean",
    "mariadb-admin processlist status variables",
    clean=True,
    group=GROUP,
    decisive=["Uptime: 5  Threads: 4"],
)
def _admin(root: Path) -> bytes:
    write(root, {"setup.sql": "\n".join(_ops_schema(100)) + "\n"})
    conn = _start(root, "--log-warnings=4")
    try:
        sh(f"mariadb {conn} < setup.sql", root)
        worker = f"mariadb {conn} ops -e 'SELECT SLEEP(4) /* retry_worker: failed_payments */' >/dev/null 2>&1"
        sh(f"({worker} &); ({worker} &); ({worker} &); sleep 1.5", root)
        out = sh(f"mariadb-admin {conn} -v processlist status variables", root)
        sh("sleep 3", root)
    finally:
        _stop(root)
    return substitute(
        _settle(out, root),
        (r"^(\| +\d+ +\| root +\| localhost +\| ops +\| Query +\| )\d( )", r"\g<1>1\2"),
        (r"^(\| +)\d+( +\| root +\| localhost +\| ops +\| Query)", r"\g<1>9\2"),
    )


# ---------------------------------------------------------------- EXPLAIN


@case(
    "u68_mariadb_explain_report_clean",
    "mariadb -t -v",
    clean=True,
    group=GROUP,
    decisive=["| retry_backlog_total |"],
)
def _explain(root: Path) -> bytes:
    queries = []
    for k, area in enumerate(WORDS):
        queries += [
            f"EXPLAIN SELECT id, message FROM error_events WHERE service = '{area}'"
            " ORDER BY occurred_at DESC LIMIT 20;",
            f"EXPLAIN SELECT r.payment_id, r.attempts, p.failure_reason FROM retry_queue r JOIN failed_payments p"
            f" ON p.id = r.payment_id WHERE r.next_retry_at < '2025-0{k % 9 + 1}-15' AND r.attempts < 5;",
        ]
    queries += [
        "EXPLAIN FORMAT=JSON SELECT failure_reason, COUNT(*) FROM failed_payments GROUP BY failure_reason;",
        "SELECT failure_reason, COUNT(*) AS failed, SUM(amount_cents) AS cents FROM failed_payments GROUP BY 1;",
        "SELECT COUNT(*) AS retry_backlog_total FROM retry_queue WHERE attempts >= 3;",
    ]
    write(root, {"setup.sql": "\n".join(_ops_schema(1500)) + "\n", "explain_report.sql": "\n".join(queries) + "\n"})
    conn = _start(root)
    try:
        sh(f"mariadb {conn} < setup.sql && mariadb {conn} ops -e 'ANALYZE TABLE failed_payments, error_events'", root)
        out = sh(f"mariadb {conn} -t -v ops < explain_report.sql", root)
    finally:
        _stop(root)
    return _settle(out, root)


# ---------------------------------------------------------------- sqlite3


def _sqlite_script(rows: int) -> list[str]:
    """The error-tracking schema and its rows, one statement a line."""
    out = [
        "PRAGMA foreign_keys = ON;",
        "CREATE TABLE failed_payments (id INTEGER PRIMARY KEY, payment_ref TEXT NOT NULL UNIQUE,"
        " amount_cents INTEGER NOT NULL CHECK (amount_cents > 0), failure_reason TEXT NOT NULL);",
        "CREATE TABLE error_events (id INTEGER PRIMARY KEY, service TEXT NOT NULL, error_code TEXT,"
        " message TEXT, occurred_at TEXT NOT NULL);",
        "CREATE TABLE retry_queue (id INTEGER PRIMARY KEY, payment_id INTEGER NOT NULL REFERENCES failed_payments(id),"
        " attempts INTEGER NOT NULL DEFAULT 0, last_error TEXT);",
        "CREATE INDEX idx_error_events_service ON error_events (service, occurred_at);",
        "CREATE VIEW v_errors_by_service AS SELECT service, COUNT(*) AS errors FROM error_events GROUP BY service;",
        "CREATE TRIGGER trg_failed_payment_retry AFTER INSERT ON failed_payments BEGIN"
        " INSERT INTO retry_queue (payment_id, last_error) VALUES (NEW.id, NEW.failure_reason); END;",
    ]
    for i in range(rows):
        out.append(
            f"INSERT INTO failed_payments (id, payment_ref, amount_cents, failure_reason) VALUES"
            f" ({i}, 'PAY-{i:06d}', {(i * 41) % 50000 + 99}, '{_STATUSES[i % 6]}');"
        )
        out.append(
            f"INSERT INTO error_events (service, error_code, message, occurred_at) VALUES ('{WORDS[i % 20]}',"
            f" 'E{400 + i % 90}', 'failed to charge PAY-{i:06d}: {_STATUSES[i % 6]}',"
            f" '2025-0{i % 9 + 1}-{i % 28 + 1:02d}T{i % 24:02d}:00:00Z');"
        )
    return out


@case(
    "u68_sqlite_read_unique_failure",
    "sqlite3 -echo .read",
    clean=False,
    group=GROUP,
    decisive=["Runtime error near line 2214: UNIQUE constraint failed: failed_payments.payment_ref (19)"],
)
def _sqlite_read(root: Path) -> bytes:
    lines = ["BEGIN;", *_sqlite_script(1800), "COMMIT;"]
    lines.insert(
        2213,
        "INSERT INTO failed_payments (id, payment_ref, amount_cents, failure_reason) VALUES"
        " (90001, 'PAY-000733', 1500, 'declined');",
    )
    lines += [
        "SELECT failure_reason, COUNT(*) FROM failed_payments GROUP BY failure_reason;",
        "SELECT COUNT(*) AS queued FROM retry_queue;",
    ]
    write(root, {"migrations/0007_errors_schema.sql": "\n".join(lines) + "\n"})
    return _settle(sh("sqlite3 -echo errors.db '.read migrations/0007_errors_schema.sql'", root), root)


@case(
    "u68_sqlite_import_csv_bad_rows",
    "sqlite3 .import --csv",
    clean=False,
    group=GROUP,
    decisive=["error_events.csv:1843: INSERT failed: NOT NULL constraint failed: error_events.occurred_at"],
)
def _sqlite_import(root: Path) -> bytes:
    rng = random.Random(68)
    rows = ["id,service,error_code,occurred_at,message"]
    for i in range(1, 3001):
        row = [str(i), WORDS[i % 20], f"E{400 + i % 90}", f"2025-03-{i % 28 + 1:02d}", f"failed to deliver webhook {i}"]
        if i == 1842:
            row = row[:3]
        elif rng.random() < 0.03:
            row = row[:4]
        elif rng.random() < 0.01:
            row.append("retry")
        rows.append(",".join(row))
    write(
        root,
        {
            "data/error_events.csv": "\n".join(rows) + "\n",
            "load.sql": """
                CREATE TABLE error_events (id INTEGER PRIMARY KEY, service TEXT NOT NULL, error_code TEXT,
                  occurred_at TEXT NOT NULL, message TEXT);
                .import --csv --skip 1 data/error_events.csv error_events
                .mode box
                SELECT service, COUNT(*) AS events, MIN(occurred_at) AS first_seen FROM error_events GROUP BY service;
                SELECT * FROM error_events WHERE message IS NULL OR id % 40 = 0 ORDER BY id;
            """,
        },
    )
    return _settle(sh("sqlite3 ops.db < load.sql", root), root)


@case(
    "u68_sqlite_schema_dump_integrity_clean",
    "sqlite3 .schema .dump",
    clean=True,
    group=GROUP,
    decisive=["integrity_check: ok"],
)
def _sqlite_dump(root: Path) -> bytes:
    write(root, {"setup.sql": "\n".join(["BEGIN;", *_sqlite_script(1200), "COMMIT;"]) + "\n"})
    sh("sqlite3 errors.db < setup.sql", root)
    check = "SELECT 'integrity_check: ' || integrity_check FROM pragma_integrity_check;"
    return _settle(sh(f"sqlite3 errors.db .schema \"{check}\" 'PRAGMA foreign_key_check;' .dump", root), root)


@case(
    "u68_sqlite_retry_report_clean",
    "sqlite3 -header -column",
    clean=True,
    group=GROUP,
    decisive=["retry_backlog_total"],
)
def _sqlite_report(root: Path) -> bytes:
    write(root, {"setup.sql": "\n".join(["BEGIN;", *_sqlite_script(1500), "COMMIT;"]) + "\n"})
    sh("sqlite3 errors.db < setup.sql", root)
    report = [".tables", ".indexes", "SELECT * FROM v_errors_by_service;"]
    report += [
        "EXPLAIN QUERY PLAN SELECT * FROM error_events WHERE service = 'retry' ORDER BY occurred_at;",
        "SELECT r.id, r.payment_id, p.payment_ref, r.attempts, r.last_error FROM retry_queue r"
        " JOIN failed_payments p ON p.id = r.payment_id WHERE r.id % 3 = 0 ORDER BY r.id;",
        "SELECT failure_reason, COUNT(*) AS failed, SUM(amount_cents) AS cents FROM failed_payments GROUP BY 1;",
        "SELECT COUNT(*) AS retry_backlog_total FROM retry_queue WHERE attempts = 0;",
        "SELECT service, error_code, COUNT(*) AS n FROM error_events GROUP BY 1, 2 ORDER BY 1, 2;",
    ]
    write(root, {"report.sql": "\n".join(report) + "\n"})
    return _settle(sh("sqlite3 -header -column errors.db < report.sql", root), root)
