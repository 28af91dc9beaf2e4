"""Every script in ``examples/`` runs offline, as a user would run it, and succeeds.

Each example runs in a subprocess (``python examples/NAME.py``) with a fresh
temporary working directory and no network credentials. Examples that need a
Docker engine are skipped without one unless CI demands it
(``OFFLOAD_REQUIRE_DOCKER=1`` turns the skip into a failure). Where an example
prints a known final answer, the test checks it too.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import require

EXAMPLES_DIR = Path(__file__).resolve().parent.parent / "examples"
EXAMPLES = sorted(p.name for p in EXAMPLES_DIR.glob("*.py") if not p.name.startswith("_"))
TIMEOUT = 120

#: Text an example must print (its final answer): proves the scripted run went the whole way.
EXPECTED_OUTPUT = {
    "agentscope_offloader.py": "--- answer: Unit 6503 failed: undefined symbol 'frobnicate'.",
    "deepagents_backend.py": "--- answer: Order 7777 (customer-17, 99,999.00) was refunded.",
    "strands_plugin.py": "--- answer: The deploy failed at step 4187: certificate expired.",
    "plain_loop.py": "--- answer: The slow query is the one on orders.created_at.",
    "s3_offloader.py": "OK: the whole log is on S3 and the failure is retrievable",
    "pydantic_ai_agent.py": "--- answer: test_refund_rounding failed: expected 10.00, got 9.99",
    "openai_agents.py": "--- later: This conversation has 2 questions so far.",
}

#: Examples that need a Docker engine.
NEEDS_DOCKER = {"docker_sandbox.py"}


def _docker_available() -> bool:
    from tests.docker_support import engine_client

    return engine_client() is not None


def test_examples_exist() -> None:
    assert {
        "agentscope_offloader.py",
        "strands_plugin.py",
        "deepagents_backend.py",
        "plain_loop.py",
        "docker_sandbox.py",
        "s3_offloader.py",
        "compaction.py",
        "pydantic_ai_agent.py",
        "openai_agents.py",
    } <= set(EXAMPLES)


@pytest.mark.parametrize("name", EXAMPLES)
def test_example_runs_offline_and_succeeds(name: str, tmp_path: Path) -> None:
    if name in NEEDS_DOCKER and not _docker_available():
        require("OFFLOAD_REQUIRE_DOCKER", f"{name} needs a Docker engine")
    env = {k: v for k, v in os.environ.items() if not k.endswith(("_API_KEY", "_TOKEN"))}
    env["PYTHONUNBUFFERED"] = "1"
    proc = subprocess.run(
        [sys.executable, str(EXAMPLES_DIR / name)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=TIMEOUT,
        check=False,
    )
    assert proc.returncode == 0, f"{name} exited {proc.returncode}\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}"
    assert proc.stdout.strip(), f"{name} printed nothing"
    expected = EXPECTED_OUTPUT.get(name)
    if expected is not None:
        assert expected in proc.stdout, proc.stdout[-2000:]
