"""How the OpenAI Agents SDK's live request objects read as logical values, for the guard (and the
harness's targets, which show the same objects to their mutators).

- a `FunctionTool` reads as `{"name", "description", "input_schema"}`, its `input_schema` *being*
  the tool's `params_json_schema` dict: what the SDK's converters send as the function's
  `parameters`. The guard's view adds `strict` (`strict_json_schema`), which goes on the wire too;
- an input item reads as a message `{"role", "content"}` when the model is told something by it: an
  easy input message (system, user, assistant, developer) or a `function_call_output` (role
  `tool`). Other items (a `function_call`, a reasoning item) are shown as nothing.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agents import Agent, FunctionTool, Handoff, handoff

from toolsurface.contract._formats import LOGICAL

#: The roles an easy input message may carry that a recorded conversation uses.
ROLES = frozenset({"system", "user", "assistant", "developer"})
#: The guard's tool format: the three logical fields and `strict`, the one wire field a `FunctionTool` sends beside
#: them.
CHECKED = LOGICAL.only(("strict",))


def tool_view(tool: FunctionTool | Handoff[Any, Any]) -> dict[str, Any]:
    """The logical dict of a function tool, sharing its live schema; a handoff's, as the SDK's
    converters send it (a function named `tool_name`)."""
    if isinstance(tool, Handoff):
        return {"name": tool.tool_name, "description": tool.tool_description, "input_schema": tool.input_json_schema}
    return {"name": tool.name, "description": tool.description or "", "input_schema": tool.params_json_schema}


def as_handoffs(items: Sequence[Agent[Any] | Handoff[Any, Any]]) -> list[Handoff[Any, Any]]:
    """An agent's handoffs as the SDK hands them to the model: an agent becomes `handoff(agent)`."""
    return [item if isinstance(item, Handoff) else handoff(item) for item in items]


def checked_view(tool: Any) -> dict[str, Any]:
    """What the guard compares of a tool the model is handed: a `FunctionTool` or a handoff as it
    goes on the wire; any other tool (a hosted one, say) by its repr, which no admitted tool matches."""
    if isinstance(tool, FunctionTool | Handoff):
        return {**tool_view(tool), "strict": tool.strict_json_schema}
    return {"name": repr(tool), "description": "", "input_schema": {}}


def shown_as(item: Any) -> tuple[str, str] | None:
    """The (role, content) an input item is shown as, or None for an item that shows no message."""
    if not isinstance(item, dict):
        return None
    if item.get("type") == "function_call_output" and isinstance(item.get("output"), str):
        return "tool", item["output"]
    if item.get("role") in ROLES and isinstance(item.get("content"), str) and item.get("type", "message") == "message":
        return item["role"], item["content"]
    return None


def as_items(input: str | Sequence[Any]) -> Sequence[Any]:
    """A model's input as input items: a plain string is one user message."""
    return [{"role": "user", "content": input}] if isinstance(input, str) else input


def message_views(items: str | Sequence[Any]) -> list[dict[str, Any]]:
    """What the model is told, as logical messages (for the entry summary and the token count)."""
    return [
        {"role": shown[0], "content": shown[1]} for item in as_items(items) if (shown := shown_as(item)) is not None
    ]
