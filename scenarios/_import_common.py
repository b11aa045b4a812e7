"""What every importer shares: a problem at a JSON path of the log, the logged tools and messages
as a scenario records them, and the tools a log lists that a scenario's contract cannot hold.

A scenario tool is a function tool of the host: a name, a description (possibly empty: OpenAI and
the OTel conventions make it optional, and a tool without one is sent without one) and a JSON
Schema for its arguments. A provider's built-in or server tool (`web_search_preview`,
`web_search_20250305`) runs on the provider's side with a schema the log does not hold, and a
custom tool takes free-form text: neither is the host's to admit, so they are kept out of the
contract and named in a note instead of refusing the whole log.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

import orjson

TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,64}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")
#: A provider's own tool, run on its side: not the host's to admit.
PROVIDER_TOOL = ("built-in tool", "a provider tool the host does not admit")
#: A tool with free-form input instead of a JSON Schema.
CUSTOM_TOOL = ("custom tool", "free-form input, no JSON Schema for a scenario to record")


class Problem(Exception):
    """Input that cannot be a scenario, at `path` (a JSON path of the log)."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(message)
        self.path = path


@dataclass(frozen=True, slots=True)
class KeptOut:
    """A tool the log lists that the scenario's contract does not hold."""

    #: How the log names it: its name, or its type for a provider tool that has no name.
    label: str
    #: What kind of tool it is and why it is kept out: `PROVIDER_TOOL` or `CUSTOM_TOOL`, or the
    #: same pair with the provider's own word for its tools ("server tool").
    kind: tuple[str, str] = PROVIDER_TOOL


@dataclass(frozen=True, slots=True)
class Logged:
    """One logged model request as a scenario records it."""

    tools: tuple[dict[str, Any], ...]
    messages: tuple[dict[str, str], ...]
    kept_out: tuple[KeptOut, ...] = ()
    #: What the log did not hold and the skeleton stands in for, one line each.
    gaps: tuple[str, ...] = ()


def kept_out_notes(kept_out: Iterable[KeptOut]) -> list[str]:
    """One line per kind of tool kept out: `kept out of the contract: 2 built-in tools: a, b (…)`."""
    groups: dict[tuple[str, str], list[str]] = {}
    for tool in kept_out:
        groups.setdefault(tool.kind, []).append(tool.label)
    lines = []
    for (kind, why), labels in groups.items():
        many = len(labels) > 1
        lines.append(
            f"kept out of the contract: {len(labels)} {kind}{'s' if many else ''}: {', '.join(labels)} "
            f"({'each ' if many else ''}{why})"
        )
    return lines


def label(kind: str, name: Any) -> str:
    """How a note names a tool kept out: its type, with its name when it has one."""
    return shown(f"{name} ({kind})" if isinstance(name, str) and name else kind)


def shown(text: str) -> str:
    """Logged text as a note or problem line shows it: control characters escaped, so that it stays one line."""
    return _CONTROL.sub(lambda match: f"\\x{ord(match[0]):02x}", text)


#: How many levels of arrays and objects orjson writes; it reads logs four times as deep (1024).
WRITABLE_DEPTH = 254
#: How deep a tool's input schema may nest: a scenario holds it four levels down, at
#: `$.contract.admitted[i].input_schema`.
SCHEMA_DEPTH = WRITABLE_DEPTH - 4


def nesting(value: Any) -> int:
    """How many levels of arrays and objects `value` is (0 for a string or a number); a loop, not
    recursion, so that a log nested as deep as orjson reads it cannot exhaust the stack."""
    deepest, stack = 0, [(value, 1)]
    while stack:
        item, level = stack.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, level)
            stack.extend((child, level + 1) for child in (item.values() if isinstance(item, dict) else item))
    return deepest


def no_deeper_than(value: Any, depth: int, path: str) -> Any:
    """`value` (at `path`), when it nests no deeper than `depth` levels."""
    if nesting(value) > depth:
        raise Problem(path, f"nested more than {depth} levels deep: a scenario cannot hold it")
    return value


def json_text(value: Any, path: str) -> str:
    """Logged JSON (at `path`) as the compact text a scenario message holds it in."""
    return orjson.dumps(no_deeper_than(value, WRITABLE_DEPTH, path)).decode()


def object_at(value: Any, path: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise Problem(path, f"expected {what}, found {type(value).__name__}")
    return value


def list_at(value: Any, path: str, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise Problem(path, f"expected {what}, found {type(value).__name__}")
    return value


def tool(
    name: Any,
    description: Any,
    schema: Any,
    path: str,
    keys: tuple[str, str, str],
    wire: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """One admitted tool; `keys` name the three fields as the log spells them, for messages; `wire`
    holds the wire fields the log's format has, by their scenario names (a null one is absent)."""
    if name is None:
        raise Problem(f"{path}.{keys[0]}", "missing: each tool has a name (is this the right kind of log?)")
    if not isinstance(name, str) or not TOOL_NAME.fullmatch(name):
        raise Problem(f"{path}.{keys[0]}", f"{name!r} is not a tool name a scenario accepts ({TOOL_NAME.pattern})")
    if description is None:
        description = ""  # optional on the wire: a tool sent without one has none
    if not isinstance(description, str):
        raise Problem(
            f"{path}.{keys[1]}", f"tool {name!r} has a description that is not a string ({type(description).__name__})"
        )
    if schema is None:
        schema = {"type": "object", "properties": {}}  # a function without parameters takes none
    schema = no_deeper_than(
        object_at(schema, f"{path}.{keys[2]}", "a JSON Schema object"), SCHEMA_DEPTH, f"{path}.{keys[2]}"
    )
    if schema.get("type") != "object":
        raise Problem(
            f"{path}.{keys[2]}.type",
            f"tool {name!r} takes {schema.get('type')!r} arguments; a tool's input schema is an object",
        )
    kept = {field: value for field, value in (wire or {}).items() if value is not None}
    return {"name": name, "description": description, "input_schema": schema, **kept}


def strict(holder: dict[str, Any], path: str) -> dict[str, Any]:
    """The `strict` flag a function tool was sent with: part of its surface."""
    flag = holder.get("strict")
    if flag is not None and not isinstance(flag, bool):
        raise Problem(f"{path}.strict", f"expected true or false, found {type(flag).__name__}")
    return {"strict": flag}


def unique(tools: list[dict[str, Any]], path: str) -> tuple[dict[str, Any], ...]:
    seen: set[str] = set()
    for index, entry in enumerate(tools):
        if entry["name"] in seen:
            raise Problem(f"{path}[{index}]", f"tool {entry['name']!r} is listed twice")
        seen.add(entry["name"])
    return tuple(tools)


def text(content: Any, path: str) -> str:
    """Message content as the one string a scenario message holds: parts joined, calls spelled out."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    return "\n".join(
        part_text(part, f"{path}[{index}]")
        for index, part in enumerate(list_at(content, path, "a string or content parts"))
    )


def part_text(part: Any, path: str) -> str:
    """One content part: OpenAI's and Anthropic's (`text`, `tool_use`, `tool_result`) and the OTel
    conventions' (`text` with `content`, `tool_call`, `tool_call_response`)."""
    part = object_at(part, path, "a content part")
    kind = part.get("type")
    if kind in ("text", "input_text", "output_text"):
        return str(part.get("text", part.get("content", "")))
    if kind in ("tool_use", "tool_call"):
        key = "input" if "input" in part else "arguments"
        return call_text(part.get("name"), part.get(key, {}), f"{path}.{key}")
    if kind == "tool_result":
        return text(part.get("content"), f"{path}.content")
    if kind == "tool_call_response":
        key = "response" if "response" in part else "result"  # `result` in the conventions' first drafts
        response = part.get(key)
        return response if isinstance(response, str) else json_text(response, f"{path}.{key}")
    return f"[{kind} part]"


def call_text(name: Any, arguments: Any, path: str) -> str:
    """A tool call spelled out in a message: its name and its arguments (at `path`) as sent."""
    return f"[tool_call {name}] {arguments if isinstance(arguments, str) else json_text(arguments, path)}"


def calls(message: dict[str, Any], path: str) -> list[str]:
    """The OpenAI-style `tool_calls` of an assistant message (at `path`), spelled out."""
    spelled = []
    for index, call in enumerate(
        list_at(message.get("tool_calls") or [], f"{path}.tool_calls", "a list of tool calls")
    ):
        function = object_at(call, f"{path}.tool_calls[{index}]", "a tool call").get("function") or {}
        where = f"{path}.tool_calls[{index}].function"
        function = object_at(function, where, "a function call")
        spelled.append(call_text(function.get("name"), function.get("arguments", ""), f"{where}.arguments"))
    return spelled


_ROLES = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
    "tool": "tool",
    "function": "tool",
}


def role(value: Any, path: str, more: Mapping[str, str] | None = None) -> str:
    """A scenario role for the log's `value`; `more` adds a log's own spellings (`model`)."""
    roles = {**_ROLES, **(more or {})}
    if not isinstance(value, str) or value not in roles:
        raise Problem(path, f"{value!r} is not a chat role ({', '.join(roles)})")
    return roles[value]
