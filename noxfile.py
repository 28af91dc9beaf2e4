"""Developer sessions: ``nox -s tests``, ``lint``, ``docs``, ``peers``, ``wheel``, ``bench``, ``race``, ``soak``."""

from __future__ import annotations

import glob
import json

import nox

nox.options.sessions = ["tests", "lint"]
nox.options.reuse_existing_virtualenvs = True


@nox.session
def tests(session: nox.Session) -> None:
    session.install("-e", ".[test]")
    session.run("pytest", *session.posargs)


@nox.session
def lint(session: nox.Session) -> None:
    session.install("-e", ".[dev]")
    paths = ("offloader", "workspaces", "tests", "benchmarks", "examples", "docs", "noxfile.py")
    session.run("ruff", "check", *paths)
    session.run("ruff", "format", "--check", *paths)
    session.run("mypy")
    session.run("lint-imports")


@nox.session
def peers(session: nox.Session) -> None:
    """The frameworks' own test suites against our adapters (see tests/peers/run.py).

    Each framework is installed at the version of the test sources it runs (``tests/peers/manifest.json``),
    which may be older than the version the ``tests`` session uses.
    """
    with open("tests/peers/manifest.json") as f:
        specs = json.load(f)["frameworks"].values()
    session.install("-e", ".[peers]", *(f"{s['package']}=={s['version']}" for s in specs))
    session.run("python", "tests/peers/run.py", *session.posargs)


@nox.session
def bench(session: nox.Session) -> None:
    session.install("-e", ".[bench]")
    scripts = sorted(glob.glob("benchmarks/bench_*.py"))
    if session.posargs:
        scripts = [s for s in scripts if any(p in s for p in session.posargs)]
    for script in scripts:
        session.run("python", script)


@nox.session
def docs(session: nox.Session) -> None:
    """Draw the figures from data, then build the site; ``--strict`` fails on broken links and references."""
    session.install("-e", ".[docs]")
    session.run("python", "docs/gen_figures.py")
    session.run("mkdocs", "build", "--strict", env={"NO_MKDOCS_2_WARNING": "1"})


@nox.session
def race(session: nox.Session) -> None:
    """The confinement race (tests/test_race.py) for 60 s per backend; ``tests`` runs it for 10 s."""
    session.install("-e", ".[test]")
    session.run("pytest", "-q", "-s", "tests/test_race.py", *session.posargs, env={"OFFLOAD_RACE_SECONDS": "60"})


@nox.session
def soak(session: nox.Session) -> None:
    """The chaos soak (tests/soak.py) for 5 minutes per backend; ``tests`` runs it for ~80 s in all."""
    session.install("-e", ".[test]")
    env = {"OFFLOAD_SOAK_SECONDS": "300"}
    session.run("pytest", "-q", "-s", "tests/test_soak.py", *session.posargs, env=env)


@nox.session(venv_backend="none")
def wheel(session: nox.Session) -> None:
    """Build the wheel; install it into a fresh venv once per extra; import and smoke-run each feature."""
    session.run("python3", ".ci/wheel_smoke.py", *session.posargs)
