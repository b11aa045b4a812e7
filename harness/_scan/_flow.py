"""Which statements run before which, path by path: enough flow to tell "on every path" from
"on some path" inside one function, without running anything.

Loops may run zero times, so nothing inside one counts as guaranteed; `try` bodies, `with`
bodies and both arms of an `if`/`else` do.

An `elif` chain is walked in a loop, not by recursion: it can be thousands of arms long. Nested
blocks recurse, one level per indentation, and CPython refuses more than 100 of those.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import libcst as cst

from ._rule import Tree

#: Whether a call is the thing that must have happened.
Wanted = Callable[[cst.Call], bool]
#: Whether a whole statement does it too (a compare-and-raise `if`, say).
Guard = Callable[[cst.BaseStatement], bool]


def _never(statement: cst.BaseStatement) -> bool:
    return False


#: A line of small statements: `x = 1; y()` on its own line, or after `if test:` on the same one.
SIMPLE = (cst.SimpleStatementLine, cst.SimpleStatementSuite)


def block(node: cst.BaseSuite | None) -> Sequence[Any]:
    """The statements of a suite; a same-line suite (`if x: return y`) is one simple line."""
    if node is None:
        return ()
    return node.body if isinstance(node, cst.IndentedBlock) else (node,)


def guarantees(tree: Tree, statements: Sequence[cst.BaseStatement], wanted: Wanted, guard: Guard = _never) -> bool:
    """Whether running these statements to their end makes a wanted call on every path."""
    return any(guard(statement) or _guarantees(tree, statement, wanted) for statement in statements)


def _guarantees(tree: Tree, statement: cst.BaseStatement, wanted: Wanted) -> bool:
    if isinstance(statement, SIMPLE):
        return any(wanted(call) for call in tree.calls(statement))
    if isinstance(statement, cst.If):
        arm = statement
        while True:
            if any(wanted(call) for call in tree.calls(arm.test)):
                return True
            if arm.orelse is None or not guarantees(tree, block(arm.body), wanted):
                return False
            if not isinstance(arm.orelse, cst.If):
                return guarantees(tree, block(arm.orelse.body), wanted)
            arm = arm.orelse
    if isinstance(statement, cst.Try):
        final = statement.finalbody
        return guarantees(tree, block(statement.body), wanted) or (
            final is not None and guarantees(tree, block(final.body), wanted)
        )
    if isinstance(statement, cst.With):
        return any(wanted(call) for item in statement.items for call in tree.calls(item)) or guarantees(
            tree, block(statement.body), wanted
        )
    return False


#: The nodes of one simple line that must be preceded (dispatch calls, raises…).
Targets = Callable[[Any], Iterable[cst.CSTNode]]


def unpreceded(
    tree: Tree,
    statements: Sequence[cst.BaseStatement],
    target: Targets,
    before: Wanted,
    done: bool = False,
    guard: Guard = _never,
) -> Iterator[cst.CSTNode]:
    """Targets that some path reaches without a `before` call (or `guard` statement) first."""
    for statement in statements:
        if isinstance(statement, SIMPLE):
            if not done:
                yield from target(statement)
        elif isinstance(statement, cst.If):
            arm, inner = statement, done
            while True:  # each `elif` sees what its earlier tests called
                inner = inner or any(before(call) for call in tree.calls(arm.test))
                yield from unpreceded(tree, block(arm.body), target, before, inner, guard)
                if not isinstance(arm.orelse, cst.If):
                    break
                arm = arm.orelse
            if arm.orelse is not None:
                yield from unpreceded(tree, block(arm.orelse.body), target, before, inner, guard)
        elif isinstance(statement, cst.Try):
            yield from unpreceded(tree, block(statement.body), target, before, done, guard)
            for handler in statement.handlers:
                yield from unpreceded(tree, block(handler.body), target, before, done, guard)
            after_body = done or guarantees(tree, block(statement.body), before, guard)
            if statement.orelse is not None:
                yield from unpreceded(tree, block(statement.orelse.body), target, before, after_body, guard)
            if statement.finalbody is not None:
                yield from unpreceded(tree, block(statement.finalbody.body), target, before, done, guard)
        elif isinstance(statement, cst.With | cst.For | cst.While):
            yield from unpreceded(tree, block(statement.body), target, before, done, guard)
        # Nested functions and classes are scanned on their own.
        done = done or guard(statement) or _guarantees(tree, statement, before)


def always_leaves(statements: Sequence[cst.BaseStatement]) -> bool:
    """Whether a block ends in `raise` or `return` on every path (its last statement decides)."""
    while statements:
        last = statements[-1]
        if isinstance(last, SIMPLE):
            return any(isinstance(small, cst.Raise | cst.Return) for small in last.body)
        if not isinstance(last, cst.If) or last.orelse is None or not always_leaves(block(last.body)):
            return False
        orelse = last.orelse
        statements = (orelse,) if isinstance(orelse, cst.If) else block(orelse.body)
    return False
