"""Held-out outputs (group ``unseen-22``): a twenty-second batch, build and packaging tools.

Every tool builds, lints or resolves a project generated in the scenario's folder: ``lintian -I --pedantic``
over 20 binary packages full of missing-manual-page warnings where one Python script lacks its dependency,
``dpkg-buildpackage`` (debhelper, ``DH_VERBOSE=1``) of a source with 20 binary packages where one
``.install`` file names a file the build never installs, ``rpmlint`` with a project ``rpmlintrc`` over 20
RPMs where one script is not executable, ``scons --debug=explain`` over 60 libraries where one
``SConscript`` lists a missing source, ``autoreconf -fi -v`` (automake, libtool) over 20 libtool libraries
where one ``Makefile.am`` tests a conditional nobody defined, ``pkg-config --print-errors`` over 40
modules where one needs a newer version, ``pip-compile`` against a folder of 100 local wheels with a
conflict on ``shop-ledger`` and ``pnpm -r run build`` over 40 workspace packages where one reads a broken
JSON file. Clean runs whose text talks about errors: ``dpkg-buildpackage`` of ``shop-errors`` (C programs
named ``*_error_handler.c``), ``rpmbuild -ba`` over 20 specs named ``*-failed-jobs``, ``scons`` of libraries
named ``errors`` and ``failed_jobs``, ``python -m build`` of ``shop-errors`` and ``ccache -s -v -v`` (its
``Errors:``/``Compilation failed:`` counters at zero) after compiling ``error_handler.c`` files twice.
Labels were written with each scenario, before the engine saw the output. Needs Debian ``lintian``,
``debhelper``, ``rpm``, ``rpmlint``, ``scons``, ``automake``, ``libtool``, ``ccache`` and ``pkgconf``
(``pkg-config``), ``build``, ``pip-tools`` and ``wheel`` from PyPI and ``pnpm`` from the npm registry.
"""

from __future__ import annotations

import base64
import hashlib
import zipfile
from pathlib import Path

from _harness import PY, WORDS, case, py_tools, scrub, sh, substitute, write

GROUP = "unseen-22"


#: pip-tools and build, at fixed versions (installed with :func:`_harness.py_tools`).
_BUILD_TOOLS = (
    "pip-tools==7.4.1 pip==24.2 build==1.2.2 wheel==0.44.0 setuptools==75.1.0 click==8.1.7 "
    "packaging==24.1 pyproject_hooks==1.2.0"
)


# ---------------------------------------------------------------- Debian: lintian


def _deb(root: Path, name: str, scripts: dict[str, str], depends: str = "") -> None:
    """Build ``name``'s binary package (version 1.4.0-1, Architecture: all) with ``scripts`` in /usr/bin."""
    pkg = root / "pkgs" / name
    control = (
        f"Package: {name}\nVersion: 1.4.0-1\nArchitecture: all\nMaintainer: Shop Team <shop@example.com>\n"
        f"Section: utils\nPriority: optional\n{depends}Description: command line tools of the shop\n"
        " Command line tools that report the errors and failed jobs of the shop.\n"
    )
    write(pkg, {"DEBIAN/control": control})
    for script, text in scripts.items():
        path = pkg / "usr/bin" / script
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
        path.chmod(0o755)
    doc = pkg / "usr/share/doc" / name
    doc.mkdir(parents=True)
    (doc / "copyright").write_text(
        "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
        "Files: *\nCopyright: 2024 Shop Team\nLicense: MIT\n"
    )
    changelog = (
        f"{name} (1.4.0-1) unstable; urgency=medium\n\n  * Release.\n\n"
        " -- Shop Team <shop@example.com>  Mon, 03 Jun 2024 10:00:00 +0000\n"
    )
    (doc / "changelog.Debian").write_text(changelog)
    sh(f"gzip -9n {doc / 'changelog.Debian'}", root)
    sh(f"dpkg-deb --root-owner-group --build pkgs/{name} debs/{name}_1.4.0-1_all.deb", root)


@case(
    "lintian_pedantic_manpage_flood_python_dep",
    "lintian -I --pedantic (20 binary packages)",
    clean=False,
    group=GROUP,
    decisive=["E: shop-export: python3-script-but-no-python3-dep"],
)
def _lintian(root: Path) -> bytes:
    (root / "debs").mkdir()
    for area in WORDS:
        scripts = {
            f"shop-{area}-{verb}": f'#!/bin/sh\necho "{area} {verb}: 0 errors, 0 failed jobs"\n'
            for verb in ("report", "retry-failed", "list-errors", "purge")
        }
        if area == "export":
            scripts["shop-export-csv"] = (
                '#!/usr/bin/python3\nimport csv, sys\ncsv.writer(sys.stdout).writerow(["id"])\n'
            )
        _deb(root, f"shop-{area}", scripts, "Depends: sh\n" if area == "export" else "")
    return sh("lintian -I --pedantic --tag-display-limit 0 debs/*.deb", root)


# ---------------------------------------------------------------- Debian: dpkg-buildpackage, debhelper


def _debian_dir(root: Path, source: str, version: str, packages: str) -> None:
    write(
        root,
        {
            "debian/control": f"Source: {source}\nSection: utils\nPriority: optional\n"
            "Maintainer: Shop Team <shop@example.com>\nBuild-Depends: debhelper-compat (= 13)\n"
            f"Standards-Version: 4.6.2\nRules-Requires-Root: no\n\n{packages}",
            "debian/changelog": f"{source} ({version}) unstable; urgency=medium\n\n  * Release.\n\n"
            " -- Shop Team <shop@example.com>  Mon, 03 Jun 2024 10:00:00 +0000\n",
            "debian/copyright": "Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/\n\n"
            "Files: *\nCopyright: 2024 Shop Team\nLicense: MIT\n",
            "debian/source/format": "3.0 (native)\n",
            "debian/rules": "#!/usr/bin/make -f\n%:\n\tdh $@\n",
        },
    )
    (root / "debian/rules").chmod(0o755)


def _dpkg_buildpackage(src: Path) -> bytes:
    out = sh(
        "dpkg-buildpackage -us -uc -b",
        src,
        env={"DH_VERBOSE": "1", "DEB_BUILD_OPTIONS": "parallel=1", "SOURCE_DATE_EPOCH": "1717408800"},
    )
    return substitute(out, (r"/tmp/dh-xdg-rundir-[A-Za-z0-9_]+", "/tmp/dh-xdg-rundir-XXXXXXXX"))


@case(
    "dpkg_buildpackage_dh_install_missing_file",
    "dpkg-buildpackage -us -uc -b (debhelper, DH_VERBOSE=1)",
    clean=False,
    group=GROUP,
    decisive=[
        'dh_install: warning: Cannot find (any matches for) "usr/lib/shop/refunds/retry-policy.json"',
        "dh_install: error: missing files, aborting",
    ],
)
def _dh_install_missing(root: Path) -> bytes:
    src = root / "shop-services"
    packages = "".join(
        f"Package: shop-{area}\nArchitecture: all\nDepends: ${{misc:Depends}}\n"
        f"Description: {area} service of the shop\n The {area} service, its configuration and templates.\n\n"
        for area in WORDS
    )
    _debian_dir(src, "shop-services", "3.0.0", packages)
    install = ["install:"]
    for area in WORDS:
        install += [
            f"\tinstall -D -m644 conf/{area}.conf $(DESTDIR)/etc/shop/{area}.conf",
            f"\tinstall -D -m644 templates/{area}.tmpl $(DESTDIR)/usr/share/shop/{area}/{area}.tmpl",
            f"\tinstall -D -m644 templates/{area}-errors.tmpl $(DESTDIR)/usr/share/shop/{area}/{area}-errors.tmpl",
        ]
        write(
            src,
            {
                f"conf/{area}.conf": f"[{area}]\nretries = 3\nfailed_jobs_queue = {area}-failed\n",
                f"templates/{area}.tmpl": f"{area}: {{{{ total }}}}\n",
                f"templates/{area}-errors.tmpl": f"{area} errors: {{{{ errors }}}}\n",
                f"debian/shop-{area}.install": f"etc/shop/{area}.conf\nusr/share/shop/{area}/\n"
                + ("usr/lib/shop/refunds/retry-policy.json\n" if area == "refunds" else ""),
            },
        )
    (src / "Makefile").write_text("all:\n\t@echo nothing to build\n" + "\n".join(install) + "\n")
    return _dpkg_buildpackage(src)


_HANDLER_C = """
#include <stdio.h>

/* The {area} error handler: reports failed jobs and errors of the {area} queue. */
static int {area}_failed_jobs(int queued) {{ return queued % 7 == 0 ? 0 : 0; }}

int main(int argc, char **argv) {{
    int errors = {area}_failed_jobs(argc * 7);
    (void)argv;
    printf("{area} error handler: %d errors, %d failed jobs\\n", errors, errors);
    return errors;
}}
"""


@case(
    "dpkg_buildpackage_error_handlers_clean",
    "dpkg-buildpackage -us -uc -b (debhelper, DH_VERBOSE=1)",
    clean=True,
    group=GROUP,
    decisive=["dpkg-deb: building package 'shop-errors' in '../shop-errors_2.1.0_amd64.deb'."],
)
def _dpkg_clean(root: Path) -> bytes:
    src = root / "shop-errors"
    _debian_dir(
        src,
        "shop-errors",
        "2.1.0",
        "Package: shop-errors\nArchitecture: any\nDepends: ${shlibs:Depends}, ${misc:Depends}\n"
        "Description: error handlers of the shop\n Error handlers and failed-jobs reporters.\n",
    )
    progs = [f"{area}_error_handler" for area in WORDS]
    for area in WORDS:
        write(src, {f"src/{area}_error_handler.c": _HANDLER_C.format(area=area)})
    rules = ["all: " + " ".join(progs)]
    rules += [f"{p}: src/{p}.c\n\t$(CC) $(CFLAGS) $(LDFLAGS) -o $@ $<" for p in progs]
    rules.append("check: all\n" + "".join(f"\t./{p}\n" for p in progs))
    rules.append("install:\n" + "".join(f"\tinstall -D -m755 {p} $(DESTDIR)/usr/bin/{p}\n" for p in progs))
    (src / "Makefile").write_text("\n".join(rules) + "\n")
    return _dpkg_buildpackage(src)


# ---------------------------------------------------------------- RPM: rpmbuild, rpmlint


def _spec(name: str, area: str, *, broken: bool = False) -> str:
    scripts = [f"{area}-report-failed-jobs", f"{area}-list-errors", f"{area}-retry-failed", f"{area}-purge"]
    # the one script installed without its executable bit
    chmod = f"chmod 644 %{{buildroot}}/usr/bin/{area}-list-errors\n" if broken else ""
    build = "".join(f"printf '#!/bin/sh\\necho \"{s}: 0 errors, 0 failed jobs\"\\n' > {s}\n" for s in scripts)
    return f"""Name:           {name}
Version:        1.3.0
Release:        1
Summary:        Reporter of the {area} failed jobs and error queues
License:        MIT
BuildArch:      noarch

%description
Scripts that report the failed jobs, error queues and dead letters of
the {area} service.

%prep

%build
{build}
%install
mkdir -p %{{buildroot}}/usr/bin %{{buildroot}}/etc/shop
install -m755 {" ".join(scripts)} %{{buildroot}}/usr/bin/
{chmod}printf 'queue = {area}-failed\\nmax_errors = 0\\n' > %{{buildroot}}/etc/shop/{area}-failed-jobs.conf

%check
for s in {" ".join(scripts)}; do sh ./$s; done

%files
%config(noreplace) /etc/shop/{area}-failed-jobs.conf
/usr/bin/{area}-*

%changelog
* Mon Jun 03 2024 Shop Team <shop@example.com> - 1.3.0-1
- Release.
"""


def _rpmbuild_all(root: Path, *, broken: str = "") -> bytes:
    for area in WORDS:
        write(root, {f"SPECS/{area}-failed-jobs.spec": _spec(f"{area}-failed-jobs", area, broken=area == broken)})
    out = sh(
        f'st=0; for s in SPECS/*.spec; do echo "== rpmbuild -ba $s"; rpmbuild --define "_topdir {root}" '
        '--nodeps -ba "$s" || st=1; done; exit $st',
        root,
        env={"SOURCE_DATE_EPOCH": "1717408800"},
    )
    return substitute(scrub(out, root), (r"/var/tmp/rpm-tmp\.[A-Za-z0-9]+", "/var/tmp/rpm-tmp.XXXXXX"))


@case(
    "rpmbuild_failed_jobs_specs_clean",
    "rpmbuild -ba (loop over specs)",
    clean=True,
    group=GROUP,
    decisive=["Wrote: /tmp/work/RPMS/noarch/webhooks-failed-jobs-1.3.0-1.noarch.rpm"],
)
def _rpmbuild_clean(root: Path) -> bytes:
    return _rpmbuild_all(root)


@case(
    "rpmlint_rpmlintrc_warnings_non_executable_script",
    "rpmlint -r rpmlintrc",
    clean=False,
    group=GROUP,
    decisive=[
        "audit-failed-jobs.noarch: E: non-executable-script /usr/bin/audit-list-errors",
        "20 packages and 20 specfiles checked; 1 errors, 140 warnings",
    ],
)
def _rpmlint(root: Path) -> bytes:
    _rpmbuild_all(root, broken="audit")
    write(
        root,
        {
            "rpmlintrc": 'addFilter("no-signature")\naddFilter("no-packager-tag")\naddFilter("no-group-tag")\n'
            'addFilter("no-buildroot-tag")\n'
        },
    )
    out = sh("rpmlint -r rpmlintrc SPECS/*.spec RPMS/noarch/*.rpm", root)
    return substitute(out, (r"has taken [0-9.]+ s", "has taken N s"))


# ---------------------------------------------------------------- SCons


def _scons_project(root: Path, kinds: list[str], missing: tuple[str, str] | None) -> None:
    areas = ", ".join(repr(a) for a in WORDS)
    write(
        root,
        {
            "SConstruct": f"""
            env = Environment(CCFLAGS=['-O2', '-Wall'], CPPPATH=['#include'])
            for area in [{areas}]:
                SConscript(f'src/{{area}}/SConscript', exports='env', variant_dir=f'build/{{area}}', duplicate=0)
            """,
            "include/shop.h": "int shop_check(int code);\n",
        },
    )
    for area in WORDS:
        libs = []
        for kind in kinds:
            sources = [f"{kind}.c", f"{kind}_queue.c"]
            for s in sources:
                fn = s[:-2]
                body = f"int {area}_{fn}(int code) {{ return code == 0 ? 0 : -1; }}\n"
                write(root, {f"src/{area}/{s}": f'#include "shop.h"\n\n{body}'})
            if missing and area == missing[0] and kind == kinds[1]:
                sources.append(missing[1])
            libs.append(f"env.StaticLibrary('{area}_{kind}', {sources!r})")
        write(root, {f"src/{area}/SConscript": "Import('env')\n" + "\n".join(libs) + "\n"})


@case(
    "scons_explain_missing_source",
    "scons --debug=explain",
    clean=False,
    group=GROUP,
    decisive=[
        "Source `src/refunds/refund_retry.c' not found, needed by target `build/refunds/refund_retry.o'",
        "scons: building terminated because of errors.",
    ],
)
def _scons_fail(root: Path) -> bytes:
    _scons_project(root, ["ledger", "payments", "reports"], ("refunds", "refund_retry.c"))
    return sh("scons --debug=explain", root)


@case(
    "scons_errors_failed_jobs_libraries_clean",
    "scons --debug=explain",
    clean=True,
    group=GROUP,
    decisive=["scons: done building targets."],
)
def _scons_clean(root: Path) -> bytes:
    _scons_project(root, ["errors", "failed_jobs", "error_handler"], None)
    return sh("scons --debug=explain", root)


# ---------------------------------------------------------------- automake and libtool: autoreconf


@case(
    "autoreconf_libtool_undefined_conditional",
    "autoreconf -fi -v (automake, libtool)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refunds/Makefile.am:5: error: WITH_RETRY does not appear in AM_CONDITIONAL",
        "autoreconf: error: automake failed with exit status: 1",
    ],
)
def _autoreconf(root: Path) -> bytes:
    makefiles = " ".join(["Makefile"] + [f"src/{a}/Makefile" for a in WORDS])
    write(
        root,
        {
            "configure.ac": f"""
            AC_INIT([shop], [1.0], [shop@example.com])
            AC_CONFIG_MACRO_DIRS([m4])
            AM_INIT_AUTOMAKE([foreign -Wall])
            AM_PROG_AR
            LT_INIT
            AC_PROG_CC
            AC_CONFIG_FILES([{makefiles}])
            AC_OUTPUT
            """,
            "Makefile.am": "ACLOCAL_AMFLAGS = -I m4\nSUBDIRS = " + " ".join(f"src/{a}" for a in WORDS) + "\n",
        },
    )
    for area in WORDS:
        extra = f"if WITH_RETRY\nlib{area}_la_SOURCES += retry.c\nendif\n" if area == "refunds" else ""
        write(
            root,
            {
                f"src/{area}/Makefile.am": f"lib_LTLIBRARIES = lib{area}.la\n"
                f"lib{area}_la_SOURCES = {area}.c {area}_errors.c\n"
                f"lib{area}_la_LDFLAGS = -version-info 2:0:1\n"
                f"include_HEADERS = {area}.h\n"
                f"{extra}"
                "INCLUDES = -I$(top_srcdir)/include\n"
                "CFLAGS = -O2 -Wall\n",
                f"src/{area}/{area}.c": f"int {area}_total(int a) {{ return a; }}\n",
                f"src/{area}/{area}_errors.c": f"int {area}_errors(int a) {{ return a; }}\n",
                f"src/{area}/{area}.h": f"int {area}_total(int a);\n",
            },
        )
    return sh("autoreconf -fi -v", root)


# ---------------------------------------------------------------- pkg-config (pkgconf)


def _pc(name: str, version: str, requires: str = "") -> str:
    req = f"Requires: {requires}\n" if requires else ""
    return (
        f"prefix=/opt/shop\nlibdir=${{prefix}}/lib\nincludedir=${{prefix}}/include\n\n"
        f"Name: {name}\nDescription: The {name} library of the shop\nVersion: {version}\n{req}"
        f"Libs: -L${{libdir}} -l{name}\nCflags: -I${{includedir}}/{name}\n"
    )


@case(
    "pkg_config_print_errors_version_too_old",
    "pkg-config --print-errors (loop over modules)",
    clean=False,
    group=GROUP,
    decisive=[
        "Package dependency requirement 'shop-retry >= 2.0' could not be satisfied.",
        "Package 'shop-retry' has version '1.4.2', required version is '>= 2.0'",
    ],
)
def _pkg_config(root: Path) -> bytes:
    for area in WORDS:
        version = "1.4.2" if area == "retry" else "2.3.0"
        write(root, {f"pc/shop-{area}.pc": _pc(f"shop-{area}", version)})
        requires = f"shop-{area}, shop-errors, shop-audit"
        if area == "refunds":
            requires += ", shop-retry >= 2.0"
        write(root, {f"pc/shop-{area}-client.pc": _pc(f"shop-{area}-client", "2.3.0", requires)})
    out = sh(
        'st=0; for m in $(cd pc && ls *-client.pc | sed "s/\\.pc$//"); do echo "== $m"; '
        'pkg-config --print-errors --modversion "$m" || st=1; '
        'pkg-config --print-errors --print-requires "$m" || st=1; '
        'pkg-config --print-errors --cflags --libs "$m" || st=1; done; exit $st',
        root,
        env={"PKG_CONFIG_PATH": str(root / "pc"), "PKG_CONFIG_LIBDIR": str(root / "pc")},
    )
    return scrub(out, root)


# ---------------------------------------------------------------- Python: python -m build, pip-compile


@case(
    "python_build_shop_errors_clean",
    "python -m build --no-isolation (setuptools)",
    clean=True,
    group=GROUP,
    decisive=["Successfully built shop_errors-3.2.0.tar.gz and shop_errors-3.2.0-py3-none-any.whl"],
)
def _python_build(root: Path) -> bytes:
    env = py_tools(root, _BUILD_TOOLS)
    proj = root / "shop-errors"
    write(
        proj,
        {
            "pyproject.toml": """
            [build-system]
            requires = ["setuptools>=61"]
            build-backend = "setuptools.build_meta"

            [project]
            name = "shop-errors"
            version = "3.2.0"
            description = "Error handlers and failed-jobs reporters of the shop"
            readme = "README.md"
            requires-python = ">=3.9"
            license = {text = "MIT"}
            """,
            "README.md": "# shop-errors\n\nError handlers, failed-jobs reporters and retry queues.\n",
            "src/shop_errors/__init__.py": '"""Error handlers of the shop."""\n',
        },
    )
    for area in WORDS:
        for kind in ("errors", "failed_jobs", "error_handler", "exceptions", "retry_failed"):
            write(
                proj,
                {
                    f"src/shop_errors/{area}/{kind}.py": f'"""The {kind.replace("_", " ")} of {area}."""\n\n'
                    f"class {area.capitalize()}Error(Exception):\n    pass\n",
                    f"src/shop_errors/{area}/__init__.py": "",
                },
            )
    out = sh(f"{env} {PY} -m build --no-isolation .", proj)
    return substitute(scrub(out, root), (r"/dist/\.tmp-[a-z0-9_]+/", "/dist/.tmp-XXXXXXXX/"))


def _wheel(folder: Path, name: str, version: str, requires: list[str]) -> None:
    """A minimal pure-Python wheel of ``name`` ``version`` depending on ``requires`` (fixed timestamps)."""
    dist = name.replace("-", "_")
    info = f"{dist}-{version}.dist-info"
    files = {
        f"{dist}/__init__.py": f'VERSION = "{version}"\n',
        f"{info}/METADATA": f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n"
        + "".join(f"Requires-Dist: {r}\n" for r in requires),
        f"{info}/WHEEL": "Wheel-Version: 1.0\nGenerator: corpus\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
    }
    record = ""
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b"=").decode()
        record += f"{path},sha256={digest},{len(text.encode())}\n"
    files[f"{info}/RECORD"] = record + f"{info}/RECORD,,\n"
    with zipfile.ZipFile(folder / f"{dist}-{version}-py3-none-any.whl", "w") as whl:
        for path, text in files.items():
            whl.writestr(zipfile.ZipInfo(path, (2024, 6, 3, 10, 0, 0)), text)


@case(
    "pip_compile_local_wheels_ledger_conflict",
    "pip-compile -v --no-index --find-links",
    clean=False,
    group=GROUP,
    decisive=[
        "because these package versions have conflicting dependencies.",
        "shop-billing 1.0.0 depends on shop-ledger<2.0",
        "shop-refunds 2.0.0 depends on shop-ledger>=2.0",
    ],
)
def _pip_compile(root: Path) -> bytes:
    env = py_tools(root, _BUILD_TOOLS)
    wheels = root / "wheels"
    wheels.mkdir()
    for i, area in enumerate(WORDS):
        for version in ("1.0.0", "1.1.0", "2.0.0"):
            requires = [f"shop-{WORDS[(i + 1) % len(WORDS)]}>=1.0"] if i % 3 == 0 else []
            if area == "refunds" and version == "2.0.0":
                requires.append("shop-ledger>=2.0")
            if area == "billing":
                requires.append("shop-ledger<2.0")
            _wheel(wheels, f"shop-{area}", version, requires)
        for version in ("3.0.0", "3.1.0"):
            _wheel(wheels, f"shop-{area}-client", version, [f"shop-{area}>=1.0", "shop-errors>=1.1"])
    wanted = [f"shop-{a}-client" for a in WORDS]
    wanted += [f"shop-{a}" for a in WORDS if a not in ("refunds", "ledger")] + ["shop-refunds>=2.0"]
    write(root, {"requirements.in": "\n".join(wanted) + "\n"})
    out = sh(
        f"{env} pip-compile -v --no-index --find-links wheels --no-header --no-annotate "
        "-o requirements.txt requirements.in",
        root,
    )
    return scrub(out, root)


# ---------------------------------------------------------------- pnpm workspaces


_BUILD_JS = """
const fs = require("fs");
const path = require("path");
const pkg = require("./package.json");
const config = JSON.parse(fs.readFileSync(path.join(__dirname, "src", "config.json"), "utf8"));
fs.mkdirSync(path.join(__dirname, "dist"), { recursive: true });
for (const route of config.routes) {
  fs.writeFileSync(path.join(__dirname, "dist", route + ".js"), "module.exports = " + JSON.stringify(route) + ";\\n");
  console.log(pkg.name + ": bundled dist/" + route + ".js");
}
console.log(pkg.name + ": " + config.routes.length + " routes, 0 errors");
"""


@case(
    "pnpm_recursive_build_broken_json",
    "pnpm -r run build (workspace)",
    clean=False,
    group=GROUP,
    decisive=[
        "ERR_PNPM_RECURSIVE_RUN_FIRST_FAIL\u2009 @shop/refunds-api@1.0.0 build: `node build.js`",
        "SyntaxError: Unexpected token ']', ...\"y_failed\",]}",
    ],
    # after the first generation: pnpm writes a thin space (U+2009) after the error code, and Node 20's
    # JSON.parse message was guessed from a newer Node; both labels now copy the output
)
def _pnpm(root: Path) -> bytes:
    (root / "tools").mkdir()
    write(root / "tools", {"package.json": '{"name": "tools", "version": "1.0.0", "private": true}\n'})
    sh("npm install --no-audit --no-fund --silent pnpm@9.15.9", root / "tools")
    ws = root / "shop"
    write(
        ws,
        {
            "package.json": '{"name": "shop", "version": "1.0.0", "private": true}\n',
            "pnpm-workspace.yaml": 'packages:\n  - "packages/*"\n',
        },
    )
    for area in WORDS:
        for kind, deps in (("core", {}), ("api", {f"@shop/{area}-core": "workspace:*"})):
            name = f"{area}-{kind}"
            routes = [f"{area}_{r}" for r in ("list", "get", "create", "errors", "retry_failed")]
            config = '{"routes": [' + ", ".join(f'"{r}"' for r in routes) + "]}"
            if name == "refunds-api":
                config = '{"routes": [' + ", ".join(f'"{r}"' for r in routes) + ",]}"
            dep_json = ", ".join(f'"{k}": "{v}"' for k, v in deps.items())
            write(
                ws / "packages" / name,
                {
                    "package.json": f'{{"name": "@shop/{name}", "version": "1.0.0", '
                    f'"scripts": {{"build": "node build.js"}}, "dependencies": {{{dep_json}}}}}\n',
                    "build.js": _BUILD_JS,
                    "src/config.json": config + "\n",
                },
            )
    pnpm = root / "tools/node_modules/.bin/pnpm"
    sh(f"{pnpm} install --offline --reporter=silent", ws)
    out = sh(f"{pnpm} -r --workspace-concurrency=1 --reporter=append-only run build", ws)
    return scrub(out, root)


# ---------------------------------------------------------------- ccache


@case(
    "ccache_stats_verbose_error_handlers_clean",
    "ccache -s -v -v (after two builds)",
    clean=True,
    group=GROUP,
    decisive=[
        "Hits:                              120 /  240 (50.00%)",
        "Errors:                                0 /  240 ( 0.00%)",
    ],
    # after the first generation: the label guessed a ratio on the ``Compilation failed:`` counter (ccache
    # prints a bare count there); the labels now name the hit rate and the zero ``Errors:`` ratio
)
def _ccache(root: Path) -> bytes:
    kinds = ["error_handler", "failed_jobs", "errors", "retry_failed", "exceptions", "dead_letters"]
    for area in WORDS:
        for kind in kinds:
            write(
                root,
                {
                    f"src/{area}/{kind}.c": f"/* {area}: {kind.replace('_', ' ')} */\n"
                    f"int {area}_{kind}(int code) {{ return code == 0 ? 0 : -1; }}\n"
                },
            )
    out = sh(
        'ccache -z; for pass in cold warm; do echo "== build ($pass cache)"; rm -rf obj; '
        'for f in $(find src -name "*.c" | sort); do o=obj/${f#src/}; o=${o%.c}.o; mkdir -p $(dirname $o); '
        'echo "ccache gcc -O2 -Wall -c $f -o $o"; ccache gcc -O2 -Wall -c $f -o $o || exit 1; done; done; '
        "ccache -s -v -v",
        root,
        env={"CCACHE_DIR": str(root / "cache"), "CCACHE_CONFIGPATH": str(root / "ccache.conf")},
    )
    out = substitute(out, (r"^(Stats (updated|zeroed): +).*$", r"\1Mon Jun  3 10:00:00 2024"))
    return scrub(out, root)
