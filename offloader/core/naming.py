"""Turn untrusted ids into safe, stable file-name components.

An id that is already a plain name (ASCII letters, digits, ``._-``, at most 64
characters, not starting with ``.``) is used unchanged so paths stay readable.
Anything else -- slashes, ``..``, NUL, control characters,
non-ASCII, 2 KB ids -- becomes ``{slug}-{hash}``: a short readable slug of the
safe characters plus 16 hex digits of the SHA-256 of the exact id. The hash
makes the mapping collision-free in practice and stable across processes.
"""

from __future__ import annotations

import hashlib
import re

__all__ = ["MAX_PLAIN_LENGTH", "is_plain_name", "safe_name"]

MAX_PLAIN_LENGTH = 64
_PLAIN = re.compile(r"[A-Za-z0-9_\-][A-Za-z0-9._\-]{0,63}")
_UNSAFE_RUN = re.compile(r"[^A-Za-z0-9_\-]+")
_SLUG_LENGTH = 40
_HASH_LENGTH = 16
# A plain id shaped like an encoded one is encoded too, so the two namespaces
# never meet and the mapping stays injective.
_LOOKS_ENCODED = re.compile(r".*-[0-9a-f]{16}")


def is_plain_name(value: str) -> bool:
    """True when ``value`` can be used as a file name exactly as given."""
    return bool(_PLAIN.fullmatch(value)) and value not in {".", ".."} and not _LOOKS_ENCODED.fullmatch(value)


def safe_name(value: str) -> str:
    """Return a file-name component for ``value`` that cannot escape a folder.

    Raises ``TypeError`` for non-strings and ``ValueError`` for the empty string,
    because an empty id is a caller bug, not something to store under.
    """
    if not isinstance(value, str):
        raise TypeError(f"id must be a str, got {type(value).__name__}")
    if value == "":
        raise ValueError("id must not be empty")
    if is_plain_name(value):
        return value
    digest = hashlib.sha256(value.encode("utf-8", "surrogatepass")).hexdigest()[:_HASH_LENGTH]
    slug = _UNSAFE_RUN.sub("_", value).strip("_")[:_SLUG_LENGTH].rstrip("_")
    return f"{slug}-{digest}" if slug else f"id-{digest}"
