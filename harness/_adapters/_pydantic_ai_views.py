"""Logical views of pydantic-ai's live request objects, for `ports.inject` and the gateway: the
guard's views (`toolsurface.guard._pydantic_ai_views`: which parts a message view shows), and the
way back onto the framework's objects.

Mutators and snapshots reach tools through a `toolsurface.ToolFormat`, which reads dict keys; pydantic-ai
keeps its tools as `ToolDefinition` dataclasses and its conversation as `ModelMessage`s of parts.
A `Crossing` shows one boundary's live objects as logical dicts and maps what comes back onto the
framework's objects again:

- a tool view is `{"name", "description", "input_schema"}` whose `input_schema` *is* the
  definition's `parameters_json_schema` dict, so an in-place schema edit lands on the framework's
  own dict (and on everything sharing it, `Tool.function_schema.json_schema` included); an in-place
  name or description edit is written back onto the same `ToolDefinition`; a new view becomes a new
  `ToolDefinition`;
- a message view is `{"role", "content"}` per visible part (system prompt, user prompt, assistant
  text, tool return); an in-place content edit is written back onto the same part, a new view
  becomes a new part. Parts the views do not show (tool calls, an empty trailing request that
  carries the agent's instructions) travel with the part they belong to, and every tool return is
  preceded by its call, as pydantic-ai drops a tool return whose call is missing.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any

from pydantic_ai.messages import (
    ModelMessage,
    ModelRequest,
    ModelResponse,
    SystemPromptPart,
    TextPart,
    ToolCallPart,
    ToolReturnPart,
    UserPromptPart,
)
from pydantic_ai.tools import ToolDefinition

from toolsurface.guard._pydantic_ai_views import shown_as, tool_view
from toolsurface.scenarios import Message

from ._common import TOOL_RESULT_NAME, CallIds, write_back


def history(messages: Iterable[Message]) -> list[ModelMessage]:
    """A recorded conversation as pydantic-ai message history, one visible part per message."""
    calls = CallIds()
    out: list[ModelMessage] = []
    for message in messages:
        out += _new_messages(message.role, message.content, calls)
    return out


def _with_parts(message: ModelMessage, parts: Sequence[Any]) -> ModelMessage:
    """A copy of `message` holding `parts`, replaced per type: a request and a response hold different
    kinds of parts, so on their union mypy could check `parts` against neither."""
    if isinstance(message, ModelRequest):
        return replace(message, parts=parts)
    return replace(message, parts=parts)


@dataclass(slots=True)
class _Shown:
    """What one message view stands for: its part, the message holding it, and what travels with it."""

    part: Any
    message: ModelMessage
    role: str
    content: str
    #: Invisible parts of the same message around this one (never tool calls: those go by pairing).
    before: list[Any] = field(default_factory=list)
    after: list[Any] = field(default_factory=list)
    #: Messages without a visible part that followed this one.
    trailing: list[ModelMessage] = field(default_factory=list)


@dataclass(slots=True)
class _Group:
    """Parts that go out as one message: `origin`'s (reused when they are all of its parts) or new ones."""

    origin: ModelMessage | None
    response: bool
    parts: list[Any]

    def message(self) -> ModelMessage:
        if self.origin is None:
            return ModelResponse(parts=self.parts) if self.response else ModelRequest(parts=self.parts)
        if len(self.parts) == len(self.origin.parts) and all(
            a is b for a, b in zip(self.parts, self.origin.parts, strict=True)
        ):
            return self.origin
        return _with_parts(self.origin, self.parts)


class Crossing:
    """One boundary's live tools and messages as logical views, and the way back."""

    def __init__(self, tools: Sequence[ToolDefinition], messages: Sequence[ModelMessage], point: str) -> None:
        self._original_tools = list(tools)
        self._original_messages = list(messages)
        self.tools = [tool_view(tool) for tool in tools]
        self._tools = {id(view): (tool, dict(view)) for view, tool in zip(self.tools, tools, strict=True)}
        self.messages: list[dict[str, Any]] = []
        self._shown: dict[int, _Shown] = {}
        self._calls: dict[str, tuple[ToolCallPart, ModelMessage]] = {}
        self._new_call_id = CallIds(point)
        #: Messages without a visible part before the first visible one, and after the last one.
        self._leading: list[ModelMessage] = []
        pending: list[ModelMessage] = []
        last: _Shown | None = None
        for message in messages:
            loose: list[Any] = []
            first: _Shown | None = None
            for part in message.parts:
                if isinstance(part, ToolCallPart):
                    self._calls[part.tool_call_id] = (part, message)
                elif (role_content := shown_as(part)) is not None:
                    view = {"role": role_content[0], "content": role_content[1]}
                    shown = _Shown(part, message, *role_content, before=loose)
                    loose = []
                    self._shown[id(view)] = shown
                    self.messages.append(view)
                    if first is None:
                        first = shown
                        # What came between the last visible part and this message goes with the last one.
                        (last.trailing if last is not None else self._leading).extend(pending)
                        pending = []
                    last = shown
                else:
                    loose.append(part)
            if first is None:
                if parts := [part for part in message.parts if not isinstance(part, ToolCallPart)]:
                    pending.append(message if len(parts) == len(message.parts) else _with_parts(message, parts))
            elif last is not None:
                last.after.extend(loose)
        self._tail = pending
        self._before = [(id(v), v["role"], v["content"]) for v in self.messages]

    # -- the way back ------------------------------------------------------------------------

    def tool_definitions(self, views: list[Any]) -> list[ToolDefinition]:
        """The definitions `views` stand for: the live ones where the view is one of ours."""
        out: list[ToolDefinition] = []
        for view in views:
            known = self._tools.get(id(view))
            if known is None:
                out.append(_new_tool(view))
                continue
            tool, before = known
            write_back(tool, view, before, "parameters_json_schema")
            out.append(tool)
        return out

    def model_messages(self, views: list[Any]) -> list[ModelMessage]:
        """The messages `views` stand for; the original messages themselves when no view changed."""
        if [(id(v), v.get("role"), v.get("content")) for v in views] == self._before:
            return list(self._original_messages)
        groups: list[_Group] = []

        def emit(origin: ModelMessage | None, response: bool, parts: list[Any]) -> None:
            if origin is not None and groups and groups[-1].origin is origin:
                groups[-1].parts.extend(parts)
            else:
                groups.append(_Group(origin, response, list(parts)))

        for view in views:
            shown = self._shown.get(id(view))
            if shown is None or view.get("role") != shown.role:
                for message in _new_messages(str(view.get("role")), str(view.get("content", "")), self._new_call_id):
                    emit(None, isinstance(message, ModelResponse), list(message.parts))
                continue
            if view["content"] != shown.content:
                shown.part.content = view["content"]  # an in-place edit reaches the live part
            if isinstance(shown.part, ToolReturnPart):
                call, holder = self._calls.get(shown.part.tool_call_id) or (_call_for(shown.part), None)
                if holder is not None and groups and groups[-1].origin is holder:
                    groups[-1].parts.append(call)
                else:
                    emit(None, True, [call])
            response = isinstance(shown.message, ModelResponse)
            emit(shown.message, response, [*shown.before, shown.part, *shown.after])
            for message in shown.trailing:
                emit(message, isinstance(message, ModelResponse), list(message.parts))
        return [*self._leading, *(group.message() for group in groups), *self._tail]


def _new_tool(view: Any) -> ToolDefinition:
    return ToolDefinition(
        name=view["name"], description=view.get("description", ""), parameters_json_schema=view["input_schema"]
    )


def _call_for(result: ToolReturnPart) -> ToolCallPart:
    return ToolCallPart(result.tool_name, {}, tool_call_id=result.tool_call_id)


def _new_messages(role: str, content: str, calls: CallIds) -> list[ModelMessage]:
    """One recorded or injected message as pydantic-ai messages: a tool result comes with its call."""
    if role == "assistant":
        return [ModelResponse(parts=[TextPart(content)])]
    if role == "tool":
        match = TOOL_RESULT_NAME.match(content)
        result = ToolReturnPart(tool_name=match.group(1) if match else "tool", content=content, tool_call_id=calls())
        return [ModelResponse(parts=[_call_for(result)]), ModelRequest(parts=[result])]
    part = SystemPromptPart(content) if role == "system" else UserPromptPart(content)
    return [ModelRequest(parts=[part])]
