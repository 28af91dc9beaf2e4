"""Held-out outputs (group ``unseen-39``): a thirty-ninth batch, the code search and code editing tools an agent runs
on a repository, each run on a ``ledger-service`` Python codebase of about two hundred files named after the
business areas (``errors.py``, ``retry_policy.py``, ``failed_jobs.py``, tests and docs in every area).

Failing runs: ``rg -n`` run as ``nobody`` over a tree with one unreadable ``vault`` folder, ``rg`` whose second
search is an unclosed regex group after a long first search, ``grep -rn`` as ``nobody`` meeting a binary fixture and
an unreadable ``secrets.py``, ``ctags -x -L`` of a file list that names a file renamed since, ``sed -i -s`` of a
rename over a file list with one misspelt path among hundreds of rewritten lines, ``patch -p2 --verbose`` of a
multi-file refactor where one hunk of one file fails, ``git cherry-pick`` of six commits where the fourth conflicts
(after a long ``git log --stat``), ``git rebase -x`` running the unit tests after each commit where one commit breaks
a test, RCS ``merge -p`` of three versions of a long rules file with conflicts, and ``python -m compileall`` where
one file among hundreds has a syntax error. Clean runs named after errors and retries: ``rg -n -C 2 --stats`` for
retry errors and failed jobs, ``ag --stats`` for the same, ``fdfind -X wc -l`` over the Python files, and ``tree
-a`` of the tree with its ``errors`` and ``failed_jobs`` folders. Labels were written with each scenario, before the
engine saw the output. Needs fd, ag, tree and RCS (Debian ``fd-find``, ``silversearcher-ag``, ``tree``, ``rcs``),
with ripgrep, universal-ctags, git, patch, sed and Python already on the machine.
"""

from __future__ import annotations

import os
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-39"

_REPO = "ledger-service"
_PKG = "ledger_service"

#: A fixed author, committer and clock for every git command, so commit hashes are the same on every run.
_GIT_ENV = {
    "GIT_AUTHOR_NAME": "Dana Ledger",
    "GIT_AUTHOR_EMAIL": "dana@ledger.example",
    "GIT_COMMITTER_NAME": "Dana Ledger",
    "GIT_COMMITTER_EMAIL": "dana@ledger.example",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_EDITOR": "true",
    "GIT_PAGER": "cat",
    "PYTHONDONTWRITEBYTECODE": "1",
}


def _cap(area: str) -> str:
    return area.capitalize()


def _errors(area: str) -> str:
    a = _cap(area)
    return f'''
    """Errors raised by the {area} service."""


    class {a}Error(Exception):
        """Base class of the {area} errors."""


    class {a}RetryError({a}Error):
        """Raised when {area} gives up after the retry budget is spent."""


    class {a}TimeoutError({a}Error):
        """Raised when the {area} upstream does not answer in time."""


    ERROR_CODES = {{
        "{area}.timeout": 504,
        "{area}.unavailable": 503,
        "{area}.conflict": 409,
        "{area}.invalid": 422,
    }}


    def raise_for_status(code: int) -> None:
        if code >= 500:
            raise {a}RetryError(f"{area} upstream failed with {{code}}")
        if code >= 400:
            raise {a}Error(f"{area} request rejected with {{code}}")
    '''


def _retry_policy(area: str, attempts: int) -> str:
    a = _cap(area)
    return f'''
    """Retry policy of the {area} service."""

    from collections.abc import Callable

    from {_PKG}.{area}.errors import {a}RetryError, {a}TimeoutError


    class RetryPolicy:
        max_attempts = {attempts}
        backoff_seconds = 0.5

        def should_retry(self, attempt: int, exc: Exception) -> bool:
            if isinstance(exc, {a}TimeoutError):
                return attempt + 1 < self.max_attempts
            return False

        def delay(self, attempt: int) -> float:
            return self.backoff_seconds * (2**attempt)


    def retry_{area}(fn: Callable[[], object], policy: RetryPolicy | None = None) -> object:
        policy = policy or RetryPolicy()
        for attempt in range(policy.max_attempts):
            try:
                return fn()
            except {a}TimeoutError as exc:
                if not policy.should_retry(attempt, exc):
                    raise {a}RetryError("{area}: retry budget spent") from exc
        raise {a}RetryError("{area}: no attempt made")
    '''


def _handlers(area: str) -> str:
    a = _cap(area)
    return f'''
    """Request handlers of the {area} service."""

    from {_PKG}.{area}.errors import {a}Error, raise_for_status
    from {_PKG}.{area}.retry_policy import RetryPolicy, retry_{area}


    def handle_{area}_request(payload: dict[str, object]) -> dict[str, object]:
        if "id" not in payload:
            raise {a}Error("{area} payload without id")
        return {{"id": payload["id"], "status": "accepted"}}


    def handle_{area}_callback(code: int) -> str:
        raise_for_status(code)
        return "ok"


    def replay_{area}(job: dict[str, object]) -> object:
        return retry_{area}(lambda: handle_{area}_request(job), RetryPolicy())


    def limit_for(amount: int, limit: int) -> bool:
        if amount > limit:
            return False
        return True
    '''


def _failed_jobs(area: str) -> str:
    a = _cap(area)
    return f'''
    """The failed jobs of the {area} service, kept for replay."""

    from dataclasses import dataclass, field

    from {_PKG}.{area}.errors import {a}RetryError


    @dataclass
    class Failed{a}Job:
        job_id: str
        attempts: int = 0
        errors: list[str] = field(default_factory=list)

        def record(self, exc: {a}RetryError) -> None:
            self.attempts += 1
            self.errors.append(str(exc))


    FAILED_JOBS_TABLE = "failed_jobs_{area}"
    '''


def _models(area: str) -> str:
    a = _cap(area)
    return f'''
    """Models of the {area} service."""

    from dataclasses import dataclass


    @dataclass(frozen=True)
    class {a}Record:
        record_id: str
        amount_cents: int
        currency: str = "EUR"

        def total(self) -> int:
            return self.amount_cents
    '''


def _tests(area: str, attempts: int) -> dict[str, str]:
    a = _cap(area)
    retry = f"""
    import unittest

    from {_PKG}.{area}.errors import {a}RetryError, {a}TimeoutError
    from {_PKG}.{area}.retry_policy import RetryPolicy, retry_{area}


    class {a}RetryTest(unittest.TestCase):
        def test_retry_budget(self) -> None:
            self.assertEqual(RetryPolicy.max_attempts, {attempts})

        def test_retry_gives_up(self) -> None:
            def boom() -> None:
                raise {a}TimeoutError("slow")

            with self.assertRaises({a}RetryError):
                retry_{area}(boom)

        def test_retry_returns_value(self) -> None:
            self.assertEqual(retry_{area}(lambda: 42), 42)

        def test_backoff_doubles(self) -> None:
            self.assertEqual(RetryPolicy().delay(3), 4.0)
    """
    errors = f'''
    import unittest

    from {_PKG}.{area}.errors import ERROR_CODES, {a}Error, {a}RetryError, raise_for_status


    class {a}ErrorsTest(unittest.TestCase):
        def test_server_error_is_retryable(self) -> None:
            with self.assertRaises({a}RetryError):
                raise_for_status(503)

        def test_client_error_is_not_retryable(self) -> None:
            with self.assertRaises({a}Error):
                raise_for_status(422)

        def test_error_codes(self) -> None:
            self.assertEqual(ERROR_CODES["{area}.timeout"], 504)
    '''
    return {f"tests/test_{area}_retry.py": retry, f"tests/test_{area}_errors.py": errors}


def _attempts(area: str) -> int:
    return 3 + WORDS.index(area) % 3


def _service(root: Path) -> Path:
    """The ``ledger-service`` repository under ``root``; its path."""
    repo = root / _REPO
    files: dict[str, str] = {
        f"{_PKG}/__init__.py": '"""The ledger service."""\n',
        "tests/__init__.py": "",
        "README.md": "# ledger-service\n\nBilling, orders and refunds, with retry policies and failed jobs.\n",
        ".gitignore": "__pycache__/\n*.pyc\n.retry-cache/\n",
        ".env.example": "LEDGER_RETRY_LIMIT=5\nLEDGER_ERRORS_DSN=postgres://errors@localhost/errors\n",
        "failed_jobs/README.md": "Dead letter queue of every area: replay with `ledger replay`.\n",
    }
    for area in WORDS:
        files[f"{_PKG}/{area}/__init__.py"] = f'"""The {area} service."""\n'
        files[f"{_PKG}/{area}/errors.py"] = _errors(area)
        files[f"{_PKG}/{area}/retry_policy.py"] = _retry_policy(area, _attempts(area))
        files[f"{_PKG}/{area}/handlers.py"] = _handlers(area)
        files[f"{_PKG}/{area}/failed_jobs.py"] = _failed_jobs(area)
        files[f"{_PKG}/{area}/models.py"] = _models(area)
        files.update(_tests(area, _attempts(area)))
        files[f"docs/{area}.md"] = (
            f"# {area}\n\nErrors of the {area} service are retried by `RetryPolicy` "
            f"(`{_PKG}/{area}/retry_policy.py`); jobs that fail go to `failed_jobs_{area}`.\n"
        )
        for n, step in enumerate(["create", "add_failed_jobs", "add_retry_columns", "index_errors"], start=1):
            files[f"{_PKG}/{area}/migrations/{n:04d}_{step}.py"] = (
                f'"""Migration {n:04d} of {area}: {step.replace("_", " ")}."""\n\n'
                f'TABLE = "failed_jobs_{area}" if "{step}" != "create" else "{area}"\n'
                f'COLUMNS = ["id", "attempts", "last_error", "retry_at"][: {n} + 1]\n'
            )
        files[f"docs/runbooks/{area}-errors.md"] = (
            f"# {area} errors runbook\n\n1. Check `failed_jobs_{area}`.\n2. Replay with `ledger replay {area}`.\n"
        )
        files[f"failed_jobs/{area}_dead_letter.py"] = (
            f'"""Dead letters of {area}."""\n\nQUEUE = "failed_jobs.{area}"\nMAX_REPLAYS = 3\n'
        )
    write(repo, files)
    return repo


def _git(repo: Path, cmd: str, when: int = 0) -> bytes:
    date = f"@{1767000000 + when * 3600} +0000"
    env = {**_GIT_ENV, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
    return sh(f"git -c init.defaultBranch=main -c advice.detachedHead=false -c color.ui=never {cmd}", repo, env=env)


def _history(repo: Path) -> None:
    """A git history: the initial import, then one commit per area."""
    _git(repo, "init -q")
    _git(repo, "add -A")
    _git(repo, "commit -q -m 'Import ledger-service'")
    for n, area in enumerate(WORDS, start=1):
        path = repo / _PKG / area / "retry_policy.py"
        path.write_text(path.read_text().replace("backoff_seconds = 0.5", "backoff_seconds = 0.5  # seconds"))
        doc = repo / "docs" / f"{area}.md"
        doc.write_text(doc.read_text() + f"\nThe {area} backoff is given in seconds.\n")
        _git(repo, "add -A", n)
        _git(repo, f"commit -q -m 'Document the {area} retry backoff unit'", n)


def _open_to_nobody(root: Path) -> None:
    os.chmod(root, 0o755)


# ---------------------------------------------------------------- ripgrep


@case(
    "u39_rg_context_stats_retry_errors_clean",
    "rg -n -C 2 --sort path --stats 'RetryError|failed_jobs' (ledger-service, matches in errors.py files)",
    clean=True,
    group=GROUP,
    decisive=["241 files contained matches", "304 files searched"],
)
def _rg_clean(root: Path) -> bytes:
    repo = _service(root)
    out = sh("rg -n -C 2 --sort path --stats 'RetryError|failed_jobs' .", repo)
    return substitute(scrub(out, root), (r"^\d+\.\d+ seconds", "0.001000 seconds"))


@case(
    "u39_rg_permission_denied_vault",
    "runuser -u nobody -- rg -n --sort path RetryPolicy . (one folder readable by root only)",
    clean=False,
    group=GROUP,
    decisive=[
        "IO error for operation on ./ledger_service/audit/vault: Permission denied (os error 13)",
        "[exit status 2]",
    ],
)
def _rg_denied(root: Path) -> bytes:
    repo = _service(root)
    _open_to_nobody(root)
    write(repo, {f"{_PKG}/audit/vault/keys.py": 'RETRY_SIGNING_KEY = "change-me"\n'})
    os.chmod(repo / _PKG / "audit" / "vault", 0o700)
    out = sh("runuser -u nobody -- rg -n --sort path 'RetryPolicy' .", repo)
    return scrub(out, root)


@case(
    "u39_rg_regex_unclosed_group",
    "rg -n --sort path 'def retry_|raise' . && rg -n 'except (BillingRetryError, BillingTimeoutError' .",
    clean=False,
    group=GROUP,
    decisive=["regex parse error:", "error: unclosed group", "[exit status 2]"],
)
def _rg_regex(root: Path) -> bytes:
    repo = _service(root)
    out = sh(
        "rg -n --sort path 'def retry_|raise ' ."
        " && rg -n --sort path 'except (BillingRetryError, BillingTimeoutError' .",
        repo,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- grep and ag


@case(
    "u39_grep_rn_binary_and_permission",
    "runuser -u nobody -- grep -rn RetryError . (a binary sqlite fixture and an unreadable secrets.py)",
    clean=False,
    group=GROUP,
    decisive=[
        "grep: ./ledger_service/auth/secrets.py: Permission denied",
        "grep: ./ledger_service/export/fixtures/errors.sqlite: binary file matches",
        "[exit status 2]",
    ],
)
def _grep_fail(root: Path) -> bytes:
    repo = _service(root)
    _open_to_nobody(root)
    fixtures = repo / _PKG / "export" / "fixtures"
    fixtures.mkdir()
    (fixtures / "errors.sqlite").write_bytes(b"SQLite format 3\x00" + b"\x00\x01ExportRetryError\x00" * 50)
    write(repo, {f"{_PKG}/auth/secrets.py": 'AUTH_RETRY_TOKEN = "s3cr3t"  # AuthRetryError on expiry\n'})
    os.chmod(repo / _PKG / "auth" / "secrets.py", 0o600)
    out = sh("runuser -u nobody -- grep -rn --exclude-dir=.git 'RetryError' .", repo)
    return scrub(out, root)


@case(
    "u39_ag_stats_failed_jobs_clean",
    "ag --workers 1 --stats 'failed_jobs|RetryError' (ledger-service)",
    clean=True,
    group=GROUP,
    decisive=["409 matches", "241 files contained matches"],
)
def _ag_clean(root: Path) -> bytes:
    repo = _service(root)
    out = sh("ag --workers 1 --stats --nocolor --noheading 'failed_jobs|RetryError' .", repo)
    return substitute(scrub(out, root), (r"^\d+\.\d+ seconds", "0.010000 seconds"))


# ---------------------------------------------------------------- fd and tree


@case(
    "u39_fd_wc_python_files_clean",
    "fdfind --threads 1 -t f -e py . ledger_service tests failed_jobs -X wc -l",
    clean=True,
    group=GROUP,
    decisive=["3461 total"],
)
def _fd_clean(root: Path) -> bytes:
    repo = _service(root)
    out = sh(
        "fdfind --threads 1 -t f . ledger_service tests failed_jobs docs"
        " && fdfind --threads 1 -t f -e py . ledger_service tests failed_jobs -X wc -l",
        repo,
    )
    return scrub(out, root)


@case(
    "u39_tree_error_folders_clean",
    "tree -a -F --dirsfirst -I .git ledger-service (errors and failed_jobs folders)",
    clean=True,
    group=GROUP,
    decisive=["67 directories, 326 files"],
)
def _tree_clean(root: Path) -> bytes:
    repo = _service(root)
    for area in WORDS:
        write(repo, {f".retry-cache/{area}/errors.log": f"{area}: 0 errors\n"})
    return scrub(sh(f"tree -a -F --dirsfirst -I .git {_REPO}", root), root)


# ---------------------------------------------------------------- ctags


@case(
    "u39_ctags_file_list_renamed_file",
    "ctags --fields=+n -x -L files.txt (the list names refunds/retry_rules.py, renamed since)",
    clean=False,
    group=GROUP,
    decisive=['ctags: Warning: cannot open input file "ledger_service/refunds/retry_rules.py"'],
)
def _ctags_fail(root: Path) -> bytes:
    repo = _service(root)
    listing = sorted(str(p.relative_to(repo)) for p in repo.rglob("*.py"))
    listing.insert(len(listing) // 2, f"{_PKG}/refunds/retry_rules.py")
    (repo / "files.txt").write_text("\n".join(listing) + "\n")
    return scrub(sh("ctags --fields=+n -x --sort=no -L files.txt", repo), root)


# ---------------------------------------------------------------- sed


@case(
    "u39_sed_inplace_missing_path",
    "sed -i -s 's/Retry\\(Policy\\|Error\\)/Backoff\\1/gw /dev/stdout' over a file list with one misspelt path",
    clean=False,
    group=GROUP,
    decisive=["sed: can't read ledger_service/shipping/retry_polcy.py: No such file or directory", "[exit status 2]"],
)
def _sed_fail(root: Path) -> bytes:
    repo = _service(root)
    listing = sorted(str(p.relative_to(repo)) for p in repo.rglob("*.py") if "Retry" in p.read_text())
    at = listing.index(f"{_PKG}/shipping/retry_policy.py")
    listing[at] = f"{_PKG}/shipping/retry_polcy.py"
    (repo / "rename.txt").write_text("\n".join(listing) + "\n")
    out = sh("sed -i -s 's/Retry\\(Policy\\|Error\\)/Backoff\\1/gw /dev/stdout' $(cat rename.txt)", repo)
    return scrub(out, root)


# ---------------------------------------------------------------- patch


@case(
    "u39_patch_refactor_hunk_failed",
    "patch -p2 --verbose < backoff-refactor.patch (60 files, one hunk of billing/retry_policy.py fails)",
    clean=False,
    group=GROUP,
    decisive=[
        "Hunk #2 FAILED at 7.",
        "1 out of 4 hunks FAILED -- saving rejects to file ledger_service/billing/retry_policy.py.rej",
        "[exit status 1]",
    ],
)
def _patch_fail(root: Path) -> bytes:
    _service(root / "a")
    new = _service(root / "b")
    for area in WORDS:
        for name in ("retry_policy.py", "handlers.py", "failed_jobs.py"):
            path = new / _PKG / area / name
            text = path.read_text()
            text = text.replace("RetryPolicy", "BackoffPolicy").replace(
                "backoff_seconds = 0.5", "backoff_seconds = 1.0"
            )
            text = text.replace('"""', '"""Refactored: ', 1).replace("field(default_factory=list)", "field(default=[])")
            text = text.replace("return attempt + 1 < self.max_attempts", "return attempt + 1 <= self.max_attempts")
            text = text.replace('"status": "accepted"', '"status": "queued"')
            path.write_text(text)
    patch = sh("diff -rN -U1 a/ledger-service b/ledger-service", root).replace(b"[exit status 1]\n", b"")
    patch = substitute(patch, (r"^(---|\+\+\+) (\S+)\t.*$", r"\1 \2"))
    target = root / "work"
    _service(target)
    repo = target / _REPO
    (repo / "backoff-refactor.patch").write_bytes(patch)
    billing = repo / _PKG / "billing" / "retry_policy.py"
    billing.write_text(billing.read_text().replace("backoff_seconds = 0.5", "backoff_seconds = 0.25  # SLA-1182"))
    out = sh("patch -p2 --verbose --no-backup-if-mismatch < backoff-refactor.patch", repo)
    return scrub(out, root)


# ---------------------------------------------------------------- git


def _hotfix_branch(repo: Path) -> None:
    """Six hotfix commits on a branch from the import; the fourth edits the line main changed since."""
    _git(repo, "checkout -q -b hotfix main~20", 30)
    areas = ["orders", "cart", "tax", "billing", "refunds", "invoice"]
    for n, area in enumerate(areas):
        path = repo / _PKG / area / "retry_policy.py"
        text = path.read_text()
        if area == "billing":
            text = text.replace("backoff_seconds = 0.5", "backoff_seconds = 2.0")
        else:
            text = text.replace("self.backoff_seconds * (2**attempt)", "min(self.backoff_seconds * (2**attempt), 2.0)")
        path.write_text(text)
        _git(repo, "add -A", 31 + n)
        _git(repo, f"commit -q -m 'Raise the {area} retry backoff to 2 seconds'", 31 + n)
    _git(repo, "checkout -q main", 40)


@case(
    "u39_git_cherry_pick_conflict",
    "git log --stat -n 25 && git cherry-pick -x main..hotfix (six commits, the fourth conflicts)",
    clean=False,
    group=GROUP,
    decisive=[
        "CONFLICT (content): Merge conflict in ledger_service/billing/retry_policy.py",
        "error: could not apply",
        "[exit status 1]",
    ],
)
def _git_cherry_pick(root: Path) -> bytes:
    repo = _service(root)
    _history(repo)
    _hotfix_branch(repo)
    out = _git(repo, "log --stat -n 25", 50) + _git(repo, "cherry-pick -x main..hotfix", 50)
    return scrub(out, root)


@case(
    "u39_git_rebase_exec_unittest_fails",
    "git rebase -x 'python3 -m unittest discover -v -s tests -t .' main~8 (one commit breaks a retry test)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL: test_retry_budget (tests.test_pricing_retry.PricingRetryTest.test_retry_budget)",
        "AssertionError: 7 != 3",
        "warning: execution failed: python3 -m unittest discover -v -s tests -t .",
        "[exit status 1]",
    ],
)
def _git_rebase(root: Path) -> bytes:
    repo = _service(root)
    _history(repo)
    _git(repo, "checkout -q -b speedup main~8", 60)
    for n, area in enumerate(["catalog", "search", "pricing", "coupons"]):
        path = repo / _PKG / area / "retry_policy.py"
        text = path.read_text()
        if area == "pricing":
            text = text.replace(f"max_attempts = {_attempts(area)}", "max_attempts = 7")
        path.write_text(text.replace('"""Retry policy', '"""Tuned retry policy'))
        _git(repo, "add -A", 61 + n)
        _git(repo, f"commit -q -m 'Tune the {area} retry policy'", 61 + n)
    out = _git(repo, "rebase -x 'python3 -m unittest discover -v -s tests -t .' main~8", 70)
    return substitute(scrub(out, root), (r"^Ran (\d+) tests in \d+\.\d+s", r"Ran \1 tests in 0.010s"))


# ---------------------------------------------------------------- rcs merge


def _rules(changes: dict[int, str]) -> str:
    lines = []
    for i in range(900):
        area = WORDS[i % len(WORDS)]
        lines.append(changes.get(i, f'    "{area}.rule_{i:03d}": RetryRule(attempts={i % 5 + 1}, backoff={i % 7}),'))
    return "RULES = {\n" + "\n".join(lines) + "\n}\n"


@case(
    "u39_rcs_merge_retry_rules_conflict",
    "merge -p -L mine -L base -L theirs (rcs merge of three versions of a 900-rule retry_rules.py)",
    clean=False,
    group=GROUP,
    decisive=["merge: warning: conflicts during merge", "[exit status 1]"],
)
def _merge_fail(root: Path) -> bytes:
    mine = {100: '    "billing.rule_100": RetryRule(attempts=9, backoff=0),', 500: "    # orders rules moved"}
    theirs = {100: '    "billing.rule_100": RetryRule(attempts=2, backoff=30),', 700: "    # tax rule_700 removed"}
    write(root, {"mine.py": _rules(mine), "base.py": _rules({}), "theirs.py": _rules(theirs)})
    return sh("merge -p -L mine -L base -L theirs mine.py base.py theirs.py", root)


# ---------------------------------------------------------------- compileall


@case(
    "u39_compileall_syntax_error_one_file",
    "python3 -m compileall -f ledger_service tests failed_jobs (one handlers.py lost a colon in an edit)",
    clean=False,
    group=GROUP,
    decisive=[
        '***   File "./ledger_service/refunds/handlers.py", line 23',
        "SyntaxError: expected ':'",
        "[exit status 1]",
    ],
)
def _compileall_fail(root: Path) -> bytes:
    repo = _service(root)
    path = repo / _PKG / "refunds" / "handlers.py"
    path.write_text(path.read_text().replace("if amount > limit:", "if amount > limit"))
    out = sh(
        "python3 -m compileall -f ./ledger_service ./tests ./failed_jobs",
        repo,
        env={"PYTHONPYCACHEPREFIX": str(root / "pyc")},
    )
    return scrub(out, root)
