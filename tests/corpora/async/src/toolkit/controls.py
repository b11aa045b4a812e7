"""Control tools the host serves itself rather than any MCP server."""

from __future__ import annotations

import copy
from typing import Any, Sequence

from .models import ToolSpec
from .wire import to_wire

READ_TOOL_RESULT = "read_tool_result"

_READ_TOOL_RESULT_SHAPE: dict[str, Any] = {
    "type": "object",
    "properties": {
        "result_id": {"type": "string", "description": "Id of the tool result to read."},
        "offset": {"type": "integer", "minimum": 0, "description": "Character offset to start at."},
        "length": {"type": "integer", "minimum": 1, "maximum": 32000},
    },
    "required": ["result_id"],
}


def read_tool_result_spec() -> ToolSpec:
    """The control that pages through a tool result too long to include whole."""
    return ToolSpec(
        name=READ_TOOL_RESULT,
        description="Read part of an earlier tool result that was cut for length.",
        input_shape=copy.deepcopy(_READ_TOOL_RESULT_SHAPE),
    )


def read_tool_result_wire(fmt: str) -> dict[str, Any]:
    return to_wire(read_tool_result_spec(), fmt)


def with_controls(entries: Sequence[dict[str, Any]], fmt: str, *, paging: bool) -> list[dict[str, Any]]:
    """Entries plus the controls a grant allows, as admission offers them."""
    if not paging:
        return list(entries)
    return [*entries, read_tool_result_wire(fmt)]
