"""Provider wire formats for tool definitions."""

from __future__ import annotations

from typing import Any, Sequence

from agentcore import ToolDef, clone_schema
from agentcore import ensure_strict as make_strict


def to_openai(definition: ToolDef, *, strict: bool = True) -> dict[str, Any]:
    """OpenAI ``tools`` entry; strict mode needs closed objects with every property required."""
    params = definition.parameters
    if strict:
        make_strict(params)
    return {
        "type": "function",
        "function": {
            "name": definition.name,
            "description": definition.description,
            "parameters": params,
            "strict": strict,
        },
    }


def to_anthropic(definition: ToolDef) -> dict[str, Any]:
    """Anthropic ``tools`` entry."""
    shape = clone_schema(definition.parameters)
    shape.pop("$schema", None)
    return {"name": definition.name, "description": definition.description, "input_schema": shape}


def to_mcp(definition: ToolDef) -> dict[str, Any]:
    return {
        "name": definition.name,
        "description": definition.description,
        "inputSchema": clone_schema(definition.parameters),
    }


_FORMATS = {"openai": to_openai, "anthropic": to_anthropic, "mcp": to_mcp}


def convert_all(tools: Sequence[ToolDef], provider: str = "openai") -> list[dict[str, Any]]:
    """Wire entries for a whole surface; converts copies, never the request's own definitions."""
    convert = _FORMATS[provider]
    return [convert(definition.model_copy(deep=True)) for definition in tools]
