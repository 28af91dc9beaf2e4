"""Held-out outputs (group ``unseen-34``): a thirty-fourth batch, documents a coding agent reads with its shell tool
(the release notes, changelogs, READMEs, package metadata, licence and ``--help`` texts that packages and tools
ship), and commands chained after such a read.

Clean runs, whose text talks about errors, crashes, failures and fixes without anything failing: ``cat`` of
express's ``History.md`` followed by ``npm ls express``, ``tar -xzOf`` of the ``CHANGES.rst`` of urllib3's sdist
downloaded with ``pip download --no-binary :all:``, ``cat`` of pydantic's ``METADATA`` (its README and full
changelog), ``curl --help all``, ``git help -a``, ``cat COPYING`` of a project under the GPL version 3, ``pydoc``
of ``click.exceptions`` and ``pip show -f`` of SQLAlchemy. Failing runs, where a document read comes first and
the real failure after it in the same output: ``cat`` of debug's README then ``node`` on a script that throws a
``TypeError``, ``head -400`` of click's ``CHANGES.rst`` then ``pytest`` with one failing test, ``sed -n 1,300p``
of commander's README then ``make`` with a C compile error, ``cat`` of semver's README then ``npm run build``
where ``tsc`` reports a type error, and ``cat`` of chalk's readme then ``node --test`` with one failing
assertion. Labels were written with each scenario, before the engine saw the output. Needs Node.js with npm
(Debian ``nodejs``, ``npm``), git, curl, make and gcc, with express, debug, commander, semver, chalk and
typescript from the npm registry and urllib3, click, pydantic and SQLAlchemy from PyPI.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PIP_ISOLATED, PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-34"

_EXPRESS = "express@4.21.2"
_DEBUG = "debug@4.3.7"
_COMMANDER = "commander@12.1.0"
_SEMVER = "semver@7.6.3"
_CHALK = "chalk@5.3.0"
_TYPESCRIPT = "typescript@5.6.3"
_URLLIB3 = "urllib3==2.2.3"
_CLICK = "click==8.1.7"
_PYDANTIC = "pydantic==1.10.18"
_SQLALCHEMY = "SQLAlchemy==2.0.36"


def _npm(root: Path, *packages: str, scripts: dict[str, str] | None = None) -> None:
    pkg = '{"name": "held-out", "version": "1.0.0", "private": true'
    if scripts:
        pkg += ', "scripts": {' + ", ".join(f'"{k}": "{v}"' for k, v in scripts.items()) + "}"
    (root / "package.json").write_text(pkg + "}\n")
    sh(f"npm install --no-audit --no-fund --silent {' '.join(packages)}", root)


def _sdist(root: Path, req: str) -> None:
    """The sdist of ``req`` downloaded from PyPI into ``root/dist``."""
    pip = f"{PIP_ISOLATED} {PY} -m pip download -q --no-cache-dir --no-deps --no-binary :all: -d dist {req}"
    sh(pip, root)


# ---------------------------------------------------------------- clean document reads


@case(
    "u34_cat_express_history_then_npm_ls_clean",
    "cat node_modules/express/History.md && npm ls express",
    clean=True,
    group=GROUP,
    decisive=["4.21.2 / 2024-11-06", "express@4.21.2"],
)
def _express_history(root: Path) -> bytes:
    _npm(root, _EXPRESS)
    return scrub(sh("cat node_modules/express/History.md && npm ls express", root), root)


@case(
    "u34_tar_urllib3_sdist_changes_rst_clean",
    "tar -xzOf dist/urllib3-2.2.3.tar.gz urllib3-2.2.3/CHANGES.rst (reStructuredText changelog)",
    clean=True,
    group=GROUP,
    decisive=["2.2.3 (2024-09-12)"],
)
def _urllib3_changes(root: Path) -> bytes:
    _sdist(root, _URLLIB3)
    return scrub(sh("tar -xzOf dist/urllib3-2.2.3.tar.gz urllib3-2.2.3/CHANGES.rst", root), root)


@case(
    "u34_cat_pydantic_dist_info_metadata_clean",
    "cat tools/pydantic-1.10.18.dist-info/METADATA (README and changelog as long description)",
    clean=True,
    group=GROUP,
    decisive=["Version: 1.10.18", "## v1.10.18 (2024-08-22)"],
)
def _pydantic_metadata(root: Path) -> bytes:
    py_tools(root, _PYDANTIC, deps=False)
    return scrub(sh("cat tools/pydantic-1.10.18.dist-info/METADATA", root), root)


@case(
    "u34_curl_help_all_clean",
    "curl --help all",
    clean=True,
    group=GROUP,
    decisive=["Usage: curl [options...] <url>"],
)
def _curl_help(root: Path) -> bytes:
    return scrub(sh("curl --help all", root), root)


@case(
    "u34_git_help_all_commands_clean",
    "git help -a",
    clean=True,
    group=GROUP,
    decisive=["See 'git help <command>' to read about a specific subcommand"],
)
def _git_help(root: Path) -> bytes:
    home = root / "home"
    home.mkdir()
    return scrub(sh("git help -a", root, env={"HOME": str(home), "GIT_PAGER": "cat", "PAGER": "cat"}), root)


@case(
    "u34_cat_copying_gpl3_licence_clean",
    "cat COPYING (the GNU GPL version 3 of a project)",
    clean=True,
    group=GROUP,
    decisive=["GNU GENERAL PUBLIC LICENSE", "Version 3, 29 June 2007"],
)
def _gpl3(root: Path) -> bytes:
    (root / "COPYING").write_bytes(Path("/usr/share/common-licenses/GPL-3").read_bytes())
    return scrub(sh("cat COPYING", root), root)


@case(
    "u34_pydoc_click_exceptions_clean",
    "python -m pydoc click.exceptions",
    clean=True,
    group=GROUP,
    decisive=["Help on module click.exceptions in click:"],
)
def _pydoc_click(root: Path) -> bytes:
    env = py_tools(root, _CLICK, deps=False)
    return scrub(sh(f"{env} PAGER=cat {PY} -m pydoc click.exceptions", root), root)


@case(
    "u34_pip_show_files_sqlalchemy_clean",
    "python -m pip show -f SQLAlchemy (a virtual environment)",
    clean=True,
    group=GROUP,
    decisive=["Name: SQLAlchemy", "Version: 2.0.36"],
)
def _pip_show(root: Path) -> bytes:
    sh(f"{PY} -m venv env", root)
    py = root / "env" / "bin" / "python"
    sh(f"{PIP_ISOLATED} {PY} -m pip --python {py} install -q --no-cache-dir --no-deps {_SQLALCHEMY}", root)
    cmd = f"{PIP_ISOLATED} PIP_DISABLE_PIP_VERSION_CHECK=1 env/bin/python -m pip show -f SQLAlchemy"
    return scrub(sh(cmd, root), root)


# ---------------------------------------------------------------- failing runs chained after a read

_RECONCILE_JS = """
"use strict";
const debug = require("debug")("billing:reconcile");
const invoices = [{ id: "INV-1001", lines: { total: 120 } }, { id: "INV-1002" }];
function invoiceTotal(invoice) {
  return invoice.lines.total;
}
let sum = 0;
for (const inv of invoices) {
  debug("reconciling %s", inv.id);
  sum += invoiceTotal(inv);
}
console.log("reconciled", sum);
"""


@case(
    "u34_cat_debug_readme_then_node_script_typeerror",
    "cat node_modules/debug/README.md && node scripts/reconcile.js",
    clean=False,
    group=GROUP,
    decisive=[
        "TypeError: Cannot read properties of undefined (reading 'total')",
        "at invoiceTotal (/tmp/work/scripts/reconcile.js:5:24)",
        "[exit status 1]",
    ],
)
def _debug_node(root: Path) -> bytes:
    _npm(root, _DEBUG)
    write(root, {"scripts/reconcile.js": _RECONCILE_JS})
    out = sh("cat node_modules/debug/README.md && node scripts/reconcile.js", root)
    return scrub(out, root)


_REFUNDS_PY = """
def refund_total(amounts):
    return int(sum(float(a) for a in amounts) * 100)


def refund_fee(amount):
    return round(amount * 0.02, 2)
"""


@case(
    "u34_head_click_changes_then_pytest_one_failure",
    "head -400 click-8.1.7/CHANGES.rst; python -m pytest -q tests",
    clean=False,
    group=GROUP,
    decisive=[
        "AssertionError: assert 1998 == 1999",
        "FAILED tests/test_refunds.py::test_refund_total_rounds_cents",
        "1 failed, 41 passed",
        "[exit status 1]",
    ],
)
def _click_pytest(root: Path) -> bytes:
    _sdist(root, _CLICK)
    sh("tar -xzf dist/click-8.1.7.tar.gz", root)
    tests = ["from refunds import refund_fee, refund_total", ""]
    for i, area in enumerate(WORDS * 2):
        tests.append(f"\ndef test_fee_{area}_{i}():\n    assert refund_fee({100 * (i + 1)}) == {2 * (i + 1)}\n")
    tests.append(
        "\ndef test_refund_total_rounds_cents():\n"
        '    assert refund_total(["19.99"]) == 1999\n'
        "\n\ndef test_refund_total_empty():\n    assert refund_total([]) == 0\n"
    )
    write(root, {"refunds.py": _REFUNDS_PY, "tests/test_refunds.py": "\n".join(tests)})
    (root / "pytest.ini").write_text("[pytest]\npythonpath = .\n")
    cmd = f"head -400 click-8.1.7/CHANGES.rst; {PY} -m pytest -q -p no:cacheprovider tests"
    out = sh(cmd, root)
    return substitute(scrub(out, root), (r" in \d+\.\d+s", " in 0.05s"))


_MAKEFILE = (
    "CC = gcc\nCFLAGS = -Wall -O2\nOBJS = build/main.o build/tax.o build/orders.o build/ledger.o build/invoice.o\n\n"
    "build/ledger-report: $(OBJS)\n\t$(CC) -o $@ $(OBJS)\n\n"
    "build/%.o: src/%.c\n\t@mkdir -p build\n\t$(CC) $(CFLAGS) -c -o $@ $<\n"
)


@case(
    "u34_sed_commander_readme_then_make_compile_error",
    "sed -n 1,300p node_modules/commander/Readme.md; make",
    clean=False,
    group=GROUP,
    decisive=[
        "src/ledger.c:6:12: error: ‘balance’ undeclared (first use in this function)",
        "make: *** [Makefile:10: build/ledger.o] Error 1",
        "[exit status 2]",
    ],
)
def _commander_make(root: Path) -> bytes:
    _npm(root, _COMMANDER)
    files = {}
    for name in ("main", "tax", "orders", "invoice"):
        files[f"src/{name}.c"] = (
            f"int {name}_amount(int cents)\n{{\n    return cents * 2;\n}}\n"
            if name != "main"
            else '#include <stdio.h>\n\nint main(void)\n{\n    puts("ledger report");\n    return 0;\n}\n'
        )
    files["src/ledger.c"] = (
        "#include <stdio.h>\n\nint ledger_post(int amount)\n{\n    int total = amount;\n"
        "    return balance + total;\n}\n"
    )
    write(root, files)
    (root / "Makefile").write_text(_MAKEFILE)
    return scrub(sh("sed -n 1,300p node_modules/commander/Readme.md; make", root), root)


_INVOICE_TS = """
export interface Invoice {
  id: string;
  totalCents: number;
}

export function makeInvoice(id: string, total: string): Invoice {
  return { id, totalCents: total };
}
"""


@case(
    "u34_cat_semver_readme_then_npm_build_tsc_error",
    "cat node_modules/semver/README.md; npm run build (tsc -p tsconfig.json)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/invoice.ts(7,16): error TS2322: Type 'string' is not assignable to type 'number'.",
        "[exit status 2]",
    ],
)
def _semver_tsc(root: Path) -> bytes:
    _npm(root, _SEMVER, _TYPESCRIPT, scripts={"build": "tsc -p tsconfig.json"})
    tsconfig = '{"compilerOptions": {"strict": true, "outDir": "dist", "target": "es2020"}, "include": ["src"]}\n'
    files = {"src/invoice.ts": _INVOICE_TS, "tsconfig.json": tsconfig}
    for area in WORDS[:8]:
        files[f"src/{area}.ts"] = f'export const {area}Name: string = "{area}";\n'
    write(root, files)
    home = root / "home"
    home.mkdir()
    env = {"HOME": str(home), "npm_config_update_notifier": "false"}
    return scrub(sh("cat node_modules/semver/README.md; npm run build", root, env=env), root)


@case(
    "u34_cat_chalk_readme_then_node_test_one_failure",
    "cat node_modules/chalk/readme.md && node --test test/",
    clean=False,
    group=GROUP,
    decisive=["not ok 1 - refund total rounds to the cent", "1998 !== 1999", "# fail 1", "[exit status 1]"],
)
def _chalk_node_test(root: Path) -> bytes:
    _npm(root, _CHALK)
    files = {
        "src/refunds.js": """
        "use strict";
        function refundTotal(amounts) {
          return Math.floor(amounts.reduce((a, b) => a + b, 0) * 100);
        }
        module.exports = { refundTotal };
        """
    }
    tests = [
        '"use strict";',
        'const test = require("node:test");',
        'const assert = require("node:assert");',
        'const { refundTotal } = require("../src/refunds.js");',
        "",
        'test("refund total rounds to the cent", () => {',
        "  assert.strictEqual(refundTotal([19.99]), 1999);",
        "});",
    ]
    for i, area in enumerate(WORDS):
        tests.append(f'test("{area} refund of {i + 1} euros", () => {{')
        tests.append(f"  assert.strictEqual(refundTotal([{i + 1}]), {(i + 1) * 100});")
        tests.append("});")
    files["test/refunds.test.js"] = "\n".join(tests) + "\n"
    write(root, files)
    out = sh("cat node_modules/chalk/readme.md && node --test test/", root)
    return substitute(
        scrub(out, root), (r"duration_ms: [\d.]+", "duration_ms: 1.0"), (r"^# duration_ms [\d.]+", "# duration_ms 1.0")
    )
