"""Per-turn request records and the scopes a run carries."""

from __future__ import annotations

import itertools
import uuid
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any

from relay.tools import FunctionTool

_turns = itertools.count(1)


@dataclass
class TurnRequest:
    """One model call as the host is about to make it."""

    agent_name: str
    messages: list[dict[str, Any]]
    tools: list[FunctionTool]
    turn: int = field(default_factory=lambda: next(_turns))
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    state: dict[str, Any] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    max_output_tokens: int = 2048
    resumed: bool = False

    @cached_property
    def admitted(self) -> tuple[FunctionTool, ...]:
        """The tools as they stood when the request was first inspected."""
        return tuple(self.tools)

    def tool_names(self) -> list[str]:
        return [t.name for t in self.tools]


def pinned_of(request: TurnRequest) -> Any:
    """The surface an upstream interceptor recorded for this request, if any."""
    return request.state["pinned_tools"]


@dataclass(frozen=True)
class ModelResponse:
    """What the provider sent back for a turn."""

    request_id: str
    output: list[dict[str, Any]]
    usage: dict[str, int]
    finish_reason: str = "stop"

    @property
    def total_tokens(self) -> int:
        return self.usage.get("input_tokens", 0) + self.usage.get("output_tokens", 0)


class ScopeBase:
    """A nesting level of a run: the tools it may use and how deep it sits."""

    __slots__ = ("tools", "depth", "parent")

    def __init__(self, tools: list[FunctionTool], depth: int = 0, parent: "ScopeBase | None" = None) -> None:
        self.tools = list(tools)
        self.depth = depth
        self.parent = parent


class OutputStore:
    """Long tool results, kept out of the conversation and read back in pages."""

    __slots__ = ("_chunks",)

    def __init__(self) -> None:
        self._chunks: dict[str, str] = {}

    def put(self, call_id: str, text: str) -> None:
        self._chunks[call_id] = text

    def page(self, call_id: str, offset: int, limit: int) -> str:
        return self._chunks.get(call_id, "")[offset : offset + limit]


OUTPUT_STORE = OutputStore()
