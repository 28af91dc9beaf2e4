"""Held-out outputs (group ``unseen-41``): a forty-first batch, other languages' package managers and dependency
resolvers as an agent runs them, all offline (no crate, gem, Packagist, CPAN or Go registry answers here): path
dependencies, path repositories and local distributions, so the resolvers' and installers' own messages are real.

Failing runs: ``cargo build -vv -j1 --keep-going`` of a workspace of 14 crates where the ``refunds`` crate has a type
mismatch in the middle of the verbose log, a chained ``cargo build`` of one workspace then ``cargo build`` of a second
whose ``billing`` crate asks for ``retry ^2.0`` while the path crate is 1.4.0, ``bundle install --verbose`` (with
Bundler's resolver debug log) of 16 path gems where ``billing_core`` needs ``retry_policy ~> 2.0``, ``cpanm -v`` of 12
local distributions where the test suite of ``Ledger-Retry`` fails, and ``go build -a -x -p 1 ./...`` of a module with
12 ``replace``d local modules where the ``shipping`` package returns an int as a string. Clean runs named after errors
and failures: ``cargo build -vv -j1`` and ``cargo tree`` of crates ``errors``, ``retry`` and ``failed-jobs`` with unused
warnings, ``gem build`` and ``gem install --local`` of 14 gems (``errors_report``, ``failed_jobs``) with gemspec
warnings, and ``go build -x``, ``go vet`` and ``go run`` of the same Go module with every package fixed. Labels were
written with each scenario, before the engine saw the output. Needs cargo and rustc (rustup's stable toolchain, already
on the machine), Ruby with gem and Bundler, cpanminus with Perl and make, and Go (Debian ``ruby``, ``ruby-bundler``,
``cpanminus``, ``make``, ``golang-go``).
"""

from __future__ import annotations

from pathlib import Path

from _harness import case, scrub, sh, substitute, write

GROUP = "unseen-41"

#: The toolchain's own cargo (not rustup's proxy), so that a CARGO_HOME in the scenario's folder is enough.
_CARGO = "/root/.rustup/toolchains/stable-x86_64-unknown-linux-gnu/bin/cargo"


def _settle(out: bytes, root: Path) -> bytes:
    """``out`` scrubbed of what differs between two runs: the folder, hashes in file names, durations, ids."""
    return substitute(
        scrub(out, root),
        (r"-([0-9a-f]{16})\b", "-0000000000000000"),
        (r"metadata=[0-9a-f]+", "metadata=0000000000000000"),
        (r" in \d+(\.\d+)?m?s\b", " in 1.00s"),
        (r"/tmp/go-build\d+", "/tmp/go-build1000"),
        (r"-buildid[ =][^ ]+", "-buildid 0000"),
        (r"work/\d+\.\d+", "work/1000.1000"),
        (r"\d+ wallclock secs \(.*\)$", "0 wallclock secs"),
        (r"\[\d+(\.\d+)?[MK]?i?B/\d+\.\d+s\] ", ""),
        (r"/tmp/tmp[A-Za-z0-9_]{8}", "/tmp/tmpabcdefgh"),
        (r"gocache/[0-9a-f]{2}/[0-9a-f]{64}", "gocache/00/" + "0" * 64),
        (r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d \+0000", "2026-01-01 00:00:00 +0000"),
        (r"0x[0-9a-f]{16}", "0x0000000000000000"),
        (r"Took \d+\.\d+ seconds", "Took 0.001 seconds"),
    )


# ---------------------------------------------------------------- cargo


def _crate(root: Path, name: str, version: str, deps: dict[str, str], body: str) -> None:
    lines = [f'{d} = {{ path = "../{d}", version = "{v}" }}' for d, v in deps.items()]
    write(
        root,
        {
            f"crates/{name}/Cargo.toml": f"""
                [package]
                name = "{name}"
                version = "{version}"
                edition = "2021"

                [dependencies]
                {chr(10).join(lines)}
            """,
            f"crates/{name}/src/lib.rs": body,
        },
    )


def _lib(name: str, deps: list[str], extra: str = "") -> str:
    ident = name.replace("-", "_")
    uses = "".join(f"    total += {d.replace('-', '_')}::weight(cents);\n" for d in deps)
    return (
        f"//! {name}: part of the billing platform.\n\n"
        f"pub fn weight(cents: u64) -> u64 {{\n    let mut total = cents % 97;\n{uses}    total\n}}\n\n"
        f'pub fn describe_{ident}() -> String {{\n    format!("{name} v{{}}", env!("CARGO_PKG_VERSION"))\n}}\n' + extra
    )


def _workspace(root: Path, members: list[str]) -> None:
    quoted = ", ".join(f'"crates/{m}"' for m in members)
    write(root, {"Cargo.toml": f'[workspace]\nresolver = "2"\nmembers = [{quoted}]\n'})


def _cargo(root: Path) -> str:
    return f"CARGO_HOME={root / 'cargo-home'} CARGO_TERM_COLOR=never CARGO_INCREMENTAL=0 {_CARGO}"


_AREAS = ["errors", "retry", "ledger", "tax", "pricing", "coupons", "orders", "cart", "refunds", "invoice"]


def _big_workspace(root: Path, broken: str = "") -> list[str]:
    """14 crates, each using the ones before it; ``broken`` gets a type mismatch."""
    names = [*_AREAS, "shipping", "webhooks", "audit", "billing"]
    for i, name in enumerate(names):
        deps = names[max(0, i - 3) : i]
        extra = ""
        if name == broken:
            extra = (
                "\npub fn refund_total(items: &[u64]) -> u64 {\n"
                "    let label: String = items.len();\n    label.len() as u64\n}\n"
            )
        _crate(root, name, f"0.{i + 1}.0", {d: f"0.{names.index(d) + 1}.0" for d in deps}, _lib(name, deps, extra))
    _workspace(root, names)
    return names


@case(
    "u41_cargo_vv_compile_error",
    "cargo",
    clean=False,
    group=GROUP,
    decisive=["error[E0308]: mismatched types", "--> crates/refunds/src/lib.rs:", "could not compile `refunds`"],
)
def _cargo_vv_compile_error(root: Path) -> bytes:
    _big_workspace(root, broken="refunds")
    return _settle(sh(f"{_cargo(root)} build -vv -j1 --keep-going --offline", root), root)


@case(
    "u41_cargo_clean_errors_retry",
    "cargo",
    clean=True,
    group=GROUP,
    decisive=["Finished `dev` profile", "failed-jobs v0.3.0"],
)
def _cargo_clean(root: Path) -> bytes:
    names = ["errors", "retry", "failed-jobs", "exceptions", "audit", "webhooks", "ledger", "session"]
    for i, name in enumerate(names):
        deps = names[max(0, i - 2) : i]
        extra = "\npub fn retry_errors(n: u32) -> u32 {\n    let failed_jobs = n;\n    0\n}\n"
        _crate(root, name, f"0.{i + 1}.0", {d: f"0.{names.index(d) + 1}.0" for d in deps}, _lib(name, deps, extra))
    _workspace(root, names)
    cargo = _cargo(root)
    return _settle(sh(f"{cargo} build -vv -j1 --offline && {cargo} tree --offline", root), root)


@case(
    "u41_cargo_select_version",
    "cargo",
    clean=False,
    group=GROUP,
    decisive=['failed to select a version for the requirement `retry = "^2.0"`', "candidate versions found which"],
)
def _cargo_select_version(root: Path) -> bytes:
    first = root / "ledger-ws"
    _big_workspace(first)
    second = root / "billing-ws"
    _crate(second, "retry", "1.4.0", {}, _lib("retry", []))
    _crate(second, "errors", "0.2.0", {}, _lib("errors", []))
    _crate(second, "billing", "0.9.0", {"retry": "2.0", "errors": "0.2.0"}, _lib("billing", ["retry", "errors"]))
    _workspace(second, ["retry", "errors", "billing"])
    cargo = _cargo(root)
    cmd = f"(cd ledger-ws && {cargo} build -v -j1 --offline) && (cd billing-ws && {cargo} build -v -j1 --offline)"
    return _settle(sh(cmd, root), root)


# ---------------------------------------------------------------- gem and Bundler


def _gem(root: Path, name: str, version: str, deps: dict[str, str], *, meta: bool = True) -> None:
    mod = "".join(p.capitalize() for p in name.split("_"))
    dep_lines = "".join(f'  s.add_dependency "{d}", "{v}"\n' for d, v in deps.items())
    extra = '  s.license = "MIT"\n  s.homepage = "https://example.invalid/' + name + '"\n' if meta else ""
    write(
        root,
        {
            f"gems/{name}/{name}.gemspec": (
                "Gem::Specification.new do |s|\n"
                f'  s.name = "{name}"\n  s.version = "{version}"\n  s.summary = "{mod} for the billing platform"\n'
                f'  s.authors = ["Billing Team"]\n  s.files = Dir["lib/**/*.rb"]\n{extra}{dep_lines}end\n'
            ),
            f"gems/{name}/lib/{name}.rb": f'module {mod}\n  VERSION = "{version}"\nend\n',
            **{f"gems/{name}/lib/{name}/part_{k}.rb": f"module {mod}\n  PART_{k} = {k}\nend\n" for k in range(6)},
        },
    )


def _ruby_env(root: Path) -> str:
    return (
        f"HOME={root / 'home'} GEM_HOME={root / 'gem-home'} GEM_PATH={root / 'gem-home'} "
        f"BUNDLE_PATH={root / 'bundle'} BUNDLE_USER_HOME={root / 'home/.bundle'} BUNDLE_JOBS=1 "
        "BUNDLE_DISABLE_VERSION_CHECK=1 SOURCE_DATE_EPOCH=1700000000"
    )


_GEMS = [
    "errors_report", "failed_jobs", "retry_policy", "ledger_entries", "tax_rates", "pricing_rules", "coupons_engine",
    "orders_api", "cart_store", "refunds_flow", "invoice_pdf", "shipping_labels", "webhooks_out", "audit_trail",
]  # fmt: skip


@case(
    "u41_gem_build_install_clean",
    "gem",
    clean=True,
    group=GROUP,
    decisive=["Successfully installed audit_trail-1.13.0", "audit_trail (1.13.0)"],
)
def _gem_clean(root: Path) -> bytes:
    for i, name in enumerate(_GEMS):
        deps = {_GEMS[i - 1]: f"~> 1.{i - 1}"} if i else {}
        _gem(root, name, f"1.{i}.0", deps, meta=i % 3 != 0)
    steps = [
        f"(cd gems/{n} && gem build {n}.gemspec)"
        f" && gem install --local --no-document --verbose gems/{n}/{n}-1.{i}.0.gem"
        for i, n in enumerate(_GEMS)
    ]
    return _settle(sh(f"{_ruby_env(root)} sh -c '{' && '.join(steps)} && gem list --local'", root), root)


@case(
    "u41_bundle_install_conflict",
    "bundler",
    clean=False,
    group=GROUP,
    decisive=['Bundler could not find compatible versions for gem "retry_policy":', "retry_policy (~> 2.0)"],
)
def _bundle_conflict(root: Path) -> bytes:
    names = [*_GEMS, "billing_core", "session_store"]
    for i, name in enumerate(names):
        deps = {"errors_report": ">= 1.0"} if i and name != "errors_report" else {}
        if name == "billing_core":
            deps = {"retry_policy": "~> 2.0", "ledger_entries": ">= 1.0"}
        version = "1.3.0" if name == "retry_policy" else f"1.{i}.0"
        _gem(root, name, version, deps)
    gemfile = "".join(f'gem "{n}", path: "gems/{n}"\n' for n in names)
    write(root, {"Gemfile": gemfile})
    return _settle(sh(f"{_ruby_env(root)} DEBUG_RESOLVER=1 bundle install --verbose --jobs 1", root), root)


# ---------------------------------------------------------------- cpanm


def _perl_dist(root: Path, name: str, deps: list[str], failing: bool) -> None:
    mod = name.replace("-", "::")
    path = name.replace("-", "/")
    prereq = ", ".join(f"'{d.replace('-', '::')}' => 0" for d in deps)
    files = {
        f"dists/{name}/Makefile.PL": (
            "use ExtUtils::MakeMaker;\n"
            f"WriteMakefile(NAME => '{mod}', VERSION_FROM => 'lib/{path}.pm', PREREQ_PM => {{{prereq}}});\n"
        ),
        f"dists/{name}/lib/{path}.pm": (
            f"package {mod};\nuse strict;\nuse warnings;\nour $VERSION = '0.42';\n\n"
            "sub backoff { my ($n) = @_; return $n <= 0 ? 0 : 2 ** ($n - 1); }\n\n1;\n"
        ),
    }
    for k in range(4):
        lines = [f"use strict;\nuse warnings;\nuse Test::More;\nuse {mod};\n"]
        for j in range(1, 9):
            want = 2 ** (j - 1)
            if failing and k == 2 and j == 6:
                want = 30
            lines.append(f"diag('{name} attempt {j} of batch {k}');\nis({mod}::backoff({j}), {want}, 'backoff {j}');\n")
        files[f"dists/{name}/t/{k:02d}_backoff.t"] = "".join(lines) + "done_testing;\n"
    write(root, files)


@case(
    "u41_cpanm_test_failure",
    "cpanm",
    clean=False,
    group=GROUP,
    decisive=["t/02_backoff.t", "#   Failed test 'backoff 6'", "! Installing ./dists/Ledger-Retry failed."],
)
def _cpanm_fail(root: Path) -> bytes:
    names = [
        "Billing-Core", "Billing-Tax", "Orders-Queue", "Cart-Store", "Ledger-Retry", "Refunds-Flow", "Invoice-Pdf",
        "Shipping-Rates", "Webhooks-Out", "Audit-Trail", "Coupons-Engine", "Pricing-Rules",
    ]  # fmt: skip
    for name in names:
        _perl_dist(root, name, [], failing=name == "Ledger-Retry")
    dists = " ".join(f"./dists/{n}" for n in names)
    env = f"HOME={root / 'home'} PERL_CPANM_HOME={root / 'cpanm'} PERL_MM_USE_DEFAULT=1"
    return _settle(sh(f"{env} cpanm -v -L local {dists}", root), root)


# ---------------------------------------------------------------- Go modules


def _go_module(root: Path, broken: str = "") -> list[str]:
    names = ["errors", "retry", "ledger", "tax", "pricing", "coupons", "orders", "cart", "refunds", "invoice"]
    names += ["shipping", "webhooks"]
    requires, replaces = [], []
    for i, name in enumerate(names):
        dep = names[i - 1] if i else ""
        imp = f'\nimport "example.com/{dep}"\n' if dep else ""
        use = f"{dep}.Weight(cents) + " if dep else ""
        ret, body = ("string", "return fmt.Sprint(cents % 97)") if name == broken else ("", "")
        code = f"package {name}\n{imp}\n// Weight scores an amount for the {name} service.\n"
        code += "func Weight(cents int) int {\n"
        code += f"\treturn {use}cents % 97\n}}\n"
        if ret:
            code = code.replace("package " + name + "\n", f'package {name}\n\nimport "fmt"\n', 1)
            code += (
                f"\n// Label is the {name} label of an amount.\nfunc Label(cents int) string {{\n\treturn cents\n}}\n"
            )
            code += f"\n// Describe is unused by the app.\nfunc Describe(cents int) string {{\n\t{body}\n}}\n"
        gomod = f"module example.com/{name}\n\ngo 1.19\n"
        if dep:
            gomod += f"\nrequire example.com/{dep} v0.0.0\n\nreplace example.com/{dep} => ../{dep}\n"
        write(root, {f"mods/{name}/go.mod": gomod, f"mods/{name}/{name}.go": code})
    for name in names:
        requires.append(f"\texample.com/{name} v0.0.0")
        replaces.append(f"replace example.com/{name} => ./mods/{name}")
    imports = "".join(f'\t"example.com/{n}"\n' for n in names)
    calls = "".join(f"\ttotal += {n}.Weight(1999)\n" for n in names)
    write(
        root,
        {
            "go.mod": "module example.com/billing\n\ngo 1.19\n\nrequire (\n"
            + "\n".join(requires)
            + "\n)\n\n"
            + "\n".join(replaces)
            + "\n",
            "cmd/billing/main.go": f'package main\n\nimport (\n\t"fmt"\n\n{imports})\n\nfunc main() {{\n'
            f'\ttotal := 0\n{calls}\tfmt.Println("billing weight", total)\n}}\n',
        },
    )
    return names


def _go(root: Path) -> str:
    return (
        f"HOME={root / 'home'} GOPATH={root / 'gopath'} GOMODCACHE={root / 'gopath/pkg/mod'} "
        f"GOCACHE={root / 'gocache'} GOFLAGS=-modcacherw GOPROXY=off GOSUMDB=off GOTOOLCHAIN=local GO111MODULE=on"
    )


@case(
    "u41_go_build_x_replace",
    "go",
    clean=False,
    group=GROUP,
    decisive=[
        "mods/shipping/shipping.go:",
        "cannot use cents (variable of type int) as type string in return statement",
    ],
)
def _go_fail(root: Path) -> bytes:
    _go_module(root, broken="shipping")
    return _settle(sh(f"{_go(root)} go build -a -x -p 1 ./... example.com/shipping", root), root)


@case(
    "u41_go_build_vet_clean",
    "go",
    clean=True,
    group=GROUP,
    decisive=["billing weight "],
)
def _go_clean(root: Path) -> bytes:
    _go_module(root)
    go = _go(root)
    return _settle(sh(f"{go} go build -x -p 1 ./... && {go} go vet ./... && {go} go run ./cmd/billing", root), root)
