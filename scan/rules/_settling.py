"""Settlement by the module's own code: a call to a function or method of the module that settles
on every way out of it, a `with` over a context manager of the module that settles however its
block is left, and a settlement registered on an `ExitStack`.

A reservation is as settled by `finally: self._close(reservation)`, when `_close` always calls the
ledger, as by the ledger call written there; and a refusal raised inside `with self.reserved(...)`
is settled by the `finally:` around the context manager's `yield`. Calls are followed only where
the module says which code runs: a plain name to a module-level function, `self.`/`cls.` to a
method of the caller's class.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import libcst as cst

from .._cfg import block
from .._flow import Guard, guarantees
from .._rule import Tree, canonical, dotted, imports, named
from .._types import ScanConfig

Settles = Callable[[cst.Call], bool]

#: Decorators that make a generator a context manager: its `yield` is where the `with` block runs.
_CONTEXT_MANAGERS = (
    "contextlib.contextmanager",
    "contextlib.asynccontextmanager",
    "contextmanager",
    "asynccontextmanager",
)
#: Context managers that call back what is registered on them however their block is left.
_EXIT_STACKS = frozenset({"contextlib.ExitStack", "contextlib.AsyncExitStack"})
#: Their methods that register a callback, the callable first.
_REGISTERS = frozenset({"callback", "push_async_callback"})
_PARTIALS = frozenset({"functools.partial", "partial"})
#: Decorators that leave a method's body the code a call runs.
_PLAIN = ("staticmethod", "classmethod")


def settling_calls(tree: Tree, config: ScanConfig) -> Settles:
    """Whether a call settles: a configured settlement call, or a call of a function of the module
    that settles on every path out of it, raising included (a refusal must not leave before it)."""
    return _follower(tree, config).settles


def settles_on_every_path(tree: Tree, config: ScanConfig, function: cst.FunctionDef) -> bool:
    """Whether a function settles on every way out of it, raising included: calling it settles."""
    follower = _follower(tree, config)
    if _generator(tree, function) or not _decorated(function, _PLAIN, everything=True):
        return False  # calling it does not run its body, or not for sure
    return guarantees(tree, block(function.body), follower.settles, follower.loop, through_raise=True)


def settling_loops(tree: Tree, config: ScanConfig) -> Guard:
    """Whether a statement settles once it completes: a `for` over a literal that holds at least one
    item (`for lane in (primary, fallback):`), whose body settles on every path through it. Any
    other loop may run zero times; whether a collection is empty is not decided from its name."""
    return _follower(tree, config).loop


def _follower(tree: Tree, config: ScanConfig) -> _Follower:
    return tree.memo(("settling", config.settle), lambda: _Follower(tree, config.settle))


def settled_blocks(tree: Tree, config: ScanConfig, function: cst.FunctionDef) -> list[cst.BaseSuite]:
    """The blocks of `with` statements in `function` that a context manager of the module settles
    however they are left: its `yield` sits in a `try` whose `finally` settles on every path, or
    whose refusal handlers do."""
    settles, loops = settling_calls(tree, config), settling_loops(tree, config)
    found = []
    for statement in tree.findall(function.body, cst.With):
        for item in statement.items:
            manager = _definition(tree, item.item) if isinstance(item.item, cst.Call) else None
            elsewhere = isinstance(item.item, cst.Call) and named(dotted(item.item.func), config.settling_managers)
            if elsewhere or (
                manager is not None
                and _decorated(manager, _CONTEXT_MANAGERS)
                and _settles_around_yield(tree, manager, settles, loops)
            ):
                found.append(statement.body)
                break
    return found


def settles_its_block(tree: Tree, config: ScanConfig, function: cst.FunctionDef) -> bool:
    """Whether `function` is a context manager that settles the block of a `with` over it however
    the block is left (see `settled_blocks`)."""
    settles, loops = settling_calls(tree, config), settling_loops(tree, config)
    return _decorated(function, _CONTEXT_MANAGERS) and _settles_around_yield(tree, function, settles, loops)


def settled_by_exit_stacks(tree: Tree, config: ScanConfig, function: cst.FunctionDef) -> list[cst.BaseStatement]:
    """The statements of `function` that an exit stack settles however they are left: those after
    `stack.callback(...)` registered a settlement in the block of `with ExitStack() as stack:`, or
    in a block inside it (a loop's body, an `if` arm: what follows it there runs only after it)."""
    settles, names = settling_calls(tree, config), imports(tree)
    found: list[cst.BaseStatement] = []
    for statement in tree.findall(function.body, cst.With):
        stacks = {
            item.asname.name.value
            for item in statement.items
            if isinstance(item.item, cst.Call)
            and canonical(item.item.func, names) in _EXIT_STACKS
            and item.asname is not None
            and isinstance(item.asname.name, cst.Name)
        }
        if not stacks:
            continue
        for inner in (statement.body, *tree.findall(statement.body, cst.IndentedBlock)):
            lines = list(block(inner))
            for at, line in enumerate(lines):
                if _registers_settlement(line, stacks, settles, config, names):
                    found.extend(lines[at + 1 :])
                    break
    return found


def _registers_settlement(
    line: cst.BaseStatement, stacks: set[str], settles: Settles, config: ScanConfig, names: dict[str, str]
) -> bool:
    if not (isinstance(line, cst.SimpleStatementLine) and len(line.body) == 1 and isinstance(line.body[0], cst.Expr)):
        return False
    call = line.body[0].value
    if not (isinstance(call, cst.Call) and isinstance(call.func, cst.Attribute) and call.args):
        return False
    on = call.func.value
    return (
        isinstance(on, cst.Name) and on.value in stacks and call.func.attr.value in _REGISTERS
        and _settling_callable(call.args[0].value, settles, config, names)
    )  # fmt: skip


def _settling_callable(value: cst.BaseExpression, settles: Settles, config: ScanConfig, names: dict[str, str]) -> bool:
    """`ledger.settle`, `lambda: ledger.settle(r)`, `partial(ledger.settle, r)`: a callable that settles when called."""
    if isinstance(value, cst.Lambda):
        return isinstance(value.body, cst.Call) and settles(value.body)
    if isinstance(value, cst.Call) and canonical(value.func, names) in _PARTIALS and value.args:
        return _settling_callable(value.args[0].value, settles, config, names)
    return named(dotted(value), config.settle)


#: How many calls deep a settlement is followed: far past any helper chain written by hand, short of
#: the interpreter's recursion limit on a generated module.
_DEPTH = 32


class _Follower:
    """Follows calls into the module's functions, deciding each function once. A function whose
    verdict is being decided settles nothing for the calls inside it (recursion), so a cycle of
    calls counts as settling only through a path that settles outside the cycle."""

    def __init__(self, tree: Tree, settle: tuple[str, ...]) -> None:
        self.tree = tree
        self.settle = settle
        self.verdicts: dict[int, bool] = {}
        self.depth = 0

    def settles(self, call: cst.Call) -> bool:
        if named(dotted(call.func), self.settle):
            return True
        function = _definition(self.tree, call)
        # A generator's body does not run when it is called, nor a decorated function's for sure.
        if function is None or _generator(self.tree, function) or not _decorated(function, _PLAIN, everything=True):
            return False
        key = id(function)
        if key in self.verdicts:
            return self.verdicts[key]
        if self.depth >= _DEPTH:
            return False  # undecided, so not remembered: a shallower call decides it
        self.verdicts[key] = False
        self.depth += 1
        try:
            self.verdicts[key] = guarantees(
                self.tree, block(function.body), self.settles, self.loop, through_raise=True
            )
        finally:
            self.depth -= 1
        return self.verdicts[key]

    def loop(self, statement: Any) -> bool:
        if not (isinstance(statement, cst.For) and isinstance(statement.iter, cst.Tuple | cst.List | cst.Set)):
            return False
        holds_one = any(not isinstance(element, cst.StarredElement) for element in statement.iter.elements)
        return holds_one and guarantees(self.tree, block(statement.body), self.settles, self.loop, through_raise=True)


def _definition(tree: Tree, call: cst.Call) -> cst.FunctionDef | None:
    """The function a call runs, when the module defines it once: `name(...)` a module-level
    function, `self.name(...)`/`cls.name(...)` a method of the class the call is written in."""
    func = call.func
    scope: Sequence[cst.BaseStatement]
    if isinstance(func, cst.Name):
        scope, name = tree.module.body, func.value
    elif isinstance(func, cst.Attribute) and isinstance(func.value, cst.Name) and func.value.value in ("self", "cls"):
        owner = tree.enclosing(call, cst.ClassDef)
        if owner is None:
            return None
        scope, name = block(owner.body), func.attr.value
    else:
        return None
    defined = [s for s in scope if isinstance(s, cst.FunctionDef) and s.name.value == name]
    return defined[0] if len(defined) == 1 else None


def _decorated(function: cst.FunctionDef, names: tuple[str, ...], everything: bool = False) -> bool:
    """Whether one of the function's decorators is named so; with `everything`, whether all are
    (a function with none passes)."""
    given = [named(dotted(d.decorator), names) for d in function.decorators]
    return all(given) if everything else any(given)


def _generator(tree: Tree, function: cst.FunctionDef) -> bool:
    return any(tree.enclosing(y, cst.FunctionDef) is function for y in tree.findall(function.body, cst.Yield))


def _settles_around_yield(tree: Tree, manager: cst.FunctionDef, settles: Settles, loops: Guard) -> bool:
    """Whether every `yield` of the context manager is in the body of a `try` that settles on the
    way out: a `finally` that settles on every path, or — for the innermost such `try`, which an
    exception thrown in at the `yield` reaches first — handlers that all settle, one of them for
    every exception."""
    yields = [y for y in tree.findall(manager.body, cst.Yield) if tree.enclosing(y, cst.FunctionDef) is manager]
    return bool(yields) and all(_settles_around(tree, manager, found, settles, loops) for found in yields)


def _settles_around(tree: Tree, manager: cst.FunctionDef, found: cst.Yield, settles: Settles, loops: Guard) -> bool:
    around = [t for t in _enclosing_tries(tree, found) if tree.within(t, manager.body) and tree.within(found, t.body)]
    if any(
        t.finalbody is not None and guarantees(tree, block(t.finalbody.body), settles, loops, through_raise=True)
        for t in around
    ):
        return True
    if not around:
        return False
    handlers = around[0].handlers
    catches_all = any(h.type is None or dotted(h.type) in ("Exception", "BaseException") for h in handlers)
    return catches_all and all(guarantees(tree, block(h.body), settles, loops, through_raise=True) for h in handlers)


def _enclosing_tries(tree: Tree, node: cst.CSTNode) -> list[cst.Try]:
    """The `try` statements around a node, innermost first."""
    found = []
    statement = tree.enclosing(node, cst.Try)
    while statement is not None:
        found.append(statement)
        statement = tree.enclosing(statement, cst.Try)
    return found
