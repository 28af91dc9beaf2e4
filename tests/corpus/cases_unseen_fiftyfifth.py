"""Held-out outputs (group ``unseen-55``): a fifty-fifth batch, Python code-quality tools in depth as a coding agent
runs them on a generated package ``ledgerkit`` of 60 to 70 modules named after the business words (``retry_queue.py``,
``error_reports.py``, ``failed_jobs.py``, ``exceptions.py``), with a test module for each.

Failing runs: ``mypy --strict`` with hundreds of missing-annotation errors across the package and one argument of the
wrong type in ``retry_queue.py``; ``pylint --reports=y`` with hundreds of convention and warning messages, one
``no-member`` error and its rating; ``coverage run -m pytest -v`` then ``coverage report -m --fail-under=90`` where
``refunds_reconciler.py`` is barely tested; ``pytest -n 2 -v`` (pytest-xdist, two workers whose reports alternate) with
one failure among 560 tests; ``pytest -v --hypothesis-show-statistics`` with one property falsified; ``pytest`` whose
``warnings summary`` lists hundreds of DeprecationWarnings around one real failure; ``black --check --diff`` over
dozens of files then ``isort --check-only --diff`` that finds one file; ``bandit -r`` then ``vulture`` with one
shell-injection finding and one unreachable line among many low findings. Clean runs named after errors, failures and
retries: ``mypy --strict`` with a line-precision report, ``pylint --reports=y`` rated 10.00/10, ``black -v``,
``isort -v``, ``bandit -r -v`` and ``vulture`` as a lint chain, and ``coverage run -m pytest -v`` with ``coverage
report -m --fail-under=85`` passing. Labels were written with each scenario, before the engine saw the output. Needs
mypy, pylint, coverage, pytest, pytest-xdist, hypothesis, black, isort, bandit and vulture from PyPI, installed once
into a virtual environment of their own under ``/tmp/offloader-corpus-venvs``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-55"

_REQS = (
    "mypy==2.4.1 pylint==4.1.5 coverage==7.18.0 pytest==9.2.0 pytest-xdist==3.8.0 hypothesis==6.170.27"
    " black==26.10.1 isort==9.0.2 bandit==1.9.4 vulture==2.16"
)
#: The tools' environment, made once and kept between runs.
_VENV = VENVS / "u55-quality"


def _env(root: Path) -> str:
    """The environment prefix that runs the pinned tools (made once) on the project in ``root``."""
    make_venv(_VENV, _REQS)
    return (
        f"PATH={_VENV}/bin:$PATH HOME={root / 'home'} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 TZ=UTC"
        f" PYTHONPATH={root / 'src'} MYPY_CACHE_DIR={root / 'home/mypy-cache'}"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, dates, hypothesis timings."""
    return substitute(
        scrub(out, root),
        (r"in \d+\.\d+s\b", "in 1.00s"),
        (r"\b\d+:\d\d:\d\d$", "0:00:01"),
        (r"Run started:.*$", "Run started:2026-01-01 00:00:00.000000+00:00"),
        (r"~ \d+-\d+ ms", "~ 0-1 ms"),
        (r"~ \d+ ms", "~ 1 ms"),
        (r"\(\d+\.\d\d seconds\)", "(0.01 seconds)"),
        (r"\t\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+( \+0000|\+00:00)?$", r"\t2026-01-01 00:00:00.000000\1"),
        (r"at 0x[0-9a-f]+", "at 0x7f0000000000"),
    )


# ---------------------------------------------------------------- the generated package

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
]  # fmt: skip
_KINDS = ["service", "store", "reports", "jobs", "handlers"]
#: The modules every scenario's package has besides ``exceptions.py``: the areas' services and stores, the queues and
#: reports named in the brief.
_BASE = [f"{a}_{k}" for a in _AREAS if a not in ("errors", "exceptions", "retry") for k in ("service", "store")] + [
    "retry_queue", "retry_policy", "error_reports", "error_codes", "failed_jobs", "failed_webhooks", "exception_log",
    "refunds_reconciler", "billing_jobs", "orders_handlers", "ledger_reports", "audit_jobs", "export_jobs",
    "webhooks_handlers", "session_reports", "tax_reports", "invoice_jobs", "shipping_handlers", "search_reports",
    "catalog_jobs", "pricing_reports", "coupons_jobs", "cart_handlers",
]  # fmt: skip


def _camel(name: str) -> str:
    return "".join(p.capitalize() for p in name.split("_"))


def _module(name: str, *, typed: bool = True, docs: bool = True, quotes: str = '"', extra: str = "") -> str:
    """One module of the package: a record dataclass and a service over it, typed and documented unless told."""
    cls = _camel(name)
    q = quotes

    def sig(args: str, ret: str) -> str:
        if typed:
            return f"({args}) -> {ret}:"
        bare = re.sub(r": [^,=]+", "", args).replace(" = ", "=")
        return f"({bare}):"

    def doc(text: str, indent: str) -> str:
        return f'{indent}"""{text}"""\n' if docs else ""

    return (
        (f'"""{name.replace("_", " ").capitalize()}: part of the ledgerkit platform."""\n\n' if docs else "")
        + "from __future__ import annotations\n\n"
        + "from dataclasses import dataclass, field\n\n"
        + "from ledgerkit.exceptions import LedgerError\n\n"
        + f"LIMIT = {len(name) * 7}\n\n\n"
        + "@dataclass\n"
        + f"class {cls}Record:\n"
        + doc(f"One {name.replace('_', ' ')} record.", "    ")
        + "\n    key: str\n    cents: int\n    attempts: int = 0\n"
        + "    tags: list[str] = field(default_factory=list)\n\n\n"
        + f"class {cls}:\n"
        + doc(f"Keeps {name.replace('_', ' ')} records in memory.", "    ")
        + "\n"
        + f"    def __init__{sig('self', 'None')}\n"
        + f"        self._records: dict[str, {cls}Record] = {{}}\n\n"
        + f"    def add{sig('self, key: str, cents: int', f'{cls}Record')}\n"
        + doc("Add a record; a negative amount is refused.", "        ")
        + "        if cents < 0:\n"
        + f"            raise LedgerError(f{q}negative amount for {{key}}{q})\n"
        + f"        record = {cls}Record(key, cents)\n"
        + "        self._records[key] = record\n"
        + "        return record\n\n"
        + f"    def total{sig('self', 'int')}\n"
        + doc("The sum of all amounts.", "        ")
        + "        return sum(r.cents for r in self._records.values())\n\n"
        + f"    def retry_failed{sig('self, limit: int = 3', 'list[str]')}\n"
        + doc("Count one more attempt on each record under ``limit``; their keys.", "        ")
        + "        keys = []\n"
        + "        for record in self._records.values():\n"
        + "            if record.attempts < limit:\n"
        + "                record.attempts += 1\n"
        + "                keys.append(record.key)\n"
        + "        return keys\n\n"
        + f"    def over_limit{sig('self', 'list[str]')}\n"
        + doc("Keys of the records above the module's limit.", "        ")
        + "        return sorted(r.key for r in self._records.values() if r.cents > LIMIT)\n\n"
        + f"    def describe{sig('self', 'str')}\n"
        + doc("A one-line summary.", "        ")
        + f"        return f{q}{name}: {{len(self._records)}} records, {{self.total()}} cents{q}\n"
        + extra
    )


_EXCEPTIONS = '''
"""Exceptions of the ledgerkit platform."""


class LedgerError(Exception):
    """Raised when a ledger operation is refused."""


class RetryExhaustedError(LedgerError):
    """Raised when a job failed after its last retry."""
'''


def _test(name: str) -> str:
    """The tests of one module."""
    cls = _camel(name)
    return (
        "import pytest\n\n"
        + "".join(sorted([f"from ledgerkit.{name} import {cls}\n", "from ledgerkit.exceptions import LedgerError\n"]))
        + "\n\n"
        + f'def test_{name}_add_and_total():\n    svc = {cls}()\n    svc.add("a", 5)\n    svc.add("b", 7)\n'
        "    assert svc.total() == 12\n\n\n"
        f"def test_{name}_negative_amount_raises_error():\n    with pytest.raises(LedgerError):\n"
        f'        {cls}().add("a", -1)\n\n\n'
        f'def test_{name}_retry_failed_counts_attempts():\n    svc = {cls}()\n    svc.add("a", 1)\n'
        '    assert svc.retry_failed() == ["a"]\n    assert svc.retry_failed(limit=1) == []\n\n\n'
        f'def test_{name}_over_limit():\n    svc = {cls}()\n    svc.add("small", 1)\n    svc.add("big", 10**6)\n'
        '    assert svc.over_limit() == ["big"]\n\n\n'
        f'def test_{name}_describe():\n    assert {cls}().describe() == "{name}: 0 records, 0 cents"\n'
    )


def _package(
    root: Path, modules: list[str], opts: Callable[[str], dict[str, Any]] = lambda name: {}, *, tests: bool = True
) -> None:
    """``src/ledgerkit`` with ``modules`` (each made by ``_module`` with ``opts(name)``) and ``tests`` for each."""
    files = {"src/ledgerkit/__init__.py": '"""The ledgerkit platform."""\n', "src/ledgerkit/exceptions.py": _EXCEPTIONS}
    for name in modules:
        files[f"src/ledgerkit/{name}.py"] = _module(name, **opts(name))
        if tests:
            files[f"tests/test_{name}.py"] = _test(name)
    files["pyproject.toml"] = """
        [project]
        name = "ledgerkit"
        version = "3.4.0"
        requires-python = ">=3.11"

        [tool.isort]
        profile = "black"
        known_first_party = ["ledgerkit"]

        [tool.pylint."messages control"]
        disable = ["duplicate-code"]

        [tool.pytest.ini_options]
        addopts = "-p no:cacheprovider"
        testpaths = ["tests"]

        [tool.coverage.run]
        source = ["ledgerkit"]
        branch = true
    """
    write(root, files)


# ---------------------------------------------------------------- mypy


_SCHEDULE = """

def schedule_retry(queue: RetryQueue, delay_seconds: int) -> RetryQueueRecord:
    \"\"\"Queue one more retry after ``delay_seconds``.\"\"\"
    return queue.add("retry", delay_seconds)


def requeue_all(queue: RetryQueue) -> list[RetryQueueRecord]:
    \"\"\"Queue a retry of every failed job after the default delay.\"\"\"
    return [schedule_retry(queue, "30") for _ in queue.retry_failed()]
"""


@case(
    "u55_mypy_strict_errors",
    "mypy --strict",
    clean=False,
    group=GROUP,
    decisive=[
        'retry_queue.py:65: error: Argument 2 to "schedule_retry" has incompatible type "str"; expected "int"',
        "Found 197 errors in 29 files (checked 59 source files)",
    ],
)
def _mypy_errors(root: Path) -> bytes:
    def opts(name: str) -> dict[str, Any]:
        untyped = _BASE.index(name) % 2 == 0 and name != "retry_queue"
        return {"typed": not untyped, "extra": _SCHEDULE if name == "retry_queue" else ""}

    _package(root, _BASE, opts, tests=False)
    return _settle(sh(f"{_env(root)} mypy --strict src/ledgerkit/*.py", root), root)


@case(
    "u55_mypy_strict_clean_precision",
    "mypy --strict",
    clean=True,
    group=GROUP,
    decisive=["Success: no issues found in 68 source files"],
)
def _mypy_clean(root: Path) -> bytes:
    modules = [*_BASE, *(f"{w}_{k}" for w in ("errors", "retry", "failed") for k in ("jobs", "store", "handlers"))]
    modules += ["exception_handlers"]
    _package(root, modules, tests=False)
    cmd = "mypy --strict --lineprecision-report reports src/ledgerkit/*.py && cat reports/lineprecision.txt"
    return _settle(sh(f"{_env(root)} {cmd}", root), root)


# ---------------------------------------------------------------- pylint, black, isort, bandit, vulture

_REQUEUE = """
    def requeue_expired(self) -> list[str]:
        keys = [k for k, r in self._records.items() if r.attempts >= LIMIT]
        for key in keys:
            self.requeue(key)
        return keys
"""


@case(
    "u55_pylint_reports_messages",
    "pylint",
    clean=False,
    group=GROUP,
    decisive=["E1101: Instance of 'FailedJobs' has no 'requeue' member (no-member)", "Your code has been rated at"],
)
def _pylint_messages(root: Path) -> bytes:
    def opts(name: str) -> dict[str, Any]:
        return {"docs": False, "extra": _REQUEUE if name == "failed_jobs" else ""}

    _package(root, _BASE, opts, tests=False)
    return _settle(sh(f"{_env(root)} pylint --reports=y src/ledgerkit/*.py", root), root)


_NAMED = [*_BASE, "errors_jobs", "errors_handlers", "failed_payments", "retry_store", "exception_handlers"]


@case(
    "u55_lint_chain_clean",
    "black, isort, pylint",
    clean=True,
    group=GROUP,
    decisive=["files would be left unchanged.", "Your code has been rated at 10.00/10"],
)
def _lint_chain(root: Path) -> bytes:
    _package(root, _NAMED)
    env = _env(root)
    cmd = (
        f"{env} black --check -v --workers 1 src tests && {env} isort --check-only -v src/ledgerkit/*.py tests/*.py"
        f" && {env} pylint --reports=y src/ledgerkit/*.py"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u55_bandit_vulture_clean",
    "bandit, vulture",
    clean=True,
    group=GROUP,
    decisive=["No issues identified."],
)
def _bandit_clean(root: Path) -> bytes:
    _package(root, _NAMED)
    env = _env(root)
    return _settle(
        sh(f"{env} bandit -r -v -s B101 src tests && {env} vulture --min-confidence 80 src tests", root), root
    )


_MESSY_IMPORTS = "from ledgerkit.exceptions import LedgerError\nfrom dataclasses import dataclass, field\n"


@case(
    "u55_black_isort_check_diff",
    "black --check --diff, isort --check-only --diff",
    clean=False,
    group=GROUP,
    decisive=[
        "Oh no!",
        "28 files would be reformatted, 88 files would be left unchanged.",
        "ERROR: /tmp/work/src/ledgerkit/retry_policy.py Imports are incorrectly sorted and/or formatted.",
    ],
)
def _black_isort(root: Path) -> bytes:
    def opts(name: str) -> dict[str, Any]:
        return {"quotes": "'" if _BASE.index(name) % 2 else '"'}

    _package(root, _BASE, opts)
    for name in _BASE[1::2]:  # squashed by hand: the constant and the fields
        path = root / "src/ledgerkit" / f"{name}.py"
        text = path.read_text().replace("LIMIT = ", "LIMIT=").replace("attempts: int = 0", "attempts: int=0")
        path.write_text(
            text.replace("record = ", "record=").replace("        return keys\n", "        return (keys)\n")
        )
    policy = root / "src/ledgerkit/retry_policy.py"
    text = policy.read_text().replace("from dataclasses import dataclass, field\n\n", "")
    policy.write_text(text.replace("from ledgerkit.exceptions import LedgerError\n", _MESSY_IMPORTS))
    env = _env(root)
    cmd = (
        f"{env} black --check --diff --workers 1 src tests; "
        f"{env} isort --check-only --diff src/ledgerkit/*.py tests/*.py"
    )
    return _settle(sh(cmd, root), root)


_SHELL = """

def compress_export(path: str) -> int:
    \"\"\"Compress one export file in place; gzip's exit status.\"\"\"
    import subprocess

    return subprocess.run(f"gzip -9 {path}", shell=True, check=False).returncode
"""

_ASSERT = "        assert limit >= 0, 'limit must not be negative'\n        keys = []\n"

_UNREACHABLE = """

def drain_failed(jobs: FailedJobs) -> int:
    \"\"\"Retry every failed job once; how many were retried.\"\"\"
    retried = len(jobs.retry_failed())
    return retried
    jobs.retry_failed(limit=0)
"""


@case(
    "u55_bandit_vulture_findings",
    "bandit, vulture",
    clean=False,
    group=GROUP,
    decisive=[
        "[B602:subprocess_popen_with_shell_equals_true]",
        "Location: src/ledgerkit/export_jobs.py:63:11",
        "failed_jobs.py:63: unreachable code after 'return' (100% confidence)",
    ],
)
def _bandit_vulture(root: Path) -> bytes:
    def opts(name: str) -> dict[str, Any]:
        return {"extra": {"export_jobs": _SHELL, "failed_jobs": _UNREACHABLE}.get(name, "")}

    _package(root, _BASE, opts, tests=False)
    for name in _BASE:
        path = root / "src/ledgerkit" / f"{name}.py"
        path.write_text(path.read_text().replace("        keys = []\n", _ASSERT))
    env = _env(root)
    return _settle(sh(f"{env} bandit -r src; {env} vulture src/ledgerkit/*.py --min-confidence 60", root), root)


# ---------------------------------------------------------------- coverage and pytest

_RECONCILE = "".join(
    f"""

def match_refund_{i}(ledger: dict[str, int], refunds: dict[str, int]) -> list[str]:
    \"\"\"Refund keys whose amount differs from the ledger by more than {i} cents.\"\"\"
    unmatched = []
    for key, cents in refunds.items():
        booked = ledger.get(key)
        if booked is None:
            unmatched.append(key)
        elif abs(booked - cents) > {i}:
            unmatched.append(key)
    return unmatched
"""
    for i in range(14)
)


@case(
    "u55_coverage_fail_under",
    "coverage run -m pytest; coverage report",
    clean=False,
    group=GROUP,
    decisive=["src/ledgerkit/refunds_reconciler.py", "Coverage failure: total of 92 is less than fail-under=95"],
)
def _coverage_fail(root: Path) -> bytes:
    _package(root, _BASE, lambda name: {"extra": _RECONCILE if name == "refunds_reconciler" else ""})
    env = _env(root)
    return _settle(sh(f"{env} coverage run -m pytest -v && {env} coverage report -m --fail-under=95", root), root)


@case(
    "u55_coverage_errors_retry_clean",
    "coverage run -m pytest; coverage report",
    clean=True,
    group=GROUP,
    decisive=["325 passed in 1.00s", "TOTAL"],
)
def _coverage_clean(root: Path) -> bytes:
    modules = [*_NAMED, "retry_jobs", "failed_exports", "errors_store"]
    _package(root, modules)
    env = _env(root)
    return _settle(sh(f"{env} coverage run -m pytest -v && {env} coverage report -m --fail-under=85", root), root)


_TURNSTILE = '''
"""Both suites write the shared ledger file: one test at a time, the suites taking turns."""

import os
import time
from pathlib import Path

import pytest

TURN = Path(os.environ["LEDGER_TURN_FILE"])


@pytest.hookimpl(hookwrapper=True, tryfirst=True)
def pytest_runtest_protocol(item):
    pos = item.session.items.index(item)
    half = len(item.session.items) // 2
    turn = 2 * pos if pos < half else 2 * (pos - half) + 1
    while int(TURN.read_text() or 0) < turn:
        time.sleep(0.001)
    yield
    time.sleep(0.01)
    tmp = TURN.with_name(f"turn.{os.getpid()}")
    tmp.write_text(str(turn + 1))
    os.replace(tmp, TURN)
'''


def _suite(modules: list[str], tests: dict[str, str]) -> str:
    head = f"from importlib import import_module\n\nimport pytest\n\nMODULES = {modules!r}\n\n\n"
    head += "def service(module):\n    mod = import_module(f'ledgerkit.{module}')\n"
    head += "    return mod, getattr(mod, ''.join(p.capitalize() for p in module.split('_')))()\n"
    return head + "".join(
        f"\n\n@pytest.mark.parametrize('module', MODULES)\ndef {name}(module):\n{body}" for name, body in tests.items()
    )


@case(
    "u55_pytest_xdist_one_failure",
    "pytest -n 2 (xdist)",
    clean=False,
    group=GROUP,
    decisive=[
        "E       AssertionError: assert 250 == (15 * 7)",
        "tests/test_retry_suite.py:30: AssertionError",
        "1 failed, 559 passed",
    ],
)
def _xdist(root: Path) -> bytes:
    modules = [m for m in _BASE if m != "refunds_reconciler"]
    _package(root, modules, lambda name: {"extra": "\nLIMIT = 250\n" if name == "failed_webhooks" else ""}, tests=False)
    billing = {
        "test_add_and_total": "    _, svc = service(module)\n    svc.add('a', 5)\n    svc.add('b', 7)\n"
        "    assert svc.total() == 12\n",
        "test_negative_amount_refused": "    _, svc = service(module)\n    with pytest.raises(Exception):\n"
        "        svc.add('a', -1)\n",
        "test_describe_empty": "    _, svc = service(module)\n    assert svc.describe().startswith(module)\n",
        "test_records_keep_keys": "    _, svc = service(module)\n    assert svc.add('k', 1).key == 'k'\n",
        "test_total_of_nothing": "    _, svc = service(module)\n    assert svc.total() == 0\n",
    }
    retry = {
        "test_retry_failed_counts_attempts": "    _, svc = service(module)\n    svc.add('a', 1)\n"
        "    assert svc.retry_failed() == ['a']\n",
        "test_retry_is_bounded": "    _, svc = service(module)\n    svc.add('a', 1)\n"
        "    assert svc.retry_failed(limit=0) == []\n",
        "test_limit_matches_policy": "    mod, _ = service(module)\n    assert mod.LIMIT == len(module) * 7\n",
        "test_over_limit_lists_big_amounts": "    mod, svc = service(module)\n    svc.add('big', mod.LIMIT + 1)\n"
        "    assert svc.over_limit() == ['big']\n",
        "test_retry_keeps_total": "    _, svc = service(module)\n    svc.add('a', 3)\n    svc.retry_failed()\n"
        "    assert svc.total() == 3\n",
    }
    write(
        root,
        {
            "tests/conftest.py": _TURNSTILE,
            "tests/test_billing_suite.py": _suite(modules, billing),
            "tests/test_retry_suite.py": _suite(modules, retry),
            "turn": "0",
        },
    )
    out = sh(f"{_env(root)} LEDGER_TURN_FILE={root / 'turn'} pytest -n 2 --dist loadfile -v", root)
    first = re.search(rb"\[(gw\d)\] [^\n]*test_billing_suite", out)
    if first and first.group(1) == b"gw1":  # the workers' names, like PIDs: gw0 is the one that ran the first suite
        out = out.replace(b"[gw0]", b"[gwX]").replace(b"[gw1]", b"[gw0]").replace(b"[gwX]", b"[gw1]")
    return _settle(out, root)


_SPLIT = '''

def split_evenly(cents: int, parts: int) -> list[int]:
    """Split ``cents`` into ``parts`` shares."""
    share = cents // parts
    return [share] * parts
'''

_HYPOTHESIS_CONF = """
from hypothesis import settings

settings.register_profile("ci", derandomize=True, database=None, deadline=None, print_blob=False)
settings.load_profile("ci")
"""


def _property(name: str) -> str:
    cls = _camel(name)
    text = (
        f"from hypothesis import given, strategies as st\n\nfrom ledgerkit.{name} import {cls}\n\n\n"
        "@given(st.dictionaries(st.text(min_size=1, max_size=8), st.integers(min_value=0, max_value=10**9)))\n"
        f"def test_{name}_total_is_sum_of_amounts(amounts):\n    svc = {cls}()\n"
        "    for key, cents in amounts.items():\n        svc.add(key, cents)\n"
        "    assert svc.total() == sum(amounts.values())\n"
    )
    if name == "refunds_service":
        text += (
            "\n\n@given(st.integers(min_value=0, max_value=10**6), st.integers(min_value=1, max_value=12))\n"
            "def test_split_evenly_keeps_every_cent(cents, parts):\n"
            "    from ledgerkit.refunds_service import split_evenly\n\n"
            "    assert sum(split_evenly(cents, parts)) == cents\n"
        )
    return text


@case(
    "u55_hypothesis_falsified",
    "pytest (hypothesis)",
    clean=False,
    group=GROUP,
    decisive=[
        "Failing test case: test_split_evenly_keeps_every_cent(",
        "FAILED tests/test_properties_refunds_service.py::test_split_evenly_keeps_every_cent",
        "1 failed, 57 passed",
    ],
)
def _hypothesis(root: Path) -> bytes:
    _package(root, _BASE, lambda name: {"extra": _SPLIT if name == "refunds_service" else ""}, tests=False)
    files = {f"tests/test_properties_{name}.py": _property(name) for name in _BASE}
    write(root, {"tests/conftest.py": _HYPOTHESIS_CONF, **files})
    return _settle(sh(f"{_env(root)} pytest -v --hypothesis-show-statistics", root), root)


def _legacy(name: str) -> str:
    return f'''

def legacy_total(svc: {_camel(name)}) -> int:
    """The total, as the 2.x API returned it."""
    import warnings

    warnings.warn("{name}.legacy_total() is deprecated; use {_camel(name)}.total()", DeprecationWarning, stacklevel=2)
    return svc.total()
'''


def _legacy_tests(name: str) -> str:
    cls = _camel(name)
    text = f"from ledgerkit.{name} import {cls}, legacy_total\n"
    for i, test in enumerate(["empty", "one_record", "two_records", "after_retry"]):
        text += f"\n\ndef test_{name}_legacy_total_{test}():\n    svc = {cls}()\n"
        text += "".join(f"    svc.add('k{k}', {k + 1})\n" for k in range(i))
        text += f"    assert legacy_total(svc) == {sum(range(1, i + 1))}\n"
    if name == "tax_reports":
        text += f"\n\ndef test_{name}_vat_rounding():\n    svc = {cls}()\n    svc.add('net', 1900)\n"
        text += "    assert round(legacy_total(svc) * 1.19) == 2262\n"
    return text


@case(
    "u55_pytest_warnings_summary",
    "pytest",
    clean=False,
    group=GROUP,
    decisive=[
        "E       assert 2261 == 2262",
        "FAILED tests/test_legacy_tax_reports.py::test_tax_reports_vat_rounding",
        "1 failed, 228 passed, 229 warnings",
    ],
)
def _warnings(root: Path) -> bytes:
    _package(root, _BASE, lambda name: {"extra": _legacy(name)}, tests=False)
    write(root, {f"tests/test_legacy_{name}.py": _legacy_tests(name) for name in _BASE})
    return _settle(sh(f"{_env(root)} pytest", root), root)
