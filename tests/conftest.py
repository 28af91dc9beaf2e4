"""Shared fixtures.

``workspace`` runs a test once per backend listed in ``tests/backends``;
``anyio_backend`` runs async tests on asyncio (and trio where marked). Every
test runs under the event-loop blocking detector (``tests/blocking.py``).
"""

from __future__ import annotations

import importlib
import os
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.backends import BACKENDS


def require(env_var: str, reason: str) -> None:
    """Skip, unless CI demands the dependency (then fail loudly)."""
    if os.environ.get(env_var) == "1":
        pytest.fail(f"{reason} (and {env_var}=1 forbids skipping)")
    pytest.skip(reason)


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@pytest.fixture(autouse=True)
def _no_blocking_on_the_event_loop() -> Iterator[None]:
    """Every test runs under the blocking detector (tests/blocking.py): asyncio and trio alike."""
    from tests.blocking import detect_blocking

    with detect_blocking():
        yield


@pytest.fixture(params=BACKENDS)
async def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    module = importlib.import_module(f"tests.backends.{request.param}")
    async with module.open_workspace(tmp_path) as ws:
        yield ws


@pytest.fixture
def full_disk(tmp_path: Path) -> Iterator[Path]:
    """A 1 MB tmpfs, mounted for the test (the test machine runs as root): a disk that fills up."""
    mnt = tmp_path / "tiny"
    mnt.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", str(mnt)], capture_output=True)
    if done.returncode != 0:
        require("OFFLOAD_REQUIRE_TMPFS", f"cannot mount a tmpfs here (needs root): {done.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)
