"""Tool format accessors: read and edit live tool objects in place, whatever their shape.

A host keeps its tools as OpenAI function dicts, Anthropic tool dicts, MCP `Tool` dicts or its own
logical dicts. Mutations and snapshots reach them through a `ToolFormat`, never by copying them
into a type of ours: an in-place edit must land on the very object the host will send.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from toolsurface.scenarios import ToolDescriptor


@dataclass(frozen=True, slots=True)
class ToolFormat:
    """Where a tool dict keeps its name, description and input schema."""

    name: str
    #: Keys leading to the dict that holds the three fields (empty: the tool dict itself).
    prefix: tuple[str, ...]
    schema_key: str
    #: Fixed keys a new tool object carries besides the three fields (e.g. `"type": "function"`).
    envelope: tuple[tuple[str, str], ...] = ()

    def _fields(self, tool: Any) -> dict[str, Any]:
        for key in self.prefix:
            tool = tool[key]
        return tool

    def get_name(self, tool: Any) -> str:
        return self._fields(tool)["name"]

    def set_name(self, tool: Any, value: str) -> None:
        self._fields(tool)["name"] = value

    def get_description(self, tool: Any) -> str:
        return self._fields(tool).get("description", "")

    def set_description(self, tool: Any, value: str) -> None:
        self._fields(tool)["description"] = value

    def get_schema(self, tool: Any) -> dict[str, Any]:
        """The live input schema: edits to it reach every holder of the same dict."""
        return self._fields(tool)[self.schema_key]

    def set_schema(self, tool: Any, value: dict[str, Any]) -> None:
        self._fields(tool)[self.schema_key] = value

    def logical(self, tool: Any) -> list[Any]:
        """`[name, description, input_schema]`, sharing the live schema (for snapshots only)."""
        fields = self._fields(tool)
        return [fields["name"], fields.get("description", ""), fields[self.schema_key]]

    def build(self, descriptor: ToolDescriptor) -> dict[str, Any]:
        """A new live tool object holding fresh copies of the descriptor's fields."""
        tool: dict[str, Any] = {
            "name": descriptor.name,
            "description": descriptor.description,
            self.schema_key: descriptor.input_schema,
        }
        for key in reversed(self.prefix):
            tool = {key: tool}
        return {**dict(self.envelope), **tool}


LOGICAL = ToolFormat("logical", (), "input_schema")
OPENAI = ToolFormat("openai", ("function",), "parameters", envelope=(("type", "function"),))
ANTHROPIC = ToolFormat("anthropic", (), "input_schema")
MCP = ToolFormat("mcp", (), "inputSchema")

#: Every known format by name.
FORMATS: dict[str, ToolFormat] = {fmt.name: fmt for fmt in (LOGICAL, OPENAI, ANTHROPIC, MCP)}
