"""The control-flow graph of a run of statements (a function's body, a handler, a `finally`),
built once per run and kept on the `Tree`.

A unit of the graph is code small enough to place a call: a simple line, an `if` or `while`
test, a `for` iterator, a `with` item, a `match` subject or case guard, an `except` clause's
type. Five units are fixed: the entry, the end (control runs off the statements, or a
`break`/`continue` leaves them), `return`, `raise` (a `raise` statement or failed `assert`)
and escape (an exception some call raised). Each compound statement also gets a join unit that
control passes when the statement completes normally, where a whole-statement guard counts; an
`if` or `elif` test is marked with its arm, so that a guard counts past the test of an arm that
refuses when it holds.

Edges: sequence; each arm of `if`/`elif`/`else`; a loop may run zero times, loops back, and runs
its `else:` only when it ends without `break` (`while True:` ends only by `break`); `match`
tries each case in turn and falls through unless a case is irrefutable; `try` sends every unit
of its body to each handler and to what catches nothing, runs `else:` after a body that
completes, and runs a copy of `finally:` on each way out (completing, `return`, `raise`,
escape, `break`, `continue`), each copy going on where that way out goes. A unit's own call
may raise before it completes, so the edges to handlers leave from before the unit runs
(`failures`), not after it (`successors`). Bodies of nested functions and classes are graphs of
their own; their `def` or `class` is one unit where nothing runs.

Nested blocks recurse once per level of indentation (CPython refuses more than 100); an `elif`
chain and a `match`'s cases are walked in a loop, however long.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

import libcst as cst

#: A line of small statements: `x = 1; y()` on its own line, or after `if test:` on the same one.
SIMPLE = (cst.SimpleStatementLine, cst.SimpleStatementSuite)

#: The fixed units, in this order at the start of every graph.
ENTRY, END, RETURN, RAISE, ESCAPE = range(5)


def block(node: cst.BaseSuite | None) -> Sequence[Any]:
    """The statements of a suite; a same-line suite (`if x: return y`) is one simple line."""
    if node is None:
        return ()
    return node.body if isinstance(node, cst.IndentedBlock) else (node,)


#: What a unit completes: a statement, or a same-line suite (`if x: return y`), a line of its own;
#: for an `if` or `elif` test, its arm.
Completed = cst.BaseStatement | cst.BaseSuite


@dataclass(frozen=True, slots=True)
class Unit:
    """One place control passes, and what runs there."""

    #: The code that runs here; None where nothing runs (fixed units, joins, `def`, `class`).
    code: cst.CSTNode | None = None
    #: The calls that code makes, in source order.
    calls: tuple[cst.Call, ...] = ()
    #: The statement that has completed once control leaves here normally: a simple line, or a
    #: compound statement at its join.
    completes: Completed | None = None


@dataclass(frozen=True, slots=True)
class Graph:
    """The units of one run of statements and the edges between them, by unit index."""

    units: tuple[Unit, ...]
    #: Where control goes once the unit has run.
    successors: tuple[tuple[int, ...], ...]
    #: Where an exception raised while the unit runs goes: the handlers and `finally` around it, else escape.
    failures: tuple[tuple[int, ...], ...]

    def reached_without(self, made: Callable[[Unit], bool]) -> list[bool]:
        """Which units some path from the entry reaches with no `made` unit before them.

        This is dominance by the set of `made` units, asked as reachability: a unit not reached is
        dominated (every path to it passes one) or unreachable. A made unit is reached, but only
        its failures lead on, since its call may raise before it completes.
        """
        units, successors, failures = self.units, self.successors, self.failures
        reached = [False] * len(units)
        reached[ENTRY] = True
        pending = [ENTRY]
        while pending:
            index = pending.pop()
            onward = failures[index] if made(units[index]) else successors[index] + failures[index]
            for following in onward:
                if not reached[following]:
                    reached[following] = True
                    pending.append(following)
        return reached


#: Unit indices that a way out goes to, built when first asked for (a `finally` copy is built
#: only for the ways out that occur).
Targets = Callable[[], tuple[int, ...]]


def _fixed(*indices: int) -> Targets:
    return lambda: indices


def _once(make: Targets) -> Targets:
    made: list[tuple[int, ...]] = []

    def targets() -> tuple[int, ...]:
        if not made:
            made.append(make())
        return made[0]

    return targets


@dataclass(frozen=True, slots=True)
class _Exits:
    """Where each way out of the statements being built goes."""

    returns: Targets
    raises: Targets
    escapes: Targets
    breaks: Targets
    continues: Targets


#: Outside every loop and `try`: `break` and `continue` leave the statements, as running off their end does.
_OUTERMOST = _Exits(_fixed(RETURN), _fixed(RAISE), _fixed(ESCAPE), _fixed(END), _fixed(END))


#: The calls a node makes when it runs (`Tree.calls_made`).
Calls = Callable[[cst.CSTNode], Sequence[cst.Call]]


def build(statements: Sequence[cst.BaseStatement], calls: Calls) -> Graph:
    """The control-flow graph of a run of statements."""
    builder = _Builder(calls)
    builder.link(builder.run(statements, [ENTRY], _OUTERMOST), END)
    return Graph(tuple(builder.units), tuple(map(tuple, builder.successors)), tuple(builder.failures))


class _Builder:
    """Adds units and edges statement by statement; each step takes the units control arrives
    from (the frontier) and returns those it leaves from normally."""

    def __init__(self, calls: Calls) -> None:
        self.calls = calls
        self.units: list[Unit] = []
        self.successors: list[list[int]] = []
        self.failures: list[tuple[int, ...]] = []
        for _ in range(ESCAPE + 1):
            self.unit(Unit(), ())

    def unit(self, unit: Unit, failures: tuple[int, ...]) -> int:
        self.units.append(unit)
        self.successors.append([])
        self.failures.append(failures)
        return len(self.units) - 1

    def code(
        self, code: cst.CSTNode | None, exits: _Exits, frontier: list[int], completes: Completed | None = None
    ) -> int:
        """A unit where `code` runs, entered from `frontier`."""
        if code is None:
            return self.join(frontier, completes)
        index = self.unit(Unit(code, tuple(self.calls(code)), completes), exits.escapes())
        self.link(frontier, index)
        return index

    def join(self, frontier: list[int], completes: Completed | None = None) -> int:
        index = self.unit(Unit(completes=completes), ())
        self.link(frontier, index)
        return index

    def link(self, frontier: list[int] | int, *targets: int) -> None:
        for source in [frontier] if isinstance(frontier, int) else frontier:
            self.successors[source].extend(targets)

    def run(self, statements: Sequence[cst.BaseStatement], frontier: list[int], exits: _Exits) -> list[int]:
        for statement in statements:
            frontier = self.statement(statement, frontier, exits)
        return frontier

    def statement(self, statement: cst.BaseStatement, frontier: list[int], exits: _Exits) -> list[int]:
        if isinstance(statement, SIMPLE):
            return self.line(statement, frontier, exits)
        if isinstance(statement, cst.If):
            ends = self.if_chain(statement, frontier, exits)
        elif isinstance(statement, cst.For | cst.While):
            ends = self.loop(statement, frontier, exits)
        elif isinstance(statement, cst.Try | cst.TryStar):
            ends = self.try_(statement, frontier, exits)
        elif isinstance(statement, cst.With):
            for item in statement.items:
                frontier = [self.code(item, exits, frontier)]
            ends = self.run(block(statement.body), frontier, exits)
        elif isinstance(statement, cst.Match):
            ends = self.match(statement, frontier, exits)
        else:  # a nested `def` or `class`: its body runs later, or is scanned on its own
            return [self.join(frontier, statement)]
        return [self.join(ends, statement)]

    def line(
        self, line: cst.SimpleStatementLine | cst.SimpleStatementSuite, frontier: list[int], exits: _Exits
    ) -> list[int]:
        index = self.code(line, exits, frontier, completes=line)
        for small in line.body:  # the first jump decides; the rest of the line never runs
            if isinstance(small, cst.Return):
                self.link(index, *exits.returns())
                return []
            if isinstance(small, cst.Raise):
                self.link(index, *exits.raises())
                return []
            if isinstance(small, cst.Break | cst.Continue):
                self.link(index, *(exits.breaks() if isinstance(small, cst.Break) else exits.continues()))
                return []
            if isinstance(small, cst.Assert):
                self.link(index, *exits.raises())
        return [index]

    def if_chain(self, statement: cst.If, frontier: list[int], exits: _Exits) -> list[int]:
        ends: list[int] = []
        arm: cst.If | cst.Else | None = statement
        while isinstance(arm, cst.If):  # an `elif` is walked here, not by recursion
            test = self.code(arm.test, exits, frontier, completes=arm)
            ends += self.run(block(arm.body), [test], exits)
            frontier, arm = [test], arm.orelse
        return ends + (self.run(block(arm.body), frontier, exits) if arm is not None else frontier)

    def loop(self, statement: cst.For | cst.While, frontier: list[int], exits: _Exits) -> list[int]:
        if isinstance(statement, cst.For):
            frontier = [self.code(statement.iter, exits, frontier)]
            head = self.code(statement.target, exits, frontier)
            forever = False
        else:
            head = self.code(statement.test, exits, frontier)
            forever = isinstance(statement.test, cst.Name) and statement.test.value == "True"
        # Where `break` goes: past the `else:`, to the loop's own join.
        broken = self.join([])
        inner = _Exits(exits.returns, exits.raises, exits.escapes, _fixed(broken), _fixed(head))
        self.link(self.run(block(statement.body), [head], inner), head)
        ended = [] if forever else [head]  # the test is false, or the items ran out: `else:` runs
        if statement.orelse is not None:
            ended = self.run(block(statement.orelse.body), ended, exits)
        return [*ended, broken]

    def match(self, statement: cst.Match, frontier: list[int], exits: _Exits) -> list[int]:
        frontier = [self.code(statement.subject, exits, frontier)]
        ends: list[int] = []
        for case in statement.cases:
            tried = self.code(case.guard, exits, frontier)
            ends += self.run(block(case.body), [tried], exits)
            if case.guard is None and irrefutable(case.pattern):
                return ends
            frontier = [tried]  # no match: the next case is tried
        return ends + frontier

    def try_(self, statement: cst.Try | cst.TryStar, frontier: list[int], exits: _Exits) -> list[int]:
        final = statement.finalbody
        # Inside the `try`, every way out passes its `finally` first.
        guarded = exits if final is None else self.through(final, exits)
        clauses: Sequence[cst.ExceptHandler | cst.ExceptStarHandler] = statement.handlers
        handlers = [self.handler(clause, guarded) for clause in clauses]
        catches_all = any(_catches_everything(clause) for clause in clauses)
        uncaught_raise = () if catches_all else guarded.raises()
        uncaught_escape = () if catches_all else guarded.escapes()
        body_exits = _Exits(
            guarded.returns,
            _fixed(*handlers, *uncaught_raise),
            _fixed(*handlers, *uncaught_escape),
            guarded.breaks,
            guarded.continues,
        )
        ends = self.run(block(statement.body), frontier, body_exits)
        if statement.orelse is not None:
            ends = self.run(block(statement.orelse.body), ends, guarded)
        for clause, unit in zip(clauses, handlers, strict=True):
            ends += self.run(block(clause.body), [unit], guarded)
        return ends if final is None else self.run(block(final.body), ends, exits)

    def handler(self, handler: cst.ExceptHandler | cst.ExceptStarHandler, exits: _Exits) -> int:
        """The unit of an `except` clause, entered from its `try` body's units."""
        if handler.type is None:
            return self.join([])
        return self.unit(Unit(handler.type, tuple(self.calls(handler.type))), exits.escapes())

    def through(self, final: cst.Finally, exits: _Exits) -> _Exits:
        """The ways out of a `try` body and its handlers: each runs its own copy of `finally:`
        and goes on where that way out of the whole statement goes."""

        def copy(onward: Targets) -> Targets:
            def built() -> tuple[int, ...]:
                entry = self.join([])
                self.link(self.run(block(final.body), [entry], exits), *onward())
                return (entry,)

            return _once(built)

        return _Exits(
            copy(exits.returns), copy(exits.raises), copy(exits.escapes), copy(exits.breaks), copy(exits.continues)
        )


def irrefutable(pattern: cst.MatchPattern) -> bool:
    """A capture or `_`, alone or as one alternative: the case matches whatever the subject is."""
    if isinstance(pattern, cst.MatchAs):
        return pattern.pattern is None or irrefutable(pattern.pattern)
    if isinstance(pattern, cst.MatchOr):
        return any(irrefutable(element.pattern) for element in pattern.patterns)
    return False


def _catches_everything(handler: cst.ExceptHandler | cst.ExceptStarHandler) -> bool:
    return handler.type is None or (isinstance(handler.type, cst.Name) and handler.type.value == "BaseException")
