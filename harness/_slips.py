"""What a target spec that does not load was most likely meant to be, for its one-line error.

A first spec is often a near miss of a form that works: `pydantic_ai:` for `pydantic-ai:`, a dot
where the colon before the factory goes, an agent factory named without its framework, or a module
that imports a framework not installed. Each check here looks only at a spec that has failed or
cannot work, so a spec that loads is never second-guessed.
"""

from __future__ import annotations

import difflib
import inspect
import sys
from typing import Any

from ._adapters import AGENT_TARGETS, extra_installing

#: The agent frameworks' prefixes, as an error lists them.
_FRAMEWORKS = ", ".join(sorted(AGENT_TARGETS))


def install_hint(error: BaseException, spec: str) -> str:
    """`; the langchain extra installs it: pip install ...` for an import that failed on a package an
    extra installs (the spec's own framework's first); empty for any other error."""
    missing = getattr(error, "name", None) if isinstance(error, ImportError) else None
    extra = extra_installing(missing, spec.partition(":")[0]) if isinstance(missing, str) else None
    return f"; the {extra} extra installs it: pip install 'toolsurface[{extra}]'" if extra else ""


def family_slip(spec: str, families: list[str]) -> str | None:
    """The form meant by a spec whose prefix no family claims, where it is a near miss of one
    (`pydantic_ai:`, `OpenAI_Agents:`), or which has a factory after its module as only an agent
    framework's spec has. None for a spec that may be a module of the user's."""
    prefix, _, rest = spec.partition(":")
    agent_form = ":" in rest  # `module:attribute` has one colon: two are only ever a framework's form
    normal = prefix.lower().replace("_", "-")
    meant = normal if normal in families else None
    if meant is None and agent_form:
        meant = next(iter(difflib.get_close_matches(normal, sorted(AGENT_TARGETS), n=1, cutoff=0.75)), None)
    if agent_form and meant not in AGENT_TARGETS:
        return f"{spec!r}: expected FRAMEWORK:MODULE:FACTORY, FRAMEWORK one of {_FRAMEWORKS}"
    if meant is None:
        return None
    return f"{spec!r}: expected {meant}:{'MODULE:FACTORY' if agent_form else 'NAME'}, e.g. {meant}:{rest}"


def dotted_factory(spec: str) -> str | None:
    """The form meant by `FRAMEWORK:module.factory`, a dot where the colon before the factory goes."""
    prefix, _, name = spec.partition(":")
    module, dot, factory = name.rpartition(".")
    if prefix not in AGENT_TARGETS or ":" in name or not dot or not module or not factory:
        return None
    return f"{spec!r}: expected {prefix}:MODULE:FACTORY, e.g. {prefix}:{module}:{factory}"


def unbuilt_agent(spec: str, found: Any) -> str | None:
    """The form meant by `module:factory` naming a function that needs (tools, model), as an agent
    factory does: called with nothing, it could only fail."""
    function = found.__func__ if inspect.ismethod(found) else found
    if not inspect.isfunction(function):
        return None
    signature = inspect.signature(found)
    if _binds(signature) or not _binds(signature, None, None):
        return None
    framework = _framework_imported(function.__globals__.values())
    factory = spec.partition(":")[2].rpartition(".")[2]
    called = f"{factory}({', '.join(signature.parameters)})"
    if framework is None:
        return (
            f"{spec!r}: {called} looks like an agent factory: expected FRAMEWORK:MODULE:FACTORY, "
            f"FRAMEWORK one of {_FRAMEWORKS}, e.g. langchain:{spec}"
        )
    return (
        f"{spec!r}: {called} is a {framework} agent factory: "
        f"expected {framework}:MODULE:FACTORY, e.g. {framework}:{spec}"
    )


def built_agent(spec: str, made: object, *, passes: bool) -> str | None:
    """The form meant by a spec that gives a framework's agent itself rather than a target. One
    that `passes` as a target (pydantic-ai's `Agent` has a `run`) is named only by its class."""
    framework = _agent_class_of(made) if passes else _framework_imported([type(made)])
    if framework is None:
        return None
    module = spec.partition(":")[0]
    return (
        f"{spec!r}: {type(made).__name__} is a {framework} agent, not a target: expected {framework}:MODULE:FACTORY "
        f"with FACTORY(tools, model) returning the agent, e.g. {framework}:{module}:build"
    )


#: (module, class, extra): the framework agents that have a `run` of their own, checked only where
#: the framework is already imported.
_AGENT_CLASSES = (("pydantic_ai.agent.abstract", "AbstractAgent", "pydantic-ai"),)


def _agent_class_of(made: object) -> str | None:
    for module, name, extra in _AGENT_CLASSES:
        cls = getattr(sys.modules.get(module), name, None)
        if isinstance(cls, type) and isinstance(made, cls):
            return extra
    return None


def _binds(signature: inspect.Signature, *arguments: object) -> bool:
    try:
        signature.bind(*arguments)
    except TypeError:
        return False
    return True


def _framework_imported(values: Any) -> str | None:
    """The one agent framework these modules, classes and functions come from; None for none or several."""
    found = set()
    for value in values:
        if inspect.ismodule(value):
            name = value.__name__
        elif isinstance(value, type) or inspect.isfunction(value):
            name = value.__module__
        else:
            continue
        if (extra := extra_installing(name)) in AGENT_TARGETS:
            found.add(extra)
    return found.pop() if len(found) == 1 else None
