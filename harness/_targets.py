"""Turn a target spec into a target: `PREFIX:NAME` of a target family, or `package.module:factory`.

Target families are entry points of the `toolsurface.targets` group, by spec prefix: ours
(`reference`, `langchain`, `pydantic-ai`, `openai-agents`, `mcp-host`) are registered in
pyproject.toml as a third-party package registers its own. Only the family a spec names is
imported. A spec whose prefix no family claims is a module and attribute of the user's.
"""

from __future__ import annotations

import importlib
import os
import sys
from importlib.metadata import EntryPoint
from typing import Any

from toolsurface.common._errors import PluginError, TargetError
from toolsurface.common._plugins import described, loaded, registered

from ._custody import kept_process
from ._families import TargetFamily
from ._slips import built_agent, family_slip, install_hint, unbuilt_agent
from ._traits import LoadedTarget, TraitError, traits_of
from ._types import Target

#: The spec that turns red/green pairing off.
NO_TARGET = "none"
#: The entry point group whose entries are target families (`_families.TargetFamily`), by spec prefix.
TARGET_FAMILIES = "toolsurface.targets"


def load_target(spec: str, option: str = "target") -> Target:
    """Load a target by spec; raise a one-line `TargetError` naming the spec and what was expected,
    and the option (`target`, `red_target`) it was given as. What importing its module and calling
    its factory change of this process is put back after (`kept_process`)."""
    return load_with_traits(spec, option).target


def load_with_traits(spec: str, option: str = "target") -> LoadedTarget:
    """The target with its optional members resolved and checked (`traits_of`), once, as it is loaded."""
    with kept_process():
        target = _load(spec, option)
    try:
        return LoadedTarget(target, traits_of(target))
    except TraitError as error:
        raise TraitError(f"{spec!r}: {error}", option=option) from None


def _load(spec: str, option: str) -> Target:
    try:
        return _made(spec, _found(spec))
    except TargetError as error:
        error.option = error.option or option
        raise


def _found(spec: str) -> Any:
    """What the spec names: a family's target or factory, or the user's module attribute."""
    prefix, colon, name = spec.partition(":")
    families = registered(TARGET_FAMILIES)
    point = families.get(prefix) if colon else None
    if point is not None:
        return _resolved(point, prefix, name, spec)
    try:
        return attribute(spec, spec)
    except TargetError:
        if (slip := family_slip(spec, list(families))) is not None:
            raise TargetError(slip) from None
        raise


def _made(spec: str, found: Any) -> Target:
    """The target `found` is, or makes when called with nothing."""
    if (slip := unbuilt_agent(spec, found)) is not None:
        raise TargetError(slip)
    try:
        target = found() if callable(found) and not _is_target(found) else found
    except Exception as error:
        raise TargetError(
            f"{spec!r}: factory raised {type(error).__name__}: {error}{install_hint(error, spec)}"
        ) from None
    if (slip := built_agent(spec, target, passes=_is_target(target))) is not None:
        raise TargetError(slip)
    if not _is_target(target):
        raise TargetError(f"{spec!r}: {type(target).__name__} has no run(scenario, ports) method")
    return target


def _is_target(value: object) -> bool:
    """A target object: one with `run`, and not a class with a `run` method (a factory of targets)."""
    return isinstance(value, Target) and not isinstance(value, type)


def _resolved(point: EntryPoint, prefix: str, name: str, spec: str) -> Any:
    """What the family registered for `prefix` makes of the rest of the spec."""
    family = _family(point)
    try:
        return family.resolve(name)
    except LookupError:
        known = ", ".join(sorted(f"{prefix}:{each}" for each in family.known()))
        raise TargetError(f"{spec!r}: no such {prefix} target (known: {known})") from None
    except TargetError:
        raise
    except Exception as error:  # another package's code may fail in any way: its spec is the input at fault
        raise TargetError(f"{spec!r}: {described(point)} raised {type(error).__name__}: {error}") from None


def _family(point: EntryPoint) -> TargetFamily:
    """The family the entry point gives, checked to be one."""
    family = loaded(point)
    if not isinstance(family, TargetFamily):
        raise PluginError(
            f"{described(point)}: expected a target family (known() and resolve(name)), found {type(family).__name__}"
        )
    return family


def attribute(path: str, spec: str) -> Any:
    """What `package.module:attribute` names, imported from the working directory as `python -m` would."""
    module_name, _, name = path.partition(":")
    if not module_name or not name:
        raise TargetError(
            f"{spec!r}: expected 'reference:<name>', 'package.module:factory' or '<framework>:package.module:factory'"
        )
    if os.getcwd() not in sys.path:  # as `python -m` would: a project's own adapter imports from where it runs
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module may fail in any way while importing
        raise TargetError(
            f"{spec!r}: cannot import {module_name!r}: {type(error).__name__}: {error}{install_hint(error, spec)}"
        ) from None
    found: Any = module
    for part in name.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise TargetError(f"{spec!r}: module {module_name!r} has no attribute {name!r}")
    return found


def listed_targets() -> list[tuple[str, str]]:
    """(spec, one line about it) for every target each installed family names: `list targets`.
    Ours come first, as pyproject.toml lists them; then other packages' by prefix."""
    points = registered(TARGET_FAMILIES)
    ours = [name for name in _OURS if name in points]
    listed = []
    for prefix in [*ours, *sorted(set(points) - set(ours))]:
        family = _family(points[prefix])
        listed += [(f"{prefix}:{name}", about) for name, about in family.known().items()]
    return listed


#: Our families' prefixes, in the order `list targets` shows them.
_OURS = ("reference", "pydantic-ai", "langchain", "openai-agents", "mcp-host")
