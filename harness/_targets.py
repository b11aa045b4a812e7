"""Turn a target spec into a target: `reference:…` built-ins or `package.module:factory`."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from toolsurface.common._errors import TargetError

from ._adapters import ADAPTER_TARGETS, AGENT_TARGETS
from ._custody import kept_process
from ._reference import REFERENCE_TARGETS
from ._types import Target

#: The spec that turns red/green pairing off.
NO_TARGET = "none"


def load_target(spec: str, option: str = "target") -> Target:
    """Load a target by spec; raise a one-line `TargetError` naming the spec and what was expected,
    and the option (`target`, `red_target`) it was given as. What importing its module and calling
    its factory change of this process is put back after (`kept_process`)."""
    with kept_process():
        return _load(spec, option)


def _load(spec: str, option: str) -> Target:
    if spec in REFERENCE_TARGETS:
        return REFERENCE_TARGETS[spec]()
    if spec.startswith("reference:"):
        known = ", ".join(sorted(REFERENCE_TARGETS))
        raise TargetError(f"{spec!r}: no such reference target (known: {known})", option=option)
    framework, _, factory_spec = spec.partition(":")
    if framework in AGENT_TARGETS and ":" in factory_spec:
        return _agent_target(spec, framework, factory_spec, option)
    # A framework target is a module of ours behind an optional extra: loaded as any user's is.
    framework_target = ADAPTER_TARGETS.get(spec)
    factory = _attribute(framework_target.factory if framework_target else spec, spec, option)
    try:
        target = factory() if callable(factory) else factory
    except Exception as error:
        raise TargetError(f"{spec!r}: factory raised {type(error).__name__}: {error}", option=option) from None
    if not isinstance(target, Target):
        raise TargetError(f"{spec!r}: {type(target).__name__} has no run(scenario, ports) method", option=option)
    return target


def _agent_target(spec: str, framework: str, factory_spec: str, option: str) -> Target:
    """`FRAMEWORK:package.module:factory`: the user's own agent, built by `factory(tools, model)`."""
    factory = _attribute(factory_spec, spec, option)
    make = _attribute(AGENT_TARGETS[framework], spec, option)
    try:
        target: Target = make(factory, spec)
    except TypeError as error:
        raise TargetError(f"{spec!r}: {error}", option=option) from None
    return target


def _attribute(path: str, spec: str, option: str) -> Any:
    """What `package.module:attribute` names, imported from the working directory as `python -m` would."""
    module_name, _, attribute = path.partition(":")
    if not module_name or not attribute:
        raise TargetError(
            f"{spec!r}: expected 'reference:<name>', 'package.module:factory' or '<framework>:package.module:factory'",
            option=option,
        )
    if os.getcwd() not in sys.path:  # as `python -m` would: a project's own adapter imports from where it runs
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module may fail in any way while importing
        raise TargetError(
            f"{spec!r}: cannot import {module_name!r}: {type(error).__name__}: {error}", option=option
        ) from None
    found: Any = module
    for part in attribute.split("."):
        found = getattr(found, part, None)
        if found is None:
            raise TargetError(f"{spec!r}: module {module_name!r} has no attribute {attribute!r}", option=option)
    return found
