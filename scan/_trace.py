"""What each local name of one function holds of its caller's schemas and tool lists, statement by
statement, and the events that matter to the rules.

One pass over a function's statements in source order keeps an environment: local name → `Value`.
Assignments, loops, comprehensions, unpacking, `with … as`, walrus and closures (a nested function
reads its enclosing names) carry values along; both arms of an `if` are joined, except an arm that
always returns or raises, so an early return does not leak its bindings, and an `if` that the run's
setting of the function's flags decides (`_conditions`) takes one arm. A deep copy drops out of
the environment.

The pass reports `Event`s — a tracked value edited in place, kept somewhere long-lived, returned or
handed to another call — and the rules decide which of them matter. Nothing is resolved across
modules; `_module` follows calls between the functions of one module.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

import libcst as cst

from ._cfg import block
from ._conditions import Setting, decided, type_tested
from ._rule import Tree, canonical, dotted, named
from ._types import ScanConfig
from ._values import (
    IDENTITY,
    SELF,
    SHALLOW_COPIES,
    Env,
    Share,
    Value,
    bound,
    constructs,
    deep_copy,
    is_schema_name,
    is_tool_list_name,
    join,
    parameters,
    part,
    part_share,
    seeds,
)

#: Methods that change a dict, list or set where it stands.
MUTATING = frozenset(
    {
        "update",
        "pop",
        "popitem",
        "setdefault",
        "clear",
        "append",
        "extend",
        "insert",
        "remove",
        "add",
        "discard",
        "sort",
    }
)
#: Methods that keep their argument in the container they are called on.
KEEPING = frozenset({"append", "extend", "insert", "add", "update", "setdefault", "__setitem__"})
#: JSON Schema keywords (and tool fields) whose values are strings, numbers or booleans.
_SCALAR_KEYS = frozenset(
    {"type", "title", "description", "format", "pattern", "$ref", "$schema", "$id", "$comment", "name", "strict"}
    | {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
    | {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties", "uniqueItems"}
)
#: Methods that hand out a part of the value (or a view of its parts).
_PARTS = frozenset({"get", "pop", "setdefault", "items", "values", "keys"})
_REDUCE = frozenset({"functools.reduce", "reduce"})
#: Methods that hand out a view whose items are the container's parts.
_VIEWS = frozenset({"items", "values"})


@dataclass(frozen=True, slots=True)
class Mutation:
    """A tracked value edited where it stands: `x[k] = v`, `del x[k]`, `x.update(…)`."""

    node: cst.CSTNode
    value: Value


@dataclass(frozen=True, slots=True)
class Kept:
    """A tracked value kept past the call: on `self`, in a module-level registry, or returned."""

    node: cst.CSTNode
    value: Value
    #: "attribute", "registry" or "return".
    place: str


@dataclass(frozen=True, slots=True)
class Passed:
    """A tracked value handed to a call as the argument bound to `parameter` (a name or a position)."""

    call: cst.Call
    parameter: str | int
    value: Value
    #: The module function or method the value is handed to, when not the call's own callee:
    #: `reduce(_mark, names, schema)` hands `schema` to `_mark`.
    function: str = ""


Event = Mutation | Kept | Passed


class Trace:
    """The events of one function, its nested functions and lambdas included (closures read the
    enclosing names)."""

    def __init__(
        self,
        tree: Tree,
        config: ScanConfig,
        names: Mapping[str, str],
        globals_: frozenset[str],
        setting: Setting | None = None,
    ) -> None:
        self.tree = tree
        self.config = config
        self.names = names
        self.globals = globals_
        #: The values of the function's flags this run assumes (see `_conditions`).
        self.setting: Setting = setting or {}
        self.events: list[Event] = []
        self.local: set[str] = set()
        #: What each literal that lists a tracked value holds, by the literal's id (see `display`).
        self.listed: dict[int, Value] = {}

    def run(self, function: cst.FunctionDef, env: Env | None = None) -> list[Event]:
        env = dict(env or {})
        for param in parameters(function):
            env.pop(param.name.value, None)
        env.update(seeds(function, self.config))
        self.local = {param.name.value for param in parameters(function)}
        self.block(block(function.body), env)
        return self.events

    # Statements ---------------------------------------------------------------------------------

    def block(self, statements: Sequence[Any], env: Env) -> Env | None:
        """Run the statements; the environment after them, or None when every path leaves."""
        for statement in statements:
            after = self.statement(statement, env)
            if after is None:
                return None
            env = after
        return env

    def statement(self, statement: Any, env: Env) -> Env | None:
        if isinstance(statement, cst.SimpleStatementLine | cst.SimpleStatementSuite):
            for small in statement.body:
                self.small(small, env)
            return None if any(isinstance(small, cst.Raise | cst.Return) for small in statement.body) else env
        if isinstance(statement, cst.If):
            self.value(statement.test, env)
            # Under a setting of the function's flags, an `if` they decide takes one arm only.
            taken = decided(statement.test, self.setting)
            body = self.block(block(statement.body), dict(env)) if taken is not False else None
            if taken is True:
                return body
            otherwise = dict(env)
            narrowed = type_tested(statement.test, self.setting)
            if narrowed in env and body is not None and narrowed not in body:
                # `if strict and isinstance(x, dict): x = deepcopy(x)`: where the test fails, `x`
                # is no dict, so no dict of the caller's is left in it to share.
                del otherwise[narrowed]
            orelse = statement.orelse
            if orelse is None:
                other: Env | None = otherwise
            elif isinstance(orelse, cst.If):
                other = self.statement(orelse, otherwise)
            else:
                other = self.block(block(orelse.body), otherwise)
            return other if taken is False else _join_envs(body, other)
        if isinstance(statement, cst.For):
            inner = dict(env)
            self.iterate(statement.target, statement.iter, env, inner)
            after = self.block(block(statement.body), inner)
            return _join_envs(env, after)
        if isinstance(statement, cst.While):
            self.value(statement.test, env)
            return _join_envs(env, self.block(block(statement.body), dict(env)))
        if isinstance(statement, cst.With):
            for item in statement.items:
                held = self.value(item.item, env)
                if item.asname is not None:
                    self.bind(item.asname.name, held, env)
            return self.block(block(statement.body), env)
        if isinstance(statement, cst.Try):
            after = self.block(block(statement.body), dict(env))
            joined = _join_envs(env, after)
            for handler in statement.handlers:
                joined = _join_envs(joined, self.block(block(handler.body), dict(env)))
            if statement.orelse is not None and after is not None:
                joined = _join_envs(joined, self.block(block(statement.orelse.body), dict(after)))
            if statement.finalbody is not None and joined is not None:
                self.block(block(statement.finalbody.body), dict(joined))
            return joined if joined is not None else None
        if isinstance(statement, cst.FunctionDef):
            # A closure sees the enclosing names as they are where it is defined.
            nested = type(self)(self.tree, self.config, self.names, self.globals, self.setting)
            self.events.extend(nested.run(statement, env))
            return env
        return env  # classes are traced method by method; `match` is left alone

    def small(self, small: cst.BaseSmallStatement, env: Env) -> None:
        if isinstance(small, cst.Assign | cst.AnnAssign):
            targets = [t.target for t in small.targets] if isinstance(small, cst.Assign) else [small.target]
            pairs = _pairs(targets, small.value)
            if pairs:
                # `a, b = x, y`: each name gets its own value.
                held_each = [(target, self.value(value, env)) for target, value in pairs]
                for target, held in held_each:
                    self.assign(target, held, small, env)
                return
            held = self.value(small.value, env) if small.value is not None else None
            for target in targets:
                self.assign(target, held, small, env)
        elif isinstance(small, cst.AugAssign):
            self.write(small.target, small, env, self.value(small.value, env))
        elif isinstance(small, cst.Del):
            for deleted in _flatten(small.target):
                self.write(deleted, small, env, None)
        elif isinstance(small, cst.Return) and small.value is not None:
            held = self.value(small.value, env)
            if held is not None:
                self.events.append(Kept(small, held, "return"))
        elif isinstance(small, cst.Expr):
            self.value(small.value, env)
        elif isinstance(small, cst.Global | cst.Nonlocal):
            self.local.difference_update(n.name.value for n in small.names)

    def assign(self, target: cst.BaseExpression, held: Value | None, statement: cst.CSTNode, env: Env) -> None:
        if isinstance(target, cst.Name | cst.Tuple | cst.List | cst.StarredElement):
            self.bind(target, held, env)
        else:
            self.write(target, statement, env, held)

    def iterate(self, target: cst.BaseExpression, over: cst.BaseExpression, env: Env, inner: Env) -> Value | None:
        """Bind a loop's target to an element of what it walks, in `inner`; the walked value.
        `for i, tool in enumerate(tools)` binds `tool` to an element of `tools`, and `i` to none."""
        if (
            isinstance(over, cst.Call)
            and dotted(over.func) == "enumerate"
            and over.args
            and isinstance(target, cst.Tuple)
            and len(target.elements) == 2
        ):
            items = self.value(over.args[0].value, env)
            self.bind(target.elements[0].value, None, inner)
            self.bind(target.elements[1].value, _element(items), inner)
            return items
        items = self.value(over, env)
        self.bind(target, _element(items), inner)
        return items

    def bind(self, target: cst.CSTNode, held: Value | None, env: Env) -> None:
        """`a = v`, `a, b = v` (each name gets a part), `a, b = x, y` (pairwise)."""
        if isinstance(target, cst.Name):
            self.local.add(target.value)
            for slot in [key for key in env if key.startswith(f"{target.value}[")]:
                del env[slot]
            if held is None:
                env.pop(target.value, None)
            else:
                env[target.value] = held
            return
        for name in bound(target):
            self.local.add(name)
            if held is None:
                env.pop(name, None)
            else:
                env[name] = held if held.share is Share.SHALLOW else replace(held, share=Share.ALIAS)

    def write(self, target: cst.BaseExpression, statement: cst.CSTNode, env: Env, held: Value | None) -> None:
        """A subscript or attribute written: an edit of what it belongs to, and maybe a place that keeps `held`."""
        if isinstance(target, cst.Subscript | cst.Attribute):
            owner = self.value(target.value, env)
            if isinstance(target, cst.Subscript):
                for element in target.slice:
                    self.value(element.slice, env)
                if owner is not None and owner.share is Share.ALIAS:
                    self.events.append(Mutation(statement, owner))
            kept = held or self._listed_in(statement)
            if kept is not None:
                place = self.place(target)
                if place is not None:
                    self.events.append(Kept(statement, kept, place))
            # `copy["properties"] = dict(properties)`: from now on that key holds what was written,
            # a value of the function's own when nothing tracked was.
            key = _slot(target)
            if key:
                env[key] = held or _OWN

    def _listed_in(self, statement: cst.CSTNode) -> Value | None:
        """What the literal an assignment writes holds of the caller's (`REGISTRY[k] = {"parameters": schema}`)."""
        value = statement.value if isinstance(statement, cst.Assign | cst.AnnAssign) else None
        return None if value is None else self.listed.get(id(value))

    def place(self, target: cst.BaseExpression, container: bool = False) -> str | None:
        """ "attribute" for a chain rooted at `self`/`cls`, "registry" for one rooted at a module name.

        A target is written into (`self.x = v`, `REGISTRY[k] = v`), so its root must not be the target
        itself; a container is appended to, so a bare module name counts (`REGISTRY.append(v)`).
        """
        root: cst.BaseExpression = target
        while isinstance(root, cst.Subscript | cst.Attribute):
            root = root.value
        if not isinstance(root, cst.Name) or (root is target and not container):
            return None
        if root.value in SELF:
            return "attribute"
        if root.value in self.globals and root.value not in self.local:
            return "registry"
        return None

    # Expressions --------------------------------------------------------------------------------

    def value(self, node: cst.CSTNode, env: Env) -> Value | None:
        """What `node` evaluates to, recording the events of the calls inside it."""
        if isinstance(node, cst.Name):
            return env.get(node.value)
        if isinstance(node, cst.Attribute):
            owner = self.value(node.value, env)
            if owner is None:
                root = _root(node)
                if is_tool_list_name(node.attr.value, self.config) and (root in SELF or root in self.local):
                    # `request.tools`, `self.tools`: a tool list reached from a parameter or the
                    # instance, not a module constant.
                    origin = frozenset() if root in SELF else frozenset({root})
                    return Value(Share.ALIAS, False, True, origin, sources=(node,))
                return None
            # JSON schemas are dicts: an attribute of one (`schema.mode` of a schema object) is
            # something else.
            if owner.schema and node.attr.value not in self.config.schema_keys:
                return None
            if _own_field(owner, node.attr.value):
                return None
            return self.member(owner, node.attr.value)
        if isinstance(node, cst.Subscript):
            owner = self.value(node.value, env)
            for element in node.slice:
                self.value(element.slice, env)
            if any(isinstance(element.slice, cst.Slice) for element in node.slice):
                return None if owner is None else owner.copied()
            key = _slot(node)
            if key in env:
                return env[key]
            return self.member(owner, _key(node) or None)
        if isinstance(node, cst.Call):
            return self.call(node, env)
        if isinstance(node, cst.BooleanOperation):
            return join(self.value(node.left, env), self.value(node.right, env))
        if isinstance(node, cst.IfExp):
            self.value(node.test, env)
            return join(self.value(node.body, env), self.value(node.orelse, env))
        if isinstance(node, cst.Await):
            return self.value(node.expression, env)
        if isinstance(node, cst.NamedExpr):
            held = self.value(node.value, env)
            self.bind(node.target, held, env)
            return held
        if isinstance(node, cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp):
            return self.comprehension(node, env)
        if isinstance(node, cst.Dict | cst.List | cst.Tuple | cst.Set):
            return self.display(node, env)
        if isinstance(node, cst.Lambda):
            inner = {k: v for k, v in env.items() if k not in {p.name.value for p in node.params.params}}
            self.value(node.body, inner)
            return None
        for child in self.tree.children(node):
            self.value(child, env)
        return None

    def member(self, owner: Value | None, key: str | None) -> Value | None:
        """What `owner[key]`, `owner.key` or an element of `owner` (no key) holds.

        A schema key (`parameters`), or a tool's field named like a schema (`parameters_json_schema`),
        holds a schema; a scalar keyword (`description`, `type`) holds
        nothing that can be shared; any other part of a schema is a schema (`properties`, `items`);
        a named field of a tool or a request is part of the surface only when it is a tool list
        (`request.tools`) — `tool.name` is a string.
        """
        if owner is None or key in _SCALAR_KEYS:
            return None
        # A tool's field named like a schema (`td.parameters_json_schema`) is its schema; elsewhere
        # such names are as often schema objects of a library's own (`ctx.deps.output_schema`).
        named_schema = key is not None and (
            key in self.config.schema_keys or (owner.tooling and is_schema_name(key, self.config))
        )
        if key is None or owner.schema or named_schema:
            return part(owner, schema=named_schema)
        return Value(
            part_share(owner), False, is_tool_list_name(key, self.config), owner.origin, owner.held_at, owner.sources
        )

    def display(self, node: cst.Dict | cst.List | cst.Tuple | cst.Set, env: Env) -> Value | None:
        """`{**x}` and `[*x]` copy the outer container. A literal that lists a tracked value
        (`{"parameters": schema}`, `[tool]`) is the function's own, but holds the caller's value:
        what it holds is remembered in `listed`, for where the literal itself is kept."""
        copied: Value | None = None
        listed: Value | None = None
        for element in node.elements:
            if isinstance(element, cst.DictElement):
                self.value(element.key, env)
            held = self.value(element.value, env)
            if held is None:
                continue
            if isinstance(element, cst.StarredDictElement | cst.StarredElement):
                copied = join(copied, held.copied())
            elif isinstance(element.value, cst.Name | cst.Attribute | cst.Subscript):
                listed = join(listed, held.copied())
        if listed is not None:
            self.listed[id(node)] = listed
        return copied

    def comprehension(
        self, node: cst.ListComp | cst.SetComp | cst.GeneratorExp | cst.DictComp, env: Env
    ) -> Value | None:
        inner = dict(env)
        clause: cst.CompFor | None = node.for_in
        source: Value | None = None
        while clause is not None:
            items = self.iterate(clause.target, clause.iter, inner, inner)
            source = source or items
            for condition in clause.ifs:
                self.value(condition.test, inner)
            clause = clause.inner_for_in
        if isinstance(node, cst.DictComp):
            self.value(node.key, inner)
            element = self.value(node.value, inner)
        else:
            element = self.value(node.elt, inner)
        # `[t for t in tools]`, `[dict(t) for t in tools]`: new outer objects around the caller's parts;
        # when each element is a copy (`dict(t)`), writing a key of one edits nothing of the caller's.
        if element is None or source is None:
            return None
        return replace(element.copied(), fresh_parts=element.share is Share.SHALLOW)

    def call(self, node: cst.Call, env: Env) -> Value | None:
        func = node.func
        callee = canonical(func, self.names)
        args = [self.value(arg.value, env) for arg in node.args]
        first = args[0] if args else None
        if isinstance(func, cst.Attribute):
            method = func.attr.value
            if method in KEEPING:
                place = self.place(func.value, container=True)
                kept = next((held for held in args if held is not None), None) or next(
                    (self.listed[id(arg.value)] for arg in node.args if id(arg.value) in self.listed), None
                )
                if place is not None and kept is not None:
                    self.events.append(Kept(node, kept, place))
            owner = self.value(func.value, env)
            if owner is not None:
                if method in MUTATING and owner.share is Share.ALIAS:
                    self.events.append(Mutation(node, owner))
                if method == "copy":
                    return owner.copied()
                if method == "model_copy":
                    deep = any(_keyword(arg) == "deep" and dotted(arg.value) != "False" for arg in node.args)
                    return None if deep else owner.copied()
                if owner.fresh_parts and method in _VIEWS and not node.args:
                    # A view of a container of copies yields the copies themselves.
                    return owner
                if method in _PARTS:
                    return self.member(owner, _literal(node.args[0].value) if node.args else None)
        if deep_copy(node, callee, self.config):
            return None
        if callee in IDENTITY and args:
            return args[-1]
        if (callee in SHALLOW_COPIES or named(callee, ("replace",))) and first is not None:
            return first.copied()
        mapped = args[1] if len(args) > 1 else None
        if callee == "map" and mapped is not None and canonical(node.args[0].value, self.names) in SHALLOW_COPIES:
            return replace(mapped.copied(), fresh_parts=True)
        if canonical(func, self.names) in _REDUCE and len(args) == 3 and args[2] is not None:
            # The initial value is the reducer's first argument, and what each step hands on.
            bound_to, _, reducer = dotted(node.args[0].value).rpartition(".")
            if reducer and bound_to in {"", *SELF}:
                self.events.append(Passed(node, 0, args[2], function=reducer))
        for position, (arg, held) in enumerate(zip(node.args, args, strict=True)):
            if held is not None:
                self.events.append(Passed(node, _keyword(arg) or position, held))
        if (handed := self.returned_elsewhere(node, args)) is not None:
            return handed
        if constructs(func):
            held_args = [(arg, held) for arg, held in zip(node.args, args, strict=True) if held is not None]
            # What the new object keeps of the surface matters most: report where it takes hold of that.
            held_args.sort(key=lambda pair: not pair[1].tooling)
            if held_args:
                arg, held = held_args[0]
                return replace(held, share=Share.SHALLOW, held_at=held.held_at or arg)
        return None

    def returned_elsewhere(self, node: cst.Call, args: list[Value | None]) -> Value | None:
        """What another module's function (`ScanConfig.returners`) hands back of its arguments: the
        caller's value, or a shallow copy of it (taken as the copy: its parts are the caller's)."""
        spelled = dotted(node.func)
        for name, given, returned in self.config.returners if spelled else ():
            if not named(spelled, (name,)):
                continue
            offset = 1 if given[:1] in (("self",), ("cls",)) and "." in spelled else 0
            for position, (arg, held) in enumerate(zip(node.args, args, strict=True)):
                keyword = _keyword(arg)
                at = position + offset
                parameter = keyword or (given[at] if at < len(given) else "")
                if held is not None and parameter in returned and not arg.star:
                    return held.copied()
        return None


def _root(node: cst.BaseExpression) -> str:
    while isinstance(node, cst.Attribute | cst.Subscript | cst.Call):
        node = node.func if isinstance(node, cst.Call) else node.value
    return node.value if isinstance(node, cst.Name) else ""


def _own_field(owner: Value, field: str) -> bool:
    """A field of a new object that was handed the caller's value under another keyword:
    `ObjectProcessor(output=output).object_def` is what the object built, not part of `output`."""
    held_at = owner.held_at
    return (
        owner.share is Share.SHALLOW
        and isinstance(held_at, cst.Arg)
        and held_at.keyword is not None
        and held_at.keyword.value != field
    )


def _element(items: Value | None) -> Value | None:
    """What iterating a tracked value yields: its parts."""
    return part(items)


#: A value the function made itself, kept in the environment only to shadow what a slot held before.
_OWN = Value(Share.SHALLOW, schema=False, tooling=False, origin=frozenset())


def _slot(node: cst.BaseExpression) -> str:
    """`name['key']` for a literal key of a local name: a slot the environment can follow."""
    if isinstance(node, cst.Subscript) and isinstance(node.value, cst.Name) and _key(node):
        return f"{node.value.value}[{_key(node)!r}]"
    return ""


def _key(node: cst.Subscript) -> str:
    index = node.slice[0].slice if len(node.slice) == 1 else None
    return _literal(index.value) if isinstance(index, cst.Index) else ""


def _literal(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.SimpleString):
        value = node.evaluated_value
        return value if isinstance(value, str) else ""
    return ""


def _keyword(arg: cst.Arg) -> str:
    return arg.keyword.value if arg.keyword is not None else ""


def _pairs(
    targets: Sequence[cst.BaseExpression], value: cst.BaseExpression | None
) -> list[tuple[cst.BaseExpression, cst.BaseExpression]]:
    """The element pairs of `a, b = x, y` (one target, no starred element, lengths equal); else none."""
    if (
        len(targets) != 1
        or not isinstance(value, cst.Tuple | cst.List)
        or not isinstance(targets[0], cst.Tuple | cst.List)
    ):
        return []
    names, values = targets[0].elements, value.elements
    starred = any(isinstance(e, cst.StarredElement) for e in (*names, *values))
    if starred or len(names) != len(values):
        return []
    return [(name.value, item.value) for name, item in zip(names, values, strict=True)]


def _flatten(target: cst.BaseDelTargetExpression) -> list[cst.BaseExpression]:
    if isinstance(target, cst.Tuple | cst.List):
        return [element.value for element in target.elements]
    return [target]


def _join_envs(left: Env | None, right: Env | None) -> Env | None:
    """The environment after two paths meet; a path that left the function (None) adds nothing."""
    if left is None:
        return None if right is None else dict(right)
    right = right or {}
    joined = dict(left)
    for name, held in right.items():
        joined[name] = join(joined.get(name), held) or held
    # A slot written on one path only holds, on the other, whatever its owner holds there.
    for slot in [key for key in joined if "[" in key and (key not in left or key not in right)]:
        del joined[slot]
    return joined
