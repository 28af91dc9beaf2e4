"""Held-out outputs (group ``unseen-123``): a hundred-and-twenty-third batch, network diagnostics on the loopback as an
agent debugs the local services of a payments desk, ``paydesk``, whose 36 services are named after business words
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``, ``refunds`` ...). Each scenario starts its own
servers on 127.0.0.1 on free ports (Python's ``http.server`` behind TLS with certificates of a CA made in the scenario
from fixed Ed25519 seeds, so every certificate is the same byte for byte; a small reverse proxy; a ``socat`` relay),
then runs the real client tools against them; ports, PIDs and dates are replaced afterwards.

Failing runs: ``curl -sS -v --cacert`` over 36 HTTPS URLs where the refunds service presents a certificate of a
legacy CA (``curl: (60) SSL certificate problem`` in the middle; curl exits 0 because the last transfer worked),
``curl -sS -i -w`` through the reverse proxy where the retry queue's upstream is down and the proxy answers ``502 Bad
Gateway`` near the start (curl exits 0: only the status line and the body say so), ``curl -sS -v`` where the export
service, asked last, resets the connection, ``openssl s_client -brief -verify_hostname -verify_return_error`` per
service name where one name is not in its certificate, ``openssl s_client -showcerts`` per service where the
ledger's certificate has expired (``s_client`` exits 0: only ``Verify return code: 10`` says so), and raw HTTP
health probes with ``nc -v`` where one service's port refuses the connection. Clean runs full of those business
words: ``curl -v`` over every service with ``Warning`` and ``Deprecation`` headers and bodies of failed payments and
error codes, ``ss -tln`` of the services then ``nc -zv`` of every port and their health documents, ``socat -d -d``
as a TLS client per service, and ``nmap -sT --script http-headers`` of the service ports where the retired
dead-letters port is closed. Labels were written with each scenario, before the engine saw the output. Needs curl,
OpenSSL, ``ss`` (iproute2), netcat-openbsd, socat and nmap (Debian ``curl``, ``openssl``, ``iproute2``,
``netcat-openbsd``, ``socat``, ``nmap``) and the ``cryptography`` package in the Python that runs the corpus; nothing
leaves the loopback.
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _harness import PY, case, scrub, sh, substitute, write

GROUP = "unseen-123"

#: The 36 services of the desk, in port order.
_SERVICES = [
    "failed_payments", "error_codes", "retry_queue", "exceptions", "billing", "orders", "cart", "tax", "refunds",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
    "session", "auth", "errors_log", "retry_policy", "chargebacks", "settlements", "payouts", "disputes",
    "fraud_score", "currency", "fees", "statements", "reconcile", "failed_webhooks", "dead_letters", "alerts",
    "exceptions_inbox",
]  # fmt: skip

#: Where the ports of a scenario are moved to in its output (the first listener gets the first one).
_BASE_PORT = 18400

_CERTS = r"""
import datetime, ipaddress, sys
from pathlib import Path
from cryptography import x509
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey
from cryptography.x509.oid import NameOID

SERVICES = sys.argv[1].split(",")
out = Path("certs")
out.mkdir()

def key(seed):
    return Ed25519PrivateKey.from_private_bytes(seed.encode().ljust(32, b".")[:32])

def name(cn, org="Paydesk Ops"):
    return x509.Name([x509.NameAttribute(NameOID.ORGANIZATION_NAME, org), x509.NameAttribute(NameOID.COMMON_NAME, cn)])

def when(y, m, d):
    return datetime.datetime(y, m, d, tzinfo=datetime.timezone.utc)

def cert(subject, issuer, pub, signer, serial, *, ca=False, sans=(), start=when(2025, 1, 1), end=when(2035, 1, 1)):
    b = (x509.CertificateBuilder().subject_name(subject).issuer_name(issuer).public_key(pub).serial_number(serial)
         .not_valid_before(start).not_valid_after(end)
         .add_extension(x509.BasicConstraints(ca=ca, path_length=None), critical=True))
    if sans:
        alt = [x509.IPAddress(ipaddress.ip_address(s)) if s[0].isdigit() else x509.DNSName(s) for s in sans]
        b = b.add_extension(x509.SubjectAlternativeName(alt), critical=False)
    return b.sign(signer, None)

def save(stem, crt, k):
    (out / f"{stem}.pem").write_bytes(crt.public_bytes(serialization.Encoding.PEM))
    pem = k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption())
    (out / f"{stem}.key").write_bytes(pem)

ca_key, legacy_key = key("paydesk-dev-root"), key("paydesk-legacy-refunds")
ca_name, legacy_name = name("Paydesk Dev Root CA"), name("Paydesk Legacy Refunds CA", "Paydesk Refunds (2019)")
save("ca", cert(ca_name, ca_name, ca_key.public_key(), ca_key, 4096, ca=True), ca_key)
save("legacy-ca", cert(legacy_name, legacy_name, legacy_key.public_key(), legacy_key, 2019, ca=True), legacy_key)
k = key("paydesk-api")
save("api", cert(name("api.paydesk.test"), ca_name, k.public_key(), ca_key, 7001,
                 sans=("api.paydesk.test", "localhost", "127.0.0.1")), k)
k = key("paydesk-refunds-legacy")
save("refunds-legacy", cert(name("refunds.paydesk.test"), legacy_name, k.public_key(), legacy_key, 7002,
                            sans=("refunds.paydesk.test", "127.0.0.1")), k)
for i, svc in enumerate(SERVICES):
    host = svc.replace("_", "-") + ".paydesk.test"
    k = key("svc-" + svc)
    save(svc, cert(name(host), ca_name, k.public_key(), ca_key, 8000 + i, sans=(host,)), k)
k = key("svc-ledger")
save("ledger-expired", cert(name("ledger.paydesk.test"), ca_name, k.public_key(), ca_key, 6999,
                            sans=("ledger.paydesk.test",), start=when(2023, 7, 1), end=when(2025, 6, 30)), k)
k = key("svc-refunds")
save("refunds-typo", cert(name("refund.paydesk.test"), ca_name, k.public_key(), ca_key, 7003,
                          sans=("refund.paydesk.test",)), k)
"""

_SERVER = r"""
import json, socket, ssl, struct, sys, threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.request import urlopen
from urllib.error import URLError

CONFIG = json.load(open(sys.argv[1]))
CODES = ["E-0402", "E-0409", "E-0422", "E-0500", "E-0503", "E-1042", "E-2201"]
REASONS = ["card declined: insufficient funds", "issuer unavailable, retry scheduled", "3ds challenge failed",
           "duplicate charge rejected", "exception in webhook handler (recovered)", "refund exceeds capture",
           "currency mismatch error corrected"]

def body(svc, rows):
    recs = []
    for i in range(rows):
        recs.append(json.dumps({"id": f"{svc}-{i:04d}", "status": ["failed", "retrying", "error", "ok"][i % 4],
                                "error_code": CODES[(i + len(svc)) % len(CODES)], "retries": i % 5,
                                "amount_cents": (i * 1379 + len(svc) * 17) % 100000,
                                "message": REASONS[(i * 3 + len(svc)) % len(REASONS)]}))
    head = json.dumps({"service": svc, "version": "2.4.0", "errors_total": rows // 4, "failed_total": rows // 4})
    return (head[:-1] + ', "records": [\n  ' + ",\n  ".join(recs) + "\n]}\n").encode()

def handler(lst):
    class H(BaseHTTPRequestHandler):
        server_version = "paydesk-api/2.4"
        sys_version = ""
        protocol_version = "HTTP/1.1"
        def date_time_string(self, timestamp=None):
            return "Thu, 01 Jan 2026 00:00:00 GMT"
        def log_message(self, *args):
            pass
        def do_GET(self):
            svc = lst.get("service") or self.path.rstrip("/").rsplit("/", 1)[-1].split("?")[0]
            if svc in lst.get("reset", []):
                self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                self.connection.close()
                self.close_connection = True
                return
            if lst.get("proxy"):
                up = lst["proxy"].get(svc)
                try:
                    with urlopen(f"http://127.0.0.1:{up}{self.path}", timeout=5) as r:
                        data, status = r.read(), r.status
                except (URLError, OSError) as e:
                    data = (f'{{"error": "bad gateway", "upstream": "{svc}", '
                            f'"detail": "upstream {svc} at 127.0.0.1:{up} refused the connection"}}\n').encode()
                    status = 502
                self.send_response(status)
                self.send_header("Via", "1.1 paydesk-edge")
            else:
                data = body(svc, lst.get("rows", 20)) if self.path != "/health" else json.dumps(
                    {"service": svc, "status": "ok", "errors_last_hour": len(svc) % 7, "failed_jobs": len(svc) % 3,
                     "retry_queue_depth": len(svc) * 3, "exceptions": [], "checks": {c: "ok" for c in
                     ("db", "cache", "error_codes_table", "retry_worker", "failed_payments_index")}},
                    indent=2).encode() + b"\n"
                self.send_response(200)
                if svc in lst.get("deprecated", []):
                    self.send_header("Deprecation", "true")
                    self.send_header("Warning", f'299 - "/api/v1/{svc} is deprecated; use /api/v2/{svc}"')
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(data)))
            self.send_header("X-Errors-Total", str(len(svc) % 7))
            self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(data)
            self.close_connection = True
        do_HEAD = do_GET
    return H

ports = {}
for lst in CONFIG:
    srv = ThreadingHTTPServer(("127.0.0.1", lst.get("port", 0)), handler(lst))
    if lst.get("tls"):
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.num_tickets = 0
        ctx.load_cert_chain(f"certs/{lst['tls']}.pem", f"certs/{lst['tls']}.key")
        if lst.get("sni"):
            ctxs = {}
            for host, stem in lst["sni"].items():
                c = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
                c.num_tickets = 0
                c.load_cert_chain(f"certs/{stem}.pem", f"certs/{stem}.key")
                ctxs[host] = c
            def pick(sock, host, _ctx, ctxs=ctxs):
                if host in ctxs:
                    sock.context = ctxs[host]
            ctx.sni_callback = pick
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    ports[lst["name"]] = srv.server_address[1]
    threading.Thread(target=srv.serve_forever, daemon=True).start()
print(json.dumps(ports), flush=True)
threading.Event().wait()
"""


def _named_ports() -> set[int]:
    """The TCP ports nmap knows a service name for (so that its listing looks the same on every run)."""
    db = Path("/usr/share/nmap/nmap-services")
    found = re.findall(r"^\S+\s+(\d+)/tcp", db.read_text(errors="replace"), flags=re.M) if db.exists() else []
    return {int(p) for p in found}


def _free_ports(n: int) -> list[int]:
    """``n`` different free ports of the loopback without a name in nmap's list, in ascending order (all held open
    while picking)."""
    import socket

    named, socks, picked = _named_ports(), [], []
    try:
        while len(picked) < n:
            s = socket.socket()
            socks.append(s)
            s.bind(("127.0.0.1", 0))
            if s.getsockname()[1] not in named:
                picked.append(s.getsockname()[1])
        return sorted(picked)
    finally:
        for s in socks:
            s.close()


@contextmanager
def _servers(root: Path, listeners: list[dict[str, object]]) -> Iterator[dict[str, int]]:
    """The listeners of ``listeners`` (each a ``name``, maybe ``tls``/``sni``/``reset``/``proxy``...) serving from
    ``root``; their ports by name."""
    if not (root / "certs").exists():
        write(root, {"certs.py": _CERTS})
        sh(f"{PY} certs.py {','.join(_SERVICES)}", root)
    write(root, {"server.py": _SERVER, "listeners.json": json.dumps(listeners)})
    proc = subprocess.Popen(
        [PY, "server.py", "listeners.json"], cwd=root, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True
    )
    try:
        line = proc.stdout.readline() if proc.stdout else ""
        yield json.loads(line)
    finally:
        proc.terminate()
        proc.wait()


def _settle(out: bytes, root: Path, ports: list[int]) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the ports (by rank), dates, PIDs."""
    out = scrub(out, root)
    for i, port in sorted(enumerate(ports), key=lambda ip: -ip[1]):
        out = re.sub(rb"(?<!\d)%d(?!\d)" % port, b"%d" % (_BASE_PORT + i), out)
    return substitute(
        out,
        (r"Start Time: \d+", "Start Time: 1767225600"),
        (r"pid=\d+", "pid=4242"),
        (r"^[0-9A-F]{12,16}:error:", "40E7A1C2B37F0000:error:"),
        (r"at \d{4}-\d\d-\d\d \d\d:\d\d \w+", "at 2026-01-01 00:00 UTC"),
        (r"scanned in \d+\.\d+ seconds", "scanned in 0.05 seconds"),
        (r"\(0\.\d+s latency\)", "(0.000050s latency)"),
    )


def _host(svc: str) -> str:
    return svc.replace("_", "-") + ".paydesk.test"


# --------------------------------------------------------------------------------------------------- curl over TLS


@case(
    "u123_curl_tls_verify",
    "curl -v",
    clean=False,
    group=GROUP,
    decisive=[
        "curl: (60) SSL certificate problem: unable to get local issuer certificate",
        "* Connected to refunds.paydesk.test (127.0.0.1) port 18401 (#8)",
    ],
)
def _curl_tls_verify(root: Path) -> bytes:
    listeners = [
        {"name": "api", "tls": "api", "rows": 12, "deprecated": ["coupons", "tax"]},
        {"name": "refunds", "tls": "refunds-legacy", "rows": 12},
    ]
    with _servers(root, listeners) as ports:
        api, ref = ports["api"], ports["refunds"]
        urls = " ".join(
            f"https://refunds.paydesk.test:{ref}/api/v1/refunds"
            if svc == "refunds"
            else f"https://api.paydesk.test:{api}/api/v1/{svc}"
            for svc in _SERVICES
        )
        cmd = (
            f"curl -sS -v --cacert certs/ca.pem --resolve api.paydesk.test:{api}:127.0.0.1 "
            f"--resolve refunds.paydesk.test:{ref}:127.0.0.1 {urls}"
        )
        out = sh(cmd, root)
    return _settle(out, root, [api, ref])


@case(
    "u123_curl_clean_warnings",
    "curl -v",
    clean=True,
    group=GROUP,
    decisive=[
        '< Warning: 299 - "/api/v1/coupons is deprecated; use /api/v2/coupons"',
        '{"service": "exceptions_inbox", "version": "2.4.0"',
    ],
)
def _curl_clean(root: Path) -> bytes:
    listeners = [{"name": "api", "tls": "api", "rows": 16, "deprecated": ["coupons", "tax", "retry_policy"]}]
    with _servers(root, listeners) as ports:
        api = ports["api"]
        urls = " ".join(f"https://api.paydesk.test:{api}/api/v1/{svc}" for svc in _SERVICES)
        out = sh(f"curl -sS -v --cacert certs/ca.pem --resolve api.paydesk.test:{api}:127.0.0.1 {urls}", root)
    return _settle(out, root, [api])


# ------------------------------------------------------------------------------------------- curl through the proxy


def _backends(svcs: list[str], down: str = "") -> tuple[list[dict[str, object]], dict[str, int], list[int]]:
    """One plain HTTP listener per service of ``svcs`` on ports picked in ascending order (``down`` gets a port
    that nothing listens on); the listeners, the ports by service, the ports in order and one spare port last."""
    *ports, spare = _free_ports(len(svcs) + 1)
    by_svc = dict(zip(svcs, ports, strict=True))
    listeners = [{"name": s, "service": s, "port": p, "rows": 10} for s, p in by_svc.items() if s != down]
    return listeners, by_svc, [*ports, spare]


@case(
    "u123_curl_proxy_502",
    "curl -sS -i -w",
    clean=False,
    group=GROUP,
    decisive=[
        "HTTP/1.1 502 Bad Gateway",
        '"detail": "upstream retry_queue at 127.0.0.1:18403 refused the connection"',
        "502 http://127.0.0.1:18400/api/v1/retry_queue",
    ],
)
def _curl_proxy_502(root: Path) -> bytes:
    listeners, by_svc, ports = _backends(_SERVICES, down="retry_queue")
    proxy = ports.pop()
    ports = [proxy, *ports]
    listeners.append({"name": "edge", "port": proxy, "proxy": by_svc})
    with _servers(root, listeners):
        urls = " ".join(f"http://127.0.0.1:{proxy}/api/v1/{svc}" for svc in _SERVICES)
        out = sh(f"curl -sS -i -w '%{{http_code}} %{{url_effective}}\\n' {urls}", root)
    return _settle(out, root, ports)


@case(
    "u123_curl_reset",
    "curl -sS -v",
    clean=False,
    group=GROUP,
    decisive=["curl: (56) Recv failure: Connection reset by peer", "> GET /api/v1/export HTTP/1.1", "[exit status 56]"],
)
def _curl_reset(root: Path) -> bytes:
    order = [s for s in _SERVICES if s != "export"] + ["export"]
    listeners = [{"name": "api", "tls": "api", "rows": 10, "reset": ["export"], "deprecated": ["tax"]}]
    with _servers(root, listeners) as ports:
        api = ports["api"]
        urls = " ".join(f"https://api.paydesk.test:{api}/api/v1/{svc}" for svc in order)
        out = sh(f"curl -sS -v --cacert certs/ca.pem --resolve api.paydesk.test:{api}:127.0.0.1 {urls}", root)
    return _settle(out, root, [api])


# ----------------------------------------------------------------------------------------------- openssl s_client


def _sni(overrides: dict[str, str]) -> dict[str, str]:
    return {_host(s): overrides.get(s, s) for s in _SERVICES}


@case(
    "u123_sclient_hostname",
    "openssl s_client -brief",
    clean=False,
    group=GROUP,
    decisive=["verify error:num=62:hostname mismatch", "== refunds.paydesk.test", "[exit status 1]"],
)
def _sclient_hostname(root: Path) -> bytes:
    listeners = [{"name": "tls", "tls": "api", "sni": _sni({"refunds": "refunds-typo"})}]
    with _servers(root, listeners) as ports:
        port = ports["tls"]
        hosts = " ".join(_host(s) for s in _SERVICES)
        script = (
            "failed=; for h in " + hosts + '; do echo "== $h"; '
            f"openssl s_client -brief -connect 127.0.0.1:{port} -servername $h -verify_hostname $h "
            '-CAfile certs/ca.pem -verify_return_error </dev/null || failed="$failed $h"; done; [ -z "$failed" ]'
        )
        out = sh(script, root)
    return _settle(out, root, [port])


@case(
    "u123_sclient_expired",
    "openssl s_client -showcerts",
    clean=False,
    group=GROUP,
    decisive=["verify error:num=10:certificate has expired", "Verify return code: 10 (certificate has expired)"],
)
def _sclient_expired(root: Path) -> bytes:
    listeners = [{"name": "tls", "tls": "api", "sni": _sni({"ledger": "ledger-expired"})}]
    with _servers(root, listeners) as ports:
        port = ports["tls"]
        hosts = " ".join(_host(s) for s in _SERVICES)
        script = (
            f"for h in {hosts}; do "
            f"openssl s_client -showcerts -connect 127.0.0.1:{port} -servername $h -CAfile certs/ca.pem "
            "</dev/null; done"
        )
        out = sh(script, root)
    return _settle(out, root, [port])


# ------------------------------------------------------------------------------------------------ nc, ss and socat


@case(
    "u123_nc_refused",
    "nc -v",
    clean=False,
    group=GROUP,
    decisive=["nc: connect to 127.0.0.1 port 18416 (tcp) failed: Connection refused", "[exit status 1]"],
)
def _nc_refused(root: Path) -> bytes:
    listeners, by_svc, ports = _backends(_SERVICES, down="webhooks")
    with _servers(root, listeners):
        pairs = " ".join(f"{s}:{p}" for s, p in by_svc.items())
        script = (
            f'failed=; for sp in {pairs}; do s=${{sp%:*}}; p=${{sp#*:}}; echo "== $s"; '
            "printf 'GET /health HTTP/1.0\\r\\nHost: %s\\r\\n\\r\\n' $s | nc -v -N -w 5 127.0.0.1 $p "
            '|| failed="$failed $s"; done; [ -z "$failed" ]'
        )
        out = sh(script, root)
    return _settle(out, root, ports)


@case(
    "u123_ss_nc_clean",
    "ss -tlnp; nc -zv; curl",
    clean=True,
    group=GROUP,
    decisive=[
        "LISTEN 0      5          127.0.0.1:18435",
        "Connection to 127.0.0.1 18435 port [tcp/*] succeeded!",
    ],
)
def _ss_nc_clean(root: Path) -> bytes:
    listeners, _, ports = _backends(_SERVICES)
    with _servers(root, listeners):
        ports_expr = " or ".join(f"sport = :{p}" for p in ports[:-1])
        nc = " ".join(str(p) for p in ports[:-1])
        health = " ".join(f"http://127.0.0.1:{p}/health" for p in ports[:-1])
        script = (
            f"ss -tln '( {ports_expr} )' | sort -t: -k2,2n; "
            f"for p in {nc}; do nc -zv 127.0.0.1 $p; done; curl -sS {health}"
        )
        out = sh(script, root)
    return _settle(out, root, ports)


@case(
    "u123_socat_clean",
    "socat -d -d OPENSSL",
    clean=True,
    group=GROUP,
    decisive=["N SSL connection using TLS_AES_256_GCM_SHA384", "N exiting with status 0"],
)
def _socat_clean(root: Path) -> bytes:
    listeners = [{"name": "api", "tls": "api", "rows": 14, "deprecated": ["coupons"]}]
    with _servers(root, listeners) as ports:
        api = ports["api"]
        script = (
            f"for s in {' '.join(_SERVICES)}; do "
            "printf 'GET /api/v1/%s HTTP/1.0\\r\\nHost: api.paydesk.test\\r\\n\\r\\n' $s | "
            f"socat -d -d - OPENSSL:127.0.0.1:{api},cafile=certs/ca.pem,commonname=api.paydesk.test; done"
        )
        out = sh(script, root)
    return substitute(
        _settle(out, root, [api]),
        (r"^\d{4}/\d\d/\d\d \d\d:\d\d:\d\d socat\[\d+\]", "2026/01/01 00:00:00 socat[4242]"),
        (r"127\.0\.0\.1:(?:3[2-9]|[4-6]\d)\d{3}\b", "127.0.0.1:40000"),
    )


@case(
    "u123_nmap_clean",
    "nmap -sT --script http-headers",
    clean=True,
    group=GROUP,
    decisive=["18400/tcp open   unknown syn-ack", "Nmap done: 1 IP address (1 host up) scanned in"],
)
def _nmap_clean(root: Path) -> bytes:
    listeners, _, ports = _backends(_SERVICES, down="dead_letters")
    with _servers(root, listeners):
        plist = ",".join(str(p) for p in ports[:-1])
        out = sh(f"nmap -sT -Pn -n --reason -p {plist} --script +http-headers 127.0.0.1", root)
    return _settle(out, root, ports)
