"""Agent specifications."""

from __future__ import annotations

from typing import Any

from .models import BaseModel, Field
from .tools import ToolDef


class AgentSpec(BaseModel):
    """What an agent is: its instructions, model and the tools it may be offered."""

    name: str
    instructions: str = ""
    model: str = "gpt-4.1"
    tools: list[ToolDef] = Field(default_factory=list)
    model_settings: dict[str, Any] = Field(default_factory=dict)

    def clone(self, **changes: Any) -> "AgentSpec":
        """Copy the spec; the copy gets its own tool list so it can be extended freely."""
        update = {"tools": list(self.tools), **changes}
        return self.model_copy(update=update)

    def tool_names(self) -> list[str]:
        return [definition.name for definition in self.tools]
