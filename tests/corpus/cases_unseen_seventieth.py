"""Held-out outputs (group ``unseen-70``): a seventieth batch, the Go toolchain in depth as a coding agent runs it on
one generated payments module of 44 packages named after business words (``errorreport``, ``failedpayments``,
``retryqueue``, ``deadletter``, ``exceptions``...), with only the standard library (``GOPROXY=off``, ``-mod=mod``).

Failing runs: ``go build -v -gcflags=-m ./...`` where the escape-analysis notes of every package surround one type error
in ``refunds``, ``go vet -v ./...`` after a verbose build with a printf finding in ``errorreport`` and a copylocks
finding in ``retryqueue``, ``go test -race -cover -count=1 ./...`` where a DATA RACE in ``settlement`` with its
goroutine stacks sits among 43 ``ok`` packages, ``go test -v -run`` of the retry tests with ``t.Log`` noise and one
failing subtest (got/want) in ``retrypolicy``, ``go test -json`` where one test of ``invoice`` fails, ``gofmt -l -d``
where a merge-conflict leftover in ``cart`` is a syntax error and three files were reindented by hand (the generated
import blocks are out of gofmt's order too, so almost every package shows a diff), ``go test -timeout`` of a deadlocked
drain test whose timeout panic dumps every goroutine, and ``GOTRACEBACK=all go test`` where a test of ``webhooks``
panics on a nil map with 32 idle workers.
Clean runs full of those words: ``go test -cover`` then ``-coverprofile`` with ``go tool cover -func``, ``go test
-bench . -benchmem``, ``go test -v ./...`` whose tests log retried errors and failed attempts, and ``go test -json``
of its ``internal`` packages. Labels were written with each scenario, before the engine saw the output. Needs Go with
cgo and gcc for ``-race`` (Debian ``golang-go``, ``gcc``).
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import case, scrub, sh, substitute

GROUP = "unseen-70"
MOD = "example.com/payments"

#: The packages of the module: (folder, name). Each imports the one before it in its folder group.
PKGS = [
    ("internal/errorreport", "errorreport"),
    ("internal/errorcodes", "errorcodes"),
    ("internal/exceptions", "exceptions"),
    ("internal/failedpayments", "failedpayments"),
    ("internal/failedjobs", "failedjobs"),
    ("internal/retryqueue", "retryqueue"),
    ("internal/retrypolicy", "retrypolicy"),
    ("internal/deadletter", "deadletter"),
    ("internal/audit", "audit"),
    ("internal/auditlog", "auditlog"),
    ("billing/invoice", "invoice"),
    ("billing/ledger", "ledger"),
    ("billing/tax", "tax"),
    ("billing/taxrates", "taxrates"),
    ("billing/pricing", "pricing"),
    ("billing/coupons", "coupons"),
    ("billing/refunds", "refunds"),
    ("billing/chargeback", "chargeback"),
    ("billing/settlement", "settlement"),
    ("billing/payouts", "payouts"),
    ("billing/subscriptions", "subscriptions"),
    ("billing/dunning", "dunning"),
    ("billing/receipts", "receipts"),
    ("billing/statements", "statements"),
    ("billing/disputes", "disputes"),
    ("billing/currency", "currency"),
    ("billing/reconciliation", "reconciliation"),
    ("shop/orders", "orders"),
    ("shop/orderhistory", "orderhistory"),
    ("shop/cart", "cart"),
    ("shop/cartsync", "cartsync"),
    ("shop/catalog", "catalog"),
    ("shop/search", "search"),
    ("shop/shipping", "shipping"),
    ("platform/auth", "auth"),
    ("platform/authtokens", "authtokens"),
    ("platform/session", "session"),
    ("platform/sessionstore", "sessionstore"),
    ("platform/webhooks", "webhooks"),
    ("platform/notifications", "notifications"),
    ("platform/export", "export"),
    ("platform/exportcsv", "exportcsv"),
    ("platform/fraudcheck", "fraudcheck"),
    ("platform/ratelimit", "ratelimit"),
]


def _camel(name: str) -> str:
    return name[0].upper() + name[1:]


def _package(idx: int, folder: str, name: str) -> str:
    """The library code of one package: a record type, a processor with retries, and helpers."""
    group = folder.split("/")[0]
    prev = [(f, n) for f, n in PKGS[:idx] if f.split("/")[0] == group]
    dep = prev[-1] if prev else None
    imp = f'\t"{MOD}/{dep[0]}"\n' if dep else ""
    use = f"{dep[1]}.Weight(n) + " if dep else ""
    return f"""package {name}

import (
\t"errors"
\t"fmt"
\t"strings"
{imp})

// ErrRetryExhausted is returned when every attempt of a {name} record failed.
var ErrRetryExhausted = errors.New("{name}: retry exhausted")

// Record is one {name} entry as the payments service stores it.
type Record struct {{
\tID       string
\tCents    int64
\tAttempts int
\tFailed   bool
\tReason   string
}}

// Weight scores an amount for the {name} service.
func Weight(n int) int {{
\treturn {use}n%{97 - idx}
}}

// Process sums the records, retrying each failed one up to max times.
func Process(recs []Record, max int) (int64, error) {{
\tvar total int64
\tfor _, r := range recs {{
\t\tif r.Failed && r.Attempts >= max {{
\t\t\treturn total, fmt.Errorf("record %s: %w", r.ID, ErrRetryExhausted)
\t\t}}
\t\ttotal += r.Cents
\t}}
\treturn total, nil
}}

// Describe is the log line of a record.
func Describe(r Record) string {{
\tstate := "ok"
\tif r.Failed {{
\t\tstate = "failed: " + r.Reason
\t}}
\treturn fmt.Sprintf("{name} %s %d cents after %d attempts (%s)", r.ID, r.Cents, r.Attempts, state)
}}

// Backoff is the delay in milliseconds before the given retry attempt.
func Backoff(attempt int) int {{
\tif attempt <= 0 {{
\t\treturn 0
\t}}
\td := 100
\tfor i := 1; i < attempt; i++ {{
\t\td *= 2
\t}}
\tif d > 6400 {{
\t\td = 6400
\t}}
\treturn d
}}

// Normalize trims and lowers a reference.
func Normalize(ref string) string {{
\treturn strings.ToLower(strings.TrimSpace(ref))
}}

// Summarize joins the descriptions of the records.
func Summarize(recs []Record) string {{
\tparts := make([]string, 0, len(recs))
\tfor _, r := range recs {{
\t\tparts = append(parts, Describe(r))
\t}}
\treturn strings.Join(parts, "; ")
}}
"""


def _tests(idx: int, name: str, n: int = 6, extra: str = "") -> str:
    """Passing tests of one package, with ``t.Log`` lines that talk about errors, failures and retries."""
    c = _camel(name)
    out = [
        f"""package {name}

import (
\t"errors"
\t"testing"
)

func sample() []Record {{
\treturn []Record{{
\t\t{{ID: "{name}-001", Cents: 1250, Attempts: 1}},
\t\t{{ID: "{name}-002", Cents: 990, Attempts: 2, Failed: true, Reason: "card declined"}},
\t\t{{ID: "{name}-003", Cents: 4100, Attempts: 1}},
\t}}
}}

func Test{c}RetryOnError(t *testing.T) {{
\tfor attempt := 1; attempt <= 3; attempt++ {{
\t\tt.Logf("attempt %d: upstream error 503, retrying in %dms", attempt, Backoff(attempt))
\t}}
\ttotal, err := Process(sample(), 3)
\tif err != nil {{
\t\tt.Fatalf("Process: %v", err)
\t}}
\tif total != 6340 {{
\t\tt.Fatalf("total = %d, want 6340", total)
\t}}
}}

func Test{c}FailedRecordExhaustsRetries(t *testing.T) {{
\trecs := sample()
\trecs[1].Attempts = 5
\t_, err := Process(recs, 3)
\tif !errors.Is(err, ErrRetryExhausted) {{
\t\tt.Fatalf("err = %v, want ErrRetryExhausted", err)
\t}}
\tt.Logf("expected error returned: %v", err)
}}

func Test{c}DescribeFailed(t *testing.T) {{
\tgot := Describe(sample()[1])
\tt.Log("failed record:", got)
\tif got == "" {{
\t\tt.Fatal("empty description")
\t}}
}}
"""
    ]
    for k in range(3, n):
        out.append(
            f"""
func Test{c}Backoff{k:02d}(t *testing.T) {{
\tfor _, tc := range []struct {{
\t\tname    string
\t\tattempt int
\t\twant    int
\t}}{{
\t\t{{"first_retry", 1, 100}},
\t\t{{"second_retry", 2, 200}},
\t\t{{"capped_after_exception", {k + 8}, 6400}},
\t}} {{
\t\tt.Run(tc.name, func(t *testing.T) {{
\t\t\tif got := Backoff(tc.attempt); got != tc.want {{
\t\t\t\tt.Errorf("Backoff(%d) = %d, want %d", tc.attempt, got, tc.want)
\t\t\t}}
\t\t\tt.Logf("retry %s waits %dms", tc.name, Backoff(tc.attempt))
\t\t}})
\t}}
}}
"""
        )
    out.append(extra)
    return "".join(out)


def _module(root: Path, *, n_tests: int = 6, extra: dict[str, str] | None = None, skip: str = "") -> None:
    """The module: every package with its code and tests; ``extra`` adds or replaces files."""
    files = {"go.mod": f"module {MOD}\n\ngo 1.19\n"}
    for idx, (folder, name) in enumerate(PKGS):
        if name == skip:
            continue
        files[f"{folder}/{name}.go"] = _package(idx, folder, name)
        files[f"{folder}/{name}_test.go"] = _tests(idx, name, n_tests)
    files["cmd/paymentsd/main.go"] = (
        f'package main\n\nimport (\n\t"fmt"\n\n\t"{MOD}/internal/retryqueue"\n)\n\n'
        'func main() {\n\tfmt.Println("paymentsd: backoff", retryqueue.Backoff(3))\n}\n'
    )
    files.update(extra or {})
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _go(root: Path, cache: str = "") -> str:
    """The environment of the go command: no proxy, the module's own GOPATH; a cache of its own unless given."""
    gocache = cache or str(root / "gocache")
    return (
        f"HOME={root / 'home'} GOPATH={root / 'gopath'} GOCACHE={gocache} GOFLAGS=-mod=mod GOPROXY=off GOSUMDB=off "
        "GOTOOLCHAIN=local GO111MODULE=on CGO_ENABLED=1"
    )


#: A cache shared by the runs whose output does not show what was compiled (tests with -count=1).
SHARED_CACHE = "/tmp/u70-gocache"


def _renumber_goroutines(out: bytes) -> bytes:
    """``out`` with goroutine ids numbered in order of appearance (the runtime's own goroutines shift them)."""
    ids: dict[bytes, bytes] = {}

    def one(m: re.Match[bytes]) -> bytes:
        num = ids.setdefault(m.group(2), str(len(ids) + 1).encode())
        return m.group(1) + num

    return re.sub(rb"([Gg]oroutine )(\d+)", one, out)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: folders, durations, addresses, goroutine ids."""
    return substitute(
        scrub(_renumber_goroutines(out), root),
        (r"\t\d+\.\d+s$", "\t0.050s"),
        (r"\t\d+\.\d+s\t", "\t0.050s\t"),
        (r"\(\d+\.\d+s\)", "(0.00s)"),
        (r"0x[0-9a-f]+", "0x0"),
        (r"==\d+==", "==1000=="),
        (r"/tmp/go-build\d+", "/tmp/go-build1000"),
        (r'"Time":"[^"]+"', '"Time":"2026-01-01T00:00:00Z"'),
        (r'"Elapsed":\d+(\.\d+)?', '"Elapsed":0.05'),
        (r"\\t\d+\.\d+s\\n", r"\\t0.050s\\n"),
    )


# ---------------------------------------------------------------- go build and go vet


_PARTIAL_REFUND = """package refunds

// PartialRefund is what is still refundable after the given refunds, as the ledger label.
func PartialRefund(r Record, refunded []int64) string {
\tleft := r.Cents
\tfor _, c := range refunded {
\t\tleft -= c
\t}
\treturn left
}
"""


@case(
    "u70_go_build_gcflags_m_refunds",
    "go build -gcflags=-m",
    clean=False,
    group=GROUP,
    decisive=[
        "billing/refunds/partial.go:9:9: cannot use left (variable of type int64) as type string",
        "# example.com/payments/billing/refunds",
    ],
)
def _build_error(root: Path) -> bytes:
    _module(root, extra={"billing/refunds/partial.go": _PARTIAL_REFUND})
    return _settle(sh(f"{_go(root)} go build -v -p 1 -gcflags=-m ./...", root), root)


_REPORT_LINE = """package errorreport

import "fmt"

// Line is the report line of a failed record.
func Line(r Record) string {
\treturn fmt.Sprintf("record %d failed after %d attempts: %s", r.ID, r.Attempts, r.Reason)
}
"""

_QUEUE = """package retryqueue

import "sync"

// Queue holds the records waiting for their next retry.
type Queue struct {
\tmu      sync.Mutex
\tpending []Record
}

// Push adds a record.
func (q *Queue) Push(r Record) {
\tq.mu.Lock()
\tdefer q.mu.Unlock()
\tq.pending = append(q.pending, r)
}

// Snapshot copies the queue for the retry report.
func (q *Queue) Snapshot() Queue {
\tq.mu.Lock()
\tdefer q.mu.Unlock()
\treturn *q
}
"""


@case(
    "u70_go_vet_printf_copylocks",
    "go build -v && go vet -v",
    clean=False,
    group=GROUP,
    decisive=[
        "internal/errorreport/format.go:7:9: fmt.Sprintf format %d has arg r.ID of wrong type string",
        "internal/retryqueue/queue.go:22:9: return copies lock value",
    ],
)
def _vet(root: Path) -> bytes:
    _module(root, extra={"internal/errorreport/format.go": _REPORT_LINE, "internal/retryqueue/queue.go": _QUEUE})
    go = _go(root)
    return _settle(sh(f"{go} go build -v -p 1 ./... && {go} go vet -v -p 1 ./...", root), root)


# ---------------------------------------------------------------- go test: race, -v, -json, timeout, panic


_RACY_BATCH = """package settlement

import (
\t"sync"
\t"testing"
)

// settleAll adds up the batch on one goroutine per record: the total is shared without a lock.
func settleAll(recs []Record) int64 {
\tvar total int64
\tvar wg sync.WaitGroup
\tfor _, r := range recs {
\t\twg.Add(1)
\t\tgo func(c int64) {
\t\t\tdefer wg.Done()
\t\t\ttotal += c
\t\t}(r.Cents)
\t}
\twg.Wait()
\treturn total
}

func TestSettlementBatchTotals(t *testing.T) {
\tif got := settleAll(sample()); got != 6340 {
\t\tt.Errorf("settleAll = %d, want 6340", got)
\t}
}
"""


@case(
    "u70_go_test_race_cover_settlement",
    "go test -race -cover",
    clean=False,
    group=GROUP,
    decisive=[
        "WARNING: DATA RACE",
        "--- FAIL: TestSettlementBatchTotals",
        "FAIL\texample.com/payments/billing/settlement",
    ],
)
def _race(root: Path) -> bytes:
    _module(root, extra={"billing/settlement/batch_test.go": _RACY_BATCH})
    return _settle(sh(f"{_go(root, SHARED_CACHE)} go test -race -cover -count=1 ./...", root), root)


_SCHEDULE_TEST = """package retrypolicy

import "testing"

func TestRetryPolicySchedule(t *testing.T) {
\tfor _, tc := range []struct {
\t\tname    string
\t\tattempt int
\t\twant    int
\t}{
\t\t{"first_reminder", 1, 100},
\t\t{"second_reminder", 2, 200},
\t\t{"third_reminder", 3, 400},
\t\t{"final_notice_after_failed_charge", 4, 1600},
\t\t{"capped_after_exception", 12, 6400},
\t} {
\t\tt.Run(tc.name, func(t *testing.T) {
\t\t\tt.Logf("scheduling retry %d after failed charge (error: card_declined)", tc.attempt)
\t\t\tif got := Backoff(tc.attempt); got != tc.want {
\t\t\t\tt.Errorf("Backoff(%d) = %d, want %d", tc.attempt, got, tc.want)
\t\t\t}
\t\t})
\t}
}
"""


@case(
    "u70_go_test_v_run_retry_subtest",
    "go test -v -run",
    clean=False,
    group=GROUP,
    decisive=[
        "--- FAIL: TestRetryPolicySchedule/final_notice_after_failed_charge",
        "schedule_test.go:20: Backoff(4) = 800, want 1600",
        "FAIL\texample.com/payments/internal/retrypolicy",
    ],
)
def _v_run(root: Path) -> bytes:
    _module(root, extra={"internal/retrypolicy/schedule_test.go": _SCHEDULE_TEST})
    cmd = "go test -v -count=1 -run 'Retry|Backoff|Schedule' ./..."
    return _settle(sh(f"{_go(root, SHARED_CACHE)} {cmd}", root), root)


_ROUNDING_TEST = """package invoice

import "testing"

// roundHalfUp rounds tenths of a cent to cents.
func roundHalfUp(tenths int64) int64 {
\treturn tenths / 10
}

func TestInvoiceRoundingHalfUp(t *testing.T) {
\tt.Log("rounding 10045 tenths of a cent for invoice INV-2291")
\tif got := roundHalfUp(10045); got != 1005 {
\t\tt.Errorf("total = %d, want 1005", got)
\t}
}
"""


@case(
    "u70_go_test_json_invoice_fail",
    "go test -json",
    clean=False,
    group=GROUP,
    decisive=[
        "rounding_test.go:13: total = 1004, want 1005",
        '"Action":"fail","Package":"example.com/payments/billing/invoice","Test":"TestInvoiceRoundingHalfUp"',
    ],
)
def _json_fail(root: Path) -> bytes:
    _module(root, extra={"billing/invoice/rounding_test.go": _ROUNDING_TEST})
    return _settle(sh(f"{_go(root, SHARED_CACHE)} go test -json -p 1 -count=1 ./...", root), root)


_DRAIN_TEST = """package retryqueue

import (
\t"sync"
\t"testing"
)

func TestRetryQueueDrainsOnShutdown(t *testing.T) {
\tjobs := make(chan Record)
\tvar wg sync.WaitGroup
\tfor w := 0; w < 24; w++ {
\t\twg.Add(1)
\t\tgo func(id int) {
\t\t\tdefer wg.Done()
\t\t\tfor r := range jobs {
\t\t\t\tt.Logf("worker %02d retried %s", id, Describe(r))
\t\t\t}
\t\t}(w)
\t}
\tfor _, r := range sample() {
\t\tjobs <- r
\t}
\twg.Wait()
}
"""


@case(
    "u70_go_test_timeout_goroutine_dump",
    "go test -timeout",
    clean=False,
    group=GROUP,
    decisive=[
        "panic: test timed out after 4s",
        "/tmp/work/internal/retryqueue/drain_test.go:23",
        "FAIL\texample.com/payments/internal/retryqueue",
    ],
)
def _timeout(root: Path) -> bytes:
    _module(root, extra={"internal/retryqueue/drain_test.go": _DRAIN_TEST})
    return _settle(sh(f"{_go(root, SHARED_CACHE)} go test -count=1 -timeout 4s ./...", root), root)


_DISPATCH = """package webhooks

import "sync"

// Dispatcher delivers webhooks on a pool of workers and remembers the failed ones.
type Dispatcher struct {
\tmu     sync.Mutex
\tqueue  chan Record
\tfailed map[string]int
}

// NewDispatcher starts the workers; the failed map is never made.
func NewDispatcher(workers int) *Dispatcher {
\td := &Dispatcher{queue: make(chan Record)}
\tfor i := 0; i < workers; i++ {
\t\tgo d.work()
\t}
\treturn d
}

func (d *Dispatcher) work() {
\tfor r := range d.queue {
\t\t_ = Describe(r)
\t}
}

// MarkFailed counts a failed delivery for the retry report.
func (d *Dispatcher) MarkFailed(id string) {
\td.mu.Lock()
\tdefer d.mu.Unlock()
\td.failed[id]++
}
"""

_DISPATCH_TEST = """package webhooks

import "testing"

func TestWebhooksRetryFailedDelivery(t *testing.T) {
\td := NewDispatcher(32)
\tt.Log("delivery to https://merchant.example/hooks failed with 502; marking for retry")
\td.MarkFailed("evt_1042")
}
"""


@case(
    "u70_go_test_panic_nil_map_traceback_all",
    "go test (GOTRACEBACK=all)",
    clean=False,
    group=GROUP,
    decisive=[
        "panic: assignment to entry in nil map [recovered]",
        "/tmp/work/platform/webhooks/dispatch.go:31",
        "FAIL\texample.com/payments/platform/webhooks",
    ],
)
def _panic(root: Path) -> bytes:
    extra = {"platform/webhooks/dispatch.go": _DISPATCH, "platform/webhooks/dispatch_test.go": _DISPATCH_TEST}
    _module(root, extra=extra)
    return _settle(sh(f"{_go(root, SHARED_CACHE)} GOTRACEBACK=all go test -count=1 ./...", root), root)


# ---------------------------------------------------------------- gofmt


def _spaces(text: str) -> str:
    """``text`` indented with four spaces a level and its alignment lost: out of gofmt's format."""
    return text.replace("\t", "    ").replace("func (", "func  (")


_MERGE_LEFTOVER = """package cart

// Merge adds the guest cart's lines to the customer's cart.
func Merge(dst, src []Record) []Record {
\tout := make([]Record, 0, len(dst)+len(src))
\tout = append(out, dst...)
<<<<<<< HEAD
\tout = append(out, src...)
=======
\tfor _, r := range src {
\t\tout = append(out, r)
\t}
>>>>>>> retry-failed-cart-sync
\treturn out
}
"""


@case(
    "u70_gofmt_l_d_merge_leftover",
    "gofmt -l -d",
    clean=False,
    group=GROUP,
    decisive=[
        "shop/cart/merge.go:7:1: expected statement, found '<<'",
        "diff internal/failedpayments/failedpayments.go.orig",
        "diff platform/notifications/notifications_test.go.orig",
        "diff billing/payouts/payouts.go.orig",
    ],
)
def _gofmt(root: Path) -> bytes:
    _module(root, extra={"shop/cart/merge.go": _MERGE_LEFTOVER})
    for rel in (
        "internal/failedpayments/failedpayments.go",
        "platform/notifications/notifications_test.go",
        "billing/payouts/payouts.go",
    ):
        path = root / rel
        path.write_text(_spaces(path.read_text()))
    return _settle(sh("gofmt -l -d .", root), root)


# ---------------------------------------------------------------- clean runs


def _bench(name: str) -> str:
    c = _camel(name)
    return f"""package {name}

import "testing"

func Benchmark{c}RetryOnError(b *testing.B) {{
\tfor i := 0; i < b.N; i++ {{
\t\t_ = Backoff(i%9 + 1)
\t}}
}}

func Benchmark{c}SummarizeFailed(b *testing.B) {{
\trecs := sample()
\tb.ReportAllocs()
\tfor i := 0; i < b.N; i++ {{
\t\t_ = Summarize(recs)
\t}}
}}

func Benchmark{c}ProcessExceptions(b *testing.B) {{
\trecs := sample()
\tfor i := 0; i < b.N; i++ {{
\t\t_, _ = Process(recs, 3)
\t}}
}}
"""


@case(
    "u70_go_test_bench_benchmem_clean",
    "go test -bench -benchmem",
    clean=True,
    group=GROUP,
    decisive=["BenchmarkFailedpaymentsSummarizeFailed-", "ok  \texample.com/payments/internal/failedpayments"],
)
def _bench_clean(root: Path) -> bytes:
    _module(root, extra={f"{f}/bench_test.go": _bench(n) for f, n in PKGS})
    cmd = "go test -count=1 -run '^$' -bench . -benchmem -benchtime 2000x ./..."
    out = sh(f"{_go(root, SHARED_CACHE)} {cmd}", root)
    return substitute(_settle(out, root), (r"\s+\d+(\.\d+)? ns/op", "\t     100.0 ns/op"))


@case(
    "u70_go_test_cover_func_clean",
    "go test -cover && go tool cover -func",
    clean=True,
    group=GROUP,
    decisive=["(statements)"],
)
def _cover_clean(root: Path) -> bytes:
    _module(root)
    go = _go(root, SHARED_CACHE)
    cmd = (
        f"{go} go test -count=1 -cover ./... && {go} go test -count=1 -coverprofile=cover.out ./... "
        f"&& {go} go tool cover -func=cover.out"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u70_go_test_v_clean_failed_retries",
    "go test -v",
    clean=True,
    group=GROUP,
    decisive=[
        "ok  \texample.com/payments/internal/retryqueue",
        "--- PASS: TestFailedpaymentsFailedRecordExhaustsRetries",
    ],
)
def _v_clean(root: Path) -> bytes:
    _module(root, n_tests=7)
    return _settle(sh(f"{_go(root, SHARED_CACHE)} go test -v -count=1 ./...", root), root)


@case(
    "u70_go_test_json_clean_internal",
    "go test -json",
    clean=True,
    group=GROUP,
    decisive=['"Action":"pass","Package":"example.com/payments/internal/failedjobs","Elapsed"'],
)
def _json_clean(root: Path) -> bytes:
    _module(root)
    return _settle(sh(f"{_go(root, SHARED_CACHE)} go test -json -p 1 -count=1 ./internal/...", root), root)
