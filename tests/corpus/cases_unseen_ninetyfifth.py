"""Held-out outputs (group ``unseen-95``): a ninety-fifth batch, PHP as an agent runs it on a generated payments
application, all offline (Debian's PHP 8.2, PHP_CodeSniffer 3.7 and PHPUnit 9.6, no Composer, an autoloader of the
project's own), whose classes, files and jobs are named ``FailedPayments``, ``ErrorCodes``, ``RetryQueue`` and
``ExceptionReport``.

Failing runs: ``php -l`` over 130 files through ``xargs`` with one parse error in ``RetryQueueScheduler.php``,
``phpcs --standard=PSR12 -s -p`` with some 400 line-length warnings and one missing method visibility, a nightly shell
script of 14 PHP batch jobs where the seventh dies of an uncaught ``DomainException`` with its stack trace and the
others go on, a migration run with ``-d error_reporting=E_ALL`` that floods PHP 8.2 deprecations (dynamic properties,
null to ``strlen``) until a ``TypeError`` kills it, followed by a status script, a settlement script under
``error_reporting=E_ALL`` with hundreds of undefined-key warnings and one missing FX-rate file, and ``phpunit --debug``
of 480 tests with one failing data set. Clean runs full of the business words: ``php -l`` of the fixed tree,
``phpcs -v`` of a PSR-12 clean tree, ``phpunit --testdox`` with every test passing, and the nightly jobs with the
ledger fixed. Labels were written with each scenario, before the engine saw the output. Needs PHP 8.2 with
PHP_CodeSniffer and PHPUnit (Debian ``php-cli``, ``php-codesniffer``, ``phpunit``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-95"

_AREAS = [
    "Billing", "FailedPayments", "ErrorCodes", "RetryQueue", "ExceptionReport", "Refunds", "Ledger", "Invoice",
    "Webhooks", "Audit", "Tax", "Orders", "Session",
]  # fmt: skip
_ROLES = [
    "", "Repository", "Service", "Handler", "Worker", "Exporter", "Validator", "Formatter", "Scheduler", "Factory",
]  # fmt: skip

_PHP = "php -d error_reporting=E_ALL"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, memory."""
    return substitute(
        scrub(out, root),
        (r"Time: \d+ms; Memory: \d+MB", "Time: 100ms; Memory: 8MB"),
        (r"Time: \d\d:\d\d\.\d+, Memory: [0-9.]+ MB", "Time: 00:00.100, Memory: 8.00 MB"),
        (r"DONE in \d+ms", "DONE in 1ms"),
    )


_AUTOLOAD = r"""
<?php

declare(strict_types=1);

spl_autoload_register(function (string $class): void {
    $rel = str_replace(['Payments\\', '\\'], ['', '/'], $class);
    $file = __DIR__ . '/' . $rel . '.php';
    if (is_file($file)) {
        require $file;
    }
});
"""


def _class(area: str, role: str, *, long_lines: int = 0, no_visibility: bool = False, parse_error: bool = False) -> str:
    name = area + role
    words = area.lower()
    extra = ""
    for k in range(long_lines):
        text = f"{name} note {k}: a {words} record kept for the payments platform operators and auditors " * 2
        extra += f"\n    public function note{k}(): string\n    {{\n        return '{text.strip()}';\n    }}\n"
    vis = "" if no_visibility else "public "
    cond = "if ($cents > 0 {" if parse_error else "if ($cents > 0) {"
    return f"""<?php

declare(strict_types=1);

namespace Payments\\{area};

/**
 * {name}: the {words} part of the payments platform.
 */
final class {name}
{{
    private const MAX_ATTEMPTS = {len(name) % 7 + 3};

    /** @var array<int, array{{id: string, cents: int}}> */
    private array $items = [];

    public function add(string $paymentId, int $cents): void
    {{
        {cond}
            $this->items[] = ['id' => $paymentId, 'cents' => $cents];
        }}
    }}

    public function total(): int
    {{
        $sum = 0;
        foreach ($this->items as $item) {{
            $sum += $item['cents'];
        }}

        return $sum;
    }}

    {vis}function requeue(string $paymentId): int
    {{
        return count($this->items) % self::MAX_ATTEMPTS;
    }}
{extra}}}
"""


def _tree(root: Path, **broken: str) -> list[str]:
    """130 class files under src/; ``broken`` maps a fault (parse_error, no_visibility) to a class name."""
    files: dict[str, str] = {"src/autoload.php": _AUTOLOAD}
    names = []
    for i, area in enumerate(_AREAS):
        for j, role in enumerate(_ROLES):
            name = area + role
            faults = {fault: True for fault, who in broken.items() if who == name}
            long_lines = int(broken.get("warnings", "0")) and (i * 3 + j) % 7
            files[f"src/{area}/{name}.php"] = _class(area, role, long_lines=long_lines, **faults)
            names.append(name)
    write(root, files)
    return names


_LINT = "find src -name '*.php' | sort | while read -r f; do php -l \"$f\"; done"


@case(
    "u95_php_lint_parse_error",
    "php -l",
    clean=False,
    group=GROUP,
    decisive=[
        'PHP Parse error:  syntax error, unexpected token "{" in src/RetryQueue/RetryQueueScheduler.php on line 19',
        "Errors parsing src/RetryQueue/RetryQueueScheduler.php",
    ],
)
def _lint_fail(root: Path) -> bytes:
    _tree(root, parse_error="RetryQueueScheduler")
    return _settle(sh(_LINT, root), root)


@case(
    "u95_php_lint_clean",
    "php -l",
    clean=True,
    group=GROUP,
    decisive=["No syntax errors detected in src/RetryQueue/RetryQueueScheduler.php"],
)
def _lint_clean(root: Path) -> bytes:
    _tree(root)
    return _settle(sh(_LINT, root), root)


@case(
    "u95_phpcs_psr12_warnings_one_error",
    "phpcs",
    clean=False,
    group=GROUP,
    decisive=[
        "FILE: src/FailedPayments/FailedPaymentsWorker.php",
        "FOUND 1 ERROR AFFECTING 1 LINE",
        'Visibility must be declared on method "requeue"',
    ],
)
def _phpcs_fail(root: Path) -> bytes:
    _tree(root, warnings="1", no_visibility="FailedPaymentsWorker")
    return _settle(sh("phpcs --standard=PSR12 --basepath=. -s -p src", root), root)


@case(
    "u95_phpcs_psr12_clean",
    "phpcs",
    clean=True,
    group=GROUP,
    decisive=["Processing ExceptionReportHandler.php [PHP => "],
)
def _phpcs_clean(root: Path) -> bytes:
    _tree(root)
    return _settle(sh("phpcs --standard=PSR12 -v src", root), root)


# ---------------------------------------------------------------- batch jobs

_JOBS = [
    "failed-payments-import", "error-codes-sync", "retry-queue-drain", "billing-run", "refunds-settle",
    "invoice-render", "ledger-close", "exception-report", "webhooks-replay", "audit-export", "tax-report",
    "orders-archive", "session-gc", "failed-payments-notify",
]  # fmt: skip

_JOB = r"""
<?php

declare(strict_types=1);

require __DIR__ . '/../src/autoload.php';

use Payments\Ledger\Closer;

$job = $argv[1];
$n = (int) ($argv[2] ?? 120);
printf("[%s] start: %d payments (ErrorCodes v3, RetryQueue max 5 attempts)\n", $job, $n);
$total = 0;
$retried = 0;
for ($i = 1; $i <= $n; $i++) {
    $id = sprintf('pay_%06d', (crc32($job) % 1000) * 1000 + $i);
    $cents = ($i * 7919) % 50000 + 100;
    $total += $cents;
    $status = $i % 17 === 0 ? 'retry-scheduled' : 'settled';
    $retried += $i % 17 === 0 ? 1 : 0;
    printf("[%s] %s %s amount=%d.%02d attempt=%d\n", $job, $id, $status, intdiv($cents, 100), $cents % 100, $i % 3 + 1);
}
if ($job === 'ledger-close') {
    (new Closer())->close('2026-01', $total);
}
printf(
    "[%s] done: %d payments, total=%d cents, failed payments retried: %d, exceptions: 0\n",
    $job,
    $n,
    $total,
    $retried
);
"""

_CLOSER = r"""
<?php

declare(strict_types=1);

namespace Payments\Ledger;

final class Closer
{
    public function close(string $month, int $credits): void
    {
        $debits = $this->debits($month, $credits);
        $this->closeMonth($month, $credits, $debits);
    }

    private function debits(string $month, int $credits): int
    {
        return $credits + FEE_DRIFT;
    }

    private function closeMonth(string $month, int $credits, int $debits): void
    {
        (new Balance())->assertBalanced($month, $credits, $debits);
        printf("[ledger-close] month %s closed: credits=%d debits=%d\n", $month, $credits, $debits);
    }
}
"""

_BALANCE = r"""
<?php

declare(strict_types=1);

namespace Payments\Ledger;

final class Balance
{
    public function assertBalanced(string $month, int $credits, int $debits): void
    {
        if ($credits !== $debits) {
            throw new \DomainException(sprintf('ledger %s out of balance by %d cents', $month, $debits - $credits));
        }
    }
}
"""

_NIGHTLY = """
#!/bin/sh
ok=0
failed=0
for job in {jobs}; do
    echo "== job $job"
    if php bin/job.php "$job" 150; then
        ok=$((ok + 1))
    else
        echo "job $job exited $?"
        failed=$((failed + 1))
    fi
done
echo "nightly: $ok ok, $failed failed"
[ "$failed" -eq 0 ]
"""


def _nightly(root: Path, drift: int) -> bytes:
    write(
        root,
        {
            "src/autoload.php": _AUTOLOAD,
            "src/Ledger/Closer.php": _CLOSER.replace("FEE_DRIFT", str(drift)),
            "src/Ledger/Balance.php": _BALANCE,
            "bin/job.php": _JOB,
            "bin/nightly.sh": _NIGHTLY.format(jobs=" ".join(_JOBS)),
        },
    )
    return _settle(sh("sh bin/nightly.sh", root), root)


@case(
    "u95_nightly_uncaught_exception",
    "php",
    clean=False,
    group=GROUP,
    decisive=[
        "PHP Fatal error:  Uncaught DomainException: ledger 2026-01 out of balance by 1250 cents",
        "thrown in /tmp/work/src/Ledger/Balance.php on line 12",
        "nightly: 13 ok, 1 failed",
    ],
)
def _nightly_fail(root: Path) -> bytes:
    return _nightly(root, 1250)


@case(
    "u95_nightly_clean",
    "php",
    clean=True,
    group=GROUP,
    decisive=["nightly: 14 ok, 0 failed", "[ledger-close] month 2026-01 closed"],
)
def _nightly_clean(root: Path) -> bytes:
    return _nightly(root, 0)


# ---------------------------------------------------------------- deprecations and warnings

_RETRY_QUEUE = r"""
<?php

declare(strict_types=1);

namespace Payments\Retry;

final class RetryQueue
{
    private array $items = [];

    public function push(string $paymentId, int $attempt, $reason = null, string $errorCode): void
    {
        $this->items[] = "retry {$paymentId} attempt ${attempt} ({$errorCode})";
    }

    public function size(): int
    {
        return count($this->items);
    }
}
"""

_MIGRATE = r"""
<?php

require __DIR__ . '/../src/autoload.php';

use Payments\Retry\RetryQueue;

class LegacyFailedPayment
{
    public $id;
}

$rows = 1400;
$queue = new RetryQueue();
for ($i = 1; $i <= $rows; $i++) {
    $p = new LegacyFailedPayment();
    $p->id = sprintf('pay_%06d', $i);
    $p->errorCode = 'E_CARD_' . ($i % 40);
    $note = $i % 3 === 0 ? null : 'card declined';
    $p->noteLength = strlen($note);
    $attempt = $i === 917 ? 'retry-' . ($i % 5) : $i % 5;
    $queue->push($p->id, $attempt, null, $p->errorCode);
    if ($i % 100 === 0) {
        printf("migrated %d/%d failed payments into the retry queue\n", $i, $rows);
    }
}
printf("migration done: %d failed payments queued\n", $queue->size());
"""

_STATUS = r"""
<?php

$areas = ['failed_payments', 'error_codes', 'retry_queue', 'exception_report', 'refunds', 'ledger', 'invoice',
    'webhooks'];
$n = 0;
foreach ($areas as $area) {
    foreach (['create', 'add_index', 'backfill', 'drop_legacy', 'add_fk'] as $step) {
        $n++;
        $state = $n <= 31 ? 'applied' : 'pending';
        printf("%-55s %s\n", sprintf('2026_01_%02d_%s_%s', $n % 28 + 1, $step, $area), $state);
    }
}
printf("migrations: %d total\n", $n);
"""


@case(
    "u95_deprecations_then_type_error",
    "php",
    clean=False,
    group=GROUP,
    decisive=[
        "PHP Fatal error:  Uncaught TypeError: Payments\\Retry\\RetryQueue::push(): Argument #2 ($attempt) must be of "
        "type int, string given",
        "thrown in /tmp/work/src/Retry/RetryQueue.php on line 11",
    ],
)
def _deprecations(root: Path) -> bytes:
    write(
        root,
        {
            "src/autoload.php": _AUTOLOAD,
            "src/Retry/RetryQueue.php": _RETRY_QUEUE,
            "bin/migrate-failed-payments.php": _MIGRATE,
            "bin/migration-status.php": _STATUS,
        },
    )
    return _settle(sh(f"{_PHP} bin/migrate-failed-payments.php; php bin/migration-status.php", root), root)


_SETTLE = r"""
<?php

declare(strict_types=1);

function fx_rate(string $currency): float
{
    static $rates = [];
    if (!array_key_exists($currency, $rates)) {
        if ($currency === 'USD') {
            $rates[$currency] = 1.0;
        } else {
            $raw = file_get_contents(__DIR__ . "/../var/fx/{$currency}.json");
            $rates[$currency] = $raw === false ? 0.0 : (float) json_decode($raw, true)['rate'];
        }
    }
    return $rates[$currency];
}

$rows = array_map('str_getcsv', file(__DIR__ . '/../var/settlements.csv', FILE_IGNORE_NEW_LINES));
$header = array_shift($rows);
$settled = 0;
$missing = [];
foreach ($rows as $row) {
    $r = array_combine(array_slice($header, 0, count($row)), $row);
    $currency = $r['currency'] ?? 'USD';
    $fee = (int) $r['fee_cents'];
    $code = $r['error_code'];
    $rate = fx_rate($currency);
    if ($rate === 0.0) {
        $missing[$currency] = true;
    }
    $settled++;
    if ($settled % 50 === 0) {
        printf("settled %d payments (last %s, error code %s)\n", $settled, $r['id'], $code ?: 'none');
    }
}
if ($missing) {
    printf("settlement finished with %d missing FX rate: %s\n", count($missing), implode(', ', array_keys($missing)));
    exit(2);
}
printf("settlement finished: %d payments\n", $settled);
"""


@case(
    "u95_error_reporting_warnings",
    "php",
    clean=False,
    group=GROUP,
    decisive=[
        "file_get_contents(/tmp/work/bin/../var/fx/EUR.json): Failed to open stream: No such file or directory",
        "settlement finished with 1 missing FX rate: EUR",
    ],
)
def _warnings(root: Path) -> bytes:
    lines = ["id,amount_cents,fee_cents,error_code,currency"]
    for i in range(1, 1001):
        row = [f"pay_{i:06d}", str(i * 131 % 90000), str(i % 90), "E_RETRY_LATER" if i % 23 == 0 else ""]
        if i % 4:  # the older export has no fee or currency columns
            row += ["EUR" if i == 613 else "USD"] if i > 600 else []
        else:
            row = row[:2]
        lines.append(",".join(row))
    write(root, {"bin/settle.php": _SETTLE, "var/settlements.csv": "\n".join(lines) + "\n", "var/fx/GBP.json": "{}"})
    return _settle(sh(f"{_PHP} bin/settle.php", root), root)


# ---------------------------------------------------------------- PHPUnit

_CODES = [f"E_{kind}_{k:02d}" for kind in ("CARD", "NETWORK", "BANK", "FRAUD") for k in range(28)]
_CODES += ["E_GATEWAY_TIMEOUT", "E_RATE_LIMITED", "E_ISSUER_UNAVAILABLE", "E_DUPLICATE"]


def _retryable(code: str) -> bool:
    return code.startswith("E_NETWORK_") or code in ("E_GATEWAY_TIMEOUT", "E_RATE_LIMITED", "E_ISSUER_UNAVAILABLE")


def _phpunit_project(root: Path, *, bug: bool) -> None:
    retry_list = "'E_RATE_LIMITED', 'E_ISSUER_UNAVAILABLE'" + ("" if bug else ", 'E_GATEWAY_TIMEOUT'")
    cases = "".join(f"                    yield '{c}' => ['{c}', {str(_retryable(c)).lower()}];\n" for c in _CODES)
    files = {
        "src/autoload.php": _AUTOLOAD,
        "phpunit.xml": """
            <?xml version="1.0" encoding="UTF-8"?>
            <phpunit bootstrap="src/autoload.php" colors="false">
              <testsuites>
                <testsuite name="payments">
                  <directory>tests</directory>
                </testsuite>
              </testsuites>
            </phpunit>
        """,
        "src/ErrorCodes/ErrorCodes.php": f"""
            <?php

            declare(strict_types=1);

            namespace Payments\\ErrorCodes;

            final class ErrorCodes
            {{
                private const RETRYABLE = [{retry_list}];

                public static function retryable(string $code): bool
                {{
                    return str_starts_with($code, 'E_NETWORK_') || in_array($code, self::RETRYABLE, true);
                }}
            }}
        """,
        "tests/ErrorCodesTest.php": f"""
            <?php

            declare(strict_types=1);

            namespace Payments\\Tests;

            use Payments\\ErrorCodes\\ErrorCodes;
            use PHPUnit\\Framework\\TestCase;

            final class ErrorCodesTest extends TestCase
            {{
                public static function codes(): iterable
                {{
{cases}                }}

                /** @dataProvider codes */
                public function testRetryable(string $code, bool $expected): void
                {{
                    $this->assertSame($expected, ErrorCodes::retryable($code));
                }}
            }}
        """,
    }
    for area in ("FailedPayments", "RetryQueue", "ExceptionReport", "Refunds", "Ledger", "Invoice"):
        files[f"tests/{area}Test.php"] = f"""
            <?php

            declare(strict_types=1);

            namespace Payments\\Tests;

            use PHPUnit\\Framework\\TestCase;

            final class {area}Test extends TestCase
            {{
                public static function amounts(): iterable
                {{
                    for ($i = 1; $i <= 31; $i++) {{
                        yield "{area} payment $i" => [$i * 1250, $i % 5];
                    }}
                }}

                /** @dataProvider amounts */
                public function testTotalsAfterRetry(int $cents, int $attempt): void
                {{
                    $this->assertSame($cents, intdiv($cents * ($attempt + 1), $attempt + 1));
                }}

                /** @dataProvider amounts */
                public function testErrorCodeKeptOnFailedAttempt(int $cents, int $attempt): void
                {{
                    $this->assertSame('E_' . $attempt, sprintf('E_%d', $attempt));
                }}
            }}
        """
    write(root, files)


_PHPUNIT_SETTLE = (r"^Runtime: .*$", "Runtime:       PHP 8.2")


@case(
    "u95_phpunit_debug_one_failure",
    "phpunit",
    clean=False,
    group=GROUP,
    decisive=[
        '1) Payments\\Tests\\ErrorCodesTest::testRetryable with data set "E_GATEWAY_TIMEOUT"',
        "Failed asserting that false is identical to true.",
        "Tests: 488, Assertions: 488, Failures: 1.",
    ],
)
def _phpunit_fail(root: Path) -> bytes:
    _phpunit_project(root, bug=True)
    return substitute(_settle(sh("phpunit --debug", root), root), _PHPUNIT_SETTLE)


@case(
    "u95_phpunit_testdox_clean",
    "phpunit",
    clean=True,
    group=GROUP,
    decisive=["OK (488 tests, 488 assertions)"],
)
def _phpunit_clean(root: Path) -> bytes:
    _phpunit_project(root, bug=False)
    return substitute(_settle(sh("phpunit --testdox", root), root), _PHPUNIT_SETTLE)
