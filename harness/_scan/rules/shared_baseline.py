"""TS104 shared-baseline: the baseline shares objects with the request it will be compared with."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._places import name_source
from .._rule import Invalid, Match, Place, Rule, Tree, assigned, dotted, is_tools, named, shown
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
expected = list(zip(seq, seq[1:]))
expected = dict(name="x", tools=3)
""",
        """
def take_baseline(self, run):
    baseline = _admitted(run.scenario.contract)
    return lambda: baseline
""",
    )
    invalid = (
        Invalid("baseline = list(request.tools)\n", line=1, flow=((1, "tool list `request.tools`"), (1, "baseline `baseline` shares it"))),
        Invalid("expected = [dict(tool) for tool in tools]\n", line=1),
        Invalid("self.baseline = request.tools[:]\n", line=1),
        Invalid("baseline = [tool.copy() for tool in admitted_tools]\n", line=1),
        Invalid("expected_tools = tools\n", line=1),
        Invalid(
            """
def take_baseline(self, run):
    return recapture(list(run.tools), run)
""",
            line=3,
            flow=(
                (3, "tool list `run.tools`"),
                (3, "returned as the baseline, shared"),
            ),
        ),
    )

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return (config.baseline,)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        for assign in tree.findall(tree.module, cst.Assign, cst.AnnAssign):
            baselines = [dotted(target) for target in assigned(assign) if named(dotted(target), config.baseline)]
            if baselines and assign.value is not None and _shares(assign.value, config):
                yield Match(assign, f"baseline `{baselines[0]}` shares it", _shared(tree, assign, assign.value, config))
        for function in tree.functions():
            if "baseline" in function.name.value:
                for returned in tree.findall(function.body, cst.Return):
                    if returned.value is not None and _shares(returned.value, config):
                        yield Match(returned, "returned as the baseline, shared", _shared(tree, returned, returned.value, config))


def _shared(tree: Tree, at: cst.CSTNode, value: cst.BaseExpression, config: ScanConfig) -> tuple[Place, ...]:
    """The tool list the baseline shares: where a plain name got it, else the expression itself."""
    for node in tree.findall(value, cst.Attribute, cst.Name):
        if _tool_list(node, config):
            entered = name_source(tree, at, node, "tool list") if isinstance(node, cst.Name) else ()
            return entered or ((node, f"tool list {shown(node)}"),)
    return ()


def _shares(value: cst.BaseExpression, config: ScanConfig) -> bool:
    """Whether `value` hands out objects the request still holds."""
    if isinstance(value, cst.Name | cst.Attribute):
        return is_tools(value, config) or "admitted" in dotted(value)
    if _shallow_copy(value, config):
        return True
    # A wrapper that makes no snapshot still hands on the shallow copy it was given.
    return (
        isinstance(value, cst.Call)
        and not named(dotted(value.func), config.snapshot)
        and any(_shallow_copy(arg.value, config) for arg in value.args)
    )


def _shallow_copy(value: cst.BaseExpression, config: ScanConfig) -> bool:
    """A copy of the tool list's outer container: `list(tools)`, `tools.copy()`, `tools[:]`…"""
    if isinstance(value, cst.Call):
        callee = dotted(value.func)
        if callee.endswith(".copy"):
            return _tool_list(value.func.value, config)  # type: ignore[attr-defined]
        copies = named(callee, _SHALLOW) or "shallow" in callee
        return copies and bool(value.args) and _tool_list(value.args[0].value, config)
    if isinstance(value, cst.Subscript):
        whole = any(isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None for e in value.slice)
        return whole and _tool_list(value.value, config)
    if isinstance(value, cst.ListComp | cst.GeneratorExp):
        # `[t for t in tools]`, `[dict(t) for t in tools]`, `[{**t} for t in tools]`: new outer objects only.
        element, variable = value.elt, dotted(value.for_in.target)
        same = isinstance(element, cst.Name) and dotted(element) == variable
        per_tool = isinstance(element, cst.Dict) or (
            isinstance(element, cst.Call)
            and (named(dotted(element.func), _SHALLOW) or dotted(element.func).endswith(".copy"))
        )
        return (same or per_tool) and _tool_list(value.for_in.iter, config)
    return False


def _tool_list(value: cst.BaseExpression, config: ScanConfig) -> bool:
    return is_tools(value, config) or "admitted" in dotted(value)
