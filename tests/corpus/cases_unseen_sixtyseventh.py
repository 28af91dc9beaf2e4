"""Held-out outputs (group ``unseen-67``): a sixty-seventh batch, documentation builds as an agent runs them on a
payments platform's docs, whose chapters, modules and sources are named after its business words (chapters "Error
handling" and "Failure modes", modules ``error_reporter``, ``failed_payments`` and ``retry_queue``): LaTeX with
``pdflatex -interaction=nonstopmode`` and ``latexmk -pdf`` (BibTeX and biber), ``sphinx-build -b html`` with autodoc,
``mkdocs build --strict``, ``doxygen`` on a C library and ``pandoc`` conversions.

Failing runs: one ``pdflatex`` pass of a 14-chapter incident handbook, noisy with overfull and underfull boxes, where
the "Failure modes" chapter uses an undefined ``\\retrydelay`` macro in the middle of the log, ``latexmk -pdf`` of a
runbook citing 48 references where BibTeX stops on a missing comma in ``references.bib`` (then latexmk lists the
citations left undefined), ``sphinx-build -W --keep-going -b html`` of 120 autodoc modules where one docstring of
``refunds_failed_payments`` ends a definition list without a blank line, ``mkdocs build --strict -v`` of 90 pages where
one runbook links to a page that does not exist, ``doxygen`` with ``WARN_AS_ERROR = FAIL_ON_WARNINGS`` on 48 C files
where one function of ``refunds_retry_queue.h`` is left undocumented, and ``pandoc --verbose`` of 24 chapters to PDF
where one chapter carries a raw LaTeX macro that does not exist. Clean runs named after errors and failures: two
``pdflatex`` passes of an "Error handling" guide (the second one shown) with an overfull-box storm, ``latexmk -pdf``
with biblatex and biber of a "Failure modes" report, ``sphinx-build -n -b html`` of 120 modules (``error_reporter``,
``failed_payments``, ``retry_queue``, ``exceptions``), ``mkdocs build --strict -v`` with mkdocstrings of the same
modules, and ``doxygen`` of a fully documented C library of ``error_reporter.c`` and ``failed_payments.c``. Labels were
written with each scenario, before the engine saw the output. Needs Debian ``texlive-latex-base``,
``texlive-latex-recommended``, ``texlive-bibtex-extra``, ``biber``, ``latexmk``, ``lmodern``, ``doxygen`` and
``pandoc``, and sphinx 9.0.4, mkdocs 1.6.1, mkdocstrings 1.0.8 and mkdocstrings-python 2.0.11 from PyPI (installed
once into a virtual environment of their own under ``/tmp/offloader-corpus-venvs/u67-docs``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-67"

#: sphinx, mkdocs and mkdocstrings, made once and kept between runs.
_VENV = VENVS / "u67-docs"
_PY_TOOLS = "sphinx==9.0.4 mkdocs==1.6.1 mkdocstrings==1.0.8 mkdocstrings-python==2.0.11"

#: What makes TeX, Sphinx and Python give the same bytes on every run.
_ENV = {
    "SOURCE_DATE_EPOCH": "1700000000",
    "FORCE_SOURCE_DATE": "1",
    "PYTHONDONTWRITEBYTECODE": "1",
    "PYTHONHASHSEED": "0",
    "max_print_line": "79",
}


def _venv() -> Path:
    make_venv(_VENV, _PY_TOOLS)
    return _VENV / "bin"


def _run(cmd: str, root: Path) -> bytes:
    env = {**_ENV, "HOME": str(root / "home"), "TEXMFVAR": str(root / "home/texmf-var")}
    return sh(cmd, root, env=env)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, times and addresses."""
    return substitute(
        scrub(out, root),
        (r"in \d+(\.\d+)? seconds", "in 0.50 seconds"),
        (r"\d+(\.\d+)? ?(ms|s|sec|seconds)\b", "0.5s"),
        (r"0x[0-9a-f]{6,16}", "0x0000000000"),
        (r"\d\d:\d\d:\d\d(\.\d+)?", "00:00:00"),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"/tmp/tex2pdf\.[-0-9a-f]+", "/tmp/tex2pdf.0000"),
        (r"/tmp/sphinx-err-[A-Za-z0-9_]+\.log", "/tmp/sphinx-err-abcdefgh.log"),
    )


_AREAS = [
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
]  # fmt: skip

_VERBS = ["records", "retries", "rejects", "settles", "replays", "flags", "reconciles", "escalates", "drops", "queues"]
_THINGS = [
    "failed payment", "error report", "retry attempt", "exception trace", "refund request", "ledger entry",
    "webhook delivery", "invoice run", "session token", "audit event", "tax line", "coupon redemption",
]  # fmt: skip


def _sentence(i: int) -> str:
    a = _AREAS[i % len(_AREAS)]
    v = _VERBS[(i * 7) % len(_VERBS)]
    t = _THINGS[(i * 5) % len(_THINGS)]
    u = _THINGS[(i * 3 + 1) % len(_THINGS)]
    return (
        f"When the {a} service {v} a {t}, the error reporter keeps the {u} with its attempt number, "
        f"so that the on-call engineer can tell a transient failure from a permanent one (case {i})."
    )


# ---------------------------------------------------------------- LaTeX

_PREAMBLE = r"""\documentclass[11pt]{report}
\usepackage[a4paper,margin=3.2cm]{geometry}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{longtable}
\usepackage{listings}
\usepackage{xcolor}
\usepackage{fancyhdr}
\usepackage{amsmath}
\usepackage{caption}
"""


def _chapter(title: str, n: int, *, width_storm: bool, broken: str = "", cites: list[str] | None = None) -> list[str]:
    """The lines of one chapter; ``broken`` (a line of TeX) goes in as line 25."""
    key = title.lower().replace(" ", "-")
    lines = [f"\\chapter{{{title}}}\\label{{ch:{key}}}", ""]
    for s in range(4):
        lines.append(f"\\section{{{title}: part {s + 1}}}\\label{{sec:{key}-{s}}}")
        for p in range(3):
            i = n * 100 + s * 10 + p
            text = " ".join(_sentence(i + k) for k in range(3))
            if width_storm and p == 1:
                mod = _AREAS[(i + s) % len(_AREAS)]
                text += (
                    f" The handler is \\texttt{{failed\\_payments.retry\\_queue.{mod}\\_error\\_reporter"
                    f".dispatch\\_failed\\_event\\_with\\_backoff()}} in \\texttt{{/srv/{mod}/error\\_handling}}."
                )
            if cites and p == 2:
                text += f" See \\cite{{{cites[(n * 4 + s) % len(cites)]}}} and section~\\ref{{sec:{key}-{s}}}."
            lines.append(text)
            lines.append("")
        if width_storm and s % 2 == 0:
            lines.append("\\begin{tabular}{llllll}\\toprule")
            lines.append("Service & Error code & Failure mode & Retry policy & Owner & Escalation\\\\\\midrule")
            for r in range(4):
                a = _AREAS[(n + r + s) % len(_AREAS)]
                lines.append(
                    f"{a}\\_service & E{n:02d}{r}{s} & {a}\\_timeout\\_failed & exponential\\_backoff\\_{r} & "
                    f"team-{a}-payments & page-{a}-oncall-primary\\\\"
                )
            lines.append("\\bottomrule\\end{tabular}")
            lines.append("")
    if broken:
        lines[24:24] = [broken]
    return lines


def _tex_doc(root: Path, name: str, title: str, chapters: list[str], **kw: object) -> None:
    """``name``.tex including one file per chapter under ``chapters/``; ``kw`` goes to each chapter (``broken`` as a
    map of chapter title to line; ``cites``; ``width_storm``; ``bib`` as the closing lines)."""
    broken: dict[str, str] = kw.get("broken", {})  # type: ignore[assignment]
    includes = []
    for n, ch in enumerate(chapters):
        fname = f"{n + 1:02d}_{ch.lower().replace(' ', '_')}"
        body = _chapter(
            ch,
            n,
            width_storm=bool(kw.get("width_storm", True)),
            broken=broken.get(ch, ""),
            cites=kw.get("cites"),  # type: ignore[arg-type]
        )
        write(root, {f"chapters/{fname}.tex": "\n".join(body) + "\n"})
        includes.append(f"\\input{{chapters/{fname}}}")
    extra = str(kw.get("preamble", ""))
    closing = str(kw.get("bib", ""))
    doc = (
        _PREAMBLE
        + extra
        + f"\\title{{{title}}}\\author{{Payments Platform Team}}\\date{{2026}}\n\\pagestyle{{fancy}}\n"
        + "\\begin{document}\n\\maketitle\n\\tableofcontents\n"
        + "\n".join(includes)
        + "\n"
        + closing
        + "\\end{document}\n"
    )
    (root / f"{name}.tex").write_text(doc)


_HANDBOOK = [
    "Overview", "Billing pipeline", "Orders and carts", "Error handling", "Retry queue", "Failure modes",
    "Refunds", "Ledger reconciliation", "Webhooks", "Tax and pricing", "Audit trail", "Exports",
    "On-call", "Postmortems",
]  # fmt: skip


@case(
    "u67_pdflatex_undefined_control_sequence",
    "pdflatex",
    clean=False,
    group=GROUP,
    decisive=[
        "! Undefined control sequence.",
        "l.25 The back-off ceiling is \\retrydelay",
        "(./chapters/06_failure_modes.tex",
    ],
)
def _pdflatex_undefined(root: Path) -> bytes:
    broken = {"Failure modes": "The back-off ceiling is \\retrydelay{30} seconds for every failed payment."}
    _tex_doc(root, "incident_handbook", "Incident handbook", _HANDBOOK, broken=broken)
    return _settle(_run("pdflatex -interaction=nonstopmode incident_handbook.tex", root), root)


_GUIDE = [
    "Error handling", "Failure modes", "Retry policies", "Exceptions", "Failed payments", "Error reporter",
    "Dead letters", "Timeouts", "Idempotency", "Alerting",
]  # fmt: skip


@case(
    "u67_pdflatex_overfull_clean",
    "pdflatex",
    clean=True,
    group=GROUP,
    decisive=["Output written on error_handling.pdf ("],
)
def _pdflatex_clean(root: Path) -> bytes:
    _tex_doc(root, "error_handling", "Error handling guide", _GUIDE)
    cmd = "pdflatex -interaction=nonstopmode error_handling.tex"
    return _settle(_run(f"{cmd} > /dev/null && {cmd}", root), root)


def _bib(keys: list[str], broken: str = "") -> str:
    out = []
    for i, k in enumerate(keys):
        author = f"{['Ada', 'Grace', 'Alan', 'Barbara', 'Edsger'][i % 5]} {['Lovelace', 'Hopper', 'Turing'][i % 3]}"
        comma = "" if k == broken else ","
        topic = _THINGS[i % len(_THINGS)]
        out.append(
            f"@article{{{k},\n  author = {{{author}}}{comma}\n  title = {{On the {topic} under load}},\n"
            f"  journal = {{Journal of Payment Systems}},\n  year = {{{2000 + i % 24}}},\n"
            f"  volume = {{{i + 1}}},\n  pages = {{{i * 10 + 1}--{i * 10 + 9}}}\n}}\n"
        )
    return "\n".join(out)


_KEYS = [f"{a}{y}" for y in (2019, 2021) for a in _AREAS] + [f"retry-storm-{k}" for k in range(8)]


@case(
    "u67_latexmk_bibtex_error",
    "latexmk",
    clean=False,
    group=GROUP,
    decisive=[
        "I was expecting a `,' or a `}'---line 84 of file references.bib",
        "bibtex runbook: Bibtex errors: See file 'runbook.blg'",
    ],
)
def _latexmk_bibtex(root: Path) -> bytes:
    _tex_doc(
        root,
        "runbook",
        "Payments runbook",
        _HANDBOOK[:10],
        cites=_KEYS,
        width_storm=False,
        bib="\\bibliographystyle{plain}\n\\nocite{*}\n\\bibliography{references}\n",
    )
    (root / "references.bib").write_text(_bib(_KEYS, broken=_KEYS[9]))
    return _settle(_run("latexmk -pdf -interaction=nonstopmode runbook.tex", root), root)


@case(
    "u67_latexmk_biber_clean",
    "latexmk",
    clean=True,
    group=GROUP,
    decisive=["Latexmk: All targets () are up-to-date"],
)
def _latexmk_biber(root: Path) -> bytes:
    _tex_doc(
        root,
        "failure_modes",
        "Failure modes of the payments platform",
        _GUIDE[:8],
        cites=_KEYS,
        width_storm=False,
        preamble="\\usepackage[backend=biber,style=numeric]{biblatex}\n\\addbibresource{references.bib}\n",
        bib="\\printbibliography\n",
    )
    (root / "references.bib").write_text(_bib(_KEYS))
    return _settle(_run("latexmk -pdf -interaction=nonstopmode failure_modes.tex", root), root)


# ---------------------------------------------------------------- Sphinx

_KINDS = ["error_reporter", "failed_payments", "retry_queue", "exceptions", "dead_letters", "webhooks"]


def _modules() -> list[str]:
    """120 module names: every area with every kind (``billing_error_reporter``, ``refunds_retry_queue``)."""
    return [f"{a}_{k}" for a in _AREAS for k in _KINDS]


def _py_module(name: str, i: int, *, bad_indent: bool = False) -> str:
    area = name.split("_")[0]
    cls = "".join(p.capitalize() for p in name.split("_"))
    extra = ""
    if bad_indent:
        extra = (
            "\n    The card is charged once; a declined charge goes to the retry queue:\n"
            "        attempts are spaced by the back-off of the policy.\n"
            "    The failed payment is reported to the error reporter.\n"
        )
    return f'''"""The {area} {name.split("_", 1)[1].replace("_", " ")} of the payments platform (module {i})."""

from __future__ import annotations


class {cls}Error(Exception):
    """Raised when the {area} service gives up on a failed payment."""


class {cls}:
    """Keeps the failed payments of the {area} service and retries them.

    :param max_attempts: how many times a failed payment is retried.
    :param backoff: the seconds between two attempts.
    """

    def __init__(self, max_attempts: int = 5, backoff: float = 2.0) -> None:
        self.max_attempts = max_attempts
        self.backoff = backoff

    def record_error(self, code: str, message: str) -> bool:
        """Record one error of the {area} service.

        :param code: the error code, such as ``E{i:03d}``.
        :param message: what failed.
        :returns: whether the error is retryable.
        """
        return code.startswith("E")

    def next_delay(self, attempt: int) -> float:
        """The delay before attempt ``attempt`` of a failed payment.

        :param attempt: the attempt number, from 1.
        """
        return self.backoff * 2 ** (attempt - 1)


def charge_card(amount_cents: int, currency: str = "EUR") -> bool:
    """Charge a card for the {area} service.
{extra}
    :param amount_cents: the amount in cents.
    :param currency: the ISO currency code.
    :raises {cls}Error: when every retry failed.
    """
    return amount_cents > 0


def report_exception(exc: Exception) -> str:
    """Format ``exc`` for the error reporter of the {area} service."""
    return f"{{type(exc).__name__}}: {{exc}}"
'''


def _sphinx_project(root: Path, bad: str = "") -> None:
    mods = _modules()
    files = {
        "docs/conf.py": """
            import os
            import sys

            sys.path.insert(0, os.path.abspath(".."))
            project = "Payments platform: errors, failures and retries"
            author = "Payments Platform Team"
            copyright = "2026, Payments Platform Team"
            extensions = ["sphinx.ext.autodoc", "sphinx.ext.viewcode"]
            html_theme = "alabaster"
            exclude_patterns = ["_build"]
            html_last_updated_fmt = None
        """,
        "billing/__init__.py": '"""The payments platform: error reporters, failed payments and retry queues."""\n',
    }
    toc = "\n".join(f"   api/{m}" for m in mods)
    files["docs/index.rst"] = (
        "Payments platform\n=================\n\nError handling, failure modes and retries of every service.\n\n"
        f".. toctree::\n   :maxdepth: 1\n   :caption: API\n\n{toc}\n"
    )
    for i, m in enumerate(mods):
        files[f"billing/{m}.py"] = _py_module(m, i, bad_indent=m == bad)
        files[f"docs/api/{m}.rst"] = f"{m}\n{'=' * len(m)}\n\n.. automodule:: billing.{m}\n   :members:\n"
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text if not rel.endswith("conf.py") else "\n".join(x[12:] for x in text.splitlines()[1:]))


@case(
    "u67_sphinx_keep_going_indentation",
    "sphinx-build",
    clean=False,
    group=GROUP,
    decisive=[
        "refunds_failed_payments.py:docstring of billing.refunds_failed_payments.charge_card",
        "build finished with problems",
    ],
)
def _sphinx_fail(root: Path) -> bytes:
    _sphinx_project(root, bad="refunds_failed_payments")
    cmd = f"{_venv()}/sphinx-build -W --keep-going -b html docs docs/_build/html"
    return _settle(_run(cmd, root), root)


@case(
    "u67_sphinx_nitpicky_clean",
    "sphinx-build",
    clean=True,
    group=GROUP,
    decisive=["build succeeded.", "The HTML pages are in docs/_build/html."],
)
def _sphinx_clean(root: Path) -> bytes:
    _sphinx_project(root)
    return _settle(_run(f"{_venv()}/sphinx-build -n -b html docs docs/_build/html", root), root)


# ---------------------------------------------------------------- MkDocs


def _mkdocs_project(root: Path, *, broken_link: bool, api: bool) -> None:
    mods = _modules()[:90] if not api else _modules()[:60]
    nav = ["  - Home: index.md", "  - Error handling: error_handling.md", "  - Runbooks:"]
    files = {
        "docs/index.md": "# Payments platform\n\nError handling, failure modes and retry queues.\n",
        "docs/error_handling.md": "# Error handling\n\n"
        + "\n\n".join(_sentence(i) for i in range(12))
        + "\n\nSee [the failure modes](runbooks/billing_failed_payments.md).\n",
    }
    for i, m in enumerate(mods):
        kind = m.split("_", 1)[1]
        nav.append(f"      - {m}: runbooks/{m}.md")
        link = f"[the {kind.replace('_', ' ')} of {_AREAS[(i + 1) % 20]}](" + f"{_modules()[(i + 6) % len(mods)]}.md)"
        if broken_link and m == "refunds_retry_queue":
            link = "[replaying failed payments](failed_payments_replay.md#replay)"
        body = f"# {m.replace('_', ' ').title()}\n\n" + "\n\n".join(_sentence(i * 3 + k) for k in range(3))
        body += f"\n\n## Failure modes\n\nWhen a {kind.replace('_', ' ')} fails, follow {link}.\n"
        if api:
            body += f"\n## API\n\n::: billing.{m}\n"
            write(root, {f"billing/{m}.py": _py_module(m, i)})
        files[f"docs/runbooks/{m}.md"] = body
    if api:
        files["billing/__init__.py"] = '"""The payments platform."""\n'
    plugins = ["plugins:", "  - search"]
    if api:
        plugins += ["  - mkdocstrings:", "      handlers:", "        python:", "          paths: [.]"]
    files["mkdocs.yml"] = (
        "site_name: Payments platform - errors, failures and retries\n"
        "theme:\n  name: mkdocs\n" + "\n".join(plugins) + "\nnav:\n" + "\n".join(nav) + "\n"
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@case(
    "u67_mkdocs_strict_broken_link",
    "mkdocs",
    clean=False,
    group=GROUP,
    decisive=[
        "Doc file 'runbooks/refunds_retry_queue.md' contains a link 'failed_payments_replay.md#replay'",
        "Aborted with 1 warnings in strict mode!",
    ],
)
def _mkdocs_fail(root: Path) -> bytes:
    _mkdocs_project(root, broken_link=True, api=False)
    return _settle(_run(f"{_venv()}/mkdocs build --strict -v", root), root)


@case(
    "u67_mkdocs_mkdocstrings_clean",
    "mkdocs",
    clean=True,
    group=GROUP,
    decisive=["Documentation built in"],
)
def _mkdocs_clean(root: Path) -> bytes:
    _mkdocs_project(root, broken_link=False, api=True)
    return _settle(_run(f"{_venv()}/mkdocs build --strict -v", root), root)


# ---------------------------------------------------------------- Doxygen


def _c_module(m: str, *, bad_param: bool) -> dict[str, str]:
    area, kind = m.split("_", 1)
    drain = f"int {m}_drain({m}_item *item, int max_attempts);\n\n" if bad_param else ""
    guard = m.upper() + "_H"
    header = (
        f"/**\n * @file {m}.h\n * @brief The {kind.replace('_', ' ')} of the {area} service.\n */\n"
        f"#ifndef {guard}\n#define {guard}\n\n"
        f"/** @brief One failed payment of the {area} service waiting for a retry. */\n"
        f"typedef struct {m}_item {{\n    int attempts;       /**< attempts made so far */\n"
        f"    long amount_cents;  /**< the amount in cents */\n    int error_code;     /**< the last error code */\n"
        f"}} {m}_item;\n\n"
        f"/**\n * @brief Push a failed payment on the {kind.replace('_', ' ')}.\n * @param item the payment.\n"
        f" * @param amount_cents the amount in cents.\n * @return 0 on success, -1 on error.\n */\n"
        f"int {m}_push({m}_item *item, long amount_cents);\n\n{drain}"
        f"/**\n * @brief The delay before the next retry.\n * @param item the payment.\n"
        f" * @return the delay in milliseconds.\n */\nlong {m}_next_delay(const {m}_item *item);\n\n"
        f"/**\n * @brief Report the error of a payment to the error reporter.\n * @param item the payment.\n"
        f" * @param code the error code.\n */\nvoid {m}_report_error({m}_item *item, int code);\n\n#endif\n"
    )
    source = (
        f"/**\n * @file {m}.c\n * @brief The {kind.replace('_', ' ')} of the {area} service.\n */\n"
        f'#include "{m}.h"\n\n'
        f"int {m}_push({m}_item *item, long amount_cents)\n{{\n    if (amount_cents <= 0)\n        return -1;\n"
        f"    item->amount_cents = amount_cents;\n    item->attempts += 1;\n    return 0;\n}}\n\n"
        f"long {m}_next_delay(const {m}_item *item)\n{{\n    return 250L << item->attempts;\n}}\n\n"
        f"void {m}_report_error({m}_item *item, int code)\n{{\n    item->error_code = code;\n}}\n"
    )
    return {f"include/{m}.h": header, f"src/{m}.c": source}


def _doxygen_project(root: Path, areas: tuple[str, ...], bad: str = "") -> None:
    files: dict[str, str] = {}
    for m in _modules():
        if m.split("_")[0] in areas:
            files.update(_c_module(m, bad_param=m == bad))
    fail = "FAIL_ON_WARNINGS" if bad else "NO"
    files["Doxyfile"] = (
        'PROJECT_NAME = "Payments platform C library"\nPROJECT_NUMBER = 4.2.0\nOUTPUT_DIRECTORY = docs_build\n'
        "INPUT = include src\nFILE_PATTERNS = *.c *.h\nRECURSIVE = YES\nQUIET = NO\nWARNINGS = YES\n"
        f"WARN_IF_UNDOCUMENTED = YES\nWARN_NO_PARAMDOC = YES\nWARN_AS_ERROR = {fail}\nGENERATE_LATEX = NO\n"
        "GENERATE_HTML = YES\nHTML_TIMESTAMP = NO\nHAVE_DOT = NO\nSOURCE_BROWSER = YES\nEXTRACT_STATIC = YES\n"
        "OPTIMIZE_OUTPUT_FOR_C = YES\nNUM_PROC_THREADS = 1\n"
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@case(
    "u67_doxygen_fail_on_warnings",
    "doxygen",
    clean=False,
    group=GROUP,
    decisive=[
        "include/refunds_retry_queue.h:",
        "Member refunds_retry_queue_drain(refunds_retry_queue_item *item, int max_attempts) (function) of file",
    ],
)
def _doxygen_fail(root: Path) -> bytes:
    _doxygen_project(root, ("billing", "refunds", "errors", "ledger"), bad="refunds_retry_queue")
    return _settle(_run("stdbuf -oL doxygen Doxyfile", root), root)


@case(
    "u67_doxygen_clean",
    "doxygen",
    clean=True,
    group=GROUP,
    decisive=["finished..."],
)
def _doxygen_clean(root: Path) -> bytes:
    _doxygen_project(root, ("errors", "exceptions", "retry", "billing"))
    return _settle(_run("stdbuf -oL doxygen Doxyfile", root), root)


# ---------------------------------------------------------------- pandoc


@case(
    "u67_pandoc_pdf_undefined_macro",
    "pandoc",
    clean=False,
    group=GROUP,
    decisive=["Error producing PDF."],
)
def _pandoc_fail(root: Path) -> bytes:
    chapters = [*_HANDBOOK, *_GUIDE]
    files = {}
    for n, ch in enumerate(chapters):
        paras = "\n\n".join(_sentence(n * 10 + k) for k in range(8))
        extra = "\n\nThe ceiling is \\retrybackoff{2} seconds per failed payment.\n" if ch == "Retry policies" else ""
        table = "| Service | Error code | Retry |\n|---|---|---|\n" + "".join(
            f"| {_AREAS[(n + r) % 20]} | E{n:02d}{r} | {r + 1} |\n" for r in range(5)
        )
        files[f"chapters/{n + 1:02d}_{ch.lower().replace(' ', '_')}.md"] = (
            f"# {ch}\n\n{paras}{extra}\n\n{table}\n## Failure modes of {ch.lower()}\n\n{_sentence(n)}\n"
        )
    write(root, files)
    return _settle(_run("pandoc --verbose -s --toc -o handbook.pdf chapters/*.md", root), root)
