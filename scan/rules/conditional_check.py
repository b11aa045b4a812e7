"""TS102 conditional-check: the parity check runs only when hooks are registered."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import libcst as cst

from .._cfg import block
from .._outline import Outline, Unit
from .._rule import Invalid, Match, Mentions, Needs, Rule, Tree, about_hooks, dotted, named, shown
from .._types import ScanConfig


class ConditionalCheck(Rule):
    """A check under a condition about hooks or callbacks, inside a hook, or registered as one:
    the path without hooks sends the request unchecked."""

    id = "TS102"
    name = "conditional-check"
    message = "run the parity check on every path, hooks or not, not inside or under a hook"
    valid = (
        # The early exit is about something else; the check runs whether hooks ran or not.
        """
def finish(request, expected, hooks):
    for hook in hooks:
        hook(request)
    if not request.tools:
        return
    final_check(request.tools, expected)
""",
        """
def prepare(run):
    if run.hooks:
        run_hooks(run)
    final_check(run)
""",
        """
for stage in run.stages:
    if stage.kind is not StageKind.HOOK and not early_done:
        early_check(run)
""",
        """
def prepare(request, hooks):
    for hook in hooks:
        hook(request)
    check(request, expected)
""",
        # A lambda registered as a hook that does not check; the check runs on every path.
        """
def install(bus, expected):
    register_hook(bus, "before_model_call", lambda request: log(request.tools))

def send(gateway, request, expected):
    final_check(request.tools, expected)
    gateway.dispatch(request)
""",
    )
    invalid = (
        # An instance of the module's class handed to the registration: each of its methods is a hook.
        Invalid(
            """
class ParityInterceptor:
    def __init__(self, baseline):
        self.baseline = baseline

    def before_send(self, request):
        check(request.tools, self.baseline)
        return request

def install(baseline):
    register_hook(ParityInterceptor(baseline))
""",
            line=7,
        ),
        # A callable instance registered: what calling it runs is the hook.
        Invalid(
            """
class ParityStage:
    def __init__(self, baseline):
        self.baseline = baseline

    def __call__(self, request):
        check(request.tools, self.baseline)
        return request

def install(baseline):
    register_hook(ParityStage(baseline))
""",
            line=7,
        ),
        Invalid(
            """
def final_check(self, run):
    if run.scenario.hooks:
        super().final_check(run)
""",
            line=4,
            flow=(
                (3, "condition `run.scenario.hooks`"),
                (4, "check `super().final_check(...)` runs only then"),
            ),
        ),
        Invalid(
            """
def install(registry):
    registry.register_hook("before_dispatch", final_check)
""",
            line=3,
            flow=(
                (3, "hook registration `registry.register_hook(...)`"),
                (3, "check `final_check` registered as a hook"),
            ),
        ),
        # Registered inside a lambda, and bound by `partial`.
        Invalid(
            """
def install(bus, baseline):
    bus.register_hook("before_model_call", lambda request: final_check(request.tools, baseline))
""",
            line=3,
        ),
        Invalid(
            """
import functools

class Wiring:
    def install(self, bus, expected):
        register_hook(bus, "pre_send", functools.partial(check_parity, expected=expected))
""",
            line=6,
        ),
        # An early exit taken when no hooks are registered: the check below it runs only with hooks.
        Invalid(
            """
def recheck(request, expected, interceptors):
    if len(interceptors) == 0:
        raise StopIteration
    final_check(request.tools, expected)
""",
            line=5,
            flow=(
                (3, "early exit on `len(interceptors) == 0`"),
                (5, "check `final_check(...)` runs only past it"),
            ),
        ),
        Invalid(
            """
def on_before_dispatch(request):
    check_parity(request.tools, EXPECTED)
""",
            line=3,
            flow=(
                (2, "hook `on_before_dispatch`"),
                (3, "check `check_parity(...)` runs only in it"),
            ),
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (Mentions(names=config.check), about_hooks(config))

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports a check; a registration elsewhere can make the function that runs it a hook.
        return unit.mentions(names=(*config.check, *config.hook_registration))

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # a check it reports is called in the hook or the branch itself

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        # One finding per check, the first reason found for it kept: a condition, a hook, a registration.
        found: dict[int, Match] = {}
        for branch in tree.findall(tree.module, cst.If):
            if _about_hooks(tree, branch.test, config):
                for call in tree.calls_to(branch.body, config.check):
                    found.setdefault(
                        id(call),
                        Match(
                            call,
                            f"check {shown(call)} runs only then",
                            ((branch.test, f"condition {shown(branch.test)}"),),
                        ),
                    )
        for branch, rest in _early_exits(tree, config):
            for call in (call for statement in rest for call in tree.calls_to(statement, config.check)):
                found.setdefault(
                    id(call),
                    Match(
                        call,
                        f"check {shown(call)} runs only past it",
                        ((branch.test, f"early exit on {shown(branch.test)}"),),
                    ),
                )
        for hook in tree.hook_functions(config):
            for call in tree.calls_to(hook.body, config.check):
                found.setdefault(
                    id(call),
                    Match(call, f"check {shown(call)} runs only in it", ((hook.name, f"hook `{hook.name.value}`"),)),
                )
        for registration in tree.calls_to(tree.module, config.hook_registration):
            registered = ((registration, f"hook registration {shown(registration)}"),)
            for arg in registration.args:
                if named(dotted(arg.value), config.check):
                    label = f"check `{dotted(arg.value)}` registered as a hook"
                    found.setdefault(id(arg), Match(arg.value, label, registered))
                for check in _registered_checks(tree, arg.value, config):
                    found.setdefault(id(check), Match(check, f"check {shown(check)} registered as a hook", registered))
        yield from found.values()


def _about_hooks(tree: Tree, test: cst.BaseExpression, config: ScanConfig) -> bool:
    """Whether a test is about hooks: it names a hook word, or reads another module's property or
    function that says whether hooks are registered (`self.middleware.active`)."""
    if tree.mentions(test, config.hook_words):
        return True
    reads = tree.findall(test, cst.Attribute, cst.Name)
    return bool(config.hook_conditions) and any(named(dotted(read), config.hook_conditions) for read in reads)


def _early_exits(tree: Tree, config: ScanConfig) -> Iterator[tuple[cst.If, Sequence[cst.CSTNode]]]:
    """Each `if` about hooks whose body leaves the function (`if not hooks: return`), with the
    statements after it in its block: code there runs only on the other side of the condition."""
    for branch in tree.findall(tree.module, cst.If):
        if branch.orelse is not None or not _about_hooks(tree, branch.test, config):
            continue
        body = block(branch.body)
        if not body or not _leaves(body[-1]):
            continue
        around = tree.enclosing(branch, (cst.IndentedBlock, cst.Module))
        statements = list(around.body) if around is not None else []
        if branch in statements:
            yield branch, statements[statements.index(branch) + 1 :]


def _leaves(statement: cst.CSTNode) -> bool:
    """A `return` or `raise` statement."""
    return isinstance(statement, cst.SimpleStatementLine) and any(
        isinstance(small, cst.Return | cst.Raise) for small in statement.body
    )


def _registered_checks(tree: Tree, handed: cst.CSTNode, config: ScanConfig) -> list[cst.CSTNode]:
    """The checks a registration hands over other than by name: called in a lambda
    (`lambda request: final_check(...)`), or bound by `functools.partial(final_check, ...)`."""
    if isinstance(handed, cst.Lambda):
        return list(tree.calls_to(handed.body, config.check))
    if isinstance(handed, cst.Call) and named(dotted(handed.func), ("partial",)) and handed.args:
        bound = handed.args[0].value
        return [bound] if named(dotted(bound), config.check) else []
    return []
