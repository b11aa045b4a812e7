"""Reading what tools reported about themselves (for telemetry and the desk's heuristics)."""

from __future__ import annotations

from typing import Any, Sequence

from agentcore import Message


def budget_spent(messages: Sequence[Message]) -> bool:
    """Whether the latest web tool result says the search budget is used up."""
    for message in reversed(messages):
        if message.role != "tool":
            continue
        remaining = message.metadata.get("search_budget_remaining")
        if remaining is not None:
            return int(remaining) <= 0
    return False


def provider_attempts(messages: Sequence[Message]) -> int:
    return max((int(m.metadata.get("provider_attempt", 0)) for m in messages), default=0)


def summarise(messages: Sequence[Message]) -> dict[str, Any]:
    tool_results = [m for m in messages if m.role == "tool"]
    return {
        "messages": len(messages),
        "tool_results": len(tool_results),
        "stored_results": sum(1 for m in tool_results if m.metadata.get("stored_result")),
    }
