"""Held-out outputs (group ``unseen-13``): a thirteenth batch, operations and config tooling.

Service config checkers (``sshd -ddd -t`` over include files with a misspelt option in a Match
block, ``haproxy -vv && haproxy -c`` over 60 service files with one unknown keyword,
``named-checkconf -z`` over 120 zones with one bad address, ``squid -k parse`` over 60 include files
with an http_access naming an ACL that does not exist, ``logrotate -d`` over 40 configs with one
duplicate log entry, ``visudo -c -f`` looped over 60 sudoers drop-ins with one syntax error,
``varnishd -C`` of a VCL whose typo leaves a backend unused), a 1.3 MB combined access+error log of a
real ``apache2`` serving 9,000 requests with one CGI traceback and its 500, the AWS CLI against a local
``moto`` server (a 2 MB ``aws s3 sync --debug`` download where one object cannot be written, a loop
of ``aws dynamodb batch-write-item`` with one ValidationException), and pip linters (``ansible-lint``
over 20 roles with one risky shell pipe, ``yamale`` over 120 service files with one bad number).
Clean runs whose text talks about errors: ``named-checkconf -z`` over zones such as
``errors0.ops.example`` and ``fatal-alerts0.ops.example``, ``squid -k parse`` of ACLs named
``invalid_ports`` and ``error_reporters`` with ``deny_info ERR_ACCESS_DENIED``, ``logrotate -d`` of
``error.log`` and ``failed-jobs.log``, an ``aws s3 sync`` of ``errors/500.html`` pages. Labels were
written with each scenario, before the engine saw the output. Needs ``openssh-server``, ``haproxy``,
``apache2``, ``bind9``/``bind9-utils``, ``squid``, ``varnish``, ``logrotate`` and ``sudo`` (Debian
packages); awscli, moto, ansible-lint and yamale are installed from PyPI into each case's directory.
"""

from __future__ import annotations

import socket
import subprocess
import time
from pathlib import Path

from _harness import PY, case, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-13"

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "ledger", "shipping", "catalog", "search", "pricing",
    "coupons", "webhooks", "audit", "export", "invoice", "auth", "session", "inventory", "reports", "media",
]  # fmt: skip


# ---------------------------------------------------------------- service config checkers


@case(
    "sshd_t_bad_option_in_include",
    "sshd -ddd -t -f",
    clean=False,
    group=GROUP,
    decisive=[
        "sshd_config.d/47-inventory.conf: line 7: Bad configuration option: PermitTunel",
        "Directive 'PermitTunel' is not allowed within a Match block",
    ],
)
def _sshd(root: Path) -> bytes:
    sh("ssh-keygen -q -t ed25519 -N '' -f host_ed25519 && mkdir -p /run/sshd", root)
    for k, area in enumerate(_AREAS):
        body = f"Match Group {area}-deploy\n    AllowTcpForwarding no\n    X11Forwarding no\n"
        body += f"    PermitTTY no\n    ForceCommand /usr/local/bin/{area}-deploy-shell\n"
        body += f"    ChrootDirectory /srv/{area}\n"
        body += "    PermitTunel no\n" if area == "inventory" else "    PermitTunnel no\n"
        body += f"    MaxSessions {k % 5 + 2}\n    AuthorizedKeysFile /etc/ssh/keys/{area}/%u\n"
        body += f"    Banner /etc/ssh/banner-{area}.txt\n    AllowStreamLocalForwarding no\n"
        write(root, {f"sshd_config.d/{k + 30}-{area}.conf": body})
    write(
        root,
        {
            "sshd_config.d/10-base.conf": """
            ClientAliveInterval 300
            ClientAliveCountMax 2
            MaxAuthTries 3
            MaxStartups 10:30:60
            LoginGraceTime 30
            LogLevel VERBOSE
            """,
            "sshd_config.d/20-crypto.conf": """
            KexAlgorithms curve25519-sha256,curve25519-sha256@libssh.org
            Ciphers chacha20-poly1305@openssh.com,aes256-gcm@openssh.com
            MACs hmac-sha2-256-etm@openssh.com,hmac-sha2-512-etm@openssh.com
            """,
            "sshd_config.d/90-hardening.conf": """
            PasswordAuthentication no
            PermitRootLogin no
            KbdInteractiveAuthentication no
            AllowAgentForwarding no
            PermitUserEnvironment no
            """,
        },
    )
    # Match blocks must come last: the per-group files (30-49) are included after the global ones
    (root / "sshd_config").write_text(
        f"HostKey {root}/host_ed25519\nPort 2222\nUsePAM no\nSubsystem sftp internal-sftp\n"
        f"Include {root}/sshd_config.d/1*.conf {root}/sshd_config.d/2*.conf {root}/sshd_config.d/9*.conf\n"
        f"Include {root}/sshd_config.d/[3-4]*.conf\n"
    )
    return sh("/usr/sbin/sshd -ddd -t -f sshd_config", root)


def _haproxy_conf(root: Path, typo_in: str) -> None:
    write(
        root,
        {
            "conf.d/00-global.cfg": """
            global
                log stdout format raw local0
                maxconn 4000
                stats timeout 30s

            defaults
                mode http
                log global
                option httplog
                option dontlognull
                timeout connect 5s
                timeout client 30s
                timeout server 30s
                errorfile 503 /etc/haproxy/errors/503.http
            """
        },
    )
    for k, area in enumerate(_AREAS * 3):
        name = f"{area}{k // 20 or ''}"
        balance = "balanse" if name == typo_in else "balance"
        body = f"frontend fe_{name}\n    bind 127.0.0.1:{9100 + k}\n    default_backend be_{name}\n\n"
        body += f"backend be_{name}\n    {balance} roundrobin\n    option httpchk GET /healthz\n"
        body += "".join(f"    server {name}{n} 127.0.0.1:{8100 + 3 * k + n} check inter 2s\n" for n in range(3))
        write(root, {f"conf.d/{k + 10:02d}-{name}.cfg": body})
    for k, area in enumerate(("redis", "postgres", "rabbitmq", "memcached")):
        # TCP services under the http defaults: HAProxy warns that httplog falls back to tcplog
        body = f"listen {area}\n    mode tcp\n    bind 127.0.0.1:{7000 + k}\n    server {area}1 127.0.0.1:{6000 + k}\n"
        write(root, {f"conf.d/{k + 80}-{area}.cfg": body})


@case(
    "haproxy_c_unknown_keyword",
    "haproxy -vv && haproxy -c -V -f conf.d",
    clean=False,
    group=GROUP,
    decisive=[
        "parsing [conf.d/55-ledger2.cfg:6] : unknown keyword 'balanse' in 'backend' section",
        "Fatal errors found in configuration.",
    ],
)
def _haproxy(root: Path) -> bytes:
    _haproxy_conf(root, "ledger2")
    return sh("haproxy -vv && haproxy -c -V -f conf.d", root)


def _zone(origin: str, serial: int, hosts: list[tuple[str, str, str]]) -> str:
    head = (
        f"$TTL 3600\n$ORIGIN {origin}.\n@ IN SOA ns1.{origin}. hostmaster.{origin}. ( {serial} 7200 900 1209600 300 )\n"
    )
    head += (
        f"@ IN NS ns1.{origin}.\n@ IN NS ns2.{origin}.\nns1 IN A 192.0.2.1\nns2 IN A 192.0.2.2\nmail IN A 192.0.2.25\n"
    )
    head += f'@ IN MX 10 mail.{origin}.\n@ IN TXT "v=spf1 mx -all"\n'
    return head + "".join(f"{name} IN {rtype} {value}\n" for name, rtype, value in hosts)


def _named_conf(root: Path, zones: dict[str, str]) -> None:
    conf = [f'options {{\n    directory "{root}";\n    recursion no;\n    dnssec-validation auto;\n}};\n']
    for origin, text in zones.items():
        write(root, {f"zones/db.{origin}": text})
        conf.append(f'zone "{origin}" {{\n    type primary;\n    file "zones/db.{origin}";\n}};\n')
    (root / "named.conf").write_text("".join(conf))


@case(
    "named_checkconf_z_bad_dotted_quad",
    "named-checkconf -z",
    clean=False,
    group=GROUP,
    decisive=[
        "zones/db.ledger3.shop.example:32: near '10.65.300.7': bad dotted quad",
        "zone ledger3.shop.example/IN: loading from master file zones/db.ledger3.shop.example failed: bad dotted quad",
    ],
)
def _named_fail(root: Path) -> bytes:
    zones = {}
    for k, area in enumerate(_AREAS * 6):
        origin = f"{area}{k // 20}.shop.example"
        hosts = [(f"app{n}", "A", f"10.{k}.0.{n + 10}") for n in range(20)]
        hosts += [("www", "CNAME", "app0"), ("api", "CNAME", "app1")]
        if origin == "ledger3.shop.example":
            hosts[21] = ("api", "A", "10.65.300.7")
        zones[origin] = _zone(origin, 2024061000 + k, hosts)
    _named_conf(root, zones)
    return sh("named-checkconf -z named.conf", root)


@case("named_checkconf_z_error_hosts_clean", "named-checkconf -z", clean=True, group=GROUP, decisive=[])
def _named_clean(root: Path) -> bytes:
    zones = {}
    names = ["errors", "error-pages", "failover", "fatal-alerts", "invalid-input", "panic-button", "exceptions"]
    special = ["errors", "failed-payments", "fatal-alerts", "invalid-input", "error-pages", "panic"]
    for k, area in enumerate(special + _AREAS * 3):
        origin = f"{area}{k // 20}.ops.example"
        hosts = [(f"{name}{n}", "A", f"10.{k}.{n}.{j + 10}") for n, name in enumerate(names) for j in range(3)]
        hosts += [("status", "TXT", '"errors=0 failed=0 invalid=0"'), ("sentry", "CNAME", "errors0")]
        hosts += [("_errors._tcp", "SRV", f"0 5 8443 errors0.{origin}.")]
        zones[origin] = _zone(origin, 2024070100 + k, hosts)
    _named_conf(root, zones)
    return sh("named-checkconf -z named.conf", root)


def _squid_conf(root: Path, broken: bool) -> None:
    main = [
        f"include {root}/conf.d/*.conf",
        "http_port 127.0.0.1:3128",
        "cache_mem 256 MB",
        "maximum_object_size 64 MB",
        f"cache_dir ufs {root}/cache 1000 16 256",
        f"access_log stdio:{root}/logs/access.log squid",
        f"cache_log {root}/logs/cache.log",
        "error_directory /usr/share/squid/errors/en",
        "refresh_pattern ^ftp: 1440 20% 10080",
        "refresh_pattern -i (/cgi-bin/|\\?) 0 0% 0",
        "refresh_pattern . 0 20% 4320",
        "http_access deny all",
    ]
    write(root, {"squid.conf": "\n".join(main) + "\n"})
    write(
        root,
        {
            "conf.d/00-acls.conf": """
            acl localnet src 10.0.0.0/8
            acl localnet src 172.16.0.0/12
            acl SSL_ports port 443
            acl Safe_ports port 80 443 8080 8443
            acl invalid_ports port 0 1-79
            acl CONNECT method CONNECT
            acl error_reporters dstdomain .errors.shop.example .sentry.shop.example
            acl blocked_domains dstdomain .ads.example .tracker.example
            http_access deny invalid_ports
            http_access deny !Safe_ports
            http_access deny CONNECT !SSL_ports
            deny_info ERR_ACCESS_DENIED invalid_ports
            """
        },
    )
    for k, area in enumerate(_AREAS * 3):
        name = f"{area}{k // 20}"
        body = f"acl {name}_api dstdomain .{name}.internal.example\n"
        body += f"acl {name}_hosts src 10.{k}.0.0/16\n"
        body += f"http_access allow {name}_hosts {name}_api\n"
        body += f"cache_peer {name}-cache.internal.example parent {3200 + k} 0 no-query originserver name={name}\n"
        body += f"cache_peer_access {name} allow {name}_api\n"
        body += f"refresh_pattern -i ^https?://{name}\\.internal\\.example/static/ 1440 50% 10080\n"
        write(root, {f"conf.d/{k + 10:02d}-{name}.conf": body})
    deny = "bloked_domains" if broken else "blocked_domains"
    write(root, {"conf.d/90-filtering.conf": f"http_access deny error_reporters CONNECT\nhttp_access deny {deny}\n"})
    write(root, {"conf.d/95-localnet.conf": "http_access allow localnet\n"})
    (root / "logs").mkdir()


@case(
    "squid_k_parse_acl_not_found",
    "squid -k parse -f",
    clean=False,
    group=GROUP,
    decisive=["ACL not found: bloked_domains", "conf.d/90-filtering.conf line 2: http_access deny bloked_domains"],
)
def _squid_fail(root: Path) -> bytes:
    _squid_conf(root, broken=True)
    return sh("squid -k parse -f squid.conf", root)


@case("squid_k_parse_error_acls_clean", "squid -k parse -f", clean=True, group=GROUP, decisive=[])
def _squid_clean(root: Path) -> bytes:
    _squid_conf(root, broken=False)
    return sh("squid -k parse -f squid.conf", root)


def _logrotate_conf(root: Path, duplicate: bool) -> None:
    logs = root / "logs"
    names = ["access", "error", "failed-jobs", "worker", "slow-queries"]
    for k, area in enumerate(_AREAS * 2):
        name = f"{area}{k // 20 or ''}"
        (logs / name).mkdir(parents=True)
        for log in names:
            (logs / name / f"{log}.log").write_text(f"{log} {name}\n")
        paths = " ".join(str(logs / name / f"{log}.log") for log in names[:3])
        body = f"{paths} {{\n    daily\n    rotate {7 + k % 7}\n    compress\n    delaycompress\n    missingok\n"
        body += "    notifempty\n    create 0640 root adm\n    sharedscripts\n    postrotate\n"
        body += f"        /bin/true reload {name}\n    endscript\n}}\n\n"
        body += f"{logs / name}/worker.log {logs / name}/slow-queries.log {{\n    weekly\n    rotate 4\n"
        body += "    size 50M\n    copytruncate\n    missingok\n}\n"
        write(root, {f"logrotate.d/{name}": body})
    extra = f"{logs}/orders/failed-jobs.log " if duplicate else ""
    write(
        root,
        {
            "logrotate.d/shop-reports": f"{extra}{logs}/reports/*.log.1 {{\n"
            "    monthly\n    rotate 12\n    missingok\n}\n"
        },
    )
    (root / "logrotate.conf").write_text(f"weekly\nrotate 4\ncreate\ninclude {root}/logrotate.d\n")


@case(
    "logrotate_d_duplicate_log_entry",
    "logrotate -d -s",
    clean=False,
    group=GROUP,
    decisive=["error: shop-reports:1 duplicate log entry for", "error: found error in file shop-reports, skipping"],
)
def _logrotate_fail(root: Path) -> bytes:
    _logrotate_conf(root, duplicate=True)
    return sh("logrotate -d -s state logrotate.conf", root)


@case("logrotate_d_error_logs_clean", "logrotate -d -s", clean=True, group=GROUP, decisive=[])
def _logrotate_clean(root: Path) -> bytes:
    _logrotate_conf(root, duplicate=False)
    return sh("logrotate -d -s state logrotate.conf", root)


@case(
    "visudo_c_loop_syntax_error",
    "visudo -c -f (loop over sudoers.d)",
    clean=False,
    group=GROUP,
    decisive=["sudoers.d/55-ledger-ops:3:84: syntax error", "visudo: sudoers.d/55-ledger-ops failed"],
)
def _visudo(root: Path) -> bytes:
    for k, area in enumerate(_AREAS * 3):
        name = f"{k + 10:02d}-{area}-ops"
        cmds = ", ".join(f"/usr/bin/systemctl {verb} {area}-api" for verb in ("restart", "reload", "status"))
        body = f"Cmnd_Alias {area.upper()}_{k}_CMDS = {cmds}\n"
        body += f"Defaults:%{area}-ops !requiretty, log_output\n"
        tail = "," if name == "55-ledger-ops" else ""
        body += f"%{area}-ops ALL=(root) NOPASSWD: {area.upper()}_{k}_CMDS, /usr/bin/journalctl -u {area}-api{tail}\n"
        write(root, {f"sudoers.d/{name}": body})
    return sh(
        'rc=0; for f in sudoers.d/*; do visudo -c -f "$f" || { echo "visudo: $f failed"; rc=1; }; done; exit $rc', root
    )


@case(
    "varnishd_c_unused_backend",
    "varnishd -C -f",
    clean=False,
    group=GROUP,
    decisive=["Unused backend ledger, defined:", "default.vcl' Line 77 Pos 9", "VCL compilation failed"],
    note="the typo'd backend_hint (ledger_api) leaves backend ledger unused, which is what VCC reports",
)
def _varnish(root: Path) -> bytes:
    vcl = ["vcl 4.1;", "", "import std;", ""]
    for k, area in enumerate(_AREAS):
        vcl += [
            f"probe {area}_health {{",
            '    .url = "/healthz";',
            "    .interval = 5s;",
            "    .timeout = 1s;",
            "    .window = 5;",
            "    .threshold = 3;",
            "}",
            f"backend {area} {{",
            '    .host = "127.0.0.1";',
            f'    .port = "{8100 + k}";',
            f"    .probe = {area}_health;",
            "}",
            "",
        ]
    vcl += ["sub vcl_recv {"]
    for area in _AREAS:
        target = "ledger_api" if area == "ledger" else area
        vcl += [f'    if (req.url ~ "^/{area}/") {{', f"        set req.backend_hint = {target};", "    }"]
    vcl += [
        '    if (req.url ~ "^/errors/") {',
        '        return (synth(404, "error pages are served by the CDN"));',
        "    }",
        "}",
        "",
        "sub vcl_backend_response {",
        "    if (beresp.status >= 500) {",
        "        set beresp.ttl = 0s;",
        "        set beresp.uncacheable = true;",
        "    }",
        "}",
    ]
    write(root, {"default.vcl": "\n".join(vcl) + "\n"})
    root.chmod(0o755)  # varnishd reads the VCL as its own unprivileged user
    return sh(f"varnishd -C -f {root}/default.vcl -n {root}/varnish", root)


# ---------------------------------------------------------------- a real server's log


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_port(port: int, seconds: float = 20.0) -> None:
    end = time.time() + seconds
    while time.time() < end:
        with socket.socket() as s:
            if s.connect_ex(("127.0.0.1", port)) == 0:
                return
        time.sleep(0.2)
    raise RuntimeError(f"nothing listens on {port}")


_REPORT_CGI = """#!/usr/bin/python3
import datetime
import os
import sys

query = dict(p.split("=", 1) for p in os.environ.get("QUERY_STRING", "").split("&") if "=" in p)
year, month = (int(x) for x in query.get("month", "2024-01").split("-"))
first = datetime.date(year, month, 1)
sys.stdout.write("Content-Type: text/csv\\r\\n\\r\\n")
sys.stdout.write(f"month,first_day,orders\\n{year}-{month:02d},{first.isoformat()},{(year * month) % 977}\\n")
"""


@case(
    "apache2_access_error_log_cgi_traceback_big",
    "apache2 (access and error log in one file)",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: month must be in 1..12",
        "End of script output before headers: report.cgi",
        '"GET /cgi-bin/report.cgi?month=2024-13 HTTP/1.1" 500',
    ],
    note="about 9,000 requests (pages, assets, CGI reports, ordinary 404s) in one combined access+error log",
)
def _apache_log(root: Path) -> bytes:
    import http.client

    root.chmod(0o755)
    port = _free_port()
    mods = "/usr/lib/apache2/modules"
    modules = ["mpm_event", "authz_core", "mime", "dir", "alias", "cgid", "status"]
    conf = [f"LoadModule {m}_module {mods}/mod_{m}.so" for m in modules]
    conf += [
        f"ServerRoot {root}",
        f"Listen 127.0.0.1:{port}",
        "ServerName shop.local",
        "User www-data",
        "Group www-data",
        f"PidFile {root}/run/apache2.pid",
        f"ScriptSock {root}/run/cgisock",
        f"DocumentRoot {root}/htdocs",
        f'ScriptAlias /cgi-bin/ "{root}/cgi-bin/"',
        "TypesConfig /etc/mime.types",
        "DirectoryIndex index.html",
        "LogLevel info",
        f"ErrorLog {root}/logs/server.log",
        'LogFormat "%h %l %u %t \\"%r\\" %>s %b \\"%{Referer}i\\" \\"%{User-agent}i\\" %D" timed',
        f"CustomLog {root}/logs/server.log timed",
        f'<Directory "{root}/htdocs">\n    Require all granted\n</Directory>',
        f'<Directory "{root}/cgi-bin">\n    Require all granted\n</Directory>',
    ]
    write(root, {"apache2.conf": "\n".join(conf) + "\n", "cgi-bin/report.cgi": _REPORT_CGI, "run/.keep": ""})
    (root / "cgi-bin" / "report.cgi").chmod(0o755)
    (root / "logs").mkdir()
    pages = ["index.html"] + [f"{area}/index.html" for area in _AREAS]
    assets = [f"static/{area}.{ext}" for area in _AREAS for ext in ("css", "js", "png")]
    for rel in pages + assets:
        write(root, {f"htdocs/{rel}": f"<!-- {rel} -->\n" + "x" * (200 + len(rel) * 40) + "\n"})
    sh(f"apache2 -f {root}/apache2.conf -k start", root)
    try:
        _wait_port(port)
        conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        for n in range(9000):
            if n == 4517:
                path = "/cgi-bin/report.cgi?month=2024-13"
            elif n % 97 == 0:
                path = f"/cgi-bin/report.cgi?month={2020 + n % 5}-{n % 12 + 1:02d}"
            elif n % 61 == 0:
                path = f"/{_AREAS[n % 20]}/old-page-{n}.html"
            elif n % 3 == 0:
                path = "/" + pages[n % len(pages)]
            else:
                path = "/" + assets[n % len(assets)]
            ua = ["Mozilla/5.0 (X11; Linux x86_64) Firefox/128.0", "curl/7.88.1", "kube-probe/1.29"][n % 3]
            conn.request("GET", path, headers={"User-Agent": ua, "Referer": f"http://shop.local/{_AREAS[n % 20]}/"})
            conn.getresponse().read()
        conn.close()
    finally:
        sh(f"apache2 -f {root}/apache2.conf -k graceful-stop", root)
        time.sleep(2)
    return sh("cat logs/server.log", root)


# ---------------------------------------------------------------- cloud CLIs against a local moto server

_AWS_PINS = ("awscli==1.46.3", "moto[server]==5.2.5")


class _Moto:
    """A ``moto_server`` on a free localhost port, with the environment that points ``aws`` at it."""

    def __init__(self, root: Path) -> None:
        self.env = _pip_tool(root, *_AWS_PINS)
        self.port = _free_port()
        self.root = root
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> str:
        tools = self.root / "tools"
        self.proc = subprocess.Popen(
            [PY, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(self.port)],
            env={"PYTHONPATH": str(tools), "PATH": "/usr/bin:/bin"},
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        _wait_port(self.port)
        creds = "AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=eu-west-1"
        files = f"AWS_CONFIG_FILE={self.root}/aws-config AWS_SHARED_CREDENTIALS_FILE={self.root}/aws-creds"
        aws = f"aws --endpoint-url http://127.0.0.1:{self.port}"
        return f"{self.env} {creds} {files} AWS_EC2_METADATA_DISABLED=true {aws}"

    def __exit__(self, *exc: object) -> None:
        assert self.proc is not None
        self.proc.terminate()
        self.proc.wait(timeout=30)


def _site(root: Path, n: int) -> None:
    for k in range(n):
        area = _AREAS[k % 20]
        write(root, {f"site/{area}/page-{k:03d}.html": f"<h1>{area} {k}</h1>\n" + "<p>lorem</p>\n" * (k % 9 + 1)})
    for code in (400, 403, 404, 500, 502, 503):
        write(root, {f"site/errors/{code}.html": f"<h1>Error {code}</h1>\n<p>Something failed.</p>\n"})
    write(root, {"site/error.html": "<h1>Error</h1>\n", "site/index.html": "<h1>shop</h1>\n"})


@case(
    "aws_s3_sync_debug_download_failed_big",
    "aws s3 sync --debug (local moto server)",
    clean=False,
    group=GROUP,
    decisive=["download failed: s3://shop-exports/monthly/2024-06.csv to restore/monthly/2024-06.csv"],
    note="about 110 objects downloaded with --debug (every request and response logged); one cannot be written",
)
def _aws_s3_debug(root: Path) -> bytes:
    with _Moto(root) as aws:
        sh(f"{aws} s3 mb s3://shop-exports", root)
        for k in range(110):
            write(root, {f"exports/{_AREAS[k % 20]}/batch-{k:03d}.json": f'{{"batch": {k}, "rows": {k * 7 % 113}}}\n'})
        write(root, {"exports/monthly/2024-06.csv": "month,orders\n2024-06,246\n"})
        sh(f"{aws} s3 sync exports s3://shop-exports", root)
        # a file where the directory of the monthly report objects should go
        write(root, {"restore/monthly": "reports are kept in the warehouse now\n"})
        return sh(f"{aws} s3 sync s3://shop-exports restore --debug", root)


@case("aws_s3_sync_error_pages_clean", "aws s3 sync (local moto server)", clean=True, group=GROUP, decisive=[])
def _aws_s3_clean(root: Path) -> bytes:
    _site(root, 160)
    with _Moto(root) as aws:
        sh(f"{aws} s3 mb s3://shop-static", root)
        out = sh(f"{aws} s3 sync site s3://shop-static --no-progress", root)
        out += sh(f"{aws} s3 ls s3://shop-static/errors/", root)
        return out + sh(f"{aws} s3 ls s3://shop-static --recursive --summarize | tail -n 3", root)


def _batch(table: str, items: list[dict[str, object]]) -> str:
    import json

    def attr(v: object) -> dict[str, str]:
        return {"N": str(v)} if isinstance(v, int) else {"S": str(v)}

    reqs = [{"PutRequest": {"Item": {k: attr(v) for k, v in item.items()}}} for item in items]
    return json.dumps({table: reqs}, indent=2)


@case(
    "aws_dynamodb_batch_write_validation_exception",
    "aws dynamodb batch-write-item (loop, local moto server)",
    clean=False,
    group=GROUP,
    decisive=[
        "batches/batch-037.json",
        "An error occurred (ValidationException) when calling the BatchWriteItem operation",
    ],
)
def _aws_dynamodb(root: Path) -> bytes:
    for b in range(60):
        items = [
            {"sku": f"SKU-{b:02d}{n:02d}", "area": _AREAS[(b + n) % 20], "stock": (b * n) % 50, "errors": 0}
            for n in range(25)
        ]
        if b == 37:
            del items[12]["sku"]
        write(root, {f"batches/batch-{b:03d}.json": _batch("inventory", items)})
    with _Moto(root) as aws:
        sh(
            f"{aws} dynamodb create-table --table-name inventory"
            " --attribute-definitions AttributeName=sku,AttributeType=S"
            " --key-schema AttributeName=sku,KeyType=HASH --billing-mode PAY_PER_REQUEST",
            root,
        )
        return sh(
            f'rc=0; for f in batches/*.json; do echo "== $f"; {aws} dynamodb batch-write-item --request-items file://$f'
            " --return-consumed-capacity TOTAL || rc=$?; done; exit $rc",
            root,
        )


# ---------------------------------------------------------------- infra linters from pip


@case(
    "ansible_lint_risky_shell_pipe",
    "ansible-lint -v --offline",
    clean=False,
    group=GROUP,
    decisive=[
        "risky-shell-pipe: Shells that use pipes should set the pipefail option.",
        "roles/ledger/tasks/main.yml:24",
    ],
)
def _ansible_lint(root: Path) -> bytes:
    env = _pip_tool(root, "ansible-lint==26.10.1", "ansible-core==2.19.14")
    for area in _AREAS:
        tasks = f"""
        ---
        - name: Install {area} packages
          ansible.builtin.apt:
            name:
              - {area}-api
              - {area}-worker
            state: present

        - name: Write {area} config
          ansible.builtin.template:
            src: {area}.conf.j2
            dest: /etc/shop/{area}.conf
            owner: root
            group: root
            mode: "0640"
          notify: Restart {area}

        - name: Enable {area} service
          ansible.builtin.systemd:
            name: {area}-api
            enabled: true
            state: started
        """
        if area == "ledger":
            tasks += """
        - name: Count ledger DSN entries
          ansible.builtin.shell: cat /etc/shop/ledger.conf | grep -c dsn
          register: ledger_dsn_count
          changed_when: false
        """
        handlers = f"""
        ---
        - name: Restart {area}
          ansible.builtin.systemd:
            name: {area}-api
            state: restarted
        """
        write(
            root,
            {
                f"roles/{area}/tasks/main.yml": tasks,
                f"roles/{area}/handlers/main.yml": handlers,
                f"roles/{area}/templates/{area}.conf.j2": f"[{area}]\nlisten = {{{{ {area}_port }}}}\n",
                f"roles/{area}/defaults/main.yml": f"---\n{area}_port: {8000 + len(area)}\n{area}_max_errors: 0\n",
            },
        )
    roles = "".join(f"    - {area}\n" for area in _AREAS)
    write(root, {"site.yml": f"---\n- name: Shop servers\n  hosts: all\n  become: true\n  roles:\n{roles}"})
    write(root, {".gitignore": "tools/\n.ansible/\n", ".ansible-lint": "exclude_paths:\n  - tools/\n  - .ansible/\n"})
    sh("git init -q . && git add -A", root)
    return sh(f"{env} ANSIBLE_HOME={root}/.ansible ansible-lint -v --offline", root)


_SCHEMA = """
service: str()
owner: str()
port: int(min=1, max=65535)
replicas: int(min=1)
error_budget: num(min=0, max=1)
alerts: list(include('alert'))
---
alert:
  name: str()
  severity: enum('info', 'warning', 'critical')
  threshold: num()
"""


def _yamale_files(root: Path, broken: bool) -> None:
    write(root, {"schema.yaml": _SCHEMA})
    for k, area in enumerate(_AREAS * 6):
        name = f"{area}{k // 20}"
        alerts = [("errors_total", "critical", 0), ("failed_jobs", "warning", 5), ("invalid_requests", "info", 50)]
        body = f"service: {name}\nowner: team-{area}\nport: {8000 + k}\nreplicas: {k % 4 + 1}\n"
        budget = "'0,5'" if broken and name == "ledger4" else f"0.00{k % 9 + 1}"
        body += f"error_budget: {budget}\nalerts:\n"
        body += "".join(f"  - name: {a}\n    severity: {s}\n    threshold: {t}\n" for a, s, t in alerts)
        write(root, {f"services/{name}.yaml": body})


@case(
    "yamale_many_files_not_a_num",
    "yamale -s schema.yaml",
    clean=False,
    group=GROUP,
    decisive=["services/ledger4.yaml", "error_budget: '0,5' is not a num."],
)
def _yamale_fail(root: Path) -> bytes:
    env = _pip_tool(root, "yamale==6.1.0")
    _yamale_files(root, broken=True)
    return sh(f"{env} yamale -s schema.yaml services", root)
