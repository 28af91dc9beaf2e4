"""Held-out outputs (group ``unseen-90``): a ninetieth batch, Debian packaging as an agent runs it on small generated
source packages (C programs with a Makefile and a TAP test program, debhelper-compat 13, offline).

Failing runs: ``dpkg-buildpackage -us -uc -b`` with ``DH_VERBOSE=1`` of ``retry-queue`` whose ``dh_auto_test`` fails
one check in the middle of 220 (later checks pass), of ``failed-payments`` (three binary packages) whose
``dh_install`` misses a file listed in ``failed-payments-data.install``, of ``exception-report`` whose
``dh_auto_build`` (make ``-k``) hits an undeclared identifier in the middle of 30 units with ``-Wextra`` warnings;
``debuild`` with ``lintian -I --pedantic`` reporting errors and warnings among many informational and pedantic tags;
``dpkg --root -i`` of eleven built packages where ``exception-report`` needs ``retry-queue (>= 2.0)`` and 1.4.0 is
there; a loop of ``dpkg-buildpackage -S`` over five ``3.0 (quilt)`` packages where the third aborts on unexpected
upstream changes. Clean runs named after errors and failures: a verbose build of ``failed-payments`` whose checks are
called ``failed payment ...`` and ``error code ...``, ``debuild`` with only informational lintian tags, ``dpkg-deb
--info/--contents`` of eleven packages, ``dpkg --root -i`` with ``dpkg -l`` and ``dpkg -L`` of the same packages,
and a source-and-binary build applying 14 quilt patches (``fix-retry-of-failed-payments``). Labels were written with
each scenario, before the engine saw the output. Needs dpkg-dev, debhelper, devscripts, lintian, fakeroot and
build-essential (Debian ``dpkg-dev``, ``debhelper``, ``devscripts``, ``lintian``, ``fakeroot``,
``build-essential``).
"""

from __future__ import annotations

import difflib
from pathlib import Path

from _harness import case, scrub, sh, substitute

GROUP = "unseen-90"

_ENV = (
    "DEBFULLNAME='Billing Team' DEBEMAIL=billing@example.org SOURCE_DATE_EPOCH=1700000000 "
    "DEB_BUILD_OPTIONS=parallel=1 HOME=/tmp/work-home"
)

_UNITS = [
    "failed_payments", "error_codes", "retry_queue", "exception_report", "ledger", "invoice", "refunds", "webhooks",
    "audit", "billing", "tax", "pricing", "coupons", "session", "shipping", "catalog", "orders", "cart", "search",
    "export", "auth", "dead_letter", "chargebacks", "settlement", "payouts", "disputes", "fx_rates", "statements",
    "reminders", "dunning",
]  # fmt: skip


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, temporary names, checksums, sizes of archives."""
    return substitute(
        scrub(out, root),
        (r"/tmp/work-home", "/tmp/work/home"),
        (r"\.diff\.[A-Za-z0-9]{6}", ".diff.XXXXXX"),
        (r"\b[0-9a-f]{64}\b", "0" * 64),
        (r"\b[0-9a-f]{40}\b", "0" * 40),
        (r"\b[0-9a-f]{32}\b", "0" * 32),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"/tmp/dh-xdg-rundir-[A-Za-z0-9_]{8}", "/tmp/dh-xdg-rundir-abcdefgh"),
        (
            r"^ new Debian package, version 2\.0\.\n size \d+ bytes",
            " new Debian package, version 2.0.\n size 1000 bytes",
        ),
        (r"^(\s+)size \d+ bytes: control archive=\d+ bytes\.", r"\1size 1000 bytes: control archive=100 bytes."),
        (r"^(\s+\d+ bytes,\s+\d+ lines)", r"\1"),
        (r"elapsed time: .*$", "elapsed time: 0s"),
        (r"\d+ (seconds|secs?)\b", r"1 \1"),
    )


def _c_unit(unit: str, i: int, *, broken: bool = False, unused: bool = True) -> str:
    budget = "retry_budjet" if broken else "retry_budget"
    param = ", int ctx" if unused else ""
    return (
        f'#include "app.h"\n\n/* {unit}: weights an amount for the {unit.replace("_", " ")} service. */\n'
        f"int {unit}_weight(int cents{param})\n{{\n    int retry_budget = {i + 3};\n"
        f"    if (cents < 0)\n        return -1;\n    return cents % 97 + {budget};\n}}\n"
    )


def _c_project(src: Path, name: str, units: list[str], *, broken: str = "", checks: int = 0, failing: int = 0) -> None:
    """A small C program ``name`` of ``units`` with a TAP test program of ``checks`` checks (check ``failing``
    expects a wrong value)."""
    (src / "src").mkdir(parents=True, exist_ok=True)
    (src / "tests").mkdir(exist_ok=True)
    decls = "".join(f"int {u}_weight(int cents, int ctx);\n" for u in units)
    (src / "src/app.h").write_text(f"#ifndef APP_H\n#define APP_H\n{decls}#endif\n")
    for i, u in enumerate(units):
        (src / f"src/{u}.c").write_text(_c_unit(u, i, broken=u == broken))
    calls = "".join(f"    total += {u}_weight(1999, 0);\n" for u in units)
    (src / "src/main.c").write_text(
        f'#include <stdio.h>\n#include "app.h"\n\nint main(void)\n{{\n    int total = 0;\n{calls}'
        f'    printf("{name}: weight %d\\n", total);\n    return 0;\n}}\n'
    )
    lines = [
        "#include <stdio.h>",
        '#include "../src/app.h"',
        "",
        "static int n, failed;",
        '#define CHECK(cond, desc) do { n++; if (cond) printf("ok %d - %s\\n", n, desc); else { failed++; \\',
        '    printf("not ok %d - %s\\n# %s:%d: check failed: %s\\n", \\',
        "        n, desc, __FILE__, __LINE__, #cond); } } while (0)",
        "",
        "int main(void)",
        "{",
    ]
    phrases = [
        "failed payment is retried after {k} attempts",
        "error code E{k:03d} maps to its retry class",
        "exception report groups {k} failures",
        "dead letter keeps failed payment {k}",
        "retry queue backoff for attempt {k}",
    ]
    for k in range(1, checks + 1):
        u = units[k % len(units)]
        want = 1999 % 97 + units.index(u) + 3
        if k == failing:
            want += 1
        desc = phrases[k % len(phrases)].format(k=k)
        lines.append(f'    CHECK({u}_weight(1999, {k}) == {want}, "{desc}");')
    lines += [
        '    printf("1..%d\\n", n);',
        '    if (failed) { printf("# FAILED %d of %d checks\\n", failed, n); return 1; }',
        '    printf("# all %d checks passed\\n", n);',
        "    return 0;",
        "}",
    ]
    (src / f"tests/test_{name.replace('-', '_')}.c").write_text("\n".join(lines) + "\n")
    test = f"tests/test_{name.replace('-', '_')}"
    (src / "Makefile").write_text(
        "CC ?= gcc\nCFLAGS ?= -O2\nSRCS = $(sort $(wildcard src/*.c))\nOBJS = $(SRCS:.c=.o)\n"
        "LIBOBJS = $(filter-out src/main.o,$(OBJS))\n\n"
        f"all: bin/{name}\n\n"
        f"bin/{name}: $(OBJS)\n\tmkdir -p bin\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $(OBJS)\n\n"
        "src/%.o: src/%.c src/app.h\n\t$(CC) $(CPPFLAGS) $(CFLAGS) -Wall -Wextra -c -o $@ $<\n\n"
        f"{test}: {test}.c $(LIBOBJS)\n\t$(CC) $(CPPFLAGS) $(CFLAGS) $(LDFLAGS) -o $@ $< $(LIBOBJS)\n\n"
        f"check: all {test}\n\t./{test}\n\n"
        "install: all\n"
        f"\tinstall -D -m 0755 bin/{name} $(DESTDIR)/usr/bin/{name}\n"
        f"\tinstall -D -m 0644 src/app.h $(DESTDIR)/usr/include/{name}/app.h\n\n"
        f"clean:\n\trm -f src/*.o bin/{name} {test}\n\n.PHONY: all check install clean\n"
    )


def _debian(
    src: Path,
    name: str,
    version: str,
    *,
    binaries: list[tuple[str, str, str]] | None = None,
    rules_extra: str = "",
    copyright_file: bool = True,
    fmt: str = "3.0 (native)",
    changelog_entries: int = 3,
) -> None:
    """``debian/`` for source package ``name``; ``binaries`` are (package, architecture, depends) triples."""
    deb = src / "debian"
    (deb / "source").mkdir(parents=True, exist_ok=True)
    (deb / "source/format").write_text(fmt + "\n")
    binaries = binaries or [(name, "any", "")]
    stanzas = [
        f"Source: {name}\nSection: utils\nPriority: optional\nMaintainer: Billing Team <billing@example.org>\n"
        "Build-Depends: debhelper-compat (= 13)\nStandards-Version: 4.6.2\nRules-Requires-Root: no\n"
        f"Homepage: https://example.org/{name}\n"
    ]
    for pkg, arch, depends in binaries:
        extra = f", {depends}" if depends else ""
        shlibs = "${shlibs:Depends}, " if arch == "any" else ""
        stanzas.append(
            f"Package: {pkg}\nArchitecture: {arch}\nDepends: {shlibs}${{misc:Depends}}{extra}\n"
            f"Description: {pkg.replace('-', ' ')} tools for the billing platform\n"
            " A part of the billing platform: it records failed payments, maps error\n"
            " codes to retry classes and writes the exception report.\n"
        )
    (deb / "control").write_text("\n".join(stanzas))
    entries = []
    base, _, rev = version.partition("-")
    for k in range(changelog_entries):
        v = version if k == 0 else f"{base}~pre{changelog_entries - k}" + (f"-{rev}" if rev else "")
        entries.append(
            f"{name} ({v}) unstable; urgency=medium\n\n"
            f"  * Retry failed payments with backoff (step {changelog_entries - k}).\n"
            "  * Map error codes to retry classes.\n\n"
            f" -- Billing Team <billing@example.org>  Tue, {14 - k:02d} Nov 2023 22:13:20 +0000\n"
        )
    (deb / "changelog").write_text("\n".join(entries))
    if copyright_file:
        (deb / "copyright").write_text(
            "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n"
            f"Upstream-Name: {name}\nSource: https://example.org/{name}\n\n"
            "Files: *\nCopyright: 2023 Billing Team <billing@example.org>\nLicense: MIT\n\n"
            "License: MIT\n Permission is hereby granted, free of charge, to any person obtaining a copy of this\n"
            " software, to deal in the Software without restriction.\n"
        )
    rules = deb / "rules"
    rules.write_text(
        "#!/usr/bin/make -f\nexport DH_VERBOSE = 1\nexport DEB_BUILD_MAINT_OPTIONS = hardening=+all\n\n"
        "%:\n\tdh $@\n" + rules_extra
    )
    rules.chmod(0o755)


def _package(root: Path, name: str, version: str, units: list[str], **kw: object) -> Path:
    src = root / f"{name}-{version.partition('-')[0]}"
    c_kw = {k: kw.pop(k) for k in ("broken", "checks", "failing") if k in kw}
    _c_project(src, name, units, **c_kw)  # type: ignore[arg-type]
    _debian(src, name, version, **kw)  # type: ignore[arg-type]
    return src


def _run(root: Path, cmd: str, cwd: Path | None = None) -> bytes:
    """``cmd`` run in ``cwd`` (``root`` by default) with the packaging environment; its scrubbed output."""
    (root / "home").mkdir(exist_ok=True)
    return _settle(sh(f"export {_ENV.replace('/tmp/work-home', str(root / 'home'))}; {cmd}", cwd or root), root)


# ---------------------------------------------------------------- dpkg-buildpackage -b


@case(
    "u90_buildpackage_test_failure",
    "dpkg-buildpackage",
    clean=False,
    group=GROUP,
    decisive=[
        "not ok 57 - exception report groups 57 failures",
        "tests/test_retry_queue.c:67: check failed",
        "dh_auto_test: error: make -j1 check returned exit code 2",
        "dpkg-buildpackage: error: debian/rules binary subprocess returned exit status 2",
    ],
)
def _test_failure(root: Path) -> bytes:
    src = _package(root, "retry-queue", "1.4.0", _UNITS[:24], checks=220, failing=57)
    return _run(root, "dpkg-buildpackage -us -uc -b", src)


@case(
    "u90_buildpackage_clean_failed_payments",
    "dpkg-buildpackage",
    clean=True,
    group=GROUP,
    decisive=["# all 180 checks passed", "dpkg-deb: building package 'failed-payments' in"],
)
def _clean_build(root: Path) -> bytes:
    src = _package(root, "failed-payments", "2.3.1", _UNITS[:20], checks=180)
    return _run(root, "dpkg-buildpackage -us -uc -b", src)


@case(
    "u90_buildpackage_dh_install_missing",
    "dpkg-buildpackage",
    clean=False,
    group=GROUP,
    decisive=[
        'dh_install: warning: Cannot find (any matches for) "usr/share/failed-payments/error-codes.tsv"',
        "dh_install: error: missing files, aborting",
    ],
)
def _dh_install_missing(root: Path) -> bytes:
    binaries = [
        ("failed-payments", "any", "failed-payments-data (= ${source:Version})"),
        ("failed-payments-dev", "any", "failed-payments (= ${binary:Version})"),
        ("failed-payments-data", "all", ""),
    ]
    src = _package(root, "failed-payments", "2.3.1", _UNITS[:18], checks=140, binaries=binaries)
    (src / "debian/failed-payments.install").write_text("usr/bin/failed-payments\n")
    (src / "debian/failed-payments-dev.install").write_text("usr/include/failed-payments/app.h\n")
    (src / "debian/failed-payments-data.install").write_text(
        "usr/share/failed-payments/retry-classes.tsv\nusr/share/failed-payments/error-codes.tsv\n"
    )
    mk = (src / "Makefile").read_text()
    mk = mk.replace(
        "\ninstall: all\n",
        "\ninstall: all\n\tinstall -d $(DESTDIR)/usr/share/failed-payments\n"
        "\tprintf 'E001\\tretry\\nE002\\tfail\\n' > $(DESTDIR)/usr/share/failed-payments/retry-classes.tsv\n",
    )
    (src / "Makefile").write_text(mk)
    return _run(root, "dpkg-buildpackage -us -uc -b", src)


@case(
    "u90_buildpackage_compile_error",
    "dpkg-buildpackage",
    clean=False,
    group=GROUP,
    decisive=[
        "src/dunning.c:9:25: error: ‘retry_budjet’ undeclared (first use in this function)",
        "-k returned exit code 2",
    ],
)
def _compile_error(root: Path) -> bytes:
    units = sorted(_UNITS)
    src = _package(
        root,
        "exception-report",
        "0.9.2",
        units,
        broken="dunning",
        rules_extra="\noverride_dh_auto_build:\n\tdh_auto_build -- -k\n",
    )
    return _run(root, "dpkg-buildpackage -us -uc -b", src)


# ---------------------------------------------------------------- debuild with lintian -I --pedantic

_TOOLS = [
    "failed-payments-report", "error-codes-lookup", "retry-queue-drain", "exception-report-mail", "dead-letter-replay",
    "ledger-retry-sync", "refunds-retry", "webhooks-redeliver", "chargebacks-import", "dunning-notify",
    "settlement-check", "payouts-retry",
]  # fmt: skip


def _lintian_package(root: Path, *, faulty: bool) -> Path:
    """``exception-report`` with 12 shell tools, a C program whose messages have typos and 36 notes shipped in
    ``/usr/share``; ``faulty`` drops the copyright file and the manual pages and ships one tool in ``/opt``."""
    src = _package(root, "exception-report", "0.9.2", _UNITS[:10], checks=40, copyright_file=not faulty)
    main = (src / "src/main.c").read_text()
    typos = (
        '    puts("exception-report: the failed payment was recieved twice; the retry occured after the '
        'seperate dead letter run");\n'
    )
    (src / "src/main.c").write_text(main.replace("    printf(", typos + "    printf(", 1))
    install = []
    for k, tool in enumerate(_TOOLS):
        (src / "tools").mkdir(exist_ok=True)
        (src / f"tools/{tool}").write_text(
            f"#!/bin/sh\n# {tool}: part of the exception report.\nset -e\n"
            f'echo "{tool}: retrying failed payments (error codes E{k:03d}-E{k + 9:03d})"\n'
        )
        (src / f"tools/{tool}").chmod(0o755)
        install.append(f"tools/{tool} {'opt/exception-report/bin' if faulty and k == 5 else 'usr/bin'}")
        if not faulty:
            (src / f"man/{tool}.1").parent.mkdir(exist_ok=True)
            (src / f"man/{tool}.1").write_text(
                f'.TH {tool.upper()} 1 "November 2023" "{tool} 0.9.2" "Billing"\n.SH NAME\n'
                f"{tool} \\- retry failed payments for the exception report\n.SH SYNOPSIS\n.B {tool}\n"
                f".SH DESCRIPTION\n.B {tool}\nretries failed payments and writes their error codes.\n"
            )
    if not faulty:
        (src / "man/exception-report.1").write_text(
            '.TH EXCEPTION-REPORT 1 "November 2023" "exception-report 0.9.2" "Billing"\n.SH NAME\n'
            "exception-report \\- report failed payments and their error codes\n.SH SYNOPSIS\n"
            ".B exception-report\n.SH DESCRIPTION\n.B exception-report\nprints the exception report.\n"
        )
        (src / "debian/exception-report.manpages").write_text("man/*.1\n")
    for k, unit in enumerate(_UNITS[:36] + _UNITS[:6]):
        note = src / f"notes/{unit}-{k:02d}.md"
        note.parent.mkdir(exist_ok=True)
        note.write_text(f"# {unit}\n\nHow the {unit.replace('_', ' ')} service retries failed payments.\n")
    install.append("notes/*.md usr/share/exception-report/notes")
    install.append("bin/exception-report usr/bin")
    (src / "debian/exception-report.install").write_text("\n".join(install) + "\n")
    mk = (src / "Makefile").read_text()
    (src / "Makefile").write_text(
        mk.replace("\tinstall -D -m 0755 bin/exception-report $(DESTDIR)/usr/bin/exception-report\n", "")
    )
    return src


@case(
    "u90_debuild_lintian_errors",
    "debuild + lintian",
    clean=False,
    group=GROUP,
    decisive=[
        "E: exception-report: no-copyright-file",
        "E: exception-report: dir-or-file-in-opt",
    ],
)
def _debuild_lintian_errors(root: Path) -> bytes:
    src = _lintian_package(root, faulty=True)
    return _run(root, "debuild -us -uc --lintian-opts -I --pedantic", src)


@case(
    "u90_debuild_lintian_clean",
    "debuild + lintian",
    clean=True,
    group=GROUP,
    decisive=["Finished running lintian."],
)
def _debuild_lintian_clean(root: Path) -> bytes:
    src = _lintian_package(root, faulty=False)
    return _run(root, "debuild -us -uc --lintian-opts -I --pedantic", src)


# ---------------------------------------------------------------- dpkg-deb and dpkg -i of a suite of packages

_SUITE = [
    "billing-core", "error-codes", "retry-queue", "failed-payments", "exception-report", "dead-letter", "ledger-sync",
    "invoice-render", "refunds-worker", "webhooks-relay", "audit-trail", "tax-rates", "pricing-rules",
    "coupons-engine", "session-store", "shipping-labels", "catalog-index", "orders-api", "cart-store", "search-index",
    "export-jobs", "auth-gateway", "chargebacks", "settlement-batch",
]  # fmt: skip


def _suite(root: Path, *, needs_new_retry: bool) -> Path:
    """Source package ``billing-suite`` 1.4.0 of 24 ``Architecture: all`` packages of data files and scripts, built
    quietly; the folder of its ``.deb`` files. ``exception-report`` depends on ``retry-queue (>= 2.0)`` when
    ``needs_new_retry``, and ``dead-letter`` on ``exception-report``."""
    src = root / "billing-suite-1.4.0"
    binaries = []
    for i, pkg in enumerate(_SUITE):
        dep = "billing-core (>= 1.4.0)" if i else ""
        if pkg == "exception-report":
            dep = f"retry-queue (>= {'2.0' if needs_new_retry else '1.4.0'}), failed-payments"
        elif pkg == "dead-letter":
            dep = "exception-report (= ${source:Version})"
        binaries.append((pkg, "all", dep))
        files = {}
        for k, unit in enumerate(_UNITS[i % 7 : i % 7 + 8]):
            files[f"data/{pkg}/{unit}-rules.tsv"] = f"E{k:03d}\tretry\t{unit}\nE{k + 100:03d}\tfailed\t{unit}\n"
        files[f"data/{pkg}/{pkg}.sh"] = f"#!/bin/sh\necho '{pkg}: no failed payments left to retry'\n"
        for rel, text in files.items():
            (src / rel).parent.mkdir(parents=True, exist_ok=True)
            (src / rel).write_text(text)
        (src / f"debian/{pkg}.install").parent.mkdir(parents=True, exist_ok=True)
        (src / f"debian/{pkg}.install").write_text(f"data/{pkg}/* usr/share/{pkg}/\n")
    _debian(src, "billing-suite", "1.4.0", binaries=binaries)
    sh(f"{_ENV.replace('/tmp/work-home', str(root))} dpkg-buildpackage -us -uc -b > ../build.log 2>&1", src)
    debs = root / "debs"
    debs.mkdir()
    sh("mv *.deb debs/", root)
    return debs


def _dpkg_root(root: Path) -> str:
    admin = root / "sysroot/var/lib/dpkg"
    for sub in ("info", "updates", "triggers"):
        (admin / sub).mkdir(parents=True, exist_ok=True)
    for name in ("status", "available"):
        (admin / name).touch()
    return f"dpkg --root={root / 'sysroot'} --force-script-chrootless"


@case(
    "u90_dpkg_deb_info_contents",
    "dpkg-deb",
    clean=True,
    group=GROUP,
    decisive=[" Package: exception-report", "./usr/share/failed-payments/failed-payments.sh"],
)
def _dpkg_deb_listing(root: Path) -> bytes:
    _suite(root, needs_new_retry=False)
    return _run(root, 'for d in debs/*.deb; do echo "== $d"; dpkg-deb --info $d; dpkg-deb --contents $d; done')


@case(
    "u90_dpkg_i_dependency_problem",
    "dpkg -i",
    clean=False,
    group=GROUP,
    decisive=[
        "dpkg: dependency problems prevent configuration of exception-report:",
        "exception-report depends on retry-queue (>= 2.0); however:",
        "Version of retry-queue on system is 1.4.0.",
        "Errors were encountered while processing:",
    ],
)
def _dpkg_i_fail(root: Path) -> bytes:
    _suite(root, needs_new_retry=True)
    dpkg = _dpkg_root(root)
    return _run(root, f"{dpkg} -i debs/*.deb; {dpkg} -l")


@case(
    "u90_dpkg_i_clean",
    "dpkg -i",
    clean=True,
    group=GROUP,
    decisive=["Setting up exception-report (1.4.0) ...", "ii  exception-report"],
)
def _dpkg_i_clean(root: Path) -> bytes:
    _suite(root, needs_new_retry=False)
    dpkg = _dpkg_root(root)
    return _run(root, f"{dpkg} -i debs/*.deb && {dpkg} -l && {dpkg} -L failed-payments error-codes exception-report")


# ---------------------------------------------------------------- 3.0 (quilt) source packages

_PATCHES = [
    "fix-retry-of-failed-payments", "map-error-codes-to-retry-classes", "exception-report-utf8", "dead-letter-limit",
    "ledger-rounding", "refunds-currency", "webhooks-timeout", "audit-timestamps", "tax-rounding",
    "pricing-overflow", "coupons-expiry", "session-cookie-name", "shipping-weight-units", "catalog-sort-order",
]  # fmt: skip


def _quilt_package(root: Path, name: str, version: str, patches: int, *, checks: int = 0) -> Path:
    """``name`` as an upstream tarball with a ``3.0 (quilt)`` ``debian/`` of ``patches`` patches, each adding a
    comment to one unit (unapplied, as after a fresh checkout)."""
    upstream = version.partition("-")[0]
    units = _UNITS[:16]
    src = root / f"{name}-{upstream}"
    _c_project(src, name, units, checks=checks)
    sh(f"tar --sort=name --mtime=@1700000000 --owner=0 --group=0 -czf {name}_{upstream}.orig.tar.gz {src.name}", root)
    _debian(src, name, version, fmt="3.0 (quilt)")
    (src / "debian/patches").mkdir()
    series = []
    for k in range(patches):
        unit = units[k]
        patch = f"{k + 1:04d}-{_PATCHES[k]}.patch"
        old = (src / f"src/{unit}.c").read_text().splitlines(keepends=True)
        new = [*old, f"/* {_PATCHES[k].replace('-', ' ')} (Debian patch {k + 1}) */\n"]
        diff = "".join(difflib.unified_diff(old, new, f"a/src/{unit}.c", f"b/src/{unit}.c"))
        header = f"Description: {_PATCHES[k].replace('-', ' ')}\nAuthor: Billing Team <billing@example.org>\n---\n"
        (src / f"debian/patches/{patch}").write_text(header + diff)
        series.append(patch)
    (src / "debian/patches/series").write_text("\n".join(series) + "\n")
    return src


@case(
    "u90_dpkg_source_upstream_changes",
    "dpkg-buildpackage -S",
    clean=False,
    group=GROUP,
    decisive=[
        "dpkg-source: error: aborting due to unexpected upstream changes, see /tmp/retry-queue_1.4.0-1.diff.",
        "retry-queue-1.4.0/src/retry_queue.c",
        "dpkg-buildpackage: error: dpkg-source -b . subprocess returned exit status 2",
    ],
)
def _dpkg_source_fail(root: Path) -> bytes:
    names = ["audit-trail", "dead-letter", "retry-queue", "settlement-batch", "webhooks-relay"]
    for k, name in enumerate(names):
        src = _quilt_package(root, name, f"1.{k + 2}.0-1" if name != "retry-queue" else "1.4.0-1", 8 + k)
        if name == "retry-queue":
            unit = src / "src/retry_queue.c"
            unit.write_text(unit.read_text().replace("if (cents < 0)", "if (cents <= 0)"))
    return _run(root, "for d in *-[0-9]*/; do (cd $d && dpkg-buildpackage -us -uc -S); done")


@case(
    "u90_dpkg_buildpackage_source_binary_clean",
    "dpkg-buildpackage",
    clean=True,
    group=GROUP,
    decisive=[
        "dpkg-source: info: applying 0001-fix-retry-of-failed-payments.patch",
        "dpkg-buildpackage: info: full upload",
    ],
)
def _source_binary_clean(root: Path) -> bytes:
    src = _quilt_package(root, "failed-payments", "2.3.1-1", 14, checks=120)
    return _run(root, "dpkg-buildpackage -us -uc", src)
