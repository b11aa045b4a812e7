"""Agents: instructions, tools and the sub-agents they may hand off to."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable

from relay.tools import FunctionTool

if TYPE_CHECKING:
    from relay.handoff import Handoff


@dataclass
class AgentBase:
    """What every agent-like object carries: a name, instructions and tools."""

    name: str
    instructions: str = ""
    tools: list[FunctionTool] = field(default_factory=list)

    def tool(self, name: str) -> FunctionTool:
        for t in self.tools:
            if t.name == name:
                return t
        raise KeyError(name)


@dataclass
class Agent(AgentBase):
    """An LLM agent as configured by the application."""

    model: str = "gpt-4.1"
    handoffs: list["Handoff"] = field(default_factory=list)
    max_tools: int = 24
    output_type: type | None = None
    hooks: dict[str, Callable[..., Any]] = field(default_factory=dict)

    def renamed(self, name: str) -> "Agent":
        """The same agent under another name, e.g. for a tenant-specific deployment."""
        return dataclasses.replace(self, name=name, hooks=dict(self.hooks))

    def with_tools(self, *extra: FunctionTool) -> "Agent":
        """A variant of the agent that also offers ``extra``."""
        return dataclasses.replace(self, tools=[*self.tools, *extra])

    def describe(self) -> dict[str, Any]:
        return {"name": self.name, "model": self.model, "tools": [t.name for t in self.tools]}
