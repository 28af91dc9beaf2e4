"""Optional features and the extra that installs each: one clear error when an extra is missing.

``require("docker", extra="docker", feature="DockerWorkspace")`` imports the
module, or raises :class:`MissingExtra` (an ``ImportError``) whose one-line
message names the install command, e.g.
``DockerWorkspace needs the 'docker' extra: pip install 'offloader[docker]' (from a checkout:
pip install -e '.[docker]'); no module named 'docker'``.
"""

from __future__ import annotations

import importlib
from types import ModuleType

__all__ = ["MissingExtra", "install_hint", "require"]


class MissingExtra(ImportError):
    """An optional dependency of a feature is not installed; the message says which extra installs it."""

    def __init__(self, feature: str, extra: str, missing: str | None) -> None:
        self.feature = feature
        self.extra = extra
        detail = f"; no module named {missing!r}" if missing else ""
        super().__init__(f"{feature} needs the {extra!r} extra: {install_hint(extra)}{detail}", name=missing)


def install_hint(extra: str) -> str:
    """The command that installs ``extra``."""
    return f"pip install 'offloader[{extra}]' (from a checkout: pip install -e '.[{extra}]')"


def require(module: str, *, extra: str, feature: str) -> ModuleType:
    """Import ``module``; a missing module (or a missing dependency of it) raises :class:`MissingExtra`."""
    try:
        return importlib.import_module(module)
    except ModuleNotFoundError as exc:
        raise MissingExtra(feature, extra, exc.name) from exc
