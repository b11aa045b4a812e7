"""Turn a target spec into a target: `reference:…` built-ins or `package.module:factory`."""

from __future__ import annotations

import importlib
import os
import sys
from typing import Any

from ._adapters import ADAPTER_TARGETS
from ._errors import TargetError
from ._reference import REFERENCE_TARGETS
from ._types import Target

#: The spec that turns red/green pairing off.
NO_TARGET = "none"


def load_target(spec: str, option: str = "target") -> Target:
    """Load a target by spec; raise a one-line `TargetError` naming the spec and what was expected,
    and the option (`target`, `red_target`) it was given as."""
    if spec in REFERENCE_TARGETS:
        return REFERENCE_TARGETS[spec]()
    if spec.startswith("reference:"):
        known = ", ".join(sorted(REFERENCE_TARGETS))
        raise TargetError(f"{spec!r}: no such reference target (known: {known})", option=option)
    # A framework target is a module of ours behind an optional extra: loaded as any user's is.
    framework = ADAPTER_TARGETS.get(spec)
    module_name, _, attribute = (framework.factory if framework else spec).partition(":")
    if not module_name or not attribute:
        raise TargetError(f"{spec!r}: expected 'reference:<name>' or 'package.module:factory'", option=option)
    if os.getcwd() not in sys.path:  # as `python -m` would: a project's own adapter imports from where it runs
        sys.path.insert(0, os.getcwd())
    try:
        module = importlib.import_module(module_name)
    except Exception as error:  # the user's module may fail in any way while importing
        raise TargetError(f"{spec!r}: cannot import {module_name!r}: {type(error).__name__}: {error}", option=option) from None
    factory: Any = module
    for part in attribute.split("."):
        factory = getattr(factory, part, None)
        if factory is None:
            raise TargetError(f"{spec!r}: module {module_name!r} has no attribute {attribute!r}", option=option)
    try:
        target = factory() if callable(factory) else factory
    except Exception as error:
        raise TargetError(f"{spec!r}: factory raised {type(error).__name__}: {error}", option=option) from None
    if not isinstance(target, Target):
        raise TargetError(f"{spec!r}: {type(target).__name__} has no run(scenario, ports) method", option=option)
    return target
