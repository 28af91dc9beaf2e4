"""Held-out outputs (group ``unseen-133``): a hundred-and-thirty-third batch, mail delivery as an ops agent tests it on
the loopback, offline: a local SMTP server written with aiosmtpd 1.4.6 (from PyPI) in front of a generated mail
desk, ``ledgerline``, whose 30 notice templates are named after business words (``failed_payments``,
``error_codes``, ``retry_queue``, ``exceptions``, ``refunds`` ...), and the clients that send hundreds of notices
through it: Python's ``smtplib``, swaks, msmtp and Debian's Exim 4.96 (as a submission MTA relaying to the server).

Failing runs: an ``smtplib`` bulk send that dies with ``SMTPRecipientsRefused`` after hundreds of accepted notices,
an ``smtplib`` run over three relays where one relay answers the TLS handshake in plain text
(``WRONG_VERSION_NUMBER``) in the middle, a swaks loop where one sender's AUTH PLAIN is refused with ``535``
near the start and a long tail of good transactions follows, an msmtp loop whose settlements account speaks TLS to a
plain-text port, ``exim -odi -v`` submissions where one recipient is refused at ``RCPT`` and Exim writes a bounce
(its exit status stays 0: only the ``**`` line says so), the aiosmtpd server's own debug log where the handler
raises on one notice's amount and the client is answered ``500 Error``, and ``exim -bt`` over 300 addresses
where one domain has no route. Clean runs full of those business words in subjects and bodies: aiosmtpd's
``Debugging`` handler printing every notice it receives, a swaks loop of error-report notices all answered 250, an
``smtplib`` digest run under ``-W default`` with the ``cgi`` module's deprecation warning, and ``exim -bt`` routing
every address of the desk. Labels were written with each scenario, before the engine saw the output. Needs Exim
(Debian ``exim4-daemon-light``, with its ``Debian-exim`` user), swaks and msmtp (Debian ``swaks``, ``msmtp``), and
aiosmtpd 1.4.6 from PyPI (a virtual environment of its own under ``/tmp/offloader-corpus-venvs/u133-smtp``).
"""

from __future__ import annotations

import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-133"

#: The 30 notice templates of the mail desk.
_AREAS = [
    "failed_payments", "error_codes", "retry_queue", "exceptions", "refunds", "billing", "invoices", "ledger",
    "chargebacks", "settlements", "payouts", "disputes", "dunning", "tax", "orders", "shipping", "coupons", "pricing",
    "webhooks", "audit", "export", "fraud_alerts", "dead_letters", "reconciliation", "statements", "fees", "currency",
    "auth", "session", "alerts",
]  # fmt: skip

_DOMAIN = "ledgerline.test"


def _python() -> str:
    return str(make_venv(VENVS / "u133-smtp", "aiosmtpd==1.4.6") / "bin" / "python")


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


_SERVER = '''\
"""The desk's loopback SMTP server: aiosmtpd with the policies of ops/policy.py."""
import logging
import os
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Debugging
from aiosmtpd.smtp import AuthResult, LoginPassword

MODE = os.environ.get("DESK_MODE", "plain")
REJECT = set(filter(None, os.environ.get("DESK_REJECT", "").split(",")))
USERS = {}
if os.path.exists("ops/users.txt"):
    USERS = dict(line.split(":", 1) for line in open("ops/users.txt").read().split())
MAILBOXES = set(open("ops/mailboxes.txt").read().split()) if os.path.exists("ops/mailboxes.txt") else set()
if MODE == "debuglog":
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, format="%(levelname)s:%(name)s:%(message)s")


class DeskHandler:
    def __init__(self):
        self.accepted = 0

    async def handle_RCPT(self, server, session, envelope, address, rcpt_options):
        if address in REJECT or (MAILBOXES and address not in MAILBOXES):
            return f"550 5.1.1 <{address}>: Recipient address rejected: no such mailbox on {address.split('@')[1]}"
        envelope.rcpt_tos.append(address)
        return "250 2.1.5 OK"

    async def handle_DATA(self, server, session, envelope):
        text = envelope.content.decode("utf-8", "replace")
        if MODE == "debuglog":
            amount = [h for h in text.splitlines() if h.startswith("X-Notice-Amount:")][0].split(":", 1)[1].strip()
            cents = round(float(amount) * 100)
            logging.getLogger("desk").info("notice for %s amount %d cents stored", envelope.rcpt_tos[0], cents)
        self.accepted += 1
        return f"250 2.0.0 Ok: queued as DESK{self.accepted:05d}"


def authenticate(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and USERS.get(auth_data.login.decode()) == auth_data.password.decode()
    return AuthResult(success=ok, handled=False)


handler = Debugging(sys.stdout) if MODE == "debugging" else DeskHandler()
kwargs = {"authenticator": authenticate, "auth_require_tls": False} if USERS else {}
controller = Controller(handler, hostname="127.0.0.1", port=int(sys.argv[1]), server_hostname="mx.ledgerline.test",
                        ident="ledgerline-desk ESMTP", **kwargs)
controller.start()
open("ops/ready", "w").close()
while not os.path.exists("ops/stop"):
    time.sleep(0.05)
sys.stdout.flush()
controller.stop()
'''


@contextmanager
def _serving(root: Path, mode: str = "plain", reject: str = "", log: Path | None = None) -> Iterator[int]:
    """The desk's server listening on a free loopback port of ``root`` while the block runs; its port."""
    port = _free_port()
    write(root, {"ops/server.py": _SERVER})
    sink = open(log or root / "ops" / "server.log", "wb")  # noqa: SIM115
    env = {"DESK_MODE": mode, "DESK_REJECT": reject, "PATH": "/usr/bin:/bin", "PYTHONUNBUFFERED": "1"}
    proc = subprocess.Popen([_python(), "ops/server.py", str(port)], cwd=root, env=env, stdout=sink, stderr=sink)
    for _ in range(400):
        if (root / "ops" / "ready").exists():
            break
        time.sleep(0.05)
    try:
        yield port
    finally:
        (root / "ops" / "stop").touch()
        proc.wait(timeout=30)
        sink.close()


def _settle(out: bytes, root: Path, port: int) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the port, peers, ids, dates and times."""
    return substitute(
        scrub(out, root).replace(str(port).encode(), b"8025"),
        (r"\('127\.0\.0\.1', \d+\)", "('127.0.0.1', 50000)"),
        (r"127\.0\.0\.1:\d{4,5}\b(?<!8025)", "127.0.0.1:50000"),
        (r"\b[0-9A-Za-z]{6}-[0-9A-Za-z]{6}-[0-9A-Za-z]{2}\b", "1tDesk-000000-00"),
        (r"\w{3}, \d\d? \w{3} \d{4} \d\d:\d\d:\d\d [+-]\d{4}", "Thu, 01 Jan 2026 00:00:00 +0000"),
        (r"<\d{14}\.\d+@", "<20260101000000.1000@"),
        (r"\d+\.\d+ ?s(ec(onds)?)?\b", "0.10s"),
        (r"process \d+", "process 1000"),
        (r"(<= <> R=\S+ U=Debian-exim P=local) S=\d+", r"\1 S=2470"),
        (r"^\w{3} [ \d]\d \d\d:\d\d:\d\d ", "Jan 01 00:00:00 "),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "2026-01-01 00:00:00"),
    )


def _notices(count: int) -> list[tuple[str, str, str]]:
    """``count`` notices of the desk: (area, recipient, subject), cycling through the areas."""
    out = []
    for k in range(1, count + 1):
        area = _AREAS[(k - 1) % len(_AREAS)]
        subject = f"[{area}] notice {k:04d}: {area.replace('_', ' ')} report, failed items and error codes"
        out.append((area, f"{area.replace('_', '-')}@ops.{_DOMAIN}", subject))
    return out


def _templates(root: Path) -> None:
    """The desk's 30 notice templates, full of error-like words."""
    files = {}
    for i, area in enumerate(_AREAS):
        files[f"templates/{area}.txt"] = f"""\
            Ledgerline {area.replace("_", " ")} notice

            ERROR SUMMARY: {i % 4} failed payments, {i % 3} retries exhausted, {i % 5} exceptions raised
            error code E-{4100 + i:04d} (card_declined) seen {i + 2} times, queued in the retry queue
            Failed refunds are listed in the exception report; no action is needed unless the
            dead-letter queue grows: FAILED, TIMEOUT and REJECTED rows are expected here.
            """
    write(root, files)


def _desk(root: Path, count: int, typo: dict[int, str] | None = None) -> None:
    """The templates, the mailboxes the server knows and the recipients of ``count`` notices (``typo`` replaces
    some)."""
    _templates(root)
    rcpts = [r for _, r, _ in _notices(count)]
    for k, bad in (typo or {}).items():
        rcpts[k - 1] = bad
    write(
        root,
        {
            "ops/mailboxes.txt": "\n".join(f"{a.replace('_', '-')}@ops.{_DOMAIN}" for a in _AREAS) + "\n",
            "ops/recipients.txt": "\n".join(rcpts) + "\n",
            "ops/areas.txt": "\n".join(a for a, _, _ in _notices(count)) + "\n",
        },
    )


# ---------------------------------------------------------------- smtplib

_SEND = '''\
"""Send the desk's notices through the loopback relays with smtplib."""
import smtplib
import sys
import warnings
from email.message import EmailMessage

port = int(sys.argv[1])
RCPTS = open("ops/recipients.txt").read().split()
AREAS = open("ops/areas.txt").read().split()
RELAYS = [r.split(":") for r in sys.argv[2:]] or [["desk-relay", "plain", "0", str(len(RCPTS))]]


def notice(k):
    rcpt, area = RCPTS[k - 1], AREAS[k - 1]
    msg = EmailMessage()
    msg["From"] = "desk@ledgerline.test"
    msg["To"] = rcpt
    msg["Subject"] = f"[{area}] notice {k:04d}: failed items, retries and error codes"
    msg["Date"] = "Thu, 01 Jan 2026 00:00:00 +0000"
    msg["Message-ID"] = f"<notice-{k:04d}@ledgerline.test>"
    msg["X-Notice-Amount"] = f"{k * 3.25:.2f}"
    msg.set_content(open(f"templates/{area}.txt").read())
    return msg


failed = []
for name, kind, lo, hi in RELAYS:
    print(f"relay {name}: notices {int(lo) + 1}..{hi} via 127.0.0.1:{port} ({kind})")
    try:
        smtp = smtplib.SMTP_SSL("127.0.0.1", port, timeout=10) if kind == "smtps" else smtplib.SMTP("127.0.0.1", port)
        with smtp:
            smtp.ehlo("desk.ledgerline.test")
            for k in range(int(lo) + 1, int(hi) + 1):
                msg = notice(k)
                refused = smtp.send_message(msg)
                print(f"  notice {k:04d} {msg['Subject']} -> {msg['To']}: accepted ({len(refused)} refused)")
    except OSError as exc:
        if len(RELAYS) == 1:
            raise
        print(f"relay {name}: TLS handshake failed: {exc}")
        failed.append(name)
if failed:
    done = len(RELAYS) - len(failed)
    print(f"bulk send finished with errors: {done} of {len(RELAYS)} relays delivered, failed: {', '.join(failed)}")
    sys.exit(3)
print(f"bulk send done: {len(RCPTS)} notices accepted by 127.0.0.1:{port}")
'''


@case(
    "u133_smtplib_recipient_refused",
    "python smtplib (aiosmtpd server)",
    clean=False,
    group=GROUP,
    decisive=[
        "smtplib.SMTPRecipientsRefused: {'chargeback@ops.ledgerline.test': (550, b'5.1.1 "
        "<chargeback@ops.ledgerline.test>: Recipient address rejected: no such mailbox on ops.ledgerline.test')}",
        "[exit status 1]",
    ],
)
def _smtplib_refused(root: Path) -> bytes:
    _desk(root, 420, typo={339: "chargeback@ops.ledgerline.test"})
    write(root, {"send.py": _SEND})
    with _serving(root) as port:
        return _settle(sh(f"{_python()} send.py {port}", root), root, port)


@case(
    "u133_smtplib_tls_midrun",
    "python smtplib (aiosmtpd server)",
    clean=False,
    group=GROUP,
    decisive=[
        "relay settlements-relay: TLS handshake failed: [SSL: WRONG_VERSION_NUMBER] wrong version number",
        "bulk send finished with errors: 2 of 3 relays delivered, failed: settlements-relay",
        "[exit status 3]",
    ],
)
def _smtplib_tls(root: Path) -> bytes:
    _desk(root, 360)
    write(root, {"send.py": _SEND})
    relays = "billing-relay:plain:0:170 settlements-relay:smtps:170:230 refunds-relay:plain:230:360"
    with _serving(root) as port:
        return _settle(sh(f"{_python()} send.py {port} {relays}", root), root, port)


_DIGEST = '''\
"""The nightly digest of the desk: one message per area with the day's failed payments, sent with smtplib."""
import cgi
import smtplib
import sys
from email.message import EmailMessage

port = int(sys.argv[1])
RCPTS = open("ops/recipients.txt").read().split()
with smtplib.SMTP("127.0.0.1", port) as smtp:
    smtp.set_debuglevel(1)
    for k, rcpt in enumerate(RCPTS, 1):
        ctype, params = cgi.parse_header("text/plain; charset=utf-8; report-type=failed-payments")
        msg = EmailMessage()
        msg["From"] = "digest@ledgerline.test"
        msg["To"] = rcpt
        msg["Subject"] = f"Digest {k:03d}: ERROR report - failed payments, exceptions, retry queue"
        msg["Date"] = "Thu, 01 Jan 2026 00:00:00 +0000"
        msg["Message-ID"] = f"<digest-{k:03d}@ledgerline.test>"
        msg.set_content(f"report-type={params['report-type']}\\nFAILED: {k % 7} payments, ERROR E-{4000 + k}\\n")
        smtp.send_message(msg)
print(f"digest sent: {len(RCPTS)} messages, 0 refused, 0 deferred")
'''


@case(
    "u133_smtplib_digest_deprecation_clean",
    "python smtplib (aiosmtpd server)",
    clean=True,
    group=GROUP,
    decisive=["DeprecationWarning: 'cgi' is deprecated", "digest sent: 90 messages, 0 refused, 0 deferred"],
)
def _smtplib_digest(root: Path) -> bytes:
    _desk(root, 90)
    write(root, {"digest.py": _DIGEST})
    with _serving(root) as port:
        return _settle(sh(f"{_python()} -W default digest.py {port}", root), root, port)


# ---------------------------------------------------------------- aiosmtpd's own output


@case(
    "u133_aiosmtpd_debugging_clean",
    "aiosmtpd Debugging handler",
    clean=True,
    group=GROUP,
    decisive=["---------- MESSAGE FOLLOWS ----------", "bulk send done: 150 notices accepted by 127.0.0.1:8025"],
)
def _aiosmtpd_debugging(root: Path) -> bytes:
    _desk(root, 150)
    write(root, {"send.py": _SEND})
    log = root / "ops" / "debugging.log"
    with _serving(root, mode="debugging", log=log) as port:
        client = sh(f"{_python()} send.py {port}", root)
    return _settle(log.read_bytes() + client, root, port)


@case(
    "u133_aiosmtpd_handler_valueerror",
    "aiosmtpd server debug log",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: could not convert string to float: '1.234,50'",
        "500 Error: (ValueError) could not convert string to float: '1.234,50'",
    ],
)
def _aiosmtpd_valueerror(root: Path) -> bytes:
    _desk(root, 60)
    client = """\
        import smtplib, sys
        port = int(sys.argv[1])
        rcpts = open("ops/recipients.txt").read().split()
        with smtplib.SMTP("127.0.0.1", port) as smtp:
            for k, rcpt in enumerate(rcpts, 1):
                amount = "1.234,50" if k == 23 else f"{k * 12.5:.2f}"
                body = f"Subject: payout {k:03d}\\r\\nX-Notice-Amount: {amount}\\r\\n\\r\\nfailed payout retry\\r\\n"
                try:
                    smtp.sendmail("desk@ledgerline.test", [rcpt], body)
                except smtplib.SMTPDataError as exc:
                    pass
    """
    write(root, {"client.py": client})
    log = root / "ops" / "debug.log"
    with _serving(root, mode="debuglog", log=log) as port:
        sh(f"{_python()} client.py {port}", root)
    return _settle(log.read_bytes(), root, port)


# ---------------------------------------------------------------- swaks


def _swaks_loop(root: Path, port: int, count: int, auth: bool) -> bytes:
    users = [f"{a.replace('_', '-')}-bot" for a in _AREAS]
    lines = ["#!/bin/sh", "worst=0"]
    for k, (area, rcpt, subject) in enumerate(_notices(count), 1):
        user = users[(k - 1) % len(users)]
        password = "s3cret-refund-bot" if (auth and k == 5) else f"s3cret-{user}"
        auth_opts = f"--auth PLAIN --auth-user {user} --auth-password '{password}' " if auth else ""
        lines.append(
            f"swaks --server 127.0.0.1 --port {port} --helo desk.ledgerline.test --from {user}@{_DOMAIN} "
            f"--to {rcpt} {auth_opts}--header 'Subject: {subject}' --body templates/{area}.txt "
            f'|| {{ rc=$?; echo "swaks: notice {k} to {rcpt} failed with status $rc"; worst=$rc; }}'
        )
    lines.append('exit "$worst"')
    write(root, {"send.sh": "\n".join(lines) + "\n"})
    return sh("sh send.sh", root)


@case(
    "u133_swaks_auth_refused",
    "swaks (aiosmtpd server)",
    clean=False,
    group=GROUP,
    decisive=[
        "<** 535 5.7.8 Authentication credentials invalid",
        "swaks: notice 5 to refunds@ops.ledgerline.test failed with status 28",
        "[exit status 28]",
    ],
)
def _swaks_auth(root: Path) -> bytes:
    _desk(root, 45)
    (root / "ops").mkdir(exist_ok=True)
    write(
        root,
        {"ops/users.txt": "\n".join(f"{a.replace('_', '-')}-bot:s3cret-{a.replace('_', '-')}-bot" for a in _AREAS)},
    )
    with _serving(root) as port:
        return _settle(_swaks_loop(root, port, 45, auth=True), root, port)


@case(
    "u133_swaks_error_reports_clean",
    "swaks (aiosmtpd server)",
    clean=True,
    group=GROUP,
    decisive=["<-  250 2.0.0 Ok: queued as DESK00060", "<-  221 Bye"],
)
def _swaks_clean(root: Path) -> bytes:
    _desk(root, 60)
    with _serving(root) as port:
        return _settle(_swaks_loop(root, port, 60, auth=False), root, port)


# ---------------------------------------------------------------- msmtp


@case(
    "u133_msmtp_tls_handshake",
    "msmtp (aiosmtpd server)",
    clean=False,
    group=GROUP,
    decisive=[
        "msmtp: TLS handshake failed",
        "msmtp batch: 239 sent, 1 failed (account settlements-bank)",
        "[exit status 1]",
    ],
)
def _msmtp_tls(root: Path) -> bytes:
    _desk(root, 240)
    with _serving(root) as port:
        accounts = ["defaults", "auth off", "logfile -", f"host 127.0.0.1\nport {port}\ntls off", ""]
        for area in _AREAS:
            accounts.append(f"account {area}\nfrom {area.replace('_', '-')}-desk@{_DOMAIN}")
            accounts.append("")
        accounts.append(f"account settlements-bank\nfrom settlements-bank@{_DOMAIN}\ntls on\ntls_starttls off\n")
        write(root, {"msmtprc": "\n".join(accounts)})
        (root / "msmtprc").chmod(0o600)
        script = ["#!/bin/sh", "sent=0; failed=0; bad="]
        for k, (area, rcpt, subject) in enumerate(_notices(240), 1):
            account = "settlements-bank" if k == 130 else area
            script.append(
                f"{{ printf 'Subject: {subject}\\n\\n'; cat templates/{area}.txt; }} | "
                f"msmtp -C msmtprc -a {account} {rcpt} "
                f"&& {{ sent=$((sent+1)); echo '[{k}/240] {area}: {rcpt} sent'; }} "
                f"|| {{ failed=$((failed+1)); bad={account}; echo '[{k}/240] {area}: {rcpt} NOT sent'; }}"
            )
        script.append('echo "msmtp batch: $sent sent, $failed failed (account $bad)"; [ "$failed" -eq 0 ]')
        write(root, {"send.sh": "\n".join(script) + "\n"})
        return _settle(sh("sh send.sh", root), root, port)


# ---------------------------------------------------------------- exim

_EXIM = """\
keep_environment =
primary_hostname = mail.ledgerline.test
spool_directory = {root}/spool
log_file_path = {root}/spool/%slog
exim_user = Debian-exim
exim_group = Debian-exim
never_users =
domainlist local_domains = ledgerline.test
domainlist relay_domains = ops.ledgerline.test : partners.ledgerline.test : bank.ledgerline.test

begin routers

desk_relay:
  driver = manualroute
  domains = +relay_domains
  transport = to_desk
  route_list = * 127.0.0.1::{port} byname
  self = send

begin transports

to_desk:
  driver = smtp
  port = {port}
  hosts_avoid_tls = *

begin retry
* * F,1h,15m
"""


def _exim(root: Path, port: int) -> str:
    root.chmod(0o755)
    (root / "spool").mkdir()
    sh("chown Debian-exim:Debian-exim spool", root)
    write(root, {"exim.conf": _EXIM.format(root=root, port=port)})
    return f"exim -C {root / 'exim.conf'}"


@case(
    "u133_exim_odi_bounce",
    "exim -odi -v (aiosmtpd server)",
    clean=False,
    group=GROUP,
    decisive=[
        "** dunning-escalations@ops.ledgerline.test R=desk_relay T=to_desk H=127.0.0.1 [127.0.0.1]: "
        "SMTP error from remote mail server after RCPT TO:<dunning-escalations@ops.ledgerline.test>: 550 5.1.1",
    ],
)
def _exim_bounce(root: Path) -> bytes:
    _desk(root, 90, typo={41: "dunning-escalations@ops.ledgerline.test"})
    with _serving(root) as port:
        exim = _exim(root, port)
        lines = ["#!/bin/sh"]
        for k, rcpt in enumerate((root / "ops" / "recipients.txt").read_text().split(), 1):
            area = _AREAS[(k - 1) % len(_AREAS)]
            lines.append(
                f"{{ printf 'Subject: [{area}] notice {k:03d}: failed items and error codes\\n\\n'; "
                f"cat templates/{area}.txt; }} | {exim} -odi -v -f desk@{_DOMAIN} {rcpt}"
            )
        write(root, {"send.sh": "\n".join(lines) + "\n"})
        return _settle(sh("sh send.sh", root), root, port)


def _addresses(extra: dict[int, str]) -> str:
    out = []
    for k in range(1, 301):
        area = _AREAS[(k - 1) % len(_AREAS)].replace("_", "-")
        domain = ["ops", "partners", "bank"][(k - 1) % 3]
        out.append(extra.get(k, f"{area}-{k:03d}@{domain}.{_DOMAIN}"))
    return " ".join(out)


@case(
    "u133_exim_bt_unrouteable",
    "exim -bt",
    clean=False,
    group=GROUP,
    decisive=["refunds-ledger-212@bank.ledgerline.tset is undeliverable: Unrouteable address", "[exit status 2]"],
)
def _exim_bt_fail(root: Path) -> bytes:
    exim = _exim(root, 8025)
    return _settle(sh(f"{exim} -bt {_addresses({212: 'refunds-ledger-212@bank.ledgerline.tset'})}", root), root, 8025)


@case(
    "u133_exim_bt_clean",
    "exim -bt",
    clean=True,
    group=GROUP,
    decisive=["alerts-300@bank.ledgerline.test", "router = desk_relay, transport = to_desk"],
)
def _exim_bt_clean(root: Path) -> bytes:
    exim = _exim(root, 8025)
    return _settle(sh(f"{exim} -bt {_addresses({})}", root), root, 8025)
