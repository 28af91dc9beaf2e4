"""Compaction thresholds and results.

Fill is ``(system tokens + message tokens) / window``. The levels and their
defaults follow the seed design: mild at 50 %, aggressive at 85 %, emergency
at 95 % (cutting down to 60 %), 12 % system overhead when the caller does not
say how large the system prompt and tool schemas are.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, TypeAlias

__all__ = ["CompactionEntry", "CompactionPolicy", "CompactionResult", "Level"]

Level: TypeAlias = Literal["none", "mild", "aggressive", "emergency"]


@dataclass(frozen=True, slots=True)
class CompactionPolicy:
    """When each level fires and what it may touch.

    * ``mild_ratio`` (0.50): replace old tool results by summary + reference
      until the fill is back under this ratio.
    * ``aggressive_ratio`` (0.85): cut the oldest messages into one summary
      message until under this ratio.
    * ``emergency_ratio`` (0.95): cut (and truncate giant messages) down to
      ``emergency_target_ratio`` (0.60).
    * ``protect_recent_ratio`` (0.30): mild never touches the newest 30 % of messages.
    * ``system_overhead_ratio`` (0.12): system prompt + tool schemas, as a share of
      the window, when ``system_tokens`` is not given.
    * ``min_messages_kept`` (2): the newest messages no cut removes.
    * ``large_arguments_chars`` (1,000): a replaced result's tool call whose
      arguments serialise longer than this gets its long string values shortened.
    * ``summary_chars`` (2,000): cap on the text of the cut-summary message.
    * ``task_map_ratio`` (0.20): cap on the injected task map, as a share of the window.
    """

    mild_ratio: float = 0.50
    aggressive_ratio: float = 0.85
    emergency_ratio: float = 0.95
    emergency_target_ratio: float = 0.60
    protect_recent_ratio: float = 0.30
    system_overhead_ratio: float = 0.12
    min_messages_kept: int = 2
    large_arguments_chars: int = 1_000
    summary_chars: int = 2_000
    task_map_ratio: float = 0.20

    def __post_init__(self) -> None:
        if not 0 < self.mild_ratio < self.aggressive_ratio < self.emergency_ratio <= 1:
            raise ValueError(
                "need 0 < mild_ratio < aggressive_ratio < emergency_ratio <= 1, got "
                f"{self.mild_ratio}, {self.aggressive_ratio}, {self.emergency_ratio}"
            )
        if not 0 < self.emergency_target_ratio < self.emergency_ratio:
            raise ValueError(f"need 0 < emergency_target_ratio < emergency_ratio, got {self.emergency_target_ratio}")
        if not 0 <= self.protect_recent_ratio <= 1:
            raise ValueError(f"protect_recent_ratio must be in [0, 1], got {self.protect_recent_ratio}")
        if not 0 <= self.system_overhead_ratio < 1:
            raise ValueError(f"system_overhead_ratio must be in [0, 1), got {self.system_overhead_ratio}")
        if self.min_messages_kept < 1:
            raise ValueError(f"min_messages_kept must be >= 1, got {self.min_messages_kept}")
        if not 0 < self.task_map_ratio < 1:
            raise ValueError(f"task_map_ratio must be in (0, 1), got {self.task_map_ratio}")
        if self.large_arguments_chars < 1 or self.summary_chars < 200:
            raise ValueError("large_arguments_chars must be >= 1 and summary_chars >= 200")


@dataclass(frozen=True, slots=True)
class CompactionEntry:
    """One tool call the compactor knows about (a ledger entry).

    ``status``: ``collected`` (summarised, still in context), ``mild`` (result
    replaced by summary + reference), ``deleted`` (cut away with its messages)
    or ``truncated`` (cut in place by emergency). ``failed``: the tool reported
    an error. The task map (:func:`offloader.compaction.taskmap.render_task_map`)
    draws these entries.
    """

    id: str
    tool: str
    summary: str
    score: int
    status: str
    ref: str | None = None
    degraded: bool = False
    failed: bool = False


@dataclass(frozen=True, slots=True)
class CompactionResult:
    """What one :meth:`ContextCompactor.compact` call did.

    ``messages`` is a new list in the caller's shape: untouched messages are the
    caller's own objects. ``trigger`` is the level the fill (or a reported
    overflow) called for; ``level`` the highest level this call actually
    applied -- lower when a gentler level already reached the target, and
    decisions replayed from earlier calls do not count. ``reason`` is set when
    the threshold aimed at (``target``) could not be reached.
    """

    messages: list[Any]
    level: Level
    tokens_before: int
    tokens_after: int
    window: int
    target: int | None = None
    references: tuple[str, ...] = ()
    entries: tuple[CompactionEntry, ...] = ()
    reason: str | None = None
    trigger: Level = "none"
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def fill_before(self) -> float:
        return self.tokens_before / self.window

    @property
    def fill_after(self) -> float:
        return self.tokens_after / self.window
