"""Held-out outputs (group ``unseen-53``): a fifty-third batch, Python web services at runtime as an agent runs them
while developing: a server started on a free port of 127.0.0.1, a client script (or locust) sending hundreds of
requests to it, the server stopped, and its log printed with the client's report.

Failing runs: uvicorn serving a FastAPI ``ops_console`` where one ``POST /failed_jobs/137/retry`` of 420 answers 500
with a ``KeyError`` traceback among the access lines, gunicorn's sync worker killed by ``WORKER TIMEOUT`` on a slow
``/export/ledger`` request in the middle of 300 others, gunicorn's gthread worker that fails to boot on an
``ImportError`` (``--log-level debug`` with its configuration dump), Flask's dev server where one refund approval
answers 500 with ``Exception on /refunds/77/approve [POST]``, Django's runserver with ``Internal Server Error:`` for one
invoice PDF among 360 requests, ``manage.py check --deploy`` of a project of many apps (one ``admin.E108`` among
security and ``models.W042`` warnings), ``manage.py migrate -v 2`` of 40 migrations where a ``RunSQL`` on
``refunds`` fails, followed by ``showmigrations``, and ``locust --headless`` against a uvicorn service whose
``/retry_queue`` answers 503 to some requests (periodic stats tables, the error report's ``# occurrences`` table).
Clean runs named after errors and failures: uvicorn serving a Starlette ``errors_api`` (expected 404s, INFO lines
about failed jobs), gunicorn's gthread workers serving a Flask ``failed_jobs`` dashboard, ``migrate`` and
``showmigrations`` of apps ``errors``, ``failed_jobs`` and ``retry_queue``, and ``locust --headless`` with 0 failures
against ``/errors`` and ``/failed_jobs``. Labels were written with each scenario, before the engine saw the output.
Needs fastapi, uvicorn, starlette, gunicorn, flask, django, locust and requests from PyPI, installed once into a
virtual environment of their own under ``/tmp/offloader-corpus-venvs``.
"""

from __future__ import annotations

import re
import socket
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-53"

_WEB_REQS = (
    "fastapi==0.165.0 uvicorn==0.55.0 starlette==1.10.0 gunicorn==27.0.1 flask==3.1.3 werkzeug==3.1.9"
    " django==5.2.20 locust==2.47.0 requests==2.34.2"
)
#: The environment the services run in, made once and kept between runs.
_VENV = VENVS / "u53-web"


def _web(root: Path) -> str:
    """The environment prefix that runs the services and clients with the pinned web stack (made once)."""
    make_venv(_VENV, _WEB_REQS, pip_options="--only-binary :all:", isolated=False)
    return (
        f"PATH={_VENV}/bin:$PATH HOME={root} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1"
        " PYTHONWARNINGS=ignore"
    )


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: The project's own dev script: start the server in the background, wait for its port, run the client, stop the
#: server, print its log (before or after the client's report).
_HIT = """
#!/bin/sh
# usage: dev/hit.sh PORT "server command" "client command" [log-first]
PORT=$1
export PORT
sh -c "exec $2" > server.log 2>&1 &
SERVER=$!
python dev/wait_port.py "$PORT"
sh -c "$3" > client.log 2>&1
status=$?
kill -TERM $SERVER
wait $SERVER 2>/dev/null
if [ "$4" = log-first ]; then
    echo "==> server.log <=="
    cat server.log
    echo "==> client <=="
    cat client.log
else
    cat client.log
    echo "==> server.log <=="
    cat server.log
fi
exit $status
"""

_WAIT = """
import socket
import sys
import time

port = int(sys.argv[1])
for _ in range(300):
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
        break
    except OSError:
        time.sleep(0.1)
else:
    sys.exit(f"server on port {port} did not come up")
"""


def _serve(root: Path, server: str, client: str, *, log_first: bool = False) -> tuple[bytes, int]:
    """Run ``server`` (``$PORT`` in it) in the background and ``client`` against it; the output and the port."""
    write(root, {"dev/hit.sh": _HIT, "dev/wait_port.py": _WAIT})
    port = _free_port()
    order = " log-first" if log_first else ""
    out = sh(f"{_web(root)} sh dev/hit.sh {port} '{server}' '{client}'{order}", root, timeout=300)
    return out, port


def _settle(out: bytes, root: Path, port: int = 0) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the port, client ports, PIDs, clocks."""
    out = scrub(out, root)
    if port:
        out = out.replace(str(port).encode(), b"8000")
    return substitute(
        out,
        (r"127\.0\.0\.1:\d+ - ", "127.0.0.1:50000 - "),
        (r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d [+-]\d{4}\] \[\d+\]", "[2026-01-01 00:00:00 +0000] [1000]"),
        (r"\[\d\d/[A-Z][a-z]{2}/\d{4}:\d\d:\d\d:\d\d [+-]\d{4}\]", "[01/Jan/2026:00:00:00 +0000]"),
        (r"\[\d\d/[A-Z][a-z]{2}/\d{4} \d\d:\d\d:\d\d\]", "[01/Jan/2026 00:00:00]"),
        (r"\(pid: ?\d+\)", "(pid:1000)"),
        (r"pid: \d+", "pid: 1000"),
        (r"process \[\d+\]", "process [1000]"),
        (r"(Listening at: \S+) \(\d+\)", r"\1 (1000)"),
        (r"^[A-Z][a-z]+ \d\d, \d{4} - \d\d:\d\d:\d\d$", "January 01, 2026 - 00:00:00"),
        (r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] [^/ ]+/", "[2026-01-01 00:00:00,000] host/"),
        (r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}\] ", "[2026-01-01 00:00:00,000] "),
        (r'(HTTP/1\.1" 500) \d+$', r"\1 145"),
        (r" OK \(\d+\.\d+s\)", " OK (0.001s)"),
        (r"in \d+\.\d+ ?s\b", "in 0.10s"),
        (r"0x[0-9a-f]{8,16}", "0x7f0000000000"),
    )


# ---------------------------------------------------------------- uvicorn with FastAPI: one 500 in the middle

_OPS_MAIN = '''
"""ops_console: the billing team's view of failed jobs, the retry queue and recent errors."""
import logging

from fastapi import FastAPI

from ops_console.routes import errors, failed_jobs, invoices, retry_queue

app = FastAPI(title="ops_console")
app.include_router(errors.router)
app.include_router(failed_jobs.router)
app.include_router(retry_queue.router)
app.include_router(invoices.router)
logging.getLogger("uvicorn.error").info("ops_console: 4 routers mounted")
'''

_OPS_STORE = '''
"""An in-memory store of failed jobs (the real one is PostgreSQL)."""

FAILED_JOBS = {
    n: {"id": n, "kind": ["invoice_pdf", "refund_sync", "ledger_post"][n % 3], "attempts": n % 4,
        "payload": {"retry_queue": "billing-retry", "invoice": 1000 + n}}
    for n in range(1, 200)
}
# job 137 came from the old importer and has no queue in its payload
FAILED_JOBS[137]["payload"] = {"invoice": 1137}
RETRY_QUEUE: list[int] = []
'''

_OPS_FAILED = """
from fastapi import APIRouter, HTTPException

from ops_console.store import FAILED_JOBS, RETRY_QUEUE

router = APIRouter(prefix="/failed_jobs")


@router.get("")
def list_failed_jobs(page: int = 1):
    ids = sorted(FAILED_JOBS)[(page - 1) * 20 : page * 20]
    return {"page": page, "jobs": [FAILED_JOBS[i] for i in ids]}


@router.get("/{job_id}")
def get_failed_job(job_id: int):
    if job_id not in FAILED_JOBS:
        raise HTTPException(404, "no such failed job")
    return FAILED_JOBS[job_id]


def _queue_for(job: dict) -> str:
    payload = job["payload"]
    return payload["retry_queue"]


@router.post("/{job_id}/retry")
def retry_failed_job(job_id: int):
    job = FAILED_JOBS[job_id]
    queue = _queue_for(job)
    RETRY_QUEUE.append(job_id)
    job["attempts"] += 1
    return {"job": job_id, "queue": queue, "attempts": job["attempts"]}
"""

_OPS_OTHER = {
    "ops_console/routes/errors.py": """
        from fastapi import APIRouter

        router = APIRouter(prefix="/errors")


        @router.get("")
        def recent_errors(limit: int = 20):
            return {"errors": [{"id": i, "code": "E%03d" % (i % 40)} for i in range(limit)]}
    """,
    "ops_console/routes/retry_queue.py": """
        from fastapi import APIRouter

        from ops_console.store import RETRY_QUEUE

        router = APIRouter(prefix="/retry_queue")


        @router.get("")
        def retry_queue_depth():
            return {"depth": len(RETRY_QUEUE), "head": RETRY_QUEUE[:5]}
    """,
    "ops_console/routes/invoices.py": """
        from fastapi import APIRouter

        router = APIRouter(prefix="/invoices")


        @router.get("/{invoice_id}")
        def get_invoice(invoice_id: int):
            return {"id": invoice_id, "total_cents": invoice_id * 37 % 10000, "status": "open"}
    """,
}

_OPS_CLIENT = """
\"\"\"Smoke test: 420 requests against the ops console, as the dashboard sends them.\"\"\"
import os
from collections import Counter

import requests

base = f"http://127.0.0.1:{os.environ['PORT']}"
s = requests.Session()
s.mount("http://", requests.adapters.HTTPAdapter(max_retries=3))  # the server closes the connection after a 500
statuses = Counter()
bad = []
for i in range(1, 421):
    kind = i % 6
    if kind == 0:
        method, path = "GET", f"/failed_jobs?page={i % 9 + 1}"
    elif kind == 1:
        method, path = "POST", f"/failed_jobs/{(i * 36) % 199 + 1}/retry"
    elif kind == 2:
        method, path = "GET", "/retry_queue"
    elif kind == 3:
        method, path = "GET", f"/errors?limit={i % 30 + 1}"
    elif kind == 4:
        method, path = "GET", f"/invoices/{1000 + i}"
    else:
        method, path = "GET", f"/failed_jobs/{i % 199 + 1}"
    r = s.request(method, base + path)
    statuses[r.status_code] += 1
    if r.status_code >= 500:
        bad.append(f"{method} {path} -> {r.status_code}")
    if i % 60 == 0:
        print(f"sent {i} requests")
print("status codes:", dict(sorted(statuses.items())))
for line in bad:
    print("server error:", line)
raise SystemExit(1 if bad else 0)
"""


@case(
    "u53_uvicorn_fastapi_500",
    "uvicorn",
    clean=False,
    group=GROUP,
    decisive=[
        "KeyError: 'retry_queue'",
        'ops_console/routes/failed_jobs.py", line 23, in _queue_for',
        '"POST /failed_jobs/137/retry HTTP/1.1" 500 Internal Server Error',
    ],
)
def _uvicorn_500(root: Path) -> bytes:
    write(
        root,
        {
            "ops_console/__init__.py": "",
            "ops_console/routes/__init__.py": "",
            "ops_console/main.py": _OPS_MAIN,
            "ops_console/store.py": _OPS_STORE,
            "ops_console/routes/failed_jobs.py": _OPS_FAILED,
            **_OPS_OTHER,
            "dev/smoke.py": _OPS_CLIENT,
        },
    )
    server = "uvicorn ops_console.main:app --host 127.0.0.1 --port $PORT"
    out, port = _serve(root, server, "python dev/smoke.py")
    return _settle(out, root, port)


# ---------------------------------------------------------------- uvicorn with Starlette: clean, named after errors

_ERRORS_API = '''
"""errors_api: collects client errors, lists failed jobs and drains the retry queue."""
import logging

from starlette.applications import Starlette
from starlette.responses import JSONResponse
from starlette.routing import Route

log = logging.getLogger("uvicorn.error")
ERRORS = {n: {"id": n, "message": f"TimeoutError calling tax service (attempt {n % 3 + 1})"} for n in range(1, 121)}
FAILED_JOBS = {n: {"id": n, "queue": "retry_queue", "exception": "ConnectionResetError"} for n in range(1, 61)}
RETRY_QUEUE = []


async def list_errors(request):
    limit = int(request.query_params.get("limit", 10))
    return JSONResponse({"errors": [ERRORS[i] for i in sorted(ERRORS)[:limit]]})


async def get_error(request):
    n = request.path_params["error_id"]
    if n not in ERRORS:
        return JSONResponse({"detail": "error not found"}, status_code=404)
    return JSONResponse(ERRORS[n])


async def retry_failed_job(request):
    n = request.path_params["job_id"]
    if n not in FAILED_JOBS:
        return JSONResponse({"detail": "failed job not found"}, status_code=404)
    RETRY_QUEUE.append(n)
    if len(RETRY_QUEUE) % 5 == 0:
        log.info("retry_queue: requeued failed job %d (last exception: %s)", n, FAILED_JOBS[n]["exception"])
    return JSONResponse({"queued": n, "depth": len(RETRY_QUEUE)}, status_code=202)


async def drain(request):
    drained = len(RETRY_QUEUE)
    RETRY_QUEUE.clear()
    log.info("retry_queue: drained %d jobs, 0 failed", drained)
    return JSONResponse({"drained": drained})


app = Starlette(
    routes=[
        Route("/errors", list_errors),
        Route("/errors/{error_id:int}", get_error),
        Route("/failed_jobs/{job_id:int}/retry", retry_failed_job, methods=["POST"]),
        Route("/retry_queue/drain", drain, methods=["POST"]),
    ]
)
'''

_ERRORS_CLIENT = """
\"\"\"Contract check of errors_api: every response must have the status the contract says.\"\"\"
import os

import requests

base = f"http://127.0.0.1:{os.environ['PORT']}"
s = requests.Session()
checked = mismatched = 0
for i in range(1, 601):
    kind = i % 5
    if kind == 0:
        method, path, want = "GET", f"/errors?limit={i % 25 + 1}", 200
    elif kind == 1:
        n = i % 150 + 1
        method, path, want = "GET", f"/errors/{n}", 200 if n <= 120 else 404
    elif kind == 2:
        n = i % 70 + 1
        method, path, want = "POST", f"/failed_jobs/{n}/retry", 202 if n <= 60 else 404
    elif kind == 3:
        method, path, want = "GET", f"/errors/{i % 120 + 1}", 200
    else:
        method, path, want = ("POST", "/retry_queue/drain", 200) if i % 100 == 4 else ("GET", "/errors", 200)
    r = s.request(method, base + path)
    checked += 1
    if r.status_code != want:
        mismatched += 1
        print(f"MISMATCH {method} {path}: got {r.status_code}, want {want}")
print(f"contract check: {checked} requests, {checked - mismatched} as expected, {mismatched} mismatched")
raise SystemExit(1 if mismatched else 0)
"""


@case(
    "u53_uvicorn_starlette_clean",
    "uvicorn",
    clean=True,
    group=GROUP,
    decisive=["contract check: 600 requests, 600 as expected, 0 mismatched"],
)
def _uvicorn_clean(root: Path) -> bytes:
    write(root, {"errors_api/__init__.py": "", "errors_api/app.py": _ERRORS_API, "dev/contract.py": _ERRORS_CLIENT})
    server = "uvicorn errors_api.app:app --host 127.0.0.1 --port $PORT --log-level info"
    out, port = _serve(root, server, "python dev/contract.py", log_first=True)
    return _settle(out, root, port)


# ---------------------------------------------------------------- gunicorn sync worker: WORKER TIMEOUT

_LEDGER_APP = '''
"""ledger_export: a small WSGI app that renders ledger pages and exports a month as CSV."""
import time

from flask import Flask, request

app = Flask(__name__)


@app.get("/ledger/<int:entry>")
def ledger_entry(entry):
    return {"entry": entry, "amount_cents": entry * 113 % 50000}


@app.get("/export/ledger")
def export_ledger():
    month = request.args["month"]
    rows = ["entry,amount_cents"]
    for entry in range(1, 40):
        if month == "2024-03":
            time.sleep(1.0)  # the March ledger is read row by row from the archive
        rows.append(f"{entry},{entry * 113 % 50000}")
    return "\\n".join(rows), 200, {"Content-Type": "text/csv"}
'''

_LEDGER_CLIENT = """
import os

import requests

base = f"http://127.0.0.1:{os.environ['PORT']}"
failed = 0
for i in range(1, 301):
    path = f"/ledger/{i}"
    if i % 50 == 0:
        path = f"/export/ledger?month=2024-{i // 50:02d}"
    try:
        r = requests.get(base + path, timeout=30)
        print(f"{i:3d} GET {path} {r.status_code} {len(r.content)} bytes")
        failed += r.status_code >= 500
    except requests.RequestException as exc:
        failed += 1
        print(f"{i:3d} GET {path} FAILED: {exc.__class__.__name__}: {exc}")
print(f"done: 300 requests, {failed} failed")
raise SystemExit(1 if failed else 0)
"""


@case(
    "u53_gunicorn_worker_timeout",
    "gunicorn",
    clean=False,
    group=GROUP,
    decisive=[
        "[CRITICAL] WORKER TIMEOUT (pid:1000)",
        "150 GET /export/ledger?month=2024-03 500",
        'ledger_export/app.py", line 20, in export_ledger',
    ],
)
def _gunicorn_timeout(root: Path) -> bytes:
    write(root, {"ledger_export/__init__.py": "", "ledger_export/app.py": _LEDGER_APP, "dev/fetch.py": _LEDGER_CLIENT})
    server = (
        "gunicorn ledger_export.app:app --bind 127.0.0.1:$PORT --workers 1 --worker-class sync --timeout 3"
        " --access-logfile - --error-logfile -"
    )
    out, port = _serve(root, server, "python dev/fetch.py")
    return _settle(out, root, port)


# ---------------------------------------------------------------- gunicorn gthread: a worker that fails to boot

_RETRY_WSGI = '''
"""retry_service: the WSGI entry point."""
from retry_service.app import create_app

application = create_app()
'''

_RETRY_APP = """
from flask import Flask

from retry_service.backoff import jittered_backoff
from retry_service.queue import RetryQueue


def create_app():
    app = Flask("retry_service")
    queue = RetryQueue()

    @app.post("/retry_queue/<int:job>")
    def enqueue(job):
        delay = jittered_backoff(queue.attempts(job))
        queue.push(job, delay)
        return {"job": job, "delay": delay}

    return app
"""

_RETRY_BACKOFF = '''
"""Backoff policies of the retry queue (jittered_backoff moved to retry_service.policies in 2.0)."""


def exponential_backoff(attempt: int, base: float = 0.5, cap: float = 60.0) -> float:
    return min(cap, base * 2**attempt)
'''

_RETRY_QUEUE = """
class RetryQueue:
    def __init__(self):
        self._jobs = {}

    def attempts(self, job: int) -> int:
        return self._jobs.get(job, (0, 0.0))[0]

    def push(self, job: int, delay: float) -> None:
        self._jobs[job] = (self.attempts(job) + 1, delay)
"""


@case(
    "u53_gunicorn_boot_failure",
    "gunicorn",
    clean=False,
    group=GROUP,
    decisive=[
        "ImportError: cannot import name 'jittered_backoff' from 'retry_service.backoff'",
        'retry_service/app.py", line 3, in <module>',
        "Reason: Worker failed to boot.",
    ],
)
def _gunicorn_boot(root: Path) -> bytes:
    write(
        root,
        {
            "retry_service/__init__.py": "",
            "retry_service/wsgi.py": _RETRY_WSGI,
            "retry_service/app.py": _RETRY_APP,
            "retry_service/backoff.py": _RETRY_BACKOFF,
            "retry_service/queue.py": _RETRY_QUEUE,
        },
    )
    cmd = (
        "gunicorn retry_service.wsgi:application --bind 127.0.0.1:$PORT --workers 1 --worker-class gthread"
        " --threads 4 --timeout 30 --log-level debug --access-logfile -"
    )
    port = _free_port()
    return _settle(sh(f"export PORT={port}; {_web(root)} {cmd}", root, timeout=120), root, port)


# ---------------------------------------------------------------- gunicorn gthread: clean, a failed_jobs dashboard

_DASH_APP = '''
"""failed_jobs_dashboard: pages of failed jobs, their exceptions and the retry queue."""
from flask import Flask, abort, request

app = Flask(__name__)
EXCEPTIONS = ["TimeoutError", "ConnectionResetError", "IntegrityError", "ValidationError"]
FAILED_JOBS = [
    {"id": n, "exception": EXCEPTIONS[n % 4], "retries": n % 5, "queue": "retry_queue"} for n in range(1, 301)
]


@app.get("/failed_jobs")
def failed_jobs():
    page = int(request.args.get("page", 1))
    return {"page": page, "jobs": FAILED_JOBS[(page - 1) * 25 : page * 25]}


@app.get("/failed_jobs/<int:job>")
def failed_job(job):
    if not 1 <= job <= len(FAILED_JOBS):
        abort(404)
    return FAILED_JOBS[job - 1]


@app.get("/exceptions/summary")
def exceptions_summary():
    counts = {}
    for job in FAILED_JOBS:
        counts[job["exception"]] = counts.get(job["exception"], 0) + 1
    return counts


@app.get("/healthz")
def healthz():
    return {"status": "ok", "failed_jobs": len(FAILED_JOBS)}
'''

_DASH_CLIENT = """
import os

import requests

base = f"http://127.0.0.1:{os.environ['PORT']}"
s = requests.Session()
errors = 0
for i in range(1, 481):
    path = ["/failed_jobs?page=%d" % (i % 12 + 1), f"/failed_jobs/{i % 300 + 1}", "/exceptions/summary"][i % 3]
    r = s.get(base + path)
    errors += r.status_code != 200
print(f"load check: 480 requests, {480 - errors} answered 200, errors: {errors}")
r = s.get(base + "/healthz")
print("healthz:", r.status_code, r.json())
raise SystemExit(1 if errors else 0)
"""


@case(
    "u53_gunicorn_gthread_clean",
    "gunicorn",
    clean=True,
    group=GROUP,
    decisive=["load check: 480 requests, 480 answered 200, errors: 0", "[INFO] Shutting down: Master"],
)
def _gunicorn_clean(root: Path) -> bytes:
    write(root, {"failed_jobs_dashboard.py": _DASH_APP, "dev/load_check.py": _DASH_CLIENT})
    server = (
        "gunicorn failed_jobs_dashboard:app --bind 127.0.0.1:$PORT --workers 2 --worker-class gthread --threads 4"
        " --access-logfile - --error-logfile -"
    )
    out, port = _serve(root, server, "python dev/load_check.py", log_first=True)
    return _settle(out, root, port)


# ---------------------------------------------------------------- Flask's dev server: one 500 in the middle

_REFUNDS_APP = '''
"""refunds_service: approve, list and total the refunds of orders."""
from decimal import Decimal

from flask import Flask, request

app = Flask(__name__)
REFUNDS = {n: {"id": n, "order": 5000 + n, "amount": str(Decimal(n * 137 % 9000) / 100), "state": "requested"}
           for n in range(1, 151)}
# refund 77 was imported from the old billing system with its amount as a string with a currency
REFUNDS[77]["amount"] = "EUR 12.50"


def _fee(amount: str) -> Decimal:
    return (Decimal(amount) * Decimal("0.029")).quantize(Decimal("0.01"))


@app.get("/refunds")
def list_refunds():
    state = request.args.get("state", "requested")
    return {"refunds": [r for r in REFUNDS.values() if r["state"] == state][:20]}


@app.get("/refunds/<int:refund_id>")
def get_refund(refund_id):
    return REFUNDS[refund_id]


@app.post("/refunds/<int:refund_id>/approve")
def approve_refund(refund_id):
    refund = REFUNDS[refund_id]
    refund["fee"] = str(_fee(refund["amount"]))
    refund["state"] = "approved"
    return refund


@app.get("/orders/<int:order>/refunds")
def order_refunds(order):
    return {"order": order, "refunds": [r["id"] for r in REFUNDS.values() if r["order"] == order]}
'''

_REFUNDS_CLIENT = """
import os

import requests

base = f"http://127.0.0.1:{os.environ['PORT']}"
s = requests.Session()
ok = 0
problems = []
for i in range(1, 451):
    kind = i % 3
    n = (i * 7) % 150 + 1
    if kind == 0 or (kind == 1 and 150 < i <= 300):
        method, path = "POST", f"/refunds/{n}/approve"
    elif kind == 1:
        method, path = "GET", f"/refunds/{n}"
    else:
        method, path = "GET", f"/orders/{5000 + n}/refunds"
    r = s.request(method, base + path)
    if r.ok:
        ok += 1
    else:
        problems.append(f"{method} {path}: HTTP {r.status_code}")
print(f"{ok} of 450 requests ok")
for p in problems:
    print("  problem:", p)
raise SystemExit(1 if problems else 0)
"""


@case(
    "u53_flask_dev_500",
    "flask",
    clean=False,
    group=GROUP,
    decisive=[
        "Exception on /refunds/77/approve [POST]",
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
        'refunds_service.py", line 14, in _fee',
    ],
)
def _flask_500(root: Path) -> bytes:
    write(root, {"refunds_service.py": _REFUNDS_APP, "dev/exercise.py": _REFUNDS_CLIENT})
    server = "flask --app refunds_service run --host 127.0.0.1 --port $PORT"
    out, port = _serve(root, server, "python dev/exercise.py", log_first=True)
    return _settle(out, root, port)


# ---------------------------------------------------------------- Django: a project of many apps

_MANAGE = """
#!/usr/bin/env python
import os
import sys

if __name__ == "__main__":
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "site_conf.settings")
    from django.core.management import execute_from_command_line

    execute_from_command_line(sys.argv)
"""


def _settings(apps: list[str], *, auto_field: bool = True, debug: bool = True) -> str:
    installed = "".join(f'    "{a}",\n' for a in apps)
    return (
        "from pathlib import Path\n\nBASE_DIR = Path(__file__).resolve().parent.parent\n"
        'SECRET_KEY = "dev-only-billing-platform-key"\n'
        f'DEBUG = {debug}\nALLOWED_HOSTS = ["127.0.0.1", "localhost"]\n'
        "INSTALLED_APPS = [\n"
        '    "django.contrib.admin",\n    "django.contrib.auth",\n    "django.contrib.contenttypes",\n'
        '    "django.contrib.sessions",\n    "django.contrib.messages",\n    "django.contrib.staticfiles",\n'
        f"{installed}]\n"
        "MIDDLEWARE = [\n"
        '    "django.middleware.security.SecurityMiddleware",\n'
        '    "django.contrib.sessions.middleware.SessionMiddleware",\n'
        '    "django.middleware.common.CommonMiddleware",\n'
        '    "django.middleware.csrf.CsrfViewMiddleware",\n'
        '    "django.contrib.auth.middleware.AuthenticationMiddleware",\n'
        '    "django.contrib.messages.middleware.MessageMiddleware",\n]\n'
        'ROOT_URLCONF = "site_conf.urls"\n'
        "TEMPLATES = [{\n"
        '    "BACKEND": "django.template.backends.django.DjangoTemplates",\n    "APP_DIRS": True,\n'
        '    "OPTIONS": {"context_processors": [\n'
        '        "django.template.context_processors.request",\n'
        '        "django.contrib.auth.context_processors.auth",\n'
        '        "django.contrib.messages.context_processors.messages",\n    ]},\n}]\n'
        'DATABASES = {"default": {"ENGINE": "django.db.backends.sqlite3", "NAME": BASE_DIR / "db.sqlite3"}}\n'
        'STATIC_URL = "static/"\nUSE_TZ = True\n'
        + ('DEFAULT_AUTO_FIELD = "django.db.models.BigAutoField"\n' if auto_field else "")
    )


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


def _django_app(root: Path, app: str, model: str, fields: list[str], broken_sql: int = 0) -> None:
    """``app`` with one ``model``: 0001 creates it, each next migration adds one integer field of ``fields``;
    migration number ``broken_sql`` (if any) is a data backfill whose SQL names a column that does not exist."""
    files = {f"{app}/__init__.py": "", f"{app}/migrations/__init__.py": ""}
    body = "".join(f"    {f} = models.IntegerField(default=0)\n" for f in fields)
    files[f"{app}/models.py"] = (
        "from django.db import models\n\n\n"
        f"class {model}(models.Model):\n    name = models.CharField(max_length=120)\n{body}\n"
        f"    def __str__(self):\n        return self.name\n"
    )
    files[f"{app}/migrations/0001_initial.py"] = (
        "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
        "    initial = True\n    dependencies = []\n    operations = [\n        migrations.CreateModel(\n"
        f'            name="{model}",\n            fields=[\n'
        '                ("id", models.BigAutoField(auto_created=True, primary_key=True, serialize=False)),\n'
        '                ("name", models.CharField(max_length=120)),\n            ],\n        ),\n    ]\n'
    )
    prev = "0001_initial"
    number = 2
    for f in fields:
        if number == broken_sql:
            name = f"{number:04d}_backfill_{fields[0]}"
            files[f"{app}/migrations/{name}.py"] = (
                "from django.db import migrations\n\n\nclass Migration(migrations.Migration):\n"
                f'    dependencies = [("{app}", "{prev}")]\n    operations = [\n'
                f'        migrations.RunSQL("UPDATE {app}_{model.lower()} SET {fields[0]} = attempts WHERE 1 = 1"),\n'
                "    ]\n"
            )
            prev, number = name, number + 1
        name = f"{number:04d}_{model.lower()}_{f}"
        files[f"{app}/migrations/{name}.py"] = (
            "from django.db import migrations, models\n\n\nclass Migration(migrations.Migration):\n"
            f'    dependencies = [("{app}", "{prev}")]\n    operations = [\n'
            f'        migrations.AddField(model_name="{model.lower()}", name="{f}",'
            " field=models.IntegerField(default=0)),\n    ]\n"
        )
        prev, number = name, number + 1
    write(root, files)


def _django_site(root: Path, apps: dict[str, tuple[str, list[str]]], *, broken: str = "", **kw: bool) -> None:
    for app, (model, fields) in apps.items():
        _django_app(root, app, model, fields, broken_sql=4 if app == broken else 0)
    write(
        root,
        {
            "manage.py": _MANAGE,
            "site_conf/__init__.py": "",
            "site_conf/settings.py": _settings(list(apps), **kw),
            "site_conf/urls.py": "urlpatterns = []\n",
        },
    )


_BILLING_APPS = {
    "invoices": ("Invoice", ["total_cents", "tax_cents", "due_days", "reminders_sent", "pdf_pages", "currency_id"]),
    "ledger": ("Entry", ["amount_cents", "account_id", "batch_id", "reversal_of", "period"]),
    "orders": ("Order", ["items", "cart_id", "coupon_id", "shipping_cents", "weight_grams", "region_id"]),
    "refunds": ("Refund", ["retry_count", "amount_cents", "order_id", "reason_code", "approved_by", "fee_cents"]),
    "shipping": ("Shipment", ["carrier_id", "parcels", "label_pages", "zone"]),
    "tax": ("TaxRate", ["basis_points", "region_id", "valid_from", "valid_to"]),
    "webhooks": ("Delivery", ["attempts", "status_code", "endpoint_id", "latency_ms", "signature_version"]),
}


@case(
    "u53_django_migrate_fail",
    "django manage.py",
    clean=False,
    group=GROUP,
    decisive=[
        "Applying refunds.0004_backfill_retry_count...",
        "django.db.utils.OperationalError: no such column: attempts",
        "[ ] 0004_backfill_retry_count",
    ],
)
def _django_migrate_fail(root: Path) -> bytes:
    _django_site(root, _BILLING_APPS, broken="refunds")
    cmd = "python manage.py migrate -v 2; python manage.py showmigrations"
    return _settle(sh(f"{_web(root)} sh -c '{cmd}'", root), root)


_ERRORS_APPS = {
    "errors": ("ErrorEvent", ["fingerprint", "occurrences", "first_seen", "last_seen", "release_id", "level"]),
    "exceptions_log": ("LoggedException", ["frames", "thread_id", "handled", "service_id", "sampled"]),
    "failed_jobs": ("FailedJob", ["attempts", "queue_id", "exception_id", "worker_id", "payload_bytes", "priority"]),
    "retry_queue": (
        "RetryItem",
        ["failed_job_id", "attempt", "delay_ms", "jitter_ms", "deadletter", "backoff_cap", "lease_s", "owner_id"],
    ),
    "webhooks": ("Delivery", ["attempts", "status_code", "endpoint_id", "latency_ms"]),
    "audit": ("AuditRecord", ["actor_id", "action", "target_id", "ip_hash"]),
}


@case(
    "u53_django_showmigrations_clean",
    "django manage.py",
    clean=True,
    group=GROUP,
    decisive=["Applying retry_queue.0009_retryitem_owner_id... OK", "[X] 0009_retryitem_owner_id"],
)
def _django_showmigrations(root: Path) -> bytes:
    _django_site(root, _ERRORS_APPS)
    cmd = "python manage.py migrate -v 2 && python manage.py showmigrations && python manage.py check"
    return _settle(sh(f"{_web(root)} sh -c '{cmd}'", root), root)


_CHECK_APPS = {
    name: (_camel(name.rstrip("s")), ["amount_cents", "attempts", "region_id"])
    for name in [
        "invoices", "ledger", "orders", "refunds", "shipping", "catalog", "pricing", "coupons", "carts", "sessions_log",
        "exports", "audit", "webhooks", "searches", "billing_runs", "failed_jobs",
    ]
}  # fmt: skip


@case(
    "u53_django_check_deploy",
    "django manage.py",
    clean=False,
    group=GROUP,
    decisive=[
        "(admin.E108) The value of 'list_display[2]' refers to 'retry_count'",
        "System check identified 56 issues (0 silenced).",
    ],
)
def _django_check(root: Path) -> bytes:
    for app, (model, fields) in _CHECK_APPS.items():
        extra = "".join(
            f"\nclass {model}{k}(models.Model):\n    label = models.CharField(max_length=40)\n" for k in "AB"
        )
        write(
            root,
            {
                f"{app}/__init__.py": "",
                f"{app}/models.py": "from django.db import models\n\n\n"
                f"class {model}(models.Model):\n    name = models.CharField(max_length=120)\n"
                + "".join(f"    {f} = models.IntegerField(default=0)\n" for f in fields)
                + extra,
            },
        )
    write(
        root,
        {
            "failed_jobs/admin.py": """
                from django.contrib import admin

                from failed_jobs.models import FailedJob


                @admin.register(FailedJob)
                class FailedJobAdmin(admin.ModelAdmin):
                    list_display = ("name", "attempts", "retry_count", "region_id")
            """,
            "manage.py": _MANAGE,
            "site_conf/__init__.py": "",
            "site_conf/settings.py": _settings(list(_CHECK_APPS), auto_field=False),
            "site_conf/urls.py": "urlpatterns = []\n",
        },
    )
    return _settle(sh(f"{_web(root)} python manage.py check --deploy", root), root)


# ---------------------------------------------------------------- Django's runserver: one 500 in the middle

_INVOICE_VIEWS = """
from django.http import HttpResponse, JsonResponse


def _invoice(number):
    lines = [{"sku": f"SKU-{number}-{k}", "cents": (number * 31 + k * 7) % 5000} for k in range(number % 5 + 1)]
    return {"number": number, "lines": lines, "currency": None if number == 42 else "EUR"}


def invoice_detail(request, number):
    return JsonResponse(_invoice(number))


def invoice_pdf(request, number):
    invoice = _invoice(number)
    title = "Invoice " + str(number) + " (" + invoice["currency"] + ")"
    return HttpResponse(f"%PDF-1.4 {title}".encode(), content_type="application/pdf")


def ledger_summary(request):
    return JsonResponse({"open": 12, "closed": 388})
"""

_INVOICE_URLS = """
from django.urls import path

from invoices import views

urlpatterns = [
    path("invoices/<int:number>/", views.invoice_detail),
    path("invoices/<int:number>/pdf/", views.invoice_pdf),
    path("ledger/summary/", views.ledger_summary),
]
"""

_INVOICE_CLIENT = """
import os

import requests

base = f"http://127.0.0.1:{os.environ['PORT']}"
s = requests.Session()
codes = {}
for i in range(1, 361):
    path = [f"/invoices/{i}/", f"/invoices/{(i * 6) % 97 + 1}/pdf/", "/ledger/summary/"][i % 3]
    r = s.get(base + path)
    codes[r.status_code] = codes.get(r.status_code, 0) + 1
print("responses by status:", codes)
"""


@case(
    "u53_django_runserver_500",
    "django manage.py",
    clean=False,
    group=GROUP,
    decisive=[
        "Internal Server Error: /invoices/42/pdf/",
        'TypeError: can only concatenate str (not "NoneType") to str',
        'invoices/views.py", line 15, in invoice_pdf',
    ],
)
def _django_runserver(root: Path) -> bytes:
    _django_site(root, {"invoices": ("Invoice", ["total_cents"])})
    write(
        root,
        {
            "invoices/views.py": _INVOICE_VIEWS,
            "site_conf/urls.py": _INVOICE_URLS,
            "dev/crawl.py": _INVOICE_CLIENT,
        },
    )
    sh(f"{_web(root)} python manage.py migrate -v 0", root)
    server = "python manage.py runserver 127.0.0.1:$PORT --noreload"
    out, port = _serve(root, server, "python dev/crawl.py", log_first=True)
    return _settle(out, root, port)


# ---------------------------------------------------------------- locust --headless against a uvicorn service

_RETRY_API = '''
"""retry_api: the retry queue in front of the billing workers."""
from fastapi import FastAPI, HTTPException
from pydantic import BaseModel

app = FastAPI(title="retry_api")
QUEUE: list[int] = []
SHED_EVERY = {shed}  # the queue sheds load for jobs whose id is a multiple of this (0: never)


class Job(BaseModel):
    job: int
    kind: str = "invoice_pdf"


@app.get("/errors")
def errors(page: int = 1):
    return {{"page": page, "errors": [{{"id": page * 10 + k, "code": "E%03d" % k}} for k in range(10)]}}


@app.get("/failed_jobs")
def failed_jobs():
    return {{"failed_jobs": list(range(1, 26)), "queue_depth": len(QUEUE)}}


@app.get("/failed_jobs/{{job_id}}")
def failed_job(job_id: int):
    return {{"id": job_id, "exception": "TimeoutError", "attempts": job_id % 4}}


@app.post("/retry_queue")
def enqueue(job: Job):
    if SHED_EVERY and job.job % SHED_EVERY == 0:
        raise HTTPException(503, "retry queue is shedding load")
    QUEUE.append(job.job)
    return {{"queued": job.job, "depth": len(QUEUE)}}


@app.get("/invoices/{{number}}")
def invoice(number: int):
    return {{"number": number, "total_cents": number * 37 % 10000}}
'''

_LOCUSTFILE = '''
"""Load profile of the billing dashboard: every user sends 6 bursts of requests, one every 4 seconds."""
import time

import gevent
import locust.stats
from locust import HttpUser, constant, task

locust.stats.CONSOLE_STATS_INTERVAL_SEC = 4  # one stats table per burst, printed between two bursts
BURSTS = 6
finished = []


class DashboardUser(HttpUser):
    wait_time = constant(0)

    def on_start(self):
        self.burst_no = 0
        self.started = time.monotonic()

    @task
    def burst(self):
        self.burst_no += 1
        n = self.burst_no
        gevent.sleep(max(0.0, self.started + 4.0 * n - 2.0 - time.monotonic()))  # bursts at 2 s, 6 s, 10 s, ...
        self.client.get(f"/errors?page={n}", name="/errors")
        self.client.get("/failed_jobs")
        for k in range(3):
            self.client.get(f"/failed_jobs/{n * 3 + k}", name="/failed_jobs/[id]")
            self.client.post("/retry_queue", json={"job": n * 3 + k})
        self.client.get(f"/invoices/{1000 + n}", name="/invoices/[number]")
        if n == BURSTS:
            finished.append(self)
            if len(finished) == self.environment.runner.user_count:
                gevent.spawn(self.environment.runner.quit)
            gevent.sleep(3600)
'''


_STATS_ROW = re.compile(
    rb"^((?:GET|POST) +\S+| +Aggregated)( +\d+ +\d+\(\d+\.\d+%\) \|)( +\d+ +\d+ +\d+ +\d+ \| +\d+\.\d+ +\d+\.\d+)$",
    re.M,
)
_PERCENTILE_ROW = re.compile(rb"^((?:GET|POST) +\S+| +Aggregated)((?: +\d+){11})( +\d+)$", re.M)


def _fixed(numbers: bytes, values: list[str]) -> bytes:
    """``numbers`` (right-aligned columns) with each number replaced by the next of ``values``, columns kept."""
    it = iter(values)
    return re.sub(rb" *\d+(?:\.\d+)?", lambda m: next(it).rjust(len(m.group())).encode(), numbers)


def _locust_stats(out: bytes) -> bytes:
    """Locust's tables with the timings that differ between runs set to fixed numbers (counts and failures kept)."""
    stats = ["12", "2", "90", "10", "4.00", "0.00"]
    out = _STATS_ROW.sub(lambda m: m.group(1) + m.group(2) + _fixed(m.group(3), stats), out)
    pct = ["10", "12", "14", "15", "18", "22", "40", "60", "90", "90", "90"]
    return _PERCENTILE_ROW.sub(lambda m: m.group(1) + _fixed(m.group(2), pct) + m.group(3), out)


def _locust(root: Path, shed: int) -> bytes:
    write(
        root,
        {"retry_api/__init__.py": "", "retry_api/main.py": _RETRY_API.format(shed=shed), "locustfile.py": _LOCUSTFILE},
    )
    server = "uvicorn retry_api.main:app --host 127.0.0.1 --port $PORT --no-access-log"
    client = "locust --headless -u 4 -r 100 -t 60s --host http://127.0.0.1:$PORT"
    out, port = _serve(root, server, client)
    return _locust_stats(_settle(out, root, port))


@case(
    "u53_locust_failures",
    "locust",
    clean=False,
    group=GROUP,
    decisive=[
        "# occurrences",
        "HTTPError('503 Server Error: Service Unavailable for url: /retry_queue')",
        "Shutting down (exit code 1)",
    ],
)
def _locust_fail(root: Path) -> bytes:
    return _locust(root, shed=7)


@case(
    "u53_locust_clean",
    "locust",
    clean=True,
    group=GROUP,
    decisive=["216     0(0.00%)", "Shutting down (exit code 0)"],
)
def _locust_clean(root: Path) -> bytes:
    return _locust(root, shed=0)
