"""Wire forms of tools, and independent snapshots of them."""

from __future__ import annotations

import copy
import json
import logging
from typing import TYPE_CHECKING, Any, Iterable, Mapping, TypeVar

from .models import ToolSpec

if TYPE_CHECKING:
    from mcphost.requests import ModelRequest

log = logging.getLogger(__name__)

T = TypeVar("T")
WireTool = dict[str, Any]

FORMATS = ("anthropic", "openai", "mcp")


def to_wire(spec: ToolSpec, fmt: str) -> WireTool:
    """The spec in a provider's tool format, sharing nothing with the spec."""
    shape = copy.deepcopy(spec.input_shape)
    match fmt:
        case "anthropic":
            wire: WireTool = {"name": spec.name, "description": spec.description, "input_schema": shape}
        case "openai":
            wire = {
                "type": "function",
                "function": {"name": spec.name, "description": spec.description, "parameters": shape},
            }
        case "mcp":
            wire = {"name": spec.name, "description": spec.description, "inputSchema": shape}
            if spec.title is not None:
                wire["title"] = spec.title
            if spec.annotations is not None:
                wire["annotations"] = copy.deepcopy(spec.annotations)
            if spec.output_shape is not None:
                wire["outputSchema"] = copy.deepcopy(spec.output_shape)
        case _:
            raise ValueError(f"unknown tool format {fmt!r} (expected one of {', '.join(FORMATS)})")
    return wire


def tool_name(entry: Mapping[str, Any]) -> str:
    """The name of a wire tool, whatever its format."""
    function = entry.get("function")
    if isinstance(function, Mapping):
        return str(function["name"])
    return str(entry["name"])


def freeze_offer(entries: Iterable[Mapping[str, Any]]) -> list[WireTool]:
    """An independent copy of entries, exactly as JSON would carry them."""
    return [json.loads(json.dumps(entry, ensure_ascii=False)) for entry in entries]


def snapshot_request(request: "ModelRequest") -> list[WireTool]:
    """The tools a request carries, frozen for comparison or for the audit log."""
    return freeze_offer(request.tools)


def deep_clone(value: T) -> T:
    """A copy of value that shares nothing with it."""
    return copy.deepcopy(value)
