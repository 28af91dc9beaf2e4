"""Held-out outputs (group ``unseen-114``): a hundred-fourteenth batch, translation catalogs as an agent runs them on
a generated payments app (``payflow``) localized into 22 languages, one gettext domain per business area
(``failed_payments``, ``error_codes``, ``retry_queue``, ``exception_report``, ``billing``, ``refunds``, ...), all
offline.

Failing runs: a shell loop of ``msgfmt --check --statistics -v`` over 220 catalogs where ``pt_BR/refunds.po`` names a
placeholder the msgid does not have, ``make -k`` compiling every catalog where the Turkish ``retry_queue.po`` header
has an invalid plural expression, ``make -k`` of one ``xgettext`` template per domain with unnamed-argument warnings
everywhere and a Windows-1252 byte (an invalid multibyte sequence) in ``exception_report/views.py``, ``pybabel
extract``, ``update`` and ``compile --statistics`` where the Japanese catalog turns a named placeholder into ``%s``,
and a ``msgcat`` compendium loop over languages where one team file has a duplicate message definition.
Clean runs named after errors and failures:
``make`` compiling all 220 catalogs with their fuzzy and untranslated counts, ``msgmerge --update -v`` of every catalog
against new templates (with fuzzy matches), ``make`` of the ``xgettext`` templates with warnings only, ``pybabel``
per domain (``failed_payments``, ``error_codes``, ...) with statistics, and ``msgcat``/``msguniq`` compendia checked
with ``msgfmt``. Labels were written with each scenario, before the engine saw the output. Needs GNU gettext 0.21
(Debian ``gettext``) and make, with Babel 2.19.0 from PyPI (installed once into a virtual environment of its own under
``/tmp/offloader-corpus-venvs/u114-babel``).
"""

from __future__ import annotations

import zlib
from pathlib import Path

from _harness import VENVS, case, make_venv, scrub, sh, substitute, write

GROUP = "unseen-114"

#: Language code and its Plural-Forms.
_LANGS = {
    "de": "nplurals=2; plural=(n != 1);",
    "fr": "nplurals=2; plural=(n > 1);",
    "es": "nplurals=2; plural=(n != 1);",
    "it": "nplurals=2; plural=(n != 1);",
    "pt_BR": "nplurals=2; plural=(n > 1);",
    "nl": "nplurals=2; plural=(n != 1);",
    "sv": "nplurals=2; plural=(n != 1);",
    "da": "nplurals=2; plural=(n != 1);",
    "nb": "nplurals=2; plural=(n != 1);",
    "fi": "nplurals=2; plural=(n != 1);",
    "pl": "nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "cs": "nplurals=3; plural=(n==1) ? 0 : (n>=2 && n<=4) ? 1 : 2;",
    "hu": "nplurals=2; plural=(n != 1);",
    "ro": "nplurals=3; plural=(n==1 ? 0 : (n==0 || (n%100 > 0 && n%100 < 20)) ? 1 : 2);",
    "tr": "nplurals=2; plural=(n != 1);",
    "ru": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "uk": "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);",
    "ja": "nplurals=1; plural=0;",
    "ko": "nplurals=1; plural=0;",
    "zh_CN": "nplurals=1; plural=0;",
    "el": "nplurals=2; plural=(n != 1);",
    "he": "nplurals=2; plural=(n != 1);",
}

_DOMAINS = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "billing", "refunds", "invoice", "ledger",
    "webhooks", "coupons",
]  # fmt: skip

_FIELDS = ["status", "reason", "owner", "created date", "amount", "currency", "merchant"]


def _settle(out: bytes, root: Path) -> bytes:
    return substitute(
        scrub(out, root),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d[+-]\d{4}", "2026-01-01 00:00+0000"),
        (r"make\[\d+\]", "make[1]"),
        (r"^\.+$", "......"),  # msgmerge's progress dots, one per moment of work
    )


def _messages(domain: str, *, old: bool = False) -> list[tuple[str, str | None]]:
    """The messages of one area: (msgid, msgid_plural); ``old`` is the set before the last release."""
    a = domain.replace("_", " ")
    cap = a.capitalize()
    out: list[tuple[str, str | None]] = [
        (f"{cap} %(payment_id)s could not be processed" + (" yet" if old else ""), None),
        (f"No {a} to show", None),
        (f"Attempt {{attempt}} of {{max_attempts}} for {a}", None),
        (f"%(count)d {a} entry", f"%(count)d {a} entries"),
        (f"Export {a} to CSV", None),
        (f"Amount %(amount)s exceeds the {a} limit of %(limit)s", None),
        (f"{cap} settings saved", None),
        (f"Could not load {a} record %(record_id)s", None),
        (f"Show {a} history" + (" log" if old else ""), None),
        (f"Merchant %(merchant)s has %(count)d open {a} case", f"Merchant %(merchant)s has %(count)d open {a} cases"),
    ]
    for field in _FIELDS:
        out.append((f"{cap} {field}", None))
        out.append((f"Sort {a} by {field}", None))
        out.append((f"Filter {a} by {field}: %(value)s", None))
    if not old:
        out.append((f"Escalate {a} to finance on call", None))
        out.append((f"Download {a} summary for {{month}}", None))
    return out


def _flags(msgid: str) -> str:
    if "%(" in msgid:
        return "#, python-format\n"
    if "{" in msgid:
        return "#, python-brace-format\n"
    return ""


def _sources(root: Path, *, non_ascii: bool = False) -> dict[str, list[tuple[int, str, str | None]]]:
    """``payflow/<domain>/{models,views,tasks}.py``; returns each domain's messages with their file:line."""
    refs: dict[str, list[tuple[int, str, str | None]]] = {}
    for domain in _DOMAINS:
        msgs = _messages(domain)
        parts: dict[str, list[str]] = {"models": [], "views": [], "tasks": []}
        for i, (mid, plural) in enumerate(msgs):
            parts[["models", "views", "tasks"][i % 3]].append((mid, plural))  # type: ignore[arg-type]
        for module, items in parts.items():
            lines = [
                f'"""{module} of the {domain} area."""',
                "from payflow.i18n import _, ngettext",
                "",
                "",
                f"def {module}_{domain}_labels(count, **kw):",
                "    return [",
            ]
            for mid, plural in items:
                if plural:
                    lines.append(f"        ngettext({mid!r}, {plural!r}, count) % dict(kw, count=count),")
                else:
                    lines.append(f"        _({mid!r}),")
                refs.setdefault(domain, []).append((len(lines), f"payflow/{domain}/{module}.py", mid, plural))
            lines.append(f"        _('Retry %s of %s for {domain.replace('_', ' ')}') % (kw['n'], kw['total']),")
            if non_ascii and domain == "exception_report" and module == "views":
                lines.append("        _('Zahlung fehlgeschlagen \u2013 exception report'),")
            lines += ["    ]", ""]
            path = root / f"payflow/{domain}/{module}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes("\n".join(lines).encode("cp1252"))  # one file saved by a Windows editor
            write(root, {f"payflow/{domain}/__init__.py": ""})
    write(root, {"payflow/__init__.py": ""})
    write(root, {"payflow/i18n.py": "import gettext\n_ = gettext.gettext\nngettext = gettext.ngettext\n"})
    return refs  # type: ignore[return-value]


def _tr(lang: str, text: str) -> str:
    return f"{lang}\u00b7{text}\u00b7"


def _po(lang: str, domain: str, *, old: bool = False, header: str = "", mutate: tuple[str, str] | None = None) -> str:
    nplurals = int(_LANGS[lang].split(";")[0].split("=")[1])
    plural_forms = header or _LANGS[lang]
    out = [
        "# Translation of payflow " + domain + " into " + lang + ".",
        'msgid ""',
        'msgstr ""',
        f'"Project-Id-Version: payflow {domain} 4.2\\n"',
        '"Report-Msgid-Bugs-To: i18n@payflow.example\\n"',
        '"POT-Creation-Date: 2026-01-01 00:00+0000\\n"',
        '"PO-Revision-Date: 2026-01-01 00:00+0000\\n"',
        f'"Last-Translator: {lang} team <i18n-{lang}@payflow.example>\\n"',
        f'"Language-Team: {lang} <i18n-{lang}@payflow.example>\\n"',
        f'"Language: {lang}\\n"',
        '"MIME-Version: 1.0\\n"',
        '"Content-Type: text/plain; charset=UTF-8\\n"',
        '"Content-Transfer-Encoding: 8bit\\n"',
        f'"Plural-Forms: {plural_forms}\\n"',
        "",
    ]
    for i, (mid, plural) in enumerate(_messages(domain, old=old)):
        roll = zlib.crc32(f"{lang}/{domain}/{i}".encode()) % 29
        flags = _flags(mid)
        if roll == 3:
            flags = flags.replace("#, ", "#, fuzzy, ") if flags else "#, fuzzy\n"
        out.append(f"#: payflow/{domain}/{['models', 'views', 'tasks'][i % 3]}.py:{7 + i // 3}")
        if flags:
            out.append(flags.rstrip("\n"))
        out.append(f'msgid "{mid}"')
        text = "" if roll in (5, 11) else _tr(lang, mid)
        if mutate and mutate[0] == mid:
            text = mutate[1]
        if plural:
            out.append(f'msgid_plural "{plural}"')
            for k in range(nplurals):
                out.append(f'msgstr[{k}] "{_tr(lang, plural) if text else ""}"')
        else:
            out.append(f'msgstr "{text}"')
        out.append("")
    return "\n".join(out)


def _catalogs(root: Path, langs: list[str] | None = None, **special: dict) -> None:
    for lang in langs or list(_LANGS):
        for domain in _DOMAINS:
            kw = special.get(f"{lang}/{domain}", {})
            write(root, {f"locale/{lang}/LC_MESSAGES/{domain}.po": _po(lang, domain, **kw)})


_MAKEFILE = """
LANGS := {langs}
DOMAINS := {domains}
MOS := $(foreach l,$(LANGS),$(foreach d,$(DOMAINS),build/locale/$(l)/LC_MESSAGES/$(d).mo))

all: $(MOS)
\t@echo "compiled $(words $(MOS)) catalogs into build/locale"

build/locale/%.mo: locale/%.po
\t@mkdir -p $(dir $@)
\tmsgfmt --check --statistics -v -o $@ $<
"""


def _makefile(root: Path) -> None:
    write(root, {"Makefile": _MAKEFILE.format(langs=" ".join(_LANGS), domains=" ".join(_DOMAINS))})


# ---------------------------------------------------------------- msgfmt


@case(
    "u114_msgfmt_loop_format_mismatch",
    "msgfmt",
    clean=False,
    group=GROUP,
    decisive=[
        "locale/pt_BR/LC_MESSAGES/refunds.po:44: a format specification for argument 'ammount'",
        "msgfmt: found 1 fatal error",
        "1 of 220 catalogs failed",
    ],
)
def _msgfmt_loop_format_mismatch(root: Path) -> bytes:
    bad = "pt_BR\u00b7Valor %(ammount)s excede o limite de reembolso de %(limit)s"
    _catalogs(root, **{"pt_BR/refunds": {"mutate": ("Amount %(amount)s exceeds the refunds limit of %(limit)s", bad)}})
    script = (
        'n=0; bad=0; for po in locale/*/LC_MESSAGES/*.po; do n=$((n+1)); echo "== $po"; '
        'msgfmt --check --statistics -v -o "${po%.po}.mo" "$po" || bad=$((bad+1)); done; '
        'echo "$bad of $n catalogs failed"; test $bad -eq 0'
    )
    return _settle(sh(script, root), root)


@case(
    "u114_make_msgfmt_plural_header",
    "make",
    clean=False,
    group=GROUP,
    decisive=[
        "locale/tr/LC_MESSAGES/retry_queue.po:3: invalid plural expression",
        "[Makefile:10: build/locale/tr/LC_MESSAGES/retry_queue.mo] Error 1",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _make_plural_header(root: Path) -> bytes:
    _catalogs(root, **{"tr/retry_queue": {"header": "nplurals=2; plural=(n != 1;"}})
    _makefile(root)
    return _settle(sh("make -k -j1", root), root)


@case(
    "u114_make_msgfmt_clean_failed_payments",
    "make",
    clean=True,
    group=GROUP,
    decisive=["compiled 220 catalogs into build/locale"],
)
def _make_clean(root: Path) -> bytes:
    _catalogs(root)
    _makefile(root)
    return _settle(sh("make -j1", root), root)


# ---------------------------------------------------------------- msgmerge


@case(
    "u114_msgmerge_update_fuzzy_clean",
    "msgmerge",
    clean=True,
    group=GROUP,
    decisive=["merged 220 catalogs, 0 errors"],
)
def _msgmerge_update(root: Path) -> bytes:
    _sources(root)
    for lang in _LANGS:
        for domain in _DOMAINS:
            write(root, {f"locale/{lang}/LC_MESSAGES/{domain}.po": _po(lang, domain, old=True)})
    pots = " && ".join(
        f"xgettext -L Python -k_ -kngettext:1,2 --package-name=payflow -d {d} -o pot/{d}.pot payflow/{d}/*.py "
        "2>/dev/null"
        for d in _DOMAINS
    )
    script = (
        f"mkdir -p pot && {pots} && n=0; bad=0; for po in locale/*/LC_MESSAGES/*.po; do n=$((n+1)); "
        'd=$(basename "$po" .po); echo "msgmerge --update -v $po pot/$d.pot"; '
        'msgmerge --update --backup=none -v "$po" "pot/$d.pot" || bad=$((bad+1)); done; '
        'echo "merged $n catalogs, $bad errors"'
    )
    return _settle(sh(script, root), root)


# ---------------------------------------------------------------- xgettext

_XGETTEXT_MAKE = """
DOMAINS := {domains}
POTS := $(foreach d,$(DOMAINS),pot/$(d).pot)

all: $(POTS)
\t@echo "extracted $(words $(POTS)) templates into pot/"

pot/%.pot: payflow/%/models.py payflow/%/views.py payflow/%/tasks.py
\t@mkdir -p pot
\txgettext --verbose -L Python -k_ -kngettext:1,2 --add-comments=TRANSLATORS --package-name=payflow -d $* -o $@ $^
"""


@case(
    "u114_make_xgettext_non_ascii",
    "xgettext",
    clean=False,
    group=GROUP,
    decisive=[
        "payflow/exception_report/views.py:19: Invalid multibyte sequence.",
        "[Makefile:9: pot/exception_report.pot] Error 1",
        "make: Target 'all' not remade because of errors.",
    ],
)
def _xgettext_non_ascii(root: Path) -> bytes:
    _sources(root, non_ascii=True)
    write(root, {"Makefile": _XGETTEXT_MAKE.format(domains=" ".join(_DOMAINS))})
    return _settle(sh("make -k -j1", root), root)


@case(
    "u114_make_xgettext_clean_warnings",
    "xgettext",
    clean=True,
    group=GROUP,
    decisive=["extracted 10 templates into pot/"],
)
def _xgettext_clean(root: Path) -> bytes:
    _sources(root)
    write(root, {"Makefile": _XGETTEXT_MAKE.format(domains=" ".join(_DOMAINS))})
    return _settle(sh("make -j1 && grep -c '^msgid ' pot/*.pot", root), root)


# ---------------------------------------------------------------- Babel


def _babel(root: Path) -> str:
    venv = make_venv(VENVS / "u114-babel", "Babel==2.19.0")
    write(root, {"babel.cfg": "[python: payflow/**.py]\n"})
    return f"{venv}/bin/pybabel"


@case(
    "u114_pybabel_compile_placeholders",
    "pybabel",
    clean=False,
    group=GROUP,
    decisive=[
        "error: translations/ja/LC_MESSAGES/messages.po:1063: the format strings are of different kinds",
        "1 errors encountered.",
    ],
)
def _pybabel_error(root: Path) -> bytes:
    pybabel = _babel(root)
    _sources(root)
    for lang in _LANGS:
        body = "".join(_po(lang, d).split("\n\n", 1)[1] for d in _DOMAINS)
        if lang == "ja":
            body = body.replace(
                'msgstr "ja\u00b7Could not load ledger record %(record_id)s\u00b7"',
                'msgstr "ja\u00b7\u5143\u5e33\u30ec\u30b3\u30fc\u30c9 %s '
                '\u3092\u8aad\u307f\u8fbc\u3081\u307e\u305b\u3093"',
            )
        head = _po(lang, "messages").split("\n\n", 1)[0]
        write(root, {f"translations/{lang}/LC_MESSAGES/messages.po": head + "\n\n" + body})
    script = (
        f"{pybabel} extract -F babel.cfg -k _ -k ngettext:1,2 --no-wrap --omit-header -o messages.pot . && "
        f"{pybabel} update -N -i messages.pot -d translations --no-wrap && "
        f"{pybabel} compile -d translations --statistics"
    )
    return _settle(sh(script, root), root)


@case(
    "u114_pybabel_domains_clean",
    "pybabel",
    clean=True,
    group=GROUP,
    decisive=["compiling catalog translations/he/LC_MESSAGES/coupons.po to translations/he/LC_MESSAGES/coupons.mo"],
)
def _pybabel_clean(root: Path) -> bytes:
    pybabel = _babel(root)
    _sources(root)
    for lang in _LANGS:
        for domain in _DOMAINS:
            write(root, {f"translations/{lang}/LC_MESSAGES/{domain}.po": _po(lang, domain)})
    steps = []
    for d in _DOMAINS:
        steps.append(f"{pybabel} extract -k _ -k ngettext:1,2 --omit-header -o pot/{d}.pot payflow/{d}")
        steps.append(f"{pybabel} update -N -D {d} -i pot/{d}.pot -d translations")
        steps.append(f"{pybabel} compile -D {d} -d translations --statistics")
    return _settle(sh("mkdir -p pot && " + " && ".join(steps), root), root)


# ---------------------------------------------------------------- msgcat and msguniq


def _teams(root: Path, dup: str = "") -> None:
    """Each language team's file per domain under ``teams/<lang>/``; ``dup`` (lang/domain) gets a duplicate."""
    for lang in _LANGS:
        for domain in _DOMAINS:
            text = _po(lang, domain)
            if f"{lang}/{domain}" == dup:
                what = domain.replace("_", " ")
                text += (
                    f"\n#: payflow/{domain}/views.py:9\n"
                    f'msgid "Export {what} to CSV"\n'
                    f'msgstr "{lang}\u00b7Export\u0103 {what} \u00een CSV"\n'
                )
            write(root, {f"teams/{lang}/{domain}.po": text})


_COMPENDIUM = (
    'mkdir -p compendium; n=0; bad=0; for t in teams/*; do l=$(basename $t); echo "== $l"; '
    "cp $t/failed_payments.po compendium/$l.po; "
    f'for d in {" ".join(_DOMAINS[1:])}; do n=$((n+1)); echo "+ $t/$d.po"; '
    "msgcat --use-first -o compendium/$l.po compendium/$l.po $t/$d.po || bad=$((bad+1)); "
    "msgfmt --check --statistics -o /dev/null compendium/$l.po; done; "
    "echo \"repeated msgids: $(msguniq --repeated compendium/$l.po | grep -c '^msgid')\"; done; "
    'echo "$n merges, $bad failed"; test $bad -eq 0'
)


@case(
    "u114_msgcat_compendium_duplicate",
    "msgcat",
    clean=False,
    group=GROUP,
    decisive=[
        "teams/ro/ledger.po:170: duplicate message definition",
        "msgcat: found 1 fatal error",
        "198 merges, 1 failed",
    ],
)
def _msgcat_duplicate(root: Path) -> bytes:
    _teams(root, dup="ro/ledger")
    return _settle(sh(_COMPENDIUM, root), root)


@case(
    "u114_msgcat_compendium_clean",
    "msgcat",
    clean=True,
    group=GROUP,
    decisive=["198 merges, 0 failed"],
)
def _msgcat_clean(root: Path) -> bytes:
    _teams(root)
    return _settle(sh(_COMPENDIUM, root), root)
