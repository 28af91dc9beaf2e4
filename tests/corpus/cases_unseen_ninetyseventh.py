"""Held-out outputs (group ``unseen-97``): a ninety-seventh batch, monitoring configuration tooling as an ops agent
runs it offline: Prometheus' ``promtool`` and Alertmanager's ``amtool`` over generated projects whose scrape jobs,
rule files, recording rules, alerts, receivers and test files are named after business words (``failed_payments``,
``error_codes``, ``retry_queue``, ``exception_report``, ``HighErrorRate``), so that clean runs are full of them.

Failing runs: ``promtool check config`` over ten environments' configs where ``prometheus-prod-eu.yml`` has a relabel
rule with an unclosed regular expression (every other config checks its 36 rule files), ``promtool check rules`` over
36 rule files in team folders where one has a PromQL parse error, then ``promtool test rules`` of the others,
``promtool test rules`` over 144 unit-test files where one alert test expects ``HighErrorRate`` to fire before its
``for:`` has passed (``got:[]``), a loop of ``amtool check-config`` and ``amtool config routes show`` over 48 teams'
and regions' Alertmanager configs where one route names an undefined receiver, and a loop of ``amtool config routes
test --verify.receivers`` over 72 alerts where one resolves to another receiver. Clean runs: the monitoring CI step
(``promtool check config``, ``check rules``, ``test rules``) of the same project with nothing wrong, ``promtool tsdb
create-blocks-from openmetrics`` with ``tsdb list`` and ``tsdb analyze`` of each block of a day of
``error_codes_total`` and ``failed_payments_total`` samples, one ``amtool check-config`` over the 48 configs with
templates, the ten environments' ``promtool check config`` with nothing wrong, and ``amtool config routes show`` with
``routes test`` of every alert. Labels were written with each scenario, before the engine saw the output. Needs
Debian ``prometheus`` and ``prometheus-alertmanager`` (``promtool`` 2.42, ``amtool`` 0.25; installed with
``--no-install-recommends``).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-97"

#: The rule files' areas, by team folder (36 in all).
_TEAMS = {
    "payments": ["failed_payments", "chargebacks", "refunds", "invoice", "ledger", "tax"],
    "platform": ["error_codes", "exception_report", "retry_queue", "dead_letters", "timeouts", "audit"],
    "commerce": ["orders", "cart", "coupons", "pricing", "catalog", "search"],
    "delivery": ["shipping", "webhooks", "export", "session", "auth", "notifications"],
    "data": ["failed_exports", "error_budget", "retry_storms", "exceptions_etl", "backfill", "warehouse"],
    "support": ["tickets", "escalations", "failed_logins", "error_pages", "sla", "feedback"],
}

_ENVS = ["dev", "qa", "staging-us", "staging-eu", "prod-us-east", "prod-eu", "prod-ap", "dr", "canary", "perf"]


def _camel(area: str) -> str:
    return "".join(p.capitalize() for p in area.split("_"))


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"\b[0-9A-HJKMNP-TV-Z]{26}\b", "01HZZZZZZZZZZZZZZZZZZZZZZZ"),
    )


def _rule_file(team: str, area: str, *, broken: bool = False) -> str:
    name = _camel(area)
    by = "sum by (job, code) (rate" if not broken else "sum by (job, code) rate"
    return f"""
        groups:
          - name: {area}.recording
            interval: 30s
            rules:
              - record: job:{area}_errors:rate5m
                expr: {by}({area}_errors_total[5m]))
              - record: job:{area}_requests:rate5m
                expr: sum by (job) (rate({area}_requests_total[5m]))
              - record: job:{area}_error_ratio:rate5m
                expr: job:{area}_errors:rate5m / ignoring(code) group_left job:{area}_requests:rate5m
              - record: job:{area}_retry_queue_depth:max
                expr: max by (job) ({area}_retry_queue_depth)
          - name: {area}.alerts
            rules:
              - alert: {name}HighErrorRate
                expr: job:{area}_error_ratio:rate5m > 0.05
                for: 10m
                labels: {{severity: page, team: {team}}}
                annotations:
                  summary: "High error rate on {area} ({{{{ $labels.job }}}})"
                  runbook_url: "https://runbooks.example.invalid/{team}/{area}/HighErrorRate"
              - alert: {name}RetryQueueBacklog
                expr: job:{area}_retry_queue_depth:max > 1000
                for: 15m
                labels: {{severity: ticket, team: {team}}}
                annotations:
                  summary: "retry_queue backlog for {area}"
              - alert: {name}ExceptionReportSpike
                expr: increase({area}_exceptions_total[10m]) > 50
                labels: {{severity: ticket, team: {team}}}
                annotations:
                  summary: "exception_report spike in {area}"
    """


def _rule_test(team: str, area: str, scale: int, *, early: bool = False) -> str:
    name = _camel(area)
    eval_time = "5m" if early else "20m"
    return f"""
        rule_files: [../../../rules/{team}/{area}.yml]
        evaluation_interval: 1m
        tests:
          - interval: 1m
            input_series:
              - series: '{area}_errors_total{{job="{area}",code="502"}}'
                values: '0+{30 * scale}x40'
              - series: '{area}_requests_total{{job="{area}"}}'
                values: '0+{100 * scale}x40'
              - series: '{area}_retry_queue_depth{{job="{area}"}}'
                values: '10+10x40'
            promql_expr_test:
              - expr: job:{area}_error_ratio:rate5m
                eval_time: 10m
                exp_samples:
                  - labels: 'job:{area}_error_ratio:rate5m{{code="502",job="{area}"}}'
                    value: 0.3
            alert_rule_test:
              - eval_time: {eval_time}
                alertname: {name}HighErrorRate
                exp_alerts:
                  - exp_labels: {{severity: page, team: {team}, job: {area}, code: "502"}}
                    exp_annotations:
                      summary: "High error rate on {area} ({area})"
                      runbook_url: "https://runbooks.example.invalid/{team}/{area}/HighErrorRate"
              - eval_time: 20m
                alertname: {name}RetryQueueBacklog
                exp_alerts: []
    """


#: Each area's unit tests, one file per region's traffic shape.
_VARIANTS = ["us_east", "eu_west", "ap_south", "burst"]


def _rules_project(root: Path, *, broken: str = "", early: str = "") -> None:
    for team, areas in _TEAMS.items():
        for area in areas:
            write(
                root,
                {
                    f"rules/{team}/{area}.yml": _rule_file(team, area, broken=area == broken),
                },
            )
            for scale, variant in enumerate(_VARIANTS, start=1):
                early_here = (area, variant) == (early, "eu_west")
                write(
                    root, {f"tests/{team}/{area}/{variant}_test.yml": _rule_test(team, area, scale, early=early_here)}
                )


def _prom_config(env: str, *, bad_regex: bool = False) -> str:
    jobs = []
    for team, areas in _TEAMS.items():
        for area in areas:
            regex = f"{area}_(.*" if bad_regex and area == "exception_report" else f"{area}_(.*)"
            jobs.append(
                f"""
  - job_name: {area}
    scrape_interval: 30s
    metrics_path: /metrics
    static_configs:
      - targets: ["{area.replace("_", "-")}.{env}.svc:9102", "{area.replace("_", "-")}-worker.{env}.svc:9102"]
        labels: {{team: {team}, env: {env}}}
    relabel_configs:
      - source_labels: [__address__]
        regex: "([^:]+):\\\\d+"
        target_label: instance
      - source_labels: [__meta_service]
        regex: "{regex}"
        target_label: service
    metric_relabel_configs:
      - source_labels: [__name__]
        regex: "go_gc_.*"
        action: drop"""
            )
    return (
        f"global:\n  scrape_interval: 15s\n  evaluation_interval: 30s\n  external_labels: {{env: {env}}}\n"
        'alerting:\n  alertmanagers:\n    - static_configs: [{targets: ["alertmanager:9093"]}]\n'
        "rule_files:\n"
        + "".join(f'  - "rules/{team}/*.yml"\n' for team in _TEAMS)
        + "scrape_configs:"
        + "".join(jobs)
        + "\n"
    )


# ---------------------------------------------------------------- promtool


@case(
    "u97_check_config_envs_bad_relabel",
    "promtool check config",
    clean=False,
    group=GROUP,
    decisive=[
        "Checking prometheus-prod-eu.yml",
        "error parsing regexp: missing closing ): `^(?:exception_report_(.*)$`",
    ],
)
def _check_config_bad(root: Path) -> bytes:
    _rules_project(root)
    for env in _ENVS:
        write(root, {f"prometheus-{env}.yml": _prom_config(env, bad_regex=env == "prod-eu")})
    files = " ".join(f"prometheus-{env}.yml" for env in _ENVS)
    return _settle(sh(f"promtool check config {files}", root), root)


@case(
    "u97_check_config_envs_clean",
    "promtool check config",
    clean=True,
    group=GROUP,
    decisive=[" SUCCESS: prometheus-perf.yml is valid prometheus config file syntax"],
)
def _check_config_clean(root: Path) -> bytes:
    _rules_project(root)
    for env in _ENVS:
        write(root, {f"prometheus-{env}.yml": _prom_config(env)})
    files = " ".join(f"prometheus-{env}.yml" for env in _ENVS)
    return _settle(sh(f"promtool check config {files}", root), root)


@case(
    "u97_check_rules_promql_parse_error",
    "promtool check rules",
    clean=False,
    group=GROUP,
    decisive=[
        "Checking rules/platform/retry_queue.yml",
        'rules/platform/retry_queue.yml: 6:15: group "retry_queue.recording", rule 1, "job:retry_queue_errors:rate5m"',
    ],
)
def _check_rules_bad(root: Path) -> bytes:
    _rules_project(root, broken="retry_queue")
    # the retry_queue rules have no unit tests yet, so the tests below do not load the broken file
    shutil.rmtree(root / "tests/platform/retry_queue")
    return _settle(
        sh(
            "st=0; promtool check rules rules/*/*.yml || st=1; promtool test rules tests/*/*/*.yml || st=1; exit $st",
            root,
        ),
        root,
    )


@case(
    "u97_test_rules_alert_got_empty",
    "promtool test rules",
    clean=False,
    group=GROUP,
    decisive=[
        "Unit Testing:  tests/data/error_budget/eu_west_test.yml",
        "alertname: ErrorBudgetHighErrorRate, time: 5m",
        "got:[]",
    ],
)
def _test_rules_bad(root: Path) -> bytes:
    _rules_project(root, early="error_budget")
    return _settle(sh("promtool test rules tests/*/*/*.yml || st=1; exit $st", root), root)


@case(
    "u97_monitoring_ci_clean",
    "promtool check config, check rules, test rules",
    clean=True,
    group=GROUP,
    decisive=[
        " SUCCESS: prometheus.yml is valid prometheus config file syntax",
        "Unit Testing:  tests/support/sla/us_east_test.yml",
    ],
)
def _monitoring_ci(root: Path) -> bytes:
    _rules_project(root)
    write(root, {"prometheus.yml": _prom_config("prod-us-east")})
    script = (
        'echo "==> promtool check config prometheus.yml"; promtool check config prometheus.yml && '
        'echo "==> promtool check rules"; promtool check rules rules/*/*.yml && '
        'echo "==> promtool test rules"; promtool test rules tests/*/*/*.yml'
    )
    return _settle(sh(script, root), root)


def _openmetrics(root: Path) -> None:
    """A day of samples every 5 minutes, each metric family's series together, as OpenMetrics wants them."""
    start = 1_700_000_000
    jobs = ("failed_payments", "retry_queue", "exception_report", "refunds", "orders", "invoice")
    text = "# TYPE error_codes counter\n"
    for job in jobs:
        for code in ("429", "500", "502", "503"):
            text += "".join(
                f'error_codes_total{{code="{code}",job="{job}"}} {t // 60} {start + t}\n' for t in range(0, 86_400, 300)
            )
    text += "# TYPE failed_payments counter\n"
    for job in jobs:
        text += "".join(
            f'failed_payments_total{{job="{job}",reason="card_declined"}} {t // 900} {start + t}\n'
            for t in range(0, 86_400, 300)
        )
    (root / "failed_payments.om").write_text(text + "# EOF\n")


@case(
    "u97_tsdb_import_analyze_clean",
    "promtool tsdb create-blocks-from openmetrics, tsdb list, tsdb analyze",
    clean=True,
    group=GROUP,
    decisive=["2023-11-15 22:03:20 +0000 UTC  2023-11-15 22:08:20 +0000 UTC"],
)
def _tsdb(root: Path) -> bytes:
    _openmetrics(root)
    script = (
        "promtool tsdb create-blocks-from openmetrics failed_payments.om data && promtool tsdb list -r data && "
        "for b in $(ls data | grep -v wal | sort); do promtool tsdb analyze --limit=30 data $b; echo; done"
    )
    return _ties_sorted(_settle(sh(script, root), root))


def _ties_sorted(out: bytes) -> bytes:
    """``out`` with each ``tsdb analyze`` list's lines of equal count in name order (Go's map order breaks ties)."""
    lines, run = [], []
    for line in [*out.decode().split("\n"), ""]:
        count = line.split(" ", 1)[0]
        if count.isdigit() and " " in line:
            run.append(line)
            continue
        lines += sorted(run, key=lambda item: (-int(item.split(" ", 1)[0]), item))
        run = []
        lines.append(line)
    return "\n".join(lines[:-1]).encode()


# ---------------------------------------------------------------- amtool


def _am_config(team: str, areas: list[str], *, undefined: str = "") -> str:
    routes = []
    receivers = [f"  - name: {team}-default\n"]
    for area in areas:
        for kind, sev in (("pager", "page"), ("tickets", "ticket")):
            rcv = f"{area.replace('_', '-')}-{kind}"
            target = undefined if undefined and area == areas[2] and kind == "pager" else rcv
            routes.append(
                f"    - matchers: ['job=\"{area}\"', 'severity=\"{sev}\"']\n      receiver: {target}\n"
                f"      group_by: [alertname, job, code]\n      continue: false\n"
            )
            receivers.append(
                f"  - name: {rcv}\n    webhook_configs:\n"
                f"      - url: 'http://127.0.0.1:9/{team}/{area}/{kind}'\n        send_resolved: true\n"
            )
        routes.append(
            f"    - matchers: ['alertname=~\"{_camel(area)}(HighErrorRate|ExceptionReportSpike)\"']\n"
            f"      receiver: {area.replace('_', '-')}-pager\n"
        )
    return (
        "global:\n  resolve_timeout: 5m\n"
        f"route:\n  receiver: {team}-default\n  group_by: [alertname, job]\n  routes:\n"
        + "".join(routes)
        + "receivers:\n"
        + "".join(receivers)
        + 'templates: ["templates/*.tmpl"]\n'
        + "inhibit_rules:\n  - source_matchers: ['severity=\"page\"']\n"
        + "    target_matchers: ['severity=\"ticket\"']\n    equal: [job]\n"
    )


def _am_project(root: Path, *, undefined: str = "") -> list[str]:
    names = []
    for team, areas in _TEAMS.items():
        for region in ("us", "eu", "ap", "sa", "af", "in", "jp", "au"):
            name = f"alertmanager/{team}-{region}.yml"
            bad = undefined if (team, region) == ("data", "jp") else ""
            write(root, {name: _am_config(team, areas, undefined=bad)})
            names.append(name)
    for area in ("failed_payments", "error_codes", "retry_queue", "exception_report"):
        write(root, {f"alertmanager/templates/{area}.tmpl": f'{{{{ define "{area}.title" }}}}{area}{{{{ end }}}}\n'})
    return names


@case(
    "u97_amtool_loop_undefined_receiver",
    "amtool check-config, amtool config routes show",
    clean=False,
    group=GROUP,
    decisive=[
        "Checking 'alertmanager/data-jp.yml'  FAILED: undefined receiver \"retry-storms-oncall\" used in route",
        "amtool: error: failed to validate 1 file(s)",
    ],
)
def _amtool_bad(root: Path) -> bytes:
    names = _am_project(root, undefined="retry-storms-oncall")
    script = "st=0; for f in " + " ".join(names) + "; do "
    script += (
        'echo "### $f"; if amtool check-config "$f"; then amtool config routes show --config.file="$f"; '
        "else st=1; fi; echo; done; exit $st"
    )
    return _settle(sh(script, root), root)


@case(
    "u97_amtool_check_config_teams_clean",
    "amtool check-config",
    clean=True,
    group=GROUP,
    decisive=["Checking 'alertmanager/support-au.yml'  SUCCESS"],
)
def _amtool_clean(root: Path) -> bytes:
    names = _am_project(root)
    return _settle(sh("amtool check-config " + " ".join(names), root), root)


def _route_checks(*, wrong: tuple[str, str] = ("", "")) -> list[str]:
    checks = []
    for team, areas in _TEAMS.items():
        for area in areas:
            dash = area.replace("_", "-")
            for alert, sev, want in (
                (f"{_camel(area)}HighErrorRate", "page", f"{dash}-pager"),
                (f"{_camel(area)}RetryQueueBacklog", "ticket", f"{dash}-tickets"),
            ):
                if (area, sev) == wrong:
                    want = f"{dash}-pager"
                checks.append(
                    f'echo "== {alert} job={area} severity={sev} -> {want}"; '
                    f"amtool config routes test --config.file=am.yml --verify.receivers={want} "
                    f"alertname={alert} job={area} severity={sev} team={team} || st=1"
                )
    return checks


def _merged_am(root: Path) -> None:
    areas = [a for areas in _TEAMS.values() for a in areas]
    write(root, {"am.yml": _am_config("ops", areas)})
    write(root, {"templates/errors.tmpl": '{{ define "errors.title" }}errors{{ end }}\n'})


@case(
    "u97_amtool_routes_test_mismatch",
    "amtool config routes test",
    clean=False,
    group=GROUP,
    decisive=[
        "== ExceptionsEtlRetryQueueBacklog job=exceptions_etl severity=ticket -> exceptions-etl-pager",
        "exceptions-etl-tickets",
        "WARNING: Expected receivers did not match resolved receivers.",
    ],
)
def _routes_bad(root: Path) -> bytes:
    _merged_am(root)
    checks = _route_checks(wrong=("exceptions_etl", "ticket"))
    return _settle(sh("st=0; " + "; ".join(checks) + "; exit $st", root), root)


@case(
    "u97_amtool_routes_show_test_clean",
    "amtool config routes show, amtool config routes test",
    clean=True,
    group=GROUP,
    decisive=["Checking 'am.yml'  SUCCESS", " - 73 receivers"],
)
def _routes_clean(root: Path) -> bytes:
    _merged_am(root)
    checks = _route_checks()
    script = "st=0; amtool check-config am.yml && amtool config routes show --config.file=am.yml; "
    return _settle(sh(script + "; ".join(checks) + "; exit $st", root), root)
