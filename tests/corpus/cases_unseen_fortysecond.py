"""Held-out outputs (group ``unseen-42``): a forty-second batch, localized toolchains. The same everyday tools an
agent runs, on a machine whose locale is not English (LANG, LC_ALL and LANGUAGE set to German, French, Spanish,
Japanese, Chinese, Russian or Portuguese), so that the tools' own translations print the decisive lines: an engine
that knows only English words has to find ``Fehler``, ``エラー``, ``CONFLICTO``, ``Отказано в доступе`` or
``跳转到下一个头``. Where a translation is partial (gcc's Japanese, git's push table, tar's last words) the output
mixes both languages, as it does on such machines.

Failing runs: ``make -k`` of 40 C files with ``-Wall -Wextra -Wconversion`` in German, where ``refunds_core.c``
assigns a struct to a long among some hundred warnings; ``make`` of a C++ service in Japanese, stopped by
``std::sort`` on a ``std::list`` in ``orders_queue.cpp``; ``make -k`` of a data pipeline (sort, awk, join) in French
with a ``sort -c`` disorder in the middle and a missing input; ``git push`` rejected by a local bare repository, then
``git pull`` with 180 auto-merged files and one conflict, and ``git status``, in Spanish; ``cp -rv``, ``chmod -Rv``,
``mv`` and ``rm -rv`` run as ``nobody`` (``runuser``) over a release tree on a tmpfs with three permission errors, in
Russian; twelve monthly ``tar -xvf`` restores in Chinese, the fifth archive with a damaged header (tar skips it and
goes on) and the ninth cut short; ``dpkg-deb`` builds and listings of 14 local packages and an ``apt-get -s install``
with unmet dependencies, in Portuguese; ``wget --spider -r`` of a local ``http.server`` site with one broken link, in
German; ``msgfmt --check --statistics`` over 192 catalogues with header warnings and one format mismatch, in Russian.
Clean runs named after errors and failures: ``make`` and a self-check of a ``failed-jobs-worker`` (modules
``errors_*``, ``failed_*``, ``retry_*``) in Chinese, with conversion warnings; a branch ``fix/retry-failed-webhooks``
of 60 commits pushed, logged with ``--stat`` and its status shown, in Spanish; a restore of ``exports.tar``
(``failed_payments``, ``errors``, ``retry_queue``) with ``--totals`` and ``sha256sum -c``, in Japanese; ``dpkg-deb -I``
and ``apt-get -s install`` of packages ``billing-errors``, ``billing-exceptions`` and ``retry-failed-jobs``, in
Portuguese; ``wget -m`` of a site with ``errors``, ``exceptions`` and ``failed-jobs`` sections, in French. Labels
were written with each scenario, before the engine saw the output. Needs Debian ``locales-all`` and ``gcc-12-locales``
with gcc, g++, make, git, coreutils, tar, dpkg-deb, apt-get, wget and gettext's msgfmt (their translations come with
them), ``runuser`` and root for a tmpfs mount.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import tarfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from _harness import PY, WORDS, case, scrub, sh, substitute, write

GROUP = "unseen-42"


def _loc(lang: str) -> dict[str, str]:
    """The environment of a machine set up in ``lang`` (``de_DE``, ``ja_JP``, ...)."""
    return {"LANG": f"{lang}.UTF-8", "LC_ALL": f"{lang}.UTF-8", "LANGUAGE": lang}


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, ports, times and speeds."""
    return substitute(
        scrub(out, root),
        (r"127\.0\.0\.1:\d+", "127.0.0.1:8000"),
        (r"--\d{4}-\d\d-\d\d \d\d:\d\d:\d\d--", "--2026-01-01 00:00:00--"),
        (r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d ", "2026-01-01 00:00:00 "),
        (r"\(\d+([.,]\d+)? ?[KMG]?i?B/s\)", "(10,0 MB/s)"),
        (r"\d+([.,]\d+)?s \(\d+([.,]\d+)? ?[KMG]?i?B/s\)", "0,001s (10,0 MB/s)"),
        (r"(Verstrichene Zeit|Temps total effectif)([^:]*:\W*)[\d,.]+s", r"\1\g<2>0,01s"),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d", "2026-01-01 00:00:00"),
        (r"100% +\d+([.,]\d+)?[KMG]=[\d.,]+m?s", "100% 10,0M=0s"),
        (r", [\d.]+ ?[KMG]?i?B/s\)", ", 1.0MiB/s)"),
    )


# ---------------------------------------------------------------- gcc and make in German


_C_MODULE = """\
#include "billing.h"

/* @NAME@: the @AREA@ part of the billing engine. */
static const char *const @ID@_labels[] = {"pending", "settled", "retry", "failed"};

long @ID@_weight(long cents, int attempts, const struct ctx *ctx)
{
    int scaled = cents * 3 / 2;
    unsigned char bucket = attempts % 7;
    return scaled + bucket + (long)sizeof @ID@_labels;
}

const char *@ID@_label(int state, int flags)
{
    return @ID@_labels[state & 3];
}

double @ID@_ratio(long done, long total)
{
    float share = (double)done / (double)(total ? total : 1);
    return share;
}
"""

_C_BROKEN = """
long @ID@_total(const struct refund *items, int n)
{
    long total = 0;
    for (int i = 0; i < n; i++) {
        total = items[i];
    }
    return total;
}
"""


def _c_project(root: Path, names: list[str], broken: str = "", cflags: str = "") -> None:
    write(
        root,
        {
            "include/billing.h": """
                #ifndef BILLING_H
                #define BILLING_H
                struct ctx { int tenant; long budget; };
                struct refund { long cents; int reason; };
                #endif
            """,
        },
    )
    files: dict[str, str] = {}
    for name in names:
        src = _C_MODULE + (_C_BROKEN if name == broken else "")
        area = name.split("_")[0]
        files[f"src/{name}.c"] = src.replace("@ID@", name).replace("@NAME@", name).replace("@AREA@", area)
    objs = " ".join(f"build/{n}.o" for n in names)
    files["Makefile"] = (
        "CC = gcc\n"
        f"CFLAGS = -std=c11 -O2 -g -Wall -Wextra -Wconversion -Iinclude {cflags}\n"
        f"OBJS = {objs}\n\n"
        "all: build/billing-engine\n\n"
        "build/billing-engine: $(OBJS)\n\t$(CC) -o $@ $^ -lm\n\n"
        "build/%.o: src/%.c include/billing.h | build\n\t$(CC) $(CFLAGS) -c $< -o $@\n\n"
        "build:\n\tmkdir -p build\n"
    )
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)


@case(
    "u42_gcc_make_k_de",
    "make + gcc (de_DE)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/refunds_core.c:28:17: Fehler: unverträgliche Typen bei Zuweisung an Typ »long int«",
        "make: *** [Makefile:11: build/refunds_core.o] Fehler 1",
        "make: Das Ziel „all“ wurde wegen Fehlern nicht aktualisiert.",
    ],
)
def _gcc_make_de(root: Path) -> bytes:
    names = [f"{w}_{part}" for w in sorted(WORDS) for part in ("core", "store")]
    _c_project(root, names, broken="refunds_core")
    return _settle(sh("make -k", root, env=_loc("de_DE")), root)


@case(
    "u42_gcc_make_clean_zh",
    "make + gcc (zh_CN)",
    clean=True,
    group=GROUP,
    decisive=["gcc -o build/billing-engine", "self-check: 24 modules ok"],
)
def _gcc_make_zh(root: Path) -> bytes:
    names = [
        f"{w}_{part}"
        for w in ("errors", "exceptions", "failed", "retry", "audit", "webhooks")
        for part in ("jobs", "queue", "report", "store")
    ]
    _c_project(root, names, cflags="-Wno-unused-parameter")
    calls = "".join(f"    n += {n}_weight(1999, 3, &c) > 0;\n" for n in names)
    decls = "".join(f"long {n}_weight(long cents, int attempts, const struct ctx *ctx);\n" for n in names)
    write(
        root,
        {
            "src/main.c": '#include <stdio.h>\n#include "billing.h"\n'
            + decls
            + "int main(void)\n{\n    struct ctx c = {1, 100};\n    int n = 0;\n"
            + calls
            + '    printf("self-check: %d modules ok\\n", n);\n    return n == 24 ? 0 : 1;\n}\n',
        },
    )
    mk = (root / "Makefile").read_text().replace("OBJS = ", "OBJS = build/main.o ")
    mk += "\ncheck: build/billing-engine\n\t./build/billing-engine\n"
    (root / "Makefile").write_text(mk)
    env = _loc("zh_CN")
    (root / "failed-jobs-worker").mkdir()
    for p in ("src", "include", "Makefile"):
        shutil.move(str(root / p), str(root / "failed-jobs-worker" / p))
    return _settle(sh("make -C failed-jobs-worker all check", root, env=env), root)


# ---------------------------------------------------------------- g++ in Japanese


_CPP = """\
#include <algorithm>
#include <list>
#include <map>
#include <string>
#include <vector>

namespace orders {

struct Order {
    std::string id;
    long cents;
    int attempts;
    bool operator<(const Order &other) const { return cents < other.cents; }
};

// @NAME@: the @AREA@ stage of the orders service.
std::map<std::string, long> @ID@_totals(const std::vector<Order> &orders)
{
    std::map<std::string, long> totals;
    for (int i = 0; i < orders.size(); i++) {
        totals[orders[i].id] += orders[i].cents;
    }
    return totals;
}

int @ID@_attempts(const std::vector<Order> &orders, int limit)
{
    int sum = 0;
    for (const auto &o : orders) {
        sum += o.attempts;
    }
    return sum;
}

}  // namespace orders
"""

_CPP_BROKEN = """
namespace orders {

std::list<Order> pending_by_amount(std::list<Order> pending)
{
    std::sort(pending.begin(), pending.end());
    return pending;
}

}  // namespace orders
"""


@case(
    "u42_gxx_make_ja",
    "make + g++ (ja_JP)",
    clean=False,
    group=GROUP,
    decisive=[
        "src/orders_queue.cpp:41:14:   required from here",
        "エラー: no match for ‘operator-’",
        "make: *** [Makefile:9: build/orders_queue.o] エラー 1",
    ],
)
def _gxx_make_ja(root: Path) -> bytes:
    names = sorted(
        f"{w}_{part}"
        for w in ("audit", "billing", "cart", "catalog", "coupons", "orders", "shipping", "tax")
        for part in ("api", "queue")
    )
    files: dict[str, str] = {}
    for name in names:
        src = _CPP + (_CPP_BROKEN if name == "orders_queue" else "")
        files[f"src/{name}.cpp"] = (
            src.replace("@ID@", name).replace("@NAME@", name).replace("@AREA@", name.split("_")[0])
        )
    objs = " ".join(f"build/{n}.o" for n in names)
    files["Makefile"] = (
        "CXX = g++\nCXXFLAGS = -std=c++17 -O2 -Wall -Wextra\n"
        f"OBJS = {objs}\n\n"
        "build/orders-service: $(OBJS)\n\t$(CXX) -o $@ $^\n\n"
        "build/%.o: src/%.cpp | build\n\t$(CXX) $(CXXFLAGS) -c $< -o $@\n\n"
        "build:\n\tmkdir -p build\n"
    )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return _settle(sh("make", root, env=_loc("ja_JP")), root)


# ---------------------------------------------------------------- make -k of a data pipeline in French


@case(
    "u42_make_k_pipeline_fr",
    "make (fr_FR)",
    clean=False,
    group=GROUP,
    decisive=[
        "sort\u00a0: data/refunds.csv:58\u00a0: désordre\u00a0: 1057,cust-041,8052,paid",
        "make: *** [Makefile:10 : out/refunds.tsv] Erreur 1",
        "Aucune règle pour fabriquer la cible «\u00a0out/coupons.report\u00a0»",
        "n'a pas été refabriquée à cause d'erreurs.",
    ],
)
def _make_pipeline_fr(root: Path) -> bytes:
    areas = sorted(WORDS)
    files: dict[str, str] = {}
    for k, area in enumerate(areas):
        if area == "coupons":
            continue
        rows = ["id,customer,cents,status"]
        for i in range(1, 121):
            ident = 1000 + i
            if area == "refunds" and i == 56:
                ident = 1099
            status = ["paid", "open", "void"][i % 3]
            rows.append(f"{ident},cust-{(i * 7 + k) % 53:03d},{(i * 137 + k * 11) % 9000 + 100},{status}")
        files[f"data/{area}.csv"] = "\n".join(rows) + "\n"
    files["data/customers.tsv"] = "".join(f"cust-{i:03d}\tCustomer {i}\n" for i in range(53))
    names = " ".join(areas)
    files["Makefile"] = (
        f"AREAS = {names}\n"
        "REPORTS = $(AREAS:%=out/%.report)\n\n"
        "all: $(REPORTS)\n\n"
        "out:\n\tmkdir -p out\n\n"
        "out/%.tsv: data/%.csv | out\n"
        "\tsort -c -t, -k1,1n $<\n"
        '\ttail -n +2 $< | awk -F, \'$$4 != "void" {print $$2 "\\t" $$3}\' | sort -k1,1 > $@\n'
        "\twc -l $@\n\n"
        "out/%.report: out/%.tsv data/customers.tsv\n"
        "\tjoin -t \"$$(printf '\\t')\" $< data/customers.tsv"
        " | sort -t \"$$(printf '\\t')\" -k2,2nr | head -n 25 > $@\n"
        "\tcat $@\n"
    )
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return _settle(sh("make -k", root, env=_loc("fr_FR")), root)


# ---------------------------------------------------------------- git in Spanish


def _git_env(root: Path) -> dict[str, str]:
    return {
        **_loc("es_ES"),
        "HOME": str(root / "home"),
        "GIT_CONFIG_NOSYSTEM": "1",
        "GIT_AUTHOR_DATE": "2026-01-01T10:00:00+0100",
        "GIT_COMMITTER_DATE": "2026-01-01T10:00:00+0100",
    }


def _git_setup(root: Path) -> dict[str, str]:
    env = _git_env(root)
    (root / "home").mkdir()
    sh(
        "git config --global user.name 'Ana Billing' && git config --global user.email ana@example.invalid"
        " && git config --global init.defaultBranch main && git config --global pull.rebase false"
        " && git config --global advice.detachedHead false",
        root,
        env=env,
    )
    return env


def _py_module(area: str, part: str, variant: str = "") -> str:
    lines = [f'"""The {part} step of {area}."""\n', "", "import logging", "", "log = logging.getLogger(__name__)", ""]
    for k in range(12):
        lines += [f"def {part}_{k}(amount, attempts=0):", f'    """{area}: {part} number {k}."""']
        body = f"    return round(amount * {k + 1} / 100, 2)"
        if variant.endswith("-mid") and k == 8:
            body = f"    return round(amount * {k + 1} / 100, 2)  # {variant}"
        if variant == "retry-a" and k == 6:
            body = "    return min(attempts * 2, 30)"
        if variant == "retry-b" and k == 6:
            body = "    return min(2 ** attempts, 60)"
        if variant.endswith("-top") and k == 0:
            body = f"    return round(amount, 2)  # {variant}"
        lines += [body, ""]
    return "\n".join(lines)


@case(
    "u42_git_pull_conflict_es",
    "git (es_ES)",
    clean=False,
    group=GROUP,
    decisive=[
        "error: falló el empuje de algunas referencias a '/tmp/work/remote.git'",
        "CONFLICTO (contenido): Conflicto de fusión en src/billing/retry_policy.py",
        "Fusión automática falló; arregle los conflictos y luego realice un commit con el resultado.",
    ],
)
def _git_conflict_es(root: Path) -> bytes:
    env = _git_setup(root)
    parts = ["admin", "api", "forms", "models", "policy", "serializers", "signals", "tasks", "urls", "views"]
    areas = sorted(WORDS)
    files = {f"src/{a}/{p}.py": _py_module(a, p) for a in areas for p in parts}
    files["src/billing/retry_policy.py"] = _py_module("billing", "retry")
    sh("git init -q --bare remote.git && git clone -q remote.git alice", root, env=env)
    write(root / "alice", {})
    for rel, text in files.items():
        (root / "alice" / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / "alice" / rel).write_text(text)
    sh("git add -A && git commit -q -m 'Initial billing services' && git push -q origin main", root / "alice", env=env)
    sh("git clone -q remote.git bruno", root, env=env)
    # alice: the top of 120 modules and the retry policy; bruno: the middle of 120 modules and the retry policy
    for rel in list(files)[:180]:
        a, p = rel.split("/")[1], rel.split("/")[2][:-3]
        (root / "alice" / rel).write_text(_py_module(a, p, "alice-top"))
        (root / "bruno" / rel).write_text(_py_module(a, p, "bruno-mid"))
    (root / "alice/src/billing/retry_policy.py").write_text(_py_module("billing", "retry", "retry-a"))
    (root / "bruno/src/billing/retry_policy.py").write_text(_py_module("billing", "retry", "retry-b"))
    sh("git commit -q -am 'Round amounts at the top of each step'", root / "alice", env=env)
    sh("git push -q origin main", root / "alice", env=env)
    sh("git commit -q -am 'Document the middle steps; exponential retry backoff'", root / "bruno", env=env)
    out = sh("git push origin main; git pull --stat origin main; git status", root / "bruno", env=env)
    return _settle(out, root)


@case(
    "u42_git_branch_push_clean_es",
    "git (es_ES)",
    clean=True,
    group=GROUP,
    decisive=[
        "rama 'fix/retry-failed-webhooks' configurada para rastrear 'origin/fix/retry-failed-webhooks'.",
        "Tu rama está actualizada con 'origin/fix/retry-failed-webhooks'.",
    ],
)
def _git_clean_es(root: Path) -> bytes:
    env = _git_setup(root)
    sh("git init -q --bare remote.git && git clone -q remote.git app", root, env=env)
    app = root / "app"
    for rel in ("errors/__init__.py", "webhooks/__init__.py"):
        (app / rel).parent.mkdir(parents=True, exist_ok=True)
        (app / rel).write_text("")
    (app / "README.md").write_text("# webhooks\n")
    sh("git add -A && git commit -q -m 'Skeleton' && git push -q origin main", app, env=env)
    steps = []
    topics = [
        ("errors", "failed_delivery"), ("errors", "retry_exhausted"), ("webhooks", "retry_failed"),
        ("webhooks", "exceptions"), ("errors", "timeout_error"), ("webhooks", "dead_letters"),
    ]  # fmt: skip
    for k in range(60):
        pkg, mod = topics[k % len(topics)]
        steps.append(
            (f"{pkg}/{mod}_{k // len(topics)}.py", f"Handle {mod.replace('_', ' ')} case {k}: retry failed webhooks")
        )
    sh("git switch -q -c fix/retry-failed-webhooks", app, env=env)
    for k, (rel, msg) in enumerate(steps):
        (app / rel).write_text(_py_module(rel.split("/")[0], rel.split("/")[1][:-3]) + f"\n# case {k}\n")
        (app / "errors/__init__.py").write_text((app / "errors/__init__.py").read_text() + f"RETRY_FAILED_{k} = {k}\n")
        sh(f"git add -A && git commit -q -m '{msg}'", app, env=env)
    out = sh("git push -u origin fix/retry-failed-webhooks && git log --stat main..HEAD && git status", app, env=env)
    return _settle(out, root)


# ---------------------------------------------------------------- coreutils as nobody in Russian


@case(
    "u42_coreutils_nobody_ru",
    "cp/chmod/mv/rm (ru_RU)",
    clean=False,
    group=GROUP,
    decisive=[
        "cp: невозможно открыть 'releases/v41/config/secrets.env' для чтения: Отказано в доступе",
        "mv: невозможно переместить 'staging/v40' в 'archive/v40': Отказано в доступе",
        "rm: невозможно удалить 'staging/old/cache/ledger.idx': Отказано в доступе",
    ],
)
def _coreutils_ru(root: Path) -> bytes:
    root.chmod(0o755)
    srv = root / "srv"  # a tmpfs: its directories list in the order they were filled, the same on every run
    srv.mkdir()
    sh(f"mount -t tmpfs -o size=64m,mode=755 corpus-u42 {srv}", root)
    try:
        return _coreutils_ru_in(srv)
    finally:
        sh(f"umount {srv}", root)


def _coreutils_ru_in(root: Path) -> bytes:
    rel = root / "releases/v41"
    for area in sorted(WORDS):
        for sub in ("bin", "lib", "templates"):
            d = rel / area / sub
            d.mkdir(parents=True)
            for i in range(8):
                (d / f"{area}_{sub}_{i:02d}.dat").write_text(f"{area} {sub} {i}\n" * 4)
    (rel / "config").mkdir()
    for name in ("app.toml", "logging.toml", "secrets.env", "features.toml"):
        (rel / "config" / name).write_text(f"# {name}\n")
    (rel / "config/secrets.env").chmod(0o600)
    staging = root / "staging"
    for sub in ("v40/lib", "old/cache", "old/logs"):
        (staging / sub).mkdir(parents=True)
    for i in range(30):
        (staging / "v40/lib" / f"part_{i:02d}.so").write_text("x")
        (staging / "old/logs" / f"retry_{i:02d}.log").write_text("x")
    (staging / "old/cache/ledger.idx").write_text("x")
    (root / "archive").mkdir()
    sh(f"chown -R nobody:nogroup {staging}", root)
    sh(f"chown root:root {staging / 'old/cache'}", root)
    script = (
        "cp -rv releases/v41 staging/v41; chmod -Rv g+w staging/v41; mv -v staging/v40 archive/v40; rm -rv staging/old"
    )
    env = _loc("ru_RU")
    prefix = " ".join(f"{k}={v}" for k, v in env.items())
    return _settle(sh(f"runuser -u nobody -- env {prefix} sh -c '{script}'", root, env=env), root)


# ---------------------------------------------------------------- tar in Chinese and in Japanese


@case(
    "u42_tar_damaged_truncated_zh",
    "tar (zh_CN)",
    clean=False,
    group=GROUP,
    decisive=[
        "tar: 跳转到下一个头",
        "tar: 由于前次错误，将以上次的错误状态退出",
        "tar: Error is not recoverable: exiting now",
    ],
)
def _tar_zh(root: Path) -> bytes:
    (root / "backups").mkdir()
    for month in range(1, 13):
        top = root / "src" / f"ledger-2025-{month:02d}"
        for area in ("entries", "invoices", "refunds", "tax"):
            (top / area).mkdir(parents=True)
            for day in range(1, 29):
                (top / area / f"{area}-{month:02d}-{day:02d}.csv").write_text(f"{area},{month},{day}\n" * (40 + day))
        archive = root / f"backups/ledger-2025-{month:02d}.tar"
        sh(
            f"tar --sort=name --mtime=2025-{month:02d}-28 --owner=0 --group=0"
            f" -C src -cf {archive} ledger-2025-{month:02d}",
            root,
        )
        with tarfile.open(archive) as t:
            members = {m.name: m for m in t.getmembers()}
        if month == 5:  # a damaged header: tar skips to the next one and goes on
            with open(archive, "r+b") as f:
                f.seek(members["ledger-2025-05/invoices/invoices-05-14.csv"].offset + 148)
                f.write(b"0000000")
        if month == 9:  # cut short in the middle of a file
            with open(archive, "r+b") as f:
                f.truncate(members["ledger-2025-09/refunds/refunds-09-11.csv"].offset_data + 600)
    (root / "restore").mkdir()
    loop = 'for f in backups/*.tar; do tar -xvf "$f" -C restore; done'
    return _settle(sh(loop, root, env=_loc("zh_CN")), root)


@case(
    "u42_tar_sha256_restore_clean_ja",
    "tar + sha256sum (ja_JP)",
    clean=True,
    group=GROUP,
    decisive=["総読み込みバイト数: "],
)
def _tar_ja(root: Path) -> bytes:
    src = root / "src"
    for area in ("errors", "failed_payments", "retry_queue", "exceptions", "refunds", "invoice"):
        for month in range(1, 13):
            d = src / "exports" / area / f"2025-{month:02d}"
            d.mkdir(parents=True)
            for k in range(6):
                (d / f"{area}_{k}.csv").write_text(f"{area},{month},{k}\n" * (k + month))
    sh("cd src && find exports -type f | sort | xargs sha256sum > ../SHA256SUMS", root)
    sh("tar --sort=name --mtime=2025-12-31 --owner=0 --group=0 -C src -cf exports.tar exports", root)
    (root / "restore").mkdir()
    out = sh(
        "tar --totals -xvf exports.tar -C restore && cd restore && sha256sum -c ../SHA256SUMS", root, env=_loc("ja_JP")
    )
    return _settle(out, root)


# ---------------------------------------------------------------- dpkg-deb and apt-get -s in Portuguese


def _deb(root: Path, name: str, version: str, depends: str, files: int) -> None:
    d = root / "pkgs" / name
    (d / "DEBIAN").mkdir(parents=True)
    area = name.split("-")[1]
    (d / "DEBIAN/control").write_text(
        f"Package: {name}\nVersion: {version}\nSection: misc\nPriority: optional\nArchitecture: all\n"
        f"Maintainer: Billing Team <billing@example.invalid>\nDepends: {depends}\n"
        f"Description: {area} service of the billing platform\n"
        f" Handles {area} records: retries failed jobs and reports errors to the audit log.\n"
    )
    lib = d / "usr/lib/python3/dist-packages" / name.replace("-", "_")
    lib.mkdir(parents=True)
    for k in range(files):
        (lib / f"{area}_{k:02d}.py").write_text(_py_module(area, f"step{k}"))
    doc = d / "usr/share/doc" / name
    doc.mkdir(parents=True)
    (doc / "README").write_text(f"{name}\n")
    for p in d.rglob("*"):
        os.utime(p, (1767225600, 1767225600))


def _debs(root: Path, names: list[str], depends: dict[str, str], files: int) -> None:
    for k, name in enumerate(names):
        _deb(root, name, f"1.{k}.0", depends.get(name, "python3"), files)
    (root / "debs").mkdir()


_APT_ENV = {**_loc("pt_BR"), "SOURCE_DATE_EPOCH": "1767225600"}


@case(
    "u42_apt_unmet_deps_pt",
    "dpkg-deb + apt-get (pt_BR)",
    clean=False,
    group=GROUP,
    decisive=[
        "billing-refunds : Depende: libretry-client1 (>= 2.1) mas não é instalável",
        "billing-ledger : Depende: python3 (>= 9.0) mas",
        "E: Impossível corrigir problemas, você manteve (hold) pacotes quebrados.",
    ],
)
def _apt_fail_pt(root: Path) -> bytes:
    names = [f"billing-{w}" for w in sorted(w for w in WORDS if w != "billing")[:14]]
    _debs(
        root, names, {"billing-refunds": "python3, libretry-client1 (>= 2.1)", "billing-ledger": "python3 (>= 9.0)"}, 24
    )
    script = (
        "for p in pkgs/*; do dpkg-deb --build --root-owner-group $p debs; done; "
        "for d in debs/*.deb; do dpkg-deb -c $d; done; "
        "apt-get -s install ./debs/*.deb"
    )
    return _settle(sh(script, root, env=_APT_ENV), root)


@case(
    "u42_apt_install_clean_pt",
    "dpkg-deb + apt-get (pt_BR)",
    clean=True,
    group=GROUP,
    decisive=["Inst retry-failed-jobs (1.", "16 pacotes novos instalados"],
)
def _apt_clean_pt(root: Path) -> bytes:
    names = [f"billing-{w}" for w in sorted(w for w in WORDS if w != "billing")[:15]] + ["retry-failed-jobs"]
    _debs(root, names, {}, 3)
    script = (
        "for p in pkgs/*; do dpkg-deb --build --root-owner-group $p debs; done; "
        "for d in debs/*.deb; do dpkg-deb -I $d; done; "
        "apt-get -s -o APT::Get::Show-Versions=true install ./debs/*.deb"
    )
    out = sh(script, root, env=_APT_ENV)
    return _settle(substitute(out, (r"e \d+ não atualizados", "e 0 não atualizados")), root)


# ---------------------------------------------------------------- wget against a local server


@contextmanager
def _http_server(site: Path) -> Iterator[int]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [PY, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(site)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        for _ in range(100):
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                time.sleep(0.1)
        yield port
    finally:
        proc.terminate()
        proc.wait()


def _site(root: Path, sections: list[str], pages: int, broken: str = "") -> Path:
    site = root / "site"
    links = []
    for sec in sections:
        for k in range(pages):
            links.append(f"{sec}/{sec}-{k:02d}.html")
    (site).mkdir()
    (site / "index.html").write_text(
        "<html><body><h1>Docs</h1>\n"
        + "".join(f'<a href="{s}/index.html">{s}</a>\n' for s in sections)
        + "</body></html>\n"
    )
    for sec in sections:
        (site / sec).mkdir()
        body = "".join(f'<a href="{sec}-{k:02d}.html">{sec} {k}</a>\n' for k in range(pages))
        (site / sec / "index.html").write_text(f"<html><body><h1>{sec}</h1>\n{body}</body></html>\n")
        for k in range(pages):
            extra = ""
            if broken and f"{sec}/{sec}-{k:02d}.html" == broken:
                extra = '<a href="policy-v2.html">the new policy</a>\n'
            text = f"<html><body><h1>{sec} {k}</h1>\n<p>{'Lorem ipsum. ' * 40}</p>\n{extra}"
            text += '<a href="index.html">up</a></body></html>\n'
            (site / sec / f"{sec}-{k:02d}.html").write_text(text)
    return site


@case(
    "u42_wget_spider_404_de",
    "wget (de_DE)",
    clean=False,
    group=GROUP,
    decisive=[
        "  http://127.0.0.1:8000/refunds/policy-v2.html",
        "Die Datei auf dem Server existiert nicht -- Verweis ist nicht gültig!",
        "1 ungültiger Verweis gefunden.",
    ],
)
def _wget_de(root: Path) -> bytes:
    site = _site(root, ["billing", "orders", "refunds", "shipping", "tax"], 16, broken="refunds/refunds-07.html")
    with _http_server(site) as port:
        out = sh(
            f"wget --no-http-keep-alive --spider -r -np -l inf http://127.0.0.1:{port}/index.html",
            root,
            env=_loc("de_DE"),
        )
    return _settle(out, root)


@case(
    "u42_wget_mirror_clean_fr",
    "wget (fr_FR)",
    clean=True,
    group=GROUP,
    decisive=["Téléchargés\u00a0: 86\u00a0fichiers"],
)
def _wget_fr(root: Path) -> bytes:
    site = _site(root, ["errors", "exceptions", "retry", "failed-jobs", "webhooks"], 16)
    with _http_server(site) as port:
        out = sh(
            f"wget --no-http-keep-alive -m -np http://127.0.0.1:{port}/index.html -P mirror", root, env=_loc("fr_FR")
        )
    return _settle(out, root)


# ---------------------------------------------------------------- msgfmt in Russian


def _po(lang: str, domain: str, k: int, *, missing: int, broken: bool) -> str:
    header = [
        f"Project-Id-Version: {domain} 2.4",
        "PO-Revision-Date: 2025-11-02 10:00+0100",
        "Last-Translator: Team <l10n@example.invalid>",
        f"Language-Team: {lang} <l10n@example.invalid>",
        f"Language: {lang}",
        "MIME-Version: 1.0",
        "Content-Type: text/plain; charset=UTF-8",
        "Content-Transfer-Encoding: 8bit",
        "Plural-Forms: nplurals=2; plural=(n != 1);",
    ]
    header = [h for i, h in enumerate(header) if i not in range(1, 1 + missing)]
    out = ['msgid ""', 'msgstr ""'] + [f'"{h}\\n"' for h in header] + [""]
    for i in range(60):
        out += [f"#: src/{domain}/views.py:{100 + i}", "#, python-format"]
        out += [f'msgid "Retry %(count)d of %(total)d for {domain} item {i}"']
        if broken and i == 41:
            out += [f'msgstr "[{lang}] Tentativa %(count)d para {domain} item {i}"', ""]
        elif i % 17 == 5:
            out += ['msgstr ""', ""]
        else:
            out += [f'msgstr "[{lang}] %(count)d / %(total)d {domain} {i}"', ""]
    return "\n".join(out) + "\n"


@case(
    "u42_msgfmt_check_ru",
    "msgfmt (ru_RU)",
    clean=False,
    group=GROUP,
    decisive=[
        "po/refunds/pt_BR.po:221: для аргумента «total» нет спецификации формата в «msgstr»",
        "msgfmt: найдена 1 критическая ошибка",
    ],
)
def _msgfmt_ru(root: Path) -> bytes:
    langs = [
        "ar",
        "cs",
        "da",
        "de",
        "el",
        "es",
        "fi",
        "fr",
        "he",
        "hu",
        "it",
        "ja",
        "ko",
        "nl",
        "pl",
        "pt",
        "pt_BR",
        "ro",
        "ru",
        "sk",
        "sv",
        "tr",
        "uk",
        "zh_CN",
    ]
    domains = ["billing", "cart", "checkout", "invoice", "orders", "refunds", "shipping", "webhooks"]
    for d in domains:
        for k, lang in enumerate(langs):
            missing = (k * 5 + len(d)) % 4 if (k + len(d)) % 3 == 0 else 0
            text = _po(lang, d, k, missing=missing, broken=(d, lang) == ("refunds", "pt_BR"))
            (root / "po" / d).mkdir(parents=True, exist_ok=True)
            (root / "po" / d / f"{lang}.po").write_text(text)
    loop = 'for f in po/*/*.po; do msgfmt --check --statistics -v -o /dev/null "$f"; done'
    return _settle(sh(loop, root, env=_loc("ru_RU")), root)
