"""TS110 keeps-caller-schema: a caller's schema or tool list is kept past the call without a deep copy."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from .._module import trace_all
from .._outline import Outline, Unit
from .._places import value_source
from .._rule import Invalid, Match, Mentions, Needs, Rule, Tree, assigned, shown
from .._trace import KEEPING, Kept
from .._types import ScanConfig
from .._values import SELF

#: Constructors keep what they are given by contract; what a factory or setter keeps is the surprise.
_CONSTRUCTORS = frozenset({"__init__", "__post_init__", "__new__", "__init_subclass__"})


class KeepsCallerSchema(Rule):
    """A schema or tool list that arrived as a parameter, kept on `self`, in a module-level registry,
    or inside a new object the function returns — as it is or as a shallow copy (one finding per function, where it
    first does). The caller still
    holds the same nested dicts: an edit on either side reaches the other, and a baseline taken
    from one sees the other's edits."""

    id = "TS110"
    name = "keeps-caller-schema"
    message = (
        "deep-copy a caller's schema or tool list (copy.deepcopy) before keeping it in an object, attribute or registry"
    )
    module_level = False  # it reports in functions; the module's registries, it reads by name
    valid = (
        """
import copy

class Tool:
    @classmethod
    def from_schema(cls, name, json_schema):
        return cls(name, parameters=copy.deepcopy(json_schema))
""",
        """
import json

def register(tools):
    REGISTRY.extend(json.loads(json.dumps(tools)))

REGISTRY = []
""",
        """
class Toolset:
    def __init__(self, tools):
        self.tools = tools

    def describe(self, schema):
        return Summary(len(schema["properties"]))
""",
        """
from copy import deepcopy as dc

def with_schema(tool, input_schema):
    if input_schema is None:
        return tool
    input_schema = dc(input_schema)
    return Tool(tool.name, input_schema)
""",
        # A literal that holds the caller's schema, handed back rather than kept; one that keeps only a name.
        """
def as_wire(name, input_schema):
    return {"type": "function", "function": {"name": name, "parameters": input_schema}}

def remember(input_schema):
    SEEN[input_schema["title"]] = {"title": input_schema["title"]}
""",
    )
    invalid = (
        Invalid(
            """
class Tool:
    @classmethod
    def from_schema(cls, function, name, json_schema):
        described = FunctionSchema(
            function=function,
            json_schema=json_schema,
        )
        tool = cls(function, name=name, function_schema=described)
        return tool
""",
            line=7,
            flow=(
                (4, "parameter `json_schema`"),
                (7, "kept in `FunctionSchema(...)`"),
            ),
        ),
        Invalid(
            """
class Agent:
    def set_tools(self, tools):
        self.tools = list(tools)
""",
            line=4,
            flow=(
                (3, "parameter `tools`"),
                (4, "kept on `self.tools`"),
            ),
        ),
        Invalid(
            """
_SCHEMAS = {}

def remember(name, schema):
    for key, sub in schema["properties"].items():
        _SCHEMAS[f"{name}.{key}"] = sub
""",
            line=6,
        ),
        Invalid(
            """
import copy as c

class Server:
    def add(self, parameters, tools):
        def keep():
            self._tools.append(c.copy(parameters))
        keep()
""",
            line=7,
            flow=(
                (5, "parameter `parameters`"),
                (7, "kept on `self._tools`"),
            ),
        ),
        Invalid(
            """
def convert(tools, strict):
    if strict:
        return None
    return [ToolDefinition(name=t.name, parameters_json_schema=t.parameters) for t in tools]
""",
            line=5,
        ),
        # Kept inside a literal: in a module registry, appended to one, on `self`.
        Invalid(
            """
_TOOLS = {}

def register(name, parameters):
    _TOOLS[name] = {"name": name, "parameters": parameters}
""",
            line=5,
        ),
        Invalid(
            """
CATALOG = []

async def publish(tools):
    for tool in tools:
        CATALOG.append({"tool": tool, "published": True})
""",
            line=6,
        ),
        Invalid(
            """
class Router:
    def use(self, schema):
        self.routes = [schema]
""",
            line=4,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (Mentions(words=(*config.schema_keys, *config.tool_words), endings=config.schema_words),)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A caller's value is a parameter, or a tool list read from one; it is kept in an attribute
        # of the instance or a module's registry, or returned inside an object built around it.
        if unit.name in _CONSTRUCTORS or not unit.takes_arguments:
            return False
        places = {*SELF, *outline.globals}
        keeps = (
            bool(unit.written & places)
            or unit.calls_method(KEEPING, on=places)
            or (unit.constructs and unit.has(ast.Return))
        )
        return keeps and unit.meets(self.needs(config))

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # nothing it finds depends on another function

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        for function, events in trace_all(tree, config):
            if function.name.value in _CONSTRUCTORS:
                continue
            kept = [
                event
                for event in events
                if isinstance(event, Kept)
                and event.value.caller
                and event.value.tooling
                # A value returned as it is, or as a plain copy, is the caller's to keep; a new
                # object that holds it is not.
                and not (event.place == "return" and event.value.held_at is None)
            ]
            if kept:
                # One finding per function: the first place it keeps the caller's value.
                first = kept[0]
                yield Match(
                    first.value.held_at or first.node, _kept(tree, first), value_source(first.value, caller=True)
                )


def _kept(tree: Tree, event: Kept) -> str:
    """Where the value is kept: in a new object, on `self`, in a registry."""
    if event.value.held_at is not None:
        holder = tree.enclosing(event.value.held_at, cst.Call)
        return f"kept in {shown(holder)}" if holder is not None else "kept in a new object"
    if isinstance(event.node, cst.Call) and isinstance(event.node.func, cst.Attribute):
        container = event.node.func.value
    elif isinstance(event.node, cst.Assign | cst.AnnAssign | cst.AugAssign):
        container = assigned(event.node)[0]
    else:
        return f"kept by {shown(event.node)}"
    return f"kept {'on' if event.place == 'attribute' else 'in'} {shown(container)}"
