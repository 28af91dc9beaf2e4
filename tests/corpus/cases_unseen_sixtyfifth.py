"""Held-out outputs (group ``unseen-65``): a sixty-fifth batch, service daemons an agent starts and debugs on the
loopback, each started in the scenario's folder on 127.0.0.1 with free ports picked at run time (scrubbed) and stopped
at the end.

Failing runs: a ``mosquitto -v`` broker with twenty ``mosquitto_pub -d -V mqttv5`` services where the ACL denies one
publish of ``pub-refunds`` (PUBACK reason 135) and the audit subscriber times out one message short, ``etcdctl`` seeding
and reading a config tree where one 2 MB ledger snapshot is too large for a request, followed by the server's JSON log,
``haproxy -c -V`` of a 60-backend config with 120 parse warnings and one misspelt server keyword, a running
``haproxy`` whose request log shows the ``be_ledger`` server going DOWN (health checks logged) in the middle of 1,200
requests, ``varnishtest`` of 14 VCL test files where one inline VCL does not compile, and ``squid -k parse`` of a
400-line config with one unrecognized directive among subdomain warnings. Clean runs named after errors and failures:
``mosquitto_sub``/``mosquitto_pub`` with QoS 2 over ``failed-orders``, ``error-events`` and ``retry-queue`` topics,
``etcdctl`` put/txn/compact/defrag over ``/retry-queue/`` and ``/failed-orders/`` keys with the server's JSON log,
``memcached -vv`` under a warm-up script with misses and ``NOT_FOUND`` counters, and ``redis-benchmark -q`` of business
commands with ``redis-cli --latency-history`` and ``INFO``. Labels were written with each scenario, before the engine
saw the output. Needs Debian ``mosquitto``, ``mosquitto-clients``, ``etcd-server``, ``etcd-client``, ``memcached``,
``haproxy``, ``varnish``, ``squid``, ``redis-server`` and ``redis-tools``.
"""

from __future__ import annotations

import shlex
import socket
from pathlib import Path

from _harness import PY, case, scrub, sh, substitute, write

GROUP = "unseen-65"


def _ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on the loopback."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _unport(out: bytes, ports: dict[str, int]) -> bytes:
    """``out`` with each port of ``ports`` written as its name, and the clients' ephemeral ports as ``port``."""
    for name, port in ports.items():
        out = substitute(out, (rf"(?<![0-9]){port}(?![0-9])", name))
    return out


def _open(root: Path) -> None:
    """The scenario folder readable by the daemons' own users."""
    root.chmod(0o755)


# ---------------------------------------------------------------- mosquitto

_SERVICES = [
    "billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "catalog", "search",
    "pricing", "coupons", "webhooks", "audit", "export", "session", "auth", "errors", "retry", "exceptions",
]  # fmt: skip


def _mosquitto_settle(out: bytes, root: Path, ports: dict[str, int]) -> bytes:
    out = substitute(scrub(out, root), (r"^\d{10}: ", "1700000000: "), (r"127\.0\.0\.1:\d+", "127.0.0.1:port"))
    return _unport(out, ports)


@case(
    "u65_mosquitto_acl_denied",
    "mosquitto -v with mosquitto_pub -d and mosquitto_sub",
    clean=False,
    group=GROUP,
    decisive=["Denied PUBLISH from pub-refunds", "RC:135)", "Timed out"],
)
def _mosquitto_acl(root: Path) -> bytes:
    _open(root)
    (port,) = _ports(1)
    acl = ["user audit", "topic read shop/#", ""]
    for s in _SERVICES:
        sh(f"mosquitto_passwd {'-c ' if s == _SERVICES[0] else ''}-b passwd svc-{s} pw-{s}", root)
        acl += [f"user svc-{s}", f"topic write shop/{s}/#", f"topic read shop/{s}/commands/#", ""]
    sh("mosquitto_passwd -b passwd audit pw-audit", root)
    write(
        root,
        {
            "acl": "\n".join(acl) + "\n",
            "mosquitto.conf": f"""
                listener {port} 127.0.0.1
                allow_anonymous false
                password_file {root}/passwd
                acl_file {root}/acl
                persistence false
                log_dest stderr
                log_type all
                user root
            """,
        },
    )
    pubs, total = [], 0
    for s in _SERVICES:
        pubs.append(f"echo '== mosquitto_pub pub-{s} (24 events)'")
        for k in range(24):
            topic = "shop/ledger/refunds-posted" if (s, k) == ("refunds", 6) else f"shop/{s}/events"
            pubs.append(
                f"mosquitto_pub -d -V mqttv5 -p {port} -i pub-{s} -u svc-{s} -P pw-{s} -q 1 -t {topic} "
                f"""-m '{{"service":"{s}","seq":{k}}}'"""
            )
            total += 1
    script = (
        "mosquitto -c mosquitto.conf -v > broker.log 2>&1 & b=$!; sleep 1; "
        f"mosquitto_sub -p {port} -i sub-audit -u audit -P pw-audit -t 'shop/#' -v -C {total} -W 8 > sub.log 2>&1 & "
        f"s=$!; sleep 0.5; {'; '.join(pubs)}; wait $s; st=$?; echo '== mosquitto_sub sub-audit (exit '$st')'; "
        "cat sub.log; kill $b; wait $b; echo '== broker log (mosquitto -v)'; cat broker.log; exit $st"
    )
    return _mosquitto_settle(sh(script, root), root, {"PORT": port})


_TOPICS = ["failed-orders", "error-events", "retry-queue", "exceptions", "refunds-failed", "dead-letter"]


@case(
    "u65_mosquitto_qos2_clean",
    "mosquitto_pub and mosquitto_sub (QoS 2)",
    clean=True,
    group=GROUP,
    decisive=["== mosquitto_sub received 360 of 360 messages"],
)
def _mosquitto_clean(root: Path) -> bytes:
    _open(root)
    (port,) = _ports(1)
    write(
        root,
        {
            "mosquitto.conf": f"""
                listener {port} 127.0.0.1
                allow_anonymous true
                persistence false
                log_dest stderr
                log_type error
                log_type warning
                log_type notice
                user root
            """
        },
    )
    pubs = []
    for t in _TOPICS:
        msgs = "\\n".join(f'{{"queue":"{t}","order":{4400 + k},"attempt":{k % 5}}}' for k in range(60))
        pubs.append(
            f"echo '== mosquitto_pub {t}'; printf '{msgs}\\n' | mosquitto_pub -p {port} -i pub-{t} -q 2 -M 1 "
            f"-t ops/{t} -l"
        )
    script = (
        "mosquitto -c mosquitto.conf > broker.log 2>&1 & b=$!; sleep 1; "
        f"mosquitto_sub -p {port} -i sub-ops -q 2 -t 'ops/#' -v -C 360 -W 20 > sub.log 2>&1 & s=$!; sleep 0.5; "
        f"{'; '.join(pubs)}; wait $s; st=$?; sort sub.log | uniq -c | sort -k2 | head -40; "
        'echo "== mosquitto_sub received $(wc -l < sub.log) of 360 messages"; '
        "kill $b; wait $b; echo '== broker log'; cat broker.log; exit $st"
    )
    return _mosquitto_settle(sh(script, root), root, {"PORT": port})


# ---------------------------------------------------------------- etcd


def _etcd_start(root: Path, client: int, peer: int, extra: str = "") -> str:
    return (
        f"etcd --name billing --data-dir {root}/etcd --listen-client-urls http://127.0.0.1:{client} "
        f"--advertise-client-urls http://127.0.0.1:{client} --listen-peer-urls http://127.0.0.1:{peer} "
        f"--initial-advertise-peer-urls http://127.0.0.1:{peer} --initial-cluster billing=http://127.0.0.1:{peer} "
        f"--logger zap --log-outputs stderr {extra} > etcd.log 2>&1 & e=$!; "
        f"export ETCDCTL_API=3; E='etcdctl --endpoints=http://127.0.0.1:{client}'; "
        "for i in 1 2 3 4 5 6 7 8 9 10; do $E endpoint health >/dev/null 2>&1 && break; sleep 0.5; done; "
    )


def _etcd_settle(out: bytes, root: Path, ports: dict[str, int]) -> bytes:
    out = substitute(
        scrub(out, root),
        (r'^.*"msg":"(apply request took too long|slow fdatasync|request stats)".*\n', ""),
        (r'"ts":"[^"]+"', '"ts":"2026-01-01T00:00:00.000Z"'),
        (r'"took":"[^"]+"', '"took":"1ms"'),
        (r"\b[0-9a-f]{15,16}\b", "8e9e05c52164694d"),
        (r"^WARNING: \d{4}/\d\d/\d\d [\d:]+ \[core\] grpc: addrConn.*\n", ""),
        (r'^.*"msg":"(now serving peer/client/metrics|published local member to cluster through raft)".*\n', ""),
        (r"voters=\(\d+\)", "voters=(10276657743932975437)"),
        (r"client-[0-9a-f-]{36}", "client-00000000-0000-0000-0000-000000000000"),
        (r'"(max-cpu-set|max-cpu-available)":\d+', r'"\1":2'),
    )
    return _unport(out, ports)


_AREAS = ["billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "pricing", "coupons"]


@case(
    "u65_etcd_request_too_large",
    "etcdctl with the etcd server log (JSON)",
    clean=False,
    group=GROUP,
    decisive=["== etcdctl put /exports/ledger/snapshot-2024q4", "Error: etcdserver: request is too large"],
)
def _etcd_too_large(root: Path) -> bytes:
    client, peer = _ports(2)
    seed = [
        f'$E put /config/{a}/{k} \'{{"replicas":{i % 4 + 1},"timeout_ms":{250 * (i + 1)}}}\''
        for a in _AREAS
        for i, k in enumerate(["http", "db", "queue", "cache", "retry", "batch"])
    ]
    script = (
        _etcd_start(root, client, peer)
        + "st=0; echo '== seeding /config/'; "
        + "; ".join(seed)
        + "; echo '== etcdctl get --prefix /config/'; $E get --prefix /config/ -w simple; "
        "for a in " + " ".join(_AREAS) + '; do echo "== etcdctl txn /locks/$a"; '
        "printf 'create(\"/locks/'$a'\") = \"0\"\\n\\nput /locks/'$a' worker-1\\n\\nget /locks/'$a'\\n\\n' "
        "| $E txn -w simple; done; "
        f"{PY} -c \"print('L' * 1800000)\" > snapshot.txt; "
        "echo '== etcdctl put /exports/ledger/snapshot-2024q4'; $E put /exports/ledger/snapshot-2024q4 < snapshot.txt "
        "|| st=1; "
        "for a in " + " ".join(_AREAS) + '; do echo "== etcdctl get --prefix /config/$a/ --print-value-only"; '
        "$E get --prefix /config/$a/ --print-value-only; done; "
        "echo '== etcdctl endpoint status'; $E endpoint status -w table; "
        "kill $e; wait $e; echo '== etcd server log (since ready)'; "
        "sed -n '/ready to serve client requests/,$p' etcd.log; exit $st"
    )
    return _etcd_settle(sh(script, root), root, {"CLIENT_PORT": client, "PEER_PORT": peer})


_QUEUES = ["retry-queue", "failed-orders", "error-events", "exceptions", "dead-letter", "refunds-failed"]


@case(
    "u65_etcd_compact_defrag_clean",
    "etcdctl with the etcd server log (JSON)",
    clean=True,
    group=GROUP,
    decisive=["compacted revision 301", "Finished defragmenting etcd member"],
)
def _etcd_clean(root: Path) -> bytes:
    client, peer = _ports(2)
    # 6 queues x 50 puts = revisions 2..301
    puts = "; ".join(
        f'for k in $(seq 1 50); do $E put /{q}/item-$k "attempt=$((k % 7)) status=pending" >/dev/null; done'
        for q in _QUEUES
    )
    script = (
        _etcd_start(root, client, peer, "--auto-compaction-mode revision --auto-compaction-retention 0")
        + f"echo '== seeding 300 keys'; {puts}; "
        "echo '== etcdctl get --prefix /retry-queue/'; $E get --prefix /retry-queue/; "
        "for q in " + " ".join(_QUEUES) + '; do echo "== etcdctl txn /$q/"; '
        'printf \'value("/\'$q\'/item-1") = "attempt=1 status=pending"\\n\\nput /\'$q\'/item-1 "attempt=2 status=done"'
        "\\n\\nget /'$q'/item-9\\n\\n' | $E txn -w simple; done; "
        "echo '== etcdctl compact 301'; $E compact 301; "
        "echo '== etcdctl defrag'; $E defrag; "
        "echo '== etcdctl get --prefix /failed-orders/ --keys-only'; $E get --prefix /failed-orders/ --keys-only; "
        "echo '== etcdctl endpoint health'; $E endpoint health 2>&1 | sed 's/took = .*/took = 1ms/'; "
        "kill $e; wait $e; echo '== etcd server log (since ready)'; "
        "sed -n '/ready to serve client requests/,$p' etcd.log"
    )
    return _etcd_settle(sh(script, root), root, {"CLIENT_PORT": client, "PEER_PORT": peer})


# ---------------------------------------------------------------- memcached

_WARM = """
import shlex
import socket
import sys

port = int(sys.argv[1])
conn = socket.create_connection(("127.0.0.1", port))
buf = b""


def call(cmd, data=None, end=(b"\\r\\n",)):
    global buf
    conn.sendall(cmd.encode() + b"\\r\\n" + (data + b"\\r\\n" if data is not None else b""))
    while not any(buf.endswith(e) for e in end) or (end == (b"END\\r\\n",) and not buf.endswith(b"END\\r\\n")):
        buf += conn.recv(65536)
    out, buf = buf, b""
    return out


areas = ["failed-orders", "error-events", "retry-queue", "exceptions", "refunds", "ledger"]
stored = hits = misses = counters = absent = 0
for a in areas:
    for k in range(60):
        value = f"{a}:{k}:".encode() + b"x" * (40 + k * 3)
        assert call(f"set {a}:{k} 0 3600 {len(value)}", value) == b"STORED\\r\\n"
        stored += 1
    print(f"warmed {a}: 60 keys")
for a in areas:
    for k in range(0, 80, 4):
        got = call(f"get {a}:{k}", end=(b"END\\r\\n",))
        if got == b"END\\r\\n":
            misses += 1
        else:
            hits += 1
for a in areas:
    call(f"set {a}:retries 0 0 1", b"0")
    for _ in range(5):
        call(f"incr {a}:retries 1")
        counters += 1
    if call(f"incr {a}:attempts 1") == b"NOT_FOUND\\r\\n":
        absent += 1
    if call(f"delete {a}:stale-lock") == b"NOT_FOUND\\r\\n":
        absent += 1
print(f"reads: {hits} hits, {misses} misses; {counters} increments; {absent} NOT_FOUND (expected for cold keys)")
print(f"warm-up done: {stored} stored, 0 errors")
call("quit", end=(b"",)) if False else conn.close()
"""


@case(
    "u65_memcached_vv_warmup_clean",
    "memcached -vv (cache warm-up)",
    clean=True,
    group=GROUP,
    decisive=["warm-up done: 360 stored, 0 errors"],
)
def _memcached(root: Path) -> bytes:
    (port,) = _ports(1)
    write(root, {"warm.py": _WARM})
    script = (
        f"memcached -u memcache -vv -l 127.0.0.1 -p {port} -U 0 -m 64 -t 1 > memcached.log 2>&1 & m=$!; sleep 1; "
        f"{PY} warm.py {port}; st=$?; sleep 0.3; kill $m; wait $m; echo '== memcached -vv log'; cat memcached.log; "
        "exit $st"
    )
    return _unport(scrub(sh(script, root), root), {"PORT": port})


# ---------------------------------------------------------------- haproxy

_BACKENDS = [
    "billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "catalog", "search",
    "pricing", "coupons", "webhooks", "audit", "export", "session", "auth", "errors", "retry-queue", "failed-orders",
]  # fmt: skip


def _haproxy_settle(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"\(\d+\) :", "(1000) :"))


@case(
    "u65_haproxy_check_unknown_keyword",
    "haproxy -c -V",
    clean=False,
    group=GROUP,
    decisive=["unknown keyword 'wieght'", "Fatal errors found in configuration."],
)
def _haproxy_check(root: Path) -> bytes:
    lines = ["global", "    log stdout format raw local0", "    maxconn 2000", "", "defaults", "    mode http"]
    lines += ["    log global", "    timeout connect 5s", "    timeout client 30s", "    timeout server 30s", ""]
    lines += ["frontend fe_api", "    bind 127.0.0.1:8080", "    option httplog"]
    backends = _BACKENDS + [f"{b}-eu" for b in _BACKENDS] + [f"{b}-us" for b in _BACKENDS]
    for b in backends:
        lines.append(f"    use_backend be_{b.replace('-', '_')} if {{ path_beg /{b}/ }}")
        lines.append(f"    http-request set-header X-Service-{b} 1 if {{ path_beg /{b}/ }}")
    lines.append("    default_backend be_orders")
    for i, b in enumerate(backends):
        lines += ["", f"backend be_{b.replace('-', '_')}", "    balance roundrobin", "    option httplog"]
        lines += [f"    option httpchk GET /{b}/health", "    http-check expect status 200"]
        for k in range(3):
            weight = "wieght" if (b, k) == ("refunds-eu", 1) else "weight"
            lines.append(f"    server {b}-{k + 1} 127.0.0.1:{9100 + 3 * i + k} check inter 2s {weight} 10")
    write(root, {"haproxy.cfg": "\n".join(lines) + "\n"})
    return _haproxy_settle(sh("haproxy -c -V -f haproxy.cfg", root), root)


_BACKEND_PY = """
import http.server
import sys


class H(http.server.BaseHTTPRequestHandler):
    def do_GET(self):
        body = f"{sys.argv[2]} ok {self.path}\\n".encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
"""

#: Wait until every backend of argv answers, so that haproxy's first health checks all pass.
_WAIT = (
    "import socket,sys,time\n"
    "for p in sys.argv[1:]:\n"
    " for _ in range(100):\n"
    "  try: socket.create_connection(('127.0.0.1', int(p))).close(); break\n"
    "  except OSError: time.sleep(0.1)\n"
)

_LOAD_PY = """
import sys
import urllib.error
import urllib.request

port, start, n = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3])
paths = ["orders", "refunds", "retry-queue", "failed-orders", "ledger", "orders", "billing", "orders"]
codes = {}
for i in range(start, start + n):
    path = f"/{paths[i % len(paths)]}/{1000 + i}"
    try:
        code = urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=5).status
    except urllib.error.HTTPError as exc:
        code = exc.code
    codes[code] = codes.get(code, 0) + 1
print(f"load {start}..{start + n - 1}: " + ", ".join(f"{c}: {k}" for c, k in sorted(codes.items())))
"""


@case(
    "u65_haproxy_backend_down",
    "haproxy (request and health-check log)",
    clean=False,
    group=GROUP,
    decisive=["Server be_ledger/ledger-1 is DOWN", "backend be_ledger has no server available!"],
)
def _haproxy_down(root: Path) -> bytes:
    front, *srv = _ports(9)
    names = [
        ("orders", "orders-1"), ("orders", "orders-2"), ("orders", "orders-3"), ("refunds", "refunds-1"),
        ("retry-queue", "retry-queue-1"), ("failed-orders", "failed-orders-1"), ("ledger", "ledger-1"),
        ("billing", "billing-1"),
    ]  # fmt: skip
    cfg = ["global", "    log stdout format raw local0", "    nbthread 1", "", "defaults", "    mode http"]
    cfg += ["    log global", "    option httplog", "    option log-health-checks", "    timeout connect 1s"]
    cfg += ["    timeout client 5s", "    timeout server 5s", "", "frontend fe_api", f"    bind 127.0.0.1:{front}"]
    for b in dict(names):
        cfg.append(f"    use_backend be_{b.replace('-', '_')} if {{ path_beg /{b}/ }}")
    for b in dict(names):
        cfg += ["", f"backend be_{b.replace('-', '_')}", "    balance roundrobin", "    option httpchk GET /health"]
        for (bb, s), p in zip(names, srv, strict=True):
            if bb == b:
                cfg.append(f"    server {s} 127.0.0.1:{p} check inter 300ms fall 2 rise 2")
    write(root, {"haproxy.cfg": "\n".join(cfg) + "\n", "backend.py": _BACKEND_PY, "load.py": _LOAD_PY})
    starts = "; ".join(
        f"{PY} backend.py {p} {s} >/dev/null 2>&1 & p_{s.replace('-', '_')}=$!"
        for (_, s), p in zip(names, srv, strict=True)
    )
    others = " ".join(f"$p_{s.replace('-', '_')}" for _, s in names if s != "ledger-1")
    script = (
        f"{starts}; {PY} -c {shlex.quote(_WAIT)} {' '.join(map(str, srv))}; "
        "haproxy -db -f haproxy.cfg > haproxy.log 2> haproxy.err & h=$!; sleep 1.5; "
        f"{PY} load.py {front} 0 600 > load.log; kill $p_ledger_1; sleep 2; "
        f"{PY} load.py {front} 600 600 >> load.log; sleep 0.5; kill $h; wait $h; kill {others}; "
        "echo '== load'; cat load.log; echo '== haproxy log'; cat haproxy.log"
    )
    out = sh(script, root)
    ports = {"FRONT_PORT": front} | {f"PORT_{s}": p for (_, s), p in zip(names, srv, strict=True)}
    out = substitute(
        scrub(out, root),
        (r"127\.0\.0\.1:\d+ \[[^\]]+\]", "127.0.0.1:port [01/Jan/2026:00:00:00.000]"),
        (r" -?\d+/-?\d+/-?\d+/-?\d+/-?\d+ (\d{3}) ", r" 0/0/0/0/0 \1 "),
        (r" \d+/\d+/\d+/\d+/\d+ \d+/\d+ ", " 1/1/0/0/0 0/0 "),
        (r"check duration: \d+ms", "check duration: 0ms"),
        (r"\(\d+\) :", "(1000) :"),
        (r"^\[NOTICE\].*\n", ""),
        (r"^.*Terminated.*\n", ""),
    )
    return _unport(out, ports)


# ---------------------------------------------------------------- varnish


def _vtc(area: str, broken: bool) -> str:
    expr = "req.http.X-Order-Id + ;" if broken else 'req.http.X-Order-Id + "-" + req.http.X-Attempt;'
    return f"""
        varnishtest "{area} routing and retry headers"

        server s1 {{
            rxreq
            expect req.http.X-Route == "{area}"
            txresp -hdr "X-Queue: {area}" -body "{area} ok"
            rxreq
            txresp -status 503 -hdr "Retry-After: 1"
        }} -start

        varnish v1 -vcl+backend {{
            sub vcl_recv {{
                if (req.url ~ "^/{area}/") {{
                    set req.http.X-Route = "{area}";
                    set req.http.X-Retry-Key = {expr}
                    return (pass);
                }}
            }}
            sub vcl_backend_response {{
                if (beresp.status >= 500) {{
                    set beresp.http.X-Failed = "{area}";
                }}
            }}
        }} -start

        client c1 {{
            txreq -url "/{area}/4411" -hdr "X-Order-Id: 4411" -hdr "X-Attempt: 1"
            rxresp
            expect resp.status == 200
            expect resp.http.X-Queue == "{area}"
            txreq -url "/{area}/4412" -hdr "X-Order-Id: 4412" -hdr "X-Attempt: 2"
            rxresp
            expect resp.status == 503
            expect resp.http.X-Failed == "{area}"
        }} -run
    """


@case(
    "u65_varnishtest_vcl_does_not_compile",
    "varnishtest",
    clean=False,
    group=GROUP,
    decisive=["Unknown token ';' when looking for STRING", "TEST tests/refunds.vtc FAILED"],
)
def _varnishtest(root: Path) -> bytes:
    areas = ["billing", "orders", "cart", "tax", "retry-queue", "failed-orders", "invoice", "refunds"]
    areas += ["ledger", "shipping", "pricing", "coupons", "webhooks", "audit"]
    write(root, {f"tests/{a}.vtc": _vtc(a, a == "refunds") for a in areas})
    out = sh("varnishtest -j 1 -k " + " ".join(f"tests/{a}.vtc" for a in areas), root, timeout=300)
    return substitute(
        scrub(out, root),
        (r"\(\d+\.\d+\)", "(1.000)"),
        (r"^(\*\*   s1    Started on|\*\*\*  v1    vsl\|No VSL chunk found).*\n", ""),
        (r"^\*\*\*\* dT +\d+\.\d+\n", ""),
        (r"/tmp/vtc\.\d+\.[0-9a-f]+", "/tmp/vtc.1000.00000000"),
        (r"127\.0\.0\.1([: ])\d+", r"127.0.0.1\g<1>port"),
        (r"(pid|PID:|_pid=)[ =]?\d+", r"\1 1000"),
        (r"(_port=|\.port = \")\d+", r"\g<1>port"),
        (r"^(\*\*\*\* v1 +CLI RX\|)[a-z]{32}$", r"\1challenge"),
        (r"auth [0-9a-f]{64}", "auth 0000"),
        (r"\(user [\d.]+ sys [\d.]+\)", "(user 0.001 sys 0.001)"),
        (r"vcl1?\.\d+\.\d+", "vcl.1700000000.000000"),
        (r"<< %[^\n]*$", "<< %DELIM"),
        (r"\|%[^\n]*$", "|%DELIM"),
        (r"^(\*\*\*\* .*vsl\|\s+\d+ Timestamp\s+.*?: )[\d. ]+$", r"\g<1>1700000000.000000 0.000000 0.000000"),
    )


# ---------------------------------------------------------------- squid


@case(
    "u65_squid_parse_unrecognized_directive",
    "squid -k parse",
    clean=False,
    group=GROUP,
    decisive=["unrecognized: 'cache_peer_acess'"],
)
def _squid_parse(root: Path) -> bytes:
    (port,) = _ports(1)
    lines = [f"http_port 127.0.0.1:{port}", "acl localnet src 127.0.0.0/8", "acl localnet src 127.0.0.1"]
    for i, b in enumerate(_BACKENDS * 2):
        d = b if i < len(_BACKENDS) else f"{b}-v2"
        lines += [
            f"acl {d.replace('-', '_')}_api dstdomain .{d}.internal .eu.{d}.internal",
            f"acl {d.replace('-', '_')}_path urlpath_regex ^/{b}/",
            f"cache_peer {d}.internal parent {3128 + i} 0 no-query originserver name={d}",
            f"cache_peer_access {d} allow {d.replace('-', '_')}_api",
            f"http_access allow localnet {d.replace('-', '_')}_api",
        ]
        if d == "refunds-v2":
            lines.append(f"cache_peer_acess {d} deny all")
    lines += ["http_access deny all", "cache_mem 16 MB", "maximum_object_size 4 MB", "refresh_pattern . 0 20% 4320"]
    lines += [f"access_log stdio:{root}/access.log squid", "coredump_dir /tmp", "pid_filename none"]
    write(root, {"squid.conf": "\n".join(lines) + "\n"})
    out = sh("squid -k parse -f squid.conf", root)
    return _unport(
        substitute(scrub(out, root), (r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d\|", "2026/01/01 00:00:00|")), {"PORT": port}
    )


# ---------------------------------------------------------------- redis


@case(
    "u65_redis_benchmark_latency_clean",
    "redis-benchmark -q, redis-cli --latency-history and INFO",
    clean=True,
    group=GROUP,
    decisive=["db0:keys=", "LPUSH retry-queue order-__rand_int__: "],
)
def _redis(root: Path) -> bytes:
    (port,) = _ports(1)
    cmds = []
    for q in ["retry-queue", "failed-orders", "error-events", "exceptions", "dead-letter", "refunds-failed"]:
        cmds += [
            f"LPUSH {q} order-__rand_int__",
            f"RPOP {q}",
            f"HSET {q}:stats attempts __rand_int__",
            f"INCR {q}:counter",
        ]
    bench = "; ".join(
        f"redis-benchmark -p {port} -q -n 2000 -c 4 -r 1000 {c}" for c in [c for c in cmds if not c.startswith("INCR")]
    )
    script = (
        f"redis-server --port {port} --bind 127.0.0.1 --save '' --appendonly no --dir {root} "
        f"--logfile {root}/redis.log & r=$!; sleep 1; "
        f"redis-benchmark -p {port} -q -n 2000 -c 4 -t ping,set,get,incr,lpush,rpop,lrange_100; {bench}; "
        "echo '== redis-cli --latency-history'; "
        f"timeout 3.5 redis-cli -p {port} --no-raw --latency-history -i 1 || true; "
        f"echo '== redis-cli INFO'; redis-cli -p {port} INFO; "
        f"redis-cli -p {port} shutdown nosave; wait $r"
    )
    out = sh(script, root, timeout=300)
    out = substitute(
        scrub(out, root),
        (r"[^\n]*\r(?!\n)", ""),
        (r"\r$", ""),
        (r"^(.*): [\d.]+ requests per second, p50=[\d.]+ msec", r"\1: 100000.00 requests per second, p50=0.100 msec"),
        (
            r"^min: \d+, max: \d+, avg: [\d.]+ \(\d+ samples\) -- [\d.]+",
            "min: 0, max: 1, avg: 0.10 (90 samples) -- 1.00",
        ),
        (
            r"^((used_|rss_|mem_|total_|allocator_|lazyfree|instantaneous|uptime_|used_cpu|process_id|run_id|"
            r"executable|config_file|tcp_port|server_time|lru_clock|total_net|peak|dataset|keyspace_(hits|misses)|"
            r"io_threaded|expired_|evicted|current_|rdb_|aof_|sync_|master_|second_repl|repl_|client_recent|"
            r"maxmemory|eventloop|cmdstat|errorstat|acl_|latest_fork|total_fork|migrate|clients_in|tracking|"
            r"pubsub|blocked|connected|watching|busy|number_of|active_defrag|stat_|module_|io_|dump_|"
            r"reply_|mem_|cluster|lua|functions|scripts|loading|async|slave|role|listener|redis_build|"
            r"gcc|multiplexing|atomicvar|arch_bits|os|hz|configured_hz|expire_cycle|"
            r"unexpected_error_replies|total_error_replies|total_eviction|total_blocking|"
            r"sync_full|sync_partial|sync_partial_err)[a-z0-9_]*):.*$",
            r"\1:0",
        ),
    )
    return _unport(out, {"PORT": port})
