"""Tool definitions, function tools and toolsets."""

from __future__ import annotations

import inspect
from abc import ABC, abstractmethod
from typing import Any, Callable, Iterable

from .models import BaseModel, Field
from .schema import json_schema_for


class ToolDef(BaseModel):
    """What a model is offered: a name, a description and the JSON schema of the arguments."""

    name: str
    description: str = ""
    parameters: dict[str, Any] = Field(
        default_factory=lambda: {"type": "object", "properties": {}},
        description="JSON schema of the tool's arguments",
    )
    strict: bool | None = None


class BoundTool:
    """A Python callable exposed to the model as a tool."""

    def __init__(
        self,
        fn: Callable[..., Any],
        name: str,
        json_schema: dict[str, Any],
        *,
        description: str = "",
    ) -> None:
        self.fn = fn
        self.name = name
        self.json_schema = json_schema
        self.description = description or (inspect.getdoc(fn) or "").split("\n\n")[0]

    @property
    def definition(self) -> ToolDef:
        return ToolDef(name=self.name, description=self.description, parameters=self.json_schema)

    def __call__(self, **arguments: Any) -> Any:
        return self.fn(**arguments)

    def __repr__(self) -> str:
        return f"BoundTool({self.name!r})"


def tool(fn: Callable[..., Any] | None = None, *, name: str | None = None) -> Any:
    """Decorator turning a function into a :class:`BoundTool` with an inferred schema."""

    def wrap(func: Callable[..., Any]) -> BoundTool:
        return BoundTool(func, name or func.__name__, json_schema_for(func))

    return wrap(fn) if fn is not None else wrap


class AbstractToolset(ABC):
    """Something that can say which tools it offers right now."""

    @abstractmethod
    def get_tools(self) -> list[ToolDef]:
        """The definitions offered, in order."""


class StaticToolset(AbstractToolset):
    """A fixed list of definitions, optionally namespaced with a prefix."""

    def __init__(self, tools: Iterable[ToolDef] = (), *, prefix: str = "") -> None:
        self.tools = list(tools)
        self.prefix = prefix

    def get_tools(self) -> list[ToolDef]:
        if not self.prefix:
            return list(self.tools)
        return [t.model_copy(update={"name": f"{self.prefix}{t.name}"}) for t in self.tools]


class FunctionToolset(AbstractToolset):
    """Tools backed by Python functions."""

    def __init__(self, functions: Iterable[BoundTool] = ()) -> None:
        self._functions = {bound.name: bound for bound in functions}

    def add_function(self, fn: Callable[..., Any], *, name: str | None = None) -> BoundTool:
        bound = tool(fn, name=name)
        self._functions[bound.name] = bound
        return bound

    def call(self, name: str, arguments: dict[str, Any]) -> Any:
        return self._functions[name](**arguments)

    def get_tools(self) -> list[ToolDef]:
        return [bound.definition for bound in self._functions.values()]


class CombinedToolset(AbstractToolset):
    """Several toolsets offered as one, in the order given."""

    def __init__(self, toolsets: Iterable[AbstractToolset]) -> None:
        self._toolsets = list(toolsets)

    def get_tools(self) -> list[ToolDef]:
        merged: list[ToolDef] = []
        for toolset in self._toolsets:
            merged.extend(toolset.get_tools())
        return merged
