"""Token counting.

``TokenCounter`` is the protocol every part of the package uses; this module
starts with the dependency-free :class:`HeuristicCounter`. (The tiktoken-backed
counter and bounded-cost helpers extend this module.)
"""

from __future__ import annotations

import re
from typing import Protocol, runtime_checkable

__all__ = ["HeuristicCounter", "TokenCounter"]

_CJK = re.compile(r"[\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff]")


@runtime_checkable
class TokenCounter(Protocol):
    """Counts tokens in text. ``name`` says which tokenizer is in use."""

    name: str

    def count(self, text: str) -> int: ...


class HeuristicCounter:
    """CJK characters / 1.7 + other characters / 4; no dependencies, O(len)."""

    name = "heuristic"

    def count(self, text: str) -> int:
        if not text:
            return 0
        cjk = len(_CJK.findall(text))
        return int(cjk / 1.7 + (len(text) - cjk) / 4 + 0.999)
