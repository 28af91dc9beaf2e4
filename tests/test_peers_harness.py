"""The peer-suite harness (tests/peers/run.py) runs tests only against the version they were written for."""

from __future__ import annotations

import importlib.metadata
import importlib.util
import json
import subprocess
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

HARNESS = Path(__file__).parent / "peers" / "run.py"


@pytest.fixture(scope="module")
def run() -> ModuleType:
    spec = importlib.util.spec_from_file_location("peers_run", HARNESS)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], check=True, capture_output=True, text=True)
    return done.stdout.strip()


@pytest.fixture
def mirror(tmp_path: Path) -> tuple[Path, str]:
    """A one-commit repository declaring version 1.2.3, with a test file."""
    repo = tmp_path / "acme+widget" / "repo"
    (repo / "pkg" / "tests").mkdir(parents=True)
    (repo / "pkg" / "pyproject.toml").write_text('[project]\nname = "widget"\nversion = "1.2.3"\n')
    (repo / "pkg" / "tests" / "test_w.py").write_text("def test_w():\n    assert True\n")
    _git(repo, "init", "-q")
    _git(repo, "add", ".")
    _git(repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "-m", "release 1.2.3")
    return tmp_path, _git(repo, "rev-parse", "HEAD")


def _spec(commit: str, version: str) -> dict[str, Any]:
    return {
        "package": "widget",
        "version": version,
        "kind": "git",
        "repo": "acme/widget",
        "commit": commit,
        "version_file": "pkg/pyproject.toml",
        "paths": ["pkg/tests"],
        "strip": "pkg/",
    }


def test_source_version_reads_each_version_file_format(run: ModuleType) -> None:
    assert run.source_version('[project]\nname = "a"\nversion = "0.7.8"\n') == "0.7.8"
    assert run.source_version('"""Doc."""\n\n__version__ = "2.0.6"\n') == "2.0.6"
    assert run.source_version("Metadata-Version: 2.4\nName: strands-agents\nVersion: 1.62.0\n") == "1.62.0"
    assert run.source_version("nothing here\n") is None


def test_every_framework_is_pinned_to_the_version_of_its_test_source(run: ModuleType) -> None:
    specs = run.manifest()["frameworks"]
    assert run.pins() == [f"{s['package']}=={s['version']}" for s in specs.values()]
    for spec in specs.values():
        assert spec["kind"] == "sdist" or (len(spec["commit"]) == 40 and spec["version_file"])


def test_an_installed_version_other_than_the_pinned_one_is_refused(run: ModuleType) -> None:
    have = importlib.metadata.version("pytest")
    assert run.installed_mismatch("pytest", {"package": "pytest", "version": have}) is None
    why = run.installed_mismatch("pytest", {"package": "pytest", "version": "0.0.1"})
    assert why is not None and "0.0.1" in why and have in why
    missing = run.installed_mismatch("w", {"package": "no-such-package-here", "version": "1.0"})
    assert missing is not None and "nothing" in missing


def test_tests_whose_source_declares_another_version_are_refused_and_not_cached(
    run: ModuleType, mirror: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, commit = mirror
    monkeypatch.setenv("PEERS_CACHE", str(tmp_path / "cache"))
    with pytest.raises(SystemExit, match=r"declares 1\.2\.3"):
        run.obtain("widget", _spec(commit, "9.9.9"), str(root))
    assert not any((tmp_path / "cache").iterdir())


def test_tests_of_the_pinned_version_are_cached_and_then_need_no_mirror(
    run: ModuleType, mirror: tuple[Path, str], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root, commit = mirror
    monkeypatch.setenv("PEERS_CACHE", str(tmp_path / "cache"))
    spec = _spec(commit, "1.2.3")
    dest, why = run.obtain("widget", spec, str(root))
    assert why is None and dest is not None
    assert (dest / "tests" / "test_w.py").is_file()
    assert json.loads((dest / ".complete").read_text())["source_version"] == "1.2.3"
    again, why = run.obtain("widget", spec, None)
    assert (again, why) == (dest, None)


def test_without_cache_or_mirror_the_suite_is_not_run_and_require_fails(
    run: ModuleType, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("PEERS_CACHE", str(tmp_path / "cache"))
    dest, why = run.obtain("widget", _spec("0" * 40, "1.2.3"), None)
    assert dest is None and why is not None and "PEERS_MIRROR" in why
    spec = {**_spec("0" * 40, importlib.metadata.version("pytest")), "package": "pytest"}
    monkeypatch.setattr(run, "manifest", lambda: {"frameworks": {"widget": spec}})
    monkeypatch.delenv("PEERS_MIRROR", raising=False)
    monkeypatch.delenv("PEERS_REQUIRE", raising=False)
    assert run.main(["widget"]) == 0
    assert run.main(["widget", "--require"]) == 1
    monkeypatch.setattr(run, "manifest", lambda: {"frameworks": {"widget": {**spec, "version": "0.0.1"}}})
    assert run.main(["widget"]) == 1
