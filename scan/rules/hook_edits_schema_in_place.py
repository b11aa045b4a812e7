"""TS109 hook-edits-schema-in-place: a hook writes into a tool's nested input schema."""

from __future__ import annotations

import functools
from collections import Counter
from collections.abc import Iterator

import libcst as cst

from .._cfg import block
from .._module import Editors, callee_name, editors, module_names, trace_all
from .._outline import Outline, Unit
from .._rule import (
    Invalid,
    Match,
    Needs,
    Rule,
    Tree,
    about_hooks,
    assigned,
    canonical,
    dotted,
    imports,
    shown,
)
from .._trace import Event, Kept, Mutation, Passed, Trace
from .._types import ScanConfig
from .._values import SELF, Env, Share, Value, deep_copy, join, parameters

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
        # The helper hands back its own deep copy, and another only reads what it is handed.
        """
import copy

def _own_params(tool):
    return copy.deepcopy(tool["input_schema"])

def _width(node):
    return len(node.get("properties", {}))

def audit_hook(request):
    for tool in request.tools:
        params = _own_params(tool)
        params["x-audited"] = True
        request.metadata.setdefault("widths", []).append(_width(tool["input_schema"]))
""",
    )
    invalid = (
        # The tools walked with `enumerate`, each schema copied only at the top: the nested write
        # lands in the tool's own `properties`.
        Invalid(
            """
def tenant_hook(request):
    for i, tool in enumerate(request.tools):
        schema = dict(tool["input_schema"])
        schema["properties"]["tenant"] = {"const": "acme"}
        request.tools[i] = {**tool, "input_schema": schema}
""",
            line=5,
        ),
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
        # A helper of the module edits the schema the hook hands it.
        Invalid(
            """
def _close(node):
    node["additionalProperties"] = False

def seal_hook(request):
    for tool in request.tools:
        _close(tool["parameters"])
""",
            line=7,
            flow=((5, "hook `seal_hook`"), (7, "schema handed to `_close(...)`, which edits it in place")),
        ),
        # A helper hands back the hook's own tool's schema, which the hook then edits.
        Invalid(
            """
def _params(tool):
    return tool.get("input_schema") or {}

class Capper:
    def before_dispatch_hook(self, request):
        for tool in request.tools:
            _params(tool)["maxProperties"] = 4
""",
            line=8,
        ),
        # One finding per hook, at its first edit.
        Invalid(
            """
def untitle_hook(request):
    for tool in request.tools:
        schema = tool["input_schema"]
        schema.pop("title", None)
        for prop in schema.get("properties", {}).values():
            prop.pop("title", None)
""",
            line=5,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (about_hooks(config), config.schema_keys)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports in a hook; a registration elsewhere makes a function or a class's methods hooks.
        # A hook that names no schema may still reach one through a function it hands a tool to.
        named = unit.mentions(config.schema_keys, endings=config.schema_words) or bool(unit.gives)
        hook = outline.hooks(unit, config) and named
        return hook or unit.mentions(names=config.hook_registration)

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A helper the hook hands a value to may edit it, or hand back a part of it to edit.
        return unit.takes_arguments

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        for hook, node, label in reported(tree, config):
            yield Match(node, label, ((hook.name, f"hook `{hook.name.value}`"),))


def reported(tree: Tree, config: ScanConfig) -> list[tuple[cst.FunctionDef, cst.CSTNode, str]]:
    """Each hook that edits a schema in place, with the one edit reported: its first direct edit,
    else its first call of a function that edits the schema it is handed. One is enough to say the
    hook must not edit; TS111 leaves these hooks to this rule."""

    def find() -> list[tuple[cst.FunctionDef, cst.CSTNode, str]]:
        keys = set(config.schema_keys)
        edits = editors(trace_all(tree, config), config)
        found = []
        for hook in tree.hook_functions(config):
            events = _hook_events(tree, config, hook)
            traced = _mutations(events)
            direct = [
                node
                for node in tree.findall(hook.body, cst.Assign, cst.AugAssign, cst.Del, cst.Call)
                if _edits_schema(node, traced.get(id(node)), keys)
            ]
            handed = [event.call for event in events if isinstance(event, Passed) and _hands_schema(event, edits)]
            if direct:
                found.append((hook, direct[0], f"schema edited in place by {shown(direct[0])}"))
            elif handed:
                found.append((hook, handed[0], f"schema handed to {shown(handed[0])}, which edits it in place"))
        return found

    return tree.memo(("hook_edits", config), find)


#: The origin the trace gives a deep copy the hook made: a value of its own, not the caller's.
_DEEP_COPY = "<deep copy>"
#: How deep helpers that hand back a part of what they are handed are followed.
_DEPTH = 3


class _HookTrace(Trace):
    """The trace with a deep copy followed as a value of the function's own, where the plain trace
    drops it: an edit of the copy is then known as one, through any alias of it. A call of a
    function of the module gives what that function returns of what it is handed: a getter
    (`_schema_of(tool)`) hands back the caller's schema itself."""

    #: How many helper calls deep this trace runs.
    depth = 0

    def call(self, node: cst.Call, env: Env) -> Value | None:
        held = super().call(node, env)
        if held is None and deep_copy(node, canonical(node.func, self.names), self.config):
            return Value(Share.ALIAS, schema=False, tooling=False, origin=frozenset({_DEEP_COPY}))
        if held is None and self.depth < _DEPTH:
            return self.returned(node, env)
        return held

    def returned(self, node: cst.Call, env: Env) -> Value | None:
        """What the module's function that `node` calls returns of the values it is handed."""
        function = _helpers(self.tree).get(callee_name(node))
        if function is None:
            return None
        before = len(self.events)
        handed = [(arg, self.value(arg.value, env)) for arg in node.args]
        del self.events[before:]  # already recorded when the call itself was traced
        bound = _bind(function, node, handed)
        if not bound:
            return None
        inner = _HookTrace(self.tree, self.config, self.names, self.globals)
        inner.depth = self.depth + 1
        inner.local = {param.name.value for param in parameters(function)}
        inner.block(block(function.body), bound)
        returns = [event.value for event in inner.events if isinstance(event, Kept) and event.place == "return"]
        return functools.reduce(join, returns, None)


def _helpers(tree: Tree) -> dict[str, cst.FunctionDef]:
    """The module's functions and methods by name, those whose name is not used twice."""
    counted = Counter(function.name.value for function in tree.functions())
    return {function.name.value: function for function in tree.functions() if counted[function.name.value] == 1}


def _bind(function: cst.FunctionDef, call: cst.Call, handed: list[tuple[cst.Arg, Value | None]]) -> Env:
    """The function's parameters bound to the tracked values the call hands them."""
    names = [param.name.value for param in parameters(function)]
    if names and names[0] in SELF and dotted(call.func).partition(".")[0] in SELF:
        names = names[1:]  # `self.helper(x)`: `self` is bound by the call
    bound: Env = {}
    for position, (arg, held) in enumerate(handed):
        if arg.star:
            break  # the positions after it are not known
        name = arg.keyword.value if arg.keyword else (names[position] if position < len(names) else None)
        if held is not None and name is not None:
            bound[name] = held
    return bound


def _hook_events(tree: Tree, config: ScanConfig, hook: cst.FunctionDef) -> list[Event]:
    return tree.memo(
        ("hook_events", id(hook), config), lambda: _HookTrace(tree, config, imports(tree), module_names(tree)).run(hook)
    )


def _mutations(events: list[Event]) -> dict[int, Mutation]:
    """The hook's in-place edits of values the trace follows, by edited node; several edits of one
    node (`del a[k], b[k]`) are joined."""
    edits: dict[int, Mutation] = {}
    for event in events:
        if isinstance(event, Mutation):
            before = edits.get(id(event.node))
            edits[id(event.node)] = (
                event if before is None else Mutation(event.node, join(before.value, event.value) or event.value)
            )
    return edits


def _hands_schema(event: Passed, edits: Editors) -> bool:
    """Whether the call hands a function that edits its argument a schema the hook did not deep-copy."""
    value = event.value
    return value.schema and value.share is Share.ALIAS and bool(value.origin - {_DEEP_COPY}) and edits.edit(event)


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
