"""Held-out outputs (group ``unseen-105``): a hundred-and-fifth batch, JVM languages other than Java as an agent runs
them on generated projects, all from Debian packages and offline (no Maven, Gradle, sbt or Clojars download).

Failing runs: ``kotlinc`` of 64 files with many unused-variable, deprecation and redundant-call warnings and one type
mismatch in ``refunds/RefundLedger.kt``; a compiled Kotlin settlement job that logs 1,400 invoices then dies with a
``LedgerSyncException`` and its ``Caused by:`` chain; ``scalac`` of 36 files with typer-phase lint warnings and one
type mismatch; a Scala program's uncaught ``NoSuchElementException`` after a long run; a Groovy script's
``MissingPropertyException`` in the middle of a batch; a Groovy audit script whose ``assert`` fails with Groovy's
power-assert diagram; a Clojure ``clojure.test`` run of 7 namespaces with one failing assertion among hundreds of
passes; and a Clojure script whose loaded namespace fails to compile (``Syntax error compiling at (...)``). Clean runs
named after errors and failures: ``kotlinc`` and ``java -jar`` of an ``ErrorCodes``/``FailedPayments``/``RetryQueue``
project, ``scalac`` and ``scala`` of an ``ExceptionReport`` job, a Groovy failed-payments report, and a Clojure
test run of ``errors``, ``retry-queue`` and ``failed-payments`` namespaces. Labels were written with each scenario,
before the engine saw the output. Needs Kotlin 1.3, Scala 2.11, Groovy 2.4 and Clojure 1.11 with OpenJDK 17 (Debian
``kotlin``, ``scala``, ``groovy``, ``clojure``, ``default-jdk-headless``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-105"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, temporary report files, timings, hashes."""
    return substitute(
        scrub(out, root),
        (r"/tmp/clojure-\d+\.edn", "/tmp/clojure-1000.edn"),
        (r"@[0-9a-f]{5,8}\b", "@1a2b3c4"),
        (r"\d+(\.\d+)? ?(ms|msecs)\b", "12 ms"),
    )


def _camel(word: str) -> str:
    return "".join(p.capitalize() for p in word.split("_"))


# ---------------------------------------------------------------- Kotlin


def _kotlin_file(area: str, name: str, i: int, extra: str = "") -> str:
    return f"""
        package billing.{area}

        @Deprecated("use fee()")
        fun oldFee{i}(cents: Long): Long = cents / 100

        class {name}(private val id: String) {{
            fun fee(cents: Long): Long {{
                val unusedTotal{i} = cents * 2
                val label: String = id
                val size = label?.length ?: 0
                return oldFee{i}(cents) + size
            }}

            fun describe(count: Int, verbose: Boolean): String {{
                var note = "{name} {area}"
                return note + " #" + count
            }}
        }}
        {extra}
    """


def _kotlin_project(root: Path, names: list[tuple[str, str]], broken: str = "") -> None:
    files = {}
    for i, (area, name) in enumerate(names):
        extra = ""
        if name == broken:
            extra = "\nfun refundTotal(items: List<Long>): Long {\n    val label: String = items.size\n"
            extra += "    return label.length.toLong()\n}\n"
        files[f"src/{area}/{name}.kt"] = _kotlin_file(area, name, i, extra)
    write(root, files)


def _kotlin_names(n: int, special: list[tuple[str, str]]) -> list[tuple[str, str]]:
    kinds = ["Service", "Repository", "Mapper", "Validator"]
    names = [(w, f"{_camel(w)}{k}") for w in WORDS for k in kinds][: n - len(special)]
    return sorted(names + special)


@case(
    "u105_kotlinc_warnings_one_error",
    "kotlinc",
    clean=False,
    group=GROUP,
    decisive=["src/refunds/RefundLedger.kt:21:25: error: type mismatch: inferred type is Int but String was expected"],
)
def _kotlinc_error(root: Path) -> bytes:
    modules = {
        "core": _kotlin_names(36, []),
        "refunds": [("refunds", "RefundLedger"), ("refunds", "RefundsService"), ("refunds", "RefundsMapper")],
        "reports": _kotlin_names(24, [("audit", "AuditExport")])[::-1][:24],
    }
    for module, names in modules.items():
        _kotlin_project(root / module, names, broken="RefundLedger")
    script = 'status=0; for m in core refunds reports; do echo "== kotlinc module $m"; '
    script += "kotlinc $m/src -d build/$m || status=1; done; exit $status"
    return _settle(sh(script, root), root)


_KT_MAIN = """
    package billing

    import billing.errors.ErrorCodes
    import billing.retry.RetryQueue

    fun main(args: Array<String>) {
        val codes = ErrorCodes()
        val queue = RetryQueue()
        for (i in 1..900) {
            val code = codes.codeFor(i)
            val attempt = queue.schedule("PAY-" + i.toString().padStart(5, '0'), i % 5 + 1)
            println("failed payment PAY-${i.toString().padStart(5, '0')} error=$code retry=$attempt/5 queued")
        }
        println("exception report: 900 failed payments queued for retry, 0 dropped")
        println("RetryQueue drained: ${queue.size()} entries written to build/retry-queue.json")
    }
"""

_KT_CODES = """
    package billing.errors

    class ErrorCodes {
        private val codes = listOf("card_declined", "insufficient_funds", "expired_card", "processing_error")
        fun codeFor(i: Int): String {
            val unusedIndex = i
            return codes[i % codes.size]
        }
    }
"""

_KT_QUEUE = """
    package billing.retry

    class RetryQueue {
        private val items = mutableListOf<String>()
        fun schedule(id: String, attempt: Int): Int {
            items.add(id)
            return attempt
        }
        fun size(): Int = items.size
    }
"""


@case(
    "u105_kotlin_clean_failed_payments",
    "kotlinc + java -jar",
    clean=True,
    group=GROUP,
    decisive=["exception report: 900 failed payments queued for retry, 0 dropped"],
)
def _kotlin_clean(root: Path) -> bytes:
    special = [("errors", "ErrorCodesRegistry"), ("payments", "FailedPayments"), ("exceptions", "ExceptionReport")]
    _kotlin_project(root, _kotlin_names(40, special))
    write(root, {"src/Main.kt": _KT_MAIN, "src/errors/ErrorCodes.kt": _KT_CODES, "src/retry/RetryQueue.kt": _KT_QUEUE})
    cmd = "mkdir -p build && kotlinc src -include-runtime -d build/app.jar && java -jar build/app.jar"
    return _settle(sh(cmd, root), root)


_KT_SETTLE = """
    package billing

    class LedgerSyncException(message: String, cause: Throwable) : RuntimeException(message, cause)

    data class Invoice(val id: String, val cents: Long)

    fun validate(invoice: Invoice): Long {
        if (invoice.cents < 0) {
            throw IllegalStateException("invoice ${invoice.id} has negative total ${invoice.cents}")
        }
        return invoice.cents
    }

    fun syncBatch(batch: Int, invoices: List<Invoice>): Long {
        try {
            return invoices.map { validate(it) }.sum()
        } catch (e: IllegalStateException) {
            throw LedgerSyncException("ledger sync failed for batch $batch", e)
        }
    }

    fun main(args: Array<String>) {
        var total = 0L
        for (batch in 1..70) {
            val invoices = (1..20).map { n ->
                val id = "INV-" + (batch * 100 + n)
                Invoice(id, if (batch == 43 && n == 7) -1250L else (batch * n * 37L) % 9000)
            }
            for (inv in invoices) println("settle ${inv.id} cents=${inv.cents} ledger=main retry=0 status=ok")
            total += syncBatch(batch, invoices)
            println("batch $batch synced, running total $total")
        }
    }
"""


@case(
    "u105_kotlin_caused_by",
    "kotlin",
    clean=False,
    group=GROUP,
    decisive=[
        'Exception in thread "main" billing.LedgerSyncException: ledger sync failed for batch 43',
        "Caused by: java.lang.IllegalStateException: invoice INV-4307 has negative total -1250",
        "at billing.SettlementKt.validate(Settlement.kt:9)",
    ],
)
def _kotlin_caused_by(root: Path) -> bytes:
    write(root, {"src/Settlement.kt": _KT_SETTLE})
    cmd = "kotlinc src -d build/classes && kotlin -cp build/classes billing.SettlementKt"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- Scala


def _scala_file(area: str, name: str, extra: str = "") -> str:
    return f"""
        package billing.{area}

        object {name} {{
          def widen(x: Long): Long = x
          def total(cents: Int): Long = widen(cents: Int)
          def log(a: Any): Unit = println("{name}", a)
          def touch(): Unit = {{ 42 }}
          def count(xs: List[Int]): Int = {{ val unusedLocal = xs.size; xs.sum }}
          {extra}
        }}
    """


_SCALAC = "scalac -Xlint -Ywarn-dead-code -Ywarn-numeric-widen -Ywarn-value-discard -Ywarn-unused -d build"


@case(
    "u105_scalac_type_mismatch",
    "scalac",
    clean=False,
    group=GROUP,
    decisive=["src/invoice/InvoiceTotals.scala:9: error: type mismatch;", " required: Long", "one error found"],
)
def _scalac_mismatch(root: Path) -> bytes:
    files = {}
    for w in WORDS[:18]:
        for kind in ("Service", "Policy"):
            files[f"src/{w}/{_camel(w)}{kind}.scala"] = _scala_file(w, f"{_camel(w)}{kind}")
    files["src/invoice/InvoiceTotals.scala"] = _scala_file(
        "invoice", "InvoiceTotals", 'def grand(lines: List[Long]): Long = lines.mkString("+")'
    )
    write(root, files)
    (root / "build").mkdir()
    return _settle(sh(f"{_SCALAC} $(find src -name '*.scala' | sort)", root), root)


_SCALA_RATES = """
    package billing

    object Settlement {
      val rates = Map("USD-ledger" -> 100, "GBP-ledger" -> 127, "CHF-ledger" -> 113)
      val currencies = List("USD-ledger", "GBP-ledger", "CHF-ledger")

      def rate(ledger: String): Int = rates(ledger)

      def main(args: Array[String]): Unit = {
        var total = 0L
        for (i <- 1 to 1500) {
          val ledger = if (i == 1088) "EUR-ledger" else currencies(i % 3)
          val cents = (i * 53L) % 7000
          total += cents * rate(ledger) / 100
          println(f"shipping order SHP-$i%05d ledger=$ledger cents=$cents%6d total=$total")
        }
      }
    }
"""


@case(
    "u105_scala_uncaught",
    "scala",
    clean=False,
    group=GROUP,
    decisive=[
        "java.util.NoSuchElementException: key not found: EUR-ledger",
        "at billing.Settlement$.rate(Settlement.scala:7)",
    ],
)
def _scala_uncaught(root: Path) -> bytes:
    write(root, {"src/Settlement.scala": _SCALA_RATES})
    (root / "build").mkdir()
    return _settle(sh("scalac -d build src/Settlement.scala && scala -cp build billing.Settlement", root), root)


_SCALA_REPORT = """
    package billing.exceptions

    object ExceptionReport {
      case class Failure(id: String, code: String, attempts: Int)

      def main(args: Array[String]): Unit = {
        val codes = Vector("timeout_error", "card_declined", "gateway_exception", "retry_exhausted")
        val failures = (1 to 700).map(i => Failure(f"PAY-$i%05d", codes(i % 4), i % 6))
        println("ExceptionReport: collecting failed payments from RetryQueue and ErrorCodes")
        failures.foreach { f =>
          println(f"  ${f.id}  error=${f.code}%-18s attempts=${f.attempts}  FAILED -> requeued")
        }
        val byCode = failures.groupBy(_.code).toList.sortBy(_._1)
        byCode.foreach { case (c, fs) => println(f"errors[$c%-18s] ${fs.size}%4d failed payments") }
        println(s"Report written: exception-report.csv (${failures.size} rows, 0 parse errors)")
      }
    }
"""


@case(
    "u105_scala_clean_exception_report",
    "scalac + scala",
    clean=True,
    group=GROUP,
    decisive=["Report written: exception-report.csv (700 rows, 0 parse errors)"],
)
def _scala_clean(root: Path) -> bytes:
    write(root, {"src/ExceptionReport.scala": _SCALA_REPORT})
    (root / "build").mkdir()
    cmd = "scalac -d build src/ExceptionReport.scala && scala -cp build billing.exceptions.ExceptionReport"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- Groovy

_GROOVY_RETRY = """
    package billing

    class RetryPolicy {
        int maxAttempts = 5
        String describe(String id) {
            return "${id}: up to ${maxAttempts} attempts, backoff ${retryCount * 2}s"
        }
    }

    def policy = new RetryPolicy()
    (1..1200).each { i ->
        def id = String.format('WH-%05d', i)
        println "webhook ${id} delivered=200 attempts=1 retry=none"
        if (i == 640) {
            println policy.describe(id)
        }
    }
    println 'all webhooks delivered'
"""


@case(
    "u105_groovy_missing_property",
    "groovy",
    clean=False,
    group=GROUP,
    decisive=[
        "Caught: groovy.lang.MissingPropertyException: No such property: retryCount for class: billing.RetryPolicy",
        "at billing.RetryPolicy.describe(webhook_retry.groovy:6)",
    ],
)
def _groovy_missing(root: Path) -> bytes:
    write(root, {"webhook_retry.groovy": _GROOVY_RETRY})
    return _settle(sh("groovy webhook_retry.groovy", root), root)


_GROOVY_AUDIT = """
    class Ledger {
        List<Long> entries = []
        long balance() { entries.sum() ?: 0L }
    }

    def ledger = new Ledger()
    (1..900).each { i ->
        ledger.entries << (i % 7 == 0 ? -i : i) * 10L
        println "audit entry ${i}: amount=${ledger.entries[-1]} balance=${ledger.balance()} ok"
    }
    long expected = 3600000L
    println "checking ledger balance against export"
    assert ledger.balance() == expected
    println 'audit passed'
"""


@case(
    "u105_groovy_power_assert",
    "groovy",
    clean=False,
    group=GROUP,
    decisive=["Caught: Assertion failed:", "at audit_ledger.run(audit_ledger.groovy:13)"],
)
def _groovy_assert(root: Path) -> bytes:
    write(root, {"audit_ledger.groovy": _GROOVY_AUDIT})
    return _settle(sh("groovy audit_ledger.groovy", root), root)


_GROOVY_REPORT = """
    class FailedPayment {
        String id
        String error
        int retries
    }

    def errors = ['card_declined', 'network_error', 'fraud_exception', 'retry_limit']
    def failed = (1..800).collect { i ->
        new FailedPayment(id: sprintf('PAY-%05d', i), error: errors[i % 4], retries: i % 4)
    }
    println 'FailedPayments report (ErrorCodes v3, RetryQueue snapshot)'
    println 'id          error              retries  status'
    failed.each { p -> println sprintf('%-11s %-18s %7d  FAILED', p.id, p.error, p.retries) }
    failed.groupBy { it.error }.sort().each { k, v -> println "errors.${k}: ${v.size()} failed payments" }
    println "FailedPayments report complete: ${failed.size()} rows exported to failed_payments.csv"
"""


@case(
    "u105_groovy_clean_failed_payments",
    "groovy",
    clean=True,
    group=GROUP,
    decisive=["FailedPayments report complete: 800 rows exported to failed_payments.csv"],
)
def _groovy_clean(root: Path) -> bytes:
    write(root, {"failed_payments_report.groovy": _GROOVY_REPORT})
    return _settle(sh("groovy failed_payments_report.groovy", root), root)


# ---------------------------------------------------------------- Clojure


def _clj_test_ns(area: str, n: int, broken: int = -1) -> str:
    ns = area.replace("_", "-")
    tests = []
    for i in range(n):
        expected = i * 3 + (1 if i == broken else 0)
        tests.append(
            f"(deftest {ns}-case-{i}-test\n"
            f'  (println "{ns}: checking case {i} (errors=0 retries={i % 4})")\n'
            f"  (is (= {expected} (* {i} 3)))\n"
            f"  (is (string? (str :{ns}-{i}))))\n"
        )
    return f"(ns billing.{ns}-test\n  (:require [clojure.test :refer [deftest is]]))\n\n" + "\n".join(tests)


def _clj_runner(nss: list[str]) -> str:
    names = " ".join(f"'billing.{n.replace('_', '-')}-test" for n in nss)
    reqs = "\n".join(f"(require 'billing.{n.replace('_', '-')}-test)" for n in nss)
    return (
        f"(require 'clojure.test)\n{reqs}\n"
        f"(let [r (clojure.test/run-tests {names})]\n"
        "  (System/exit (if (zero? (+ (:fail r) (:error r))) 0 1)))\n"
    )


def _clj_project(root: Path, nss: list[str], broken: tuple[str, int] = ("", -1)) -> None:
    files = {f"test/billing/{n}_test.clj": _clj_test_ns(n, 60, broken[1] if n == broken[0] else -1) for n in nss}
    files["run_tests.clj"] = _clj_runner(nss)
    write(root, files)


@case(
    "u105_clojure_test_fail",
    "clojure",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL in (refunds-case-23-test) (refunds_test.clj:",
        "expected: (= 70 (* 23 3))",
        "1 failures, 0 errors.",
    ],
)
def _clojure_fail(root: Path) -> bytes:
    nss = ["audit", "billing", "ledger", "refunds", "session", "shipping", "tax"]
    _clj_project(root, nss, broken=("refunds", 23))
    return _settle(sh("clojure -cp test run_tests.clj", root), root)


@case(
    "u105_clojure_clean_errors_retry",
    "clojure",
    clean=True,
    group=GROUP,
    decisive=["0 failures, 0 errors."],
)
def _clojure_clean(root: Path) -> bytes:
    nss = ["errors", "retry_queue", "failed_payments", "exceptions", "webhooks"]
    _clj_project(root, nss)
    return _settle(sh("clojure -cp test run_tests.clj", root), root)


_CLJ_LEDGER = """
    (ns billing.ledger)

    (def accounts [:cash :receivables :refunds :tax])

    (defn post [entry]
      (assoc entry :posted true))

    (defn retry-post [entry]
      (let [attempts (:attempts entry 0)]
        (if (< attempts 3)
          (post (assoc entry :attempts (inc attempts)))
          (assoc entry :failed true :retries retry-count))))
"""

_CLJ_MIGRATE = """
    (doseq [i (range 1 700)]
      (println (format "migrate invoice INV-%05d -> ledger v2 (account %s) ok"
                       i (nth [:cash :tax :refunds] (mod i 3)))))
    (println "loading billing.ledger for the ledger v2 post step")
    (require 'billing.ledger)
    (println "ledger v2 migration complete")
"""


@case(
    "u105_clojure_syntax_error",
    "clojure",
    clean=False,
    group=GROUP,
    decisive=[
        "Syntax error compiling at (billing/ledger.clj:12:7).",
        "Unable to resolve symbol: retry-count in this context",
    ],
)
def _clojure_syntax(root: Path) -> bytes:
    write(root, {"src/billing/ledger.clj": _CLJ_LEDGER, "migrate.clj": _CLJ_MIGRATE})
    return _settle(sh("clojure -cp src migrate.clj", root), root)
