"""Held-out outputs (group ``unseen-60``): a sixtieth batch, process managers and multiplexed dev environments as an
agent runs a multi-service app locally: honcho's Procfile runner (each line prefixed with a time, the process name
and a bar), pm2 with an ecosystem file (``pm2 start``, ``pm2 ls``, ``pm2 logs --nostream``, ``pm2 describe``),
nodemon restarting an app on file changes, and concurrently running several npm scripts with prefixed output.

Failing runs: ``honcho start`` of five processes where ``retry_queue`` dies on a ``KeyError`` in the middle of its
work and honcho stops the others (each prints its shutdown summary), ``honcho start`` of a web server, a worker, a
scheduler and a ``smoke`` client where one ``POST /refunds/77/approve`` of 150 answers 500 with a traceback in the
web process and the smoke process exits 1, ``pm2 start`` of five apps where ``retry-queue`` is in a restart loop
(``errored`` after its unstable restarts) among four healthy ones, followed by ``pm2 ls``, ``pm2 logs --nostream``
and ``pm2 describe``, nodemon serving an HTTP app through six edits until the seventh makes it crash on boot (``app
crashed - waiting for file changes``), ``concurrently`` of four npm scripts where ``worker`` throws in the middle
and exits 1 while the others finish, and ``concurrently --kill-others-on-fail`` where ``migrate`` fails and the API
is stopped. Clean runs named after errors and failures: ``honcho start`` of ``errors_api``, ``failed_jobs``,
``retry_queue``, ``exceptions_mailer`` and a ``seed`` process that finishes, ``pm2 logs --raw`` and ``pm2 ls`` of
apps ``errors-api``, ``failed-jobs``, ``retry-worker`` and ``exceptions-digest``, nodemon re-running a
``retry_failed`` job script on each edit (``clean exit``), and ``concurrently --group`` of ``node --test`` suites
``test:errors``, ``test:retry`` and ``test:exceptions``. The processes take turns through a file in the scenario's
folder (not shown) so that their interleaved output is the same on every run; honcho's ``X.1 started`` lines,
written in no fixed order, are put in Procfile order. Labels were written with each
scenario, before the engine saw the output. Needs honcho 2.0.0 from PyPI (installed once into a virtual environment
of its own under ``/tmp/offloader-corpus-venvs/u60-procs``) and pm2 7.0.4, nodemon 3.1.14 and concurrently 10.1.0
from the npm registry (installed once under ``/tmp/u60-tools``), with Node.js 20 and npm (Debian ``nodejs``,
``npm``).
"""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

from _harness import PY, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-60"

#: honcho, made once and kept between runs.
_VENV = VENVS / "u60-procs"
#: pm2, nodemon and concurrently, installed once and kept between runs.
_TOOLS = Path("/tmp/u60-tools")
_NPM_CACHE = "/tmp/u60-npm-cache"
_NPM_TOOLS = "pm2@7.0.4 nodemon@3.1.14 concurrently@10.1.0"

_ENV = {
    "FORCE_COLOR": "0",
    "NO_COLOR": "1",
    "npm_config_cache": _NPM_CACHE,
    "npm_config_update_notifier": "false",
    "npm_config_fund": "false",
    "npm_config_audit": "false",
    "PYTHONUNBUFFERED": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
}


def _honcho() -> str:
    make_venv(_VENV, "honcho==2.0.0")
    return f"{_VENV}/bin/honcho"


def _npm_bin() -> Path:
    if not (_TOOLS / ".complete").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        (_TOOLS / "package.json").write_text('{"name": "u60-tools", "private": true}\n')
        sh(f"npm install --no-audit --no-fund --silent {_NPM_TOOLS} && touch .complete", _TOOLS, env=_ENV)
    return _TOOLS / "node_modules/.bin"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settle(out: bytes, root: Path, *pairs: tuple[str, str]) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, pids, durations."""
    return substitute(
        scrub(out, root),
        *pairs,
        (r"^\d\d:\d\d:\d\d (\S)", r"12:00:00 \1"),
        (r"\(pid \d+\)", "(pid 1000)"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+Z?)?", "2026-01-01T00:00:00"),
        (r"\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d_\d+Z", "2026-01-01T00_00_00_000Z"),
        (r"duration_ms:? [0-9.]+", "duration_ms 1.0"),
        (r"\(\d+(\.\d+)?ms\)", "(1.0ms)"),
        (r"(# duration_ms|ℹ duration_ms) .*$", r"\1 1.0"),
    )


# ---------------------------------------------------------------- taking turns (not part of the output)

#: Each process waits for its turn in ``.turns/turn`` before printing, so that the interleaving is the same on
#: every run; a process that crashes leaves a ``crashed`` mark and the others then wait for their SIGTERM.
_TURNS_PY = """
import atexit
import os
import sys
import time
from pathlib import Path

_DIR = Path(os.environ.get("TURNS_DIR", ".turns"))


class Turns:
    def __init__(self, me, names):
        _DIR.mkdir(exist_ok=True)
        self.names, self.me, self.t = names, names.index(me), None
        (_DIR / f"ready-{self.me}").touch()
        while not all((_DIR / f"ready-{k}").exists() for k in range(len(names))):
            time.sleep(0.01)
        time.sleep(0.3)
        atexit.register(self.leave)
        hook = sys.excepthook

        def crashed(*exc):
            (_DIR / "crashed").touch()
            hook(*exc)

        sys.excepthook = crashed

    def _read(self):
        try:
            return int((_DIR / "turn").read_text() or 0)
        except (FileNotFoundError, ValueError):
            return 0

    def wait(self):
        while True:
            if (_DIR / "crashed").exists() and self.t is not None and self._read() != self.t:
                time.sleep(0.05)
                continue
            t = self._read()
            if t % len(self.names) == self.me and not (_DIR / "crashed").exists():
                self.t = t
                return
            time.sleep(0.001)

    def done(self):
        sys.stdout.flush()
        sys.stderr.flush()
        time.sleep(0.05)
        n = self.t + 1
        while (_DIR / f"gone-{n % len(self.names)}").exists() and n < self.t + len(self.names):
            n += 1
        tmp = _DIR / f"turn.{self.me}"
        tmp.write_text(str(n))
        tmp.replace(_DIR / "turn")

    def leave(self):
        if (_DIR / f"gone-{self.me}").exists():
            return
        (_DIR / f"gone-{self.me}").touch()
        if self.t is not None and self._read() == self.t:
            self.done()


def idle():
    while True:
        time.sleep(0.5)


def on_sigterm(order, summary):
    import signal

    def stop(signum, frame):
        time.sleep(0.25 * order)
        for line in summary():
            print(line)
        sys.stdout.flush()
        sys.exit(0)

    signal.signal(signal.SIGTERM, stop)
"""

_TURNS_JS = """
const fs = require("fs");
const path = require("path");

const DIR = process.env.TURNS_DIR || ".turns";
const cell = new Int32Array(new SharedArrayBuffer(4));
const sleep = (ms) => Atomics.wait(cell, 0, 0, ms);

class Turns {
  constructor(me, names) {
    fs.mkdirSync(DIR, { recursive: true });
    this.names = names;
    this.me = names.indexOf(me);
    this.t = null;
    this.seen = new Set();
    fs.writeFileSync(path.join(DIR, `ready-${this.me}`), "");
    while (!names.every((_, k) => fs.existsSync(path.join(DIR, `ready-${k}`)))) sleep(10);
    sleep(300);
    process.on("exit", (code) => this.leave(code));
  }
  read() {
    try {
      return parseInt(fs.readFileSync(path.join(DIR, "turn"), "utf8"), 10) || 0;
    } catch (e) {
      return 0;
    }
  }
  wait() {
    for (;;) {
      const t = this.read();
      if (t % this.names.length === this.me) {
        this.t = t;
        break;
      }
      sleep(1);
    }
    // a process that has just failed: give the runner time to report its exit before going on
    for (let k = 0; k < this.names.length; k++) {
      const gone = path.join(DIR, `gone-${k}`);
      if (!this.seen.has(k) && fs.existsSync(gone) && fs.readFileSync(gone, "utf8") !== "0") sleep(1500);
      if (fs.existsSync(gone)) this.seen.add(k);
    }
  }
  done() {
    sleep(30);
    let n = this.t + 1;
    while (fs.existsSync(path.join(DIR, `gone-${n % this.names.length}`)) && n < this.t + this.names.length) n++;
    const tmp = path.join(DIR, `turn.${this.me}`);
    fs.writeFileSync(tmp, String(n));
    fs.renameSync(tmp, path.join(DIR, "turn"));
  }
  leave(code = 0) {
    const gone = path.join(DIR, `gone-${this.me}`);
    if (fs.existsSync(gone)) return;
    fs.writeFileSync(gone, String(code));
    if (this.t !== null && this.read() === this.t) this.done();
  }
}

module.exports = { Turns, sleep };
"""


# ---------------------------------------------------------------- honcho

_HONCHO_NAMES = ["web", "worker", "scheduler", "webhooks", "retry_queue"]

_WEB_PY = """
from common import Turns, on_sigterm

T = Turns("web", {names})
PATHS = ["/orders", "/cart", "/catalog/search", "/pricing/quote", "/invoice", "/shipping/rates", "/coupons/apply"]
served = 0


def summary():
    return [f"[web] SIGTERM: stopping gunicorn-style server, {{served}} requests served, 0 in flight", "[web] bye"]


on_sigterm(0, summary)
for turn in range({turns}):
    T.wait()
    if turn == 0:
        print("[web] listening on http://127.0.0.1:5000 (4 threads)")
    for k in range(1 + turn % 3):
        path = PATHS[(turn + k) % len(PATHS)]
        status = 304 if (turn + k) % 17 == 0 else 200
        served += 1
        size, ms = (turn * 37 + k) % 4000, turn % 40 + 2
        print(f'[web] 127.0.0.1 - "GET {{path}}/{{1000 + turn}} HTTP/1.1" {{status}} {{size}} - {{ms}}ms')
    T.done()
T.leave()
from common import idle
idle()
"""

_WORKER_PY = """
from common import Turns, on_sigterm

T = Turns("worker", {names})
JOBS = ["orders.sync", "invoice.render", "tax.recalculate", "catalog.reindex", "export.nightly", "audit.flush"]
counts = dict.fromkeys(JOBS, 0)


def summary():
    lines = ["[worker] SIGTERM: finishing the current job, then exiting", "[worker] jobs processed this session:"]
    lines += [f"[worker]   {{job:<18}} {{n:>5}}" for job, n in counts.items()]
    return lines


on_sigterm(1, summary)
for turn in range({turns}):
    T.wait()
    if turn == 0:
        print("[worker] connected to redis://127.0.0.1:6379/0, queues: default, billing, exports")
    job = JOBS[turn % len(JOBS)]
    counts[job] += 1
    print(f"[worker] job {{job}} #{{turn + 1}} started (queue=default)")
    print(f"[worker] job {{job}} #{{turn + 1}} finished in {{(turn * 13) % 300 + 5}}ms")
    T.done()
T.leave()
from common import idle
idle()
"""

_SCHEDULER_PY = """
from common import Turns, on_sigterm

T = Turns("scheduler", {names})
TASKS = ["invoice.reminders", "cart.expire", "ledger.reconcile", "shipping.poll_carriers", "coupons.expire"]


def summary():
    lines = ["[scheduler] SIGTERM: no more ticks; next runs were:"]
    lines += [f"[scheduler]   {{t:<24}} every {{(i + 1) * 5}}m" for i, t in enumerate(TASKS)]
    return lines


on_sigterm(2, summary)
for turn in range({turns}):
    T.wait()
    if turn == 0:
        print("[scheduler] loaded 5 periodic tasks from schedule.toml")
    task = TASKS[turn % len(TASKS)]
    print(f"[scheduler] tick {{turn}}: enqueued {{task}} (next in {{(turn % 5 + 1) * 60}}s)")
    T.done()
T.leave()
from common import idle
idle()
"""

_WEBHOOKS_PY = """
from common import Turns, on_sigterm

T = Turns("webhooks", {names})
EVENTS = ["order.created", "invoice.paid", "refund.issued", "shipment.dispatched"]
delivered = 0


def summary():
    return [f"[webhooks] SIGTERM: {{delivered}} deliveries made, outbox empty, closing HTTP pool"]


on_sigterm(3, summary)
for turn in range({turns}):
    T.wait()
    if turn == 0:
        print("[webhooks] delivering to 3 endpoints, signing secret loaded")
    event = EVENTS[turn % len(EVENTS)]
    delivered += 1
    print(f"[webhooks] delivered evt_{{turn:06d}} {{event}} to https://hooks.example.invalid/shop -> 200")
    T.done()
T.leave()
from common import idle
idle()
"""

_RETRY_QUEUE_PY = """
from common import Turns

from ledger import post_retry

T = Turns("retry_queue", {names})
for turn in range({turns}):
    T.wait()
    if turn == 0:
        print("[retry_queue] consuming retry_queue (max attempts 5, backoff 2s..60s)")
    message = {{"id": 5000 + turn, "kind": "payment.capture", "attempt": turn % 4 + 1}}
    if turn != {broken}:
        message["ledger_account"] = f"acct_{{turn % 90:04d}}"
    post_retry(message)
    print(f"[retry_queue] retried {{message['kind']}} #{{message['id']}} attempt {{message['attempt']}}/5 ok")
    T.done()
"""

_LEDGER_PY = """
ACCOUNTS = {}


def account_for(message):
    return message["ledger_account"]


def post_retry(message):
    account = account_for(message)
    ACCOUNTS[account] = ACCOUNTS.get(account, 0) + 1
    return account
"""


def _honcho_app(root: Path, procs: dict[str, str], env_file: str = "") -> None:
    write(root, {"app/common.py": _TURNS_PY})
    for name, body in procs.items():
        write(root, {f"app/{name}.py": body})
    procfile = "".join(f"{name}: python -u app/{name}.py\n" for name in procs)
    write(root, {"Procfile": procfile, ".env": env_file or "PYTHONPATH=app\n"})


def _started_in_order(out: bytes, names: list[str]) -> bytes:
    """honcho's ``X.1 started`` lines (one per process, written as each one's thread spawns it, in no fixed order)
    put in Procfile order; nothing else is moved."""
    lines = out.split(b"\n")
    block = [i for i, line in enumerate(lines[: len(names) + 2]) if b" started (pid=" in line]
    key = {f"{n}.1 started".encode(): k for k, n in enumerate(names)}
    ordered = sorted((lines[i] for i in block), key=lambda line: next(v for k, v in key.items() if k in line))
    for i, line in zip(block, ordered, strict=True):
        lines[i] = line
    return b"\n".join(lines)


def _run_honcho(root: Path, names: list[str], cmd: str = "start --no-colour", *pairs: tuple[str, str]) -> bytes:
    out = sh(f"{_honcho()} {cmd}", root, env=_ENV, timeout=300)
    return _started_in_order(_settle(out, root, (r"\(pid=\d+\)", "(pid=1000)"), *pairs), names)


@case(
    "u60_honcho_retry_queue_crash",
    "honcho",
    clean=False,
    group=GROUP,
    decisive=[
        "KeyError: 'ledger_account'",
        'File "/tmp/work/app/ledger.py", line 5, in account_for',
        "retry_queue.1 stopped (rc=1)",
    ],
)
def _honcho_crash(root: Path) -> bytes:
    names = repr(_HONCHO_NAMES)
    bodies = {
        "web": _WEB_PY.format(names=names, turns=330),
        "worker": _WORKER_PY.format(names=names, turns=330),
        "scheduler": _SCHEDULER_PY.format(names=names, turns=330),
        "webhooks": _WEBHOOKS_PY.format(names=names, turns=330),
        "retry_queue": _RETRY_QUEUE_PY.format(names=names, turns=330, broken=263),
    }
    _honcho_app(root, bodies)
    write(root, {"app/ledger.py": _LEDGER_PY})
    return _run_honcho(root, _HONCHO_NAMES)


_SMOKE_WEB_PY = """
import os
import sys
from http.server import BaseHTTPRequestHandler, HTTPServer

from common import on_sigterm

REFUNDS = {{n: {{"amount": n * 100, "status": "requested"}} for n in range(1, 120) if n != 77}}
served = [0]


class Handler(BaseHTTPRequestHandler):
    def _reply(self, code, body):
        data = body.encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)
        served[0] += 1

    def do_GET(self):
        self._reply(200, '{{"ok": true, "path": "%s"}}' % self.path)

    def do_POST(self):
        parts = self.path.strip("/").split("/")
        if parts[0] == "refunds" and parts[-1] == "approve":
            refund = REFUNDS[int(parts[1])]
            refund["status"] = "approved"
        self._reply(201, '{{"ok": true}}')

    def log_message(self, fmt, *args):
        sys.stderr.write("[web] %s - %s\\n" % (self.address_string(), fmt % args))


server = HTTPServer(("127.0.0.1", int(os.environ["PORT"])), Handler)
on_sigterm(0, lambda: [f"[web] SIGTERM: shutting down, {{served[0]}} responses sent"])
print(f"[web] serving on http://127.0.0.1:{{os.environ['PORT']}}", flush=True)
server.serve_forever()
"""

_SMOKE_SIDE_PY = """
import time

from common import idle, on_sigterm

time.sleep({delay})
on_sigterm({order}, lambda: ["[{name}] SIGTERM: {bye}"])
for line in {lines!r}:
    print("[{name}] " + line, flush=True)
idle()
"""

_SMOKE_PY = """
import os
import socket
import time
import urllib.error
import urllib.request

BASE = "http://127.0.0.1:%s" % os.environ["WEB_PORT"]
for _ in range(200):
    try:
        socket.create_connection(("127.0.0.1", int(os.environ["WEB_PORT"])), timeout=1).close()
        break
    except OSError:
        time.sleep(0.05)
time.sleep(1.5)
checks = []
for n in range(1, 76):
    checks.append(("GET", f"/refunds/{n}"))
    checks.append(("POST", f"/refunds/{n}/approve"))
checks[152:152] = []
checks = checks[:150]
checks.insert(110, ("POST", "/refunds/77/approve"))
checks = checks[:150]
failed = []
for method, path in checks:
    req = urllib.request.Request(BASE + path, method=method, data=b"{}" if method == "POST" else None)
    try:
        with urllib.request.urlopen(req, timeout=5) as resp:
            time.sleep(0.04)
            print(f"[smoke] {method} {path} -> {resp.status} ok", flush=True)
    except (urllib.error.URLError, ConnectionError) as exc:
        failed.append((method, path, exc))
        time.sleep(0.3)
        print(f"[smoke] {method} {path} -> FAILED: {exc}", flush=True)
    time.sleep(0.02)
print(f"[smoke] {len(checks) - len(failed)} passed, {len(failed)} failed of {len(checks)} checks", flush=True)
for method, path, exc in failed:
    print(f"[smoke] FAILED {method} {path}: {exc}", flush=True)
raise SystemExit(1 if failed else 0)
"""


@case(
    "u60_honcho_smoke_refund_500",
    "honcho",
    clean=False,
    group=GROUP,
    decisive=[
        "KeyError: 77",
        "[smoke] FAILED POST /refunds/77/approve:",
        "smoke.1 stopped (rc=1)",
    ],
)
def _honcho_smoke(root: Path) -> bytes:
    port = _free_port()
    worker_lines = [f"queue billing: job refunds.notify #{n} done" for n in range(1, 41)]
    sched_lines = [f"registered periodic task {t}" for t in ("invoice.reminders", "cart.expire", "tax.refresh")]
    procs = {
        "web": _SMOKE_WEB_PY.format(),
        "worker": _SMOKE_SIDE_PY.format(
            delay=0.4, order=1, name="worker", bye="drained, 40 jobs done", lines=["connected", *worker_lines]
        ),
        "scheduler": _SMOKE_SIDE_PY.format(
            delay=0.8, order=2, name="scheduler", bye="stopped 3 periodic tasks", lines=sched_lines
        ),
        "smoke": _SMOKE_PY,
    }
    _honcho_app(root, procs, env_file=f"PYTHONPATH=app\nWEB_PORT={port}\n")
    return _run_honcho(
        root,
        list(procs),
        f"start --no-colour -p {port}",
        (str(port), "5000"),
        (str(port + 100), "5100"),
        (str(port + 200), "5200"),
        (str(port + 300), "5300"),
        (r"\('127\.0\.0\.1', \d+\)", "('127.0.0.1', 40000)"),
        (r"\[\d\d/\w+/\d{4} \d\d:\d\d:\d\d\]", "[01/Jan/2026 00:00:00]"),
    )


_CLEAN_NAMES = ["errors_api", "failed_jobs", "retry_queue", "exceptions_mailer", "seed"]

_CLEAN_PROC_PY = """
from common import Turns, idle, on_sigterm

T = Turns("{name}", {names})
on_sigterm({order}, lambda: ["[{name}] SIGTERM received, shut down cleanly"])
for turn in range({turns}):
    T.wait()
    if turn == 0:
        print("[{name}] {hello}")
    print(f"[{name}] {line}")
    T.done()
T.leave()
idle()
"""


@case(
    "u60_honcho_clean_errors_failed_jobs",
    "honcho",
    clean=True,
    group=GROUP,
    decisive=["[seed] fixtures loaded: 1820 rows in 14 tables, 0 errors", "seed.1 stopped (rc=0)"],
)
def _honcho_clean(root: Path) -> bytes:
    names = repr(_CLEAN_NAMES)
    specs = {
        "errors_api": (
            "errors API listening on 127.0.0.1:5000",
            "GET /errors?page={turn} -> 200 ({turn} error reports listed, 0 new exceptions)",
            260,
        ),
        "failed_jobs": (
            "failed_jobs dashboard: watching the failed job registry",
            "failed job registry scan {turn}: 0 failed jobs, 0 to retry",
            260,
        ),
        "retry_queue": (
            "retry_queue consumer started (max attempts 5)",
            "retry_queue idle: 0 messages waiting, retry backoff reset (check {turn})",
            260,
        ),
        "exceptions_mailer": (
            "exceptions_mailer: digest every 10 minutes",
            "exceptions digest {turn}: nothing to send (0 exceptions since last digest)",
            260,
        ),
        "seed": (
            "seed: loading fixtures for errors, failed_jobs, retry_queue",
            "loaded fixtures/table_{turn:03d}.json ({turn} rows, 0 errors, 0 skipped)",
            261,
        ),
    }
    bodies = {}
    for order, (name, (hello, line, turns)) in enumerate(specs.items()):
        bodies[name] = _CLEAN_PROC_PY.format(name=name, names=names, order=order, hello=hello, line=line, turns=turns)
    bodies["seed"] = bodies["seed"].replace(
        "T.leave()\nidle()\n",
        'print("[seed] fixtures loaded: 1820 rows in 14 tables, 0 errors")\n',
    )
    _honcho_app(root, bodies)
    return _run_honcho(root, _CLEAN_NAMES)


# ---------------------------------------------------------------- pm2


def _pm2_settle(out: bytes, root: Path) -> bytes:
    def cells(m: re.Match[bytes]) -> bytes:
        return b"\xe2\x94\x82 " + b"X".ljust(len(m.group(1))) + b" "

    out = re.sub(rb"\xe2\x94\x82 ((?:\d+(?:\.\d+)?(?:mb|kb|b|s|m|h|%)) *) (?=\xe2\x94\x82)", cells, out)
    out = re.sub(rb"(fork +\xe2\x94\x82 )(\d+ *)", lambda m: m.group(1) + b"1000".ljust(len(m.group(2))), out)
    return _settle(
        out,
        root,
        (r"^(\d+\|[\w-]+ *\| )?.*host metrics.*$", "host metrics | cpu: 0% | ram usage: 25% | disk: 0mb/s"),
        (r"(│ (uptime|created at) {2,}│ )\S+( *)", r"\1N/A\3"),
    )


def _pm2(root: Path) -> str:
    return f"PM2_HOME={root / '.pm2'} PM2_DISCRETE_MODE=true {_npm_bin() / 'pm2'}"


_WAIT_PM2 = """
// wait until every app has reached the status it is expected to settle in
const { execFileSync } = require("child_process");
const want = JSON.parse(process.argv[2]);
for (let i = 0; i < 600; i++) {
  const list = JSON.parse(execFileSync(process.env.PM2_BIN, ["jlist"], { encoding: "utf8" }));
  const ready = Object.entries(want).every(([name, [status, lines]]) => {
    const app = list.find((a) => a.name === name);
    if (!app || app.pm2_env.status !== status) return false;
    const fs = require("fs");
    const log = fs.existsSync(app.pm2_env.pm_out_log_path) ? fs.readFileSync(app.pm2_env.pm_out_log_path, "utf8") : "";
    return log.split("\\n").length > lines;
  });
  if (ready) process.exit(0);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
}
process.exit(1);
"""

_PM2_APP = """
// {name}: {what}
let n = 0;
console.log("{name} started in {mode} mode (node " + process.version + ")");
const timer = setInterval(() => {{
  for (let k = 0; k < 4 && n < {total}; k++, n++) {{
    {line}
  }}
  if (n >= {total}) {{
    clearInterval(timer);
    console.log({done});
  }}
}}, {interval});
setInterval(() => {{}}, 60000);
"""

_RETRY_QUEUE_JS = """
// retry-queue: replays failed payment captures with backoff
const config = require("../../config/retry.json");

function backoffFor(queue) {
  const policy = config.queues[queue];
  return Math.min(policy.backoff.maxAttempts * 2000, 60000);
}

console.log("retry-queue booting, queues: " + Object.keys(config.queues).join(", "));
for (const queue of Object.keys(config.queues)) {
  console.log(`retry-queue: ${queue} backoff ${backoffFor(queue)}ms`);
}
backoffFor("payment.capture");
setInterval(() => {}, 60000);
"""


#: When each app of an ecosystem has written its last line (seconds after its start): apart, and after the restart
#: loop has ended, so that the order of ``pm2 logs`` (by the log files' times) is the same on every run.
_FINISH = {
    "scheduler": 5, "webhooks": 7, "worker": 9, "api": 11,
    "exceptions-digest": 1, "retry-worker": 2, "audit-export": 3, "errors-api": 4, "failed-jobs": 5,
}  # fmt: skip


def _pm2_app(root: Path, name: str, what: str, line: str, total: int, done: str) -> dict[str, object]:
    interval = round(_FINISH[name] * 1000 / (total / 4))
    body = _PM2_APP.format(name=name, what=what, mode="fork", line=line, total=total, done=done, interval=interval)
    write(root, {f"apps/{name}/index.js": body})
    return {"name": name, "script": f"apps/{name}/index.js"}


def _ls(pm2: str, root: Path) -> bytes:
    """``pm2 ls`` once the daemon has its host metrics (the table's last line comes when they are in)."""
    out = b""
    for _ in range(30):
        out = sh(f"{pm2} ls", root, env=_ENV)
        if b"host metrics" in out:
            break
        sh("sleep 0.5", root)
    return out


def _ecosystem(root: Path, apps: list[dict[str, object]]) -> None:
    write(root, {"ecosystem.config.js": "module.exports = " + json.dumps({"apps": apps}, indent=2) + ";\n"})
    write(root, {"dev/wait-pm2.js": _WAIT_PM2})


@case(
    "u60_pm2_retry_queue_restart_loop",
    "pm2",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: Cannot read properties of undefined (reading 'maxAttempts')",
        "at backoffFor (/tmp/work/apps/retry-queue/index.js:6:34)",
        "│ status            │ errored",
    ],
)
def _pm2_loop(root: Path) -> bytes:
    apps = [
        _pm2_app(
            root,
            "api",
            "the shop's HTTP API",
            "console.log(`api: GET /orders/${1000 + n} 200 ${(n * 7) % 90 + 3}ms user=u${n % 40}`);",
            900,
            '"api: warmed cache for 900 orders"',
        ),
        _pm2_app(
            root,
            "worker",
            "background jobs",
            "console.log(`worker: job invoice.render #${n} done (${(n * 13) % 300}ms)`);",
            700,
            '"worker: queue default drained"',
        ),
        _pm2_app(
            root,
            "scheduler",
            "periodic tasks",
            'console.log(`scheduler: tick ${n} enqueued ${["cart.expire", "tax.refresh", "ledger.close"][n % 3]}`);',
            300,
            '"scheduler: next tick in 60s"',
        ),
        _pm2_app(
            root,
            "webhooks",
            "outgoing webhooks",
            'console.log(`webhooks: delivered evt_${String(n).padStart(6, "0")} -> 200`);',
            500,
            '"webhooks: outbox empty"',
        ),
    ]
    write(
        root,
        {
            "apps/retry-queue/index.js": _RETRY_QUEUE_JS,
            "config/retry.json": json.dumps(
                {"queues": {"payment.capture": {"maxAttempts": 5}, "refund.issue": {"maxAttempts": 3}}}, indent=2
            ),
        },
    )
    apps.append(
        {
            "name": "retry-queue",
            "script": "apps/retry-queue/index.js",
            "max_restarts": 8,
            "min_uptime": 3000,
        }
    )
    _ecosystem(root, apps)
    pm2 = _pm2(root)
    want = {"api": ["online", 900], "worker": ["online", 700], "retry-queue": ["errored", 0]}
    want |= {"scheduler": ["online", 300], "webhooks": ["online", 500]}
    try:
        out = sh(f"{pm2} start ecosystem.config.js", root, env=_ENV)
        sh(
            f"PM2_BIN='{pm2.split()[-1]}' node dev/wait-pm2.js '{json.dumps(want)}'",
            root,
            env={**_ENV, "PM2_HOME": str(root / ".pm2")},
        )
        out += _ls(pm2, root)
        out += sh(f"{pm2} logs --nostream --out --lines 400", root, env=_ENV)
        out += sh(f"{pm2} logs retry-queue --nostream --err --lines 11", root, env=_ENV)
        out += sh(f"{pm2} describe retry-queue", root, env=_ENV)
    finally:
        sh(f"{pm2} kill", root, env=_ENV)
    return _pm2_settle(out, root)


@case(
    "u60_pm2_clean_errors_failed_jobs",
    "pm2",
    clean=True,
    group=GROUP,
    decisive=["failed-jobs: registry drained, 640 jobs retried, 0 failed", "│ 4  │ retry-worker"],
)
def _pm2_clean(root: Path) -> bytes:
    apps = [
        _pm2_app(
            root,
            "errors-api",
            "the error reports API",
            "console.log(`errors-api: GET /errors/${n} 200 (${n % 7} exceptions in report, ${(n * 3) % 50}ms)`);",
            500,
            '"errors-api: ready, 500 error reports indexed"',
        ),
        _pm2_app(
            root,
            "failed-jobs",
            "re-runs the failed job registry",
            "console.log(`failed-jobs: retried failed job #${n} (attempt ${n % 3 + 1}/5) -> ok`);",
            640,
            '"failed-jobs: registry drained, 640 jobs retried, 0 failed"',
        ),
        _pm2_app(
            root,
            "exceptions-digest",
            "mails the exceptions digest",
            "console.log(`exceptions-digest: digest ${n}: 0 new exceptions, nothing to send`);",
            300,
            '"exceptions-digest: next digest in 10m"',
        ),
        _pm2_app(
            root,
            "audit-export",
            "exports the audit log",
            "console.log(`audit-export: exported audit batch ${n} (${(n * 11) % 400} rows, errors=0)`);",
            400,
            '"audit-export: up to date"',
        ),
        _pm2_app(
            root,
            "retry-worker",
            "consumes the retry queue",
            "console.log(`retry-worker: retry queue empty (poll ${n}), backoff reset`);",
            350,
            '"retry-worker: idle"',
        ),
    ]
    _ecosystem(root, apps)
    pm2 = _pm2(root)
    want = {a["name"]: ["online", n] for a, n in zip(apps, [500, 640, 300, 400, 350], strict=True)}
    wait_env = {**_ENV, "PM2_HOME": str(root / ".pm2"), "PM2_BIN": pm2.split()[-1]}
    try:
        out = sh(f"{pm2} start ecosystem.config.js", root, env=_ENV)
        sh(f"node dev/wait-pm2.js '{json.dumps(want)}'", root, env=wait_env)
        out += sh(f"{pm2} logs --raw --nostream --lines 300", root, env=_ENV)
        out += _ls(pm2, root)
    finally:
        sh(f"{pm2} kill", root, env=_ENV)
    return _pm2_settle(out, root)


# ---------------------------------------------------------------- nodemon

#: The agent's watch session: nodemon started with its output piped, the project's files edited one after the
#: other, each edit made once the app has printed the line the step waits for; nodemon stopped at the end.
_DRIVE_NODEMON = """
import json
import os
import signal
import subprocess
import sys
import time
import urllib.request

steps = json.load(open("dev/steps.json"))
proc = subprocess.Popen(sys.argv[1:], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True)


def wait_for(marker):
    for raw in proc.stdout:
        line = raw.decode()
        sys.stdout.write(line)
        sys.stdout.flush()
        if marker in line:
            return
    raise SystemExit("nodemon ended early")


for step in steps:
    wait_for(step["wait"])
    for path in step.get("get", []):
        with urllib.request.urlopen("http://127.0.0.1:%s%s" % (os.environ["PORT"], path), timeout=5) as r:
            r.read()
    if step.get("get"):
        wait_for(step["after"])
    time.sleep(0.3)
    for path, text in step.get("edit", {}).items():
        with open(path, "w") as f:
            f.write(text)
time.sleep(1.0)
os.killpg(proc.pid, signal.SIGINT)
try:
    out, _ = proc.communicate(timeout=10)
except subprocess.TimeoutExpired:
    os.killpg(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate()
sys.stdout.write(out.decode())
"""

_SERVER_JS = """
const http = require("http");
const routes = require("./routes");

const table = routes.build();
console.log(`shop-api: ${Object.keys(table).length} routes registered`);
for (const [path, route] of Object.entries(table)) console.log(`  route ${route.method.padEnd(5)} ${path}`);
let served = 0;
const server = http.createServer((req, res) => {
  served += 1;
  const route = table[req.url.split("?")[0]];
  const status = route ? 200 : 404;
  console.log(`shop-api: ${req.method} ${req.url} ${status} (#${served}, build ${routes.BUILD})`);
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify({ ok: !!route }));
  if (served % 40 === 0) console.log(`shop-api: served ${served} requests, last path ${req.url}`);
});
server.listen(Number(process.env.PORT), "127.0.0.1", () => {
  console.log(`shop-api: listening on http://127.0.0.1:${process.env.PORT} (build ${routes.BUILD})`);
});
"""

_ROUTES_JS = """
const tax = require("./tax");

const AREAS = ["orders", "cart", "catalog", "pricing", "coupons", "invoice", "shipping", "refunds", "ledger", "audit"];
exports.BUILD = {build};
exports.build = () => {{
  const table = {{}};
  for (const area of AREAS) {{
    for (const action of ["list", "show", "create", "update"]) {{
      table[`/${{area}}/${{action}}`] = {{ method: action === "list" || action === "show" ? "GET" : "POST" }};
    }}
  }}
  table["/tax/rates"] = {{ method: "GET", rate: tax.defaultRate() }};
  return table;
}};
"""

_TAX_JS = """
const rates = {{ standard: {{ rate: 0.2 }}, reduced: {{ rate: 0.05 }} }};
exports.defaultRate = () => rates.{kind}.rate;
"""


def _nodemon(root: Path, cmd: str, steps: list[dict[str, object]], port: int = 0) -> bytes:
    write(root, {"dev/drive_nodemon.py": _DRIVE_NODEMON, "dev/steps.json": json.dumps(steps, indent=1)})
    env = {**_ENV, "PORT": str(port)}
    out = sh(f"{PY} -u dev/drive_nodemon.py {_npm_bin() / 'nodemon'} --no-colors {cmd}", root, env=env, timeout=300)
    return _settle(out, root, (str(port), "3000") if port else ("^$", ""))


@case(
    "u60_nodemon_crash_tax_rates",
    "nodemon",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: Cannot read properties of undefined (reading 'rate')",
        "at exports.defaultRate (/tmp/work/src/tax.js:3:40)",
        "[nodemon] app crashed - waiting for file changes before starting...",
    ],
)
def _nodemon_crash(root: Path) -> bytes:
    port = _free_port()
    write(
        root,
        {
            "src/server.js": _SERVER_JS,
            "src/routes.js": _ROUTES_JS.format(build=1),
            "src/tax.js": _TAX_JS.format(kind="standard"),
            "package.json": '{"name": "shop-api", "version": "1.4.0", "main": "src/server.js"}\n',
        },
    )
    areas = ["orders", "cart", "catalog", "pricing", "coupons", "invoice", "shipping", "refunds", "ledger", "audit"]
    steps: list[dict[str, object]] = []
    for build in range(1, 7):
        paths = [f"/{areas[(build + k) % 10]}/{['list', 'show'][k % 2]}?page={k}" for k in range(45)]
        steps.append(
            {
                "wait": f"listening on http://127.0.0.1:{port} (build {build})",
                "get": paths,
                "after": f"(#45, build {build})",
                "edit": {"src/routes.js": _ROUTES_JS.format(build=build + 1)},
            }
        )
    steps[-1]["edit"] = {"src/tax.js": _TAX_JS.format(kind="zero")}
    steps.append({"wait": "app crashed - waiting for file changes"})
    return _nodemon(root, "--watch src --ext js,json src/server.js", steps, port)


_RETRY_FAILED_JS = """
const config = require("./config");

const kinds = ["payment.capture", "refund.issue", "invoice.email", "webhook.deliver", "export.upload"];
console.log(`retry_failed: run ${config.run}: ${config.batch} failed jobs to retry (max attempts ${config.attempts})`);
let retried = 0;
for (let n = 0; n < config.batch; n++) {
  const kind = kinds[n % kinds.length];
  const attempt = (n % config.attempts) + 1;
  console.log(`retry_failed: job ${kind} #${config.run * 1000 + n} retried, attempt ${attempt} -> ok`);
  retried += 1;
}
console.log(`retry_failed: run ${config.run}: ${retried} retried, 0 failed, 0 left in the failed queue`);
"""


@case(
    "u60_nodemon_clean_retry_failed",
    "nodemon",
    clean=True,
    group=GROUP,
    decisive=["retry_failed: run 5: 220 retried, 0 failed, 0 left in the failed queue"],
)
def _nodemon_clean(root: Path) -> bytes:
    batches = {1: 120, 2: 160, 3: 90, 4: 200, 5: 220}

    def config(run: int) -> str:
        return f"module.exports = {{ run: {run}, batch: {batches[run]}, attempts: 5 }};\n"

    write(root, {"jobs/retry_failed.js": _RETRY_FAILED_JS, "jobs/config.js": config(1)})
    steps: list[dict[str, object]] = []
    for run in range(1, 6):
        step: dict[str, object] = {"wait": "clean exit - waiting for changes before restart"}
        if run < 5:
            step["edit"] = {"jobs/config.js": config(run + 1)}
        steps.append(step)
    return _nodemon(root, '--watch jobs --ext js --exec "node jobs/retry_failed.js"', steps)


# ---------------------------------------------------------------- concurrently

_SERVICE_JS = """
const {{ Turns }} = require("./turns");

const T = new Turns("{name}", {names});
for (let turn = 0; turn < {turns}; turn++) {{
  T.wait();
  {body}
  if (turn === {turns} - 1) {{
    {end}
  }}
  T.done();
}}
"""


def _concurrently(root: Path, services: dict[str, tuple[int, str, str]], scripts: dict[str, str]) -> None:
    names = json.dumps(list(services))
    files = {"scripts/turns.js": _TURNS_JS}
    for name, (turns, body, end) in services.items():
        files[f"scripts/{name}.js"] = _SERVICE_JS.format(name=name, names=names, turns=turns, body=body, end=end)
    pkg = {"name": "shop", "version": "1.0.0", "private": True, "scripts": scripts}
    files["package.json"] = json.dumps(pkg, indent=2) + "\n"
    write(root, files)


def _run_npm(root: Path, script: str) -> bytes:
    env = {**_ENV, "PATH": f"{_npm_bin()}:/usr/bin:/bin"}
    return _settle(sh(f"npm run {script}", root, env=env, timeout=300), root)


_WORKER_THROW = """if (turn === 140) {
    const job = { id: 7140, kind: "invoice.render", payload: null };
    console.log(`worker: job ${job.kind} #${job.id} started`);
    console.log(`worker: rendering invoice for order ${job.payload.orderId}`);
  }
  console.log(`worker: job invoice.render #${7000 + turn} done (${(turn * 13) % 300}ms)`);"""


@case(
    "u60_concurrently_worker_exit_1",
    "concurrently",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: Cannot read properties of null (reading 'orderId')",
        "at Object.<anonymous> (/tmp/work/scripts/worker.js:9:68)",
        "[worker] node scripts/worker.js exited with code 1",
    ],
)
def _concurrently_worker(root: Path) -> bytes:
    services = {
        "web": (
            330,
            "for (let k = 0; k <= turn % 2; k++) "
            "console.log(`web: GET /orders/${1000 + turn} 200 ${turn % 40 + 2}ms`);",
            'console.log("web: load test finished, 495 requests, closing");',
        ),
        "worker": (330, _WORKER_THROW, ""),
        "scheduler": (
            330,
            'const task = ["cart.expire", "tax.refresh", "ledger.close"][turn % 3];\n  '
            "console.log(`scheduler: tick ${turn} enqueued ${task}`);",
            'console.log("scheduler: 330 ticks, stopping");',
        ),
        "webhooks": (
            330,
            'console.log(`webhooks: delivered evt_${String(turn).padStart(6, "0")} refund.issued -> 200`);',
            'console.log("webhooks: outbox empty");',
        ),
    }
    cmds = " ".join(f'"node scripts/{n}.js"' for n in services)
    _concurrently(root, services, {"dev": f"concurrently -n {','.join(services)} {cmds}"})
    return _run_npm(root, "dev")


_MIGRATE_BODY = """const steps = ["0001_initial", "0002_orders", "0003_cart", "0004_invoice", "0005_ledger", "0006_tax",
    "0007_add_refund_reason", "0008_shipping"];
  const step = steps[Math.floor(turn / 20)];
  console.log(`migrate: ${step}: statement ${turn % 20 + 1}/20 applied`);
  if (turn === 127) {
    console.error(`migrate: ${step} failed: column "reason" of relation "refunds" already exists`);
    console.error("migrate: rolled back 0007_add_refund_reason; 6 of 8 migrations applied");
    process.exit(1);
  }"""


@case(
    "u60_concurrently_kill_others_migrate",
    "concurrently",
    clean=False,
    group=GROUP,
    decisive=[
        'migrate: 0007_add_refund_reason failed: column "reason" of relation "refunds" already exists',
        "[migrate] node scripts/migrate.js exited with code 1",
        "Sending SIGTERM to other processes",
    ],
)
def _concurrently_kill(root: Path) -> bytes:
    services = {
        "css": (
            60,
            "console.log(`css: compiled src/styles/part_${turn}.scss -> dist/part_${turn}.css (${turn * 3 + 1}kb)`);",
            'console.log("css: build finished, 60 files");',
        ),
        "api": (
            400,
            "console.log(`api: GET /catalog/items?page=${turn} 200 (${turn % 25 + 1}ms)`);",
            "",
        ),
        "migrate": (200, _MIGRATE_BODY, ""),
    }
    cmds = " ".join(f'"node scripts/{n}.js"' for n in services)
    names = ",".join(services)
    _concurrently(root, services, {"dev": f"concurrently --kill-others-on-fail -n {names} {cmds}"})
    return _run_npm(root, "dev")


@case(
    "u60_concurrently_group_tests_clean",
    "concurrently",
    clean=True,
    group=GROUP,
    decisive=["npm run test:exceptions exited with code 0"],
)
def _concurrently_clean(root: Path) -> bytes:
    files: dict[str, str] = {}
    suites = {"errors": 120, "retry": 140, "exceptions": 110, "failed-jobs": 90}
    for suite, count in suites.items():
        tests = "".join(
            f'  test("{suite} case {k}: failed {suite} are reported once", () => {{\n'
            f"    assert.strictEqual(handle({k}), {k * 2});\n  }});\n"
            for k in range(count)
        )
        files[f"test/{suite}.test.js"] = (
            'const { describe, test } = require("node:test");\nconst assert = require("node:assert");\n'
            f'const handle = (n) => n * 2;\n\ndescribe("{suite}", () => {{\n{tests}}});\n'
        )
    scripts = {f"test:{s}": f"node --test --test-reporter=spec test/{s}.test.js" for s in suites}
    scripts["test"] = 'concurrently --group "npm:test:*"'
    pkg = {"name": "shop", "version": "1.0.0", "private": True, "scripts": scripts}
    files["package.json"] = json.dumps(pkg, indent=2) + "\n"
    write(root, files)
    return _run_npm(root, "test")
