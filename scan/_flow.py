"""Which calls must have run before which code, path by path: enough flow to tell "on every path"
from "on some path" inside one function, without running anything.

Each question is asked of the control-flow graph of a run of statements (`_cfg`), built once per
run and kept on the `Tree`: a unit is preceded when every path from the entry to it passes a unit
that makes a wanted call, or completes a guard statement. Code no path reaches (after a `return`,
say) is preceded vacuously: it never runs. Calls in a lambda's body wait for the lambda to be
called, so they do not count as made where the lambda is written.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import libcst as cst

from ._cfg import END, RAISE, RETURN, Graph, Unit, build
from ._rule import Tree

#: Whether a call is the thing that must have happened.
Wanted = Callable[[cst.Call], bool]
#: Whether a whole statement (or same-line suite) does it too, once it completes: a compare-and-raise `if`, say.
Guard = Callable[[Any], bool]
#: The nodes of one unit of code (a simple line, a test, a `with` item…) that must be preceded.
Targets = Callable[[Any], Iterable[cst.CSTNode]]


def _never(statement: Any) -> bool:
    return False


def graph(tree: Tree, statements: Sequence[cst.BaseStatement]) -> Graph:
    """The graph of a run of statements, built once per module for every rule that asks. Its first
    and last statements and its length name the run: the tree keeps every node alive, so their ids
    stay theirs."""
    run = (id(statements[0]), id(statements[-1]), len(statements)) if statements else (0, 0, 0)
    return tree.memo(("cfg", run), lambda: build(statements, tree.calls_made))


def _reached_without(
    tree: Tree, statements: Sequence[cst.BaseStatement], wanted: Wanted, guard: Guard
) -> tuple[Graph, list[bool]]:
    def made(unit: Unit) -> bool:
        if unit.calls and any(wanted(call) for call in unit.calls):
            return True
        return unit.completes is not None and guard(unit.completes)

    found = graph(tree, statements)
    return found, found.reached_without(made)


def guarantees(
    tree: Tree,
    statements: Sequence[cst.BaseStatement],
    wanted: Wanted,
    guard: Guard = _never,
    through_raise: bool = False,
) -> bool:
    """Whether every path that runs these statements to their end, or out by `return`, makes a
    wanted call. A path that raises has refused to go on, so it need not; with `through_raise` it
    must too (a settlement before a refusal leaves). Statements no path leaves normally guarantee
    anything: nothing after them runs."""
    _, reached = _reached_without(tree, statements, wanted, guard)
    return not (reached[END] or reached[RETURN] or (through_raise and reached[RAISE]))


def unpreceded(
    tree: Tree,
    statements: Sequence[cst.BaseStatement],
    target: Targets,
    before: Wanted,
    guard: Guard = _never,
) -> Iterator[cst.CSTNode]:
    """Targets that some path reaches without a `before` call (or `guard` statement) first, in
    the order their units were built. A call on the target's own line does not precede it."""
    found, reached = _reached_without(tree, statements, before, guard)
    seen: set[int] = set()  # a `finally:` has a copy per way out: its targets are yielded once
    for unit, reachable in zip(found.units, reached, strict=True):
        if reachable and unit.code is not None:
            for node in target(unit.code):
                if id(node) not in seen:
                    seen.add(id(node))
                    yield node


def always_leaves(tree: Tree, statements: Sequence[cst.BaseStatement], stops: Wanted | None = None) -> bool:
    """Whether no path runs these statements to their end: each one returns, raises, loops forever,
    or makes a `stops` call (one to a function that never returns). A `break` or `continue` that
    leaves them runs on after them, so it does not count."""
    found = graph(tree, statements)
    if stops is None:
        return not found.reached_without(lambda unit: False)[END]
    return not found.reached_without(lambda unit: any(stops(call) for call in unit.calls))[END]
