"""TS105 unsettled-rejection: a refusal that leaves the reservation open."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping, Sequence

import libcst as cst

from .._cfg import SIMPLE, block
from .._flow import Guard, guarantees, unpreceded
from .._outline import Outline, Unit
from .._rule import Invalid, Match, Needs, Place, Rule, Tree, dotted, named, shown
from .._types import ScanConfig
from ._settling import (
    settled_blocks,
    settled_by_exit_stacks,
    settling_calls,
    settling_loops,
)


class UnsettledRejection(Rule):
    """A refusal raised where no settlement is reached on that path — in a function with no
    handler in the module that settles it, or a settlement step that settles only sometimes."""

    id = "TS105"
    name = "unsettled-rejection"
    message = "settle the reservation as pre_dispatch_rejected on the original lane before the refusal leaves"
    valid = (
        # Each hold's settlement is registered on the exit stack, in the loop, before the refusal.
        """
import contextlib

def fund(ledger, run_id, estimates):
    with contextlib.ExitStack() as stack:
        for cents in estimates:
            hold = ledger.reserve(run_id, cents)
            stack.callback(ledger.settle, hold, "refused")
            if ledger.overdrawn(run_id):
                raise BudgetRefused(run_id)
        stack.pop_all()
""",
        """
def send(self, run):
    try:
        self.prepare(run)
    except SurfaceRefused as refusal:
        self.settle_refusal(run, refusal)
        raise
    self.gateway.dispatch(run.request)

def check(self, run):
    if capture(run.tools) != run.expected:
        raise SurfaceRefused("final")

def settle_refusal(self, run, refusal):
    run.ledger.settle(run.reservation, "pre_dispatch_rejected")
""",
        """
if capture(tools) != baseline:
    ledger.settle(reservation, Settlement.PRE_DISPATCH_REJECTED)
    raise HostRefused("tool surface changed")
""",
        """
def send(self, run):
    reservation = self.ledger.reserve(run.request)
    outcome = "pre_dispatch_rejected"
    try:
        if capture(run.tools) != run.baseline:
            raise SurfaceRefused("tool surface changed")
        self.gateway.dispatch(run.request)
        outcome = "dispatched"
    finally:
        self.ledger.settle(reservation, outcome)
""",
        """
def send(self, run):
    reservation = self.ledger.reserve(run.request)
    try:
        if capture(run.tools) != run.baseline:
            raise SurfaceRefused("tool surface changed")
    except Exception:
        self.ledger.settle(reservation, "pre_dispatch_rejected")
        raise
    self.gateway.dispatch(run.request)
""",
        """
def resolve(response, handlers):
    # a handled batch would otherwise settle twice, so preserve the order
    if response.refusal and not handlers:
        raise ModelRefusalError(response.refusal)
""",
        """
class Lanes:
    def reserve(self, response_id):
        return self.free.pop(response_id, None)

    @classmethod
    async def connect(cls, client):
        try:
            return await client.connect()
        except InvalidStatus as exc:
            raise cls._handshake_rejection_error(exc) from exc

    @staticmethod
    def _handshake_rejection_error(exc) -> ModelAPIError:
        return ModelAPIError(str(exc))
""",
        # A method of the class, called from `finally:`, that settles on every path.
        """
class Turn:
    def _close(self, reservation, outcome):
        self.ledger.settle(reservation, outcome)

    def run(self, request):
        reservation = self.ledger.reserve(request.owner)
        outcome = "pre_dispatch_rejected"
        try:
            if capture(request.tools) != request.baseline:
                raise SurfaceRefused(request.id)
            outcome = "dispatched"
            return self.gateway.dispatch(request)
        finally:
            self._close(reservation, outcome)
""",
        # Module functions, one calling the next, awaited from an `except` that re-raises.
        """
async def _record(ledger, reservation, note):
    await ledger.settle(reservation, "pre_dispatch_rejected", note)

async def _release(ledger, reservation):
    if ledger.verbose:
        await _record(ledger, reservation, "refused with detail")
    else:
        await _record(ledger, reservation, "refused")

async def send(ledger, gateway, request):
    reservation = await ledger.reserve(request.id)
    try:
        if changed(request):
            raise SurfaceRefused(request.id)
    except Exception:
        await _release(ledger, reservation)
        raise
    await gateway.dispatch(request)
""",
        # A context manager of the class whose `finally:` settles, around the refusal.
        """
import contextlib

class Turn:
    @contextlib.contextmanager
    def reserved(self, request):
        reservation = self.ledger.reserve(request.owner)
        outcome = ["pre_dispatch_rejected"]
        try:
            yield outcome
        finally:
            self.ledger.settle(reservation, outcome[0])

    def run(self, request):
        with self.reserved(request) as outcome:
            if capture(request.tools) != request.baseline:
                raise SurfaceRefused(request.id)
            outcome[0] = "dispatched"
            return self.gateway.dispatch(request)
""",
        # The `finally:` that settles is an outer one, through a class method and a static method.
        """
import contextlib

class Turn:
    @staticmethod
    def _note(ledger, reservation):
        ledger.settle(reservation, "pre_dispatch_rejected")

    @classmethod
    def _close(cls, ledger, reservation):
        cls._note(ledger, reservation)

    @contextlib.contextmanager
    def reserved(self, request):
        reservation = self.ledger.reserve(request.owner)
        try:
            try:
                yield reservation
            except KeyError:
                self.log.warning("lookup failed")
        finally:
            self._close(self.ledger, reservation)

    def run(self, request):
        with self.reserved(request):
            if changed(request):
                raise SurfaceRefused(request.id)
""",
        # An async context manager of the module whose catch-all handler settles and re-raises.
        """
from contextlib import asynccontextmanager

@asynccontextmanager
async def reservation_scope(ledger, owner):
    reservation = await ledger.reserve(owner)
    try:
        yield reservation
    except BaseException:
        await ledger.settle(reservation, "pre_dispatch_rejected")
        raise
    await ledger.settle(reservation, "dispatched")

async def run_turn(ledger, gateway, request):
    async with timeout(5), reservation_scope(ledger, request.owner):
        if changed(request):
            raise SurfaceRefused(request.id)
        return await gateway.dispatch(request)
""",
        # A loop over a literal that holds items runs its settling body at least once.
        """
def _release(ledger, primary, fallback):
    for reservation in (primary, fallback):
        ledger.settle(reservation, "pre_dispatch_rejected")

def send(ledger, gateway, request):
    primary, fallback = ledger.reserve(request.id), ledger.reserve(request.backup)
    if changed(request):
        _release(ledger, primary, fallback)
        raise SurfaceRefused(request.id)
    gateway.dispatch(request)
""",
        # A settlement registered on an exit stack runs however the block is left: by a lambda,
        # or the ledger's method with its arguments bound.
        """
from contextlib import ExitStack, AsyncExitStack
from functools import partial

def send(ledger, gateway, request):
    with ExitStack() as stack:
        reservation = ledger.reserve(request.id)
        stack.callback(lambda: ledger.settle(reservation, "pre_dispatch_rejected"))
        if changed(request):
            raise SurfaceRefused(request.id)
        return gateway.dispatch(request)

async def send_async(ledger, gateway, request):
    async with AsyncExitStack() as stack:
        reservation = await ledger.reserve(request.id)
        stack.push_async_callback(partial(ledger.settle, reservation, "pre_dispatch_rejected"))
        if changed(request):
            raise SurfaceRefused(request.id)
        return await gateway.dispatch(request)
""",
        # The loop leaves only by `break`, after a settlement that did not raise.
        """
def settle_refusal(self, run, refusal):
    while True:
        try:
            self.ledger.settle(run.reservation, "pre_dispatch_rejected")
        except LedgerBusy:
            continue
        break
""",
    )
    invalid = (
        Invalid(
            """
def send(request, ledger, gateway):
    reservation = ledger.reserve(request.id)
    if changed(request):
        raise refused(request)
    gateway.dispatch(request)

def refused(request) -> SurfaceRefused:
    return SurfaceRefused(request.id)
""",
            line=5,
        ),
        Invalid(
            """
def send(request, ledger, gateway):
    reservation = ledger.reserve(request.id)
    if changed(request):
        raise SurfaceRefused("final")
    gateway.dispatch(request)
""",
            line=5,
            flow=(
                (3, "reserved by `ledger.reserve(...)`"),
                (5, "refusal `SurfaceRefused(...)` raised with the reservation open"),
            ),
        ),
        Invalid(
            """
def settle_refusal(self, run, refusal):
    if run.stage("async_prep") is None:
        super().settle_refusal(run, refusal)
""",
            line=2,
            flow=((2, "`settle_refusal` settles on some paths only"),),
        ),
        Invalid(
            """
def settle_refusal(self, run, refusal):
    pass
""",
            line=2,
        ),
        Invalid(
            """
def send(self, run):
    reservation = self.ledger.reserve(run.request)
    try:
        if capture(run.tools) != run.baseline:
            raise SurfaceRefused("tool surface changed")
        self.gateway.dispatch(run.request)
    finally:
        if run.dispatched:
            self.ledger.settle(reservation, "dispatched")
""",
            line=6,
        ),
        # The method called from `finally:` settles only a dispatched reservation.
        Invalid(
            """
class Turn:
    def _close(self, reservation, outcome):
        if outcome == "dispatched":
            self.ledger.settle(reservation, outcome)

    def run(self, request):
        reservation = self.ledger.reserve(request.owner)
        outcome = "pre_dispatch_rejected"
        try:
            if capture(request.tools) != request.baseline:
                raise SurfaceRefused(request.id)
            outcome = "dispatched"
            return self.gateway.dispatch(request)
        finally:
            self._close(reservation, outcome)
""",
            line=12,
        ),
        # Helpers that only call each other settle nothing.
        Invalid(
            """
def _release(ledger, reservation):
    _retry(ledger, reservation)

def _retry(ledger, reservation):
    _release(ledger, reservation)

def send(ledger, gateway, request):
    reservation = ledger.reserve(request.id)
    try:
        if changed(request):
            raise SurfaceRefused(request.id)
    finally:
        _release(ledger, reservation)
""",
            line=12,
        ),
        # The context manager settles after its `yield`, which a refusal raised in the block skips.
        Invalid(
            """
from contextlib import contextmanager

@contextmanager
def reserved(ledger, owner):
    reservation = ledger.reserve(owner)
    yield reservation
    ledger.settle(reservation, "dispatched")

def run(ledger, gateway, request):
    with reserved(ledger, request.owner):
        if changed(request):
            raise SurfaceRefused(request.id)
        gateway.dispatch(request)
""",
            line=13,
        ),
        # A loop over what may be empty may settle nothing.
        Invalid(
            """
def _release(ledger, reservations):
    for reservation in [*reservations]:
        ledger.settle(reservation, "pre_dispatch_rejected")

def send(ledger, gateway, request, reservations):
    if changed(request):
        _release(ledger, reservations)
        raise SurfaceRefused(request.id)
    gateway.dispatch(request)
""",
            line=9,
        ),
        # A handler settles what its own `try` raises, not a refusal raised before it.
        Invalid(
            """
async def send_turn(ctx, request):
    reservation = await ctx.ledger.reserve(request.id)
    if len(request.tools) > ctx.max_tools:
        raise CapacityExceeded(len(request.tools))
    try:
        check(request.tools, ctx.baseline)
    except SurfaceRefused:
        await ctx.ledger.settle(reservation, "pre_dispatch_rejected")
        raise
    return await ctx.gateway.dispatch(request)
""",
            line=5,
        ),
        # A handler that settles only some refusals settles none for sure, even the step's.
        Invalid(
            """
def step(request):
    if changed(request):
        raise SurfaceRefused(request.id)

def send(self, request):
    reservation = self.ledger.reserve(request.id)
    try:
        step(request)
    except SurfaceRefused as refused:
        if refused.billable:
            self.ledger.settle(reservation, "pre_dispatch_rejected")
        raise RequestFailed(request.id) from refused
    return self.gateway.dispatch(request)
""",
            line=4,
        ),
        # The context manager settles one refusal type; the `with` block raises another.
        Invalid(
            """
from contextlib import contextmanager

@contextmanager
def held(ledger, owner):
    reservation = ledger.reserve(owner)
    try:
        yield reservation
    except SurfaceRefused:
        ledger.settle(reservation, "pre_dispatch_rejected")
        raise

def send(gateway, ledger, request):
    with held(ledger, request.owner):
        if len(request.tools) > 128:
            raise CapacityExceeded(len(request.tools))
        return gateway.dispatch(request)
""",
            line=16,
        ),
        # A refusal raised before the settlement is registered, or with one registered only on
        # some paths, leaves the reservation open.
        Invalid(
            """
import contextlib

def send(ledger, gateway, request):
    with contextlib.ExitStack() as stack:
        reservation = ledger.reserve(request.id)
        if changed(request):
            raise SurfaceRefused(request.id)
        stack.callback(ledger.settle, reservation, "pre_dispatch_rejected")
        return gateway.dispatch(request)
""",
            line=8,
        ),
        Invalid(
            """
from contextlib import ExitStack

def send(ledger, gateway, request, audited):
    with ExitStack() as stack:
        reservation = ledger.reserve(request.id)
        if audited:
            stack.callback(ledger.settle, reservation, "pre_dispatch_rejected")
        if changed(request):
            raise SurfaceRefused(request.id)
        return gateway.dispatch(request)
""",
            line=10,
        ),
        # The early return is a path that settles nothing, as an `if` around the settlement is.
        Invalid(
            """
def settle_refusal(self, run, refusal):
    if run.stage("async_prep") is not None:
        return
    super().settle_refusal(run, refusal)
""",
            line=2,
            flow=((2, "`settle_refusal` settles on some paths only"),),
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (_reserving(config),)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports a refusal raised, by its name or a factory of the module that builds it, or a
        # settlement step; a module's refusal handler settles for the rest.
        raises = any(_refusal(name, config) or name in outline.names for name in unit.raised)
        return raises or unit.meets(self.needs(config)) or unit.mentions(names=config.settle)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        # A call of the module's own code that always settles settles as the ledger call does.
        is_settle, loops = settling_calls(tree, config), settling_loops(tree, config)

        # Only code that holds reservations can leave one open: a comment that says "settle" or a
        # word like "preserve" passes the text filter, but names none in the code.
        if not tree.mentions(tree.module, _reserving(config)):
            return
        # A refusal raised in a step is settled where the module catches refusals, if it does.
        handlers = _refusal_handlers(tree, config, is_settle, loops)
        factories = _return_types(tree)

        covered: set[int] = set()
        handled = False

        def unsettled_refusals(line: cst.CSTNode) -> Iterator[cst.Raise]:
            if not handled and isinstance(line, SIMPLE):
                yield from (
                    s
                    for s in line.body
                    if isinstance(s, cst.Raise)
                    and _refusal(_raised_name(tree, s, factories), config)
                    and id(s) not in covered
                )

        for function in tree.functions():
            if _the_ledger(tree, function, config):
                continue  # the settlement's own refusal (`settled twice`) has nothing to settle
            # A raise beside the handler is judged by the `try` around it, not by the handler.
            handled = any(owner is not function for owner in handlers)
            covered = _settled_on_the_way_out(tree, function, config, is_settle, loops)
            body = block(function.body)
            if named(function.name.value, config.settle):
                # A settlement step (or the ledger itself) is judged by whether it settles.
                skips = _skips_settling(tree, body, is_settle, loops)
                if skips:
                    yield Match(function, f"`{function.name.value}` {skips}", _reservation(tree, function, function))
            else:
                for raised in unpreceded(tree, body, unsettled_refusals, is_settle, loops):
                    assert isinstance(raised, cst.Raise)
                    if raised.exc is None:  # a bare `raise` in a handler of a refusal
                        label = f"refusal `{_raised_name(tree, raised, factories)}` re-raised with the reservation open"
                    else:
                        label = f"refusal {shown(raised.exc)} raised with the reservation open"
                    yield Match(raised, label, _reservation(tree, function, raised))


def _reservation(tree: Tree, function: cst.FunctionDef, before: cst.CSTNode) -> tuple[Place, ...]:
    """Where the function takes or holds the reservation: its last `reserve(...)` before `before`,
    else the first parameter or attribute named like one."""
    reserves = [
        call for call in tree.calls(function) if named(dotted(call.func), ("reserve",)) and tree.precedes(call, before)
    ]
    if reserves:
        return ((reserves[-1], f"reserved by {shown(reserves[-1])}"),)
    for node in tree.findall(function, cst.Param, cst.Attribute):
        name = node.name.value if isinstance(node, cst.Param) else node.attr.value
        if "reservation" in name.lower():
            return ((node, f"reservation held in {shown(node)}"),)
    return ()


def _settled_on_the_way_out(
    tree: Tree, function: cst.FunctionDef, config: ScanConfig, is_settle: Callable[[cst.Call], bool], loops: Guard
) -> set[int]:
    """The raises of `function` that a `try` around them settles as they leave: in a `finally` that
    settles on every path, or in an `except` clause that catches them (a refusal type, `Exception`,
    `BaseException` or everything) and settles; or that a context manager of the module settles,
    raised in the block of its `with`."""
    settled = [*settled_blocks(tree, config, function), *settled_by_exit_stacks(tree, config, function)]
    covered = {id(raised) for part in settled for raised in tree.findall(part, cst.Raise)}
    factories = _return_types(tree)
    for statement in tree.findall(function.body, cst.Try, cst.TryStar):
        settling_handlers = [
            handler
            for handler in statement.handlers
            if _catches_refusals(handler, config)
            and guarantees(tree, block(handler.body), is_settle, loops, through_raise=True)
        ]
        final = statement.finalbody
        if final is not None and guarantees(tree, block(final.body), is_settle, loops, through_raise=True):
            guarded: list[cst.CSTNode] = [
                statement.body,
                *statement.handlers,
                *([statement.orelse] if statement.orelse else []),
            ]
            covered |= {id(raised) for part in guarded for raised in tree.findall(part, cst.Raise)}
        elif settling_handlers:
            covered |= {
                id(raised)
                for raised in tree.findall(statement.body, cst.Raise)
                if any(_caught(handler, _raised_name(tree, raised, factories), config) for handler in settling_handlers)
            }
    return covered


def _caught(handler: cst.ExceptHandler | cst.ExceptStarHandler, raised: str, config: ScanConfig) -> bool:
    """Whether a handler of refusals catches what a `raise` raises: any refusal, unless the program
    knows the raised class and none of the classes it inherits from is one the handler names."""
    if handler.type is None:
        return True
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = {dotted(t.value if isinstance(t, cst.Element) else t).rsplit(".", 1)[-1] for t in types}
    lineage = dict(config.refusal_lineage)
    if names & {"Exception", "BaseException", raised} or raised not in lineage:
        return True
    return bool(names & set(lineage[raised]))


def _catches_refusals(handler: cst.ExceptHandler | cst.ExceptStarHandler, config: ScanConfig) -> bool:
    if handler.type is None:
        return True
    types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
    names = [dotted(t.value if isinstance(t, cst.Element) else t).rsplit(".", 1)[-1] for t in types]
    return any(name in ("Exception", "BaseException") or _refusal(name, config) for name in names)


def _refusal(name: str, config: ScanConfig) -> bool:
    lowered = name.lower()
    return bool(name) and any(word in lowered for word in config.refusal_words)


def _the_ledger(tree: Tree, function: cst.FunctionDef, config: ScanConfig) -> bool:
    """Whether `function` is the configured settlement itself: `settle` of a class named for its
    owner (`LedgerService.settle` for `ledger.settle`)."""
    owner = tree.enclosing(function, (cst.ClassDef,))
    if owner is None:
        return False
    for name in config.settle:
        head, _, last = name.rpartition(".")
        words = head.rpartition(".")[2].lstrip("_").lower()
        if last == function.name.value and words and words in owner.name.value.lower():
            return True
    return False


def _reserving(config: ScanConfig) -> tuple[str, ...]:
    """The words of code that holds reservations: its settlement calls, `reserve`, `reservation`,
    `ledger`, and another module's function that settles, if only sometimes (`self.refund`)."""
    steps = (name.rpartition(".")[2] for name in config.settle_steps)
    return tuple(dict.fromkeys((*config.settle, "reserve", "reservation", "ledger", *steps)))


def _raised_name(tree: Tree, raised: cst.Raise, factories: Mapping[str, str]) -> str:
    """The name of what is raised: the class, the variable, or — for a call to a function of the
    module that builds the exception — the class its return annotation names, since a factory's
    name says what it reacts to (`_handshake_rejection_error`), not what it raises. A bare `raise`
    re-raises what its `except` clause caught: the names of the types it catches."""
    if raised.exc is None:
        handler = tree.enclosing(raised, cst.ExceptHandler)
        caught = handler.type if handler is not None else None
        parts = caught.elements if isinstance(caught, cst.Tuple) else [caught] if caught is not None else []
        return " ".join(dotted(part.value if isinstance(part, cst.Element) else part) for part in parts)
    exception = raised.exc
    if isinstance(exception, cst.Call):
        exception = exception.func
    name = dotted(exception).rsplit(".", 1)[-1] if exception is not None else ""
    return factories.get(name, name)


def _return_types(tree: Tree) -> dict[str, str]:
    """Function name → the last name of its return annotation, for the module's annotated functions."""
    found: dict[str, str] = {}
    for function in tree.functions():
        if function.returns is not None and dotted(function.returns.annotation):
            found[function.name.value] = dotted(function.returns.annotation).rsplit(".", 1)[-1]
    return found


def _refusal_handlers(
    tree: Tree, config: ScanConfig, settles: Callable[[cst.Call], bool], loops: Guard
) -> list[cst.FunctionDef | None]:
    """The functions holding an `except` clause that catches a refusal type and settles it on every path.

    Refusal types usually share a base defined elsewhere, so a refusal raised in the module's other
    functions is taken to reach such a handler: the rule then looks only at the settlement steps
    themselves. A handler around a context manager's `yield` is not one: it catches what the `with`
    block raises, which `settled_blocks` judges.
    """
    owners: list[cst.FunctionDef | None] = []
    for handler in tree.findall(tree.module, cst.ExceptHandler):
        if handler.type is None or not guarantees(tree, block(handler.body), settles, loops, through_raise=True):
            continue
        types = handler.type.elements if isinstance(handler.type, cst.Tuple) else [handler.type]
        if not any(
            _refusal(dotted(t.value if isinstance(t, cst.Element) else t).rsplit(".", 1)[-1], config) for t in types
        ):
            continue
        around = tree.enclosing(handler, cst.Try)
        if around is not None and tree.findall(around.body, cst.Yield):
            continue
        owners.append(tree.enclosing(handler, cst.FunctionDef))
    return owners


def _skips_settling(
    tree: Tree, body: Sequence[cst.BaseStatement], is_settle: Callable[[cst.Call], bool], loops: Guard
) -> str:
    """How a settlement step fails to settle ("settles nothing", "settles on some paths only"); ""
    when it settles on every path.

    A step with no settlement call at all that does something else is the ledger itself, not a
    step that forgot to call it.
    """
    statements = [s for s in body if not _docstring(s)]
    if all(isinstance(s, SIMPLE) and all(isinstance(x, cst.Pass) for x in s.body) for s in statements):
        return "settles nothing"
    calls_settle = any(is_settle(c) for s in statements for c in tree.calls(s))
    return "settles on some paths only" if calls_settle and not guarantees(tree, statements, is_settle, loops) else ""


def _docstring(statement: cst.BaseStatement) -> bool:
    return (
        isinstance(statement, cst.SimpleStatementLine)
        and len(statement.body) == 1
        and isinstance(statement.body[0], cst.Expr)
        and isinstance(statement.body[0].value, cst.SimpleString | cst.ConcatenatedString)
    )
