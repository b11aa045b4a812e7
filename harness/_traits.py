"""What a target may declare beside `run`, resolved once when it is loaded.

A target is anything with `run(scenario, ports)` (`Target`). Every other member is optional and
declared here, once: its name, its type and what the engine assumes without it. `traits_of` reads
each by that declared name when the target is loaded and checks its type, so the engine reads typed
fields of a `TargetTraits` and a misdeclared member is one line at load time, not a crash in a case.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from toolsurface.common._errors import TargetError
from toolsurface.contract._formats import FORMATS, WIRE_FIELDS
from toolsurface.contract._guard import Estimator
from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.scenarios import Boundary, Scenario

from ._types import Target

if TYPE_CHECKING:
    from ._attribution import FrameworkForm

#: `checkpoints(scenario)`: the boundaries a target offers on a scenario, each a `Boundary` or, as
#: adapters written before it did, a (model call, point) pair.
DeclaredCheckpoints = Callable[[Scenario], Iterable[Boundary | tuple[int, str]]]


class TraitError(TargetError):
    """A target member of the declared name whose value is not of the declared type."""


@dataclass(frozen=True, slots=True)
class TargetTraits:
    """A target's optional members (see docs/targets.md), each with what it means left out."""

    #: A `FORMATS` key: how its tool objects are shaped, overriding the scenario's recorded format.
    tool_format: str | None = None
    #: The wire fields, of those its format has, that its tool objects carry; None: all of them.
    wire_fields: frozenset[str] | None = None
    #: Exception types that mean "refused".
    refusals: tuple[type[BaseException], ...] = (RequestRefused,)
    #: Exception types that are an explicit capacity result (checked before `refusals`).
    capacity_results: tuple[type[BaseException], ...] = (CapacityExceeded,)
    #: The host's own token count of a JSON value: a request that does not fit by it must end in a
    #: capacity result. None: the recording decides.
    estimate_tokens: Estimator | None = None
    #: Whether it offers boundaries of its own (`ports.checkpoint`) instead of the recorded stages.
    own_boundaries: bool = False
    #: With `own_boundaries`: where they are on a scenario, without a dry run to find them.
    checkpoints: DeclaredCheckpoints | None = None
    #: `framework_form(tools)`: logical tool dicts as the framework hands them to the model after
    #: the target's last boundary; a failure it explains is the framework's own (`_attribution`).
    framework_form: FrameworkForm | None = None
    #: What a user can do about a failure `framework_form` explains, in one line: reports show it.
    framework_remedy: str | None = None


#: What each member must be, said as the one-line error says it.
_EXPECTED = {
    "tool_format": f"one of {', '.join(sorted(FORMATS))}",
    "wire_fields": f"a collection of wire field names ({', '.join(sorted(WIRE_FIELDS))})",
    "refusals": "a tuple of exception types",
    "capacity_results": "a tuple of exception types",
    "estimate_tokens": "a callable taking a JSON value and returning an int",
    "own_boundaries": "true or false",
    "checkpoints": "a callable taking a scenario",
    "framework_form": "a callable taking a list of logical tool dicts",
    "framework_remedy": "a string",
}


def traits_of(target: object) -> TargetTraits:
    """The target's declared members, read by their declared names and checked; a member it does not
    have, or has as None, takes its default. Raises a one-line `TraitError` naming the member."""
    declared = {
        field.name: value
        for field in dataclasses.fields(TargetTraits)
        if (value := getattr(target, field.name, None)) is not None
    }
    try:
        return TargetTraits(**{name: _CHECKS[name](value) for name, value in declared.items()})
    except _Misdeclared as wrong:
        name, value = wrong.args
        raise TraitError(f"{type(target).__name__}.{name}: expected {_EXPECTED[name]}, found {_shown(value)}") from None


class _Misdeclared(Exception):
    """(member name, value): raised by a check, turned into the one-line error by `traits_of`."""


def _tool_format(value: object) -> str:
    if not isinstance(value, str) or value not in FORMATS:
        raise _Misdeclared("tool_format", value)
    return value


def _wire_fields(value: object) -> frozenset[str]:
    if isinstance(value, str | bytes) or not isinstance(value, Iterable):
        raise _Misdeclared("wire_fields", value)
    fields = tuple(value)
    if not all(isinstance(field, str) and field in WIRE_FIELDS for field in fields):
        raise _Misdeclared("wire_fields", value)
    return frozenset(fields)


def _exception_types(name: str) -> Callable[[object], tuple[type[BaseException], ...]]:
    default = getattr(TargetTraits(), name)

    def check(value: object) -> tuple[type[BaseException], ...]:
        if isinstance(value, type):
            value = (value,)  # one type where a tuple is meant, as `except` takes either
        if not isinstance(value, tuple | list) or not all(_is_exception_type(kind) for kind in value):
            raise _Misdeclared(name, value)
        return tuple(value) or default  # an empty tuple declares nothing: the default stands

    return check


def _is_exception_type(value: object) -> bool:
    return isinstance(value, type) and issubclass(value, BaseException)


def _callable(name: str) -> Callable[[object], Any]:
    def check(value: object) -> Any:
        if not callable(value):
            raise _Misdeclared(name, value)
        return value

    return check


def _string(name: str) -> Callable[[object], str]:
    def check(value: object) -> str:
        if not isinstance(value, str):
            raise _Misdeclared(name, value)
        return value

    return check


_CHECKS: dict[str, Callable[[object], Any]] = {
    "tool_format": _tool_format,
    "wire_fields": _wire_fields,
    "refusals": _exception_types("refusals"),
    "capacity_results": _exception_types("capacity_results"),
    "estimate_tokens": _callable("estimate_tokens"),
    "own_boundaries": bool,
    "checkpoints": _callable("checkpoints"),
    "framework_form": _callable("framework_form"),
    "framework_remedy": _string("framework_remedy"),
}


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


@dataclass(frozen=True, slots=True, eq=False)
class LoadedTarget:
    """A target and its traits, resolved once: what the engine runs and reads."""

    target: Target
    traits: TargetTraits


def loaded(target: Target | LoadedTarget) -> LoadedTarget:
    """The target with its traits: resolved now for a bare target, as they were for a loaded one."""
    return target if isinstance(target, LoadedTarget) else LoadedTarget(target, traits_of(target))
