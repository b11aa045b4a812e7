"""Logical views of LangChain's live request objects, for `ports.inject` and the gateway.

Mutators and snapshots reach tools through a `toolsurface.ToolFormat`, which reads dict keys; a
LangChain `ModelRequest` keeps its tools as `BaseTool`s (here `StructuredTool`s with a JSON-schema
`args_schema`) and its conversation as `BaseMessage`s. A `Crossing` shows one boundary's live
objects as logical dicts and maps what comes back onto the framework's objects again:

- a tool view is `{"name", "description", "input_schema"}` whose `input_schema` *is* the tool's
  `args_schema` dict, so an in-place schema edit lands on the framework's own dict (and on the
  `StructuredTool` the agent's `ToolNode` holds, which every later run of that agent hands out
  again); an in-place name or description edit is written back onto the same tool; a new view
  becomes a new `StructuredTool`;
- a message view is `{"role", "content"}` per message with text content; an in-place content edit
  is written back onto the same message, a new view becomes a new message. An assistant message
  that only carries tool calls travels with the tool results it announced, so every tool result
  is preceded by its call, as the providers require.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any

from langchain.tools import ToolRuntime
from langchain_core.messages import (
    AIMessage,
    AnyMessage,
    HumanMessage,
    SystemMessage,
    ToolMessage,
)
from langchain_core.tools import BaseTool, StructuredTool

from toolsurface.contract._formats import ToolDescriptor
from toolsurface.guard._langchain_views import (
    ROLE_OF,
    message_views,
    tool_view,
    visible,
    wire_tool,
)
from toolsurface.scenarios import Message

from ._common import TOOL_RESULT_NAME, CallIds, write_back

#: The guard's views, which the harness's boundaries show too.
__all__ = ["Crossing", "history", "message_views", "new_tool", "tool_of", "tool_view", "wire_tool"]


def _recorded(runtime: ToolRuntime[Any, Any], **arguments: Any) -> str:
    """Every tool: what the recorded tool returned for the call the `ToolNode` executes. LangChain
    injects the `runtime` (by its name) with the call's id and the run's context, the request."""
    return str(runtime.context.ports.tool_result(runtime.tool_call_id))


def new_tool(name: str, description: str, schema: dict[str, Any]) -> StructuredTool:
    """A LangChain tool for one descriptor: the JSON schema is kept as given, as `args_schema`."""
    return StructuredTool(name=name, description=description, args_schema=schema, func=_recorded)


def tool_of(descriptor: ToolDescriptor) -> StructuredTool:
    return new_tool(descriptor.name, descriptor.description, descriptor.input_schema)


def _new_messages(role: str, content: str, calls: CallIds) -> list[AnyMessage]:
    """One recorded or injected message as LangChain messages: a tool result comes with its call."""
    if role == "assistant":
        return [AIMessage(content)]
    if role == "tool":
        match = TOOL_RESULT_NAME.match(content)
        name, call_id = match.group(1) if match else "tool", calls()
        call = AIMessage("", tool_calls=[{"name": name, "args": {}, "id": call_id, "type": "tool_call"}])
        return [call, ToolMessage(content, tool_call_id=call_id, name=name)]
    return [SystemMessage(content) if role == "system" else HumanMessage(content)]


def history(messages: Iterable[Message]) -> list[AnyMessage]:
    """A recorded conversation as LangChain messages, one visible message per recorded one."""
    calls = CallIds()
    out: list[AnyMessage] = []
    for message in messages:
        out += _new_messages(message.role, message.content, calls)
    return out


class Crossing:
    """One boundary's live tools and messages as logical views, and the way back."""

    def __init__(self, tools: Sequence[BaseTool | dict[str, Any]], messages: Sequence[AnyMessage], point: str) -> None:
        self._original_messages = list(messages)
        self.tools = [tool_view(tool) for tool in tools]
        self._tools = {id(view): (tool, dict(view)) for view, tool in zip(self.tools, tools, strict=True)}
        self.messages: list[dict[str, Any]] = []
        #: Per view: the message it shows, and the messages without a view that followed it.
        self._shown: dict[int, tuple[AnyMessage, str, Any, list[AnyMessage]]] = {}
        #: The assistant message that announced each tool call.
        self._callers: dict[str, AIMessage] = {}
        self._leading: list[AnyMessage] = []
        self._new_call_id = CallIds(point)
        trailing = self._leading
        for message in messages:
            if isinstance(message, AIMessage):
                for call in message.tool_calls:
                    self._callers[call["id"] or ""] = message
            if not visible(message):
                # A tool-call announcement travels with its results, anything else with the view before it.
                if not (isinstance(message, AIMessage) and message.tool_calls):
                    trailing.append(message)
                continue
            role, content = ROLE_OF[type(message)], message.content
            view = {"role": role, "content": content}
            trailing = []
            self._shown[id(view)] = (message, role, content, trailing)
            self.messages.append(view)
        self._before = [(id(v), v["role"], v["content"]) for v in self.messages]

    def tools_back(self, views: list[Any]) -> list[BaseTool | dict[str, Any]]:
        """The tools `views` stand for: the live ones where the view is one of ours."""
        out: list[BaseTool | dict[str, Any]] = []
        for view in views:
            known = self._tools.get(id(view))
            if known is None:
                out.append(new_tool(view["name"], view.get("description", ""), view["input_schema"]))
                continue
            tool, before = known
            if isinstance(tool, dict):
                fields = tool.get("function", tool)
                for key, field in (("name", "name"), ("description", "description"), ("input_schema", "parameters")):
                    if view[key] is not before[key] and view[key] != before[key]:
                        fields[field] = view[key]
            elif not isinstance(tool.args_schema, dict) and view != tool_view(tool):
                # A schema class's view is a copy, which an edit in place never reaches: the edit is
                # carried by a tool made from the view.
                out.append(new_tool(view["name"], view.get("description", ""), view["input_schema"]))
                continue
            else:
                write_back(tool, view, before, "args_schema")
            out.append(tool)
        return out

    def messages_back(self, views: list[Any]) -> list[AnyMessage]:
        """The messages `views` stand for; the original messages themselves when no view changed."""
        if [(id(v), v.get("role"), v.get("content")) for v in views] == self._before:
            return list(self._original_messages)
        out: list[AnyMessage] = list(self._leading)
        for view in views:
            shown = self._shown.get(id(view))
            if shown is None or view.get("role") != shown[1]:
                out += _new_messages(str(view.get("role")), str(view.get("content", "")), self._new_call_id)
                continue
            message, _, content, trailing = shown
            if view["content"] != content:
                message.content = view["content"]  # an in-place edit reaches the live message
            if isinstance(message, ToolMessage):
                caller = self._callers.get(message.tool_call_id)
                if caller is None:
                    caller = AIMessage(
                        "",
                        tool_calls=[
                            {
                                "name": message.name or "tool",
                                "args": {},
                                "id": message.tool_call_id,
                                "type": "tool_call",
                            }
                        ],
                    )
                if not out or (
                    out[-1] is not caller
                    and not (isinstance(out[-1], ToolMessage) and self._callers.get(out[-1].tool_call_id) is caller)
                ):
                    out.append(caller)
            out.append(message)
            out += trailing
        return out
