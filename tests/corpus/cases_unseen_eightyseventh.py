"""Held-out outputs (group ``unseen-87``): an eighty-seventh batch, static site generators as an agent runs them on
the documentation site of a generated payments company, whose sections and pages are named after the business
(``failed-payments``, ``error-codes``, ``retry-queue``, ``exception-report``, ``refunds``, ``disputes``), so the clean
runs are full of those words.

Failing runs: ``hugo --printPathWarnings --printUnusedTemplates -v`` over 300 pages whose ``retry-badge.html`` partial
multiplies a string on one page of the retry queue (after a WARN line for every page without an owner), a ``make
docs`` that generates 240 error-code pages from a catalogue and then fails in Hugo on a missing ``error-table``
shortcode, a Hugo build with two ``REF_NOT_FOUND`` links among a hundred WARN lines, ``jekyll build --trace
--verbose`` with an unclosed ``if`` in one include of a 250-page site (the Liquid exception and Ruby's backtrace after
the rendering log), ``npx @11ty/eleventy`` where a Nunjucks include calls ``toFixed`` on a fee one page lacks, Eleventy
whose refunds layout renders a Liquid partial that does not exist, and ``linkchecker`` on a built Hugo site with two
broken links among hundreds of checked URLs. Clean runs: Hugo's build with unused-template warnings and its page and
alias table, then ``hugo list all``; ``jekyll build --verbose``; Eleventy writing 301 files; ``linkchecker`` over the
Jekyll site with every link valid. Labels were written with each scenario, before the engine saw the output. Needs
Hugo, Jekyll and LinkChecker (Debian ``hugo``, ``jekyll``, ``linkchecker``) and @11ty/eleventy 3.1.8 from the npm
registry (installed once under ``/tmp/u87-tools``, npm cache ``/tmp/u87-npm-cache``) with Node.js 20.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-87"

_TOOLS = Path("/tmp/u87-tools")
_CACHE = "/tmp/u87-npm-cache"

#: Hugo renders in goroutines; with one OS thread its log lines come in the same order on every run.
_HUGO = "GOMAXPROCS=1 HUGO_NUMWORKERMULTIPLIER=1 hugo"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, clocks and durations."""
    return substitute(
        scrub(out, root),
        (r"^(INFO|WARN|ERROR|DEBUG) \d{4}/\d\d/\d\d \d\d:\d\d:\d\d ", r"\1 2026/01/01 00:00:00 "),
        (r"Total in \d+ ms", "Total in 100 ms"),
        (r"done in \d+\.\d+ seconds", "done in 1.000 seconds"),
        (r"in \d+\.\d+ seconds \(", "in 1.00 seconds ("),
        (r"\(\d+\.\d+ms each", "(1.0ms each"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(\+\d{4}| [A-Z]{3,4}|[+-]\d\d:?\d\d)?", "2026-01-01 00:00:00+0000"),
        (r"Check time \d+\.\d+ seconds", "Check time 0.001 seconds"),
        (r"(\d+ (threads|links|URLs) .*)\d+ (seconds|milliseconds)", r"\g<1>1 seconds"),
        (r"Stopped checking at .*$", "Stopped checking at 2026-01-01 00:00:00+0000 (1 seconds)"),
        (r"^(\d+ threads active, +\d+ links queued, +\d+ links in +\d+ URLs checked, runtime ).*$", r"\g<1>1 seconds"),
        (r"(Build Date|BuildDate)=\S+", r"\1=2023-03-16T08:41:31Z"),
    )


# ---------------------------------------------------------------- the payments company's pages

_SECTIONS = {
    "failed-payments": ["card-declined", "insufficient-funds", "expired-card", "issuer-unavailable", "do-not-honor"],
    "error-codes": ["invalid-cvc", "duplicate-charge", "gateway-timeout", "currency-mismatch", "fraud-suspected"],
    "retry-queue": ["backoff-policy", "dead-letter", "max-attempts", "replay-window", "idempotency-keys"],
    "exception-report": ["daily-digest", "unmatched-refunds", "orphan-captures", "ledger-drift", "stuck-payouts"],
    "refunds": ["partial-refund", "refund-failed", "refund-reversal", "instant-refund", "refund-errors"],
    "billing": ["invoice-retry", "dunning", "proration", "tax-errors", "failed-renewals"],
    "webhooks": ["delivery-failed", "signature-errors", "retry-schedule", "event-types", "replay"],
    "disputes": ["chargeback-lost", "evidence-deadline", "dispute-errors", "pre-arbitration", "won-disputes"],
    "ledger": ["balance-errors", "settlement", "reconciliation-failed", "journal-entries", "fx-adjustments"],
    "payouts": ["payout-failed", "bank-rejected", "payout-retry", "schedule", "negative-balance"],
}


def _pages(per_topic: int) -> list[tuple[str, str, str, str]]:
    """(section, slug, title, body) for every page: each topic of each section ``per_topic`` times."""
    out = []
    for s, (section, topics) in enumerate(_SECTIONS.items()):
        for t, topic in enumerate(topics):
            for k in range(per_topic):
                slug = f"{topic}-{k + 1:02d}"
                code = 4000 + s * 100 + t * 10 + k
                title = f"{topic.replace('-', ' ').capitalize()} ({section.replace('-', ' ')}) #{k + 1}"
                body = (
                    f"When a charge fails with code E{code}, the payment is marked failed and sent to the retry "
                    f"queue. Errors that persist after the last attempt appear in the exception report.\n\n"
                    f"- failure reason: `{topic}`\n- error code: `E{code}`\n- retry: exponential backoff\n"
                )
                out.append((section, slug, title, body))
    return out


# ---------------------------------------------------------------- Hugo

_HUGO_LAYOUTS = {
    "config.toml": """
        baseURL = "https://docs.ledgerline.example/"
        languageCode = "en-us"
        title = "Ledgerline Payments Docs"
        refLinksErrorLevel = "ERROR"
        [params]
          support = "payments-errors@ledgerline.example"
    """,
    "layouts/_default/baseof.html": """
        <!doctype html>
        <html lang="en">
        <head><title>{{ .Title }} | {{ .Site.Title }}</title></head>
        <body>
        {{ partial "header.html" . }}
        <main>{{ block "main" . }}{{ end }}</main>
        {{ partial "footer.html" . }}
        </body>
        </html>
    """,
    "layouts/_default/single.html": """
        {{ define "main" }}
        <article>
          <h1>{{ .Title }}</h1>
          {{ partial "owner.html" . }}
          {{ partial "retry-badge.html" . }}
          {{ .Content }}
        </article>
        {{ end }}
    """,
    "layouts/_default/list.html": """
        {{ define "main" }}
        <h1>{{ .Title }}</h1>
        <ul>{{ range .Pages }}<li><a href="{{ .RelPermalink }}">{{ .Title }}</a></li>{{ end }}</ul>
        {{ end }}
    """,
    "layouts/_default/summary.html": """
        <div class="summary"><a href="{{ .RelPermalink }}">{{ .Title }}</a>{{ .Summary }}</div>
    """,
    "layouts/partials/header.html": """
        <header><a href="/">Ledgerline</a>
        {{ range .Site.Sections }}<a href="{{ .RelPermalink }}">{{ .Title }}</a> {{ end }}</header>
    """,
    "layouts/partials/footer.html": """
        <footer>Questions about failed payments: {{ .Site.Params.support }}</footer>
    """,
    "layouts/partials/owner.html": """
        {{ with .Params.owner }}<p class="owner">Owned by {{ . }}</p>
        {{ else }}{{ warnf "%s: no owner in front matter, falling back to payments-docs" .File.Path }}
        {{ end }}
    """,
    "layouts/partials/retry-badge.html": """
        {{- with .Params.retry -}}
        <aside class="retry">
          <strong>Retry policy</strong>
          <span>{{ .max_attempts }} attempts, first delay {{ mul .backoff 2 }}s</span>
        </aside>
        {{- end -}}
    """,
    "layouts/partials/legacy-error-banner.html": """
        <div class="banner">This error code is deprecated.</div>
    """,
    "layouts/shortcodes/callout.html": """
        <div class="callout">{{ .Inner | markdownify }}</div>
    """,
}


def _hugo_site(root: Path, *, per_topic: int = 6, owners: bool = False, extra: dict[str, str] | None = None) -> None:
    """A Hugo site of 10 sections of ``per_topic`` pages per topic; every third page has no owner unless
    ``owners``; retry-queue pages carry a retry policy; every fourth page an alias."""
    files = dict(_HUGO_LAYOUTS)
    for i, (section, slug, title, body) in enumerate(_pages(per_topic)):
        meta = [f'title: "{title}"', f"weight: {i + 1}"]
        if owners or i % 3:
            meta.append(f"owner: {section.split('-')[0]}-team")
        if i % 4 == 0:
            meta.append(f'aliases: ["/legacy/{section}/{slug}/"]')
        if section == "retry-queue":
            meta.append(f"retry:\n  max_attempts: {3 + i % 5}\n  backoff: {15 + i % 7}")
        text = "---\n" + "\n".join(meta) + "\n---\n" + body
        if i % 9 == 0:
            text += "\n{{< callout >}}Check the **exception report** before replaying.{{< /callout >}}\n"
        files[f"content/{section}/{slug}.md"] = text
    for section in _SECTIONS:
        files[f"content/{section}/_index.md"] = f'---\ntitle: "{section.replace("-", " ").title()}"\n---\n'
    files["content/_index.md"] = '---\ntitle: "Ledgerline Payments"\n---\nDocumentation for payment errors.\n'
    files.update(extra or {})
    write(root, files)


_HUGO_FLAGS = "--printPathWarnings --printUnusedTemplates -v"


@case(
    "u87_hugo_partial_mul_error",
    "hugo",
    clean=False,
    group=GROUP,
    decisive=[
        'partials/retry-badge.html:4:53": execute of template failed',
        "error calling mul: can't apply the operator to the values",
    ],
)
def _hugo_partial_error(root: Path) -> bytes:
    bad = (
        '---\ntitle: "Dead letter (retry queue) #3"\nweight: 133\nowner: retry-team\n'
        "retry:\n  max_attempts: 5\n  backoff: exponential\n---\n"
        "Payments that failed every attempt land in the dead-letter queue.\n"
    )
    _hugo_site(root, extra={"content/retry-queue/dead-letter-03.md": bad})
    return _settle(sh(f"{_HUGO} {_HUGO_FLAGS}", root), root)


@case(
    "u87_hugo_clean_list_all",
    "hugo",
    clean=True,
    group=GROUP,
    decisive=["Pages            |", "Aliases          |"],
)
def _hugo_clean(root: Path) -> bytes:
    _hugo_site(root, per_topic=7, owners=True)
    return _settle(sh(f"{_HUGO} {_HUGO_FLAGS} && {_HUGO} list all", root), root)


@case(
    "u87_hugo_ref_not_found",
    "hugo",
    clean=False,
    group=GROUP,
    decisive=[
        'REF_NOT_FOUND: Ref "error-codes/gateway-timeout-09.md"',
        'REF_NOT_FOUND: Ref "refunds/refund-reversal-v2.md"',
        "Error: Error building site: logged 2 error(s)",
    ],
)
def _hugo_ref(root: Path) -> bytes:
    extra = {
        "content/failed-payments/issuer-unavailable-04.md": (
            '---\ntitle: "Issuer unavailable #4"\n---\n'
            'See [the timeout code]({{< ref "error-codes/gateway-timeout-09.md" >}}) and '
            '[card declined]({{< ref "failed-payments/card-declined-01.md" >}}).\n'
        ),
        "content/disputes/dispute-errors-02.md": (
            '---\ntitle: "Dispute errors #2"\nowner: disputes-team\n---\n'
            'A lost dispute reverses the refund: see [reversal]({{< ref "refunds/refund-reversal-v2.md" >}}).\n'
        ),
    }
    _hugo_site(root, per_topic=6, extra=extra)
    return _settle(sh(f"{_HUGO} {_HUGO_FLAGS}", root), root)


_ERROR_CATALOGUE = r"""
import json
import pathlib
import sys

reasons = ["card_declined", "insufficient_funds", "expired_card", "issuer_unavailable", "do_not_honor",
           "invalid_cvc", "duplicate_charge", "gateway_timeout", "currency_mismatch", "fraud_suspected",
           "refund_failed", "payout_failed"]
out = pathlib.Path("content/error-codes")
out.mkdir(parents=True, exist_ok=True)
catalogue = []
for n in range(240):
    code = f"E{4000 + n}"
    reason = reasons[n % len(reasons)]
    retryable = n % 3 != 0
    catalogue.append({"code": code, "reason": reason, "retryable": retryable})
    body = [
        "---", f'title: "{code} {reason}"', f"weight: {n + 1}", "owner: payments-errors", "---",
        f"Error {code} means the payment failed with `{reason}`.", "",
    ]
    if n == 173:
        body += ['{{< error-table code="' + code + '" >}}', ""]
    (out / f"{code.lower()}-{reason.replace('_', '-')}.md").write_text("\n".join(body))
    print(f"gen-error-pages: wrote content/error-codes/{code.lower()}-{reason.replace('_', '-')}.md"
          f" (reason={reason}, retryable={str(retryable).lower()})")
pathlib.Path("data").mkdir(exist_ok=True)
pathlib.Path("data/errors.json").write_text(json.dumps(catalogue, indent=1))
print(f"gen-error-pages: {len(catalogue)} error codes, {sum(c['retryable'] for c in catalogue)} retryable",
      file=sys.stderr)
"""


@case(
    "u87_make_docs_missing_shortcode",
    "hugo",
    clean=False,
    group=GROUP,
    decisive=[
        'content/error-codes/e4173-invalid-cvc.md:8:1": failed to extract shortcode',
        'template for shortcode "error-table" not found',
        "make: *** [Makefile:",
    ],
)
def _hugo_shortcode(root: Path) -> bytes:
    makefile = (
        ".PHONY: docs pages site\n\ndocs: pages site\n\npages:\n\tpython3 scripts/gen_error_pages.py\n\n"
        f"site:\n\t{_HUGO} {_HUGO_FLAGS} --cleanDestinationDir\n"
    )
    _hugo_site(root, per_topic=2, owners=True, extra={"scripts/gen_error_pages.py": _ERROR_CATALOGUE})
    (root / "Makefile").write_text(makefile)
    return _settle(sh("make docs", root), root)


# ---------------------------------------------------------------- linkchecker on a built site


_LINKCHECK_TOML = 'relativeURLs = true\nuglyURLs = true\ndisableKinds = ["sitemap", "RSS", "taxonomy", "term"]\n'


def _linkchecker(target: str, root: Path) -> bytes:
    """``linkchecker -v`` on the built ``target`` (one thread, so URLs come in one order; the folder readable by
    the user it drops to)."""
    for path in [root, *root.rglob("*")]:
        path.chmod(0o755 if path.is_dir() else 0o644)
    out = sh(f"linkchecker --no-status --verbose -t0 {target}", root)
    return substitute(
        _settle(out, root),
        (r"^Modified   .*$", "Modified   2026-01-01 00:00:00.000000Z"),
        (r"^((?:WARNING|INFO) linkcheck\.\S+) .* MainThread ", r"\1 2026-01-01 00:00:00,000 MainThread "),
        (r"^Start checking at .*$", "Start checking at 2026-01-01 00:00:00+000"),
    )


@case(
    "u87_linkchecker_hugo_broken",
    "linkchecker",
    clean=False,
    group=GROUP,
    decisive=[
        "No such file or directory: '/tmp/work/public/refunds/refund-failed-07.html'",
        "No such file or directory: '/tmp/work/public/exception-report/weekly-digest.html'",
        "2 errors found.",
    ],
)
def _linkchecker_hugo(root: Path) -> bytes:
    extra = {
        "content/refunds/refund-errors-02.md": (
            '---\ntitle: "Refund errors #2"\nowner: refunds-team\n---\n'
            "Compare with [refund failed #7](/refunds/refund-failed-07.html) and "
            "[refund failed #1](/refunds/refund-failed-01.html).\n"
        ),
        "content/ledger/ledger-drift-notes.md": (
            '---\ntitle: "Ledger drift notes"\nowner: ledger-team\n---\n'
            "Drift shows up first in the [weekly digest](/exception-report/weekly-digest.html); the "
            "[daily digest](/exception-report/daily-digest-01.html) lists the failed entries.\n"
        ),
        "linkcheck.toml": _LINKCHECK_TOML,
    }
    _hugo_site(root, per_topic=4, owners=True, extra=extra)
    build = sh(f"{_HUGO} --quiet --config config.toml,linkcheck.toml", root)
    return build + _linkchecker("public/index.html", root)


# ---------------------------------------------------------------- Jekyll

_JEKYLL = {
    "_config.yml": """
        title: Ledgerline Payments
        description: How Ledgerline handles failed payments, error codes and the retry queue.
        markdown: kramdown
        permalink: /:path/:basename:output_ext
        exclude: [Makefile, README.md]
    """,
    "_layouts/default.html": """
        <!doctype html>
        <html lang="en">
        <head><title>{{ page.title }} | {{ site.title }}</title></head>
        <body>
        {% include header.html %}
        <main>{{ content }}</main>
        {% include footer.html %}
        </body>
        </html>
    """,
    "_layouts/doc.html": """
        ---
        layout: default
        ---
        <article>
          <h1>{{ page.title }}</h1>
          {% include owner.html %}
          {% if page.section == "retry-queue" %}{% include retry-notice.html %}{% endif %}
          {% include error-summary.html code=page.code reason=page.reason %}
          {{ content }}
          <p><a href="../index.html">All payment docs</a></p>
        </article>
    """,
    "_includes/header.html": """
        <header><a href="{{ page.home }}index.html">{{ site.title }}</a></header>
    """,
    "_includes/footer.html": """
        <footer>{{ site.description }}</footer>
    """,
    "_includes/owner.html": """
        {% if page.owner %}<p class="owner">Owned by {{ page.owner }}</p>{% endif %}
    """,
    "_includes/error-summary.html": """
        <dl class="error-summary">
          <dt>Error code</dt><dd>{{ include.code }}</dd>
          <dt>Failure reason</dt><dd>{{ include.reason | replace: "-", " " }}</dd>
        </dl>
    """,
    "_includes/retry-notice.html": """
        <aside class="retry">
          {% if page.max_attempts > 3 %}
          Retried up to {{ page.max_attempts }} times before the dead-letter queue.
          {% else %}
          Retried {{ page.max_attempts }} times.
          {% endif %}
        </aside>
    """,
}


def _jekyll_site(root: Path, per_topic: int, extra: dict[str, str] | None = None) -> None:
    files = dict(_JEKYLL)
    index = ["---", "layout: default", "title: Payment docs", "home: ''", "---", "<ul>"]
    for i, (section, slug, title, body) in enumerate(_pages(per_topic)):
        meta = [
            "layout: doc", f'title: "{title}"', f"section: {section}", f"code: E{4000 + i}",
            f"reason: {slug.rsplit('-', 1)[0]}", f"max_attempts: {2 + i % 4}", "home: '../'",
        ]  # fmt: skip
        if i % 3:
            meta.append(f"owner: {section.split('-')[0]}-team")
        sibling = f"{slug.rsplit('-', 1)[0]}-01.html"
        files[f"{section}/{slug}.md"] = (
            "---\n" + "\n".join(meta) + f"\n---\n{body}\nFirst case: [{sibling}]({sibling})\n"
        )
        index.append(f'<li><a href="{section}/{slug}.html">{title}</a></li>')
    files["index.html"] = "\n".join([*index, "</ul>", ""])
    files.update(extra or {})
    write(root, files)


def _jekyll_env(root: Path) -> str:
    return f"HOME={root / 'home'} JEKYLL_ENV=production"


@case(
    "u87_jekyll_liquid_syntax_error",
    "jekyll",
    clean=False,
    group=GROUP,
    decisive=[
        "Liquid Exception: Liquid syntax error (/tmp/work/_includes/retry-notice.html line 7)",
        "'if' tag was never closed included  (Liquid::SyntaxError)",
    ],
)
def _jekyll_error(root: Path) -> bytes:
    broken = """
        <aside class="retry">
          {% if page.max_attempts > 3 %}
          Retried up to {{ page.max_attempts }} times before the dead-letter queue.
          {% else %}
          Retried {{ page.max_attempts }} times.
        </aside>
    """
    _jekyll_site(root, per_topic=5, extra={"_includes/retry-notice.html": broken})
    return _settle(sh(f"{_jekyll_env(root)} jekyll build --trace --verbose", root), root)


@case(
    "u87_jekyll_clean_verbose",
    "jekyll",
    clean=True,
    group=GROUP,
    decisive=["done in 1.000 seconds."],
)
def _jekyll_clean(root: Path) -> bytes:
    _jekyll_site(root, per_topic=5)
    return _settle(sh(f"{_jekyll_env(root)} jekyll build --verbose", root), root)


@case(
    "u87_linkchecker_jekyll_clean",
    "linkchecker",
    clean=True,
    group=GROUP,
    decisive=["0 warnings found. 0 errors found."],
)
def _linkchecker_jekyll(root: Path) -> bytes:
    _jekyll_site(root, per_topic=3)
    build = sh(f"{_jekyll_env(root)} jekyll build --quiet", root)
    return build + _linkchecker("_site/index.html", root)


# ---------------------------------------------------------------- Eleventy

_ELEVENTY_CONFIG = """
export default function (eleventyConfig) {
  eleventyConfig.addFilter("cents", (n) => (Number(n) / 100).toFixed(2));
  eleventyConfig.addCollection("errorCodes", (api) => api.getFilteredByTag("error-code"));
  return { dir: { input: "src", output: "_site" }, markdownTemplateEngine: "njk" };
}
"""


def _eleventy_site(root: Path, per_topic: int, extra: dict[str, str] | None = None) -> None:
    files: dict[str, str] = {
        "package.json": '{"name": "ledgerline-site", "private": true, "type": "module"}\n',
        "eleventy.config.js": _ELEVENTY_CONFIG,
        "src/_includes/layouts/base.njk": (
            "<!doctype html>\n<html><head><title>{{ title }} | Ledgerline</title></head>\n<body>\n"
            '{% include "partials/nav.njk" %}\n<main>{{ content | safe }}</main>\n</body></html>\n'
        ),
        "src/_includes/layouts/doc.njk": (
            "---\nlayout: layouts/base.njk\n---\n<article><h1>{{ title }}</h1>\n"
            '{% include "partials/error-table.njk" %}\n{{ content | safe }}</article>\n'
        ),
        "src/_includes/partials/nav.njk": (
            '<nav>{% for s in sections %}<a href="/{{ s }}/">{{ s | replace("-", " ") }}</a> {% endfor %}</nav>\n'
        ),
        "src/_includes/partials/error-table.njk": (
            '<table class="errors">\n{% for row in errors %}\n'
            "  <tr><td>{{ row.code }}</td><td>{{ row.reason }}</td><td>{{ row.fee | cents }}</td></tr>\n"
            "{% endfor %}\n</table>\n"
        ),
        "src/_data/sections.json": "[" + ", ".join(f'"{s}"' for s in _SECTIONS) + "]\n",
        "src/index.njk": (
            "---\nlayout: layouts/base.njk\ntitle: Payment docs\n---\n<ul>{% for p in collections.all %}"
            '<li><a href="{{ p.url }}">{{ p.data.title }}</a></li>{% endfor %}</ul>\n'
        ),
    }
    for i, (section, slug, title, body) in enumerate(_pages(per_topic)):
        rows = "".join(
            f"\n  - code: E{4000 + i * 3 + r}\n    reason: {slug.rsplit('-', 1)[0]}\n    fee: {150 + r * 25}"
            for r in range(3)
        )
        meta = f'layout: layouts/doc.njk\ntitle: "{title}"\ntags: [error-code, {section}]\nerrors:{rows}'
        files[f"src/{section}/{slug}.md"] = f"---\n{meta}\n---\n{body}"
    files.update(extra or {})
    write(root, files)
    (root / "node_modules").symlink_to(_TOOLS / "node_modules")


def _eleventy(root: Path, args: str = "") -> bytes:
    out = sh(f"UV_THREADPOOL_SIZE=1 npx --offline --cache {_CACHE} @11ty/eleventy {args}".rstrip(), root)
    return _settle(out, root)


@case(
    "u87_eleventy_clean_300_files",
    "eleventy",
    clean=True,
    group=GROUP,
    decisive=["[11ty] Wrote 301 files in 1.00 seconds ("],
)
def _eleventy_clean(root: Path) -> bytes:
    _eleventy_site(root, per_topic=6)
    return _eleventy(root)


@case(
    "u87_eleventy_nunjucks_error",
    "eleventy",
    clean=False,
    group=GROUP,
    decisive=[
        'Having trouble writing to "./_site/exception-report/weekly-replay/index.html"',
        "(/tmp/work/src/_includes/partials/error-table.njk) [Line 1, Column 97]",
        'Unable to call `row["fee"]["toFixed"]`, which is undefined or falsey (via Template render error)',
    ],
)
def _eleventy_njk(root: Path) -> bytes:
    extra = {
        "src/_includes/partials/error-table.njk": (
            '<table class="errors">\n{% for row in errors %}<tr><td>{{ row.code }}</td><td>{{ row.reason }}</td>'
            "<td>{{ row.fee.toFixed(2) }}</td></tr>\n{% endfor %}\n</table>\n"
        ),
        "src/exception-report/weekly-replay.md": (
            "---\nlayout: layouts/doc.njk\ntitle: Weekly replay of failed payments\ntags: [exception-report]\n"
            "errors:\n  - code: E4301\n    reason: replayed\n  - code: E4302\n    reason: dead-letter\n---\n"
            "Payments replayed from the retry queue this week.\n"
        ),
    }
    _eleventy_site(root, per_topic=6, extra=extra)
    return _eleventy(root)


@case(
    "u87_eleventy_liquid_render_missing",
    "eleventy",
    clean=False,
    group=GROUP,
    decisive=[
        'Having trouble writing to "./_site/refunds/refund-failed-03/index.html"',
        'ENOENT: Failed to lookup "partials/refund-status" in "./src/_includes/,./src/", file:./src/_includes/layouts/',
    ],
)
def _eleventy_liquid(root: Path) -> bytes:
    extra = {
        "src/_includes/layouts/refund.liquid": (
            "---\nlayout: layouts/base.njk\n---\n<article><h1>{{ title }}</h1>\n"
            '{% render "partials/refund-status", status: refund_status, code: errors[0].code %}\n'
            "{{ content }}</article>\n"
        ),
        "src/_includes/partials/refund-state.liquid": '<p class="status {{ status }}">{{ code }}: {{ status }}</p>\n',
        "src/refunds/refund-failed-03.md": (
            "---\nlayout: layouts/refund.liquid\ntitle: Refund failed #3\nrefund_status: failed\n"
            "errors:\n  - code: E4603\n    reason: refund-failed\n    fee: 0\n---\n"
            "The issuer rejected the refund; it is retried from the retry queue.\n"
        ),
    }
    _eleventy_site(root, per_topic=6, extra=extra)
    return _eleventy(root)
