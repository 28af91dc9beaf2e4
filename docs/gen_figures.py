"""Draw the documentation's figures from data: ``python docs/gen_figures.py`` (``nox -s docs`` runs it).

* ``figures/bench-offload.svg``: ours vs Strands vs AgentScope on each payload, and how many
  decisive lines each preview keeps, from
  ``benchmarks/results/bench_offload.json`` (written by ``benchmarks/bench_offload.py``);
* ``figures/layout.svg``: the on-disk layout of a real workspace, built here with the public API;
* ``figures/preview.svg``: a tool result before and after offloading, made by ``ContextOffloader``.

Output is deterministic (no dates, fixed ids), so regenerating leaves unchanged figures unchanged.
"""

from __future__ import annotations

import json
import os
import re
import sys
import tempfile
from html import escape
from pathlib import Path
from typing import Any

import anyio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
FIGURES = ROOT / "docs" / "figures"
BENCH_JSON = ROOT / "benchmarks" / "results" / "bench_offload.json"

#: Bars of the benchmark chart: JSON key, label, colour.
SERIES = (
    ("bare_write", "bare write (floor)", "#b0b0b0"),
    ("ours", "offloader", "#2b6cb0"),
    ("strands", "Strands", "#dd6b20"),
    ("agentscope", "AgentScope", "#38a169"),
)
MONO = "ui-monospace, SFMono-Regular, Menlo, Consolas, monospace"
SIGNAL = re.compile(r"error|FAILED|\[stderr\]", re.IGNORECASE)


# ---------------------------------------------------------------- benchmark chart


def bench_chart(out: Path) -> Path:
    import matplotlib

    matplotlib.use("svg")
    import matplotlib.pyplot as plt

    source = BENCH_JSON
    if not source.exists():
        raise SystemExit(f"{source.relative_to(ROOT)} is missing: run python benchmarks/bench_offload.py")
    data = json.loads(source.read_text(encoding="utf-8"))
    payloads: dict[str, dict[str, Any]] = data["payloads"]
    recall = _recall_rates(data)
    panels = len(payloads) + (1 if recall else 0)
    cols = min(2, panels)
    rows = -(-panels // cols)
    plt.rcParams.update({"svg.hashsalt": "offloader-docs", "font.size": 9})
    fig, axes = plt.subplots(rows, cols, figsize=(5.4 * cols, 2.9 * rows), squeeze=False)
    flat = [ax for row in axes for ax in row]
    for ax, (name, row) in zip(flat, payloads.items(), strict=False):
        kept = _signal_kept(data, name)
        marks = {True: "\n(signal in context)", False: "\n(signal lost)"}
        shown = [
            (label + (marks[kept[key]] if key in kept else ""), float(row[key]), colour)
            for key, label, colour in SERIES
            if isinstance(row.get(key), (int, float))
        ]
        _bars(ax, shown, name, "median ms per offload (lower is faster)", "{:.2f}")
    if recall:
        labels = {"ours": "offloader", "strands": "Strands", "naive_2000_2000": "head + tail, 2,000 chars"}
        colours = {"ours": "#2b6cb0", "strands": "#dd6b20"}
        shown = [(labels.get(k, k), v * 100, colours.get(k, "#8a8a8a")) for k, v in recall.items()]
        outputs = _corpus(data).get("outputs", "?")
        _bars(
            flat[len(payloads)], shown, f"Decisive lines kept in the preview ({outputs} real outputs)", "%", "{:.0f} %"
        )
    for ax in flat[panels:]:
        ax.set_visible(False)
    fig.suptitle(f"Tool-result offload, one run ({source.relative_to(ROOT)})", fontsize=9)
    fig.tight_layout()
    fig.savefig(out, format="svg", metadata={"Date": None, "Creator": None})
    plt.close(fig)
    return out


def _bars(ax: Any, shown: list[tuple[str, float, str]], title: str, xlabel: str, fmt: str) -> None:
    ys = list(range(len(shown)))
    ax.barh(ys, [v for _, v, _ in shown], color=[c for _, _, c in shown])
    ax.set_yticks(ys, [label for label, _, _ in shown])
    ax.invert_yaxis()
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    for y, (_, value, _) in zip(ys, shown, strict=True):
        ax.text(value, y, " " + fmt.format(value), va="center")
    ax.set_xlim(0, max(v for _, v, _ in shown) * 1.25)
    ax.spines[["top", "right"]].set_visible(False)


def _signal_kept(data: dict[str, Any], payload: str) -> dict[str, bool]:
    """Per implementation, whether the model still sees the payload's decisive line (if the JSON says)."""
    found = data["payloads"][payload].get("signal_in_context") or data.get("recall", {}).get(payload)
    return {k: v for k, v in found.items() if isinstance(v, bool)} if isinstance(found, dict) else {}


def _corpus(data: dict[str, Any]) -> dict[str, Any]:
    """The public-corpus recall block: ``recall.corpus`` (or, in older runs, ``recall`` itself)."""
    recall = data.get("recall", {})
    corpus = recall.get("corpus", recall) if isinstance(recall, dict) else {}
    return corpus if isinstance(corpus, dict) else {}


def _recall_rates(data: dict[str, Any]) -> dict[str, float]:
    rates = _corpus(data).get("recall")
    return {k: float(v) for k, v in rates.items() if isinstance(v, (int, float))} if isinstance(rates, dict) else {}


# ---------------------------------------------------------------- text pictures (hand-built SVG)


def _text_svg(columns: list[tuple[str, list[str]]], *, col_width: int, note: str = "") -> str:
    """Columns of monospace lines, each with a title; lines matching SIGNAL are highlighted."""
    line_h, char_w, pad = 15, 7.2, 14
    rows = max(len(lines) for _, lines in columns)
    width = int(pad + len(columns) * (col_width * char_w + pad))
    height = pad * 2 + 22 + rows * line_h + (18 if note else 0)
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" font-family="{MONO}" font-size="12">',
        f'<rect width="{width}" height="{height}" fill="#ffffff"/>',
    ]
    for c, (title, lines) in enumerate(columns):
        x = pad + c * (col_width * char_w + pad)
        out.append(
            f'<rect x="{x - 6}" y="{pad - 4}" width="{col_width * char_w + 12}" '
            f'height="{height - 2 * pad + 8 - (18 if note else 0)}" fill="#f7f7f9" stroke="#d0d0d8" rx="6"/>'
        )
        out.append(f'<text x="{x}" y="{pad + 12}" font-weight="bold" font-family="sans-serif">{escape(title)}</text>')
        for r, line in enumerate(lines):
            y = pad + 22 + (r + 1) * line_h
            shown = line if len(line) <= col_width else line[: col_width - 1] + "…"
            if SIGNAL.search(line):
                out.append(
                    f'<rect x="{x - 3}" y="{y - 11}" width="{len(shown) * char_w + 6}" height="14" fill="#fde2e1"/>'
                )
            colour = "#888" if line.startswith(("...", "⋮")) else "#1a1a1a"
            out.append(f'<text x="{x}" y="{y}" fill="{colour}" xml:space="preserve">{escape(shown)}</text>')
    if note:
        out.append(
            f'<text x="{pad}" y="{height - 8}" font-family="sans-serif" font-size="11" fill="#555">'
            f"{escape(note)}</text>"
        )
    out.append("</svg>")
    return "\n".join(out) + "\n"


def build_log(lines: int = 20_000) -> str:
    out = [f"[{i:05}] compiling unit_{i}.c ... ok" for i in range(lines)]
    out[lines * 3 // 5] = "unit_77.c:41: error: use of undeclared identifier 'cfg'"
    return "\n".join(out)


async def _preview_columns() -> list[tuple[str, list[str]]]:
    from offloader import ContextOffloader, InMemoryStorage, default_counter

    text = build_log()
    counter = default_counter()
    offloader = ContextOffloader(InMemoryStorage(), counter=counter, preview_tokens=300)
    after = await offloader.process_tool_result("s1", {"role": "tool", "tool_call_id": "call_1", "content": text})
    preview = str(after["content"])
    raw = text.splitlines()
    error_at = next(i for i, line in enumerate(raw) if "error:" in line)
    before = [
        *raw[:12],
        f"⋮  {error_at - 12:,} more lines",
        raw[error_at],
        f"⋮  {len(raw) - error_at - 2:,} more lines",
        raw[-1],
    ]
    kept = [line.replace("\t", "  ") for line in preview.splitlines() if line.strip()]
    kept = [*kept[:3], *[x for x in kept[3:] if not x.startswith(("The full", "a pattern"))]]
    title_before = f"Before: {len(raw):,} lines, {len(text.encode()):,} bytes, {counter.count(text):,} tokens"
    title_after = f"After: the preview, {counter.count(preview):,} tokens, and the reference"
    return [(title_before, before), (title_after, _wrap(kept, 64))]


def _wrap(lines: list[str], width: int) -> list[str]:
    out: list[str] = []
    for line in lines:
        while len(line) > width:
            cut = line.rfind(" ", 0, width)
            cut = cut if cut > width // 2 else width
            out.append(line[:cut])
            line = "    " + line[cut:].lstrip()
        out.append(line)
    return out


def preview_figure(out: Path) -> Path:
    columns = anyio.run(_preview_columns)
    out.write_text(_text_svg(columns, col_width=64, note="Generated by docs/gen_figures.py with ContextOffloader."))
    return out


# ---------------------------------------------------------------- on-disk layout

_ROLES = (
    (r"^data/[0-9a-f]{64}\.\w+$", "media, written once, named by the sha256 of its bytes"),
    (r"context\.jsonl$", "append-only: one message per line"),
    (r"tool_result-[^/]+\.txt$", "a whole tool result, every block in order"),
    (r"ledger\.jsonl$", "one line per offload: ref, tool, bytes, tokens, status"),
    (r"state\.json$", "compaction decisions, for resume"),
)


async def _layout_lines() -> list[str]:
    from offloader import DataBlock, HeuristicCounter, TextBlock, ToolResultBlock
    from offloader.compaction import ContextCompactor
    from workspaces import LocalWorkspace

    png = bytes.fromhex("89504e470d0a1a0a") + b"\0" * 64
    with tempfile.TemporaryDirectory() as tmp:
        root = os.path.join(tmp, "workdir")
        async with LocalWorkspace(root) as ws:
            block = ToolResultBlock("call_7", "screenshot", (TextBlock("rendered page"), DataBlock("image/png", png)))
            await ws.offload_tool_result("s1", block)
            await ws.offload_tool_result("s1", {"role": "tool", "tool_call_id": "call_8", "content": build_log(500)})
            await ws.offload_context("s1", [{"role": "user", "content": "Build it."}])
            history: list[dict[str, Any]] = [{"role": "user", "content": "Build it."}]
            for i in range(6):
                call = {"id": f"c{i}", "type": "function", "function": {"name": "make", "arguments": "{}"}}
                history.append({"role": "assistant", "content": None, "tool_calls": [call]})
                history.append({"role": "tool", "tool_call_id": f"c{i}", "content": build_log(300)})
            await ContextCompactor(ws, window=40_000, counter=HeuristicCounter()).compact("s1", history)
        files = sorted(p.relative_to(root).as_posix() for p in Path(root).rglob("*") if p.is_file())
    lines = ["{workdir}/"]
    shown_dirs: set[str] = set()
    for rel in files:
        parts = rel.split("/")
        for depth in range(1, len(parts)):
            folder = "/".join(parts[:depth])
            if folder not in shown_dirs:
                shown_dirs.add(folder)
                lines.append("  " * depth + parts[depth - 1] + "/")
        role = next((why for pattern, why in _ROLES if re.search(pattern, rel)), "")
        name = parts[-1] if len(parts[-1]) <= 28 else parts[-1][:12] + "…" + parts[-1][-12:]
        entry = "  " * len(parts) + name
        lines.append(f"{entry:<38}{role}")
    return lines


def layout_figure(out: Path) -> Path:
    lines = anyio.run(_layout_lines)
    note = "A real LocalWorkspace after two offloads, a context append and a compaction (docs/gen_figures.py)."
    out.write_text(_text_svg([("On-disk layout (the same on every backend)", lines)], col_width=96, note=note))
    return out


def main() -> None:
    FIGURES.mkdir(parents=True, exist_ok=True)
    for made in (
        bench_chart(FIGURES / "bench-offload.svg"),
        layout_figure(FIGURES / "layout.svg"),
        preview_figure(FIGURES / "preview.svg"),
    ):
        print("wrote", made.relative_to(ROOT))


if __name__ == "__main__":
    main()
