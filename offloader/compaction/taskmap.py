"""A Mermaid task map built from compaction ledger entries.

One node per recorded tool call (a :class:`CompactionEntry`, as in
``CompactionResult.entries``), in the order the calls happened, linked in
sequence; status ``done`` (succeeded), ``blocked`` (the tool reported an error)
or ``doing`` (the latest step). The compactor stores it as
``sessions/{sid}/taskmap.mmd`` and, when asked, injects it as one message so
the model keeps an overview of steps whose details were offloaded. When the
full map does not fit its budget, a meta-only version (counts per tool and
status) is used instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from .policy import CompactionEntry

__all__ = ["render_task_map", "task_map_text"]

_LABEL_CHARS = 70


def _status(steps: Sequence[CompactionEntry], k: int) -> str:
    if steps[k].failed:
        return "blocked"
    return "doing" if k == len(steps) - 1 else "done"


def _label(text: str) -> str:
    text = " ".join(text.split()).replace('"', "'").replace("`", "'")
    return text if len(text) <= _LABEL_CHARS else text[: _LABEL_CHARS - 1] + "…"


def render_task_map(steps: Sequence[CompactionEntry], *, meta_only: bool = False) -> str:
    """Mermaid ``flowchart TD`` source for ``steps`` (deterministic)."""
    lines = ["flowchart TD"]
    if meta_only or not steps:
        counts: dict[tuple[str, str], int] = {}
        for k, step in enumerate(steps):
            key = (step.tool or "tool", _status(steps, k))
            counts[key] = counts.get(key, 0) + 1
        lines.append(f'  T["{len(steps)} steps"]')
        for n, ((tool, status), count) in enumerate(sorted(counts.items())):
            lines.append(f'  M{n}["{_label(tool)}: {count} {status}"]:::{status}')
            lines.append(f"  T --> M{n}")
    else:
        for k, step in enumerate(steps):
            label = _label(f"{step.tool}: {step.summary}" if step.tool else step.summary)
            lines.append(f'  S{k}["{label}"]:::{_status(steps, k)}')
            if k:
                lines.append(f"  S{k - 1} --> S{k}")
    lines += [
        "  classDef done fill:#d4edda,stroke:#28a745",
        "  classDef doing fill:#fff3cd,stroke:#ffc107",
        "  classDef blocked fill:#f8d7da,stroke:#dc3545",
    ]
    return "\n".join(lines) + "\n"


def task_map_text(steps: Sequence[CompactionEntry], budget: int, count: Callable[[str], int]) -> str | None:
    """The message text for the map within ``budget`` tokens: full, else meta-only, else None."""
    for meta_only in (False, True):
        source = render_task_map(steps, meta_only=meta_only)
        text = f"[Task map | {len(steps)} steps so far]\n```mermaid\n{source}```"
        if count(text) <= budget:
            return text
    return None
