"""The framework-neutral tool: a name, a description, a JSON schema and an async function.

Tool calls never raise into the agent loop: errors come back as ``Error: ...``
text with ``is_error`` set.
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from .errors import WorkspaceError

__all__ = ["Tool", "ToolOutcome"]

_log = logging.getLogger("offloader.tools")


@dataclass(frozen=True, slots=True)
class ToolOutcome:
    text: str
    is_error: bool = False


@dataclass(frozen=True)
class Tool:
    """A tool an agent can call: name, description, JSON-schema parameters, async function."""

    name: str
    description: str
    parameters: dict[str, Any]
    function: Callable[..., Awaitable[str]] = field(repr=False)

    async def invoke(self, arguments: Mapping[str, Any] | None = None) -> ToolOutcome:
        """Call with a JSON-like argument dict; errors become an error outcome."""
        args = dict(arguments or {})
        unknown = set(args) - set(self.parameters.get("properties", {}))
        if unknown:
            return ToolOutcome(f"Error: unknown argument(s) for {self.name}: {', '.join(sorted(unknown))}", True)
        missing = [p for p in self.parameters.get("required", []) if p not in args]
        if missing:
            return ToolOutcome(f"Error: missing required argument(s) for {self.name}: {', '.join(missing)}", True)
        try:
            return ToolOutcome(await self.function(**args))
        except (WorkspaceError, OSError, ValueError, TypeError, UnicodeError) as exc:
            return ToolOutcome(f"Error: {_describe(exc)}", True)
        except Exception as exc:  # anything else still must not kill the agent loop
            _log.warning("tool %s failed unexpectedly", self.name, exc_info=True)
            return ToolOutcome(f"Error: {type(exc).__name__}: {exc}", True)

    async def __call__(self, **arguments: Any) -> str:
        return (await self.invoke(arguments)).text

    def openai_schema(self) -> dict[str, Any]:
        """The tool as an OpenAI function-calling definition."""
        return {
            "type": "function",
            "function": {"name": self.name, "description": self.description, "parameters": self.parameters},
        }

    def anthropic_schema(self) -> dict[str, Any]:
        """The tool as an Anthropic tool definition."""
        return {"name": self.name, "description": self.description, "input_schema": self.parameters}


def _describe(exc: BaseException) -> str:
    if isinstance(exc, FileNotFoundError):
        return f"file not found: {exc.filename or exc.args[0] if exc.args else exc}"
    if isinstance(exc, IsADirectoryError):
        return f"is a directory (use Glob to list it): {exc.filename or exc}"
    return str(exc) or type(exc).__name__
