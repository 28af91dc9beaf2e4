"""offloader: keep large tool results and old conversation out of an agent's context.

Content goes to a workspace's own filesystem (see the ``workspaces`` package);
the context keeps a short preview and a reference; the agent reads back what it
needs with Read, Grep and Glob.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

from .convert import to_block, to_data_block, to_message, to_messages, to_tool_result
from .messages import DataBlock, JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from .naming import safe_name
from .offloader import DEFAULT_EXCLUDED_TOOLS, ContextOffloader
from .preview import make_preview
from .protocol import Offloader
from .storage import InMemoryStorage, Storage, StoredContent, WorkspaceStorage
from .tokens import (
    CallableCounter,
    HeuristicCounter,
    TiktokenCounter,
    TokenCounter,
    default_counter,
    exceeds,
    head_within,
)

if TYPE_CHECKING:
    from .compaction import (
        CompactionPolicy,
        CompactionResult,
        ContextCompactor,
        ExtractiveSummarizer,
        LLMSummarizer,
        Summarizer,
    )
    from .retrieval import retrieval_tool, retrieve

#: The package version: its one source (pyproject.toml reads it from here).
__version__ = "0.1.0"

# Loaded on first use: compaction is sizeable, and retrieval imports ``workspaces``
# (which itself imports this package's converters).
_LAZY = {
    "CompactionPolicy": ".compaction",
    "CompactionResult": ".compaction",
    "ContextCompactor": ".compaction",
    "ExtractiveSummarizer": ".compaction",
    "LLMSummarizer": ".compaction",
    "Summarizer": ".compaction",
    "retrieval_tool": ".retrieval",
    "retrieve": ".retrieval",
}


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name], __name__), name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "DEFAULT_EXCLUDED_TOOLS",
    "CallableCounter",
    "CompactionPolicy",
    "CompactionResult",
    "ContextCompactor",
    "ContextOffloader",
    "DataBlock",
    "ExtractiveSummarizer",
    "HeuristicCounter",
    "InMemoryStorage",
    "JsonBlock",
    "LLMSummarizer",
    "Message",
    "Offloader",
    "Storage",
    "StoredContent",
    "Summarizer",
    "TextBlock",
    "TiktokenCounter",
    "TokenCounter",
    "ToolCallBlock",
    "ToolResultBlock",
    "WorkspaceStorage",
    "__version__",
    "default_counter",
    "exceeds",
    "head_within",
    "make_preview",
    "retrieval_tool",
    "retrieve",
    "safe_name",
    "to_block",
    "to_data_block",
    "to_message",
    "to_messages",
    "to_tool_result",
]
