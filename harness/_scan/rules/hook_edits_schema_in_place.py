"""TS109 hook-edits-schema-in-place: a hook writes into a tool's nested input schema."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Match, Rule, Tree, assigned, shown
from .._types import ScanConfig

#: Methods that change a dict or list where it stands.
_MUTATING = ("update", "pop", "popitem", "setdefault", "clear", "append", "extend", "insert", "remove")


class HookEditsSchemaInPlace(Rule):
    """An assignment or mutating call reaching inside an input schema from a hook: everything that
    shares that dict — a shallow baseline included — changes with it."""

    id = "TS109"
    name = "hook-edits-schema-in-place"
    message = "hooks must not edit tool schemas; if a change is legitimate, make it an owner decision before the baseline"
    valid = (
        """
def trace_hook(request):
    request.metadata["hooks"].append("trace")
""",
        """
def widen(tool):
    tool["input_schema"]["properties"]["limit"] = {"type": "integer"}
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
    )

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return ((*config.hook_words, *config.hook_registration), config.schema_keys)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        keys = set(config.schema_keys)
        for hook in tree.hook_functions(config):
            source = ((hook.name, f"hook `{hook.name.value}`"),)
            for statement in tree.findall(hook.body, cst.Assign, cst.AugAssign, cst.Del):
                if any(_inside_schema(target, keys) for target in assigned(statement)):
                    yield Match(statement, f"schema edited in place by {shown(statement)}", source)
            for call in tree.calls(hook.body):
                func = call.func
                if isinstance(func, cst.Attribute) and func.attr.value in _MUTATING and _through_schema(func.value, keys):
                    yield Match(call, f"schema edited in place by {shown(call)}", source)


def _path(node: cst.BaseExpression) -> list[str]:
    """The keys and attributes of a subscript/attribute chain, outermost last."""
    path: list[str] = []
    while True:
        if isinstance(node, cst.Subscript):
            index = node.slice[0].slice
            key = index.value.evaluated_value if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString) else "*"
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
