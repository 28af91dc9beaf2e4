"""Held-out outputs (group ``unseen-109``): a hundred-and-ninth batch, release and download verification as an agent
runs it before installing something, all offline, with the keys, certificates and release files made in the
scenario's folder.

Failing runs: ``sha256sum -c`` over a mirror of 1,600 packages where two packages in the middle do not match (and the
final ``WARNING: 2 computed checksums did NOT match``), ``sha512sum -c`` of a download folder where three files never
arrived (``FAILED open or read``), a loop of ``gpg --verify`` over 240 detached signatures checked with an imported,
uncertified key (a trust ``WARNING`` on every good signature) where one tarball has a ``BAD signature``, a vendor loop
of ``gpg --verify`` then ``sha256sum -c`` where one vendor's key has expired and another's is unknown, ``minisign -V``
over 180 files with one ``Signature verification failed``, ``signify -C`` of an OpenBSD-style ``SHA256.sig`` with one
``FAIL``, ``openssl verify -show_chain`` of 90 service certificates with one expired and one issued by an untrusted CA,
and ``openssl dgst -verify`` over 150 artifacts with one ``Verification failure``. Clean runs, their files, packages and
keys named after failed payments, error codes, retry queues and exception reports: ``sha256sum -c --ignore-missing`` of
a partial mirror, ``gpgv`` with a keyring over 150 signatures, a ``bash -x`` release script of ``openssl verify`` and
``openssl dgst -verify``, and ``minisign -Vm SHA256SUMS`` then ``sha256sum -c`` and ``md5sum -c``. Labels were written
with each scenario, before the engine saw the output. Needs GnuPG with gpgv, coreutils, OpenSSL, minisign and signify
(Debian ``gnupg``, ``gpgv``, ``coreutils``, ``openssl``, ``minisign``, ``signify-openbsd``).
"""

from __future__ import annotations

import hashlib
import re
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-109"

_AREAS = [
    "failed-payments", "error-codes", "retry-queue", "exception-report", "billing", "ledger", "refunds", "invoice",
    "webhooks", "audit", "tax", "orders", "session", "shipping", "coupons", "pricing",
]  # fmt: skip
_PARTS = ["worker", "api", "cli", "exporter", "migrations", "client", "common", "dbg", "doc", "sync"]


def _packages(n: int, ext: str = "_amd64.deb") -> list[str]:
    """``n`` Debian-pool style package paths named after the business areas."""
    out = []
    for i in range(n):
        area = _AREAS[i % len(_AREAS)]
        part = _PARTS[(i // len(_AREAS)) % len(_PARTS)]
        version = f"{1 + i % 5}.{(i * 7) % 13}.{i // (len(_AREAS) * len(_PARTS))}"
        name = f"{area}-{part}"
        out.append(f"pool/main/{area[0]}/{name}/{name}_{version}{ext}")
    return out


def _files(root: Path, rels: list[str]) -> None:
    """Small files with content fixed by their names."""
    for rel in rels:
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        seed = hashlib.sha256(rel.encode()).digest()
        path.write_bytes(seed * (8 + seed[0] % 24))


def _spaced(fp: bytes) -> bytes:
    """A fingerprint as gpg prints it after 'Primary key fingerprint:'."""
    groups = [fp[j : j + 4] for j in range(0, 40, 4)]
    return b" ".join(groups[:5]) + b"  " + b" ".join(groups[5:])


def _fingerprints(out: bytes) -> bytes:
    """Each OpenPGP key's random fingerprint (full, spaced, long key id) replaced by a fixed one per key."""
    seen: list[bytes] = []
    for fp in re.findall(rb"\b[0-9A-F]{40}\b", out):
        if fp not in seen:
            seen.append(fp)
    for i, fp in enumerate(seen):
        fake = hashlib.sha1(f"u109-key-{i}".encode()).hexdigest().upper().encode()
        out = out.replace(fp, fake).replace(_spaced(fp), _spaced(fake)).replace(fp[-16:], fake[-16:])
    return out


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        _fingerprints(scrub(out, root)),
        (r"^[0-9A-F]{8,16}:error:", "40E7A2C1F37F0000:error:"),
        (r"revocs\.d/[0-9A-F]+\.rev", "revocs.d/0000.rev"),
    )


# ---------------------------------------------------------------- OpenPGP


def _gpg(home: Path) -> str:
    home.mkdir(mode=0o700, parents=True, exist_ok=True)
    return f"gpg --homedir {home} --batch --no-tty"


def _gen_key(root: Path, home: Path, uid: str, *, created: str = "20251201T000000!", expire: str = "3y") -> None:
    sh(
        f"{_gpg(home)} --passphrase '' --faked-system-time {created} --quick-gen-key '{uid}' ed25519 sign {expire}",
        root,
    )


def _sign_all(root: Path, home: Path, rels: list[str], *, when: str = "20260115T093000!", armor: bool = True) -> None:
    flag = "--armor " if armor else ""
    ext = "asc" if armor else "sig"
    script = "\n".join(
        f"{_gpg(home)} --faked-system-time {when} --yes {flag}-o '{r}.{ext}' --detach-sign '{r}' 2>/dev/null"
        for r in rels
    )
    (root / "sign.sh").write_text(script + "\n")
    sh(f"sh sign.sh; gpgconf --homedir {home} --kill gpg-agent", root)


@case(
    "u109_gpg_verify_bad_signature",
    "gpg --verify",
    clean=False,
    group=GROUP,
    decisive=[
        'gpg: BAD signature from "Retry Queue Release Signing <release@retry-queue.example>"',
        "gpg: assuming signed data in 'releases/retry-queue-worker-2.4.1.tar.gz'",
    ],
)
def _gpg_bad(root: Path) -> bytes:
    rels = [f"releases/{p.split('/')[-2]}-{1 + i % 4}.{i % 9}.{i % 3}.tar.gz" for i, p in enumerate(_packages(240))]
    rels[131] = "releases/retry-queue-worker-2.4.1.tar.gz"
    _files(root, rels)
    signer = root / "signer"
    _gen_key(root, signer, "Retry Queue Release Signing <release@retry-queue.example>")
    _sign_all(root, signer, rels)
    sh(f"{_gpg(signer)} --armor --export > release-key.asc", root)
    (root / rels[131]).write_bytes((root / rels[131]).read_bytes() + b"\n# patched by mirror\n")
    verifier = root / "verify-home"
    sh(f"{_gpg(verifier)} --import release-key.asc", root)
    loop = f'for s in releases/*.tar.gz.asc; do gpg --homedir {verifier} --verify "$s"; done'
    return _settle(sh(loop, root), root)


_VENDORS = [
    "failed-payments", "error-codes", "retry-queue", "exception-report", "billing-core", "ledger-sync",
    "refunds-api", "invoice-render", "webhooks-relay", "audit-trail", "tax-rates", "orders-service",
]  # fmt: skip


@case(
    "u109_gpg_vendor_expired_unknown_key",
    "gpg --verify + sha256sum -c",
    clean=False,
    group=GROUP,
    decisive=[
        "gpg: Note: This key has expired!",
        "gpg: Can't check signature: No public key",
        "== vendors/invoice-render",
    ],
)
def _gpg_vendors(root: Path) -> bytes:
    trusted = root / "trusted"
    for v in _VENDORS:
        rels = [f"vendors/{v}/{v}-{part}-3.{i}.0.tar.gz" for i, part in enumerate(_PARTS)]
        _files(root, rels)
        sh(f"cd vendors/{v} && sha256sum *.tar.gz > SHA256SUMS", root)
        home = root / "keys" / v
        if v == "ledger-sync":  # a key that expired in 2025, the release signed before that
            _gen_key(root, home, f"{v} releases <release@{v}.example>", created="20240101T000000!", expire="1y")
            when = "20240601T120000!"
        else:
            _gen_key(root, home, f"{v} releases <release@{v}.example>")
            when = "20260115T093000!"
        _sign_all(root, home, [f"vendors/{v}/SHA256SUMS"], when=when)
        if v != "invoice-render":  # its key never made it into the keyring
            sh(f"{_gpg(home)} --armor --export | {_gpg(trusted)} --import", root)
    loop = (
        'for d in vendors/*; do echo "== $d"; '
        f'gpg --homedir {trusted} --verify "$d/SHA256SUMS.asc" "$d/SHA256SUMS" && '
        '(cd "$d" && sha256sum -c SHA256SUMS); '
        "done"
    )
    return _settle(sh(loop, root), root)


@case(
    "u109_gpgv_keyring_clean",
    "gpgv",
    clean=True,
    group=GROUP,
    decisive=["150/150 signatures good"],
)
def _gpgv_clean(root: Path) -> bytes:
    rels = [f"dist/{p.split('/')[-1].replace('_amd64.deb', '.tar.xz')}" for p in _packages(150)]
    _files(root, rels)
    home = root / "signer"
    _gen_key(root, home, "Failed Payments Exporter Releases <failed-payments@releases.example>")
    _sign_all(root, home, rels, armor=False)
    sh(f"mkdir -p keys && {_gpg(home)} --export > keys/release-keyring.gpg", root)
    script = (
        "ok=0; n=0; for f in dist/*.tar.xz; do n=$((n+1)); "
        'if gpgv --keyring ./keys/release-keyring.gpg "$f.sig" "$f"; then ok=$((ok+1)); echo "$f: verified"; fi; '
        'done; echo "$ok/$n signatures good"'
    )
    return _settle(sh(script, root), root)


# ---------------------------------------------------------------- coreutils checksums


@case(
    "u109_sha256sum_failed",
    "sha256sum -c",
    clean=False,
    group=GROUP,
    decisive=[
        "ledger-sync_3.10.4_amd64.deb: FAILED",
        "tax-exporter_2.5.6_amd64.deb: FAILED",
        "sha256sum: WARNING: 2 computed checksums did NOT match",
    ],
)
def _sha256_failed(root: Path) -> bytes:
    rels = _packages(1600)
    rels[612] = "pool/main/l/ledger-sync/ledger-sync_3.10.4_amd64.deb"
    rels[977] = "pool/main/t/tax-exporter/tax-exporter_2.5.6_amd64.deb"
    _files(root, rels)
    (root / "SHA256SUMS").write_bytes(sh("sha256sum " + " ".join(rels), root))
    for i in (612, 977):
        (root / rels[i]).write_bytes((root / rels[i]).read_bytes()[:-100])  # a truncated download
    return _settle(sh("sha256sum -c SHA256SUMS", root), root)


@case(
    "u109_sha512sum_missing_files",
    "sha512sum -c",
    clean=False,
    group=GROUP,
    decisive=[
        "sha512sum: WARNING: 3 listed files could not be read",
        "refunds-cli_4.2.0_amd64.deb: FAILED open or read",
    ],
)
def _sha512_missing(root: Path) -> bytes:
    rels = [f"downloads/{p.split('/')[-1]}" for p in _packages(900)]
    rels[301] = "downloads/refunds-cli_4.2.0_amd64.deb"
    _files(root, rels)
    (root / "SHA512SUMS").write_bytes(sh("sha512sum " + " ".join(rels), root))
    for i in (301, 302, 655):
        (root / rels[i]).unlink()
    return _settle(sh("sha512sum -c SHA512SUMS", root), root)


@case(
    "u109_sha256sum_ignore_missing_clean",
    "sha256sum -c --ignore-missing",
    clean=True,
    group=GROUP,
    decisive=["exception-report-cli_4.9.0_amd64.deb: OK"],
)
def _sha256_partial(root: Path) -> bytes:
    rels = _packages(2000)
    rels[1234] = "pool/main/e/exception-report-cli/exception-report-cli_4.9.0_amd64.deb"
    _files(root, rels)
    (root / "SHA256SUMS").write_bytes(sh("sha256sum " + " ".join(rels), root))
    for i, rel in enumerate(rels):
        if i % 3 and i != 1234:  # only a third of the mirror was downloaded
            (root / rel).unlink()
    return _settle(sh("sha256sum -c --ignore-missing SHA256SUMS", root), root)


# ---------------------------------------------------------------- minisign, signify


@case(
    "u109_minisign_mismatch",
    "minisign -V",
    clean=False,
    group=GROUP,
    decisive=["Signature verification failed", "--> artifacts/error-codes-migrations-1.3.7.zip"],
)
def _minisign_bad(root: Path) -> bytes:
    rels = [f"artifacts/{p.split('/')[-2]}-{1 + i % 3}.{i % 8}.{i % 5}.zip" for i, p in enumerate(_packages(180))]
    rels[77] = "artifacts/error-codes-migrations-1.3.7.zip"
    _files(root, rels)
    sh("minisign -G -W -p release.pub -s release.key", root)
    script = "\n".join(f"minisign -S -s release.key -t 'file:{r} release:2026.01' -m '{r}' >/dev/null" for r in rels)
    (root / "sign.sh").write_text(script + "\n")
    sh("sh sign.sh", root)
    (root / rels[77]).write_bytes(b"PK" + (root / rels[77]).read_bytes()[2:-1])
    loop = 'for f in artifacts/*.zip; do echo "--> $f"; minisign -V -p release.pub -m "$f"; done'
    return _settle(sh(loop, root), root)


@case(
    "u109_signify_check_fail",
    "signify -C",
    clean=False,
    group=GROUP,
    decisive=["retry-queue-dbg-5.3.2.tgz: FAIL"],
)
def _signify_bad(root: Path) -> bytes:
    rels = [f"{p.split('/')[-2]}-{1 + i % 5}.{i % 6}.{i % 4}.tgz" for i, p in enumerate(_packages(1200))]
    rels[545] = "retry-queue-dbg-5.3.2.tgz"
    _files(root, rels)
    sh(
        "signify-openbsd -G -n -c 'retry-queue 2026.01 base' -p retry-queue-base.pub -s retry-queue-base.sec",
        root,
    )
    (root / "SHA256").write_bytes(sh("sha256sum --tag " + " ".join(rels), root))
    sh("signify-openbsd -S -e -s retry-queue-base.sec -m SHA256 -x SHA256.sig", root)
    (root / rels[545]).write_bytes(b"\0" + (root / rels[545]).read_bytes()[1:])
    return _settle(sh("signify-openbsd -C -p retry-queue-base.pub -x SHA256.sig", root), root)


@case(
    "u109_minisign_sums_clean",
    "minisign -Vm + sha256sum -c + md5sum -c",
    clean=True,
    group=GROUP,
    decisive=["Signature and comment signature verified", "failed-payments-worker_1.0.0_amd64.deb: OK"],
)
def _minisign_clean(root: Path) -> bytes:
    rels = [f"{p.split('/')[-1]}" for p in _packages(420)]
    _files(root, rels)
    (root / "SHA256SUMS").write_bytes(sh("sha256sum " + " ".join(rels), root))
    (root / "MD5SUMS").write_bytes(sh("md5sum " + " ".join(rels[:200]), root))
    sh("minisign -G -W -p release.pub -s release.key", root)
    sh("minisign -S -s release.key -t 'failed-payments 2026.01 SHA256SUMS' -m SHA256SUMS", root)
    cmd = "minisign -Vm SHA256SUMS -p release.pub && sha256sum -c SHA256SUMS && md5sum -c MD5SUMS"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- OpenSSL

_CA_CNF = """
    [ ca ]
    default_ca = ops
    [ ops ]
    dir = ./ca
    database = ./ca/index.txt
    new_certs_dir = ./ca/newcerts
    serial = ./ca/serial
    default_md = sha256
    policy = loose
    copy_extensions = none
    unique_subject = no
    [ loose ]
    commonName = supplied
    organizationName = optional
    [ v3_intermediate ]
    basicConstraints = critical, CA:true, pathlen:0
    keyUsage = critical, keyCertSign, cRLSign
    [ v3_leaf ]
    basicConstraints = CA:false
    keyUsage = critical, digitalSignature
    extendedKeyUsage = serverAuth
"""


def _ca(root: Path) -> None:
    write(root, {"ca.cnf": _CA_CNF, "ca/index.txt": "", "ca/serial": "1000\n"})
    (root / "ca" / "newcerts").mkdir()
    ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
    sh(
        f"openssl req -x509 {ec} -keyout root.key -out root.pem -days 3650 -subj '/O=Payments Ops/CN=Payments Root CA'"
        f" && openssl req -new {ec} -keyout int.key -out int.csr -subj '/O=Payments Ops/CN=Payments Issuing CA 2'"
        " && openssl ca -batch -config ca.cnf -cert root.pem -keyfile root.key -extensions v3_intermediate"
        " -days 1825 -in int.csr -out intermediate.pem -notext",
        root,
    )


def _leaf(root: Path, name: str, *, issuer: str = "int", dates: str = "-days 365") -> None:
    cert = "intermediate.pem" if issuer == "int" else f"{issuer}.pem"
    sh(
        f"openssl req -new -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout keys/{name}.key"
        f" -out csr/{name}.csr -subj '/O=Payments Ops/CN={name}.internal'"
        f" && openssl ca -batch -config ca.cnf -cert {cert} -keyfile {issuer}.key -extensions v3_leaf {dates}"
        f" -in csr/{name}.csr -out certs/{name}.pem -notext",
        root,
    )


def _services(n: int) -> list[str]:
    return [f"{_AREAS[i % len(_AREAS)]}-{_PARTS[(i // len(_AREAS)) % len(_PARTS)]}" for i in range(n)]


@case(
    "u109_openssl_verify_chain_expired",
    "openssl verify",
    clean=False,
    group=GROUP,
    decisive=[
        "error 10 at 0 depth lookup: certificate has expired",
        "error certs/ledger-exporter.pem: verification failed",
        "error 20 at 0 depth lookup: unable to get local issuer certificate",
        "error certs/refunds-client.pem: verification failed",
    ],
)
def _openssl_verify_bad(root: Path) -> bytes:
    for d in ("keys", "csr", "certs"):
        (root / d).mkdir()
    _ca(root)
    sh(
        "openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes -keyout staging.key -out staging.pem"
        " -days 365 -subj '/O=Payments Staging/CN=Staging Test CA'",
        root,
    )
    for name in _services(90):
        if name == "ledger-exporter":
            _leaf(root, name, dates="-startdate 20240301000000Z -enddate 20250301000000Z")
        elif name == "refunds-client":
            _leaf(root, name, issuer="staging")
        else:
            _leaf(root, name)
    cmd = "openssl verify -show_chain -CAfile root.pem -untrusted intermediate.pem certs/*.pem"
    return _settle(sh(cmd, root), root)


def _release(root: Path, n: int) -> list[str]:
    rels = [f"dist/{p.split('/')[-1].replace('_amd64.deb', '.whl')}" for p in _packages(n)]
    _files(root, rels)
    sh("openssl genpkey -algorithm RSA -pkeyopt rsa_keygen_bits:2048 -out release.key 2>/dev/null", root)
    sh("mkdir -p keys && openssl pkey -in release.key -pubout -out keys/release.pub", root)
    script = "\n".join(f"openssl dgst -sha256 -sign release.key -out '{r}.sig' '{r}'" for r in rels)
    (root / "sign.sh").write_text(script + "\n")
    sh("sh sign.sh", root)
    return rels


@case(
    "u109_openssl_dgst_verification_failure",
    "openssl dgst -verify",
    clean=False,
    group=GROUP,
    decisive=["Verification failure", "# dist/exception-report-api_3.4.1.whl"],
)
def _openssl_dgst_bad(root: Path) -> bytes:
    rels = _release(root, 150)
    bad = "dist/exception-report-api_3.4.1.whl"
    (root / rels[93]).rename(root / bad)
    (root / f"{rels[93]}.sig").rename(root / f"{bad}.sig")
    (root / bad).write_bytes((root / bad).read_bytes() + b"\0")
    loop = (
        'for f in dist/*.whl; do echo "# $f"; '
        'openssl dgst -sha256 -verify keys/release.pub -signature "$f.sig" "$f"; done'
    )
    return _settle(sh(loop, root), root)


@case(
    "u109_openssl_release_script_clean",
    "bash -x verify-release.sh (openssl)",
    clean=True,
    group=GROUP,
    decisive=["release 2026.01 verified: 40 certificates, 120 artifacts"],
)
def _openssl_clean(root: Path) -> bytes:
    for d in ("keys", "csr", "certs"):
        (root / d).mkdir(exist_ok=True)
    _ca(root)
    names = _services(40)
    for name in names:
        _leaf(root, name)
    _release(root, 120)
    write(
        root,
        {
            "verify-release.sh": """
                #!/bin/bash
                # Verify the release bundle before it is installed on the failed-payments and retry-queue hosts.
                set -euo pipefail
                certs=0
                for c in certs/*.pem; do
                    openssl verify -CAfile root.pem -untrusted intermediate.pem "$c"
                    openssl x509 -in "$c" -noout -subject -issuer
                    certs=$((certs + 1))
                done
                artifacts=0
                for f in dist/*.whl; do
                    openssl dgst -sha256 -verify keys/release.pub -signature "$f.sig" "$f"
                    artifacts=$((artifacts + 1))
                done
                echo "release 2026.01 verified: $certs certificates, $artifacts artifacts"
            """
        },
    )
    return _settle(sh("bash -x verify-release.sh", root), root)
