"""Shared fixtures.

``workspace`` runs a test once per backend listed in ``tests/backends``;
``anyio_backend`` runs async tests on asyncio (and trio where marked).
"""

from __future__ import annotations

import importlib
import os
from collections.abc import AsyncIterator
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


@pytest.fixture(params=BACKENDS)
async def workspace(request: pytest.FixtureRequest, tmp_path: Path) -> AsyncIterator[Any]:
    module = importlib.import_module(f"tests.backends.{request.param}")
    async with module.open_workspace(tmp_path) as ws:
        yield ws
