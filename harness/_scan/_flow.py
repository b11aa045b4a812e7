"""Which statements run before which, path by path: enough flow to tell "on every path" from
"on some path" inside one function, without running anything.

Loops may run zero times, so nothing inside one counts as guaranteed; `try` bodies, `with`
bodies and both arms of an `if`/`else` do.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence

import libcst as cst

from ._rule import calls

#: Whether a call is the thing that must have happened.
Wanted = Callable[[cst.Call], bool]
#: Whether a whole statement does it too (a compare-and-raise `if`, say).
Guard = Callable[[cst.BaseStatement], bool]


def _never(statement: cst.BaseStatement) -> bool:
    return False


def block(node: cst.BaseSuite | None) -> Sequence[cst.BaseStatement]:
    if node is None:
        return ()
    if isinstance(node, cst.IndentedBlock):
        return node.body
    return (cst.SimpleStatementLine(body=node.body),) if isinstance(node, cst.SimpleStatementSuite) else ()


def guarantees(statements: Sequence[cst.BaseStatement], wanted: Wanted, guard: Guard = _never) -> bool:
    """Whether running these statements to their end makes a wanted call on every path."""
    return any(guard(statement) or _guarantees(statement, wanted) for statement in statements)


def _guarantees(statement: cst.BaseStatement, wanted: Wanted) -> bool:
    if isinstance(statement, cst.SimpleStatementLine):
        return any(wanted(call) for call in calls(statement))
    if isinstance(statement, cst.If):
        if any(wanted(call) for call in calls(statement.test)):
            return True
        return statement.orelse is not None and guarantees(block(statement.body), wanted) and _else(statement.orelse, wanted)
    if isinstance(statement, cst.Try):
        final = statement.finalbody
        return guarantees(block(statement.body), wanted) or (final is not None and guarantees(block(final.body), wanted))
    if isinstance(statement, cst.With):
        return any(wanted(call) for item in statement.items for call in calls(item)) or guarantees(block(statement.body), wanted)
    return False


def _else(orelse: cst.If | cst.Else, wanted: Wanted) -> bool:
    return _guarantees(orelse, wanted) if isinstance(orelse, cst.If) else guarantees(block(orelse.body), wanted)


#: The nodes of one simple statement line that must be preceded (dispatch calls, raises…).
Targets = Callable[[cst.SimpleStatementLine], Iterable[cst.CSTNode]]


def unpreceded(
    statements: Sequence[cst.BaseStatement], target: Targets, before: Wanted, done: bool = False, guard: Guard = _never
) -> Iterator[cst.CSTNode]:
    """Targets that some path reaches without a `before` call (or `guard` statement) first."""
    for statement in statements:
        if isinstance(statement, cst.SimpleStatementLine):
            if not done:
                yield from target(statement)
        elif isinstance(statement, cst.If):
            inner = done or any(before(call) for call in calls(statement.test))
            yield from unpreceded(block(statement.body), target, before, inner, guard)
            if isinstance(statement.orelse, cst.If):
                yield from unpreceded((statement.orelse,), target, before, inner, guard)
            elif statement.orelse is not None:
                yield from unpreceded(block(statement.orelse.body), target, before, inner, guard)
        elif isinstance(statement, cst.Try):
            yield from unpreceded(block(statement.body), target, before, done, guard)
            for handler in statement.handlers:
                yield from unpreceded(block(handler.body), target, before, done, guard)
            after_body = done or guarantees(block(statement.body), before, guard)
            if statement.orelse is not None:
                yield from unpreceded(block(statement.orelse.body), target, before, after_body, guard)
            if statement.finalbody is not None:
                yield from unpreceded(block(statement.finalbody.body), target, before, done, guard)
        elif isinstance(statement, cst.With | cst.For | cst.While):
            yield from unpreceded(block(statement.body), target, before, done, guard)
        # Nested functions and classes are scanned on their own.
        done = done or guard(statement) or _guarantees(statement, before)


def always_leaves(statements: Sequence[cst.BaseStatement]) -> bool:
    """Whether a block ends in `raise` or `return` on every path (its last statement decides)."""
    if not statements:
        return False
    last = statements[-1]
    if isinstance(last, cst.SimpleStatementLine):
        return any(isinstance(small, cst.Raise | cst.Return) for small in last.body)
    if isinstance(last, cst.If):
        orelse = last.orelse
        if orelse is None:
            return False
        rest = (orelse,) if isinstance(orelse, cst.If) else block(orelse.body)
        return always_leaves(block(last.body)) and always_leaves(rest)
    return False
