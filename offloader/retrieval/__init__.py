"""``retrieve_offloaded_content``: read back offloaded content by pattern or line range.

Works over any :class:`workspaces.Workspace` (references are paths or URLs in the
workspace) and over any :class:`~offloader.storage.Storage` (references are what
``store`` returned). Modes:

* pattern: matching lines (``>``) with ``context_lines`` around them, ``---``
  between gaps, under a ``[N matches for /p/ in lines a-b]`` header;
* line range (1-based, inclusive), or a pattern searched within a range;
* head: ``context_lines`` alone gives the first lines;
* full (no arguments): a bounded slice plus how to read on, never 5 MB at once.

Patterns are RE2 (linear time, see :func:`offloader.core.text.compile_pattern`); an
invalid one is an error, never a silent literal search. A pattern search stops
scanning once the output budget is full, so a pattern that matches every line
costs as much as the lines it shows.

Modules: :mod:`.retriever` (the modes), :mod:`.sources` (workspace file or
Storage entry), :mod:`.index` (line indexes and their cache), :mod:`.rendering`
(numbered lines under an output budget).

Range reads use a line-offset index: one little-endian ``uint64`` per line start
(plus a sentinel, see :mod:`offloader.core.lineindex`), built lazily on the first range read and stored beside the
content as ``{file}.lineidx`` for workspaces (kept in a small per-retriever cache
for Storage). An entry per line (rather than one per N lines) costs 8 bytes a
line but makes a range read exact: one read of ``8 * (lines + 1)`` index bytes,
one read of exactly the bytes of those lines, whatever the file size, even when
a line is megabytes long. The index header records the content's size and mtime;
a mismatch rebuilds it. An index of up to 8 MB (1,048,576 lines; 32 MB in all per
retriever) is also kept in the retriever's cache per (path, size, mtime), so a repeated range read of an unchanged
file costs one stat and one content read; every call still stats, so a rewritten
file is never served from a stale index. The shared Read tool uses a fresh sidecar
to jump to a deep offset instead of scanning from byte 0.
"""

from __future__ import annotations

from ..core.layout import INDEX_SUFFIX
from .retriever import TOOL_NAME, Retriever, retrieval_tool, retrieve
from .sources import UnknownReference

__all__ = ["INDEX_SUFFIX", "TOOL_NAME", "Retriever", "UnknownReference", "retrieval_tool", "retrieve"]
