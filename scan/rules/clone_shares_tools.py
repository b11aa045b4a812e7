"""TS112 clone-shares-tools: a copy of an object with a tool list keeps the original's list."""

from __future__ import annotations

from collections.abc import Iterator

import libcst as cst

from .._cfg import block
from .._outline import Outline, Unit, clones
from .._rule import (
    Invalid,
    Match,
    Mentions,
    Needs,
    Rule,
    Tree,
    assigned,
    canonical,
    dotted,
    imports,
    shown,
)
from .._types import ScanConfig
from .._values import SCALAR_TYPES, SHALLOW_COPIES, is_tool_list_name, parameters

#: Calls that copy an object field by field, every field kept as it is.
_COPIES = frozenset({"dataclasses.replace", "copy.replace", "copy.copy", "replace", "copy"})


class CloneSharesTools(Rule):
    """A method of a class with a tool-list field that makes a copy of `self` — `dataclasses.replace`,
    `copy.copy`, `model_copy()`, or its own constructor handed `self.tools` — and gives the copy the
    very same list: appending a tool to the clone adds it to the original, and both share every
    tool's schema. A copy given a list of its own — `replace(self, tools=…)`,
    `model_copy(update={"tools": …})`, a constructor whose `__init__` keeps `list(tools)` — is not."""

    id = "TS112"
    name = "clone-shares-tools"
    message = (
        "give the clone its own tool list (tools=list(self.tools), or deep copies of the tools) instead of "
        "the original's"
    )
    module_level = False  # it reports in methods; their classes and bases are kept with them
    valid = (
        """
import dataclasses

@dataclasses.dataclass
class Agent:
    name: str
    tools: list

    def clone(self, **kwargs):
        kwargs.setdefault("tools", list(self.tools))
        return dataclasses.replace(self, **kwargs)
""",
        """
import copy

class Agent:
    def __init__(self, tools):
        self.tools = tools

    def fork(self):
        twin = copy.copy(self)
        twin.tools = [copy.deepcopy(tool) for tool in self.tools]
        return twin
""",
        """
class Agent(BaseModel):
    tools: list

    def fork(self, name):
        return self.model_copy(update={"name": name, "tools": [t.model_copy(deep=True) for t in self.tools]})

    async def afork(self):
        return self.model_copy(update=dict(tools=list(self.tools)))

    def with_tool(self, tool):
        changes = {"name": self.name}
        changes["tools"] = [*self.tools, tool]
        return self.model_copy(update=changes)
""",
        """
import dataclasses as dc

@dc.dataclass
class Agent:
    tools: list

    def variants(self, names):
        return [dc.replace(self, name=name, tools=[*self.tools]) for name in names]
""",
        """
class Worker:
    def __init__(self, role, tools, *, extra_tools=()):
        self.role = role
        self.tools = list(tools)
        self.extra_tools = [*extra_tools]

    def spawn(self, role):
        return Worker(role, self.tools)

    def respawn(self):
        return type(self)(self.role, tools=self.tools, extra_tools=self.extra_tools)
""",
        """
import dataclasses

@dataclasses.dataclass
class Settings:
    name: str

    def renamed(self, name):
        return dataclasses.replace(self, name=name)
""",
    )
    invalid = (
        # A rebuild by the class's own name, in a module that names no copy.
        Invalid(
            """
class Planner:
    def __init__(self, name, tools):
        self.name = name
        self.tools = tools

    def spawn(self, suffix):
        return Planner(f"{self.name}/{suffix}", self.tools)
""",
            line=8,
        ),
        Invalid(
            """
import dataclasses

@dataclasses.dataclass
class Agent:
    name: str
    tools: list = dataclasses.field(default_factory=list)

    def clone(self, **kwargs):
        if not kwargs:
            return self
        return dataclasses.replace(self, **kwargs)
""",
            line=12,
            flow=(
                (7, "tool list field `tools`"),
                (12, "copied with the same list by `dataclasses.replace(...)`"),
            ),
        ),
        Invalid(
            """
from copy import copy as shallow

class Agent:
    def __init__(self, tools):
        self.tools = tools

    def fork(self, name):
        twin = shallow(self)
        twin.name = name
        return twin
""",
            line=9,
        ),
        Invalid(
            """
class Toolbox(BaseModel):
    tools: list

    def with_prefix(self, prefix):
        def build():
            return type(self)(prefix=prefix, tools=self.tools)
        return build()
""",
            line=7,
            flow=(
                (3, "tool list field `tools`"),
                (7, "copied with the same list by `type(self)(...)`"),
            ),
        ),
        Invalid(
            """
import dataclasses as dc

@dc.dataclass
class Agent:
    tools: list

    def variants(self, names):
        return [dc.replace(self, name=name) for name in names]
""",
            line=9,
        ),
        Invalid(
            """
class Base(BaseModel):
    admitted_tools: list

class Toolbox(Base):

    def snapshot(self):
        return self.model_copy(update={"frozen": True})
""",
            line=8,
        ),
        Invalid(
            """
class Agent(BaseModel):
    tools: list

    async def fork(self, name):
        return self.model_copy(update={"tools": self.tools, "name": name})
""",
            line=6,
        ),
        Invalid(
            """
class Worker:
    def __init__(self, role, tools):
        self.role = role
        self.tools = tools
        self.names = list(tools)

    def spawn(self, role):
        return type(self)(role, self.tools)
""",
            line=9,
        ),
        Invalid(
            """
class Agent(BaseModel):
    tools: list

    def fork(self, name):
        changes = {"tools": self.tools}
        changes.update(name=name)
        return self.model_copy(update=changes)
""",
            line=8,
        ),
    )

    def needs(self, config: ScanConfig) -> Needs:
        # A rebuild by the class's own name (`Planner(..., self.tools)`) names no copy at all; a
        # subclass of another module's class with tool fields may name no tool word either.
        return (Mentions(words=config.tool_words, names=tuple(klass for klass, _ in config.tool_fields)),)

    def wants(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        # A method of a class with tool fields, its own or a base's, that copies or rebuilds `self`,
        # or sets a tool field a copy made elsewhere in the module may share.
        if unit.owner is None:
            return False
        if not outline.class_mentions(unit.owner.name, config.tool_words) and unit.owner.name not in dict(
            config.tool_fields
        ):
            return False
        return clones(unit) or (outline.cloning and "self" in unit.written and unit.mentions(config.tool_words))

    def reaches(self, unit: Unit, outline: Outline, config: ScanConfig) -> bool:
        return False  # only the class's own building methods, which are kept with any of its methods

    def matches(self, tree: Tree, config: ScanConfig) -> Iterator[Match]:
        names = imports(tree)
        classes = tree.findall(tree.module, cst.ClassDef)
        own = {klass.name.value: _tool_fields(tree, klass, config) for klass in classes}
        for klass in classes:
            # Declared on a base in another module: shown at the class that inherits them.
            for field in dict(config.tool_fields).get(klass.name.value, ()):
                own[klass.name.value].setdefault(field, klass.name)
        for klass in classes:
            defined = _inherited(klass.name.value, own, {k.name.value: k for k in classes})
            fields = set(defined)
            if not fields:
                continue
            methods = (
                [s for s in klass.body.body if isinstance(s, cst.FunctionDef)]
                if isinstance(klass.body, cst.IndentedBlock)
                else []
            )
            for method in methods:
                for call in tree.calls(method.body):
                    if not _shares(call, klass, fields, names, config) or _given_own_list(tree, method, call, fields):
                        continue
                    splats = any(arg.star == "**" for arg in call.args)
                    kwargs = (
                        method.params.star_kwarg.name.value if isinstance(method.params.star_kwarg, cst.Param) else ""
                    )
                    if not (splats and fields & _filled(tree, method, kwargs)):
                        field = _shared_field(call, defined)
                        yield Match(
                            call,
                            f"copied with the same list by {shown(call)}",
                            ((defined[field], f"tool list field `{field}`"),),
                        )


def _shared_field(call: cst.Call, defined: dict[str, cst.CSTNode]) -> str:
    """The field the copy shares: the one a rebuild is handed (`tools=self.tools`), else the first defined."""
    handed = [dotted(arg.value).removeprefix("self.") for arg in call.args if dotted(arg.value).startswith("self.")]
    return next((field for field in handed if field in defined), next(iter(defined)))


def _inherited(
    name: str,
    own: dict[str, dict[str, cst.CSTNode]],
    classes: dict[str, cst.ClassDef],
    seen: frozenset[str] = frozenset(),
) -> dict[str, cst.CSTNode]:
    """A class's tool fields with those of its bases defined in the same module (`Agent(AgentBase)`),
    each with where it is defined; the class's own definition comes before a base's."""
    if name not in classes or name in seen:
        return {}
    fields = dict(own[name])
    for base in classes[name].bases:
        for field, node in _inherited(dotted(base.value), own, classes, seen | {name}).items():
            fields.setdefault(field, node)
    return fields


def _tool_fields(tree: Tree, klass: cst.ClassDef, config: ScanConfig) -> dict[str, cst.CSTNode]:
    """The class's tool-list fields, each with its first definition: annotated or assigned in its
    body, or assigned on `self`."""
    found: dict[str, cst.CSTNode] = {}
    lines = [line for line in block(klass.body) if isinstance(line, cst.SimpleStatementLine)]
    fields = [small for line in lines for small in line.body if isinstance(small, cst.AnnAssign | cst.Assign)]
    for statement in fields:
        # `surface: bool` is a flag, not a list.
        if isinstance(statement, cst.AnnAssign) and dotted(statement.annotation.annotation) in SCALAR_TYPES:
            continue
        for target in assigned(statement):
            if isinstance(target, cst.Name) and is_tool_list_name(target.value, config):
                found.setdefault(target.value, target)
    for statement in tree.findall(klass.body, cst.AnnAssign, cst.Assign):
        for target in assigned(statement):
            name = dotted(target)
            if name.startswith("self.") and is_tool_list_name(name.rsplit(".", 1)[-1], config):
                found.setdefault(name.rsplit(".", 1)[-1], target)
    return found


def _shares(call: cst.Call, klass: cst.ClassDef, fields: set[str], names: dict[str, str], config: ScanConfig) -> bool:
    """Whether the call copies `self` field by field, or rebuilds it from `self.<tools>` itself."""
    callee = canonical(call.func, names)
    first = dotted(call.args[0].value) if call.args else ""
    if callee in _COPIES and first == "self" and not _passes_own_list(call, fields):
        return True
    if dotted(call.func) == "self.model_copy":
        deep = any(
            arg.keyword is not None and arg.keyword.value == "deep" and dotted(arg.value) == "True" for arg in call.args
        )
        return not deep and not _updates_own_list(call, fields)
    rebuilds = (
        dotted(call.func) in {"self.__class__", klass.name.value}
        or (
            isinstance(call.func, cst.Call)
            and dotted(call.func.func) == "type"
            and dotted(call.func.args[0].value) == "self"
        )
    ) and not _unread_init(klass, config)
    handed = [arg for arg in call.args if dotted(arg.value) in {f"self.{field}" for field in fields}]
    return rebuilds and any(not _copied_by_init(klass, call, arg, names) for arg in handed)


def _unread_init(klass: cst.ClassDef, config: ScanConfig) -> bool:
    """Whether the class is built by another module's `__init__`, which may keep a copy of what a
    rebuild hands it (`list(tools)`): the scan cannot tell, and reports no rebuild of it."""
    return klass.name.value in config.foreign_inits


def _copied_by_init(klass: cst.ClassDef, call: cst.Call, arg: cst.Arg, names: dict[str, str]) -> bool:
    """Whether the class's own `__init__` keeps only a copy of what this argument binds
    (`self.functions = list(functions)`): the rebuilt object then gets a list of its own."""
    init = next((s for s in block(klass.body) if isinstance(s, cst.FunctionDef) and s.name.value == "__init__"), None)
    if init is None or arg.star:
        return False
    params = [param.name.value for param in parameters(init)][1:]
    position = call.args.index(arg)
    param = arg.keyword.value if arg.keyword is not None else params[position] if position < len(params) else ""
    kept = [
        statement.value
        for line in block(init.body)
        if isinstance(line, cst.SimpleStatementLine)
        for statement in line.body
        if isinstance(statement, cst.Assign) and any(dotted(t.target).startswith("self.") for t in statement.targets)
    ]
    # Kept as a copy, and never as itself.
    copies = [value for value in kept if _copy_of(value, param, names)]
    return bool(param) and bool(copies) and not any(dotted(value) == param for value in kept)


def _copy_of(value: cst.BaseExpression, name: str, names: dict[str, str]) -> bool:
    """`list(p)`, `tuple(p)`, `copy.copy(p)`, `p.copy()`, `p[:]`, `[*p]`, `[x for x in p]`: a new list
    of `p`'s items."""
    if isinstance(value, cst.Call):
        if isinstance(value.func, cst.Attribute) and value.func.attr.value == "copy" and not value.args:
            return dotted(value.func.value) == name
        return (
            canonical(value.func, names) in SHALLOW_COPIES and bool(value.args) and dotted(value.args[0].value) == name
        )
    if isinstance(value, cst.Subscript):
        return dotted(value.value) == name and all(isinstance(e.slice, cst.Slice) for e in value.slice)
    if isinstance(value, cst.List | cst.Tuple):
        return any(isinstance(e, cst.StarredElement) and dotted(e.value) == name for e in value.elements)
    if isinstance(value, cst.ListComp | cst.GeneratorExp):
        return dotted(value.for_in.iter) == name
    return False


def _passes_own_list(call: cst.Call, fields: set[str]) -> bool:
    """`replace(self, tools=…)` with anything but `self.tools` itself gives the copy another list."""
    return any(
        arg.keyword is not None and arg.keyword.value in fields and dotted(arg.value) != f"self.{arg.keyword.value}"
        for arg in call.args
    )


def _updates_own_list(call: cst.Call, fields: set[str]) -> bool:
    """`model_copy(update={"tools": [...]})` (or `update=dict(tools=...)`) gives the copy another list,
    unless the update hands it `self.tools` itself."""
    update = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "update"), None)
    return update is not None and _new_list(_entries(update), fields)


def _entries(mapping: cst.BaseExpression) -> list[tuple[str, cst.BaseExpression]]:
    """The literal keys and values of `{"tools": …}` or `dict(tools=…)`."""
    if isinstance(mapping, cst.Dict):
        return [
            (str(element.key.evaluated_value), element.value)
            for element in mapping.elements
            if isinstance(element, cst.DictElement) and isinstance(element.key, cst.SimpleString)
        ]
    if isinstance(mapping, cst.Call) and dotted(mapping.func) == "dict":
        return [(arg.keyword.value, arg.value) for arg in mapping.args if arg.keyword is not None]
    return []


def _new_list(entries: list[tuple[str, cst.BaseExpression]], fields: set[str]) -> bool:
    """Whether a tool field is given anything but the original's own list."""
    return any(key in fields and dotted(value) != f"self.{key}" for key, value in entries)


def _filled(tree: Tree, method: cst.FunctionDef, name: str) -> set[str]:
    """Keys the method puts into the mapping `name` — its `**kwargs`, or the `update=` of a
    `model_copy` (`kwargs.setdefault("tools", …)`, `kwargs["tools"] = …`, `changes = {"tools": …}`)
    — before handing it to the copy: the fields the copy is given anew."""
    keys = set()
    for call in tree.calls(method.body):
        if dotted(call.func) == f"{name}.setdefault" and call.args and isinstance(call.args[0].value, cst.SimpleString):
            keys.add(str(call.args[0].value.evaluated_value))
        elif dotted(call.func) == f"{name}.update":
            keys.update(arg.keyword.value for arg in call.args if arg.keyword is not None)
            keys.update(key for arg in call.args[:1] for key, _ in _entries(arg.value))
    for statement in tree.findall(method.body, cst.Assign):
        for target in assigned(statement):
            if isinstance(target, cst.Subscript) and dotted(target.value) == name:
                index = target.slice[0].slice
                if isinstance(index, cst.Index) and isinstance(index.value, cst.SimpleString):
                    keys.add(str(index.value.evaluated_value))
            elif isinstance(target, cst.Name) and target.value == name:
                keys.update(key for key, value in _entries(statement.value) if dotted(value) != f"self.{key}")
    return keys


def _given_own_list(tree: Tree, method: cst.FunctionDef, call: cst.Call, fields: set[str]) -> bool:
    """`twin = copy.copy(self)` followed by `twin.tools = …` in the same method, or
    `self.model_copy(update=changes)` after the method put a tool field into `changes`."""
    update = next((arg.value for arg in call.args if arg.keyword is not None and arg.keyword.value == "update"), None)
    if isinstance(update, cst.Name) and fields & _filled(tree, method, update.value):
        return True
    holders = {
        dotted(target)
        for statement in tree.findall(method.body, cst.Assign)
        if statement.value is call
        for target in assigned(statement)
    }
    return any(
        dotted(target) in {f"{holder}.{field}" for holder in holders for field in fields}
        for statement in tree.findall(method.body, cst.Assign)
        for target in assigned(statement)
    )
