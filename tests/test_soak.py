"""The chaos soak (tests/soak.py), bounded for CI: ~50 s of chaos over Local, S3 (moto) and Docker.

``nox -s soak`` runs it for 5 minutes per backend (``OFFLOAD_SOAK_SECONDS``).
Writers offload and append from several processes sharing sessions while gc
runs with tight limits (``max_age`` 0 and 1 s among them) and processes,
gc included, are SIGKILLed at random; then every promise is checked.
"""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from tests import soak
from tests.conftest import require

_SECONDS = {"local": 12.0, "s3": 20.0, "docker": 20.0}


@pytest.mark.parametrize("backend", ["local", "s3", "docker"])
def test_soak_loses_nothing_with_every_gc_policy_on_and_random_kills(backend: str, tmp_path: Path) -> None:
    if backend == "docker":
        from tests.docker_support import engine_client

        if engine_client() is None:
            require("OFFLOAD_REQUIRE_DOCKER", "no Docker engine answers (start one with .ci/docker-up.sh)")
    if backend == "s3":
        from tests.s3_server import s3_server_or_skip

        s3_server_or_skip()
    seconds = float(os.environ.get("OFFLOAD_SOAK_SECONDS", _SECONDS[backend]))
    figures = soak.run(soak.spec_for(backend, tmp_path), tmp_path, seconds=seconds, kill_every=soak.KILL_EVERY[backend])
    print(backend, figures)
    assert figures["problems"] == []
    assert figures["offloads"] > 0 and figures["messages"] > 0 and figures["gc_runs"] > 0
    assert sum(figures["kills"].values()) > 0 and not any(k.startswith("crashed") for k in figures["kills"])
