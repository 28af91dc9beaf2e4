"""Every code snippet in README.md and docs/ runs, or states why it cannot run offline.

The rules (also in docs/contributing.md):

* every ```python block runs; the blocks of one page run in order in one namespace,
  in a fresh temporary working directory, so a later block may use an earlier one's names;
  top-level ``await`` is allowed (each such block runs on its own event loop);
* an HTML comment right before a fence changes that:
  ``<!-- snippet: skip REASON -->`` does not run it (REASON is required and shown in the
  test report); ``<!-- snippet: setup CODE -->`` runs the hidden CODE first, on the same event
  loop (fixtures such as a ``tool_result``, an open workspace or a running S3 server;
  ``tests/docs_support.py`` has helpers; register undo steps in ``cleanups``);
* ```json blocks must parse;
* shell blocks (```bash, ```sh, ```shell, ```console) are commands and transcripts: each is
  checked by a test (the ``offload demo`` transcript) or carries a skip marker saying why not;
* the ``offload demo`` transcript on the getting-started page and the token table in the
  README are what ``offload demo`` prints.
"""

from __future__ import annotations

import ast
import inspect
import json
import os
import re
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

_FENCE = re.compile(r"^(\s*)(```+|~~~+)\s*([\w+-]*)")
_MARKER = re.compile(r"<!--\s*snippet:\s*(skip|setup)\b(.*?)-->\s*$", re.S)
#: A skip reason must say something: at least this many words.
_MIN_REASON_WORDS = 3
#: Demo numbers that depend on the temporary folder's name (it is part of every reference,
#: and the references are counted): the preview and the compacted conversation.
_PATH_DEPENDENT_TOLERANCE = 8


@dataclass
class Snippet:
    page: Path
    line: int
    lang: str
    code: str
    skip: str | None = None
    setup: str | None = None

    @property
    def where(self) -> str:
        return f"{self.page.relative_to(ROOT)}:{self.line}"


def parse(page: Path) -> list[Snippet]:
    """The fenced blocks of a page, each with the marker comment that precedes it (if any)."""
    lines = page.read_text(encoding="utf-8").splitlines()
    out: list[Snippet] = []
    i = 0
    while i < len(lines):
        m = _FENCE.match(lines[i])
        if not m:
            i += 1
            continue
        indent, fence, lang = m.groups()
        start = i
        body: list[str] = []
        i += 1
        while i < len(lines) and not lines[i].strip().startswith(fence):
            body.append(lines[i][len(indent) :] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        snippet = Snippet(page, start + 1, lang.lower(), "\n".join(body) + "\n")
        _attach_marker(snippet, lines, start)
        out.append(snippet)
    return out


def _attach_marker(snippet: Snippet, lines: list[str], fence_line: int) -> None:
    j = fence_line - 1
    while j >= 0 and not lines[j].strip():
        j -= 1
    if j < 0 or not lines[j].rstrip().endswith("-->"):
        return
    k = j
    while k >= 0 and "<!--" not in lines[k]:
        k -= 1
    m = _MARKER.search("\n".join(lines[k : j + 1]))
    if not m:
        return
    kind, text = m.group(1), m.group(2)
    if kind == "skip":
        snippet.skip = " ".join(text.split())
    else:
        snippet.setup = inspect.cleandoc("\n" + text)


def _all() -> list[Snippet]:
    return [s for page in PAGES for s in parse(page)]


def _python_pages() -> list[Path]:
    return [p for p in PAGES if any(s.lang in ("python", "py") for s in parse(p))]


def _run(code: str, namespace: dict[str, Any], filename: str) -> None:
    compiled = compile(code, filename, "exec", flags=ast.PyCF_ALLOW_TOP_LEVEL_AWAIT)
    if compiled.co_flags & inspect.CO_COROUTINE:

        async def main() -> None:
            await eval(compiled, namespace)

        anyio.run(main)
    else:
        exec(compiled, namespace)


@pytest.mark.parametrize("page", _python_pages(), ids=lambda p: str(p.relative_to(ROOT)))
def test_python_snippets_run(page: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    cleanups: list[Callable[[], Any]] = []
    namespace: dict[str, Any] = {"__name__": "__docs__", "cleanups": cleanups}
    skipped = []
    try:
        for snippet in parse(page):
            if snippet.lang not in ("python", "py"):
                continue
            if snippet.skip is not None:
                skipped.append(f"{snippet.where}: {snippet.skip}")
                continue
            # the setup runs with the snippet, on the same event loop (it may open a workspace)
            code = f"{snippet.setup}\n{snippet.code}" if snippet.setup else snippet.code
            try:
                _run(code, namespace, snippet.where)
            except pytest.skip.Exception:
                raise
            except BaseException as exc:
                raise AssertionError(f"the snippet at {snippet.where} failed: {exc!r}\n{snippet.code}") from exc
    finally:
        for cleanup in reversed(cleanups):
            cleanup()
    for line in skipped:
        print("not run:", line)


def test_every_skip_states_a_reason() -> None:
    vague = [s.where for s in _all() if s.skip is not None and len(s.skip.split()) < _MIN_REASON_WORDS]
    assert not vague, f"snippets skipped without a reason: {vague}"


def test_markers_are_recognised() -> None:
    """A misspelt marker would silently run or skip nothing: every snippet comment must parse."""
    bad = []
    for page in PAGES:
        for n, line in enumerate(page.read_text(encoding="utf-8").splitlines(), 1):
            if "<!--" in line and "snippet" in line and not re.search(r"<!--\s*snippet:\s*(skip|setup)\b", line):
                bad.append(f"{page.relative_to(ROOT)}:{n}")
    assert not bad, bad


#: Fence languages whose blocks are shell commands or transcripts.
_SHELL = frozenset({"bash", "sh", "shell", "console"})


def _checked_elsewhere(snippet: Snippet) -> bool:
    """The one shell block a test compares with a real run: the ``offload demo`` transcript."""
    return snippet.lang == "console" and snippet.code.startswith("$ offload demo\n")


def test_every_shell_snippet_is_checked_or_says_why_not() -> None:
    unmarked = [s.where for s in _all() if s.lang in _SHELL and s.skip is None and not _checked_elsewhere(s)]
    assert not unmarked, f"shell snippets neither checked by a test nor marked with a reason: {unmarked}"


def test_json_snippets_parse() -> None:
    for snippet in _all():
        if snippet.lang == "json" and snippet.skip is None:
            try:
                json.loads(snippet.code)
            except ValueError as exc:
                raise AssertionError(f"{snippet.where}: {exc}") from exc


def test_snippet_count() -> None:
    """Guard against the extractor silently finding nothing."""
    python = [s for s in _all() if s.lang in ("python", "py")]
    assert len(python) >= 10
    assert sum(s.skip is None for s in python) >= len(python) // 2


# ---------------------------------------------------------------- the demo transcript


def _normalise(text: str) -> str:
    return re.sub(r"/\S*?offload-demo-[A-Za-z0-9_]+", "/tmp/offload-demo-...", text)


def _numbers(line: str) -> list[int]:
    return [int(n.replace(",", "")) for n in re.findall(r"\d[\d,]*", line)]


def _same(shown: str, real: str, where: str) -> None:
    """Lines equal, except that a number may differ by the path-dependent tolerance."""
    shown_lines, real_lines = shown.strip("\n").splitlines(), real.strip("\n").splitlines()
    assert len(shown_lines) == len(real_lines), f"{where}: {len(shown_lines)} lines shown, demo prints:\n{real}"
    for a, b in zip(shown_lines, real_lines, strict=True):
        if a == b:
            continue
        assert re.sub(r"\d[\d,]*", "N", a) == re.sub(r"\d[\d,]*", "N", b), f"{where}:\n{a}\n!=\n{b}"
        for x, y in zip(_numbers(a), _numbers(b), strict=True):
            assert abs(x - y) <= _PATH_DEPENDENT_TOLERANCE, f"{where}: {a!r} vs the demo's {b!r}"


@pytest.fixture(scope="module")
def demo_output(tmp_path_factory: pytest.TempPathFactory) -> str:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "COLUMNS": "200"}
    proc = subprocess.run(
        [sys.executable, "-m", "offloader", "demo"],
        cwd=tmp_path_factory.mktemp("demo"),
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    return _normalise(proc.stdout)


def test_getting_started_demo_transcript_is_what_the_demo_prints(demo_output: str) -> None:
    page = ROOT / "docs" / "getting-started.md"
    shown = [s for s in parse(page) if s.lang == "console" and s.code.startswith("$ offload demo\n")]
    assert len(shown) == 1
    _same(shown[0].code.split("\n", 1)[1], demo_output, shown[0].where)


def test_readme_demo_table_is_what_the_demo_prints(demo_output: str) -> None:
    table = demo_output[demo_output.index("Tokens in the agent's context") :]
    shown = [s for s in parse(ROOT / "README.md") if s.code.startswith("Tokens in the agent's context")]
    assert len(shown) == 1
    _same(shown[0].code, table, shown[0].where)


# ---------------------------------------------------------------- the repository stands on its own

_REPO_PATH = re.compile(
    r"\b(?:tests|examples|benchmarks|workspaces|offloader|docs|\.ci)/[\w./-]+\.(?:py|json|sh|md|yml|svg)\b"
)
#: A Markdown file named without a folder (``README.md``, ``CHANGELOG.md``).
_TOP_LEVEL_PAGE = re.compile(r"(?<![\w./-])[A-Z][\w-]*\.md\b")
#: A relative path that climbs out of its folder (``../x``).
_PARENT_LINK = re.compile(r"(?:\.\./)+[\w./-]*")
#: Paths a command writes (the text says which); they need not be committed.
_WRITTEN_BY_A_RUN = {"benchmarks/results/bench_offload.json"}


def test_every_file_the_docs_name_is_in_the_repository() -> None:
    missing = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for path in sorted(set(_REPO_PATH.findall(text)) - _WRITTEN_BY_A_RUN):
            if not (ROOT / path).exists():
                missing.append(f"{page.relative_to(ROOT)}: {path}")
        for name in sorted(set(_TOP_LEVEL_PAGE.findall(text))):  # a page named bare must be one of ours
            if not (ROOT / name).exists() and not list(ROOT.glob(f"docs/**/{name}")):
                missing.append(f"{page.relative_to(ROOT)}: {name}")
        for link in sorted(set(_PARENT_LINK.findall(text))):  # nothing above the repository's root
            if not (page.parent / link).resolve().is_relative_to(ROOT):
                missing.append(f"{page.relative_to(ROOT)}: {link} leaves the repository")
    assert not missing, missing


def test_readme_fits_on_a_screen() -> None:
    lines = (ROOT / "README.md").read_text(encoding="utf-8").count("\n")
    assert lines <= 200, f"README.md has {lines} lines; move detail into docs/"


# ---------------------------------------------------------------- figures drawn from the real code


def test_text_figures_are_what_the_code_draws(tmp_path: Path) -> None:
    """docs/figures/{layout,preview}.svg match a fresh drawing (run ``python docs/gen_figures.py``)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("gen_figures", ROOT / "docs" / "gen_figures.py")
    assert spec is not None and spec.loader is not None
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    stale = []
    for name, draw in (("layout.svg", gen.layout_figure), ("preview.svg", gen.preview_figure)):
        fresh = draw(tmp_path / name).read_text(encoding="utf-8")
        if fresh != (ROOT / "docs" / "figures" / name).read_text(encoding="utf-8"):
            stale.append(name)
    assert not stale, f"docs/figures/{stale} are stale: run `python docs/gen_figures.py` and commit them"


_DOTTED = re.compile(r"`((?:offloader|workspaces)(?:\.[A-Za-z_]\w*)+)(\()?")


def _resolves(dotted: str) -> bool:
    import importlib

    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj: Any = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        try:
            for attr in parts[i:]:
                obj = getattr(obj, attr)
        except AttributeError:
            return False
        return True
    return False


def test_every_module_path_the_docs_name_resolves() -> None:
    """`offloader.x.y` in the prose names something importable (calls such as `offloader.tools()` are variables)."""
    stale = sorted(
        {
            f"{page.relative_to(ROOT)}: {m.group(1)}"
            for page in PAGES
            for m in _DOTTED.finditer(page.read_text(encoding="utf-8"))
            if not m.group(2) and not _resolves(m.group(1))
        }
    )
    assert not stale, stale
