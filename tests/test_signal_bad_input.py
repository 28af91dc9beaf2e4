"""The signal engine on bad input: binary output, huge lines, CR/CRLF, terminal escapes."""

from __future__ import annotations

from pathlib import Path

import pytest

from offloader import ContextOffloader
from offloader.signal import make_preview, preview_file, preview_over_budget, read_signal
from offloader.tokens import TiktokenCounter
from workspaces import LocalWorkspace

COUNTER = TiktokenCounter()


def test_nul_bytes_are_previewed_as_binary_never_copied() -> None:
    blob = bytes(range(256)) * 4000  # NUL bytes, invalid UTF-8, every control character
    preview = preview_over_budget(blob, COUNTER, 300)
    assert preview.startswith(f"[binary output: {len(blob):,} bytes (NUL byte at offset 0)")
    assert "00000000  00 01 02 03" in preview and "\x00" not in preview and "\x1b" not in preview
    assert COUNTER.count(preview) <= 300
    assert read_signal(blob).binary is not None and not read_signal(blob).failing


def test_invalid_utf8_without_nul_is_binary_too() -> None:
    blob = b"\xff\xfe\xc3\x28" * 50_000
    preview = preview_over_budget(blob, COUNTER, 200)
    assert preview.startswith("[binary output: 200,000 bytes (invalid UTF-8 at offset 0)")
    preview.encode("utf-8")  # strict: only valid text


def test_a_latin1_log_is_previewed_as_text_with_its_signal() -> None:
    lines = [f"2026-01-01 12:00:{i % 60:02d} INFO exported r\xe9sum\xe9 {i} for caf\xe9" for i in range(20_000)]
    lines[9_000] = "2026-01-01 12:00:00 ERROR could not open caf\xe9.db: disk I/O error"
    blob = "\n".join(lines).encode("latin-1")  # every line holds bytes that are not UTF-8
    preview = preview_over_budget(blob, COUNTER, 400)
    assert not preview.startswith("[binary output")
    assert "  9001\t2026-01-01 12:00:00 ERROR could not open caf\ufffd.db: disk I/O error" in preview
    assert read_signal(blob).binary is None and read_signal(blob).failing
    assert COUNTER.count(preview) <= 400


def test_compressed_bytes_are_binary_even_without_nul_bytes() -> None:
    import random
    import zlib

    noise = random.Random(7).randbytes(300_000)
    blob = zlib.compress(noise).replace(b"\0", b"\1")  # about 10 % control bytes, like any random bytes
    assert preview_over_budget(blob, COUNTER, 200).startswith(f"[binary output: {len(blob):,} bytes (invalid UTF-8")


def test_a_str_with_nul_characters_is_binary() -> None:
    preview = make_preview("\x00\x01garbage" * 50_000, counter=COUNTER, preview_tokens=200)
    assert preview.startswith("[binary output:") and "\x00" not in preview


def _build_log(stray: str) -> str:
    lines = [f"transforming src/features/module_{i}.jsx ({i % 40} ms)" for i in range(900)]
    lines[200] = stray
    lines[830] = "[UNRESOLVED_IMPORT] Could not resolve './refund-rules.js' in src/refunds-api.js"
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "stray",
    [
        "  filter: { id: /^\x00@vite\\/wasm-helper\\.js$/ }",  # a bundler's virtual-module prefix in a debug dump
        "\x00" * 4096 + "2026-01-01 12:00:00 INFO restarted after a crash",  # a log's NUL padding
    ],
)
def test_a_stray_nul_in_a_text_output_does_not_make_it_binary(stray: str) -> None:
    text = _build_log(stray)
    preview = make_preview(text, counter=COUNTER, preview_tokens=400)
    assert not preview.startswith("[binary output")
    assert "   831\t[UNRESOLVED_IMPORT] Could not resolve './refund-rules.js'" in preview
    assert "\x00" not in preview
    assert read_signal(text.encode()).binary is None


def test_nul_bytes_spread_over_many_lines_or_runs_are_binary() -> None:
    assert read_signal("hello\n".encode("utf-16-le") * 2000).binary is not None  # UTF-16 text
    assert read_signal(b"x\x00y\x00z " * 3000).binary is not None  # one line, NULs everywhere
    lines = [f"row {i}" + ("\x00" if i % 20 == 0 else "") for i in range(2000)]
    assert read_signal("\n".join(lines).encode()).binary is not None  # one line in twenty


def test_a_few_bad_bytes_in_a_text_log_do_not_make_it_binary() -> None:
    lines = [f"step {i} ok" for i in range(20_000)]
    lines[100] = "weird byte \udcff here"  # one undecodable byte, as surrogateescape keeps it
    lines[15_000] = "ERROR: checksum mismatch in block 7"
    text = "\n".join(lines)
    preview = make_preview(text, counter=COUNTER, preview_tokens=400)
    assert " 15001\tERROR: checksum mismatch in block 7" in preview


def test_a_500_kb_line_is_cut_around_its_signal() -> None:
    filler = "x" * 250_000
    text = "start\n" + filler + " ERROR: disk quota exceeded for /var/data " + filler + "\nend\n"
    preview = make_preview(text, counter=COUNTER, preview_tokens=400)
    assert "ERROR: disk quota exceeded for /var/data" in preview
    assert "[line 2 cut: bytes " in preview and "of 500,042]" in preview
    assert COUNTER.count(preview) <= 400


def test_crlf_lines_show_no_carriage_returns() -> None:
    text = "".join(f"row {i} ok\r\n" for i in range(10_000)) + "FAILED: 2 rows rejected\r\n"
    preview = make_preview(text, counter=COUNTER, preview_tokens=300)
    assert "\r" not in preview
    assert " 10001\tFAILED: 2 rows rejected" in preview
    assert read_signal(text).failing


def test_a_carriage_return_progress_bar_shows_its_last_state_or_its_signal() -> None:
    bar = "\r".join(f"downloading {p}%" for p in range(101))
    broken = "\r".join([*(f"copy {p}%" for p in range(50)), "ERROR: connection reset at 50%", "copy 51%"])
    text = "\n".join([*(f"file {i} done" for i in range(8000)), bar, broken, "finished"])
    preview = make_preview(text, counter=COUNTER, preview_tokens=300)
    assert "  8001\tdownloading 100% ... [line 8,001: one carriage-return state" in preview  # as on a terminal
    assert "  8002\tERROR: connection reset at 50%" in preview  # the state holding the signal
    assert "\r" not in preview


@pytest.mark.anyio
async def test_ansi_escapes_are_stripped_in_the_preview_and_kept_in_the_stored_file(tmp_path: Path) -> None:
    lines = [f"\x1b[32mPASS\x1b[0m test_{i}" for i in range(5000)]
    lines[2500] = "\x1b[1;31mFAIL\x1b[0m test_payment: \x1b[33mexpected 200, got 502\x1b[0m"
    text = "\n".join(lines)
    async with LocalWorkspace(tmp_path / "ws") as ws:
        offloader = ContextOffloader(ws, counter=COUNTER)
        out = await offloader.process_tool_result("s", {"toolUseId": "t1", "content": [{"text": text}]})
        shown = out["content"][0]["text"]
        assert "FAIL test_payment: expected 200, got 502" in shown and "\x1b" not in shown
        stored = next((tmp_path / "ws" / "sessions" / "s").glob("tool_result-t1*.txt")).read_text()
        assert stored == text  # the escapes are kept


@pytest.mark.parametrize(
    "escape",
    ["\x1b(B", "\x1b)0", "\x1b7", "\x1b8", "\x1b=", "\x1b>", "\x1bc", "\x1b#8"],
    ids=["charset-g0", "charset-g1", "save-cursor", "restore-cursor", "keypad-app", "keypad-num", "reset", "align"],
)
def test_short_escape_sequences_are_stripped_in_the_preview(escape: str) -> None:
    """``ESC ( B`` is what ``tput sgr0`` and Rust's test runner write after a coloured word."""
    lines = [f"test tests::settles_{i} ... \x1b[32mok\x1b(B\x1b[m" for i in range(3000)]
    lines[1500] = f"test result: \x1b[31mFAILED{escape}\x1b[m. 30 passed; 1 failed; 0 ignored"
    preview = make_preview("\n".join(lines) + "\n", counter=COUNTER, preview_tokens=500)
    assert "test result: FAILED. 30 passed; 1 failed" in preview and "\x1b" not in preview


def test_a_file_preview_maps_the_file_and_keeps_stderr_marks(tmp_path: Path) -> None:
    path = tmp_path / "out.txt"
    rows = [f"compiling unit {i}" for i in range(30_000)]
    rows[12_000] = "[stderr] ld: cannot find -lledger"
    rows[12_001] = "[stderr] collect2: ld returned 1 exit status"
    path.write_text("\n".join(rows) + "\n")
    text, signal = preview_file(path, COUNTER, 400, stderr_mark=b"[stderr] ")
    assert " 12001\t[stderr] ld: cannot find -lledger" in text
    assert " 12002\t[stderr] collect2: ld returned 1 exit status" in text
    assert signal.lines == 30_000 and signal.failing


def test_previews_built_in_several_threads_at_once_all_keep_their_signal() -> None:
    """Each worker thread scans with its own Hyperscan scratch (a shared one fails when in use)."""
    import threading

    texts = [
        "\n".join(f"job {k} step {i} ok" for i in range(60_000)) + f"\nERROR: job {k} lost its lease\n"
        for k in range(6)
    ]
    previews: dict[int, str] = {}
    errors: list[BaseException] = []

    def work(k: int) -> None:
        try:
            previews[k] = preview_over_budget(texts[k], COUNTER, 300)
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    assert all(f"ERROR: job {k} lost its lease" in previews[k] for k in range(6))
