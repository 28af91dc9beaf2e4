"""Offload tool results to S3 and read them back, offline.

Starts moto's S3 server on 127.0.0.1 (a real S3 wire protocol, no AWS account, no
network), creates a bucket, and uses ``FsspecWorkspace("s3://bucket/agents")``
through s3fs exactly as it would talk to AWS: a ``ContextOffloader`` keeps a 2 MB
build log out of the context, the agent greps the offloaded object by its
``s3://`` reference, and the conversation log is appended as segments.

    python examples/s3_offloader.py

Against real S3 drop the server and the storage options (s3fs finds credentials
the usual way): ``FsspecWorkspace("s3://my-bucket/agents")``.

Install (from a checkout): ``pip install -e '.[s3-local]'``.
"""

from __future__ import annotations

import logging
import socket

import anyio
import boto3
from moto.server import ThreadedMotoServer

from offloader import ContextOffloader, TextBlock, ToolResultBlock
from workspaces.fsspec import FsspecWorkspace

BUCKET = "agent-offload"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def run(endpoint: str) -> None:
    options = {
        "key": "example",
        "secret": "example",
        "endpoint_url": endpoint,
        "client_kwargs": {"region_name": "us-east-1"},
    }
    log = "\n".join(f"[{i:06d}] compiling unit_{i}.c ... ok" for i in range(60_000))
    log += "\nunit_59999.c:12: error: undefined reference to 'main'\nBUILD FAILED (1 error)"
    result = ToolResultBlock(id="call_build", name="bash", content=(TextBlock(log),), is_error=True)

    async with FsspecWorkspace(f"s3://{BUCKET}/agents", **options) as ws:
        offloader = ContextOffloader(ws)
        in_context = await offloader.process_tool_result("build-session", result)
        shown = in_context.text()
        print(f"tool result: {len(log):,} characters; the context keeps {len(shown):,}:")
        print("\n".join("  | " + line for line in shown.splitlines()[:12]))
        ref = next(word for word in shown.split() if word.startswith("s3://"))
        print(f"\nstored whole at {ref}")
        print(await ws.grep("error:", path=ref, context=1))
        await ws.offload_context("build-session", [{"role": "user", "content": "why did the build fail?"}])
        await ws.offload_context("build-session", [{"role": "assistant", "content": "undefined reference"}])
        print(await ws.read("sessions/build-session/context.jsonl"))
        stored = await ws.read_bytes(ref)
        assert stored.decode().endswith("BUILD FAILED (1 error)"), "the whole result must be on S3"
        print("OK: the whole log is on S3 and the failure is retrievable")


def main() -> None:
    logging.getLogger("werkzeug").setLevel(logging.ERROR)
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        endpoint = f"http://127.0.0.1:{port}"
        boto3.client(
            "s3",
            endpoint_url=endpoint,
            aws_access_key_id="example",
            aws_secret_access_key="example",
            region_name="us-east-1",
        ).create_bucket(Bucket=BUCKET)
        anyio.run(run, endpoint)
    finally:
        server.stop()


if __name__ == "__main__":
    main()
