"""The logged request bodies: OpenAI Chat Completions and Responses, Anthropic Messages, an MCP
`tools/list` response; and which of them (or an OTLP span export) a document is, by its shape.

Each tool keeps the wire fields its format has besides name, description and input schema —
`strict` (OpenAI, Anthropic); `title`, `annotations` and `outputSchema` (MCP) — since a change to
them is a change of the surface.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

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

#: Anthropic's own tools carry a dated type: `web_search_20250305`, `bash_20250124`.
_ANTHROPIC_TOOL_TYPE = re.compile(r"[a-z_]+_[0-9]{8}")
#: OpenAI's built-in tools, as a Responses body types them (a dated variant ends in `_YYYY_MM_DD`).
_OPENAI_BUILT_IN = re.compile(
    r"(web_search|web_search_preview|file_search|code_interpreter|computer_use|computer_use_preview"
    r"|image_generation|local_shell|shell|mcp|apply_patch)(_[0-9]{4}_[0-9]{2}_[0-9]{2})?"
)
_SERVER_TOOL = ("server tool", PROVIDER_TOOL[1])


@dataclass(frozen=True, slots=True)
class Shape:
    """Which log a document is, told by its shape, and where that shows."""

    kind: str
    what: str
    path: str
    evidence: str

    def mismatch(self) -> Problem:
        """The problem of importing this document as another kind."""
        because = f" ({self.evidence})" if self.evidence else ""
        return Problem(self.path, f"this is {self.what}{because}; import it with `toolsurface import {self.kind}`")


def shape_of(document: Any) -> Shape | None:
    """The kind of log `document` is, when its shape says so; None when nothing in it decides."""
    if not isinstance(document, dict):
        return None
    if "resourceSpans" in document:
        return Shape("otel", "an OTLP trace export", "$.resourceSpans", "")
    functions = document.get("functions")
    if isinstance(functions, list) and functions and isinstance(functions[0], dict) and "name" in functions[0]:
        return Shape(
            "openai",
            "an OpenAI Chat Completions body",
            "$.functions[0]",
            "a function in the deprecated 'functions' list",
        )
    result = document.get("result")
    if isinstance(result, dict) and isinstance(result.get("tools"), list):
        return Shape("mcp", "an MCP tools/list response", "$.result.tools", "a JSON-RPC result with tools")
    tools = document.get("tools")
    for index, entry in enumerate(tools if isinstance(tools, list) else ()):
        if isinstance(entry, dict) and (shape := _tool_shape(entry, f"$.tools[{index}]")):
            return shape
    return None


def _tool_shape(entry: dict[str, Any], path: str) -> Shape | None:
    kind = entry.get("type")
    if "inputSchema" in entry:
        return Shape("mcp", "an MCP tools/list response", path, "a tool with an 'inputSchema'")
    if "input_schema" in entry:
        return Shape("anthropic", "an Anthropic Messages body", path, "a tool with an 'input_schema'")
    if isinstance(entry.get("function"), dict):
        return Shape(
            "openai", "an OpenAI Chat Completions body", path, f"a tool of type {kind!r} with a nested 'function'"
        )
    if kind == "function" and "name" in entry:
        return Shape("openai", "an OpenAI Responses body", path, "a function tool with its name at the top level")
    if isinstance(kind, str) and _ANTHROPIC_TOOL_TYPE.fullmatch(kind):
        return Shape("anthropic", "an Anthropic Messages body", f"{path}.type", f"{kind!r} is an Anthropic server tool")
    if isinstance(kind, str) and _OPENAI_BUILT_IN.fullmatch(kind):
        return Shape("openai", "an OpenAI Responses body", f"{path}.type", f"{kind!r} is an OpenAI built-in tool")
    return None


def _tool_type(entry: dict[str, Any], path: str, default: str | None) -> str | None:
    kind = entry.get("type", default)
    if kind is not None and not isinstance(kind, str):
        raise Problem(f"{path}.type", f"expected a tool type (a string), found {type(kind).__name__}")
    return kind


def read_openai(document: Any) -> Logged:
    """A Chat Completions body (`messages`, `tools[].function`) or a Responses body (`input`, `tools[]`)."""
    body = object_at(document, "$", "an OpenAI request body")
    responses = "input" in body and "messages" not in body
    tools, kept_out = [], []
    for index, raw in enumerate(list_at(body.get("tools", []), "$.tools", "a list of tools")):
        path = f"$.tools[{index}]"
        entry = object_at(raw, path, "a tool")
        kind = _tool_type(entry, path, "function")
        if kind == "custom":  # Chat Completions nests it as `custom`, Responses keeps it flat
            nested = entry.get("custom")
            kept_out.append(
                KeptOut(shown(str((nested if isinstance(nested, dict) else entry).get("name", "custom"))), CUSTOM_TOOL)
            )
        elif kind != "function":
            kept_out.append(KeptOut(label(str(kind), entry.get("name")), PROVIDER_TOOL))
        elif responses:
            keys = ("name", "description", "parameters")
            tools.append(
                tool(
                    entry.get("name"),
                    entry.get("description"),
                    entry.get("parameters"),
                    path,
                    keys,
                    strict(entry, path),
                )
            )
        else:
            function = object_at(entry.get("function"), f"{path}.function", "a function")
            keys = ("function.name", "function.description", "function.parameters")
            wire = strict(function, f"{path}.function")
            tools.append(
                tool(function.get("name"), function.get("description"), function.get("parameters"), path, keys, wire)
            )
    if "functions" in body and "tools" not in body:  # the deprecated form: bare functions
        for index, raw in enumerate(list_at(body["functions"], "$.functions", "a list of functions")):
            path = f"$.functions[{index}]"
            function = object_at(raw, path, "a function")
            keys = ("name", "description", "parameters")
            tools.append(
                tool(function.get("name"), function.get("description"), function.get("parameters"), path, keys)
            )
    key = "input" if responses else "messages"
    raw_messages = body.get(key, [])
    if isinstance(raw_messages, str):  # the Responses API takes a bare string as the user's input
        raw_messages = [{"role": "user", "content": raw_messages}]
    messages = []
    for index, raw in enumerate(list_at(raw_messages, f"$.{key}", "a list of messages")):
        path = f"$.{key}[{index}]"
        message = object_at(raw, path, "a message")
        if "role" not in message:  # a Responses item that is not a message: a call or its output
            messages.append({"role": "tool", "content": json_text(message, path)})
            continue
        content = "\n".join(filter(None, [text(message.get("content"), f"{path}.content"), *calls(message, path)]))
        messages.append({"role": role(message["role"], f"{path}.role"), "content": content})
    return Logged(unique(tools, "$.tools" if "tools" in body else "$.functions"), tuple(messages), tuple(kept_out))


def read_anthropic(document: Any) -> Logged:
    """A Messages API body: `system`, `messages` of content blocks, `tools[]` with `input_schema`."""
    body = object_at(document, "$", "an Anthropic request body")
    tools, kept_out = [], []
    for index, raw in enumerate(list_at(body.get("tools", []), "$.tools", "a list of tools")):
        path = f"$.tools[{index}]"
        entry = object_at(raw, path, "a tool")
        kind = _tool_type(entry, path, None)
        if "input_schema" not in entry and kind not in (None, "custom"):
            kept_out.append(KeptOut(label(kind, entry.get("name")), _SERVER_TOOL))
            continue
        keys = ("name", "description", "input_schema")
        tools.append(
            tool(
                entry.get("name"), entry.get("description"), entry.get("input_schema"), path, keys, strict(entry, path)
            )
        )
    messages = []
    if body.get("system"):
        messages.append({"role": "system", "content": text(body["system"], "$.system")})
    for index, raw in enumerate(list_at(body.get("messages", []), "$.messages", "a list of messages")):
        path = f"$.messages[{index}]"
        message = object_at(raw, path, "a message")
        content = message.get("content")
        results = (
            isinstance(content, list)
            and content
            and all(isinstance(p, dict) and p.get("type") == "tool_result" for p in content)
        )
        messages.append(
            {
                "role": "tool" if results else role(message.get("role"), f"{path}.role"),
                "content": text(content, f"{path}.content"),
            }
        )
    return Logged(unique(tools, "$.tools"), tuple(messages), tuple(kept_out))


def read_mcp(document: Any) -> Logged:
    """A `tools/list` response, as JSON-RPC (`result.tools`) or its bare result (`tools`)."""
    body = object_at(document, "$", "an MCP tools/list response")
    if "error" in body:
        raise Problem("$.error", "the response is a JSON-RPC error, not a tool list")
    base, result = (
        ("$.result", object_at(body["result"], "$.result", "a tools/list result")) if "result" in body else ("$", body)
    )
    if "tools" not in result:
        raise Problem(base, "expected a tools/list result with 'tools'")
    tools = []
    for index, raw in enumerate(list_at(result["tools"], f"{base}.tools", "a list of tools")):
        path = f"{base}.tools[{index}]"
        entry = object_at(raw, path, "a tool")
        wire = {
            "title": entry.get("title"),
            "annotations": entry.get("annotations"),
            "output_schema": entry.get("outputSchema"),
        }
        tools.append(
            tool(
                entry.get("name"),
                entry.get("description"),
                entry.get("inputSchema"),
                path,
                ("name", "description", "inputSchema"),
                wire,
            )
        )
    return Logged(unique(tools, f"{base}.tools"), ())
