"""The registry: one instance of every mutator, in a stable order, found by `kind.variant`."""

from __future__ import annotations

from . import (
    _add,
    _availability,
    _composed,
    _control,
    _conversion,
    _delete,
    _description,
    _entry,
    _facts,
    _failure,
    _keywords,
    _legitimate,
    _mcp,
    _near_miss,
    _rename,
    _reorder,
    _schema,
    _wire,
)
from ._base import Mutator

#: Every mutator, grouped by kind in the order cases are planned: add, delete, rename, reorder,
#: description, schema, control, availability, entry, wire, legit, mcp, failure.
MUTATORS: tuple[Mutator, ...] = (
    *_add.MUTATORS,
    *_delete.MUTATORS,
    *_rename.MUTATORS,
    _near_miss.NearMissName(),
    *_reorder.MUTATORS,
    *_description.MUTATORS,
    _near_miss.NearMissDescription(),
    *_schema.MUTATORS,
    _near_miss.NearMissSchema(),
    *_keywords.MUTATORS,
    *_control.MUTATORS,
    *_availability.MUTATORS,
    *_facts.MUTATORS,
    _near_miss.NearMissFact(),
    *_entry.MUTATORS,
    _near_miss.NearMissSummary(),
    *_conversion.MUTATORS,
    *_wire.MUTATORS,
    *_legitimate.MUTATORS,
    *_mcp.MUTATORS,
    *_failure.MUTATORS,
)

#: Mutators only the explorer draws (`toolsurface explore`), never planned: a case it saves names
#: them by key like any other.
EXPLORING: tuple[Mutator, ...] = _composed.MUTATORS

_BY_KEY: dict[str, Mutator] = {mutator.key(): mutator for mutator in (*MUTATORS, *EXPLORING)}


def by_key(key: str) -> Mutator:
    """The mutator registered as `kind.variant`."""
    try:
        return _BY_KEY[key]
    except KeyError:
        raise KeyError(f"no mutator {key!r}; known keys: {', '.join(_BY_KEY)}") from None
