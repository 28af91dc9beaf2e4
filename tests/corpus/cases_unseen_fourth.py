"""Held-out outputs (group ``unseen-4``): a fourth batch, made to measure the engine after the fixes.

Tables (kubectl against a local stand-in API server, Flask's routes, a profile), a diff
that talks about errors, tests that log to stderr while passing, warnings without an
error, a Rust backtrace, and a missing shared library. Labels were written with each
scenario, before the engine saw the output.
"""

from __future__ import annotations

import json
import subprocess
import time
from pathlib import Path

from _harness import PY, case, sh, write

GROUP = "unseen-4"

_API = """
import json, sys
from http.server import BaseHTTPRequestHandler, HTTPServer

ROWS = json.load(open("rows.json"))
COLUMNS = ["Name", "Ready", "Status", "Restarts", "Age"]


def table():
    return {
        "kind": "Table", "apiVersion": "meta.k8s.io/v1", "metadata": {"resourceVersion": "1"},
        "columnDefinitions": [{"name": c, "type": "string", "format": "name" if c == "Name" else "",
                               "description": c, "priority": 0} for c in COLUMNS],
        "rows": [{"cells": r, "object": {"kind": "PartialObjectMetadata", "apiVersion": "meta.k8s.io/v1",
                                         "metadata": {"name": r[0], "namespace": "shop"}}} for r in ROWS],
    }


RESOURCES = {"kind": "APIResourceList", "groupVersion": "v1", "resources": [
    {"name": "pods", "singularName": "pod", "namespaced": True, "kind": "Pod",
     "verbs": ["get", "list"], "shortNames": ["po"]}]}


class Api(BaseHTTPRequestHandler):
    def do_GET(self):
        path = self.path.split("?")[0]
        if path == "/api":
            body = {"kind": "APIVersions", "versions": ["v1"], "serverAddressByClientCIDRs": []}
        elif path == "/apis":
            body = {"kind": "APIGroupList", "apiVersion": "v1", "groups": []}
        elif path == "/api/v1":
            body = RESOURCES
        elif path.endswith("/pods"):
            body = table()
        else:
            self.send_response(404)
            self.end_headers()
            return
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, *args):
        pass


HTTPServer(("127.0.0.1", int(sys.argv[1])), Api).serve_forever()
"""


@case(
    "kubectl_get_pods_one_crashloop",
    "kubectl get pods (local stand-in API server)",
    clean=False,
    group=GROUP,
    decisive=["payments-7d9f8c6b5-x2kq9", "CrashLoopBackOff"],
)
def _kubectl(root: Path) -> bytes:
    apps = ["web", "api", "worker", "cart", "search", "auth"]
    rows = [
        [
            f"{apps[i % 6]}-{i * 7919 % 99991:05x}{i % 7}c6b5-{i * 31 % 997:03x}q{i % 9}",
            "1/1",
            "Running",
            "0",
            f"{i % 20 + 1}d",
        ]
        for i in range(300)
    ]
    rows.insert(211, ["payments-7d9f8c6b5-x2kq9", "0/1", "CrashLoopBackOff", "17 (2m ago)", "3d"])
    (root / "rows.json").write_text(json.dumps(rows))
    (root / "api.py").write_text(_API)
    port = 19000 + int(time.time()) % 1000
    server = subprocess.Popen([PY, "api.py", str(port)], cwd=root)
    try:
        time.sleep(1.5)
        return sh(f"kubectl get pods -n shop --server=http://127.0.0.1:{port} --kubeconfig=/dev/null", root)
    finally:
        server.terminate()
        server.wait(timeout=30)


@case("flask_routes_clean", "flask routes", clean=True, group=GROUP, decisive=[])
def _flask(root: Path) -> bytes:
    views = ["from flask import Flask", "app = Flask(__name__)"]
    for i in range(120):
        for name in ("error_page", "failure_report", "crash_upload"):
            views.append(f"@app.get('/{name.replace('_', '-')}/{i}')\ndef {name}_{i}():\n    return '{name}'")
    (root / "app.py").write_text("\n".join(views) + "\n")
    return sh(f"{PY} -m flask --app app routes", root)


@case("git_show_fix_commit_clean", "git show", clean=True, group=GROUP, decisive=[])
def _git_show(root: Path) -> bytes:
    git = "git -c user.name=dev -c user.email=dev@example.com"
    for i in range(40):
        write(root, {f"src/h{i:02d}.py": f"def handle_{i}(x):\n    return x[{i}]\n"})
    fixtures = [{"id": i, "status": "ok", "error": None} for i in range(60)]
    (root / "fixtures.json").write_text(json.dumps(fixtures, indent=2) + "\n")
    sh(f"git init -q . && {git} add . && {git} commit -qm base", root)
    for i in range(40):
        write(
            root,
            {
                f"src/h{i:02d}.py": f"""
                def handle_{i}(x):
                    try:
                        return x[{i}]
                    except KeyError:
                        raise ValueError("missing field {i}") from None
                """
            },
        )
    fixtures = [{"id": i, "status": "failed", "error": "timeout"} if i % 10 == 3 else f for i, f in enumerate(fixtures)]
    (root / "fixtures.json").write_text(json.dumps(fixtures, indent=2) + "\n")
    sh(f"{git} commit -qam 'handlers: a missing field raises ValueError; fixtures cover failed jobs'", root)
    return sh("git show --stat -p HEAD", root)


@case(
    "node_test_clean_console_error",
    "node --test",
    clean=True,
    group=GROUP,
    decisive=["ℹ pass 300", "ℹ fail 0"],
)
def _node_stderr(root: Path) -> bytes:
    tests = ["const test = require('node:test');", "const assert = require('node:assert');"]
    for i in range(300):
        log = f"  console.error('Error: upstream 503 for cart {i} (expected by this test)');\n" if i % 50 == 7 else ""
        tests.append(f"test('retries cart {i}', () => {{\n{log}  assert.strictEqual({i}, {i});\n}});")
    (root / "retry.test.js").write_text("\n".join(tests) + "\n")
    return sh("node --test --test-reporter=spec retry.test.js", root)


@case("gcc_warnings_only_clean", "gcc -Wall -Wextra", clean=True, group=GROUP, decisive=[])
def _gcc_warn(root: Path) -> bytes:
    for i in range(60):
        write(root, {f"src/unit{i:02d}.c": f"int unit{i}(int a, int b) {{\n    int unused_{i};\n    return a;\n}}\n"})
    return sh("for f in src/*.c; do gcc -Wall -Wextra -c $f -o ${f%.c}.o || exit 1; done; echo built 60 objects", root)


@case(
    "rust_panic_backtrace",
    "cargo run (RUST_BACKTRACE=1)",
    clean=False,
    group=GROUP,
    decisive=["panicked at src/main.rs:", "index out of bounds: the len is 3 but the index is 7"],
)
def _rust_panic(root: Path) -> bytes:
    (root / "Cargo.toml").write_text('[package]\nname = "meter"\nversion = "0.1.0"\nedition = "2021"\n')
    write(
        root,
        {
            "src/main.rs": """
            fn lookup(v: &[u32], i: usize) -> u32 {
                v[i]
            }

            fn main() {
                let v = vec![1, 2, 3];
                for n in 0..2000 {
                    println!("reading meter {} -> {}", n, lookup(&v, n % 3));
                }
                println!("{}", lookup(&v, std::env::args().count() + 6));
            }
            """
        },
    )
    env = {"CARGO_TARGET_DIR": str(root / "target"), "RUST_BACKTRACE": "1"}
    return sh("cargo run --offline --color never -q", root, env=env)


@case(
    "ldd_not_found",
    "ldd",
    clean=False,
    group=GROUP,
    decisive=["libmeter.so => not found"],
)
def _ldd(root: Path) -> bytes:
    write(
        root,
        {
            "meter.c": "int meter(void) { return 7; }\n",
            "app.c": "int meter(void);\nint main(void) { return meter(); }\n",
        },
    )
    sh("gcc -shared -fPIC -o libmeter.so meter.c && gcc -o app app.c -L. -lmeter && rm libmeter.so", root)
    return sh(
        "ldd /usr/bin/git /usr/bin/curl /usr/bin/ssh /usr/bin/python3 ./app /usr/bin/openssl /usr/bin/sqlite3 2>&1",
        root,
    )


@case("cprofile_clean", "python -m cProfile", clean=True, group=GROUP, decisive=[])
def _cprofile(root: Path) -> bytes:
    write(
        root,
        {
            "work.py": """
            import json


            class RetryError(Exception):
                pass


            def raise_error(n):
                raise RetryError(n)


            def handle_failure(n):
                try:
                    raise_error(n)
                except RetryError:
                    return json.dumps({"error": n})


            for n in range(20000):
                handle_failure(n)
            """
        },
    )
    return sh(f"{PY} -m cProfile -s ncalls work.py", root)


@case(
    "pytest_tb_line",
    "pytest --tb=line",
    clean=False,
    group=GROUP,
    decisive=["test_ledger.py:2406:", "assert 'EUR' == 'USD'", "1 failed, 1999 passed"],
)
def _pytest_tb_line(root: Path) -> bytes:
    tests = [f"def test_l{i:04d}():\n    assert {i} >= 0\n" for i in range(2000)]
    tests[801] = "def test_currency():\n    currency = 'EUR'\n    assert currency == 'USD'\n"
    (root / "test_ledger.py").write_text("\n".join(tests))
    return sh(f"{PY} -m pytest -p no:cacheprovider -v --tb=line .", root)
