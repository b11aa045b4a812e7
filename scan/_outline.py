"""The first pass: a module's outline from CPython's own parser, and the part of it libcst must parse.

libcst's parse is most of a scan's cost, and most functions of a module that mentions the
configured names have nothing to do with them: a framework's module that names `tools` once in a
signature holds a hundred other methods. The outline splits the module into units, its functions
and the methods of its classes, read by the standard library's `ast` at a fraction of libcst's
cost. Each applicable rule says which units it may report in or must read (`Rule.wants`), and
which of the units those reach by name, at any depth, may change what it finds there
(`Rule.reaches`): those are kept with them. The module's imports and compound statements are kept,
and every unit they name. A class's own code (its fields), and an assignment or expression
statement of the module, is held when kept code names it (or, for a class, one of its methods is
kept) or when it mentions what a rule needs that reads code outside functions
(`Rule.module_level`). Every other unit, class and statement is blanked out, a string of as many
lines in its place, so the text libcst parses holds every kept line at its own line and column.

A rule's `wants` must hold for every unit its matches can depend on other than by name, and its
`reaches` for every unit reached by name it can depend on; where a rule cannot tell, it wants or
reaches the unit. The rules' invalid examples, each scanned through this pass, test that.
"""

from __future__ import annotations

import ast
import functools
import itertools
import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field

from ._rule import Mentions, Needs
from ._text import Text
from ._trace import MUTATING
from ._types import ScanConfig

Function = ast.FunctionDef | ast.AsyncFunctionDef

#: Methods a class runs when it is built or called: kept with any kept method of their class.
_BUILDING = frozenset({"__init__", "__post_init__", "__new__", "__call__"})


@dataclass(frozen=True, eq=False)
class Unit:
    """A function of the module, or a method of one of its classes, nested code included, with
    what the rules ask of it."""

    node: Function
    #: The class it is a method of; None for a function of the module.
    owner: ast.ClassDef | None
    #: What its code mentions (its words: see `_Facts`), and what each name it uses is bound to
    #: in the module.
    text: Text
    #: Its text as written, comments and docstrings included.
    source: str
    #: 0-based lines it spans, decorators included: [start, end).
    start: int
    end: int
    #: Every node type it holds.
    kinds: frozenset[type[ast.AST]]
    #: The names and attributes it uses outside annotations: the units it may reach.
    uses: frozenset[str]
    #: The last part of each callee (`dispatch` of `self.gateway.dispatch(…)`), an imported alias
    #: also by the name it imports.
    called: frozenset[str]
    #: Each method call as (the root of its receiver, the method): `("self", "append")`.
    methods: frozenset[tuple[str, str]]
    #: The roots of the attributes and subscripts it writes or deletes: `self` of `self.tools = …`.
    written: frozenset[str]
    #: The last part of every assignment target: `baseline` of `self.baseline = …`.
    assigned: frozenset[str]
    #: The last part of every name a comparison compares.
    compared: frozenset[str]
    #: Whether it writes or deletes a subscript: `schema["x"] = …`, `del tools[0]`.
    subscripts: bool
    #: The last part of each callee it hands an argument to, and each name it hands as one: what
    #: it may edit through.
    gives: frozenset[str]
    #: Whether it calls what builds an object: `Tool(…)`, `cls(…)`, `type(self)(…)`.
    constructs: bool
    #: Whether it calls what a call returns: `type(self)(…)`.
    calls_result: bool
    #: The last part of the name of what each `raise` raises: `Refused` of `raise errors.Refused(…)`.
    raised: frozenset[str]

    @property
    def name(self) -> str:
        return self.node.name

    def meets(self, needs: Needs) -> bool:
        return all(map(self.text.meets, needs))

    def mentions(self, words: tuple[str, ...] = (), names: tuple[str, ...] = (), endings: tuple[str, ...] = ()) -> bool:
        return self.text.meets(Mentions(words, names, endings))

    def has(self, *kinds: type[ast.AST]) -> bool:
        return any(kind in self.kinds for kind in kinds)

    def calls(self, names: Iterable[str]) -> bool:
        """Whether it calls one of these (dotted) names, by the last part."""
        return any(name.rsplit(".", 1)[-1] in self.called for name in names)

    def calls_method(self, methods: Iterable[str], on: Iterable[str] | None = None) -> bool:
        """Whether it calls one of the methods, on a receiver rooted at one of `on` when given."""
        wanted, roots = set(methods), None if on is None else set(on)
        return any(method in wanted and (roots is None or root in roots) for root, method in self.methods)

    @property
    def edits(self) -> bool:
        """Whether it writes a subscript or calls a method that edits its receiver."""
        return self.subscripts or self.calls_method(MUTATING)

    @property
    def takes_arguments(self) -> bool:
        """Whether it has a parameter other than `self` or `cls`: what a caller hands it."""
        given = self.node.args
        every = [*given.posonlyargs, *given.args, *given.kwonlyargs, given.vararg, given.kwarg]
        return any(arg is not None and arg.arg not in {"self", "cls"} for arg in every)


@dataclass(frozen=True, eq=False)
class Outline:
    """A module's units, the names its other code uses, and its classes by name."""

    units: tuple[Unit, ...]
    classes: dict[str, ast.ClassDef] = field(repr=False)
    #: The names each call hands over, by the callee's last part (`register(Guard())`: Guard).
    handed: dict[str, frozenset[str]] = field(repr=False)
    #: The text of each class, decorators and methods included, by name.
    class_texts: dict[str, Text] = field(repr=False)
    #: The names the module binds by assignment: a registry a function writes into outlives the call.
    globals: frozenset[str] = field(repr=False)
    #: Each class's own code, and each statement of the module that may be blanked out.
    bodies: tuple[Body, ...] = field(repr=False)
    #: The names the module's code that is never blanked out uses (imports, compound statements).
    module_uses: frozenset[str] = field(repr=False)
    #: What that code mentions, its imports aside: no rule reports an import.
    module_text: Text = field(repr=False)

    def handed_to(self, names: Iterable[str]) -> frozenset[str]:
        """The names handed to a call of any of these (by last part): functions and classes registered."""
        last = {name.rsplit(".", 1)[-1] for name in names}
        return frozenset(
            handed for callee, all_handed in self.handed.items() if callee in last for handed in all_handed
        )

    def hooks(self, unit: Unit, config: ScanConfig) -> bool:
        """Whether the unit may run as a hook, as `Tree.hook_functions` reads one: named or decorated
        so, or handed to a registration, itself or as an instance of its class."""
        if unit.mentions(words=config.hook_words, names=config.hook_registration):
            return True
        registered = self.handed_to(config.hook_registration) | set(config.hooks)
        return unit.name in registered or (unit.owner is not None and unit.owner.name in registered)

    def class_mentions(self, name: str, words: tuple[str, ...]) -> bool:
        """Whether the class, or a base of it defined in the module, mentions one of the words."""
        seen: set[str] = set()
        todo = [name]
        while todo:
            current = todo.pop()
            if current in seen or current not in self.classes:
                continue
            seen.add(current)
            if self.class_texts[current].mentions(words):
                return True
            todo.extend(_last(base) for base in self.classes[current].bases)
        return False

    @functools.cached_property
    def names(self) -> frozenset[str]:
        """The names of the module's functions and methods."""
        return frozenset(unit.name for unit in self.units)

    @functools.cached_property
    def editors(self) -> frozenset[str]:
        """The names of the units that may edit what they are handed: they write a subscript, call
        a method that edits its receiver, or hand something to a unit that may (recursion included)."""
        found = {unit.name for unit in self.units if unit.edits}
        changed = True
        while changed:
            grown = found | {unit.name for unit in self.units if unit.gives & found}
            changed, found = grown != found, grown
        return frozenset(found)

    @functools.cached_property
    def cloning(self) -> bool:
        """Whether a method of the module may copy or rebuild its object: `replace(self, …)`,
        `copy.copy(self)`, `self.model_copy()`, `type(self)(…)`, `self.__class__(…)`, `Agent(…)` in `Agent`."""
        return any(unit.owner is not None and clones(unit) for unit in self.units)

    @functools.cached_property
    def _by_name(self) -> dict[str, list[Unit]]:
        """The units each name may reach: a function or method by its name, the building methods of
        a class by the class's name."""
        by_name: dict[str, list[Unit]] = {}
        for unit in self.units:
            by_name.setdefault(unit.name, []).append(unit)
            if unit.owner is not None and unit.name in _BUILDING:
                by_name.setdefault(unit.owner.name, []).append(unit)
        return by_name

    def kept(self, wanted: Iterable[Unit], reaches: Callable[[Unit], bool] = lambda unit: True) -> set[int]:
        """The ids of the wanted units and of the units they reach by name, at any depth, that
        `reaches` lets through; with any kept method, the building methods of its class."""
        by_name = self._by_name
        kept: set[int] = set()
        todo = list(wanted)
        while todo:
            unit = todo.pop()
            if id(unit) in kept:
                continue
            kept.add(id(unit))
            todo += [reached for name in unit.uses for reached in by_name.get(name, ()) if reaches(reached)]
            if unit.owner is not None:
                todo += [built for built in by_name.get(unit.owner.name, ()) if built.owner is unit.owner]
        return kept

    def keep(self, kept: set[int], needed: Callable[[Body], bool]) -> tuple[set[int], set[int]]:
        """The ids of the units and of the bodies libcst must parse, given the units the rules
        keep: with them, the bodies `held` holds and every unit the module's parsed code names,
        which a report in that code may depend on, until neither grows."""
        kept = set(kept)
        named: set[str] = set()
        while True:
            held = self.held(kept, needed)
            names = self.module_uses.union(*(body.uses for body in self.bodies if id(body.node) in held)) - named
            if not names:
                return kept, held
            named |= names
            reached = self.kept(unit for name in names for unit in self._by_name.get(name, ()))
            if reached <= kept:
                return kept, held
            kept |= reached

    def held(self, kept: set[int], needed: Callable[[Body], bool]) -> set[int]:
        """The ids of the bodies the rules may read: those that mention what a rule needs, those
        that bind a name kept code or the module's other code uses, the class of a kept method,
        and what those use in turn."""
        names = set(self.module_uses)
        names.update(name for unit in self.units if id(unit) in kept for name in unit.uses)
        names.update(unit.owner.name for unit in self.units if id(unit) in kept and unit.owner is not None)
        held: set[int] = set()
        grown = [body for body in self.bodies if needed(body) or body.binds & names]
        while grown:
            held.update(id(body.node) for body in grown)
            names.update(used for body in grown for used in body.uses)
            grown = [body for body in self.bodies if id(body.node) not in held and body.binds & names]
        return held

    def sliced(self, lines: list[str], kept: set[int], held: set[int]) -> str:
        """The text with every unit not kept, and every body not held, blanked out: in its place
        a string of as many lines, at its own indentation. One token keeps the lines where they
        were, where empty lines would each cost libcst a node; a class body keeps a statement."""
        out = list(lines)
        spans: list[tuple[ast.stmt, int, int]] = [
            (body.node, *_span(body.node)) for body in self.bodies if id(body.node) not in held
        ]
        spans += [
            (unit.node, unit.start, unit.end)
            for unit in self.units
            if id(unit) not in kept and (unit.owner is None or id(unit.owner) in held)
        ]
        for node, start, end in spans:
            indent = " " * node.col_offset
            if end - start == 1:
                out[start] = indent + "..." + _ending(lines[start])
                continue
            out[start] = indent + '"""' + _ending(lines[start])
            for at in range(start + 1, end - 1):
                out[at] = _ending(lines[at])
            out[end - 1] = '"""' + _ending(lines[end - 1])
        return "".join(out)


def _ending(line: str) -> str:
    """The line's end as written: `\\r\\n`, `\\r`, `\\n`, or none on a last line."""
    return line[len(line.rstrip("\r\n")) :]


@dataclass(frozen=True, eq=False)
class Body:
    """Code of the module outside its functions that may be blanked out: a class's own code (its
    methods aside), or an assignment or expression statement of the module on lines of its own."""

    node: ast.stmt
    #: What its code mentions.
    text: Text
    #: The names its code uses: a class's bases, decorators and the values of its fields.
    uses: frozenset[str]
    #: Its text as written, comments included (a class's methods too).
    source: str
    #: The names it binds: a class's name, an assignment's targets (the root of `x.y = …`).
    binds: frozenset[str]


#: A line with its end, as CPython and libcst count lines: `\r\n`, `\r` and `\n` end one, a form feed does not.
LINE = re.compile(r"[^\r\n]*(?:\r\n|\r|\n)|[^\r\n]+")


def _span(node: ast.stmt) -> tuple[int, int]:
    """The 0-based lines a statement spans, a definition's decorators included: [start, end)."""
    decorators = getattr(node, "decorator_list", None)
    start = (decorators[0].lineno if decorators else node.lineno) - 1
    return start, node.end_lineno or node.lineno


def clones(unit: Unit) -> bool:
    """Whether a method may copy or rebuild its own object (see `Outline.cloning`)."""
    assert unit.owner is not None
    return unit.calls_result or unit.calls(("replace", "copy", "model_copy", "__class__", unit.owner.name))


def outline(module: ast.Module, lines: list[str]) -> Outline:
    """The outline of a module parsed by `ast`, `lines` its text split with the line ends kept."""
    units_at: list[tuple[Function, ast.ClassDef | None]] = []
    outside: list[ast.AST] = []
    classes: dict[str, ast.ClassDef] = {}
    bodies: list[tuple[ast.ClassDef, _Facts]] = []
    loose: list[tuple[ast.stmt, _Facts]] = []
    shared = _shared_lines(module.body)
    for statement in module.body:
        if isinstance(statement, Function):
            units_at.append((statement, None))
        elif isinstance(statement, ast.ClassDef):
            classes.setdefault(statement.name, statement)
            units_at += [(inner, statement) for inner in statement.body if isinstance(inner, Function)]
            own = [inner for inner in statement.body if not isinstance(inner, Function)]
            bodies.append((statement, _Facts(*statement.bases, *statement.keywords, *statement.decorator_list, *own)))
        elif isinstance(statement, ast.Assign | ast.AnnAssign | ast.Expr) and statement.lineno not in shared:
            loose.append((statement, _Facts(statement)))
        else:
            outside.append(statement)
    read = [(function, owner, _Facts(function)) for function, owner in units_at]
    statements = _Facts(*(statement for statement in outside if not isinstance(statement, ast.Import | ast.ImportFrom)))
    beside = _Facts(*(statement for statement in outside if isinstance(statement, ast.Import | ast.ImportFrom)))
    beside.merge(statements, *(facts for _, facts in bodies), *(facts for _, facts in loose))
    # What a name stands for: a unit that uses `send` after `send = partial(gateway.dispatch, …)`,
    # `self._send = …` in another method, or `from x import final_check as verify` mentions what
    # it is bound to, and what that is bound to in turn.
    stands: dict[str, list[tuple[str, frozenset[str]]]] = {}
    for facts, attributes_only in ((beside, False), *((facts, True) for _, _, facts in read)):
        for bound, meant in _bindings(facts.bindings, attributes_only):
            stands.setdefault(bound, []).append(meant)
    imported = {
        alias: name.rsplit(".", 1)[-1]
        for node in beside.bindings
        if isinstance(node, ast.Import | ast.ImportFrom)
        for alias, name in _aliases(node)
    }
    units = []
    for function, owner, facts in read:
        start, end = _span(function)
        text = Text(f"{facts.text} {_meant(facts.uses, stands)}")
        source = "".join(lines[start:end])
        called = facts.called | {imported[name] for name in facts.called & imported.keys()}
        units.append(
            Unit(
                function,
                owner,
                text,
                source,
                start,
                end,
                frozenset(facts.kinds),
                frozenset(facts.uses),
                frozenset(called),
                frozenset(facts.methods),
                frozenset(facts.written),
                frozenset(facts.assigned),
                frozenset(facts.compared),
                facts.subscripts,
                frozenset(facts.gives),
                facts.constructs,
                facts.calls_result,
                frozenset(facts.raised),
            )
        )
    handed = {callee: frozenset(names) for callee, names in beside.handed.items()}
    for _, _, facts in read:
        for callee, names in facts.handed.items():
            handed[callee] = handed.get(callee, frozenset()) | names
    module_bound = {
        _last(target)
        for node in module.body
        if isinstance(node, ast.Assign | ast.AnnAssign)
        for target in _targets(node)
    }
    methods: dict[str, list[str]] = {}
    for _, owner, facts in read:
        if owner is not None:
            methods.setdefault(owner.name, []).append(facts.text)
    texts = {klass.name: Text(" ".join([facts.text, *methods.get(klass.name, ())])) for klass, facts in bodies}
    blankable = [
        *(
            Body(
                klass,
                Text(facts.text),
                frozenset(facts.uses),
                "".join(lines[slice(*_span(klass))]),
                frozenset({klass.name}),
            )
            for klass, facts in bodies
        ),
        *(
            Body(
                statement,
                Text(facts.text),
                frozenset(facts.uses),
                "".join(lines[slice(*_span(statement))]),
                _binds(statement),
            )
            for statement, facts in loose
        ),
    ]
    return Outline(
        tuple(units),
        classes,
        handed,
        texts,
        frozenset(module_bound) - {""},
        tuple(blankable),
        frozenset(statements.uses),
        Text(statements.text),
    )


def _shared_lines(statements: list[ast.stmt]) -> set[int]:
    """The lines on which two statements of the module meet (`a = 1; b = 2`): neither can be blanked alone."""
    shared: set[int] = set()
    for before, after in itertools.pairwise(statements):
        if after.lineno == before.end_lineno:
            shared.update({before.lineno, after.lineno})
    return shared


def _binds(statement: ast.stmt) -> frozenset[str]:
    return frozenset(_root(target) for target in _targets(statement)) - {""}


#: Fields the walk never enters: a name's context (`Load`, `Store`) and an operator say nothing the
#: rules ask, and are a node each under every name and operation.
_UNREAD = frozenset({"ctx", "op", "ops"})
_FIELDS: dict[type[ast.AST], tuple[str, ...]] = {}


class _Facts:
    """What the rules ask of some code, read in one walk that never recurses (valid Python nests
    deeper than the interpreter's stack).

    Its words are the code's own: names, attributes, parameters and strings that are one
    identifier (a key), not its comments, docstrings or messages, where framework code says
    "parameters" or "expected" a hundred times without holding either. A name in an annotation is a word but not a use:
    it names a type.
    """

    def __init__(self, *roots: ast.AST) -> None:
        self.kinds: set[type[ast.AST]] = set()
        self.words: list[str] = []
        self.uses: set[str] = set()
        self.called: set[str] = set()
        self.methods: set[tuple[str, str]] = set()
        self.written: set[str] = set()
        self.subscripts = False
        self.gives: set[str] = set()
        self.assigned: set[str] = set()
        self.compared: set[str] = set()
        self.constructs = False
        self.calls_result = False
        self.raised: set[str] = set()
        self.handed: dict[str, set[str]] = {}
        #: Imports and assignments, for what their names stand for.
        self.bindings: list[ast.AST] = []
        words = self.words
        todo: list[ast.AST] = list(roots)
        annotations: list[ast.AST] = []  # walked last: a name in one is a word, not a use
        for typed in (False, True):
            todo = annotations if typed else todo
            while todo:
                node = todo.pop()
                kind = type(node)
                self.kinds.add(kind)
                annotation = None
                if kind is ast.Name:
                    words.append(node.id)  # type: ignore[attr-defined]
                    if not typed:
                        self.uses.add(node.id)  # type: ignore[attr-defined]
                elif kind is ast.Attribute:
                    words.append(node.attr)  # type: ignore[attr-defined]
                    if not typed:
                        self.uses.add(node.attr)  # type: ignore[attr-defined]
                elif kind is ast.Constant:
                    # A key or a name (`"input_schema"`); a sentence in a string is not code.
                    if isinstance(node.value, str) and node.value.isidentifier():  # type: ignore[attr-defined]
                        words.append(node.value)  # type: ignore[attr-defined]
                elif kind is ast.Expr and isinstance(node.value, ast.Constant):  # type: ignore[attr-defined]
                    continue  # a docstring, or a string that does nothing
                elif kind is ast.Call:
                    self._call(node)  # type: ignore[arg-type]
                elif kind is ast.arg or kind is ast.keyword or kind is ast.alias:
                    words.append(getattr(node, "arg", None) or getattr(node, "name", "") or "")
                    annotation = getattr(node, "annotation", None)
                elif kind is ast.FunctionDef or kind is ast.AsyncFunctionDef or kind is ast.ClassDef:
                    words.append(node.name)  # type: ignore[attr-defined]
                    annotation = getattr(node, "returns", None)
                elif kind is ast.AnnAssign:
                    annotation = node.annotation  # type: ignore[attr-defined]
                if kind is ast.Assign or kind is ast.AnnAssign or kind is ast.AugAssign or kind is ast.Delete:
                    self._write(node)
                elif kind is ast.Raise and node.exc is not None:  # type: ignore[attr-defined]
                    exception = node.exc  # type: ignore[attr-defined]
                    self.raised.add(_last(exception.func if isinstance(exception, ast.Call) else exception))
                elif kind is ast.Compare:
                    operands = (node.left, *node.comparators)  # type: ignore[attr-defined]
                    self.compared.update(_last(operand) for operand in operands)
                elif kind is ast.Import or kind is ast.ImportFrom:
                    self.bindings.append(node)
                    words.append(getattr(node, "module", None) or "")
                # `ast.iter_child_nodes`, inline: the walk is most of the first pass's cost.
                fields = _FIELDS.get(kind)
                if fields is None:
                    fields = _FIELDS[kind] = tuple(name for name in kind._fields if name not in _UNREAD)
                for name in fields:
                    value = getattr(node, name, None)
                    if isinstance(value, list):
                        todo += [item for item in value if isinstance(item, ast.AST)]
                    elif isinstance(value, ast.AST):
                        (annotations if value is annotation else todo).append(value)

    @property
    def text(self) -> str:
        return " ".join(self.words)

    def merge(self, *others: _Facts) -> None:
        """Take in what other code says, as if it had been walked with this."""
        for other in others:
            self.words += other.words
            self.uses |= other.uses
            self.bindings += other.bindings
            for callee, names in other.handed.items():
                self.handed.setdefault(callee, set()).update(names)

    def _call(self, call: ast.Call) -> None:
        func = call.func
        last = _last(func)
        self.called.add(last)
        if isinstance(func, ast.Attribute):
            self.methods.add((_root(func.value), func.attr))
        self.calls_result = self.calls_result or isinstance(func, ast.Call)
        self.constructs = (
            self.constructs
            or isinstance(func, ast.Call)
            or last in {"cls", "__class__"}
            or (last[:1].isupper() and not last.isupper())
        )
        if last and (call.args or call.keywords):
            self.gives.add(last)
            for arg in (*call.args, *(keyword.value for keyword in call.keywords)):
                name = _last(arg.func if isinstance(arg, ast.Call) else arg)
                if name:
                    self.handed.setdefault(last, set()).add(name)
                    self.gives.add(name)

    def _write(self, node: ast.AST) -> None:
        if isinstance(node, ast.Assign | ast.AnnAssign):
            self.bindings.append(node)
        for target in _targets(node):
            self.assigned.add(_last(target))
            if isinstance(target, ast.Attribute | ast.Subscript):
                self.written.add(_root(target))
                self.subscripts = self.subscripts or isinstance(target, ast.Subscript)


def _targets(node: ast.AST) -> list[ast.expr]:
    """What an assignment, augmented assignment or `del` writes, tuples unpacked."""
    if isinstance(node, ast.Assign | ast.Delete):
        roots = list(node.targets)
    elif isinstance(node, ast.AnnAssign | ast.AugAssign):
        roots = [node.target]
    else:
        return []
    found = []
    while roots:
        target = roots.pop()
        if isinstance(target, ast.Tuple | ast.List):
            roots.extend(target.elts)
        elif isinstance(target, ast.Starred):
            roots.append(target.value)
        else:
            found.append(target)
    return found


def _root(node: ast.AST) -> str:
    """`self` of `self.tools[0].x`; "" when the chain starts at no name."""
    while isinstance(node, ast.Attribute | ast.Subscript | ast.Call):
        node = node.func if isinstance(node, ast.Call) else node.value
    return node.id if isinstance(node, ast.Name) else ""


def _last(node: ast.AST) -> str:
    """The last part of a name or attribute chain; "" for anything else."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return node.attr
    return ""


def _aliases(node: ast.Import | ast.ImportFrom) -> Iterator[tuple[str, str]]:
    """Each name an import binds under another (`as`), with the dotted name it imports."""
    owner = f"{node.module}." if isinstance(node, ast.ImportFrom) and node.module else ""
    for alias in node.names:
        if alias.asname:
            yield alias.asname, owner + alias.name


def _bindings(nodes: list[ast.AST], attributes_only: bool) -> Iterator[tuple[str, tuple[str, frozenset[str]]]]:
    """The names these statements bind, by import or by assignment to a name or an attribute, each
    with the text it stands for and the names that text uses. Inside a function only attributes
    count: its local names are in its own text already."""
    for node in nodes:
        if isinstance(node, ast.Import | ast.ImportFrom):
            yield from ((alias, (name, frozenset())) for alias, name in _aliases(node))
        elif isinstance(node, ast.Assign | ast.AnnAssign) and node.value is not None:
            targets = [
                t
                for t in _targets(node)
                if isinstance(t, ast.Attribute) or (isinstance(t, ast.Name) and not attributes_only)
            ]
            if targets:
                value = _Facts(node.value)
                meant = (value.text, frozenset(value.uses))
                yield from ((_last(target), meant) for target in targets)


def _meant(uses: Iterable[str], stands: dict[str, list[tuple[str, frozenset[str]]]]) -> str:
    """The text every bound name among `uses` stands for, followed through the names it uses."""
    seen: set[str] = set()
    todo = [name for name in uses if name in stands]
    texts = []
    while todo:
        name = todo.pop()
        if name in seen:
            continue
        seen.add(name)
        for text, used in stands[name]:
            texts.append(text)
            todo.extend(used & stands.keys())
    return " ".join(texts)
