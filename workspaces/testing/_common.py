"""Helpers shared by the conformance tests."""

from __future__ import annotations

import base64
from typing import Any

import pytest

from offloader.core.messages import TextBlock, ToolResultBlock

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
#: Marks every test of a suite class as an anyio test (asyncio unless parametrised).
ANYIO: Any = pytest.mark.anyio


def result(tid: str, text: str, name: str = "bash") -> ToolResultBlock:
    """A one-text-block tool result."""
    return ToolResultBlock(id=tid, name=name, content=(TextBlock(text),))
