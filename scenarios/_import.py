"""Scenario skeletons from what a host logged: an OpenAI or Anthropic request body, or an MCP
`tools/list` response.

Each tool keeps the wire fields its format has besides name, description and input schema —
`strict` (OpenAI, Anthropic); `title`, `annotations` and `outputSchema` (MCP) — since a change to
them is a change of the surface.

A logged request shows what was sealed and sent, nothing of the stages before it, so a skeleton
holds the request's tools as its admitted contract, its messages, placeholder identities and a
single `seal` stage; the host's own stages, lane and identity are for its owner to fill in. A
skeleton is checked by the scenario loader before it is returned, so what this module gives
always loads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import orjson

from ._errors import ScenarioError
from ._loader import parse

_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_ID_UNSAFE = re.compile(r"[^a-z0-9-]+")
#: Identity placeholders: the log of one request does not say which run, scope or connection it was.
_IDENTITY = {"run": "run_imported", "scope": "scope:imported", "invocation": "inv_imported", "connection": "conn_imported", "request": "req_imported"}


class _Problem(Exception):
    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


def import_file(kind: str, path: Path, scenario_id: str | None = None) -> dict[str, Any]:
    """The skeleton for the log in `path` (id: from the file name unless given)."""
    try:
        document = orjson.loads(path.read_bytes())
    except OSError as error:
        raise ScenarioError([f"{path}: cannot read: {error.strerror}"]) from None
    except orjson.JSONDecodeError as error:
        raise ScenarioError([f"{path}:{error.lineno}:{error.colno}: invalid JSON: {error.msg}"]) from None
    return import_scenario(kind, document, str(path), scenario_id or scenario_id_for(path.stem))


def import_scenario(kind: str, document: Any, source: str, scenario_id: str) -> dict[str, Any]:
    """A scenario skeleton for `document`, which `source` logged as a `kind` body; `ScenarioError` otherwise."""
    try:
        tools, messages = _READERS[kind](document)
        if not tools:
            raise _Problem("$", "the log lists no tools: a research scenario admits at least one")
    except _Problem as problem:
        raise ScenarioError([f"{source}:{problem.path}: {problem}"]) from None
    skeleton = {
        "format": "toolsurface.scenario/1",
        "id": scenario_id,
        "description": f"Imported from {kind} log {source}: review the lane, identity and stages before relying on it.",
        "mode": "research",
        "lane": "main",
        "identity": dict(_IDENTITY),
        "tool_format": kind,
        "contract": {"admitted": tools},
        "messages": messages or [{"role": "user", "content": "(no messages were logged)"}],
        "hooks": False,
        "stages": [{"stage": "seal"}],
    }
    parse(skeleton, source=f"{source} (imported)")
    return skeleton


def scenario_id_for(stem: str) -> str:
    """A scenario id made from a file name: lower case, letters, digits and dashes."""
    return _ID_UNSAFE.sub("-", stem.lower()).strip("-")[:64] or "imported"


def _object(value: Any, path: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise _Problem(path, f"expected {what}, found {type(value).__name__}")
    return value


def _list(value: Any, path: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Problem(path, f"expected {what}, found {type(value).__name__}")
    return value


def _tool(
    name: Any, description: Any, schema: Any, path: str, keys: tuple[str, str, str], wire: dict[str, Any] | None = None
) -> dict[str, Any]:
    """One admitted tool; `keys` name the three fields as the log spells them, for messages; `wire`
    holds the wire fields the log's format has, by their scenario names (a null one is absent)."""
    if name is None:
        raise _Problem(f"{path}.{keys[0]}", "missing: each tool has a name (is this the right kind of log?)")
    if not isinstance(name, str) or not _TOOL_NAME.fullmatch(name):
        raise _Problem(f"{path}.{keys[0]}", f"{name!r} is not a tool name a scenario accepts ({_TOOL_NAME.pattern})")
    if not isinstance(description, str) or not description:
        raise _Problem(f"{path}.{keys[1]}", f"tool {name!r} has no description: a scenario records each tool's full description")
    if schema is None:
        schema = {"type": "object", "properties": {}}  # a function without parameters takes none
    schema = _object(schema, f"{path}.{keys[2]}", "a JSON Schema object")
    if schema.get("type") != "object":
        raise _Problem(f"{path}.{keys[2]}.type", f"tool {name!r} takes {schema.get('type')!r} arguments; a tool's input schema is an object")
    kept = {field: value for field, value in (wire or {}).items() if value is not None}
    return {"name": name, "description": description, "input_schema": schema, **kept}


def _strict(holder: dict[str, Any], path: str) -> dict[str, Any]:
    """The `strict` flag an OpenAI function or an Anthropic tool was sent with: part of its surface."""
    strict = holder.get("strict")
    if strict is not None and not isinstance(strict, bool):
        raise _Problem(f"{path}.strict", f"expected true or false, found {type(strict).__name__}")
    return {"strict": strict}


def _unique(tools: list[dict[str, Any]], path: str) -> list[dict[str, Any]]:
    seen: set[str] = set()
    for index, tool in enumerate(tools):
        if tool["name"] in seen:
            raise _Problem(f"{path}[{index}]", f"tool {tool['name']!r} is listed twice")
        seen.add(tool["name"])
    return tools


def _text(content: Any, path: str) -> str:
    """Message content as the one string a scenario message holds: parts joined, calls spelled out."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(_part_text(part, f"{path}[{index}]") for index, part in enumerate(_list(content, path, "a string or content parts")))


def _part_text(part: Any, path: str) -> str:
    part = _object(part, path, "a content part")
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        return str(part.get("text", ""))
    if kind == "tool_use":
        return f"[tool_call {part.get('name')}] {orjson.dumps(part.get('input', {})).decode()}"
    if kind == "tool_result":
        return _text(part.get("content"), f"{path}.content")
    return f"[{kind} part]"


def _calls(message: dict[str, Any]) -> Iterator[str]:
    for call in message.get("tool_calls") or ():
        function = call.get("function", {}) if isinstance(call, dict) else {}
        yield f"[tool_call {function.get('name')}] {function.get('arguments', '')}"


def _role(role: Any, path: str) -> str:
    roles = {"system": "system", "developer": "system", "user": "user", "assistant": "assistant", "tool": "tool", "function": "tool"}
    if role not in roles:
        raise _Problem(path, f"{role!r} is not a chat role ({', '.join(roles)})")
    return roles[role]


def _openai(document: Any) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """A Chat Completions body (`messages`, `tools[].function`) or a Responses body (`input`, `tools[]`)."""
    body = _object(document, "$", "an OpenAI request body")
    responses = "input" in body and "messages" not in body
    tools = []
    for index, raw in enumerate(_list(body.get("tools", []), "$.tools", "a list of tools")):
        path = f"$.tools[{index}]"
        entry = _object(raw, path, "a tool")
        if entry.get("type", "function") != "function":
            raise _Problem(f"{path}.type", f"{entry.get('type')!r} is a built-in tool; only function tools are a scenario's tools")
        if responses:
            keys = ("name", "description", "parameters")
            tools.append(_tool(entry.get("name"), entry.get("description"), entry.get("parameters"), path, keys, _strict(entry, path)))
        else:
            function = _object(entry.get("function"), f"{path}.function", "a function")
            keys = ("function.name", "function.description", "function.parameters")
            wire = _strict(function, f"{path}.function")
            tools.append(_tool(function.get("name"), function.get("description"), function.get("parameters"), path, keys, wire))
    key = "input" if responses else "messages"
    raw_messages = body.get(key, [])
    if isinstance(raw_messages, str):  # the Responses API takes a bare string as the user's input
        raw_messages = [{"role": "user", "content": raw_messages}]
    messages = []
    for index, raw in enumerate(_list(raw_messages, f"$.{key}", "a list of messages")):
        path = f"$.{key}[{index}]"
        message = _object(raw, path, "a message")
        if "role" not in message:  # a Responses item that is not a message: a call or its output
            messages.append({"role": "tool", "content": orjson.dumps(message).decode()})
            continue
        text = "\n".join(filter(None, [_text(message.get("content"), f"{path}.content"), *_calls(message)]))
        messages.append({"role": _role(message["role"], f"{path}.role"), "content": text})
    return _unique(tools, "$.tools"), messages


def _anthropic(document: Any) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """A Messages API body: `system`, `messages` of content blocks, `tools[]` with `input_schema`."""
    body = _object(document, "$", "an Anthropic request body")
    tools = []
    for index, raw in enumerate(_list(body.get("tools", []), "$.tools", "a list of tools")):
        path = f"$.tools[{index}]"
        entry = _object(raw, path, "a tool")
        if "input_schema" not in entry and "type" in entry:
            raise _Problem(f"{path}.type", f"{entry['type']!r} is a server tool; only client tools are a scenario's tools")
        keys = ("name", "description", "input_schema")
        tools.append(_tool(entry.get("name"), entry.get("description"), entry.get("input_schema"), path, keys, _strict(entry, path)))
    messages = []
    if body.get("system"):
        messages.append({"role": "system", "content": _text(body["system"], "$.system")})
    for index, raw in enumerate(_list(body.get("messages", []), "$.messages", "a list of messages")):
        path = f"$.messages[{index}]"
        message = _object(raw, path, "a message")
        content = message.get("content")
        results = isinstance(content, list) and content and all(isinstance(p, dict) and p.get("type") == "tool_result" for p in content)
        role = "tool" if results else _role(message.get("role"), f"{path}.role")
        messages.append({"role": role, "content": _text(content, f"{path}.content")})
    return _unique(tools, "$.tools"), messages


def _mcp(document: Any) -> tuple[list[dict[str, Any]], list[dict[str, str]]]:
    """A `tools/list` response, as JSON-RPC (`result.tools`) or its bare result (`tools`)."""
    body = _object(document, "$", "an MCP tools/list response")
    if "error" in body:
        raise _Problem("$.error", "the response is a JSON-RPC error, not a tool list")
    base, result = ("$.result", _object(body["result"], "$.result", "a tools/list result")) if "result" in body else ("$", body)
    if "tools" not in result:
        raise _Problem(base, "expected a tools/list result with 'tools'")
    tools = []
    for index, raw in enumerate(_list(result["tools"], f"{base}.tools", "a list of tools")):
        path = f"{base}.tools[{index}]"
        entry = _object(raw, path, "a tool")
        wire = {"title": entry.get("title"), "annotations": entry.get("annotations"), "output_schema": entry.get("outputSchema")}
        tools.append(_tool(entry.get("name"), entry.get("description"), entry.get("inputSchema"), path, ("name", "description", "inputSchema"), wire))
    return _unique(tools, f"{base}.tools"), []


_READERS: dict[str, Callable[[Any], tuple[list[dict[str, Any]], list[dict[str, str]]]]] = {
    "openai": _openai,
    "anthropic": _anthropic,
    "mcp": _mcp,
}
#: The logs `toolsurface import` reads.
IMPORT_KINDS = tuple(_READERS)
