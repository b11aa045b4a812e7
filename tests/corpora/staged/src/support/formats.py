"""Conversion of logical tool definitions to provider wire formats."""

from __future__ import annotations

from typing import Any, Mapping

from .copying import snapshot_schema
from .schema import inline_refs, strictify


def to_openai(tool: Mapping[str, Any], *, strict: bool = False) -> dict[str, Any]:
    """An OpenAI ``function`` tool for *tool*."""
    parameters = inline_refs(tool["input_schema"])
    if strict:
        parameters = strictify(parameters)
    function: dict[str, Any] = {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "parameters": parameters,
    }
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def to_anthropic(tool: Mapping[str, Any]) -> dict[str, Any]:
    """An Anthropic tool definition for *tool*."""
    schema = snapshot_schema(tool["input_schema"])
    schema.pop("$schema", None)
    out: dict[str, Any] = {
        "name": tool["name"],
        "description": tool.get("description", ""),
        "input_schema": schema,
    }
    if "strict" in tool:
        out["strict"] = tool["strict"]
    return out


def to_logical(wire: Mapping[str, Any]) -> dict[str, Any]:
    """The logical form of an OpenAI or Anthropic tool, as the comparison sees it."""
    if wire.get("type") == "function":
        function = wire["function"]
        return {
            "name": function["name"],
            "description": function.get("description", ""),
            "input_schema": snapshot_schema(function.get("parameters") or {}),
        }
    return {
        "name": wire["name"],
        "description": wire.get("description", ""),
        "input_schema": snapshot_schema(wire.get("input_schema") or {}),
    }
