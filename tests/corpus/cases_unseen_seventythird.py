"""Held-out outputs (group ``unseen-73``): a seventy-third batch, pytest in depth as a coding agent runs it on a
generated payments service (``payflow``: 60 modules named after the business areas, ``error_reporter.py``,
``failed_payments.py``, ``retry_queue.py``, ``exception_log.py``, with test files of the same names whose parameters
have ids like ``declined-error``, ``timeout-retry``, ``failed-webhook`` and ``exception-logged``).

Failing runs: ``pytest -v -rA`` of 1,080 tests where one parameter of ``test_failed_payments.py`` fails in the middle
(the ``-rA`` summary repeats every PASSED test), the same ``RetryExhaustedError`` of ``retry_worker.py`` shown with
``--tb=long``, ``--tb=short``, ``--tb=line`` and ``--tb=native`` one after the other, ``pytest -n 2 -v`` (pytest-xdist,
whose ``[gw0]``/``[gw1]`` reports alternate) with one failure, ``pytest --lf -v`` after most of 17 failures were fixed,
a fixture failing at teardown (``ERROR at teardown of ...``) in a verbose run, a hypothesis ``Falsifying example``,
``pytest -vv`` of the webhooks tests where an async delivery times out and a nested JSON payload differs (the long
assertion diff), and ``pytest -q`` of 2,040 tests whose dots hold one ``F`` in the middle. Clean runs full of error
words: ``pytest -ra`` with skips and xfails whose reasons talk about errors and retries, a run whose warnings summary
holds 1,080 DeprecationWarnings, ``pytest -v --durations=20`` with slow retry and failure tests, and ``pytest --cov
--cov-report=term-missing`` over the 60 modules. Labels were written with each scenario, before the engine saw the
output. Needs pytest 9.2.0, pytest-xdist 3.8.0, pytest-cov 7.1.0, pytest-asyncio 1.5.0, hypothesis 6.170.27, httpx
0.29.0 and coverage 7.18.0 from PyPI, installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u73-pytest``.
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-73"

_REQS = (
    "pytest==9.2.0 pytest-xdist==3.8.0 pytest-cov==7.1.0 pytest-asyncio==1.5.0 hypothesis==6.170.27 httpx==0.29.0"
    " coverage==7.18.0"
)
#: The tools' environment, made once and kept between runs.
_VENV = VENVS / "u73-pytest"


def _env(root: Path) -> str:
    """The environment prefix that runs the pinned tools (made once) on the project in ``root``."""
    make_venv(_VENV, _REQS)
    return f"PATH={_VENV}/bin:$PATH HOME={root / 'home'} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 TZ=UTC"


def _verdict(m: re.Match[bytes]) -> bytes:
    """pytest's closing line, centred again once its duration is the same on every run."""
    title = m.group(1)
    side = max((80 - len(title) - 2) // 2, 1)
    line = b"=" * side + b" " + title + b" " + b"=" * side
    return line + b"=" if len(line) < 80 else line


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, addresses."""
    out = _scrub(out, root)
    return re.sub(rb"^=+ (.* in 1\.00s) =+$", _verdict, out, flags=re.M)


def _scrub(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r" in \d+\.\d+s( \(\d+:\d\d:\d\d\))?", " in 1.00s"),
        (r"at 0x[0-9a-f]+", "at 0x7f0000000000"),
        (r"\(\d+(\.\d+)? ?ms\)", "(1ms)"),
        (r"Typical runtimes: .*$", "Typical runtimes: < 1ms, of which < 1ms in data generation"),
        (r"\(\d+\.\d\d seconds\)", "(0.01 seconds)"),
    )


# ---------------------------------------------------------------- the generated service

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "catalog", "search",
    "pricing", "coupons", "webhooks", "audit", "export", "auth", "session",
]  # fmt: skip
#: 60 modules: the error, failure and retry ones first, then each area's service, store and jobs.
_MODULES = [
    "error_reporter", "failed_payments", "retry_queue", "exception_log", "failed_webhooks", "retry_policy",
    "error_codes", "failed_exports", "retry_backoff",
] + [f"{a}_{k}" for a in _AREAS for k in ("service", "store", "jobs")]  # fmt: skip

_IDS = [
    ("declined-error", "card", 1200),
    ("timeout-retry", "wallet", 0),
    ("failed-webhook", "bank", 530),
    ("exception-logged", "voucher", 99),
    ("retry-exhausted", "refund", 4100),
    ("partial-refund", "split", 2750),
    ("error-budget", "sepa", 15),
    ("fraud-failed", "crypto", 8800),
    ("chargeback-error", "ach", 640),
    ("retry-after-429", "paypal", 310),
    ("exception-in-hook", "klarna", 72),
    ("failed-capture", "giro", 1999),
    ("error-then-ok", "ideal", 45),
    ("retry-jitter", "boleto", 3600),
    ("duplicate-failed", "pix", 808),
    ("error-cents", "upi", 1),
]

_EXCEPTIONS = '''
"""The errors payflow raises."""


class PaymentError(Exception):
    """A payment that cannot go on."""


class RetryExhaustedError(PaymentError):
    """A job that failed on every attempt the retry policy allows."""
'''


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


def _module(name: str, *, deprecated: bool = False) -> str:
    cls = _camel(name)
    warn = ""
    if deprecated:
        warn = (
            f'        warnings.warn(\n            "{cls}.add() is deprecated since payflow 3.2; use {cls}.record()'
            ' (retry and error bookkeeping moves to retry_queue)",\n'
            "            DeprecationWarning,\n            stacklevel=2,\n        )\n"
        )
    return f'''
"""{name.replace("_", " ").capitalize()}: part of the payflow service."""

from __future__ import annotations

import warnings

from payflow.exceptions import PaymentError

LIMIT = {len(name) * 150}


class {cls}:
    """Amounts in cents by key; what went over the limit waits in ``failed`` for the retry queue."""

    def __init__(self) -> None:
        self.amounts: dict[str, int] = {{}}
        self.failed: list[str] = []

    def add(self, key: str, cents: int) -> int:
{warn}        if cents < 0:
            raise PaymentError(f"{name}: negative amount for {{key}}")
        self.amounts[key] = cents
        if cents > LIMIT:
            self.failed.append(key)
        return self.amounts[key]

    def total(self) -> int:
        return sum(self.amounts.values())

    def retry_failed(self, limit: int = 3) -> list[str]:
        retried, self.failed = self.failed[:limit], self.failed[limit:]
        return retried

    def error_report(self) -> dict[str, object]:
        if not self.failed:
            return {{"module": "{name}", "errors": 0}}
        lines = [f"{{key}}: over limit of {{LIMIT}}" for key in self.failed]
        return {{"module": "{name}", "errors": len(lines), "lines": lines}}

    def export_csv(self) -> str:
        rows = [f"{{key}},{{cents}}" for key, cents in sorted(self.amounts.items())]
        if not rows:
            warnings.warn("{name}: nothing to export", UserWarning, stacklevel=2)
        return "\\n".join(["key,cents", *rows])
'''


def _tests(name: str, ids: int) -> str:
    cls = _camel(name)
    params = "".join(f"    pytest.param({key!r}, {cents}, id={tid!r}),\n" for tid, key, cents in _IDS[:ids])
    return f"""
import pytest

from payflow.exceptions import PaymentError
from payflow.{name} import LIMIT, {cls}

CASES = [
{params}]


@pytest.mark.parametrize(("key", "cents"), CASES)
def test_add_keeps_amount(key, cents):
    svc = {cls}()
    assert svc.add(key, cents) == cents
    assert svc.amounts[key] == cents


@pytest.mark.parametrize(("key", "cents"), CASES)
def test_over_limit_goes_to_retry(key, cents):
    svc = {cls}()
    svc.add(key, cents)
    assert svc.retry_failed() == ([key] if cents > LIMIT else [])


def test_negative_amount_raises_payment_error():
    with pytest.raises(PaymentError, match="negative amount"):
        {cls}().add("card", -5)


def test_error_report_counts_failed():
    svc = {cls}()
    svc.add("big", LIMIT + 1)
    assert svc.error_report()["errors"] == 1
"""


_WORKER = '''
"""Retry worker: charges a job, retrying with the policy's attempts, and gives up with RetryExhaustedError."""

from __future__ import annotations

from dataclasses import dataclass, field

from payflow.exceptions import PaymentError, RetryExhaustedError


@dataclass
class Gateway:
    """A fake card gateway: declines the first ``declines`` charges of each job."""

    declines: int
    seen: dict[str, int] = field(default_factory=dict)

    def charge(self, job_id: str, cents: int) -> str:
        self.seen[job_id] = self.seen.get(job_id, 0) + 1
        if self.seen[job_id] <= self.declines:
            raise PaymentError(f"card declined for {job_id} (attempt {self.seen[job_id]}, {cents} cents)")
        return f"ch_{job_id}"


class RetryWorker:
    def __init__(self, gateway: Gateway, attempts: int) -> None:
        self.gateway = gateway
        self.attempts = attempts

    def _attempt(self, job_id: str, cents: int) -> str:
        return self.gateway.charge(job_id, cents)

    def _run(self, job_id: str, cents: int) -> str:
        last: PaymentError | None = None
        for _ in range(ATTEMPTS_EXPR):
            try:
                return self._attempt(job_id, cents)
            except PaymentError as exc:
                last = exc
        raise RetryExhaustedError(f"job {job_id} failed after {self.attempts} attempts") from last

    def drain(self, jobs: dict[str, int]) -> dict[str, str]:
        return {job_id: self._run(job_id, cents) for job_id, cents in sorted(jobs.items())}
'''

_WORKER_TESTS = """
import pytest

from payflow.retry_worker import Gateway, RetryWorker


@pytest.mark.parametrize("declines", [0, 1, 2], ids=["no-error", "one-failed-charge", "two-failed-charges"])
def test_drain_settles_every_job(declines):
    worker = RetryWorker(Gateway(declines=declines), attempts=3)
    charges = worker.drain({"inv-1001": 1250, "inv-1002": 980, "inv-1003": 4400})
    assert charges == {"inv-1001": "ch_inv-1001", "inv-1002": "ch_inv-1002", "inv-1003": "ch_inv-1003"}


def test_empty_queue_is_a_noop():
    assert RetryWorker(Gateway(declines=5), attempts=3).drain({}) == {}
"""

_PYPROJECT = """
[project]
name = "payflow"
version = "3.2.0"

[tool.pytest.ini_options]
testpaths = ["tests"]
pythonpath = ["src"]
asyncio_default_fixture_loop_scope = "function"
"""


def _project(
    root: Path,
    modules: list[str] | None = None,
    *,
    ids: int = 8,
    bugs: dict[str, tuple[str, str]] | None = None,
    deprecated: bool = False,
    worker_attempts: str = "self.attempts",
) -> list[str]:
    """The payflow service in ``root``: ``modules`` (all 60 by default) with a test file each, the retry worker and
    its tests; ``bugs`` maps a module to the (old, new) text put into it."""
    modules = _MODULES if modules is None else modules
    files = {
        "pyproject.toml": _PYPROJECT,
        "src/payflow/__init__.py": '"""payflow: payments, refunds, retries and the error reporter."""\n',
        "src/payflow/exceptions.py": _EXCEPTIONS,
        "src/payflow/retry_worker.py": _WORKER.replace("ATTEMPTS_EXPR", worker_attempts),
        "tests/test_retry_worker.py": _WORKER_TESTS,
    }
    for name in modules:
        text = _module(name, deprecated=deprecated)
        if bugs and name in bugs:
            old, new = bugs[name]
            assert old in text, (name, old)
            text = text.replace(old, new)
        files[f"src/payflow/{name}.py"] = text
        files[f"tests/test_{name}.py"] = _tests(name, ids)
    write(root, files)
    (root / "home").mkdir(exist_ok=True)
    return modules


def _pytest(root: Path, args: str, *, extra_env: str = "") -> bytes:
    return _settle(sh(f"{_env(root)} {extra_env} pytest -p no:randomly {args}", root), root)


# ---------------------------------------------------------------- failing runs


@case(
    "u73_verbose_rA_one_failure",
    "pytest -v -rA",
    clean=False,
    group=GROUP,
    decisive=[
        "E       AssertionError: assert 2749 == 2750",
        "FAILED tests/test_failed_payments.py::test_add_keeps_amount[partial-refund]",
        "1 failed, 1083 passed in 1.00s",
    ],
)
def _verbose_ra(root: Path) -> bytes:
    bug = ("        return self.amounts[key]\n", "        return self.amounts[key] - (key == 'split')\n")
    _project(root, bugs={"failed_payments": bug})
    return _pytest(root, "-v -rA -p no:cacheprovider")


@case(
    "u73_tb_styles_same_failure",
    "pytest --tb=long/short/line/native",
    clean=False,
    group=GROUP,
    decisive=[
        "E       payflow.exceptions.RetryExhaustedError: job inv-1001 failed after 3 attempts",
        "src/payflow/retry_worker.py:39: payflow.exceptions.RetryExhaustedError: job inv-1001",
        'File "/tmp/work/src/payflow/retry_worker.py", line 39, in _run',
    ],
)
def _tb_styles(root: Path) -> bytes:
    _project(root, ["retry_queue", "error_reporter"], worker_attempts="self.attempts - 1")
    runs = []
    for tb in ("long", "short", "line", "native"):
        runs.append(f"echo '$ pytest tests/test_retry_worker.py --tb={tb}'")
        runs.append(f"{_env(root)} pytest -p no:cacheprovider tests/test_retry_worker.py --tb={tb}")
    return _settle(sh("; ".join(runs), root), root)


_TURNSTILE = '''
"""The two suites share the sandbox gateway: one test at a time, the suites taking turns."""

import os
import time
from pathlib import Path

import pytest

TURN = Path(os.environ["GATEWAY_TURN_FILE"])


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item):
    pos = item.session.items.index(item)
    half = len(item.session.items) // 2
    turn = 2 * pos if pos < half else 2 * (pos - half) + 1
    while int(TURN.read_text() or 0) < turn:
        time.sleep(0.001)
    yield
    time.sleep(0.06)
    tmp = TURN.with_name(f"turn.{os.getpid()}")
    tmp.write_text(str(turn + 1))
    os.replace(tmp, TURN)
'''


def _suite(modules: list[str], tests: dict[str, str]) -> str:
    head = "from importlib import import_module\n\nimport pytest\n\nfrom payflow.exceptions import PaymentError\n\n"
    head += f"MODULES = {modules!r}\n\n\ndef service(module):\n    mod = import_module(f'payflow.{{module}}')\n"
    head += "    return mod, getattr(mod, ''.join(p.capitalize() for p in module.split('_')))()\n"
    return head + "".join(
        f"\n\n@pytest.mark.parametrize('module', MODULES)\ndef {name}(module):\n{body}" for name, body in tests.items()
    )


@case(
    "u73_xdist_n2_one_failure",
    "pytest -n 2 (xdist)",
    clean=False,
    group=GROUP,
    decisive=[
        "E       AssertionError: assert ['declined-card'] == []",
        "tests/test_retry_suite.py:33: AssertionError",
        "1 failed, 359 passed",
    ],
)
def _xdist(root: Path) -> bytes:
    bug = ("        if cents > LIMIT:\n", "        if cents > LIMIT // 10:\n")
    modules = _project(root, bugs={"failed_webhooks": bug}, ids=0)
    payments = {
        "test_add_and_total": "    _, svc = service(module)\n    svc.add('a', 5)\n    svc.add('b', 7)\n"
        "    assert svc.total() == 12\n",
        "test_negative_amount_raises": "    _, svc = service(module)\n    with pytest.raises(PaymentError):\n"
        "        svc.add('a', -1)\n",
        "test_error_report_empty": "    _, svc = service(module)\n    assert svc.error_report()['errors'] == 0\n",
    }
    retry = {
        "test_retry_failed_is_bounded": "    mod, svc = service(module)\n    for i in range(5):\n"
        "        svc.add(f'k{i}', mod.LIMIT + 1)\n    assert len(svc.retry_failed(limit=2)) == 2\n",
        "test_limit_follows_module_name": "    mod, _ = service(module)\n    assert mod.LIMIT == len(module) * 150\n",
        "test_small_charge_not_retried": "    _, svc = service(module)\n    svc.add('declined-card', 300)\n"
        "    assert svc.retry_failed() == []\n",
    }
    write(
        root,
        {
            "tests/conftest.py": _TURNSTILE,
            "tests/test_payments_suite.py": _suite(modules, payments),
            "tests/test_retry_suite.py": _suite(modules, retry),
            "turn": "0",
        },
    )
    for name in modules:
        (root / f"tests/test_{name}.py").unlink()
    (root / "tests/test_retry_worker.py").unlink()
    out = sh(f"{_env(root)} GATEWAY_TURN_FILE={root / 'turn'} pytest -p no:cacheprovider -n 2 --dist loadfile -v", root)
    first = re.search(rb"\[(gw\d)\] [^\n]*test_payments_suite", out)
    if first and first.group(1) == b"gw1":  # the workers' names, like PIDs: gw0 is the one that ran the first suite
        out = out.replace(b"[gw0]", b"[gwX]").replace(b"[gw1]", b"[gw0]").replace(b"[gwX]", b"[gw1]")
        out = out.replace(b"gw0 ", b"gwX ").replace(b"gw1 ", b"gw0 ").replace(b"gwX ", b"gw1 ")
    return _settle(out, root)


@case(
    "u73_last_failed_rerun",
    "pytest --lf",
    clean=False,
    group=GROUP,
    decisive=[
        "run-last-failure: rerun previous 68 failures",
        "E       AssertionError: assert 0 == 1",
        "FAILED tests/test_coupons_service.py::test_add_keeps_amount[error-cents]",
        "1 failed, 67 passed",
    ],
)
def _last_failed(root: Path) -> bytes:
    store = "        self.amounts[key] = cents\n"
    rounded = (store, "        self.amounts[key] = cents // 100 * 100\n")
    bugs = {f"{area}_{kind}": rounded for area in ("coupons", "pricing") for kind in ("service", "store", "jobs")}
    bugs["tax_jobs"] = ("        if cents < 0:\n", "        if cents < -10:\n")
    _project(root, ids=16, bugs=bugs, worker_attempts="self.attempts - 1")
    first = _pytest(root, "-q")  # the run the agent saw before fixing: it fills .pytest_cache
    assert b"68 failed" in first, first[-400:]
    _project(
        root, ids=16, bugs={"coupons_service": (store, "        self.amounts[key] = cents if cents >= 10 else 0\n")}
    )
    return _pytest(root, "--lf -v --tb=long")


_TEARDOWN_CONFTEST = '''
import pytest


class LedgerConnection:
    """A connection to the ledger database that refuses to close while cursors are open."""

    def __init__(self) -> None:
        self.cursors: list[str] = []

    def cursor(self, name: str) -> str:
        self.cursors.append(name)
        return name

    def release(self, name: str) -> None:
        self.cursors.remove(name)

    def close(self) -> None:
        if self.cursors:
            raise RuntimeError(f"ledger connection closed with {len(self.cursors)} open cursors: {self.cursors}")


@pytest.fixture
def ledger_conn():
    conn = LedgerConnection()
    yield conn
    conn.close()
'''

_TEARDOWN_TESTS = """
def test_post_entry(ledger_conn):
    cur = ledger_conn.cursor("post-entry")
    ledger_conn.release(cur)


def test_export_failed_entries(ledger_conn):
    ledger_conn.cursor("export-failed")
    ledger_conn.cursor("export-retry-errors")
    assert ledger_conn.cursors == ["export-failed", "export-retry-errors"]


def test_retry_entry_after_error(ledger_conn):
    cur = ledger_conn.cursor("retry-entry")
    ledger_conn.release(cur)
    assert ledger_conn.cursors == []
"""


@case(
    "u73_fixture_teardown_error",
    "pytest -v (fixture teardown)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR at teardown of test_export_failed_entries",
        "E           RuntimeError: ledger connection closed with 2 open cursors",
        "1087 passed, 1 error in 1.00s",
    ],
)
def _teardown(root: Path) -> bytes:
    _project(root)
    write(root, {"tests/conftest.py": _TEARDOWN_CONFTEST, "tests/test_ledger_cursors.py": _TEARDOWN_TESTS})
    return _pytest(root, "-v -p no:cacheprovider")


_SPLIT = '''
"""Refund split: a refund shared between the payments of an order."""


def split_refund(cents: int, parts: int) -> list[int]:
    """``cents`` shared into ``parts`` refunds."""
    share = cents // parts
    return [share] * parts


def merge_refunds(refunds: list[int]) -> int:
    return sum(refunds)
'''

_PROPERTIES = """
from hypothesis import given
from hypothesis import strategies as st

from payflow.refund_split import merge_refunds, split_refund

amounts = st.integers(min_value=0, max_value=10**6)


@given(cents=amounts, parts=st.just(1))
def test_single_refund_is_whole(cents, parts):
    assert split_refund(cents, parts) == [cents]


@given(refunds=st.lists(amounts, max_size=20))
def test_merge_is_sum(refunds):
    assert merge_refunds(refunds) == sum(refunds)


@given(cents=amounts, parts=st.integers(min_value=1, max_value=12))
def test_split_refund_adds_up(cents, parts):
    assert sum(split_refund(cents, parts)) == cents


@given(cents=amounts, parts=st.integers(min_value=1, max_value=12))
def test_split_refund_has_parts(cents, parts):
    assert len(split_refund(cents, parts)) == parts
"""

_HYPOTHESIS_CONF = """
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=False)
settings.load_profile("ci")
"""


@case(
    "u73_hypothesis_falsifying",
    "pytest (hypothesis)",
    clean=False,
    group=GROUP,
    decisive=[
        "E       Failing test case: test_split_refund_adds_up(",
        "E       assert 0 == 1",
        "FAILED tests/test_refund_split.py::test_split_refund_adds_up",
        "1 failed, 1087 passed",
    ],
)
def _hypothesis(root: Path) -> bytes:
    _project(root)
    write(
        root,
        {
            "src/payflow/refund_split.py": _SPLIT,
            "tests/conftest.py": _HYPOTHESIS_CONF,
            "tests/test_refund_split.py": _PROPERTIES,
        },
    )
    return _pytest(root, "-p no:cacheprovider --hypothesis-show-statistics")


_DELIVERY = '''
"""Webhook delivery: posts an event to the merchant's endpoint, retries on 429 and waits for the merchant's ack."""

from __future__ import annotations

import asyncio

import httpx

#: A refund's state in the ledger, as the webhook contract names it.
STATUS = {"ok": "succeeded", "declined": "failed", "retrying": "failed"}


class Delivery:
    def __init__(self, client: httpx.AsyncClient, max_attempts: int = 3) -> None:
        self.client = client
        self.max_attempts = max_attempts
        self.acked = asyncio.Event()
        self.attempts = 0

    async def post(self, event: dict) -> int:
        for _ in range(self.max_attempts):
            self.attempts += 1
            response = await self.client.post("/hooks/payflow", json=event)
            if response.status_code != 429:
                return response.status_code
            await asyncio.sleep(0)
        return 429

    def on_ack(self, delivery_id: str) -> None:
        self.acked.set()

    async def deliver(self, event: dict) -> int:
        status = await self.post(event)
        if status in (200, 202):
            await self.acked.wait()
        return status


def build_payload(order: dict) -> dict:
    """The ``order.refund_failed`` event of ``order``, as merchants receive it."""
    return {
        "event": "order.refund_failed",
        "api_version": "2026-01-01",
        "data": {
            "order": {
                "id": order["id"],
                "currency": order["currency"],
                "customer": {"id": order["customer"], "email": f"{order['customer']}@example.test"},
                "lines": [
                    {"sku": sku, "qty": qty, "amount_minor": cents, "tax_minor": cents * 19 // 100}
                    for sku, qty, cents in order["lines"]
                ],
                "refunds": [
                    {
                        "id": ref["id"],
                        "amount_minor": ref["cents"],
                        "status": STATUS[ref["state"]],
                        "attempts": ref["attempts"],
                        "last_error": ref.get("error"),
                    }
                    for ref in order["refunds"]
                ],
            }
        },
        "delivery": {"attempt": 1, "retry_policy": {"max_attempts": 5, "backoff": "exponential", "base_seconds": 30}},
    }
'''

_DELIVERY_TESTS = """
import asyncio

import httpx
import pytest

from payflow.webhooks_delivery import Delivery, build_payload

LINES = [(f"sku-{n:03d}", n % 3 + 1, 450 + 37 * n) for n in range(1, 13)]
REFUNDS = [
    {"id": "re_1", "cents": 1200, "state": "ok", "attempts": 1},
    {"id": "re_2", "cents": 530, "state": "declined", "attempts": 3, "error": "card_declined"},
    {"id": "re_3", "cents": 2750, "state": "retrying", "attempts": 2, "error": "gateway_timeout"},
    {"id": "re_4", "cents": 99, "state": "ok", "attempts": 1},
]
ORDER = {"id": "ord_7781", "currency": "EUR", "customer": "cus_310", "lines": LINES, "refunds": REFUNDS}


def expected_payload():
    return {
        "event": "order.refund_failed",
        "api_version": "2026-01-01",
        "data": {
            "order": {
                "id": "ord_7781",
                "currency": "EUR",
                "customer": {"id": "cus_310", "email": "cus_310@example.test"},
                "lines": [
                    {"sku": sku, "qty": qty, "amount_minor": cents, "tax_minor": cents * 19 // 100}
                    for sku, qty, cents in LINES
                ],
                "refunds": [
                    {"id": "re_1", "amount_minor": 1200, "status": "succeeded", "attempts": 1, "last_error": None},
                    {
                        "id": "re_2",
                        "amount_minor": 530,
                        "status": "failed",
                        "attempts": 3,
                        "last_error": "card_declined",
                    },
                    {
                        "id": "re_3",
                        "amount_minor": 2750,
                        "status": "retry_scheduled",
                        "attempts": 2,
                        "last_error": "gateway_timeout",
                    },
                    {"id": "re_4", "amount_minor": 99, "status": "succeeded", "attempts": 1, "last_error": None},
                ],
            }
        },
        "delivery": {"attempt": 1, "retry_policy": {"max_attempts": 5, "backoff": "exponential", "base_seconds": 30}},
    }


def test_payload_matches_webhook_contract():
    assert build_payload(ORDER) == expected_payload()


@pytest.mark.parametrize("state", ["ok", "declined"], ids=["refund-ok", "refund-declined-error"])
def test_payload_keeps_refund_state(state):
    order = {**ORDER, "refunds": [{**REFUNDS[0], "state": state}]}
    assert build_payload(order)["data"]["order"]["refunds"][0]["status"] in ("succeeded", "failed")


def transport(statuses):
    replies = iter(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(next(replies), json={"received": True})

    return httpx.MockTransport(handler)


@pytest.mark.asyncio
@pytest.mark.parametrize(
    ("statuses", "attempts"),
    [([202], 1), ([429, 202], 2), ([429, 429, 202], 3)],
    ids=["accepted", "retry-after-429", "two-retries-then-ok"],
)
async def test_post_retries_on_429(statuses, attempts):
    async with httpx.AsyncClient(transport=transport(statuses), base_url="https://merchant.example.test") as client:
        delivery = Delivery(client)
        assert await delivery.post({"event": "ping"}) == 202
        assert delivery.attempts == attempts


@pytest.mark.asyncio
async def test_post_gives_up_after_max_attempts():
    async with httpx.AsyncClient(transport=transport([429] * 3), base_url="https://merchant.example.test") as client:
        assert await Delivery(client).post({"event": "ping"}) == 429


@pytest.mark.asyncio
async def test_deliver_returns_once_merchant_acks():
    async with httpx.AsyncClient(transport=transport([202]), base_url="https://merchant.example.test") as client:
        delivery = Delivery(client)
        status = await asyncio.wait_for(delivery.deliver(build_payload(ORDER)), timeout=0.5)
        assert status == 202
"""


@case(
    "u73_webhooks_async_timeout_json_diff",
    "pytest -vv (pytest-asyncio, httpx)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_webhooks_delivery.py::test_payload_matches_webhook_contract",
        "FAILED tests/test_webhooks_delivery.py::test_deliver_returns_once_merchant_acks - TimeoutError",
        "E         -                     'status': 'retry_scheduled',",
        "2 failed, 74 passed",
    ],
)
def _webhooks(root: Path) -> bytes:
    _project(root, ids=16)
    write(root, {"src/payflow/webhooks_delivery.py": _DELIVERY, "tests/test_webhooks_delivery.py": _DELIVERY_TESTS})
    files = "tests/test_webhooks_delivery.py tests/test_webhooks_service.py tests/test_failed_webhooks.py"
    return _pytest(root, f"-vv -p no:cacheprovider {files}")


_MATRIX = """
from importlib import import_module

import pytest

MODULES = MODULES_LIST
AMOUNTS = [0, 1, 15, 99, 310, 530, 808, 1200, 1999, 2750, 3600, 4100, 8800, 12000, 25000, 99999]


def service(module):
    mod = import_module(f"payflow.{module}")
    return mod, getattr(mod, "".join(p.capitalize() for p in module.split("_")))()


@pytest.mark.parametrize("cents", AMOUNTS)
@pytest.mark.parametrize("module", MODULES)
def test_total_is_amount(module, cents):
    _, svc = service(module)
    svc.add("k", cents)
    assert svc.total() == cents


@pytest.mark.parametrize("cents", AMOUNTS)
@pytest.mark.parametrize("module", MODULES)
def test_error_report_matches_limit(module, cents):
    mod, svc = service(module)
    svc.add("k", cents)
    assert svc.error_report()["errors"] == (1 if cents > mod.LIMIT else 0)


@pytest.mark.parametrize("cents", AMOUNTS)
@pytest.mark.parametrize("module", MODULES)
def test_export_lists_amount(module, cents):
    _, svc = service(module)
    svc.add("k", cents)
    assert svc.export_csv().splitlines()[1] == f"k,{cents}"
"""


@case(
    "u73_quiet_dots_one_f",
    "pytest -q",
    clean=False,
    group=GROUP,
    decisive=[
        "E       Failed: DID NOT RAISE",
        "FAILED tests/test_ledger_store.py::test_negative_amount_raises_payment_error",
        "1 failed, 4923 passed",
    ],
)
def _quiet(root: Path) -> bytes:
    modules = _project(root, ids=16, bugs={"ledger_store": ("        if cents < 0:\n", "        if cents < -100:\n")})
    write(root, {"tests/test_limits_matrix.py": _MATRIX.replace("MODULES_LIST", repr(modules))})
    return _pytest(root, "-q -p no:cacheprovider")


# ---------------------------------------------------------------- clean runs

_SKIPS = {
    "tests/test_error_reporter_sinks.py": """
import os

import pytest

from payflow.error_reporter import ErrorReporter


@pytest.mark.skipif(not os.environ.get("SENTRY_DSN"), reason="sentry error sink not configured (SENTRY_DSN unset)")
@pytest.mark.parametrize("level", ["error", "exception", "fatal"])
def test_errors_reach_sentry(level):
    assert ErrorReporter().error_report()["errors"] == 0


def test_error_report_without_sink():
    assert ErrorReporter().error_report() == {"module": "error_reporter", "errors": 0}


@pytest.mark.skip(reason="exception log rotation needs /var/log/payflow (run in the staging container)")
def test_exception_log_rotates():
    raise AssertionError("unreachable")
""",
    "tests/test_retry_queue_shutdown.py": """
import pytest

from payflow.retry_queue import RetryQueue

IDS = ["declined-error", "timeout-retry", "failed-webhook", "exception-logged", "retry-exhausted", "fraud-failed"]


@pytest.mark.xfail(reason="retry queue drops failed jobs on shutdown (PAY-4121)", strict=False)
@pytest.mark.parametrize("job", IDS)
def test_shutdown_keeps_failed_jobs(job):
    queue = RetryQueue()
    queue.add(job, 10**6)
    queue.failed.clear()  # what shutdown does today
    assert queue.retry_failed() == [job]


@pytest.mark.parametrize("job", IDS)
def test_failed_jobs_survive_a_retry(job):
    queue = RetryQueue()
    queue.add(job, 10**6)
    assert queue.retry_failed() == [job]
""",
    "tests/test_failed_payments_live.py": """
import os

import pytest

pytestmark = pytest.mark.skipif(
    os.environ.get("PAYFLOW_LIVE") != "1", reason="live gateway: failed-payment replays need PAYFLOW_LIVE=1"
)

CODES = ["card_declined", "insufficient_funds", "expired_card", "processing_error", "do_not_honor", "retry_later"]


@pytest.mark.parametrize("code", CODES)
def test_replay_failed_payment(code):
    raise AssertionError(code)


@pytest.mark.parametrize("code", CODES)
def test_refund_after_failed_capture(code):
    raise AssertionError(code)
""",
}


@case(
    "u73_ra_skips_xfails_clean",
    "pytest -ra",
    clean=True,
    group=GROUP,
    decisive=["1091 passed, 16 skipped, 6 xfailed in 1.00s"],
)
def _ra_clean(root: Path) -> bytes:
    _project(root)
    write(root, _SKIPS)
    return _pytest(root, "-ra -p no:cacheprovider")


@case(
    "u73_deprecation_warnings_clean",
    "pytest (warnings summary)",
    clean=True,
    group=GROUP,
    decisive=["1084 passed, 1080 warnings in 1.00s"],
)
def _warnings_clean(root: Path) -> bytes:
    _project(root, deprecated=True)
    return _pytest(root, "-p no:cacheprovider")


_SLOW = """
import time

import pytest

from payflow.retry_backoff import RetryBackoff


@pytest.fixture(scope="module")
def sandbox_gateway():
    time.sleep(0.91)
    yield "sandbox"
    time.sleep(1.01)


@pytest.mark.parametrize("attempt", range(1, 9), ids=[f"failed-charge-{n}" for n in range(1, 9)])
def test_backoff_after_failed_charge(sandbox_gateway, attempt):
    time.sleep(0.01 + 0.1 * attempt)
    assert RetryBackoff().add(f"charge-{attempt}", attempt) == attempt


def test_error_reporter_flushes_before_exit(sandbox_gateway):
    time.sleep(1.21)


def test_retry_queue_drains_exceptions(sandbox_gateway):
    time.sleep(1.41)
"""


def _round_durations(out: bytes) -> bytes:
    """The slowest durations down to a tenth of a second (each sleep is 10 ms over its own tenth; the scheduler
    adds to that, never takes away)."""

    def snap(m: re.Match[bytes]) -> bytes:
        return b"%.2fs %s" % (int(float(m.group(1)) * 10) / 10, m.group(2))

    return re.sub(rb"^(\d+\.\d\d)s (call|setup|teardown)", snap, out, flags=re.M)


@case(
    "u73_durations_clean_retry_names",
    "pytest -v --durations=20",
    clean=True,
    group=GROUP,
    decisive=["slowest 20 durations", "1094 passed in 1.00s"],
)
def _durations(root: Path) -> bytes:
    _project(root)
    write(root, {"tests/test_retry_backoff_timing.py": _SLOW})
    return _round_durations(_pytest(root, "-v -p no:cacheprovider --durations=20 --durations-min=0.1"))


@case(
    "u73_cov_term_missing_clean",
    "pytest --cov --cov-report=term-missing",
    clean=True,
    group=GROUP,
    decisive=["TOTAL                              1830    361    80%", "1084 passed in 1.00s"],
)
def _coverage(root: Path) -> bytes:
    _project(root)
    return _pytest(root, "-p no:cacheprovider --cov=payflow --cov-report=term-missing")
