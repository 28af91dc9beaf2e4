"""gc keeps its promises for any policy (hypothesis): a real folder, S3 (moto), Docker, E2B (envd server).

For random workspaces, policies and writers acting *during* the collection:
gc never removes a pinned item, an item younger than the grace period, or
anything a writer touched while it ran; the ledger agrees with the files
afterwards; a dry run lists exactly what the real run then removes.
"""

from __future__ import annotations

import importlib
import json
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from offloader.core.messages import Message, TextBlock, ToolResultBlock
from workspaces import LocalWorkspace, Workspace
from workspaces.inventory import fold_status, inventory
from workspaces.retention import RetentionPolicy, collect_garbage

DAY = 86_400.0
_PINS = (None, "mild", "truncated", "pinned", "state")


@dataclass(frozen=True)
class Spec:
    session: int
    age: str  # "young" | "old" | "ancient"
    pin: str | None
    size: int
    sidecar: bool


_item = st.builds(
    Spec,
    session=st.integers(0, 2),
    age=st.sampled_from(["young", "old", "ancient"]),
    pin=st.sampled_from(_PINS),
    size=st.integers(1, 3000),
    sidecar=st.booleans(),
)
_policy = st.builds(
    dict,
    max_age=st.sampled_from([None, 0, 1, 3600, 10 * DAY]),
    max_files=st.sampled_from([None, 0, 1, 3]),
    max_bytes=st.sampled_from([None, 0, 2_000, 20_000]),
    temp_grace=st.sampled_from([0.0, 5.0, 600.0]),
)
_writers = st.builds(
    dict,
    at=st.integers(1, 6),
    reoffload=st.sets(st.integers(0, 9), max_size=3),
    append=st.sets(st.integers(0, 2), max_size=2),
)


def _block(i: int, spec: Spec) -> ToolResultBlock:
    return ToolResultBlock(f"t{i}", "bash", (TextBlock(f"{i}:" + "x" * spec.size),))


async def _seed(ws: Workspace, items: list[Spec], grace: float, local: bool) -> dict[int, str]:
    refs: dict[int, str] = {}
    state: dict[int, list[str]] = {}
    for i, spec in enumerate(items):
        refs[i] = await ws.offload_tool_result(f"s{spec.session}", _block(i, spec))
        rel = ws.relative(refs[i])
        if spec.sidecar:
            await ws.write_bytes(rel + ".lineidx", b"\0" * 64)
        if spec.pin == "state":
            state.setdefault(spec.session, []).append(refs[i])
        elif spec.pin is not None:
            line = {"kind": "compaction", "ref": refs[i], "status": spec.pin}
            await ws._append(f"sessions/s{spec.session}/ledger.jsonl", (json.dumps(line) + "\n").encode())
    for s, pins in state.items():
        await ws.write_bytes(f"sessions/s{s}/state.json", json.dumps({"refs": pins}).encode())
    for s in {spec.session for spec in items}:
        await ws.offload_context(f"s{s}", [Message("user", (TextBlock(f"hello s{s}"),))])
    if local:  # age files on disk: each item (and its sidecar) by its class, logs as old as the oldest item
        root = Path(ws.workdir)
        ages = {"young": 0.0, "old": 2 * grace + 3600, "ancient": 30 * DAY}
        oldest: dict[int, float] = {}
        for i, spec in enumerate(items):
            t = time.time() - ages[spec.age]
            oldest[spec.session] = max(oldest.get(spec.session, 0.0), ages[spec.age])
            for p in (Path(refs[i]), Path(refs[i] + ".lineidx")):
                if p.exists():
                    os.utime(p, (t, t))
        for s, age in oldest.items():
            for name in ("context.jsonl", "ledger.jsonl", "state.json"):
                p = root / "sessions" / f"s{s}" / name
                if p.exists():
                    os.utime(p, (time.time() - age, time.time() - age))
    return refs


async def _check(
    ws: Workspace,
    items: list[Spec],
    policy: dict[str, Any],
    writers: dict[str, Any],
    now: float,
) -> None:
    local = isinstance(ws, LocalWorkspace)
    grace = policy["temp_grace"]
    refs = await _seed(ws, items, grace, local)
    before = await inventory(ws)
    young = {i for i, s in enumerate(items) if local and s.age == "young"}
    pinned = {i for i, s in enumerate(items) if s.pin is not None}
    touched: set[int] = set()
    appended: list[tuple[int, str]] = []

    async def writer(done: int, total: int) -> None:  # a concurrent writer, acting before removal `done`
        if done != min(writers["at"], total):
            return
        for i in sorted(writers["reoffload"]):
            if i in refs:
                assert await ws.offload_tool_result(f"s{items[i].session}", _block(i, items[i])) == refs[i]
                touched.add(i)
        for s in sorted(writers["append"]):
            text = f"late {secrets.token_hex(4)}"
            await ws.offload_context(f"s{s}", [Message("user", (TextBlock(text),))])
            appended.append((s, text))

    rp = RetentionPolicy(**policy)
    dry = await collect_garbage(ws, rp, dry_run=True, now=now)
    real = await collect_garbage(ws, rp, progress=writer, now=now)
    if not writers["reoffload"] and not writers["append"]:
        assert real.removed == dry.removed  # a dry run lists exactly what the real run removes
    else:
        assert {r.path for r in real.removed} <= {r.path for r in dry.removed}
    if not real.removed:  # the writer never ran during the collection: run it now
        await writer(min(writers["at"], 1), 1)
    for i in young | pinned | touched:
        assert (await ws.read_bytes(refs[i])).decode() == _block(i, items[i]).content[0].text  # type: ignore[union-attr]
    for s, text in appended:
        assert text in (await ws.read_bytes(f"sessions/s{s}/context.jsonl")).decode()
    after = await inventory(ws)
    for name, session in after.sessions.items():  # the ledger agrees with the files
        present = {item.path.rsplit("/", 1)[-1] for item in session.items.values()}
        for item in session.items.values():
            assert item.status != "removed", item.path
        for ref in {str(e.get("ref")) for e in session.ledger if e.get("ref")}:
            status = fold_status(session.entries_for(ref.rsplit("/", 1)[-1]))
            if ref.rsplit("/", 1)[-1] not in present | set(session.meta):
                assert status in ("removed", "deleted", "collected") or status == "", (name, ref, status)
    gone = {p for s in before.sessions.values() for p in s.items} - {
        p for s in after.sessions.values() for p in s.items
    }
    for path in gone:
        session = after.sessions[path.split("/")[1]]
        assert fold_status(session.entries_for(path.rsplit("/", 1)[-1])) == "removed", path


def _run(backend: str, tmp: Path, items: list[Spec], policy: dict[str, Any], writers: dict[str, Any]) -> None:
    async def go() -> None:
        if backend == "local":
            async with LocalWorkspace(tmp / secrets.token_hex(4)) as ws:
                await _check(ws, items, policy, writers, time.time())
            return
        module = importlib.import_module(f"tests.backends.{backend}")
        folder = tmp / secrets.token_hex(4)
        folder.mkdir()
        async with module.open_workspace(folder) as ws:
            # files cannot be back-dated here: the collection's clock moves forward instead (all items old)
            shift = 0.0 if policy["max_age"] is None else 2 * policy["temp_grace"] + policy["max_age"] + 10
            await _check(ws, items, policy, writers, time.time() + shift)

    anyio.run(go)


@pytest.mark.parametrize("backend", ["local", "s3", "docker", "e2b"])
def test_gc_never_removes_what_it_promises_to_keep(backend: str, tmp_path: Path) -> None:
    examples = {"local": 60, "docker": 4}.get(backend, 6)

    @settings(max_examples=examples, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
    @given(items=st.lists(_item, min_size=1, max_size=8), policy=_policy, writers=_writers)
    def prop(items: list[Spec], policy: dict[str, Any], writers: dict[str, Any]) -> None:
        _run(backend, tmp_path, items, policy, writers)

    prop()
