"""Held-out outputs (group ``unseen-32``): a thirty-second batch, profiling and benchmarking tools as a developer
agent runs them while chasing performance, on programs and benchmark suites generated in the scenario's folder
(C programs, Go packages, Python modules and shell exports named after the business areas).

Failing runs: ``hyperfine`` over 60 export commands (20 areas by three formats) where the refunds CSV export exits
3 on its fourth run and hyperfine stops, ``valgrind --tool=massif`` with ``ms_print`` of a ledger loader that
aborts on a failed assertion after loading 200 batches, ``pytest-benchmark`` comparing 40 benchmarks against a
saved baseline with ``--benchmark-compare-fail=min:75%`` where the pricing filter became twenty times slower,
``go test -bench`` over 120 sub-benchmarks where the refunds reconciliation calls ``b.Fatalf`` on a ledger
mismatch, GNU ``time -v`` of an export that raises ``MemoryError`` under ``ulimit -v`` after 150 healthy batches,
``strace -c`` of a ledger sync that exits 2 on a missing configuration file after 300 synced entries and ``perf
record -e cache-misses`` after a build and a quick run of a catalog search benchmark, the event being unsupported
by this machine's virtualised PMU. Clean runs whose text talks about errors: ``hyperfine --show-output`` over an
``error_rate.sh`` script at six sizes, ``callgrind_annotate --auto=yes`` of a program whose functions are
``error_rate``, ``failed_jobs_filter`` and ``retry_backoff_ms``, ``gprof -b`` of a program built with ``-pg``
whose hot function is ``compute_error_rate_windows``, ``go test -bench`` of ``BenchmarkErrorRate`` and
``BenchmarkFailedJobsFilter`` sub-benchmarks, ``perf stat -r 5`` of an errors report and ``strace -c`` of an
error-log rotation whose ``errors`` column counts the expected ``ENOENT`` of absent old logs. Every measured number
(times, rates, sampled profiles, counts that depend on timing) is replaced by a fixed value so that two runs give
the same bytes. Labels were written with each scenario, before the engine saw the output. Needs hyperfine, perf,
valgrind, gprof and gcc, strace, GNU time and Go (Debian ``hyperfine``, ``linux-perf``, ``valgrind``,
``binutils``, ``gcc``, ``strace``, ``time``, ``golang-go``), with pytest-benchmark from PyPI.
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-32"

_PYTEST_BENCHMARK = "pytest-benchmark==5.1.0 pytest==8.3.4 py-cpuinfo==9.0.0"

_VG = (r"^==\d+==", "==12345==")


def _cc(root: Path, src: str, text: str, flags: str = "-O1 -g") -> str:
    """``text`` written as ``src`` and compiled with gcc; the binary's name."""
    write(root, {src: text})
    binary = src.removesuffix(".c")
    sh(f"gcc {flags} -o {binary} {src}", root)
    return binary


# ---------------------------------------------------------------- hyperfine

_HYPERFINE_OUT = (
    (r"^  Time \(mean ± σ\): .*$", "  Time (mean ± σ):      12.0 ms ±   1.0 ms    [User: 6.0 ms, System: 2.0 ms]"),
    (r"^  Range \(min … max\): .*?(\d+ runs)$", r"  Range (min … max):    10.0 ms …  14.0 ms    \1"),
    (r"(?:^  Warning: .*\n)+ \n", ""),
    (r"^ +[\d.]+ ± [\d.]+ times faster than", "    2.00 ± 0.10 times faster than"),
)

_EXPORT_SH = """
#!/bin/sh
# export.sh AREA FORMAT: write the area's rows as FORMAT; counts its own runs in runs/AREA-FORMAT
area=$1
format=$2
mkdir -p runs out
n=$(cat "runs/$area-$format" 2>/dev/null || echo 0)
n=$((n + 1))
echo "$n" > "runs/$area-$format"
if [ "$area" = refunds ] && [ "$format" = csv ] && [ "$n" -ge 4 ]; then
    echo "export.sh: refunds csv: duplicate refund id 88213 in batch 7" >&2
    exit 3
fi
i=0
while [ $i -lt 40 ]; do
    echo "$area,$i,$((i * 37 % 1000))" >> "out/$area.$format"
    i=$((i + 1))
done
echo "exported $area as $format"
"""


@case(
    "u32_hyperfine_sixty_exports_refunds_csv_exits_3",
    "hyperfine --style basic --runs 6 -L area ... -L format json,xml,csv 'sh export.sh {area} {format}'",
    clean=False,
    group=GROUP,
    decisive=[
        "Benchmark 45: sh export.sh refunds csv",
        "Error: Command terminated with non-zero exit code: 3.",
        "[exit status 1]",
    ],
)
def _hyperfine_bad(root: Path) -> bytes:
    write(root, {"export.sh": _EXPORT_SH})
    areas = ",".join(WORDS)
    cmd = f"hyperfine --style basic --runs 6 -L area {areas} -L format json,xml,csv 'sh export.sh {{area}} {{format}}'"
    return substitute(scrub(sh(cmd, root), root), *_HYPERFINE_OUT)


_ERROR_RATE_SH = """
#!/bin/sh
# error_rate.sh N: the error rate of N synthetic requests (one in 17 fails)
n=$1
i=0
errors=0
while [ $i -lt "$n" ]; do
    i=$((i + 1))
    if [ $((i % 17)) -eq 0 ]; then errors=$((errors + 1)); fi
done
echo "requests=$n errors=$errors error_rate=$((errors * 10000 / n))bp"
"""


@case(
    "u32_hyperfine_show_output_error_rate_sizes_clean",
    "hyperfine --show-output --warmup 1 --runs 20 -L n 2000,...,64000 'sh error_rate.sh {n}'",
    clean=True,
    group=GROUP,
    decisive=["Summary", "'sh error_rate.sh 2000' ran"],
)
def _hyperfine_clean(root: Path) -> bytes:
    write(root, {"error_rate.sh": _ERROR_RATE_SH})
    sizes = "2000,4000,8000,16000,32000,64000"
    cmd = f"hyperfine --show-output --warmup 1 --runs 20 -L n {sizes} 'sh error_rate.sh {{n}}'"
    return substitute(scrub(sh(cmd, root), root), *_HYPERFINE_OUT)


# ---------------------------------------------------------------- valgrind massif

_LEDGER_C = r"""
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct entry {
    char area[16];
    long cents;
    char memo[48];
};

static const char *AREAS[] = {
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
};

static struct entry *load_batch(const char *area, int batch, int n, long *sum) {
    struct entry *e = malloc(sizeof *e * (size_t)n);
    for (int i = 0; i < n; i++) {
        snprintf(e[i].area, sizeof e[i].area, "%s", area);
        e[i].cents = (long)((i * 37 + batch * 11) % 2000) - 1000;
        snprintf(e[i].memo, sizeof e[i].memo, "%s batch %d line %d", area, batch, i);
        *sum += e[i].cents;
    }
    return e;
}

static void ledger_close(long total_cents, long expected_cents) {
    printf("closing ledger: total %ld cents, expected %ld cents\n", total_cents, expected_cents);
    assert(total_cents == expected_cents);
}

int main(void) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    struct entry *kept[20];
    long total = 0, expected = 0;
    for (int a = 0; a < 20; a++) {
        struct entry *batch = NULL;
        for (int b = 0; b < 10; b++) {
            long sum = 0;
            int n = 200 + 40 * b + 10 * a;
            free(batch);
            batch = load_batch(AREAS[a], b, n, &sum);
            total += sum;
            expected += strcmp(AREAS[a], "refunds") == 0 && b == 7 ? sum - 100 : sum;
            printf("loaded ledger batch %s/%d: %d entries, %zu bytes, running total %ld cents\n", AREAS[a], b, n,
                   sizeof(struct entry) * (size_t)n, total);
        }
        kept[a] = batch;
    }
    ledger_close(total, expected);
    for (int a = 0; a < 20; a++) free(kept[a]);
    return 0;
}
"""


@case(
    "u32_massif_ledger_loader_assertion_abort",
    "valgrind --tool=massif --time-unit=B ./ledger_load; ms_print massif.out",
    clean=False,
    group=GROUP,
    decisive=[
        "closing ledger: total",
        "ledger_close: Assertion `total_cents == expected_cents' failed.",
        "Process terminating with default action of signal 6 (SIGABRT)",
    ],
)
def _massif(root: Path) -> bytes:
    binary = _cc(root, "ledger_load.c", _LEDGER_C, "-O0 -g")
    cmd = f"valgrind --tool=massif --time-unit=B --massif-out-file=massif.out ./{binary}; ms_print massif.out"
    return substitute(scrub(sh(cmd, root), root), _VG)


# ---------------------------------------------------------------- valgrind callgrind

_ERRORS_REPORT_C = r"""
#include <stdio.h>
#include <string.h>

static const char *AREAS[] = {
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
};

struct job { int id; int status; int attempts; };

static struct job jobs[20000];

__attribute__((noinline)) static double error_rate(const struct job *js, int n) {
    int failed = 0;
    for (int i = 0; i < n; i++) failed += js[i].status != 0;
    return n ? (double)failed / n : 0.0;
}

__attribute__((noinline)) static int failed_jobs_filter(const struct job *js, int n, struct job *out) {
    int k = 0;
    for (int i = 0; i < n; i++)
        if (js[i].status != 0 && js[i].attempts < 5) out[k++] = js[i];
    return k;
}

__attribute__((noinline)) static long retry_backoff_ms(int attempts) {
    long d = 100;
    for (int i = 1; i < attempts; i++) d = d * 2 > 30000 ? 30000 : d * 2;
    return d;
}

__attribute__((noinline)) static int parse_error_code(const char *line) {
    const char *p = strstr(line, "error=");
    int code = 0;
    if (!p) return 0;
    for (p += 6; *p >= '0' && *p <= '9'; p++) code = code * 10 + (*p - '0');
    return code;
}

static struct job retry_queue[20000];

int main(void) {
    char line[96];
    for (int a = 0; a < 20; a++) {
        int n = 1000;
        for (int i = 0; i < n; i++) {
            snprintf(line, sizeof line, "%s job=%d error=%d", AREAS[a], i, (i * 7 + a) % 13 == 0 ? 500 + a : 0);
            jobs[i].id = i;
            jobs[i].status = parse_error_code(line);
            jobs[i].attempts = (i + a) % 7;
        }
        int k = failed_jobs_filter(jobs, n, retry_queue);
        long wait = 0;
        for (int i = 0; i < k; i++) wait += retry_backoff_ms(retry_queue[i].attempts);
        printf("%-10s error_rate=%.4f failed_jobs=%d retry_wait_ms=%ld\n", AREAS[a], error_rate(jobs, n), k, wait);
    }
    return 0;
}
"""


@case(
    "u32_callgrind_annotate_error_rate_functions_clean",
    "valgrind --tool=callgrind ./errors_report && callgrind_annotate --auto=yes callgrind.out",
    clean=True,
    group=GROUP,
    decisive=["PROGRAM TOTALS", "errors_report.c:failed_jobs_filter"],
)
def _callgrind(root: Path) -> bytes:
    binary = _cc(root, "errors_report.c", _ERRORS_REPORT_C)
    cmd = (
        f"valgrind --tool=callgrind --callgrind-out-file=callgrind.out ./{binary} && "
        "callgrind_annotate --auto=yes callgrind.out"
    )
    return substitute(scrub(sh(cmd, root), root), _VG, (r"\(PID \d+, part 1\)", "(PID 12345, part 1)"))


# ---------------------------------------------------------------- gprof

_WINDOWS_C = r"""
#include <stdio.h>

static const char *AREAS[] = {
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
};

static unsigned counts[20][4096];

__attribute__((noinline)) void record_error(int area, int slot) { counts[area][slot & 4095]++; }

__attribute__((noinline)) int is_failed_status(int code) { return code >= 500; }

__attribute__((noinline)) double compute_error_rate_windows(int area) {
    double worst = 0.0;
    for (int start = 0; start < 4096 - 256; start++) {
        unsigned long sum = 0;
        for (int w = 0; w < 256; w++) {
            for (int r = 0; r < 6; r++) sum += (counts[area][start + w] * (unsigned)(r + 1)) % 7u;
        }
        double rate = (double)sum / (256.0 * 42.0);
        if (rate > worst) worst = rate;
    }
    return worst;
}

int main(void) {
    for (int a = 0; a < 20; a++)
        for (int i = 0; i < 300; i++)
            if (is_failed_status(((i * 31 + a * 7) % 100) + 450)) record_error(a, i * 13);
    for (int a = 0; a < 20; a++)
        printf("%-10s worst error rate window: %.4f\n", AREAS[a], compute_error_rate_windows(a));
    return 0;
}
"""


@case(
    "u32_gprof_error_rate_windows_clean",
    "gcc -pg ... && ./error_windows && gprof ./error_windows gmon.out",
    clean=True,
    group=GROUP,
    decisive=["Flat profile:", "compute_error_rate_windows"],
)
def _gprof(root: Path) -> bytes:
    binary = _cc(root, "error_windows.c", _WINDOWS_C, "-O1 -pg -no-pie")
    out = scrub(sh(f"./{binary} && gprof ./{binary} gmon.out", root), root).decode()
    return _gprof_out(out).encode()


_HOT = "compute_error_rate_windows"


def _gprof_out(out: str) -> str:
    """gprof's sampled times fixed: the hot function takes all 0.30 seconds, the others none."""

    def flat(m: re.Match[str]) -> str:
        calls, name = int(m[1]), m[2]
        pct, self_s, per_call = (100.0, 0.30, 15.0) if name == _HOT else (0.0, 0.0, 0.0)
        return f"{pct:6.2f}{0.30:11.2f}{self_s:9.2f}{calls:9d}{per_call:9.2f}{per_call:9.2f}  {name}"

    def entry(m: re.Match[str]) -> str:
        name = m[3]
        pct, self_s, children = (100.0, 0.30, 0.0) if name.startswith(_HOT) else (0.0, 0.0, 0.0)
        if name.startswith("main "):
            pct, self_s, children = 100.0, 0.0, 0.30
        return f"{m[1]:<6}{pct:6.1f}{self_s:8.2f}{children:8.2f}{m[2]}{name}"

    def edge(m: re.Match[str]) -> str:
        self_s = 0.30 if _HOT in m[2] or m[1].split()[0] == "20/20" else 0.0
        return f"{'':16}{self_s:4.2f}{0.0:8.2f}{m[1]}{m[2]}"

    out = re.sub(r"(?m)^ *\d+\.\d+ +\d+\.\d+ +\d+\.\d+ +(\d+) +\d+\.\d+ +\d+\.\d+  (\w+)$", flat, out)
    out = re.sub(r"(?m)^(\[\d+\]) +\d+\.\d+ +\d+\.\d+ +\d+\.\d+( +\d* +)(\S.*)$", entry, out)
    out = re.sub(r"(?m)^ {8,}\d+\.\d+ +\d+\.\d+( +\d+/\d+ +)(\S.*)$", edge, out)
    return re.sub(
        r"(?m)^granularity: .*$", "granularity: each sample hit covers 2 byte(s) for 3.33% of 0.30 seconds", out
    )


# ---------------------------------------------------------------- pytest-benchmark


def _bench_module(area: str, slow: bool) -> str:
    repeat = 20 if slow else 1
    return f'''
    import json

    ROWS = [
        {{"id": i, "area": "{area}", "cents": (i * 37) % 1000, "status": "ok" if i % 9 else "failed"}}
        for i in range(200)
    ]


    def serialize():
        return json.dumps(ROWS)


    def filter_rows():
        out = []
        for _ in range({repeat}):
            out = [r for r in ROWS if r["status"] == "failed" or r["cents"] > 900]
        return out


    def test_{area}_serialize(benchmark):
        assert benchmark(serialize).startswith("[")


    def test_{area}_filter(benchmark):
        assert len(benchmark(filter_rows)) > 10
    '''


def _bench_suite(root: Path, slow_area: str | None) -> None:
    write(root, {f"benchmarks/test_{area}_bench.py": _bench_module(area, area == slow_area) for area in WORDS})


_BENCH_OPTS = (
    "-p no:cacheprovider --benchmark-storage=file://./.benchmarks --benchmark-min-rounds=20 "
    "--benchmark-max-time=0.05 --benchmark-sort=name --benchmark-columns=min,mean,rounds"
)


def _bench_out(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"^(test_\w+(?: \(\w+\))?) .*$", r"\1      10.0000 (1.0)      12.0000 (1.0)      2000"),
        (r"^-+ benchmark: (\d+) tests -+$", r"--------------- benchmark: \1 tests ---------------"),
        (r"^-{20,}$", "-" * 60),
        (r"^Name \(time in \w+\).*$", "Name (time in us)        Min                Mean               Rounds"),
        (r"(PercentageRegressionCheck): [\d.]+ >", r"\1: 1900.000000000 >"),
        (r"in [\d.]+s( \(\d+:\d+:\d+\))?", "in 3.21s"),
        (r"^platform .*$", "platform linux -- Python 3.11, pytest-8.3.4, pluggy-1.5.0"),
        (r"^benchmark: .*$", "benchmark: 5.1.0 (defaults: timer=time.perf_counter)"),
        (r"^rootdir: .*$", "rootdir: /tmp/work"),
        (r"^plugins: .*$", "plugins: benchmark-5.1.0"),
    )


@case(
    "u32_pytest_benchmark_compare_fail_pricing_filter_regressed",
    "pytest benchmarks --benchmark-compare=0001 --benchmark-compare-fail=min:75% (40 benchmarks)",
    clean=False,
    group=GROUP,
    decisive=[
        "Performance has regressed:",
        "test_pricing_filter (0001_baselin) - Field 'min' has failed PercentageRegressionCheck",
        "[exit status 1]",
    ],
)
def _pytest_benchmark(root: Path) -> bytes:
    env = py_tools(root, _PYTEST_BENCHMARK) + " PYTHONDONTWRITEBYTECODE=1"
    _bench_suite(root, None)
    sh(f"{env} {PY} -m pytest benchmarks -q {_BENCH_OPTS} --benchmark-save=baseline", root)
    _bench_suite(root, "pricing")
    cmd = f"{env} {PY} -m pytest benchmarks {_BENCH_OPTS} --benchmark-compare=0001 --benchmark-compare-fail=min:75%"
    return _bench_out(sh(cmd, root), root)


# ---------------------------------------------------------------- go test -bench

_GO_ENV = "GOFLAGS=-mod=mod GOPROXY=off GOTOOLCHAIN=local GOTELEMETRY=off"


def _go_out(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"\s+[\d.]+ ns/op", "\t    1000 ns/op"),
        (r"^cpu: .*$", "cpu: Intel(R) Xeon(R) CPU @ 2.20GHz"),
        (r"^(ok|FAIL)(\s+\S+\s+)[\d.]+s$", r"\g<1>\g<2>1.234s"),
    )


def _go_bench_area(area: str, fatal: bool) -> str:
    name = area.capitalize()
    check = (
        "\t\tif total != want {\n"
        '\t\t\tb.Fatalf("reconcile %s: ledger total %d cents, refunds total %d cents (diff %d)",'
        f' "{area}", total, want, total-want)\n\t\t}}\n'
    )
    off = " - 100" if fatal else ""
    return f"""
func Benchmark{name}Encode(b *testing.B) {{
\tfor _, size := range []int{{10, 100, 1000}} {{
\t\trows := makeRows("{area}", size)
\t\tb.Run(fmt.Sprintf("rows=%d", size), func(b *testing.B) {{
\t\t\tb.ReportAllocs()
\t\t\tfor i := 0; i < b.N; i++ {{
\t\t\t\tif _, err := json.Marshal(rows); err != nil {{
\t\t\t\t\tb.Fatal(err)
\t\t\t\t}}
\t\t\t}}
\t\t}})
\t}}
}}

func Benchmark{name}Reconcile(b *testing.B) {{
\tfor _, size := range []int{{10, 100, 1000}} {{
\t\trows := makeRows("{area}", size)
\t\tb.Run(fmt.Sprintf("rows=%d", size), func(b *testing.B) {{
\t\t\tvar total int
\t\t\tfor i := 0; i < b.N; i++ {{
\t\t\t\ttotal = sum(rows)
\t\t\t}}
\t\t\twant := sum(rows){off}
\t\t\tif size < 1000 {{
\t\t\t\twant = total
\t\t\t}}
{check}\t\t}})
\t}}
}}
"""


_GO_HELPERS = """package shopbench

import (
\t"encoding/json"
\t"fmt"
\t"testing"
)

type row struct {
\tID     int    `json:"id"`
\tArea   string `json:"area"`
\tCents  int    `json:"cents"`
\tStatus string `json:"status"`
}

func makeRows(area string, n int) []row {
\trows := make([]row, n)
\tfor i := range rows {
\t\tst := "ok"
\t\tif i%9 == 0 {
\t\t\tst = "failed"
\t\t}
\t\trows[i] = row{ID: i, Area: area, Cents: (i * 37) % 1000, Status: st}
\t}
\treturn rows
}

func sum(rows []row) int {
\tt := 0
\tfor _, r := range rows {
\t\tt += r.Cents
\t}
\treturn t
}

var _ = fmt.Sprintf
var _ = testing.Short
"""


@case(
    "u32_go_bench_refunds_reconcile_fatalf",
    "go test -run '^$' -bench . -benchmem -benchtime=200x -cpu 1 (120 sub-benchmarks)",
    clean=False,
    group=GROUP,
    decisive=[
        "--- FAIL: BenchmarkRefundsReconcile/rows=1000",
        "reconcile refunds: ledger total 499500 cents, refunds total 499400 cents (diff 100)",
        "FAIL\tshop.example/bench",
    ],
)
def _go_bench_bad(root: Path) -> bytes:
    (root / "go.mod").write_text("module shop.example/bench\n\ngo 1.19\n")
    text = _GO_HELPERS + "".join(_go_bench_area(area, area == "refunds") for area in WORDS)
    (root / "bench_test.go").write_text(text)
    cmd = f"{_GO_ENV} go test -run '^$' -bench . -benchmem -benchtime=200x -cpu 1 ."
    return _go_out(sh(cmd, root), root)


_GO_ERRORS = """package errorsbench

import (
\t"errors"
\t"fmt"
\t"testing"
)

var ErrTimeout = errors.New("upstream timeout")

type job struct {
\tID       int
\tFailed   bool
\tAttempts int
\tErr      error
}

func makeJobs(n int) []job {
\tjs := make([]job, n)
\tfor i := range js {
\t\tjs[i] = job{ID: i, Failed: i%11 == 0, Attempts: i % 6}
\t\tif js[i].Failed {
\t\t\tjs[i].Err = fmt.Errorf("job %d: %w", i, ErrTimeout)
\t\t}
\t}
\treturn js
}

func errorRate(js []job) float64 {
\tf := 0
\tfor _, j := range js {
\t\tif j.Failed {
\t\t\tf++
\t\t}
\t}
\treturn float64(f) / float64(len(js))
}

func failedJobsFilter(js []job) []job {
\tvar out []job
\tfor _, j := range js {
\t\tif j.Failed && errors.Is(j.Err, ErrTimeout) {
\t\t\tout = append(out, j)
\t\t}
\t}
\treturn out
}

func retryBackoff(attempts int) int {
\td := 100
\tfor i := 1; i < attempts; i++ {
\t\td *= 2
\t}
\treturn d
}

var _ = testing.Short
"""


def _go_errors_bench(fn: str, body: str) -> str:
    return f"""
func Benchmark{fn}(b *testing.B) {{
\tfor _, area := range areas {{
\t\tfor _, size := range []int{{100, 1000}} {{
\t\t\tjs := makeJobs(size)
\t\t\tb.Run(fmt.Sprintf("%s/jobs=%d", area, size), func(b *testing.B) {{
\t\t\t\tb.ReportAllocs()
\t\t\t\tfor i := 0; i < b.N; i++ {{
\t\t\t\t\t{body}
\t\t\t\t}}
\t\t\t}})
\t\t}}
\t}}
}}
"""


@case(
    "u32_go_bench_error_rate_failed_jobs_clean",
    "go test -run '^$' -bench . -benchmem -benchtime=100x -cpu 1 (BenchmarkErrorRate, BenchmarkFailedJobsFilter)",
    clean=True,
    group=GROUP,
    decisive=["PASS", "ok  \tshop.example/errorsbench"],
)
def _go_bench_clean(root: Path) -> bytes:
    (root / "go.mod").write_text("module shop.example/errorsbench\n\ngo 1.19\n")
    areas = ", ".join(f'"{a}"' for a in WORDS)
    text = _GO_ERRORS + f"\nvar areas = []string{{{areas}}}\n"
    text += _go_errors_bench("ErrorRate", "_ = errorRate(js)")
    text += _go_errors_bench("FailedJobsFilter", "_ = failedJobsFilter(js)")
    text += _go_errors_bench("RetryBackoff", "_ = retryBackoff(js[i%len(js)].Attempts)")
    (root / "errors_test.go").write_text(text)
    cmd = f"{_GO_ENV} go test -run '^$' -bench . -benchmem -benchtime=100x -cpu 1 ."
    return _go_out(sh(cmd, root), root)


# ---------------------------------------------------------------- GNU time -v

_EXPORT_PY = """
import sys

def export_batch(area, batch):
    rows = [f"{area},{batch},{i},{(i * 37) % 1000}" for i in range(2000)]
    return len(rows), sum(len(r) for r in rows)

total = 0
for batch in range(1, 201):
    area = AREAS[batch % len(AREAS)]
    if batch == 151:
        print(f"batch {batch}: buffering the whole {area} export in memory before upload")
        buffer = bytearray(4 * 1024 * 1024 * 1024)
    n, size = export_batch(area, batch)
    total += n
    print(f"batch {batch}: exported {n} {area} rows ({size} bytes), {total} rows so far")
print("export finished")
"""


@case(
    "u32_time_v_export_memory_error_under_ulimit",
    "ulimit -v 1000000; /usr/bin/time -v python -u export_all.py",
    clean=False,
    group=GROUP,
    decisive=[
        "buffer = bytearray(4 * 1024 * 1024 * 1024)",
        "MemoryError",
        "Command exited with non-zero status 1",
        "[exit status 1]",
    ],
)
def _time_v(root: Path) -> bytes:
    write(root, {"export_all.py": f"AREAS = {WORDS!r}\n" + _EXPORT_PY.lstrip("\n")})
    out = sh(f"ulimit -v 1000000; /usr/bin/time -v {PY} -u export_all.py", root)
    return substitute(
        scrub(out, root),
        (r"^(\t(?:User|System) time \(seconds\)): .*$", r"\1: 0.05"),
        (r"^(\tPercent of CPU this job got): .*$", r"\1: 98%"),
        (r"^(\tElapsed \(wall clock\) time \(h:mm:ss or m:ss\)): .*$", r"\1: 0:00.21"),
        (r"^(\tMaximum resident set size \(kbytes\)): .*$", r"\1: 24000"),
        (r"^(\t(?:Major \(requiring I/O\)|Minor \(reclaiming a frame\)) page faults): .*$", r"\1: 3000"),
        (r"^(\t(?:Voluntary|Involuntary) context switches): .*$", r"\1: 10"),
        (r"^(\tFile system (?:inputs|outputs)): .*$", r"\1: 0"),
    )


# ---------------------------------------------------------------- strace -c

_LEDGER_SYNC_C = r"""
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static const char *AREAS[] = {
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
};

int main(void) {
    char line[160];
    int out = open("synced.log", O_WRONLY | O_CREAT | O_TRUNC, 0644);
    for (int i = 0; i < 300; i++) {
        int n = snprintf(line, sizeof line, "ledger-sync: synced entry %05d of %s: %d cents, journal page %d\n", i,
                         AREAS[i % 20], (i * 37) % 1000, i / 20);
        write(1, line, (size_t)n);
        write(out, line, (size_t)n);
    }
    close(out);
    int fd = open("/etc/shop/ledger.conf", O_RDONLY);
    if (fd < 0) {
        int n = snprintf(line, sizeof line, "ledger-sync: cannot open /etc/shop/ledger.conf: %s\n", strerror(errno));
        write(2, line, (size_t)n);
        return 2;
    }
    return 0;
}
"""


_STRACE_OUT = (
    (r"^ *\d+\.\d+ +\d+\.\d+ +\d+ (?=.* total$)", "100.00    0.000400           0 "),
    (r"^ *\d+\.\d+ +\d+\.\d+ +\d+ (?!.* total$)", "  5.00    0.000020           0 "),
)


@case(
    "u32_strace_c_ledger_sync_missing_config",
    "strace -c -S name ./ledger_sync",
    clean=False,
    group=GROUP,
    decisive=["ledger-sync: cannot open /etc/shop/ledger.conf: No such file or directory", "[exit status 2]"],
)
def _strace_bad(root: Path) -> bytes:
    binary = _cc(root, "ledger_sync.c", _LEDGER_SYNC_C)
    return substitute(scrub(sh(f"strace -c -S name ./{binary}", root), root), *_STRACE_OUT)


_ROTATE_C = r"""
#include <stdio.h>
#include <sys/stat.h>
#include <unistd.h>

static const char *AREAS[] = {
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
};

static const char *KINDS[] = {"errors", "failed-jobs", "exceptions"};

int main(void) {
    char from[96], to[96];
    struct stat st;
    mkdir("logs", 0755);
    for (int a = 0; a < 20; a++) {
        for (int t = 0; t < 3; t++) {
            snprintf(from, sizeof from, "logs/%s-%s.log", AREAS[a], KINDS[t]);
            FILE *f = fopen(from, "w");
            fprintf(f, "%s: 3 errors, 1 failed retry, 2 exceptions\n", AREAS[a]);
            fclose(f);
            for (int k = 5; k >= 1; k--) {
                snprintf(from, sizeof from, "logs/%s-%s.log.%d", AREAS[a], KINDS[t], k);
                snprintf(to, sizeof to, "logs/%s-%s.log.%d", AREAS[a], KINDS[t], k + 1);
                if (access(from, F_OK) == 0) rename(from, to);
            }
            snprintf(from, sizeof from, "logs/%s-%s.log", AREAS[a], KINDS[t]);
            snprintf(to, sizeof to, "logs/%s-%s.log.1", AREAS[a], KINDS[t]);
            rename(from, to);
            stat(to, &st);
            printf("rotated %s -> %s (%ld bytes); no older %s logs to shift (5 generations checked)\n", from, to,
                   (long)st.st_size, KINDS[t]);
        }
    }
    printf("rotate-errors: 60 error logs rotated, 0 failed\n");
    return 0;
}
"""


@case(
    "u32_strace_c_error_log_rotation_expected_enoent_clean",
    "strace -c -S name ./rotate_errors",
    clean=True,
    group=GROUP,
    decisive=["rotate-errors: 60 error logs rotated, 0 failed", "total"],
)
def _strace_clean(root: Path) -> bytes:
    binary = _cc(root, "rotate_errors.c", _ROTATE_C)
    return substitute(scrub(sh(f"strace -c -S name ./{binary}", root), root), *_STRACE_OUT)


# ---------------------------------------------------------------- perf

_SEARCH_C = r"""
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "catalog.h"

int main(int argc, char **argv) {
    int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
    int queries = quick ? 300 : 30000;
    long hits = 0;
    for (int q = 0; q < queries; q++) {
        int h = search_catalog(q);
        hits += h;
        if (quick) printf("query %03d (%s/%s): %d hits, %ld total\n", q, area_name(q), shard_name(q), h, hits);
    }
    printf("catalog-search-bench: %d queries, %ld hits\n", queries, hits);
    return 0;
}
"""


def _catalog_sources() -> dict[str, str]:
    files = {"bench.c": _SEARCH_C}
    decls = []
    for i, area in enumerate(WORDS):
        files[f"shards/{area}.c"] = (
            f"int shard_{area}(int q) {{\n    int h = 0;\n"
            f"    for (int i = 0; i < {50 + i * 5}; i++) h += ((q * 31 + i * {i + 3}) % 97) == 0;\n"
            "    return h;\n}\n"
        )
        decls.append(f"int shard_{area}(int q);")
    names = ", ".join(f'"{a}"' for a in WORDS)
    calls = "\n".join(f"    case {i}: return shard_{a}(q);" for i, a in enumerate(WORDS))
    files["catalog.c"] = (
        '#include "catalog.h"\n\n'
        f"static const char *AREAS[] = {{{names}}};\n\n"
        "const char *area_name(int q) { return AREAS[q % 20]; }\n"
        'const char *shard_name(int q) { return q % 2 ? "replica" : "primary"; }\n\n'
        f"int search_catalog(int q) {{\n    switch (q % 20) {{\n{calls}\n    }}\n    return 0;\n}}\n"
    )
    files["catalog.h"] = (
        "\n".join(decls)
        + "\nint search_catalog(int q);\nconst char *area_name(int q);\nconst char *shard_name(int q);\n"
    )
    objs = " ".join(["bench.o", "catalog.o"] + [f"shards/{a}.o" for a in WORDS])
    files["Makefile"] = (
        "CFLAGS = -O2 -g -Wall -Ishards -I.\n\n"
        f"catalog_search_bench: {objs}\n\t$(CC) $(CFLAGS) -o $@ $^\n\n"
        "%.o: %.c catalog.h\n\t$(CC) $(CFLAGS) -c -o $@ $<\n"
    )
    return files


@case(
    "u32_perf_record_cache_misses_event_not_supported",
    "make && ./catalog_search_bench --quick && perf record -e cache-misses -g -- ./catalog_search_bench",
    clean=False,
    group=GROUP,
    decisive=["The cache-misses event is not supported.", "[exit status 255]"],
)
def _perf_record(root: Path) -> bytes:
    for rel, text in _catalog_sources().items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    cmd = (
        "make && ./catalog_search_bench --quick && "
        "perf record -e cache-misses -g -o perf.data -- ./catalog_search_bench && perf report --stdio -i perf.data"
    )
    return scrub(sh(cmd, root), root)


@case(
    "u32_perf_stat_errors_report_five_runs_clean",
    "perf stat -r 5 -e task-clock,context-switches,page-faults ./errors_report",
    clean=True,
    group=GROUP,
    decisive=["Performance counter stats for './errors_report' (5 runs):", "seconds time elapsed"],
)
def _perf_stat(root: Path) -> bytes:
    binary = _cc(root, "errors_report.c", _ERRORS_REPORT_C)
    out = sh(f"perf stat -r 5 -e task-clock,context-switches,page-faults ./{binary}", root)
    return substitute(
        scrub(out, root),
        (
            r"^ +[\d.,]+ +msec task-clock .*$",
            "              2.50 msec task-clock    #    0.900 CPUs utilized  ( +-  2.00% )",
        ),
        (
            r"^ +[\d,]+ +(context-switches|page-faults) .*$",
            r"                10      \1    #    4.000 K/sec    ( +-  1.00% )",
        ),
        (
            r"^ +[\d.]+ \+- [\d.]+ seconds time elapsed .*$",
            "           0.00300 +- 0.00010 seconds time elapsed  ( +-  3.00% )",
        ),
    )
