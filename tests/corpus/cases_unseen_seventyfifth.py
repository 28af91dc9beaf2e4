"""Held-out outputs (group ``unseen-75``): a seventy-fifth batch, C and C++ test suites with CMake, CTest, GoogleTest
and Catch2 as an agent runs them on a generated project (Debian's cmake 3.25, ninja, g++ 12, GoogleTest 1.12 and Catch2
2.13; nothing fetched).

Targets, test executables, suites and tests are named after the payments platform's business words
(``error_reporter``, ``failed_payments``, ``retry_queue``, ``ExceptionMapper.HandlesError...``), so clean runs are full
of those words. Failing runs: ``cmake -S . -B build -G Ninja`` of a project with dozens of ``check_*`` probes and 20
service folders where the ``webhooks`` service asks for a ``RetryKit`` package that is not installed; ``cmake --build
build -v -- -k 0`` of 80 translation units where ``refund_calculator.cpp`` has three errors; ``ctest
--output-on-failure`` over 40 GoogleTest executables where one ``EXPECT_EQ`` in ``retry_queue_test`` fails; a
GoogleTest binary of 600 tests run directly with ``--gtest_output=xml`` where one test in the middle fails its
``EXPECT_EQ``; ``--gtest_filter`` over session tests where one death test dies with the wrong message; ``ctest`` over
tests found by ``gtest_discover_tests`` (typed and parameterized suites, 200 tests) where one currency parameter fails;
a Catch2 binary run with ``-s`` where one ``REQUIRE`` fails among thousands of passing assertions; and ``ctest
--rerun-failed --output-on-failure`` after a run with an assertion failure and a timeout. Clean runs: configure and
build of the ``error_reporting`` project with unused-variable warnings, ``ctest -V -R`` over the error and retry
executables, a Catch2 ``-s`` run of exception tests, and a GoogleTest binary with skipped and disabled tests run with
``--gtest_output=json``. The builds and ctest runs use one job (``-j1``) so that the output's order is the same on
every run. Labels were written with each scenario, before the engine saw the output. Needs Debian ``cmake``,
``ninja-build``, ``g++``, ``googletest`` with ``libgtest-dev`` and ``catch2``.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-75"

_CMAKE = "cmake -S . -B build -G Ninja"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations."""
    return substitute(
        scrub(out, root),
        (r"\((\d+) ms\)", "(0 ms)"),
        (r"\((\d+) ms total\)", "(1 ms total)"),
        (r"\d+\.\d\d sec\b", "0.01 sec"),
        (r"seeded to: \d+", "seeded to: 1"),
        (r"Google Test detected \d+ threads", "Google Test detected 2 threads"),
    )


def _pascal(snake: str) -> str:
    return "".join(p.capitalize() for p in snake.split("_"))


_AREAS = [
    "error_reporter", "failed_payments", "retry_queue", "exception_mapper", "invoice_totals", "ledger_reconcile",
    "tax_rates", "refund_policy", "cart_pricing", "coupon_rules", "shipping_labels", "webhook_delivery",
    "audit_trail", "session_store", "order_export", "catalog_search", "auth_tokens", "billing_cycle",
    "failed_jobs", "retry_backoff",
]  # fmt: skip

_VERBS = [
    "HandlesError", "RetriesFailedCharge", "ReportsException", "RejectsExpiredSession", "KeepsAuditTrail",
    "RoundsTaxHalfEven", "SkipsDuplicateWebhook", "MarksRefundFailed", "RecordsErrorCode", "ThrowsOnNegativeAmount",
    "RequeuesAfterTimeout", "LogsFailedAttempt", "MapsExceptionToStatus", "StopsAfterMaxRetries", "CountsErrors",
]  # fmt: skip


def _step(area: int, k: int, x: int) -> int:
    """What ``step_k`` of the ``area``-th library returns for ``x`` (the C++ code computes the same)."""
    return (x * (k + 3) + area * 7) % 1009


def _library(area: str, idx: int, n: int, *, warn: int = 0) -> dict[str, str]:
    """The ``area`` library: one header and ``n`` translation units, ``warn`` of them with an unused variable."""
    decls = "".join(f"int step_{k}(int x);\n" for k in range(n))
    files = {f"include/{area}/{area}.hpp": f"#pragma once\n\nnamespace {area} {{\n{decls}}}  // namespace {area}\n"}
    for k in range(n):
        unused = f"    int failed_{area}_count = x;\n" if k < warn else ""
        files[f"src/{area}/{area}_{k}.cpp"] = (
            f'#include "{area}/{area}.hpp"\n\n#include <string>\n#include <vector>\n\nnamespace {area} {{\n\n'
            f"int step_{k}(int x) {{\n{unused}"
            f'    std::vector<std::string> retry_errors{{"{area}", "step_{k}"}};\n'
            f"    return static_cast<int>((x * {k + 3} + {idx * 7} + retry_errors.size() * 0) % 1009);\n"
            f"}}\n\n}}  // namespace {area}\n"
        )
    return files


def _lib_cmake(area: str, n: int) -> str:
    srcs = " ".join(f"{area}_{k}.cpp" for k in range(n))
    return (
        f"add_library({area} STATIC {srcs})\n"
        f"target_include_directories({area} PUBLIC ${{PROJECT_SOURCE_DIR}}/include)\n"
        f"target_compile_options({area} PRIVATE -Wall -Wextra)\n"
    )


def _gtest_body(area: str, idx: int, suite: str, count: int, *, start: int = 0) -> str:
    """``count`` passing TESTs of ``suite`` that call the ``area`` library."""
    out = []
    for t in range(start, start + count):
        k = t % 4
        x = 11 + t * 3
        verb = _VERBS[t % len(_VERBS)]
        out.append(
            f"TEST({suite}, {verb}{t:03d}) {{\n"
            f"    EXPECT_EQ({area}::step_{k}({x}), {_step(idx, k, x)});\n"
            f"    EXPECT_GE({area}::step_{k}({x}), 0);\n}}\n"
        )
    return "\n".join(out)


def _gtest_file(area: str, idx: int, suite: str, count: int, extra: str = "") -> str:
    return (
        f'#include <gtest/gtest.h>\n\n#include "{area}/{area}.hpp"\n\n' + _gtest_body(area, idx, suite, count) + extra
    )


def _gtest_project(root: Path, areas: list[str], tests: int, *, extra: dict[str, str] | None = None,
                   props: str = "") -> None:  # fmt: skip
    """One library per area and one GoogleTest executable ``<area>_test`` (ctest name ``<Area>Test``) per area with
    ``tests`` tests; ``extra`` appends test code to an area's test file."""
    extra = extra or {}
    files: dict[str, str] = {}
    top = [
        "cmake_minimum_required(VERSION 3.20)",
        "project(payments_platform CXX)",
        "set(CMAKE_CXX_STANDARD 17)",
        "find_package(GTest REQUIRED)",
        "enable_testing()",
    ]
    for area in areas:
        idx = _AREAS.index(area)
        files.update(_library(area, idx, 4))
        files[f"src/{area}/CMakeLists.txt"] = _lib_cmake(area, 4)
        top.append(f"add_subdirectory(src/{area})")
        files[f"tests/{area}_test.cpp"] = _gtest_file(area, idx, _pascal(area), tests, extra.get(area, ""))
    top.append("add_subdirectory(tests)")
    tcm = []
    for area in areas:
        tcm.append(f"add_executable({area}_test {area}_test.cpp)")
        tcm.append(f"target_link_libraries({area}_test PRIVATE {area} GTest::gtest_main)")
        tcm.append(f"add_test(NAME {_pascal(area)}Test COMMAND {area}_test)")
    files["tests/CMakeLists.txt"] = "\n".join(tcm) + "\n" + props
    files["CMakeLists.txt"] = "\n".join(top) + "\n"
    write(root, files)


def _configure_build(root: Path) -> None:
    sh(f"{_CMAKE} && cmake --build build -j2", root)


# ---------------------------------------------------------------- configure and build


_CHECK_HEADERS = [
    "unistd.h", "sys/types.h", "sys/stat.h", "sys/socket.h", "sys/epoll.h", "sys/eventfd.h", "sys/timerfd.h",
    "netinet/in.h", "arpa/inet.h", "fcntl.h", "poll.h", "pthread.h", "sched.h", "signal.h", "syslog.h",
    "execinfo.h", "dlfcn.h", "sys/mman.h", "sys/resource.h", "sys/uio.h", "sys/random.h", "linux/futex.h",
    "cxxabi.h", "stdatomic.h",
]  # fmt: skip

_CHECK_SYMBOLS = [
    ("clock_gettime", "time.h"), ("pipe2", "unistd.h"), ("accept4", "sys/socket.h"), ("epoll_create1", "sys/epoll.h"),
    ("eventfd", "sys/eventfd.h"), ("getrandom", "sys/random.h"), ("backtrace", "execinfo.h"),
    ("pthread_setname_np", "pthread.h"), ("posix_fadvise", "fcntl.h"), ("memfd_create", "sys/mman.h"),
    ("strerror_r", "string.h"), ("sigaction", "signal.h"),
]  # fmt: skip

_CHECK_FLAGS = [
    "-Wall", "-Wextra", "-Wshadow", "-Wconversion", "-Wnon-virtual-dtor", "-Wold-style-cast", "-Wcast-align",
    "-Wunused", "-Woverloaded-virtual", "-Wpedantic", "-Wnull-dereference", "-Wdouble-promotion", "-Wformat=2",
    "-Wimplicit-fallthrough", "-Wmisleading-indentation", "-Wduplicated-cond", "-Wlogical-op", "-Wuseless-cast",
]  # fmt: skip


def _platform_project(root: Path, *, missing: str = "") -> None:
    """The ``payments_platform`` superproject: probes, options and 20 service folders; the service ``missing`` asks
    for a package that is not installed."""
    checks = ["include(CheckIncludeFileCXX)", "include(CheckSymbolExists)", "include(CheckCXXCompilerFlag)"]
    for h in _CHECK_HEADERS:
        var = "HAVE_" + h.upper().replace("/", "_").replace(".", "_")
        checks.append(f"check_include_file_cxx({h} {var})")
    for fn, h in _CHECK_SYMBOLS:
        checks.append(f"check_symbol_exists({fn} {h} HAVE_{fn.upper()})")
    checks.append("include(CheckTypeSize)")
    for t in ["long", "long long", "size_t", "off_t", "time_t", "pid_t", "ssize_t", "socklen_t", "__int128"]:
        checks.append(f'check_type_size("{t}" SIZEOF_{t.upper().replace(" ", "_").strip("_")} LANGUAGE CXX)')
    for flag in _CHECK_FLAGS:
        var = "CXX_FLAG_" + flag.strip("-").upper().replace("-", "_").replace("=", "_")
        checks.append(f"check_cxx_compiler_flag({flag} {var})")
    files = {
        "cmake/Probes.cmake": "\n".join(checks) + "\n",
        "cmake/Options.cmake": "".join(
            f'option(PAYMENTS_WITH_{a.upper()} "Build the {a} service" ON)\n'
            f'message(STATUS "Option PAYMENTS_WITH_{a.upper()}: ${{PAYMENTS_WITH_{a.upper()}}}")\n'
            for a in _AREAS
        ),
        "CMakeLists.txt": (
            "cmake_minimum_required(VERSION 3.20)\n"
            "project(payments_platform VERSION 4.12.0 LANGUAGES CXX)\n"
            "set(CMAKE_CXX_STANDARD 17)\n"
            "list(APPEND CMAKE_MODULE_PATH ${PROJECT_SOURCE_DIR}/cmake)\n"
            "include(Options)\ninclude(Probes)\n"
            "find_package(Threads REQUIRED)\nfind_package(GTest REQUIRED)\nfind_package(PkgConfig REQUIRED)\n"
            + "".join(f"add_subdirectory(services/{a})\n" for a in _AREAS)
            + 'message(STATUS "payments_platform ${PROJECT_VERSION}: 20 services configured")\n'
        ),
    }
    for i, area in enumerate(_AREAS):
        svc = area.split("_")[0] if area != "webhook_delivery" else "webhooks"
        lines = []
        if area == missing:
            lines.append("find_package(RetryKit 2.3 REQUIRED CONFIG)")
        lines += [
            f'message(STATUS "Configuring service {area} ({svc}): 4 sources, tests ${{PAYMENTS_WITH_{area.upper()}}}")',
            f"add_library({area} STATIC " + " ".join(f"{area}_{k}.cpp" for k in range(4)) + ")",
            f"target_include_directories({area} PUBLIC ${{PROJECT_SOURCE_DIR}}/include)",
            f"target_link_libraries({area} PUBLIC Threads::Threads)",
            f'message(STATUS "  {area}: include ${{PROJECT_SOURCE_DIR}}/include, links Threads::Threads")',
            f'message(STATUS "  {area}: install to ${{CMAKE_INSTALL_PREFIX}}/lib/payments/{svc}")',
        ]
        files[f"services/{area}/CMakeLists.txt"] = "\n".join(lines) + "\n"
        for rel, text in _library(area, i, 4).items():
            files[rel.replace("src/", "services/", 1)] = text
    write(root, files)


@case(
    "u75_cmake_configure_missing_package",
    "cmake",
    clean=False,
    group=GROUP,
    decisive=[
        "CMake Error at services/webhook_delivery/CMakeLists.txt:1 (find_package):",
        'Could not find a package configuration file provided by "RetryKit"',
        "-- Configuring incomplete, errors occurred!",
    ],
)
def _configure_missing(root: Path) -> bytes:
    _platform_project(root, missing="webhook_delivery")
    return _settle(sh(f"{_CMAKE} -DCMAKE_BUILD_TYPE=Debug", root), root)


_BROKEN_REFUND = """
#include "refund_policy/refund_policy.hpp"

#include <string>
#include <vector>

namespace refund_policy {

struct RefundLine {
    std::string sku;
    long cents = 0;
    int retry_count = 0;
};

long refund_total(const std::vector<RefundLine>& lines) {
    long total = 0;
    for (const auto& line : lines) {
        total += line.amount_cents;
    }
    return total;
}

int refund_step(int x) {
    std::vector<RefundLine> lines{{"sku-1", x, 0}};
    const std::string reason = refund_total(lines);
    return static_cast<int>(reason.size()) + undeclared_retry_budget;
}

}  // namespace refund_policy
"""


@case(
    "u75_ninja_keep_going_refund_errors",
    "cmake",
    clean=False,
    group=GROUP,
    decisive=[
        "refund_calculator.cpp:17:23: error: ‘const struct refund_policy::RefundLine’ has no member named "
        "‘amount_cents’",
        "FAILED: src/refund_policy/CMakeFiles/refund_policy.dir/refund_calculator.cpp.o",
        "ninja: build stopped: cannot make progress due to previous errors.",
    ],
)
def _ninja_keep_going(root: Path) -> bytes:
    areas = _AREAS[:8]
    files: dict[str, str] = {}
    top = ["cmake_minimum_required(VERSION 3.20)", "project(payments_platform CXX)", "set(CMAKE_CXX_STANDARD 17)"]
    for i, area in enumerate(areas):
        n = 9 if area == "refund_policy" else 10
        files.update(_library(area, _AREAS.index(area), n, warn=1 if i % 3 == 0 else 0))
        cm = _lib_cmake(area, n)
        if area == "refund_policy":
            cm = cm.replace(f"{area}_8.cpp", f"{area}_8.cpp refund_calculator.cpp")
            files[f"src/{area}/refund_calculator.cpp"] = _BROKEN_REFUND.lstrip("\n")
        files[f"src/{area}/CMakeLists.txt"] = cm
        top.append(f"add_subdirectory(src/{area})")
    top.append("add_executable(payments_worker src/main.cpp)")
    top.append("target_link_libraries(payments_worker PRIVATE " + " ".join(areas) + ")")
    files["src/main.cpp"] = (
        '#include "error_reporter/error_reporter.hpp"\n\nint main() { return error_reporter::step_0(1) > 2000; }\n'
    )
    files["CMakeLists.txt"] = "\n".join(top) + "\n"
    write(root, files)
    sh(_CMAKE, root)
    return _settle(sh("cmake --build build -j1 -v -- -k 0", root), root)


@case(
    "u75_configure_build_clean_error_reporting",
    "cmake",
    clean=True,
    group=GROUP,
    decisive=["-- Build files have been written to: /tmp/work/build", "Linking CXX executable retry_failed_jobs"],
)
def _configure_build_clean(root: Path) -> bytes:
    areas = ["error_reporter", "failed_payments", "retry_queue", "exception_mapper", "failed_jobs", "retry_backoff"]
    files: dict[str, str] = {}
    top = [
        "cmake_minimum_required(VERSION 3.20)",
        "project(error_reporting VERSION 2.4.1 LANGUAGES CXX)",
        "set(CMAKE_CXX_STANDARD 17)",
        "find_package(Threads REQUIRED)",
        "include(CheckIncludeFileCXX)",
        "check_include_file_cxx(execinfo.h HAVE_EXECINFO_H)",
        "check_include_file_cxx(cxxabi.h HAVE_CXXABI_H)",
        'message(STATUS "error_reporting: reporting failed payments and retry exceptions")',
    ]
    for area in areas:
        files.update(_library(area, _AREAS.index(area), 8, warn=2))
        files[f"src/{area}/CMakeLists.txt"] = _lib_cmake(area, 8)
        top.append(f"add_subdirectory(src/{area})")
        top.append(f'message(STATUS "Library {area}: 8 sources (errors are reported, failed ones retried)")')
    top.append("add_executable(retry_failed_jobs src/retry_failed_jobs.cpp)")
    top.append("target_link_libraries(retry_failed_jobs PRIVATE " + " ".join(areas) + " Threads::Threads)")
    files["src/retry_failed_jobs.cpp"] = (
        '#include <cstdio>\n\n#include "failed_jobs/failed_jobs.hpp"\n\n'
        'int main() {\n    std::printf("retrying %d failed jobs\\n", failed_jobs::step_0(1));\n    return 0;\n}\n'
    )
    files["CMakeLists.txt"] = "\n".join(top) + "\n"
    write(root, files)
    return _settle(sh(f"{_CMAKE} && cmake --build build -j1", root), root)


# ---------------------------------------------------------------- ctest over GoogleTest executables

_RETRY_EXTRA = """
class RetryQueueState {
public:
    void push(int id) { ids_.push_back(id); }
    void ack(int id) {
        for (auto it = ids_.begin(); it != ids_.end(); ++it) {
            if (*it == id && id % 2 == 0) { ids_.erase(it); return; }
        }
    }
    std::size_t pending() const { return ids_.size(); }
private:
    std::vector<int> ids_;
};

TEST(RetryQueue, DropsAcknowledgedFailedPayments) {
    RetryQueueState queue;
    queue.push(41);
    queue.push(42);
    queue.push(43);
    queue.ack(41);
    EXPECT_EQ(queue.pending(), 2u);
}
"""


@case(
    "u75_ctest_40_executables_one_failure",
    "ctest",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/retry_queue_test.cpp:325: Failure",
        "- RetryQueueTest (Failed)",
        "tests passed, 1 tests failed out of 40",
    ],
)
def _ctest_40(root: Path) -> bytes:
    areas = [*_AREAS[10:], *_AREAS[:10], *[f"{a}_v2" for a in _AREAS]]
    extra = {"retry_queue": "#include <vector>\n" + _RETRY_EXTRA}
    files: dict[str, str] = {}
    for a in _AREAS:  # the v2 areas reuse the library code under a new name
        files[f"include/{a}_v2/{a}_v2.hpp"] = f'#pragma once\n#include "{a}/{a}.hpp"\nnamespace {a}_v2 = {a};\n'
    _gtest_project_40(root, areas, extra)
    write(root, files)
    _configure_build(root)
    return _settle(sh("ctest --test-dir build --output-on-failure -j1", root), root)


def _gtest_project_40(root: Path, areas: list[str], extra: dict[str, str]) -> None:
    """40 executables over 20 libraries: the ``_v2`` ones test the same library under a second name."""
    files: dict[str, str] = {}
    top = [
        "cmake_minimum_required(VERSION 3.20)",
        "project(payments_platform CXX)",
        "set(CMAKE_CXX_STANDARD 17)",
        "find_package(GTest REQUIRED)",
        "enable_testing()",
    ]
    tcm = []
    for area in areas:
        base = area.removesuffix("_v2")
        idx = _AREAS.index(base)
        if base == area:
            files.update(_library(area, idx, 4))
            files[f"src/{area}/CMakeLists.txt"] = _lib_cmake(area, 4)
            top.append(f"add_subdirectory(src/{area})")
        count = 60 if area == "retry_queue" else 12
        files[f"tests/{area}_test.cpp"] = (
            f'#include <gtest/gtest.h>\n\n#include "{area}/{area}.hpp"\n\n'
            + _gtest_body(area, idx, _pascal(area), count)
            + extra.get(area, "")
        )
        tcm.append(f"add_executable({area}_test {area}_test.cpp)")
        tcm.append(f"target_link_libraries({area}_test PRIVATE {base} GTest::gtest_main)")
        tcm.append(f"add_test(NAME {_pascal(area)}Test COMMAND {area}_test)")
    top.append("add_subdirectory(tests)")
    files["tests/CMakeLists.txt"] = "\n".join(tcm) + "\n"
    files["CMakeLists.txt"] = "\n".join(top) + "\n"
    write(root, files)


@case(
    "u75_ctest_verbose_selection_clean",
    "ctest",
    clean=True,
    group=GROUP,
    decisive=["100% tests passed, 0 tests failed out of 6"],
)
def _ctest_select_clean(root: Path) -> bytes:
    _gtest_project(root, _AREAS[:10], 25)
    _configure_build(root)
    return _settle(sh("ctest --test-dir build -V -R 'Error|Failed|Retry|Exception|Refund|Ledger'", root), root)


_WEBHOOK_EXTRA = """
std::string sign(const std::string& body, const std::string& secret) {
    unsigned h = 2166136261u;
    for (char c : body + secret) { h = (h ^ static_cast<unsigned char>(c)) * 16777619u; }
    char buf[16];
    std::snprintf(buf, sizeof buf, "%08x", h);
    return buf;
}

TEST(WebhookDelivery, SignatureCoversRetryHeader) {
    const std::string body = R"({"event":"payment.failed","retry":3})";
    EXPECT_EQ(sign(body, "whsec_test"), sign(body + "\\n", "whsec_test"))
        << "signature must not change when the retry header is appended";
}
"""


@case(
    "u75_ctest_rerun_failed",
    "ctest",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/webhook_delivery_test.cpp:267: Failure",
        "signature must not change when the retry header is appended",
        "RetryBackoffTest (Timeout)",
        "0% tests passed, 2 tests failed out of 2",
    ],
)
def _ctest_rerun(root: Path) -> bytes:
    areas = ["error_reporter", "failed_payments", "retry_queue", "webhook_delivery", "retry_backoff", "audit_trail"]
    slow = (
        "\n#include <chrono>\n#include <thread>\n\nTEST(RetryBackoff, WaitsForFullBackoffWindow) {\n"
        "    std::this_thread::sleep_for(std::chrono::seconds(4));\n    SUCCEED();\n}\n"
    )
    extra = {"webhook_delivery": "#include <cstdio>\n#include <string>\n" + _WEBHOOK_EXTRA, "retry_backoff": slow}
    _gtest_project(root, areas, 50, extra=extra, props="set_tests_properties(RetryBackoffTest PROPERTIES TIMEOUT 2)\n")
    _configure_build(root)
    sh("ctest --test-dir build -j1", root)
    return _settle(sh("ctest --test-dir build --rerun-failed --output-on-failure", root), root)


# ---------------------------------------------------------------- GoogleTest binaries run directly


def _single_binary(root: Path, exe: str, sources: dict[str, str], areas: list[str], *, discover: bool = False) -> None:
    """One GoogleTest executable ``exe`` made of ``sources`` (test files), linked to the ``areas`` libraries."""
    files: dict[str, str] = {}
    top = [
        "cmake_minimum_required(VERSION 3.20)",
        "project(payments_platform CXX)",
        "set(CMAKE_CXX_STANDARD 17)",
        "find_package(GTest REQUIRED)",
        "enable_testing()",
    ]
    for area in areas:
        files.update(_library(area, _AREAS.index(area), 4))
        files[f"src/{area}/CMakeLists.txt"] = _lib_cmake(area, 4)
        top.append(f"add_subdirectory(src/{area})")
    top.append(f"add_executable({exe} " + " ".join(sources) + ")")
    top.append(f"target_link_libraries({exe} PRIVATE " + " ".join(areas) + " GTest::gtest_main)")
    if discover:
        top.append("include(GoogleTest)")
        top.append(f"gtest_discover_tests({exe})")
    files.update(sources)
    files["CMakeLists.txt"] = "\n".join(top) + "\n"
    write(root, files)


_LEDGER_FAIL = """
TEST(LedgerReconcile, CarriesRefundAcrossRetry) {
    long reconciled_balance_cents = 0;
    for (long cents : {50000L, 50000L, 25000L}) {
        reconciled_balance_cents += cents;
    }
    reconciled_balance_cents -= 1;  // the refund fee is taken again when the capture is retried
    EXPECT_EQ(reconciled_balance_cents, 125000);
}

"""


@case(
    "u75_gtest_600_direct_expect_eq",
    "gtest",
    clean=False,
    group=GROUP,
    decisive=["tests/ledger_reconcile_test.cpp:196: Failure", "Which is: 124999", " 1 FAILED TEST"],
)
def _gtest_600(root: Path) -> bytes:
    areas = ["error_reporter", "failed_payments", "ledger_reconcile", "retry_queue", "invoice_totals", "tax_rates"]
    sources = {}
    for area in areas:
        idx = _AREAS.index(area)
        head = f'#include <gtest/gtest.h>\n\n#include "{area}/{area}.hpp"\n\n'
        if area == "ledger_reconcile":
            body = _gtest_body(area, idx, "LedgerReconcile", 37) + _LEDGER_FAIL
            body += _gtest_body(area, idx, "LedgerReconcile", 62, start=37)
        else:
            body = _gtest_body(area, idx, _pascal(area), 100)
        sources[f"tests/{area}_test.cpp"] = head + body
    _single_binary(root, "payments_tests", sources, areas)
    _configure_build(root)
    return _settle(sh("./build/payments_tests --gtest_output=xml:build/payments_tests.xml", root), root)


_SESSION_DEATH = """
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

[[noreturn]] void fatal(const std::string& why) {
    std::fprintf(stderr, "fatal: %s\\n", why.c_str());
    std::abort();
}

void expire(int ttl) {
    if (ttl < 0) fatal("negative ttl " + std::to_string(ttl) + " for session s-" + std::to_string(-ttl));
}

void evict(const std::string& id) {
    if (id.empty()) fatal("session id must not be empty");
}

}  // namespace

"""


@case(
    "u75_gtest_death_test_wrong_message",
    "gtest",
    clean=False,
    group=GROUP,
    decisive=[
        "Result: died but not with expected error.",
        'Expected: contains regular expression "empty session id"',
        "SessionStoreDeathTest.EvictRejectsEmptyId (0 ms)",
    ],
)
def _gtest_death(root: Path) -> bytes:
    areas = ["session_store", "auth_tokens", "error_reporter", "audit_trail"]
    sources = {}
    for area in areas:
        idx = _AREAS.index(area)
        head = f'#include <gtest/gtest.h>\n\n#include "{area}/{area}.hpp"\n\n'
        body = _gtest_body(area, idx, _pascal(area), 45)
        if area == "session_store":
            deaths = "".join(
                f"TEST(SessionStoreDeathTest, ExpireRejectsNegativeTtl{k:02d}) {{\n"
                f'    EXPECT_DEATH(expire(-{k}), "negative ttl -{k} for session s-{k}");\n}}\n\n'
                for k in range(1, 13)
            )
            deaths += (
                "TEST(SessionStoreDeathTest, EvictRejectsEmptyId) {\n"
                '    EXPECT_DEATH(evict(""), "empty session id");\n}\n\n'
            )
            body = _SESSION_DEATH + deaths + body
        sources[f"tests/{area}_test.cpp"] = head + body
    _single_binary(root, "session_tests", sources, areas)
    _configure_build(root)
    cmd = "./build/session_tests --gtest_filter='Session*:AuthTokens*:ErrorReporter*'"
    return _settle(sh(cmd, root), root)


_CURRENCIES = [
    ("EUR", 2), ("USD", 2), ("GBP", 2), ("CHF", 2), ("SEK", 2), ("NOK", 2), ("DKK", 2), ("PLN", 2), ("CZK", 2),
    ("HUF", 2), ("RON", 2), ("BGN", 2), ("CAD", 2), ("AUD", 2), ("NZD", 2), ("SGD", 2), ("HKD", 2), ("JPY", 0),
    ("CNY", 2), ("INR", 2), ("BRL", 2), ("MXN", 2), ("ZAR", 2), ("TRY", 2), ("ILS", 2), ("AED", 2), ("SAR", 2),
    ("KWD", 3), ("BHD", 3), ("OMR", 3), ("JOD", 3), ("TND", 3), ("THB", 2), ("MYR", 2), ("PHP", 2), ("IDR", 2),
    ("EGP", 2), ("MAD", 2), ("NGN", 2), ("KES", 2),
]  # fmt: skip


def _half_even(milli: int, minor: int) -> int:
    scale = 10 ** (3 - minor)
    q, r = divmod(milli, scale)
    if 2 * r > scale or (2 * r == scale and q % 2):
        q += 1
    return q


def _tax_rounding_test() -> str:
    rows = []
    for i, (code, minor) in enumerate(_CURRENCIES):
        milli = 1234500 + i * 1011
        fee = 2500 + i * 15
        want, want_fee = _half_even(milli, minor), _half_even(fee, minor)
        rows.append(f'    {{"{code}", {minor}, {milli}L, {want}L, {fee}L, {want_fee}L}},\n')
    typed = "".join(
        f"TYPED_TEST(MoneyArithmetic, {verb}) {{\n    TypeParam cents = {100 + k};\n"
        f"    EXPECT_EQ(cents + cents, static_cast<TypeParam>({2 * (100 + k)}));\n}}\n\n"
        for k, verb in enumerate(["AddsRefunds", "SubtractsFailedCaptures", "SumsRetryFees", "KeepsErrorTotals"])
    )
    return (
        "#include <gtest/gtest.h>\n\n#include <cstdint>\n#include <ostream>\n#include <string>\n\n"
        "namespace {\n\n"
        "struct Currency {\n    const char* code;\n    int minor_units;\n    long amount_milli;\n"
        "    long expected_minor;\n    long fee_milli;\n    long expected_fee;\n};\n\n"
        "void PrintTo(const Currency& c, std::ostream* os) {\n"
        '    *os << c.code << " (" << c.minor_units << " minor units)";\n}\n\n'
        "long round_half_even(long milli, int minor_units) {\n"
        "    const long scale = minor_units == 3 ? 1 : minor_units == 2 ? 10 : 100;\n"
        "    long q = milli / scale;\n    const long r = milli % scale;\n"
        "    if (2 * r > scale || (2 * r == scale && q % 2 != 0)) ++q;\n    return q;\n}\n\n"
        "const Currency kCurrencies[] = {\n" + "".join(rows) + "};\n\n}  // namespace\n\n"
        "class TaxRoundingTest : public ::testing::TestWithParam<Currency> {};\n\n"
        "TEST_P(TaxRoundingTest, AppliesRetryFeeOnce) {\n    const Currency& c = GetParam();\n"
        "    EXPECT_LT(round_half_even(c.fee_milli, 3), 10000) << c.expected_fee;\n}\n\n"
        "TEST_P(TaxRoundingTest, RoundsHalfEven) {\n    const Currency& c = GetParam();\n"
        '    EXPECT_EQ(round_half_even(c.amount_milli, c.minor_units), c.expected_minor) << "currency " << c.code;\n'
        "}\n\n"
        "INSTANTIATE_TEST_SUITE_P(Currencies, TaxRoundingTest, ::testing::ValuesIn(kCurrencies),\n"
        "                         [](const auto& info) { return std::string(info.param.code); });\n\n"
        "template <typename T>\nclass MoneyArithmetic : public ::testing::Test {};\n\n"
        "using MoneyTypes = ::testing::Types<int32_t, int64_t, long long, double>;\n"
        "TYPED_TEST_SUITE(MoneyArithmetic, MoneyTypes);\n\n" + typed
    )


@case(
    "u75_ctest_discovered_param_one_currency",
    "ctest",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/tax_rounding_test.cpp:84: Failure",
        "Which is: 12517",
        "182 - Currencies/TaxRoundingTest.RoundsHalfEven/JPY",
    ],
)
def _ctest_param(root: Path) -> bytes:
    areas = ["tax_rates", "failed_payments", "retry_backoff"]
    sources = {"tests/tax_rounding_test.cpp": _tax_rounding_test()}
    for area in areas:
        idx = _AREAS.index(area)
        sources[f"tests/{area}_test.cpp"] = _gtest_file(area, idx, _pascal(area), 36)
    _single_binary(root, "tax_tests", sources, areas, discover=True)
    _configure_build(root)
    return _settle(sh("ctest --test-dir build --output-on-failure -j1", root), root)


def _flaky_log(area: str) -> str:
    return "".join(
        f"TEST(ExceptionMapper, LogsFailedAttempt{k:02d}) {{\n"
        f'    std::fprintf(stderr, "ERROR payment p-{k:03d} failed: card_declined, retry {k % 3 + 1}/3\\n");\n'
        f"    EXPECT_EQ({area}::step_1({k}), {_step(_AREAS.index(area), 1, k)});\n}}\n\n"
        for k in range(13)
    )


@case(
    "u75_gtest_json_skipped_disabled_clean",
    "gtest",
    clean=True,
    group=GROUP,
    decisive=["[  PASSED  ] 237 tests."],
)
def _gtest_clean(root: Path) -> bytes:
    areas = ["exception_mapper", "failed_jobs", "retry_backoff", "error_reporter"]
    sources = {}
    for area in areas:
        idx = _AREAS.index(area)
        head = f'#include <gtest/gtest.h>\n\n#include <cstdio>\n\n#include "{area}/{area}.hpp"\n\n'
        body = _gtest_body(area, idx, _pascal(area), 56)
        if area == "exception_mapper":
            body += _flaky_log(area)
        if area == "failed_jobs":
            body += "".join(
                f"TEST(FailedJobs, ReplaysAgainstCardNetwork{k}) {{\n"
                '    GTEST_SKIP() << "needs a live card network (set PAYMENTS_SANDBOX_URL)";\n}\n\n'
                for k in range(3)
            )
            body += "".join(
                f'TEST(FailedJobs, DISABLED_RetriesAfterOutage{k}) {{\n    FAIL() << "outage replay";\n}}\n\n'
                for k in range(4)
            )
        sources[f"tests/{area}_test.cpp"] = head + body
    _single_binary(root, "exception_tests", sources, areas)
    _configure_build(root)
    return _settle(sh("./build/exception_tests --gtest_output=json:build/exception_tests.json", root), root)


# ---------------------------------------------------------------- Catch2


def _catch_project(root: Path, exe: str, sources: dict[str, str]) -> None:
    files = {
        "tests/main.cpp": "#define CATCH_CONFIG_MAIN\n#include <catch2/catch.hpp>\n",
        "CMakeLists.txt": (
            "cmake_minimum_required(VERSION 3.20)\nproject(payments_platform CXX)\nset(CMAKE_CXX_STANDARD 17)\n"
            f"find_package(Catch2 REQUIRED)\nadd_executable({exe} tests/main.cpp " + " ".join(sources) + ")\n"
            f"target_link_libraries({exe} PRIVATE Catch2::Catch2)\n"
        ),
        **sources,
    }
    write(root, files)


def _invoice_cents(base: int, rate: int, coupon: int) -> int:
    return (base - coupon) * (100 + rate) // 100


def _catch_cases(prefix: str, n_cases: int, per: int, fail: tuple[int, int] = (-1, -1)) -> str:
    out = []
    for c in range(n_cases):
        area = _AREAS[c % len(_AREAS)]
        out.append(f'TEST_CASE("{_pascal(area)} {prefix} {c:02d}", "[{area.split("_")[0]}]") {{\n')
        for s in range(2):
            out.append(f'    SECTION("{_VERBS[(c + s) % len(_VERBS)]} section {s}") {{\n')
            for a in range(per):
                base, rate, coupon = 1000 + c * 37 + a * 11, 5 + a % 20, (a * 13) % 200
                want = _invoice_cents(base, rate, coupon)
                if (c, s * per + a) == fail:
                    want += 1
                out.append(f"        REQUIRE(invoice_cents({base}, {rate}, {coupon}) == {want});\n")
            out.append("    }\n")
        out.append("}\n\n")
    return "".join(out)


_INVOICE_HEAD = (
    "#include <catch2/catch.hpp>\n\n"
    "static long invoice_cents(long base, long rate, long coupon) { return (base - coupon) * (100 + rate) / 100; }\n\n"
)


@case(
    "u75_catch2_success_require_fails",
    "catch2",
    clean=False,
    group=GROUP,
    decisive=[
        "tests/invoice_tests.cpp:367: FAILED:",
        "1536 (0x600) == 1537 (0x601)",
        "test cases:  40 |  39 passed | 1 failed",
    ],
)
def _catch_fail(root: Path) -> bytes:
    sources = {
        "tests/billing_tests.cpp": _INVOICE_HEAD + _catch_cases("billing", 20, 12),
        "tests/invoice_tests.cpp": _INVOICE_HEAD + _catch_cases("invoice", 20, 12, fail=(11, 17)),
    }
    _catch_project(root, "invoice_tests", sources)
    _configure_build(root)
    return _settle(sh("./build/invoice_tests -s --order decl", root), root)


_EXCEPTIONS = """
#include <catch2/catch.hpp>

#include <stdexcept>
#include <string>

struct PaymentFailedError : std::runtime_error {
    using std::runtime_error::runtime_error;
};
struct RetryExhaustedError : std::runtime_error {
    using std::runtime_error::runtime_error;
};

static long charge(long cents) {
    if (cents < 0) throw PaymentFailedError("payment failed: negative amount " + std::to_string(cents));
    return cents;
}

static int retry_charge(int attempts) {
    if (attempts >= 3) {
        throw RetryExhaustedError("retry budget exhausted after " + std::to_string(attempts) + " failed attempts");
    }
    return attempts + 1;
}

"""


def _exception_cases(n: int) -> str:
    out = []
    for c in range(n):
        area = _AREAS[c % len(_AREAS)]
        out.append(f'TEST_CASE("{_pascal(area)} error handling {c:02d}", "[errors][{area.split("_")[0]}]") {{\n')
        out.append(f'    SECTION("rejects a failed payment of -{c + 1} cents") {{\n')
        out.append(f"        REQUIRE_THROWS_AS(charge(-{c + 1}), PaymentFailedError);\n")
        out.append(f'        CHECK_THROWS_WITH(charge(-{c + 1}), "payment failed: negative amount -{c + 1}");\n')
        out.append("    }\n")
        out.append('    SECTION("stops retrying after the third failed attempt") {\n')
        if c % 5 == 0:
            out.append(f'        WARN("retrying failed payment p-{c:03d} after exception");\n')
        out.append("        CHECK(retry_charge(0) == 1);\n        CHECK(retry_charge(2) == 3);\n")
        out.append('        CHECK_THROWS_WITH(retry_charge(3), "retry budget exhausted after 3 failed attempts");\n')
        out.append("        CHECK_THROWS_AS(retry_charge(4), RetryExhaustedError);\n")
        out.append(f"        CHECK_NOTHROW(charge({c * 100}));\n    }}\n}}\n\n")
    return "".join(out)


@case(
    "u75_catch2_success_exceptions_clean",
    "catch2",
    clean=True,
    group=GROUP,
    decisive=["All tests passed (210 assertions in 30 test cases)"],
)
def _catch_clean(root: Path) -> bytes:
    _catch_project(root, "error_tests", {"tests/error_tests.cpp": _EXCEPTIONS.lstrip("\n") + _exception_cases(30)})
    _configure_build(root)
    return _settle(sh("./build/error_tests -s", root), root)
