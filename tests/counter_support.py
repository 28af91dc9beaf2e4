"""A token counter that records what it was fed: tests of how much text reaches the tokenizer."""

from __future__ import annotations

from offloader.tokens import TokenCounter


class FeedCounter:
    """Wraps a real counter; ``fed`` is the characters counted in all, ``largest`` the longest text."""

    def __init__(self, inner: TokenCounter) -> None:
        self.inner = inner
        self.name = inner.name
        self.fed = 0
        self.largest = 0

    def count(self, text: str) -> int:
        self.fed += len(text)
        self.largest = max(self.largest, len(text))
        return self.inner.count(text)
