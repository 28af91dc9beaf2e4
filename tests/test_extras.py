"""A feature whose extra is missing stops with one line naming the install command.

Each case runs in a fresh interpreter where the extra's top module is made
unimportable (``sys.modules[name] = None``), as on an install without it.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

CASES = [
    ("docker", "docker", "import workspaces.docker"),
    ("e2b", "e2b", "import workspaces.e2b"),
    ("s3fs", "s3", "from workspaces.fsspec import FsspecWorkspace; FsspecWorkspace('s3://bucket/prefix')"),
    ("mcp", "mcp", "import offloader.integrations.mcp"),
    ("strands", "strands", "import offloader.integrations.strands"),
    ("deepagents", "deepagents", "import offloader.integrations.deepagents"),
    ("agentscope", "agentscope", "import offloader.integrations.agentscope"),
    ("agents", "openai-agents", "import offloader.integrations.openai_agents"),
    ("agents", "openai-agents", "import offloader.integrations.openai_agents_session"),
    ("pydantic_ai", "pydantic-ai", "import offloader.integrations.pydantic_ai"),
]


@pytest.mark.parametrize(("module", "extra", "statement"), CASES)
def test_a_missing_extra_is_one_line_naming_the_install(module: str, extra: str, statement: str) -> None:
    script = (
        f"import sys; sys.modules[{module!r}] = None\n"
        "try:\n"
        f"    {statement}\n"
        "except ImportError as exc:\n"
        "    print(type(exc).__name__); print(exc)\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    kind, message = done.stdout.splitlines()
    assert kind == "MissingExtra" and f"pip install 'offloader[{extra}]'" in message, done.stdout + done.stderr


def test_offload_mcp_without_the_extra_is_one_line_and_creates_nothing(tmp_path: Path) -> None:
    script = (
        "import sys; sys.modules['mcp'] = sys.modules['mcp_types'] = None\n"
        "from offloader.cli import main\n"
        f"main(['mcp', '--workdir', {str(tmp_path)!r} + '/ws'])\n"
    )
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert done.returncode == 1
    assert done.stderr.strip().splitlines() == [
        "Error: the MCP server (offload mcp) needs the 'mcp' extra: pip install 'offloader[mcp]' "
        "(from a checkout: pip install -e '.[mcp]'); no module named 'mcp_types'"
    ]
    assert not (tmp_path / "ws").exists()
