"""TS108 hook-admits-control: a hook adds a control tool only the host/fitting entry may admit."""

from __future__ import annotations

from collections.abc import Iterable, Iterator

import libcst as cst

from .._outline import Outline, Unit
from .._rule import Invalid, Match, Needs, Rule, Tree, about_hooks, imports, is_tools, shown
from .._types import ScanConfig

#: List operations that put a tool into a tool list.
_ADDS = frozenset({"append", "insert", "extend"})


class HookAdmitsControl(Rule):
    """A hook that puts a control tool such as `read_tool_result` into the request: eligibility is
    the host/fitting entry's decision, and it belongs in the baseline, not in a hook."""

    id = "TS108"
    name = "hook-admits-control"
    message = "let the host/fitting entry make the control eligible before the baseline is taken; hooks never add tools"
    module_level = False  # it reports in hooks; the module's holders of controls, it reads by name
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
        # The hook looks the control up and adds another tool: only what it adds counts.
        """
READER = {"name": "read_tool_result"}

def notes_hook(request):
    if any(t["name"] == READER["name"] for t in request.tools):
        request.tools.append(NOTES_TOOL)
""",
        # The control goes into a list of registrations, not into the tools.
        """
from host.controls import read_tool_result as pager

def pager_hook(chain, request):
    handles = []
    handles.append(chain.attach(pager))
    request.metadata["handles"] = handles
""",
    )
    invalid = (
        # The tool list rebuilt with the control tool after it.
        Invalid(
            """
def before_hook(request):
    request.tools = [*request.tools, CONTROLS["read_tool_result"]]
""",
            line=3,
        ),
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
        # The control is held by a module constant, then by a local built from it.
        Invalid(
            """
READER_NAME = "read_tool_result"
READER: dict = {"name": READER_NAME, "input_schema": {"type": "object"}}

def widen_hook(request):
    extra = dict(READER)
    if request.truncated:
        request.tools.insert(0, extra)
""",
            line=8,
        ),
        Invalid(
            """
class Widening:
    def before_model_hook(self, request):
        reader = make_tool("read_tool_result")
        request.tools += [reader]
""",
            line=5,
        ),
        # The control is imported under a name of the module's own.
        Invalid(
            """
from host.controls import read_tool_result as pager

class Paging:
    def before_model_hook(self, request):
        if request.truncated:
            request.tools.insert(len(request.tools), pager)
""",
            line=7,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (about_hooks(config), config.controls)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports in a hook; a registration elsewhere makes a function or a class's methods hooks.
        hook = outline.hooks(unit, config) and unit.mentions(config.controls)
        return hook or unit.mentions(names=config.hook_registration)

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # a control it reports is added in the hook itself

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        controls = {name.lower() for name in config.controls}
        module_holders = _holders(tree, _module_assignments(tree.module), controls, _imported(tree, controls))

        for hook in tree.hook_functions(config):
            holders = _holders(tree, tree.findall(hook.body, cst.Assign, cst.AnnAssign), controls, module_holders)

            def names_control(node: cst.CSTNode, holders: frozenset[str] = holders) -> bool:
                return _names_control(tree, node, controls, holders)

            source = ((hook.name, f"hook `{hook.name.value}`"),)
            for call in tree.calls(hook.body):
                if _adds_to_tools(call, config) and names_control(call):
                    yield Match(call, f"control tool added by {shown(call)}", source)
            for operation in tree.findall(hook.body, cst.BinaryOperation, cst.AugAssign):
                adds = isinstance(operation, cst.AugAssign) or isinstance(operation.operator, cst.Add)
                if adds and names_control(operation):
                    yield Match(operation, f"control tool added by {shown(operation)}", source)
            # The list rebuilt around the tools: `[*request.tools, control]`.
            for literal in tree.findall(hook.body, cst.List, cst.Tuple):
                elements = literal.elements
                spread = any(isinstance(e, cst.StarredElement) and is_tools(e.value, config) for e in elements)
                if spread and any(not isinstance(e, cst.StarredElement) and names_control(e.value) for e in elements):
                    yield Match(literal, f"control tool added by {shown(literal)}", source)


def _adds_to_tools(call: cst.Call, config: ScanConfig) -> bool:
    """Whether the call puts something into a tool list (`request.tools.insert(0, …)`); a list of
    something else (`undo.append(register(…))`) holds no tools, whatever its items mention."""
    func = call.func
    return isinstance(func, cst.Attribute) and func.attr.value in _ADDS and is_tools(func.value, config)


def _names_control(tree: Tree, node: cst.CSTNode, controls: set[str], holders: frozenset[str]) -> bool:
    """Whether `node` names a control tool: by its name, or through a name that holds one."""
    identifiers = set(tree.identifiers(node))
    said = {name.lower() for name in identifiers} | {s.lower() for s in tree.strings(node)}
    return bool(controls & said or holders & identifiers)


def _imported(tree: Tree, controls: set[str]) -> frozenset[str]:
    """The names a control is imported under: `from tools import fetch_artifact as artifact_tool`."""
    return frozenset(local for local, full in imports(tree).items() if full.rsplit(".", 1)[-1].lower() in controls)


def _module_assignments(module: cst.Module) -> list[cst.Assign | cst.AnnAssign]:
    return [
        small
        for statement in module.body
        if isinstance(statement, cst.SimpleStatementLine)
        for small in statement.body
        if isinstance(small, cst.Assign | cst.AnnAssign)
    ]


def _holders(
    tree: Tree, assignments: Iterable[cst.CSTNode], controls: set[str], known: frozenset[str]
) -> frozenset[str]:
    """The names these assignments give a control tool (`READER = {"name": "read_tool_result", ...}`,
    `reader = build(READER_NAME)`), besides those `known` already; followed until nothing more is
    learnt, so a name assigned from another holder holds one too."""
    bound: list[tuple[str, cst.CSTNode]] = []
    for assignment in assignments:
        if isinstance(assignment, cst.Assign) and assignment.value is not None:
            bound += [
                (target.target.value, assignment.value)
                for target in assignment.targets
                if isinstance(target.target, cst.Name)
            ]
        elif (
            isinstance(assignment, cst.AnnAssign)
            and assignment.value is not None
            and isinstance(assignment.target, cst.Name)
        ):
            bound.append((assignment.target.value, assignment.value))
    holders = set(known)
    grew = True
    while grew:
        grew = False
        for name, value in bound:
            if name not in holders and _names_control(tree, value, controls, frozenset(holders)):
                holders.add(name)
                grew = True
    return frozenset(holders)
