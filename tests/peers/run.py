"""Run the frameworks' own test suites against this project's adapters.

``python tests/peers/run.py [deepagents|strands|agentscope ...] [--baseline] [--mirror DIR]``

Each framework's tests are obtained at run time, never committed here
(``manifest.json`` pins where they come from, and the framework version they
belong to):

* ``sdist``: the framework's source distribution on PyPI at the pinned version
  (``pip download --no-binary :all:``); it ships its tests.
* ``git``: the framework's public repository at a pinned release commit, copied
  out of a local git mirror (``--mirror DIR`` or ``PEERS_MIRROR``;
  ``DIR/owner+name/repo``, ``DIR/owner/name`` or ``DIR`` itself). Used where no
  registry package holds the tests. Once copied, the files stay in the cache,
  so later runs need no mirror.

The tests run against the version they were written for: the version in the
obtained source (its ``version_file``, or the sdist's metadata) must equal the
manifest's, and so must the installed package (``nox -s peers`` installs the
pinned versions). A mismatch is refused, never run.

The cache is ``PEERS_CACHE`` or ``~/.cache/offloader-peers``. The suites then
run with ``swap_<framework>`` loaded as a pytest plugin (after ``_peers``, the
reporting hooks every swap shares): it replaces only the constructors of the
framework's classes with ours; every assertion is the framework's own.
``--baseline`` runs the same tests unswapped, against the framework's own classes.
A framework whose tests cannot be obtained is reported as NOT RUN and fails the
run when ``--require`` (or ``PEERS_REQUIRE=1``) is given.
"""

from __future__ import annotations

import argparse
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
REPO = HERE.parent.parent


def cache_root() -> Path:
    """Where obtained test files live (outside the repository, like pip's cache)."""
    env = os.environ.get("PEERS_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or os.path.join(os.path.expanduser("~"), ".cache")
    return Path(base) / "offloader-peers"


def manifest() -> dict[str, Any]:
    data: dict[str, Any] = json.loads((HERE / "manifest.json").read_text())
    return data


def _dest(name: str, spec: dict[str, Any]) -> Path:
    pin = spec["version"] if spec["kind"] == "sdist" else spec["commit"][:12]
    return cache_root() / f"{name}-{pin}"


VERSION_LINE = re.compile(r"^(?:__version__|version)\s*[:=]\s*[\"']?([^\"'\s]+)", re.MULTILINE | re.IGNORECASE)


def pins() -> list[str]:
    """The requirement for each framework at the version its tests belong to (``nox -s peers`` installs them)."""
    return [f"{s['package']}=={s['version']}" for s in manifest()["frameworks"].values()]


def installed_mismatch(name: str, spec: dict[str, Any]) -> str | None:
    """Why the installed framework cannot run these tests (another version, or none), or None."""
    try:
        have = importlib.metadata.version(spec["package"])
    except importlib.metadata.PackageNotFoundError:
        have = "nothing"
    if have == spec["version"]:
        return None
    return (
        f"{name}: its tests are those of {spec['package']} {spec['version']}, installed is {have}; "
        f"`nox -s peers` installs {spec['package']}=={spec['version']}"
    )


def source_version(text: str) -> str | None:
    """The version declared in a version file (``pyproject.toml``, ``_version.py``) or ``PKG-INFO``."""
    found = VERSION_LINE.search(text)
    return found.group(1) if found else None


def _checked(name: str, spec: dict[str, Any], declared: str | None) -> None:
    if declared != spec["version"]:
        raise SystemExit(f"{name}: manifest pins version {spec['version']}, its test source declares {declared}")


def _obtain_sdist(name: str, spec: dict[str, Any], dest: Path) -> None:
    with tempfile.TemporaryDirectory() as tmp:
        cmd = [
            sys.executable,
            "-m",
            "pip",
            "download",
            "-q",
            "--no-binary",
            ":all:",
            "--no-deps",
            f"{spec['package']}=={spec['version']}",
            "-d",
            tmp,
        ]
        subprocess.run(cmd, check=True)
        archives = [p for p in Path(tmp).iterdir() if p.name.endswith(".tar.gz")]
        if len(archives) != 1:
            raise SystemExit(f"expected one sdist for {spec['package']}, got {archives}")
        with tarfile.open(archives[0]) as tar:
            info = tar.extractfile(f"{archives[0].name.removesuffix('.tar.gz')}/PKG-INFO")
            _checked(name, spec, source_version(info.read().decode()) if info else None)
            members = []
            for m in tar.getmembers():
                _, _, inner = m.name.partition("/")
                if any(inner == p or inner.startswith(p.rstrip("/") + "/") for p in spec["paths"]):
                    m.name = inner
                    members.append(m)
            tar.extractall(dest, members=members, filter="data")


def _find_mirror(spec: dict[str, Any], mirror: str | None) -> Path | None:
    if not mirror:
        return None
    owner, name = spec["repo"].split("/")
    for cand in (Path(mirror) / f"{owner}+{name}" / "repo", Path(mirror) / owner / name, Path(mirror)):
        ok = (
            subprocess.run(
                ["git", "-C", str(cand), "cat-file", "-e", spec["commit"] + "^{commit}"], capture_output=True
            ).returncode
            == 0
        )
        if ok:
            return cand
    return None


def _obtain_git(name: str, spec: dict[str, Any], dest: Path, mirror: str | None) -> str | None:
    git_dir = _find_mirror(spec, mirror)
    if git_dir is None:
        return (
            f"the tests of {spec['repo']} {spec['version']} are in no registry package and not in the cache; "
            f"copy them once from a git mirror holding commit {spec['commit'][:12]}: --mirror DIR or PEERS_MIRROR"
        )
    shown = subprocess.run(
        ["git", "-C", str(git_dir), "show", f"{spec['commit']}:{spec['version_file']}"], capture_output=True, text=True
    )
    _checked(name, spec, source_version(shown.stdout) if shown.returncode == 0 else None)
    strip = spec.get("strip", "")
    archive = subprocess.run(
        ["git", "-C", str(git_dir), "archive", spec["commit"], *spec["paths"]], check=True, capture_output=True
    ).stdout
    with tempfile.TemporaryDirectory() as tmp:
        tar_path = Path(tmp) / "a.tar"
        tar_path.write_bytes(archive)
        with tarfile.open(tar_path) as tar:
            members = []
            for m in tar.getmembers():
                if strip and not m.name.startswith(strip):
                    continue
                m.name = m.name[len(strip) :]
                if m.name:
                    members.append(m)
            tar.extractall(dest, members=members, filter="data")
    return None


def obtain(name: str, spec: dict[str, Any], mirror: str | None) -> tuple[Path | None, str | None]:
    """The cached copy of ``name``'s tests, fetching it first if needed; or why it is unavailable."""
    dest = _dest(name, spec)
    done = dest / ".complete"
    if done.exists() and json.loads(done.read_text()).get("source_version") == spec["version"]:
        return dest, None
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    try:
        if spec["kind"] == "sdist":
            _obtain_sdist(name, spec, dest)
            why = None
        else:
            why = _obtain_git(name, spec, dest, mirror)
    except BaseException:
        shutil.rmtree(dest, ignore_errors=True)
        raise
    if why:
        shutil.rmtree(dest, ignore_errors=True)
        return None, why
    done.write_text(json.dumps({**spec, "source_version": spec["version"]}))
    return dest, None


def run_suite(name: str, spec: dict[str, Any], dest: Path, baseline: bool, extra: list[str]) -> dict[str, int]:
    """Run one framework's selected tests; return outcome counts."""
    junit = dest / (".baseline.xml" if baseline else ".peers.xml")
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(dest), str(HERE), str(REPO), env.get("PYTHONPATH", "")])
    env["PEERS_SWAP"] = "0" if baseline else "1"
    env["PEERS_FRAMEWORK"] = name
    cmd = [
        sys.executable,
        "-m",
        "pytest",
        "-p",
        "_peers",  # the shared reporting hooks, loaded first so pytest rewrites its asserts
        "-p",
        f"swap_{name}",
        "-p",
        "no:cacheprovider",
        "--rootdir",
        str(dest),
        "-q",
        "-rfE",
        "--tb=short",
        f"--junitxml={junit}",
        *spec.get("pytest_args", []),
        *spec["tests"],
        *extra,
    ]
    print(f"\n=== {name} ({'baseline' if baseline else 'swapped'}): {' '.join(cmd[3:])}", flush=True)
    subprocess.run(cmd, cwd=dest, env=env)
    counts = {"passed": 0, "failed": 0, "n/a listed": 0, "n/a other": 0, "not ours": 0}
    if not junit.exists():
        counts["failed"] = -1
        return counts
    listed = {f"n/a: {reason}" for reason in spec.get("not_applicable", {}).values()}
    for case in ET.parse(junit).iter("testcase"):
        skipped = case.find("skipped")
        if case.find("failure") is not None or case.find("error") is not None:
            counts["failed"] += 1
        elif skipped is None:
            counts["passed"] += 1
        else:
            why = skipped.get("message", "")
            if "constructs no swapped class" in why:
                counts["not ours"] += 1  # runs only the framework's own code
            elif any(why.endswith(reason) for reason in listed):
                counts["n/a listed"] += 1
            else:
                counts["n/a other"] += 1
    return counts


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("frameworks", nargs="*")
    parser.add_argument("--baseline", action="store_true", help="run unswapped, against the framework's classes")
    parser.add_argument("--mirror", default=os.environ.get("PEERS_MIRROR"))
    parser.add_argument("--require", action="store_true", default=os.environ.get("PEERS_REQUIRE") == "1")
    args, extra = parser.parse_known_args(argv)
    specs = manifest()["frameworks"]
    names = args.frameworks or list(specs)
    summary: dict[str, Any] = {}
    missing = refused = False
    for name in names:
        spec = specs[name]
        wrong = installed_mismatch(name, spec)
        if wrong:
            print(f"\n=== {name}: REFUSED: {wrong}", flush=True)
            summary[name] = "REFUSED"
            refused = True
            continue
        dest, why = obtain(name, spec, args.mirror)
        if dest is None:
            print(f"\n=== {name}: NOT RUN: {why}", flush=True)
            summary[name] = "NOT RUN"
            missing = True
            continue
        summary[name] = run_suite(name, spec, dest, args.baseline, extra)
    print("\npeer suites:", flush=True)
    failed = False
    for name, counts in summary.items():
        print(f"  {name:<11} {counts}")
        failed = failed or (isinstance(counts, dict) and counts["failed"] != 0)
    print("  (n/a listed: in manifest.json with a reason; n/a other: a constructor argument selecting a")
    print("   framework-only feature; not ours: the test constructs none of the swapped classes)")
    if failed or refused:
        return 1
    return 1 if (missing and args.require) else 0


if __name__ == "__main__":
    sys.exit(main())
