"""offloader: keep large tool results and old conversation out of an agent's context.

Content goes to a workspace's own filesystem (see the ``workspaces`` package);
the context keeps a short preview and a reference; the agent reads back what it
needs with Read, Grep and Glob.
"""

from __future__ import annotations

from .convert import to_block, to_data_block, to_message, to_messages, to_tool_result
from .messages import DataBlock, JsonBlock, Message, TextBlock, ToolCallBlock, ToolResultBlock
from .naming import safe_name
from .protocol import Offloader

__version__ = "0.1.0"

__all__ = [
    "DataBlock",
    "JsonBlock",
    "Message",
    "Offloader",
    "TextBlock",
    "ToolCallBlock",
    "ToolResultBlock",
    "__version__",
    "safe_name",
    "to_block",
    "to_data_block",
    "to_message",
    "to_messages",
    "to_tool_result",
]
