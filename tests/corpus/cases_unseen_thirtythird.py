"""Held-out outputs (group ``unseen-33``): a thirty-third batch, system inspection as an ops agent runs it on a box
to find what is wrong: process, socket, open-file, mount, disk and interface listings over a fleet of real
processes (Python workers, HTTP servers and sleepers named after the business areas) started by the scenario in
its own session, with private mount and network namespaces for the tmpfs filesystems and interfaces it makes.

Failing runs: ``ps uww -s`` over 86 workers where the ledger exporter left a ``pg_dump`` zombie, ``df -h``,
``du -sh`` and ``lsof`` over the shop's log filesystems where a log rotated away but still held open by the
billing worker fills its tmpfs to 100%, ``du -ah`` run as ``nobody`` over a tree of 3,000 files where two
folders are unreadable, ``find -newer`` run as ``nobody`` over the tree of a deploy where one folder is
unreadable, ``ss -tanp`` and a ``curl`` health sweep over 24 HTTP services where the refunds API died on a bind
error and its port is not listening, a ``pgrep -a`` service check over 30 services where the ledger sync crashed
at start, ``cp -rv`` of 1,520 session files into a tmpfs whose inodes run out (``df -i`` at 100%), a diagnostics
bundle run as ``nobody`` (``id``, ``ulimit -a``, ``sysctl``) where ``dmesg`` is refused, and ``file`` over 400
backups where one ``.tar.gz`` is an HTML error page. Clean runs whose text talks about errors: ``ps -o``
of ``errors-api``, ``failed-jobs-reaper`` and ``exceptions-mailer`` processes all sleeping, ``netstat -tanp``
of 24 listening services named ``errors-api``, ``failed-payments-api`` (with their connections),
``findmnt`` and ``df`` of spools named ``errors-spool`` and ``failed-uploads`` all under their limits,
``ip -s addr`` and ``ip -s -s link`` in a network namespace of veth pairs (one named ``errors0``) whose
statistics print ``errors`` columns at zero, and ``file`` over exports named ``errors-*.csv`` and
``failed-*.json`` of the right types. Every varying field (PIDs, ports of clients, device numbers, inodes, memory
figures, times) is replaced with fixed text, and listings are put in start order (socket listings in address
order). Labels were written with each scenario, before the engine saw the output. Needs root (mounts, namespaces,
``setpriv`` to the ``nobody`` user), ``ps``, ``pgrep``, ``lsof``, ``ss``, ``netstat``, ``ip``, ``findmnt``,
``file`` and ``curl`` (Debian ``procps``, ``lsof``, ``iproute2``, ``net-tools``, ``util-linux``, ``file``,
``curl``) and the system Python at ``/usr/bin/python3``.
"""

from __future__ import annotations

import contextlib
import gzip
import io
import os
import re
import signal
import subprocess
import tarfile
import time
from collections.abc import Callable
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-33"

_SYSPY = "/usr/bin/python3"
_NOBODY = "setpriv --reuid=nobody --regid=nogroup --clear-groups"

# A worker: renames itself (the ``comm`` that ps, lsof, ss and netstat show), writes its log lines, says it is
# ready, then sleeps.
_WORKER = """#!/usr/bin/python3
import ctypes, os, sys, time
NAME = os.path.basename(sys.argv[0])
ctypes.CDLL(None).prctl(15, NAME[:15].encode(), 0, 0, 0)
log = os.environ.get("SHOP_LOG")
if log:
    fh = open(log, "a")
    for i in range(int(os.environ.get("SHOP_LOG_LINES", "20"))):
        fh.write(f"{i:05d} INFO {NAME} processed batch {i} ok (errors=0 failed=0 retried=0)\\n")
    fh.flush()
fill = os.environ.get("SHOP_FILL")
if fill:
    fd = os.open(fill, os.O_WRONLY | os.O_CREAT | os.O_APPEND)
    chunk = b"0000 INFO billing-worker charged invoice ok\\n" * 1489
    try:
        while True:
            os.write(fd, chunk)
    except OSError:
        pass
child = os.environ.get("SHOP_ZOMBIE")
if child:
    pid = os.fork()
    if pid == 0:
        ctypes.CDLL(None).prctl(15, child.encode(), 0, 0, 0)
        time.sleep(0.1)
        os._exit(1)
    while open(f"/proc/{pid}/stat").read().split(") ")[1][0] != "Z":
        time.sleep(0.02)
    open(os.path.join(os.environ["SHOP_RUN"], "children"), "a").write(f"{pid}\\n")
kids = int(os.environ.get("SHOP_FORK", "0"))
for k in range(kids):
    pid = os.fork()
    if pid == 0:
        ctypes.CDLL(None).prctl(15, f"{NAME[:11]}:w{k}".encode(), 0, 0, 0)
        time.sleep(3600)
        os._exit(0)
    open(os.path.join(os.environ["SHOP_RUN"], "children"), "a").write(f"{pid}\\n")
    time.sleep(0.03)
open(os.path.join(os.environ["SHOP_RUN"], f"{os.getpid()}.ready"), "w").close()
dsn = os.environ.get("SHOP_CONNECT")
if dsn:
    import socket
    host, port = dsn.rsplit(":", 1)
    conn = socket.create_connection((host, int(port)), timeout=5)
time.sleep(3600)
"""

# An HTTP service: binds its port (or dies on the bind error), answers /health, says it is ready.
_SERVICE = """#!/usr/bin/python3
import ctypes, http.server, os, sys
NAME = os.path.basename(sys.argv[0])
ctypes.CDLL(None).prctl(15, NAME[:15].encode(), 0, 0, 0)
host, port = sys.argv[sys.argv.index("--bind") + 1].rsplit(":", 1)


class Health(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"ok {NAME}\\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


try:
    server = http.server.ThreadingHTTPServer((host, int(port)), Health)
finally:
    open(os.path.join(os.environ["SHOP_RUN"], f"{os.getpid()}.ready"), "w").close()
server.serve_forever()
"""


class _Fleet:
    """Processes started one after the other by a bash launcher in a session of their own (in a private mount
    namespace when ``ns`` names them: m, n); their PIDs in start order."""

    def __init__(self, root: Path, setup: list[str], procs: list[str], *, ns: str = "") -> None:
        root.chmod(0o755)
        self.root = root
        run = root / "run"
        run.mkdir(exist_ok=True)
        lines = [
            "exec </dev/null >/dev/null 2>&1",
            f"cd {root}",
            f"export SHOP_RUN={run}",
            "svc() {",
            '  "$@" &',
            "  p=$!",
            f'  echo "$p" >> {run}/pids',
            "  for _ in $(seq 500); do",
            f'    [ -e {run}/"$p".ready ] && break',
            "    sleep 0.02",
            "  done",
            "}",
            *setup,
            *procs,
            f"touch {run}/all.ready",
            "wait",
        ]
        (root / "launch.sh").write_text("\n".join(lines) + "\n")
        cmd = ["bash", str(root / "launch.sh")]
        self.ns = ns
        if ns:
            cmd = ["unshare", *(f"-{n}" for n in ns), "--propagation", "private", *cmd]
        self.proc = subprocess.Popen(cmd, cwd=root, stdin=subprocess.DEVNULL, start_new_session=True)
        self.sid = self.proc.pid
        deadline = time.monotonic() + 50
        while not (run / "all.ready").exists():
            if time.monotonic() > deadline or self.proc.poll() is not None:
                self.stop()
                raise RuntimeError("the fleet did not start")
            time.sleep(0.05)
        time.sleep(0.3)
        pids = [int(p) for p in (run / "pids").read_text().split()]
        kids = [int(p) for p in (run / "children").read_text().split()] if (run / "children").exists() else []
        #: real PID -> the fixed PID written in the output (the launcher first, then the processes in start order)
        self.pids = {self.sid: 2000}
        for n, pid in enumerate(pids):
            self.pids[pid] = 2101 + n
        for n, pid in enumerate(kids):
            self.pids[pid] = 2301 + n

    def fake(self, pid: bytes | str | int) -> int:
        return self.pids.get(int(pid), 1999)

    def run(self, cmd: str, env: dict[str, str] | None = None) -> bytes:
        if self.ns:
            flags = " ".join(f"-{n}" for n in self.ns)
            cmd = f"nsenter -t {self.sid} {flags} sh -c 'cd {self.root} && {cmd}'"
        return sh(cmd, self.root, env=env)

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.sid, signal.SIGKILL)
        self.proc.wait()


def _bin(root: Path, names: list[str], text: str = _WORKER) -> Path:
    bindir = root / "srv" / "shop" / "bin"
    bindir.mkdir(parents=True, exist_ok=True)
    for name in names:
        path = bindir / name
        path.write_text(text)
        path.chmod(0o755)
    return bindir


def _rows(out: bytes, fix: Callable[[re.Match[bytes]], bytes], pattern: bytes, *, order: bool = True) -> bytes:
    """``out`` with each line matching ``pattern`` rewritten by ``fix``; those lines sorted (stable) by the PID
    that ``fix`` wrote first on them when ``order``, the header and other lines left where they are."""
    lines = out.split(b"\n")
    idx, fixed = [], []
    for i, line in enumerate(lines):
        m = re.match(pattern, line)
        if m:
            idx.append(i)
            fixed.append(fix(m))
    if order:
        fixed.sort(key=lambda b: int(re.search(rb"\b2\d\d\d\b", b).group()) if re.search(rb"\b2\d\d\d\b", b) else 0)
    for i, line in zip(idx, fixed, strict=True):
        lines[i] = line
    return b"\n".join(lines)


_RSS = {b"bash": b" 3384", b"python3": b" 9216", b"sleep": b" 1792"}


def _prog(cmd: bytes) -> bytes:
    first = os.path.basename(re.search(rb"[^\s\\_|]+", cmd).group())
    return b"python3" if first.startswith(b"python3") else first


# ---------------------------------------------------------------- ps


def _ps_u(fleet: _Fleet, out: bytes) -> bytes:
    def fix(m: re.Match[bytes]) -> bytes:
        user, pid, vsz, rss, tty, stat, cmd = m.groups()
        rss = b"0" if rss == b"0" else _RSS.get(_prog(cmd), b"1024").strip()
        vsz = b"0" if vsz == b"0" else {b"python3": b"14324", b"bash": b"4360"}.get(_prog(cmd), vsz)
        return b"%-8s %5d  0.0  0.0 %6s %5s %-8s %-4s 01:00   0:00 %s" % (
            user,
            fleet.fake(pid),
            vsz,
            rss,
            tty,
            stat,
            cmd,
        )

    pattern = rb"^(\S+) +(\d+) +[\d.]+ +[\d.]+ +(\d+) +(\d+) +(\S+) +(\S+) +\S+ +\d+:\d\d (.*)$"
    return _rows(out, fix, pattern)


_WORKER_KINDS = [
    ("worker", "--queue {a}.default --concurrency 4"),
    ("worker", "--queue {a}.retry --concurrency 2 --on-error=requeue"),
    ("worker", "--queue {a}.failed --concurrency 1 --max-attempts 5"),
    ("scheduler", "--tick 30s --jobs /etc/shop/{a}/jobs.yml"),
]


@case(
    "u33_ps_uww_session_pg_dump_zombie_under_ledger_exporter",
    "ps uww -s <session> (86 shop workers; the ledger exporter left a zombie)",
    clean=False,
    group=GROUP,
    decisive=["[pg_dump] <defunct>"],
)
def _ps_zombie(root: Path) -> bytes:
    names = sorted({f"{a}-{k}" for a in WORDS for k, _ in _WORKER_KINDS})
    extra = ["errors-exporter", "failed-jobs-reaper", "exceptions-mailer", "dead-letter-replayer", "ledger-exporter"]
    bindir = _bin(root, names + extra)
    procs = [f"svc {bindir}/{a}-{k} {args.format(a=a)}" for a in WORDS for k, args in _WORKER_KINDS]
    procs += [
        f"svc {bindir}/errors-exporter --target otel-collector:4317 --batch 512",
        f"svc {bindir}/failed-jobs-reaper --older-than 7d --queues '*.failed'",
        f"svc {bindir}/exceptions-mailer --to oncall@shop.example --min-level ERROR",
        f"svc {bindir}/dead-letter-replayer --queue orders.dlq --rate 5/s",
        f"SHOP_ZOMBIE=pg_dump svc {bindir}/ledger-exporter --since yesterday --format csv",
        "svc sleep 3600",
    ]
    fleet = _Fleet(root, [], procs)
    try:
        out = fleet.run(f"ps uww -s {fleet.sid}")
    finally:
        fleet.stop()
    return scrub(_ps_u(fleet, out), root)


def _ps_o(fleet: _Fleet, out: bytes) -> bytes:
    def fix(m: re.Match[bytes]) -> bytes:
        pid, ppid, user, stat, ni, rss, cmd = m.groups()
        rss = _RSS.get(_prog(cmd), b"1024").strip()
        return b"%5d %5d %-8s %-4s %3s %5s       00:03 %s" % (
            fleet.fake(pid),
            fleet.fake(ppid),
            user,
            stat,
            ni,
            rss,
            cmd,
        )

    return _rows(out, fix, rb"^ *(\d+) +(\d+) +(\S+) +(\S+) +(\S+) +(\d+) +[\d:-]+ (.*)$")


@case(
    "u33_ps_eo_errors_api_failed_jobs_reaper_all_sleeping_clean",
    "ps -s <session> -o pid,ppid,user,stat,ni,rss,etime,args (error-handling services, all healthy)",
    clean=True,
    group=GROUP,
    decisive=["/tmp/work/srv/shop/bin/failed-jobs-reaper --older-than 7d --queues *.failed"],
)
def _ps_eo_clean(root: Path) -> bytes:
    masters = [
        ("errors-api", "--bind 127.0.0.1:8081 --workers 3 --log-level error", 3),
        ("failed-payments-api", "--bind 127.0.0.1:8082 --workers 2", 2),
        ("exceptions-mailer", "--to oncall@shop.example --min-level ERROR", 0),
        ("failed-jobs-reaper", "--older-than 7d --queues *.failed", 0),
        ("retry-dead-letters", "--queue orders.dlq --max-attempts 8", 0),
        ("errors-exporter", "--target otel-collector:4317", 0),
    ]
    masters += [(f"{a}-worker", f"--queue {a}.errors --on-failure=requeue --workers 2", 2) for a in WORDS]
    bindir = _bin(root, sorted({m[0] for m in masters}))
    procs = [f"SHOP_FORK={kids} svc {bindir}/{name} {args}" for name, args, kids in masters]
    fleet = _Fleet(root, [], procs)
    try:
        out = fleet.run(f"ps -s {fleet.sid} -o pid,ppid,user,stat,ni,rss,etime,args")
    finally:
        fleet.stop()
    return scrub(_ps_o(fleet, out), root)


# ---------------------------------------------------------------- df, du, lsof: a deleted log holding a disk

_LOG_AREAS = ["billing", "orders", "refunds", "errors", "audit", "webhooks", "export", "session"]


def _lsof(fleet: _Fleet, out: bytes) -> bytes:
    """lsof rows with fixed PIDs, tmpfs device numbers and inodes of the scenario's folder, re-aligned."""
    rows, other = [], []
    for line in out.split(b"\n"):
        f = line.split(None, 9)
        if len(f) == 10 and f[1].isdigit():
            cmd, pid, pgid, user, fd, typ, dev, size, node, name = f
            if dev.startswith(b"0,"):
                dev = b"0,45"
            if name.startswith(b"/tmp/corpus-") and not dev.startswith(b"0,"):
                node = b"1310721" if typ == b"DIR" else b"1310733"
            rows.append(
                (
                    fleet.fake(pid),
                    [cmd, b"%d" % fleet.fake(pid), b"%d" % fleet.fake(pgid), user, fd, typ, dev, size, node, name],
                )
            )
        elif line:
            other.append(line)
    rows.sort(key=lambda r: r[0])
    widths = [max(len(r[1][i]) for r in rows) for i in range(9)]
    head = [b"COMMAND", b"PID", b"PGID", b"USER", b"FD", b"TYPE", b"DEVICE", b"SIZE/OFF", b"NODE"]
    widths = [max(w, len(h)) for w, h in zip(widths, head, strict=True)]
    right = {1, 2, 7, 8}

    def fmt(cols: list[bytes]) -> bytes:
        parts = [c.rjust(widths[i]) if i in right else c.ljust(widths[i]) for i, c in enumerate(cols[:9])]
        return b" ".join(parts) + b" " + cols[9]

    body = [fmt([*head, b"NAME"])] + [fmt(r[1]) for r in rows]
    return b"\n".join([line for line in other if not line.startswith(b"COMMAND")] + body) + b"\n"


@case(
    "u33_df_du_lsof_rotated_billing_log_deleted_but_open_fills_logs",
    "df -h; du -sh; lsof -nP -g <session> (shop log filesystems; a deleted log still open)",
    clean=False,
    group=GROUP,
    decisive=[
        "100% /tmp/work/mnt/logs",
        "/tmp/work/mnt/logs/billing-worker.log.1 (deleted)",
    ],
)
def _lsof_deleted(root: Path) -> bytes:
    workers = [f"{a}-{k}" for a in _LOG_AREAS for k in ("worker", "scheduler", "errors-exporter")]
    bindir = _bin(root, workers)
    setup = ["mount -t tmpfs -o size=16m,mode=0755 shop-logs mnt/logs"]
    for a in _LOG_AREAS:
        setup.append(f"mount -t tmpfs -o size=8m,mode=0755 shop-{a} mnt/{a}")
        setup.append(f"head -c {(_LOG_AREAS.index(a) + 1) * 400}k /dev/zero > mnt/{a}/{a}.spool")
    for d in ["mnt/logs", *(f"mnt/{a}" for a in _LOG_AREAS)]:
        (root / d).mkdir(parents=True)
    procs = []
    for n, w in enumerate(workers):
        if w != "billing-worker":
            procs.append(
                f"SHOP_LOG=mnt/logs/{w}.log SHOP_LOG_LINES={40 + 7 * n} svc {bindir}/{w} --log mnt/logs/{w}.log"
            )
    procs += [
        f"SHOP_FILL=mnt/logs/billing-worker.log svc {bindir}/billing-worker --log mnt/logs/billing-worker.log",
        # logrotate without copytruncate and no reload: renamed, later removed, still written by the worker
        "mv mnt/logs/billing-worker.log mnt/logs/billing-worker.log.1",
        "rm mnt/logs/billing-worker.log.1",
        "touch mnt/logs/billing-worker.log",
    ]
    fleet = _Fleet(root, setup, procs, ns="m")
    try:
        out = fleet.run("df -h mnt/*; echo; du -h mnt/logs/*; du -sh mnt/logs")
        out += b"\n" + _lsof(fleet, fleet.run(f"lsof -nP +c 15 -g {fleet.sid}"))
    finally:
        fleet.stop()
    return scrub(out, root)


# ---------------------------------------------------------------- du and find as nobody over unreadable folders

_SUBDIRS = ["data", "archive/2024-10", "archive/2024-11", "reports", "errors"]
_EXTS = ["csv", "json", "log", "parquet", "txt"]


def _tree(root: Path, top: str, per_dir: int, private: list[str], mtime: Callable[[int], int] | None = None) -> None:
    """A tree of the shop's files under ``top`` (sizes and times fixed); ``private`` folders only root can read."""
    n = 0
    for area in WORDS:
        for sub in _SUBDIRS:
            folder = root / top / area / sub
            folder.mkdir(parents=True, exist_ok=True)
            for i in range(per_dir):
                n += 1
                path = folder / f"{area}-{sub.split('/')[-1]}-{i:03d}.{_EXTS[(n + i) % 5]}"
                path.write_bytes(b"x" * ((n * 2654435761) % 30000))
                if mtime:
                    os.utime(path, (mtime(n), mtime(n)))
    for rel in private:
        folder = root / top / rel
        folder.mkdir(parents=True, exist_ok=True)
        for i in range(12):
            (folder / f"{rel.replace('/', '-')}-{i:02d}.key").write_text("k" * 64)
        folder.chmod(0o700)
    for dirpath, _dirs, _files in os.walk(root / top):
        if os.path.relpath(dirpath, root / top) not in private and mtime:
            os.utime(dirpath, (mtime(0), mtime(0)))


@case(
    "u33_du_ah_as_nobody_audit_and_ledger_folders_permission_denied",
    "runuser -u nobody -- du -ah srv (3,000 files; two folders unreadable)",
    clean=False,
    group=GROUP,
    decisive=[
        "du: cannot read directory 'srv/shop/audit/private': Permission denied",
        "du: cannot read directory 'srv/shop/ledger/.keys': Permission denied",
        "[exit status 1]",
    ],
)
def _du_denied(root: Path) -> bytes:
    root.chmod(0o755)
    _tree(root, "srv/shop", 30, ["audit/private", "ledger/.keys"])
    return scrub(sh("runuser -u nobody -- du -ah srv", root), root)


_DEPLOY = 1764547200  # 2025-12-01 00:00 UTC: the last deploy


@case(
    "u33_find_xdev_newer_as_nobody_billing_secrets_permission_denied",
    "su -s /bin/sh nobody -c 'find srv -xdev -newer srv/.last-deploy -type f' (files changed since the deploy)",
    clean=False,
    group=GROUP,
    decisive=[
        "find: ‘srv/shop/billing/secrets’: Permission denied",
        "[exit status 1]",
    ],
)
def _find_denied(root: Path) -> bytes:
    root.chmod(0o755)
    _tree(root, "srv/shop", 24, ["billing/secrets"], mtime=lambda n: _DEPLOY + (3600 * (n % 7) - 7200))
    stamp = root / "srv" / ".last-deploy"
    stamp.write_text("deploy 2025-12-01 release 4711\n")
    os.utime(stamp, (_DEPLOY, _DEPLOY))
    return scrub(sh("su -s /bin/sh nobody -c 'find srv -xdev -newer srv/.last-deploy -type f'", root), root)


# ---------------------------------------------------------------- ss, netstat and a health sweep (own netns)

# A load-balancer probe holding two idle connections to each service, from fixed source ports.
_PROBE = """#!/usr/bin/python3
import ctypes, os, socket, sys, time
ctypes.CDLL(None).prctl(15, b"lb-probe", 0, 0, 0)
held, sport = [], 41000
for target in sys.argv[1:]:
    host, port = target.rsplit(":", 1)
    for _ in range(2):
        sport += 1
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", sport))
        try:
            s.connect((host, int(port)))
            held.append(s)
        except OSError:
            s.close()
open(os.path.join(os.environ["SHOP_RUN"], f"{os.getpid()}.ready"), "w").close()
time.sleep(3600)
"""


def _sockets(fleet: _Fleet, out: bytes, header_lines: int, programs: tuple[str, ...] = ()) -> bytes:
    """A socket listing with fixed PIDs (netstat's "PID/Program name", cut at 19 characters, rebuilt from the
    fixed PID and the program's whole name), its rows sorted by local then peer address, line ends trimmed."""

    def program(m: re.Match[bytes]) -> bytes:
        name = m.group(2).decode()
        whole = next((p for p in programs if p.startswith(name)), name)
        return f"{fleet.fake(m.group(1))}/{whole}"[:19].encode()

    out = re.sub(rb"pid=(\d+)", lambda m: b"pid=%d" % fleet.fake(m.group(1)), out)
    out = re.sub(rb"\b(\d+)/([\w.:-]+)", program, out)
    lines = [line.rstrip() for line in out.rstrip(b"\n").split(b"\n")]
    head, rows = lines[:header_lines], lines[header_lines:]

    def key(row: bytes) -> tuple[object, ...]:
        addrs = re.findall(rb"(\d+\.\d+\.\d+\.\d+|\*|0\.0\.0\.0):(\d+|\*)", row)
        return tuple((a.decode(), int(p) if p.isdigit() else 0) for a, p in addrs), row

    return b"\n".join(head + sorted(rows, key=key)) + b"\n"


def _services(names: list[str]) -> list[tuple[str, str]]:
    return [(name, f"127.0.0.1:{8001 + n}") for n, name in enumerate(names)]


def _net_fleet(root: Path, services: list[tuple[str, str]], bind: dict[str, str], *, argv0: bool = False) -> _Fleet:
    """The services (their program named after them in argv[0] when ``argv0``) and the probe, in a netns."""
    bindir = _bin(root, [name for name, _ in services], _SERVICE)
    _bin(root, ["lb-probe"], _PROBE)
    (root / "log").mkdir()
    procs = []
    for name, addr in services:
        run = f"{bindir}/{name} --bind {bind.get(name, addr)} --workers 4"
        if argv0:
            run = f'bash -c "exec -a {name} {_SYSPY} {run}"'
        procs.append(f"svc {run} 2>>log/{name}.log")
    procs.append(f"svc {bindir}/lb-probe " + " ".join(addr for _, addr in services))
    return _Fleet(root, ["ip link set lo up"], procs, ns="mn")


_API_AREAS = [a for a in WORDS if a not in ("errors", "exceptions", "retry", "export")][:12]


@case(
    "u33_ss_tanp_and_health_sweep_refunds_api_port_not_listening",
    "ss -tanp; curl health sweep of 24 services; tail of the dead service's log",
    clean=False,
    group=GROUP,
    decisive=[
        "curl: (7) Failed to connect to 127.0.0.1 port 8009 after 0 ms: Couldn't connect to server",
        "OSError: [Errno 99] Cannot assign requested address",
        "1 of 24 services failed the health check",
        "[exit status 1]",
    ],
)
def _ss_down(root: Path) -> bytes:
    names = [f"{a}-{k}" for a in _API_AREAS for k in ("api", "admin")]
    services = _services(names)
    fleet = _net_fleet(root, services, {"refunds-api": "10.20.0.7:8009"})
    (root / "check.sh").write_text(
        "fails=0\n"
        + "".join(
            f'printf "%-16s %-15s " {name} {addr}; '
            f"curl -sS -m 2 http://{addr}/health || {{ fails=$((fails+1)); echo; }}\n"
            for name, addr in services
        )
        + 'echo "$fails of 24 services failed the health check"\n'
        + "tail -n 4 log/refunds-api.log\n"
        + '[ "$fails" -eq 0 ]\n'
    )
    try:
        out = _sockets(fleet, fleet.run("ss -tanp"), 1) + b"\n" + fleet.run("sh check.sh")
    finally:
        fleet.stop()
    return substitute(scrub(out, root), (r"after \d+ ms", "after 0 ms"))


@case(
    "u33_netstat_tanp_errors_api_failed_payments_api_listening_clean",
    "netstat -tanp (24 services named errors-api, failed-payments-api, with their connections)",
    clean=True,
    group=GROUP,
    decisive=["127.0.0.1:8001          0.0.0.0:*               LISTEN      2101/errors-api"],
)
def _netstat_clean(root: Path) -> bytes:
    names = ["errors-api", "failed-payments-api", "exceptions-api", "retry-api", "dead-letters-api", "audit-errors"]
    names += [f"{a}-api" for a in _API_AREAS[:9]] + [f"{a}-failures" for a in _API_AREAS[:9]]
    fleet = _net_fleet(root, _services(names), {}, argv0=True)
    try:
        out = _sockets(fleet, fleet.run("netstat -tanp"), 2, (*names, "python3"))
    finally:
        fleet.stop()
    return scrub(out, root)


# ---------------------------------------------------------------- pgrep -a service check

_SVC_KINDS = [("worker", "--queue {a}.default"), ("consumer", "--topic shop.{a}.events --group {a}-cg")]


@case(
    "u33_pgrep_a_service_check_ledger_sync_crashed_at_start",
    "sh check-services.sh (pgrep -a -f for each of 30 services, then the dead one's log)",
    clean=False,
    group=GROUP,
    decisive=[
        "ledger-sync: not running",
        "ConnectionRefusedError: [Errno 111] Connection refused",
        "1 of 30 services not running",
        "[exit status 1]",
    ],
)
def _pgrep_died(root: Path) -> bytes:
    services = [f"{a}-{k}" for a in WORDS[:14] for k, _ in _SVC_KINDS] + ["ledger-sync", "errors-exporter"]
    bindir = _bin(root, services)
    (root / "log").mkdir()
    procs = []
    for a in WORDS[:14]:
        for k, args in _SVC_KINDS:
            for inst in range(3):
                procs.append(f"svc {bindir}/{a}-{k} {args.format(a=a)} --instance {inst} 2>>log/{a}-{k}.log")
    procs += [
        f"SHOP_CONNECT=127.0.0.1:5432 svc {bindir}/ledger-sync --dsn postgresql://ledger@127.0.0.1:5432/ledger"
        " 2>>log/ledger-sync.log",
        f"svc {bindir}/errors-exporter --target otel-collector:4317 2>>log/errors-exporter.log",
    ]
    (root / "check-services.sh").write_text(
        "missing=0\n"
        f"for svc in {' '.join(services)}; do\n"
        '  echo "== $svc"\n'
        '  pgrep -a -f "srv/shop/bin/$svc( |$)" || { echo "$svc: not running"; missing=$((missing+1)); }\n'
        "done\n"
        'echo "$missing of 30 services not running"\n'
        "echo; echo '== tail -n 8 log/ledger-sync.log'; tail -n 8 log/ledger-sync.log\n"
        '[ "$missing" -eq 0 ]\n'
    )
    fleet = _Fleet(root, ["ip link set lo up"], procs, ns="n")
    try:
        out = fleet.run("sh check-services.sh")
    finally:
        fleet.stop()

    def fix(m: re.Match[bytes]) -> bytes:
        return b"%d %s" % (fleet.fake(m.group(1)), m.group(2))

    return scrub(_rows(out, fix, rb"^(\d+) (/usr/bin/python3 .*)$"), root)


# ---------------------------------------------------------------- cp into a tmpfs whose inodes run out


@case(
    "u33_cp_rv_sessions_into_tmpfs_inodes_exhausted_df_i_full",
    "cp -rv sessions-backup/. mnt/sessions/; df -h; df -i (tmpfs with nr_inodes=1500)",
    clean=False,
    group=GROUP,
    decisive=[
        "No space left on device",
        "100% /tmp/work/mnt/sessions",
        "[exit status 1]",
    ],
)
def _cp_inodes(root: Path) -> bytes:
    files = {}
    for n, area in enumerate(WORDS):
        for i in range(76):
            files[f"sessions-backup/{area}/sess_{area[:3]}{i:04d}.json"] = (
                f'{{"session": "{area}-{i:04d}", "user": {1000 + n * 76 + i}, "cart": [], "errors": []}}\n'
            )
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        for name, text in files.items():
            info = tarfile.TarInfo(name)
            info.size, info.mtime, info.mode = len(text), _DEPLOY, 0o644
            tar.addfile(info, io.BytesIO(text.encode()))
    (root / "sessions-backup.tar").write_bytes(raw.getvalue())
    (root / "mnt" / "sessions").mkdir(parents=True)
    (root / "sessions-backup").mkdir()
    # the backup unpacked on a tmpfs of its own: cp reads a folder in inode order, fixed there
    script = (
        "mount -t tmpfs -o size=64m,mode=0755 shop-backup sessions-backup || exit 2\n"
        "tar -xf sessions-backup.tar || exit 2\n"
        "mount -t tmpfs -o size=64m,nr_inodes=1500,mode=0755 shop-sessions mnt/sessions || exit 2\n"
        "cp -rv sessions-backup/. mnt/sessions/; rc=$?\n"
        "echo; df -h mnt/sessions; df -i mnt/sessions\n"
        "exit $rc\n"
    )
    (root / "restore.sh").write_text(script)
    return scrub(sh("unshare -m --propagation private sh restore.sh", root), root)


# ---------------------------------------------------------------- a diagnostics bundle as the service user

_SYSCTL_KEYS = (
    "fs.file-max fs.nr_open fs.inotify.max_user_watches fs.inotify.max_user_instances fs.pipe-max-size "
    "fs.protected_symlinks fs.suid_dumpable vm.swappiness vm.overcommit_memory vm.overcommit_ratio "
    "vm.max_map_count vm.dirty_ratio vm.dirty_background_ratio vm.min_free_kbytes vm.panic_on_oom "
    "kernel.pid_max kernel.threads-max kernel.shmmax kernel.shmall kernel.msgmax kernel.sem kernel.panic "
    "kernel.core_pattern kernel.kptr_restrict kernel.dmesg_restrict kernel.perf_event_paranoid "
    "kernel.unprivileged_bpf_disabled net.core.somaxconn net.core.netdev_max_backlog "
    "net.core.rmem_max net.core.wmem_max net.ipv4.ip_local_port_range net.ipv4.tcp_max_syn_backlog "
    "net.ipv4.tcp_fin_timeout net.ipv4.tcp_keepalive_time net.ipv4.tcp_tw_reuse net.ipv4.tcp_syncookies "
    "net.ipv4.ip_forward net.ipv4.tcp_congestion_control"
)


@case(
    "u33_diag_bundle_as_nobody_dmesg_operation_not_permitted",
    "setpriv (as nobody) bash diag.sh: id, ulimit -a, sysctl, ls -l of the service's folders, dmesg",
    clean=False,
    group=GROUP,
    decisive=[
        "dmesg: read kernel buffer failed: Operation not permitted",
        "[exit status 1]",
    ],
)
def _diag_dmesg(root: Path) -> bytes:
    root.chmod(0o755)
    files = {}
    for area in WORDS:
        for i in range(8):
            files[f"srv/shop/{area}/log/{area}-errors-{i:02d}.log"] = f"{area} errors rotated {i}\n" * (i + 1)
    write(root, files)
    for path in (root / "srv").rglob("*"):
        os.utime(path, (_DEPLOY, _DEPLOY))
    (root / "diag.sh").write_text(
        "set -u\n"
        'echo "== id"; id\n'
        'echo "== ulimit -a"; ulimit -a\n'
        f'echo "== sysctl"; sysctl {_SYSCTL_KEYS}\n'
        'echo "== ls -lR srv/shop"; ls -lR --time-style=long-iso srv/shop\n'
        'echo "== dmesg --level=err,warn"; dmesg --level=err,warn\n'
    )
    return scrub(sh(f"{_NOBODY} bash diag.sh", root, env={"TZ": "UTC"}), root)


# ---------------------------------------------------------------- file over backups and exports


def _targz(name: str, text: str) -> bytes:
    raw = io.BytesIO()
    with tarfile.open(fileobj=raw, mode="w") as tar:
        data = text.encode()
        info = tarfile.TarInfo(name)
        info.size, info.mtime, info.mode = len(data), _DEPLOY, 0o644
        tar.addfile(info, io.BytesIO(data))
    return gzip.compress(raw.getvalue(), mtime=0)


@case(
    "u33_file_nightly_backups_one_tar_gz_is_html_error_page",
    "file srv/backups/*/* (400 nightly backups)",
    clean=False,
    group=GROUP,
    decisive=["srv/backups/ledger/ledger-2025-11-28.tar.gz:         HTML document, ASCII text"],
)
def _file_backups(root: Path) -> bytes:
    for area in WORDS:
        folder = root / "srv" / "backups" / area
        folder.mkdir(parents=True)
        for day in range(11, 31):
            name = f"{area}-2025-11-{day:02d}"
            body = _targz(f"{name}.sql", f"-- {area} dump {name}\n" + "INSERT INTO t VALUES (1);\n" * day)
            if (area, day) == ("ledger", 28):
                body = (
                    b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head>\n"
                    b"<body><h1>502 Bad Gateway</h1><p>backup-gateway: upstream error</p></body></html>\n"
                )
            (folder / f"{name}.tar.gz").write_bytes(body)
    return scrub(sh("file srv/backups/*/*", root), root)


_PNG = bytes.fromhex(
    "89504e470d0a1a0a0000000d4948445200000001000000010806000000"
    "1f15c4890000000d49444154789c6360000002000154a24f5d0000000049454e44ae426082"
)


@case(
    "u33_file_exports_named_errors_and_failed_right_types_clean",
    "file exports/*/* (errors-*.csv, failed-*.json, exceptions-*.log, error-page screenshots)",
    clean=True,
    group=GROUP,
    decisive=["exports/refunds/failed-refunds-2025-11-30.json:          JSON text data"],
)
def _file_exports(root: Path) -> bytes:
    for area in WORDS:
        folder = root / "exports" / area
        folder.mkdir(parents=True)
        for day in range(21, 31):
            stamp = f"2025-11-{day:02d}"
            (folder / f"errors-{area}-{stamp}.csv").write_text(
                "timestamp,service,error_code,count\n"
                + "".join(f"{stamp}T{h:02d}:00:00Z,{area},E{h:03d},{h * 3}\n" for h in range(24))
            )
            (folder / f"failed-{area}-{stamp}.json").write_text(
                '{"failed": [' + ", ".join(f'{{"id": {i}, "reason": "timeout"}}' for i in range(day)) + "]}\n"
            )
            (folder / f"exceptions-{area}-{stamp}.log").write_text(
                f"{stamp} ERROR {area}.handler: ValueError: bad input\n" * 5
            )
        (folder / f"error-page-{area}.png").write_bytes(_PNG)
        (folder / f"incident-{area}-errors.pdf").write_bytes(
            b"%PDF-1.4\n%\xe2\xe3\xcf\xd3\n1 0 obj\n<<>>\nendobj\n%%EOF\n"
        )
    (root / "exports" / "refunds" / "failed-refunds-2025-11-30.json").write_text(
        '{"failed": [{"id": 7, "reason": "card_declined"}], "retry": true}\n'
    )
    return scrub(sh("file exports/*/*", root), root)


# ---------------------------------------------------------------- findmnt and df of the spools


_SPOOLS = [
    ("errors-spool", 8, 2), ("failed-uploads", 16, 3), ("retry-queue", 8, 1), ("exceptions-archive", 32, 6),
    ("dead-letters", 8, 2), ("billing-spool", 16, 4), ("orders-spool", 16, 5), ("refunds-spool", 8, 1),
    ("webhooks-retry", 8, 3), ("audit-errors", 16, 2), ("export-failed", 8, 1), ("invoice-spool", 16, 3),
    ("ledger-spool", 32, 9), ("shipping-errors", 8, 2), ("catalog-cache", 16, 7), ("search-cache", 32, 11),
]  # fmt: skip


@case(
    "u33_findmnt_df_errors_spool_failed_uploads_under_limits_clean",
    "findmnt -R; df -h; df -i (16 tmpfs spools named errors-spool, failed-uploads, all under their limits)",
    clean=True,
    group=GROUP,
    decisive=["25% /tmp/work/mnt/errors-spool"],
)
def _findmnt_clean(root: Path) -> bytes:
    lines = ["mount -t tmpfs -o size=4m,nr_inodes=64,mode=0755 shop-spools mnt || exit 2"]
    for name, size, used in _SPOOLS:
        lines.append(f"mkdir mnt/{name}")
        lines.append(
            f"mount -t tmpfs -o size={size}m,nr_inodes=4096,mode=0750,nosuid,nodev,noexec shop-{name} mnt/{name}"
        )
        lines.append(f"for i in $(seq {used * 4}); do head -c 256k /dev/zero > mnt/{name}/chunk-$i.dat; done")
    lines += [
        "findmnt -R -o TARGET,SOURCE,FSTYPE,OPTIONS mnt",
        "echo; df -h mnt mnt/*",
        "echo; df -i mnt mnt/*",
        "echo; du -sh mnt/*",
    ]
    (root / "mnt").mkdir()
    (root / "spools.sh").write_text("\n".join(lines) + "\n")
    return scrub(sh("unshare -m --propagation private sh spools.sh", root), root)


# ---------------------------------------------------------------- ip -s addr in a network namespace


_UDP = (
    "import socket, sys\n"
    "s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
    "for n in range(1, int(sys.argv[1]) + 1):\n"
    "    r = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)\n"
    "    r.bind((f'10.33.{n}.2', 9))\n"
    "    for _ in range(n):\n"
    "        s.sendto(b'x' * 100, (f'10.33.{n}.2', 9))\n"
    "        r.recv(200)\n"
)


@case(
    "u33_ip_s_addr_and_link_counters_errors0_interface_clean",
    "ip -s addr; ip -s -s link (network namespace with 10 veth pairs, one named errors0)",
    clean=True,
    group=GROUP,
    decisive=["inet 10.33.5.1/24 scope global errors0"],
)
def _ip_clean(root: Path) -> bytes:
    areas = ["billing", "orders", "cart", "refunds", "errors", "auth", "ledger", "shipping", "webhooks", "audit"]
    lines = [
        "sysctl -qw net.ipv6.conf.all.disable_ipv6=1 net.ipv6.conf.default.disable_ipv6=1",
        "ip link set lo up",
    ]
    for n, area in enumerate(areas, start=1):
        lines += [
            f"ip link add {area}0 address 02:33:00:00:{n:02x}:01 mtu {9000 if n % 4 == 0 else 1500} type veth"
            f" peer name {area}1 address 02:33:00:00:{n:02x}:02",
            f"ip addr add 10.33.{n}.1/24 dev {area}0",
            f"ip addr add 10.33.{n}.2/24 dev {area}1",
            f"ip link set {area}0 up",
            f"ip link set {area}1 up",
        ]
    lines += [f"{_SYSPY} udp.py {len(areas)}", "ip -s addr", "echo", "ip -s -s link"]
    (root / "udp.py").write_text(_UDP)
    (root / "netns.sh").write_text("\n".join(lines) + "\n")
    return scrub(sh("unshare -n sh netns.sh", root), root)
