"""Logical views of the OpenAI Agents SDK's live request objects, for `ports.inject` and the gateway.

Mutators and snapshots reach tools through a `toolsurface.ToolFormat`, which reads dict keys; the SDK
keeps its tools as `FunctionTool` dataclasses and its model input as Responses input items. A
`Crossing` shows one boundary's live objects as logical dicts and maps what comes back onto the
SDK's objects again:

- a tool view is `{"name", "description", "input_schema"}` whose `input_schema` *is* the tool's
  `params_json_schema` dict (a `FunctionTool` with `strict_json_schema=False` keeps the dict it was
  given), so an in-place schema edit lands on the tool itself; an in-place name or description edit
  is written back onto the same `FunctionTool`; a new view becomes a new `FunctionTool`;
- a message view is `{"role", "content"}` per visible input item: an easy input message (system,
  user, assistant) or a `function_call_output` (role `tool`). An in-place content edit is written
  back onto the same item, a new view becomes new items. A `function_call` travels with its output,
  and every output is preceded by its call, as the Responses API rejects an output without one.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from agents import FunctionTool

from toolsurface.guard._openai_agents_views import (
    ROLES,
    message_views,
    shown_as,
    tool_view,
)
from toolsurface.scenarios import Message

from ._common import TOOL_RESULT_NAME, CallIds, write_back

__all__ = ["Crossing", "input_items", "message_views", "new_items", "tool_view"]


def input_items(messages: Iterable[Message]) -> list[dict[str, Any]]:
    """A recorded conversation as Responses input items: a tool result comes with its call."""
    calls = CallIds()
    out: list[dict[str, Any]] = []
    for message in messages:
        out += new_items(message.role, message.content, calls)
    return out


@dataclass(slots=True)
class _Shown:
    """What one message view stands for: its item, and the invisible items that follow it."""

    item: dict[str, Any]
    role: str
    content: str
    trailing: list[Any] = field(default_factory=list)


class Crossing:
    """One boundary's live tools and input items as logical views, and the way back."""

    def __init__(
        self, tools: Sequence[FunctionTool], items: Sequence[Any], point: str, build: Callable[[Any], FunctionTool]
    ) -> None:
        self._build = build
        self._original_items = list(items)
        self.tools = [tool_view(tool) for tool in tools]
        self._tools = {id(view): (tool, dict(view)) for view, tool in zip(self.tools, tools, strict=True)}
        self.messages: list[dict[str, Any]] = []
        self._shown: dict[int, _Shown] = {}
        self._calls: dict[str, dict[str, Any]] = {}
        self._new_call_id = CallIds(point)
        self._leading: list[Any] = []
        last: _Shown | None = None
        for item in items:
            shown = shown_as(item)
            if isinstance(item, dict) and item.get("type") == "function_call" and isinstance(item.get("call_id"), str):
                self._calls[item["call_id"]] = item  # goes out again right before its output
            elif shown is None:
                (last.trailing if last is not None else self._leading).append(item)
            else:
                view = {"role": shown[0], "content": shown[1]}
                last = self._shown[id(view)] = _Shown(item, *shown)
                self.messages.append(view)
        self._before = [(id(v), v["role"], v["content"]) for v in self.messages]

    # -- the way back ------------------------------------------------------------------------

    def function_tools(self, views: list[Any]) -> list[FunctionTool]:
        """The tools `views` stand for: the live ones where the view is one of ours."""
        out: list[FunctionTool] = []
        by_name = {tool.name: tool for tool, _ in self._tools.values()}
        for view in views:
            known = self._tools.get(id(view))
            if known is None:
                out.append(self._rebuilt(view, by_name.get(view["name"])))
                continue
            tool, before = known
            write_back(tool, view, before, "params_json_schema")
            out.append(tool)
        return out

    def _rebuilt(self, view: dict[str, Any], like: FunctionTool | None) -> FunctionTool:
        """A new tool for `view`: made from it alone, or a copy of the live tool of its name with the
        view's surface, keeping what a view does not show (`strict_json_schema`, its function)."""
        if like is None:
            return self._build(view)
        # A copy, not `dataclasses.replace`: the SDK would make the schema strict again, re-deriving
        # what the view holds as it is.
        tool = copy.copy(like)
        tool.name, tool.description, tool.params_json_schema = (
            view["name"],
            view.get("description", ""),
            view["input_schema"],
        )
        return tool

    def input_items(self, views: list[Any]) -> list[Any]:
        """The input items `views` stand for; the original items themselves when no view changed."""
        if [(id(v), v.get("role"), v.get("content")) for v in views] == self._before:
            return list(self._original_items)
        out: list[Any] = list(self._leading)
        for view in views:
            shown = self._shown.get(id(view))
            if shown is None or view.get("role") != shown.role:
                out += new_items(str(view.get("role")), str(view.get("content", "")), self._new_call_id)
                continue
            item = shown.item
            if view["content"] != shown.content:
                item["output" if shown.role == "tool" else "content"] = view["content"]  # reaches the live item
            if shown.role == "tool":
                call_id = item.get("call_id")
                call = self._calls.get(call_id) if isinstance(call_id, str) else None
                out.append(call or _call_for(item))
            out += [item, *shown.trailing]
        return out


def _call_for(output: dict[str, Any]) -> dict[str, Any]:
    match = TOOL_RESULT_NAME.match(str(output.get("output", "")))
    name = match.group(1) if match else "tool"
    return {"type": "function_call", "call_id": output.get("call_id"), "name": name, "arguments": "{}"}


def new_items(role: str, content: str, calls: CallIds) -> list[dict[str, Any]]:
    """One recorded or injected message as input items: a tool result comes with its call."""
    if role == "tool":
        output = {"type": "function_call_output", "call_id": calls(), "output": content}
        return [_call_for(output), output]
    return [{"role": role if role in ROLES else "user", "content": content}]
