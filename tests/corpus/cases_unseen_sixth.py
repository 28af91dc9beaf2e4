"""Held-out outputs (group ``unseen-6``): a sixth batch, made to measure the engine after five rounds of fixes.

Coverage's fail-under gate, a pytest fixture that errors at setup, nox sessions, pip check,
npm workspaces with one failing script, ``python -X importtime`` noise, ``make -k`` with
two broken files, ``unzip -t`` with one bad member, a ``set -e`` script whose EXIT trap
prints long after the error, ``git bisect run``, a SQLite integrity check inside a report,
and clean runs (Maven, pyright, zip) whose names and logs talk about errors. Labels were
written with each scenario, before the engine saw the output.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, write

GROUP = "unseen-6"

# ---------------------------------------------------------------- Python: coverage, fixtures, nox, pip


@case(
    "coverage_fail_under",
    "coverage report --fail-under",
    clean=False,
    group=GROUP,
    decisive=["is less than fail-under=90"],
)
def _coverage(root: Path) -> bytes:
    sh(f"{PY} -m pip install -q --disable-pip-version-check --target cov coverage==7.17.5", root)
    tests = []
    for i in range(300):
        name = f"{WORDS[i % 20]}_{i // 20}"
        funcs = [f"def f{k}(x):\n    if x > {k}:\n        return x - {k}\n    return x + {k}\n" for k in range(5)]
        write(root, {f"shop/{name}.py": "\n".join(funcs)})
        covered = i % 5 + 1 if i % 9 else 1
        body = [f"from shop import {name}\n"]
        body += [f"def test_f{k}():\n    assert {name}.f{k}({k + 1}) == 1\n" for k in range(covered)]
        tests.append((f"tests/test_{name}.py", "\n".join(body)))
    write(root, {"shop/__init__.py": "", **dict(tests)})
    env = {"PYTHONPATH": "cov:."}
    run = sh(f"{PY} -m coverage run --source=shop -m pytest -p no:cacheprovider -v tests", root, env=env)
    return run + sh(f"{PY} -m coverage report -m --fail-under=90", root, env=env)


@case(
    "pytest_fixture_setup_error",
    "pytest -v -rA",
    clean=False,
    group=GROUP,
    decisive=["ERROR at setup of test_checkout_total", "KeyError: 'PAYMENTS_API_KEY'", "1199 passed, 1 error"],
)
def _fixture(root: Path) -> bytes:
    write(
        root,
        {
            "conftest.py": """
            import os

            import pytest


            @pytest.fixture
            def payments_client():
                key = os.environ["PAYMENTS_API_KEY"]
                return {"key": key, "base": "https://payments.internal"}
            """
        },
    )
    for mod in range(20):
        tests = [f"def test_{WORDS[mod]}_{i:02d}():\n    assert {i} + 1 == {i + 1}\n" for i in range(60)]
        if mod == 11:
            tests[30] = (
                "def test_checkout_total(payments_client):\n    assert payments_client['base'].startswith('https')\n"
            )
        (root / f"test_{WORDS[mod]}.py").write_text("\n".join(tests))
    return sh(f"env -u PAYMENTS_API_KEY {PY} -m pytest -p no:cacheprovider -v -rA .", root)


@case(
    "nox_one_session_failed",
    "nox",
    clean=False,
    group=GROUP,
    decisive=["assert 107 == 108", "nox > Session unit failed.", "nox > * unit: failed"],
)
def _nox(root: Path) -> bytes:
    write(
        root,
        {
            "noxfile.py": """
            import nox

            nox.options.default_venv_backend = "none"
            nox.options.sessions = ["lint", "unit", "docs", "package"]


            @nox.session
            def lint(session):
                session.run("python", "-m", "compileall", "src")


            @nox.session
            def unit(session):
                session.run("python", "-m", "pytest", "-p", "no:cacheprovider", "-v", "tests")


            @nox.session
            def docs(session):
                session.run("python", "tools/build_docs.py")


            @nox.session
            def package(session):
                session.run("python", "-m", "zipfile", "-c", "dist.zip", "src")
                session.log("built dist.zip")
            """,
            "tools/build_docs.py": """
            for i in range(400):
                print(f"writing docs/api/module_{i:03d}.html ... done ({1000 + i * 7} bytes)")
            print("docs: 400 pages written, 0 broken links")
            """,
            "src/fx.py": """
            def convert(amount, currency):
                rate = {"EUR": 1.07, "GBP": 1.27}[currency]
                return round(amount * rate)
            """,
        },
    )
    for i in range(300):
        write(root, {f"src/{WORDS[i % 20]}_{i // 20:02d}.py": f"VALUE = {i}\n\ndef get():\n    return VALUE\n"})
    for mod in range(12):
        tests = ["import sys\nsys.path.insert(0, 'src')\n"]
        tests += [f"def test_{WORDS[mod]}_{i:02d}():\n    assert {i} * 3 == {i * 3}\n" for i in range(60)]
        if mod == 6:
            tests[25] = "def test_convert_eur():\n    from fx import convert\n    assert convert(100, 'EUR') == 108\n"
        (root / "tests").mkdir(exist_ok=True)
        (root / "tests" / f"test_{WORDS[mod]}.py").write_text("\n".join(tests))
    return sh("nox", root)


def _fake_dist(site: Path, name: str, version: str, requires: list[str]) -> None:
    info = site / f"{name.replace('-', '_')}-{version}.dist-info"
    info.mkdir(parents=True)
    meta = ["Metadata-Version: 2.1", f"Name: {name}", f"Version: {version}", "Summary: internal package"]
    meta += [f"Requires-Dist: {r}" for r in requires]
    (info / "METADATA").write_text("\n".join(meta) + "\n")
    (info / "INSTALLER").write_text("pip\n")
    (info / "RECORD").write_text("")


@case(
    "pip_check_broken_requirements",
    "pip list -v && pip check",
    clean=False,
    group=GROUP,
    decisive=[
        "has requirement tabulate<0.9,>=0.8, but you have tabulate 0.9.0",
        "requires pyarrow, which is not installed",
    ],
)
def _pip_check(root: Path) -> bytes:
    sh(f"{PY} -m venv env", root)
    site = Path(
        sh("env/bin/python -c 'import sysconfig; print(sysconfig.get_paths()[\"purelib\"])'", root).decode().strip()
    )
    suffixes = ["client", "core", "utils", "sdk", "tools", "schema", "cli", "server", "plugins", "types", "io", "lint"]
    names = []
    for i in range(800):
        name = f"acme-{WORDS[i % 20]}-{suffixes[(i // 20) % 12]}" + ("" if i < 240 else f"-v{i // 240 + 1}")
        names.append(name)
        _fake_dist(site, name, f"{1 + i % 4}.{i % 11}.{i % 7}", [names[i - 1]] if i % 3 and i else [])
    _fake_dist(site, "tabulate", "0.9.0", [])
    _fake_dist(site, "reportlib", "2.1.0", ["tabulate (<0.9,>=0.8)", names[17]])
    _fake_dist(site, "etl-runner", "0.4.2", ["pyarrow>=14", names[40]])
    return sh("env/bin/python -m pip list -v --disable-pip-version-check && env/bin/python -m pip check", root)


@case(
    "python_importtime_import_error",
    "python -X importtime",
    clean=False,
    group=GROUP,
    decisive=["ImportError: cannot import name 'STRIPE_TIMEOUT' from 'app.settings'"],
)
def _importtime(root: Path) -> bytes:
    write(
        root,
        {
            "app/__init__.py": "",
            "app/settings.py": 'STRIPE_API_BASE = "https://api.stripe.example"\nSTRIPE_RETRIES = 3\n',
            "app/worker.py": """
            import asyncio
            import email.mime.multipart
            import http.server
            import json
            import logging.handlers
            import sqlite3
            import xml.etree.ElementTree

            import anthropic
            import boto3
            import fastapi
            import httpx
            import pydantic

            from app.services import billing

            print("worker ready", billing)
            """,
            "app/services/__init__.py": "",
            "app/services/billing.py": """
            import decimal

            from app.settings import STRIPE_API_BASE, STRIPE_TIMEOUT
            """,
        },
    )
    return sh(f"{PY} -X importtime -m app.worker", root)


# ---------------------------------------------------------------- Node


@case(
    "npm_workspaces_build_fail",
    "npm run build --workspaces",
    clean=False,
    group=GROUP,
    decisive=["Error: Missing env INVOICE_TEMPLATE_DIR", "npm error workspace @acme/invoice@1.0.0"],
)
def _npm_ws(root: Path) -> bytes:
    (root / "package.json").write_text(
        '{"name": "acme", "version": "1.0.0", "private": true, "workspaces": ["packages/*"]}\n'
    )
    names = sorted({*WORDS, "invoice", "notifications", "reporting", "gateway", "ui-kit", "scheduler"})
    for i, name in enumerate(names):
        pkg = root / "packages" / name
        pkg.mkdir(parents=True)
        (pkg / "package.json").write_text(
            f'{{"name": "@acme/{name}", "version": "1.0.0", "scripts": {{"build": "node build.js"}}}}\n'
        )
        fail = "throw new Error('Missing env INVOICE_TEMPLATE_DIR');" if name == "invoice" else ""
        (pkg / "build.js").write_text(
            f"console.log('[{name}] compiling 60 modules');\n"
            f"for (let i = 0; i < 60; i++) {{\n"
            f"  if (i === 22) {{ {fail} }}\n"
            f"  const mod = String(i).padStart(2, '0');\n"
            f"  console.log(`  emit dist/{name}/module-${{mod}}.js (${{1200 + i * 31}} bytes)`);\n"
            f"}}\n"
            f"console.log('[{name}] done in 0.{i}s');\n"
        )
    return sh("npm run build --workspaces", root)


# ---------------------------------------------------------------- C, shell, archives, git, sqlite


@case(
    "make_k_two_failures",
    "make -k",
    clean=False,
    group=GROUP,
    decisive=[
        "error: ‘struct order’ has no member named ‘totl’",
        "error: too few arguments to function ‘price_of’",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _make_k(root: Path) -> bytes:
    (root / "Makefile").write_text(
        "CFLAGS = -Wall -Wextra -O1\n"
        "SRCS = $(sort $(wildcard src/*.c))\n"
        "OBJS = $(patsubst src/%.c,obj/%.o,$(SRCS))\n\n"
        "all: libshop.a\n\n"
        "libshop.a: $(OBJS)\n\tar rcs $@ $^\n\n"
        "obj/%.o: src/%.c include/shop.h | obj\n\t$(CC) $(CFLAGS) -Iinclude -c $< -o $@\n\n"
        "obj:\n\tmkdir -p obj\n"
    )
    write(root, {"include/shop.h": "struct order { int id; long total; };\nlong price_of(int sku, int qty);\n"})
    for i in range(480):
        body = f"long m{i}(struct order *o) {{\n    return o->total + price_of({i}, 2);\n}}\n"
        if i % 7 == 3:
            body = f"long m{i}(struct order *o, int unused_flag) {{\n    int scratch;\n    return o->total;\n}}\n"
        if i == 137:
            body = f"long m{i}(struct order *o) {{\n    return o->totl * 2;\n}}\n"
        if i == 311:
            body = f"long m{i}(struct order *o) {{\n    return o->total + price_of({i});\n}}\n"
        write(root, {f"src/m{i:03d}.c": '#include "shop.h"\n\n' + body})
    return sh("make -k", root)


@case(
    "unzip_test_bad_crc",
    "unzip -t",
    clean=False,
    group=GROUP,
    decisive=["bad CRC", "At least one error was detected in archive.zip."],
)
def _unzip(root: Path) -> bytes:
    for i in range(1500):
        rows = "".join(f"{i},{r},{(i * 31 + r) % 997}\n" for r in range(20))
        write(root, {f"data/{WORDS[i % 20]}/part-{i:04d}.csv": f"# part {i:04d}\nid,row,value\n{rows}"})
    sh("find data -type f | sort | zip -q -0 -@ archive.zip", root)
    blob = (root / "archive.zip").read_bytes()
    at = blob.index(b"# part 0730\n") + 20
    (root / "archive.zip").write_bytes(blob[:at] + bytes([blob[at] ^ 0x01]) + blob[at + 1 :])
    return sh("unzip -t archive.zip", root)


@case(
    "bash_set_e_trap_cleanup",
    "bash (set -e, EXIT trap)",
    clean=False,
    group=GROUP,
    decisive=["cp: cannot stat 'build/assets/app.css': No such file or directory"],
)
def _set_e(root: Path) -> bytes:
    write(
        root,
        {
            "deploy.sh": """
            #!/usr/bin/env bash
            set -euo pipefail
            STAGE="stage"
            cleanup() {
              echo "cleanup: removing $STAGE"
              rm -rv "$STAGE"
              echo "cleanup: released deploy lock"
            }
            trap cleanup EXIT
            mkdir -p "$STAGE/static"
            for host in $(seq -f 'web-%03g' 1 120); do
              echo "[render] $host"
              mkdir -p "$STAGE/conf/$host"
              for f in nginx.conf app.env logrotate.conf supervisor.conf app.service; do
                echo "host=$host file=$f" > "$STAGE/conf/$host/$f"
                echo "  wrote conf/$host/$f"
              done
            done
            echo "[assets] copying build output"
            cp -v build/assets/app.js "$STAGE/static/"
            cp -v build/assets/app.css "$STAGE/static/"
            cp -v build/assets/vendor.js "$STAGE/static/"
            echo "[upload] syncing $STAGE to cdn"
            echo "deploy finished"
            """,
            "build/assets/app.js": "console.log('app');\n",
            "build/assets/vendor.js": "console.log('vendor');\n",
        },
    )
    return sh("bash deploy.sh", root)


@case(
    "git_bisect_run",
    "git bisect run",
    clean=False,
    group=GROUP,
    decisive=["is the first bad commit", "pricing: round tax per line item instead of per invoice"],
)
def _bisect(root: Path) -> bytes:
    write(
        root,
        {
            "pricing.py": """
            def invoice_tax(lines, rate):
                return round(sum(lines) * rate)
            """,
            "check.sh": f"""
            #!/bin/sh
            exec {PY} -m pytest -p no:cacheprovider -v tests
            """,
            "build_history.sh": """
            set -e
            git init -q -b main .
            git config user.name "Dev One"; git config user.email dev@example.com
            export GIT_AUTHOR_DATE="2024-03-01T10:00:00Z" GIT_COMMITTER_DATE="2024-03-01T10:00:00Z"
            git add -A; git commit -q -m "initial import"
            for i in $(seq 1 240); do
              if [ "$i" = 157 ]; then
                printf 'def invoice_tax(lines, rate):\\n    return sum(round(x * rate) for x in lines)\\n' > pricing.py
                git commit -q -am "pricing: round tax per line item instead of per invoice"
              else
                echo "change $i" >> "notes/$(( i % 12 )).txt"
                git add -A; git commit -q -m "docs: update note $(( i % 12 )) (change $i)"
              fi
            done
            """,
        },
    )
    tests = ["import sys\nsys.path.insert(0, '.')\nfrom pricing import invoice_tax\n"]
    tests += [f"def test_tax_{i:03d}():\n    assert invoice_tax([{i * 100}], 0.2) == {i * 20}\n" for i in range(120)]
    tests.insert(60, "def test_tax_many_lines():\n    assert invoice_tax([0.5] * 10, 1.0) == 5\n")
    write(root, {"tests/test_pricing.py": "\n".join(tests)})
    (root / "notes").mkdir()
    sh("chmod +x check.sh && bash build_history.sh", root)
    return sh("git bisect start HEAD $(git rev-list --max-parents=0 HEAD) && git bisect run ./check.sh", root)


@case(
    "sqlite_integrity_check_in_report",
    "sqlite3 (report with PRAGMA integrity_check)",
    clean=False,
    group=GROUP,
    decisive=[
        "database disk image is malformed",
        "row 4711 missing from index idx_orders_customer",
        "wrong # of entries in index idx_orders_customer",
    ],
)
def _sqlite(root: Path) -> bytes:
    sh(
        'sqlite3 shop.db "'
        "CREATE TABLE customers(id INTEGER PRIMARY KEY, name TEXT, region TEXT);"
        "CREATE TABLE orders(id INTEGER PRIMARY KEY, customer_id INTEGER, total_cents INTEGER, status TEXT, day TEXT);"
        "CREATE INDEX idx_orders_customer ON orders(customer_id);"
        "CREATE INDEX idx_orders_status ON orders(status);"
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<2000) INSERT INTO customers "
        "SELECT i, 'customer '||i, "
        "CASE i%4 WHEN 0 THEN 'eu' WHEN 1 THEN 'us' WHEN 2 THEN 'apac' ELSE 'latam' END FROM s;"
        "WITH RECURSIVE s(i) AS (SELECT 1 UNION ALL SELECT i+1 FROM s WHERE i<20000) INSERT INTO orders "
        "SELECT i, i%2000+1, i*37%10000, CASE i%3 WHEN 0 THEN 'shipped' WHEN 1 THEN 'pending' ELSE 'paid' END, "
        "date('2024-01-01', '+'||(i%366)||' days') FROM s;\"",
        root,
    )
    # An index the table no longer matches: hide it from the schema, change three rows, put it back.
    sh(
        'sqlite3 shop.db "PRAGMA writable_schema=ON; CREATE TABLE keep AS SELECT * FROM sqlite_master '
        "WHERE name='idx_orders_customer'; DELETE FROM sqlite_master WHERE name='idx_orders_customer';\" && "
        "sqlite3 shop.db 'UPDATE orders SET customer_id=customer_id+1 WHERE id IN (4711, 4712); "
        "DELETE FROM orders WHERE id=9001;' && "
        "sqlite3 shop.db 'PRAGMA writable_schema=ON; INSERT INTO sqlite_master SELECT * FROM keep;' && "
        "sqlite3 shop.db 'DROP TABLE keep;'",
        root,
    )
    write(
        root,
        {
            "nightly.sql": """
            .echo on
            .headers on
            .mode column
            SELECT c.id, c.name, c.region, count(o.id) AS orders, sum(o.total_cents) AS cents
              FROM customers c LEFT JOIN orders o ON o.customer_id = c.id GROUP BY c.id ORDER BY c.id;
            PRAGMA integrity_check;
            SELECT day, status, count(*) AS n, sum(total_cents) AS cents
              FROM orders GROUP BY day, status ORDER BY day, status;
            """
        },
    )
    return sh("sqlite3 shop.db < nightly.sql", root)


# ---------------------------------------------------------------- clean runs that talk about errors


@case(
    "maven_test_clean_error_names",
    "mvn test",
    clean=True,
    group=GROUP,
    decisive=["Tests run: 300, Failures: 0, Errors: 0, Skipped: 0", "BUILD SUCCESS"],
)
def _mvn_clean(root: Path) -> bytes:
    from cases_unseen_build import _maven

    _maven(
        root,
        "<dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter</artifactId>"
        "<version>5.10.2</version><scope>test</scope></dependency>",
    )
    write(
        root,
        {
            "src/main/java/shop/ErrorHandler.java": """
            package shop;

            public class ErrorHandler {
                public static String handle(int code) {
                    try {
                        if (code >= 500) throw new IllegalStateException("upstream failure " + code);
                        return "ok";
                    } catch (IllegalStateException e) {
                        System.err.println("ERROR shop.ErrorHandler - request failed, returning fallback");
                        e.printStackTrace();
                        return "fallback";
                    }
                }
            }
            """
        },
    )
    classes = [
        "ErrorHandler", "FailoverPolicy", "ExceptionMapper", "RetryOnFailure", "TimeoutError", "FatalErrorPage",
        "ErrorBudget", "FailedPaymentQueue", "ExceptionTranslator", "CrashReporter",
    ]  # fmt: skip
    for idx, cls in enumerate(classes):
        lines = [
            "package shop;",
            "import static org.junit.jupiter.api.Assertions.assertEquals;",
            "import org.junit.jupiter.api.Test;",
            f"class {cls}Test {{",
        ]
        for i in range(30):
            if i % 10 == 4 and idx < 4:
                lines.append(
                    f'    @Test void fallsBack{i}() {{ assertEquals("fallback", ErrorHandler.handle(50{i % 10})); }}'
                )
            else:
                lines.append(f"    @Test void handles{i}() {{ assertEquals({i}, {i} * 1); }}")
        lines.append("}")
        write(root, {f"src/test/java/shop/{cls}Test.java": "\n".join(lines) + "\n"})
    return scrub(sh("mvn -o -B test", root), root)


@case(
    "pyright_clean_error_modules",
    "pyright --verbose",
    clean=True,
    group=GROUP,
    decisive=["0 errors, 0 warnings, 0 informations"],
)
def _pyright(root: Path) -> bytes:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh("npm install --no-audit --no-fund --silent pyright@1.1.414", root)
    (root / "pyrightconfig.json").write_text('{"include": ["service"], "pythonVersion": "3.11"}\n')
    write(root, {"service/__init__.py": ""})
    for i in range(1200):
        name = f"{WORDS[i % 20]}_{['errors', 'exceptions', 'failures', 'handlers'][i % 4]}_{i // 20}"
        write(
            root,
            {
                f"service/{name}.py": f'''
                class {name.title().replace("_", "")}Error(Exception):
                    """Raised when the {name} step fails; the error is logged and retried."""


                def check_{i}(value: int) -> int:
                    if value < 0:
                        raise {name.title().replace("_", "")}Error(f"error: negative value {{value}}")
                    return value * {i}
                '''
            },
        )
    return scrub(sh("npx pyright --verbose --stats", root), root)


@case("zip_error_names_clean", "zip -r", clean=True, group=GROUP, decisive=[])
def _zip_clean(root: Path) -> bytes:
    stems = [
        "error_handler", "FatalErrorBoundary", "test_failed_login", "panic_recovery", "exception_mapper",
        "traceback_formatter", "failure_report", "crash_dump_parser", "errors", "abort_controller",
    ]  # fmt: skip
    exts = [".py", ".tsx", ".rs", ".go", ".java", ".md"]
    for i in range(1500):
        area = ["errors", "failures", "exceptions", "pages/500", "logs", "retry"][i % 6]
        path = f"app/{area}/{WORDS[i % 20]}/{stems[i % 10]}_{i:04d}{exts[i % 6]}"
        write(root, {path: f"// file {i}\n" * (i % 40 + 1)})
    write(root, {"app/logs/error.log": "", "app/logs/failed_jobs.log": ""})
    return sh("zip -r release-errors-fixed.zip app", root)
