"""Held-out outputs (group ``unseen-43``): a forty-third batch, the JVM ecosystem as an agent runs it, all offline from
Debian's own jars (no Maven Central here): JUnit 5's console launcher, JUnit 4 under ant, TestNG, javac with every lint
on, a log4j2 and a java.util.logging service log, a thread dump of a deadlocked JVM, Maven resolving from Debian's
repository folder, and the Groovy, Scala and Kotlin compilers.

Failing runs: the JUnit 5 console launcher's tree report of 10 test classes (323 tests) where a nested test of
``LedgerReconcilerTest`` fails on an assertion inside a stream lambda of a helper, ``ant`` running 18 JUnit 4 test
classes where ``InvoiceNumberingTest`` fails, ``javac -Xlint:all`` of a 9-package project with hundreds of
deprecation, rawtypes and unchecked warnings and one type error in ``RefundCalculator``, an order service's log4j2 log
of 3,000 requests with recovered retries (WARN with stack traces) and one ERROR whose exception has two ``Caused by:``
and ``... N more`` frames in the middle, ``jstack -l`` of a JVM whose ``ledger-writer`` and ``refund-worker`` threads
deadlock among 36 idle pool threads, a Groovy ETL script that dies with a ``MissingMethodException`` after 916
records, and ``scalac -deprecation -feature -Xlint`` of 31 files with warnings and one type mismatch. Clean runs named
after errors and failures: the console launcher's verbose report of ``ErrorHandlerTest``, ``RetryPolicyTest`` and
``FailedJobsTest``, TestNG's verbose run of the same kind of classes, a java.util.logging log of a failed-jobs reaper
that reports retries and zero failures, a Maven reactor (``errors-core``, ``retry``, ``failed-jobs``, ``billing``) built
and tested with ``/usr/share/maven-repo`` as its only repository, with deprecation warnings, and ``kotlinc`` of 26
files with warnings followed by the program's report. Labels were written with each scenario, before the engine saw
the output.
Needs OpenJDK 17 with jstack, JUnit 4 and 5, TestNG, ant, Maven with Debian's plugins, log4j2, Groovy, Scala and Kotlin
(Debian ``default-jdk``, ``junit4``, ``junit5``, ``testng``, ``ant``, ``ant-optional``, ``maven``,
``libmaven-compiler-plugin-java``, ``libmaven-resources-plugin-java``, ``libmaven-jar-plugin-java``,
``libsurefire-java``, ``liblog4j2-java``, ``groovy``, ``scala``, ``kotlin``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-43"

_J = "/usr/share/java"
_ENV = {"JAVA_HOME": "/usr/lib/jvm/java-17-openjdk-amd64"}
_LAUNCHER = f"{_J}/junit-platform-console-standalone.jar"


def _settle(out: bytes, root: Path, *, stamps: bool = True) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times (``stamps``: the wall-clock ones too),
    durations, addresses, ids."""
    if stamps:
        out = substitute(
            out, (r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d([.,]\d+)?([+-]\d\d:?\d\d|Z)?", "2026-01-01 00:00:00,000")
        )
    return substitute(
        scrub(out, root),
        (r"Test run finished after \d+ ms", "Test run finished after 1000 ms"),
        (r"Time elapsed: [\d.,]+ s(ec)?", "Time elapsed: 0.01 s"),
        (r"Total time: +[\d.,]+ m?s(ec(onds)?)?", "Total time: 1.000 s"),
        (r"Total time: \d+ seconds?", "Total time: 1 second"),
        (r"0x[0-9a-f]{6,16}", "0x0000000000000000"),
        (r"(cpu|elapsed)=[\d.]+m?s", r"\1=1.00ms"),
        (r"(SUCCESS|FAILURE|SKIPPED) \[ *[\d.]+ s\]", r"\1 [  1.000 s]"),
        (r"Finished at: .*$", "Finished at: 2026-01-01T00:00:00Z"),
        (r"Time: [\d.,]+$", "Time: 0.1"),
        (r"Total time taken: \d+", "Total time taken: 100"),
        (r"\bPID \d+\b", "PID 1000"),
        (r"duration: \d+ ms", "duration: 1 ms"),
        (r" took [\d.]+ sec$", " took 0.001 sec"),
        (r"finished after \d+ ms\.", "finished after 1 ms."),
        (r"(Time taken by .*): \d+ ms", r"\1: 10 ms"),
        (r"@[0-9a-f]{5,8}\b", "@1b6d3586"),
        (r" at [\d.]+ [kMG]?B/s\)", ")"),
    )


def _java_files(root: Path, top: str) -> str:
    """The .java files under ``root/top``, sorted, as one shell word list."""
    return " ".join(str(p.relative_to(root)) for p in sorted((root / top).rglob("*.java")))


# ---------------------------------------------------------------- JUnit 5 console launcher


def _jupiter_class(pkg: str, cls: str, n: int, extra: str = "", imports: str = "") -> str:
    tests = "".join(
        f"    @Test\n    void computesLine{i:02d}() {{\n        assertEquals({i * 3}, Amounts.triple({i}));\n    }}\n\n"
        for i in range(n)
    )
    return (
        f"package shop.{pkg};\n\n"
        "import static org.junit.jupiter.api.Assertions.*;\n\n"
        f"import shop.common.Amounts;\n{imports}"
        "import org.junit.jupiter.api.*;\n"
        "import org.junit.jupiter.params.ParameterizedTest;\n"
        "import org.junit.jupiter.params.provider.ValueSource;\n\n"
        f"class {cls} {{\n\n{tests}"
        "    @ParameterizedTest\n    @ValueSource(ints = {1, 2, 3, 5, 8, 13})\n"
        "    void acceptsQuantity(int quantity) {\n        assertTrue(Amounts.triple(quantity) > quantity);\n    }\n\n"
        "    @Nested\n    class WhenEmpty {\n"
        + "".join(
            f"        @Test\n        void hasNoLines{k}() {{\n            assertEquals(0, Amounts.triple(0));\n"
            "        }\n"
            for k in range(4)
        )
        + "    }\n"
        + extra
        + "}\n"
    )


_JUPITER = [
    ("cart", "CartTotalsTest"), ("tax", "TaxRatesTest"), ("pricing", "PriceRulesTest"), ("coupons", "CouponStackTest"),
    ("ledger", "LedgerReconcilerTest"), ("shipping", "ShippingQuoteTest"), ("invoice", "InvoiceTotalsTest"),
    ("orders", "OrderStateTest"), ("search", "CatalogSearchTest"), ("webhooks", "WebhookSignerTest"),
]  # fmt: skip


def _jupiter_project(
    root: Path, classes: list[tuple[str, str]], extras: dict[str, str], main: dict[str, str], imports: str = ""
) -> str:
    files = {
        "src/main/java/shop/common/Amounts.java": """
            package shop.common;

            public final class Amounts {
                private Amounts() {}

                public static int triple(int n) {
                    return n * 3;
                }
            }
        """,
        **main,
    }
    for pkg, cls in classes:
        files[f"src/test/java/shop/{pkg}/{cls}.java"] = _jupiter_class(
            pkg, cls, 22, extras.get(cls, ""), imports if cls in extras else ""
        )
    write(root, files)
    sh(f"javac -d build/classes -cp {_LAUNCHER} {_java_files(root, 'src')}", root)
    return " ".join(f"--select-class shop.{pkg}.{cls}" for pkg, cls in classes)


_LEDGER_MAIN = {
    "src/main/java/shop/ledger/Ledger.java": """
        package shop.ledger;

        import java.util.ArrayList;
        import java.util.List;

        public final class Ledger {
            public record Entry(String account, long cents) {}

            private final List<Entry> entries = new ArrayList<>();

            public void post(String account, long cents) {
                entries.add(new Entry(account, cents));
            }

            public void postRefund(String account, long cents, int percent) {
                // rounds each refund line down to the cent before summing
                entries.add(new Entry(account, -(cents * percent / 100 / 10 * 10)));
            }

            public List<Entry> entries() {
                return entries;
            }
        }
    """,
    "src/main/java/shop/ledger/LedgerChecks.java": """
        package shop.ledger;

        import static org.junit.jupiter.api.Assertions.assertEquals;

        import java.util.Map;
        import java.util.stream.Collectors;

        public final class LedgerChecks {
            private LedgerChecks() {}

            public static void assertBalances(Ledger ledger, Map<String, Long> expected) {
                Map<String, Long> actual = ledger.entries().stream()
                        .collect(Collectors.groupingBy(Ledger.Entry::account, Collectors.summingLong(Ledger.Entry::cents)));
                expected.forEach((account, cents) -> assertEquals(
                        cents.longValue(), actual.getOrDefault(account, 0L).longValue(),
                        () -> "ledger balance of " + account + " after partial refund"));
            }
        }
    """,  # noqa: E501
}

_LEDGER_NESTED = """
    @Nested
    class WhenPostingRefunds {
        @Test
        void reconcilesFullRefund() {
            Ledger ledger = new Ledger();
            ledger.post("acct-7", 20000);
            ledger.postRefund("acct-7", 20000, 100);
            LedgerChecks.assertBalances(ledger, java.util.Map.of("acct-7", 0L));
        }

        @Test
        void reconcilesPartialRefund() {
            Ledger ledger = new Ledger();
            ledger.post("acct-7", 14925);
            ledger.post("acct-9", 5000);
            ledger.postRefund("acct-7", 14925, 17);
            LedgerChecks.assertBalances(ledger, java.util.Map.of("acct-9", 5000L, "acct-7", 12388L));
        }

        @Test
        void ignoresEmptyRefund() {
            Ledger ledger = new Ledger();
            ledger.post("acct-3", 1000);
            ledger.postRefund("acct-3", 1000, 0);
            LedgerChecks.assertBalances(ledger, java.util.Map.of("acct-3", 1000L));
        }
    }
"""


@case(
    "u43_junit5_console_tree_failure",
    "junit console launcher",
    clean=False,
    group=GROUP,
    decisive=[
        "JUnit Jupiter:LedgerReconcilerTest:WhenPostingRefunds:reconcilesPartialRefund()",
        "AssertionFailedError: ledger balance of acct-7 after partial refund ==> expected: <12388> but was: <12395>",
        "1 tests failed",
    ],
)
def _junit5_tree(root: Path) -> bytes:
    header = "import shop.ledger.Ledger;\nimport shop.ledger.LedgerChecks;\n"
    selectors = _jupiter_project(root, _JUPITER, {"LedgerReconcilerTest": _LEDGER_NESTED}, _LEDGER_MAIN, header)
    cmd = f"java -jar {_LAUNCHER} --disable-banner --disable-ansi-colors --details=tree -cp build/classes {selectors}"
    return _settle(sh(cmd, root, env=_ENV), root)


_CLEAN_MAIN = {
    "src/main/java/shop/errors/ErrorHandler.java": """
        package shop.errors;

        public final class ErrorHandler {
            public String handle(Exception e) {
                System.err.println("ERROR handled: " + e.getClass().getSimpleName() + ": " + e.getMessage());
                return e instanceof IllegalArgumentException ? "400" : "500";
            }
        }
    """,
    "src/main/java/shop/retry/RetryPolicy.java": """
        package shop.retry;

        public final class RetryPolicy {
            private final int maxAttempts;

            public RetryPolicy(int maxAttempts) {
                if (maxAttempts < 1) {
                    throw new IllegalArgumentException("maxAttempts must be positive: " + maxAttempts);
                }
                this.maxAttempts = maxAttempts;
            }

            public long backoffMillis(int attempt) {
                if (attempt > maxAttempts) {
                    throw new IllegalStateException("retry exhausted after " + maxAttempts + " attempts");
                }
                System.out.println("retry attempt " + attempt + " failed, backing off " + (100L << attempt) + " ms");
                return 100L << attempt;
            }
        }
    """,
    "src/main/java/shop/jobs/FailedJobs.java": """
        package shop.jobs;

        import java.util.ArrayDeque;
        import java.util.Deque;

        public final class FailedJobs {
            private final Deque<String> failed = new ArrayDeque<>();

            public void fail(String job, Exception cause) {
                System.out.println("job " + job + " failed: " + cause.getMessage() + " (queued for retry)");
                failed.add(job);
            }

            public String nextToRetry() {
                String job = failed.poll();
                if (job == null) {
                    throw new java.util.NoSuchElementException("no failed jobs");
                }
                return job;
            }

            public int size() {
                return failed.size();
            }
        }
    """,
}


def _clean_test(pkg: str, cls: str, imp: str, body: list[str]) -> str:
    return (
        f"package shop.{pkg};\n\n"
        "import static org.junit.jupiter.api.Assertions.*;\n\n"
        f"import {imp};\n"
        "import org.junit.jupiter.api.*;\n\n"
        f"class {cls} {{\n" + "\n".join(body) + "}\n"
    )


@case(
    "u43_junit5_verbose_clean_errors_retry",
    "junit console launcher",
    clean=True,
    group=GROUP,
    decisive=["144 tests successful", "0 tests failed"],
)
def _junit5_clean(root: Path) -> bytes:
    errors = []
    for i in range(20):
        errors.append(
            f'    @Test\n    @DisplayName("maps failed request {i} to an error status")\n'
            f"    void mapsFailedRequest{i}() {{\n"
            f'        assertEquals("400", new ErrorHandler().handle(new IllegalArgumentException("bad field {i}")));\n'
            "    }\n"
        )
        errors.append(
            f"    @Test\n    void handlesUnexpectedException{i}() {{\n"
            f'        assertEquals("500", new ErrorHandler().handle(new RuntimeException("timeout {i}")));\n'
            "    }\n"
        )
    retry = []
    for i in range(1, 25):
        retry.append(
            f"    @Test\n    void backsOffAfterFailedAttempt{i}() {{\n"
            f"        assertEquals({100 << min(i, 5)}L, new RetryPolicy(5).backoffMillis({min(i, 5)}));\n"
            "    }\n"
        )
        retry.append(
            f"    @Test\n    void throwsWhenRetryExhausted{i}() {{\n"
            f"        IllegalStateException e = assertThrows(IllegalStateException.class,"
            f" () -> new RetryPolicy({i}).backoffMillis({i + 1}));\n"
            f'        assertEquals("retry exhausted after {i} attempts", e.getMessage());\n'
            "    }\n"
        )
    retry.append(
        "    @Test\n    void rejectsZeroAttempts() {\n"
        "        assertThrows(IllegalArgumentException.class, () -> new RetryPolicy(0));\n    }\n"
    )
    jobs = []
    for i in range(30):
        jobs.append(
            f"    @Test\n    void requeuesFailedJob{i}() {{\n        FailedJobs jobs = new FailedJobs();\n"
            f'        jobs.fail("export-{i}", new java.io.IOException("connection reset by peer"));\n'
            f'        assertEquals("export-{i}", jobs.nextToRetry());\n        assertEquals(0, jobs.size());\n    }}\n'
        )
    jobs.append(
        "    @Test\n    void failsWhenNoFailedJobs() {\n"
        "        assertThrows(java.util.NoSuchElementException.class, () -> new FailedJobs().nextToRetry());\n    }\n"
    )
    exc = []
    for i in range(24):
        exc.append(
            f"    @Test\n    void exceptionMessageKeepsCause{i}() {{\n"
            f'        Exception e = new RuntimeException("failed to export batch {i}",'
            ' new java.io.IOException("disk full"));\n'
            '        assertEquals("disk full", e.getCause().getMessage());\n    }\n'
        )
    write(
        root,
        {
            **_CLEAN_MAIN,
            "src/test/java/shop/errors/ErrorHandlerTest.java": _clean_test(
                "errors", "ErrorHandlerTest", "shop.errors.ErrorHandler", errors
            ),
            "src/test/java/shop/retry/RetryPolicyTest.java": _clean_test(
                "retry", "RetryPolicyTest", "shop.retry.RetryPolicy", retry
            ),
            "src/test/java/shop/jobs/FailedJobsTest.java": _clean_test(
                "jobs", "FailedJobsTest", "shop.jobs.FailedJobs", jobs
            ),
            "src/test/java/shop/errors/ExceptionChainTest.java": _clean_test(
                "errors", "ExceptionChainTest", "java.util.List", exc
            ),
        },
    )
    sh(f"javac -d build/classes -cp {_LAUNCHER} {_java_files(root, 'src')}", root)
    selectors = " ".join(
        f"--select-class shop.{c}"
        for c in [
            "errors.ErrorHandlerTest",
            "retry.RetryPolicyTest",
            "jobs.FailedJobsTest",
            "errors.ExceptionChainTest",
        ]
    )
    cmd = (
        f"java -jar {_LAUNCHER} --disable-banner --disable-ansi-colors --details=verbose -cp build/classes {selectors}"
    )
    return _settle(sh(cmd, root, env=_ENV), root)


# ---------------------------------------------------------------- ant with JUnit 4

_ANT_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "auth", "session", "ledger", "invoice",
    "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export", "errors",
]  # fmt: skip


def _junit4_class(area: str, cls: str, n: int, extra: str = "") -> str:
    methods = "".join(
        f"    @Test\n    public void testAmount{k:02d}() {{\n"
        f"        long cents = {area.capitalize()}Amounts.scale({k}L, {k % 7 + 1});\n"
        f'        System.out.println("{area}: scaled line {k} to " + cents + " cents");\n'
        f"        assertEquals({k * (k % 7 + 1)}L, cents);\n    }}\n\n"
        for k in range(n)
    )
    return (
        f"package shop.{area};\n\nimport static org.junit.Assert.assertEquals;\n\nimport org.junit.Test;\n\n"
        f"public class {cls} {{\n\n{methods}{extra}}}\n"
    )


_INVOICE_EXTRA = """
    @Test
    public void testSequenceAfterRollover() {
        InvoiceNumbers numbers = new InvoiceNumbers(2024, 9999);
        numbers.next();
        System.out.println("invoice: year rolled over, next number " + numbers.peek());
        assertEquals("INV-2024-0001", numbers.peek());
    }

    @Test
    public void testSequenceStartsAtOne() {
        assertEquals("INV-2024-0001", new InvoiceNumbers(2024, 0).peek());
    }
"""


@case(
    "u43_ant_junit4_invoice_failure",
    "ant (javac + junit)",
    clean=False,
    group=GROUP,
    decisive=[
        "Testcase: testSequenceAfterRollover took",
        "AssertionFailedError: expected:<INV-2024-[]0001> but was:<INV-2024-[1]0001>",
        "BUILD FAILED",
    ],
)
def _ant_junit4(root: Path) -> bytes:
    files: dict[str, str] = {}
    tests = []
    for area in _ANT_AREAS:
        amounts = f"{area.capitalize()}Amounts"
        files[f"src/shop/{area}/{amounts}.java"] = (
            f"package shop.{area};\n\npublic final class {amounts} {{\n"
            f"    public static long scale(long cents, int factor) {{\n        return cents * factor;\n    }}\n}}\n"
        )
        cls = "InvoiceNumberingTest" if area == "invoice" else f"{area.capitalize()}AmountsTest"
        extra = _INVOICE_EXTRA if area == "invoice" else ""
        files[f"test/shop/{area}/{cls}.java"] = _junit4_class(area, cls, 24, extra)
        tests.append(f'<test name="shop.{area}.{cls}"/>')
    files["src/shop/invoice/InvoiceNumbers.java"] = """
        package shop.invoice;

        public final class InvoiceNumbers {
            private final int year;
            private int seq;

            public InvoiceNumbers(int year, int seq) {
                this.year = year;
                this.seq = seq;
            }

            public void next() {
                seq = seq + 1; // should wrap to 0 past 9999
            }

            public String peek() {
                return String.format("INV-%d-%04d", year, seq + 1);
            }
        }
    """
    files["build.xml"] = f"""
        <project name="shop" default="test" basedir=".">
            <path id="junit.path">
                <pathelement location="{_J}/junit4.jar"/>
                <pathelement location="{_J}/hamcrest-core.jar"/>
            </path>
            <target name="compile">
                <mkdir dir="build/classes"/>
                <javac srcdir="src" destdir="build/classes" includeantruntime="false" debug="true"/>
            </target>
            <target name="compile-tests" depends="compile">
                <mkdir dir="build/test-classes"/>
                <javac srcdir="test" destdir="build/test-classes" includeantruntime="false" debug="true">
                    <classpath><pathelement path="build/classes"/><path refid="junit.path"/></classpath>
                </javac>
            </target>
            <target name="test" depends="compile-tests">
                <junit printsummary="withOutAndErr" haltonfailure="no" failureproperty="tests.failed" fork="yes">
                    <classpath>
                        <pathelement path="build/classes"/>
                        <pathelement path="build/test-classes"/>
                        <path refid="junit.path"/>
                    </classpath>
                    <formatter type="plain" usefile="false"/>
                    {"".join(tests)}
                </junit>
                <fail if="tests.failed" message="Unit tests failed; see the report above"/>
            </target>
        </project>
    """
    write(root, files)
    return _settle(sh("ant", root, env=_ENV), root)


# ---------------------------------------------------------------- javac -Xlint:all, module by module

_MODULES = ["common", "catalog", "pricing", "cart", "tax", "refunds", "invoice", "shipping", "audit"]


def _lint_class(module: str, cls: str, k: int) -> str:
    """A class whose every method earns javac lint warnings: deprecated and removal APIs, raw types, unchecked calls,
    a missing serialVersionUID, a redundant cast, a fall-through."""
    return f"""
        package shop.{module};

        import java.util.ArrayList;
        import java.util.Date;
        import java.util.HashMap;
        import java.util.List;
        import java.util.Map;

        public class {cls} implements java.io.Serializable {{
            private final List lines = new ArrayList();
            private final Map totals = new HashMap();

            public void add(int cents) {{
                lines.add(new Integer(cents));
                totals.put("line-" + lines.size(), new Long(cents));
            }}

            public int year() {{
                Date opened = new Date(124, {k % 12}, 1);
                return opened.getYear() + 1900;
            }}

            public long total() {{
                long sum = 0;
                for (Object o : lines) {{
                    sum += (long) (Integer) o;
                }}
                return (long) sum;
            }}

            public String band(int code) {{
                String band = "low";
                switch (code) {{
                    case 1:
                        band = "mid";
                    case 2:
                        band = "high";
                        break;
                    default:
                        break;
                }}
                return band;
            }}

            public Character initial(String s) {{
                return new Character(s.charAt(0));
            }}
        }}
    """


_REFUND_CALC = """
    package shop.refunds;

    import java.math.BigDecimal;
    import java.math.RoundingMode;

    public final class RefundCalculator {
        private RefundCalculator() {}

        public static BigDecimal partial(BigDecimal paid, int percent) {
            BigDecimal share = BigDecimal.valueOf(percent).divide(BigDecimal.valueOf(100));
            return paid.multiply(share).setScale(2, RoundingMode.HALF_EVEN);
        }

        public static BigDecimal restockingFee(String sku) {
            BigDecimal fee = sku.startsWith("BULK") ? "12.50" : BigDecimal.ZERO;
            return fee;
        }
    }
"""


@case(
    "u43_javac_xlint_modules_type_error",
    "javac",
    clean=False,
    group=GROUP,
    decisive=[
        "RefundCalculator.java:15: error: incompatible types: bad type in conditional expression",
        "1 error",
        "build finished: 1 of 9 modules failed (refunds)",
    ],
)
def _javac_lint(root: Path) -> bytes:
    files: dict[str, str] = {}
    for m in _MODULES:
        for k in range(8):
            cls = m.capitalize() + ["Service", "Repository", "Mapper", "Policy", "Report", "Cache", "Rules", "Job"][k]
            files[f"{m}/src/shop/{m}/{cls}.java"] = _lint_class(m, cls, k)
    files["refunds/src/shop/refunds/RefundCalculator.java"] = _REFUND_CALC
    mods = " ".join(_MODULES)
    files["build.sh"] = f"""
        #!/bin/sh
        # compiles each module on its own, with every lint on, the way CI does
        failed=""
        count=0
        for m in {mods}; do
            echo "[build] module $m: javac -Xlint:all"
            mkdir -p out/$m
            if javac -Xlint:all -Xmaxwarns 1000 -encoding UTF-8 -d out/$m -cp out/common $(find $m/src -name '*.java' | sort); then
                echo "[build] module $m: ok ($(find out/$m -name '*.class' | wc -l) classes)"
            else
                echo "[build] module $m: FAILED"
                failed="$failed $m"
                count=$((count + 1))
            fi
        done
        if [ -n "$failed" ]; then
            echo "build finished: $count of 9 modules failed ($(echo $failed))"
            exit 1
        fi
        echo "build finished: all 9 modules compiled"
    """  # noqa: E501
    write(root, files)
    return _settle(sh("sh build.sh", root, env=_ENV), root)


# ---------------------------------------------------------------- service logs: log4j2 and java.util.logging

_FAKE_CLOCK = """
    package shop;

    import org.apache.logging.log4j.core.util.Clock;

    /** A clock that starts at a fixed instant and moves 7 ms a reading, so that the log is the same every run. */
    public final class FakeClock implements Clock {
        private long now = 1767225600000L;

        @Override
        public synchronized long currentTimeMillis() {
            now += 7;
            return now;
        }
    }
"""

_ORDER_SERVICE = """
    package shop;

    import java.net.SocketTimeoutException;
    import java.sql.SQLTransientConnectionException;
    import org.apache.logging.log4j.LogManager;
    import org.apache.logging.log4j.Logger;

    public final class OrderService {
        private static final Logger HTTP = LogManager.getLogger("shop.http.AccessLog");
        private static final Logger ORDERS = LogManager.getLogger("shop.orders.OrderController");
        private static final Logger PAY = LogManager.getLogger("shop.payments.GatewayClient");
        private static final Logger LEDGER = LogManager.getLogger("shop.ledger.JournalWriter");

        static final class SettlementException extends RuntimeException {
            SettlementException(String m, Throwable c) { super(m, c); }
        }

        static final class LedgerWriteException extends RuntimeException {
            LedgerWriteException(String m, Throwable c) { super(m, c); }
        }

        static void pool(int id) throws SQLTransientConnectionException {
            throw new SQLTransientConnectionException(
                "ledger-db - Connection is not available, request timed out after 30000ms.");
        }

        static void journal(int id) {
            try {
                pool(id);
            } catch (SQLTransientConnectionException e) {
                throw new LedgerWriteException(String.format("could not post journal entry JE-%05d", id), e);
            }
        }

        static void settle(int id) {
            try {
                journal(id);
            } catch (LedgerWriteException e) {
                throw new SettlementException(String.format("settlement of order ord-%05d aborted", id), e);
            }
        }

        static void filter(int depth, int id) {
            if (depth == 0) {
                handle(id);
            } else {
                filter(depth - 1, id);
            }
        }

        static void capture(int id, int attempt) throws SocketTimeoutException {
            if ((id % 97 == 0 || id % 61 == 0) && attempt == 1) {
                throw new SocketTimeoutException("Read timed out");
            }
        }

        static void handle(int id) {
            String order = String.format("ord-%05d", id);
            if (id % 5 == 0 || id % 61 == 0) {
                for (int attempt = 1; attempt <= 3; attempt++) {
                    try {
                        capture(id, attempt);
                        PAY.info("captured payment for {} (attempt {})", order, attempt);
                        break;
                    } catch (SocketTimeoutException e) {
                        PAY.warn("Retrying payment capture for " + order + " (attempt " + attempt + "/3)", e);
                    }
                }
            }
            if (id == 1700) {
                try {
                    settle(id);
                } catch (SettlementException e) {
                    ORDERS.error(String.format("Failed to settle invoice INV-2024-%05d for order %s", id, order), e);
                    HTTP.info("POST /api/orders/{}/settle 500 {}ms", order, 30012);
                    return;
                }
            }
            if (id % 3 == 0) {
                LEDGER.info("journal entry JE-{} posted for {} ({} lines)", String.format("%05d", id), order, id % 7 + 1);
                HTTP.info("POST /api/orders/{}/settle 200 {}ms", order, 20 + id % 40);
            } else {
                HTTP.info("GET /api/orders/{} 200 {}ms", order, 3 + id % 17);
            }
        }

        public static void main(String[] args) {
            Thread.currentThread().setName("main");
            ORDERS.info("Starting order-service 4.12.0 on port 8080 (profile: prod)");
            ORDERS.info("Connected to ledger-db pool (max 16 connections)");
            for (int id = 1; id <= 3000; id++) {
                Thread.currentThread().setName("http-nio-8080-exec-" + (id % 10 + 1));
                filter(24, id);
            }
            Thread.currentThread().setName("main");
            ORDERS.info("Stopping order-service (graceful shutdown, 0 requests in flight)");
        }
    }
"""  # noqa: E501

_LOG4J2_XML = """
    <?xml version="1.0" encoding="UTF-8"?>
    <Configuration status="warn">
      <Appenders>
        <Console name="out" target="SYSTEM_OUT">
          <PatternLayout pattern="%d{yyyy-MM-dd HH:mm:ss.SSS} %-5level [%t] %logger{36} - %msg%n"/>
        </Console>
      </Appenders>
      <Loggers>
        <Root level="info"><AppenderRef ref="out"/></Root>
      </Loggers>
    </Configuration>
"""


@case(
    "u43_log4j2_order_service_caused_by",
    "java (log4j2 service log)",
    clean=False,
    group=GROUP,
    decisive=[
        "Failed to settle invoice INV-2024-01700 for order ord-01700",
        "Caused by: java.sql.SQLTransientConnectionException: ledger-db - Connection is not available",
    ],
)
def _log4j2(root: Path) -> bytes:
    write(
        root,
        {
            "src/shop/FakeClock.java": _FAKE_CLOCK,
            "src/shop/OrderService.java": _ORDER_SERVICE,
            "conf/log4j2.xml": _LOG4J2_XML,
        },
    )
    cp = f"{_J}/log4j-api.jar:{_J}/log4j-core.jar"
    sh(f"javac -d out -cp {cp} {_java_files(root, 'src')}", root)
    props = "-Dlog4j2.configurationFile=conf/log4j2.xml -Dlog4j2.clock=shop.FakeClock"
    cmd = f"java {props} -cp out:{cp} shop.OrderService"
    return _settle(sh(cmd, root, env=_ENV), root, stamps=False)


_REAPER = """
    package shop.jobs;

    import java.io.IOException;
    import java.util.ArrayDeque;
    import java.util.Deque;
    import java.util.logging.Level;
    import java.util.logging.Logger;

    public final class FailedJobsReaper {
        private static final Logger REAPER = Logger.getLogger("shop.jobs.FailedJobsReaper");
        private static final Logger RETRY = Logger.getLogger("shop.retry.RetryScheduler");
        private static final Logger EXPORT = Logger.getLogger("shop.export.ExportWorker");
        private static final Logger BUDGET = Logger.getLogger("shop.errors.ErrorBudget");

        static void upload(String job, int attempt) throws IOException {
            int n = Integer.parseInt(job.substring(7));
            if (n % 37 == 0 && attempt == 1) {
                throw new IOException("connection reset by peer");
            }
            if (n % 111 == 0 && attempt == 2) {
                throw new IOException("503 Service Unavailable from export bucket");
            }
        }

        public static void main(String[] args) {
            REAPER.info("FailedJobsReaper starting: sweep every 30s, max 5 attempts per job");
            Deque<String> failed = new ArrayDeque<>();
            int exported = 0;
            int firstTryFailures = 0;
            for (int batch = 1; batch <= 120; batch++) {
                EXPORT.info("batch " + batch + ": exporting 20 jobs to s3://exports/ledger/");
                for (int k = 0; k < 20; k++) {
                    String job = String.format("export-%04d", (batch - 1) * 20 + k + 1);
                    try {
                        upload(job, 1);
                        exported++;
                    } catch (IOException e) {
                        firstTryFailures++;
                        failed.add(job);
                        if (firstTryFailures % 10 == 1) {
                            EXPORT.log(Level.WARNING, "job " + job + " failed (attempt 1/5), queued for retry", e);
                        } else {
                            EXPORT.warning("job " + job + " failed (attempt 1/5): " + e + "; queued for retry");
                        }
                    }
                }
                REAPER.info("sweep " + batch + ": " + failed.size() + " job(s) in failed queue");
                int retries = failed.size();
                for (int r = 0; r < retries; r++) {
                    String job = failed.poll();
                    for (int attempt = 2; attempt <= 5; attempt++) {
                        RETRY.info("retrying " + job + " (attempt " + attempt + "/5) after " + (1000 << (attempt - 2)) + " ms");
                        try {
                            upload(job, attempt);
                            RETRY.info("job " + job + " succeeded on retry (attempt " + attempt + "/5)");
                            exported++;
                            break;
                        } catch (IOException e) {
                            RETRY.warning("retry of " + job + " failed (attempt " + attempt + "/5): " + e.getMessage());
                        }
                    }
                }
                if (batch % 10 == 0) {
                    BUDGET.info(String.format("error budget: %.2f%% of jobs failed on first attempt (threshold 2.00%%), %d failed permanently",
                        100.0 * firstTryFailures / (batch * 20), 0));
                }
            }
            EXPORT.info("ExportWorker stopped: " + exported + " jobs exported, " + failed.size() + " failed permanently");
            REAPER.info("FailedJobsReaper stopped: failed queue is empty");
        }
    }
"""  # noqa: E501


@case(
    "u43_jul_failed_jobs_reaper_clean",
    "java (java.util.logging service log)",
    clean=True,
    group=GROUP,
    decisive=["ExportWorker stopped: 2400 jobs exported, 0 failed permanently"],
)
def _jul_clean(root: Path) -> bytes:
    write(root, {"src/shop/jobs/FailedJobsReaper.java": _REAPER})
    sh(f"javac -d out {_java_files(root, 'src')}", root)
    out = sh("java -cp out shop.jobs.FailedJobsReaper", root, env=_ENV)
    out = substitute(out, (r"^[A-Z][a-z]{2} \d\d, \d{4} \d{1,2}:\d\d:\d\d [AP]M ", "Jan 01, 2026 9:00:00 AM "))
    return _settle(out, root)


# ---------------------------------------------------------------- jstack of a deadlocked JVM

_DEADLOCK = """
    package shop;

    import java.util.concurrent.CountDownLatch;
    import java.util.concurrent.ExecutorService;
    import java.util.concurrent.Executors;
    import java.util.concurrent.ThreadFactory;
    import java.util.concurrent.atomic.AtomicInteger;

    public final class LedgerDaemon {
        static final Object JOURNAL = new Object();
        static final Object REFUNDS = new Object();
        static final CountDownLatch BOTH_HELD = new CountDownLatch(2);

        static final class JournalWriter {
            static void post(String entry) throws InterruptedException {
                synchronized (JOURNAL) {
                    BOTH_HELD.countDown();
                    BOTH_HELD.await();
                    RefundQueue.markPosted(entry);
                }
            }
        }

        static final class RefundQueue {
            static void markPosted(String entry) {
                synchronized (REFUNDS) {
                    System.out.println("posted " + entry);
                }
            }

            static void drain() throws InterruptedException {
                synchronized (REFUNDS) {
                    BOTH_HELD.countDown();
                    BOTH_HELD.await();
                    synchronized (JOURNAL) {
                        System.out.println("drained");
                    }
                }
            }
        }

        static ThreadFactory named(String prefix) {
            AtomicInteger n = new AtomicInteger();
            return r -> {
                Thread t = new Thread(r, prefix + "-" + n.incrementAndGet());
                t.setDaemon(true);
                return t;
            };
        }

        public static void main(String[] args) throws Exception {
            ExecutorService orders = Executors.newFixedThreadPool(24, named("orders-pool"));
            ExecutorService webhooks = Executors.newFixedThreadPool(12, named("webhooks-pool"));
            for (int i = 0; i < 24; i++) {
                orders.submit(() -> { });
            }
            for (int i = 0; i < 12; i++) {
                webhooks.submit(() -> { });
            }
            Thread scheduler = new Thread(() -> {
                try {
                    while (true) {
                        Thread.sleep(60_000);
                    }
                } catch (InterruptedException e) {
                    return;
                }
            }, "retry-scheduler");
            scheduler.setDaemon(true);
            scheduler.start();
            Thread writer = new Thread(() -> {
                try {
                    JournalWriter.post("JE-01700");
                } catch (InterruptedException e) {
                    return;
                }
            }, "ledger-writer");
            Thread refunds = new Thread(() -> {
                try {
                    RefundQueue.drain();
                } catch (InterruptedException e) {
                    return;
                }
            }, "refund-worker");
            writer.start();
            refunds.start();
            Thread.sleep(1500);
            System.out.println("ready");
            writer.join();
        }
    }
"""


@case(
    "u43_jstack_deadlock",
    "jstack",
    clean=False,
    group=GROUP,
    decisive=["Found one Java-level deadlock:", 'which is held by "refund-worker"', "Found 1 deadlock."],
)
def _jstack(root: Path) -> bytes:
    write(root, {"src/shop/LedgerDaemon.java": _DEADLOCK})
    sh(f"javac -d out {_java_files(root, 'src')}", root)
    script = (
        "java -XX:-UseDynamicNumberOfCompilerThreads -XX:CICompilerCount=2 -XX:+UseSerialGC -Xshare:auto "
        "-cp out shop.LedgerDaemon > app.log 2>&1 &\n"
        "pid=$!\n"
        "for i in $(seq 100); do grep -q ready app.log && break; sleep 0.2; done\n"
        "jstack -l $pid > dump.txt 2>&1\n"
        "status=$?\n"
        "kill $pid\n"
        "wait $pid 2>/dev/null\n"
        "exit $status\n"
    )
    write(root, {"dump.sh": script})
    sh("sh dump.sh", root, env=_ENV)
    out = (root / "dump.txt").read_bytes()
    out = substitute(
        out,
        (r"nid=0x[0-9a-f]+", "nid=0x1000"),
        (r"JNI global refs: \d+, weak refs: \d+", "JNI global refs: 20, weak refs: 0"),
        (r"^\d+:$", "1000:"),
    )
    return _settle(out, root)


# ---------------------------------------------------------------- TestNG

_TESTNG_CP = f"{_J}/testng.jar:{_J}/jcommander.jar:{_J}/bsh.jar:{_J}/snakeyaml.jar"


def _testng_class(pkg: str, cls: str, stem: str, n: int, thrower: str) -> str:
    methods = "".join(
        f'    @Test(groups = "{pkg}")\n    public void {stem}{i:02d}() {{\n'
        f'        System.out.println("{cls}: {stem}{i:02d} checked {i} failed jobs");\n'
        f"        Assert.assertEquals(Backoff.delay({i % 6}), {1000 << (i % 6)}L);\n    }}\n\n"
        for i in range(n)
    )
    return (
        f"package shop.{pkg};\n\nimport org.testng.Assert;\nimport org.testng.annotations.DataProvider;\n"
        "import org.testng.annotations.Test;\nimport shop.Backoff;\n\n"
        f"public class {cls} {{\n\n{methods}"
        '    @DataProvider(name = "attempts")\n    public Object[][] attempts() {\n'
        "        return new Object[][] {{1, 2000L}, {2, 4000L}, {3, 8000L}, {4, 16000L}, {5, 32000L}};\n    }\n\n"
        '    @Test(dataProvider = "attempts")\n    public void retriesAfterException(int attempt, long expected) {\n'
        "        Assert.assertEquals(Backoff.delay(attempt), expected);\n    }\n\n"
        f"    @Test(expectedExceptions = IllegalStateException.class)\n    public void {thrower}() {{\n"
        "        Backoff.delay(99);\n    }\n\n"
        f'    @Test(dependsOnMethods = "{thrower}")\n    public void recoversAfterFailedAttempt() {{\n'
        "        Assert.assertTrue(Backoff.delay(0) > 0);\n    }\n}\n"
    )


@case(
    "u43_testng_verbose_clean_failed_jobs",
    "testng",
    clean=True,
    group=GROUP,
    decisive=["Total tests run: 344, Failures: 0, Skips: 0"],
)
def _testng_clean(root: Path) -> bytes:
    classes = [
        ("retry", "RetryPolicyTest", "backsOffAfterFailure"),
        ("jobs", "FailedJobsTest", "requeuesFailedJob"),
        ("errors", "ErrorHandlerTest", "mapsErrorToStatus"),
        ("errors", "ExceptionTranslatorTest", "translatesException"),
    ]
    files = {
        "src/shop/Backoff.java": """
            package shop;

            public final class Backoff {
                private Backoff() {}

                public static long delay(int attempt) {
                    if (attempt > 10) {
                        throw new IllegalStateException("retry budget exhausted at attempt " + attempt);
                    }
                    return 1000L << attempt;
                }
            }
        """
    }
    for pkg, cls, stem in classes:
        files[f"src/shop/{pkg}/{cls}.java"] = _testng_class(pkg, cls, stem, 79, "failsWhenRetryExhausted")
    listed = "".join(f'<class name="shop.{pkg}.{cls}"/>' for pkg, cls, _ in classes)
    files["testng.xml"] = f"""
        <!DOCTYPE suite SYSTEM "http://testng.org/testng-1.0.dtd">
        <suite name="failed-jobs-suite" verbose="2">
          <test name="retry-and-errors">
            <classes>{listed}</classes>
          </test>
        </suite>
    """
    write(root, files)
    sh(f"javac -d out -cp {_TESTNG_CP} {_java_files(root, 'src')}", root)
    cmd = f"java -cp out:{_TESTNG_CP} org.testng.TestNG -d test-output testng.xml"
    return _settle(sh(cmd, root, env=_ENV), root)


# ---------------------------------------------------------------- Maven against Debian's repository folder

_PLUGINS = {
    "maven-resources-plugin": "3.3.0",
    "maven-compiler-plugin": "3.10.1",
    "maven-surefire-plugin": "2.22.3",
    "maven-jar-plugin": "3.3.0",
}

_MAVEN_REPO = """
          <{kind}>
            <id>central</id>
            <name>Debian's Java packages</name>
            <url>file:///usr/share/maven-repo</url>
            <releases><checksumPolicy>ignore</checksumPolicy></releases>
            <snapshots><enabled>false</enabled></snapshots>
          </{kind}>
"""

_MAVEN_SETTINGS = (
    "<settings>\n  <localRepository>{repo}</localRepository>\n"
    "  <profiles>\n    <profile>\n      <id>debian</id>\n"
    f"      <repositories>{_MAVEN_REPO.format(kind='repository')}      </repositories>\n"
    f"      <pluginRepositories>{_MAVEN_REPO.format(kind='pluginRepository')}      </pluginRepositories>\n"
    "    </profile>\n  </profiles>\n  <activeProfiles><activeProfile>debian</activeProfile></activeProfiles>\n"
    "</settings>\n"
)


def _maven_reactor(root: Path, modules: list[str], tests: dict[str, str], sources: dict[str, str]) -> None:
    plugins = "".join(
        f"<plugin><groupId>org.apache.maven.plugins</groupId><artifactId>{a}</artifactId><version>{v}</version>"
        + (
            "<configuration><release>17</release><showWarnings>true</showWarnings>"
            "<showDeprecation>true</showDeprecation><compilerArgs><arg>-Xlint:all</arg></compilerArgs></configuration>"
            if a == "maven-compiler-plugin"
            else ""
        )
        + "</plugin>\n"
        for a, v in _PLUGINS.items()
    )
    files = {
        "settings.xml": _MAVEN_SETTINGS.format(repo=root / "m2"),
        "pom.xml": f"""
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <groupId>shop</groupId>
              <artifactId>platform</artifactId>
              <version>2.3.0</version>
              <packaging>pom</packaging>
              <name>platform</name>
              <properties><project.build.sourceEncoding>UTF-8</project.build.sourceEncoding></properties>
              <modules>{"".join(f"<module>{m}</module>" for m in modules)}</modules>
              <dependencies>
                <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter-api</artifactId>
                  <version>5.9.2</version><scope>test</scope></dependency>
                <dependency><groupId>org.junit.jupiter</groupId><artifactId>junit-jupiter-engine</artifactId>
                  <version>5.9.2</version><scope>test</scope></dependency>
              </dependencies>
              <build><pluginManagement><plugins>
              {plugins}
              </plugins></pluginManagement></build>
            </project>
        """,
    }
    for i, m in enumerate(modules):
        deps = "".join(
            f"<dependency><groupId>shop</groupId><artifactId>{d}</artifactId><version>2.3.0</version></dependency>"
            for d in modules[max(0, i - 1) : i]
        )
        files[f"{m}/pom.xml"] = f"""
            <project xmlns="http://maven.apache.org/POM/4.0.0">
              <modelVersion>4.0.0</modelVersion>
              <parent><groupId>shop</groupId><artifactId>platform</artifactId><version>2.3.0</version></parent>
              <artifactId>{m}</artifactId>
              <name>{m}</name>
              <dependencies>{deps}</dependencies>
            </project>
        """
    files.update(sources)
    files.update(tests)
    write(root, files)


def _mvn_module_sources(m: str, pkg: str) -> dict[str, str]:
    cls = "".join(p.capitalize() for p in m.split("-"))
    src = {
        f"{m}/src/main/java/shop/{pkg}/{cls}.java": f"""
            package shop.{pkg};

            import java.util.Date;

            public class {cls} {{
                /** @deprecated use {{@link #attempts(int)}} */
                @Deprecated
                public int legacyAttempts() {{
                    return attempts(3);
                }}

                public int attempts(int n) {{
                    return Math.max(1, n);
                }}

                public int openedYear() {{
                    return new Date(124, 0, 1).getYear() + 1900;
                }}

                public Integer boxed(int n) {{
                    return new Integer(n);
                }}
            }}
        """
    }
    tests = "".join(
        f"    @Test\n    void handlesFailedAttempt{k}() {{\n"
        f"        assertEquals({max(1, k)}, new {cls}().attempts({k}));\n    }}\n\n"
        for k in range(30)
    )
    src[f"{m}/src/test/java/shop/{pkg}/{cls}Test.java"] = (
        f"package shop.{pkg};\n\nimport static org.junit.jupiter.api.Assertions.assertEquals;\n\n"
        f"import org.junit.jupiter.api.Test;\n\nclass {cls}Test {{\n\n{tests}"
        f'    @Test\n    @SuppressWarnings("deprecation")\n    void legacyStillWorks() {{\n'
        f"        assertEquals(3, new {cls}().legacyAttempts());\n    }}\n}}\n"
    )
    return src


@case(
    "u43_mvn_reactor_clean_failed_jobs",
    "mvn package",
    clean=True,
    group=GROUP,
    decisive=["BUILD SUCCESS", "[INFO] failed-jobs ...."],
)
def _mvn_clean(root: Path) -> bytes:
    modules = ["errors-core", "retry", "failed-jobs", "billing"]
    sources: dict[str, str] = {}
    for m, pkg in zip(modules, ["errors", "retry", "jobs", "billing"], strict=True):
        sources.update(_mvn_module_sources(m, pkg))
    _maven_reactor(root, modules, {}, sources)
    out = sh("mvn -B -Dstyle.color=never -Dmaven.artifact.threads=1 -s settings.xml package", root, env=_ENV)
    return _settle(out, root)


# ---------------------------------------------------------------- Scala, Kotlin and Groovy

_SCALA_AREAS = [
    "billing", "orders", "cart", "tax", "auth", "session", "ledger", "invoice", "shipping", "catalog",
    "search", "pricing", "coupons", "webhooks", "audit", "refunds", "export", "errors", "retry", "reports",
    "payouts", "disputes", "wallets", "fx", "vat", "receipts", "quotes", "returns", "carriers", "labels",
]  # fmt: skip


def _scala_file(area: str, i: int) -> str:
    obj = area.capitalize() + "Totals"
    return f"""
        package shop.{area}

        import shop.common.Money

        object {obj} {{
          val lines: List[Int] = List({", ".join(str(i * k + 1) for k in range(6))})

          def count: Int = lines size

          def total(xs: List[Int]): Long = {{
            xs.foldLeft(0L)(_ + _)
            xs.map(_.toLong).sum
          }}

          def pair(a: Int, b: Int): (Int, Int) = (a, b)

          def paired: List[(Int, Int)] = List(pair(1, 2)).map(p => p)

          def describe: String = Money.legacyFormat(total(lines)) + " over " + count + " lines"

          def tagged(xs: Option[Any]): Unit = xs match {{
            case Some(v) => println(v)
            case None => ()
          }}

          def asTuple: Option[(Int, Int)] = Some(1, 2)
        }}
    """


@case(
    "u43_scalac_deprecation_feature_type_mismatch",
    "scalac",
    clean=False,
    group=GROUP,
    decisive=["RefundsTotals.scala:26: error: type mismatch;", "required: BigDecimal", "one error found"],
)
def _scalac(root: Path) -> bytes:
    files = {
        "src/shop/common/Money.scala": """
            package shop.common

            object Money {
              @deprecated("use format(cents, currency)", "2.3.0")
              def legacyFormat(cents: Long): String = format(cents, "EUR")

              def format(cents: Long, currency: String): String = f"${cents / 100.0}%.2f $currency"
            }
        """
    }
    for i, area in enumerate(_SCALA_AREAS):
        files[f"src/shop/{area}/{area.capitalize()}Totals.scala"] = _scala_file(area, i)
    files["src/shop/refunds/RefundsTotals.scala"] = _scala_file("refunds", 15).replace(
        "  def asTuple",
        '  def restockingFee(sku: String): BigDecimal = if (sku.startsWith("BULK")) "12.50" else BigDecimal(0)\n\n'
        "  def asTuple",
    )
    write(root, files)
    srcs = " ".join(str(p.relative_to(root)) for p in sorted((root / "src").rglob("*.scala")))
    cmd = f"mkdir -p out && scalac -deprecation -feature -unchecked -Xlint -d out {srcs}"
    return _settle(sh(cmd, root, env=_ENV), root)


def _kotlin_file(area: str, i: int) -> str:
    cls = area.capitalize() + "Report"
    return f"""
        package shop.{area}

        import shop.common.Report
        import shop.common.Retries

        class {cls}(private val name: String, unusedLimit: Int) : Report {{
            override fun attempts(failed: Int): Int {{
                val ignored = failed * 2
                return Retries.legacyAttempts(failed)
            }}

            fun lines(raw: Any): List<String> {{
                @Suppress("UNUSED_VARIABLE") val label = name
                return raw as List<String>
            }}

            override fun describe(): String {{
                var total = 0
                total = {i} + attempts(1)
                return name + ": " + total!!.toString() + " attempts"
            }}
        }}
    """


@case(
    "u43_kotlinc_warnings_clean_retry_report",
    "kotlinc",
    clean=True,
    group=GROUP,
    decisive=["retry report: 24 areas, 0 failed exports, 0 errors"],
)
def _kotlinc(root: Path) -> bytes:
    areas = [*_SCALA_AREAS[:24]]
    files = {
        "src/shop/common/Retries.kt": """
            package shop.common

            object Retries {
                @Deprecated("use attempts(failed, max)", ReplaceWith("attempts(failed, 3)"))
                fun legacyAttempts(failed: Int): Int = attempts(failed, 3)

                fun attempts(failed: Int, max: Int): Int = minOf(failed + 1, max)
            }

            interface Report {
                fun attempts(failed: Int): Int

                fun describe(): String
            }
        """
    }
    for i, area in enumerate(areas):
        files[f"src/shop/{area}/{area.capitalize()}Report.kt"] = _kotlin_file(area, i)
    imports = "".join(f"import shop.{a}.{a.capitalize()}Report\n" for a in areas)
    reports = ",\n".join(f'        {a.capitalize()}Report("{a}", 3)' for a in areas) + "\n"
    files["src/shop/Main.kt"] = (
        f"package shop\n\n{imports}\nfun main() {{\n    val reports = listOf(\n{reports}    )\n"
        "    var failedExports = 0\n"
        "    for (r in reports) {\n"
        '        println("exported " + r.describe() + ", errors: 0, retries: " + r.attempts(2))\n'
        "    }\n"
        '    println("retry report: " + reports.size + " areas, " + failedExports + " failed exports, 0 errors")\n'
        "}\n"
    )
    write(root, files)
    srcs = " ".join(str(p.relative_to(root)) for p in sorted((root / "src").rglob("*.kt")))
    kt = "/usr/share/java/kotlin-stdlib.jar"
    cmd = f"kotlinc {srcs} -d out && java -cp out:{kt} shop.MainKt"
    return _settle(sh(cmd, root, env=_ENV), root)


_ETL = """
    import groovy.transform.CompileStatic

    @CompileStatic
    class Money {
        static long toCents(BigDecimal amount) {
            return amount.movePointRight(2).longValueExact()
        }
    }

    class OrderRow {
        String id
        String area
        def amount
        String currency
    }

    def parse(String line) {
        def (id, area, amount, currency) = line.split(';')
        def value = amount.contains(',') ? amount : new BigDecimal(amount)
        new OrderRow(id: id, area: area, amount: value, currency: currency)
    }

    def totals = [:].withDefault { 0L }
    int loaded = 0
    new File('data/orders.csv').eachLine { String line, int no ->
        if (no == 1) {
            return
        }
        def row = parse(line)
        long cents = Money.toCents(row.amount)
        totals[row.area] += cents
        loaded++
        println "loaded ${row.id} (${row.area}, ${cents} cents ${row.currency})"
        if (loaded % 100 == 0) {
            println "checkpoint: ${loaded} orders loaded, ${totals.size()} areas"
        }
    }
    println "export finished: ${loaded} orders"
"""


@case(
    "u43_groovy_etl_missing_method",
    "groovy",
    clean=False,
    group=GROUP,
    decisive=[
        "Caught: groovy.lang.MissingMethodException: No signature of method: static Money.toCents() is applicable",
        "etl.groovy:30",
    ],
)
def _groovy(root: Path) -> bytes:
    areas = ["billing", "orders", "cart", "tax", "refunds", "invoice", "shipping", "coupons"]
    rows = ["id;area;amount;currency"]
    for i in range(1, 1301):
        amount = "12,50" if i == 917 else f"{(i * 37) % 9000 / 100:.2f}"
        rows.append(f"ord-{i:05d};{areas[i % len(areas)]};{amount};EUR")
    write(root, {"etl.groovy": _ETL, "data/orders.csv": "\n".join(rows) + "\n"})
    return _settle(sh("groovy etl.groovy", root, env=_ENV), root)
