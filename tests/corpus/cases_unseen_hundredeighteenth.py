"""Held-out outputs (group ``unseen-118``): a hundred-and-eighteenth batch, the JDK's own command-line tools as an agent
runs them on a generated Java payments code base, ``com.paydesk``, of 123 classes in 15 packages named after business
words (``failedpayments``, ``errorcodes``, ``retryqueue``, ``exceptions``, ``refunds``, ``billing`` ...), all offline
with Debian's OpenJDK 17.

Failing runs: ``javac -Xlint:all`` over the 123 files with hundreds of warnings (raw types, unchecked calls, serial,
removal, deprecation, casts, fall-through) and one lossy-conversion error in the refunds package, ``javadoc
-Xdoclint:all`` with hundreds of missing-comment warnings and one ``reference not found`` error, a ``jshell`` script
over the compiled classes where one snippet throws (jshell says ``Exception`` and goes on, exit status 0), ``java
-verbose:class`` of the settlement run (piped through ``grep -v`` of the JDK's own classes) that dies of a helpful
``NullPointerException`` after 511 payments, ``jstack`` of the running payments desk whose ledger and refund threads
are deadlocked (only ``Found one Java-level deadlock`` near the end says so, exit status 0), and ``jdeps
-verbose:class`` of the jar where the retry queue needs a gateway class that is ``not found``. Clean runs full of
those business words: a build script of ``javac -Xlint:all`` with hundreds of warnings and no error, ``jar --create
--verbose`` then ``jar --list`` and ``java -jar``, a ``jshell`` report of failed payments, error codes and retries,
``java -Xlog:class+load,gc`` of the nightly settlement (filtered the same way), and ``jcmd Thread.print`` of the desk
with its retry workers waiting. Labels were written with each scenario, before the engine saw the output. Needs a JDK
with its tools (javac, javadoc, jar, jdeps, jshell, jstack, jcmd; Debian ``default-jdk``, OpenJDK 17 on bookworm).
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-118"

#: The 15 packages of the code base (package name, class prefix).
_PACKAGES = [
    ("billing", "Billing"), ("failedpayments", "FailedPayment"), ("errorcodes", "ErrorCode"),
    ("retryqueue", "RetryQueue"), ("exceptions", "ExceptionReport"), ("refunds", "Refund"), ("ledger", "Ledger"),
    ("invoice", "Invoice"), ("chargebacks", "Chargeback"), ("settlements", "Settlement"), ("payouts", "Payout"),
    ("disputes", "Dispute"), ("fraud", "FraudScore"), ("webhooks", "Webhook"), ("audit", "Audit"),
]  # fmt: skip

_JAVA_ENV = "env -u JAVA_TOOL_OPTIONS -u _JAVA_OPTIONS"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, addresses, ids, times and durations."""
    return substitute(
        scrub(out, root),
        (r"0x[0-9a-f]{6,16}", "0x00007f0000000000"),
        (r"tid=0x[0-9a-f]+", "tid=0x00007f0000000000"),
        (r"nid=0x[0-9a-f]+", "nid=0x1092"),
        (r"nid=\d+", "nid=4242"),
        (r"cpu=\d+\.\d+ms", "cpu=1.00ms"),
        (r"elapsed=\d+\.\d+s", "elapsed=1.00s"),
        (r"\d+\.\d+ms", "1.000ms"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "2026-01-01 00:00:00"),
        (r"^\d+:$", "4242:"),
        (r"^\[\d+\.\d+s\]", "[0.100s]"),
        (r"\[\d+\.\d+s\]\[info\]", "[0.100s][info]"),
        (r"\d+M->\d+M\(\d+M\)", "4M->2M(64M)"),
    )


def _service(pkg: str, c: str, i: int, extra: str) -> str:
    return f"""\
package com.paydesk.{pkg};

import java.util.ArrayList;
import java.util.Date;
import java.util.List;

/**
 * Posts {pkg} payments, records failed ones and schedules their retries.
 */
public class {c}Service {{
    private final {c}Repository repository = new {c}Repository();
    private final {c}RetryPolicy retryPolicy = new {c}RetryPolicy();

    public {c}Record post(String id, long amountCents) {{
        Integer attempts = new Integer(0);
        {c}Record record = new {c}Record(id, amountCents, {c}Status.PENDING);
        if (amountCents % {7 + i} == 3) {{
            record.fail("E-{i:02d}12");
        }} else {{
            record.settle();
        }}
        repository.save(record);
        String label = (String) record.id();
        int year = new Date(0L).getYear();
        return record.withNote(label + "/" + attempts + "/" + year);
    }}

    public List failedRecords() {{
        List failed = new ArrayList();
        for (Object o : repository.all()) {{
            {c}Record r = ({c}Record) o;
            if (r.status() == {c}Status.FAILED) {{
                failed.add(r);
            }}
        }}
        return failed;
    }}

    public long nextRetryDelay(int attempt) {{
        return retryPolicy.delaySeconds(attempt);
    }}

    public int count() {{
        return repository.all().size();
    }}
{extra}}}
"""


def _files(pkg: str, c: str, i: int, extras: dict[str, str]) -> dict[str, str]:
    base = f"src/com/paydesk/{pkg}"
    e = extras.get
    return {
        f"{base}/{c}Status.java": f"""\
package com.paydesk.{pkg};

/** The states a {pkg} payment goes through. */
public enum {c}Status {{
    PENDING, FAILED, RETRYING, SETTLED, REFUNDED;

    public boolean terminal() {{
        boolean result = false;
        switch (this) {{
            case SETTLED:
                result = true;
            case REFUNDED:
                result = true;
                break;
            default:
                result = false;
        }}
        return result;
    }}
}}
""",
        f"{base}/{c}Record.java": f"""\
package com.paydesk.{pkg};

import java.io.Serializable;

public class {c}Record implements Serializable {{
    private final String id;
    private final long amountCents;
    private {c}Status status;
    private String errorCode = "";
    private String note = "";

    public {c}Record(String id, long amountCents, {c}Status status) {{
        this.id = id;
        this.amountCents = amountCents;
        this.status = status;
    }}

    public String id() {{
        return id;
    }}

    public long amountCents() {{
        return amountCents;
    }}

    public {c}Status status() {{
        return status;
    }}

    public String errorCode() {{
        return errorCode;
    }}

    public void fail(String code) {{
        this.status = {c}Status.FAILED;
        this.errorCode = code;
    }}

    public void settle() {{
        this.status = {c}Status.SETTLED;
    }}

    public {c}Record withNote(String note) {{
        this.note = note;
        return this;
    }}
{e(f"{c}Record", "")}}}
""",
        f"{base}/{c}Exception.java": f"""\
package com.paydesk.{pkg};

/** Thrown when a {pkg} payment cannot be processed; carries its error code. */
public class {c}Exception extends RuntimeException {{
    private final String errorCode;

    public {c}Exception(String errorCode, String message) {{
        super(errorCode + ": " + message);
        this.errorCode = errorCode;
    }}

    public String errorCode() {{
        return errorCode;
    }}
}}
""",
        f"{base}/{c}Repository.java": f"""\
package com.paydesk.{pkg};

import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class {c}Repository {{
    private final Map byId = new HashMap();
    private final List ordered = new ArrayList();

    public void save({c}Record record) {{
        byId.put(record.id(), record);
        ordered.add(record);
    }}

    public {c}Record find(String id) {{
        return ({c}Record) byId.get(id);
    }}

    public List all() {{
        return ordered;
    }}
}}
""",
        f"{base}/{c}Service.java": _service(pkg, c, i, e(f"{c}Service", "")),
        f"{base}/{c}Validator.java": f"""\
package com.paydesk.{pkg};

public class {c}Validator {{
    private static int checked;

    public String check({c}Record record) {{
        this.checked++;
        String verdict = "ok";
        switch (record.status()) {{
            case FAILED:
                verdict = "failed:" + record.errorCode();
            case RETRYING:
                verdict = verdict + ":retry";
                break;
            default:
                break;
        }}
        return verdict;
    }}
}}
""",
        f"{base}/{c}Report.java": f"""\
package com.paydesk.{pkg};

import java.io.StringWriter;
import java.util.List;

/**
 * The {pkg} part of the nightly exception report.
 */
public class {c}Report {{
    /**
     * Render the report lines.
     *
     * @param rows the failed records
     * @return the report text
     */
    public String render(List rows) {{
        StringBuilder out = new StringBuilder();
        try (StringWriter unused = new StringWriter()) {{
            for (Object row : rows) {{
                {c}Record r = ({c}Record) row;
                out.append(r.id()).append(' ').append(r.errorCode()).append('\\n');
            }}
        }} catch (java.io.IOException e) {{
            throw new {c}Exception("E-{i:02d}99", "report failed");
        }}
        return out.toString();
    }}
{e(f"{c}Report", "")}}}
""",
        f"{base}/{c}RetryPolicy.java": f"""\
package com.paydesk.{pkg};

public class {c}RetryPolicy {{
    public static final int MAX_ATTEMPTS = {3 + i % 4};

    public long delaySeconds(int attempt) {{
        long delay = 60L;
        for (int k = 1; k < attempt; k++) {{
            delay = delay * 2;
        }}
        return Math.min(delay, 3600L);
    }}
{e(f"{c}RetryPolicy", "")}}}
""",
    }


_MAIN = """\
package com.paydesk;

import com.paydesk.billing.BillingService;
import com.paydesk.failedpayments.FailedPaymentService;
import com.paydesk.refunds.RefundService;
import com.paydesk.retryqueue.RetryQueueService;

/** The payments desk: settles, reports and serves. */
public class Main {
    public static void main(String[] args) throws Exception {
        String mode = args.length > 0 ? args[0] : "settle";
        int count = args.length > 1 ? Integer.parseInt(args[1]) : 200;
        if (mode.equals("settle")) {
            Settle.run(count);
        } else {
            Desk.serve(mode, count);
        }
    }
}
"""


def _codebase(root: Path, extras: dict[str, str] | None = None, more: dict[str, str] | None = None) -> None:
    """The 120 classes of the 15 packages and ``Main`` in ``root/src``; ``extras`` adds members to a class by its
    simple name, ``more`` adds whole files."""
    extras = extras or {}
    files: dict[str, str] = {"src/com/paydesk/Main.java": _MAIN}
    for i, (pkg, c) in enumerate(_PACKAGES):
        files.update(_files(pkg, c, i, extras))
    files.update(more or {})
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


_SETTLE = """\
package com.paydesk;

import com.paydesk.billing.*;
import com.paydesk.failedpayments.*;
import com.paydesk.ledger.*;
import com.paydesk.refunds.*;
import com.paydesk.retryqueue.*;
import com.paydesk.errorcodes.*;
import java.util.HashMap;
import java.util.Map;

/** The nightly settlement: posts payments, queues failed ones for retry, prints one line each. */
public class Settle {
    static String currency(int k) {
        return k % 11 == 0 ? "GBP" : k % 5 == 0 ? "USD" : "EUR";
    }

    public static void run(int count) {
        BillingService billing = new BillingService();
        FailedPaymentService failed = new FailedPaymentService();
        RetryQueueService retries = new RetryQueueService();
        LedgerService ledger = new LedgerService();
        Map<String, String> mandates = new HashMap<>();
        for (int k = 1; k <= count; k++) {
            if (k != %BROKEN%) {
                mandates.put("PAY-" + (10000 + k), "MND-" + (k % 97));
            }
        }
        System.out.println("paydesk settlement: " + count + " payments (failed payments, retry queue, error codes)");
        int settled = 0;
        int queued = 0;
        for (int k = 1; k <= count; k++) {
            String id = "PAY-" + (10000 + k);
            BillingRecord r = billing.post(id, 125L * k);
            ledger.post(id, 125L * k);
            String mandate = mandates.get(id);
            String bank = mandate.toUpperCase();
            if (r.status() == BillingStatus.FAILED) {
                failed.post(id, 125L * k);
                retries.post(id, billing.nextRetryDelay(1));
                queued++;
                System.out.println(id + " " + currency(k) + " amount=" + (125L * k) + " status=FAILED error="
                    + r.errorCode() + " mandate=" + bank + " retry=queued delay=" + billing.nextRetryDelay(1) + "s");
            } else {
                settled++;
                System.out.println(id + " " + currency(k) + " amount=" + (125L * k) + " status=SETTLED error=-"
                    + " mandate=" + bank + " retry=-");
            }
        }
        System.out.println("failed payments: " + queued + " (all in the retry queue, " + retries.count()
            + " retries pending, 0 exceptions unresolved)");
        System.out.println("Settlement complete: " + count + " payments, " + settled + " settled, " + queued
            + " queued for retry, ledger entries " + ledger.count());
    }
}
"""

_DESK = """\
package com.paydesk;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;

/** The running desk: retry workers waiting on the retry queue, and a ledger and refund thread. */
public class Desk {
    static final Object LEDGER_LOCK = new Object();
    static final Object REFUND_LOCK = new Object();

    public static void serve(String mode, int workers) throws Exception {
        LinkedBlockingQueue<String> retryQueue = new LinkedBlockingQueue<>();
        CountDownLatch started = new CountDownLatch(workers + 2);
        String[] names = {"retry-worker", "failed-payment-sweeper", "error-code-sync", "exception-mailer",
            "refund-poller", "chargeback-import", "webhook-redelivery", "audit-flush"};
        for (int k = 0; k < workers; k++) {
            Thread t = new Thread(() -> {
                started.countDown();
                try {
                    retryQueue.take();
                } catch (InterruptedException e) {
                    return;
                }
            }, names[k % names.length] + "-" + k);
            t.setDaemon(true);
            t.start();
        }
        CountDownLatch bothLocked = new CountDownLatch(2);
        Thread ledger = new Thread(() -> {
            synchronized (LEDGER_LOCK) {
                started.countDown();
                bothLocked.countDown();
                await(bothLocked, mode);
                synchronized (REFUND_LOCK) {
                    System.out.println("ledger posted refund");
                }
            }
        }, "ledger-poster");
        Thread refunds = new Thread(() -> {
            synchronized (REFUND_LOCK) {
                started.countDown();
                bothLocked.countDown();
                await(bothLocked, mode);
                synchronized (LEDGER_LOCK) {
                    System.out.println("refund reversed ledger entry");
                }
            }
        }, "refund-reverser");
        if (mode.equals("deadlock")) {
            ledger.setDaemon(true);
            refunds.setDaemon(true);
            ledger.start();
            refunds.start();
        } else {
            for (int k = 0; k < 2; k++) {
                started.countDown();
            }
        }
        started.await();
        Thread.sleep(300);
        System.out.println("desk ready");
        System.out.flush();
        Thread.sleep(600000);
    }

    static void await(CountDownLatch latch, String mode) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            return;
        }
    }
}
"""


def _more(broken: int = 0) -> dict[str, str]:
    return {
        "src/com/paydesk/Settle.java": _SETTLE.replace("%BROKEN%", str(broken)),
        "src/com/paydesk/Desk.java": _DESK,
    }


_JAVAC = "javac -Xlint:all -Xmaxwarns 5000 -Xmaxerrs 100 -d out $(find src -name '*.java' | sort)"


def _build(root: Path, broken: int = 0) -> None:
    """The code base with ``Settle`` and ``Desk``, compiled quietly into ``root/out``."""
    _codebase(root, more=_more(broken))
    sh(f"{_JAVA_ENV} javac -g -nowarn -Xlint:none -d out $(find src -name '*.java' | sort) > /dev/null 2>&1", root)


# ---------------------------------------------------------------- javac


_LOSSY = """
    public int partialRefundCents(long amountCents, int percent) {
        long refund = amountCents * percent / 100;
        int rounded = refund + 1;
        return rounded;
    }
"""


@case(
    "u118_javac_lint_error",
    "javac -Xlint:all",
    clean=False,
    group=GROUP,
    decisive=[
        "src/com/paydesk/refunds/RefundService.java:49: error: incompatible types: possible lossy conversion from "
        "long to int",
        "1 error",
        "[exit status 1]",
    ],
)
def _javac_error(root: Path) -> bytes:
    _codebase(root, extras={"RefundService": _LOSSY}, more=_more())
    return _settle(sh(f"{_JAVA_ENV} {_JAVAC}", root), root)


_BUILD_SH = """\
#!/bin/sh
set -e
rm -rf out && mkdir out
echo "== compiling $(find src -name '*.java' | wc -l) sources with -Xlint:all"
javac -Xlint:all -Xmaxwarns 5000 -d out $(find src -name '*.java' | sort)
echo "== compiled $(find out -name '*.class' | wc -l) class files into out/"
echo "BUILD OK: com.paydesk (billing, failedpayments, errorcodes, retryqueue, exceptions, refunds ...)"
"""


@case(
    "u118_javac_build_clean",
    "javac -Xlint:all (build script)",
    clean=True,
    group=GROUP,
    decisive=["== compiled 153 class files into out/", "BUILD OK: com.paydesk"],
)
def _javac_clean(root: Path) -> bytes:
    _codebase(root, more=_more())
    write(root, {"build.sh": _BUILD_SH})
    return _settle(sh(f"{_JAVA_ENV} sh build.sh", root), root)


# ---------------------------------------------------------------- javadoc


_BAD_LINK = """
    /**
     * Move every due retry of the exception report back to the retry queue.
     * Uses {@link com.paydesk.retryqueue.RetryQueueService#drainAll(int)} to empty the queue first.
     *
     * @param limit the most retries to move
     * @return how many retries were moved
     */
    public int requeueDue(int limit) {
        return limit;
    }
"""


@case(
    "u118_javadoc_doclint_error",
    "javadoc -Xdoclint:all",
    clean=False,
    group=GROUP,
    decisive=[
        "ExceptionReportReport.java:31: error: reference not found",
        "1 error",
        "[exit status 1]",
    ],
)
def _javadoc_error(root: Path) -> bytes:
    _codebase(root, extras={"ExceptionReportReport": _BAD_LINK}, more=_more())
    cmd = (
        f"{_JAVA_ENV} javadoc -quiet -Xdoclint:all -Xmaxwarns 5000 -Xmaxerrs 100 -notimestamp -d docs "
        "-sourcepath src -subpackages com.paydesk"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- jar and jdeps


@case(
    "u118_jar_create_list_run_clean",
    "jar --create/--list, java -jar",
    clean=True,
    group=GROUP,
    decisive=["added manifest", "Settlement complete: 180 payments, 154 settled, 26 queued for retry"],
)
def _jar_clean(root: Path) -> bytes:
    _build(root)
    write(
        root,
        {
            "out/com/paydesk/errorcodes/error-codes.properties": "".join(
                f"E-{i:02d}12=card declined in {p}\nE-{i:02d}99=report failed in {p}\n"
                for i, (p, _) in enumerate(_PACKAGES)
            )
        },
    )
    cmd = (
        "jar --create --verbose --file paydesk-3.2.0.jar --main-class com.paydesk.Main -C out . "
        "&& jar --list --file paydesk-3.2.0.jar && java -jar paydesk-3.2.0.jar settle 180"
    )
    return _settle(sh(f"{_JAVA_ENV} {cmd}", root), root)


_GATEWAY = """\
package com.acme.gateway;

public class GatewayClient {
    public boolean resubmit(String paymentId) {
        return paymentId != null;
    }
}
"""
_RESUBMIT = """
    public boolean resubmit(String paymentId) {
        return new com.acme.gateway.GatewayClient().resubmit(paymentId);
    }
"""


@case(
    "u118_jdeps_not_found",
    "jdeps -verbose:class",
    clean=False,
    group=GROUP,
    decisive=[
        "paydesk-3.2.0.jar -> not found",
        "com.paydesk.retryqueue.RetryQueueService           -> com.acme.gateway.GatewayClient",
    ],
)
def _jdeps_not_found(root: Path) -> bytes:
    _codebase(
        root,
        extras={"RetryQueueService": _RESUBMIT},
        more={**_more(), "gw/com/acme/gateway/GatewayClient.java": _GATEWAY},
    )
    sh(f"{_JAVA_ENV} javac -nowarn -d out -sourcepath src:gw $(find src -name '*.java' | sort) >/dev/null 2>&1", root)
    sh("rm -rf out/com/acme && jar --create --file paydesk-3.2.0.jar -C out .", root)
    return _settle(sh(f"{_JAVA_ENV} jdeps -verbose:class paydesk-3.2.0.jar", root), root)


# ---------------------------------------------------------------- jshell


_JSH_REPORT = """\
import com.paydesk.failedpayments.*;
import com.paydesk.errorcodes.*;
import com.paydesk.retryqueue.*;
import com.paydesk.exceptions.*;
var failed = new FailedPaymentService();
var retries = new RetryQueueService();
var codes = new java.util.TreeMap<String, Integer>();
void post(int from, int to) {
for (int k = from; k <= to; k++) {
    var r = failed.post("PAY-" + (20000 + k), 311L * k);
    if (r.status() == FailedPaymentStatus.FAILED) {
        codes.merge(r.errorCode(), 1, Integer::sum);
        retries.post(r.id(), failed.nextRetryDelay(1 + k % 4));
        long delay = failed.nextRetryDelay(1 + k % 4);
        System.out.println(r.id() + " FAILED error=" + r.errorCode() + " retry in " + delay + "s");
    } else {
        System.out.println(r.id() + " settled amount=" + r.amountCents());
    }
}
}
post(1, 260);
%MIDDLE%
post(261, 520);
System.out.println("error codes: " + codes);
System.out.println("retry queue: " + retries.count() + " pending, failed payments: " + failed.failedRecords().size());
for (int a = 1; a <= 6; a++) System.out.println("retry attempt " + a + " -> delay " + retries.nextRetryDelay(a) + "s");
System.out.println("exception report: written for " + failed.count() + " payments");
/exit
"""

_JSH_BROKEN = """\
var registry = new java.util.HashMap<String, String>();
registry.put("E-0112", "card declined");
registry.put("E-0199", "report failed");
String describe(String code) {
    String d = registry.get(code);
    if (d == null) throw new IllegalStateException("unknown error code " + code + " in exception report");
    return d;
}
for (String code : codes.keySet()) System.out.println(code + " -> " + describe(code));
"""


@case(
    "u118_jshell_report_clean",
    "jshell (script)",
    clean=True,
    group=GROUP,
    decisive=["retry queue: 65 pending, failed payments: 65", "exception report: written for 520 payments"],
)
def _jshell_clean(root: Path) -> bytes:
    _build(root)
    (root / ".java" / ".userPrefs").mkdir(parents=True)
    write(root, {"report.jsh": _JSH_REPORT.replace("%MIDDLE%", "")})
    return _settle(sh(f"{_JAVA_ENV} HOME={root} jshell --class-path out report.jsh", root), root)


@case(
    "u118_jshell_exception",
    "jshell (script)",
    clean=False,
    group=GROUP,
    decisive=[
        "Exception java.lang.IllegalStateException: unknown error code E-0112 in exception report",
        "at describe (#",
    ],
)
def _jshell_exception(root: Path) -> bytes:
    _build(root)
    (root / ".java" / ".userPrefs").mkdir(parents=True)
    write(root, {"report.jsh": _JSH_REPORT.replace("%MIDDLE%", _JSH_BROKEN.replace('"E-0112"', '"E-0113"'))})
    return _settle(sh(f"{_JAVA_ENV} HOME={root} jshell --class-path out report.jsh", root), root)


# ---------------------------------------------------------------- java runs


@case(
    "u118_java_xlog_clean",
    "java -Xlog:class+load,gc",
    clean=True,
    group=GROUP,
    decisive=["Settlement complete: 900 payments, 771 settled, 129 queued for retry"],
)
def _java_xlog_clean(root: Path) -> bytes:
    _build(root)
    log = "-Xlog:class+load=info,gc=info:stdout:level,tags"
    cmd = f"{_JAVA_ENV} java -Xshare:off -XX:+UseSerialGC {log} -cp out com.paydesk.Main settle 900"
    return _settle(sh(f"bash -o pipefail -c \"{cmd} | grep -v 'source: jrt:/java.base'\"", root), root)


@case(
    "u118_java_verbose_npe",
    "java -verbose:class",
    clean=False,
    group=GROUP,
    decisive=[
        'java.lang.NullPointerException: Cannot invoke "String.toUpperCase()" because "mandate" is null',
        "at com.paydesk.Settle.run(Settle.java:37)",
        "[exit status 1]",
    ],
)
def _java_verbose_npe(root: Path) -> bytes:
    _build(root, broken=512)
    cmd = f"{_JAVA_ENV} java -Xshare:off -verbose:class -cp out com.paydesk.Main settle 900 2>&1"
    return _settle(sh(f"bash -o pipefail -c \"{cmd} | grep -v 'source: jrt:/java.base'\"", root), root)


# ---------------------------------------------------------------- thread dumps


def _dump(root: Path, mode: str, workers: int, tool: str) -> bytes:
    """Start the desk in ``mode`` with ``workers`` waiting threads, wait until it is ready, run ``tool PID``."""
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS")}
    env["LC_ALL"] = "C.UTF-8"
    opts = "-Xshare:off -XX:+UseSerialGC -XX:-UseDynamicNumberOfCompilerThreads -XX:CICompilerCount=2"
    proc = subprocess.Popen(
        f"exec java {opts} -cp out com.paydesk.Main {mode} {workers}",
        shell=True, cwd=root, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
    )  # fmt: skip
    try:
        assert proc.stdout is not None
        line = proc.stdout.readline()
        assert b"desk ready" in line, line
        time.sleep(1)
        out = sh(tool.format(pid=proc.pid), root)
    finally:
        proc.send_signal(signal.SIGKILL)
        proc.wait()
    out = out.replace(f" {proc.pid}".encode(), b" 4242")
    return _settle(out, root)


@case(
    "u118_jstack_deadlock",
    "jstack",
    clean=False,
    group=GROUP,
    decisive=["Found one Java-level deadlock:", '"refund-reverser":', '"ledger-poster":', "Found 1 deadlock."],
)
def _jstack_deadlock(root: Path) -> bytes:
    _build(root)
    return _dump(root, "deadlock", 48, "jstack {pid}")


@case(
    "u118_jcmd_thread_print_clean",
    "jcmd Thread.print",
    clean=True,
    group=GROUP,
    decisive=["Full thread dump OpenJDK 64-Bit Server VM", '"retry-worker-0"'],
)
def _jcmd_clean(root: Path) -> bytes:
    _build(root)
    return _dump(root, "serve", 40, "jcmd {pid} Thread.print -l")
