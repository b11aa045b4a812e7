"""TS101 unguarded-dispatch: a dispatch that some path of its function reaches unchecked."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._cfg import block
from .._flow import Guard, always_leaves, guarantees, unpreceded
from .._places import name_source
from .._rule import Invalid, Match, Place, Rule, Tree, dotted, named, shown
from .._types import ScanConfig


class UnguardedDispatch(Rule):
    """A gateway dispatch not preceded, on every path of its function, by the final parity check
    (a configured check, a function of the same module that always checks, or a compare-and-raise
    against the baseline)."""

    id = "TS101"
    name = "unguarded-dispatch"
    message = "check the request's surface against the expected one on every path right before dispatch"
    valid = (
        """
def send(self, run):
    try:
        self.prepare(run)
    except SurfaceRefused:
        self.settle_refusal(run)
        raise
    self.gateway.dispatch(run.request)

def prepare(self, run):
    for stage in run.stages:
        stage(run)
    self.final_check(run)
""",
        """
def send(ports, tools, baseline):
    if capture(tools) != baseline:
        raise HostRefused("tool surface changed")
    ports.gateway.dispatch("req-1", tools, [])
""",
        # A compare-and-raise inside a `try`: the handler re-raises, so no path skips it.
        """
def send(ports, tools, baseline, ledger, reservation):
    try:
        tools = ports.inject(tools)
        if capture(tools) != baseline:
            raise HostRefused("tool surface changed")
    except HostRefused:
        ledger.settle(reservation, "pre_dispatch_rejected")
        raise
    ports.gateway.dispatch("req-1", tools, [])
""",
        # The loop leaves only by `break`, and only once the check has passed.
        """
def send(request, gateway):
    while True:
        request = fit(request)
        if final_check(request):
            break
    gateway.dispatch(request)
""",
        """
def send(gateway, request, expected_tools):
    if [tool.name for tool in request.tools] != expected_tools:
        raise Refused("tool surface changed")
    gateway.dispatch(request)
""",
    )
    invalid = (
        Invalid(
            """
def send(request, hooks, gateway):
    if hooks:
        final_check(request)
    gateway.dispatch(request)
""",
            line=5,
            flow=(
                (2, "parameter `request`"),
                (5, "unchecked dispatch `gateway.dispatch(...)`"),
            ),
        ),
        Invalid(
            """
def send(request, gateway):
    for stage in request.stages:
        check(request)
    return gateway.dispatch(request)
""",
            line=5,
        ),
        Invalid(
            """
def send(tools, gateway, limit):
    if len(tools) > limit:
        raise TooManyTools(len(tools))
    gateway.dispatch(tools)
""",
            line=5,
            flow=(
                (2, "parameter `tools`"),
                (5, "unchecked dispatch `gateway.dispatch(...)`"),
            ),
        ),
        Invalid(
            """
async def send(self, request):
    await self.prepare(request)
    await self.client.gateway.dispatch(request)

async def prepare(self, request):
    if request.hooks:
        self.check(request)
""",
            line=4,
        ),
        # The check may raise, and the handler swallows it: the dispatch runs unchecked.
        Invalid(
            """
def send(request, gateway):
    try:
        final_check(request)
    except SurfaceRefused:
        log.warning("surface changed")
    gateway.dispatch(request)
""",
            line=7,
            flow=(
                (2, "parameter `request`"),
                (7, "unchecked dispatch `gateway.dispatch(...)`"),
            ),
        ),
        # A streamed dispatch is a `for` loop's iterator, not a line of its own.
        Invalid(
            """
async def send(request, gateway):
    async for chunk in gateway.dispatch(request):
        yield chunk
""",
            line=3,
            flow=(
                (2, "parameter `request`"),
                (3, "unchecked dispatch `gateway.dispatch(...)`"),
            ),
        ),
        # `prepare` returns early when there are no hooks, before its check.
        Invalid(
            """
def send(self, run):
    self.prepare(run)
    self.gateway.dispatch(run.request)

def prepare(self, run):
    if not run.hooks:
        return
    self.final_check(run)
""",
            line=4,
            flow=(
                (2, "parameter `run`"),
                (4, "unchecked dispatch `self.gateway.dispatch(...)`"),
            ),
        ),
    )

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return (config.dispatch,)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        # Every query of every function asks each `if` again: answer each one once.
        answers: dict[int, bool] = {}

        def compare_and_raise(statement: cst.BaseStatement) -> bool:
            if id(statement) not in answers:
                answers[id(statement)] = _compare_and_raise(tree, statement, config)
            return answers[id(statement)]

        checking = _checking_functions(tree, config, compare_and_raise)

        def is_check(call: cst.Call) -> bool:
            name = dotted(call.func)
            return named(name, config.check) or name.rsplit(".", 1)[-1] in checking

        def dispatches(line: cst.CSTNode) -> Iterator[cst.Call]:
            return (call for call in tree.calls(line) if named(dotted(call.func), config.dispatch))

        for function in tree.functions():
            for dispatch in unpreceded(tree, block(function.body), dispatches, is_check, guard=compare_and_raise):
                yield Match(dispatch, f"unchecked dispatch {shown(dispatch)}", _request(tree, function, dispatch))


def _request(tree: Tree, function: cst.FunctionDef, dispatch: cst.CSTNode) -> tuple[Place, ...]:
    """Where the dispatched request comes from: the parameter or assignment that holds it, else the
    function that sends it."""
    assert isinstance(dispatch, cst.Call)
    held = name_source(tree, dispatch, dispatch.args[0].value, "request") if dispatch.args else ()
    return held or ((function.name, f"`{function.name.value}` sends the request"),)


def _compare_and_raise(tree: Tree, statement: cst.BaseStatement, config: ScanConfig) -> bool:
    """`if <surface> != <baseline>: raise …`: a check written in place. A cap (`len(tools) > n`) or
    a membership test (`name not in allowed`) refuses some requests, but it compares no surface
    with the expected one, so it is no check."""
    if not isinstance(statement, cst.If):
        return False
    # The cheap test first: every `if` of every function is asked, and few compare surfaces.
    comparisons = tree.findall(statement.test, cst.Comparison)
    if not any(_compares_surfaces(tree, comparison, config) for comparison in comparisons):
        return False
    return always_leaves(tree, block(statement.body))


def _compares_surfaces(tree: Tree, comparison: cst.Comparison, config: ScanConfig) -> bool:
    """An equality test with the surface on one side and the baseline on another."""
    if not any(isinstance(target.operator, cst.Equal | cst.NotEqual) for target in comparison.comparisons):
        return False
    sides = [comparison.left, *(target.comparator for target in comparison.comparisons)]

    def snapshot(side: cst.BaseExpression) -> bool:
        return any(named(dotted(call.func), config.snapshot) for call in tree.calls(side))

    surface = {index for index, side in enumerate(sides) if tree.mentions(side, config.tool_words) or snapshot(side)}
    baseline = {index for index, side in enumerate(sides) if tree.mentions(side, config.baseline) or snapshot(side)}
    return any(one != other for one in surface for other in baseline)


def _checking_functions(tree: Tree, config: ScanConfig, compare_and_raise: Guard) -> set[str]:
    """Names of this module's functions that make a check on every path, directly or through each other."""
    pending = {function.name.value: block(function.body) for function in tree.functions()}
    checking: set[str] = set()

    def is_check(call: cst.Call) -> bool:
        name = dotted(call.func)
        return named(name, config.check) or name.rsplit(".", 1)[-1] in checking

    # Each round moves the functions that now check into `checking`; a round that moves none ends it.
    while found := {name for name, body in pending.items() if guarantees(tree, body, is_check, compare_and_raise)}:
        checking |= found
        pending = {name: body for name, body in pending.items() if name not in found}
    return checking
