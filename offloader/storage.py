"""The Storage protocol: where :class:`~offloader.ContextOffloader` puts blocks.

Mirrors the storage contract of Strands Agents' context offloader (store,
retrieve, delete, list; content types preserved) so users can move over, while
every :class:`workspaces.Workspace` can serve as storage too.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol, runtime_checkable

__all__ = ["Storage", "StoredContent"]


@dataclass(frozen=True, slots=True)
class StoredContent:
    content: bytes
    content_type: str


@runtime_checkable
class Storage(Protocol):
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
