"""Held-out outputs (group ``unseen-31``): a thirty-first batch, static analysis, policy and security scanners run
offline on projects generated in the scenario's folder (modules, Terraform and Kubernetes files, dependency trees
named after the business areas).

Failing runs: ``semgrep scan --error`` with local rules over 300 Python modules where one ``subprocess.run`` with
``shell=True`` on an f-string matches the error-severity rule among a hundred ``print()`` and ``requests`` findings
of lower severity, ``checkov -d`` over the Terraform security groups of 60 services where one opens SSH to
``0.0.0.0/0`` (its Kubernetes manifests, all passing, reported after it), ``checkov --compact`` over the
Kubernetes deployments of 20 services where one container runs privileged, ``eslint`` with
``eslint-plugin-security`` over 200 modules where one ``eval`` of a built string is an error among many
warnings, ``license-checker --failOn`` over an npm dependency tree where one internal package is GPL and
``liccheck`` over a requirements file where one package's licence is forbidden by the strategy. Clean runs whose
text talks about errors: ``semgrep scan`` over ``error_handler.py`` and ``failures.py`` modules that break none of
the rules, ``checkov`` over 20 S3 buckets that all pass the public access checks, ``eslint --max-warnings 80``
over ``errors.js`` modules with warnings under the limit, ``license-checker --summary`` of a tree of permissive
licences and ``pip-licenses`` of an environment of ``exceptiongroup``, ``retrying``, ``errorhandler`` and
``pretty-errors``. Labels were written with each scenario, before the engine saw the output. Needs Node.js with
npm (Debian ``nodejs``, ``npm``) and ``eslint``, ``eslint-plugin-security`` and ``license-checker`` from the npm
registry, with ``semgrep``, ``checkov``, ``pip-licenses`` and ``liccheck`` from PyPI.
"""

from __future__ import annotations

import json
from pathlib import Path

from _harness import PIP_ISOLATED, PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-31"

_SEMGREP = "semgrep==1.185.0"
_CHECKOV = "checkov==3.3.30"
_PIP_LICENSES = "pip-licenses==5.5.5"
_LICCHECK = "liccheck==0.9.2"
_ESLINT = "eslint@10.16.0"
_ESLINT_SECURITY = "eslint-plugin-security@4.1.0"
_LICENSE_CHECKER = "license-checker@25.0.1"

_KINDS = ["api", "service", "models", "tasks", "handlers", "views", "client", "jobs", "export", "sync",
          "repository", "schemas", "events", "cache", "utils"]  # fmt: skip


def _home(root: Path) -> str:
    home = root / "home"
    home.mkdir(exist_ok=True)
    return f"HOME={home} XDG_CACHE_HOME={home / '.cache'} XDG_CONFIG_HOME={home / '.config'}"


def _npm(root: Path, *packages: str) -> None:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh(f"npm install --no-audit --no-fund --silent {' '.join(packages)}", root)


# ---------------------------------------------------------------- semgrep

_SEMGREP_RULES = """
rules:
  - id: print-in-service-code
    languages: [python]
    severity: INFO
    message: print() left in service code; use the module logger
    pattern: print(...)
  - id: requests-without-timeout
    languages: [python]
    severity: WARNING
    message: HTTP call without a timeout can hang a worker forever
    patterns:
      - pattern: requests.$METHOD(...)
      - pattern-not: requests.$METHOD(..., timeout=$T, ...)
  - id: subprocess-shell-true-fstring
    languages: [python]
    severity: ERROR
    message: subprocess called with shell=True on a formatted string (command injection)
    pattern: subprocess.$FUNC(f"...", ..., shell=True, ...)
  - id: bare-except-pass
    languages: [python]
    severity: ERROR
    message: exception swallowed by a bare except with pass
    pattern: |
      try:
          ...
      except:
          pass
"""


def _semgrep_env(root: Path) -> str:
    return (
        py_tools(root, _SEMGREP)
        + f" {_home(root)} SEMGREP_ENABLE_VERSION_CHECK=0 SEMGREP_SEND_METRICS=off PYTHONDONTWRITEBYTECODE=1"
    )


def _semgrep_module(area: str, kind: str, n: int) -> str:
    body = [
        "import logging",
        "import subprocess",
        "",
        "import requests",
        "",
        "log = logging.getLogger(__name__)",
        f'BASE = "https://{area}.internal.example/v1"',
        "",
        "",
        f"def fetch_{kind}(item_id):",
    ]
    if n % 3 == 0:
        body.append(f'    print("fetching {area} {kind}", item_id)')
    if n % 7 == 0:
        body.append(f'    resp = requests.get(f"{{BASE}}/{kind}/{{item_id}}")')
    else:
        body.append(f'    resp = requests.get(f"{{BASE}}/{kind}/{{item_id}}", timeout=10)')
    body += [
        "    resp.raise_for_status()",
        "    return resp.json()",
        "",
        "",
        f"def archive_{kind}(path):",
        '    subprocess.run(["tar", "czf", path + ".tgz", path], check=True)',
        f'    log.info("archived {area} {kind} %s", path)',
        "",
    ]
    return "\n".join(body)


@case(
    "semgrep_local_rules_300_modules_one_error_finding",
    "semgrep scan --config rules.yml --metrics=off --error (local rules, 300 modules)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/shop/ledger/export.py",
        "subprocess-shell-true-fstring",
        "subprocess called with shell=True on a formatted string (command injection)",
        'subprocess.run(f"pg_dump --table={table} ledger > {target}", shell=True)',
        "Ran 4 rules on 300 files: 143 findings.",
        "[exit status 1]",
    ],
)
def _semgrep_bad(root: Path) -> bytes:
    env = _semgrep_env(root)
    files = {"rules.yml": _SEMGREP_RULES}
    n = 0
    for area in WORDS:
        for kind in _KINDS:
            n += 1
            text = _semgrep_module(area, kind, n)
            if (area, kind) == ("ledger", "export"):
                text += (
                    "\n\ndef dump_table(table, target):\n"
                    '    subprocess.run(f"pg_dump --table={table} ledger > {target}", shell=True)\n'
                )
            files[f"src/shop/{area}/{kind}.py"] = text
    write(root, files)
    cmd = "semgrep scan --config rules.yml --metrics=off --disable-version-check --error src"
    return scrub(sh(f"{env} {cmd}", root), root)


@case(
    "semgrep_error_handler_modules_no_findings_clean",
    "semgrep scan --config rules.yml --metrics=off (modules named error_handler.py, failures.py)",
    clean=True,
    group=GROUP,
    decisive=["Ran 4 rules on 60 files: 0 findings."],
)
def _semgrep_clean(root: Path) -> bytes:
    env = _semgrep_env(root)
    files = {"rules.yml": _SEMGREP_RULES}
    for area in WORDS:
        for name in ("error_handler", "failures", "retry_policy"):
            files[f"src/shop/{area}/{name}.py"] = f'''
            import logging

            import requests

            log = logging.getLogger(__name__)


            class {area.capitalize()}Error(Exception):
                """Raised when the {area} service answers with an error."""


            def handle_error(exc, attempt):
                log.error("{area} {name} failed on attempt %d: %s", attempt, exc)
                if attempt >= 3:
                    raise {area.capitalize()}Error(str(exc)) from exc
                return attempt + 1


            def report_failure(payload):
                try:
                    requests.post("https://errors.internal.example/{area}", json=payload, timeout=5)
                except requests.RequestException as exc:
                    log.exception("could not report the failure: %s", exc)
            '''
    write(root, files)
    cmd = "semgrep scan --config rules.yml --metrics=off --disable-version-check src"
    return scrub(sh(f"{env} {cmd}", root), root)


# ---------------------------------------------------------------- checkov

_CHECKOV_OFFLINE = (
    "BC_SKIP_MAPPING=TRUE CHECKOV_RUN_SCA_PACKAGE_SCAN_V2=false CHECKOV_PARALLELIZATION_TYPE=none "
    "LOG_LEVEL=WARNING ANSI_COLORS_DISABLED=1"
)
_SG_CHECKS = "CKV_AWS_23,CKV_AWS_24,CKV_AWS_25,CKV_AWS_260,CKV_AWS_277"
_K8S_CHECKS = "CKV_K8S_14,CKV_K8S_16,CKV_K8S_17,CKV_K8S_18,CKV_K8S_19,CKV_K8S_20"


def _checkov_env(root: Path) -> str:
    return py_tools(root, _CHECKOV) + f" {_home(root)} {_CHECKOV_OFFLINE} PYTHONDONTWRITEBYTECODE=1"


def _checkov_out(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"version: \d+\.\d+\.\d+", "version: 3.3.30"))


def _security_group(area: str, env: str, port: int, cidr: str) -> str:
    return f'''
resource "aws_security_group" "{area}_{env}" {{
  name        = "{area}-{env}"
  description = "{area} service ({env})"
  vpc_id      = "vpc-0a1b2c3d"

  ingress {{
    description = "{area} api from the load balancer"
    from_port   = {port}
    to_port     = {port}
    protocol    = "tcp"
    cidr_blocks = ["{cidr}"]
  }}

  egress {{
    description = "to the private subnets"
    from_port   = 443
    to_port     = 443
    protocol    = "tcp"
    cidr_blocks = ["10.0.0.0/8"]
  }}
}}
'''


def _k8s_deployment(area: str, privileged: bool = False) -> str:
    return f"""
apiVersion: apps/v1
kind: Deployment
metadata:
  name: {area}
  namespace: shop
spec:
  replicas: 2
  selector:
    matchLabels:
      app: {area}
  template:
    metadata:
      labels:
        app: {area}
    spec:
      containers:
        - name: {area}
          image: registry.shop.example/{area}:1.14.2
          ports:
            - containerPort: 8080
          securityContext:
            privileged: {"true" if privileged else "false"}
            allowPrivilegeEscalation: {"true" if privileged else "false"}
"""


@case(
    "checkov_terraform_security_groups_one_open_ssh",
    "checkov -d infra --framework terraform kubernetes --check (60 security groups, 20 deployments)",
    clean=False,
    group=GROUP,
    decisive=[
        'Check: CKV_AWS_24: "Ensure no security groups allow ingress from 0.0.0.0:0 to port 22"',
        "FAILED for resource: aws_security_group.refunds_staging",
        "File: /terraform/refunds.tf:",
        'cidr_blocks = ["0.0.0.0/0"]',
        "Passed checks: 299, Failed checks: 1, Skipped checks: 0",
        "[exit status 1]",
    ],
)
def _checkov_sg(root: Path) -> bytes:
    env = _checkov_env(root)
    files = {}
    for area in WORDS:
        text = ""
        for e in ("dev", "staging", "prod"):
            if (area, e) == ("refunds", "staging"):
                text += _security_group(area, e, 22, "0.0.0.0/0")
            else:
                text += _security_group(area, e, 8443, "10.20.0.0/16")
        files[f"infra/terraform/{area}.tf"] = text
        files[f"infra/k8s/{area}.yaml"] = _k8s_deployment(area)
    write(root, files)
    cmd = f"checkov -d infra --skip-download --framework terraform kubernetes --check {_SG_CHECKS},{_K8S_CHECKS}"
    return _checkov_out(sh(f"{env} {cmd}", root), root)


@case(
    "checkov_kubernetes_compact_one_privileged_container",
    "checkov -d k8s --framework kubernetes --compact --check (20 deployments)",
    clean=False,
    group=GROUP,
    decisive=[
        'Check: CKV_K8S_16: "Container should not be privileged"',
        "FAILED for resource: Deployment.shop.webhooks",
        "File: /k8s/webhooks.yaml:1-23",
        "Failed checks: 2",
        "[exit status 1]",
    ],
)
def _checkov_k8s(root: Path) -> bytes:
    env = _checkov_env(root)
    write(root, {f"k8s/{area}.yaml": _k8s_deployment(area, privileged=area == "webhooks") for area in WORDS})
    cmd = f"checkov -d k8s --skip-download --framework kubernetes --compact --check {_K8S_CHECKS}"
    return _checkov_out(sh(f"{env} {cmd}", root), root)


@case(
    "checkov_terraform_s3_public_access_all_passed_clean",
    "checkov -d buckets --framework terraform --check (20 S3 buckets, public access checks)",
    clean=True,
    group=GROUP,
    decisive=["Passed checks: 80, Failed checks: 0, Skipped checks: 0"],
)
def _checkov_clean(root: Path) -> bytes:
    env = _checkov_env(root)
    files = {}
    for area in WORDS:
        files[f"buckets/{area}.tf"] = f'''
        resource "aws_s3_bucket" "{area}" {{
          bucket = "shop-{area}-exports"
        }}

        resource "aws_s3_bucket_public_access_block" "{area}" {{
          bucket                  = aws_s3_bucket.{area}.id
          block_public_acls       = true
          block_public_policy     = true
          ignore_public_acls      = true
          restrict_public_buckets = true
        }}
        '''
    write(root, files)
    checks = "CKV_AWS_53,CKV_AWS_54,CKV_AWS_55,CKV_AWS_56"
    cmd = f"checkov -d buckets --skip-download --framework terraform --check {checks}"
    return _checkov_out(sh(f"{env} {cmd}", root), root)


# ---------------------------------------------------------------- eslint-plugin-security

_ESLINT_CONFIG = """
const security = require("eslint-plugin-security");

module.exports = [
  security.configs.recommended,
  {
    files: ["**/*.js"],
    languageOptions: { sourceType: "commonjs", ecmaVersion: 2022 },
    rules: { "security/detect-eval-with-expression": "error" },
  },
];
"""


def _js_module(area: str, kind: str, n: int) -> str:
    lines = ['"use strict";', 'const fs = require("fs");', 'const path = require("path");', ""]
    lines += [
        f"function read{kind.capitalize()}(name) {{",
        f'  return fs.readFileSync(path.join("data", "{area}", name), "utf8");',
        "}",
        "",
    ]
    if n % 2 == 0:
        lines += ["function field(record, key) {", "  return record[key];", "}", ""]
    else:
        lines += ["function field(record) {", "  return record.id;", "}", ""]
    if n % 5 == 0:
        lines += ["function matches(input, pattern) {", "  return new RegExp(pattern).test(input);", "}", ""]
    else:
        lines += ["function matches(input) {", "  return /^[a-z0-9-]+$/.test(input);", "}", ""]
    lines.append(f"module.exports = {{ read{kind.capitalize()}, field, matches }};")
    return "\n".join(lines) + "\n"


@case(
    "eslint_security_200_modules_one_eval_error",
    "eslint src (eslint-plugin-security recommended, 200 modules)",
    clean=False,
    group=GROUP,
    decisive=[
        "/tmp/work/src/pricing/rules.js",
        "error  eval with argument of type CallExpression  security/detect-eval-with-expression",
        "(1 error, ",
        "[exit status 1]",
    ],
)
def _eslint_bad(root: Path) -> bytes:
    _npm(root, _ESLINT, _ESLINT_SECURITY)
    files = {"eslint.config.js": _ESLINT_CONFIG}
    n = 0
    for area in WORDS:
        for kind in _KINDS[:10]:
            n += 1
            text = _js_module(area, kind, n)
            if (area, kind) == ("pricing", "models"):
                files["src/pricing/rules.js"] = (
                    '"use strict";\n\nfunction applyRule(rule, price) {\n'
                    "  return eval(`(${rule.expression})`.replace(/price/g, String(price)));\n"
                    "}\n\nmodule.exports = { applyRule };\n"
                )
            files[f"src/{area}/{kind}.js"] = text
    write(root, files)
    return scrub(sh("./node_modules/.bin/eslint src", root), root)


@case(
    "eslint_security_errors_modules_under_max_warnings_clean",
    "eslint --max-warnings 80 src (eslint-plugin-security, modules named errors.js)",
    clean=True,
    group=GROUP,
    decisive=["(0 errors, 40 warnings)"],
)
def _eslint_clean(root: Path) -> bytes:
    _npm(root, _ESLINT, _ESLINT_SECURITY)
    files = {"eslint.config.js": _ESLINT_CONFIG}
    for area in WORDS:
        for name in ("errors", "failed-jobs"):
            files[f"src/{area}/{name}.js"] = f"""
            "use strict";

            class {area.capitalize()}Error extends Error {{
              constructor(message, code) {{
                super(message);
                this.name = "{area.capitalize()}Error";
                this.code = code;
              }}
            }}

            const MESSAGES = {{ timeout: "{area} timed out", refused: "{area} refused the request" }};

            function errorMessage(code) {{
              return MESSAGES[code] || "unknown {area} error";
            }}

            function failedJob(job, err) {{
              return {{ id: job.id, error: err.message, failedAt: job.finishedAt }};
            }}

            module.exports = {{ {area.capitalize()}Error, errorMessage, failedJob }};
            """
    write(root, files)
    return scrub(sh("./node_modules/.bin/eslint --max-warnings 80 src", root), root)


# ---------------------------------------------------------------- license-checker


def _local_packages(root: Path, gpl: str | None) -> dict[str, str]:
    """Internal packages of the shop, each a folder installed with ``file:``; their dependency entries."""
    deps = {}
    for i, area in enumerate(WORDS):
        name = f"@shop/{area}-client"
        licence = "GPL-3.0-only" if area == gpl else ["MIT", "ISC", "Apache-2.0", "BSD-3-Clause"][i % 4]
        pkg = {
            "name": name,
            "version": f"2.{i}.0",
            "description": f"client of the {area} service",
            "license": licence,
            "repository": f"https://git.shop.example/{area}/client",
            "main": "index.js",
        }
        write(
            root,
            {
                f"packages/{area}-client/package.json": json.dumps(pkg, indent=2) + "\n",
                f"packages/{area}-client/index.js": "module.exports = {};\n",
            },
        )
        deps[name] = f"file:packages/{area}-client"
    return deps


def _license_tree(root: Path, gpl: str | None) -> None:
    deps = _local_packages(root, gpl)
    deps |= {"ms": "2.1.3", "debug": "4.4.1", "semver": "7.7.2", "yaml": "2.8.0", "commander": "14.0.0"}
    pkg = {"name": "shop-web", "version": "3.1.0", "private": True, "license": "UNLICENSED", "dependencies": deps}
    (root / "package.json").write_text(json.dumps(pkg, indent=2) + "\n")
    sh("npm install --no-audit --no-fund --silent", root)
    sh(f"npm install --no-audit --no-fund --silent --prefix tools {_LICENSE_CHECKER}", root)


@case(
    "license_checker_fail_on_gpl_internal_package",
    "license-checker --production --failOn (npm tree, one GPL internal package)",
    clean=False,
    group=GROUP,
    decisive=['Found license defined by the --failOn flag: "GPL-3.0-only". Exiting.', "[exit status 1]"],
)
def _license_checker_bad(root: Path) -> bytes:
    _license_tree(root, gpl="ledger")
    cmd = "tools/node_modules/.bin/license-checker --production --failOn 'GPL-3.0-only;AGPL-3.0-only;GPL-2.0'"
    return scrub(sh(cmd, root), root)


@case(
    "license_checker_summary_permissive_tree_clean",
    "license-checker --production --summary (npm tree of permissive licences)",
    clean=True,
    group=GROUP,
    decisive=["├─ MIT:", "└─ "],
)
def _license_checker_clean(root: Path) -> bytes:
    _license_tree(root, gpl=None)
    cmd = "tools/node_modules/.bin/license-checker --production --summary"
    return scrub(sh(cmd, root), root)


# ---------------------------------------------------------------- pip-licenses and liccheck

_ERROR_NAMED = (
    "exceptiongroup==1.2.2 retrying==1.3.4 tenacity==9.0.0 backoff==2.2.1 errorhandler==2.0.1 "
    "pretty-errors==1.2.25 better-exceptions==0.3.3 stackprinter==0.2.12 six==1.17.0"
)


def _venv(root: Path, reqs: str) -> Path:
    """A fresh virtual environment in ``root/env`` with ``reqs`` installed (no dependencies); its python."""
    sh(f"{PY} -m venv env", root)
    py = root / "env" / "bin" / "python"
    sh(f"{PIP_ISOLATED} {PY} -m pip --python {py} install -q --no-cache-dir --no-deps {reqs}", root)
    return py


@case(
    "pip_licenses_error_named_packages_clean",
    "pip-licenses --python env/bin/python --with-urls --with-license-file --format=plain-vertical",
    clean=True,
    group=GROUP,
    decisive=["errorhandler", "exceptiongroup", "pretty-errors"],
)
def _pip_licenses(root: Path) -> bytes:
    py = _venv(root, _ERROR_NAMED)
    env = py_tools(root, _PIP_LICENSES)
    opts = "--with-urls --order=name --format=plain-vertical --with-license-file --no-license-path"
    cmd = f"pip-licenses --python {py} {opts}"
    return scrub(sh(f"{env} {cmd}", root), root)


_STRATEGY = """
[Licenses]
authorized_licenses:
    mit
    mit license
    bsd
    bsd license
    new bsd
    bsd-3-clause
    apache
    apache 2.0
    apache-2.0
    apache software license
    isc
    isc license
    isc license (iscl)
    python software foundation license
    mozilla public license 2.0 (mpl 2.0)

unauthorized_licenses:
    gpl v2
    gpl v3
    gnu general public license v2 or later (gplv2+)
    gnu general public license v3 (gplv3)
    gnu general public license (gpl)
    gpl-2.0-or-later
    agpl
"""


@case(
    "liccheck_requirements_one_gpl_package",
    "liccheck -s strategy.ini -r requirements.txt",
    clean=False,
    group=GROUP,
    decisive=[
        "check unauthorized packages...",
        "Unidecode (1.3.8): ['GNU General Public License v2 or later (GPLv2+)']",
        "[exit status 255]",
    ],
)
def _liccheck(root: Path) -> bytes:
    reqs = _ERROR_NAMED + " Unidecode==1.3.8 attrs==25.3.0 idna==3.10 certifi==2025.8.3 packaging==25.0"
    _venv(root, f"{reqs} {_LICCHECK} semantic-version==2.10.0 toml==0.10.2 setuptools==80.9.0")
    write(root, {"strategy.ini": _STRATEGY, "requirements.txt": "\n".join(reqs.split()) + "\n"})
    cmd = "env/bin/liccheck -s strategy.ini -r requirements.txt --level cautious --no-deps"
    return scrub(sh(f"{PIP_ISOLATED} {cmd}", root), root)
