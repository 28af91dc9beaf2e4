"""Held-out outputs (group ``unseen-29``): a twenty-ninth batch, what a coding agent sees while it explores and
operates a repository from a shell, on a generated shop service of many files (Python modules named after the
business areas, with real error handling: ``raise``, ``except``, ``log.error(...)``; JavaScript modules that
``throw new Error``; C sources; SQLite databases; CSV and JSON files).

Failing runs: ``cat`` over 30 source files where one named in the middle does not exist, ``pytest -v
--continue-on-collection-errors`` after a rename of ``ErrorHandler`` left one test module importing the old name,
``sqlite3`` running a 2,000-statement migration with ``.bail on`` where one insert breaks a UNIQUE constraint
(between the agent's queries of the table before and after), ``git apply --check -v`` of a 400-file patch where
one hunk does not apply, ``make -k`` over 160 C sources where one does not compile (with ``-Wall`` warnings on
half of the others), a ``manage.py``-style import of 5,000 orders that dies of a ``KeyError`` in the middle and
then logs a long cleanup, and a ``node`` build script over 120 modules where one throws at load. Clean runs whose
text talks about errors: ``cat -n`` of a 3,000-line payments module full of ``raise PaymentError(...)``,
``git grep -n error`` over the tree, ``git diff --stat`` and ``git diff`` of the ``ErrorHandler`` to
``FailureHandler`` rename in 80 modules, ``sqlite3 -box`` of a ``failed_jobs`` table whose ``error`` column holds
stored messages, ``ls -laR`` of a tree with ``errors/`` and ``failed/`` folders, ``head -n 2000`` of a CSV export
whose ``status`` column holds ``failed`` and ``error`` and ``python -m json.tool`` of a service config with
``on_error`` and ``retry_failed`` keys. Every file is written from fixed seeds with a fixed mtime and git runs
with a fixed author and dates, so the outputs are the same on every run. Labels were written with each scenario,
before the engine saw the output. Needs Debian ``git``, ``sqlite3``, ``make``, ``gcc`` and ``nodejs``, with
pytest in the venv.
"""

from __future__ import annotations

import json
import random
from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, substitute

GROUP = "unseen-29"

_MTIME = "2026-03-02 09:00:00"

_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Shop Dev",
    "GIT_AUTHOR_EMAIL": "dev@shop.example",
    "GIT_COMMITTER_NAME": "Shop Dev",
    "GIT_COMMITTER_EMAIL": "dev@shop.example",
    "GIT_AUTHOR_DATE": "2026-03-02T09:00:00+00:00",
    "GIT_COMMITTER_DATE": "2026-03-02T09:00:00+00:00",
    "GIT_CONFIG_GLOBAL": "/dev/null",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_PAGER": "cat",
    "PAGER": "cat",
}

_KINDS = ["service", "handlers", "models", "tasks"]
_VERBS = ["load", "apply", "settle", "sync", "check", "post", "close", "rebuild"]


def _touch(root: Path) -> None:
    sh(f"find . -exec touch -h -d '{_MTIME}' {{}} +", root)


def _cap(area: str) -> str:
    return area.capitalize()


def _function(area: str, verb: str, i: int, rng: random.Random) -> str:
    """One function of a service module: a guard that raises, a lookup with ``except`` and ``log.error``."""
    a = _cap(area)
    k = rng.randrange(2, 40)
    return f'''
def {verb}_{area}_{i}(record, db, handler):
    """{verb.capitalize()} one {area} record; raise {a}Error when it cannot be {verb}ed."""
    if record.get("amount") is None:
        raise {a}Error(f"missing amount for {area} record {{record['id']}}")
    try:
        row = db.fetch("{area}", record["id"])
    except LookupError as exc:
        log.error("{area} record %s not found: %s", record["id"], exc)
        raise {a}Error("lookup failed for {area} record") from exc
    except TimeoutError:
        log.warning("retrying {area} record %s after a timeout", record["id"])
        return handler.retry(record, attempts={k % 5 + 1})
    if row.status == "failed":
        log.error("{area} record %s already failed: %s", row.id, row.error)
        handler.report(row, reason="previous_error")
        return None
    return row


def fee_{area}_{i}(amount):
    return amount * {k} // 100
'''


def _module(area: str, kind: str, seed: int, funcs: int, *, handler: str = "ErrorHandler") -> str:
    rng = random.Random(seed)
    a = _cap(area)
    head = (
        f'"""{a} {kind}: the {area} part of the shop service."""\n\n'
        "import logging\n\n"
        f"from shop.common.errors import {a}Error\n"
        f"from shop.common.handler import {handler}\n\n"
        f'log = logging.getLogger("shop.{area}.{kind}")\n'
        f'default_handler = {handler}(service="{area}")\n'
    )
    body = "".join(_function(area, _VERBS[(i + seed) % len(_VERBS)], i, rng) for i in range(funcs))
    return head + body


_HANDLER = '''"""The error handler every service reports failures to."""

import logging

log = logging.getLogger("shop.errors")


class {name}:
    def __init__(self, service):
        self.service = service
        self.failures = []

    def report(self, row, reason):
        log.error("%s: record %s failed (%s)", self.service, row.id, reason)
        self.failures.append((row.id, reason))

    def retry(self, record, attempts):
        return {{"id": record["id"], "attempts": attempts, "service": self.service}}
'''


def _errors_init() -> str:
    out = '"""Errors raised by the shop services."""\n\n\nclass ShopError(Exception):\n    pass\n'
    for area in WORDS:
        out += f"\n\nclass {_cap(area)}Error(ShopError):\n    pass\n"
    return out


def _project(root: Path, funcs: int = 6, handler: str = "ErrorHandler") -> list[str]:
    """The shop service under ``src/shop``: 20 areas with 4 modules each; the module paths."""
    shop = root / "src" / "shop"
    (shop / "common").mkdir(parents=True)
    (shop / "__init__.py").write_text('"""The shop service."""\n')
    (shop / "common" / "__init__.py").write_text("")
    (shop / "common" / "errors.py").write_text(_errors_init())
    (shop / "common" / "handler.py").write_text(_HANDLER.format(name=handler))
    paths = []
    for n, area in enumerate(WORDS):
        (shop / area).mkdir()
        (shop / area / "__init__.py").write_text("")
        for k, kind in enumerate(_KINDS):
            rel = f"src/shop/{area}/{kind}.py"
            (root / rel).write_text(_module(area, kind, n * 4 + k, funcs, handler=handler))
            paths.append(rel)
    return paths


def _git(root: Path, cmd: str) -> bytes:
    return sh(cmd, root, env=_GIT_ENV)


def _git_init(root: Path) -> None:
    _git(root, "git init -q -b main . && git add -A && git commit -q -m 'shop service: initial import'")


# ---------------------------------------------------------------- reading files


@case(
    "cat_thirty_sources_one_missing",
    "cat (30 files, one missing)",
    clean=False,
    group=GROUP,
    decisive=["cat: src/shop/ledger/retry.py: No such file or directory", "[exit status 1]"],
)
def _cat_missing(root: Path) -> bytes:
    paths = _project(root, funcs=5)
    chosen = [p for p in paths if p.split("/")[2] in WORDS[4:16] and not p.endswith("tasks.py")][:30]
    at = chosen.index("src/shop/ledger/service.py")
    chosen.insert(at + 1, "src/shop/ledger/retry.py")  # the agent guessed a module name that does not exist
    chosen = chosen[:30]
    _touch(root)
    return scrub(sh("cat " + " ".join(chosen), root), root)


@case(
    "cat_n_payments_module_3000_lines_clean",
    "cat -n (a 3,000-line Python module)",
    clean=True,
    group=GROUP,
    decisive=["  3007\t    return result"],
)
def _cat_n_clean(root: Path) -> bytes:
    rng = random.Random(29)
    lines = [
        '"""Payments: charge, capture and refund, with every failure raised as PaymentError."""',
        "",
        "import logging",
        "",
        "from shop.common.errors import BillingError as PaymentError",
        "from shop.common.handler import ErrorHandler",
        "",
        'log = logging.getLogger("shop.billing.payments")',
        "",
    ]
    n = 0
    while len(lines) < 3000:
        code = rng.choice(["card_declined", "insufficient_funds", "expired_card", "gateway_timeout", "fraud_check"])
        lines += [
            "",
            f"def charge_step_{n}(payment, gateway, handler: ErrorHandler):",
            f'    """Step {n} of a charge: raise PaymentError on {code}."""',
            "    try:",
            f"        answer = gateway.charge(payment.id, amount=payment.amount, step={n})",
            "    except ConnectionError as exc:",
            f'        log.error("payment %s: gateway unreachable at step {n}: %s", payment.id, exc)',
            f'        raise PaymentError("gateway unreachable at step {n}") from exc',
            f'    if answer.code == "{code}":',
            f'        log.error("payment %s failed: {code}", payment.id)',
            f'        handler.report(payment, reason="{code}")',
            f'        raise PaymentError(f"payment {{payment.id}} failed: {code}")',
            "    if answer.error:",
            '        log.warning("payment %s: gateway error %r, retrying", payment.id, answer.error)',
            "        return None",
            "    return answer",
        ]
        n += 1
    lines += [
        "",
        "def charge(payment, gateway, handler):",
        "    result = None",
        f"    for step in range({n}):",
        '        result = globals()[f"charge_step_{step}"](payment, gateway, handler)',
        "    return result",
    ]
    (root / "src" / "shop" / "billing").mkdir(parents=True)
    (root / "src/shop/billing/payments.py").write_text("\n".join(lines) + "\n")
    return sh("cat -n src/shop/billing/payments.py", root)


@case(
    "git_grep_n_error_over_tree_clean",
    "git grep -n error (over a service tree)",
    clean=True,
    group=GROUP,
    decisive=["src/shop/audit/handlers.py:5:from shop.common.errors import AuditError"],
)
def _git_grep_clean(root: Path) -> bytes:
    _project(root, funcs=4)
    _git_init(root)
    return _git(root, "git grep -n error -- src/")


# ---------------------------------------------------------------- git


@case(
    "git_diff_stat_rename_errorhandler_80_files_clean",
    "git diff --stat && git diff (a rename in 80 files)",
    clean=True,
    group=GROUP,
    decisive=["81 files changed, 161 insertions(+), 161 deletions(-)"],
)
def _git_diff_clean(root: Path) -> bytes:
    _project(root, funcs=3)
    _git_init(root)
    sh("grep -rl ErrorHandler src | sort | xargs sed -i 's/ErrorHandler/FailureHandler/g'", root)
    return _git(root, "git diff --stat && git diff")


@case(
    "git_apply_check_v_400_files_one_hunk_fails",
    "git apply --check -v (a 400-file patch)",
    clean=False,
    group=GROUP,
    decisive=[
        "error: patch failed: src/invoice/jobs_2.py:",
        "error: src/invoice/jobs_2.py: patch does not apply",
    ],
)
def _git_apply_bad(root: Path) -> bytes:
    names = [
        f"src/{area}/{kind}_{i}.py" for area in WORDS for kind in ("api", "jobs", "store", "cli") for i in range(5)
    ]
    (root / "src").mkdir()
    for n, rel in enumerate(names):
        (root / rel).parent.mkdir(exist_ok=True)
        area = rel.split("/")[1]
        body = [f'"""{rel}: the {area} part."""', "import logging", "", f'log = logging.getLogger("{area}.{n}")', ""]
        for i in range(6):
            body += [
                f"def step_{i}(row):",
                f"    if row.error:  # step {i}",
                f'        log.error("{area} step {i} failed: %s", row.error)',
                "        raise RuntimeError(row.error)",
                f"    return row.value + {n * 6 + i}",
            ]
        (root / rel).write_text("\n".join(body) + "\n")
    _git_init(root)
    # the fix: step 3 of every module chains nothing ("from None")
    sh("sed -i '24s/raise RuntimeError(row.error)$/raise RuntimeError(row.error) from None/' src/*/*.py", root)
    _git(root, "git diff > ../fix.patch && git checkout -q . && mv ../fix.patch fix.patch")
    # meanwhile main moved on: a license header in every module, and jobs_2 of invoice rewrote step 3
    sh("sed -i '1i # SPDX-License-Identifier: MIT\\n# Copyright 2026 Shop\\n' src/*/*.py", root)
    sh("sed -i 's/log.error(\"invoice step 3 failed: %s\", row.error)/log.exception(\"invoice step 3\")/' "
       "src/invoice/jobs_2.py", root)  # fmt: skip
    _git(root, "git commit -q -a -m 'add license headers; log invoice step 3 with its traceback'")
    return _git(root, "git apply --check -v fix.patch")


# ---------------------------------------------------------------- pytest


def _tests(root: Path, stale: str | None) -> None:
    """A test module per area and kind, calling the ``fee_*`` helpers; ``stale`` imports the old handler name."""
    (root / "tests").mkdir()
    for n, area in enumerate(WORDS):
        for k, kind in enumerate(_KINDS):
            rng = random.Random(n * 4 + k)
            lines = [f"from shop.{area}.{kind} import *  # noqa: F403", ""]
            if f"{area}_{kind}" == stale:
                lines = ["from shop.common.handler import ErrorHandler", *lines]
            for i in range(6):
                kk = rng.randrange(2, 40)
                for amount in (100, 250, 999):
                    lines += [
                        f"def test_fee_{area}_{i}_{amount}():",
                        f"    assert fee_{area}_{i}({amount}) == {amount * kk // 100}  # noqa: F405",
                        "",
                    ]
            (root / "tests" / f"test_{area}_{kind}.py").write_text("\n".join(lines))


@case(
    "pytest_v_rename_left_one_stale_import",
    "pytest -v --continue-on-collection-errors",
    clean=False,
    group=GROUP,
    decisive=[
        "E   ImportError: cannot import name 'ErrorHandler' from 'shop.common.handler'",
        "ERROR tests/test_ledger_models.py",
        "1422 passed, 1 error in",
    ],
)
def _pytest_bad(root: Path) -> bytes:
    _project(root, funcs=6, handler="FailureHandler")
    _tests(root, stale="ledger_models")
    (root / "pyproject.toml").write_text('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    out = sh(f"{PY} -m pytest -p no:cacheprovider -v --continue-on-collection-errors tests", root)
    return substitute(scrub(out, root), (r" in \d+\.\d+s", " in 1.00s"))


# ---------------------------------------------------------------- sqlite3


def _failed_jobs_db(root: Path) -> None:
    rng = random.Random(2929)
    messages = [
        "ConnectionError: gateway unreachable after 3 retries",
        "KeyError: 'customer_id'",
        "PaymentError: card_declined",
        "TimeoutError: upstream did not answer in 30s",
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "IntegrityError: duplicate key value violates unique constraint",
        "error: webhook endpoint returned 500 Internal Server Error",
        "failed to render invoice PDF: font not found",
    ]
    rows = []
    for i in range(1, 901):
        area = rng.choice(WORDS)
        day, hour, minute = 1 + i % 28, rng.randrange(24), rng.randrange(60)
        msg = rng.choice(messages).replace("'", "''")
        rows.append(
            f"INSERT INTO failed_jobs VALUES({i}, '{area}', '{area}.{rng.choice(_VERBS)}', {rng.randrange(1, 6)}, "
            f"'2026-02-{day:02d} {hour:02d}:{minute:02d}:00', '{msg}');"
        )
    schema = (
        "CREATE TABLE failed_jobs(id INTEGER PRIMARY KEY, queue TEXT, job TEXT, attempts INTEGER, "
        "failed_at TEXT, error TEXT);\n"
    )
    (root / "seed.sql").write_text(schema + "BEGIN;\n" + "\n".join(rows) + "\nCOMMIT;\n")
    sh("sqlite3 jobs.db < seed.sql", root)


@case(
    "sqlite3_box_failed_jobs_table_clean",
    "sqlite3 -box (a failed_jobs table)",
    clean=True,
    group=GROUP,
    decisive=["│ 900   │"],
)
def _sqlite_box_clean(root: Path) -> bytes:
    _failed_jobs_db(root)
    query = (
        "SELECT id, queue, job, attempts, failed_at, error FROM failed_jobs ORDER BY id; "
        "SELECT count(*) AS total FROM failed_jobs; "
        "SELECT queue, count(*) AS failed, max(attempts) AS max_attempts FROM failed_jobs "
        "GROUP BY queue ORDER BY queue;"
    )
    return sh(f'sqlite3 -box jobs.db "{query}"', root)


@case(
    "sqlite3_bail_migration_2000_statements_unique_fails",
    "sqlite3 (a 2,000-statement script with .bail on, then a query)",
    clean=False,
    group=GROUP,
    decisive=[
        "Runtime error near line 1207: UNIQUE constraint failed: ledger_entries.ref (19)",
        "migrate.sql exited with 1",
    ],
)
def _sqlite_bail_bad(root: Path) -> bytes:
    rng = random.Random(1207)
    notes = ["refund after failed capture", "chargeback", "error correction", "manual adjustment"]

    def entry(ref: str) -> str:
        return (
            f"INSERT INTO ledger_entries(ref, account, cents, note) VALUES('{ref}', 'acct-{rng.randrange(10**5):05d}', "
            f"{rng.randrange(-50000, 90000)}, '{rng.choice(notes)}');"
        )

    seed = [
        "CREATE TABLE ledger_entries(id INTEGER PRIMARY KEY, ref TEXT UNIQUE NOT NULL, account TEXT, cents INTEGER, "
        "note TEXT);",
        "BEGIN;",
        *(entry(f"LE-{n:05d}") for n in range(1, 801)),
        "COMMIT;",
    ]
    (root / "seed.sql").write_text("\n".join(seed) + "\n")
    sh("sqlite3 ledger.db < seed.sql", root)
    lines = [".bail on"]
    while len(lines) < 2001:
        n = len(lines)
        # line 1207 replays an entry that the ledger already holds
        lines.append(entry("LE-00400" if n == 1206 else f"LE-{800 + n:05d}"))
    (root / "migrate.sql").write_text("\n".join(lines) + "\n")
    script = (
        'sqlite3 -column -header ledger.db "SELECT id, ref, account, cents, note FROM ledger_entries ORDER BY id"; '
        'sqlite3 ledger.db < migrate.sql; echo "migrate.sql exited with $?"; '
        'sqlite3 -column -header ledger.db "SELECT id, ref, account, cents, note FROM ledger_entries WHERE id > 800 '
        'ORDER BY id; SELECT count(*) AS total, max(ref) AS last_ref FROM ledger_entries"'
    )
    return sh(script, root)


# ---------------------------------------------------------------- ls, head


@case(
    "ls_laR_tree_with_errors_and_failed_folders_clean",
    "ls -laR (a tree with errors/ and failed/ folders)",
    clean=True,
    group=GROUP,
    decisive=["shop/var/failed/webhooks:"],
)
def _ls_clean(root: Path) -> bytes:
    repo = root / "shop"
    repo.mkdir()
    _project(repo, funcs=2)
    rng = random.Random(77)
    for area in WORDS:
        for d in ("var/errors", "var/failed"):
            (repo / d / area).mkdir(parents=True)
            for day in range(1, 8):
                kind = "error" if d.endswith("errors") else "failed"
                text = "".join(f"{kind} {area} job {rng.randrange(10**6)}\n" for _ in range(rng.randrange(1, 30)))
                (repo / d / area / f"2026-03-{day:02d}-{kind}.log").write_text(text)
    _touch(root)
    return sh("ls -laR --time-style=long-iso shop", root)


@case(
    "head_2000_csv_export_status_failed_clean",
    "head -n 2000 (a CSV export)",
    clean=True,
    group=GROUP,
    decisive=["id,created_at,queue,job,status,attempts,error"],
)
def _head_csv_clean(root: Path) -> bytes:
    rng = random.Random(2000)
    rows = ["id,created_at,queue,job,status,attempts,error"]
    for i in range(1, 6001):
        status = rng.choices(["done", "failed", "error", "retrying"], [6, 2, 1, 1])[0]
        err = (
            ""
            if status == "done"
            else rng.choice(
                ["gateway timeout", "KeyError: customer_id", "PaymentError: card_declined", "500 from webhook"]
            )
        )
        area = rng.choice(WORDS)
        rows.append(
            f"{i},2026-03-{1 + i % 28:02d}T{rng.randrange(24):02d}:{rng.randrange(60):02d}:00Z,{area},"
            f"{area}.{rng.choice(_VERBS)},{status},{rng.randrange(1, 6)},{err}"
        )
    (root / "exports").mkdir()
    (root / "exports/jobs-2026-03.csv").write_text("\n".join(rows) + "\n")
    return sh("head -n 2000 exports/jobs-2026-03.csv", root)


# ---------------------------------------------------------------- make


def _c_source(area: str, kind: str, seed: int, *, broken: bool) -> str:
    rng = random.Random(seed)
    out = [
        "#include <stdio.h>",
        "#include <string.h>",
        "",
        f'#define AREA "{area}"',
        "",
        f"int {area}_{kind}_check(const char *error, int attempts)",
        "{",
    ]
    if seed % 2 == 0:
        out.append("    int unused_retries = 3;")  # -Wall warns about this one
    out += [
        "    if (error != NULL && strlen(error) > 0) {",
        '        fprintf(stderr, "%s: failed after %d attempts: %s\\n", AREA, attempts, error);',
        "        return -1;",
        "    }",
    ]
    if broken:
        out.append(f"    return {area}_{kind}_status(attempts) + missing_total;")
    else:
        out.append(f"    return attempts * {rng.randrange(2, 9)};")
    out += ["}", ""]
    return "\n".join(out)


@case(
    "make_k_160_c_sources_one_fails",
    "make -k (160 C sources)",
    clean=False,
    group=GROUP,
    decisive=[
        "csrc/invoice_jobs.c:12:44: error: ‘missing_total’ undeclared (first use in this function)",
        "make: *** [Makefile:9: build/invoice_jobs.o] Error 1",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _make_bad(root: Path) -> bytes:
    (root / "csrc").mkdir()
    n = 0
    for area in WORDS:
        for kind in ("api", "jobs", "store", "retry", "audit", "cache", "queue", "report"):
            src = _c_source(area, kind, n, broken=(area == "invoice" and kind == "jobs"))
            (root / "csrc" / f"{area}_{kind}.c").write_text(src)
            n += 1
    (root / "Makefile").write_text(
        "CC = gcc\n"
        "CFLAGS = -Wall -O0\n"
        "SRCS = $(sort $(wildcard csrc/*.c))\n"
        "OBJS = $(patsubst csrc/%.c,build/%.o,$(SRCS))\n"
        "\n"
        "all: build/libshop.a\n"
        "\n"
        "build/%.o: csrc/%.c | build\n"
        "\t$(CC) $(CFLAGS) -c -o $@ $<\n"
        "\n"
        "build/libshop.a: $(OBJS)\n"
        "\tar rcs $@ $^\n"
        "\n"
        "build:\n"
        "\tmkdir -p build\n"
    )
    _touch(root)
    return sh("make -k -j1", root)


# ---------------------------------------------------------------- a manage.py-style script

_MANAGE = r'''
"""manage.py import_orders: load the orders export into the ledger."""
import json
import logging
import sys

logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stdout)
log = logging.getLogger("manage.import_orders")


def import_row(order, ledger):
    customer = order["customer_id"]
    ledger.setdefault(customer, 0)
    ledger[customer] += order["cents"]
    return customer


def main(path):
    ledger, locks, done = {}, [], 0
    try:
        with open(path) as fh:
            for line in fh:
                order = json.loads(line)
                locks.append(order["id"])
                customer = import_row(order, ledger)
                done += 1
                log.info("imported order %s for %s (%s, %d cents)", order["id"], customer, order["area"],
                         order["cents"])
    except Exception:
        log.exception("import aborted at order %s after %d orders", locks[-1], done)
        return 1
    finally:
        log.info("cleanup: releasing %d row locks", len(locks))
        for oid in locks:
            log.info("cleanup: released lock on order %s", oid)
        log.info("cleanup: ledger has %d customers", len(ledger))
    log.info("import finished: %d orders", done)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
'''


@case(
    "manage_py_import_orders_keyerror_then_cleanup",
    "python manage.py-style script (5,000 rows, KeyError, long cleanup log)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR manage.import_orders: import aborted at order 2613 after 2612 orders",
        "KeyError: 'customer_id'",
        'manage.py", line 11, in import_row',
        "[exit status 1]",
    ],
)
def _manage_bad(root: Path) -> bytes:
    rng = random.Random(5000)
    rows = []
    for i in range(1, 5001):
        order = {"id": i, "customer_id": f"cus-{rng.randrange(10**4):04d}", "area": rng.choice(WORDS),
                 "cents": rng.randrange(100, 90000)}  # fmt: skip
        if i == 2613:
            del order["customer_id"]  # a guest checkout exported without a customer
        rows.append(json.dumps(order))
    (root / "exports").mkdir()
    (root / "exports/orders.jsonl").write_text("\n".join(rows) + "\n")
    (root / "manage.py").write_text(_MANAGE.lstrip("\n"))
    return scrub(sh(f"{PY} manage.py exports/orders.jsonl", root), root)


# ---------------------------------------------------------------- node, json.tool

_BUILD_JS = r"""
const fs = require("fs");
const path = require("path");

const dir = path.join(__dirname, "..", "js");
const files = fs.readdirSync(dir).filter((f) => f.endsWith(".js")).sort();
let failed = 0;
for (const file of files) {
  try {
    const mod = require(path.join(dir, file));
    const names = Object.keys(mod).sort();
    console.log(`built js/${file} (${names.length} exports)`);
    for (const name of names) console.log(`  - ${name}`);
  } catch (err) {
    failed += 1;
    console.error(`build error in js/${file}:`);
    console.error(err.stack);
  }
}
console.log(`${files.length - failed} of ${files.length} modules built, ${failed} failed`);
if (failed) process.exitCode = 1;
"""


def _js_module(area: str, kind: str, seed: int, *, throws: bool) -> str:
    rng = random.Random(seed)
    out = ['"use strict";', f"// {area} {kind}: errors are thrown as Error with the record id", ""]
    if throws:
        out += [
            f"const apiUrl = process.env.{area.upper()}_API_URL;",
            "if (!apiUrl) {",
            f'  throw new Error("{area} {kind}: {area.upper()}_API_URL is not set");',
            "}",
            "",
        ]
    for i in range(14):
        fn = f"{kind}{_cap(area)}{i}"
        out += [
            f"function {fn}(record) {{",
            "  if (!record || record.amount == null) {",
            f"    throw new Error(`{area}: missing amount for record ${{record && record.id}}`);",
            "  }",
            "  try {",
            f"    return record.amount * {rng.randrange(2, 40)};",
            "  } catch (err) {",
            f'    console.error("{area} {kind} failed", err);',
            "    throw err;",
            "  }",
            "}",
            f"exports.{fn} = {fn};",
            "",
        ]
    return "\n".join(out)


@case(
    "node_build_script_120_modules_one_throws",
    "node scripts/build.js (120 modules, one throws at load)",
    clean=False,
    group=GROUP,
    decisive=[
        "build error in js/refunds-api.js:",
        "Error: refunds api: REFUNDS_API_URL is not set",
        "119 of 120 modules built, 1 failed",
        "[exit status 1]",
    ],
)
def _node_bad(root: Path) -> bytes:
    (root / "js").mkdir()
    (root / "scripts").mkdir()
    (root / "scripts" / "build.js").write_text(_BUILD_JS.lstrip("\n"))
    n = 0
    for area in WORDS:
        for kind in ("api", "jobs", "store", "retry", "audit", "cache"):
            src = _js_module(area, kind, n, throws=(area == "refunds" and kind == "api"))
            (root / "js" / f"{area}-{kind}.js").write_text(src)
            n += 1
    return scrub(sh("node scripts/build.js", root), root)


@case(
    "json_tool_service_config_on_error_keys_clean",
    "python -m json.tool (a service config)",
    clean=True,
    group=GROUP,
    decisive=['    "service": "shop-api",'],
)
def _json_tool_clean(root: Path) -> bytes:
    rng = random.Random(404)
    config: dict[str, object] = {"service": "shop-api", "version": "4.12.0", "areas": {}}
    areas: dict[str, object] = {}
    for area in WORDS:
        jobs = {}
        for verb in _VERBS:
            jobs[f"{area}.{verb}"] = {
                "queue": area,
                "on_error": rng.choice(["log_and_retry", "dead_letter", "raise", "alert_oncall"]),
                "retry_failed": {
                    "enabled": rng.random() < 0.7,
                    "max_attempts": rng.randrange(1, 8),
                    "backoff_seconds": [2**k for k in range(rng.randrange(1, 5))],
                },
                "error_threshold": round(rng.random() / 10, 3),
                "failed_job_ttl_days": rng.randrange(1, 30),
                "log_errors_to": f"var/errors/{area}",
                "failed_dir": f"var/failed/{area}",
            }
        areas[area] = {"enabled": True, "errors_table": f"{area}_errors", "jobs": jobs}
    config["areas"] = areas
    (root / "config").mkdir()
    (root / "config" / "service.json").write_text(json.dumps(config, separators=(",", ":")))
    return sh(f"{PY} -m json.tool config/service.json", root)
