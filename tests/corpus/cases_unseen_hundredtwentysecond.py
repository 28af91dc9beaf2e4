"""Held-out outputs (group ``unseen-122``): a hundred-and-twenty-second batch, resource limits and signals as an agent
meets them, on a generated payments back office, ``ledgerline``, whose jobs, modules, payloads and batches are named
after business words (``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions_report``, ``refunds``,
``dead_letters`` ...), all offline with the machine's Python, Node.js 20, gcc/g++, make, ``timeout`` and ``prlimit``.

Failing runs: a nightly shell loop over 30 Python jobs, each under ``timeout`` and ``ulimit -v``, where the retry queue
job hangs and is stopped with exit 124 while the loop itself exits 0 (only its own words say a job failed), a queue
worker that ignores ``timeout``'s SIGTERM and is then killed with SIGKILL mid-log (exit 137), a reconciliation under
``ulimit -v`` where one partition's cross join raises ``MemoryError`` in the middle and the other partitions go on, a
Node.js aggregator under ``--max-old-space-size`` that dies with 'JavaScript heap out of memory', ``make run`` of a
C++ settlement program under ``prlimit --as`` that aborts on ``std::bad_alloc`` after a build full of warnings, a
pytest run of 300 tests where one refund-chain test hits ``RecursionError``, and a shell loop validating 48 webhook
payloads with a C parser under ``ulimit -s`` where one deeply nested payload overflows the stack (SIGSEGV). Clean
runs full of those business words: the nightly loop with every job within its limits (retries and error codes
logged), the reconciliation streaming within ``ulimit -v`` with warnings and retried partitions, the Node.js
aggregator within its heap with a deprecation warning and dead-lettered deliveries, and ``make run`` of the C++
settlement program within ``prlimit`` with compiler warnings and logged retries. Labels were written with each
scenario, before the engine saw the output. Needs Python 3, Node.js, gcc, g++, make, and ``timeout``/``prlimit``
(Debian ``coreutils``, ``util-linux``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-122"

#: The nightly jobs of ledgerline, in run order.
_JOBS = [
    "billing_rollup", "failed_payments", "error_codes", "invoices", "ledger_close", "tax_filing", "refunds",
    "chargebacks", "exceptions_report", "shipping_labels", "catalog_sync", "pricing_rules", "coupon_expiry",
    "retry_queue", "webhook_replay", "audit_trail", "export_csv", "session_gc", "auth_tokens", "dead_letters",
    "payouts", "disputes", "fraud_scores", "currency_rates", "fees", "statements", "reconcile", "failed_webhooks",
    "alerts", "settlements",
]  # fmt: skip

_CODES = ["E-0412 card_declined", "E-0500 gateway_timeout", "E-0429 rate_limited", "E-0402 insufficient_funds"]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, PIDs, addresses and durations."""
    return substitute(
        scrub(out, root),
        (r"^(.*line \d+:) +\d+ ", r"\g<1> 4242 "),
        (r"^bash: +\d+ ", "bash:  4242 "),
        (r"^\(node:\d+\)", "(node:4242)"),
        (r"^.*\[\d+:0x[0-9a-f]+\] +\d+ ms: .*$", "[4242:0x5555]      100 ms: Mark-Compact (GC trace scrubbed)"),
        (r"in \d+\.\d+s", "in 1.00s"),
        (r"elapsed=\d+\.\d+s", "elapsed=0.10s"),
    )


# ---------------------------------------------------------------- nightly job loop (Python under timeout/ulimit)

_COMMON = '''
    """Shared logging of the ledgerline nightly jobs."""
    import sys
    import time

    CODES = %r


    def log(job, level, msg):
        print(f"2024-03-31T02:00:00Z {level:<5} {job}: {msg}", flush=True)


    def run(job, index, records, *, hang=False):
        log(job, "INFO", f"starting (limits: address space 1024 MiB, timeout from run_nightly.sh)")
        log(job, "INFO", f"loaded config jobs/{job}.toml: batch_size=50 max_retries=5 error_budget=2%%")
        failed = 0
        for batch in range(records // 50):
            first = index * 10000 + batch * 50
            last = first + 49
            log(job, "INFO", f"batch {batch + 1:03d}/{records // 50:03d}: records PAY-{first:06d}..PAY-{last:06d}")
            if (batch + index) %% 4 == 1:
                code = CODES[(batch + index) %% len(CODES)]
                log(job, "WARN", f"record PAY-{first + 7:06d} error {code}; retry 1/5 in 30s")
                log(job, "INFO", f"record PAY-{first + 7:06d} retry 1/5 succeeded")
            if (batch + index) %% 7 == 3:
                failed += 1
                log(job, "WARN", f"record PAY-{first + 13:06d} moved to failed_payments after 5 retries (E-0402)")
            if hang and batch == 6:
                log(job, "INFO", "waiting for lease on retry_queue partition 7 (held by worker-3)")
                time.sleep(600)
        log(job, "INFO", f"done: {records} records, {failed} moved to failed_payments, error budget ok")
'''


def _jobs(root: Path, *, hang: str = "") -> None:
    files = {"jobs/_common.py": _COMMON % (_CODES,), "jobs.txt": "\n".join(_JOBS) + "\n"}
    for i, job in enumerate(_JOBS):
        files[f"jobs/{job}.py"] = f"""
            from _common import run

            run({job!r}, {i}, {300 + (i % 5) * 100}, hang={job == hang})
        """
    files["run_nightly.sh"] = """
        #!/bin/bash
        # Run every nightly job of ledgerline under its limits; report which ones failed.
        limit=${JOB_TIMEOUT:-3}
        n=0
        failed=()
        for job in $(cat jobs.txt); do
          n=$((n + 1))
          echo "=== job $job (timeout ${limit}s, ulimit -v 1048576) ==="
          (ulimit -v 1048576; timeout "$limit" python -u "jobs/$job.py")
          rc=$?
          if [ "$rc" -ne 0 ]; then
            echo "!!! job $job exited with status $rc"
            failed+=("$job")
          fi
        done
        echo "nightly run finished: $((n - ${#failed[@]}))/$n jobs ok; failed: ${failed[*]:-none}"
    """
    write(root, files)


@case(
    "u122_job_loop_timeout",
    "bash loop (timeout, ulimit)",
    clean=False,
    group=GROUP,
    decisive=[
        "!!! job retry_queue exited with status 124",
        "retry_queue: waiting for lease on retry_queue partition 7 (held by worker-3)",
        "nightly run finished: 29/30 jobs ok; failed: retry_queue",
    ],
)
def _job_loop_timeout(root: Path) -> bytes:
    _jobs(root, hang="retry_queue")
    return _settle(sh("bash run_nightly.sh", root, env={"JOB_TIMEOUT": "3"}), root)


@case(
    "u122_job_loop_clean",
    "bash loop (timeout, ulimit)",
    clean=True,
    group=GROUP,
    decisive=["nightly run finished: 30/30 jobs ok; failed: none", "settlements: done: 700 records"],
)
def _job_loop_clean(root: Path) -> bytes:
    _jobs(root)
    return _settle(sh("bash run_nightly.sh", root, env={"JOB_TIMEOUT": "20"}), root)


# ---------------------------------------------------------------- worker killed by SIGKILL after ignoring SIGTERM

_WORKER = '''
    """ledgerline retry-queue worker: drains failed payments, retries them, dead-letters the hopeless ones."""
    import signal
    import time

    CODES = %r
    stopping = False


    def on_term(signum, frame):
        global stopping
        stopping = True
        print("worker-3: caught SIGTERM, finishing batch 0412 before exit (grace 30s)", flush=True)


    signal.signal(signal.SIGTERM, on_term)
    print("worker-3: started, queue=retry_queue partitions=0-15 prefetch=250 max_retries=5", flush=True)
    for batch in range(1, 413):
        print(f"worker-3: claimed batch {batch:04d} from retry_queue (5 messages)", flush=True)
        for k in range(5):
            pay = batch * 10 + k
            if (batch + k) %% 9 == 4:
                code = CODES[(batch + k) %% len(CODES)]
                print(f"worker-3:   PAY-{pay:06d} retry 3/5 failed: {code}; requeued with backoff 240s", flush=True)
            elif (batch + k) %% 23 == 5:
                print(f"worker-3:   PAY-{pay:06d} retry 5/5 failed: E-0402 insufficient_funds; dead-lettered",
                      flush=True)
            else:
                print(f"worker-3:   PAY-{pay:06d} retried ok (refund_id=RF-{pay:06d})", flush=True)
        if batch < 412:
            print(f"worker-3: acked batch {batch:04d}", flush=True)
    print("worker-3: batch 0412 needs settlement lock ledger/settlements, waiting", flush=True)
    while True:
        time.sleep(1)
'''


@case(
    "u122_worker_sigkill",
    "python worker (timeout -k)",
    clean=False,
    group=GROUP,
    decisive=[
        "worker-3: caught SIGTERM, finishing batch 0412 before exit (grace 30s)",
        "worker-3: batch 0412 needs settlement lock ledger/settlements, waiting",
        "[exit status 137]",
    ],
)
def _worker_sigkill(root: Path) -> bytes:
    write(root, {"worker.py": _WORKER % (_CODES,)})
    return _settle(sh("timeout -k 2 3 python -u worker.py", root), root)


# ---------------------------------------------------------------- reconciliation under ulimit -v (MemoryError)

_PARTITIONS = [f"{w}_{y}" for y in (2022, 2023) for w in _JOBS[:20]]

_RECONCILE = '''
    """Reconcile every ledger partition against settlements; one partition failing does not stop the others."""
    import logging
    import sys
    import warnings

    logging.basicConfig(format="%%(levelname)s %%(name)s: %%(message)s", level=logging.INFO, stream=sys.stdout)
    log = logging.getLogger("reconcile")
    PARTITIONS = %r
    CROSS_JOIN = %r


    def rows(name, n):
        return [(f"{name}-{i:06d}", (i * 37) %% 100000) for i in range(n)]


    def match_by_amount(ledger, settlements):
        by_amount = {}
        for sid, amount in settlements:
            by_amount.setdefault(amount, []).append(sid)
        return sum(1 for _, amount in ledger if amount in by_amount)


    def match_cross_join(ledger, settlements):
        pairs = [(lid, sid) for lid, la in ledger for sid, sa in settlements if abs(la - sa) < 10**9]
        return len(pairs)


    def reconcile(name, attempt=1):
        ledger = rows(name, 20000)
        settlements = rows("settle-" + name, 20000)
        log.info("partition %%s: %%d ledger rows, %%d settlement rows", name, len(ledger), len(settlements))
        for k in range(0, 20000, 2500):
            log.info("partition %%s: indexed rows %%d-%%d (error_codes, refunds, chargebacks)", name, k, k + 2499)
        if name in CROSS_JOIN:
            matched = match_cross_join(ledger, settlements)
        else:
            matched = match_by_amount(ledger, settlements)
        if name.startswith("retry_queue") and attempt == 1:
            log.warning("partition %%s: transient error E-0500 gateway_timeout reading settlements; retry 2/3", name)
            return reconcile(name, attempt + 1)
        log.info("partition %%s: matched %%d, unmatched %%d (written to exceptions_report)", name, matched,
                 len(ledger) - matched)


    def main():
        log.info("limits: address space %%s KiB (ulimit -v), %%d partitions", sys.argv[1], len(PARTITIONS))
        warnings.warn("rounding mode HALF_EVEN for EUR is deprecated; use currency_rates.rounding", DeprecationWarning)
        failed = []
        for name in PARTITIONS:
            try:
                reconcile(name)
            except MemoryError:
                log.exception("partition %%s failed", name)
                failed.append(name)
        ok = len(PARTITIONS) - len(failed)
        names = ", ".join(failed) or "none"
        log.info("reconcile finished: %%d partitions ok, %%d failed (%%s)", ok, len(failed), names)
        return 1 if failed else 0


    raise SystemExit(main())
'''


def _reconcile(root: Path, cross_join: list[str]) -> bytes:
    write(root, {"reconcile.py": _RECONCILE % (_PARTITIONS, cross_join)})
    return _settle(sh("ulimit -v 400000; python -W default -u reconcile.py 400000", root), root)


@case(
    "u122_reconcile_memoryerror",
    "python (ulimit -v)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR reconcile: partition refunds_2023 failed",
        "MemoryError",
        "reconcile finished: 39 partitions ok, 1 failed (refunds_2023)",
        "[exit status 1]",
    ],
)
def _reconcile_memoryerror(root: Path) -> bytes:
    return _reconcile(root, ["refunds_2023"])


@case(
    "u122_reconcile_clean",
    "python (ulimit -v)",
    clean=True,
    group=GROUP,
    decisive=["reconcile finished: 40 partitions ok, 0 failed (none)", "partition webhook_replay_2023: matched"],
)
def _reconcile_clean(root: Path) -> bytes:
    return _reconcile(root, [])


# ---------------------------------------------------------------- Node.js under --max-old-space-size

_AGGREGATE = r"""
    // Aggregate webhook deliveries per merchant: delivered, retried, dead-lettered.
    'use strict';
    const LEAK = process.argv[2] === 'keep-bodies';
    const codes = ['E-0412 card_declined', 'E-0500 gateway_timeout', 'E-0429 rate_limited'];
    const areas = ['billing', 'refunds', 'failed_payments', 'chargebacks', 'payouts', 'disputes', 'invoices'];
    const deprecation = 'webhooks.retryPolicy "linear" is deprecated, use "exponential"';
    process.emitWarning(deprecation, 'DeprecationWarning', 'LL001');
    setImmediate(() => {  // after the warning is written
      const seen = new Map();
      let delivered = 0, dead = 0;
      for (let i = 0; i < 3000; i++) {
        const area = areas[i % areas.length];
        const id = 'WH-' + String(i).padStart(6, '0');
        if (i % 11 === 3) {
          console.log(`${id} ${area}.updated attempt 5/5 failed: ${codes[i % 3]}; dead-lettered to failed_webhooks`);
          dead++;
        } else if (i % 5 === 1) {
          console.log(`${id} ${area}.updated attempt 2/5 retried after ${codes[i % 3]}; delivered`);
          delivered++;
        } else {
          console.log(`${id} ${area}.created delivered in 1 attempt`);
          delivered++;
        }
        if (i % 500 === 499) console.log(`progress: ${i + 1}/3000 deliveries, heap ok`);
      }
      console.log(`building dedupe index over ${LEAK ? 'full payload bodies' : 'delivery ids'} of exceptions_report`);
      const rounds = LEAK ? Infinity : 20;
      for (let r = 0; r < rounds; r++) {
        for (let i = 0; i < 3000; i++) {
          const key = LEAK ? `${r}:${i}:` + 'error_code=E-0412;'.repeat(40) : `WH-${i}`;
          seen.set(key, { id: i, area: areas[i % areas.length], retries: i % 5 });
        }
      }
      console.log(`aggregated 3000 webhook deliveries: ${delivered} delivered, ${dead} dead-lettered after 5 retries`);
      console.log(`dedupe index: ${seen.size} keys`);
    });
"""


#: The aggregator's run: one GC thread (the same collections every run), its log through a file (complete when the
#: process aborts), then shown.
_NODE = "node --single-threaded --max-old-space-size=48 aggregate.js"


@case(
    "u122_node_heap_oom",
    "node (--max-old-space-size)",
    clean=False,
    group=GROUP,
    decisive=[
        "building dedupe index over full payload bodies of exceptions_report",
        "FATAL ERROR: Reached heap limit Allocation failed - JavaScript heap out of memory",
        "[exit status 134]",
    ],
)
def _node_heap_oom(root: Path) -> bytes:
    write(root, {"aggregate.js": _AGGREGATE})
    return _settle(sh(_NODE + " keep-bodies > aggregate.log 2>&1; rc=$?; cat aggregate.log; exit $rc", root), root)


@case(
    "u122_node_clean",
    "node (--max-old-space-size)",
    clean=True,
    group=GROUP,
    decisive=["aggregated 3000 webhook deliveries: 2727 delivered, 273 dead-lettered after 5 retries"],
)
def _node_clean(root: Path) -> bytes:
    write(root, {"aggregate.js": _AGGREGATE})
    return _settle(sh(_NODE + " > aggregate.log 2>&1; rc=$?; cat aggregate.log; exit $rc", root), root)


# ---------------------------------------------------------------- C++ settlement program under prlimit --as

_BATCHES = _JOBS[:24]

_UNIT = r"""
    // settle/%(name)s.cpp: the %(name)s settlement batch.
    #include <string>
    #include <vector>
    #include "settle.h"

    static int %(name)s_error_code(int status, int unused_retry) {
        return 400 + status;
    }

    long settle_%(name)s(std::vector<Record>& out, int index, bool greedy) {
        for (int i = 0; i < 600; ++i) {
            Record r;
            r.id = "PAY-" + std::to_string(index * 10000 + i);
            r.amount = (i * 37 + index) %% 100000;
            r.status = (i %% 17 == 3) ? %(name)s_error_code(12, 0) : 0;
            out.push_back(r);
        }
        if (greedy) {
            std::vector<std::string> ledger_snapshot;
            ledger_snapshot.reserve(static_cast<size_t>(1) << 24);
        }
        for (int i = 0; i < out.size(); ++i) {
            if (out[i].status) log_line("%(name)s", out[i].id, "error E-0412 card_declined, retry 1/5 scheduled");
        }
        return static_cast<long>(out.size());
    }
"""

_MAIN = r"""
    #include <cstdio>
    #include <cstring>
    #include <vector>
    #include "settle.h"

    void log_line(const char* batch, const std::string& id, const char* msg) {
        std::printf("settle[%s] %s: %s\n", batch, id.c_str(), msg);
    }

    int main(int argc, char** argv) {
        std::setvbuf(stdout, nullptr, _IOLBF, 0);
        const char* greedy = argc > 1 ? argv[1] : "";
        int batches = (int)(sizeof(BATCHES) / sizeof(BATCHES[0]));
        std::printf("settlement run: %d batches, address space limited by prlimit\n", batches);
        long total = 0;
        for (size_t i = 0; i < sizeof(BATCHES) / sizeof(BATCHES[0]); ++i) {
            std::vector<Record> out;
            std::printf("batch %s: settling\n", BATCHES[i].name);
            long n = BATCHES[i].fn(out, (int)i, std::strcmp(greedy, BATCHES[i].name) == 0);
            std::printf("batch %s: settled %ld records\n", BATCHES[i].name, n);
            total += n;
        }
        std::printf("settlement run complete: %d batches, %ld records, 0 aborted\n",
                    (int)(sizeof(BATCHES) / sizeof(BATCHES[0])), total);
        return 0;
    }
"""

_CXX_MAKEFILE = """\
CXX ?= g++
CXXFLAGS ?= -O1 -Wall -Wextra
SRCS := $(wildcard settle/*.cpp) main.cpp
OBJS := $(patsubst %.cpp,build/obj/%.o,$(SRCS))

build/obj/%.o: %.cpp settle.h
\t@mkdir -p $(dir $@)
\t$(CXX) $(CXXFLAGS) -I. -c $< -o $@

build/settle: $(OBJS)
\t$(CXX) -o $@ $(OBJS)

run: build/settle
\tprlimit --as=400000000 ./build/settle $(GREEDY)

.PHONY: run
"""


def _cxx(root: Path) -> None:
    decls = "".join(f"long settle_{b}(std::vector<Record>& out, int index, bool greedy);\n" for b in _BATCHES)
    table = ", ".join(f'{{"{b}", settle_{b}}}' for b in _BATCHES)
    header = (
        "#pragma once\n#include <string>\n#include <vector>\n"
        "struct Record { std::string id; int amount; int status; };\n"
        "void log_line(const char* batch, const std::string& id, const char* msg);\n"
        + decls
        + "struct Batch { const char* name; long (*fn)(std::vector<Record>&, int, bool); };\n"
        + f"static const Batch BATCHES[] = {{{table}}};\n"
    )
    files = {f"settle/{b}.cpp": _UNIT % {"name": b} for b in _BATCHES}
    files.update({"settle.h": header, "main.cpp": _MAIN, "Makefile": _CXX_MAKEFILE})
    write(root, files)


@case(
    "u122_cxx_bad_alloc",
    "make (g++, prlimit)",
    clean=False,
    group=GROUP,
    decisive=[
        "batch chargebacks: settling",
        "what():  std::bad_alloc",
        "make: *** [Makefile:14: run] Aborted",
    ],
)
def _cxx_bad_alloc(root: Path) -> bytes:
    _cxx(root)
    return _settle(sh("make -j1 run GREEDY=chargebacks", root), root)


@case(
    "u122_cxx_clean",
    "make (g++, prlimit)",
    clean=True,
    group=GROUP,
    decisive=["settlement run complete: 24 batches, 14400 records, 0 aborted", "prlimit --as=400000000 ./build/settle"],
)
def _cxx_clean(root: Path) -> bytes:
    _cxx(root)
    return _settle(sh("make -j1 run", root), root)


# ---------------------------------------------------------------- pytest with a RecursionError

_PKG_MOD = '''
    """ledgerline.{name}: records of {name}, their totals and retries."""


    def total(records):
        return sum(r["amount"] for r in records)


    def failed(records):
        return [r for r in records if r.get("status") == "failed"]


    def retry_delay(attempt):
        return 60 * 2 ** max(0, attempt - 1)


    def error_code(status):
        return f"E-{{{index} * 100 + status:04d}}"
'''

_REFUND_CHAIN = '''

    def root_refund(refunds, refund_id):
        """Follow a refund's ``reverses`` link back to the original payment's refund."""
        parent = refunds[refund_id].get("reverses")
        return refund_id if parent is None else root_refund(refunds, parent)
'''

_TEST_MOD = """
    import pytest

    from ledgerline import {name}


    @pytest.mark.parametrize("n", [1, 2, 3])
    def test_total(n):
        assert {name}.total([{{"amount": 100}}] * n) == 100 * n


    def test_failed_filters_status():
        rows = [{{"status": "failed"}}, {{"status": "settled"}}, {{"status": "failed"}}]
        assert len({name}.failed(rows)) == 2


    @pytest.mark.parametrize("attempt,delay", [(1, 60), (2, 120), (3, 240), (4, 480)])
    def test_retry_delay(attempt, delay):
        assert {name}.retry_delay(attempt) == delay


    def test_error_code_declined():
        assert {name}.error_code(12) == "E-{code:04d}"


    def test_error_code_is_string():
        assert isinstance({name}.error_code(0), str)
"""

_CHAIN_TEST = """

    def test_refund_chain_resolves_to_original():
        refunds = {f"RF-{i:04d}": {"reverses": f"RF-{i + 1:04d}"} for i in range(40)}
        refunds["RF-0040"] = {"reverses": "RF-0000"}  # a refund reversing the chain's first: a cycle in bad data
        assert refunds_mod.root_refund(refunds, "RF-0000") == "RF-0040"
"""


@case(
    "u122_pytest_recursion",
    "pytest",
    clean=False,
    group=GROUP,
    decisive=[
        "RecursionError: maximum recursion depth exceeded",
        "FAILED tests/test_refunds.py::test_refund_chain_resolves_to_original",
        "1 failed, 300 passed in 1.00s",
    ],
)
def _pytest_recursion(root: Path) -> bytes:
    files: dict[str, str] = {
        "ledgerline/__init__.py": "",
        "pyproject.toml": '[tool.pytest.ini_options]\ntestpaths = ["tests"]\n',
    }
    for i, name in enumerate(_JOBS):
        files[f"ledgerline/{name}.py"] = _PKG_MOD.format(name=name, index=i) + (
            _REFUND_CHAIN if name == "refunds" else ""
        )
        files[f"tests/test_{name}.py"] = _TEST_MOD.format(name=name, code=i * 100 + 12) + (
            "\n    from ledgerline import refunds as refunds_mod\n" + _CHAIN_TEST if name == "refunds" else ""
        )
    write(root, files)
    return _settle(sh("python -m pytest -v -p no:cacheprovider", root), root)


# ---------------------------------------------------------------- C stack overflow under ulimit -s

_LINT_C = r"""
    /* webhook_lint: a recursive-descent check of a webhook payload's nesting; prints its shape. */
    #include <stdio.h>
    #include <stdlib.h>
    #include <string.h>

    static const char *p;
    static int objects, max_depth, warnings;

    static void value(int depth);

    static void skip_ws(void) { while (*p == ' ' || *p == '\n') p++; }

    static void object(int depth) {
        char key[64];
        objects++;
        if (depth > max_depth) max_depth = depth;
        p++; /* { */
        skip_ws();
        while (*p && *p != '}') {
            size_t n = 0;
            p++; /* " */
            while (*p && *p != '"' && n < sizeof key - 1) key[n++] = *p++;
            key[n] = 0;
            p++; /* " */
            if (strcmp(key, "error_code") == 0) warnings++;
            if (depth <= 12) printf("  %*s%s (depth %d)\n", depth * 2, "", key, depth);
            skip_ws(); p++; /* : */ skip_ws();
            value(depth + 1);
            skip_ws();
            if (*p == ',') { p++; skip_ws(); }
        }
        if (*p) p++;
    }

    static void value(int depth) {
        if (*p == '{') { object(depth); return; }
        while (*p && *p != ',' && *p != '}') p++;
    }

    int main(int argc, char **argv) {
        setvbuf(stdout, NULL, _IOLBF, 0);
        FILE *f = fopen(argv[1], "rb");
        static char buf[4 << 20];
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = 0;
        fclose(f);
        p = buf;
        skip_ws();
        value(0);
        printf("ok %s: %d objects, depth %d\n", argv[1], objects, max_depth);
        if (warnings)
            printf("warning %s: %d fields named 'error_code' (deprecated, use 'failure_code')\n", argv[1], warnings);
        return 0;
    }
"""

_VALIDATE = """
    #!/bin/bash
    # Validate every webhook payload with webhook_lint under an 256 KiB stack limit.
    ulimit -s 256
    n=0; ok=0
    for f in payloads/*.json; do
      n=$((n + 1))
      ./webhook_lint "$f"
      rc=$?
      if [ "$rc" -eq 0 ]; then ok=$((ok + 1)); else echo "CRASH $f (exit $rc)"; fi
    done
    echo "validated $ok/$n payload files, $((n - ok)) crashed"
    [ "$ok" -eq "$n" ]
"""


def _payload(area: str, k: int, depth: int) -> str:
    inner = f'{{"id": "PAY-{k:06d}", "amount": {k * 37 % 9999}, "error_code": "E-0412", "retry": {k % 5}}}'
    heads = "".join(f'{{"event": "{area}.updated", "attempt": {d % 5 + 1}, "data": ' for d in reversed(range(depth)))
    return heads + inner + "}" * depth + "\n"


@case(
    "u122_c_stack_overflow",
    "bash loop (gcc, ulimit -s)",
    clean=False,
    group=GROUP,
    decisive=[
        "Segmentation fault",
        "CRASH payloads/failed_webhooks_0413.json (exit 139)",
        "validated 47/48 payload files, 1 crashed",
        "[exit status 1]",
    ],
)
def _c_stack_overflow(root: Path) -> bytes:
    files = {"webhook_lint.c": _LINT_C, "validate_payloads.sh": _VALIDATE}
    write(root, files)
    areas = _JOBS[:24]
    for i in range(48):
        area = areas[i % len(areas)]
        name = f"{area}_{400 + i:04d}.json"
        depth = 3 + i % 6
        if i == 13:
            area, name, depth = "failed_webhooks", "failed_webhooks_0413.json", 60000
        (root / "payloads").mkdir(exist_ok=True)
        (root / "payloads" / name).write_text(_payload(area, i, depth))
    out = sh("gcc -O0 -Wall -o webhook_lint webhook_lint.c && bash validate_payloads.sh", root)
    return _settle(out, root)
