"""TS113 count-capped-selection: tools are dropped once a count or a budget is reached."""

from __future__ import annotations

import ast
from collections.abc import Iterator

import libcst as cst

from .._cfg import block
from .._outline import Outline, Unit
from .._places import name_source
from .._rule import Invalid, Match, Needs, Place, Rule, Tree, about_tools, dotted, is_tools, shown
from .._types import ScanConfig
from .silent_truncation import _fills_until_full

_ADDS = ("append", "add", "extend", "insert")
_DROPS = ("pop", "remove")
#: Calls that copy, reorder or filter the list they are given.
_VIEWS = frozenset({"sorted", "reversed", "list", "tuple", "filter", "copy.copy", "copy"})
#: Words of a name that holds what is left to spend.
_BUDGET = ("budget", "remaining", "capacity")


class CountCappedSelection(Rule):
    """A selection of tools capped by counting: `if len(kept) < max_tools: kept.append(t)`,
    `while len(tools) > n: tools.pop()`, `if i >= n: break` over `enumerate(tools)`, or a budget that
    skips the tools that do not fit. Tools past the cap vanish without a capacity result.

    TS107 reports the slices (`tools[:n]`, `islice`) and the fill-until-break loops; this rule
    reports the counted caps and leaves a loop TS107 already reports alone.
    """

    id = "TS113"
    name = "count-capped-selection"
    message = (
        "when more tools qualify than the cap allows, return an explicit capacity result instead of dropping the rest"
    )
    valid = (
        # Popped down to a count, but messages: not a view of the tools.
        """
def trim(messages, tools, limit):
    recent = sorted(messages, key=when)
    while len(recent) > limit:
        recent.pop(0)
    return recent, tools
""",
        """
def select(names, max_tools):
    selected = []
    for name in names:
        if name not in selected:
            selected.append(name)
    if max_tools is not None and len(selected) > max_tools:
        raise CapacityExceeded(len(selected), max_tools)
    return selected
""",
        """
def recent(messages, limit):
    kept = []
    for message in messages:
        if len(kept) < limit:
            kept.append(message)
    while len(messages) > limit:
        messages.pop(0)
    return kept
""",
        # A copy of the tool list walked in order, with checks nested in the loop that cap nothing.
        """
def validate(tools, limit):
    ordered = sorted(tools, key=lambda tool: tool.name)
    for tool in ordered:
        if tool.enabled:
            if len(tool.name) > limit:
                raise NameTooLong(tool.name)
""",
        # A nested count cap over a sorted list of messages, not tools.
        """
def visible(messages, limit):
    kept = []
    recent = sorted(messages, key=lambda message: message.time)
    for message in recent:
        if message.visible:
            if len(kept) < limit:
                kept.append(message)
    return kept
""",
        """
def numbered(tools):
    for i, tool in enumerate(tools):
        if i > 0:
            print(",")
        print(tool.name)
""",
    )
    invalid = (
        # Popped down to a count from a sorted view of the tools, and deleted from a copy.
        Invalid(
            """
def trim(tools, scores, limit):
    ranked = sorted(tools, key=scores.get, reverse=True)
    while len(ranked) > limit:
        ranked.pop()
    return ranked
""",
            line=4,
        ),
        Invalid(
            """
async def trim(request, n):
    kept = list(request.tools)
    while n < len(kept):
        del kept[-1]
    request.tools = kept
""",
            line=4,
        ),
        Invalid(
            """
class Selector:
    def pick(self, response, valid):
        selected = []
        max_tools = self.max_tools
        for name in response["tools"]:
            if name in valid and (
                max_tools is None or len(selected) < max_tools
            ):
                selected.append(name)
        return selected
""",
            line=8,
        ),
        Invalid(
            """
def fit(request, limit):
    while len(request.tools) > limit:
        request.tools.pop()
""",
            line=3,
        ),
        Invalid(
            """
def first(tools, n):
    kept = []
    for i, tool in enumerate(tools):
        if i >= n:
            break
        kept.append(tool)
    return kept
""",
            line=5,
        ),
        Invalid(
            """
def within(tools, budget):
    chosen = []
    for tool in tools:
        if size(tool) > budget:
            continue
        budget -= size(tool)
        chosen.append(tool)
    return chosen
""",
            line=5,
            flow=(
                (2, "parameter `tools`"),
                (5, "budget cap `size(tool) > budget`"),
            ),
        ),
        Invalid("top = [tool for i, tool in enumerate(surface) if i < max_count]\n", line=1),
        # The cap nested under another `if`, over a sorted view of the tools.
        Invalid(
            """
class Picker:
    def pick(self, tools, ranked):
        kept = []
        for tool in sorted(tools, key=lambda t: ranked.index(t.name)):
            if tool.enabled:
                if len(kept) < self.limit:
                    kept.append(tool)
        return kept
""",
            line=7,
        ),
        # An `elif` under `try`, over a list made from the tools in two steps.
        Invalid(
            """
async def choose(request, limit):
    ordered = list(reversed(request.tools))
    chosen = []
    for tool in ordered:
        try:
            if tool.name in request.pinned:
                chosen.insert(0, tool)
            elif limit > len(chosen):
                chosen.append(tool)
        except KeyError:
            continue
    return chosen
""",
            line=9,
            flow=(
                (3, "tool list from `ordered = list(reversed(request.tools))`"),
                (9, "count cap `limit > len(chosen)`"),
            ),
        ),
        # A fill-until-full loop over a sorted copy, which TS107 (tool lists by name) leaves.
        Invalid(
            """
def pick(tools, limit):
    kept = []
    for tool in sorted(tools, key=lambda t: t.rank):
        if tool.enabled:
            if len(kept) >= limit:
                break
            kept.append(tool)
    return kept
""",
            line=6,
        ),
        # A comprehension counting over a copy of a filtered copy.
        Invalid(
            """
def top(tools, n):
    enabled = [tool for tool in tools if tool.enabled]
    pool = [*reversed(enabled)]
    return [tool for i, tool in enumerate(pool) if i < n]
""",
            line=5,
        ),
        Invalid(
            """
def prepare(request, limit):
    if not request.tools:
        return request
    def cap(tools):
        kept = []
        for tool in tools:
            if len(kept) >= limit:
                break
            if tool.enabled:
                kept.append(describe(tool))
        return kept
    return request.override(tools=cap(request.tools))
""",
            line=8,
            flow=(
                (5, "parameter `tools`"),
                (8, "count cap `len(kept) >= limit`"),
            ),
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        return (("len", "enumerate", *_BUDGET), about_tools(config))

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A cap is a comparison in a loop or a comprehension.
        loops = unit.has(ast.For, ast.AsyncFor, ast.While, ast.comprehension)
        return loops and unit.meets(self.needs(config))

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # nothing it finds depends on another function

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        words = config.tool_words
        for loop in tree.findall(tree.module, cst.For, cst.While, cst.CompFor):
            if isinstance(loop, cst.For) and is_tools(loop.iter, config) and _fills_until_full(tree, loop):
                continue  # TS107's
            if isinstance(loop, cst.While):
                found = _shrinks(tree, loop)
                if found is None:
                    continue
                measured = [
                    call.args[0].value for call in tree.calls(found) if dotted(call.func) == "len" and call.args
                ]
                # `ranked = sorted(tools, …)` then `while len(ranked) > n: ranked.pop()` cuts a view of the tools.
                view = _view_of(tree, measured[0], loop, words) if measured else ()
                if tree.mentions(loop.test, words) or view:
                    yield Match(
                        found,
                        f"count cap {shown(found)}",
                        view or (_tool_list(tree, measured[0], "tool list") if measured else ()),
                    )
                continue
            view = _view_source(tree, loop, words)
            about_tools = tree.mentions(loop.iter, words) or bool(view)
            counter = _counter(loop)
            # A comprehension's `if` filters; a loop's `if` guards the statements under it.
            guards: list[tuple[cst.BaseExpression, cst.If | None]] = (
                [(condition.test, None) for condition in loop.ifs] if isinstance(loop, cst.CompFor) else _guards(loop)
            )
            for test, guard in guards:
                for compare in tree.findall(test, cst.Comparison):
                    if not (about_tools or tree.mentions(compare, words)):
                        continue
                    spends = (
                        isinstance(loop, cst.For) and guard is not None and _spends_budget(tree, compare, guard, loop)
                    )
                    if spends or _caps_count(compare, guard, counter):
                        source = view or _tool_list(
                            tree, _iterated(loop.iter), "tool list" if about_tools else "candidates"
                        )
                        yield Match(compare, f"{'budget' if spends else 'count'} cap {shown(compare)}", source)


def _iterated(node: cst.BaseExpression) -> cst.BaseExpression:
    """The list a loop walks: `tools` of `enumerate(tools)`."""
    if isinstance(node, cst.Call) and dotted(node.func) == "enumerate" and node.args:
        return node.args[0].value
    return node


def _tool_list(tree: Tree, node: cst.BaseExpression, noun: str) -> tuple[Place, ...]:
    """The list the cap selects from: where a plain name got it, else the expression itself."""
    entered = name_source(tree, node, node, noun) if isinstance(node, cst.Name) else ()
    return entered or ((node, f"{noun} {shown(node)}"),)


def _view_source(tree: Tree, loop: cst.For | cst.CompFor, words: tuple[str, ...]) -> tuple[Place, ...]:
    """Where the list a loop walks by a plain name was made, when it was made as a view of a tool
    list: `ordered = sorted(tools, key=…)`, `reversed(tools)`, `list(tools)`, `tools[:]`, a
    comprehension over tools, or a view of such a view."""
    return _view_of(tree, _iterated(loop.iter), loop, words)


def _view_of(tree: Tree, walked: cst.BaseExpression, at: cst.CSTNode, words: tuple[str, ...]) -> tuple[Place, ...]:
    """Where the list a plain name holds at `at` was made, when it was made as a view of a tool list."""
    seen: set[str] = set()
    while isinstance(walked, cst.Name) and walked.value not in seen:
        seen.add(walked.value)
        found = name_source(tree, at, walked, "tool list")
        made = found[0][0] if found else None
        if not isinstance(made, cst.Assign | cst.AnnAssign) or made.value is None:
            return ()
        collection = _viewed(made.value)
        if collection is None:
            return ()
        while (inner := _viewed(collection)) is not None:  # `list(reversed(ordered))`
            collection = inner
        if tree.mentions(collection, words):
            return found
        walked, at = collection, made
    return ()


def _viewed(value: cst.BaseExpression) -> cst.BaseExpression | None:
    """The collection a value is a copy or a reordered or filtered view of, else None."""
    if isinstance(value, cst.Call) and dotted(value.func) in _VIEWS and value.args:
        # `filter(pred, tools)` walks its last argument; the others their first.
        return value.args[-1 if dotted(value.func) == "filter" else 0].value
    if (
        isinstance(value, cst.Call)
        and isinstance(value.func, cst.Attribute)
        and value.func.attr.value == "copy"
        and not value.args
    ):
        return value.func.value
    if isinstance(value, cst.Subscript) and all(isinstance(e.slice, cst.Slice) for e in value.slice):
        return value.value
    if isinstance(value, cst.ListComp | cst.GeneratorExp | cst.SetComp):
        return value.for_in.iter
    if (
        isinstance(value, cst.List | cst.Tuple)
        and len(value.elements) == 1
        and isinstance(value.elements[0], cst.StarredElement)
    ):
        return value.elements[0].value  # `[*tools]`
    return None


def _guards(loop: cst.For) -> list[tuple[cst.BaseExpression, cst.If | None]]:
    """The `if` and `elif` tests in a loop's body, with their statements, however deep under other
    `if`s, `try` or `with`; a nested loop's or function's are its own."""
    found: list[tuple[cst.BaseExpression, cst.If | None]] = []
    pending = list(block(loop.body))
    while pending:
        statement = pending.pop(0)
        if isinstance(statement, cst.If):
            found.append((statement.test, statement))
            pending.extend(block(statement.body))
            if isinstance(statement.orelse, cst.If):
                pending.append(statement.orelse)
            elif statement.orelse is not None:
                pending.extend(block(statement.orelse.body))
        elif isinstance(statement, cst.Try | cst.TryStar):
            parts = [statement.body, *(handler.body for handler in statement.handlers)]
            parts += [part.body for part in (statement.orelse, statement.finalbody) if part is not None]
            pending.extend(line for part in parts for line in block(part))
        elif isinstance(statement, cst.With):
            pending.extend(block(statement.body))
    return found


def _counter(loop: cst.For | cst.CompFor) -> str:
    """`i` of `for i, tool in enumerate(…)`."""
    target, source = loop.target, loop.iter
    if (
        isinstance(source, cst.Call)
        and dotted(source.func) == "enumerate"
        and isinstance(target, cst.Tuple)
        and target.elements
    ):
        return dotted(target.elements[0].value)
    return ""


def _caps_count(compare: cst.Comparison, guard: cst.If | None, counter: str) -> bool:
    """`len(kept) < n` guarding `kept.append(…)`, `len(kept) >= n` or `i >= n` guarding a `break`, `i < n`
    filtering a comprehension."""
    for measured, bound in _sides(compare):
        if not measured:
            continue  # a literal bound (`score > 0`) measures nothing
        if guard is None:
            if measured == counter and bound == "upper":
                return True
            continue
        adds = _method_calls(guard, _ADDS)
        leaves = any(isinstance(small, cst.Break) for line in block(guard.body) for small in _small(line))
        if measured.startswith("len(") and bound == "upper" and measured[4:-1] in adds:
            return True
        if (measured.startswith("len(") or measured == counter) and bound == "lower" and leaves:
            return True
        if measured == counter and bound == "upper" and adds:
            return True
    return False


def _sides(compare: cst.Comparison) -> Iterator[tuple[str, str]]:
    """(`len(x)` or a name, "upper"/"lower"): what is compared, and whether the test holds below or
    above the bound (`len(x) < n` and `n > len(x)` hold below it)."""
    left = compare.left
    for target in compare.comparisons:
        op, right = target.operator, target.comparator
        below = isinstance(op, cst.LessThan | cst.LessThanEqual)
        above = isinstance(op, cst.GreaterThan | cst.GreaterThanEqual)
        if below or above:
            yield _measured(left), "upper" if below else "lower"
            yield _measured(right), "lower" if below else "upper"
        left = right


def _measured(node: cst.BaseExpression) -> str:
    if isinstance(node, cst.Call) and dotted(node.func) == "len" and node.args:
        return f"len({dotted(node.args[0].value)})"
    return dotted(node)


def _method_calls(node: cst.If, methods: tuple[str, ...]) -> set[str]:
    """The receivers of these method calls in the `if` body: `kept` for `kept.append(…)`."""
    found = set()
    for line in block(node.body):
        for small in _small(line):
            value = small.value if isinstance(small, cst.Expr) else None
            if (
                isinstance(value, cst.Call)
                and isinstance(value.func, cst.Attribute)
                and value.func.attr.value in methods
            ):
                found.add(dotted(value.func.value))
    return found


def _small(line: cst.CSTNode) -> list[cst.BaseSmallStatement]:
    return list(line.body) if isinstance(line, cst.SimpleStatementLine | cst.SimpleStatementSuite) else []


def _shrinks(tree: Tree, loop: cst.While) -> cst.Comparison | None:
    """`while len(x) > n: x.pop()`: the comparison, when the body takes from the measured list."""
    test = loop.test
    if not isinstance(test, cst.Comparison):
        return None
    measured = [side for side, bound in _sides(test) if side.startswith("len(") and bound == "lower"]
    takes = {
        dotted(call.func.value)
        for call in tree.calls(loop.body)
        if isinstance(call.func, cst.Attribute) and call.func.attr.value in _DROPS
    }
    deletes = {
        dotted(target.value)
        for d in tree.findall(loop.body, cst.Del)
        for target in [d.target]
        if isinstance(target, cst.Subscript)
    }
    return test if any(side[4:-1] in takes | deletes for side in measured) else None


def _spends_budget(tree: Tree, compare: cst.Comparison, guard: cst.If, loop: cst.For) -> bool:
    """`if size(tool) > budget: continue` in a loop that keeps the tools that fit."""
    budget = any(part in _BUDGET for name in tree.identifiers(compare) for part in name.lower().split("_"))
    skips = any(isinstance(small, cst.Continue) for line in block(guard.body) for small in _small(line))
    variable = dotted(loop.target)
    keeps = any(
        isinstance(call.func, cst.Attribute)
        and call.func.attr.value in _ADDS
        and call.args
        and dotted(call.args[0].value) == variable
        for call in tree.calls(loop.body)
    )
    return budget and skips and keeps
