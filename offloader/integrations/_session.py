"""The per-session pieces every framework adapter keeps: an offloader, a compactor, the tools."""

from __future__ import annotations

from offloader.compaction import CompactionResult, ContextCompactor
from offloader.integrations._cache import OffloadCache
from offloader.offloader import ContextOffloader
from offloader.storage import Storage
from workspaces import Tool, Workspace

__all__ = ["SessionSetup"]


class SessionSetup:
    """Offloading (and, on a workspace, compaction) for one session.

    Args:
        storage: a workspace (whole results in its session folder, compaction
            possible) or a Storage (offloading only).
        session_id: the session folder and compaction state.
        window: the model's context size in tokens (default 200,000).
        max_result_tokens / preview_tokens: offload results over this many tokens,
            leaving a preview of that many (defaults 2,500 / 1,000).
        compact: also compact the conversation (default True); needs a workspace
            unless ``compactor`` is given.
        offloader / compactor: your own, fully configured instances.
    """

    def __init__(
        self,
        storage: Storage | Workspace,
        session_id: str,
        *,
        window: int = 200_000,
        max_result_tokens: int = 2500,
        preview_tokens: int = 1000,
        compact: bool = True,
        offloader: ContextOffloader | None = None,
        compactor: ContextCompactor | None = None,
    ) -> None:
        if not isinstance(session_id, str) or not session_id:
            raise ValueError(f"session_id must be a non-empty str, got {session_id!r}")
        if compact and compactor is None and not isinstance(storage, Workspace):
            raise TypeError("compaction needs a workspace as storage (or pass compactor=, or compact=False)")
        self.storage = storage
        self.session_id = session_id
        self.offloader = offloader or ContextOffloader(storage, max_result_tokens, preview_tokens)
        self.compactor = compactor
        if compact and compactor is None and isinstance(storage, Workspace):
            self.compactor = ContextCompactor(storage, window=window)
        self.last_compaction: CompactionResult | None = None
        self._done = OffloadCache()

    def tools(self) -> list[Tool]:
        """Read / Grep / Glob (workspaces only) and ``retrieve_offloaded_content``."""
        own = list(self.storage.tools()) if isinstance(self.storage, Workspace) else []
        return [*own, *self.offloader.tools()]
