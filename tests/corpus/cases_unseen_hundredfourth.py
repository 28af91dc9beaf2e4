"""Held-out outputs (group ``unseen-104``): a hundred-and-fourth batch, GNU Octave and numerical scripting as an agent
runs them on a generated payments-analytics project, all from Debian packages and offline: ``octave-cli`` scripts
over 150 function files, Octave's own ``test`` and ``runtests``, ``gnuplot`` scripts, ``maxima --batch`` and ``bc``.

Failing runs: an Octave report script over 150 functions that dies with ``out of bound`` and its ``error: called
from`` stack, a shell loop of 14 month-end Octave scripts where the fifth calls an undefined function (the loop goes
on), ``test(name, "verbose")`` over 90 function files with one failing ``%!assert`` in the middle, an Octave run full
of ``warning: implicit conversion`` and ``division by zero`` warnings that ends in a parse error in one file, a shell
loop of 16 gnuplot scripts where one has an unrecognized plot type, ``maxima --batch`` that multiplies
nonconformable matrices, and ``bc -l`` over 300 merchants with a division by zero in the middle (bc goes on). Clean
runs named after errors and failures: ``runtests`` over 200 files (``failed_payments_*``, ``error_rate_*``,
``retry_queue_*``, ``exception_report_*``), an Octave report of failed payments and error rates, gnuplot ``stats``
and plots of the same series, and a maxima batch of the retry and error-rate model. Labels were written with each
scenario, before the engine saw the output. Needs GNU Octave, gnuplot, maxima and bc (Debian ``octave``,
``gnuplot-nox``, ``maxima``, ``bc``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-104"

_OCTAVE = "octave-cli --norc --no-gui --no-history"

_AREAS = [
    "failed_payments", "error_rate", "retry_queue", "exception_report", "chargebacks", "refunds", "settlement",
    "ledger", "invoice", "payouts", "fraud_score", "billing",
]  # fmt: skip
_METRICS = [
    "total", "by_merchant", "daily", "weekly", "median", "p95", "trend", "count", "ratio", "window", "summary",
    "forecast", "backlog",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"Elapsed time is [0-9.e+-]+ seconds\.", "Elapsed time is 0.01 seconds."),
        (r"\(\d+\.\d+ s\)", "(0.01 s)"),
    )


def _names(count: int) -> list[str]:
    return [f"{a}_{m}" for m in _METRICS for a in _AREAS][:count]


def _params(k: int) -> tuple[int, int, int]:
    return 7 + (k * 13) % 29, 31 + (k * 7) % 17, 2 + k % 9


def _value(k: int, n: int) -> float:
    a, b, c = _params(k)
    return sum(((i * a) % b + c) * i for i in range(1, n + 1)) / n


def _function(name: str, k: int, *, wrong: int | None = None) -> str:
    """An Octave function file with its own tests; ``wrong`` writes a wrong expected value in the second assert."""
    a, b, c = _params(k)
    area = name.split("_", 1)[0]
    second = wrong if wrong is not None else f"{_value(k, 5):.10g}"
    return (
        f"function out = {name} (n)\n"
        f"  % {name}: {area} figure for the payments analytics report.\n"
        "  if (nargin < 1)\n    n = 12;\n  end\n"
        f"  v = mod ((1:n) * {a}, {b}) + {c};\n"
        "  out = sum (v .* (1:n)) / n;\n"
        "end\n\n"
        f"%!assert ({name} (1), {_value(k, 1):.10g})\n"
        f"%!assert ({name} (5), {second}, 1e-9)\n"
        "%!test\n"
        f"%! x = {name} (10);\n"
        "%! assert (isscalar (x));\n"
        "%! assert (x > 0);\n"
        "%!test\n"
        f"%! y = arrayfun (@{name}, 1:6);\n"
        "%! assert (numel (y), 6);\n"
    )


def _library(root: Path, count: int, *, folder: str = "lib", wrong: dict[str, int] | None = None) -> list[str]:
    names = _names(count)
    wrong = wrong or {}
    write(root, {f"{folder}/{n}.m": _function(n, k, wrong=wrong.get(n)) for k, n in enumerate(names)})
    return names


def _report_script(names: list[str], extra: str = "", title: str = "payments analytics") -> str:
    cells = ", ...\n  ".join(", ".join(f"'{n}'" for n in names[i : i + 5]) for i in range(0, len(names), 5))
    return (
        "addpath (fullfile (pwd, 'lib'));\n"
        f"printf ('%s\\n', '{title}: monthly figures');\n"
        f"names = {{ ...\n  {cells}}};\n"
        "for k = 1:numel (names)\n"
        "  fn = names{k};\n"
        "  n = 8 + mod (k, 7);\n"
        "  figures = arrayfun (@(m) feval (fn, m), 1:n);\n"
        "  printf ('== %-34s n=%2d mean=%12.4f max=%12.4f\\n', fn, n, mean (figures), max (figures));\n"
        "  by_week = reshape (figures(1:8), 2, 4)\n"
        "  fflush (stdout);\n"
        "end\n" + extra
    )


# ---------------------------------------------------------------- octave scripts


@case(
    "u104_octave_report_out_of_bound",
    "octave-cli run_payments_report.m (150 functions; refunds_allocation indexes past the ledger split)",
    clean=False,
    group=GROUP,
    decisive=["out of bound 12", "ledger_split at line 4 column", "[exit status 1]"],
)
def _octave_out_of_bound(root: Path) -> bytes:
    names = _library(root, 150)
    write(
        root,
        {
            "lib/ledger_split.m": """
                function parts = ledger_split (amounts, buckets)
                  % ledger_split: split settled amounts into ledger buckets.
                  idx = mod (0:numel (amounts) - 1, buckets) + 1;
                  parts = accumarray (idx(:), amounts(:))(1:buckets + 1);
                end
            """,
            "lib/refunds_allocation.m": """
                function alloc = refunds_allocation (refunds)
                  % refunds_allocation: refunds spread over the 12 ledger buckets.
                  alloc = ledger_split (refunds, 12);
                end
            """,
        },
    )
    extra = (
        "printf ('allocating refunds over the ledger buckets\\n');\n"
        "alloc = refunds_allocation (arrayfun (@refunds_total, 1:40))\n"
        "printf ('report complete\\n');\n"
    )
    write(root, {"run_payments_report.m": _report_script(names, extra)})
    return _settle(sh(f"{_OCTAVE} run_payments_report.m", root), root)


def _month_script(area: str, names: list[str], call: str = "") -> str:
    body = _report_script(names, title=f"month-end close: {area}")
    return body + call + f"printf ('{area}: close complete, %d figures\\n', numel (names));\n"


@case(
    "u104_octave_loop_undefined_function",
    "for s in scripts/close_*.m; do octave-cli $s; done (14 month-end scripts; the fifth calls an undefined function)",
    clean=False,
    group=GROUP,
    decisive=[
        "'chargeback_fee_schedule' undefined",
        "scripts/close_05_chargebacks.m at line 15",
        "octave exited 1 for",
    ],
)
def _octave_loop_undefined(root: Path) -> bytes:
    names = _library(root, 156)
    files = {}
    for i, area in enumerate([*_AREAS, "audit", "webhooks"], start=1):
        own = [n for n in names if n.startswith(area)] or names[i * 5 : i * 5 + 10]
        call = ""
        if area == "chargebacks":
            call = "fees = chargeback_fee_schedule (numel (names), 0.015);\n"
        files[f"scripts/close_{i:02d}_{area}.m"] = _month_script(area, own, call)
    write(root, files)
    cmd = f'for s in scripts/close_*.m; do echo "### $s"; {_OCTAVE} "$s" || echo "octave exited $? for $s"; done'
    return _settle(sh(cmd, root), root)


@case(
    "u104_octave_report_clean",
    "octave-cli failed_payments_report.m (120 functions named failed_payments, error_rate, retry_queue; clean)",
    clean=True,
    group=GROUP,
    decisive=["failed payments report written: 120 figures"],
)
def _octave_report_clean(root: Path) -> bytes:
    names = _library(root, 120)
    extra = (
        "rates = arrayfun (@error_rate_total, 1:24);\n"
        "printf ('error_rate over 24 months: min=%.4f max=%.4f\\n', min (rates), max (rates));\n"
        "retry_queue = arrayfun (@retry_queue_total, 1:10)\n"
        "printf ('failed payments report written: %d figures\\n', numel (names));\n"
    )
    write(root, {"failed_payments_report.m": _report_script(names, extra, title="failed payments report")})
    return _settle(sh(f"{_OCTAVE} failed_payments_report.m", root), root)


@case(
    "u104_octave_parse_error_among_warnings",
    "octave-cli reconcile_merchants.m (300 merchants: conversion and division warnings, then a parse error)",
    clean=False,
    group=GROUP,
    decisive=["parse error near line 6 of file /tmp/work/lib/settlement_fees.m", ">>>   fees = rates .* volume +"],
)
def _octave_parse_error(root: Path) -> bytes:
    write(
        root,
        {
            "lib/merchant_label.m": """
                function s = merchant_label (id, rate)
                  % merchant_label: a display label with the merchant's error rate code.
                  s = ['M', sprintf('%04d', id), ' ', 65 + mod(id, 26)];
                  if (rate > 0.05)
                    s = [s, ' high error_rate'];
                  end
                end
            """,
            "lib/error_rate_for.m": """
                function r = error_rate_for (failed, attempts, id)
                  % error_rate_for: failed payments over attempts.
                  if (attempts == 0)
                    warning ('payments:div0', 'division by zero in error_rate for merchant %d', id);
                  end
                  r = failed / attempts;
                end
            """,
            "lib/settlement_fees.m": """
                function fees = settlement_fees (volume, rates)
                  % settlement_fees: per-merchant settlement fees.
                  if (nargin < 2)
                    rates = 0.015;
                  end
                  fees = rates .* volume + ;
                end
            """,
            "reconcile_merchants.m": """
                addpath (fullfile (pwd, 'lib'));
                printf ('reconciling 300 merchants\\n');
                total = 0;
                for id = 1:300
                  attempts = mod (id * 37, 50) * (mod (id, 11) != 0);
                  failed = mod (id * 7, 5);
                  rate = error_rate_for (failed, attempts, id);
                  label = merchant_label (id, rate);
                  printf ('%s attempts=%3d failed=%d error_rate=%.4f\\n', label, attempts, failed, rate);
                  total = total + attempts;
                end
                printf ('attempts total: %d\\n', total);
                fees = settlement_fees (total)
                printf ('reconciliation complete\\n');
            """,
        },
    )
    return _settle(sh(f"{_OCTAVE} reconcile_merchants.m", root), root)


# ---------------------------------------------------------------- octave tests


@case(
    "u104_octave_test_verbose_failing_assert",
    "octave-cli run_tests.m (test(name, 'verbose') over 90 function files; retry_queue_weekly's second assert fails)",
    clean=False,
    group=GROUP,
    decisive=[
        ">>>>> /tmp/work/lib/retry_queue_weekly.m",
        "ASSERT errors for:  assert (retry_queue_weekly (5),480,1e-9)",
    ],
)
def _octave_test_failing(root: Path) -> bytes:
    names = _library(root, 90, wrong={"retry_queue_weekly": 480})
    listing = ", ...\n  ".join(", ".join(f"'{n}'" for n in names[i : i + 5]) for i in range(0, len(names), 5))
    write(
        root,
        {
            "run_tests.m": (
                "addpath (fullfile (pwd, 'lib'));\n"
                f"names = {{ ...\n  {listing}}};\n"
                "for k = 1:numel (names)\n"
                "  test (names{k}, 'verbose');\n"
                "  fflush (stdout);\n"
                "end\n"
                "printf ('ran the tests of %d files\\n', numel (names));\n"
            )
        },
    )
    return _settle(sh(f"{_OCTAVE} run_tests.m", root), root)


@case(
    "u104_octave_runtests_clean",
    "octave-cli --eval runtests (200 files in 4 folders named failed_payments, error_rate, retry_queue; clean)",
    clean=True,
    group=GROUP,
    decisive=["exception_report_backlog.m ......"],
)
def _octave_runtests_clean(root: Path) -> bytes:
    names = _names(156)
    groups = {
        "payments": [n for n in names if n.split("_")[0] in ("failed", "chargebacks", "refunds", "settlement")],
        "errors": [n for n in names if n.split("_")[0] in ("error", "fraud", "billing")],
        "retries": [n for n in names if n.split("_")[0] in ("retry", "ledger", "invoice", "payouts")],
        "exceptions": [n for n in names if n.startswith("exception")],
    }
    for folder, members in groups.items():
        write(root, {f"{folder}/{n}.m": _function(n, names.index(n)) for n in members})
        write(root, {f"{folder}/{folder}_helper_{i}.m": f"function x = {folder}_helper_{i} ()\n  x = {i};\nend\n"
                     for i in range(11)})  # fmt: skip
    folders = ", ".join(f"'{f}'" for f in groups)
    cmd = (
        f'{_OCTAVE} --eval "dirs = {{{folders}}}; for d = dirs, addpath (fullfile (pwd, d{{1}})); end; '
        'for d = dirs, runtests (d{1}); end"'
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- gnuplot


def _series(k: int, rows: int = 60) -> str:
    return "".join(f"{i} {((i * (k + 3)) % 47) / 10:.2f} {((i * 7 + k) % 31) + 5}\n" for i in range(1, rows + 1))


def _plot_script(name: str, style: str = "linespoints") -> str:
    return (
        "set terminal dumb size 110,28\n"
        f"set title '{name.replace('_', ' ')} by day'\n"
        "set xlabel 'day'\nset ylabel 'count'\n"
        f"plot 'data/{name}.dat' using 1:2 with {style} title '{name}', \\\n"
        f"     'data/{name}.dat' using 1:($3/10) with lines title '{name} attempts'\n"
        f"stats 'data/{name}.dat' using 2 name 'S' nooutput\n"
        f"print sprintf('{name}: mean=%.3f max=%.3f', S_mean, S_max)\n"
    )


@case(
    "u104_gnuplot_loop_bad_plot_type",
    "for f in plots/*.gp; do gnuplot $f; done (16 dumb-terminal scripts; chargebacks has 'with histogramz')",
    clean=False,
    group=GROUP,
    decisive=['"plots/06_chargebacks_daily.gp" line 6: unrecognized plot type', "with histogramz title"],
)
def _gnuplot_fail(root: Path) -> bytes:
    files = {}
    for k, area in enumerate([*_AREAS, "audit", "webhooks", "coupons", "tax"]):
        name = f"{area}_daily"
        files[f"data/{name}.dat"] = _series(k)
        style = "histogramz" if area == "chargebacks" else "linespoints"
        files[f"plots/{k + 2:02d}_{name}.gp"] = _plot_script(name, style)
    write(root, files)
    return _settle(sh('for f in plots/*.gp; do echo "### $f"; gnuplot "$f"; done', root), root)


@case(
    "u104_gnuplot_stats_clean",
    "gnuplot error_rates.gp (stats and plots of failed_payments, error_rate, retry_queue, exception_report; clean)",
    clean=True,
    group=GROUP,
    decisive=["plotted 12 series of failed payments and error rates"],
)
def _gnuplot_clean(root: Path) -> bytes:
    files = {}
    parts = []
    for k, area in enumerate(_AREAS):
        files[f"data/{area}.dat"] = _series(k, 90)
        parts.append(
            f"set title '{area}'\nplot 'data/{area}.dat' using 1:2 with lines title '{area}'\n"
            f"stats 'data/{area}.dat' using 1:2\n"
        )
    script = "set terminal dumb size 100,24\n" + "".join(parts)
    files["error_rates.gp"] = script + "print 'plotted 12 series of failed payments and error rates'\n"
    write(root, files)
    return _settle(sh("gnuplot error_rates.gp", root), root)


# ---------------------------------------------------------------- maxima


def _maxima_body(count: int) -> str:
    lines = []
    for k in range(1, count + 1):
        area = _AREAS[k % len(_AREAS)]
        lines.append(f"{area}_{k}(t) := ({k} + t)^{2 + k % 3} * exp(-t/{k + 1});")
        lines.append(f"expand(diff({area}_{k}(t), t));")
        lines.append(f"integrate({area}_{k}(t), t, 0, 1);")
        lines.append("float(%);")
    return "\n".join(lines) + "\n"


@case(
    "u104_maxima_batch_nonconformable",
    "maxima --batch payouts_model.mac (60 payout curves, then a 3x3 retry matrix times a 4-vector)",
    clean=False,
    group=GROUP,
    decisive=[
        "MULTIPLYMATRICES: attempt to multiply nonconformable matrices.",
        "(%i244) settled:retry_matrix . payouts",
    ],
)
def _maxima_fail(root: Path) -> bytes:
    tail = (
        "retry_matrix: matrix([0.7,0.2,0.1],[0.1,0.8,0.1],[0,0.3,0.7]);\n"
        "payouts: matrix([120],[80],[45],[30]);\n"
        "settled: retry_matrix . payouts;\n"
        'print("settled payouts:", settled);\n'
    )
    write(root, {"payouts_model.mac": _maxima_body(60) + tail})
    return _settle(sh("maxima -q --batch=payouts_model.mac", root), root)


@case(
    "u104_maxima_batch_clean",
    "maxima --batch error_rate_model.mac (failed payments and retry curves; clean)",
    clean=True,
    group=GROUP,
    decisive=["expected failed payments after retries"],
)
def _maxima_clean(root: Path) -> bytes:
    tail = (
        "retry_matrix: matrix([0.7,0.2,0.1],[0.1,0.8,0.1],[0,0.3,0.7]);\n"
        "failed_payments: matrix([120],[80],[45]);\n"
        "after: retry_matrix . failed_payments;\n"
        'print("expected failed payments after retries:", float(after[1][1] + after[2][1] + after[3][1]));\n'
    )
    write(root, {"error_rate_model.mac": _maxima_body(50) + tail})
    return _settle(sh("maxima -q --batch=error_rate_model.mac", root), root)


# ---------------------------------------------------------------- bc


@case(
    "u104_bc_fee_rates_divide_by_zero",
    "bc -l merchant_fees.bc (fee and error rates of 300 merchants; merchant 0163 has no volume)",
    clean=False,
    group=GROUP,
    decisive=["Divide by zero"],
)
def _bc_fail(root: Path) -> bytes:
    lines = ["scale=6"]
    for m in range(1, 301):
        volume = 0 if m == 163 else 1000 + (m * 389) % 9000
        fees = 15 + (m * 17) % 140
        failed = (m * 7) % 23
        lines.append(f"v={volume}; f={fees}; e={failed}")
        lines.append(f'print "merchant {m:04d} volume=", v, " fee_rate=", f/v, " error_rate=", e/v, "\\n"')
    lines.append('print "fee rates computed for 300 merchants\\n"')
    write(root, {"merchant_fees.bc": "\n".join(lines) + "\n"})
    return _settle(sh("BC_LINE_LENGTH=0 bc -l merchant_fees.bc </dev/null", root), root)
