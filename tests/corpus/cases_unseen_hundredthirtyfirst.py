"""Held-out outputs (group ``unseen-131``): a hundred-and-thirty-first batch, Apache Tomcat 10 as an agent deploys to
it locally, offline from Debian's packages: a ``CATALINA_BASE`` generated in the scenario's folder holding 40 exploded
webapps named after business words (``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``,
``refunds`` ...), each with a startup listener that logs what it loaded (warnings about defaults and deprecated
properties included) and a status servlet, compiled with the JDK's ``javac``; Tomcat runs with ``catalina.sh run``
and its console log on a port of its own on 127.0.0.1.

Failing runs: a startup where the listener of one webapp throws (``SEVERE`` with a nested ``Caused by:`` chain in the
middle of the 40 deployments, the script itself exiting 0), a startup where one webapp's ``web.xml`` is malformed
(deployed early, a long tail of other deployments below), a startup where one servlet's class is missing with
``load-on-startup`` (``threw load() exception``), a startup on a port another process already holds (``BindException``
and Tomcat giving up), a curl smoke test of 120 endpoints where one servlet throws at request time (the test's
summary and exit status, then the tail of the log), and one ``curl -i`` POST answered by Tomcat's HTML error report
followed by the whole log. Clean runs full of those business words: a startup and stop of the 40 webapps with
warnings, a startup from 48 context descriptors carrying attributes Tomcat 10 no longer knows (a ``WARNING`` each),
a smoke test of 120 endpoints whose bodies count failed payments and errors, and a start and stop where one webapp
leaves a retry worker thread running (Tomcat's memory-leak warnings). Labels were written with each scenario, before
the engine saw the output. Needs Tomcat 10 and a JDK (Debian ``tomcat10-common``, ``libtomcat10-java``,
``default-jdk-headless``), curl and Python 3.
"""

from __future__ import annotations

import shutil
import socket
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-131"

_HOME = Path("/usr/share/tomcat10")
_API = _HOME / "lib" / "servlet-api.jar"

#: The 40 webapps, in the order they are written.
_APPS = [
    "failed_payments", "error_codes", "retry_queue", "exceptions", "refunds", "billing", "orders", "cart", "tax",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
    "session", "auth", "errors_log", "retry_policy", "chargebacks", "settlements", "payouts", "disputes",
    "fraud_score", "currency", "fees", "statements", "reconcile", "failed_webhooks", "dead_letters", "alerts",
    "exceptions_inbox", "returns", "subscriptions", "dunning", "credit_notes",
]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _settle(out: bytes, root: Path, port: int) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the port, dates, durations and PIDs."""
    return substitute(
        scrub(out, root),
        (rf"\b{port}\b", "8080"),
        (r"\d\d-[A-Z][a-z]{2}-\d{4} \d\d:\d\d:\d\d\.\d{3}", "01-Jan-2026 00:00:00.000"),
        (r"in \[[\d,]+\] milliseconds", "in [100] milliseconds"),
        (r"has finished in \[[\d,]+\] ms", "has finished in [10] ms"),
        (r"took \[[\d,]+\] milliseconds", "took [10] milliseconds"),
        (r"Catalina-utilityExecutor-\d+", "Catalina-utilityExecutor-1"),
        (r"-exec-\d+\]", "-exec-1]"),
        (r"Date: .*", "Date: Thu, 01 Jan 2026 00:00:00 GMT"),
        (r"time_total=\d+\.\d+", "time_total=0.001"),
        (r"pid \d+", "pid 4242"),
        (r"\$\$Lambda\$\d+/0x[0-9a-f]+", "$$Lambda$100/0x0000000800000000"),
    )


_LISTENER = """\
package com.acme.{pkg};

import java.util.logging.Logger;

import jakarta.servlet.ServletContextEvent;
import jakarta.servlet.ServletContextListener;

public class StartupListener implements ServletContextListener {{
    private static final Logger LOG = Logger.getLogger(StartupListener.class.getName());

    @Override
    public void contextInitialized(ServletContextEvent event) {{
        LOG.info("[{app}] loading {codes} error codes from WEB-INF/error_codes.properties");
        LOG.info("[{app}] failed_payments backlog: {failed} records, retry_queue depth: {retries}");
{warn}{extra}        LOG.info("[{app}] exception mapper registered for {codes} error codes");
        LOG.info("[{app}] ready (schema v{schema}, {tables} tables)");
    }}

    @Override
    public void contextDestroyed(ServletContextEvent event) {{
{destroy}        LOG.info("[{app}] stopped, {failed} failed payments left for the next run");
    }}
}}
"""

_WARN = """\
        LOG.warning("[{app}] retry.maxAttempts not set in WEB-INF/app.properties, using the default of 5");
        LOG.warning("[{app}] property 'errors.legacyMapping' is deprecated and will be removed in 3.0");
"""

_SERVLET = """\
package com.acme.{pkg};

import java.io.IOException;

import jakarta.servlet.ServletException;
import jakarta.servlet.http.HttpServlet;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletResponse;

public class StatusServlet extends HttpServlet {{
    @Override
    protected void doGet(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {{
        String path = req.getServletPath();
{extra}        resp.setContentType("text/plain");
        if (path.equals("/errors")) {{
            resp.getWriter().printf("{app}: errors=%d exceptions=%d error_codes=%d%n", {errors}, {exc}, {codes});
        }} else if (path.equals("/health")) {{
            resp.getWriter().printf("{app}: healthy, failed_payments=%d retry_queue=%d%n", {failed}, {retries});
        }} else {{
            resp.getWriter().printf("{app}: status=ok schema=v{schema} tables={tables}%n");
        }}
    }}

    @Override
    protected void doPost(HttpServletRequest req, HttpServletResponse resp) throws ServletException, IOException {{
{post}        resp.setContentType("text/plain");
        resp.getWriter().printf("{app}: accepted%n");
    }}
}}
"""

_WEB_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<web-app xmlns="https://jakarta.ee/xml/ns/jakartaee"
         xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance"
         xsi:schemaLocation="https://jakarta.ee/xml/ns/jakartaee https://jakarta.ee/xml/ns/jakartaee/web-app_6_0.xsd"
         version="6.0" metadata-complete="true">
  <display-name>{app}</display-name>
  <listener>
    <listener-class>com.acme.{pkg}.StartupListener</listener-class>
  </listener>
  <servlet>
    <servlet-name>status</servlet-name>
    <servlet-class>com.acme.{pkg}.StatusServlet</servlet-class>
  </servlet>
{servlets}  <servlet-mapping>
    <servlet-name>status</servlet-name>
    <url-pattern>/status</url-pattern>
    <url-pattern>/errors</url-pattern>
    <url-pattern>/health</url-pattern>
    <url-pattern>/api</url-pattern>
  </servlet-mapping>
</web-app>
"""

_SERVER_XML = """\
<?xml version="1.0" encoding="UTF-8"?>
<Server port="-1" shutdown="SHUTDOWN" utilityThreads="1">
  <Listener className="org.apache.catalina.startup.VersionLoggerListener" />
  <Listener className="org.apache.catalina.core.JreMemoryLeakPreventionListener" />
  <Listener className="org.apache.catalina.core.ThreadLocalLeakPreventionListener" />
  <Service name="Catalina">
    <Connector port="{port}" address="127.0.0.1" protocol="HTTP/1.1" connectionTimeout="20000" />
    <Engine name="Catalina" defaultHost="localhost">
      <Host name="localhost" appBase="webapps" unpackWARs="true" autoDeploy="false" startStopThreads="1">
      </Host>
    </Engine>
  </Service>
</Server>
"""

_LOGGING = """\
handlers = java.util.logging.ConsoleHandler
.handlers = java.util.logging.ConsoleHandler
.level = INFO
java.util.logging.ConsoleHandler.level = FINE
java.util.logging.ConsoleHandler.formatter = org.apache.juli.OneLineFormatter
java.util.logging.ConsoleHandler.encoding = UTF-8
org.apache.catalina.util.SessionIdGeneratorBase.level = SEVERE
"""

#: Start Tomcat in the background, wait for it to finish starting (or to die), run ``$1`` (a script of the
#: scenario), stop Tomcat with SIGTERM; what the run prints depends on the script.
_RUN = """\
#!/bin/bash
# Start Tomcat from ./base, wait until it has started, run the given step, stop it.
export CATALINA_HOME=/usr/share/tomcat10 CATALINA_BASE="$PWD/base"
export JAVA_OPTS="-Djava.awt.headless=true -Djava.security.egd=file:/dev/./urandom -Xshare:off"
: > base/logs/console.log
"$CATALINA_HOME/bin/catalina.sh" run >> base/logs/console.log 2>&1 &
pid=$!
for _ in $(seq 240); do
  grep -q 'Server startup in' base/logs/console.log && break
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.5
done
step=0
if [ -n "$1" ]; then bash "$1"; step=$?; fi
if kill -0 "$pid" 2>/dev/null; then kill -TERM "$pid"; fi
wait "$pid"
if [ -z "$1" ] || [ -n "$SHOW_LOG" ]; then cat base/logs/console.log; fi
exit $step
"""


def _base(
    root: Path,
    *,
    port: int,
    apps: list[str] | None = None,
    listener: dict[str, str] | None = None,
    destroy: dict[str, str] | None = None,
    servlet: dict[str, str] | None = None,
    post: dict[str, str] | None = None,
    servlets: dict[str, str] | None = None,
    web_xml: dict[str, str] | None = None,
    descriptor: str | None = None,
) -> None:
    """The ``CATALINA_BASE`` in ``root/base`` with the webapps ``apps`` compiled and exploded, and ``run.sh``;
    with ``descriptor`` (the attributes of each ``<Context>``), the webapps live in ``root/apps`` and are deployed
    from context descriptors in ``conf/Catalina/localhost``."""
    apps = _APPS if apps is None else apps
    base = root / "base"
    for sub in ("logs", "temp", "work", "webapps"):
        (base / sub).mkdir(parents=True, exist_ok=True)
    (base / "conf").mkdir()
    for name in ("catalina.properties", "context.xml", "web.xml", "tomcat-users.xml", "jaspic-providers.xml"):
        shutil.copy(_HOME / "skel" / "conf" / name, base / "conf" / name)
    write(base / "conf", {"server.xml": _SERVER_XML.format(port=port), "logging.properties": _LOGGING})
    sources: dict[str, str] = {}
    for i, app in enumerate(apps):
        pkg = app.replace("_", "")
        n = {
            "app": app,
            "pkg": pkg,
            "codes": 40 + 7 * i,
            "failed": (i * 13) % 29,
            "retries": (i * 5) % 17,
            "schema": 3 + i % 4,
            "tables": 4 + i % 9,
            "errors": (i * 3) % 11,
            "exc": i % 5,
        }
        warn = _WARN.format(app=app) if i % 3 == 1 else ""
        sources[f"src/com/acme/{pkg}/StartupListener.java"] = _LISTENER.format(
            warn=warn, extra=(listener or {}).get(app, ""), destroy=(destroy or {}).get(app, ""), **n
        )
        sources[f"src/com/acme/{pkg}/StatusServlet.java"] = _SERVLET.format(
            extra=(servlet or {}).get(app, ""), post=(post or {}).get(app, ""), **n
        )
        docbase = root / "apps" / app if descriptor is not None else base / "webapps" / app
        if descriptor is not None:
            write(
                base / "conf" / "Catalina" / "localhost",
                {f"{app}.xml": f'<Context docBase="{docbase}" {descriptor} />\n'},
            )
        xml = (web_xml or {}).get(app) or _WEB_XML.format(app=app, pkg=pkg, servlets=(servlets or {}).get(app, ""))
        (docbase / "WEB-INF" / "classes").mkdir(parents=True)
        (docbase / "WEB-INF" / "web.xml").write_text(xml)
        (docbase / "index.html").write_text(f"<h1>{app}</h1>\n")
    for rel, text in sources.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    built = sh(f"javac -nowarn -cp {_API} -d build $(find src -name '*.java')", root)
    if b"[exit status" in built:
        raise RuntimeError(built.decode())
    for app in apps:
        pkg = app.replace("_", "")
        docbase = root / "apps" / app if descriptor is not None else base / "webapps" / app
        shutil.copytree(root / "build" / "com" / "acme" / pkg, docbase / "WEB-INF" / "classes" / "com" / "acme" / pkg)
    (root / "run.sh").write_text(_RUN)


def _run(root: Path, port: int, step: str = "", *, show_log: bool = False) -> bytes:
    env = {"SHOW_LOG": "1"} if show_log else {}
    return _settle(sh(f"bash run.sh {step}".strip(), root, env=env, timeout=300), root, port)


#: A smoke test over every webapp: three GETs each, a line per request, a summary; on a failure the tail of the log.
_SMOKE = """\
#!/bin/bash
# Smoke test: every webapp must answer 200 on /status, /errors and /health.
port=$(sed -n 's/.*Connector port="\\([0-9]*\\)".*/\\1/p' base/conf/server.xml)
ok=0; bad=0; total=0
for app in {apps}; do
  for ep in status errors health; do
    total=$((total + 1))
    code=$(curl -s -o body.txt -w '%{{http_code}}' "http://127.0.0.1:$port/$app/$ep")
    if [ "$code" = 200 ]; then
      ok=$((ok + 1)); echo "PASS $code /$app/$ep  $(head -c 100 body.txt)"
    else
      bad=$((bad + 1)); echo "FAIL $code /$app/$ep"
    fi
  done
done
echo "smoke: $ok/$total endpoints answered 200, $bad failed"
log=base/logs/console.log
echo "log: $(grep -c ' WARNING ' $log) WARNING lines, $(grep -c ' SEVERE ' $log) SEVERE lines"
if [ "$bad" -gt 0 ]; then
  echo "--- tail -n 40 base/logs/console.log"
  tail -n 40 base/logs/console.log
  exit 1
fi
"""


def _smoke(root: Path) -> str:
    write(root, {"smoke.sh": _SMOKE.format(apps=" ".join(_APPS))})
    return "smoke.sh"


# ---------------------------------------------------------------- failing runs

_REFUND_RULES = """\
        java.io.InputStream rules = event.getServletContext().getResourceAsStream("/WEB-INF/refund-rules.csv");
        try {
            if (rules == null) {
                throw new java.io.FileNotFoundException("/WEB-INF/refund-rules.csv (missing from the refunds webapp)");
            }
        } catch (java.io.IOException e) {
            throw new IllegalStateException("Refund rules could not be loaded, refunds API disabled",
                new java.io.UncheckedIOException("Cannot read refund rules for the error code mapping", e));
        }
"""


@case(
    "u131_listener_fails",
    "tomcat10 catalina.sh run",
    clean=False,
    group=GROUP,
    decisive=[
        "Exception sending context initialized event to listener instance of class [com.acme.refunds.StartupListener]",
        "Caused by: java.io.FileNotFoundException: /WEB-INF/refund-rules.csv (missing from the refunds webapp)",
        "Context [/refunds] startup failed due to previous errors",
    ],
)
def _listener_fails(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, listener={"refunds": _REFUND_RULES})
    return _run(root, port)


_LEDGER_ERRORS = """\
        if (path.equals("/errors")) {
            String[] codes = "E-0412,E-0413,E-04l4,E-0415".split(",");
            int sum = 0;
            for (String code : codes) {
                try {
                    sum += Integer.parseInt(code.substring(2));
                } catch (NumberFormatException e) {
                    throw new ServletException("Cannot summarise ledger error codes for period 2024-11", e);
                }
            }
        }
"""


@case(
    "u131_smoke_servlet_500",
    "curl smoke test (tomcat10)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAIL 500 /ledger/errors",
        "smoke: 119/120 endpoints answered 200, 1 failed",
        "Servlet.service() for servlet [status] in context with path [/ledger] threw exception "
        "[Cannot summarise ledger error codes for period 2024-11] with root cause",
        "[exit status 1]",
    ],
)
def _smoke_servlet_500(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, servlet={"ledger": _LEDGER_ERRORS})
    return _run(root, port, _smoke(root))


_BROKEN_WEB_XML = _WEB_XML.format(app="catalog", pkg="catalog", servlets="").replace(
    "<servlet-name>status</servlet-name>\n    <servlet-class>",
    "<servlet-name>status</servlet-nam>\n    <servlet-class>",
)


@case(
    "u131_web_xml_parse_error",
    "tomcat10 catalina.sh run",
    clean=False,
    group=GROUP,
    decisive=[
        "Parse error in application web.xml file at [file:/tmp/work/base/webapps/catalog/WEB-INF/web.xml]",
        "Context [/catalog] startup failed due to previous errors",
    ],
)
def _web_xml_parse_error(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, web_xml={"catalog": _BROKEN_WEB_XML})
    return _run(root, port)


_DISPUTE_FEED = """\
  <servlet>
    <servlet-name>disputeFeed</servlet-name>
    <servlet-class>com.acme.chargebacks.DisputeFeedServlet</servlet-class>
    <load-on-startup>1</load-on-startup>
  </servlet>
"""


@case(
    "u131_load_on_startup_cnfe",
    "tomcat10 catalina.sh run",
    clean=False,
    group=GROUP,
    decisive=[
        "Servlet [disputeFeed] in web application [/chargebacks] threw load() exception",
        "java.lang.ClassNotFoundException: com.acme.chargebacks.DisputeFeedServlet",
    ],
)
def _load_on_startup_cnfe(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, servlets={"chargebacks": _DISPUTE_FEED})
    return _run(root, port)


@case(
    "u131_port_in_use",
    "tomcat10 catalina.sh run",
    clean=False,
    group=GROUP,
    decisive=["java.net.BindException: Address already in use"],
)
def _port_in_use(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port)
    with socket.socket() as holder:
        holder.bind(("127.0.0.1", port))
        holder.listen()
        return _run(root, port)


_REFUND_POST = """\
        String body = new String(req.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
        String amount = body.replaceAll(".*\\"amount\\"\\s*:\\s*\\"([^\\"]*)\\".*", "$1");
        try {
            new java.math.BigDecimal(amount);
        } catch (NumberFormatException e) {
            throw new IllegalStateException("Cannot post refund RF-2291 to the ledger: amount [" + amount + "]", e);
        }
"""

_POST_STEP = """\
#!/bin/bash
port=$(sed -n 's/.*Connector port="\\([0-9]*\\)".*/\\1/p' base/conf/server.xml)
curl -sS -i -X POST -H 'Content-Type: application/json' \\
  --data '{"refund_id": "RF-2291", "order": "ORD-88412", "amount": "12,50", "reason": "failed_delivery"}' \\
  "http://127.0.0.1:$port/refunds/api"
echo
"""


@case(
    "u131_curl_post_500",
    "curl + tomcat10 log",
    clean=False,
    group=GROUP,
    decisive=[
        "HTTP/1.1 500",
        "Cannot post refund RF-2291 to the ledger: amount [12,50]",
    ],
)
def _curl_post_500(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, post={"refunds": _REFUND_POST})
    write(root, {"post.sh": _POST_STEP})
    return _run(root, port, "post.sh", show_log=True)


# ---------------------------------------------------------------- clean runs

_HEALTH_STEP = """\
#!/bin/bash
port=$(sed -n 's/.*Connector port="\\([0-9]*\\)".*/\\1/p' base/conf/server.xml)
for app in failed_payments error_codes retry_queue exceptions; do
  curl -sS "http://127.0.0.1:$port/$app/health"
done
"""


@case(
    "u131_startup_clean_warnings",
    "tomcat10 catalina.sh run",
    clean=True,
    group=GROUP,
    decisive=[
        "Deployment of web application directory [/tmp/work/base/webapps/failed_payments] has finished in [10] ms",
        "Server startup in [100] milliseconds",
        "failed_payments: healthy, failed_payments=0 retry_queue=0",
    ],
)
def _startup_clean_warnings(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port)
    write(root, {"health.sh": _HEALTH_STEP})
    return _run(root, port, "health.sh", show_log=True)


@case(
    "u131_smoke_clean",
    "curl smoke test (tomcat10)",
    clean=True,
    group=GROUP,
    decisive=["smoke: 120/120 endpoints answered 200, 0 failed", "log: 26 WARNING lines, 0 SEVERE lines"],
)
def _smoke_clean(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port)
    return _run(root, port, _smoke(root))


@case(
    "u131_descriptors_unknown_attrs",
    "tomcat10 catalina.sh run",
    clean=True,
    group=GROUP,
    decisive=[
        "Deployment of deployment descriptor [/tmp/work/base/conf/Catalina/localhost/error_codes.xml] has finished",
        "Server startup in [100] milliseconds",
    ],
)
def _descriptors_unknown_attrs(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, descriptor='antiJARLocking="true" allowLinking="false" reloadable="false"')
    return _run(root, port)


_RETRY_WORKER = """\
        Thread worker = new Thread(() -> {
            while (true) {
                try {
                    Thread.sleep(60000);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "retry-queue-worker");
        worker.setDaemon(true);
        worker.start();
        LOG.info("[retry_queue] retry worker started, polling failed payments every 60 s");
"""


@case(
    "u131_stop_thread_leak_warning",
    "tomcat10 catalina.sh run",
    clean=True,
    group=GROUP,
    decisive=[
        "Server startup in [100] milliseconds",
        'Destroying ProtocolHandler ["http-nio-127.0.0.1-8080"]',
    ],
)
def _stop_thread_leak_warning(root: Path) -> bytes:
    port = _free_port()
    _base(root, port=port, listener={"retry_queue": _RETRY_WORKER})
    return _run(root, port)
