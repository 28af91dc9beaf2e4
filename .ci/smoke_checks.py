"""Run inside a fresh venv holding only the offloader wheel and one extra: import and smoke-run its feature.

Usage (by ``.ci/wheel_smoke.py``): ``python smoke_checks.py TARGET [EXAMPLE.py ...]``. Stdlib plus what
the install brought; nothing from the source tree.
"""

from __future__ import annotations

import importlib
import importlib.metadata
import importlib.util
import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

LOG = "".join(f"step {i} ok\n" for i in range(4000)) + "ERROR: needle in the middle\n" + "done\n" * 100
#: Integration modules, by the extra that installs their framework.
INTEGRATIONS = {
    "agentscope": "offloader.integrations.agentscope",
    "strands": "offloader.integrations.strands",
    "deepagents": "offloader.integrations.deepagents",
    "mcp": "offloader.integrations.mcp",
    "pydantic-ai": "offloader.integrations.pydantic_ai",
    "openai-agents": "offloader.integrations.openai_agents",
}


def check(condition: object, what: str) -> None:
    if not condition:
        raise SystemExit(f"smoke check failed: {what}")


def offload_cli(*args: str, **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["offload", *args], capture_output=True, text=True, timeout=120, **kwargs)


async def _local_and_memory() -> None:
    from offloader import TextBlock, ToolResultBlock
    from offloader.retrieval import retrieve
    from workspaces import LocalWorkspace
    from workspaces.fsspec import FsspecWorkspace

    with tempfile.TemporaryDirectory() as tmp:
        for ws in (LocalWorkspace(Path(tmp) / "ws"), FsspecWorkspace(f"memory://smoke-{os.getpid()}")):
            async with ws:
                ref = await ws.offload_tool_result("s", ToolResultBlock("t1", "bash", (TextBlock(LOG),)))
                found = await retrieve(ws, ref, pattern="needle")
                check("ERROR: needle in the middle" in found, f"{type(ws).__name__}: offload and retrieve")


def core() -> None:
    import offloader

    check(offloader.__version__ == importlib.metadata.version("offloader"), "one version")
    anyio.run(_local_and_memory)
    check(offload_cli("--version").stdout.strip() == f"offload, version {offloader.__version__}", "offload --version")
    check(
        subprocess.run([sys.executable, "-m", "offloader", "--help"], capture_output=True, timeout=60).returncode == 0,
        "python -m offloader",
    )
    with tempfile.TemporaryDirectory() as tmp:
        script = f"print({LOG!r}, end='')"
        done = offload_cli("run", "--workdir", f"{tmp}/ws", "--json", "--", sys.executable, "-c", script)
        info = json.loads(done.stdout)
        check(done.returncode == 0 and info["offloaded"] and "ERROR: needle" in info["text"], "offload run")
        listed = json.loads(offload_cli("ls", "--workdir", f"{tmp}/ws", "--json").stdout)
        check(listed["sessions"][0]["items"] == 1, "offload ls")
        missing = offload_cli("ls", "--workdir", f"{tmp}/typo")
        check(missing.returncode == 1 and not Path(f"{tmp}/typo").exists(), "a missing workdir is an error")
    _missing_extras()


def _missing_extras() -> None:
    """Without its extra, each feature fails with one line naming the install command."""

    def expect(extra: str, attempt: Callable[[], object]) -> None:
        try:
            attempt()
        except ImportError as exc:  # offloader.core.extras.MissingExtra, or an integration's own ImportError
            message = str(exc)
            check(f"pip install 'offloader[{extra}]'" in message and "\n" not in message, f"{extra}: {message}")
            return
        raise SystemExit(f"smoke check failed: {extra} is not installed, yet its feature imported")

    def fsspec_s3() -> object:
        from workspaces.fsspec import FsspecWorkspace

        return FsspecWorkspace("s3://bucket/prefix")

    expect("docker", lambda: importlib.import_module("workspaces.docker"))
    expect("e2b", lambda: importlib.import_module("workspaces.e2b"))
    expect("s3", fsspec_s3)
    for extra, module in INTEGRATIONS.items():
        if importlib.util.find_spec(module) is not None:  # an integration this version ships
            expect(extra, lambda module=module: importlib.import_module(module))  # type: ignore[misc]
    done = offload_cli("mcp", "--workdir", tempfile.gettempdir() + "/never-created")
    lines = done.stderr.strip().splitlines()
    check(done.returncode == 1 and len(lines) == 1 and "offloader[mcp]" in lines[0], f"offload mcp: {done.stderr}")


def docker() -> None:
    """The SDK and DockerWorkspace import; with an engine, examples/docker_sandbox.py runs it for real."""
    import docker as sdk

    from workspaces.docker import DockerWorkspace

    check(DockerWorkspace is not None, "DockerWorkspace imports")
    try:
        sdk.from_env().ping()
    except Exception as exc:
        check(os.environ.get("OFFLOAD_REQUIRE_DOCKER") != "1", f"no Docker engine: {exc}")
        print(f"  no Docker engine ({exc}): import checked, examples/docker_sandbox.py not run")
        raise SystemExit(0) from None


def e2b() -> None:
    from workspaces.e2b import E2BWorkspace

    check(E2BWorkspace is not None, "E2BWorkspace imports")


def s3() -> None:
    from workspaces.fsspec import FsspecWorkspace

    ws = FsspecWorkspace("s3://bucket/prefix", anon=True)
    check(ws.workdir.startswith("s3://"), "an s3:// workspace is built")


def mcp() -> None:
    from mcp.client import Client
    from mcp.client.stdio import StdioServerParameters, stdio_client

    import offloader

    async def go(workdir: str) -> None:
        params = StdioServerParameters(command="offload", args=["mcp", "--workdir", workdir])
        async with Client(stdio_client(params)) as client:
            check(client.server_info.version == offloader.__version__, f"serverInfo.version {client.server_info}")
            names = sorted(t.name for t in (await client.list_tools()).tools)
            check("retrieve_offloaded_content" in names and "offload" in names, f"MCP tools {names}")
            result = await client.call_tool("offload", {"content": LOG, "name": "smoke"})
            check(not result.is_error, "MCP offload")

    with tempfile.TemporaryDirectory() as tmp:
        anyio.run(go, f"{tmp}/ws")


def speed() -> None:
    """The speed extra's scanner (Hyperscan) and token counter (bpe-openai) are the ones picked, and they work."""
    import hyperscan  # noqa: F401 - the extra's point

    from offloader.signal import read_signal
    from offloader.tokens import TiktokenCounter

    found = read_signal(LOG.encode())
    check(found.engine == "hyperscan", f"signal engine {found.engine}")
    check(found.failure_lines >= 1, "the failure line is found")
    fast, reference = TiktokenCounter(), TiktokenCounter(engine="tiktoken")
    check(fast.engine == "bpe-openai", f"token counting engine {fast.engine}")
    check(fast.count(LOG) == reference.count(LOG), "bpe-openai counts what tiktoken counts")


def every_feature() -> None:
    """``all``: every workspace and integration imports together."""
    from workspaces.docker import DockerWorkspace
    from workspaces.e2b import E2BWorkspace
    from workspaces.fsspec import FsspecWorkspace

    check(all((DockerWorkspace, E2BWorkspace, FsspecWorkspace)), "workspaces import")
    for module in INTEGRATIONS.values():
        if importlib.util.find_spec(module) is not None:
            importlib.import_module(module)


CHECKS: dict[str, Callable[[], None]] = {
    "core": core,
    "docker": docker,
    "e2b": e2b,
    "s3": s3,
    "mcp": mcp,
    "speed": speed,
    "all": every_feature,
}


def main(target: str, examples: list[str]) -> None:
    import offloader  # noqa: F401 - every install imports the package

    if target in CHECKS:
        CHECKS[target]()
    elif target in INTEGRATIONS:
        importlib.import_module(INTEGRATIONS[target])
    elif not examples:
        raise SystemExit(f"no smoke check for the extra {target!r}: add one to .ci/smoke_checks.py")
    for name in examples:
        done = subprocess.run([sys.executable, name], capture_output=True, text=True, timeout=300)
        check(done.returncode == 0, f"{name} exited {done.returncode}:\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}")
        print(f"  {name}: ok")


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2:])
