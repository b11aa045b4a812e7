"""The output pager: a control tool that lets the model read the rest of a long tool result."""

from __future__ import annotations

from graphhost.models import ToolSpec

fetch_tool_output = ToolSpec(
    name="fetch_tool_output",
    description="Read a further page of a tool result that was cut short.",
    input_schema={
        "type": "object",
        "properties": {
            "call_id": {"type": "string"},
            "page": {"type": "integer", "minimum": 1},
        },
        "required": ["call_id", "page"],
    },
)


def widen_for_followups(ctx) -> None:
    """Offer the pager when the latest tool result says it was truncated."""
    last = ctx.request.messages[-1] if ctx.request.messages else None
    if last is not None and last.role == "tool" and last.metadata.get("truncated"):
        ctx.request.tools.append(fetch_tool_output)
