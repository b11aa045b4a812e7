"""TS108 hook-admits-control: a hook adds a control tool only the host/fitting entry may admit."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst
import libcst.matchers as m

from .._rule import Invalid, Rule, calls, dotted, hook_functions, identifiers
from .._types import ScanConfig

#: List operations that put a tool into a tool list.
_ADDS = (".append", ".insert", ".extend")


class HookAdmitsControl(Rule):
    """A hook that puts a control tool such as `read_tool_result` into the request: eligibility is
    the host/fitting entry's decision, and it belongs in the baseline, not in a hook."""

    id = "TS108"
    name = "hook-admits-control"
    message = "let the host/fitting entry make the control eligible before the baseline is taken; hooks never add tools"
    valid = (
        """
def fitting_entry(request, truncated):
    if truncated:
        request.tools.append(build("read_tool_result"))
""",
        """
def annotate_hook(request):
    request.metadata["trace"] = TRACE_ID
""",
    )
    invalid = (
        Invalid(
            """
def before_dispatch_hook(request):
    request.tools.append(build("read_tool_result"))
""",
            line=3,
        ),
        Invalid(
            """
@register_hook("before_dispatch")
def add_reader(request):
    request.tools = request.tools + [READ_TOOL_RESULT]
""",
            line=4,
        ),
    )

    def matches(self, module: cst.Module, config: ScanConfig) -> Iterator[cst.CSTNode]:
        controls = {name.lower() for name in config.controls}
        for hook in hook_functions(module, config):
            for call in calls(hook.body):
                if dotted(call.func).endswith(_ADDS) and _names_control(call, controls):
                    yield call
            for operation in m.findall(hook.body, m.BinaryOperation(operator=m.Add()) | m.AugAssign()):
                if _names_control(operation, controls):
                    yield operation


def _names_control(node: cst.CSTNode, controls: set[str]) -> bool:
    strings = {s.evaluated_value for s in m.findall(node, m.SimpleString()) if isinstance(s, cst.SimpleString)}
    names = {name.lower() for name in identifiers(node)}
    return bool(controls & (names | {str(s).lower() for s in strings}))
