"""Measure the signal engine on the corpus: recall of labelled lines and false alarms.

Run: ``PYTHONPATH=. python tests/corpus/recall.py [--group unseen-1] [-v]``.
Recall is the share of labelled decisive lines that are in the 1,000-token preview
*and* in the whole replacement (at most 1,250 tokens) that ``ContextOffloader`` returns;
a false alarm is a clean output that the engine describes as failing; an unseen failure is
a failed run without failure evidence.
"""

from __future__ import annotations

import argparse
import gzip
import json
from pathlib import Path
from typing import Any

import anyio

from offloader import ContextOffloader, InMemoryStorage
from offloader.signal import make_preview, read_signal
from offloader.tokens import TiktokenCounter

HERE = Path(__file__).resolve().parent


async def measure(group: str | None, verbose: bool) -> dict[str, Any]:
    labels: dict[str, dict[str, Any]] = json.loads((HERE / "labels.json").read_text())
    counter = TiktokenCounter()
    offloader = ContextOffloader(InMemoryStorage(), max_result_tokens=1100, preview_tokens=1000, counter=counter)
    kept = total = alarms = clean = outputs = unseen = 0
    missed: dict[str, list[str]] = {}
    for name, label in sorted(labels.items()):
        if group is not None and label.get("group", "") != group:
            continue
        outputs += 1
        data = gzip.decompress((HERE / "outputs" / f"{name}.txt.gz").read_bytes())
        text = data.decode("utf-8", "surrogateescape")
        preview = make_preview(text, counter=counter, preview_tokens=1000)
        result = {"toolUseId": f"t-{name}", "status": "success", "content": [{"text": text}]}
        out = await offloader.process_tool_result("recall", result)
        shown = "\n".join(block.get("text", "") for block in out["content"])
        within = counter.count(preview) <= 1000 and counter.count(shown) <= 1250
        for line in label["decisive"]:
            total += 1
            if within and line in preview and line in shown:
                kept += 1
            else:
                missed.setdefault(name, []).append(line)
        signal = read_signal(data)
        if not label["clean"] and not signal.failing:
            unseen += 1
            missed.setdefault(name, []).append("UNSEEN FAILURE")
        if label["clean"]:
            clean += 1
            if signal.failing:
                alarms += 1
                missed.setdefault(name, []).append(
                    "FALSE ALARM: " + ", ".join(str(u.lineno) for u in signal.units if u.failure)
                )
        if verbose and name in missed:
            print(f"--- {name}: {missed[name]}\n{preview}\n")
    return {
        "outputs": outputs,
        "decisive": total,
        "kept": kept,
        "clean": clean,
        "false_alarms": alarms,
        "unseen_failures": unseen,
        "missed": missed,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--group", help="only the outputs of this group ('' for the first corpus)")
    parser.add_argument("-v", "--verbose", action="store_true", help="print the preview of every miss")
    args = parser.parse_args()
    report = anyio.run(measure, args.group, args.verbose)
    print(json.dumps(report["missed"], indent=1, ensure_ascii=False))
    print(
        f"{report['outputs']} outputs: {report['kept']}/{report['decisive']} decisive lines kept; "
        f"{report['false_alarms']}/{report['clean']} clean outputs called failing; "
        f"{report['unseen_failures']}/{report['outputs'] - report['clean']} failed runs without failure evidence"
    )


if __name__ == "__main__":
    main()
