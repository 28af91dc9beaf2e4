"""Offload a big tool result into a Docker container and read it back, offline.

The content lands in the container's own filesystem, where a sandboxed code
agent's shell sees it; the agent gets a short reference and Read/Grep/Glob
tools instead of 5 MB of log.

    python examples/docker_sandbox.py [--image IMAGE]

Needs a Docker engine. Without ``--image`` it uses ``busybox:latest`` if the
engine has it, else builds a tiny image from the host's static busybox
(``/bin/busybox``, Debian package ``busybox-static``) with ``docker import``:
no registry, no network.

Install (from a checkout): ``pip install -e '.[docker]'``.
"""

from __future__ import annotations

import argparse
import io
import subprocess
import tarfile

import anyio
import docker
import docker.errors

from offloader import TextBlock, ToolResultBlock
from workspaces.docker import DockerWorkspace

LOCAL_TAG = "offloader-example/busybox:latest"


def ensure_image(client: docker.DockerClient, wanted: str | None) -> str:
    """``wanted``, or busybox:latest, or a busybox image imported from /bin/busybox."""
    for tag in (wanted, "busybox:latest", LOCAL_TAG):
        if tag is None:
            continue
        try:
            client.images.get(tag)
            return tag
        except docker.errors.ImageNotFound:
            if tag == wanted:
                raise
    applets = subprocess.run(["/bin/busybox", "--list"], capture_output=True, text=True, check=True).stdout.split()
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w") as tar:
        for folder in ("bin", "tmp"):
            info = tarfile.TarInfo(folder)
            info.type, info.mode = tarfile.DIRTYPE, 0o1777 if folder == "tmp" else 0o755
            tar.addfile(info)
        tar.add("/bin/busybox", "bin/busybox")
        for name in applets:
            link = tarfile.TarInfo(f"bin/{name}")
            link.type, link.linkname = tarfile.SYMTYPE, "busybox"
            if name != "busybox":
                tar.addfile(link)
    repository, _, version = LOCAL_TAG.rpartition(":")
    client.api.import_image_from_data(buf.getvalue(), repository=repository, tag=version, changes=["ENV PATH=/bin"])
    return LOCAL_TAG


def build_log() -> str:
    lines = [f"[{i:06d}] compiling module_{i % 300}.c ... ok" for i in range(120_000)]
    lines[81_234] = "[081234] ERROR module_234.c:17: undefined reference to `frobnicate'"
    lines.append("BUILD FAILED (1 error)")
    return "\n".join(lines)


async def main(image: str | None) -> None:
    client = docker.from_env()
    tag = ensure_image(client, image)
    async with DockerWorkspace(image=tag, client=client, workdir="/workspace") as ws:
        log = build_log()
        ref = await ws.offload_tool_result("demo", ToolResultBlock("call_1", "make", (TextBlock(log),)))
        print(f"offloaded {len(log):,} bytes of build log to {ref} in container {ws.container.name}\n")

        shell = await ws.exec(["sh", "-c", 'wc -c "$1" && grep -n ERROR "$1"', "sh", ref])
        print("the agent's own shell in the container sees it:\n" + shell.stdout.decode())

        tools = {tool.name: tool for tool in ws.tools()}
        print("Grep tool:\n" + await tools["Grep"](pattern="ERROR|FAILED", path=ref))
        print("\nRead tool, 3 lines around the error:\n" + await tools["Read"](path=ref, offset=81_234, limit=3))

        await ws.offload_context("demo", [{"role": "user", "content": "why did the build fail?"}])
        print("\nGlob tool:\n" + await tools["Glob"](pattern="sessions/**"))
    print("\nthe container was removed on close")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n", 1)[0])
    parser.add_argument("--image", help="an image on the engine with sh, tar, find, stat, grep, dd, realpath ...")
    anyio.run(main, parser.parse_args().image)
