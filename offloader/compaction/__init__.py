"""Multi-level context compaction: mild, aggressive, emergency; restorable and resumable.

``ContextCompactor(workspace).compact(session_id, messages)`` keeps a
conversation under the model's window; everything that leaves the context is
offloaded to the workspace first and named by reference. See
the README section "Compaction".
"""

from __future__ import annotations

from ._view import MILD_MARKER, SUMMARY_MARKER, TRUNCATED_MARKER
from .compactor import ContextCompactor
from .policy import CompactionEntry, CompactionPolicy, CompactionResult, Level
from .summarizers import (
    CallSummary,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
    ToolExchange,
    parse_summaries,
)
from .taskmap import render_task_map

__all__ = [
    "MILD_MARKER",
    "SUMMARY_MARKER",
    "TRUNCATED_MARKER",
    "CallSummary",
    "CompactionEntry",
    "CompactionPolicy",
    "CompactionResult",
    "ContextCompactor",
    "ExtractiveSummarizer",
    "LLMSummarizer",
    "Level",
    "Summarizer",
    "ToolExchange",
    "parse_summaries",
    "render_task_map",
]
