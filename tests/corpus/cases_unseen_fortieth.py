"""Held-out outputs (group ``unseen-40``): a fortieth batch, numerical and scientific computing as an agent runs it:
MPI and OpenMP programs, Fortran builds, numba, Cython, numpy/scipy scripts and tests, gnuplot and maxima.

Failing runs: ``mpirun -np 4`` of a Jacobi ledger smoother whose rank 2 diverges and calls ``MPI_Abort`` after hundreds
of progress lines from every rank (Open MPI's abort banner; a run where the banner is lost in transit, about one in
eight, is run again), ``make -k`` of 40 Fortran modules where one uses an undeclared variable among many ``-Wall``
warnings, a numba script whose jitted coupon function hits a ``TypingError`` after hundreds of result lines, ``pytest
-v`` of 400 numerical tests where one fails in ``numpy.testing.assert_allclose``, a scipy ``newton`` calibration over
600 SKUs where one fails to converge, ``gnuplot`` of 30 dumb-terminal plots where one data file has too few columns, and
``maxima --batch`` of a billing script with a division by zero in the middle. Clean runs named after errors and
failures: the same MPI smoother converging, an OpenMP retry scheduler with ``OMP_DISPLAY_ENV=verbose`` reporting 0
failed jobs, ``setup.py build_ext`` cythonizing 20 modules (``errors.pyx``, ``retry.pyx``) with unused-entry warnings,
``pytest`` of ``test_error_*`` tests that all pass with warnings, and scipy ``quad`` integrations of refund curves that
print ``IntegrationWarning`` but finish. Labels were written with each scenario, before the engine saw the output. Needs
Open MPI, gcc, gfortran, make, gnuplot and maxima (Debian ``openmpi-bin``, ``libopenmpi-dev``, ``gcc``, ``gfortran``,
``make``, ``gnuplot-nox``, ``maxima``), with numba, scipy, Cython and pytest from PyPI (downloaded once as wheels into
``/tmp/offloader-corpus-wheels``, then installed in each scenario's ``tools`` folder).
"""

from __future__ import annotations

import socket
from pathlib import Path

from _harness import PIP_ISOLATED, PY, WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-40"

_SCI = (
    "numba==0.68.1 llvmlite==0.50.0 numpy==2.4.6 scipy==1.17.1 Cython==3.3.1 setuptools==75.6.0 "
    "pytest==8.3.3 iniconfig==2.3.1 packaging==26.4 pluggy==1.7.0"
)
#: Where the pinned wheels are kept between runs (downloaded from PyPI once).
_WHEELS = Path("/tmp/offloader-corpus-wheels/u40-sci")


def _sci(root: Path) -> str:
    """The pinned scientific stack installed in ``root/tools``; the environment prefix that runs it."""
    if not (_WHEELS / ".complete").exists():
        sh(f"{PIP_ISOLATED} {PY} -m pip download -q -d {_WHEELS} {_SCI} && touch {_WHEELS / '.complete'}", root)
    tools = root / "tools"
    sh(f"{PIP_ISOLATED} {PY} -m pip install -q --no-index --find-links {_WHEELS} --target {tools} {_SCI}", root)
    return (
        f"{PIP_ISOLATED} PYTHONPATH={tools} PATH={tools / 'bin'}:$PATH PYTHONHASHSEED=0 PYTHONDONTWRITEBYTECODE=1"
        f" NUMBA_CACHE_DIR={root / 'numba-cache'} HOME={root}"
    )


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, the host name, PIDs, durations."""
    return substitute(
        scrub(out, root),
        (r"\b" + socket.gethostname() + r"\b", "node1"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"\[node1:\d+\]", "[node1:1000]"),
        (r"PID \d+", "PID 1000"),
        (r" in \d+\.\d+s( \(\d+:\d+:\d+\))?", " in 1.00s"),
    )


# ---------------------------------------------------------------- Open MPI

_JACOBI = r"""
#include <math.h>
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

/* ledger_smooth: Jacobi smoothing of daily ledger balances, one block of rows per rank. */
#define ROWS 4096
#define MAX_ITER 400
#define TOL 1e-10
#define LIMIT 1e6

int main(int argc, char **argv) {
    int rank, size;
    MPI_Init(&argc, &argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    MPI_Comm_size(MPI_COMM_WORLD, &size);
    double bad_weight = argc > 1 ? atof(argv[1]) : 0.45;
    int n = ROWS / size, lo = rank * n;
    double *x = calloc(n + 2, sizeof(double)), *y = calloc(n + 2, sizeof(double));
    double *b = calloc(n + 2, sizeof(double)), all[64];
    double w = rank == 2 ? bad_weight : 0.45;
    for (int i = 1; i <= n; i++) b[i] = 1.0 + ((lo + i) % 17) * 0.01;
    if (rank == 0) printf("ledger_smooth: %d rows on %d ranks, weight %.2f, tolerance %.0e\n", ROWS, size, 0.45, TOL);
    for (int it = 1; it <= MAX_ITER; it++) {
        int left = rank - 1, right = rank + 1;
        if (left >= 0)
            MPI_Sendrecv(&x[1], 1, MPI_DOUBLE, left, 0, &x[0], 1, MPI_DOUBLE, left, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        if (right < size)
            MPI_Sendrecv(&x[n], 1, MPI_DOUBLE, right, 0, &x[n + 1], 1, MPI_DOUBLE, right, 0, MPI_COMM_WORLD,
                         MPI_STATUS_IGNORE);
        double local = 0.0;
        for (int i = 1; i <= n; i++) {
            y[i] = b[i] + w * (x[i - 1] + x[i + 1]);
            local = fmax(local, fabs(y[i] - x[i]));
        }
        for (int i = 1; i <= n; i++) x[i] = y[i];
        MPI_Gather(&local, 1, MPI_DOUBLE, all, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
        double global;
        MPI_Allreduce(&local, &global, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
        if (rank == 0) {
            for (int r = 0; r < size; r++)
                printf("[rank %d] iter %3d rows %4d..%4d local residual %.6e\n", r, it, r * n, (r + 1) * n - 1, all[r]);
            printf("iter %3d global residual %.6e\n", it, global);
            fflush(stdout);
        }
        if (global > LIMIT) {
            MPI_Barrier(MPI_COMM_WORLD);
            if (local > LIMIT) {
                usleep(500000);
                fprintf(stderr,
                        "ledger_smooth: rank %d: residual %.3e exceeds limit %.0e in rows %d..%d at iteration %d\n",
                        rank, local, LIMIT, lo, lo + n - 1, it);
                fflush(stderr);
                MPI_Abort(MPI_COMM_WORLD, 3);
            }
            sleep(5);
        }
        if (global < TOL) {
            if (rank == 0)
                printf("ledger_smooth: converged after %d iterations, 0 errors, %d balances reconciled\n", it, ROWS);
            break;
        }
    }
    MPI_Finalize();
    return 0;
}
"""

_MPIRUN = (
    "OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy"
    "_mechanism=none OMPI_MCA_rmaps_base_oversubscribe=1 mpirun --oversubscribe -np 4"
)


def _mpi(root: Path, weight: str) -> bytes:
    """The smoother built and run; a run whose abort banner was lost on its way to ``mpirun`` (about one in eight:
    ``ORTE_ERROR_LOG`` from ``show_help.c`` in its place) is run again, at most four times in all."""
    write(root, {"src/ledger_smooth.c": _JACOBI})
    sh("mpicc -O2 -o ledger_smooth src/ledger_smooth.c -lm", root)
    for _ in range(4):
        out = sh(f"{_MPIRUN} ./ledger_smooth {weight}", root)
        if b"ORTE_ERROR_LOG" not in out:
            break
    return _settle(out, root)


@case(
    "u40_mpirun_ledger_smooth_converged_clean",
    "mpirun --oversubscribe -np 4 ./ledger_smooth (Jacobi smoothing, every rank's residual each iteration)",
    clean=True,
    group=GROUP,
    decisive=["ledger_smooth: converged after", "0 errors, 4096 balances reconciled"],
)
def _mpi_clean(root: Path) -> bytes:
    return _mpi(root, "0.45")


@case(
    "u40_mpirun_ledger_smooth_rank2_abort",
    "mpirun --oversubscribe -np 4 ./ledger_smooth 0.55 (rank 2 diverges and calls MPI_Abort)",
    clean=False,
    group=GROUP,
    decisive=[
        "ledger_smooth: rank 2: residual",
        "MPI_ABORT was invoked on rank 2 in communicator MPI_COMM_WORLD",
        "with errorcode 3.",
        "[exit status 3]",
    ],
)
def _mpi_abort(root: Path) -> bytes:
    return _mpi(root, "0.55")


# ---------------------------------------------------------------- OpenMP

_RETRY_OMP = r"""
#include <omp.h>
#include <stdio.h>

/* retry_scheduler: backoff slots for failed_jobs, computed in parallel, printed by the master thread. */
#define JOBS 600

int main(void) {
    static long slot[JOBS];
    static int failed_jobs[JOBS];
    long total = 0;
    int failed = 0;
#pragma omp parallel for reduction(+ : total, failed) schedule(static)
    for (int j = 0; j < JOBS; j++) {
        long delay = 100;
        for (int attempt = 0; attempt < j % 7; attempt++) delay = delay * 2 > 60000 ? 60000 : delay * 2;
        slot[j] = delay + (j * 37) % 250;
        failed_jobs[j] = slot[j] > 60250;
        total += slot[j];
        failed += failed_jobs[j];
    }
    for (int j = 0; j < JOBS; j++)
        printf("retry job %4d queue %-10s attempts %d next slot %6ld ms errors 0\n", j,
               j % 3 == 0 ? "billing" : j % 3 == 1 ? "webhooks" : "exports", j % 7, slot[j]);
    printf("retry_scheduler: %d jobs scheduled, total backoff %ld ms, failed_jobs: %d, errors: 0\n", JOBS, total,
           failed);
    return failed != 0;
}
"""


@case(
    "u40_openmp_retry_scheduler_clean",
    "gcc -fopenmp retry_scheduler.c && OMP_DISPLAY_ENV=verbose OMP_NUM_THREADS=2 ./retry_scheduler",
    clean=True,
    group=GROUP,
    decisive=["retry_scheduler: 600 jobs scheduled", "failed_jobs: 0, errors: 0"],
)
def _openmp_clean(root: Path) -> bytes:
    write(root, {"src/retry_scheduler.c": _RETRY_OMP})
    out = sh(
        "gcc -O2 -Wall -fopenmp -o retry_scheduler src/retry_scheduler.c && "
        "OMP_DISPLAY_ENV=verbose OMP_NUM_THREADS=2 OMP_PROC_BIND=false ./retry_scheduler",
        root,
    )
    return _settle(out, root)


# ---------------------------------------------------------------- gfortran


def _fortran_module(area: str, kind: str, broken: bool) -> str:
    decl = "" if broken else "    real(8) :: total\n"
    return (
        f"module {area}_{kind}\n  implicit none\ncontains\n"
        f"  subroutine {area}_{kind}_sum(amounts, n, result)\n"
        "    integer, intent(in) :: n\n    real(8), intent(in) :: amounts(n)\n    real(8), intent(out) :: result\n"
        f"{decl}    real(8) :: scratch, unused_rate\n    integer :: i, retry_count\n"
        "    total = 0d0\n    do i = 1, n\n      total = total + amounts(i)\n    end do\n"
        "    result = total\n"
        f"  end subroutine {area}_{kind}_sum\nend module {area}_{kind}\n"
    )


@case(
    "u40_gfortran_make_k_undeclared_total",
    "make -k (gfortran -Wall -c of 40 modules; exceptions_rules.f90 uses an undeclared variable)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/exceptions_rules.f90:10:9:",
        "Error: Symbol ‘total’ at (1) has no IMPLICIT type",
        "make: *** [Makefile:8: build/exceptions_rules.o] Error 1",
        "[exit status 2]",
    ],
)
def _gfortran_fail(root: Path) -> bytes:
    files = {}
    objs = []
    for area in WORDS:
        for kind in ("rules", "totals"):
            files[f"src/{area}_{kind}.f90"] = _fortran_module(area, kind, area == "exceptions" and kind == "rules")
            objs.append(f"build/{area}_{kind}.o")
    files["Makefile"] = (
        "FC = gfortran\nFFLAGS = -O2 -Wall -Jbuild\n\nall: " + " ".join(objs) + "\n\n"
        "build/%.o: src/%.f90\n\t@mkdir -p build\n\t$(FC) $(FFLAGS) -c $< -o $@\n"
    )
    (root / "src").mkdir()
    for rel, text in files.items():
        (root / rel).write_text(text)
    return _settle(sh("make -k", root), root)


# ---------------------------------------------------------------- numba

_NUMBA_SCRIPT = '''
"""Price every order line with jitted kernels, then apply the coupon table."""
import numpy as np
from numba import njit


@njit(cache=False)
def line_total(qty, unit_price, tax_rate):
    return qty * unit_price * (1.0 + tax_rate)


@njit(cache=False)
def apply_coupons(totals, coupons):
    out = np.empty_like(totals)
    for i in range(totals.shape[0]):
        code = coupons[i % len(coupons)]
        out[i] = totals[i] - code
    return out


def main():
    rng = np.random.default_rng(40)
    qty = rng.integers(1, 9, size=400)
    price = np.round(rng.uniform(1, 90, size=400), 2)
    totals = np.empty(400)
    for i in range(400):
        totals[i] = line_total(qty[i], price[i], 0.2)
        print(f"orders line {i:4d} qty {qty[i]} unit {price[i]:7.2f} total {totals[i]:9.2f}", flush=True)
    print("pricing: 400 order lines priced, applying coupons", flush=True)
    coupons = ["SPRING10", "RETRY5", "BILLING20"]
    discounted = apply_coupons(totals, coupons)
    print(f"pricing: coupons applied, sum {discounted.sum():.2f}")


main()
'''


@case(
    "u40_numba_apply_coupons_typing_error",
    "python price_orders.py (numba njit; apply_coupons subtracts a coupon code string from a float)",
    clean=False,
    group=GROUP,
    decisive=[
        "numba.core.errors.TypingError: Failed in nopython mode pipeline (step: nopython frontend)",
        "No implementation of function Function(<built-in function sub>) found for signature:",
        "out[i] = totals[i] - code",
        "[exit status 1]",
    ],
)
def _numba_fail(root: Path) -> bytes:
    env = _sci(root)
    write(root, {"pricing/price_orders.py": _NUMBA_SCRIPT})
    return _settle(sh(f"{env} python pricing/price_orders.py", root, timeout=170), root)


# ---------------------------------------------------------------- Cython

_PYX = """
# cython: language_level=3
\"\"\"{area} counters, compiled.\"\"\"


cdef double {area}_weight(double value, int retry):
    if retry > 3:
        raise ValueError("too many retries for {area}")
    return value * (1.0 + 0.1 * retry)


def {area}_errors_total(list values, int retry=0):
    cdef double total = 0
    cdef double scratch = 0
    cdef Py_ssize_t i
    for i in range(len(values)):
        total += {area}_weight(values[i], retry)
    return total
"""


@case(
    "u40_cythonize_20_modules_warnings_clean",
    "python setup.py build_ext --inplace (cythonize of 20 .pyx modules: errors.pyx, retry.pyx, ...), import check",
    clean=True,
    group=GROUP,
    decisive=["[20/20] Cythonizing", "imported 20 compiled modules, 0 errors"],
)
def _cython_clean(root: Path) -> bytes:
    env = _sci(root)
    files = {f"ext/{area}.pyx": _PYX.format(area=area) for area in WORDS}
    files["setup.py"] = """
        from Cython.Build import cythonize
        from setuptools import setup

        setup(
            name="errors-counters",
            ext_modules=cythonize("ext/*.pyx", compiler_directives={"warn.unused": True, "warn.unused_arg": True}),
        )
        """
    files["check.py"] = (
        "import importlib, sys\nsys.path.insert(0, 'ext')\nnames = " + repr(WORDS) + "\n"
        "for n in names:\n    m = importlib.import_module(n)\n"
        "    print(n, getattr(m, n + '_errors_total')([1.0, 2.0, 3.0], 1))\n"
        "print(f'imported {len(names)} compiled modules, 0 errors')\n"
    )
    write(root, files)
    out = sh(f"{env} python setup.py build_ext --inplace && {env} python check.py", root, timeout=175)
    return _settle(out, root)


# ---------------------------------------------------------------- pytest with numpy


def _numeric_tests(root: Path, failing: bool) -> None:
    files = {"tests/__init__.py": ""}
    for area in WORDS:
        body = [
            "import numpy as np",
            "import pytest",
            "from numpy.testing import assert_allclose",
            "",
            "",
            "@pytest.mark.parametrize('k', range(19))",
            f"def test_error_{area}_rate_stable(k):",
            "    x = np.linspace(0, 1, 1000)",
            "    assert_allclose(np.sin(x) ** 2 + np.cos(x) ** 2, np.ones(1000) * (1 + 0 * k), rtol=1e-12)",
            "",
        ]
        if area == "tax":
            body += [
                "",
                "def test_tax_curve_matches_reference():",
                "    x = np.linspace(0, 1, 1000)",
                "    reference = np.round(0.2 * x, 6)",
                "    got = 0.2 * x",
                "    got[[137, 512, 901]] += 5e-4  # the rounding step of the tax curve" if failing else "",
                "    assert_allclose(got, reference, atol=1e-6)",
                "",
            ]
        else:
            body += [
                "",
                f"def test_error_{area}_ratio_warns():",
                "    r = np.array([2.0, 4.0]) / np.array([2.0, 4.0])",
                "    assert_allclose(r, [1.0, 1.0])",
                "",
            ]
        files[f"tests/test_{area}.py"] = "\n".join(body)
    write(root, files)


@case(
    "u40_pytest_assert_allclose_tax_curve",
    "pytest -v of 400 numerical tests (numpy.testing.assert_allclose fails in one)",
    clean=False,
    group=GROUP,
    decisive=[
        "FAILED tests/test_tax.py::test_tax_curve_matches_reference",
        "Mismatched elements: 3 / 1000 (0.3%)",
        "1 failed, 399 passed",
        "[exit status 1]",
    ],
)
def _pytest_fail(root: Path) -> bytes:
    env = _sci(root)
    _numeric_tests(root, failing=True)
    return _settle(sh(f"{env} python -m pytest -p no:cacheprovider -v tests", root), root)


_WARN_TESTS = """
import numpy as np
import pytest


@pytest.mark.parametrize("n", range(12))
def test_error_{area}_nan_mean_warns(n):
    data = np.full(4 + n, np.nan)
    assert np.isnan(np.mean(data))
    assert data.shape == (4 + n,)


def test_error_{area}_divide_by_zero_is_inf():
    with np.errstate(divide="warn"):
        assert np.isinf(np.float64(1.0) / np.float64(0.0))
"""


@case(
    "u40_pytest_test_error_all_pass_clean",
    "pytest -v of 260 test_error_* numerical tests that all pass (RuntimeWarning: divide by zero in the summary)",
    clean=True,
    group=GROUP,
    decisive=["260 passed, 20 warnings in 1.00s"],
)
def _pytest_clean(root: Path) -> bytes:
    env = _sci(root)
    files = {"tests/__init__.py": ""}
    for area in WORDS:
        files[f"tests/test_errors_{area}.py"] = _WARN_TESTS.replace("{area}", area)
    write(root, files)
    return _settle(sh(f"{env} python -m pytest -p no:cacheprovider -v tests", root), root)


# ---------------------------------------------------------------- scipy

_QUAD_SCRIPT = '''
"""Integrate the expected refund amount over each refund curve."""
import numpy as np
from scipy import integrate


def curve(k):
    if k % 50 == 13:
        return lambda t: np.abs(np.sin(40 * t)) / np.sqrt(abs(t - 0.3) + 1e-12)
    return lambda t: np.exp(-t * (1 + k % 9)) * (1 + 0.01 * k)


done = 0
for k in range(300):
    value, err = integrate.quad(curve(k), 0, 1)
    done += 1
    print(f"refunds curve {k:3d} expected refund {value:.6f} abs error estimate {err:.1e}", flush=True)
print(f"refunds: all {done} integrals computed, 0 errors", flush=True)
'''


@case(
    "u40_scipy_quad_refund_curves_warnings_clean",
    "python refund_curves.py (scipy.integrate.quad over 300 curves; IntegrationWarning on a few, all finish)",
    clean=True,
    group=GROUP,
    decisive=["refunds: all 300 integrals computed, 0 errors"],
)
def _quad_clean(root: Path) -> bytes:
    env = _sci(root)
    write(root, {"refunds/refund_curves.py": _QUAD_SCRIPT})
    return _settle(sh(f"{env} python -u -W always refunds/refund_curves.py", root), root)


_NEWTON_SCRIPT = '''
"""Calibrate the price elasticity of each SKU in the catalog with Newton's method."""
from scipy import optimize


def demand_gap(k):
    if k == 437:
        return lambda e: e * e + 1.0  # no real root: the demand curve of SKU-0437 never meets the target
    target = 1.0 + (k % 11) * 0.1
    return lambda e: e ** 3 - target * e - 0.5


for k in range(600):
    root = optimize.newton(demand_gap(k), x0=1.5, maxiter=50)
    print(f"pricing SKU-{k:04d} elasticity {root:.8f} converged", flush=True)
print("pricing: calibration finished", flush=True)
'''


@case(
    "u40_scipy_newton_sku_no_convergence",
    "python calibrate_elasticity.py (scipy.optimize.newton over 600 SKUs; SKU-0437 does not converge)",
    clean=False,
    group=GROUP,
    decisive=[
        "RuntimeError: Failed to converge after 50 iterations",
        "root = optimize.newton(demand_gap(k), x0=1.5, maxiter=50)",
        "[exit status 1]",
    ],
)
def _newton_fail(root: Path) -> bytes:
    env = _sci(root)
    write(root, {"pricing/calibrate_elasticity.py": _NEWTON_SCRIPT})
    return _settle(sh(f"{env} python -u pricing/calibrate_elasticity.py", root), root)


# ---------------------------------------------------------------- gnuplot


@case(
    "u40_gnuplot_orders_column_missing",
    "gnuplot orders.gp (30 dumb-terminal plots; orders_17.dat has two columns, the script plots 1:3)",
    clean=False,
    group=GROUP,
    decisive=[
        "warning: Skipping data file with no valid points",
        '"orders.gp" line 39: x range is invalid',
        "[exit status 1]",
    ],
)
def _gnuplot_fail(root: Path) -> bytes:
    files = {}
    lines = ["set terminal dumb size 100,30", "set key off", ""]
    for d in range(30):
        rows = []
        for h in range(24):
            if d == 17:
                rows.append(f"{h} {100 + (h * 7 + d) % 40}")
            else:
                rows.append(f"{h} {100 + (h * 7 + d) % 40} {(h * d) % 9}")
        files[f"data/orders_{d:02d}.dat"] = "# hour orders errors\n" + "\n".join(rows) + "\n"
        lines.append(f'set title "orders and errors per hour, day {d:02d}"')
        lines.append(f"plot 'data/orders_{d:02d}.dat' using 1:3 with lines")
    files["orders.gp"] = "\n".join(lines) + "\n"
    write(root, files)
    return _settle(sh("gnuplot orders.gp", root), root)


# ---------------------------------------------------------------- maxima


@case(
    "u40_maxima_batch_invoice_division_by_zero",
    "maxima --batch invoice.mac (series and integrals for 120 invoices, a division by zero at invoice 74)",
    clean=False,
    group=GROUP,
    decisive=[
        "expt: undefined: 0 to a negative exponent.",
        "-- an error. To debug this try: debugmode(true);",
    ],
)
def _maxima_fail(root: Path) -> bytes:
    lines = ["display2d: false$"]
    for k in range(1, 121):
        lines.append(f"invoice_{k}: integrate(exp(-{k}*t)*t^2, t, 0, 1);")
        lines.append(f"taylor(log(1 + {k}*x), x, 0, 8);")
        if k == 74:
            lines.append("discount_rate: 0$")
            lines.append("late_fee: 1/discount_rate^2;")
    write(root, {"invoice.mac": "\n".join(lines) + "\n"})
    return _settle(sh("maxima -q --batch=invoice.mac", root), root)
