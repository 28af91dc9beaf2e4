"""Held-out outputs (group ``unseen-81``): an eighty-first batch, Python type checkers other than plain mypy as a coding
agent runs them on a generated typed package of 136 modules (``platform_core``: fifteen areas such as ``errors``,
``retry``, ``refunds`` and ``payments``, each with ``error_reporter``, ``retry_queue``, ``failed_payments`` and
``exception_handler`` modules whose classes are ``FailedPayment``, ``...RetryQueue`` and ``...ErrorReporter`` and whose
functions are ``handle_error`` and ``report_failed_...``), so clean runs are full of those words.

Failing runs: ``pyright --verbose`` with 120 unused imports reported as information and one missing attribute in
``errors/error_reporter.py``, ``pyright --outputjson`` of the same kind of run with the error in ``refunds``,
``basedpyright`` (its recommended rules) on legacy unannotated helpers, hundreds of warnings and errors and one missing
attribute in ``retry/retry_queue.py``, ``ty check`` with 210 ``deprecated`` warnings and one missing attribute,
``pyrefly check
--summarize-errors`` with the strict preset (480 implicit-Any errors and one missing attribute in
``payments/failed_payments.py``) and ``mypy --strict`` with hundreds of untyped-definition errors and one
``attr-defined`` in ``errors/error_reporter.py``. Clean runs: ``pyright --outputjson`` with 120 informational
diagnostics, ``basedpyright --verbose --dependencies``, ``ty check -vv`` and ``mypy --strict -v``. Labels were written
with each scenario, before the engine saw the output. Needs pyright 1.1.414 from the npm registry (installed once under
``/tmp/u81-tools``) and basedpyright 1.40.2, ty 1.2.0, pyrefly 1.5.1 and mypy 2.4.1 from PyPI (installed once into a
virtual environment of their own under ``/tmp/offloader-corpus-venvs/u81-types``), with Node.js 20 and npm.
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-81"

_TOOLS = Path("/tmp/u81-tools")
_PYRIGHT = _TOOLS / "node_modules/.bin/pyright"

_AREAS = [
    "errors", "retry", "billing", "orders", "refunds", "invoice", "ledger", "payments", "webhooks", "audit",
    "session", "shipping", "coupons", "exceptions", "export",
]  # fmt: skip
_KINDS = [
    "models", "error_reporter", "retry_queue", "failed_payments", "exception_handler", "service", "repository",
    "events",
]  # fmt: skip


def _bin() -> Path:
    venv = make_venv(VENVS / "u81-types", "basedpyright==1.40.2 ty==1.2.0 pyrefly==1.5.1 mypy==2.4.1")
    return venv / "bin"


def _pyright() -> Path:
    if not _PYRIGHT.exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        sh("npm install --cache /tmp/u81-npm-cache --no-audit --no-fund pyright@1.1.414", _TOOLS)
    return _PYRIGHT


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, heap sizes."""
    return substitute(
        scrub(out, root),
        (r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d+ ", "2026-01-01 00:00:00.000000000 "),
        (r"(took|in) \d+(\.\d+)?(s|ms|µs)\b", r"\1 0.010s"),
        (r"Completed in \d+(\.\d+)?sec", "Completed in 1.000sec"),
        (r'"time": "[^"]*"', '"time": "1700000000000"'),
        (r'"timeInSec": [\d.]+', '"timeInSec": 1.0'),
        (r"^Heap stats: .*\n", ""),
        (r"Build finished in \d+\.\d+ seconds", "Build finished in 1.000 seconds"),
        (r"^(LOG:  .*) \(\d+(\.\d+)? ms\)$", r"\1"),
        (r"in \d+\.\d+ seconds", "in 1.000 seconds"),
        (r"\(\d+\.\d+ sec\)", "(0.100 sec)"),
        (r"Running with \d+ threads", "Running with 1 threads"),
    )


def _module(area: str, i: int, *, legacy: bool, unused: bool, deprecated: bool, bug: bool) -> str:
    kind = _KINDS[i]
    cls = area.capitalize()
    head = ["from __future__ import annotations", ""]
    if unused:
        head += ["import logging"]
    head += ["from dataclasses import dataclass, field"]
    if deprecated:
        head += ["", "from typing_extensions import deprecated"]
    if i:
        head += ["", f"from platform_core.{area}.{_KINDS[i - 1]} import FailedPayment as PreviousFailedPayment"]
        if deprecated:
            head += [f"from platform_core.{area}.{_KINDS[i - 1]} import legacy_failed_total"]
    attr = "payment.retry_after_seconds" if bug else "payment.attempts"
    text = f'''"""platform_core.{area}.{kind}: {area} {kind.replace("_", " ")} (error reporting and retries)."""

{chr(10).join(head)}


@dataclass
class FailedPayment:
    payment_id: str
    amount_cents: int
    attempts: int = 0
    error_code: str | None = None
    history: list[str] = field(default_factory=list)


class {cls}RetryQueue:
    """Failed {area} payments waiting for another attempt."""

    def __init__(self, max_attempts: int = 5) -> None:
        self.max_attempts: int = max_attempts
        self._items: list[FailedPayment] = []

    def push(self, payment: FailedPayment) -> None:
        self._items.append(payment)

    def pop_failed(self) -> FailedPayment | None:
        return self._items.pop(0) if self._items else None

    def exhausted(self) -> list[FailedPayment]:
        return [p for p in self._items if p.attempts >= self.max_attempts]


class {cls}ErrorReporter:
    def __init__(self, service: str) -> None:
        self.service: str = service
        self.reported: dict[str, int] = {{}}

    def handle_error(self, payment: FailedPayment, error: Exception) -> str:
        key = f"{{self.service}}:{{payment.payment_id}}:{{type(error).__name__}}"
        self.reported[key] = self.reported.get(key, 0) + 1
        payment.history.append(str(error))
        return key


def handle_error(payment: FailedPayment, error: Exception) -> str:
    return {cls}ErrorReporter("{area}-{kind}").handle_error(payment, error)


def retry_delay(payment: FailedPayment) -> int:
    return min({attr}, 10) * 30


def report_failed_{area}(payments: list[FailedPayment]) -> dict[str, int]:
    counts: dict[str, int] = {{}}
    for payment in payments:
        code = payment.error_code or "unknown_error"
        counts[code] = counts.get(code, 0) + 1
    return counts
'''
    if i:
        text += """

def from_previous(old: PreviousFailedPayment) -> FailedPayment:
    return FailedPayment(old.payment_id, old.amount_cents, old.attempts, old.error_code)
"""
    if deprecated:
        text += f"""

@deprecated("use report_failed_{area}() instead")
def legacy_failed_total(payments: list[FailedPayment]) -> int:
    return sum(p.amount_cents for p in payments)
"""
        if i:
            text += """

def previous_failed_total(olds: list[PreviousFailedPayment]) -> int:
    return legacy_failed_total([from_previous(old) for old in olds])
"""
    if legacy:
        text += f"""

def legacy_{kind}_summary(payment, verbose=False):
    lines = [payment.payment_id, str(payment.amount_cents)]
    if verbose:
        lines.append(payment.error_code)
    return ", ".join(lines)


def legacy_retry_{kind}(queue, payments):
    for payment in payments:
        queue.push(payment)
    return queue.exhausted()
"""
    return text


def _package(
    root: Path,
    *,
    legacy: bool = False,
    unused: bool = False,
    deprecated: bool = False,
    bug: tuple[str, str] | None = None,
) -> None:
    files = {
        "src/platform_core/__init__.py": '"""platform core: payments, error reporting and retries."""\n',
        "src/platform_core/py.typed": "",
        "pyproject.toml": '[project]\nname = "platform-core"\nversion = "3.4.0"\nrequires-python = ">=3.11"\n',
    }
    for area in _AREAS:
        files[f"src/platform_core/{area}/__init__.py"] = f'"""{area}: failed payments, retries and error reports."""\n'
        for i, kind in enumerate(_KINDS):
            files[f"src/platform_core/{area}/{kind}.py"] = _module(
                area, i, legacy=legacy, unused=unused, deprecated=deprecated, bug=(area, kind) == bug
            )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


_PYRIGHT_CONFIG = """
    {
      "include": ["src"],
      "pythonVersion": "3.11",
      "typeCheckingMode": "standard",
      "reportUnusedImport": "information"
    }
"""


# ---------------------------------------------------------------- pyright


@case(
    "u81_pyright_verbose_attr_error",
    "pyright",
    clean=False,
    group=GROUP,
    decisive=[
        'error_reporter.py:54:24 - error: Cannot access attribute "retry_after_seconds" for class "FailedPayment"',
        "1 error, 0 warnings, 120 informations",
    ],
)
def _pyright_verbose_attr_error(root: Path) -> bytes:
    _package(root, unused=True, bug=("errors", "error_reporter"))
    write(root, {"pyrightconfig.json": _PYRIGHT_CONFIG})
    return _settle(sh(f"env -u PYTHONPATH {_pyright()} --verbose --threads 1", root), root)


@case(
    "u81_pyright_json_clean_informations",
    "pyright",
    clean=True,
    group=GROUP,
    decisive=['"errorCount": 0'],
)
def _pyright_json_clean(root: Path) -> bytes:
    _package(root, unused=True)
    write(root, {"pyrightconfig.json": _PYRIGHT_CONFIG})
    return _settle(sh(f"env -u PYTHONPATH {_pyright()} --outputjson --threads 1", root), root)


@case(
    "u81_pyright_json_attr_error",
    "pyright",
    clean=False,
    group=GROUP,
    decisive=[
        '"message": "Cannot access attribute \\"retry_after_seconds\\" for class \\"FailedPayment\\"',
        '"errorCount": 1',
    ],
)
def _pyright_json_attr_error(root: Path) -> bytes:
    _package(root, unused=True, bug=("refunds", "exception_handler"))
    write(root, {"pyrightconfig.json": _PYRIGHT_CONFIG})
    return _settle(sh(f"env -u PYTHONPATH {_pyright()} --outputjson --threads 1", root), root)


# ---------------------------------------------------------------- basedpyright


@case(
    "u81_basedpyright_recommended_hundreds",
    "basedpyright",
    clean=False,
    group=GROUP,
    decisive=[
        'retry_queue.py:53:24 - error: Cannot access attribute "retry_after_seconds" for class "FailedPayment"',
        "1 error, 2402 warnings, 0 notes",
    ],
)
def _basedpyright_hundreds(root: Path) -> bytes:
    _package(root, legacy=True, bug=("retry", "retry_queue"))
    return _settle(sh(f"env -u PYTHONPATH {_bin()}/basedpyright --threads 1 src", root), root)


@case(
    "u81_basedpyright_verbose_clean",
    "basedpyright",
    clean=True,
    group=GROUP,
    decisive=["0 errors, 0 warnings, 0 notes"],
)
def _basedpyright_clean(root: Path) -> bytes:
    _package(root)
    write(root, {"pyrightconfig.json": '{"include": ["src"], "typeCheckingMode": "standard"}\n'})
    return _settle(sh(f"env -u PYTHONPATH {_bin()}/basedpyright --verbose --dependencies", root), root)


# ---------------------------------------------------------------- ty


@case(
    "u81_ty_deprecated_warnings_one_error",
    "ty",
    clean=False,
    group=GROUP,
    decisive=[
        "error[missing-attribute]: Object of type `FailedPayment` has no attribute `retry_after_seconds`",
        "--> src/platform_core/errors/error_reporter.py:",
        "Found 211 diagnostics",
    ],
)
def _ty_warnings_one_error(root: Path) -> bytes:
    _package(root, deprecated=True, bug=("errors", "error_reporter"))
    return _settle(
        sh(f"env -u PYTHONPATH {_bin()}/ty check --no-progress src", root, env={"RAYON_NUM_THREADS": "1"}), root
    )


@case(
    "u81_ty_vv_clean",
    "ty",
    clean=True,
    group=GROUP,
    decisive=["All checks passed!"],
)
def _ty_vv_clean(root: Path) -> bytes:
    _package(root)
    return _settle(
        sh(f"env -u PYTHONPATH {_bin()}/ty check -vv --no-progress src", root, env={"RAYON_NUM_THREADS": "1"}), root
    )


# ---------------------------------------------------------------- pyrefly


@case(
    "u81_pyrefly_strict_summarize",
    "pyrefly",
    clean=False,
    group=GROUP,
    decisive=[
        "Object of class `FailedPayment` has no attribute `retry_after_seconds` [missing-attribute]",
        "--> src/platform_core/payments/failed_payments.py:",
        "INFO 481 errors",
    ],
)
def _pyrefly_strict(root: Path) -> bytes:
    _package(root, legacy=True, bug=("payments", "failed_payments"))
    write(root, {"pyrefly.toml": 'preset = "strict"\nproject-includes = ["src"]\n'})
    return _settle(
        sh(f"env -u PYTHONPATH {_bin()}/pyrefly check --threads 1 --color never --summarize-errors", root), root
    )


# ---------------------------------------------------------------- mypy --strict


@case(
    "u81_mypy_strict_hundreds",
    "mypy",
    clean=False,
    group=GROUP,
    decisive=[
        'error_reporter.py:53: error: "FailedPayment" has no attribute "retry_after_seconds"  [attr-defined]',
        "Found 242 errors in 120 files (checked 136 source files)",
    ],
)
def _mypy_strict_hundreds(root: Path) -> bytes:
    _package(root, legacy=True, bug=("errors", "error_reporter"))
    return _settle(
        sh(f"env -u PYTHONPATH PYTHONHASHSEED=0 {_bin()}/mypy --strict --cache-dir .mypy_cache --no-pretty src", root),
        root,
    )


@case(
    "u81_mypy_strict_verbose_clean",
    "mypy",
    clean=True,
    group=GROUP,
    decisive=["Success: no issues found in 136 source files"],
)
def _mypy_verbose_clean(root: Path) -> bytes:
    _package(root)
    return _settle(
        sh(f"env -u PYTHONPATH PYTHONHASHSEED=0 {_bin()}/mypy --strict -v --cache-dir .mypy_cache src", root), root
    )
