"""What a value is, as far as a caller's schemas and tool lists go: how much of the caller's object
a local name shares, and which calls copy it how deep.

A deep copy (`copy.deepcopy`, a JSON/orjson/pickle round trip, a configured snapshot) makes an
independent value; `dict(x)`, `x.copy()`, `copy.copy`, `{**x}`, `list(x)`, `x[:]`, `map(dict, x)`,
`dataclasses.replace` and comprehensions of the items make a new outer container whose parts are
still the caller's; a constructor handed the value keeps it. Aliased imports count: calls are read
through the module's `import copy as c` and `from copy import deepcopy as dc`.
"""

from __future__ import annotations

import enum
import re
from collections.abc import Iterator
from dataclasses import dataclass, replace

import libcst as cst

from ._rule import dotted, named
from ._types import ScanConfig

#: Calls that build a new outer container and keep every element as it is.
SHALLOW_COPIES = frozenset(
    {
        "copy.copy",
        "dict",
        "list",
        "tuple",
        "set",
        "frozenset",
        "sorted",
        "reversed",
        "dataclasses.replace",
        "copy.replace",
    }
)
#: Calls that make an independent value. Serializing and parsing back also does (`json.loads(json.dumps(x))`).
_DEEP = frozenset({"copy.deepcopy"})
_SERIALIZERS = ("json", "orjson", "pickle", "ujson", "msgpack", "marshal")
#: Calls that hand back their (last) argument unchanged.
IDENTITY = frozenset({"typing.cast", "cast"})
SELF = frozenset({"self", "cls"})


class Share(enum.IntEnum):
    """How much of the caller's object a value shares; a join keeps the larger."""

    #: A new outer object (a shallow copy, a constructor that keeps it) whose parts are the caller's.
    SHALLOW = 1
    #: The caller's own object, or a part of it.
    ALIAS = 2


@dataclass(frozen=True, slots=True)
class Value:
    share: Share
    #: A JSON schema or a part of one, not only a tool or a list that holds schemas.
    schema: bool
    #: Part of the tool surface: a schema, a tool list or a tool, not some other parameter.
    tooling: bool
    #: The parameters it was reached from; empty when it was reached only from `self`.
    origin: frozenset[str]
    #: Where a new object first took hold of the caller's value: a constructor's argument.
    held_at: cst.CSTNode | None = None
    #: Where the value entered the function, first reached first: each parameter it was reached
    #: from (its `cst.Param`) and each `self.<field>` or `request.tools` it was read from.
    sources: tuple[cst.CSTNode, ...] = ()
    #: Its parts are new objects too, one level down: `{k: dict(v) for k, v in props.items()}`.
    fresh_parts: bool = False

    @property
    def caller(self) -> bool:
        return bool(self.origin)

    def copied(self) -> Value:
        """A new outer container around the same parts."""
        return replace(self, share=Share.SHALLOW)


def join(left: Value | None, right: Value | None) -> Value | None:
    if left is None or right is None:
        return left or right
    return Value(
        max(left.share, right.share),
        left.schema or right.schema,
        left.tooling or right.tooling,
        left.origin | right.origin,
        left.held_at or right.held_at,
        _union(left.sources, right.sources),
        left.fresh_parts and right.fresh_parts,
    )


def _union(left: tuple[cst.CSTNode, ...], right: tuple[cst.CSTNode, ...]) -> tuple[cst.CSTNode, ...]:
    """Both sources in order, each node once (libcst nodes compare by identity)."""
    if not right or left == right:
        return left
    return (*left, *(node for node in right if node not in left))


def part(value: Value | None, schema: bool = False) -> Value | None:
    """A nested value of `value`: shared with the caller even when `value` is a shallow copy, unless
    `value` was built of copies (then the part is a new object around the caller's parts)."""
    if value is None:
        return None
    return Value(
        part_share(value), value.schema or schema, value.tooling or schema, value.origin, value.held_at, value.sources
    )


def part_share(value: Value) -> Share:
    """How much of the caller's object a part of `value` shares."""
    return Share.SHALLOW if value.fresh_parts else Share.ALIAS


Env = dict[str, Value]


def is_schema_name(name: str, config: ScanConfig) -> bool:
    """`schema`, `json_schema`, `inputSchema`, `parameters`: a name whose last word is a schema word."""
    lowered = name.lower()
    last = lowered.rsplit("_", 1)[-1]
    return name in config.schema_keys or any(last == word or lowered.endswith(word) for word in config.schema_words)


def parameters(function: cst.FunctionDef) -> list[cst.Param]:
    p = function.params
    star = [p.star_arg] if isinstance(p.star_arg, cst.Param) else []
    star_kwarg = [p.star_kwarg] if p.star_kwarg else []
    return [*p.posonly_params, *p.params, *star, *p.kwonly_params, *star_kwarg]


def seeds(function: cst.FunctionDef, config: ScanConfig) -> Env:
    """Every parameter (but `self`) as the caller's own value; those named like a schema or a tool
    list are the surface. The others are followed too, so that a helper which edits whatever it is
    handed (`_strip(node)`) is known to edit a schema when it is handed one."""
    env: Env = {}
    for param in parameters(function):
        name = param.name.value
        if name not in SELF:
            # `strict_json_schema: bool = True` is a flag about a schema, not one.
            schema = is_schema_name(name, config) and not _scalar(param, config)
            tools = is_tool_list_name(name, config) and not _flag(param)
            env[name] = Value(Share.ALIAS, schema, schema or tools, frozenset({name}), sources=(param,))
    return env


def is_tool_list_name(name: str, config: ScanConfig) -> bool:
    """`tools`, `selected_tools`, `surface`: a name that holds tools, not one that counts or names
    them (`max_tools`, `allowed_tools`)."""
    lowered = name.lower()
    if "_" in lowered and lowered.split("_", 1)[0] in _COUNTING:
        return False
    return any(lowered == word or lowered.endswith(f"_{word}") for word in config.tool_words)


#: First words of a name that counts tools or lists their names.
_COUNTING = frozenset({"max", "min", "num", "n", "count", "total", "allowed", "disabled", "excluded"})


def _flag(param: cst.Param) -> bool:
    """A parameter annotated or defaulted as a flag, a number or a string."""
    annotation = cst.Module([]).code_for_node(param.annotation.annotation) if param.annotation else ""
    default = dotted(param.default) if param.default else ""
    return annotation in SCALAR_TYPES or default in {"True", "False"}


#: Annotations of values that share nothing.
SCALAR_TYPES = frozenset({"bool", "int", "float", "str"})


def _scalar(param: cst.Param, config: ScanConfig) -> bool:
    """A parameter whose annotation or default says it holds no JSON schema: a flag (`bool`), a name,
    a class (`type[Model]`) or an object of a class not named like a schema (by the project's schema
    words too: `shape: Shape` where `schema_words` holds `shape`)."""
    annotation = cst.Module([]).code_for_node(param.annotation.annotation) if param.annotation else ""
    if _flag(param):
        return True
    if not annotation:
        return False
    # `type[Model]` is a class and `ModelRequestParameters` an object; what the annotation allows
    # besides classes — a dict, `JsonSchemaValue`, `object`, `Any` — may be a schema.
    besides = re.sub(r"\b[Tt]ype\[[^\]]*\]|\btype\b", "", annotation)
    schema_like = ("dict", "Dict", "Mapping", "Schema", "JSON", "Json", "Any", "object")
    return not any(word in besides for word in schema_like) and not any(
        word in besides.lower() for word in config.schema_words
    )


def bound(target: cst.CSTNode) -> Iterator[str]:
    """The names an assignment or loop target binds."""
    if isinstance(target, cst.Name):
        yield target.value
    elif isinstance(target, cst.Tuple | cst.List):
        for element in target.elements:
            yield from bound(element.value)
    elif isinstance(target, cst.StarredElement):
        yield from bound(target.value)


def deep_copy(node: cst.Call, callee: str, config: ScanConfig) -> bool:
    if callee in _DEEP or named(callee, config.snapshot):
        return True
    # `json.loads(json.dumps(x))` and the like: nothing of `x` survives the round trip.
    module, _, function = callee.rpartition(".")
    return module in _SERIALIZERS and function.startswith("load")


def constructs(func: cst.BaseExpression) -> bool:
    """`cls(…)`, `type(self)(…)`, `self.__class__(…)`, `ToolDefinition(…)`: a new object that keeps its arguments."""
    name = dotted(func).rsplit(".", 1)[-1]
    if name in {"cls", "__class__"} or (isinstance(func, cst.Call) and dotted(func.func) == "type"):
        return True
    return bool(name) and name[0].isupper() and not name.isupper()
