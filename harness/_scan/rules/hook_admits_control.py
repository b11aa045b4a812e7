"""TS108 hook-admits-control: a hook adds a control tool only the host/fitting entry may admit."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._rule import Invalid, Match, Rule, Tree, dotted, shown
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
            flow=(
                (2, "hook `before_dispatch_hook`"),
                (3, "control tool added by `request.tools.append(...)`"),
            ),
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

    def needs(self, config: ScanConfig) -> tuple[tuple[str, ...], ...]:
        return ((*config.hook_words, *config.hook_registration), config.controls)

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        controls = {name.lower() for name in config.controls}

        def names_control(node: cst.CSTNode) -> bool:
            said = {name.lower() for name in tree.identifiers(node)} | {s.lower() for s in tree.strings(node)}
            return bool(controls & said)

        for hook in tree.hook_functions(config):
            source = ((hook.name, f"hook `{hook.name.value}`"),)
            for call in tree.calls(hook.body):
                if dotted(call.func).endswith(_ADDS) and names_control(call):
                    yield Match(call, f"control tool added by {shown(call)}", source)
            for operation in tree.findall(hook.body, cst.BinaryOperation, cst.AugAssign):
                adds = isinstance(operation, cst.AugAssign) or isinstance(operation.operator, cst.Add)
                if adds and names_control(operation):
                    yield Match(operation, f"control tool added by {shown(operation)}", source)
