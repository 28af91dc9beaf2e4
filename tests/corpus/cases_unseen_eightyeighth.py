"""Held-out outputs (group ``unseen-88``): an eighty-eighth batch, shell scripts as an agent runs and debugs them:
``bash -x`` and ``set -x`` traces of deploy, backup and ETL scripts written in the scenario, ``sh -x`` under dash,
``make --trace`` and ``make -n`` over a generated Makefile, ``bash -nv`` syntax checks, ``xargs -P`` fan-outs, GNU
``parallel`` with ``--halt soon,fail=1`` and ``--joblog``, and ``timeout`` killing a stuck step.

Failing runs: ``bash -x`` of a deploy script (``set -euo pipefail``, a ``PS4`` with file and line) whose ``cp`` of the
``refunds-api`` artifact fails in the middle, then its EXIT trap's long cleanup; ``bash -x`` of a ledger backup that
stops at an unbound ``RETENTION_DAYS`` after 40 tables; ``bash -x`` of a refunds ETL whose pipeline's middle command
(a Python normalizer) dies with a traceback on one day's file, caught by ``pipefail`` and an ERR trap; ``make --trace
-k`` of 48 reports where ``tax_2024_q2`` has a malformed row; a ``bash -nv`` loop over 36 scripts where
``retry_queue_drain.sh`` has a stray ``fi``; ``xargs -P 3`` of 18 ledger loads, one child rejecting a row, then the
children's logs with ``tail -n +1``; GNU ``parallel --halt soon,fail=1 --joblog -k --tag`` of 20 shard jobs where one
fails; and a ``set -x`` nightly job where ``timeout -v`` kills the stuck ``reconcile_ledger`` step among 9. Clean runs
named after errors, failures and retries: ``sh -x`` (dash) of ``export_failed_payments.sh``, ``make -n`` then ``make``
of ``error_codes``, ``retry_queue`` and ``exception_report`` targets, ``bash -x`` of ``build_exception_report.sh`` and
GNU ``parallel`` replaying failed webhooks with its job log. Labels were written with each scenario, before the engine
saw the output. Needs bash, dash, GNU make, findutils' xargs, coreutils' timeout, gawk, sqlite3 and GNU parallel
(Debian ``bash``, ``dash``, ``make``, ``findutils``, ``coreutils``, ``gawk``, ``sqlite3``, ``parallel``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-88"

_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "ledger", "invoice", "shipping", "catalog", "pricing",
    "coupons", "webhooks", "audit", "export", "session", "auth",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times in job logs, durations."""
    return substitute(
        scrub(out, root),
        (r"^(\d+\t:\t)\d+\.\d+\t +\d+\.\d+\t", r"\g<1>1700000000.000\t     0.010\t"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
    )


def _script(root: Path, rel: str, text: str) -> None:
    write(root, {rel: text})
    (root / rel).chmod(0o755)


# ---------------------------------------------------------------- bash -x: deploy stops at a failing cp


_SERVICES = [
    "billing-api", "orders-worker", "retry-scheduler", "errors-collector", "ledger-sync", "refunds-api",
    "invoice-renderer", "webhooks-relay", "audit-trail",
]  # fmt: skip
_KEYS = [
    "db_host", "db_port", "pool_size", "retry_limit", "error_budget", "timeout_ms", "log_level", "queue_name",
    "dead_letter", "metrics_port",
]  # fmt: skip


@case(
    "u88_bash_x_deploy_cp_fails",
    "bash -x",
    clean=False,
    group=GROUP,
    decisive=[
        "cp: cannot stat 'artifacts/refunds-api-2024.07.3.tar.gz': No such file or directory",
        "deploy_billing.sh:37: cp artifacts/refunds-api-2024.07.3.tar.gz",
        "cleanup: deploy aborted (exit 1)",
    ],
)
def _bash_x_deploy(root: Path) -> bytes:
    values = []
    for i, svc in enumerate(_SERVICES):
        for j, key in enumerate(_KEYS):
            values.append(f"{svc}.{key}={svc.split('-')[0]}_{key}_{(i * 7 + j * 3) % 50}")
    write(root, {"config/values.env": "\n".join(values) + "\n"})
    for svc in _SERVICES:
        if svc == "refunds-api":
            continue
        write(root, {f"src/{svc}/VERSION": "2024.07.3\n", f"src/{svc}/bin/run": f"exec /opt/{svc}/server\n"})
        sh(f"mkdir -p artifacts && tar -czf artifacts/{svc}-2024.07.3.tar.gz -C src {svc}", root)
    services = " ".join(_SERVICES)
    keys = " ".join(_KEYS)
    _script(
        root,
        "deploy_billing.sh",
        f"""
        #!/usr/bin/env bash
        # Stage one release of the billing platform: render each service's config, check its artifact.
        set -euo pipefail
        if [ -n "${{TRACE:-}}" ]; then
          PS4='+ ${{BASH_SOURCE##*/}}:${{LINENO}}: '
          set -x
        fi
        RELEASE=2024.07.3
        SERVICES=({services})
        STAGE=stage/$RELEASE

        cleanup() {{
          local rc=$?
          if [ "$rc" -ne 0 ]; then
            echo "cleanup: deploy aborted (exit $rc)"
          fi
          for f in "$STAGE"/*; do
            rm -f "$f"
          done
          rmdir "$STAGE"
        }}
        trap cleanup EXIT

        render_config() {{
          local svc=$1 key val
          for key in {keys}; do
            val=$(awk -F= -v k="$svc.$key" '$1 == k {{ print $2 }}' config/values.env)
            printf '%s=%s\\n' "$key" "$val" >> "$STAGE/$svc.conf"
          done
        }}

        mkdir -p "$STAGE"
        for svc in "${{SERVICES[@]}}"; do
          echo "staging $svc $RELEASE"
          render_config "$svc"
          wc -l < "$STAGE/$svc.conf" > /dev/null
          cp "artifacts/$svc-$RELEASE.tar.gz" "$STAGE/"
          tar -tzf "$STAGE/$svc-$RELEASE.tar.gz" > /dev/null
          echo "staged $svc"
        done
        echo "release $RELEASE staged: ${{#SERVICES[@]}} services"
        """,
    )
    return _settle(sh("TRACE=1 ./deploy_billing.sh", root), root)


# ---------------------------------------------------------------- bash -x: backup stops at an unbound variable


@case(
    "u88_bash_x_backup_unbound",
    "bash -x",
    clean=False,
    group=GROUP,
    decisive=["RETENTION_DAYS: unbound variable"],
)
def _bash_x_backup(root: Path) -> bytes:
    tables = [f"{a}_{t}" for a in _AREAS[:10] for t in ("entries", "retry_queue", "errors", "archive")]
    rows = []
    for n, t in enumerate(tables):
        rows.append(f"CREATE TABLE {t}(id INTEGER PRIMARY KEY, ref TEXT, cents INTEGER, status TEXT);")
        rows.append(
            f"WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < {20 + n}) "
            f"INSERT INTO {t}(ref, cents, status) SELECT '{t}-' || i, i * 137 % 9000, 'posted' FROM c;"
        )
    write(root, {"schema.sql": "\n".join(rows) + "\n", "backup.conf": "RETENTION_DAY=14\nKEEP_MONTHLY=6\n"})
    sh("sqlite3 ledger.db < schema.sql", root)
    _script(
        root,
        "backup_ledger.sh",
        """
        #!/usr/bin/env bash
        # Nightly backup of the ledger database: one compressed dump per table, a manifest, then pruning.
        set -euo pipefail
        source ./backup.conf
        DB=ledger.db
        DEST=backups/2024-07-15
        mkdir -p "$DEST"

        dump_table() {
          local table=$1
          sqlite3 "$DB" ".dump $table" > "$DEST/$table.sql"
          gzip -n "$DEST/$table.sql"
          local rows
          rows=$(sqlite3 "$DB" "SELECT count(*) FROM $table")
          printf '%s\\t%s\\n' "$table" "$rows" >> "$DEST/MANIFEST"
          echo "dumped $table ($rows rows)"
        }

        for table in $(sqlite3 "$DB" "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name"); do
          dump_table "$table"
        done
        total=$(awk -F'\\t' '{ s += $2 } END { print s }' "$DEST/MANIFEST")
        echo "backup of $(wc -l < "$DEST/MANIFEST") tables done: $total rows"

        # prune old backups
        find backups -mindepth 1 -maxdepth 1 -type d -mtime +"$RETENTION_DAYS" -print -exec rm -rf {} +
        echo "pruned backups older than $RETENTION_DAYS days, keeping $KEEP_MONTHLY monthly"
        """,
    )
    return _settle(sh("bash -x ./backup_ledger.sh", root), root)


# ---------------------------------------------------------------- bash -x: the middle of a pipeline fails


@case(
    "u88_bash_x_etl_pipeline_middle",
    "bash -x (pipefail)",
    clean=False,
    group=GROUP,
    decisive=[
        "ValueError: invalid literal for int() with base 10: 'N/A'",
        "normalize.py: refunds_2024-07-19.csv line 143",
        "ETL step normalize_refunds failed (exit 1)",
    ],
)
def _bash_x_etl(root: Path) -> bytes:
    for day in range(1, 29):
        lines = ["refund_id,order_id,amount_cents,reason,status"]
        for i in range(1, 181):
            amount = "N/A" if day == 19 and i == 142 else str((i * 311 + day * 17) % 20000)
            reason = ["damaged", "late", "duplicate", "error_charge", "failed_delivery"][(i + day) % 5]
            lines.append(f"R{day:02d}{i:04d},O{i * 13 % 9999:04d},{amount},{reason},approved")
        write(root, {f"incoming/refunds_2024-07-{day:02d}.csv": "\n".join(lines) + "\n"})
    write(
        root,
        {
            "etl/normalize.py": """
                import csv
                import sys

                name = sys.argv[1]
                reader = csv.reader(sys.stdin)
                for lineno, row in enumerate(reader, start=2):
                    refund_id, order_id, amount, reason = row
                    try:
                        cents = int(amount)
                    except ValueError:
                        print(f"normalize.py: {name} line {lineno}: bad amount {amount!r}", file=sys.stderr)
                        raise
                    print(f"{reason},{order_id},{cents / 100:.2f}")
            """,
        },
    )
    _script(
        root,
        "etl_refunds.sh",
        """
        #!/usr/bin/env bash
        # Daily refunds ETL: normalise each day's export, aggregate per reason, load the summary.
        set -eo pipefail
        step=setup
        on_error() {
          local rc=$?
          printf 'ETL step %s failed (exit %d)\\n' "$step" "$rc" >&2
        }
        trap on_error ERR

        mkdir -p staging out
        for file in incoming/refunds_*.csv; do
          day=$(basename "$file" .csv)
          step=normalize_refunds
          { set +x; } 2> /dev/null  # the pipeline's own trace lines interleave
          tail -n +2 "$file" | cut -d, -f1-4 | python3 etl/normalize.py "$(basename "$file")" \\
            | sort -t, -k1,1 \\
            | awk -F, '{ n[$1]++; s[$1] += $3 } END { for (r in n) printf "%s,%d,%.2f\\n", r, n[r], s[r] }' \\
            > "staging/$day.csv"
          set -x
          step=load_summary
          while IFS=, read -r reason count total; do
            echo "$day reason=$reason count=$count total=$total" >> out/summary.log
          done < "staging/$day.csv"
          echo "loaded $day: $(wc -l < "staging/$day.csv") reasons"
        done
        step=publish
        sort out/summary.log > out/refunds_summary.txt
        echo "refunds ETL done: $(wc -l < out/refunds_summary.txt) summary rows"
        """,
    )
    return _settle(sh("bash -x ./etl_refunds.sh", root), root)


# ---------------------------------------------------------------- sh -x under dash: a clean export


_CODES = [
    ("E1001", "card_declined"), ("E1002", "insufficient_funds"), ("E1007", "expired_card"),
    ("E1013", "do_not_honor"), ("E1021", "processing_error"), ("E1034", "fraud_suspected"),
    ("E1042", "gateway_timeout"), ("E1055", "duplicate_charge"), ("E1061", "currency_mismatch"),
    ("E1077", "retry_exhausted"), ("E1080", "invalid_cvc"), ("E1093", "exception_unhandled"),
]  # fmt: skip


@case(
    "u88_dash_x_export_failed_payments_clean",
    "sh -x (dash)",
    clean=True,
    group=GROUP,
    decisive=["export_failed_payments: wrote 288 rows to out/failed_payments.csv"],
)
def _dash_export(root: Path) -> bytes:
    write(root, {"error_codes.txt": "\n".join(f"{c} {n}" for c, n in _CODES) + "\n"})
    queue = []
    for i in range(288):
        code, _name = _CODES[(i * 5) % len(_CODES)]
        queue.append(f"pay_{i:05d} {code} {(i * 977) % 50000} attempt={1 + i % 4}")
    write(root, {"retry_queue.txt": "\n".join(queue) + "\n"})
    _script(
        root,
        "export_failed_payments.sh",
        """
        #!/bin/sh
        # Export the failed payments of the retry queue with their error codes, for the finance team.
        set -eu
        OUT=out/failed_payments.csv
        mkdir -p out work
        echo "payment_id,error_code,error_name,amount_cents,attempts" > "$OUT"

        lookup_error() {
          awk -v c="$1" '$1 == c { print $2 }' error_codes.txt
        }

        for code in $(cut -d' ' -f1 error_codes.txt); do
          name=$(lookup_error "$code")
          count=$(grep -c " $code " retry_queue.txt || true)
          echo "error code $code ($name): $count failed payments"
          grep " $code " retry_queue.txt > "work/$code.txt" || true
          while read -r payment c amount attempts; do
            echo "$payment,$c,$name,$amount,${attempts#attempt=}" >> "$OUT"
          done < "work/$code.txt"
        done
        rows=$(($(wc -l < "$OUT") - 1))
        echo "export_failed_payments: wrote $rows rows to $OUT"
        """,
    )
    return _settle(sh("sh -x ./export_failed_payments.sh", root), root)


# ---------------------------------------------------------------- make --trace -k: one report fails


def _report_makefile(root: Path, targets: list[str]) -> None:
    write(
        root,
        {
            "Makefile": "# Quarterly reports: one CSV per data file, then an index.\n"
            ".DELETE_ON_ERROR:\n"
            f"REPORTS := {' '.join(f'reports/{t}.csv' for t in targets)}\n\n"
            "all: reports/index.txt\n\n"
            "reports/index.txt: $(REPORTS)\n"
            "\tls reports/*.csv | sed 's|reports/||' > $@\n"
            '\t@echo "index: $$(wc -l < $@) reports"\n\n'
            "reports/%.csv: data/%.raw scripts/aggregate.sh | reports\n"
            "\tsh scripts/aggregate.sh $< > $@\n\n"
            "reports:\n"
            "\tmkdir -p reports\n",
        },
    )


_AGGREGATE = """
#!/bin/sh
# Sum the amount of each account in a raw ledger extract (4 fields: date account kind amount).
set -e
tmp=$(mktemp)
awk -v src="$1" '
  NF != 4 { printf "aggregate: %s:%d: expected 4 fields, got %d\\n", src, NR, NF > "/dev/stderr"; bad = 1; exit 2 }
  { sum[$2] += $4; n[$2]++ }
  END { if (!bad) for (a in n) printf "%s,%d,%.2f\\n", a, n[a], sum[a] }
' "$1" > "$tmp"
sort "$tmp"
rm -f "$tmp"
"""


@case(
    "u88_make_trace_keep_going",
    "make --trace -k",
    clean=False,
    group=GROUP,
    decisive=[
        "aggregate: data/tax_2024_q2.raw:17: expected 4 fields, got 3",
        "[Makefile:12: reports/tax_2024_q2.csv] Error 2",
        "Target 'all' not remade because of errors.",
    ],
)
def _make_trace(root: Path) -> bytes:
    targets = [f"{a}_2024_q{q}" for a in _AREAS[:12] for q in range(1, 5)]
    for n, t in enumerate(targets):
        rows = [f"2024-0{1 + i % 9}-1{i % 10} acct{(i * 7 + n) % 9} {['debit', 'credit'][i % 2]} {i * 3.5:.2f}"
                for i in range(40)]  # fmt: skip
        if t == "tax_2024_q2":
            rows[16] = "2024-05-16 acct3 12.50"
        write(root, {f"data/{t}.raw": "\n".join(rows) + "\n"})
    _report_makefile(root, targets)
    _script(root, "scripts/aggregate.sh", _AGGREGATE)
    return _settle(sh("make --trace -k", root), root)


# ---------------------------------------------------------------- make -n then make: a clean build


@case(
    "u88_make_dry_run_then_build_clean",
    "make -n / make",
    clean=True,
    group=GROUP,
    decisive=["exception_report.html: 16 areas, 48 error codes, 0 unresolved"],
)
def _make_clean(root: Path) -> bytes:
    rules = [
        "# Error-handling catalogue: error codes, retry queues and exception reports of every area.",
        f"AREAS := {' '.join(_AREAS)}",
        "ERRORS := $(AREAS:%=out/%_error_codes.json)",
        "RETRY := $(AREAS:%=out/%_retry_queue.csv)",
        "EXC := $(AREAS:%=out/%_exceptions.txt)",
        "",
        "all: out/exception_report.html",
        "",
        "out/%_error_codes.json: src/%.errors | out",
        '\tawk \'BEGIN { printf "[" } { printf "%s{\\"code\\": \\"%s\\", \\"name\\": \\"%s\\"}", '
        '(NR > 1 ? "," : ""), $$1, $$2 } END { print "]" }\' $< > $@',
        "",
        "out/%_retry_queue.csv: src/%.errors | out",
        "\tawk '{ printf \"%s,retry,%d\\n\", $$1, NR }' $< > $@",
        "",
        "out/%_exceptions.txt: src/%.errors | out",
        "\tgrep -c . $< > $@",
        "",
        "out/exception_report.html: $(ERRORS) $(RETRY) $(EXC)",
        "\techo '<h1>Exception report</h1>' > $@",
        '\tfor f in $(EXC); do echo "<p>$$f: $$(cat $$f) error codes</p>" >> $@; done',
        '\t@echo "exception_report.html: $(words $(AREAS)) areas,'
        " $$(cat $(EXC) | awk '{ s += $$1 } END { print s }') error codes, 0 unresolved\"",
        "",
        "out:",
        "\tmkdir -p out",
    ]
    write(root, {"Makefile": "\n".join(rules) + "\n"})
    for n, area in enumerate(_AREAS):
        codes = [f"{area.upper()}_E{n:02d}{k} {area}_{w}" for k, w in enumerate(["failed", "retry", "exception"])]
        write(root, {f"src/{area}.errors": "\n".join(codes) + "\n"})
    return _settle(sh("make -n && echo '--- dry run ok, building' && make", root), root)


# ---------------------------------------------------------------- bash -nv: a syntax check over 36 scripts


_SCRIPT_NAMES = [
    f"{a}_{v}" for a in ("billing", "ledger", "orders", "retry_queue", "webhooks", "audit")
    for v in ("backup", "drain", "export", "import", "prune", "report")
]  # fmt: skip


def _ops_script(name: str, broken: bool) -> str:
    area = name.rsplit("_", 1)[0]
    lines = [
        "#!/usr/bin/env bash",
        f"# {name}.sh: maintenance task for the {area} service.",
        "set -euo pipefail",
        f"LOG=/var/log/ops/{name}.log",
        f'QUEUE="${{QUEUE:-{area}}}"',
        "",
        "log() {",
        '  printf \'%s %s\\n\' "$(date -u +%FT%TZ)" "$*" >> "$LOG"',
        "}",
        "",
    ]
    for k in range(6):
        lines += [
            f"step_{k}() {{",
            f'  local batch="$QUEUE-{k}"',
            f'  if [ -s "/srv/{area}/$batch.pending" ]; then',
            '    log "processing $batch"',
            f'    wc -l < "/srv/{area}/$batch.pending"',
            "  else",
            '    log "nothing to do for $batch"',
            "  fi",
            "}",
            "",
        ]
    if broken:
        lines += ["retry_failed() {", '  for job in "$@"; do', '    log "retrying $job"', "  fi", "}", ""]
    lines += ["for k in 0 1 2 3 4 5; do step_$k; done", f'log "{name} done"', ""]
    return "\n".join(lines)


@case(
    "u88_bash_nv_syntax_check",
    "bash -nv",
    clean=False,
    group=GROUP,
    decisive=[
        "scripts/retry_queue_drain.sh: line 74: syntax error near unexpected token `fi'",
        "syntax check failed: scripts/retry_queue_drain.sh",
    ],
)
def _bash_nv(root: Path) -> bytes:
    for name in _SCRIPT_NAMES:
        write(root, {f"scripts/{name}.sh": _ops_script(name, broken=name == "retry_queue_drain")})
    cmd = 'for f in scripts/*.sh; do bash -nv "$f" || echo "syntax check failed: $f"; done'
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- xargs -P: one child of 18 fails


@case(
    "u88_xargs_p_ledger_load",
    "xargs -P",
    clean=False,
    group=GROUP,
    decisive=[
        "load_batch: incoming/ledger_2024_07.csv row 118: amount 'abc' is not a number",
        "load_all: xargs exited 123",
    ],
)
def _xargs_p(root: Path) -> bytes:
    months = [f"ledger_{y}_{m:02d}" for y in (2023, 2024) for m in range(1, 13)][6:]
    for n, m in enumerate(months):
        rows = [f"{m}-{i},acct{(i + n) % 11},{(i * 41 + n) % 700}.{i % 100:02d}" for i in range(1, 161)]
        if m == "ledger_2024_07":
            rows[116] = f"{m}-117,acct3,abc"
        write(root, {f"incoming/{m}.csv": "header\n" + "\n".join(rows) + "\n"})
    _script(
        root,
        "load_batch.sh",
        """
        #!/bin/sh
        # Validate one ledger extract and load it into the staging table (here: a sorted copy).
        file=$1
        echo "load_batch: start $file"
        awk -F, -v f="$file" '
          NR == 1 { next }
          $3 !~ /^[0-9]+\\.[0-9]+$/ {
            printf "load_batch: %s row %d: amount %c%s%c is not a number\\n", f, NR, 39, $3, 39; bad++
          }
          NR % 20 == 0 { printf "load_batch: %s: validated %d rows\\n", f, NR - 1 }
          END { exit bad ? 1 : 0 }
        ' "$file" || { echo "load_batch: $file rejected, nothing loaded"; exit 1; }
        sort -t, -k2,2 "$file" > "staging/$(basename "$file")"
        echo "load_batch: loaded $(($(wc -l < "$file") - 1)) rows from $file"
        """,
    )
    _script(
        root,
        "load_all.sh",
        """
        #!/bin/sh
        # Load every ledger extract, three at a time; each child writes its own log.
        mkdir -p staging logs
        rc=0
        ls incoming/*.csv | xargs -P 3 -I{} sh -c './load_batch.sh "$1" > "logs/$(basename "$1" .csv).log" 2>&1' _ {} \\
          || rc=$?
        tail -n +1 logs/*.log
        echo "load_all: $(ls staging | wc -l) of $(ls incoming | wc -l) extracts loaded"
        if [ "$rc" -ne 0 ]; then
          echo "load_all: xargs exited $rc"
          exit 1
        fi
        """,
    )
    return _settle(sh("./load_all.sh", root), root)


# ---------------------------------------------------------------- GNU parallel: halt soon,fail=1 with a job log


_SHARDS = [f"{a}-{k}" for a in ("orders", "refunds", "ledger", "invoice", "shipping") for k in range(4)]


def _shard_job(root: Path, name: str, failing: str) -> None:
    _script(
        root,
        name,
        f"""
        #!/bin/sh
        # Replay the failed webhook deliveries of one shard against the receiver stub.
        shard=$1
        i=1
        while [ $i -le 30 ]; do
          echo "delivery $shard/$i: status=200 attempts=$((1 + i % 3))"
          i=$((i + 1))
        done
        if [ "$shard" = "{failing}" ]; then
          sleep 2
          echo "replay: shard $shard: receiver returned 500 for delivery $shard/31 (signature mismatch)" >&2
          exit 4
        fi
        echo "replay: shard $shard done, 30 deliveries"
        """,
    )


@case(
    "u88_parallel_halt_soon_joblog",
    "GNU parallel",
    clean=False,
    group=GROUP,
    decisive=[
        "receiver returned 500 for delivery refunds-2/31 (signature mismatch)",
        "parallel: This job failed:",
        "\t4\t0\t./replay_shard.sh refunds-2",
    ],
)
def _parallel_halt(root: Path) -> bytes:
    _shard_job(root, "replay_shard.sh", "refunds-2")
    cmd = (
        "parallel --halt soon,fail=1 --joblog jobs.log -j2 -k --tag ./replay_shard.sh ::: "
        + " ".join(_SHARDS)
        + '; echo "parallel exit: $?"; sort -k1,1n jobs.log'
    )
    return _settle(sh(cmd, root), root)


@case(
    "u88_parallel_replay_failed_webhooks_clean",
    "GNU parallel",
    clean=True,
    group=GROUP,
    decisive=["replay_failed_webhooks: 20 shards, 600 deliveries replayed, 0 failed"],
)
def _parallel_clean(root: Path) -> bytes:
    _shard_job(root, "replay_failed_webhooks.sh", "none")
    cmd = (
        "parallel --joblog retry_jobs.log -j2 -k --tag ./replay_failed_webhooks.sh ::: "
        + " ".join(_SHARDS)
        + " && sort -k1,1n retry_jobs.log"
        + ' && echo "replay_failed_webhooks: $(tail -n +2 retry_jobs.log | wc -l) shards,'
        + " $(($(tail -n +2 retry_jobs.log | wc -l) * 30)) deliveries replayed,"
        + " $(awk 'NR > 1 && $7 != 0' retry_jobs.log | wc -l) failed\""
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- set -x with timeout: one stuck step


_STEPS = [
    "fetch_bank_statements", "import_orders", "import_refunds", "match_payments", "reconcile_ledger",
    "post_adjustments", "rebuild_invoice_index", "export_audit_trail", "notify_finance",
]  # fmt: skip


@case(
    "u88_timeout_stuck_reconcile",
    "timeout (set -x)",
    clean=False,
    group=GROUP,
    decisive=[
        "timeout: sending signal TERM to command ‘./steps/reconcile_ledger.sh’",
        "step reconcile_ledger: timed out after 2s (exit 124)",
        "nightly_reconcile: 8/9 steps ok, failed: reconcile_ledger",
    ],
)
def _timeout(root: Path) -> bytes:
    for n, step in enumerate(_STEPS):
        if step == "reconcile_ledger":
            body = (
                'echo "reconcile_ledger: matching 412 open items"\n'
                'echo "reconcile_ledger: waiting for lock locks/ledger.lock"\n'
                "exec sleep 30\n"
            )
        else:
            body = (
                f"for i in $(seq 1 {30 + n * 5}); do\n"
                f'  echo "{step}: batch $i processed ($((i * 25)) records, 0 errors)"\n'
                "done\n"
            )
        _script(root, f"steps/{step}.sh", f"#!/bin/sh\n# Nightly step {step}.\n{body}")
    steps = " ".join(_STEPS)
    _script(
        root,
        "nightly_reconcile.sh",
        f"""
        #!/usr/bin/env bash
        # Nightly finance run: each step gets a time limit; a failed step is recorded and the run goes on.
        set -x
        mkdir -p locks
        failed=()
        ok=0
        run_step() {{
          local step=$1 rc=0
          timeout -v 2 "./steps/$step.sh" || rc=$?
          if [ "$rc" -eq 124 ]; then
            echo "step $step: timed out after 2s (exit 124)"
            failed+=("$step")
          elif [ "$rc" -ne 0 ]; then
            echo "step $step: exit $rc"
            failed+=("$step")
          else
            ok=$((ok + 1))
          fi
        }}
        for step in {steps}; do
          run_step "$step"
        done
        set +x
        echo "nightly_reconcile: $ok/{len(_STEPS)} steps ok, failed: ${{failed[*]:-none}}"
        [ "${{#failed[@]}}" -eq 0 ]
        """,
    )
    return _settle(sh("./nightly_reconcile.sh", root), root)


# ---------------------------------------------------------------- bash -x: a clean exception report


@case(
    "u88_bash_x_exception_report_clean",
    "bash -x",
    clean=True,
    group=GROUP,
    decisive=["exception report written: reports/exception_report.csv (16 areas, 0 unresolved)"],
)
def _bash_x_clean(root: Path) -> bytes:
    for n, area in enumerate(_AREAS):
        lines = []
        for i in range(40):
            level = ["INFO", "WARN", "ERROR", "INFO"][(i + n) % 4]
            lines.append(f"2024-07-15T02:{i % 60:02d}:00Z {level} {area} job={i} retry={i % 3} resolved=yes")
        write(root, {f"logs/{area}.log": "\n".join(lines) + "\n"})
    _script(
        root,
        "build_exception_report.sh",
        """
        #!/usr/bin/env bash
        # Summarise last night's errors, retries and failed jobs per area into the exception report.
        set -euo pipefail
        REPORT=reports/exception_report.csv
        mkdir -p reports
        echo "area,errors,warnings,retries,failed_jobs,unresolved" > "$REPORT"

        count_errors() { grep -c ' ERROR ' "$1" || true; }
        count_warnings() { grep -c ' WARN ' "$1" || true; }
        count_retries() { grep -vc ' retry=0 ' "$1" || true; }
        count_failed_jobs() { grep -c ' ERROR .* retry=2 ' "$1" || true; }
        count_unresolved() { grep -c 'resolved=no' "$1" || true; }

        unresolved_total=0
        for log in logs/*.log; do
          area=$(basename "$log" .log)
          errors=$(count_errors "$log")
          warnings=$(count_warnings "$log")
          retries=$(count_retries "$log")
          failed_jobs=$(count_failed_jobs "$log")
          unresolved=$(count_unresolved "$log")
          unresolved_total=$((unresolved_total + unresolved))
          echo "$area,$errors,$warnings,$retries,$failed_jobs,$unresolved" >> "$REPORT"
        done
        areas=$(($(wc -l < "$REPORT") - 1))
        echo "exception report written: $REPORT ($areas areas, $unresolved_total unresolved)"
        """,
    )
    return _settle(sh("bash -x ./build_exception_report.sh", root), root)
