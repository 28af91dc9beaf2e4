"""Held-out outputs (group ``unseen-10``): a tenth batch, made to measure the engine after nine rounds of fixes.

Ruby (a verbose minitest run with one failed assertion among hundreds of passes, ``ruby -w``
with a flood of parse warnings before a ``NoMethodError``, ``rake --trace`` stopping on a failed
``sh`` step), git workflows on local repositories (``git rebase -x`` stopping on a conflict after
many test runs, ``git push`` refused by a ``pre-receive`` hook that scans every file, ``git fsck
--full --verbose`` over a repository with one corrupted loose object), ``uv pip compile -vv`` with a
dependency conflict, JavaScript builds (``vitest run`` with one failed test among many files,
``webpack`` with one unresolved import among hundreds of modules), services (``nginx -t`` with an
unknown directive in one included site after a run of warnings, a big nginx log where access and
error lines share one file and one request fails at the upstream, ``supervisord`` giving up on one
program among many that restart normally), and clean runs whose text talks about errors (a
minitest suite about error handling, a redis startup log with ``redis-cli --pipe`` reporting
``errors: 0`` and ``INFO`` counters, a ``git clone`` and ``fsck`` of a repository named
``fatal-error-pages``, a container's ``env | sort`` with ``ERROR_PAGES_DIR``-like settings).
Labels were written with each scenario, before the engine saw the output. Needs ``ruby``,
``rake``, ``ruby-minitest``, ``nginx``, ``redis-server`` and ``supervisor`` (Debian packages).
"""

from __future__ import annotations

import hashlib
import textwrap
from pathlib import Path

from _harness import PY, WORDS, case, sh, write
from cases_unseen_build import _npm, _pip_tool

GROUP = "unseen-10"

_DATES = {
    "GIT_AUTHOR_NAME": "Dev",
    "GIT_AUTHOR_EMAIL": "dev@example.com",
    "GIT_COMMITTER_NAME": "Dev",
    "GIT_COMMITTER_EMAIL": "dev@example.com",
    "GIT_AUTHOR_DATE": "2024-06-01T09:00:00+0000",
    "GIT_COMMITTER_DATE": "2024-06-01T09:00:00+0000",
}


def _git_init(root: Path, path: str = ".") -> None:
    (root / path).mkdir(parents=True, exist_ok=True)
    sh("git init -q -b main . && git config user.email dev@example.com && git config user.name Dev", root / path)


def _commit(root: Path, message: str, path: str = ".") -> None:
    sh(f"git add -A && git commit -q -m '{message}'", root / path, env=_DATES)


# ---------------------------------------------------------------- Ruby


def _minitest_suite(root: Path, fail: bool, names: list[str]) -> None:
    for k, area in enumerate(WORDS[:12]):
        cls = f"{area.title()}Test"
        tests = []
        for i in range(50):
            name = names[(k * 50 + i) % len(names)].format(area=area, i=i)
            tests.append(f"  def test_{name}_{i:03d}\n    assert_equal {i} + 1, add({i}, 1)\n  end\n")
        if fail and area == "refunds":
            tests.insert(
                31,
                "  def test_refund_applied_once\n    balance = add(10, -7)\n"
                '    assert_equal 4, balance, "refund applied twice"\n  end\n',
            )
        body = (
            'require "minitest/autorun"\n\n'
            f"class {cls} < Minitest::Test\n  def add(a, b)\n    a + b\n  end\n\n" + "\n".join(tests) + "end\n"
        )
        write(root, {f"test/{area}_test.rb": body})


@case(
    "minitest_verbose_one_failure",
    "ruby minitest -v",
    clean=False,
    group=GROUP,
    decisive=["RefundsTest#test_refund_applied_once [", "Expected: 4", "Actual: 3"],
)
def _minitest_fail(root: Path) -> bytes:
    _minitest_suite(root, True, ["posts_{area}_entry", "rounds_{area}_amount", "loads_{area}_fixture"])
    run = 'ruby -Itest -e \'Dir["test/*_test.rb"].sort.each { |f| require "./#{f}" }\' -- -v --seed 4242'
    return sh(run, root)


@case(
    "ruby_w_warnings_then_nomethoderror",
    "ruby -w",
    clean=False,
    group=GROUP,
    decisive=["lib/importer.rb:4:in `line_total'", "undefined method `[]' for nil:NilClass (NoMethodError)"],
    note="220 parse warnings from the row formatters, 1840 rows imported, then the crash",
)
def _ruby_w(root: Path) -> bytes:
    for i in range(220):
        area = WORDS[i % 20]
        write(
            root,
            {
                f"lib/formatters/{area}_{i:03d}.rb": f"""
                module Formatters
                  def self.{area}_{i}(row)
                    scratch = row.size
                    format("%s", row["sku"])
                  end
                end
                """
            },
        )
    write(
        root,
        {
            "lib/importer.rb": """
            module Importer
              def self.line_total(row)
                qty = row["qty"]
                price = row["price"]["amount"]
                format("%s x%d = %.2f", row["sku"], qty, qty * price)
              end
            end
            """,
            "import.rb": """
            $stdout.sync = true
            Dir[File.join(__dir__, "lib/formatters/*.rb")].sort.each { |f| require f }
            require_relative "lib/importer"

            rows = (0...3000).map do |i|
              { "sku" => format("SKU-%05d", i), "qty" => i % 9 + 1, "price" => { "amount" => 4.5 + i % 13 } }
            end
            rows[1840]["price"] = nil
            rows.each_with_index do |row, i|
              puts "row #{i}: #{Importer.line_total(row)}"
            end
            puts "import finished: #{rows.size} rows"
            """,
        },
    )
    return sh("ruby -w import.rb", root)


@case(
    "rake_trace_sh_failed",
    "rake --trace",
    clean=False,
    group=GROUP,
    decisive=[
        "cp: cannot stat 'config/database.yml': No such file or directory",
        "Command failed with status (1): [cp config/database.yml",
    ],
)
def _rake(root: Path) -> bytes:
    for i in range(240):
        write(root, {f"src/assets/{WORDS[i % 20]}_{i:03d}.css": f".{WORDS[i % 20]}-{i} {{ margin: {i % 9}px; }}\n"})
    write(
        root,
        {
            "config/settings.yml": "region: eu-west-1\n",
            "Rakefile": """
            ASSETS = Dir["src/assets/*.css"].sort.map { |s| s.sub("src/", "build/") }

            directory "build/assets"
            directory "build/config"

            ASSETS.each do |target|
              source = target.sub("build/", "src/")
              file target => [source, "build/assets"] do
                sh "cp #{source} #{target}"
              end
            end

            desc "Copy the stylesheets"
            task assets: ASSETS

            desc "Copy the configuration"
            task config: "build/config" do
              sh "cp config/settings.yml build/config/settings.yml"
              sh "cp config/database.yml build/config/database.yml"
            end

            desc "Build the release folder"
            task build: %i[assets config] do
              puts "release folder ready"
            end

            task default: :build
            """,
        },
    )
    return sh("rake --trace build", root)


@case(
    "minitest_error_handling_suite_clean",
    "ruby minitest -v",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _minitest_clean(root: Path) -> bytes:
    _minitest_suite(
        root,
        False,
        [
            "raises_error_on_failed_{area}_charge",
            "logs_fatal_error_for_{area}",
            "retries_failed_{area}_job",
            "reports_0_failures_for_{area}",
            "maps_exception_to_{area}_error_page",
        ],
    )
    run = 'ruby -Itest -e \'Dir["test/*_test.rb"].sort.each { |f| require "./#{f}" }\' -- -v --seed 4242'
    return sh(run, root)


# ---------------------------------------------------------------- git on local repositories


@case(
    "git_rebase_exec_conflict",
    "git rebase -x",
    clean=False,
    group=GROUP,
    decisive=["CONFLICT (content): Merge conflict in src/pricing.py", "pricing: round totals half up"],
    note="the exec step runs the checks after each of 26 replayed commits; the 27th conflicts",
)
def _rebase(root: Path) -> bytes:
    _git_init(root)
    pricing = "def total(cents):\n    return round(cents / 100, 2)\n"
    write(root, {"src/pricing.py": pricing})
    for i in range(40):
        write(root, {f"src/{WORDS[i % 20]}_{i:02d}.py": f"VALUE_{i} = {i}\n"})
    write(
        root,
        {
            "check.sh": """
            #!/bin/sh
            n=0
            for f in src/*.py; do
              n=$((n + 1))
              echo "check $f: ok ($(wc -l < "$f") lines)"
            done
            echo "checks passed: $n files, 0 failures"
            """
        },
    )
    _commit(root, "initial import")
    sh("git checkout -q -b feature", root)
    for i in range(40):
        if i == 26:
            write(root, {"src/pricing.py": "def total(cents):\n    return int(cents / 100 * 100 + 0.5) / 100\n"})
            _commit(root, "pricing: round totals half up")
        else:
            area = WORDS[i % 20]
            write(root, {f"src/{area}_{i:02d}.py": f"VALUE_{i} = {i * 10}\n"})
            _commit(root, f"{area}: scale value {i}")
    sh("git checkout -q main", root)
    write(
        root, {"src/pricing.py": "from decimal import Decimal\n\ndef total(cents):\n    return Decimal(cents) / 100\n"}
    )
    _commit(root, "pricing: use Decimal")
    sh("git checkout -q feature", root)
    return sh("git rebase -x 'sh check.sh' main", root, env=_DATES)


@case(
    "git_push_pre_receive_rejected",
    "git push -v (pre-receive hook)",
    clean=False,
    group=GROUP,
    decisive=[
        "remote: policy: config/prod.env:3: private key committed",
        "! [remote rejected] main -> main (pre-receive hook declined)",
    ],
)
def _push(root: Path) -> bytes:
    sh("git init -q --bare -b main remote.git", root)
    write(
        root,
        {
            "remote.git/hooks/pre-receive": """
            #!/bin/sh
            violations=0
            while read old new ref; do
              echo "policy: checking $ref"
              for f in $(git ls-tree -r --name-only "$new"); do
                hit=$(git show "$new:$f" | grep -n 'BEGIN RSA PRIVATE KEY' | cut -d: -f1)
                if [ -n "$hit" ]; then
                  echo "policy: $f:$hit: private key committed"
                  violations=$((violations + 1))
                else
                  echo "policy: $f: ok"
                fi
              done
            done
            echo "policy: $violations violation(s)"
            [ "$violations" -eq 0 ]
            """
        },
    )
    sh("chmod +x remote.git/hooks/pre-receive", root)
    _git_init(root, "app")
    for i in range(480):
        area = WORDS[i % 20]
        write(root, {f"app/src/{area}/{area}_{i:03d}.py": f"def handle_{i}(event):\n    return event['{area}']\n"})
    write(root, {"app/config/prod.env": "REGION=eu-west-1\nPOOL=8\n-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQ\n"})
    _commit(root, "release 4.2", "app")
    sh(f"git remote add origin {root / 'remote.git'}", root / "app")
    return sh("git push -v --progress origin main", root / "app")


def _fsck_body(name: str, area: str, n: int, c: int) -> str:
    if name == "fatal-error-pages":
        return f"<h1>{area}: error {n}</h1>\n<p>Something failed on our side.</p>\n<!-- revision {c} -->\n"
    body = f'"""{area} part {n}."""\n\n\ndef post_{n}(entry):\n    return entry["amount"] * {n}\n'
    return body if (area, n) == ("ledger", 5) else body + f"# revision {c}\n"


_KEPT = _fsck_body("repo", "ledger", 5, 0).encode()
_CORRUPT = hashlib.sha1(b"blob %d\0" % len(_KEPT) + _KEPT).hexdigest()  # the blob that never changes


def _fsck_repo(root: Path, name: str) -> None:
    """60 commits, each revising 6 of 140 files (one file never changes)."""
    _git_init(root, name)
    ext = "html" if name == "fatal-error-pages" else "py"
    for c in range(60):
        for k in range(6):
            j = (c * 6 + k) % 140
            area, n = WORDS[j % 20], j // 20
            write(root, {f"{name}/src/{area}/{area}_{n:02d}.{ext}": _fsck_body(name, area, n, c)})
        _commit(root, f"batch {c}: update {WORDS[c % 20]} handlers", name)


@case(
    "git_fsck_corrupt_loose_object",
    "git fsck --full --verbose",
    clean=False,
    group=GROUP,
    decisive=[f"{_CORRUPT}: object corrupt or missing", f"missing blob {_CORRUPT}"],
)
def _fsck(root: Path) -> bytes:
    _fsck_repo(root, "repo")
    obj = root / "repo" / ".git" / "objects" / _CORRUPT[:2] / _CORRUPT[2:]
    obj.chmod(0o644)
    obj.write_bytes(b"\x00garbage written by a full disk\n")
    return sh("git fsck --full --verbose", root / "repo")


@case(
    "git_clone_fsck_fatal_error_pages_clean",
    "git clone --progress && git fsck --verbose",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _clone_clean(root: Path) -> bytes:
    _fsck_repo(root, "fatal-error-pages")
    out = sh("git clone --progress --verbose --no-local fatal-error-pages fatal-error-pages-mirror", root)
    out += sh("git count-objects -v && git fsck --full --verbose", root / "fatal-error-pages-mirror")
    return out


# ---------------------------------------------------------------- Python packaging: uv


@case(
    "uv_pip_compile_conflict",
    "uv pip compile -vv",
    clean=False,
    group=GROUP,
    decisive=["No solution found when resolving dependencies", "all versions of requests depend on urllib3>=1.26,<3"],
    note="resolved against the machine's local package index",
)
def _uv_compile(root: Path) -> bytes:
    env = _pip_tool(root, "uv==0.13.9")
    reqs = [
        "flask==3.1.3", "werkzeug==3.1.9", "jinja2==3.1.6", "click==8.5.0", "itsdangerous==2.2.0",
        "markupsafe==3.0.3", "blinker==1.9.0", "idna==3.20", "certifi==2026.7.22",
        "charset-normalizer==3.5.2", "attrs==26.1.0", "six==1.17.0", "python-dateutil==2.9.0.post0",
        "pyyaml", "sqlalchemy", "alembic", "pydantic", "httpx", "anyio", "rich", "typer", "structlog", "tenacity",
        "orjson", "python-dotenv", "gunicorn", "packaging", "pytz", "celery", "redis", "boto3", "marshmallow",
        "psycopg2-binary", "mako", "prometheus-client", "requests==2.34.2",
        "urllib3<1.21  # pinned by the legacy ledger client",
    ]  # fmt: skip
    write(root, {"requirements.in": "\n".join(reqs) + "\n"})
    index = "--index-url file:///opt/pypi/simple --extra-index-url file:///opt/pypi-more/simple"
    cache = f"UV_CACHE_DIR={root / 'uv-cache'}"
    return sh(f"{env} {cache} uv pip compile -vv {index} requirements.in -o requirements.txt", root)


# ---------------------------------------------------------------- JavaScript


@case(
    "vitest_one_failure_among_files",
    "vitest run --reporter=verbose",
    clean=False,
    group=GROUP,
    decisive=["applies gold tier discount", "AssertionError: expected 68 to be 70"],
)
def _vitest(root: Path) -> bytes:
    _npm(root, "vitest@2.1.9")
    write(
        root,
        {
            "src/lib/money.js": "export const add = (a, b) => a + b;\n"
            "export const discount = (p, r) => Math.round(p * (1 - r));\n"
        },
    )
    for k in range(20):
        area = WORDS[k]
        tests = [f"  it('adds {area} line {i}', () => {{ expect(add({i}, 1)).toBe({i + 1}); }});" for i in range(30)]
        if area == "cart":
            tests.insert(17, "  it('applies gold tier discount', () => { expect(discount(80, 0.15)).toBe(70); });")
        body = (
            "import { describe, it, expect } from 'vitest';\nimport { add, discount } from '../lib/money.js';\n\n"
            f"describe('{area}', () => {{\n" + "\n".join(tests) + "\n});\n"
        )
        write(root, {f"src/{area}/{area}.test.js": body})
    return sh("npx vitest run --reporter=verbose", root)


@case(
    "webpack_module_not_found",
    "webpack --stats verbose",
    clean=False,
    group=GROUP,
    decisive=["ERROR in ./src/pages/checkout_07.js", "Module not found: Error: Can't resolve '../utils/format-price'"],
)
def _webpack(root: Path) -> bytes:
    _npm(root, "webpack@5.94.0", "webpack-cli@5.1.4")
    pages = [f"{WORDS[i % 20]}_{i // 20:02d}" for i in range(300)] + ["checkout_07"]
    for i, name in enumerate(pages[:300]):
        write(root, {f"src/pages/{name}.js": f"export const page{i} = () => '{name}';\n"})
    checkout = (
        "import { formatPrice } from '../utils/format-price';\n\nexport const checkout7 = (c) => formatPrice(c);\n"
    )
    write(root, {"src/pages/checkout_07.js": checkout})
    write(root, {"src/utils/format-date.js": "export const formatDate = (d) => d.toISOString();\n"})
    entry = "".join(f"import * as p{i} from './pages/{p}.js';\n" for i, p in enumerate(pages))
    entry += "console.log([" + ", ".join(f"p{i}" for i in range(len(pages))) + "].length);\n"
    write(root, {"src/index.js": entry})
    return sh("npx webpack --mode development --stats verbose", root)


# ---------------------------------------------------------------- services: nginx, supervisord, redis


def _nginx_conf(root: Path, http_extra: str) -> None:
    write(
        root,
        {
            "conf/nginx.conf": f"""
            worker_processes 1;
            pid logs/nginx.pid;
            error_log logs/error.log warn;
            events {{ worker_connections 256; }}
            http {{
                default_type application/octet-stream;
                access_log logs/access.log;
                client_body_temp_path tmp/body;
                proxy_temp_path tmp/proxy;
                fastcgi_temp_path tmp/fastcgi;
                uwsgi_temp_path tmp/uwsgi;
                scgi_temp_path tmp/scgi;
            {http_extra}
            }}
            """
        },
    )
    (root / "logs").mkdir(exist_ok=True)
    (root / "tmp").mkdir(exist_ok=True)


@case(
    "nginx_t_unknown_directive_in_include",
    "nginx -t",
    clean=False,
    group=GROUP,
    decisive=['unknown directive "proxy_passs" in /tmp/work/conf/sites/shop-ledger.conf:8', "test failed"],
    note="every site before the broken one warns about a /24 allow rule; the warnings are noise",
)
def _nginx_t(root: Path) -> bytes:
    _nginx_conf(root, "    include sites/*.conf;")
    for i in range(400):
        area = WORDS[i % 20]
        name = "shop-ledger" if i == 91 else f"shop-{area}-{i:03d}"
        proxy = "proxy_passs" if i == 91 else "proxy_pass"
        write(
            root,
            {
                f"conf/sites/{name}.conf": f"""
                server {{
                    listen 127.0.0.1:{20000 + i};
                    server_name {name}.internal;
                    allow 10.{i // 250}.{i % 250}.1/24;
                    deny all;
                    error_page 502 503 /errors/50x.html;
                    location / {{
                        {proxy} http://127.0.0.1:{30000 + i};
                    }}
                }}
                """
            },
        )
    return sh(f"nginx -t -e stderr -p {root}/ -c conf/nginx.conf", root)


@case(
    "nginx_log_upstream_refused_big",
    "nginx (access and error log in one file)",
    clean=False,
    group=GROUP,
    decisive=[
        "connect() failed (111: Connection refused) while connecting to upstream",
        '"GET /api/reports/2024-q3.csv HTTP/1.1" 502',
    ],
    note="12,000 requests; one is proxied to a reports service that is down",
)
def _nginx_log(root: Path) -> bytes:
    _nginx_conf(
        root,
        """
        log_format main '$remote_addr - $remote_user [$time_local] "$request" $status $body_bytes_sent '
                        '"$http_referer" "$http_user_agent" rt=$request_time';
        server {
            listen 127.0.0.1:18471;
            server_name shop.local;
            root html;
            access_log logs/shop.log main;
            error_log logs/shop.log warn;
            error_page 502 503 504 /errors/50x.html;
            location = /favicon.ico { log_not_found off; access_log off; }
            location /api/reports/ { proxy_pass http://127.0.0.1:18479; }
        }
        """,
    )
    for i in range(40):
        write(root, {f"html/{WORDS[i % 20]}/page_{i:02d}.html": f"<h1>{WORDS[i % 20]} {i}</h1>\n" * (1 + i % 5)})
    write(root, {"html/errors/50x.html": "<h1>temporarily unavailable</h1>\n"})
    root.chmod(0o755)  # the worker runs as nobody
    write(
        root,
        {
            "drive.py": """
            import http.client

            words = ["billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth",
                     "session", "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons",
                     "webhooks", "audit", "export"]
            conn = http.client.HTTPConnection("127.0.0.1", 18471)
            for i in range(12000):
                path = f"/{words[i % 40 % 20]}/page_{i % 40:02d}.html"
                if i == 7311:
                    path = "/api/reports/2024-q3.csv"
                headers = {"User-Agent": f"shop-probe/1.{i % 7}", "Referer": f"http://shop.local/{words[(i * 7) % 20]}"}
                conn.request("GET", path, headers=headers)
                conn.getresponse().read()
            """
        },
    )
    sh(f"nginx -e stderr -p {root}/ -c conf/nginx.conf", root)
    try:
        sh(f"{PY} drive.py", root)
    finally:
        sh(f"nginx -e stderr -p {root}/ -c conf/nginx.conf -s quit; sleep 1", root)
    return sh("cat logs/shop.log", root)


@case(
    "supervisord_program_fatal",
    "supervisord (log) && supervisorctl status",
    clean=False,
    group=GROUP,
    decisive=[
        "gave up: billing-worker entered FATAL state, too many start retries too quickly",
        "exited: billing-worker (exit status 78; not expected)",
    ],
)
def _supervisor(root: Path) -> bytes:
    programs = []
    for i in range(24):
        area = WORDS[i % 20]
        name = f"{area}-{'sweeper' if i % 3 == 0 else 'worker'}-{i:02d}"
        if i % 3 == 0:  # short jobs that finish and are started again
            cmd = f"/bin/sh -c 'echo swept {area}; sleep 0.{3 + i % 5}'"
            extra = "startsecs=0\nautorestart=true\nexitcodes=0"
        else:
            cmd = f"/bin/sh -c 'while :; do echo {area} tick; sleep 5; done'"
            extra = "startsecs=1\nautorestart=true"
        programs.append(f"[program:{name}]\ncommand={cmd}\n{extra}\n")
        if i == 11:
            programs.append(
                "[program:billing-worker]\n"
                "command=/bin/sh -c 'echo \"billing-worker: LEDGER_DSN is not set\" >&2; exit 78'\n"
                "startsecs=2\nstartretries=3\nautorestart=true\n"
            )
    head = f"""
        [unix_http_server]
        file={root}/supervisor.sock

        [supervisord]
        logfile={root}/supervisord.log
        pidfile={root}/supervisord.pid
        childlogdir={root}/children
        loglevel=info

        [rpcinterface:supervisor]
        supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

        [supervisorctl]
        serverurl=unix://{root}/supervisor.sock
        """
    (root / "supervisord.conf").write_text(textwrap.dedent(head).lstrip() + "\n" + "\n".join(programs))
    (root / "children").mkdir()
    sh("supervisord -c supervisord.conf", root)
    try:
        sh("sleep 25", root)
        status = sh("supervisorctl -c supervisord.conf status", root)
    finally:
        sh("supervisorctl -c supervisord.conf shutdown; sleep 3", root)
    return (root / "supervisord.log").read_bytes() + status


@case(
    "redis_pipe_info_clean",
    "redis-server (log) && redis-cli --pipe && redis-cli INFO",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _redis(root: Path) -> bytes:
    port = 16391
    cmds = []
    for i in range(5000):
        area = WORDS[i % 20]
        if i % 5 == 0:
            cmds.append(f"INCR stats:{area}:errors_seen")
        elif i % 5 == 1:
            cmds.append(f"HSET job:{i} queue failed_jobs_retry state done attempts {i % 3}")
        else:
            cmds.append(f"SET cache:error_page:{area}:{i} error_page_{i % 7}.html")
    (root / "load.txt").write_text("\r\n".join(cmds) + "\r\n")
    sh(f"redis-server --port {port} --dir {root} --logfile {root}/redis.log --daemonize yes --loglevel verbose", root)
    try:
        sh("sleep 1", root)
        out = sh(f"redis-cli -p {port} --pipe < load.txt", root)
        out += sh(f"redis-cli -p {port} --scan --pattern 'cache:error_page:retry:*'", root)
        out += sh(f"redis-cli -p {port} GET stats:errors:errors_seen && redis-cli -p {port} INFO", root)
    finally:
        sh(f"redis-cli -p {port} shutdown nosave; sleep 1", root)
    return (root / "redis.log").read_bytes() + out


# ---------------------------------------------------------------- listings


@case("env_sort_container_clean", "env | sort", clean=True, group=GROUP, decisive=[])
def _env(root: Path) -> bytes:
    pairs = {
        "PATH": "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
        "HOSTNAME": "shop-api-7f9c6d5b8-x2kqp",
        "HOME": "/home/app",
        "LANG": "C.UTF-8",
        "ERROR_PAGES_DIR": "/srv/www/error_pages",
        "ERROR_REPORTING_LEVEL": "warning",
        "LOG_LEVEL": "error",
        "FAIL_FAST": "false",
        "MAX_FAILED_LOGIN_ATTEMPTS": "5",
        "ON_ERROR": "continue",
        "PYTHONFAULTHANDLER": "1",
        "RUST_BACKTRACE": "1",
        "NODE_OPTIONS": "--unhandled-rejections=strict",
        "CELERY_TASK_ACKS_ON_FAILURE_OR_TIMEOUT": "true",
        "FAILED_JOBS_RETENTION_DAYS": "14",
        "FATAL_SIGNAL_HANDLER": "enabled",
        "EXCEPTION_TRACKING_SAMPLE_RATE": "0.25",
        "PANIC_ON_OOM": "0",
        "DEAD_LETTER_QUEUE": "errors.dlq",
    }
    for i, area in enumerate(WORDS):
        up = area.upper()
        pairs[f"{up}_SERVICE_HOST"] = f"10.96.{i}.{40 + i}"
        pairs[f"{up}_SERVICE_PORT"] = str(8000 + i)
        pairs[f"{up}_SERVICE_PORT_HTTP"] = str(8000 + i)
        pairs[f"{up}_PORT"] = f"tcp://10.96.{i}.{40 + i}:{8000 + i}"
        pairs[f"{up}_RETRY_ON_ERROR"] = "true" if i % 2 else "false"
        pairs[f"{up}_ERROR_BUDGET"] = f"0.{i + 1:02d}"
        pairs[f"{up}_TIMEOUT_MS"] = str(500 + 50 * i)
    (root / "app.env").write_text("".join(f"{k}={v}\n" for k, v in pairs.items()))
    return sh("env -i $(cat app.env) env | sort", root)
