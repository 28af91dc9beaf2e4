"""Every name the CLI prints is accepted back; ambiguous names list candidates; reads create nothing."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner, Result

from offloader.cli import main
from offloader.core.messages import TextBlock, ToolResultBlock
from offloader.core.naming import safe_name
from workspaces import LocalWorkspace

_LOG = "\n".join(f"line {i}" for i in range(1, 3001)) + "\nFATAL: needle in the etc session\n"


def _cli(*args: str, env: dict[str, str] | None = None) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False, env=env)


@pytest.fixture
def ws(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Sessions ``build`` and ``/etc`` (an encoded folder); the same tool id in both."""
    root = tmp_path / ".offload"

    async def fill() -> None:
        async with LocalWorkspace(root) as w:
            await w.offload_tool_result("build", ToolResultBlock("t1", "bash", (TextBlock("x\n" * 5000),)))
            await w.offload_tool_result("/etc", ToolResultBlock("t1", "bash", (TextBlock(_LOG),)))
            await w.offload_tool_result("/etc", ToolResultBlock("t2", "cat", (TextBlock("y\n" * 4000),)))

    anyio.run(fill)
    monkeypatch.chdir(tmp_path)
    return root


def _items(root: Path, session: str) -> list[dict[str, object]]:
    done = _cli("ls", "--workdir", str(root), "--json", session)
    assert done.exit_code == 0, done.output
    return list(json.loads(done.output)["items"])


def test_every_session_name_ls_prints_is_accepted_back(ws: Path) -> None:
    listed = json.loads(_cli("ls", "--workdir", str(ws), "--json").output)["sessions"]
    names = sorted(s["session"] for s in listed)
    encoded = safe_name("/etc")
    assert names == sorted(["build", encoded]) and encoded.startswith("etc-")
    for name in names:
        assert _items(ws, name), name
    assert [i["name"] for i in _items(ws, "/etc")] == [i["name"] for i in _items(ws, encoded)]  # the id works too
    assert _items(ws, f"{ws}/sessions/{encoded}") == _items(ws, encoded)  # and a path to the folder


def test_grep_session_takes_the_printed_name_and_searches_that_folder(ws: Path) -> None:
    encoded = safe_name("/etc")
    done = _cli("grep", "--workdir", str(ws), "--session", encoded, "--json", "FATAL")
    matches = json.loads(done.output)["matches"]
    assert [m["text"] for m in matches] == ["FATAL: needle in the etc session"]
    assert f"/sessions/{encoded}/" in matches[0]["ref"]
    missing = _cli("grep", "--workdir", str(ws), "--session", "nope", "FATAL")
    assert missing.exit_code != 0 and "no session 'nope'" in missing.output and "build" in missing.output


def test_show_accepts_item_names_and_references_in_every_printed_form(ws: Path) -> None:
    encoded = safe_name("/etc")
    item = next(i for i in _items(ws, encoded) if i["tool"] == "cat")
    name, ref = str(item["name"]), str(item["ref"])
    assert ref.startswith(str(ws)) and ref.endswith(name)
    rel_to_cwd = f".offload/sessions/{encoded}/{name}"
    forms = [ref, rel_to_cwd, f"./{rel_to_cwd}", f"sessions/{encoded}/{name}", name]
    for form in forms:
        done = _cli("show", "--json", "--lines", "1:2", form)
        assert done.exit_code == 0, (form, done.output)
        info = json.loads(done.output)
        assert info["ref"] == ref and "y" in info["text"], form


def test_an_ambiguous_file_name_lists_the_candidates(ws: Path) -> None:
    both = [str(i["name"]) for i in _items(ws, "build")]
    assert len(both) == 1
    done = _cli("show", both[0])  # the same tool id was offloaded in both sessions
    assert done.exit_code != 0
    assert "names 2 files" in done.output and "/sessions/build/" in done.output
    assert f"/sessions/{safe_name('/etc')}/" in done.output
    only = _cli("show", "--session", "build", "--lines", "1:1", both[0])
    assert only.exit_code == 0 and "x" in only.output


def test_an_ambiguous_session_name_lists_the_candidates(ws: Path) -> None:
    encoded = safe_name("/etc")

    async def twin() -> None:  # a session whose *id* is the printed folder name of another
        async with LocalWorkspace(ws) as w:
            await w.offload_tool_result(encoded, ToolResultBlock("t9", "bash", (TextBlock("z\n" * 4000),)))

    anyio.run(twin)
    done = _cli("ls", "--workdir", str(ws), encoded)
    assert done.exit_code != 0 and "ambiguous" in done.output
    assert encoded in done.output and safe_name(encoded) in done.output
    assert _items(ws, safe_name(encoded))  # the folder name of the second still works


def test_show_tells_a_person_to_use_lines(ws: Path) -> None:
    done = _cli("show", "--workdir", str(ws), "--session", "build", str(_items(ws, "build")[0]["name"]))
    assert done.exit_code == 0
    assert "Read on with --lines " in done.output and "line_range" not in done.output


def test_an_unknown_reference_names_the_closest_files(ws: Path) -> None:
    name = str(_items(ws, "build")[0]["name"])
    done = _cli("show", "--workdir", str(ws), f"sessions/build/{name[:-5]}X.txt")
    assert done.exit_code != 0 and "nothing is stored at" in done.output and "did you mean" in done.output


def test_gc_session_accepts_the_id_and_the_printed_folder_name(ws: Path) -> None:
    encoded = safe_name("/etc")
    for name in ("build", "/etc", encoded):
        done = _cli("gc", "--workdir", str(ws), "--session", name, "--dry-run", "--max-age", "0s", "--temp-grace", "0s")
        assert done.exit_code == 0, done.output
        report = json.loads(_cli("gc", "--workdir", str(ws), "--session", name, "--dry-run", "--json").output)
        assert report["scanned"] == len(list((ws / "sessions" / (encoded if name != "build" else "build")).iterdir()))


@pytest.mark.parametrize(
    "args",
    [["ls"], ["ls", "build"], ["stats"], ["grep", "x"], ["show", "sessions/a/b.txt"], ["gc", "--max-age", "1d"]],
)
def test_read_only_commands_on_a_missing_workdir_fail_clearly_and_create_nothing(
    tmp_path: Path, args: list[str]
) -> None:
    missing = tmp_path / "typo" / ".offload"
    done = _cli("--workdir", str(missing), *args)
    assert done.exit_code != 0 and "no workspace at" in done.output and "does not exist" in done.output
    assert not (tmp_path / "typo").exists()
    via_env = _cli(*args, env={"OFFLOAD_WORKDIR": str(missing)})
    assert via_env.exit_code != 0 and "no workspace at" in via_env.output
    assert not (tmp_path / "typo").exists()


def test_read_only_commands_on_an_existing_workdir_create_nothing(ws: Path) -> None:
    before = sorted(p.relative_to(ws) for p in ws.rglob("*"))
    name = str(_items(ws, "build")[0]["name"])
    for args in (["ls"], ["stats"], ["grep", "needle"], ["ls", "build"], ["gc", "--dry-run", "--max-age", "1s"]):
        assert _cli("--workdir", str(ws), *args).exit_code == 0, args
    assert _cli("--workdir", str(ws), "show", "--session", "build", name, "--grep", "x").exit_code == 0
    after = sorted(p.relative_to(ws) for p in ws.rglob("*") if not p.name.endswith(".lineidx"))
    assert after == before
