"""Which calls send the request: a call to a configured dispatch name, by that name, through an
import, or through an alias the module binds to it.

A team names the gateway's method once and calls it under another name: a bound method kept in a
local (`d = self.gateway.dispatch`), a `functools.partial` of it, a field set in `__init__` and
called in another method, a module-level alias, or the function imported as another name. Each of
those calls is the dispatch it names, for TS101's check and for the count of dispatches a scan
recognised.
"""

from __future__ import annotations

from collections.abc import Mapping

import libcst as cst

from ._rule import Place, Tree, assigned, canonical, dotted, imports, named
from ._types import ScanConfig
from ._values import parameters


def dispatch_calls(tree: Tree, config: ScanConfig) -> dict[int, tuple[Place, ...]]:
    """Every call that dispatches, by id, with the place that binds the name it is called by (none
    for a call by a configured name)."""

    def find() -> dict[int, tuple[Place, ...]]:
        names = imports(tree)
        found: dict[int, tuple[Place, ...]] = {
            id(call): ()
            for call in tree.calls(tree.module)
            # `from host.gateway import dispatch as send` names the dispatch through the import.
            if named(dotted(call.func), config.dispatch)
            or named(canonical(call.func, names), config.dispatch)
            or named(table_entry(call.func), config.dispatch)
        }
        return found | _aliased(tree, config, names)

    return tree.memo(("dispatch calls", config), find)


def table_entry(func: cst.BaseExpression) -> str:
    """`STAGES["send"]` for a call of an entry of a table of callables; "" for any other callee."""
    if not isinstance(func, cst.Subscript) or len(func.slice) != 1:
        return ""
    index = func.slice[0].slice
    if not isinstance(index, cst.Index) or not isinstance(index.value, cst.SimpleString):
        return ""
    key = index.value.evaluated_value
    return f'{dotted(func.value)}["{key}"]' if isinstance(key, str) and dotted(func.value) else ""


def _aliased(tree: Tree, config: ScanConfig, names: Mapping[str, str]) -> dict[int, tuple[Place, ...]]:
    """Calls that dispatch through another name, by call id, with the place that binds the name:
    `d = self.gateway.dispatch; d(request)`, `send = functools.partial(gateway.dispatch, …)`, and a
    field bound in one method of a class (`self._send = …` in `__init__`) and called in another."""

    def dispatch_of(value: cst.BaseExpression | None, aliases: Mapping[str, cst.CSTNode]) -> bool:
        """Whether an expression is the dispatch itself, not a call of it: its name, an alias of it,
        or a `partial` of either. A bare annotation (`send: Sender`) binds nothing."""
        if isinstance(value, cst.Name | cst.Attribute):
            return named(dotted(value), config.dispatch) or dotted(value) in aliases
        if isinstance(value, cst.Call) and canonical(value.func, names) == "functools.partial" and value.args:
            return dispatch_of(value.args[0].value, aliases)
        return False

    def bound_to_dispatch(bindings: list[tuple[cst.BaseExpression, Binding]], aliases: dict[str, cst.CSTNode]) -> None:
        # Rounds, so `send = d` after `d = gateway.dispatch` is one too, in whatever order they are written.
        while new := {
            target.value: statement
            for target, statement in bindings
            if isinstance(target, cst.Name) and target.value not in aliases and dispatch_of(statement.value, aliases)
        }:
            aliases |= new

    # A module-level alias (`send = partial(gateway.dispatch, …)` under the imports) serves every
    # function that does not bind the name itself.
    module_aliases: dict[str, cst.CSTNode] = {}
    bound_to_dispatch(
        [
            (target, small)
            for line in tree.module.body
            if isinstance(line, cst.SimpleStatementLine)
            for small in line.body
            if isinstance(small, cst.Assign | cst.AnnAssign)
            for target in assigned(small)
        ],
        module_aliases,
    )
    methods = _methods(tree)
    found: dict[int, tuple[Place, ...]] = {}
    fields: dict[tuple[int, str], cst.CSTNode] = {}  # (class, field) → where it is bound
    for function in tree.functions():
        bindings = [
            (target, statement)
            for statement in tree.findall(function.body, cst.Assign, cst.AnnAssign)
            if statement.value is not None
            for target in assigned(statement)
        ]
        own = {target.value for target, _ in bindings if isinstance(target, cst.Name)}
        own |= {param.name.value for param in parameters(function)}
        aliases = {name: statement for name, statement in module_aliases.items() if name not in own}
        bound_to_dispatch(bindings, aliases)
        for call in tree.calls(function.body):
            if isinstance(call.func, cst.Name) and call.func.value in aliases:
                found[id(call)] = _bound(aliases[call.func.value], call.func.value)
        owner = methods.get(id(function))
        if owner is not None:
            for target, statement in bindings:
                if _own_field(target, owner[1]) and dispatch_of(statement.value, aliases):
                    assert isinstance(target, cst.Attribute)
                    fields[(id(owner[0]), target.attr.value)] = statement
    if fields:
        for function in tree.functions():
            owner = methods.get(id(function))
            if owner is None:
                continue
            for call in tree.calls(function.body):
                if _own_field(call.func, owner[1]):
                    assert isinstance(call.func, cst.Attribute)
                    statement = fields.get((id(owner[0]), call.func.attr.value))
                    if statement is not None:
                        found[id(call)] = _bound(statement, dotted(call.func))
    return found


#: An assignment that may bind a name to the dispatch.
Binding = cst.Assign | cst.AnnAssign


def _bound(statement: cst.CSTNode, name: str) -> tuple[Place, ...]:
    return ((statement, f"`{name}` is the dispatch"),)


def _methods(tree: Tree) -> dict[int, tuple[cst.ClassDef, str]]:
    """Each method, by id, with the class it is written in and the name of its own instance (`self`)."""
    return {
        id(method): (owner, parameters(method)[0].name.value)
        for owner in tree.findall(tree.module, cst.ClassDef)
        for method in owner.body.body
        if isinstance(method, cst.FunctionDef) and parameters(method)
    }


def _own_field(node: cst.CSTNode, instance: str) -> bool:
    """`self.<field>`, for the method's own instance name."""
    return isinstance(node, cst.Attribute) and isinstance(node.value, cst.Name) and node.value.value == instance
