"""offloader: keep large tool results and old conversation out of an agent's context.

Content goes to a workspace's own filesystem (see the ``workspaces`` package);
the context keeps a short preview and a reference; the agent reads back what it
needs with Read, Grep and Glob.
"""

from __future__ import annotations

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

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_EXCLUDED_TOOLS",
    "CallableCounter",
    "ContextOffloader",
    "DataBlock",
    "HeuristicCounter",
    "InMemoryStorage",
    "JsonBlock",
    "Message",
    "Offloader",
    "Storage",
    "StoredContent",
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
    "safe_name",
    "to_block",
    "to_data_block",
    "to_message",
    "to_messages",
    "to_tool_result",
]
