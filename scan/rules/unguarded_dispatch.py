"""TS101 unguarded-dispatch: a dispatch that some path of its function reaches unchecked."""

from __future__ import annotations

from collections.abc import Iterator, Mapping

import libcst as cst

from .._cfg import block, irrefutable
from .._dispatches import dispatch_calls
from .._flow import Guard, Wanted, always_leaves, guarantees, unpreceded
from .._outline import Outline, Unit
from .._places import name_source
from .._rule import (
    Invalid,
    Match,
    Mentions,
    Needs,
    Place,
    Rule,
    Tree,
    canonical,
    dotted,
    imports,
    is_tools,
    named,
    shown,
)
from .._types import ScanConfig


class UnguardedDispatch(Rule):
    """A gateway dispatch not preceded, on every path of its function, by the final parity check
    (a configured check, a function of the same module that always checks, or a compare-and-raise
    against the baseline)."""

    id = "TS101"
    name = "unguarded-dispatch"
    message = "check the request's surface against the expected one on every path right before dispatch"
    module_level = False  # it reports dispatches in functions; the module's code it reads, it reads by name
    valid = (
        # The check imported under another name.
        """
from host.guard import check as ensure_parity

def send(gateway, request, baseline):
    ensure_parity(request.tools, baseline)
    return gateway.dispatch(request)
""",
        # One arm calls the check, the other compares and raises: every path is checked.
        """
def send(self, gateway, request, baseline):
    if self.strict:
        check(request.tools, baseline)
    elif capture(request.tools) != baseline:
        raise SurfaceRefused(request.id)
    return gateway.dispatch(request)
""",
        # Digests of the tools read by key, compared with the baseline's.
        """
def send(self, gateway, request):
    current = {t["name"]: digest(t) for t in request["tools"]}
    if current != self.baseline:
        raise SurfaceRefused(request["id"])
    return gateway.dispatch(request)
""",
        # A function named for the difference, its result kept and tested.
        """
def send(gateway, request, baseline):
    if drift := diff_surfaces(request.tools, baseline):
        raise SurfaceRefused(drift)
    return gateway.dispatch(request)
""",
        # The difference kept in a local, then tested.
        """
def send(gateway, request, baseline):
    changes = diff_specs(request.tools, baseline)
    if changes:
        raise SurfaceRefused(changes)
    return gateway.dispatch(request)
""",
        # The compare-and-raise written as the first case of a `match`.
        """
def send(gateway, request, baseline):
    match capture(request.tools):
        case observed if observed != baseline:
            raise SurfaceRefused(request.id)
        case _:
            pass
    return gateway.dispatch(request)
""",
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
        # The surface captured into a local first, compared on the right, through a private gateway field.
        """
async def send(self, request):
    current = capture(request.tools)
    if self.baseline != current:
        raise SurfaceRefused(request.id)
    await self._gateway.dispatch(request)
""",
        # The check in a helper that refuses through a function that always raises, and a dispatch
        # bound with `partial` before it, called after it.
        """
from functools import partial

def refuse(reason):
    raise SurfaceRefused(reason)

def ensure_unchanged(tools, baseline):
    observed: list = snapshot(tools)
    seen = observed
    if not (seen == baseline):
        refuse("tool surface changed")

def send(gateway, tools, baseline):
    send_now = partial(gateway.dispatch, timeout=5)
    ensure_unchanged(tools, baseline)
    return send_now(tools)
""",
        # A dispatch kept on the instance in `__init__` and called, checked, in another method.
        """
import functools as ft

class Client:
    def __init__(self, gateway):
        self._send = ft.partial(gateway.dispatch, retries=2)

    def ask(self, request, baseline):
        final_check(request.tools, baseline)
        return self._send(request)
""",
        # Near misses: a handler looked up through `dispatch_table` is not the dispatch, a private
        # `_dispatch` is another function, and the result of a dispatch is not one.
        """
def send(self, request, kind):
    handler = self.gateway.dispatch_table.get(kind)
    handler(request)
    self.gateway._dispatch(request)
    final_check(request)
    reply = self.gateway.dispatch(request)
    reply(request)
""",
        # A module-level alias, shadowed by a parameter in one function and checked in the other.
        """
from host import gateway

send = gateway.dispatch

def forward(send, request):
    return send(request)

def ask(request):
    final_check(request)
    return send(request)
""",
    )
    invalid = (
        # The difference is kept, but only logged: nothing refuses the request.
        Invalid(
            """
def send(gateway, request, baseline):
    changes = diff_specs(request.tools, baseline)
    log.info("changes: %s", changes)
    return gateway.dispatch(request)
""",
            line=5,
        ),
        # The module's `run` checks; another object's `run` (the hook chain's) is no check.
        Invalid(
            """
class Turn:
    def run(self, request):
        check(request.tools, self.expected)
        return self.gateway.dispatch(request)

    def again(self, request):
        self.chain.run("before_send", request)
        return self.gateway.dispatch(request)
""",
            line=9,
        ),
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
        # A count is no check, inline or through a captured local.
        Invalid(
            """
def send(gateway, request, baseline):
    tools = request.tools
    if len(tools) != len(baseline):
        raise SurfaceRefused("tool count changed")
    gateway.dispatch(request)
""",
            line=6,
        ),
        Invalid(
            """
async def send(self, request):
    observed = capture(request.tools)
    if len(observed) != len(self.expected) or observed.count(1) == 0:
        raise SurfaceRefused(request.id)
    await self.gateway.dispatch(request)
""",
            line=6,
        ),
        # The test is the wrong way round: it refuses the unchanged surface and sends a changed one.
        Invalid(
            """
async def send(self, request):
    observed = capture(request.tools)
    if observed == self.baseline:
        raise SurfaceRefused(request.id)
    await self.gateway.dispatch(request)
""",
            line=6,
        ),
        Invalid(
            """
def send(request, gateway, expected):
    if not capture(request.tools) != expected:
        raise SurfaceRefused(request.id)
    gateway.dispatch(request)
""",
            line=5,
        ),
        # The mismatch only logs: a captured local compared, but nothing refused.
        Invalid(
            """
def send(request, gateway, baseline):
    observed = capture(request.tools)
    if observed != baseline:
        log.warning("tool surface changed")
    gateway.dispatch(request)
""",
            line=6,
        ),
        # The bound method through two local names, in a loop.
        Invalid(
            """
def send_all(self, requests):
    d = self.gateway.dispatch
    send = d
    for request in requests:
        send(request)
""",
            line=6,
            flow=(
                (2, "`send_all` sends the request"),
                (4, "`send` is the dispatch"),
                (6, "unchecked dispatch `send(...)`"),
            ),
        ),
        # A `partial` of the dispatch kept on the instance; one method sends without the check.
        Invalid(
            """
from functools import partial

class Client:
    def __init__(self, gateway):
        self._send = partial(gateway.dispatch, timeout=30)

    async def ask(self, request):
        return await self._send(request)

    async def ask_checked(self, request):
        final_check(request)
        return await self._send(request)
""",
            line=9,
            flow=(
                (8, "parameter `request`"),
                (6, "`self._send` is the dispatch"),
                (9, "unchecked dispatch `self._send(...)`"),
            ),
        ),
        # A stub that raises `NotImplementedError` is for a subclass to fill in, not a refusal.
        Invalid(
            """
class Sender:
    def on_mismatch(self, observed):
        raise NotImplementedError

    def send(self, request):
        observed = capture(request.tools)
        if observed != self.baseline:
            self.on_mismatch(observed)
        self.gateway.dispatch(request)
""",
            line=10,
        ),
        # A module-level `partial` of the dispatch, called from a function.
        Invalid(
            """
import functools

from host import gateway

send = functools.partial(gateway.dispatch, timeout=30)

def ask(request):
    return send(request)
""",
            line=9,
            flow=(
                (8, "parameter `request`"),
                (6, "`send` is the dispatch"),
                (9, "unchecked dispatch `send(...)`"),
            ),
        ),
        # The dispatch imported under another name, streamed in an `async with` on a path without the check.
        Invalid(
            """
from host.gateway import dispatch as send

async def ask(request, hooks):
    if hooks:
        final_check(request)
    async with send(request) as stream:
        return await stream.read()
""",
            line=7,
        ),
        # A function that says the surfaces are the same, raising when they are: the changed one goes out.
        Invalid(
            """
def send(gateway, request, baseline):
    if same_surface(request.tools, baseline):
        raise SurfaceRefused(request.id)
    return gateway.dispatch(request)
""",
            line=5,
        ),
        # A case before the guarded one lets an empty surface past the match unasked.
        Invalid(
            """
def send(gateway, request, baseline):
    match capture(request.tools):
        case []:
            pass
        case observed if observed != baseline:
            raise SurfaceRefused(request.id)
    return gateway.dispatch(request)
""",
            line=8,
        ),
        # `gateway.dispatch` as a private (name-mangled) field.
        Invalid(
            """
def send(self, request, hooks):
    if hooks:
        final_check(request)
    return self.__gateway.dispatch(request)
""",
            line=5,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        # An entry of a table of callables (`STAGES["send"]`) is called by the table's name.
        return (Mentions(names=tuple(dict.fromkeys(name.partition("[")[0] for name in config.dispatch))),)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports a dispatch; the checks before it are in the same function or reached by name.
        return unit.meets(self.needs(config))

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        compare_and_raise = _guards(tree, config)
        checking = _checking_functions(tree, config, compare_and_raise)

        def is_check(call: cst.Call) -> bool:
            return _configured_check(tree, call, config) or _own(call) in checking

        sent = dispatch_calls(tree, config)

        def dispatches(line: cst.CSTNode) -> Iterator[cst.Call]:
            return (call for call in tree.calls(line) if id(call) in sent)

        for function in tree.functions():
            for dispatch in unpreceded(tree, block(function.body), dispatches, is_check, guard=compare_and_raise):
                places = (*_request(tree, function, dispatch), *sent[id(dispatch)])
                yield Match(dispatch, f"unchecked dispatch {shown(dispatch)}", places)


def checks_on_every_path(tree: Tree, config: ScanConfig) -> set[int]:
    """The ids of the module's functions that make the final check on every path out of them."""
    compare_and_raise = _guards(tree, config)
    checking = _checking_functions(tree, config, compare_and_raise)

    def is_check(call: cst.Call) -> bool:
        return _configured_check(tree, call, config) or _own(call) in checking

    return {
        id(function)
        for function in tree.functions()
        if guarantees(tree, block(function.body), is_check, compare_and_raise)
    }


def _guards(tree: Tree, config: ScanConfig) -> Guard:
    """Whether a statement is a compare-and-raise, each asked once: every query of every function
    asks each `if` again."""

    def find() -> Guard:
        answers: dict[int, bool] = {}
        held = _Held(tree, config)
        raising = _raising_functions(tree)

        def never_returns(call: cst.Call) -> bool:
            return _own(call) in raising

        def compare_and_raise(statement: cst.BaseStatement) -> bool:
            if id(statement) not in answers:
                answers[id(statement)] = _compare_and_raise(tree, statement, config, held, never_returns)
            return answers[id(statement)]

        return compare_and_raise

    return tree.memo(("compare-and-raise", config), find)


def _request(tree: Tree, function: cst.FunctionDef, dispatch: cst.CSTNode) -> tuple[Place, ...]:
    """Where the dispatched request comes from: the parameter or assignment that holds it, else the
    function that sends it."""
    assert isinstance(dispatch, cst.Call)
    held = name_source(tree, dispatch, dispatch.args[0].value, "request") if dispatch.args else ()
    return held or ((function.name, f"`{function.name.value}` sends the request"),)


def _compare_and_raise(
    tree: Tree, statement: cst.BaseStatement, config: ScanConfig, held: _Held, never_returns: Wanted
) -> bool:
    """`if <surface> != <baseline>: raise …`: a check written in place, the surface inline or in a
    local that holds one (`observed = capture(tools)`). A cap (`len(tools) > n`) or a membership
    test (`name not in allowed`) refuses some requests, but it compares no surface with the
    expected one, so it is no check. The `if` may refuse through a function of the module that
    always raises instead of a `raise` of its own."""
    if isinstance(statement, cst.Match):
        return _case_refuses(tree, statement, config, held, never_returns)
    if not isinstance(statement, cst.If):
        return False
    # The cheap test first: every `if` of every function is asked, and few compare surfaces.
    comparisons = tree.findall(statement.test, cst.Comparison)
    compared = any(_compares_surfaces(tree, statement.test, comparison, config, held) for comparison in comparisons)
    if not compared and not _diffs_surfaces(tree, statement.test, config, held):
        return False
    return always_leaves(tree, block(statement.body), stops=never_returns)


#: Words of a function that is true when its arguments differ: `diff_specs`, `surfaces_differ`.
_DIFFERING = frozenset(
    {"diff", "differ", "differs", "different", "changed", "drift", "drifted", "mismatch", "mismatched"}
)


def _diffs_surfaces(tree: Tree, test: cst.BaseExpression, config: ScanConfig, held: _Held) -> bool:
    """`if diff_specs(observed, baseline): raise …`, or with the diff kept (`if diff := …`, or
    `changes = diff_specs(…)` then `if changes:`): a function named for a difference, handed the
    surface and the baseline, tested for truth."""
    if isinstance(test, cst.NamedExpr):
        test = test.value
    if isinstance(test, cst.Name):
        return _DIFFERENCE in held.at(test).get(test.value, frozenset())
    return _differs(tree, test, config, held.at(test))


def _differs(tree: Tree, value: cst.BaseExpression, config: ScanConfig, locals_: Mapping[str, Roles]) -> bool:
    """A call of a function named for a difference, handed the surface and the baseline."""
    if not isinstance(value, cst.Call) or not _DIFFERING & set(
        dotted(value.func).rsplit(".", 1)[-1].lower().split("_")
    ):
        return False
    roles = [_roles(tree, arg.value, config, locals_) for arg in value.args]
    return any(
        _SURFACE in one and _BASELINE in other for i, one in enumerate(roles) for j, other in enumerate(roles) if i != j
    )


def _case_refuses(tree: Tree, statement: cst.Match, config: ScanConfig, held: _Held, never_returns: Wanted) -> bool:
    """`match capture(tools): case observed if observed != baseline: raise …`, the same check as a
    case. Its pattern must take any subject, and every case before it leave, so that every subject
    that gets past the `match` was asked the guard."""
    for case in statement.cases:
        body = block(case.body)
        if case.guard is not None and irrefutable(case.pattern):
            comparisons = tree.findall(case.guard, cst.Comparison)
            if any(_compares_surfaces(tree, case.guard, c, config, held) for c in comparisons) and always_leaves(
                tree, body, stops=never_returns
            ):
                return True
        if not always_leaves(tree, body, stops=never_returns):
            return False
    return False


def _compares_surfaces(
    tree: Tree, test: cst.BaseExpression, comparison: cst.Comparison, config: ScanConfig, held: _Held
) -> bool:
    """A test with the surface on one side and the baseline on another that holds when they differ:
    `!=`, or `==` under a `not`. `if observed == baseline: raise` refuses the unchanged surface and
    lets a changed one through."""
    negated = (
        sum(
            1
            for unary in tree.findall(test, cst.UnaryOperation)
            if isinstance(unary.operator, cst.Not) and tree.within(comparison, unary)
        )
        % 2
    )
    differs = cst.Equal if negated else cst.NotEqual
    if not any(isinstance(target.operator, differs) for target in comparison.comparisons):
        return False
    sides = [comparison.left, *(target.comparator for target in comparison.comparisons)]
    roles = [_roles(tree, side, config, held.at(comparison)) for side in sides]
    surface = {index for index, role in enumerate(roles) if _SURFACE in role}
    baseline = {index for index, role in enumerate(roles) if _BASELINE in role}
    return any(one != other for one in surface for other in baseline)


_SURFACE = "surface"
_BASELINE = "baseline"
#: A local holding what a function named for a difference gave (`changes = diff_specs(...)`).
_DIFFERENCE = "difference"
#: What an expression can stand for in a parity check: the surface, the baseline, or (a capture) either.
Roles = frozenset[str]


def _roles(tree: Tree, side: cst.BaseExpression, config: ScanConfig, locals_: Mapping[str, Roles]) -> Roles:
    """What an operand stands for: a tool list or a capture is a surface, a baseline name or a
    capture the baseline, a local bound to one of them what it was bound to. A count, a number or a
    membership test stands for neither, whatever it mentions."""
    if _count(side):
        return frozenset()
    snapshot = any(named(dotted(call.func), config.snapshot) for call in tree.calls(side))
    roles = set()
    keyed = any(is_tools(read, config) for read in tree.findall(side, cst.Subscript))  # `request["tools"]`
    if snapshot or keyed or tree.mentions(side, config.tool_words):
        roles.add(_SURFACE)
    if snapshot or tree.mentions(side, config.baseline):
        roles.add(_BASELINE)
    if _differs(tree, side, config, locals_):
        roles.add(_DIFFERENCE)
    if locals_:
        # `self.observed` reads a field, not the local `observed`: skip the names after a dot.
        fields = {id(attribute.attr) for attribute in tree.findall(side, cst.Attribute)}
        for name in tree.findall(side, cst.Name):
            if id(name) not in fields:
                roles |= locals_.get(name.value, frozenset())
    return frozenset(roles)


def _count(side: cst.BaseExpression) -> bool:
    """`len(tools)`, `3`, `-1`, `len(a) + len(b)`, `name in allowed`: a number or a yes/no, never a surface."""
    if isinstance(side, cst.Integer | cst.Float):
        return True
    if isinstance(side, cst.UnaryOperation):
        return _count(side.expression)
    if isinstance(side, cst.BinaryOperation):
        return _count(side.left) and _count(side.right)
    if isinstance(side, cst.Call):
        return dotted(side.func) == "len"
    if isinstance(side, cst.Comparison):
        return any(isinstance(target.operator, cst.In | cst.NotIn) for target in side.comparisons)
    return False


class _Held:
    """Per function, what each local bound by a plain assignment stands for (`observed =
    capture(tools)` holds a surface), worked out once, when a comparison in it first asks."""

    def __init__(self, tree: Tree, config: ScanConfig) -> None:
        self._tree = tree
        self._config = config
        self._owner: dict[int, cst.FunctionDef] | None = None
        self._held: dict[int, dict[str, Roles]] = {}

    def at(self, node: cst.CSTNode) -> Mapping[str, Roles]:
        """The locals of the function `node` (a comparison, or another node of a test) is in; none
        outside every function."""
        if self._owner is None:
            # Pre-order: an inner function comes after its outer one, so the innermost owner wins.
            self._owner = {
                id(comparison): function
                for function in self._tree.functions()
                for comparison in self._tree.findall(function.body, cst.Comparison)
            }
        function = self._owner.get(id(node)) or self._tree.enclosing(node, cst.FunctionDef)
        if function is None:
            return {}
        if id(function) not in self._held:
            self._held[id(function)] = self._bind(function)
        return self._held[id(function)]

    def _bind(self, function: cst.FunctionDef) -> dict[str, Roles]:
        bindings = [
            (name, statement.value)
            for statement in self._tree.findall(function.body, cst.Assign, cst.AnnAssign)
            if statement.value is not None and (name := _local(statement))
        ]
        # `case observed if …:` binds the subject of its `match` to `observed`.
        bindings += [
            (case.pattern.name.value, match.subject)
            for match in self._tree.findall(function.body, cst.Match)
            for case in match.cases
            if isinstance(case.pattern, cst.MatchAs)
            and case.pattern.pattern is None
            and isinstance(case.pattern.name, cst.Name)
        ]
        held: dict[str, Roles] = {}
        # Roles only grow, two at most per name: a round that adds none ends it (`a = capture(t); b = a`).
        changed = True
        while changed:
            changed = False
            for name, value in bindings:
                roles = _roles(self._tree, value, self._config, held)
                if not roles <= held.get(name, frozenset()):
                    held[name] = held.get(name, frozenset()) | roles
                    changed = True
        return held


def _local(statement: cst.Assign | cst.AnnAssign) -> str | None:
    """The one plain name `name = …` or `name: T = …` binds; None for any other target."""
    if isinstance(statement, cst.Assign):
        target = statement.targets[0].target if len(statement.targets) == 1 else None
    else:
        target = statement.target
    return target.value if isinstance(target, cst.Name) else None


def _raising_functions(tree: Tree) -> set[str]:
    """Names of this module's functions that never return: every path raises (`def refuse(…): raise
    SurfaceRefused(…)`). A stub that raises `NotImplementedError` is meant to be replaced, not to refuse."""
    return {
        function.name.value
        for function in tree.functions()
        if guarantees(tree, block(function.body), lambda call: False)
        and "NotImplementedError" not in set(tree.identifiers(function.body))
    }


def _configured_check(tree: Tree, call: cst.Call, config: ScanConfig) -> bool:
    """A configured check, called as written or through an import alias."""
    return named(dotted(call.func), config.check) or named(canonical(call.func, imports(tree)), config.check)


def _own(call: cst.Call) -> str:
    """The name of the module's function or method a call runs (`check`, `self.check`,
    `cls.check`); "" for another object's (`self._chain.run(...)` is no call of the module's `run`)."""
    owner, _, name = dotted(call.func).rpartition(".")
    return name if owner in ("", "self", "cls", "super") else ""


def _checking_functions(tree: Tree, config: ScanConfig, compare_and_raise: Guard) -> set[str]:
    """Names of this module's functions that make a check on every path, directly or through each other."""
    pending = {function.name.value: block(function.body) for function in tree.functions()}
    checking: set[str] = set()

    def is_check(call: cst.Call) -> bool:
        return _configured_check(tree, call, config) or _own(call) in checking

    # Each round moves the functions that now check into `checking`; a round that moves none ends it.
    while found := {name for name, body in pending.items() if guarantees(tree, body, is_check, compare_and_raise)}:
        checking |= found
        pending = {name: body for name, body in pending.items() if name not in found}
    return checking
