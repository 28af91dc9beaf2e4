"""Held-out outputs (group ``unseen-21``): a twenty-first batch, compilers, test runners and linters.

Languages and tools not yet in the corpus, run on generated projects of many files: ``cobc -x -v`` over
60 COBOL report programs, then each program's run, where one paragraph adds to a misspelt data name,
``valac`` over 80 Vala classes whose never-used warnings hide one string-to-int assignment, ``mcs
-warn:4`` over 100 C# handlers (obsolete-call and unused-variable warnings) where one reads a
property that does not exist, ``luacheck`` over 120 Lua services full of unused-variable warnings
with one missing ``end``, ``busted -o gtest`` over 2,400 Lua tests with one got/want pair in the
middle and ``rspec --format documentation`` over 3,000 examples with one status mismatch. Clean runs
whose text talks about errors: ``busted -o TAP`` of tests named after error handlers and failed
retries, ``perlcritic --statistics`` over 600 modules such as ``Shop::Errors`` (``0 violations.``),
``rubocop --debug`` over 400 services named ``*_errors_reporter.rb`` (``no offenses detected``),
``phpcs -v`` over PHP classes named ``ErrorReporter``, ``FailedJobs`` (``(0 errors, 0 warnings)``) and
``pycodestyle -v`` over modules named ``errors.py`` and ``failures.py``. Labels were written with each
scenario, before the engine saw the output. Needs ``gnucobol3``, ``valac``, ``mono-mcs``, ``lua-check``,
``lua-busted``, ``libperl-critic-perl``, ``ruby-rspec``, ``rubocop``, ``php-codesniffer`` (Debian
packages) and ``pycodestyle`` from PyPI.
"""

from __future__ import annotations

from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-21"


# ---------------------------------------------------------------- GnuCOBOL: cobc


def _cobol(area: str, n: int, broken: bool) -> str:
    name = f"{area.upper()}-{n:02d}"
    add = "WS-TOTL" if broken else "WS-TOTAL"
    return (
        f"      * {area} batch report {n}\n"
        "       IDENTIFICATION DIVISION.\n"
        f"       PROGRAM-ID. {name}.\n"
        "       DATA DIVISION.\n"
        "       WORKING-STORAGE SECTION.\n"
        "       01 WS-I        PIC 9(4) VALUE 0.\n"
        "       01 WS-AMOUNT   PIC 9(7)V99 VALUE 0.\n"
        "       01 WS-TOTAL    PIC 9(9)V99 VALUE 0.\n"
        "       01 WS-ERRORS   PIC 9(4) VALUE 0.\n"
        "       01 WS-OUT      PIC Z(8)9.99.\n"
        "       PROCEDURE DIVISION.\n"
        "       MAIN-PARA.\n"
        "           PERFORM VARYING WS-I FROM 1 BY 1 UNTIL WS-I > 20\n"
        f"               COMPUTE WS-AMOUNT = WS-I * {n + 3} + 0.5\n"
        f"               ADD WS-AMOUNT TO {add}\n"
        "               MOVE WS-AMOUNT TO WS-OUT\n"
        f'               DISPLAY "{name} LINE " WS-I " AMOUNT " WS-OUT\n'
        "           END-PERFORM\n"
        "           MOVE WS-TOTAL TO WS-OUT\n"
        f'           DISPLAY "{name} TOTAL " WS-OUT " ERRORS " WS-ERRORS\n'
        "           STOP RUN.\n"
    )


@case(
    "cobc_verbose_reports_undefined_data_name",
    "cobc -x -v -Wall (loop over programs, then run)",
    clean=False,
    group=GROUP,
    decisive=["src/ledger-02.cob:15: error: 'WS-TOTL' is not defined"],
)
def _cobc(root: Path) -> bytes:
    (root / "src").mkdir()
    for n in range(3):
        for area in WORDS:
            # written as is: fixed-format COBOL needs its columns (``write`` would dedent them)
            (root / f"src/{area}-{n:02d}.cob").write_text(_cobol(area, n, (area, n) == ("ledger", 2)))
    (root / "bin").mkdir()
    out = sh(
        'st=0; for f in src/*.cob; do b=bin/$(basename "$f" .cob); echo "== cobc -x -v -Wall -o $b $f"; '
        'cobc -x -v -Wall -o "$b" "$f" || { st=1; continue; }; echo "== $b"; "$b"; done; exit $st',
        root,
    )
    return substitute(out, (r"/tmp/cob[0-9]+_", "/tmp/cobN_"))


# ---------------------------------------------------------------- Vala: valac


def _vala(area: str, n: int, broken: bool) -> str:
    cls = f"{area.capitalize()}{n}"
    body = (
        '            string amount_text = "12";\n            int cents = amount_text;\n            sum += cents;\n'
        if broken
        else ""
    )
    return (
        "namespace Shop {\n"
        f"    public class {cls} : Object {{\n"
        "        private int retries;\n"
        "        private void log_failure () { }\n"
        "        public int total (int[] amounts) {\n"
        "            int skipped = 0;\n"
        "            int sum = 0;\n"
        "            foreach (var a in amounts) sum += a;\n"
        f"{body}"
        "            return sum;\n"
        "        }\n"
        f'        public string label () {{ return "{area}-{n}"; }}\n'
        "    }\n"
        "}\n"
    )


@case(
    "valac_never_used_flood_string_to_int",
    "valac",
    clean=False,
    group=GROUP,
    decisive=["error: Assignment: Cannot convert from `string?' to `int'", "Compilation failed: 1 error(s)"],
    # after the first generation: the label said `string' (valac infers `string?'), and one valac over all
    # files stops at the error before any never-used warning, so the build compiles one file at a time
)
def _valac(root: Path) -> bytes:
    for n in range(4):
        for area in WORDS:
            write(root, {f"src/{area}_{n}.vala": _vala(area, n, (area, n) == ("refunds", 2))})
    out = sh(
        'st=0; for f in src/*.vala; do echo "== valac -C -d build $f"; valac -C -d build "$f" || st=1; done; exit $st',
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- Mono: mcs


def _csharp(area: str, n: int, broken: bool) -> str:
    prop = "Totl" if broken else "Total"
    return f"""
using System;

namespace Shop.{area.capitalize()}
{{
    public class Handler{n}
    {{
        private int retries;

        [Obsolete("use PostAsync")]
        public static void Post(string payload)
        {{
            Console.WriteLine(payload);
        }}

        public decimal Run(Invoice inv)
        {{
            int attempts = 0;
            Post("{area}-{n}");
            return inv.{prop};
        }}
    }}
}}
"""


@case(
    "mcs_warn4_flood_missing_member",
    "mcs -warn:4 -t:library",
    clean=False,
    group=GROUP,
    decisive=["does not contain a definition for `Totl'", "Compilation failed: 1 error(s)"],
)
def _mcs(root: Path) -> bytes:
    for n in range(5):
        for area in WORDS:
            write(root, {f"src/{area}/Handler{n}.cs": _csharp(area, n, (area, n) == ("invoice", 3))})
    write(
        root,
        {
            "src/Invoice.cs": "namespace Shop\n{\n    public class Invoice\n    {\n"
            "        public decimal Total { get; set; }\n    }\n}\n"
        },
    )
    return sh("mcs -warn:4 -t:library -out:Shop.dll $(find src -name '*.cs' | sort)", root)


# ---------------------------------------------------------------- Lua: luacheck, busted


def _lua_service(broken: bool) -> str:
    close_loop = "" if broken else "  end\n"
    return (
        'local json = require("cjson")\n'
        "local M = {}\n"
        "\n"
        "function M.handle(event, ctx)\n"
        "  local total = 0\n"
        "  for _, item in ipairs(event.items) do\n"
        "    total = total + item.amount\n"
        f"{close_loop}"
        "  retry_count = 0\n"
        "  return total\n"
        "end\n"
        "\n"
        "return M\n"
    )


@case(
    "luacheck_unused_flood_missing_end",
    "luacheck --no-color",
    clean=False,
    group=GROUP,
    decisive=[
        "services/ledger_05.lua:8:3: (E011) expected 'end' (to close 'for' on line 6) near 'retry_count'",
        "1 error in 120 files",
    ],
    # after the first generation: the label guessed the parser's message at the end of the file; luacheck
    # reports the missing ``end`` of the loop where the indentation says it should be
)
def _luacheck(root: Path) -> bytes:
    for n in range(6):
        for area in WORDS:
            write(root, {f"services/{area}_{n:02d}.lua": _lua_service((area, n) == ("ledger", 5))})
    return sh("luacheck --no-color --codes services", root)


def _busted_spec(area: str, k: int, bad: int | None) -> str:
    tests = []
    for i in range(60):
        a, b = (i + 1) * 30, (i % 7) * 5
        want = 2105 if i == bad else a + b
        if i == bad:
            a, b = 1800, 90
        tests.append(
            f'  it("adds line {i} of {area} invoice batch {k}", function()\n'
            f"    assert.are.equal({want}, line_total({a}, {b}))\n  end)\n"
        )
    return (
        "local function line_total(net, tax) return net + tax end\n\n"
        f'describe("{area} totals {k}", function()\n' + "".join(tests) + "end)\n"
    )


@case(
    "busted_gtest_line_total_got_want",
    "busted -o gtest",
    clean=False,
    group=GROUP,
    decisive=["[  FAILED  ] spec/tax_1_spec.lua @", "(number) 1890", "(number) 2105"],
)
def _busted_fail(root: Path) -> bytes:
    for k in range(2):
        for area in WORDS:
            bad = 37 if (area, k) == ("tax", 1) else None
            write(root, {f"spec/{area}_{k}_spec.lua": _busted_spec(area, k, bad)})
    out = sh("busted -o gtest spec", root)
    return substitute(out, (r"\([0-9.]+ ms( total)?\)", r"(N ms\1)"))


@case(
    "busted_tap_error_handlers_clean",
    "busted -o TAP",
    clean=True,
    group=GROUP,
    decisive=["1..2000"],
)
def _busted_clean(root: Path) -> bytes:
    for area in WORDS:
        tests = "".join(
            f'  it("{area} error handler marks failed retry {i} as {"retried" if i % 2 else "dead-lettered"}", '
            f"function()\n    local err = {{ code = 'E{500 + i % 4}', failed = true, attempt = {i} }}\n"
            f"    assert.is_true(err.failed)\n    assert.are.equal({i}, err.attempt)\n  end)\n"
            for i in range(100)
        )
        write(root, {f"spec/{area}_errors_spec.lua": f'describe("{area} errors", function()\n{tests}end)\n'})
    return sh("busted -o TAP spec", root)


# ---------------------------------------------------------------- Ruby: rspec, rubocop


def _rspec_file(area: str, bad: int | None) -> str:
    examples = "".join(
        f'    it "settles {area} payment {i}" do\n      expect(status_for({i})).to eq("settled")\n    end\n\n'
        for i in range(150)
    )
    stuck = f'    return "pending" if id == {bad}\n\n' if bad is not None else ""
    return (
        f'RSpec.describe "{area} payments" do\n'
        "  def status_for(id)\n"
        f"{stuck}"
        '    "settled"\n'
        "  end\n\n"
        '  context "when the gateway answers" do\n'
        f"{examples}"
        "  end\nend\n"
    )


@case(
    "rspec_documentation_status_mismatch",
    "rspec --format documentation",
    clean=False,
    group=GROUP,
    decisive=['expected: "settled"', 'got: "pending"', "3000 examples, 1 failure"],
)
def _rspec(root: Path) -> bytes:
    for area in WORDS:
        write(root, {f"spec/{area}_spec.rb": _rspec_file(area, 77 if area == "orders" else None)})
    out = sh("rspec --format documentation --order defined --no-color spec", root)
    return substitute(
        out, (r"Finished in [0-9.]+ seconds \(files took [0-9.]+ seconds to load\)", "Finished in N seconds")
    )


_RUBY_SERVICE = """
# frozen_string_literal: true

module Shop
  # Reports the {kind} of the {area} service to the audit log.
  class {cls}
    class DeliveryFailed < StandardError; end

    def initialize(logger)
      @logger = logger
      @failed = 0
    end

    def report(error)
      @logger.error("{area} failed: #{{error.message}}")
      @failed += 1
    rescue IOError => e
      raise DeliveryFailed, "could not report: #{{e.message}}"
    end

    attr_reader :failed
  end
end
"""


@case(
    "rubocop_debug_errors_reporters_clean",
    "rubocop --debug --format progress",
    clean=True,
    group=GROUP,
    decisive=["400 files inspected, no offenses detected"],
)
def _rubocop(root: Path) -> bytes:
    write(
        root,
        {".rubocop.yml": "AllCops:\n  TargetRubyVersion: 3.1\n  NewCops: enable\n  SuggestExtensions: false\n"},
    )
    kinds = ["errors", "exceptions", "failed_jobs", "fatal_alerts", "retries"]
    for n in range(4):
        for area in WORDS:
            for kind in kinds:
                cls = f"{area.capitalize()}{kind.title().replace('_', '')}Reporter{n}"
                write(
                    root,
                    {
                        f"app/services/{area}/{kind}_reporter_{n}.rb": _RUBY_SERVICE.format(
                            kind=kind.replace("_", " "), area=area, cls=cls
                        )
                    },
                )
    out = sh("rubocop --debug --cache false --format progress", root)
    return scrub(substitute(out, (r"Finished in [0-9.]+ seconds", "Finished in N seconds")), root)


# ---------------------------------------------------------------- Perl: perlcritic


_PERL_MODULE = """
package Shop::{area}::{kind};

use strict;
use warnings;

our $VERSION = '1.00';

sub report_error {{
    my ($self, %args) = @_;
    my $code = $args{{code}} || 'E500';
    return "{area} error $code reported";
}}

sub mark_failed {{
    my ($self, $job) = @_;
    return {{ job => $job, state => 'failed', queue => '{kind}' }};
}}

1;
"""


@case(
    "perlcritic_statistics_error_modules_clean",
    "perlcritic --severity 4 --statistics",
    clean=True,
    group=GROUP,
    decisive=["0 violations."],
)
def _perlcritic(root: Path) -> bytes:
    kinds = ["Errors", "FailedJobs", "Exceptions", "RetryQueue", "DeadLetters", "Alerts"]
    for n in range(5):
        for area in WORDS:
            for kind in kinds:
                name = f"{area.capitalize()}{n}"
                write(root, {f"lib/Shop/{name}/{kind}.pm": _PERL_MODULE.format(area=name, kind=kind)})
    return sh("perlcritic --severity 4 --statistics lib", root)


# ---------------------------------------------------------------- PHP: phpcs


_PHP_CLASS = """
<?php

declare(strict_types=1);

namespace Shop\\{ns};

use RuntimeException;

final class {cls}
{{
    private int $failed = 0;

    public function report(string $message): string
    {{
        if ($message === '') {{
            throw new RuntimeException('empty {area} error message');
        }}
        $this->failed++;

        return '{area} failed: ' . $message;
    }}

    public function failedCount(): int
    {{
        return $this->failed;
    }}
}}
"""


@case(
    "phpcs_verbose_psr12_error_classes_clean",
    "phpcs -v --standard=PSR12",
    clean=True,
    group=GROUP,
    decisive=["(0 errors, 0 warnings)"],
)
def _phpcs(root: Path) -> bytes:
    kinds = ["ErrorReporter", "FailedJobs", "ExceptionHandler", "ErrorLog", "FatalAlerts"]
    for n in range(3):
        for area in WORDS:
            for kind in kinds:
                ns = f"{area.capitalize()}{n}"
                write(root, {f"src/{ns}/{kind}.php": _PHP_CLASS.format(ns=ns, cls=kind, area=area)})
    out = sh("phpcs -v --standard=PSR12 src", root)
    return scrub(substitute(out, (r"DONE in [0-9.]+m?s", "DONE in Nms")), root)


# ---------------------------------------------------------------- Python: pycodestyle


@case(
    "pycodestyle_verbose_errors_modules_clean",
    "pycodestyle -v --statistics --count",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _pycodestyle(root: Path) -> bytes:
    env = _pip_tool(root, "pycodestyle==2.12.1")
    kinds = ["errors", "failures", "exceptions", "retry_failed", "fatal"]
    for n in range(8):
        for area in WORDS:
            for kind in kinds:
                write(
                    root,
                    {
                        f"src/shop/{area}/{kind}_{n}.py": f'''
                        """The {kind.replace("_", " ")} of the {area} service, part {n}."""


                        class {area.capitalize()}Error(Exception):
                            """Raised when a {area} call failed."""


                        def raise_failed(code: str) -> None:
                            """Raise the error of ``code`` (E500 when unknown)."""
                            raise {area.capitalize()}Error(f"{area} failed with {{code or 'E500'}}")
                        '''
                    },
                )
    return sh(f"{env} pycodestyle -v --statistics --count src", root)
