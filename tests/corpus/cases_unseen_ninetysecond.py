"""Held-out outputs (group ``unseen-92``): a ninety-second batch, C# and .NET on Mono as an agent runs it on generated
projects, offline: Mono's ``mcs`` driven by ``make -k``, ``xbuild`` with detailed verbosity, ``mono --debug`` running
programs, ``nunit-console`` 2.6 with ``-labels``, a hand-written reflection test runner, the ``csharp`` script shell and
``monodis``.

Failing runs: ``make -k`` of seven assemblies (44 files, hundreds of CS0168/CS0219/CS0414/CS0618/CS0162 warnings) where
``Billing.Retry``'s ``RetryQueue.cs`` names an undeclared ``retryDelayMs`` (CS0103) in the middle and the other
assemblies go on building; ``xbuild /v:detailed`` of six projects where ``Billing.Ledger`` calls a missing member
(CS1061); a shell loop of ``mono --debug`` over five settlement batches where the third dies of an unhandled
``InvalidOperationException`` with an inner ``FormatException``; ``nunit-console -labels`` of 264 chatty tests with one
failed backoff assertion; a hand-written runner printing 312 checks with one failure in the middle; and a ``csharp``
report script with a CS0029 and a CS1061 among 300 printed rows (the shell exits 0). Clean runs named after errors and
failures: ``make`` of the same seven assemblies (``ErrorCodes``, ``FailedPayments``, ``RetryQueue``,
``ExceptionReport``) then the app's report, ``xbuild /v:detailed`` of the fixed projects, NUnit with every test
passing, ``monodis`` of ``Billing.Errors.dll``, and a retry worker that logs handled exceptions and error codes.
Labels were written with each scenario, before the engine saw the output. Needs Mono 6.8 with mcs, xbuild, csharp,
monodis and NUnit 2.6 (Debian ``mono-devel``, ``mono-mcs``, ``mono-xbuild``, ``mono-csharp-shell``, ``mono-utils``,
``nunit-console``) and make.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-92"

_NUNIT = "/usr/lib/cli/nunit.framework-2.6.3/nunit.framework.dll"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, module ids, GUIDs, dates and durations."""
    return substitute(
        scrub(out, root),
        (r"<[0-9a-f]{32}>", "<00000000000000000000000000000000>"),
        (r"GUID = \{[0-9A-F-]{36}\}", "GUID = {00000000-0000-0000-0000-000000000000}"),
        (r"Build started \d+/\d+/\d+ \d+:\d+:\d+\.", "Build started 01/01/2026 00:00:00."),
        (r"Time Elapsed [0-9:.]+", "Time Elapsed 00:00:01.0000000"),
        (r"Time: [0-9.]+ seconds", "Time: 1.0 seconds"),
        (r"\(\d+ ms\)", "(1 ms)"),
    )


# ---------------------------------------------------------------- the billing solution

#: Assemblies in build order, each with its classes; every assembly references the first.
_ASSEMBLIES = {
    "Billing.Errors": ["ErrorCodes", "FailedPaymentException", "ExceptionReport", "ErrorCatalog", "FailureReason"],
    "Billing.Retry": ["RetryQueue", "RetryPolicy", "BackoffSchedule", "DeadLetterBox", "FailedPayments", "RetryClock"],
    "Billing.Ledger": ["LedgerEntry", "LedgerPosting", "LedgerBalance", "JournalLine", "AccountBook", "Reconciler"],
    "Billing.Invoice": ["InvoiceBuilder", "InvoiceLine", "TaxRates", "PricingRules", "CouponsEngine", "InvoicePdf"],
    "Billing.Export": ["ExportJob", "CsvWriter", "AuditTrail", "WebhooksOut", "ShippingLabels", "SearchIndex"],
    "Billing.Refunds": ["RefundPolicy", "RefundsFlow", "ChargebackDesk", "CartStore", "SessionStore", "OrdersApi"],
    "Billing.App": ["Program", "Startup", "ReportPrinter", "Settings", "HealthCheck", "Scheduler", "ErrorsPage"],
}  # fmt: skip


def _class(ns: str, name: str, dep: str, extra: str = "") -> str:
    """One class full of what ``mcs -warn:4`` warns about; ``dep`` is a class of an earlier assembly it calls."""
    call = f"total += {dep}.Score(cents);" if dep else "total += cents % 7;"
    return (
        "using System;\nusing System.Collections.Generic;\n\n"
        f"namespace {ns}\n{{\n"
        f"    /// <summary>{name}: part of the billing platform.</summary>\n"
        f"    public class {name}\n    {{\n"
        "        private int lastErrorCode = 0;\n"
        "        private string pendingNote;\n"
        "        private static int retryBudget = 5;\n\n"
        '        [Obsolete("use ScoreV2, it rounds failed payments the way the ledger does")]\n'
        "        public static int ScoreV1(int cents) { return cents % 97; }\n\n"
        "        public static int ScoreV2(int cents) { return cents % 89 + retryBudget; }\n\n"
        "        public static int Score(int cents)\n        {\n"
        "            int retries;\n"
        "            int failedAttempts = 3;\n"
        "            var total = ScoreV1(cents);\n"
        f"            {call}\n"
        "            return total;\n"
        '            Console.WriteLine("unreachable after return");\n'
        "        }\n\n"
        "        public string Describe()\n        {\n"
        "            string errorText;\n"
        f'            return "{name} " + ScoreV2(1999);\n'
        f"        }}\n{extra}    }}\n}}\n"
    )


def _solution(root: Path, broken: str = "") -> None:
    """The seven assemblies' sources under ``src/<Assembly>/``; ``broken`` is "cs0103" or "cs1061" or ""."""
    files: dict[str, str] = {}
    for ns, classes in _ASSEMBLIES.items():
        for i, name in enumerate(classes):
            dep = "" if ns == "Billing.Errors" else f"Billing.Errors.{_ASSEMBLIES['Billing.Errors'][i % 5]}"
            extra = ""
            if name == "RetryQueue":
                delay = "retryDelayMs" if broken == "cs0103" else "250"
                extra = (
                    "\n        public int NextDelay(int attempt)\n        {\n"
                    "            var baseDelay = 250;\n"
                    f"            return baseDelay * (1 << attempt) + {delay};\n        }}\n"
                )
            if name == "LedgerEntry":
                extra = "\n        public long Cents { get; set; }\n        public string Account { get; set; }\n"
            if name == "LedgerPosting":
                member = "AmountCents" if broken == "cs1061" else "Cents"
                extra = (
                    "\n        public long Post(LedgerEntry entry)\n        {\n"
                    f"            return entry.{member} * 100 / 100;\n        }}\n"
                )
            if name == "Program":
                extra = (
                    "\n        public static void Main()\n        {\n"
                    "            var report = new List<string>();\n"
                    "            for (int i = 0; i < 240; i++)\n            {\n"
                    "                var code = 400 + i % 30;\n"
                    '                report.Add(string.Format("failed payment P-{0:D5}: error code E{1} '
                    'retried, settled on attempt {2}", 10000 + i, code, 1 + i % 4));\n'
                    "            }\n"
                    "            foreach (var line in report) Console.WriteLine(line);\n"
                    '            Console.WriteLine("ExceptionReport written: 0 unhandled exceptions, '
                    '240 handled FailedPaymentException");\n'
                    '            Console.WriteLine("failed-payments run complete: 240 retried, 0 dead-lettered");\n'
                    "        }\n"
                )
            files[f"src/{ns}/{name}.cs"] = _class(ns, name, dep, extra)
    write(root, files)


def _makefile(root: Path) -> None:
    """A Makefile of the seven assemblies: the app needs them all; Refunds needs Retry; the rest need Errors."""
    rules = ["MCS = mcs -debug -warn:4\n", "all: bin/Billing.App.exe\n"]
    for ns in _ASSEMBLIES:
        if ns == "Billing.App":
            deps = [f"bin/{n}.dll" for n in _ASSEMBLIES if n != ns]
            target, kind = f"bin/{ns}.exe", "exe"
        else:
            deps = [] if ns == "Billing.Errors" else ["bin/Billing.Errors.dll"]
            if ns == "Billing.Refunds":
                deps.append("bin/Billing.Retry.dll")
            target, kind = f"bin/{ns}.dll", "library"
        refs = " ".join(f"-r:{d}" for d in deps)
        rules.append(
            f"{target}: $(wildcard src/{ns}/*.cs) {' '.join(deps)}\n"
            f"\t@mkdir -p bin\n\t$(MCS) -target:{kind} -out:$@ {refs} $(wildcard src/{ns}/*.cs)\n"
        )
    write(root, {"Makefile": "\n".join(rules)})


@case(
    "u92_make_mcs_cs0103",
    "mcs",
    clean=False,
    group=GROUP,
    decisive=[
        "error CS0103: The name `retryDelayMs' does not exist in the current context",
        "make: *** [Makefile:",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _make_cs0103(root: Path) -> bytes:
    _solution(root, broken="cs0103")
    _makefile(root)
    return _settle(sh("make -k -j1", root), root)


@case(
    "u92_make_mcs_clean_failed_payments",
    "mcs",
    clean=True,
    group=GROUP,
    decisive=["failed-payments run complete: 240 retried, 0 dead-lettered"],
)
def _make_clean(root: Path) -> bytes:
    _solution(root)
    _makefile(root)
    return _settle(sh("make -j1 && mono --debug bin/Billing.App.exe", root), root)


@case(
    "u92_monodis_errors_clean",
    "monodis",
    clean=True,
    group=GROUP,
    decisive=[".assembly 'Billing.Errors'"],
)
def _monodis(root: Path) -> bytes:
    _solution(root)
    _makefile(root)
    sh("make -j1 bin/Billing.Errors.dll", root)
    return _settle(sh("monodis bin/Billing.Errors.dll", root), root)


# ---------------------------------------------------------------- xbuild


def _projects(root: Path) -> None:
    """A .csproj per assembly, the app's referencing all the others."""
    for ns, classes in _ASSEMBLIES.items():
        app = ns == "Billing.App"
        refs = [n for n in _ASSEMBLIES if n != ns] if app else ([] if ns == "Billing.Errors" else ["Billing.Errors"])
        if ns == "Billing.Refunds":
            refs.append("Billing.Retry")
        project_refs = "".join(
            f'    <ProjectReference Include="../{r}/{r}.csproj"><Name>{r}</Name></ProjectReference>\n' for r in refs
        )
        compiles = "".join(f'    <Compile Include="{c}.cs" />\n' for c in classes)
        write(
            root,
            {
                f"src/{ns}/{ns}.csproj": (
                    '<Project ToolsVersion="4.0" DefaultTargets="Build" '
                    'xmlns="http://schemas.microsoft.com/developer/msbuild/2003">\n'
                    "  <PropertyGroup>\n"
                    f"    <OutputType>{'Exe' if app else 'Library'}</OutputType>\n"
                    f"    <AssemblyName>{ns}</AssemblyName>\n    <RootNamespace>{ns}</RootNamespace>\n"
                    "    <TargetFrameworkVersion>v4.5</TargetFrameworkVersion>\n"
                    "    <WarningLevel>4</WarningLevel>\n    <DebugSymbols>true</DebugSymbols>\n"
                    "    <OutputPath>bin/Debug</OutputPath>\n  </PropertyGroup>\n"
                    '  <ItemGroup>\n    <Reference Include="System" />\n    <Reference Include="System.Core" />\n'
                    f"  </ItemGroup>\n  <ItemGroup>\n{compiles}  </ItemGroup>\n"
                    f"  <ItemGroup>\n{project_refs}  </ItemGroup>\n"
                    '  <Import Project="$(MSBuildToolsPath)/Microsoft.CSharp.targets" />\n</Project>\n'
                )
            },
        )


@case(
    "u92_xbuild_detailed_cs1061",
    "xbuild",
    clean=False,
    group=GROUP,
    decisive=[
        "LedgerPosting.cs(36,26): error CS1061: Type `Billing.Ledger.LedgerEntry' does not contain a definition "
        "for `AmountCents'",
        "Build FAILED.",
        "1 Error(s)",
    ],
)
def _xbuild_fail(root: Path) -> bytes:
    _solution(root, broken="cs1061")
    _projects(root)
    return _settle(sh("xbuild /v:detailed /nologo src/Billing.App/Billing.App.csproj", root), root)


@case(
    "u92_xbuild_detailed_clean_retry",
    "xbuild",
    clean=True,
    group=GROUP,
    decisive=["Build succeeded.", " 0 Error(s)"],
)
def _xbuild_clean(root: Path) -> bytes:
    _solution(root)
    _projects(root)
    return _settle(sh("xbuild /v:detailed /nologo src/Billing.App/Billing.App.csproj", root), root)


# ---------------------------------------------------------------- mono running programs

_SETTLER = """
using System;
using System.Globalization;
using System.IO;

namespace Billing.Settlement
{
    public class InvoiceSettler
    {
        private readonly string batch;

        public InvoiceSettler(string batch) { this.batch = batch; }

        public static long ParseAmount(string raw)
        {
            return long.Parse(raw.Replace(".", ""), NumberStyles.AllowThousands, CultureInfo.InvariantCulture);
        }

        public long Settle(string id, string raw)
        {
            try
            {
                return ParseAmount(raw);
            }
            catch (FormatException e)
            {
                throw new InvalidOperationException("Settlement of invoice " + id + " failed in " + batch, e);
            }
        }
    }

    public static class Program
    {
        public static int Main(string[] args)
        {
            var settler = new InvoiceSettler(Path.GetFileName(args[0]));
            long total = 0;
            int count = 0;
            foreach (var line in File.ReadAllLines(args[0]))
            {
                var parts = line.Split(';');
                var cents = settler.Settle(parts[0], parts[1]);
                total += cents;
                count++;
                Console.WriteLine("settled {0} for customer {1}: {2} cents (ledger {3}, retry queue empty)",
                    parts[0], parts[2], cents, parts[3]);
            }
            Console.WriteLine("batch {0}: {1} invoices settled, total {2} cents", args[0], count, total);
            return 0;
        }
    }
}
"""


def _batches(root: Path, bad: str = "") -> None:
    files = {}
    for b in range(1, 6):
        rows = []
        for i in range(120):
            n = 2000 + b * 200 + i
            amount = f"{(n * 37) % 9000 + 100}.{n % 100:02d}"
            if f"INV-{n}" == bad:
                amount = "12,50O.00"
            rows.append(f"INV-{n};{amount};CUST-{(n * 13) % 997:04d};LEDGER-{b}{i % 7}")
        files[f"batches/batch-{b:02d}.csv"] = "\n".join(rows) + "\n"
    write(root, {**files, "src/InvoiceSettler.cs": _SETTLER})


@case(
    "u92_mono_unhandled_inner_exception",
    "mono",
    clean=False,
    group=GROUP,
    decisive=[
        "[ERROR] FATAL UNHANDLED EXCEPTION: System.InvalidOperationException: Settlement of invoice INV-2644 failed",
        "System.FormatException: Input string was not in a correct format.",
        "at Billing.Settlement.InvoiceSettler.Settle (System.String id, System.String raw) [0x00027] in "
        "/tmp/work/src/InvoiceSettler.cs:26",
    ],
)
def _mono_unhandled(root: Path) -> bytes:
    _batches(root, bad="INV-2644")
    sh("mcs -debug -out:settle.exe src/InvoiceSettler.cs", root)
    loop = 'for f in batches/*.csv; do echo "== $f"; mono --debug settle.exe "$f" || echo "exit code $? for $f"; done'
    return _settle(sh(loop, root), root)


_WORKER = """
using System;
using System.Collections.Generic;

namespace Billing.Retry
{
    public class TransientPaymentException : Exception
    {
        public int ErrorCode { get; private set; }
        public TransientPaymentException(int code) : base("gateway said E" + code) { ErrorCode = code; }
    }

    public static class RetryWorker
    {
        static int Attempt(int payment, int attempt)
        {
            if ((payment * 7 + attempt) % 3 != 0 && attempt < 3) throw new TransientPaymentException(500 + payment % 4);
            return payment * 11 % 5000 + 100;
        }

        public static int Main()
        {
            var queue = new Queue<int>();
            for (int p = 0; p < 160; p++) queue.Enqueue(10000 + p);
            int settled = 0, handled = 0;
            while (queue.Count > 0)
            {
                var payment = queue.Dequeue();
                for (int attempt = 1; ; attempt++)
                {
                    try
                    {
                        var cents = Attempt(payment, attempt);
                        Console.WriteLine("[info] RetryQueue: payment P-{0} settled on attempt {1}: {2} cents",
                            payment, attempt, cents);
                        settled++;
                        break;
                    }
                    catch (TransientPaymentException e)
                    {
                        handled++;
                        Console.WriteLine("[warn] RetryQueue: payment P-{0} attempt {1} failed with error code "
                            + "E{2} ({3}); exception handled, retrying in {4} ms", payment, attempt, e.ErrorCode,
                            e.Message, 250 << attempt);
                    }
                }
            }
            Console.WriteLine("ExceptionReport: {0} TransientPaymentException handled, 0 unhandled", handled);
            Console.WriteLine("RetryQueue drained: {0} payments settled, 0 left, 0 dead-lettered", settled);
            return 0;
        }
    }
}
"""


@case(
    "u92_mono_retry_worker_clean",
    "mono",
    clean=True,
    group=GROUP,
    decisive=["RetryQueue drained: 160 payments settled, 0 left, 0 dead-lettered"],
)
def _mono_worker(root: Path) -> bytes:
    write(root, {"src/RetryWorker.cs": _WORKER})
    return _settle(sh("mcs -debug -out:worker.exe src/RetryWorker.cs && mono --debug worker.exe", root), root)


# ---------------------------------------------------------------- NUnit 2.6

_FIXTURES = [
    "AuditTrail", "Coupons", "ErrorCodes", "ExceptionReport", "FailedPayments", "Invoice", "Ledger", "RetryQueue",
    "Shipping", "TaxRates", "Webhooks",
]  # fmt: skip


def _nunit_tests(root: Path, failing: bool) -> None:
    files = {
        "src/Backoff.cs": (
            "namespace Billing.Retry\n{\n    public static class Backoff\n    {\n"
            "        public static int Factor(int attempt)\n        {\n"
            f"            return attempt == 5 ? {15 if failing else 16} : 1 << (attempt - 1);\n"
            "        }\n    }\n}\n"
        )
    }
    for fixture in _FIXTURES:
        factor = "Backoff.Factor(attempt)" if fixture == "RetryQueue" else "(int)Math.Pow(2, attempt - 1)"
        cases = "".join(f"        [TestCase({n})]\n" for n in range(1, 9))
        body = (
            "using System;\nusing NUnit.Framework;\nusing Billing.Retry;\n\nnamespace Billing.Tests\n{\n"
            f"    [TestFixture]\n    public class {fixture}Tests\n    {{\n"
            f"{cases}"
            "        public void Backoff_DoublesEachAttempt(int attempt)\n        {\n"
            f'            Console.WriteLine("{fixture}: retrying failed payment, attempt {{0}}", attempt);\n'
            f'            Console.WriteLine("{fixture}: error code E5{{0:D2}} recorded in the exception report",'
            " attempt);\n"
            f"            Assert.AreEqual(1 << (attempt - 1), {factor});\n        }}\n\n"
        )
        for k in range(16):
            body += (
                f"        [Test]\n        public void Handles_{fixture}_Case{k:02d}()\n        {{\n"
                f'            Console.WriteLine("{fixture} case {k}: FailedPayments queue has {{0}} errors'
                f' handled", {k});\n'
                f"            Assert.That({k} * 2, Is.EqualTo({2 * k}));\n        }}\n\n"
            )
        files[f"tests/{fixture}Tests.cs"] = body + "    }\n}\n"
    write(root, files)


def _nunit(root: Path) -> bytes:
    sh("mcs -debug -target:library -out:Billing.Retry.dll src/Backoff.cs", root)
    build = f"mcs -debug -target:library -out:Billing.Tests.dll -r:Billing.Retry.dll -r:{_NUNIT} tests/*.cs"
    run = "MONO_ENV_OPTIONS=--debug nunit-console -nologo -labels -noresult Billing.Tests.dll"
    return _settle(sh(f"{build} && {run}", root), root)


@case(
    "u92_nunit_labels_one_failure",
    "nunit",
    clean=False,
    group=GROUP,
    decisive=[
        "1) Test Failure : Billing.Tests.RetryQueueTests.Backoff_DoublesEachAttempt(5)",
        "But was:  15",
        "Tests run: 264, Errors: 0, Failures: 1",
    ],
)
def _nunit_fail(root: Path) -> bytes:
    _nunit_tests(root, failing=True)
    return _nunit(root)


@case(
    "u92_nunit_clean_failed_payments",
    "nunit",
    clean=True,
    group=GROUP,
    decisive=["Tests run: 264, Errors: 0, Failures: 0"],
)
def _nunit_clean(root: Path) -> bytes:
    _nunit_tests(root, failing=False)
    return _nunit(root)


# ---------------------------------------------------------------- a hand-written runner

_RUNNER = """
using System;
using System.Linq;
using System.Reflection;

namespace Billing.Checks
{
    [AttributeUsage(AttributeTargets.Method)]
    public class CheckAttribute : Attribute { }

    public class CheckFailed : Exception { public CheckFailed(string m) : base(m) { } }

    public static class Expect
    {
        public static void Equal(long want, long got)
        {
            if (want != got) throw new CheckFailed("expected " + want + " but got " + got);
        }
    }

    public static class Runner
    {
        public static int Main()
        {
            int passed = 0, failed = 0;
            var types = typeof(Runner).Assembly.GetTypes().Where(t => t.Name.EndsWith("Checks")).OrderBy(t => t.Name);
            foreach (var type in types)
            {
                Console.WriteLine("-- {0}", type.FullName);
                foreach (var m in type.GetMethods().Where(x => x.GetCustomAttributes(typeof(CheckAttribute), false)
                    .Length > 0).OrderBy(x => x.Name))
                {
                    try
                    {
                        m.Invoke(null, null);
                        passed++;
                        Console.WriteLine("   [PASS] {0}.{1}", type.FullName, m.Name);
                    }
                    catch (TargetInvocationException e)
                    {
                        failed++;
                        Console.WriteLine("   [FAIL] {0}.{1}", type.FullName, m.Name);
                        Console.WriteLine("          {0}", e.InnerException.Message);
                        Console.WriteLine(e.InnerException.StackTrace);
                    }
                }
            }
            Console.WriteLine("checks: {0} passed, {1} failed", passed, failed);
            return failed == 0 ? 0 : 1;
        }
    }
}
"""

_CHECK_AREAS = [
    "AuditTrail", "Billing", "Cart", "Coupons", "ErrorCodes", "Exceptions", "Export", "Invoice", "Ledger", "Orders",
    "Pricing", "RefundPolicy", "RetryQueue", "Search", "Session", "Shipping", "Tax", "Webhooks", "FailedPayments",
    "Auth", "Catalog", "Inventory", "Payouts", "Statements", "Disputes", "Subscriptions",
]  # fmt: skip


def _checks(root: Path) -> None:
    files = {"src/Runner.cs": _RUNNER}
    for area in _CHECK_AREAS:
        methods = []
        for k in range(12):
            name = f"Case{k:02d}_{area}RoundsToCents"
            got = f"{k} * 125"
            if area == "RefundPolicy" and k == 7:
                name, got = "PartialRefundRoundsDown", "1249"
            want = "1250" if name == "PartialRefundRoundsDown" else f"{k * 125}"
            methods.append(
                f"        [Check]\n        public static void {name}()\n        {{\n"
                f"            Expect.Equal({want}, {got});\n        }}\n"
            )
        files[f"src/{area}Checks.cs"] = (
            "namespace Billing.Checks\n{\n"
            f"    public static class {area}Checks\n    {{\n" + "\n".join(methods) + "    }\n}\n"
        )
    write(root, files)


@case(
    "u92_handwritten_runner_failure",
    "mono",
    clean=False,
    group=GROUP,
    decisive=[
        "[FAIL] Billing.Checks.RefundPolicyChecks.PartialRefundRoundsDown",
        "expected 1250 but got 1249",
        "checks: 311 passed, 1 failed",
    ],
)
def _runner_fail(root: Path) -> bytes:
    _checks(root)
    return _settle(sh("mcs -debug -out:checks.exe src/*.cs && mono --debug checks.exe", root), root)


# ---------------------------------------------------------------- the csharp shell

_REPORT_HEAD = """
using System.Collections.Generic;
using System.Linq;
var codes = new List<int>();
for (int i = 0; i < 150; i++) codes.Add(400 + i % 60);
foreach (var c in codes) print("failed payment row: error code E" + c + ", retry scheduled");
"""

_REPORT_TAIL = """
string totalLabel = codes.Count;
var retryQueue = new List<string>(codes.Select(c => "E" + c));
retryQueue.Enqueue("E999");
foreach (var c in codes) print("exception report row: E" + c + " handled by RetryQueue, ledger updated");
print("report written for " + codes.Count + " codes");
"""


@case(
    "u92_csharp_script_errors",
    "csharp",
    clean=False,
    group=GROUP,
    decisive=[
        "error CS0029: Cannot implicitly convert type `int' to `string'",
        "error CS1061: Type `System.Collections.Generic.List<string>' does not contain a definition for `Enqueue'",
    ],
)
def _csharp(root: Path) -> bytes:
    write(root, {"report.csx": _REPORT_HEAD + _REPORT_TAIL})
    return _settle(sh("csharp report.csx", root), root)
