"""Decoding shared by the converters of every framework shape: media given as ``data:`` URLs
or base64 (OpenAI chat parts, Responses parts, Anthropic and AgentScope sources), and
tool-call arguments given as JSON text or a mapping.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Mapping
from typing import Any

from .messages import DataBlock

__all__ = ["data_from_url", "decode_b64", "parse_arguments", "parse_data_url"]


def decode_b64(data: str | bytes, what: str) -> bytes:
    """Strict base64 decoding; ``what`` names the source in the ValueError."""
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError) as exc:
        raise ValueError(f"{what}: invalid base64 data ({exc})") from None


def parse_data_url(url: str) -> tuple[str, bytes] | None:
    """Decode ``data:<mt>;base64,<data>``; None for any other URL."""
    if not url.startswith("data:"):
        return None
    header, sep, payload = url[5:].partition(",")
    if not sep:
        raise ValueError("malformed data: URL (no comma)")
    media_type = header.split(";", 1)[0] or "application/octet-stream"
    if header.endswith(";base64"):
        return media_type, decode_b64(payload, "data: URL")
    from urllib.parse import unquote_to_bytes

    return media_type, unquote_to_bytes(payload)


def data_from_url(url: str, media_type: str | None, name: str | None) -> DataBlock:
    """A media block for ``url``: inline bytes for a ``data:`` URL, else the URL itself."""
    parsed = parse_data_url(url)
    if parsed is not None:
        return DataBlock(media_type=media_type or parsed[0], data=parsed[1], name=name)
    return DataBlock(media_type=media_type or "application/octet-stream", url=url, name=name)


def parse_arguments(raw: Any) -> dict[str, Any]:
    """Tool-call arguments as a dict: a mapping as is, JSON text parsed; anything else kept
    under ``_raw`` (text that is not a JSON object) or ``_value``."""
    if raw is None or raw == "":
        return {}
    if isinstance(raw, Mapping):
        return dict(raw)
    if isinstance(raw, str):
        try:
            value = json.loads(raw)
        except json.JSONDecodeError:
            return {"_raw": raw}
        return value if isinstance(value, dict) else {"_value": value}
    return {"_value": raw}
