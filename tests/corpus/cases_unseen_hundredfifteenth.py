"""Held-out outputs (group ``unseen-115``): a hundred-and-fifteenth batch, Python installs from a local wheelhouse as
an agent runs them in an offline sandbox: a payments monorepo of 36 small setuptools projects (``error-codes``,
``failed-payments``, ``retry-queue``, ``exception-report``, ``dunning-retry``, ``chargeback-errors``...) built into
``wheels/`` with ``pip wheel --no-deps``, then installed into fresh virtual environments with ``pip install --no-index
--find-links wheels/`` (build isolation served from the same folder, which holds setuptools and wheel too).

Failing runs: ``pip install -v`` of ``payments-gateway`` whose tree asks for ``retry-queue>=2.0`` under ``refunds-api``
and ``retry-queue<2.0`` under ``invoice-render`` -> ``exception-report`` (ResolutionImpossible after backtracking), a
``pip install -r requirements.txt`` of 30 pins where ``ledger-sync==0.9.2`` was never built (No matching distribution
found), an install where the wheel of ``webhooks-dispatch`` was repacked with a broken ``Requires-Dist`` line, ``pip
install --no-deps`` of every wheel then ``pip check`` (one conflict) and ``pipdeptree`` (its warning block), ``pip
install -v`` of 14 service folders where the setup.py of ``exception-report-cli`` cannot open its VERSION file (the
build backend fails while getting requirements), and ``pip install --require-hashes`` from a lock file after
``retry-queue`` was rebuilt (hash mismatch). Clean runs named after errors and failures: ``pip wheel -v`` of the whole
monorepo, ``pip download --no-index`` of the lock into ``vendor/``, ``pip install`` of the fixed ``payments-platform``
with ``pip check`` and an import smoke test, and ``pipdeptree`` / ``pipdeptree --reverse`` of the fixed tree. Labels
were written with each scenario, before the engine saw the output. Needs pip 26.3, setuptools 80.9.0, wheel 0.45.1,
build 1.6.1 and pipdeptree 4.2.16 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u115-pip``, with the wheels of pip, setuptools and wheel saved beside it in
``base-wheels``); every install in the scenarios is offline (``--no-index``).
"""

from __future__ import annotations

import hashlib
from pathlib import Path

from _harness import PIP_ISOLATED, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-115"

_TOOLS = VENVS / "u115-pip"
_BASE = _TOOLS / "base-wheels"


def _tools() -> Path:
    """The tool venv (pip, setuptools, wheel, build, pipdeptree) and the wheels of the build backend beside it."""
    make_venv(_TOOLS, "pip==26.3 setuptools==80.9.0 wheel==0.45.1 pipdeptree==4.2.16 build==1.6.1")
    if not (_BASE / "wheel-0.45.1-py3-none-any.whl").exists():
        sh(
            f"{PIP_ISOLATED} {_TOOLS}/bin/pip download -q --no-deps -d {_BASE} pip==26.3 setuptools==80.9.0 "
            "wheel==0.45.1",
            _TOOLS,
        )
    return _TOOLS


#: The monorepo: name -> (version, requirements). ``exception-report`` 1.3.0 still pins ``retry-queue<2.0``.
_LIBS: dict[str, tuple[str, list[str]]] = {
    "error-codes": ("1.6.0", []),
    "retry-queue": ("2.1.0", ["error-codes>=1.5"]),
    "exception-report": ("1.3.0", ["error-codes>=1.2", "retry-queue<2.0"]),
    "failed-payments": ("1.4.0", ["error-codes>=1.4", "retry-queue>=1.8"]),
    "payments-core": ("3.0.0", ["error-codes>=1.0"]),
    "audit-trail": ("0.8.0", []),
    "billing-ledger": ("2.2.0", ["payments-core>=3.0", "audit-trail>=0.8"]),
    "tax-rules": ("4.5.0", []),
    "coupons-engine": ("0.9.0", []),
    "cart-pricing": ("1.2.0", ["tax-rules>=4.0", "coupons-engine>=0.9"]),
    "shipping-rates": ("1.7.0", []),
    "catalog-search": ("2.3.0", ["error-codes>=1.0"]),
    "session-tokens": ("0.4.0", []),
    "auth-gateway": ("1.0.0", ["session-tokens>=0.4", "error-codes>=1.0"]),
    "orders-service": ("5.1.0", ["cart-pricing>=1.2", "shipping-rates>=1.5", "payments-core>=3.0"]),
    "refunds-api": ("2.0.1", ["failed-payments>=1.3", "retry-queue>=2.0,<3"]),
    "invoice-render": ("1.1.0", ["exception-report>=1.2", "tax-rules>=4.0"]),
    "webhooks-dispatch": ("1.0.3", ["retry-queue>=1.5", "error-codes>=1.0"]),
    "export-jobs": ("0.6.0", ["billing-ledger>=2.0", "audit-trail>=0.5"]),
    "ledger-sync": ("1.0.0", ["billing-ledger>=2.0"]),
    "chargeback-errors": ("0.3.0", ["error-codes>=1.3"]),
    "dunning-retry": ("1.1.0", ["retry-queue>=1.9", "failed-payments>=1.4"]),
    "payment-exceptions": ("0.7.0", ["error-codes>=1.1"]),
    "settlement-reports": ("1.0.0", ["billing-ledger>=2.1"]),
    "fraud-signals": ("0.5.2", ["session-tokens>=0.3"]),
    "currency-rates": ("2.0.0", []),
    "payout-scheduler": ("0.9.4", ["currency-rates>=2.0", "retry-queue>=1.9"]),
    "dispute-tracker": ("1.3.1", ["chargeback-errors>=0.3", "audit-trail>=0.8"]),
    "receipts-mailer": ("0.2.0", ["invoice-render>=1.0"]),
    "merchant-onboarding": ("1.0.0", ["auth-gateway>=1.0", "kyc-checks>=0.4"]),
    "kyc-checks": ("0.4.1", ["error-codes>=1.0"]),
    "failed-webhooks-replay": ("0.3.0", ["webhooks-dispatch>=1.0", "retry-queue>=1.9"]),
    "error-budget": ("0.1.0", []),
    "retry-metrics": ("0.2.3", ["retry-queue>=1.0"]),
    "payments-gateway": (
        "3.2.0",
        ["refunds-api>=2.0", "invoice-render>=1.1", "orders-service>=5.0", "auth-gateway>=1.0", "billing-ledger>=2.2"],
    ),
    "payments-platform": ("4.0.0", []),  # filled below: every other library
}
_LIBS["payments-platform"] = (
    "4.0.0",
    [f"{n}>={v}" for n, (v, _) in _LIBS.items() if n not in ("payments-platform", "payments-gateway")],
)

#: Older releases kept in the wheelhouse (what the resolver backtracks into).
_OLD: list[tuple[str, str, list[str]]] = [
    ("retry-queue", "1.9.0", ["error-codes>=1.0"]),
    ("exception-report", "1.2.0", ["error-codes>=1.0", "retry-queue<2.0"]),
    ("ledger-sync", "0.9.0", ["billing-ledger>=2.0"]),
    ("ledger-sync", "0.9.1", ["billing-ledger>=2.0"]),
    ("refunds-api", "1.9.0", ["failed-payments>=1.2", "retry-queue>=2.0"]),
]

#: The fix: ``exception-report`` 1.4.0 moves to ``retry-queue`` 2.
_FIXED = ("exception-report", "1.4.0", ["error-codes>=1.2", "retry-queue>=2.0,<3"])

_MODULES = ["models", "errors", "retry_policy", "handlers", "report"]


def _project(root: Path, name: str, version: str, deps: list[str], *, extra: dict[str, str] | None = None) -> Path:
    """A setuptools project in ``root/<name>-<version>``: a src layout package with five modules."""
    mod = name.replace("-", "_")
    where = root / f"{name}-{version}"
    reqs = "".join(f'    "{d}",\n' for d in deps)
    files = {
        "pyproject.toml": (
            '[build-system]\nrequires = ["setuptools>=61", "wheel"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "{name}"\nversion = "{version}"\n'
            f'description = "{name}: part of the payments platform"\nrequires-python = ">=3.9"\n'
            f'dependencies = [\n{reqs}]\n\n[tool.setuptools.packages.find]\nwhere = ["src"]\n'
        ),
        f"src/{mod}/__init__.py": f'"""{name}."""\n\n__version__ = "{version}"\n',
        "README.md": f"# {name}\n\nOwned by the payments team. Handles failed payments, retries and error reports.\n",
    }
    for m in _MODULES:
        files[f"src/{mod}/{m}.py"] = (
            f'"""{name}.{m}: failed payment errors, retry and exception handling."""\n\n\n'
            f"class {mod.title().replace('_', '')}{m.title().replace('_', '')}Error(Exception):\n"
            f'    """Raised when a payment fails in {m}."""\n\n\n'
            f"def retry_failed_{m}(attempts: int = 3) -> int:\n    return attempts\n"
        )
    files.update(extra or {})
    where.mkdir(parents=True, exist_ok=True)
    for rel, text in files.items():
        path = where / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return where


def _sources(root: Path, *, fixed: bool = False) -> tuple[list[Path], list[Path]]:
    """Every project of the monorepo under ``root/libs``: the current releases' folders, the older ones'."""
    libs = root / "libs"
    out = []
    for name, (version, deps) in _LIBS.items():
        if fixed and name == _FIXED[0]:
            version, deps = _FIXED[1], _FIXED[2]
        out.append(_project(libs, name, version, deps))
    return out, [_project(libs, name, version, deps) for name, version, deps in _OLD]


def _env() -> str:
    return f"{PIP_ISOLATED} SOURCE_DATE_EPOCH=1700000000 PYTHONDONTWRITEBYTECODE=1 PIP_NO_CACHE_DIR=1"


def _wheelhouse(root: Path, *, fixed: bool = False, verbose: bool = False) -> bytes:
    """The monorepo's wheels in ``root/wheels`` (with the build backend's own wheels); pip's output."""
    tools = _tools()
    wheels = root / "wheels"
    wheels.mkdir(exist_ok=True)
    sh(f"cp {_BASE}/*.whl {wheels}/", root)
    current, older = _sources(root, fixed=fixed)
    pip = f"{_env()} {tools}/bin/pip wheel --no-deps --no-build-isolation -w wheels"
    for path in older:  # one call each: pip wheel refuses two versions of one name in one call
        sh(f"{pip} -q {path.relative_to(root)}", root)
    dirs = " ".join(str(p.relative_to(root)) for p in current)
    return sh(f"{pip} {'-v' if verbose else '-q'} {dirs}", root)


def _venv(root: Path, name: str = "venv") -> str:
    """A fresh virtual environment with pip 26.3 (installed offline); its bin folder."""
    venv = root / name
    sh(f"{_TOOLS}/bin/python -m venv --without-pip {venv}", root)
    sh(
        f"{_env()} {_TOOLS}/bin/pip --python {venv}/bin/python install -q --no-index {_BASE}/pip-26.3-py3-none-any.whl",
        root,
    )
    return f"{venv}/bin"


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"/tmp/pip-[a-z0-9_-]+", "/tmp/pip-build"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"\d+(\.\d+)? ?[kM]?B/s", "1.0 MB/s"),
        (r"\d+(\.\d+)?s\b", "0.1s"),
        (r"sha256=[0-9a-f]{64}", "sha256=" + "0" * 64),
    )


def _run(root: Path, cmd: str) -> bytes:
    return _settle(sh(f"{_env()} {cmd}", root), root)


# ---------------------------------------------------------------- clean runs


@case(
    "u115_pip_wheel_monorepo_clean",
    "pip wheel",
    clean=True,
    group=GROUP,
    decisive=["Successfully built error-codes retry-queue exception-report failed-payments"],
)
def _wheel_clean(root: Path) -> bytes:
    return _settle(_wheelhouse(root, fixed=True, verbose=True), root)


@case(
    "u115_pip_download_lock_clean",
    "pip download",
    clean=True,
    group=GROUP,
    decisive=["Successfully downloaded error-codes retry-queue exception-report failed-payments"],
)
def _download_clean(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    lock = "".join(f"{n}=={_FIXED[1] if n == _FIXED[0] else v}\n" for n, (v, _) in _LIBS.items())
    write(root, {"requirements-lock.txt": lock})
    return _run(
        root,
        f"{_TOOLS}/bin/pip download -v --no-index --find-links wheels/ -d vendor/ -r requirements-lock.txt "
        "&& ls -l vendor/ | awk '{print $5, $9}'",
    )


def _lock(*, fixed: bool, pins: dict[str, str] | None = None) -> str:
    """requirements lines pinning every library of the monorepo (``pins`` overrides some versions)."""
    out = []
    for name, (version, _) in _LIBS.items():
        if fixed and name == _FIXED[0]:
            version = _FIXED[1]
        out.append(f"{name}=={(pins or {}).get(name, version)}\n")
    return "".join(out)


_SMOKE = """
import importlib, importlib.metadata as md
names = [d.metadata["Name"] for d in md.distributions() if d.metadata["Name"] not in ("pip",)]
for name in sorted(names):
    mod = importlib.import_module(name.replace("-", "_"))
    errors = importlib.import_module(mod.__name__ + ".errors")
    n = len([k for k in vars(errors) if k.endswith("Error")])
    print(f"import {mod.__name__:<24} {mod.__version__:<8} errors.py: {n} exception class(es) ok")
print(f"smoke test: {len(names)} packages imported, 0 failed")
"""


@case(
    "u115_pip_install_platform_clean",
    "pip install",
    clean=True,
    group=GROUP,
    decisive=["No broken requirements found.", "smoke test: 36 packages imported, 0 failed"],
)
def _install_clean(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    bin_ = _venv(root)
    write(root, {"smoke.py": _SMOKE})
    return _run(
        root,
        f"{bin_}/pip install -v --no-index --find-links wheels/ payments-platform payments-gateway "
        f"&& {bin_}/pip check && {bin_}/python smoke.py",
    )


@case(
    "u115_pipdeptree_clean",
    "pipdeptree",
    clean=True,
    group=GROUP,
    decisive=["retry-queue==2.1.0"],
)
def _pipdeptree_clean(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    bin_ = _venv(root)
    sh(f"{_env()} {bin_}/pip install -q --no-index --find-links wheels/ payments-platform payments-gateway", root)
    tree = f"{_TOOLS}/bin/pipdeptree --python {bin_}/python"
    return _run(root, f"{tree} --exclude pip && {tree} --reverse --packages retry-queue")


# ---------------------------------------------------------------- failing runs


@case(
    "u115_pip_resolution_impossible",
    "pip install",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: Cannot install invoice-render and payments-gateway",
        "The conflict is caused by:",
        "ERROR: ResolutionImpossible",
    ],
)
def _resolution(root: Path) -> bytes:
    _wheelhouse(root)
    bin_ = _venv(root)
    return _run(root, f"{bin_}/pip install -vv --no-index --find-links wheels/ payments-gateway")


@case(
    "u115_pip_no_matching_distribution",
    "pip install",
    clean=False,
    group=GROUP,
    decisive=[
        "satisfies the requirement ledger-sync==0.9.2 (from versions: 0.9.0, 0.9.1, 1.0.0)",
        "ERROR: No matching distribution found for ledger-sync==0.9.2",
    ],
)
def _no_match(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    bin_ = _venv(root)
    write(
        root,
        {
            "requirements.txt": "# payments platform, pinned for the sandbox\n"
            + _lock(fixed=True, pins={"ledger-sync": "0.9.2"})
        },
    )
    return _run(root, f"{bin_}/pip install -vv --no-index --find-links wheels/ -r requirements.txt")


@case(
    "u115_pip_broken_requires_dist",
    "pip install",
    clean=False,
    group=GROUP,
    decisive=[
        "has invalid metadata: Expected matching RIGHT_PARENTHESIS for LEFT_PARENTHESIS",
        "ERROR: No matching distribution found for webhooks-dispatch>=1.0.3",
    ],
)
def _broken_metadata(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    bin_ = _venv(root)
    wheel = f"{_TOOLS}/bin/wheel"
    meta = "repack/webhooks_dispatch-1.0.3/webhooks_dispatch-1.0.3.dist-info/METADATA"
    sh(
        f"mkdir repack && {wheel} unpack -d repack wheels/webhooks_dispatch-1.0.3-py3-none-any.whl && "
        f"sed -i 's/^Requires-Dist: retry-queue>=1.5$/Requires-Dist: retry-queue (>=1.5/' {meta} && "
        f"{_env()} {wheel} pack -d wheels repack/webhooks_dispatch-1.0.3",
        root,
    )
    return _run(root, f"{bin_}/pip install -vv --no-index --find-links wheels/ payments-platform payments-gateway")


@case(
    "u115_pip_check_pipdeptree_conflict",
    "pip check",
    clean=False,
    group=GROUP,
    decisive=[
        "exception-report 1.3.0 has requirement retry-queue<2.0, but you have retry-queue 2.1.0.",
        "Warning: dependency problems found:",
    ],
)
def _check_conflict(root: Path) -> bytes:
    _wheelhouse(root)
    bin_ = _venv(root)
    write(root, {"requirements-lock.txt": _lock(fixed=False)})
    tree = f"{_TOOLS}/bin/pipdeptree --python {bin_}/python --exclude pip"
    return _run(
        root,
        f"{bin_}/pip install --no-deps --no-index --find-links wheels/ -r requirements-lock.txt; "
        f"{bin_}/pip list; {bin_}/pip check; {tree}",
    )


_SERVICES = [
    "failed-payments-worker",
    "retry-queue-consumer",
    "error-codes-registry",
    "dunning-scheduler",
    "refunds-webhook",
    "ledger-reconciler",
    "chargeback-intake",
    "exception-report-cli",
    "payout-runner",
    "invoice-mailer",
    "audit-exporter",
    "fraud-scorer",
    "session-sweeper",
    "tax-sync",
]

_BAD_SETUP = """
from pathlib import Path

from setuptools import setup

# the release script writes VERSION next to this file before a build
setup(version=Path("VERSION").read_text().strip())
"""


@case(
    "u115_pip_verbose_backend_fails",
    "pip install",
    clean=False,
    group=GROUP,
    decisive=[
        "FileNotFoundError: [Errno 2] No such file or directory: 'VERSION'",
        "Getting requirements to build wheel did not run successfully.",
        "ERROR: Failed to build 'file:///tmp/work/services/exception-report-cli'",
    ],
)
def _backend_fails(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    bin_ = _venv(root)
    libs = list(_LIBS)
    for i, name in enumerate(_SERVICES):
        deps = [f"{libs[(i * 5) % 34]}>=0.1", f"{libs[(i * 7 + 1) % 34]}>=0.1"]
        project = _project(root / "services", name, "0.1.0", deps)
        if name == "exception-report-cli":
            text = (project / "pyproject.toml").read_text().replace('version = "0.1.0"\n', 'dynamic = ["version"]\n')
            (project / "pyproject.toml").write_text(text)
            (project / "setup.py").write_text(_BAD_SETUP.lstrip())
        project.rename(root / "services" / name)
    dirs = " ".join(f"./services/{n}" for n in _SERVICES)
    return _run(root, f"{bin_}/pip install -v --no-index --find-links wheels/ {dirs}")


@case(
    "u115_pip_require_hashes_mismatch",
    "pip install",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: THESE PACKAGES DO NOT MATCH THE HASHES FROM THE REQUIREMENTS FILE",
        "dunning-retry==1.1.0 from file:///tmp/work/wheels/dunning_retry-1.1.0-py3-none-any.whl",
    ],
)
def _hashes(root: Path) -> bytes:
    _wheelhouse(root, fixed=True)
    bin_ = _venv(root)
    lines = []
    for name, version in (line.split("==") for line in _lock(fixed=True).split()):
        whl = root / "wheels" / f"{name.replace('-', '_')}-{version}-py3-none-any.whl"
        digest = hashlib.sha256(whl.read_bytes()).hexdigest()
        lines.append(f"{name}=={version} \\\n    --hash=sha256:{digest}\n")
    write(root, {"requirements-lock.txt": "".join(lines)})
    # a later local fix to dunning-retry, rebuilt under the same version
    src = root / "libs" / "dunning-retry-1.1.0" / "src" / "dunning_retry" / "retry_policy.py"
    src.write_text(src.read_text() + "\n\nMAX_FAILED_RETRIES = 5\n")
    # the agent rebuilds it (verbose) and reinstalls from the lock in one command
    return _run(
        root,
        f"{_TOOLS}/bin/pip wheel -v --no-deps --no-build-isolation -w wheels libs/dunning-retry-1.1.0 && "
        f"{bin_}/pip install -v --require-hashes --no-index --find-links wheels/ -r requirements-lock.txt",
    )
