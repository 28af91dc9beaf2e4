"""Held-out outputs (group ``unseen-120``): a hundred-and-twentieth batch, Tcl and Expect as an agent runs them on a
generated payments package, ``paydesk``, of 36 Tcl modules named after business words (``failed_payments``,
``error_codes``, ``retry_queue``, ``exception_report``, ``refunds`` ...), all offline with Debian's Tcl 8.6 and
Expect 5.45.

Failing runs: ``tclsh tests/all.tcl`` (tcltest ``runAllTests``, one child tclsh per test file) over 433 tests whose
helpers log every payment they post, where one retry backoff test of the ledger fails in the middle (the exit status
is 0: only tcltest's own words say so), a ``-singleproc 1`` run of 289 tests where one currency test raises an error
(``Test generated error`` and its ``errorInfo``), a ``runAllTests`` where one test file dies while it is sourced
(``Test file error:``, the totals still say ``Failed 0`` and the exit status is 0), a reconciliation script that dies
with Tcl's ``errorInfo`` stack trace after 430 payments, an expect session against the interactive paydesk console
that times out while settling batch 23, an expect session that meets an unexpected confirmation prompt in the middle
and goes on to the end, and a tclsh build script where ``pkg_mkIndex -verbose`` cannot source one module and the
load check fails. Clean runs full of those business words: a tcltest run of 378 tests with tests skipped for the
``liveGateway`` and ``win`` constraints and ``deprecated`` warnings in the output, a reconciliation report of failed
payments, error codes and retries, an expect session of 40 settled batches, and the tclsh build of the package
(``pkg_mkIndex``, a load check, a bundle and a proc report with deprecation warnings). Labels were written with each
scenario, before the engine saw the output. Needs Tcl 8.6 with tcltest and Expect (Debian ``tcl8.6``, ``expect``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-120"

#: The 36 modules of the package, in load order.
_MODULES = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "billing", "orders", "cart", "tax",
    "refunds", "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit",
    "export", "session", "auth", "errors_log", "retry_policy", "chargebacks", "settlements", "payouts", "disputes",
    "fraud_score", "currency", "fees", "statements", "reconcile", "failed_webhooks", "dead_letters", "alerts",
    "exceptions_inbox",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, dates, PIDs and durations."""
    return substitute(
        scrub(out, root),
        (r"^Tests (began|ended) at .*$", r"Tests \1 at Thu Jan 01 00:00:00 UTC 2026"),
        (r"\d+ microseconds", "100 microseconds"),
        (r"\(pid \d+\)", "(pid 4242)"),
        (r"spawn id exp\d+", "spawn id exp6"),
    )


def _module(i: int, name: str, *, extra: str = "") -> str:
    """``lib/paydesk/NAME.tcl``: a table of records by id, totals, retry delays and error codes."""
    ns = f"::paydesk::{name}"
    return f"""\
# {name}.tcl -- the {name.replace("_", " ")} part of the paydesk payments desk: a table of records
# by id, totals, retry delays and error codes.

package require Tcl 8.6
package provide paydesk::{name} 2.4.0

namespace eval {ns} {{
    variable limit {(i + 1) * 10}
    variable table [dict create]
    namespace export add get total count retry_delay error_code failed clear
}}

# Store AMOUNT under ID in the {name} table.
proc {ns}::add {{id amount}} {{
    variable table
    dict set table $id $amount
    return $amount
}}

# The amount stored under ID, or 0.
proc {ns}::get {{id}} {{
    variable table
    if {{[dict exists $table $id]}} {{
        return [dict get $table $id]
    }}
    return 0
}}

# The sum of all {name} amounts.
proc {ns}::total {{}} {{
    variable table
    set sum 0
    dict for {{id amount}} $table {{
        incr sum $amount
    }}
    return $sum
}}

# How many {name} records there are.
proc {ns}::count {{}} {{
    variable table
    dict size $table
}}

# The delay in seconds before retry ATTEMPT.
proc {ns}::retry_delay {{attempt}} {{
    expr {{60 * 2 ** max(0, $attempt - 1)}}
}}

# The error code string of STATUS.
proc {ns}::error_code {{status}} {{
    format E-%04d [expr {{{i * 100} + $status}}]
}}

# True when RECORD (a dict) has failed.
proc {ns}::failed {{record}} {{
    expr {{[dict get $record status] eq "failed"}}
}}

# Remove every {name} record.
proc {ns}::clear {{}} {{
    variable table
    set table [dict create]
    return
}}
{extra}"""


def _project(root: Path, *, extras: dict[str, str] | None = None, index: bool = True) -> None:
    """The 36 modules in ``root/lib/paydesk``, the main ``paydesk.tcl`` and (``index``) a ``pkgIndex.tcl``."""
    extras = extras or {}
    lib = "lib/paydesk"
    files = {f"{lib}/{m}.tcl": _module(i, m, extra=extras.get(m, "")) for i, m in enumerate(_MODULES)}
    requires = "".join(f"package require paydesk::{m} 2.4.0\n" for m in _MODULES)
    files[f"{lib}/paydesk.tcl"] = f"""\
# paydesk.tcl -- the payments desk: failed payments, the retry queue, error codes and the
# monthly exception report.

package require Tcl 8.6
{requires}
namespace eval ::paydesk {{
    variable version 2.4.0
    variable modules {{{" ".join(_MODULES)}}}
}}
package provide paydesk 2.4.0
"""
    if index:
        lines = "".join(
            f"package ifneeded paydesk::{m} 2.4.0 [list source [file join $dir {m}.tcl]]\n" for m in _MODULES
        )
        main = "package ifneeded paydesk 2.4.0 [list source [file join $dir paydesk.tcl]]\n"
        files[f"{lib}/pkgIndex.tcl"] = lines + main
    write(root, files)


# ---------------------------------------------------------------- tcltest


def _tests(i: int, name: str, *, extra: str = "", noisy: bool = False, head: str = "") -> str:
    """``tests/NAME.test``: 12 tcltest tests of the module (``noisy`` ones log every payment they post)."""
    ns = f"::paydesk::{name}"
    post = f"::paydesk::testutil::post {name} 20\n        " if noisy else ""
    return f"""\
# {name}.test -- tests of paydesk::{name}

package require tcltest 2.5
namespace import ::tcltest::*
lappend auto_path [file join [file dirname [file dirname [file normalize [info script]]]] lib]
package require paydesk::{name} 2.4.0
{"source [file join [file dirname [file normalize [info script]]] testutil.tcl]" if noisy else ""}
{head}
test {name}-1.1 {{add and get}} -setup {{{ns}::clear}} -body {{
    {post}{ns}::add PAY-{i:03d}01 1250
    {ns}::get PAY-{i:03d}01
}} -result 1250

test {name}-1.2 {{get of a missing id}} -setup {{{ns}::clear}} -body {{
    {ns}::get PAY-missing
}} -result 0

test {name}-2.1 {{total}} -setup {{{ns}::clear}} -body {{
    {post}{ns}::add a 100
    {ns}::add b 250
    {ns}::total
}} -result 350

test {name}-2.2 {{count}} -setup {{{ns}::clear}} -body {{
    {ns}::add a 1
    {ns}::count
}} -result 1

test {name}-3.1 {{retry delay of the first attempt}} -body {{
    {ns}::retry_delay 1
}} -result 60

test {name}-3.2 {{retry delay of the second attempt}} -body {{
    {ns}::retry_delay 2
}} -result 120

test {name}-3.3 {{retry delay of the third attempt}} -body {{
    {ns}::retry_delay 3
}} -result 240

test {name}-4.1 {{error code of a declined payment}} -body {{
    {ns}::error_code 5
}} -result E-{i * 100 + 5:04d}

test {name}-4.2 {{error code of a gateway timeout}} -body {{
    {post}{ns}::error_code 8
}} -result E-{i * 100 + 8:04d}

test {name}-5.1 {{failed record}} -body {{
    {ns}::failed {{id PAY-1 status failed}}
}} -result 1

test {name}-5.2 {{settled record}} -body {{
    {ns}::failed {{id PAY-2 status settled}}
}} -result 0

test {name}-6.1 {{clear}} -body {{
    {ns}::add x 1
    {ns}::clear
    {ns}::count
}} -result 0
{extra}
cleanupTests
"""


_ALL_TCL = """\
# all.tcl -- runs every paydesk test file
package require tcltest 2.5
namespace import ::tcltest::*
configure -testdir [file dirname [file normalize [info script]]] {*}$argv
runAllTests
"""

_TESTUTIL = """\
# testutil.tcl -- shared test helpers
namespace eval ::paydesk::testutil {}

# Post N made-up payments of AREA, logging each one.
proc ::paydesk::testutil::post {area n} {
    for {set k 0} {$k < $n} {incr k} {
        set status [expr {$k % 7 == 3 ? "failed" : "settled"}]
        puts [format "paydesk\\[%s\\]: posted PAY-%05d amount=%d currency=EUR status=%s" \\
                  $area [expr {10000 + $k}] [expr {125 * ($k + 1)}] $status]
        if {$status eq "failed"} {
            puts [format "paydesk\\[%s\\]: payment PAY-%05d failed (E-0412 card_declined), queued for retry 1/5" \\
                      $area [expr {10000 + $k}]]
        }
    }
}
"""


def _suite(
    root: Path,
    modules: list[str],
    *,
    extras: dict[str, str] | None = None,
    heads: dict[str, str] | None = None,
    noisy: bool = False,
) -> None:
    """The package and its test files in ``root/tests``, with ``all.tcl``."""
    extras = extras or {}
    heads = heads or {}
    _project(root)
    files = {
        f"tests/{m}.test": _tests(_MODULES.index(m), m, extra=extras.get(m, ""), head=heads.get(m, ""), noisy=noisy)
        for m in modules
    }
    files["tests/all.tcl"] = _ALL_TCL
    if noisy:
        files["tests/testutil.tcl"] = _TESTUTIL
    write(root, files)


_BACKOFF_TEST = """
test ledger-7.1 {retry backoff of ledger postings doubles for four attempts} -body {
    lmap attempt {1 2 3 4} {::paydesk::ledger::backoff $attempt}
} -result {60 120 240 480}
"""
_BACKOFF = """
# The backoff in seconds of ledger posting ATTEMPT, capped at the retry limit.
proc ::paydesk::ledger::backoff {attempt} {
    expr {min(240, [retry_delay $attempt])}
}
"""


@case(
    "u120_tcltest_one_failure",
    "tclsh tcltest runAllTests",
    clean=False,
    group=GROUP,
    decisive=[
        "==== ledger-7.1 retry backoff of ledger postings doubles for four attempts FAILED",
        "60 120 240 240",
        "all.tcl:\tTotal\t433\tPassed\t432\tSkipped\t0\tFailed\t1",
        "Files with failing tests: ledger.test",
    ],
)
def _tcltest_one_failure(root: Path) -> bytes:
    _suite(root, _MODULES, extras={"ledger": _BACKOFF_TEST}, noisy=True)
    (root / "lib/paydesk/ledger.tcl").write_text(_module(10, "ledger", extra=_BACKOFF))
    return _settle(sh("tclsh tests/all.tcl -verbose bp", root), root)


def _skipped(name: str, n: int) -> str:
    return f"""
test {name}-9.1 {{retry a failed payment against the live gateway}} -constraints liveGateway -body {{
    ::paydesk::{name}::retry_delay 1
}} -result 60

test {name}-9.2 {{exception report path on Windows shares}} -constraints win -body {{
    file join C:/ paydesk {name} exceptions-{n}.csv
}} -result C:/paydesk/{name}/exceptions-{n}.csv
"""


def _deprecated(name: str) -> str:
    return f"""
test {name}-8.1 {{legacy total still sums (deprecated)}} -setup {{::paydesk::{name}::clear}} -body {{
    puts "warning: ::paydesk::{name}::legacy_total is deprecated since 2.3, use ::paydesk::{name}::total"
    ::paydesk::{name}::add a 7
    ::paydesk::{name}::total
}} -result 7
"""


@case(
    "u120_tcltest_clean_skipped",
    "tclsh tcltest runAllTests",
    clean=True,
    group=GROUP,
    decisive=[
        "all.tcl:\tTotal\t378\tPassed\t366\tSkipped\t12\tFailed\t0",
        "Sourced 30 Test Files.",
        "\t6\tliveGateway",
    ],
)
def _tcltest_clean(root: Path) -> bytes:
    modules = _MODULES[:30]
    extras = {m: _deprecated(m) for m in modules[::5]}
    for k in (2, 8, 14, 20, 26, 29):
        extras[modules[k]] = extras.get(modules[k], "") + _skipped(modules[k], k)
    _suite(root, modules, extras=extras, noisy=True)
    return _settle(sh("tclsh tests/all.tcl -verbose bps", root), root)


_FX_TEST = """
test currency-13.1 {convert refund amounts to the settlement currency} -body {
    ::paydesk::currency::convert 1250 USD EUR
} -result 1150
"""
_FX = """
variable ::paydesk::currency::rates {EUR 1.0 USD 0.92 GBP 1.17}

# AMOUNT in currency FROM converted to currency TO, in cents.
proc ::paydesk::currency::convert {amount from to} {
    variable rates
    set from_rate [dict get $rates $from]
    expr {round($amount * $from_rate / $rate)}
}
"""


@case(
    "u120_tcltest_singleproc_error",
    "tclsh tcltest -singleproc",
    clean=False,
    group=GROUP,
    decisive=[
        "==== currency-13.1 convert refund amounts to the settlement currency FAILED",
        "---- Test generated error; Return code was: 1",
        'can\'t read "rate": no such variable',
        "all.tcl:\tTotal\t289\tPassed\t288\tSkipped\t0\tFailed\t1",
    ],
)
def _tcltest_singleproc_error(root: Path) -> bytes:
    modules = [*_MODULES[:23], "currency"]
    _suite(root, modules, extras={"currency": _FX_TEST}, noisy=True)
    (root / "lib/paydesk/currency.tcl").write_text(_module(28, "currency", extra=_FX))
    return _settle(sh("tclsh tests/all.tcl -singleproc 1 -verbose pe", root), root)


@case(
    "u120_tcltest_file_error",
    "tclsh tcltest runAllTests",
    clean=False,
    group=GROUP,
    decisive=[
        "Test file error: can't find package paydesk::refund_rules",
        "Test files exiting with errors:",
    ],
)
def _tcltest_file_error(root: Path) -> bytes:
    _suite(root, _MODULES, heads={"refunds": "package require paydesk::refund_rules 1.0\n"}, noisy=True)
    return _settle(sh("tclsh tests/all.tcl -verbose bp", root), root)


# ---------------------------------------------------------------- scripts


def _reconcile(count: int, broken_at: int = 0) -> str:
    """``reconcile.tcl``: posts ``count`` payments through the fee, ledger and retry modules and prints a line per
    payment; payment ``broken_at`` has an empty amount."""
    return f"""\
# reconcile.tcl -- nightly reconciliation of failed payments
lappend auto_path [file join [file dirname [file normalize [info script]]] lib]
package require paydesk 2.4.0

proc ::paydesk::fees::apply {{amount rate}} {{
    expr {{round($amount * $rate)}}
}}

proc reconcile_payment {{payment}} {{
    set amount [dict get $payment amount]
    set fee [::paydesk::fees::apply $amount 0.029]
    set status [dict get $payment status]
    set id [dict get $payment id]
    ::paydesk::ledger::add $id [expr {{$amount - $fee}}]
    if {{$status eq "failed"}} {{
        ::paydesk::retry_queue::add $id [::paydesk::retry_queue::retry_delay 1]
    }}
    puts [format "%-10s %-8s amount=%6d fee=%4d retry=%s code=%s" $id $status $amount $fee \\
              [expr {{$status eq "failed" ? "queued" : "-"}}] \\
              [expr {{$status eq "failed" ? [::paydesk::error_codes::error_code 12] : "-"}}]]
    return $status
}}

proc reconcile_run {{payments}} {{
    set failed 0
    set settled 0
    foreach payment $payments {{
        if {{[reconcile_payment $payment] eq "failed"}} {{
            incr failed
        }} else {{
            incr settled
        }}
    }}
    puts ""
    puts "failed payments: $failed (all queued in the retry queue, [::paydesk::retry_queue::count] retries pending)"
    puts "error codes seen: E-0112 x$failed"
    puts "exception report: 0 unresolved exceptions"
    puts "Reconciliation complete: [llength $payments] payments, $settled settled,\\
          ledger total [::paydesk::ledger::total]"
}}

puts "paydesk nightly reconciliation (failed payments, retry queue, error codes)"
set payments {{}}
for {{set k 1}} {{$k <= {count}}} {{incr k}} {{
    lappend payments [dict create id [format PAY-%05d $k] \\
                          amount [expr {{$k == {broken_at} ? "" : 37 * $k}}] \\
                          status [expr {{$k % 9 == 4 ? "failed" : "settled"}}]]
}}
reconcile_run $payments
"""


@case(
    "u120_script_reconcile_clean",
    "tclsh script",
    clean=True,
    group=GROUP,
    decisive=["Reconciliation complete: 600 payments, 533 settled", "failed payments: 67 (all queued"],
)
def _script_clean(root: Path) -> bytes:
    _project(root)
    write(root, {"reconcile.tcl": _reconcile(600)})
    return _settle(sh("tclsh reconcile.tcl", root), root)


@case(
    "u120_script_errorinfo",
    "tclsh script",
    clean=False,
    group=GROUP,
    decisive=[
        'can\'t use empty string as operand of "*"',
        '(procedure "::paydesk::fees::apply" line 2)',
        "[exit status 1]",
    ],
)
def _script_errorinfo(root: Path) -> bytes:
    _project(root)
    write(root, {"reconcile.tcl": _reconcile(600, broken_at=431)})
    return _settle(sh("tclsh reconcile.tcl", root), root)


# ---------------------------------------------------------------- expect


def _console(*, stuck_batch: int = 0, confirm_batch: int = 0) -> str:
    """``console.tcl``: the interactive paydesk console (a prompt, a login with a password, commands); settling
    ``stuck_batch`` waits on a lock for ever, settling ``confirm_batch`` asks for a confirmation first."""
    return f"""\
# console.tcl -- the interactive paydesk operator console
lappend auto_path [file join [file dirname [file normalize [info script]]] lib]
package require paydesk 2.4.0
fconfigure stdout -buffering none

set commands 0
set errors 0
puts "paydesk console 2.4.0 (failed payments, retry queue, error codes)"
puts -nonewline "login: "
gets stdin user
puts -nonewline "Password: "
gets stdin password
puts "operator $user signed in"

proc failed_list {{batch}} {{
    for {{set k 0}} {{$k < 25}} {{incr k}} {{
        set id [format PAY-%03d%02d $batch $k]
        if {{$k % 6 == 1}} {{
            puts "  $id failed   [::paydesk::error_codes::error_code 12] card_declined   retries 1/5"
        }} else {{
            puts "  $id settled  amount [expr {{125 * ($k + 1)}}] EUR"
        }}
    }}
}}

while 1 {{
    puts -nonewline "paydesk> "
    if {{[gets stdin line] < 0}} break
    incr commands
    switch -glob -- $line {{
        "list failed *" {{
            failed_list [lindex $line 2]
        }}
        "retry *" {{
            set id [lindex $line 1]
            ::paydesk::retry_queue::add $id 60
            puts "$id queued for retry 2/5 (E-0412 card_declined), [::paydesk::retry_queue::count] in the retry queue"
        }}
        "settle batch *" {{
            set batch [lindex $line 2]
            if {{$batch == {stuck_batch}}} {{
                puts "settling batch $batch: waiting for the ledger lock held by reconcile..."
                after 60000
            }}
            if {{$batch == {confirm_batch}}} {{
                puts -nonewline "batch $batch has 3 disputed payments; settle anyway and write them off? \\[y/N\\] "
                gets stdin answer
                if {{$answer ne "y"}} {{
                    puts "batch $batch left open (3 disputed payments kept in the exceptions inbox)"
                    incr errors
                    continue
                }}
            }}
            ::paydesk::ledger::add B$batch [expr {{2500 * $batch}}]
            puts "batch $batch settled: 25 payments, 4 failed moved to the retry queue, ledger total\\
                  [::paydesk::ledger::total]"
        }}
        "codes" {{
            foreach status {{5 8 12 19}} {{
                puts "  [::paydesk::error_codes::error_code $status]  [lindex {{declined timeout card_declined fraud}}\\
                      [lsearch {{5 8 12 19}} $status]]"
            }}
        }}
        "quit" {{
            puts "bye: $commands commands, $errors errors"
            exit 0
        }}
        default {{
            puts "unknown command: $line"
            incr errors
        }}
    }}
}}
"""


_SESSION = """\
#!/usr/bin/expect -f
# session.exp -- drives the paydesk console through the nightly settlement of 40 batches
set timeout 3
log_user 1
spawn tclsh console.tcl
set unexpected 0

proc prompt {after} {
    global unexpected
    expect {
        "paydesk> " {}
        -re {\\[y/N\\] $} {
            send_user "\\nsession.exp: unexpected prompt after '$after', answering n\\n"
            incr unexpected
            send "n\\r"
            exp_continue
        }
        timeout {
            send_user "\\nsession.exp: timed out after 3s waiting for the paydesk> prompt after '$after'\\n"
            exit 2
        }
        eof {
            send_user "\\nsession.exp: console exited after '$after'\\n"
            exit 3
        }
    }
}

expect "login: "
send "ops-night\\r"
expect "Password: "
send "s3cret\\r"
prompt login
send "codes\\r"
prompt codes
for {set b 1} {$b <= 40} {incr b} {
    send "list failed $b\\r"
    prompt "list failed $b"
    send "retry PAY-[format %03d $b]01\\r"
    prompt "retry PAY-[format %03d $b]01"
    send "settle batch $b\\r"
    prompt "settle batch $b"
}
send "quit\\r"
expect eof
if {$unexpected} {
    send_user "session.exp: session finished with $unexpected unexpected prompt(s)\\n"
    exit 1
}
send_user "session.exp: session complete, 40 batches settled\\n"
"""


def _session(root: Path, **console: int) -> bytes:
    _project(root)
    write(root, {"console.tcl": _console(**console), "session.exp": _SESSION})
    return _settle(sh("expect -f session.exp", root), root)


@case(
    "u120_expect_session_clean",
    "expect",
    clean=True,
    group=GROUP,
    decisive=["bye: 122 commands, 0 errors", "session.exp: session complete, 40 batches settled"],
)
def _expect_clean(root: Path) -> bytes:
    return _session(root)


@case(
    "u120_expect_timeout",
    "expect",
    clean=False,
    group=GROUP,
    decisive=[
        "settling batch 23: waiting for the ledger lock held by reconcile...",
        "session.exp: timed out after 3s waiting for the paydesk> prompt after 'settle batch 23'",
        "[exit status 2]",
    ],
)
def _expect_timeout(root: Path) -> bytes:
    return _session(root, stuck_batch=23)


@case(
    "u120_expect_unexpected_prompt",
    "expect",
    clean=False,
    group=GROUP,
    decisive=[
        "session.exp: unexpected prompt after 'settle batch 17', answering n",
        "batch 17 left open (3 disputed payments kept in the exceptions inbox)",
        "session.exp: session finished with 1 unexpected prompt(s)",
        "[exit status 1]",
    ],
)
def _expect_unexpected(root: Path) -> bytes:
    return _session(root, confirm_batch=17)


# ---------------------------------------------------------------- build


_BUILD = """\
# build.tcl -- builds paydesk: the package index, a load check, the single-file bundle and the proc report
set here [file dirname [file normalize [info script]]]
set lib [file join $here lib paydesk]
set dist [file join $here dist]
file mkdir $dist

puts "== pkg_mkIndex lib/paydesk"
pkg_mkIndex -verbose $lib *.tcl

puts "== load check"
set failed {}
set modules [lsort [lmap f [glob -directory $lib *.tcl] {file rootname [file tail $f]}]]
set modules [lsearch -all -inline -not -exact [lsearch -all -inline -not -exact $modules pkgIndex] paydesk]
foreach m $modules {
    set child [interp create]
    $child eval [list lappend auto_path [file dirname $lib]]
    if {[catch {$child eval [list package require paydesk::$m 2.4.0]} msg]} {
        puts "  LOAD  $m FAILED: $msg"
        lappend failed $m
    } else {
        set procs [$child eval [list info procs ::paydesk::${m}::*]]
        puts "  LOAD  $m ok ([llength $procs] procs)"
    }
    interp delete $child
}

puts "== bundle dist/paydesk-2.4.0.tcl"
set out [open [file join $dist paydesk-2.4.0.tcl] w]
foreach m $modules {
    set f [open [file join $lib $m.tcl]]
    puts $out [read $f]
    close $f
    puts "  CAT   lib/paydesk/$m.tcl"
}
close $out

puts "== proc report"
set total 0
foreach m $modules {
    if {$m in $failed} continue
    set child [interp create]
    $child eval [list lappend auto_path [file dirname $lib]]
    $child eval [list package require paydesk::$m 2.4.0]
    foreach p [lsort [$child eval [list info procs ::paydesk::${m}::*]]] {
        set args [$child eval [list info args $p]]
        puts [format "  %-48s %s" $p $args]
        if {[string match *legacy* $p]} {
            puts "  warning: $p is deprecated since 2.3 and will be removed in 3.0"
        }
        incr total
    }
    interp delete $child
}

if {[llength $failed]} {
    puts "build FAILED: [llength $failed] of [llength $modules] modules did not load: [join $failed {, }]"
    exit 1
}
puts "build complete: paydesk 2.4.0, [llength $modules] modules, $total procs, dist/paydesk-2.4.0.tcl written"
"""


def _legacy(name: str) -> str:
    return f"""
# Deprecated since 2.3: the total the old {name} exporter computed (it counted failed retries twice).
proc ::paydesk::{name}::legacy_total {{}} {{
    total
}}
"""


_BROKEN_CODES = """
namespace eval ::paydesk::error_codes {
    variable descriptions [dict create E-0412 card_declined E-0419 insufficient_funds E-0501]
}
"""


@case(
    "u120_build_clean",
    "tclsh build script (pkg_mkIndex)",
    clean=True,
    group=GROUP,
    decisive=["build complete: paydesk 2.4.0, 36 modules, 300 procs, dist/paydesk-2.4.0.tcl written"],
)
def _build_clean(root: Path) -> bytes:
    _project(root, extras={m: _legacy(m) for m in _MODULES[::3]}, index=False)
    write(root, {"build.tcl": _BUILD})
    return _settle(sh("tclsh build.tcl", root), root)


@case(
    "u120_build_mkindex_error",
    "tclsh build script (pkg_mkIndex)",
    clean=False,
    group=GROUP,
    decisive=[
        "warning: error while sourcing error_codes.tcl:",
        "LOAD  error_codes FAILED: can't find package paydesk::error_codes 2.4.0",
        "build FAILED: 1 of 36 modules did not load: error_codes",
        "[exit status 1]",
    ],
)
def _build_error(root: Path) -> bytes:
    extras = {m: _legacy(m) for m in _MODULES[::3]}
    extras["error_codes"] = _BROKEN_CODES
    _project(root, extras=extras, index=False)
    write(root, {"build.tcl": _BUILD})
    return _settle(sh("tclsh build.tcl", root), root)
