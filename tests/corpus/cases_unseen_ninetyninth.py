"""Held-out outputs (group ``unseen-99``): a ninety-ninth batch, GNU Autotools builds as an agent runs them on
generated C projects, offline: ``autoreconf -fi``, ``./configure`` runs of a few hundred ``checking ...`` lines,
``make`` with libtool's long compile lines, ``make check`` with Automake's parallel test harness (plain and TAP) and
``make distcheck``. The libraries, programs and tests are named after business words (``failed_payments``,
``error_codes``, ``retry_queue``, ``exception_report``), so that clean runs are full of them.

Failing runs: ``./configure`` where ``libretryq`` is missing (the error is the last line), ``./configure || cat
config.log`` where the ``ledger/journal.h`` header is missing (the error sits between the configure output and a long
config.log full of expected conftest failures), ``make -k V=1`` of 24 libtool modules where ``exception_report.c`` uses
a member its struct lacks (in the middle, followed by the other directories' knock-on errors), ``autoreconf -fi &&
./configure && make`` whose daemon does not link (``retry_queue_drain`` declared, never defined), ``make check V=1``
with one failing test among 24, ``make check; cat tests/test-suite.log`` with the TAP driver where one assertion of
``test_exception_report`` fails, and ``make distcheck`` where a private header is left out of the tarball. Clean runs:
``autoreconf -fiv -Wall`` with obsolete-macro warnings followed by ``./configure``, ``make V=1`` of the
``failed-payments`` library with ``-Wextra`` warnings, ``make check`` whose 24 tests all pass (one expected failure,
``XFAIL``), and ``make distcheck`` of the ``error-codes`` package. Labels were written with each scenario, before the
engine saw the output. Needs autoconf, automake, libtool, pkg-config, gcc and make (Debian ``autoconf``, ``automake``,
``libtool``, ``pkgconf``, ``gcc``, ``make``; all already on the machine).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-99"

MODULES = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "refunds_ledger", "billing_cycle",
    "invoice_render", "tax_rates", "coupons_apply", "shipping_quotes", "audit_trail", "webhooks_dispatch",
    "session_store", "auth_tokens", "orders_sync", "cart_totals", "pricing_rules", "catalog_index", "search_terms",
    "export_batches", "error_budget", "retry_backoff", "failed_webhooks", "exception_mailer",
]  # fmt: skip

HEADERS = [
    "stdio.h", "stdlib.h", "string.h", "strings.h", "stdint.h", "inttypes.h", "unistd.h", "fcntl.h", "errno.h",
    "limits.h", "locale.h", "signal.h", "syslog.h", "time.h", "sys/time.h", "sys/types.h", "sys/stat.h",
    "sys/socket.h", "sys/select.h", "sys/wait.h", "sys/mman.h", "sys/resource.h", "sys/un.h", "netinet/in.h",
    "netinet/tcp.h", "arpa/inet.h", "netdb.h", "poll.h", "pthread.h", "dlfcn.h", "termios.h", "pwd.h", "grp.h",
    "langinfo.h", "iconv.h", "wchar.h", "sys/epoll.h", "sys/inotify.h", "sys/eventfd.h", "sys/timerfd.h",
    "sys/prctl.h", "execinfo.h", "malloc.h", "sys/queue.h", "sys/cdefs.h", "ifaddrs.h", "sys/statvfs.h",
]  # fmt: skip

FUNCS = [
    "strdup", "strndup", "strlcpy", "strlcat", "strtoll", "strtoull", "strcasecmp", "strsep", "strerror_r",
    "memmem", "memrchr", "asprintf", "vasprintf", "getline", "getdelim", "clock_gettime", "gettimeofday",
    "nanosleep", "usleep", "localtime_r", "gmtime_r", "timegm", "setenv", "unsetenv", "mkstemp", "mkdtemp",
    "realpath", "fsync", "fdatasync", "posix_fallocate", "pread", "pwrite", "mmap", "munmap", "madvise",
    "getaddrinfo", "freeaddrinfo", "gai_strerror", "inet_ntop", "inet_pton", "socketpair", "accept4", "pipe2",
    "epoll_create1", "eventfd", "timerfd_create", "inotify_init1", "sigaction", "sigprocmask", "backtrace",
    "getrlimit", "setrlimit", "prctl", "arc4random", "getrandom", "explicit_bzero", "reallocarray",
    "pthread_setname_np", "syslog", "closefrom",
]  # fmt: skip

SIZES = ["int", "long", "long long", "size_t", "off_t", "time_t", "void *", "pid_t"]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the host, the kernel, dates."""
    return substitute(
        scrub(out, root),
        (r"^hostname = .*$", "hostname = buildhost"),
        (r"^uname -([rsvm]) = .*$", r"uname -\1 = x"),
        (r"^/usr/bin/hostinfo += .*$", "/usr/bin/hostinfo      = unknown"),
        (r"^configure:\d+: (.*)$", r"configure:1000: \1"),
        (r"conftest\.\w+\.\w+", "conftest.abc.c"),
        (r"\b\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\b", "2026-01-01 00:00:00"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"/tmp/cc[A-Za-z0-9]{6}\.o", "/tmp/ccabcdef.o"),
    )


def _configure_ac(
    package: str, first: str, *, extra: str = "", obsolete: bool = False, tap: bool = False, lt: str = "LT_INIT"
) -> str:
    if obsolete:
        lt = "AC_PROG_LIBTOOL\nAC_HEADER_STDC\nAC_HEADER_TIME\nAC_TYPE_SIGNAL"
    lines = [
        "AC_PREREQ([2.69])",
        f"AC_INIT([{package}], [1.4.2], [billing-team@example.invalid])",
        f"AC_CONFIG_SRCDIR([lib/{first}.c])",
        "AC_CONFIG_AUX_DIR([build-aux])",
        "AC_CONFIG_MACRO_DIR([m4])",
        "AC_CONFIG_HEADERS([config.h])",
        "AM_INIT_AUTOMAKE([-Wall foreign subdir-objects])",
        "AM_PROG_AR",
        "AC_PROG_CC",
        lt,
        "PKG_PROG_PKG_CONFIG",
        f"AC_CHECK_HEADERS([{' '.join(HEADERS)}])",
        f"AC_CHECK_FUNCS([{' '.join(FUNCS)}])",
        *(f"AC_CHECK_SIZEOF([{t}])" for t in SIZES),
        "AC_CHECK_LIB([m], [cos])",
        "AC_CHECK_LIB([pthread], [pthread_create])",
        "AC_CHECK_LIB([dl], [dlopen])",
        "AC_C_BIGENDIAN",
        "AC_C_INLINE",
        "AC_TYPE_SIZE_T",
        "AC_TYPE_SSIZE_T",
        "AC_TYPE_UINT64_T",
        extra,
    ]
    if tap:
        lines.append("AC_REQUIRE_AUX_FILE([tap-driver.sh])")
        lines.append("AC_PROG_AWK")
    lines += ["AC_CONFIG_FILES([Makefile lib/Makefile src/Makefile tests/Makefile])", "AC_OUTPUT", ""]
    return "\n".join(lines)


def _module_c(mod: str, *, broken: bool = False, unused: bool = False) -> str:
    upper = mod.upper()
    body = f"    return st.retry_count + st.failed * 3 + (int) strlen(id) % {len(mod)};\n"
    if broken:
        body = (
            "    st.retry_budget -= attempts;\n"
            f"    return st.retry_count + st.retry_budget + (int) strlen(id) % {len(mod)};\n"
        )
    extra = ""
    if unused:
        extra = (
            f"\nint {mod}_error_hook(int code, const char *reason)\n{{\n    int failed_retries;\n    return code;\n}}\n"
        )
    return (
        "#ifdef HAVE_CONFIG_H\n#include <config.h>\n#endif\n"
        f'#include <stdio.h>\n#include <string.h>\n#include "{mod}.h"\n\n'
        f"struct {mod}_state {{\n    int retry_count;\n    int failed;\n    const char *last_error;\n}};\n\n"
        f"int {mod}_process(const char *id, int attempts)\n{{\n"
        f"    struct {mod}_state st = {{ attempts, attempts > {upper}_RETRY_LIMIT, NULL }};\n"
        f'    if (st.failed)\n        st.last_error = "{mod}: retry limit reached";\n{body}}}\n\n'
        f'const char *{mod}_describe(void)\n{{\n    return "{mod} " PACKAGE_VERSION;\n}}\n{extra}'
    )


def _module_h(mod: str, *, undefined: bool = False) -> str:
    upper = mod.upper()
    extra = f"int {mod}_drain(int max_items);\n" if undefined else ""
    return (
        f"#ifndef {upper}_H\n#define {upper}_H\n#define {upper}_RETRY_LIMIT {len(mod) % 7 + 2}\n"
        f"int {mod}_process(const char *id, int attempts);\nconst char *{mod}_describe(void);\n{extra}#endif\n"
    )


def _test_c(mod: str, *, fail: bool = False, tap: bool = False, tap_fail: int = 0) -> str:
    upper = mod.upper()
    if tap:
        cases = []
        for k in range(1, 13):
            expect = f"{k} + 0" if k != tap_fail else f"{k} + 1"
            cases.append(
                f'    got = {mod}_process("pay-{k:04d}", {k}) >= 0 ? {k} : -1;\n'
                f"    if (got == {expect})\n"
                f'        printf("ok {k} - {mod} handles attempt {k} (failed_count, retry_after)\\n");\n'
                f"    else {{\n"
                f'        printf("not ok {k} - {mod} severity of retry exhausted at attempt {k}\\n");\n'
                f'        printf("#   Failed test at tests/test_{mod}.c line {k * 7 + 20}\\n");\n'
                f'        printf("#          got: %d\\n#     expected: %d\\n", got, {expect});\n'
                f"    }}\n"
            )
        return (
            f'#include <stdio.h>\n#include "{mod}.h"\n\nint main(void)\n{{\n    int got;\n'
            f'    printf("1..12\\n");\n{"".join(cases)}    return 0;\n}}\n'
        )
    check = '    if (r < 0 || r > 1000) {\n        fprintf(stderr, "unexpected result %d\\n", r);\n'
    check += "        return 1;\n    }\n"
    if fail:
        check = (
            f"    if (r != {upper}_RETRY_LIMIT * 2) {{\n"
            f'        fprintf(stderr, "test_{mod}.c:21: {mod}: expected %d retries before dead-letter, got %d\\n",\n'
            f"                {upper}_RETRY_LIMIT * 2, r);\n        return 1;\n    }}\n"
        )
    return (
        f'#include <stdio.h>\n#include "{mod}.h"\n\nint main(void)\n{{\n    int i, r = 0;\n'
        f'    for (i = 0; i < 40; i++)\n        r = {mod}_process("invoice-0042", i % 5);\n'
        f'    printf("%s: failed=%d error=%d retry=%d\\n", {mod}_describe(), 0, 0, r);\n'
        f"{check}    return 0;\n}}\n"
    )


def _project(
    root: Path,
    package: str,
    mods: list[str],
    *,
    lib: str = "libfailedpay",
    extra: str = "",
    obsolete: bool = False,
    broken: str = "",
    undefined: str = "",
    failing: tuple[str, ...] = (),
    xfail: tuple[str, ...] = (),
    tap: str = "",
    hidden: str = "",
    unused: tuple[str, ...] = (),
    cflags: str = "-Wall -Wextra -O2",
    lt: str = "LT_INIT",
) -> None:
    """An Autotools project: a libtool library of ``mods``, a daemon that uses each, a test per module."""
    files: dict[str, str] = {}
    ltname = lib.replace("-", "_")
    for mod in mods:
        src = _module_c(mod, broken=mod == broken, unused=mod in unused)
        if mod == hidden:
            src = src.replace(f'#include "{mod}.h"', f'#include "{mod}.h"\n#include "{mod}_internal.h"')
            files[f"lib/{mod}_internal.h"] = f"#define {mod.upper()}_INTERNAL 1\n"
        files[f"lib/{mod}.c"] = src
        files[f"lib/{mod}.h"] = _module_h(mod, undefined=mod == undefined)
        files[f"tests/test_{mod}.c"] = _test_c(mod, fail=mod in failing, tap=bool(tap), tap_fail=7 if mod == tap else 0)
    files["configure.ac"] = _configure_ac(package, mods[0], extra=extra, obsolete=obsolete, tap=bool(tap), lt=lt)
    files["Makefile.am"] = "ACLOCAL_AMFLAGS = -I m4\nSUBDIRS = lib src tests\nEXTRA_DIST = README.md\n"
    files["README.md"] = f"# {package}\n\nThe billing platform's {package} library.\n"
    sources = " \\\n\t".join(f"{m}.c" for m in mods)
    headers = " \\\n\t".join(f"{m}.h" for m in mods)
    files["lib/Makefile.am"] = (
        f"lib_LTLIBRARIES = {lib}.la\n{ltname}_la_SOURCES = \\\n\t{sources}\n"
        f"include_HEADERS = \\\n\t{headers}\n"
        f'{ltname}_la_CFLAGS = {cflags} -DBILLING_REGION=\\"eu-west\\" -DDEAD_LETTER_QUEUE=\\"failed_payments\\" '
        "-fvisibility=default\n"
        f"{ltname}_la_LDFLAGS = -version-info 3:1:0 -no-undefined\n"
    )
    calls = "".join(f'    printf("%s -> %d\\n", {m}_describe(), {m}_process("order-7", 2));\n' for m in mods)
    if undefined:
        calls += f"    {undefined}_drain(64);\n"
    includes = "".join(f'#include "{m}.h"\n' for m in mods)
    files["src/paymentsd.c"] = f"#include <stdio.h>\n{includes}\nint main(void)\n{{\n{calls}    return 0;\n}}\n"
    files["src/Makefile.am"] = (
        "bin_PROGRAMS = paymentsd\npaymentsd_SOURCES = paymentsd.c\n"
        f"paymentsd_CPPFLAGS = -I$(top_srcdir)/lib\npaymentsd_CFLAGS = {cflags}\n"
        f"paymentsd_LDADD = ../lib/{lib}.la\n"
    )
    tests = " ".join(f"test_{m}" for m in mods)
    tests_am = (
        f"AM_CPPFLAGS = -I$(top_srcdir)/lib\nAM_CFLAGS = {cflags}\nLDADD = ../lib/{lib}.la\n"
        f"check_PROGRAMS = {tests}\nTESTS = $(check_PROGRAMS)\n"
    )
    if xfail:
        tests_am += f"XFAIL_TESTS = {' '.join(f'test_{m}' for m in xfail)}\n"
    if tap:
        tests_am += "LOG_DRIVER = env AM_TAP_AWK='$(AWK)' $(SHELL) $(top_srcdir)/build-aux/tap-driver.sh\n"
    files["tests/Makefile.am"] = tests_am
    write(root, files)
    (root / "m4").mkdir(exist_ok=True)
    if tap:
        (root / "build-aux").mkdir(exist_ok=True)
        sh("cp /usr/share/automake-1.16/tap-driver.sh build-aux/", root)


def _prepared(root: Path) -> None:
    """autoreconf and configure, quietly: the steps before the one the scenario shows."""
    sh("autoreconf -fi >/dev/null 2>&1 && ./configure >/dev/null 2>&1", root)


# ---------------------------------------------------------------- configure


@case(
    "u99_configure_missing_lib",
    "configure",
    clean=False,
    group=GROUP,
    decisive=["checking for retryq_open in -lretryq... no", "configure: error: libretryq (retry queue client) is"],
)
def _configure_missing_lib(root: Path) -> bytes:
    extra = (
        "AC_CHECK_LIB([retryq], [retryq_open], [],\n"
        "  [AC_MSG_ERROR([libretryq (retry queue client) is required; install libretryq-dev or pass "
        "--with-retryq=DIR])])\n"
        "AC_CHECK_DECLS([strerror_r, program_invocation_short_name, environ])"
    )
    _project(root, "failed-payments", MODULES[:8], extra=extra)
    sh("autoreconf -fi >/dev/null 2>&1", root)
    return _settle(sh("./configure --prefix=/opt/billing --enable-dead-letter", root), root)


@case(
    "u99_configure_missing_header_log",
    "configure",
    clean=False,
    group=GROUP,
    decisive=["checking for ledger/journal.h... no", "configure: error: ledger/journal.h not found: the"],
)
def _configure_missing_header(root: Path) -> bytes:
    extra = (
        "AC_CHECK_HEADERS([ledger/journal.h], [],\n"
        "  [AC_MSG_ERROR([ledger/journal.h not found: the refunds ledger needs libledger-dev >= 2.1])])"
    )
    _project(root, "refunds-ledger", MODULES[4:14], lib="librefunds", extra=extra)
    sh("autoreconf -fi >/dev/null 2>&1", root)
    out = sh("./configure --prefix=/usr/local || cat config.log", root)
    return _settle(out, root)


# ---------------------------------------------------------------- autoreconf + configure, clean


@case(
    "u99_autoreconf_obsolete_clean",
    "autoreconf",
    clean=True,
    group=GROUP,
    decisive=["autoreconf: Leaving directory '.'", "config.status: creating config.h"],
)
def _autoreconf_clean(root: Path) -> bytes:
    _project(root, "exception-report", MODULES, lib="libexceptions", obsolete=True)
    return _settle(sh("autoreconf -fiv -Wall && ./configure --prefix=/opt/billing", root), root)


# ---------------------------------------------------------------- make


@case(
    "u99_make_k_compile_error",
    "make",
    clean=False,
    group=GROUP,
    decisive=[
        "exception_report.c:19:7: error: ‘struct exception_report_state’ has no member named ‘retry_budget’",
        "libfailedpay_la-exception_report.lo] Error 1",
        "make: *** [Makefile:",
    ],
)
def _make_compile_error(root: Path) -> bytes:
    mods = MODULES[13:] + MODULES[:13]
    _project(root, "failed-payments", mods, broken="exception_report", unused=("retry_queue", "error_codes"))
    _prepared(root)
    return _settle(sh("make -k V=1", root), root)


@case(
    "u99_make_link_undefined",
    "make",
    clean=False,
    group=GROUP,
    decisive=["undefined reference to `retry_queue_drain'", "collect2: error: ld returned 1 exit status"],
)
def _make_link_error(root: Path) -> bytes:
    _project(root, "retry-queue", MODULES[:16], lib="libretryq", undefined="retry_queue")
    return _settle(sh("autoreconf -fi && ./configure && make", root), root)


@case(
    "u99_make_v1_clean_failed_payments",
    "make",
    clean=True,
    group=GROUP,
    decisive=["-o .libs/libfailedpay.so.3.0.1", "-o .libs/paymentsd paymentsd-paymentsd.o"],
)
def _make_clean(root: Path) -> bytes:
    _project(root, "failed-payments", MODULES, unused=("failed_payments", "retry_backoff", "exception_mailer"))
    _prepared(root)
    return _settle(sh("make V=1", root), root)


# ---------------------------------------------------------------- make check


@case(
    "u99_make_check_one_fail",
    "make check",
    clean=False,
    group=GROUP,
    decisive=["FAIL: test_retry_queue", "# FAIL:  1", "See tests/test-suite.log"],
)
def _make_check_fail(root: Path) -> bytes:
    _project(root, "failed-payments", MODULES, failing=("retry_queue",))
    _prepared(root)
    sh("make >/dev/null 2>&1", root)
    return _settle(sh("make check V=1", root), root)


@case(
    "u99_make_check_clean_xfail",
    "make check",
    clean=True,
    group=GROUP,
    decisive=["# PASS:  23", "# XFAIL: 1"],
)
def _make_check_clean(root: Path) -> bytes:
    _project(root, "error-codes", MODULES, lib="liberrorcodes", xfail=("failed_webhooks",))
    (root / "tests/test_failed_webhooks.c").write_text(
        (root / "tests/test_failed_webhooks.c").read_text().replace("return 0;\n}", "return 1;\n}")
    )
    _prepared(root)
    return _settle(sh("make check", root), root)


@case(
    "u99_make_check_tap_suite_log",
    "make check",
    clean=False,
    group=GROUP,
    decisive=[
        "not ok 7 - exception_report severity of retry exhausted at attempt 7",
        "#   Failed test at tests/test_exception_report.c line 69",
        "See tests/test-suite.log",
    ],
)
def _make_check_tap(root: Path) -> bytes:
    _project(root, "exception-report", MODULES[:14], lib="libexceptions", tap="exception_report")
    _prepared(root)
    sh("make >/dev/null 2>&1", root)
    out = sh("make check; cat tests/test-suite.log", root)
    return _settle(out, root)


# ---------------------------------------------------------------- make distcheck


@case(
    "u99_distcheck_missing_header",
    "make distcheck",
    clean=False,
    group=GROUP,
    decisive=["fatal error: retry_backoff_internal.h: No such file or directory", "make: *** [Makefile:"],
)
def _distcheck_fail(root: Path) -> bytes:
    _project(root, "retry-backoff", [*MODULES[:12], "retry_backoff"], lib="libretrybackoff", hidden="retry_backoff")
    _prepared(root)
    return _settle(sh("make distcheck", root), root)


@case(
    "u99_distcheck_clean_error_codes",
    "make distcheck",
    clean=True,
    group=GROUP,
    decisive=["error-codes-1.4.2 archives ready for distribution:"],
)
def _distcheck_clean(root: Path) -> bytes:
    _project(root, "error-codes", MODULES[:10], lib="liberrorcodes", lt="LT_INIT([disable-static])")
    _prepared(root)
    return _settle(sh("make distcheck", root), root)
