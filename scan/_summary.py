"""What one module offers the modules that import it: its names, and what its functions always do.

The first pass of a whole-program scan. CPython's tree gives the tables — what each imported name
stands for (relative imports made absolute), each class's bases, the module's and classes' instances,
each function's parameters, and the tool lists and schemas each call hands on — at a fraction of a
libcst parse. Only a module that mentions a check or a settlement (configured, or a helper another
module was found to be) is parsed by libcst, to decide which of its functions check, or settle, on
every path: the same control-flow questions the rules ask of a function's own body.
"""

from __future__ import annotations

import ast
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import TypeVar

import libcst as cst

from ._module import editors, trace_all
from ._outline import LINE, Unit, outline
from ._rule import Mentions, Tree, named
from ._stack import with_deep_stack
from ._text import Text
from ._types import ScanConfig
from .rules._settling import settles_its_block, settles_on_every_path
from .rules.diagnostic_authority import diagnostic_readers
from .rules.shared_baseline import returners
from .rules.unguarded_dispatch import checks_on_every_path

#: What a call hands on: a tool list, or a schema.
TOOLS = "tools"
SCHEMA = "schema"
OTHER = ""


@dataclass(frozen=True, slots=True)
class Summary:
    """One module as the others see it. Qualified names inside the module are relative to it
    (`send`, `Gateway.send`); names it imports are absolute (`pkg.guards.ensure`)."""

    module: str
    #: Local name → the absolute dotted name it stands for: `verify → pkg.guards.ensure_parity`.
    imports: tuple[tuple[str, str], ...] = ()
    #: Class → its bases, each as absolute as the module's imports make it.
    classes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: `(owner class or "", name, class)`: `GUARD = Guard()` at module level, `self.guard = Guard()`
    #: or `guard: Guard` in a class; `(function + "()", parameter, class)` for `def f(guard: Guard)`.
    instances: tuple[tuple[str, str, str], ...] = ()
    #: Function or method → its parameters, in order.
    functions: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: `(callee, argument position or keyword, TOOLS, SCHEMA or OTHER, the name handed)`: what
    #: each call hands on. The name is a local's (`admitted`), a field's with a dot (`.catalogue`
    #: of `settings.catalogue`), or empty for any other value.
    feeds: tuple[tuple[str, str, str, str], ...] = ()
    #: Names bound to the dispatch: `(owner class or "", name)` of `send = gateway.dispatch` at
    #: module level, `self._send = partial(gateway.dispatch, …)` in a method.
    dispatchers: tuple[tuple[str, str], ...] = ()
    #: What the module hands to a hook registration: functions, classes, instances (absolute names).
    registered: tuple[str, ...] = ()
    #: Functions and methods that make the final check, or settle, on every path out of them.
    checks: frozenset[str] = frozenset()
    settles: frozenset[str] = frozenset()
    #: Functions and methods that edit a schema or tool list they are handed: the parameters.
    edits: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Functions and methods that read a diagnostic field of messages or tool results.
    readers: frozenset[str] = frozenset()
    #: Context managers that settle the block of a `with` over them however it is left.
    managers: frozenset[str] = frozenset()
    #: Module-level functions that return a control tool (`def reader_spec(): return {"name": READ}`).
    builds: frozenset[str] = frozenset()
    #: Class → the names of its fields: annotated or assigned in its body, or on `self` in a method.
    fields: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Functions and properties that only say whether hooks are registered: their one statement
    #: returns a test of hook words (`return bool(self._chains["pre_invoke"])`).
    conditions: tuple[str, ...] = ()
    #: Functions and methods that return a parameter, or a shallow copy of it: the parameters.
    returns: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Functions and methods annotated to return a list of tools (`-> list[ToolSpec]`).
    getters: tuple[str, ...] = ()
    #: `__init__` methods that keep every parameter they store as it is (`self.tools = tools`).
    keeps: tuple[str, ...] = ()
    #: Functions and methods that call the final check, on some path at least.
    comparers: tuple[str, ...] = ()
    #: Functions and methods that call a settlement, on some path at least.
    settlers: tuple[str, ...] = ()
    #: The module's file, as the scan was given it: where a finding's flow points for a step here.
    path: str = ""
    #: Where each function, method, class and name bound to the dispatch is defined, 1-based:
    #: `(qualified name, line, column, the dispatch it is bound to or "")`.
    places: tuple[tuple[str, int, int, str], ...] = ()
    #: Where the module hands each name of `registered` to a hook registration: `(name, line, column)`.
    registrations: tuple[tuple[str, int, int], ...] = ()


def module_name(path: str) -> str:
    """`src/pkg/sub/mod.py → pkg.sub.mod`: the stem, under every folder above it that is a package."""
    file = Path(path)
    parts = [] if file.stem == "__init__" else [file.stem]
    folder = file.parent
    while (folder / "__init__.py").is_file() and folder.name:
        parts.insert(0, folder.name)
        folder = folder.parent
    return ".".join(parts) or file.stem


def summarise(source: str, path: str, module: str, config: ScanConfig) -> Summary:
    """The module's summary; an empty one for text CPython will not parse (the scan reports it)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            parsed = ast.parse(source, path)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return Summary(module)
    tables = _Tables(module, path.endswith("__init__.py"), config)
    tables.lines = source.splitlines()
    tables.read(parsed.body)
    text = Text(source)
    # Which functions `_facts` parses is decided function by function, on the outline.
    facts = with_deep_stack(lambda: _facts(source, parsed, config))
    return Summary(
        module,
        tuple(tables.imports.items()),
        tuple(tables.classes.items()),
        tuple(tables.instances),
        tuple(tables.functions.items()),
        tuple(dict.fromkeys(tables.feeds)),
        tuple(dict.fromkeys(tables.dispatchers)),
        tuple(dict.fromkeys(tables.registered)),
        facts.checks,
        facts.settles,
        facts.edits,
        facts.readers,
        managers=facts.managers,
        returns=facts.returns,
        builds=_builders(parsed, config) if text.mentions(config.controls) else frozenset(),
        fields=tuple((klass, tuple(dict.fromkeys(names))) for klass, names in tables.fields.items()),
        conditions=tuple(tables.conditions),
        getters=tuple(tables.getters),
        keeps=tuple(tables.keeps),
        comparers=tuple(tables.comparers),
        settlers=tuple(tables.settlers),
        path=path,
        places=_first(tables.places),
        registrations=_first(tables.registrations),
    )


def _builders(parsed: ast.Module, config: ScanConfig) -> frozenset[str]:
    """The module's functions that return a control tool: a value that names one, by a control's
    name (`READ_TOOL_RESULT`, `"read_tool_result"`, a builder of another module), a module-level
    name bound to one, or another such function. A test (`name in CONTROLS`) returns no tool."""
    controls = {name.lower() for name in config.controls}
    bound = [
        (target.id, statement.value)
        for statement in parsed.body
        if isinstance(statement, ast.Assign)
        for target in statement.targets
        if isinstance(target, ast.Name)
    ]
    returned = [
        (statement.name, node.value)
        for statement in parsed.body
        if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef)
        for node in ast.walk(statement)
        if isinstance(node, ast.Return) and node.value is not None
        and not isinstance(node.value, ast.Compare | ast.BoolOp | ast.UnaryOp)
    ]  # fmt: skip
    holders: set[str] = set()
    builders: set[str] = set()
    grew = True
    while grew:
        before = len(holders) + len(builders)
        holders |= {name for name, value in bound if _names(value, controls, holders | builders)}
        builders |= {name for name, value in returned if _names(value, controls, holders | builders)}
        grew = len(holders) + len(builders) > before
    return frozenset(builders)


def _names(value: ast.expr, controls: set[str], holders: set[str]) -> bool:
    """Whether an expression names a control, or a name known to hold or build one."""
    for node in ast.walk(value):
        said = (
            node.id if isinstance(node, ast.Name)
            else node.attr if isinstance(node, ast.Attribute)
            else node.value if isinstance(node, ast.Constant) and isinstance(node.value, str)
            else ""
        )  # fmt: skip
        if said and (said.lower() in controls or said in holders):
            return True
    return False


def _schemas(config: ScanConfig) -> Mentions:
    return Mentions(words=(*config.schema_keys, *config.tool_words), endings=config.schema_words)


#: Calls that make a shallow copy a function may hand back (`return [dict(t) for t in tools]`).
_COPYING = frozenset({"list", "tuple", "dict", "map", "copy", "model_copy", "replace"})


def _may_copy(unit: Unit) -> bool:
    """A function that may return a parameter or a copy of it: a `return` of a parameter, or of a
    copying call, comprehension, starred list or slice that reads one. Decided on CPython's tree:
    only these few are parsed by libcst to know for sure."""
    function = unit.node
    given = {arg.arg for arg in (*function.args.posonlyargs, *function.args.args, *function.args.kwonlyargs)}
    given -= {"self", "cls"}
    for node in ast.walk(function):
        value = node.value if isinstance(node, ast.Return) else None
        if value is None:
            continue
        copying = (
            isinstance(value, ast.Name)
            or (isinstance(value, ast.Call) and (_dotted(value.func) or "").rsplit(".", 1)[-1] in _COPYING)
            or isinstance(value, ast.ListComp | ast.GeneratorExp | ast.SetComp | ast.List | ast.Dict | ast.Subscript)
        )
        if copying and any(isinstance(name, ast.Name) and name.id in given for name in ast.walk(value)):
            return True
    return False


def _diagnostics(config: ScanConfig) -> Mentions:
    return Mentions(words=config.diagnostic_words, names=config.readers)


@dataclass(frozen=True, slots=True)
class _Facts:
    """What the module's functions do on every path, by qualified name (see `Summary`)."""

    checks: frozenset[str] = frozenset()
    settles: frozenset[str] = frozenset()
    edits: tuple[tuple[str, tuple[str, ...]], ...] = ()
    readers: frozenset[str] = frozenset()
    managers: frozenset[str] = frozenset()
    returns: tuple[tuple[str, tuple[str, ...]], ...] = ()


def _facts(source: str, parsed: ast.Module, config: ScanConfig) -> _Facts:
    """Which functions check, and which settle, on every path, which edit what they are handed,
    and which read diagnostics. Only the functions that mention a check, a settlement or a
    baseline, a schema they may edit, or a diagnostic and messages, and the functions of the
    module they name, are parsed by libcst: the rest are blanked out in place (see `_outline`)."""
    lines = LINE.findall(source)
    shape = outline(parsed, lines)
    relevant = (Mentions(words=config.baseline, names=(*config.check, *config.settle)),)
    schemas = (_schemas(config),)
    diagnostics = (_diagnostics(config), config.message_words)
    kept = shape.kept(
        unit
        for unit in shape.units
        if unit.meets(relevant) or (unit.edits and unit.meets(schemas)) or unit.meets(diagnostics) or _may_copy(unit)
    )
    if not kept:
        return _Facts()
    kept, held = shape.keep(kept, lambda body: False)
    try:
        tree = Tree(cst.parse_module(shape.sliced(lines, kept, held)))
    except (cst.ParserSyntaxError, RecursionError):
        return _Facts()
    checking = checks_on_every_path(tree, config)
    checks, settles = set(), set()
    for function in tree.functions():
        name = _qualified(tree, function)
        if name is None:
            continue
        if id(function) in checking:
            checks.add(name)
        if config.settle and settles_on_every_path(tree, config, function):
            settles.add(name)
    traced = trace_all(tree, config)
    found = editors(traced, config)
    edits = {
        name: tuple(sorted(found.edits[function.name.value]))
        for function, _ in traced
        if found.edits.get(function.name.value) and (name := _qualified(tree, function))
    }
    readers = {name for function, _ in diagnostic_readers(tree, config) if (name := _qualified(tree, function))}
    managers = {
        name
        for function in tree.functions()
        if config.settle and settles_its_block(tree, config, function) and (name := _qualified(tree, function))
    }
    # A parameter returned (not `self`, nor the instance's tool list `returners` names apart).
    handed = (
        (function, {p for p in returned if p.isidentifier() and p not in ("self", "cls")})
        for function, _, returned in returners(tree, config)
    )
    returns = {
        name: tuple(sorted(params)) for function, params in handed if params and (name := _qualified(tree, function))
    }
    return _Facts(
        frozenset(checks),
        frozenset(settles),
        tuple(sorted(edits.items())),
        frozenset(readers),
        frozenset(managers),
        tuple(sorted(returns.items())),
    )


def _qualified(tree: Tree, function: cst.FunctionDef) -> str | None:
    """`f` or `C.m` for a module-level function or a method of a module-level class; None when
    nested in a function (no other module can call it) or in a nested class."""
    owner = tree.enclosing(function, (cst.FunctionDef, cst.ClassDef))
    if owner is None:
        return function.name.value
    if isinstance(owner, cst.ClassDef) and tree.enclosing(owner, (cst.FunctionDef, cst.ClassDef)) is None:
        return f"{owner.name.value}.{function.name.value}"
    return None


class _Tables:
    """The tables of one module, read from CPython's tree: statements of the module and of its
    classes one by one (through `if`, `try` and `with`), the code inside functions with `ast.walk`."""

    def __init__(self, module: str, package: bool, config: ScanConfig) -> None:
        self.module = module
        self.package = package
        self.config = config
        self.imports: dict[str, str] = {}
        self.classes: dict[str, tuple[str, ...]] = {}
        self.instances: list[tuple[str, str, str]] = []
        self.functions: dict[str, tuple[str, ...]] = {}
        self.feeds: list[tuple[str, str, str, str]] = []
        self.registered: list[str] = []
        self.dispatchers: list[tuple[str, str]] = []
        self.fields: dict[str, list[str]] = {}
        self.conditions: list[str] = []
        self.getters: list[str] = []
        self.keeps: list[str] = []
        self.comparers: list[str] = []
        self.settlers: list[str] = []
        #: Where names are defined and handed to a registration (see `Summary.places`), and the
        #: module's lines, to count their columns in characters as editors do.
        self.places: list[tuple[str, int, int, str]] = []
        self.registrations: list[tuple[str, int, int]] = []
        self.lines: list[str] = []
        #: The annotated parameters of the function being read: name → class.
        self.typed: dict[str, str] = {}
        #: The local instances of the function being read: name → class.
        self.locals: dict[str, str] = {}
        #: The locals of the code being read that were taken from a tool list.
        self.tooled: set[str] = set()

    def read(self, statements: list[ast.stmt], owner: str = "") -> None:
        for statement in statements:
            if isinstance(statement, ast.FunctionDef | ast.AsyncFunctionDef):
                arguments = [*statement.args.posonlyargs, *statement.args.args, *statement.args.kwonlyargs]
                self.places.append((f"{owner}.{statement.name}" if owner else statement.name, *self._at(statement), ""))
                self.functions[f"{owner}.{statement.name}" if owner else statement.name] = tuple(
                    arg.arg for arg in arguments
                )
                # `def __init__(self, session: HostSession)`: `self._session = session` holds a HostSession.
                self.typed = {
                    arg.arg: self.absolute(kind)
                    for arg in arguments
                    if arg.annotation is not None and (kind := _dotted(arg.annotation))
                }
                # `def resend(gate: FinalGate)`: `gate.enforce(...)` is a method of FinalGate.
                qualified = f"{owner}.{statement.name}" if owner else statement.name
                self.instances += [
                    (f"{qualified}()", name, kind)
                    for name, kind in self.typed.items()
                    if name not in ("self", "cls") and kind.rpartition(".")[2][:1].isupper()
                ]
                self._code(statement, owner)
                self.typed = {}
                if _returns_tool_list(statement):
                    self.getters.append(qualified)
                if statement.name == "__init__" and owner and _keeps_as_given(statement):
                    self.keeps.append(qualified)
                if self.config.check and _calls(statement, self.config.check):
                    self.comparers.append(qualified)
                if self.config.settle and _calls(statement, self.config.settle):
                    self.settlers.append(qualified)
                if _tests_hooks(statement, self.config):
                    self.conditions.append(f"{owner}.{statement.name}" if owner else statement.name)
            elif isinstance(statement, ast.ClassDef) and not owner:
                self.places.append((statement.name, *self._at(statement), ""))
                self.classes[statement.name] = tuple(
                    self.absolute(name) for base in statement.bases if (name := _dotted(base))
                )
                self.read(statement.body, statement.name)
            elif isinstance(statement, ast.Import | ast.ImportFrom) and not owner:
                self._import(statement)
            elif isinstance(statement, ast.If | ast.Try | ast.With | ast.AsyncWith):
                self._code(statement, owner, shallow=True)
                for body in ("body", "orelse", "finalbody"):
                    self.read(getattr(statement, body, []), owner)
                for handler in getattr(statement, "handlers", []):
                    self.read(handler.body, owner)
            else:
                self._field(statement, owner)
                self._member(statement, owner, body=True)
                self._code(statement, owner)
                if not owner and isinstance(statement, ast.Assign) and self._dispatch(statement.value):
                    self.dispatchers += [("", t.id) for t in statement.targets if isinstance(t, ast.Name)]
                    self.places += [
                        (t.id, *self._at(t), _sent(statement.value))
                        for t in statement.targets
                        if isinstance(t, ast.Name)
                    ]
                if not owner and isinstance(statement, ast.Assign | ast.AnnAssign):
                    self._keyed(statement)

    def _at(self, node: ast.stmt | ast.expr) -> tuple[int, int]:
        """A node's 1-based line and column, the column in characters (CPython counts bytes)."""
        line = self.lines[node.lineno - 1] if node.lineno <= len(self.lines) else ""
        return node.lineno, len(line.encode()[: node.col_offset].decode("utf-8", "replace")) + 1

    def absolute(self, dotted: str) -> str:
        head, _, rest = dotted.partition(".")
        if head in self.imports:
            return f"{self.imports[head]}.{rest}" if rest else self.imports[head]
        if head in self.classes or head in self.functions:
            return f"{self.module}.{dotted}"
        return dotted

    def _import(self, node: ast.Import | ast.ImportFrom) -> None:
        if isinstance(node, ast.Import):
            for alias in node.names:
                head = alias.name.split(".", 1)[0]
                self.imports[alias.asname or head] = alias.name if alias.asname else head
            return
        base = node.module or ""
        if node.level:
            parts = self.module.split(".")
            keep = len(parts) - node.level + (1 if self.package else 0)
            if keep < 0:
                return
            base = ".".join([*parts[:keep], *([base] if base else [])])
        for alias in node.names:
            if alias.name != "*":
                self.imports[alias.asname or alias.name] = f"{base}.{alias.name}" if base else alias.name

    def _field(self, statement: ast.stmt, owner: str) -> None:
        """`GUARD = Guard()` of the module; `guard: Guard` of a class."""
        if owner and isinstance(statement, ast.AnnAssign) and isinstance(statement.target, ast.Name):
            if kind := _dotted(statement.annotation):
                self.instances.append((owner, statement.target.id, self.absolute(kind)))
        elif (
            not owner
            and isinstance(statement, ast.Assign)
            and isinstance(statement.value, ast.Call)
            and (kind := _dotted(statement.value.func))
        ):
            for target in statement.targets:
                if isinstance(target, ast.Name):
                    self.instances.append(("", target.id, self.absolute(kind)))

    def _member(self, node: ast.AST, owner: str, body: bool) -> None:
        """A field of the class being read: `tools: list[Tool]` or `tools = []` in its `body`,
        `self.tools = …` in a method; a subclass in another module inherits it."""
        if not owner or not isinstance(node, ast.Assign | ast.AnnAssign):
            return
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Name) and body:
                self.fields.setdefault(owner, []).append(target.id)
            elif isinstance(target, ast.Attribute) and _dotted(target.value) == "self":
                self.fields.setdefault(owner, []).append(target.attr)

    def _code(self, node: ast.AST, owner: str, shallow: bool = False) -> None:
        """The calls in the code, and a method's `self.guard = Guard()`; with `shallow`, only in
        the tests and items of a compound statement, whose bodies are read as statements."""
        roots = [getattr(node, name) for name in ("test", "items") if getattr(node, name, None)] if shallow else [node]
        parts = [part for root in roots for part in (root if isinstance(root, list) else [root])]
        code = [item for part in parts for item in ast.walk(part)]
        # `gate = SurfaceGate(...)` in a function: `gate.enforce` handed to a registration is a method of SurfaceGate.
        self.locals = {
            target.id: self.absolute(kind)
            for found in code
            if isinstance(found, ast.Assign) and isinstance(found.value, ast.Call)
            and (kind := _dotted(found.value.func))
            for target in found.targets
            if isinstance(target, ast.Name)
        }  # fmt: skip
        # `visible = list(run.tools)`: a local taken from a tool list (or a copy or view of one)
        # hands a tool list on, whatever its name says.
        self.tooled = set()
        for found in code:
            if isinstance(found, ast.Assign) and self._kind(_viewed(found.value)) == TOOLS:
                self.tooled |= {target.id for target in found.targets if isinstance(target, ast.Name)}
        for found in code:
            if isinstance(found, ast.Call):
                self._call(found, owner)
            if isinstance(found, ast.Assign | ast.AnnAssign) and found.value is not None:
                self._slot(found)
                self._member(found, owner, body=False)
            if owner and isinstance(found, ast.Assign) and self._dispatch(found.value):
                self.dispatchers += [
                    (owner, target.attr)
                    for target in found.targets
                    if isinstance(target, ast.Attribute) and _dotted(target.value) == "self"
                ]
                self.places += [
                    (f"{owner}.{target.attr}", *self._at(target), _sent(found.value))
                    for target in found.targets
                    if isinstance(target, ast.Attribute) and _dotted(target.value) == "self"
                ]
            if owner and isinstance(found, ast.Assign) and isinstance(found.value, ast.Name):
                kind = self.typed.get(found.value.id, "")
                for target in found.targets:
                    if kind and isinstance(target, ast.Attribute) and _dotted(target.value) == "self":
                        self.instances.append((owner, target.attr, kind))
            if owner and isinstance(found, ast.Assign) and isinstance(found.value, ast.Call):
                kind = _dotted(found.value.func)
                for target in found.targets:
                    if (
                        kind
                        and isinstance(target, ast.Attribute)
                        and isinstance(target.value, ast.Name)
                        and target.value.id == "self"
                    ):
                        self.instances.append((owner, target.attr, self.absolute(kind)))

    def _keyed(self, statement: ast.Assign | ast.AnnAssign) -> None:
        """`STAGES = {"send": gateway.dispatch, …}`: a table of callables whose entry sends,
        recorded as the dispatcher `STAGES["send"]`."""
        if not isinstance(statement.value, ast.Dict):
            return
        targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
        sends = {("", _dotted(value)) for value in statement.value.values if _dotted(value)}
        for key, value in zip(statement.value.keys, statement.value.values, strict=True):
            if not (isinstance(key, ast.Constant) and isinstance(key.value, str)):
                continue
            if self._dispatch(value) or ("", _dotted(value)) in set(self.dispatchers) & sends:
                self.dispatchers += [("", f'{t.id}["{key.value}"]') for t in targets if isinstance(t, ast.Name)]
                self.places += [
                    (f'{t.id}["{key.value}"]', *self._at(key), _sent(value)) for t in targets if isinstance(t, ast.Name)
                ]

    def _dispatch(self, value: ast.expr) -> bool:
        """`gateway.dispatch`, or `partial(gateway.dispatch, …)`: a value that sends when called."""
        if isinstance(value, ast.Call) and value.args and _dotted(value.func) in ("partial", "functools.partial"):
            value = value.args[0]
        name = _dotted(value)
        if not name:
            return False
        return named(name, self.config.dispatch) or named(self.absolute(name), self.config.dispatch)

    def _slot(self, node: ast.Assign | ast.AnnAssign) -> None:
        """`request.tools = admitted`, `spec["input_schema"] = shape`: a value put where a tool
        list or a schema goes, recorded as handed to no callee under the slot's name."""
        assert node.value is not None
        handed = _handed(node.value)
        if not handed:
            return
        for target in node.targets if isinstance(node, ast.Assign) else [node.target]:
            if isinstance(target, ast.Subscript) and isinstance(target.slice, ast.Constant):
                slot = str(target.slice.value)
            elif isinstance(target, ast.Attribute):
                slot = target.attr
            else:
                continue
            self.feeds.append(("", slot, self._kind(node.value), handed))

    def _call(self, node: ast.Call, owner: str) -> None:
        callee = _dotted(node.func)
        if not callee or not (node.args or node.keywords):
            return
        if named(callee, self.config.hook_registration) or named(self.absolute(callee), self.config.hook_registration):
            for value in (*node.args, *(keyword.value for keyword in node.keywords)):
                handed = _dotted(value.func if isinstance(value, ast.Call) else value)
                head, _, method = (handed or "").partition(".")
                if head in self.locals and method and "." not in method:
                    self.registered.append(f"{self.locals[head]}.{method}")
                    self.registrations.append((self.registered[-1], *self._at(node)))
                elif handed:
                    self.registered.append(self.absolute(handed))
                    self.registrations.append((self.registered[-1], *self._at(node)))
        head, _, rest = callee.partition(".")
        if head in ("self", "cls") and owner and rest and rest.count(".") <= 1:
            # `self.check(…)`, a method of the class; `self.guard.check(…)`, of the class of its field.
            target = f"{self.module}.{owner}.{rest}"
        else:
            target = self.absolute(callee)
        for position, argument in enumerate(node.args):
            if isinstance(argument, ast.Starred):
                break  # the positions after it are not known
            self.feeds.append((target, str(position), self._kind(argument), _handed(argument)))
        for keyword in node.keywords:
            if keyword.arg:
                self.feeds.append((target, keyword.arg, self._kind(keyword.value), _handed(keyword.value)))

    def _kind(self, value: ast.expr) -> str:
        """TOOLS or SCHEMA for an argument named as one (`request.tools`, `spec["input_schema"]`),
        OTHER for any other."""
        if isinstance(value, ast.Name) and value.id in self.tooled:
            return TOOLS
        if isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Constant):
            name = str(value.slice.value)
        else:
            name = (_dotted(value) or "").rsplit(".", 1)[-1]
        if not name or name.lower().lstrip("_").split("_", 1)[0] in _VERBS:
            return OTHER  # `get_tools`, `self._list_tools`: a function handed on, not a list
        lowered = name.lower()
        words = self.config.tool_words
        if any(lowered == word or lowered.endswith(f"_{word}") for word in words):
            return TOOLS
        if name in self.config.schema_keys or any(lowered.endswith(word) for word in self.config.schema_words):
            return SCHEMA
        return OTHER


#: First words of a function's name: a value named `get_tools` is the function that gets them.
_VERBS = frozenset(
    {"get", "list", "fetch", "load", "make", "build", "create", "prepare", "resolve", "find", "collect", "read"}
)

#: Calls that hand on a copy or a view of their first argument: what they are handed, they give.
_VIEWS = frozenset({"list", "tuple", "sorted", "reversed", "copy.copy", "copy.deepcopy", "deepcopy", "copy"})


def _viewed(value: ast.expr) -> ast.expr:
    """What a copy or a view is of (`list(tools)`, `tools[:n]`, `tools.copy()`, `sorted(tools)`):
    the value itself for anything else."""
    while True:
        if isinstance(value, ast.Call) and value.args and _dotted(value.func) in _VIEWS:
            value = value.args[0]
        elif isinstance(value, ast.Call) and isinstance(value.func, ast.Attribute) and value.func.attr == "copy":
            value = value.func.value
        elif isinstance(value, ast.Subscript) and isinstance(value.slice, ast.Slice):
            value = value.value
        else:
            return value


def _handed(value: ast.expr) -> str:
    """`admitted` for a local, `.catalogue` for a field (`settings.catalogue`), through a copy or a
    view of it (`list(admitted)`, `admitted[:n]`, `admitted.copy()`); "" for anything else."""
    value = _viewed(value)
    if isinstance(value, ast.Name):
        return value.id
    if isinstance(value, ast.Attribute) and _dotted(value):
        return f".{value.attr}"
    return ""


#: Containers a function annotated `-> list[ToolSpec]` returns the tools in.
_CONTAINERS = frozenset({"list", "List", "Sequence", "tuple", "Tuple", "Iterable", "Iterator", "MutableSequence"})


def _returns_tool_list(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether a function is annotated to return a container of tools: `-> list[ToolSpec]`,
    `-> Sequence[Tool]` (an element class named with the word "tool")."""
    returns = function.returns
    if not isinstance(returns, ast.Subscript) or (_dotted(returns.value) or "").rpartition(".")[2] not in _CONTAINERS:
        return False
    element = returns.slice.elts[0] if isinstance(returns.slice, ast.Tuple) and returns.slice.elts else returns.slice
    name = (_dotted(element) or "").rpartition(".")[2]
    return "tool" in name.lower() and not name.lower().endswith(("name", "names", "call", "calls", "result"))


def _calls(function: ast.FunctionDef | ast.AsyncFunctionDef, names: tuple[str, ...]) -> bool:
    """Whether a function calls one of these names anywhere in its body."""
    return any(isinstance(node, ast.Call) and named(_dotted(node.func) or "", names) for node in ast.walk(function))


def _keeps_as_given(init: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    """Whether an `__init__` stores parameters on `self` and stores each as it was handed
    (`self.tools = tools`), never a copy or anything built from one (`self.tools = list(tools)`)."""
    given = {arg.arg for arg in (*init.args.posonlyargs, *init.args.args, *init.args.kwonlyargs)} - {"self"}
    stored = [
        node.value
        for node in ast.walk(init)
        if isinstance(node, ast.Assign)
        and any(isinstance(t, ast.Attribute) and _dotted(t.value) == "self" for t in node.targets)
        and any(isinstance(name, ast.Name) and name.id in given for name in ast.walk(node.value))
    ]
    return bool(stored) and all(isinstance(value, ast.Name) for value in stored)


def _tests_hooks(function: ast.FunctionDef | ast.AsyncFunctionDef, config: ScanConfig) -> bool:
    """Whether a function's one statement (past its docstring) returns something about hooks: a
    name with a hook word, or a hook event's name in a string (`registered("before_send")`)."""
    body = function.body[1:] if ast.get_docstring(function) is not None else function.body
    if len(body) != 1 or not isinstance(body[0], ast.Return) or body[0].value is None:
        return False
    words = set(config.hook_words)
    for node in ast.walk(body[0].value):
        name = node.id if isinstance(node, ast.Name) else node.attr if isinstance(node, ast.Attribute) else ""
        if name and (words & set(name.lower().split("_")) or name.lower() in words):
            return True
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and node.value.lower() in words:
            return True
    return False


def _sent(value: ast.expr) -> str:
    """The dispatch a name is bound to: `gateway.dispatch` of `partial(gateway.dispatch, …)`."""
    if isinstance(value, ast.Call) and value.args and _dotted(value.func) in ("partial", "functools.partial"):
        value = value.args[0]
    return _dotted(value) or ""


_Row = TypeVar("_Row", bound=tuple[object, ...])


def _first(rows: list[_Row]) -> tuple[_Row, ...]:
    """Each row whose name (its first item) is new, in order: the first definition of a name."""
    found: dict[object, _Row] = {}
    for row in rows:
        found.setdefault(row[0], row)
    return tuple(found.values())


def _dotted(node: ast.expr) -> str | None:
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])
