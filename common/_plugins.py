"""Extensions other packages install: entry points, found by group and loaded one at a time.

Groups: `toolsurface.targets` (a target family per spec prefix) and `toolsurface.rules` (a rule
pack). Listing a group reads package metadata only; an entry point's module is imported when a
spec or a scan needs what it gives, so `toolsurface --help` imports no pack, and a broken pack
breaks only the command that uses it, with one line that names it.
"""

from __future__ import annotations

import functools
import sys
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from ._errors import PluginError


def registered(group: str) -> dict[str, EntryPoint]:
    """The group's entry points by name. Two packages that claim one name are refused: which one a
    spec or a rule id meant would depend on the order of `sys.path`."""
    return dict(_registered(group, tuple(sys.path)))


@functools.cache
def _registered(group: str, path: tuple[str, ...]) -> dict[str, EntryPoint]:
    # Reading every installed package's metadata takes tens of milliseconds, and a run loads its
    # target again after each case that leaves state behind: read once per group and search path.
    found: dict[str, EntryPoint] = {}
    for point in entry_points(group=group):
        other = found.setdefault(point.name, point)
        if other.value != point.value:  # the same package seen twice on the path is one registration
            raise PluginError(f"{described(point)}: {point.name!r} is also registered by {described(other)}")
    return found


def loaded(point: EntryPoint) -> Any:
    """What the entry point names; a pack that fails to import is a one-line error naming it."""
    try:
        return point.load()
    except Exception as error:  # a third-party module may fail in any way while importing
        raise PluginError(
            f"{described(point)}: cannot load it: {one_line(f'{type(error).__name__}: {error}')}"
        ) from None


def described(point: EntryPoint) -> str:
    """`entry point GROUP:NAME = 'module:object' (distribution)`, as a one-line error names it."""
    distribution = point.dist.name if point.dist is not None else "unknown distribution"
    return f"entry point {point.group}:{point.name} = {point.value!r} ({distribution})"


def one_line(text: str) -> str:
    return " ".join(text.split())
