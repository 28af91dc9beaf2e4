"""Held-out outputs (group ``unseen-14``): a fourteenth batch, to measure the engine after thirteen rounds of fixes.

Languages and toolchains the corpus had not seen: ``gfortran`` (a compile loop over 150 units with
one type mismatch among ``-Wall`` warnings, and a bounds-checked program that dies with a runtime
error and a backtrace after 1,800 rows), Free Pascal (``fpc -vewnhi`` over 60 units with one unknown
identifier), OCaml through ``dune build --display short`` (100 modules, one type error), Erlang (a
2 MB ``escript`` settlement log with one worker's crash report in the middle), Elixir (ExUnit with
``trace: true`` through ``elixir -r``, one failing assertion among 300 tests), ``nim c
--verbosity:2`` with one undeclared identifier, an ``Rscript`` report that warns many times and then
stops on a subscript out of bounds, an ``ant -verbose`` build whose ``javac`` task fails on one of
200 classes, a ``nasm`` loop over 300 sources with one invalid operand combination among orphan-label
warnings, and from the npm registry ``ava`` (one failing test among 400) and ``rollup`` (40 bundles,
unresolved bare imports warned about, one relative import that does not resolve). Clean runs whose
text talks about errors: an EUnit ``verbose`` run of ``error_handling_tests`` and
``crash_recovery_tests``, ``babel --verbose`` compiling ``src/errors/fatal_error.js`` and friends, a
``nim c -r`` unittest suite named ``errors`` (``invalid input raises ValueError``), and an ``ant``
build with a ``junit`` task over ``ErrorReporterTest`` (``Failures: 0, Errors: 0``). Labels were
written with each scenario, before the engine saw the output. Needs ``gfortran``, ``fp-compiler``,
``ocaml-nox``, ``dune``, ``erlang-nox``, ``erlang-dev``, ``elixir``, ``nim``, ``r-base-core``, ``ant``,
``ant-optional``, ``junit4`` and ``nasm`` (Debian packages), and the npm registry.
"""

from __future__ import annotations

from pathlib import Path

from _harness import WORDS, case, scrub, sh, write
from cases_unseen_build import _npm

GROUP = "unseen-14"

# ---------------------------------------------------------------- Fortran


def _f90_module(area: str, i: int, unused: bool) -> str:
    extra = "        integer :: scratch\n" if unused else ""
    return f"""
    module {area}_{i:03d}
      implicit none
    contains
      function {area}_total_{i}(amounts, n) result(total)
        integer, intent(in) :: n
        real, intent(in) :: amounts(n)
        real :: total
        integer :: k
{extra}        total = 0.0
        do k = 1, n
          total = total + amounts(k)
        end do
      end function {area}_total_{i}
    end module {area}_{i:03d}
    """


@case(
    "gfortran_compile_loop_type_mismatch",
    "gfortran -c -Wall (loop over units)",
    clean=False,
    group=GROUP,
    decisive=["src/ledger_post.f90:", "Type mismatch in argument", "passed REAL(4) to INTEGER(4)"],
)
def _gfortran_compile(root: Path) -> bytes:
    for i in range(150):
        area = WORDS[i % 20]
        write(root, {f"src/{area}_{i:03d}.f90": _f90_module(area, i, unused=i % 9 == 4)})
    write(
        root,
        {
            "src/ledger_post.f90": """
            module ledger_post
              implicit none
            contains
              subroutine post_entry(n)
                integer, intent(in) :: n
                print *, 'posting', n
              end subroutine post_entry

              subroutine close_day(cents)
                real, intent(in) :: cents
                call post_entry(cents)
              end subroutine close_day
            end module ledger_post
            """
        },
    )
    return sh(
        'mkdir -p obj mod; st=0; for f in src/*.f90; do echo "gfortran -c -Wall -Jmod $f"; '
        "gfortran -c -Wall -Jmod -o obj/$(basename $f .f90).o $f || st=1; done; exit $st",
        root,
    )


@case(
    "gfortran_runtime_bounds_backtrace",
    "gfortran -fcheck=bounds -fbacktrace (run)",
    clean=False,
    group=GROUP,
    decisive=[
        "of file rollup.f90",
        "Fortran runtime error: Index '65' of dimension 1 of array 'buckets' above upper bound of 64",
    ],
)
def _gfortran_runtime(root: Path) -> bytes:
    minutes = [(i * 37) % 960 for i in range(3000)]
    minutes[1811] = 960  # a 24:00 timestamp from the export
    write(
        root,
        {
            "events.txt": "\n".join(str(m) for m in minutes) + "\n",
            "rollup.f90": """
            program rollup
              implicit none
              integer :: buckets(64), minute, idx, row, ios
              buckets = 0
              open(unit=10, file='events.txt', status='old', action='read')
              row = 0
              do
                read(10, *, iostat=ios) minute
                if (ios /= 0) exit
                row = row + 1
                idx = minute / 15 + 1
                buckets(idx) = buckets(idx) + 1
                write(*, '(a,i5,a,i4,a,i3,a,i4)') 'row ', row, ' minute ', minute, ' bucket ', idx, &
                  ' count ', buckets(idx)
              end do
              close(10)
              print *, 'rows read:', row
            end program rollup
            """,
        },
    )
    sh("gfortran -g -fcheck=bounds -fbacktrace -o rollup rollup.f90", root)
    return sh("./rollup", root, env={"GFORTRAN_UNBUFFERED_PRECONNECTED": "y"})


# ---------------------------------------------------------------- Pascal, OCaml, Nim


@case(
    "fpc_units_identifier_not_found",
    "fpc -vewnhi",
    clean=False,
    group=GROUP,
    decisive=["ledgerpost.pas(", 'Error: Identifier not found "PostEntri"'],
)
def _fpc(root: Path) -> bytes:
    units = []
    for i in range(60):
        name = f"u{WORDS[i % 20]}{i:02d}"
        units.append(name)
        unused = "var\n  tmp: Integer;\n" if i % 7 == 3 else ""
        write(
            root,
            {
                f"src/{name}.pas": f"""
                unit {name};

                {{$mode objfpc}}

                interface

                function Total{i}(const A: array of Integer): Integer;

                implementation

                function Total{i}(const A: array of Integer): Integer;
                {unused}var
                  K: Integer;
                begin
                  Result := 0;
                  for K := Low(A) to High(A) do
                    Result := Result + A[K];
                end;

                end.
                """
            },
        )
    write(
        root,
        {
            "src/ledgerpost.pas": """
            unit ledgerpost;

            {$mode objfpc}

            interface

            procedure CloseDay(Cents: Integer);

            implementation

            procedure PostEntry(Cents: Integer);
            begin
              WriteLn('posting ', Cents);
            end;

            procedure CloseDay(Cents: Integer);
            begin
              PostEntri(Cents);
            end;

            end.
            """,
        },
    )
    uses = ", ".join([*units[:30], "ledgerpost", *units[30:]])
    write(root, {"main.pas": f"program shop;\n\nuses {uses};\n\nbegin\n  CloseDay(100);\nend.\n"})
    return sh("mkdir -p out && fpc -vewnhi -Fusrc -FEout main.pas", root)


@case(
    "dune_build_type_error",
    "dune build --display short",
    clean=False,
    group=GROUP,
    decisive=[
        'File "lib/ledger_post.ml", line',
        "This expression has type string but an expression was expected of type",
    ],
)
def _dune(root: Path) -> bytes:
    write(root, {"dune-project": "(lang dune 2.9)\n", "lib/dune": "(library (name shop))\n"})
    for i in range(100):
        area = WORDS[i % 20]
        write(
            root,
            {
                f"lib/{area}_{i:03d}.ml": f"""
                type row = {{ id : int; amount : int; note : string }}

                let total rows = List.fold_left (fun acc r -> acc + r.amount) 0 rows

                let label r = Printf.sprintf "{area} %d: %s" r.id r.note
                """
            },
        )
    write(
        root,
        {
            "lib/ledger_post.ml": """
            let fee = "100"

            let post cents = cents + fee
            """,
            "bin/dune": "(executable (name main) (libraries shop))\n",
            "bin/main.ml": "let () = print_endline (string_of_int (Shop.Ledger_post.post 5))\n",
        },
    )
    return sh("dune build --display short --root . 2>&1", root, env={"XDG_CACHE_HOME": str(root / ".cache")})


@case(
    "nim_verbose_undeclared_identifier",
    "nim c --verbosity:2 --processing:filenames",
    clean=False,
    group=GROUP,
    decisive=["ledger_post.nim(", "Error: undeclared identifier: 'postEntri'"],
)
def _nim(root: Path) -> bytes:
    imports = []
    for i in range(80):
        name = f"{WORDS[i % 20]}_{i:03d}"
        imports.append(name)
        write(
            root,
            {
                f"src/{name}.nim": f"""
                type Row{i}* = object
                  id*: int
                  amount*: int

                proc total{i}*(rows: seq[Row{i}]): int =
                  for r in rows:
                    result += r.amount
                """
            },
        )
    write(
        root,
        {
            "src/ledger_post.nim": """
            proc postEntry*(cents: int) =
              echo "posting ", cents

            proc closeDay*(cents: int) =
              postEntri(cents)
            """
        },
    )
    body = "import " + ", ".join([*imports[:40], "ledger_post", *imports[40:]]) + "\n\ncloseDay(100)\n"
    write(root, {"src/main.nim": body})
    cmd = f"nim c --verbosity:2 --processing:filenames --nimcache:{root}/cache -o:shop src/main.nim"
    return scrub(sh(cmd, root), root)


# ---------------------------------------------------------------- Erlang, Elixir, R


@case(
    "escript_settlement_log_crash_report",
    "escript (logger, proc_lib crash report)",
    clean=False,
    group=GROUP,
    decisive=[
        "exception error: no match of right hand side value",
        "(settle.escript, line 25)",
        "batch=6217 status=crashed",
    ],
)
def _escript(root: Path) -> bytes:
    write(
        root,
        {
            "settle.escript": """
            #!/usr/bin/env escript
            -mode(compile).

            main(_) ->
                logger:set_primary_config(level, info),
                Results = [run(B) || B <- lists:seq(1, 16000)],
                Failed = length([R || R <- Results, R =/= ok]),
                io:format("summary: ~p settled, ~p failed~n", [length(Results) - Failed, Failed]),
                halt(case Failed of 0 -> 0; _ -> 1 end).

            run(B) ->
                Worker = proc_lib:spawn(fun() -> settle(B) end),
                MRef = monitor(process, Worker),
                receive
                    {'DOWN', MRef, process, Worker, normal} ->
                        ok;
                    {'DOWN', MRef, process, Worker, Reason} ->
                        io:format("batch=~p status=crashed reason=~0p~n", [B, element(1, Reason)]),
                        crashed
                end.

            settle(B) ->
                Orders = B rem 37 + 3,
                Total = Orders * 1250 + B rem 100,
                {ok, Cur} = currency(B),
                io:format("2025-03-14T09:~2..0B:~2..0B info settle batch=~p orders=~p total=~p currency=~s"
                          " shard=~p queue=settlements-~p~n",
                          [B div 60 rem 60, B rem 60, B, Orders, Total, Cur, B rem 16, B rem 4]),
                ok.

            currency(6217) -> {error, {currency_mismatch, <<"EUR">>, <<"USD">>}};
            currency(B) when B rem 3 =:= 0 -> {ok, "EUR"};
            currency(_) -> {ok, "USD"}.
            """
        },
    )
    return sh("escript settle.escript", root)


@case(
    "elixir_exunit_trace_one_failure",
    "elixir -r (ExUnit, trace: true)",
    clean=False,
    group=GROUP,
    decisive=["test rounds half cents up (Shop.PricingTest)", "pricing_test.exs:", "300 tests, 1 failure"],
)
def _elixir(root: Path) -> bytes:
    write(
        root,
        {
            "lib/shop.ex": """
            defmodule Shop.Pricing do
              def round_cents(amount), do: trunc(amount * 100)
              def total(items), do: Enum.sum(items)
            end
            """,
            "test/run.exs": """
            ExUnit.start(trace: true, seed: 0)
            for f <- Enum.sort(Path.wildcard("test/*_test.exs")), do: Code.require_file(f)
            """,
            "test/pricing_test.exs": """
            defmodule Shop.PricingTest do
              use ExUnit.Case

              test "rounds half cents up" do
                assert Shop.Pricing.round_cents(10.005) == 1001
              end
            end
            """,
        },
    )
    for m in range(10):
        area = WORDS[m]
        tests = "\n".join(
            f'  test "{area} total {i}" do\n    assert Shop.Pricing.total([{i}, {i}]) == {2 * i}\n  end\n'
            for i in range(30 if m else 29)
        )
        mod = area.capitalize()
        write(root, {f"test/{area}_test.exs": f"defmodule Shop.{mod}Test do\n  use ExUnit.Case\n\n{tests}end\n"})
    return sh("elixir -r lib/shop.ex test/run.exs", root)


@case(
    "rscript_warnings_then_subscript_error",
    "Rscript (options(warn = 1))",
    clean=False,
    group=GROUP,
    decisive=["Error in rates[[cur]] : subscript out of bounds", "converting region 27 currency=GBP"],
)
def _rscript(root: Path) -> bytes:
    write(
        root,
        {
            "convert.R": """
            options(warn = 1)
            set.seed(7)
            rates <- c(USD = 1, EUR = 1.09, JPY = 0.0067, CHF = 1.12)
            currencies <- c("USD", "EUR", "JPY", "CHF")
            convert_region <- function(r) {
              cur <- if (r == 27) "GBP" else currencies[(r %% 4) + 1]
              cat(sprintf("converting region %d currency=%s\\n", r, cur))
              raw <- sprintf("%.2f", runif(200, 1, 900))
              raw[seq(5, 200, by = 50)] <- "n/a"
              amounts <- as.numeric(raw)
              usd <- amounts * rates[[cur]]
              for (k in seq(1, 200, by = 10)) {
                cat(sprintf("  region %02d row %03d amount %8.2f usd %9.2f\\n", r, k, amounts[k], usd[k]))
              }
              cat(sprintf("region %d total usd %.2f\\n", r, sum(usd, na.rm = TRUE)))
              invisible(sum(usd, na.rm = TRUE))
            }
            totals <- lapply(1:40, convert_region)
            cat("all regions converted\\n")
            """
        },
    )
    return sh("Rscript convert.R", root)


# ---------------------------------------------------------------- Java with ant


def _ant_project(root: Path, classes: dict[str, str], tests: dict[str, str] | None = None) -> None:
    for i in range(200):
        area = WORDS[i % 20]
        cls = f"{area.capitalize()}Service{i:03d}"
        classes.setdefault(
            f"com/acme/{area}/{cls}.java",
            f"package com.acme.{area};\n\npublic class {cls} {{\n"
            f"    public long total(long[] amounts) {{\n        long t = 0;\n"
            f"        for (long a : amounts) {{\n            t += a;\n        }}\n        return t;\n    }}\n}}\n",
        )
    for rel, text in classes.items():
        write(root, {f"src/{rel}": text})
    for rel, text in (tests or {}).items():
        write(root, {f"test/{rel}": text})
    junit = ""
    if tests:
        junit = """
        <target name="test" depends="compile">
            <mkdir dir="build/test-classes"/>
            <javac srcdir="test" destdir="build/test-classes" includeantruntime="false">
                <classpath><pathelement path="build/classes"/><path refid="junit.path"/></classpath>
            </javac>
            <junit printsummary="yes" haltonfailure="yes" fork="yes">
                <classpath>
                    <pathelement path="build/classes"/>
                    <pathelement path="build/test-classes"/>
                    <path refid="junit.path"/>
                </classpath>
                <formatter type="plain" usefile="false"/>
                <batchtest><fileset dir="test" includes="**/*Test.java"/></batchtest>
            </junit>
        </target>
        """
    write(
        root,
        {
            "build.xml": f"""
            <project name="shop" default="{"test" if tests else "jar"}" basedir=".">
                <path id="junit.path">
                    <pathelement location="/usr/share/java/junit4.jar"/>
                    <pathelement location="/usr/share/java/hamcrest-core.jar"/>
                </path>
                <target name="init">
                    <mkdir dir="build/classes"/>
                </target>
                <target name="compile" depends="init">
                    <javac srcdir="src" destdir="build/classes" includeantruntime="false" debug="true"/>
                </target>
                <target name="jar" depends="compile">
                    <jar destfile="build/shop.jar" basedir="build/classes"/>
                </target>
                {junit}
            </project>
            """
        },
    )


@case(
    "ant_verbose_javac_cannot_find_symbol",
    "ant -verbose",
    clean=False,
    group=GROUP,
    decisive=["LedgerPost.java:", "error: cannot find symbol", "symbol:   method postEntri(long)"],
)
def _ant_fail(root: Path) -> bytes:
    _ant_project(
        root,
        {
            "com/acme/ledger/LedgerPost.java": """
            package com.acme.ledger;

            public class LedgerPost {
                void postEntry(long cents) {
                    System.out.println("posting " + cents);
                }

                public void closeDay(long cents) {
                    postEntri(cents);
                }
            }
            """
        },
    )
    return scrub(sh("ant -verbose", root), root)


# ---------------------------------------------------------------- assembler


@case(
    "nasm_loop_invalid_operands",
    "nasm -f elf64 -w+all (loop over sources)",
    clean=False,
    group=GROUP,
    decisive=["src/ledger_post.asm:", "error: invalid combination of opcode and operands"],
)
def _nasm(root: Path) -> bytes:
    for i in range(300):
        area = WORDS[i % 20]
        orphan = "        ret\nlocal_done\n" if i % 11 == 5 else ""
        write(
            root,
            {
                f"src/{area}_{i:03d}.asm": f"""
                bits 64
                section .text
                global {area}_sum_{i}
                ; rdi = pointer to int64 amounts, rsi = count
                {area}_sum_{i}:
                        xor rax, rax
                .loop:
                        test rsi, rsi
                        jz .done
                        add rax, [rdi]
                        add rdi, 8
                        dec rsi
                        jmp .loop
                .done:
                {orphan}        ret
                """
            },
        )
    write(
        root,
        {
            "src/ledger_post.asm": """
            bits 64
            section .text
            global ledger_post
            ledger_post:
                    mov rax, rdi
                    mov eax, rbx
                    ret
            """
        },
    )
    return sh(
        'mkdir -p obj; st=0; for f in src/*.asm; do echo "  AS      $f"; '
        "nasm -f elf64 -w+all -o obj/$(basename $f .asm).o $f || st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- npm registry


@case(
    "ava_one_failure_among_many",
    "ava",
    clean=False,
    group=GROUP,
    decisive=["rounds half cents up", "pricing.test.mjs:", "1 test failed"],
)
def _ava(root: Path) -> bytes:
    _npm(root, "ava@7.0.0")
    write(
        root,
        {
            "src/pricing.mjs": """
            export const roundCents = (amount) => Math.trunc(amount * 100);
            export const total = (items) => items.reduce((a, b) => a + b, 0);
            """,
            "test/pricing.test.mjs": """
            import test from 'ava';
            import {roundCents} from '../src/pricing.mjs';

            test('rounds half cents up', (t) => {
                t.is(roundCents(10.005), 1001);
            });
            """,
        },
    )
    for area in WORDS:
        if area == "pricing":
            continue
        tests = "\n".join(
            f"test('{area} total {i}', (t) => {{\n    t.is(total([{i}, {i}]), {2 * i});\n}});\n" for i in range(20)
        )
        write(
            root,
            {f"test/{area}.test.mjs": "import test from 'ava';\nimport {total} from '../src/pricing.mjs';\n\n" + tests},
        )
    return scrub(sh("npx ava --concurrency 1", root), root)


@case(
    "rollup_many_bundles_unresolved_relative",
    "rollup -c",
    clean=False,
    group=GROUP,
    decisive=['Could not resolve "../ledger/post.js" from "src/billing/close.js"'],
)
def _rollup(root: Path) -> bytes:
    _npm(root, "rollup@4.68.8")
    entries = []
    for i in range(40):
        area = WORDS[i % 20]
        name = f"{area}_{i:02d}"
        entries.append(f"src/{area}/{name}.js")
        write(
            root,
            {
                f"src/{area}/{name}.js": f"""
                import chunk from 'lodash/chunk';
                import {{ helper }} from '../common/helper.js';

                export function {name}(rows) {{
                    return chunk(rows, 10).map((part) => helper(part));
                }}
                """
            },
        )
    entries[24] = "src/billing/close.js"
    write(
        root,
        {
            "src/common/helper.js": "export const helper = (part) => part.reduce((a, b) => a + b, 0);\n",
            "src/billing/close.js": """
            import { post } from '../ledger/post.js';

            export function closeDay(cents) {
                return post(cents);
            }
            """,
        },
    )
    configs = ",\n".join(
        f"  {{ input: '{e}', output: {{ file: 'dist/{Path(e).stem}.js', format: 'es' }} }}" for e in entries
    )
    write(root, {"rollup.config.mjs": f"export default [\n{configs}\n];\n"})
    return scrub(sh("npx rollup -c", root), root)


# ---------------------------------------------------------------- clean runs


@case("erl_eunit_verbose_error_tests_clean", "erl -eval eunit:test (verbose)", clean=True, group=GROUP, decisive=[])
def _eunit_clean(root: Path) -> bytes:
    for mod in ("error_handling_tests", "crash_recovery_tests", "invalid_input_tests", "fatal_alarm_tests"):
        tests = "\n".join(
            f"{kind}_{i}_test() ->\n    ?assertEqual({i * 2}, {i} + {i}).\n"
            for i in range(30)
            for kind in [mod.replace("_tests", "")]
        )
        write(root, {f"test/{mod}.erl": f'-module({mod}).\n-include_lib("eunit/include/eunit.hrl").\n\n{tests}'})
    return sh(
        "mkdir -p ebin && erlc -o ebin test/*.erl && erl -noshell -pa ebin -eval "
        "'case eunit:test([error_handling_tests, crash_recovery_tests, invalid_input_tests, fatal_alarm_tests], "
        "[verbose]) of ok -> halt(0); _ -> halt(1) end'",
        root,
    )


@case("babel_verbose_error_modules_clean", "@babel/cli --verbose", clean=True, group=GROUP, decisive=[])
def _babel_clean(root: Path) -> bytes:
    _npm(root, "@babel/cli@7.29.7", "@babel/core@7.29.16", "@babel/preset-env@7.29.14")
    write(root, {"babel.config.json": '{"presets": [["@babel/preset-env", {"targets": "node 14"}]]}\n'})
    names = ["fatal_error", "error_boundary", "crash_reporter", "failure_log", "exception_mapper", "retry_failed"]
    for i in range(90):
        name = f"{names[i % 6]}_{i:02d}" if i % 3 == 0 else f"{WORDS[i % 20]}_{i:02d}"
        write(
            root,
            {
                f"src/{'errors' if i % 3 == 0 else WORDS[i % 20]}/{name}.js": f"""
                export class Failure{i} extends Error {{
                  constructor(message, code = 'E{i:03d}') {{
                    super(message);
                    this.code = code;
                  }}
                }}

                export const report{i} = (err) => ({{ ...err, fatal: err?.code === 'E{i:03d}' }});
                """
            },
        )
    return sh("npx babel src -d lib --verbose", root)


@case("nim_unittest_errors_suite_clean", "nim c -r (unittest)", clean=True, group=GROUP, decisive=[])
def _nim_clean(root: Path) -> bytes:
    names = [
        "invalid input raises ValueError", "fatal error is logged once", "crash report keeps the stack",
        "failed payment is retried", "error counter starts at 0 failures", "exception message is kept",
    ]  # fmt: skip
    tests = "\n".join(f'  test "{names[i % 6]} ({i})":\n    check parseAmount("{i}") == {i}\n' for i in range(60))
    write(
        root,
        {
            "tests/test_errors.nim": f"""
import std/[unittest, strutils]

proc parseAmount(s: string): int =
  if s.len == 0:
    raise newException(ValueError, "invalid input: empty amount")
  parseInt(s)

suite "errors":
{tests}
  test "empty amount raises ValueError":
    expect ValueError:
      discard parseAmount("")
"""
        },
    )
    return scrub(sh(f"nim c -r --nimcache:{root}/cache -o:run_tests tests/test_errors.nim", root), root)


@case("ant_junit_error_reporter_clean", "ant (javac + junit)", clean=True, group=GROUP, decisive=[])
def _ant_clean(root: Path) -> bytes:
    _ant_project(
        root,
        {
            "com/acme/errors/ErrorReporter.java": """
            package com.acme.errors;

            public class ErrorReporter {
                public String format(String code, String message) {
                    return "[" + code + "] " + message;
                }

                public boolean isFatal(String code) {
                    return code.startsWith("FATAL");
                }
            }
            """
        },
        {
            "com/acme/errors/ErrorReporterTest.java": """
            package com.acme.errors;

            import static org.junit.Assert.assertEquals;
            import static org.junit.Assert.assertTrue;

            import org.junit.Test;

            public class ErrorReporterTest {
                private final ErrorReporter reporter = new ErrorReporter();

                @Test
                public void testInvalidInputIsFormatted() {
                    assertEquals("[E400] invalid input", reporter.format("E400", "invalid input"));
                }

                @Test
                public void testFatalCrashIsFatal() {
                    assertTrue(reporter.isFatal("FATAL_CRASH"));
                }

                @Test
                public void testErrorCountStartsAtZeroFailures() {
                    assertEquals("[E000] 0 failures", reporter.format("E000", "0 failures"));
                }
            }
            """
        },
    )
    for area in WORDS[:12]:
        cls = f"{area.capitalize()}Service{WORDS.index(area):03d}"
        methods = "\n".join(
            f"    @Test\n    public void testTotal{k}() {{\n"
            f"        assertEquals({3 * k}L, new {cls}().total(new long[] {{{k}, {k}, {k}}}));\n    }}\n"
            for k in range(6)
        )
        write(
            root,
            {
                f"test/com/acme/{area}/{cls}Test.java": f"package com.acme.{area};\n\n"
                f"import static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
                f"public class {cls}Test {{\n{methods}}}\n"
            },
        )
    return scrub(sh("ant", root), root)
