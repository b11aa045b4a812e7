"""The functions of one module traced together: which of them edit the arguments they are handed.

A function that hands its parameter (or a part of it) to another function of the module that edits
its argument edits that parameter too; recursion included, found as a fixed point. Calls are
matched by name — `helper(…)`, `self.helper(…)`, `cls.helper(…)` — and a function of another
module that edits what it is handed is known by the name this module calls it by (`_project`).
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass

import libcst as cst

from ._conditions import settings
from ._rule import Tree, dotted, imports, named
from ._trace import Event, Mutation, Passed, Trace
from ._types import ScanConfig
from ._values import SELF, Share, bound, parameters


def module_names(tree: Tree) -> frozenset[str]:
    """Names assigned at module level: a registry a function writes into outlives the call."""
    names: set[str] = set()
    for statement in tree.module.body:
        if isinstance(statement, cst.SimpleStatementLine):
            for small in statement.body:
                if isinstance(small, cst.Assign):
                    for target in small.targets:
                        names.update(bound(target.target))
                elif isinstance(small, cst.AnnAssign):
                    names.update(bound(small.target))
    return frozenset(names)


def trace_all(tree: Tree, config: ScanConfig) -> list[tuple[cst.FunctionDef, list[Event]]]:
    """Every function of the module that is not nested in another, with its events (closures
    included); traced once per module, however many rules ask."""
    return tree.memo(("trace_all", config), lambda: list(_trace_all(tree, config)))


def _trace_all(tree: Tree, config: ScanConfig) -> Iterator[tuple[cst.FunctionDef, list[Event]]]:
    names = imports(tree)
    globals_ = module_names(tree)
    nested = {id(inner) for outer in tree.functions() for inner in tree.findall(outer.body, cst.FunctionDef)}
    for function in tree.functions():
        if id(function) in nested:
            continue
        runs = [Trace(tree, config, names, globals_, setting).run(function) for setting in settings(tree, function)]
        if len(runs) == 1:
            yield function, runs[0]
            continue
        # The events of every setting of the function's flags, in source order.
        events = [event for run in runs for event in run]
        kinds = {type(_node(event)) for event in events}
        order = {id(node): index for index, node in enumerate(tree.findall(function, *kinds))}
        yield function, sorted(events, key=lambda event: order.get(id(_node(event)), 0))


def _node(event: Event) -> cst.CSTNode:
    return event.call if isinstance(event, Passed) else event.node


@dataclass(frozen=True, slots=True)
class Editors:
    """Which functions of the module edit the argument bound to which parameter, directly or through
    another function of the module (recursion included)."""

    #: Function name → its parameter names, in order.
    parameters: Mapping[str, Sequence[str]]
    #: Function name → the parameters whose argument it edits in place.
    edits: Mapping[str, frozenset[str]]
    #: Functions of other modules that edit what they are handed (`ScanConfig.editors`).
    elsewhere: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()

    def edit(self, event: Passed) -> bool:
        """Whether the call edits the argument this event hands it."""
        target = event.function or callee_name(event.call)
        if target not in self.edits:
            return self._edits_elsewhere(event)
        if isinstance(event.parameter, str):
            return event.parameter in self.edits[target]
        names = self.parameters[target]
        # Methods take `self` first, which a call through `self.` does not pass.
        index = event.parameter + (1 if names and names[0] in SELF else 0)
        return index < len(names) and names[index] in self.edits[target]

    def _edits_elsewhere(self, event: Passed) -> bool:
        """Whether the call is to a function of another module that edits the argument it is handed:
        called, or handed the argument by `functools.reduce` as a reducer (`event.function`)."""
        if not self.elsewhere:
            return False
        callee = event.function or dotted(event.call.func)
        for spelled, names, edited in self.elsewhere:
            if callee and named(callee, (spelled,)):
                if isinstance(event.parameter, str):
                    return event.parameter in edited
                index = event.parameter + (1 if names and names[0] in SELF else 0)
                return index < len(names) and names[index] in edited
        return False


def editors(traced: Sequence[tuple[cst.FunctionDef, list[Event]]], config: ScanConfig | None = None) -> Editors:
    """A fixed point over the module's own calls: an edit spreads to every function that hands the
    edited function an alias of its own parameter, or one of another module that edits it."""
    names = {function.name.value: [p.name.value for p in parameters(function)] for function, _ in traced}
    elsewhere = config.editors if config else ()
    found = Editors(names, {name: frozenset() for name in names}, elsewhere)
    changed = True
    while changed:
        changed = False
        edits = dict(found.edits)
        for function, events in traced:
            name = function.name.value
            mine = set(edits[name])
            for event in events:
                if isinstance(event, Mutation) or (
                    isinstance(event, Passed) and event.value.share is Share.ALIAS and found.edit(event)
                ):
                    mine |= event.value.origin
            if mine != edits[name]:
                edits[name] = frozenset(mine)
                changed = True
        found = Editors(names, edits, elsewhere)
    return found


def callee_name(call: cst.Call) -> str:
    """`helper(…)`, `self.helper(…)`, `cls.helper(…)`: the module function or method it calls."""
    name = dotted(call.func)
    head, _, last = name.rpartition(".")
    return last if head in {"", "self", "cls"} else ""
