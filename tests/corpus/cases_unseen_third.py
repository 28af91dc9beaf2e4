"""Held-out outputs (group ``unseen-3``): a third batch, written after the second was measured.

It aims at status tables, crash reports whose frames come most-recent-first,
system-call traces full of normal ``ENOENT`` lines, and clean dumps and docs that
talk about errors. Labels were written with each scenario, before the engine saw the output.
"""

from __future__ import annotations

import uuid
from pathlib import Path

from _harness import PY, busybox_image, case, sh, write

GROUP = "unseen-3"


@case(
    "docker_ps_one_exited",
    "docker ps -a",
    clean=False,
    group=GROUP,
    decisive=["worker-17", "Exited (3)"],
)
def _docker_ps(root: Path) -> bytes:
    tag = busybox_image(root)
    run = f"corpus-{uuid.uuid4().hex[:8]}"
    try:
        for i in range(80):
            code = 3 if i == 17 else 0
            sh(
                f"docker run --network none --label run={run} --name {run}-worker-{i:02d} {tag} sh -c 'exit {code}'",
                root,
            )
        table = "table {{.Names}}\\t{{.Image}}\\t{{.Command}}\\t{{.Status}}"
        out = sh(f"docker ps -a --filter label=run={run} --format '{table}'", root)
    finally:
        sh(f"docker ps -aq --filter label=run={run} | xargs -r docker rm -f", root)
    return out.replace(f"{run}-".encode(), b"")


@case(
    "git_status_unmerged",
    "git status",
    clean=False,
    group=GROUP,
    decisive=["both modified:   src/mod117.py"],
)
def _git_status(root: Path) -> bytes:
    git = "git -c user.name=dev -c user.email=dev@example.com"
    for i in range(300):
        write(root, {f"src/mod{i:03d}.py": f"def f_{i}(x):\n    return x + {i}\n"})
    sh(f"git init -q -b main . && {git} add . && {git} commit -qm base && git checkout -qb topic", root)
    write(root, {"src/mod117.py": "def f_117(x):\n    return x - 117\n"})
    sh(f"{git} commit -qam topic && git checkout -q main", root)
    for i in range(300):
        write(root, {f"src/mod{i:03d}.py": f"def f_{i}(x):\n    return x * {i}\n"})
    sh(f"{git} commit -qam main && {git} merge topic", root)
    for i in range(300):
        write(root, {f"src/generated/gen{i:03d}.py": f"VALUE = {i}\n"})
    return sh("git status -uall", root)


@case(
    "python_faulthandler_segv",
    "python -X faulthandler",
    clean=False,
    group=GROUP,
    decisive=["Fatal Python error: Segmentation fault", 'crash.py", line 6 in poke'],
)
def _segv(root: Path) -> bytes:
    write(
        root,
        {
            "crash.py": """
            import ctypes
            import faulthandler


            def poke(addr):
                return ctypes.string_at(addr, 8)


            faulthandler.enable()
            for i in range(2000):
                print(f"reading block {i}: 4096 bytes ok")
            poke(0x7EAD00000000)  # an unmapped address
            """
        },
    )
    return sh(f"{PY} -u crash.py", root)


@case(
    "node_heap_oom",
    "node --max-old-space-size",
    clean=False,
    group=GROUP,
    decisive=["JavaScript heap out of memory"],
)
def _node_oom(root: Path) -> bytes:
    write(
        root,
        {
            "grow.js": """
            const keep = [];
            for (let i = 0; ; i++) {
              keep.push(new Array(10000).fill(i));
              if (i % 50 === 0) console.log(`cached ${i} pages`);
            }
            """
        },
    )
    return sh("node --max-old-space-size=32 grow.js", root)


@case(
    "strace_enoent_noise",
    "strace -f",
    clean=False,
    group=GROUP,
    decisive=["ModuleNotFoundError: No module named 'missing_module_x'", "+++ exited with 1 +++"],
)
def _strace(root: Path) -> bytes:
    return sh(f"strace -f -e trace=openat,newfstatat {PY} -c 'import missing_module_x'", root)


@case("sqlite_dump_error_table", "sqlite3 .dump", clean=True, group=GROUP, decisive=[])
def _dump(root: Path) -> bytes:
    messages = ["failed to connect to db-1", "timeout talking to cache", "disk 91% full", "ERROR: retry budget spent"]
    rows = ",".join(
        f"({i}, '2024-06-01 12:{i // 60 % 60:02d}:{i % 60:02d}', '{['ERROR', 'WARN'][i % 2]}', '{messages[i % 4]}')"
        for i in range(1500)
    )
    sql = "create table error_log(id integer primary key, ts text, level text, message text);\n"
    (root / "seed.sql").write_text(sql + f"insert into error_log values {rows};\n")
    sh("sqlite3 app.db < seed.sql", root)
    return sh("sqlite3 app.db .dump", root)


@case("pydoc_json_clean", "python -m pydoc", clean=True, group=GROUP, decisive=[])
def _pydoc(root: Path) -> bytes:
    return sh(f"{PY} -m pydoc json", root)
