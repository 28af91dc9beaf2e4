"""Held-out outputs (group ``unseen-64``): a sixty-fourth batch, sanitizers, fuzzers and dynamic checkers on small C
and C++ programs built with Debian's clang 14 and gcc 12, as an agent runs them (the build command and the run in one
tool result).

Failing runs: ``make -k check`` of seven AddressSanitizer test programs where the third one, ``test_orders_cache``,
reads an order after ``cache_evict`` freed it (heap-use-after-free, long allocation and free stacks, four more test
programs after it); a clang++ catalog import (run under ``setarch -R``, so that its stack is laid out the same on
every run) that overflows a stack buffer 36 recursive calls deep; a tax report run with
``UBSAN_OPTIONS=halt_on_error=0`` whose three ``runtime error:`` lines sit among 6,000 normal lines (exit 0); a
ThreadSanitizer data race on the retry scheduler's counter in the middle of a verbose run; a ``run_tests.sh`` of eight
LeakSanitizer programs where the session store leaks; a libFuzzer run (``-seed=1``) that finds a heap-buffer-overflow
in an invoice parser after 750 ``NEW``/``REDUCE``/``pulse`` lines; ``make -k`` with ``gcc -fanalyzer`` over 21 files,
its long event paths, warnings and one ``-Werror=analyzer-double-free``; and valgrind memcheck ``--leak-check=full``
of a catalog sync with 14,002 allocations and one invalid read (exit 0). Clean runs named after errors and failures:
an ASan+UBSan build of ``error_queue``, ``retry_failed`` and ``exception_log`` replaying failed jobs, a ThreadSanitizer
build of retry workers with their mutexes right, a libFuzzer run of ``parse_retry_policy`` bounded by ``-runs``, and
valgrind on ``failed_jobs_report`` (``ERROR SUMMARY: 0 errors``). Labels were written with each scenario, before the
engine saw the output. Needs clang (with compiler-rt's sanitizers and libFuzzer) and llvm-symbolizer, gcc, make and
valgrind (Debian ``clang``, ``llvm``, ``gcc``, ``make``, ``valgrind``) and util-linux's ``setarch``, all already on the
machine.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-64"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, PIDs, thread ids, addresses, speeds, times."""
    return substitute(
        scrub(out, root),
        (r"==\d+==", "==1000=="),
        (r"\(pid=\d+\)", "(pid=1000)"),
        (r"tid=\d+", "tid=1000"),
        (r"0x[0-9a-fA-F]{6,16}\b", "0x000000000000"),
        (r"\+0x[0-9a-f]+\)", "+0x0)"),
        (r"\(BuildId: [0-9a-f]+\)", "(BuildId: 0000)"),
        (r"exec/s: \d+", "exec/s: 1000"),
        (r"rss: \d+Mb", "rss: 40Mb"),
        (r"runs in \d+ second\(s\)", "runs in 1 second(s)"),
        (r"stat::(peak_rss_mb|average_exec_per_sec):\s+\d+", r"stat::\1: 40"),
    )


_MAIN_START = "    setvbuf(stdout, NULL, _IOLBF, 0);\n"


# ---------------------------------------------------------------- AddressSanitizer: make -k check


_ORDERS_H = """
#pragma once
struct order { int id; long cents; char ref[24]; };
struct order *order_new(int id, long cents);
void cache_fill(int first, int count);
void cache_evict(int id);
long cache_lookup(int id);
long weigh(long cents, int k);
"""

_ORDER_CACHE_C = """
#include <stdio.h>
#include <stdlib.h>
#include "orders.h"

static struct order *slots[256];

static struct order *order_alloc(int id) {
    struct order *o = calloc(1, sizeof *o);
    o->id = id;
    return o;
}

struct order *order_new(int id, long cents) {
    struct order *o = order_alloc(id);
    o->cents = cents;
    snprintf(o->ref, sizeof o->ref, "ORD-%06d", id);
    return o;
}

static void cache_put(struct order *o) { slots[o->id % 256] = o; }

void cache_fill(int first, int count) {
    for (int i = first; i < first + count; i++)
        cache_put(order_new(i, 1999L + i * 37L));
}

static void order_free(struct order *o) { free(o); }

static void release_order(int id) { order_free(slots[id % 256]); }

void cache_evict(int id) { release_order(id); }

long cache_lookup(int id) {
    struct order *o = slots[id % 256];
    return o ? o->cents : -1;
}

long weigh(long cents, int k) { return (cents * k) % 1009; }
"""

_TEST_ORDERS_CACHE_C = """
#include <stdio.h>
#include "orders.h"

static void load_orders(int count) { cache_fill(0, count); }
static void load_fixture(void) { load_orders(200); }

static void expire_batch(int first, int last) {
    for (int id = first; id <= last; id++) {
        printf("  evict order %d (expired)\\n", id);
        cache_evict(id);
    }
}

static long sum_range(int first, int last) {
    long total = 0;
    for (int id = first; id <= last; id++) {
        long cents = cache_lookup(id);
        printf("ok %d - orders_cache: lookup(%d) == %ld\\n", id + 1, id, cents);
        total += cents;
    }
    return total;
}

static long report_totals(void) { return sum_range(0, 199); }

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("# orders_cache: loading fixture\\n");
    load_fixture();
    expire_batch(137, 139);
    printf("# orders_cache: total %ld\\n", report_totals());
    return 0;
}
"""

_CHECK_AREAS = ["pricing", "tax", "orders_cache", "refunds", "shipping", "coupons", "ledger"]


def _area_test(area: str, k: int) -> str:
    return (
        '#include <stdio.h>\n#include "orders.h"\n\nint main(void) {\n' + _MAIN_START + "    int failed = 0;\n"
        f'    printf("# {area}: 240 cases\\n");\n'
        "    for (int i = 1; i <= 240; i++) {\n"
        f"        long got = weigh(i * 37L, {k});\n"
        f"        long want = (i * 37L * {k}) % 1009;\n"
        "        if (got != want) failed++;\n"
        f'        printf("%s %d - {area}: weigh(%ld, {k}) == %ld\\n",\n'
        '               got == want ? "ok" : "not ok", i, i * 37L, got);\n'
        "    }\n"
        f'    printf("# {area}: %d failed\\n", failed);\n'
        "    return failed != 0;\n}\n"
    )


@case(
    "u64_asan_uaf_make_check",
    "clang -fsanitize=address (make -k check)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: AddressSanitizer: heap-use-after-free on address",
        "SUMMARY: AddressSanitizer: heap-use-after-free /tmp/work/src/order_cache.c:35:",
        "FAIL: test_orders_cache",
    ],
)
def _asan_uaf(root: Path) -> bytes:
    files = {"include/orders.h": _ORDERS_H, "src/order_cache.c": _ORDER_CACHE_C}
    for k, area in enumerate(_CHECK_AREAS):
        files[f"tests/test_{area}.c"] = _TEST_ORDERS_CACHE_C if area == "orders_cache" else _area_test(area, k + 3)
    write(root, files)
    tests = " ".join(f"test_{a}" for a in _CHECK_AREAS)
    (root / "Makefile").write_text(
        "CC = clang\nCFLAGS = -g -O0 -fsanitize=address -fno-omit-frame-pointer -Wall -Iinclude\n"
        f"TESTS = {tests}\n\n"
        "all: $(TESTS:%=build/%)\n\n"
        "build/%.o: src/%.c include/orders.h\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n\n"
        "build/test_%: tests/test_%.c build/order_cache.o\n\t$(CC) $(CFLAGS) $^ -o $@\n\n"
        "check: all\n"
        '\t@fail=0; for t in $(TESTS); do echo "=== RUN $$t"; if ./build/$$t; then echo "PASS: $$t";'
        ' else echo "FAIL: $$t (exit $$?)"; fail=$$((fail+1)); fi; done;'
        ' echo "# $$fail of 7 test programs failed"; test $$fail -eq 0\n'
    )
    return _settle(sh("make -k check", root), root)


# ---------------------------------------------------------------- AddressSanitizer: deep stack-buffer-overflow


_CATALOG_CPP = """
#include <cstdio>
#include <string>
#include <vector>

static const char *kDepartments[] = {
    "books", "garden", "kitchen", "toys", "music", "outdoor", "office", "pets", "sports", "tools",
    "audio", "bath", "bedding", "crafts", "decor", "fitness", "grocery", "health", "lighting", "luggage",
    "baby", "hardware", "storage", "travel",
};

static void format_breadcrumb(const std::vector<std::string> &parts) {
    char crumb[96];
    size_t at = 0;
    for (const std::string &p : parts) {
        for (char c : p) crumb[at++] = c;
        crumb[at++] = '/';
    }
    crumb[at] = '\\0';
    std::printf("    breadcrumb: %s\\n", crumb);
}

static void emit_node(const std::vector<std::string> &parts) {
    if (parts.size() > 1) format_breadcrumb(parts);
}

static void parse_node(std::vector<std::string> &parts, int depth, int max_depth) {
    std::printf("  import %s level %d: %s\\n", parts[0].c_str(), depth, parts.back().c_str());
    if (depth == max_depth) {
        emit_node(parts);
        return;
    }
    parts.push_back("sub" + std::to_string(depth + 1));
    parse_node(parts, depth + 1, max_depth);
    parts.pop_back();
}

static void import_department(const char *name, int depth) {
    std::vector<std::string> parts{name};
    for (int sku = 0; sku < 60; sku++)
        std::printf("  sku %s-%04d: price ok, stock ok, images 3\\n", name, sku);
    parse_node(parts, 0, depth);
    std::printf("department %s imported\\n", name);
}

static void import_catalog() {
    int n = 0;
    for (const char *d : kDepartments) import_department(d, d[0] == 'h' && d[1] == 'a' ? 36 : 3 + n++ % 4);
}

int main() {
    std::setvbuf(stdout, nullptr, _IOLBF, 0);
    std::printf("catalog_import: 24 departments\\n");
    import_catalog();
    std::printf("catalog_import: done\\n");
    return 0;
}
"""


@case(
    "u64_asan_stack_overflow_deep",
    "clang++ -fsanitize=address (build and run)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: AddressSanitizer: stack-buffer-overflow on address",
        "SUMMARY: AddressSanitizer: stack-buffer-overflow /tmp/work/src/catalog_import.cpp:15:",
        "'crumb' (line 12) <== Memory access at offset",
    ],
)
def _asan_stack(root: Path) -> bytes:
    write(root, {"src/catalog_import.cpp": _CATALOG_CPP})
    cmd = (
        "clang++ -std=c++17 -g -O0 -fsanitize=address -fno-omit-frame-pointer src/catalog_import.cpp"
        " -o catalog_import && ASAN_OPTIONS=detect_stack_use_after_return=0 setarch x86_64 -R ./catalog_import"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)


# ---------------------------------------------------------------- UndefinedBehaviorSanitizer, halt_on_error=0


_TAX_C = """
#include <stdio.h>

static const int kMonthRate[12] = {19, 19, 19, 20, 20, 20, 21, 21, 21, 22, 22, 22};

int bracket_total(int base, int bonus) {
    int total = base + bonus;
    return total;
}

unsigned rounding_mask(int digits) {
    return 1u << digits;
}

int month_rate(int month) {
    return kMonthRate[month];
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    printf("tax_report: fiscal year 2025, 500 accounts x 12 months\\n");
    long grand = 0;
    for (int acct = 1; acct <= 500; acct++) {
        for (int m = 0; m < 12; m++) {
            int base = acct == 173 && m == 6 ? 2147480000 : acct * 1000 + m;
            int rate = month_rate(acct == 311 && m == 11 ? 12 : m);
            int total = bracket_total(base, 5000);
            unsigned mask = rounding_mask(acct == 402 ? 34 : m % 8);
            grand += total % 997;
            printf("acct %04d month %02d base %d rate %d%% total %d mask %u\\n", acct, m + 1, base, rate, total, mask);
        }
    }
    printf("tax_report: grand total %ld\\n", grand);
    return 0;
}
"""


@case(
    "u64_ubsan_tax_report_recover",
    "clang -fsanitize=undefined (halt_on_error=0)",
    clean=False,
    group=GROUP,
    decisive=[
        "tax_rates.c:6:22: runtime error: signed integer overflow",
        "tax_rates.c:11:15: runtime error: shift exponent 34 is too large",
        "tax_rates.c:15:12: runtime error: index 12 out of bounds",
    ],
)
def _ubsan(root: Path) -> bytes:
    write(root, {"src/tax_rates.c": _TAX_C})
    cmd = (
        "clang -g -O0 -fsanitize=undefined -Wall src/tax_rates.c -o tax_report"
        " && UBSAN_OPTIONS=halt_on_error=0:print_stacktrace=1 ./tax_report"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)


# ---------------------------------------------------------------- ThreadSanitizer


_RETRY_SCHED_C = """
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>

struct stats { long scheduled; long retries; long dropped; };
static struct stats g_stats;
static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void record_retry(long n) {
    g_stats.retries += n;
}

static void process_batch(int batch) {
    for (int job = 0; job < 50; job++) {
        pthread_mutex_lock(&g_lock);
        g_stats.scheduled++;
        pthread_mutex_unlock(&g_lock);
        if (job % 7 == batch % 7) record_retry(1);
    }
}

static void *worker_main(void *arg) {
    (void)arg;
    for (int batch = 0; batch < 20; batch++) process_batch(batch);
    return NULL;
}

static long read_retries(void) {
    return g_stats.retries;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_t worker;
    printf("retry_scheduler: starting worker\\n");
    pthread_create(&worker, NULL, worker_main, NULL);
    usleep(300000);
    for (int tick = 0; tick < 900; tick++)
        printf("tick %03d: queue depth %d, next retry in %d ms, backoff x%d\\n", tick, tick % 17, 250 * (tick % 5 + 1),
               1 << (tick % 4));
    printf("retry_scheduler: retries so far %ld\\n", read_retries());
    for (int tick = 900; tick < 1500; tick++)
        printf("tick %03d: queue depth %d, next retry in %d ms, backoff x%d\\n", tick, tick % 17, 250 * (tick % 5 + 1),
               1 << (tick % 4));
    pthread_join(worker, NULL);
    printf("retry_scheduler: scheduled %ld jobs\\n", g_stats.scheduled);
    return 0;
}
"""


@case(
    "u64_tsan_retry_scheduler_race",
    "clang -fsanitize=thread (build and run)",
    clean=False,
    group=GROUP,
    decisive=[
        "WARNING: ThreadSanitizer: data race (pid=1000)",
        "SUMMARY: ThreadSanitizer: data race /tmp/work/src/retry_scheduler.c:29:",
        "ThreadSanitizer: reported 1 warnings",
    ],
)
def _tsan_race(root: Path) -> bytes:
    write(root, {"src/retry_scheduler.c": _RETRY_SCHED_C})
    cmd = "clang -g -O1 -fsanitize=thread -pthread src/retry_scheduler.c -o retry_scheduler && ./retry_scheduler"
    return _settle(sh(f"set -x; {cmd}", root), root)


# ---------------------------------------------------------------- LeakSanitizer via a test script


_SESSION_C = """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct session { char *user; char *token; int ttl; };

static struct session *session_clone(const struct session *s) {
    struct session *c = malloc(sizeof *c);
    c->user = strdup(s->user);
    c->token = strdup(s->token);
    c->ttl = s->ttl;
    return c;
}

static void session_drop(struct session *s) { free(s->user); free(s); }

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct session base = {"alice", "tok-0000", 900};
    for (int i = 0; i < 20; i++) {
        struct session *s = session_clone(&base);
        s->ttl += i;
        printf("ok %d - session_store: clone %d keeps user %s ttl %d\\n", i + 1, i, s->user, s->ttl);
        if (i % 2 == 0) session_drop(s);
        else { free(s->user); free(s->token); free(s); }
    }
    return 0;
}
"""

_LSAN_AREAS = ["billing", "cart", "auth", "session_store", "coupons", "webhooks", "audit", "export"]


def _plain_test(area: str, n: int) -> str:
    return (
        "#include <stdio.h>\n#include <stdlib.h>\n\nint main(void) {\n"
        + _MAIN_START
        + f"    for (int i = 0; i < {n}; i++) {{\n"
        "        long *row = malloc(4 * sizeof *row);\n"
        "        row[0] = i * 31L;\n"
        f'        printf("ok %d - {area}: row %d checksum %ld\\n", i + 1, i, row[0] % 977);\n'
        "        free(row);\n    }\n    return 0;\n}\n"
    )


@case(
    "u64_lsan_run_tests_session_leak",
    "clang -fsanitize=leak (run_tests.sh)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: LeakSanitizer: detected memory leaks",
        "SUMMARY: LeakSanitizer: 90 byte(s) leaked in 10 allocation(s).",
        "FAIL: test_session_store",
    ],
)
def _lsan(root: Path) -> bytes:
    files = {f"tests/test_{a}.c": _SESSION_C if a == "session_store" else _plain_test(a, 180) for a in _LSAN_AREAS}
    names = " ".join(_LSAN_AREAS)
    files["run_tests.sh"] = (
        "#!/bin/sh\nfail=0\nmkdir -p build\n"
        f"for area in {names}; do\n"
        '  echo "+ clang -g -O0 -fsanitize=leak tests/test_$area.c -o build/test_$area"\n'
        '  clang -g -O0 -fsanitize=leak "tests/test_$area.c" -o "build/test_$area" || exit 1\n'
        "done\n"
        f"for area in {names}; do\n"
        '  echo "--- test_$area"\n'
        '  if "./build/test_$area"; then echo "PASS: test_$area"; else echo "FAIL: test_$area (exit $?)"; '
        "fail=$((fail+1)); fi\n"
        "done\n"
        'echo "$fail of 8 test programs failed"\nexit $fail\n'
    )
    write(root, files)
    return _settle(sh("sh run_tests.sh", root), root)


# ---------------------------------------------------------------- libFuzzer


_INVOICE_FUZZ_C = """
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct invoice { int qty; int tax; char sku[16]; char *note; size_t note_len; };

static int parse_field(struct invoice *inv, const char *key, const uint8_t *v, size_t n) {
    if (strcmp(key, "qty") == 0) {
        int q = 0;
        for (size_t i = 0; i < n && i < 6; i++) {
            if (v[i] < '0' || v[i] > '9') return -1;
            q = q * 10 + (v[i] - '0');
        }
        inv->qty = q;
    } else if (strcmp(key, "tax") == 0) {
        if (n == 0) return -1;
        inv->tax = v[0] == 'R' ? 20 : v[0] == 'Z' ? 0 : 7;
    } else if (strcmp(key, "sku") == 0) {
        if (n >= sizeof inv->sku) return -1;
        memcpy(inv->sku, v, n);
    } else if (strcmp(key, "note") == 0) {
        free(inv->note);
        inv->note = malloc(n ? n : 1);
        inv->note_len = n;
        if (n > 8 && v[0] == '#' && v[1] == '!')
            memcpy(inv->note, v, n + 4);
        else
            memcpy(inv->note, v, n);
    } else {
        return -1;
    }
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct invoice inv = {0};
    if (size < 4 || memcmp(data, "INV;", 4) != 0) return 0;
    size_t i = 4;
    while (i < size) {
        char key[8] = {0};
        size_t k = 0;
        while (i < size && data[i] != '=' && k < 7) key[k++] = (char)data[i++];
        if (i >= size || data[i] != '=') break;
        i++;
        size_t start = i;
        while (i < size && data[i] != ';') i++;
        if (parse_field(&inv, key, data + start, i - start) != 0) break;
        i++;
    }
    free(inv.note);
    return 0;
}
"""


@case(
    "u64_libfuzzer_invoice_crash",
    "clang -fsanitize=fuzzer,address (libFuzzer run)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR: AddressSanitizer: heap-buffer-overflow on address",
        "SUMMARY: AddressSanitizer: heap-buffer-overflow",
        "Test unit written to artifacts/crash-",
    ],
)
def _fuzz_crash(root: Path) -> bytes:
    write(root, {"fuzz/invoice_fuzzer.c": _INVOICE_FUZZ_C})
    (root / "artifacts").mkdir()
    cmd = (
        "clang -g -O1 -fsanitize=fuzzer,address fuzz/invoice_fuzzer.c -o invoice_fuzzer"
        " && ./invoice_fuzzer -seed=1 -artifact_prefix=artifacts/ -max_total_time=120"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)


_RETRY_FUZZ_C = """
#include <stddef.h>
#include <stdint.h>
#include <string.h>

struct retry_policy { unsigned attempts; unsigned backoff_ms; int on_error; int on_failed; };

static unsigned read_num(const uint8_t *p, size_t n, size_t *i) {
    unsigned v = 0;
    while (*i < n && p[*i] >= '0' && p[*i] <= '9' && v < 100000) v = v * 10 + (p[(*i)++] - '0');
    return v;
}

int parse_retry_policy(const uint8_t *p, size_t n, struct retry_policy *out) {
    size_t i = 0;
    memset(out, 0, sizeof *out);
    while (i < n) {
        switch (p[i++]) {
        case 'a': out->attempts = read_num(p, n, &i); break;
        case 'b': out->backoff_ms = read_num(p, n, &i); break;
        case 'e': out->on_error = i < n && p[i] == '!'; break;
        case 'f': out->on_failed = i < n && p[i] == '?'; break;
        case ';': break;
        default: return -1;
        }
    }
    return out->attempts > 20 ? -2 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct retry_policy policy;
    parse_retry_policy(data, size, &policy);
    return 0;
}
"""


@case(
    "u64_libfuzzer_retry_policy_clean",
    "clang -fsanitize=fuzzer,address (libFuzzer run)",
    clean=True,
    group=GROUP,
    decisive=["Done 300000 runs in", "stat::number_of_executed_units: 300000"],
)
def _fuzz_clean(root: Path) -> bytes:
    seeds = ["a3;b250", "a5;b1000;e!", "f?;a1", "a20;b10;e!;f?", "b0", "e", "f"]
    write(root, {"fuzz/retry_policy_fuzzer.c": _RETRY_FUZZ_C})
    for k, s in enumerate(seeds):
        (root / "corpus").mkdir(exist_ok=True)
        (root / "corpus" / f"seed_retry_failed_{k}").write_text(s)
    cmd = (
        "clang -g -O1 -fsanitize=fuzzer,address fuzz/retry_policy_fuzzer.c -o retry_policy_fuzzer"
        " && ./retry_policy_fuzzer -seed=7 -runs=300000 -max_total_time=100 -print_final_stats=1 corpus"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)


# ---------------------------------------------------------------- gcc -fanalyzer


_LEDGER_FLUSH_C = """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry { char *memo; int cents; };

int ledger_flush(struct entry *entries, int n, int dry_run) {
    char *batch = malloc(64 * (size_t)n);
    if (!batch) return -1;
    for (int i = 0; i < n; i++) {
        size_t len = strlen(entries[i].memo);
        memcpy(batch + 64 * i, entries[i].memo, len < 63 ? len : 63);
    }
    if (dry_run) {
        free(batch);
    }
    if (n > 100) {
        fprintf(stderr, "ledger_flush: batch too large\\n");
        free(batch);
        return -2;
    }
    free(batch);
    return 0;
}
"""

_ANALYZER_WARN = {
    "retry_buffer": """
#include <stdlib.h>
#include <string.h>

char *retry_buffer(const char *src, int copies) {
    char *buf = malloc(strlen(src) * copies + 1);
    if (copies <= 0)
        return NULL;
    buf[0] = '\\0';
    for (int i = 0; i < copies; i++) strcat(buf, src);
    return buf;
}
""",
    "export_rows": """
#include <stdio.h>
#include <stdlib.h>

int export_rows(const char *path, int rows) {
    FILE *f = fopen(path, "w");
    int *widths = malloc(sizeof(int) * rows);
    if (!f) return -1;
    for (int i = 0; i < rows; i++) {
        widths[i] = i % 12;
        fprintf(f, "%d,%d\\n", i, widths[i]);
    }
    fclose(f);
    free(widths);
    return 0;
}
""",
}


def _analyzer_ok(name: str, checked: bool) -> str:
    """A file of ``name``; unless ``checked``, it uses calloc's result unchecked (a possible-NULL warning)."""
    return (
        "#include <stdlib.h>\n#include <string.h>\n\n"
        f"int {name}_score(const char *key, int cents) {{\n"
        "    size_t n = strlen(key);\n"
        "    int *hist = calloc(n + 1, sizeof *hist);\n"
        + ("    if (!hist) return -1;\n" if checked else "")
        + "    hist[n] = cents;\n"
        "    for (size_t i = 0; i < n; i++) hist[i] = key[i] + cents % 97;\n"
        "    int total = 0;\n"
        "    for (size_t i = 0; i < n; i++) total += hist[i];\n"
        "    free(hist);\n"
        "    return total;\n}\n"
    )


@case(
    "u64_gcc_fanalyzer_double_free",
    "gcc -fanalyzer (make -k)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/ledger_flush.c:19:9: error: double-",
        "make: *** [Makefile:9: build/ledger_flush.o] Error 1",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _fanalyzer(root: Path) -> bytes:
    names = ["billing", "orders", "cart", "tax", "export_rows", "refunds", "invoice", "session", "auth", "errors",
             "ledger_flush", "shipping", "catalog", "retry_buffer", "pricing", "coupons", "webhooks", "audit",
             "search", "exceptions", "retry"]  # fmt: skip
    files = {"src/ledger_flush.c": _LEDGER_FLUSH_C, **{f"src/{k}.c": v for k, v in _ANALYZER_WARN.items()}}
    for k, n in enumerate(names):
        files.setdefault(f"src/{n}.c", _analyzer_ok(n, checked=k % 3 == 2))
    write(root, files)
    objs = " ".join(f"build/{n}.o" for n in names)
    (root / "Makefile").write_text(
        "CC = gcc\nCFLAGS = -g -O1 -Wall -fanalyzer -Werror=analyzer-double-free\n"
        f"OBJS = {objs}\n\nall: $(OBJS)\n\n"
        "build/%.o: src/%.c\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n"
    )
    return _settle(sh("make -k", root), root)


# ---------------------------------------------------------------- valgrind memcheck


_CATALOG_SYNC_C = """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item { char *sku; int *prices; int n_prices; };

static struct item *catalog_load(int count) {
    struct item *items = calloc(count, sizeof *items);
    for (int i = 0; i < count; i++) {
        items[i].sku = malloc(16);
        snprintf(items[i].sku, 16, "SKU-%05d", i);
        items[i].n_prices = 1 + i % 6;
        items[i].prices = malloc(sizeof(int) * items[i].n_prices);
        for (int k = 0; k < items[i].n_prices; k++) items[i].prices[k] = 100 + (i * 7 + k) % 900;
    }
    return items;
}

static int catalog_price_at(const struct item *it, int k) {
    return it->prices[k];
}

static int best_price(const struct item *it, int include_promo) {
    int best = it->prices[0];
    int last = include_promo ? it->n_prices : it->n_prices - 1;
    for (int k = 1; k <= last; k++) {
        int p = catalog_price_at(it, k);
        if (p < best) best = p;
    }
    return best;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int count = 7000;
    struct item *items = catalog_load(count);
    printf("catalog_sync: loaded %d items\\n", count);
    long total = 0;
    for (int i = 0; i < count; i += 3) {
        int best = best_price(&items[i], i == 2997);
        total += best;
        printf("sync %s: %d prices, best %d\\n", items[i].sku, items[i].n_prices, best);
    }
    printf("catalog_sync: total of best prices %ld\\n", total);
    for (int i = 0; i < count; i++) { free(items[i].sku); free(items[i].prices); }
    free(items);
    return 0;
}
"""


@case(
    "u64_valgrind_catalog_invalid_read",
    "valgrind memcheck (--leak-check=full)",
    clean=False,
    group=GROUP,
    decisive=[
        "Invalid read of size 4",
        "catalog_price_at (catalog_sync.c:20)",
        "ERROR SUMMARY: 1 errors from 1 contexts",
    ],
)
def _valgrind_bad(root: Path) -> bytes:
    write(root, {"catalog_sync.c": _CATALOG_SYNC_C})
    cmd = (
        "gcc -g -O0 -Wall catalog_sync.c -o catalog_sync"
        " && valgrind --leak-check=full --show-leak-kinds=all --track-origins=yes ./catalog_sync"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)


# ---------------------------------------------------------------- clean runs named after errors and failures


_ERROR_QUEUE_H = """
#pragma once
struct job { int id; int attempts; int status; char reason[32]; };
enum { JOB_OK = 0, JOB_FAILED = 1, JOB_ERROR_QUEUE = 2 };
void error_queue_push(struct job *j);
int error_queue_size(void);
void error_queue_drain(void);
int retry_failed(struct job *j, int max_attempts);
void exception_log(const struct job *j, const char *what);
"""

_ERROR_QUEUE_C = {
    "src/error_queue.c": """
#include <stdlib.h>
#include "error_queue.h"

static struct job **queue;
static int size, cap;

void error_queue_push(struct job *j) {
    if (size == cap) {
        cap = cap ? cap * 2 : 8;
        queue = realloc(queue, sizeof *queue * cap);
    }
    queue[size++] = j;
}

int error_queue_size(void) { return size; }

void error_queue_drain(void) {
    free(queue);
    queue = NULL;
    size = cap = 0;
}
""",
    "src/retry_failed.c": """
#include <stdio.h>
#include "error_queue.h"

int retry_failed(struct job *j, int max_attempts) {
    while (j->status == JOB_FAILED && j->attempts < max_attempts) {
        j->attempts++;
        if ((j->id * 7 + j->attempts) % 5 == 0) j->status = JOB_OK;
        printf("retry_failed: job %04d attempt %d -> %s\\n", j->id, j->attempts,
               j->status == JOB_OK ? "ok" : "failed again");
    }
    if (j->status == JOB_FAILED) {
        j->status = JOB_ERROR_QUEUE;
        error_queue_push(j);
        exception_log(j, "max attempts reached, moved to error_queue");
    }
    return j->status;
}
""",
    "src/exception_log.c": """
#include <stdio.h>
#include "error_queue.h"

void exception_log(const struct job *j, const char *what) {
    printf("exception_log: job %04d (%s): %s\\n", j->id, j->reason, what);
}
""",
    "src/failed_jobs_replay.c": """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "error_queue.h"

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int n = 480, ok = 0;
    struct job *jobs = calloc(n, sizeof *jobs);
    printf("failed_jobs_replay: replaying %d failed jobs (max 4 attempts)\\n", n);
    for (int i = 0; i < n; i++) {
        jobs[i].id = i;
        jobs[i].status = JOB_FAILED;
        strcpy(jobs[i].reason, i % 3 ? "ETIMEDOUT" : "upstream error 502");
        printf("job %04d: status failed, reason %s\\n", i, jobs[i].reason);
        if (retry_failed(&jobs[i], 4) == JOB_OK) ok++;
    }
    printf("summary: %d jobs replayed, %d recovered, %d moved to error_queue, 0 lost\\n", n, ok,
           error_queue_size());
    error_queue_drain();
    free(jobs);
    return 0;
}
""",
}


@case(
    "u64_asan_ubsan_error_queue_clean",
    "clang -fsanitize=address,undefined (make and run)",
    clean=True,
    group=GROUP,
    decisive=["summary: 480 jobs replayed,"],
)
def _asan_clean(root: Path) -> bytes:
    write(root, {"include/error_queue.h": _ERROR_QUEUE_H, **_ERROR_QUEUE_C})
    srcs = ["error_queue", "retry_failed", "exception_log", "failed_jobs_replay"]
    (root / "Makefile").write_text(
        "CC = clang\nCFLAGS = -g -O1 -Wall -Wextra -Iinclude -fsanitize=address,undefined -fno-omit-frame-pointer"
        " -fno-sanitize-recover=all\n"
        f"OBJS = {' '.join(f'build/{s}.o' for s in srcs)}\n\n"
        "failed_jobs_replay: $(OBJS)\n\t$(CC) $(CFLAGS) $^ -o $@\n\n"
        "build/%.o: src/%.c include/error_queue.h\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n"
    )
    env = "ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1"
    return _settle(sh(f"make && {env} ./failed_jobs_replay", root), root)


_RETRY_WORKERS_C = """
#include <pthread.h>
#include <stdio.h>

#define JOBS 600
#define WORKERS 4

static int results[JOBS];
static int next_job;
static long retried, failed_final;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static int take_job(void) {
    pthread_mutex_lock(&lock);
    int j = next_job < JOBS ? next_job++ : -1;
    pthread_mutex_unlock(&lock);
    return j;
}

static void *retry_worker(void *arg) {
    (void)arg;
    for (int j = take_job(); j >= 0; j = take_job()) {
        int attempts = 1 + (j * 13) % 4;
        results[j] = attempts;
        pthread_mutex_lock(&lock);
        retried += attempts - 1;
        if (attempts == 4) failed_final++;
        pthread_mutex_unlock(&lock);
    }
    return NULL;
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    pthread_t t[WORKERS];
    printf("retry_workers: %d workers, %d jobs, error budget 25%%\\n", WORKERS, JOBS);
    for (int i = 0; i < WORKERS; i++) pthread_create(&t[i], NULL, retry_worker, NULL);
    for (int i = 0; i < WORKERS; i++) pthread_join(t[i], NULL);
    for (int j = 0; j < JOBS; j++)
        printf("job %03d: %d attempt(s), %s\\n", j, results[j],
               results[j] == 4 ? "failed after retries, sent to exceptions table" : "succeeded");
    printf("retry_workers: %ld retries, %ld failed jobs recorded, all %d workers joined, 0 jobs lost\\n", retried,
           failed_final, WORKERS);
    return 0;
}
"""


@case(
    "u64_tsan_retry_workers_clean",
    "clang -fsanitize=thread (build and run)",
    clean=True,
    group=GROUP,
    decisive=["all 4 workers joined, 0 jobs lost"],
)
def _tsan_clean(root: Path) -> bytes:
    write(root, {"src/retry_workers.c": _RETRY_WORKERS_C})
    cmd = (
        "clang -g -O1 -Wall -fsanitize=thread -pthread src/retry_workers.c -o retry_workers"
        " && TSAN_OPTIONS=halt_on_error=1:second_deadlock_stack=1 ./retry_workers"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)


_FAILED_JOBS_REPORT_C = """
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct failure { char *job; char *error; int retries; };

static struct failure *failure_new(int i) {
    struct failure *f = malloc(sizeof *f);
    f->job = malloc(24);
    snprintf(f->job, 24, "export-%05d", i);
    f->error = strdup(i % 4 ? "TimeoutError: upstream did not answer" : "ValueError: bad currency code");
    f->retries = i % 5;
    return f;
}

static void failure_free(struct failure *f) { free(f->job); free(f->error); free(f); }

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    int n = 1800, errors = 0;
    printf("failed_jobs_report: reading %d failed jobs from the error log\\n", n);
    for (int i = 0; i < n; i++) {
        struct failure *f = failure_new(i);
        if (strstr(f->error, "ValueError")) errors++;
        printf("FAILED %s retries=%d error=\\"%s\\"\\n", f->job, f->retries, f->error);
        failure_free(f);
    }
    printf("failed_jobs_report: %d failed jobs listed, %d with ValueError, report written\\n", n, errors);
    return 0;
}
"""


@case(
    "u64_valgrind_failed_jobs_clean",
    "valgrind memcheck (--leak-check=full)",
    clean=True,
    group=GROUP,
    decisive=["ERROR SUMMARY: 0 errors from 0 contexts", "All heap blocks were freed -- no leaks are possible"],
)
def _valgrind_clean(root: Path) -> bytes:
    write(root, {"failed_jobs_report.c": _FAILED_JOBS_REPORT_C})
    cmd = (
        "gcc -g -O0 -Wall failed_jobs_report.c -o failed_jobs_report"
        " && valgrind --leak-check=full --error-exitcode=1 ./failed_jobs_report"
    )
    return _settle(sh(f"set -x; {cmd}", root), root)
