"""Held-out outputs (group ``unseen-129``): a hundred-and-twenty-ninth batch, Jupyter notebooks run headless as an agent
runs them, on a generated payments analytics repository, ``payscope``, of 32 notebooks named after business words
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``, ``refunds``, ``chargebacks`` ...) with one CSV
of payments each, all offline with papermill, nbconvert, nbval, jupytext and nbqa from PyPI.

Failing runs: a shell loop of ``papermill`` with parameters over the 32 notebooks where the refunds notebook raises a
``KeyError`` in its fourth cell and the loop goes on to the end, a ``papermill --execution-timeout`` loop where the
settlement-wait cell of the retry queue notebook times out near the start, ``jupyter nbconvert --to html --execute``
over every notebook that stops on an ``AssertionError`` in the reconciliation notebook, ``jupyter nbconvert --execute
--allow-errors --to markdown --stdout`` whose exit status is 0 and where only the rendered traceback of the disputes
notebook says a cell failed, ``pytest --nbval`` where one stored output of the fees notebook no longer matches, a
``jupytext --sync`` over paired notebooks where one ``.ipynb`` still holds Git conflict markers, and ``nbqa flake8``
where one undefined name hides among style findings. Clean runs full of those business words: a ``papermill`` loop
whose cells print failed payments, error codes and handled exceptions with ``UserWarning``s, ``pytest --nbval-lax``
with deprecation warnings, ``jupytext --set-formats`` then ``--sync`` then ``nbqa ruff`` of every notebook, and
``jupyter nbconvert --to markdown --execute --stdout`` of the exception and error-code reports. Labels were written
with each scenario, before the engine saw the output. Needs papermill 2.7.0, nbconvert 7.17.2, nbclient 0.11.0,
ipykernel 7.4.0, nbformat 5.11.1, nbval 0.11.0, jupytext 1.19.6, nbqa 1.9.1, flake8 7.5.0, ruff 0.17.5 and pytest 9.2.0
from PyPI (installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u129-nb``, its
kernel installed there with ``ipykernel install --sys-prefix``; offline, every notebook generated in the scenario's
folder).
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-129"

_REQS = (
    "papermill==2.7.0 nbconvert==7.17.2 nbclient==0.11.0 ipykernel==7.4.0 nbformat==5.11.1 nbval==0.11.0"
    " jupytext==1.19.6 nbqa==1.9.1 flake8==7.5.0 ruff==0.17.5 pytest==9.2.0"
)

#: The 32 notebooks of the repository, in the order ``ls`` gives them.
_AREAS = sorted(
    [
        "failed_payments", "error_codes", "retry_queue", "exceptions", "refunds", "chargebacks", "disputes",
        "settlements", "payouts", "fraud_scores", "declines", "ledger_close", "invoices", "fees", "currency",
        "webhooks", "dead_letters", "timeouts", "reversals", "subscriptions", "dunning", "tax", "statements",
        "reconciliation", "alerts", "churn", "risk_flags", "partial_captures", "write_offs", "billing",
        "payment_errors", "gateway_outages",
    ]
)  # fmt: skip

_STATUSES = ["settled", "settled", "failed", "settled", "refunded", "error", "settled", "retrying", "settled"]
_CODES = ["E-1042 card_declined", "E-2210 insufficient_funds", "E-3001 gateway_timeout", "E-4404 unknown_account",
          "E-5100 fraud_suspected", "E-6120 expired_card"]  # fmt: skip


def _env(root: Path) -> str:
    """The environment prefix that runs the notebook tools (from their own venv) with a home inside ``root``."""
    venv = make_venv(VENVS / "u129-nb", _REQS)
    if not (venv / "share" / "jupyter" / "kernels" / "python3" / "kernel.json").exists():
        sh(f"{venv}/bin/python -m ipykernel install --sys-prefix --name python3", root)
    home = root / "home"
    for sub in (".ipython", ".jupyter", "data", "runtime", ".cache", ".config"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return (
        f"PYTHONPATH= PATH={venv}/bin:$PATH HOME={home} IPYTHONDIR={home / '.ipython'}"
        f" JUPYTER_CONFIG_DIR={home / '.jupyter'} JUPYTER_DATA_DIR={home / 'data'}"
        f" JUPYTER_RUNTIME_DIR={home / 'runtime'} XDG_CACHE_HOME={home / '.cache'} XDG_CONFIG_HOME={home / '.config'}"
        " JUPYTER_PLATFORM_DIRS=1 PYDEVD_DISABLE_FILE_VALIDATION=1 PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, sizes, durations and kernel files."""
    return substitute(
        scrub(out, root),
        (r"Writing \d+ bytes to", "Writing N bytes to"),
        (r"^=+ (.* in )\d+\.\d+s( \(\d+:\d\d:\d\d\))? =+$", r"========== \1N.NNs =========="),
        (r"\d+\.\d+s(\b|\))", "N.NNs\\1"),
        (r"kernel-[0-9a-f-]+\.json", "kernel-ID.json"),
        (r"/tmp/tmp[a-z0-9_]+", "/tmp/tmpXXXXXXXX"),
        (r"/tmp/ipykernel_\d+/\d+\.py", "/tmp/ipykernel_PID/CELL.py"),
    )


# ---------------------------------------------------------------- the repository


def _csv(i: int, area: str, rows: int) -> str:
    lines = ["payment_id,customer,amount,currency,status,error_code,retries"]
    for k in range(rows):
        status = _STATUSES[(k + i) % len(_STATUSES)]
        code = _CODES[(k * 7 + i) % len(_CODES)].split()[0] if status in ("failed", "error", "retrying") else ""
        amount = 12.5 + ((k * 53 + i * 17) % 900) + (k % 4) * 0.25
        currency = ["EUR", "USD", "GBP"][(k + k // 9 + i) % 3]
        lines.append(f"PAY-{i:02d}{k:04d},cus_{(k * 31 + i) % 997:04d},{amount:.2f},{currency},{status},{code},{k % 4}")
    return "\n".join(lines) + "\n"


def _code(cid: str, src: str, tags: list[str] | None = None, outputs: list | None = None) -> dict[str, object]:
    lines = src.strip("\n").splitlines(keepends=True)
    meta = {"tags": tags} if tags else {}
    return {"cell_type": "code", "execution_count": None, "id": cid, "metadata": meta, "outputs": outputs or [],
            "source": lines}  # fmt: skip


def _cells(area: str, *, warn: bool = False, extra: str = "") -> list[str]:
    """The code cells of ``notebooks/AREA.ipynb`` (after its parameters cell)."""
    title = area.replace("_", " ")
    load = f"""
import csv
import warnings
from collections import Counter
from pathlib import Path

DATA = next(p for p in (Path("data"), Path("../data")) if p.is_dir())
with open(DATA / "{area}.csv", newline="") as fh:
    rows = list(csv.DictReader(fh))
print(f"{title}: loaded {{len(rows)}} payments for {{month}} ({{currency}} view, threshold {{threshold:.0%}})")
"""
    table = """
lines = []
for r in rows:
    flag = "FAILED" if r["status"] in ("failed", "error") else r["status"]
    lines.append(f"{r['payment_id']:<11} {r['customer']:<9} {float(r['amount']):>9.2f} {r['currency']} {flag:<9}"
                 f" {r['error_code'] or '-':<7} retries={r['retries']}")
print("\\n".join(lines))
"""
    summary = f"""
by_status = Counter(r["status"] for r in rows)
by_code = Counter(r["error_code"] for r in rows if r["error_code"])
lines = [f"status {{status:<9}} {{n:>4}}" for status, n in sorted(by_status.items())]
lines += [f"error code {{code}}: {{n}} payments" for code, n in sorted(by_code.items())]
handled = 0
for r in rows:
    try:
        if r["status"] == "error":
            raise ValueError(f"gateway returned {{r['error_code']}} for {{r['payment_id']}}")
    except ValueError as exc:
        handled += 1
        if handled <= 6:
            lines.append(f"handled exception ValueError: {{exc}} -> moved to exceptions queue")
lines.append(f"{title}: {{handled}} exceptions handled, 0 unhandled")
print("\\n".join(lines))
"""
    rate = """
failed = sum(1 for r in rows if r["status"] in ("failed", "error"))
failure_rate = failed / len(rows)
print(f"failure rate {failure_rate:.1%} over {len(rows)} payments")
"""
    alarm = (
        "if failure_rate > threshold:\n"
        f'    warnings.warn(f"{title} failure rate {{failure_rate:.1%}} above {{threshold:.0%}}", UserWarning)\n'
    )
    done = f"""
total = sum(float(r["amount"]) for r in rows if r["status"] == "settled")
print(f"{title} done: settled total {{total:,.2f}}, {{failed}} failed or errored payments kept for retry")
"""
    cells = [load, table, summary, rate] + ([alarm] if warn else [])
    if extra:
        cells.append(extra)
    return [*cells, done]


def _nb(area: str, cells: list[str], *, params: bool = True) -> str:
    out: list[dict[str, object]] = [
        {"cell_type": "markdown", "id": "title", "metadata": {}, "source": [f"# {area.replace('_', ' ').title()}"]}
    ]
    if params:
        out.append(_code("params", 'month = "2024-05"\ncurrency = "EUR"\nthreshold = 0.25', ["parameters"]))
    out += [_code(f"cell-{k}", src) for k, src in enumerate(cells)]
    meta = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"file_extension": ".py", "mimetype": "text/x-python", "name": "python"},
    }
    return json.dumps({"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _repo(
    root: Path,
    *,
    rows: int = 48,
    areas: list[str] | None = None,
    warn: bool = False,
    extras: dict[str, str] | None = None,
    cells: dict[str, list[str]] | None = None,
) -> list[str]:
    """The notebooks and their data in ``root``; the notebook paths, sorted."""
    areas = areas or _AREAS
    extras = extras or {}
    files: dict[str, str] = {}
    for i, area in enumerate(areas):
        files[f"data/{area}.csv"] = _csv(i, area, rows)
        body = (cells or {}).get(area) or _cells(area, warn=warn, extra=extras.get(area, ""))
        files[f"notebooks/{area}.ipynb"] = _nb(area, body)
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / "out").mkdir(exist_ok=True)
    return [f"notebooks/{a}.ipynb" for a in areas]


_PAPERMILL_LOOP = """\
status=0
for nb in notebooks/*.ipynb; do
  name=$(basename "$nb" .ipynb)
  echo "=== $name"
  papermill "$nb" "out/$name.ipynb" -p month 2024-05 -p currency {currency} -p threshold 0.2 \\
    --log-output --no-progress-bar --cwd notebooks {options} || status=1
done
echo "papermill loop finished with status $status"
exit $status
"""


def _papermill(root: Path, currency: str = "EUR", options: str = "") -> bytes:
    env = _env(root)
    write(root, {"run_all.sh": _PAPERMILL_LOOP.format(currency=currency, options=options)})
    out = _settle(sh(f"{env} bash run_all.sh", root), root)
    # papermill logs each stream message of the kernel: a print sent as two messages leaves one more blank line, and
    # a kernel shut down while idle sometimes reports an interrupt; neither is the same on every run
    return substitute(
        out, (r"\n\n\n+", "\n\n"), (r"^\[IPKernelApp\] ERROR \| KeyboardInterrupt caught in kernel\.\n", "")
    )


# ---------------------------------------------------------------- papermill


_REFUND_HOLDS = """
holds = {"EUR": 0.02, "USD": 0.03}
lines = []
for r in rows:
    if r["status"] == "refunded":
        hold = holds[r["currency"]] * float(r["amount"])
        lines.append(f"refund {r['payment_id']} hold {hold:.2f} {r['currency']}")
print("\\n".join(lines))
"""


@case(
    "u129_papermill_loop_keyerror",
    "papermill (loop over 32 notebooks)",
    clean=False,
    group=GROUP,
    decisive=["=== refunds", "KeyError: 'GBP'", "papermill loop finished with status 1", "[exit status 1]"],
)
def _papermill_keyerror(root: Path) -> bytes:
    _repo(root, warn=True, extras={"refunds": _REFUND_HOLDS})
    return _papermill(root)


_SETTLEMENT_WAIT = """
import time
print("waiting for the settlement webhook of the retry batch ...")
deadline = time.time() + 60
while time.time() < deadline:
    time.sleep(0.2)
print("settlement webhook received")
"""


@case(
    "u129_papermill_timeout",
    "papermill --execution-timeout (loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "nbclient.exceptions.CellTimeoutError: A cell timed out while it was being executed, after 3 seconds.",
        "papermill loop finished with status 1",
    ],
)
def _papermill_timeout(root: Path) -> bytes:
    _repo(root, areas=[a for a in _AREAS if a >= "re"], extras={"retry_queue": _SETTLEMENT_WAIT})
    return _papermill(root, currency="USD", options="--execution-timeout 3")


@case(
    "u129_papermill_clean",
    "papermill (loop over 32 notebooks)",
    clean=True,
    group=GROUP,
    decisive=["papermill loop finished with status 0", "write offs done: settled total"],
)
def _papermill_clean(root: Path) -> bytes:
    _repo(root, warn=True)
    return _papermill(root, currency="GBP")


# ---------------------------------------------------------------- nbconvert


_LEDGER_CLOSE = """
debits = round(sum(float(r["amount"]) for r in rows if r["status"] in ("settled", "retrying")), 2)
credits = round(sum(float(r["amount"]) for r in rows if r["status"] != "refunded"), 2)
print(f"reconciliation {month}: debits {debits:,.2f} credits {credits:,.2f}")
assert debits == credits, f"reconciliation {month} out of balance by {credits - debits:,.2f}"
"""


@case(
    "u129_nbconvert_html_assertion",
    "jupyter nbconvert --to html --execute notebooks/*.ipynb",
    clean=False,
    group=GROUP,
    decisive=[
        "[NbConvertApp] Converting notebook notebooks/reconciliation.ipynb to html",
        "reconciliation 2024-05 out of balance by 4,901.50",
        "[exit status 1]",
    ],
)
def _nbconvert_assertion(root: Path) -> bytes:
    env = _env(root)
    _repo(root, extras={"reconciliation": _LEDGER_CLOSE})
    return _settle(sh(f"{env} jupyter nbconvert --to html --execute --output-dir out notebooks/*.ipynb", root), root)


_DISPUTE_RATIO = """
won = sum(1 for r in rows if r["status"] == "refunded" and r["currency"] == "JPY")
lost = sum(1 for r in rows if r["status"] == "chargeback")
print(f"disputes won {won}, lost {lost}")
print(f"dispute win ratio {won / (won + lost):.1%}")
"""


@case(
    "u129_nbconvert_allow_errors",
    "jupyter nbconvert --execute --allow-errors --to markdown --stdout",
    clean=False,
    group=GROUP,
    decisive=["ZeroDivisionError: division by zero", 'print(f"dispute win ratio {won / (won + lost):.1%}")'],
)
def _nbconvert_allow_errors(root: Path) -> bytes:
    env = _env(root)
    areas = ["chargebacks", "declines", "disputes", "fraud_scores", "payouts", "reversals"]
    _repo(root, areas=areas, rows=60, extras={"disputes": _DISPUTE_RATIO})
    return _settle(
        sh(f"{env} jupyter nbconvert --execute --allow-errors --to markdown --stdout notebooks/*.ipynb", root), root
    )


@case(
    "u129_nbconvert_markdown_clean",
    "jupyter nbconvert --execute --to markdown --stdout",
    clean=True,
    group=GROUP,
    decisive=[
        "[NbConvertApp] Converting notebook notebooks/timeouts.ipynb to markdown",
        "timeouts done: settled total 18,667.00, 16 failed or errored payments kept for retry",
    ],
)
def _nbconvert_clean(root: Path) -> bytes:
    env = _env(root)
    areas = ["dead_letters", "error_codes", "exceptions", "failed_payments", "payment_errors", "timeouts"]
    _repo(root, areas=areas, rows=70, warn=True)
    return _settle(sh(f"{env} jupyter nbconvert --execute --to markdown --stdout notebooks/*.ipynb", root), root)


# ---------------------------------------------------------------- nbval


def _store_outputs(root: Path, env: str) -> None:
    """Execute every notebook in place, so that they carry the outputs nbval compares with."""
    sh(f"{env} jupyter nbconvert --to notebook --execute --inplace notebooks/*.ipynb", root)


@case(
    "u129_nbval_mismatch",
    "pytest --nbval",
    clean=False,
    group=GROUP,
    decisive=["Cell 2: Cell outputs differ", "FAILED notebooks/fees.ipynb::Cell 2", "1 failed, 191 passed"],
)
def _nbval_mismatch(root: Path) -> bytes:
    env = _env(root)
    _repo(root)
    _store_outputs(root, env)
    data = root / "data" / "fees.csv"
    first = f"PAY-{_AREAS.index('fees'):02d}0000,cus_"
    data.write_text(data.read_text().replace(first, first + "9", 1))
    write(root, {"pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n"})
    return _settle(sh(f"{env} python -m pytest --nbval notebooks -v", root), root)


_DEPRECATED = """
import warnings
def legacy_fx(amount, rate):
    warnings.warn("legacy_fx() is deprecated, use fx.convert()", DeprecationWarning, stacklevel=2)
    return amount * rate
converted = [legacy_fx(float(r["amount"]), 1.08) for r in rows[:3]]
print(f"converted {len(converted)} sample amounts with the legacy fx helper")
"""


_CONFTEST = """
import warnings


def pytest_collection_modifyitems(config, items):
    notebooks = sorted({item.fspath.basename for item in items})
    if config.getoption("--nbval-lax"):
        warnings.warn(
            f"payscope: --nbval-lax compares no stored outputs; {len(notebooks)} notebooks only checked for errors"
            " (set PAYSCOPE_STRICT_NOTEBOOKS=1 in CI)",
            UserWarning,
        )
    warnings.warn("payscope.fixtures.legacy_rates is deprecated, use payscope.fx.rates (removal in 3.0)",
                  DeprecationWarning)
"""


@case(
    "u129_nbval_lax_clean",
    "pytest --nbval-lax",
    clean=True,
    group=GROUP,
    decisive=["notebooks/retry_queue::ipynb::Cell 6 PASSED", "228 passed, 2 warnings"],
)
def _nbval_lax_clean(root: Path) -> bytes:
    env = _env(root)
    _repo(root, warn=True, extras={a: _DEPRECATED for a in ("currency", "fees", "payouts", "refunds")})
    write(root, {"pytest.ini": "[pytest]\naddopts = -p no:cacheprovider\n", "conftest.py": _CONFTEST})
    return _settle(sh(f"{env} python -m pytest --nbval-lax notebooks -v -W default", root), root)


# ---------------------------------------------------------------- jupytext and nbqa


@case(
    "u129_jupytext_conflict_markers",
    "jupytext --sync",
    clean=False,
    group=GROUP,
    decisive=[
        "[jupytext] Reading notebooks/webhooks.ipynb in format ipynb",
        "nbformat.reader.NotJSONError: Notebook does not appear to be JSON",
        "[exit status 1]",
    ],
)
def _jupytext_conflict(root: Path) -> bytes:
    env = _env(root)
    notebooks = _repo(root)
    sh(f"{env} jupytext --set-formats ipynb,py:percent {' '.join(notebooks)}", root)
    nb = root / "notebooks" / "webhooks.ipynb"
    text = nb.read_text().splitlines(keepends=True)
    cut = len(text) // 2
    ours = theirs = text[cut : cut + 3]
    conflict = ["<<<<<<< HEAD\n", *ours, "=======\n", *theirs, ">>>>>>> origin/main\n"]
    nb.write_text("".join([*text[:cut], *conflict, *text[cut + 3 :]]))
    return _settle(sh(f"{env} jupytext --sync {' '.join(notebooks)}", root), root)


@case(
    "u129_jupytext_nbqa_ruff_clean",
    "jupytext --set-formats/--sync, nbqa ruff",
    clean=True,
    group=GROUP,
    decisive=["[jupytext] Writing notebooks/write_offs.md", "All checks passed!"],
)
def _jupytext_clean(root: Path) -> bytes:
    env = _env(root)
    notebooks = " ".join(_repo(root, warn=True))
    cmd = (
        f"jupytext --set-formats ipynb,py:percent {notebooks} && jupytext --sync {notebooks}"
        f" && jupytext --to md {notebooks} && nbqa ruff notebooks --line-length 120"
    )
    return _settle(sh(f"{env} sh -c '{cmd}'", root), root)


_UNDEFINED = """
written_off = [r for r in rows if r["status"] == "failed" and int(r["retries"]) >= 3]
print(f"write-offs this month: {len(written_off)} payments, {sum(float(r['amount']) for r in written_off):,.2f}")
print(f"recovery ratio {recovered_total / max(1, len(written_off)):.2f}")
"""


@case(
    "u129_nbqa_flake8_undefined",
    "nbqa flake8",
    clean=False,
    group=GROUP,
    decisive=["notebooks/dunning.ipynb:cell_7:3:25: F821 undefined name 'recovered_total'", "[exit status 1]"],
)
def _nbqa_flake8(root: Path) -> bytes:
    env = _env(root)
    _repo(root, warn=True, extras={"dunning": _UNDEFINED})
    return _settle(sh(f"{env} nbqa flake8 notebooks", root), root)
