"""``offload demo``: a scripted agent loop showing offload, retrieval and compaction."""

from __future__ import annotations

import json
import os
from typing import Any

import anyio
import click

from ._common import emit_json, json_option, table

__all__ = ["demo"]


@click.command()
@click.option(
    "--keep",
    "keep_dir",
    default=None,
    type=click.Path(file_okay=False),
    help="Use this folder instead of a temporary one (and keep it).",
)
@json_option
def demo(keep_dir: str | None, as_json: bool) -> None:
    """A scripted agent loop (no model, no network) showing offload, retrieval and compaction.

    In a temporary LocalWorkspace: a tool returns a 1.4 MB build log, which is
    offloaded (the context keeps a preview and a reference); the agent greps the
    needle back; then a 120-turn conversation is compacted under a 16k window.
    Prints a before/after token table.
    """
    import tempfile

    if keep_dir is not None:
        report = anyio.run(_demo, keep_dir, not as_json)
    else:
        with tempfile.TemporaryDirectory(prefix="offload-demo-") as tmp:
            report = anyio.run(_demo, tmp, not as_json)
    if as_json:
        emit_json(report)
        return
    table(
        "Tokens in the agent's context",
        ["step", "before", "after", "kept out"],
        [[r["step"], r["before"], r["after"], r["before"] - r["after"]] for r in report["steps"]],
    )


_NEEDLE = "ERROR shard-7421: checksum mismatch (expected 9f2c, got 11aa)"


def _build_log(lines: int) -> str:
    out = []
    for i in range(1, lines + 1):
        out.append(f"[{i:06d}] compiling module_{i % 997:03d}.c ... ok ({(i * 37) % 1000} ms)")
        if i == lines * 3 // 5:
            out.append(_NEEDLE)
    out.append("build finished: 1 error, 0 warnings")
    return "\n".join(out)


async def _demo(folder: str, narrate: bool) -> dict[str, Any]:
    from offloader.compaction import ContextCompactor
    from offloader.core.messages import TextBlock, ToolResultBlock
    from offloader.retrieval import retrieve
    from offloader.tokens import default_counter
    from workspaces import LocalWorkspace

    def say(text: str) -> None:
        if narrate:
            click.echo(text)

    counter = default_counter()
    steps: list[dict[str, Any]] = []
    async with LocalWorkspace(os.path.join(folder, ".offload")) as ws:
        # 1. a tool call returns a large result: offload it, keep a preview + reference
        log = _build_log(30_000)
        before = counter.count(log)
        result = ToolResultBlock("call-build-1", "bash", (TextBlock(log),), is_error=True)
        preview_text, ref = await _demo_offload(ws, result, counter)
        after = counter.count(preview_text)
        steps.append({"step": "offload a 30,000-line build log", "before": before, "after": after, "ref": ref})
        say(f"1. offloaded {len(log):,} bytes to {ref}\n   the context keeps a {after}-token preview:")
        shown = [
            x
            for x in preview_text.splitlines()
            if x.startswith("[Offloaded") or "ERROR" in x or "omitted" in x or "/sessions/" in x
        ]
        for line in shown[:8]:
            say(f"   | {line[:160]}")
        steps[-1]["needle_in_preview"] = _NEEDLE in preview_text
        # 2. the agent retrieves the needle by pattern
        found = await retrieve(ws, ref, pattern="checksum mismatch", context_lines=1)
        steps.append(
            {
                "step": "retrieve the failing line by pattern",
                "before": before,
                "after": counter.count(found),
                "found": _NEEDLE in found,
            }
        )
        say("2. retrieve_offloaded_content(pattern='checksum mismatch', context_lines=1):")
        for line in found.splitlines()[:5]:
            say(f"   | {line}")
        # 3. a long conversation is compacted under a window
        conversation = _demo_conversation(120)
        compactor = ContextCompactor(ws, window=16_000, counter=counter)
        done = await compactor.compact("demo", conversation)
        steps.append(
            {
                "step": f"compact a {len(conversation)}-message conversation (16k window)",
                "before": done.tokens_before,
                "after": done.tokens_after,
                "level": str(done.level),
            }
        )
        say(
            f"3. compacted {len(conversation)} messages -> {len(done.messages)} ({done.level}); "
            f"everything removed is in {ws.reference(ws.session_dir('demo'))}/"
        )
    return {"workspace": folder, "steps": steps}


async def _demo_offload(ws: Any, result: Any, counter: Any) -> tuple[str, str]:
    """Offload through ContextOffloader, as an agent loop's after-tool hook would."""
    from offloader.offloader import ContextOffloader

    replaced = await ContextOffloader(ws, counter=counter, preview_tokens=300).process_tool_result("demo", result)
    text = "\n".join(getattr(b, "text", "") for b in replaced.content)
    ref = next(w.strip("()[]<>,.'\"") for w in text.split() if "/sessions/" in w)
    return text, ref


def _demo_conversation(turns: int) -> list[dict[str, Any]]:
    msgs: list[dict[str, Any]] = [{"role": "system", "content": "You are a build assistant."}]
    for t in range(turns // 3):
        msgs.append({"role": "user", "content": f"Step {t}: check shard {t} and report the failing tests."})
        msgs.append(
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call-{t}",
                        "type": "function",
                        "function": {"name": "run_tests", "arguments": json.dumps({"shard": t})},
                    }
                ],
            }
        )
        body = "\n".join(f"test_{t}_{k} ... {'FAILED' if k == 7 else 'ok'} ({k * 3} ms)" for k in range(60))
        msgs.append({"role": "tool", "tool_call_id": f"call-{t}", "content": body})
    msgs.append({"role": "user", "content": "Summarise which shards failed."})
    return msgs
