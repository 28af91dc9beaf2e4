"""Held-out outputs (group ``unseen-5``): a fifth batch, made to measure the engine after four rounds of fixes.

Checksum and archive checks, an XML parser error, doctest's Expected/Got blocks, a
formatter's check and diff, a retry loop that gives up, and clean outputs whose
names and reasons talk about errors. Labels were written with each scenario, before
the engine saw the output.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, case, scrub, sh, write

GROUP = "unseen-5"


@case(
    "doctest_expected_got",
    "python -m doctest -v",
    clean=False,
    group=GROUP,
    decisive=["in calc.add_tax", "Got:", "***Test Failed*** 1 failures."],
)
def _doctest(root: Path) -> bytes:
    funcs = []
    for i in range(200):
        funcs.append(f'def f{i}(x):\n    """\n    >>> f{i}(1)\n    {i + 1}\n    """\n    return x + {i}\n')
    funcs.insert(100, 'def add_tax(x):\n    """\n    >>> add_tax(100)\n    120\n    """\n    return x * 118 // 100\n')
    (root / "calc.py").write_text("\n".join(funcs))
    return sh(f"{PY} -m doctest -v calc.py", root)


@case(
    "gzip_test_one_truncated",
    "gzip -tv",
    clean=False,
    group=GROUP,
    decisive=["archive-117.gz: unexpected end of file"],
)
def _gzip(root: Path) -> bytes:
    for i in range(300):
        (root / f"archive-{i:03d}.txt").write_text(f"record {i}\n" * 200)
    sh("gzip -9 archive-*.txt && for f in archive-*.txt.gz; do mv $f ${f%.txt.gz}.gz; done", root)
    sh("head -c 30 archive-117.gz > cut.gz && mv cut.gz archive-117.gz", root)
    return sh("gzip -tv archive-*.gz", root)


@case(
    "sha256sum_check_one_bad",
    "sha256sum -c",
    clean=False,
    group=GROUP,
    decisive=["blob-042.bin: FAILED", "1 computed checksum did NOT match"],
)
def _sha(root: Path) -> bytes:
    for i in range(250):
        (root / f"blob-{i:03d}.bin").write_bytes(bytes([i % 256]) * (i * 13 + 1))
    sh("sha256sum blob-*.bin > SHA256SUMS && printf x >> blob-042.bin", root)
    return sh("sha256sum -c SHA256SUMS", root)


@case(
    "xmllint_tag_mismatch",
    "xmllint --noout",
    clean=False,
    group=GROUP,
    decisive=["parser error : Opening and ending tag mismatch"],
)
def _xmllint(root: Path) -> bytes:
    servers = [
        f'  <server name="web{i}" port="{8000 + i}">\n    <pool size="{i % 9 + 1}"/>\n  </server>' for i in range(300)
    ]
    servers[170] = '  <server name="web170" port="8170">\n    <pool size="3"/>\n  </servr>'
    good = [x.replace("</servr>", "</server>") for x in servers]
    (root / "base.xml").write_text("<servers>" + "".join(good) + "</servers>\n")
    (root / "config.xml").write_text("<servers>\n" + "\n".join(servers) + "\n</servers>\n")
    return sh("xmllint --format base.xml && xmllint --noout config.xml", root)


def _prettier_tree(root: Path, bad: int | None) -> None:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh("npm install --no-audit --no-fund --silent prettier@3.3.3", root)
    for i in range(200):
        text = f"export function f{i}(x) {{\n  return x + {i};\n}}\n"
        if i == bad:
            text = f"export function f{i}( x ){{return x+{i}}}\n"
        write(root, {f"src/error-handlers/m{i:03d}.js": text})


@case(
    "prettier_check_one_file",
    "prettier --check",
    clean=False,
    group=GROUP,
    decisive=["src/error-handlers/m117.js", "Code style issues found"],
)
def _prettier_bad(root: Path) -> bytes:
    _prettier_tree(root, 117)
    return scrub(sh("npx prettier --check --log-level=debug src", root), root)


@case("prettier_check_clean", "prettier --check", clean=True, group=GROUP, decisive=["All matched files use Prettier"])
def _prettier_ok(root: Path) -> bytes:
    _prettier_tree(root, None)
    return scrub(sh("npx prettier --check --log-level=debug src", root), root)


@case(
    "cargo_fmt_check_diff",
    "cargo fmt --check",
    clean=False,
    group=GROUP,
    decisive=["Diff in", "src/lib.rs"],
)
def _cargo_fmt(root: Path) -> bytes:
    (root / "Cargo.toml").write_text('[package]\nname = "meter"\nversion = "0.1.0"\nedition = "2021"\n')
    fns = [f"pub fn f{i}(x: u32) -> u32 {{\n    x + {i}\n}}\n" for i in range(300)]
    fns[200] = "pub fn f200( x:u32 )->u32{ x+200 }\n"
    write(root, {"src/lib.rs": "\n".join(fns)})
    return scrub(sh("cargo fmt --check -v", root), root)


@case(
    "python_retry_giving_up",
    "python logging (retry loop)",
    clean=False,
    group=GROUP,
    decisive=["giving up on db-2:5432 after 40 attempts", "ConnectionRefusedError: [Errno 111] Connection refused"],
)
def _retry(root: Path) -> bytes:
    write(
        root,
        {
            "sync.py": """
            import logging, socket, sys

            logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(asctime)s %(levelname)s %(message)s")
            log = logging.getLogger("sync")
            for attempt in range(1, 41):
                try:
                    socket.create_connection(("127.0.0.1", 9), timeout=1)
                except OSError:
                    log.warning("attempt %d to reach db-2:5432 failed", attempt, exc_info=True)
            log.error("giving up on db-2:5432 after %d attempts", 40)
            sys.exit(3)
            """
        },
    )
    return sh(f"{PY} sync.py", root)


@case("pip_list_json_clean", "pip list --format=json", clean=True, group=GROUP, decisive=[])
def _pip_json(root: Path) -> bytes:
    return sh(f"{PY} -m pip list --format=json --disable-pip-version-check", root)


@case("pytest_xfail_clean", "pytest -rA (xfail)", clean=True, group=GROUP, decisive=["495 passed, 5 xfailed"])
def _xfail(root: Path) -> bytes:
    tests = ["import pytest\n"]
    tests += [f"def test_ok_{i:03d}():\n    assert {i} == {i}\n" for i in range(495)]
    for i in range(5):
        tests.append(
            f"@pytest.mark.xfail(reason=\"upstream bug {i}: raises KeyError: 'id' on empty rows\")\n"
            f"def test_known_bug_{i}():\n    raise KeyError('id')\n"
        )
    (root / "test_rows.py").write_text("\n".join(tests))
    return sh(f"{PY} -m pytest -p no:cacheprovider -v -rA .", root)
