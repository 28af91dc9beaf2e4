"""Held-out outputs (group ``unseen-37``): a thirty-seventh batch, Python and JavaScript project managers resolving and
installing from the registries as an agent runs them, each tool installed pinned into the scenario's folder, with
its home, cache and configuration pointed there too.

Failing runs: ``poetry lock -vvv`` of a project that pins ``idna`` below what its pinned ``requests`` needs (a long
trace of the solver before the conflict), ``pdm lock -v`` of a project that pins ``werkzeug`` 2 next to ``flask`` 3,
``hatch env create`` then ``hatch run test`` where one of 400 tests fails after the whole pip install log, ``uv lock
-v`` of a project whose ``urllib3`` pin is older than what its ``sentry-sdk`` pin needs, ``uv run -v pytest`` where
one of 300 tests fails after the sync, and ``npm ci`` with a ``package-lock.json`` out of sync with its
``package.json`` (express, webpack and winston added after the lock was written). Clean runs named after errors and
failures: ``poetry lock`` and ``poetry install -vv`` of an ``error-reporter`` project, ``pdm install -v`` of a
``failed-jobs-queue`` project, ``uv sync -v`` of a ``retry-errors`` project, ``pipx install --verbose flake8`` then
``pipx inject flake8-bugbear`` into the scenario's folder (``PIPX_HOME``, ``PIPX_BIN_DIR``), and ``yarn install``
(yarn classic) of a dashboard whose libraries flood the output with unmet peer dependency warnings while the install
succeeds. Labels were written with each scenario, before the engine saw the output. Needs poetry, pdm, hatch, uv and
pipx from PyPI (downloaded once as wheels into ``/tmp/offloader-corpus-wheels``, then installed in each scenario's
``tools`` venv), yarn classic from the npm registry with Node.js and npm, and PyPI and the npm registry reachable
for the projects' own dependencies. (yarn berry was tried and dropped: its ``--immutable`` failure is a few hundred
bytes; so was ``pipenv lock``, whose resolver log comes in a different order on each run.)
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path

from _harness import PIP_ISOLATED, PY, WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-37"

_POETRY = "poetry==2.5.1"
_PDM = "pdm==2.29.4 hishel==1.4.0"  # the hishel its "locked" extra names
_HATCH = "hatch==1.18.2"
_UV = "uv==0.13.8"
_PIPX = "pipx==1.18.4"
_YARN_CLASSIC = "yarn@1.22.22"

#: Where the pinned tools' wheels are kept between runs (downloaded from PyPI once).
_WHEELS = Path("/tmp/offloader-corpus-wheels")
#: The interpreter the projects' environments are made from (not a venv, so no tool installs into ours).
_BASE_PY = str(Path(sys.base_prefix) / "bin" / "python3")

#: Pinned dependencies of the Python projects (transitive ones pinned too, so a lock picks the same versions).
_DEPS = [
    "requests==2.32.3", "urllib3==2.2.3", "idna==3.10", "certifi==2024.8.30", "charset-normalizer==3.4.0",
    "tenacity==9.0.0", "click==8.1.7", "attrs==24.2.0", "python-dateutil==2.9.0.post0", "six==1.16.0",
    "structlog==24.4.0", "backoff==2.2.1", "retrying==1.3.4", "sentry-sdk==2.18.0", "rich==13.9.4",
    "markdown-it-py==3.0.0", "mdurl==0.1.2", "pygments==2.18.0", "exceptiongroup==1.2.2",
]  # fmt: skip


def _home(root: Path) -> str:
    home = root / "home"
    home.mkdir(exist_ok=True)
    return (
        f"HOME={home} XDG_CACHE_HOME={home / '.cache'} XDG_CONFIG_HOME={home / '.config'} "
        f"XDG_DATA_HOME={home / '.local/share'}"
    )


def _py_tool(root: Path, req: str) -> str:
    """``req`` installed in a venv at ``root/tools``; the environment prefix that runs it."""
    wheels = _WHEELS / re.sub(r"[^A-Za-z0-9.]+", "-", req)
    if not (wheels / ".complete").exists():
        sh(f"{PIP_ISOLATED} {PY} -m pip download -q -d {wheels} {req} && touch {wheels / '.complete'}", root)
    tools = root / "tools"
    sh(f"{PY} -m venv {tools}", root)
    sh(f"{PIP_ISOLATED} {tools / 'bin/python'} -m pip install -q --no-index --find-links {wheels} {req}", root)
    run = f"{PIP_ISOLATED} env -u VIRTUAL_ENV PATH={tools / 'bin'}:$PATH {_home(root)}"
    return f"{run} PYTHONDONTWRITEBYTECODE=1 PYTHONHASHSEED=0"


def _settle(out: bytes, root: Path, sort: str = "") -> bytes:
    """``out`` scrubbed of what differs between two runs: temporary folders, lock ids, fresh hashes; and, where
    the tool fetches in parallel, each run of consecutive lines matching ``sort`` put in sorted order."""
    out = substitute(
        scrub(out, root),
        (r"/tmp/tmp[a-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"(/pip-[a-z-]+-)[a-z0-9_]{8}(?=[/\s)'\"]|$)", r"\1abcdefgh"),
        (r"size=\d+ sha256=[0-9a-f]{64}", "size=1000 sha256=" + "0" * 64),
        (r"/wheels/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]+", "/wheels/00/00/00/" + "0" * 56),
        (r"\block \d{6,}", "lock 140000000000000"),
        (r"\b[0-9a-f]{32}\b", "0" * 32),
    )
    if not sort:
        return out
    lines, run, done = out.split(b"\n"), [], []
    for line in lines:
        if re.match(sort.encode(), line):
            run.append(line)
            continue
        done += [*sorted(run), line]
        run = []
    return b"\n".join(done + sorted(run))


def _js_tool(root: Path, package: str) -> str:
    """``package`` installed from the npm registry in ``root/tools``; the environment prefix that runs it."""
    tools = root / "tools"
    tools.mkdir(exist_ok=True)
    (tools / "package.json").write_text('{"name": "tools", "version": "1.0.0", "private": true}\n')
    sh(f"npm install --no-audit --no-fund --silent --cache {root / 'npm-cache'} {package}", tools)
    return f"PATH={tools / 'node_modules/.bin'}:$PATH {_home(root)} npm_config_cache={root / 'npm-cache'}"


def _pyproject(name: str, deps: list[str], extra: str = "") -> str:
    listed = ",\n".join(f'    "{d}"' for d in deps)
    return (
        f'[project]\nname = "{name}"\nversion = "0.1.0"\ndescription = "{name} service"\n'
        f'requires-python = ">=3.11,<4"\ndependencies = [\n{listed},\n]\n{extra}'
    )


def _package(root: Path, pkg: str) -> None:
    """A small importable package under ``src/{pkg}``, named after the business areas."""
    files = {f"src/{pkg}/__init__.py": '"""The package."""\n'}
    for area in WORDS:
        files[f"src/{pkg}/{area}.py"] = f'''
        """{area} handlers."""


        class {area.capitalize()}Error(Exception):
            """Raised when the {area} service fails."""


        def retry_{area}(attempts: int) -> int:
            return min(attempts + 1, 5)
        '''
    write(root, files)


def _tests(root: Path, failing: tuple[str, int, str] | None, per_area: int) -> None:
    """``tests/test_{area}.py`` with ``per_area`` passing tests each, one replaced by ``failing``."""
    files = {}
    for area in WORDS:
        lines = ["import pytest", ""]
        for i in range(per_area):
            if failing and failing[0] == area and failing[1] == i:
                lines.append(failing[2])
            else:
                lines.append(f"def test_{area}_retry_{i}():\n    assert min({i} + 1, 5) == {min(i + 1, 5)}\n")
        files[f"tests/test_{area}.py"] = "\n".join(lines) + "\n"
    write(root, files)


def _pytest_out(out: bytes, root: Path) -> bytes:
    return substitute(
        _settle(out, root),
        (r" in \d+\.\d+s( \(\d+:\d+:\d+\))?", " in 1.00s"),
    )


# ---------------------------------------------------------------- poetry

_POETRY_CFG = (
    "POETRY_NO_INTERACTION=1 POETRY_VIRTUALENVS_IN_PROJECT=true POETRY_INSTALLER_PARALLEL=false "
    "POETRY_KEYRING_ENABLED=false PYTHON_KEYRING_BACKEND=keyring.backends.null.Keyring"
)


def _poetry_env(root: Path) -> str:
    return (
        _py_tool(root, _POETRY)
        + f" {_POETRY_CFG} POETRY_CONFIG_DIR={root / 'poetry/config'} POETRY_CACHE_DIR={root / 'poetry/cache'}"
        + f" POETRY_DATA_DIR={root / 'poetry/data'}"
    )


def _poetry_out(out: bytes, root: Path) -> bytes:
    return substitute(
        _settle(out, root),
        (r"\(\d+\.\d+s\)", "(1.0s)"),
        (r"took \d+\.\d+ seconds", "took 1.000 seconds"),
        (r"in \d+\.\d+ seconds", "in 1.000 seconds"),
    )


def _poetry_project(root: Path, deps: list[str]) -> None:
    extra = (
        '\n[tool.poetry]\npackages = [{ include = "error_reporter", from = "src" }]\n'
        '\n[build-system]\nrequires = ["poetry-core>=2.0.0,<3.0.0"]\nbuild-backend = "poetry.core.masonry.api"\n'
    )
    (root / "pyproject.toml").write_text(_pyproject("error-reporter", deps, extra))
    (root / "README.md").write_text("# error-reporter\n")
    _package(root, "error_reporter")
    sh(f"{_BASE_PY} -m venv {root / '.venv'}", root)


@case(
    "u37_poetry_lock_install_error_reporter_clean",
    "poetry lock -vvv && poetry install -vv (project error-reporter, 19 pinned dependencies)",
    clean=True,
    group=GROUP,
    decisive=[
        "Package operations: 19 installs, 0 updates, 0 removals",
        "Installing the current project: error-reporter (0.1.0)",
    ],
)
def _poetry_clean(root: Path) -> bytes:
    env = _poetry_env(root)
    _poetry_project(root, _DEPS)
    return _poetry_out(sh(f"{env} poetry lock -vvv && {env} poetry install -vv", root), root)


@case(
    "u37_poetry_lock_idna_conflict",
    "poetry lock -vvv (requests 2.32.3 needs idna>=2.5, the project pins idna 2.4)",
    clean=False,
    group=GROUP,
    decisive=[
        "idna (2.4)",
        "version solving failed.",
        "[exit status 1]",
    ],
)
def _poetry_conflict(root: Path) -> bytes:
    env = _poetry_env(root)
    deps = [d if not d.startswith("idna==") else "idna==2.4" for d in _DEPS]
    _poetry_project(root, deps)
    return _poetry_out(sh(f"{env} poetry lock -vvv", root), root)


# ---------------------------------------------------------------- pdm


def _pdm_env(root: Path) -> str:
    return (
        _py_tool(root, _PDM)
        + f" PDM_CHECK_UPDATE=false PDM_NON_INTERACTIVE=1 PDM_CACHE_DIR={root / 'pdm-cache'}"
        + f" PDM_PYTHON={_BASE_PY} PDM_INSTALL_PARALLEL=false PDM_USE_UV=false"
    )


def _pdm_out(out: bytes, root: Path) -> bytes:
    return substitute(
        _settle(out, root, sort=r"pdm\.termui: Fetching hashes for "),
        (r"\d+:\d\d:\d\d(\.\d+)?", "0:00:01"),
        (r"in \d+(\.\d+)?m?s", "in 1ms"),
        (r"\d+(\.\d+)?s elapsed", "1s elapsed"),
    )


@case(
    "u37_pdm_install_failed_jobs_queue_clean",
    "pdm install -v (project failed-jobs-queue, 19 pinned dependencies)",
    clean=True,
    group=GROUP,
    decisive=["All complete!"],
)
def _pdm_clean(root: Path) -> bytes:
    env = _pdm_env(root)
    write(root, {"pyproject.toml": _pyproject("failed-jobs-queue", _DEPS, "\n[tool.pdm]\ndistribution = false\n")})
    return _pdm_out(sh(f"{env} pdm install -v", root), root)


@case(
    "u37_pdm_lock_werkzeug_conflict",
    "pdm lock -v (flask 3.0.3 needs werkzeug>=3.0.0, the project pins werkzeug 2.3.8)",
    clean=False,
    group=GROUP,
    decisive=[
        "werkzeug==2.3.8",
        "Werkzeug>=3.0.0 (from flask@3.0.3)",
        "[exit status 1]",
    ],
)
def _pdm_conflict(root: Path) -> bytes:
    env = _pdm_env(root)
    deps = [*_DEPS, "flask==3.0.3", "werkzeug==2.3.8", "jinja2==3.1.4", "itsdangerous==2.2.0", "blinker==1.8.2"]
    write(root, {"pyproject.toml": _pyproject("failed-jobs-queue", deps, "\n[tool.pdm]\ndistribution = false\n")})
    return _pdm_out(sh(f"{env} pdm lock -v", root), root)


# ---------------------------------------------------------------- hatch


@case(
    "u37_hatch_run_test_one_failing",
    "hatch -v env create && hatch run test (pytest -v, 400 tests, one fails)",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/test_refunds.py::test_partial_refund_rounding FAILED",
        "assert 1998 == 1999",
        "1 failed, 399 passed",
        "[exit status 1]",
    ],
)
def _hatch_fail(root: Path) -> bytes:
    write(root, {"hatch/config.toml": 'mode = "local"\n'})
    env = _py_tool(root, _HATCH) + (
        f" HATCH_DATA_DIR={root / 'hatch/data'} HATCH_CACHE_DIR={root / 'hatch/cache'}"
        f" HATCH_CONFIG={root / 'hatch/config.toml'} HATCH_INTERACTIVE=false SOURCE_DATE_EPOCH=1700000000"
    )
    extra = (
        '\n[build-system]\nrequires = ["hatchling==1.27.0"]\nbuild-backend = "hatchling.build"\n'
        '\n[tool.hatch.build.targets.wheel]\npackages = ["src/refund_engine"]\n'
        '\n[tool.hatch.envs.default]\npath = ".hatch/default"\n'
        'dependencies = ["pytest==8.3.3", "iniconfig==2.0.0", "pluggy==1.5.0", "packaging==24.2"]\n'
        '\n[tool.hatch.envs.default.scripts]\ntest = "pytest -p no:cacheprovider -v tests"\n'
    )
    write(root, {"pyproject.toml": _pyproject("refund-engine", _DEPS[:10], extra), "README.md": "# refunds\n"})
    _package(root, "refund_engine")
    failing = (
        "def cents(amount):\n    return int(amount * 100)\n\n\n"
        "def test_partial_refund_rounding():\n    assert cents(19.99) == 1999\n    assert cents(20.00 - 0.01) == 2000\n"
    )
    _tests(root, ("refunds", 11, failing), 20)
    out = sh(f"{env} hatch -v env create && {env} hatch run test", root)
    return _pytest_out(out, root)


# ---------------------------------------------------------------- uv

_UV_CFG = (
    "UV_PYTHON_DOWNLOADS=never UV_NO_PROGRESS=1 UV_CONCURRENT_DOWNLOADS=1 UV_CONCURRENT_BUILDS=1 "
    "UV_CONCURRENT_INSTALLS=1 UV_LINK_MODE=copy UV_NO_CONFIG=1"
)


def _uv_env(root: Path) -> str:
    return _py_tool(root, _UV) + f" {_UV_CFG} UV_CACHE_DIR={root / 'uv-cache'} UV_PYTHON={_BASE_PY}"


def _uv_out(out: bytes, root: Path) -> bytes:
    return substitute(
        _settle(out, root, sort=r"DEBUG | ?Download"),
        (r"took \d+(\.\d+)?m?s", "took 1.000s"),
        (r"Spawned child \d+ in process group \d+", "Spawned child 1000 in process group 1000"),
        (r"in \d+(\.\d+)?m?s", "in 10ms"),
        (r"(archive-v0|builds-v0|sdists-v\d+)/[A-Za-z0-9_.-]+", r"\1/AbCdEfGh"),
        (r"\.tmp[A-Za-z0-9]{6}", ".tmpAbCdEf"),
    )


@case(
    "u37_uv_sync_retry_errors_clean",
    "uv sync -v (project retry-errors, 19 pinned dependencies)",
    clean=True,
    group=GROUP,
    decisive=["Resolved 21 packages", "Installed 19 packages"],
)
def _uv_clean(root: Path) -> bytes:
    env = _uv_env(root)
    write(root, {"pyproject.toml": _pyproject("retry-errors", _DEPS, "\n[tool.uv]\npackage = false\n")})
    return _uv_out(sh(f"{env} uv sync -v", root), root)


@case(
    "u37_uv_lock_urllib3_unsatisfiable",
    "uv lock -v (sentry-sdk 2.18.0 needs urllib3>=1.26.11, the project pins urllib3 1.26.0)",
    clean=False,
    group=GROUP,
    decisive=[
        "No solution found when resolving dependencies",
        "your project's requirements are unsatisfiable",
        "[exit status 1]",
    ],
)
def _uv_lock_fail(root: Path) -> bytes:
    env = _uv_env(root)
    deps = [d if not d.startswith("urllib3==") else "urllib3==1.26.0" for d in _DEPS]
    write(root, {"pyproject.toml": _pyproject("retry-errors", deps, "\n[tool.uv]\npackage = false\n")})
    return _uv_out(sh(f"{env} uv lock -v", root), root)


@case(
    "u37_uv_run_pytest_one_failing",
    "uv run -v pytest -v (project billing-exports, 300 tests, one fails)",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/test_tax.py::test_vat_rounding_for_invoice FAILED",
        "AssertionError: VAT for invoice INV-2041 should be 4.20, got 4.2",
        "1 failed, 299 passed",
        "[exit status 1]",
    ],
)
def _uv_run_fail(root: Path) -> bytes:
    env = _uv_env(root)
    extra = (
        '\n[dependency-groups]\ndev = ["pytest==8.3.3", "iniconfig==2.0.0", "pluggy==1.5.0", "packaging==24.2"]\n'
        "\n[tool.uv]\npackage = false\n"
    )
    write(root, {"pyproject.toml": _pyproject("billing-exports", _DEPS, extra)})
    failing = (
        "def test_vat_rounding_for_invoice():\n"
        "    vat = round(21.0 * 0.2, 2)\n"
        '    assert str(vat) == "4.20", f"VAT for invoice INV-2041 should be 4.20, got {vat}"\n'
    )
    _tests(root, ("tax", 7, failing), 15)
    return _pytest_out(_uv_out(sh(f"{env} uv run -v pytest -p no:cacheprovider -v tests", root), root), root)


# ---------------------------------------------------------------- pipx


@case(
    "u37_pipx_install_flake8_clean",
    "pipx install --verbose flake8==7.1.1, pipx inject flake8-bugbear (PIPX_HOME, PIPX_BIN_DIR in the scenario)",
    clean=True,
    group=GROUP,
    decisive=["installed package flake8 7.1.1", "injected package flake8-bugbear into venv flake8"],
)
def _pipx_clean(root: Path) -> bytes:
    env = _py_tool(root, _PIPX) + (
        f" PIPX_HOME={root / 'pipx'} PIPX_BIN_DIR={root / 'bin'} PIPX_MAN_DIR={root / 'man'}"
        f" PIPX_DEFAULT_PYTHON={_BASE_PY} USE_EMOJI=0 COLUMNS=200"
    )
    out = sh(
        f"{env} pipx install --verbose --python {_BASE_PY} flake8==7.1.1"
        f" && {env} pipx inject --verbose flake8 flake8-bugbear==24.10.31 && {env} pipx list --include-injected",
        root,
    )
    return substitute(
        _settle(out, root),
        (r"^(pipx >\([^)]*\)): ?", r"\1: "),
        (r"\d+(\.\d+)?s\b", "1.0s"),
        (r": \d+ms$", ": 50ms"),
        (r"in seconds: \d+\.", "in seconds: 1."),
        (r"\(\d+(\.\d+)? ?[kM]B\)", "(10 kB)"),
        (r"pip-[a-z-]+-[a-z0-9_]{8}", "pip-tmp-abcdefgh"),
        (r"tmp[a-z0-9_]{8}", "tmpabcdefgh"),
    )


# ---------------------------------------------------------------- yarn classic

_PEER_HEAVY = {
    "eslint-config-airbnb": "19.0.4",
    "eslint-plugin-react": "7.37.2",
    "eslint-plugin-jest": "28.9.0",
    "eslint-plugin-prettier": "5.2.1",
    "@testing-library/react": "16.0.1",
    "react-redux": "9.1.2",
    "react-router-dom": "6.28.0",
    "@emotion/styled": "11.13.0",
    "formik": "2.4.6",
    "react-hook-form": "7.53.2",
    "@tanstack/react-query": "5.59.20",
    "styled-components": "6.1.13",
    "babel-loader": "9.2.1",
    "css-loader": "7.1.2",
    "postcss-loader": "8.1.1",
    "sass-loader": "16.0.3",
    "eslint-plugin-jsx-a11y": "6.10.2",
    "eslint-plugin-react-hooks": "5.0.0",
    "@typescript-eslint/eslint-plugin": "8.14.0",
    "@typescript-eslint/parser": "8.14.0",
    "@mui/material": "6.1.7",
    "react-select": "5.8.3",
    "@reduxjs/toolkit": "2.3.0",
    "framer-motion": "11.11.17",
    "react-i18next": "15.1.1",
}


@case(
    "u37_yarn_classic_peer_warnings_clean",
    "yarn install (yarn classic 1.22.22, error-dashboard whose libraries have unmet peer dependencies)",
    clean=True,
    group=GROUP,
    decisive=["success Saved lockfile.", "Done in"],
)
def _yarn_classic_clean(root: Path) -> bytes:
    env = _js_tool(root, _YARN_CLASSIC) + f" YARN_CACHE_FOLDER={root / 'yarn-cache'}"
    app = root / "app"
    pkg = {"name": "error-dashboard", "version": "2.3.0", "private": True, "dependencies": _PEER_HEAVY}
    write(app, {"package.json": json.dumps(pkg, indent=2) + "\n"})
    out = sh(f"{env} yarn install --non-interactive --no-progress --network-concurrency 1", app)
    return substitute(scrub(out, root), (r"Done in \d+\.\d+s", "Done in 10.00s"))


# ---------------------------------------------------------------- npm


@case(
    "u37_npm_ci_lockfile_out_of_sync",
    "npm ci --loglevel verbose (express and webpack added to package.json after the lockfile was written)",
    clean=False,
    group=GROUP,
    decisive=[
        "`npm ci` can only install packages when your package.json and package-lock.json or "
        "npm-shrinkwrap.json are in sync",
        "Missing: express@4.21.1 from lock file",
        "[exit status 1]",
    ],
)
def _npm_ci_fail(root: Path) -> bytes:
    home = _home(root)
    cache = root / "npm-cache"
    env = f"{home} npm_config_cache={cache} npm_config_update_notifier=false npm_config_fund=false"
    env += " npm_config_maxsockets=1"
    app = root / "app"
    deps = {"lodash": "4.17.21", "ms": "2.1.3", "uuid": "9.0.1", "dayjs": "1.11.13", "debug": "4.3.7"}
    pkg = {"name": "audit-export", "version": "3.1.0", "private": True, "dependencies": deps}
    write(app, {"package.json": json.dumps(pkg, indent=2) + "\n"})
    sh(f"{env} npm install --package-lock-only --ignore-scripts --no-audit", app)
    deps.update({"express": "4.21.1", "webpack": "5.96.1", "winston": "3.17.0"})
    (app / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    out = sh(f"{env} npm ci --loglevel verbose --no-audit", app)
    return substitute(
        scrub(out, root),
        (r"\d{4}-\d\d-\d\dT\d\d_\d\d_\d\d_\d+Z", "2026-01-01T00_00_00_000Z"),
        (r"\b\d+ms\b", "100ms"),
        (r"^(npm verbose (?:pid|logfile|timing)) .*$", r"\1 ..."),
    )
