"""Surface snapshots and the final parity check.

A *surface* is the list of tool definitions a model call carries, in order.  The final
check compares what is about to be sent with what admission pinned, field by field, in the
form the definitions would take on the wire (key order aside).
"""

from __future__ import annotations

import json
import logging
from typing import Any, Mapping, Sequence, Union

from agentcore import BaseModel, SurfaceDrift, ToolDef

log = logging.getLogger(__name__)

SurfaceEntry = Union[ToolDef, Mapping[str, Any]]


def _as_data(entry: SurfaceEntry) -> Mapping[str, Any]:
    return entry.model_dump() if isinstance(entry, BaseModel) else entry


def _canonical(entry: SurfaceEntry) -> str:
    return json.dumps(_as_data(entry), sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def _name(entry: SurfaceEntry) -> str:
    return str(_as_data(entry).get("name", "?"))


def freeze_surface(tools: Sequence[SurfaceEntry]) -> tuple[dict[str, Any], ...]:
    """An independent snapshot of a surface (a JSON round trip of every definition)."""
    return tuple(json.loads(json.dumps(_as_data(entry), ensure_ascii=False)) for entry in tools)


def diff_specs(observed: Sequence[SurfaceEntry], baseline: Sequence[SurfaceEntry]) -> list[str]:
    """Every difference between two surfaces, in words; empty when they are the same."""
    seen = [_canonical(entry) for entry in observed]
    expected = [_canonical(entry) for entry in baseline]
    changes: list[str] = []
    if len(seen) != len(expected):
        changes.append(f"{len(expected)} tools admitted, {len(seen)} offered")
    for index, (got, want) in enumerate(zip(seen, expected)):
        if got != want:
            changes.append(f"tool {index} ({_name(observed[index])!r}) differs from {_name(baseline[index])!r} as admitted")
    return changes


def assert_surface_unchanged(
    observed: Sequence[SurfaceEntry],
    baseline: Sequence[SurfaceEntry],
    *,
    lane: str = "main",
) -> None:
    """Refuse (``SurfaceDrift``) unless ``observed`` is exactly the pinned ``baseline``."""
    changes = diff_specs(observed, baseline)
    if changes:
        log.warning("lane %s: surface changed after admission: %s", lane, "; ".join(changes))
        raise SurfaceDrift("; ".join(changes[:3]), lane=lane, changes=changes)
