"""What a scan rule is, and the small pieces of syntax the rules share.

A rule is one small class: an id, a short name, a message that says what to do instead, source
examples that must and must not match (they are also its tests), and `matches`, which yields the
nodes to report. Rules read a libcst tree; they never import or run what they read.
"""

from __future__ import annotations

import re
from abc import ABC, abstractmethod
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import ClassVar

import libcst as cst
import libcst.matchers as m
from libcst.helpers import get_full_name_for_node

from ._types import ScanConfig


@dataclass(frozen=True, slots=True)
class Invalid:
    """Source a rule must match, and the 1-based line of the node it must report."""

    code: str
    line: int


class Rule(ABC):
    id: ClassVar[str]
    name: ClassVar[str]
    #: What is wrong and what to do instead, in one sentence.
    message: ClassVar[str]
    valid: ClassVar[tuple[str, ...]]
    invalid: ClassVar[tuple[Invalid, ...]]

    @abstractmethod
    def matches(self, module: cst.Module, config: ScanConfig) -> Iterator[cst.CSTNode]:
        """The nodes this rule reports in `module`, in source order."""


def dotted(node: cst.CSTNode) -> str:
    """`a.b.c` for a name or attribute chain (the callee of a call included); "" otherwise."""
    return get_full_name_for_node(node) or ""


def named(name: str, configured: Iterable[str]) -> bool:
    """Whether a dotted name ends, segment by segment, with one of the configured names."""
    parts = name.split(".")
    return any(parts[-len(want.split(".")):] == want.split(".") for want in configured if want)


def calls(node: cst.CSTNode) -> Iterator[cst.Call]:
    yield from m.findall(node, m.Call())  # type: ignore[misc]


def calls_to(node: cst.CSTNode, configured: Iterable[str]) -> Iterator[cst.Call]:
    configured = tuple(configured)
    return (call for call in calls(node) if named(dotted(call.func), configured))


def identifiers(node: cst.CSTNode) -> Iterator[str]:
    """Every plain name and attribute name under `node`."""
    for found in m.findall(node, m.Name() | m.Attribute()):
        yield found.value if isinstance(found, cst.Name) else found.attr.value


def mentions(node: cst.CSTNode, words: Iterable[str]) -> bool:
    """Whether any identifier under `node` contains one of `words` as a `_`-separated part.

    Constants are not mentions: `stage is StageKind.HOOK` asks which stage this is, not whether
    hooks are registered.
    """
    wanted = set(words)
    return any(
        not name.isupper() and (wanted & set(name.lower().split("_")) or name.lower() in wanted)
        for name in identifiers(node)
    )


def functions(module: cst.Module) -> list[cst.FunctionDef]:
    return list(m.findall(module, m.FunctionDef()))  # type: ignore[arg-type]


def hook_functions(module: cst.Module, config: ScanConfig) -> list[cst.FunctionDef]:
    """Functions that run as hooks: named like one, decorated by a hook registration, or handed
    to a hook registration call in the same module."""
    registered = {
        dotted(arg.value).rsplit(".", 1)[-1]
        for call in calls_to(module, config.hook_registration)
        for arg in call.args
        if dotted(arg.value)
    }
    hooks = []
    for function in functions(module):
        name = function.name.value
        decorated = any(named(dotted(_callee(d.decorator)), config.hook_registration) for d in function.decorators)
        # A function named after a hook event (`on_before_dispatch`) is that event's callback.
        event = named(name, config.hook_registration)
        if decorated or event or name in registered or set(name.lower().split("_")) & set(config.hook_words):
            hooks.append(function)
    return hooks


def _callee(decorator: cst.BaseExpression) -> cst.BaseExpression:
    return decorator.func if isinstance(decorator, cst.Call) else decorator


def is_tools(node: cst.CSTNode, config: ScanConfig) -> bool:
    """Whether an expression names the request's tool list (`tools`, `request.tools`, `self.surface`…)."""
    name = dotted(node).rsplit(".", 1)[-1].lower()
    return bool(name) and any(name == word or name.endswith(f"_{word}") for word in config.tool_words)


_SUPPRESSION = re.compile(r"#\s*toolsurface:\s*ignore(?:\[(?P<rules>[A-Z0-9, ]+)\])?")


def suppressed(line: str, rule: str) -> bool:
    """Whether a trailing `# toolsurface: ignore[...]` comment on `line` silences `rule`."""
    found = _SUPPRESSION.search(line)
    if found is None:
        return False
    rules = found.group("rules")
    return rules is None or rule in {part.strip() for part in rules.split(",")}
