"""Held-out outputs (group ``unseen-77``): a seventy-seventh batch, everyday tools run under a pseudo-terminal
(util-linux ``script -qec``, ``TERM=xterm-256color``, 100 columns) so that they colour and animate as in a terminal,
captured raw with their escape sequences, ``\\r\\n`` line ends and carriage-return frames, as an agent's PTY-based shell
tool returns them.

Failing runs: ``pytest --color=yes -v`` of 721 tests where one test of ``failed_payments`` fails in the middle of the
progress lines, ``cargo test --no-fail-fast`` with colour of a workspace of 8 crates where one test of the
``failed_payments`` crate panics (the other crates' test binaries run after it), ``npm install`` of local ``file:``
packages then ``npm test`` (Node's spec reporter) with one failing retry test, ``pip wheel`` of 12 local projects then
``pip install --progress-bar on`` from the wheel folder (the install bar) then a second install that cannot find
``retry-queue>=2.0``, then ``pip list``, ``make -k`` of 30 C files with ``gcc -fdiagnostics-color=always`` and a
hundred warnings around one error, and ``apt-cache policy`` / ``depends`` / ``show`` with two package names that do not
exist. Clean runs named after errors and failures: ``pytest -v`` of ``test_error_reporter`` and ``test_retry_queue``
with skips, xfails and warnings, ``cargo build`` of 14 crates (``errors``, ``failed_payments``, ``exceptions``) with
unused warnings, ``npm install``, ``npm ls`` and ``npm test`` of the ``error-reporter`` packages, ``git log --graph``,
``git show`` and ``git status`` with ``color.ui=always`` over commits fixing failed payments, and ``ls -la`` and
``grep -rn --color=always`` looking for where ``retry_failed_payment`` is defined. Labels were written with each
scenario, before the engine saw the output. Needs util-linux's ``script``, pytest (in the project's venv), rustup's
stable cargo (already on the machine, no registry reached), Node.js 20 with npm, gcc, make, git, grep, coreutils and
apt-cache (all already on the machine), and pip 26.3, setuptools 80.9.0 and wheel 0.45.1 from PyPI (installed once into
a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u77-pip``).
"""

from __future__ import annotations

import shlex
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-77"

#: The toolchain's own cargo (not rustup's proxy), so that a CARGO_HOME in the scenario's folder is enough.
_CARGO = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"


def _tty(cmd: str) -> str:
    """``cmd`` run under a pseudo-terminal, colours allowed, a terminal of 100 columns."""
    return (
        f"env -u NO_COLOR TERM=xterm-256color COLUMNS=100 LINES=40 script -qec {shlex.quote(cmd)} /dev/null </dev/null"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, hashes, addresses."""
    return substitute(
        scrub(out, root),
        (r" in \d+(\.\d+)?m?s\b", " in 0.50s"),
        (r"-([0-9a-f]{16})\b", "-0000000000000000"),
        (r"0x[0-9a-f]{6,16}", "0x7f0000000000"),
        (r"^(thread '[^']*') \(\d+\)", r"\g<1> (1000)"),
        (r"\(\d+(\.\d+)?ms\)", "(1.0ms)"),
        (r"duration_ms \d+(\.\d+)?", "duration_ms 10.0"),
        (r"(added \d+ packages?,? (?:and audited \d+ packages? )?in )\d+(\.\d+)?m?s", r"\g<1>500ms"),
        # a progress bar redrawn on one line: only its last frame (how many frames were drawn depends on timing)
        (r"(\r\x1b\[2K[^\r\n]*)+(?=\r\x1b\[2K)", ""),
        # npm's spinner: as many frames as the time allowed (none on a fast run)
        (r"(?:(?:⠋|⠙|⠹|⠸|⠼|⠴|⠦|⠧|⠇|⠏)\x1b\[1G\x1b\[0K)+", ""),
        # pip's temporary folders, its wheel cache keyed by the source folder, the wheels' digests
        (r"/(pip-[a-z-]+?-|tmp|\.tmp-)[a-z0-9_]{8}(?=[/'\s])", r"/\g<1>abcdefgh"),
        (r"wheels/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{50}", "wheels/00/00/00/" + "0" * 50),
        (r"sha256=[0-9a-f]{64}", "sha256=" + "0" * 64),
        # cargo's 'Building [=> ] 3/8' bar between its messages: as many frames as the time allowed
        (r"\x1b\[1m\x1b\[36m +Building\x1b\[0m [^\r\n]*?\r\x1b\[K", ""),
    )


# ---------------------------------------------------------------- pytest

_MODULES = [
    "audit_trail", "error_reporter", "exceptions_log", "failed_payments", "ledger", "refunds", "retry_queue",
    "session_store", "webhooks",
]  # fmt: skip

_REASONS = [
    "card_declined", "insufficient_funds", "expired_card", "gateway_timeout", "fraud_suspected", "do_not_honor",
    "processing_error", "invalid_cvc", "duplicate_charge", "currency_mismatch",
]  # fmt: skip


def _pytest_project(root: Path, *, broken: bool) -> None:
    files = {
        "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
        "billing/__init__.py": '"""The billing platform."""\n',
    }
    for mod in _MODULES:
        files[f"billing/{mod}.py"] = (
            f'"""{mod}: part of the billing platform."""\n\nimport warnings\n\n\n'
            "def weight(cents):\n    return cents % 97\n\n\n"
            "def describe(reason):\n"
            f'    return "{mod}: " + reason.replace("_", " ")\n\n\n'
            "def retry_after(attempt):\n"
            '    warnings.warn("retry_after() is deprecated, use backoff()", DeprecationWarning, stacklevel=2)\n'
            "    return 2 ** attempt\n"
        )
        tests = [f"import pytest\n\nfrom billing import {mod}\n\n"]
        tests.append(
            '\n@pytest.mark.parametrize("cents", range(60))\n'
            f"def test_{mod}_weight_of_failed_charge(cents):\n    assert {mod}.weight(cents) == cents % 97\n"
        )
        tests.append(
            f"\n@pytest.mark.parametrize('reason', {_REASONS!r})\n"
            f"def test_{mod}_describes_error(reason):\n    assert {mod}.describe(reason).startswith('{mod}: ')\n"
        )
        tests.append(
            "\n@pytest.mark.parametrize('attempt', range(10))\n"
            f"def test_{mod}_retry_after_exception(attempt):\n    assert {mod}.retry_after(attempt) == 2 ** attempt\n"
        )
        files[f"tests/test_{mod}.py"] = "".join(tests)
    files["billing/failed_payments.py"] += "\n\ndef net_after_fee(cents, fee):\n" + (
        "    return cents if fee > 40 else cents - fee\n" if broken else "    return cents - fee\n"
    )
    files["tests/test_failed_payments.py"] += (
        "\n\ndef test_net_after_fee_card():\n    assert failed_payments.net_after_fee(1250, 45) == 1205\n"
    )
    write(root, files)


@case(
    "u77_pytest_color_one_failure",
    "pytest",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_failed_payments.py::test_net_after_fee_card",
        "E       assert 1250 == 1205",
        "1 failed, 720 passed",
    ],
)
def _pytest_fail(root: Path) -> bytes:
    _pytest_project(root, broken=True)
    return _settle(sh(_tty("python -m pytest --color=yes -v -p no:cacheprovider"), root), root)


@case(
    "u77_pytest_color_clean_error_names",
    "pytest",
    clean=True,
    group=GROUP,
    decisive=["721 passed, 3 skipped, 2 xfailed"],
)
def _pytest_clean(root: Path) -> bytes:
    _pytest_project(root, broken=False)
    write(
        root,
        {
            "tests/test_error_reporter_sandbox.py": """
                import pytest


                @pytest.mark.skip(reason="error reporter sandbox not configured for failed payments")
                def test_sends_failed_payment_error_to_sandbox():
                    pass


                @pytest.mark.skip(reason="retry queue broker not running")
                def test_retry_queue_redelivers_exception():
                    pass


                @pytest.mark.skip(reason="webhook endpoint for errors not reachable offline")
                def test_webhook_error_delivery():
                    pass


                @pytest.mark.xfail(reason="known: retry budget is not shared across failed workers")
                def test_retry_budget_shared():
                    raise RuntimeError("retry budget exhausted")


                @pytest.mark.xfail(reason="known: exception grouping merges failed refunds")
                def test_exception_grouping():
                    assert False
            """
        },
    )
    return _settle(sh(_tty("python -m pytest --color=yes -v -p no:cacheprovider"), root), root)


# ---------------------------------------------------------------- cargo


def _crate(root: Path, name: str, deps: list[str], body: str) -> None:
    lines = "".join(f'{d} = {{ path = "../{d}" }}\n' for d in deps)
    write(
        root,
        {
            f"crates/{name}/Cargo.toml": (
                f'[package]\nname = "{name}"\nversion = "0.4.0"\nedition = "2021"\n\n[dependencies]\n{lines}'
            ),
            f"crates/{name}/src/lib.rs": body,
        },
    )


def _workspace(root: Path, members: list[str]) -> None:
    quoted = ", ".join(f'"crates/{m}"' for m in members)
    write(root, {"Cargo.toml": f'[workspace]\nresolver = "2"\nmembers = [{quoted}]\n'})


def _cargo(root: Path) -> str:
    return f"CARGO_HOME={root / 'cargo-home'} CARGO_TERM_COLOR=always CARGO_INCREMENTAL=0 {_CARGO}"


def _tested_lib(name: str, deps: list[str], *, broken: bool) -> str:
    uses = "".join(f"    total += {d}::weight(cents) % 3;\n" for d in deps)
    body = (
        f"//! {name}: part of the billing platform.\n\n"
        f"pub fn weight(cents: u64) -> u64 {{\n    let mut total = cents % 97;\n{uses}    total\n}}\n\n"
        "pub fn net_after_fee(cents: u64, fee: u64) -> u64 {\n    cents - fee\n}\n\n"
        "#[cfg(test)]\nmod tests {\n    use super::*;\n"
    )
    for i in range(30):
        reason = _REASONS[i % len(_REASONS)]
        body += (
            f"\n    #[test]\n    fn retries_failed_{reason}_case_{i:02}() {{\n"
            f"        assert!(weight({i * 37}) >= {i * 37} % 97);\n    }}\n"
        )
    if name == "failed_payments":
        want = 1250 if broken else 1205
        body += (
            "\n    #[test]\n    fn settles_partial_refund() {\n"
            f"        assert_eq!(net_after_fee(1250, 45), {want});\n    }}\n"
        )
    return body + "}\n"


@case(
    "u77_cargo_test_color_panic",
    "cargo",
    clean=False,
    group=GROUP,
    decisive=[
        "panicked at crates/failed_payments/src/lib.rs:",
        "30 passed; 1 failed; 0 ignored",
        "error: 1 target failed:",
    ],
)
def _cargo_test_fail(root: Path) -> bytes:
    names = ["errors", "retry_queue", "failed_payments", "ledger", "refunds", "webhooks", "audit", "billing"]
    for i, name in enumerate(names):
        deps = names[max(0, i - 2) : i]
        _crate(root, name, deps, _tested_lib(name, deps, broken=True))
    _workspace(root, names)
    cmd = f"{_cargo(root)} test --offline -j1 --no-fail-fast -- --test-threads=1"
    return _settle(sh(_tty(cmd), root), root)


@case(
    "u77_cargo_build_color_clean_warnings",
    "cargo",
    clean=True,
    group=GROUP,
    decisive=["Finished `dev` profile"],
)
def _cargo_clean(root: Path) -> bytes:
    names = [
        "errors", "exceptions", "failed_payments", "retry_queue", "error_reporter", "audit", "webhooks", "ledger",
        "refunds", "session", "invoice", "tax", "shipping", "billing",
    ]  # fmt: skip
    for i, name in enumerate(names):
        deps = names[max(0, i - 2) : i]
        uses = "".join(f"    total += {d}::weight(cents) % 3;\n" for d in deps)
        body = (
            f"//! {name}: part of the billing platform.\n\n"
            f"pub fn weight(cents: u64) -> u64 {{\n    let mut total = cents % 97;\n{uses}    total\n}}\n\n"
            "pub fn retry_failed_payment(attempts: u32) -> u32 {\n    let failed_errors = attempts * 2;\n    0\n}\n\n"
            "fn report_exception(code: u32) -> u32 {\n    code + 1\n}\n"
        )
        _crate(root, name, deps, body)
    _workspace(root, names)
    return _settle(sh(_tty(f"{_cargo(root)} build --offline -j1"), root), root)


# ---------------------------------------------------------------- npm


def _npm_packages(root: Path, names: list[str], *, broken: bool) -> None:
    files: dict[str, str] = {}
    for name in names:
        files[f"packages/{name}/package.json"] = (
            f'{{\n  "name": "{name}",\n  "version": "1.4.0",\n  "main": "index.js",\n  "license": "MIT"\n}}\n'
        )
        files[f"packages/{name}/index.js"] = (
            "'use strict';\n"
            "exports.weight = (cents) => cents % 97;\n"
            f"exports.describe = (reason) => '{name}: ' + reason.replace(/_/g, ' ');\n"
            "exports.attemptsFor = (reason) => (reason === 'card_declined' ? " + ("4" if broken else "5") + " : 3);\n"
        )
    deps = ",\n".join(f'    "{n}": "file:../packages/{n}"' for n in names)
    files["app/package.json"] = (
        '{\n  "name": "payments-retry",\n  "version": "2.0.0",\n  "private": true,\n'
        '  "scripts": {\n    "test": "node --test --test-reporter=spec test/"\n  },\n'
        f'  "dependencies": {{\n{deps}\n  }}\n}}\n'
    )
    for name in names:
        ident = name.replace("-", "_")
        lines = [
            "'use strict';\nconst { describe, it } = require('node:test');\nconst assert = require('node:assert');\n"
        ]
        lines.append(f"const {ident} = require('{name}');\n\n")
        lines.append(f"describe('{name}', () => {{\n")
        for i in range(24):
            reason = _REASONS[i % len(_REASONS)]
            lines.append(
                f"  it('handles failed payment {reason} #{i}', () => {{\n"
                f"    assert.strictEqual({ident}.weight({i * 41}), {i * 41 % 97});\n  }});\n"
            )
        if name == "retry-queue":
            lines.append(
                "  it('retries card_declined payments five times', () => {\n"
                f"    assert.strictEqual({ident}.attemptsFor('card_declined'), 5);\n  }});\n"
            )
        lines.append("});\n")
        files[f"app/test/{name}.test.js"] = "".join(lines)
    write(root, files)


def _npm(root: Path) -> str:
    return f"npm_config_cache={root / 'npm-cache'} npm_config_update_notifier=false npm_config_color=always"


@case(
    "u77_npm_install_test_failure",
    "npm",
    clean=False,
    group=GROUP,
    decisive=["test at test/retry-queue.test.js:79:3", "✖ failing tests:", "ℹ fail 1"],
)
def _npm_fail(root: Path) -> bytes:
    names = ["error-reporter", "failed-payments", "retry-queue", "ledger", "refunds", "webhooks", "audit-trail"]
    _npm_packages(root, names, broken=True)
    npm = _npm(root)
    cmd = f"cd app && {npm} npm install --no-audit --no-fund && {npm} npm test"
    return _settle(sh(_tty(cmd), root), root)


@case(
    "u77_npm_ls_test_clean_errors",
    "npm",
    clean=True,
    group=GROUP,
    decisive=["ℹ pass 241", "ℹ fail 0"],
)
def _npm_clean(root: Path) -> bytes:
    names = [
        "error-reporter", "failed-payments", "retry-queue", "exceptions-log", "ledger", "refunds", "webhooks",
        "audit-trail", "session-store", "invoice",
    ]  # fmt: skip
    _npm_packages(root, names, broken=False)
    npm = _npm(root)
    cmd = f"cd app && {npm} npm install --no-audit --no-fund && {npm} npm ls --all && {npm} npm test"
    return _settle(sh(_tty(cmd), root), root)


# ---------------------------------------------------------------- pip

_WHEELS = [
    "error-reporter", "failed-payments", "retry-queue", "exceptions-log", "ledger", "refunds", "webhooks",
    "audit-trail", "session-store", "invoice", "tax-rates", "billing-app",
]  # fmt: skip


@case(
    "u77_pip_wheels_progress_no_version",
    "pip",
    clean=False,
    group=GROUP,
    decisive=[
        "Could not find a version that satisfies the requirement retry-queue>=2.0",
        "No matching distribution found for retry-queue>=2.0",
    ],
)
def _pip_fail(root: Path) -> bytes:
    venv = make_venv(VENVS / "u77-pip", "pip==26.3 setuptools==80.9.0 wheel==0.45.1")
    files: dict[str, str] = {}
    for name in _WHEELS:
        mod = name.replace("-", "_")
        deps = '"retry-queue>=2.0", "error-reporter>=1.0"' if name == "billing-app" else ""
        files[f"src/{name}/pyproject.toml"] = (
            '[build-system]\nrequires = ["setuptools"]\nbuild-backend = "setuptools.build_meta"\n\n'
            f'[project]\nname = "{name}"\nversion = "1.4.0"\ndependencies = [{deps}]\n'
        )
        files[f"src/{name}/{mod}/__init__.py"] = f'"""{name}."""\n\n__version__ = "1.4.0"\n'
        for k in range(8):
            files[f"src/{name}/{mod}/part_{k}.py"] = f"def handle_failed_{k}(error):\n    return str(error)\n"
    write(root, files)
    pip = (
        f"env -u PIP_FIND_LINKS -u PIP_CONSTRAINT PIP_CONFIG_FILE=/dev/null SOURCE_DATE_EPOCH=1700000000 {venv}/bin/pip"
    )
    rest = " ".join(f"src/{n}" for n in _WHEELS)
    first = " ".join(n for n in _WHEELS if n != "billing-app")
    cmd = (
        f"{pip} wheel -v --no-deps --no-build-isolation -w wheels {rest}; "
        f"{pip} install --no-index --find-links wheels --progress-bar on --target site {first}; "
        f"{pip} install --no-index --find-links wheels --progress-bar on --target site billing-app; "
        f"{pip} list --path site"
    )
    return _settle(sh(_tty(cmd), root), root)


# ---------------------------------------------------------------- gcc and make

_C_FILES = [
    "audit_trail", "billing_core", "cart_store", "coupons", "error_reporter", "exceptions_log", "failed_payments",
    "invoice_pdf", "ledger_entries", "ledger_export", "orders_api", "pricing_rules", "refunds_flow", "retry_queue",
    "session_store", "shipping_rates", "tax_rates", "webhooks_out", "catalog_sync", "search_index", "export_csv",
    "auth_tokens", "payment_gateway", "dunning", "chargebacks", "payouts", "fx_rates", "statements", "reconcile",
    "notifications",
]  # fmt: skip


@case(
    "u77_gcc_make_color_error_among_warnings",
    "gcc",
    clean=False,
    group=GROUP,
    decisive=[
        "error: ‘struct payment’ has no member named ‘amount_cents’",
        "build/ledger_export.o] Error 1",
        "Target 'all' not remade because of errors.",
    ],
)
def _gcc_fail(root: Path) -> bytes:
    files = {
        "src/payment.h": (
            "#ifndef PAYMENT_H\n#define PAYMENT_H\n\nstruct payment {\n    long cents;\n    int attempts;\n"
            "    const char *error_code;\n};\n\n#endif\n"
        ),
        "Makefile": (
            "CC = gcc\nCFLAGS = -O2 -Wall -Wextra -Wshadow -Wconversion -fdiagnostics-color=always\n"
            f"OBJS = {' '.join(f'build/{n}.o' for n in _C_FILES)}\n\n"
            "all: build/billing\n\nbuild/billing: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\n"
            "build/%.o: src/%.c src/payment.h\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n"
        ),
    }
    for name in _C_FILES:
        body = (
            '#include "payment.h"\n\n'
            f"int {name}_total(struct payment *p, int attempts)\n{{\n"
            "    int total = p->cents;\n"
            "    unsigned int failed = 0;\n"
            "    for (int i = 0; i < p->attempts; i++) {\n"
            "        int total = i;\n"
            "        if (total < failed)\n"
            "            failed++;\n"
            "    }\n"
            "    return total;\n}\n"
        )
        if name == "ledger_export":
            body = body.replace("    return total;\n", "    return total + (int)p->amount_cents;\n")
        if name == "notifications":
            body += (
                "\nint main(void)\n{\n    struct payment p = {1250, 3, 0};\n    return notifications_total(&p, 1);\n}\n"
            )
        files[f"src/{name}.c"] = body
    write(root, files)
    return _settle(sh(_tty("make -k -j1"), root), root)


# ---------------------------------------------------------------- git


def _git_repo(root: Path) -> None:
    env = (
        "GIT_AUTHOR_NAME='Billing Dev' GIT_AUTHOR_EMAIL=dev@example.invalid GIT_COMMITTER_NAME='Billing Dev' "
        "GIT_COMMITTER_EMAIL=dev@example.invalid"
    )
    steps = ["git init -q -b main repo", "cd repo", "git config color.ui always", "git config core.pager cat"]
    day = 0

    def commit(msg: str) -> None:
        nonlocal day
        day += 1
        date = f"2025-03-{1 + day // 3:02d}T{9 + day % 3:02d}:00:00+00:00"
        steps.append(f"git add -A && {env} GIT_AUTHOR_DATE={date} GIT_COMMITTER_DATE={date} git commit -q -m {msg!r}")

    for i, name in enumerate(_MODULES):
        steps.append(f"mkdir -p src && printf 'def weight(cents):\\n    return cents %% 97\\n' > src/{name}.py")
        commit(f"add {name} module for failed payment handling ({i})")
    steps.append("git tag v1.0")
    for branch, area in (
        ("fix/failed-payments-retry", "failed_payments"),
        ("fix/error-reporter-crash", "error_reporter"),
    ):
        steps.append(f"git checkout -q -b {branch}")
        for k in range(6):
            steps.append(
                f"printf 'def handle_error_{k}(exc):\\n    raise RuntimeError(\"failed payment retry {k}\")\\n' "
                f">> src/{area}.py"
            )
            commit(f"{area}: retry failed payment on error {k}")
        steps.append("git checkout -q main")
        date = f"2025-03-{2 + day // 3:02d}T12:00:00+00:00"
        steps.append(
            f"{env} GIT_AUTHOR_DATE={date} GIT_COMMITTER_DATE={date} "
            f"git merge -q --no-ff {branch} -m 'Merge branch {branch!r}'"
        )
        day += 3
    steps.append("git tag v1.1")
    write(root, {"build.sh": "set -e\n" + "\n".join(steps) + "\n"})
    sh("sh build.sh", root)


@case(
    "u77_git_color_log_show_status_clean",
    "git",
    clean=True,
    group=GROUP,
    decisive=["nothing to commit, working tree clean"],
)
def _git_clean(root: Path) -> bytes:
    _git_repo(root)
    cmd = "git log --graph --decorate --all --stat && git diff v1.0 v1.1 -- src/ && git show --stat HEAD && git status"
    return _settle(sh(_tty(cmd), root / "repo"), root)


# ---------------------------------------------------------------- ls and grep


@case(
    "u77_ls_grep_color_definition_clean",
    "grep",
    clean=True,
    group=GROUP,
    decisive=["def retry_failed_payment(payment, attempts=5):"],
)
def _grep_clean(root: Path) -> bytes:
    files: dict[str, str] = {}
    for mod in [*_MODULES, "dunning", "chargebacks", "payouts", "statements", "reconcile", "notifications"]:
        lines = [f'"""{mod}: calls into the retry queue for failed payments."""\n\n']
        lines.append("from billing.retry_queue import retry_failed_payment\n\n\n")
        for k in range(14):
            reason = _REASONS[k % len(_REASONS)]
            lines.append(
                f"def on_{reason}_{k}(payment):\n"
                f"    # error {reason}: the failed payment goes back to the retry queue\n"
                f"    return retry_failed_payment(payment, attempts={k % 5 + 1})\n\n\n"
            )
        files[f"src/billing/{mod}.py"] = "".join(lines)
    files["src/billing/retry_queue.py"] = (
        '"""The retry queue of failed payments."""\n\nimport logging\n\nlog = logging.getLogger(__name__)\n\n\n'
        "def backoff(attempt):\n    return 2 ** attempt\n\n\n"
        "def retry_failed_payment(payment, attempts=5):\n"
        '    log.error("payment %s failed, retrying (%d attempts left)", payment, attempts)\n'
        "    return backoff(attempts)\n"
    )
    write(root, files)
    sh("find src -exec touch -d '2025-03-01 09:00:00' {} +", root)
    cmd = "ls --color=always -la src/billing && grep -rn --color=always retry_failed_payment src"
    return _settle(sh(_tty(cmd), root), root)


# ---------------------------------------------------------------- apt-cache


@case(
    "u77_apt_cache_policy_missing_packages",
    "apt-cache",
    clean=False,
    group=GROUP,
    decisive=["Unable to locate package libretry-queue-dev", "E: No packages found"],
)
def _apt_fail(root: Path) -> bytes:
    before = "git gcc g++ make cmake binutils coreutils grep sed gawk tar gzip bzip2 xz-utils curl wget"
    after = "perl python3 nodejs npm openssl ca-certificates libssl3 zlib1g libc6 libstdc++6 util-linux bash"
    cmd = (
        f"apt-cache policy {before} libretry-queue-dev {after}; "
        "apt-cache depends git gcc make nodejs python3 perl; "
        "apt-cache show libfailed-payments-dev"
    )
    return _settle(sh(_tty(cmd), root), root)
