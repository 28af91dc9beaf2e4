"""Held-out outputs (group ``unseen-35``): a thirty-fifth batch, notebooks and data-science tooling as an agent runs
them, on notebooks (nbformat 4 JSON), CSV files and pipelines generated in the scenario's folder and named after the
business areas.

Failing runs: ``jupyter nbconvert --to markdown --execute --stdout`` over twelve report notebooks where the refunds
one stops on a ``KeyError`` (a ``CellExecutionError`` with the kernel's traceback, ANSI colours included) after eleven
rendered reports, a shell loop of ``jupyter nbconvert --to notebook --execute`` over sixteen nightly notebooks where
the ledger close one fails an assertion, ``papermill`` with fourteen parameter sets of a pricing notebook where one
currency has no exchange rate, ``pytest --nbmake`` over eighteen catalog notebooks where one fails, ``jupyter
nbconvert --to script`` then ``python`` of an orders ETL whose batch loop stops on a bad quantity, ``python -m
pytest`` of small scikit-learn pipelines where the refunds model misses its F1 threshold, and ``dvc repro`` of a
local pipeline (no remote, no Git) where the pricing training stage's command fails. Clean runs whose text talks
about errors: ``nbconvert --execute`` of ``error_analysis.ipynb`` and ``failed_orders_review.ipynb``, ``papermill``
runs of ``retry_failed_orders.ipynb`` over ``failed_orders.csv``, ``pytest --nbmake`` of ``exceptions_report.ipynb``
and other notebooks named after failures, ``dvc repro`` of stages named ``errors_summary`` and ``failed_orders``,
and ``pytest`` of error-rate models that all pass. Labels were written with each scenario, before the engine saw the
output. Needs nbconvert, nbclient, ipykernel, papermill, nbmake, pytest, scikit-learn, pandas and dvc from PyPI
(installed once per run of generate.py into a shared folder that each scenario links as ``tools``; the kernel is
installed into it with ``ipykernel install --prefix`` and found through ``JUPYTER_PATH``, so that no home-directory
state is needed).
"""

from __future__ import annotations

import atexit
import json
import shutil
import tempfile
from pathlib import Path

from _harness import PIP_ISOLATED, PY, WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-35"

_NB_REQS = (
    "nbconvert==7.17.2 nbclient==0.11.0 ipykernel==7.4.0 papermill==2.7.0 nbmake==1.5.5 pytest==9.2.0"
    " scikit-learn==1.9.1 pandas==3.1.1 numpy==2.4.6"
)
_DVC_REQS = "dvc==3.67.1"

_SHARED: dict[str, Path] = {}


def _shared(reqs: str, kernel: bool) -> Path:
    """``reqs`` installed once per process into a shared folder (with a Jupyter kernel under ``kernel/`` if asked)."""
    if reqs not in _SHARED:
        base = Path(tempfile.mkdtemp(prefix="u35-tools-"))
        atexit.register(shutil.rmtree, base, True)
        sh(f"{PIP_ISOLATED} {PY} -m pip install -q --no-cache-dir --target {base / 'tools'} {reqs}", base)
        if kernel:
            sh(f"PYTHONPATH={base / 'tools'} {PY} -m ipykernel install --prefix {base / 'kernel'} --name python3", base)
        _SHARED[reqs] = base
    return _SHARED[reqs]


def _home(root: Path) -> str:
    home = root / "home"
    for sub in (".ipython", ".jupyter", "data", "runtime", ".cache", ".config"):
        (home / sub).mkdir(parents=True, exist_ok=True)
    return (
        f"HOME={home} IPYTHONDIR={home / '.ipython'} JUPYTER_CONFIG_DIR={home / '.jupyter'}"
        f" JUPYTER_DATA_DIR={home / 'data'} JUPYTER_RUNTIME_DIR={home / 'runtime'} XDG_CACHE_HOME={home / '.cache'}"
        f" XDG_CONFIG_HOME={home / '.config'}"
    )


def _env(root: Path) -> str:
    """The environment prefix that runs the Jupyter and scikit-learn tools, linked into ``root``."""
    base = _shared(_NB_REQS, kernel=True)
    (root / "tools").symlink_to(base / "tools")
    (root / "kernel").symlink_to(base / "kernel")
    jupyter_path = f"{root / 'kernel' / 'share' / 'jupyter'}:{root / 'tools' / 'share' / 'jupyter'}"
    return (
        f"{PIP_ISOLATED} PYTHONPATH={root / 'tools'} PATH={root / 'tools' / 'bin'}:$PATH"
        f" JUPYTER_PATH={jupyter_path} {_home(root)} JUPYTER_PLATFORM_DIRS=1"
        " PYDEVD_DISABLE_FILE_VALIDATION=1 PYTHONDONTWRITEBYTECODE=1 MPLBACKEND=Agg"
    )


def _dvc_env(root: Path) -> str:
    base = _shared(_DVC_REQS, kernel=False)
    (root / "dvctools").symlink_to(base / "tools")
    return (
        f"{PIP_ISOLATED} PYTHONPATH={root / 'dvctools'} PATH={root / 'dvctools' / 'bin'}:$PATH {_home(root)}"
        f" DVC_NO_ANALYTICS=1 DVC_SITE_CACHE_DIR={root / 'home' / 'dvc-site'} DVC_GLOBAL_CONFIG_DIR={root / 'home'}"
        f" DVC_SYSTEM_CONFIG_DIR={root / 'home'} PYTHONDONTWRITEBYTECODE=1"
    )


def _nb(title: str, cells: list[str], params: str | None = None) -> str:
    """An nbformat 4.5 notebook: a markdown title, an optional ``parameters`` cell, then the code cells."""
    out = [{"cell_type": "markdown", "id": "title", "metadata": {}, "source": [f"# {title}"]}]
    if params is not None:
        out.append(_code("params", params, ["parameters"]))
    out += [_code(f"cell-{i}", src) for i, src in enumerate(cells)]
    meta = {
        "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
        "language_info": {"file_extension": ".py", "mimetype": "text/x-python", "name": "python"},
    }
    return json.dumps({"cells": out, "metadata": meta, "nbformat": 4, "nbformat_minor": 5}, indent=1) + "\n"


def _code(cid: str, src: str, tags: list[str] | None = None) -> dict[str, object]:
    lines = src.strip("\n").splitlines(keepends=True)
    meta = {"tags": tags} if tags else {}
    return {"cell_type": "code", "execution_count": None, "id": cid, "metadata": meta, "outputs": [], "source": lines}


def _notebooks(root: Path, notebooks: dict[str, str]) -> None:
    for rel, text in notebooks.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _jupyter_out(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"^=+ (.* in )\d+\.\d+s =+$", r"========== \1N.NNs =========="),
        (r"Writing \d+ bytes to", "Writing N bytes to"),
        (r"\d+\.\d+s(\b|\))", "N.NNs\\1"),
        (r"kernel-[0-9a-f-]+\.json", "kernel-ID.json"),
    )


# ---------------------------------------------------------------- nbconvert --execute


def _report_cells(area: str, rows: int, bad: bool = False) -> list[str]:
    column = "refund_amount" if bad else "amount"
    return [
        "import pandas as pd\npd.set_option('display.width', 120)\npd.set_option('display.max_rows', 500)",
        f"rows = [{{'id': f'{area[:3].upper()}-{{i:05d}}', 'region': ['eu', 'us', 'apac', 'latam'][i % 4],\n"
        "         'amount': round(17.5 + (i * 37) % 400 + (i % 7) * 0.25, 2),"
        " 'status': ['paid', 'open', 'settled'][i % 3]}\n"
        f"        for i in range({rows})]\n"
        f"df = pd.DataFrame(rows)\n"
        f"print(f'{area}: loaded {{len(df)}} rows')",
        "print(df.to_string(index=False))",
        "summary = df.groupby('region')['amount'].agg(['count', 'sum', 'mean']).round(2)\nprint(summary)",
        f"total = df['{column}'].sum()\nprint(f'{area} total: {{total:,.2f}}')",
    ]


@case(
    "u35_nbconvert_markdown_reports_refunds_keyerror",
    "jupyter nbconvert --to markdown --execute --stdout reports/*.ipynb (12 report notebooks)",
    clean=False,
    group=GROUP,
    decisive=[
        "[NbConvertApp] Converting notebook reports/refunds.ipynb to markdown",
        "nbclient.exceptions.CellExecutionError: An error occurred while executing the following cell:",
        "KeyError: 'refund_amount'",
        "[exit status 1]",
    ],
)
def _nbconvert_reports(root: Path) -> bytes:
    env = _env(root)
    areas = ["audit", "billing", "cart", "catalog", "coupons", "export", "invoice", "ledger", "orders", "pricing",
             "refunds", "shipping"]  # fmt: skip
    _notebooks(
        root,
        {
            f"reports/{a}.ipynb": _nb(f"{a.capitalize()} monthly report", _report_cells(a, 60, bad=a == "refunds"))
            for a in areas
        },
    )
    return _jupyter_out(sh(f"{env} jupyter nbconvert --to markdown --execute --stdout reports/*.ipynb", root), root)


@case(
    "u35_nbconvert_error_analysis_notebooks_clean",
    "jupyter nbconvert --to markdown --execute --stdout error_analysis.ipynb failed_orders_review.ipynb",
    clean=True,
    group=GROUP,
    decisive=[
        "error budget check: 0 of 20 endpoints over budget",
        "failed orders review: 240 failed orders, all matched to a refund or a retry",
    ],
)
def _nbconvert_clean(root: Path) -> bytes:
    env = _env(root)
    endpoints = [f"/api/{w}" for w in WORDS]
    error_analysis = _nb(
        "Error analysis of the API endpoints",
        [
            "import pandas as pd\npd.set_option('display.width', 140)\npd.set_option('display.max_rows', 500)",
            f"endpoints = {endpoints!r}\n"
            "rows = []\n"
            "for day in range(1, 29):\n"
            "    for n, ep in enumerate(endpoints):\n"
            "        reqs = 1000 + (day * 131 + n * 71) % 900\n"
            "        errors = (day + n) % 5\n"
            "        rows.append({'day': f'2024-02-{day:02d}', 'endpoint': ep, 'requests': reqs, 'errors': errors,\n"
            "                     'exceptions': errors // 2, 'error_rate': round(errors / reqs, 5)})\n"
            "df = pd.DataFrame(rows)\nprint(f'loaded {len(df)} rows of error logs')",
            "print(df[df['day'] <= '2024-02-10'].to_string(index=False))",
            "by_ep = df.groupby('endpoint')[['requests', 'errors', 'exceptions']].sum()\n"
            "by_ep['error_rate'] = (by_ep['errors'] / by_ep['requests']).round(5)\nprint(by_ep)",
            "over = by_ep[by_ep['error_rate'] > 0.01]\n"
            "print(f'error budget check: {len(over)} of {len(by_ep)} endpoints over budget')",
        ],
    )
    failed_review = _nb(
        "Review of failed orders",
        [
            "import pandas as pd\npd.set_option('display.width', 140)\npd.set_option('display.max_rows', 500)",
            "failed = pd.read_csv('failed_orders.csv')\nprint(failed.to_string(index=False))",
            "print(failed.groupby('failure_reason')['order_id'].count())",
            "unmatched = failed[~failed['resolution'].isin(['refunded', 'retried'])]\n"
            "assert unmatched.empty, unmatched\n"
            "print(f'failed orders review: {len(failed)} failed orders, all matched to a refund or a retry')",
        ],
    )
    reasons = ["card_declined", "timeout", "stock_error", "address_invalid", "fraud_check_failed", "gateway_error"]
    csv = ["order_id,failure_reason,error_code,resolution"]
    for i in range(240):
        csv.append(f"ORD-{20000 + i},{reasons[i % 6]},E{100 + i % 17},{['refunded', 'retried'][i % 2]}")
    (root / "failed_orders.csv").write_text("\n".join(csv) + "\n")
    _notebooks(root, {"error_analysis.ipynb": error_analysis, "failed_orders_review.ipynb": failed_review})
    cmd = "jupyter nbconvert --to markdown --execute --stdout error_analysis.ipynb failed_orders_review.ipynb"
    return _jupyter_out(sh(f"{env} {cmd}", root), root)


_NIGHTLY = """
#!/bin/bash
# Execute every nightly notebook; keep going, report the failures at the end.
failed=()
ok=0
for nb in nightly/*.ipynb; do
  echo "==> executing $nb"
  if jupyter nbconvert --to notebook --execute --output-dir executed "$nb"; then
    ok=$((ok + 1))
  else
    failed+=("$nb")
  fi
done
echo "nightly notebooks: $ok succeeded, ${#failed[@]} failed ${failed[*]}"
[ ${#failed[@]} -eq 0 ]
"""


@case(
    "u35_nbconvert_execute_nightly_loop_ledger_assertion",
    "bash run_nightly.sh (jupyter nbconvert --to notebook --execute over 16 nightly notebooks)",
    clean=False,
    group=GROUP,
    decisive=[
        "AssertionError: ledger out of balance by 1250.00 for 2024-03",
        "nightly notebooks: 15 succeeded, 1 failed nightly/ledger_close.ipynb",
        "[exit status 1]",
    ],
)
def _nbconvert_nightly(root: Path) -> bytes:
    env = _env(root)
    nbs = {}
    areas = ["audit", "billing", "cart", "catalog", "coupons", "export", "invoice", "ledger", "orders", "pricing",
             "refunds", "search", "session", "shipping", "tax", "webhooks"]  # fmt: skip
    for n, area in enumerate(areas):
        name = "ledger_close" if area == "ledger" else f"{area}_nightly"
        cells = [
            f"entries = [(i, round(100 + (i * {n + 3}) % 250 + 0.5, 2)) for i in range(400)]\n"
            f"debits = sum(v for i, v in entries if i % 2 == 0)\n"
            f"credits = debits + {1250.0 if area == 'ledger' else 0.0}",
            f"print('{area}: {{}} entries, debits {{:.2f}}'.format(len(entries), debits))",
            "assert abs(debits - credits) < 0.01, f'ledger out of balance by {abs(debits - credits):.2f} for 2024-03'",
            f"print('{area} nightly done')",
        ]
        nbs[f"nightly/{name}.ipynb"] = _nb(f"{area.capitalize()} nightly job", cells)
    _notebooks(root, nbs)
    write(root, {"run_nightly.sh": _NIGHTLY})
    return _jupyter_out(sh(f"{env} bash run_nightly.sh", root), root)


# ---------------------------------------------------------------- papermill

_PRICING_NB_CELLS = [
    "FX = {'EUR': 1.0, 'USD': 1.08, 'GBP': 0.86, 'JPY': 161.2, 'AUD': 1.65, 'BRL': 5.37, 'MXN': 18.4, 'CAD': 1.47}",
    "base_prices = {f'SKU-{i:04d}': round(9.99 + (i * 13) % 190, 2) for i in range(40)}\n"
    "print(f'pricing {region} in {currency}: {len(base_prices)} SKUs, margin {margin}')",
    "if currency not in FX:\n"
    "    raise ValueError(f'no FX rate for currency {currency!r} (region {region}); known: {sorted(FX)}')\n"
    "rate = FX[currency]",
    "for sku, price in base_prices.items():\n"
    "    local = round(price * rate * (1 + margin), 2)\n"
    "    print(f'{region:6} {sku} base={price:8.2f} EUR  local={local:10.2f} {currency}')",
    "print(f'{region}/{currency}: price list written to prices_{region}_{currency}.csv')",
]

_PAPERMILL_LOOP = """
#!/bin/bash
set -u
failed=()
ok=0
while IFS=, read -r region currency margin; do
  echo "### papermill ${region}-${currency}"
  if papermill --no-progress-bar --log-output --kernel python3 "$TEMPLATE" "out/${region}_${currency}.ipynb" \\
       -p region "$region" -p currency "$currency" -p margin "$margin"; then
    ok=$((ok + 1))
  else
    failed+=("${region}-${currency}")
  fi
done < "$PARAMS"
echo "$LABEL runs: $ok ok, ${#failed[@]} failed${failed[*]:+: ${failed[*]}}"
[ ${#failed[@]} -eq 0 ]
"""


def _papermill_out(out: bytes, root: Path) -> bytes:
    return substitute(_jupyter_out(out, root), (r"^(.*)\d{4}-\d\d-\d\dT[\d:.]+Z?", r"\1TIMESTAMP"))


@case(
    "u35_papermill_pricing_params_one_currency_fails",
    "papermill --log-output over 14 parameter sets of pricing.ipynb (bash loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: no FX rate for currency 'ARS' (region latam)",
        "pricing runs: 13 ok, 1 failed: latam-ARS",
        "[exit status 1]",
    ],
)
def _papermill_bad(root: Path) -> bytes:
    env = _env(root)
    _notebooks(root, {"pricing.ipynb": _nb("Regional price lists", _PRICING_NB_CELLS,
                                           params="region = 'eu'\ncurrency = 'EUR'\nmargin = 0.2")})  # fmt: skip
    params = [("eu", "EUR"), ("us", "USD"), ("uk", "GBP"), ("jp", "JPY"), ("au", "AUD"), ("br", "BRL"),
              ("mx", "MXN"), ("ca", "CAD"), ("latam", "ARS"), ("de", "EUR"), ("fr", "EUR"), ("nz", "AUD"),
              ("us-west", "USD"), ("ie", "EUR")]  # fmt: skip
    (root / "params.csv").write_text("".join(f"{r},{c},0.{15 + n % 10}\n" for n, (r, c) in enumerate(params)))
    (root / "out").mkdir()
    write(root, {"run_pricing.sh": _PAPERMILL_LOOP})
    cmd = "TEMPLATE=pricing.ipynb PARAMS=params.csv LABEL=pricing bash run_pricing.sh"
    return _papermill_out(sh(f"{env} {cmd}", root), root)


@case(
    "u35_papermill_retry_failed_orders_clean",
    "papermill --log-output over 10 regions of retry_failed_orders.ipynb (bash loop, failed_orders.csv)",
    clean=True,
    group=GROUP,
    decisive=["retry_failed_orders runs: 10 ok, 0 failed"],
)
def _papermill_clean(root: Path) -> bytes:
    env = _env(root)
    cells = [
        "import csv\n"
        "with open('failed_orders.csv') as f:\n"
        "    failed = [r for r in csv.DictReader(f) if r['region'] == region]\n"
        "print(f'{region}: {len(failed)} failed orders to retry (currency {currency})')",
        "errors = 0\n"
        "for r in failed:\n"
        "    print(f\"retry {r['order_id']}: previous error {r['error']!r} -> retried OK\")\n"
        "print(f'{region}: retried {len(failed)} failed orders, {errors} errors, {errors} exceptions')",
    ]
    retry = _nb("Retry failed orders", cells, params="region = 'eu'\ncurrency = 'EUR'\nmargin = 0")
    _notebooks(root, {"retry_failed_orders.ipynb": retry})
    regions = ["eu", "us", "uk", "jp", "au", "br", "mx", "ca", "de", "fr"]
    errs = ["PaymentError: card declined", "TimeoutError: gateway timeout", "StockError: reserved twice",
            "ValidationError: bad postcode", "RetryError: max retries exceeded"]  # fmt: skip
    rows = ["order_id,region,error"]
    rows += [f"ORD-{30000 + i},{regions[i % 10]},{errs[i % 5]}" for i in range(300)]
    (root / "failed_orders.csv").write_text("\n".join(rows) + "\n")
    (root / "params.csv").write_text("".join(f"{r},EUR,0\n" for r in regions))
    (root / "out").mkdir()
    write(root, {"run_retry.sh": _PAPERMILL_LOOP})
    cmd = "TEMPLATE=retry_failed_orders.ipynb PARAMS=params.csv LABEL=retry_failed_orders bash run_retry.sh"
    return _papermill_out(sh(f"{env} {cmd}", root), root)


# ---------------------------------------------------------------- pytest --nbmake


def _unit_tests(root: Path, area: str) -> None:
    """A plain test module of 120 parametrized checks beside the notebooks."""
    write(
        root,
        {
            f"tests/test_{area}_rules.py": f"""
            import pytest

            CASES = [(f"{area}-{{i:03d}}", i, i * 3) for i in range(120)]


            @pytest.mark.parametrize("key,qty,expected", CASES, ids=[c[0] for c in CASES])
            def test_{area}_rule(key, qty, expected):
                assert qty * 3 == expected
            """
        },
    )


@case(
    "u35_pytest_nbmake_catalog_notebooks_one_fails",
    "pytest --nbmake -v notebooks/ (18 catalog notebooks)",
    clean=False,
    group=GROUP,
    decisive=[
        "notebooks/catalog_dedupe.ipynb::catalog_dedupe.ipynb FAILED",
        "duplicate SKUs in catalog: ['SKU-0042', 'SKU-0117']",
        "1 failed, 137 passed",
    ],
)
def _nbmake_bad(root: Path) -> bytes:
    env = _env(root)
    nbs = {}
    names = ["catalog_" + s for s in ("attributes", "brands", "categories", "dedupe", "export", "images", "import",
             "inventory", "locales", "merchandising", "prices", "promotions", "ratings", "search_index", "seo",
             "suppliers", "taxonomy", "variants")]  # fmt: skip
    for name in names:
        dup = name == "catalog_dedupe"
        cells = [
            "skus = [f'SKU-{i:04d}' for i in range(200)]" + (" + ['SKU-0042', 'SKU-0117']" if dup else ""),
            "seen, dups = set(), []\n"
            "for s in skus:\n"
            "    (dups.append(s) if s in seen else seen.add(s))\n"
            "assert not dups, f'duplicate SKUs in catalog: {dups}'",
            f"print('{name}: {{}} SKUs checked'.format(len(skus)))",
        ]
        nbs[f"notebooks/{name}.ipynb"] = _nb(name.replace("_", " ").title(), cells)
    _notebooks(root, nbs)
    _unit_tests(root, "catalog")
    out = sh(f"{env} {PY} -m pytest -p no:cacheprovider --nbmake -v notebooks/ tests/", root)
    return _jupyter_out(out, root)


@case(
    "u35_pytest_nbmake_exceptions_notebooks_clean",
    "pytest --nbmake -v notebooks/ (exceptions_report.ipynb, failures_dashboard.ipynb, ...)",
    clean=True,
    group=GROUP,
    decisive=["132 passed"],
)
def _nbmake_clean(root: Path) -> bytes:
    env = _env(root)
    nbs = {}
    names = ["exceptions_report", "failures_dashboard", "retry_errors", "error_budget", "failed_payments",
             "timeout_errors", "refund_failures", "webhook_errors", "auth_failures", "crash_reports",
             "error_codes", "failed_exports"]  # fmt: skip
    for name in names:
        cells = [
            "errors = {'TimeoutError': 12, 'KeyError': 3, 'ValueError': 7, 'PaymentFailed': 2}\n"
            f"print('{name}: error counts', errors)",
            "assert sum(errors.values()) == 24, 'unexpected number of errors'",
            f"print('{name}: exception table rendered without failures')",
        ]
        nbs[f"notebooks/{name}.ipynb"] = _nb(name.replace("_", " ").title(), cells)
    _notebooks(root, nbs)
    _unit_tests(root, "errors")
    out = sh(f"{env} {PY} -m pytest -p no:cacheprovider --nbmake -v notebooks/ tests/", root)
    return _jupyter_out(out, root)


# ---------------------------------------------------------------- nbconvert --to script, then python

_ETL_CELLS = [
    "import csv\nimport logging\nimport sys\n"
    "logging.basicConfig(stream=sys.stdout, level=logging.INFO, format='%(levelname)s %(name)s: %(message)s')\n"
    "log = logging.getLogger('orders_etl')",
    "def load(path):\n    with open(path) as f:\n        return list(csv.DictReader(f))",
    "def transform(row):\n"
    "    qty = int(row['quantity'])\n"
    "    price = float(row['unit_price'])\n"
    "    return {'order_id': row['order_id'], 'total': round(qty * price, 2), 'region': row['region']}",
    "rows = load('data/orders_2024_03.csv')\nlog.info('loaded %d orders from data/orders_2024_03.csv', len(rows))",
    "out = []\n"
    "for b in range(0, len(rows), 25):\n"
    "    batch = rows[b:b + 25]\n"
    "    for row in batch:\n"
    "        out.append(transform(row))\n"
    "    total = sum(o['total'] for o in out[-len(batch):])\n"
    "    log.info('batch %03d: %d orders transformed, batch total %.2f, %d done',\n"
    "             b // 25, len(batch), total, len(out))",
    "log.info('orders ETL finished: %d orders written to warehouse.orders_fact', len(out))",
]


@case(
    "u35_nbconvert_to_script_orders_etl_valueerror",
    "jupyter nbconvert --to script etl/*.ipynb --output-dir build && python build/orders_etl.py",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "[exit status 1]",
    ],
)
def _script_etl(root: Path) -> bytes:
    env = _env(root)
    nbs = {"etl/orders_etl.ipynb": _nb("Orders ETL", _ETL_CELLS)}
    for area in ("billing", "refunds", "shipping", "tax"):
        nbs[f"etl/{area}_etl.ipynb"] = _nb(f"{area.capitalize()} ETL", [f"print('{area} etl')"])
    _notebooks(root, nbs)
    rows = ["order_id,quantity,unit_price,region"]
    for i in range(3000):
        qty = "N/A" if i == 2317 else str(1 + i % 9)
        rows.append(f"ORD-{40000 + i},{qty},{5 + (i * 7) % 80}.99,{['eu', 'us', 'apac', 'latam'][i % 4]}")
    (root / "data").mkdir()
    (root / "data" / "orders_2024_03.csv").write_text("\n".join(rows) + "\n")
    cmd = "jupyter nbconvert --to script etl/*.ipynb --output-dir build && python build/orders_etl.py"
    return _jupyter_out(sh(f"{env} {cmd}", root), root)


# ---------------------------------------------------------------- scikit-learn pipelines under pytest

_SKLEARN_CONFTEST = """
import pytest
from sklearn.datasets import make_classification
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import accuracy_score, f1_score, roc_auc_score
from sklearn.model_selection import train_test_split
from sklearn.pipeline import make_pipeline
from sklearn.preprocessing import StandardScaler


def train(seed, flip_y):
    X, y = make_classification(n_samples=600, n_features=12, n_informative=6, flip_y=flip_y, class_sep=2.0,
                               random_state=seed)
    X_tr, X_te, y_tr, y_te = train_test_split(X, y, test_size=0.25, random_state=seed)
    model = make_pipeline(StandardScaler(), LogisticRegression(max_iter=500, random_state=seed))
    model.fit(X_tr, y_tr)
    pred = model.predict(X_te)
    proba = model.predict_proba(X_te)[:, 1]
    return {"accuracy": accuracy_score(y_te, pred), "f1": f1_score(y_te, pred), "auc": roc_auc_score(y_te, proba)}
"""


def _sklearn_tests(models: dict[str, float], thresholds: dict[str, float]) -> str:
    lines = ["import pytest", "", "from conftest import train", "", f"MODELS = {models!r}", ""]
    for metric, minimum in thresholds.items():
        lines += [
            "",
            "@pytest.mark.parametrize('name', sorted(MODELS))",
            f"def test_{metric}_threshold(name):",
            "    seed = sorted(MODELS).index(name) + 7",
            "    scores = train(seed, MODELS[name])",
            f"    value = scores[{metric!r}]",
            f"    print(f'{{name}}: {metric}={{value:.4f}}')",
            f"    assert value >= {minimum}, f'{{name}} model {metric} {{value:.3f}} below threshold {minimum}'",
            "",
        ]
    return "\n".join(lines)


@case(
    "u35_pytest_sklearn_pipelines_refunds_f1_threshold",
    "python -m pytest -v tests/ (scikit-learn pipelines, metric thresholds)",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/test_models.py::test_f1_threshold[refunds] FAILED",
        "AssertionError: refunds model f1 0.654 below threshold 0.72",
        "1 failed, 53 passed",
    ],
)
def _sklearn_bad(root: Path) -> bytes:
    env = _env(root)
    areas = [w for w in WORDS if w not in ("errors", "exceptions")]
    models = {w: (0.6 if w == "refunds" else 0.01) for w in areas}
    write(root, {"tests/conftest.py": _SKLEARN_CONFTEST})
    (root / "tests" / "test_models.py").write_text(_sklearn_tests(models, {"accuracy": 0.6, "f1": 0.72, "auc": 0.6}))
    out = sh(f"{env} {PY} -m pytest -p no:cacheprovider -v -rA tests/", root)
    return _jupyter_out(out, root)


@case(
    "u35_pytest_sklearn_error_rate_models_clean",
    "python -m pytest -v tests/ (scikit-learn models named test_error_rate_*, all passing)",
    clean=True,
    group=GROUP,
    decisive=["40 passed"],
)
def _sklearn_clean(root: Path) -> bytes:
    env = _env(root)
    names = ["errors", "exceptions", "failed_orders", "retry", "timeouts", "chargebacks", "fraud_failures",
             "webhook_errors", "auth_failures", "payment_errors", "export_errors", "refund_errors", "crash_rate",
             "error_budget", "failed_logins", "dead_letters", "rejected_invoices", "tax_errors", "sync_failures",
             "audit_exceptions"]  # fmt: skip
    write(root, {"tests/conftest.py": _SKLEARN_CONFTEST})
    (root / "tests" / "test_error_rate_models.py").write_text(
        _sklearn_tests({n: 0.01 for n in names}, {"accuracy": 0.6, "auc": 0.6})
    )
    out = sh(f"{env} {PY} -m pytest -p no:cacheprovider -v -rA tests/", root)
    return _jupyter_out(out, root)


# ---------------------------------------------------------------- dvc repro

_DVC_STAGE_SCRIPT = """
import json
import sys
from pathlib import Path

stage, area = sys.argv[1], sys.argv[2]
src = Path(f"data/raw/{area}.csv")
rows = src.read_text().splitlines()[1:]
print(f"[{stage}] {area}: read {len(rows)} rows from {src}")
totals = {}
for n, row in enumerate(rows):
    key, region, amount = row.split(",")
    totals[region] = totals.get(region, 0.0) + float(amount)
    if n % 20 == 0:
        print(f"[{stage}] {area}: {n:4d} rows aggregated, running total {sum(totals.values()):.2f}")
if len(sys.argv) > 3 and area == sys.argv[3]:
    raise RuntimeError(f"{area}: feature matrix has 0 rows after filtering region {region!r} (min_rows=50)")
out = Path(f"data/features/{area}.json")
out.parent.mkdir(parents=True, exist_ok=True)
out.write_text(json.dumps(totals, sort_keys=True))
print(f"[{stage}] {area}: wrote {out} ({len(totals)} regions)")
"""


def _dvc_project(root: Path, stages: list[tuple[str, str]], broken: str) -> None:
    files = {"src/stage.py": _DVC_STAGE_SCRIPT}
    yaml = ["stages:"]
    for stage, area in stages:
        rows = ["key,region,amount"]
        rows += [f"{area[:3]}-{i},{['eu', 'us', 'apac', 'latam'][i % 4]},{(i * 17) % 300 + 0.5}" for i in range(400)]
        files[f"data/raw/{area}.csv"] = "\n".join(rows) + "\n"
        yaml += [
            f"  {stage}:",
            f"    cmd: python src/stage.py {stage} {area} {broken}",
            "    deps:",
            "      - src/stage.py",
            f"      - data/raw/{area}.csv",
            "    outs:",
            f"      - data/features/{area}.json",
        ]
    files["dvc.yaml"] = "\n".join(yaml) + "\n"
    write(root, files)


def _dvc_out(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"\d+\.\d+s\b", "N.NNs"))


@case(
    "u35_dvc_repro_pricing_features_stage_fails",
    "dvc repro (local pipeline of 14 feature stages, no remote, no Git)",
    clean=False,
    group=GROUP,
    decisive=[
        "RuntimeError: pricing: feature matrix has 0 rows after filtering region 'latam' (min_rows=50)",
        "ERROR: failed to reproduce 'features_pricing'",
        "[exit status 255]",
    ],
)
def _dvc_bad(root: Path) -> bytes:
    env = _dvc_env(root)
    areas = ["audit", "billing", "cart", "catalog", "coupons", "invoice", "ledger", "orders", "pricing", "refunds",
             "search", "shipping", "tax", "webhooks"]  # fmt: skip
    _dvc_project(root, [(f"features_{a}", a) for a in areas], "pricing")
    sh(f"{env} dvc init --no-scm -q && {env} dvc config core.analytics false", root)
    return _dvc_out(sh(f"{env} dvc repro", root), root)


@case(
    "u35_dvc_repro_errors_pipeline_clean",
    "dvc repro (stages errors_summary, failed_orders, retry_audit, ... all succeeding)",
    clean=True,
    group=GROUP,
    decisive=[
        "[retry_exceptions] exceptions: wrote data/features/exceptions.json (4 regions)",
        "Use `dvc push` to send your updates to remote storage.",
    ],
)
def _dvc_clean(root: Path) -> bytes:
    env = _dvc_env(root)
    stages = [("errors_summary", "errors"), ("failed_orders", "orders"), ("retry_audit", "audit"),
              ("refund_failures", "refunds"), ("webhook_errors", "webhooks"),
              ("retry_exceptions", "exceptions")]  # fmt: skip
    _dvc_project(root, stages, "none")
    sh(f"{env} dvc init --no-scm -q && {env} dvc config core.analytics false", root)
    return _dvc_out(sh(f"{env} dvc repro", root), root)
