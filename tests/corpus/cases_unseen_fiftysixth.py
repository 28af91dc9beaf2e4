"""Held-out outputs (group ``unseen-56``): a fifty-sixth batch, post-mortem crash output across runtimes as an agent
sees it when a multi-threaded program dies, with clean runs of the same programs.

Failing runs: ``gdb -batch -ex run -ex 'thread apply all bt'`` of a C ledger daemon with 12 named threads where the
``refunds-0`` thread dereferences a NULL entry after 1,800 log lines, gdb's ``info threads`` and ``thread apply all bt
full`` of a C++ invoice service whose ``reconcile`` thread dies of an uncaught ``std::runtime_error`` (SIGABRT), a
Python ``faulthandler`` dump of a segmentation fault in ``ctypes.string_at`` among 12 threads, a
``faulthandler.dump_traceback_later`` timeout of a settlement job whose two posting threads deadlock among 20, a
Node.js diagnostic report (``--report-uncaught-exception``, the JSON cat'd after the run) of a checkout with six worker
threads and a ``TypeError``, a JVM whose thread dump (``kill -3``) of 40 parked workers is followed by an uncaught
``IllegalStateException`` that halts it, a Go panic (index out of range) with ``GOTRACEBACK=all`` among 120 goroutines,
and ``cargo run`` of a Rust program whose named thread panics with ``RUST_BACKTRACE=full``. Clean runs named after
errors, retries and failures: the same C daemon under gdb exiting normally, a Python pool ``retry_failed_webhooks``
that prints a SIGUSR1 stack snapshot of itself, the JVM thread dump of the settlement service that then finishes, and
the Go retry daemon with every backoff in range. gdb can ptrace here (root in the container). Labels were written with
each scenario, before the engine saw the output. Needs gdb, gcc, g++, a JDK, Go and Node.js (Debian ``gdb``, ``gcc``,
``g++``, ``default-jdk-headless``, ``golang-go``, ``nodejs``), with rustup's stable cargo (already on the machine).
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, case, scrub, sh, substitute, write

GROUP = "unseen-56"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, addresses, thread and process ids."""
    return substitute(
        scrub(out, root),
        (r"\(LWP \d+\)", "(LWP 1000)"),
        (r"process \d+", "process 1000"),
        (r"0x[0-9a-f]{8,16}\b", "0x00007ffff7a00000"),
        (r"expected=\d{3,}", "expected=1000"),
        (r"threadid=\d+", "threadid=140737351841472"),
    )


# ---------------------------------------------------------------- gdb on a multi-threaded C ledger daemon

_LEDGER_H = """
    #ifndef LEDGER_H
    #define LEDGER_H
    struct entry { int id; char account[16]; long amount_cents; };
    struct ledger { struct entry entries[2048]; int count; long balance_cents; };
    struct entry *find_entry(struct ledger *l, int id);
    long apply_refund(struct ledger *l, const struct entry *e);
    long settle_refunds(struct ledger *l, const int *ids, int n);
    #endif
"""

_REFUNDS_C = """
    #include <stddef.h>
    #include "ledger.h"

    struct entry *find_entry(struct ledger *l, int id)
    {
        for (int i = 0; i < l->count; i++)
            if (l->entries[i].id == id)
                return &l->entries[i];
        return NULL;
    }

    long apply_refund(struct ledger *l, const struct entry *e)
    {
        l->balance_cents -= e->amount_cents;
        return l->balance_cents;
    }

    long settle_refunds(struct ledger *l, const int *ids, int n)
    {
        long last = 0;
        for (int i = 0; i < n; i++) {
            struct entry *e = find_entry(l, ids[i]);
            last = apply_refund(l, e);
        }
        return last;
    }
"""

_LEDGERD_C = """
    #define _GNU_SOURCE
    #include <pthread.h>
    #include <stdio.h>
    #include <string.h>
    #include <unistd.h>
    #include "ledger.h"

    #define NWORKERS 12
    #define SETTLER 10
    static const char *NAMES[NWORKERS] = {
        "orders-0", "orders-1", "billing-0", "billing-1", "retry-0", "retry-1",
        "errors-drain", "failed-jobs", "audit-0", "export-0", "refunds-0", "webhooks-0",
    };
    static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
    static pthread_cond_t parked_cv = PTHREAD_COND_INITIALIZER;
    static pthread_cond_t go_cv = PTHREAD_COND_INITIALIZER;
    static int parked, released;
    static struct ledger book;

    static void park(void)
    {
        pthread_mutex_lock(&mu);
        parked++;
        pthread_cond_broadcast(&parked_cv);
        while (!released)
            pthread_cond_wait(&go_cv, &mu);
        pthread_mutex_unlock(&mu);
    }

    static void release_all(void)
    {
        pthread_mutex_lock(&mu);
        while (parked < NWORKERS - 1)
            pthread_cond_wait(&parked_cv, &mu);
        pthread_mutex_unlock(&mu);
        usleep(300000);
    }

    static long run_settlement(void)
    {
        int ids[] = {REFUND_IDS};
        printf("refunds-0: settling %zu refunds against %d entries\\n", sizeof ids / sizeof ids[0], book.count);
        return settle_refunds(&book, ids, sizeof ids / sizeof ids[0]);
    }

    static void *worker(void *arg)
    {
        long id = (long)arg;
        pthread_setname_np(pthread_self(), NAMES[id]);
        if (id != SETTLER) {
            park();
            return NULL;
        }
        release_all();
        long balance = run_settlement();
        printf("refunds-0: settlement done, balance %ld cents\\n", balance);
        pthread_mutex_lock(&mu);
        released = 1;
        pthread_cond_broadcast(&go_cv);
        pthread_mutex_unlock(&mu);
        return NULL;
    }

    int main(void)
    {
        setvbuf(stdout, NULL, _IOLBF, 0);
        for (int i = 0; i < 1800; i++) {
            struct entry *e = &book.entries[book.count++];
            e->id = 90000 + i;
            snprintf(e->account, sizeof e->account, "ACC-%04d", (i * 37) % 1000);
            e->amount_cents = 1000 + (i * 7919) % 50000;
            book.balance_cents += e->amount_cents;
            printf("ledger: posted entry %d account %s amount %ld cents (retry 0, errors 0)\\n",
                   e->id, e->account, e->amount_cents);
        }
        pthread_t threads[NWORKERS];
        for (long i = 0; i < NWORKERS; i++) {
            printf("ledgerd: starting worker %s (retry budget 3, failed jobs 0)\\n", NAMES[i]);
            pthread_create(&threads[i], NULL, worker, (void *)i);
        }
        for (int i = 0; i < NWORKERS; i++)
            pthread_join(threads[i], NULL);
        printf("ledgerd: %d entries, balance %ld cents, all %d workers joined\\n", book.count, book.balance_cents,
               NWORKERS);
        return 0;
    }
"""


def _ledgerd(root: Path, refund_ids: str) -> None:
    write(root, {"src/ledger.h": _LEDGER_H, "src/refunds.c": _REFUNDS_C, "src/ledgerd.c": _LEDGERD_C})
    sh(f"gcc -g -O0 -pthread -DREFUND_IDS='{refund_ids}' -o ledgerd src/ledgerd.c src/refunds.c", root)


_GDB = "gdb -q -nx -batch -ex 'set print thread-events off'"


@case(
    "u56_gdb_threads_segv",
    "gdb",
    clean=False,
    group=GROUP,
    decisive=['"refunds-0" received signal SIGSEGV, Segmentation fault.', "l->balance_cents -= e->amount_cents;"],
)
def _gdb_segv(root: Path) -> bytes:
    _ledgerd(root, "90012, 90377, 91804, 90020")
    return _settle(sh(f"{_GDB} -ex run -ex 'thread apply all bt' --args ./ledgerd", root), root)


@case(
    "u56_gdb_threads_clean",
    "gdb",
    clean=True,
    group=GROUP,
    decisive=["ledgerd: 1800 entries, balance", "exited normally]"],
)
def _gdb_clean(root: Path) -> bytes:
    _ledgerd(root, "90012, 90377, 91704, 90020")
    return _settle(sh(f"{_GDB} -ex run -ex 'thread apply all bt' -ex 'info threads' --args ./ledgerd", root), root)


# ---------------------------------------------------------------- gdb on a C++ invoice service that aborts

_INVOICED_CPP = """
    #include <pthread.h>
    #include <unistd.h>

    #include <condition_variable>
    #include <cstdio>
    #include <mutex>
    #include <stdexcept>
    #include <string>
    #include <thread>
    #include <vector>

    struct Line { std::string sku; long cents; };
    struct Invoice { std::string id; std::vector<Line> lines; long header_total; };

    static std::mutex mu;
    static std::condition_variable parked_cv, go_cv;
    static int parked = 0;
    static bool released = false;

    static const char *NAMES[] = {
        "invoice-0", "invoice-1", "invoice-2", "invoice-3", "tax-0",
        "retry-sched", "errors-report", "exceptions-log", "reconcile", "export-0",
    };
    constexpr int NWORKERS = 10;
    constexpr int RECONCILER = 8;

    class InvoiceWorker {
      public:
        explicit InvoiceWorker(std::vector<Invoice> batch) : batch_(std::move(batch)) {}
        long reconcile() const {
            long grand = 0;
            for (const Invoice &inv : batch_) {
                long sum = 0;
                for (const Line &l : inv.lines) sum += l.cents;
                if (sum != inv.header_total)
                    throw std::runtime_error("invoice " + inv.id + " total mismatch: lines sum to " +
                                             std::to_string(sum) + " cents, header says " +
                                             std::to_string(inv.header_total));
                grand += sum;
            }
            return grand;
        }

      private:
        std::vector<Invoice> batch_;
    };

    static std::vector<Invoice> make_batch() {
        std::vector<Invoice> out;
        for (int i = 400; i < 470; i++) {
            Invoice inv{"INV-2024-0" + std::to_string(i),
                        {{"SKU-A", 42000}, {"SKU-B", 57900}, {"SKU-C", 30000}}, 129900};
            if (i == MISMATCH) inv.header_total = 131900;
            out.push_back(inv);
        }
        return out;
    }

    static void park() {
        std::unique_lock<std::mutex> lock(mu);
        parked++;
        parked_cv.notify_all();
        go_cv.wait(lock, [] { return released; });
    }

    static void work(int id) {
        pthread_setname_np(pthread_self(), NAMES[id]);
        if (id != RECONCILER) {
            park();
            return;
        }
        {
            std::unique_lock<std::mutex> lock(mu);
            parked_cv.wait(lock, [] { return parked == NWORKERS - 1; });
        }
        usleep(300000);
        InvoiceWorker worker(make_batch());
        long grand = worker.reconcile();
        std::printf("reconcile: 70 invoices, %ld cents\\n", grand);
        std::lock_guard<std::mutex> lock(mu);
        released = true;
        go_cv.notify_all();
    }

    int main() {
        setvbuf(stdout, nullptr, _IOLBF, 0);
        for (int i = 0; i < 900; i++)
            std::printf("invoiced: rendered INV-2024-%04d (3 lines, %d cents, tax %d cents, retry 0)\\n", i,
                        129900 + i, (129900 + i) / 5);
        std::vector<std::thread> pool;
        for (int i = 0; i < NWORKERS; i++) {
            std::printf("invoiced: worker %s up\\n", NAMES[i]);
            pool.emplace_back(work, i);
        }
        for (auto &t : pool) t.join();
        std::printf("invoiced: all workers joined\\n");
        return 0;
    }
"""


@case(
    "u56_gdb_cpp_abort_bt_full",
    "gdb",
    clean=False,
    group=GROUP,
    decisive=[
        "what():  invoice INV-2024-0457 total mismatch: lines sum to 129900 cents, header says 131900",
        '"reconcile" received signal SIGABRT, Aborted.',
        "in InvoiceWorker::reconcile (",
    ],
)
def _gdb_cpp_abort(root: Path) -> bytes:
    write(root, {"src/invoiced.cpp": _INVOICED_CPP})
    sh("g++ -g -O0 -pthread -DMISMATCH=457 -o invoiced src/invoiced.cpp", root)
    cmd = f"{_GDB} -ex run -ex 'info threads' -ex 'thread apply all bt full' --args ./invoiced"
    out = substitute(
        sh(cmd, root), (r"jmp_buf = \{[-0-9, ]*\}", "jmp_buf = {0, 0, 0, 0, 0, 0, 0, 0}"), (r"\bw?seq = \d+", "seq = 0")
    )
    return _settle(out, root)


# ---------------------------------------------------------------- Python faulthandler

_EXPORTD_PY = """
    import ctypes
    import faulthandler
    import threading
    import time

    from export_blobs import read_blob

    NAMES = ["orders", "billing", "retry", "errors", "failed_jobs", "audit", "catalog", "pricing", "coupons",
             "export", "session", "webhooks"]
    cond = threading.Condition()
    state = {"parked": 0, "released": False}


    def park():
        with cond:
            state["parked"] += 1
            cond.notify_all()
            cond.wait_for(lambda: state["released"])


    def exporter():
        with cond:
            cond.wait_for(lambda: state["parked"] == len(NAMES) - 1)
        time.sleep(0.3)
        for blob_id in (101, 102, BAD_BLOB):
            data = read_blob(blob_id)
            print(f"export: blob {blob_id} read, {len(data)} bytes", flush=True)
        with cond:
            state["released"] = True
            cond.notify_all()


    def main():
        faulthandler.enable(all_threads=True)
        for i in range(1500):
            print(f"exportd: queued row {i:05d} table=orders_archive retry=0 errors=0 bytes={512 + i * 13 % 4096}")
        threads = [threading.Thread(target=exporter if n == "export" else park, name=f"{n}-worker") for n in NAMES]
        for t in threads:
            print(f"exportd: started {t.name}", flush=True)
            t.start()
        for t in threads:
            t.join()
        print("exportd: export finished")


    if __name__ == "__main__":
        main()
"""

_EXPORT_BLOBS_PY = """
    import ctypes

    _ARENA = ctypes.create_string_buffer(4096)


    def _address_of(blob_id):
        if blob_id >= 900:
            return 8  # the blob index is only loaded for ids below 900: a stale offset
        return ctypes.addressof(_ARENA) + blob_id


    def read_blob(blob_id):
        address = _address_of(blob_id)
        return ctypes.string_at(address, 64)
"""


def _py_settle(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"0x[0-9a-f]{8,16}\b", "0x00007f0000000000"))


@case(
    "u56_py_faulthandler_segv",
    "python faulthandler",
    clean=False,
    group=GROUP,
    decisive=["Fatal Python error: Segmentation fault", 'export_blobs.py", line 14 in read_blob'],
)
def _py_segv(root: Path) -> bytes:
    write(root, {"app/exportd.py": _EXPORTD_PY.replace("BAD_BLOB", "947"), "app/export_blobs.py": _EXPORT_BLOBS_PY})
    return _py_settle(sh(f"{PY} -u app/exportd.py", root), root)


_SETTLEMENT_PY = """
    import faulthandler
    import queue
    import threading

    ledger_lock = threading.Lock()
    refunds_lock = threading.Lock()
    both_holding = threading.Barrier(2)
    jobs = queue.Queue()


    def take(lock, holder):
        lock.acquire()  # no timeout: the posting must not be lost
        return holder


    def post_ledger_then_refund(entry):
        with ledger_lock:
            both_holding.wait()
            take(refunds_lock, "ledger-poster")
            refunds_lock.release()
            return entry


    def post_refund_then_ledger(refund):
        with refunds_lock:
            both_holding.wait()
            take(ledger_lock, "refunds-poster")
            ledger_lock.release()
            return refund


    def queue_worker():
        while True:
            job = jobs.get()
            if job is None:
                return


    def main():
        faulthandler.dump_traceback_later(3, exit=True)
        for i in range(2400):
            print(f"settlement: reconciled invoice INV-{i:05d} against ledger (retry=0, failed=0, errors=0)")
        names = ["billing", "orders", "cart", "tax", "retry", "errors", "exceptions", "auth", "session", "invoice",
                 "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export"]
        pool = [threading.Thread(target=queue_worker, name=f"{n}-queue") for n in names]
        pool.append(threading.Thread(target=post_ledger_then_refund, args=("E-1",), name="ledger-poster"))
        pool.append(threading.Thread(target=post_refund_then_ledger, args=("R-1",), name="refunds-poster"))
        for t in pool:
            print(f"settlement: started {t.name}", flush=True)
            t.start()
        for t in pool:
            t.join()
        print("settlement: done")


    if __name__ == "__main__":
        main()
"""


@case(
    "u56_py_dump_later_deadlock",
    "python faulthandler",
    clean=False,
    group=GROUP,
    decisive=[
        "Timeout (0:00:03)!",
        'settlement.py", line 19 in post_ledger_then_refund',
        'settlement.py", line 27 in post_refund_then_ledger',
    ],
)
def _py_deadlock(root: Path) -> bytes:
    write(root, {"app/settlement.py": _SETTLEMENT_PY})
    return _py_settle(sh(f"{PY} -u app/settlement.py", root), root)


_RETRY_WEBHOOKS_PY = """
    import faulthandler
    import os
    import signal
    import threading

    from webhook_errors import classify

    NAMES = ["retry-failed-0", "retry-failed-1", "retry-failed-2", "errors-sink", "exceptions-audit",
             "dead-letter", "webhooks-0", "webhooks-1"]
    cond = threading.Condition()
    state = {"parked": 0, "released": False}
    results = {name: [] for name in NAMES}


    def deliver(name, index):
        with cond:
            state["parked"] += 1
            cond.notify_all()
            cond.wait_for(lambda: state["released"])
        for k in range(300):
            event = index * 300 + k
            results[name].append((event, classify(200 if event % 17 else 202)))


    def main():
        faulthandler.register(signal.SIGUSR1, all_threads=True)
        threads = [threading.Thread(target=deliver, args=(n, i), name=n) for i, n in enumerate(NAMES)]
        for t in threads:
            print(f"retry_failed_webhooks: started {t.name}", flush=True)
            t.start()
        with cond:
            cond.wait_for(lambda: state["parked"] == len(NAMES))
        print("retry_failed_webhooks: pool parked, stack snapshot (SIGUSR1) follows", flush=True)
        os.kill(os.getpid(), signal.SIGUSR1)
        with cond:
            state["released"] = True
            cond.notify_all()
        for t in threads:
            t.join()
        failed = retried = 0
        for name in NAMES:
            for event, verdict in results[name]:
                print(f"{name}: event {event:05d} delivered ({verdict}, attempts=1, failed=0)")
                failed += verdict == "failed"
        print(f"webhooks: 2400 deliveries sent, {failed} failed, {retried} retried")


    if __name__ == "__main__":
        main()
"""

_WEBHOOK_ERRORS_PY = """
    def classify(status):
        if status >= 500:
            return "failed"
        if status == 429:
            return "retry"
        return "ok" if status == 200 else "accepted"
"""


@case(
    "u56_py_sigusr1_snapshot_clean",
    "python faulthandler",
    clean=True,
    group=GROUP,
    decisive=["webhooks: 2400 deliveries sent, 0 failed, 0 retried"],
)
def _py_snapshot_clean(root: Path) -> bytes:
    write(root, {"app/retry_failed_webhooks.py": _RETRY_WEBHOOKS_PY, "app/webhook_errors.py": _WEBHOOK_ERRORS_PY})
    return _py_settle(sh(f"{PY} -u app/retry_failed_webhooks.py", root), root)


# ---------------------------------------------------------------- Node.js diagnostic report

_CHECKOUT_JS = """
    'use strict';
    const { Worker } = require('node:worker_threads');
    const path = require('node:path');
    const { applyCoupon } = require('./coupons');

    const POOL = ['pricing-0', 'pricing-1', 'tax-0', 'retry-queue', 'errors-reporter', 'audit-log'];
    const workers = POOL.map((name) => new Worker(path.join(__dirname, 'worker.js'), { workerData: { name }, name }));
    let ready = 0;

    for (const w of workers) {
      w.on('message', () => {
        if (++ready < workers.length) return;
        for (const name of POOL) console.log(`checkout: worker ${name} ready`);
        setTimeout(checkoutBatch, 50);
      });
    }

    function checkoutBatch() {
      const orders = [];
      for (let i = 0; i < 1600; i++) {
        orders.push({ id: `ORD-${String(i).padStart(5, '0')}`, totalCents: 2500 + i * 3,
                      coupon: i === 1211 ? undefined : { code: 'SPRING10', amountCents: 250 } });
      }
      for (const order of orders) {
        const net = order.totalCents - applyCoupon(order);
        console.log(`checkout: ${order.id} total=${order.totalCents} net=${net} retry=0 errors=0`);
      }
    }
"""

_COUPONS_JS = """
    'use strict';

    function couponAmount(coupon) {
      return coupon.amountCents;
    }

    function applyCoupon(order) {
      if (order.totalCents < 1000) return 0;
      return couponAmount(order.coupon);
    }

    module.exports = { applyCoupon };
"""

_WORKER_JS = """
    'use strict';
    const { parentPort, workerData } = require('node:worker_threads');
    parentPort.postMessage(`${workerData.name} ready`);
    parentPort.on('message', () => {});
"""


def _node_settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r'^(\s*"[A-Za-z_]+": )-?\d+(\.\d+)?(,?)$', r"\g<1>0\3"),
        (r"^(\s*)-?\d+(\.\d+)?(,?)$", r"\g<1>0\3"),
        (r'^(\s*"(dumpEventTime|dumpEventTimeStamp|host|hostname|osVersion|osRelease|model)": )".*"', r'\1"x"'),
        (r"0x[0-9a-f]{4,16}\b", "0x0000000000000000"),
        (r'^(\s*"(mac|address|netmask|cidr)": )".*"', r'\1"x"'),
    )


@case(
    "u56_node_report_uncaught",
    "node diagnostic report",
    clean=False,
    group=GROUP,
    decisive=[
        '"message": "TypeError: Cannot read properties of undefined (reading \'amountCents\')"',
        '"at couponAmount (/tmp/work/app/coupons.js:',
    ],
)
def _node_report(root: Path) -> bytes:
    write(root, {"app/checkout.js": _CHECKOUT_JS, "app/coupons.js": _COUPONS_JS, "app/worker.js": _WORKER_JS})
    node = f"env -i PATH=/usr/bin:/bin HOME={root} node --report-uncaught-exception --report-filename=report.json"
    cmd = f"{node} app/checkout.js; status=$?; cat report.json; exit $status"
    return _node_settle(sh(cmd, root), root)


# ---------------------------------------------------------------- a JVM: a SIGQUIT thread dump, an uncaught exception

_SETTLEMENTD_JAVA = """
    package billing.settlement;

    import java.io.BufferedReader;
    import java.io.InputStreamReader;
    import java.nio.file.Files;
    import java.nio.file.Path;
    import java.util.ArrayList;
    import java.util.List;
    import java.util.Map;
    import java.util.concurrent.CountDownLatch;

    public final class Settlementd {
        static final int WORKERS = WORKER_COUNT;
        static final CountDownLatch RELEASE = new CountDownLatch(1);
        static final CountDownLatch PARKED = new CountDownLatch(WORKERS);
        static final String[] AREAS = {"orders", "billing", "cart", "tax", "retry", "errors", "exceptions", "ledger"};

        static final class LedgerClient {
            private final Map<String, Long> balances = Map.of("ACC-0001", 125_000L, "ACC-0002", 98_400L);

            long balanceOf(String account) {
                Long cents = balances.get(account);
                if (cents == null) {
                    throw new IllegalStateException("ledger has no balance for account " + account
                            + " (refund RF-77812 cannot be settled)");
                }
                return cents;
            }
        }

        static final class RefundSettler {
            private final LedgerClient ledger = new LedgerClient();

            long settle(String account, long refundCents) {
                return ledger.balanceOf(account) - refundCents;
            }

            void settleBatch(List<String> accounts) {
                for (String account : accounts) {
                    System.out.println("refunds-settler: settled " + account + ", balance " + settle(account, 500));
                }
            }
        }

        static void parkWorker() {
            PARKED.countDown();
            try {
                RELEASE.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        public static void main(String[] args) throws Exception {
            Thread.setDefaultUncaughtExceptionHandler((t, e) -> {
                System.err.println(
                        "settlementd: FATAL uncaught exception in thread \\"" + t.getName() + "\\", halting");
                e.printStackTrace();
                Runtime.getRuntime().halt(70);
            });
            for (int i = 0; i < 1200; i++) {
                System.out.println("settlementd: loaded refund RF-" + (76000 + i) + " account ACC-"
                        + String.format("%04d", i % 40) + " amount " + (500 + i * 7 % 900)
                        + " cents (retry 0, errors 0)");
            }
            List<Thread> pool = new ArrayList<>();
            for (int i = 0; i < WORKERS; i++) {
                Thread t = new Thread(Settlementd::parkWorker, AREAS[i % AREAS.length] + "-worker-" + i);
                pool.add(t);
                t.start();
            }
            PARKED.await();
            Thread.sleep(300);
            System.out.println("settlementd: " + WORKERS + " workers parked, waiting for the operator on stdin");
            Files.writeString(Path.of("settlementd.pid"), Long.toString(ProcessHandle.current().pid()));
            new BufferedReader(new InputStreamReader(System.in)).readLine();
            Thread settler = new Thread(
                    () -> new RefundSettler().settleBatch(List.of("ACC-0001", "ACC-0002", ACCOUNT)), "refunds-settler");
            settler.start();
            settler.join();
            RELEASE.countDown();
            for (Thread t : pool) {
                t.join();
            }
            System.out.println("settlementd: all refunds settled, " + WORKERS + " workers stopped");
        }
    }
"""


def _java_settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d$", "2026-01-01 00:00:00"),
        (r"cpu=\d+(\.\d+)?ms elapsed=\d+(\.\d+)?s", "cpu=1.00ms elapsed=1.00s"),
        (r"nid=0x[0-9a-f]+|nid=\d+", "nid=1000"),
        (r"0x[0-9a-f]{8,16}\b", "0x00007f0000000000"),
        (r"(total|used) \d+K", r"\1 1000K"),
        (r"\d+% used", "1% used"),
        (r"(committed|reserved|space) \d+K", r"\1 1000K"),
    )


def _settlementd(root: Path, account: str, workers: int) -> str:
    src = _SETTLEMENTD_JAVA.replace("ACCOUNT", f'"{account}"').replace("WORKER_COUNT", str(workers))
    write(root, {"src/billing/settlement/Settlementd.java": src})
    sh("javac -d classes src/billing/settlement/Settlementd.java", root)
    operator = "while [ ! -s settlementd.pid ]; do sleep 0.1; done; sleep 0.5; kill -3 $(cat settlementd.pid); sleep 1"
    return f"({operator}; echo go) | java -Xint -XX:+UseSerialGC -Xmx64m -cp classes billing.settlement.Settlementd"


@case(
    "u56_jvm_thread_dump_uncaught",
    "java",
    clean=False,
    group=GROUP,
    decisive=[
        "java.lang.IllegalStateException: ledger has no balance for account ACC-0093 (refund RF-77812",
        "at billing.settlement.Settlementd$LedgerClient.balanceOf(Settlementd.java:",
        'FATAL uncaught exception in thread "refunds-settler", halting',
    ],
)
def _jvm_uncaught(root: Path) -> bytes:
    return _java_settle(sh(_settlementd(root, "ACC-0093", 40), root), root)


@case(
    "u56_jvm_thread_dump_clean",
    "java",
    clean=True,
    group=GROUP,
    decisive=["settlementd: all refunds settled, 24 workers stopped"],
)
def _jvm_clean(root: Path) -> bytes:
    return _java_settle(sh(_settlementd(root, "ACC-0002", 24), root), root)


# ---------------------------------------------------------------- Go: GOTRACEBACK=all among many goroutines

_GO_MAIN = """
    package main

    import (
        "fmt"
        "sync"
        "time"
    )

    var backoffSeconds = []int{1, 2, 4, 8, 16, 32, 64}

    func nextDelay(attempt int) time.Duration {
        return time.Duration(backoffSeconds[attempt]) * time.Second
    }

    func scheduleRetry(job string, attempt int) string {
        return fmt.Sprintf("%s retry in %s", job, nextDelay(attempt))
    }

    func retryScheduler(failedJobs map[string]int, out chan<- string) {
        for _, job := range []string{"job-00017", "job-00342", "job-01207"} {
            out <- scheduleRetry(job, failedJobs[job])
        }
        close(out)
    }

    func idleConsumer(jobs <-chan string, done *sync.WaitGroup) {
        defer done.Done()
        for range jobs {
        }
    }

    func main() {
        for i := 0; i < 1500; i++ {
            fmt.Printf("retryd: queued job-%05d queue=failed_jobs attempts=%d errors=0\\n", i, i%4)
        }
        jobs := make(chan string)
        var consumers sync.WaitGroup
        for i := 0; i < 120; i++ {
            consumers.Add(1)
            go idleConsumer(jobs, &consumers)
        }
        time.Sleep(200 * time.Millisecond)
        failedJobs := map[string]int{"job-00017": 2, "job-00342": 5, "job-01207": ATTEMPTS}
        scheduled := make(chan string)
        go retryScheduler(failedJobs, scheduled)
        for line := range scheduled {
            fmt.Println("retryd:", line)
        }
        close(jobs)
        consumers.Wait()
        fmt.Println("retryd: 3 failed jobs rescheduled, 120 consumers drained, 0 errors")
    }
"""


def _go_settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"0x[0-9a-f]+\b", "0x0"),
        (r"\+0x0\b", "+0x0"),
    )


def _retryd(root: Path, attempts: int) -> str:
    write(
        root,
        {"retryd/main.go": _GO_MAIN.replace("ATTEMPTS", str(attempts)), "retryd/go.mod": "module retryd\n\ngo 1.19\n"},
    )
    env = f"GOCACHE={root / 'gocache'} GOPATH={root / 'gopath'} GOFLAGS=-mod=mod GOTOOLCHAIN=local"
    return f"cd retryd && {env} go build -o retryd . && GOTRACEBACK=all ./retryd"


@case(
    "u56_go_panic_gotraceback_all",
    "go",
    clean=False,
    group=GROUP,
    decisive=["panic: runtime error: index out of range [7] with length 7", "main.nextDelay(...)", "retryd/main.go:12"],
)
def _go_panic(root: Path) -> bytes:
    return _go_settle(sh(_retryd(root, 7), root), root)


@case(
    "u56_go_retryd_clean",
    "go",
    clean=True,
    group=GROUP,
    decisive=["retryd: 3 failed jobs rescheduled, 120 consumers drained, 0 errors"],
)
def _go_clean(root: Path) -> bytes:
    return _go_settle(sh(_retryd(root, 3), root), root)


# ---------------------------------------------------------------- Rust: a named thread panics, RUST_BACKTRACE=full

_TAXD_MAIN_RS = """
    mod rates;

    use std::sync::mpsc;
    use std::thread;

    const AREAS: [&str; 8] = ["orders", "billing", "retry", "errors", "invoice", "shipping", "audit", "tax"];

    fn main() {
        for i in 0..1400 {
            let region = rates::REGIONS[i % 4];
            println!("taxd: loaded line {:05} region {} net {} cents (retry 0, errors 0)", i, region, 900 + i);
        }
        let (stop_tx, stop_rx) = mpsc::channel::<()>();
        let stop_rx = std::sync::Arc::new(std::sync::Mutex::new(stop_rx));
        let mut idle = Vec::new();
        for i in 0..16 {
            let rx = stop_rx.clone();
            let name = format!("{}-worker-{}", AREAS[i % AREAS.len()], i);
            idle.push(thread::Builder::new().name(name).spawn(move || { let _ = rx.lock().unwrap().recv(); }).unwrap());
        }
        let quarter = thread::Builder::new()
            .name("tax-quarter-close".into())
            .spawn(|| rates::close_quarter(&["DE-BY", "FR-IDF", "NL-NH", "EU-WEST"]))
            .unwrap();
        let total = quarter.join().unwrap();
        println!("taxd: quarter closed, {} cents of tax", total);
        drop(stop_tx);
        for t in idle {
            t.join().unwrap();
        }
    }
"""

_TAXD_RATES_RS = """
    use std::collections::HashMap;

    pub const REGIONS: [&str; 4] = ["DE-BY", "FR-IDF", "NL-NH", "IT-LOM"];

    fn rate_table() -> HashMap<&'static str, u64> {
        REGIONS.iter().zip([19u64, 20, 21, 22]).map(|(r, p)| (*r, p)).collect()
    }

    fn rate_for(table: &HashMap<&'static str, u64>, region: &str) -> u64 {
        match table.get(region) {
            Some(rate) => *rate,
            None => panic!("rate table missing region '{}' (known: {} regions)", region, table.len()),
        }
    }

    fn tax_for_region(table: &HashMap<&'static str, u64>, region: &str, net: u64) -> u64 {
        net * rate_for(table, region) / 100
    }

    pub fn close_quarter(regions: &[&str]) -> u64 {
        let table = rate_table();
        regions.iter().map(|r| tax_for_region(&table, r, 125_000)).sum()
    }
"""


def _rust_settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"0x[0-9a-f]{6,16}\b", "0x0000000000000000"),
        (r"::h[0-9a-f]{16}\b", "::h0000000000000000"),
        (r" in \d+(\.\d+)?m?s\b", " in 1.00s"),
        (r"/rustc/[0-9a-f]{40}/", "/rustc/0000/"),
        (r"^thread '([^']+)' \(\d+\) panicked", r"thread '\1' (1000) panicked"),
    )


@case(
    "u56_rust_thread_panic_full",
    "cargo run",
    clean=False,
    group=GROUP,
    decisive=[
        "thread 'tax-quarter-close' (1000) panicked at src/rates.rs:12:17:",
        "rate table missing region 'EU-WEST' (known: 4 regions)",
        "at /tmp/work/taxd/src/rates.rs:12:17",
    ],
)
def _rust_panic(root: Path) -> bytes:
    write(
        root,
        {
            "taxd/Cargo.toml": '[package]\nname = "taxd"\nversion = "0.3.1"\nedition = "2021"\n',
            "taxd/src/main.rs": _TAXD_MAIN_RS,
            "taxd/src/rates.rs": _TAXD_RATES_RS,
        },
    )
    cargo = f"CARGO_HOME={root / 'cargo-home'} CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0 {_CARGO}"
    return _rust_settle(sh(f"cd taxd && RUST_BACKTRACE=full {cargo} run --offline", root), root)


_CARGO = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"
