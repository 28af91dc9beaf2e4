"""Held-out outputs (group ``unseen-116``): a hundred-and-sixteenth batch, Haskell as an agent runs it on a generated
payments project, offline with Debian's GHC 9.0 and its libraries only (``ghc --make``, ``cabal build`` and ``cabal
test`` with ``--offline`` against the global package database, hspec with QuickCheck, hlint; no Hackage). Every project
is generated in the scenario's folder: per business area a ``Payments.<Area>.Types`` and a ``Payments.<Area>.Core``
module (areas such as ``FailedPayments``, ``ErrorCodes``, ``RetryQueue``, ``ExceptionReport``), a ``settle`` program
that prints one line per payment with its error code, and per-area hspec specs, so clean runs are full of those words.

Failing runs: ``ghc --make -Wall -keep-going`` of 44 modules with hundreds of warnings where
``Payments.RetryQueue.Backoff`` returns a string as an ``Int`` (GHC's multi-line ``Couldn't match type`` block in the
middle), ``cabal build`` and ``cabal test`` where one hspec example of about 500 fails (the backoff is capped),
``settle --oldest-dispute`` over 2,000 payments ending in ``Prelude.head: empty list``, a shell loop of ``settle`` over
six batch files where the third dies of an ``error`` call with its CallStack (an unknown error code) and the others
go on, ``hlint`` over the tree with hundreds of suggestions and one restricted function (``unsafePerformIO``), and a
compiled hspec suite (specdoc format, fixed seed) whose one QuickCheck property is falsified. Clean runs: ``ghc
--make -Wall`` with warnings then ``settle`` over a batch, ``cabal build`` and ``cabal test`` with every example
passing, ``cabal build -v2`` then ``hlint`` with no hints, and ``settle`` over six batch files at once. Durations, the
folder and the hspec seed are replaced with fixed text. Labels were written with each scenario, before the engine saw
the output. Needs Debian ``ghc``, ``cabal-install``, ``libghc-hspec-dev`` and ``hlint``.
"""

from __future__ import annotations

import random
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-116"

_AREAS = [
    "FailedPayments", "ErrorCodes", "RetryQueue", "ExceptionReport", "Ledger", "Invoice", "Refunds", "Billing",
    "Tax", "Coupons", "Pricing", "Shipping", "Webhooks", "Audit", "Session", "Auth", "Orders", "Cart", "Catalog",
    "Export",
]  # fmt: skip

_GHC_FLAGS = "-fdiagnostics-color=never -j1"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, the seed."""
    return substitute(
        scrub(out, root),
        (r"Finished in \d+\.\d+ seconds", "Finished in 0.0100 seconds"),
        (r"Randomized with seed \d+", "Randomized with seed 1"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"ghc\d+_\d+", "ghc1000_0"),
        (r"objs-\d+", "objs-1000"),
        (r"/ar\d+-", "/ar1000-"),
        (r"package-registration--\d+", "package-registration--1000"),
    )


def _lc(name: str) -> str:
    return name[0].lower() + name[1:]


def _types(area: str, noisy: bool) -> str:
    v = _lc(area)
    imp = "import Data.Char (toUpper)\n\n" if noisy else ""
    return (
        f"module Payments.{area}.Types\n  ( {area} (..)\n  , mk{area}\n  ) where\n\n{imp}"
        f"data {area} = {area}\n  {{ {v}Id :: Int\n  , {v}Amount :: Int\n  , {v}Status :: String\n  }}\n"
        "  deriving (Show, Eq)\n\n"
        f"mk{area} :: Int -> Int -> {area}\n"
        f'mk{area} i a = {area} i a (if a > 0 then "settled" else "failed")\n'
    )


def _core(area: str, dep: str, noisy: bool) -> str:
    v = _lc(area)
    d = _lc(dep) if dep else ""
    head = (
        f"module Payments.{area}.Core\n  ( {v}Total\n  , {v}Describe\n  , {v}Retry\n  , {v}Classify\n"
        + (f"  , {v}Flags\n  , {v}Codes\n" if noisy else "")
        + "  ) where\n\n"
        "import Data.List (foldl', sortOn)\n"
        + ("import Data.Maybe (fromMaybe)\nimport qualified Data.Map.Strict as Map\n" if noisy else "")
        + f"import Payments.{area}.Types\n"
        + (f"import Payments.{dep}.Core ({d}Total)\n" if dep else "")
        + "\n"
    )
    plus = f" + {d}Total []" if dep else ""
    body = f"{v}Total :: [{area}] -> Int\n{v}Total xs = foldl' (+) 0 (map {v}Amount xs){plus}\n\n"
    if noisy:
        body += (
            f'{v}Describe x = "{v} #" ++ show ({v}Id x) ++ " " ++ {v}Status x\n\n'
            f"{v}Retry :: Int -> Int\n{v}Retry attempt = let backoff = attempt * 2 in attempt + 1\n\n"
            f"{v}Classify :: {area} -> String\n{v}Classify r = case {v}Status r of\n"
            '  "failed" -> "retry"\n  "settled" -> "done"\n\n'
            f"{v}Index :: [{area}] -> Map.Map Int {area}\n"
            f"{v}Index xs = Map.fromList [({v}Id x, x) | x <- sortOn {v}Id xs]\n\n"
            f"{v}Flags :: [{area}] -> [Bool]\n"
            f"{v}Flags xs = map (\\x -> if {v}Amount x > 0 then True else False) xs\n\n"
            f"{v}Codes :: [{area}] -> String\n{v}Codes xs = concat (map (\\x -> (show ({v}Id x))) xs)\n"
        )
    else:
        body += (
            f"{v}Describe :: {area} -> String\n"
            f'{v}Describe x = "{v} #" ++ show ({v}Id x) ++ " " ++ {v}Status x\n\n'
            f"{v}Retry :: Int -> Int\n{v}Retry attempt = attempt + 1\n\n"
            f"{v}Classify :: {area} -> String\n{v}Classify r\n"
            f'  | {v}Status r == "failed" = "retry"\n  | otherwise = "done"\n\n'
            f"-- | The {v} records by id, highest amount last.\n"
            f"{v}Sorted :: [{area}] -> [{area}]\n{v}Sorted = sortOn {v}Amount\n"
        )
        head = head.replace(f"  , {v}Classify\n", f"  , {v}Classify\n  , {v}Sorted\n")
    return head + body


_BACKOFF = {
    "capped": """
        module Payments.RetryQueue.Backoff
          ( retryQueueBackoff
          ) where

        -- | Milliseconds to wait before the given attempt (1-based) of a failed payment.
        retryQueueBackoff :: Int -> Int
        retryQueueBackoff attempt = min 6400 (100 * 2 ^ (attempt - 1))
    """,
    "fixed": """
        module Payments.RetryQueue.Backoff
          ( retryQueueBackoff
          ) where

        -- | Milliseconds to wait before the given attempt (1-based) of a failed payment.
        retryQueueBackoff :: Int -> Int
        retryQueueBackoff attempt = 100 * 2 ^ (attempt - 1)
    """,
    "broken": """
        module Payments.RetryQueue.Backoff
          ( retryQueueBackoff
          , retryQueueLabels
          ) where

        import Payments.RetryQueue.Types

        retryQueueBackoff :: Int -> Int
        retryQueueBackoff attempt = 100 * 2 ^ (attempt - 1)

        retryQueueLabels :: [RetryQueue] -> [Int]
        retryQueueLabels qs = map retryQueueStatus qs
    """,
}

_DESCRIBE = """
    module Payments.ErrorCodes.Describe
      ( describeCode
      ) where

    describeCode :: String -> String
    describeCode "OK00" = "approved"
    describeCode "E100" = "card declined"
    describeCode "E101" = "insufficient funds"
    describeCode "E102" = "expired card"
    describeCode "E200" = "gateway timeout"
    describeCode "E201" = "issuer unavailable"
    describeCode other = error ("ErrorCodes.describeCode: unknown error code " ++ other)
"""

_MAIN = """
    module Main (main) where

    import Control.Monad (forM_, when)
    import Data.List (isPrefixOf, partition)
    import System.Environment (getArgs)
    import System.IO (BufferMode (LineBuffering), hSetBuffering, stdout)

    import Payments.ErrorCodes.Describe (describeCode)
    import Payments.Report (areaSummaries)
    import Payments.RetryQueue.Backoff (retryQueueBackoff)

    data Payment = Payment
      { paymentId :: String
      , amount :: Int
      , status :: String
      , code :: String
      , attempts :: Int
      }

    splitOn :: Char -> String -> [String]
    splitOn c s = case break (== c) s of
      (a, []) -> [a]
      (a, _ : rest) -> a : splitOn c rest

    parsePayment :: String -> Payment
    parsePayment line = case splitOn ',' line of
      [a, b, c, d, e] -> Payment a (read b) c d (read e)
      _ -> error ("malformed payment line: " ++ line)

    action :: Payment -> String
    action p
      | status p == "settled" = "ledger"
      | attempts p < 5 = "retry queue (next attempt in " ++ show (retryQueueBackoff (attempts p + 1)) ++ "ms)"
      | otherwise = "failed payments report"

    render :: Payment -> String
    render p =
      "payment " ++ paymentId p ++ " amount=" ++ show (amount p) ++ " status=" ++ status p
        ++ " code=" ++ code p ++ " (" ++ describeCode (code p) ++ ")"
        ++ " attempts=" ++ show (attempts p) ++ " -> " ++ action p

    main :: IO ()
    main = do
      hSetBuffering stdout LineBuffering
      (flags, files) <- partition ("--" `isPrefixOf`) <$> getArgs
      forM_ areaSummaries $ \\(area, n) -> putStrLn ("area " ++ area ++ " ready (" ++ show n ++ ")")
      forM_ files $ \\f -> do
        rows <- map parsePayment . filter (not . null) . drop 1 . lines <$> readFile f
        putStrLn ("settling " ++ f)
        mapM_ (putStrLn . render) rows
        let failed = [p | p <- rows, status p == "failed"]
            queued = [p | p <- failed, attempts p < 5]
        putStrLn
          ( "ExceptionReport for " ++ f ++ ": " ++ show (length rows) ++ " payments, "
              ++ show (length failed) ++ " failed, " ++ show (length queued) ++ " queued for retry"
          )
        when ("--oldest-dispute" `elem` flags) $ do
          let oldest = head [p | p <- rows, status p == "disputed"]
          putStrLn ("oldest dispute: " ++ paymentId oldest)
      putStrLn ("settled " ++ show (length files) ++ " batch file(s), 0 unhandled exceptions")
"""


def _report(areas: list[str]) -> str:
    imports = "".join(f"import qualified Payments.{a}.Core as {a}\n" for a in areas)
    rows = "\n  , ".join(f'("{a}", {a}.{_lc(a)}Retry {i})' for i, a in enumerate(areas))
    return (
        f"module Payments.Report\n  ( areaSummaries\n  ) where\n\n{imports}\n"
        f"areaSummaries :: [(String, Int)]\nareaSummaries =\n  [ {rows}\n  ]\n"
    )


def _modules(areas: list[str]) -> list[str]:
    mods = [f"Payments.{a}.{k}" for a in areas for k in ("Types", "Core")]
    return [*mods, "Payments.ErrorCodes.Describe", "Payments.Report", "Payments.RetryQueue.Backoff"]


def _project(root: Path, *, noisy: bool, backoff: str, areas: list[str] = _AREAS) -> None:
    files: dict[str, str] = {}
    for i, a in enumerate(areas):
        dep = areas[i // 2] if i else ""
        files[f"src/Payments/{a}/Types.hs"] = _types(a, noisy)
        files[f"src/Payments/{a}/Core.hs"] = _core(a, dep, noisy)
    files["src/Payments/Report.hs"] = _report(areas)
    files["src/Payments/RetryQueue/Backoff.hs"] = _BACKOFF[backoff]
    files["src/Payments/ErrorCodes/Describe.hs"] = _DESCRIBE
    files["app/Main.hs"] = _MAIN
    write(root, files)
    (root / "bin").mkdir()


_CODES = ["E100", "E101", "E102", "E200", "E201"]


def _batch(rng: random.Random, prefix: str, n: int, *, unknown: int = -1) -> str:
    rows = ["payment_id,amount,status,error_code,attempts"]
    for k in range(n):
        if rng.random() < 0.7:
            status, code, tries = "settled", "OK00", 1
        else:
            status, code, tries = "failed", rng.choice(_CODES), rng.randint(1, 6)
        if k == unknown:
            status, code, tries = "failed", "E999", 2
        rows.append(f"{prefix}{k:05d},{rng.randint(100, 250000)},{status},{code},{tries}")
    return "\n".join(rows) + "\n"


def _ghc_make(root: Path, extra: str = "") -> str:
    return f"ghc --make {_GHC_FLAGS} -Wall -isrc -iapp -outputdir build -o bin/settle {extra} app/Main.hs"


@case(
    "u116_ghc_make_keep_going_type_error",
    "ghc",
    clean=False,
    group=GROUP,
    decisive=[
        "src/Payments/RetryQueue/Backoff.hs:12:",
        "Couldn't match type ‘[Char]’ with ‘Int’",
        "In an equation for ‘retryQueueLabels’",
    ],
)
def _ghc_type_error(root: Path) -> bytes:
    _project(root, noisy=True, backoff="broken")
    return _settle(sh(_ghc_make(root, "-fkeep-going"), root), root)


@case(
    "u116_ghc_make_warnings_then_settle_clean",
    "ghc",
    clean=True,
    group=GROUP,
    decisive=["Linking bin/settle", "settled 1 batch file(s), 0 unhandled exceptions"],
)
def _ghc_clean(root: Path) -> bytes:
    _project(root, noisy=True, backoff="fixed")
    write(root, {"data/failed-payments-2024-03.csv": _batch(random.Random(116), "FP", 600)})
    return _settle(sh(f"{_ghc_make(root)} && bin/settle data/failed-payments-2024-03.csv", root), root)


@case(
    "u116_settle_head_empty_list",
    "ghc",
    clean=False,
    group=GROUP,
    decisive=["Prelude.head: empty list", "[exit status 1]"],
)
def _head_empty(root: Path) -> bytes:
    _project(root, noisy=False, backoff="fixed")
    write(root, {"data/retry-queue-export.csv": _batch(random.Random(7), "RQ", 2000)})
    sh(_ghc_make(root), root)
    return _settle(sh("bin/settle --oldest-dispute data/retry-queue-export.csv", root), root)


@case(
    "u116_settle_loop_error_callstack",
    "ghc",
    clean=False,
    group=GROUP,
    decisive=[
        "ErrorCodes.describeCode: unknown error code E999",
        "error, called at src/Payments/ErrorCodes/Describe.hs:12:",
        "settle batches/ledger-03.csv: exit 1",
    ],
)
def _loop_callstack(root: Path) -> bytes:
    _project(root, noisy=False, backoff="fixed")
    rng = random.Random(31)
    batches = {
        f"batches/ledger-0{i}.csv": _batch(rng, f"L{i}", 450, unknown=200 if i == 3 else -1) for i in range(1, 7)
    }
    write(root, batches)
    sh(_ghc_make(root), root)
    loop = 'for f in batches/*.csv; do bin/settle "$f" || echo "settle $f: exit $?"; done'
    return _settle(sh(loop, root), root)


@case(
    "u116_settle_six_batches_clean",
    "ghc",
    clean=True,
    group=GROUP,
    decisive=["settled 6 batch file(s), 0 unhandled exceptions"],
)
def _six_batches(root: Path) -> bytes:
    _project(root, noisy=False, backoff="fixed")
    rng = random.Random(32)
    names = ["failed-payments", "error-codes", "retry-queue", "exception-report", "refunds", "webhooks"]
    write(root, {f"batches/{n}.csv": _batch(rng, n[:2].upper(), 300) for n in names})
    sh(_ghc_make(root), root)
    return _settle(sh("bin/settle " + " ".join(f"batches/{n}.csv" for n in names), root), root)


# ---------------------------------------------------------------- cabal and hspec


def _spec(area: str) -> str:
    v = _lc(area)
    lines = [
        f"module Payments.{area}Spec\n  ( spec\n  ) where\n\nimport Test.Hspec\n\n"
        f"import Payments.{area}.Core\nimport Payments.{area}.Types\n\n"
        f'spec :: Spec\nspec = describe "Payments.{area}.Core" $ do\n  describe "{v}Retry" $ do\n'
    ]
    lines += [f'    it "moves attempt {n} to attempt {n + 1}" $ {v}Retry {n} `shouldBe` {n + 1}\n' for n in range(1, 9)]
    lines.append(f'  describe "{v}Classify" $ do\n')
    for n in range(8):
        amount = n * 250
        want = "done" if amount > 0 else "retry"
        check = f'{v}Classify (mk{area} {n} {amount}) `shouldBe` "{want}"'
        lines.append(f'    it "sends {v} #{n} of {amount} cents to {want}" $ {check}\n')
    lines.append(f'  describe "{v}Describe" $ do\n')
    for n in range(1, 5):
        lines.append(
            f'    it "describes {v} #{n} as settled" $ {v}Describe (mk{area} {n} 10) `shouldBe` "{v} #{n} settled"\n'
        )
    lines.append(f'  describe "{v}Total" $ do\n')
    for n in range(1, 5):
        lines.append(
            f'    it "adds {n} {v} records" $ {v}Total [mk{area} k 100 | k <- [1 .. {n}]] `shouldBe` {n * 100}\n'
        )
    return "".join(lines)


_BACKOFF_SPEC = """
    module Payments.RetryQueue.BackoffSpec
      ( spec
      ) where

    import Test.Hspec

    import Payments.RetryQueue.Backoff

    spec :: Spec
    spec = describe "Payments.RetryQueue.Backoff" $ do
      describe "retryQueueBackoff" $ do
{items}
"""


def _test_files(areas: list[str]) -> dict[str, str]:
    items = "".join(
        f'        it "doubles the delay before attempt {n}" $ retryQueueBackoff {n} `shouldBe` {100 * 2 ** (n - 1)}\n'
        for n in range(1, 9)
    )
    files = {f"test/Payments/{a}Spec.hs": _spec(a) for a in areas}
    files["test/Payments/RetryQueue/BackoffSpec.hs"] = _BACKOFF_SPEC.replace("{items}\n", items)
    specs = [f"Payments.{a}Spec" for a in areas] + ["Payments.RetryQueue.BackoffSpec"]
    imports = "".join(f"import qualified {s}\n" for s in specs)
    calls = "".join(f"  {s}.spec\n" for s in specs)
    files["test/Spec.hs"] = (
        f"module Main (main) where\n\nimport Test.Hspec\n\n{imports}\nmain :: IO ()\nmain = hspec $ do\n{calls}"
    )
    return files


def _cabal_project(root: Path, areas: list[str] = _AREAS) -> None:
    mods = "\n".join(f"    {m}" for m in _modules(areas))
    specs = "\n".join(f"    Payments.{a}Spec" for a in areas)
    write(root, _test_files(areas))
    write(
        root,
        {
            "failed-payments.cabal": "cabal-version: 2.4\nname: failed-payments\nversion: 0.4.2.0\n"
            "synopsis: Failed payments, error codes, the retry queue and the exception report\n"
            "build-type: Simple\n\nlibrary\n  hs-source-dirs: src\n  exposed-modules:\n"
            f"{mods}\n  build-depends: base, containers\n  default-language: Haskell2010\n  ghc-options: -Wall\n\n"
            "executable settle\n  main-is: Main.hs\n  hs-source-dirs: app\n"
            "  build-depends: base, failed-payments\n  default-language: Haskell2010\n\n"
            "test-suite payments-spec\n  type: exitcode-stdio-1.0\n  main-is: Spec.hs\n  hs-source-dirs: test\n"
            f"  other-modules:\n{specs}\n    Payments.RetryQueue.BackoffSpec\n"
            "  build-depends: base, hspec, failed-payments\n  default-language: Haskell2010\n",
            "cabal.project": "packages: .\ntests: True\n",
            "home/.cabal/config": "jobs: 1\n",
        },
    )


def _cabal(root: Path) -> str:
    return f"HOME={root / 'home'} CABAL_DIR={root / 'home/.cabal'} cabal --offline"


@case(
    "u116_cabal_test_one_failure",
    "cabal",
    clean=False,
    group=GROUP,
    decisive=["doubles the delay before attempt 8 FAILED", "but got: 6400", "examples, 1 failure"],
)
def _cabal_test_fail(root: Path) -> bytes:
    _project(root, noisy=True, backoff="capped")
    _cabal_project(root)
    cabal = _cabal(root)
    return _settle(sh(f"{cabal} build all && {cabal} test --test-show-details=direct", root), root)


@case(
    "u116_cabal_test_clean",
    "cabal",
    clean=True,
    group=GROUP,
    decisive=["examples, 0 failures", "1 of 1 test suites (1 of 1 test cases) passed."],
)
def _cabal_test_clean(root: Path) -> bytes:
    _project(root, noisy=False, backoff="fixed")
    _cabal_project(root)
    cabal = _cabal(root)
    return _settle(sh(f"{cabal} build all && {cabal} test --test-show-details=direct", root), root)


# ---------------------------------------------------------------- hlint


_CACHE = """
    module Payments.ExceptionReport.Cache
      ( reportCache
      , remember
      ) where

    import Data.IORef (IORef, modifyIORef', newIORef)
    import System.IO.Unsafe (unsafePerformIO)

    -- | Every exception report line seen by this process, newest first.
    reportCache :: IORef [String]
    reportCache = unsafePerformIO (newIORef [])
    {-# NOINLINE reportCache #-}

    remember :: String -> IO ()
    remember line = modifyIORef' reportCache (line :)
"""

_HLINT_YAML = """
    # Project rules: no hidden global state in the payments code.
    - functions:
      - {name: unsafePerformIO, within: []}
    - error: {name: Avoid restricted function}
"""


@case(
    "u116_hlint_restricted_function",
    "hlint",
    clean=False,
    group=GROUP,
    decisive=["src/Payments/ExceptionReport/Cache.hs:11:15-29: Error: Avoid restricted function", " hints"],
)
def _hlint_fail(root: Path) -> bytes:
    _project(root, noisy=True, backoff="fixed")
    write(root, {"src/Payments/ExceptionReport/Cache.hs": _CACHE, ".hlint.yaml": _HLINT_YAML})
    return _settle(sh("hlint src app", root), root)


@case(
    "u116_cabal_v2_build_hlint_clean",
    "hlint",
    clean=True,
    group=GROUP,
    decisive=["No hints"],
)
def _hlint_clean(root: Path) -> bytes:
    _project(root, noisy=False, backoff="fixed")
    _cabal_project(root)
    return _settle(sh(f"{_cabal(root)} build -v2 exe:settle && hlint src app test", root), root)


# ---------------------------------------------------------------- a compiled hspec suite with QuickCheck


_POLICY = """
    module Payments.Refunds.Policy
      ( refundable
      ) where

    -- | How much of a captured amount (cents) a refund request may give back.
    refundable :: Int -> Int -> Int
    refundable captured requested
      | requested > 2 * captured = captured
      | otherwise = requested
"""

_POLICY_SPEC = """
    module Payments.Refunds.PolicySpec
      ( spec
      ) where

    import Test.Hspec
    import Test.QuickCheck

    import Payments.Refunds.Policy

    spec :: Spec
    spec = describe "Payments.Refunds.Policy" $ do
      describe "refundable" $ do
        it "gives back a small request whole" $ refundable 1000 250 `shouldBe` 250
        it "never gives back a negative amount" $ property $ \\(Positive c) (NonNegative r) -> refundable c r >= 0
        it "never refunds more than the captured amount" $ property $ \\(Positive c) (NonNegative r) ->
          refundable c r <= c
"""


@case(
    "u116_hspec_quickcheck_falsified",
    "hspec",
    clean=False,
    group=GROUP,
    decisive=[
        "1) Payments.Refunds.Policy.refundable never refunds more than the captured amount",
        "Falsified (after 3 tests):",
        "examples, 1 failure",
    ],
)
def _hspec_qc(root: Path) -> bytes:
    _project(root, noisy=False, backoff="fixed")
    files = _test_files(_AREAS)
    files["test/Payments/Refunds/PolicySpec.hs"] = _POLICY_SPEC
    files["test/Spec.hs"] = (
        files["test/Spec.hs"]
        .replace(
            "import qualified Payments.RefundsSpec\n",
            "import qualified Payments.RefundsSpec\nimport qualified Payments.Refunds.PolicySpec\n",
        )
        .replace("  Payments.RefundsSpec.spec\n", "  Payments.RefundsSpec.spec\n  Payments.Refunds.PolicySpec.spec\n")
    )
    files["src/Payments/Refunds/Policy.hs"] = _POLICY
    write(root, files)
    build = f"ghc --make {_GHC_FLAGS} -isrc -itest -outputdir build -o bin/payments-spec test/Spec.hs"
    return _settle(sh(f"{build} && bin/payments-spec --format=specdoc --seed 116", root), root)
