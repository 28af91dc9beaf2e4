"""Held-out outputs (group ``unseen-30``): a thirtieth batch, data pipelines and workflow/task runners run on
projects generated in the scenario's folder, as an agent sees them when it runs a pipeline.

Failing runs: ``dbt run`` (dbt-duckdb, one thread, a local DuckDB file) of 260 models where one staging model
selects a column its source does not have (a DuckDB Binder Error, its downstream fact model skipped), ``dbt
test`` of 200 ``unique``/``not_null`` tests where one ``unique`` test finds a duplicated key, a ``luigi`` run
(local scheduler, one worker) of 221 tasks where one extract raises, ending in its Execution Summary, ``doit
--continue`` over 161 tasks where one shell action exits non-zero, ``snakemake --keep-going --cores 1`` over a
workflow of 82 jobs where one shell rule exits non-zero, and ``frictionless validate`` of a data package of 300
CSV files where one row has an amount that is not a number. Clean runs whose text talks about errors: ``dbt
build`` of a seed, models and tests named ``failed_payments``, ``error_events`` and ``retry_queue``, a ``luigi``
run of ``FailedPayments`` and ``ErrorEvents`` tasks, a ``snakemake`` workflow whose rules are ``failed_jobs`` and
``error_report``, and ``frictionless validate`` of ``error_events.csv`` and ``failed_payments.csv`` files whose
``status`` column says ``error`` and ``failed``. Times, durations, pids, hosts, salts, workflow ids and log names
are replaced with fixed text, so the outputs are the same on every run. Labels were written with each scenario,
before the engine saw the output. Needs ``dbt-core`` with ``dbt-duckdb``, ``luigi``, ``doit``, ``snakemake`` and
``frictionless`` from PyPI.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-30"

_DBT = "dbt-core==1.10.23 dbt-duckdb==1.9.6 dbt-adapters==1.24.5 dbt-common==1.39.0 duckdb==2.0.1"
_LUIGI = (
    "luigi==3.8.1 tornado==6.6.1 python-daemon==3.1.2 lockfile==0.12.2 python-dateutil==2.9.0.post0 tenacity==9.2.1"
)
_DOIT = "doit==0.37.0"
_SNAKEMAKE = "snakemake==9.27.1"
_FRICTIONLESS = "frictionless==5.21.0"


def _env(root: Path, reqs: str) -> str:
    """``reqs`` installed in ``root/tools``; the environment prefix that runs them with a fixed hash seed, the
    scenario's own home and no colours."""
    home = root / "home"
    home.mkdir(exist_ok=True)
    return (
        py_tools(root, reqs) + f" PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TZ=UTC HOME={home} "
        f"XDG_CACHE_HOME={home / '.cache'} COLUMNS=200"
    )


# ---------------------------------------------------------------- dbt

_DBT_SCRUB = (
    (r"^\d\d:\d\d:\d\d  ", "09:00:00  "),
    (r" in \d+\.\d+s\]", " in 0.10s]"),
    (r"in \d+ hours \d+ minutes and \d+\.\d+ seconds \(\d+\.\d+s\)", "in 0 hours 0 minutes and 1.00 seconds (1.00s)"),
)


def _dbt_project(root: Path) -> str:
    """A dbt project ``shop`` with a DuckDB profile (one thread); the command prefix that runs dbt in it."""
    env = _env(root, _DBT)
    write(
        root / "shop",
        {
            "dbt_project.yml": """
            name: shop
            version: "1.0.0"
            profile: shop
            model-paths: ["models"]
            seed-paths: ["seeds"]
            """,
            "profiles.yml": """
            shop:
              target: dev
              outputs:
                dev:
                  type: duckdb
                  path: shop.duckdb
                  threads: 1
            """,
        },
    )
    return f"cd shop && {env} DBT_SEND_ANONYMOUS_USAGE_STATS=false DBT_PROFILES_DIR=. dbt"


@case(
    "dbt_run_260_models_one_binder_error",
    "dbt run (dbt-duckdb, 260 models)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR creating sql view model main.stg_ledger_07",
        'Binder Error: Referenced column "amount_cents" not found in FROM clause!',
        "Failure in model stg_ledger_07 (models/staging/stg_ledger_07.sql)",
        "SKIP relation main.fct_ledger",
        "Done. PASS=258 WARN=0 ERROR=1 SKIP=1 NO-OP=0 TOTAL=260",
        "[exit status 1]",
    ],
)
def _dbt_run(root: Path) -> bytes:
    dbt = _dbt_project(root)
    files: dict[str, str] = {}
    for area in WORDS:
        refs = []
        for k in range(12):
            name = f"stg_{area}_{k:02d}"
            refs.append(name)
            amount = "amount_cents" if (area, k) == ("ledger", 7) else "amount"
            files[f"shop/models/staging/{name}.sql"] = (
                f"-- {area} staging model {k}\n"
                f"select i as id, '{area}' as area, i * {k + 3} as amount, i % 7 as bucket\n"
                f"from range(1, {100 + k * 10}) t(i)\n"
                if k != 7 or area != "ledger"
                else "with src as (\n"
                f"    select i as id, '{area}' as area, i * 10 as amount from range(1, 170) t(i)\n)\n"
                f"select id, area, {amount} / 100.0 as amount_eur\nfrom src\n"
            )
        union = "\nunion all\n".join(f"select id, area from {{{{ ref('{r}') }}}}" for r in refs)
        files[f"shop/models/marts/fct_{area}.sql"] = union + "\n"
    write(root, files)
    out = sh(f"{dbt} run --no-use-colors", root)
    return substitute(scrub(out, root), *_DBT_SCRUB)


@case(
    "dbt_test_200_tests_one_unique_fails",
    "dbt test (dbt-duckdb, 200 unique/not_null tests)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL 2 unique_orders_03_order_id",
        "Failure in test unique_orders_03_order_id (models/schema.yml)",
        "Got 2 results, configured to fail if != 0",
        "Done. PASS=199 WARN=0 ERROR=1 SKIP=0 NO-OP=0 TOTAL=200",
        "[exit status 1]",
    ],
)
def _dbt_test(root: Path) -> bytes:
    dbt = _dbt_project(root)
    files: dict[str, str] = {}
    schema = ["version: 2", "models:"]
    for area in WORDS:
        for k in range(5):
            name = f"{area}_{k:02d}"
            # orders_03 carries two order ids twice (a join that fanned out)
            dup = (
                "\nunion all\nselect i as order_id, i * 2 as amount from range(40, 42) t(i)"
                if name == "orders_03"
                else ""
            )
            files[f"shop/models/{name}.sql"] = (
                "{{ config(materialized='table') }}\n"
                f"select i as order_id, i * 2 as amount from range(1, {200 + k}) t(i){dup}\n"
            )
            schema += [
                f"  - name: {name}",
                "    columns:",
                "      - name: order_id",
                "        data_tests:",
                "          - unique",
                "          - not_null",
            ]
    files["shop/models/schema.yml"] = "\n".join(schema) + "\n"
    write(root, files)
    sh(f"{dbt} run --no-use-colors -q", root)
    out = sh(f"{dbt} test --no-use-colors", root)
    return substitute(scrub(out, root), *_DBT_SCRUB)


@case(
    "dbt_build_failed_payments_error_events_clean",
    "dbt build (dbt-duckdb, seed, 60 models, 80 tests)",
    clean=True,
    group=GROUP,
    decisive=[
        "Completed successfully",
        "Done. PASS=141 WARN=0 ERROR=0 SKIP=0 NO-OP=0 TOTAL=141",
    ],
)
def _dbt_build(root: Path) -> bytes:
    dbt = _dbt_project(root)
    rows = ["event_id,area,status,amount"]
    statuses = ["error", "failed", "retry", "ok"]
    for n in range(1, 401):
        rows.append(f"{n},{WORDS[n % 20]},{statuses[n % 4]},{(n * 37) % 1000}")
    files: dict[str, str] = {"shop/seeds/raw_events.csv": "\n".join(rows) + "\n"}
    schema = ["version: 2", "models:"]
    for area in WORDS:
        files[f"shop/models/{area}_error_events.sql"] = (
            f"select event_id, status from {{{{ ref('raw_events') }}}} where area = '{area}' and status = 'error'\n"
        )
        files[f"shop/models/{area}_failed_payments.sql"] = (
            f"select event_id, status, amount from {{{{ ref('raw_events') }}}}\n"
            f"where area = '{area}' and status in ('failed', 'error')\n"
        )
        files[f"shop/models/{area}_retry_queue.sql"] = (
            f"select event_id from {{{{ ref('{area}_failed_payments') }}}} where status = 'failed'\n"
        )
        for model in ("error_events", "failed_payments", "retry_queue"):
            schema += [
                f"  - name: {area}_{model}",
                "    columns:",
                "      - name: event_id",
                "        data_tests: [not_null]",
            ]
            if model == "failed_payments":
                schema += [
                    "      - name: status",
                    "        data_tests:",
                    "          - accepted_values:",
                    "              values: ['failed', 'error']",
                ]
    files["shop/models/schema.yml"] = "\n".join(schema) + "\n"
    write(root, files)
    out = sh(f"{dbt} build --no-use-colors", root)
    return substitute(scrub(out, root), *_DBT_SCRUB)


# ---------------------------------------------------------------- luigi

_LUIGI_SCRUB = (
    (r"\[pid \d+\]", "[pid 4242]"),
    (
        r"Worker\(salt=\d+, workers=1, host=[^,]+, username=[^,]+, pid=\d+\)",
        "Worker(salt=1, workers=1, host=etl-1, username=etl, pid=4242)",
    ),
)

_LUIGI_CFG = """
[core]
no_configure_logging = false

[retcode]
already_running = 10
missing_data = 20
not_run = 25
task_failed = 30
scheduling_error = 35
unhandled_exception = 40
"""


@case(
    "luigi_221_tasks_one_extract_raises",
    "luigi --local-scheduler (221 tasks, 1 worker)",
    clean=False,
    group=GROUP,
    decisive=[
        "failed    Extract(area=ledger, day=6)",
        "ValueError: ledger day 06: entries do not balance (debit 1200.00, credit 1180.00)",
        "* 1 failed:",
        "- 1 Extract(area=ledger, day=6)",
        "This progress looks :( because there were failed tasks",
        "[exit status 30]",
    ],
)
def _luigi_fail(root: Path) -> bytes:
    env = _env(root, _LUIGI)
    write(
        root,
        {
            "luigi.cfg": _LUIGI_CFG,
            "pipeline.py": f"""
            import luigi

            AREAS = {WORDS!r}


            class Extract(luigi.Task):
                area = luigi.Parameter()
                day = luigi.IntParameter()

                def output(self):
                    return luigi.LocalTarget(f"out/extract/{{self.area}}_{{self.day:02d}}.csv")

                def run(self):
                    if (self.area, self.day) == ("ledger", 6):
                        raise ValueError(
                            f"ledger day {{self.day:02d}}: entries do not balance (debit 1200.00, credit 1180.00)"
                        )
                    with self.output().open("w") as f:
                        f.write("id,amount\\n" + "".join(f"{{i}},{{i * self.day}}\\n" for i in range(20)))


            class Load(luigi.Task):
                area = luigi.Parameter()

                def requires(self):
                    return [Extract(area=self.area, day=d) for d in range(1, 11)]

                def output(self):
                    return luigi.LocalTarget(f"out/load/{{self.area}}.done")

                def run(self):
                    with self.output().open("w") as f:
                        f.write("loaded\\n")


            class Report(luigi.Task):
                def requires(self):
                    return [Load(area=a) for a in AREAS]

                def output(self):
                    return luigi.LocalTarget("out/report.txt")

                def run(self):
                    with self.output().open("w") as f:
                        f.write("report\\n")
            """,
        },
    )
    out = sh(
        f"{env} LUIGI_CONFIG_PATH=luigi.cfg PYTHONPATH={root / 'tools'}:{root} luigi --module pipeline Report "
        "--local-scheduler --workers 1",
        root,
    )
    return substitute(scrub(out, root), *_LUIGI_SCRUB)


@case(
    "luigi_failed_payments_error_events_clean",
    "luigi --local-scheduler (FailedPayments, ErrorEvents tasks)",
    clean=True,
    group=GROUP,
    decisive=[
        "* 61 ran successfully:",
        "This progress looks :) because there were no failed tasks or missing dependencies",
    ],
)
def _luigi_clean(root: Path) -> bytes:
    env = _env(root, _LUIGI)
    write(
        root,
        {
            "luigi.cfg": _LUIGI_CFG,
            "pipeline.py": f"""
            import luigi

            AREAS = {WORDS!r}


            class FailedPayments(luigi.Task):
                area = luigi.Parameter()

                def output(self):
                    return luigi.LocalTarget(f"out/failed_payments/{{self.area}}.csv")

                def run(self):
                    with self.output().open("w") as f:
                        f.write("payment_id,status\\n" + "".join(f"{{i}},failed\\n" for i in range(5)))


            class ErrorEvents(luigi.Task):
                area = luigi.Parameter()

                def requires(self):
                    return FailedPayments(area=self.area)

                def output(self):
                    return luigi.LocalTarget(f"out/error_events/{{self.area}}.csv")

                def run(self):
                    with self.input().open() as src, self.output().open("w") as f:
                        f.write(src.read().replace("failed", "error"))


            class RetryQueue(luigi.Task):
                area = luigi.Parameter()

                def requires(self):
                    return ErrorEvents(area=self.area)

                def output(self):
                    return luigi.LocalTarget(f"out/retry_queue/{{self.area}}.csv")

                def run(self):
                    with self.input().open() as src, self.output().open("w") as f:
                        f.write(src.read())


            class ErrorBudgetReport(luigi.Task):
                def requires(self):
                    return [RetryQueue(area=a) for a in AREAS]

                def output(self):
                    return luigi.LocalTarget("out/error_budget.txt")

                def run(self):
                    with self.output().open("w") as f:
                        f.write("errors=0\\n")
            """,
        },
    )
    out = sh(
        f"{env} LUIGI_CONFIG_PATH=luigi.cfg PYTHONPATH={root / 'tools'}:{root} luigi "
        "--module pipeline ErrorBudgetReport "
        "--local-scheduler --workers 1",
        root,
    )
    return substitute(scrub(out, root), *_LUIGI_SCRUB)


# ---------------------------------------------------------------- doit


@case(
    "doit_161_tasks_one_action_exits_2",
    "doit --continue (161 tasks)",
    clean=False,
    group=GROUP,
    decisive=[
        "TaskFailed - taskid:export:refunds_05",
        "refunds_05: currency 'XXX' has no exchange rate",
        "Command failed: 'python export.py refunds 5' returned 2",
        "UnmetDependency - taskid:publish",
        "[exit status 2]",
    ],
)
def _doit_fail(root: Path) -> bytes:
    env = _env(root, _DOIT)
    write(
        root,
        {
            "export.py": """
            import sys

            area, day = sys.argv[1], int(sys.argv[2])
            if (area, day) == ("refunds", 5):
                print(f"{area}_{day:02d}: currency 'XXX' has no exchange rate", file=sys.stderr)
                sys.exit(2)
            for i in range(4):
                print(f"{area}_{day:02d}: wrote batch {i} ({(day * 31 + i * 7) % 500} rows)")
            """,
            "dodo.py": f"""
            DOIT_CONFIG = {{"verbosity": 2, "default_tasks": ["publish"]}}
            AREAS = {WORDS!r}


            def task_export():
                for area in AREAS:
                    for day in range(1, 9):
                        yield {{"name": f"{{area}}_{{day:02d}}", "actions": [f"python export.py {{area}} {{day}}"]}}


            def task_publish():
                return {{"actions": ["echo publishing exports"], "task_dep": ["export"]}}
            """,
        },
    )
    return scrub(sh(f"{env} doit --continue", root), root)


# ---------------------------------------------------------------- snakemake

_SNAKE_SCRUB = (
    (r"^  Date: .*$", "  Date: 2026-03-02 09:00:00"),
    (r"^  Workflow ID: .*$", "  Workflow ID: 00000000-0000-0000-0000-000000000000"),
    (r"^  Platform: .*$", "  Platform: Linux-x86_64"),
    (r"^  Host: .*$", "  Host: etl-1"),
    (r"^  User: .*$", "  User: etl"),
    (r"^  Python version: .*$", "  Python version: 3.11"),
    (r"^\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\]$", "[Mon Mar  2 09:00:00 2026]"),
    (r"^(Complete log\(s\): \S+/\.snakemake/log/)\S+$", r"\1RUN.snakemake.log"),
    (r"^Elapsed time: .*$", "Elapsed time: 0:00:01"),
    (r"tmpdir=\S+", "tmpdir=/tmp"),
    # printed by the scheduler thread while a job's end is logged by another: its place differs between runs
    (r"^Select jobs to execute\.\.\.\n", ""),
)


def _snakemake(root: Path, snakefile: str) -> bytes:
    env = _env(root, _SNAKEMAKE)
    write(root, {"Snakefile": snakefile})
    out = sh(f"{env} TMPDIR=/tmp snakemake --cores 1 --keep-going --scheduler greedy", root)
    return substitute(scrub(out, root), *_SNAKE_SCRUB)


@case(
    "snakemake_82_jobs_one_shell_rule_fails",
    "snakemake --cores 1 --keep-going (82 jobs)",
    clean=False,
    group=GROUP,
    decisive=[
        "ledger: 3 rows have a negative amount",
        "Error in rule aggregate:",
        "output: out/agg/ledger.csv",
        "Exiting because a job execution failed. Look above for error messages",
        "[exit status 1]",
    ],
)
def _snake_fail(root: Path) -> bytes:
    areas = json.dumps(WORDS)
    return _snakemake(
        root,
        f"""
        AREAS = {areas}

        rule all:
            input: "out/report.txt"

        rule extract:
            output: "out/raw/{{area}}.csv"
            shell: "for i in 1 2 3 4 5; do echo \\"{{wildcards.area}},$i,$((i * 3))\\"; done > {{output}}; echo extracted {{wildcards.area}}"

        rule clean:
            input: "out/raw/{{area}}.csv"
            output: "out/clean/{{area}}.csv"
            shell: "sort {{input}} > {{output}}; echo cleaned {{wildcards.area}}: $(wc -l < {{output}}) rows"

        rule aggregate:
            input: "out/clean/{{area}}.csv"
            output: "out/agg/{{area}}.csv"
            shell:
                "if [ {{wildcards.area}} = ledger ]; then echo '{{wildcards.area}}: 3 rows have a negative amount' >&2; exit 3; fi; "
                "cut -d, -f3 {{input}} | paste -sd+ > {{output}}"

        rule publish:
            input: "out/agg/{{area}}.csv"
            output: "out/pub/{{area}}.csv"
            shell: "cp {{input}} {{output}}"

        rule report:
            input: expand("out/pub/{{area}}.csv", area=AREAS)
            output: "out/report.txt"
            shell: "cat {{input}} > {{output}}"
        """,  # noqa: E501
    )


@case(
    "snakemake_failed_jobs_error_report_clean",
    "snakemake --cores 1 (rules failed_jobs, error_report)",
    clean=True,
    group=GROUP,
    decisive=["62 of 62 steps (100%) done", "Complete log(s):"],
)
def _snake_clean(root: Path) -> bytes:
    areas = json.dumps(WORDS)
    return _snakemake(
        root,
        f"""
        AREAS = {areas}

        rule all:
            input: "out/error_report.txt"

        rule failed_jobs:
            output: "out/failed_jobs/{{area}}.csv"
            shell: "echo 'job,status' > {{output}}; echo '{{wildcards.area}}-1,failed' >> {{output}}; echo failed_jobs {{wildcards.area}}: 1 row"

        rule error_events:
            input: "out/failed_jobs/{{area}}.csv"
            output: "out/error_events/{{area}}.csv"
            shell: "sed 's/failed/error/' {{input}} > {{output}}; echo error_events {{wildcards.area}}: errors=1"

        rule retry_queue:
            input: "out/error_events/{{area}}.csv"
            output: "out/retry_queue/{{area}}.csv"
            shell: "cp {{input}} {{output}}"

        rule error_report:
            input: expand("out/retry_queue/{{area}}.csv", area=AREAS)
            output: "out/error_report.txt"
            shell: "cat {{input}} > {{output}}; echo error report: $(cat {{input}} | grep -c error) errors queued for retry"
        """,  # noqa: E501
    )


# ---------------------------------------------------------------- frictionless


def _package(root: Path, names: list[str], bad: str | None) -> None:
    resources = []
    for idx, name in enumerate(names):
        lines = ["id,area,amount,status"]
        for r in range(1, 61):
            amount = f"{(idx * 37 + r * 13) % 1000}.{r % 100:02d}"
            if name == bad and r == 44:
                amount = '"12,40"'
            status = ["ok", "error", "failed", "retry"][r % 4]
            lines.append(f"{r},{name.split('_')[0]},{amount},{status}")
        (root / "data").mkdir(exist_ok=True)
        (root / "data" / f"{name}.csv").write_text("\n".join(lines) + "\n")
        resources.append(
            {
                "name": name,
                "path": f"data/{name}.csv",
                "schema": {
                    "fields": [
                        {"name": "id", "type": "integer"},
                        {"name": "area", "type": "string"},
                        {"name": "amount", "type": "number"},
                        {
                            "name": "status",
                            "type": "string",
                            "constraints": {"enum": ["ok", "error", "failed", "retry"]},
                        },
                    ]
                },
            }
        )
    (root / "datapackage.json").write_text(json.dumps({"name": "shop-exports", "resources": resources}, indent=2))


@case(
    "frictionless_validate_300_csvs_one_type_error",
    "frictionless validate datapackage.json (300 CSV resources)",
    clean=False,
    group=GROUP,
    decisive=[
        "data/ledger_09.csv",
        "INVALID",
        'Type error in the cell "12,40" in row "45" and field "amount" at position "3"',
        "[exit status 1]",
    ],
)
def _frictionless_fail(root: Path) -> bytes:
    env = _env(root, _FRICTIONLESS)
    _package(root, [f"{area}_{k:02d}" for area in WORDS for k in range(15)], "ledger_09")
    return scrub(sh(f"{env} frictionless validate datapackage.json", root), root)


@case(
    "frictionless_validate_error_events_failed_payments_clean",
    "frictionless validate datapackage.json (error_events, failed_payments)",
    clean=True,
    group=GROUP,
    decisive=["data/export_retry_queue_03.csv", "VALID"],
)
def _frictionless_clean(root: Path) -> bytes:
    env = _env(root, _FRICTIONLESS)
    kinds = ("error_events", "failed_payments", "retry_queue")
    names = [f"{area}_{kind}_{q:02d}" for area in WORDS for kind in kinds for q in range(4)]
    _package(root, names, None)
    return scrub(sh(f"{env} frictionless validate datapackage.json", root), root)
