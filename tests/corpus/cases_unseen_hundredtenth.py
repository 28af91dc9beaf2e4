"""Held-out outputs (group ``unseen-110``): a hundred-and-tenth batch, WebAssembly toolchains as an agent runs them
on a generated payments module, offline: wabt's ``wat2wasm``, ``wasm-validate``, ``wasm-objdump``, ``wasm2wat`` and
``wasm-interp``, and binaryen's ``wasm-opt``, over text-format modules written by each scenario and named after the
business (``failed_payments``, ``error_codes``, ``retry_queue``, ``exception_report``).

Failing runs: ``make -k`` of 40 modules with ``wat2wasm -v`` (its byte-by-byte binary dump) where ``refund_rules.wat``
adds an i64 to an i32 in the middle, ``wasm-validate -v`` (its reader log) over 44 modules where one, built with
``--no-check``, is invalid, a ``wasm-opt -O3 --asyncify --metrics`` loop over 18 modules with Asyncify warnings where
``ledger_sync`` uses ``memory.copy`` with bulk memory disabled, ``wasm-interp --run-all-exports`` over 480 test exports
where one divides by zero installments, and ``wasm-interp --trace`` of the retry queue's tests where
``drain_dead_letters`` reaches ``unreachable``. Clean runs named after errors and failures: ``wasm-objdump -x -d`` of a
large ``failed_payments`` module, ``wasm-opt --metrics -O3 --metrics`` of ``exception_report``, ``wasm2wat`` of
``error_codes``, a ``make`` build with ``wasm-validate`` and ``wasm-objdump -h`` of 30 modules, and ``wasm-interp``
over the tests of ``failed_payments``, ``retry_queue`` and ``exception_report``. Labels were written with each
scenario, before the engine saw the output. Needs wabt 1.0.32 and binaryen 108 (Debian ``wabt``, ``binaryen``) and make.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, write

GROUP = "unseen-110"

_AREAS = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "billing", "orders", "cart", "tax",
    "refund_rules", "invoice", "ledger_sync", "shipping", "catalog", "pricing", "coupons", "webhooks", "audit",
    "export_jobs", "session_keys", "auth_tokens",
]  # fmt: skip


def _fee(name: str, i: int, bad: str = "") -> str:
    """One fee function of module ``name``: a loop over the attempts, calling the previous fee now and then."""
    k = 7 + (i * 5) % 23
    call = f"    local.get $amount\n    i32.const 3\n    call $fee_{i - 1}\n    i32.add\n" if i % 4 else ""
    step = "    i64.const 3\n" if bad == "type" else f"    i32.const {k}\n"
    return (
        f'  (func $fee_{i} (export "{name}_fee_{i}") (param $amount i32) (param $attempts i32) (result i32)\n'
        "    (local $acc i32) (local $i i32)\n"
        f"    i32.const {i + 1}\n    local.set $acc\n"
        "    block $done\n      loop $next\n"
        "        local.get $i\n        local.get $attempts\n        i32.ge_u\n        br_if $done\n"
        f"        local.get $acc\n        local.get $amount\n        i32.const {k}\n        i32.mul\n        i32.add\n"
        "        i32.const 65521\n        i32.rem_u\n        local.set $acc\n"
        "        local.get $i\n        i32.const 1\n        i32.add\n        local.set $i\n        br $next\n"
        "      end\n    end\n"
        f"    local.get $acc\n{step}    i32.add\n{call}  )\n"
    )


def _wat(
    name: str, nfuncs: int, *, ntests: int = 0, bad: str = "", extra: str = "", attempts: int = 4, extra_at: int = -1
) -> str:
    """A payments module: a memory with its messages, a retry limit, ``nfuncs`` fee functions and ``ntests``
    argument-less test exports (``extra`` before test ``extra_at``, else at the end); ``bad`` breaks one function
    ("type") or adds a bulk-memory copy ("bulk")."""
    parts = [
        f"(module ${name}\n",
        '  (memory (export "memory") 1)\n',
        '  (global $retry_limit (export "retry_limit") i32 (i32.const 5))\n',
        f'  (data (i32.const 16) "{name}: card declined (error code 51)\\00")\n',
        f'  (data (i32.const 64) "{name}: retry scheduled after failed attempt\\00")\n',
    ]
    for i in range(nfuncs):
        parts.append(_fee(name, i, bad if bad == "type" and i == nfuncs // 2 else ""))
    if bad == "bulk":
        parts.append(
            '  (func $copy_failed_batch (export "copy_failed_batch") (param $dst i32) (param $len i32)\n'
            "    local.get $dst\n    i32.const 16\n    local.get $len\n    memory.copy)\n"
        )
    for t in range(ntests):
        f = t % nfuncs
        if t == extra_at:
            parts.append(extra)
        parts.append(
            f'  (func (export "test_{name}_fee_{f}_amount_{100 + t}") (result i32)\n'
            f"    i32.const {100 + t}\n    i32.const {1 + t % attempts}\n    call $fee_{f})\n"
        )
    parts.append(extra if extra_at < 0 else "")
    parts.append(")\n")
    return "".join(parts)


def _makefile(modules: list[str], recipe: str) -> str:
    targets = " ".join(f"build/{m}.wasm" for m in modules)
    return f"all: {targets}\n\nbuild/%.wasm: src/%.wat\n\t@mkdir -p build\n\t{recipe}\n"


def _modules(n: int) -> list[str]:
    return [f"{a}" if i < len(_AREAS) else f"{a}_v2" for i, a in enumerate((_AREAS * 3)[:n])]


@case(
    "u110_wat2wasm_make_type_error",
    "wat2wasm",
    clean=False,
    group=GROUP,
    decisive=[
        "error: type mismatch in i32.add, expected [i32, i32] but got [i32, i64]",
        "build/refund_rules.wasm] Error 1",
        "Target 'all' not remade because of errors.",
    ],
)
def _wat2wasm_make(root: Path) -> bytes:
    modules = _modules(40)
    files = {f"src/{m}.wat": _wat(m, 6, bad="type" if m == "refund_rules" else "") for m in modules}
    files["Makefile"] = _makefile(modules, "wat2wasm -v --debug-names $< -o $@")
    write(root, files)
    return scrub(sh("make -k -j1", root), root)


def _build(root: Path, modules: list[str], nfuncs: int = 8, **kw: object) -> None:
    write(root, {f"src/{m}.wat": _wat(m, nfuncs, **kw) for m in modules})  # type: ignore[arg-type]
    (root / "build").mkdir()
    for m in modules:
        sh(f"wat2wasm --debug-names src/{m}.wat -o build/{m}.wasm", root)


@case(
    "u110_wasm_validate_verbose_invalid",
    "wasm-validate",
    clean=False,
    group=GROUP,
    decisive=[
        "error: type mismatch in i32.add, expected [i32, i32] but got [i32, i64]",
        "[exit status 1]",
    ],
)
def _validate_invalid(root: Path) -> bytes:
    modules = _modules(44)
    _build(root, [m for m in modules if m != "invoice_v2"], nfuncs=4)
    write(root, {"src/invoice_v2.wat": _wat("invoice_v2", 4, bad="type")})
    sh("wat2wasm --no-check --debug-names src/invoice_v2.wat -o build/invoice_v2.wasm", root)
    loop = 'rc=0; for f in build/*.wasm; do echo "== $f"; wasm-validate -v "$f" || rc=1; done; exit $rc'
    return scrub(sh(loop, root), root)


@case(
    "u110_wasm_opt_bulk_memory_fatal",
    "wasm-opt",
    clean=False,
    group=GROUP,
    decisive=[
        "unexpected false: Bulk memory operation (bulk memory is disabled)",
        "Fatal: error validating input",
        "== ledger_sync",
    ],
)
def _wasm_opt_fatal(root: Path) -> bytes:
    modules = _AREAS[:18]
    for m in modules:
        _build(root / "x" / m, [m], nfuncs=10, bad="bulk" if m == "ledger_sync" else "")
        (root / "build").mkdir(exist_ok=True)
        (root / "x" / m / "build" / f"{m}.wasm").rename(root / "build" / f"{m}.wasm")
    loop = (
        "mkdir -p dist; rc=0; for m in " + " ".join(modules) + '; do echo "== $m"; '
        "wasm-opt build/$m.wasm -O3 --asyncify --pass-arg=asyncify-imports@env.sleep "
        "--pass-arg=asyncify-removelist@${m}_fee_0,${m}_retry_hook --metrics -o dist/$m.wasm || rc=$?; done; exit $rc"
    )
    return scrub(sh(loop, root), root)


_DIVIDE = """
  (func $split_installments (export "split_installments") (param $amount i32) (param $n i32) (result i32)
    local.get $amount
    local.get $n
    i32.div_u)
  (func (export "test_split_fee_by_zero_installments") (result i32)
    i32.const 4999
    i32.const 0
    call $split_installments)
  (func (export "test_split_fee_by_three_installments") (result i32)
    i32.const 4999
    i32.const 3
    call $split_installments)
"""


@case(
    "u110_wasm_interp_divide_by_zero",
    "wasm-interp",
    clean=False,
    group=GROUP,
    decisive=["test_split_fee_by_zero_installments() => error: integer divide by zero"],
)
def _interp_div(root: Path) -> bytes:
    text = _wat("settlement", 24, ntests=480, extra=_DIVIDE, extra_at=290)
    write(root, {"src/settlement.wat": text})
    sh("wat2wasm --debug-names src/settlement.wat -o settlement.wasm", root)
    return scrub(sh("wasm-interp settlement.wasm --run-all-exports", root), root)


_DRAIN = """
  (func $drain_dead_letters (export "drain_dead_letters") (result i32)
    (local $n i32)
    i32.const 9
    local.set $n
    local.get $n
    global.get $retry_limit
    i32.gt_u
    if
      unreachable
    end
    local.get $n)
"""


@case(
    "u110_wasm_interp_trace_unreachable",
    "wasm-interp",
    clean=False,
    group=GROUP,
    decisive=['>>> running export "drain_dead_letters":', "drain_dead_letters() => error: unreachable executed"],
)
def _interp_trace(root: Path) -> bytes:
    text = _wat("retry_queue", 8, ntests=24, extra=_DRAIN, attempts=3, extra_at=13)
    write(root, {"src/retry_queue.wat": text})
    sh("wat2wasm --debug-names src/retry_queue.wat -o retry_queue.wasm", root)
    return scrub(sh("wasm-interp --trace retry_queue.wasm --run-all-exports", root), root)


@case(
    "u110_wasm_objdump_failed_payments_clean",
    "wasm-objdump",
    clean=True,
    group=GROUP,
    decisive=["failed_payments.wasm:\tfile format wasm 0x1", "Code Disassembly:"],
)
def _objdump(root: Path) -> bytes:
    _build(root, ["failed_payments"], nfuncs=120, ntests=60)
    return scrub(sh("wasm-objdump -x -d build/failed_payments.wasm", root), root)


@case(
    "u110_wasm_opt_metrics_exception_report_clean",
    "wasm-opt",
    clean=True,
    group=GROUP,
    decisive=["Block          : 120          -60"],
)
def _opt_clean(root: Path) -> bytes:
    _build(root, ["exception_report"], nfuncs=60, ntests=40)
    cmd = (
        "wasm-opt build/exception_report.wasm --metrics -O3 --metrics -o exception_report.opt.wasm"
        " && wasm-objdump -h exception_report.opt.wasm && wasm-objdump -x -j Export exception_report.opt.wasm"
    )
    return scrub(sh(cmd, root), root)


@case(
    "u110_wasm2wat_error_codes_clean",
    "wasm2wat",
    clean=True,
    group=GROUP,
    decisive=["(module $error_codes"],
)
def _wasm2wat(root: Path) -> bytes:
    _build(root, ["error_codes"], nfuncs=40, ntests=40)
    return scrub(sh("wasm2wat --fold-exprs build/error_codes.wasm", root), root)


@case(
    "u110_make_validate_objdump_clean",
    "make",
    clean=True,
    group=GROUP,
    decisive=["failed_payments.wasm:\tfile format wasm 0x1"],
)
def _make_clean(root: Path) -> bytes:
    modules = _modules(30)
    files = {f"src/{m}.wat": _wat(m, 6, ntests=4) for m in modules}
    recipe = "wat2wasm --debug-names $< -o $@\n\twasm-validate $@\n\twasm-objdump -h $@"
    files["Makefile"] = _makefile(modules, recipe)
    write(root, files)
    return scrub(sh("make -j1", root), root)


@case(
    "u110_wasm_interp_payments_tests_clean",
    "wasm-interp",
    clean=True,
    group=GROUP,
    decisive=["test_exception_report_fee_11_amount_219() => i32:"],
)
def _interp_clean(root: Path) -> bytes:
    modules = ["failed_payments", "retry_queue", "exception_report"]
    _build(root, modules, nfuncs=12, ntests=120)
    loop = "for m in " + " ".join(modules) + '; do echo "== $m"; wasm-interp build/$m.wasm --run-all-exports; done'
    return scrub(sh(loop, root), root)
