"""Held-out outputs (group ``unseen-8``): an eighth batch, made to measure the engine after seven rounds of fixes.

Python quality gates with one real finding among many files (``isort --check-only --diff``,
``sqlfluff lint`` with one unparsable model among style warnings, ``vulture`` with one
unreachable block among low-confidence noise, ``radon cc`` followed by a ``xenon`` gate),
``twine check`` over many wheels with one broken reStructuredText description, scripting
languages reporting a caught error in the middle of a batch (a Lua ``xpcall`` traceback, a PHP
``TypeError`` among warnings), ``rsync -av`` unable to replace a directory, ``diff -ru`` of two
rendered config releases where one change matters among header churn, an asyncio "Task exception
was never retrieved", two big logs (a Python billing run with a ``logging.exception`` traceback
amid a warnings flood, a journald export with an OOM kill), and clean runs whose text talks about
errors (``md5sum -c`` over ``error_*.log`` files, ``php -l`` over error-handler classes, a Lua TAP
suite about error handling, a worker log with ``errors=0``). Labels were written with each
scenario, before the engine saw the output.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, WORDS, case, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-8"

# ---------------------------------------------------------------- Python quality gates


@case(
    "isort_check_diff_one_file",
    "isort --check-only --diff -v",
    clean=False,
    group=GROUP,
    decisive=["src/shop/refunds/refunds_09.py Imports are incorrectly sorted and/or formatted."],
)
def _isort(root: Path) -> bytes:
    env = _pip_tool(root, "isort==9.0.2")
    write(root, {"pyproject.toml": '[tool.isort]\nprofile = "black"\nknown_first_party = ["shop"]\n'})
    for i in range(260):
        area, n = WORDS[i % 20], i // 20
        imports = "import json\nimport logging\nfrom decimal import Decimal\n\nfrom shop.core import money\n"
        if (area, n) == ("refunds", 9):
            imports = "import logging\nfrom shop.core import money\nimport json\nfrom decimal import Decimal\n"
        write(
            root,
            {
                f"src/shop/{area}/{area}_{n:02d}.py": f'"""{area} part {n}."""\n\n{imports}\n'
                f"LOG = logging.getLogger(__name__)\n\n\n"
                f"def total_{i}(rows):\n    return money(sum(Decimal(json.loads(r)['amount']) for r in rows))\n"
            },
        )
    return sh(f"{env} isort --check-only --diff -v src", root)


@case(
    "sqlfluff_lint_one_unparsable",
    "sqlfluff lint",
    clean=False,
    group=GROUP,
    decisive=["== [models/marts/fct_ledger_05.sql] FAIL", "Line 7, Position 1: Found unparsable section"],
)
def _sqlfluff(root: Path) -> bytes:
    env = _pip_tool(root, "sqlfluff==4.5.0")
    write(root, {".sqlfluff": "[sqlfluff]\ndialect = ansi\nmax_line_length = 100\n"})
    for i in range(120):
        area, n = WORDS[i % 20], i // 20
        where = "where amount_cents > 0\n  and status = 'settled'" if i % 3 else "WHERE amount_cents > 0"
        body = f"select\n    id,\n    customer_id,amount_cents\nfrom raw_{area}\n{where}\n"
        if (area, n) == ("ledger", 5):
            body = (
                "select\n    id,\n    customer_id,\n    amount_cents\nfrom raw_ledger\n"
                "where amount_cents > 0\norder customer_id\n"
            )
        write(root, {f"models/marts/fct_{area}_{n:02d}.sql": body})
    return sh(f"{env} sqlfluff lint models --processes 1", root)


@case(
    "vulture_unreachable_among_noise",
    "vulture --min-confidence 60",
    clean=False,
    group=GROUP,
    decisive=["src/ledger/ledger_06.py:8: unreachable code after 'return' (100% confidence"],
)
def _vulture(root: Path) -> bytes:
    env = _pip_tool(root, "vulture==2.16")
    for i in range(220):
        area, n = WORDS[i % 20], i // 20
        body = (
            f'"""{area} handlers, part {n}."""\n\n\n'
            f"def on_{area}_created_{n}(event):\n    return event['id']\n\n\n"
            f"def on_{area}_deleted_{n}(event):\n    return event['id']\n"
        )
        if (area, n) == ("ledger", 6):
            body = (
                '"""ledger handlers, part 6."""\n\n\n'
                "def post_entry(entry, journal):\n"
                "    if entry['amount'] == 0:\n"
                "        return None\n"
                "    return journal.append(entry)\n"
                "    journal.flush()\n"
                "    journal.audit(entry)\n"
            )
        write(root, {f"src/{area}/{area}_{n:02d}.py": body})
    return sh(f"{env} vulture --min-confidence 60 --sort-by-size src", root)


@case(
    "radon_xenon_rank_gate",
    "radon cc -s -a && xenon --max-absolute C",
    clean=False,
    group=GROUP,
    decisive=["F 1:0 quote_price - E (34)", 'block "src/pricing/pricing_04.py:1 quote_price" has a rank of E'],
)
def _xenon(root: Path) -> bytes:
    env = _pip_tool(root, "xenon==0.9.3", "radon==6.0.1")
    for i in range(200):
        area, n = WORDS[i % 20], i // 20
        if (area, n) == ("pricing", 4):
            branches = "".join(
                f"    {'if' if k == 0 else 'elif'} tier == {k} and region == 'r{k}':\n"
                f"        price = base * {k + 1} if promo else base\n"
                for k in range(11)
            )
            body = f"def quote_price(base, tier, region, promo):\n    price = base\n{branches}    return price\n"
        else:
            body = (
                f"def handle_{area}_{n}(value):\n    if value is None:\n        return 0\n    return value + {n}\n\n\n"
                f"class {area.title()}Service{n}:\n    def run(self, rows):\n        return [r for r in rows if r]\n"
            )
        write(root, {f"src/{area}/{area}_{n:02d}.py": body})
    files = "$(find src -name '*.py' | sort)"
    return sh(f"{env} radon cc -s -a {files} && {env} xenon --max-absolute C --max-modules C --max-average B src", root)


@case(
    "twine_check_bad_rst",
    "twine check",
    clean=False,
    group=GROUP,
    decisive=[
        "Checking dist/shop_ledger_tools-3.1.0-py3-none-any.whl: FAILED",
        "`long_description` has syntax errors in markup",
        "line 5: Warning: Title underline too short.",
    ],
)
def _twine(root: Path) -> bytes:
    env = _pip_tool(root, "twine==7.0.0")
    write(
        root,
        {
            "mkwheels.py": """
            import zipfile
            from pathlib import Path

            words = ["billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
                     "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit",
                     "export"]
            Path("dist").mkdir()
            for i in range(300):
                name = f"shop_{words[i % 20]}_{['client', 'tools', 'models', 'cli', 'sdk'][i // 20 % 5]}"
                version = f"{i // 100 + 1}.{i % 10}.0"
                readme = f"{name}\\n{'=' * len(name)}\\n\\nHelpers for the {words[i % 20]} service.\\n"
                if name == "shop_ledger_tools" and i > 200:
                    version = "3.1.0"
                    usage = "Usage and options\\n=====\\n\\nRun ``ledger-tools post``.\\n"
                    readme = f"{name}\\n{'=' * len(name)}\\n\\n{usage}"
                meta = f"Metadata-Version: 2.1\\nName: {name}\\nVersion: {version}\\nSummary: {name} helpers\\n"
                if i % 7:
                    meta += "Description-Content-Type: text/x-rst\\n"
                meta += "\\n" + readme
                info = f"{name}-{version}.dist-info"
                with zipfile.ZipFile(f"dist/{name}-{version}-py3-none-any.whl", "w") as whl:
                    whl.writestr(f"{name}/__init__.py", "")
                    whl.writestr(f"{info}/METADATA", meta)
                    wheel = "Wheel-Version: 1.0\\nGenerator: hand\\nRoot-Is-Purelib: true\\nTag: py3-none-any\\n"
                    whl.writestr(f"{info}/WHEEL", wheel)
                    whl.writestr(f"{info}/RECORD", "")
            """
        },
    )
    sh(f"{PY} mkwheels.py", root)
    return sh(f"{env} twine check dist/*", root)


# ---------------------------------------------------------------- Lua and PHP


@case(
    "lua_xpcall_traceback_in_batch",
    "lua5.4",
    clean=False,
    group=GROUP,
    decisive=[
        "invoice 11907: settle.lua:5: attempt to perform arithmetic on a nil value (field '?')",
        "settlement finished: 2999 settled, 1 failed",
    ],
)
def _lua(root: Path) -> bytes:
    write(
        root,
        {
            "settle.lua": """
            io.stdout:setvbuf("line")
            local rates = {EUR = 1.0, USD = 0.92, GBP = 1.17, SEK = 0.088}

            local function to_eur(inv)
              local eur = inv.amount * rates[inv.currency]
              return eur
            end

            local function settle(inv)
              local eur = to_eur(inv)
              local fee = eur * 0.014
              return eur - fee
            end

            local currencies = {"EUR", "USD", "GBP", "SEK"}
            local settled, failed = 0, 0
            for i = 1, 3000 do
              local inv = {id = 10000 + i, amount = 100 + i % 900, currency = currencies[i % 4 + 1]}
              if inv.id == 11907 then inv.currency = "CHF" end
              local ok, res = xpcall(settle, debug.traceback, inv)
              if ok then
                settled = settled + 1
                print(string.format("invoice %d: settled %.2f EUR (from %d %s)", inv.id, res, inv.amount, inv.currency))
              else
                failed = failed + 1
                io.stderr:write(string.format("invoice %d: %s\\n", inv.id, res))
              end
            end
            print(string.format("settlement finished: %d settled, %d failed", settled, failed))
            """
        },
    )
    return sh("lua5.4 settle.lua", root)


@case(
    "php_type_error_among_warnings",
    "php (CLI)",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: line_total(): Argument #1 ($qty) must be of type int, string given",
        "import finished: 3999 imported, 1 rejected",
    ],
)
def _php(root: Path) -> bytes:
    write(
        root,
        {
            "import.php": """
            <?php
            declare(strict_types=1);

            function line_total(int $qty, float $price): float {
                return $qty * $price;
            }

            function import_row(array $row): string {
                $total = line_total($row['qty'], $row['price']);
                $discount = $row['discount'];
                return sprintf("%s x%d = %.2f (discount %s)", $row['sku'], $row['qty'], $total, $discount ?? 'none');
            }

            $imported = 0;
            $rejected = 0;
            for ($i = 0; $i < 4000; $i++) {
                $row = ['sku' => sprintf('SKU-%05d', $i), 'qty' => 1 + $i % 9, 'price' => 4.5 + $i % 13];
                if ($i % 40 !== 0) {
                    $row['discount'] = '5%';
                }
                if ($i === 2716) {
                    $row['qty'] = '3 units';
                }
                try {
                    echo "row $i: ", import_row($row), "\\n";
                    $imported++;
                } catch (Throwable $e) {
                    fwrite(STDERR, "row $i rejected: $e\\n");
                    $rejected++;
                }
            }
            echo "import finished: $imported imported, $rejected rejected\\n";
            """
        },
    )
    return sh("php -d display_errors=stderr -d log_errors=0 -d error_reporting=E_ALL import.php", root)


# ---------------------------------------------------------------- files: rsync, diff


@case(
    "rsync_cannot_replace_directory",
    "rsync -av",
    clean=False,
    group=GROUP,
    decisive=[
        "could not make way for new regular file: app/ledger/settings.yml",
        "rsync error: some files/attrs were not transferred (see previous errors) (code 23)",
    ],
)
def _rsync(root: Path) -> bytes:
    for i in range(3600):
        area = WORDS[i % 20]
        write(root, {f"release/app/{area}/handlers/{area}_{i:05d}.py": f"# handler {i}\n"})
    for area in WORDS:
        write(root, {f"release/app/{area}/settings.yml": f"service: {area}\nreplicas: 2\n"})
    write(root, {"deployed/app/ledger/settings.yml/override.yml": "replicas: 9\n"})
    return sh("rsync -av release/ deployed/", root)


@case(
    "diff_ru_release_configs",
    "diff -ru",
    clean=False,
    group=GROUP,
    decisive=["rendered/payments/gateway-11.yaml", "-  settle_timeout_seconds: 30", "+  settle_timeout_seconds: 3"],
    note="every file differs in its generated header; one change in one file matters",
)
def _diff(root: Path) -> bytes:
    areas = ["payments", "billing", "orders", "search", "shipping", "auth"]
    for side, gen in (("rel-2024.05", "confgen 4.1.0 (build 5512)"), ("rel-2024.06", "confgen 4.2.0 (build 5607)")):
        for i, area in ((i, a) for a in areas for i in range(25)):
            timeout = 3 if (side, area, i) == ("rel-2024.06", "payments", 11) else 30
            lines = [f"# rendered by {gen}; do not edit", f"service: {area}-gateway-{i}", "limits:"]
            lines += [f"  pool_size_{k}: {8 + k}" for k in range(12)]
            lines += [f"  settle_timeout_seconds: {timeout}", "  retries: 3"]
            lines += [f"  route_{k}: /api/{area}/{k}" for k in range(12)]
            write(root, {f"{side}/rendered/{area}/gateway-{i:02d}.yaml": "\n".join(lines) + "\n"})
    sh("find rel-2024.05 rel-2024.06 -exec touch -d '2024-06-01 09:00:00' {} +", root)
    return sh("diff -ru rel-2024.05 rel-2024.06", root)


# ---------------------------------------------------------------- Python runtime: asyncio, big logs


@case(
    "asyncio_task_exception_never_retrieved",
    "python asyncio",
    clean=False,
    group=GROUP,
    decisive=["Task exception was never retrieved", 'sync.py", line 6, in refresh_cache', "KeyError: 'tenant_id'"],
    note="the fire-and-forget task fails; the run carries on and exits 0",
)
def _asyncio(root: Path) -> bytes:
    write(
        root,
        {
            "sync.py": """
            import asyncio


            async def refresh_cache(row):
                await asyncio.sleep(0)
                return f"cache refreshed for {row['tenant_id']}"


            async def sync_tenant(i):
                await asyncio.sleep(0)
                row = {"tenant": f"t-{i:04d}", "records": 12 + i % 7}
                if i == 1219:
                    asyncio.create_task(refresh_cache(row))  # fire and forget
                return row


            async def main():
                for i in range(2500):
                    row = await sync_tenant(i)
                    print(f"tenant {row['tenant']}: synced {row['records']} records", flush=True)
                print("sync complete: 2500 tenants", flush=True)


            asyncio.run(main())
            """
        },
    )
    return sh(f"{PY} -u sync.py", root)


@case(
    "python_billing_log_exception_big",
    "python logging (logging.exception, warnings)",
    clean=False,
    group=GROUP,
    decisive=[
        "Failed to post invoice INV-0011407 to ledger",
        "decimal.InvalidOperation: [<class 'decimal.ConversionSyntax'>]",
        "run finished: 19999 posted, 1 failed",
    ],
)
def _billing_log(root: Path) -> bytes:
    write(
        root,
        {
            "billing.py": """
            import logging
            import sys
            import warnings
            from decimal import Decimal


            class FakeClock(logging.Formatter):
                tick = 0

                def formatTime(self, record, datefmt=None):
                    FakeClock.tick += 1
                    s = FakeClock.tick
                    return f"2024-06-03 02:{s // 3600 % 60:02d}:{s // 60 % 60:02d}.{s % 60:02d}0"


            handler = logging.StreamHandler(sys.stdout)
            handler.setFormatter(FakeClock("%(asctime)s %(levelname)-7s %(name)s: %(message)s"))
            logging.basicConfig(level=logging.INFO, handlers=[handler])
            logging.captureWarnings(True)
            warnings.simplefilter("always")
            log = logging.getLogger("billing.nightly")


            def to_cents(raw):
                if isinstance(raw, float):
                    warnings.warn("float amounts are deprecated, pass a str or Decimal", DeprecationWarning)
                return int(Decimal(str(raw)) * 100)


            def post(invoice, amount):
                cents = to_cents(amount)
                return f"posted {invoice} ({cents} cents) to ledger account 4000"


            posted = failed = 0
            for i in range(20000):
                invoice = f"INV-{i:07d}"
                amount = f"{10 + i % 400}.{i % 100:02d}" if i % 9 else 10.5 + i % 30
                if invoice == "INV-0011407":
                    amount = "12,40"
                try:
                    log.info(post(invoice, amount))
                    posted += 1
                except Exception:
                    log.exception("Failed to post invoice %s to ledger", invoice)
                    failed += 1
            log.info("run finished: %d posted, %d failed", posted, failed)
            """
        },
    )
    return sh(f"{PY} billing.py", root)


@case(
    "journald_oom_kill_big",
    "journalctl -o short-iso (export replayed with cat)",
    clean=False,
    group=GROUP,
    decisive=[
        "Out of memory: Killed process 2231 (payments-worker)",
        "payments-worker.service: Failed with result 'oom-kill'.",
    ],
)
def _journald(root: Path) -> bytes:
    host = "shop-prod-3"
    pw = f"{host} systemd[1]: payments-worker.service:"
    oom = [
        f"{host} kernel: payments-worker invoked oom-killer: gfp_mask=0x140cca(GFP_HIGHUSER_MOVABLE), order=0",
        f"{host} kernel: Out of memory: Killed process 2231 (payments-worker) total-vm:9123456kB, "
        "anon-rss:7340032kB, file-rss:0kB, shmem-rss:0kB, UID:998 pgtables:15000kB oom_score_adj:0",
        f"{pw} A process of this unit has been killed by the OOM killer.",
        f"{pw} Main process exited, code=killed, status=9/KILL",
        f"{pw} Failed with result 'oom-kill'.",
        f"{pw} Consumed 2h 11min 4.223s CPU time.",
    ]
    restart = [
        f"{pw} Scheduled restart job, restart counter is at 1.",
        f"{host} systemd[1]: Started payments-worker.service - Payments settlement worker.",
    ]
    out = []
    for s in range(14000):
        ts = f"2024-06-03T{s // 3600 % 24:02d}:{s // 60 % 60:02d}:{s % 60:02d}+0000"
        if s in (7301, 7306):
            out += [f"{ts} {line}" for line in (oom if s == 7301 else restart)]
        elif s % 4 == 0:
            out.append(f'{ts} {host} nginx[812]: 10.0.{s % 7}.{s % 250} - "GET /api/orders/{s} HTTP/1.1" 200 {s % 900}')
        elif s % 4 == 1:
            batch = f"settled batch {s}: {40 + s % 60} payments, 0 errors, rss={2000 + s // 3}MB"
            out.append(f"{ts} {host} payments-worker[2231]: {batch}")
        elif s % 4 == 2:
            out.append(f"{ts} {host} orders-api[1904]: INFO handled request id=r{s:06d} status=200 ms={s % 90}")
        else:
            out.append(f"{ts} {host} CRON[{644 + s % 50}]: (root) CMD (/usr/local/bin/rotate-logs --quiet)")
    (root / "journal.txt").write_text("\n".join(out) + "\n")
    return sh("cat journal.txt", root)


# ---------------------------------------------------------------- clean runs that talk about errors


@case("md5sum_check_error_logs_clean", "md5sum -c", clean=True, group=GROUP, decisive=[])
def _md5sum(root: Path) -> bytes:
    kinds = ["error", "failed_jobs", "exception_trace", "fatal", "panic_dump"]
    for i in range(2400):
        write(root, {f"archive/{kinds[i % 5]}_{i:04d}.log": f"{kinds[i % 5]} report {i}: nothing to report\n"})
    sh("md5sum archive/*.log > MANIFEST.md5", root)
    return sh("md5sum -c MANIFEST.md5", root)


@case("php_lint_error_handlers_clean", "php -l (loop over files)", clean=True, group=GROUP, decisive=[])
def _php_lint(root: Path) -> bytes:
    stems = ["ErrorHandler", "FailedJobRepository", "ExceptionRenderer", "FatalErrorListener", "RetryOnFailure"]
    for i in range(300):
        stem = stems[i % 5]
        write(
            root,
            {
                f"src/Errors/{stem}{i:03d}.php": f"""
                <?php
                namespace Shop\\Errors;

                final class {stem}{i:03d}
                {{
                    public function handle(\\Throwable $error): string
                    {{
                        return 'handled error ' . $error->getMessage() . ' in {stem}{i:03d}';
                    }}
                }}
                """
            },
        )
    return sh('for f in $(find src -name "*.php" | sort); do php -l "$f" || exit 1; done', root)


@case(
    "lua_tap_error_handling_clean",
    "lua5.4 (TAP test suite)",
    clean=True,
    group=GROUP,
    decisive=["# passed 900 of 900, failed 0"],
)
def _lua_tap(root: Path) -> bytes:
    write(
        root,
        {
            "spec.lua": """
            io.stdout:setvbuf("line")
            local function parse_amount(s)
              local n = tonumber(s)
              if not n then return nil, "invalid amount: " .. tostring(s) end
              return n
            end

            local n, failed = 0, 0
            local function ok(cond, name)
              n = n + 1
              if cond then print(string.format("ok %d - %s", n, name))
              else failed = failed + 1; print(string.format("not ok %d - %s", n, name)) end
            end

            print("TAP version 13")
            print("1..900")
            for i = 1, 300 do
              local v, err = parse_amount("x" .. i)
              ok(v == nil and err == "invalid amount: x" .. i, "error returned for bad input x" .. i)
              local good = parse_amount(tostring(i))
              ok(good == i, "no error for valid amount " .. i)
              local okcall, perr = pcall(error, "fatal error " .. i)
              ok(not okcall and perr:find("fatal error") ~= nil, "pcall catches raised error " .. i)
            end
            print(string.format("# passed %d of %d, failed %d", n - failed, n, failed))
            os.exit(failed == 0 and 0 or 1)
            """
        },
    )
    return sh("lua5.4 spec.lua", root)


@case(
    "worker_log_errors_zero_clean",
    "python logging (worker)",
    clean=True,
    group=GROUP,
    decisive=["worker stopped cleanly: 6000 jobs, errors=0, failed=0"],
)
def _worker_clean(root: Path) -> bytes:
    write(
        root,
        {
            "worker.py": """
            import logging
            import sys

            logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
            log = logging.getLogger("jobs.worker")
            log.info("exception handler registered for queue 'exports'")
            log.info("retry policy: max_failures=5, on_error=requeue, dead_letter=errors.dlq")
            for i in range(6000):
                if i % 250 == 17:
                    log.warning("job %05d: upstream returned 503, handled error gracefully (retry 1/5)", i)
                    log.info("job %05d: retry succeeded, errors=0", i)
                elif i % 1000 == 999:
                    log.info("checkpoint after job %05d: errors=0 failed=0 exceptions=0", i)
                else:
                    log.info("job %05d: exported %d rows to errors_%s.csv", i, 20 + i % 13, "archive")
            log.info("worker stopped cleanly: 6000 jobs, errors=0, failed=0")
            """
        },
    )
    return sh(f"{PY} worker.py", root)
