"""Held-out outputs (group ``unseen-84``): an eighty-fourth batch, data-wrangling command-line tools as an agent runs
them on generated CSV, JSON Lines and Parquet files of a payments platform (tables and columns named
``failed_payments``, ``error_code``, ``retry_count``, ``exceptions``), all offline.

Failing runs: the DuckDB CLI fed a SQL script whose ``read_csv`` of 50,000 failed payments meets ``"three"`` in the
``retry_count`` column of one row (the script goes on, so a catalog error and more result tables follow), a Python
report on duckdb's API that prints a dozen result tables and then groups by a misspelt ``error_kode`` (a binder
error), ``csvclean --length-mismatch`` finding one row with an extra field among 16,000, ``csvsql --insert`` of four
files where one has a malformed row, ``mlr`` summarising 14 daily exports where one has a ragged row, ``jq`` over
60,000 JSON Lines with one line cut short, piped into ``sort | uniq -c`` (the pipeline exits 0), a chain of
``sqlite-utils insert`` steps where one hits a UNIQUE constraint, and a pandas loader whose ``read_csv`` raises a
``ParserError`` after several summaries. Clean runs named after errors and failures: a DuckDB CLI script building an
``error_summary`` report and a Parquet export, ``csvstat`` of ``retry_errors.csv`` and ``failed_payments_q1.csv``, a
pandas ETL of ``failed_payments`` (some retry counts ``unknown``), and ``sqlite-utils`` loading ``exceptions`` and
querying it. Labels were written with each scenario, before the engine saw the output. Needs Miller and jq (Debian
``miller``, ``jq``) and duckdb 2.0.0, duckdb-cli 1.5.6, csvkit 2.2.0, pandas 3.1.1, pyarrow 26.0.1 and sqlite-utils
4.2.1 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u84-wrangle``).
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-84"

_REQS = "duckdb==2.0.0 duckdb-cli==1.5.6 csvkit==2.2.0 pandas==3.1.1 pyarrow==26.0.1 sqlite-utils==4.2.1"


def _bin() -> Path:
    """The folder of the scenario tools' executables (the virtual environment made once)."""
    return make_venv(VENVS / "u84-wrangle", _REQS) / "bin"


def _env() -> str:
    """The shell prefix that puts the scenario tools first on the PATH for the commands after it."""
    return f"export PATH={_bin()}:$PATH PYTHONHASHSEED=0 TZ=UTC;"


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"0x[0-9a-f]{8,16}", "0x0000000000000000"),
    )


_CODES = [
    "card_declined", "insufficient_funds", "gateway_timeout", "retry_exhausted", "fraud_suspected", "expired_card",
    "processing_error", "do_not_honor", "authentication_required", "duplicate_charge",
]  # fmt: skip
_EXCEPTIONS = [
    "GatewayTimeoutError", "CardDeclinedException", "RetryLimitExceeded", "IdempotencyConflictError",
    "ConnectionResetError", "InvalidCurrencyError", "LedgerWriteFailed",
]  # fmt: skip
_GATEWAYS = ["stripe", "adyen", "braintree", "worldpay", "checkout"]
_SERVICES = ["billing", "orders", "refunds", "invoice", "ledger", "webhooks", "retry-worker", "errors-api"]
_HEADER = "payment_id,invoice_id,customer_id,amount_cents,currency,error_code,exception,retry_count,gateway,failed_at"


def _payment_rows(n: int, seed: int, *, bad: dict[int, str] | None = None) -> list[str]:
    """``n`` CSV lines of failed payments; ``bad`` maps a 1-based row number to the line written instead."""
    r = random.Random(seed)
    rows = []
    for i in range(1, n + 1):
        line = (
            f"{100000 + i},INV-{r.randint(10000, 99999)},{r.randint(1, 4000)},{r.randint(100, 250000)},"
            f"{r.choice(['USD', 'EUR', 'GBP'])},{r.choice(_CODES)},{r.choice(_EXCEPTIONS)},{r.randint(0, 6)},"
            f"{r.choice(_GATEWAYS)},2024-{1 + i % 12:02d}-{1 + i % 28:02d} {i % 24:02d}:{i % 60:02d}:{(i * 7) % 60:02d}"
        )
        rows.append((bad or {}).get(i, line))
    return rows


def _payments_csv(root: Path, rel: str, n: int, seed: int, *, bad: dict[int, str] | None = None) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(_HEADER + "\n" + "\n".join(_payment_rows(n, seed, bad=bad)) + "\n")


def _bad_payment(i: int, field: int, value: str, seed: int) -> str:
    """Row ``i`` of the seed's rows with field ``field`` replaced by ``value`` (may add a field)."""
    parts = _payment_rows(i, seed)[-1].split(",")
    parts[field] = value
    return ",".join(parts)


def _small_tables(root: Path) -> None:
    r = random.Random(84)
    inv = ["invoice_id,customer_id,status,total_cents,issued_at"]
    for i in range(1, 3001):
        status = r.choice(["paid", "open", "void", "uncollectible"])
        inv.append(f"INV-{10000 + i},{r.randint(1, 4000)},{status},{r.randint(500, 400000)},2024-{1 + i % 12:02d}-03")
    ref = ["refund_id,payment_id,reason,amount_cents,refunded_at"]
    for i in range(1, 2001):
        reason = r.choice(["duplicate", "fraudulent", "requested_by_customer", "failed_delivery"])
        ref.append(f"R{i:05d},{100000 + r.randint(1, 50000)},{reason},{r.randint(100, 90000)},2024-{1 + i % 12:02d}-09")
    write(root, {"data/invoices.csv": "\n".join(inv) + "\n", "data/refunds.csv": "\n".join(ref) + "\n"})


# ---------------------------------------------------------------- DuckDB CLI

_FP_COLUMNS = (
    "{'payment_id': 'BIGINT', 'invoice_id': 'VARCHAR', 'customer_id': 'INTEGER', 'amount_cents': 'BIGINT', "
    "'currency': 'VARCHAR', 'error_code': 'VARCHAR', 'exception': 'VARCHAR', 'retry_count': 'INTEGER', "
    "'gateway': 'VARCHAR', 'failed_at': 'TIMESTAMP'}"
)


@case(
    "u84_duckdb_cli_conversion_error",
    "duckdb",
    clean=False,
    group=GROUP,
    decisive=[
        "Conversion Error: CSV Error on Line: 31338",
        "Could not convert string \"three\" to 'INTEGER'",
        "Catalog Error: Table with name failed_payments does not exist!",
    ],
)
def _duckdb_cli_fail(root: Path) -> bytes:
    _small_tables(root)
    _payments_csv(root, "data/failed_payments.csv", 50000, 11, bad={31337: _bad_payment(31337, 7, "three", 11)})
    write(
        root,
        {
            "sql/load_failed_payments.sql": f"""
                .mode box
                .maxrows 2000
                CREATE OR REPLACE TABLE invoices AS SELECT * FROM read_csv('data/invoices.csv', header = true);
                CREATE OR REPLACE TABLE refunds AS SELECT * FROM read_csv('data/refunds.csv', header = true);
                SELECT status, count(*) AS invoices, sum(total_cents) AS total_cents FROM invoices GROUP BY ALL
                  ORDER BY status;
                SELECT * FROM invoices WHERE status IN ('open', 'uncollectible') ORDER BY invoice_id LIMIT 600;
                CREATE OR REPLACE TABLE failed_payments AS
                  SELECT * FROM read_csv('data/failed_payments.csv', header = true, columns = {_FP_COLUMNS});
                SELECT error_code, retry_count, count(*) AS failures FROM failed_payments GROUP BY ALL ORDER BY ALL;
                SELECT reason, count(*) AS refunds, sum(amount_cents) AS refunded_cents FROM refunds GROUP BY ALL
                  ORDER BY reason;
                SELECT * FROM refunds ORDER BY refund_id LIMIT 500;
            """
        },
    )
    return _settle(sh(f"{_env()} stdbuf -oL duckdb warehouse.duckdb < sql/load_failed_payments.sql", root), root)


@case(
    "u84_duckdb_cli_clean_report",
    "duckdb",
    clean=True,
    group=GROUP,
    decisive=["exported_rows", "│ 50000         │ 100001   │ 150000  │"],
)
def _duckdb_cli_clean(root: Path) -> bytes:
    _small_tables(root)
    _payments_csv(root, "data/failed_payments.csv", 50000, 12)
    write(
        root,
        {
            "sql/error_summary.sql": f"""
                .mode box
                .maxrows 3000
                CREATE OR REPLACE TABLE failed_payments AS
                  SELECT * FROM read_csv('data/failed_payments.csv', header = true, columns = {_FP_COLUMNS});
                CREATE OR REPLACE TABLE error_summary AS
                  SELECT error_code, exception, gateway, count(*) AS failures, avg(retry_count) AS avg_retries,
                         max(retry_count) AS max_retries, sum(amount_cents) AS failed_cents
                  FROM failed_payments GROUP BY ALL;
                SELECT * FROM error_summary ORDER BY error_code, exception, gateway;
                SELECT error_code, count(*) FILTER (WHERE retry_count >= 5) AS retry_exhausted_candidates,
                       count(*) AS failures FROM failed_payments GROUP BY ALL ORDER BY failures DESC;
                COPY (SELECT * FROM failed_payments ORDER BY payment_id) TO 'out/failed_payments.parquet'
                  (FORMAT parquet);
                SELECT count(*) AS exported_rows, min(payment_id) AS first_id, max(payment_id) AS last_id
                  FROM 'out/failed_payments.parquet';
            """
        },
    )
    (root / "out").mkdir()
    return _settle(sh(f"{_env()} stdbuf -oL duckdb warehouse.duckdb < sql/error_summary.sql", root), root)


# ---------------------------------------------------------------- duckdb's Python API

_REPORT = '''
"""Weekly exceptions report: reads the exported Parquet and prints the tables the on-call review uses."""
import duckdb

con = duckdb.connect("reports.duckdb")
con.sql("CREATE OR REPLACE TABLE exceptions AS SELECT * FROM read_parquet('data/exceptions.parquet')")


def section(title, query):
    print(f"== {title}")
    con.sql(query).show(max_rows=400, max_width=160)


section("exceptions by service", "SELECT service, count(*) AS n FROM exceptions GROUP BY ALL ORDER BY n DESC")
for service in ["billing", "orders", "refunds", "invoice", "ledger", "webhooks", "retry-worker", "errors-api"]:
    section(
        f"latest exceptions for {service}",
        f"SELECT event_id, exception, error_code, retry_count, message FROM exceptions "
        f"WHERE service = '{service}' ORDER BY event_id DESC LIMIT 60",
    )
section("retries per error code", "SELECT error_code, sum(retry_count) AS retries FROM exceptions GROUP BY ALL")
section(
    "error codes by week",
    "SELECT date_trunc('week', seen_at) AS week, error_code, count(*) AS n FROM exceptions "
    "GROUP BY error_kode, week ORDER BY week",
)
section("top messages", "SELECT message, count(*) AS n FROM exceptions GROUP BY ALL ORDER BY n DESC LIMIT 50")
'''


def _exceptions_jsonl(path: Path, n: int, seed: int, *, cut: int = 0) -> None:
    r = random.Random(seed)
    lines = []
    for i in range(1, n + 1):
        row = {
            "event_id": i,
            "service": r.choice(_SERVICES),
            "level": r.choice(["error", "error", "warning", "critical"]),
            "exception": r.choice(_EXCEPTIONS),
            "error_code": r.choice(_CODES),
            "retry_count": r.randint(0, 6),
            "message": f"payment {100000 + r.randint(1, 50000)} failed after {r.randint(1, 6)} attempts",
            "seen_at": f"2024-{1 + i % 12:02d}-{1 + i % 28:02d}T{i % 24:02d}:{i % 60:02d}:00",
        }
        text = json.dumps(row)
        lines.append(text[: len(text) // 2] if i == cut else text)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


@case(
    "u84_duckdb_python_binder_error",
    "duckdb python",
    clean=False,
    group=GROUP,
    decisive=[
        'Binder Error: Referenced column "error_kode" not found in FROM clause!',
        'File "/tmp/work/reports/exceptions_report.py", line 21, in <module>',
    ],
)
def _duckdb_py_fail(root: Path) -> bytes:
    _exceptions_jsonl(root / "data/exceptions.jsonl", 20000, 21)
    write(root, {"reports/exceptions_report.py": _REPORT})
    py = _bin() / "python"
    prep = (
        f"{py} -c \"import duckdb; duckdb.sql(\\\"COPY (SELECT * FROM read_json_auto('data/exceptions.jsonl')) "
        f"TO 'data/exceptions.parquet' (FORMAT parquet)\\\")\""
    )
    sh(prep, root)
    return _settle(sh(f"{_env()} python reports/exceptions_report.py", root), root)


# ---------------------------------------------------------------- csvkit


@case(
    "u84_csvclean_length_mismatch",
    "csvclean",
    clean=False,
    group=GROUP,
    decisive=['11441,"Expected 10 columns, found 11 columns"'],
)
def _csvclean(root: Path) -> bytes:
    bad = _bad_payment(11441, 6, "RetryLimitExceeded,retry budget spent", 31)
    _payments_csv(root, "exports/failed_payments_2024.csv", 16000, 31, bad={11441: bad})
    return _settle(sh(f"{_env()} csvclean --length-mismatch exports/failed_payments_2024.csv", root), root)


@case(
    "u84_csvsql_insert_malformed_row",
    "csvsql",
    clean=False,
    group=GROUP,
    decisive=["ValueError: Row 8821 has 11 values, but Table only has 10 columns.", "== failed_payments"],
)
def _csvsql(root: Path) -> bytes:
    _small_tables(root)
    bad = _bad_payment(8822, 4, "USD,EUR", 41)
    _payments_csv(root, "data/failed_payments.csv", 12000, 41, bad={8822: bad})
    _payments_csv(root, "data/retry_queue.csv", 3000, 42)
    loop = (
        'for t in invoices refunds failed_payments retry_queue; do echo "== $t"; '
        "csvsql -v --db sqlite:///ledger.db --insert --tables $t data/$t.csv && "
        'sql2csv --db sqlite:///ledger.db --query "select * from $t limit 150"; done'
    )
    return _settle(sh(f"{_env()} {loop}", root), root)


@case(
    "u84_csvstat_clean_retry_errors",
    "csvstat",
    clean=True,
    group=GROUP,
    decisive=["Row count: 6000"],
)
def _csvstat(root: Path) -> bytes:
    _payments_csv(root, "retry_errors.csv", 8000, 51)
    _payments_csv(root, "failed_payments_q1.csv", 6000, 52)
    return _settle(sh(f"{_env()} for f in retry_errors.csv failed_payments_q1.csv; do csvstat $f; done", root), root)


# ---------------------------------------------------------------- Miller


@case(
    "u84_mlr_ragged_daily_export",
    "mlr",
    clean=False,
    group=GROUP,
    decisive=["mlr: CSV header/data length mismatch 10 != 11 at filename exports/failed_payments_2024-03-08.csv row"],
)
def _mlr(root: Path) -> bytes:
    days = [f"2024-03-{d:02d}" for d in range(1, 15)]
    for k, day in enumerate(days):
        bad = {1877: _bad_payment(1877, 9, f"{day} 10:00:00,late", 60 + k)} if day == "2024-03-08" else None
        _payments_csv(root, f"exports/failed_payments_{day}.csv", 4000, 60 + k, bad=bad)
    loop = (
        'for f in exports/failed_payments_*.csv; do echo "# $f"; '
        "mlr --icsv --opprint stats1 -a count,mean,max -f retry_count,amount_cents -g error_code,gateway $f; done"
    )
    return _settle(sh(loop, root), root)


# ---------------------------------------------------------------- jq


@case(
    "u84_jq_truncated_line_pipeline",
    "jq",
    clean=False,
    group=GROUP,
    decisive=[
        "parse error: Invalid string: control characters from U+0000 through U+001F must be escaped at line 41719"
    ],
)
def _jq(root: Path) -> bytes:
    _exceptions_jsonl(root / "logs/exceptions.jsonl", 60000, 71, cut=41718)
    cmd = "jq -r '[.service, .error_code, .exception] | @tsv' logs/exceptions.jsonl | sort | uniq -c | sort -rn"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- sqlite-utils


def _payments_jsonl(path: Path, n: int, seed: int, *, dup: int = 0) -> None:
    r = random.Random(seed)
    lines = []
    for i in range(1, n + 1):
        pid = 200000 + (dup if i == n // 2 + 17 and dup else i)
        row = {
            "payment_id": pid,
            "error_code": r.choice(_CODES),
            "exception": r.choice(_EXCEPTIONS),
            "retry_count": r.randint(0, 6),
            "gateway": r.choice(_GATEWAYS),
        }
        lines.append(json.dumps(row))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(lines) + "\n")


@case(
    "u84_sqlite_utils_unique_constraint",
    "sqlite-utils",
    clean=False,
    group=GROUP,
    decisive=["Error: UNIQUE constraint failed: failed_payments.payment_id"],
)
def _sqlite_utils_fail(root: Path) -> bytes:
    _small_tables(root)
    _payments_jsonl(root / "data/failed_payments.jsonl", 9000, 81, dup=4123)
    steps = [
        "sqlite-utils insert billing.db invoices data/invoices.csv --csv --pk invoice_id",
        "sqlite-utils insert billing.db refunds data/refunds.csv --csv --pk refund_id",
        "sqlite-utils rows billing.db refunds --limit 250 --fmt simple",
        "sqlite-utils insert billing.db failed_payments data/failed_payments.jsonl --nl --pk payment_id",
        "sqlite-utils tables billing.db --counts --table",
        "sqlite-utils query billing.db 'select status, count(*) as n from invoices group by status' --table",
        "sqlite-utils rows billing.db invoices --limit 300 --fmt simple",
    ]
    return _settle(sh(f"{_env()} {'; '.join(steps)}", root), root)


@case(
    "u84_sqlite_utils_clean_exceptions",
    "sqlite-utils",
    clean=True,
    group=GROUP,
    decisive=["exceptions         20000"],
)
def _sqlite_utils_clean(root: Path) -> bytes:
    _exceptions_jsonl(root / "data/exceptions.jsonl", 20000, 91)
    _payments_jsonl(root / "data/failed_payments.jsonl", 6000, 92)
    steps = [
        "sqlite-utils insert errors.db exceptions data/exceptions.jsonl --nl --pk event_id",
        "sqlite-utils insert errors.db failed_payments data/failed_payments.jsonl --nl --pk payment_id",
        "sqlite-utils create-index errors.db exceptions error_code",
        "sqlite-utils query errors.db 'select service, error_code, exception, count(*) as n, "
        "sum(retry_count) as retries from exceptions group by 1, 2, 3 order by 1, 2, 3' --table",
        "sqlite-utils tables errors.db --counts --table",
    ]
    return _settle(sh(f"{_env()} {'; '.join(steps)}", root), root)


# ---------------------------------------------------------------- pandas

_LOADER = '''
"""Loads the retry exports into one frame and prints the summaries the billing review asks for."""
import pandas as pd

pd.set_option("display.width", 150)
pd.set_option("display.max_rows", 200)
pd.set_option("display.max_columns", 12)

frames = []
for name in ["retry_queue_jan", "retry_queue_feb", "retry_queue_mar", "retry_queue_apr"]:
    df = pd.read_csv(f"data/{name}.csv", parse_dates=["failed_at"])
    print(f"=== {name}: {len(df)} rows")
    print(df.groupby(["error_code", "gateway"])[["retry_count", "amount_cents"]].agg(["count", "mean", "max"]))
    print(df.head(40))
    frames.append(df)

late = pd.read_csv("data/retry_queue_may.csv", parse_dates=["failed_at"])
frames.append(late)
print(pd.concat(frames).describe())
'''


@case(
    "u84_pandas_read_csv_parsererror",
    "pandas",
    clean=False,
    group=GROUP,
    decisive=[
        "pandas.errors.ParserError: Error tokenizing data. C error: Expected 10 fields in line 5291, saw 11",
        'File "/tmp/work/load_retries.py", line 16, in <module>',
    ],
)
def _pandas_fail(root: Path) -> bytes:
    for k, month in enumerate(["jan", "feb", "mar", "apr", "may"]):
        bad = {5290: _bad_payment(5290, 6, "RetryLimitExceeded,max 6", 100 + k)} if month == "may" else None
        _payments_csv(root, f"data/retry_queue_{month}.csv", 8000, 100 + k, bad=bad)
    write(root, {"load_retries.py": _LOADER})
    return _settle(sh(f"{_env()} python load_retries.py", root), root)


_ETL = '''
"""ETL of the failed_payments exports: merges them, flags exhausted retries, writes Parquet."""
import pandas as pd

pd.set_option("display.width", 150)
pd.set_option("display.max_rows", 500)

raw = pd.read_csv("data/failed_payments_export.csv")
print(f"read {len(raw)} failed payments")
raw["retry_count"] = pd.to_numeric(raw["retry_count"], errors="coerce").fillna(0).astype(int)
raw["retry_exhausted"] = raw["retry_count"] >= 6
summary = raw.groupby(["error_code", "exception", "gateway"]).agg(
    failures=("payment_id", "count"), retries=("retry_count", "sum"), exhausted=("retry_exhausted", "sum")
)
print(summary)
print(raw.groupby("customer_id")["amount_cents"].sum().sort_values(ascending=False).head(300))
raw.to_parquet("out/failed_payments.parquet", index=False)
print(f"wrote {len(raw)} rows to out/failed_payments.parquet")
'''


@case(
    "u84_pandas_clean_failed_payments_etl",
    "pandas",
    clean=True,
    group=GROUP,
    decisive=["wrote 60000 rows to out/failed_payments.parquet"],
)
def _pandas_clean(root: Path) -> bytes:
    rows = _payment_rows(60000, 111)
    # A later export wrote "unknown" for missing retry counts: a DtypeWarning, not an error.
    for i in range(52000, 60000, 97):
        parts = rows[i].split(",")
        parts[7] = "unknown"
        rows[i] = ",".join(parts)
    write(root, {"data/failed_payments_export.csv": _HEADER + "\n" + "\n".join(rows) + "\n", "etl.py": _ETL})
    (root / "out").mkdir()
    return _settle(sh(f"{_env()} python etl.py", root), root)
