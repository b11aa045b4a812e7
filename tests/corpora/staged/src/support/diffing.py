"""Canonical comparison of tool definitions.

Two surfaces are equal when they hold the same tools in the same order, each
with the same name, description, input schema and wire fields.  Object key
order is ignored; everything else is compared exactly.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any, Iterable, Mapping, Sequence

WIRE_FIELDS = ("strict", "title", "annotations", "outputSchema")


def canonical(tool: Mapping[str, Any]) -> str:
    """A stable text form of one tool definition."""
    return json.dumps(tool, sort_keys=True, ensure_ascii=False, separators=(",", ":"))


def surface_digest(tools: Iterable[Mapping[str, Any]]) -> str:
    """SHA-256 over the canonical forms of *tools*, in order."""
    digest = hashlib.sha256()
    for tool in tools:
        digest.update(canonical(tool).encode("utf-8"))
        digest.update(b"\n")
    return digest.hexdigest()


def _field_changes(name: str, observed: Mapping[str, Any], expected: Mapping[str, Any]) -> list[str]:
    changes: list[str] = []
    if observed.get("description") != expected.get("description"):
        changes.append(f"description of {name!r} changed")
    if canonical(observed.get("input_schema") or {}) != canonical(expected.get("input_schema") or {}):
        changes.append(f"input schema of {name!r} changed")
    for key in WIRE_FIELDS:
        if key in observed or key in expected:
            if canonical({key: observed.get(key)}) != canonical({key: expected.get(key)}):
                changes.append(f"{key} of {name!r} changed")
    return changes


def diff_specs(
    observed: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]]
) -> list[str]:
    """Every difference between *observed* and *baseline*, in reading order.

    An empty list means the two surfaces are the same.
    """
    changes: list[str] = []
    observed_names = [str(tool.get("name")) for tool in observed]
    expected_names = [str(tool.get("name")) for tool in baseline]
    for name in expected_names:
        if name not in observed_names:
            changes.append(f"removed {name!r}")
    for name in observed_names:
        if name not in expected_names:
            changes.append(f"added {name!r}")
    if changes:
        return changes
    if observed_names != expected_names:
        for position, (seen, wanted) in enumerate(zip(observed_names, expected_names)):
            if seen != wanted:
                changes.append(f"{seen!r} moved to {position}")
    by_name = {str(tool.get("name")): tool for tool in baseline}
    for tool in observed:
        name = str(tool.get("name"))
        changes.extend(_field_changes(name, tool, by_name[name]))
    return changes
