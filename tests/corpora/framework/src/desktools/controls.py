"""Control tools: tools the host itself serves, not a research owner."""

from __future__ import annotations

from agentcore import ToolDef

read_tool_result = ToolDef(
    name="read_tool_result",
    description="Read a tool result that was stored instead of inlined, by its reference.",
    parameters={
        "type": "object",
        "properties": {
            "ref": {"type": "string", "description": "The reference printed in the truncated result."},
            "offset": {"type": "integer", "minimum": 0, "default": 0},
        },
        "required": ["ref"],
    },
)

fetch_artifact = ToolDef(
    name="fetch_artifact",
    description="Fetch an artifact (table, chart, draft) produced earlier in this run.",
    parameters={
        "type": "object",
        "properties": {"artifact_id": {"type": "string"}},
        "required": ["artifact_id"],
    },
)

CONTROL_NAMES = frozenset({read_tool_result.name, fetch_artifact.name})


def is_control(definition: ToolDef) -> bool:
    return definition.name in CONTROL_NAMES
