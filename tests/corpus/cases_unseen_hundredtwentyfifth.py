"""Held-out outputs (group ``unseen-125``): a hundred-and-twenty-fifth batch, scheduled jobs as an ops agent inspects
them offline: the cron folders of a generated payments desk, ``paydesk``, whose jobs are named after business words
(``failed-payments``, ``error-codes``, ``retry-queue``, ``exceptions-digest``, ``refunds-settle`` ...) and print
batch counts of failed payments, error codes and retries as data, run by Debian's run-parts, anacron, flock, cronic
and at.

Failing runs: ``run-parts --report`` over a ``cron.daily`` of 36 jobs where the refunds settlement exits 3 in the
middle on a CSV without its ``refund_id`` column, ``run-parts --verbose`` over a ``cron.weekly`` of 24 jobs where the
third one is killed by its CPU limit (signal 24) with a long tail after it, ``anacron -d -f -n`` over 34 jobs then
their logs, where one job's ``exit status: 4`` is said only by anacron (anacron itself exits 0), a ``cron.hourly`` of
30 ``flock -n`` guarded jobs where the retry queue's lock is still held by the previous hour's run, a nightly
failed-payments classifier under ``cronic`` that dies on an unknown error code (cronic exits 0, only its report says
``RESULT CODE: 1``), and a rerun scheduler that queues 48 ``at`` jobs where one date is February 30th. Clean runs
full of those business words: ``run-parts --report`` over 32 daily jobs with deprecation warnings on stderr,
``anacron -d -f -n`` over 30 jobs then their logs, an ``at``/``batch`` queue of retries listed with ``atq`` and one
job shown with ``at -c``, and a ``cronic`` run whose job only warns on stderr (``RESULT CODE: 0``) plus a
``cron.hourly`` of ``flock -w`` guarded jobs where one waits for its lock. Labels were written with each scenario,
before the engine saw the output. Needs run-parts and flock (Debian ``debianutils``, ``util-linux``), anacron, at,
cronic (Debian ``anacron``, ``at``, ``cronic``) and Python 3; atd need not run.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-125"

#: The jobs of the payments desk, in the order their cron folders run them.
_JOBS = [
    "billing-sync", "failed-payments", "error-codes", "retry-queue", "exceptions-digest", "refunds-settle",
    "invoices-issue", "ledger-close", "chargebacks", "disputes", "payouts", "settlements", "tax-report",
    "currency-rates", "fees-accrue", "statements", "dunning", "card-updater", "fraud-score", "webhooks-replay",
    "dead-letters", "audit-trail", "export-warehouse", "coupons-expire", "cart-abandoned", "orders-archive",
    "shipping-labels", "catalog-reindex", "search-reindex", "pricing-refresh", "session-purge", "auth-tokens",
    "alerts-rollup", "reconcile-bank", "subscriptions-renew", "credit-notes",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, dates, durations and at's job numbers."""
    return substitute(
        scrub(out, root),
        (r"started on \d{4}-\d\d-\d\d", "started on 2030-03-15"),
        (r"getting lock took \d+\.\d+ seconds", "getting lock took 0.000004 seconds"),
        (r"^job \d+ at", "job N at"),
        (r"^job N at \w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d (?!2030)\d{4}$", "job N at Fri Mar 15 09:00:00 2030"),
        (r"^cd \S+ \|\| \{$", "cd /tmp/work || {"),
        (r"^\d+\t", "N\t"),
        (r"^(N\t)\w{3} \w{3} [ \d]\d \d\d:\d\d:\d\d \d{4} b", r"\1Fri Mar 15 09:00:00 2030 b"),
    )


def _job(name: str, k: int, n: int, *, tail: str = "", head: str = "", merge: bool = False) -> str:
    """A cron job of the desk: ``n`` batches of records with their failed payments, retries and error codes, a
    summary line, then ``tail`` (shell); ``merge`` sends the job's stderr to its stdout as many cron scripts do."""
    return f"""\
#!/bin/sh
# paydesk cron job: {name} (batch {k})
set -u
{"exec 2>&1" if merge else ""}
{head}
awk -v job={name} -v n={n} -v k={k} 'BEGIN {{
  recs = 0; fails = 0; retr = 0; errs = 0
  for (i = 1; i <= n; i++) {{
    seen = 180 + (i * 37 + k * 11) % 120
    failed = (i * 7 + k) % 9
    retried = (i * 5 + k) % 4
    recs += seen; fails += failed; retr += retried
    printf "%s: batch %03d/%03d records=%d settled=%d failed_payments=%d retries=%d\\n", \\
      job, i, n, seen, seen - failed, failed, retried
    if (failed >= 7) {{
      errs += 1
      printf "%s: batch %03d error_codes E-0412 card_declined=%d E-0451 insufficient_funds=2 E-0500 gateway=%d\\n", \\
        job, i, failed - 5, (i + k) % 3
    }}
    if ((i + k) % 13 == 0)
      printf "%s: batch %03d moved %d exceptions to exceptions_inbox, retry attempt %d/5 scheduled\\n", \\
        job, i, retried + 1, retried + 1
  }}
  printf "%s: %d batches, %d records, %d failed payments queued for retry, %d batches with error codes\\n", \\
    job, n, recs, fails, errs
}}'
{tail}
"""


_DEPRECATED = 'echo "{name}: DeprecationWarning: paydesk.settle_legacy() is deprecated, use settle_batch()" >&2\n'
_SLOW = 'echo "{name}: warning: retry_queue depth {depth} above soft limit 400 (hard limit 2000)" >&2\n'


def _folder(root: Path, folder: str, names: list[str], n: int, special: dict[str, str] | None = None) -> None:
    """``etc/FOLDER`` with one job per name (numbered 10, 12, 14 ...); ``special`` replaces a job's tail."""
    special = special or {}
    files = {}
    for i, name in enumerate(names):
        tail = special.get(name, "")
        if not tail and i % 5 == 2:
            tail = _DEPRECATED.format(name=name)
        elif not tail and i % 7 == 4:
            tail = _SLOW.format(name=name, depth=400 + i * 3)
        files[f"etc/{folder}/{10 + 2 * i:02d}-{name}"] = _job(name, i, n + (i * 7) % 11, tail=tail)
    write(root, files)
    sh(f"chmod +x etc/{folder}/*", root)


# ---------------------------------------------------------------- run-parts


_REFUNDS_CHECK = """\
hdr=$(head -n 1 data/settlements/refunds-0314.csv)
case ",$hdr," in
  *,refund_id,*) echo "refunds-settle: settlement file has refund ids" ;;
  *) echo "refunds-settle: cannot settle refunds: data/settlements/refunds-0314.csv has no column refund_id" \\
       "(header: $hdr)" >&2
     exit 3 ;;
esac
"""


@case(
    "u125_runparts_report_exit",
    "run-parts --report",
    clean=False,
    group=GROUP,
    decisive=[
        "refunds-settle: cannot settle refunds: data/settlements/refunds-0314.csv has no column refund_id",
        "run-parts: etc/cron.daily/56-refunds-settle exited with return code 3",
        "[exit status 1]",
    ],
)
def _runparts_report_exit(root: Path) -> bytes:
    others = [j for j in _JOBS if j != "refunds-settle"]
    names = [*others[:23], "refunds-settle", *others[23:]]
    _folder(root, "cron.daily", names, 40, special={"refunds-settle": _REFUNDS_CHECK})
    write(
        root,
        {
            "data/settlements/refunds-0314.csv": """\
                id,charge_id,amount,currency,status
                rf_0001,ch_8812,1250,EUR,pending
                rf_0002,ch_8813,990,EUR,failed
            """
        },
    )
    return _settle(sh("run-parts --report etc/cron.daily", root), root)


@case(
    "u125_runparts_report_clean",
    "run-parts --report",
    clean=True,
    group=GROUP,
    decisive=[
        "run-parts digest: 31 jobs ran before the digest, exit codes all 0",
        "reconcile-bank: 31 batches",
    ],
)
def _runparts_report_clean(root: Path) -> bytes:
    names = _JOBS[:31]
    names[-1] = "reconcile-bank"
    tails = {n: f'echo "{n} 0" >> var/run/paydesk-status\n' for n in names}
    files = {}
    for i, name in enumerate(names):
        tail = tails[name]
        if i % 4 == 1:
            tail = _DEPRECATED.format(name=name) + tail
        files[f"etc/cron.daily/{10 + 2 * i:02d}-{name}"] = _job(name, i + 3, 24 + (i * 5) % 13, tail=tail)
    files["etc/cron.daily/99-digest"] = """\
        #!/bin/sh
        # paydesk cron job: digest of the daily run
        total=$(wc -l < var/run/paydesk-status)
        bad=$(awk '$2 != 0' var/run/paydesk-status | wc -l)
        awk '{ printf "digest: %-20s exit %s\\n", $1, $2 }' var/run/paydesk-status
        if [ "$bad" -eq 0 ]; then
          echo "run-parts digest: $total jobs ran before the digest, exit codes all 0"
        else
          echo "run-parts digest: $total jobs ran before the digest, $bad exited non-zero"
          exit 1
        fi
    """
    write(root, files)
    (root / "var/run").mkdir(parents=True)
    sh("chmod +x etc/cron.daily/*", root)
    return _settle(sh("run-parts --report etc/cron.daily", root), root)


_ARCHIVE = """\
echo "exceptions-archive: packing 412 exception reports of the week into archive/exceptions-w11.pack"
ulimit -St 1
exec python3 -c '
import hashlib
for week in range(1, 12):
    print(f"exceptions-archive: week {week:02d}: indexed {30 + week * 7} exception reports", flush=True)
print("exceptions-archive: computing the dedup digest of 412 reports", flush=True)
data = b"exceptions" * 1000
while True:
    data = hashlib.sha256(data).digest() * 1000
'
"""


@case(
    "u125_runparts_verbose_signal",
    "run-parts --verbose",
    clean=False,
    group=GROUP,
    decisive=[
        "run-parts: etc/cron.weekly/14-exceptions-archive exited because of uncaught signal 24",
        "[exit status 1]",
    ],
)
def _runparts_verbose_signal(root: Path) -> bytes:
    names = ["billing-sync", "failed-payments", "exceptions-archive", *_JOBS[2:23]]
    files = {}
    for i, name in enumerate(names):
        tail = _SLOW.format(name=name, depth=410 + i) if i % 6 == 5 else ""
        head = _ARCHIVE if name == "exceptions-archive" else ""
        files[f"etc/cron.weekly/{10 + 2 * i:02d}-{name}"] = _job(name, i, 30 + (i * 3) % 17, tail=tail, head=head)
    write(root, files)
    sh("chmod +x etc/cron.weekly/*", root)
    return _settle(sh("run-parts --verbose etc/cron.weekly", root), root)


# ---------------------------------------------------------------- anacron


def _anacron(root: Path, names: list[str], failing: dict[str, str]) -> bytes:
    """An anacrontab of ``names`` (their jobs log to var/log/jobs), run in the foreground, then every job's log."""
    lines = ["SHELL=/bin/sh", "PATH=/usr/bin:/bin", 'MAILTO=""', ""]
    files = {}
    for i, name in enumerate(names):
        files[f"jobs/{name}.sh"] = _job(name, i + 5, 18 + (i * 3) % 9, tail=failing.get(name, ""))
        period = 7 if i % 4 == 3 else 1
        ident = f"paydesk.{name.replace('-', '_')}"
        lines.append(f"{period}\t0\t{ident}\tsh {root}/jobs/{name}.sh >> {root}/var/log/jobs/{name}.log 2>&1")
    files["etc/anacrontab"] = "\n".join(lines) + "\n"
    write(root, files)
    (root / "var/log/jobs").mkdir(parents=True)
    (root / "var/spool/anacron").mkdir(parents=True)
    logs = " ".join(f"var/log/jobs/{n}.log" for n in names)
    cmd = (
        "anacron -d -f -n -t etc/anacrontab -S var/spool/anacron; "
        f'for f in {logs}; do echo "==> $f <=="; cat "$f"; done'
    )
    return _settle(sh(cmd, root), root)


_LEDGER_CLOSE = """\
echo "ledger-close: period 2030-03 has 3 unposted journal entries (je_4471, je_4472, je_4490); refusing to close" >&2
exit 4
"""


@case(
    "u125_anacron_job_status",
    "anacron -d",
    clean=False,
    group=GROUP,
    decisive=[
        "Job `paydesk.ledger_close' terminated (exit status: 4)",
        "ledger-close: period 2030-03 has 3 unposted journal entries (je_4471, je_4472, je_4490); refusing to close",
    ],
)
def _anacron_job_status(root: Path) -> bytes:
    names = _JOBS[:7] + _JOBS[8:22] + ["ledger-close"] + _JOBS[22:34]
    return _anacron(root, names, {"ledger-close": _LEDGER_CLOSE})


@case(
    "u125_anacron_clean",
    "anacron -d",
    clean=True,
    group=GROUP,
    decisive=["Normal exit (30 jobs run)", "Job `paydesk.credit_notes' terminated"],
)
def _anacron_clean(root: Path) -> bytes:
    names = [*_JOBS[6:35], "credit-notes"]
    return _anacron(root, names, {n: _DEPRECATED.format(name=n) for n in names[::6]})


# ---------------------------------------------------------------- flock


def _hourly(root: Path, names: list[str], lock_opts: str) -> None:
    """``etc/cron.hourly``: each job runs under ``flock LOCK_OPTS`` on its own lock file, stderr merged."""
    files = {}
    for i, name in enumerate(names):
        files[f"jobs/{name}.sh"] = _job(name, i + 9, 16 + (i * 5) % 15)
        files[f"etc/cron.hourly/{10 + 3 * i:02d}-{name}"] = f"""\
            #!/bin/sh
            # paydesk hourly: {name}, one run at a time
            exec flock --verbose {lock_opts} var/lock/{name}.lock sh jobs/{name}.sh 2>&1
        """
    write(root, files)
    (root / "var/lock").mkdir(parents=True)
    sh("chmod +x etc/cron.hourly/*", root)


_HOLD = (
    'python3 -c \'import fcntl, sys, time; f = open(sys.argv[1], "w"); fcntl.flock(f, fcntl.LOCK_EX); '
    'open(sys.argv[2], "w").close(); time.sleep(float(sys.argv[3]))\' '
)


@case(
    "u125_flock_lock_taken",
    "run-parts --report (flock -n)",
    clean=False,
    group=GROUP,
    decisive=[
        "flock: failed to get lock",
        "run-parts: etc/cron.hourly/85-retry-queue exited with return code 1",
        "[exit status 1]",
    ],
)
def _flock_lock_taken(root: Path) -> bytes:
    names = [j for j in _JOBS[:31] if j != "retry-queue"]
    names.insert(25, "retry-queue")
    names = names[:30]
    _hourly(root, names, "-n")
    cmd = (
        f"{_HOLD} var/lock/retry-queue.lock var/run-held 60 </dev/null >/dev/null 2>&1 & holder=$!; "
        "while [ ! -e var/run-held ]; do sleep 0.05; done; "
        "run-parts --report etc/cron.hourly; rc=$?; kill $holder; exit $rc"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u125_flock_wait_clean",
    "run-parts --report (flock -w)",
    clean=True,
    group=GROUP,
    decisive=["etc/cron.hourly/13-failed-payments:", "failed-payments: 21 batches"],
)
def _flock_wait_clean(root: Path) -> bytes:
    names = _JOBS[:28]
    _hourly(root, names, "-w 30")
    cmd = (
        f"{_HOLD} var/lock/failed-payments.lock var/run-held 0.3 </dev/null >/dev/null 2>&1 & holder=$!; "
        "while [ ! -e var/run-held ]; do sleep 0.05; done; "
        "run-parts --report etc/cron.hourly; rc=$?; wait $holder; exit $rc"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- cronic


_CLASSIFIER = '''\
"""Nightly: classify the declined charges of every merchant file by error code, queue the retryable ones."""

import csv
import sys
import warnings
from pathlib import Path

ERROR_CODES = {
    "E-0412": ("card_declined", True),
    "E-0451": ("insufficient_funds", True),
    "E-0461": ("expired_card", False),
    "E-0500": ("gateway_error", True),
    "E-0503": ("gateway_timeout", True),
    "E-0599": ("fraud_suspected", False),
}


def classify(path):
    counts = {}
    retry = 0
    for row in csv.DictReader(path.open()):
        name, retryable = ERROR_CODES[row["error_code"]]
        counts[name] = counts.get(name, 0) + 1
        retry += retryable
    return counts, retry


def main():
    warnings.warn("merchants/ layout v1 is deprecated; move to merchants/v2/ before paydesk 3.0", DeprecationWarning)
    total = queued = 0
    files = sorted(Path("data/merchants").glob("*.csv"))
    for path in files:
        counts, retry = classify(path)
        total += sum(counts.values())
        queued += retry
        detail = ", ".join(f"{k}={v}" for k, v in sorted(counts.items()))
        print(f"nightly-failed-payments: {path.stem}: {sum(counts.values())} declined charges ({detail}); "
              f"{retry} queued for retry")
    print(f"nightly-failed-payments: {len(files)} merchant files read, {total} declined charges classified, "
          f"{queued} queued for retry, 0 unclassified")


if __name__ == "__main__":
    warnings.simplefilter("always")
    sys.exit(main())
'''

_MERCHANTS = [f"{w}-{s}" for s in ("eu", "us") for w in _JOBS[:20]]


def _merchants(root: Path, bad: str = "") -> None:
    codes = list(("E-0412", "E-0451", "E-0461", "E-0500", "E-0503", "E-0599"))
    files = {"jobs/nightly_failed_payments.py": _CLASSIFIER}
    for m, merchant in enumerate(_MERCHANTS):
        rows = ["charge_id,amount,currency,error_code"]
        for r in range(30 + (m * 7) % 25):
            code = codes[(r * 5 + m) % 6]
            if merchant == bad and r == 17:
                code = "E-0999"
            rows.append(f"ch_{m:02d}{r:04d},{100 + (r * 37) % 900},EUR,{code}")
        files[f"data/merchants/{merchant}.csv"] = "\n".join(rows) + "\n"
    write(root, files)


@case(
    "u125_cronic_traceback",
    "cronic",
    clean=False,
    group=GROUP,
    decisive=["RESULT CODE: 1", "KeyError: 'E-0999'"],
)
def _cronic_traceback(root: Path) -> bytes:
    _merchants(root, bad="refunds-settle-eu")
    return _settle(sh("cronic python3 jobs/nightly_failed_payments.py", root), root)


@case(
    "u125_cronic_warning_clean",
    "cronic",
    clean=True,
    group=GROUP,
    decisive=["RESULT CODE: 0", "nightly-failed-payments: 40 merchant files read"],
)
def _cronic_warning_clean(root: Path) -> bytes:
    _merchants(root)
    return _settle(sh("cronic python3 jobs/nightly_failed_payments.py", root), root)


# ---------------------------------------------------------------- at


_RERUN = """\
#!/bin/sh
# rerun one failed paydesk job: $1
exec sh jobs/$1.sh
"""

_SCHEDULE = """\
#!/bin/sh
# schedule-reruns QUEUE LIST: queue an at job per line "job HH:MM YYYY-MM-DD" of LIST, then list the queue
q=$1; list=$2; n=0; bad=0
atq -q "$q" | cut -f1 | xargs -r atrm
while read -r job time date; do
  n=$((n + 1))
  echo "schedule-reruns: [$n] $job at $time $date"
  if ! echo "sh bin/rerun.sh $job" | env -i PATH=/usr/bin:/bin HOME=/root LOGNAME=root at -q "$q" "$time" "$date"; then
    echo "schedule-reruns: [$n] could not queue the rerun of $job"
    bad=$((bad + 1))
  fi
done < "$list"
echo "schedule-reruns: queue $q now holds:"
atq -q "$q" | sort -k6,6n -k3,3M -k4,4n -k5,5 -k1,1n
echo "schedule-reruns: $n reruns read, $((n - bad)) queued, $bad refused"
atq -q "$q" | cut -f1 | xargs -r atrm
[ "$bad" -eq 0 ]
"""


def _reruns(root: Path, count: int, *, feb30: int = -1) -> None:
    lines = []
    for i in range(count):
        job = _JOBS[i % len(_JOBS)]
        day = 14 + i // 16
        date = "2030-02-30" if i == feb30 else f"2030-03-{day:02d}"
        lines.append(f"{job} {i % 16 + 2:02d}:{(i * 15) % 60:02d} {date}")
    write(root, {"bin/rerun.sh": _RERUN, "bin/schedule-reruns": _SCHEDULE, "reruns.txt": "\n".join(lines) + "\n"})
    _job_files = {f"jobs/{j}.sh": _job(j, i, 10) for i, j in enumerate(_JOBS)}
    write(root, _job_files)


@case(
    "u125_at_reruns_garbled",
    "at",
    clean=False,
    group=GROUP,
    decisive=[
        "Error in day of month. Last token seen: 2030-02-30",
        "schedule-reruns: [40] could not queue the rerun of retry-queue",
        "schedule-reruns: 48 reruns read, 47 queued, 1 refused",
        "[exit status 1]",
    ],
)
def _at_reruns_garbled(root: Path) -> bytes:
    _reruns(root, 48, feb30=39)
    return _settle(sh("sh bin/schedule-reruns r reruns.txt", root), root)


_SHOW = """\
#!/bin/sh
# queue the retries of failed payments and the reindex batch jobs, then show the queues and one job
for q in p b; do atq -q $q | cut -f1 | xargs -r atrm; done
run() { env -i PATH=/usr/bin:/bin HOME=/root LOGNAME=root "$@"; }
i=0
for area in billing failed-payments retry-queue refunds chargebacks error-codes exceptions dunning payouts ledger; do
  for hour in 01 03 05 07 09; do
    i=$((i + 1))
    echo "sh jobs/retry-queue.sh # retry $area" | run at -q p "$hour:$((i % 6))0" 2030-03-16
  done
done
for j in catalog-reindex search-reindex export-warehouse audit-trail; do
  echo "sh jobs/$j.sh" | run batch
done
echo "== retries (queue p)"
atq -q p | sort -k6,6n -k3,3M -k4,4n -k5,5 -k1,1n
echo "== batch jobs (queue b)"
atq -q b | sort -k1,1n
first=$(atq -q p | sort -k6,6n -k3,3M -k4,4n -k5,5 -k1,1n | head -n 1 | cut -f1)
echo "== at -c of the first retry"
at -c "$first" | sed 's/^# atrun uid=.*/# atrun uid=0 gid=0/'
echo "queued $(atq -q p | wc -l) retries in queue p and $(atq -q b | wc -l) batch jobs in queue b"
for q in p b; do atq -q $q | cut -f1 | xargs -r atrm; done
"""


@case(
    "u125_at_queue_clean",
    "at / atq",
    clean=True,
    group=GROUP,
    decisive=["queued 50 retries in queue p and 4 batch jobs in queue b", "Sat Mar 16 01:10:00 2030 p root"],
)
def _at_queue_clean(root: Path) -> bytes:
    _reruns(root, 0)
    write(root, {"bin/show-queues": _SHOW})
    return _settle(sh("sh bin/show-queues", root), root)
