"""Held-out outputs (group ``unseen-103``): a hundred-and-third batch, dbt and SQL tooling as an agent runs them on a
generated analytics project (dbt-core with dbt-duckdb on a local DuckDB file, one thread, no packages hub, offline;
sqlfluff with the DuckDB dialect and its jinja templater). Models, columns and tests are named after the business
words: ``stg_<area>_failed_payments``, ``stg_<area>_error_events``, ``int_<area>_retry_queue`` and
``fct_<area>_exception_report``, so clean runs are full of those words.

Failing runs: ``dbt run`` of 100 models where ``int_refunds_retry_queue`` selects a column its parent does not have (a
DuckDB Binder Error, its report skipped), ``dbt --debug run`` of 60 models where one staging model has a SQL syntax
error (a Parser Error in the middle of the debug log), ``dbt test`` of 221 data tests where a ``unique`` test and a
singular test fail, ``dbt build`` of seeds, models and tests where a ``not_null`` test fails and its downstream
models are skipped, ``dbt compile`` where a model's Jinja loop calls a macro that does not exist, and ``sqlfluff lint``
of 80 models with many rule violations and one model that does not parse. Clean runs: ``dbt run`` of 120 models,
``dbt test`` of 220 passing tests on the failed-payments models, ``dbt build`` with one warn-severity test that warns,
``sqlfluff lint -vv`` of 80 tidy models, and ``dbt compile`` with ``dbt ls``. Labels were written with each scenario,
before the engine saw the output. Needs ``dbt-core``, ``dbt-duckdb`` and ``sqlfluff`` from PyPI (a venv of their own).
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from _harness import VENVS, WORDS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-103"

_REQS = "dbt-core==1.10.23 dbt-duckdb==1.9.6 dbt-adapters==1.24.5 dbt-common==1.39.0 duckdb==2.0.1 sqlfluff==4.5.0"

_SCRUB = (
    (r"^(\x1b\[0m)?\d\d:\d\d:\d\d(\.\d+)?  ", "09:00:00  "),
    (r" in \d+\.\d+s\]", " in 0.10s]"),
    (r"in \d+ hours \d+ minutes and \d+\.\d+ seconds \(\d+\.\d+s\)", "in 0 hours 0 minutes and 1.00 seconds (1.00s)"),
    (r"\d\d:\d\d:\d\d\.\d{6}", "09:00:00.000000"),
    (r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d(\.\d+)?(Z|\+00:00)?", "2026-01-01 00:00:00"),
    (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "00000000-0000-0000-0000-000000000000"),
    (r"\d+\.\d+ ?(s|ms|seconds)\b", "0.10 s"),
    (r"0x[0-9a-f]{6,16}", "0x0000000000"),
    (r"\bpid \d+\b", "pid 4242"),
    (r'("(?:command_wall_clock_time|process_[a-z_]+)"): "?[\d.]+"?', r"\1: 0"),
)


def _env(root: Path) -> str:
    venv = make_venv(VENVS / "u103-dbt", _REQS)
    home = root / "home"
    home.mkdir(exist_ok=True)
    return (
        f"PATH={venv / 'bin'}:$PATH HOME={home} TZ=UTC COLUMNS=200 PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 "
        "DBT_SEND_ANONYMOUS_USAGE_STATS=false DBT_VERSION_CHECK=false DBT_USE_COLORS=false"
    )


def _dbt(root: Path) -> str:
    """A dbt project ``analytics`` with a DuckDB profile (one thread); the command prefix that runs dbt in it."""
    write(
        root / "analytics",
        {
            "dbt_project.yml": """
            name: analytics
            version: "1.4.0"
            profile: analytics
            model-paths: ["models"]
            seed-paths: ["seeds"]
            test-paths: ["tests"]
            macro-paths: ["macros"]
            models:
              analytics:
                staging:
                  +materialized: view
                intermediate:
                  +materialized: view
                marts:
                  +materialized: table
            """,
            "profiles.yml": """
            analytics:
              target: dev
              outputs:
                dev:
                  type: duckdb
                  path: analytics.duckdb
                  threads: 1
            """,
        },
    )
    return f"cd analytics && {_env(root)} DBT_PROFILES_DIR=. dbt"


def _sorted_args(match: re.Match[bytes]) -> bytes:
    """dbt's ``running dbt with arguments {...}`` debug line with its items sorted (their order differs per run)."""
    args = ast.literal_eval(match.group(2).decode())
    return match.group(1) + repr(dict(sorted(args.items()))).encode()


def _place_marking(out: bytes) -> bytes:
    """dbt's debug ``Marking all children of 'X' to be skipped`` block (logged by the main thread, so it lands
    among the worker's lines for the next node at a different place per run) moved to right after ``Finished
    running node X``."""
    block = re.search(
        rb"^[^\n]*Marking all children of '([^']+)' to be skipped[^\n]*\n(?:(?!\d\d:)[^\n]*\n)*", out, re.M
    )
    if not block:
        return out
    rest = out[: block.start()] + out[block.end() :]
    anchor = re.search(rb"^[^\n]*Finished running node " + re.escape(block.group(1)) + rb"\n", rest, re.M)
    if not anchor:
        return out
    return rest[: anchor.end()] + block.group(0) + rest[anchor.end() :]


def _settle(out: bytes, root: Path) -> bytes:
    out = _place_marking(out)
    out = re.sub(rb"^(.*running dbt with arguments )(\{.*\})$", _sorted_args, out, flags=re.M)
    return substitute(scrub(out, root), *_SCRUB)


def _models(areas: list[str], *, broken: tuple[str, str] = ("", "")) -> dict[str, str]:
    """Four models per area (two staging views, a retry queue, an exception report); ``broken`` is (model, kind)."""
    files: dict[str, str] = {}
    for i, area in enumerate(areas):
        n = 150 + i * 7
        files[f"analytics/models/staging/stg_{area}_failed_payments.sql"] = (
            f"-- failed payments of the {area} service, one row per failed attempt\n"
            f"select i as payment_id, '{area}' as area, (i * 37) % 1000 as amount_cents,\n"
            f"    case when i % 3 = 0 then 'card_declined' else 'gateway_error' end as failure_reason,\n"
            f"    i % 5 as retry_count\nfrom range(1, {n}) t(i)\n"
        )
        files[f"analytics/models/staging/stg_{area}_error_events.sql"] = (
            f"-- error events raised by {area}\n"
            f"select i as error_event_id, i % {n - 1} + 1 as payment_id, 'E' || (i % 40) as error_code,\n"
            f"    case when i % 4 = 0 then 'exception' else 'error' end as severity\nfrom range(1, {n * 2}) t(i)\n"
        )
        files[f"analytics/models/intermediate/int_{area}_retry_queue.sql"] = (
            "select p.payment_id, p.retry_count, count(e.error_event_id) as error_events\n"
            f"from {{{{ ref('stg_{area}_failed_payments') }}}} p\n"
            f"left join {{{{ ref('stg_{area}_error_events') }}}} e on e.payment_id = p.payment_id\n"
            "where p.retry_count < 4\ngroup by p.payment_id, p.retry_count\n"
        )
        files[f"analytics/models/marts/fct_{area}_exception_report.sql"] = (
            "select retry_count, count(*) as queued_payments, sum(error_events) as error_events\n"
            f"from {{{{ ref('int_{area}_retry_queue') }}}}\ngroup by retry_count\n"
        )
    model, kind = broken
    if kind == "binder":
        files[f"analytics/models/intermediate/{model}.sql"] = (
            "select p.payment_id, p.retry_count, p.last_retry_at, count(e.error_event_id) as error_events\n"
            f"from {{{{ ref('{model.replace('int_', 'stg_').replace('_retry_queue', '_failed_payments')}') }}}} p\n"
            f"left join {{{{ ref('{model.replace('int_', 'stg_').replace('_retry_queue', '_error_events')}') }}}} e\n"
            "    on e.payment_id = p.payment_id\nwhere p.retry_count < 4\n"
            "group by p.payment_id, p.retry_count, p.last_retry_at\n"
        )
    elif kind == "parser":
        files[f"analytics/models/staging/{model}.sql"] = (
            "-- error events, deduplicated\nselect i as error_event_id, i % 149 + 1 as payment_id,\n"
            "    'E' || (i % 40) as error_code,\n    case when i % 4 = 0 then 'exception' else 'error' as severity\n"
            "from range(1, 300) t(i)\n"
        )
    return files


# ---------------------------------------------------------------- failing dbt runs


@case(
    "u103_dbt_run_binder_error_retry_queue",
    "dbt run (dbt-duckdb, 100 models)",
    clean=False,
    group=GROUP,
    decisive=[
        'Binder Error: Values list "p" does not have a column named "last_retry_at"',
        "Failure in model int_refunds_retry_queue (models/intermediate/int_refunds_retry_queue.sql)",
        "compiled code at target/compiled/analytics/models/intermediate/int_refunds_retry_queue.sql",
        "Done. PASS=98 WARN=0 ERROR=1 SKIP=1",
    ],
)
def _dbt_run_binder(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:20]
    write(root, _models(areas, broken=("int_refunds_retry_queue", "binder")))
    extra = {}
    for area in areas:
        extra[f"analytics/models/marts/dim_{area}_failure_reasons.sql"] = (
            f"select distinct failure_reason from {{{{ ref('stg_{area}_failed_payments') }}}}\n"
        )
    write(root, extra)
    return _settle(sh(f"{dbt} run", root), root)


@case(
    "u103_dbt_debug_run_parser_error",
    "dbt --debug run (dbt-duckdb, 60 models)",
    clean=False,
    group=GROUP,
    decisive=[
        "15 of 60 ERROR creating sql view model main.stg_ledger_error_events",
        "Failure in model stg_ledger_error_events (models/staging/stg_ledger_error_events.sql)",
        "Done. PASS=57 WARN=0 ERROR=1 SKIP=2",
    ],
)
def _dbt_debug_parser(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = ["billing", "orders", "tax", "ledger", "shipping", "audit", "export", "coupons", "session", "catalog",
             "search", "pricing", "webhooks", "invoice", "cart"]  # fmt: skip
    write(root, _models(areas, broken=("stg_ledger_error_events", "parser")))
    return _settle(sh(f"{dbt} --debug run", root), root)


def _schema(areas: list[str], *, fanout: str = "") -> tuple[dict[str, str], int]:
    """schema.yml with generic tests on every model; the number of tests."""
    lines = ["version: 2", "models:"]
    count = 0
    for area in areas:
        lines += [
            f"  - name: stg_{area}_failed_payments",
            f"    description: Failed payment attempts of {area}, one row per attempt",
            "    columns:",
            "      - name: payment_id",
            "        data_tests: [unique, not_null]",
            "      - name: failure_reason",
            "        data_tests:",
            "          - not_null",
            "          - accepted_values:",
            "              arguments:",
            "                values: ['card_declined', 'gateway_error']",
            "      - name: retry_count",
            "        data_tests: [not_null]",
            f"  - name: stg_{area}_error_events",
            "    columns:",
            "      - name: error_event_id",
            "        data_tests: [unique, not_null]",
            "      - name: severity",
            "        data_tests:",
            "          - accepted_values:",
            "              arguments:",
            "                values: ['error', 'exception']",
            f"  - name: int_{area}_retry_queue",
            "    columns:",
            "      - name: payment_id",
            "        data_tests: [unique, not_null]",
            f"  - name: fct_{area}_exception_report",
            "    columns:",
            "      - name: retry_count",
            "        data_tests: [unique]",
        ]
        count += 12
    return {"analytics/models/schema.yml": "\n".join(lines) + "\n"}, count


@case(
    "u103_dbt_test_two_failures",
    "dbt test (dbt-duckdb, 221 tests)",
    clean=False,
    group=GROUP,
    decisive=[
        "Failure in test unique_int_orders_retry_queue_payment_id (models/schema.yml)",
        "Got 6 results, configured to fail if != 0",
        "Failure in test assert_no_stale_retry_errors (tests/assert_no_stale_retry_errors.sql)",
        "Done. PASS=219 WARN=0 ERROR=2 SKIP=0",
    ],
)
def _dbt_test_failures(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:20]
    files = _models(areas)
    # the orders retry queue joins one row per error event: a fan-out that repeats six payments
    files["analytics/models/intermediate/int_orders_retry_queue.sql"] = (
        "select p.payment_id, p.retry_count, 1 as error_events\n"
        "from {{ ref('stg_orders_failed_payments') }} p\n"
        "left join (select distinct payment_id from {{ ref('stg_orders_error_events') }} where error_event_id < 7) e\n"
        "    on e.payment_id = p.payment_id\nwhere p.retry_count < 4\n"
        "union all\nselect payment_id, retry_count, 0 from {{ ref('stg_orders_failed_payments') }}\n"
        "where payment_id in (1, 2, 3, 6, 7, 8)\n"
    )
    schema, _ = _schema(areas)
    files.update(schema)
    files["analytics/tests/assert_no_stale_retry_errors.sql"] = (
        "-- a payment must leave the retry queue after four failed attempts\n"
        "select payment_id, retry_count from {{ ref('stg_billing_failed_payments') }}\n"
        "where retry_count >= 4 and failure_reason = 'gateway_error' and payment_id < 40\n"
    )
    write(root, files)
    sh(f"{dbt} run -q", root)
    return _settle(sh(f"{dbt} test", root), root)


@case(
    "u103_dbt_build_not_null_fails_skips",
    "dbt build (dbt-duckdb, seeds, 64 models, tests)",
    clean=False,
    group=GROUP,
    decisive=[
        "Failure in test not_null_stg_tax_failed_payments_retry_count (models/schema.yml)",
        "Got 12 results, configured to fail if != 0",
        "SKIP relation main.fct_tax_exception_report",
        "ERROR=1",
    ],
)
def _dbt_build_fails(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:16]
    files = _models(areas)
    files["analytics/models/staging/stg_tax_failed_payments.sql"] = (
        "-- failed payments of the tax service; retries unknown for the migrated rows\n"
        "select i as payment_id, 'tax' as area, (i * 37) % 1000 as amount_cents,\n"
        "    case when i % 3 = 0 then 'card_declined' else 'gateway_error' end as failure_reason,\n"
        "    case when i % 13 = 0 then null else i % 5 end as retry_count\nfrom range(1, 160) t(i)\n"
    )
    schema, _ = _schema(areas)
    files.update(schema)
    codes = ["error_code,description"] + [f"E{k},{WORDS[k % 20]} error {k}" for k in range(40)]
    files["analytics/seeds/error_codes.csv"] = "\n".join(codes) + "\n"
    files["analytics/seeds/retry_policies.csv"] = "area,max_retries\n" + "".join(
        f"{a},{3 + len(a) % 3}\n" for a in areas
    )
    write(root, files)
    return _settle(sh(f"{dbt} build", root), root)


@case(
    "u103_dbt_compile_jinja_undefined_macro",
    "dbt compile (dbt-duckdb, 81 models)",
    clean=False,
    group=GROUP,
    decisive=[
        "Encountered an error:",
        "    'cents_to_euros' is undefined. This can happen",
        "Command `dbt compile` failed",
    ],
)
def _dbt_compile_jinja(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:20]
    files = _models(areas)
    files["analytics/macros/cents_to_eur.sql"] = (
        "{% macro cents_to_eur(column) %}round({{ column }} / 100.0, 2){% endmacro %}\n"
    )
    # the summary reads every area's exception report, so it is the last node compiled
    reports = "".join(f"-- depends_on: {{{{ ref('fct_{area}_exception_report') }}}}\n" for area in areas)
    files["analytics/models/marts/fct_billing_error_summary.sql"] = (
        reports + "{% set reasons = ['card_declined', 'gateway_error'] %}\nselect\n"
        "{% for reason in reasons %}\n"
        "    sum(case when failure_reason = '{{ reason }}' then {{ cents_to_euros('amount_cents') }} end)"
        " as {{ reason }}_eur,\n{% endfor %}\n    count(*) as failed_payments\n"
        "from {{ ref('stg_billing_failed_payments') }}\n"
    )
    write(root, files)
    sh(f"{dbt} run -q --select staging", root)
    return _settle(sh(f"{dbt} --debug compile", root), root)


# ---------------------------------------------------------------- sqlfluff

_SQLFLUFF_CFG = """
[sqlfluff]
dialect = duckdb
templater = jinja
max_line_length = 100

[sqlfluff:templater:jinja]
apply_dbt_builtins = True
"""


def _messy(area: str, i: int) -> str:
    """A model that works but breaks style rules (capitalisation, aliasing, spacing, trailing commas)."""
    return (
        f"-- exception report of {area}\n"
        "SELECT p.payment_id,p.retry_count , COUNT(e.error_event_id) error_events,\n"
        f"       Sum(p.amount_cents)/100.0 as amount_eur, p.failure_reason\n"
        f"FROM {{{{ ref('stg_{area}_failed_payments') }}}} p\n"
        f"  left join {{{{ ref('stg_{area}_error_events') }}}} as e on e.payment_id=p.payment_id\n"
        f"WHERE p.retry_count<{i % 4 + 2} and e.severity = 'exception'   \n"
        "group by 1,2, 4, p.failure_reason\n"
    )


@case(
    "u103_sqlfluff_lint_violations_parse_error",
    "sqlfluff lint (duckdb dialect, 80 models)",
    clean=False,
    group=GROUP,
    decisive=[
        "== [models/intermediate/int_refunds_retry_queue.sql] FAIL",
        "PRS | Line 4, Position",
        "All Finished",
    ],
)
def _sqlfluff_lint(root: Path) -> bytes:
    env = _env(root)
    files = {"analytics/.sqlfluff": _SQLFLUFF_CFG}
    for i, area in enumerate(WORDS):
        base = _models([area])
        files.update(base)
        files[f"analytics/models/marts/fct_{area}_exception_report.sql"] = _messy(area, i)
    files["analytics/models/intermediate/int_refunds_retry_queue.sql"] = (
        "select p.payment_id, p.retry_count, count(e.error_event_id) as error_events\n"
        "from {{ ref('stg_refunds_failed_payments') }} as p\n"
        "left join {{ ref('stg_refunds_error_events') }} as e on e.payment_id = p.payment_id\n"
        "where p.retry_count < 4 and and e.severity = 'error'\n"
        "group by p.payment_id, p.retry_count\n"
    )
    write(root, files)
    return _settle(sh(f"cd analytics && {env} sqlfluff lint models --processes 1", root), root)


# ---------------------------------------------------------------- clean runs


@case(
    "u103_dbt_run_clean_120_models",
    "dbt run (dbt-duckdb, 120 models)",
    clean=True,
    group=GROUP,
    decisive=["Completed successfully", "Done. PASS=120 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=120"],
)
def _dbt_run_clean(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:20]
    files = _models(areas)
    for area in areas:
        files[f"analytics/models/marts/dim_{area}_failure_reasons.sql"] = (
            f"select distinct failure_reason from {{{{ ref('stg_{area}_failed_payments') }}}}\n"
        )
        files[f"analytics/models/marts/fct_{area}_errors_by_code.sql"] = (
            f"select error_code, severity, count(*) as error_events from {{{{ ref('stg_{area}_error_events') }}}}\n"
            "group by error_code, severity\n"
        )
    write(root, files)
    return _settle(sh(f"{dbt} run", root), root)


@case(
    "u103_dbt_test_clean_240_tests",
    "dbt test (dbt-duckdb, 220 tests)",
    clean=True,
    group=GROUP,
    decisive=["Completed successfully", "Done. PASS=220 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=220"],
)
def _dbt_test_clean(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:20]
    files = _models(areas)
    schema, _ = _schema(areas)
    files.update(schema)
    write(root, files)
    sh(f"{dbt} run -q", root)
    return _settle(sh(f"{dbt} test", root), root)


@case(
    "u103_dbt_build_clean_one_warning",
    "dbt build (dbt-duckdb, seeds, 48 models, tests, one warn-severity test)",
    clean=True,
    group=GROUP,
    decisive=["Completed with 1 warning", "Done. PASS="],
)
def _dbt_build_warn(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:12]
    files = _models(areas)
    schema, _ = _schema(areas)
    files.update(schema)
    files["analytics/tests/warn_retry_exhausted_payments.sql"] = (
        "{{ config(severity='warn') }}\n-- payments that used up their retries: reviewed weekly, not blocking\n"
        "select payment_id from {{ ref('stg_billing_failed_payments') }} where retry_count = 4 and payment_id < 30\n"
    )
    codes = ["error_code,description"] + [f"E{k},{WORDS[k % 20]} error {k}" for k in range(40)]
    files["analytics/seeds/error_codes.csv"] = "\n".join(codes) + "\n"
    write(root, files)
    return _settle(sh(f"{dbt} build", root), root)


@case(
    "u103_sqlfluff_lint_clean_verbose",
    "sqlfluff lint -vv (duckdb dialect, 80 models)",
    clean=True,
    group=GROUP,
    decisive=["All Finished"],
)
def _sqlfluff_clean(root: Path) -> bytes:
    env = _env(root)
    rules = "exclude_rules = LT01, LT02, LT05, LT09, AL01, AL03, AL05, RF02, ST09\n"
    files = {"analytics/.sqlfluff": _SQLFLUFF_CFG.replace("max_line_length = 100\n", "max_line_length = 100\n" + rules)}
    files.update(_models(WORDS))
    write(root, files)
    return _settle(sh(f"cd analytics && {env} sqlfluff lint models -vv --processes 1", root), root)


@case(
    "u103_dbt_compile_ls_clean",
    "dbt compile and dbt ls (dbt-duckdb, 80 models, 220 tests)",
    clean=True,
    group=GROUP,
    decisive=[
        "analytics.marts.fct_webhooks_exception_report",
        "analytics.unique_stg_webhooks_failed_payments_payment_id",
    ],
)
def _dbt_compile_ls(root: Path) -> bytes:
    dbt = _dbt(root)
    areas = WORDS[:20]
    files = _models(areas)
    schema, _ = _schema(areas)
    files.update(schema)
    write(root, files)
    return _settle(sh(f"({dbt} compile) && ({dbt} ls)", root), root)
