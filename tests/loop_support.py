"""What the three-turn agent-loop tests share (OpenAI Agents SDK, Pydantic AI).

Turn 1 runs a build whose 5 MB log has one failure line; turn 2 reads that line
back through the reference the preview names (with ``Grep`` or
``retrieve_offloaded_content``); turn 3 answers with it.
"""

from __future__ import annotations

import re
from types import MappingProxyType

from offloader.compaction import CompactionPolicy, CompactionResult

FAILURE = "ERROR test_refund_rounding: expected 10.00, got 9.99 (payments/refund.py:212)"
LOG_BYTES = 5 * 1024 * 1024


def build_log() -> str:
    """About 5 MB of build output with one failure line in the middle."""
    line = "[{:06d}] compiling src/module_{:04d}.c with -O2 -Wall ... ok"
    count = LOG_BYTES // len(line.format(0, 0))
    lines = [line.format(i, i % 977) for i in range(count)]
    lines[count // 2] = FAILURE
    return "\n".join(lines)


LOG = build_log()


def reference_in(preview: str) -> str:
    """The stored result's path that a preview names."""
    found = re.search(r"^\s+(\S+tool_result-\S+\.txt) \(", preview, re.MULTILINE)
    assert found, preview[:2000]
    return found.group(1)


def read_back_arguments(tool: str, ref: str) -> dict[str, str]:
    """Turn 2's call: the failure line of ``ref`` by ``Grep`` or by ``retrieve_offloaded_content``."""
    return {"pattern": "ERROR", "path": ref} if tool == "Grep" else {"reference": ref, "pattern": "ERROR"}


#: Small previews, so a 16-turn conversation of build logs needs compacting.
SMALL_PREVIEWS = MappingProxyType({"max_result_tokens": 800, "preview_tokens": 200})
#: The window of a probe run: nothing is compacted, so the probe counts the whole conversation.
PROBE_WINDOW = 10**9


def window_to_overflow(probe: CompactionResult) -> int:
    """A window the conversation a probe run counted overflows by its end (whatever the previews' size)."""
    overhead = int(PROBE_WINDOW * CompactionPolicy().system_overhead_ratio)  # counted for the unseen system prompt
    return int((probe.tokens_before - overhead) * 0.9)
