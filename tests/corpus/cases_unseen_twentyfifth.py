"""Held-out outputs (group ``unseen-25``): a twenty-fifth batch, HTTP and network clients, load generators and
proxies run against servers started inside the scenario on 127.0.0.1.

Every server is started by the case on a fixed loopback port and stopped when it ends: a small Python
``http.server`` with scripted routes (fixed ``Date`` and ``Server`` headers), ``pyftpdlib`` and ``dnsmasq``.
Failing runs: ``wget -r -l inf`` of a 221-page documentation site where one runbook links a page nobody wrote,
``ab -v 2 -n 600 -c 1`` against a checkout endpoint that answers every fiftieth request with a 503,
``http --check-status -v`` (HTTPie) importing 40 orders where the 27th is refused with a 422,
``aria2c -i`` over a list of 60 nightly exports where one file was never written, ``lftp`` mirroring 60 export
files over FTP and then fetching a monthly summary that is missing, ``nslookup`` over 40 service names where one
has no record, ``linkchecker --verbose`` over a 150-page site with one dead link and ``nc -zv`` over the ports of
20 local services where one is not listening. Clean runs whose text talks about errors: ``wget --spider -r``
over pages named ``errors.html`` and ``failed-jobs.html``, ``siege`` over ``/api/errors`` and
``/api/failed-jobs`` endpoints that send an ``X-Error-Budget`` header, ``http -v`` (HTTPie) reading
``{"errors": []}`` bodies and ``dig`` of ``errors`` and ``failed-jobs`` TXT records. Labels were written with
each scenario, before the engine saw the output. Needs Debian ``wget``, ``apache2-utils``, ``siege``, ``aria2``,
``lftp``, ``bind9-dnsutils``, ``dnsmasq-base`` and ``netcat-openbsd``, with ``httpie``, ``linkchecker`` and
``pyftpdlib`` from PyPI.
"""

from __future__ import annotations

import json
import socket
import subprocess
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _harness import PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-25"


_HTTPIE = (
    "httpie==3.2.4 requests==2.34.2 requests-toolbelt==1.0.0 urllib3==2.8.0 idna==3.20 certifi==2026.10.19.post1 "
    "charset-normalizer==3.5.3 defusedxml==0.7.1 multidict==7.2.1 rich==15.0.0 pygments==2.21.0 "
    "markdown-it-py==4.3.0 mdurl==0.1.2 pysocks==1.7.1 pip==26.3 setuptools==84.2.1"
)
_LINKCHECKER = (
    "linkchecker==10.6.0 requests==2.34.2 urllib3==2.8.0 idna==3.20 certifi==2026.10.19.post1 "
    "charset-normalizer==3.5.3 dnspython==2.9.2 beautifulsoup4==4.15.0 soupsieve==4.1.4 typing-extensions==4.16.0"
)
_PYFTPDLIB = "pyftpdlib==2.2.0"

#: The scripted HTTP server: static files from a folder, and routes (status, headers, body; every Nth request
#: answered with another status; the headers of route ``*`` sent with every answer) from a JSON file; fixed
#: ``Date``, ``Last-Modified`` and ``Server`` headers.
_SERVER = r"""
import json, sys, threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer

port, site, routes_file = int(sys.argv[1]), sys.argv[2], sys.argv[3]
ROUTES = json.load(open(routes_file))
LOCK = threading.Lock()
COUNT = {}


class Handler(SimpleHTTPRequestHandler):
    protocol_version = "HTTP/1.0"
    wbufsize = 1 << 16  # the whole answer written at once, so a client reads headers and body together
    server_version = "shop-api/1.4"
    sys_version = ""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory=site, **kwargs)

    def log_message(self, *args):
        pass

    def end_headers(self):
        for key, value in ROUTES.get("*", {}).get("headers", {}).items():
            self.send_header(key, value)
        super().end_headers()

    def date_time_string(self, timestamp=None):
        return "Mon, 02 Mar 2026 09:00:00 GMT"

    def route(self):
        path = self.path.split("?")[0]
        r = ROUTES.get(path)
        if r is None:
            return False
        with LOCK:
            n = COUNT[path] = COUNT.get(path, 0) + 1
        every = r.get("fail_every")
        if every and n % every == 0:
            status, body = r["fail_status"], r["fail_body"]
        else:
            status, body = r.get("status", 200), r.get("body", "")
        data = body.encode()
        self.send_response(status)
        for key, value in r.get("headers", {}).items():
            self.send_header(key, value)
        self.send_header("Content-Type", r.get("type", "application/json"))
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(data)
        return True

    def do_GET(self):
        if not self.route():
            super().do_GET()

    def do_HEAD(self):
        if not self.route():
            super().do_HEAD()

    def do_POST(self):
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if not self.route():
            self.send_error(405)


ThreadingHTTPServer.allow_reuse_address = True
ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
"""


def _py_tools(root: Path, reqs: str) -> str:
    """``reqs`` at fixed versions in ``root/tools``; the environment prefix that runs them, unbuffered and with
    the scenario's own home."""
    return (
        py_tools(root, reqs, deps=False) + " PYTHONUNBUFFERED=1 "
        f"HOME={root / 'home'} XDG_CACHE_HOME={root / 'home' / '.cache'} XDG_CONFIG_HOME={root / 'home' / '.config'}"
    )


def _wait_port(port: int, proc: subprocess.Popen[bytes], udp: bool = False) -> None:
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"server on {port} exited with {proc.returncode}")
        if udp:
            time.sleep(0.5)
            return
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.5):
                return
        except OSError:
            time.sleep(0.05)
    raise RuntimeError(f"nothing listens on {port}")


@contextmanager
def _running(cmd: list[str], port: int, cwd: Path, *, udp: bool = False) -> Iterator[None]:
    """``cmd`` running (a server on 127.0.0.1:``port``) while the block runs; stopped after it."""
    proc = subprocess.Popen(cmd, cwd=cwd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_port(port, proc, udp)
        yield
    finally:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


@contextmanager
def _http(root: Path, port: int, routes: dict[str, dict[str, object]] | None = None) -> Iterator[None]:
    """The scripted HTTP server on ``port``, serving ``root/site`` and ``routes``."""
    (root / "site").mkdir(exist_ok=True)
    (root / "server.py").write_text(_SERVER)
    (root / "routes.json").write_text(json.dumps(routes or {}))
    with _running([PY, str(root / "server.py"), str(port), str(root / "site"), str(root / "routes.json")], port, root):
        yield


def _page(title: str, body: str, links: list[str]) -> str:
    items = "\n".join(f'    <li><a href="{href}">{href}</a></li>' for href in links)
    return (
        f"<!DOCTYPE html>\n<html>\n<head>\n  <title>{title}</title>\n"
        '  <link rel="stylesheet" href="/static/site.css">\n</head>\n<body>\n'
        f"  <h1>{title}</h1>\n  <p>{body}</p>\n  <ul>\n{items}\n  </ul>\n</body>\n</html>\n"
    )


# ---------------------------------------------------------------- wget


_WGET_SCRUB = (
    (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "2026-03-02 09:00:00"),
    (r"\(\d[\d.]* [KMG]?B/s\)", "(RATE)"),
    (r"(100%)\s+\S+=\S+$", r"\1 RATE=TIME"),
    (r"^Total wall clock time: .*$", "Total wall clock time: TIME"),
    (r"^(Downloaded: \d+ files, \S+) in \S+", r"\1 in TIME"),
)


def _docs_site(root: Path, dead: str | None) -> None:
    """A documentation site: an index, 20 area indexes and 10 pages per area, a stylesheet and robots.txt."""
    site = root / "site"
    write(site, {"robots.txt": "User-agent: *\nAllow: /\n", "static/site.css": "body { font-family: sans-serif; }\n"})
    write(site, {"index.html": _page("Shop handbook", "Start here.", [f"/docs/{a}/index.html" for a in WORDS])})
    for area in WORDS:
        pages = [f"page-{k:02d}.html" for k in range(10)]
        write(site, {f"docs/{area}/index.html": _page(f"{area} handbook", f"The {area} service.", pages)})
        for k, page in enumerate(pages):
            links = ["index.html", pages[(k + 1) % 10], "/index.html"]
            if dead and f"docs/{area}/{page}" == dead:
                links.append("retry-policy.html")
            body = f"Step {k} of operating the {area} service: check the dashboard, then the queue depth."
            write(site, {f"docs/{area}/{page}": _page(f"{area} {k}", body, links)})


@case(
    "wget_recursive_docs_site_one_dead_link",
    "wget -r -l inf (local http.server, 221 pages)",
    clean=False,
    group=GROUP,
    decisive=[
        "--  http://127.0.0.1:18081/docs/refunds/retry-policy.html",
        "ERROR 404: File not found.",
        "[exit status 8]",
    ],
)
def _wget_recursive(root: Path) -> bytes:
    _docs_site(root, "docs/refunds/page-07.html")
    with _http(root, 18081):
        out = sh(
            "wget -r -l inf --no-parent --no-http-keep-alive -P mirror -e robots=on --timeout=5 --tries=1 "
            "http://127.0.0.1:18081/",
            root,
        )
    return substitute(scrub(out, root), *_WGET_SCRUB)


@case(
    "wget_spider_error_pages_clean",
    "wget --spider -r -nv (local http.server)",
    clean=True,
    group=GROUP,
    decisive=["Found no broken links."],
)
def _wget_spider(root: Path) -> bytes:
    site = root / "site"
    write(site, {"robots.txt": "User-agent: *\nAllow: /\n", "static/site.css": "body { margin: 0; }\n"})
    links = []
    for area in WORDS:
        names = ["errors.html", "failed-jobs.html", "error-budget.html", "retry-errors.html"]
        links.append(f"/{area}/errors.html")
        for i, name in enumerate(names):
            nxt = names[(i + 1) % len(names)]
            body = f"What the {area} service does when a job fails: the error is logged and the job is retried."
            write(site, {f"{area}/{name}": _page(f"{area} {name[:-5]}", body, [nxt, "/index.html"])})
    write(site, {"index.html": _page("Error handbook", "Every error page of the shop.", links)})
    with _http(root, 18082):
        out = sh("wget --spider -r -l inf -nv --no-http-keep-alive --timeout=5 --tries=1 http://127.0.0.1:18082/", root)
    return substitute(scrub(out, root), *_WGET_SCRUB)


# ---------------------------------------------------------------- ab


@case(
    "ab_verbose_checkout_every_fiftieth_503",
    "ab -v 2 -n 600 -c 1 (local http.server)",
    clean=False,
    group=GROUP,
    decisive=["Failed requests:        12", "Non-2xx responses:      12"],
)
def _ab(root: Path) -> bytes:
    ok = json.dumps({"order": "accepted", "errors": [], "cart": {"items": 3, "total": "59.70"}})
    routes = {
        "/api/cart/checkout": {
            "body": ok,
            "headers": {"X-Error-Budget": "0.5%", "Cache-Control": "no-store"},
            "fail_every": 50,
            "fail_status": 503,
            "fail_body": json.dumps({"error": "payment gateway pool exhausted", "retry_after": 2}),
        }
    }
    with _http(root, 18083, routes):
        out = sh("ab -v 2 -n 600 -c 1 -s 5 http://127.0.0.1:18083/api/cart/checkout", root)
    return substitute(
        out,
        (r"^(Time taken for tests:\s+)\S+", r"\1TIME"),
        (r"^(Requests per second:\s+)\S+", r"\1RATE"),
        (r"^(Time per request:\s+)\S+", r"\1TIME"),
        (r"^(Transfer rate:\s+)\S+", r"\1RATE"),
        (r"^(Connect|Processing|Waiting|Total):(\s+\d+){2}\s+[\d.]+(\s+\d+){2}$", r"\1:  TIMES"),
        (r"^(\s+\d+%)\s+\d+", r"\1  TIME"),
        # ab warns that "the median and mean ... are more than twice the standard deviation apart" on some runs
        # and not on others: a remark about the timings, dropped with them.
        (
            r"^ERROR: The median and mean for the \w+ time are more than twice the standard\n\s+deviation apart\. "
            r"These results are NOT reliable\.\n",
            "",
        ),
    )


# ---------------------------------------------------------------- siege


@case(
    "siege_error_endpoints_clean",
    "siege -c 1 -r 300 -f urls.txt (local http.server)",
    clean=True,
    group=GROUP,
    decisive=["Failed transactions:\t           0"],
)
def _siege(root: Path) -> bytes:
    routes: dict[str, dict[str, object]] = {}
    urls = []
    for area in WORDS:
        for path, body in (
            (f"/api/{area}/errors", {"errors": [], "count": 0}),
            (f"/api/{area}/failed-jobs", {"failed_jobs": [], "retrying": 0}),
            (f"/api/{area}/error-budget", {"budget": "0.1%", "spent": "0.0%"}),
        ):
            routes[path] = {"body": json.dumps(body), "headers": {"X-Error-Budget": "0.1%"}}
            urls.append(f"http://127.0.0.1:18084{path}")
    write(root, {"urls.txt": "\n".join(urls) + "\n"})
    write(
        root,
        {
            "siegerc": "verbose = true\ncolor = off\nquiet = false\njson_output = false\nshow-logfile = false\n"
            "logging = false\nprotocol = HTTP/1.1\nconnection = close\ndelay = 0\nbenchmark = true\ntimeout = 5\n"
        },
    )
    (root / "home" / ".siege").mkdir(parents=True)
    with _http(root, 18084, routes):
        out = sh(f"HOME={root / 'home'} stdbuf -oL siege -R siegerc -c 1 -r 300 -f urls.txt", root)
    return substitute(
        scrub(out, root),
        (r"^(HTTP/1\.\d \d+)\s+[\d.]+ secs:", r"\1     TIME secs:"),
        (r"^(Elapsed time|Response time):(\s+)[\d.]+", r"\1:\2TIME"),
        (r"^(Transaction rate|Throughput|Concurrency):(\s+)[\d.]+", r"\1:\2RATE"),
        (r"^(Longest transaction|Shortest transaction):(\s+)[\d.]+", r"\1:\2TIME"),
        (r"^(Data transferred):(\s+)[\d.]+", r"\1:\2SIZE"),
    )


# ---------------------------------------------------------------- httpie


@case(
    "httpie_order_import_422_at_27",
    "http --check-status -v --pretty=format (HTTPie, loop over 40 orders)",
    clean=False,
    group=GROUP,
    decisive=[
        "http: warning: HTTP 422 Unprocessable Entity",
        '"detail": "currency \'EURO\' is not an ISO 4217 code",',
        "[exit status 4]",
    ],
)
def _httpie_fail(root: Path) -> bytes:
    env = _py_tools(root, _HTTPIE)
    routes: dict[str, dict[str, object]] = {}
    lines = ["set -e"]
    for i in range(40):
        order = f"ORD-{1001 + i}"
        area = WORDS[i % len(WORDS)]
        currency = "EURO" if i == 26 else "EUR"
        if i == 26:
            body = {
                "error": "validation failed",
                "detail": "currency 'EURO' is not an ISO 4217 code",
                "field": "currency",
                "order": order,
            }
            routes[f"/api/orders/{order}"] = {"status": 422, "body": json.dumps(body)}
        else:
            body = {"order": order, "status": "imported", "errors": [], "warnings": []}
            headers = {"Location": f"/api/orders/{order}"}
            routes[f"/api/orders/{order}"] = {"status": 201, "body": json.dumps(body), "headers": headers}
        lines.append(
            f"http --check-status --ignore-stdin -v --pretty=format POST http://127.0.0.1:18085/api/orders/{order} "
            f'channel={area} currency={currency} total:={10 + i}.5 items:=\'[{{"sku": "SKU-{i:03d}", "qty": 1}}]\''
        )
    write(root, {"import.sh": "\n".join(lines) + "\n"})
    with _http(root, 18085, routes):
        out = sh(f"{env} bash import.sh", root)
    return scrub(out, root)


@case(
    "httpie_failed_jobs_errors_empty_clean",
    "http --check-status -v --pretty=format (HTTPie, loop over 20 queues)",
    clean=True,
    group=GROUP,
    decisive=['"queue": "export"'],
)
def _httpie_clean(root: Path) -> bytes:
    env = _py_tools(root, _HTTPIE)
    routes: dict[str, dict[str, object]] = {}
    lines = ["set -e"]
    for area in WORDS:
        body = {"errors": [], "failed_jobs": [], "error_rate": 0.0, "last_error": None, "queue": area}
        headers = {"X-Error-Budget": "0.1%", "X-Failed-Jobs": "0"}
        routes[f"/api/queues/{area}/failed-jobs"] = {"body": json.dumps(body), "headers": headers}
        lines.append(
            f"http --check-status --ignore-stdin -v --pretty=format "
            f"GET http://127.0.0.1:18086/api/queues/{area}/failed-jobs X-Request-Id:check-{area}"
        )
    write(root, {"check.sh": "\n".join(lines) + "\n"})
    with _http(root, 18086, routes):
        out = sh(f"{env} bash check.sh", root)
    return scrub(out, root)


# ---------------------------------------------------------------- aria2c


@case(
    "aria2c_nightly_exports_one_404",
    "aria2c -i exports.txt -j 1 (local http.server, 60 files)",
    clean=False,
    group=GROUP,
    decisive=[
        "Download aborted. URI=http://127.0.0.1:18087/exports/2026-03-01/refunds-ledger.csv",
        "|ERR |       RATE|http://127.0.0.1:18087/exports/2026-03-01/refunds-ledger.csv",
    ],
)
def _aria2c(root: Path) -> bytes:
    site = root / "site"
    urls = []
    for area in WORDS:
        for kind in ("orders", "ledger", "audit"):
            name = f"exports/2026-03-01/{area}-{kind}.csv"
            urls.append(f"http://127.0.0.1:18087/{name}")
            if name != "exports/2026-03-01/refunds-ledger.csv":
                rows = "".join(f"{area}-{kind}-{r},{r * 3}.00,EUR\n" for r in range(40))
                write(site, {name: "id,amount,currency\n" + rows})
    write(root, {"exports.txt": "\n".join(urls) + "\n"})
    with _http(root, 18087):
        out = sh(
            "aria2c -i exports.txt -d downloads -j 1 --max-tries=1 --timeout=5 --summary-interval=0 "
            "--console-log-level=notice --show-console-readout=false --enable-color=false --file-allocation=none",
            root,
        )
    return substitute(
        scrub(out, root),
        (r"^\d\d/\d\d \d\d:\d\d:\d\d", "03/02 09:00:00"),
        (r"GID#[0-9a-f]{16}", "GID#0000000000000000"),
        (r"^[0-9a-f]{6}\|(OK  |ERR )\|[^|]*\|", r"000000|\1|       RATE|"),
    )


# ---------------------------------------------------------------- lftp


@case(
    "lftp_mirror_exports_missing_summary",
    "lftp -f sync.lftp (mirror -v, then get; local pyftpdlib)",
    clean=False,
    group=GROUP,
    decisive=["get: Access failed: 550 No such file or directory. (reports/summary-2026-02.csv)"],
)
def _lftp(root: Path) -> bytes:
    env = _py_tools(root, _PYFTPDLIB)
    ftp = root / "ftp"
    for area in WORDS:
        for kind in ("orders", "refunds", "errors"):
            rows = "".join(f"{area}-{r},{r}.00\n" for r in range(20))
            write(ftp, {f"exports/{area}/{kind}-2026-02.csv": "id,amount\n" + rows})
    write(ftp, {"reports/summary-2026-01.csv": "area,orders\n"})
    write(
        root,
        {
            "sync.lftp": "set cmd:fail-exit yes\nset net:max-retries 1\nset net:timeout 5\n"
            "open ftp://127.0.0.1:18088\nmirror -v --parallel=1 exports local/exports\n"
            "get -O local reports/summary-2026-02.csv\n"
        },
    )
    cmd = ["bash", "-c", f"exec {env} {PY} -m pyftpdlib -i 127.0.0.1 -p 18088 -d {ftp}"]
    with _running(cmd, 18088, root):
        out = sh("lftp -f sync.lftp", root, timeout=60)
    return scrub(out, root)


# ---------------------------------------------------------------- nslookup and dig (dnsmasq)


@contextmanager
def _dnsmasq(root: Path, records: list[str]) -> Iterator[None]:
    conf = "\n".join(
        [
            "port=18053",
            "listen-address=127.0.0.1",
            "bind-interfaces",
            "no-resolv",
            "no-hosts",
            "no-poll",
            "local=/shop.internal/",
            "domain-needed",
            *records,
        ]
    )
    write(root, {"dnsmasq.conf": conf + "\n"})
    cmd = ["dnsmasq", "--keep-in-foreground", "--pid-file=", "--user=root", f"--conf-file={root / 'dnsmasq.conf'}"]
    with _running(cmd, 18053, root, udp=True):
        yield


@case(
    "nslookup_service_names_one_nxdomain",
    "nslookup -port=18053 (loop over 40 names, local dnsmasq)",
    clean=False,
    group=GROUP,
    decisive=["** server can't find webhooks-worker.shop.internal: NXDOMAIN", "[exit status 1]"],
)
def _nslookup(root: Path) -> bytes:
    records = []
    names = []
    for i, area in enumerate(WORDS):
        for j, role in enumerate(("api", "worker")):
            name = f"{area}-{role}.shop.internal"
            names.append(name)
            if name != "webhooks-worker.shop.internal":
                records.append(f"address=/{name}/10.20.{i}.{10 + j}")
    write(
        root,
        {
            "check.sh": "set -e\nfor name in "
            + " ".join(names)
            + '; do\n  nslookup -port=18053 -type=A "$name" 127.0.0.1\ndone\n'
        },
    )
    with _dnsmasq(root, records):
        out = sh("bash check.sh", root, timeout=120)
    return scrub(out, root)


@case(
    "dig_error_budget_txt_records_clean",
    "dig -p 18053 TXT (loop over 40 records, local dnsmasq)",
    clean=True,
    group=GROUP,
    decisive=['failed-jobs.export.shop.internal. 0 IN\tTXT\t"queue=failed_jobs" "max_errors=0"'],
)
def _dig(root: Path) -> bytes:
    records = []
    names = []
    for area in WORDS:
        records.append(f'txt-record=errors.{area}.shop.internal,"error_budget=0.1%","errors_page=/{area}/errors"')
        records.append(f'txt-record=failed-jobs.{area}.shop.internal,"queue=failed_jobs","max_errors=0"')
        names += [f"errors.{area}.shop.internal", f"failed-jobs.{area}.shop.internal"]
    write(
        root,
        {
            "check.sh": "set -e\nfor name in "
            + " ".join(names)
            + '; do\n  dig @127.0.0.1 -p 18053 +nocookie +time=2 +tries=1 "$name" TXT\ndone\n'
        },
    )
    with _dnsmasq(root, records):
        out = sh("bash check.sh", root, timeout=120)
    return substitute(
        scrub(out, root),
        (r"(status: \w+), id: \d+", r"\1, id: 1"),
        (r"^;; Query time: \d+ msec", ";; Query time: 0 msec"),
        (r"^;; WHEN: .*$", ";; WHEN: Mon Mar 02 09:00:00 UTC 2026"),
    )


# ---------------------------------------------------------------- linkchecker


@case(
    "linkchecker_verbose_site_one_dead_link",
    "linkchecker --verbose --threads=0 (local http.server, 150 URLs)",
    clean=False,
    group=GROUP,
    decisive=[
        "URL        `../coupons/stacking-rules.html'",
        "Result     Error: 404 File not found",
        "1 error found.",
    ],
)
def _linkchecker(root: Path) -> bytes:
    env = _py_tools(root, _LINKCHECKER)
    site = root / "site"
    top = []
    for area in WORDS:
        pages = [f"{area}/guide-{k}.html" for k in range(7)]
        top.append(pages[0])
        for k, page in enumerate(pages):
            links = [f"guide-{(k + 1) % 7}.html", "../index.html"]
            if page == "pricing/guide-4.html":
                links.append("../coupons/stacking-rules.html")
            write(site, {page: _page(f"{area} guide {k}", f"Part {k} of the {area} guide.", links)})
    write(site, {"index.html": _page("Guides", "All guides.", top), "static/site.css": "body { margin: 0; }\n"})
    write(root, {"linkcheckerrc": "[checking]\nmaxrequestspersecond=1000\n"})
    # The header with which a server lets linkchecker go faster than ten requests a second.
    with _http(root, 18089, {"*": {"headers": {"LinkChecker": "allow"}}}):
        out = sh(
            f"{env} linkchecker -f linkcheckerrc --verbose --threads=0 --timeout=5 --no-status http://127.0.0.1:18089/",
            root,
        )
    return substitute(
        scrub(out, root),
        (r"^(Check time|D/L time)(\s+)[\d.]+ seconds", r"\1\2TIME seconds"),
        (r"^(Start checking at|Stopped checking at) .*$", r"\1 2026-03-02 09:00:00+000"),
        (r"\(\d+ seconds?\)", "(TIME)"),
        (r"^(WARNING|INFO) (\S+) \d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d+", r"\1 \2 2026-03-02 09:00:00,000"),
    )


# ---------------------------------------------------------------- nc


@case(
    "nc_zv_service_ports_one_refused",
    "nc -zv -w 1 (loop over 20 local services)",
    clean=False,
    group=GROUP,
    decisive=["nc: connect to 127.0.0.1 port 18105 (tcp) failed: Connection refused", "[exit status 1]"],
)
def _nc(root: Path) -> bytes:
    ports = {area: 18090 + i for i, area in enumerate(WORDS)}
    listen = [p for a, p in ports.items() if a != "pricing"]
    write(
        root,
        {
            "listen.py": "import selectors, socket\nsel = selectors.DefaultSelector()\n"
            f"for port in {listen}:\n"
            "    s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
            "    s.bind(('127.0.0.1', port)); s.listen(16); sel.register(s, selectors.EVENT_READ)\n"
            "while True:\n"
            "    for key, _ in sel.select():\n"
            "        conn, _ = key.fileobj.accept(); conn.close()\n",
            "check.sh": "set -e\n"
            + "".join(f'echo "checking {a} on {p}"\nnc -zv -w 1 127.0.0.1 {p}\n' for a, p in ports.items()),
        },
    )
    with _running([PY, str(root / "listen.py")], listen[-1], root):
        out = sh("bash check.sh", root, timeout=60)
    return scrub(out, root)
