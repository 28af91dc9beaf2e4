"""The shell side of E2BWorkspace: script preludes, payload encoding and parsing (no SDK needed)."""

from __future__ import annotations

import base64
from collections.abc import Sequence

from ._posix import EXIT_IO, EXIT_ISDIR, EXIT_OUTSIDE, quote

__all__ = ["MARK", "PRELUDE", "PUT", "cleanup", "decode", "micros"]

MARK = "\x1eoffloader\x1e"  # printed before a script's answer: separates it from what a login profile prints

ENV_CHUNK = 100_000  # base64 characters per environment variable (Linux allows 128 KiB per string)

# Helpers every script starts with (forks kept few: each one costs milliseconds in a busy sandbox).
PRELUDE = rf"""cd -P . && R=$PWD || exit {EXIT_IO}
_in() {{ case "$(realpath -m -- "$1")/" in "$R"/*) ;;
  *) printf 'outside the workdir: %s\n' "$1" >&2; exit {EXIT_OUTSIDE};; esac; }}
_dir() {{ case "$1" in */*) d=${{1%/*}};; *) d=.;; esac; }}
_mk() {{ [ -d "$1" ] || mkdir -p -- "$1" || exit {EXIT_IO}; }}
"""

# Commit a decoded temp file ($2) to its target ($1); $3 = 1 for exclusive. Prints 1 (written) or 0 (existed).
# Temp files left over (exclusive losers) are removed by the script's EXIT trap.
PUT = rf"""_put() {{
  _dir "$1"; _in "$d"; _mk "$d"
  if [ "$3" = 1 ]; then
    if ln -T -- "$2" "$1" 2>/dev/null; then echo 1
    elif [ -e "$1" ] || [ -L "$1" ]; then echo 0
    else printf 'cannot create %s\n' "$1" >&2; exit {EXIT_IO}; fi
  else
    if [ -d "$1" ] && [ ! -L "$1" ]; then exit {EXIT_ISDIR}; fi
    mv -f -T -- "$2" "$1" || exit {EXIT_IO}; echo 1
  fi
}}
"""


def micros(stamp: str) -> float:
    """``find``'s ``%T@`` (nanoseconds) as the Stat RPC reports it (a datetime: nanoseconds
    rounded to microseconds, as protobuf's ``to_datetime`` does), so ``_list`` and ``_stat``
    agree exactly and gc's "changed since the scan" check compares like with like."""
    whole, _, frac = stamp.partition(".")
    nanos = int((frac + "000000000")[:9])
    return (int(whole) * 10**6 + round(nanos / 1000)) / 10**6


def cleanup(temps: Sequence[str]) -> str:
    """An EXIT trap removing the temp files still there (no process spawned when none is)."""
    body = " ".join(f"[ ! -e {quote(t)} ] || rm -f -- {quote(t)};" for t in temps)
    return f"trap {quote(body)} EXIT"


def decode(envs: dict[str, str], name: str, data: bytes) -> str:
    """Put ``data`` base64-encoded into environment variables; return the shell pipeline that decodes it."""
    text = base64.b64encode(data).decode("ascii")
    parts = []
    for j in range(0, max(len(text), 1), ENV_CHUNK):
        key = f"{name}_{j // ENV_CHUNK}"
        envs[key] = text[j : j + ENV_CHUNK]
        parts.append(f'"${key}"')
    return f"printf %s {' '.join(parts)} | base64 -d"
