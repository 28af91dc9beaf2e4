"""Per-session compaction state, persisted as ``sessions/{sid}/state.json``.

The state holds every decision the compactor made, so the next call (or a new
process) replays them byte for byte: which tool results were replaced and by
what text, which call arguments were shortened, which messages were cut into
the summary and what it says, and which giant messages were truncated.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

__all__ = ["Cut", "Entry", "SessionState", "normalise_id"]

VERSION = 1


def normalise_id(call_id: str) -> str:
    """The key under which a tool-call id is recorded: ``call_1`` == ``call-1`` == ``call1``."""
    return call_id.replace("_", "").replace("-", "")


@dataclass
class Entry:
    """A tool call the compactor summarised (and maybe replaced or cut)."""

    key: str
    id: str
    tool: str
    fp: str
    summary: str
    score: int
    degraded: bool = False
    status: str = "collected"
    ref: str | None = None
    text: str | None = None
    call_input: dict[str, Any] | None = None
    tokens: int = 0
    msg_fp: str = ""
    failed: bool = False


@dataclass
class Cut:
    """The messages cut into one summary message.

    ``positions`` are indexes in the caller's list; ``digest`` hashes the
    fingerprints of the first ``upto`` messages so the cut is replayed only on a
    list that starts with the same history.
    """

    positions: list[int]
    upto: int
    digest: str
    ref: str
    bodies: list[str]
    text: str


@dataclass
class SessionState:
    entries: dict[str, Entry] = field(default_factory=dict)
    cut: Cut | None = None
    truncations: dict[str, dict[str, Any]] = field(default_factory=dict)
    dirty: bool = False
    #: in memory only: message fingerprint -> (edits, final message, tokens), or None if untouched
    memo: dict[str, Any] = field(default_factory=dict, repr=False)
    #: in memory only: the task map last written to ``taskmap.mmd``
    task_map: str | None = None

    def to_json(self) -> bytes:
        doc = {
            "version": VERSION,
            "entries": [dict(vars(e)) for e in self.entries.values()],
            "cut": dict(vars(self.cut)) if self.cut else None,
            "truncations": self.truncations,
        }
        return json.dumps(doc, ensure_ascii=False, separators=(",", ":"), default=str).encode("utf-8")

    @classmethod
    def from_json(cls, raw: bytes) -> SessionState:
        """Parse ``state.json``; ValueError (with the cause) when it is not a state file."""
        try:
            doc = json.loads(raw)
            if not isinstance(doc, dict) or doc.get("version") != VERSION:
                raise ValueError(f"unsupported state version {doc.get('version') if isinstance(doc, dict) else doc!r}")
            entries = {e["key"]: Entry(**e) for e in doc.get("entries", [])}
            cut = Cut(**doc["cut"]) if doc.get("cut") else None
            truncations = dict(doc.get("truncations") or {})
        except (TypeError, KeyError, ValueError) as exc:
            raise ValueError(f"invalid compaction state: {exc}") from exc
        return cls(entries=entries, cut=cut, truncations=truncations)
