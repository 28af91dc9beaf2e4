"""Held-out outputs (group ``unseen-124``): a hundred-and-twenty-fourth batch, command-line argument and usage errors
across CLI frameworks as an agent drives a payments platform's own tools, ``paygrid``, in long scripted runs: a driver
calls each tool dozens of times over a generated data folder of 30 CSV files named after business words
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``, ``refunds``, ``dead_letters`` ...), most
calls fine, all offline.

Failing runs: a bash driver calling an argparse refund tool 90 times where call 47 passes an invalid ``--reason``
choice (argparse's usage and ``invalid choice`` in the middle, the driver's count and exit 1 at the end), a click
``ledgerctl`` nightly run whose calls are piped through ``tee`` so that the one ``export`` call missing ``--period``
(near the start) says so only in click's own words and the run exits 0, a Python driver with ``check=True`` that
stops on a typer ``payouts send`` call given ``12.50`` for an integer option (typer's boxed error, then
``CalledProcessError``), ``make settle-all`` running a getopt_long C program 100 times where call 88 passes
``--dry_run`` (``unrecognized option`` just above a long tail, then make's error), ``xargs`` feeding 84 lines of
flags to a Go ``flag`` program where one line gives ``-max-attempts=five`` (Go's ``invalid value`` and its flag
listing in the middle, xargs' 123), a Node.js driver replaying webhooks through a commander script where one call
lacks the required ``--merchant``, and ``npm run export-all`` over a yargs script in strict mode where one call asks
for ``--format xlsx`` (yargs' help text, ``Invalid values:``, npm's own error). Clean runs full of those words: the
argparse tool's help and 40 calls with ``--legacy-codes`` deprecation warnings, the click tool's help and a nightly
run with a deprecated ``sync-errors`` command, the Go tool's ``-h`` (exit 0) and 80 drains of failed-payment
queues, and the commander tool's help and 60 replays with Node's ``DeprecationWarning``. Labels were written with
each scenario, before the engine saw the output. Needs Python 3 with click 8.1.8 and typer 0.15.1 from PyPI (a
virtual environment of their own under ``/tmp/offloader-corpus-venvs/u124-cli``), gcc and make, Go 1.19 (Debian
``golang-go``), Node.js 20 with npm, and commander 12.1.0 and yargs 17.7.2 from the npm registry (installed once
under ``/tmp/u124-tools``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-124"

_TOOLS = Path("/tmp/u124-tools")
_CLI_REQS = (
    "click==8.1.8 typer==0.15.1 rich==15.0.0 shellingham==1.5.4 typing_extensions==4.16.0 markdown-it-py==4.3.0"
    " mdurl==0.1.2 Pygments==2.21.0"
)
_ENV = {"COLUMNS": "120", "PYTHONDONTWRITEBYTECODE": "1"}

#: The 30 data files of the platform, one per business area.
_WORDS = [
    "failed_payments", "error_codes", "retry_queue", "exceptions", "refunds", "chargebacks", "disputes", "payouts",
    "settlements", "invoices", "ledger", "fees", "tax", "webhooks", "failed_webhooks", "dead_letters", "audit",
    "fraud_alerts", "declines", "reversals", "adjustments", "statements", "reconciliation", "currency",
    "subscriptions", "dunning", "write_offs", "error_log", "billing", "retries",
]  # fmt: skip

_STATUSES = ["settled", "failed", "retrying", "error", "refunded", "pending", "failed"]
_CODES = ["E1001_card_declined", "E2040_insufficient_funds", "E5003_gateway_timeout", "E4090_duplicate_charge",
          "E7001_fraud_suspected", "E3002_expired_card"]  # fmt: skip
_CURRENCIES = ["EUR", "USD", "GBP", "CHF"]


def _csv(i: int, word: str, n: int = 36) -> str:
    rows = ["id,merchant,amount_cents,currency,status,error_code"]
    for k in range(n):
        status = _STATUSES[(i * 5 + k * 3) % len(_STATUSES)]
        code = "-" if status in ("settled", "refunded", "pending") else _CODES[(i + k) % len(_CODES)]
        amount = 150 + (i * 977 + k * 331) % 48000
        cur = _CURRENCIES[(i + k) % 4]
        rows.append(f"{word[:3].upper()}-{i:02d}{k:03d},m_{(i * 13 + k * 7) % 97:03d},{amount},{cur},{status},{code}")
    return "\n".join(rows) + "\n"


def _data(root: Path) -> None:
    write(root, {f"data/{w}.csv": _csv(i, w) for i, w in enumerate(_WORDS)})


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"\(node:\d+\)", "(node:4242)"))


def _cli_venv() -> Path:
    return make_venv(VENVS / "u124-cli", _CLI_REQS)


def _node_modules() -> Path:
    """commander and yargs, installed once under ``/tmp/u124-tools``."""
    mods = _TOOLS / "node_modules"
    if not (mods / "commander").exists() or not (mods / "yargs").exists():
        _TOOLS.mkdir(parents=True, exist_ok=True)
        sh(
            "npm install --no-audit --no-fund --silent commander@12.1.0 yargs@17.7.2",
            _TOOLS,
            env={"npm_config_update_notifier": "false"},
        )
    return mods


# ---------------------------------------------------------------- argparse: refund_batch.py

_REFUND_BATCH = '''\
#!/usr/bin/env python3
"""Queue refunds for the refundable rows of a paygrid data file."""
import argparse
import csv
import sys

REASONS = ["duplicate", "fraudulent", "requested_by_customer", "failed_payment", "expired_card"]


def main(argv=None):
    p = argparse.ArgumentParser(
        prog="refund_batch.py",
        description="Queue refunds for failed, errored and retrying payments of one data file. "
        "Rows whose error code is E7001_fraud_suspected are routed to the exceptions inbox instead.",
        epilog="Exit codes: 0 all rows handled, 2 usage error, 3 too many errors (see --max-errors).",
    )
    p.add_argument("--input", required=True, help="CSV file of payments (id, merchant, amount_cents, ...)")
    p.add_argument("--reason", required=True, choices=REASONS, help="refund reason sent to the gateway")
    p.add_argument("--currency", choices=["EUR", "USD", "GBP", "CHF"], help="only refund rows in this currency")
    p.add_argument("--max-errors", type=int, default=25, metavar="N",
                   help="abort with exit 3 after N failed refunds (default: %(default)s)")
    p.add_argument("--dry-run", action="store_true", help="print what would be refunded, queue nothing")
    p.add_argument("--legacy-codes", action="store_true",
                   help="DEPRECATED: print numeric error codes only (E1001 instead of E1001_card_declined)")
    args = p.parse_args(argv)
    if args.legacy_codes:
        print("refund_batch.py: warning: --legacy-codes is deprecated and will be removed in paygrid 5.0; "
              "use the symbolic error codes", file=sys.stderr, flush=True)
    with open(args.input, newline="") as fh:
        rows = list(csv.DictReader(fh))
    print(f"refund_batch: {args.input}: {len(rows)} rows, reason={args.reason}, currency={args.currency or 'any'}"
          f"{' (dry run)' if args.dry_run else ''}")
    queued = skipped = inbox = 0
    for row in rows:
        if args.currency and row["currency"] != args.currency:
            skipped += 1
            continue
        if row["status"] not in ("failed", "error", "retrying"):
            skipped += 1
            continue
        code = row["error_code"].split("_")[0] if args.legacy_codes else row["error_code"]
        if row["error_code"].startswith("E7001"):
            inbox += 1
            print(f"  {row['id']}  {row['merchant']}  {int(row['amount_cents']):>6} {row['currency']}"
                  f"  status={row['status']:<8} error_code={code:<24} -> exceptions inbox")
            continue
        queued += 1
        print(f"  {row['id']}  {row['merchant']}  {int(row['amount_cents']):>6} {row['currency']}"
              f"  status={row['status']:<8} error_code={code:<24} -> refund queued")
    print(f"refund_batch: {queued} refunds queued, {inbox} sent to exceptions inbox, {skipped} skipped, 0 errors")
    return 0


if __name__ == "__main__":
    sys.exit(main())
'''

_RUN_REFUNDS = """\
#!/usr/bin/env bash
# Queue refunds for every data file, once per refund reason.
calls=0; ok=0; failed=0
run() {
  calls=$((calls + 1))
  echo "== call $calls: refund_batch.py $*"
  if python3 tools/refund_batch.py "$@"; then ok=$((ok + 1)); else
    rc=$?; failed=$((failed + 1)); echo "run_refunds: call $calls exited $rc"; fi
}
while read -r input reason currency extra; do
  if [ "$currency" = "-" ]; then run --input "$input" --reason "$reason" $extra
  else run --input "$input" --reason "$reason" --currency "$currency" $extra; fi
done < refund_calls.txt
echo "run_refunds: $calls calls, $ok ok, $failed failed"
[ "$failed" -eq 0 ]
"""

_REASONS = ["duplicate", "failed_payment", "requested_by_customer"]


def _refund_calls(n: int, *, bad: int = 0, extra: str = "") -> str:
    lines = []
    for k in range(n):
        word = _WORDS[k % len(_WORDS)]
        reason = "chargeback-reversal" if k + 1 == bad else _REASONS[(k // len(_WORDS)) % 3]
        cur = "-" if k % 4 == 0 else _CURRENCIES[k % 4]
        lines.append(f"data/{word}.csv {reason} {cur} {extra}".rstrip())
    return "\n".join(lines) + "\n"


def _refund_project(root: Path, calls: str) -> None:
    _data(root)
    write(root, {"tools/refund_batch.py": _REFUND_BATCH, "run_refunds.sh": _RUN_REFUNDS, "refund_calls.txt": calls})


@case(
    "u124_argparse_invalid_choice",
    "bash driver (python argparse)",
    clean=False,
    group=GROUP,
    decisive=[
        "refund_batch.py: error: argument --reason: invalid choice: 'chargeback-reversal'",
        "run_refunds: 90 calls, 89 ok, 1 failed",
        "[exit status 1]",
    ],
)
def _argparse_invalid_choice(root: Path) -> bytes:
    _refund_project(root, _refund_calls(90, bad=47))
    return _settle(sh("bash run_refunds.sh", root, env=_ENV), root)


@case(
    "u124_argparse_help_deprecated_clean",
    "bash driver (python argparse)",
    clean=True,
    group=GROUP,
    decisive=["run_refunds: 40 calls, 40 ok, 0 failed", "usage: refund_batch.py [-h] --input INPUT"],
)
def _argparse_clean(root: Path) -> bytes:
    _refund_project(root, _refund_calls(40, extra="--legacy-codes"))
    help_out = sh("python3 tools/refund_batch.py --help", root, env=_ENV)
    return _settle(help_out + sh("bash run_refunds.sh", root, env=_ENV), root)


# ---------------------------------------------------------------- click: ledgerctl

_LEDGERCTL = '''\
"""ledgerctl: export, reconcile and retry the paygrid ledger."""
import csv
import sys

import click


def _rows(path):
    with open(path, newline="") as fh:
        return list(csv.DictReader(fh))


@click.group(help="Ledger tools of paygrid: exports, reconciliation of failed payments, retries of errored rows.")
def cli():
    pass


@cli.command(help="Export one period of a data file (rows with errors are exported too, flagged).")
@click.option("--input", "input_", required=True, type=click.Path(exists=True), help="CSV data file.")
@click.option("--period", required=True, help="Accounting period, YYYY-MM.")
@click.option("--format", "fmt", type=click.Choice(["csv", "json"]), default="csv", show_default=True)
def export(input_, period, fmt):
    rows = _rows(input_)
    errors = sum(1 for r in rows if r["error_code"] != "-")
    for r in rows[:12]:
        flag = " ERROR " + r["error_code"] if r["error_code"] != "-" else ""
        click.echo(f"  export {period} {r['id']} {r['amount_cents']:>6} {r['currency']} {r['status']}{flag}")
    click.echo(f"ledgerctl export: {input_} period {period}: {len(rows)} rows as {fmt}, {errors} flagged with errors")


@cli.command(help="Reconcile a data file against the ledger; unmatched rows become exceptions.")
@click.option("--input", "input_", required=True, type=click.Path(exists=True))
@click.option("--tolerance-cents", type=int, default=0, show_default=True)
def reconcile(input_, tolerance_cents):
    rows = _rows(input_)
    exceptions = [r for r in rows if r["status"] in ("error", "failed") and int(r["amount_cents"]) % 7 == 0]
    for r in exceptions:
        click.echo(f"  exception {r['id']} merchant {r['merchant']}: {r['error_code']} (status {r['status']})")
    click.echo(f"ledgerctl reconcile: {input_}: {len(rows) - len(exceptions)} matched, {len(exceptions)} exceptions "
               f"(tolerance {tolerance_cents} cents)")


@cli.command(help="Put failed and errored rows back on the retry queue.")
@click.option("--input", "input_", required=True, type=click.Path(exists=True))
@click.option("--max-attempts", type=click.IntRange(1, 10), default=3, show_default=True)
@click.option("--failed-only", is_flag=True, help="Skip rows in status error.")
def retry(input_, max_attempts, failed_only):
    rows = _rows(input_)
    wanted = ("failed",) if failed_only else ("failed", "error")
    picked = [r for r in rows if r["status"] in wanted]
    for r in picked:
        click.echo(f"  retry {r['id']} {r['error_code']} attempt 1/{max_attempts} -> retry_queue")
    click.echo(f"ledgerctl retry: {input_}: {len(picked)} rows requeued, max {max_attempts} attempts")


@cli.command("sync-errors", deprecated=True, help="Copy error codes to the legacy error table.")
@click.option("--input", "input_", required=True, type=click.Path(exists=True))
def sync_errors(input_):
    rows = _rows(input_)
    codes = sorted({r["error_code"] for r in rows if r["error_code"] != "-"})
    click.echo(f"ledgerctl sync-errors: {input_}: {len(codes)} error codes synced: {', '.join(codes)}")


@cli.command(help="Print the ledger totals of every data file.")
@click.argument("files", nargs=-1, type=click.Path(exists=True))
def summary(files):
    total = sum(len(_rows(f)) for f in files)
    click.echo(f"ledgerctl summary: {len(files)} files, {total} rows, ledger balanced")


if __name__ == "__main__":
    sys.exit(cli(prog_name="ledgerctl"))
'''

_NIGHTLY = """\
#!/usr/bin/env bash
# Nightly ledger run: export, reconcile and retry every data file; everything goes to nightly.log too.
: > nightly.log
period=2024-11
n=0
for f in data/*.csv; do
  n=$((n + 1))
  echo "-- [$n] $f"
  if [ "$f" = "data/audit.csv" ] && [ -n "$NIGHTLY_SKIP_PERIOD" ]; then
    ledgerctl export --input "$f" --format json 2>&1 | tee -a nightly.log
  else
    ledgerctl export --input "$f" --period "$period" 2>&1 | tee -a nightly.log
  fi
  ledgerctl reconcile --input "$f" --tolerance-cents 5 2>&1 | tee -a nightly.log
  ledgerctl retry --input "$f" --max-attempts 4 2>&1 | tee -a nightly.log
  if [ -n "$NIGHTLY_SYNC" ]; then ledgerctl sync-errors --input "$f" 2>&1 | tee -a nightly.log; fi
done
ledgerctl summary data/*.csv 2>&1 | tee -a nightly.log
echo "nightly: done, $(wc -l < nightly.log) lines in nightly.log"
"""


def _ledger_project(root: Path) -> dict[str, str]:
    venv = _cli_venv()
    _data(root)
    write(root, {"tools/ledgerctl.py": _LEDGERCTL, "nightly.sh": _NIGHTLY})
    shim = root / "bin" / "ledgerctl"
    shim.parent.mkdir()
    shim.write_text(f'#!/bin/sh\nexec {venv}/bin/python {root}/tools/ledgerctl.py "$@"\n')
    shim.chmod(0o755)
    return {**_ENV, "PATH": f"{root}/bin:/usr/bin:/bin"}


@case(
    "u124_click_missing_option_tee",
    "bash driver (python click)",
    clean=False,
    group=GROUP,
    decisive=["Usage: ledgerctl export [OPTIONS]", "Error: Missing option '--period'."],
)
def _click_missing(root: Path) -> bytes:
    env = _ledger_project(root)
    return _settle(sh("bash nightly.sh", root, env={**env, "NIGHTLY_SKIP_PERIOD": "1"}), root)


@case(
    "u124_click_deprecated_clean",
    "bash driver (python click)",
    clean=True,
    group=GROUP,
    decisive=["ledgerctl summary: 30 files, 1080 rows, ledger balanced", "nightly: done"],
)
def _click_clean(root: Path) -> bytes:
    env = _ledger_project(root)
    out = sh("ledgerctl --help && ledgerctl retry --help", root, env=env)
    return _settle(out + sh("bash nightly.sh", root, env={**env, "NIGHTLY_SYNC": "1"}), root)


# ---------------------------------------------------------------- typer: payouts

_PAYOUTS = '''\
"""payouts: send merchant payouts (typer)."""
from enum import Enum

import typer

app = typer.Typer(help="Merchant payouts of paygrid: send, hold after failed payments, release.")


class Currency(str, Enum):
    EUR = "EUR"
    USD = "USD"
    GBP = "GBP"
    CHF = "CHF"


@app.command()
def send(
    merchant: str = typer.Option(..., help="Merchant id, m_NNN."),
    amount_cents: int = typer.Option(..., help="Amount in cents."),
    currency: Currency = typer.Option(Currency.EUR),
    hold_on_errors: bool = typer.Option(True, help="Hold the payout when the merchant has open errors."),
):
    """Send one payout."""
    fee = max(25, amount_cents * 29 // 1000)
    typer.echo(f"payouts send: {merchant} {amount_cents} {currency.value} fee {fee} -> net {amount_cents - fee}")
    if amount_cents % 11 == 0 and hold_on_errors:
        typer.echo(f"payouts send: {merchant}: warning: 2 failed payments in the last 24h, payout held for review")
    else:
        typer.echo(f"payouts send: {merchant}: payout queued, error_count=0")


@app.command()
def release(merchant: str):
    """Release a held payout."""
    typer.echo(f"payouts release: {merchant}: released")


if __name__ == "__main__":
    app()
'''

_DRIVE_PAYOUTS = '''\
"""Send one payout per settled row of every data file."""
import csv
import glob
import subprocess
import sys

calls = 0
for path in sorted(glob.glob("data/*.csv")):
    with open(path, newline="") as fh:
        every = list(csv.DictReader(fh))
    rows = [r for r in every if r["status"] == "settled"]
    print(f"== {path}: {len(rows)} settled rows of {len(every)}", flush=True)
    for r in every:
        if r["status"] != "settled":
            print(f"   skip {r['id']} {r['merchant']} status={r['status']} error_code={r['error_code']}", flush=True)
    for r in rows:
        amount = r["amount_cents"]
        if r["id"] == sys.argv[1]:
            amount = f"{int(amount) // 100}.{int(amount) % 100:02d}"
        cmd = [sys.executable, "tools/payouts.py", "send", "--merchant", r["merchant"], "--amount-cents", amount,
               "--currency", r["currency"]]
        calls += 1
        subprocess.run(cmd, check=True)
print(f"drive_payouts: {calls} payouts sent", flush=True)
'''


@case(
    "u124_typer_bad_int_check_true",
    "python driver (typer)",
    clean=False,
    group=GROUP,
    decisive=[
        "Invalid value for '--amount-cents': '103.47' is not a valid integer.",
        "returned non-zero exit status 2.",
        "[exit status 1]",
    ],
)
def _typer_bad_int(root: Path) -> bytes:
    venv = _cli_venv()
    _data(root)
    write(root, {"tools/payouts.py": _PAYOUTS, "drive_payouts.py": _DRIVE_PAYOUTS})
    # the row whose amount the driver sends as a decimal, picked from the data written above
    out = sh(f"{venv}/bin/python -u drive_payouts.py REF-04019", root, env=_ENV)
    return _settle(out, root)


# ---------------------------------------------------------------- C getopt_long: settle

_SETTLE_C = r"""
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(FILE *out, const char *prog) {
    fprintf(out,
            "Usage: %s --merchant ID --period YYYY-MM [--currency CUR] [--max-fee CENTS] [--dry-run] [--verbose]\n"
            "Settle one merchant's period: sum settled payments, subtract fees, refunds and chargebacks,\n"
            "and write failed or errored payments to the exceptions file.\n"
            "  -m, --merchant ID      merchant id (m_NNN)\n"
            "  -p, --period YYYY-MM   accounting period\n"
            "  -c, --currency CUR     settlement currency (default EUR)\n"
            "  -f, --max-fee CENTS    fail the settlement when fees exceed CENTS\n"
            "  -n, --dry-run          compute only, write nothing\n"
            "  -v, --verbose          print every payment line\n"
            "Exit status: 0 settled, 64 usage error, 65 bad input data.\n",
            prog);
}

static int count_errors(const char *merchant, int error_budget) {
    int n = 0;
    for (const char *p = merchant; *p; p++) n += (*p - '0') % 3;
    return n;
}

int main(int argc, char **argv) {
    static const struct option opts[] = {
        {"merchant", required_argument, 0, 'm'}, {"period", required_argument, 0, 'p'},
        {"currency", required_argument, 0, 'c'}, {"max-fee", required_argument, 0, 'f'},
        {"dry-run", no_argument, 0, 'n'},        {"verbose", no_argument, 0, 'v'},
        {"help", no_argument, 0, 'h'},           {0, 0, 0, 0}};
    const char *merchant = NULL, *period = NULL, *currency = "EUR";
    long max_fee = 100000;
    int dry_run = 0, verbose = 0, c;
    while ((c = getopt_long(argc, argv, "m:p:c:f:nvh", opts, NULL)) != -1) {
        switch (c) {
        case 'm': merchant = optarg; break;
        case 'p': period = optarg; break;
        case 'c': currency = optarg; break;
        case 'f': max_fee = strtol(optarg, NULL, 10); break;
        case 'n': dry_run = 1; break;
        case 'v': verbose = 1; break;
        case 'h': usage(stdout, argv[0]); return 0;
        default: usage(stderr, argv[0]); return 64;
        }
    }
    if (!merchant || !period) {
        fprintf(stderr, "%s: --merchant and --period are required\n", argv[0]);
        usage(stderr, argv[0]);
        return 64;
    }
    int id = atoi(merchant + 2);
    long gross = 0, fees = 0, refunds = 0;
    int failed = 0;
    for (int k = 0; k < 12; k++) {
        long amount = 300 + (id * 733 + k * 419) % 25000;
        int is_failed = (id + k) % 5 == 0;
        if (is_failed) failed++;
        else gross += amount;
        fees += amount * 29 / 1000;
        if (k % 6 == 3) refunds += amount / 4;
        if (verbose)
            printf("  %s %s payment %02d %6ld %s %s\n", merchant, period, k, amount, currency,
                   is_failed ? "FAILED error_code=E2040_insufficient_funds -> exceptions" : "settled");
    }
    if (fees > max_fee) {
        fprintf(stderr, "%s: %s: fees %ld exceed --max-fee %ld\n", argv[0], merchant, fees, max_fee);
        return 65;
    }
    printf("settle: %s %s %s gross %ld fees %ld refunds %ld net %ld, %d failed payments to exceptions%s\n", merchant,
           period, currency, gross, fees, refunds, gross - fees - refunds, failed, dry_run ? " (dry run)" : "");
    (void)count_errors;
    return 0;
}
"""

_SETTLE_MK = """\
CC = gcc
CFLAGS = -O2 -Wall -Wextra

bin/settle: src/settle.c
\tmkdir -p bin
\t$(CC) $(CFLAGS) -o $@ $<

settle-all: bin/settle
\t./settle_all.sh

.PHONY: settle-all
"""

_SETTLE_ALL = """\
#!/usr/bin/env bash
# Settle every merchant of the period; keep going past a failed merchant, fail at the end.
failed=0; n=0
while read -r merchant flags; do
  n=$((n + 1))
  echo "[settle $n/100] $merchant $flags"
  ./bin/settle --merchant "$merchant" --period 2024-11 $flags || failed=$((failed + 1))
done < merchants.txt
echo "settle_all: $n merchants, $failed failed"
exit $((failed > 0))
"""


@case(
    "u124_getopt_unrecognized_long_tail",
    "make (C getopt_long)",
    clean=False,
    group=GROUP,
    decisive=[
        "./bin/settle: unrecognized option '--dry_run'",
        "settle_all: 100 merchants, 1 failed",
        "make: *** [Makefile:9: settle-all] Error 1",
    ],
)
def _getopt_unrecognized(root: Path) -> bytes:
    lines = []
    for k in range(1, 101):
        flags = "--verbose" if k % 3 else "--verbose --currency USD"
        if k == 88:
            flags = "--verbose --dry_run"
        lines.append(f"m_{k:03d} {flags}")
    write(root, {"src/settle.c": _SETTLE_C, "Makefile": _SETTLE_MK, "settle_all.sh": _SETTLE_ALL})
    (root / "settle_all.sh").chmod(0o755)
    (root / "merchants.txt").write_text("\n".join(lines) + "\n")
    return _settle(sh("make settle-all", root), root)


# ---------------------------------------------------------------- Go flag: retryq

_RETRYQ_GO = """\
package main

import (
	"flag"
	"fmt"
	"os"
	"time"
)

func main() {
	queue := flag.String("queue", "failed_payments", "queue to drain: failed_payments, failed_webhooks, dead_letters")
	maxAttempts := flag.Int("max-attempts", 5, "give up and dead-letter a message after this many failed attempts")
	backoff := flag.Duration("backoff", 30*time.Second, "delay between attempts")
	dryRun := flag.Bool("dry-run", false, "list the messages that would be retried, retry nothing")
	region := flag.String("region", "eu-west", "payment region")
	flag.Parse()
	if flag.NArg() > 0 {
		fmt.Fprintf(os.Stderr, "retryq: unexpected arguments: %v\\n", flag.Args())
		os.Exit(2)
	}
	n := 0
	for _, c := range *queue + *region {
		n += int(c)
	}
	requeued, dead := 0, 0
	for k := 0; k < 9; k++ {
		attempts := (n + k*7) % (*maxAttempts + 2)
		id := fmt.Sprintf("msg-%s-%03d", *region, (n*31+k*17)%1000)
		if attempts >= *maxAttempts {
			dead++
			fmt.Printf("  %s %s attempt %d/%d error=E5003_gateway_timeout -> dead_letters\\n",
				*queue, id, attempts, *maxAttempts)
		} else {
			requeued++
			wait := *backoff * time.Duration(attempts+1)
			fmt.Printf("  %s %s attempt %d/%d retry in %s\\n", *queue, id, attempts+1, *maxAttempts, wait)
		}
	}
	mode := ""
	if *dryRun {
		mode = " (dry run)"
	}
	fmt.Printf("retryq: queue %s region %s: %d requeued, %d dead-lettered%s\\n", *queue, *region, requeued, dead, mode)
}
"""

_GO_QUEUES = ["failed_payments", "failed_webhooks", "dead_letters", "retry_queue", "refunds", "chargebacks",
              "payouts"]  # fmt: skip
_GO_REGIONS = ["eu-west", "eu-central", "us-east", "us-west", "ap-south", "uk-south"]


def _retryq_build(root: Path) -> bytes:
    write(root, {"retryq/go.mod": "module paygrid/retryq\n\ngo 1.19\n", "retryq/main.go": _RETRYQ_GO})
    env = {"GOCACHE": str(_TOOLS / "gocache"), "GOPATH": str(_TOOLS / "gopath"), "GOPROXY": "off", "GOFLAGS": ""}
    return sh("cd retryq && go build -o ../bin/retryq . && echo 'built bin/retryq'", root, env=env)


def _retryq_lines(n: int, bad: int = 0) -> str:
    lines = []
    for k in range(1, n + 1):
        q, r = _GO_QUEUES[k % len(_GO_QUEUES)], _GO_REGIONS[k % len(_GO_REGIONS)]
        attempts = "five" if k == bad else str(3 + k % 4)
        extra = " -dry-run" if k % 10 == 0 else ""
        lines.append(f"-queue={q} -region={r} -max-attempts={attempts} -backoff={15 * (1 + k % 3)}s{extra}")
    return "\n".join(lines) + "\n"


@case(
    "u124_go_flag_invalid_value_xargs",
    "xargs (go flag)",
    clean=False,
    group=GROUP,
    decisive=['invalid value "five" for flag -max-attempts: parse error', "[exit status 123]"],
)
def _go_flag_invalid(root: Path) -> bytes:
    build = _retryq_build(root)
    (root / "drain.txt").write_text(_retryq_lines(84, bad=39))
    return _settle(build + sh("xargs -L1 ./bin/retryq < drain.txt", root), root)


@case(
    "u124_go_flag_help_clean",
    "xargs (go flag)",
    clean=True,
    group=GROUP,
    decisive=["retryq: queue payouts region eu-west:", "drained 80 queue batches, xargs exit 0"],
)
def _go_flag_clean(root: Path) -> bytes:
    build = _retryq_build(root)
    (root / "drain.txt").write_text(_retryq_lines(80))
    cmd = (
        "./bin/retryq -h; echo '-- draining'; xargs -L1 ./bin/retryq < drain.txt"
        " && echo 'drained 80 queue batches, xargs exit 0'"
    )
    return _settle(build + sh(cmd, root), root)


# ---------------------------------------------------------------- commander: webhook-replay.js

_REPLAY_JS = """\
#!/usr/bin/env node
const { program, Option } = require('commander');

program
  .name('webhook-replay')
  .description('Replay failed webhook deliveries of paygrid to a merchant endpoint')
  .requiredOption('--merchant <id>', 'merchant id (m_NNN)')
  .option('--events <types>', 'comma separated event types', 'payment.failed,refund.created')
  .option('--since <date>', 'replay deliveries that failed since this date', '2024-11-01')
  .option('--max-errors <n>', 'stop after this many delivery errors', (v) => parseInt(v, 10), 10)
  .addOption(new Option('--legacy-signature', 'sign with the v1 HMAC scheme (deprecated)'))
  .option('--dry-run', 'list deliveries, send nothing');
program.parse();
const o = program.opts();
if (o.legacySignature) {
  process.emitWarning('--legacy-signature (v1 HMAC) is deprecated; merchants must accept v2 signatures by 2025-06',
    'DeprecationWarning');
}
const id = parseInt(o.merchant.slice(2), 10);
const types = o.events.split(',');
let delivered = 0;
let gaveUp = 0;
for (let k = 0; k < 10; k++) {
  const type = types[(id + k) % types.length];
  const status = (id * 3 + k) % 9 === 0 ? 'error 503 (merchant endpoint unavailable), requeued' : '200 OK';
  if (status === '200 OK') delivered++; else gaveUp++;
  console.log(`  ${o.merchant} evt_${(id * 97 + k * 13) % 10000} ${type} since ${o.since}: ${status}`);
}
console.log(`webhook-replay: ${o.merchant}: ${delivered} delivered, ${gaveUp} requeued after errors`);
"""

_REPLAY_DRIVER = """\
// Replay failed webhooks for 60 merchants, one webhook-replay call each.
const { spawnSync } = require('child_process');
const skip = process.argv[2] || '';
const legacy = process.argv[3] === 'legacy';
let ok = 0;
let bad = 0;
for (let k = 1; k <= 60; k++) {
  const m = `m_${String(k * 3).padStart(3, '0')}`;
  const args = ['webhook-replay.js', '--events', k % 2 ? 'payment.failed,refund.created' : 'payout.failed'];
  if (m !== skip) args.push('--merchant', m);
  if (legacy && k % 4 === 0) args.push('--legacy-signature');
  console.log(`>>> node ${args.join(' ')}`);
  const r = spawnSync('node', args, { stdio: 'inherit' });
  if (r.status === 0) ok++; else bad++;
}
console.log(`webhook replay: ${ok} of 60 batches replayed; ${bad} exited non-zero`);
process.exitCode = bad ? 1 : 0;
"""


def _replay(root: Path, *args: str, help_first: bool = False) -> bytes:
    env = {"NODE_PATH": str(_node_modules())}
    write(root, {"webhook-replay.js": _REPLAY_JS, "replay-all.js": _REPLAY_DRIVER})
    help_out = sh("node webhook-replay.js --help", root, env=env) if help_first else b""
    return help_out + sh(f"node replay-all.js {' '.join(args)}", root, env=env)


@case(
    "u124_commander_required_option",
    "node driver (commander)",
    clean=False,
    group=GROUP,
    decisive=[
        "error: required option '--merchant <id>' not specified",
        "webhook replay: 59 of 60 batches replayed; 1 exited non-zero",
        "[exit status 1]",
    ],
)
def _commander_required(root: Path) -> bytes:
    return _settle(_replay(root, "m_066"), root)


@case(
    "u124_commander_deprecation_clean",
    "node driver (commander)",
    clean=True,
    group=GROUP,
    decisive=["webhook replay: 60 of 60 batches replayed; 0 exited non-zero", "Usage: webhook-replay [options]"],
)
def _commander_clean(root: Path) -> bytes:
    return _settle(_replay(root, "-", "legacy", help_first=True), root)


# ---------------------------------------------------------------- yargs: dispute-export.js

_EXPORT_JS = """\
#!/usr/bin/env node
const fs = require('fs');
const yargs = require('yargs/yargs');
const { hideBin } = require('yargs/helpers');

const argv = yargs(hideBin(process.argv))
  .scriptName('dispute-export')
  .usage('$0 --input <file> [options]\\n\\nExport disputes, chargebacks and failed payments of one data file.')
  .option('input', { type: 'string', demandOption: true, describe: 'CSV data file' })
  .option('format', { choices: ['csv', 'json', 'ndjson'], default: 'csv', describe: 'output format' })
  .option('include-errors', { type: 'boolean', default: true, describe: 'include rows with an error_code' })
  .option('max-rows', { type: 'number', default: 500, describe: 'stop after this many rows' })
  .strict()
  .version('3.8.1')
  .parse();

const lines = fs.readFileSync(argv.input, 'utf8').trim().split('\\n').slice(1);
let exported = 0;
let withErrors = 0;
for (const line of lines.slice(0, argv.maxRows)) {
  const [id, merchant, amount, currency, status, code] = line.split(',');
  if (code !== '-') withErrors++;
  if (code !== '-' && !argv.includeErrors) continue;
  exported++;
  if (exported <= 14) console.log(`  ${argv.format} ${id} ${merchant} ${amount} ${currency} ${status} ${code}`);
}
console.log(`dispute-export: ${argv.input}: ${exported} rows exported as ${argv.format},` +
  ` ${withErrors} with error codes`);
"""

_EXPORT_ALL = """\
#!/usr/bin/env bash
set -e
n=0
for f in data/*.csv; do
  n=$((n + 1))
  fmt=$( [ $((n % 3)) -eq 0 ] && echo ndjson || echo json )
  [ "$f" = "data/reversals.csv" ] && fmt=xlsx
  echo "# export $n: $f ($fmt)"
  node dispute-export.js --input "$f" --format "$fmt"
done
"""


@case(
    "u124_yargs_invalid_choice_npm",
    "npm run (yargs)",
    clean=False,
    group=GROUP,
    decisive=['Argument: format, Given: "xlsx", Choices: "csv", "json", "ndjson"', "[exit status 1]"],
)
def _yargs_invalid(root: Path) -> bytes:
    mods = _node_modules()
    _data(root)
    pkg = (
        '{"name": "paygrid-exports", "version": "1.0.0", "private": true,\n'
        ' "scripts": {"export-all": "bash export-all.sh"}}\n'
    )
    write(root, {"dispute-export.js": _EXPORT_JS, "export-all.sh": _EXPORT_ALL, "package.json": pkg})
    env = {
        "NODE_PATH": str(mods),
        "npm_config_update_notifier": "false",
        "npm_config_cache": str(_TOOLS / "npm-cache"),
        "npm_config_logs_dir": str(root / "npm-logs"),
    }
    return _settle(sh("npm run export-all", root, env=env), root)
