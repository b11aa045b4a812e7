"""TS107 silent-truncation: the tool list is cut to fit instead of giving a capacity result."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from .._outline import Outline, Unit
from .._places import name_source
from .._rule import Invalid, Match, Needs, Place, Rule, Tree, about_tools, assigned, dotted, is_tools, shown
from .._types import ScanConfig


class SilentTruncation(Rule):
    """The tool list sliced, cut to N, or filled until the budget runs out: the model silently
    loses tools it was admitted."""

    id = "TS107"
    name = "silent-truncation"
    message = "return an explicit capacity result when the tools do not fit; never send a shortened list"
    valid = (
        """
tools = list(request.tools)
latest = messages[-4:]
reversed_tools = tools[::-1]
rotated = tools[2:] + tools[:2]
""",
        # Every tool kept, in another order; the cheapest messages, not tools.
        """
import heapq
ordered = heapq.nsmallest(len(tools), tools, key=cost)
recent = heapq.nlargest(5, messages, key=when)
""",
        """
for tool in tools:
    if not allowed(tool):
        raise CapacityExceeded(needed, budget)
    kept.append(tool)
""",
        # The first few tools named in a message, directly or through a local: nothing is dropped.
        """
import heapq

def fit(request, budget):
    log.debug("offering %s", "/".join(t.name for t in request.tools[:3]))
    largest = heapq.nlargest(2, request.tools, key=size)
    log.warning("over budget %d: %s", budget, [t.name for t in largest])
""",
    )
    invalid = (
        Invalid("request.tools = request.tools[:max_tools]\n", line=1),
        Invalid("del tools[limit:]\n", line=1),
        # A filtered copy of the tool list, cut: the tools past the limit are gone all the same.
        Invalid("kept = sorted([dict(t) for t in run.tools if t['name'] in allowed], key=rank)[:limit]\n", line=1),
        Invalid("kept = list(itertools.islice(tools, 8))\n", line=1),
        # The cheapest N, and those before the running total passes the budget.
        Invalid("import heapq\n\nrequest.tools = heapq.nsmallest(limit, request.tools, key=cost)\n", line=3),
        Invalid(
            """
from itertools import accumulate, takewhile

def fit(tool_list, budget):
    sizes = accumulate(size(t) for t in tool_list)
    return [tool for tool, total in takewhile(lambda pair: pair[1] <= budget, zip(tool_list, sizes))]
""",
            line=6,
        ),
        Invalid(
            """
import itertools

async def fit(tools, budget):
    pairs = zip(tools, itertools.accumulate(map(size, tools)))
    return [tool async for tool, _ in aiter_of(itertools.takewhile(lambda p: p[1] <= budget, pairs))]
""",
            line=6,
        ),
        Invalid(
            """
def fit(run, budget):
    kept = []
    for tool in run.tools:
        budget -= size(tool)
        if budget < 0:
            break
        kept.append(tool)
    run.tools = kept
""",
            line=4,
            flow=(
                (2, "parameter `run`"),
                (4, "filled until the budget runs out, the rest dropped"),
            ),
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (about_tools(config),)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A cut is a slice, a cutting call or a loop, of a tool list named in the function or the module.
        cuts = unit.has(ast.Slice, ast.For, ast.AsyncFor) or unit.mentions(words=tuple(_CUTTING))
        return cuts and unit.meets(self.needs(config))

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # nothing it finds depends on another function

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        rotations = {id(part) for joined in tree.findall(tree.module, cst.BinaryOperation) for part in _halves(joined)}
        for found in tree.findall(tree.module, cst.Subscript, cst.For, cst.Call):
            if isinstance(found, cst.Subscript) and (tools := _viewed(found.value, config)) is not None:
                if _cuts(found) and id(found) not in rotations and not _reported(tree, found):
                    yield Match(found, f"cut by {shown(found)}", _entered(tree, found, tools))
            elif isinstance(found, cst.Call) and (tools := _cut_by_call(tree, found, config)) is not None:
                if not _reported(tree, found):
                    yield Match(found, f"cut by {shown(found)}", _entered(tree, found, tools))
            elif isinstance(found, cst.For) and is_tools(found.iter, config) and _fills_until_full(tree, found):
                yield Match(
                    found, "filled until the budget runs out, the rest dropped", _entered(tree, found, found.iter)
                )


#: Calls that keep at most part of the iterable they are handed, by the position of that iterable:
#: the first N, the N smallest or largest, or those before the first that fails a test.
_CUTTING = {"islice": 0, "nsmallest": 1, "nlargest": 1, "takewhile": 1}
#: Calls that walk the iterable they are handed whole, item by item: cutting what they give cuts it.
_WALKING = frozenset({"zip", "enumerate", "sorted", "reversed", "list", "tuple", "iter"})


def _cut_by_call(tree: Tree, call: cst.Call, config: ScanConfig) -> cst.BaseExpression | None:
    """The tool list a cutting call keeps only part of (`islice(tools, 8)`, `heapq.nsmallest(k,
    tools, key=cost)`, `takewhile(fits, zip(tools, accumulate(sizes)))`), or None."""
    position = _CUTTING.get(dotted(call.func).rsplit(".", 1)[-1])
    positional = [arg.value for arg in call.args if arg.keyword is None and not arg.star]
    if position is None or len(positional) <= position:
        return None
    handed = positional[position]
    walked = [handed]
    held = handed
    if isinstance(handed, cst.Name) and not is_tools(handed, config):
        # `pairs = zip(tools, sizes)` first, then `takewhile(fits, pairs)`.
        bound = name_source(tree, call, handed, "")
        if bound and isinstance(bound[0][0], cst.Assign):
            held = bound[0][0].value
    if isinstance(held, cst.Call) and dotted(held.func).rsplit(".", 1)[-1] in _WALKING:
        walked += [arg.value for arg in held.args]
    tools = next((value for value in walked if is_tools(value, config)), None)
    if tools is None or any(_length_of(value, tools) for value in positional if value is not handed):
        return None  # `nsmallest(len(tools), tools, key=…)` keeps every tool, reordered
    return tools


def _viewed(value: cst.BaseExpression, config: ScanConfig) -> cst.BaseExpression | None:
    """The tool list `value` holds the tools of, one item per tool kept: the list itself, or a
    comprehension over it (`[copy.deepcopy(t) for t in tools if t["name"] in wanted]`) or a walk of
    it (`sorted(tools, key=cost)`): slicing either cuts the tools. None for anything else."""
    if is_tools(value, config):
        return value
    if isinstance(value, cst.ListComp | cst.GeneratorExp) and value.for_in.inner_for_in is None:
        return _viewed(value.for_in.iter, config)
    if isinstance(value, cst.Call) and dotted(value.func) in _WALKING and value.args:
        return _viewed(value.args[0].value, config)
    return None


#: Calls whose arguments end as text: a log line, a print, a joined or formatted string.
_TEXT = frozenset(
    {"debug", "info", "warning", "warn", "error", "exception", "critical", "log", "print", "join", "format"}
)


def _reported(tree: Tree, cut: cst.CSTNode) -> bool:
    """Whether what a cut keeps only ends up as text — an argument of a log call or of `str.join`,
    directly, through comprehensions over it, or through a local read only there: naming the first
    few tools in a message drops nothing from the request."""
    held = _through_comprehensions(tree, cut)
    if _in_text(tree, held):
        return True
    statement = tree.enclosing(held, cst.BaseSmallStatement)
    function = tree.enclosing(held, cst.FunctionDef)
    if not isinstance(statement, cst.Assign) or statement.value is not held or function is None:
        return False
    targets = [target for target in assigned(statement) if isinstance(target, cst.Name)]
    if len(targets) != len(statement.targets) or len(targets) != 1:
        return False
    uses = [
        name
        for name in tree.findall(function.body, cst.Name)
        if name.value == targets[0].value and name is not targets[0]
    ]
    return bool(uses) and all(_in_text(tree, _through_comprehensions(tree, use)) for use in uses)


def _through_comprehensions(tree: Tree, node: cst.CSTNode) -> cst.CSTNode:
    """The outermost comprehension that walks `node` (`[t.name for t in tools[:5]]`), else `node`."""
    while (walk := tree.enclosing(node, cst.CompFor)) is not None and walk.iter is node:
        node = tree.enclosing(walk, (cst.ListComp, cst.GeneratorExp, cst.SetComp))
    return node


def _in_text(tree: Tree, node: cst.CSTNode) -> bool:
    """Whether `node` is an argument of a call that makes text of it, at any depth of its statement."""
    call = tree.enclosing(node, cst.Call)
    while call is not None:
        callee = call.func.attr.value if isinstance(call.func, cst.Attribute) else dotted(call.func)
        if callee in _TEXT and not tree.within(node, call.func):
            return True
        call = tree.enclosing(call, cst.Call)
    return False


def _length_of(value: cst.BaseExpression, tools: cst.BaseExpression) -> bool:
    """Whether `value` is `len(tools)`."""
    return (
        isinstance(value, cst.Call)
        and dotted(value.func) == "len"
        and len(value.args) == 1
        and dotted(value.args[0].value) == dotted(tools) != ""
    )


def _entered(tree: Tree, at: cst.CSTNode, tools: cst.BaseExpression) -> tuple[Place, ...]:
    """Where the cut tool list entered: the parameter or assignment that holds it (`request` of
    `request.tools`); nothing when it is not bound in the same scope."""
    return name_source(tree, at, tools, "tool list")


def _halves(joined: cst.CSTNode) -> tuple[cst.CSTNode, ...]:
    """`tools[k:] + tools[:k]`: two slices of one list put back together reorder it, they cut nothing."""
    assert isinstance(joined, cst.BinaryOperation)
    if not isinstance(joined.operator, cst.Add):
        return ()
    left, right = joined.left, joined.right
    if (
        isinstance(left, cst.Subscript)
        and isinstance(right, cst.Subscript)
        and dotted(left.value) == dotted(right.value)
    ):
        return (left, right)
    return ()


def _cuts(subscript: cst.Subscript) -> bool:
    """`[:n]` or `[k:]`: a bound on either side (a bare step, `[::-1]`, only reorders)."""
    return any(isinstance(e.slice, cst.Slice) and (e.slice.lower or e.slice.upper) for e in subscript.slice)


def _fills_until_full(tree: Tree, loop: cst.For) -> bool:
    """A loop over the tools that appends the loop variable somewhere and can `break` early, on
    something other than a count (`if len(kept) >= n: break` is a count cap: TS113's)."""
    variable = dotted(loop.target)
    appends = any(
        dotted(call.func).endswith(".append") and call.args and dotted(call.args[0].value) == variable
        for call in tree.calls(loop.body)
    )
    return appends and any(not _counted(tree, stop) for stop in tree.findall(loop.body, cst.Break))


def _counted(tree: Tree, stop: cst.Break) -> bool:
    """Whether a `break` runs under a test that counts (`len(...)`)."""
    test = tree.enclosing(stop, cst.If)
    return test is not None and any(dotted(call.func) == "len" for call in tree.calls(test.test))
