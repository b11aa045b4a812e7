"""What a scan rule is, and the small pieces of syntax the rules share.

A rule is one small class: an id, a short name, a message that says what to do instead, source
examples that must and must not match (they are also its tests), `needs`, the words a file must
mention for the rule to have anything to find (so most files are never parsed), and `matches`,
which yields the nodes to report from a `Tree`, the module indexed once — a bare node, or a `Match`
that also names where the hazardous value came from. Rules read source; they never import or run it.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from bisect import bisect_left, bisect_right
from collections.abc import Callable, Hashable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, ClassVar, TypeVar, cast

import libcst as cst
from libcst.helpers import get_full_name_for_node

from ._children import children, comments
from ._types import ScanConfig

if TYPE_CHECKING:
    from ._outline import Outline, Unit

T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Invalid:
    """Source a rule must match, and the 1-based line of the node it must report."""

    code: str
    line: int
    #: When given, the finding's whole flow as (line, label) pairs, source first, sink last.
    flow: tuple[tuple[int, str], ...] = ()


#: A node on a finding's flow and what happens there, in a few words.
Place = tuple[cst.CSTNode, str]


@dataclass(frozen=True, slots=True)
class Match:
    """A node to report, with the way the hazardous value came to it.

    `matches` may yield a bare node where the node says it all; a `Match` adds the earlier places
    (`before`, source first) and the reported node's own label. The engine resolves their
    positions only for files with something to report.
    """

    node: cst.CSTNode
    #: What happens at the reported node; empty: its code, shortened.
    label: str = ""
    before: tuple[Place, ...] = ()


@dataclass(frozen=True, slots=True)
class Mentions:
    """One of a rule's needs, met by text that mentions any one of these. A plain tuple of strings
    is a need of words alone.

    Words are parts of identifiers, which `_` joins: `take_baseline` mentions `baseline`, `checked`
    no `check`. Names are configured names a rule matches only whole, as `named` does: `check`, not
    `check_output`, and an owner (`gateway` of `gateway.dispatch`) in any private spelling. Endings
    end a word: `inputSchema` ends with `schema`.
    """

    words: tuple[str, ...] = ()
    names: tuple[str, ...] = ()
    endings: tuple[str, ...] = ()


#: What `Rule.needs` gives: every one of these must be met.
Needs = tuple[tuple[str, ...] | Mentions, ...]


def about_tools(config: ScanConfig) -> Mentions:
    """What code about a tool list mentions: a tool word, or a function found to return one
    (`tool_getters`)."""
    return Mentions(words=config.tool_words, names=config.tool_getters)


def about_hooks(config: ScanConfig) -> Mentions:
    """What code about hooks mentions: a hook word, a registration, a function or class that runs
    as a hook (`hooks`, also found registered in another module), or another module's test of
    whether hooks are registered (`hook_conditions`)."""
    return Mentions(words=config.hook_words, names=(*config.hook_registration, *config.hooks, *config.hook_conditions))


class Rule(ABC):
    id: ClassVar[str]
    name: ClassVar[str]
    #: What is wrong and what to do instead, in one sentence.
    message: ClassVar[str]
    valid: ClassVar[tuple[str, ...]]
    invalid: ClassVar[tuple[Invalid, ...]]
    #: Whether the rule reports in, or reads, code outside the module's functions (its statements,
    #: the bodies of its classes) other than what the code it keeps names: the first pass then
    #: keeps every such statement that mentions one of its needs.
    module_level: ClassVar[bool] = True
    #: Whether the rule reads comments, which the words of code leave out.
    reads_comments: ClassVar[bool] = False

    @abstractmethod
    def needs(self, config: ScanConfig) -> Needs:
        """What the text must mention for this rule to have anything to find: one of each group.

        Each group must hold whatever the rule's matches depend on, in every spelling the rule
        reads; a group that misses one hides that finding from the scan."""

    @abstractmethod
    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[cst.CSTNode | Match]:
        """The nodes this rule reports in the module, in source order, each alone or as a `Match`."""

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        """Whether this rule may report in a function or method of the module, or must read it to
        decide a report elsewhere that the functions it reports in do not reach by name (see
        `_outline`). The units it reaches by name are kept with it. Only the first pass asks:
        `matches` sees the module with the units no rule wants blanked out."""
        return True

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        """Whether a unit that the units this rule wants reach by name (a helper they call, a
        function they name) may change what the rule finds in them; if so, the first pass keeps it,
        and follows the names it uses in turn. Any unit, unless the rule knows which matter."""
        return True


def dotted(node: cst.CSTNode) -> str:
    """`a.b.c` for a name or attribute chain (the callee of a call included); "" otherwise."""
    return get_full_name_for_node(node) or ""


def shown(node: cst.CSTNode) -> str:
    """A node as a label quotes it: `f(...)` for a call, `def f(...)` for a function, else its code
    on one line, shortened."""
    if isinstance(node, cst.Call):
        # The end of a long callee names the call (`...["parameters"].pop`): cut from the front.
        return f"`{_one_line(node.func, _SHOWN - 5, tail=True)}(...)`"
    if isinstance(node, cst.FunctionDef):
        return f"`def {node.name.value}(...)`"
    if isinstance(node, cst.Param):
        return f"`{node.name.value}`"
    return f"`{_one_line(node, _SHOWN)}`"


#: The longest code a label quotes in full.
_SHOWN = 48


def _one_line(node: cst.CSTNode, width: int, tail: bool = False) -> str:
    code = " ".join(cst.Module([]).code_for_node(node).split())
    if len(code) <= width:
        return code
    return "..." + code[3 - width :] if tail else code[: width - 3] + "..."


def named(name: str, configured: Iterable[str]) -> bool:
    """Whether a dotted name ends, segment by segment, with one of the configured names.

    An owner segment may be spelled private: `self._gateway.dispatch` is `gateway.dispatch`, since
    a leading underscore hides the attribute that holds the gateway, it does not make it another
    one. The last segment must be equal: `gateway._dispatch` is another function (usually the one
    `dispatch` wraps), and a configured name spelled with an underscore matches only that spelling.
    """
    parts = name.split(".")
    return any(_ends_with(parts, want.split(".")) for want in configured if want)


def _ends_with(parts: list[str], want: list[str]) -> bool:
    if len(parts) < len(want) or parts[-1] != want[-1]:
        return False
    owners = zip(parts[-len(want) : -1], want[:-1], strict=True)
    return all(part == wanted or part.lstrip("_") == wanted for part, wanted in owners)


class Tree:
    """A parsed module with every node of code indexed once, in source order.

    Rules ask "the calls under this statement", "the ifs of this function" many times. Each answer
    is a slice of one pre-order list per node type, found by bisection, not another walk of the
    tree. Layout (whitespace, brackets, commas, comments) is not indexed: see `_children`.
    """

    def __init__(self, module: cst.Module) -> None:
        self.module = module
        order: list[cst.CSTNode] = []
        span: dict[int, Any] = {}
        kids: dict[int, list[cst.CSTNode]] = {}
        by_type: dict[type[cst.CSTNode], list[int]] = {}
        # An explicit stack, not a visitor: a 10,000-term sum nests 10,000 deep and must index
        # like any other module. A node is pushed twice: to enter it, and to close its span.
        stack: list[tuple[cst.CSTNode, bool]] = [(module, False)]
        while stack:
            node, leaving = stack.pop()
            if leaving:
                span[id(node)] = (span[id(node)], len(order))
                continue
            span[id(node)] = len(order)
            by_type.setdefault(type(node), []).append(len(order))
            order.append(node)
            stack.append((node, True))
            below = kids[id(node)] = children(node)
            stack.extend((child, False) for child in reversed(below))
        self._order = order
        self._span = span
        self._children = kids
        self._by_type = by_type
        self._kinds: dict[tuple[type[cst.CSTNode], ...], list[list[int]]] = {}
        self._memo: dict[Hashable, Any] = {}

    def findall(self, node: cst.CSTNode, *kinds: type[cst.CSTNode]) -> list[Any]:
        """The nodes of these kinds at or under `node`, in source order."""
        start, end = self._span[id(node)]
        if kinds == (cst.CSTNode,):
            return self._order[start:end]
        lists = self._lists(kinds)
        at = [index for found in lists for index in found[bisect_left(found, start) : bisect_left(found, end)]]
        if len(lists) > 1:
            at.sort()
        return [self._order[index] for index in at]

    def _lists(self, kinds: tuple[type[cst.CSTNode], ...]) -> list[list[int]]:
        """The positions in source order of the nodes of these kinds, a list per concrete type."""
        lists = self._kinds.get(kinds)
        if lists is None:
            lists = self._kinds[kinds] = [found for kind, found in self._by_type.items() if issubclass(kind, kinds)]
        return lists

    def statements_of(self, nodes: Iterable[cst.CSTNode]) -> list[cst.BaseStatement]:
        """The innermost statements that hold these nodes, of the module or of the body of a class
        in it (a method rather than its whole class); none when one of them is in no statement (the
        module itself, a comment before or after every statement)."""
        held: list[cst.BaseStatement] = []
        for node in nodes:
            found: cst.BaseStatement | None = None
            statements: Sequence[cst.BaseStatement] = self.module.body
            while (at := self._holding(statements, node)) is not None:
                found = at
                if not (isinstance(at, cst.ClassDef) and isinstance(at.body, cst.IndentedBlock)):
                    break
                statements = at.body.body
            if found is None:
                return []
            held.append(found)
        return held

    def _holding(self, statements: Sequence[cst.BaseStatement], node: cst.CSTNode) -> cst.BaseStatement | None:
        starts = [self._span[id(statement)][0] for statement in statements]
        at = bisect_right(starts, self._span[id(node)][0]) - 1 if id(node) in self._span else -1
        return statements[at] if at >= 0 and self.within(node, statements[at]) else None

    def children(self, node: cst.CSTNode) -> list[cst.CSTNode]:
        """The node's children that are code, in source order."""
        return self._children[id(node)]

    def within(self, node: cst.CSTNode, outer: cst.CSTNode) -> bool:
        """Whether `node` is `outer` or under it; a node the index does not hold is under nothing."""
        start, end = self._span[id(outer)]
        return id(node) in self._span and start <= self._span[id(node)][0] < end

    def comments(self) -> list[cst.Comment]:
        return comments(self.module)

    def memo(self, key: Hashable, compute: Callable[[], T]) -> T:
        """What `compute` gives for this module, worked out once: an analysis two rules share."""
        if key not in self._memo:
            self._memo[key] = compute()
        return cast(T, self._memo[key])

    def precedes(self, first: cst.CSTNode, second: cst.CSTNode) -> bool:
        """Whether `first` starts before `second` in the source."""
        return bool(self._span[id(first)][0] < self._span[id(second)][0])

    def enclosing(self, node: cst.CSTNode, kind: type[cst.CSTNode] | tuple[type[cst.CSTNode], ...]) -> Any:
        """The innermost node of `kind` (or of one of the kinds) strictly around `node`; None outside every one."""
        start = self._span[id(node)][0]
        # Pre-order: what encloses `node` comes before it, the innermost last. Walking back over
        # the nodes of the kind alone costs the number of them before `node`, not of every node.
        innermost = -1
        for found in self._lists(kind if isinstance(kind, tuple) else (kind,)):
            for at in range(bisect_left(found, start) - 1, -1, -1):
                index = found[at]
                if index <= innermost:
                    break
                if self._span[id(self._order[index])][1] > start:
                    innermost = index
                    break
        return self._order[innermost] if innermost >= 0 else None

    def calls(self, node: cst.CSTNode) -> list[cst.Call]:
        return self.findall(node, cst.Call)

    def calls_made(self, node: cst.CSTNode) -> list[cst.Call]:
        """The calls under `node` that run when it runs: a lambda's body runs only when it is called."""
        if not self.findall(node, cst.Lambda):  # nearly always: one bisection, not a merge of two lists
            return self.calls(node)
        found = self.findall(node, cst.Call, cst.Lambda)
        made: list[cst.Call] = []
        waits_until = -1  # the end of the lambda being skipped
        for each in found:
            start, end = self._span[id(each)]
            if start < waits_until:
                continue
            if isinstance(each, cst.Lambda):
                waits_until = end
            else:
                made.append(each)
        return made

    def calls_to(self, node: cst.CSTNode, configured: Iterable[str]) -> list[cst.Call]:
        """The calls under `node` to a configured name, as written or through an import alias
        (`from guard import verify_surface as ensure_parity`)."""
        configured, names = tuple(configured), imports(self)
        return [
            call
            for call in self.calls(node)
            if named(dotted(call.func), configured) or named(canonical(call.func, names), configured)
        ]

    def identifiers(self, node: cst.CSTNode) -> Iterator[str]:
        """Every plain name and attribute name at or under `node`."""
        for found in self.findall(node, cst.Name, cst.Attribute):
            yield found.value if isinstance(found, cst.Name) else found.attr.value

    def mentions(self, node: cst.CSTNode, words: Iterable[str]) -> bool:
        """Whether any identifier under `node` contains one of `words` as a `_`-separated part.

        Constants are not mentions: `stage is StageKind.HOOK` asks which stage this is, not whether
        hooks are registered.
        """
        wanted = set(words)
        return any(
            not name.isupper() and (wanted & set(name.lower().split("_")) or name.lower() in wanted)
            for name in self.identifiers(node)
        )

    def strings(self, node: cst.CSTNode) -> list[str]:
        """The values of the plain string literals at or under `node`."""
        values = (s.evaluated_value for s in self.findall(node, cst.SimpleString))
        return [value for value in values if isinstance(value, str)]

    def functions(self) -> list[cst.FunctionDef]:
        return self.memo("functions", lambda: self.findall(self.module, cst.FunctionDef))

    def hook_functions(self, config: ScanConfig) -> list[cst.FunctionDef]:
        """Functions that run as hooks: named like one or after a hook event, decorated by a hook
        registration, or handed to a hook registration call in the same module."""

        def find() -> list[cst.FunctionDef]:
            registered = {
                dotted(arg.value).rsplit(".", 1)[-1]
                for call in self.calls_to(self.module, config.hook_registration)
                for arg in call.args
                if dotted(arg.value)
            } | set(config.hooks)
            # An instance of a class of the module handed to a registration: its methods are the hooks.
            classes = {
                klass.name.value for klass in self.findall(self.module, cst.ClassDef) if klass.name.value in registered
            }
            hooks = []
            for function in self.functions():
                name = function.name.value
                decorated = any(
                    named(dotted(_callee(d.decorator)), config.hook_registration) for d in function.decorators
                )
                # A function named after a hook event (`on_before_dispatch`) is that event's callback.
                event = named(name, config.hook_registration)
                owner = self.enclosing(function, cst.ClassDef) if classes else None
                # Its own methods, not the object protocol's, but `__call__` is what calling it runs.
                instance = (
                    owner is not None
                    and owner.name.value in classes
                    and (name == "__call__" or not name.startswith("__"))
                )
                if decorated or event or instance or name in registered or _has_word(name, config.hook_words):
                    hooks.append(function)
            return hooks

        return self.memo(("hooks", config), find)


def imports(tree: Tree) -> dict[str, str]:
    """Local name → what it names: `import copy as c` gives `c → copy`, `from copy import deepcopy as dc`
    gives `dc → copy.deepcopy`. Worked out once per module."""
    return tree.memo("imports", lambda: _imports(tree))


def _imports(tree: Tree) -> dict[str, str]:
    names: dict[str, str] = {}
    for statement in tree.findall(tree.module, cst.Import, cst.ImportFrom):
        if isinstance(statement, cst.Import):
            for alias in statement.names:
                full = dotted(alias.name)
                local = dotted(alias.asname.name) if alias.asname else full.split(".", 1)[0]
                names[local] = full if alias.asname else local
        elif (
            not isinstance(statement.names, cst.ImportStar) and statement.module is not None and not statement.relative
        ):
            for alias in statement.names:
                local = dotted(alias.asname.name) if alias.asname else dotted(alias.name)
                names[local] = f"{dotted(statement.module)}.{dotted(alias.name)}"
    return names


def canonical(node: cst.CSTNode, names: Mapping[str, str]) -> str:
    """The dotted name of a callee with its first segment resolved through the module's imports."""
    full = dotted(node)
    head, _, rest = full.partition(".")
    resolved = names.get(head, head)
    return f"{resolved}.{rest}" if rest else resolved


def _has_word(name: str, words: Iterable[str]) -> bool:
    """Whether one of `words` is a whole `_`-separated part, or run of parts, of `name`:
    `pre_send` of `pre_send` and of `on_pre_send`, `hook` of `before_hook`."""
    padded = f"_{name.lower()}_"
    return any(f"_{word}_" in padded for word in words)


def _callee(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator


def assigned(
    statement: cst.Assign | cst.AnnAssign | cst.AugAssign | cst.Del | cst.NamedExpr,
) -> list[cst.BaseExpression]:
    """What an assignment (a `del`, a walrus) writes to."""
    if isinstance(statement, cst.Assign):
        return [target.target for target in statement.targets]
    return [statement.target]


def is_tools(node: cst.CSTNode, config: ScanConfig) -> bool:
    """Whether an expression names the request's tool list (`tools`, `request.tools`, `self.surface`,
    `state["tools"]`…), or calls a function annotated to return one (`self.catalog.enabled()`)."""
    if isinstance(node, cst.Call):
        return bool(config.tool_getters) and named(dotted(node.func), config.tool_getters)
    name = key_of(node) if isinstance(node, cst.Subscript) else dotted(node).rsplit(".", 1)[-1].lower()
    return bool(name) and any(name == word or name.endswith(f"_{word}") for word in config.tool_words)


def key_of(node: cst.Subscript) -> str:
    """The string a subscript reads by (`state["tools"]`), lower-cased; "" for any other index."""
    index = node.slice[0].slice if len(node.slice) == 1 else None
    if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
        value = index.value.evaluated_value
        return value.lower() if isinstance(value, str) else ""
    return ""
