"""The confinement race inside a sandbox: Docker and E2B, where confinement is best effort.

The same race as ``tests/test_race.py``, but the flipper runs where the
workspace's scripts run: a shell loop inside the container (Docker), a process
in the sandbox's filesystem (E2B against ``tests/envd_server.py``, whose
"sandbox" is a host folder). The decoy lives in the sandbox, outside the workdir.

These backends check paths with ``realpath`` in a script and then act by name,
so a process racing inside the sandbox can redirect a call (see
docs/concepts/confinement.md). What is asserted is the boundary: every write a
race redirects stays inside the sandbox (the host, or for E2B everything outside
the sandbox folder, is untouched), and the workspace works normally once the
race stops. The escape and leak counts are printed (``-s``), not asserted.
"""

from __future__ import annotations

import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from offloader import TextBlock, ToolResultBlock
from tests.conftest import require
from tests.race_support import (
    DECOY_FILES,
    FLIPS,
    MARK,
    Flipper,
    differences,
    drive,
    plant_decoy,
    race_seconds,
    snapshot,
)

pytestmark = pytest.mark.anyio

_FLIP_SH = r"""
cd "$1" || exit 1
while [ ! -e "$3" ]; do
  for pair in $4; do
    p=${pair%%:*}; t=${pair#*:}; s=$p.real-$RANDOM$RANDOM; moved=0
    [ -L sessions ] && continue
    mv -T -- "$p" "$s" 2>/dev/null && moved=1
    ln -s "$2/$t" "$p" 2>/dev/null
    [ -L "$p" ] && rm -f -- "$p"
    [ $moved = 1 ] && mv -T -- "$s" "$p" 2>/dev/null
  done
done
touch "$3.done"
"""


def _sh(container: Any, script: str) -> str:
    result = container.exec_run(["sh", "-c", script])
    return str(result.output.decode())


def _container_snapshot(container: Any, top: str) -> dict[str, str]:
    out = _sh(container, f"cd {top} && find . -type f -exec md5sum {{}} + ; find . ! -type f")
    seen: dict[str, str] = {}
    for line in out.splitlines():
        digest, _, path = line.partition("  ")
        if path:
            seen[path] = digest
        elif line.strip() and line.strip() != ".":
            seen[line.strip()] = "entry"
    return seen


def _check_works(ref: str, body: bytes) -> None:
    assert body == b"after the race", ref


@pytest.fixture
def container() -> Iterator[Any]:
    from tests.docker_support import build_image, engine_client, remove_quietly, start_container

    client = engine_client()
    if client is None:
        require("OFFLOAD_REQUIRE_DOCKER", "no Docker engine answers (start one with .ci/docker-up.sh)")
    started = start_container(client, build_image(client))
    yield started
    remove_quietly(started)


async def test_docker_race_inside_the_container_stays_inside_the_container(container: Any, tmp_path: Path) -> None:
    from workspaces.docker import DockerWorkspace

    workdir, decoy, stop = f"/ws/race-{secrets.token_hex(3)}", "/decoy", "/tmp/stop-flipping"
    plant = " && ".join(f"mkdir -p $(dirname {decoy}/{f}) && echo '{MARK}' > {decoy}/{f}" for f in DECOY_FILES)
    _sh(container, f"{plant} && mkdir -p {workdir}")
    host_before = snapshot(tmp_path)
    before = _container_snapshot(container, decoy)
    async with DockerWorkspace(container, workdir=workdir, client=container.client, ledger_batch=1) as ws:
        await ws.offload_context("s1", [{"role": "user", "content": "warm up"}])
        pairs = " ".join(f"{rel}:{target}" for rel, target in FLIPS)
        container.exec_run(["sh", "-c", _FLIP_SH, "flip", workdir, decoy, stop, pairs], detach=True)
        try:
            outcome = await drive(ws, race_seconds(), workers=2)
        finally:
            _sh(container, f"touch {stop}; i=0; while [ ! -e {stop}.done ] && [ $i -lt 100 ]; do sleep 0.1; "
                           f"i=$((i+1)); done; cd {workdir} && for p in sessions/s1 sessions data; do "
                           '[ -L "$p" ] && rm -f "$p"; done; true')  # fmt: skip
        ref = await ws.offload_tool_result("after", ToolResultBlock("t-after", "x", (TextBlock("after the race"),)))
        _check_works(ref, await ws.read_bytes(ref))
    escapes = differences(before, _container_snapshot(container, decoy))
    print(f"\ndocker: {len(escapes)} escapes inside the container, {len(outcome.leaks)} leaks; {outcome.summary()}")
    assert differences(host_before, snapshot(tmp_path)) == []
    assert outcome.ops > 0


async def test_e2b_race_inside_the_sandbox_stays_inside_the_sandbox(tmp_path: Path) -> None:
    try:
        from tests.envd_server import EnvdServer
        from workspaces.e2b import E2BWorkspace
    except Exception as exc:
        require("OFFLOAD_REQUIRE_E2B", f"the envd test server cannot start: {exc}")
        raise
    sandbox = tmp_path / "sandbox"
    decoy = sandbox / "decoy"
    plant_decoy(decoy)
    (tmp_path / "host-file.txt").write_text("outside the sandbox\n")
    server = EnvdServer(sandbox)
    server.start()
    try:
        async with E2BWorkspace(debug=True, sandbox_url=server.url, ledger_batch=1) as ws:
            root = sandbox / ws.workdir.lstrip("/")
            await ws.offload_context("s1", [{"role": "user", "content": "warm up"}])
            host_before = snapshot(tmp_path, skip=sandbox)
            before = snapshot(sandbox, skip=root)
            with Flipper(root, decoy, threads=0):
                started = time.monotonic()
                outcome = await drive(ws, race_seconds(), workers=2)
            for rel, _ in FLIPS:
                if (root / rel).is_symlink():
                    (root / rel).unlink()
            ref = await ws.offload_tool_result("after", ToolResultBlock("t-after", "x", (TextBlock("after the race"),)))
            _check_works(ref, await ws.read_bytes(ref))
    finally:
        server.stop()
    escapes = differences(before, snapshot(sandbox, skip=root))
    print(
        f"\ne2b: {len(escapes)} escapes inside the sandbox, {len(outcome.leaks)} leaks in "
        f"{time.monotonic() - started:.0f} s; {outcome.summary()}"
    )
    assert differences(host_before, snapshot(tmp_path, skip=sandbox)) == []
    assert outcome.ops > 0
