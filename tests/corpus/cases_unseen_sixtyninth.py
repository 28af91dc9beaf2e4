"""Held-out outputs (group ``unseen-69``): a sixty-ninth batch, the test runners of Ruby, PHP, Perl and shell in
depth, as an agent runs them on projects generated in the scenario (no gem, Packagist or CPAN registry reached).

Failing runs: ``rspec --format documentation`` over 14 spec files where one refund example fails in the middle of
630 lines, the default progress format of ``rspec`` over 880 examples with a deprecation warning printed by the code
under test for every call of ``Cart::CartStore#total_cents`` and two failures (a hash mismatch and a NoMethodError on
nil), ``rake`` whose default task runs a verbose minitest suite that passes and then ``rspec`` that stops at a syntax
error in ``spec/retry/retry_queue_spec.rb``, minitest run by ``ruby -Ilib -e`` with ``--verbose`` and one failure and
one KeyError among 420 tests, ``phpunit --testdox`` with one failing coupon test inline among 600, ``phpunit`` with the
default dots over 3,000 tests with an error, a failure and a list of risky tests, ``prove -v -r`` over 24 Test::More
files where one ``is`` in ``t/refunds/partial.t`` fails, and ``bats -r`` (TAP) with skipped tests and one failure in
the middle. Clean runs named after errors, failures and retries: ``rspec --format documentation`` over
``ErrorReporter``, ``FailedPaymentsJob``, ``RetryQueue`` and ``ExceptionTracker`` with pending examples,
``phpunit --testdox`` over the same classes in PHP, ``prove -v -r`` with TODO tests that fail (``not ok ... # TODO``)
and skipped ones, and ``bats --formatter tap13`` (whose skipped tests are written ``not ok ... # SKIP``). Labels were
written with each scenario, before the engine saw the output. Needs Ruby with RSpec, rake and minitest, PHP with
PHPUnit 9, Perl's prove and bats (Debian ``ruby``, ``ruby-rspec``, ``rake``, ``ruby-minitest``, ``phpunit``,
``bats``, ``perl``).
"""

from __future__ import annotations

import re
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-69"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, memory, addresses."""
    return substitute(
        scrub(out, root),
        (r"Finished in \d+(\.\d+)? seconds? \(files took \d+(\.\d+)? seconds? to load\)",
         "Finished in 0.2 seconds (files took 0.1 seconds to load)"),
        (r"Finished in \d+\.\d+s, \d+\.\d+ runs/s, \d+\.\d+ assertions/s\.",
         "Finished in 0.1s, 4000.0 runs/s, 4000.0 assertions/s."),
        (r" = \d+\.\d+ s = ", " = 0.00 s = "),
        (r"^Time: \d\d:\d\d\.\d+, Memory: \d+\.\d+ MB", "Time: 00:00.100, Memory: 8.00 MB"),
        (r"\d+ wallclock secs \(.*\)$", "0 wallclock secs ( 0.10 usr  0.01 sys +  0.50 cusr  0.10 csys =  0.71 CPU)"),
        (r"0x[0-9a-f]{16}", "0x0000000000000000"),
        (r"/usr/bin/ruby[0-9.]*", "/usr/bin/ruby"),
    )  # fmt: skip


#: (module, class, path, factor) of the classes the Ruby and PHP projects are made of.
_AREAS = [
    ("Billing", "InvoiceTotals", "billing/invoice_totals", 7),
    ("Orders", "OrderPayload", "orders/order_payload", 11),
    ("Cart", "CartStore", "cart/cart_store", 3),
    ("Tax", "TaxRates", "tax/tax_rates", 17),
    ("Ledger", "LedgerEntries", "ledger/ledger_entries", 19),
    ("Pricing", "PriceRules", "pricing/price_rules", 23),
    ("Refunds", "RefundCalculator", "refunds/refund_calculator", 13),
    ("Coupons", "CouponEngine", "coupons/coupon_engine", 29),
    ("Shipping", "ShippingRates", "shipping/shipping_rates", 31),
    ("Catalog", "CatalogSearch", "catalog/catalog_search", 37),
    ("Webhooks", "Delivery", "webhooks/delivery", 41),
    ("Audit", "AuditTrail", "audit/audit_trail", 43),
    ("Session", "SessionStore", "session/session_store", 47),
    ("Export", "CsvExport", "export/csv_export", 53),
]

#: The same, named after errors, failures and retries (a clean run of these is still clean).
_ERROR_AREAS = [
    ("Errors", "ErrorReporter", "errors/error_reporter", 59),
    ("Billing", "FailedPaymentsJob", "billing/failed_payments_job", 61),
    ("Retry", "RetryQueue", "retry/retry_queue", 67),
    ("Exceptions", "ExceptionTracker", "exceptions/exception_tracker", 71),
    ("Webhooks", "FailedDeliveryRetry", "webhooks/failed_delivery_retry", 73),
    ("Errors", "ErrorBudget", "errors/error_budget", 79),
]

_PHRASES = [
    "weighs {c} cents as {w}",
    "keeps the weight of {c} cents at {w}",
    "scores {c} cents for the EU price list",
    "handles an amount of {c} cents",
    "returns {w} for {c} cents",
]

_ERROR_PHRASES = [
    "reports error {i} for {c} cents",
    "retries the failed payment of {c} cents",
    "records the exception raised for {c} cents",
    "keeps the retry weight of {c} cents at {w}",
    "marks failed job {i} with weight {w}",
    "raises no error for {c} cents",
]


def _cents(i: int, factor: int) -> int:
    return 100 + (i * 137 + factor * 11) % 9000


def _snake(name: str) -> str:
    return re.sub(r"(?<!^)([A-Z])", r"_\1", name).lower()


def _examples(factor: int, n: int, phrases: list[str]) -> list[tuple[str, int, int]]:
    """``n`` (description, cents, weight) of a class whose weight factor is ``factor``."""
    out = []
    for i in range(n):
        c = _cents(i, factor)
        w = c * factor % 1000
        out.append((phrases[i % len(phrases)].format(c=c, w=w, i=i + 1), c, w))
    return out


# ---------------------------------------------------------------- Ruby: RSpec, minitest, rake


def _rb_lib(mod: str, cls: str, factor: int, extra: str = "") -> str:
    return (
        f"# frozen_string_literal: true\n\nmodule {mod}\n  # {cls} for the billing platform.\n  class {cls}\n"
        f'    FACTOR = {factor}\n\n    def initialize(currency = "EUR")\n      @currency = currency\n    end\n\n'
        "    def weight(cents)\n      (cents * FACTOR) % 1000\n    end\n\n"
        "    def split(cents, parts)\n      Array.new(parts) { |i| (cents / parts) + (i < cents % parts ? 1 : 0) }\n"
        "    end\n\n    def partial(cents, parts)\n      cents / parts\n    end\n"
        f"{extra}  end\nend\n"
    )


def _rb_spec(
    area: tuple[str, str, str, int],
    n: int,
    *,
    phrases: list[str] = _PHRASES,
    extras: list[tuple[str, str]] = (),
    pending: tuple[int, ...] = (),
    broken: str = "",
) -> str:
    """A spec of ``n`` weight examples in contexts of 10, then ``extras`` (description, body) under ``#partial``."""
    mod, cls, path, factor = area
    var = _snake(cls)
    lines = [f'require "{path}"', "", f"RSpec.describe {mod}::{cls} do"]
    lines += [f'  subject({":" + var}) {{ described_class.new("EUR") }}', "", '  describe "#weight" do']
    for i, (desc, c, w) in enumerate(_examples(factor, n, phrases)):
        if i % 10 == 0:
            if i:
                lines += ["    end", ""]
            lines.append(f'    context "with amounts from price list {i // 10 + 1}" do')
        kw = "xit" if i in pending else "it"
        lines += [f'      {kw} "{desc}" do', f"        expect({var}.weight({c})).to eq({w})", "      end"]
    lines += ["    end", "  end", ""]
    lines += ['  describe "#split" do']
    for parts in (2, 3, 4, 7):
        share = [1999 // parts + (1 if k < 1999 % parts else 0) for k in range(parts)]
        lines += [f'    it "splits 1999 cents in {parts} parts" do']
        lines += [f"      expect({var}.split(1999, {parts})).to eq({share})", "    end"]
    lines.append("  end")
    if extras:
        lines += ["", '  describe "#partial" do']
        for desc, body in extras:
            lines += [f'    it "{desc}" do', *[f"      {b}" for b in body.split("\n")], "    end"]
        lines.append("  end")
    lines.append("end")
    text = "\n".join(lines) + "\n"
    return text.replace("\nend\n", f"\n{broken}end\n") if broken else text


def _rspec_project(root: Path, areas: list[tuple[str, str, str, int]], n: int, **special: dict) -> None:
    """lib/ and spec/ of ``areas``; ``special`` maps a class name to keyword arguments of ``_rb_spec`` and
    ``lib`` (extra Ruby methods)."""
    files = {
        ".rspec": "--require spec_helper\n",
        "spec/spec_helper.rb": "RSpec.configure(&:disable_monkey_patching!)\n",
    }
    for area in areas:
        mod, cls, path, factor = area
        opts = dict(special.get(cls, {}))
        extra = opts.pop("lib", "")
        files[f"lib/{path}.rb"] = _rb_lib(mod, cls, factor, extra)
        files[f"spec/{path}_spec.rb"] = _rb_spec(area, opts.pop("n", n), **opts)
    write(root, files)


def _ruby_env(root: Path) -> str:
    return f"HOME={root / 'home'} SOURCE_DATE_EPOCH=1700000000"


@case(
    "u69_rspec_documentation_failure",
    "rspec",
    clean=False,
    group=GROUP,
    decisive=[
        "Failure/Error: expect(refund_calculator.partial(1999, 3)).to eq(667)",
        "rspec ./spec/refunds/refund_calculator_spec.rb:",
        "examples, 1 failure",
    ],
)
def _rspec_doc_failure(root: Path) -> bytes:
    partial = [
        ("refunds 1999 cents in 2 parts", "expect(refund_calculator.partial(1999, 2)).to eq(999)"),
        (
            "rounds a partial refund of 1999 cents in 3 parts up",
            "expect(refund_calculator.partial(1999, 3)).to eq(667)",
        ),
        ("refunds 1000 cents in 4 parts", "expect(refund_calculator.partial(1000, 4)).to eq(250)"),
    ]
    _rspec_project(root, _AREAS, 42, RefundCalculator={"extras": partial}, SessionStore={"pending": (7, 31)})
    return _settle(sh(f"{_ruby_env(root)} rspec --format documentation", root), root)


_CART_LIB = (
    "\n    def total_cents(items)\n"
    '      warn "DEPRECATION WARNING: Cart::CartStore#total_cents is deprecated and will be removed in 3.0, "'
    ' \\\n           "use #total instead (called from #{caller_locations(1, 1).first})"\n'
    "      total(items)\n    end\n\n    def total(items)\n      items.sum { |i| i * FACTOR }\n    end\n"
)

_ORDER_LIB = (
    '\n    def to_h\n      { id: 42, total_cents: 1999, currency: @currency, lines: 3, status: "pending" }\n    end\n'
)

_DELIVERY_LIB = "\n    def last_attempt\n      nil\n    end\n"


@case(
    "u69_rspec_progress_deprecations",
    "rspec",
    clean=False,
    group=GROUP,
    decisive=[
        "Failure/Error: expect(order_payload.to_h).to eq(",
        "undefined method `signature' for nil:NilClass",
        "rspec ./spec/webhooks/delivery_spec.rb:",
        "examples, 2 failures",
    ],
)
def _rspec_progress(root: Path) -> bytes:
    cart = [(f"totals {k} items through the old API", f"expect(cart_store.total_cents([{k}] * {k})).to eq({k * k * 3})")
            for k in range(1, 61)]  # fmt: skip
    order = [(f"still totals order {k} through the cart", "cart = Cart::CartStore.new\n"
              f"expect(cart.total_cents([{k}, 2])).to eq({(k + 2) * 3})") for k in range(1, 41)]  # fmt: skip
    order.insert(
        23,
        (
            "serializes the paid order payload",
            'expect(order_payload.to_h).to eq(id: 42, total_cents: 1999, currency: "EUR", lines: 3, status: "paid")',
        ),
    )
    delivery = [
        ("signs the payload of the last attempt", 'expect(delivery.last_attempt.signature).to start_with("sha256=")'),
        ("keeps the attempts in order", "expect(delivery.split(10, 2)).to eq([5, 5])"),
    ]
    special = {
        "CartStore": {"lib": _CART_LIB, "extras": cart},
        "OrderPayload": {"lib": _ORDER_LIB, "extras": order},
        "Delivery": {"lib": _DELIVERY_LIB, "extras": delivery, "pending": (3, 18, 40)},
    }
    _rspec_project(root, [*_AREAS, *_ERROR_AREAS[:2]], 45, **special)
    return _settle(sh(f"{_ruby_env(root)} rspec", root), root)


_RETRY_LIB = (
    "\n    class RetryExhaustedError < StandardError; end\n\n    def run(attempts)\n"
    '      raise RetryExhaustedError, "gave up after #{attempts} attempts" if attempts >= 5\n\n'
    "      attempts\n    end\n"
)

_TRACKER_LIB = "\n    def track(error)\n      { class: error.class.name, message: error.message, count: 1 }\n    end\n"


@case(
    "u69_rspec_clean_error_words",
    "rspec",
    clean=True,
    group=GROUP,
    decisive=["examples, 0 failures, 3 pending"],
)
def _rspec_clean(root: Path) -> bytes:
    retry = [
        (
            f"raises RetryExhaustedError after {k} failed attempts",
            f"expect {{ retry_queue.run({k}) }}.to raise_error(Retry::RetryQueue::RetryExhaustedError, "
            f'"gave up after {k} attempts")',
        )
        for k in range(5, 12)
    ] + [(f"retries a failed job on attempt {k}", f"expect(retry_queue.run({k})).to eq({k})") for k in range(5)]
    tracker = [
        (f"tracks the {e} exception", f'expect(exception_tracker.track({e}.new("boom")))'
         f'.to include(class: "{e}", count: 1)')
        for e in ("ArgumentError", "KeyError", "RuntimeError", "IOError", "ZeroDivisionError", "TypeError")
    ]  # fmt: skip
    special = {
        "RetryQueue": {"lib": _RETRY_LIB, "extras": retry, "pending": (12,)},
        "ExceptionTracker": {"lib": _TRACKER_LIB, "extras": tracker},
        "ErrorReporter": {"pending": (4, 29)},
    }
    for opts in (special["RetryQueue"], special["ExceptionTracker"], special["ErrorReporter"]):
        opts["phrases"] = _ERROR_PHRASES
    special["FailedPaymentsJob"] = {"phrases": _ERROR_PHRASES}
    special["FailedDeliveryRetry"] = {"phrases": _ERROR_PHRASES}
    special["ErrorBudget"] = {"phrases": _ERROR_PHRASES}
    _rspec_project(root, [*_ERROR_AREAS, *_AREAS[:6]], 40, **special)
    return _settle(sh(f"{_ruby_env(root)} rspec --format documentation", root), root)


def _mt_test(
    area: tuple[str, str, str, int],
    n: int,
    *,
    phrases: list[str] = _PHRASES,
    extras: list[tuple[str, str]] = (),
    skips: tuple[int, ...] = (),
) -> str:
    """A minitest file of ``n`` weight tests and ``extras`` (method name, body)."""
    mod, cls, path, factor = area
    lines = ['require "minitest/autorun"', f'require "{path}"', "", f"class {cls}Test < Minitest::Test"]
    lines += ["  def setup", f'    @subject = {mod}::{cls}.new("EUR")', "  end"]
    for i, (desc, c, w) in enumerate(_examples(factor, n, phrases)):
        name = "test_" + re.sub(r"[^a-z0-9]+", "_", desc.lower()).strip("_")
        body = [f"    assert_equal {w}, @subject.weight({c})"]
        if i in skips:
            body.insert(0, '    skip "the sandbox card processor is offline"')
        lines += ["", f"  def {name}", *body, "  end"]
    for name, body in extras:
        lines += ["", f"  def {name}", *[f"    {b}" for b in body.split("\n")], "  end"]
    return "\n".join(lines) + "\nend\n"


def _mt_project(root: Path, areas: list[tuple[str, str, str, int]], n: int, **special: dict) -> None:
    files = {}
    for area in areas:
        mod, cls, path, factor = area
        opts = dict(special.get(cls, {}))
        files[f"lib/{path}.rb"] = _rb_lib(mod, cls, factor, opts.pop("lib", ""))
        files[f"test/{path}_test.rb"] = _mt_test(area, opts.pop("n", n), **opts)
    write(root, files)


_RAKEFILE = """
    require "rake/testtask"
    require "rspec/core/rake_task"

    Rake::TestTask.new(:test) do |t|
      t.libs << "lib" << "test"
      t.pattern = "test/**/*_test.rb"
      t.options = "--verbose --seed=1234"
      t.verbose = true
    end

    RSpec::Core::RakeTask.new(:spec) do |t|
      t.rspec_opts = "--format progress"
    end

    task default: %i[test spec]
"""


@case(
    "u69_rake_minitest_then_spec_syntax_error",
    "rake",
    clean=False,
    group=GROUP,
    decisive=[
        "An error occurred while loading ./spec/retry/retry_queue_spec.rb",
        "syntax error, unexpected",
        "0 examples, 0 failures, 1 error occurred outside of examples",
    ],
)
def _rake_load_error(root: Path) -> bytes:
    areas = [*_ERROR_AREAS, *_AREAS[:8]]
    special = {cls: {"phrases": _ERROR_PHRASES} for _, cls, _, _ in _ERROR_AREAS}
    special["RetryQueue"]["lib"] = _RETRY_LIB
    special["RetryQueue"]["extras"] = [
        (f"test_raises_retry_exhausted_error_after_{k}_attempts",
         f"assert_raises(Retry::RetryQueue::RetryExhaustedError) {{ @subject.run({k}) }}") for k in range(5, 9)
    ]  # fmt: skip
    _mt_project(root, areas, 36, **special)
    spec = {cls: {"phrases": _ERROR_PHRASES} for _, cls, _, _ in _ERROR_AREAS}
    spec["RetryQueue"] = {
        "lib": _RETRY_LIB,
        "broken": '  it "retries twice" do\n    expect(retry_queue.run(2)).to eq(2)\n  end\n  end\n',
    }
    _rspec_project(root, areas, 30, **spec)
    write(root, {"Rakefile": _RAKEFILE})
    return _settle(sh(f"{_ruby_env(root)} rake", root), root)


@case(
    "u69_minitest_ruby_e_failure_and_error",
    "minitest",
    clean=False,
    group=GROUP,
    decisive=[
        "[/tmp/work/test/refunds/refund_calculator_test.rb:",
        'KeyError: key not found: "NZ"',
        "1 failures, 1 errors",
    ],
)
def _minitest_e(root: Path) -> bytes:
    refunds = [
        ("test_partial_refund_of_1999_in_2_parts", "assert_equal 999, @subject.partial(1999, 2)"),
        ("test_partial_refund_of_1999_in_3_parts_rounds_up", "assert_equal 667, @subject.partial(1999, 3)"),
    ]
    shipping_lib = (
        '\n    ZONES = { "DE" => 1, "FR" => 1, "US" => 3 }.freeze\n\n'
        "    def quote(country, grams)\n      ZONES.fetch(country) * grams / 10\n    end\n"
    )
    shipping = [(f"test_quotes_{c.lower()}_parcels", f'assert_equal {z * 50}, @subject.quote("{c}", 500)')
                for c, z in (("DE", 1), ("US", 3), ("NZ", 4), ("FR", 1))]  # fmt: skip
    special = {
        "RefundCalculator": {"extras": refunds},
        "ShippingRates": {"lib": shipping_lib, "extras": shipping},
        "CouponEngine": {"skips": (4, 9, 22)},
    }
    _mt_project(root, _AREAS, 30, **special)
    runner = 'Dir.glob("test/**/*_test.rb").sort.each { |f| require File.expand_path(f) }'
    return _settle(sh(f"{_ruby_env(root)} ruby -Ilib -Itest -e '{runner}' -- --verbose --seed 4242", root), root)


# ---------------------------------------------------------------- PHP: PHPUnit 9


_PHP_BOOTSTRAP = """<?php
spl_autoload_register(function (string $class): void {
    $prefix = 'App\\\\';
    if (strncmp($class, $prefix, strlen($prefix)) !== 0) {
        return;
    }
    $file = __DIR__ . '/../src/' . str_replace('\\\\', '/', substr($class, strlen($prefix))) . '.php';
    if (is_file($file)) {
        require $file;
    }
});
"""

_PHPUNIT_XML = """<?xml version="1.0" encoding="UTF-8"?>
<phpunit bootstrap="tests/bootstrap.php" colors="false" cacheResult="false">
  <testsuites>
    <testsuite name="unit">
      <directory>tests</directory>
    </testsuite>
  </testsuites>
</phpunit>
"""


def _php_class(mod: str, cls: str, factor: int, extra: str = "") -> str:
    return (
        f"<?php\n\ndeclare(strict_types=1);\n\nnamespace App\\{mod};\n\n/** {cls} for the billing platform. */\n"
        f"final class {cls}\n{{\n    private const FACTOR = {factor};\n\n"
        "    public function weight(int $cents): int\n    {\n        return ($cents * self::FACTOR) % 1000;\n    }\n\n"
        "    public function partial(int $cents, int $parts): int\n    {\n        return intdiv($cents, $parts);\n"
        f"    }}\n{extra}}}\n"
    )


def _camel(desc: str) -> str:
    return "test" + "".join(w.capitalize() for w in re.split(r"[^A-Za-z0-9]+", desc) if w)


def _php_test(
    area: tuple[str, str, str, int],
    n: int,
    *,
    phrases: list[str] = _PHRASES,
    extras: list[tuple[str, str]] = (),
    risky: tuple[int, ...] = (),
) -> str:
    mod, cls, _, factor = area
    lines = ["<?php", "", "declare(strict_types=1);", "", f"namespace App\\Tests\\{mod};", ""]
    lines += [f"use App\\{mod}\\{cls};", "use PHPUnit\\Framework\\TestCase;", ""]
    lines += [f"final class {cls}Test extends TestCase", "{"]
    for i, (desc, c, w) in enumerate(_examples(factor, n, phrases)):
        body = f"$this->assertSame({w}, (new {cls}())->weight({c}));"
        if i in risky:
            body = f"(new {cls}())->weight({c});"
        lines += [f"    public function {_camel(desc)}(): void", "    {", f"        {body}", "    }", ""]
    for name, body in extras:
        lines += [
            f"    public function {name}(): void",
            "    {",
            *[f"        {b}" for b in body.split("\n")],
            "    }",
            "",
        ]
    return "\n".join(lines[:-1]) + "\n}\n"


def _php_project(root: Path, areas: list[tuple[str, str, str, int]], n: int, **special: dict) -> None:
    files = {"phpunit.xml": _PHPUNIT_XML, "tests/bootstrap.php": _PHP_BOOTSTRAP}
    for area in areas:
        mod, cls, _, factor = area
        opts = dict(special.get(cls, {}))
        files[f"src/{mod}/{cls}.php"] = _php_class(mod, cls, factor, opts.pop("lib", ""))
        files[f"tests/{mod}/{cls}Test.php"] = _php_test(area, opts.pop("n", n), **opts)
    (root / "src").mkdir()
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@case(
    "u69_phpunit_testdox_failure",
    "phpunit",
    clean=False,
    group=GROUP,
    decisive=["Summary of non-successful tests:", "Tests: 605, Assertions: 605, Failures: 1."],
)
def _phpunit_testdox(root: Path) -> bytes:
    coupons = [
        ("testAppliesTenPercentTo1990Cents", "$this->assertSame(199, (new CouponEngine())->partial(1990, 10));"),
        ("testAppliesTenPercentTo1999Cents", "$this->assertSame(200, (new CouponEngine())->partial(1999, 10));"),
        ("testAppliesHalfTo1000Cents", "$this->assertSame(500, (new CouponEngine())->partial(1000, 2));"),
    ]
    _php_project(root, _AREAS, 43, CouponEngine={"extras": coupons})
    return _settle(sh("phpunit --testdox", root), root)


@case(
    "u69_phpunit_dots_error_failure_risky",
    "phpunit",
    clean=False,
    group=GROUP,
    decisive=[
        "must be of type string, null given",
        "App\\Tests\\Ledger\\LedgerEntriesTest::testBalancesTheDayOfEntries",
        "Errors: 1, Failures: 1",
    ],
)
def _phpunit_dots(root: Path) -> bytes:
    shipping_lib = (
        "\n    public function quote(string $country, int $grams): int\n    {\n"
        "        return ['DE' => 1, 'FR' => 1, 'US' => 3][$country] * intdiv($grams, 10);\n    }\n"
    )
    shipping = [
        ("testQuotesGermanParcels", "$this->assertSame(50, (new ShippingRates())->quote('DE', 500));"),
        ("testQuotesParcelsWithoutCountry", "$country = null;\n"
         "$this->assertSame(50, (new ShippingRates())->quote($country, 500));"),
    ]  # fmt: skip
    ledger = [
        (
            "testBalancesTheDayOfEntries",
            "$ledger = new LedgerEntries();\n$day = array_map(fn (int $c) => $ledger->weight($c), range(100, 140));\n"
            "$expected = $day;\n$expected[17] = 0;\n$this->assertEquals($expected, $day);",
        ),
    ]
    risky = {"risky": (3, 40, 77, 150)}
    special = {"ShippingRates": {"lib": shipping_lib, "extras": shipping}, "LedgerEntries": {"extras": ledger}}
    for cls in ("AuditTrail", "SessionStore", "CsvExport"):
        special[cls] = risky
    _php_project(root, [*_AREAS, *_ERROR_AREAS], 160, **special)
    return _settle(sh("phpunit", root), root)


@case(
    "u69_phpunit_testdox_clean_error_words",
    "phpunit",
    clean=True,
    group=GROUP,
    decisive=["OK (", "Retry Queue (App\\Tests\\Retry\\RetryQueue)"],
)
def _phpunit_clean(root: Path) -> bytes:
    retry_lib = (
        "\n    public function run(int $attempts): int\n    {\n        if ($attempts >= 5) {\n"
        '            throw new \\RuntimeException("retry exhausted: gave up after {$attempts} attempts");\n'
        "        }\n\n        return $attempts;\n    }\n"
    )
    retry = [
        (f"testThrowsRetryExhaustedExceptionAfter{k}FailedAttempts",
         f"$this->expectException(\\RuntimeException::class);\n$this->expectExceptionMessage('gave up after {k}');\n"
         f"(new RetryQueue())->run({k});") for k in range(5, 10)
    ]  # fmt: skip
    special = {cls: {"phrases": _ERROR_PHRASES} for _, cls, _, _ in _ERROR_AREAS}
    special["RetryQueue"].update(lib=retry_lib, extras=retry)
    _php_project(root, [*_ERROR_AREAS, *_AREAS[:5]], 45, **special)
    return _settle(sh("phpunit --testdox", root), root)


# ---------------------------------------------------------------- Perl: prove -v -r

_PERL_MODULE = """package Shop::Weight;
use strict;
use warnings;
use Exporter 'import';
our @EXPORT_OK = qw(weight partial jitter);
our $VERSION = '1.04';

sub weight  { my ($cents, $factor) = @_; return ($cents * $factor) % 1000; }
sub partial { my ($cents, $parts) = @_; return int($cents / $parts); }
sub jitter  { my ($attempt) = @_; return 2 ** $attempt; }

1;
"""


def _perl_test(area: str, factor: int, n: int, *, phrases: list[str] = _PHRASES, tail: str = "") -> str:
    lines = ["use strict;", "use warnings;", "use lib 'lib';", "use Test::More;"]
    lines += ["use Shop::Weight qw(weight partial jitter);", ""]
    for i, (desc, c, w) in enumerate(_examples(factor, n, phrases)):
        if i % 12 == 0:
            lines.append(f"note '{area}: amounts from price list {i // 12 + 1}';")
        lines.append(f"is(weight({c}, {factor}), {w}, '{desc}');")
    return "\n".join(lines) + "\n" + tail + "\ndone_testing();\n"


def _perl_project(root: Path, tests: dict[str, str]) -> None:
    write(root, {"lib/Shop/Weight.pm": _PERL_MODULE})
    for rel, text in tests.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


_PERL_FILES = [
    ("billing", "invoice_totals", 7), ("billing", "tax_rates", 17), ("orders", "order_payload", 11),
    ("orders", "cart_store", 3), ("ledger", "entries", 19), ("ledger", "balances", 5), ("pricing", "rules", 23),
    ("refunds", "full", 13), ("refunds", "partial", 13), ("coupons", "engine", 29), ("coupons", "stacking", 31),
    ("shipping", "rates", 37), ("shipping", "labels", 41), ("catalog", "search", 43), ("webhooks", "delivery", 47),
    ("webhooks", "signing", 53), ("audit", "trail", 59), ("session", "store", 61), ("export", "csv", 67),
    ("export", "ledger_csv", 71), ("invoice", "pdf", 73), ("invoice", "numbering", 79), ("auth", "tokens", 83),
    ("search", "ranking", 89),
]  # fmt: skip


@case(
    "u69_prove_verbose_recursive_failure",
    "prove",
    clean=False,
    group=GROUP,
    decisive=[
        "#   Failed test 'partial refund of 1999 cents in 3 parts'",
        "#   at t/refunds/partial.t line",
        "Result: FAIL",
    ],
)
def _prove_failure(root: Path) -> bytes:
    tests = {}
    for area, name, factor in _PERL_FILES:
        tail = ""
        if name == "partial":
            tail = "".join(
                f"is(partial(1999, {p}), {want}, 'partial refund of 1999 cents in {p} parts');\n"
                for p, want in ((2, 999), (3, 667), (4, 499), (5, 399))
            )
        tests[f"t/{area}/{name}.t"] = _perl_test(area, factor, 60, tail=tail)
    _perl_project(root, tests)
    return _settle(sh("prove -v -r t/", root), root)


@case(
    "u69_prove_clean_todo_skip_error_words",
    "prove",
    clean=True,
    group=GROUP,
    decisive=["All tests successful.", "Result: PASS"],
)
def _prove_clean(root: Path) -> bytes:
    todo = (
        "TODO: {\n    local $TODO = 'retry jitter is not randomised yet';\n"
        + "".join(f"    is(jitter({k}), {2**k + 1}, 'retry jitter spreads failed attempt {k}');\n" for k in (2, 3, 4))
        + "}\n"
    )
    skip = (
        "SKIP: {\n    skip 'no SMTP relay for the error report mails in CI', 3;\n"
        + "".join(f"    ok(0, 'mails error report {k}');\n" for k in range(1, 4))
        + "}\n"
    )
    files = [
        ("errors", "error_reporter", 59, skip), ("errors", "exception_tracker", 61, ""),
        ("retry", "retry_queue", 67, todo), ("retry", "failed_payments_job", 71, ""),
        ("retry", "failed_webhooks", 73, ""), ("errors", "error_budget", 79, ""),
        *[(a, n, f, "") for a, n, f in _PERL_FILES[:10]],
    ]  # fmt: skip
    tests = {f"t/{a}/{n}.t": _perl_test(a, f, 50, phrases=_ERROR_PHRASES, tail=t) for a, n, f, t in files}
    _perl_project(root, tests)
    return _settle(sh("prove -v -r t/", root), root)


# ---------------------------------------------------------------- shell: bats


_WEIGHT_SH = "#!/bin/sh\n# weight.sh CENTS FACTOR: the weight of an amount.\necho $(( ($1 * $2) % 1000 ))\n"
_PARTIAL_SH = "#!/bin/sh\n# partial.sh CENTS PARTS: one part of a partial refund.\necho $(( $1 / $2 ))\n"


def _bats_file(area: str, factor: int, n: int, *, phrases: list[str] = _PHRASES, skips=(), tail: str = "") -> str:
    lines = ["setup() {", '  PATH="$BATS_TEST_DIRNAME/../bin:$PATH"', "}", ""]
    for i, (desc, c, w) in enumerate(_examples(factor, n, phrases)):
        lines.append(f'@test "{area}: {desc}" {{')
        if i in skips:
            lines.append('  skip "the sandbox card processor is offline"')
        lines += [f"  run weight.sh {c} {factor}", '  [ "$status" -eq 0 ]', f'  [ "$output" = "{w}" ]', "}", ""]
    return "\n".join(lines) + tail


def _bats_project(root: Path, tests: dict[str, str]) -> None:
    write(root, {"bin/weight.sh": _WEIGHT_SH, "bin/partial.sh": _PARTIAL_SH})
    for script in ("weight.sh", "partial.sh"):
        (root / "bin" / script).chmod(0o755)
    for rel, text in tests.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)


@case(
    "u69_bats_tap_skips_and_failure",
    "bats",
    clean=False,
    group=GROUP,
    decisive=[
        "refunds: partial refund of 1999 in 3 parts rounds up",
        "(in test file test/refunds.bats, line",
        '`[ "$output" = "667" ]\' failed',
    ],
)
def _bats_failure(root: Path) -> bytes:
    tail = "".join(
        f'@test "refunds: partial refund of 1999 in {p} parts {how}" {{\n  run partial.sh 1999 {p}\n'
        f'  [ "$status" -eq 0 ]\n  [ "$output" = "{want}" ]\n}}\n\n'
        for p, want, how in ((2, 999, "rounds down"), (3, 667, "rounds up"), (4, 499, "rounds down"))
    )
    tests = {}
    for area, _, factor in _PERL_FILES[::2]:
        skips = (5, 17) if area in ("coupons", "webhooks") else ()
        tests[f"test/{area}.bats"] = _bats_file(area, factor, 26, skips=skips, tail=tail if area == "refunds" else "")
    _bats_project(root, tests)
    return _settle(sh("bats -r test/", root), root)


@case(
    "u69_bats_tap13_clean_error_words",
    "bats",
    clean=True,
    group=GROUP,
    decisive=["bats exit code: 0"],
)
def _bats_clean(root: Path) -> bytes:
    names = [("errors", 59), ("failed_payments", 61), ("retry", 67), ("exceptions", 71), ("failed_webhooks", 73)]
    names += [(a, f) for a, _, f in _PERL_FILES[:12:2]]
    tests = {}
    for area, factor in names:
        skips = (3, 11, 19) if area in ("retry", "failed_webhooks") else ()
        tests[f"test/{area}.bats"] = _bats_file(area, factor, 30, phrases=_ERROR_PHRASES, skips=skips)
    _bats_project(root, tests)
    return _settle(sh('bats --formatter tap13 -r test/; echo "bats exit code: $?"', root), root)
