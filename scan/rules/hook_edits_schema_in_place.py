"""TS109 hook-edits-schema-in-place: a hook writes into a tool's nested input schema."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._module import module_names
from .._outline import Outline, Unit
from .._rule import (
    Invalid,
    Match,
    Mentions,
    Needs,
    Rule,
    Tree,
    assigned,
    canonical,
    imports,
    shown,
)
from .._trace import Mutation, Trace
from .._types import ScanConfig
from .._values import Env, Share, Value, deep_copy, join

#: Methods that change a dict or list where it stands.
_MUTATING = ("update", "pop", "popitem", "setdefault", "clear", "append", "extend", "insert", "remove")


class HookEditsSchemaInPlace(Rule):
    """An assignment or mutating call reaching inside an input schema from a hook, along the schema's
    own path or through a local alias of it: everything that shares that dict — a shallow baseline
    included — changes with it. An edit of a deep copy the hook made is its own."""

    id = "TS109"
    name = "hook-edits-schema-in-place"
    message = (
        "hooks must not edit tool schemas; if a change is legitimate, make it an owner decision before the baseline"
    )
    module_level = False  # it reports in hooks; the module's registries, it reads by name
    valid = (
        """
def trace_hook(request):
    request.metadata["hooks"].append("trace")
""",
        """
def widen(tool):
    tool["input_schema"]["properties"]["limit"] = {"type": "integer"}
""",
        """
from copy import deepcopy as dc

def strict_hook(request):
    rebuilt = []
    for tool in request.tools:
        tool = dc(tool)
        params = tool["input_schema"]
        params["additionalProperties"] = False
        rebuilt.append(tool)
    request.tools = rebuilt
""",
        """
import json

class Fitter:
    async def before_dispatch_hook(self, request):
        fresh = [json.loads(json.dumps(tool)) for tool in request.tools]
        for tool in fresh:
            for prop in tool["parameters"]["properties"].values():
                prop.pop("default", None)
        names = sorted(request.tools[0]["parameters"]["properties"])
        request.tools = fresh
""",
        """
import copy

def on_before_dispatch(request):
    def strict(tool):
        tool = copy.deepcopy(tool)
        tool.inputSchema["additionalProperties"] = False
        return tool
    request.tools = [strict(tool) for tool in request.tools]
""",
    )
    invalid = (
        Invalid(
            """
def before_dispatch_hook(request):
    for tool in request.tools:
        tool["input_schema"]["properties"]["query"]["maxLength"] = 200
""",
            line=4,
        ),
        Invalid(
            """
def strict_hook(request):
    request.tools[0]["function"]["parameters"].pop("additionalProperties")
""",
            line=3,
            flow=(
                (2, "hook `strict_hook`"),
                (3, 'schema edited in place by `...t.tools[0]["function"]["parameters"].pop(...)`'),
            ),
        ),
        Invalid(
            """
def hook(tool):
    del tool.inputSchema["required"]
""",
            line=3,
        ),
        Invalid(
            """
def strict_hook(request):
    for tool in request.tools:
        params = tool["input_schema"]
        params["additionalProperties"] = False
""",
            line=5,
            flow=((2, "hook `strict_hook`"), (5, 'schema edited in place by `params["additionalProperties"] = False`')),
        ),
        Invalid(
            """
class Fitter:
    async def before_dispatch_hook(self, request):
        properties = request.tools[0].parameters.get("properties", {})
        for name, prop in properties.items():
            prop.setdefault("additionalProperties", False)
""",
            line=6,
        ),
        Invalid(
            """
import copy

def strict_hook(request, fresh):
    for tool in request.tools:
        if fresh:
            tool = copy.deepcopy(tool)
        tool["input_schema"]["required"] = []
""",
            line=8,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (Mentions(words=config.hook_words, names=config.hook_registration), config.schema_keys)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports in a hook; a registration elsewhere makes a function or a class's methods hooks.
        hook = outline.hooks(unit, config) and unit.mentions(config.schema_keys, endings=config.schema_words)
        return hook or unit.mentions(names=config.hook_registration)

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # an edit it reports is written in the hook itself

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        keys = set(config.schema_keys)
        for hook in tree.hook_functions(config):
            source = ((hook.name, f"hook `{hook.name.value}`"),)
            traced = _traced_edits(tree, config, hook)
            for node in tree.findall(hook.body, cst.Assign, cst.AugAssign, cst.Del, cst.Call):
                if _edits_schema(node, traced.get(id(node)), keys):
                    yield Match(node, f"schema edited in place by {shown(node)}", source)


#: The origin the trace gives a deep copy the hook made: a value of its own, not the caller's.
_DEEP_COPY = "<deep copy>"


class _CopyTrace(Trace):
    """The trace with a deep copy followed as a value of the function's own, where the plain trace
    drops it: an edit of the copy is then known as one, through any alias of it."""

    def call(self, node: cst.Call, env: Env) -> Value | None:
        held = super().call(node, env)
        if held is None and deep_copy(node, canonical(node.func, self.names), self.config):
            return Value(Share.ALIAS, schema=False, tooling=False, origin=frozenset({_DEEP_COPY}))
        return held


def _traced_edits(tree: Tree, config: ScanConfig, hook: cst.FunctionDef) -> dict[int, Mutation]:
    """The hook's in-place edits of values the trace follows, by edited node; several edits of one
    node (`del a[k], b[k]`) are joined. Traced once per hook, though TS111 asks too."""

    def trace() -> dict[int, Mutation]:
        edits: dict[int, Mutation] = {}
        for event in _CopyTrace(tree, config, imports(tree), module_names(tree)).run(hook):
            if isinstance(event, Mutation):
                before = edits.get(id(event.node))
                joined = (
                    event if before is None else Mutation(event.node, join(before.value, event.value) or event.value)
                )
                edits[id(event.node)] = joined
        return edits

    return tree.memo(("hook_edits", id(hook), config), trace)


def _edits_schema(node: cst.Assign | cst.AugAssign | cst.Del | cst.Call, edit: Mutation | None, keys: set[str]) -> bool:
    """Whether the statement or call writes into a schema the hook did not deep-copy: along the
    schema's own path (`tool["input_schema"]["x"] = …`) or through an alias the trace follows back
    to one (`params = tool["input_schema"]; params["x"] = …`)."""
    if edit is not None and not edit.value.origin - {_DEEP_COPY}:
        return False
    if isinstance(node, cst.Call):
        func = node.func
        along = isinstance(func, cst.Attribute) and func.attr.value in _MUTATING and _through_schema(func.value, keys)
    else:
        along = any(_inside_schema(target, keys) for target in assigned(node))
    return along or (edit is not None and edit.value.schema)


def _path(node: cst.BaseExpression) -> list[str]:
    """The keys and attributes of a subscript/attribute chain, outermost last."""
    path: list[str] = []
    while True:
        if isinstance(node, cst.Subscript):
            index = node.slice[0].slice
            key = (
                index.value.evaluated_value
                if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString)
                else "*"
            )
            path.append(str(key))
            node = node.value
        elif isinstance(node, cst.Attribute):
            path.append(node.attr.value)
            node = node.value
        else:
            return path[::-1]


def _through_schema(node: cst.BaseExpression, keys: set[str]) -> bool:
    """Whether a chain reaches a schema key (`tool["input_schema"]`, `tool.inputSchema`…)."""
    return bool(keys & set(_path(node)))


def _inside_schema(target: cst.BaseExpression, keys: set[str]) -> bool:
    """Whether an assignment target lies strictly inside a schema, not the schema key itself."""
    path = _path(target)
    return any(key in keys for key in path[:-1])
