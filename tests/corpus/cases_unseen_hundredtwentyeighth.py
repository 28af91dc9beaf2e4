"""Held-out outputs (group ``unseen-128``): a hundred-and-twenty-eighth batch, GNU make in depth as an agent runs it on
a generated C code base, ``ledgerd``, of about 170 files in nested directories (four groups, ``src/payments``,
``src/errors``, ``src/queues`` and ``src/reports``, each with four leaf directories named after business words such as
``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``, ``refunds``, ``dead_letters`` ...), each leaf
holding eight C files named ``<leaf>_errors.c``, ``<leaf>_failures.c``, ``<leaf>_abort.c`` ..., a TAP-style test and a
recursive Makefile; all offline with Debian's GNU make 4.3 and gcc.

Failing runs: ``make -j4 --output-sync=recurse`` where the four group sub-makes run side by side and one C file of
``src/errors/exceptions`` does not compile (the block of that group in the middle, then ``Waiting for unfinished
jobs``), the same parallel build stopping near the start on ``No rule to make target`` for a generated header of the
refunds leaf while the three other groups finish (a long tail), ``make -k`` that keeps going past a compile error in
``src/queues/dead_letters`` and ends with ``not remade because of errors``, ``make --trace`` whose final link fails on
an undefined reference, ``make -i check`` where one retry-queue test fails and make only says ``Error 1 (ignored)``
and exits 0, and ``make -d`` of one leaf directory whose syntax error comes after over a thousand lines of debug
output. Clean runs full of those business words: ``make -j4 --output-sync=recurse`` of everything with compiler
warnings and a self-test, ``make -n`` (a dry run of every command), ``make --warn-undefined-variables`` with an
undefined variable warned about in every sub-make, and a build with a ``Circular ... dependency dropped`` warning
followed by ``make -q --debug=basic`` in every leaf saying nothing is left to do. The block order of the parallel
runs is kept the same on every run by a small ``build-aux/in-order`` wrapper that lets a group's sub-make finish only
after the group before it. Labels were written with each scenario, before the engine saw the output. Needs GNU make
and gcc (Debian ``make``, ``gcc``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-128"

#: The four groups of the code base and their leaf directories, in build order.
_GROUPS = {
    "payments": ["billing", "failed_payments", "refunds", "chargebacks"],
    "errors": ["error_codes", "exceptions", "rejections", "timeouts"],
    "queues": ["retry_queue", "dead_letters", "webhooks", "abort_signals"],
    "reports": ["ledger", "invoices", "audit", "fraud_alerts"],
}

#: The eight C files of each leaf, by suffix.
_SUFFIXES = ["core", "errors", "retry", "failures", "exceptions", "timeouts", "report", "abort"]

_CODES = ["card_declined", "gateway_timeout", "rate_limited", "insufficient_funds", "fraud_suspected", "expired_card"]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, PIDs and addresses of make's children and
    the linker's temporary object names."""
    return substitute(
        scrub(out, root),
        (r"0x[0-9a-f]{6,16}", "0x5555deadbeef"),
        (r"PID \d+", "PID 4242"),
        (r"pid \d+", "pid 4242"),
        (r"fds: \d+,\d+", "fds: 3,4"),
        (r"/tmp/cc\w{6}\.o", "/tmp/ccXXXXXX.o"),
    )


def _leaves() -> list[tuple[str, str]]:
    return [(g, leaf) for g, leaves in _GROUPS.items() for leaf in leaves]


def _source(leaf: str, suffix: str, n: int) -> str:
    """``<leaf>_<suffix>.c``: a table of error codes and a few functions; the ``timeouts`` and ``abort`` files have an
    unused parameter (a -Wextra warning)."""
    name = f"{leaf}_{suffix}"
    rows = "".join(f'    {{{n * 100 + i}, "{_CODES[i % len(_CODES)]}", {i % 3}}},\n' for i in range(12))
    unused = suffix in ("timeouts", "abort")
    extra = ", int attempt" if unused else ""
    return f"""\
/* {name}.c -- {leaf.replace("_", " ")} {suffix} handling for ledgerd. */
#include <stdio.h>
#include <string.h>
#include "ledger.h"

static const struct ledger_code {name}_table[] = {{
{rows}}};

int {name}_count(void)
{{
    return (int)(sizeof {name}_table / sizeof {name}_table[0]);
}}

const char *{name}_lookup(int code)
{{
    for (int i = 0; i < {name}_count(); i++)
        if ({name}_table[i].code == code)
            return {name}_table[i].name;
    return "unknown_error";
}}

int {name}_retryable(int code{extra})
{{
    for (int i = 0; i < {name}_count(); i++)
        if ({name}_table[i].code == code)
            return {name}_table[i].retries > 0;
    return 0;
}}

int {name}_register(void)
{{
    int failed = 0;
    for (int i = 0; i < {name}_count(); i++)
        failed += ledger_register_code("{leaf}", {name}_table[i].code, {name}_table[i].name);
    return failed;
}}
"""


def _test(leaf: str, n: int, *, broken: bool = False) -> str:
    """``test_<leaf>.c``: 24 TAP checks of the leaf's lookups; ``broken`` makes the retry backoff check fail."""
    checks = []
    for k, suffix in enumerate(_SUFFIXES):
        checks.append(
            f'    ok(strcmp({leaf}_{suffix}_lookup({n * 100 + k}), "{_CODES[k % len(_CODES)]}") == 0, '
            f'"{leaf}_{suffix}: E-{n * 100 + k:04d} maps to {_CODES[k % len(_CODES)]}");'
        )
        checks.append(f'    ok({leaf}_{suffix}_count() == 12, "{leaf}_{suffix}: 12 error codes in the table");')
        checks.append(
            f'    ok(strcmp({leaf}_{suffix}_lookup(99999), "unknown_error") == 0, '
            f'"{leaf}_{suffix}: unknown code reported as unknown_error");'
        )
    want = 240
    got = "backoff(3)" if not broken else "backoff(3) * 2"
    checks.insert(13, f'    ok({got} == {want}, "{leaf}: backoff after timeout is {want}s (got %d)", {got});')
    body = "\n".join(checks)
    decls = "\n".join(f"const char *{leaf}_{s}_lookup(int code); int {leaf}_{s}_count(void);" for s in _SUFFIXES)
    return f"""\
/* test_{leaf}.c -- TAP checks of the {leaf.replace("_", " ")} error tables. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include "ledger.h"

{decls}

static int n_checks, n_failed;

static void ok(int cond, const char *fmt, ...)
{{
    va_list ap;
    va_start(ap, fmt);
    n_checks++;
    if (!cond)
        n_failed++;
    printf("%s %d - ", cond ? "ok" : "not ok", n_checks);
    vprintf(fmt, ap);
    putchar('\\n');
    va_end(ap);
}}

static int backoff(int attempt)
{{
    return 60 << (attempt - 1);
}}

int ledger_register_code(const char *area, int code, const char *name)
{{
    (void)area; (void)code; (void)name;
    return 0;
}}

int main(void)
{{
{body}
    printf("1..%d\\n", n_checks);
    printf("# {leaf}: %d checks, %d failed\\n", n_checks, n_failed);
    return n_failed != 0;
}}
"""


_HEADER = """\
/* ledger.h -- shared declarations of ledgerd. */
#ifndef LEDGER_H
#define LEDGER_H

struct ledger_code {
    int code;
    const char *name;
    int retries;
};

struct exception_entry {
    int code;
    const char *area;
    int attempts;
};

int ledger_register_code(const char *area, int code, const char *name);
int refund_fee_reversal(int amount);

#endif
"""

_CONFIG = """\
# config.mk -- shared settings of every ledgerd Makefile.
CC := gcc
AR := ar
CFLAGS := -std=c11 -O0 -Wall -Wextra -I$(TOP)/include $(EXTRA_CFLAGS)
"""

_LEAF_MK = """\
# src/{group}/{leaf}/Makefile -- the {leaf} library of ledgerd.
TOP := ../../..
include $(TOP)/config.mk

LIB := lib{leaf}.a
SRCS := {srcs}
OBJS := $(SRCS:.c=.o)

.NOTPARALLEL:
.PHONY: all check clean

all: $(LIB)

$(LIB): $(OBJS)
\t$(AR) rcs $@ $^

%.o: %.c $(TOP)/include/ledger.h
\t$(CC) $(CFLAGS) -c -o $@ $<
{extra}
test_{leaf}: test_{leaf}.c $(LIB)
\t$(CC) $(CFLAGS) -o $@ $^

check: test_{leaf}
\t./test_{leaf}

clean:
\trm -f $(OBJS) $(LIB) test_{leaf}
"""

_GROUP_MK = """\
# src/{group}/Makefile -- the {group} group of ledgerd.
SUBDIRS := {leaves}
GOAL ?= all

.NOTPARALLEL:
.PHONY: all $(SUBDIRS)

all: $(SUBDIRS)

$(SUBDIRS):
\t$(MAKE) -C $@ $(GOAL)
"""

_TOP_MK = """\
# Makefile -- ledgerd: payments, errors, queues and reports.
TOP := .
include config.mk

GROUPS := src/payments src/errors src/queues src/reports
LIBS := {libs}
GOAL ?= all
$(shell rm -rf .inorder && mkdir .inorder)

.PHONY: all check selftest clean $(GROUPS)

all: ledgerd

$(GROUPS):
\t+@build-aux/in-order $@ $(MAKE) -C $@ GOAL=$(GOAL)

ledgerd: $(GROUPS)
\t$(CC) $(CFLAGS) -o $@ main.c $(LIBS)
\t@echo "  LINK    ledgerd ($(words $(LIBS)) libraries)"

selftest: ledgerd
\t./ledgerd --selftest

check: GOAL = check
check: $(GROUPS)

clean:
\tfor g in $(GROUPS); do $(MAKE) -C $$g GOAL=clean; done
\trm -f ledgerd
"""

#: Lets the sub-make of a group finish only after the group before it, so that the blocks of ``-O`` come in order.
_IN_ORDER = """\
#!/bin/sh
# build-aux/in-order GROUP CMD... -- run CMD, then wait for the group before GROUP to finish.
group=$1; shift
"$@"; rc=$?
prev=""
for g in src/payments src/errors src/queues src/reports; do
    [ "$g" = "$group" ] && break
    prev=$g
done
if [ -n "$prev" ]; then
    while [ ! -e ".inorder/$(basename "$prev")" ]; do sleep 0.05; done
fi
touch ".inorder/$(basename "$group")"
exit $rc
"""


def _main(*, undefined: bool = False) -> str:
    decls, calls = [], []
    for g, leaf in _leaves():
        for suffix in _SUFFIXES:
            decls.append(f"int {leaf}_{suffix}_register(void); int {leaf}_{suffix}_count(void);")
            calls.append(
                f"    failed += {leaf}_{suffix}_register(); codes += {leaf}_{suffix}_count();\n"
                f'    printf("selftest: {g}/{leaf}_{suffix}: %d error codes registered, retry table loaded\\n", '
                f"{leaf}_{suffix}_count());"
            )
    reversal = '    printf("refund fee reversal of 1200: %d\\n", refund_fee_reversal(1200));\n' if undefined else ""
    return f"""\
/* main.c -- ledgerd: registers every error code table and runs the self-test. */
#include <stdio.h>
#include <string.h>
#include "ledger.h"

{chr(10).join(decls)}

int ledger_register_code(const char *area, int code, const char *name)
{{
    (void)area; (void)code;
    return name == NULL;
}}

int main(int argc, char **argv)
{{
    int failed = 0, codes = 0;
    if (argc < 2 || strcmp(argv[1], "--selftest") != 0) {{
        puts("usage: ledgerd --selftest");
        return 2;
    }}
{chr(10).join(calls)}
{reversal}    printf("ledgerd selftest passed: {len(_leaves())} modules, %d error codes registered, %d failed\\n",
           codes, failed);
    return failed != 0;
}}
"""


def _project(
    root: Path,
    *,
    src_edits: dict[str, str] | None = None,
    test_broken: str = "",
    leaf_extra: dict[str, str] | None = None,
    undefined: bool = False,
) -> None:
    """The whole code base in ``root``; ``src_edits`` appends code to some C files (by file name), ``test_broken``
    breaks the backoff check of one leaf, ``leaf_extra`` adds rules to a leaf Makefile, ``undefined`` makes main.c
    call a function no library defines."""
    src_edits = src_edits or {}
    leaf_extra = leaf_extra or {}
    files: dict[str, str] = {
        "include/ledger.h": _HEADER,
        "config.mk": _CONFIG,
        "main.c": _main(undefined=undefined),
        "build-aux/in-order": _IN_ORDER,
    }
    libs = " ".join(f"src/{g}/{leaf}/lib{leaf}.a" for g, leaf in _leaves())
    files["Makefile"] = _TOP_MK.format(libs=libs)
    for g, leaves in _GROUPS.items():
        files[f"src/{g}/Makefile"] = _GROUP_MK.format(group=g, leaves=" ".join(leaves))
    for n, (g, leaf) in enumerate(_leaves(), start=1):
        srcs = [f"{leaf}_{s}.c" for s in _SUFFIXES]
        files[f"src/{g}/{leaf}/Makefile"] = _LEAF_MK.format(
            group=g, leaf=leaf, srcs=" ".join(srcs), extra=leaf_extra.get(leaf, "")
        )
        for suffix in _SUFFIXES:
            fname = f"{leaf}_{suffix}.c"
            files[f"src/{g}/{leaf}/{fname}"] = _source(leaf, suffix, n) + src_edits.get(fname, "")
        files[f"src/{g}/{leaf}/test_{leaf}.c"] = _test(leaf, n, broken=leaf == test_broken)
    write(root, files)
    (root / "build-aux/in-order").chmod(0o755)


# ---------------------------------------------------------------- make -j4 --output-sync=recurse

_EXCEPTIONS_BROKEN = """
int exceptions_report_retry_total(const struct exception_entry *e)
{
    return e->attempts + e->retry_count;
}
"""


@case(
    "u128_j4_recursive_compile_error",
    "make -j4 --output-sync=recurse (gcc)",
    clean=False,
    group=GROUP,
    decisive=[
        "exceptions_report.c:52:27: error: ‘const struct exception_entry’ has no member named ‘retry_count’",
        "make[2]: *** [Makefile:18: exceptions_report.o] Error 1",
        "make: *** [Makefile:15: src/errors] Error 2",
        "[exit status 2]",
    ],
)
def _j4_recursive_compile_error(root: Path) -> bytes:
    _project(root, src_edits={"exceptions_report.c": _EXCEPTIONS_BROKEN})
    return _settle(sh("make -j4 --output-sync=recurse selftest", root), root)


@case(
    "u128_j4_missing_rule_long_tail",
    "make -j4 --output-sync=recurse (gcc)",
    clean=False,
    group=GROUP,
    decisive=[
        "make[2]: *** No rule to make target 'generated/refund_reasons.h', needed by 'refunds_core.o'.  Stop.",
        "make: *** [Makefile:15: src/payments] Error 2",
        "[exit status 2]",
    ],
)
def _j4_missing_rule(root: Path) -> bytes:
    _project(root, leaf_extra={"refunds": "refunds_core.o: generated/refund_reasons.h\n"})
    return _settle(sh("make -j4 --output-sync=recurse selftest", root), root)


@case(
    "u128_j4_clean_selftest",
    "make -j4 --output-sync=recurse (gcc)",
    clean=True,
    group=GROUP,
    decisive=[
        "  LINK    ledgerd (16 libraries)",
        "ledgerd selftest passed: 16 modules, 1536 error codes registered, 0 failed",
    ],
)
def _j4_clean(root: Path) -> bytes:
    _project(root)
    return _settle(sh("make -j4 --output-sync=recurse selftest", root), root)


# ---------------------------------------------------------------- make -k, --trace, -i, -d

_DEAD_LETTERS_BROKEN = """
int dead_letters_abort_redrive(int attempt)
{
    return dead_letters_redrive_limit - attempt;
}
"""


@case(
    "u128_keep_going_one_failure",
    "make -k (gcc)",
    clean=False,
    group=GROUP,
    decisive=[
        "dead_letters_abort.c:52:12: error: ‘dead_letters_redrive_limit’ undeclared (first use in this function)",
        "make[2]: *** [Makefile:18: dead_letters_abort.o] Error 1",
        "make: Target 'selftest' not remade because of errors.",
        "[exit status 2]",
    ],
)
def _keep_going(root: Path) -> bytes:
    _project(root, src_edits={"dead_letters_abort.c": _DEAD_LETTERS_BROKEN})
    return _settle(sh("make -k selftest", root), root)


@case(
    "u128_trace_link_undefined_reference",
    "make --trace (gcc, ld)",
    clean=False,
    group=GROUP,
    decisive=[
        "undefined reference to `refund_fee_reversal'",
        "collect2: error: ld returned 1 exit status",
        "make: *** [Makefile:18: ledgerd] Error 1",
        "[exit status 2]",
    ],
)
def _trace_link(root: Path) -> bytes:
    _project(root, undefined=True)
    return _settle(sh("make --trace selftest", root), root)


@case(
    "u128_ignore_errors_check_exit0",
    "make -i check (TAP tests)",
    clean=False,
    group=GROUP,
    decisive=[
        "not ok 14 - retry_queue: backoff after timeout is 240s (got 480)",
        "# retry_queue: 25 checks, 1 failed",
        "make[2]: [Makefile:24: check] Error 1 (ignored)",
    ],
)
def _ignore_errors(root: Path) -> bytes:
    _project(root, test_broken="retry_queue")
    return _settle(sh("make -i check", root), root)


_RETRY_TIMEOUTS_BROKEN = """
int retry_queue_timeouts_deadline(int attempt)
{
    int deadline = 30 * attempt
    return deadline;
}
"""


@case(
    "u128_debug_one_leaf_syntax_error",
    "make -d (gcc)",
    clean=False,
    group=GROUP,
    decisive=[
        "retry_queue_timeouts.c:53:5: error: expected ‘,’ or ‘;’ before ‘return’",
        "make: *** [Makefile:18: retry_queue_timeouts.o] Error 1",
        "[exit status 2]",
    ],
)
def _debug_leaf(root: Path) -> bytes:
    _project(root, src_edits={"retry_queue_timeouts.c": _RETRY_TIMEOUTS_BROKEN})
    return _settle(sh("make -d -C src/queues/retry_queue all", root), root)


# ---------------------------------------------------------------- clean: -n, --warn-undefined-variables, -q


@case(
    "u128_dry_run_clean",
    "make -n",
    clean=True,
    group=GROUP,
    decisive=[
        "gcc -std=c11 -O0 -Wall -Wextra -I./include  -o ledgerd main.c src/payments/billing/libbilling.a",
        "./ledgerd --selftest",
    ],
)
def _dry_run(root: Path) -> bytes:
    _project(root)
    return _settle(sh("make -n selftest", root), root)


@case(
    "u128_warn_undefined_variable_clean",
    "make --warn-undefined-variables (gcc)",
    clean=True,
    group=GROUP,
    decisive=[
        "../../../config.mk:4: warning: undefined variable 'EXTRA_CFLAGS'",
        "ledgerd selftest passed: 16 modules, 1536 error codes registered, 0 failed",
    ],
)
def _warn_undefined(root: Path) -> bytes:
    _project(root)
    return _settle(sh("make --warn-undefined-variables selftest", root), root)


@case(
    "u128_circular_dropped_then_question_clean",
    "make, make -q --debug=basic",
    clean=True,
    group=GROUP,
    decisive=[
        "make[2]: Circular invoices_report.o <- invoices_core.o dependency dropped.",
        "ledgerd selftest passed: 16 modules, 1536 error codes registered, 0 failed",
        "Successfully remade target file 'all'.",
    ],
)
def _circular_question(root: Path) -> bytes:
    _project(root, leaf_extra={"invoices": "invoices_report.o: invoices_core.o\ninvoices_core.o: invoices_report.o\n"})
    loop = 'for d in src/*/*/; do make -q --debug=basic -C "$d" all || echo "$d: needs a rebuild"; done'
    return _settle(sh(f"make selftest && {loop}", root), root)
