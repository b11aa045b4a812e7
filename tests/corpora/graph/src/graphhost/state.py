"""Run state carried between graph nodes, and the checkpoint store."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Sequence, TypedDict

from pydantic import BaseModel, Field

from .models import CallRequest, Message, ToolResult, ToolSpec
from .parity import freeze_toolset


class GraphState(TypedDict, total=False):
    """The dict form of a run, as checkpoints and the HTTP API see it."""

    graph_id: str
    step: int
    messages: list[Message]
    tool_results: list[ToolResult]
    tools: list[ToolSpec]


@dataclass
class RunState:
    graph_id: str
    tools: list[ToolSpec]
    messages: list[Message] = field(default_factory=list)
    tool_results: list[ToolResult] = field(default_factory=list)
    step: int = 0
    pending: CallRequest | None = None

    def advance(self, *produced: Message) -> "RunState":
        """The state of the next step, with the messages this step produced."""
        return dataclasses.replace(self, step=self.step + 1, messages=[*self.messages, *produced], pending=None)

    def fork(self) -> "RunState":
        """An independent copy, for a branch that may go its own way."""
        return dataclasses.replace(self, tools=list(self.tools), messages=list(self.messages))

    def admitted_view(self) -> tuple[ToolSpec, ...]:
        """The toolset this step is entitled to."""
        source = self.pending.tools if self.pending is not None else self.tools
        return freeze_toolset(source)

    def as_dict(self) -> GraphState:
        return GraphState(graph_id=self.graph_id, step=self.step, messages=list(self.messages),
                          tool_results=list(self.tool_results), tools=list(self.tools))


class ScopeBase(BaseModel):
    """A named part of a run: its label, the tools it may use and what it may spend."""

    label: str
    tools: list[ToolSpec] = Field(default_factory=list)
    budget_cents: int = 0


def quota_left(messages: Sequence[Message]) -> int | None:
    """The provider's remaining request quota as last reported, if it reported one."""
    for message in reversed(messages):
        value = message.metadata.get("quota_remaining")
        if value is not None:
            return int(value)
    return None


class CheckpointStore:
    """Keeps each graph's admitted toolset and its last unsent request."""

    def __init__(self) -> None:
        self._baselines: dict[str, tuple[ToolSpec, ...]] = {}
        self._pending: dict[str, CallRequest] = {}

    def pin(self, graph_id: str, admitted: Sequence[ToolSpec]) -> None:
        self._baselines[graph_id] = freeze_toolset(admitted)

    def save(self, request: CallRequest) -> None:
        self._pending[request.graph_id] = request.model_copy(deep=True)

    def load_pending(self, graph_id: str) -> CallRequest | None:
        found = self._pending.get(graph_id)
        return found.model_copy(deep=True) if found is not None else None

    def load_baseline(self, graph_id: str) -> tuple[ToolSpec, ...] | None:
        return self._baselines.get(graph_id)

    def drop(self, graph_id: str) -> None:
        self._pending.pop(graph_id, None)
