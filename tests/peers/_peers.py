"""Shared pytest machinery for the peer suites: constructor swaps and applicability.

A test counts as *applicable* when it constructs at least one swapped class.
Tests that never do run the framework's own code only; their outcome says
nothing about this project, so they are reported as skipped ("n/a"). Tests the
manifest lists under ``not_applicable`` are skipped up front, with the reason
that is also given in docs/compatibility.md.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

USED = pytest.StashKey[bool]()
HERE = Path(__file__).resolve().parent


def swapping() -> bool:
    """False in ``--baseline`` runs: the swaps then build the framework's own classes."""
    return os.environ.get("PEERS_SWAP", "1") == "1"


def not_applicable() -> dict[str, str]:
    spec = json.loads((HERE / "manifest.json").read_text())["frameworks"][os.environ["PEERS_FRAMEWORK"]]
    table: dict[str, str] = spec.get("not_applicable", {})
    return table


def swap_class(original: type, build: Callable[..., Any], also: tuple[type, ...] = ()) -> type:
    """A stand-in for ``original``: calling it runs ``build(node, *args, **kw)``; isinstance accepts ours too."""

    class _Meta(type):
        def __instancecheck__(cls, obj: object) -> bool:
            return isinstance(obj, (original, *also))

        def __subclasscheck__(cls, sub: type) -> bool:
            return issubclass(sub, (original, *also))

        def __call__(cls, *args: Any, **kwargs: Any) -> Any:
            return build(*args, **kwargs)

    return _Meta(original.__name__, (), {"__doc__": original.__doc__, "__module__": original.__module__})


def patch_names(monkeypatch: pytest.MonkeyPatch, original: object, replacement: object) -> None:
    """Replace every test-side global bound to ``original`` (the tests imported the class by name).

    Test-side modules are those loaded from the obtained test tree (the working directory).
    """
    here = os.getcwd() + os.sep
    for module in list(sys.modules.values()):
        if module is None or not (getattr(module, "__file__", None) or "").startswith(here):
            continue
        for attr, value in list(vars(module).items()):
            if value is original:
                monkeypatch.setattr(module, attr, replacement)


def mark_used(node: pytest.Item) -> None:
    node.stash[USED] = True


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    table = not_applicable()
    for item in items:
        for pattern, reason in table.items():
            if pattern in item.nodeid:
                item.add_marker(pytest.mark.skip(reason=f"n/a: {reason}"))
                break


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Iterator[None]:
    outcome = yield
    report = outcome.get_result()
    if report.when != "call" or item.stash.get(USED, False) or report.skipped:
        return
    was = "passed" if report.passed else "failed"
    report.outcome = "skipped"
    report.longrepr = (
        str(item.path),
        item.location[1] or 0,
        f"n/a: constructs no swapped class (framework-only outcome: {was})",
    )
