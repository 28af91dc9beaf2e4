"""Previews keep the signal: head, outcome lines, tail, with line numbers, within budget.

The failing outputs here come from running real tools (pytest, python) in a subprocess.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

import pytest

from offloader.signal import json_shape, make_preview, preview_over_budget, read_signal
from offloader.signal._scan import TEXT_WINDOW, newline_counter
from offloader.tokens import HeuristicCounter, TiktokenCounter
from tests.counter_support import FeedCounter

COUNTER = TiktokenCounter()
_NUMBERED = re.compile(r"^ *(\d+)\t(.*)$")
_OMITTED = re.compile(r"^\.\.\. \[lines? ([\d,]+)(?:-([\d,]+))? omitted\] \.\.\.$")


def numbered(preview: str) -> dict[int, str]:
    """Line number -> shown text, for the numbered lines of a preview."""
    out = {}
    for line in preview.splitlines():
        m = _NUMBERED.match(line)
        if m:
            out[int(m.group(1))] = m.group(2)
    return out


@pytest.fixture(scope="module")
def pytest_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    """Output of a real pytest run: 300 passing tests and one failing in the middle."""
    folder = tmp_path_factory.mktemp("failing_suite")
    tests = [f"def test_ok_{i}():\n    assert {i} == {i}\n" for i in range(300)]
    tests.insert(150, "def test_broken():\n    assert 1 + 1 == 3, 'arithmetic is broken'\n")
    (folder / "test_generated.py").write_text("\n".join(tests))
    run = subprocess.run(
        [sys.executable, "-m", "pytest", "-v", "-rf", "-p", "no:cacheprovider", "test_generated.py"],
        cwd=folder,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},  # third-party plugins only slow it down
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert run.returncode == 1
    return run.stdout + run.stderr


# ------------------------------------------------------------ real tool output


def test_failing_pytest_run_shows_its_failure_and_summary(pytest_output: str) -> None:
    preview = make_preview(pytest_output, counter=COUNTER, preview_tokens=500)
    assert "1 failed, 300 passed" in preview
    assert "FAILED test_generated.py::test_broken" in preview
    assert COUNTER.count(preview) <= 500


def test_failing_pytest_run_keeps_the_head_of_the_output(pytest_output: str) -> None:
    preview = make_preview(pytest_output, counter=COUNTER, preview_tokens=500)
    assert "test session starts" in preview.splitlines()[0]


def test_python_traceback_shows_exception_line() -> None:
    code = "for i in range(3000): print(f'step {i} fine')\nimport json\njson.loads('{broken')\n"
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert run.returncode == 1
    preview = make_preview(run.stdout + run.stderr, counter=COUNTER, preview_tokens=300)
    assert "Traceback (most recent call last):" in preview
    assert "json.decoder.JSONDecodeError" in preview


# ------------------------------------------------------------ big logs


def make_log(lines: int, failure_at: int | None = None, failure: str = "") -> str:
    rows = [f"2024-05-01 10:{i // 60 % 60:02d}:{i % 60:02d} INFO build step {i} done in 12ms" for i in range(lines)]
    if failure_at is not None:
        rows.insert(failure_at, failure)
    return "\n".join(rows) + "\n"


def test_five_mb_log_with_failure_at_the_end_shows_the_failure() -> None:
    log = make_log(100_000) + "linker: undefined reference to `main'\nBUILD FAILED: exit code 2\n"
    assert len(log) > 5_000_000
    preview = make_preview(log, counter=COUNTER, preview_tokens=1000)
    assert "BUILD FAILED: exit code 2" in preview
    assert "undefined reference" in preview


def test_five_mb_log_with_failure_in_the_middle_shows_the_failure() -> None:
    log = make_log(100_000, failure_at=45_000, failure="FATAL: disk quota exceeded on /var/build")
    preview = make_preview(log, counter=COUNTER, preview_tokens=1000)
    assert numbered(preview)[45_001] == "FATAL: disk quota exceeded on /var/build"


def test_five_mb_log_never_feeds_the_whole_text_to_the_tokenizer() -> None:
    log = make_log(100_000, failure_at=45_000, failure="ERROR: boom")
    counter = FeedCounter(COUNTER)
    make_preview(log, counter=counter, preview_tokens=1000)
    assert counter.largest < 50_000
    assert counter.fed < 500_000  # about the preview's own size a few times over, not 5 MB


def test_preview_fits_the_budget_for_several_sizes() -> None:
    log = make_log(20_000, failure_at=10_000, failure="Traceback (most recent call last):")
    for budget in (50, 200, 1000, 3000):
        for counter in (COUNTER, HeuristicCounter()):
            assert counter.count(make_preview(log, counter=counter, preview_tokens=budget)) <= budget


def test_numbered_lines_match_the_text() -> None:
    log = make_log(5_000, failure_at=2_500, failure="error: something went wrong")
    lines = log.splitlines()
    shown = numbered(make_preview(log, counter=COUNTER, preview_tokens=600))
    assert shown
    for lineno, text in shown.items():
        assert lines[lineno - 1] == text


@pytest.mark.parametrize("trailing_newline", [True, False])
def test_line_numbers_of_a_text_read_in_windows_match_the_text(trailing_newline: bool) -> None:
    # a long ASCII text is scanned in TEXT_WINDOW pieces; a line number counts from the nearer window edge
    rows = [f"step {i} ok" for i in range(400_000)]
    failures = ["ERROR: disk full", "FATAL: out of memory", "error: 'x' undeclared", "Segmentation fault"]
    placed = {1: failures[0], 90_000: failures[1], 90_001: failures[2], 399_998: failures[3]}
    for at, line in placed.items():
        rows[at] = line
    text = "\n".join(rows) + ("\n" if trailing_newline else "")
    assert len(text) > 3 * TEXT_WINDOW
    signal = read_signal(text)
    assert signal.lines == len(rows)
    assert sorted(u.lineno for u in signal.units if u.failure) == [at + 1 for at in sorted(placed)]
    for u in signal.units:
        assert text[u.start : u.end] == rows[u.lineno - 1]


def test_omitted_markers_name_exactly_the_missing_lines() -> None:
    log = make_log(5_000, failure_at=2_500, failure="error: something went wrong")
    total = len(log.splitlines())
    seen: list[int] = []
    for line in make_preview(log, counter=COUNTER, preview_tokens=600).splitlines():
        m, o = _NUMBERED.match(line), _OMITTED.match(line)
        if m:
            seen.append(int(m.group(1)))
        elif o:
            a = int(o.group(1).replace(",", ""))
            b = int((o.group(2) or o.group(1)).replace(",", ""))
            seen.extend(range(a, b + 1))
    assert seen == list(range(1, total + 1))


def test_text_within_budget_is_returned_unchanged() -> None:
    text = "line one\nline two\n"
    assert make_preview(text, counter=COUNTER, preview_tokens=100) is text


# ------------------------------------------------------------ long lines and UTF-8


def test_long_single_line_is_cut_on_a_character_and_says_so() -> None:
    text = "é🎉漢" * 400_000
    preview = make_preview(text, counter=COUNTER, preview_tokens=200)
    preview.encode("utf-8")  # strict: no half characters
    shown = numbered(preview)[1]
    piece, note = shown.split(" ... [line 1 cut: ", 1)
    assert text.startswith(piece)
    assert note.startswith("bytes 1-")
    assert COUNTER.count(preview) <= 200


def test_outcome_in_a_huge_line_is_shown_around_the_match() -> None:
    huge = "x" * 500_000 + " FATAL: out of memory in worker 7 " + "y" * 500_000
    text = "\n".join(["start"] * 50 + [huge] + ["end"] * 50)
    preview = make_preview(text, counter=COUNTER, preview_tokens=400)
    assert "FATAL: out of memory in worker 7" in preview
    assert "[line 51 cut: bytes" in preview


def test_a_cut_signal_line_keeps_its_end_where_the_record_says_what_happened() -> None:
    frames = "\\n".join(f"    at settle{i} (/srv/ledger/settle.js:{i}:7)" for i in range(40))
    record = f'{{"level":50,"job":"job-1742","err":{{"stack":"TypeError: no amount\\n{frames}"}},"msg":"job failed"}}'
    text = "\n".join([f'{{"level":30,"job":"job-{i}","msg":"job priced"}}' for i in range(3000)] + [record])
    text += "\n" + "\n".join(f'{{"level":30,"job":"job-{i}","msg":"job priced"}}' for i in range(3000, 6000))
    preview = make_preview(text, counter=COUNTER, preview_tokens=1000)
    shown = next(line for line in preview.splitlines() if '"level":50' in line)
    assert shown.startswith("  3001\t{") and '"msg":"job failed"}' in shown
    size = f"{len(record):,}"
    assert re.search(rf"cut: bytes 1-[0-9,]+ and [0-9,]+-{size} of {size}\]$", shown)  # which bytes, said


def test_a_long_rule_line_shows_its_start_so_the_header_under_it_fits() -> None:
    rule, header = "═" * 2000, "id  queue    job           attempts  error"
    rows = [
        f"{n:<4}refunds  refunds.{n:<5} {n % 5:<9} webhook endpoint answered {n * 37 % 1000} ms late"
        for n in range(3000)
    ]
    preview = make_preview("\n".join([rule, header, *rows]) + "\n", counter=COUNTER, preview_tokens=1000)
    first, second = preview.splitlines()[:2]
    assert first == f"     1\t{'═' * 40} ... [line 1 cut: bytes 1-120 of 6,000]"  # its shape, in 40 characters
    assert second == f"     2\t{header}"


def test_cut_of_multibyte_line_never_splits_a_character() -> None:
    line = "ошибка " * 50_000 + "ERROR: сбой " + "данные " * 50_000
    text = "\n".join(["ok"] * 10 + [line] + ["ok"] * 10)
    preview = make_preview(text, counter=COUNTER, preview_tokens=300)
    preview.encode("utf-8")
    assert "ERROR: сбой" in preview


# ------------------------------------------------------------ JSON


def test_json_lines_are_previewed_as_lines_not_as_the_first_records_document() -> None:
    records = [json.dumps({"level": 30, "job": f"job-{i}", "msg": "job priced"}) for i in range(6000)]
    records[3000] = json.dumps({"level": 50, "job": "job-3000", "msg": "job failed"})
    preview = make_preview("\n".join(records) + "\n", counter=COUNTER, preview_tokens=400)
    assert preview.startswith(f"     1\t{records[0]}\n")
    assert f"  3001\t{records[3000]}" in preview


def test_compact_json_is_pretty_printed_with_its_shape() -> None:
    items = [{"id": i, "name": f"item {i}", "status": "active", "tags": ["a", "b"]} for i in range(3000)]
    text = json.dumps({"items": items, "next_page": "abc", "total": 3000})
    preview = make_preview(text, counter=COUNTER, preview_tokens=400)
    first = preview.splitlines()[0]
    assert first.startswith("[JSON object, ")
    assert '"items": array, "next_page": "abc", "total": 3000' in first  # scalars after the array, verbatim
    assert '  "items": [' in preview
    assert COUNTER.count(preview) <= 400


def test_json_array_shape_names_its_length_and_item_keys() -> None:
    shape = json_shape([{"id": 1, "name": "a"}] * 150)
    assert shape == "JSON array of 150 items (object); first item keys: id, name"


def test_pretty_json_keeps_line_numbers_of_the_stored_text() -> None:
    text = json.dumps([{"id": i, "ok": True} for i in range(2000)], indent=2)
    preview = make_preview(text, counter=COUNTER, preview_tokens=300)
    lines = text.splitlines()
    assert preview.startswith("[JSON array, ") and "first item keys: id, ok]" in preview.splitlines()[0]
    for lineno, shown in numbered(preview).items():
        assert lines[lineno - 1] == shown


# ------------------------------------------------------------ arguments


@pytest.mark.parametrize("budget", [-1, 1.5, True])
def test_invalid_budget_is_rejected(budget: object) -> None:
    with pytest.raises(ValueError, match="preview_tokens"):
        make_preview("x", counter=COUNTER, preview_tokens=budget)  # type: ignore[arg-type]


def test_non_text_is_rejected() -> None:
    with pytest.raises(TypeError, match="str"):
        make_preview(b"x", counter=COUNTER, preview_tokens=10)  # type: ignore[arg-type]


def test_zero_budget_gives_an_empty_preview() -> None:
    assert make_preview("some text", counter=COUNTER, preview_tokens=0) == ""


@pytest.mark.parametrize("numpy", [True, False], ids=["numpy counts newlines", "bytes.count counts newlines"])
def test_a_long_ascii_text_previews_as_its_utf8_bytes_do(
    numpy: bool, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> None:
    """Over one scan window an ASCII str is read without being encoded whole: same preview, same signal."""
    if not numpy:
        monkeypatch.setitem(sys.modules, "numpy", None)  # import numpy now raises ImportError
    newline_counter.cache_clear()
    request.addfinalizer(newline_counter.cache_clear)
    assert newline_counter()(b"a\n\nb\n") == 3
    rows = [f"2024-05-01 INFO step {i} done in {i % 97} ms" for i in range(90_000)]
    rows[17_000] = "Traceback (most recent call last):"
    rows[17_001] = "ValueError: bad row 17001"
    rows[44_444] = "\x1b[31merror:\x1b[0m progress 10%\r progress 50%\r failed at 51%"
    rows[-3] = "warning: 2 deprecated calls"
    text = "\n".join(rows) + "\nFAILED: 1 error\n"
    assert len(text) > 2 * TEXT_WINDOW
    # the line that starts the second scan window is decisive too (windows end after the newline
    # that follows TEXT_WINDOW characters)
    edge = text.index("\n", TEXT_WINDOW) + 1
    end = text.index("\n", edge)
    text = text[:edge] + "fatal: lost the lock at the window edge" + text[end:]
    as_text = preview_over_budget(text, COUNTER, 800)
    assert as_text == preview_over_budget(text.encode(), COUNTER, 800)
    for line in ("ValueError: bad row 17001", "FAILED: 1 error", "fatal: lost the lock at the window edge"):
        assert line in as_text
    assert read_signal(text) == read_signal(text.encode())
