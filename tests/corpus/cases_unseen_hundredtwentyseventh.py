"""Held-out outputs (group ``unseen-127``): a hundred-and-twenty-seventh batch, Python profiling and tracing as an agent
reads it on a generated payments service, ``payflow``, of 40 stage modules named after business words
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions_inbox``, ``refunds``, ``chargebacks`` ...), each
with eight functions (320 functions named ``validate_refunds``, ``lookup_chargebacks_error_code``,
``schedule_retry_queue_retry`` ...), all offline with the standard library of the Python that runs the corpus.

Failing runs: ``python -m cProfile -s stdname`` over a settlement batch that raises ``KeyError`` in the chargebacks
stage half-way through (the profile is still printed, the traceback comes last), a profile gate that prints its call
budgets, one of them blown by a retry storm, above the full ``pstats`` table, ``python -X importtime`` of the plugin
loader where one of 48 plugins fails to import in the middle of the import lines, a ``tracemalloc`` growth check that
reports a suspected leak in the retry queue but exits 0 (only its own words say so), a ``faulthandler`` watchdog
(``dump_traceback_later``) that dumps every thread of a deadlocked settlement and exits 1, and a ``timeit``
benchmark gate where one function regresses past its threshold against the baseline copy of the package. Clean runs
full of those business words: a ``pstats`` report with callers of every stage, ``python -X importtime`` with a
``DeprecationWarning``, ``python -m trace --count --summary --missing`` over the batch, and the ``timeit`` gate with
every benchmark within its threshold. Labels were written with each scenario, before the engine saw the output.
Needs only Python 3.11 (``cProfile``, ``pstats``, ``trace``, ``tracemalloc``, ``faulthandler``, ``timeit``);
offline, every project generated in the scenario's folder.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, case, scrub, sh, substitute, write

GROUP = "unseen-127"

#: The 40 stage modules of the service, in pipeline order.
_MODULES = [
    "intake", "fraud_score", "auth_holds", "billing", "invoices", "tax", "currency", "fees", "coupons", "pricing",
    "orders", "cart", "failed_payments", "error_codes", "retry_queue", "retry_policy", "exceptions_inbox",
    "refunds", "partial_refunds", "chargebacks", "disputes", "settlements", "payouts", "ledger", "statements",
    "reconcile", "dead_letters", "webhooks", "failed_webhooks", "alerts", "audit", "export", "shipping", "catalog",
    "subscriptions", "dunning", "write_offs", "collections", "sanctions", "reporting",
]  # fmt: skip

#: Plain environment of every run: no bytecode files, a fixed hash seed, unbuffered so that stdout and stderr
#: arrive in order.
_ENV = "PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0 PYTHONUNBUFFERED=1"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, timings, thread ids and sizes of time."""
    return substitute(
        scrub(out, root),
        (r"^( *\d+(?:/\d+)?)(?: +\d+\.\d{3}){4}", r"\1    0.000    0.000    0.000    0.000"),
        (r"(function calls(?: \(\d+ primitive calls\))?) in \d+\.\d+ seconds", r"\1 in 0.100 seconds"),
        (r"(<- +\d+(?:/\d+)?) +\d+\.\d{3} +\d+\.\d{3}", r"\1    0.000    0.000"),
        (r"^import time: +\d+ \| +\d+ \|", "import time:       100 |        100 |"),
        (r"0x[0-9a-f]{12,16}", "0x00007f0000000000"),
        (r"\d+(?:\.\d+)? (?:nsec|usec|msec|sec) per loop", "1.00 usec per loop"),
        (r"^\d+ loops, best of", "10000 loops, best of"),
        (r"\d+\.\d+ usec/call", "1.000 usec/call"),
        (r"elapsed \d+\.\d+s", "elapsed 0.10s"),
    )


def _module(i: int, name: str, *, extra: str = "", strict_codes: bool = False, retries: int = 0) -> str:
    """``payflow/NAME.py``: a table of error codes and eight functions of the stage (``strict_codes`` has every
    ``R`` code and looks codes up without a default; ``retries`` schedules that many retries per failed payment)."""
    span = range(60) if strict_codes else range(i * 7, i * 7 + 6)
    codes = ", ".join(f'"R{k % 60:02d}": "E{i:02d}{k % 60:02d}"' for k in span)
    lookup = "ERROR_CODES[code]" if strict_codes else 'ERROR_CODES.get(code, "E0000")'
    retry_loop = f"for n in range({retries}):\n            " if retries else ""
    return f'''\
"""payflow.{name}: the {name.replace("_", " ")} stage of the payments pipeline."""

from payflow import common

STAGE = "{name}"
RETRY_LIMIT = {i % 5 + 2}
ERROR_CODES = {{{codes}}}


def validate_{name}(payment):
    if payment["amount"] < 0:
        raise ValueError(f"{name}: negative amount on {{payment['id']}}")
    return payment["amount"] > 0


def normalize_{name}_amount(payment):
    return round(payment["amount"] * {1 + i / 1000:.3f}, 2)


def compute_{name}_fee(amount):
    return common.fee(amount, {0.001 * (i % 9 + 1):.3f})


def lookup_{name}_error_code(code):
    return {lookup}


def schedule_{name}_retry(payment, attempt, queue):
    if attempt > RETRY_LIMIT:
        return None
    delay = common.backoff(attempt)
    queue.append((payment["id"], STAGE, delay))
    return delay


def record_{name}_exception(payment, code, journal):
    journal.append((payment["id"], STAGE, code))


def summarize_{name}(journal):
    return sum(1 for row in journal if row[1] == STAGE)


def process(payment, journal, queue):
    if not validate_{name}(payment):
        return 0.0
    amount = normalize_{name}_amount(payment)
    fee = compute_{name}_fee(amount)
    if payment["status"] == "failed":
        code = lookup_{name}_error_code(payment["code"])
        record_{name}_exception(payment, code, journal)
        {retry_loop}schedule_{name}_retry(payment, payment["attempt"], queue)
    return amount - fee
{extra}'''


_COMMON = '''\
"""payflow.common: helpers shared by every stage."""


def fee(amount, rate):
    return round(amount * rate + 0.30, 2)


def backoff(attempt):
    return min(3600, 30 * 2 ** max(0, attempt - 1))
'''

_PIPELINE = """\
\"\"\"payflow.pipeline: routes each payment through its stages.\"\"\"

from payflow import {imports}

STAGES = [{stages}]
__version__ = "3.1.0"


def make_payments(count):
    payments = []
    for k in range(1, count + 1):
        failed = k % 11 == 4 or k % 17 == 9
        payments.append(
            {{
                "id": f"PAY-{{k:05d}}",
                "amount": round(10 + (k * 37) % 990 + k % 7 / 10, 2),
                "status": "failed" if failed else "captured",
                "code": f"R{{(k * 13) % 60:02d}}" if k < 1150 else f"G{{(k * 7) % 40:02d}}",
                "attempt": 1 + k % 4,
            }}
        )
    return payments


def route(payment):
    k = int(payment["id"][4:])
    return [s for n, s in enumerate(STAGES) if n < 4 or (k + n) % 3 == 0]


def run(payments, log=print, every=100):
    journal, queue, net, failed = [], [], 0.0, 0
    for k, payment in enumerate(payments, 1):
        stages = route(payment)
        for stage in stages:
            net += stage.process(payment, journal, queue)
        failed += payment["status"] == "failed"
        if k % every == 0:
            log(
                f"{{payment['id']}} {{payment['status']:<8}} code={{payment['code']}} via {{len(stages):>2}} stages; "
                f"{{failed}} failed payments so far, {{len(queue)}} retries queued"
            )
    return journal, queue, net
"""


def _package(root: Path, pkg: str = "payflow", **special: dict[str, object]) -> None:
    """The package ``pkg`` (``payflow`` or a copy under another name) in ``root``; ``special`` maps a module to the
    keyword arguments of ``_module``."""
    files = {f"{m}.py": _module(i, m, **special.get(m, {})) for i, m in enumerate(_MODULES)}
    files["__init__.py"] = '"""payflow: a payments service."""\n'
    files["common.py"] = _COMMON
    files["pipeline.py"] = _PIPELINE.format(imports=", ".join(_MODULES), stages=", ".join(_MODULES))
    renamed = {f"{pkg}/{rel}": text.replace("from payflow import", f"from {pkg} import") for rel, text in files.items()}
    write(root, renamed)


_RUN_BATCH = """\
import sys

from payflow import pipeline

count = int(sys.argv[1]) if len(sys.argv) > 1 else 1500
every = int(sys.argv[2]) if len(sys.argv) > 2 else 100
payments = pipeline.make_payments(count)
print(f"payflow {pipeline.__version__} settlement batch: {count} payments, {len(pipeline.STAGES)} stages")
journal, queue, net = pipeline.run(payments, every=every)
failed = sum(1 for p in payments if p["status"] == "failed")
print(f"exceptions journal: {len(journal)} rows; retry queue: {len(queue)} entries")
print(f"settlement batch done: {count} payments, {failed} failed payments retried, net {net:,.2f}")
"""


# ---------------------------------------------------------------- cProfile / pstats


@case(
    "u127_cprofile_raise",
    "python -m cProfile",
    clean=False,
    group=GROUP,
    decisive=[
        'File "/tmp/work/payflow/chargebacks.py", line 25, in lookup_chargebacks_error_code',
        "KeyError: 'G27'",
        "[exit status 1]",
    ],
)
def _cprofile_raise(root: Path) -> bytes:
    _package(root, chargebacks={"strict_codes": True})
    write(root, {"run_batch.py": _RUN_BATCH})
    return _settle(sh(f"{_ENV} {PY} -m cProfile -s stdname run_batch.py 2400 1", root), root)


_PROFILE_REPORT = """\
import cProfile
import pstats

from payflow import pipeline

payments = pipeline.make_payments(2400)
profiler = cProfile.Profile()
profiler.enable()
journal, queue, net = pipeline.run(payments, every=200)
profiler.disable()
failed = sum(1 for p in payments if p["status"] == "failed")
print(f"profiled settlement of {len(payments)} payments: {failed} failed payments, "
      f"{len(journal)} exceptions recorded, {len(queue)} retries queued")
stats = pstats.Stats(profiler).strip_dirs().sort_stats("calls", "stdname")
stats.print_stats()
stats.print_callers("process")
print("profile report written for payflow.pipeline.run (sorted by call count, then name)")
"""


@case(
    "u127_pstats_report_clean",
    "python cProfile/pstats",
    clean=True,
    group=GROUP,
    decisive=[
        "profiled settlement of 2400 payments: 346 failed payments",
        "profile report written for payflow.pipeline.run (sorted by call count, then name)",
    ],
)
def _pstats_clean(root: Path) -> bytes:
    _package(root)
    write(root, {"profile_report.py": _PROFILE_REPORT})
    return _settle(sh(f"{_ENV} {PY} profile_report.py", root), root)


_PROFILE_GATE = """\
import cProfile
import pstats
import sys

from payflow import pipeline

COUNT = 1800
payments = pipeline.make_payments(COUNT)
failed = sum(1 for p in payments if p["status"] == "failed")
profiler = cProfile.Profile()
profiler.enable()
pipeline.run(payments, log=lambda line: None)
profiler.disable()
stats = pstats.Stats(profiler)
calls = {(fn[0].rsplit("/", 1)[-1], fn[2]): cc for fn, (cc, nc, tt, ct, callers) in stats.stats.items()}

print(f"profile gate: {COUNT} payments ({failed} failed), call budgets per stage")
exceeded = []
for stage in pipeline.STAGES:
    name = stage.STAGE
    key = (f"{name}.py", f"schedule_{name}_retry")
    budget = failed
    got = calls.get(key, 0)
    verdict = "ok  " if got <= budget else "OVER"
    line = f"  {verdict} {name}.py:schedule_{name}_retry  {got:>6,} calls  (budget {budget:,})"
    if got > budget:
        line += f"  <- {got / max(1, budget):.0f}x the failed payments: retry storm"
        exceeded.append(name)
    print(line)
print()
print("full profile (sorted by call count):")
stats.strip_dirs().sort_stats("calls", "stdname").print_stats()
if exceeded:
    names = ", ".join(exceeded)
    print(f"profile gate FAILED: {len(exceeded)} of {len(pipeline.STAGES)} call budgets exceeded ({names})")
    sys.exit(1)
print("profile gate passed")
"""


@case(
    "u127_pstats_gate_retry_storm",
    "python cProfile/pstats gate",
    clean=False,
    group=GROUP,
    decisive=[
        "OVER retry_queue.py:schedule_retry_queue_retry",
        "profile gate FAILED: 1 of 40 call budgets exceeded (retry_queue)",
        "[exit status 1]",
    ],
)
def _pstats_gate(root: Path) -> bytes:
    _package(root, retry_queue={"retries": 6})
    write(root, {"profile_gate.py": _PROFILE_GATE})
    return _settle(sh(f"{_ENV} {PY} profile_gate.py", root), root)


# ---------------------------------------------------------------- -X importtime

_PLUGINS = [f"payflow.plugins.{m}_plugin" for m in _MODULES[:24]] + [
    f"payflow.plugins.{m}_export" for m in _MODULES[16:40]
]

_LOADER = """\
import importlib
import sys
import traceback

import payflow.pipeline

PLUGINS = {plugins!r}

loaded, broken = [], []
for name in PLUGINS:
    try:
        module = importlib.import_module(name)
    except Exception as exc:
        print(f"plugin {{name}} failed to import:", file=sys.stderr)
        traceback.print_exc()
        broken.append(name)
    else:
        loaded.append(module)
        print(f"plugin {{name}} registered ({{module.HOOK}})")
        for hook in module.HOOKS:
            print(f"  hook {{hook:<34}} -> {{name}}.{{module.HOOK}}")
print(f"plugins: {{len(loaded)}} loaded, {{len(broken)}} failed to import")
sys.exit(1 if broken else 0)
"""


#: What the plugins import from the standard library, a few each.
_STDLIB = [
    "csv", "hashlib", "hmac", "uuid", "xml.etree.ElementTree", "email.message", "http.client", "sqlite3",
    "urllib.parse", "zoneinfo", "statistics", "fractions", "gzip", "zipfile", "tempfile", "logging.handlers",
    "smtplib", "secrets", "base64", "difflib", "textwrap", "pprint", "dataclasses", "enum",
]  # fmt: skip

_EVENTS = ["received", "validated", "failed", "retried", "refunded", "disputed", "settled", "exported"]


def _plugin(name: str, stage: str, k: int, extra: str = "") -> str:
    imports = "".join(f"import {_STDLIB[(k * 5 + j) % len(_STDLIB)]}\n" for j in range(3))
    hooks = ", ".join(f'"on_{stage}_{event}"' for event in _EVENTS)
    return f'''\
"""{name}: hooks of the {stage} stage."""
import decimal
import json
{imports}
from payflow import {stage}
{extra}
HOOK = "on_{stage}_processed"
HOOKS = [{hooks}]


def on_{stage}_processed(payment):
    return json.dumps({{"id": payment["id"], "stage": {stage}.STAGE, "amount": str(decimal.Decimal("1.00"))}})
'''


def _plugins(root: Path, broken: str = "", deprecated: str = "") -> None:
    files = {"payflow/plugins/__init__.py": ""}
    for name in _PLUGINS:
        stage = name.rsplit(".", 1)[1].rsplit("_", 1)[0]
        extra = ""
        if name == broken:
            extra = "from payflow.retry_policy import MAX_BACKOFF_SECONDS\n"
        if name == deprecated:
            extra = (
                "import warnings\n\nwarnings.warn('payflow.plugins.refunds_export: the CSV refunds export is"
                " deprecated, use the ledger export', DeprecationWarning, stacklevel=2)\n"
            )
        files[f"payflow/plugins/{name.rsplit('.', 1)[1]}.py"] = _plugin(name, stage, len(files), extra)
    write(root, files)


@case(
    "u127_importtime_plugin_error",
    "python -X importtime",
    clean=False,
    group=GROUP,
    decisive=[
        "ImportError: cannot import name 'MAX_BACKOFF_SECONDS' from 'payflow.retry_policy'",
        "plugin payflow.plugins.settlements_export failed to import:",
        "plugins: 47 loaded, 1 failed to import",
        "[exit status 1]",
    ],
)
def _importtime_error(root: Path) -> bytes:
    _package(root)
    _plugins(root, broken="payflow.plugins.settlements_export")
    write(root, {"load_plugins.py": _LOADER.format(plugins=_PLUGINS)})
    return _settle(sh(f"{_ENV} {PY} -X importtime load_plugins.py", root), root)


@case(
    "u127_importtime_clean",
    "python -X importtime",
    clean=True,
    group=GROUP,
    decisive=["plugins: 48 loaded, 0 failed to import", "plugin payflow.plugins.refunds_export registered"],
)
def _importtime_clean(root: Path) -> bytes:
    _package(root)
    _plugins(root, deprecated="payflow.plugins.refunds_export")
    write(root, {"load_plugins.py": _LOADER.format(plugins=_PLUGINS)})
    return _settle(sh(f"{_ENV} {PY} -W default -X importtime load_plugins.py", root), root)


# ---------------------------------------------------------------- trace


@case(
    "u127_trace_count_clean",
    "python -m trace --count",
    clean=True,
    group=GROUP,
    decisive=["settlement batch done: 1200 payments, 173 failed payments retried", "lines   cov%   module   (path)"],
)
def _trace_count(root: Path) -> bytes:
    _package(root)
    write(root, {"run_batch.py": _RUN_BATCH})
    ignore = f"$({PY} -c 'import sys; print(sys.base_prefix)')"
    cmd = f"{_ENV} {PY} -m trace --count --summary --missing -C coverage --ignore-dir={ignore} run_batch.py 1200 2"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- tracemalloc

_MEMCHECK = """\
import gc
import tracemalloc

from payflow import pipeline, retry_queue

LIMIT = 256 * 1024
tracemalloc.start(1)
payments = pipeline.make_payments(900)
pipeline.run(payments, every=20)
gc.collect()
first = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, "*/payflow/*")])
for round_no in range(1, 6):
    print(f"round {round_no}: settling {len(payments)} payments again")
    journal, queue, net = pipeline.run(payments, every=20)
    retry_queue.park(queue)
    del journal, queue
gc.collect()
second = tracemalloc.take_snapshot().filter_traces([tracemalloc.Filter(True, "*/payflow/*")])

print()
print("[ growth by line over 5 rounds, limit 256.0 KiB ]")
suspects = []
for diff in second.compare_to(first, "lineno"):
    frame = diff.traceback[0]
    where = f"{frame.filename.rsplit('/payflow/', 1)[1]}:{frame.lineno}"
    if diff.size_diff > LIMIT:
        suspects.append(where)
        print(f"  SUSPECTED LEAK payflow/{where}: grew {diff.size_diff / 1024:.1f} KiB ({diff.count_diff:+d} blocks)")
    elif diff.size_diff:
        print(f"  ok payflow/{where}: {diff.size_diff:+d} B ({diff.count_diff:+d} blocks)")
print()
print("[ top 40 allocations after 5 rounds ]")
for stat in second.statistics("lineno")[:40]:
    print(stat)
print()
print(f"memcheck finished: {len(suspects)} suspected leak(s): {', '.join(suspects) or 'none'}")
"""

_RETRY_QUEUE_PENDING = """

#: Retries waiting for the next dispatcher tick.
PENDING = []


def park(queue):
    PENDING.extend({"id": i, "stage": s, "delay": d, "note": f"retry {s} {i}"} for i, s, d in queue)
"""


@case(
    "u127_tracemalloc_leak",
    "python tracemalloc",
    clean=False,
    group=GROUP,
    decisive=["SUSPECTED LEAK payflow/retry_queue.py:61", "memcheck finished: 1 suspected leak(s): retry_queue.py:61"],
)
def _tracemalloc_leak(root: Path) -> bytes:
    _package(root, retry_queue={"extra": _RETRY_QUEUE_PENDING})
    write(root, {"memcheck.py": _MEMCHECK})
    return _settle(sh(f"{_ENV} {PY} memcheck.py", root), root)


# ---------------------------------------------------------------- faulthandler

_SETTLE_WORKERS = """\
import faulthandler
import sys
import threading

from payflow import ledger, partial_refunds, pipeline

faulthandler.dump_traceback_later(3, exit=True)
ledger_lock = threading.Lock()
refunds_lock = threading.Lock()
both_holding = threading.Barrier(2)

payments = pipeline.make_payments(1400)
for payment in payments:
    net = ledger.process(payment, [], [])
    print(f"settled {payment['id']} {payment['status']:<8} net={net:9.2f} code={payment['code']}")


def post_ledger(batch):
    with ledger_lock:
        both_holding.wait()
        with refunds_lock:
            return [ledger.process(p, [], []) for p in batch]


def apply_partial_refunds(batch):
    with refunds_lock:
        both_holding.wait()
        with ledger_lock:
            return [partial_refunds.process(p, [], []) for p in batch]


workers = [
    threading.Thread(target=post_ledger, args=(payments[:700],), name="ledger-poster"),
    threading.Thread(target=apply_partial_refunds, args=(payments[700:],), name="refunds-applier"),
]
for worker in workers:
    worker.start()
print("waiting for ledger-poster and refunds-applier", file=sys.stderr)
for worker in workers:
    worker.join()
print("settlement finished")
"""


@case(
    "u127_faulthandler_deadlock",
    "python faulthandler",
    clean=False,
    group=GROUP,
    decisive=[
        "Timeout (0:00:03)!",
        'File "/tmp/work/settle_workers.py", line 28 in apply_partial_refunds',
        'File "/tmp/work/settle_workers.py", line 21 in post_ledger',
        "[exit status 1]",
    ],
)
def _faulthandler(root: Path) -> bytes:
    _package(root)
    write(root, {"settle_workers.py": _SETTLE_WORKERS})
    return _settle(sh(f"{_ENV} {PY} settle_workers.py", root), root)


# ---------------------------------------------------------------- timeit

_BENCH = """\
import sys
import timeit

THRESHOLD = 3.0
STAGES = {stages!r}
SETUP = (
    "from {{pkg}} import pipeline, common, {{stage}}; "
    "payments = pipeline.make_payments(400); failed = [p for p in payments if p['status'] == 'failed']"
)
CASES = [
    ("process", "for p in payments: {{stage}}.process(p, [], [])"),
    ("validate", "for p in payments: {{stage}}.validate_{{stage}}(p)"),
    ("lookup_error_code", "for p in failed: {{stage}}.lookup_{{stage}}_error_code(p['code'])"),
    ("summarize", "{{stage}}.summarize_{{stage}}([(p['id'], '{{stage}}', p['code']) for p in failed] * 3)"),
]

regressed = []
print(f"benchmark gate: {{len(STAGES) * len(CASES)}} benchmarks against the baseline copy, threshold x{{THRESHOLD}}")
for stage in STAGES:
    for label, stmt in CASES:
        stmt = stmt.format(stage=stage)
        now = min(timeit.repeat(stmt, SETUP.format(stage=stage, pkg="payflow"), number=20, repeat=5))
        base = min(timeit.repeat(stmt, SETUP.format(stage=stage, pkg="payflow_baseline"), number=20, repeat=5))
        now_us, base_us = now / 20 * 1e6, base / 20 * 1e6
        if now > base * THRESHOLD:
            regressed.append(f"{{stage}}.{{label}}")
            verdict = f"REGRESSED past x{{THRESHOLD}} of baseline"
        else:
            verdict = f"ok (within x{{THRESHOLD}})"
        name = f"{{stage}}.{{label}}"
        print(f"  {{name:<40}} {{now_us:.3f}} usec/call  baseline {{base_us:.3f}} usec/call  {{verdict}}")
if regressed:
    print(f"benchmark gate FAILED: {{len(regressed)}} regression(s): {{', '.join(regressed)}}")
    sys.exit(1)
print(f"benchmark gate passed: {{len(STAGES) * len(CASES)}} benchmarks within x{{THRESHOLD}} of baseline")
"""

_SLOW_SUMMARY = """

def summarize_write_offs(journal):
    seen = []
    for row in journal:
        if row[1] == STAGE and all(row != other for other in seen):
            seen.append(row)
    return len(seen)
"""


def _bench(root: Path, *, regress: bool) -> bytes:
    _package(root, "payflow_baseline")
    special = {"write_offs": {"extra": _SLOW_SUMMARY}} if regress else {}
    _package(root, **special)
    write(root, {"bench.py": _BENCH.format(stages=_MODULES)})
    cli = f"{_ENV} {PY} -m timeit -s 'from payflow import common' 'common.backoff(7)'"
    return _settle(sh(f"{cli} && {_ENV} {PY} bench.py", root), root)


@case(
    "u127_timeit_regression",
    "python timeit gate",
    clean=False,
    group=GROUP,
    decisive=["REGRESSED past x3.0 of baseline", "benchmark gate FAILED: 1 regression(s): write_offs.summarize"],
)
def _timeit_regression(root: Path) -> bytes:
    return _bench(root, regress=True)


@case(
    "u127_timeit_clean",
    "python timeit gate",
    clean=True,
    group=GROUP,
    decisive=["benchmark gate passed: 160 benchmarks within x3.0 of baseline"],
)
def _timeit_clean(root: Path) -> bytes:
    return _bench(root, regress=False)
