"""Function tools: the decorator, the tool record and the provider protocols."""

from __future__ import annotations

import copy
import inspect
import typing
from dataclasses import dataclass, field, replace
from typing import Any, Awaitable, Callable, Iterable, Protocol, TypedDict, runtime_checkable

JsonSchema = dict[str, Any]

_PY_TO_JSON: dict[type, str] = {
    str: "string",
    int: "integer",
    float: "number",
    bool: "boolean",
    list: "array",
    dict: "object",
}


class ArgSchema(TypedDict, total=False):
    """The JSON-schema shape of a tool's arguments, as providers accept it."""

    type: str
    properties: dict[str, Any]
    required: list[str]
    additionalProperties: bool


@dataclass(frozen=True)
class FunctionTool:
    """A tool the model may call. Instances are shared by every agent that lists them."""

    name: str
    description: str
    params_json_schema: JsonSchema
    on_invoke: Callable[..., Awaitable[Any]]
    strict: bool = True
    costly: bool = False
    slow: bool = False
    flaky: bool = False
    priority: int = 0
    tags: frozenset[str] = field(default_factory=frozenset)

    def to_spec(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.params_json_schema,
            "strict": self.strict,
        }


def _json_type(annotation: Any) -> dict[str, Any]:
    origin = typing.get_origin(annotation)
    if origin in (list, tuple):
        (item,) = typing.get_args(annotation)[:1] or (str,)
        return {"type": "array", "items": _json_type(item)}
    if origin is typing.Union:
        options = [a for a in typing.get_args(annotation) if a is not type(None)]
        return _json_type(options[0]) if options else {"type": "null"}
    return {"type": _PY_TO_JSON.get(annotation, "string")}


def _schema_from_signature(fn: Callable[..., Any]) -> JsonSchema:
    hints = typing.get_type_hints(fn)
    properties: dict[str, Any] = {}
    required: list[str] = []
    for pname, param in inspect.signature(fn).parameters.items():
        if pname in ("self", "ctx"):
            continue
        properties[pname] = _json_type(hints.get(pname, str))
        if param.default is inspect.Parameter.empty:
            required.append(pname)
    return {
        "type": "object",
        "properties": properties,
        "required": required,
        "additionalProperties": False,
    }


def function_tool(
    fn: Callable[..., Awaitable[Any]] | None = None,
    *,
    name: str | None = None,
    costly: bool = False,
    slow: bool = False,
    priority: int = 0,
) -> Any:
    """Turn an async function into a FunctionTool; usable bare or with options."""

    def wrap(func: Callable[..., Awaitable[Any]]) -> FunctionTool:
        return FunctionTool(
            name=name or func.__name__,
            description=inspect.getdoc(func) or "",
            params_json_schema=_schema_from_signature(func),
            on_invoke=func,
            costly=costly,
            slow=slow,
            priority=priority,
        )

    return wrap(fn) if fn is not None else wrap


@runtime_checkable
class Toolset(Protocol):
    """Anything that can list the tools it offers."""

    def list_tools(self) -> list[FunctionTool]: ...


class ToolProvider(Protocol):
    """A source of tools that may change between runs (an MCP server, a plugin)."""

    name: str

    async def tools_for(self, agent_name: str) -> list[FunctionTool]: ...

    def listing(self) -> list[FunctionTool]: ...

    def current(self) -> list[FunctionTool]: ...


@function_tool(name="read_tool_output", priority=100)
async def read_tool_output(call_id: str, offset: int = 0, limit: int = 4000) -> str:
    """Read a page of a tool result that was too long to include in the conversation."""
    from relay.context import OUTPUT_STORE

    return OUTPUT_STORE.page(call_id, offset, limit)


def output_reader_spec() -> FunctionTool:
    """The pager tool, for hosts that admit it explicitly."""
    return read_tool_output


def fresh_tools(tools: Iterable[FunctionTool]) -> list[FunctionTool]:
    """Per-turn tool records whose schemas belong to the turn alone."""
    return [replace(t, params_json_schema=copy.deepcopy(t.params_json_schema)) for t in tools]


class StaticToolset:
    """A fixed list of tools, for tests and small deployments."""

    __slots__ = ("tools", "label")

    def __init__(self, tools: list[FunctionTool], label: str = "static") -> None:
        self.tools = tools
        self.label = label

    def list_tools(self) -> list[FunctionTool]:
        return list(self.tools)
