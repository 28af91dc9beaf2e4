"""Held-out outputs (group ``unseen-93``): a ninety-third batch, Python's own warnings and debugging switches as an
agent runs them on a generated payments package, all offline in the package's own virtual environment.

Failing runs: a shell loop replaying 12 settlement batches with ``python -W error::DeprecationWarning`` where batch 7
turns ``error_codes.legacy_lookup()``'s deprecation into a traceback among many printed ``UserWarning`` lines,
``pytest -v`` of 600 tests with hundreds of entries in the warnings summary and one failing refunds test, ``python -X
dev -X tracemalloc=5`` of a reconciliation under ``ulimit -n`` whose statement cache leaks file handles until ``OSError:
[Errno 24]`` (unclosed-file warnings with their allocation tracebacks before and after it), ``python -m pdb -c
continue`` of a retry worker crashing with ``ZeroDivisionError`` followed by a post-mortem session (``bt``, ``ll``,
``up``, ``p``), ``python -X importtime`` over an import graph of 160 modules where ``webhooks.dispatch`` imports a name
``retry_queue`` lacks, and ``python -m trace --count --summary --missing`` over ``unittest -v`` with one failing invoice
tax test above the coverage summary. Clean runs named after errors, failures, retries and exceptions
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exception_report``): ``pytest`` of 480 passing tests with a
long warnings summary, ``python -X dev`` of the exception report with ResourceWarning and DeprecationWarning lines,
``python -m trace --trace`` of a retry of failed payments, the same retry under ``python -m pdb`` stepping through
40 hits of a conditional breakpoint, and ``python -X importtime`` of the whole package. Labels
were written with each scenario, before the engine saw the output. Needs pytest 9.2.0 from PyPI (installed once into
``/tmp/offloader-corpus-venvs/u93-pay``); the rest is the standard library of the venv's Python.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-93"

_STDLIB = str(Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}")


def _python() -> Path:
    return make_venv(VENVS / "u93-pay", "pytest==9.2.0") / "bin" / "python"


def _pytest_rule(m: re.Match[bytes]) -> bytes:
    """pytest's closing rule with the duration written as 1.00s, centred again as pytest centres it."""
    title = m.group(1) + b" in 1.00s"
    n = max((80 - len(title) - 2) // 2, 1)
    line = b"=" * n + b" " + title + b" " + b"=" * n
    return line + b"=" if len(line) + 1 <= 80 else line


def _settle(out: bytes, root: Path) -> bytes:
    out = scrub(out, root).replace(str(VENVS / "u93-pay").encode(), b"/tmp/work/.venv")
    out = out.replace(_STDLIB.encode(), b"/usr/lib/python3.11")
    out = re.sub(rb"^=+ (.*?) in \d+\.\d+s(?: \(\d+:\d\d:\d\d\))? =+$", _pytest_rule, out, flags=re.M)
    return substitute(
        out,
        (r"import time:\s+\d+ \|\s+\d+ \|", "import time:       100 |        100 |"),
        (r"0x[0-9a-f]{6,16}", "0x7f0000000000"),
        (r"Ran (\d+) tests? in \d+\.\d+s", r"Ran \1 tests in 0.100s"),
        (r"pid=\d+", "pid=1000"),
    )


# ---------------------------------------------------------------- the payments package

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "catalog", "pricing",
    "coupons", "webhooks", "audit", "export", "session", "auth",
]  # fmt: skip

_CODES = [
    "CARD_DECLINED", "INSUFFICIENT_FUNDS", "EXPIRED_CARD", "DO_NOT_HONOR", "PROCESSING_ERROR", "FRAUD_SUSPECTED",
    "ISSUER_UNAVAILABLE", "INVALID_CVC", "LIMIT_EXCEEDED", "CURRENCY_MISMATCH", "DUPLICATE_CHARGE", "TIMEOUT",
]  # fmt: skip


def _base(root: Path) -> None:
    """The core of the payments package: error codes, retry queue, failed payments, exception report."""
    first, second = " ".join(_CODES[:6]), " ".join(_CODES[6:])
    write(
        root,
        {
            "payments/__init__.py": '"""Payments: charges, refunds, retries of failed payments."""\n'
            '__version__ = "3.2.0"\n',
            "payments/error_codes.py": f'''
                """Error codes returned by the card processors, and the catalogue that resolves them."""
                import warnings

                _NAMES = "{first}".split()
                _NAMES += "{second}".split()
                ERROR_CODES = {{name: 400 + i for i, name in enumerate(_NAMES)}}


                class ErrorCatalog:
                    def resolve(self, name):
                        return ERROR_CODES.get(name, 499)


                def legacy_lookup(name):
                    warnings.warn(
                        "error_codes.legacy_lookup() is deprecated; use ErrorCatalog.resolve()",
                        DeprecationWarning,
                        stacklevel=2,
                    )
                    return ERROR_CODES.get(name, 499)
            ''',
            "payments/retry_queue.py": '''
                """The retry queue of failed payments: exponential backoff with jitter."""


                class RetryQueue:
                    def __init__(self, max_attempts=5, base_ms=200):
                        self.max_attempts = max_attempts
                        self.base_ms = base_ms
                        self.jobs = []

                    def push(self, job):
                        self.jobs.append(job)

                    def drain(self):
                        jobs, self.jobs = self.jobs, []
                        return jobs


                def backoff_delay(attempt, base_ms, jitter_window):
                    spread = (attempt * 7919) % jitter_window
                    return base_ms * 2 ** (attempt - 1) + spread
            ''',
            "payments/failed_payments.py": '''
                """Failed payments: which ones to retry, which ones go to the dead-letter ledger."""
                from payments.error_codes import ERROR_CODES

                RETRYABLE = {"PROCESSING_ERROR", "ISSUER_UNAVAILABLE", "TIMEOUT", "INSUFFICIENT_FUNDS"}


                def classify(code):
                    if code not in ERROR_CODES:
                        return "unknown_error"
                    if code in RETRYABLE:
                        return "retry"
                    return "dead_letter"


                def retry_failed_payment(payment_id, code, attempt):
                    kind = classify(code)
                    if kind != "retry":
                        return False
                    recovered = (payment_id * 31 + attempt) % 5 != 0
                    return recovered
            ''',
        },
    )


# ---------------------------------------------------------------- -W error::DeprecationWarning


@case(
    "u93_werror_deprecation_replay",
    "python -W error",
    clean=False,
    group=GROUP,
    decisive=[
        "DeprecationWarning: error_codes.legacy_lookup() is deprecated; use ErrorCatalog.resolve()",
        'payments/settlement.py", line 22, in settle_chargeback',
        "== batches/batch_07.json",
    ],
)
def _werror(root: Path) -> bytes:
    _base(root)
    write(
        root,
        {
            "payments/fx_rates.py": """
                import warnings

                RATES = {"EUR": 1.08, "GBP": 1.27, "USD": 1.0, "JPY": 0.0067, "CHF": 1.12}


                def convert(cents, currency, txn):
                    if currency in ("JPY", "CHF"):
                        warnings.warn(f"stale FX rate for {currency} used for txn {txn} (older than 24h)", UserWarning)
                    return round(cents * RATES[currency])
            """,
            "payments/settlement.py": '''
                """Settlement of a batch: charges, refunds and chargebacks."""
                from payments import fx_rates
                from payments.error_codes import ERROR_CODES, legacy_lookup


                def settle_charge(row):
                    return fx_rates.convert(row["cents"], row["currency"], row["txn"])


                def settle_refund(row):
                    return -fx_rates.convert(row["cents"], row["currency"], row["txn"])


                def settle_chargeback(row):
                    code = row.get("reason", "CARD_DECLINED")
                    if code in ERROR_CODES and not row.get("legacy"):
                        status = ERROR_CODES[code]
                    else:
                        # old processors send reasons the new catalogue does not hold yet
                        # (kept until the migration of the legacy acquirer is done)
                        # see the error catalogue notes in docs/errors.md
                        status = legacy_lookup(code)
                    return -row["cents"], status
            ''',
            "payments/replay.py": """
                import json
                import sys

                from payments import settlement


                def main(path):
                    rows = json.load(open(path, encoding="utf-8"))
                    total = 0
                    for row in rows:
                        if row["kind"] == "charge":
                            total += settlement.settle_charge(row)
                        elif row["kind"] == "refund":
                            total += settlement.settle_refund(row)
                        else:
                            amount, status = settlement.settle_chargeback(row)
                            total += amount
                            print(f"  chargeback {row['txn']} reason={row.get('reason')} status={status}")
                        print(f"  settled {row['kind']:<10} txn={row['txn']} {row['currency']} {row['cents']:>7}")
                    print(f"batch {path}: {len(rows)} rows settled, net {total} cents")


                if __name__ == "__main__":
                    main(sys.argv[1])
            """,
        },
    )
    import json

    currencies = ["EUR", "GBP", "USD", "JPY", "CHF"]
    for b in range(1, 13):
        rows = []
        for i in range(60):
            txn = b * 1000 + i
            kind = ["charge", "charge", "refund", "chargeback"][i % 4] if i % 9 else "charge"
            row = {"txn": txn, "kind": kind, "currency": currencies[(i * 3 + b) % 5], "cents": (txn * 37) % 90000}
            if kind == "chargeback":
                row["reason"] = _CODES[(i + b) % len(_CODES)]
                if b == 7 and i == 35:
                    row["legacy"] = True
            rows.append(row)
        (root / "batches").mkdir(exist_ok=True)
        (root / "batches" / f"batch_{b:02d}.json").write_text(json.dumps(rows))
    py = _python()
    cmd = f'for f in batches/*.json; do echo "== $f"; {py} -W error::DeprecationWarning -m payments.replay "$f"; done'
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- pytest with a long warnings summary


def _pytest_project(root: Path, names: list[str], *, failing: bool) -> None:
    _base(root)
    files = {
        "pytest.ini": "[pytest]\ntestpaths = tests\n",
        "tests/__init__.py": "",
        "payments/refunds.py": '''
            """Partial refunds split over the captured charges."""


            def split_refund(total_cents, parts):
                share = total_cents // parts
                return [share] * parts
        ''',
    }
    for name in names:
        files[f"tests/test_{name}.py"] = f'''
            import warnings

            import pytest

            from payments import error_codes, failed_payments, retry_queue


            @pytest.mark.parametrize("n", range(30))
            def test_{name}_amounts(n):
                if n % 2:
                    warnings.warn(f"{name}: amount {{n}} passed as float cents; pass an int", DeprecationWarning)
                delay = retry_queue.backoff_delay(n % 5 + 1, 200, 97)
                assert delay >= 200
                assert failed_payments.classify("TIMEOUT") == "retry"
                assert error_codes.ErrorCatalog().resolve("CARD_DECLINED") == 400
        '''
    if failing:
        files["tests/test_refunds.py"] += """

            def test_partial_refund_rounding():
                from payments.refunds import split_refund

                parts = split_refund(1999, 3)
                assert len(parts) == 3
                assert sum(parts) == 1999
        """
    write(root, files)


@case(
    "u93_pytest_warnings_one_failure",
    "pytest",
    clean=False,
    group=GROUP,
    decisive=[
        "E       assert 1998 == 1999",
        "FAILED tests/test_refunds.py::test_partial_refund_rounding",
        "1 failed, 600 passed",
    ],
)
def _pytest_fail(root: Path) -> bytes:
    names = [*_AREAS[:10], "refunds_api", "payouts", "disputes", "chargebacks", "settlement", "fx", "fees",
             "payouts_eu", "risk", "kyc"]  # fmt: skip
    names[4] = "refunds"
    _pytest_project(root, names, failing=True)
    return _settle(sh(f"{_python()} -m pytest -v -p no:cacheprovider", root), root)


@case(
    "u93_pytest_clean_warnings",
    "pytest",
    clean=True,
    group=GROUP,
    decisive=["480 passed"],
)
def _pytest_clean(root: Path) -> bytes:
    names = ["failed_payments", "error_codes", "retry_queue", "exception_report", *_AREAS[:12]]
    _pytest_project(root, names, failing=False)
    return _settle(sh(f"{_python()} -m pytest -p no:cacheprovider", root), root)


# ---------------------------------------------------------------- -X dev, -X tracemalloc


@case(
    "u93_xdev_tracemalloc_emfile",
    "python -X dev",
    clean=False,
    group=GROUP,
    decisive=["OSError: [Errno 24] Too many open files", 'payments/reconcile.py", line 5, in read_statement'],
)
def _xdev_emfile(root: Path) -> bytes:
    _base(root)
    write(
        root,
        {
            "payments/statement_cache.py": '''
                """Open ledger files, one per account, kept for the whole reconciliation."""

                _HANDLES = {}


                def ledger_handle(account):
                    if account not in _HANDLES:
                        _HANDLES[account] = open(f"ledgers/{account}.csv", "a", encoding="utf-8")
                    return _HANDLES[account]
            ''',
            "payments/reconcile.py": """
                from payments import failed_payments, statement_cache


                def read_statement(path):
                    return open(path, encoding="utf-8").read().splitlines()


                def main():
                    for i in range(300):
                        account = f"acct_{i:04d}"
                        lines = read_statement(f"statements/{account}.csv")
                        failed = [row for row in lines if failed_payments.classify(row.split(",")[1]) != "retry"]
                        statement_cache.ledger_handle(account).write(f"{account},{len(lines)},{len(failed)}\\n")
                        print(f"reconciled {account}: {len(lines)} lines, {len(failed)} failed payments to dead-letter")


                if __name__ == "__main__":
                    main()
            """,
        },
    )
    (root / "statements").mkdir()
    (root / "ledgers").mkdir()
    for i in range(300):
        rows = [f"{i * 100 + k},{_CODES[(i + k) % len(_CODES)]},{(i * k * 37) % 9000}" for k in range(8)]
        (root / "statements" / f"acct_{i:04d}.csv").write_text("\n".join(rows) + "\n")
    cmd = f"ulimit -n 80; {_python()} -X dev -X tracemalloc=5 -m payments.reconcile"
    return _settle(sh(cmd, root), root)


@case(
    "u93_xdev_exception_report_clean",
    "python -X dev",
    clean=True,
    group=GROUP,
    decisive=["exception report complete: 192 rows"],
)
def _xdev_clean(root: Path) -> bytes:
    _base(root)
    write(
        root,
        {
            "payments/exception_report.py": '''
                """The exception report: failed payments per area and error code, with retries."""
                import csv
                import locale
                import sys

                from payments import error_codes, failed_payments

                AREAS = sys.argv[1].split(",")


                def load(area):
                    return list(csv.reader(open(f"failed/{area}.csv", encoding="utf-8")))


                def main():
                    encoding = locale.getdefaultlocale()[1] or "UTF-8"
                    out = open("exception_report.csv", "w", encoding=encoding)
                    rows = total = 0
                    for area in AREAS:
                        records = load(area)
                        for name in error_codes.ERROR_CODES:
                            hits = [r for r in records if r[1] == name]
                            retried = sum(1 for r in hits if failed_payments.classify(name) == "retry")
                            if area == "ledger":
                                status = error_codes.legacy_lookup(name)
                            else:
                                status = error_codes.ERROR_CODES[name]
                            print(
                                f"exception_report: area={area:<9} code={name:<19} status={status} "
                                f"failed_payments={len(hits):>3} retried={retried:>3} errors={len(hits) - retried}"
                            )
                            out.write(f"{area},{name},{len(hits)},{retried}\\n")
                            rows += 1
                            total += len(hits)
                    out.close()
                    print(f"exception report complete: {rows} rows, {len(error_codes.ERROR_CODES)} error codes, "
                          f"{total} failed payments -> exception_report.csv")


                if __name__ == "__main__":
                    main()
            ''',
        },
    )
    (root / "failed").mkdir()
    for a, area in enumerate(_AREAS):
        rows = [f"{a * 1000 + k},{_CODES[(a * 5 + k * 7) % len(_CODES)]},{(k * 37) % 9000}" for k in range(120)]
        (root / "failed" / f"{area}.csv").write_text("\n".join(rows) + "\n")
    return _settle(sh(f"{_python()} -X dev -m payments.exception_report {','.join(_AREAS)}", root), root)


# ---------------------------------------------------------------- pdb post-mortem


@case(
    "u93_pdb_postmortem_retry_worker",
    "python -m pdb",
    clean=False,
    group=GROUP,
    decisive=[
        "ZeroDivisionError: integer modulo by zero",
        'payments/retry_queue.py", line 19, in backoff_delay',
        "Uncaught exception. Entering post mortem debugging",
    ],
)
def _pdb(root: Path) -> bytes:
    _base(root)
    write(
        root,
        {
            "payments/retry_worker.py": '''
                """Drains the retry queue of failed payments."""
                from payments.failed_payments import retry_failed_payment
                from payments.retry_queue import RetryQueue, backoff_delay

                CODES = ["PROCESSING_ERROR", "ISSUER_UNAVAILABLE", "TIMEOUT", "INSUFFICIENT_FUNDS", "CARD_DECLINED"]


                def run(queue):
                    for job in queue.drain():
                        for attempt in range(1, queue.max_attempts + 1):
                            delay_ms = backoff_delay(attempt, queue.base_ms, job["jitter_window"])
                            ok = retry_failed_payment(job["id"], job["code"], attempt)
                            verdict = "recovered" if ok else "failed, requeued"
                            print(f"retry_queue: payment {job['id']} code={job['code']} attempt {attempt} "
                                  f"delay {delay_ms}ms -> {verdict}")
                            if ok:
                                break


                def main():
                    queue = RetryQueue()
                    for i in range(400):
                        window = 0 if i == 263 else 97
                        queue.push({"id": 50000 + i, "code": CODES[i % len(CODES)], "jitter_window": window})
                    run(queue)


                if __name__ == "__main__":
                    main()
            ''',
        },
    )
    commands = "bt\\nll\\np attempt, jitter_window, base_ms\\nup\\np job\\np delay_ms\\nq\\n"
    return _settle(sh(f"printf '{commands}' | {_python()} -m pdb -c continue -m payments.retry_worker", root), root)


# ---------------------------------------------------------------- -X importtime

_STDLIB_IMPORTS = [
    "json", "decimal", "dataclasses", "logging", "email.message", "http.client", "xml.etree.ElementTree", "sqlite3",
    "csv", "zipfile", "hashlib", "uuid", "urllib.parse", "argparse", "fractions", "statistics", "difflib", "gzip",
    "tarfile", "shelve", "configparser", "smtplib", "imaplib", "ftplib", "plistlib", "tomllib", "secrets", "queue",
]  # fmt: skip


def _import_graph(root: Path, *, broken: bool) -> int:
    """16 areas of 9 modules each, each importing a few standard modules and the one before it; ``broken`` makes
    ``webhooks.dispatch`` import a name that ``retry_queue`` does not define."""
    _base(root)
    subs = ["models", "schemas", "repository", "service", "errors", "retry", "dispatch", "exceptions", "api"]
    files = {}
    count = 0
    for a, area in enumerate(_AREAS):
        files[f"payments/{area}/__init__.py"] = f'"""The {area} area."""\n'
        for s, sub in enumerate(subs):
            std = [_STDLIB_IMPORTS[(a * 9 + s * 5 + k) % len(_STDLIB_IMPORTS)] for k in range(3)]
            lines = [f"import {m}" for m in std]
            if s:
                lines.append(f"from payments.{area} import {subs[s - 1]}")
            lines.append("from payments import error_codes, failed_payments, retry_queue")
            if broken and area == "webhooks" and sub == "dispatch":
                lines.append("from payments.retry_queue import RetryPolicy")
            lines.append(f'\nNAME = "{area}.{sub}"\n')
            files[f"payments/{area}/{sub}.py"] = "\n".join(lines)
            count += 1
    imports = "".join(f"from payments.{area} import api as {area}_api  # noqa\n" for area in _AREAS)
    files["payments/app.py"] = (
        "import sys\n\n" + imports + "from payments import __version__, error_codes, retry_queue\n\n\n"
        "def main():\n"
        "    loaded = sorted(m for m in sys.modules if m.startswith('payments.'))\n"
        '    print(f"payments {__version__} ready: {len(loaded)} modules imported, "\n'
        '          f"{len(error_codes.ERROR_CODES)} error codes, retry_queue max_attempts="\n'
        '          f"{retry_queue.RetryQueue().max_attempts}")\n'
    )
    write(root, files)
    return count


@case(
    "u93_importtime_importerror",
    "python -X importtime",
    clean=False,
    group=GROUP,
    decisive=[
        "ImportError: cannot import name 'RetryPolicy' from 'payments.retry_queue'",
        'payments/webhooks/dispatch.py", line 6, in <module>',
    ],
)
def _importtime_fail(root: Path) -> bytes:
    _import_graph(root, broken=True)
    return _settle(sh(f"{_python()} -X importtime -c 'import payments.app; payments.app.main()'", root), root)


@case(
    "u93_importtime_clean",
    "python -X importtime",
    clean=True,
    group=GROUP,
    decisive=["payments 3.2.0 ready: 164 modules imported"],
)
def _importtime_clean(root: Path) -> bytes:
    _import_graph(root, broken=False)
    return _settle(sh(f"{_python()} -X importtime -c 'import payments.app; payments.app.main()'", root), root)


# ---------------------------------------------------------------- python -m trace


def _unittest_project(root: Path) -> None:
    _base(root)
    files = {
        "tests/__init__.py": "",
        "payments/invoice_tax.py": '''
            """Tax lines of an invoice."""
            from decimal import ROUND_HALF_UP, Decimal


            def tax(amount, rate):
                return (Decimal(amount) * Decimal(rate)).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
        ''',
    }
    for name in ["failed_payments", "error_codes", "retry_queue", *_AREAS[:9]]:
        methods = "".join(
            f"    def test_{name}_case_{k:02d}(self):\n"
            f"        self.assertEqual(failed_payments.classify(CODES[{k} % len(CODES)]) in KINDS, True)\n"
            f"        self.assertGreaterEqual(retry_queue.backoff_delay({k % 5 + 1}, 100, 89), 100)\n\n"
            for k in range(25)
        )
        cls = "".join(p.capitalize() for p in name.split("_"))
        files[f"tests/test_{name}.py"] = (
            "import unittest\n\nfrom payments import error_codes, failed_payments, retry_queue\n\n"
            "CODES = list(error_codes.ERROR_CODES)\nKINDS = {'retry', 'dead_letter', 'unknown_error'}\n\n\n"
            f"class {cls}Tests(unittest.TestCase):\n{methods}"
        )
    files["tests/test_invoice_tax.py"] = """
        import unittest
        from decimal import Decimal

        from payments.invoice_tax import tax


        class InvoiceTaxTests(unittest.TestCase):
            def test_tax_basic(self):
                self.assertEqual(tax("100.00", "0.2"), Decimal("20.00"))

            def test_tax_rounding_half_even(self):
                self.assertEqual(tax("101.25", "0.1"), Decimal("10.12"))

            def test_tax_zero_rate(self):
                self.assertEqual(tax("55.10", "0"), Decimal("0.00"))
    """
    write(root, files)


@case(
    "u93_trace_count_unittest_fail",
    "python -m trace",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL: test_tax_rounding_half_even",
        "AssertionError: Decimal('10.13') != Decimal('10.12')",
        "FAILED (failures=1)",
    ],
)
def _trace_count(root: Path) -> bytes:
    _unittest_project(root)
    venv = VENVS / "u93-pay"
    cmd = (
        f"{_python()} -m trace --count --summary --missing -C cover --ignore-dir={_STDLIB} --ignore-dir={venv} "
        "--module unittest discover -v -s tests -t ."
    )
    return _settle(sh(cmd, root), root)


def _retry_failed(root: Path) -> None:
    _base(root)
    write(
        root,
        {
            "payments/retry_failed.py": '''
                """Retries every failed payment of the day; the unrecoverable ones go to the dead-letter ledger."""
                from payments.error_codes import ERROR_CODES
                from payments.failed_payments import classify, retry_failed_payment
                from payments.retry_queue import RetryQueue, backoff_delay


                def main():
                    codes = list(ERROR_CODES)
                    queue = RetryQueue(max_attempts=3)
                    for i in range(240):
                        queue.push((70000 + i, codes[(i * 5) % len(codes)]))
                    recovered = dead = 0
                    for payment_id, code in queue.drain():
                        if classify(code) != "retry":
                            dead += 1
                            continue
                        for attempt in range(1, queue.max_attempts + 1):
                            backoff_delay(attempt, queue.base_ms, 97)
                            if retry_failed_payment(payment_id, code, attempt):
                                recovered += 1
                                break
                        else:
                            dead += 1
                    print(f"retried {recovered + dead} failed payments: {recovered} recovered, {dead} to dead-letter")


                if __name__ == "__main__":
                    main()
            ''',
        },
    )


@case(
    "u93_trace_trace_retry_clean",
    "python -m trace",
    clean=True,
    group=GROUP,
    decisive=["retried 240 failed payments:"],
)
def _trace_trace(root: Path) -> bytes:
    _retry_failed(root)
    venv = VENVS / "u93-pay"
    cmd = f"{_python()} -m trace --trace --ignore-dir={_STDLIB} --ignore-dir={venv} --module payments.retry_failed"
    return _settle(sh(cmd, root), root)


@case(
    "u93_pdb_breakpoint_session_clean",
    "python -m pdb",
    clean=True,
    group=GROUP,
    decisive=["retried 240 failed payments: 80 recovered", "The program finished and will be restarted"],
)
def _pdb_clean(root: Path) -> bytes:
    _retry_failed(root)
    commands = "b payments/failed_payments.py:17, attempt == 2\\nc\\n" + "p payment_id, code, kind\\nc\\n" * 40
    commands += "clear 1\\nc\\nq\\n"
    return _settle(sh(f"printf '{commands}' | {_python()} -m pdb -m payments.retry_failed", root), root)
