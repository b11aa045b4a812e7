"""Comparing the tools a request carries with the tools that were admitted."""

from __future__ import annotations

import json
from typing import Any, Iterable, Sequence

from .errors import ToolsetDrift
from .models import CallRequest, ToolSpec


def _name(tool: ToolSpec | dict[str, Any]) -> str:
    return tool.name if isinstance(tool, ToolSpec) else str(tool["name"])


def _canonical(tool: ToolSpec | dict[str, Any]) -> str:
    data = tool.model_dump() if isinstance(tool, ToolSpec) else dict(tool)
    return json.dumps(data, sort_keys=True, default=str)


def diff_toolsets(observed: Iterable, baseline: Iterable) -> dict[str, list[str]] | None:
    """What changed between two toolsets, or None when they are the same."""
    seen = {_name(t): _canonical(t) for t in observed}
    want = {_name(t): _canonical(t) for t in baseline}
    added = sorted(seen.keys() - want.keys())
    removed = sorted(want.keys() - seen.keys())
    changed = sorted(n for n in seen.keys() & want.keys() if seen[n] != want[n])
    if added or removed or changed:
        return {"added": added, "removed": removed, "changed": changed}
    return None


def assert_toolset_parity(observed: Iterable, baseline: Iterable) -> None:
    """Raise ToolsetDrift unless observed is exactly the admitted baseline."""
    delta = diff_toolsets(observed, baseline)
    if delta is not None:
        raise ToolsetDrift(**delta)


def freeze_toolset(tools: Iterable[ToolSpec]) -> tuple[ToolSpec, ...]:
    """Deep copies of the tools, in order, in a tuple nobody can append to."""
    return tuple(t.model_copy(deep=True) for t in tools)


def verify_toolset(request: CallRequest, baseline: Sequence[ToolSpec]) -> None:
    """Cheap structural check for paths with no middleware in between."""
    if len(request.tools) != len(baseline):
        raise ToolsetDrift(added=[], removed=[], changed=["<count>"])
    admitted = {t.name for t in baseline}
    strangers = [t.name for t in request.tools if t.name not in admitted]
    if strangers:
        raise ToolsetDrift(added=strangers, removed=[], changed=[])


def resume_reference(request: CallRequest) -> tuple[ToolSpec, ...]:
    """The reference toolset for a request restored from a checkpoint."""
    return freeze_toolset(request.tools)
