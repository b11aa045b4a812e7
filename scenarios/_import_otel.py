"""Model calls from OpenTelemetry GenAI spans: one per span that recorded its tools.

The GenAI conventions are still marked Development, and instrumentations emit several versions:
- tools: `gen_ai.tool.definitions` (a JSON string or a structured list; flat
  `{type, name, description, parameters}` or OpenAI's nested `function`), or OpenLLMetry's
  `llm.request.functions.N.{name, description, parameters | input_schema}`;
- messages: `gen_ai.input.messages` (with `gen_ai.system_instructions`), or the older span events
  `gen_ai.{system,user,assistant,tool}.message` (content in `gen_ai.event.content` or in the
  event's own attributes) and `gen_ai.content.prompt`, or OpenLLMetry's `gen_ai.prompt.N.*`.
A model call is a span whose `gen_ai.operation.name` is chat, text_completion or generate_content
(without one: whose OpenLLMetry `llm.request.type` is chat or completion, or that lists tools). An
agent or tool span is not one, even when it lists the agent's tools: its model calls are.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import orjson

from toolsurface.contract._json import loads as exact_json

from ._errors import ScenarioError
from ._import_common import (
    CUSTOM_TOOL,
    PROVIDER_TOOL,
    KeptOut,
    Logged,
    Problem,
    calls,
    json_text,
    label,
    list_at,
    object_at,
    role,
    shown,
    strict,
    text,
    tool,
    unique,
)
from ._otlp_json import Attribute, attributes, indexed, otlp_id, spans, within

_MODEL_CALLS = frozenset({"chat", "text_completion", "generate_content"})
_LEGACY_MODEL_CALLS = frozenset({"chat", "completion"})
_EVENT_ROLES = {
    "gen_ai.system.message": "system",
    "gen_ai.user.message": "user",
    "gen_ai.assistant.message": "assistant",
    "gen_ai.tool.message": "tool",
}
#: Gemini's name for the assistant.
_MORE_ROLES = {"model": "assistant"}
#: What a scenario identity field accepts (scenario.schema.json's `ref`).
_REF = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.:/-]{0,127}")


@dataclass(frozen=True, slots=True)
class ModelCall:
    """One model-call span that recorded its tools."""

    #: The document it came from: the file, or `file:LINE` in JSON Lines.
    source: str
    trace_id: str
    span_id: str
    parent_id: str | None
    #: `span 5f2c8a1b9d3e4f60 (chat gpt-4o)`, as notes name it.
    label: str
    tool_format: str
    #: `gen_ai.conversation.id`, when it is one a scenario identity can hold.
    conversation: str | None
    logged: Logged


def read_export(documents: Sequence[tuple[str, Any]]) -> tuple[list[ModelCall], list[str]]:
    """The model calls in OTLP JSON `documents` (`(source, decoded JSON)` each), and one line for
    each model-call span skipped for lack of tools; `ScenarioError` lists every problem."""
    found: list[ModelCall] = []
    skipped: list[str] = []
    problems: list[str] = []
    count = 0
    for source, document in documents:
        try:
            for path, span in spans(document):
                count += 1
                try:
                    read = _read_span(source, span, path)
                except Problem as problem:
                    problems.append(f"{source}:{problem.path}: {problem}")
                    continue
                if isinstance(read, ModelCall):
                    found.append(read)
                elif read is not None:
                    skipped.append(read)
        except Problem as problem:
            problems.append(f"{source}:{problem.path}: {problem}")
    if problems:
        raise ScenarioError(problems)
    if not found:
        operations = ", ".join(sorted(_MODEL_CALLS))
        raise ScenarioError(
            [*skipped, f"{documents[0][0]}: no model-call span ({operations}) with tools among its {count} spans"]
        )
    return found, skipped


def _read_span(source: str, span: dict[str, Any], path: str) -> ModelCall | str | None:
    """The model call `span` records; one line saying what it lacks when it is a model call without
    tools; None when it is not a model call."""
    found = attributes(span.get("attributes", []), f"{path}.attributes")
    operation = _string(found, "gen_ai.operation.name")
    legacy = "llm.request.type" in found or any(key.startswith(("gen_ai.prompt.", "llm.")) for key in found)
    lists_tools = "gen_ai.tool.definitions" in found or any(key.startswith("llm.request.functions.0.") for key in found)
    if operation is not None:
        if operation not in _MODEL_CALLS:
            return None
    elif not lists_tools and _string(found, "llm.request.type") not in _LEGACY_MODEL_CALLS:
        return None
    read = _tools(found)
    span_id = otlp_id(span.get("spanId"), f"{path}.spanId", 8)
    trace_id = otlp_id(span.get("traceId"), f"{path}.traceId", 16)
    if span_id is None or trace_id is None:
        raise Problem(path, "expected a span with a traceId and a spanId")
    name = span.get("name")
    named = f"span {span_id} ({shown(name if isinstance(name, str) and name else operation or 'model call')})"
    if read is None:
        return f"{named} has no {'llm.request.functions.*' if legacy else 'gen_ai.tool.definitions'}: skipped"
    tools, kept_out, bare = read
    if not tools:
        kept = f" (only {', '.join(out.label for out in kept_out)})" if kept_out else ""
        return f"{named} lists no function tools{kept}: skipped"
    messages = _messages(found, span.get("events", []), f"{path}.events")
    gaps = []
    if bare:
        many = "s" if len(bare) > 1 else ""
        gaps.append(
            f"{named}: {len(bare)} tool{many} without recorded parameters "
            f"({', '.join(map(shown, bare))}): recorded as taking none"
        )
    if not messages:
        lacks = "gen_ai.prompt.*" if legacy else "gen_ai.input.messages"
        gaps.append(f"{named} recorded no messages (no {lacks}): a placeholder user message stands in")
    conversation = _string(found, "gen_ai.conversation.id")
    return ModelCall(
        source=source,
        trace_id=trace_id,
        span_id=span_id,
        parent_id=otlp_id(span.get("parentSpanId"), f"{path}.parentSpanId", 8),
        label=named,
        tool_format=_tool_format(found),
        conversation=conversation if conversation is not None and _REF.fullmatch(conversation) else None,
        logged=Logged(tuple(tools), tuple(messages), tuple(kept_out), tuple(gaps)),
    )


_Tools = tuple[list[dict[str, Any]], list[KeptOut], list[str]]


def _tools(found: dict[str, Attribute]) -> _Tools | None:
    """The function tools, the tools kept out, and the names of those without parameters."""
    if "gen_ai.tool.definitions" in found:
        return within("gen_ai.tool.definitions", found["gen_ai.tool.definitions"], _definitions)
    functions = indexed(found, "llm.request.functions")
    return _functions(functions) if functions else None


def _definitions(value: Any, path: str) -> _Tools:
    tools, kept_out, bare = [], [], []
    for index, raw in enumerate(list_at(value, path, "a list of tool definitions")):
        where = f"{path}[{index}]"
        entry = object_at(raw, where, "a tool definition")
        kind = entry.get("type", "function")
        if not isinstance(kind, str):
            raise Problem(f"{where}.type", f"expected a tool type (a string), found {type(kind).__name__}")
        nested = isinstance(entry.get("function"), dict)  # OpenAI's Chat Completions form
        holder, at = (entry["function"], f"{where}.function") if nested else (entry, where)
        key = next((key for key in ("parameters", "input_schema", "inputSchema") if holder.get(key) is not None), None)
        if kind != "function" and key is None:
            kept_out.append(
                KeptOut(label(kind, holder.get("name")), CUSTOM_TOOL if kind == "custom" else PROVIDER_TOOL)
            )
            continue
        if key is None:
            bare.append(str(holder.get("name")))
        keys = ("name", "description", key or "parameters")
        tools.append(
            tool(
                holder.get("name"),
                holder.get("description"),
                holder.get(key) if key else None,
                at,
                keys,
                strict(holder, at),
            )
        )
    return list(unique(tools, path)), kept_out, bare


def _functions(groups: list[dict[str, Attribute]]) -> _Tools:
    """OpenLLMetry's `llm.request.functions.N.*`; the schema is a JSON string (`null` for none)."""
    tools: list[dict[str, Any]] = []
    bare: list[str] = []
    for index, group in enumerate(groups):
        where = f"llm.request.functions.{index}"
        try:
            key = "input_schema" if "input_schema" in group else "parameters"  # Anthropic's spelling, or OpenAI's
            schema = group[key].value if key in group else None
            if isinstance(schema, str):
                try:
                    schema = exact_json(schema)
                except orjson.JSONDecodeError as error:
                    raise Problem(f"{where}.{key}", f"not JSON: {error}") from None
            name, description = (group[field].value if field in group else None for field in ("name", "description"))
            if any(known["name"] == name for known in tools):
                raise Problem(f"{where}.name", f"tool {name!r} is listed twice")
            tools.append(tool(name, description, schema, where, ("name", "description", key)))
        except Problem as problem:
            raise Problem(group.get("name", next(iter(group.values()))).path, f"{problem.path}: {problem}") from None
        if schema is None:
            bare.append(str(name))
    return tools, [], bare


def _messages(found: dict[str, Attribute], events: Any, path: str) -> list[dict[str, str]]:
    """The messages the span recorded, from the first form it has; none when it recorded none."""
    if "gen_ai.input.messages" in found:
        messages = within("gen_ai.input.messages", found["gen_ai.input.messages"], _semconv_messages)
        if "gen_ai.system_instructions" in found:
            system = within("gen_ai.system_instructions", found["gen_ai.system_instructions"], text, plain_text=True)
            messages.insert(0, {"role": "system", "content": system})
        return messages
    messages = _event_messages(list_at(events, path, "a list of events"), path)
    if messages:
        return messages
    return [_prompt_message(group, index) for index, group in enumerate(indexed(found, "gen_ai.prompt"))]


def _semconv_messages(value: Any, path: str) -> list[dict[str, str]]:
    """`gen_ai.input.messages`: `{role, parts}` each (a `content` in place of parts is read too)."""
    messages = []
    for index, raw in enumerate(list_at(value, path, "a list of messages")):
        where = f"{path}[{index}]"
        message = object_at(raw, where, "a message")
        content = message["parts"] if "parts" in message else message.get("content")
        key = "parts" if "parts" in message else "content"
        said = role(message.get("role"), f"{where}.role", _MORE_ROLES)
        if (
            isinstance(content, list)
            and content
            and all(isinstance(part, dict) and part.get("type") == "tool_call_response" for part in content)
        ):
            said = "tool"  # tool results, though some instrumentations send them as the user's
        messages.append({"role": said, "content": text(content, f"{where}.{key}")})
    return messages


def _event_messages(events: list[Any], path: str) -> list[dict[str, str]]:
    """The older span events: one per message, or one `gen_ai.content.prompt` holding them all."""
    messages = []
    for index, raw in enumerate(events):
        where = f"{path}[{index}]"
        event = object_at(raw, where, "an event")
        name = event.get("name") if isinstance(event.get("name"), str) else None
        found = attributes(event.get("attributes", []), f"{where}.attributes")
        if name == "gen_ai.content.prompt" and "gen_ai.prompt" in found:
            messages.extend(within("gen_ai.prompt", found["gen_ai.prompt"], _plain_messages))
        elif name in _EVENT_ROLES:
            body = {key: attribute.value for key, attribute in found.items()}
            if "gen_ai.event.content" in found:
                body.update(
                    within(
                        "gen_ai.event.content",
                        found["gen_ai.event.content"],
                        lambda value, at: object_at(value, at, "an object"),
                    )
                )
            messages.append({"role": _EVENT_ROLES[name], "content": _event_text(body, f"{where}.attributes")})
    return messages


def _event_text(body: dict[str, Any], path: str) -> str:
    tool_calls = body.get("tool_calls")
    if isinstance(tool_calls, str):  # a JSON string when the event's body was flattened into attributes
        try:
            tool_calls = orjson.loads(tool_calls)
        except orjson.JSONDecodeError:
            tool_calls = None
    content = body.get("content")
    said = content if content is None or isinstance(content, str | list) else json_text(content, f"{path}.content")
    return "\n".join(filter(None, [text(said, f"{path}.content"), *calls({"tool_calls": tool_calls}, path)]))


def _plain_messages(value: Any, path: str) -> list[dict[str, str]]:
    """OpenAI-style `{role, content}` messages, as `gen_ai.prompt` holds them."""
    messages = []
    for index, raw in enumerate(list_at(value, path, "a list of messages")):
        message = object_at(raw, f"{path}[{index}]", "a message")
        said = "\n".join(
            filter(
                None, [text(message.get("content"), f"{path}[{index}].content"), *calls(message, f"{path}[{index}]")]
            )
        )
        messages.append({"role": role(message.get("role"), f"{path}[{index}].role", _MORE_ROLES), "content": said})
    return messages


def _prompt_message(group: dict[str, Attribute], index: int) -> dict[str, str]:
    """OpenLLMetry's `gen_ai.prompt.N.{role, content, tool_calls.M.{name, arguments}}`."""
    where = f"gen_ai.prompt.{index}"
    first = next(iter(group.values()))
    spoken = group.get("role")
    try:
        said = role(spoken.value if spoken else None, f"{where}.role", _MORE_ROLES)
    except Problem as problem:
        raise Problem((spoken or first).path, f"{problem.path}: {problem}") from None
    content = group["content"].value if "content" in group else ""
    named = [
        {"function": {key: call[key].value for key in ("name", "arguments") if key in call}}
        for call in indexed(group, "tool_calls")
    ]
    return {"role": said, "content": "\n".join(filter(None, [str(content), *calls({"tool_calls": named}, where)]))}


def _tool_format(found: dict[str, Attribute]) -> str:
    """The host's tool format, as the provider the span names implies; `logical` for any other."""
    provider = (_string(found, "gen_ai.provider.name") or _string(found, "gen_ai.system") or "").lower()
    if provider == "openai" or provider.endswith(".openai"):  # azure.ai.openai
        return "openai"
    return "anthropic" if provider == "anthropic" else "logical"


def _string(found: dict[str, Attribute], key: str) -> str | None:
    """The attribute `key` when it holds a string; None when the span has no such string."""
    value = found[key].value if key in found else None
    return value if isinstance(value, str) else None
