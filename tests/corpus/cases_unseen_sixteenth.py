"""Held-out outputs (group ``unseen-16``): a sixteenth batch, to measure the engine after fifteen rounds of fixes.

Document, media and data processors, whose logs are noisy: ``pdflatex`` in nonstopmode over a
report whose narrow columns give well over a thousand overfull-box warnings and one undefined
control sequence, a 1-2 MB ``ffmpeg -loglevel verbose`` log of 180 transcodes with one truncated
input in the middle, ``pandoc --verbose`` over 80 chapters with one bad YAML header, ``xsltproc``
over 120 documents where one document's stylesheet has a broken XPath expression, ``dot -v`` over
100 graphs with one syntax error, ``gs`` rendering a 400-page PostScript statement run that stops on
an undefined name, ``sox -V3`` over 150 takes with one Git LFS pointer saved as a WAV, ``mlr`` over
a CSV with one short row, and from PyPI ``yq`` (one YAML file of 120 that does not parse),
``sqlite-utils insert`` (one batch of 60 with a duplicate primary key), a Pillow thumbnail script
(one truncated JPEG of 240) and a ``pypdf`` script (one HTML error page saved as a PDF). Clean runs
whose text talks about errors: ``dot -v`` over ``error-diagram.dot`` and ``failure-states.dot``,
``csvstat`` over a report with ``failed_count`` and ``error_rate`` columns, ``datamash`` summing
``failed_count`` per service, and ``pandoc`` rendering a handbook with the chapter "Handling fatal
errors". Labels were written with each scenario, before the engine saw the output. Needs
``texlive-latex-base``, ``pandoc``, ``xsltproc``, ``graphviz``, ``ffmpeg``, ``ghostscript``, ``sox``,
``miller`` and ``datamash`` (Debian packages), and the PyPI registry.
"""

from __future__ import annotations

import itertools
import json
from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, write
from cases_unseen_build import _pip_tool

GROUP = "unseen-16"


# ---------------------------------------------------------------- LaTeX


def _latex_report(bad_section: int | None, titles: list[str]) -> str:
    parts = [
        "\\documentclass{article}\n",
        "\\setlength{\\textwidth}{2.1in}\n",
        "\\begin{document}\n",
        "\\title{Quarterly ledger report}\n\\author{Finance platform}\n\\maketitle\n",
    ]
    for s, title in enumerate(titles):
        parts.append(f"\\section{{{title}}}\n")
        for p in range(12):
            n = s * 12 + p
            parts.append(
                f"Batch {n} was reconciled by \\texttt{{ledgerreconciliationworker{n % 7}}} against "
                f"\\texttt{{settlementaccountidentifier{n % 13}}} at the end of the business day, "
                f"and the totals matched the bank statement for region {WORDS[n % 20]}.\n\n"
            )
        if s == bad_section:
            parts.append("The quarter closed at \\ledgertotl{Q3} after the final review.\n\n")
    parts.append("\\end{document}\n")
    return "".join(parts)


@case(
    "pdflatex_overfull_undefined_control_sequence",
    "pdflatex -interaction=nonstopmode",
    clean=False,
    group=GROUP,
    decisive=["! Undefined control sequence.", "The quarter closed at \\ledgertotl"],
)
def _pdflatex(root: Path) -> bytes:
    titles = [f"Region {WORDS[s % 20]} batch group {s}" for s in range(110)]
    (root / "report.tex").write_text(_latex_report(61, titles))
    return sh("pdflatex -interaction=nonstopmode report.tex", root)


# ---------------------------------------------------------------- ffmpeg


@case(
    "ffmpeg_verbose_transcode_truncated_input",
    "ffmpeg -loglevel verbose (loop over clips)",
    clean=False,
    group=GROUP,
    decisive=["moov atom not found", "clips/clip_117.mp4: Invalid data found when processing input"],
)
def _ffmpeg(root: Path) -> bytes:
    sh(
        "mkdir -p clips out; for i in $(seq 0 179); do n=$(printf %03d $i); "
        "ffmpeg -nostdin -loglevel error -f lavfi -i testsrc=size=96x64:rate=12:duration=1 "
        "-f lavfi -i sine=frequency=$((220 + i)):duration=1 -c:v mpeg4 -c:a aac -shortest clips/clip_$n.mp4; done; "
        "head -c 3000 clips/clip_117.mp4 > clips/part && mv clips/part clips/clip_117.mp4",
        root,
    )
    return sh(
        'st=0; for f in clips/*.mp4; do echo "== transcoding $f"; '
        "ffmpeg -nostdin -loglevel verbose -y -i $f -vf scale=64:-2 -c:v libx264 -preset ultrafast "
        "-c:a aac -b:a 64k out/$(basename $f .mp4).mkv || st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- pandoc


def _chapter_body(i: int, area: str) -> str:
    return (
        f"# The {area} service\n\n"
        f"The {area} service receives requests from the checkout flow and keeps a journal of every change.\n"
        f"Chapter {i} describes how it is deployed, monitored and rolled back.\n\n"
        "## Deployment\n\n"
        f"1. Build the `{area}` image with the release tag.\n"
        "2. Apply the migration set and wait for the health check.\n"
        "3. Shift traffic in steps of ten percent.\n\n"
        "## Monitoring\n\n"
        f"| metric | target |\n|---|---|\n| p99 latency | {100 + i} ms |\n| queue depth | {i % 9 + 3} |\n\n"
        "```\n"
        f"{area}ctl status --region eu-west\n"
        f"{area}ctl drain --node {area}-{i:02d}\n"
        "```\n\n"
        f"See the runbook for {area} for the on-call rotation and the escalation path.\n"
    )


@case(
    "pandoc_chapters_bad_yaml_header",
    "pandoc --verbose (loop over chapters)",
    clean=False,
    group=GROUP,
    decisive=[
        "== pandoc chapters/ch41.md",
        "YAML parse exception at line 1, column 14",
        "mapping values are not allowed in this context",
    ],
)
def _pandoc_bad_yaml(root: Path) -> bytes:
    for i in range(1, 81):
        area = WORDS[i % 20]
        title = f"Operating {area}"
        header = f"---\ntitle: {title}\nauthor: Platform team\ndate: 2025-03-{i % 28 + 1:02d}\n---\n\n"
        if i == 41:
            header = "---\ntitle: Refunds: partial and full\nauthor: Platform team\ndate: 2025-03-14\n---\n\n"
        write(root, {f"chapters/ch{i:02d}.md": header + _chapter_body(i, area)})
    return sh(
        'st=0; for f in chapters/*.md; do echo "== pandoc $f"; pandoc --verbose -s -t plain "$f" || st=1; done; '
        "exit $st",
        root,
    )


@case(
    "pandoc_handbook_fatal_errors_clean",
    "pandoc --verbose (loop over chapters)",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _pandoc_clean(root: Path) -> bytes:
    special = {
        7: (
            "Handling fatal errors",
            "# Handling fatal errors\n\n"
            "A fatal error stops the worker. The supervisor restarts it and the failed job goes back to the queue.\n"
            "When the job has failed three times it is moved to the dead-letter queue, and an error report is sent\n"
            "to the owning team.\n\n"
            "A typical log line from such a failure looks like this:\n\n"
            "```\nERROR worker-3 job=8812 failed: payment declined (attempt 3 of 3)\n```\n\n"
            "Nothing needs to be done by hand: the error is retried, then parked.\n",
        ),
        15: (
            "Error codes reference",
            "# Error codes reference\n\n"
            "| code | meaning |\n|---|---|\n| E100 | invalid input |\n| E200 | upstream timeout |\n"
            "| E300 | fatal: ledger out of balance |\n\n"
            "Every exception raised by the client library carries one of these codes.\n",
        ),
        23: (
            "When builds fail",
            "# When builds fail\n\n"
            "A build that failed shows a red badge. Open the failed step, read the first error, and rerun it.\n"
            "Flaky tests are quarantined after two failures in a week.\n",
        ),
    }
    for i in range(1, 41):
        area = WORDS[i % 20]
        title, body = special.get(i, (f"Operating {area}", _chapter_body(i, area)))
        header = f"---\ntitle: {title}\nauthor: Platform team\ndate: 2025-04-{i % 28 + 1:02d}\n---\n\n"
        write(root, {f"handbook/ch{i:02d}.md": header + body})
    return sh(
        'st=0; for f in handbook/*.md; do echo "== pandoc $f"; pandoc --verbose -s -t plain "$f" || st=1; done; '
        "exit $st",
        root,
    )


# ---------------------------------------------------------------- xsltproc


_XSL = """<?xml version="1.0"?>
<xsl:stylesheet version="1.0" xmlns:xsl="http://www.w3.org/1999/XSL/Transform">
  <xsl:output method="text"/>
  <xsl:template match="/doc">
    <xsl:text>{kind} </xsl:text><xsl:value-of select="@id"/><xsl:text> for </xsl:text>
    <xsl:value-of select="customer"/><xsl:text>&#10;</xsl:text>
    <xsl:for-each select="line">
      <xsl:text>  </xsl:text><xsl:value-of select="@sku"/><xsl:text> x</xsl:text>
      <xsl:value-of select="@qty"/><xsl:text> = </xsl:text><xsl:value-of select="@amount"/><xsl:text>&#10;</xsl:text>
    </xsl:for-each>
    <xsl:text>  total </xsl:text><xsl:value-of select="{total}"/><xsl:text>&#10;</xsl:text>
  </xsl:template>
</xsl:stylesheet>
"""


@case(
    "xsltproc_stylesheet_xpath_compile_error",
    "xsltproc (loop over documents)",
    clean=False,
    group=GROUP,
    decisive=["xsl/credit-note.xsl line", "sum(line/@amount"],
)
def _xsltproc(root: Path) -> bytes:
    write(
        root,
        {
            "xsl/invoice.xsl": _XSL.format(kind="invoice", total="sum(line/@amount)"),
            "xsl/receipt.xsl": _XSL.format(kind="receipt", total="sum(line/@amount)"),
            "xsl/credit-note.xsl": _XSL.format(kind="credit note", total="sum(line/@amount"),
        },
    )
    for i in range(120):
        kind = "credit-note" if i == 63 else ("invoice" if i % 3 else "receipt")
        lines = "".join(
            f'  <line sku="SKU-{(i * 7 + k) % 500:04d}" qty="{k % 4 + 1}" amount="{(i + k) % 90 + 10}.50"/>\n'
            for k in range(8)
        )
        doc = f'<?xml version="1.0"?>\n<doc id="D-{i:04d}">\n  <customer>customer {WORDS[i % 20]} {i}</customer>\n'
        (root / "docs").mkdir(exist_ok=True)
        (root / "docs" / f"{i:03d}-{kind}.xml").write_text(doc + lines + "</doc>\n")
    return sh(
        'st=0; for f in docs/*.xml; do b=$(basename $f .xml); x=xsl/${b#*-}.xsl; echo "xsltproc $x $f"; '
        "xsltproc $x $f || st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- graphviz


def _graph(name: str, states: list[str]) -> str:
    edges = "".join(f"  {a} -> {b};\n" for a, b in itertools.pairwise(states))
    return f"digraph {name} {{\n  rankdir=LR;\n  node [shape=box];\n{edges}}}\n"


@case(
    "dot_verbose_graphs_syntax_error",
    "dot -v (loop over graphs)",
    clean=False,
    group=GROUP,
    decisive=["graphs/057-ledger.dot: syntax error in line 9 near '->'"],
)
def _dot_fail(root: Path) -> bytes:
    (root / "graphs").mkdir()
    for i in range(100):
        area = WORDS[i % 20]
        states = ["received", "validated", "queued", f"{area}_done", "archived"][: 3 + i % 3]
        (root / "graphs" / f"{i:03d}-{area}.dot").write_text(_graph(f"{area}_{i}", states))
    (root / "graphs" / "057-ledger.dot").write_text(
        "digraph ledger_post {\n  rankdir=LR;\n  node [shape=box];\n  received -> validated;\n"
        "  validated -> posted;\n  posted -> reconciled;\n  reconciled -> archived;\n"
        "  validated -> rejected [color=red];\n  posted -> -> reversed;\n}\n"
    )
    return sh(
        'mkdir -p out; st=0; for f in graphs/*.dot; do echo "== dot $f"; '
        "dot -v -Tsvg -o out/$(basename $f .dot).svg $f || st=1; done; exit $st",
        root,
    )


@case(
    "dot_verbose_error_diagrams_clean",
    "dot -v (loop over graphs)",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _dot_clean(root: Path) -> bytes:
    graphs = {
        "error-diagram": ["request", "error_raised", "error_logged", "error_reported"],
        "failure-states": ["running", "failed", "retrying", "dead_letter"],
        "fatal-error-path": ["worker", "fatal_error", "supervisor_restart", "recovered"],
        "exception-flow": ["call", "exception_thrown", "handler", "fallback"],
    }
    for i in range(30):
        area = WORDS[i % 20]
        graphs[f"{i:02d}-{area}"] = ["received", "validated", "queued", f"{area}_done", "archived"][: 3 + i % 3]
    (root / "graphs").mkdir()
    for name, states in graphs.items():
        (root / "graphs" / f"{name}.dot").write_text(
            _graph(name.replace("-", "_").lstrip("0123456789_") or "g", states)
        )
    return sh(
        'mkdir -p out; st=0; for f in graphs/*.dot; do echo "== dot $f"; '
        "dot -v -Tsvg -o out/$(basename $f .dot).svg $f || st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- ghostscript


@case(
    "gs_postscript_statements_undefined",
    "gs -dBATCH -dNOPAUSE -sDEVICE=pdfwrite",
    clean=False,
    group=GROUP,
    decisive=["Error: /undefined in showtotl", "rendering statement page 233"],
)
def _gs(root: Path) -> bytes:
    write(
        root,
        {
            "statements.ps": """
            %!PS-Adobe-3.0
            /Helvetica findfont 9 scalefont setfont
            /cstr 16 string def
            /row {  % page k -> -
              /k exch def /pg exch def
              72 720 k 30 mul sub moveto
              (account ) show pg 1000 mul k add cstr cvs show
              (  amount ) show pg k mul 37 mod 100 add cstr cvs show
            } def
            1 1 400 {
              /p exch def
              (rendering statement page ) print p cstr cvs print (\\n) print
              1 1 20 { p exch row } for
              (  rows 20, subtotal ) print p 137 mul 1000 mod cstr cvs print (\\n) print
              (  account range ) print p 1000 mul 1 add cstr cvs print ( - ) print
              p 1000 mul 20 add cstr cvs print (\\n) print
              p 233 eq { p showtotl } if
              showpage
            } for
            (done\\n) print
            """
        },
    )
    return sh("gs -dBATCH -dNOPAUSE -sDEVICE=pdfwrite -sOutputFile=statements.pdf statements.ps", root)


# ---------------------------------------------------------------- sox


@case(
    "sox_verbose_batch_lfs_pointer_wav",
    "sox -V3 (loop over takes)",
    clean=False,
    group=GROUP,
    decisive=["can't open input file `in/take_088.wav'", "RIFF header not found"],
)
def _sox(root: Path) -> bytes:
    sh(
        "mkdir -p in out; for i in $(seq 0 149); do n=$(printf %03d $i); "
        "sox -n -r 44100 -c 2 in/take_$n.wav synth 0.3 sine $((300 + 3 * i)) vol 0.5; done",
        root,
    )
    (root / "in" / "take_088.wav").write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\nsize 52964\n"
    )
    return sh(
        'st=0; for f in in/*.wav; do echo "== sox $f"; sox -V3 "$f" -r 16000 -c 1 "out/$(basename $f)" norm -1 '
        "|| st=1; done; exit $st",
        root,
    )


# ---------------------------------------------------------------- Miller, datamash, csvkit


@case(
    "mlr_csv_short_row",
    "mlr --icsv --ocsv put",
    clean=False,
    group=GROUP,
    decisive=["mlr: mlr: CSV header/data length mismatch", "data/orders.csv row 1602"],
)
def _mlr(root: Path) -> bytes:
    rows = ["id,customer,region,qty,price,status"]
    for i in range(1, 2501):
        rows.append(f"{i},cust-{i * 17 % 900:04d},{WORDS[i % 20]},{i % 7 + 1},{(i * 13) % 200 + 5}.25,shipped")
    rows[1601] = "1601,cust-0217,ledger,3,shipped"
    write(root, {"data/orders.csv": "\n".join(rows) + "\n"})
    return sh("mlr --icsv --ocsv put '$total = $qty * $price' data/orders.csv", root)


def _error_report(n: int, seed: int) -> str:
    rows = ["day,service,requests,failed_count,error_rate,errors_retried,status"]
    for i in range(n):
        req = 1000 + (i * 37 + seed) % 5000
        failed = (i * 11 + seed) % 23
        rows.append(
            f"2025-{(i // 28) % 12 + 1:02d}-{i % 28 + 1:02d},{WORDS[(i + seed) % 20]},{req},{failed},"
            f"{failed / req:.5f},{failed // 2},ok"
        )
    return "\n".join(rows) + "\n"


@case(
    "datamash_failed_count_per_service_clean",
    "datamash -t, -H -s -g (loop over months)",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _datamash(root: Path) -> bytes:
    for m in range(1, 13):
        write(root, {f"data/2024-{m:02d}-errors.csv": _error_report(600, m)})
    return sh(
        'st=0; for f in data/*-errors.csv; do echo "== $f"; datamash -t, -H -s -g service count service '
        'sum failed_count mean error_rate max errors_retried < "$f" || st=1; done; exit $st',
        root,
    )


@case(
    "csvstat_error_report_clean",
    "csvstat",
    clean=True,
    group=GROUP,
    decisive=[],
)
def _csvstat(root: Path) -> bytes:
    env = _pip_tool(root, "csvkit==2.2.0")
    for year in (2023, 2024, 2025):
        write(root, {f"data/error_report_{year}.csv": _error_report(2000, year % 20)})
    return sh(f'st=0; for f in data/*.csv; do echo "== csvstat $f"; {env} csvstat "$f" || st=1; done; exit $st', root)


# ---------------------------------------------------------------- yq, sqlite-utils


@case(
    "yq_configs_yaml_scanner_error",
    "yq -r (loop over YAML files)",
    clean=False,
    group=GROUP,
    decisive=["mapping values are not allowed in this context", "line 7, column"],
)
def _yq(root: Path) -> bytes:
    env = _pip_tool(root, "yq==4.4.5")
    (root / "configs").mkdir()
    for i in range(120):
        area = WORDS[i % 20]
        envs = "".join(f"  - name: {k}\n    value: '{v}'\n" for k, v in [("REGION", "eu-west"), ("WORKERS", i % 8 + 1)])
        (root / "configs" / f"{i:03d}-{area}.yaml").write_text(
            f"name: {area}-{i}\nreplicas: {i % 4 + 1}\nimage: registry.local/{area}:1.{i}.0\nenv:\n{envs}"
        )
    (root / "configs" / "071-payments.yaml").write_text(
        "name: payments\nreplicas: 3\nimage: registry.local/payments:1.8.2\nenv:\n"
        "  - name: CURRENCY\n    value: EUR\n  - name: RETRY: 3\n"
    )
    query = '"\\(.name) replicas=\\(.replicas) image=\\(.image)", (.env[] | "  \\(.name)=\\(.value)")'
    return sh(
        f'st=0; for f in configs/*.yaml; do echo "== $f"; {env} yq -r \'{query}\' "$f" || st=1; done; exit $st',
        root,
    )


@case(
    "sqlite_utils_insert_duplicate_pk",
    "sqlite-utils insert (loop over batches)",
    clean=False,
    group=GROUP,
    decisive=["UNIQUE constraint failed: orders.id", "batches/batch_38.json"],
)
def _sqlite_utils(root: Path) -> bytes:
    env = _pip_tool(root, "sqlite-utils==4.2.1")
    (root / "batches").mkdir()
    for b in range(60):
        recs = [
            {"id": b * 50 + k, "region": WORDS[(b + k) % 20], "amount": (b * 31 + k * 7) % 400 + 10} for k in range(50)
        ]
        if b == 38:
            recs[17]["id"] = 12 * 50 + 4
        (root / "batches" / f"batch_{b:02d}.json").write_text(json.dumps(recs, indent=1))
    query = "select region, count(*) as n, sum(amount) as total from orders group by region order by region"
    return sh(
        f'st=0; for f in batches/*.json; do echo "== sqlite-utils insert shop.db orders $f --pk id"; '
        f'{env} sqlite-utils insert shop.db orders "$f" --pk id || st=1; '
        f'{env} sqlite-utils query shop.db "{query}" --table; done; exit $st',
        root,
    )


# ---------------------------------------------------------------- Pillow, pypdf


@case(
    "pillow_thumbnails_truncated_jpeg",
    "python + Pillow (thumbnail batch)",
    clean=False,
    group=GROUP,
    decisive=["FAILED photos/img_0173.jpg:", "image file is truncated", "239 ok, 1 failed"],
)
def _pillow(root: Path) -> bytes:
    env = _pip_tool(root, "pillow==13.0.0")
    write(
        root,
        {
            "make.py": """
            from pathlib import Path
            from PIL import Image

            Path("photos").mkdir()
            for i in range(240):
                w, h = 320 + (i % 5) * 40, 240 + (i % 3) * 30
                im = Image.new("RGB", (w, h))
                im.putdata([((x * 7 + i) % 256, (y * 5) % 256, (x + y + i) % 256) for y in range(h) for x in range(w)])
                im.save(f"photos/img_{i:04d}.jpg", quality=85)
            data = Path("photos/img_0173.jpg").read_bytes()
            Path("photos/img_0173.jpg").write_bytes(data[: len(data) * 2 // 5])
            """,
            "thumbs.py": """
            import sys
            from pathlib import Path
            from PIL import Image

            out = Path("thumbs")
            out.mkdir(exist_ok=True)
            ok = failed = 0
            for path in sorted(Path("photos").glob("*.jpg")):
                try:
                    with Image.open(path) as im:
                        size = im.size
                        im.thumbnail((128, 128))
                        target = out / path.name
                        im.save(target, quality=80)
                except OSError as exc:
                    print(f"FAILED {path}: {exc}")
                    failed += 1
                    continue
                ok += 1
                print(f"{path} {size[0]}x{size[1]} -> {im.size[0]}x{im.size[1]} {target.stat().st_size} bytes")
            print(f"thumbnails: {ok} ok, {failed} failed")
            sys.exit(1 if failed else 0)
            """,
        },
    )
    sh(f"{env} {PY} make.py", root)
    return sh(f"{env} {PY} thumbs.py", root)


@case(
    "pypdf_statements_html_saved_as_pdf",
    "python + pypdf (batch of statements)",
    clean=False,
    group=GROUP,
    decisive=[
        "reading statements/statement_047.pdf",
        "invalid pdf header: b'<html'",
        "pypdf.errors.PdfStreamError: Stream has ended unexpectedly",
    ],
)
def _pypdf(root: Path) -> bytes:
    env = _pip_tool(root, "pypdf==7.1.1")
    write(
        root,
        {
            "make.py": """
            from pathlib import Path
            from pypdf import PdfWriter

            Path("statements").mkdir()
            for i in range(90):
                w = PdfWriter()
                for _ in range(i % 5 + 1):
                    w.add_blank_page(612, 792)
                w.add_metadata({"/Title": f"Statement {i:03d}", "/Producer": "ledger-export 2.4"})
                w.write(f"statements/statement_{i:03d}.pdf")
            Path("statements/statement_047.pdf").write_text(
                "<html><head><title>503 Service Unavailable</title></head>"
                "<body><h1>Service Unavailable</h1><p>The export service is busy.</p></body></html>\\n"
            )
            """,
            "index.py": """
            import logging
            from pathlib import Path
            from pypdf import PdfReader

            logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
            log = logging.getLogger("statements")
            pages = 0
            for path in sorted(Path("statements").glob("*.pdf")):
                log.info("reading %s", path)
                reader = PdfReader(path)
                meta = reader.metadata
                log.info("%s: %d pages, title=%r, producer=%r", path.name, len(reader.pages), meta.title, meta.producer)
                for n, page in enumerate(reader.pages, 1):
                    box = page.mediabox
                    log.info("  page %d mediabox=%sx%s rotate=%s", n, box.width, box.height, page.rotation)
                pages += len(reader.pages)
            log.info("indexed %d pages", pages)
            """,
        },
    )
    sh(f"{env} {PY} make.py", root)
    return scrub(sh(f"{env} {PY} index.py", root), root)
