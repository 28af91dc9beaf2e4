"""Held-out outputs (group ``unseen-76``): a seventy-sixth batch, Python workflow managers and task runners as an
agent runs them on a generated payments data project (raw extracts per business area and month, cleaned rows, and
the ``failed_payments``, ``retry_queue``, ``error_events`` and ``exceptions_report`` tables built from them).

Failing runs: ``snakemake -c1 -p --show-failed-logs`` over 92 jobs where the ``clean_rows`` script of one extract
raises on an ``N/A`` amount (its log with the traceback printed by Snakemake), ``snakemake -c1 -p --keep-going`` over
the same workflow where a ``run:`` block of the ``retry_queue`` rule raises a ``KeyError`` in the middle and the other
jobs go on, ``snakemake -c1 -p failed_payments_all`` (79 jobs, fine) chained with a full run that stops on a missing
input file, ``doit -v 2 --continue`` over 91 tasks where one command action exits non-zero in the middle, a local
scheduler ``luigi`` run of 97 tasks where one task raises (luigi's execution summary at the end), a ``luigi`` run
where one month's external chargeback feed is missing, and ``invoke report`` whose pre-tasks echo 80 commands until
one fails. Clean runs full of error words: ``snakemake -n -p`` (a dry run listing 118 jobs), ``snakemake -c1 -p`` of
the whole workflow, ``doit -v 2`` followed by ``doit list --all --status`` and a ``luigi`` run of the same
``FailedPayments``, ``RetryQueue`` and ``ErrorEvents`` tasks. Snakemake picks among ready jobs in an order that
follows memory addresses, so it runs under ``setarch -R`` (no address randomisation) in a folder of fixed name.
Times, pids, salts, hosts and workflow ids are replaced with fixed text. Labels were written with each scenario,
before the engine saw the output. Needs snakemake 9.27.1, doit 0.37.0, luigi 3.8.1 and invoke 3.0.3 from PyPI,
installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u76-flows``, with
util-linux's ``setarch``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-76"

_REQS = "snakemake==9.27.1 doit==0.37.0 luigi==3.8.1 invoke==3.0.3"
#: The tools' environment, made once and kept between runs.
_VENV = VENVS / "u76-flows"


def _env(root: Path) -> str:
    """The environment prefix that runs the pinned tools (made once) on the project in ``root``."""
    make_venv(_VENV, _REQS)
    home = root / "home"
    home.mkdir(exist_ok=True)
    return (
        f"PATH={_VENV}/bin:$PATH HOME={home} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 TZ=UTC "
        f"TMPDIR=/tmp COLUMNS=160 XDG_CACHE_HOME={home / '.cache'}"
    )


_SCRUB = (
    (r"^  Date: .*$", "  Date: 2026-03-02 09:00:00"),
    (r"^  Workflow ID: .*$", "  Workflow ID: 00000000-0000-0000-0000-000000000000"),
    (r"^  Platform: .*$", "  Platform: Linux-x86_64"),
    (r"^  Host: .*$", "  Host: etl-1"),
    (r"^  User: .*$", "  User: etl"),
    (r"^  Python version: .*$", "  Python version: 3.11"),
    (r"^  Config MD5: .*$", "  Config MD5: 00000000000000000000000000000000"),
    (r"^\[\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4}\]$", "[Mon Mar  2 09:00:00 2026]"),
    (r"(\.snakemake/log/)\S+\.snakemake\.log", r"\1RUN.snakemake.log"),
    (r"^Elapsed time: .*$", "Elapsed time: 0:00:01"),
    # printed by the scheduler thread while a job's end is logged by another: its place differs between runs
    (r"^Select jobs to execute\.\.\.\n", ""),
    (r"\[pid \d+\]", "[pid 4242]"),
    (r"salt=\d+", "salt=123456789"),
    (r"host=[\w.-]+", "host=etl-1"),
    (r"pid=\d+\)", "pid=4242)"),
    (r"\d+(\.\d+)? ?(ms|s)\b(?= *\))", "0.01s"),
)


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), *_SCRUB)


# ---------------------------------------------------------------- the generated data project

_AREAS = ["billing", "refunds", "ledger", "orders", "shipping", "invoice"]
_MONTHS = ["2024_01", "2024_02", "2024_03", "2024_04", "2024_05", "2024_06"]

_EXTRACT = '''
"""Extract one month of payment events of one business area into a CSV file."""
import csv
import random
import sys

#: (area, month) pairs whose upstream export holds a row without an amount
POISONED = {poisoned}

area, month, out = sys.argv[1:4]
rnd = random.Random(area + "-" + month)
counts = {{"ok": 0, "failed": 0, "error": 0, "retry": 0}}
with open(out, "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["payment_id", "area", "month", "status", "amount_cents", "error_code"])
    for i in range(160):
        status = rnd.choice(["ok", "ok", "ok", "failed", "error", "retry"])
        counts[status] += 1
        code = "" if status == "ok" else rnd.choice(["card_declined", "timeout", "insufficient_funds", "gateway_error"])
        amount = "N/A" if (area, month) in POISONED and i == 97 else str(rnd.randint(100, 99999))
        w.writerow([f"{{area[:3]}}-{{month}}-{{i:04d}}", area, month, status, amount, code])
print(f"extract {{area}} {{month}}: 160 rows", ", ".join(f"{{k}}={{v}}" for k, v in counts.items()))
'''

_CLEAN = '''
"""Validate amounts and flag failed payments for the retry queue."""
import csv
import sys

src, out = sys.argv[1:3]
kept = flagged = 0
with open(src, newline="") as f, open(out, "w", newline="") as g:
    rows = csv.DictReader(f)
    w = csv.writer(g)
    w.writerow(["payment_id", "area", "month", "status", "amount_cents", "error_code", "retry"])
    for row in rows:
        cents = int(row["amount_cents"])
        retry = row["status"] in ("failed", "retry")
        flagged += retry
        kept += 1
        w.writerow([row["payment_id"], row["area"], row["month"], row["status"], cents, row["error_code"], int(retry)])
        if kept % 40 == 0:
            print(f"clean {{src}}: {{kept}} rows checked, {{flagged}} failed payments flagged for retry")
print(f"clean {{src}}: kept {{kept}} rows, {{flagged}} flagged for retry, 0 errors")
'''

_COLLECT = '''
"""Collect rows of the given statuses from cleaned extracts into one table."""
import csv
import sys

statuses, out, *inputs = sys.argv[1:]
wanted = set(statuses.split(","))
n = 0
with open(out, "w", newline="") as g:
    w = csv.writer(g)
    w.writerow(["payment_id", "area", "month", "status", "amount_cents", "error_code", "retry"])
    for src in inputs:
        with open(src, newline="") as f:
            for row in csv.reader(f):
                if row[3] in wanted:
                    w.writerow(row)
                    n += 1
        print(f"collect {{statuses}}: {{src}} read")
print(f"collect {{statuses}}: {{n}} rows -> {{out}}")
'''

_REPORT = '''
"""Write the exceptions report from the failed payments, retry queue and error events tables."""
import csv
import sys

out, *inputs = sys.argv[1:]
lines = ["# Exceptions report", ""]
for src in inputs:
    with open(src, newline="") as f:
        rows = list(csv.reader(f))[1:]
    lines.append(f"- {{src}}: {{len(rows)}} rows")
    print(f"report: {{src}} has {{len(rows)}} rows")
open(out, "w").write("\\n".join(lines) + "\\n")
print(f"report: wrote {{out}} ({{len(inputs)}} tables)")
'''


def _scripts(root: Path, poisoned: tuple[tuple[str, str], ...] = ()) -> None:
    write(
        root,
        {
            "scripts/extract.py": _EXTRACT.format(poisoned=set(poisoned) or "set()"),
            "scripts/clean_rows.py": _CLEAN.format(),
            "scripts/collect.py": _COLLECT.format(),
            "scripts/report.py": _REPORT.format(),
        },
    )


# ---------------------------------------------------------------- snakemake

_SNAKEFILE = """
AREAS = {areas}
MONTHS = {months}

#: how long each month's failed payments wait before they are retried, and how many attempts they get
RETRY_POLICY = {policy}

wildcard_constraints:
    area="[a-z]+",
    month=r"\\d{{4}}_\\d\\d",


rule all:
    input:
        "reports/exceptions_report.md",


rule failed_payments_all:
    input:
        expand("data/failed_payments/{{month}}.csv", month=MONTHS),


rule extract:
    output:
        "data/raw/{{area}}_{{month}}.csv",
    log:
        "logs/extract/{{area}}_{{month}}.log",
    shell:
        "python scripts/extract.py {{wildcards.area}} {{wildcards.month}} {{output}} > {{log}} 2>&1"


rule clean_rows:
    input:
        "data/raw/{{area}}_{{month}}.csv",
    output:
        "data/clean/{{area}}_{{month}}.csv",
    log:
        "logs/clean_rows/{{area}}_{{month}}.log",
    shell:
        "python scripts/clean_rows.py {{input}} {{output}} > {{log}} 2>&1"


rule failed_payments:
    input:
        expand("data/clean/{{area}}_{{{{month}}}}.csv", area=AREAS),
    output:
        "data/failed_payments/{{month}}.csv",
    log:
        "logs/failed_payments/{{month}}.log",
    shell:
        "python scripts/collect.py failed {{output}} {{input}} > {{log}} 2>&1"


rule retry_queue:
    input:
        expand("data/clean/{{area}}_{{{{month}}}}.csv", area=AREAS),
    output:
        "data/retry_queue/{{month}}.csv",
    run:
        import csv

        rows = []
        for src in input:
            with open(src, newline="") as f:
                rows += [row for row in csv.DictReader(f) if row["retry"] == "1"]
        policy = RETRY_POLICY[wildcards.month]
        with open(output[0], "w", newline="") as g:
            w = csv.writer(g)
            w.writerow(["payment_id", "area", "status", "error_code", "retry_after_hours", "max_attempts"])
            for row in rows:
                w.writerow([row["payment_id"], row["area"], row["status"], row["error_code"], *policy])
        print(f"retry_queue {{wildcards.month}}: {{len(rows)}} payments queued for retry")


rule error_events:
    input:
        expand("data/clean/{{{{area}}}}_{{month}}.csv", month=MONTHS),
    output:
        "data/error_events/{{area}}.csv",
    log:
        "logs/error_events/{{area}}.log",
    shell:
        "python scripts/collect.py error {{output}} {{input}} > {{log}} 2>&1"


rule exceptions_report:
    input:
        {extra}expand("data/failed_payments/{{month}}.csv", month=MONTHS),
        expand("data/retry_queue/{{month}}.csv", month=MONTHS),
        expand("data/error_events/{{area}}.csv", area=AREAS),
    output:
        "reports/exceptions_report.md",
    log:
        "logs/exceptions_report.log",
    shell:
        "python scripts/report.py {{output}} {{input}} > {{log}} 2>&1"
"""


def _snake_project(
    root: Path,
    *,
    areas: list[str] = _AREAS,
    poisoned: tuple[tuple[str, str], ...] = (),
    skip_policy: str = "",
    extra_input: str = "",
) -> str:
    """The data project with its Snakefile; the environment prefix that runs snakemake on it."""
    _scripts(root, poisoned)
    policy = {m: (6 * (i + 1), 3 + i % 2) for i, m in enumerate(_MONTHS) if m != skip_policy}
    extra = f'"{extra_input}",\n        ' if extra_input else ""
    write(root, {"Snakefile": _SNAKEFILE.format(areas=areas, months=_MONTHS, policy=policy, extra=extra)})
    return _env(root)


#: Where the snakemake scenarios run: Snakemake picks among the jobs it may start in an order that follows hashes of
#: their paths and addresses, so the project's folder has the same name on every run (and ``setarch -R`` fixes the
#: addresses).
_SNAKE_DIR = Path("/tmp/u76-snakemake")


def _snakemake(name: str, args: str, **project: object) -> bytes:
    """``snakemake ARGS`` (each of ``args``' runs, joined by ``&&``) on the data project made in a fixed folder."""
    work = _SNAKE_DIR / name
    shutil.rmtree(work, ignore_errors=True)
    work.mkdir(parents=True)
    try:
        env = _snake_project(work, **project)  # type: ignore[arg-type]
        cmd = " && ".join(f"{env} setarch -R snakemake {a}" for a in args.split(" && "))
        return _settle(sh(cmd, work), work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


@case(
    "u76_snakemake_show_failed_logs",
    "snakemake -c1 -p --show-failed-logs (92 jobs)",
    clean=False,
    group=GROUP,
    decisive=[
        "Error in rule clean_rows:",
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "log: logs/clean_rows/invoice_2024_03.log (check log file(s) for error details)",
        "Exiting because a job execution failed.",
    ],
)
def _snakemake_show_failed_logs(root: Path) -> bytes:
    args = "-c1 -p --scheduler greedy --show-failed-logs"
    return _snakemake("show-failed-logs", args, poisoned=(("invoice", "2024_03"),))


@case(
    "u76_snakemake_keep_going_run_block",
    "snakemake -c1 -p --keep-going (92 jobs, a run: block raises)",
    clean=False,
    group=GROUP,
    decisive=[
        "Error in rule retry_queue:",
        'KeyError in file "/tmp/work/Snakefile", line',
        "'2024_04'",
        "89 of 92 steps (97%) done",
    ],
)
def _snakemake_keep_going(root: Path) -> bytes:
    return _snakemake("keep-going", "-c1 -p --scheduler greedy --keep-going", skip_policy="2024_04")


@case(
    "u76_snakemake_missing_input_after_target",
    "snakemake -c1 -p failed_payments_all && snakemake -c1 -p",
    clean=False,
    group=GROUP,
    decisive=[
        "MissingInputException in rule exceptions_report in file",
        "Missing input files for rule exceptions_report:",
        "config/exception_codes.tsv",
    ],
)
def _snakemake_missing_input(root: Path) -> bytes:
    args = "-c1 -p --scheduler greedy failed_payments_all && -c1 -p --scheduler greedy"
    return _snakemake("missing-input", args, extra_input="config/exception_codes.tsv")


@case(
    "u76_snakemake_dry_run_clean",
    "snakemake -n -p (118 jobs, dry run)",
    clean=True,
    group=GROUP,
    decisive=["This was a dry-run (flag -n). The order of jobs does not reflect the order of execution."],
)
def _snakemake_dry_run(root: Path) -> bytes:
    return _snakemake("dry-run", "-n -p", areas=[*_AREAS, "coupons", "webhooks"])


@case(
    "u76_snakemake_clean_run",
    "snakemake -c1 -p (92 jobs)",
    clean=True,
    group=GROUP,
    decisive=["92 of 92 steps (100%) done"],
)
def _snakemake_clean(root: Path) -> bytes:
    return _snakemake("clean", "-c1 -p --scheduler greedy")


# ---------------------------------------------------------------- doit

_DODO = '''
"""doit tasks of the payments data project."""

AREAS = {areas}
MONTHS = {months}

DOIT_CONFIG = {{"dep_file": ".doit.db", "backend": "json"}}


def task_extract():
    """Extract payment events per business area and month."""
    for a in AREAS:
        for m in MONTHS:
            yield {{
                "name": f"{{a}}_{{m}}",
                "actions": [f"mkdir -p data/raw && python scripts/extract.py {{a}} {{m}} data/raw/{{a}}_{{m}}.csv"],
                "file_dep": ["scripts/extract.py"],
                "targets": [f"data/raw/{{a}}_{{m}}.csv"],
            }}


def task_clean_rows():
    """Validate amounts and flag failed payments for retry."""
    for a in AREAS:
        for m in MONTHS:
            yield {{
                "name": f"{{a}}_{{m}}",
                "actions": [
                    "mkdir -p data/clean",
                    f"python scripts/clean_rows.py data/raw/{{a}}_{{m}}.csv data/clean/{{a}}_{{m}}.csv",
                ],
                "file_dep": [f"data/raw/{{a}}_{{m}}.csv", "scripts/clean_rows.py"],
                "targets": [f"data/clean/{{a}}_{{m}}.csv"],
            }}


def task_failed_payments():
    """Collect the failed payments of each month."""
    for m in MONTHS:
        deps = [f"data/clean/{{a}}_{{m}}.csv" for a in AREAS]
        yield {{
            "name": m,
            "actions": [
                "mkdir -p data/failed_payments",
                f"python scripts/collect.py failed data/failed_payments/{{m}}.csv " + " ".join(deps),
            ],
            "file_dep": deps,
            "targets": [f"data/failed_payments/{{m}}.csv"],
        }}


def task_retry_queue():
    """Queue the failed and retried payments of each month for another attempt."""
    for m in MONTHS:
        deps = [f"data/clean/{{a}}_{{m}}.csv" for a in AREAS]
        yield {{
            "name": m,
            "actions": [
                "mkdir -p data/retry_queue",
                f"python scripts/collect.py failed,retry data/retry_queue/{{m}}.csv " + " ".join(deps),
            ],
            "file_dep": deps,
            "targets": [f"data/retry_queue/{{m}}.csv"],
        }}


def task_error_events():
    """Collect the error events of each business area."""
    for a in AREAS:
        deps = [f"data/clean/{{a}}_{{m}}.csv" for m in MONTHS]
        yield {{
            "name": a,
            "actions": [
                "mkdir -p data/error_events",
                f"python scripts/collect.py error data/error_events/{{a}}.csv " + " ".join(deps),
            ],
            "file_dep": deps,
            "targets": [f"data/error_events/{{a}}.csv"],
        }}


def task_exceptions_report():
    """Write the exceptions report from the failed payments, retry queue and error events."""
    deps = [f"data/failed_payments/{{m}}.csv" for m in MONTHS] + [f"data/retry_queue/{{m}}.csv" for m in MONTHS]
    deps += [f"data/error_events/{{a}}.csv" for a in AREAS]
    return {{
        "actions": ["mkdir -p reports && python scripts/report.py reports/exceptions_report.md " + " ".join(deps)],
        "file_dep": deps,
        "targets": ["reports/exceptions_report.md"],
    }}
'''


def _doit_project(root: Path, poisoned: tuple[tuple[str, str], ...] = ()) -> str:
    _scripts(root, poisoned)
    write(root, {"dodo.py": _DODO.format(areas=_AREAS, months=_MONTHS)})
    return _env(root)


@case(
    "u76_doit_continue_one_action_fails",
    "doit -v 2 --continue (91 tasks)",
    clean=False,
    group=GROUP,
    decisive=[
        "TaskFailed - taskid:clean_rows:refunds_2024_05",
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "returned 1",
    ],
)
def _doit_fail(root: Path) -> bytes:
    env = _doit_project(root, poisoned=(("refunds", "2024_05"),))
    return _settle(sh(f"{env} doit -v 2 --continue", root), root)


@case(
    "u76_doit_run_and_list_clean",
    "doit -v 2 && doit list --all --status",
    clean=True,
    group=GROUP,
    decisive=["report: wrote reports/exceptions_report.md (18 tables)", "U exceptions_report"],
)
def _doit_clean(root: Path) -> bytes:
    env = _doit_project(root)
    return _settle(sh(f"{env} doit -v 2 && {env} doit list --all --status", root), root)


# ---------------------------------------------------------------- luigi

_PIPELINE = '''
"""luigi tasks of the payments data project."""
import csv
import random

import luigi

AREAS = {areas}
MONTHS = {months}
#: (area, month) pairs whose upstream export holds a row without an amount
POISONED = {poisoned}


def _rows(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _write(target, header, rows):
    with target.open("w") as f:
        w = csv.writer(f)
        w.writerow(header)
        w.writerows(rows)


class ChargebackFeed(luigi.ExternalTask):
    """The chargeback feed the card processor drops each month."""

    month = luigi.Parameter()

    def output(self):
        return luigi.LocalTarget(f"feeds/chargebacks_{{self.month}}.csv")


class ExtractPayments(luigi.Task):
    area = luigi.Parameter()
    month = luigi.Parameter()

    def output(self):
        return luigi.LocalTarget(f"data/raw/{{self.area}}_{{self.month}}.csv")

    def run(self):
        rnd = random.Random(self.area + "-" + self.month)
        rows = []
        for i in range(160):
            status = rnd.choice(["ok", "ok", "ok", "failed", "error", "retry"])
            amount = "N/A" if (self.area, self.month) in POISONED and i == 97 else str(rnd.randint(100, 99999))
            rows.append([f"{{self.area[:3]}}-{{self.month}}-{{i:04d}}", status, amount])
        _write(self.output(), ["payment_id", "status", "amount_cents"], rows)


class CleanRows(luigi.Task):
    area = luigi.Parameter()
    month = luigi.Parameter()

    def requires(self):
        return ExtractPayments(self.area, self.month)

    def output(self):
        return luigi.LocalTarget(f"data/clean/{{self.area}}_{{self.month}}.csv")

    def run(self):
        rows = [[r["payment_id"], r["status"], int(r["amount_cents"])] for r in _rows(self.input().path)]
        _write(self.output(), ["payment_id", "status", "amount_cents"], rows)


class FailedPayments(luigi.Task):
    month = luigi.Parameter()

    def requires(self):
        return [CleanRows(a, self.month) for a in AREAS]

    def output(self):
        return luigi.LocalTarget(f"data/failed_payments/{{self.month}}.csv")

    def run(self):
        rows = [list(r.values()) for t in self.input() for r in _rows(t.path) if r["status"] == "failed"]
        _write(self.output(), ["payment_id", "status", "amount_cents"], rows)


class RetryQueue(luigi.Task):
    month = luigi.Parameter()

    def requires(self):
        return {{"failed": FailedPayments(self.month), "chargebacks": ChargebackFeed(self.month)}}

    def output(self):
        return luigi.LocalTarget(f"data/retry_queue/{{self.month}}.csv")

    def run(self):
        disputed = {{r["payment_id"] for r in _rows(self.input()["chargebacks"].path)}}
        rows = [list(r.values()) for r in _rows(self.input()["failed"].path) if r["payment_id"] not in disputed]
        _write(self.output(), ["payment_id", "status", "amount_cents"], rows)


class ErrorEvents(luigi.Task):
    area = luigi.Parameter()

    def requires(self):
        return [CleanRows(self.area, m) for m in MONTHS]

    def output(self):
        return luigi.LocalTarget(f"data/error_events/{{self.area}}.csv")

    def run(self):
        rows = [list(r.values()) for t in self.input() for r in _rows(t.path) if r["status"] == "error"]
        _write(self.output(), ["payment_id", "status", "amount_cents"], rows)


class ExceptionsReport(luigi.Task):
    def requires(self):
        return (
            [FailedPayments(m) for m in MONTHS] + [RetryQueue(m) for m in MONTHS] + [ErrorEvents(a) for a in AREAS]
        )

    def output(self):
        return luigi.LocalTarget("reports/exceptions_report.md")

    def run(self):
        with self.output().open("w") as f:
            f.write("# Exceptions report\\n\\n")
            for t in self.input():
                f.write(f"- {{t.path}}: {{len(_rows(t.path))}} rows\\n")
'''


def _luigi(root: Path, *, poisoned: tuple[tuple[str, str], ...] = (), feeds: list[str] = _MONTHS) -> bytes:
    write(root, {"pipeline.py": _PIPELINE.format(areas=_AREAS, months=_MONTHS, poisoned=set(poisoned) or "set()")})
    for m in feeds:
        write(root, {f"feeds/chargebacks_{m}.csv": "payment_id,reason\nbil-{m}-0003,fraudulent\n".replace("{m}", m)})
    env = _env(root)
    cmd = f"{env} PYTHONPATH=. luigi --module pipeline ExceptionsReport --local-scheduler --workers 1"
    return _settle(sh(cmd, root), root)


@case(
    "u76_luigi_one_task_raises",
    "luigi --local-scheduler (97 tasks, one raises)",
    clean=False,
    group=GROUP,
    decisive=[
        "failed    CleanRows(area=orders, month=2024_03)",
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "This progress looks :( because there were failed tasks",
    ],
)
def _luigi_fail(root: Path) -> bytes:
    return _luigi(root, poisoned=(("orders", "2024_03"),))


@case(
    "u76_luigi_missing_external_feed",
    "luigi --local-scheduler (a chargeback feed file is missing)",
    clean=False,
    group=GROUP,
    decisive=[
        "- 1 ChargebackFeed(month=2024_05)",
        "This progress looks :| because there were missing external dependencies",
    ],
)
def _luigi_missing(root: Path) -> bytes:
    return _luigi(root, feeds=[m for m in _MONTHS if m != "2024_05"])


@case(
    "u76_luigi_clean",
    "luigi --local-scheduler (97 tasks)",
    clean=True,
    group=GROUP,
    decisive=["This progress looks :) because there were no failed tasks or missing dependencies"],
)
def _luigi_clean(root: Path) -> bytes:
    return _luigi(root)


# ---------------------------------------------------------------- invoke

_TASKS = '''
"""invoke tasks of the payments data project: extract, clean, tables, report."""
from invoke import task

AREAS = {areas}
MONTHS = {months}


@task
def extract(c):
    """Extract payment events of every business area and month."""
    c.run("mkdir -p data/raw data/clean data/failed_payments data/retry_queue data/error_events reports")
    for a in AREAS:
        for m in MONTHS:
            c.run(f"python scripts/extract.py {{a}} {{m}} data/raw/{{a}}_{{m}}.csv")


@task(pre=[extract])
def clean(c):
    """Validate amounts and flag failed payments for retry."""
    for a in AREAS:
        for m in MONTHS:
            c.run(f"python scripts/clean_rows.py data/raw/{{a}}_{{m}}.csv data/clean/{{a}}_{{m}}.csv 2>&1")


@task(pre=[clean])
def tables(c):
    """Build the failed_payments, retry_queue and error_events tables."""
    for m in MONTHS:
        inputs = " ".join(f"data/clean/{{a}}_{{m}}.csv" for a in AREAS)
        c.run(f"python scripts/collect.py failed data/failed_payments/{{m}}.csv {{inputs}}")
        c.run(f"python scripts/collect.py failed,retry data/retry_queue/{{m}}.csv {{inputs}}")
    for a in AREAS:
        inputs = " ".join(f"data/clean/{{a}}_{{m}}.csv" for m in MONTHS)
        c.run(f"python scripts/collect.py error data/error_events/{{a}}.csv {{inputs}}")


@task(pre=[tables])
def report(c):
    """Write the exceptions report."""
    c.run("python scripts/report.py reports/exceptions_report.md data/failed_payments/*.csv data/retry_queue/*.csv")
'''


@case(
    "u76_invoke_report_bad_exit",
    "invoke report (pre-tasks extract, clean, tables)",
    clean=False,
    group=GROUP,
    decisive=[
        "+ python scripts/clean_rows.py data/raw/shipping_2024_02.csv data/clean/shipping_2024_02.csv 2>&1",
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "[exit status 1]",
    ],
)
def _invoke_fail(root: Path) -> bytes:
    _scripts(root, (("shipping", "2024_02"),))
    write(
        root,
        {
            "tasks.py": _TASKS.format(areas=_AREAS, months=_MONTHS),
            "invoke.yaml": 'run:\n  echo: true\n  echo_format: "+ {command}"\n',
        },
    )
    return _settle(sh(f"{_env(root)} invoke report", root), root)
