"""The ``offload`` CLI: run, ls, show, grep, stats, gc, demo -- text when piped, JSON on request."""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest
from click.testing import CliRunner, Result

from offloader.cli import main, parse_duration, parse_size
from offloader.core.messages import Message, TextBlock, ToolResultBlock
from workspaces import LocalWorkspace


def _cli(*args: str) -> Result:
    return CliRunner().invoke(main, list(args), catch_exceptions=False)


@pytest.fixture
def populated(tmp_path: Path) -> Path:
    """A workspace with two sessions: builds (2 results, one with a needle) and chat (context)."""
    root = tmp_path / "ws"

    async def fill() -> None:
        async with LocalWorkspace(root) as ws:
            log = "\n".join(f"line {i}" for i in range(1, 5001)) + "\nFATAL: disk quota exceeded\nbye"
            await ws.offload_tool_result("builds", ToolResultBlock("b1", "bash", (TextBlock(log),)))
            await ws.offload_tool_result("builds", ToolResultBlock("b2", "http_get", (TextBlock("{}" * 500),)))
            await ws.offload_context("chat", [Message("user", (TextBlock("hello"),))])

    anyio.run(fill)
    return root


# ------------------------------------------------------------ run


def test_run_preview_keeps_error_lines_from_the_middle(tmp_path: Path) -> None:
    script = "for i in range(40000):\n    print('ok', i)\n    if i == 20000: print('ERROR: boom in step', i)"
    done = _cli("run", "--workdir", str(tmp_path / "ws"), "--", sys.executable, "-c", script)
    assert done.exit_code == 0
    assert "ERROR: boom in step 20000" in done.output and "omitted" in done.output
    assert "exit code 0, 1 failure line]" in done.output


def test_run_keeps_stdout_and_stderr_apart(tmp_path: Path) -> None:
    script = "import sys\nfor i in range(3000):\n    print('out', i); print('err', i, file=sys.stderr)\n"
    done = _cli("run", "--workdir", str(tmp_path / "ws"), "--json", "--", sys.executable, "-c", script)
    info = json.loads(done.output)
    text = Path(info["ref"]).read_text()
    lines = text.splitlines()
    assert [x for x in lines if not x.startswith("[stderr] ")] == [f"out {i}" for i in range(3000)]
    assert [x for x in lines if x.startswith("[stderr] ")] == [f"[stderr] err {i}" for i in range(3000)]
    assert info["stderr_lines"] == 3000 and info["lines"] == 6000


def test_run_json_reports_exit_code_and_reference(tmp_path: Path) -> None:
    script = "import sys; print('x' * 100000); sys.exit(3)"
    done = _cli("run", "--workdir", str(tmp_path / "ws"), "--json", "--", sys.executable, "-c", script)
    info = json.loads(done.output)
    assert done.exit_code == 3 and info["exit_code"] == 3 and info["offloaded"] is True
    ledger = (tmp_path / "ws/sessions/cli/ledger.jsonl").read_text().splitlines()
    assert json.loads(ledger[-1])["ref"] == info["ref"] and json.loads(ledger[-1])["exit_code"] == 3


def test_run_leaves_no_temp_files(tmp_path: Path) -> None:
    _cli("run", "--workdir", str(tmp_path / "ws"), "--", "seq", "1", "100000")
    names = [p.name for p in (tmp_path / "ws").rglob("*")]
    assert not [n for n in names if n.startswith(".tmp-")]


def test_run_streams_large_output_to_disk_not_memory(tmp_path: Path) -> None:
    """120 MB of output; the offload process's peak RSS stays far below that."""
    probe = (
        "import resource, subprocess, sys\n"
        "code = subprocess.call([sys.executable, '-m', 'offloader.cli', 'run', '--workdir', sys.argv[1], '--',"
        " sys.executable, '-c', \"import sys\\nb = ('y' * 1023 + '\\\\n').encode()\\n"
        'for _ in range(120 * 1024): sys.stdout.buffer.write(b)"], stdout=subprocess.DEVNULL)\n'
        "print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, str(tmp_path / "ws")], capture_output=True, text=True, timeout=120, check=True
    )
    code, peak_kb = map(int, done.stdout.split())
    stored = next((tmp_path / "ws/sessions/cli").glob("tool_result-*.txt"))
    assert code == 0 and stored.stat().st_size == 120 * 1024 * 1024
    assert peak_kb < 60 * 1024, f"peak RSS {peak_kb} KB"
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss < 10**9  # this test process is unaffected


def test_run_rejects_a_url_workdir() -> None:
    done = CliRunner().invoke(main, ["run", "--workdir", "s3://bucket/x", "--", "echo", "hi"])
    assert done.exit_code == 2 and "local disk" in done.output


# ------------------------------------------------------------ ls, stats


def test_ls_lists_sessions_with_items_and_tokens(populated: Path) -> None:
    rows = json.loads(_cli("ls", "--workdir", str(populated), "--json").output)["sessions"]
    by = {r["session"]: r for r in rows}
    assert set(by) == {"builds", "chat"} and by["builds"]["items"] == 2 and by["chat"]["items"] == 0
    assert by["builds"]["tokens"] > 0


def test_ls_session_lists_items_with_tool_names(populated: Path) -> None:
    rows = json.loads(_cli("ls", "builds", "--workdir", str(populated), "--json").output)["items"]
    assert sorted(r["tool"] for r in rows) == ["bash", "http_get"]
    assert all(r["status"] == "offloaded" for r in rows)


def test_ls_of_an_unknown_session_fails_clearly(populated: Path) -> None:
    done = CliRunner().invoke(main, ["ls", "nope", "--workdir", str(populated)])
    assert done.exit_code == 1 and "no session 'nope'" in done.output


def test_piped_output_is_plain_text(populated: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "offloader.cli", "ls", "--workdir", str(populated)],
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    assert "builds" in done.stdout and "\x1b[" not in done.stdout and "┃" not in done.stdout


def test_stats_counts_items_tokens_and_offloads_per_session_and_tool(populated: Path) -> None:
    data = json.loads(_cli("stats", "--workdir", str(populated), "--json").output)
    ledger = [json.loads(x) for x in (populated / "sessions/builds/ledger.jsonl").read_text().splitlines()]
    assert data["totals"]["offloads"] == 2 and data["totals"]["context_messages"] == 1
    assert data["totals"]["tokens"] == sum(e["tokens"] for e in ledger)
    assert {t["tool"] for t in data["tools"]} == {"bash", "http_get"}
    assert data["torn_lines"] == []


def test_stats_reports_a_torn_final_context_line(populated: Path) -> None:
    with open(populated / "sessions/chat/context.jsonl", "ab") as f:
        f.write(b'{"role":"user","cont')
    data = json.loads(_cli("stats", "--workdir", str(populated), "--json").output)
    assert data["torn_lines"] == ["sessions/chat/context.jsonl"]


# ------------------------------------------------------------ show, grep


def test_show_reads_a_line_range(populated: Path) -> None:
    ref = str(populated / "sessions/builds/tool_result-b1.txt")
    done = _cli("show", ref, "--workdir", str(populated), "--lines", "10:12")
    assert "line 10" in done.output and "line 12" in done.output and "line 13" not in done.output


def test_show_infers_the_workdir_from_an_absolute_reference(populated: Path) -> None:
    ref = str(populated / "sessions/builds/tool_result-b1.txt")
    done = _cli("show", ref, "--grep", "FATAL", "--context", "1")
    assert "FATAL: disk quota exceeded" in done.output and "line 5000" in done.output


def test_show_rejects_a_malformed_range(populated: Path) -> None:
    done = CliRunner().invoke(main, ["show", "x", "--workdir", str(populated), "--lines", "ten"])
    assert done.exit_code == 2 and "A:B" in done.output


def test_grep_searches_every_session(populated: Path) -> None:
    data = json.loads(_cli("grep", "FATAL", "--workdir", str(populated), "--json").output)
    assert [(Path(m["ref"]).name, m["line"]) for m in data["matches"]] == [("tool_result-b1.txt", 5001)]


def test_grep_session_filter_excludes_other_sessions(populated: Path) -> None:
    done = _cli("grep", "hello", "--workdir", str(populated), "--session", "builds")
    assert "no matches" in done.output
    assert "hello" in _cli("grep", "hello", "--workdir", str(populated), "--session", "chat").output


# ------------------------------------------------------------ gc


def test_gc_dry_run_lists_but_keeps(populated: Path) -> None:
    old = time.time() - 30 * 86400
    for f in (populated / "sessions/builds").iterdir():
        os.utime(f, (old, old))
    data = json.loads(_cli("gc", "--workdir", str(populated), "--max-age", "7d", "--dry-run", "--json").output)
    assert data["dry_run"] and data["removed_files"] == 2  # the two items; the ledger stays to record it
    assert (populated / "sessions/builds/tool_result-b1.txt").exists()


def test_gc_removes_expired_sessions(populated: Path) -> None:
    old = time.time() - 30 * 86400
    for f in (populated / "sessions/builds").iterdir():
        os.utime(f, (old, old))
    done = _cli("gc", "--workdir", str(populated), "--max-age", "7d")
    assert "removed 2 files" in done.output
    listing = json.loads(_cli("ls", "--workdir", str(populated), "--json").output)["sessions"]
    rows = {r["session"]: r["items"] for r in listing}
    assert rows == {"builds": 0, "chat": 0}  # only the expired session's ledger is left, recording it


def test_gc_rejects_a_bad_duration(populated: Path) -> None:
    done = CliRunner().invoke(main, ["gc", "--workdir", str(populated), "--max-age", "soon"])
    assert done.exit_code == 2 and "not a duration" in done.output


def test_durations_and_sizes_parse() -> None:
    assert parse_duration("7d") == 7 * 86400 and parse_duration("90") == 90 and parse_duration("1.5h") == 5400
    assert parse_size("1G") == 1 << 30 and parse_size("500MB") == 500 << 20 and parse_size("10k") == 10240
    with pytest.raises(ValueError):
        parse_size("lots")


# ------------------------------------------------------------ demo


def test_demo_offloads_retrieves_and_compacts(tmp_path: Path) -> None:
    data = json.loads(_cli("demo", "--keep", str(tmp_path / "demo"), "--json").output)
    steps = data["steps"]
    assert len(steps) == 3 and all(s["after"] < s["before"] for s in steps)
    assert steps[1]["found"] is True
    assert (tmp_path / "demo/.offload/sessions/demo/context.jsonl").exists()


def test_commands_accept_an_fsspec_url() -> None:
    """ls, grep and gc work on a FsspecWorkspace (memory:// lives in this process, like CliRunner)."""
    from workspaces.fsspec import FsspecWorkspace

    url = f"memory://cli-{os.getpid()}-{time.time_ns()}"

    async def fill() -> None:
        async with FsspecWorkspace(url) as ws:
            await ws.offload_tool_result("remote", ToolResultBlock("r1", "bash", (TextBlock("needle here"),)))

    anyio.run(fill)
    assert json.loads(_cli("ls", "--workdir", url, "--json").output)["sessions"][0]["session"] == "remote"
    assert json.loads(_cli("grep", "needle", "--workdir", url, "--json").output)["matches"][0]["line"] == 1
    assert json.loads(_cli("gc", "--workdir", url, "--dry-run", "--json").output)["removed_files"] == 0


def test_grep_searches_content_not_ledgers(populated: Path) -> None:
    data = json.loads(_cli("grep", "http_get", "--workdir", str(populated), "--json").output)
    assert data["matches"] == []  # the tool name is only in ledger.jsonl
    assert json.loads(_cli("grep", "http_get", "--workdir", str(populated), "--glob", "ledger.jsonl", "--json").output)[
        "matches"
    ]


def test_file_preview_of_huge_output_keeps_head_signal_and_tail(tmp_path: Path) -> None:
    """``offload run`` previews the stored file memory-mapped, with true line numbers."""
    from offloader.cli.run_preview import preview_output

    path = tmp_path / "big.txt"
    with open(path, "w") as f:
        for i in range(1, 400_001):
            f.write("Traceback (most recent call last): boom\n" if i == 250_000 else f"step {i} ok\n")
    preview = preview_output(str(path), path.stat().st_size, 300)
    text = "\n".join(preview.body)
    assert preview.lines == 400_000 and preview.failure_lines == 1
    assert "     1\tstep 1 ok" in text and "250000\tTraceback" in text and "400000\tstep 400000 ok" in text
    assert len(text) < 300 * 4 * 1.5


def test_ls_and_stats_agree_when_the_same_content_is_offloaded_twice(tmp_path: Path) -> None:
    root = tmp_path / "ws"
    block = ToolResultBlock("same", "bash", (TextBlock("word " * 200_000),))

    async def fill() -> None:
        async with LocalWorkspace(root) as ws:
            first = await ws.offload_tool_result("s", block)
            assert await ws.offload_tool_result("s", block) == first  # one file, two offload events
            await ws.offload_tool_result("s", ToolResultBlock("other", "cat", (TextBlock("x" * 8000),)))

    anyio.run(fill)
    listed = json.loads(_cli("ls", "--workdir", str(root), "--json").output)["sessions"]
    items = json.loads(_cli("ls", "s", "--workdir", str(root), "--json").output)["items"]
    totals = json.loads(_cli("stats", "--workdir", str(root), "--json").output)["totals"]
    assert totals["items"] == len(items) == listed[0]["items"] == 2
    assert totals["tokens"] == sum(i["tokens"] for i in items) == listed[0]["tokens"]
    assert totals["bytes"] == listed[0]["bytes"]
    assert totals["offloads"] == 3


def test_python_dash_m_offloader_runs_the_cli_and_reports_the_one_version(tmp_path: Path) -> None:
    import offloader

    done = subprocess.run(
        [sys.executable, "-m", "offloader", "--version"], capture_output=True, text=True, timeout=60, check=True
    )
    assert done.stdout.strip() == f"offload, version {offloader.__version__}"
    pyproject = (Path(__file__).parent.parent / "pyproject.toml").read_text()
    assert 'dynamic = ["version"]' in pyproject and "\nversion =" not in pyproject  # no second copy


def test_verbose_shows_which_tokenizer_counts(tmp_path: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "offloader", "-v", "run", "--workdir", str(tmp_path / "ws"), "--", "echo", "hi"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0 and done.stdout.strip() == "hi"
    assert "token counter:" in done.stderr
    quiet = subprocess.run(
        [sys.executable, "-m", "offloader", "run", "--workdir", str(tmp_path / "ws"), "--", "echo", "hi"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert "token counter:" not in quiet.stderr


def test_ls_stats_and_gc_report_the_same_items_and_bytes(populated: Path) -> None:
    ref = str(populated / "sessions/builds/tool_result-b1.txt")
    assert _cli("show", ref, "--lines", "100:120").exit_code == 0  # builds the item's .lineidx sidecar
    listed = json.loads(_cli("ls", "--workdir", str(populated), "--json").output)["sessions"]
    stats = json.loads(_cli("stats", "--workdir", str(populated), "--json").output)["totals"]
    report = json.loads(_cli("gc", "--workdir", str(populated), "--dry-run", "--json").output)
    on_disk = [p for p in (populated / "sessions").rglob("*") if p.is_file()]
    assert stats["items"] == sum(s["items"] for s in listed) == 2
    assert stats["bytes"] == sum(s["bytes"] for s in listed) == sum(p.stat().st_size for p in on_disk)
    assert report["removed_files"] == 0 and report["kept_bytes"] == stats["bytes"] + stats["media_bytes"]
    items = json.loads(_cli("ls", "builds", "--workdir", str(populated), "--json").output)["items"]
    b1 = next(i for i in items if i["name"] == "tool_result-b1.txt")
    assert (
        b1["bytes"]
        == (populated / "sessions/builds/tool_result-b1.txt").stat().st_size
        + (populated / "sessions/builds/tool_result-b1.txt.lineidx").stat().st_size
    )
