"""Held-out outputs (group ``unseen-89``): an eighty-ninth batch, native extension builds through pip as an agent runs
them (``pip install -v --no-build-isolation .`` and ``pip wheel -v --no-deps --no-build-isolation .``, nothing fetched
at run time) on generated packages of C, C++ and Cython code built with setuptools, Cython, pybind11, meson-python and
scikit-build-core, with Debian's gcc and g++.

Failing runs: setuptools compiling 36 C extensions where the 19th, ``refunds_ledger.c``, uses an undeclared
identifier; a loop of ``pip wheel -v`` over four packages of a monorepo where the second has a source including a
missing ``retry_backoff.h`` (the third and fourth build fine after it); ``cythonize`` of 24 ``.pyx`` modules where one
assigns a ``double`` to an ``int *``; pybind11 modules built with setuptools where ``retry_queue.cpp`` sorts a
``std::list`` (g++'s long template cascade); scikit-build-core with ``ninja -k 0`` where the ``gen_error_codes`` build
tool has an ``undefined reference``; a meson-python configure that runs 60 header and function checks and then does
not find the ``libretry_queue`` dependency; and a clean setuptools build followed by a smoke import that fails with
``undefined symbol: ledger_post_adjustment``. Clean runs named after errors and failures: setuptools with ``-Wextra``
warnings in 40 modules (``failed_payments``, ``error_codes``, ``retry_queue``), ``pip wheel`` of 20 Cython modules with
unused-entry warnings, meson-python with ``warning_level=3`` warnings, and scikit-build-core with pybind11 followed by
``unittest -v`` of tests named ``test_failed_payments_*``. Labels were written with each scenario, before the engine saw
the output. Needs gcc, g++ and CMake (Debian ``gcc``, ``g++``, ``cmake``, already on the machine), with pip 26.3,
setuptools 84.2.1, wheel 0.48.0, Cython 3.3.2, pybind11 3.1.0, meson-python 0.22.1, meson 1.12.1, ninja 1.13.2 and
scikit-build-core 1.1.2 from PyPI (installed once into a virtual environment of their own under
``/tmp/offloader-corpus-venvs/u89-ext``; each scenario's own ``.venv`` sees them through a ``.pth`` file).
"""

from __future__ import annotations

import sys
from pathlib import Path

from _harness import PIP_ISOLATED, PY, VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-89"

_REQS = (
    "pip==26.3 setuptools==84.2.1 wheel==0.48.0 Cython==3.3.2 pybind11==3.1.0 meson-python==0.22.1 meson==1.12.1 "
    "ninja==1.13.2 scikit-build-core==1.1.2"
)
_PYVER = f"python{sys.version_info.major}.{sys.version_info.minor}"


def _env(root: Path) -> str:
    """A ``.venv`` in ``root`` that sees the build tools of the shared environment; the environment prefix whose
    ``python`` is that of the ``.venv``."""
    tools = make_venv(VENVS / "u89-ext", _REQS)
    sh(f"{PY} -m venv --without-pip {root / '.venv'}", root)
    site = root / ".venv" / "lib" / _PYVER / "site-packages"
    (site / "_u89_build_tools.pth").write_text(f"{tools / 'lib' / _PYVER / 'site-packages'}\n")
    return (
        f"PATH={root / '.venv' / 'bin'}:{tools / 'bin'}:$PATH PYTHONHASHSEED=0 PIP_DISABLE_PIP_VERSION_CHECK=1 "
        "PIP_NO_CACHE_DIR=1 "
        f"{PIP_ISOLATED}"
    )


def _pip(root: Path) -> str:
    """The command that runs pip in ``root``'s ``.venv``."""
    return f"{_env(root)} {root / '.venv' / 'bin' / 'python'} -m pip"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: folders, hashes, sizes, durations."""
    return substitute(
        scrub(out, root),
        (r"/tmp/pip-([a-z-]+)-[a-z0-9_]{8}(?=[/\s'\"]|$)", r"/tmp/pip-\1-abcdefgh"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"size=\d+ sha256=[0-9a-f]{64}", "size=10000 sha256=" + "0" * 64),
        (r"\(\d+\.\d+s\)", "(0.1s)"),
        (r"\d+(\.\d+)? ?(ms|s|seconds)\b", "1.00s"),
        (r"wheels/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{2}/[0-9a-f]{40,64}", "wheels/00/00/00/" + "0" * 56),
        (r"\btmp[a-z0-9_]{8}\b", "tmpabcdefgh"),
        (r"\.tmp-[a-z0-9_]{8}\b", ".tmp-abcdefgh"),
    )


# ---------------------------------------------------------------- C sources

_COMMON_H = """
    /* billing_common.h: shared constants of the billing platform's native helpers. */
    #ifndef BILLING_COMMON_H
    #define BILLING_COMMON_H
    #define FAILED_STATUS 400
    #define RETRY_LIMIT 8u
    #define BILLING_SALT 17
    #endif
"""


def _c_module(mod: str, *, broken: str = "", include: str = "billing_common.h", extra: str = "") -> str:
    """A C extension module ``mod`` with four functions; ``broken`` is a statement dropped into one of them."""
    return f"""
        /* {mod}.c: native helpers of the billing platform ({mod.replace("_", " ")}). */
        #define PY_SSIZE_T_CLEAN
        #include <Python.h>
        #include "{include}"
        {extra}
        static PyObject *
        count_failed(PyObject *self, PyObject *args)
        {{
            PyObject *items;
            Py_ssize_t i, n;
            long failed = 0;
            if (!PyArg_ParseTuple(args, "O", &items))
                return NULL;
            n = PySequence_Length(items);
            for (i = 0; i < n; i++) {{
                PyObject *it = PySequence_GetItem(items, i);
                long status = PyLong_AsLong(it);
                Py_XDECREF(it);
                if (status >= FAILED_STATUS)
                    failed++;
            }}
            return PyLong_FromLong(failed);
        }}

        static PyObject *
        retry_after(PyObject *self, PyObject *args)
        {{
            int attempt;
            unsigned int limit = RETRY_LIMIT;
            long delay = 1;
            int retry_jitter;
            if (!PyArg_ParseTuple(args, "i", &attempt))
                return NULL;
            for (; attempt > 0 && attempt < limit; attempt--)
                delay *= 2;
            return PyLong_FromLong(delay);
        }}

        static PyObject *
        total_cents(PyObject *self, PyObject *args)
        {{
            long cents, fee;
            if (!PyArg_ParseTuple(args, "ll", &cents, &fee))
                return NULL;
            {broken or "cents += fee + BILLING_SALT;"}
            return PyLong_FromLong(cents);
        }}

        static PyObject *
        error_code(PyObject *self, PyObject *args)
        {{
            int code;
            if (!PyArg_ParseTuple(args, "i", &code))
                return NULL;
            return PyUnicode_FromFormat("{mod}-E%04d", code);
        }}

        static PyMethodDef methods[] = {{
            {{"count_failed", count_failed, METH_VARARGS, "Count the failed statuses."}},
            {{"retry_after", retry_after, METH_VARARGS, "Seconds before the next retry."}},
            {{"total_cents", total_cents, METH_VARARGS, "Amount with the fee."}},
            {{"error_code", error_code, METH_VARARGS, "The error code's name."}},
            {{NULL, NULL, 0, NULL}}
        }};

        static struct PyModuleDef module = {{PyModuleDef_HEAD_INIT, "{mod}", NULL, -1, methods}};

        PyMODINIT_FUNC
        PyInit_{mod}(void)
        {{
            return PyModule_Create(&module);
        }}
    """


_SUFFIXES = ["ledger", "queue", "report", "codes"]
_FRONT = ["failed_payments", "error_codes", "retry_queue", "exception_report"]


def _names(n: int, words: list[str] | None = None) -> list[str]:
    """``n`` module names made of the business words, the four error-ish ones first."""
    base = words or ["billing", "orders", "cart", "tax", "refunds", "invoice", "ledger", "shipping", "coupons"]
    out = list(_FRONT)
    for i in range(n):
        name = f"{base[i % len(base)]}_{_SUFFIXES[(i // len(base)) % len(_SUFFIXES)]}"
        if name not in out:
            out.append(name)
    return out[:n]


def _setuptools_project(
    root: Path, dist: str, pkg: str, mods: list[str], sources: dict[str, str], *, extra_args: str = ""
) -> None:
    """A setuptools project ``dist`` with C extensions ``pkg.<mod>`` made of ``src/<pkg>/<mod>.c``."""
    listed = ",\n".join(f'    "{m}"' for m in mods)
    files = {
        "pyproject.toml": f"""
            [build-system]
            requires = ["setuptools>=80", "wheel"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{dist}"
            version = "1.4.0"
            requires-python = ">=3.9"

            [tool.setuptools]
            package-dir = {{"" = "src"}}
            packages = ["{pkg}"]
        """,
        "setup.py": f"from setuptools import Extension, setup\n\nMODULES = [\n{listed},\n]\n\nsetup(\n"
        f'    ext_modules=[\n        Extension(\n            f"{pkg}.{{m}}",\n'
        f'            [f"src/{pkg}/{{m}}.c"],\n            include_dirs=["include"],\n'
        f'            extra_compile_args=["-Wextra"{extra_args}],\n        )\n        for m in MODULES\n    ]\n)\n',
        "include/billing_common.h": _COMMON_H,
        f"src/{pkg}/__init__.py": f'"""{dist}: native helpers."""\n',
        **sources,
    }
    write(root, files)


# ---------------------------------------------------------------- setuptools


@case(
    "u89_setuptools_undeclared",
    "pip install (setuptools C extensions)",
    clean=False,
    group=GROUP,
    decisive=[
        "‘refund_window_days’ undeclared (first use in this function)",
        "ERROR: Failed building wheel for billing-native",
        "Failed to build installable wheels for some pyproject.toml based projects",
    ],
)
def _setuptools_undeclared(root: Path) -> bytes:
    mods = _names(36)
    mods.remove("refunds_ledger")
    mods.insert(18, "refunds_ledger")
    sources = {}
    for m in mods:
        broken = "cents -= fee * refund_window_days;" if m == "refunds_ledger" else ""
        sources[f"src/billing_native/{m}.c"] = _c_module(m, broken=broken)
    _setuptools_project(root, "billing-native", "billing_native", mods, sources)
    return _settle(sh(f"{_pip(root)} install -v --no-build-isolation .", root), root)


@case(
    "u89_monorepo_missing_header",
    "pip wheel (setuptools C extensions, four packages)",
    clean=False,
    group=GROUP,
    decisive=[
        "fatal error: retry_backoff.h: No such file or directory",
        "ERROR: Failed building wheel for retry-native",
        "FAILED: packages/retry_native",
    ],
)
def _monorepo_missing_header(root: Path) -> bytes:
    packages = {
        "errors_native": ["error_codes", "exception_report", "errors_ledger", "audit_report", "webhooks_codes"],
        "retry_native": _names(30, ["retry", "session", "webhooks", "orders", "cart", "export"]),
        "ledger_native": _names(22, ["ledger", "invoice", "tax", "pricing"]),
        "exceptions_native": _names(18, ["exceptions", "audit", "search", "catalog"]),
    }
    for pkg, mods in packages.items():
        sources = {}
        for m in mods:
            extra = '#include "retry_backoff.h"' if pkg == "retry_native" and m == "session_queue" else ""
            sources[f"src/{pkg}/{m}.c"] = _c_module(m, extra=extra)
        _setuptools_project(root / "packages" / pkg, pkg.replace("_", "-"), pkg, mods, sources)
    write(
        root,
        {
            "build_wheels.sh": """
                #!/bin/sh
                # Build every native package of the monorepo into dist/ (no index, no isolation).
                status=0
                for pkg in packages/errors_native packages/retry_native packages/ledger_native \\
                           packages/exceptions_native; do
                    echo "==> building $pkg"
                    if ! $PIP wheel -v --no-deps --no-build-isolation -w dist "$pkg"; then
                        echo "FAILED: $pkg"
                        status=1
                    fi
                done
                ls dist
                exit $status
            """
        },
    )
    return _settle(sh(f"{_env(root)} PIP='python -m pip' sh build_wheels.sh", root), root)


@case(
    "u89_import_undefined_symbol",
    "pip install (setuptools) + smoke import",
    clean=False,
    group=GROUP,
    decisive=[
        "failed_payments.cpython-311-x86_64-linux-gnu.so: undefined symbol: ledger_post_adjustment",
        'scripts/smoke_import.py", line 15',
        "Successfully installed payments-native-1.4.0",
    ],
)
def _import_undefined_symbol(root: Path) -> bytes:
    mods = _names(28, ["payments", "ledger", "invoice", "refunds", "billing", "export", "audit"])
    sources = {}
    for m in mods:
        extra = ""
        broken = ""
        if m == "failed_payments":
            extra = '#include "ledger_adjust.h"'
            broken = "cents = ledger_post_adjustment(cents, fee);"
        sources[f"src/payments_native/{m}.c"] = _c_module(m, broken=broken, extra=extra)
    sources["include/ledger_adjust.h"] = "long ledger_post_adjustment(long cents, long fee);\n"
    sources["src/payments_native/ledger_adjust.c"] = (
        '#include "ledger_adjust.h"\n\nlong\nledger_post_adjustment(long cents, long fee)\n{\n'
        "    return cents - fee;\n}\n"
    )
    sources["scripts/smoke_import.py"] = f"""
        \"\"\"Import every native module of payments_native and call it once (the deploy smoke check).\"\"\"
        import importlib

        MODULES = {sorted(mods)!r}


        def main():
            for name in MODULES:
                print(f"importing payments_native.{{name}}")
                importlib.import_module(f"payments_native.{{name}}")
                print(f"  ok {{name}}")


        if __name__ == "__main__":
            main()
    """
    _setuptools_project(root, "payments-native", "payments_native", mods, sources)
    pip = _pip(root)
    python = root / ".venv" / "bin" / "python"
    cmd = f"{pip} install -v --no-build-isolation . && cd / && {python} {root}/scripts/smoke_import.py"
    return _settle(sh(cmd, root), root)


@case(
    "u89_setuptools_clean_warnings",
    "pip install (setuptools C extensions)",
    clean=True,
    group=GROUP,
    decisive=["Successfully installed failed-payments-native-2.0.0"],
)
def _setuptools_clean_warnings(root: Path) -> bytes:
    mods = _names(40)
    sources = {f"src/failed_payments_native/{m}.c": _c_module(m) for m in mods}
    _setuptools_project(root, "failed-payments-native", "failed_payments_native", mods, sources)
    toml = root / "pyproject.toml"
    toml.write_text(toml.read_text().replace('version = "1.4.0"', 'version = "2.0.0"'))
    return _settle(sh(f"{_pip(root)} install -v --no-build-isolation .", root), root)


# ---------------------------------------------------------------- Cython


def _pyx_module(mod: str, broken: str = "") -> str:
    return f'''
        """{mod}: Cython helpers of the billing platform."""

        cdef long FAILED_STATUS = 400


        cpdef long count_failed(list statuses):
            cdef long failed = 0
            cdef long status
            for status in statuses:
                if status >= FAILED_STATUS:
                    failed += 1
            return failed


        cpdef double retry_after(int attempt, double base=0.5):
            cdef double delay = base
            cdef int retry_jitter = 3
            while attempt > 0:
                delay *= 2
                attempt -= 1
            return delay


        cpdef long total_cents(long cents, long fee):
            cdef double rate = 0.25
            {broken or "cents += fee"}
            return cents


        def error_code(int code):
            return f"{mod}-E{{code:04d}}"
    '''


def _cython_project(root: Path, dist: str, pkg: str, mods: list[str], broken: dict[str, str]) -> None:
    listed = ",\n".join(f'    "{m}"' for m in mods)
    files = {
        "pyproject.toml": f"""
            [build-system]
            requires = ["setuptools>=80", "wheel", "Cython>=3.1"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "{dist}"
            version = "0.9.0"
            requires-python = ">=3.9"

            [tool.setuptools]
            package-dir = {{"" = "src"}}
            packages = ["{pkg}"]
        """,
        "setup.py": "from Cython.Build import cythonize\nfrom setuptools import Extension, setup\n\n"
        f"MODULES = [\n{listed},\n]\n\nsetup(\n    ext_modules=cythonize(\n"
        f'        [Extension(f"{pkg}.{{m}}", [f"src/{pkg}/{{m}}.pyx"]) for m in MODULES],\n'
        '        compiler_directives={"language_level": 3, "warn.unused": True},\n    )\n)\n',
        f"src/{pkg}/__init__.py": f'"""{dist}: Cython helpers."""\n',
    }
    for m in mods:
        files[f"src/{pkg}/{m}.pyx"] = _pyx_module(m, broken.get(m, ""))
    write(root, files)


@case(
    "u89_cython_compile_error",
    "pip install (setuptools + Cython)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/orders_native/webhooks_codes.pyx:26:21: Cannot assign type 'double' to 'int *'",
        "Cython.Compiler.Errors.CompileError: src/orders_native/webhooks_codes.pyx",
        "metadata-generation-failed",
    ],
)
def _cython_compile_error(root: Path) -> bytes:
    core = _names(30, ["errors", "cart", "pricing", "catalog", "search", "billing"])
    sources = {f"src/errors_core/{m}.c": _c_module(m) for m in core}
    _setuptools_project(root / "errors-core", "errors-core", "errors_core", core, sources)
    mods = _names(48, ["orders", "cart", "coupons", "pricing", "catalog", "search", "shipping", "tax", "webhooks"])
    broken = {"webhooks_codes": "cdef int *slot = rate"}
    _cython_project(root / "orders-native", "orders-native", "orders_native", mods, broken)
    pip = _pip(root)
    cmd = (
        f"{pip} install -v --no-build-isolation ./errors-core && {pip} install -v --no-build-isolation ./orders-native"
    )
    return _settle(sh(cmd, root), root)


@case(
    "u89_cython_clean_wheel",
    "pip wheel (setuptools + Cython)",
    clean=True,
    group=GROUP,
    decisive=["Successfully built exception-report", "Created wheel for exception-report"],
)
def _cython_clean_wheel(root: Path) -> bytes:
    mods = _names(20, ["exceptions", "errors", "retry", "audit", "webhooks"])
    _cython_project(root, "exception-report", "exception_report", mods, {})
    return _settle(sh(f"{_pip(root)} wheel -v --no-deps --no-build-isolation -w dist .", root), root)


# ---------------------------------------------------------------- pybind11 (setuptools and scikit-build-core)


def _cpp_module(mod: str, container: str = "std::vector<long>") -> str:
    return f"""
        // {mod}.cpp: pybind11 bindings of the retry service ({mod.replace("_", " ")}).
        #include <pybind11/pybind11.h>
        #include <pybind11/stl.h>

        #include <algorithm>
        #include <list>
        #include <string>
        #include <vector>

        namespace py = pybind11;

        namespace {{

        long count_failed(const std::vector<long> &statuses) {{
            long failed = 0;
            for (int i = 0; i < statuses.size(); ++i)
                if (statuses[i] >= 400)
                    ++failed;
            return failed;
        }}

        std::vector<long> retry_delays(const std::vector<long> &attempts) {{
            {container} delays(attempts.begin(), attempts.end());
            std::sort(delays.begin(), delays.end());
            return std::vector<long>(delays.begin(), delays.end());
        }}

        std::string error_code(int code) {{ return "{mod}-E" + std::to_string(code); }}

        }}  // namespace

        PYBIND11_MODULE({mod}, m) {{
            m.doc() = "{mod.replace("_", " ")} helpers";
            m.def("count_failed", &count_failed, "Count the failed statuses.");
            m.def("retry_delays", &retry_delays, "The retry delays, shortest first.");
            m.def("error_code", &error_code, "The error code's name.");
        }}
    """


@case(
    "u89_pybind11_template_error",
    "pip install (setuptools + pybind11)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/retry_service/retry_queue.cpp:24:14:   required from here",
        "error: no match for ‘operator-’ (operand types are ‘std::_List_iterator<long int>’",
        "ERROR: Failed building wheel for retry-service",
    ],
)
def _pybind11_template_error(root: Path) -> bytes:
    mods = [
        "audit_ledger", "billing_codes", "error_codes", "exception_report", "failed_payments", "orders_queue",
        "refunds_report", "retry_queue", "session_ledger", "shipping_codes", "webhooks_queue", "tax_report",
    ]  # fmt: skip
    listed = ",\n".join(f'    "{m}"' for m in mods)
    files = {
        "pyproject.toml": """
            [build-system]
            requires = ["setuptools>=80", "pybind11>=3"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "retry-service"
            version = "2.3.0"
            requires-python = ">=3.9"

            [tool.setuptools]
            package-dir = {"" = "src"}
            packages = ["retry_service"]
        """,
        "setup.py": "from pybind11.setup_helpers import Pybind11Extension, build_ext\nfrom setuptools import setup\n\n"
        f"MODULES = [\n{listed},\n]\n\nsetup(\n    ext_modules=[\n"
        '        Pybind11Extension(f"retry_service.{m}", [f"src/retry_service/{m}.cpp"], cxx_std=17)\n'
        '        for m in MODULES\n    ],\n    cmdclass={"build_ext": build_ext},\n)\n',
        "src/retry_service/__init__.py": '"""retry-service: pybind11 helpers."""\n',
    }
    for m in mods:
        files[f"src/retry_service/{m}.cpp"] = _cpp_module(
            m, "std::list<long>" if m == "retry_queue" else "std::vector<long>"
        )
    write(root, files)
    return _settle(sh(f"CFLAGS=-O0 {_pip(root)} install -v --no-build-isolation .", root), root)


def _skbuild_project(root: Path, dist: str, pkg: str, body: str, *, tool_args: str = "") -> None:
    write(
        root,
        {
            "pyproject.toml": f"""
                [build-system]
                requires = ["scikit-build-core>=1.0", "pybind11>=3"]
                build-backend = "scikit_build_core.build"

                [project]
                name = "{dist}"
                version = "1.2.0"
                requires-python = ">=3.9"

                [tool.scikit-build]
                build-dir = "build/{{wheel_tag}}"
                cmake.build-type = "Debug"
                build.verbose = true
                {tool_args}
            """,
            "CMakeLists.txt": f"""
                cmake_minimum_required(VERSION 3.15)
                project(${{SKBUILD_PROJECT_NAME}} LANGUAGES C CXX)
                find_package(Python COMPONENTS Interpreter Development.Module REQUIRED)
                {body}
            """,
            f"src/{pkg}/__init__.py": f'"""{dist}: native helpers."""\n',
        },
    )


@case(
    "u89_skbuild_undefined_reference",
    "pip install (scikit-build-core, CMake, Ninja)",
    clean=False,
    group=GROUP,
    decisive=[
        "undefined reference to `exception_report_format'",
        "FAILED: [code=1] gen_error_codes",
        "ERROR: Failed building wheel for webhooks-native",
    ],
)
def _skbuild_undefined_reference(root: Path) -> bytes:
    mods = _names(32, ["webhooks", "audit", "export", "session", "auth", "search", "catalog", "orders"])
    loop = " ".join(mods)
    body = f"""
        add_executable(gen_error_codes tools/gen_error_codes.c tools/error_table.c)
        target_include_directories(gen_error_codes PRIVATE tools)
        add_custom_command(
          OUTPUT ${{CMAKE_CURRENT_BINARY_DIR}}/error_codes_table.h
          COMMAND gen_error_codes ${{CMAKE_CURRENT_BINARY_DIR}}/error_codes_table.h
          DEPENDS gen_error_codes)
        add_custom_target(error_codes_table DEPENDS ${{CMAKE_CURRENT_BINARY_DIR}}/error_codes_table.h)
        foreach(mod IN ITEMS {loop})
          python_add_library(${{mod}} MODULE WITH_SOABI src/webhooks_native/${{mod}}.c)
          target_include_directories(${{mod}} PRIVATE include ${{CMAKE_CURRENT_BINARY_DIR}})
          target_compile_options(${{mod}} PRIVATE -Wall -Wextra)
          install(TARGETS ${{mod}} DESTINATION webhooks_native)
        endforeach()
        add_dependencies(exception_report error_codes_table)
    """
    _skbuild_project(root, "webhooks-native", "webhooks_native", body, tool_args='build.tool-args = ["-k", "0"]')
    files = {
        "include/billing_common.h": _COMMON_H,
        "tools/error_table.h": "const char *exception_report_format(int code);\n",
        "tools/error_table.c": '#include <stdio.h>\n#include "error_table.h"\n\nconst char *\n'
        "exception_report_render(int code)\n{\n    static char buf[32];\n"
        '    snprintf(buf, sizeof buf, "E%04d", code);\n    return buf;\n}\n',
        "tools/gen_error_codes.c": '#include <stdio.h>\n#include "error_table.h"\n\n'
        "int\nmain(int argc, char **argv)\n{\n"
        '    FILE *out = fopen(argv[argc - 1], "w");\n    for (int code = 1; code < 40; code++)\n'
        '        fprintf(out, "#define ERR_%d \\"%s\\"\\n", code, exception_report_format(code));\n'
        "    return fclose(out);\n}\n",
    }
    for m in mods:
        extra = '#include "error_codes_table.h"' if m == "exception_report" else ""
        files[f"src/webhooks_native/{m}.c"] = _c_module(m, extra=extra)
    write(root, files)
    return _settle(sh(f"CMAKE_BUILD_PARALLEL_LEVEL=1 {_pip(root)} install -v --no-build-isolation .", root), root)


@case(
    "u89_skbuild_pybind11_unittest_clean",
    "pip install (scikit-build-core + pybind11) + unittest",
    clean=True,
    group=GROUP,
    decisive=["Ran 30 tests in", "Successfully installed error-codes-service-1.2.0"],
)
def _skbuild_pybind11_clean(root: Path) -> bytes:
    mods = [
        "failed_payments", "error_codes", "retry_queue", "exception_report", "refunds_ledger", "audit_report",
        "webhooks_queue", "session_codes", "billing_ledger", "export_report",
    ]  # fmt: skip
    body = f"""
        set(PYBIND11_FINDPYTHON ON)
        find_package(pybind11 CONFIG REQUIRED)
        foreach(mod IN ITEMS {" ".join(mods)})
          pybind11_add_module(${{mod}} src/error_codes_service/${{mod}}.cpp)
          target_compile_options(${{mod}} PRIVATE -Wall)
          install(TARGETS ${{mod}} DESTINATION error_codes_service)
        endforeach()
    """
    _skbuild_project(root, "error-codes-service", "error_codes_service", body)
    files = {f"src/error_codes_service/{m}.cpp": _cpp_module(m) for m in mods}
    tests = ["import unittest\n", "import error_codes_service as ecs\n"]
    tests += [f"from error_codes_service import {m}\n" for m in mods]
    tests.append("\n\nclass NativeHelpers(unittest.TestCase):\n")
    for m in mods:
        tests.append(
            f"    def test_{m}_count_failed(self):\n"
            f"        self.assertEqual({m}.count_failed([200, 404, 500, 302]), 2)\n\n"
            f"    def test_{m}_retry_delays_sorted(self):\n"
            f"        self.assertEqual({m}.retry_delays([8, 1, 4]), [1, 4, 8])\n\n"
            f"    def test_{m}_error_code(self):\n"
            f'        self.assertEqual({m}.error_code(7), "{m}-E7")\n\n'
        )
    tests.append('\nif __name__ == "__main__":\n    unittest.main()\n')
    files["tests/test_native_helpers.py"] = "".join(tests).replace("import error_codes_service as ecs\n", "")
    write(root, files)
    (root / "tests" / "test_native_helpers.py").write_text(files["tests/test_native_helpers.py"])
    python = root / ".venv" / "bin" / "python"
    cmd = (
        f"CMAKE_BUILD_PARALLEL_LEVEL=1 {_pip(root)} install -v --no-build-isolation . && cd tests && "
        f"{python} -m unittest -v test_native_helpers"
    )
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- meson-python

_HEADERS = [
    "stdint.h", "stdatomic.h", "stdbool.h", "inttypes.h", "unistd.h", "fcntl.h", "poll.h", "pthread.h", "sched.h",
    "signal.h", "syslog.h", "sys/epoll.h", "sys/eventfd.h", "sys/timerfd.h", "sys/mman.h", "sys/socket.h",
    "sys/random.h", "sys/uio.h", "netinet/in.h", "arpa/inet.h", "endian.h", "execinfo.h", "threads.h",
    "linux/futex.h", "zstd.h", "lz4.h", "uuid/uuid.h", "systemd/sd-daemon.h",
]  # fmt: skip
_FUNCTIONS = [
    "clock_gettime", "clock_nanosleep", "epoll_create1", "eventfd", "timerfd_create", "getrandom", "posix_memalign",
    "aligned_alloc", "pthread_setname_np", "pthread_getaffinity_np", "sched_getcpu", "accept4", "pipe2", "dup3",
    "mkostemp", "memfd_create", "explicit_bzero", "strlcpy", "reallocarray", "backtrace", "syslog", "fdatasync",
    "posix_fadvise", "sendmmsg", "recvmmsg", "arc4random_buf", "qsort_r", "strerror_r", "gettid",
]  # fmt: skip
_FLAGS = [
    "-Wno-unused-parameter", "-Wno-missing-field-initializers", "-Wshadow", "-Wcast-align", "-Wpointer-arith",
    "-Wformat=2", "-Wstrict-prototypes", "-Wmissing-prototypes", "-Wnull-dereference", "-Wduplicated-cond",
    "-Wlogical-op", "-Wvla", "-Wimplicit-fallthrough", "-fno-strict-aliasing", "-fstack-protector-strong",
    "-Wno-sign-compare", "-Wdouble-promotion", "-Wundef",
]  # fmt: skip


def _meson_project(root: Path, dist: str, pkg: str, mods: list[str], tail: str) -> None:
    headers = ", ".join(f"'{h}'" for h in _HEADERS)
    functions = ", ".join(f"'{f}'" for f in _FUNCTIONS)
    flags = ", ".join(f"'{f}'" for f in _FLAGS)
    mod_list = ", ".join(f"'{m}'" for m in mods)
    meson = f"""
        project('{dist}', 'c', version: '3.1.0', default_options: ['warning_level=3', 'buildtype=debugoptimized'])

        py = import('python').find_installation(pure: false)
        cc = meson.get_compiler('c')
        conf = configuration_data()

        add_project_arguments(cc.get_supported_arguments([{flags}]), language: 'c')

        foreach h : [{headers}]
          conf.set('HAVE_' + h.underscorify().to_upper(), cc.has_header(h))
        endforeach

        foreach f : [{functions}]
          conf.set('HAVE_' + f.to_upper(), cc.has_function(f, prefix: '#define _GNU_SOURCE\\n#include <stdlib.h>'))
        endforeach

        foreach t : ['long', 'size_t', 'void *', 'off_t', 'time_t']
          conf.set('SIZEOF_' + t.underscorify().to_upper(), cc.sizeof(t, prefix: '#include <sys/types.h>'))
        endforeach

        configure_file(output: 'config.h', configuration: conf)
        {tail}

        py.install_sources('src/{pkg}/__init__.py', subdir: '{pkg}')
        foreach m : [{mod_list}]
          py.extension_module(m, 'src/{pkg}/' + m + '.c', include_directories: include_directories('include'),
                              subdir: '{pkg}', install: true)
        endforeach
    """
    files = {
        "pyproject.toml": f"""
            [build-system]
            build-backend = "mesonpy"
            requires = ["meson-python>=0.16"]

            [project]
            name = "{dist}"
            version = "3.1.0"
            requires-python = ">=3.9"
        """,
        "meson.build": meson,
        "include/billing_common.h": _COMMON_H,
        f"src/{pkg}/__init__.py": f'"""{dist}: native helpers."""\n',
    }
    for m in mods:
        files[f"src/{pkg}/{m}.c"] = _c_module(m)
    write(root, files)


_MESON_ARGS = "-Cbuild-dir=build -Ccompile-args=-j1"


@case(
    "u89_meson_dependency_not_found",
    "pip install (meson-python)",
    clean=False,
    group=GROUP,
    decisive=[
        'ERROR: Dependency "libretry_queue" not found',
        "Run-time dependency libretry_queue found: NO",
        "metadata-generation-failed",
    ],
)
def _meson_dependency_not_found(root: Path) -> bytes:
    _meson_project(root / "errors-native", "errors-native", "errors_native", _names(24, ["errors", "audit"]), "")
    mods = _names(24, ["retry", "webhooks", "session", "auth"])
    tail = "retry_queue_dep = dependency('libretry_queue', version: '>=2.1')"
    _meson_project(root / "retry-queue-native", "retry-queue-native", "retry_queue_native", mods, tail)
    pip = _pip(root)
    cmd = (
        f"cd errors-native && {pip} install -v --no-build-isolation {_MESON_ARGS} . && "
        f"cd ../retry-queue-native && {pip} install -v --no-build-isolation {_MESON_ARGS} ."
    )
    return _settle(sh(cmd, root), root)


@case(
    "u89_meson_clean_warnings",
    "pip install (meson-python)",
    clean=True,
    group=GROUP,
    decisive=["Successfully installed exceptions-native-3.1.0"],
)
def _meson_clean_warnings(root: Path) -> bytes:
    mods = _names(30, ["exceptions", "errors", "retry", "audit", "webhooks", "export"])
    _meson_project(root, "exceptions-native", "exceptions_native", mods, "")
    return _settle(sh(f"{_pip(root)} install -v --no-build-isolation {_MESON_ARGS} .", root), root)
