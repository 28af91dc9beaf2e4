"""Held-out outputs (group ``unseen-96``): a ninety-sixth batch, Ada and COBOL toolchains as an agent runs them on
generated projects, offline: GNAT's ``gnatmake`` and ``gprbuild`` over 24 to 60 units with ``-gnatwa`` warnings,
AUnit test runners built with ``gprbuild``, batch programs run by a nightly script, and GnuCOBOL's ``cobc``.

Failing runs: ``gnatmake -k -gnatwa -gnaty`` of 60 units whose style and unused warnings surround one type error in
``refunds_rules.adb``, ``gprbuild -p -k -v`` of two projects where ``failed_payments.adb`` names an undefined
``Retry_Limt``, a nightly script whose second Ada job raises ``CONSTRAINT_ERROR`` (a range check) in the middle of
three jobs' record lines, an AUnit runner with one failed assertion among 160 tests, ``make -k`` of 16 COBOL programs
with ``cobc -x -v -Wall`` where ``retry_queue.cob`` names an undefined field, and a COBOL settlement program stopped by
``libcob: error: subscript ... out of bounds`` after 3,116 records whose every line says ``ERROR-CODE``. Clean runs
named after errors and failures: ``gprbuild -p`` of 40 units (``error_codes``, ``failed_payments``,
``exception_report``) with warnings then the report program, ``gnatmake -v`` of 24 units then a program that handles
and logs ``CONSTRAINT_ERROR`` for retried payments, an AUnit runner whose 120 passing tests are named after failed
payments and raised errors, and ``cobc -x -Wall`` of 8 programs (``ERROR-CODES``, ``FAILED-PAYMENTS``,
``EXCEPTION-REPORT``) run one after another. Labels were written with each scenario, before the engine saw the
output. Needs GNAT 12 with gprbuild and AUnit, and GnuCOBOL 3.1 (Debian ``gnat``, ``gprbuild``, ``libaunit22-dev``,
``gnucobol``), with make and coreutils' stdbuf.
"""

from __future__ import annotations

from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-96"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder and cobc's temporary file names."""
    return substitute(
        scrub(out, root),
        (r"/tmp/cob\d+_", "/tmp/cob1000_"),
        (r"b__\w+\.o\.\w+", "b__main.o.tmp"),
    )


def _put(root: Path, files: dict[str, str]) -> None:
    """``files`` written as they are (COBOL's fixed format needs its seven leading columns, which ``write``
    would dedent)."""
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


def _pkg(name: str) -> str:
    return "_".join(p.capitalize() for p in name.split("_"))


_BASE = [
    "error_codes", "failed_payments", "retry_queue", "exception_report", "billing_core", "orders_queue",
    "cart_store", "tax_rates", "refunds_flow", "invoice_print", "ledger_post", "shipping_rates", "catalog_sync",
    "search_index", "pricing_rules", "coupons_apply", "webhooks_out", "audit_trail", "export_batch", "session_store",
]  # fmt: skip


def _units(count: int) -> list[str]:
    extra = [f"{w}_{s}" for s in ("rules", "report") for w in WORDS]
    names = [*_BASE, *[n for n in extra if n not in _BASE]]
    return names[:count]


# ---------------------------------------------------------------- Ada units


def _ada_unit(root: Path, sub: str, name: str, deps: list[str], k: int, *, broken: str = "", casing: bool = False):
    """A package ``name`` (spec and body) in ``root/sub``: ``Weight`` and ``Describe``; unused declarations and
    clauses by ``k`` (for -gnatwa); ``broken`` is a declaration that does not compile; ``casing`` writes some
    identifiers in another case (for -gnaty)."""
    pkg = _pkg(name)
    spec = (
        f"--  {name}: part of the payments platform.\npackage {pkg} is\n"
        "   function Weight (Cents : Natural) return Natural;\n"
        "   function Describe return String;\nend " + pkg + ";\n"
    )
    withs = "".join(f"with {_pkg(d)};\n" for d in deps)
    if k % 3 == 0:
        withs = "with Ada.Text_IO;\n" + withs
    decls = "      Total : Natural := Cents mod 97;\n"
    if k % 2 == 0:
        decls += f"      Spare_Count : Integer := {k};\n"
    if k % 4 == 1:
        decls += "      Last_Error_Code : Natural := 0;\n"
    decls += broken
    total = "total" if casing and k % 2 else "Total"
    stmts = "".join(f"      Total := ({total} + {_pkg(d)}.Describe'Length) mod 997;\n" for d in deps)
    if k % 4 == 1:
        stmts += "      Last_Error_Code := Total;\n"
    body = (
        f"{withs}package body {pkg} is\n\n"
        "   function Weight (Cents : Natural) return Natural is\n"
        f"{decls}   begin\n{stmts}      return {total};\n   end Weight;\n\n"
        f'   function Describe return String is\n   begin\n      return "{name}";\n   end Describe;\n\nend {pkg};\n'
    )
    write(root, {f"{sub}/{name}.ads": spec, f"{sub}/{name}.adb": body})


def _ada_main(root: Path, sub: str, main: str, names: list[str], tail: str = "") -> None:
    withs = "".join(f"with {_pkg(n)};\n" for n in names)
    lines = "".join(
        f'   Put_Line ("{n}: weight" & Natural\'Image ({_pkg(n)}.Weight (1999 + {i})));\n' for i, n in enumerate(names)
    )
    write(
        root,
        {
            f"{sub}/{main}.adb": f"with Ada.Text_IO; use Ada.Text_IO;\n{withs}procedure {_pkg(main)} is\nbegin\n"
            f"{lines}{tail}end {_pkg(main)};\n"
        },
    )


def _ada_project(root: Path, sub: str, names: list[str], *, broken_unit: str = "", broken: str = "", casing=False):
    for k, name in enumerate(names):
        deps = names[max(0, k - 2) : k]
        _ada_unit(root, sub, name, deps, k, broken=broken if name == broken_unit else "", casing=casing)


@case(
    "u96_gnatmake_k_type_error",
    "gnatmake",
    clean=False,
    group=GROUP,
    decisive=[
        'refunds_rules.adb:9:34: error: expected type "Standard.String"',
        'gnatmake: "refunds_rules.adb" compilation error',
    ],
)
def _gnatmake_fail(root: Path) -> bytes:
    names = _units(60)
    broken = "      Label : constant String := Total;\n"
    _ada_project(root, "src", names, broken_unit="refunds_rules", broken=broken, casing=True)
    _ada_main(root, "src", "payments_main", names)
    return _settle(sh("gnatmake -k -j1 -gnatwa -gnaty3abcefhiklmnprt payments_main.adb", root / "src"), root)


_GPR = """
project {name} is
   for Source_Dirs use ("{src}");
   for Object_Dir use "obj/{lower}";
   {main}
   package Compiler is
      for Default_Switches ("Ada") use ("-g", "-O0", "-gnatwa", "-gnata");
   end Compiler;
end {name};
"""


@case(
    "u96_gprbuild_v_undefined",
    "gprbuild",
    clean=False,
    group=GROUP,
    decisive=['failed_payments.adb:10:18: error: "Retry_Limt" is undefined', "compilation phase failed"],
)
def _gprbuild_fail(root: Path) -> bytes:
    common = _units(60)[20:48]
    payments = _units(20)
    _ada_project(root, "common/src", common)
    _ada_project(root, "payments/src", payments)
    body = (root / "payments/src/failed_payments.adb").read_text()
    body = body.replace(
        "      return Total;",
        "      if Total > Retry_Limt then\n         Total := 0;\n      end if;\n      return Total;",
    )
    (root / "payments/src/failed_payments.adb").write_text(body)
    _ada_main(root, "payments/src", "settle_payments", payments + common)
    write(
        root,
        {
            "common/common.gpr": _GPR.format(name="Common", src="src", lower="common", main=""),
            "payments/payments.gpr": 'with "../common/common.gpr";\n'
            + _GPR.format(name="Payments", src="src", lower="payments", main='for Main use ("settle_payments.adb");'),
        },
    )
    return _settle(sh("gprbuild -p -k -j1 -v -P payments/payments.gpr", root), root)


@case(
    "u96_gprbuild_clean_exception_report",
    "gprbuild",
    clean=True,
    group=GROUP,
    decisive=["exception_report: 40 units reconciled, report written"],
)
def _gprbuild_clean(root: Path) -> bytes:
    names = _units(40)
    _ada_project(root, "src", names)
    tail = (
        "   for Row in 1 .. 400 loop\n"
        '      Put_Line ("exception_report: row" & Integer\'Image (Row) & " failed_payments" &\n'
        '                Integer\'Image (Row mod 7) & " error_codes" & Integer\'Image (Row mod 13) & " retried");\n'
        "   end loop;\n"
        '   Put_Line ("exception_report: 40 units reconciled, report written");\n'
    )
    _ada_main(root, "src", "exception_report_main", names, tail)
    write(root, {"reports.gpr": _GPR.format(name="Reports", src="src", lower="reports", main=_MAIN_ER)})
    return _settle(sh("gprbuild -p -j1 -P reports.gpr && ./obj/reports/exception_report_main", root), root)


_MAIN_ER = 'for Main use ("exception_report_main.adb");'


# ---------------------------------------------------------------- Ada batch programs


def _job(name: str, records: int, fail_at: int = 0) -> str:
    """An Ada batch job printing one line per record; ``fail_at`` makes its retry counter leave its range there."""
    step = fail_at // 6 if fail_at else records + 1
    return (
        "with Ada.Text_IO; use Ada.Text_IO;\n"
        f"procedure {_pkg(name)} is\n"
        "   subtype Attempt_Count is Integer range 0 .. 5;\n"
        "   Attempts : Attempt_Count := 0;\n"
        "   Retried  : Natural := 0;\n"
        "begin\n"
        f'   Put_Line ("{name}: starting, {records} records");\n'
        f"   for Rec in 1 .. {records} loop\n"
        "      if Rec mod 11 = 0 then\n"
        "         Retried := Retried + 1;\n"
        f'         Put_Line ("{name}: record" & Integer\'Image (Rec) & " failed_payment PAY-" &\n'
        '                   Integer\'Image (100000 + Rec * 7) & " queued for retry");\n'
        "      else\n"
        f'         Put_Line ("{name}: record" & Integer\'Image (Rec) & " settled amount" &\n'
        "                   Integer'Image (Rec * 13 mod 9973));\n"
        "      end if;\n"
        f"      if Rec mod {step} = 0 then\n"
        "         Attempts := Attempts + 1;\n"
        "      end if;\n"
        "   end loop;\n"
        f'   Put_Line ("{name}: done," & Natural\'Image (Retried) & " records queued for retry");\n'
        f"end {_pkg(name)};\n"
    )


_NIGHTLY = """\
#!/bin/sh
# Nightly payments batch: build the jobs, then run them one after another.
gnatmake -q -gnatwa ledger_export_job.adb retry_queue_job.adb exception_report_job.adb || exit 2
for job in ledger_export_job retry_queue_job exception_report_job; do
  echo "== $job"
  stdbuf -oL ./$job
  echo "== $job exited with status $?"
done
"""


@case(
    "u96_ada_nightly_constraint_error",
    "ada",
    clean=False,
    group=GROUP,
    decisive=[
        "raised CONSTRAINT_ERROR : retry_queue_job.adb:18 range check failed",
        "== retry_queue_job exited with status 1",
    ],
)
def _nightly(root: Path) -> bytes:
    write(
        root,
        {
            "ledger_export_job.adb": _job("ledger_export_job", 1500),
            "retry_queue_job.adb": _job("retry_queue_job", 2400, fail_at=1260),
            "exception_report_job.adb": _job("exception_report_job", 1800),
            "run_nightly.sh": _NIGHTLY,
        },
    )
    return _settle(sh("sh run_nightly.sh", root), root)


_HANDLER_MAIN = """\
with Ada.Text_IO; use Ada.Text_IO;
{withs}procedure Reconcile_Failed_Payments is
   subtype Attempt_Count is Integer range 0 .. 5;
   Retried, Settled : Natural := 0;
   procedure Settle (Rec : Positive) is
      Attempts : Attempt_Count := 0;
   begin
      Attempts := Attempts + Rec mod 8;
      Settled := Settled + 1;
      Put_Line ("payment" & Integer'Image (Rec) & " settled after" & Integer'Image (Attempts) & " attempts");
   exception
      when E : Constraint_Error =>
         Retried := Retried + 1;
         Put_Line ("payment" & Integer'Image (Rec) & ": handled CONSTRAINT_ERROR (retry limit), queued for retry");
   end Settle;
begin
{calls}   for Rec in 1 .. 640 loop
      Settle (Rec);
   end loop;
   Put_Line ("reconcile_failed_payments: " & Natural'Image (Settled) & " settled," & Natural'Image (Retried)
             & " queued for retry, 0 unhandled");
end Reconcile_Failed_Payments;
"""


@case(
    "u96_gnatmake_v_clean_handled",
    "gnatmake",
    clean=True,
    group=GROUP,
    decisive=["reconcile_failed_payments:  480 settled, 160 queued for retry, 0 unhandled"],
)
def _gnatmake_clean(root: Path) -> bytes:
    names = _units(24)
    _ada_project(root, "src", names)
    withs = "".join(f"with {_pkg(n)};\n" for n in names)
    calls = "".join(f'   Put_Line ("{n}:" & Natural\'Image ({_pkg(n)}.Weight (42)));\n' for n in names)
    write(root, {"src/reconcile_failed_payments.adb": _HANDLER_MAIN.format(withs=withs, calls=calls)})
    cmd = "gnatmake -v -j1 -gnatwa reconcile_failed_payments.adb && ./reconcile_failed_payments"
    return _settle(sh(cmd, root / "src"), root)


# ---------------------------------------------------------------- AUnit


def _aunit_project(root: Path, areas: list[str], wrong: tuple[str, int] | None, phrase: str) -> None:
    files: dict[str, str] = {}
    for i, area in enumerate(areas):
        rate = 3 + i
        pkg = _pkg(area)
        files[f"src/{area}.ads"] = (
            f"package {pkg} is\n   function Fee (Cents : Natural) return Natural is (Cents * {rate} / 100);\n"
            f"end {pkg};\n"
        )
        routines, regs = [], []
        for j in range(1, 9):
            cents = 100 * j + 7 * i
            want = cents * rate // 100
            if wrong == (area, j):
                want += 1
            routines.append(
                f"   procedure Test_Fee_{j} (T : in out Test_Cases.Test_Case'Class) is\n"
                "      pragma Unreferenced (T);\n   begin\n"
                f'      Assert ({pkg}.Fee ({cents}) = {want}, "fee of {cents} cents should be {want}");\n'
                f"   end Test_Fee_{j};\n"
            )
            regs.append(f'      Register_Routine (T, Test_Fee_{j}\'Access, "{area} {phrase} {j}");\n')
        files[f"tests/{area}_tests.ads"] = (
            "with AUnit; use AUnit;\nwith AUnit.Test_Cases; use AUnit.Test_Cases;\n"
            f"package {pkg}_Tests is\n   type Test is new Test_Cases.Test_Case with null record;\n"
            "   overriding procedure Register_Tests (T : in out Test);\n"
            "   overriding function Name (T : Test) return Message_String;\n"
            f"end {pkg}_Tests;\n"
        )
        files[f"tests/{area}_tests.adb"] = (
            f"with AUnit.Assertions; use AUnit.Assertions;\nwith {pkg};\n"
            f"package body {pkg}_Tests is\n   use AUnit.Test_Cases.Registration;\n\n"
            + "\n".join(routines)
            + "\n   overriding procedure Register_Tests (T : in out Test) is\n   begin\n"
            + "".join(regs)
            + "   end Register_Tests;\n\n   overriding function Name (T : Test) return Message_String is\n"
            f'      pragma Unreferenced (T);\n   begin\n      return Format ("{pkg}_Tests");\n   end Name;\n'
            f"end {pkg}_Tests;\n"
        )
    adds = "".join(f"      Result.Add_Test (new {_pkg(a)}_Tests.Test);\n" for a in areas)
    files["tests/payments_suite.ads"] = (
        "with AUnit.Test_Suites; use AUnit.Test_Suites;\npackage Payments_Suite is\n"
        "   function Suite return Access_Test_Suite;\nend Payments_Suite;\n"
    )
    files["tests/payments_suite.adb"] = (
        "".join(f"with {_pkg(a)}_Tests;\n" for a in areas)
        + "package body Payments_Suite is\n   function Suite return Access_Test_Suite is\n"
        "      Result : constant Access_Test_Suite := new Test_Suite;\n   begin\n"
        + adds
        + "      return Result;\n   end Suite;\nend Payments_Suite;\n"
    )
    files["tests/test_payments.adb"] = (
        "with Ada.Command_Line;\nwith AUnit; use AUnit;\nwith AUnit.Reporter.Text;\nwith AUnit.Run;\n"
        "with Payments_Suite;\nprocedure Test_Payments is\n"
        "   function Runner is new AUnit.Run.Test_Runner_With_Status (Payments_Suite.Suite);\n"
        "   Reporter : AUnit.Reporter.Text.Text_Reporter;\nbegin\n"
        "   if Runner (Reporter) /= Success then\n      Ada.Command_Line.Set_Exit_Status (Ada.Command_Line.Failure);\n"
        "   end if;\nend Test_Payments;\n"
    )
    files["tests.gpr"] = (
        'with "aunit";\nproject Tests is\n   for Source_Dirs use ("src", "tests");\n   for Object_Dir use "obj";\n'
        '   for Main use ("test_payments.adb");\n   package Compiler is\n'
        '      for Default_Switches ("Ada") use ("-g", "-gnatwa", "-gnata");\n   end Compiler;\nend Tests;\n'
    )
    write(root, files)


@case(
    "u96_aunit_one_failure",
    "aunit",
    clean=False,
    group=GROUP,
    decisive=["retry_queue fee is charged 5", "fee of 514 cents should be 26", "Failed Assertions: 1"],
)
def _aunit_fail(root: Path) -> bytes:
    _aunit_project(root, _units(20), ("retry_queue", 5), "fee is charged")
    return _settle(sh("gprbuild -p -j1 -P tests.gpr && ./obj/test_payments", root), root)


@case(
    "u96_aunit_clean_failed_payment_tests",
    "aunit",
    clean=True,
    group=GROUP,
    decisive=["Failed Assertions: 0", "Unexpected Errors: 0"],
)
def _aunit_clean(root: Path) -> bytes:
    _aunit_project(root, _units(15), None, "failed payment raises error and is retried")
    return _settle(sh("gprbuild -p -j1 -P tests.gpr && ./obj/test_payments", root), root)


# ---------------------------------------------------------------- GnuCOBOL


def _cob(pid: str, records: int, ok: str, fail: str, summary: str, *, warn: bool, bad: bool = False) -> str:
    src = [
        "       IDENTIFICATION DIVISION.",
        f"       PROGRAM-ID. {pid}.",
        "       DATA DIVISION.",
        "       WORKING-STORAGE SECTION.",
        "       01 WS-IDX            PIC 9(5) VALUE 0.",
        "       01 WS-AMOUNT         PIC 9(7) VALUE 0.",
        "       01 WS-TOTAL          PIC 9(9) VALUE 0.",
        "       01 WS-FAILED         PIC 9(5) VALUE 0.",
        "       01 WS-SHORT          PIC 9(3) VALUE 0.",
        "       PROCEDURE DIVISION.",
        "       MAIN-PARA.",
    ]
    if warn:
        src.append("           MOVE 12345 TO WS-SHORT")
    if bad:
        src.append("           MOVE WS-RETRY-LIMT TO WS-SHORT")
    src += [
        f"           PERFORM VARYING WS-IDX FROM 1 BY 1 UNTIL WS-IDX > {records}",
        "               COMPUTE WS-AMOUNT = WS-IDX * 7",
        "               ADD WS-AMOUNT TO WS-TOTAL",
        "               IF FUNCTION MOD(WS-IDX, 9) = 0",
        "                   ADD 1 TO WS-FAILED",
        f'                   DISPLAY "{fail} " WS-IDX',
        "               ELSE",
        f'                   DISPLAY "{ok} " WS-IDX " " WS-AMOUNT',
        "               END-IF",
        "           END-PERFORM",
        f'           DISPLAY "{summary} " WS-FAILED',
        "           STOP RUN.",
    ]
    assert all(len(line) <= 72 for line in src), pid
    return "\n".join(src) + "\n"


_COB_PROGRAMS = [
    ("error_codes", "ERROR-CODES"), ("failed_payments", "FAILED-PAYMENTS"), ("retry_queue", "RETRY-QUEUE"),
    ("exception_report", "EXCEPTION-REPORT"), ("billing_run", "BILLING-RUN"), ("ledger_post", "LEDGER-POST"),
    ("invoice_print", "INVOICE-PRINT"), ("tax_calc", "TAX-CALC"), ("refunds_flow", "REFUNDS-FLOW"),
    ("shipping_rates", "SHIPPING-RATES"), ("coupons_apply", "COUPONS-APPLY"), ("audit_trail", "AUDIT-TRAIL"),
    ("orders_close", "ORDERS-CLOSE"), ("cart_expire", "CART-EXPIRE"), ("pricing_sync", "PRICING-SYNC"),
    ("webhooks_send", "WEBHOOKS-SEND"),
]  # fmt: skip


@case(
    "u96_cobc_make_k_undefined",
    "cobc",
    clean=False,
    group=GROUP,
    decisive=["src/retry_queue.cob:12: error: 'WS-RETRY-LIMT' is not defined", "bin/retry_queue] Error 1"],
)
def _cobc_make_fail(root: Path) -> bytes:
    files = {}
    for k, (fname, pid) in enumerate(_COB_PROGRAMS):
        files[f"src/{fname}.cob"] = _cob(pid, 100, "OK", "FAILED", "DONE", warn=k % 3 == 0, bad=fname == "retry_queue")
    targets = " ".join(f"bin/{f}" for f, _ in _COB_PROGRAMS)
    files["Makefile"] = f"all: {targets}\n\nbin/%: src/%.cob\n\t@mkdir -p bin\n\tcobc -x -v -Wall -o $@ $<\n"
    _put(root, files)
    return _settle(sh("make -k", root), root)


@case(
    "u96_cobc_clean_reports",
    "cobc",
    clean=True,
    group=GROUP,
    decisive=["EXCEPTION-REPORT COMPLETE, ESCALATED:"],
)
def _cobc_clean(root: Path) -> bytes:
    progs = [
        ("error_codes", "ERROR-CODES", "ERROR-CODE LOADED", "ERROR-CODE RETRYABLE", "ERROR-CODES LOADED, RETRYABLE:"),
        ("failed_payments", "FAILED-PAYMENTS", "PAYMENT SETTLED", "PAYMENT FAILED, RETRY", "FAILED-PAYMENTS DONE:"),
        ("retry_queue", "RETRY-QUEUE", "RETRY OK", "RETRY DEFERRED", "RETRY-QUEUE DRAINED, DEFERRED:"),
        ("ledger_post", "LEDGER-POST", "LEDGER POSTED", "LEDGER HELD", "LEDGER-POST DONE, HELD:"),
        ("refunds_flow", "REFUNDS-FLOW", "REFUND ISSUED", "REFUND REJECTED", "REFUNDS-FLOW DONE, REJECTED:"),
        ("audit_trail", "AUDIT-TRAIL", "AUDIT OK", "AUDIT EXCEPTION LOGGED", "AUDIT-TRAIL DONE, EXCEPTIONS:"),
        ("invoice_print", "INVOICE-PRINT", "INVOICE PRINTED", "INVOICE ERROR SKIPPED", "INVOICE-PRINT DONE:"),
        ("exception_report", "EXCEPTION-REPORT", "EXCEPTION CLOSED", "EXCEPTION ESCALATED", ""),
    ]
    files, runs = {}, []
    for k, (fname, pid, ok, fail, summary) in enumerate(progs):
        summary = summary or "EXCEPTION-REPORT COMPLETE, ESCALATED:"
        files[f"{fname}.cob"] = _cob(pid, 180, ok, fail, summary, warn=k % 3 == 1)
        runs.append(f"cobc -x -Wall {fname}.cob && ./{fname}")
    _put(root, files)
    return _settle(sh(" && ".join(runs), root), root)


_SETTLE = """\
       IDENTIFICATION DIVISION.
       PROGRAM-ID. SETTLE-FAILED-PAYMENTS.
       ENVIRONMENT DIVISION.
       INPUT-OUTPUT SECTION.
       FILE-CONTROL.
           SELECT PAYMENTS-FILE ASSIGN TO "failed_payments.dat"
               ORGANIZATION IS LINE SEQUENTIAL.
       DATA DIVISION.
       FILE SECTION.
       FD PAYMENTS-FILE.
       01 PAYMENT-REC.
          05 PAY-ID          PIC X(9).
          05 PAY-AMOUNT      PIC 9(7).
          05 PAY-CODE        PIC 9(2).
       WORKING-STORAGE SECTION.
       01 WS-EOF             PIC X VALUE "N".
       01 WS-COUNT           PIC 9(6) VALUE 0.
       01 WS-RETRY           PIC 9(6) VALUE 0.
       01 WS-TABLE.
          05 WS-CODE-ENTRY OCCURS 60 TIMES.
             10 WS-CODE-HITS PIC 9(6) VALUE 0.
       PROCEDURE DIVISION.
       MAIN-PARA.
           OPEN INPUT PAYMENTS-FILE
           PERFORM UNTIL WS-EOF = "Y"
               READ PAYMENTS-FILE
                   AT END MOVE "Y" TO WS-EOF
                   NOT AT END PERFORM PROCESS-PARA
               END-READ
           END-PERFORM
           CLOSE PAYMENTS-FILE
           DISPLAY "SETTLED " WS-COUNT " RETRY " WS-RETRY
           STOP RUN.
       PROCESS-PARA.
           ADD 1 TO WS-COUNT
           ADD 1 TO WS-CODE-HITS(PAY-CODE)
           IF PAY-CODE > 40
               ADD 1 TO WS-RETRY
           END-IF
           DISPLAY "PAYMENT " PAY-ID " AMOUNT " PAY-AMOUNT
               " ERROR-CODE " PAY-CODE " HITS " WS-CODE-HITS(PAY-CODE).
"""


@case(
    "u96_cobol_subscript_runtime",
    "cobc",
    clean=False,
    group=GROUP,
    decisive=[
        "error: subscript of 'WS-CODE-HITS' out of bounds: 75",
        "Last statement of SETTLE-FAILED-PAYMENTS was at line",
    ],
)
def _cobol_runtime(root: Path) -> bytes:
    rows = []
    for n in range(1, 5001):
        code = 75 if n == 3117 else 1 + (n * 37) % 60
        rows.append(f"PAY{n:06d}{(n * 4513) % 9999999:07d}{code:02d}")
    _put(root, {"settle_failed_payments.cob": _SETTLE, "failed_payments.dat": "\n".join(rows) + "\n"})
    cmd = "cobc -x -debug -Wall settle_failed_payments.cob && stdbuf -oL ./settle_failed_payments"
    return _settle(sh(cmd, root), root)
