"""Host control tools: tools the host itself serves, not an upstream owner."""

from __future__ import annotations

from typing import Any, Mapping

READ_TOOL_RESULT = "read_tool_result"
CONTROL_NAMES = frozenset({READ_TOOL_RESULT})


def read_result_spec(max_chars: int = 20_000) -> dict[str, Any]:
    """The definition of the result pager the model uses to read long tool output."""
    return {
        "name": READ_TOOL_RESULT,
        "description": (
            "Read a slice of a tool result that was too long to include in the conversation. "
            f"Returns at most {max_chars} characters starting at the given offset."
        ),
        "input_schema": {
            "type": "object",
            "properties": {
                "result_id": {"type": "string", "description": "The id shown where the result was cut."},
                "offset": {"type": "integer", "minimum": 0},
            },
            "required": ["result_id"],
            "additionalProperties": False,
        },
    }


def is_control(tool: Mapping[str, Any]) -> bool:
    return tool.get("name") in CONTROL_NAMES
