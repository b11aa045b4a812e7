"""The rules a scan runs: every rule pack installed under the `toolsurface.rules` entry point group.

A pack is a sequence of `Rule` classes. Ours (`toolsurface = "toolsurface.scan.rules:BUILT_IN"` in
pyproject.toml) comes first; a third-party package registers its own the same way. Packs are
imported on the first scan, not when the command line starts, and each is checked as it loads:
a pack that is not a sequence of rules, or whose rule ids are malformed or taken, is one line
naming its entry point.
"""

from __future__ import annotations

import functools
import hashlib
import inspect
from collections.abc import Sequence
from importlib.metadata import EntryPoint
from pathlib import Path

from toolsurface.common._errors import PluginError
from toolsurface.common._plugins import described, loaded, registered

from ._rule import Rule
from ._suppressions import RULE_ID
from .rules import BUILT_IN

#: The entry point group of rule packs.
RULE_PACKS = "toolsurface.rules"
#: Our own pack's name in the group.
OURS = "toolsurface"


@functools.cache
def registered_rules() -> tuple[Rule, ...]:
    """One of each rule of every installed pack, ours first in id order, then each pack's in its order."""
    points = registered(RULE_PACKS)
    # Run from a tree whose package metadata is absent, ours is still ours.
    ours = points.pop(OURS, None)
    rules = list(_pack(ours) if ours is not None else BUILT_IN)
    taken = {rule.id: "toolsurface" for rule in rules}
    for name in sorted(points):
        for rule in _pack(points[name]):
            if rule.id in taken:
                raise PluginError(f"{described(points[name])}: rule id {rule.id} is already {taken[rule.id]}'s")
            taken[rule.id] = f"the {name} pack"
            rules.append(rule)
    return tuple(rule() for rule in rules)


def _pack(point: EntryPoint) -> tuple[type[Rule], ...]:
    """The rule classes the entry point gives, each checked."""
    pack = loaded(point)
    if isinstance(pack, str | bytes) or not isinstance(pack, Sequence):
        raise PluginError(f"{described(point)}: expected a sequence of Rule classes, found {type(pack).__name__}")
    for rule in pack:
        if not (isinstance(rule, type) and issubclass(rule, Rule)) or inspect.isabstract(rule):
            raise PluginError(f"{described(point)}: expected a sequence of Rule classes, found {rule!r} in it")
        if not isinstance(getattr(rule, "id", None), str) or not RULE_ID.fullmatch(rule.id):
            raise PluginError(f"{described(point)}: {rule.__name__}.id must look like TS901 (TS and three digits)")
    return tuple(pack)


def packs_digest() -> bytes:
    """What the installed rule packs are, for the cache key: each rule by its class, and the bytes of
    every third-party rule's module (ours are in the scanner's own code digest), so that installing,
    removing or editing a pack scans again."""
    digest = hashlib.sha256()
    for rule in registered_rules():
        cls = type(rule)
        digest.update(f"{cls.__module__}:{cls.__qualname__}:{rule.id}\0".encode())
        if not cls.__module__.startswith("toolsurface."):
            source = inspect.getsourcefile(cls)
            digest.update(Path(source).read_bytes() if source else b"")
    return digest.digest()
