"""TS104 shared-baseline: the baseline shares objects with the request it will be compared with."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Rule, Tree, dotted, is_tools, named
from .._types import ScanConfig

#: Calls that copy only the outer container: every nested schema dict stays shared.
_SHALLOW = ("list", "tuple", "copy.copy", "dict", "replace", "dataclasses.replace")


class SharedBaseline(Rule):
    """A baseline that is the admitted list itself or a shallow copy of it: an in-place edit of a
    nested input schema changes both sides of the comparison, and the check sees nothing."""

    id = "TS104"
    name = "shared-baseline"
    message = "take the baseline as an immutable snapshot (serialized bytes or a deep copy) before any hook runs"
    valid = (
        """
baseline = capture(tools)
expected = copy.deepcopy(request.tools)
""",
        """
def take_baseline(self, run):
    baseline = _admitted(run.scenario.contract)
    return lambda: baseline
""",
    )
    invalid = (
        Invalid("baseline = list(request.tools)\n", line=1),
        Invalid("expected = [dict(tool) for tool in tools]\n", line=1),
        Invalid("self.baseline = request.tools[:]\n", line=1),
        Invalid("expected_tools = tools\n", line=1),
        Invalid(
            """
def take_baseline(self, run):
    return recapture(list(run.tools), run)
""",
            line=3,
        ),
    )

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return (config.baseline,)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[cst.CSTNode]:
        for assign in tree.findall(tree.module, cst.Assign, cst.AnnAssign):
            targets = [t.target for t in assign.targets] if isinstance(assign, cst.Assign) else [assign.target]
            baseline = any(named(dotted(target), config.baseline) for target in targets)
            if baseline and assign.value is not None and _shares(assign.value, config):
                yield assign
        for function in tree.functions():
            if "baseline" in function.name.value:
                for returned in tree.findall(function.body, cst.Return):
                    if returned.value is not None and _shares(returned.value, config):
                        yield returned


def _shares(value: cst.BaseExpression, config: ScanConfig) -> bool:
    """Whether `value` hands out objects the request still holds."""
    if isinstance(value, cst.Name | cst.Attribute):
        return is_tools(value, config) or "admitted" in dotted(value)
    if _shallow_copy(value):
        return True
    # A wrapper that makes no snapshot still hands on the shallow copy it was given.
    return (
        isinstance(value, cst.Call)
        and not named(dotted(value.func), config.snapshot)
        and any(_shallow_copy(arg.value) for arg in value.args)
    )


def _shallow_copy(value: cst.BaseExpression) -> bool:
    if isinstance(value, cst.Call):
        callee = dotted(value.func)
        return named(callee, _SHALLOW) or callee.endswith(".copy") or "shallow" in callee
    if isinstance(value, cst.Subscript):
        return any(
            isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None for e in value.slice
        )
    if isinstance(value, cst.ListComp | cst.GeneratorExp):
        # `[t for t in tools]`, `[dict(t) for t in tools]`, `[{**t} for t in tools]`: new outer objects only.
        element = value.elt
        same = isinstance(element, cst.Name) and dotted(element) == dotted(value.for_in.target)
        return same or isinstance(element, cst.Dict) or _shallow_copy(element)
    return False
