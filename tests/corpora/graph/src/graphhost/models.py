"""Wire-neutral models shared by the graph, the providers and the plugins."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field


def _empty_object() -> dict[str, Any]:
    return {"type": "object", "properties": {}}


class ToolSpec(BaseModel):
    """A tool as the host admits it: a name, a description and a JSON schema for its input."""

    model_config = ConfigDict(extra="forbid")

    name: str
    description: str = ""
    input_schema: dict[str, Any] = Field(default_factory=_empty_object)
    expensive: bool = False
    slow: bool = False
    tokens: int = 0


class Toolset(BaseModel):
    """The tools admitted for one graph, and the catalogue version they came from."""

    version: int = 1
    tools: list[ToolSpec] = Field(default_factory=list)

    def names(self) -> list[str]:
        return [t.name for t in self.tools]


class Message(BaseModel):
    role: str
    content: Any = None
    metadata: dict[str, Any] = Field(default_factory=dict)


class ToolCall(BaseModel):
    id: str
    name: str
    arguments: dict[str, Any] = Field(default_factory=dict)


class ToolResult(BaseModel):
    call_id: str
    name: str
    content: dict[str, Any] = Field(default_factory=dict)
    cost_cents: int = 0
    is_error: bool = False


class CallRequest(BaseModel):
    graph_id: str
    turn: int
    model: str
    messages: list[Message] = Field(default_factory=list)
    tools: list[ToolSpec] = Field(default_factory=list)
    replay_of: str | None = None


class Usage(BaseModel):
    input_tokens: int = 0
    output_tokens: int = 0


class CallResult(BaseModel):
    message: Message
    usage: Usage = Field(default_factory=Usage)
    tool_calls: list[ToolCall] = Field(default_factory=list)
