"""Held-out outputs (group ``unseen-24``): a twenty-fourth batch, linters and formatters for prose, markup and C.

Every tool checks documents or sources generated in the scenario's folder: ``doc8`` over 60 RST documents full
of line-too-long and trailing-whitespace reports where one runbook links a target nobody defined, ``rstcheck``
over 60 documents full of short title underlines where one JSON code block has a trailing comma, ``tidy -e``
over 40 HTML templates full of warnings where one page uses an unknown custom element, ``chktex`` over the 21
chapters of a manual full of typographic warnings where one list opens ``itemize`` and closes ``enumerate``,
``shfmt -d`` over 40 shell scripts where most need reformatting and one function lacks its closing brace,
``clang-format --dry-run --Werror --verbose`` over 60 C files where one file is not formatted,
``clang-tidy`` over 20 C files full of readability warnings where one uses a macro that was renamed, and
``flawfinder --error-level=4`` over 60 C files full of level 1 and 2 hits where one calls ``system``. Clean
runs whose text talks about errors: ``doc8 --verbose`` over documents named ``errors.rst``,
``failed_jobs.rst`` and ``error_handling.rst``, ``markdownlint-cli2`` over a glossary with a "fatal error"
entry and a ``failed_jobs`` table, ``tidy -e`` over glossary pages named ``*-errors.html`` and
``fatal-error.html``, ``clang-format`` over ``error_handler.c`` and ``failed_jobs.c`` files and ``cpplint``
over ``error_handler.cc`` files. Labels were written with each scenario, before the engine saw the output.
Needs Debian ``tidy``, ``chktex``, ``shfmt``, ``clang-format``, ``clang-tidy`` and ``flawfinder``, ``doc8``,
``rstcheck`` and ``cpplint`` from PyPI and ``markdownlint-cli2`` from the npm registry.
"""

from __future__ import annotations

from pathlib import Path

from _harness import WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-24"


_DOC8 = "doc8==2.0.0 docutils==0.21.2 restructuredtext-lint==2.0.2 stevedore==5.10.0 pygments==2.21.0"
_RSTCHECK = (
    "rstcheck==6.3.0 rstcheck-core==1.3.2 docutils==0.21.2 pydantic==2.14.4 pydantic-core==2.50.5 typer==0.29.2 "
    "rich==15.0.0 markdown-it-py==4.3.0 mdurl==0.1.2 shellingham==1.5.4 typing-extensions==4.16.0 "
    "typing-inspection==0.4.5 annotated-types==0.8.0 annotated-doc==0.0.7 pygments==2.21.0"
)
_CPPLINT = "cpplint==2.0.2"


def _py_tools(root: Path, reqs: str) -> str:
    """``reqs`` at fixed versions in ``root/tools``; the environment prefix that runs them, unbuffered and with
    the scenario's own home."""
    return py_tools(root, reqs) + f" PYTHONUNBUFFERED=1 HOME={root / 'home'} XDG_CACHE_HOME={root / 'home' / '.cache'}"


def _title(text: str, char: str = "=", short: int = 0) -> str:
    return f"{text}\n{char * (len(text) - short)}\n"


# ---------------------------------------------------------------- doc8


def _doc8_docs(root: Path) -> None:
    for i, area in enumerate(WORDS):
        long = [
            f"The {area} service owns the {area} records of the shop and publishes every change to the event bus.",
            f"Each {area} record carries the identifier of the request that created it, so support can trace it.",
            f"Nightly jobs compact the {area} tables and archive rows older than ninety days to cold storage.",
            f"Dashboards for the {area} service show the request rate, the latency percentiles and the queue depth.",
        ]
        overview = _title(f"{area.capitalize()} service") + "\n" + "\n\n".join(long) + "\n\n"
        overview += _title("Owners", "-") + "\n" + f"* Team {area} (on call: ``#{area}-oncall``)\n* Platform team\n"
        target = "" if area == "refunds" else f".. _retry policy: https://wiki.example.com/{area}/retry-policy\n"
        runbook = (
            _title(f"{area.capitalize()} runbook")
            + "\n"
            + _title("Replaying a batch", "-")
            + "\n1. Pause the consumer with ``shopctl pause "
            + area
            + "``.\n2. Export the batch to a file.\n"
            + "3. Replay it with ``shopctl replay "
            + area
            + " --from FILE``.\n\n"
            + "Follow the `retry policy`_ before replaying a batch a second time.\n\n"
            + (
                f"When the replay of the {area} batch stops half way, resume it from the last acknowledged offset.\n\n"
                if i % 2 == 0
                else ""
            )
            + target
        )
        ws = "   " if i % 2 == 1 else ""
        api = (
            _title(f"{area.capitalize()} API")
            + "\n"
            + _title("Endpoints", "-")
            + f"\n* ``GET /api/{area}`` lists the records.{ws}\n"
            + f"* ``POST /api/{area}`` creates a record.{ws}\n"
            + f"* ``DELETE /api/{area}/ID`` removes a record.\n"
        )
        write(root, {f"docs/{area}/overview.rst": overview, f"docs/{area}/runbook.rst": runbook})
        (root / f"docs/{area}/api.rst").write_text(api)


@case(
    "doc8_rst_line_length_flood_unknown_target",
    "doc8 (60 RST documents)",
    clean=False,
    group=GROUP,
    decisive=[
        'docs/refunds/runbook.rst:11: D000 Unknown target name: "retry policy".',
        "Total accumulated errors = 111",
    ],
)
def _doc8_fail(root: Path) -> bytes:
    env = _py_tools(root, _DOC8)
    _doc8_docs(root)
    return scrub(sh(f"{env} doc8 $(find docs -name '*.rst' | sort)", root), root)


@case(
    "doc8_verbose_error_handling_docs_clean",
    "doc8 --verbose (60 RST documents)",
    clean=True,
    group=GROUP,
    decisive=["Total accumulated errors = 0"],
)
def _doc8_clean(root: Path) -> bytes:
    env = _py_tools(root, _DOC8)
    for area in WORDS:
        errors = (
            _title(f"{area.capitalize()} errors")
            + "\n"
            + f"Every error of the {area} service has a code, a message and a retry hint.\n\n"
            + _title("Fatal errors", "-")
            + f"\nA fatal error stops the {area} worker. The job moves to the ``failed_jobs``\n"
            + "table and the on-call engineer is paged.\n\n"
            + _title("Retryable errors", "-")
            + "\nA retryable error is retried three times with a growing delay.\n"
        )
        failed = (
            _title(f"{area.capitalize()} failed jobs")
            + "\n"
            + f"The ``failed_jobs`` table keeps the {area} jobs that raised an error.\n\n"
            + ".. code-block:: sql\n\n"
            + f"   SELECT id, error, failed_at FROM failed_jobs WHERE queue = '{area}';\n\n"
            + f"Replay them with ``shopctl retry-failed {area}``.\n"
        )
        handling = (
            _title(f"Error handling in {area}")
            + "\n"
            + ".. code-block:: python\n\n"
            + "   try:\n"
            + f"       {area}.process(job)\n"
            + "   except RetryableError:\n"
            + "       job.retry()\n"
            + "   except FatalError as error:\n"
            + "       failed_jobs.add(job, error)\n"
        )
        write(
            root,
            {
                f"docs/{area}/errors.rst": errors,
                f"docs/{area}/failed_jobs.rst": failed,
                f"docs/{area}/error_handling.rst": handling,
            },
        )
    out = sh(f"{env} doc8 --verbose $(find docs -name '*.rst' | sort)", root)
    return substitute(scrub(out, root), (r"python-entrypoints/[0-9a-f]+", "python-entrypoints/HASH"))


# ---------------------------------------------------------------- rstcheck


@case(
    "rstcheck_title_warnings_json_block_error",
    "rstcheck (60 RST documents)",
    clean=False,
    group=GROUP,
    decisive=[
        "docs/webhooks/payloads.rst:15: (ERROR/3) (json) "
        "Expecting property name enclosed in double quotes: line 5 column 1 (char 70)",
        "Error! Issues detected.",
    ],
)
def _rstcheck(root: Path) -> bytes:
    env = _py_tools(root, _RSTCHECK)
    for i, area in enumerate(WORDS):
        guide = (
            _title(f"Working with the {area} client", short=3 if i % 3 != 2 else 0)
            + "\n.. code-block:: python\n\n"
            + f"   from shop.{area} import client\n\n"
            + "   def retry_failed(limit=10):\n"
            + "       for job in client.failed_jobs(limit=limit):\n"
            + "           client.retry(job.id)\n\n"
            + _title("Configuration", "-", short=2 if i % 2 == 0 else 0)
            + f"\nSet ``SHOP_{area.upper()}_URL`` before the first call.\n"
        )
        last = '     "attempts": 3,\n' if area == "webhooks" else '     "attempts": 3\n'
        payloads = (
            _title(f"{area.capitalize()} payloads")
            + "\n"
            + _title("Examples", "-")
            + f"\nThe ``{area}.created`` event:\n\n"
            + ".. code-block:: json\n\n"
            + "   {\n"
            + f'     "event": "{area}.created",\n'
            + f'     "id": "{area[:3]}_{i:04d}",\n'
            + last
            + "   }\n\n"
            + _title("Examples", "-")
            + f"\nThe ``{area}.deleted`` event carries only the identifier.\n"
        )
        errors = (
            _title(f"{area.capitalize()} error codes", short=4 if i % 4 == 1 else 0)
            + "\n"
            + f"* ``{area.upper()}_TIMEOUT``: the upstream did not answer.\n"
            + f"* ``{area.upper()}_CONFLICT``: the record changed meanwhile.\n"
        )
        write(
            root,
            {
                f"docs/{area}/guide.rst": guide,
                f"docs/{area}/payloads.rst": payloads,
                f"docs/{area}/errors.rst": errors,
            },
        )
    return scrub(sh(f"{env} rstcheck $(find docs -name '*.rst' | sort)", root), root)


# ---------------------------------------------------------------- markdownlint-cli2


def _npm_tool(root: Path, spec: str) -> Path:
    tools = root / "tools"
    write(tools, {"package.json": '{"name": "tools", "version": "1.0.0", "private": true}\n'})
    sh(f"npm install --no-audit --no-fund --silent {spec}", tools)
    return tools / "node_modules" / ".bin"


@case(
    "markdownlint_cli2_glossary_fatal_error_clean",
    "markdownlint-cli2 (loop over docs folders)",
    clean=True,
    group=GROUP,
    decisive=["Summary: 0 issues in 0 files"],
)
def _markdownlint(root: Path) -> bytes:
    bin_ = _npm_tool(root, "markdownlint-cli2@0.24.1")
    for area in WORDS:
        write(
            root,
            {
                f"docs/{area}/error-handling.md": f"""
                # Error handling in {area}

                Every error of the {area} service is logged with its code.

                ## Fatal errors

                A fatal error stops the worker and pages the on-call engineer.

                ```python
                try:
                    {area}.process(job)
                except FatalError as error:
                    failed_jobs.add(job, error)
                ```
                """,
                f"docs/{area}/failed-jobs.md": f"""
                # The {area} failed jobs

                Jobs that raised an error are kept in the `failed_jobs` table.

                | Column      | Meaning                        |
                | ----------- | ------------------------------ |
                | `id`        | The job's identifier           |
                | `error`     | The error message              |
                | `failed_at` | When the last attempt failed   |

                Retry them with `shopctl retry-failed {area}`.
                """,
                f"docs/{area}/glossary.md": f"""
                # Glossary of {area}

                ## Fatal error

                An error after which the {area} job is not retried.

                ## Failed job

                A job whose last attempt raised an error.

                ## Error budget

                The share of {area} requests that may fail in a month.
                """,
            },
        )
    out = sh(
        f'st=0; for d in $(ls -d docs/*/ | sort); do {bin_}/markdownlint-cli2 "${{d}}*.md" || st=1; done; exit $st',
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- HTML Tidy


_PAGE = """<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{title}</title>
</head>
<body>
<header>
<h1>{title}</h1>
<nav><a href="/">Home</a> <a href="/{area}">{area}</a></nav>
</header>
<main>
{body}
</main>
<footer>
<p>Shop {area} service</p>
</footer>
</body>
</html>
"""


def _tidy_loop(root: Path, folder: str) -> bytes:
    out = sh(
        f'st=0; for f in $(find {folder} -name "*.html" | sort); do echo "== tidy -e $f"; '
        'tidy -e --gnu-emacs yes "$f" || st=1; done; exit $st',
        root,
    )
    return scrub(out, root)


@case(
    "tidy_templates_warnings_unknown_element",
    "tidy -e --gnu-emacs yes (loop over templates)",
    clean=False,
    group=GROUP,
    decisive=[
        "templates/refunds/errors.html:13:1: Error: <refund-banner> is not recognized!",
        "Tidy found 5 warnings and 1 error!",
    ],
)
def _tidy_fail(root: Path) -> bytes:
    for i, area in enumerate(WORDS):
        for j, kind in enumerate(("index", "errors")):
            n = i * 2 + j
            body = []
            if area == "refunds" and kind == "errors":
                body.append('<refund-banner level="warning">Refunds are delayed</refund-banner>')
            body.append(f"<h2>{area.capitalize()} {kind}</h2>")
            if n % 3 == 0:
                body.append(f'<img src="/static/{area}-{kind}.png">')
            if n % 4 == 1:
                body.append("<p></p>")
            if n % 5 == 2:
                body.append(f'<p><a href="/{area}?page=1&sort=desc">Newest first</a></p>')
            body.append(f"<p>The {kind} of the {area} service.</p>")
            if n % 6 == 3:
                body.append("<center>Powered by shop</center>")
            if n % 7 == 4:
                body.append('<table summary="totals"><tr><td>0</td></tr></table>')
            title = f"{area.capitalize()} {kind}"
            write(root, {f"templates/{area}/{kind}.html": _PAGE.format(title=title, area=area, body="\n".join(body))})
    return _tidy_loop(root, "templates")


@case(
    "tidy_glossary_error_pages_clean",
    "tidy -e --gnu-emacs yes (loop over glossary pages)",
    clean=True,
    group=GROUP,
    decisive=["No warnings or errors were found."],
)
def _tidy_clean(root: Path) -> bytes:
    entries = {"fatal-error": ("Fatal error", "An error after which a job is not retried; it goes to failed_jobs.")}
    for area in WORDS:
        entries[f"{area}-errors"] = (
            f"{area.capitalize()} errors",
            f"The errors the {area} service reports: timeouts, conflicts and fatal errors.",
        )
        entries[f"{area}-failed-jobs"] = (
            f"{area.capitalize()} failed jobs",
            f"The {area} jobs whose last attempt raised an error, kept in the failed_jobs table.",
        )
    for slug, (term, text) in entries.items():
        body = f"<dl>\n<dt>{term}</dt>\n<dd>{text}</dd>\n</dl>"
        write(root, {f"glossary/{slug}.html": _PAGE.format(title=term, area="glossary", body=body)})
    return _tidy_loop(root, "glossary")


# ---------------------------------------------------------------- ChkTeX


@case(
    "chktex_manual_warnings_mismatched_environment",
    "chktex -e 9 (21 chapters)",
    clean=False,
    group=GROUP,
    decisive=[
        "Error 9 in chapters/refunds.tex line 22: `itemize' expected, found `enumerate'.",
        "One error printed; 9 warnings printed;",
    ],
)
def _chktex(root: Path) -> bytes:
    chapters = ["intro", *WORDS]
    for i, name in enumerate(chapters):
        close = "enumerate" if name == "refunds" else "itemize"
        dash = " - " if i % 2 == 0 else "--"
        text = f"""
        \\chapter{{The {name} service}}
        \\label{{ch:{name}}}

        The {name} service stores its records in the \\texttt{{{name}}} schema. See
        chapter \\ref{{ch:errors}} for the error codes and section \\ref{{sec:{name}-retry}}
        for the retries.

        \\section{{Retries}}
        \\label{{sec:{name}-retry}}

        A job is retried after 5{dash}10 seconds, e.g. when the queue is full. The
        \\LaTeX sources of this chapter live in \\texttt{{chapters/{name}.tex}} .
        Failed jobs are kept for 30 days... then they are purged.

        \\section{{Operations}}

        The operators use these commands:

        \\begin{{itemize}}
          \\item \\texttt{{shopctl pause {name}}} stops the consumer
          \\item \\texttt{{shopctl retry-failed {name}}} replays the failed jobs
        \\end{{{close}}}

        See the dashboards (latency, errors) for the state of the service.
        """
        write(root, {f"chapters/{name}.tex": text})
    files = " ".join(f"chapters/{c}.tex" for c in chapters)
    return scrub(sh(f"chktex -e 9 {files}", root), root)


# ---------------------------------------------------------------- shfmt


@case(
    "shfmt_diff_scripts_unclosed_function",
    "shfmt -d -i 2 (40 scripts)",
    clean=False,
    group=GROUP,
    decisive=["scripts/refunds/retry_failed.sh:4:16: reached EOF without matching { with }"],
)
def _shfmt(root: Path) -> bytes:
    for i, area in enumerate(WORDS):
        ind = "    " if i % 2 == 0 else "  "
        then = "\nthen" if i % 3 == 0 else "; then"
        paren = " ()" if i % 5 == 0 else "()"
        report = (
            "#!/bin/sh\nset -eu\n\n"
            f"report{paren} {{\n"
            f'{ind}count=$(shopctl count {area} --status "$1")\n'
            f'{ind}echo "{area} $1: $count"\n'
            "}\n\n"
            f'if [ "${{1:-}}" = "--all" ]{then}\n'
            f"{ind}for status in ok failed retrying; do\n"
            f'{ind}{ind}report "$status"\n'
            f"{ind}done\n"
            "else\n"
            f"{ind}report ok\n"
            "fi\n"
        )
        close = "" if area == "refunds" else "}\n"
        retry = (
            "#!/bin/sh\nset -eu\n\n"
            f"retry_failed{paren} {{\n"
            f"{ind}n=0\n"
            f"{ind}while [ $n -lt 3 ]; do\n"
            f'{ind}{ind}if shopctl retry-failed {area} --limit "${{1:-100}}"{then}\n'
            f"{ind}{ind}{ind}return 0\n"
            f"{ind}{ind}fi\n"
            f"{ind}{ind}n=$((n+1))\n"
            f"{ind}{ind}sleep $((n * 5))\n"
            f"{ind}done\n"
            f'{ind}echo "{area}: retry of failed jobs gave up after $n attempts" >&2\n'
            f"{ind}return 1\n"
            f"{close}\n"
            'retry_failed "$@"\n'
        )
        write(root, {f"scripts/{area}/report.sh": report, f"scripts/{area}/retry_failed.sh": retry})
    return scrub(sh("shfmt -d -i 2 scripts", root), root)


# ---------------------------------------------------------------- clang-format

_CLANG_FORMAT = """
BasedOnStyle: LLVM
IndentWidth: 4
ColumnLimit: 100
AllowShortFunctionsOnASingleLine: None
AllowShortIfStatementsOnASingleLine: Never
"""


def _c_unit(area: str, name: str) -> str:
    macro = f"{area.upper()}_MAX_RETRIES"
    return f"""
    #include "shop/{area}.h"

    #include <stdio.h>
    #include <string.h>

    static int {name}_attempts[{macro} + 1];

    int {name}_retry(const char *id, int attempts)
    {{
        if (attempts >= {macro}) {{
            fprintf(stderr, "{name}: giving up on %s after %d attempts\\n", id, attempts);
            return -1;
        }}
        {name}_attempts[attempts]++;
        return (int)strlen(id) + attempts;
    }}

    int {name}_reset(void)
    {{
        memset({name}_attempts, 0, sizeof {name}_attempts);
        return 0;
    }}
    """


def _c_header(area: str, names: list[str]) -> str:
    guard = f"SHOP_{area.upper()}_H"
    protos = "".join(f"int {n}_retry(const char *id, int attempts);\nint {n}_reset(void);\n" for n in names)
    return f"#ifndef {guard}\n#define {guard}\n\n#define {area.upper()}_MAX_RETRIES 5\n\n{protos}\n#endif\n"


def _clang_format_tree(root: Path, kinds: list[str]) -> str:
    write(root, {".clang-format": _CLANG_FORMAT})
    for area in WORDS:
        names = [f"{area}_{k}" if k else area for k in kinds]
        write(root, {f"include/shop/{area}.h": _c_header(area, names)})
        for n, k in zip(names, kinds, strict=True):
            write(root, {f"src/{area}/{k or area}.c": _c_unit(area, n)})
    sh("clang-format -i $(find include src -name '*.[ch]')", root)
    return "$(find include src -name '*.[ch]' | sort)"


@case(
    "clang_format_dry_run_werror_one_file",
    "clang-format --dry-run --Werror --verbose (60 files)",
    clean=False,
    group=GROUP,
    decisive=["src/refunds/queue.c:9:7: error: code should be clang-formatted [-Wclang-format-violations]"],
)
def _clang_format_fail(root: Path) -> bytes:
    files = _clang_format_tree(root, ["", "queue"])
    bad = root / "src/refunds/queue.c"
    text = bad.read_text()
    text = text.replace("    if (attempts >= REFUNDS_MAX_RETRIES) {", "    if(attempts>=REFUNDS_MAX_RETRIES){", 1)
    assert "if(attempts>=" in text
    bad.write_text(text)
    return scrub(sh(f"clang-format --dry-run --Werror --verbose {files}", root), root)


@case(
    "clang_format_error_handlers_clean",
    "clang-format --dry-run --Werror --verbose (60 files)",
    clean=True,
    group=GROUP,
    decisive=["Formatting [60/60] src/webhooks/failed_jobs.c"],
)
def _clang_format_clean(root: Path) -> bytes:
    files = _clang_format_tree(root, ["error_handler", "failed_jobs"])
    return scrub(sh(f"clang-format --dry-run --Werror --verbose {files}", root), root)


# ---------------------------------------------------------------- clang-tidy


@case(
    "clang_tidy_readability_flood_undeclared_macro",
    "clang-tidy (20 files, .clang-tidy)",
    clean=False,
    group=GROUP,
    decisive=[
        "/tmp/work/src/refunds/refunds.c:11:20: error: use of undeclared identifier 'REFUND_MAX_RETRIES'",
        "Found compiler error(s).",
    ],
)
def _clang_tidy(root: Path) -> bytes:
    write(root, {".clang-tidy": "Checks: '-*,bugprone-*,readability-*,cert-*'\nWarningsAsErrors: ''\n"})
    for area in WORDS:
        macro = "REFUND_MAX_RETRIES" if area == "refunds" else f"{area.upper()}_MAX_RETRIES"
        write(
            root,
            {
                f"include/shop/{area}.h": _c_header(area, [area]),
                f"src/{area}/{area}.c": f"""
                #include "shop/{area}.h"
                #include <stdio.h>
                #include <stdlib.h>
                #include <string.h>

                static int last_code;

                int {area}_retry(const char *id, int attempts)
                {{
                    char buf[64];
                    if (attempts > {macro}) return -1;
                    strncpy(buf, id, 63);
                    buf[63] = 0;
                    last_code = atoi(buf) * 100 + attempts;
                    printf("{area}: retry %s (%d)\\n", buf, last_code);
                    return (int)strlen(buf);
                }}

                int {area}_reset(void)
                {{
                    int i;
                    for (i = 0; i < 10; i++) last_code = last_code / 2;
                    return last_code == 0 ? 0 : 1;
                }}
                """,
            },
        )
    files = " ".join(f"src/{a}/{a}.c" for a in sorted(WORDS))
    return scrub(sh(f"clang-tidy {files} -- -std=c11 -Iinclude", root), root)


# ---------------------------------------------------------------- flawfinder


@case(
    "flawfinder_error_level_shell_hit",
    "flawfinder --error-level=4 (60 files)",
    clean=False,
    group=GROUP,
    decisive=["src/export/export_io.c:14:  [4] (shell) system:", "Hits = 181"],
)
def _flawfinder(root: Path) -> bytes:
    for area in WORDS:
        pad = " " * 20
        run = (
            f'snprintf(command, sizeof command, "gzip -9 %s", path);\n{pad}return system(command);'
            if area == "export"
            else f"(void)command;\n{pad}return 0;"
        )
        write(
            root,
            {
                f"src/{area}/{area}.c": f"""
                #include <string.h>

                int {area}_copy(char *dst, const char *src)
                {{
                    char buf[128];
                    size_t n = strlen(src);
                    memcpy(buf, src, n < sizeof buf ? n : sizeof buf - 1);
                    buf[n < sizeof buf ? n : sizeof buf - 1] = 0;
                    strncpy(dst, buf, 127);
                    return (int)strlen(dst);
                }}
                """,
                f"src/{area}/{area}_fmt.c": f"""
                #include <stdio.h>
                #include <stdlib.h>

                int {area}_parse(const char *text)
                {{
                    char code[16];
                    int n = atoi(text);
                    snprintf(code, sizeof code, "{area[:3].upper()}-%04d", n);
                    return n;
                }}
                """,
                f"src/{area}/{area}_io.c": f"""
                #include <stdio.h>
                #include <stdlib.h>
                #include <string.h>

                int {area}_archive(const char *path)
                {{
                    char command[256];
                    FILE *f = fopen(path, "r");
                    if (f == NULL) {{
                        return -1;
                    }}
                    fclose(f);
                    {run}
                }}
                """,
            },
        )
    out = sh("flawfinder --error-level=4 --minlevel=1 $(find src -name '*.c' | sort)", root)
    return substitute(
        scrub(out, root),
        (r"in approximately [0-9.]+ seconds \([0-9]+ lines/second\)", "in approximately N seconds (N lines/second)"),
    )


# ---------------------------------------------------------------- cpplint


@case(
    "cpplint_error_handler_sources_clean",
    "cpplint --recursive (60 files)",
    clean=True,
    group=GROUP,
    decisive=["Done processing src/webhooks/failed_jobs.cc"],
)
def _cpplint(root: Path) -> bytes:
    env = _py_tools(root, _CPPLINT)
    sh("git init -q .", root)
    for area in WORDS:
        guard = f"SRC_{area.upper()}_ERROR_HANDLER_H_"
        cls = f"{area.capitalize()}ErrorHandler"
        write(
            root,
            {
                f"src/{area}/error_handler.h": f"""
                // Copyright 2024 Shop Team
                #ifndef {guard}
                #define {guard}

                #include <string>

                namespace shop {{

                // Turns the errors of the {area} service into failed jobs.
                class {cls} {{
                 public:
                  int Handle(int code, const std::string& message);
                  int fatal_errors() const {{ return fatal_errors_; }}

                 private:
                  int fatal_errors_ = 0;
                }};

                }}  // namespace shop

                #endif  // {guard}
                """,
                f"src/{area}/error_handler.cc": f"""
                // Copyright 2024 Shop Team
                #include "src/{area}/error_handler.h"

                #include <string>

                namespace shop {{

                int {cls}::Handle(int code, const std::string& message) {{
                  if (code >= 500) {{
                    ++fatal_errors_;
                    return -1;
                  }}
                  return static_cast<int>(message.size());
                }}

                }}  // namespace shop
                """,
                f"src/{area}/failed_jobs.cc": f"""
                // Copyright 2024 Shop Team
                #include <string>
                #include <vector>

                #include "src/{area}/error_handler.h"

                namespace shop {{

                // Replays the {area} jobs kept in the failed_jobs table.
                int RetryFailedJobs(const std::vector<std::string>& ids) {{
                  {cls} handler;
                  int failed = 0;
                  for (const std::string& id : ids) {{
                    if (handler.Handle(id.empty() ? 500 : 0, id) < 0) {{
                      ++failed;
                    }}
                  }}
                  return failed;
                }}

                }}  // namespace shop
                """,
            },
        )
    return scrub(sh(f"{env} cpplint --recursive src", root), root)
