"""Held-out outputs (group ``unseen-38``): a thirty-eighth batch, multi-container apps and the container runtime as an
agent runs them, on the machine's Docker engine without a registry: every image is the host's busybox imported by
the scenario (the host's ``/usr`` bind-mounted read-only gives the services Python), every Compose project is named
``u38_...`` and taken down, and every container, image and volume made is removed at the end.

Failing runs: ``docker-compose up --exit-code-from orders`` of a seven-service shop where the orders service dies
at start-up with a Python traceback among the other services' interleaved, prefixed logs, ``docker-compose up -d``
then ``docker-compose ps`` and ``docker-compose logs`` of an app whose billing service (``restart: on-failure:3``)
crashes four times, ``docker-compose config`` of a long valid file followed by the same with an override that
misspells ``environment``, ``docker build`` of a multi-stage Dockerfile whose last ``RUN`` (a migration check)
fails after hundreds of lines of the earlier steps, ``docker inspect`` of twelve job containers where the export
job ran out of memory (``OOMKilled``, exit code 137), ``docker events`` over a window of twenty containers where one
dies with exit code 3, and ``docker exec`` steps in a running ledger container whose last step, a migration, fails
with an ``sqlite3.IntegrityError``. Clean runs named after errors and failures: ``docker-compose up`` of the
errors-api, failed-jobs-worker and retry-scheduler services that all log "0 errors" and exit 0, ``docker-compose
ps`` and ``docker-compose logs`` of the same services kept running, ``docker build`` of an error-reporter image that
succeeds with the legacy builder's warnings, and ``docker inspect`` of ten containers named after errors and retries
that all exited 0. Lines that Compose prints from parallel threads are put back in a fixed order (each service's
lines kept in their own order). Labels were written with each scenario, before the engine saw the output. Needs the
Docker engine and Compose 1.29 (Debian ``docker.io``, ``docker-compose``).
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-38"

#: The host's ``/usr`` (its ``/lib`` and ``/lib64`` are links into it, and so are the image's).
_HOST = "-v /usr:/usr:ro"
_HOST_YAML = '      - "/usr:/usr:ro"\n'


def _image(root: Path, name: str) -> str:
    """An image of the host's busybox (with ``/tmp``, ``/app`` and ``/state``) tagged for this scenario; its tag."""
    tag = f"offloader-corpus/u38-{name}:1"
    rootfs = root / "rootfs"
    (rootfs / "bin").mkdir(parents=True)
    for folder in ("tmp", "app", "state", "etc"):
        (rootfs / folder).mkdir()
    (rootfs / "lib").symlink_to("usr/lib")
    (rootfs / "lib64").symlink_to("usr/lib64")
    shutil.copy("/bin/busybox", rootfs / "bin" / "busybox")
    for applet in ("sh", "echo", "ls", "cat", "false", "sleep", "mkdir", "seq", "touch", "head", "wc", "test"):
        (rootfs / "bin" / applet).symlink_to("busybox")
    sh(f"tar -C {rootfs} -c . | docker import - {tag}", root)
    return tag


def _drop_image(root: Path, tag: str) -> None:
    sh(f"docker rmi -f {tag} >/dev/null 2>&1", root)


def _ids(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between runs: folders, container and image ids, timestamps."""
    return substitute(
        scrub(out, root),
        (r"\b[0-9a-f]{64}\b", "0" * 64),
        (r"\b[0-9a-f]{12}\b", "0" * 12),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z", "2026-01-01T00:00:00.000000000Z"),
        (r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?[+-]\d\d:\d\d", "2026-01-01T00:00:00.000000000+00:00"),
    )


_PROGRESS = re.compile(rb"^(Creating|Starting|Stopping|Removing|Recreating|Pulling) ")
_LOG = re.compile(rb"^([a-z0-9-]+)_1 +\| |^u38_[a-z0-9]+_([a-z0-9-]+)_1 exited with code ")


def _compose_order(out: bytes, root: Path) -> bytes:
    """Compose's output with each run of progress lines sorted, and each run of service log lines stably sorted by
    service (each service's own lines keep their order); the threads that print them race."""
    out = substitute(out, (r"^((?:Creating|Starting|Stopping|Removing|Recreating) \S+) +\.\.\. ?", r"\1 ... "))
    lines = out.split(b"\n")
    done: list[bytes] = []
    i = 0
    while i < len(lines):
        if _PROGRESS.match(lines[i]):
            j = i
            while j < len(lines) and _PROGRESS.match(lines[j]):
                j += 1
            done += sorted(lines[i:j])
            i = j
        elif _LOG.match(lines[i]):
            j = i
            while j < len(lines) and _LOG.match(lines[j]):
                j += 1

            def key(line: bytes) -> bytes:
                m = _LOG.match(line)
                return (m.group(1) or m.group(2)) if m else b""

            done += sorted(lines[i:j], key=key)
            i = j
        elif lines[i].startswith(b"Attaching to "):
            names = sorted(lines[i][len(b"Attaching to ") :].split(b", "))
            done.append(b"Attaching to " + b", ".join(names))
            i += 1
        else:
            done.append(lines[i])
            i += 1
    return _ids(b"\n".join(done), root)


# ---------------------------------------------------------------- the services' program

_WORKER_PY = r'''
"""A shop service: logs its start-up and its batches, then stays up or exits."""
import os
import sys
import time

service = os.environ["SERVICE"]
batches = int(os.environ.get("BATCHES", "120"))
stay = os.environ.get("STAY_UP", "0") == "1"
area = service.split("-")[0]

print(f"2026-03-02T09:00:00Z INFO  {service} starting (config=/app/config/{area}.toml, workers=4)", flush=True)
print(f"2026-03-02T09:00:00Z INFO  {service} connected to redis://127.0.0.1:6379/2 (pool=8)", flush=True)
for i in range(1, batches + 1):
    level = "WARN " if i % 40 == 0 else "INFO "
    extra = " slow batch, retry budget 3/3 left" if i % 40 == 0 else ""
    print(
        f"2026-03-02T09:00:{i % 60:02d}Z {level} {service} batch {i:04d}/{batches:04d} "
        f"{area}_rows={i * 7 % 97 + 3} errors=0 retries=0 elapsed_ms={i * 13 % 90 + 10}{extra}",
        flush=True,
    )
print(f"2026-03-02T09:01:00Z INFO  {service} finished {batches} batches: 0 errors, 0 retries", flush=True)
open(f"/state/{service}.done", "w").close()
if stay:
    print(f"2026-03-02T09:01:00Z INFO  {service} ready, waiting for work", flush=True)
    while True:
        time.sleep(1)
sys.exit(0)
'''

_ORDERS_PY = r'''
"""The orders API: waits for the services it needs, loads its pricing rules, serves."""
import os
import time

from orders_app.settings import load_settings

NEEDS = os.environ["WAIT_FOR"].split(",")


def wait_for_dependencies():
    for _ in range(600):
        missing = [s for s in NEEDS if not os.path.exists(f"/state/{s}.done")]
        if not missing:
            return
        time.sleep(0.1)
    raise SystemExit(f"dependencies never became ready: {missing}")


def main():
    print("2026-03-02T09:00:00Z INFO  orders-api starting (config=/app/config/orders.toml, workers=4)", flush=True)
    wait_for_dependencies()
    print("2026-03-02T09:01:00Z INFO  orders-api dependencies ready: " + ", ".join(NEEDS), flush=True)
    settings = load_settings(os.environ)
    print(f"2026-03-02T09:01:00Z INFO  orders-api listening on :8080 with {settings}", flush=True)


if __name__ == "__main__":
    main()
'''

_ORDERS_SETTINGS_PY = r'''
"""Settings of the orders API, read from the environment."""
from decimal import Decimal


def parse_tax_rate(raw):
    rate = Decimal(raw)
    if not Decimal("0") <= rate < Decimal("1"):
        raise ValueError(f"ORDERS_TAX_RATE must be a fraction between 0 and 1, got {raw!r}")
    return rate


def pricing_rules(env):
    return {
        "currency": env.get("ORDERS_CURRENCY", "EUR"),
        "tax_rate": parse_tax_rate(env["ORDERS_TAX_RATE"]),
        "coupon_limit": int(env.get("ORDERS_COUPON_LIMIT", "3")),
    }


def load_settings(env):
    rules = pricing_rules(env)
    return {"db": env["ORDERS_DB_URL"], **rules}
'''


def _service_yaml(name: str, env: dict[str, str], *, extra: str = "") -> str:
    env_lines = "".join(f'      {k}: "{v}"\n' for k, v in env.items())
    return (
        f"  {name}:\n"
        f"    image: IMAGE\n"
        f"    network_mode: host\n"
        f"    init: true\n"
        f"    working_dir: /app\n"
        f"    volumes:\n{_HOST_YAML}"
        f'      - "./app:/app:ro"\n'
        f'      - "./state:/state"\n'
        f"    environment:\n{env_lines}"
        f"{extra}"
    )


def _compose_app(root: Path, tag: str, services: dict[str, str]) -> None:
    body = 'version: "3.8"\nservices:\n' + "".join(services.values())
    write(root, {"docker-compose.yml": body.replace("IMAGE", tag), "app/worker.py": _WORKER_PY})
    (root / "state").mkdir(exist_ok=True)


def _compose(root: Path, project: str, cmd: str) -> bytes:
    """``cmd`` run with Compose for ``project``, the project taken down (with its volumes) whatever happens."""
    env = f"PYTHONUNBUFFERED=1 COMPOSE_PROJECT_NAME={project} COMPOSE_INTERACTIVE_NO_CLI=1"
    down = f"docker-compose -p {project} down -v --remove-orphans >/dev/null 2>&1"
    return sh(f"trap '{down}' EXIT; export {env}; {cmd}", root, timeout=170)


def _wait_done(project: str, services: list[str]) -> str:
    checks = " && ".join(f"test -e state/{s}.done" for s in services)
    return f"for i in $(seq 1 600); do {checks} && break; sleep 0.1; done"


# ---------------------------------------------------------------- docker-compose up


@case(
    "u38_compose_up_orders_traceback",
    "docker-compose up --no-color --exit-code-from orders (seven services, orders-api fails at start-up)",
    clean=False,
    group=GROUP,
    decisive=[
        'File "/app/orders_app/settings.py", line 8, in parse_tax_rate',
        "ValueError: ORDERS_TAX_RATE must be a fraction between 0 and 1, got '19'",
        "exited with code 1",
        "[exit status 1]",
    ],
)
def _compose_up_fail(root: Path) -> bytes:
    tag = _image(root, "shop")
    others = ["billing", "cart", "catalog", "shipping", "search", "webhooks"]
    services = {s: _service_yaml(s, {"SERVICE": f"{s}-worker", "BATCHES": "110", "STAY_UP": "1"}) for s in others}
    services["orders"] = _service_yaml(
        "orders",
        {
            "ORDERS_DB_URL": "postgresql://orders@127.0.0.1:5432/orders",
            "ORDERS_TAX_RATE": "19",
            "ORDERS_CURRENCY": "EUR",
            "WAIT_FOR": ",".join(f"{s}-worker" for s in others),
        },
        extra="    command: sh -c 'exec python3 -u -m orders_app.main 2>&1'\n",
    )
    for s in others:
        services[s] += "    command: python3 -u /app/worker.py\n"
    _compose_app(root, tag, services)
    write(
        root,
        {
            "app/orders_app/__init__.py": "",
            "app/orders_app/main.py": _ORDERS_PY,
            "app/orders_app/settings.py": _ORDERS_SETTINGS_PY,
        },
    )
    try:
        out = _compose(root, "u38_shopup", "docker-compose up --no-color --exit-code-from orders")
    finally:
        _drop_image(root, tag)
    return _compose_order(out, root)


_CLEAN_SERVICES = ["errors-api", "failed-jobs-worker", "retry-scheduler", "exceptions-digest", "audit-export"]


@case(
    "u38_compose_up_errors_api_clean",
    "docker-compose up --no-color (errors-api, failed-jobs-worker, retry-scheduler and two more, all exit 0)",
    clean=True,
    group=GROUP,
    decisive=[
        "failed-jobs-worker finished 130 batches: 0 errors, 0 retries",
        "u38_errorsup_retry-scheduler_1 exited with code 0",
    ],
)
def _compose_up_clean(root: Path) -> bytes:
    tag = _image(root, "errors")
    services = {
        s: _service_yaml(s, {"SERVICE": s, "BATCHES": "130"}) + "    command: python3 -u /app/worker.py\n"
        for s in _CLEAN_SERVICES
    }
    _compose_app(root, tag, services)
    try:
        out = _compose(root, "u38_errorsup", "docker-compose up --no-color")
    finally:
        _drop_image(root, tag)
    return _compose_order(out, root)


# ---------------------------------------------------------------- docker-compose ps, logs

_BILLING_PY = r'''
"""The billing worker: reads its invoice templates, then starts."""
import json

from billing_app import templates

print("2026-03-02T09:00:00Z INFO  billing-worker starting (config=/app/config/billing.toml, workers=2)", flush=True)
for n, name in enumerate(templates.NAMES, 1):
    print(f"2026-03-02T09:00:01Z INFO  billing-worker loaded invoice template {n:02d}/{len(templates.NAMES)} {name}",
          flush=True)
rules = json.loads(templates.dunning_rules())
print(f"2026-03-02T09:00:02Z INFO  billing-worker dunning rules: {len(rules)}", flush=True)
'''

_BILLING_TEMPLATES_PY = r'''
"""Invoice templates and dunning rules of the billing worker."""
KINDS = ("standard", "credit-note", "reminder")
NAMES = [f"invoice-{kind}-{lang}.html" for kind in KINDS for lang in ("en", "de", "fr")]


def dunning_rules():
    with open("/app/config/dunning_rules.json") as fh:
        return fh.read()
'''


@case(
    "u38_compose_restart_loop_billing",
    "docker-compose up -d, docker-compose ps, docker-compose logs --no-color (billing restarts on-failure:3)",
    clean=False,
    group=GROUP,
    decisive=[
        "u38_billingloop_billing_1",
        "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 4 column 5 (char 70)",
        "Exit 1",
    ],
)
def _compose_restart(root: Path) -> bytes:
    tag = _image(root, "billing")
    others = ["ledger", "invoice", "tax", "refunds", "coupons"]
    services = {
        s: _service_yaml(s, {"SERVICE": f"{s}-worker", "BATCHES": "90", "STAY_UP": "1"})
        + "    command: python3 -u /app/worker.py\n"
        for s in others
    }
    services["billing"] = _service_yaml("billing", {"SERVICE": "billing-worker"}) + (
        "    command: sh -c 'exec python3 -u -m billing_app.main 2>&1'\n    restart: \"on-failure:3\"\n"
    )
    _compose_app(root, tag, services)
    write(
        root,
        {
            "app/billing_app/__init__.py": "",
            "app/billing_app/main.py": _BILLING_PY,
            "app/billing_app/templates.py": _BILLING_TEMPLATES_PY,
            "app/config/dunning_rules.json": (
                '{\n  "reminder_after_days": 14,\n  "second_reminder_after_days": 28\n'
                '    "collection_after_days": 45\n}\n'
            ),
        },
    )
    wait_billing = (
        "for i in $(seq 1 300); do "
        "s=$(docker inspect -f '{{.State.Status}} {{.RestartCount}}' u38_billingloop_billing_1); "
        '[ "$s" = "exited 3" ] && break; sleep 0.2; done'
    )
    cmd = (
        f"docker-compose up -d && {_wait_done('u38_billingloop', [f'{s}-worker' for s in others])}"
        f" && {wait_billing} && docker-compose ps && docker-compose logs --no-color"
    )
    try:
        out = _compose(root, "u38_billingloop", cmd)
    finally:
        _drop_image(root, tag)
    return _compose_order(out, root)


@case(
    "u38_compose_ps_logs_failed_jobs_clean",
    "docker-compose up -d, docker-compose ps, docker-compose logs --no-color (errors and retry services all Up)",
    clean=True,
    group=GROUP,
    decisive=[
        "u38_failedjobs_failed-jobs-worker_1",
        "retry-scheduler ready, waiting for work",
        "errors-api finished 100 batches: 0 errors, 0 retries",
    ],
)
def _compose_ps_clean(root: Path) -> bytes:
    tag = _image(root, "failedjobs")
    services = {
        s: _service_yaml(s, {"SERVICE": s, "BATCHES": "100", "STAY_UP": "1"})
        + "    command: python3 -u /app/worker.py\n"
        for s in _CLEAN_SERVICES
    }
    _compose_app(root, tag, services)
    cmd = (
        f"docker-compose up -d && {_wait_done('u38_failedjobs', _CLEAN_SERVICES)}"
        " && docker-compose ps && docker-compose logs --no-color"
    )
    try:
        out = _compose(root, "u38_failedjobs", cmd)
    finally:
        _drop_image(root, tag)
    return _compose_order(out, root)


# ---------------------------------------------------------------- docker-compose config


@case(
    "u38_compose_config_override_typo",
    "docker-compose config, then docker-compose -f base -f override config (override misspells environment)",
    clean=False,
    group=GROUP,
    decisive=[
        "Unsupported config option for services.ledger: 'enviroment'",
        "[exit status 1]",
    ],
)
def _compose_config(root: Path) -> bytes:
    services = {}
    for area in WORDS[:12]:
        env = {f"{area.upper()}_{key}": f"{area}-{key.lower()}-value" for key in _ENV_KEYS}
        extra = (
            "    healthcheck:\n"
            f'      test: ["CMD", "python3", "/app/healthcheck.py", "{area}"]\n'
            "      interval: 10s\n      timeout: 3s\n      retries: 5\n"
            f"    labels:\n      com.shop.team: {area}\n      com.shop.tier: backend\n"
            f"    command: python3 -u /app/worker.py --queue {area}-jobs --dead-letter {area}-failed\n"
        )
        services[area] = _service_yaml(area, env, extra=extra)
    body = 'version: "3.8"\nservices:\n' + "".join(services.values())
    override = (
        'version: "3.8"\nservices:\n  ledger:\n    enviroment:\n      LEDGER_DB_URL: "postgresql://ledger@db/ledger"\n'
        '  refunds:\n    environment:\n      REFUNDS_RETRY_LIMIT: "5"\n'
    )
    write(
        root,
        {
            "docker-compose.yml": body.replace("IMAGE", "offloader-corpus/u38-shop:1"),
            "docker-compose.override.yml": override,
        },
    )
    cmd = (
        "docker-compose -f docker-compose.yml config"
        " && docker-compose -f docker-compose.yml -f docker-compose.override.yml config"
    )
    return _ids(_compose(root, "u38_config", cmd), root)


_ENV_KEYS = [
    "DB_URL", "DB_POOL_SIZE", "REDIS_URL", "QUEUE", "DEAD_LETTER_QUEUE", "RETRY_LIMIT", "RETRY_BACKOFF_MS",
    "LOG_LEVEL", "LOG_FORMAT", "SENTRY_DSN", "METRICS_PORT", "TRACE_SAMPLE_RATE", "FEATURE_FLAGS", "TIMEOUT_MS",
]  # fmt: skip


# ---------------------------------------------------------------- docker build


def _build(root: Path, tag: str, name: str, dockerfile: str, files: dict[str, str]) -> bytes:
    ctx = root / "ctx"
    write(ctx, {"Dockerfile": dockerfile.replace("BASE", tag), **files})
    label = f"u38.case={name}"
    cleanup = (
        f"docker rmi -f offloader-corpus/u38-{name}:build >/dev/null 2>&1; "
        f"docker image prune -f --filter label={label} >/dev/null 2>&1"
    )
    out = sh(
        f"trap '{cleanup}' EXIT; docker build --no-cache --force-rm -t offloader-corpus/u38-{name}:build ctx",
        root,
        timeout=170,
    )
    return _ids(out, root)


def _sources(pkg: str) -> dict[str, str]:
    files = {}
    for area in WORDS:
        files[f"src/{pkg}/{area}.py"] = (
            f'"""{area} handlers."""\n\n\nclass {area.capitalize()}Error(Exception):\n    pass\n\n\n'
            f"def retry_{area}(attempts):\n    return min(attempts + 1, 5)\n"
        )
    return files


_MULTISTAGE = """
FROM BASE AS sources
LABEL u38.case=refunds
COPY src /build/src
RUN for f in /build/src/refunds_service/*.py; do echo "checking $f"; done
RUN for i in $(seq 1 250); do echo "vendoring wheel $i/250: refunds_dep_$i-1.0.$i-py3-none-any.whl"; done

FROM BASE AS assets
LABEL u38.case=refunds
RUN for i in $(seq 1 200); do echo "bundling static/refunds/page_$i.js (minified, 0 warnings)"; done

FROM BASE
LABEL u38.case=refunds
COPY --from=sources /build/src /app/src
COPY migrations /app/migrations
COPY check_migrations.sh /app/check_migrations.sh
RUN for i in $(seq 1 150); do echo "precompiling /app/src/module_$i.py"; done
RUN sh /app/check_migrations.sh
CMD ["sh", "-c", "echo refunds service"]
"""

_CHECK_MIGRATIONS = r"""
set -e
for up in /app/migrations/*.up.sql; do
  down="${up%.up.sql}.down.sql"
  if [ ! -e "$down" ]; then
    echo "ERROR: migration $(basename "$up") has no down migration ($(basename "$down") is missing)" >&2
    exit 3
  fi
  echo "ok: $(basename "$up") <-> $(basename "$down")"
done
echo "all migrations reversible"
"""


@case(
    "u38_docker_build_multistage_migration_check",
    "docker build --no-cache (three stages, the last RUN checks migrations and fails)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: migration 0037_refunds_partial_amount.up.sql has no down migration",
        "Step 15/16 : RUN sh /app/check_migrations.sh",
        "returned a non-zero code: 3",
        "[exit status 3]",
    ],
)
def _build_fail(root: Path) -> bytes:
    tag = _image(root, "refunds-base")
    files = _sources("refunds_service")
    files["check_migrations.sh"] = _CHECK_MIGRATIONS
    for i in range(1, 61):
        name = f"{i:04d}_refunds_{'partial_amount' if i == 37 else WORDS[i % len(WORDS)]}"
        files[f"migrations/{name}.up.sql"] = f"-- {name}\nALTER TABLE refunds ADD COLUMN c{i} integer;\n"
        if i != 37:
            files[f"migrations/{name}.down.sql"] = f"-- {name}\nALTER TABLE refunds DROP COLUMN c{i};\n"
    try:
        return _build(root, tag, "refunds", _MULTISTAGE, files)
    finally:
        _drop_image(root, tag)


_WARN_DOCKERFILE = """
FROM BASE AS build
LABEL u38.case=errorreporter
COPY src /build/src
RUN for f in /build/src/error_reporter/*.py; do \\

      echo "compiling $f"; \\
    done
RUN for i in $(seq 1 300); do echo "warning: rules_$i.yaml: key 'retry' is deprecated, use 'retries'"; done

FROM BASE
LABEL u38.case=errorreporter
COPY --from=build /build/src /app/src
RUN for i in $(seq 1 200); do echo "registered handler errors.handler_$i (0 errors so far)"; done
RUN echo "failed_jobs table template installed" && touch /app/ready
CMD ["cat", "/app/ready"]
"""


@case(
    "u38_docker_build_error_reporter_warnings_clean",
    "docker build --no-cache (error-reporter image, empty continuation line warnings, deprecation warnings)",
    clean=True,
    group=GROUP,
    decisive=["Successfully tagged offloader-corpus/u38-errorreporter:build"],
)
def _build_clean(root: Path) -> bytes:
    tag = _image(root, "errorreporter-base")
    try:
        return _build(root, tag, "errorreporter", _WARN_DOCKERFILE, _sources("error_reporter"))
    finally:
        _drop_image(root, tag)


# ---------------------------------------------------------------- docker inspect

_HOG = "python3 -c 'rows = [bytearray(1 << 20) for _ in range(400)]'"


def _run_jobs(root: Path, tag: str, run: str, jobs: list[tuple[str, str, str]]) -> str:
    """Each ``(name, flags, command)`` run to its end, one after the other; the names."""
    for name, flags, cmd in jobs:
        sh(
            f"docker run --name {name} --hostname {name} --label u38.run={run} --network none {_HOST}"
            f' -e JOB={name} {flags} {tag} sh -c "{cmd}"',
            root,
        )
    return " ".join(name for name, _, _ in jobs)


def _inspect(root: Path, name: str, jobs: list[tuple[str, str, str]]) -> bytes:
    tag = _image(root, name)
    try:
        names = _run_jobs(root, tag, name, jobs)
        out = sh(f"docker inspect {names}", root)
    finally:
        sh(f"docker ps -aq --filter label=u38.run={name} | xargs -r docker rm -f >/dev/null", root)
        _drop_image(root, tag)
    return substitute(_ids(out, root), (r'"Pid": \d+', '"Pid": 0'))


@case(
    "u38_docker_inspect_export_oomkilled",
    "docker inspect of twelve nightly job containers (the audit export job has --memory 24m and is OOM-killed)",
    clean=False,
    group=GROUP,
    decisive=['"Name": "/u38_nightly_audit_export"', '"OOMKilled": true', '"ExitCode": 137'],
)
def _inspect_oom(root: Path) -> bytes:
    jobs = []
    for area in ["billing", "orders", "tax", "refunds", "invoice", "ledger", "audit", "shipping", "catalog", "pricing",
                 "coupons", "search"]:  # fmt: skip
        if area == "audit":
            jobs.append(("u38_nightly_audit_export", "--memory 24m --memory-swap 24m", _HOG))
        else:
            cmd = f"for i in \\$(seq 1 50); do echo {area} row \\$i; done > /tmp/{area}.csv"
            jobs.append((f"u38_nightly_{area}_sync", "--memory 64m", cmd))
    return _inspect(root, "nightly", jobs)


@case(
    "u38_docker_inspect_error_jobs_clean",
    "docker inspect of ten containers named after errors, failures and retries, all exited 0",
    clean=True,
    group=GROUP,
    decisive=['"Name": "/u38_errjobs_retry_failed_webhooks"', '"ExitCode": 0'],
)
def _inspect_clean(root: Path) -> bytes:
    names = [
        "errors_digest", "failed_jobs_cleanup", "retry_failed_webhooks", "exceptions_rollup", "error_budget_report",
        "dead_letter_drain", "retry_refunds", "failed_payments_report", "errors_archive", "crash_reports_export",
    ]  # fmt: skip
    jobs = [(f"u38_errjobs_{n}", "--memory 64m", f"echo {n}: 0 errors, 0 failed > /tmp/{n}.log") for n in names]
    return _inspect(root, "errjobs", jobs)


# ---------------------------------------------------------------- docker events


@case(
    "u38_docker_events_webhooks_dies",
    "docker events --since --until --filter label (twenty job containers, webhooks replay exits 3)",
    clean=False,
    group=GROUP,
    decisive=["exitCode=3", "name=u38_events_webhooks_replay"],
)
def _events(root: Path) -> bytes:
    tag = _image(root, "events")
    jobs = []
    for area in WORDS:
        if area == "webhooks":
            jobs.append(("u38_events_webhooks_replay", "--label team=webhooks", "echo replaying; exit 3"))
        else:
            jobs.append((f"u38_events_{area}_sync", f"--label team={area}", f"echo {area} synced"))
    try:
        since = sh("date +%s", root).decode().strip()
        _run_jobs(root, tag, "events", jobs)
        sh("sleep 1.2", root)
        until = sh("date +%s", root).decode().strip()
        out = sh(f"docker events --since {since} --until {until} --filter label=u38.run=events", root)
    finally:
        sh("docker ps -aq --filter label=u38.run=events | xargs -r docker rm -f >/dev/null", root)
        _drop_image(root, tag)
    return _ids(out, root)


# ---------------------------------------------------------------- docker exec

_MANAGE_PY = r'''
"""Ledger management commands: check, seed, migrate."""
import sqlite3
import sys

DB = "/tmp/ledger.db"
TABLES = [f"ledger_{area}_{kind}" for area in
          ("billing", "orders", "tax", "refunds", "invoice", "shipping", "coupons", "pricing")
          for kind in ("entries", "snapshots", "audit")]


def check():
    for t in TABLES:
        print(f"check: table {t} definition ok")
    print(f"check: {len(TABLES)} tables, 0 errors")


def seed():
    con = sqlite3.connect(DB)
    for t in TABLES:
        con.execute(f"CREATE TABLE IF NOT EXISTS {t} (id INTEGER PRIMARY KEY, entry_ref TEXT, amount INTEGER)")
        for i in range(1, 11):
            con.execute(f"INSERT INTO {t} VALUES (NULL, ?, ?)", (f"{t}-{i % 5 if 'refunds_e' in t else i}", i))
        print(f"seed: {t} 10 rows")
    con.commit()


def apply_unique_refs(con, table):
    con.execute(f"CREATE UNIQUE INDEX idx_{table}_entry_ref ON {table} (entry_ref)")


def migrate():
    con = sqlite3.connect(DB)
    for n, t in enumerate(TABLES, 1):
        print(f"migrate: [{n:02d}/{len(TABLES)}] 0042_unique_entry_refs on {t} ...", flush=True)
        apply_unique_refs(con, t)
        print(f"migrate: [{n:02d}/{len(TABLES)}] 0042_unique_entry_refs on {t} done", flush=True)
    con.commit()


if __name__ == "__main__":
    {"check": check, "seed": seed, "migrate": migrate}[sys.argv[1]]()
'''


@case(
    "u38_docker_exec_ledger_migration",
    "docker exec steps in a running ledger container: check, seed, then migrate fails on the refunds table",
    clean=False,
    group=GROUP,
    decisive=[
        "sqlite3.IntegrityError: UNIQUE constraint failed: ledger_refunds_entries.entry_ref",
        'File "/app/manage.py", line 28, in apply_unique_refs',
        "[exit status 1]",
    ],
)
def _exec(root: Path) -> bytes:
    tag = _image(root, "ledger")
    write(root, {"app/manage.py": _MANAGE_PY})
    c = "u38_exec_ledger"
    steps = [f"docker exec {c} sh -c 'python3 /app/manage.py {step} 2>&1'" for step in ("check", "seed", "migrate")]
    steps.insert(0, f"docker exec {c} sh -c 'for i in $(seq 1 400); do echo ledger health probe $i: ok; done'")
    cmd = (
        f"trap 'docker rm -f {c} >/dev/null 2>&1' EXIT; "
        f"docker run -d --name {c} --init --network none {_HOST} -v {root / 'app'}:/app:ro {tag} sleep 300 >/dev/null"
        " && " + " && ".join(steps)
    )
    try:
        out = sh(cmd, root, timeout=170)
    finally:
        _drop_image(root, tag)
    return _ids(out, root)
