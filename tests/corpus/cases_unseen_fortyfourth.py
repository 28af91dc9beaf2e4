"""Held-out outputs (group ``unseen-44``): a forty-fourth batch, prefixed and timestamped log streams as CI systems
and log shippers present them: every line of a real tool's output carries a prefix added by a real program, moreutils
``ts``, devscripts' ``annotate-output`` (time and ``O:``/``E:``/``I:``), daemontools' ``tai64n`` with
``tai64nlocal``, runit's ``runsv`` with ``svlogd -tt``, ``docker logs --timestamps``, ``docker-compose logs -t``,
GNU ``parallel --tag --line-buffer``, util-linux ``script`` typescripts, expect's ``unbuffer`` and rsyslog fed by
``logger``. Every timestamp is replaced by a counter-based one (distinct and increasing, line by line), so two runs
give the same bytes.

Failing runs: ``make -k`` of a C project of 48 files with warnings where ``refunds_ledger.c`` does not compile, piped
through ``ts``; ``node --test`` of 20 test files under ``annotate-output`` where one invoice test fails in the middle
of the TAP stream; a ``ledger-sync`` service under ``runsv`` logging through ``svlogd -tt`` that crashes once on an
``sqlite3.IntegrityError``, is restarted and catches up; ``docker logs --timestamps`` of an order importer that fails
on one of 40 CSV files and exits 1; six pytest shards under ``parallel --tag --line-buffer`` where one shipping test
fails; ``cargo test`` recorded by ``script -q`` where one retry test panics among 480; and nightly jobs logged to
rsyslog by ``logger -t`` where the audit export's ``sqlite3`` script hits a missing table. Clean runs named after
errors and failures: ``pytest -v`` of test modules about errors, retries, failed jobs and exceptions piped through
``ts -s``; a ``failed-webhooks-retry`` worker under ``annotate-output`` whose retries (``O:``) and 503 warnings
(``E:``) end with 0 failed (it waits a moment around each warning, so that annotate-output's two readers print the
streams in order); ``go test -v`` of packages ``errors``, ``retry``, ``failedjobs`` through ``tai64n |
tai64nlocal``; ``docker-compose logs -t`` of errors-api, failed-jobs-worker, retry-scheduler and exceptions-mailer
that all finish cleanly; and ``unbuffer pip install -v`` of 12 local packages (``errors-report``, ``failed-jobs``)
through ``ts``, with setuptools' deprecation warnings. Lines that Compose and parallel print from concurrent jobs
are put back in a fixed order (each job's lines kept in their own order). Labels were written with each scenario,
before the engine saw the output. Needs moreutils, devscripts, daemontools, runit, GNU parallel, expect, rsyslog, Go,
sqlite3, the Docker engine with Compose 1.29, Node.js and rustup's stable cargo (Debian ``moreutils``,
``devscripts``, ``daemontools``, ``runit``, ``parallel``, ``expect``, ``rsyslog``, ``golang-go``, ``sqlite3``,
``docker.io``, ``docker-compose``, ``nodejs``).
"""

from __future__ import annotations

import re
import shutil
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from _harness import PIP_ISOLATED, PY, case, scrub, sh, substitute, write

GROUP = "unseen-44"

_BASH = "bash -o pipefail -c"
_START = datetime(2026, 3, 14, 9, 12, 3, 417000, tzinfo=UTC)


def _clock(out: bytes, pattern: str, render: Callable[[datetime, int], str], step_ms: float = 23.7) -> bytes:
    """``out`` with each match of ``pattern`` (a timestamp) replaced, in order, by ``render`` of a counter-based time:
    distinct, increasing, the same on every run."""
    count = 0

    def repl(_: re.Match[bytes]) -> bytes:
        nonlocal count
        when = _START + timedelta(milliseconds=count * step_ms + (count * 7919) % 13 / 13 * step_ms * 0.4)
        count += 1
        return render(when, count).encode()

    return re.sub(pattern.encode(), repl, out, flags=re.M)


def _iso_z(when: datetime, _: int) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def _iso_nano(when: datetime, n: int) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%S.%f") + f"{(n * 37) % 1000:03d}"


def _regroup(out: bytes, key: Callable[[bytes], bytes | None], order: list[bytes]) -> bytes:
    """``out`` with the lines that ``key`` maps to a job put together in the order of ``order``, each job's lines
    in their own order, in place of the first of them (the jobs ran concurrently and their lines race)."""
    lines = out.split(b"\n")
    jobs: dict[bytes, list[bytes]] = {k: [] for k in order}
    rest: list[bytes | None] = []
    first = None
    for line in lines:
        k = key(line)
        if k is None:
            rest.append(line)
            continue
        jobs.setdefault(k, []).append(line)
        if first is None:
            first = len(rest)
            rest.append(None)
    merged = [line for k in jobs for line in jobs[k]]
    done: list[bytes] = []
    for line in rest:
        done.extend(merged if line is None else [line])
    return b"\n".join(done)


# ---------------------------------------------------------------- ts: make -k with gcc, pytest -v

_MODULES = [
    "billing_core", "billing_tax", "orders_queue", "orders_api", "cart_store", "cart_merge", "tax_rates", "tax_zones",
    "session_store", "session_gc", "invoice_pdf", "invoice_totals", "ledger_post", "ledger_close", "shipping_rates",
    "shipping_labels", "catalog_index", "catalog_import", "search_rank", "search_query", "pricing_rules",
    "pricing_cache", "coupons_engine", "coupons_stack", "refunds_ledger", "refunds_flow", "webhooks_out",
    "webhooks_sign", "audit_trail", "audit_export", "export_csv", "export_s3", "auth_tokens", "auth_keys",
    "errors_report", "errors_codes", "retry_policy", "retry_queue", "exceptions_map", "billing_dunning",
    "orders_archive", "cart_expiry", "tax_filing", "invoice_mail", "ledger_fx", "shipping_track", "catalog_media",
    "pricing_ab",
]  # fmt: skip


def _c_module(name: str, i: int, broken: bool) -> str:
    struct = name.split("_")[0]
    member = "amount_cents" if broken else "total"
    return (
        f"/* {name}.c: part of the billing platform. */\n#include <stdio.h>\n#include <string.h>\n"
        f'#include "common.h"\n\n'
        f"struct {struct} {{\n    long total;\n    int count;\n    char code[16];\n}};\n\n"
        f"static int {name}_unused_{i}(int flags, const char *reason)\n{{\n    return 0;\n}}\n\n"
        f"long {name}_sum(const struct {struct} *rows, unsigned n, int limit)\n{{\n    long acc = 0;\n"
        f"    for (int k = 0; k < n; k++) {{\n        if (k == limit) break;\n        acc += rows[k].{member};\n"
        f"    }}\n    return acc;\n}}\n\n"
        f"int {name}_label(char *out, size_t len, const struct {struct} *row)\n{{\n"
        f'    int wrote = snprintf(out, len, "{name}:%ld", row->total);\n'
        f"    if (wrote < len) return wrote;\n    return -1;\n}}\n"
    )


@case(
    "u44_ts_make_gcc_keep_going",
    "make -k | ts",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refunds_ledger.c:22:23: error: 'const struct refunds' has no member named 'amount_cents'",
        "make: *** [Makefile:9: build/refunds_ledger.o] Error 1",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _ts_make(root: Path) -> bytes:
    files = {"src/common.h": "#ifndef COMMON_H\n#define COMMON_H\n#include <stddef.h>\n#endif\n"}
    for i, name in enumerate(_MODULES):
        files[f"src/{name}.c"] = _c_module(name, i, name == "refunds_ledger")
    objs = " ".join(f"build/{n}.o" for n in _MODULES)
    files["Makefile"] = (
        "CC = gcc\nCFLAGS = -Wall -Wextra -O1 -g -Isrc\nOBJS = " + objs + "\n\n"
        "all: build/libbilling.a\n\n"
        "build/%.o: src/%.c src/common.h\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n\n"
        "build/libbilling.a: $(OBJS)\n\tar rcs $@ $^\n"
    )
    write(root, files)
    cmd = f"{_BASH} \"make -k -j1 2>&1 | ts '%Y-%m-%dT%H:%M:%.SZ'\""
    out = scrub(sh(cmd, root, env={"LC_ALL": "C"}), root)
    return _clock(out, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{6}Z", _iso_z, step_ms=41.3)


def _pytest_module(area: str, topics: list[str], n: int, failing: str = "") -> str:
    """A test module of ``n`` tests per topic about ``area``; ``failing`` names a test whose expectation is off."""
    lines = [
        "import pytest\n\n",
        f"AREA = {area!r}\n\n",
        "def backoff(attempt, base=100, cap=3200):\n    return min(cap, base * 2 ** (attempt - 1))\n\n",
        "def surcharge(cents, remote):\n    return cents + (275 if remote else 0)\n\n",
    ]
    for topic in topics:
        lines.append(f"@pytest.mark.parametrize('attempt', range(1, {n + 1}))\n")
        lines.append(f"def test_{topic}(attempt):\n    assert backoff(attempt) <= 3200\n\n")
    if failing:
        lines.append(f"def {failing}():\n    assert surcharge(1000, remote=True) == 1275 - 25\n\n")
    return "".join(lines)


@case(
    "u44_ts_pytest_errors_retry_clean",
    "pytest -v | ts -s",
    clean=True,
    group=GROUP,
    decisive=["792 passed"],
)
def _ts_pytest_clean(root: Path) -> bytes:
    mods = {
        "test_errors_catalog": ["error_code_is_unique", "error_maps_to_http_status", "error_message_is_translated"],
        "test_retry_policy": ["retry_after_failed_attempt", "retry_gives_up_after_max", "retry_jitter_in_bounds"],
        "test_failed_jobs": ["failed_job_is_requeued", "failed_job_keeps_exception", "failed_jobs_purged"],
        "test_exceptions_mapping": ["timeout_exception_is_retryable", "validation_exception_not_retried"],
        "test_webhooks_retry": ["webhook_retry_on_503", "webhook_failed_delivery_logged", "webhook_error_backoff"],
        "test_refunds_errors": ["refund_error_rolls_back", "refund_failed_notifies_support"],
        "test_billing_exceptions": ["billing_exception_has_invoice", "billing_retry_exhausted_error"],
    }
    files = {"pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n", "tests/__init__.py": ""}
    for mod, topics in mods.items():
        files[f"tests/{mod}.py"] = _pytest_module(mod, topics, 44)
    write(root, files)
    cmd = f"{_BASH} \"{PY} -m pytest -v tests 2>&1 | ts -s '%.s'\""
    out = substitute(scrub(sh(cmd, root), root), (r" in \d+\.\d+s", " in 3.87s"))
    return _clock(out, r"^\d+\.\d{6}(?= )", lambda w, n: f"{(w - _START).total_seconds():.6f}", step_ms=5.3)


# ---------------------------------------------------------------- parallel --tag --line-buffer: pytest shards

_SHARDS = ["billing", "cart", "orders", "refunds", "shipping", "tax"]


@case(
    "u44_parallel_tag_pytest_shards",
    "parallel --tag --line-buffer pytest -v",
    clean=False,
    group=GROUP,
    decisive=[
        "test_shipping_rates.py::test_zone_surcharge_for_remote_postcode FAILED",
        "E       assert 1275 == (1275 - 25)",
        "1 failed, 104 passed",
    ],
)
def _parallel_shards(root: Path) -> bytes:
    files = {"pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n"}
    for shard in _SHARDS:
        topics = [f"{shard}_{t}" for t in ("totals", "rounding", "currency")]
        for k, part in enumerate(("rates", "rules", "api")):
            failing = "test_zone_surcharge_for_remote_postcode" if (shard, part) == ("shipping", "rates") else ""
            n = 44 if k == 0 else 30
            files[f"tests/{shard}/test_{shard}_{part}.py"] = _pytest_module(shard, topics[k : k + 1], n, failing)
    write(root, files)
    shards = " ".join(_SHARDS)
    cmd = f"HOME={root / 'home'} parallel --will-cite --tag --line-buffer -j2 {PY} -m pytest -v tests/{{}} ::: {shards}"
    out = substitute(scrub(sh(cmd, root), root), (r" in \d+\.\d+s", " in 1.21s"))
    tags = [s.encode() for s in _SHARDS]
    return _regroup(out, lambda line: line.split(b"\t", 1)[0] if b"\t" in line else None, tags)


# ---------------------------------------------------------------- annotate-output: node --test, a retry worker

_NODE_AREAS = [
    "auth", "audit", "billing", "cart", "catalog", "coupons", "errors", "export", "exceptions", "invoice", "ledger",
    "orders", "pricing", "refunds", "retry", "search", "session", "shipping", "tax", "webhooks",
]  # fmt: skip


def _node_test_file(area: str, n: int, failing: bool) -> str:
    body = [
        "'use strict';\nconst test = require('node:test');\nconst assert = require('node:assert');\n\n",
        "function roundCents(x) {\n  return Math.round(x);\n}\n\n",
    ]
    for k in range(n):
        body.append(
            f"test('{area} total {k} is rounded to whole cents', () => {{\n"
            f"  assert.strictEqual(roundCents({k * 100} + 0.4), {k * 100});\n}});\n\n"
        )
        if failing and k == n // 2:
            body.append(
                "test('rounds half-cent totals to even', () => {\n"
                "  assert.strictEqual(roundCents(1004.5), 1004);\n});\n\n"
            )
    return "".join(body)


@case(
    "u44_annotate_output_node_test",
    "annotate-output node --test",
    clean=False,
    group=GROUP,
    decisive=[
        "not ok 287 - rounds half-cent totals to even",
        "location: '/tmp/work/test/invoice.test.js:",
        "# fail 1",
    ],
)
def _annotate_node(root: Path) -> bytes:
    files = {"package.json": '{"name": "billing-web", "version": "3.2.0", "private": true}\n'}
    for area in _NODE_AREAS:
        files[f"test/{area}.test.js"] = _node_test_file(area, 30, area == "invoice")
    write(root, files)
    out = sh("annotate-output +%FT%T.%N node --test --test-concurrency=1 test/", root)
    out = substitute(
        scrub(out, root),
        (r"duration_ms: \d+(\.\d+)?", "duration_ms: 1.5"),
        (r"# duration_ms \d+(\.\d+)?", "# duration_ms 2875.2"),
    )
    return _clock(out, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}(?= [IOE]: )", _iso_nano, step_ms=2.9)


_RETRY_WORKER = '''
"""failed-webhooks-retry: re-sends the webhook deliveries that failed, with backoff."""
import http.server
import json
import logging
import sqlite3
import sys
import threading
import time
import urllib.error
import urllib.request

# INFO to stdout, WARNING and up to stderr, as the platform's services log
fmt = logging.Formatter("%(levelname)s %(name)s: %(message)s")
out = logging.StreamHandler(sys.stdout)
out.setFormatter(fmt)
out.addFilter(lambda r: r.levelno < logging.WARNING)
err = logging.StreamHandler(sys.stderr)
err.setFormatter(fmt)
err.setLevel(logging.WARNING)
logging.basicConfig(level=logging.INFO, handlers=[out, err])
log = logging.getLogger("failed_webhooks_retry")
PACE = 0.02  # a delivery takes a while
BACKOFF = 0.25  # the wait after a failed delivery (keeps the two streams apart)


class Receiver(http.server.BaseHTTPRequestHandler):
    seen = {}

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        n = Receiver.seen.get(body["id"], 0) + 1
        Receiver.seen[body["id"]] = n
        busy = body["seq"] % 13 == 0 and n < 3 or body["seq"] % 17 == 0 and n < 2
        self.send_response(503 if busy else 200)
        self.end_headers()

    def log_message(self, *args):
        pass


server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Receiver)
threading.Thread(target=server.serve_forever, daemon=True).start()
url = "http://127.0.0.1:%d/hooks" % server.server_port

db = sqlite3.connect("queue.db")
db.execute("create table failed_deliveries (id text primary key, topic text, last_error text, attempts int)")
topics = ["orders.created", "invoice.paid", "refunds.issued", "shipping.label", "cart.abandoned"]
db.executemany(
    "insert into failed_deliveries values (?, ?, ?, ?)",
    [("wh_%05d" % i, topics[i % 5], "HTTP 503" if i % 3 else "timed out", 1) for i in range(1, 241)],
)
db.commit()
log.info("loaded %d failed deliveries from failed_deliveries", 240)
print("retry run started: 240 failed deliveries queued", flush=True)
time.sleep(PACE)
delivered = failed = 0
queue = db.execute("select * from failed_deliveries order by id").fetchall()
for seq, (wid, topic, last, attempts) in enumerate(queue, 1):
    while True:
        attempts += 1
        log.info("retrying %s (%s) attempt %d/5, last error: %s", wid, topic, attempts, last)
        sys.stdout.flush()
        time.sleep(PACE)
        data = json.dumps({"id": wid, "seq": seq, "topic": topic}).encode()
        req = urllib.request.Request(url + "/" + topic, data=data, headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=5) as resp:
                status = resp.status
        except urllib.error.HTTPError as exc:
            last = "HTTP %d" % exc.code
            time.sleep(BACKOFF)
            log.warning("delivery %s failed again: %s; backing off %d ms", wid, exc, 100 * 2 ** (attempts - 2))
            time.sleep(BACKOFF)
            continue
        db.execute("delete from failed_deliveries where id = ?", (wid,))
        db.commit()
        delivered += 1
        print("delivered %s topic=%s status=%d attempts=%d" % (wid, topic, status, attempts), flush=True)
        time.sleep(PACE)
        break
left = db.execute("select count(*) from failed_deliveries").fetchone()[0]
log.info("failed_deliveries table now holds %d rows", left)
time.sleep(PACE)
print("retry run complete: 240 deliveries retried, %d delivered, %d failed" % (delivered, failed), flush=True)
'''


@case(
    "u44_annotate_output_retry_worker_clean",
    "annotate-output python failed_webhooks_retry.py",
    clean=True,
    group=GROUP,
    decisive=["retry run complete: 240 deliveries retried, 240 delivered, 0 failed", "Finished with exitcode 0"],
)
def _annotate_worker(root: Path) -> bytes:
    write(root, {"failed_webhooks_retry.py": _RETRY_WORKER})
    out = scrub(sh(f"annotate-output +%FT%T.%N {PY} -u failed_webhooks_retry.py", root), root)
    return _clock(out, r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{9}(?= [IOE]: )", _iso_nano, step_ms=21.4)


# ---------------------------------------------------------------- runsv with svlogd -tt: a service that crashes once

_LEDGER_SYNC = '''
"""ledger-sync: posts the payment events of the billing queue to the ledger, in order, with a checkpoint."""
import os
import sqlite3
import sys
import time

DB = os.environ["LEDGER_DB"]


def log(msg):
    print("ledger-sync: " + msg, flush=True)


def apply_entry(db, row):
    event_id, entry_id, account, cents = row
    db.execute("insert into ledger_entries (entry_id, account, cents) values (?, ?, ?)", (entry_id, account, cents))
    db.execute("update checkpoint set last_event = ?", (event_id,))


def recover(db, failed):
    """After a crash: park the event the last run died on, so the queue moves on."""
    row = db.execute("select * from events where id = ?", (failed,)).fetchone()
    dup = db.execute("select count(*) from ledger_entries where entry_id = ?", (row[1],)).fetchone()[0]
    if dup:
        db.execute("insert into dead_letter select * from events where id = ?", (row[0],))
        db.commit()
        log("recovery: event %d (entry %s) already posted; moved to dead_letter" % (row[0], row[1]))
    return row[0]


def main():
    db = sqlite3.connect(DB)
    last = db.execute("select last_event from checkpoint").fetchone()[0]
    total = db.execute("select count(*) from events").fetchone()[0]
    log("starting; checkpoint at event %d of %d" % (last, total))
    parked = None
    if os.path.exists("crashed"):
        with open("crashed") as f:
            parked = recover(db, int(f.read()))
        os.unlink("crashed")
    rows = db.execute("select * from events where id > ? order by id", (last,)).fetchall()
    for n, row in enumerate(rows, 1):
        if row[0] == parked:
            continue
        try:
            apply_entry(db, row)
        except Exception:
            with open("crashed", "w") as f:
                f.write(str(row[0]))
            raise
        if n % 25 == 0:
            db.commit()
            log("posted events up to %d (account %s, batch of 25 committed)" % (row[0], row[2]))
        else:
            log("posted event %d entry %s account %s cents %d" % row)
        time.sleep(0.002)
    db.commit()
    log("caught up at event %d; idle, waiting for new events" % total)
    while True:
        time.sleep(60)


main()
'''


@case(
    "u44_runsv_svlogd_ledger_sync_crash",
    "runsv with svlogd -tt (cat log/main/current)",
    clean=False,
    group=GROUP,
    decisive=[
        "sqlite3.IntegrityError: UNIQUE constraint failed: ledger_entries.entry_id",
        'ledger_sync.py", line 16, in apply_entry',
        "moved to dead_letter",
    ],
)
def _runsv_ledger(root: Path) -> bytes:
    svc = root / "sv" / "ledger-sync"
    write(
        root,
        {
            "sv/ledger-sync/app/ledger_sync.py": _LEDGER_SYNC,
            "sv/ledger-sync/run": f"#!/bin/sh\nexec 2>&1\ncd app\nexport LEDGER_DB={root / 'ledger.db'}\n"
            f"exec {PY} -u ledger_sync.py\n",
            "sv/ledger-sync/log/run": "#!/bin/sh\nexec svlogd -tt ./main\n",
            "seed.sql": "create table events (id integer primary key, entry_id text, account text, cents int);\n"
            "create table dead_letter (id integer primary key, entry_id text, account text, cents int);\n"
            "create table ledger_entries (entry_id text unique, account text, cents int);\n"
            "create table checkpoint (last_event int);\ninsert into checkpoint values (0);\n"
            "with recursive n(i) as (select 1 union all select i + 1 from n where i < 2400)\n"
            "insert into events select i, printf('le-%06d', case when i = 1377 then 1202 else i end),\n"
            "  printf('acct-%03d', i % 211), (i * 7919) % 100000 from n;\n",
        },
    )
    (svc / "run").chmod(0o755)
    (svc / "log" / "run").chmod(0o755)
    (svc / "log" / "main").mkdir()
    # the driver: seed the queue, supervise the service until it is idle, stop it, show its log
    drive = (
        "sqlite3 ledger.db < seed.sql\nrunsv sv/ledger-sync &\nsupervisor=$!\n"
        "for i in $(seq 1 600); do\n  grep -q 'idle, waiting' sv/ledger-sync/log/main/current 2>/dev/null && break\n"
        "  sleep 0.2\ndone\nsv -w 10 stop ./sv/ledger-sync >/dev/null\nsv exit ./sv/ledger-sync >/dev/null\n"
        "wait $supervisor\ncat sv/ledger-sync/log/main/current\n"
    )
    write(root, {"drive.sh": drive})
    out = scrub(sh("bash drive.sh", root), root)
    return _clock(
        out, r"^\d{4}-\d\d-\d\d_\d\d:\d\d:\d\d\.\d{5}", lambda w, _: w.strftime("%Y-%m-%d_%H:%M:%S.%f")[:-1], 3.1
    )


# ---------------------------------------------------------------- tai64n | tai64nlocal: go test -v

_GO_PKGS = ["errors", "retry", "failedjobs", "exceptions", "ledger", "refunds", "webhooks", "session"]


def _go_pkg(name: str) -> dict[str, str]:
    code = (
        f"// Package {name} is the {name} part of the billing platform.\npackage {name}\n\n"
        'import (\n\t"errors"\n\t"fmt"\n)\n\n'
        f"// ErrTransient marks a {name} failure worth retrying.\n"
        f'var ErrTransient = errors.New("{name}: transient")\n\n'
        "// Backoff is the wait before attempt n, in milliseconds.\nfunc Backoff(n int) int {\n"
        "\tif n <= 1 {\n\t\treturn 100\n\t}\n\tif d := 2 * Backoff(n-1); d < 3200 {\n\t\treturn d\n\t}\n"
        "\treturn 3200\n}\n\n"
        "// Do runs f until it succeeds or fails with a permanent error.\n"
        "func Do(max int, f func(int) error) (int, error) {\n"
        "\tfor n := 1; ; n++ {\n\t\terr := f(n)\n\t\tif err == nil || !errors.Is(err, ErrTransient) || n == max {\n"
        '\t\t\tif err != nil {\n\t\t\t\treturn n, fmt.Errorf("after %d attempts: %w", n, err)\n\t\t\t}\n'
        "\t\t\treturn n, nil\n\t\t}\n\t}\n}\n"
    )
    tests = [f'package {name}\n\nimport (\n\t"errors"\n\t"fmt"\n\t"testing"\n)\n']
    for k in range(1, 13):
        tests.append(
            f"\nfunc TestRetryAfterFailedAttempt{k}(t *testing.T) {{\n"
            f"\tn, err := Do(5, func(n int) error {{\n\t\tif n < {k % 4 + 2} {{\n"
            f'\t\t\tt.Logf("attempt %d failed: %v, retrying in %dms", n, ErrTransient, Backoff(n))\n'
            f"\t\t\treturn ErrTransient\n\t\t}}\n\t\treturn nil\n\t}})\n"
            f'\tif err != nil || n != {k % 4 + 2} {{\n\t\tt.Fatalf("got %d, %v", n, err)\n\t}}\n}}\n'
        )
    tests.append(
        "\nfunc TestPermanentErrorIsNotRetried(t *testing.T) {\n"
        '\tboom := errors.New("card declined")\n\tn, err := Do(5, func(int) error { return boom })\n'
        '\tif n != 1 || !errors.Is(err, boom) {\n\t\tt.Fatalf("got %d, %v", n, err)\n\t}\n'
        '\tt.Logf("error surfaced as expected: %v", err)\n}\n'
        "\nfunc TestSubtestsForEachErrorKind(t *testing.T) {\n"
        '\tfor _, kind := range []string{"timeout", "conflict", "rate-limited", "failed-precondition"} {\n'
        "\t\tt.Run(kind, func(t *testing.T) {\n"
        '\t\t\terr := fmt.Errorf("%s: %w", kind, ErrTransient)\n\t\t\tif !errors.Is(err, ErrTransient) {\n'
        '\t\t\t\tt.Fatal("not transient")\n\t\t\t}\n\t\t\tt.Logf("%v is retryable", err)\n\t\t})\n\t}\n}\n'
    )
    return {f"{name}/{name}.go": code, f"{name}/{name}_test.go": "".join(tests)}


@case(
    "u44_tai64n_go_test_errors_retry_clean",
    "go test -v | tai64n | tai64nlocal",
    clean=True,
    group=GROUP,
    decisive=["ok  \texample.com/billing/failedjobs", "ok  \texample.com/billing/session"],
)
def _tai64n_go(root: Path) -> bytes:
    files = {"go.mod": "module example.com/billing\n\ngo 1.19\n"}
    for name in _GO_PKGS:
        files.update(_go_pkg(name))
    write(root, files)
    env = (
        f"HOME={root / 'home'} GOPATH={root / 'gopath'} GOCACHE={root / 'gocache'} GOPROXY=off GOFLAGS=-mod=mod "
        "GOTOOLCHAIN=local"
    )
    out = sh(f"{_BASH} '{env} go test -v -count=1 -p 1 ./... 2>&1 | tai64n | tai64nlocal'", root)
    out = substitute(scrub(out, root), (r"\(\d+\.\d+s\)", "(0.00s)"), (r"\t\d+\.\d+s$", "\t0.012s"))
    return _clock(
        out, r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{9}", lambda w, n: _iso_nano(w, n).replace("T", " "), step_ms=1.7
    )


# ---------------------------------------------------------------- script -q: cargo test recorded in a typescript

_CARGO = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"
_RUST_MODS = [
    "audit", "billing", "cart", "coupons", "errors", "invoice", "ledger", "orders", "pricing", "refunds", "retry",
    "shipping",
]  # fmt: skip


def _rust_mod(name: str, broken: bool) -> str:
    cap = "3_000" if broken else "3_200"
    lines = [
        f"//! {name}: backoff and totals for the {name} service.\n\n",
        "pub fn backoff_ms(attempt: u32) -> u64 {\n"
        f"    (100u64 << attempt.saturating_sub(1).min(6)).min({cap})\n}}\n\n",
        "pub fn total(items: &[u64]) -> u64 {\n    items.iter().sum()\n}\n\n",
        "#[cfg(test)]\nmod tests {\n    use super::*;\n\n",
    ]
    for k in range(1, 39):
        lines.append(
            f"    #[test]\n    fn total_of_{k:02d}_items() {{\n"
            f"        let items: Vec<u64> = (1..={k}).collect();\n"
            f"        assert_eq!(total(&items), {k * (k + 1) // 2});\n"
            "    }\n\n"
        )
    lines.append(
        "    #[test]\n    fn backoff_doubles_then_caps_at_max() {\n"
        "        assert_eq!(backoff_ms(1), 100);\n        assert_eq!(backoff_ms(3), 400);\n"
        "        assert_eq!(backoff_ms(9), 3_200);\n    }\n\n"
        "    #[test]\n    fn backoff_first_attempt() {\n        assert_eq!(backoff_ms(0), 100);\n    }\n}\n"
    )
    return "".join(lines)


@case(
    "u44_script_cargo_test_retry_panic",
    "script -q -c 'cargo test' (the typescript)",
    clean=False,
    group=GROUP,
    decisive=[
        "panicked at src/retry.rs:247:9:",
        "left: 3000",
        "test result: FAILED. 479 passed; 1 failed",
    ],
)
def _script_cargo(root: Path) -> bytes:
    files = {
        "Cargo.toml": '[package]\nname = "billing-core"\nversion = "0.7.3"\nedition = "2021"\n\n[dependencies]\n',
        "src/lib.rs": "".join(f"pub mod {m};\n" for m in _RUST_MODS),
    }
    for m in _RUST_MODS:
        files[f"src/{m}.rs"] = _rust_mod(m, m == "retry")
    write(root, files)
    env = (
        f"CARGO_HOME={root / 'cargo-home'} CARGO_TERM_COLOR=never CARGO_TERM_PROGRESS_WHEN=never "
        "CARGO_INCREMENTAL=0 RUST_BACKTRACE=1 TERM=dumb"
    )
    inner = f"{env} {_CARGO} test --offline -j1 -- --test-threads=1 --color never"
    sh(f"script -q -e -c '{inner}' typescript >/dev/null", root)
    out = substitute(
        scrub((root / "typescript").read_bytes(), root),
        (r"^Script (started|done) on \S+ \S+", r"Script \1 on 2026-03-14 09:12:03+00:00"),
        (r" in \d+\.\d+s\b", " in 4.21s"),
        (r"finished in \d+\.\d+s", "finished in 0.05s"),
        (r"-([0-9a-f]{16})\b", "-0000000000000000"),
        (r"' \(\d+\) panicked", "' (4242) panicked"),
    )
    return out


# ---------------------------------------------------------------- docker logs --timestamps, docker-compose logs -t

_HOST = "-v /usr:/usr:ro"


def _image(root: Path, name: str) -> str:
    """An image of the host's busybox (Python comes from the host's ``/usr``, bind-mounted); its tag."""
    tag = f"offloader-corpus/u44-{name}:1"
    rootfs = root / "rootfs"
    (rootfs / "bin").mkdir(parents=True)
    for folder in ("tmp", "app", "data", "state", "etc"):
        (rootfs / folder).mkdir()
    (rootfs / "lib").symlink_to("usr/lib")
    (rootfs / "lib64").symlink_to("usr/lib64")
    shutil.copy("/bin/busybox", rootfs / "bin" / "busybox")
    for applet in ("sh", "echo", "ls", "cat", "sleep", "mkdir", "seq", "touch", "test"):
        (rootfs / "bin" / applet).symlink_to("busybox")
    sh(f"tar -C {rootfs} -c . | docker import - {tag} >/dev/null", root)
    return tag


def _docker_times(out: bytes, root: Path, step_ms: float) -> bytes:
    out = substitute(scrub(out, root), (r"\b[0-9a-f]{64}\b", "0" * 64), (r"\b[0-9a-f]{12}\b", "0" * 12))
    return _clock(
        out,
        r"(?:^|(?<=\| ))\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z",
        lambda w, n: _iso_nano(w, n) + "Z",
        step_ms=step_ms,
    )


_IMPORTER = '''
"""orders-importer: loads the partners' order exports (CSV) into the orders database, one file per transaction."""
import csv
import logging
import pathlib
import sqlite3
import sys

logging.basicConfig(level=logging.INFO, format="%(levelname)-7s %(name)s %(message)s")
log = logging.getLogger("orders.importer")


def import_file(db, path):
    with open(path, newline="") as f:
        rows = list(csv.DictReader(f))
    log.info("importing %s (%d rows)", path.name, len(rows))
    with db:
        for start in range(0, len(rows), 5):
            for n, row in enumerate(rows[start : start + 5], start + 1):
                try:
                    cents = int(row["amount_cents"])
                except ValueError:
                    log.exception("failed to import %s at row %d (order %s)", path.name, n, row["order_id"])
                    raise
                values = (row["order_id"], row["customer"], cents, path.name)
                db.execute("insert into orders values (?, ?, ?, ?)", values)
            log.info("%s: rows %d-%d inserted into orders", path.name, start + 1, min(start + 5, len(rows)))
    log.info("%s committed (%d orders)", path.name, len(rows))


def main():
    db = sqlite3.connect("/state/orders.db")
    db.execute("create table if not exists orders (order_id text primary key, customer text, cents int, source text)")
    files = sorted(pathlib.Path("/data").glob("orders_*.csv"))
    log.info("orders-importer 2.4.1 starting: %d files in /data", len(files))
    failed = []
    for path in files:
        try:
            import_file(db, path)
        except ValueError:
            failed.append(path.name)
            log.warning("%s rolled back; continuing with the next file", path.name)
    total = db.execute("select count(*) from orders").fetchone()[0]
    log.info("orders table holds %d rows", total)
    done = len(files) - len(failed)
    log.info("import finished: %d files imported, %d failed (%s)", done, len(failed), ", ".join(failed))
    return 1 if failed else 0


sys.exit(main())
'''


@case(
    "u44_docker_logs_timestamps_importer",
    "docker logs --timestamps (an order importer that exits 1)",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: invalid literal for int() with base 10: '12,50'",
        "failed to import orders_0023.csv at row 17 (order ORD-23-0017)",
        "import finished: 39 files imported, 1 failed (orders_0023.csv)",
    ],
)
def _docker_importer(root: Path) -> bytes:
    files = {"app/importer.py": _IMPORTER}
    for f in range(1, 41):
        rows = ["order_id,customer,amount_cents"]
        for r in range(1, 61):
            amount = '"12,50"' if (f, r) == (23, 17) else str((f * 7919 + r * 104729) % 50000 + 99)
            rows.append(f"ORD-{f:02d}-{r:04d},cust-{(f * r) % 311:04d},{amount}")
        files[f"data/orders_{f:04d}.csv"] = "\n".join(rows) + "\n"
    write(root, files)
    (root / "state").mkdir()
    tag = _image(root, "importer")
    name = "u44-orders-importer"
    cmd = (
        f"docker rm -f {name} >/dev/null 2>&1; "
        f"docker run -d --name {name} --network none {_HOST} -v {root / 'app'}:/app:ro -v {root / 'data'}:/data:ro "
        f"-v {root / 'state'}:/state {tag} /usr/bin/python3 /app/importer.py >/dev/null && "
        f"docker wait {name} >/dev/null; docker logs --timestamps {name}; "
        f"docker rm -f {name} >/dev/null; docker rmi -f {tag} >/dev/null"
    )
    return _docker_times(sh(cmd, root), root, step_ms=4.7)


_SERVICE = '''
"""A platform service: does its batches of work, logs them, exits when the queue is drained."""
import os
import sys

service = os.environ["SERVICE"]
noun = os.environ["NOUN"]
batches = int(os.environ["BATCHES"])
print(f"{service} 5.2.0 starting, queue={noun}, batch_size=50", flush=True)
retried = 0
for i in range(1, batches + 1):
    rescheduled = 1 if i % 9 == 0 else 0
    retried += rescheduled
    print(
        f"{service} batch {i:03d}/{batches:03d}: {noun} processed={50 - i % 7} retried={rescheduled} "
        f"failed=0 errors=0 lag_ms={(i * 37) % 120 + 5}",
        flush=True,
    )
    if rescheduled:
        print(f"{service} batch {i:03d}: 1 {noun} item rescheduled after a transient error, then succeeded", flush=True)
print(f"{service} summary: {batches} batches, {retried} retried and succeeded, 0 failed, 0 errors", flush=True)
print(f"{service} queue drained; exiting with status 0", flush=True)
open(f"/state/{service}.done", "w").close()
sys.exit(0)
'''

_CLEAN_SERVICES = {
    "errors-api": ("error_reports", 60),
    "exceptions-mailer": ("exception_digests", 45),
    "failed-jobs-worker": ("failed_jobs", 80),
    "retry-scheduler": ("retry_schedules", 70),
}


@case(
    "u44_compose_logs_t_errors_services_clean",
    "docker-compose up -d, docker-compose logs -t --no-color, docker-compose ps (all exit 0)",
    clean=True,
    group=GROUP,
    decisive=[
        "failed-jobs-worker summary: 80 batches, 8 retried and succeeded, 0 failed, 0 errors",
        "retry-scheduler queue drained; exiting with status 0",
    ],
)
def _compose_clean(root: Path) -> bytes:
    tag = _image(root, "services")
    body = 'version: "3.8"\nservices:\n'
    for name, (noun, batches) in _CLEAN_SERVICES.items():
        body += (
            f"  {name}:\n    image: {tag}\n    network_mode: none\n    working_dir: /app\n"
            f'    command: ["/usr/bin/python3", "-u", "/app/service.py"]\n'
            f'    volumes:\n      - "/usr:/usr:ro"\n      - "./app:/app:ro"\n      - "./state:/state"\n'
            f'    environment:\n      SERVICE: "{name}"\n      NOUN: "{noun}"\n      BATCHES: "{batches}"\n'
        )
    write(root, {"docker-compose.yml": body, "app/service.py": _SERVICE})
    (root / "state").mkdir()
    project = "u44_errsvc"
    checks = " && ".join(f"test -e state/{s}.done" for s in _CLEAN_SERVICES)
    down = f"docker-compose -p {project} down -v --remove-orphans >/dev/null 2>&1; docker rmi -f {tag} >/dev/null 2>&1"
    cmd = (
        f"trap '{down}' EXIT; export COMPOSE_PROJECT_NAME={project}; "
        f"docker-compose up -d 2>/dev/null && for i in $(seq 1 600); do {checks} && break; sleep 0.1; done; "
        f"for s in {' '.join(_CLEAN_SERVICES)}; do docker wait {project}_${{s}}_1 >/dev/null; done; "
        "docker-compose logs -t --no-color && docker-compose ps"
    )
    out = sh(cmd, root, timeout=170)
    order = [f"{s}_1".encode() for s in _CLEAN_SERVICES]
    out = _regroup(out, lambda line: line.split(b" ", 1)[0] if b" | " in line else None, order)
    out = substitute(
        out, (r"^Attaching to .*$", "Attaching to " + ", ".join(f"{project}_{s}_1" for s in _CLEAN_SERVICES))
    )
    return _docker_times(out, root, step_ms=9.3)


# ---------------------------------------------------------------- unbuffer pip install -v | ts

_PY_PKGS = [
    "errors-report", "failed-jobs", "retry-policy", "exceptions-map", "billing-core", "ledger-post", "tax-rates",
    "refunds-flow", "invoice-pdf", "webhooks-out", "audit-trail", "session-store",
]  # fmt: skip


@case(
    "u44_unbuffer_ts_pip_install_clean",
    "unbuffer pip install -v (12 local packages) | ts",
    clean=True,
    group=GROUP,
    decisive=["Successfully installed audit-trail-1.10.0"],
)
def _unbuffer_pip(root: Path) -> bytes:
    files = {}
    for i, name in enumerate(_PY_PKGS):
        mod = name.replace("-", "_")
        deps = f"    install_requires=[{_PY_PKGS[i - 1]!r}],\n" if i else ""
        files[f"pkgs/{name}/setup.py"] = (
            "from setuptools import setup\n\n"
            f"setup(\n    name={name!r},\n    version='1.{i}.0',\n    packages=[{mod!r}],\n{deps})\n"
        )
        files[f"pkgs/{name}/{mod}/__init__.py"] = f'"""{name}: part of the billing platform."""\n'
        for k in range(4):
            files[f"pkgs/{name}/{mod}/part_{k}.py"] = f"VALUE = {k}\n"
    write(root, files)
    sh(f"{PY} -m venv venv && {PIP_ISOLATED} venv/bin/pip install -q --no-cache-dir wheel==0.42.0", root)
    pkgs = " ".join(f"./pkgs/{n}" for n in _PY_PKGS)
    inner = (
        f"{PIP_ISOLATED} PIP_DISABLE_PIP_VERSION_CHECK=1 PIP_CACHE_DIR={root / 'pip-cache'} "
        f"venv/bin/pip install -v --no-index --no-build-isolation {pkgs}"
    )
    out = sh(f"{_BASH} \"unbuffer {inner} 2>&1 | ts '%b %d %H:%M:%.S'\"", root)
    out = substitute(
        scrub(out, root),
        (r"/tmp/pip-[a-z0-9_-]+", "/tmp/pip-build-abcdefgh"),
        (r"/tmp/tmp[a-z0-9_]+", "/tmp/tmpabcdefgh"),
        (r"sha256=[0-9a-f]{64}", "sha256=" + "0" * 64),
        (r"wheels/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]+", "wheels/00/00/00/" + "0" * 50),
    )
    return _clock(out, r"^[A-Z][a-z]{2} \d\d \d\d:\d\d:\d\d\.\d{6}", lambda w, _: w.strftime("%b %d %H:%M:%S.%f"), 11.9)


# ---------------------------------------------------------------- logger into rsyslog: nightly jobs

_RSYSLOG_CONF = """
global(workDirectory="ROOT/rsyslog-work" localHostName="ci-runner-07")
module(load="imuxsock" SysSock.Use="off")
input(type="imuxsock" Socket="ROOT/log.sock" RateLimit.Interval="0")
*.* action(type="omfile" file="ROOT/log/nightly.log" template="RSYSLOG_FileFormat")
"""

_NIGHTLY = """
#!/bin/bash
# nightly.sh: the platform's nightly jobs; each job's output goes to syslog under the job's name.
say() { logger -u "$SOCK" -t nightly "$*"; }
run() {
    local tag=$1; shift
    say "starting $tag: $*"
    "$@" 2>&1 | logger -u "$SOCK" -t "$tag"
    local status=${PIPESTATUS[0]}
    say "$tag: job exited with status $status"
    [ "$status" = 0 ] || failed="$failed $tag"
}
failed=""
run sessions-sweep python3 jobs/sessions_sweep.py
run catalog-backup tar --sort=name -cvzf catalog.tgz catalog
run audit-export sqlite3 -bail audit.db -init /dev/null ".read jobs/audit_export.sql"
run tax-rates-sync cp -rv rates rates-live
run invoice-render python3 jobs/invoice_render.py
say "nightly run finished; failed jobs:${failed:- none}"
"""

_SWEEP = """
import sqlite3
db = sqlite3.connect("sessions.db")
db.execute("create table sessions (id text primary key, user_id int, expires_at int)")
db.executemany("insert into sessions values (?, ?, ?)", [("s%06d" % i, i % 997, i % 3) for i in range(24000)])
for batch in range(1, 121):
    cur = db.execute("delete from sessions where rowid in (select rowid from sessions where expires_at = 0 limit 67)")
    db.commit()
    left = db.execute("select count(*) from sessions where expires_at = 0").fetchone()[0]
    print("sessions-sweep: batch %03d deleted %d expired sessions, %d expired left" % (batch, cur.rowcount, left))
print("sessions-sweep: done, %d sessions remain" % db.execute("select count(*) from sessions").fetchone()[0])
"""

_RENDER = """
for i in range(1, 241):
    fields = (i, i % 9 + 1, i * 37 % 900, i % 100, i)
    print("invoice-render: rendered INV-2026-%05d (%d lines, %d.%02d EUR) -> out/INV-2026-%05d.pdf" % fields)
print("invoice-render: 240 invoices rendered, 0 skipped")
"""


@case(
    "u44_rsyslog_logger_nightly_jobs",
    "logger -t into rsyslogd (cat nightly.log)",
    clean=False,
    group=GROUP,
    decisive=[
        "Parse error near line 9: no such table: audit_events",
        "audit-export: job exited with status 1",
        "nightly run finished; failed jobs: audit-export",
    ],
)
def _rsyslog_nightly(root: Path) -> bytes:
    export = [".headers on", ".mode csv", "create table audit_log (id integer primary key, actor text, action text);"]
    export.append(
        "with recursive n(i) as (select 1 union all select i + 1 from n where i < 180) insert into audit_log "
        "select i, printf('user-%03d', i % 53), case i % 3 when 0 then 'refund.approve' else 'invoice.view' end from n;"
    )
    export += ["select * from audit_log order by id;", "", "", ""]
    export += ["select id, actor, action from audit_events where id > 0;", "select count(*) from audit_log;"]
    files = {
        "rsyslog.conf": _RSYSLOG_CONF.replace("ROOT", str(root)),
        "nightly.sh": _NIGHTLY,
        "jobs/sessions_sweep.py": _SWEEP,
        "jobs/invoice_render.py": _RENDER,
        "jobs/audit_export.sql": "\n".join(export) + "\n",
    }
    for k in range(160):
        files[f"catalog/{['media', 'items', 'prices', 'search'][k % 4]}/entry_{k:04d}.json"] = f'{{"id": {k}}}\n'
    for k in range(90):
        files[f"rates/{['eu', 'us', 'uk'][k % 3]}/zone_{k:03d}.csv"] = f"zone,rate\n{k},0.{k % 25:02d}\n"
    write(root, files)
    (root / "rsyslog-work").mkdir()
    (root / "log").mkdir()
    cmd = (
        f"export SOCK={root / 'log.sock'}; rsyslogd -n -f rsyslog.conf -i {root / 'rsyslog.pid'} & daemon=$!; "
        "for i in $(seq 1 100); do test -S $SOCK && break; sleep 0.1; done; "
        "bash nightly.sh; sleep 1; kill $daemon; wait $daemon; cat log/nightly.log"
    )
    out = sh(f"bash -c '{cmd}'", root, env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin"})
    out = substitute(scrub(out, root), (r'x-pid="\d+"', 'x-pid="4242"'))
    return _clock(
        out,
        r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d",
        lambda w, _: w.strftime("%Y-%m-%dT%H:%M:%S.%f+00:00"),
        step_ms=6.1,
    )
