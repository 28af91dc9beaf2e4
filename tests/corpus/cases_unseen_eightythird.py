"""Held-out outputs (group ``unseen-83``): an eighty-third batch, hook and environment runners as a coding agent runs
them before a commit or in CI, on a generated Python payments package (``payments-core``: modules ``retry_queue``,
``failed_payments``, ``error_codes``, ``exception_report``, ``ledger``, ``refunds`` and ten more, with a parametrized
pytest suite of about a thousand tests). Every tool comes from PyPI in a virtual environment of its own and nothing is
fetched at run time: pre-commit's hooks are ``repo: local`` with ``language: system`` (ruff, ruff format, mypy, pytest
and small checking and fixing scripts of the project), tox installs a wheel built beforehand (``--installpkg``) and its
test tools from a local wheel folder (``PIP_NO_INDEX``), nox runs with ``venv_backend = "none"`` and hatch's
environments are ``skip-install`` ones filled from the same wheel folder.

Failing runs: ``pre-commit run --all-files --verbose`` with 13 local hooks where ``ruff check`` finds an unused import
in ``chargebacks.py`` among pages of the other hooks' output, ``pre-commit run --all-files --show-diff-on-failure``
where the project's trailing-whitespace fixer and ``ruff format`` rewrite files (the diff follows), ``pre-commit run
--all-files`` where the pytest hook (``pytest -v``) fails one backoff test of ``failed_payments`` in the middle of a
thousand passing ones, ``tox -e lint,type,py,exception_report,packaging`` where mypy fails in the ``type`` env before a
long verbose pytest run, ``tox run-parallel`` over six envs where ``py`` fails, ``nox -s error_codes tests lint
typecheck`` where the ``tests`` session fails, and ``hatch run test:all`` where a refunds test fails. Clean runs
named after errors, failures and retries: ``pre-commit run --all-files --verbose`` of the same hooks on the fixed
package, ``pre-commit install`` then ``git commit`` with verbose hooks, ``tox -e py,lint,type,retry_queue`` (all
``OK``), ``nox`` over sessions ``retry_queue``, ``failed_payments`` and ``exception_report``, and ``hatch run ci:all``.
Labels were written with each scenario, before the engine saw the output. Needs pre-commit 4.7.0, tox 4.67.17, nox
2026.10.20, hatch 1.18.2, ruff 0.17.6, black 26.10.1, mypy 2.4.1 and pytest 9.2.0 from PyPI (installed once into a
virtual environment of their own under ``/tmp/offloader-corpus-venvs/u83-hooks``), with pytest, ruff and mypy also
downloaded once as wheels into ``/tmp/u83-wheelhouse``, and git.
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import PIP_ISOLATED, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-83"

_REQS = (
    "pre-commit==4.7.0 tox==4.67.17 nox==2026.10.20 hatch==1.18.2 ruff==0.17.6 black==26.10.1 mypy==2.4.1 pytest==9.2.0"
)
_WHEELHOUSE = Path("/tmp/u83-wheelhouse")


def _tools() -> Path:
    return make_venv(VENVS / "u83-hooks", _REQS)


def _wheelhouse() -> Path:
    if not (_WHEELHOUSE / ".complete").exists():
        _WHEELHOUSE.mkdir(parents=True, exist_ok=True)
        pip = _tools() / "bin/pip"
        sh(f"{PIP_ISOLATED} {pip} download -q -d {_WHEELHOUSE} pytest==9.2.0 ruff==0.17.6 mypy==2.4.1", _WHEELHOUSE)
        (_WHEELHOUSE / ".complete").touch()
    return _WHEELHOUSE


def _env(root: Path) -> str:
    """The environment prefix: the tools' venv first on PATH, caches in the scenario, pip offline."""
    bin_dir = _tools() / "bin"
    return (
        f"PATH={bin_dir}:/usr/bin:/bin HOME={root / 'home'} PRE_COMMIT_HOME={root / '.cache/pre-commit'} "
        f"XDG_CACHE_HOME={root / '.cache'} XDG_DATA_HOME={root / '.local'} HATCH_DATA_DIR={root / '.hatch'} "
        f"PIP_NO_INDEX=1 PIP_FIND_LINKS={_wheelhouse()} PIP_CONFIG_FILE=/dev/null PIP_DISABLE_PIP_VERSION_CHECK=1 "
        "VIRTUALENV_NO_DOWNLOAD=1 PYTHONHASHSEED=0 PY_COLORS=0 FORCE_COLOR= MYPY_FORCE_COLOR=0"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, ids."""
    return substitute(
        scrub(out, root),
        (r"- duration: [0-9.]+s", "- duration: 0.05s"),
        (r"\(\d+\.\d+=setup\[\d+\.\d+\]\+cmd\[[0-9.,]+\] seconds\)", "(N seconds)"),
        (r"\d+\.\d+ seconds", "N seconds"),
        (r"([✔✖]) in \d+ seconds", r"\1 in N seconds"),
        (r"\(\d+ seconds\)", "(N seconds)"),
        (r" pid=\d+", ""),
        (r" in \d+(\.\d+)?s( \(\d+:\d\d:\d\d\))?", " in 1.00s"),
        (r"\[[0-9a-f]{7}\]", "[0000000]"),
        (r"\b(main|master)( \(root-commit\))? [0-9a-f]{7}\]", r"\1\2 0000000]"),
        (r"took \d+(\.\d+)?m?s", "took 1s"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"index [0-9a-f]{7,}\.\.[0-9a-f]{7,}", "index 0000000..0000000"),
        (r"object at 0x[0-9a-f]+", "object at 0x7f0000000000"),
        (r", took (a|an|\d+) (seconds?|minutes?)( and (a|\d+) seconds?)?", ""),
        (r" was successful in (a|an|\d+) (seconds?|minutes?)( and (a|\d+) seconds?)?\.", " was successful."),
        (r"sessions in (a|an|\d+) (seconds?|minutes?)( and (a|\d+) seconds?)?:", "sessions in 10 seconds:"),
    )


# ---------------------------------------------------------------- the payments package

_AREAS = [
    "retry_queue", "failed_payments", "error_codes", "exception_report", "ledger", "refunds", "settlement",
    "chargebacks", "webhooks", "invoices", "billing", "audit_log", "tax", "currency", "fraud_checks", "payouts",
]  # fmt: skip


def _module(area: str, i: int, bugs: set[str]) -> str:
    title = area.replace("_", " ")
    cls = "".join(p.capitalize() for p in area.split("_"))
    imports = "from __future__ import annotations\n\n"
    if "unused_import" in bugs and area == "chargebacks":
        imports += "import os\n"
    imports += "from dataclasses import dataclass\nfrom decimal import Decimal\n"
    cap = 64 if "backoff_cap" in bugs and area == "failed_payments" else 60
    fee_type = "float" if "float_fee" in bugs and area == "ledger" else "Decimal"
    fee_body = (
        "    return float(amount) * 0.01 * (attempts + 1)\n"
        if fee_type == "float"
        else '    return (amount * Decimal("0.01") * (attempts + 1)).quantize(Decimal("0.01"))\n'
    )
    refund = (
        '    return (amount - amount * share).quantize(Decimal("0.1"))\n'
        if "refund_rounding" in bugs and area == "refunds"
        else '    return (amount - amount * share).quantize(Decimal("0.01"))\n'
    )
    return (
        f'"""{title.capitalize()}: part of the payments service (module {i})."""\n\n'
        f"{imports}\n"
        f'{area.upper()}_CODES: dict[str, int] = {{"E{i:02d}01": 1, "E{i:02d}02": 2, "E{i:02d}03": 3}}\n\n\n'
        f"@dataclass(frozen=True)\nclass {cls}Item:\n"
        f"    payment_id: str\n    amount: Decimal\n    attempts: int = 0\n\n\n"
        f"def {area}_fee(amount: Decimal, attempts: int) -> Decimal:\n"
        f'    """The fee charged when a {title} item is processed again."""\n'
        f"{fee_body}\n\n"
        f"def {area}_backoff_seconds(attempts: int) -> int:\n"
        f'    """Seconds to wait before the next {title} attempt (capped)."""\n'
        f"    return min(1 << attempts, {cap})\n\n\n"
        f"def {area}_refund(amount: Decimal, share: Decimal) -> Decimal:\n"
        f'    """What is left of a {title} payment after a partial refund."""\n'
        f"{refund}\n\n"
        f"def {area}_should_retry(code: str, attempts: int) -> bool:\n"
        f'    """Whether a {title} error code is retried after ``attempts`` attempts."""\n'
        f"    return attempts < 5 and code in {area.upper()}_CODES\n"
    )


def _test_module(area: str, i: int) -> str:
    return (
        "from decimal import Decimal\n\nimport pytest\n\n"
        f"from payments.{area} import (\n    {area.upper()}_CODES,\n    {area}_backoff_seconds,\n"
        f"    {area}_fee,\n    {area}_refund,\n    {area}_should_retry,\n)\n\n\n"
        '@pytest.mark.parametrize("cents", range(0, 3000, 100))\n'
        f"def test_{area}_fee_first_attempt(cents: int) -> None:\n"
        f"    assert {area}_fee(Decimal(cents), 0) == "
        '(Decimal(cents) * Decimal("0.01")).quantize(Decimal("0.01"))\n\n\n'
        '@pytest.mark.parametrize("attempts", range(7))\n'
        f"def test_{area}_backoff_seconds(attempts: int) -> None:\n"
        f"    assert {area}_backoff_seconds(attempts) == min(2**attempts, 60)\n\n\n"
        '@pytest.mark.parametrize("share", ["0.25", "0.3333", "0.5", "0.75"])\n'
        f"def test_{area}_partial_refund(share: str) -> None:\n"
        f'    left = {area}_refund(Decimal("100.00"), Decimal(share))\n'
        f'    assert left == (Decimal("100.00") * (1 - Decimal(share))).quantize(Decimal("0.01"))\n\n\n'
        f'@pytest.mark.parametrize("code", sorted({area.upper()}_CODES))\n'
        f"def test_{area}_known_error_code_is_retried(code: str) -> None:\n"
        f"    assert {area}_should_retry(code, 1)\n\n\n"
        f"def test_{area}_unknown_error_code_is_not_retried() -> None:\n"
        f'    assert not {area}_should_retry("E9999", 0)\n'
    )


_SCRIPTS = {
    "scripts/fix_trailing_whitespace.py": """
    import sys

    changed = 0
    for name in sys.argv[1:]:
        with open(name) as f:
            lines = f.read().split("\\n")
        fixed = [line.rstrip() for line in lines]
        if fixed != lines:
            with open(name, "w") as f:
                f.write("\\n".join(fixed))
            print(f"Fixing {name}")
            changed += 1
    sys.exit(1 if changed else 0)
    """,
    "scripts/check_yaml.py": """
    import sys

    import yaml

    for name in sys.argv[1:]:
        with open(name) as f:
            data = yaml.safe_load(f)
        print(f"{name}: valid YAML, {len(data)} top-level keys")
    """,
    "scripts/check_error_codes.py": """
    import sys

    import yaml

    bad = 0
    for name in sys.argv[1:]:
        with open(name) as f:
            codes = yaml.safe_load(f)["error_codes"]
        for code, spec in sorted(codes.items()):
            action = f"retry after {spec['retry_after']}s" if spec["retry"] else "no retry, report exception"
            print(f"{name}: {code} {spec['reason']} -> {action}: ok")
    sys.exit(1 if bad else 0)
    """,
    "scripts/check_retry_policies.py": """
    import sys

    import yaml

    for name in sys.argv[1:]:
        with open(name) as f:
            policy = yaml.safe_load(f)
        queue, attempts, dead = policy["queue"], policy["max_attempts"], policy["dead_letter"]
        print(f"{name}: queue {queue} max_attempts={attempts} dead_letter={dead}: ok")
    """,
    "scripts/check_codes_in_sync.py": """
    import glob
    import re

    import yaml

    with open("config/error_codes.yaml") as f:
        known = set(yaml.safe_load(f)["error_codes"])
    used = set()
    for name in sorted(glob.glob("src/payments/*.py")):
        with open(name) as f:
            used |= set(re.findall(r'"(E\\d{4})"', f.read()))
    print(f"error codes: {len(known)} in config, {len(used)} in modules, {len(used - known)} unknown")
    """,
    "scripts/check_migrations.py": """
    import sys

    for k, name in enumerate(sorted(sys.argv[1:]), 1):
        print(f"{name}: migration {k:03d} in order, reversible")
    """,
    "scripts/check_fixtures.py": """
    import json
    import sys

    for name in sys.argv[1:]:
        with open(name) as f:
            rows = json.load(f)
        failed = sum(1 for r in rows if r["status"] == "failed")
        print(f"{name}: {len(rows)} payments ({failed} failed, {len(rows) - failed} settled): schema ok")
    """,
}


_REASONS = [
    "card_declined", "insufficient_funds", "expired_card", "processing_error", "gateway_timeout", "do_not_honor",
    "fraud_suspected", "duplicate_transaction", "invalid_account", "rate_limited", "issuer_unavailable",
    "currency_not_supported",
]  # fmt: skip


def _payments(root: Path, bugs: set[str] | frozenset[str] = frozenset(), *, name: str = "payments-core") -> None:
    files: dict[str, str] = dict(_SCRIPTS)
    files["pyproject.toml"] = f"""
    [build-system]
    requires = ["hatchling"]
    build-backend = "hatchling.build"

    [project]
    name = "{name}"
    version = "1.4.0"
    requires-python = ">=3.10"

    [tool.hatch.build.targets.wheel]
    packages = ["src/payments"]

    [tool.ruff]
    line-length = 120
    src = ["src", "tests"]

    [tool.mypy]
    strict = true
    mypy_path = "src"
    cache_dir = ".cache/mypy"

    [tool.pytest.ini_options]
    pythonpath = ["src"]
    """
    files["src/payments/__init__.py"] = '"""Payments service: retries, failed payments, error codes."""\n'
    files["src/payments/py.typed"] = ""
    for i, area in enumerate(_AREAS):
        files[f"src/payments/{area}.py"] = _module(area, i, set(bugs))
        files[f"tests/test_{area}.py"] = _test_module(area, i)
    codes = []
    for k in range(240):
        reason = _REASONS[k % len(_REASONS)]
        retry = "true" if k % 3 else "false"
        after = (k % 7 + 1) * 15
        codes.append(
            f"  E{k // 15:02d}{k % 15 + 1:02d}:\n    reason: {reason}\n    retry: {retry}\n    retry_after: {after}\n"
        )
    files["config/error_codes.yaml"] = "error_codes:\n" + "".join(codes)
    for k, area in enumerate(_AREAS * 3):
        files[f"config/retry/{area}_{k:02d}.yaml"] = (
            f"queue: {area}.retry.{k}\nmax_attempts: {k % 5 + 3}\ndead_letter: {area}.failed\nbackoff: exponential\n"
        )
    for k in range(1, 41):
        files[f"migrations/{k:04d}_{_AREAS[k % 16]}.sql"] = (
            f"-- migration {k}\nALTER TABLE {_AREAS[k % 16]} ADD COLUMN retry_count_{k} INT DEFAULT 0;\n"
        )
    for k in range(24):
        rows = [
            f'{{"payment_id": "pay_{k:02d}{n:03d}", "status": "{"failed" if n % 4 == 0 else "settled"}"}}'
            for n in range(30)
        ]
        files[f"fixtures/failed_payments_{k:02d}.json"] = "[\n  " + ",\n  ".join(rows) + "\n]\n"
    files[".gitignore"] = ".cache/\n.tox/\n.nox/\n.hatch/\ndist/\nhome/\n.local/\n__pycache__/\n"
    write(root, files)


_GIT = "git -c user.email=ci@example.com -c user.name=ci -c commit.gpgsign=false"


def _git_init(root: Path) -> None:
    sh(f"git init -q -b main . && git add -A && {_GIT} commit -qm 'payments-core 1.4.0'", root)


_HOOKS = """
repos:
  - repo: local
    hooks:
      - id: trailing-whitespace
        name: trim trailing whitespace (payments)
        entry: python scripts/fix_trailing_whitespace.py
        language: system
        types: [text]
      - id: check-yaml
        name: check yaml (config, retry policies)
        entry: python scripts/check_yaml.py
        language: system
        types: [yaml]
      - id: error-codes
        name: error codes have a reason and a retry rule
        entry: python scripts/check_error_codes.py
        language: system
        files: ^config/error_codes\\.yaml$
      - id: retry-policies
        name: retry queue policies have a dead-letter queue
        entry: python scripts/check_retry_policies.py
        language: system
        files: ^config/retry/
      - id: failed-payments-fixtures
        name: failed_payments fixtures match the schema
        entry: python scripts/check_fixtures.py
        language: system
        files: ^fixtures/.*\\.json$
      - id: migrations
        name: migrations are numbered and reversible
        entry: python scripts/check_migrations.py
        language: system
        files: ^migrations/
      - id: exception-report-schema
        name: exception_report schemas are valid JSON
        entry: python -m json.tool
        language: system
        files: ^schemas/exception_report/.*\\.json$
      - id: docs-links
        name: docs links resolve
        entry: python -c "import sys; print(sys.argv[1:])"
        language: system
        files: ^docs/.*\\.md$
      - id: ruff-check
        name: ruff check
        entry: ruff check --output-format=full --no-cache
        language: system
        types: [python]
      - id: ruff-format
        name: ruff format
        entry: ruff format --no-cache
        language: system
        types: [python]
      - id: mypy
        name: mypy (strict, src/payments)
        entry: mypy src/payments
        language: system
        pass_filenames: false
        types: [python]
      - id: error-codes-in-sync
        name: error_codes.yaml and the modules' codes are in sync
        entry: python scripts/check_codes_in_sync.py
        language: system
        pass_filenames: false
        files: ^(config/error_codes\\.yaml|src/payments/.*\\.py)$
      - id: pytest
        name: pytest (unit, failed_payments, retry_queue)
        entry: pytest -v -p no:cacheprovider
        language: system
        pass_filenames: false
        types: [python]
"""


def _pre_commit(root: Path, bugs: set[str], extra_files: dict[str, str] | None = None) -> None:
    _payments(root, bugs)
    write(root, {".pre-commit-config.yaml": _HOOKS, **(extra_files or {})})
    _git_init(root)


# ---------------------------------------------------------------- pre-commit


def _hook(name: str, status: str) -> str:
    """The line pre-commit writes for a hook's verdict (80 columns for these hooks)."""
    return name + "." * (80 - len(name) - len(status)) + status


@case(
    "u83_pre_commit_verbose_ruff_unused_import",
    "pre-commit run --all-files --verbose (13 local hooks)",
    clean=False,
    group=GROUP,
    decisive=[
        _hook("ruff check", "Failed"),
        "F401 [*] `os` imported but unused",
        "--> src/payments/chargebacks.py:5:8",
    ],
)
def _pc_ruff(root: Path) -> bytes:
    _pre_commit(root, {"unused_import"})
    return _settle(sh(f"{_env(root)} pre-commit run --all-files --verbose", root), root)


@case(
    "u83_pre_commit_show_diff_on_failure",
    "pre-commit run --all-files --show-diff-on-failure",
    clean=False,
    group=GROUP,
    decisive=[
        _hook("trim trailing whitespace (payments)", "Failed"),
        _hook("ruff format", "Failed"),
        "All changes made by hooks:",
    ],
)
def _pc_diff(root: Path) -> bytes:
    _pre_commit(root, set())
    for area in ("retry_queue", "exception_report", "webhooks", "payouts"):
        path = root / f"src/payments/{area}.py"
        text = path.read_text().replace("    return min(", "    return min(  ").replace(") -> int:", ") -> int:   ")
        path.write_text(text)
    path = root / "src/payments/failed_payments.py"
    path.write_text(
        path.read_text().replace(
            "return attempts < 5 and code in FAILED_PAYMENTS_CODES",
            "return (attempts<5) and (code in\n        FAILED_PAYMENTS_CODES)",
        )
    )
    for k, area in enumerate(_AREAS * 3):
        if k % 4 == 1:
            path = root / f"config/retry/{area}_{k:02d}.yaml"
            path.write_text(path.read_text().replace("\n", "  \n"))
    sh(f"git add -A && {_GIT} commit -qm 'failed_payments: retry rule'", root)
    return _settle(sh(f"{_env(root)} pre-commit run --all-files --show-diff-on-failure", root), root)


@case(
    "u83_pre_commit_pytest_hook_backoff",
    "pre-commit run --all-files (pytest -v hook among 13)",
    clean=False,
    group=GROUP,
    decisive=[
        _hook("pytest (unit, failed_payments, retry_queue)", "Failed"),
        "FAILED tests/test_failed_payments.py::test_failed_payments_backoff_seconds[6]",
        "1 failed, ",
    ],
)
def _pc_pytest(root: Path) -> bytes:
    _pre_commit(root, {"backoff_cap"})
    return _settle(sh(f"{_env(root)} pre-commit run --all-files", root), root)


@case(
    "u83_pre_commit_verbose_clean",
    "pre-commit run --all-files --verbose (13 local hooks)",
    clean=True,
    group=GROUP,
    decisive=[
        _hook("mypy (strict, src/payments)", "Passed"),
        _hook("pytest (unit, failed_payments, retry_queue)", "Passed"),
    ],
)
def _pc_clean(root: Path) -> bytes:
    _pre_commit(root, set())
    return _settle(sh(f"{_env(root)} pre-commit run --all-files --verbose", root), root)


@case(
    "u83_pre_commit_git_commit_clean",
    "pre-commit install && git commit (hooks at commit time)",
    clean=True,
    group=GROUP,
    decisive=[
        _hook("error_codes.yaml and the modules' codes are in sync", "Passed"),
        "[main 0000000] retry_queue: dead-letter failed payments",
    ],
)
def _pc_commit(root: Path) -> bytes:
    hooks = _HOOKS.replace("        language: system\n", "        language: system\n        verbose: true\n")
    _pre_commit(root, set(), {".pre-commit-config.yaml": hooks})
    for area in ("retry_queue", "failed_payments", "exception_report"):
        path = root / f"src/payments/{area}.py"
        path.write_text(path.read_text() + f'\n\nDEAD_LETTER_QUEUE = "{area}.failed"\n')
    sh("git add -A", root)
    cmd = f"pre-commit install && {_GIT} commit -m 'retry_queue: dead-letter failed payments' && git log --stat -1"
    out = _settle(sh(f'{_env(root)} sh -c "{cmd}"', root), root)
    return substitute(out, (r"^commit [0-9a-f]{40}$", "commit " + "0" * 40), (r"^Date: .*$", "Date:   (date)"))


# ---------------------------------------------------------------- tox


def _tox_project(root: Path, bugs: set[str], envs: str) -> None:
    _payments(root, bugs)
    write(
        root,
        {
            "tox.ini": f"""
            [tox]
            env_list = {envs}
            skip_missing_interpreters = false

            [testenv]
            deps = pytest==9.2.0
            pass_env = PIP_*
            commands = pytest -v -p no:cacheprovider {{posargs:tests}}

            [testenv:retry_queue]
            commands = pytest -v -p no:cacheprovider tests/test_retry_queue.py tests/test_failed_payments.py

            [testenv:exception_report]
            commands = pytest -v -p no:cacheprovider tests/test_exception_report.py tests/test_error_codes.py

            [testenv:lint]
            skip_install = true
            deps = ruff==0.17.6
            commands =
                ruff check --no-cache src tests
                ruff format --no-cache --check src tests

            [testenv:type]
            deps =
                mypy==2.4.1
                pytest==9.2.0
            commands = mypy --cache-dir=/dev/null src/payments tests

            [testenv:packaging]
            skip_install = true
            deps =
            commands = python -c "import zipfile, glob; print(zipfile.ZipFile(glob.glob('dist/*.whl')[0]).namelist())"
            """
        },
    )
    tools = _tools() / "bin"
    sh(f"{tools}/python -m pip wheel -q --no-build-isolation --no-deps -w dist .", root)


def _wheel(root: Path) -> str:
    return str(next((root / "dist").glob("*.whl")))


def _tox_settle(out: bytes, root: Path) -> bytes:
    return _settle(out, root)


@case(
    "u83_tox_type_env_fails_middle",
    "tox -e lint,type,py,exception_report,packaging --installpkg",
    clean=False,
    group=GROUP,
    decisive=[
        'src/payments/ledger.py:20: error: Incompatible return value type (got "float", expected "Decimal")',
        "type: FAIL code 1",
        "evaluation failed :(",
    ],
)
def _tox_type(root: Path) -> bytes:
    envs = "lint, type, py, exception_report, packaging"
    _tox_project(root, {"float_fee"}, envs)
    out = sh(f"{_env(root)} tox -e {envs.replace(' ', '')} --installpkg {_wheel(root)}", root)
    return _tox_settle(out, root)


@case(
    "u83_tox_run_parallel_py_fails",
    "tox run-parallel (six envs, py fails)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_refunds.py::test_refunds_partial_refund[0.3333]",
        "py: FAIL code 1",
    ],
)
def _tox_parallel(root: Path) -> bytes:
    envs = "lint, type, retry_queue, py, exception_report, packaging"
    _tox_project(root, {"refund_rounding"}, envs)
    out = sh(f"{_env(root)} tox run-parallel -p 2 --parallel-no-spinner --installpkg {_wheel(root)}", root)
    return _tox_settle(out, root)


@case(
    "u83_tox_clean_retry_queue",
    "tox -e py,lint,type,retry_queue --installpkg",
    clean=True,
    group=GROUP,
    decisive=["retry_queue: OK", "congratulations :)"],
)
def _tox_clean(root: Path) -> bytes:
    envs = "py, lint, type, retry_queue"
    _tox_project(root, set(), envs)
    out = sh(f"{_env(root)} tox -e {envs.replace(' ', '')} --installpkg {_wheel(root)}", root)
    return _tox_settle(out, root)


# ---------------------------------------------------------------- nox

_NOXFILE = """
import nox

nox.options.default_venv_backend = "none"
nox.options.sessions = ["error_codes", "tests", "lint", "typecheck"]


@nox.session
def error_codes(session):
    session.run("python", "scripts/check_error_codes.py", "config/error_codes.yaml")


@nox.session
def tests(session):
    session.run("pytest", "-v", "-p", "no:cacheprovider", *session.posargs)


@nox.session
def retry_queue(session):
    session.run("pytest", "-v", "-p", "no:cacheprovider", "tests/test_retry_queue.py", "tests/test_ledger.py")
    session.log("retry_queue: dead-letter routing checked for %d queues", 48)


@nox.session
def failed_payments(session):
    session.run("pytest", "-v", "-p", "no:cacheprovider", "tests/test_failed_payments.py", "tests/test_refunds.py")
    session.run("python", "scripts/check_fixtures.py", *sorted(__import__("glob").glob("fixtures/*.json")))


@nox.session
def exception_report(session):
    session.run("pytest", "-v", "-p", "no:cacheprovider", "tests/test_exception_report.py", "tests/test_error_codes.py")
    session.run("python", "scripts/check_retry_policies.py", *sorted(__import__("glob").glob("config/retry/*.yaml")))


@nox.session
def lint(session):
    session.run("ruff", "check", "--no-cache", "src", "tests")
    session.run("ruff", "format", "--no-cache", "--check", "src", "tests")


@nox.session
def typecheck(session):
    session.run("mypy", "src/payments")
"""


@case(
    "u83_nox_tests_session_fails",
    "nox -s error_codes tests lint typecheck (venv_backend none)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_failed_payments.py::test_failed_payments_backoff_seconds[6]",
        "nox > Session tests failed.",
        "nox > * tests: failed",
    ],
)
def _nox_fail(root: Path) -> bytes:
    _payments(root, {"backoff_cap"})
    write(root, {"noxfile.py": _NOXFILE})
    return _settle(sh(f"{_env(root)} nox -s error_codes tests lint typecheck", root), root)


@case(
    "u83_nox_clean_failed_payments",
    "nox -s retry_queue failed_payments exception_report lint (venv_backend none)",
    clean=True,
    group=GROUP,
    decisive=["nox > * failed_payments: success", "nox > * lint: success"],
)
def _nox_clean(root: Path) -> bytes:
    _payments(root, set())
    write(root, {"noxfile.py": _NOXFILE})
    return _settle(sh(f"{_env(root)} nox -s retry_queue failed_payments exception_report lint", root), root)


# ---------------------------------------------------------------- hatch

_HATCH_ENVS = """

[tool.hatch.envs.test]
skip-install = true
dependencies = ["pytest==9.2.0"]

[tool.hatch.envs.test.scripts]
all = [
  "pytest -v -p no:cacheprovider tests/test_retry_queue.py tests/test_failed_payments.py tests/test_error_codes.py",
  "pytest -v -p no:cacheprovider tests/test_refunds.py tests/test_ledger.py tests/test_settlement.py",
  "pytest -v -p no:cacheprovider tests/test_exception_report.py tests/test_webhooks.py tests/test_payouts.py",
]

[tool.hatch.envs.ci]
skip-install = true
dependencies = ["pytest==9.2.0", "ruff==0.17.6", "mypy==2.4.1"]

[tool.hatch.envs.ci.scripts]
lint = ["ruff check --no-cache src tests", "ruff format --no-cache --check src tests"]
types = "mypy src/payments"
tests = "pytest -v -p no:cacheprovider tests"
all = ["lint", "types", "tests"]
"""


def _hatch(root: Path, bugs: set[str], cmd: str) -> bytes:
    _payments(root, bugs)
    path = root / "pyproject.toml"
    path.write_text(path.read_text() + _HATCH_ENVS)
    out = _settle(sh(f"{_env(root)} {cmd}", root), root)
    return re.sub(rb"^.*(Creating environment|Checking dependencies|Syncing dependencies).*\n", b"", out, flags=re.M)


@case(
    "u83_hatch_run_test_all_refunds",
    "hatch run test:all (three pytest commands)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_refunds.py::test_refunds_partial_refund[0.3333]",
        "1 failed, ",
    ],
)
def _hatch_fail(root: Path) -> bytes:
    return _hatch(root, {"refund_rounding"}, "hatch run test:all")


@case(
    "u83_hatch_run_ci_clean",
    "hatch run ci:all (ruff, mypy, pytest -v)",
    clean=True,
    group=GROUP,
    decisive=["Success: no issues found in 17 source files", "passed in"],
)
def _hatch_clean(root: Path) -> bytes:
    return _hatch(root, set(), "hatch run ci:all")
