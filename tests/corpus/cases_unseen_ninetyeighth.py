"""Held-out outputs (group ``unseen-98``): a ninety-eighth batch, TeX and LaTeX document builds as an agent runs them on
a payments company's reports and manuals, whose chapters, labels, macros, figures and bibliography keys are named after
its business words (``failed_payments``, ``error_budget``, ``retry_policy``, ``exception_report``).

Failing runs: one ``pdflatex -interaction=nonstopmode`` pass of a 20-chapter exception report (``\\include``d chapters,
an overfull and underfull box storm) where the ``retry_policy`` chapter opens an ``itemize`` it never closes, one pass
of an error-budget review where a figure of the ``ledger_drift`` chapter is missing (TeX goes on, the error sits early
in the log), ``latexmk -pdf`` of a handbook whose ``retry_policy`` chapter uses an undefined ``\\retrybackoff`` macro,
``latexmk -pdf`` with BibTeX of a runbook citing 60 references where one key is not in the database, ``latexmk -pdf`` of
a manual with one ``\\ref`` to a label that does not exist (the rerun loop around it; latexmk 4.79 exits 0 on both),
``chktex`` over 18 chapters full of style warnings where one chapter has an unmatched brace, and ``lacheck`` over the
same chapters where one environment is closed by the wrong ``\\end``. Clean runs named after errors and failures: the
second ``pdflatex`` pass of a "Failed payments" handbook with a box storm, the classic ``pdflatex``, ``bibtex``,
``pdflatex``, ``pdflatex`` chain of an "Exception report" (the first pass full of undefined citations, as it must be),
``latexmk -pdf`` with biblatex and biber of an "Error budget" review, and ``latexmk -pdf`` of a "Retry policy" manual
with \\includegraphics of every figure present. Labels were written with each scenario, before the engine saw the
output. Needs Debian ``texlive-latex-base``, ``texlive-latex-recommended``, ``texlive-bibtex-extra``, ``biber``,
``latexmk``, ``chktex`` and ``lacheck``.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-98"

#: What makes TeX give the same bytes on every run.
_ENV = {"SOURCE_DATE_EPOCH": "1700000000", "FORCE_SOURCE_DATE": "1", "max_print_line": "79"}


def _run(cmd: str, root: Path) -> bytes:
    env = {**_ENV, "HOME": str(root / "home"), "TEXMFVAR": str(root / "home/texmf-var")}
    return sh(cmd, root, env=env)


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, durations, times and addresses."""
    return substitute(
        scrub(out, root),
        (r"\d+(\.\d+)? ?(ms|s|sec|secs|seconds)\b", "0.5s"),
        (r"0x[0-9a-f]{6,16}", "0x0000000000"),
        (r"\d\d:\d\d:\d\d(\.\d+)?", "00:00:00"),
        (r"/tmp/[A-Za-z0-9_]{8,}(?=/)", "/tmp/abcdefgh"),
    )


_WORDS = [
    "billing", "orders", "cart", "tax", "refunds", "errors", "exceptions", "retry", "auth", "session",
    "invoice", "ledger", "shipping", "catalog", "search", "pricing", "coupons", "webhooks", "audit", "export",
]  # fmt: skip

_TOPICS = [
    "failed payment", "error budget", "retry policy", "exception report", "chargeback", "settlement batch",
    "dunning run", "ledger drift", "webhook backlog", "card decline", "refund reversal", "fraud hold",
]  # fmt: skip

_CHAPTERS = [
    "Overview", "Failed payments", "Error budget", "Retry policy", "Exception report", "Settlement",
    "Chargebacks", "Dunning", "Ledger drift", "Webhooks", "Card declines", "Refund reversals",
    "Fraud holds", "Tax and invoices", "Audit trail", "Exports", "On-call", "Postmortems", "Capacity",
    "Glossary",
]  # fmt: skip


def _slug(title: str) -> str:
    return title.lower().replace(" ", "_").replace("-", "_")


def _para(i: int) -> str:
    out = []
    for k in range(3):
        j = i * 3 + k
        area = _WORDS[j % len(_WORDS)]
        topic = _TOPICS[(j * 5) % len(_TOPICS)]
        other = _TOPICS[(j * 7 + 3) % len(_TOPICS)]
        out.append(
            f"In quarter {j % 4 + 1} the {area} team saw the {topic} rate move by {j % 17}.{j % 10} per cent, "
            f"and the exception report traced most of it to the {other} path, where a failed attempt is retried "
            f"under the retry policy until the error budget of the month is spent."
        )
    return " ".join(out)


def _chapter(
    title: str, n: int, *, storm: bool = True, cites: list[str] | None = None, figs: bool = False, noise: bool = False
) -> list[str]:
    """The lines of one chapter, with sections, labels, an overfull identifier and a narrow table per section."""
    key = _slug(title)
    lines = [f"\\chapter{{{title}}}\\label{{ch:{key}}}", ""]
    for s in range(4):
        lines += [f"\\section{{{title}: case {s + 1}}}\\label{{sec:{key}_{s}}}", ""]
        for p in range(3):
            i = n * 100 + s * 10 + p
            text = _para(i)
            if storm and p == 1:
                area = _WORDS[(i + s) % len(_WORDS)]
                text += (
                    f" The job is \\texttt{{payments.{area}.failed\\_payments.retry\\_policy.exception\\_report"
                    f".error\\_budget\\_consumer()}} on \\texttt{{/srv/{area}/failed\\_payments/retry\\_policy}}."
                )
            if cites and p == 2:
                text += f" See \\cite{{{cites[(n * 4 + s) % len(cites)]}}} and section~\\ref{{sec:{key}_{s}}}."
            lines += [text, ""]
        if storm and s % 2 == 0:
            lines.append("\\begin{tabular}{p{1.6cm}p{1.6cm}p{1.8cm}lll}\\toprule")
            lines.append("Service & Error budget & Failed payments & Retry policy & Owner & Escalation\\\\\\midrule")
            for r in range(3):
                a = _WORDS[(n + r + s) % len(_WORDS)]
                lines.append(
                    f"{a}\\_gateway & remaining {r}.{s} per cent & {a}\\_declined\\_after\\_retry & "
                    f"exponential\\_backoff\\_{r} & team-{a}-payments & page-{a}-oncall-primary\\\\"
                )
            lines += ["\\bottomrule\\end{tabular}", ""]
        if noise:
            area = _WORDS[(n + s) % len(_WORDS)]
            lines += [
                f"Retries of the {area} queue happen e.g. after 5 minutes , then 10 ... (see \\ref{{sec:{key}_{s}}}).",
                f"The \\errorbudget of \\failedpayments for {area} is reviewed weekly ; "
                'a "burned" budget freezes releases.',
                "",
            ]
        if figs and s == 1:
            lines += [
                "\\begin{figure}[htbp]\\centering",
                f"\\includegraphics[width=0.6\\textwidth]{{figures/{key}_burn}}",
                f"\\caption{{{title}: error budget burn}}\\label{{fig:{key}_burn}}",
                "\\end{figure}",
                "",
            ]
    return lines


_PREAMBLE = r"""\documentclass[11pt]{report}
\usepackage[a4paper,margin=3cm]{geometry}
\usepackage{graphicx}
\usepackage{booktabs}
\usepackage{fancyhdr}
\usepackage{amsmath}
\usepackage{xcolor}
\newcommand{\errorbudget}{\textsc{error budget}}
\newcommand{\failedpayments}{\textsc{failed payments}}
"""


def _doc(
    root: Path,
    name: str,
    title: str,
    chapters: list[str],
    *,
    include: bool = True,
    edits: dict[str, tuple[int, str]] | None = None,
    preamble: str = "",
    closing: str = "",
    **kw: object,
) -> None:
    """``name``.tex with one file per chapter under ``chapters/`` (``\\include`` or ``\\input``); ``edits`` puts a
    line of TeX into a chapter at the given line index."""
    parts = []
    for n, ch in enumerate(chapters):
        fname = f"{n + 1:02d}_{_slug(ch)}"
        body = _chapter(ch, n, **kw)  # type: ignore[arg-type]
        if edits and ch in edits:
            at, line = edits[ch]
            body[at:at] = [line]
        write(root, {f"chapters/{fname}.tex": "\n".join(body) + "\n"})
        parts.append(f"\\{'include' if include else 'input'}{{chapters/{fname}}}")
    doc = (
        _PREAMBLE
        + preamble
        + f"\\title{{{title}}}\\author{{Payments Operations}}\\date{{2026}}\n\\pagestyle{{fancy}}\n"
        + "\\begin{document}\n\\maketitle\n\\tableofcontents\n"
        + "\n".join(parts)
        + "\n"
        + closing
        + "\\end{document}\n"
    )
    (root / f"{name}.tex").write_text(doc)


def _bib(root: Path, keys: list[str], *, biblatex: bool = False) -> None:
    rows = []
    for i, key in enumerate(keys):
        words = key.rsplit("-", 1)[0].replace("-", " ")
        kind = ["techreport", "article", "book"][i % 3]
        where = {
            "techreport": "institution = {Payments Operations}",
            "article": "journal = {Journal of Payment Systems}, volume = {" + str(i % 12 + 1) + "}",
            "book": "publisher = {Ledger Press}",
        }[kind]
        rows.append(
            f"@{kind}{{{key},\n  author = {{Team, {words.split()[0].capitalize()} and Ops, Billing}},\n"
            f"  title = {{{words.capitalize()}: lessons from production}},\n  {where},\n"
            f"  year = {{{2010 + i % 15}}}\n}}\n"
        )
    (root / "payments.bib").write_text("\n".join(rows))


def _keys(n: int) -> list[str]:
    return [f"{_WORDS[i % len(_WORDS)]}-{_TOPICS[i % len(_TOPICS)].replace(' ', '-')}-{2010 + i}" for i in range(n)]


def _png(root: Path, names: list[str]) -> None:
    """Small real PNG figures: a 120x60 grey-scale ramp, written with zlib."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + bytes((x * 2 + y) % 256 for x in range(120)) for y in range(60))
    png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 120, 60, 8, 0, 0, 0, 0))
    png += chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")
    (root / "figures").mkdir(exist_ok=True)
    for name in names:
        (root / "figures" / f"{name}.png").write_bytes(png)


# ---------------------------------------------------------------- failing runs


@case(
    "u98_pdflatex_missing_end_itemize",
    "pdflatex",
    clean=False,
    group=GROUP,
    decisive=[
        "! LaTeX Error: \\begin{itemize} on input line 26 ended by \\end{document}.",
        "(\\end occurred inside a group at level 1)",
    ],
)
def _missing_end(root: Path) -> bytes:
    edit = (25, "\\begin{itemize}\\item Retry a failed payment at most five times.\\item Then page the on-call.")
    _doc(root, "exception_report", "Exception report 2026", _CHAPTERS, edits={"Retry policy": edit})
    return _settle(_run("pdflatex -interaction=nonstopmode exception_report.tex", root), root)


_HEADS = "\\setlength{\\headheight}{14pt}\n"


@case(
    "u98_pdflatex_missing_figure",
    "pdflatex",
    clean=False,
    group=GROUP,
    decisive=["! LaTeX Error: File `figures/ledger_drift_burn' not found.", "]{figures/ledger_drift_burn}"],
)
def _missing_figure(root: Path) -> bytes:
    chapters = _CHAPTERS[:16]
    _doc(root, "error_budget_review", "Error budget review", chapters, include=False, preamble=_HEADS, figs=True)
    _png(root, [f"{_slug(c)}_burn" for c in chapters if c != "Ledger drift"])
    return _settle(_run("pdflatex -interaction=nonstopmode error_budget_review.tex", root), root)


@case(
    "u98_latexmk_undefined_control_sequence",
    "latexmk",
    clean=False,
    group=GROUP,
    decisive=[
        "! Undefined control sequence.",
        "l.31 The backoff starts at \\retrybackoff",
        "Latexmk: Errors, so I did not complete making targets",
    ],
)
def _latexmk_undefined(root: Path) -> bytes:
    edit = (30, "The backoff starts at \\retrybackoff{250} milliseconds and doubles on every failed attempt.")
    _doc(root, "payments_handbook", "Payments handbook", _CHAPTERS[:18], preamble=_HEADS, edits={"Retry policy": edit})
    return _settle(_run("latexmk -pdf -interaction=nonstopmode payments_handbook.tex", root), root)


_BIB_CLOSE = "\\bibliographystyle{plain}\n\\bibliography{payments}\n"


@case(
    "u98_latexmk_bibtex_missing_key",
    "latexmk",
    clean=False,
    group=GROUP,
    decisive=[
        "Citation `failed-payments-escalation-2021' on page 17 undefined on input line 35",
        "Latex failed to resolve 1 citation(s)",
    ],
)
def _latexmk_missing_key(root: Path) -> bytes:
    keys = _keys(60)
    edit = (40, "The escalation path is described in \\cite{failed-payments-escalation-2021}.")
    _doc(
        root, "retry_runbook", "Retry runbook", _CHAPTERS[:15], preamble=_HEADS, cites=keys, closing=_BIB_CLOSE,
        storm=False, edits={"Exception report": edit},
    )  # fmt: skip
    _bib(root, keys)
    return _settle(_run("latexmk -pdf -interaction=nonstopmode retry_runbook.tex", root), root)


@case(
    "u98_latexmk_undefined_reference",
    "latexmk",
    clean=False,
    group=GROUP,
    decisive=[
        "Reference `sec:failed_payments_escalation' on page 28 undefined on input line 21",
        "Latex failed to resolve 1 reference(s)",
    ],
)
def _latexmk_undefined_ref(root: Path) -> bytes:
    edit = (20, "Disputes are escalated as described in section~\\ref{sec:failed_payments_escalation}.")
    _doc(root, "operations_manual", "Operations manual", _CHAPTERS[:14], edits={"Chargebacks": edit})
    return _settle(_run("latexmk -pdf -interaction=nonstopmode operations_manual.tex", root), root)


@case(
    "u98_chktex_unmatched_brace",
    "chktex",
    clean=False,
    group=GROUP,
    decisive=[
        "Warning 15 in chapters/08_dunning.tex line 15: No match found for `{'.",
        "Number of `{' doesn't match the number of `}'!",
    ],
)
def _chktex(root: Path) -> bytes:
    edit = (14, "The retry budget is \\textbf{five attempts per failed payment.")
    _doc(root, "exception_report", "Exception report", _CHAPTERS[:18], edits={"Dunning": edit}, noise=True)
    return _settle(_run("chktex -q -v1 chapters/*.tex", root), root)


@case(
    "u98_lacheck_mismatched_end",
    "lacheck",
    clean=False,
    group=GROUP,
    decisive=['"chapters/09_ledger_drift.tex", line 34: <- unmatched "\\end{figure}"', '-> unmatched "\\begin{table}"'],
)
def _lacheck(root: Path) -> bytes:
    edit = (
        33,
        "\\begin{table}[htbp]\\centering\\begin{tabular}{ll}Retry & Error budget\\\\\\end{tabular}\\end{figure}",
    )
    _doc(root, "error_budget", "Error budget", _CHAPTERS[:18], include=False, edits={"Ledger drift": edit}, noise=True)
    return _settle(_run("lacheck error_budget.tex", root), root)


# ---------------------------------------------------------------- clean runs


@case(
    "u98_pdflatex_second_pass_clean",
    "pdflatex",
    clean=True,
    group=GROUP,
    decisive=["Output written on failed_payments_handbook.pdf (72 pages"],
)
def _second_pass(root: Path) -> bytes:
    _doc(root, "failed_payments_handbook", "Failed payments handbook", _CHAPTERS[:17], preamble=_HEADS)
    cmd = "pdflatex -interaction=nonstopmode failed_payments_handbook.tex"
    _run(cmd, root)
    return _settle(_run(cmd, root), root)


@case(
    "u98_pdflatex_bibtex_chain_clean",
    "pdflatex",
    clean=True,
    group=GROUP,
    decisive=["Output written on exception_report.pdf (54 pages, 254088 bytes)."],
)
def _bibtex_chain(root: Path) -> bytes:
    keys = _keys(48)
    _doc(
        root, "exception_report", "Exception report", _CHAPTERS[:12], preamble=_HEADS, cites=keys,
        closing=_BIB_CLOSE, include=False,
    )  # fmt: skip
    _bib(root, keys)
    x = "pdflatex -interaction=nonstopmode exception_report.tex"
    return _settle(_run(f"{x} && bibtex exception_report && {x} && {x}", root), root)


@case(
    "u98_latexmk_biber_clean",
    "latexmk",
    clean=True,
    group=GROUP,
    decisive=["INFO - Found 40 citekeys in bib section 0", "Latexmk: All targets () are up-to-date"],
)
def _latexmk_biber(root: Path) -> bytes:
    keys = _keys(40)
    pre = _HEADS + "\\usepackage[backend=biber,style=numeric]{biblatex}\n\\addbibresource{payments.bib}\n"
    _doc(
        root, "error_budget_review", "Error budget review", _CHAPTERS[:13], preamble=pre, cites=keys,
        closing="\\printbibliography\n",
    )  # fmt: skip
    _bib(root, keys)
    return _settle(_run("latexmk -pdf -interaction=nonstopmode error_budget_review.tex", root), root)


@case(
    "u98_latexmk_figures_clean",
    "latexmk",
    clean=True,
    group=GROUP,
    decisive=["Output written on retry_policy_manual.pdf (63 pages, 277620 bytes)."],
)
def _latexmk_figures(root: Path) -> bytes:
    chapters = _CHAPTERS[:15]
    _doc(root, "retry_policy_manual", "Retry policy manual", chapters, figs=True)
    _png(root, [f"{_slug(c)}_burn" for c in chapters])
    return _settle(_run("latexmk -pdf -interaction=nonstopmode retry_policy_manual.tex", root), root)
