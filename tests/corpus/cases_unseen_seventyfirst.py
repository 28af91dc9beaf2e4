"""Held-out outputs (group ``unseen-71``): a seventy-first batch, functional and BEAM toolchains as an agent runs them
on projects made in the scenario, all offline (no Hackage, opam or hex registry answers here; every package depends on
its language's standard library only).

Failing runs: ``cabal build all --keep-going -O0`` of a ten-package project where ``refunds``' ``Refunds.RetryQueue``
has a long type error among hundreds of ``-Wall`` warnings of the other packages, ``cabal test`` whose streamed suite
reports one failed check of 520 in its middle, ``dune build --profile release --display short -j 1`` of 80 modules with
default warnings and one type error, ``dune test -j 1 --force`` of twelve assert-based test executables where one raises
``Assert_failure`` between the others' output, ``mix compile --warnings-as-errors --force --verbose`` of an umbrella of
20 apps with one unused variable, ``mix test --trace`` with one failing test among 400, ``make -k`` driving ``erlc
-Wall`` over 60 modules with one undefined function, and an ``erl -noshell`` EUnit ``verbose`` run with one failing
``assertEqual`` among 480 tests. Clean runs named after errors and failures: ``cabal test`` of ``error-reporter``'s
``failed-payments-test`` and ``retry-queue-test`` suites, ``dune build`` and ``dune test`` of the ``payments_errors``
library whose tests print ``handle_error ... failed payment`` lines, ``mix test --trace`` of ``failed_payments``'
``handle_error`` tests, and a quiet EUnit run over ``error_reporter_tests`` and friends whose code under test logs 240
``=ERROR REPORT====`` lines (``payment p7 failed: card_declined``) on purpose. Labels were
written with each scenario, before the engine saw the output. Needs GHC with cabal, OCaml with dune, Elixir and
Erlang with EUnit (Debian ``ghc``, ``cabal-install``, ``ocaml-nox``, ``ocaml-dune``, ``elixir``, ``erlang-nox``,
``erlang-dev``, ``erlang-eunit``) and make.
"""

from __future__ import annotations

from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-71"

_AREAS = WORDS[:10]


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, clock times, seeds."""
    return substitute(
        scrub(out, root),
        (r"\(\d+(\.\d+)?ms\)", "(0.01ms)"),
        (r"Finished in \d+\.\d+ seconds \(\d+\.\d+s async, \d+\.\d+s sync\)", "Finished in 0.1 seconds"),
        (r"^\d\d:\d\d:\d\d\.\d\d\d ", "12:00:00.000 "),
        (r"\[\d+\.\d+ s\] ", ""),
        (r"\[done in \d+\.\d+ s\]", "[done in 0.010 s]"),
        (r"=(ERROR|WARNING|INFO) REPORT==== .* ===", r"=\1 REPORT==== 1-Jan-2026::12:00:00.000000 ==="),
        (r"<0\.\d+\.0>", "<0.100.0>"),
    )


# ---------------------------------------------------------------- GHC and cabal

_HS_KINDS = ["ErrorReporter", "RetryQueue", "FailedPayments", "Ledger", "Webhooks"]


def _hs_module(area: str, kind: str, k: int, *, warn: bool) -> str:
    mod = f"{area.capitalize()}.{kind}"
    lines = [f"module {mod} where\n"]
    if warn:
        lines.append("import Data.List (sortOn)\nimport Data.Maybe (fromMaybe)\n")
    lines.append(
        f"\n-- | {kind} of the {area} service.\n"
        f"data {kind}Event = {kind}Started Int | {kind}Failed String | {kind}Retried Int Int\n  deriving (Show, Eq)\n\n"
        f"handleError :: {kind}Event -> String\n"
        f'handleError ({kind}Started n) = "{area} started " ++ show n\n'
        f'handleError ({kind}Failed why) = "{area} failed: " ++ why\n'
    )
    if not warn:
        lines.append(f'handleError ({kind}Retried n m) = "{area} retried " ++ show (n + m)\n')
    else:
        lines.append(
            f"\nretryDelays attempts = map (\\attempt -> attempt * {k + 2}) [1 .. attempts]\n\n"
            f"summarise :: [Int] -> Int\nsummarise xs = total\n  where\n    total = sum xs\n    unusedRetries = 3\n"
            f"\nshadowed :: Int -> Int\nshadowed attempts = let attempts = 2 in attempts\n"
        )
    return "".join(lines)


_HS_BROKEN = """
module Refunds.RetryQueue (RetryPolicy (..), FailedPayment (..), scheduleRetries) where

-- | How often a failed refund payment is retried.
data RetryPolicy = RetryPolicy
  { maxAttempts :: Int
  , backoffMs :: [Int]
  , deadLetterQueue :: String
  }
  deriving (Show)

-- | A refund payment the gateway declined.
data FailedPayment = FailedPayment
  { paymentId :: String
  , amountCents :: Int
  , attempts :: Int
  }
  deriving (Show)

scheduleRetries :: RetryPolicy -> [FailedPayment] -> Either String [(String, Int, Maybe String)]
scheduleRetries policy = traverse schedule
  where
    schedule :: FailedPayment -> Either String (String, Int, Maybe String)
    schedule p
      | attempts p >= maxAttempts policy = Left ("retry budget exhausted for " ++ paymentId p)
      | otherwise = Right (paymentId p, backoffMs policy, Just (deadLetterQueue policy))
"""


def _cabal_pkg(root: Path, name: str, modules: dict[str, str], tests: dict[str, str] | None = None) -> None:
    exposed = ", ".join(sorted(modules))
    text = (
        f"cabal-version: 2.4\nname: {name}\nversion: 0.1.0\nbuild-type: Simple\n\n"
        f"library\n  exposed-modules: {exposed}\n  hs-source-dirs: src\n  build-depends: base\n"
        "  ghc-options: -Wall\n  default-language: Haskell2010\n"
    )
    for suite, body in (tests or {}).items():
        text += (
            f"\ntest-suite {suite}\n  type: exitcode-stdio-1.0\n  main-is: Main.hs\n  hs-source-dirs: test/{suite}\n"
            f"  build-depends: base, {name}\n  default-language: Haskell2010\n"
        )
        write(root, {f"test/{suite}/Main.hs": body})
    files = {f"{name}.cabal": text}
    files.update({f"src/{m.replace('.', '/')}.hs": body for m, body in modules.items()})
    write(root, files)


def _cabal(root: Path) -> str:
    write(root, {"home/.cabal/config": "jobs: 1\n"})
    return f"HOME={root / 'home'} cabal"


@case(
    "u71_cabal_build_keep_going_type_error",
    "cabal",
    clean=False,
    group=GROUP,
    decisive=[
        "src/Refunds/RetryQueue.hs:25:",
        "Couldn't match type ‘[Int]’ with ‘Int’",
        "Failed to build refunds-0.1.0",
    ],
)
def _cabal_build_fail(root: Path) -> bytes:
    for i, area in enumerate(_AREAS):
        mods = {
            f"{area.capitalize()}.{kind}": _hs_module(area, kind, k, warn=(i + k) % 3 != 0)
            for k, kind in enumerate(_HS_KINDS)
        }
        if area == "refunds":
            mods["Refunds.RetryQueue"] = _HS_BROKEN
        _cabal_pkg(root / "packages" / area, area, mods)
    write(root, {"cabal.project": "packages: packages/*/*.cabal\nactive-repositories: :none\n"})
    return _settle(sh(f"{_cabal(root)} build all --offline --keep-going -O0", root), root)


def _hs_suite(name: str, checks: list[tuple[str, int, int]]) -> str:
    rows = ",\n".join(f'    ("{label}", {got}, {want})' for label, got, want in checks)
    return f"""
import Control.Monad (forM_, unless)
import Data.IORef
import System.Exit (exitFailure)
import System.IO

checks :: [(String, Int, Int)]
checks =
  [
{rows}
  ]

main :: IO ()
main = do
  hSetBuffering stdout LineBuffering
  failures <- newIORef (0 :: Int)
  forM_ checks $ \\(label, got, want) ->
    if got == want
      then putStrLn ("PASS " ++ label)
      else do
        putStrLn ("FAIL " ++ label ++ ": expected " ++ show want ++ " but got " ++ show got)
        modifyIORef failures (+ 1)
  n <- readIORef failures
  putStrLn ("{name}: " ++ show (length checks - n) ++ " passed, " ++ show n ++ " failed")
  unless (n == 0) exitFailure
"""


def _hs_checks(areas: list[str], per: int, broken: tuple[str, int] | None = None) -> list[tuple[str, int, int]]:
    out = []
    for area in areas:
        for n in range(1, per + 1):
            want = 100 * 2 ** (n % 12)
            got = want // 2 if broken == (area, n) else want
            out.append((f"{area.capitalize()}.RetryQueue.nextDelay attempt {n}", got, want))
            out.append((f"{area.capitalize()}.ErrorReporter.handleError failed payment {n}", n, n))
    return out


@case(
    "u71_cabal_test_clean_error_reporter",
    "cabal",
    clean=True,
    group=GROUP,
    decisive=["Test suite failed-payments-test: PASS"],
)
def _cabal_test_clean(root: Path) -> bytes:
    mods = {f"Errors.{kind}": _hs_module("errors", kind, 0, warn=False) for kind in _HS_KINDS}
    tests = {
        "failed-payments-test": _hs_suite("failed-payments-test", _hs_checks(_AREAS[:5], 30)),
        "retry-queue-test": _hs_suite("retry-queue-test", _hs_checks(_AREAS[5:], 30)),
    }
    _cabal_pkg(root, "error-reporter", mods, tests)
    write(root, {"cabal.project": "packages: .\nactive-repositories: :none\n"})
    cmd = f"{_cabal(root)} test --offline -O0 --test-show-details=streaming"
    return _settle(sh(cmd, root), root)


@case(
    "u71_cabal_test_streaming_one_fail",
    "cabal",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL Refunds.RetryQueue.nextDelay attempt 7: expected 12800 but got 6400",
        "retry-queue-test: 519 passed, 1 failed",
        "Test suite retry-queue-test: FAIL",
    ],
)
def _cabal_test_fail(root: Path) -> bytes:
    mods = {f"Billing.{kind}": _hs_module("billing", kind, 0, warn=False) for kind in _HS_KINDS}
    checks = _hs_checks(_AREAS, 26, broken=("refunds", 7))
    _cabal_pkg(root, "billing-platform", mods, {"retry-queue-test": _hs_suite("retry-queue-test", checks)})
    write(root, {"cabal.project": "packages: .\nactive-repositories: :none\n"})
    cmd = f"{_cabal(root)} test --offline -O0 --test-show-details=streaming"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- OCaml and dune

_ML_KINDS = ["error_reporter", "retry_queue", "failed_payments", "ledger_sync", "webhook_sender", "audit_log"]
_ML_KINDS += ["dead_letters", "exceptions"]


def _ml_module(area: str, kind: str, k: int) -> str:
    body = (
        f"(* {kind} of the {area} service *)\n"
        f"type event = Started of int | Failed of string | Retried of int * int\n\n"
        "let handle_error = function\n"
        f'  | Started n -> Printf.sprintf "{area} started %d" n\n'
        f'  | Failed why -> "{area} failed: " ^ why\n'
    )
    if k % 3 == 0:  # a non-exhaustive match (warning 8) and an unused variable (warning 26)
        body += "\nlet backoff attempt =\n  let unused_budget = attempt * 2 in\n  attempt * 100\n"
    else:
        body += '  | Retried (n, m) -> Printf.sprintf "retried %d/%d" n m\n'
    return body


@case(
    "u71_dune_build_release_type_error",
    "dune",
    clean=False,
    group=GROUP,
    decisive=[
        'File "lib/refunds/retry_queue.ml", line 6, characters',
        "Error: This expression has type string but an expression was expected of type",
    ],
)
def _dune_build_fail(root: Path) -> bytes:
    files = {"dune-project": "(lang dune 2.9)\n"}
    for area in _AREAS:
        files[f"lib/{area}/dune"] = f"(library (name {area}))\n"
        for k, kind in enumerate(_ML_KINDS):
            files[f"lib/{area}/{kind}.ml"] = _ml_module(area, kind, k)
    files["lib/refunds/retry_queue.ml"] = (
        "(* retry_queue of the refunds service *)\n"
        "type failed_payment = { payment_id : string; amount_cents : int; attempts : int }\n\n"
        "let next_delay payment =\n"
        "  let base = 100 in\n"
        '  base * payment.payment_id ^ "ms"\n'
    )
    write(root, files)
    env = {"XDG_CACHE_HOME": str(root / ".cache"), "DUNE_CACHE": "disabled"}
    return _settle(sh("dune build --root . --profile release --display short -j 1", root, env=env), root)


def _ml_test(area: str, kind: str, n: int, broken: int = 0) -> str:
    return (
        f"let check i =\n"
        f"  let want = 100 * (1 lsl (i mod 10)) in\n"
        f"  let got = if i = {broken} then want / 2 else want in\n"
        f'  Printf.printf "{kind}: handle_error {area} failed payment %d -> retry in %d ms\\n" i got;\n'
        f"  assert (got = want)\n\n"
        f"let () =\n  for i = 1 to {n} do check i done;\n"
        f'  Printf.printf "{area} {kind}: {n} checks passed\\n"\n'
    )


@case(
    "u71_dune_test_assert_failure",
    "dune",
    clean=False,
    group=GROUP,
    decisive=[
        'Fatal error: exception Assert_failure("test/test_session.ml", 5, 2)',
        "test_session alias test/runtest (exit 2)",
    ],
)
def _dune_test_fail(root: Path) -> bytes:
    files = {"dune-project": "(lang dune 2.9)\n"}
    names = [f"test_{a}" for a in [*_AREAS, "webhooks", "ledger"]]
    files["test/dune"] = f"(tests (names {' '.join(names)}))\n"
    for name in names:
        area = name[5:]
        files[f"test/{name}.ml"] = _ml_test(area, "retry_queue", 60, broken=37 if area == "session" else 0)
    write(root, files)
    env = {"XDG_CACHE_HOME": str(root / ".cache"), "DUNE_CACHE": "disabled"}
    return _settle(sh("dune build --root . -j 1 2>&1 && dune test --root . -j 1 --force", root, env=env), root)


@case(
    "u71_dune_test_clean_error_reporter",
    "dune",
    clean=True,
    group=GROUP,
    decisive=["errors dead_letters: 50 checks passed"],
)
def _dune_test_clean(root: Path) -> bytes:
    files = {"dune-project": "(lang dune 2.9)\n", "src/dune": "(library (name payments_errors))\n"}
    for kind in _ML_KINDS:
        files[f"src/{kind}.ml"] = _ml_module("errors", kind, 1)
    names = [f"test_{kind}" for kind in _ML_KINDS]
    files["test/dune"] = f"(tests (names {' '.join(names)}) (libraries payments_errors))\n"
    for kind in _ML_KINDS:
        body = _ml_test("errors", kind, 50)
        body += (
            f'\nlet () = print_endline (Payments_errors.{kind.capitalize()}.handle_error (Failed "card_declined"))\n'
        )
        files[f"test/test_{kind}.ml"] = body
    write(root, files)
    env = {"XDG_CACHE_HOME": str(root / ".cache"), "DUNE_CACHE": "disabled"}
    return _settle(sh("dune build --root . -j 1 && dune test --root . -j 1 --force", root, env=env), root)


# ---------------------------------------------------------------- Elixir and mix


def _mix_new(root: Path, app: str) -> tuple[Path, str]:
    env = f"HOME={root / 'home'} MIX_HOME={root / 'home/.mix'} MIX_ARCHIVES={root / 'home/.mix/archives'}"
    sh(f"{env} mix new {app}", root)
    return root / app, env


def _ex_module(app_mod: str, area: str, kind: str, *, unused: bool = False, ns: str = "") -> str:
    arg = "attempt" if unused else "_attempt"
    return f"""
    defmodule {".".join(p for p in (app_mod, area.capitalize(), ns, kind) if p)} do
      @moduledoc "{kind} of the {area} service."
      require Logger

      def handle_error({{:failed, payment_id, reason}}, {arg}) do
        {{:retry, payment_id, reason}}
      end

      def handle_error({{:ok, payment_id}}, _attempt), do: {{:ok, payment_id}}

      def backoff(n) when n <= 0, do: 0
      def backoff(n), do: 100 * Integer.pow(2, n - 1)
    end
    """


_EX_KINDS = ["ErrorReporter", "RetryQueue", "FailedPayments", "DeadLetters", "Webhooks", "Ledger"]


_EX_REFUNDS = """
defmodule Refunds.RetryQueue do
  @moduledoc "Retries refunds whose payment failed."

  def handle_error({:failed, payment_id, reason}, attempt) do
    {:retry, payment_id, reason}
  end

  def handle_error({:ok, payment_id}, _attempt), do: {:ok, payment_id}
end
"""


@case(
    "u71_mix_compile_warnings_as_errors",
    "mix",
    clean=False,
    group=GROUP,
    decisive=[
        'warning: variable "attempt" is unused',
        "lib/refunds.ex:4: Refunds.RetryQueue.handle_error/2",
        "Compilation failed due to warnings while using the --warnings-as-errors option",
    ],
)
def _mix_compile_fail(root: Path) -> bytes:
    env = f"HOME={root / 'home'} MIX_HOME={root / 'home/.mix'} MIX_ARCHIVES={root / 'home/.mix/archives'}"
    sh(f"{env} mix new platform --umbrella", root)
    apps = root / "platform/apps"
    for area in WORDS:
        sh(f"{env} mix new {area}", apps)
        if area == "refunds":
            write(apps / area, {"lib/refunds.ex": _EX_REFUNDS})
            continue
        files = {}
        for version in (1, 2, 3, 4):
            for kind in _EX_KINDS:
                snake = "".join("_" + c.lower() if c.isupper() else c for c in kind).lstrip("_")
                files[f"lib/{area}/v{version}/{snake}.ex"] = _ex_module(area.capitalize(), "", kind, ns=f"V{version}")
        write(apps / area, files)
    cmd = f"{env} ERL_FLAGS='+S 1' mix compile --warnings-as-errors --force --verbose"
    return _settle(sh(cmd, root / "platform"), root)


def _ex_tests(app_mod: str, areas: list[str], n: int, broken: tuple[str, int] | None = None) -> str:
    """One test module, a ``describe`` block per area."""
    blocks = []
    for area in areas:
        cap = area.capitalize()
        tests = []
        for i in range(1, n + 1):
            want = 100 * 2**i if broken == (area, i) else 100 * 2 ** (i - 1)
            tests.append(
                f'    test "retry {i} doubles the delay" do\n'
                f"      assert {app_mod}.{cap}.RetryQueue.backoff({i}) == {want}\n    end\n\n"
                f'    test "handle_error {i} retries the failed payment" do\n'
                f'      assert {app_mod}.{cap}.ErrorReporter.handle_error({{:failed, "p{i}", :declined}}, {i}) ==\n'
                f'               {{:retry, "p{i}", :declined}}\n    end\n'
            )
        blocks.append(f'  describe "{area}" do\n' + "\n".join(tests) + "  end\n")
    return f"defmodule {app_mod}.RetryTest do\n  use ExUnit.Case\n\n" + "\n".join(blocks) + "end\n"


@case(
    "u71_mix_test_trace_one_failure",
    "mix",
    clean=False,
    group=GROUP,
    decisive=[
        "1) test refunds retry 9 doubles the delay (Billing.RetryTest)",
        "test/billing/retry_test.exs:805",
        "400 tests, 1 failure",
    ],
)
def _mix_test_fail(root: Path) -> bytes:
    proj, env = _mix_new(root, "billing")
    (proj / "test/billing_test.exs").unlink()
    files = {}
    for area in _AREAS:
        for kind in _EX_KINDS[:2]:
            snake = "".join("_" + c.lower() if c.isupper() else c for c in kind).lstrip("_")
            files[f"lib/billing/{area}/{snake}.ex"] = _ex_module("Billing", area, kind)
    files["test/billing/retry_test.exs"] = _ex_tests("Billing", _AREAS, 20, broken=("refunds", 9))
    write(proj, files)
    return _settle(sh(f"{env} ERL_FLAGS='+S 1' mix test --trace --seed 0", proj), root)


@case(
    "u71_mix_test_clean_failed_payments",
    "mix",
    clean=True,
    group=GROUP,
    decisive=["300 tests, 0 failures"],
)
def _mix_test_clean(root: Path) -> bytes:
    proj, env = _mix_new(root, "failed_payments")
    (proj / "test/failed_payments_test.exs").unlink()
    files = {}
    for area in _AREAS[:6]:
        for kind in _EX_KINDS[:2]:
            snake = "".join("_" + c.lower() if c.isupper() else c for c in kind).lstrip("_")
            files[f"lib/failed_payments/{area}/{snake}.ex"] = _ex_module("FailedPayments", area, kind)
    files["test/failed_payments/retry_test.exs"] = _ex_tests("FailedPayments", _AREAS[:6], 25)
    write(proj, files)
    cmd = f"{env} ERL_FLAGS='+S 1' mix compile && {env} ERL_FLAGS='+S 1' mix test --trace --seed 0"
    return _settle(sh(cmd, proj), root)


# ---------------------------------------------------------------- Erlang: erlc and EUnit

_ERL_KINDS = ["error_reporter", "retry_queue", "failed_payments", "ledger_sync", "webhook_sender", "dead_letters"]

_ERL_MAKEFILE = """
ERLS := $(sort $(wildcard src/*.erl))
BEAMS := $(patsubst src/%.erl,ebin/%.beam,$(ERLS))

all: $(BEAMS)

ebin/%.beam: src/%.erl
\terlc -Wall +warn_export_vars +warn_unused_import -o ebin $<
"""


def _erl_module(name: str, k: int, *, broken: bool = False) -> str:
    head = f"-module({name}).\n-export([handle_error/2, backoff/1]).\n\n"
    body = (
        "%% Retries a failed payment with exponential backoff.\n"
        "handle_error({failed, PaymentId, Reason}, Attempt) ->\n"
        "    {retry, PaymentId, Reason, backoff(Attempt)};\n"
        "handle_error({ok, PaymentId}, _Attempt) ->\n"
        "    {ok, PaymentId}.\n\n"
        "backoff(N) when N =< 0 -> 0;\n"
        "backoff(N) -> 100 * (1 bsl (N - 1)).\n"
    )
    if broken:
        body = body.replace("{retry, PaymentId, Reason, backoff(Attempt)}", "handle_error(PaymentId, Reason, Attempt)")
    if k % 2 == 0:
        body += (
            "\nsummarise(Events) ->\n    Failed = [E || {failed, _, _} = E <- Events],\n"
            "    Retries = length(Events),\n    length(Events).\n"
        )
    if k % 3 == 0:
        body += "\nclassify(Reason) ->\n    case Reason of\n        declined -> Status = soft;\n"
        body += "        _ -> Status = hard\n    end,\n    Status.\n"
    return head + body


@case(
    "u71_erlc_make_k_undefined_function",
    "erlc",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refunds_retry_queue.erl:6:5: function handle_error/3 undefined",
        "ebin/refunds_retry_queue.beam] Error 1",
        "Target 'all' not remade because of errors.",
    ],
)
def _erlc_fail(root: Path) -> bytes:
    files = {"Makefile": _ERL_MAKEFILE, "ebin/.keep": ""}
    for area in _AREAS:
        for k, kind in enumerate(_ERL_KINDS):
            name = f"{area}_{kind}"
            files[f"src/{name}.erl"] = _erl_module(name, k, broken=name == "refunds_retry_queue")
    write(root, files)
    return _settle(sh("make -k -j1", root), root)


def _erl_tests(mod: str, target: str, n: int, broken: int = 0, logs: bool = False) -> str:
    lines = [f'-module({mod}).\n-include_lib("eunit/include/eunit.hrl").\n\n']
    for i in range(1, n + 1):
        want = 100 * 2 ** (i - 1) if i != broken else 100 * 2**i
        log = (
            f'    logger:error("payment ~s failed: card_declined, retry ~p scheduled", ["p{i}", {i}]),\n'
            if logs
            else ""
        )
        lines.append(f"retry_backoff_{i}_test() ->\n{log}    ?assertEqual({want}, {target}:backoff({i})).\n\n")
        lines.append(
            f"handle_error_{i}_test() ->\n"
            f'    ?assertMatch({{retry, "p{i}", declined, _}},\n'
            f'                 {target}:handle_error({{failed, "p{i}", declined}}, 1)).\n\n'
        )
    return "".join(lines)


def _eunit(root: Path, mods: list[str], *, verbose: bool = True) -> bytes:
    sh("erlc -o ebin src/*.erl", root)
    names = ",".join(mods)
    opts = "[verbose]" if verbose else "[]"
    # the logger's handler synchronous, so that its reports come in the order they are made
    sync = "logger:update_handler_config(default, config, #{sync_mode_qlen => 0}), " if not verbose else ""
    return sh(f"erl -noshell -pa ebin -eval '{sync}eunit:test([{names}], {opts})' -s init stop", root)


@case(
    "u71_eunit_assert_equal_failure",
    "eunit",
    clean=False,
    group=GROUP,
    decisive=["ledger_retry_tests: retry_backoff_11_test...*failed*", "{expected,204800}", "Failed: 1.  Skipped: 0."],
)
def _eunit_fail(root: Path) -> bytes:
    files = {"ebin/.keep": ""}
    mods = []
    for area in [*_AREAS, "ledger", "webhooks"]:
        files[f"src/{area}_retry_queue.erl"] = _erl_module(f"{area}_retry_queue", 1)
        files[f"src/{area}_retry_tests.erl"] = _erl_tests(
            f"{area}_retry_tests", f"{area}_retry_queue", 20, broken=11 if area == "ledger" else 0
        )
        mods.append(f"{area}_retry_tests")
    write(root, files)
    return _settle(_eunit(root, mods), root)


@case(
    "u71_eunit_clean_error_reporter",
    "eunit",
    clean=True,
    group=GROUP,
    decisive=["All 480 tests passed."],
)
def _eunit_clean(root: Path) -> bytes:
    files = {"ebin/.keep": ""}
    mods = []
    for kind in _ERL_KINDS:
        files[f"src/{kind}.erl"] = _erl_module(kind, 1)
        files[f"src/{kind}_tests.erl"] = _erl_tests(f"{kind}_tests", kind, 40, logs=True)
        mods.append(f"{kind}_tests")
    write(root, files)
    return _settle(_eunit(root, mods, verbose=False), root)
