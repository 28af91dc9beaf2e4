"""Held-out outputs (group ``unseen-121``): a hundred-and-twenty-first batch, text encodings and line endings as an
agent handles them on a generated multilingual data export of a payments desk: CSV, JSON Lines and text files in
Latin-1, UTF-8, UTF-16 and Shift_JIS with accented and Japanese names, named after business words
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exceptions``, ``refunds``, ``dead_letters`` ...), all
offline.

Failing runs: a bash loop that converts 240 UTF-8 CSV files to ISO-8859-1 for a legacy ERP with ``iconv``, where
one refunds file holds a Japanese branch name (``illegal input sequence`` in the middle, a summary and a non-zero
exit at the end), ``dos2unix`` over 300 Windows exports where a UTF-16 file saved without its byte order mark is
skipped as binary (exit 0: only dos2unix's own words say so), ``enca -L none`` over the export where one Latin-1
audit file near the start is ``Unrecognized encoding``, ``make -k`` of Shift_JIS files to UTF-8 with ``uconv``
where one exceptions file holds a Latin-1 byte, a Python loader that logs every failed payment it reads and dies
with a ``UnicodeDecodeError`` traceback on one Latin-1 JSON Lines file, and a Python importer that logs one file's
``UnicodeDecodeError`` near the start and goes on through a long tail before exiting 1. Clean runs full of those
business words: ``file -i`` over 300 files with a count of charsets, ``dos2unix`` then ``unix2dos`` of CRLF and
UTF-16 exports, a Python normalizer with a ``DeprecationWarning`` that falls back to cp1252 for legacy files, and
``recode -v latin1..utf8`` of 480 legacy files with a charset check. Labels were written with each scenario,
before the engine saw the output. Needs glibc's iconv, ICU's uconv, recode, enca, dos2unix and file (Debian
``libc-bin``, ``icu-devtools``, ``recode``, ``enca``, ``dos2unix``, ``file``), make and Python 3.
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, write

GROUP = "unseen-121"

#: The areas of the export, in sorted order (the order the scenarios' ``sort`` and ``make`` go through them).
_AREAS = [
    "audit", "billing", "chargebacks", "coupons", "dead_letters", "disputes", "error_codes", "exceptions",
    "failed_payments", "fraud_alerts", "invoices", "ledger", "orders", "payouts", "refunds", "retry_queue",
    "settlements", "shipping", "tax", "webhooks",
]  # fmt: skip

_MONTHS = [f"2024_{m:02d}" for m in range(1, 13)]

_LATIN = [
    "José Álvarez", "Françoise Lefèvre", "Jürgen Weiß", "Søren Ødegård", "Zoë Brontë", "Ana Conceição",
    "Björn Ångström", "Inès Dupré", "Raúl Muñoz", "Maël Kerouédan", "Göran Näslund", "Chloé Bérubé",
]  # fmt: skip
_JAPANESE = ["株式会社さくら", "東京支店", "山田太郎", "鈴木花子", "大阪営業所", "佐藤健", "名古屋物流", "福岡営業部"]
_CITIES = ["Zürich", "Málaga", "Orléans", "Göteborg", "Århus", "São Paulo", "Reykjavík", "Düsseldorf"]
_JP_CITIES = ["東京", "大阪", "名古屋", "福岡", "札幌", "横浜", "京都", "神戸"]
_STATUS = ["settled", "failed", "retry_scheduled", "settled", "refunded", "settled", "chargeback", "settled"]
_NOTES = [
    "paid on first attempt", "card declined (E-0412), queued for retry", "gateway timeout, retry 2/5",
    "settled after retry", "refund failed once, succeeded on retry", "no error", "disputed, exception raised",
    "error code E-0501 cleared",
]  # fmt: skip


def _rows(area: str, month: str, n: int, names: list[str]) -> list[list[str]]:
    """``n`` made-up payment rows of ``area`` in ``month``: id, customer, city, amount, status, error code, note."""
    base = (_AREAS.index(area) if area in _AREAS else 7) * 1000 + _MONTHS.index(month) * 80
    cities = _JP_CITIES if names is _JAPANESE else _CITIES
    rows = []
    for k in range(n):
        i = base + k
        status = _STATUS[i % len(_STATUS)]
        code = {"failed": "E-0412", "retry_scheduled": "E-0501", "chargeback": "E-0730"}.get(status, "")
        rows.append(
            [
                f"PAY-{i:06d}",
                names[i % len(names)],
                cities[i % len(cities)],
                f"{(i * 37) % 9000 + 100}.{i % 100:02d}",
                status,
                code,
                _NOTES[i % len(_NOTES)],
            ]
        )
    return rows


def _csv(rows: list[list[str]], *, crlf: bool = False) -> str:
    eol = "\r\n" if crlf else "\n"
    lines = ["payment_id;customer;city;amount_eur;status;error_code;note"] + [";".join(r) for r in rows]
    return eol.join(lines) + eol


def _jsonl(area: str, rows: list[list[str]]) -> str:
    keys = ["payment_id", "customer", "city", "amount_eur", "status", "error_code", "note"]
    out = []
    for r in rows:
        fields = ", ".join(f'"{key}": "{value}"' for key, value in zip(keys, r, strict=True))
        out.append(f'{{"area": "{area}", {fields}}}')
    return "\n".join(out) + "\n"


def _put(root: Path, rel: str, data: bytes) -> None:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def _utf16(text: str, *, bom: bool = True) -> bytes:
    return (b"\xff\xfe" if bom else b"") + text.encode("utf-16-le")


def _run(cmd: str, root: Path) -> bytes:
    return scrub(sh(cmd, root), root)


# ---------------------------------------------------------------- iconv


_TO_LATIN1 = """\
#!/bin/bash
# The legacy ERP imports ISO-8859-1 only: convert every CSV of the export.
mkdir -p erp_in
ok=0
failed=0
for f in $(find export -name '*.csv' | sort); do
  out="erp_in/${f#export/}"
  mkdir -p "$(dirname "$out")"
  rows=$(($(wc -l < "$f") - 1))
  printf 'iconv UTF-8 -> ISO-8859-1  %-46s rows=%-4d ' "$f" "$rows"
  if iconv -f UTF-8 -t ISO-8859-1 "$f" > "$out"; then
    echo "ok ($(wc -c < "$out") bytes)"
    ok=$((ok + 1))
  else
    echo "FAILED"
    failed=$((failed + 1))
  fi
done
echo "converted $ok files, $failed failed"
[ "$failed" -eq 0 ]
"""


@case(
    "u121_iconv_loop_illegal",
    "iconv (bash loop)",
    clean=False,
    group=GROUP,
    decisive=[
        "export/refunds/refunds_2024_07.csv",
        "iconv: illegal input sequence at position 1987",
        "converted 239 files, 1 failed",
        "[exit status 1]",
    ],
)
def _iconv_loop(root: Path) -> bytes:
    for area in _AREAS:
        for month in _MONTHS:
            rows = _rows(area, month, 40, _LATIN)
            if area == "refunds" and month == "2024_07":
                rows[23][1] = "東京支店"
            _put(root, f"export/{area}/{area}_{month}.csv", _csv(rows).encode())
    write(root, {"to_latin1.sh": _TO_LATIN1})
    return _run("bash to_latin1.sh", root)


# ---------------------------------------------------------------- dos2unix / unix2dos


def _windows_export(root: Path, *, broken: str = "") -> None:
    """``export_win``: CRLF CSV and text files, the Japanese ones as UTF-16 with a byte order mark (Excel's
    "Unicode text"); ``broken`` is saved as UTF-16 without the mark."""
    for area in _AREAS:
        for m, month in enumerate(_MONTHS[:15]):
            if m % 4 == 3:
                rel = f"export_win/{area}/{area}_{month}_jp.txt"
                text = _csv(_rows(area, month, 30, _JAPANESE), crlf=True).replace(";", "\t")
                _put(root, rel, _utf16(text, bom=rel != broken))
            else:
                rel = f"export_win/{area}/{area}_{month}.csv"
                _put(root, rel, _csv(_rows(area, month, 30, _LATIN), crlf=True).encode())


@case(
    "u121_dos2unix_binary_skipped",
    "dos2unix",
    clean=False,
    group=GROUP,
    decisive=[
        "dos2unix: Binary symbol 0x00 found at line 1",
        "dos2unix: Skipping binary file export_win/settlements/settlements_2024_08_jp.txt",
    ],
)
def _dos2unix_skip(root: Path) -> bytes:
    _windows_export(root, broken="export_win/settlements/settlements_2024_08_jp.txt")
    return _run("find export_win -type f | sort | xargs dos2unix", root)


@case(
    "u121_dos2unix_unix2dos_clean",
    "dos2unix, unix2dos",
    clean=True,
    group=GROUP,
    decisive=[
        "dos2unix: converting UTF-16LE file export_win/webhooks/webhooks_2024_12_jp.txt to UTF-8 Unix format...",
        "unix2dos: converting file erp_out/webhooks_summary.csv to DOS format...",
    ],
)
def _dos2unix_clean(root: Path) -> bytes:
    _windows_export(root)
    for area in _AREAS:
        _put(root, f"erp_out/{area}_summary.csv", _csv(_rows(area, "2024_12", 12, _LATIN)).encode())
    cmd = (
        "find export_win -type f | sort | xargs dos2unix -v"
        " && echo '--- Windows hand-off for the ERP team ---'"
        " && unix2dos erp_out/*.csv"
    )
    return _run(cmd, root)


# ---------------------------------------------------------------- enca


@case(
    "u121_enca_unrecognized",
    "enca",
    clean=False,
    group=GROUP,
    decisive=["export/audit/audit_2024_02.csv: Unrecognized encoding", "[exit status 1]"],
)
def _enca(root: Path) -> bytes:
    for a, area in enumerate(_AREAS):
        for m, month in enumerate(_MONTHS):
            rows = _rows(area, month, 20, _LATIN if m % 2 else _JAPANESE)
            if (a + m) % 5 == 0:
                _put(root, f"export/{area}/{area}_{month}.jsonl", _jsonl(area, rows).encode())
                continue
            text = _csv(rows, crlf=(a + m) % 3 == 0)
            if area == "audit" and month == "2024_02":
                data = text.encode("latin-1")
            elif (a + m) % 7 == 0:
                data = _utf16(text)
            else:
                data = text.encode()
            _put(root, f"export/{area}/{area}_{month}.csv", data)
        _put(root, f"export/{area}/README.txt", f"{area} export, one file a month, 2024\n".encode())
    return _run("enca -L none $(find export -type f | sort)", root)


# ---------------------------------------------------------------- uconv (make -k)


_MAKEFILE = """\
SRCS := $(sort $(wildcard sjis/*/*.csv))
OUTS := $(patsubst sjis/%,utf8/%,$(SRCS))

all: $(OUTS) check

utf8/%.csv: sjis/%.csv
\t@mkdir -p $(dir $@)
\t@echo "  UCONV   shift_jis -> utf-8   $@"
\t@uconv -f shift_jis -t utf-8 -o $@ $<

check: $(OUTS)
\t@echo "checking $(words $(OUTS)) converted files"
\t@file -b --mime-encoding $(OUTS) | sort | uniq -c

.PHONY: all check
"""


@case(
    "u121_make_uconv_illegal",
    "make -k (uconv)",
    clean=False,
    group=GROUP,
    decisive=[
        "Conversion to Unicode from codepage failed at input byte position 3011."
        " Bytes: e9 Error: Illegal character found",
        "make: *** [Makefile:9: utf8/exceptions/exceptions_2024_05.csv] Error 1",
        "make: Target 'all' not remade because of errors.",
        "[exit status 2]",
    ],
)
def _make_uconv(root: Path) -> bytes:
    for area in _AREAS:
        for month in _MONTHS:
            data = _csv(_rows(area, month, 40, _JAPANESE)).encode("shift_jis")
            if area == "exceptions" and month == "2024_05":
                data += "PAY-999999;Café Orléans;Orléans;120.00;failed;E-0412;escalated\n".encode("latin-1")
            _put(root, f"sjis/{area}/{area}_{month}.csv", data)
    write(root, {"Makefile": _MAKEFILE})
    return _run("make -k -j1", root)


# ---------------------------------------------------------------- Python


_LOADER = """\
import json
import sys
from pathlib import Path

total = failed = 0
for path in sorted(Path("export").glob("*/*.jsonl")):
    print(f"reading {path}")
    with open(path, encoding="utf-8") as fh:
        records = [json.loads(line) for line in fh]
    for rec in records:
        total += 1
        if rec["status"] in ("failed", "retry_scheduled", "chargeback"):
            failed += 1
            print(f"  {rec['payment_id']} status={rec['status']} error_code={rec['error_code']} note={rec['note']}")
    print(f"  {len(records)} records from {path.name}")
print(f"loaded {total} records, {failed} failed or retried payments")
"""


@case(
    "u121_python_decode_traceback",
    "python (UnicodeDecodeError)",
    clean=False,
    group=GROUP,
    decisive=[
        "reading export/payouts/payouts_2024_09.jsonl",
        "UnicodeDecodeError: 'utf-8' codec can't decode byte",
        "[exit status 1]",
    ],
)
def _python_traceback(root: Path) -> bytes:
    for area in _AREAS:
        for month in _MONTHS:
            text = _jsonl(area, _rows(area, month, 24, _LATIN))
            enc = "latin-1" if (area, month) == ("payouts", "2024_09") else "utf-8"
            _put(root, f"export/{area}/{area}_{month}.jsonl", text.encode(enc))
    write(root, {"load_export.py": _LOADER})
    return _run("python load_export.py", root)


_IMPORTER = """\
import csv
import logging
import sys
from pathlib import Path

logging.basicConfig(level=logging.INFO, format="%(levelname)-7s %(name)s: %(message)s")
log = logging.getLogger("import")

imported = errors = 0
for path in sorted(Path("export").glob("*/*.csv")):
    try:
        with open(path, encoding="utf-8", newline="") as fh:
            rows = list(csv.DictReader(fh, delimiter=";"))
    except UnicodeDecodeError as exc:
        log.error("cannot import %s: %s", path, exc)
        errors += 1
        continue
    codes = sorted({r["error_code"] for r in rows if r["error_code"]})
    bad = sum(r["status"] in ("failed", "chargeback") for r in rows)
    log.info("imported %s: %d rows, %d failed/chargeback, error codes %s", path, len(rows), bad, ",".join(codes))
    for r in rows:
        if r["status"] == "retry_scheduled":
            log.warning("%s %s: retry scheduled (%s)", path.stem, r["payment_id"], r["note"])
    imported += 1
print(f"import finished: {imported} files imported, {errors} files with errors")
sys.exit(1 if errors else 0)
"""


@case(
    "u121_python_import_logged_error",
    "python (logging)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERROR   import: cannot import export/billing/billing_2024_03.csv: 'utf-8' codec can't decode byte",
        "import finished: 239 files imported, 1 files with errors",
        "[exit status 1]",
    ],
)
def _python_import(root: Path) -> bytes:
    for area in _AREAS:
        for month in _MONTHS:
            text = _csv(_rows(area, month, 40, _LATIN))
            enc = "cp1252" if (area, month) == ("billing", "2024_03") else "utf-8"
            _put(root, f"export/{area}/{area}_{month}.csv", text.encode(enc))
    write(root, {"import_export.py": _IMPORTER})
    return _run("python import_export.py", root)


_NORMALIZER = """\
import locale
from pathlib import Path

lang, enc = locale.getdefaultlocale()
print(f"locale default: {lang} {enc}; writing UTF-8 regardless")

files = rows = fallbacks = 0
for path in sorted(Path("incoming").glob("*/*.csv")):
    raw = path.read_bytes()
    if raw.startswith(b"\\xff\\xfe"):
        text, source = raw.decode("utf-16"), "utf-16"
    else:
        try:
            text, source = raw.decode("utf-8"), "utf-8"
        except UnicodeDecodeError:
            text, source = raw.decode("cp1252"), "cp1252 (fallback)"
            fallbacks += 1
    lines = text.splitlines()
    failed = sum(";failed;" in line for line in lines)
    out = Path("normalized") / path.relative_to("incoming")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text("\\n".join(lines) + "\\n", encoding="utf-8")
    print(f"{path}: {source} -> utf-8, {len(lines) - 1} rows, {failed} failed payments, 0 decode errors")
    files += 1
    rows += len(lines) - 1
print(f"normalized {files} files ({rows} rows) to UTF-8 in normalized/; {fallbacks} legacy cp1252 files; 0 errors")
"""


@case(
    "u121_python_normalize_clean",
    "python (normalizer)",
    clean=True,
    group=GROUP,
    decisive=["normalized 240 files (9600 rows) to UTF-8 in normalized/; 60 legacy cp1252 files; 0 errors"],
)
def _python_normalize(root: Path) -> bytes:
    for a, area in enumerate(_AREAS):
        for m, month in enumerate(_MONTHS):
            kind = (a + m) % 4
            text = _csv(_rows(area, month, 40, _JAPANESE if kind == 2 else _LATIN))
            data = text.encode("cp1252") if kind == 0 else _utf16(text) if kind == 2 else text.encode()
            _put(root, f"incoming/{area}/{area}_{month}.csv", data)
    write(root, {"normalize.py": _NORMALIZER})
    return _run("python normalize.py", root)


# ---------------------------------------------------------------- file -i, recode


def _mixed_export(root: Path) -> None:
    """300 files: Latin-1, UTF-8 and Shift_JIS CSV, UTF-16 text, ASCII JSON Lines."""
    for a, area in enumerate(_AREAS):
        for m, month in enumerate(_MONTHS[:15]):
            kind = (a + m) % 5
            if kind == 0:
                _put(root, f"export/{area}/{area}_{month}.csv", _csv(_rows(area, month, 30, _LATIN)).encode("latin-1"))
            elif kind == 1:
                _put(root, f"export/{area}/{area}_{month}.csv", _csv(_rows(area, month, 30, _LATIN)).encode())
            elif kind == 2:
                data = _csv(_rows(area, month, 30, _JAPANESE)).encode("shift_jis")
                _put(root, f"export/{area}/{area}_{month}_sjis.csv", data)
            elif kind == 3:
                _put(root, f"export/{area}/{area}_{month}_jp.txt", _utf16(_csv(_rows(area, month, 30, _JAPANESE))))
            else:
                rows = _rows(area, month, 30, ["ACME GmbH", "Nordic Freight AS", "Globex Ltd"])
                rows = [[c.encode("ascii", "replace").decode() for c in r] for r in rows]
                _put(root, f"export/{area}/{area}_{month}.jsonl", _jsonl(area, rows).encode())


@case(
    "u121_file_mime_inventory_clean",
    "file -i",
    clean=True,
    group=GROUP,
    decisive=["charsets of 240 files:", "48 iso-8859-1", "48 unknown-8bit"],
)
def _file_inventory(root: Path) -> bytes:
    _mixed_export(root)
    cmd = (
        "find export -type f | sort | xargs file -i"
        ' && echo && echo "charsets of $(find export -type f | wc -l) files:"'
        " && find export -type f | xargs file -b --mime-encoding | sort | uniq -c | sort -rn"
    )
    return _run(cmd, root)


@case(
    "u121_recode_latin1_clean",
    "recode",
    clean=True,
    group=GROUP,
    decisive=["Recoding legacy/webhooks/webhooks_2024_12_latam.csv... done", "480 utf-8"],
)
def _recode_clean(root: Path) -> bytes:
    for area in _AREAS:
        for month in _MONTHS:
            for region in ("emea", "latam"):
                data = _csv(_rows(area, month, 30, _LATIN)).encode("latin-1")
                _put(root, f"legacy/{area}/{area}_{month}_{region}.csv", data)
    cmd = (
        "recode -v latin1..utf8 $(find legacy -name '*.csv' | sort)"
        " && echo 'charset check after recode:'"
        " && find legacy -name '*.csv' | xargs file -b --mime-encoding | sort | uniq -c"
    )
    return _run(cmd, root)
