"""Held-out outputs (group ``unseen-58``): a fifty-eighth batch, distributed data processing run locally as an agent
runs a job: PySpark in local mode over generated CSV and Parquet data with Spark's log4j INFO log, ``spark-submit``,
Dask's ``LocalCluster`` with two worker processes, and pandas/pyarrow scripts with long progress.

Failing runs: a PySpark RDD job over ledger CSV files where one partition's Python function raises in the middle of
the INFO log (PySpark 4.3 turns the ``Py4JJavaError`` of the aborted stage into a ``PythonException`` that carries
the worker's traceback), a DataFrame job over Parquet whose Python UDF raises ``KeyError``, ``spark-submit`` of a
refunds report that selects a column the data does not have (``AnalysisException`` ``[UNRESOLVED_COLUMN...]``)
after several finished jobs, a Dask task graph on a ``LocalCluster`` where one task raises (the worker's ``Compute
Failed`` log and the client's traceback), a Dask dataframe ``read_csv`` whose dtypes differ between files, a pandas to
pyarrow export of twelve tables where one fails in the middle of the progress, and a pandas reconciliation whose
one-to-one merge finds duplicate keys at the end of a long run. Clean runs named after errors and failures: a PySpark
job writing the tables ``error_events``, ``failed_jobs`` and ``retry_queue``, ``spark-submit`` of a retry job whose
first task attempt fails and is retried (the job succeeds), a Dask dataframe summary of failed jobs on the cluster,
and a pyarrow dataset write of exception tables. Labels were written with each scenario, before the engine saw the
output. Needs pyspark 4.3.0, dask[distributed] 2026.8.0, pandas 3.1.1 and pyarrow 26.0.1 from PyPI, installed once
into a virtual environment of their own under ``/tmp/offloader-corpus-venvs``, with OpenJDK 17 (Debian
``openjdk-17-jre-headless``) already on the machine.
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-58"

_REQS = "pyspark==4.3.0 dask[distributed]==2026.8.0 distributed==2026.8.0 pandas==3.1.1 pyarrow==26.0.1"
#: The tools' environment, made once and kept between runs.
_VENV = VENVS / "u58-data"
_VPY = _VENV / "bin" / "python"


def _env(root: Path) -> str:
    """The environment prefix that runs the pinned tools (made once) on the project in ``root``."""
    make_venv(_VENV, _REQS)
    return (
        f"PATH={_VENV}/bin:$PATH HOME={root / 'home'} PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1 TZ=UTC"
        f" PYTHONPATH={root} SPARK_CONF_DIR={root / 'conf'} SPARK_LOCAL_IP=127.0.0.1"
        f" PYSPARK_PYTHON={_VPY} PYSPARK_DRIVER_PYTHON={_VPY} DASK_TEMPORARY_DIRECTORY={root / 'dask-scratch'}"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, times, durations, ports, ids, hashes."""
    return substitute(
        scrub(out, root),
        (r"^\d\d/\d\d/\d\d \d\d:\d\d:\d\d", "26/01/01 00:00:00"),
        (r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3}", "2026-01-01 00:00:00,000"),
        (r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}", "00000000-0000-0000-0000-000000000000"),
        (r"\b(127\.0\.0\.1|localhost|192\.0\.2\.\d+):\d{4,5}\b", r"\1:40000"),
        (r"on port \d+", "on port 40000"),
        (r"local-\d{13}", "local-1767225600000"),
        (r"\bin \d+ ms\b", "in 10 ms"),
        (r"\bin \d+(\.\d+)? ms\b", "in 10.0 ms"),
        (r"took \d+\.\d+ s\b", "took 0.100000 s"),
        (r"\(\d+\.\d+ s\)", "(0.100 s)"),
        (
            r"Times: total = -?\d+, boot = -?\d+, init = -?\d+, finish = -?\d+",
            "Times: total = 1, boot = 1, init = 1, finish = 1",
        ),
        (r"-[0-9a-f]{32}\b", "-00000000000000000000000000000000"),
        (r"\b(pid|PID)[ =:]+\d+", r"\1=1000"),
        (r"\d+\.\d+s elapsed", "0.10s elapsed"),
        (r"worker-[a-z0-9_]{8}\b", "worker-abcdefgh"),
        (r"localhost, \d+, None", "localhost, 40000, None"),
        (r"\bport: \d+", "port: 40000"),
        (r'"ts": "[0-9 :.-]+"', '"ts": "2026-01-01 00:00:00.000"'),
        (r"\b(job|task|attempt)_\d{12,}", r"\1_20260101000000000000"),
        (r"recomputed elsewhere: \{.*\}", "recomputed elsewhere: {...}"),
        (r"-\d{10}\.\d+'\)", "-1767225600.0')"),
        (r"took \d+(\.\d+)? ms", "took 100.0 ms"),
        (r"Uptime: \d+ ms", "Uptime: 30000 ms"),
        (r"\$\$Lambda\$\d+/0x[0-9a-f]+", "$$Lambda$1000/0x0000000000000000"),
        (r"@[0-9a-f]{6,8}\b", "@00000000"),
    )


def _conf(root: Path, *, level: str = "INFO") -> None:
    """Spark's configuration folder: the log4j2 root logger at ``level`` written to stderr (a file appender: PySpark
    caps a console appender at WARN), the loggers of the executor and task-result threads at WARN (their INFO lines
    interleave differently on every run), no UI, no console progress bar."""
    write(
        root,
        {
            "conf/log4j2.properties": f"""
                rootLogger.level = {level}
                rootLogger.appenderRef.stdout.ref = console
                appender.console.type = File
                appender.console.name = console
                appender.console.fileName = /dev/stderr
                appender.console.append = true
                appender.console.layout.type = PatternLayout
                appender.console.layout.pattern = %d{{yy/MM/dd HH:mm:ss}} %p %c{{1}}: %m%n%ex
                logger.jetty.name = org.sparkproject.jetty
                logger.jetty.level = warn
                logger.parquet.name = org.apache.parquet
                logger.parquet.level = warn
                logger.hadoop.name = org.apache.hadoop
                logger.hadoop.level = warn
                logger.q0.name = org.apache.spark.executor.Executor
                logger.q0.level = warn
                logger.q1.name = org.apache.spark.scheduler.TaskSetManager
                logger.q1.level = warn
                logger.q2.name = org.apache.spark.scheduler.TaskSchedulerImpl
                logger.q2.level = warn
                logger.q3.name = org.apache.spark.api.python
                logger.q3.level = warn
                logger.q4.name = org.apache.spark.ContextCleaner
                logger.q4.level = warn
                logger.q5.name = org.apache.spark.storage.BlockManagerInfo
                logger.q5.level = warn
                logger.q6.name = org.apache.spark.storage.ShuffleBlockFetcherIterator
                logger.q6.level = warn
                logger.q7.name = org.apache.spark.sql.catalyst.expressions.codegen.CodeGenerator
                logger.q7.level = warn
                logger.q8.name = org.apache.spark.sql.execution.datasources.FileScanRDD
                logger.q8.level = warn
                logger.q9.name = org.apache.spark.mapred.SparkHadoopMapRedUtil
                logger.q9.level = warn
                logger.q10.name = org.apache.spark.rdd.HadoopRDD
                logger.q10.level = warn
                logger.q11.name = org.apache.spark.sql.execution.python
                logger.q11.level = warn
                logger.q12.name = org.apache.spark.storage.memory.MemoryStore
                logger.q12.level = warn
                logger.q13.name = org.apache.spark.sql.execution.datasources.parquet
                logger.q13.level = warn
                logger.q14.name = org.apache.spark.sql.execution.datasources.SQLHadoopMapReduceCommitProtocol
                logger.q14.level = warn
                logger.q15.name = org.apache.spark.internal.io.HadoopMapReduceCommitProtocol
                logger.q15.level = warn
                logger.q16.name = org.apache.spark.sql.execution.datasources.FileFormatWriter
                logger.q16.level = warn
                logger.q17.name = org.apache.spark.shuffle
                logger.q17.level = warn
                logger.q18.name = org.apache.spark.scheduler.OutputCommitCoordinator
                logger.q18.level = warn
            """,
            "conf/spark-defaults.conf": """
                spark.ui.enabled false
                spark.ui.showConsoleProgress false
                spark.sql.shuffle.partitions 4
                spark.driver.memory 512m
                spark.sql.session.timeZone UTC
                spark.sql.adaptive.enabled false
            """,
        },
    )


# ---------------------------------------------------------------- PySpark


def _ledger_csv(root: Path, files: int, rows: int, bad: tuple[int, int] | None = None) -> None:
    accounts = ["billing", "orders", "refunds", "tax", "shipping", "coupons", "invoice", "cart"]
    for f in range(files):
        lines = ["entry_id,account,currency,amount,posted_on"]
        for r in range(rows):
            n = f * rows + r
            amount = "n/a" if bad == (f, r) else f"{(n * 37) % 9000 / 100:.2f}"
            lines.append(f"L{n:06d},{accounts[n % 8]},{'EUR' if n % 3 else 'USD'},{amount},2026-01-{1 + n % 28:02d}")
        write(root, {f"data/ledger/part-{f:03d}.csv": "\n".join(lines) + "\n"})


@case(
    "u58_pyspark_rdd_stage_failure",
    "pyspark",
    clean=False,
    group=GROUP,
    decisive=[
        "pyspark.errors.exceptions.captured.PythonException: An exception was thrown from the Python worker:",
        "ValueError: could not convert string to float: 'n/a'",
        'File "/tmp/work/jobs/ledger_rollup.py", line 10, in parse_amount',
    ],
)
def _pyspark_rdd_failure(root: Path) -> bytes:
    _conf(root)
    _ledger_csv(root, 12, 400, bad=(7, 233))
    write(
        root,
        {
            "jobs/ledger_rollup.py": """
                from operator import add

                from pyspark.sql import SparkSession

                HEADER = "entry_id"


                def parse_amount(text):
                    # amounts are written with a dot and two decimals
                    return round(float(text) * 100)


                def to_pair(line):
                    entry_id, account, currency, amount, posted_on = line.split(",")
                    return (account, currency), parse_amount(amount)


                def main():
                    spark = SparkSession.builder.master("local[1]").appName("ledger_rollup").getOrCreate()
                    sc = spark.sparkContext
                    lines = sc.textFile("data/ledger/*.csv", 12).filter(lambda l: not l.startswith(HEADER))
                    print(f"ledger entries: {lines.count()}")
                    accounts = sorted(lines.map(lambda l: l.split(",")[1]).distinct().collect())
                    print(f"accounts: {', '.join(accounts)}")
                    by_day = lines.map(lambda l: (l.split(",")[4], 1)).reduceByKey(add).sortByKey().collect()
                    print(f"posting days: {len(by_day)}")
                    totals = lines.map(to_pair).reduceByKey(add).sortByKey().collect()
                    for (account, currency), cents in totals:
                        print(f"{account:10} {currency} {cents / 100:>14.2f}")


                if __name__ == "__main__":
                    try:
                        main()
                    finally:
                        SparkSession.builder.getOrCreate().stop()
            """
        },
    )
    return _settle(sh(f"{_env(root)} python jobs/ledger_rollup.py", root), root)


@case(
    "u58_pyspark_udf_keyerror_parquet",
    "pyspark",
    clean=False,
    group=GROUP,
    decisive=[
        "pyspark.errors.exceptions.captured.PythonException: An exception was thrown from the Python worker:",
        "KeyError: 'XXX'",
    ],
)
def _pyspark_udf_keyerror(root: Path) -> bytes:
    _conf(root)
    rows = ["order_id,region,currency,amount"]
    regions = ["emea", "amer", "apac", "latam"]
    for n in range(6000):
        currency = "XXX" if n == 4211 else ["EUR", "USD", "GBP", "JPY"][n % 4]
        rows.append(f"O{n:06d},{regions[n % 4]},{currency},{(n * 53) % 12000 / 100:.2f}")
    write(
        root,
        {
            "data/orders.csv": "\n".join(rows) + "\n",
            "jobs/fx_convert.py": """
                from pyspark.sql import SparkSession
                from pyspark.sql import functions as F
                from pyspark.sql.types import DoubleType

                RATES = {"EUR": 1.09, "USD": 1.0, "GBP": 1.27, "JPY": 0.0067}


                @F.udf(DoubleType())
                def to_usd(amount, currency):
                    return round(amount * RATES[currency], 2)


                spark = SparkSession.builder.master("local[1]").appName("fx_convert").getOrCreate()
                orders = spark.read.option("header", True).option("inferSchema", True).csv("data/orders.csv")
                orders.printSchema()
                orders.write.mode("overwrite").partitionBy("region").parquet("warehouse/orders")
                print("staged orders as parquet")
                staged = spark.read.parquet("warehouse/orders")
                staged.groupBy("region").count().orderBy("region").show()
                converted = staged.withColumn("amount_usd", to_usd("amount", "currency"))
                converted.write.mode("overwrite").parquet("warehouse/orders_usd")
                print("wrote warehouse/orders_usd")
                spark.stop()
            """,
        },
    )
    return _settle(sh(f"{_env(root)} python jobs/fx_convert.py", root), root)


@case(
    "u58_pyspark_clean_error_events",
    "pyspark",
    clean=True,
    group=GROUP,
    decisive=["reliability_report: 3 tables written (error_events=1800, failed_jobs=60, retry_queue=18)"],
)
def _pyspark_clean(root: Path) -> bytes:
    _conf(root)
    write(
        root,
        {
            "jobs/reliability_report.py": """
                from pyspark.sql import SparkSession
                from pyspark.sql import functions as F

                spark = SparkSession.builder.master("local[1]").appName("reliability_report").getOrCreate()
                services = ["billing", "orders", "webhooks", "session", "export", "search"]
                events = [
                    (i, services[i % 6], ["TimeoutError", "ConnectionReset", "ValidationError"][i % 3], i % 7 == 0)
                    for i in range(1800)
                ]
                schema = "event_id INT, service STRING, error STRING, fatal BOOLEAN"
                error_events = spark.createDataFrame(events, schema)
                error_events.createOrReplaceTempView("error_events")
                failed_jobs = spark.sql(
                    "SELECT service, error, count(*) AS failures FROM error_events GROUP BY service, error"
                ).crossJoin(spark.range(0, 10).withColumnRenamed("id", "attempt"))
                failed_jobs.createOrReplaceTempView("failed_jobs")
                retry_queue = spark.sql(
                    "SELECT service, error, max(failures) AS failures, min(attempt) AS next_attempt"
                    " FROM failed_jobs WHERE attempt < 3 GROUP BY service, error, attempt"
                )
                retry_queue.createOrReplaceTempView("retry_queue")
                counts = {}
                for name in ("error_events", "failed_jobs", "retry_queue"):
                    table = spark.table(name)
                    table.write.mode("overwrite").parquet(f"warehouse/{name}")
                    counts[name] = spark.read.parquet(f"warehouse/{name}").count()
                    print(f"table {name}: {counts[name]} rows, columns {', '.join(table.columns)}")
                spark.sql("SELECT service, sum(failures) AS failed FROM failed_jobs GROUP BY 1 ORDER BY 1").show()
                spark.table("retry_queue").orderBy("service", "error", "next_attempt").show(12, truncate=False)
                summary = ", ".join(f"{k}={v}" for k, v in counts.items())
                print(f"reliability_report: 3 tables written ({summary})")
                spark.stop()
            """
        },
    )
    return _settle(sh(f"{_env(root)} python jobs/reliability_report.py", root), root)


@case(
    "u58_spark_submit_unresolved_column",
    "spark-submit",
    clean=False,
    group=GROUP,
    decisive=[
        "pyspark.errors.exceptions.captured.AnalysisException: [UNRESOLVED_COLUMN.WITH_SUGGESTION]",
        'File "/tmp/work/jobs/refunds_report.py", line 20, in <module>',
    ],
)
def _spark_submit_unresolved(root: Path) -> bytes:
    _conf(root)
    rows = ["refund_id,order_id,reason,refund_amount,status"]
    reasons = ["damaged", "late", "wrong_item", "duplicate_charge"]
    for n in range(3000):
        rows.append(f"R{n:05d},O{n * 7:06d},{reasons[n % 4]},{(n * 29) % 5000 / 100:.2f},{'done' if n % 5 else 'open'}")
    write(
        root,
        {
            "data/refunds.csv": "\n".join(rows) + "\n",
            "jobs/refunds_report.py": """
                import sys

                from pyspark.sql import SparkSession
                from pyspark.sql import functions as F

                spark = SparkSession.builder.appName("refunds_report").getOrCreate()
                refunds = spark.read.option("header", True).option("inferSchema", True).csv("data/refunds.csv")
                refunds.printSchema()
                print(f"refunds loaded: {refunds.count()}")
                by_reason = refunds.groupBy("reason").agg(F.count("*").alias("refunds")).orderBy("reason")
                by_reason.show()
                open_refunds = refunds.filter(F.col("status") == "open")
                print(f"open refunds: {open_refunds.count()}")
                open_refunds.write.mode("overwrite").parquet("warehouse/open_refunds")
                totals = (
                    refunds.groupBy("reason")
                    .agg(F.sum("refund_amount").alias("total"))
                    .orderBy("reason")
                )
                report = totals.join(by_reason, "reason").select("reason", F.col("refund_amt") / F.col("refunds"))
                report.show()
                sys.exit(0)
            """,
        },
    )
    return _settle(sh(f"{_env(root)} spark-submit --master 'local[1]' jobs/refunds_report.py", root), root)


@case(
    "u58_spark_submit_retry_clean",
    "spark-submit",
    clean=True,
    group=GROUP,
    decisive=["retry_queue drained: 480 webhooks delivered, 0 left"],
)
def _spark_submit_retry_clean(root: Path) -> bytes:
    _conf(root)
    write(
        root,
        {
            "jobs/retry_webhooks.py": """
                import os

                from pyspark.sql import SparkSession

                MARKER = os.path.abspath("state/first-attempt-done")


                def deliver(batch):
                    # the endpoint refuses the very first connection of the run: Spark retries the task
                    if not os.path.exists(MARKER):
                        os.makedirs(os.path.dirname(MARKER), exist_ok=True)
                        open(MARKER, "w").close()
                        raise ConnectionError("webhook endpoint refused the connection (attempt 1), will be retried")
                    return [(hook, "delivered") for hook in batch]


                spark = SparkSession.builder.appName("retry_webhooks").getOrCreate()
                sc = spark.sparkContext
                queue = sc.parallelize([f"hook-{n:04d}" for n in range(480)], 8)
                print(f"retry_queue size: {queue.count()}")
                results = queue.mapPartitions(lambda part: deliver(list(part))).collect()
                delivered = sum(1 for _, state in results if state == "delivered")
                print(f"retry_queue drained: {delivered} webhooks delivered, {len(results) - delivered} left")
                spark.stop()
            """
        },
    )
    cmd = "spark-submit --master 'local[1,3]' --conf spark.python.worker.reuse=true jobs/retry_webhooks.py"
    return _settle(sh(f"{_env(root)} {cmd}", root), root)


# ---------------------------------------------------------------- Dask


_DASK_LOG = "DASK_LOGGING__DISTRIBUTED=info DASK_DISTRIBUTED__WORKER__DAEMON=false"


@case(
    "u58_dask_localcluster_task_error",
    "dask",
    clean=False,
    group=GROUP,
    decisive=[
        "ZeroDivisionError: invoice batch 137 has no line items",
        'File "/tmp/work/pipeline/invoices.py", line 8, in average_line',
    ],
)
def _dask_task_error(root: Path) -> bytes:
    write(
        root,
        {
            "pipeline/__init__.py": "",
            "pipeline/invoices.py": """
                def load_batch(n):
                    return [((n * 31 + k) % 400) / 4 for k in range(0 if n == 137 else 40 + n % 9)]


                def average_line(n, lines):
                    total = sum(lines)
                    if not lines:
                        raise ZeroDivisionError(f"invoice batch {n} has no line items")
                    return total / len(lines)
            """,
            "run_invoices.py": """
                import logging
                import sys

                from dask.distributed import Client, LocalCluster, wait

                from pipeline.invoices import average_line, load_batch

                if __name__ == "__main__":
                    cluster = LocalCluster(
                        n_workers=2, threads_per_worker=1, dashboard_address=None
                    )
                    client = Client(cluster)
                    print(f"cluster: {len(client.scheduler_info()['workers'])} workers", flush=True)
                    batches = client.map(load_batch, range(240), key=[f"load_batch-{n}" for n in range(240)])
                    averages = [
                        client.submit(average_line, n, b, key=f"average_line-{n}") for n, b in enumerate(batches)
                    ]
                    wait(averages)
                    for n, fut in enumerate(averages):
                        print(f"[{n + 1:>3}/240] average_line-{n}: {fut.status}", flush=True)
                    values = client.gather(averages)
                    print(f"mean invoice line: {sum(values) / len(values):.2f}")
                    client.close()
                    cluster.close()
            """,
        },
    )
    return _settle(sh(f"{_env(root)} {_DASK_LOG} python run_invoices.py", root), root)


def _failed_jobs_csv(root: Path, files: int, rows: int, text_at: int | None = None) -> None:
    services = ["billing", "orders", "webhooks", "export", "session", "search"]
    for f in range(files):
        lines = ["job_id,service,attempts,duration_ms"]
        for r in range(rows):
            n = f * rows + r
            duration = "timeout" if f == text_at and r == rows - 3 else str((n * 97) % 30000)
            lines.append(f"J{n:06d},{services[n % 6]},{1 + n % 5},{duration}")
        write(root, {f"data/failed_jobs/day-{f:02d}.csv": "\n".join(lines) + "\n"})


@case(
    "u58_dask_dataframe_clean_failed_jobs",
    "dask",
    clean=True,
    group=GROUP,
    decisive=["failed_jobs summary written: 6 services, 4800 jobs, retry_backlog=1920"],
)
def _dask_clean(root: Path) -> bytes:
    _failed_jobs_csv(root, 240, 20)
    write(
        root,
        {
            "summarize_failed_jobs.py": """
                import dask.dataframe as dd
                from dask.distributed import Client, LocalCluster

                if __name__ == "__main__":
                    cluster = LocalCluster(
                        n_workers=2, threads_per_worker=1, dashboard_address=None
                    )
                    client = Client(cluster)
                    failed_jobs = dd.read_csv("data/failed_jobs/*.csv")
                    print(f"partitions: {failed_jobs.npartitions}", flush=True)
                    sizes = failed_jobs.map_partitions(len).compute()
                    for n, size in enumerate(sizes):
                        print(f"partition {n:>3}: {size} failed_jobs rows (day-{n:02d}.csv)", flush=True)
                    by_service = failed_jobs.groupby("service").agg({"job_id": "count", "duration_ms": "mean"})
                    by_service = by_service.compute()
                    print(by_service.sort_index().round(1).to_string(), flush=True)
                    backlog = int((failed_jobs.attempts >= 4).sum().compute())
                    failed_jobs.to_parquet("warehouse/failed_jobs", write_index=False)
                    total = int(sizes.sum())
                    services = len(by_service)
                    print(f"failed_jobs summary written: {services} services, {total} jobs, retry_backlog={backlog}")
                    client.close()
                    cluster.close()
            """,
        },
    )
    return _settle(sh(f"{_env(root)} {_DASK_LOG} python summarize_failed_jobs.py", root), root)


@case(
    "u58_dask_read_csv_mismatched_dtypes",
    "dask",
    clean=False,
    group=GROUP,
    decisive=["ValueError: Mismatched dtypes found in `pd.read_csv`/`pd.read_table`.", "| duration_ms"],
)
def _dask_dtypes(root: Path) -> bytes:
    _failed_jobs_csv(root, 120, 300, text_at=83)
    write(
        root,
        {
            "slowest_jobs.py": """
                import glob

                import dask.dataframe as dd
                from dask.distributed import Client, LocalCluster

                if __name__ == "__main__":
                    cluster = LocalCluster(
                        n_workers=2, threads_per_worker=1, dashboard_address=None
                    )
                    client = Client(cluster)
                    for path in sorted(glob.glob("data/failed_jobs/*.csv")):
                        with open(path) as f:
                            print(f"checked {path}: {sum(1 for _ in f) - 1} rows", flush=True)
                    jobs = dd.read_csv("data/failed_jobs/*.csv", blocksize=None)
                    print(jobs.dtypes.to_string(), flush=True)
                    slowest = jobs.nlargest(20, "duration_ms").compute()
                    print(slowest.to_string())
                    client.close()
                    cluster.close()
            """,
        },
    )
    return _settle(sh(f"{_env(root)} {_DASK_LOG} python slowest_jobs.py", root), root)


# ---------------------------------------------------------------- pandas and pyarrow


@case(
    "u58_pandas_arrow_export_one_fails",
    "python (pandas/pyarrow)",
    clean=False,
    group=GROUP,
    decisive=[
        "pyarrow.lib.ArrowInvalid:",
        "export refunds FAILED",
        "exports finished: 11 ok, 1 failed",
    ],
)
def _pandas_export(root: Path) -> bytes:
    write(
        root,
        {
            "export_tables.py": """
                import logging
                import sys

                import pandas as pd
                import pyarrow as pa
                import pyarrow.parquet as pq

                logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s", stream=sys.stdout)
                log = logging.getLogger("export")
                TABLES = ["billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping",
                          "catalog", "pricing", "coupons", "audit"]
                SCHEMA = pa.schema([("id", pa.int64()), ("account", pa.string()), ("amount", pa.float64())])


                def frame(name, rows):
                    amounts = [round((i * 13) % 1000 / 10, 2) for i in range(rows)]
                    if name == "refunds":
                        amounts = [str(a) for a in amounts]
                        amounts[3817] = "n/a"
                    return pd.DataFrame({"id": range(rows), "account": [f"{name}-{i % 50}" for i in range(rows)],
                                         "amount": amounts})


                def export(name):
                    df = frame(name, 6000)
                    for chunk in range(0, len(df), 500):
                        part = df.iloc[chunk:chunk + 500]
                        table = pa.Table.from_pandas(part, schema=SCHEMA, preserve_index=False)
                        pq.write_table(table, f"out/{name}-{chunk // 500:03d}.parquet")
                        log.info("export %s: chunk %d/12 written (%d rows)", name, chunk // 500 + 1, table.num_rows)


                failed = 0
                for name in TABLES:
                    try:
                        export(name)
                        log.info("export %s done", name)
                    except Exception:
                        failed += 1
                        log.exception("export %s FAILED", name)
                print(f"exports finished: {len(TABLES) - failed} ok, {failed} failed")
                sys.exit(1 if failed else 0)
            """,
        },
    )
    (root / "out").mkdir()
    return _settle(sh(f"{_env(root)} python export_tables.py", root), root)


@case(
    "u58_pandas_merge_not_one_to_one",
    "python (pandas)",
    clean=False,
    group=GROUP,
    decisive=[
        "pandas.errors.MergeError: Merge keys are not unique in right dataset; not a one-to-one merge",
        'File "/tmp/work/etl/reconcile_invoices.py", line 19, in <module>',
    ],
)
def _pandas_merge(root: Path) -> bytes:
    write(
        root,
        {
            "etl/reconcile_invoices.py": """
                import pandas as pd

                months = [f"2026-{m:02d}" for m in range(1, 13)]
                invoices = []
                for month in months:
                    for day in range(1, 29):
                        n = len(invoices)
                        invoices.append({"invoice_id": f"INV-{n:05d}", "month": month, "amount": (n * 41) % 900 / 4})
                        print(f"read invoice INV-{n:05d} for {month}-{day:02d}: amount {(n * 41) % 900 / 4:.2f}")
                invoices = pd.DataFrame(invoices)
                print(f"invoices: {len(invoices)} rows")
                payments = invoices[["invoice_id", "amount"]].rename(columns={"amount": "paid"})
                payments = pd.concat([payments, payments.iloc[[217]]], ignore_index=True)
                for i, row in payments.iterrows():
                    if i % 3 == 0:
                        print(f"matched payment {i} -> {row.invoice_id} paid {row.paid:.2f}")
                print(f"payments: {len(payments)} rows")
                print(invoices.groupby("month").amount.sum().round(2).to_string())
                reconciled = invoices.merge(
                    payments,
                    on="invoice_id",
                    how="left",
                    validate="one_to_one",
                )
                reconciled["open"] = reconciled.amount - reconciled.paid
                print(reconciled.describe().to_string())
            """,
        },
    )
    return _settle(sh(f"{_env(root)} python etl/reconcile_invoices.py", root), root)


@case(
    "u58_pyarrow_dataset_clean_exceptions",
    "python (pyarrow)",
    clean=True,
    group=GROUP,
    decisive=["dataset exceptions_by_service: 72 files, 144000 rows, schema ok"],
)
def _pyarrow_clean(root: Path) -> bytes:
    write(
        root,
        {
            "build_exceptions_dataset.py": """
                import pandas as pd
                import pyarrow as pa
                import pyarrow.dataset as ds

                SERVICES = ["billing", "orders", "retry", "errors", "webhooks", "session"]
                KINDS = ["TimeoutError", "KeyError", "ValueError", "RetryExhausted", "FailedDependency"]
                frames = []
                for day in range(1, 13):
                    for s, service in enumerate(SERVICES):
                        rows = 2000
                        frame = pd.DataFrame({
                            "service": service,
                            "day": f"2026-03-{day:02d}",
                            "exception": [KINDS[(i + s) % 5] for i in range(rows)],
                            "retries": [(i * day) % 4 for i in range(rows)],
                            "failed": [(i + day) % 11 == 0 for i in range(rows)],
                        })
                        frames.append(frame)
                        print(f"day {day} {service:8}: {rows} exceptions, {int(frame.failed.sum())} failed after retry")
                table = pa.Table.from_pandas(pd.concat(frames, ignore_index=True), preserve_index=False)
                print(table.schema)
                ds.write_dataset(table, "warehouse/exceptions_by_service", format="parquet",
                                 partitioning=["service", "day"], partitioning_flavor="hive",
                                 basename_template="part-{i}.parquet", existing_data_behavior="overwrite_or_ignore")
                dataset = ds.dataset("warehouse/exceptions_by_service", format="parquet", partitioning="hive")
                files = sorted(dataset.files)
                for path in files:
                    print(f"wrote {path}")
                counts = dataset.to_table().group_by("exception").aggregate([("retries", "sum"), ("failed", "count")])
                print(counts.sort_by("exception").to_pandas().to_string(index=False))
                rows = dataset.count_rows()
                kind = dataset.schema.field("exception").type
                ok = "ok" if pa.types.is_string(kind) or pa.types.is_large_string(kind) else "CHANGED"
                print(f"dataset exceptions_by_service: {len(files)} files, {rows} rows, schema {ok}")
            """,
        },
    )
    return _settle(sh(f"{_env(root)} python build_exceptions_dataset.py", root), root)
