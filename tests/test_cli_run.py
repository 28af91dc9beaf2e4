"""`offload run` stores big output whole, prints a preview and reference, passes the exit code."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path


def _offload(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "offloader.cli", "run", "--workdir", str(tmp_path / "ws"), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_large_output_is_offloaded_whole_and_previewed(tmp_path: Path) -> None:
    done = _offload(tmp_path, "--", "seq", "1", "200000")
    assert done.returncode == 0
    ref = next(line.split(": ", 1)[1] for line in done.stdout.splitlines() if line.startswith("Full output: "))
    assert Path(ref).read_text().splitlines() == [str(i) for i in range(1, 200001)]
    assert len(done.stdout) < 20_000
    assert "     1\t1" in done.stdout and "200000\t200000" in done.stdout and "omitted" in done.stdout


def test_small_output_is_printed_in_full(tmp_path: Path) -> None:
    done = _offload(tmp_path, "--", "echo", "hello")
    assert done.returncode == 0 and done.stdout.strip() == "hello"
    assert not (tmp_path / "ws" / "sessions").exists()


def test_exit_code_passes_through(tmp_path: Path) -> None:
    done = _offload(tmp_path, "--", sys.executable, "-c", "import sys; print('x'); sys.exit(7)")
    assert done.returncode == 7 and "[exit code 7]" in done.stdout


def test_missing_command_exits_127(tmp_path: Path) -> None:
    done = _offload(tmp_path, "--", "definitely-not-a-command-xyz")
    assert done.returncode == 127 and "command not found" in done.stderr


def test_the_stored_file_orders_lines_as_completed_and_marks_stderr() -> None:
    """The format of offloader.core.streams, fed chunk by chunk as the pipes deliver them."""
    import io

    from offloader.cli._child import _MAX_PENDING, _Interleaver

    out = io.BytesIO()
    sink = _Interleaver(out)
    for stream, data in [("stdout", b"a1\npart"), ("stderr", b"e1\ne2"), ("stdout", b"ial\n"), ("stderr", b"-tail\n")]:
        sink.feed(stream, data)  # type: ignore[arg-type]
    sink.close()
    sink.finish()
    assert out.getvalue() == b"a1\n[stderr] e1\npartial\n[stderr] e2-tail\n"
    assert (sink.lines, sink.stderr_lines) == (4, 2)

    out = io.BytesIO()
    sink = _Interleaver(out)
    sink.feed("stderr", b"x" * (_MAX_PENDING + 10))  # too long to hold: written before its newline
    sink.feed("stdout", b"out\n")  # ends the long stderr line
    sink.feed("stderr", b"rest\nlast")
    sink.close()
    sink.finish()
    assert out.getvalue() == b"[stderr] " + b"x" * (_MAX_PENDING + 10) + b"\nout\n[stderr] rest\n[stderr] last"
    assert (sink.lines, sink.stderr_lines) == (4, 3)
