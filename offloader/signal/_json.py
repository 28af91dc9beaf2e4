"""JSON documents, read only as far as the preview needs: a bounded prefix and suffix.

A 5 MB one-line JSON document is never parsed whole. A token scanner reads its
first :data:`PREFIX_CHARS` characters (top-level keys, types, the first items and
a pretty-printed head), and a backward scanner reads the scalar members at its
end (a ``total`` or ``next_cursor`` after a big array). Scalars are shown
verbatim, as the source wrote them (exact digits of huge integers included).
"""

from __future__ import annotations

import json
import math
import re
from dataclasses import dataclass, field
from typing import Any

__all__ = ["JsonView", "json_shape", "read_json"]

PREFIX_CHARS = 16 * 1024
SUFFIX_CHARS = 16 * 1024
_SCALAR_CHARS = 160
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


_DECODER = json.JSONDecoder()
_WS = " \t\r\n"
#: Cuts tried when parsing the first items of a big array at once (see _Reader.leading_items).
_BATCH_TRIES = 4
_CONTAINERS = frozenset((dict, list))


class _Cut(Exception):
    """The window ended (or the pretty view is full) inside a container."""


def _ws(s: str, i: int) -> int:
    while i < len(s) and s[i] in _WS:
        i += 1
    return i


def read_json(head: str, tail: str, size: int, complete: bool, *, pretty_chars: int) -> JsonView | None:
    """A :class:`JsonView` if ``head`` starts one JSON object or array, else None.

    ``head`` is the document's start (all of it when ``complete``), ``tail`` its
    last characters (read backwards for trailing scalar members), ``size`` its length.
    Values are parsed by the C JSON scanner, one top-level member (or item) at a
    time, and never past the window: a container too big for it is opened and
    laid out item by item, as ``json.dumps(indent=2)`` would, only as far as the
    pretty view needs.
    """
    i = _ws(head, 0)
    if i >= len(head) or head[i] not in "{[":
        return None
    view = JsonView("object" if head[i] == "{" else "array", size, complete)
    out: list[str] = []
    reader = _Reader(head, pretty_chars, out, complete)
    try:
        end = reader.container(i, 0, view)
    except _Cut:
        view.complete = False
    except ValueError:
        return None  # not JSON
    else:
        if head[_ws(head, end) :].strip():
            return None  # something after the value: JSON lines (NDJSON), a log line in brackets
    view.pretty = "".join(out)[:pretty_chars]
    if not view.complete and view.kind == "object":
        view.trailing = _trailing_members(tail)
    return view


class _Reader:
    """Lays out a JSON prefix as ``json.dumps(indent=2)`` does, recording the top level in a view."""

    def __init__(self, s: str, pretty_chars: int, out: list[str], complete: bool) -> None:
        self.s = s
        self.room = pretty_chars
        self.out = out
        self.complete = complete
        self.encoders: dict[str, json.JSONEncoder] = {}  # one flat encoder per indent (see _layout)

    def lay_out(self, value: object, pad: str) -> None:
        start = len(self.out)
        _layout(value, pad, self.out, self.encoders)
        self.room -= sum(len(part) for part in self.out[start:])

    def leading_items(self, i: int) -> tuple[list[object], str | None, int] | None:
        """The first items of the array at ``i`` that fill the room, parsed in one call.

        The array is cut after an item (at a comma) and closed; the parse succeeds
        only when the cut is between two items at its top level (a cut inside a
        string or a nested value leaves it unclosed), so the items are those of the
        document. Returns (items, their layout by orjson or None, index of the comma
        after the last item), or None.
        """
        s = self.s
        first = _ws(s, i + 1)
        if first >= len(s):
            return None
        closer = {"{": "}", "[": "]"}.get(s[first])
        limit = min(len(s), i + self.room + 64)  # a compact item is no longer than its layout
        for _ in range(_BATCH_TRIES):
            if closer is None:  # scalar items: any comma outside a string
                cut = s.rfind(",", first, limit)
            else:  # container items: a comma right after a closer
                close = s.rfind(closer, first, limit)
                cut = _ws(s, close + 1) if close >= 0 else -1
                if 0 <= cut < len(s) and s[cut] != ",":
                    limit = close
                    continue
            if cut <= first:
                return None
            parsed = _parse_items(s[i:cut] + "]")
            if parsed is not None:
                return parsed[0], parsed[1], cut
            limit = cut
        return None

    def emit(self, text: str) -> None:
        self.out.append(text)
        self.room -= len(text)

    def value(self, i: int, depth: int, *, big: bool = False) -> tuple[object, int]:
        """Parse one value at ``i``; raise _Cut when it runs past the window.

        ``big``: the value may be most of the window (a top-level member). orjson
        (the ``speed`` extra), 5-8x faster than the C scanner at failing, first
        says whether a container runs past the window's end; the value itself is
        always the C scanner's.
        """
        if big and not self.complete and self.s[i] in "{[" and _runs_past_the_window(self.s, i):
            raise _Cut
        try:
            return _DECODER.raw_decode(self.s, i)
        except json.JSONDecodeError:
            if self.complete or self.s[i] not in "{[":
                if not self.complete and self.s[i] == '"':
                    raise _Cut from None  # a string cut by the window
                raise
            raise _Cut from None

    def container(self, i: int, depth: int, view: JsonView | None) -> int:
        """Lay out the container at ``i`` (recording top-level members/items in ``view``); return its end."""
        s = self.s
        opening = i
        is_object = s[i] == "{"
        close = "}" if is_object else "]"
        pad = "  " * (depth + 1)
        i = _ws(s, i + 1)
        if i < len(s) and s[i] == close:
            self.emit("{}" if is_object else "[]")
            return i + 1
        self.emit("{" if is_object else "[")
        first = True
        if view is None and not is_object and not self.complete:  # the first items of a cut array, at once
            batch = self.leading_items(opening)
            if batch is not None:
                items, laid_out, i = batch
                if laid_out is not None:  # orjson's layout, shifted to this depth
                    shift = "  " * depth
                    self.emit("\n" + shift + laid_out.replace("\n", "\n" + shift))
                else:
                    for item in items:
                        if self.room <= 0:
                            raise _Cut
                        self.emit(("\n" if first else ",\n") + pad)
                        first = False
                        self.lay_out(item, pad)
                first = False
                if self.room <= 0:
                    raise _Cut
                i = _ws(s, i + 1)  # past the comma after the last item
        while True:
            if i >= len(s):
                raise _Cut
            self.emit(("\n" if first else ",\n") + pad)
            first = False
            key_raw = ""
            if is_object:
                key, j = self.value(i, depth)
                if not isinstance(key, str):
                    raise ValueError("object key is not a string")
                key_raw = s[i:j]
                i = _ws(s, j)
                if i >= len(s) or s[i] != ":":
                    raise ValueError("':' expected")
                i = _ws(s, i + 1)
                self.emit(_quote(key) + ": ")
            if i >= len(s):
                raise _Cut
            try:
                value, j = self.value(i, depth, big=view is not None)
            except _Cut:
                if view is not None and is_object:
                    view.members.append((key_raw, "object" if s[i] == "{" else "array"))
                if view is not None and not is_object:
                    view.items += 1
                if self.room > 0:
                    self.container(i, depth + 1, None)  # lay out its first items
                raise
            if view is not None:
                if is_object:
                    view.members.append((key_raw, _describe(value, s[i:j])))
                else:
                    view.items += 1
                    if view.items == 1 and isinstance(value, dict):
                        view.first_keys = [str(k) for k in value]
            if self.room > 0:
                self.lay_out(value, pad)
            elif view is None:
                raise _Cut  # the view is full: nothing more to lay out here
            i = _ws(s, j)
            if i >= len(s):
                raise _Cut
            if s[i] == close:
                self.emit("\n" + "  " * depth + close)
                return i + 1
            if s[i] != ",":
                raise ValueError("',' expected")
            i = _ws(s, i + 1)


def _parse_items(closed: str) -> tuple[list[object], str | None] | None:
    """The items of the closed array text ``closed`` and their layout (orjson's, when it matches json's).

    The layout is the array's ``json.dumps(indent=2)`` without its brackets: items
    indented one level, each line break followed by the indent. None where the
    text is not one array.
    """
    laid_out = _orjson_layout(closed)
    if laid_out is not None:
        return laid_out
    try:
        items, end = _DECODER.raw_decode(closed)
    except ValueError:
        return None
    if end != len(closed) or not isinstance(items, list) or not items:
        return None
    return items, None


def _orjson() -> Any:
    """The orjson module (the ``speed`` extra), or None: each caller then leaves the work to the json module."""
    try:
        import orjson
    except ImportError:
        return None
    return orjson


def _orjson_layout(closed: str) -> tuple[list[object], str] | None:
    """orjson's items and layout of ``closed``, where they are json's (None without orjson, or on doubt)."""
    orjson = _orjson()
    if orjson is None:
        return None
    try:
        items = orjson.loads(closed)
    except orjson.JSONDecodeError:
        return None  # NaN, a lone surrogate, ...: the C scanner decides
    if not isinstance(items, list) or not items or not _written_alike(items):
        return None
    return items, orjson.dumps(items, option=orjson.OPT_INDENT_2).decode()[2:-2]


def _written_alike(items: list[object]) -> bool:
    """Whether orjson read and writes these values as the json module does.

    orjson reads an integer past 64 bits as a float, and writes a float under
    1e-4 without an exponent; any float outside [1e-4, 1e16) sends the items to
    the json module (other scalars, and the indent, are written alike).
    """
    stack: list[object] = [items]
    while stack:
        value = stack.pop()
        for v in value.values() if isinstance(value, dict) else value:  # type: ignore[attr-defined]
            kind = type(v)
            if kind is float:
                if v and not 1e-4 <= abs(v) < 1e16:  # type: ignore[operator]
                    return False
            elif kind is dict or kind is list:
                stack.append(v)
    return True


def _runs_past_the_window(s: str, i: int) -> bool:
    """Whether orjson reaches the end of ``s`` inside the value at ``i`` (False without orjson, or on doubt)."""
    orjson = _orjson()
    if orjson is None:
        return False
    try:
        orjson.loads(s[i:])
    except orjson.JSONDecodeError as exc:
        # Any other complaint (content after the value, NaN, ...) leaves the decision to the C scanner.
        return str(exc).startswith("unexpected end of data")
    return False


_quote = json.encoder.encode_basestring  # what json.dumps(..., ensure_ascii=False) writes for a str


def _layout(value: object, pad: str, out: list[str], encoders: dict[str, json.JSONEncoder] | None = None) -> None:
    """Append ``json.dumps(value, indent=2, ensure_ascii=False)``, its lines indented by ``pad``, to ``out``.

    The same text, without the pure-Python encoder that ``indent`` selects.
    ``encoders`` keeps the flat encoder of each indent for the next value.
    """
    if isinstance(value, str):
        out.append(_quote(value))
    elif value is None or value is True or value is False:
        out.append("null" if value is None else "true" if value else "false")
    elif isinstance(value, int):
        out.append(int.__repr__(value))
    elif isinstance(value, float) and math.isfinite(value):
        out.append(float.__repr__(value))
    elif isinstance(value, float):
        out.append("NaN" if value != value else "Infinity" if value > 0 else "-Infinity")
    elif (
        isinstance(value, dict | list)
        and value
        and _CONTAINERS.isdisjoint(map(type, value.values() if isinstance(value, dict) else value))
    ):
        # Only scalars inside: one call of the C encoder, its item separator carrying the indent.
        inner = pad + "  "
        flat = encoders.get(inner) if encoders is not None else None
        if flat is None:
            flat = json.JSONEncoder(ensure_ascii=False, separators=(",\n" + inner, ": "), check_circular=False)
            if encoders is not None:
                encoders[inner] = flat
        body = flat.encode(value)
        out.append(f"{body[0]}\n{inner}{body[1:-1]}\n{pad}{body[-1]}")
    elif isinstance(value, dict | list):
        opener, closer = ("{", "}") if isinstance(value, dict) else ("[", "]")
        if not value:
            out.append(opener + closer)
            return
        members = (
            ((f"{_quote(key)}: ", item) for key, item in value.items())
            if isinstance(value, dict)
            else (("", item) for item in value)
        )
        inner, sep = pad + "  ", opener + "\n"
        for label, item in members:
            out.append(f"{sep}{inner}{label}")
            _layout(item, inner, out, encoders)
            sep = ",\n"
        out.append(f"\n{pad}{closer}")
    else:  # not produced by the JSON decoder
        out.append(json.dumps(value, indent=2, ensure_ascii=False).replace("\n", "\n" + pad))


def _describe(value: object, raw: str) -> str:
    if isinstance(value, dict):
        return f"object({len(value)} keys)"
    if isinstance(value, list):
        return f"array[{len(value)}]"
    return _scalar(raw)


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
