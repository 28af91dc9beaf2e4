"""Held-out outputs (group ``unseen-91``): a ninety-first batch, log analysis as an ops agent runs it over the
generated application, worker and web-server logs of a billing platform whose services, loggers and files are named
after business words (``failed_payments``, ``retry_queue``, ``exception_report``, ``error_codes``), so that clean runs
are full of those words.

Failing runs: ``lnav -n -c ':filter-in ...'`` over three service logs merged by time, thousands of retried requests
with one Python traceback in the middle; ``goaccess`` run per virtual host where the ``payments_webhooks`` host writes
another log format; ``logrotate -d -v`` of a 20-stanza configuration with one misspelt option and missing log files;
``zgrep -n`` over a rotated (gzipped) log tree with one Java stack trace among thousands of retry lines; ``jq -c`` over
JSON log files where one file holds a Go panic written to the same stream; ``tail -n`` over ten service logs where one
worker died of a full disk. Clean runs: lnav's SQL over the same kind of logs (``log_level`` counts per service),
``goaccess -o csv`` of a day's access log, a real ``logrotate -v -f`` rotation, an ``awk | sort | uniq -c`` summary of
status codes per endpoint, and ``jq`` over the retry queue's JSON log. Labels were written with each scenario, before
the engine saw the output. Needs lnav 0.11 and GoAccess 1.7 (Debian ``lnav``, ``goaccess``), with logrotate, jq, gzip,
gawk and coreutils (Debian ``logrotate``, ``jq``, ``gzip``, ``gawk``, ``coreutils``).
"""

from __future__ import annotations

import gzip
import json
import random
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-91"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, PIDs, the time of the run."""
    return substitute(
        scrub(out, root),
        (r"^==\d+==", "==1000=="),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000", "2026-01-01 00:00:00 +0000"),
        (r"^  Now: .*$", "  Now: 2026-01-01 00:00"),
        (r"^  Last rotated at .*$", "  Last rotated at 2026-01-01 00:00"),
        (r"-- over .* ago;", "-- over 1 year ago;"),
        (r"dateext suffix '-\d{8}'", "dateext suffix '-20260101'"),
    )


def _lnav(root: Path) -> str:
    return f"HOME={root / 'home'} XDG_CONFIG_HOME={root / 'home/.config'} lnav -n"


def _stamp(second: int, ms: int = 0) -> str:
    """A Python-logging time ``second`` seconds after 2024-03-05 06:00:00."""
    h, rest = divmod(second, 3600)
    m, s = divmod(rest, 60)
    return f"2024-03-05 {6 + h:02d}:{m:02d}:{s:02d},{ms:03d}"


def _py_log(
    path: Path, logger: str, n: int, seed: int, *, offset: int = 0, crash_at: int = -1, crash: str = ""
) -> None:
    """``n`` lines of a service's Python log: retried requests, queue polls, a few warnings; ``crash`` at line
    ``crash_at``."""
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        t = _stamp(offset + i * 3, (seed * 37 + i) % 1000)
        kind = rnd.random()
        if i == crash_at:
            rows.append(crash.replace("{t}", t))
        elif kind < 0.55:
            rows.append(
                f"{t} INFO {logger}: retrying request POST /v1/charges/ch_{rnd.randrange(10**6):06d} "
                f"attempt={rnd.randint(2, 5)}/5 after upstream 503 (backoff {rnd.choice([1, 2, 4, 8])}s)"
            )
        elif kind < 0.9:
            rows.append(
                f"{t} INFO {logger}: retry_queue poll: depth={rnd.randint(0, 40)} "
                f"failed_payments={rnd.randint(0, 9)} in_flight={rnd.randint(0, 4)}"
            )
        else:
            rows.append(f"{t} INFO {logger}: request ok POST /v1/charges status=200 ms={rnd.randint(20, 900)}")
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")


# ---------------------------------------------------------------- lnav


_TRACE = (
    "{t} ERROR billing.failed_payments: settlement worker crashed on batch 4411\n"
    "Traceback (most recent call last):\n"
    '  File "/srv/billing/failed_payments/worker.py", line 88, in run_batch\n'
    "    settle(batch)\n"
    '  File "/srv/billing/failed_payments/settle.py", line 142, in apply_refund\n'
    "    amount = Decimal(row['amount_minor']) / 100\n"
    "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]"
)


@case(
    "u91_lnav_filter_traceback",
    "lnav",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR billing.failed_payments: settlement worker crashed on batch 4411",
        'File "/srv/billing/failed_payments/settle.py", line 142, in apply_refund',
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
    ],
)
def _lnav_filter_traceback(root: Path) -> bytes:
    _py_log(root / "logs/failed_payments.log", "billing.failed_payments", 1400, 1, crash_at=830, crash=_TRACE)
    _py_log(root / "logs/retry_queue.log", "billing.retry_queue", 1400, 2, offset=1)
    _py_log(root / "logs/exception_report.log", "billing.exception_report", 1400, 3, offset=2)
    cmd = f"{_lnav(root)} -c ':filter-in retrying|ERROR|Traceback' logs/*.log"
    return _settle(sh(cmd, root), root)


@case(
    "u91_lnav_sql_levels_clean",
    "lnav",
    clean=True,
    group=GROUP,
    decisive=["log_path"],
)
def _lnav_sql_clean(root: Path) -> bytes:
    services = ["failed_payments", "retry_queue", "exception_report", "error_codes", "refunds", "invoice"]
    for k, name in enumerate(services):
        _py_log(root / f"logs/{name}.log", f"billing.{name}", 900, 10 + k, offset=k)
    query = (
        ";SELECT log_path, log_level, strftime('%H:%M', log_time) AS minute, count(*) AS lines"
        " FROM all_logs GROUP BY log_path, log_level, minute ORDER BY log_path, minute"
    )
    return _settle(sh(f'{_lnav(root)} -c "{query}" logs/*.log', root), root)


# ---------------------------------------------------------------- goaccess


_PATHS = [
    "/api/failed_payments", "/api/retry_queue", "/admin/exception_report", "/api/error_codes", "/api/orders",
    "/api/refunds", "/api/invoice", "/api/cart", "/api/coupons", "/webhooks/stripe", "/health",
]  # fmt: skip


def _access_log(path: Path, n: int, seed: int, *, statuses: tuple[int, ...] = (200, 200, 200, 201, 304)) -> None:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        h, rest = divmod(i * 3600 * 12 // n, 3600)
        m, s = divmod(rest, 60)
        p = rnd.choice(_PATHS)
        if rnd.random() < 0.6:
            p += f"/{rnd.randrange(1, 60)}"
        status = rnd.choice(statuses)
        agent = rnd.choice(["curl/8.5.0", "billing-sdk/2.3.1", "Mozilla/5.0 (X11; Linux x86_64)"])
        rows.append(
            f"10.{seed}.{rnd.randrange(8)}.{rnd.randrange(1, 250)} - - [05/Mar/2024:{6 + h:02d}:{m:02d}:{s:02d} +0000] "
            f'"{rnd.choice(["GET", "GET", "POST"])} {p} HTTP/1.1" {status} {rnd.randrange(200, 9000)} "-" "{agent}"'
        )
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")


@case(
    "u91_goaccess_csv_clean",
    "goaccess",
    clean=True,
    group=GROUP,
    decisive=['"6000","total_requests"', '"0","failed_requests"'],
)
def _goaccess_clean(root: Path) -> bytes:
    _access_log(root / "logs/shop.access.log", 6000, 1)
    cmd = "goaccess logs/shop.access.log --log-format=COMBINED --no-global-config --no-progress -o csv"
    return _settle(sh(f"HOME={root / 'home'} {cmd}", root), root)


@case(
    "u91_goaccess_vhost_format",
    "goaccess",
    clean=False,
    group=GROUP,
    decisive=["FILE: logs/payments_webhooks.access.log", "Format Errors - Verify your log/date/time format"],
)
def _goaccess_vhosts(root: Path) -> bytes:
    hosts = ["billing", "orders", "payments_webhooks", "refunds", "exception_report"]
    for k, host in enumerate(hosts):
        _access_log(root / f"logs/{host}.access.log", 1500, k + 2, statuses=(200, 200, 201, 404, 502))
    # the payments_webhooks host logs with nginx's $request_time first, not the combined format
    hook = root / "logs/payments_webhooks.access.log"
    hook.write_text("".join(f"0.{i % 900:03d} {line}\n" for i, line in enumerate(hook.read_text().splitlines())))
    loop = (
        'rc=0; for f in logs/*.access.log; do echo "### $f"; '
        'goaccess "$f" --log-format=COMBINED --no-global-config --no-progress -o csv || rc=1; done; exit $rc'
    )
    return _settle(sh(f"HOME={root / 'home'} sh -c '{loop}'", root), root)


# ---------------------------------------------------------------- logrotate


_SERVICES = [
    "failed_payments", "retry_queue", "exception_report", "error_codes", "billing", "orders", "cart", "tax", "refunds",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export", "auth",
]  # fmt: skip


def _log_tree(root: Path, missing: tuple[str, ...] = ()) -> None:
    for k, svc in enumerate(_SERVICES):
        for part in ("app", "worker", "access"):
            if f"{svc}/{part}" in missing:
                (root / f"logs/{svc}").mkdir(parents=True, exist_ok=True)
                continue
            path = root / f"logs/{svc}/{part}.log"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"{svc} {part} line\n" * (10 + k))


def _stanza(root: Path, svc: str, body: str) -> str:
    return f"{root}/logs/{svc}/*.log {{\n{body}}}\n\n"


@case(
    "u91_logrotate_debug_bad_stanza",
    "logrotate",
    clean=False,
    group=GROUP,
    decisive=[
        "logrotate.d/billing.conf:",
        "unknown option 'rotatee' -- ignoring line",
        "error: stat of /tmp/work/logs/retry_queue/worker.log failed: No such file or directory",
    ],
)
def _logrotate_debug(root: Path) -> bytes:
    _log_tree(root, missing=("retry_queue/worker", "exception_report/access"))
    conf = ""
    for k, svc in enumerate(_SERVICES):
        opts = "    daily\n    rotate 14\n    compress\n    delaycompress\n    missingok\n    notifempty\n"
        if svc == "retry_queue":
            conf += f"{root}/logs/retry_queue/app.log {root}/logs/retry_queue/worker.log {{\n"
            conf += "    weekly\n    rotate 8\n    compress\n    create 0640 root root\n}\n\n"
            continue
        if svc == "ledger":
            opts = "    weekly\n    rotatee 4\n    compress\n    sharedscripts\n"
            opts += "    postrotate\n        kill -HUP $(cat /run/ledger.pid) 2>/dev/null || true\n    endscript\n"
        if svc == "exception_report":
            conf += f"{root}/logs/exception_report/access.log {{\n    daily\n    rotate 30\n}}\n\n"
        conf += _stanza(root, svc, opts if k % 3 else opts + "    size 1k\n")
    write(root, {"logrotate.d/billing.conf": conf})
    (root / "state").mkdir()
    return _settle(sh("logrotate -d -v -s state/logrotate.status logrotate.d/billing.conf", root), root)


@case(
    "u91_logrotate_rotate_clean",
    "logrotate",
    clean=True,
    group=GROUP,
    decisive=[
        "renaming /tmp/work/logs/exception_report/worker.log to /tmp/work/logs/exception_report/worker.log.1",
    ],
)
def _logrotate_clean(root: Path) -> bytes:
    _log_tree(root)
    conf = "".join(
        _stanza(root, svc, "    daily\n    rotate 7\n    compress\n    delaycompress\n    missingok\n    notifempty\n")
        for svc in _SERVICES
    )
    write(root, {"logrotate.d/billing.conf": conf})
    (root / "state").mkdir()
    return _settle(sh("logrotate -v -f -s state/logrotate.status logrotate.d/billing.conf", root), root)


# ---------------------------------------------------------------- zgrep over a rotated tree


def _java_log(n: int, seed: int, *, trace_at: int = -1) -> str:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        t = f"2024-03-0{1 + seed % 9} {i // 3600 % 24:02d}:{i // 60 % 60:02d}:{i % 60:02d}.{(i * 7) % 1000:03d}"
        thread = f"ledger-worker-{rnd.randrange(8)}"
        if i == trace_at:
            rows += [
                f"{t} ERROR [{thread}] c.a.l.SettlementJob - settlement of batch 2207 aborted",
                "java.lang.IllegalStateException: ledger entry 88121 already settled",
                "\tat com.acme.ledger.SettlementWriter.post(SettlementWriter.java:217)",
                "\tat com.acme.ledger.SettlementJob.settleBatch(SettlementJob.java:96)",
                "\tat com.acme.ledger.retry.RetryTemplate.execute(RetryTemplate.java:58)",
                "\tat java.base/java.lang.Thread.run(Thread.java:840)",
                "Caused by: org.postgresql.util.PSQLException: duplicate key value violates unique constraint "
                '"ledger_entries_pkey"',
                "\tat org.postgresql.core.v3.QueryExecutorImpl.receiveErrorResponse(QueryExecutorImpl.java:2713)",
                "\t... 4 more",
            ]
        elif rnd.random() < 0.45:
            rows.append(
                f"{t} WARN  [{thread}] c.a.l.retry.RetryTemplate - retry {rnd.randint(1, 4)}/5 for "
                f"POST /ledger/entries/{rnd.randrange(10**5)}: upstream returned 503, "
                f"backing off {rnd.randint(1, 9)}00ms"
            )
        else:
            rows.append(f"{t} INFO  [{thread}] c.a.l.SettlementJob - posted entry {rnd.randrange(10**5)} to ledger")
    return "\n".join(rows) + "\n"


@case(
    "u91_zgrep_rotated_java_trace",
    "zgrep",
    clean=False,
    group=GROUP,
    decisive=[
        "java.lang.IllegalStateException: ledger entry 88121 already settled",
        "at com.acme.ledger.SettlementWriter.post(SettlementWriter.java:217)",
        'Caused by: org.postgresql.util.PSQLException: duplicate key value violates unique constraint "ledger_entries',
    ],
)
def _zgrep_trace(root: Path) -> bytes:
    d = root / "logs/ledger"
    d.mkdir(parents=True)
    (d / "app.log").write_text(_java_log(800, 0))
    (d / "app.log.1").write_text(_java_log(800, 1))
    for k in range(2, 8):
        with gzip.GzipFile(d / f"app.log.{k}.gz", "wb", mtime=0) as f:
            f.write(_java_log(800, k, trace_at=430 if k == 5 else -1).encode())
    return _settle(sh(r"zgrep -n -E 'retry|Exception|^\s+at |Caused by' logs/ledger/app.log*", root), root)


# ---------------------------------------------------------------- awk | sort | uniq -c


@case(
    "u91_awk_uniq_status_clean",
    "awk",
    clean=True,
    group=GROUP,
    decisive=["requests: 16000"],
)
def _awk_uniq(root: Path) -> bytes:
    _access_log(root / "logs/access.log", 8000, 3, statuses=(200, 200, 200, 201, 304, 404, 500, 502))
    _access_log(root / "logs/access.log.1", 8000, 4, statuses=(200, 200, 200, 201, 304, 404, 500, 502))
    cmd = (
        "awk '{print $9, $6, $7}' logs/access.log logs/access.log.1 | tr -d '\"' | sort | uniq -c | sort -k1,1nr -k2 "
        '&& echo "requests: $(cat logs/access.log logs/access.log.1 | wc -l)"'
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- jq


def _json_log(path: Path, service: str, n: int, seed: int, *, panic_at: int = -1) -> None:
    rnd = random.Random(seed)
    rows = []
    for i in range(n):
        if i == panic_at:
            rows += [
                "panic: runtime error: invalid memory address or nil pointer dereference",
                "[signal SIGSEGV: segmentation violation code=0x1 addr=0x18 pc=0x6f3a21]",
                "",
                "goroutine 41 [running]:",
                "example.com/billing/retryqueue.(*Worker).requeue(0x0, {0xc000a1c0f0, 0x24})",
                "\t/src/retryqueue/worker.go:163 +0x41",
            ]
            continue
        level = rnd.choice(["info", "info", "warn", "debug"])
        row = {
            "ts": f"2024-03-05T{6 + i // 3600:02d}:{i // 60 % 60:02d}:{i % 60:02d}Z",
            "level": level,
            "service": service,
            "msg": "retrying webhook delivery" if level == "warn" else "delivered",
            "attempt": rnd.randint(1, 5),
            "error_code": rnd.choice(["E_UPSTREAM_503", "E_TIMEOUT"]) if level == "warn" else None,
            "event_id": f"evt_{rnd.randrange(10**8):08d}",
        }
        rows.append(json.dumps(row))
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("\n".join(rows) + "\n")


@case(
    "u91_jq_go_panic_in_stream",
    "jq",
    clean=False,
    group=GROUP,
    decisive=["parse error: Invalid numeric literal at line"],
)
def _jq_panic(root: Path) -> bytes:
    _json_log(root / "logs/a_webhooks.jsonl", "webhooks", 1500, 1)
    _json_log(root / "logs/b_retry_queue.jsonl", "retry_queue", 1500, 2, panic_at=1100)
    _json_log(root / "logs/c_failed_payments.jsonl", "failed_payments", 1500, 3)
    cmd = 'jq -c \'select(.level == "warn" or .level == "error") | {ts, service, msg, attempt, error_code}\' logs/*'
    return _settle(sh(cmd, root), root)


@case(
    "u91_jq_retry_queue_clean",
    "jq",
    clean=True,
    group=GROUP,
    decisive=['"service": "retry_queue",'],
)
def _jq_clean(root: Path) -> bytes:
    for k, svc in enumerate(["retry_queue", "failed_payments", "exception_report"]):
        _json_log(root / f"logs/{svc}.jsonl", svc, 1200, 20 + k)
    cmd = (
        "jq -s 'group_by(.service)[] | {service: .[0].service, records: length, "
        'retries: map(select(.level == "warn")) | length, '
        "error_codes: (map(.error_code // empty) | group_by(.) | map({(.[0]): length}) | add), "
        "last: .[-1].ts}' logs/*.jsonl && "
        "jq -r 'select(.level == \"warn\") | [.ts, .service, .error_code, .attempt, .event_id] | @tsv' "
        "logs/retry_queue.jsonl"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- tail -n


@case(
    "u91_tail_n_worker_disk_full",
    "tail",
    clean=False,
    group=GROUP,
    decisive=[
        "==> logs/refunds_worker.log <==",
        "OSError: [Errno 28] No space left on device: '/var/spool/refunds/batch-0412.csv'",
    ],
)
def _tail_n(root: Path) -> bytes:
    names = [
        "billing_api", "error_codes", "exception_report", "failed_payments", "invoice_worker", "refunds_worker",
        "retry_queue", "shipping_worker", "tax_worker", "webhooks_out",
    ]  # fmt: skip
    crash = (
        "{t} CRITICAL refunds.worker: batch 0412 aborted, worker exiting\n"
        "Traceback (most recent call last):\n"
        '  File "/srv/refunds/worker.py", line 77, in flush_batch\n'
        "    out.write(rows)\n"
        "OSError: [Errno 28] No space left on device: '/var/spool/refunds/batch-0412.csv'"
    )
    for k, name in enumerate(names):
        crash_at = 1999 if name == "refunds_worker" else -1
        _py_log(root / f"logs/{name}.log", name.replace("_", "."), 2000, 40 + k, offset=k, crash_at=crash_at,
                crash=crash)  # fmt: skip
    return _settle(sh("tail -n 150 logs/*.log", root), root)
