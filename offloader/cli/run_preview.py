"""The preview ``offload run`` prints for large output, and its binary-output summary.

:func:`preview_output` is the one call ``offload run`` makes: the signal engine
(:mod:`offloader.signal`) over the stored file, memory-mapped. The stored file
follows :mod:`offloader.core.streams`: stderr lines carry a mark, which the engine
reads as "known stderr" (those lines rank higher and are candidates even
without a keyword).
"""

from __future__ import annotations

from dataclasses import dataclass

from offloader.core.streams import STDERR_MARK_BYTES

__all__ = ["RunPreview", "preview_output", "sniff_binary"]

#: Outputs up to this size get previews measured by the real tokenizer; past it the heuristic
#: counter, as loading the BPE tables would cost more memory than the scan of the output.
EXACT_COUNT_BYTES = 8 << 20
#: Bytes looked at to decide whether an output is binary.
SNIFF_BYTES = 1 << 16
_MAGIC = (
    (b"\x1f\x8b", "gzip data"),
    (b"PK\x03\x04", "zip archive"),
    (b"\x89PNG", "PNG image"),
    (b"\xff\xd8\xff", "JPEG image"),
    (b"GIF8", "GIF image"),
    (b"%PDF", "PDF document"),
    (b"\x7fELF", "ELF executable"),
    (b"BZh", "bzip2 data"),
    (b"\xfd7zXZ\x00", "xz data"),
    (b"(\xb5/\xfd", "zstd data"),
    (b"SQLite format 3\x00", "SQLite database"),
)


@dataclass
class RunPreview:
    """What ``offload run`` prints under its header: the body lines, and what the engine read."""

    body: list[str]
    lines: int
    failure_lines: int
    binary: str | None = None


def sniff_binary(head: bytes, total: int) -> str | None:
    """A one-line summary when ``head`` (the first bytes of a ``total``-byte output) is binary, else None.

    Binary is what the signal engine calls binary (:func:`offloader.signal.binary_reason`:
    NUL bytes, or bytes that are neither UTF-8 nor text in a legacy 8-bit encoding); the
    magic numbers only name the kind.
    """
    from offloader.signal import binary_reason

    if not head or binary_reason(head) is None:
        return None
    kind = next((name for magic, name in _MAGIC if head.startswith(magic)), None)
    first = " ".join(f"{b:02x}" for b in head[:16])
    return f"[binary output: {total:,} bytes ({kind or 'binary data'}), not shown; first bytes: {first}]"


def preview_output(path: str, size: int, preview_tokens: int) -> RunPreview:
    """The preview of the stored output at ``path`` (``size`` bytes) within ``preview_tokens``."""
    from offloader.signal import preview_file
    from offloader.tokens import HeuristicCounter, default_counter

    with open(path, "rb") as f:
        binary = sniff_binary(f.read(SNIFF_BYTES), size)
    counter = default_counter() if size <= EXACT_COUNT_BYTES else HeuristicCounter()
    text, signal = preview_file(path, counter, preview_tokens, stderr_mark=STDERR_MARK_BYTES)
    if binary is not None:
        return RunPreview([binary], signal.lines, 0, binary)
    return RunPreview(text.splitlines(), signal.lines, signal.failure_lines)
