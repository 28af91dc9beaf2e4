"""Held-out outputs (group ``unseen-101``): a hundred-and-first batch, parallel and distributed Python as an agent
runs it on a generated payments data job, all offline in a virtual environment of its own.

Failing runs: ``multiprocessing.Pool.imap`` over 1,500 invoices logging each settled one where invoice 911 raises in
the worker (the ``RemoteTraceback`` at the end), ``Pool.map`` of refund batches whose worker returns a generator
(``MaybeEncodingError``), a ``ProcessPoolExecutor`` over 2,000 retry items where one worker exits (``BrokenProcessPool``
caught and logged in the middle, the rest settled serially after it), joblib ``Parallel(n_jobs=2, verbose=10)`` over
three stages where the refunds stage's last task raises and the ledger stage still runs after it, joblib over loky
where a worker is killed (``TerminatedWorkerError``), a dask ``LocalCluster`` (two worker processes) whose delayed graph
has one transform raising ``decimal.InvalidOperation``, and a dask cluster where one task kills its worker every time
(``KilledWorker``). Clean runs named after errors, failures, retries and exceptions (``failed_payments``,
``error_events``, ``retry_queue``, ``exception_report``): ``Pool.imap`` reconciling failed payments, a
``ProcessPoolExecutor`` building an exception report, joblib ``Parallel(verbose=10)`` draining a retry queue, and a dask
``LocalCluster`` aggregating error events with distributed's logging. Labels were written with each scenario, before
the engine saw the output. Needs dask[distributed] 2026.11.0, joblib 1.6.0 and loky 3.7.0 from PyPI (installed once
into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u101-par``).
"""

from __future__ import annotations

import sys
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-101"

_REQS = "dask[distributed]==2026.11.0 distributed==2026.11.0 joblib==1.6.0 loky==3.7.0"
_VENV = VENVS / "u101-par"
_STDLIB = str(Path(sys.base_prefix) / "lib" / f"python{sys.version_info.major}.{sys.version_info.minor}")


def _python() -> str:
    return str(make_venv(_VENV, _REQS) / "bin" / "python")


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: folders, times, ports, pids, addresses, ids."""
    out = (
        scrub(out, root)
        .replace(str(_VENV).encode(), b"/tmp/work/.venv")
        .replace(_STDLIB.encode(), b"/usr/lib/python3.11")
    )
    return substitute(
        out,
        (r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}", "2026-01-01 00:00:00,000"),
        (r"tcp://127\.0\.0\.1:\d+", "tcp://127.0.0.1:40000"),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:40000"),
        (r"0x[0-9a-f]{6,16}", "0x7f0000000000"),
        (r"elapsed:\s+\d+(\.\d+)?(s|min)", "elapsed:    0.1s"),
        (r"\b(pid|PID|Pid)([ =:]+)\d+", r"\1\g<2>1000"),
        (r"Worker process \d+", "Worker process 1000"),
        (r"[0-9a-f]{32}", "0" * 32),
        (r"in \d+\.\d+s\b", "in 0.10s"),
        (r"took \d+(\.\d+)?m?s", "took 10ms"),
        (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "00000000-0000-0000-0000-000000000000"),
        (r"recomputed elsewhere: \{.*\}", "recomputed elsewhere: {...}"),
        (r"stimulus_id='([a-z-]+)-\d+\.\d+'", r"stimulus_id='\1-1767225600.0'"),
    )


def _run(root: Path, script: str, env: str = "") -> bytes:
    return _settle(sh(f"{env} PYTHONHASHSEED=0 {_python()} {script}", root), root)


_LOGGING = """
    import logging
    import sys

    logging.basicConfig(level=logging.INFO, stream=sys.stdout, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
"""


def _payments(root: Path) -> None:
    """The payments package every scenario runs: invoices, refunds, retries and error events, all generated."""
    write(
        root,
        {
            "payments/__init__.py": "",
            "payments/data.py": """
                from decimal import Decimal

                MERCHANTS = ["acme", "globex", "initech", "umbrella", "hooli", "stark", "wayne", "wonka"]
                CODES = ["card_declined", "insufficient_funds", "expired_card", "do_not_honor", "processing_error"]


                def invoice(n):
                    cents = (n * 7919) % 50000 + 100
                    return {"id": f"INV-{n:05d}", "merchant": MERCHANTS[n % 8], "amount": Decimal(cents) / 100}


                def error_event(n):
                    return {"id": f"EVT-{n:05d}", "merchant": MERCHANTS[n % 8], "code": CODES[n % 5], "attempt": n % 4}
            """,
            "payments/failed_payments.py": """
                from decimal import Decimal

                from payments.data import invoice


                def settle_invoice(n, bad=None):
                    inv = invoice(n)
                    fee = (inv["amount"] * Decimal("0.029") + Decimal("0.30")).quantize(Decimal("0.01"))
                    if n == bad:
                        inv["amount"] = -inv["amount"]
                    if inv["amount"] <= 0:
                        raise ValueError(f"invoice {inv['id']} has a non-positive amount {inv['amount']}")
                    return inv["id"], inv["merchant"], str(inv["amount"]), str(fee)


                def reconcile_failed_payment(n):
                    inv = invoice(n)
                    attempts = 1 + n % 3
                    outcome = "recovered" if n % 7 else "written_off"
                    return inv["id"], inv["merchant"], attempts, outcome
            """,
            "payments/retry_queue.py": """
                import os
                import time

                from payments.data import error_event


                def retry_item(n, crash=None):
                    if n == crash:
                        time.sleep(0.5)
                        os._exit(137)
                    event = error_event(n)
                    backoff = 2 ** event["attempt"]
                    return event["id"], event["code"], backoff
            """,
            "payments/exception_report.py": """
                from collections import Counter

                from payments.data import error_event


                def summarize_error_events(start, stop):
                    counts = Counter()
                    for n in range(start, stop):
                        event = error_event(n)
                        counts[(event["merchant"], event["code"])] += 1
                    return sorted(counts.items())
            """,
        },
    )


# ---------------------------------------------------------------- multiprocessing.Pool


@case(
    "u101_pool_imap_remote_traceback",
    "python multiprocessing.Pool",
    clean=False,
    group=GROUP,
    decisive=[
        "multiprocessing.pool.RemoteTraceback:",
        'payments/failed_payments.py", line 12, in settle_invoice',
        'settle_invoices.py", line 18, in <module>',
    ],
)
def _pool_remote(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "settle_invoices.py": _LOGGING
            + """
    from functools import partial
    from multiprocessing import Pool

    from payments.failed_payments import settle_invoice

    log = logging.getLogger("settle_invoices")

    if __name__ == "__main__":
        total = 1500
        log.info("settling %d invoices with 2 worker processes", total)
        with Pool(processes=2) as pool:
            work = partial(settle_invoice, bad=911)
            for done, (inv, merchant, amount, fee) in enumerate(pool.imap(work, range(total), chunksize=4), 1):
                log.info("[%4d/%d] settled %s merchant=%s amount=%s fee=%s", done, total, inv, merchant, amount, fee)
        log.info("all %d invoices settled", total)
    """
        },
    )
    return _run(root, "settle_invoices.py")


@case(
    "u101_pool_map_maybe_encoding_error",
    "python multiprocessing.Pool",
    clean=False,
    group=GROUP,
    decisive=[
        "multiprocessing.pool.MaybeEncodingError: Error sending result:",
        'refund_batches.py", line 28, in <module>',
    ],
)
def _pool_encoding(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "refund_batches.py": _LOGGING
            + """
    from multiprocessing import Pool

    from payments.data import invoice

    log = logging.getLogger("refund_batches")


    def refund_batch(b):
        rows = [invoice(b * 50 + k) for k in range(50)]
        for row in rows:
            log.debug("refund %s", row["id"])
        if b == 23:
            return (row["id"] for row in rows if row["amount"] > 100)
        return [row["id"] for row in rows if row["amount"] > 100]


    if __name__ == "__main__":
        for b in range(40):
            rows = [invoice(b * 50 + k) for k in range(50)]
            for r in rows:
                log.info("queued refund %s merchant=%s amount=%s batch=%d", r["id"], r["merchant"], r["amount"], b)
        with Pool(processes=2) as pool:
            batches = pool.map(refund_batch, range(40))
        log.info("refunds issued: %d", sum(len(b) for b in batches))
    """
        },
    )
    return _run(root, "refund_batches.py")


@case(
    "u101_pool_clean_failed_payments",
    "python multiprocessing.Pool",
    clean=True,
    group=GROUP,
    decisive=["failed_payments reconciled: 1800 payments, 1542 recovered, 258 written off, 0 errors"],
)
def _pool_clean(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "reconcile_failed_payments.py": _LOGGING
            + """
    from multiprocessing import Pool

    from payments.failed_payments import reconcile_failed_payment

    log = logging.getLogger("failed_payments")

    if __name__ == "__main__":
        total = 1800
        recovered = written_off = 0
        with Pool(processes=2) as pool:
            for done, (inv, merchant, attempts, outcome) in enumerate(
                pool.imap(reconcile_failed_payment, range(total), chunksize=8), 1
            ):
                if outcome == "recovered":
                    recovered += 1
                    log.info("[%4d/%d] failed payment %s (%s) recovered after %d retry attempts",
                             done, total, inv, merchant, attempts)
                else:
                    written_off += 1
                    log.warning("[%4d/%d] failed payment %s (%s) written off: retry_error after %d attempts",
                                done, total, inv, merchant, attempts)
        log.info("failed_payments reconciled: %d payments, %d recovered, %d written off, 0 errors",
                 total, recovered, written_off)
    """
        },
    )
    return _run(root, "reconcile_failed_payments.py")


# ---------------------------------------------------------------- concurrent.futures


@case(
    "u101_ppe_broken_process_pool",
    "python concurrent.futures",
    clean=False,
    group=GROUP,
    decisive=[
        "concurrent.futures.process.BrokenProcessPool: A process in the process pool was terminated abruptly",
        "retry_queue: worker pool broke at item 1377",
        "retry_queue finished with errors: 1 worker crash, 623 items retried serially",
    ],
)
def _ppe_broken(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "drain_retry_queue.py": _LOGGING
            + """
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool
    from functools import partial

    from payments.retry_queue import retry_item

    log = logging.getLogger("retry_queue")

    if __name__ == "__main__":
        total = 2000
        done = 0
        with ProcessPoolExecutor(max_workers=2) as pool:
            try:
                for event_id, code, backoff in pool.map(partial(retry_item, crash=1377), range(total)):
                    log.info("[%4d/%d] retried %s code=%s next_backoff=%ds", done + 1, total, event_id, code, backoff)
                    done += 1
            except BrokenProcessPool:
                log.exception("retry_queue: worker pool broke at item %d", done)
        left = total - done
        log.warning("retrying %d items serially", left)
        for n in range(done, total):
            if n == 1377:
                log.error("item %d skipped: it crashed a worker", n)
                continue
            event_id, code, backoff = retry_item(n)
            log.info("[%4d/%d] retried %s code=%s next_backoff=%ds (serial)", n + 1, total, event_id, code, backoff)
        log.info("retry_queue finished with errors: 1 worker crash, %d items retried serially", left)
        sys.exit(1)
    """
        },
    )
    return _run(root, "drain_retry_queue.py")


@case(
    "u101_ppe_clean_exception_report",
    "python concurrent.futures",
    clean=True,
    group=GROUP,
    decisive=["exception_report written: 40 merchant/code pairs from 24000 error_events"],
)
def _ppe_clean(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "build_exception_report.py": _LOGGING
            + """
    from collections import Counter
    from concurrent.futures import ProcessPoolExecutor

    from payments.exception_report import summarize_error_events

    log = logging.getLogger("exception_report")

    if __name__ == "__main__":
        chunks = [(start, start + 100) for start in range(0, 24000, 100)]
        totals = Counter()
        with ProcessPoolExecutor(max_workers=2) as pool:
            starts = [c[0] for c in chunks]
            stops = [c[1] for c in chunks]
            for n, pairs in enumerate(pool.map(summarize_error_events, starts, stops), 1):
                for key, count in pairs:
                    totals[key] += count
                log.info("chunk %3d/%d: error_events %d-%d summarized (%d exception kinds)",
                         n, len(chunks), starts[n - 1], stops[n - 1] - 1, len(pairs))
        print(f"{'merchant':<10} {'error code':<20} {'count':>6}")
        for (merchant, code), count in sorted(totals.items()):
            print(f"{merchant:<10} {code:<20} {count:>6}")
        log.info("exception_report written: %d merchant/code pairs from %d error_events",
                 len(totals), sum(totals.values()))
    """
        },
    )
    return _run(root, "build_exception_report.py")


# ---------------------------------------------------------------- joblib and loky


@case(
    "u101_joblib_verbose_stage_fails",
    "joblib",
    clean=False,
    group=GROUP,
    decisive=[
        'payments/stages.py", line 20, in refunds',
        "stage refunds FAILED",
        "stages finished: 2 ok, 1 failed (refunds)",
    ],
)
def _joblib_stage(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "payments/stages.py": """
                import time

                from payments.data import MERCHANTS, invoice

                POLICIES = {m: 30 for m in MERCHANTS}


                def billing(n):
                    return invoice(n)["id"], invoice(n)["amount"]


                def refunds(n):
                    inv = invoice(n)
                    if n == 1199:
                        time.sleep(1.0)
                        POLICIES.pop(inv["merchant"], None)
                    try:
                        return inv["id"], POLICIES[inv["merchant"]]
                    except KeyError:
                        raise KeyError(f"refund policy missing for merchant {inv['merchant']}") from None


                def ledger(n):
                    return invoice(n)["id"], invoice(n)["amount"] * 2
            """,
            "nightly_stages.py": _LOGGING
            + """
    import traceback

    from joblib import Parallel, delayed

    from payments.stages import billing, ledger, refunds

    log = logging.getLogger("nightly")

    if __name__ == "__main__":
        failed = []
        for name, fn in [("billing", billing), ("refunds", refunds), ("ledger", ledger)]:
            log.info("stage %s: 1200 tasks", name)
            try:
                out = Parallel(n_jobs=2, verbose=10, batch_size=1)(delayed(fn)(n) for n in range(1200))
            except Exception:
                traceback.print_exc(file=sys.stdout)
                log.error("stage %s FAILED", name)
                failed.append(name)
                continue
            for inv, value in out[:500]:
                log.info("stage %s: %s -> %s", name, inv, value)
            log.info("stage %s ok: %d results", name, len(out))
        log.info("stages finished: %d ok, %d failed (%s)", 3 - len(failed), len(failed), ", ".join(failed))
        sys.exit(1 if failed else 0)
    """,
        },
    )
    out = _run(root, "nightly_stages.py")
    # joblib sometimes reports a stage's first task as "Done 1 out of 1" before the generator is read: a race, dropped.
    return substitute(out, (r"^\[Parallel\(n_jobs=2\)\]: Done   1 out of   1 \|.*finished\n", ""))


@case(
    "u101_joblib_loky_worker_killed",
    "joblib (loky)",
    clean=False,
    group=GROUP,
    decisive=[
        "joblib.externals.loky.process_executor.TerminatedWorkerError: A worker process managed by the executor was",
        'export_ledger.py", line 27, in <module>',
    ],
)
def _joblib_killed(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "export_ledger.py": _LOGGING
            + """
    import os
    import signal
    import time

    from joblib import Parallel, delayed

    from payments.data import invoice

    log = logging.getLogger("export_ledger")


    def ledger_rows(n):
        if n == 1200:
            time.sleep(1.0)
            os.kill(os.getpid(), signal.SIGKILL)
        inv = invoice(n)
        return f"{inv['id']},{inv['merchant']},{inv['amount']}"


    if __name__ == "__main__":
        log.info("exporting the ledger: 1600 invoices")
        rows = Parallel(n_jobs=2, verbose=50, batch_size=1)(delayed(ledger_rows)(n) for n in range(1600))
        log.info("ledger exported: %d rows", len(rows))
    """
        },
    )
    return _run(root, "export_ledger.py")


@case(
    "u101_joblib_clean_retry_queue",
    "joblib",
    clean=True,
    group=GROUP,
    decisive=["retry_queue drained: 1200 retries scheduled, 0 failed"],
)
def _joblib_clean(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "drain_retry_queue.py": _LOGGING
            + """
    from joblib import Parallel, delayed

    from payments.retry_queue import retry_item

    log = logging.getLogger("retry_queue")

    if __name__ == "__main__":
        log.info("retry_queue: 1200 failed payment retries to schedule (error_events since midnight)")
        out = Parallel(n_jobs=2, verbose=10, batch_size=1)(delayed(retry_item)(n) for n in range(1200))
        for event_id, code, backoff in out[:300]:
            log.info("retry scheduled for %s after error %s, backoff %ds", event_id, code, backoff)
        log.info("retry_queue drained: %d retries scheduled, 0 failed", len(out))
    """
        },
    )
    return _run(root, "drain_retry_queue.py")


# ---------------------------------------------------------------- dask distributed

_DASK_ENV = (
    "DASK_LOGGING__DISTRIBUTED=info DASK_DISTRIBUTED__WORKER__DAEMON=false "
    "DASK_DISTRIBUTED__SCHEDULER__ALLOWED_FAILURES=2 DASK_DISTRIBUTED__ADMIN__TICK__LIMIT=1h"
)

_CLUSTER = """
    from dask.distributed import Client, LocalCluster


    def cluster():
        c = LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None)
        return c, Client(c)
"""


@case(
    "u101_dask_delayed_invalid_operation",
    "dask distributed",
    clean=False,
    group=GROUP,
    decisive=[
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
        'payments/fx.py", line 8, in convert',
    ],
)
def _dask_invalid(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "payments/fx.py": """
                from decimal import Decimal

                RATES = {"acme": "1.00", "globex": "0.92", "initech": "1.35", "umbrella": "0.79",
                         "hooli": "1.00", "stark": "148.2", "wayne": "0.92", "wonka": "n/a"}


                def convert(inv):
                    rate = Decimal(RATES[inv["merchant"]]) if inv["id"] == "INV-00207" else Decimal("1.00")
                    return inv["merchant"], (inv["amount"] * rate).quantize(Decimal("0.01"))
            """,
            "settlement_graph.py": _CLUSTER
            + """
    import dask

    from payments.data import invoice
    from payments.fx import convert


    def merchant_total(rows, merchant):
        return merchant, sum(amount for m, amount in rows if m == merchant)


    if __name__ == "__main__":
        c, client = cluster()
        print(f"cluster: {len(client.scheduler_info()['workers'])} workers", flush=True)
        converted = [dask.delayed(convert)(dask.delayed(invoice)(n), dask_key_name=f"convert-{n}") for n in range(400)]
        for n in range(0, 400, 1):
            print(f"graph: convert-{n} <- invoice INV-{n:05d}", flush=True)
        totals = [dask.delayed(merchant_total)(converted, m, dask_key_name=f"total-{m}") for m in ["acme", "wonka"]]
        print(dask.compute(*totals))
        client.close()
        c.close()
    """,
        },
    )
    return _run(root, "settlement_graph.py", _DASK_ENV)


@case(
    "u101_dask_killed_worker",
    "dask distributed",
    clean=False,
    group=GROUP,
    decisive=[
        "distributed.scheduler.KilledWorker: Attempted to run task 'settle_chargeback-317' on 3 different workers",
        "chargebacks settled before the crash: 317",
    ],
)
def _dask_killed(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "settle_chargebacks.py": _CLUSTER
            + """
    import os

    from dask.distributed import wait

    from payments.data import invoice


    def settle_chargeback(n):
        if n == 317:
            os._exit(9)
        inv = invoice(n)
        return inv["id"], str(inv["amount"])


    if __name__ == "__main__":
        c, client = cluster()
        futures = client.map(settle_chargeback, range(500), key=[f"settle_chargeback-{n}" for n in range(500)])
        wait(futures)
        ok = 0
        for n, fut in enumerate(futures):
            if fut.status != "finished":
                break
            inv, amount = fut.result()
            print(f"settle_chargeback-{n}: {inv} amount={amount} finished", flush=True)
            ok += 1
        print(f"chargebacks settled before the crash: {ok}", flush=True)
        try:
            print(client.gather(futures)[:3])
        finally:
            client.cancel(futures)
            del futures
            client.close()
            c.close()
    """,
        },
    )
    return _run(root, "settle_chargebacks.py", _DASK_ENV)


@case(
    "u101_dask_clean_error_events",
    "dask distributed",
    clean=True,
    group=GROUP,
    decisive=["error_events aggregated: 60000 events, 40 merchant/code groups, 0 failed tasks"],
)
def _dask_clean(root: Path) -> bytes:
    _payments(root)
    write(
        root,
        {
            "aggregate_error_events.py": _CLUSTER
            + """
    from collections import Counter

    from payments.exception_report import summarize_error_events

    if __name__ == "__main__":
        c, client = cluster()
        print(f"cluster: {len(client.scheduler_info()['workers'])} workers", flush=True)
        starts = list(range(0, 60000, 250))
        futures = client.map(summarize_error_events, starts, [s + 250 for s in starts],
                             key=[f"error_events-{s}" for s in starts])
        totals = Counter()
        for s, pairs in zip(starts, client.gather(futures)):
            for key, count in pairs:
                totals[key] += count
            print(f"error_events-{s}: {len(pairs)} exception kinds summarized", flush=True)
        for (merchant, code), count in sorted(totals.items()):
            print(f"{merchant:<10} {code:<20} {count:>6} failed payments")
        print(f"error_events aggregated: {sum(totals.values())} events, {len(totals)} merchant/code groups, "
              "0 failed tasks")
        client.close()
        c.close()
    """,
        },
    )
    return _run(root, "aggregate_error_events.py", _DASK_ENV)
