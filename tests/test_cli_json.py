"""Every command's ``--json`` has the keys docs/guides/cli.md documents, whatever happened.

The documented examples (each after a ``<!-- json: NAME -->`` comment) are the
schemas: every key they show must be present, with a value of the same JSON
type, in an empty workspace as in a full one, when nothing was offloaded as when
something was. ``run`` must match its example's keys exactly in every case.
"""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from click.testing import CliRunner

from offloader.cli import main
from offloader.core.messages import TextBlock, ToolResultBlock
from workspaces import LocalWorkspace

_PAGE = Path(__file__).resolve().parent.parent / "docs" / "guides" / "cli.md"
_EXAMPLE = re.compile(r"<!-- json: ([\w ]+) -->\n```json\n(.*?)\n```", re.DOTALL)


def _documented() -> dict[str, Any]:
    return {name: json.loads(body) for name, body in _EXAMPLE.findall(_PAGE.read_text())}


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return type(value).__name__


def _conforms(
    doc: Any, actual: Any, where: str, *, exact: bool = False, nullable: frozenset[str] = frozenset()
) -> None:
    if isinstance(doc, dict):
        assert isinstance(actual, dict), f"{where}: {actual!r} is not an object"
        missing = set(doc) - set(actual)
        assert not missing, f"{where}: keys {sorted(missing)} missing"
        if exact:
            assert set(actual) == set(doc), f"{where}: undocumented keys {sorted(set(actual) - set(doc))}"
        for key in doc:
            _conforms(doc[key], actual[key], f"{where}.{key}", exact=exact, nullable=nullable)
    elif isinstance(doc, list):
        assert isinstance(actual, list), f"{where}: {actual!r} is not a list"
        for i, element in enumerate(actual):
            model = doc[i] if len(doc) == len(actual) else (doc[0] if doc else None)
            if model is not None:
                _conforms(model, element, f"{where}[{i}]", exact=exact, nullable=nullable)
    elif where.rsplit(".", 1)[-1] not in nullable:
        assert _kind(doc) == _kind(actual), f"{where}: {actual!r} is a {_kind(actual)}, documented {_kind(doc)}"


def _json(*args: str) -> Any:
    done = CliRunner().invoke(main, [args[0], "--json", *args[1:]], catch_exceptions=False)
    return json.loads(done.output)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return tmp_path / "ws"


def _fill(root: Path) -> None:
    async def go() -> None:
        async with LocalWorkspace(root) as ws:
            log = "\n".join(f"line {i}" for i in range(5000)) + "\nerror: needle\n"
            await ws.offload_tool_result("build", ToolResultBlock("t1", "bash", (TextBlock(log),)))

    anyio.run(go)


def test_every_command_documents_its_json() -> None:
    assert set(_documented()) == {"run", "ls", "ls SESSION", "stats", "show", "grep", "gc", "demo"}


@pytest.mark.parametrize(
    ("label", "script"),
    [
        ("small output", "print('hello')"),
        ("no output", "pass"),
        ("a failure", "import sys; print('x', file=sys.stderr); sys.exit(3)"),
        ("large output", "print('\\n'.join(f'line {i}' for i in range(20000)))"),
        ("binary output", "import sys; sys.stdout.buffer.write(bytes(range(256)) * 64)"),
    ],
)
def test_run_json_has_the_same_keys_in_every_case(root: Path, label: str, script: str) -> None:
    info = _json("run", "--workdir", str(root), "--", sys.executable, "-c", script)
    _conforms(_documented()["run"], info, f"run ({label})", exact=True, nullable=frozenset({"ref", "signal"}))


def test_ls_stats_grep_gc_keep_their_keys_in_an_empty_workspace(root: Path) -> None:
    anyio.run(_open_empty, root)
    doc = _documented()
    _conforms(doc["ls"], _json("ls", "--workdir", str(root)), "ls (empty)")
    _conforms(doc["stats"], _json("stats", "--workdir", str(root)), "stats (empty)")
    _conforms(doc["grep"], _json("grep", "--workdir", str(root), "nothing"), "grep (no match)")
    _conforms(doc["gc"], _json("gc", "--workdir", str(root), "--dry-run"), "gc (empty)")


async def _open_empty(root: Path) -> None:
    async with LocalWorkspace(root):
        pass


def test_every_command_matches_its_documented_keys_in_a_full_workspace(root: Path, tmp_path: Path) -> None:
    _fill(root)
    doc = _documented()
    _conforms(doc["ls"], _json("ls", "--workdir", str(root)), "ls")
    items = _json("ls", "--workdir", str(root), "build")
    _conforms(doc["ls SESSION"], items, "ls SESSION")
    _conforms(doc["stats"], _json("stats", "--workdir", str(root)), "stats")
    ref = items["items"][0]["ref"]
    _conforms(doc["show"], _json("show", ref, "--lines", "1:2"), "show")
    _conforms(doc["grep"], _json("grep", "--workdir", str(root), "needle", "--context", "1"), "grep")
    _conforms(doc["gc"], _json("gc", "--workdir", str(root), "--dry-run", "--max-age", "0s"), "gc")
    _conforms(doc["demo"], _json("demo", "--keep", str(tmp_path / "demo")), "demo")
