"""Tools that speak another language: translated labels and messages are outcome priors too (``_locales``)."""

from __future__ import annotations

import pytest

from offloader.signal import Signal, make_preview, read_signal
from offloader.signal._scan import scan
from offloader.tokens import TiktokenCounter

COUNTER = TiktokenCounter()
#: msgfmt's report of each catalogue it checked: a clean listing to put one line in.
_CATALOGUES = [f"po/ledger/{i:03d}.po: 56 translated messages, 4 untranslated messages." for i in range(400)]


def _read_with(lines: list[str], at: int, line: str) -> Signal:
    """The signal of ``lines`` (a clean listing) with ``line`` in place of line ``at`` (0-based)."""
    return read_signal("\n".join([*lines[:at], line, *lines[at + 1 :]]) + "\n")


def _build(line: str, *, at: int = 900, total: int = 2000) -> str:
    """A long build log of one repeated shape with ``line`` in its middle."""
    lines = [f"gcc -c -O2 -o obj/unit_{i}.o src/unit_{i}.c" for i in range(total)]
    lines[at] = line
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "line",
    [
        "src/ledger.c:214:9: Fehler: »balance« nicht deklariert (erstmalige Verwendung in dieser Funktion)",
        "src/ledger.c:214:9: erreur\u00a0: « balance » non déclaré (première utilisation dans cette fonction)",
        "src/ledger.c:214:9: erreur : « balance » non déclaré (première utilisation dans cette fonction)",
        "src/ledger.c:214:9: エラー: ‘balance’ が宣言されていません (この関数内で最初に使用)",
        "src/ledger.c:214:9: 错误：‘balance’未声明(在此函数内第一次使用)",
        "src/ledger.c:214:9: ошибка: «balance» не описан (первое использование в этой функции)",
        "src/ledger.c:214:9: erro: \u201cbalance\u201d não declarado (primeiro uso nesta função)",
    ],
)
def test_a_translated_compiler_error_is_failure_evidence_and_previewed(line: str) -> None:
    text = _build(line)
    signal = read_signal(text)
    assert signal.failing
    assert [u.lineno for u in signal.units if u.failure] == [901]
    assert line in make_preview(text, counter=COUNTER, preview_tokens=1000)


@pytest.mark.parametrize(
    "line",
    [
        "cp: der Aufruf von stat für 'exports/ledger.csv' ist nicht möglich: Datei oder Verzeichnis nicht gefunden",
        "cp: impossible d'évaluer 'exports/ledger.csv': Aucun fichier ou dossier de ce type",
        "cp: no se puede efectuar `stat' a 'exports/ledger.csv': No existe el archivo o el directorio",
        "cp: 'exports/ledger.csv' を stat できません: そのようなファイルやディレクトリはありません",
        "cp: 无法获取'exports/ledger.csv' 的文件状态(stat): 没有那个文件或目录",
        "cp: не удалось выполнить stat для 'exports/ledger.csv': Нет такого файла или каталога",
    ],
)
def test_a_programs_translated_diagnostic_is_failure_evidence(line: str) -> None:
    signal = _read_with([f"'exports/part_{i}.csv' -> 'backup/part_{i}.csv'" for i in range(1500)], 700, line)
    assert signal.failing
    assert [u.lineno for u in signal.units if u.failure] == [701]


def test_a_translated_warning_is_a_warning_not_a_failure() -> None:
    text = _build("src/ledger.c:12:5: Warnung: Variable »rest« wird nicht verwendet [-Wunused-variable]")
    signal = read_signal(text)
    assert not signal.failing
    assert signal.units[0].lineno == 901 and signal.units[0].kind == "warn"


def test_a_word_of_a_translation_inside_a_name_is_no_label() -> None:
    # modules named after error handling in German and French: no label shape (no colon after the word)
    text = "\n".join(
        [f"gcc -c -o obj/fehlerbehandlung_{i}.o src/Fehlerbehandlung{i}.c" for i in range(300)]
        + [f"CC gestion_erreurs_{i}.c (erreurs corrigées)" for i in range(300)]
    )
    assert not read_signal(text + "\n").failing


def test_the_scanners_find_the_same_translated_lines() -> None:
    lines = [
        "src/a.c:1:1: Fehler: x",
        "src/a.c:2:1: erreur\u00a0: x",
        "src/a.c:3:1: エラー: x",
        "src/a.c:4:1: 错误：x",
        "tar: Das sieht nicht wie ein „tar“-Archiv aus",
        "tar: Beende mit Fehlerstatus aufgrund vorheriger Fehler",
        "rm: das Entfernen von 'x' ist nicht möglich: Keine Berechtigung",
        "Warnung: nichts zu tun",
        "alles in Ordnung",
    ]
    data = ("\n".join(lines * 3) + "\n").encode()
    hyperscan = {c.lineno for c in scan(data, "hyperscan").candidates}
    re2 = {c.lineno for c in scan(data, "re2").candidates}
    assert hyperscan == re2
    assert {9, 18, 27}.isdisjoint(hyperscan) and {1, 2, 3, 4, 7, 8} <= hyperscan


@pytest.mark.parametrize(
    "line",
    [
        "msgfmt: found 1 fatal error",
        "error: aborting due to 10 previous errors",
        "msgfmt: 1 schwerwiegender Fehler gefunden",
        "msgfmt: найдена 1 критическая ошибка",
        "msgfmt: 发现 1 个致命错误",
    ],
)
def test_a_count_of_errors_with_a_word_between_names_failures(line: str) -> None:
    signal = _read_with(_CATALOGUES, 250, line)
    assert signal.failing
    assert [u.lineno for u in signal.units if u.failure] == [251]


@pytest.mark.parametrize(
    "line", ["msgfmt: found 0 fatal errors", "Ergebnis: 0 schwerwiegende Fehler", "итого: 0 ошибок"]
)
def test_a_zero_count_of_errors_is_healthy_in_any_language(line: str) -> None:
    assert not _read_with(_CATALOGUES, 250, line).failing


@pytest.mark.parametrize(
    "line",
    [
        "tar: Error is not recoverable: exiting now",
        "tar: Exiting with failure status due to previous errors",
        "tar: 由于前次错误，将以上次的错误状态退出",
        "tar: Beende mit Fehlerstatus aufgrund vorheriger Fehler",
    ],
)
def test_a_programs_message_that_starts_with_or_names_an_error_is_failure_evidence(line: str) -> None:
    signal = _read_with([f"ledger-2025-05/invoices/invoices-05-{i:04d}.csv" for i in range(1000)], 500, line)
    assert signal.failing
    assert [u.lineno for u in signal.units if u.failure] == [501]


def test_a_time_before_a_translated_error_is_no_count_of_errors() -> None:
    # wget's report of one request that found nothing (robots.txt while mirroring): no count of errors
    lines = [f"« 127.0.0.1:8000/orders/{i}.html » sauvegardé [2048/2048]" for i in range(400)]
    lines[3] = "2026-01-01 00:00:00 erreur 404 : File not found."
    assert not read_signal("\n".join(lines) + "\n").failing
