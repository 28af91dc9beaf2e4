"""JSON documents, read only as far as the preview needs: a bounded prefix and suffix.

A 5 MB one-line JSON document is never parsed whole. A token scanner reads its
first :data:`PREFIX_CHARS` characters (top-level keys, types, the first items and
a pretty-printed head), and a backward scanner reads the scalar members at its
end (a ``total`` or ``next_cursor`` after a big array). Scalars are shown
verbatim, as the source wrote them (exact digits of huge integers included).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["JsonView", "json_shape", "read_json"]

PREFIX_CHARS = 64 * 1024
SUFFIX_CHARS = 16 * 1024
_SCALAR_CHARS = 160
_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],:]|[^\s{}\[\],:"]+', re.S)
_LITERAL = re.compile(r"-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?|true|false|null|NaN|-?Infinity")
_STOP = frozenset(' \t\r\n,:[]{}"')


@dataclass
class JsonView:
    """What the bounded scan learned about one JSON document."""

    kind: str  # "object" | "array"
    size: int
    complete: bool  # the whole document was read
    members: list[tuple[str, str]] = field(default_factory=list)  # (raw key, type or raw scalar)
    trailing: list[tuple[str, str]] = field(default_factory=list)  # scalar members read from the end
    items: int = 0  # top-level array items seen
    first_keys: list[str] = field(default_factory=list)
    pretty: str = ""

    def shape(self, max_members: int = 24) -> str:
        """One line: the kind, size, top-level members (scalars verbatim) or items."""
        what = f"JSON {self.kind}, {self.size:,} bytes"
        if self.kind == "array":
            count = f"{self.items:,}" if self.complete else f"at least {self.items:,}"
            desc = f"{what}: {count} items"
            if self.first_keys:
                desc += f"; first item keys: {', '.join(self.first_keys[:16])}"
            return desc
        members = list(self.members)
        known = {k for k, _ in members}
        members += [(k, v) for k, v in self.trailing if k not in known]
        shown = ", ".join(f"{k}: {v}" for k, v in members[:max_members])
        more = f", ... {len(members) - max_members} more" if len(members) > max_members else ""
        partial = "" if self.complete else " (members read from the start and the end)"
        return f"{what}{partial}: {shown}{more}"


def _scalar(raw: str) -> str:
    return raw if len(raw) <= _SCALAR_CHARS else f'{raw[:_SCALAR_CHARS]}..." ({len(raw):,} characters)'


def read_json(head: str, tail: str, size: int, complete: bool, *, pretty_chars: int) -> JsonView | None:
    """A :class:`JsonView` if ``head`` starts one JSON object or array, else None.

    ``head`` is the document's start (all of it when ``complete``), ``tail`` its
    last characters (read backwards for trailing scalar members), ``size`` its length.
    """
    first = head.lstrip()[:1]
    if first not in ("{", "["):
        return None
    view = JsonView("object" if first == "{" else "array", size, complete)
    out: list[str] = []
    out_len = 0
    depth = 0
    key: str | None = None
    prev = ""
    closed_at = -1
    item_keys: list[str] | None = None
    for m in _TOKEN.finditer(head):
        tok = m.group()
        if closed_at >= 0:
            return None  # something after the document: not one JSON value (NDJSON, a log)
        if tok[0] == '"' or tok in "{}[],:":
            pass
        elif not _LITERAL.fullmatch(tok):
            if m.end() == len(head) and not complete:
                break  # cut by the window
            return None
        if out_len < pretty_chars:
            piece = _pretty_piece(tok, prev, depth)
            out.append(piece)
            out_len += len(piece)
        if tok in "{[":
            if depth == 1 and view.kind == "object" and key is not None:
                view.members.append((key, "object" if tok == "{" else "array"))
                key = None
            if depth == 1 and view.kind == "array" and tok == "{" and item_keys is None:
                item_keys = []
            depth += 1
        elif tok in "}]":
            depth -= 1
            if depth < 0:
                return None
            if depth == 0:
                closed_at = m.end()
                if view.kind == "array" and prev != "[":
                    view.items += 1
            if depth == 1 and item_keys is not None and view.first_keys == []:
                view.first_keys = item_keys
        elif tok == ",":
            if depth == 1 and view.kind == "array":
                view.items += 1
        elif tok == ":":
            pass
        else:  # a string or literal
            if depth == 1 and view.kind == "object":
                if key is None:
                    key = tok
                else:
                    view.members.append((key, _scalar(tok)))
                    key = None
            elif depth == 2 and item_keys is not None and view.first_keys == [] and prev in ("{", ","):
                item_keys.append(tok.strip('"'))
        prev = tok
    if complete and closed_at < 0:
        return None  # truncated or not JSON
    pretty = "".join(out)
    view.pretty = pretty[:pretty_chars]
    if not complete and view.kind == "object":
        view.trailing = _trailing_members(tail)
    return view


def _pretty_piece(tok: str, prev: str, depth: int) -> str:
    """The layout of one token after ``prev``, as ``json.dumps(indent=2)`` would place it."""
    if tok in "}]":
        return tok if prev in ("{", "[") else "\n" + "  " * (depth - 1) + tok
    lead = ""
    if prev in ("{", "[", ","):
        lead = "\n" + "  " * depth
    if tok == ":":
        return ": "
    return lead + tok


def _read_back_string(s: str, end: int) -> int:
    """Index of the opening quote of the string whose closing quote is at ``end`` (-1 if not found)."""
    j = end
    while True:
        j = s.rfind('"', 0, j)
        if j < 0:
            return -1
        slashes = 0
        while j - 1 - slashes >= 0 and s[j - 1 - slashes] == "\\":
            slashes += 1
        if slashes % 2 == 0:
            return j


def _skip_ws_back(s: str, i: int) -> int:
    while i >= 0 and s[i] in " \t\r\n":
        i -= 1
    return i


def _trailing_members(s: str) -> list[tuple[str, str]]:
    """Scalar members at the end of an object, read backwards until a container or the window edge."""
    found: list[tuple[str, str]] = []
    i = _skip_ws_back(s, len(s) - 1)
    if i < 0 or s[i] != "}":
        return found
    i = _skip_ws_back(s, i - 1)
    while i >= 0:
        if s[i] == '"':
            j = _read_back_string(s, i)
            if j < 0:
                break
            value, i = s[j : i + 1], j - 1
        elif s[i] in "]}":
            break  # a container: its size is unknown from here
        else:
            j = i
            while j >= 0 and s[j] not in _STOP:
                j -= 1
            value, i = s[j + 1 : i + 1], j
            if not _LITERAL.fullmatch(value):
                break
        i = _skip_ws_back(s, i)
        if i < 0 or s[i] != ":":
            break
        i = _skip_ws_back(s, i - 1)
        if i < 0 or s[i] != '"':
            break
        j = _read_back_string(s, i)
        if j < 0:
            break
        found.append((s[j : i + 1], _scalar(value)))
        i = _skip_ws_back(s, j - 1)
        if i < 0 or s[i] != ",":
            break
        i = _skip_ws_back(s, i - 1)
    found.reverse()
    return found


def json_shape(value: object, *, max_keys: int = 20) -> str:
    """A one-line summary of a parsed JSON value: its top-level keys with types, or array length."""
    if isinstance(value, dict):
        keys = list(value)
        shown = ", ".join(f"{k}: {_type_name(value[k])}" for k in keys[:max_keys])
        more = f", ... {len(keys) - max_keys} more" if len(keys) > max_keys else ""
        return f"JSON object with {len(keys)} keys: {shown}{more}"
    if isinstance(value, list):
        if not value:
            return "JSON array, empty"
        kinds = sorted({_type_name(v).split("(")[0].split("[")[0] for v in value[:1000]})
        desc = f"JSON array of {len(value)} items ({', '.join(kinds)})"
        if isinstance(value[0], dict):
            desc += f"; first item keys: {', '.join(map(str, list(value[0])[:max_keys]))}"
        return desc
    return f"JSON {_type_name(value)}"


def _type_name(value: object) -> str:
    if isinstance(value, dict):
        return f"object({len(value)} keys)"
    if isinstance(value, list):
        return f"array[{len(value)}]"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int | float):
        return "number"
    return "null"
