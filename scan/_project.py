"""The scanned files as one program: each name a module uses resolved to its definition in another,
and what is known of that definition handed to the rules as seams of the module's own.

A rule reads one module. What it needs may live in another: the final check made by a helper in
`support/guards.py`, the settlement by a ledger service's method, a refusal class whose base is
the project's `SurfaceRefused`, a parameter named `admitted` that every caller hands the request's
tool list. The summaries of every module (`_summary`) are joined here: each import, re-export
(`pkg/__init__.py`'s `from .guards import ensure`), alias, module-level instance (`GUARD =
Guard()`), instance field (`self.guard = Guard()`) and base class in another module is followed to
the function, method or class it names. What is found becomes settings of the module that names
it, spelled as that module spells it (`verify`, `guards.ensure`, `self.ensure`, `guard.verify`):
a helper that always checks is a check there, one that always settles a settlement, a subclass of a
refusal a refusal word, a parameter fed a tool list or a schema at any call site a tool word or a
schema name. The rules then read each module as before, with nothing to learn about other modules.

A helper that checks because it calls another module's helper that checks is found by going round
again: `derive` reports which modules' settings changed, their summaries are made again with their
new settings, until nothing changes.
"""

from __future__ import annotations

import dataclasses
from collections import defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any

from ._summary import OTHER, SCHEMA, TOOLS, Summary
from ._types import ScanConfig


@dataclass(frozen=True, slots=True)
class Derived:
    """Settings a module gets from the rest of the program, added to the configured ones."""

    dispatch: tuple[str, ...] = ()
    check: tuple[str, ...] = ()
    settle: tuple[str, ...] = ()
    hooks: tuple[str, ...] = ()
    refusal_words: tuple[str, ...] = ()
    tool_words: tuple[str, ...] = ()
    #: Whole names, where a schema word ends a name (`schema` ends `json_schema`): a parameter
    #: `shape` that holds a schema does not make `reshape` one.
    schema_keys: tuple[str, ...] = ()
    editors: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    readers: tuple[str, ...] = ()
    settling_managers: tuple[str, ...] = ()
    hook_conditions: tuple[str, ...] = ()
    returners: tuple[tuple[str, tuple[str, ...], tuple[str, ...]], ...] = ()
    refusal_lineage: tuple[tuple[str, tuple[str, ...]], ...] = ()
    tool_getters: tuple[str, ...] = ()
    comparers: tuple[str, ...] = ()
    settle_steps: tuple[str, ...] = ()
    #: Functions that return a control tool, by the last part of the name the module calls them by.
    controls: tuple[str, ...] = ()
    #: Classes of the module with tool-list fields declared on a base in another module: `(class, fields)`.
    tool_fields: tuple[tuple[str, tuple[str, ...]], ...] = ()
    #: Classes of the module built by an `__init__` another module defines, which the rules cannot read.
    foreign_inits: tuple[str, ...] = ()
    #: Where each name above is decided in another file (see `ScanConfig.origins`).
    origins: tuple[tuple[str, str, int, int, str], ...] = ()

    def applied(self, config: ScanConfig) -> ScanConfig:
        """`config` with these names added, each setting's configured names first."""
        if self == _NOTHING:
            return config
        added: dict[str, Any] = {
            field.name: tuple(dict.fromkeys((*getattr(config, field.name), *getattr(self, field.name))))
            for field in dataclasses.fields(self)
            if getattr(self, field.name)
        }
        return dataclasses.replace(config, **added)


_NOTHING = Derived()


@dataclass(frozen=True, slots=True)
class _Definition:
    """What an absolute dotted name resolves to: a module, a class, a function or method, or an
    instance of a class."""

    kind: str  # "module", "class", "function", "instance"
    module: str
    #: Within the module: "" for the module itself, `f`, `C`, `C.m`; for an instance, its class's absolute name.
    name: str


#: How far an import chain or a class hierarchy is followed: past any written by hand, short of a cycle's cost.
_DEPTH = 16


class Program:
    """Every module's summary, indexed for resolving names across them."""

    def __init__(self, summaries: Iterable[Summary]) -> None:
        self.modules: dict[str, Summary] = {}
        for summary in summaries:
            self.modules.setdefault(summary.module, summary)
        self._imports = {name: dict(s.imports) for name, s in self.modules.items()}
        self._classes = {name: dict(s.classes) for name, s in self.modules.items()}
        # What a module's code can call: its functions and methods, and the names it binds to the
        # dispatch (`send = gateway.dispatch`, a method's `self._send = partial(...)`), which take
        # no parameters the scan knows.
        self._functions = {
            name: {**dict(s.functions), **{f"{o}.{n}" if o else n: () for o, n in s.dispatchers}}
            for name, s in self.modules.items()
        }
        self._submodules: dict[str, list[str]] = defaultdict(list)
        for name in self.modules:
            self._submodules[name.rpartition(".")[0]].append(name)
        self._places = {
            name: {defined: (line, column) for defined, line, column, _ in s.places} for name, s in self.modules.items()
        }
        self._instances = {
            name: {(owner, field): kind for owner, field, kind in s.instances} for name, s in self.modules.items()
        }

    def resolve(self, dotted: str, depth: int = 0) -> _Definition | None:
        """The definition an absolute dotted name stands for, through re-exports, aliases and
        instances; None for a name outside the program."""
        if depth > _DEPTH:
            return None
        parts = dotted.split(".")
        for cut in range(len(parts), 0, -1):
            module = ".".join(parts[:cut])
            if module in self.modules:
                return self._within(module, parts[cut:], depth)
        return None

    def _within(self, module: str, rest: list[str], depth: int) -> _Definition | None:
        if not rest:
            return _Definition("module", module, "")
        head, tail = rest[0], rest[1:]
        if head in self._classes[module]:
            if not tail:
                return _Definition("class", module, head)
            if len(tail) == 2 and (head, tail[0]) in self._instances[module]:  # a method of a field's class
                kind = self._instances[module][(head, tail[0])]
                return self.member(kind if "." in kind else f"{module}.{kind}", tail[1], depth)
            return self.member(f"{module}.{head}", tail[0], depth) if len(tail) == 1 else None
        if head in self._functions[module]:
            return _Definition("function", module, head) if not tail else None
        if ("", head) in self._instances[module]:
            kind = self._instances[module][("", head)]
            if not tail:
                return _Definition("instance", module, kind)
            return self.member(kind, tail[0], depth) if len(tail) == 1 else None
        if head in self._imports[module]:
            return self.resolve(".".join([self._imports[module][head], *tail]), depth + 1)
        return None

    def member(self, klass: str, name: str, depth: int = 0) -> _Definition | None:
        """The method `name` of the class an absolute name stands for, its own or inherited."""
        found = self.resolve(klass, depth + 1)
        if found is None or found.kind != "class" or depth > _DEPTH:
            return None
        if f"{found.name}.{name}" in self._functions[found.module]:
            return _Definition("function", found.module, f"{found.name}.{name}")
        for base in self._classes[found.module][found.name]:
            if inherited := self.member(base, name, depth + 1):
                return inherited
        return None

    def origin(self, spelled: str, found: _Definition, said: str) -> tuple[str, str, int, int, str] | None:
        """Where a name this module calls `spelled` is defined, and what is found of it there, as
        a step of a flow in that file; None when the summary does not know its file."""
        summary = self.modules[found.module]
        at = self._places[found.module].get(found.name)
        if not summary.path or at is None:
            return None
        return (spelled, summary.path, at[0], at[1], f"`{found.name}` {said}")

    def parameters(self, definition: _Definition) -> tuple[str, ...]:
        return self._functions[definition.module].get(definition.name, ())

    def bases(self, module: str, klass: str) -> Iterator[tuple[str, str]]:
        """Every class `klass` inherits from within the program, as (module, class), nearest first."""
        pending, seen = [(module, klass)], set[tuple[str, str]]()
        while pending and len(seen) <= _DEPTH * 4:
            owner, name = pending.pop(0)
            for base in self._classes[owner].get(name, ()):
                found = self.resolve(base)
                if found is not None and found.kind == "class" and (found.module, found.name) not in seen:
                    seen.add((found.module, found.name))
                    yield found.module, found.name
                    pending.append((found.module, found.name))

    def spellings(self, module: str) -> Iterator[tuple[str, _Definition]]:
        """Each way `module` can call a function or method of the program, and what it calls:
        an imported function (`verify`), a function of an imported module (`guards.ensure`), a
        method of an imported or module-level instance (`GUARD.check`), of an instance field
        (`guard.check`, matched also as `self._guard.check`), or inherited from a base in another
        module (`self.check`)."""
        for local, target in self._imports[module].items():
            found = self.resolve(target)
            if found is None:
                yield from self._entries(local, target)
                continue
            if found.kind == "function":
                yield local, found
            elif found.kind == "module":
                yield from self._in_module(local, found.module)
            elif found.kind == "instance":
                yield from self._methods(local, found.name)
            elif found.kind == "class":
                yield from self._methods(local, target)  # `Guard.check(...)`, a static or class method
        for (_, field), kind in self._instances[module].items():
            yield from self._methods(field, kind if "." in kind else f"{module}.{kind}")
        for klass in self._classes[module]:
            for base_module, base in self.bases(module, klass):
                for function in self._functions[base_module]:
                    if function.startswith(f"{base}."):
                        name = function.split(".", 1)[1]
                        yield f"self.{name}", _Definition("function", base_module, function)
                        yield f"cls.{name}", _Definition("function", base_module, function)

    def _entries(self, spelled: str, target: str) -> Iterator[tuple[str, _Definition]]:
        """`STAGES["send"]` for an entry of a table of callables another module defines."""
        module, _, table = target.rpartition(".")
        for function in self._functions.get(module, ()):
            if function.startswith(f"{table}["):
                yield f"{spelled}{function[len(table) :]}", _Definition("function", module, function)

    def _in_module(self, spelled: str, module: str, depth: int = 0) -> Iterator[tuple[str, _Definition]]:
        """`guards.ensure` for a function of the module, its own or one it imports, and
        `pkg.guards.ensure` through a package's submodules."""
        for function in self._functions[module]:
            if "." not in function:
                yield f"{spelled}.{function}", _Definition("function", module, function)
        for name, target in self._imports[module].items():
            found = self.resolve(target)
            if found is not None and found.kind == "function":
                yield f"{spelled}.{name}", found
        if depth < _DEPTH:
            for submodule in self._submodules.get(module, ()):
                yield from self._in_module(f"{spelled}.{submodule.rpartition('.')[2]}", submodule, depth + 1)

    def _methods(self, spelled: str, klass: str) -> Iterator[tuple[str, _Definition]]:
        found = self.resolve(klass)
        if found is None or found.kind != "class":
            return
        owners = [(found.module, found.name), *self.bases(found.module, found.name)]
        for owner_module, owner in owners:
            for function in self._functions[owner_module]:
                if function.startswith(f"{owner}."):
                    yield f"{spelled}.{function.split('.', 1)[1]}", _Definition("function", owner_module, function)


def derive(program: Program, config: ScanConfig) -> dict[str, Derived]:
    """Each module's settings from the rest of the program (modules that get none are left out)."""
    edits = {(name, function): edited for name, s in program.modules.items() for function, edited in s.edits}
    dispatchers = {(name, f"{o}.{n}" if o else n) for name, s in program.modules.items() for o, n in s.dispatchers}
    # Facts of another module's function that become a name setting of the module calling it.
    by_name = {
        "check": "checks",
        "settle": "settles",
        "readers": "readers",
        "settling_managers": "managers",
        "hook_conditions": "conditions",
        "comparers": "comparers",
        "settle_steps": "settlers",
    }
    facts = {
        setting: {(name, f) for name, s in program.modules.items() for f in getattr(s, field)}
        for setting, field in by_name.items()
    }
    returns = {(name, function): returned for name, s in program.modules.items() for function, returned in s.returns}
    getters = {(name, function) for name, s in program.modules.items() for function in s.getters}
    builds = {(name, f) for name, s in program.modules.items() for f in s.builds}
    refusals = _refusals(program, config)
    lineage = _lineage(program, config)
    fed, everywhere = _fed(program, config)
    hooks = _hooks(program)
    said, hooked = _said(program), _hooked_at(program)
    derived: dict[str, Derived] = {}
    for module in program.modules:
        dispatch: set[str] = set()
        names: dict[str, set[str]] = {setting: set() for setting in facts}
        returning = {}
        # The module's own: called by name, or as a method of `self`.
        getting = {spelled for function in program.modules[module].getters for spelled in _own_spellings(function)}
        # The module's own table of callables: TS101 follows aliases, not tables' entries.
        dispatch |= {name for owner, name in program.modules[module].dispatchers if not owner and "[" in name}
        build = set(program.modules[module].builds)
        editing = {}
        why: dict[str, tuple[str, str, int, int, str]] = {}
        for spelled, found in program.spellings(module):
            key = (found.module, found.name)
            if key in said and found.module != module and (origin := program.origin(spelled, found, said[key])):
                why.setdefault(spelled, origin)
            if key in edits and found.module != module:
                editing[spelled] = (spelled, program.parameters(found), edits[key])
            if key in dispatchers and (spelled != found.name or found.module != module):
                dispatch.add(spelled)
            for setting, keys in facts.items():
                if key in keys and found.module != module:
                    names[setting].add(spelled)
            if key in getters:
                getting.add(spelled)
            if key in returns and found.module != module:
                returning[spelled] = (spelled, program.parameters(found), returns[key])
            if key in builds:
                build.add(spelled.rpartition(".")[2])
        own = fed.get(module) or _Named()
        tools = sorted({*own.tools, *everywhere.tools})
        schemas = sorted({*own.schemas, *everywhere.schemas})
        got = Derived(
            tuple(sorted(dispatch)),
            hooks=tuple(sorted(hooks.get(module, ()))),
            refusal_words=refusals,
            tool_words=tuple(tools),
            schema_keys=tuple(schemas),
            editors=tuple(editing[spelled] for spelled in sorted(editing)),
            controls=tuple(sorted(build)),
            returners=tuple(returning[spelled] for spelled in sorted(returning)),
            refusal_lineage=lineage,
            tool_getters=tuple(sorted(getting)),
            tool_fields=_inherited_tools(program, module, config, everywhere),
            foreign_inits=_foreign_inits(program, module),
            origins=tuple(sorted({*why.values(), *hooked.get(module, ())})),
            **{setting: tuple(sorted(spelled)) for setting, spelled in names.items()},
        )
        if got != _NOTHING:
            derived[module] = got
    return derived


def _inherited_tools(
    program: Program, module: str, config: ScanConfig, everywhere: _Named
) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """The module's classes whose bases in other modules declare tool-list fields (named with a
    tool word, or a field found to hold a tool list): a subclass's copy of `self` shares them as
    surely as one made in the base's own module."""
    found = []
    for klass, _ in program.modules[module].classes:
        inherited = [
            field
            for base_module, base in program.bases(module, klass)
            if base_module != module
            for field in dict(program.modules[base_module].fields).get(base, ())
            if _known(field, TOOLS, config) or field in everywhere.tools
        ]
        if inherited:
            found.append((klass, tuple(dict.fromkeys(inherited))))
    return tuple(found)


def _foreign_inits(program: Program, module: str) -> tuple[str, ...]:
    """The module's classes with no `__init__` of their own that inherit one from another module's
    class, which may keep a copy of what it is handed; not one that keeps its parameters as they
    are (`self.toolset = toolset`), whose rebuild shares what it is handed."""
    found = []
    for klass, _ in program.modules[module].classes:
        init = program.member(f"{module}.{klass}", "__init__")
        if init is not None and init.module != module and init.name not in program.modules[init.module].keeps:
            found.append(klass)
    return tuple(found)


def _hooks(program: Program) -> Mapping[str, set[str]]:
    """Per module, its functions and classes that another module hands to a hook registration
    (an instance of a class: the class)."""
    found: dict[str, set[str]] = defaultdict(set)
    for summary in program.modules.values():
        for handed in summary.registered:
            if (definition := _hook(program, handed)) is not None:
                found[definition.module].add(definition.name.rpartition(".")[2])
    return found


def _hook(program: Program, handed: str) -> _Definition | None:
    """The function or class a name handed to a hook registration stands for."""
    definition = program.resolve(handed)
    if definition is not None and definition.kind == "instance":
        definition = program.resolve(definition.name)
    # A bound method (`gate.enforce`) names the method: the scan reads methods by name.
    return definition if definition is not None and definition.kind in ("class", "function") else None


def _hooked_at(program: Program) -> Mapping[str, list[tuple[str, str, int, int, str]]]:
    """Per module, where another module registers its hooks, as origins (see `Program.origin`)."""
    found: dict[str, list[tuple[str, str, int, int, str]]] = defaultdict(list)
    for summary in program.modules.values():
        for handed, line, column in summary.registrations:
            definition = _hook(program, handed)
            if definition is not None and definition.module != summary.module and summary.path:
                name = definition.name.rpartition(".")[2]
                found[definition.module].append((name, summary.path, line, column, f"`{name}` registered as a hook"))
    return found


def _said(program: Program) -> dict[tuple[str, str], str]:
    """What is found of each function, method and dispatch binding of the program, by (module,
    qualified name), in the few words a flow's step in its file says."""
    said: dict[tuple[str, str], list[str]] = defaultdict(list)
    for module, summary in program.modules.items():
        bound = {name: sent for name, _, _, sent in summary.places}
        for owner, name in summary.dispatchers:
            qualified = f"{owner}.{name}" if owner else name
            sent = bound.get(qualified, "")
            said[(module, qualified)].append(f"is bound to the dispatch `{sent}`" if sent else "sends the request")
        facts: list[tuple[Iterable[str], str]] = [
            (summary.checks, "checks on every path"),
            (summary.settles, "settles on every path"),
            (summary.managers, "settles the block of a `with` over it however it is left"),
            (summary.readers, "reads a diagnostic field of the messages it is handed"),
            (summary.builds, "returns a control tool"),
            (summary.conditions, "says whether hooks are registered"),
        ]
        for names, words in facts:
            for name in sorted(names):
                said[(module, name)].append(words)
        for name, edited in summary.edits:
            said[(module, name)].append(f"edits its parameter {', '.join(f'`{p}`' for p in edited)}")
    return {key: "; ".join(words) for key, words in said.items()}


def _own_spellings(function: str) -> tuple[str, ...]:
    """How a module calls its own function or method: `f`, or `self.m` of `C.m`."""
    owner, _, name = function.rpartition(".")
    return (f"self.{name}", f"cls.{name}") if owner else (name,)


def _lineage(program: Program, config: ScanConfig) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """Each refusal class of the program (named so, or inheriting from one) with the names of the
    classes it inherits from in the program: an `except` of another refusal does not catch it."""
    found: dict[str, tuple[str, ...]] = {}
    for module, summary in program.modules.items():
        for klass, _ in summary.classes:
            bases = tuple(base for _, base in program.bases(module, klass))
            if _words(klass, config.refusal_words) or any(_words(base, config.refusal_words) for base in bases):
                found[klass] = tuple(sorted(set(bases) | set(found.get(klass, ()))))
    return tuple(sorted(found.items()))


def _refusals(program: Program, config: ScanConfig) -> tuple[str, ...]:
    """The names of the program's classes that inherit from a refusal (named with a refusal word),
    in lower case: raising one is a refusal wherever it is raised."""
    found = set()
    for module, summary in program.modules.items():
        for klass, _ in summary.classes:
            if _words(klass, config.refusal_words):
                continue
            if any(_words(base, config.refusal_words) for _, base in program.bases(module, klass)):
                found.add(klass.lower())
    return tuple(sorted(found))


def _words(name: str, words: Iterable[str]) -> bool:
    lowered = name.lower()
    return any(word in lowered for word in words)


def _fed(program: Program, config: ScanConfig) -> tuple[dict[str, _Named], _Named]:
    """Tool lists and schemas known by where they go. Per module, the parameters of its functions
    that every call in the program that binds them hands a tool list or a schema: what it is
    always handed, it holds (one call that hands it anything else leaves it unknown). And the
    names handed where a tool list or a schema goes (`Request(tools=admitted)`, or to such a
    parameter): a local name in the module that hands it, a field (`settings.catalogue`) in every
    module, since the scan does not know which class's field it is."""
    handed: dict[tuple[str, str, str], set[str]] = defaultdict(set)
    callables: dict[str, _Definition | None] = {}
    slots: list[tuple[str, _Definition | None, str, str]] = []
    for summary in program.modules.values():
        for callee, at, kind, name in summary.feeds:
            if callee not in callables:
                callables[callee] = _callable(program, callee)
            definition = callables[callee]
            parameter = at
            if definition is not None:
                parameters = program.parameters(definition)
                # A method's `self` or `cls` is bound by the call, not handed in it.
                at = str(int(at) + 1) if at.isdigit() and parameters[:1] in (("self",), ("cls",)) else at
                parameter = parameters[int(at)] if at.isdigit() and int(at) < len(parameters) else at
                if parameter in parameters and parameter not in ("self", "cls"):
                    handed[(definition.module, definition.name, parameter)].add(kind)
            # Whatever it was summarised as: a name found here before is a tool word there by now.
            if name and not parameter.isdigit():
                slots.append((summary.module, definition, parameter, name))
    always: dict[str, _Named] = defaultdict(_Named)
    for (module, _, name), kinds in handed.items():
        if len(kinds) == 1 and (kind := next(iter(kinds))) != OTHER and not _known(name, kind, config):
            always[module].add(kind, name)
    # A name is known by where it goes only when everywhere it goes, the slot is of one kind: a
    # name handed to a tool list's slot and to another one (`timeout=`) says nothing. Slots are
    # named exactly (`tools=`, not `warn_on_duplicate_tools=`), or parameters always handed one.
    per_module: dict[str, _Named] = always
    everywhere = _Named()
    for _ in range(_DEPTH):
        goes: dict[tuple[str, str], set[str]] = defaultdict(set)
        for module, definition, parameter, name in slots:
            own = per_module.get(definition.module) if definition is not None else None
            if parameter == name.lstrip(".") and (own is None or parameter not in {*own.tools, *own.schemas}):
                # `Settings(catalogue=catalogue)` hands a name on under itself: it says nothing,
                # unless the parameter was found to hold one (`research_agent(settings.catalogue)`).
                continue
            kinds = {
                kind
                for kind in (TOOLS, SCHEMA)
                if _exact(parameter, kind, config) or (own is not None and parameter in own.of(kind))
            }
            # A field's name is the field's wherever it is read; a local's, its module's.
            key = ("", name[1:]) if name.startswith(".") else (module, name)
            goes[key] |= kinds or {OTHER}
        found: dict[str, _Named] = defaultdict(_Named)
        for module, named in always.items():
            for kind in (TOOLS, SCHEMA):
                for name in named.of(kind):
                    if goes.get((module, name), {kind}) == {kind}:
                        found[module].add(kind, name)
        fields = _Named()
        for (module, name), kinds in goes.items():
            if len(kinds) == 1 and (kind := next(iter(kinds))) != OTHER and not _known(name, kind, config):
                (fields if not module else found[module]).add(kind, name)
        settled = _sizes(found, fields) == _sizes(per_module, everywhere)
        per_module, everywhere = found, fields
        if settled:
            break
    return per_module, everywhere


def _sizes(per_module: Mapping[str, _Named], everywhere: _Named) -> tuple[int, int]:
    return sum(named.size() for named in per_module.values()), everywhere.size()


def _exact(name: str, kind: str, config: ScanConfig) -> bool:
    """Whether a slot is named exactly as a tool list (`tools`, or a baseline, which holds the
    expected one) or a schema (`input_schema`)."""
    if kind == TOOLS:
        return name.lower() in config.tool_words or name in config.baseline
    return name in config.schema_keys


class _Named:
    """Names found to hold tool lists, and names found to hold schemas."""

    def __init__(self) -> None:
        self.tools: dict[str, None] = {}
        self.schemas: dict[str, None] = {}

    def add(self, kind: str, name: str) -> None:
        (self.tools if kind == TOOLS else self.schemas)[name] = None

    def size(self) -> int:
        return len(self.tools) + len(self.schemas)

    def of(self, kind: str) -> dict[str, None]:
        return self.tools if kind == TOOLS else self.schemas


def _callable(program: Program, callee: str) -> _Definition | None:
    """The function a call runs: a function, a method, or a class's `__init__`."""
    found = program.resolve(callee) if callee else None
    if found is not None and found.kind == "class":
        return program.member(f"{found.module}.{found.name}", "__init__")
    return found if found is not None and found.kind == "function" else None


def _known(name: str, kind: str, config: ScanConfig) -> bool:
    """Whether the configured words already name it so."""
    lowered = name.lower()
    if kind == TOOLS:
        return any(lowered == word or lowered.endswith(f"_{word}") for word in config.tool_words)
    return kind == SCHEMA and (
        name in config.schema_keys or any(lowered.endswith(word) for word in config.schema_words)
    )
