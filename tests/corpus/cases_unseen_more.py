"""Held-out outputs (group ``unseen-2``): a second, harder batch, written after the first one was measured.

It aims at what the first batch did not test: clean test runs that log errors on
purpose, chained exceptions, log formats whose level is a single letter, a runner
whose markers are symbols, a JSON document with one failed record, a recap line.
Labels were written with each scenario, before the engine saw the output.
"""

from __future__ import annotations

from pathlib import Path

from _harness import PY, case, scrub, sh, write

GROUP = "unseen-2"


@case("pytest_clean_logged_errors", "pytest -s", clean=True, group=GROUP, decisive=["306 passed"])
def _pytest_logged(root: Path) -> bytes:
    tests = ["def charge(amount):\n    if amount <= 0:\n        print(f'ERROR payment declined: amount {amount}')"]
    tests[0] += "\n        return False\n    return True\n"
    tests += [f"def test_charge_{i:03d}():\n    assert charge({i + 1})\n" for i in range(300)]
    negative = [
        ("zero", "print('ERROR gateway timeout after 30s (simulated)')"),
        ("negative", "assert not charge(-5)"),
        ("refund", "print('FATAL: ledger locked, retrying (expected in this test)')"),
        ("card", "print('Traceback (most recent call last): <simulated for the log parser test>')"),
        ("limit", "assert not charge(0)"),
        ("fraud", "print('CRITICAL fraud score 0.97 for card ****4242, blocked')"),
    ]
    tests += [f"def test_declines_{name}():\n    {body}\n" for name, body in negative]
    (root / "test_payments.py").write_text("\n".join(tests))
    return sh(f"{PY} -m pytest -p no:cacheprovider -v -s .", root)


@case(
    "python_chained_exception",
    "python script",
    clean=False,
    group=GROUP,
    decisive=[
        "ConnectionResetError: [Errno 104] peer reset while writing order 512",
        "RuntimeError: could not save order 512",
    ],
)
def _chained(root: Path) -> bytes:
    write(
        root,
        {
            "save.py": """
            import logging, sys

            logging.basicConfig(stream=sys.stdout, level=logging.INFO, format="%(levelname)s %(message)s")
            log = logging.getLogger("orders")


            def write(n):
                if n == 512:
                    raise ConnectionResetError(104, f"peer reset while writing order {n}")


            def save(n):
                try:
                    write(n)
                except OSError:
                    raise RuntimeError(f"could not save order {n}")


            for n in range(1, 1200):
                log.info("saved order %d (%d lines)", n, n % 13 + 1)
                save(n)
            """
        },
    )
    return sh(f"{PY} save.py", root)


@case(
    "go_klog_style_error",
    "go run (glog-style log)",
    clean=False,
    group=GROUP,
    decisive=["sync.go:120] Failed to sync pod default/web-17: context deadline exceeded"],
)
def _klog(root: Path) -> bytes:
    (root / "go.mod").write_text("module example.com/ctl\n\ngo 1.19\n")
    (root / "main.go").write_text(
        'package main\n\nimport (\n\t"fmt"\n\t"os"\n)\n\nfunc main() {\n'
        "\tfor i := 0; i < 4000; i++ {\n"
        '\t\tfmt.Fprintf(os.Stderr, "I1201 05:%02d:%02d.%06d    4242 sync.go:88] Synced pod default/web-%d\\n",'
        " i/60%60, i%60, i*7919%1000000, i%50)\n"
        "\t\tif i == 2345 {\n"
        '\t\t\tfmt.Fprintf(os.Stderr, "E1201 05:39:05.001122    4242 sync.go:120] Failed to sync pod'
        ' default/web-17: context deadline exceeded\\n")\n'
        "\t\t}\n\t}\n}\n"
    )
    return sh("go run main.go", root)


@case(
    "jest_fail",
    "jest",
    clean=False,
    group=GROUP,
    decisive=["● cart › applies coupon", "Expected: 70", "Received: 68", "1 failed, 300 passed, 301 total"],
)
def _jest(root: Path) -> bytes:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh("npm install --no-audit --no-fund --silent jest@29.7.0", root)
    tests = ["describe('cart', () => {"]
    tests += [f"  test('computes total {i}', () => {{ expect({i} + 1).toBe({i + 1}); }});" for i in range(300)]
    tests.insert(120, "  test('applies coupon', () => { expect(Math.round(80 * 0.85)).toBe(70); });")
    tests.append("});")
    write(root, {"cart.test.js": "\n".join(tests) + "\n"})
    return scrub(sh("npx jest --verbose --ci", root), root)


@case(
    "ansible_failed_task",
    "ansible-playbook",
    clean=False,
    group=GROUP,
    decisive=["fatal: [localhost]: FAILED!", "/etc/app/missing.conf", "failed=1"],
)
def _ansible(root: Path) -> bytes:
    sh(f"{PY} -m pip install -q --no-cache-dir --target {root / 'tools'} ansible-core==2.17.7", root)
    tasks = [
        f"    - name: render part {i}\n      ansible.builtin.copy:\n        content: 'part {i}'\n"
        f"        dest: '{root}/out/part{i}.txt'\n"
        for i in range(60)
    ]
    tasks.insert(40, "    - name: read app config\n      ansible.builtin.slurp:\n        src: /etc/app/missing.conf\n")
    play = "- hosts: localhost\n  connection: local\n  gather_facts: false\n  tasks:\n"
    play += f"    - name: make out\n      ansible.builtin.file:\n        path: '{root}/out'\n        state: directory\n"
    (root / "site.yml").write_text(play + "".join(tasks))
    env = f"PYTHONPATH={root / 'tools'} ANSIBLE_NOCOLOR=1 ANSIBLE_LOCALHOST_WARNING=0"
    env += " ANSIBLE_INVENTORY_UNPARSED_WARNING=0"
    cmd = f"{env} {PY} {root / 'tools' / 'bin' / 'ansible-playbook'} -v site.yml"
    return scrub(sh(cmd, root), root)


@case(
    "json_batch_one_failed_record",
    "python -m json.tool",
    clean=False,
    group=GROUP,
    decisive=['"id": 777', '"error": "upstream timeout after 30s"', '"failed": 1'],
)
def _json_batch(root: Path) -> bytes:
    write(
        root,
        {
            "batch.py": """
            import json
            results = [{"id": i, "status": "ok", "ms": i * 7 % 300} for i in range(1500)]
            results[777] = {"id": 777, "status": "failed", "error": "upstream timeout after 30s"}
            print(json.dumps({"job": "reindex", "summary": {"ok": 1499, "failed": 1}, "results": results}))
            """
        },
    )
    return sh(f"{PY} batch.py | {PY} -m json.tool", root)


@case(
    "clippy_deny_one",
    "cargo clippy",
    clean=False,
    group=GROUP,
    decisive=["error: this comparison involving the minimum or maximum element", "src/lib.rs:"],
)
def _clippy(root: Path) -> bytes:
    (root / "Cargo.toml").write_text('[package]\nname = "meter"\nversion = "0.1.0"\nedition = "2021"\n')
    fns = [f"pub fn f{i}(v: Vec<u32>) -> usize {{ let n = v.len(); return n; }}" for i in range(80)]
    fns.append("pub fn is_empty_reading(x: u32) -> bool { x < 0 || x <= u32::MIN }")
    write(root, {"src/lib.rs": "\n".join(fns) + "\n"})
    return sh("cargo clippy --offline --color never", root, env={"CARGO_TARGET_DIR": str(root / "target")})


@case("jest_pass_error_names", "jest", clean=True, group=GROUP, decisive=["300 passed, 300 total"])
def _jest_pass(root: Path) -> bytes:
    (root / "package.json").write_text('{"name": "held-out", "version": "1.0.0", "private": true}\n')
    sh("npm install --no-audit --no-fund --silent jest@29.7.0", root)
    names = ["throws TypeError on bad input", "rejects with NotFoundError", "logs a warning once"]
    tests = ["describe('errors', () => {"]
    tests += [f"  test('{names[i % 3]} {i}', () => {{ expect({i}).toBe({i}); }});" for i in range(300)]
    tests.append("});")
    write(root, {"errors.test.js": "\n".join(tests) + "\n"})
    return scrub(sh("npx jest --verbose --ci", root), root)
