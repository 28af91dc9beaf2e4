"""Held-out outputs (group ``unseen-46``): a forty-sixth batch, chained commands in one tool call as coding agents
issue them: one shell line (or a here-doc script, a ``bash -x`` trace, a Makefile whose recipes call scripts) that
runs several steps, where a step early or in the middle fails and the later steps print a lot or succeed, so the
decisive line is buried and the final exit status is often 0.

Failing runs: ``make build && ./run_migrations.sh && pytest -v; echo exit=$?`` where the migration script does not
check ``sqlite3``'s status, so migration 0014's ``no such column`` is followed by more migrations and 300 passing
tests; ``for d in services/*; do (cd $d && go vet && go test -v); done`` over 12 Go modules where the ``ledger``
module's test fails in the middle; ``bash -x deploy.sh staging`` (``set -euo pipefail`` with ERR and EXIT traps)
where the health check of ``payments`` gets a 503 from a local server and the EXIT trap then traces a long rollback;
``cd svc && npm ci && npm test; npm run lint`` where one ``node --test`` TAP test fails and ESLint then prints 23
warnings; a tox-like shell loop of ``python -m unittest discover -v`` over four suites where the ``contract`` suite
fails and the later suites log retry warnings; ``make -k all | tee build.log`` over 14 C libraries built by sub-makes
with ``-Wall -Wextra`` warnings, where one file does not compile; ``make ci`` whose ``test`` recipe pipes pytest into
``tee`` (the failure does not stop make) before a ``tar -v`` packaging step; and a here-doc loop of ``curl`` POSTs to
a local invoice service through ``jq`` where one of 160 invoices gets a 422. Clean runs named after errors, retries
and failures: ``make all && make check`` of a C ``retry_errors`` library whose tests log simulated failures, the Go
loop over ``errors``, ``exceptions``, ``retry`` and ``failedjobs`` modules whose tests log failed attempts, ``npm ci
&& npm test && npm run build`` of a Node service with ``retries failed webhook deliveries`` tests, ``bash -x`` of a
SQLite backup script over ``failed_jobs`` and ``error_events`` tables, and a here-doc Python export piped through
``jq`` and ``sqlite3`` that lists failed payments. Labels were written with each scenario, before the engine saw the
output. Needs Python with pytest, Go, gcc, make, sqlite3, jq, curl, tar and Node.js with npm (Debian ``golang-go``,
``gcc``, ``make``, ``sqlite3``, ``jq``, ``curl``, ``nodejs``, ``npm``), with ESLint 8.57.0 from the npm registry.
"""

from __future__ import annotations

import json
import random
import subprocess
import time
from pathlib import Path

from _harness import PY, case, scrub, sh, substitute, write

GROUP = "unseen-46"

_AREAS = ["audit", "billing", "cart", "catalog", "coupons", "invoice", "ledger", "orders", "pricing", "refunds"]
_AREAS += ["search", "session", "shipping", "tax"]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, ports, ids."""
    return substitute(
        scrub(out, root),
        (r"\((\d+\.\d+)s\)", "(0.00s)"),
        (r"\t\d+\.\d+s$", "\t0.005s"),
        (r"\t\(cached\)$", "\t0.005s"),
        (r"duration_ms: \d+(\.\d+)?", "duration_ms: 1.0"),
        (r"# duration_ms \d+(\.\d+)?", "# duration_ms 100.0"),
        (r" in \d+(\.\d+)?m?s\b", " in 0.50s"),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:8080"),
        (r"PORT=\d+", "PORT=8080"),
        (r"/tmp/go-build\d+", "/tmp/go-build1000"),
        (r"(Ran \d+ tests?) in \d+\.\d+s", r"\1 in 0.050s"),
        (r"npm-cache/_logs/[^ ]+", "npm-cache/_logs/debug-0.log"),
    )


# ---------------------------------------------------------------- make && migrations && pytest; echo exit=$?


@case(
    "u46_make_migrate_pytest_echo_exit",
    "make build && ./run_migrations.sh && pytest -v; echo exit=$?",
    clean=False,
    group=GROUP,
    decisive=["no such column: refund_id", "==> applying migrations/0014_ledger_refund_link.sql"],
)
def _make_migrate(root: Path) -> bytes:
    files = {
        "Makefile": """
            build: bin/checksum
            \tpython -m compileall -f app

            bin/checksum: tools/checksum.c
            \tmkdir -p bin
            \tgcc -O2 -Wall -o bin/checksum tools/checksum.c
        """,
        "tools/checksum.c": """
            #include <stdio.h>
            int main(int argc, char **argv) {
                unsigned long h = 5381; int c;
                (void)argc; (void)argv;
                while ((c = getchar()) != EOF) h = h * 33 + (unsigned long)c;
                printf("%lu\\n", h);
                return 0;
            }
        """,
        "run_migrations.sh": """
            #!/bin/sh
            # Applies every migration in order and records it.
            db=${DB:-app.db}
            sqlite3 "$db" "CREATE TABLE IF NOT EXISTS schema_migrations(version TEXT PRIMARY KEY)"
            for f in migrations/*.sql; do
              echo "==> applying $f"
              sqlite3 -bail "$db" < "$f"
              v=$(basename "$f" .sql)
              sqlite3 "$db" "INSERT INTO schema_migrations(version) VALUES ('$v')"
              echo "    recorded $v in schema_migrations"
            done
            echo "migrations complete: $(sqlite3 "$db" 'select count(*) from schema_migrations') versions recorded"
        """,
        "app/__init__.py": "",
        "tests/__init__.py": "",
    }
    migrations = []
    for i, area in enumerate([*_AREAS, "webhooks", "exports", "retry_queue", "errors_log", "reports", "payouts"]):
        n = i + 1
        name = f"{n:04d}_create_{area}"
        body = f"-- {area} table\nCREATE TABLE {area} (id INTEGER PRIMARY KEY, ref TEXT NOT NULL, cents INTEGER);\n"
        body += f"CREATE INDEX idx_{area}_ref ON {area}(ref);\n"
        body += "".join(f"INSERT INTO {area}(ref, cents) VALUES ('{area}-{k}', {k * 137 % 5000});\n" for k in range(5))
        if n == 7:
            body = (
                "-- ledger entries\n"
                "CREATE TABLE ledger_entries (id INTEGER PRIMARY KEY, account TEXT, cents INTEGER);\n" + body
            )
        if n == 14:
            name = "0014_ledger_refund_link"
            body = (
                "-- link ledger entries to refunds\n"
                "ALTER TABLE ledger_entries ADD COLUMN refund_ref TEXT;\n"
                "CREATE INDEX idx_ledger_refund ON ledger_entries(refund_id);\n"
            )
        migrations.append(name)
        files[f"migrations/{name}.sql"] = body
    for area in _AREAS:
        files[f"app/{area}.py"] = f'''
            """The {area} service."""


            def total(items):
                return sum(int(i) for i in items)


            def label(cents):
                return f"{area}:{{cents / 100:.2f}}"
        '''
        tests = [f"from app import {area}\n"]
        for k in range(22):
            tests.append(
                f"\ndef test_{area}_total_{k}():\n    assert {area}.total([{k}, {k + 1}]) == {2 * k + 1}\n"
                if k % 2
                else f"\ndef test_{area}_label_{k}():\n    assert {area}.label({k * 100}) == '{area}:{k}.00'\n"
            )
        files[f"tests/test_{area}.py"] = "".join(tests)
    write(root, files)
    (root / "run_migrations.sh").chmod(0o755)
    cmd = "make build && ./run_migrations.sh && python -m pytest -v -p no:cacheprovider tests; echo exit=$?"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- Go: for d in services/*; do (...); done


def _go_env(root: Path) -> dict[str, str]:
    return {
        "HOME": str(root / "home"),
        "GOPATH": str(root / "gopath"),
        "GOCACHE": str(root / "gocache"),
        "GOPROXY": "off",
        "GOSUMDB": "off",
        "GOTOOLCHAIN": "local",
        "GOFLAGS": "-mod=mod",
    }


def _go_service(root: Path, name: str, *, broken: bool = False, logs: bool = False) -> None:
    pkg = name.replace("-", "")
    code = f"package {pkg}\n\n// Weight scores an amount for the {name} service.\nfunc Weight(cents int) int {{\n"
    code += "\treturn cents%97 + len(Name)\n}\n\n"
    code += f'// Name is the service name.\nconst Name = "{name}"\n\n'
    code += "// Balance is the ledger effect of a posting.\nfunc Balance(kind string, cents int) int {\n"
    code += '\tswitch kind {\n\tcase "charge":\n\t\treturn cents\n'
    code += '\tcase "refund_reversal":\n\t\treturn ' + ("-cents" if broken else "cents") + "\n"
    code += '\tcase "refund":\n\t\treturn -cents\n\t}\n\treturn 0\n}\n\n'
    code += "// Attempt runs op until it succeeds or tries runs out; it returns the attempts used.\n"
    code += "func Attempt(tries int, op func(int) error, onFail func(int, error)) int {\n"
    code += "\tfor i := 1; i <= tries; i++ {\n\t\tif err := op(i); err == nil {\n\t\t\treturn i\n\t\t} else {\n"
    code += "\t\t\tonFail(i, err)\n\t\t}\n\t}\n\treturn tries\n}\n"
    test = f'package {pkg}\n\nimport (\n\t"errors"\n\t"fmt"\n\t"testing"\n)\n\n'
    test += "func TestWeight(t *testing.T) {\n\tfor _, c := range []int{"
    test += ", ".join(str(k * 131) for k in range(9)) + "} {\n"
    test += '\t\tt.Run(fmt.Sprintf("amount_%d", c), func(t *testing.T) {\n'
    test += "\t\t\tif got, want := Weight(c), c%97+len(Name); got != want {\n"
    test += '\t\t\t\tt.Errorf("Weight(%d) = %d, want %d", c, got, want)\n\t\t\t}\n\t\t})\n\t}\n}\n\n'
    test += "func TestPostingBalances(t *testing.T) {\n"
    test += '\tfor _, kind := range []string{"charge", "refund", "refund_reversal", "adjustment"} {\n'
    test += "\t\tkind := kind\n\t\tt.Run(kind, func(t *testing.T) {\n"
    test += '\t\t\twant := map[string]int{"charge": 150, "refund": -150, "refund_reversal": 150}[kind]\n'
    test += "\t\t\tif got := Balance(kind, 150); got != want {\n"
    test += '\t\t\t\tt.Errorf("balance after %s = %d, want %d", kind, got, want)\n\t\t\t}\n\t\t})\n\t}\n}\n\n'
    test += "func TestAttempt(t *testing.T) {\n\tfor tries := 1; tries <= 6; tries++ {\n"
    test += '\t\ttries := tries\n\t\tt.Run(fmt.Sprintf("tries_%d", tries), func(t *testing.T) {\n'
    test += "\t\t\tgot := Attempt(tries, func(i int) error {\n\t\t\t\tif i < tries {\n"
    test += '\t\t\t\t\treturn errors.New("connection reset by peer")\n\t\t\t\t}\n\t\t\t\treturn nil\n'
    test += "\t\t\t}, func(i int, err error) {\n"
    test += '\t\t\t\tt.Logf("attempt %d failed: %v (will retry)", i, err)\n' if logs else ""
    test += "\t\t\t})\n\t\t\tif got != tries {\n"
    test += '\t\t\t\tt.Errorf("Attempt used %d tries, want %d", got, tries)\n\t\t\t}\n\t\t})\n\t}\n}\n'
    write(
        root,
        {
            f"services/{name}/go.mod": f"module example.com/{pkg}\n\ngo 1.19\n",
            f"services/{name}/{pkg}.go": code,
            f"services/{name}/{pkg}_test.go": test,
        },
    )


_GO_LOOP = 'for d in services/*; do echo "### $d"; (cd "$d" && go vet ./... && go test -v -count=1 ./...); done'


@case(
    "u46_go_services_loop_ledger_fail",
    _GO_LOOP,
    clean=False,
    group=GROUP,
    decisive=["balance after refund_reversal = -150, want 150", "FAIL\texample.com/ledger"],
)
def _go_loop_fail(root: Path) -> bytes:
    names = ["audit", "billing", "cart", "catalog", "coupons", "invoice", "ledger", "orders", "pricing"]
    names += ["search", "shipping", "tax"]
    for name in names:
        _go_service(root, name, broken=name == "ledger")
    return _settle(sh(_GO_LOOP, root, env=_go_env(root)), root)


@case(
    "u46_go_services_loop_errors_retry_clean",
    _GO_LOOP,
    clean=True,
    group=GROUP,
    decisive=["ok  \texample.com/failedjobs\t", "ok  \texample.com/retry\t"],
)
def _go_loop_clean(root: Path) -> bytes:
    for name in ["audit", "errors", "exceptions", "failed-jobs", "refunds", "retry", "session", "webhooks"]:
        _go_service(root, name, logs=True)
    return _settle(sh(_GO_LOOP, root, env=_go_env(root)), root)


# ---------------------------------------------------------------- local HTTP servers


_SERVER = """
import json, sys, http.server

INVOICES = []


class Handler(http.server.BaseHTTPRequestHandler):
    def reply(self, code, payload):
        body = json.dumps(payload).encode()
        self.send_response(code)
        self.send_header("content-type", "application/json")
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_GET(self):
        if self.path.startswith("/health/"):
            svc = self.path.rsplit("/", 1)[1]
            if svc == "payments":
                return self.reply(503, {"service": svc, "status": "unavailable", "reason": "db pool exhausted"})
            return self.reply(200, {"service": svc, "status": "ok", "version": "1.42.0"})
        if self.path == "/invoices/summary":
            by = {}
            for inv in INVOICES:
                row = by.setdefault(inv["customer"], {"customer": inv["customer"], "invoices": 0, "total_cents": 0,
                                                      "lines": 0, "max_cents": 0})
                row["invoices"] += 1
                row["total_cents"] += inv["total_cents"]
                row["lines"] += inv["lines"]
                row["max_cents"] = max(row["max_cents"], inv["total_cents"])
            rows = [by[k] for k in sorted(by)]
            return self.reply(200, {"count": len(INVOICES), "customers": rows})
        self.reply(404, {"error": "not found"})

    def do_POST(self):
        data = json.loads(self.rfile.read(int(self.headers["content-length"])))
        for n, line in enumerate(data["lines"], 1):
            if line["amount"] < 0:
                detail = f"invoice {data['number']}: line {n} amount {line['amount']} must be >= 0"
                return self.reply(422, {"error": "validation failed", "detail": detail})
        total = sum(line["amount"] * line["qty"] for line in data["lines"])
        inv = {"id": len(INVOICES) + 1, "number": data["number"], "customer": data["customer"],
               "total_cents": total, "lines": len(data["lines"]), "status": "created"}
        INVOICES.append(inv)
        self.reply(201, inv)

    def log_message(self, *args):
        pass


srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
with open(".port.tmp", "w") as f:
    f.write(str(srv.server_address[1]))
import os
os.rename(".port.tmp", ".port")
srv.serve_forever()
"""


def _with_server(root: Path, cmd: str) -> bytes:
    (root / "server.py").write_text(_SERVER)
    proc = subprocess.Popen([PY, "server.py"], cwd=root, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(100):
            if (root / ".port").exists():
                break
            time.sleep(0.1)
        return sh(cmd, root)
    finally:
        proc.terminate()
        proc.wait()


@case(
    "u46_bash_x_deploy_trap_rollback",
    "bash -x ./deploy.sh staging",
    clean=False,
    group=GROUP,
    decisive=["curl: (22) The requested URL returned error: 503", "deploy.sh: step healthcheck failed at line"],
)
def _deploy(root: Path) -> bytes:
    services = ["auth", "billing", "cart", "catalog", "orders", "payments", "search", "shipping", "tax", "webhooks"]
    files = {
        "deploy.sh": """
            #!/usr/bin/env bash
            set -euo pipefail
            ENV=${1:-staging}
            PORT=$(cat .port)
            BASE=http://127.0.0.1:$PORT
            RELEASE=releases/r42
            STEP=init

            on_err() {
              printf '%s: step %s failed at line %s (exit %s)\\n' deploy.sh "$STEP" "$1" "$2" >&2
            }

            cleanup() {
              local rc=$?
              if [ "$rc" -ne 0 ]; then
                STEP=rollback
                echo "rolling back $ENV to releases/r41"
                for f in releases/r41/*; do
                  install -m 0644 "$f" "current/$(basename "$f")"
                done
                sqlite3 app.db "UPDATE deploys SET state = 'rolled_back' WHERE release = 'r42'"
                sqlite3 app.db "SELECT release, state FROM deploys ORDER BY release"
              fi
              rm -rf build/tmp
              echo "deploy.sh finished with status $rc"
            }

            trap 'on_err $LINENO $?' ERR
            trap cleanup EXIT

            STEP=build
            mkdir -p build/tmp "$RELEASE" current
            for src in src/*.py; do
              python -m py_compile "$src"
              cp "$src" "build/$(basename "$src")"
            done
            sha256sum build/*.py > build/SHA256SUMS

            STEP=upload
            for f in build/*.py build/SHA256SUMS; do
              install -m 0644 "$f" "$RELEASE/$(basename "$f")"
            done

            STEP=migrate
            for m in migrations/*.sql; do
              sqlite3 -bail app.db < "$m"
            done
            sqlite3 app.db "INSERT INTO deploys(release, state) VALUES ('r42', 'migrated')"

            STEP=healthcheck
            for svc in SERVICES; do
              curl -fsS "$BASE/health/$svc"
              echo
            done

            STEP=switch
            ln -sfn "$RELEASE" live
            echo "deployed r42 to $ENV"
        """.replace("SERVICES", " ".join(services)),
        "migrations/0001_deploys.sql": "CREATE TABLE IF NOT EXISTS deploys(release TEXT PRIMARY KEY, state TEXT);\n"
        "INSERT OR IGNORE INTO deploys VALUES ('r41', 'live');\n",
    }
    for i, svc in enumerate(services):
        for part in ("api", "models", "tasks", "views", "schemas", "jobs"):
            files[f"src/{svc}_{part}.py"] = (
                f'"""{svc} {part}."""\n\nVERSION = "1.42.{i}"\n\n\ndef ping():\n    return "{svc}"\n'
            )
            files[f"releases/r41/{svc}_{part}.py"] = f'"""{svc} {part}."""\n\nVERSION = "1.41.{i}"\n'
    for k in range(2, 9):
        files[f"migrations/{k:04d}_{_AREAS[k]}.sql"] = (
            f"CREATE TABLE IF NOT EXISTS {_AREAS[k]}(id INTEGER PRIMARY KEY, ref TEXT);\n"
        )
    write(root, files)
    (root / "deploy.sh").chmod(0o755)
    return _settle(_with_server(root, "bash -x ./deploy.sh staging"), root)


def _invoice_payloads(root: Path) -> None:
    rnd = random.Random(46)
    for n in range(1, 161):
        lines = [
            {"sku": f"SKU-{rnd.randrange(1000, 9999)}", "qty": rnd.randrange(1, 5), "amount": rnd.randrange(100, 9000)}
            for _ in range(rnd.randrange(2, 6))
        ]
        if n == 97:
            lines[2]["amount"] = -1250
        payload = {"number": n, "customer": f"cust-{rnd.randrange(1, 31):03d}", "currency": "EUR", "lines": lines}
        (root / "payloads").mkdir(exist_ok=True)
        (root / "payloads" / f"invoice_{n:03d}.json").write_text(json.dumps(payload))


_POST_LOOP = """bash <<'EOF'
PORT=$(cat .port)
for f in payloads/invoice_*.json; do
  code=$(curl -s -o resp.json -w '%{http_code}' -X POST -H 'content-type: application/json' \\
    --data @"$f" "http://127.0.0.1:$PORT/invoices")
  echo "POST $(basename "$f" .json) -> $code $(jq -c . resp.json)"
done
curl -s "http://127.0.0.1:$PORT/invoices/summary" | jq .
EOF"""


@case(
    "u46_heredoc_curl_post_loop_422",
    "bash <<'EOF' (curl POST loop | jq)",
    clean=False,
    group=GROUP,
    decisive=["POST invoice_097 -> 422", "invoice 97: line 3 amount -1250 must be >= 0"],
)
def _post_loop(root: Path) -> bytes:
    _invoice_payloads(root)
    return _settle(_with_server(root, _POST_LOOP), root)


# ---------------------------------------------------------------- npm ci && npm test; npm run lint


_ESLINTRC = {
    "root": True,
    "env": {"node": True, "es2022": True},
    "parserOptions": {"ecmaVersion": 2022, "sourceType": "commonjs"},
    "extends": "eslint:recommended",
    "rules": {"no-unused-vars": "warn", "eqeqeq": "warn", "prefer-const": "warn"},
}


def _node_service(root: Path, names: list[str], *, broken: str = "", noisy: bool = False) -> None:
    files: dict[str, str] = {}
    for i, name in enumerate(names):
        ident = name.replace("-", "_")
        src = f"'use strict';\n\nconst SERVICE = '{name}';\n"
        src += "let unusedCounter = 0;\n" if i % 2 == 0 else ""
        src += "\nfunction roundHalfCents(cents) {\n"
        src += "  return Math.floor(cents / 100);\n" if name == broken else "  return Math.round(cents / 100);\n"
        src += "}\n\nfunction label(cents) {\n"
        src += "  if (cents == null) return SERVICE + ':none';\n" if i % 3 == 0 else ""
        src += "  return `${SERVICE}:${(cents / 100).toFixed(2)}`;\n}\n\n"
        src += "async function deliver(attempts, send) {\n  for (let i = 1; i <= attempts; i++) {\n"
        src += "    try {\n      return await send(i);\n    } catch (err) {\n"
        src += (
            "      console.log(`[${SERVICE}] delivery failed (${err.code}), retry ${i}/${attempts}`);\n"
            if noisy
            else "      // try the next attempt\n"
        )
        src += "    }\n  }\n  throw new Error(`${SERVICE}: gave up after ${attempts} attempts`);\n}\n\n"
        src += "module.exports = { roundHalfCents, label, deliver };\n"
        files[f"src/{name}.js"] = src
        tests = "'use strict';\n\nconst test = require('node:test');\nconst assert = require('node:assert');\n"
        tests += f"const {{ roundHalfCents, label, deliver }} = require('../src/{name}');\n"
        tests += "const unusedFixture = { id: 1 };\n" if i % 4 == 1 else ""
        tests += "\ntest('rounds half cents up', () => {\n  assert.strictEqual(roundHalfCents(250), 3);\n});\n"
        for k in range(10):
            tests += (
                f"\ntest('labels {k * 125} cents', () => {{\n"
                f"  assert.strictEqual(label({k * 125}), '{name}:{k * 125 / 100:.2f}');\n}});\n"
            )
        for k in (2, 3, 4):
            tests += (
                f"\ntest('retries failed {ident} deliveries ({k} attempts)', async () => {{\n"
                f"  const got = await deliver({k}, async (i) => {{\n"
                f"    if (i < {k}) {{ const e = new Error('reset'); e.code = 'ECONNRESET'; throw e; }}\n"
                "    return i;\n  });\n"
                f"  assert.strictEqual(got, {k});\n}});\n"
            )
        tests += (
            "\ntest('raises after exhausting retries', async () => {\n"
            "  await assert.rejects(deliver(2, async () => {"
            " const e = new Error('x'); e.code = 'ETIMEDOUT'; throw e; }),"
            " /gave up after 2 attempts/);\n});\n"
        )
        files[f"test/{name}.test.js"] = tests
    write(root / "svc", files)
    (root / "svc" / ".eslintrc.json").write_text(json.dumps(_ESLINTRC, indent=2) + "\n")


def _npm_env(root: Path) -> dict[str, str]:
    return {
        "HOME": str(root / "home"),
        "npm_config_cache": "/tmp/u46-npm-cache",
        "npm_config_update_notifier": "false",
        "npm_config_fund": "false",
        "npm_config_audit": "false",
        "npm_config_loglevel": "notice",
    }


def _package(root: Path, scripts: dict[str, str], dev: dict[str, str]) -> None:
    pkg = {"name": "orders-svc", "version": "1.4.0", "private": True, "scripts": scripts, "devDependencies": dev}
    (root / "svc" / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    sh("npm install --package-lock-only --ignore-scripts --prefer-offline", root / "svc", env=_npm_env(root))


@case(
    "u46_npm_ci_test_fail_then_lint",
    "cd svc && npm ci && npm test; npm run lint",
    clean=False,
    group=GROUP,
    decisive=["2 !== 3", "location: '/tmp/work/svc/test/refunds.test.js:", "# fail 1"],
)
def _npm_fail(root: Path) -> bytes:
    _node_service(root, _AREAS, broken="refunds")
    _package(
        root,
        {"test": "node --test --test-reporter=tap", "lint": "eslint --max-warnings 100 src test"},
        {"eslint": "8.57.0"},
    )
    cmd = "cd svc && npm ci --prefer-offline && npm test; npm run lint"
    return _settle(sh(cmd, root, env=_npm_env(root)), root)


@case(
    "u46_npm_ci_test_build_retry_clean",
    "cd svc && npm ci && npm test && npm run build",
    clean=True,
    group=GROUP,
    decisive=["# fail 0", "build complete: 16 modules"],
)
def _npm_clean(root: Path) -> bytes:
    names = ["errors", "exceptions", "failed-jobs", "retry", "webhooks", "audit", "billing", "cart", "invoice"]
    names += ["ledger", "orders", "refunds", "session", "shipping", "tax", "export"]
    _node_service(root, names, noisy=True)
    write(
        root / "svc",
        {
            "scripts/build.js": """
                'use strict';
                const fs = require('node:fs');
                const path = require('node:path');
                fs.mkdirSync('dist', { recursive: true });
                const mods = fs.readdirSync('src').filter((f) => f.endsWith('.js')).sort();
                for (const m of mods) {
                  const text = fs.readFileSync(path.join('src', m), 'utf8');
                  const out = text.replace(/^\\s*\\/\\/.*$/gm, '');
                  fs.writeFileSync(path.join('dist', m), out);
                  console.log(`  dist/${m.padEnd(18)} ${(out.length / 1024).toFixed(2)} kB`);
                }
                console.log(`build complete: ${mods.length} modules`);
            """
        },
    )
    _package(root, {"test": "node --test --test-reporter=tap", "build": "node scripts/build.js"}, {})
    cmd = "cd svc && npm ci --prefer-offline && npm test && npm run build"
    return _settle(sh(cmd, root, env=_npm_env(root)), root)


# ---------------------------------------------------------------- tox-like shell loop of unittest suites


@case(
    "u46_unittest_suite_loop_contract_fail",
    "for suite in unit contract integration e2e; do python -m unittest discover -v ...; done",
    clean=False,
    group=GROUP,
    decisive=["FAIL: test_backoff_caps_at_thirty_seconds", "AssertionError: 64 != 30", "FAILED (failures=1)"],
)
def _unittest_loop(root: Path) -> bytes:
    files = {
        "shop/__init__.py": "",
        "shop/retry.py": """
            import logging

            log = logging.getLogger("shop.retry")


            def backoff(attempt, cap=None):
                delay = 2 ** (attempt - 1)
                return delay if cap is None else min(delay, cap)


            def call(op, tries=3):
                for i in range(1, tries + 1):
                    try:
                        return op(i)
                    except ConnectionError as exc:
                        log.warning("call failed (%s), retry %d/%d after %ds backoff", exc, i, tries, backoff(i))
                raise ConnectionError("gave up")
        """,
        "tests/__init__.py": "",
    }
    suites = {"unit": _AREAS[:6], "contract": _AREAS[6:11], "integration": _AREAS[8:14], "e2e": _AREAS[:7]}
    for suite, areas in suites.items():
        files[f"tests/{suite}/__init__.py"] = ""
        for area in areas + (["retry_policy"] if suite == "contract" else []):
            cls = "".join(p.capitalize() for p in area.split("_")) + "Tests"
            body = "import logging\nimport unittest\n\nfrom shop.retry import backoff, call\n\n"
            body += "logging.basicConfig(format='%(levelname)s:%(name)s:%(message)s')\n\n\n"
            body += f"class {cls}(unittest.TestCase):\n"
            for k in range(24):
                body += f"    def test_{area}_backoff_{k}(self):\n"
                body += f"        self.assertEqual(backoff({k % 6 + 1}), {2 ** (k % 6)})\n\n"
            if suite in ("integration", "e2e"):
                for k in range(4):
                    body += f"    def test_{area}_flaky_upstream_{k}(self):\n"
                    body += "        def op(i):\n"
                    body += "            if i < 3:\n"
                    body += f"                raise ConnectionError('{area} upstream reset')\n"
                    body += "            return i\n"
                    body += "        self.assertEqual(call(op), 3)\n\n"
            if area == "retry_policy":
                body += "    def test_backoff_caps_at_thirty_seconds(self):\n"
                body += "        self.assertEqual(backoff(7), 30)\n\n"
            files[f"tests/{suite}/test_{area}.py"] = body
    write(root, files)
    cmd = (
        'for suite in unit contract integration e2e; do echo "=== $suite"; '
        'python -m unittest discover -v -s tests/$suite -t . 2>&1; done; echo "all suites finished"'
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- make -k over sub-makes | tee


@case(
    "u46_make_k_submake_tee_c_error",
    "make -k all 2>&1 | tee build.log; grep -c warning: build.log",
    clean=False,
    group=GROUP,
    decisive=[
        "has no member named ‘amount_cents’",
        "posting.o] Error 1",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _make_k(root: Path) -> bytes:
    subdirs = [f"lib/{a}" for a in _AREAS]
    files = {
        "Makefile": f"""
            SUBDIRS = {" ".join(subdirs)}

            all: $(SUBDIRS)

            $(SUBDIRS):
            \t$(MAKE) -C $@

            .PHONY: all $(SUBDIRS)
        """,
        "include/entry.h": """
            #ifndef ENTRY_H
            #define ENTRY_H
            struct entry { const char *account; long amount; int kind; };
            struct ctx { int verbose; const char *service; };
            #endif
        """,
    }
    for i, area in enumerate(_AREAS):
        parts = ["core", "posting", "format", "store", "report"]
        files[f"lib/{area}/Makefile"] = f"""
            CFLAGS = -O2 -Wall -Wextra -std=c11 -I../../include
            OBJS = {" ".join(p + ".o" for p in parts)}

            lib{area}.a: $(OBJS)
            \tar rcs $@ $^

            %.o: %.c
            \t$(CC) $(CFLAGS) -c $< -o $@
        """
        for j, part in enumerate(parts):
            field = "amount_cents" if (area == "ledger" and part == "posting") else "amount"
            unused = (i + j) % 2 == 0
            src = '#include "entry.h"\n\n'
            src += f"long {area}_{part}_total(const struct entry *e, int n, struct ctx *c)\n{{\n"
            src += "    long t = 0;\n" + ("    int spare;\n" if (i + j) % 3 == 0 else "")
            src += f"    for (int k = 0; k < n; k++)\n        t += e[k].{field};\n"
            src += "    return t;\n}\n" if unused else "    return c->verbose ? t : t + 0;\n}\n"
            files[f"lib/{area}/{part}.c"] = src
    write(root, files)
    cmd = "make -k all 2>&1 | tee build.log; grep -c warning: build.log"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- make ci: test | tee, then package


@case(
    "u46_make_ci_pytest_piped_tee_then_package",
    "make ci (lint, test | tee, package)",
    clean=False,
    group=GROUP,
    decisive=["FAILED tests/test_invoice_totals.py::test_discount_applied_once", "1 failed, 239 passed"],
)
def _make_ci(root: Path) -> bytes:
    files = {
        "Makefile": """
            VERSION = 1.4.0

            ci: lint test package

            lint:
            \tpython -m compileall -f app

            test:
            \tmkdir -p reports
            \t./scripts/run_tests.sh | tee reports/test.log

            package:
            \t./scripts/package.sh $(VERSION)

            .PHONY: ci lint test package
        """,
        "scripts/run_tests.sh": """
            #!/bin/sh
            exec python -m pytest -q -p no:cacheprovider tests "$@"
        """,
        "scripts/package.sh": """
            #!/bin/sh
            set -e
            version=$1
            mkdir -p dist
            tar --sort=name --mtime=@1700000000 --owner=0 --group=0 --numeric-owner -cvf dist/shop-$version.tar app assets
            gzip -n -f dist/shop-$version.tar
            echo "package: dist/shop-$version.tar.gz ($(tar -tzf dist/shop-$version.tar.gz | wc -l) entries)"
        """,  # noqa: E501
        "app/__init__.py": "",
        "app/invoice.py": """
            def total(cents, discount_pct=0, apply_twice=False):
                out = cents * (100 - discount_pct) // 100
                return out
        """,
        "tests/__init__.py": "",
        "tests/test_invoice_totals.py": """
            from app.invoice import total


            def test_discount_applied_once():
                assert total(2000, 10) == 1620


            def test_no_discount():
                assert total(2000) == 2000
        """,
    }
    for k, area in enumerate(_AREAS):
        for sub in ("api", "models", "tasks", "views"):
            files[f"app/{area}_{sub}.py"] = f'"""{area} {sub}."""\n\n\ndef ping():\n    return "{area}-{sub}"\n'
        for n in range(30):
            files[f"assets/{area}/icon_{n:02d}.svg"] = f'<svg id="{area}-{n}" xmlns="http://www.w3.org/2000/svg"/>\n'
        tests = "".join(f"\ndef test_{area}_{n}():\n    assert {n} + {k} == {n + k}\n" for n in range(17))
        files[f"tests/test_{area}.py"] = tests
    write(root, files)
    for s in ("run_tests.sh", "package.sh"):
        (root / "scripts" / s).chmod(0o755)
    return _settle(sh("make ci", root), root)


# ---------------------------------------------------------------- clean: make all && make check (C)


@case(
    "u46_make_check_c_retry_errors_clean",
    "make all && make check; echo exit=$?",
    clean=True,
    group=GROUP,
    decisive=["check: 6 suites, 240 tests, 0 failed", "exit=0"],
)
def _make_check(root: Path) -> bytes:
    suites = ["retry_errors", "failed_jobs", "exceptions", "webhooks_retry", "refunds", "ledger"]
    files = {
        "Makefile": f"""
            CFLAGS = -O2 -Wall -Wextra -std=c11 -Iinclude
            SUITES = {" ".join(suites)}
            TESTS = $(addprefix build/test_,$(SUITES))

            all: build/libshop.a

            build/libshop.a: build/retry.o build/errors.o
            \tar rcs $@ $^

            build/%.o: src/%.c include/shop.h
            \t@mkdir -p build
            \t$(CC) $(CFLAGS) -c $< -o $@

            build/test_%: tests/test_%.c build/libshop.a
            \t$(CC) $(CFLAGS) $< build/libshop.a -o $@

            check: $(TESTS)
            \t@for t in $(TESTS); do echo "== $$t"; ./$$t || exit 1; done
            \t@echo "check: $(words $(SUITES)) suites, $$(cat build/test_*.count | awk '{{ s += $$1 }} END {{ print s }}') tests, 0 failed"

            .PHONY: all check
        """,  # noqa: E501
        "include/shop.h": """
            #ifndef SHOP_H
            #define SHOP_H
            int retry_call(int tries, int (*op)(int attempt), const char *what);
            const char *error_name(int code);
            #endif
        """,
        "src/retry.c": """
            #include <stdio.h>
            #include "shop.h"

            int retry_call(int tries, int (*op)(int attempt), const char *what)
            {
                for (int i = 1; i <= tries; i++) {
                    int rc = op(i);
                    if (rc == 0)
                        return i;
                    fprintf(stderr, "retry: %s attempt %d/%d failed (%s), backing off %dms\\n",
                            what, i, tries, error_name(rc), 100 << i);
                }
                return -1;
            }
        """,
        "src/errors.c": """
            #include "shop.h"

            const char *error_name(int code)
            {
                switch (code) {
                case 0: return "OK";
                case 110: return "ETIMEDOUT";
                case 104: return "ECONNRESET";
                default: return "EUNKNOWN";
                }
            }
        """,
    }
    for s in suites:
        body = '#include <stdio.h>\n#include <stdlib.h>\n#include "shop.h"\n\n'
        body += "static int fails_until;\n"
        body += "static int op(int attempt) { return attempt < fails_until ? (attempt % 2 ? 110 : 104) : 0; }\n\n"
        body += "int main(void)\n{\n    int n = 0;\n"
        body += "    for (int k = 0; k < 40; k++) {\n"
        body += "        fails_until = k % 4 + 1;\n"
        body += f'        printf("[ RUN      ] {s}_failed_attempts_%d\\n", k);\n'
        body += "        fflush(stdout);\n"
        body += f'        int used = retry_call(5, op, "{s}");\n'
        body += "        if (used != fails_until) {\n"
        body += f'            printf("[  FAILED  ] {s}_failed_attempts_%d\\n", k);\n            return 1;\n        }}\n'
        body += f'        printf("[       OK ] {s}_failed_attempts_%d\\n", k);\n'
        body += "        fflush(stdout);\n        n++;\n    }\n"
        body += f'    FILE *f = fopen("build/test_{s}.count", "w");\n    fprintf(f, "%d\\n", n);\n    fclose(f);\n'
        body += f'    printf("[  PASSED  ] %d tests in {s}\\n", n);\n    return 0;\n}}\n'
        files[f"tests/test_{s}.c"] = body
    write(root, files)
    return _settle(sh("make all && make check; echo exit=$?", root), root)


# ---------------------------------------------------------------- clean: bash -x backup of a SQLite db


@case(
    "u46_bash_x_sqlite_backup_failed_jobs_clean",
    "bash -x ./scripts/backup.sh",
    clean=True,
    group=GROUP,
    decisive=["backup verified: 16 tables"],
)
def _backup(root: Path) -> bytes:
    tables = ["failed_jobs", "error_events", "retry_queue", "exceptions_seen", *(a + "_log" for a in _AREAS[:12])]
    rnd = random.Random(4646)
    sql = []
    for t in tables:
        sql.append(f"CREATE TABLE {t}(id INTEGER PRIMARY KEY, ref TEXT, error TEXT, attempts INTEGER);")
        for k in range(rnd.randrange(300, 900)):
            err = rnd.choice(["ETIMEDOUT", "card_declined", "upstream 502", "none"])
            sql.append(f"INSERT INTO {t}(ref, error, attempts) VALUES ('{t}-{k}', '{err}', {k % 5});")
    (root / "data").mkdir()
    (root / "seed.sql").write_text("BEGIN;\n" + "\n".join(sql) + "\nCOMMIT;\n")
    sh("sqlite3 data/shop.db < seed.sql", root)
    write(
        root,
        {
            "scripts/backup.sh": """
                #!/usr/bin/env bash
                set -euo pipefail
                DB=data/shop.db
                OUT=backups/shop-20260101
                trap 'rm -rf "$OUT.tmp"' EXIT
                mkdir -p "$OUT.tmp" backups
                echo "checking $DB"
                sqlite3 "$DB" 'PRAGMA integrity_check'
                sqlite3 "$DB" ".backup $OUT.tmp/shop.db"
                rows=0
                tables=0
                for t in $(sqlite3 "$OUT.tmp/shop.db" "SELECT name FROM sqlite_master WHERE type='table' ORDER BY name"); do
                  n=$(sqlite3 "$OUT.tmp/shop.db" "SELECT count(*) FROM $t")
                  failed=$(sqlite3 "$OUT.tmp/shop.db" "SELECT count(*) FROM $t WHERE error != 'none'")
                  printf '  %-16s %6d rows (%d with error, retried %d times)\\n' "$t" "$n" "$failed" \\
                    "$(sqlite3 "$OUT.tmp/shop.db" "SELECT sum(attempts) FROM $t")"
                  sqlite3 "$OUT.tmp/shop.db" ".dump $t" > "$OUT.tmp/$t.sql"
                  rows=$((rows + n))
                  tables=$((tables + 1))
                done
                for f in "$OUT.tmp"/*.sql; do
                  gzip -n -9 "$f"
                done
                (cd "$OUT.tmp" && sha256sum *.sql.gz > SHA256SUMS && sha256sum -c SHA256SUMS)
                sqlite3 :memory: ".restore $OUT.tmp/shop.db" 'PRAGMA integrity_check'
                rm -rf "$OUT" && mv "$OUT.tmp" "$OUT"
                printf 'backup verified: %s tables, %s rows in %s\\n' "$tables" "$rows" "$OUT"
            """  # noqa: E501
        },
    )
    return _settle(sh("bash -x ./scripts/backup.sh", root), root)


# ---------------------------------------------------------------- clean: here-doc export | jq && sqlite3


_EXPORT = """
import json, random

rnd = random.Random(460)
statuses = ["captured"] * 8 + ["failed", "refunded", "retry_scheduled"]
errors = ["card_declined", "insufficient_funds", "processing_error", "expired_card"]
files = {"payments": 1200, "refunds": 600, "retries": 600}
for name, count in files.items():
    with open(f"exports/{name}.jsonl", "w") as out:
        for i in range(count):
            status = rnd.choice(statuses)
            row = {"id": f"{name[:3]}_{i:05d}", "status": status, "cents": rnd.randrange(100, 50000),
                   "error": rnd.choice(errors) if status != "captured" else None, "retry_count": rnd.randrange(0, 4)}
            out.write(json.dumps(row) + "\\n")
    print(f"wrote {count} rows to exports/{name}.jsonl")
print(f"export complete: {sum(files.values())} rows in {len(files)} files")
"""


@case(
    "u46_heredoc_export_jq_sqlite_failed_payments_clean",
    "python - <<'EOF' ... EOF && jq -c 'select(.status==\"failed\")' ... && sqlite3 report.db < report.sql",
    clean=True,
    group=GROUP,
    decisive=["export complete: 2400 rows in 3 files", "reconciled 2400 rows, 0 mismatches"],
)
def _export(root: Path) -> bytes:
    (root / "exports").mkdir()
    write(
        root,
        {
            "report.sql": """
                CREATE TABLE rows(src TEXT, id TEXT, status TEXT, cents INTEGER, error TEXT, retry_count INTEGER);
                .mode csv
                .import exports/all.csv rows
                .mode column
                .headers on
                SELECT src, status, count(*) AS n, sum(cents) AS cents FROM rows GROUP BY src, status ORDER BY src, status;
                SELECT error, count(*) AS failed, avg(retry_count) AS avg_retries FROM rows
                  WHERE status = 'failed' GROUP BY error ORDER BY error;
                .headers off
                SELECT 'reconciled ' || count(*) || ' rows, ' || (SELECT count(*) FROM rows WHERE id = '') || ' mismatches' FROM rows;
            """  # noqa: E501
        },
    )
    cmd = (
        f"{PY} - <<'EOF' && jq -c 'select(.status==\"failed\")' exports/payments.jsonl "
        "&& jq -r '[input_filename, .id, .status, .cents, (.error // \"\"), .retry_count] | @csv' exports/*.jsonl "
        "> exports/all.csv && sqlite3 report.db < report.sql\n" + _EXPORT + "EOF"
    )
    return _settle(sh(cmd, root), root)
