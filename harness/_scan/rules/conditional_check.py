"""TS102 conditional-check: the parity check runs only when hooks are registered."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Rule, Tree, dotted, named
from .._types import ScanConfig


class ConditionalCheck(Rule):
    """A check under a condition about hooks or callbacks, inside a hook, or registered as one:
    the path without hooks sends the request unchecked."""

    id = "TS102"
    name = "conditional-check"
    message = "run the parity check on every path, hooks or not, not inside or under a hook"
    valid = (
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
    )
    invalid = (
        Invalid(
            """
def final_check(self, run):
    if run.scenario.hooks:
        super().final_check(run)
""",
            line=4,
        ),
        Invalid(
            """
def install(registry):
    registry.register_hook("before_dispatch", final_check)
""",
            line=3,
        ),
        Invalid(
            """
def on_before_dispatch(request):
    check_parity(request.tools, EXPECTED)
""",
            line=3,
        ),
    )

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return (config.check, (*config.hook_words, *config.hook_registration))

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[cst.CSTNode]:
        found: dict[int, cst.CSTNode] = {}
        for branch in tree.findall(tree.module, cst.If):
            if tree.mentions(branch.test, config.hook_words):
                found.update((id(call), call) for call in tree.calls_to(branch.body, config.check))
        for hook in tree.hook_functions(config):
            found.update((id(call), call) for call in tree.calls_to(hook.body, config.check))
        for registration in tree.calls_to(tree.module, config.hook_registration):
            found.update((id(arg), arg.value) for arg in registration.args if named(dotted(arg.value), config.check))
        yield from found.values()
