"""The on-disk layout every workspace shares, and its record formats, in one place.

::

    {workdir}/data/{sha256}{.ext}                    media, written once
    {workdir}/sessions/{sid}/context.jsonl           append-only message log
    {workdir}/sessions/{sid}/tool_result-{tid}.txt   whole tool output
    {workdir}/sessions/{sid}/ledger.jsonl            one line per offload
    {workdir}/sessions/{sid}/state.json              compaction state
    {workdir}/sessions/{sid}/taskmap.mmd             compaction task map
    {workdir}/skills/

Beside content: ``{file}.lineidx`` (retrieval's line index) and
``{file}.content-type`` (a stored block's media type). Atomic writes go through
``.tmp-*`` files in the target's folder. Media are named by URL
``workspace:///data/...``.
"""

from __future__ import annotations

import base64
import hashlib
import json
import time
from typing import Any

from .naming import safe_name

__all__ = [
    "CONTEXT_FILE",
    "DATA_DIR",
    "DATA_URL_PREFIX",
    "INDEX_SUFFIX",
    "LEDGER_FILE",
    "MEDIA_NAMES",
    "SESSIONS_DIR",
    "SESSION_META_FILES",
    "STATE_FILE",
    "TASKMAP_FILE",
    "TMP_PREFIX",
    "TOOL_RESULT_PREFIX",
    "TYPE_SUFFIX",
    "data_path",
    "estimate_tokens",
    "is_hidden",
    "json_line",
    "ledger_line",
    "session_dir",
]

#: URL prefix of a file in a workspace (``workspace:///data/ab12...png``).
DATA_URL_PREFIX = "workspace:///"
DATA_DIR = "data"
SESSIONS_DIR = "sessions"
CONTEXT_FILE = "context.jsonl"
LEDGER_FILE = "ledger.jsonl"
STATE_FILE = "state.json"
TASKMAP_FILE = "taskmap.mmd"
#: A session's bookkeeping files (everything else in its folder is offloaded content).
SESSION_META_FILES = frozenset({CONTEXT_FILE, LEDGER_FILE, STATE_FILE})
TOOL_RESULT_PREFIX = "tool_result-"
#: Name prefix of an atomic write's temp file (never shown, swept by gc when stale).
TMP_PREFIX = ".tmp-"
#: Suffix of retrieval's line-offset index kept beside text content.
INDEX_SUFFIX = ".lineidx"
#: Suffix of the sidecar holding a stored block's media type.
TYPE_SUFFIX = ".content-type"


def session_dir(session_id: str) -> str:
    """Workdir-relative folder of a session (the id made a safe file name)."""
    return f"{SESSIONS_DIR}/{safe_name(session_id)}"


#: How media files are named: ``"sha256"`` hashes the bytes (``sha256sum`` verifies the name);
#: ``"agentscope"`` hashes their base64 text, as AgentScope's own workspace names them.
MEDIA_NAMES = ("sha256", "agentscope")


def data_path(data: bytes, extension: str, names: str = "sha256") -> str:
    """Content-addressed path of a media file: ``data/{hash}{extension}`` (see :data:`MEDIA_NAMES`)."""
    if names == "agentscope":
        return f"{DATA_DIR}/{hashlib.sha256(base64.b64encode(data)).hexdigest()}{extension}"
    return f"{DATA_DIR}/{hashlib.sha256(data).hexdigest()}{extension}"


def is_hidden(path: str) -> bool:
    """True for files that are not content: temp files of atomic writes (or under a temp
    folder) and line indexes."""
    return f"/{TMP_PREFIX}" in f"/{path}" or path.endswith(INDEX_SUFFIX)


def json_line(record: dict[str, Any]) -> str:
    """One JSONL record: compact, UTF-8 kept, unknown values as ``str``."""
    return json.dumps(record, ensure_ascii=False, separators=(",", ":"), default=str)


def ledger_line(entry: dict[str, Any]) -> bytes:
    """A ledger line, stamped first with the time of the event (epoch seconds, µs precision).

    A ``time`` already in ``entry`` is kept. gc orders an item's lines by it
    (:func:`workspaces.inventory.fold_status`), so it must be precise.
    """
    return (json_line({"time": round(time.time(), 6), **entry}) + "\n").encode("utf-8")


def estimate_tokens(n_bytes: int) -> int:
    """The ledger's token figure: bytes / 4, rounded up."""
    return (n_bytes + 3) // 4
