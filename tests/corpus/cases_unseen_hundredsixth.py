"""Held-out outputs (group ``unseen-106``): a hundred-and-sixth batch, C and C++ static analysis in depth as an agent
runs it on a generated payments code base (30 to 40 modules of a ``.c``/``.h`` or ``.cpp``/``.hpp`` pair each, a
Makefile, a ``compile_commands.json``; offline). Modules are named after the business words: ``failed_payments.c``,
``error_codes.c``, ``retry_queue.cpp``, ``exception_report.c``, so clean runs are full of those words.

Failing runs: ``cppcheck --enable=all`` of 31 C files (61 with headers) with hundreds of style and information
findings and one null pointer dereference in ``failed_payments.c``, ``cppcheck --xml`` with an out-of-bounds index in
``retry_queue.c``, ``run-clang-tidy`` of 31 C files with readability warnings and one ``clang-analyzer-
core.NullDereference`` with its path notes in ``exception_report.c``, ``clang-tidy`` of 30 C++ files with modernize
and readability warnings where ``--warnings-as-errors`` turns a ``clang-analyzer-core.DivideZero`` in
``retry_queue.cpp`` into an error, ``scan-build make`` reporting 2 bugs, and ``flawfinder --error-level=4`` with one
level-5 hit among hundreds. Clean runs: ``cppcheck`` of the project and its 30 unit tests with only an information
line, ``run-clang- tidy`` of 61 files with the analyzer and bugprone checks finding nothing, ``scan-build make`` with
no bugs found, and ``flawfinder --minlevel=2 --error-level=3`` listing 60 level-2 hits and passing its gate.
``iwyu_tool`` of 61 files fails on one unknown type among its include suggestions. Labels were written with each
scenario, before the engine saw the output. Needs Debian ``cppcheck``, ``clang-tidy``, ``clang-tools`` (scan-build),
``flawfinder`` and ``iwyu`` with clang, gcc and make.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-106"

#: The modules of the generated code base: business words, several of them error, failure and retry words.
MODULES = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "billing_ledger", "orders_sync",
    "cart_totals", "tax_rules", "refunds_batch", "invoice_render", "ledger_post", "shipping_rates", "catalog_index",
    "search_rank", "pricing_tiers", "coupons_apply", "webhooks_dispatch", "audit_trail", "export_csv",
    "session_store", "auth_tokens", "errors_summary", "retry_backoff", "exceptions_log", "failed_jobs",
    "billing_errors", "refund_failures", "webhook_retries", "invoice_errors", "audit_exceptions",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` with the folder, scan-build's dated report folder and timings made the same on every run."""
    return substitute(
        scrub(out, root),
        (r"\d{4}-\d\d-\d\d-\d{6}-\d+-\d+", "2026-01-01-000000-1000-1"),
        (r"scan-build: Using '([^']+)' for static analysis", r"scan-build: Using '\1' for static analysis"),
        (r"in \d+\.\d+ seconds", "in 1.00 seconds"),
        (r"approximately \d+\.\d+ seconds \(\d+ lines/second\)", "approximately 0.10 seconds (20000 lines/second)"),
        (r"Elapsed time: \d+(\.\d+)?", "Elapsed time: 1.00"),
        (r"/tmp/(clang-tidy|tmp)[A-Za-z0-9_]{6,}", "/tmp/tmpabcdefgh"),
    )


# ---------------------------------------------------------------- the C code base


def _c_module(name: str, extra: str = "") -> dict[str, str]:
    up = name.upper()
    header = f"""\
/* {name}.h: the {name.replace("_", " ")} part of the payments service. */
#ifndef {up}_H
#define {up}_H

#include <stdio.h>

int {name}_add(int id, int amount_cents, const char *label);
int {name}_total(void);
int {name}_score(int *weights, int n);
const char *{name}_describe(int code);
void {name}_report(FILE *out);
int {name}_count(void);

#endif
"""
    source = f"""\
/* {name}.c: records, totals and reports of {name.replace("_", " ")}. */
#include "{name}.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define {up}_SLOTS 16

struct {name}_entry {{
    int id;
    int amount_cents;
    char label[32];
}};

static struct {name}_entry {name}_table[{up}_SLOTS];
static int {name}_used = 0;

int {name}_add(int id, int amount_cents, const char *label)
{{
    struct {name}_entry *e;
    if ({name}_used >= {up}_SLOTS)
        return -1;
    e = &{name}_table[{name}_used++];
    e->id = id;
    e->amount_cents = amount_cents;
    snprintf(e->label, sizeof e->label, "%s", label);
    return 0;
}}

int {name}_total(void)
{{
    int total = 0, i;
    for (i = 0; i < {name}_used; i++)
        total += {name}_table[i].amount_cents;
    return total;
}}

int {name}_score(int *weights, int n)
{{
    int s = 0;
    int k;
    int boost;
    for (k = 0; k < n; k++) {{
        boost = weights[k] > 100 ? 3 : 1;
        s += weights[k] * boost;
    }}
    return s;
}}

const char *{name}_describe(int code)
{{
    if (code == 0) {{
        return "{name}: ok";
    }} else {{
        return "{name}: retry later";
    }}
}}

void {name}_report(FILE *out)
{{
    int i;
    char line[80];
    for (i = 0; i < {name}_used; i++) {{
        memset(line, 0, sizeof line);
        snprintf(line, sizeof line, "%d %s", i + 1, {name}_table[i].label);
        fprintf(out, "%s %d (%zu)\\n", line, {name}_table[i].amount_cents, strlen(line));
    }}
}}

int {name}_count(void)
{{
#ifdef PAYMENTS_TRACE
    fprintf(stderr, "{name}: %d entries\\n", {name}_used);
#endif
#if defined(PAYMENTS_SANDBOX) && PAYMENTS_SANDBOX > 1
    return 0;
#else
    return {name}_used;
#endif
}}
{extra}"""
    return {f"src/{name}.h": header, f"src/{name}.c": source}


def _c_test(name: str) -> str:
    return (
        f"/* test_{name}.c: unit tests of {name}. */\n#include <assert.h>\n#include <string.h>\n\n"
        f'#include "{name}.h"\n\n'
        f"int main(void)\n{{\n    int weights[3] = {{50, 150, 7}};\n"
        f'    assert({name}_add(1, 250, "first {name} record") == 0);\n'
        f"    assert({name}_total() == 250);\n    assert({name}_count() == 1);\n"
        f"    assert({name}_score(weights, 3) == 507);\n"
        f'    assert(strcmp({name}_describe(0), "{name}: ok") == 0);\n'
        f"    {name}_report(stdout);\n    return 0;\n}}\n"
    )


def _c_project(root: Path, bugs: dict[str, str] | None = None, *, tests: bool = False) -> list[str]:
    """The C code base in ``root`` (``src/``, a Makefile, ``compile_commands.json``, with ``tests`` a unit test
    per module in ``tests/``); ``bugs`` maps a module to the code appended to it. Returns the source files."""
    bugs = bugs or {}
    modules = MODULES
    files: dict[str, str] = {}
    for name in modules:
        files.update(_c_module(name, bugs.get(name, "")))
        if tests:
            files[f"tests/test_{name}.c"] = _c_test(name)
    calls = "".join(
        f'    {m}_add({i}, {100 + i}, "{m}");\n    total += {m}_total() + {m}_count();\n    {m}_report(stdout);\n'
        for i, m in enumerate(modules)
    )
    includes = "".join(f'#include "{m}.h"\n' for m in modules)
    files["src/main.c"] = (
        f"/* main.c: runs every module once. */\n#include <stdio.h>\n\n{includes}\n"
        f"int main(void)\n{{\n    int total = 0;\n{calls}"
        f'    printf("total %d\\n", total);\n    return 0;\n}}\n'
    )
    objs = " ".join(f"build/{m}.o" for m in [*modules, "main"])
    test_bins = " ".join(f"build/test_{m}" for m in modules) if tests else ""
    files["Makefile"] = (
        "CC ?= cc\nCFLAGS ?= -O0 -g -Wall\n\n"
        f"all: payments {test_bins}\n\n"
        f"payments: {objs}\n\t$(CC) $(CFLAGS) -o $@ $^\n\n"
        "build/%.o: src/%.c\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c $< -o $@\n\n"
        "build/test_%: tests/test_%.c build/%.o\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -Isrc -o $@ $^\n\n"
        "clean:\n\trm -rf build payments\n"
    )
    write(root, files)
    sources = [f"src/{m}.c" for m in [*modules, "main"]]
    commands = [
        {"directory": str(root), "file": str(root / s), "command": f"cc -O0 -g -Wall -c {s} -o build/{Path(s).stem}.o"}
        for s in sources
    ]
    if tests:
        commands += [
            {
                "directory": str(root),
                "file": str(root / f"tests/test_{m}.c"),
                "command": f"cc -O0 -g -Wall -Isrc -c tests/test_{m}.c",
            }
            for m in modules
        ]
    (root / "compile_commands.json").write_text(json.dumps(commands, indent=2) + "\n")
    return sources


_NULL_MATCH = """
int failed_payments_first_amount(int wanted_id)
{
    struct failed_payments_entry *match = NULL;
    int i;
    for (i = 0; i < failed_payments_used; i++) {
        if (failed_payments_table[i].id == wanted_id)
            break;
    }
    return match->amount_cents;
}
"""

_OUT_OF_BOUNDS = """
static const int retry_queue_delays[8] = {1, 2, 4, 8, 16, 32, 64, 128};

int retry_queue_total_delay(void)
{
    int i, sum = 0;
    for (i = 0; i <= 8; i++)
        sum += retry_queue_delays[i];
    return sum;
}
"""

_NULL_PATH = """
int exception_report_amount(int id)
{
    struct exception_report_entry *hit = NULL;
    int i;
    for (i = 0; i < exception_report_used; i++) {
        if (exception_report_table[i].id == id) {
            hit = &exception_report_table[i];
            break;
        }
    }
    return hit->amount_cents;
}
"""

_LEAK = """
int export_csv_write_row(FILE *out, int id)
{
    char *row = malloc(128);
    if (row == NULL)
        return -1;
    snprintf(row, 128, "%d,%d", id, export_csv_used);
    if (id < 0)
        return -2;
    fputs(row, out);
    free(row);
    return 0;
}
"""


# ---------------------------------------------------------------- cppcheck


@case(
    "u106_cppcheck_enable_all_null_pointer",
    "cppcheck --enable=all (62 files)",
    clean=False,
    group=GROUP,
    decisive=["src/failed_payments.c:91:12: error: Null pointer dereference: match [nullPointer]"],
)
def _cppcheck_null(root: Path) -> bytes:
    _c_project(root, {"failed_payments": _NULL_MATCH})
    out = sh("cppcheck --enable=all --inconclusive --std=c11 -j1 -I src src/", root)
    return _settle(out, root)


@case(
    "u106_cppcheck_xml_out_of_bounds",
    "cppcheck --xml --enable=all",
    clean=False,
    group=GROUP,
    decisive=[
        'id="arrayIndexOutOfBounds" severity="error" msg="Array &apos;retry_queue_delays[8]&apos; accessed at index 8',
        '<location file="src/retry_queue.c" line="89" column="34" info="Array index out of bounds"/>',
    ],
)
def _cppcheck_xml(root: Path) -> bytes:
    _c_project(root, {"retry_queue": _OUT_OF_BOUNDS})
    out = sh("cppcheck --xml --enable=all --inconclusive --std=c11 -j1 -I src src/", root)
    return _settle(out, root)


@case(
    "u106_cppcheck_clean_information_only",
    "cppcheck --enable=warning,style,performance,portability,information",
    clean=True,
    group=GROUP,
    decisive=["61/61 files checked 100% done"],
)
def _cppcheck_clean(root: Path) -> bytes:
    _c_project(root, tests=True)
    enable = "warning,performance,portability,information"
    return _settle(sh(f"cppcheck --enable={enable} --std=c11 -j1 -I src src/ tests/", root), root)


# ---------------------------------------------------------------- clang-tidy

#: Where the clang-tidy scenarios build their code base: run-clang-tidy takes its files from a set, so a fixed
#: path (with a fixed hash seed) gives the same order on every run.
_FIXED = Path("/tmp/u106-payments")

_C_CHECKS = (
    "-*,readability-*,clang-analyzer-*,bugprone-*,-bugprone-easily-swappable-parameters,"
    "-readability-identifier-length,misc-*"
)


def _at_fixed(root: Path, run: Callable[[Path], bytes]) -> bytes:
    shutil.rmtree(_FIXED, ignore_errors=True)
    _FIXED.mkdir()
    try:
        out = run(_FIXED)
    finally:
        shutil.rmtree(_FIXED, ignore_errors=True)
    return _settle(out.replace(str(_FIXED).encode(), b"/tmp/work"), root)


@case(
    "u106_run_clang_tidy_null_dereference_path",
    "run-clang-tidy (31 C files)",
    clean=False,
    group=GROUP,
    decisive=[
        "warning: Access to field 'amount_cents' results in a dereference of a null pointer",
        "note: 'hit' initialized to a null pointer value",
    ],
)
def _tidy_null(root: Path) -> bytes:
    def run(where: Path) -> bytes:
        _c_project(where, {"exception_report": _NULL_PATH})
        return sh(f"run-clang-tidy -j 1 -p . -checks='{_C_CHECKS}' 'src/.*\\.c$'", where, env={"PYTHONHASHSEED": "0"})

    return _at_fixed(root, run)


@case(
    "u106_run_clang_tidy_clean",
    "run-clang-tidy (analyzer and bugprone checks, 61 C files)",
    clean=True,
    group=GROUP,
    decisive=["run-clang-tidy exit=0"],
)
def _tidy_clean(root: Path) -> bytes:
    checks = (
        "-*,clang-analyzer-*,bugprone-*,-bugprone-easily-swappable-parameters,"
        "-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling"
    )

    def run(where: Path) -> bytes:
        _c_project(where, tests=True)
        cmd = f"run-clang-tidy -j 1 -p . -checks='{checks}' '.*\\.c$'; echo \"run-clang-tidy exit=$?\""
        return sh(cmd, where, env={"PYTHONHASHSEED": "0"})

    return _at_fixed(root, run)


def _cpp_module(name: str, extra: str = "") -> dict[str, str]:
    cls = "".join(w.capitalize() for w in name.split("_"))
    up = name.upper()
    header = f"""\
// {name}.hpp: the {name.replace("_", " ")} part of the payments service.
#ifndef {up}_HPP
#define {up}_HPP

#include <string>
#include <vector>

namespace payments {{

struct {cls}Entry {{
    int id;
    int amount_cents;
    std::string label;
}};

class {cls} {{
public:
    {cls}();
    virtual ~{cls}() {{}}
    int add(int id, int amount_cents, const std::string &label);
    int total() const;
    std::string describe(int code) const;
    bool empty() const;
    int backoff_ms(int attempts) const;
    const {cls}Entry *find(int id) const;

private:
    std::vector<{cls}Entry> entries_;
    int used_;
}};

}}  // namespace payments

#endif
"""
    source = f"""\
// {name}.cpp: records, totals and retries of {name.replace("_", " ")}.
#include "{name}.hpp"

#include <cstddef>
#include <string>
#include <vector>

namespace payments {{

{cls}::{cls}() : used_(0) {{}}

int {cls}::add(int id, int amount_cents, const std::string &label) {{
    if (used_ >= 16) return -1;
    {cls}Entry e = {{id, amount_cents, label}};
    entries_.push_back(e);
    used_++;
    return 0;
}}

int {cls}::total() const {{
    int total = 0;
    for (std::vector<{cls}Entry>::const_iterator it = entries_.begin(); it != entries_.end(); ++it)
        total += it->amount_cents;
    return total;
}}

std::string {cls}::describe(int code) const {{
    if (code == 0) {{
        return "{name}: ok";
    }} else {{
        return "{name}: retry later";
    }}
}}

bool {cls}::empty() const {{ return entries_.size() == 0; }}

const {cls}Entry *{cls}::find(int id) const {{
    for (std::size_t i = 0; i < entries_.size(); i++) {{
        if (entries_[i].id == id) return &entries_[i];
    }}
    return NULL;
}}
{extra or _BACKOFF_OK.format(cls=cls)}
}}  // namespace payments
"""
    return {f"src/{name}.hpp": header, f"src/{name}.cpp": source}


_BACKOFF_OK = """
int {cls}::backoff_ms(int attempts) const {{
    int slots = 1;
    if (attempts > 8) {{
        slots = attempts - 8;
    }}
    return 60000 / slots;
}}
"""

_BACKOFF_ZERO = """
int RetryQueue::backoff_ms(int attempts) const {
    int slots = 0;
    if (attempts > 8) {
        slots = attempts - 8;
    }
    return 60000 / slots;
}
"""


def _cpp_project(root: Path, bugs: dict[str, str]) -> list[str]:
    files: dict[str, str] = {}
    for name in MODULES:
        files.update(_cpp_module(name, bugs.get(name, "")))
    write(root, files)
    sources = [f"src/{m}.cpp" for m in MODULES]
    commands = [
        {"directory": str(root), "file": str(root / s), "command": f"c++ -std=c++17 -O0 -g -Wall -c {s}"}
        for s in sources
    ]
    (root / "compile_commands.json").write_text(json.dumps(commands, indent=2) + "\n")
    return sources


@case(
    "u106_clang_tidy_cpp_divide_zero_as_error",
    "clang-tidy --warnings-as-errors (30 C++ files)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/retry_queue.cpp:49:18: error: Division by zero [clang-analyzer-core.DivideZero,-warnings-as-errors]",
        "note: 'slots' initialized to 0",
        "1 warning treated as error",
    ],
)
def _tidy_cpp(root: Path) -> bytes:
    sources = _cpp_project(root, {"retry_queue": _BACKOFF_ZERO})
    checks = "-*,modernize-*,readability-*,clang-analyzer-*,-modernize-use-trailing-return-type"
    cmd = f"clang-tidy -p . -checks='{checks}' --warnings-as-errors='clang-analyzer-*' {' '.join(sources)}"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- include-what-you-use


@case(
    "u106_iwyu_tool_unknown_type",
    "iwyu_tool (61 C files)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refund_failures.c:83:27: error: unknown type name 'retry_policy_t'",
        "int refund_failures_retry(retry_policy_t policy)",
    ],
)
def _iwyu(root: Path) -> bytes:
    policy = "\nint refund_failures_retry(retry_policy_t policy)\n{\n    return policy.max_attempts;\n}\n"
    _c_project(root, {"refund_failures": policy}, tests=True)
    return _settle(sh("iwyu_tool -p . -j 1", root), root)


# ---------------------------------------------------------------- scan-build


@case(
    "u106_scan_build_two_bugs",
    "scan-build make",
    clean=False,
    group=GROUP,
    decisive=[
        "warning: Access to field 'amount_cents' results in a dereference of a null pointer",
        "warning: Potential leak of memory pointed to by 'row' [unix.Malloc]",
        "scan-build: 2 bugs found.",
    ],
)
def _scan_two(root: Path) -> bytes:
    _c_project(root, {"exception_report": _NULL_PATH, "export_csv": _LEAK}, tests=True)
    out = sh("scan-build -o reports --use-cc=clang make -j1 CC=clang", root)
    return _settle(out, root)


@case(
    "u106_scan_build_clean",
    "scan-build make",
    clean=True,
    group=GROUP,
    decisive=["scan-build: No bugs found."],
)
def _scan_clean(root: Path) -> bytes:
    _c_project(root, tests=True)
    out = sh("scan-build -o reports --use-cc=clang make -j1 CC=clang", root)
    return _settle(out, root)


# ---------------------------------------------------------------- flawfinder


@case(
    "u106_flawfinder_level5_hit",
    "flawfinder --error-level=4",
    clean=False,
    group=GROUP,
    decisive=["src/audit_trail.c:86:  [5] (buffer) gets:", "Hits = 213"],
)
def _flaw_hit(root: Path) -> bytes:
    gets = (
        "\nint audit_trail_read_operator(void)\n{\n    char reason[64];\n"
        "    gets(reason);\n    return audit_trail_add(0, 0, reason);\n}\n"
    )
    _c_project(root, {"audit_trail": gets})
    out = sh("flawfinder --error-level=4 --minlevel=0 --context src/*.h src/*.c", root)
    return _settle(out, root)


@case(
    "u106_flawfinder_gate_passes_low_hits",
    "flawfinder --minlevel=2 --error-level=3",
    clean=True,
    group=GROUP,
    decisive=["Hits@level+ = [0+] 211 [1+]  90 [2+]  60 [3+]   0 [4+]   0 [5+]   0"],
)
def _flaw_clean(root: Path) -> bytes:
    _c_project(root, tests=True)
    out = sh("flawfinder --minlevel=2 --error-level=3 src/*.h src/*.c tests/*.c", root)
    return _settle(out, root)
