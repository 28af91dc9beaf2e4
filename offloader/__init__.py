"""offloader: keep large tool results and old conversation out of an agent's context.

Content goes to a workspace's own filesystem (see the ``workspaces`` package,
which this package never imports: ``import offloader`` loads no backend);
the context keeps a short preview and a reference; the agent reads back what it
needs with Read, Grep and Glob.
"""

from __future__ import annotations

from .compaction import (
    CompactionPolicy,
    CompactionResult,
    ContextCompactor,
    ExtractiveSummarizer,
    LLMSummarizer,
    Summarizer,
)
from .core.convert import to_block, to_data_block, to_message, to_messages, to_tool_result
from .core.messages import DataBlock, JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from .core.naming import safe_name
from .core.protocol import Offloader, Storage, StoredContent
from .core.tools import Tool
from .offloader import DEFAULT_EXCLUDED_TOOLS, ContextOffloader
from .retrieval import retrieval_tool, retrieve
from .signal import make_preview
from .storage import InMemoryStorage, WorkspaceStorage
from .tokens import (
    CallableCounter,
    HeuristicCounter,
    TiktokenCounter,
    TokenCounter,
    default_counter,
    exceeds,
    head_within,
)

#: The package version: its one source (pyproject.toml reads it from here).
__version__ = "0.1.0"

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
    "Tool",
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
