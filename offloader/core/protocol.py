"""The Offloader protocol (the three calls an agent framework makes) and the Storage protocol.

Offloader is structural and runtime-checkable: any object with these async methods is an
offloader, no inheritance needed. Every workspace in :mod:`workspaces`
implements it, so ``Agent(offloader=LocalWorkspace(...))`` works in frameworks
that accept ``offloader=`` (AgentScope 2.x calls exactly these methods).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol, TypeVar, runtime_checkable

__all__ = ["Offloader", "Storage", "StoredContent"]

_B = TypeVar("_B")


@runtime_checkable
class Offloader(Protocol):
    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        """Persist the whole tool result; return its reference (path or URL)."""
        ...

    async def offload_context(self, session_id: str, msgs: Sequence[Any], **kwargs: Any) -> str:
        """Append compressed-away messages to the session's context log; return its reference."""
        ...

    async def offload_data_block(self, block: _B, **kwargs: Any) -> _B:
        """Persist inline media once (content-addressed); return the same kind of block."""
        ...


class StoredContent(NamedTuple):
    """What ``Storage.retrieve`` returns: unpacks as ``content, content_type`` (Strands' contract)."""

    content: bytes
    content_type: str


@runtime_checkable
class Storage(Protocol):
    """Where ``ContextOffloader`` puts blocks (the storage contract of Strands' context offloader)."""

    async def store(self, key: str, content: bytes, content_type: str = "text/plain") -> str:
        """Persist ``content`` under a name derived from ``key``; return a unique reference."""
        ...

    async def retrieve(self, reference: str) -> StoredContent:
        """The stored bytes and content type; KeyError if the reference is unknown."""
        ...

    async def delete(self, reference: str) -> None:
        """Forget a reference; unknown references are ignored."""
        ...

    async def list(self) -> list[str]:
        """Every reference currently held."""
        ...
