"""Outcome words of tools that speak another language than English.

GNU tools, compilers, git, apt and most of the free toolchain print translated
messages under a non-English locale (``LANG=de_DE.UTF-8``): gcc's ``Fehler:``,
``erreur :``, ``エラー:``, ``错误：``, coreutils' ``Keine Berechtigung``, git's
``KONFLIKT (Inhalt)``. The English priors see none of them. These tables give the
words of the most used translations, one source for :mod:`._patterns`.

The patterns are case-sensitive (Hyperscan folds ASCII only, Python's ``re``
folds everything), list the capitalised forms they need, and never put ``\\b``
next to a letter outside ASCII (the engines read those boundaries differently).
"""

from __future__ import annotations

__all__ = [
    "LOCALIZED_ERRORS",
    "LOCALIZED_ERROR_NOUN",
    "LOCALIZED_FAILURE",
    "LOCALIZED_LABEL",
    "LOCALIZED_PROBLEM",
    "LOCALIZED_WARNING",
    "LOCALIZED_WORDS",
]


def _either(words: tuple[str, ...]) -> str:
    return "(" + "|".join(words) + ")"


#: A diagnostic's level as a label before a colon (gcc, git, make, apt's translations), by language:
#: German, French, Portuguese, Italian, Russian, Ukrainian, Polish, Turkish, Dutch, Czech, Japanese,
#: Chinese (simplified and traditional) and Korean. Spanish says ``error``, which the English priors know.
_LABELS = (
    "Fehler",
    "FEHLER",
    "schwerwiegend",
    "Schwerwiegend",
    "erreur",
    "Erreur",
    "ERREUR",
    "erreur fatale",
    "erro",
    "Erro",
    "ERRO",
    "errore",
    "Errore",
    "ERRORE",
    "errore fatale",
    "ошибка",
    "Ошибка",
    "ОШИБКА",
    "фатальная ошибка",
    "помилка",
    "Помилка",
    "błąd",
    "Błąd",
    "BŁĄD",
    "hata",
    "Hata",
    "HATA",
    "fout",
    "Fout",
    "FOUT",
    "chyba",
    "Chyba",
    "fatal",
    "エラー",
    "致命的エラー",
    "致命的",
    "错误",
    "致命错误",
    "錯誤",
    "致命錯誤",
    "오류",
    "에러",
    "치명적",
)
#: An optional space (French puts one before a colon, often a no-break space, written here as itself: the
#: scanners read the patterns as UTF-8 bytes, where an escape would not do) and a colon, full-width in CJK.
_COLON = "([ \t]|\u00a0)?(:|\uff1a)"
#: What a label follows: the line's start, a location's colon, a space, a bracket or a quote; it ends with
#: :data:`_COLON`.
_LABEL_START = r"(^|[ \t\[(:'\"*])"
LOCALIZED_LABEL = _LABEL_START + _either(_LABELS) + _COLON

#: What a translated failure says, in the same languages (and Spanish): failed, could not, cannot, and the
#: C library's own messages for a missing file and a refused permission (``strerror`` under the locale).
_FAILURES = (
    # German
    "fehlgeschlagen",
    "ist nicht möglich",
    "nicht möglich",
    "konnte nicht",
    "kann nicht",
    "Datei oder Verzeichnis nicht gefunden",
    "Keine Berechtigung",
    "Zugriff verweigert",
    # French
    "échec",
    "Échec",
    "a échoué",
    "impossible d'",
    "Impossible d'",
    "impossible de ",
    "Impossible de ",
    "Aucun fichier ou dossier de ce type",
    "Permission non accordée",
    "Permission refusée",
    # Spanish
    "falló",
    "no se puede",
    "No se puede",
    "no se pudo",
    "No se pudo",
    "No existe el archivo o el directorio",
    "Permiso denegado",
    # Portuguese
    "falhou",
    "não foi possível",
    "Não foi possível",
    "não é possível",
    "Arquivo ou diretório inexistente",
    "Ficheiro ou pasta inexistente",
    "Permissão negada",
    # Italian
    "non riuscito",
    "non riuscita",
    "impossibile ",
    "Impossibile ",
    "File o directory non esistente",
    "Permesso negato",
    # Russian and Ukrainian
    "не удалось",
    "Не удалось",
    "невозможно",
    "Невозможно",
    "Нет такого файла или каталога",
    "Отказано в доступе",
    "не вдалося",
    "Немає такого файла або каталогу",
    # Polish
    "nie można",
    "Nie można",
    "nie powiodło się",
    "Nie ma takiego pliku ani katalogu",
    "Brak dostępu",
    # Turkish, Dutch, Czech
    "başarısız",
    "Böyle bir dosya ya da dizin yok",
    "mislukt",
    "Bestand of map bestaat niet",
    "Toegang geweigerd",
    "selhalo",
    "Adresář nebo soubor neexistuje",
    # Japanese, Chinese, Korean
    "失敗しました",
    "できません",
    "そのようなファイルやディレクトリはありません",
    "許可がありません",
    "失败",
    "无法",
    "没有那个文件或目录",
    "权限不够",
    "失敗",
    "無法",
    "沒有此一檔案或目錄",
    "실패",
    "할 수 없습니다",
    "그런 파일이나 디렉터리가 없습니다",
    "허가 거부",
)
LOCALIZED_FAILURE = _either(_FAILURES)

#: The word for an error (or the stem of its inflected forms) in a count or a program's message, where it
#: cannot be the start of an English word (no ``erro``, ``errore``, ``hata``): ``1 schwerwiegender Fehler``,
#: ``найдена 1 критическая ошибка``, ``tar: 由于前次错误，将以上次的错误状态退出``.
_ERROR_NOUNS = ("Fehler", "erreur", "errores", "ошибк", "ошибок", "помилк", "błąd", "błęd", "fouten", "chyb")
_CJK_ERROR_NOUNS = ("错误", "錯誤", "エラー", "오류", "에러")
LOCALIZED_ERROR_NOUN = _either((*_ERROR_NOUNS, *_CJK_ERROR_NOUNS))
#: A count of errors (``1 schwerwiegender Fehler``, ``2 erreurs``, ``发现 1 个致命错误``): a summary that names
#: failures, unless the count is zero. One word may stand between the count and the noun (not a time or a
#: number: ``2026-01-01 00:00:00 erreur 404`` is wget's report of one request, counting nothing).
LOCALIZED_ERRORS = (
    rf"(^|[^\w:])[0-9][0-9,]* ([^ \t\n0-9:.,;]+ )?{_either(_ERROR_NOUNS)}"
    rf"|(^|[^\w:])[0-9][0-9,]* ?(个|個|件|つの|개의) ?[^ \t\n]{{0,4}}{_either(_CJK_ERROR_NOUNS)}"
)
#: Lower-case stems that every match of a zero count of them holds (see ``_patterns.HEALTHY_WORDS``).
LOCALIZED_WORDS = ("fehler", "erreur", "errores", "ошиб", "помил", "błąd", "błęd", "fout", "chyb", *_CJK_ERROR_NOUNS)

#: Translated problems a program's message names, as :data:`._patterns.TOOL_DIAGNOSTIC` lists the English
#: ones: the failures above, an error named, and "not found", "invalid" in the languages whose tools say them.
_PROBLEMS = (
    *_FAILURES,
    *_ERROR_NOUNS,
    *_CJK_ERROR_NOUNS,
    "nicht gefunden",
    "ungültig",
    "introuvable",
    "invalide",
    "non trouvé",
    "no encontrado",
    "no válido",
    "não encontrado",
    "inválido",
    "non trovato",
    "non valido",
    "не найден",
    "неверный",
    "見つかりません",
    "無効",
    "未找到",
    "找不到",
    "无效",
    "찾을 수 없습니다",
)
LOCALIZED_PROBLEM = _either(_PROBLEMS)

#: A translated warning label (gcc's ``Warnung:``, ``avertissement :``, ``警告：``).
_WARNINGS = (
    "Warnung",
    "WARNUNG",
    "avertissement",
    "Avertissement",
    "advertencia",
    "Advertencia",
    "aviso",
    "Aviso",
    "avviso",
    "Avviso",
    "attenzione",
    "предупреждение",
    "Предупреждение",
    "попередження",
    "ostrzeżenie",
    "Ostrzeżenie",
    "uyarı",
    "Uyarı",
    "waarschuwing",
    "Waarschuwing",
    "varování",
    "警告",
    "경고",
)
LOCALIZED_WARNING = _LABEL_START + _either(_WARNINGS) + _COLON
