"""Held-out outputs (group ``unseen-119``): a hundred-and-nineteenth batch, prose, spelling and documentation linters as
an agent runs them on the docs tree of a payments company, ``paydocs``: 90 Markdown and reST pages in nine sections
named after business words (``failed_payments``, ``error_codes``, ``retry_queue``, ``refund_exceptions``,
``chargeback_disputes`` ...) whose text is full of failed, declined, error, exception, retry and timeout.

Failing runs: a ``find | xargs`` lint loop running proselint (hundreds of style suggestions, tolerated) and codespell
on every page where codespell finds one typo in the middle and xargs exits 123, ``hunspell -a`` (pipe mode) over the
payments section where one misspelled word shows as a single ``&`` line among thousands of ``*`` lines and the exit
status is 0, ``aspell -a`` over the refunds section with its one ``&`` line just above a long tail (exit 0 too),
``alex`` over the tree where one page has an inconsiderate word, markdown-link-check over the tree where one
relative link is dead (only ``ERROR: 1 dead links found!`` says so; it exits 0), and ``make spelling`` (aspell list
per page) stopping at one page with an unknown word. Clean runs full of those business words: ``hunspell -a`` over
the billing and error sections with a count of misspelled words, markdown-link-check over every page with all links
alive, ``codespell -w`` fixing typos with binary-file warnings and a re-check, and the ``find | xargs`` lint loop
with proselint suggestions but no typo. Labels were written with each scenario, before the engine saw the output.
Needs codespell 2.2, hunspell 1.7 with its en_US dictionary, aspell 0.60 with its English dictionary (Debian
``codespell``, ``hunspell``, ``hunspell-en-us``, ``aspell``, ``aspell-en``), proselint 0.14.0 from PyPI (a virtual
environment of its own under ``/tmp/offloader-corpus-venvs/u119-proselint``), alex 11.0.1 and markdown-link-check
3.13.7 from npm (installed once under ``/tmp/u119-tools``), and make; offline, local files only.
"""

from __future__ import annotations

from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-119"

_NPM = Path("/tmp/u119-tools")
_NPM_BIN = _NPM / "node_modules" / ".bin"


def _npm_tools() -> Path:
    """alex and markdown-link-check, installed once from the npm registry; their ``.bin`` folder."""
    if not (_NPM / ".complete").exists():
        _NPM.mkdir(parents=True, exist_ok=True)
        sh(
            "npm init -y >/dev/null && npm install -q --no-audit --no-fund alex@11.0.1 markdown-link-check@3.13.7"
            " && touch .complete",
            _NPM,
        )
    return _NPM_BIN


def _proselint() -> Path:
    return make_venv(VENVS / "u119-proselint", "proselint==0.14.0") / "bin" / "proselint"


#: The nine sections of the docs tree and their ten pages each.
_SECTIONS = {
    "billing": [
        "billing_overview", "invoice_errors", "failed_invoices", "dunning_retries", "tax_exceptions",
        "proration", "billing_cycles", "credit_notes", "invoice_pdf", "billing_faq",
    ],
    "payments": [
        "failed_payments", "declined_cards", "payment_timeouts", "payment_methods", "capture_errors",
        "authorization_holds", "payment_intents", "three_d_secure", "partial_captures", "payments_faq",
    ],
    "errors": [
        "error_codes", "error_handling", "exception_mapping", "fatal_errors", "gateway_errors",
        "validation_errors", "rate_limit_errors", "error_budget", "error_dashboards", "errors_faq",
    ],
    "refunds": [
        "refunds_overview", "refund_exceptions", "failed_refunds", "partial_refunds", "refund_timeouts",
        "refund_approvals", "refund_reversals", "refund_ledger", "refund_webhooks", "refunds_faq",
    ],
    "ops": [
        "retry_queue", "dead_letters", "incident_runbook", "outage_playbook", "alert_rules",
        "on_call", "queue_backlog", "crash_recovery", "failover", "ops_faq",
    ],
    "ledger": [
        "ledger_overview", "reconciliation", "settlement_failures", "payouts", "currency_errors",
        "balance_exceptions", "journal_entries", "month_end", "ledger_audit", "ledger_faq",
    ],
    "disputes": [
        "chargeback_disputes", "dispute_evidence", "fraud_alerts", "lost_disputes", "dispute_deadlines",
        "fraud_rules", "blocked_cards", "risk_scores", "dispute_fees", "disputes_faq",
    ],
    "api": [
        "api_errors", "webhooks", "idempotency", "pagination", "api_versions",
        "rate_limits", "api_keys", "webhook_retries", "sandbox", "api_faq",
    ],
    "support": [
        "support_overview", "customer_complaints", "escalations", "failed_logins", "account_locks",
        "support_macros", "ticket_errors", "refund_requests", "support_exceptions", "support_faq",
    ],
}  # fmt: skip

_RST = {"error_codes", "exception_mapping", "reconciliation", "month_end", "api_versions", "escalations"}

#: Words of the business the English dictionaries do not know (the hunspell and aspell personal word lists).
_JARGON = [
    "chargeback",
    "chargebacks",
    "webhook",
    "webhooks",
    "idempotency",
    "APIs",
    "md",
    "rst",
    "JSON",
    "USD",
    "failover",
    "Failover",
    "proration",
    "Proration",
    "runbook",
]

_SENTENCES = [
    "When a {w} payment fails, the gateway returns an error code and the payment is placed in the retry queue.",
    "A declined card is retried at most five times; after the last retry the {w} record is marked as failed.",
    "Every exception raised while processing {w} events is written to the exception log with the merchant number.",
    "If the gateway does not answer within thirty seconds, the {w} request ends with a timeout error.",
    "Refunds of failed {w} payments are never sent twice, because each request carries an idempotency key.",
    "The dead letter queue keeps every {w} message that could not be delivered after the final retry.",
    "Support agents see the error code, the decline reason and the number of retries on the {w} page.",
    "A fatal error in the {w} service stops the worker, and the supervisor restarts it within a minute.",
    "Chargebacks on {w} payments are answered with the receipt, the delivery proof and the customer emails.",
    "The ledger records the failed amount, the fee and the currency of each {w} entry in USD.",
    "Webhooks for {w} events are signed; a webhook that fails the signature check is rejected with an error.",
    "An invoice that stays unpaid after three reminders is moved to the collections team with its {w} history.",
    "Error budgets for the {w} service are reviewed every week together with the count of failed requests.",
    "A validation error names the field that was rejected and the rule that the {w} request broke.",
    "Exceptions that are not handled by the {w} worker are reported to the alert channel of the team on call.",
    "The retry queue waits one minute before the first retry and doubles the delay after every failed attempt.",
]

_WORDS = ["billing", "refund", "invoice", "ledger", "payout", "dispute", "checkout", "settlement", "subscription"]


_UPPER = {"api": "API", "faq": "FAQ", "pdf": "PDF", "d": "D"}


def _title(page: str, *, cap: bool = True) -> str:
    words = " ".join(_UPPER.get(w, w) for w in page.split("_"))
    return words[0].upper() + words[1:] if cap else words


def _page_name(section: str, page: str) -> str:
    return f"docs/{section}/{page}.{'rst' if page in _RST else 'md'}"


def _page(k: int, section: str, page: str, *, paragraphs: int = 6) -> str:
    """The text of one page: a title, paragraphs of business prose, a table of error codes and links to the next
    pages of its section and of the next section."""
    title = _title(page)
    rst = page in _RST
    lines = [title, "=" * len(title), ""] if rst else [f"# {title}", ""]
    for p in range(paragraphs):
        sent = [_SENTENCES[(k * 3 + p * 5 + j) % len(_SENTENCES)] for j in range(4)]
        lines += [" ".join(s.format(w=_WORDS[(k + p + j) % len(_WORDS)]) for j, s in enumerate(sent)), ""]
    codes = [(f"{4000 + k * 10 + j}", ["declined", "timeout", "expired", "blocked", "failed"][j % 5]) for j in range(5)]
    if rst:
        lines += [".. list-table:: Error codes", ""]
        lines += [f"   * - {c}\n     - {r}" for c, r in codes] + [""]
    else:
        lines += ["| Code | Reason |", "| --- | --- |"] + [f"| {c} | {r} |" for c, r in codes] + [""]
        sections = list(_SECTIONS)
        s = sections.index(section)
        pages = _SECTIONS[section]
        i = pages.index(page)
        nxt = sections[(s + 1) % len(sections)]
        links = [f"./{pages[(i + d) % 10]}" for d in (1, 2, 3)] + [f"../{nxt}/{_SECTIONS[nxt][j]}" for j in (0, 1)]
        lines += ["See also:", ""]
        for link in links:
            target = link.rsplit("/", 1)[1]
            ext = "rst" if target in _RST else "md"
            lines.append(f"- [{_title(target, cap=False)}]({link}.{ext})")
        lines.append("")
    return "\n".join(lines)


def _docs(root: Path, *, edits: dict[str, tuple[str, str]] | None = None, paragraphs: int = 6) -> list[str]:
    """The 90 pages in ``root/docs`` and the personal word lists; ``edits`` replaces, in the named page, the first
    occurrence of a string; the page names, in order."""
    edits = edits or {}
    files: dict[str, str] = {}
    k = 0
    for section, pages in _SECTIONS.items():
        for page in pages:
            name = _page_name(section, page)
            text = _page(k, section, page, paragraphs=paragraphs)
            if name in edits:
                old, new = edits[name]
                assert old in text, (name, old)
                text = text.replace(old, new, 1)
            files[name] = text
            k += 1
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    (root / ".wordlist").write_text("\n".join(_JARGON) + "\n")
    (root / ".aspell.en.pws").write_text(f"personal_ws-1.1 en {len(_JARGON)}\n" + "\n".join(_JARGON) + "\n")
    return list(files)


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(scrub(out, root), (r"\d+(\.\d+)?m?s\b", "0ms"))


# ---------------------------------------------------------------- find | xargs lint loop

_LOOP = (
    "find docs -type f \\( -name '*.md' -o -name '*.rst' \\) | sort | xargs -n1 sh -c "
    '\'echo "== $0"; {proselint} "$0" || true; codespell -I .codespell-ignore "$0" && echo "   codespell ok"\''
)


def _loop(root: Path) -> bytes:
    (root / ".codespell-ignore").write_text("fo\n")
    return _settle(sh(_LOOP.format(proselint=_proselint()), root), root)


_STYLE = {
    # what proselint has something to say about: spread over the tree, tolerated by the loop
    f"docs/{s}/{pages[j]}.md": ("\n\n", "\n\nVery unique failures are basically impossible!!\n\n")
    for s, pages in _SECTIONS.items()
    for j in (0, 3, 6)
    if pages[j] not in _RST
}


@case(
    "u119_lint_loop_codespell_typo",
    "find | xargs (proselint, codespell)",
    clean=False,
    group=GROUP,
    decisive=["docs/ledger/settlement_failures.md:7: recieved ==> received", "[exit status 123]"],
)
def _loop_typo(root: Path) -> bytes:
    edits = dict(_STYLE)
    edits["docs/ledger/settlement_failures.md"] = ("The ledger records", "The ledger recieved and records")
    _docs(root, edits=edits)
    return _loop(root)


@case(
    "u119_lint_loop_clean",
    "find | xargs (proselint, codespell)",
    clean=True,
    group=GROUP,
    decisive=["== docs/support/support_overview.md", "   codespell ok"],
)
def _loop_clean(root: Path) -> bytes:
    _docs(root, edits=_STYLE)
    return _loop(root)


# ---------------------------------------------------------------- hunspell / aspell pipe mode


def _pipe(tool: str, pages: list[str]) -> str:
    count = "echo \"misspelled words: $(grep -c '^[&#]' spell.out)\""
    return f"cat {' '.join(pages)} | {tool} > spell.out; cat spell.out; {count}"


_HUNSPELL = "hunspell -a -d en_US -p .wordlist"
_ASPELL = "aspell -a --lang=en --mode=markdown --personal=./.aspell.en.pws"


def _section_pages(*sections: str) -> list[str]:
    return [_page_name(s, p) for s in sections for p in _SECTIONS[s]]


@case(
    "u119_hunspell_pipe_misspelling",
    "hunspell -a",
    clean=False,
    group=GROUP,
    decisive=["& reconcilation", "misspelled words: 1"],
)
def _hunspell_typo(root: Path) -> bytes:
    _docs(root, edits={"docs/payments/declined_cards.md": ("the merchant number", "the reconcilation number")})
    pages = _section_pages("payments", "ops")
    return _settle(sh(_pipe(_HUNSPELL, pages), root), root)


@case(
    "u119_hunspell_pipe_clean",
    "hunspell -a",
    clean=True,
    group=GROUP,
    decisive=["@(#) International Ispell Version 3.2.06 (but really Hunspell 1.7.1)", "misspelled words: 0"],
)
def _hunspell_clean(root: Path) -> bytes:
    _docs(root)
    return _settle(sh(_pipe(_HUNSPELL, _section_pages("billing", "errors")), root), root)


@case(
    "u119_aspell_pipe_misspelling",
    "aspell -a",
    clean=False,
    group=GROUP,
    decisive=["& chargebak", "misspelled words: 1"],
)
def _aspell_typo(root: Path) -> bytes:
    _docs(root, edits={"docs/refunds/refund_webhooks.md": ("Chargebacks on", "Chargebacks and every chargebak on")})
    pages = _section_pages("refunds", "disputes")
    return _settle(sh(_pipe(_ASPELL, pages), root), root)


# ---------------------------------------------------------------- make spelling (aspell list)

_MAKEFILE = """\
PAGES := $(shell find docs -type f \\( -name '*.md' -o -name '*.rst' \\) | sort)
ASPELL := aspell list --lang=en --mode=markdown --personal=./.aspell.en.pws

spelling:
\t@bad=0; for f in $(PAGES); do \\
\t  words=$$($(ASPELL) < $$f | sort -u); \\
\t  if [ -n "$$words" ]; then echo "spelling: $$f: unknown words:"; echo "$$words" | sed 's/^/    /'; \\
\t    bad=$$((bad + 1)); continue; fi; \\
\t  echo "spelling: $$f: $$(wc -w < $$f) words, ok"; \\
\tdone; \\
\tif [ $$bad -gt 0 ]; then echo "spelling: $$bad of $(words $(PAGES)) pages have unknown words"; exit 1; fi
\t@echo "spelling: all pages ok"

.PHONY: spelling
"""


@case(
    "u119_make_spelling_unknown_word",
    "make spelling (aspell list)",
    clean=False,
    group=GROUP,
    decisive=[
        "spelling: docs/ops/queue_backlog.md: unknown words:",
        "    backoffs",
        "spelling: 1 of 90 pages have unknown words",
    ],
)
def _make_spelling(root: Path) -> bytes:
    _docs(root, edits={"docs/ops/queue_backlog.md": ("The retry queue waits", "The retry queue backoffs wait")})
    write(root, {"Makefile": _MAKEFILE})
    return _settle(sh("make spelling", root), root)


# ---------------------------------------------------------------- alex


@case(
    "u119_alex_insensitive",
    "alex",
    clean=False,
    group=GROUP,
    decisive=["docs/support/escalations.rst", "`chairman` may be insensitive", "1 warning", "[exit status 1]"],
)
def _alex(root: Path) -> bytes:
    edits = {"docs/support/escalations.rst": ("to the collections team", "to the chairman of the collections team")}
    _docs(root, edits=edits)
    (root / ".alexrc").write_text(
        '{"allow": ["failure", "failures", "failed", "failed-suicide", "dead", "fraud", "crash", "execute"]}\n'
    )
    bin_ = _npm_tools()
    return _settle(sh(f"{bin_}/alex 'docs/**/*.md' 'docs/**/*.rst'", root), root)


# ---------------------------------------------------------------- markdown-link-check


@case(
    "u119_link_check_dead_link",
    "markdown-link-check",
    clean=False,
    group=GROUP,
    decisive=[
        "FILE: docs/refunds/partial_refunds.md",
        "[✖] ./refund_timeout.md → Status: 400",
        "ERROR: 1 dead links found!",
    ],
)
def _link_dead(root: Path) -> bytes:
    _docs(root, edits={"docs/refunds/partial_refunds.md": ("(./refund_timeouts.md)", "(./refund_timeout.md)")})
    bin_ = _npm_tools()
    return _settle(sh(f"{bin_}/markdown-link-check docs", root), root)


@case(
    "u119_link_check_clean",
    "markdown-link-check",
    clean=True,
    group=GROUP,
    decisive=["FILE: docs/support/support_overview.md", "5 links checked."],
)
def _link_clean(root: Path) -> bytes:
    _docs(root)
    bin_ = _npm_tools()
    return _settle(sh(f"{bin_}/markdown-link-check docs", root), root)


# ---------------------------------------------------------------- codespell --write-changes

_TYPOS = ["occured", "recieve", "seperate", "accross", "existant", "untill", "wich", "succesful"]
_FIXES = ["occurred", "receive", "separate", "across", "existent", "until", "which", "successful"]


@case(
    "u119_codespell_fix_clean",
    "codespell -w",
    clean=True,
    group=GROUP,
    decisive=["FIXED: docs/api/api_errors.md", "codespell: no typos left in 90 pages"],
)
def _codespell_fix(root: Path) -> bytes:
    edits = {}
    names = [_page_name(s, p) for s, pages in _SECTIONS.items() for p in pages]
    for n, name in enumerate(names[::2]):
        edits[name] = ("\n\n", f"\n\nThe {_TYPOS[n % len(_TYPOS)]} entries are listed below.\n\n")
    _docs(root, edits=edits)
    assets = root / "docs" / "assets"
    assets.mkdir()
    for pages in _SECTIONS.values():
        for p in pages:
            (assets / f"{p}_flow.png").write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" + p.encode() * 8)
    cmd = (
        "codespell -q 2 -w -i 0 $(find docs -name '*.md' -o -name '*.rst' | sort);"
        " codespell -q 0 $(find docs -type f | sort)"
        " && echo \"codespell: no typos left in $(find docs -name '*.md' -o -name '*.rst' | wc -l) pages\""
    )
    return _settle(sh(cmd, root), root)
