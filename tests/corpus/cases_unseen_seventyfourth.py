"""Held-out outputs (group ``unseen-74``): a seventy-fourth batch, message brokers and job queues as an agent runs and
debugs them on the loopback: each broker started in the scenario's folder on free ports (scrubbed), its clients run
from a virtual environment of their own, and the broker stopped at the end.

Failing runs: a RabbitMQ ``pika`` consumer of ``failed-payments`` that dies on a payment without a currency in the
middle of 400 deliveries, followed by ``rabbitmqctl list_queues`` and the broker's log; a ``pika`` publisher with
confirms whose events go to the undeclared exchange ``billing.events`` after 300 good publishes, followed by the
broker log's tail; a ``beanstalkd -V`` with a ``greenstalk`` worker that buries three jobs among 1,200
and a stats script; Redis streams driven by ``redis-cli`` where one consumer of ``billing-workers`` leaves its batch
unacknowledged and the reclaim names a missing group (``NOGROUP``), with ``XPENDING``; and an ``rq worker --burst``
over 400 ``charge_failed_payment`` jobs where a few fail and retry and one is moved to the failed registry. Clean runs
named after errors and failures: ``rabbitmqctl status``, dead-letter policies and a ``pika`` round trip over
``error-events``, ``retry-queue`` and ``dead-letter`` with ``rabbitmq-diagnostics`` checks; ``beanstalkd`` tubes
``retry-queue`` and ``error-events`` drained with ``stats-tube``; Redis streams ``failed-payments`` and
``error-events`` read and acknowledged by a consumer group; an ``rq worker`` over ``retry_errors`` jobs with ``rq
info``; and a ``dramatiq`` worker over ``record_error_event`` and ``retry_failed_invoice`` actors. Labels were
written with each scenario, before the engine saw the output. Needs Debian ``rabbitmq-server``, ``beanstalkd``,
``redis-server`` and ``redis-tools``, with pika 1.4.4, greenstalk 2.1.1, redis 8.1.0, rq 2.12.0 and dramatiq 2.2.1
from PyPI, installed once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u74-queues``.
"""

from __future__ import annotations

import socket
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-74"

_REQS = "pika==1.4.4 greenstalk==2.1.1 redis==8.1.0 rq==2.12.0 dramatiq==2.2.1"
#: The environment the clients and workers run in, made once and kept between runs.
_VENV = VENVS / "u74-queues"
_RMQ = "/usr/lib/rabbitmq/bin"


def _env(root: Path) -> str:
    """The environment prefix that runs the clients with the pinned libraries (made once)."""
    make_venv(_VENV, _REQS, pip_options="--only-binary :all:", isolated=False)
    return (
        f"PATH={_VENV}/bin:$PATH HOME={root} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1"
        " PYTHONWARNINGS=ignore TZ=UTC"
    )


def _ports(n: int) -> list[int]:
    """``n`` distinct free TCP ports on the loopback."""
    socks = []
    for _ in range(n):
        s = socket.socket()
        s.bind(("127.0.0.1", 0))
        socks.append(s)
    ports = [s.getsockname()[1] for s in socks]
    for s in socks:
        s.close()
    return ports


def _settle(out: bytes, root: Path, ports: dict[str, int]) -> bytes:
    """``out`` scrubbed of the folder, ports, times, PIDs and ids that differ between two runs."""
    out = substitute(
        scrub(out, root),
        (r"\d{4}-\d\d-\d\d[ T]\d\d:\d\d:\d\d([.,]\d+)?([+-]\d\d:\d\d|Z)?", "2026-01-01 00:00:00"),
        (r"^\d\d:\d\d:\d\d ", "00:00:00 "),
        (r"<\d+\.\d+\.\d+>", "<0.100.0>"),
        (r"127\.0\.0\.1:\d+ -> 127\.0\.0\.1:", "127.0.0.1:port -> 127.0.0.1:"),
        (r"\bpid \d+", "pid 1000"),
        (r"\bPID \d+", "PID 1000"),
        (r"OS PID: \d+", "OS PID: 1000"),
        (r"\[PID \d+\]", "[PID 1000]"),
        (r"Thread-[\w()-]+", "Thread-1"),
        (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "00000000-0000-0000-0000-000000000000"),
        (r"\b[0-9a-f]{32}\b", "0" * 32),
        (r"took \d+ ?ms\b", "took 1 ms"),
        (r"job in \d+:\d\d:\d\d\.\d+s", "job in 0:00:00.001000s"),
        (r"rabbitmq-cluster-id-[\w-]+", "rabbitmq-cluster-id-0000"),
        (r"Uptime \(seconds\): \d+", "Uptime (seconds): 10"),
    )
    for name, port in ports.items():
        out = substitute(out, (rf"(?<![0-9]){port}(?![0-9])", name))
    return out


_WORDS = ["billing", "orders", "refunds", "invoice", "ledger", "shipping", "coupons", "webhooks", "audit", "tax"]


# ---------------------------------------------------------------- RabbitMQ


def _rmq_env(root: Path, amqp: int, dist: int, epmd: int) -> str:
    """The RABBITMQ_* variables of a node whose data, logs and cookie live in the scenario's folder."""
    (root / "enabled_plugins").write_text("[].\n")
    cookie = root / ".erlang.cookie"
    cookie.write_text("OFFLOADERCORPUSU74COOKIE")
    cookie.chmod(0o400)
    return (
        f"RABBITMQ_MNESIA_BASE={root}/mnesia RABBITMQ_LOG_BASE={root}/log RABBITMQ_NODENAME=rabbit-u74@localhost"
        f" RABBITMQ_NODE_IP_ADDRESS=127.0.0.1 RABBITMQ_NODE_PORT={amqp} RABBITMQ_DIST_PORT={dist}"
        f" ERL_EPMD_PORT={epmd} RABBITMQ_ENABLED_PLUGINS_FILE={root}/enabled_plugins"
        f" RABBITMQ_CONFIG_FILE={root}/rabbitmq RABBITMQ_PID_FILE={root}/rabbit.pid RABBITMQ_LOGS={root}/log/rabbit.log"
        f" AMQP_PORT={amqp}"
    )


def _rmq_run(root: Path, steps: str) -> bytes:
    """``steps`` (a shell script) run against a RabbitMQ node started for them, then the node and its epmd stopped."""
    amqp, dist, epmd = _ports(3)
    env = f"{_env(root)} {_rmq_env(root, amqp, dist, epmd)} PATH={_RMQ}:{_VENV}/bin:$PATH"
    script = (
        f"export {env}; rabbitmq-server > server.out 2>&1 & "
        "rabbitmqctl wait --timeout 120 $RABBITMQ_PID_FILE > wait.out 2>&1 || { cat wait.out server.out; exit 3; }; "
        f"( {steps} ); st=$?; rabbitmqctl stop > /dev/null 2>&1; "
        "for i in $(seq 50); do epmd -kill > /dev/null 2>&1; epmd -names > /dev/null 2>&1 || break; sleep 0.2; done; "
        "exit $st"
    )
    out = _settle(sh(script, root, timeout=300), root, {"AMQP_PORT": amqp, "DIST_PORT": dist, "EPMD_PORT": epmd})
    return substitute(out, (r"ports (AMQP|DIST)_PORT, (AMQP|DIST)_PORT on", "ports AMQP_PORT, DIST_PORT on"))


_RMQ_SETUP = """
import json
import os

import pika

params = pika.ConnectionParameters("127.0.0.1", int(os.environ["AMQP_PORT"]))
conn = pika.BlockingConnection(params)
ch = conn.channel()
ch.confirm_delivery()
ch.exchange_declare("payments", "direct", durable=True)
ch.exchange_declare("dlx", "fanout", durable=True)
ch.queue_declare("dead-letter", durable=True)
ch.queue_bind("dead-letter", "dlx")
for name in ("failed-payments", "retry-queue", "error-events", "refunds-retry"):
    ch.queue_declare(name, durable=True, arguments={"x-dead-letter-exchange": "dlx"})
    ch.queue_bind(name, "payments", routing_key=name)
    print(f"declared queue {name} (dead-letter-exchange=dlx) bound to payments/{name}")
"""


@case(
    "u74_rabbitmq_consumer_keyerror",
    "rabbitmq pika consumer, rabbitmqctl list_queues and the broker log",
    clean=False,
    group=GROUP,
    decisive=["KeyError: 'currency'", 'consumer.py", line 20, in on_payment'],
)
def _rmq_consumer(root: Path) -> bytes:
    write(
        root,
        {
            "setup.py": _RMQ_SETUP
            + """
for n in range(1, 401):
    body = {"payment": f"pay-{n:04d}", "order": f"ord-{n * 7 % 1000:04d}", "amount": n * 137 % 9000 / 100}
    if n != 263:
        body["currency"] = "EUR" if n % 3 else "USD"
    ch.basic_publish("payments", "failed-payments", json.dumps(body).encode(),
                     pika.BasicProperties(delivery_mode=2, message_id=f"pay-{n:04d}"))
print("published 400 payments to failed-payments (confirmed)")
conn.close()
""",
            "consumer.py": """
                import json
                import os

                import pika

                RATES = {"EUR": 1.0, "USD": 0.92}
                done = 0


                def retry_charge(payment: dict, eur: float) -> str:
                    return "captured" if int(eur * 100) % 11 else "soft-declined, sent to retry-queue"


                def on_payment(ch, method, props, body):
                    global done
                    payment = json.loads(body)
                    attempt = 1 + (props.headers or {}).get("x-retry", 0)
                    amount = payment["amount"]
                    # convert to the ledger's currency before charging again
                    eur = round(amount * RATES[payment["currency"]], 2)
                    outcome = retry_charge(payment, eur)
                    if outcome != "captured":
                        ch.basic_publish("payments", "retry-queue", body, pika.BasicProperties(headers={"x-retry": 1}))
                    ch.basic_ack(method.delivery_tag)
                    done += 1
                    print(f"[failed-payments] {payment['payment']} order {payment['order']} attempt {attempt}:"
                          f" {amount:.2f} {payment['currency']} = {eur:.2f} EUR {outcome}")


                conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", int(os.environ["AMQP_PORT"])))
                ch = conn.channel()
                ch.basic_qos(prefetch_count=20)
                ch.basic_consume("failed-payments", on_payment, consumer_tag="payments-retrier-1")
                print("payments-retrier-1 consuming failed-payments (prefetch 20)")
                ch.start_consuming()
            """,
        },
    )
    steps = (
        "python setup.py && python consumer.py; st=$?; "
        "echo '$ rabbitmqctl list_queues name messages messages_ready messages_unacknowledged consumers'; "
        "rabbitmqctl list_queues name messages messages_ready messages_unacknowledged consumers; "
        "echo '$ rabbitmqctl list_consumers'; rabbitmqctl list_consumers; "
        "echo '$ cat log/rabbit.log'; cat log/rabbit.log; exit $st"
    )
    return _rmq_run(root, steps)


@case(
    "u74_rabbitmq_publish_missing_exchange",
    "rabbitmq pika publisher with confirms and rabbitmq-diagnostics log_tail",
    clean=False,
    group=GROUP,
    decisive=[
        "pika.exceptions.ChannelClosedByBroker: (404",
        'publisher.py", line 25, in publish_billing_events',
    ],
)
def _rmq_missing_exchange(root: Path) -> bytes:
    write(
        root,
        {
            "setup.py": _RMQ_SETUP + "conn.close()\n",
            "publisher.py": """
                import json
                import os

                import pika

                conn = pika.BlockingConnection(pika.ConnectionParameters("127.0.0.1", int(os.environ["AMQP_PORT"])))
                ch = conn.channel()
                ch.confirm_delivery()


                def publish_payment_retries(n: int) -> None:
                    for k in range(1, n + 1):
                        queue = ("failed-payments", "retry-queue", "error-events", "refunds-retry")[k % 4]
                        body = {"event": f"evt-{k:04d}", "queue": queue, "order": f"ord-{k * 13 % 997:04d}"}
                        ch.basic_publish("payments", queue, json.dumps(body).encode(),
                                         pika.BasicProperties(delivery_mode=2, message_id=f"evt-{k:04d}"))
                        print(f"confirmed evt-{k:04d} -> payments/{queue} ({len(json.dumps(body))} bytes)")


                def publish_billing_events(n: int) -> None:
                    for k in range(1, n + 1):
                        kind = ("invoice.failed", "invoice.retry", "ledger.error")[k % 3]
                        body = {"event": f"bill-{k:04d}", "kind": kind}
                        # billing events go to their own topic exchange
                        ch.basic_publish("billing.events", kind, json.dumps(body).encode(),
                                         pika.BasicProperties(delivery_mode=2))
                        print(f"confirmed bill-{k:04d} -> billing.events/{kind}")


                publish_payment_retries(300)
                publish_billing_events(40)
                conn.close()
            """,
        },
    )
    steps = (
        "python setup.py && python publisher.py; st=$?; "
        "echo '$ rabbitmqctl list_exchanges name type'; rabbitmqctl list_exchanges name type; "
        "echo '$ rabbitmqctl list_queues name messages'; rabbitmqctl list_queues name messages; "
        "echo '$ tail -n 60 log/rabbit.log'; tail -n 60 log/rabbit.log; exit $st"
    )
    return _rmq_run(root, steps)


@case(
    "u74_rabbitmq_dead_letter_clean",
    "rabbitmqctl status, set_policy, list_queues, rabbitmq-diagnostics and a pika round trip",
    clean=True,
    group=GROUP,
    decisive=["round trip done: 480 published, 480 acknowledged, 0 redelivered"],
)
def _rmq_clean(root: Path) -> bytes:
    write(
        root,
        {
            "setup.py": _RMQ_SETUP
            + """
queues = ("failed-payments", "retry-queue", "error-events", "refunds-retry")
for n in range(1, 481):
    queue = queues[n % 4]
    body = {"event": f"evt-{n:04d}", "error": "card_declined" if n % 5 == 0 else None, "retry": n % 3}
    ch.basic_publish("payments", queue, json.dumps(body).encode(), pika.BasicProperties(delivery_mode=2))
print("published 480 events (confirmed)")
acked = redelivered = 0
for queue in queues:
    for method, props, body in ch.consume(queue, inactivity_timeout=1):
        if method is None:
            break
        event = json.loads(body)
        redelivered += method.redelivered
        ch.basic_ack(method.delivery_tag)
        acked += 1
        print(f"[{queue}] {event['event']} error={event['error']} retry={event['retry']} acked")
    ch.cancel()
print(f"round trip done: 480 published, {acked} acknowledged, {redelivered} redelivered")
conn.close()
""",
        },
    )
    steps = (
        "echo '$ rabbitmqctl status'; rabbitmqctl status; "
        "echo '$ rabbitmqctl set_policy'; "
        'rabbitmqctl set_policy retry-dlx "^(failed-payments|retry-queue|error-events)$" '
        '\'{"dead-letter-exchange":"dlx","message-ttl":600000}\' --apply-to queues && '
        "python setup.py && "
        "echo '$ rabbitmqctl list_queues name messages consumers policy arguments'; "
        "rabbitmqctl list_queues name messages consumers policy arguments && "
        "echo '$ rabbitmqctl list_policies'; rabbitmqctl list_policies && "
        "echo '$ rabbitmqctl list_bindings'; rabbitmqctl list_bindings && "
        "echo '$ rabbitmq-diagnostics check_running'; rabbitmq-diagnostics check_running && "
        "echo '$ rabbitmq-diagnostics check_local_alarms'; rabbitmq-diagnostics check_local_alarms && "
        "echo '$ rabbitmq-diagnostics check_port_connectivity'; rabbitmq-diagnostics check_port_connectivity && "
        "echo '$ rabbitmq-diagnostics listeners'; rabbitmq-diagnostics listeners"
    )
    out = _rmq_run(root, steps)
    return substitute(
        out,
        (r"^(Total memory used: |Memory high watermark setting: .* computed to: )[\d.]+ gb", r"\g<1>0.1 gb"),
        (r"^([a-z_]+: )[\d.]+ gb \([\d.]+ %\)$", r"\g<1>0.0 gb (0.0 %)"),
        (r"^(Scheduler run queue|Erlang processes|Sockets): .*$", r"\1: 0"),
        (r"^Total: \d+, limit: \d+$", "Total: 10, limit: 19903"),
        (r"^Free disk space: [\d.]+ gb$", "Free disk space: 60.0 gb"),
    )


# ---------------------------------------------------------------- beanstalkd


def _beanstalk_run(root: Path, steps: str) -> bytes:
    (port,) = _ports(1)
    script = (
        f"export {_env(root)} BEANSTALK_PORT={port}; beanstalkd -V -l 127.0.0.1 -p {port} > beanstalkd.log 2>&1 & "
        f"b=$!; sleep 0.5; ( {steps} ); st=$?; kill $b; wait $b 2>/dev/null; "
        "echo '$ cat beanstalkd.log'; cat beanstalkd.log; exit $st"
    )
    return _settle(sh(script, root, timeout=300), root, {"PORT": port})


_PRODUCER = """
import json
import os

import greenstalk

TUBES = {tubes}
client = greenstalk.Client(("127.0.0.1", int(os.environ["BEANSTALK_PORT"])))
for n in range(1, {count} + 1):
    tube = TUBES[n % len(TUBES)]
    client.use(tube)
    body = {{"job": n, "order": f"ord-{{n * 31 % 9973:04d}}", "amount_cents": n * 389 % 50000, "card": "{card}"}}
    {tweak}
    jid = client.put(json.dumps(body), priority=1024, ttr=30)
    print(f"put job {{jid}} into {{tube}}: {{body['order']}} {{body['amount_cents']}} cents")
client.close()
"""


@case(
    "u74_beanstalkd_buried_jobs",
    "beanstalkd -V with greenstalk producer, worker and stats",
    clean=False,
    group=GROUP,
    decisive=["job 317 buried: ValueError('card expired for ord-9827')", "3 jobs buried in failed-payments"],
)
def _beanstalk_buried(root: Path) -> bytes:
    tubes = ["failed-payments", "retry-queue", "invoice-export", "error-events"]
    write(
        root,
        {
            "producer.py": _PRODUCER.format(
                tubes=tubes,
                count=1200,
                card="visa",
                tweak='if n in (317, 689, 941):\n        body["card"] = "expired"\n        tube = "failed-payments"\n'
                "        client.use(tube)",
            ),
            "worker.py": """
                import json
                import os

                import greenstalk

                client = greenstalk.Client(("127.0.0.1", int(os.environ["BEANSTALK_PORT"])),
                                           watch=["failed-payments", "retry-queue", "invoice-export", "error-events"])


                def charge(body: dict) -> str:
                    if body["card"] == "expired":
                        raise ValueError(f"card expired for {body['order']}")
                    return f"charged {body['amount_cents']} cents"


                done = buried = 0
                while True:
                    try:
                        job = client.reserve(timeout=1)
                    except greenstalk.TimedOutError:
                        break
                    body = json.loads(job.body)
                    try:
                        result = charge(body)
                    except ValueError as exc:
                        client.bury(job)
                        buried += 1
                        print(f"job {job.id} buried: {exc!r}")
                        continue
                    client.delete(job)
                    done += 1
                    print(f"job {job.id} {body['order']}: {result}, deleted")
                print(f"worker drained the tubes: {done} deleted, {buried} buried")
            """,
            "stats.py": """
                import os
                import sys

                import greenstalk

                client = greenstalk.Client(("127.0.0.1", int(os.environ["BEANSTALK_PORT"])))
                keep = ("current-jobs-ready", "current-jobs-reserved", "current-jobs-buried",
                        "total-jobs", "cmd-delete")
                for tube in client.tubes():
                    stats = client.stats_tube(tube)
                    print(f"stats-tube {tube}")
                    for key in keep:
                        print(f"  {key}: {stats[key]}")
                client.use("failed-payments")
                buried = client.stats_tube("failed-payments")["current-jobs-buried"]
                if buried:
                    job = client.peek_buried()
                    print(f"peek-buried: job {job.id} {job.body}")
                    print(f"{buried} jobs buried in failed-payments")
                    sys.exit(1)
            """,
        },
    )
    return _beanstalk_run(root, "python producer.py && python worker.py && python stats.py")


@case(
    "u74_beanstalkd_retry_tubes_clean",
    "beanstalkd -V with greenstalk producer, worker and stats",
    clean=True,
    group=GROUP,
    decisive=["worker drained the tubes: 480 deleted, 0 buried"],
)
def _beanstalk_clean(root: Path) -> bytes:
    tubes = ["retry-queue", "error-events", "dead-letter", "exceptions-report"]
    write(
        root,
        {
            "producer.py": _PRODUCER.format(tubes=tubes, count=480, card="visa", tweak="pass"),
            "worker.py": """
                import json
                import os

                import greenstalk

                client = greenstalk.Client(("127.0.0.1", int(os.environ["BEANSTALK_PORT"])),
                                           watch=["retry-queue", "error-events", "dead-letter", "exceptions-report"])
                done = buried = released = 0
                seen = set()
                while True:
                    try:
                        job = client.reserve(timeout=1)
                    except greenstalk.TimedOutError:
                        break
                    body = json.loads(job.body)
                    if body["job"] % 40 == 0 and body["job"] not in seen:
                        seen.add(body["job"])
                        client.release(job, delay=0)
                        released += 1
                        print(f"job {job.id} {body['order']}: gateway busy, released for retry")
                        continue
                    client.delete(job)
                    done += 1
                    print(f"job {job.id} {body['order']}: retried error report, {body['amount_cents']} cents, deleted")
                print(f"released {released} jobs once for retry")
                print(f"worker drained the tubes: {done} deleted, {buried} buried")
            """,
            "stats.py": """
                import os

                import greenstalk

                client = greenstalk.Client(("127.0.0.1", int(os.environ["BEANSTALK_PORT"])))
                for tube in client.tubes():
                    stats = client.stats_tube(tube)
                    print(f"stats-tube {tube}")
                    for key, value in stats.items():
                        print(f"  {key}: {value}")
                stats = client.stats()
                for key in ("current-jobs-buried", "cmd-bury", "job-timeouts", "total-jobs", "cmd-release"):
                    print(f"stats {key}: {stats[key]}")
            """,
        },
    )
    return _beanstalk_run(root, "python producer.py && python worker.py && python stats.py")


# ---------------------------------------------------------------- Redis streams


def _redis_run(root: Path, steps: str) -> bytes:
    """``steps`` run against a redis-server started for them on a free port ($REDIS_PORT), then stopped."""
    (port,) = _ports(1)
    script = (
        f"export {_env(root)} REDIS_PORT={port} REDIS_URL=redis://127.0.0.1:{port}/0; "
        f"redis-server --port {port} --bind 127.0.0.1 --save '' --appendonly no --dir {root} --logfile {root}/redis.log"
        " --daemonize yes --pidfile redis.pid; "
        f"for i in $(seq 50); do redis-cli -p {port} ping > /dev/null 2>&1 && break; sleep 0.1; done; "
        f"( {steps} ); st=$?; redis-cli -p {port} shutdown nosave > /dev/null 2>&1; exit $st"
    )
    return _settle(sh(script, root, timeout=300), root, {"REDIS_PORT": port})


def _xadds(stream: str, count: int, first: int = 1) -> str:
    lines = []
    for n in range(first, first + count):
        word = _WORDS[n % len(_WORDS)]
        status = ("failed", "retry", "declined", "error")[n % 4]
        lines.append(
            f"XADD {stream} 1700000000000-{n} order ord-{n * 17 % 9973:04d} service {word}"
            f" amount_cents {n * 389 % 50000} status {status}"
        )
    return "\n".join(lines) + "\n"


@case(
    "u74_redis_streams_xpending_stuck",
    "redis-cli XADD, XREADGROUP, XACK, XAUTOCLAIM and XPENDING",
    clean=False,
    group=GROUP,
    decisive=[
        "(error) NOGROUP No such key 'payments' or consumer group 'billing-worker'",
        "1) (integer) 163",
        '1) 1) "payments-worker-3"',
    ],
)
def _redis_stuck(root: Path) -> bytes:
    write(root, {"seed.txt": _xadds("payments", 800)})
    steps = ["echo '$ redis-cli < seed.txt'; redis-cli -p $REDIS_PORT < seed.txt | tail -n 3"]
    cli = "redis-cli --no-raw -p $REDIS_PORT"
    steps.append(f"echo '$ redis-cli XLEN payments'; {cli} XLEN payments")
    create = "XGROUP CREATE payments billing-workers 0"
    steps.append(f"echo '$ redis-cli {create}'; {cli} {create}")
    for k in range(1, 5):
        read = f"XREADGROUP GROUP billing-workers payments-worker-{k} COUNT 200 STREAMS payments '>'"
        steps.append(f'echo "$ redis-cli {read}"; {cli} {read}')
    for k in range(1, 5):
        last = 437 if k == 3 else 200 * k
        ids = " ".join(f"1700000000000-{n}" for n in range(200 * (k - 1) + 1, last + 1))
        steps.append(f"echo '$ redis-cli XACK payments billing-workers (payments-worker-{k})'")
        steps.append(f"{cli} XACK payments billing-workers {ids}")
    steps.append(
        "echo '$ redis-cli XAUTOCLAIM payments billing-worker payments-worker-5 60000 0-0 COUNT 50'; "
        f"{cli} XAUTOCLAIM payments billing-worker payments-worker-5 60000 0-0 COUNT 50"
    )
    steps.append(f"echo '$ redis-cli XPENDING payments billing-workers'; {cli} XPENDING payments billing-workers")
    steps.append(
        f"echo '$ redis-cli XPENDING payments billing-workers - + 5'; {cli} XPENDING payments billing-workers - + 5"
    )
    steps.append(f"echo '$ redis-cli XINFO GROUPS payments'; {cli} XINFO GROUPS payments")
    return substitute(_redis_run(root, "; ".join(steps)), (r"^(\s+3\) )\(integer\) \d+$", r"\1(integer) 1000"))


@case(
    "u74_redis_streams_groups_clean",
    "redis-cli --pipe, XGROUP, XREADGROUP, XACK, XPENDING and XINFO",
    clean=True,
    group=GROUP,
    decisive=["errors: 0, replies: 1200"],
)
def _redis_clean(root: Path) -> bytes:
    streams = ["failed-payments", "error-events", "retry-queue"]
    seed = "".join(_xadds(s, 400, 1 + 400 * i) for i, s in enumerate(streams))
    write(root, {"seed.txt": seed})
    cli = "redis-cli --no-raw -p $REDIS_PORT"
    steps = ["echo '$ redis-cli --pipe < seed.txt'; redis-cli -p $REDIS_PORT --pipe < seed.txt"]
    for i, stream in enumerate(streams):
        group = f"{stream}-workers"
        steps.append(f"echo '$ redis-cli XGROUP CREATE {stream} {group} 0'; {cli} XGROUP CREATE {stream} {group} 0")
        read = f"XREADGROUP GROUP {group} {stream}-consumer-1 COUNT 120 STREAMS {stream} '>'"
        steps.append(f'echo "$ redis-cli {read}"; {cli} {read} | head -n 240')
        ids = " ".join(f"1700000000000-{n}" for n in range(1 + 400 * i, 121 + 400 * i))
        steps.append(f"echo '$ redis-cli XACK {stream} {group} (120 ids)'; {cli} XACK {stream} {group} {ids}")
        read = f"XREADGROUP GROUP {group} {stream}-consumer-2 COUNT 500 STREAMS {stream} '>'"
        steps.append(f'echo "$ redis-cli {read} (ids only)"; redis-cli -p $REDIS_PORT {read} | grep -c 17000')
        ids = " ".join(f"1700000000000-{n}" for n in range(121 + 400 * i, 401 + 400 * i))
        steps.append(f"echo '$ redis-cli XACK {stream} {group} (280 ids)'; {cli} XACK {stream} {group} {ids}")
        steps.append(f"echo '$ redis-cli XPENDING {stream} {group}'; {cli} XPENDING {stream} {group}")
        steps.append(f"echo '$ redis-cli XINFO GROUPS {stream}'; {cli} XINFO GROUPS {stream}")
    steps.append(f"echo '$ redis-cli XINFO STREAM failed-payments'; {cli} XINFO STREAM failed-payments")
    return _redis_run(root, "; ".join(steps))


# ---------------------------------------------------------------- RQ and Dramatiq

_RQ_ENQUEUE = """
import os

from redis import Redis
from rq import Queue, Retry

queue = Queue("{queue}", connection=Redis.from_url(os.environ["REDIS_URL"]))
for n in range(1, {count} + 1):
    order = f"ord-{{n:04d}}"
    queue.enqueue("{func}", order, n * 389 % 50000, job_id=f"{prefix}-{{n:04d}}", retry=Retry(max=2),
                  result_ttl=600)
print(f"enqueued {count} jobs on {queue}")
"""


@case(
    "u74_rq_worker_retry_failed",
    "rq worker --burst with retries, then rq info",
    clean=False,
    group=GROUP,
    decisive=[
        "GatewayDeclined: ord-0251 declined by the gateway: account closed (attempt 3 of 3)",
        "payments     | 0, 0 executing, 399 finished, 1 failed",
    ],
)
def _rq_fail(root: Path) -> bytes:
    write(
        root,
        {
            "enqueue.py": _RQ_ENQUEUE.format(
                queue="payments", count=400, func="billing_tasks.charge_failed_payment", prefix="charge"
            ),
            "billing_tasks.py": """
                from rq import get_current_job


                class GatewayDeclined(Exception):
                    pass


                class GatewayTimeout(Exception):
                    pass


                def charge_failed_payment(order: str, cents: int) -> str:
                    job = get_current_job()
                    attempt = 3 - job.retries_left if job.retries_left is not None else 3
                    n = int(order.split("-")[1])
                    if n == 251:
                        reason = "account closed"
                        raise GatewayDeclined(f"{order} declined by the gateway: {reason} (attempt {attempt} of 3)")
                    if n % 47 == 0 and attempt == 1:
                        raise GatewayTimeout(f"{order}: gateway did not answer within 30s (attempt {attempt} of 3)")
                    print(f"charged {order}: {cents} cents on attempt {attempt}")
                    return f"captured {cents}"
            """,
        },
    )
    steps = (
        "python enqueue.py && echo '$ rq worker --burst --name payments-worker-1 payments' && "
        "rq worker --burst --name payments-worker-1 --url $REDIS_URL payments; "
        "echo '$ rq info payments'; rq info --url $REDIS_URL payments"
    )
    return _rq_settle(_redis_run(root, steps))


def _rq_settle(out: bytes) -> bytes:
    return substitute(
        out,
        (r"^Updated: .*$", "Updated: 2026-01-01 00:00:00"),
        (r"started with PID \d+", "started with PID 1000"),
    )


@case(
    "u74_rq_worker_retry_errors_clean",
    "rq worker --burst, then rq info",
    clean=True,
    group=GROUP,
    decisive=["retry-errors | 0, 0 executing, 360 finished, 0 failed"],
)
def _rq_clean(root: Path) -> bytes:
    write(
        root,
        {
            "enqueue.py": _RQ_ENQUEUE.format(
                queue="retry-errors", count=360, func="retry_errors.retry_failed_invoice", prefix="retry"
            ),
            "retry_errors.py": """
                import logging

                log = logging.getLogger("retry_errors")
                logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")


                def retry_failed_invoice(order: str, cents: int) -> dict:
                    errors = cents % 3
                    log.info("retrying failed invoice for %s (%d cents, %d earlier errors)", order, cents, errors)
                    if errors:
                        log.warning("invoice %s had %d failed attempts before this retry", order, errors)
                    return {"order": order, "status": "paid", "previous_errors": errors}
            """,
        },
    )
    steps = (
        "python enqueue.py && echo '$ rq worker --burst --name retry-worker-1 retry-errors' && "
        "rq worker --burst --name retry-worker-1 --url $REDIS_URL retry-errors && "
        "echo '$ rq info retry-errors'; rq info --url $REDIS_URL retry-errors"
    )
    return _rq_settle(_redis_run(root, steps))


@case(
    "u74_dramatiq_error_events_clean",
    "dramatiq worker with a Redis broker",
    clean=True,
    group=GROUP,
    decisive=["drained: 300 error events recorded, 150 failed invoices retried"],
)
def _dramatiq_clean(root: Path) -> bytes:
    write(
        root,
        {
            "error_tasks.py": """
                import logging
                import os

                import dramatiq
                from dramatiq.brokers.redis import RedisBroker
                from redis import Redis

                dramatiq.set_broker(RedisBroker(url=os.environ["REDIS_URL"]))
                store = Redis.from_url(os.environ["REDIS_URL"])
                log = logging.getLogger("error_tasks")


                @dramatiq.actor(queue_name="error-events", max_retries=3)
                def record_error_event(event_id: str, service: str, code: str) -> None:
                    store.hincrby("errors-by-service", service, 1)
                    store.incr("error-events-done")
                    log.info("recorded error event %s from %s (%s)", event_id, service, code)


                @dramatiq.actor(queue_name="error-events", max_retries=3)
                def retry_failed_invoice(invoice: str, cents: int) -> None:
                    store.incr("invoices-retried")
                    log.info("retried failed invoice %s for %d cents: paid", invoice, cents)
            """,
            "send.py": """
                from error_tasks import record_error_event, retry_failed_invoice

                services = ["billing", "orders", "refunds", "ledger", "webhooks"]
                for n in range(1, 301):
                    code = ("TimeoutError", "ValueError", "GatewayError")[n % 3]
                    record_error_event.send(f"evt-{n:04d}", services[n % 5], code)
                    if n % 2 == 0:
                        retry_failed_invoice.send(f"inv-{n:04d}", n * 389 % 50000)
                print("sent 300 error events and 150 failed-invoice retries")
            """,
            "wait.py": """
                import os
                import time

                from redis import Redis

                store = Redis.from_url(os.environ["REDIS_URL"])
                for _ in range(600):
                    events, invoices = int(store.get("error-events-done") or 0), int(store.get("invoices-retried") or 0)
                    if events == 300 and invoices == 150:
                        break
                    time.sleep(0.1)
                print(f"drained: {events} error events recorded, {invoices} failed invoices retried")
                for service, count in sorted(store.hgetall("errors-by-service").items()):
                    print(f"  errors-by-service {service.decode()}: {count.decode()}")
            """,
        },
    )
    steps = (
        "python send.py && echo '$ dramatiq error_tasks --processes 1 --threads 1' && "
        "(dramatiq error_tasks --processes 1 --threads 1 > worker.log 2>&1 & echo $! > worker.pid) && "
        "python wait.py; st=$?; kill -TERM $(cat worker.pid); "
        "for i in $(seq 100); do kill -0 $(cat worker.pid) 2>/dev/null || break; sleep 0.1; done; "
        "cat worker.log; exit $st"
    )
    return _redis_run(root, steps)
