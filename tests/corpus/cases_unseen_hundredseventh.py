"""Held-out outputs (group ``unseen-107``): a hundred-and-seventh batch, build systems other than Make and CMake as an
agent runs them on generated C projects of 60 to 150 files, offline: SCons, Meson with ninja, and plain ninja with a
hand-written ``build.ninja``. Sources, libraries, programs and tests are named after the business words
(``failed_payments.c``, ``error_codes.c``, ``retry_queue.c``, ``exception_report.c``), so clean runs are full of them.

Failing runs: ``scons -k`` of 120 files where ``src/ledger/retry_queue.c`` uses an undeclared identifier in the middle
of the build, ``scons`` whose Configure stage runs 130 checks and then a ``SConscript`` raises a NameError,
``scons --debug=explain`` after a header change where one caller of the changed function no longer compiles,
``meson setup`` whose ``src/webhooks/meson.build`` asks for a missing ``libretry-client`` after 150 compiler checks,
``meson setup`` then ``meson compile -j 1`` stopping at one failing compile, ``ninja -k 0 -j1`` on a hand-written
``build.ninja`` of 150 files with one failing compile in the middle and gcc warnings around it, and ``meson test``
with one failing test followed by ``cat`` of its ``testlog.txt``. Clean runs: ``scons`` of the same 120 files with
warnings, ``scons check`` running twelve test programs, ``meson compile`` with unused-variable warnings, a verbose
``meson test`` of 40 passing tests, and ``ninja -v`` then the built report program. Labels were written with each
scenario, before the engine saw the output. Needs SCons 4.4, Meson 1.0 and ninja 1.11 with gcc (Debian ``scons``,
``meson``, ``ninja-build``, ``gcc``; offline).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-107"

_AREAS = [
    "billing", "payments", "ledger", "retry", "errors", "exceptions",
    "orders", "refunds", "invoice", "webhooks", "audit", "shipping",
]  # fmt: skip

_STEMS = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "dead_letters",
    "backoff_policy", "timeout_budget", "fault_log", "rejected_orders", "chargeback_errors",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, durations, random seeds."""
    return substitute(
        scrub(out, root),
        (r"\d+\.\d+s\b", "0.01s"),
        (r"MALLOC_PERTURB_=\d+", "MALLOC_PERTURB_=100"),
        (r"start time: +\d\d:\d\d:\d\d", "start time:     12:00:00"),
        (r"^(Log of Meson test suite run on) .*$", r"\1 2026-01-01T12:00:00.000000"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"took \d+ ms", "took 1 ms"),
    )


def _c_file(area: str, stem: str, *, warn: bool = False, broken: str = "") -> str:
    fn = f"{area}_{stem}"
    unused = f"    int {stem}_scratch = failed * 3;\n" if warn else ""
    if broken == "undeclared":
        loop = "    int max_attempts = 5;\n    for (int i = 0; i < retries && i < max_attempt; i++) {\n"
    else:
        loop = "    for (int i = 0; i < retries; i++) {\n"
    return (
        f"/* {fn}: part of the payments platform ({area}). */\n#include <stdio.h>\n#include <string.h>\n"
        f'#include "common/error_codes.h"\n#include "{area}/{stem}.h"\n\n'
        f"static const char *const {fn}_messages[] = {{\n"
        f'    "failed payment retried", "error code recorded", "exception report queued",\n}};\n\n'
        f"int {fn}_count(int failed, int retries)\n{{\n    int total = 0;\n{unused}{loop}"
        f"        total += (failed * (i + 1)) % 7;\n    }}\n    return total;\n}}\n\n"
        f"const char *{fn}_describe(int code)\n{{\n"
        f"    return {fn}_messages[(unsigned)code % 3u];\n}}\n\n"
        f"int {fn}_classify(int code)\n{{\n    return error_code_lookup(code, {len(stem)});\n}}\n"
    )


def _h_file(area: str, stem: str) -> str:
    fn = f"{area}_{stem}"
    guard = fn.upper() + "_H"
    return (
        f"#ifndef {guard}\n#define {guard}\n"
        f"int {fn}_count(int failed, int retries);\nconst char *{fn}_describe(int code);\n"
        f"int {fn}_classify(int code);\n#endif\n"
    )


_ERROR_CODES_H = (
    "#ifndef COMMON_ERROR_CODES_H\n#define COMMON_ERROR_CODES_H\nint error_code_lookup(int code, int weight);\n#endif\n"
)
_ERROR_CODES_C = (
    '#include "common/error_codes.h"\n\nint error_code_lookup(int code, int weight)\n{\n'
    "    return (code * 31 + weight) % 503;\n}\n"
)


def _tree(
    root: Path, areas: list[str], stems: list[str], *, warn: set[str] | None = None, broken: str = ""
) -> dict[str, list[str]]:
    """``src/<area>/<stem>.c`` and ``include/<area>/<stem>.h`` for every pair; ``broken`` ("area/stem") does not
    compile, those in ``warn`` have an unused variable. The sources of each area."""
    files = {"include/common/error_codes.h": _ERROR_CODES_H, "src/common/error_codes.c": _ERROR_CODES_C}
    by_area: dict[str, list[str]] = {}
    for area in areas:
        for stem in stems:
            key = f"{area}/{stem}"
            files[f"src/{key}.c"] = _c_file(
                area, stem, warn=key in (warn or set()), broken="undeclared" if key == broken else ""
            )
            files[f"include/{key}.h"] = _h_file(area, stem)
            by_area.setdefault(area, []).append(f"{stem}.c")
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return by_area


def _main_c(areas: list[str], stems: list[str], title: str) -> str:
    incs = "".join(f'#include "{a}/{s}.h"\n' for a in areas for s in stems)
    rows = "".join(
        f'    printf("%-10s %-20s failed=%3d retried=%3d code=%3d %s\\n", "{a}", "{s}", '
        f"{a}_{s}_count({k % 9 + 1}, {k % 5 + 1}), {k % 5 + 1}, {a}_{s}_classify({k}), {a}_{s}_describe({k}));\n"
        for k, (a, s) in enumerate((a, s) for a in areas for s in stems)
    )
    return (
        f"#include <stdio.h>\n{incs}\nint main(void)\n{{\n"
        f'    printf("{title}\\n");\n{rows}'
        f'    printf("report complete: {len(areas) * len(stems)} sources summarised, 0 unreconciled\\n");\n'
        "    return 0;\n}\n"
    )


# ---------------------------------------------------------------- SCons


def _sconstruct(root: Path, areas: list[str], *, configure: str = "") -> None:
    write(
        root,
        {
            "SConstruct": f"""
                import os
                env = Environment(ENV={{"PATH": os.environ["PATH"]}}, CC="gcc",
                                  CCFLAGS=["-Wall", "-O0"], CPPPATH=["#include"])
                {configure}
                libs = []
                for area in {areas!r} + ["common"]:
                    libs += SConscript("src/%s/SConscript" % area, variant_dir="build/" + area,
                                       duplicate=0, exports="env")
                report = env.Program("build/bin/exception_report", ["src/exception_report_main.c"],
                                     LIBS=libs)
                Default(report)
            """,
        },
    )
    for area in [*areas, "common"]:
        write(
            root,
            {
                f"src/{area}/SConscript": f"""
                    Import("env")
                    objs = env.Object(Glob("*.c"))
                    lib = env.StaticLibrary("{area}", objs)
                    Return("lib")
                """
            },
        )


@case(
    "u107_scons_keep_going_error",
    "scons",
    clean=False,
    group=GROUP,
    decisive=[
        "src/ledger/retry_queue.c:15:40: error: 'max_attempt' undeclared",
        "scons: *** [build/ledger/retry_queue.o] Error 1",
        "scons: done building targets (errors occurred during build).",
    ],
)
def _scons_keep_going(root: Path) -> bytes:
    _tree(root, _AREAS, _STEMS, broken="ledger/retry_queue", warn={"audit/fault_log", "orders/dead_letters"})
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS, "exception report")})
    _sconstruct(root, _AREAS)
    return _settle(sh("scons -k", root), root)


@case(
    "u107_scons_clean_build",
    "scons",
    clean=True,
    group=GROUP,
    decisive=["scons: done building targets."],
)
def _scons_clean(root: Path) -> bytes:
    _tree(root, _AREAS, _STEMS, warn={"errors/error_codes", "retry/retry_queue", "exceptions/failed_payments"})
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS, "exception report")})
    _sconstruct(root, _AREAS)
    return _settle(sh("scons", root), root)


_HEADERS = [
    "stdio.h", "stdlib.h", "string.h", "errno.h", "stdint.h", "stddef.h", "limits.h", "time.h", "signal.h",
    "unistd.h", "fcntl.h", "sys/types.h", "sys/stat.h", "sys/socket.h", "netinet/in.h", "arpa/inet.h", "netdb.h",
    "pthread.h", "poll.h", "sys/time.h", "sys/wait.h", "dirent.h", "locale.h", "math.h", "assert.h", "ctype.h",
    "inttypes.h", "stdbool.h", "setjmp.h", "syslog.h", "termios.h", "sys/mman.h", "sys/resource.h", "dlfcn.h",
    "zlib.h", "retry_client.h", "sys/epoll.h", "sys/uio.h", "wchar.h", "float.h",
]  # fmt: skip

_FUNCS = [
    "strtol", "strtoul", "strerror", "strerror_r", "snprintf", "vsnprintf", "memmove", "memset", "strdup",
    "strndup", "getaddrinfo", "freeaddrinfo", "gai_strerror", "clock_gettime", "nanosleep", "gettimeofday",
    "pthread_create", "pthread_join", "poll", "epoll_create1", "pipe2", "accept4", "mmap", "munmap", "getrlimit",
    "setrlimit", "sigaction", "dlopen", "syslog", "localtime_r", "gmtime_r", "strftime", "qsort", "bsearch",
    "arc4random", "getrandom", "explicit_bzero", "reallocarray", "strlcpy", "backtrace",
]  # fmt: skip

_TYPES = ["int", "long", "long long", "size_t", "time_t", "off_t", "void *", "double", "pid_t", "uint64_t"]


@case(
    "u107_scons_sconscript_name_error",
    "scons",
    clean=False,
    group=GROUP,
    decisive=["NameError: name 'retry_objs' is not defined", 'File "/tmp/work/src/exceptions/SConscript", line 4'],
)
def _scons_name_error(root: Path) -> bytes:
    _tree(root, _AREAS, _STEMS[:6])
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS[:6], "exception report")})
    checks = (
        "conf = Configure(env)\n"
        f"for h in {_HEADERS!r}:\n    conf.CheckCHeader(h)\n"
        f"for h in {[f'{a}/{st}.h' for a in _AREAS for st in _STEMS[:6]]!r}:\n    conf.CheckCHeader(h)\n"
        f"for f in {_FUNCS!r}:\n    conf.CheckFunc(f)\n"
        f"for t in {_TYPES!r}:\n    conf.CheckTypeSize(t)\n"
        "conf.CheckLib('m')\nconf.CheckLib('pthread')\nconf.CheckLib('retry_client')\n"
        "env = conf.Finish()\n"
    )
    _sconstruct(root, _AREAS)
    text = (root / "SConstruct").read_text().replace("\n\nlibs = []", "\n" + checks + "\nlibs = []")
    text = text.replace("env = Environment(", 'print("configuring payments platform")\nenv = Environment(', 1)
    (root / "SConstruct").write_text(text)
    write(
        root,
        {
            "src/exceptions/SConscript": """
                Import("env")
                print("exceptions: %d sources" % len(Glob("*.c")))
                objs = env.Object(Glob("*.c"))
                lib = env.StaticLibrary("exceptions", objs + retry_objs)
                Return("lib")
            """
        },
    )
    for area in _AREAS[:5]:
        sc = root / "src" / area / "SConscript"
        sc.write_text(sc.read_text().replace('Import("env")\n', f'Import("env")\nprint("{area}: %d sources" % 6)\n'))
    return _settle(sh("scons", root), root)


@case(
    "u107_scons_explain_header_change",
    "scons",
    clean=False,
    group=GROUP,
    decisive=[
        "src/retry/backoff_policy.c:27:12: error: too many arguments to function 'error_code_retry_after'",
        "scons: *** [build/retry/backoff_policy.o] Error 1",
        "scons: building terminated because of errors.",
    ],
)
def _scons_explain(root: Path) -> bytes:
    _tree(root, _AREAS, _STEMS)
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS, "exception report")})
    _sconstruct(root, _AREAS)
    sh("scons -Q -j2", root)  # the first, clean build: not part of the output
    header = root / "include/common/error_codes.h"
    header.write_text(
        header.read_text().replace(
            "#endif", "#define ERROR_CODE_MAX 503\nint error_code_retry_after(int code);\n#endif"
        )
    )
    impl = root / "src/common/error_codes.c"
    impl.write_text(impl.read_text() + "\nint error_code_retry_after(int code)\n{\n    return (code % 7) * 100;\n}\n")
    caller = root / "src/retry/backoff_policy.c"
    caller.write_text(caller.read_text().replace("error_code_lookup(code, 14)", "error_code_retry_after(code, 14)"))
    return _settle(sh("scons --debug=explain", root), root)


def _test_c(area: str, stem: str, *, fail: bool = False) -> str:
    fn = f"{area}_{stem}"
    verdict = (
        f'    if (backoff != 1600) {{\n        printf("FAIL: {stem} backoff: expected 1600 ms, got %d ms '
        f'(tests/test_{fn}.c:20)\\n", backoff);\n        return 1;\n    }}\n'
        if fail
        else ""
    )
    return (
        f'#include <stdio.h>\n#include "{area}/{stem}.h"\n\nint main(void)\n{{\n'
        f'    printf("running {fn} checks\\n");\n'
        "    for (int i = 1; i <= 24; i++) {\n"
        f'        printf("check %02d: {fn}_count(%d, 3) = %d; failed payments retried, error code %d, %s\\n",\n'
        f"               i, i, {fn}_count(i, 3), {fn}_classify(i), {fn}_describe(i));\n"
        "    }\n"
        f"    int backoff = 800 * ({fn}_count(2, 1) > 0 ? 1 : 2);\n"
        f"{verdict}"
        f'    printf("{fn}: 24 checks passed, 0 errors, 0 exceptions\\n");\n    return 0;\n}}\n'
    )


@case(
    "u107_scons_check_clean",
    "scons",
    clean=True,
    group=GROUP,
    decisive=["check: 12 test programs passed", "scons: done building targets."],
)
def _scons_check(root: Path) -> bytes:
    areas = ["errors", "retry", "exceptions", "refunds"]
    stems = _STEMS[:5]
    _tree(root, areas, stems)
    tests = [(a, s) for a in areas[:3] for s in stems[:4]]
    write(root, {f"tests/test_{a}_{s}.c": _test_c(a, s) for a, s in tests})
    write(root, {"src/exception_report_main.c": _main_c(areas, stems, "exception report")})
    _sconstruct(root, areas)
    lines = "".join(
        f'runs.append(env.Command("build/tests/test_{a}_{s}.passed", env.Program("build/tests/test_{a}_{s}", '
        f'["tests/test_{a}_{s}.c"], LIBS=libs), "$SOURCE && touch $TARGET"))\n'
        for a, s in tests
    )
    extra = (
        f"runs = []\n{lines}"
        'Alias("check", env.Command("build/tests/all.passed", runs, '
        '"@echo check: %d test programs passed && touch $TARGET" % len(runs)))\n'
    )
    (root / "SConstruct").write_text((root / "SConstruct").read_text() + extra)
    return _settle(sh("scons check", root), root)


# ---------------------------------------------------------------- Meson


def _meson_project(
    root: Path, areas: list[str], stems: list[str], *, tests: list[tuple[str, str]], checks: bool
) -> None:
    subdirs = "".join(f"subdir('src/{a}')\n" for a in areas)
    check_lines = ""
    if checks:
        check_lines = "".join(f"cc.has_header('{h}')\n" for h in _HEADERS)
        check_lines += "".join(f"cc.has_function('{f}')\n" for f in _FUNCS)
        check_lines += "".join(f"cc.sizeof('{t}')\n" for t in _TYPES)
        check_lines += "".join(f"cc.has_argument('-W{w}')\n" for w in _WARNINGS)
    test_lines = "".join(
        f"test('{a}_{s}', executable('test_{a}_{s}', 'tests/test_{a}_{s}.c', include_directories: inc, "
        f"link_with: libs))\n"
        for a, s in tests
    )
    write(
        root,
        {
            "meson.build": (
                "project('payments_platform', 'c', version: '2.4.0', default_options: ['warning_level=1'])\n"
                "cc = meson.get_compiler('c')\ninc = include_directories('include')\n"
                f"{check_lines}"
                "m_dep = cc.find_library('m', required: false)\nthreads_dep = dependency('threads')\n"
                "common = static_library('common', 'src/common/error_codes.c', include_directories: inc)\n"
                f"libs = [common]\n{subdirs}"
                "executable('exception_report', 'src/exception_report_main.c', include_directories: inc,\n"
                "  link_with: libs)\n"
                f"{test_lines}"
            ),
        },
    )
    for a in areas:
        srcs = ", ".join(f"'{s}.c'" for s in stems)
        sanity = "".join(f"cc.has_header('{a}/{s}.h', include_directories: inc)\n" for s in stems) if checks else ""
        write(
            root,
            {
                f"src/{a}/meson.build": (
                    f"lib_{a} = static_library('{a}', {srcs}, include_directories: inc)\nlibs += lib_{a}\n" + sanity
                )
            },
        )


_WARNINGS = [
    "all", "extra", "shadow", "format=2", "null-dereference", "double-promotion", "cast-align", "vla",
    "strict-prototypes", "missing-prototypes", "undef", "pointer-arith", "implicit-fallthrough", "conversion",
]  # fmt: skip


@case(
    "u107_meson_setup_missing_dependency",
    "meson",
    clean=False,
    group=GROUP,
    decisive=[
        "Run-time dependency libretry-client found: NO",
        'src/webhooks/meson.build:1:0: ERROR: Dependency "libretry-client" not found',
    ],
)
def _meson_missing(root: Path) -> bytes:
    _tree(root, _AREAS, _STEMS[:5])
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS[:5], "exception report")})
    _meson_project(root, _AREAS, _STEMS[:5], tests=[], checks=True)
    hook = root / "src/webhooks/meson.build"
    hook.write_text("retry_client = dependency('libretry-client', version: '>=2.1')\n" + hook.read_text())
    return _settle(sh("meson setup build", root), root)


@case(
    "u107_meson_compile_error",
    "meson",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED: src/exceptions/libexceptions.a.p/exception_report.c.o",
        "../src/exceptions/exception_report.c:15:40: error: ‘max_attempt’ undeclared",
        "ninja: build stopped: subcommand failed.",
    ],
)
def _meson_compile_error(root: Path) -> bytes:
    _tree(root, _AREAS, _STEMS, broken="exceptions/exception_report")
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS, "exception report")})
    _meson_project(root, _AREAS, _STEMS, tests=[], checks=False)
    return _settle(sh("meson setup build && meson compile -C build -j 1", root), root)


@case(
    "u107_meson_compile_clean_warnings",
    "meson",
    clean=True,
    group=GROUP,
    decisive=["Linking target exception_report"],
)
def _meson_compile_clean(root: Path) -> bytes:
    warn = {"errors/failed_payments", "retry/retry_queue", "exceptions/exception_report", "refunds/error_codes"}
    _tree(root, _AREAS, _STEMS, warn=warn)
    write(root, {"src/exception_report_main.c": _main_c(["billing"], _STEMS, "exception report")})
    _meson_project(root, _AREAS, _STEMS, tests=[], checks=False)
    return _settle(sh("meson setup build && meson compile -C build -j 1", root), root)


def _meson_tests(root: Path, fail: str = "") -> None:
    areas = ["errors", "retry", "exceptions", "payments"]
    _tree(root, areas, _STEMS)
    tests = [(a, s) for a in areas for s in _STEMS]
    write(root, {f"tests/test_{a}_{s}.c": _test_c(a, s, fail=f"{a}/{s}" == fail) for a, s in tests})
    write(root, {"src/exception_report_main.c": _main_c(areas, _STEMS, "exception report")})
    _meson_project(root, areas, _STEMS, tests=tests, checks=False)
    sh("meson setup build && meson compile -C build -j 2", root)  # the build: not part of the output


@case(
    "u107_meson_test_failure_testlog",
    "meson",
    clean=False,
    group=GROUP,
    decisive=["FAIL: retry_queue backoff: expected 1600 ms, got 800 ms", "Fail:               1"],
)
def _meson_test_fail(root: Path) -> bytes:
    _meson_tests(root, fail="retry/retry_queue")
    cmd = "meson test -C build --num-processes 1; cat build/meson-logs/testlog.txt"
    return _settle(sh(cmd, root), root)


@case(
    "u107_meson_test_verbose_clean",
    "meson",
    clean=True,
    group=GROUP,
    decisive=["Ok:                 40", "Fail:               0"],
)
def _meson_test_clean(root: Path) -> bytes:
    _meson_tests(root)
    return _settle(sh("meson test -C build --num-processes 1 -v", root), root)


# ---------------------------------------------------------------- plain ninja


def _build_ninja(root: Path, areas: list[str], stems: list[str], program: str) -> None:
    rows = [
        "cflags = -Wall -O0 -Iinclude",
        "rule cc",
        "  command = gcc -MMD -MF $out.d $cflags -c $in -o $out",
        "  depfile = $out.d",
        "  deps = gcc",
        "  description = CC $out",
        "rule ar",
        "  command = rm -f $out && ar crs $out $in",
        "  description = AR $out",
        "rule link",
        "  command = gcc -o $out $in",
        "  description = LINK $out",
        "build obj/common/error_codes.o: cc src/common/error_codes.c",
        "build lib/libcommon.a: ar obj/common/error_codes.o",
        "build obj/main.o: cc src/exception_report_main.c",
    ]
    for a in areas:
        objs = [f"obj/{a}/{s}.o" for s in stems]
        rows += [f"build {o}: cc src/{a}/{s}.c" for o, s in zip(objs, stems, strict=True)]
        rows.append(f"build lib/lib{a}.a: ar {' '.join(objs)}")
    libs = " ".join(f"lib/lib{a}.a" for a in areas)
    rows += [f"build bin/{program}: link obj/main.o {libs} lib/libcommon.a", f"default bin/{program}"]
    (root / "build.ninja").write_text("\n".join(rows) + "\n")


_NINJA_AREAS = [*_AREAS, "cart", "tax", "coupons"]


@case(
    "u107_ninja_keep_going_error",
    "ninja",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED: obj/refunds/failed_payments.o",
        "src/refunds/failed_payments.c:15:40: error: ‘max_attempt’ undeclared",
        "ninja: build stopped: cannot make progress due to previous errors.",
    ],
)
def _ninja_keep_going(root: Path) -> bytes:
    warn = {f"{a}/{s}" for a in _NINJA_AREAS[::2] for s in ("fault_log", "dead_letters")}
    _tree(root, _NINJA_AREAS, _STEMS, broken="refunds/failed_payments", warn=warn)
    write(root, {"src/exception_report_main.c": _main_c(_NINJA_AREAS, _STEMS, "failed payments report")})
    _build_ninja(root, _NINJA_AREAS, _STEMS, "failed_payments_report")
    return _settle(sh("ninja -k 0 -j1 -v", root), root)


@case(
    "u107_ninja_build_run_report_clean",
    "ninja",
    clean=True,
    group=GROUP,
    decisive=["LINK bin/failed_payments_report", "report complete: 150 sources summarised, 0 unreconciled"],
)
def _ninja_clean(root: Path) -> bytes:
    _tree(root, _NINJA_AREAS, _STEMS)
    write(root, {"src/exception_report_main.c": _main_c(_NINJA_AREAS, _STEMS, "failed payments report")})
    _build_ninja(root, _NINJA_AREAS, _STEMS, "failed_payments_report")
    return _settle(sh("ninja -j1 && ./bin/failed_payments_report", root), root)
