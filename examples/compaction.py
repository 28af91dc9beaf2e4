"""Compact a long scripted agent conversation offline, level by level.

Run: ``python examples/compaction.py``. No network, no API keys: the
conversation is scripted, the workspace is a temporary local folder and the
summaries come from the extractive summarizer. For each level the script prints
tokens before/after, what changed and where the removed content went.

Install (from a checkout): ``pip install -e .``.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import anyio

from offloader.compaction import SUMMARY_MARKER, CompactionPolicy, ContextCompactor
from offloader.tokens import HeuristicCounter
from workspaces import LocalWorkspace


def scripted_conversation(turns: int) -> list[dict[str, Any]]:
    """An OpenAI-style coding session: a request, a test run with a long log, a fix."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are a careful coding agent."}]
    for t in range(turns):
        log = "\n".join(f"tests/test_{t}.py::case_{i} PASSED" for i in range(150))
        log += f"\n== 150 passed, {t % 3} failed in {t + 1}.2s =="
        messages += [
            {"role": "user", "content": f"Make test suite {t} pass."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": f"call_{t}",
                        "type": "function",
                        "function": {"name": "run_tests", "arguments": json.dumps({"path": f"tests/test_{t}.py"})},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": f"call_{t}", "content": log},
            {"role": "assistant", "content": f"Suite {t}: fixed the failing cases."},
        ]
    return messages


async def main() -> None:
    conversation = scripted_conversation(40)
    counter = HeuristicCounter()
    measure = ContextCompactor(_Null(), window=10**9, counter=counter)
    total = (await measure.compact("x", conversation, system_tokens=0)).tokens_before
    print(f"conversation: {len(conversation)} messages, {total:,} tokens\n")
    header = ("trigger", "applied", "fill", "tokens before", "tokens after", "target", "messages", "refs", "note")
    print("| " + " | ".join(header) + " |\n|" + "---|" * len(header))
    with tempfile.TemporaryDirectory() as tmp:
        async with LocalWorkspace(Path(tmp) / "workspace") as ws:
            # (session, fill, mild allowed, overflow reported by the model)
            cases = [
                ("none", 0.3, True, False),
                ("mild", 0.7, True, False),
                ("aggressive", 0.9, False, False),
                ("emergency", 1.6, False, False),
                ("overflow", 0.4, False, True),
            ]
            for session, fill, mild_allowed, overflow in cases:
                window = int(total / fill)
                policy = CompactionPolicy(protect_recent_ratio=0.3 if mild_allowed else 1.0)
                compactor = ContextCompactor(ws, window=window, counter=counter, policy=policy)
                result = await compactor.compact(session, conversation, system_tokens=0, overflow=overflow)
                cut = [m["content"] for m in result.messages if str(m.get("content")).startswith(SUMMARY_MARKER)]
                note = result.reason or (cut[0].splitlines()[1][:60] if cut else f"{len(result.entries)} entries")
                row = (
                    result.trigger,
                    result.level,
                    f"{result.fill_before:.0%}",
                    f"{result.tokens_before:,}",
                    f"{result.tokens_after:,}",
                    f"{result.target or 0:,}",
                    str(len(result.messages)),
                    str(len(result.references)),
                    note,
                )
                print("| " + " | ".join(row) + " |")
                new_turn = {"role": "user", "content": "Thanks!"}
                again = await compactor.compact(session, [*conversation, new_turn], system_tokens=0)
                assert again.messages[: len(result.messages)] == result.messages  # the cached prefix survives
            mild = ContextCompactor(ws, window=int(total / 0.7), counter=counter)
            replaced = (await mild.compact("mild", conversation, system_tokens=0)).messages[3]["content"]
            print("\na mild replacement, as the model now sees it:\n" + replaced.replace(tmp, "$TMP"))


class _Null:
    """An offloader that stores nothing; used only to measure the conversation."""

    async def offload_tool_result(self, session_id: str, tool_result: Any, **kwargs: Any) -> str:
        raise AssertionError("measuring never offloads")

    async def offload_context(self, session_id: str, msgs: Any, **kwargs: Any) -> str:
        raise AssertionError("measuring never offloads")

    async def offload_data_block(self, block: Any, **kwargs: Any) -> Any:
        return block


if __name__ == "__main__":
    anyio.run(main)
