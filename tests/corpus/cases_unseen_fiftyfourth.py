"""Held-out outputs (group ``unseen-54``): a fifty-fourth batch, git workflows in depth as a coding agent runs them
on a shop service built in the scenario (120 modules under ``src/<area>/`` and 40 test modules, named after the
business areas, with 60 to 230 commits made with fixed authors and dates, so that every hash is the same on every run).

Failing runs: ``git rebase --exec`` of a 40-commit branch that runs a lint step after every pick and stops at a
conflict in ``src/retry/retry_policy.py`` on the 23rd commit; ``git am`` of a 150-patch series with trailing-whitespace
warnings where patch 0079 no longer applies to ``src/invoice/service.py``; ``git cherry-pick`` of an 86-commit range
onto a release branch where one commit was already backported (the pick is empty); ``git bisect run`` of a 120-test
suite over 200 commits; ``git push -v`` of 36 branches and 10 tags to a local bare repository whose ``pre-receive``
hook audits every commit and whose ``update`` hook rejects one release branch; ``git submodule update --init
--recursive`` of 28 libraries (some with nested ones) where one gitlink names a commit that was never pushed; ``git
fsck --full --verbose`` of a repository with a corrupt loose blob; and ``git merge`` of a release branch with 159 files
auto-merged and one conflict, followed by ``git status``. Clean runs: ``git gc --aggressive`` with ``git
count-objects -v`` and ``git verify-pack -v``, ``git log --stat`` and ``git diff --stat`` with ``git log --oneline``
over files such as ``src/errors/errors.py`` and ``tests/test_retry_failures.py`` with commit subjects about failed
retries and exceptions, and a merge of ``feature/retry-failed-exports`` with every file auto-merged. Labels were
written with each scenario, before the engine saw the output. Needs Debian ``git``.
"""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

from _harness import WORDS, case, scrub, sh, write

GROUP = "unseen-54"

_MODS = ["service", "models", "handlers", "client", "errors", "retry_policy"]
_FILES = [f"src/{a}/{m}.py" for a in WORDS for m in _MODS] + [
    f"tests/test_{a}{s}.py" for a in WORDS for s in ("", "_failures")
]
_SLOTS = 24
_PEOPLE = [
    ("Ana Souza", "ana@shop.example"),
    ("Bram de Vries", "bram@shop.example"),
    ("Chen Wei", "chen@shop.example"),
    ("Dana Okafor", "dana@shop.example"),
    ("Emil Novak", "emil@shop.example"),
]
_T0 = 1740992400  # 2025-03-03 09:00 UTC
_VERBS = [
    "retry failed {m} calls with jitter",
    "tune {m} limits for peak traffic",
    "log exceptions raised in {m}",
    "handle timeout errors in {m} step {k}",
    "simplify {m} step {k}",
    "cover {m} edge cases",
    "rename {m} helper {k}",
    "raise the {m} cap for batch jobs",
]

_CHECK = '''
"""Lint step run after every pick: one line per area with a digest of its modules."""
import pathlib
import subprocess
import zlib

head = subprocess.run(["git", "log", "-1", "--format=%h %s"], capture_output=True, text=True).stdout.strip()
print(f"== check {head}")
for area in sorted(p for p in pathlib.Path("src").iterdir() if p.is_dir()):
    files = sorted(area.glob("*.py"))
    text = "".join(f.read_text() for f in files)
    digest = zlib.crc32(text.encode())
    print(f"lint {area}: {len(files)} files, {text.count('def ')} functions, digest {digest:08x}, 0 findings")
print("check passed")
'''

_SUITE = '''
"""The service's cap test: every step of every module adds at most 999 cents."""
import pathlib
import re
import sys

print("============================= test session starts ==============================")
print("collected 120 items")
print()
failures = []
for path in sorted(pathlib.Path("src").rglob("*.py")):
    area, mod = path.parent.name, path.stem
    name = f"tests/test_{area}.py::test_{mod}_within_cap"
    steps = re.findall(r"def (\\w+)\\(amount\\):\\n    return amount \\+ (\\d+)", path.read_text())
    over = [(fn, int(v)) for fn, v in steps if int(v) > 999]
    print(f"{name} {'FAILED' if over else 'PASSED'}")
    if over:
        failures.append((name, path, over[0]))
for name, path, (fn, value) in failures:
    print(f"___________________________ {name.split('::')[1]} ___________________________")
    print(f"    def test_within_cap():")
    print(f">       assert {fn}(0) <= 999")
    print(f"E       AssertionError: {fn} adds {value} cents, over the 999 cap")
    print(f"{path}:1: AssertionError")
print("=========================== short test summary info ============================")
for name, path, (fn, value) in failures:
    print(f"FAILED {name} - AssertionError: {fn} adds {value} cents, over the 999 cap")
summary = f"{len(failures)} failed, {120 - len(failures)} passed" if failures else "120 passed"
print(f"============================== {summary} in 0.31s ==============================")
sys.exit(1 if failures else 0)
'''


def _area(path: str) -> str:
    parts = path.split("/")
    return parts[1] if parts[0] == "src" else parts[1][5:].removesuffix(".py").removesuffix("_failures")


def _text(path: str, vals: list[str]) -> str:
    fn = path.removesuffix(".py").replace("/", "_")
    head = f'"""{path}: part of the shop service ({_area(path)})."""\n\n\n'
    body = "".join(f"def {fn}_{k}(amount):\n    return amount + {v}\n\n\n" for k, v in enumerate(vals))
    return head + body.rstrip("\n") + "\n"


def _home(root: Path) -> Path:
    home = root / "home"
    if not home.exists():
        write(
            home,
            {
                ".gitconfig": """
                [init]
                    defaultBranch = main
                [protocol "file"]
                    allow = always
                [gc]
                    auto = 0
                [pack]
                    threads = 1
                """
            },
        )
    return home


class _Repo:
    """A shop service repository whose commits get fixed authors and dates."""

    def __init__(self, path: Path, root: Path, n: int = 0) -> None:
        self.path, self.root, self.n = path, root, n
        self.vals: dict[str, list[str]] = {}
        path.mkdir(parents=True, exist_ok=True)

    def env(self) -> dict[str, str]:
        name, mail = _PEOPLE[self.n % len(_PEOPLE)]
        date = f"{_T0 + self.n * 5400} +0100"
        return {
            "HOME": str(_home(self.root)),
            "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": name,
            "GIT_AUTHOR_EMAIL": mail,
            "GIT_AUTHOR_DATE": date,
            "GIT_COMMITTER_NAME": name,
            "GIT_COMMITTER_EMAIL": mail,
            "GIT_COMMITTER_DATE": date,
        }

    def git(self, *args: str) -> str:
        env = {**os.environ, "LC_ALL": "C.UTF-8", **self.env()}
        proc = subprocess.run(["git", *args], cwd=self.path, env=env, capture_output=True, text=True)
        if proc.returncode:
            raise RuntimeError(f"git {' '.join(args)}: {proc.stdout}{proc.stderr}")
        return proc.stdout

    def run(self, cmd: str) -> bytes:
        """The captured command, as the agent runs it."""
        return scrub(sh(cmd, self.path, env=self.env()), self.root)

    def set(self, path: str, slot: int, value: object) -> None:
        text = str(value)
        self.vals[path][slot] = text + "1" if text == self.vals[path][slot] else text
        (self.path / path).write_text(_text(path, self.vals[path]))

    def checkout(self, *args: str) -> None:
        """``git checkout``, with the values of the modules read back from the new branch."""
        self.git("checkout", "-q", *args)
        self.reload()

    def reload(self) -> None:
        for path in self.vals:
            text = (self.path / path).read_text()
            self.vals[path] = re.findall(r"^    return amount \+ (.*)$", text, flags=re.M)

    def commit(self, subject: str) -> None:
        self.git("add", "-A")
        self.git("commit", "-q", "-m", subject)
        self.n += 1

    def init(self, extra: dict[str, str] | None = None) -> None:
        for i, path in enumerate(_FILES):
            self.vals[path] = [str((i * 31 + k * 7) % 97 + 1) for k in range(_SLOTS)]
            (self.path / path).parent.mkdir(parents=True, exist_ok=True)
            (self.path / path).write_text(_text(path, self.vals[path]))
        write(
            self.path, {"README.md": "# shop service\n\nBilling, orders and the rest of the shop.\n", **(extra or {})}
        )
        self.git("init", "-q", "-b", "main")
        self.commit("shop: initial import (SHOP-1000)")

    def subject(self, path: str, slot: int) -> str:
        verb = _VERBS[(self.n * 3 + slot) % len(_VERBS)].format(m=path.rsplit("/", 1)[1][:-3], k=slot)
        return f"{_area(path)}: {verb} (SHOP-{1000 + self.n})"

    def history(self, count: int, slots: range, files: list[str] | None = None, salt: int = 0) -> None:
        files = files or _FILES
        for _ in range(count):
            j = self.n + salt
            path = files[(j * 37) % len(files)]
            slot = slots[(j * 11) % len(slots)]
            self.set(path, slot, (j * 53) % 900 + 10)
            if j % 3 == 0:
                other = files[(j * 53 + 7) % len(files)]
                self.set(other, slots[(j * 5) % len(slots)], (j * 29) % 900 + 10)
            self.commit(self.subject(path, slot))


def _repo(root: Path, extra: dict[str, str] | None = None) -> _Repo:
    repo = _Repo(root / "shop", root)
    repo.init(extra)
    return repo


# ---------------------------------------------------------------- failing runs


@case(
    "u54_rebase_exec_conflict_mid_series",
    "git rebase --exec",
    clean=False,
    group=GROUP,
    decisive=["CONFLICT (content): Merge conflict in src/retry/retry_policy.py", "error: could not apply"],
)
def _rebase(root: Path) -> bytes:
    repo = _repo(root, {"tools/check.py": _CHECK})
    repo.history(60, range(0, 8))
    repo.checkout("-b", "feature/webhook-retries")
    for i in range(40):
        if i == 22:
            repo.set("src/retry/retry_policy.py", 3, 480)
            repo.commit(f"retry: raise the backoff cap for failed webhook deliveries (SHOP-{1000 + repo.n})")
        else:
            repo.history(1, range(16, 24), salt=7)
    repo.checkout("main")
    repo.history(15, range(8, 16))
    repo.set("src/retry/retry_policy.py", 3, 240)
    repo.commit(f"retry: halve the backoff cap while the queue drains (SHOP-{1000 + repo.n})")
    repo.history(14, range(8, 16))
    repo.checkout("feature/webhook-retries")
    return repo.run("git rebase --exec 'python3 tools/check.py' main")


@case(
    "u54_am_series_patch_does_not_apply",
    "git am",
    clean=False,
    group=GROUP,
    decisive=["error: src/invoice/service.py: patch does not apply", "Patch failed at 0079"],
)
def _am(root: Path) -> bytes:
    repo = _repo(root)
    repo.history(40, range(0, 8))
    base = repo.git("rev-parse", "HEAD").strip()
    repo.checkout("-b", "topic/billing-export")
    for i in range(150):
        if i == 70:
            repo.set("src/invoice/service.py", 12, 615)
            repo.commit(f"billing: round invoice totals per line before export (SHOP-{1000 + repo.n})")
            continue
        repo.history(1, range(8, 20), salt=3)
        if i % 9 == 4:  # an editor that leaves trailing blanks
            path = _FILES[(i * 17) % len(_FILES)]
            repo.set(path, 21, f"{i + 5}  ")
            repo.commit(f"{_area(path)}: widen step 21 for bulk imports (SHOP-{1000 + repo.n})")
    repo.git("format-patch", "-q", "-o", str(root / "patches"), f"{base}..HEAD")
    repo.checkout("main")
    repo.history(6, range(0, 8))
    repo.set("src/invoice/service.py", 12, 333)
    repo.commit(f"billing: take invoice step 12 from the pricing table (SHOP-{1000 + repo.n})")
    return repo.run(f"git am {root}/patches/*.patch")


@case(
    "u54_cherry_pick_range_already_backported",
    "git cherry-pick",
    clean=False,
    group=GROUP,
    decisive=["The previous cherry-pick is now empty", "Cherry-pick currently in progress."],
)
def _cherry_pick(root: Path) -> bytes:
    repo = _repo(root)
    repo.history(30, range(0, 12))
    repo.git("branch", "release/2.3")
    start = repo.git("rev-parse", "HEAD").strip()
    repo.history(60, range(0, 12))
    repo.set("src/session/handlers.py", 5, 707)
    repo.commit(f"session: expire idle carts after 30 minutes (SHOP-{1000 + repo.n})")
    backport = repo.git("rev-parse", "HEAD").strip()
    repo.history(25, range(0, 12))
    repo.checkout("release/2.3")
    repo.history(4, range(12, 18))
    repo.git("cherry-pick", "-x", backport)
    repo.reload()
    repo.n += 1
    repo.history(3, range(12, 18))
    return repo.run(f"git cherry-pick {start}..main")


@case(
    "u54_bisect_run_200_commits",
    "git bisect run",
    clean=False,
    group=GROUP,
    decisive=["is the first bad commit", "    pricing: apply the partner surcharge in service step 9"],
)
def _bisect(root: Path) -> bytes:
    repo = _repo(root, {"tools/suite.py": _SUITE})
    repo.git("tag", "v2.0.0")
    repo.history(136, range(0, 8))
    repo.set("src/pricing/service.py", 9, 1234)
    repo.commit(f"pricing: apply the partner surcharge in service step 9 (SHOP-{1000 + repo.n})")
    repo.history(63, range(0, 8))
    return repo.run("git bisect start HEAD v2.0.0 && git bisect run python3 tools/suite.py")


_PRE_RECEIVE = """\
#!/bin/bash
# Audit every new commit: author domain, ticket id, size of the change.
while read -r old new ref; do
  [ "$new" = 0000000000000000000000000000000000000000 ] && continue
  count=$(git rev-list "$new" --not --all | wc -l)
  echo "audit: $ref: $count new commits"
  git rev-list --reverse "$new" --not --all | while read -r c; do
    files=$(git diff-tree --no-commit-id --name-only -r "$c" | wc -l)
    echo "audit:   $(git log -1 --format='%h %ae %s' "$c") [$files files] ok"
  done
done
echo "audit: done"
"""

_UPDATE = """\
#!/bin/bash
# Release branches take only ticketed commits.
ref=$1 old=$2 new=$3
case "$ref" in
  refs/heads/release/*)
    for c in $(git rev-list "$new" --not --branches=main); do
      if ! git log -1 --format=%s "$c" | grep -q 'SHOP-[0-9]'; then
        echo "error: commit $(git rev-parse --short "$c") on ${ref#refs/heads/} has no SHOP- ticket in its subject" >&2
        echo "error: release branches accept ticketed commits only; rejecting $ref" >&2
        exit 1
      fi
    done
    echo "update: $ref: every commit is ticketed"
    ;;
esac
exit 0
"""


@case(
    "u54_push_update_hook_rejects_release_branch",
    "git push (hooks on a local bare repository)",
    clean=False,
    group=GROUP,
    decisive=[
        "has no SHOP- ticket in its subject",
        "! [remote rejected] release/refunds-2.4 -> release/refunds-2.4 (hook declined)",
        "error: failed to push some refs to",
    ],
)
def _push(root: Path) -> bytes:
    repo = _repo(root)
    repo.history(90, range(0, 8))
    remote = root / "remote.git"
    repo.git("init", "-q", "--bare", str(remote))
    repo.git("remote", "add", "origin", str(remote))
    repo.git("push", "-q", "origin", "main")
    write(remote, {"hooks/pre-receive": _PRE_RECEIVE, "hooks/update": _UPDATE})
    (remote / "hooks/pre-receive").chmod(0o755)
    (remote / "hooks/update").chmod(0o755)
    kinds = ["feature", "bugfix", "chore"]
    for i, area in enumerate(WORDS + WORDS[:16]):
        name = f"{kinds[i % 3]}/{area}-{['retry-failed', 'errors-page', 'exports', 'cleanup'][i % 4]}"
        if i == 20:
            name = "release/refunds-2.4"
        elif i in (5, 27):
            name = f"release/{area}-2.{i % 7}"
        repo.checkout("-b", name, "main")
        for k in range(2 + i % 4):
            repo.history(1, range(8, 20), files=[f for f in _FILES if _area(f) == area], salt=i)
            if i == 20 and k == 1:
                repo.set("src/refunds/client.py", 22, 404)
                repo.commit("refunds: quick fix for the partial refund rounding")
        repo.checkout("main")
    for v in range(10):
        repo.git("tag", "-a", f"v2.{v}.0", "-m", f"release 2.{v}.0", f"main~{80 - v * 8}")
    return repo.run("git push -v origin 'refs/heads/*:refs/heads/*' 'refs/tags/*:refs/tags/*'")


_LIBS = [
    "audit-log", "auth-tokens", "billing-core", "cart-session", "catalog-index", "coupon-rules", "errors-kit",
    "export-csv", "invoice-render", "ledger-core", "pricing-tables", "retry-client", "search-query", "webhook-relay",
    "exceptions-map", "orders-api", "refunds-flow", "session-store", "shipping-rates", "tax-tables", "audit-sink",
    "billing-dunning", "errors-report", "failed-jobs", "retry-queue", "webhook-signing", "ledger-export", "cart-merge",
]  # fmt: skip
_NESTED = {
    "billing-core": ["errors-kit", "retry-client"],
    "webhook-relay": ["retry-client", "audit-log", "webhook-signing"],
    "orders-api": ["errors-report", "failed-jobs", "retry-queue"],
}


@case(
    "u54_submodule_update_missing_commit",
    "git submodule update --init --recursive",
    clean=False,
    group=GROUP,
    decisive=[
        "Fetched in submodule path 'libs/ledger-core', but it did not contain",
        "remote error: upload-pack: not our ref",
    ],
)
def _submodules(root: Path) -> bytes:
    up = root / "upstream"
    heads: dict[str, _Repo] = {}
    for i, name in enumerate(sorted(_LIBS, key=lambda n: n in _NESTED)):
        lib = _Repo(root / "work" / name, root, n=i * 7)
        lib.vals = {f"src/{name.replace('-', '_')}/core.py": ["1"] * _SLOTS}
        (lib.path / "src" / name.replace("-", "_")).mkdir(parents=True)
        for k in range(_SLOTS):
            lib.set(next(iter(lib.vals)), k, k + i)
        lib.git("init", "-q", "-b", "main")
        lib.git("remote", "add", "origin", str(up / f"{name}.git"))  # the relative URLs below resolve against it
        for sub in _NESTED.get(name, []):
            lib.git("submodule", "add", "-q", f"../{sub}.git", f"vendor/{sub}")
        lib.commit(f"{name}: initial import")
        for k in range(5):
            lib.set(next(iter(lib.vals)), k, 100 + k * i)
            lib.commit(f"{name}: step {k} for the {WORDS[(i + k) % 20]} flow")
        lib.git("clone", "-q", "--bare", ".", str(up / f"{name}.git"))
        heads[name] = lib
    ledger = heads["ledger-core"]
    ledger.set("src/ledger_core/core.py", 9, 909)
    ledger.commit("ledger-core: post refunds to the suspense account (never pushed)")
    app = _repo(root)
    app.history(30, range(0, 8))
    app.git("remote", "add", "origin", str(up / "shop.git"))
    for name in _LIBS:
        app.git("submodule", "add", "-q", f"../{name}.git", f"libs/{name}")
    app.commit(f"shop: vendor the shared libraries as submodules (SHOP-{1000 + app.n})")
    app.history(10, range(0, 8))
    app.git("-C", "libs/ledger-core", "pull", "-q", str(ledger.path), "main")
    app.commit(f"shop: bump ledger-core for suspense postings (SHOP-{1000 + app.n})")
    app.git("clone", "-q", "--bare", ".", str(up / "shop.git"))
    clone = _Repo(root / "checkout", root, n=app.n)
    clone.git("clone", "-q", str(up / "shop.git"), ".")
    return clone.run("git submodule update --init --recursive")


@case(
    "u54_fsck_full_verbose_corrupt_blob",
    "git fsck --full --verbose",
    clean=False,
    group=GROUP,
    decisive=["object corrupt or missing", "missing blob"],
)
def _fsck(root: Path) -> bytes:
    repo = _repo(root)
    repo.history(120, range(0, 8))
    repo.git("repack", "-a", "-d", "-q")
    repo.history(12, range(0, 8))
    blob = repo.git("diff-tree", "-r", "--no-commit-id", "HEAD~4").split()[3]
    loose = repo.path / ".git" / "objects" / blob[:2] / blob[2:]
    loose.chmod(0o644)
    data = bytearray(loose.read_bytes())
    data[len(data) // 2 : len(data) // 2 + 16] = b"\x00" * 16
    loose.write_bytes(bytes(data))
    return repo.run("git fsck --full --verbose")


@case(
    "u54_merge_release_many_automerged_one_conflict",
    "git merge && git status",
    clean=False,
    group=GROUP,
    decisive=[
        "CONFLICT (content): Merge conflict in src/ledger/models.py",
        "Automatic merge failed",
        "both modified:   src/ledger/models.py",
    ],
)
def _merge_conflict(root: Path) -> bytes:
    repo = _repo(root)
    repo.history(40, range(0, 8))
    files = _FILES
    repo.checkout("-b", "release/2.4")
    for i in range(0, len(files), 4):
        for f in files[i : i + 4]:
            repo.set(f, 2, 500 + i)
        repo.commit(repo.subject(files[i], 2))
    repo.set("src/ledger/models.py", 10, 710)
    repo.commit(f"ledger: post refunds to the suspense account (SHOP-{1000 + repo.n})")
    repo.checkout("main")
    for i in range(0, len(files), 5):
        for f in files[i : i + 5]:
            repo.set(f, 20, 600 + i)
        repo.commit(repo.subject(files[i], 20))
    repo.set("src/ledger/models.py", 10, 110)
    repo.commit(f"ledger: round postings to whole cents (SHOP-{1000 + repo.n})")
    return repo.run("git merge --no-ff release/2.4; git status")


# ---------------------------------------------------------------- clean runs


@case(
    "u54_gc_aggressive_verify_pack_clean",
    "git gc --aggressive && git count-objects -v && git verify-pack -v",
    clean=True,
    group=GROUP,
    decisive=[".pack: ok", "size-pack: "],
)
def _gc(root: Path) -> bytes:
    repo = _repo(root)
    repo.history(220, range(0, 24))
    return repo.run(
        "git gc --aggressive --prune=now && git count-objects -v && git verify-pack -v .git/objects/pack/pack-*.idx"
    )


def _errors_history(repo: _Repo, count: int) -> None:
    """Commits about failed retries, errors and exceptions (all of them fine)."""
    hot = [f for f in _FILES if _area(f) in ("errors", "exceptions", "retry", "webhooks")] + [
        f for f in _FILES if f.endswith(("errors.py", "retry_policy.py", "_failures.py"))
    ]
    subjects = [
        "errors: show failed payments on the errors page",
        "retry: retry failed webhook deliveries with backoff",
        "exceptions: map TimeoutError to a 504 in the exception handler",
        "tests: cover the failed-retry path of refunds",
        "errors: raise ExportFailed instead of a bare Exception",
        "retry: stop after 5 failed attempts and log the error",
    ]
    for i in range(count):
        repo.history(1, range(0, 24), files=hot if i % 2 else None, salt=i)
        if i % 4 == 1:
            path = hot[(i * 7) % len(hot)]
            repo.set(path, (i * 5) % 24, 700 + i)
            repo.commit(f"{subjects[i % len(subjects)]} (SHOP-{1000 + repo.n})")


@case(
    "u54_log_stat_errors_retry_clean",
    "git log --stat",
    clean=True,
    group=GROUP,
    decisive=["(HEAD -> main, tag: v2.4.0)"],
)
def _log_stat(root: Path) -> bytes:
    repo = _repo(root)
    _errors_history(repo, 150)
    repo.git("tag", "v2.4.0")
    return repo.run("git log --stat --decorate -n 100")


@case(
    "u54_diff_stat_release_range_clean",
    "git diff --stat && git log --oneline",
    clean=True,
    group=GROUP,
    decisive=[" files changed, "],
)
def _diff_stat(root: Path) -> bytes:
    repo = _repo(root)
    _errors_history(repo, 40)
    repo.git("tag", "v2.3.0")
    _errors_history(repo, 160)
    repo.git("tag", "v2.4.0")
    return repo.run("git diff --stat=160 v2.3.0 v2.4.0 && git log --oneline v2.3.0..v2.4.0")


@case(
    "u54_merge_retry_failed_exports_clean",
    "git merge",
    clean=True,
    group=GROUP,
    decisive=["Merge made by the 'ort' strategy."],
)
def _merge_clean(root: Path) -> bytes:
    repo = _repo(root)
    _errors_history(repo, 30)
    files = [f for f in _FILES if f.startswith("src/")]
    repo.checkout("-b", "feature/retry-failed-exports")
    for i in range(0, len(files), 3):
        for f in files[i : i + 3]:
            repo.set(f, 4, 800 + i)
        repo.commit(f"{_area(files[i])}: retry failed exports and log the exception (SHOP-{1000 + repo.n})")
    repo.checkout("main")
    for i in range(0, len(files), 6):
        for f in files[i : i + 6]:
            repo.set(f, 18, 300 + i)
        repo.commit(repo.subject(files[i], 18))
    return repo.run(
        "git merge --no-ff --stat -m \"Merge branch 'feature/retry-failed-exports'\" feature/retry-failed-exports"
    )
