"""Held-out outputs (group ``unseen-82``): an eighty-second batch, dependency vulnerability audits as an agent runs
them: ``npm audit`` (text and ``--json``), ``pip-audit`` (columns, JSON through ``python -m json.tool``, verbose), with
``npm ls --all``, ``npm outdated`` and ``pip list --outdated`` as the listings around them.

The advisory services are not reachable from this machine: the npm registry answers ``405 Method Not Allowed`` to
``POST /-/npm/v1/security/advisories/bulk``, PyPI's JSON API answers 404 and ``api.osv.dev`` does not resolve. Two
outputs are those real failures (``npm audit`` against registry.npmjs.org, ``pip-audit -s osv`` against api.osv.dev).
The others audit against a local advisory mirror started by the scenario (``_MIRROR``: npm's bulk advisory endpoint
and OSV's query API, answered from a small advisory file modelled on public GitHub advisories, every other GET passed on
to the npm registry), so npm's and pip-audit's own reports, severities and fix advice are real; package metadata and
lock files come from the real npm registry and PyPI.

Failing runs: ``npm ls --all && npm audit`` of ``failed-payments`` (express 4.17.1 among others) where minimist 1.2.0
is the one critical among lows, ``npm audit --json`` of ``retry-queue`` where lodash 4.17.15 is the one high among
lows, ``npm ls --all && npm audit`` against the real registry (405), ``pip-audit -f json | python -m json.tool`` of
171 pins where PyYAML 5.3.1 is the one vulnerable, ``pip-audit -v --desc`` of three requirement files where Jinja2
2.10 is, and ``pip-audit -s osv -v`` against api.osv.dev (the name does not resolve). Clean runs named after errors,
failures and retries: ``npm ls --all && npm audit`` of ``error-reporter`` (found 0 vulnerabilities), ``npm outdated
--all --long`` of ``failed-payments``, ``pip-audit -v`` of the ``exceptions-api`` and ``retry-worker`` requirement
files (no known vulnerabilities) and ``pip show -f`` then ``pip list --outdated`` of a virtual environment with local
``failed-payments``, ``error-reporter`` and ``retry-queue`` packages. Labels were written with each scenario, before
the engine saw the output. Needs Node.js 20 with npm (Debian ``nodejs``, ``npm``), the npm registry (npm cache
``/tmp/u82-npm-cache``), and pip-audit 2.10.1 from PyPI (installed once into a virtual environment of its own under
``/tmp/offloader-corpus-venvs/u82-audit``).
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _harness import PIP_ISOLATED, PY, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-82"

_NPM_CACHE = "/tmp/u82-npm-cache"

#: The local advisory mirror: npm's bulk advisory endpoint and OSV's query API from ``advisories.json``.
_MIRROR = """
import gzip, json, sys, urllib.error, urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

ADV = json.load(open(sys.argv[1]))


def key(v):
    return tuple(int(p) if p.isdigit() else 0 for p in v.split("."))


class Handler(BaseHTTPRequestHandler):
    def log_message(self, *args):
        pass

    def send(self, code, body, ctype="application/json"):
        self.send_response(code)
        self.send_header("content-type", ctype)
        self.send_header("content-length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("content-length", 0)))
        if self.headers.get("content-encoding") == "gzip":
            raw = gzip.decompress(raw)
        req = json.loads(raw or b"{}")
        if self.path.endswith("/-/npm/v1/security/advisories/bulk"):
            out = {name: ADV["npm"][name] for name in sorted(req) if name in ADV["npm"]}
        elif self.path.endswith("/v1/query"):
            name = req["package"]["name"].lower().replace("_", "-")
            vulns = [v for v in ADV["pypi"].get(name, []) if key(req["version"]) < key(v["fixed"])]
            out = {"vulns": [
                {k: v for k, v in vuln.items() if k != "fixed"} | {"affected": [{
                    "package": {"name": name, "ecosystem": "PyPI"},
                    "ranges": [{"type": "ECOSYSTEM", "events": [{"introduced": "0"}, {"fixed": vuln["fixed"]}]}],
                }]}
                for vuln in vulns
            ]} if vulns else {}
        else:
            return self.send(404, b"{}")
        self.send(200, json.dumps(out).encode())

    def do_GET(self):
        try:
            with urllib.request.urlopen("https://registry.npmjs.org" + self.path, timeout=60) as r:
                self.send(r.status, r.read(), r.headers.get("content-type", "application/json"))
        except urllib.error.HTTPError as e:
            self.send(e.code, e.read())


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
"""


def _npm_adv(ident: int, ghsa: str, title: str, severity: str, vulnerable: str, score: float) -> dict[str, object]:
    return {
        "id": ident,
        "url": f"https://github.com/advisories/{ghsa}",
        "title": title,
        "severity": severity,
        "vulnerable_versions": vulnerable,
        "cwe": ["CWE-79"] if "XSS" in title else ["CWE-1321"] if "Pollution" in title else ["CWE-400"],
        "cvss": {"score": score, "vectorString": None},
    }


def _osv(ident: str, aliases: list[str], summary: str, details: str, fixed: str) -> dict[str, object]:
    return {"id": ident, "aliases": aliases, "summary": summary, "details": details, "fixed": fixed}


_ADVISORIES = {
    "npm": {
        "minimist": [
            _npm_adv(1179, "GHSA-xvch-5gv4-984h", "Prototype Pollution in minimist", "critical", "<1.2.6", 9.8),
        ],
        "lodash": [
            _npm_adv(1673, "GHSA-35jh-r3h4-6jhm", "Command Injection in lodash", "high", "<4.17.21", 7.2),
        ],
        "cookie": [
            _npm_adv(
                1099,
                "GHSA-pxg6-pf52-xh8x",
                "cookie accepts cookie name, path, and domain with out of bounds characters",
                "low",
                "<0.7.0",
                0.0,
            ),
        ],
        "send": [
            _npm_adv(
                1100,
                "GHSA-m6fv-jmcg-4jfg",
                "send vulnerable to template injection that can lead to XSS",
                "low",
                "<0.19.0",
                5.0,
            ),
        ],
        "serve-static": [
            _npm_adv(
                1101,
                "GHSA-cm22-4g7w-348p",
                "serve-static vulnerable to template injection that can lead to XSS",
                "low",
                "<1.16.0",
                5.0,
            ),
        ],
        "express": [
            _npm_adv(
                1102, "GHSA-qw6h-vgh9-j6wx", "express vulnerable to XSS via response.redirect()", "low", "<4.20.0", 5.0
            ),
        ],
        "on-headers": [
            _npm_adv(
                1103,
                "GHSA-76c9-3jph-rj3q",
                "on-headers is vulnerable to http response header manipulation",
                "low",
                "<1.1.0",
                3.4,
            ),
        ],
        "brace-expansion": [
            _npm_adv(
                1104,
                "GHSA-v6h2-p8h4-qcjw",
                "brace-expansion Regular Expression Denial of Service vulnerability",
                "low",
                ">=1.0.0 <=1.1.11",
                3.1,
            ),
        ],
    },
    "pypi": {
        "pyyaml": [
            _osv(
                "PYSEC-2021-142",
                ["CVE-2020-14343", "GHSA-8q59-q68h-6hv4"],
                "Improper Input Validation in PyYAML",
                "A vulnerability was discovered in the PyYAML library in versions before 5.4, where it is susceptible "
                "to arbitrary code execution when it processes untrusted YAML files through the full_load method.",
                "5.4",
            ),
        ],
        "jinja2": [
            _osv(
                "PYSEC-2019-217",
                ["CVE-2019-10906", "GHSA-462w-v97r-4m45"],
                "Jinja2 sandbox escape via string formatting",
                "In Pallets Jinja before 2.10.1, str.format_map allows a sandbox escape.",
                "2.10.1",
            ),
        ],
        "requests": [
            _osv(
                "GHSA-9wx4-h78v-vm56",
                ["CVE-2024-35195"],
                "Requests Session object does not verify requests after making first request with verify=False",
                "When making requests through a Requests Session, if the first request is made with verify=False, all "
                "subsequent requests to the same host will continue to ignore cert verification.",
                "2.32.0",
            ),
        ],
    },
}


@contextmanager
def _mirror(root: Path) -> Iterator[str]:
    """The local advisory mirror, running; its URL."""
    (root / "mirror").mkdir()
    (root / "mirror" / "mirror.py").write_text(_MIRROR)
    (root / "mirror" / "advisories.json").write_text(json.dumps(_ADVISORIES, indent=1))
    proc = subprocess.Popen(
        [PY, "mirror.py", "advisories.json"], cwd=root / "mirror", stdout=subprocess.PIPE, text=True
    )
    try:
        port = proc.stdout.readline().strip() if proc.stdout else ""
        yield f"http://127.0.0.1:{port}"
    finally:
        proc.terminate()
        proc.wait()


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the mirror's port, durations, log names."""
    return substitute(
        scrub(out, root),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:4873"),
        (r"_logs/[0-9TZ_:.-]+-debug-0\.log", "_logs/2026-01-01T00_00_00_000Z-debug-0.log"),
        (r" in \d+(\.\d+)?m?s\b", " in 1s"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
    )


def _npm_project(root: Path, name: str, deps: dict[str, str], *, dev: dict[str, str] | None = None) -> Path:
    """A small service (in ``root/name``) with a lock file resolved from the npm registry, installed without
    scripts; its folder."""
    root = root / name
    pkg = {
        "name": name,
        "version": "1.4.0",
        "private": True,
        "description": f"{name}: part of the billing platform",
        "main": "src/index.js",
        "scripts": {"test": "node --test test/", "start": "node src/index.js"},
        "dependencies": deps,
        "devDependencies": dev or {},
    }
    area = name.replace("-", "_")
    write(
        root,
        {
            "package.json": json.dumps(pkg, indent=2) + "\n",
            "src/index.js": f"""
                const express = require("express");
                const app = express();
                app.get("/{name}/health", (req, res) => res.json({{ ok: true, service: "{name}" }}));
                module.exports = app;
            """,
            f"src/{area}_handler.js": f"""
                // Records a {name} event and schedules the retry of failed ones.
                exports.handle = (event) => ({{ ...event, retry: event.failed ? event.attempt + 1 : 0 }});
            """,
            f"test/{area}_errors.test.js": f"""
                const test = require("node:test");
                const {{ handle }} = require("../src/{area}_handler.js");
                test("{name} retries failed events", () => handle({{ failed: true, attempt: 1 }}));
            """,
        },
    )
    npm = f"npm --cache {_NPM_CACHE} --no-fund --no-audit --no-update-notifier"
    sh(f"{npm} install --ignore-scripts --loglevel=error", root)
    return root


def _npm(mirror: str = "") -> str:
    registry = f" --registry {mirror}/" if mirror else ""
    return f"npm --cache {_NPM_CACHE} --no-fund --no-update-notifier{registry}"


# ---------------------------------------------------------------- npm

_FAILED_PAYMENTS = {
    "express": "4.17.1",
    "morgan": "1.10.0",
    "minimist": "1.2.0",
    "body-parser": "1.19.0",
    "uuid": "8.3.2",
    "moment": "2.29.4",
    "lodash": "4.17.21",
    "commander": "9.5.0",
    "dotenv": "16.0.3",
    "winston": "3.8.2",
    "node-cron": "3.0.2",
    "p-retry": "4.6.2",
}


@case(
    "u82_npm_ls_audit_critical",
    "npm audit",
    clean=False,
    group=GROUP,
    decisive=[
        "Prototype Pollution in minimist - https://github.com/advisories/GHSA-xvch-5gv4-984h",
        "Severity: critical",
        "vulnerabilities (",
    ],
)
def _npm_ls_audit_critical(root: Path) -> bytes:
    project = _npm_project(root, "failed-payments", _FAILED_PAYMENTS)
    with _mirror(root) as url:
        out = sh(f"{_npm()} ls --all --long && {_npm(url)} audit", project)
    return _settle(out, root)


@case(
    "u82_npm_audit_json_high",
    "npm audit --json",
    clean=False,
    group=GROUP,
    decisive=['"title": "Command Injection in lodash"', '"high": 1,'],
)
def _npm_audit_json_high(root: Path) -> bytes:
    deps = {
        "express": "4.19.2",
        "morgan": "1.10.0",
        "lodash": "4.17.15",
        "bull": "4.10.4",
        "ioredis": "5.3.2",
        "p-retry": "4.6.2",
        "pino": "8.14.1",
    }
    project = _npm_project(root, "retry-queue", deps, dev={"rimraf": "3.0.2"})
    with _mirror(root) as url:
        out = sh(f"{_npm(url)} audit --json", project)
    return _settle(out, root)


@case(
    "u82_npm_audit_endpoint_405",
    "npm audit",
    clean=False,
    group=GROUP,
    decisive=["npm warn audit 405 Method Not Allowed", "npm error audit endpoint returned an error"],
)
def _npm_audit_endpoint_405(root: Path) -> bytes:
    deps = {"express": "4.21.2", "morgan": "1.10.1", "winston": "3.8.2", "uuid": "9.0.1", "p-retry": "4.6.2"}
    project = _npm_project(root, "exceptions-dashboard", deps)
    return _settle(sh(f"{_npm()} ls --all --long && {_npm()} audit", project), root)


@case(
    "u82_npm_audit_clean_error_reporter",
    "npm audit",
    clean=True,
    group=GROUP,
    decisive=["found 0 vulnerabilities"],
)
def _npm_audit_clean(root: Path) -> bytes:
    deps = {
        "express": "4.21.2",
        "morgan": "1.10.1",
        "minimist": "1.2.8",
        "lodash": "4.17.21",
        "winston": "3.8.2",
        "p-retry": "4.6.2",
        "uuid": "9.0.1",
        "commander": "9.5.0",
        "node-cron": "3.0.2",
    }
    project = _npm_project(root, "error-reporter", deps)
    with _mirror(root) as url:
        out = sh(f"{_npm()} ls --all --long && {_npm(url)} audit", project)
    return _settle(out, root)


@case(
    "u82_npm_outdated_clean",
    "npm outdated",
    clean=True,
    group=GROUP,
    decisive=["Package", "minimist"],
)
def _npm_outdated(root: Path) -> bytes:
    project = _npm_project(root, "failed-payments", _FAILED_PAYMENTS)
    return _settle(sh(f"{_npm()} outdated --all --long || true", project), root)


# ---------------------------------------------------------------- pip-audit

_PIN_TEXT = """
agentscope==2.0.11 aiobotocore==3.10.0 aiodocker==0.27.0 aiofiles==25.1.0 aiohappyeyeballs==2.7.1
aiohttp==3.14.5 aioitertools==0.13.0 aiosignal==1.4.0 annotated-doc==0.0.7 annotated-types==0.8.0
anthropic==2.17.0 antlr4-python3-runtime==4.13.2 anyio==4.16.0 argcomplete==3.7.2 ast_serialize==0.13.1
attrs==26.1.0 aws-xray-sdk==2.15.0 bidict==0.24.1 blinker==1.9.0 blockbuster==1.5.29 boto3==1.43.117
botocore==1.43.117 bpe-openai==0.1.4 bracex==3.2.4 cached-property==2.0.1 certifi==2026.10.19.post1 cffi==2.1.1
cfn-lint==1.58.0 charset-normalizer==3.5.3 click==8.5.1 colorlog==6.12.0 connectrpc==0.12.1 cryptography==51.0.1
dashscope==2.0.2 deepagents==0.7.32 dependency-groups==1.3.2 distlib==0.4.4 distro==1.9.0 docker==7.2.0
docstring_parser==0.18.0 e2b==2.63.0 e2b-dockerfile-utils==0.1.1 fastapi==0.165.0 filelock==4.3.2
filetype==1.2.0 Flask==3.1.3 flask-cors==6.0.5 forbiddenfruit==0.1.4 frozenlist==1.8.0 fsspec==2026.9.0
genai-prices==0.2.5 google-auth==2.63.1 google-genai==3.6.1 google-re2==1.1.20251105
googleapis-common-protos==1.76.0 graphql-core==3.3.2 griffelib==2.4.1 grimp==3.20 grpcio==1.85.4 h11==0.16.0
h2==4.4.1 hpack==4.2.0 httpcore==1.0.9 httpcore2==2.17.0 httpx==0.29.0 httpx-sse==0.4.3 httpx2==2.17.0
humanize==4.17.0 hyperframe==6.1.0 hyperscan==0.9.1 hypothesis==6.170.27 idna==3.21 import-linter==2.17
iniconfig==2.3.1 itsdangerous==2.2.0 jiter==0.19.0 jmespath==1.1.0 joserfc==1.8.0 json5==0.17.3
json_repair==0.64.6 jsonpatch==1.48 jsonpath-ng==1.17.0 jsonpointer==3.12 jsonschema==4.26.0
jsonschema-path==0.5.0 jsonschema-specifications==2025.9.1 langchain==1.5.2 langchain-anthropic==1.7.10
langchain-core==1.8.3 langchain-google-genai==4.4.3 langchain-protocol==0.0.20 langgraph==1.2.24
langgraph-checkpoint==4.3.2 langgraph-prebuilt==1.1.3 langgraph-sdk==0.4.14 langsmith==0.15.1
lazy-object-proxy==1.13.0 librt==0.17.0 logfire-api==6.1.0 markdown-it-py==4.3.0 mcp==2.1.1 mcp-types==2.1.1
mdurl==0.1.2 moto==5.2.6 mpmath==1.3.0 multidict==7.2.1 mypy==2.4.1 mypy_extensions==1.2.0 networkx==3.6.1
nox==2026.10.20 numpy==2.4.6 openai==3.63.0 openai-agents==0.24.0 openapi-schema-validator==0.9.0
openapi-spec-validator==0.9.0 opentelemetry-api==1.45.1 opentelemetry-exporter-http-transport==0.66b1
opentelemetry-exporter-otlp==1.45.1 opentelemetry-exporter-otlp-common==0.66b1
opentelemetry-exporter-otlp-proto-common==1.45.1 opentelemetry-exporter-otlp-proto-grpc==1.45.1
opentelemetry-exporter-otlp-proto-http==1.45.1 opentelemetry-instrumentation==0.66b1
opentelemetry-instrumentation-threading==0.66b1 opentelemetry-proto==1.45.1 opentelemetry-sdk==1.45.1
opentelemetry-semantic-conventions==0.66b1 orjson==3.13.0 ormsgpack==1.13.1 outcome==1.3.0.post0 packaging==26.4
pathable==0.6.0 pathspec==1.1.1 platformdirs==4.14.9 pluggy==1.7.0 propcache==0.5.4 protobuf==7.36.2
protobuf-py==0.6.0 protobuf-py-ext==0.6.0 py-partiql-parser==0.6.3 pyasn1==0.6.5 pyasn1_modules==0.4.2
pycparser==3.12 pydantic==2.14.4 pydantic-ai-slim==2.78.0 pydantic-graph==2.78.0 pydantic-settings==2.16.3
pydantic_core==2.50.5 Pygments==2.21.0 PyJWT==2.15.1 pyparsing==3.3.3 pypdf==7.1.1 pyqwest==0.12.0 pytest==9.2.0
pytest-timeout==2.4.0 python-datauri==3.0.2 python-dateutil==2.9.0.post0 python-discovery==1.9.9
python-dotenv==1.2.4 python-engineio==4.15.1 python-frontmatter==1.3.0 python-multipart==0.0.34
python-socketio==5.18.1 referencing==0.37.0 regex==2026.12.2 requests==2.34.2 requests-toolbelt==1.0.0
responses==0.26.3 rfc3339-validator==0.1.4 rich==15.0.0
"""
_PINS = _PIN_TEXT.split()


def _audit_venv() -> Path:
    return make_venv(VENVS / "u82-audit", "pip-audit==2.10.1")


def _pip_audit(args: str) -> str:
    return f"{PIP_ISOLATED} PYTHONHASHSEED=0 {_audit_venv()}/bin/pip-audit {args}"


@case(
    "u82_pip_audit_json_pyyaml",
    "pip-audit",
    clean=False,
    group=GROUP,
    decisive=['"id": "PYSEC-2021-142"', '"version": "5.3.1"'],
)
def _pip_audit_json(root: Path) -> bytes:
    pins = list(_PINS)
    pins.insert(len(pins) // 2, "PyYAML==5.3.1")
    write(root, {"requirements.txt": "# failed-payments service, pinned\n" + "\n".join(pins) + "\n"})
    with _mirror(root) as url:
        args = f"-r requirements.txt --no-deps --disable-pip -s osv --osv-url {url}/v1/query"
        args += " -f json --progress-spinner off"
        out = sh(f"{_pip_audit(args)} | {PY} -m json.tool", root)
    return _settle(out, root)


def _split_requirements(root: Path, prefix: str, extra: dict[str, str]) -> str:
    """Three requirement files of the ``prefix`` service; the ``-r`` options that name them."""
    pins = list(_PINS)
    parts = {"base": pins[:70], "worker": pins[70:120], "test": pins[120:]}
    for part, pin in extra.items():
        parts[part].append(pin)
    write(root, {f"requirements/{part}.txt": "\n".join(sorted(p, key=str.lower)) + "\n" for part, p in parts.items()})
    del prefix
    return " ".join(f"-r requirements/{part}.txt" for part in parts)


@case(
    "u82_pip_audit_verbose_jinja2",
    "pip-audit",
    clean=False,
    group=GROUP,
    decisive=["PYSEC-2019-217", "Found 1 known vulnerability in 1 package"],
)
def _pip_audit_verbose_jinja2(root: Path) -> bytes:
    reqs = _split_requirements(root, "billing", {"worker": "Jinja2==2.10", "base": "MarkupSafe==3.0.2"})
    with _mirror(root) as url:
        args = f"{reqs} --no-deps --disable-pip -s osv --osv-url {url}/v1/query -v --desc --progress-spinner off"
        out = sh(_pip_audit(args), root)
    return _settle(out, root)


@case(
    "u82_pip_audit_osv_unreachable",
    "pip-audit",
    clean=False,
    group=GROUP,
    decisive=["requests.exceptions.ConnectionError: HTTPSConnectionPool(host='api.osv.dev'"],
)
def _pip_audit_unreachable(root: Path) -> bytes:
    reqs = _split_requirements(root, "retry", {"worker": "Jinja2==3.1.6"})
    out = sh(_pip_audit(f"{reqs} --no-deps --disable-pip -s osv -v --progress-spinner off"), root)
    return _settle(out, root)


@case(
    "u82_pip_audit_clean_exceptions_api",
    "pip-audit",
    clean=True,
    group=GROUP,
    decisive=["No known vulnerabilities found"],
)
def _pip_audit_clean(root: Path) -> bytes:
    reqs = _split_requirements(root, "exceptions", {"worker": "Jinja2==3.1.6", "base": "PyYAML==6.0.3"})
    write(root, {"README.md": "exceptions-api and retry-worker: error reports and failed-job retries.\n"})
    with _mirror(root) as url:
        args = f"{reqs} --no-deps --disable-pip -s osv --osv-url {url}/v1/query -v --progress-spinner off"
        out = sh(_pip_audit(args), root)
    return _settle(out, root)


# ---------------------------------------------------------------- pip list --outdated

_LOCAL = ["failed-payments", "error-reporter", "retry-queue", "exceptions-digest"]


@case(
    "u82_pip_list_outdated_clean",
    "pip list --outdated",
    clean=True,
    group=GROUP,
    decisive=["2.31.0   2.34.2", "Latest"],
)
def _pip_outdated(root: Path) -> bytes:
    for name in _LOCAL:
        mod = name.replace("-", "_")
        write(
            root,
            {
                f"pkgs/{name}/pyproject.toml": f"""
                    [build-system]
                    requires = ["setuptools>=61"]
                    build-backend = "setuptools.build_meta"

                    [project]
                    name = "{name}"
                    version = "2.3.0"
                """,
                f"pkgs/{name}/{mod}/__init__.py": f'"""{name}: errors and retries of failed jobs."""\n',
            },
        )
    venv = VENVS / "u82-outdated"
    old = "requests==2.31.0 urllib3==1.26.18 click==8.1.7 idna==3.6 certifi==2024.2.2 charset-normalizer==3.3.2"
    old += " tenacity==8.2.3 structlog==23.2.0 sentry-sdk==1.40.0 redis==5.0.1 celery==5.3.6"
    make_venv(venv, f"{old} " + " ".join(f"{root}/pkgs/{n}" for n in _LOCAL))
    pip = f"{PIP_ISOLATED} {venv}/bin/pip --disable-pip-version-check"
    shown = " ".join([*_LOCAL, "celery", "requests"])
    return _settle(sh(f"{pip} show -f {shown} && {pip} list --outdated", root), root)
