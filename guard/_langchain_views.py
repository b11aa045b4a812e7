"""LangChain's tools and messages as the guard reads them: logical dicts, and the OpenAI-format dict it sends.

- a tool view is `{"name", "description", "input_schema"}`. For a tool whose `args_schema` is a
  JSON-schema dict, `input_schema` *is* that dict, so a view shows the live schema (an in-place
  edit included); for one whose `args_schema` is a pydantic model (a `@tool` function), it is the
  JSON schema LangChain sends for it. An OpenAI-format dict tool is read as it is.
- `wire_tool` is a tool as an OpenAI-format dict: the one form LangChain's `convert_to_openai_tool`
  hands a provider unchanged. A `BaseTool` with a JSON-schema dict would be rewritten on its way
  (`$ref`s inlined, `$defs` and `title`s dropped), so the guard sends this form and checks it.
- a message view is `{"role", "content"}` per message with text content; an assistant turn that
  only carries tool calls has none.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from langchain_core.messages import (
    AIMessage,
    BaseMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool
from langchain_core.utils.function_calling import convert_to_openai_tool

#: The role each message type shows as.
ROLE_OF: dict[type, str] = {SystemMessage: "system", HumanMessage: "user", AIMessage: "assistant", ToolMessage: "tool"}


def tool_view(tool: BaseTool | dict[str, Any]) -> dict[str, Any]:
    """The logical dict of a tool, sharing its live schema; an OpenAI-format dict tool is read as it is."""
    if isinstance(tool, dict):
        function = tool.get("function", tool)
        return {
            "name": function["name"],
            "description": function.get("description", ""),
            "input_schema": function.get("parameters", {}),
        }
    if isinstance(tool.args_schema, dict):
        return {"name": tool.name, "description": tool.description or "", "input_schema": tool.args_schema}
    return tool_view(convert_to_openai_tool(tool))


def wire_tool(tool: BaseTool | dict[str, Any]) -> dict[str, Any]:
    """The tool as an OpenAI-format dict that LangChain's conversion passes on unchanged."""
    if isinstance(tool, dict):
        return tool
    if isinstance(tool.args_schema, dict):
        return {
            "type": "function",
            "function": {"name": tool.name, "description": tool.description, "parameters": tool.args_schema},
        }
    return convert_to_openai_tool(tool)


def tool_name(tool: BaseTool | dict[str, Any]) -> str:
    if isinstance(tool, dict):
        return str(tool.get("function", tool)["name"])
    return tool.name


def visible(message: BaseMessage) -> bool:
    """Whether a message shows as a view: an assistant turn carrying only tool calls does not."""
    if type(message) not in ROLE_OF or not isinstance(message.content, str):
        return False
    return not (isinstance(message, AIMessage) and message.tool_calls and not message.content)


def message_views(messages: Sequence[BaseMessage | dict[str, Any]]) -> list[dict[str, Any]]:
    """The text messages as `{"role", "content"}` dicts; a dict is taken as a view already."""
    return [
        m if isinstance(m, dict) else {"role": ROLE_OF[type(m)], "content": m.content}
        for m in messages
        if isinstance(m, dict) or visible(m)
    ]
