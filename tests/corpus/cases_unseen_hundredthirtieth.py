"""Held-out outputs (group ``unseen-130``): a hundred-and-thirtieth batch, Python packaging checks before a release as
an agent runs them on a generated monorepo, ``ledgerkit``, of 26 small setuptools packages named after business words
(``ledgerkit-failed-payments``, ``ledgerkit-error-codes``, ``ledgerkit-retry-queue``, ``ledgerkit-exceptions``,
``ledgerkit-refunds`` ...), offline except PyPI for installing the tools once.

Failing runs: ``python -m build`` over every package where one ``pyproject.toml`` has a dependency that is not PEP 508
(the build script goes on and sums up), the same builds followed by ``twine check --strict`` over the 52 distributions
where one long description is broken reStructuredText (twine wraps its error at 80 columns), a release gate
(``validate-pyproject``, ``check-manifest``, ``pyroma`` on each package) where one tracked ``CHANGELOG.md`` is missing
from the sdist, the same gate where ``pyroma`` rates one bare package 4/10, a loop of ``python -m build --wheel`` and
``check-wheel-contents`` whose exit status is 0 although one wheel ships a top-level ``tests`` package (only the
tool's own words say so), and a fresh virtual environment where every wheel installs but one import fails because a
subpackage was left out of the wheel. Clean runs full of those business words: ``python -m build`` of every sdist and
wheel with setuptools' deprecation warnings about dash-separated options, ``twine check`` and ``check-wheel-contents``
over every distribution with warnings about missing long descriptions, the release gate with pyroma's complaints but
ratings that pass, and ``pip install`` of every wheel into a fresh virtual environment, then importing each and
printing its error codes. Labels were written with each scenario, before the engine saw the output. Needs Python 3
with git, and build, twine, check-manifest, pyroma, validate-pyproject, check-wheel-contents, setuptools and wheel
from PyPI (a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u130-release``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import PIP_ISOLATED, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-130"

_REQS = (
    "build==1.2.2.post1 twine==6.1.0 check-manifest==0.50 pyroma==4.2 validate-pyproject==0.23 "
    "check-wheel-contents==0.6.1 setuptools==75.8.0 wheel==0.45.1"
)

#: The 26 packages of the monorepo, in build order (the ones others depend on first).
_PACKAGES = [
    "error_codes", "exceptions", "billing", "failed_payments", "retry_queue", "refunds", "invoices", "ledger",
    "chargebacks", "disputes", "dunning", "payouts", "settlements", "tax", "coupons", "webhooks", "audit_log",
    "fraud_alerts", "dead_letters", "timeouts", "rollbacks", "crash_reports", "warnings_digest", "fatal_alerts",
    "abort_handler", "panic_button",
]  # fmt: skip

_MODULES = ["models", "errors", "retry", "handlers", "report", "codes", "validators", "serializers"]


def _tools() -> Path:
    """The bin folder of the pinned packaging tools."""
    return make_venv(VENVS / "u130-release", _REQS) / "bin"


def _dist(name: str) -> str:
    return "ledgerkit-" + name.replace("_", "-")


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"/tmp/tmp[a-z0-9_]{8}", "/tmp/tmpXXXXXXXX"),
        (r"/\.tmp-[a-z0-9_]{8}/", "/.tmp-XXXXXXXX/"),
        (r"/tmp/build-via-sdist-[a-z0-9_]{8}", "/tmp/build-via-sdist-XXXXXXXX"),
        (r"/tmp/check-manifest-[a-z0-9_]{8}-", "/tmp/check-manifest-XXXXXXXX-"),
        (r"/tmp/build-env-[a-z0-9_]{8}", "/tmp/build-env-XXXXXXXX"),
        (r"\d+\.\d+s\b", "0.10s"),
    )


def _module_src(pkg: str, mod: str, i: int) -> str:
    up = pkg.upper()
    return f'''\
"""{mod} of ledgerkit_{pkg}: records, error codes and retries for {pkg.replace("_", " ")}."""

from __future__ import annotations

{up}_{mod.upper()}_ERRORS = {{
    "E{i:02d}01": "{pkg} record rejected by the gateway",
    "E{i:02d}02": "{pkg} record failed validation",
    "E{i:02d}03": "{pkg} retry budget exhausted",
    "E{i:02d}04": "{pkg} timeout waiting for settlement",
}}


class {pkg.title().replace("_", "")}{mod.title()}Error(Exception):
    """Raised when a {pkg} {mod} step fails."""


def failed_{mod}(records: list[dict]) -> list[dict]:
    """The {pkg} records whose status is failed."""
    return [r for r in records if r.get("status") == "failed"]


def retry_delay_{mod}(attempt: int) -> int:
    """Seconds to wait before retry ``attempt`` of a {pkg} {mod} step."""
    return 30 * 2 ** max(0, attempt - 1)
'''


def _package(root: Path, i: int, pkg: str, *, version: str = "", readme: str = "README.md", rst: str = "",
             packages: str = "", manifest_data: bool = True, classifiers: bool = True, deprecated: bool = False,
             urls: bool = True, extra: dict[str, str] | None = None, authors: bool = True) -> None:  # fmt: skip
    """One package under ``root/packages/NAME``."""
    base = root / "packages" / _dist(pkg)
    imp = f"ledgerkit_{pkg}"
    version = version or f"1.{i % 7}.{i % 3}"
    deps = "" if pkg in ("error_codes", "exceptions") else '"ledgerkit-error-codes", "ledgerkit-exceptions"'
    cls = (
        """classifiers = [
    "Development Status :: 5 - Production/Stable",
    "Intended Audience :: Financial and Insurance Industry",
    "License :: OSI Approved :: MIT License",
    "Operating System :: OS Independent",
    "Programming Language :: Python :: 3",
    "Programming Language :: Python :: 3.11",
    "Topic :: Office/Business :: Financial :: Accounting",
]
"""
        if classifiers
        else ""
    )
    url = (
        f"""
[project.urls]
Homepage = "https://ledgerkit.example/{pkg}"
Source = "https://git.ledgerkit.example/ledgerkit/{_dist(pkg)}"
Changelog = "https://ledgerkit.example/{pkg}/changes"
"""
        if urls
        else ""
    )
    find = (
        packages
        or """
[tool.setuptools.packages.find]
where = ["src"]
"""
    )
    readme_line = f'readme = "{readme}"\n' if readme else ""
    auth = (
        'authors = [{name = "Ledgerkit Payments", email = "payments@ledgerkit.example"}]\n'
        f'keywords = ["payments", "ledger", "{pkg.replace("_", "-")}", "errors", "retry"]\n'
        if authors
        else ""
    )
    files = {
        "pyproject.toml": f"""\
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "{_dist(pkg)}"
version = "{version}"
description = "Ledgerkit {pkg.replace("_", " ")}: records, error codes and retry policy"
{readme_line}requires-python = ">=3.9"
license = {{text = "MIT"}}
{auth}dependencies = [{deps}]
{cls}{url}{find}
[tool.setuptools.package-data]
{imp} = ["data/*.json"]
""",
        "README.md": f"""\
# {_dist(pkg)}

Records, error codes and the retry policy of the ledgerkit {pkg.replace("_", " ")} service.

```python
from {imp} import selfcheck
selfcheck()
```

Failed {pkg.replace("_", " ")} records are retried with exponential backoff; see `{imp}.retry`.
""",
        "LICENSE": "MIT License\n\nCopyright (c) 2024 Ledgerkit Payments\n\nPermission is hereby granted.\n",
        "MANIFEST.in": "include LICENSE README.md\nrecursive-include tests *.py\n"
        + (f"recursive-include src/{imp}/data *.json\n" if manifest_data else ""),
        f"src/{imp}/__init__.py": f'''\
"""ledgerkit {pkg.replace("_", " ")}."""

__version__ = "{version}"

from . import {", ".join(_MODULES)}  # noqa: E402
from .backends import memory, sql  # noqa: E402


def selfcheck() -> str:
    count = sum(len(getattr(m, k)) for m in ({", ".join(_MODULES)}) for k in dir(m) if k.endswith("_ERRORS"))
    return f"{imp} {{__version__}}: {{count}} error codes, backends {{memory.NAME}}/{{sql.NAME}}"
''',
        f"src/{imp}/backends/__init__.py": '"""Storage backends."""\n',
        f"src/{imp}/backends/memory.py": 'NAME = "memory"\nFAILED = []\n',
        f"src/{imp}/backends/sql.py": 'NAME = "sql"\nTABLE = "failed_payments_retry"\n',
        f"src/{imp}/data/error_codes.json": '{"E001": "declined", "E002": "timeout", "E003": "fraud_suspected"}\n',
        f"tests/test_{pkg}.py": f"import {imp}\n\n\ndef test_selfcheck():\n    assert {imp}.selfcheck()\n",
    }
    for j, mod in enumerate(_MODULES):
        files[f"src/{imp}/{mod}.py"] = _module_src(pkg, mod, i * 10 + j)
    if rst:
        files["README.rst"] = rst
    files.update(extra or {})
    if deprecated:
        files["setup.cfg"] = "[metadata]\nlicense-file = LICENSE\n\n[egg_info]\ntag-build =\n"
    write(base, files)


def _monorepo(root: Path, overrides: dict[str, dict] | None = None, *, git: bool = False) -> None:
    overrides = overrides or {}
    for i, pkg in enumerate(_PACKAGES):
        _package(root, i, pkg, **overrides.get(pkg, {}))
    if git:
        sh(
            "git init -q -b main && git add -A && git -c user.name=ops -c user.email=ops@ledgerkit.example "
            "commit -q -m 'ledgerkit monorepo'",
            root,
        )


_SCRIPTS = {
    "scripts/build_all.sh": """\
        #!/bin/sh
        # Build the sdist and wheel of every ledgerkit package into dist/ (no isolation: offline).
        built=0
        failed=""
        for p in $(cat packages.txt); do
            echo "===== $p"
            if "$PYTHON" -m build --no-isolation --outdir dist "packages/$p"; then
                built=$((built + 1))
            else
                failed="$failed $p"
            fi
        done
        echo "build_all: $built of $(wc -l < packages.txt) packages built${failed:+; failed:$failed}"
        [ -z "$failed" ]
    """,
    "scripts/release_gate.sh": """\
        #!/bin/sh
        # Metadata gate before tagging a release: validate-pyproject, check-manifest and pyroma on every package.
        bad=""
        for p in $(cat packages.txt); do
            echo "##### $p"
            (cd "packages/$p" && validate-pyproject pyproject.toml && check-manifest -v --no-build-isolation . \\
                && pyroma -n 8 -d .) || bad="$bad $p"
        done
        if [ -n "$bad" ]; then echo "release gate: FAILED for$bad"; exit 1; fi
        echo "release gate: all $(wc -l < packages.txt) packages ready"
    """,
    "scripts/import_check.py": """\
        import importlib
        import sys
        import traceback

        ok, bad = 0, []
        for dist in open("packages.txt").read().split():
            name = dist.replace("-", "_")
            try:
                mod = importlib.import_module(name)
                print(f"import {name:32} ok   {mod.selfcheck()}")
                ok += 1
            except Exception:
                print(f"import {name:32} FAILED")
                traceback.print_exc(file=sys.stdout)
                bad.append(name)
        print(f"import check: {ok} packages imported, {len(bad)} failed{': ' + ', '.join(bad) if bad else ''}")
        sys.exit(1 if bad else 0)
    """,
}


def _setup(root: Path, overrides: dict[str, dict] | None = None, *, git: bool = False) -> str:
    """The monorepo in ``root`` with its scripts; the environment prefix that runs the tools."""
    _monorepo(root, overrides, git=False)
    write(root, {**_SCRIPTS, "packages.txt": "".join(_dist(p) + "\n" for p in _PACKAGES)})
    if git:
        sh(
            "git init -q -b main && git add -A && git -c user.name=ops -c user.email=ops@ledgerkit.example "
            "commit -q -m 'ledgerkit monorepo'",
            root,
        )
    tools = _tools()
    return f"{PIP_ISOLATED} PYTHON={tools}/python PATH={tools}:$PATH"


def _quiet_build(root: Path, env: str, *, wheels_only: bool = False) -> None:
    """Every package built into ``root/dist`` (output kept out of the case's output)."""
    if wheels_only:
        sh(f"{env} pip wheel -q --no-deps --no-build-isolation -w dist packages/*", root)
    else:
        sh(f"{env} sh scripts/build_all.sh > build.log 2>&1", root)


@case(
    "u130_build_all_bad_dependency",
    "python -m build",
    clean=False,
    decisive=[
        "===== ledgerkit-dunning",
        "configuration error: `project.dependencies[1]` must be pep508",
        "build_all: 25 of 26 packages built; failed: ledgerkit-dunning",
        "[exit status 1]",
    ],
    group=GROUP,
)
def _build_bad_dependency(root: Path) -> bytes:
    env = _setup(root)
    path = root / "packages" / "ledgerkit-dunning" / "pyproject.toml"
    path.write_text(path.read_text().replace('"ledgerkit-exceptions"]', '"ledgerkit-exceptions>=1.2,<"]'))
    return _settle(sh(f"{env} sh scripts/build_all.sh", root), root)


@case(
    "u130_build_all_clean",
    "python -m build",
    clean=True,
    decisive=[
        "build_all: 26 of 26 packages built",
        "Successfully built ledgerkit_panic_button-1.4.1.tar.gz and ledgerkit_panic_button-1.4.1-py3-none-any.whl",
    ],
    group=GROUP,
)
def _build_clean(root: Path) -> bytes:
    env = _setup(root, {p: {"deprecated": True} for p in _PACKAGES[::3]})
    return _settle(sh(f"{env} sh scripts/build_all.sh", root), root)


_BROKEN_RST = """\
ledgerkit-chargebacks
=====================

Chargeback records, dispute error codes and the retry policy.

.. autoretry:: ledgerkit_chargebacks.retry
   :attempts: 5

Failed chargebacks are retried with exponential backoff.
"""


@case(
    "u130_twine_check_strict_rst",
    "twine check",
    clean=False,
    decisive=[
        "Checking dist/ledgerkit_chargebacks-1.1.2-py3-none-any.whl: FAILED",
        "ERROR    `long_description` has syntax errors in markup and would not be",
        'Unknown directive type "autoretry".',
        "[exit status 1]",
    ],
    group=GROUP,
)
def _twine_rst(root: Path) -> bytes:
    env = _setup(root, {"chargebacks": {"readme": "README.rst", "rst": _BROKEN_RST}})
    return _settle(sh(f"{env} sh scripts/build_all.sh && {env} twine check --strict dist/*", root), root)


@case(
    "u130_twine_wheel_contents_clean",
    "twine check",
    clean=True,
    decisive=[
        "Checking dist/ledgerkit_refunds-1.5.2.tar.gz: PASSED with warnings",
        "dist/ledgerkit_webhooks-1.1.0-py3-none-any.whl: OK",
    ],
    group=GROUP,
)
def _twine_clean(root: Path) -> bytes:
    env = _setup(root, {p: {"readme": ""} for p in _PACKAGES[1::4]})
    _quiet_build(root, env)
    return _settle(sh(f"{env} twine check dist/* && {env} check-wheel-contents dist/*.whl", root), root)


_GATE_CLEAN = {"chargebacks": {"urls": False}, "coupons": {"urls": False}, "ledger": {"urls": False}}


@case(
    "u130_release_gate_manifest",
    "check-manifest",
    clean=False,
    decisive=[
        "missing from sdist:",
        "  CHANGELOG.md",
        "release gate: FAILED for ledgerkit-failed-payments",
        "[exit status 1]",
    ],
    group=GROUP,
)
def _gate_manifest(root: Path) -> bytes:
    extra = {"CHANGELOG.md": "# Changes\n\n## 1.3.0\n\n- retry failed payments twice before the dead-letter queue\n"}
    env = _setup(root, {**_GATE_CLEAN, "failed_payments": {"extra": extra}}, git=True)
    return _settle(sh(f"{env} sh scripts/release_gate.sh", root), root)


@case(
    "u130_release_gate_pyroma_rating",
    "pyroma",
    clean=False,
    decisive=["Found ledgerkit-timeouts", "Final rating: 4/10", "release gate: FAILED for ledgerkit-timeouts"],
    group=GROUP,
)
def _gate_pyroma(root: Path) -> bytes:
    bare = {"classifiers": False, "urls": False, "readme": "", "authors": False}
    env = _setup(root, {**_GATE_CLEAN, "timeouts": bare}, git=True)
    return _settle(sh(f"{env} sh scripts/release_gate.sh", root), root)


@case(
    "u130_release_gate_clean",
    "pyroma",
    clean=True,
    decisive=["release gate: all 26 packages ready", "lists of files in version control and sdist match"],
    group=GROUP,
)
def _gate_clean(root: Path) -> bytes:
    env = _setup(root, _GATE_CLEAN, git=True)
    return _settle(sh(f"{env} sh scripts/release_gate.sh", root), root)


@case(
    "u130_wheel_audit_toplevel_tests",
    "check-wheel-contents",
    clean=False,
    decisive=[
        "dist/ledgerkit_retry_queue-1.4.1-py3-none-any.whl: W005: Wheel contains common toplevel name in library",
        "tests",
    ],
    group=GROUP,
)
def _wheel_audit(root: Path) -> bytes:
    extra = {
        "src/tests/__init__.py": "",
        "src/tests/test_retry_backoff.py": "def test_backoff():\n    assert 30 * 2 ** 2 == 120\n",
    }
    env = _setup(root, {"retry_queue": {"extra": extra}})
    cmd = (
        'for p in $(cat packages.txt); do "$PYTHON" -m build --wheel --no-isolation -o dist packages/$p; '
        "check-wheel-contents dist/$(echo $p | tr - _)-*.whl; done"
    )
    return _settle(sh(f"{env} sh -c '{cmd}'", root), root)


_INSTALL = (
    '"$PYTHON" -m venv fresh && for p in $(cat packages.txt); do '
    "fresh/bin/pip install --no-index --find-links dist $p; done && fresh/bin/python scripts/import_check.py"
)


@case(
    "u130_fresh_venv_import_missing_subpackage",
    "pip install",
    clean=False,
    decisive=[
        "import ledgerkit_refunds                FAILED",
        "ModuleNotFoundError: No module named 'ledgerkit_refunds.backends'",
        "import check: 25 packages imported, 1 failed: ledgerkit_refunds",
        "[exit status 1]",
    ],
    group=GROUP,
)
def _install_missing(root: Path) -> bytes:
    pkgs = '\n[tool.setuptools]\npackage-dir = {"" = "src"}\npackages = ["ledgerkit_refunds"]\n'
    env = _setup(root, {"refunds": {"packages": pkgs}})
    _quiet_build(root, env, wheels_only=True)
    return _settle(sh(f"{env} sh -c '{_INSTALL}'", root), root)


@case(
    "u130_fresh_venv_install_clean",
    "pip install",
    clean=True,
    decisive=["Successfully installed ledgerkit-panic-button-1.4.1", "import check: 26 packages imported, 0 failed"],
    group=GROUP,
)
def _install_clean(root: Path) -> bytes:
    env = _setup(root)
    _quiet_build(root, env, wheels_only=True)
    return _settle(sh(f"{env} sh -c '{_INSTALL}'", root), root)
