"""TS104 shared-baseline: the baseline shares objects with the request it will be compared with."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cmp_to_key

import libcst as cst

from .._module import callee_name, trace_all
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
    assigned,
    canonical,
    dotted,
    imports,
    is_tools,
    named,
    shown,
)
from .._trace import Kept
from .._types import ScanConfig
from .._values import SELF, SHALLOW_COPIES, parameters

#: Calls that copy only the outer container (read through the module's imports): every nested
#: schema dict stays shared.
_SHALLOW = SHALLOW_COPIES | {"replace"}


class SharedBaseline(Rule):
    """A baseline that is the admitted list itself or a shallow copy of it: an in-place edit of a
    nested input schema changes both sides of the comparison, and the check sees nothing."""

    id = "TS104"
    name = "shared-baseline"
    message = "take the baseline as an immutable snapshot (serialized bytes or a deep copy) before any hook runs"
    valid = (
        # A baseline read back from where it was kept is not the admitted list (TS103 judges where it came from).
        """
def check(request):
    baseline = request.expected_tools
    return list(request.expected_surface)
""",
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
        """
import copy as cp

def _names(tools):
    return [tool["name"] for tool in tools]

def _frozen(tools):
    return cp.deepcopy(tools)

async def admit(run, settings):
    expected = list(map(cp.deepcopy, run.tools))
    expected = _frozen(run.tools)
    expected = _names(run.tools)
    baseline = cp.copy(settings)
""",
        "def take_baselines(surface):\n    baseline = surface.model_copy(deep=True)\n    return baseline\n",
        # A baseline taken from the request's seal is self-derived: TS103 reports it, not this rule.
        "def seal_and_send(gateway, request):\n    sealed = seal(request)\n    expected = sealed.tools\n",
    )
    invalid = (
        Invalid(
            "baseline = list(request.tools)\n",
            line=1,
            flow=((1, "tool list `request.tools`"), (1, "baseline `baseline` shares it")),
        ),
        Invalid("expected = [dict(tool) for tool in tools]\n", line=1),
        Invalid("self.baseline = request.tools[:]\n", line=1),
        Invalid("baseline = [tool.copy() for tool in admitted_tools]\n", line=1),
        Invalid("expected_tools = tools\n", line=1),
        Invalid("import copy as cp\n\ndef admit(tools):\n    baseline = cp.copy(tools)\n", line=4),
        Invalid(
            "from copy import copy\n\nasync def admit(run):\n    expected = [copy(tool) for tool in run.tools]\n",
            line=4,
        ),
        Invalid("expected = list(map(dict, request.tools))\n", line=1),
        # A model that holds the tool list, copied shallow: the copy's list is the request's.
        Invalid("def take_baselines(surface):\n    baseline = surface.model_copy()\n    return baseline\n", line=2),
        Invalid("expected = (*map(lambda tool: tool.copy(), admitted_tools),)\n", line=1),
        Invalid(
            """
class Admission:
    def _surface_of(self, tools):
        return [{**tool} for tool in tools]

    def admit(self, run):
        self.expected = self._surface_of(tools=run.tools)
""",
            line=7,
            flow=((7, "tool list `run.tools`"), (7, "baseline `self.expected` shares it")),
        ),
        Invalid(
            """
class Run:
    def _current(self):
        return [tool.model_copy() for tool in self.tools]

    def admit(self):
        self.baseline = self._current()
""",
            line=7,
        ),
        Invalid(
            """
def expected_surface(tools):
    return list(tools)

async def admit(run):
    expected = expected_surface(run.tools)
""",
            line=3,
            flow=((2, "parameter `tools`"), (3, "returned as the baseline, shared")),
        ),
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

    def needs(self, config: ScanConfig) -> Needs:
        # A baseline (named whole, or a function with the word in its name), and what it shares:
        # the tool list, or a tool or schema that a helper hands back from the instance.
        return (
            Mentions(words=("baseline",), names=config.baseline),
            Mentions(words=(*config.tool_words, "admitted", *config.schema_keys), endings=config.schema_words),
        )

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # It reports a baseline function's return or an assignment to a baseline; what they call
        # is reached by name.
        baseline = "baseline" in unit.name.lower().split("_") or named(unit.name, config.baseline)
        return baseline or bool(unit.assigned & {name.rsplit(".", 1)[-1] for name in config.baseline})

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        copies = _Copies(tree, config)
        found: list[Match] = []
        for function in tree.functions():
            name = function.name.value
            if "baseline" in name.lower().split("_") or named(name, config.baseline):
                for returned in tree.findall(function.body, cst.Return):
                    if returned.value is not None and copies.shares(returned.value):
                        shared = _shared(tree, returned, returned.value, config)
                        found.append(Match(returned, "returned as the baseline, shared", shared))
                        # Reported where it makes the baseline: its callers are not reported again.
                        copies.reported.add(name)
        for assign in tree.findall(tree.module, cst.Assign, cst.AnnAssign):
            baselines = [dotted(target) for target in assigned(assign) if named(dotted(target), config.baseline)]
            if baselines and assign.value is not None and copies.shares(assign.value):
                found.append(
                    Match(assign, f"baseline `{baselines[0]}` shares it", _shared(tree, assign, assign.value, config))
                )

        def order(first: Match, second: Match) -> int:
            return -1 if tree.precedes(first.node, second.node) else 1

        yield from sorted(found, key=cmp_to_key(order))


def _shared(tree: Tree, at: cst.CSTNode, value: cst.BaseExpression, config: ScanConfig) -> tuple[Place, ...]:
    """The tool list the baseline shares: where a plain name got it, else the expression itself."""
    # A call's arguments, not its callee: `expected_surface(tools)` names a function, not a list.
    found = [arg.value for arg in value.args] if isinstance(value, cst.Call) and _own_helper(tree, value) else [value]
    for node in (each for expression in found for each in tree.findall(expression, cst.Attribute, cst.Name)):
        if _tool_list(node, config):
            entered = name_source(tree, at, node, "tool list") if isinstance(node, cst.Name) else ()
            return entered or ((node, f"tool list {shown(node)}"),)
    return ()


def _own_helper(tree: Tree, call: cst.Call) -> bool:
    name = callee_name(call)
    return bool(name) and any(function.name.value == name for function in tree.functions())


class _Copies:
    """What shares the tool list in one module: the list itself, a shallow copy of it in any
    spelling, or what a function of the module returns when handed either."""

    def __init__(self, tree: Tree, config: ScanConfig) -> None:
        self.config = config
        self.names = imports(tree)
        self.tree = tree
        self._returning: dict[str, tuple[list[str], frozenset[str]]] | None = None
        #: Functions that return a baseline reported at their own return.
        self.reported: set[str] = set()

    def shares(self, value: cst.BaseExpression) -> bool:
        """Whether `value` hands out objects the request still holds."""
        if isinstance(value, cst.Name | cst.Attribute):
            return _tool_list(value, self.config)
        if self.shallow_copy(value):
            return True
        if not isinstance(value, cst.Call) or named(dotted(value.func), self.config.snapshot):
            return False
        # A wrapper that makes no snapshot still hands on the shallow copy it was given.
        return any(self.shallow_copy(arg.value) for arg in value.args) or self.returned_by_helper(value)

    def holds_tools(self, value: cst.BaseExpression) -> bool:
        return _tool_list(value, self.config) or self.shallow_copy(value)

    def shallow_copy(self, value: cst.BaseExpression) -> bool:
        """A copy of the tool list's outer container: `list(tools)`, `tools.copy()`, `tools[:]`,
        `copy.copy(tools)`, `list(map(dict, tools))`, `[*tools]`…"""
        if isinstance(value, cst.Call):
            callee = canonical(value.func, self.names)
            first = value.args[0].value if value.args else None
            if callee == "map" and len(value.args) == 2:
                return self.copies_each(value.args[0].value) and self.holds_tools(value.args[1].value)
            if _copying(callee):
                return first is not None and self.holds_tools(first)
            if isinstance(value.func, cst.Attribute) and value.func.attr.value in {"copy", "model_copy"}:
                # `tools.copy()`, or a model that holds the tools copied without `deep=True`.
                return not _deep(value) and _tool_list(value.func.value, self.config)
            return False
        if isinstance(value, cst.Subscript):
            whole = any(
                isinstance(e.slice, cst.Slice) and e.slice.lower is None and e.slice.upper is None for e in value.slice
            )
            return whole and _tool_list(value.value, self.config)
        if isinstance(value, cst.List | cst.Tuple | cst.Set):
            # `[*tools]`, `(*map(dict, tools),)`: a new outer container around the same tools.
            return any(isinstance(e, cst.StarredElement) and self.holds_tools(e.value) for e in value.elements)
        if isinstance(value, cst.ListComp | cst.GeneratorExp | cst.SetComp):
            # `[t for t in tools]`, `[dict(t) for t in tools]`, `[{**t} for t in tools]`: new outer objects only.
            element, variable = value.elt, dotted(value.for_in.target)
            same = isinstance(element, cst.Name) and dotted(element) == variable
            per_tool = isinstance(element, cst.Dict) or self.copy_of_one(element)
            return (same or per_tool) and self.holds_tools(value.for_in.iter)
        return False

    def copy_of_one(self, element: cst.BaseExpression) -> bool:
        """`dict(t)`, `copy(t)`, `t.copy()`, `t.model_copy()`: one tool copied, its schema still shared."""
        if not isinstance(element, cst.Call):
            return False
        if isinstance(element.func, cst.Attribute) and element.func.attr.value in {"copy", "model_copy"}:
            return not _deep(element)
        return _copying(canonical(element.func, self.names))

    def copies_each(self, function: cst.BaseExpression) -> bool:
        """The function `map` applies: `dict`, `copy.copy`, or `lambda t: dict(t)`."""
        if isinstance(function, cst.Lambda):
            body, params = function.body, {param.name.value for param in function.params.params}
            handed = isinstance(body, cst.Name) and body.value in params
            return handed or (self.copy_of_one(body) and isinstance(body, cst.Call) and _first_name(body) in params)
        return _copying(canonical(function, self.names))

    def returned_by_helper(self, call: cst.Call) -> bool:
        """`expected_surface(tools)` where the module's `expected_surface` returns what it is handed,
        or a shallow copy of it; `self.current_tools()` where it returns the instance's tool list."""
        if self._returning is None:
            self._returning = _returning(self.tree, self.config)
        target = callee_name(call)
        elsewhere = next((found for found in self.config.returners if named(dotted(call.func), (found[0],))), None)
        if elsewhere is not None:  # another module's function (`ScanConfig.returners`)
            names, returned = list(elsewhere[1]), frozenset(elsewhere[2])
        elif target not in self._returning or target in self.reported:
            return False
        else:
            names, returned = self._returning[target]
        if _INSTANCE in returned and dotted(call.func).split(".", 1)[0] in SELF:
            return True
        offset = 1 if names and names[0] in SELF else 0
        for position, arg in enumerate(call.args):
            if arg.star:
                continue
            index = position + offset
            name = arg.keyword.value if arg.keyword is not None else names[index] if index < len(names) else ""
            if name in returned and self.holds_tools(arg.value):
                return True
        return False


def _returning(tree: Tree, config: ScanConfig) -> dict[str, tuple[list[str], frozenset[str]]]:
    """Function name → its parameter names, and those whose value (or a shallow copy of it) the
    function itself returns, `_INSTANCE` for a tool list of `self`; a deep copy is not tracked, so it
    returns nothing of them."""
    return {function.name.value: (names, returned) for function, names, returned in returners(tree, config)}


def returners(tree: Tree, config: ScanConfig) -> Iterator[tuple[cst.FunctionDef, list[str], frozenset[str]]]:
    """Each function with its parameter names, and those whose value (or a shallow copy of it) it
    returns (see `_returning`)."""
    for function, events in trace_all(tree, config):
        values = [
            event.value
            for event in events
            if isinstance(event, Kept)
            and event.place == "return"
            and tree.enclosing(event.node, cst.FunctionDef) is function
        ]
        returned = {name for value in values for name in value.origin}
        if any(value.tooling and any(_on_instance(source) for source in value.sources) for value in values):
            returned.add(_INSTANCE)
        yield function, [param.name.value for param in parameters(function)], frozenset(returned)


#: What `_returning` names a tool list of the instance by: no parameter is called so.
_INSTANCE = "self.<tools>"


def _on_instance(source: cst.CSTNode) -> bool:
    return isinstance(source, cst.Attribute) and dotted(source).split(".", 1)[0] in SELF


def _deep(call: cst.Call) -> bool:
    """Whether a `copy()`/`model_copy()` call asks for a deep copy: anything but `deep=False` left out."""
    keywords = {arg.keyword.value: dotted(arg.value) for arg in call.args if arg.keyword is not None}
    return keywords.get("deep", "False") != "False"


def _first_name(call: cst.Call) -> str:
    """What a one-tool copy copies: `t` of `dict(t)` and of `t.copy()`."""
    if isinstance(call.func, cst.Attribute) and call.func.attr.value in {"copy", "model_copy"}:
        return dotted(call.func.value)
    return dotted(call.args[0].value) if call.args else ""


def _copying(callee: str) -> bool:
    return callee in _SHALLOW or "shallow" in callee.rsplit(".", 1)[-1]


def _tool_list(value: cst.BaseExpression, config: ScanConfig) -> bool:
    """The admitted list: a tool-list name, but not one of the baseline's own names, nor one read
    from the seal (`request.expected_tools` is a baseline read back, `sealed.tools` the request's
    own record: TS103's to judge)."""
    name = dotted(value)
    parts = re.split(r"[._]", name.lower())
    sealed = any(word in parts for word in config.seal_words)
    return (
        is_tools(value, config) and name.rsplit(".", 1)[-1] not in config.baseline and not sealed
    ) or "admitted" in parts
