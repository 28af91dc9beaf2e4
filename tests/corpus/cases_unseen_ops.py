"""Held-out outputs (group ``unseen-1``): shell scripts, services, listings and data the first corpus did not have.

Labels were written with each scenario, before the engine saw the output.
"""

from __future__ import annotations

import subprocess
import time
from pathlib import Path

from _harness import PY, case, scrub, sh, write

GROUP = "unseen-1"


# ---------------------------------------------------------------- shell scripts


def _xtrace_script(root: Path, last: str) -> None:
    script = ["#!/bin/bash", "set -euxo pipefail", "mkdir -p build/config"]
    script += ["for i in $(seq 1 400); do", '  printf \'asset %d\\n\' "$i" > "build/asset_$i.txt"', "done"]
    script += ["echo starting > build/status.txt", last, "echo deployed"]
    (root / "release.sh").write_text("\n".join(script) + "\n")


@case(
    "bash_xtrace_sed_missing",
    "bash -x",
    clean=False,
    group=GROUP,
    decisive=["+ sed -i", "sed: can't read build/config/app.toml: No such file or directory"],
)
def _xtrace_sed(root: Path) -> bytes:
    _xtrace_script(root, "sed -i 's/^version = .*/version = \"2.4.1\"/' build/config/app.toml")
    return sh("bash release.sh", root)


@case(
    "bash_xtrace_silent_exit",
    "bash -x",
    clean=False,
    group=GROUP,
    decisive=["+ grep -q ready build/status.txt", "[exit status 1]"],
)
def _xtrace_grep(root: Path) -> bytes:
    _xtrace_script(root, "grep -q ready build/status.txt")
    return sh("bash release.sh", root)


@case(
    "awk_report_syntax_error",
    "mawk",
    clean=False,
    group=GROUP,
    decisive=["missing } near end of file"],
)
def _awk(root: Path) -> bytes:
    rows = "".join(f"host{i:04d} eu-west-{i % 3 + 1} {i * 17 % 400}\n" for i in range(1500))
    (root / "usage.txt").write_text(rows)
    script = "awk '{ printf \"%-10s %-12s %6d MB\\n\", $1, $2, $3 }' usage.txt; "
    script += "awk '{ total[$2] += $3 } END { for (r in total) print r, total[r] ' usage.txt"
    return sh(script, root)


@case(
    "git_apply_hunk_fails",
    "git apply",
    clean=False,
    group=GROUP,
    decisive=["error: patch failed: src/mod117.py:1", "error: src/mod117.py: patch does not apply"],
)
def _git_apply(root: Path) -> bytes:
    git = "git -c user.name=dev -c user.email=dev@example.com"
    for i in range(200):
        write(root, {f"src/mod{i:03d}.py": f"def f_{i}(x):\n    return x + {i}\n\n\nVALUE = {i}\n"})
    sh(f"git init -q . && {git} add . && {git} commit -qm base", root)
    for i in range(200):
        write(root, {f"src/mod{i:03d}.py": f"def f_{i}(x):\n    return x * {i}\n\n\nVALUE = {i}\n"})
    sh("git diff > change.patch && git checkout -q -- src", root)
    write(root, {"src/mod117.py": "def f_117(x):\n    return x - 117\n\n\nVALUE = 117\n"})
    sh(f"{git} commit -qam drift", root)
    return sh("git apply -v change.patch", root)


@case(
    "grep_error_word_clean",
    "grep -rn --color=always",
    clean=True,
    group=GROUP,
    decisive=[],
    note="a code search for the word 'error': every line says error, nothing failed",
)
def _grep(root: Path) -> bytes:
    for i in range(150):
        write(
            root,
            {
                f"src/handlers/h{i:03d}.py": f"""
                class Handler{i}Error(Exception):
                    pass


                def handle_{i}(request):
                    if not request:
                        raise Handler{i}Error("empty request {i}")
                    return request
                """
            },
        )
    return sh("grep -rn --color=always -i 'error' src", root)


@case(
    "curl_connection_refused",
    "curl -v",
    clean=False,
    group=GROUP,
    decisive=["Failed to connect to 127.0.0.1 port 9", "curl: (7)"],
)
def _curl(root: Path) -> bytes:
    return sh("curl -sSv --retry 2 --retry-delay 1 --retry-connrefused http://127.0.0.1:9/health", root)


# ---------------------------------------------------------------- services and logs


@case(
    "java_jul_severe_caused_by",
    "java (java.util.logging)",
    clean=False,
    group=GROUP,
    decisive=[
        "SEVERE: settlement batch 1207 failed",
        "java.lang.IllegalStateException: ledger 7 is closed",
        "Caused by: java.io.IOException: disk quota exceeded",
    ],
)
def _java_log(root: Path) -> bytes:
    write(
        root,
        {
            "App.java": """
            import java.io.IOException;
            import java.util.logging.Level;
            import java.util.logging.Logger;

            public class App {
                static final Logger LOG = Logger.getLogger("settlement");

                static void flush(int batch) throws IOException {
                    if (batch == 1207) throw new IOException("disk quota exceeded");
                }

                static void settle(int batch) {
                    try {
                        flush(batch);
                    } catch (IOException e) {
                        throw new IllegalStateException("ledger 7 is closed", e);
                    }
                }

                public static void main(String[] args) {
                    for (int b = 1; b <= 2500; b++) {
                        try {
                            settle(b);
                            LOG.info("settled batch " + b + " (" + (b * 37 % 500) + " rows)");
                        } catch (IllegalStateException e) {
                            LOG.log(Level.SEVERE, "settlement batch " + b + " failed", e);
                        }
                    }
                }
            }
            """
        },
    )
    sh("javac App.java", root)
    return sh("java -Duser.timezone=UTC App", root)


@case(
    "uvicorn_500_traceback",
    "uvicorn (FastAPI)",
    clean=False,
    group=GROUP,
    decisive=['"GET /orders/977 HTTP/1.1" 500', "Exception in ASGI application", "KeyError: 'sku'"],
)
def _uvicorn(root: Path) -> bytes:
    write(
        root,
        {
            "app.py": """
            from fastapi import FastAPI

            app = FastAPI()
            ORDERS = {n: {"sku": f"SKU-{n}", "qty": n % 7} for n in range(2000)}
            del ORDERS[977]["sku"]


            @app.get("/orders/{n}")
            def get_order(n: int):
                order = ORDERS[n]
                return {"n": n, "sku": order["sku"]}
            """
        },
    )
    port = 18000 + int(time.time()) % 1000
    log = (root / "server.log").open("wb")  # a file, not a pipe: a full pipe would stall the server
    server = subprocess.Popen(
        [PY, "-m", "uvicorn", "app:app", "--port", str(port), "--no-use-colors"],
        cwd=root,
        stdout=log,
        stderr=subprocess.STDOUT,
    )
    try:
        client = (
            "import httpx, time\n"
            "for _ in range(100):\n"
            "    try:\n"
            f"        httpx.get('http://127.0.0.1:{port}/docs'); break\n"
            "    except httpx.TransportError:\n"
            "        time.sleep(0.2)\n"
            f"with httpx.Client(base_url='http://127.0.0.1:{port}', trust_env=False) as c:\n"
            "    for n in range(1, 1500):\n"
            "        try:\n"
            "            c.get(f'/orders/{n}')\n"
            "        except httpx.TransportError:\n"
            "            pass\n"
        )
        subprocess.run([PY, "-c", client], check=True, timeout=300)
    finally:
        server.terminate()
        server.wait(timeout=30)
        log.close()
    return scrub((root / "server.log").read_bytes(), root)


@case(
    "crlf_service_log_err",
    "python (Windows-style console log, CRLF)",
    clean=False,
    group=GROUP,
    decisive=[
        "[05:17:44 ERR] An unhandled exception has occurred while executing the request.",
        "System.InvalidOperationException: Sequence contains no elements",
    ],
)
def _crlf(root: Path) -> bytes:
    write(
        root,
        {
            "svc.py": """
            import sys
            out = sys.stdout.buffer
            FAILED = [
                b"[05:17:44 ERR] An unhandled exception has occurred while executing the request.",
                b"System.InvalidOperationException: Sequence contains no elements",
                b"   at System.Linq.ThrowHelper.ThrowNoElementsException()",
                b"   at Shop.Carts.CartService.Latest(Int32 userId) in C:\\\\src\\\\Shop\\\\CartService.cs:line 88",
            ]
            for i in range(2500):
                stamp = f"05:{10 + i // 600:02d}:{i % 60:02d}"
                took = f"{i % 9 + 1}.{i % 97:02d}ms"
                out.write(f"[{stamp} INF] Request finished HTTP/1.1 GET /api/carts/{i} - 200 {took}\\r\\n".encode())
                if i == 1717:
                    out.write(b"\\r\\n".join(FAILED) + b"\\r\\n")
            """
        },
    )
    return sh(f"{PY} svc.py", root)


@case(
    "tqdm_progress_then_traceback",
    "python + tqdm (carriage-return progress)",
    clean=False,
    group=GROUP,
    decisive=["ValueError: malformed row 3120: expected 7 fields, got 6", 'etl.py", line 7, in parse'],
)
def _tqdm(root: Path) -> bytes:
    sh(f"{PY} -m pip install -q --no-cache-dir --target {root / 'tools'} tqdm==4.67.1", root)
    write(
        root,
        {
            "etl.py": """
            from tqdm import tqdm


            def parse(n):
                fields = 6 if n == 3120 else 7
                if fields != 7:
                    raise ValueError(f"malformed row {n}: expected 7 fields, got {fields}")
                return fields


            total = 0
            for n in tqdm(range(5000), mininterval=0, miniters=1, ascii=True):
                total += parse(n)
            """
        },
    )
    return sh(f"PYTHONPATH={root / 'tools'} {PY} etl.py", root)


# ---------------------------------------------------------------- data: SQL, CSV, JSON, certificates


def _db(root: Path) -> None:
    rows = ",".join(f"({i}, 'host{i:04d}.internal', {i % 17 / 100:.2f}, {i % 5}, {i % 3})" for i in range(3000))
    sql = "create table health(id integer, host text, error_rate real, failed_logins integer, warnings integer);\n"
    (root / "seed.sql").write_text(sql + f"insert into health values {rows};\n")
    sh("sqlite3 app.db < seed.sql", root)


@case("sqlite_csv_export_clean", "sqlite3 -csv", clean=True, group=GROUP, decisive=[])
def _csv(root: Path) -> bytes:
    _db(root)
    return sh("sqlite3 -csv -header app.db 'select * from health order by id'", root)


@case(
    "sqlite_unique_constraint",
    "sqlite3",
    clean=False,
    group=GROUP,
    decisive=["UNIQUE constraint failed: users.email"],
)
def _sqlite_unique(root: Path) -> bytes:
    lines = ["create table users(id integer primary key, email text unique);", ".mode list"]
    for i in range(2500):
        email = "ops@example.com" if i in (3, 1999) else f"user{i}@example.com"
        lines.append(f"insert into users(email) values ('{email}');")
        if i % 2 == 0:
            lines.append(f"select id, email from users where id = {i + 1};")
    (root / "load.sql").write_text("\n".join(lines) + "\n")
    return sh("sqlite3 users.db < load.sql", root)


@case(
    "jq_cannot_index",
    "jq",
    clean=False,
    group=GROUP,
    decisive=['Cannot index number with string "name"'],
)
def _jq(root: Path) -> bytes:
    items = [
        f'{{"id": {i}, "user": {{"name": "user{i}"}}}}' if i != 1532 else '{"id": 1532, "user": 42}'
        for i in range(2000)
    ]
    (root / "events.json").write_text("[\n" + ",\n".join(items) + "\n]\n")
    return sh("jq -r '.[] | .user.name' events.json", root)


@case(
    "openssl_verify_one_bad",
    "openssl verify",
    clean=False,
    group=GROUP,
    decisive=["error 20 at 0 depth lookup: unable to get local issuer certificate", "leaf087.pem: verification failed"],
)
def _openssl_verify(root: Path) -> bytes:
    ec = "-newkey ec -pkeyopt ec_paramgen_curve:P-256 -nodes"
    script = [
        f"openssl req -x509 {ec} -keyout ca.key -out ca.pem -subj /CN=shop-ca -days 30 2>/dev/null",
        f"openssl req -x509 {ec} -keyout rogue.key -out rogue.pem -subj /CN=rogue-ca -days 30 2>/dev/null",
        "for i in $(seq -w 0 149); do",
        f"  openssl req {ec} -keyout leaf$i.key -out leaf$i.csr -subj /CN=svc-$i 2>/dev/null",
        '  ca=ca; [ "$i" = 087 ] && ca=rogue',
        "  openssl x509 -req -in leaf$i.csr -CA $ca.pem -CAkey $ca.key -out leaf$i.pem -days 30 2>/dev/null",
        "done",
        "for i in $(seq -w 0 149); do openssl verify -CAfile ca.pem leaf$i.pem; done",
    ]
    (root / "check.sh").write_text("\n".join(script) + "\n")
    return sh("bash check.sh", root)


@case(
    "openssl_x509_text_clean",
    "openssl x509 -text",
    clean=True,
    group=GROUP,
    decisive=["Subject: CN = api.internal.example"],
)
def _openssl_text(root: Path) -> bytes:
    sh(
        "openssl req -x509 -newkey rsa:4096 -nodes -keyout k.pem -out c.pem -subj /CN=api.internal.example -days 30",
        root,
    )
    return sh("openssl x509 -in c.pem -text -noout", root)


# ---------------------------------------------------------------- listings and infrastructure


@case("du_error_named_dirs_clean", "du -ah", clean=True, group=GROUP, decisive=[])
def _du(root: Path) -> bytes:
    for d in ("errors", "failed-jobs", "fatal-crashes", "warnings", "exceptions-archive"):
        for i in range(300):
            write(root, {f"var/{d}/2024-06-{i % 28 + 1:02d}/report-{i:04d}.log": "x" * (i % 50 * 100)})
    return sh("du -ah var | sort -k2", root)


def _kustomize_tree(root: Path) -> None:
    names = []
    for i in range(120):
        name = f"svc-{i:03d}"
        names.append(f"  - {name}.yaml")
        write(
            root,
            {
                f"{name}.yaml": f"""
                apiVersion: apps/v1
                kind: Deployment
                metadata:
                  name: {name}
                spec:
                  replicas: 2
                  selector:
                    matchLabels: {{app: {name}}}
                  template:
                    metadata:
                      labels: {{app: {name}}}
                    spec:
                      containers:
                        - name: app
                          image: registry.internal/{name}:1.{i}
                          env:
                            - {{name: ERROR_REPORTING_DSN, value: "https://errors.internal/{i}"}}
                            - {{name: FAIL_FAST, value: "false"}}
                          livenessProbe:
                            httpGet: {{path: /healthz, port: 8080}}
                            failureThreshold: 3
                """
            },
        )
    (root / "kustomization.yaml").write_text("resources:\n" + "\n".join(names) + "\n")


@case("kustomize_build_clean", "kubectl kustomize", clean=True, group=GROUP, decisive=[])
def _kustomize(root: Path) -> bytes:
    _kustomize_tree(root)
    return sh("kubectl kustomize .", root)


def _terraform(root: Path, broken: bool) -> bytes:
    blocks = []
    for i in range(150):
        name = ["error-pages", "failover", "fatal-alerts"][i % 3] + f"-{i:03d}"
        blocks.append(f'resource "terraform_data" "r{i:03d}" {{\n  input = "{name}"\n}}\n')
    if broken:
        blocks.insert(117, 'resource "terraform_data" "billing" {\n  input = terraform_data.databse.id\n}\n')
    (root / "main.tf").write_text("\n".join(blocks))
    env = {"TF_IN_AUTOMATION": "1", "TF_CLI_CONFIG_FILE": "/dev/null"}
    sh("terraform init -input=false -no-color", root, env=env)
    return sh("terraform plan -input=false -no-color", root, env={**env, "TF_LOG": "INFO"} if broken else env)


@case(
    "terraform_plan_clean",
    "terraform plan",
    clean=True,
    group=GROUP,
    decisive=["Plan: 150 to add, 0 to change, 0 to destroy."],
)
def _tf_ok(root: Path) -> bytes:
    return _terraform(root, broken=False)


@case(
    "terraform_undeclared_resource",
    "terraform plan (TF_LOG=INFO)",
    clean=False,
    group=GROUP,
    decisive=["Error: Reference to undeclared resource", "on main.tf line 470"],
)
def _tf_bad(root: Path) -> bytes:
    return _terraform(root, broken=True)
