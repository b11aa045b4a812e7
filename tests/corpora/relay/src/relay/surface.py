"""Snapshots of a tool surface and the parity check before a turn is sent."""

from __future__ import annotations

import copy
import hashlib
import json
from typing import Any, Iterable, Mapping

from relay.errors import SurfaceDrift

Spec = Mapping[str, Any]


def _as_spec(tool: Any) -> dict[str, Any]:
    return tool.to_spec() if hasattr(tool, "to_spec") else dict(tool)


def freeze_surface(tools: Iterable[Any]) -> tuple[dict[str, Any], ...]:
    """A deep, detached snapshot of the tools, in the order given."""
    return tuple(copy.deepcopy(_as_spec(t)) for t in tools)


def fingerprint(spec: Spec) -> str:
    blob = json.dumps(_as_spec(spec), sort_keys=True, default=str).encode()
    return hashlib.sha256(blob).hexdigest()[:16]


def diff_surface(observed: Iterable[Any], baseline: Iterable[Any]) -> list[str]:
    """Every difference between two surfaces: names, order and full specs."""
    seen = [_as_spec(t) for t in observed]
    want = [_as_spec(t) for t in baseline]
    out: list[str] = []
    if [s["name"] for s in seen] != [w["name"] for w in want]:
        out.append(f"names {[s['name'] for s in seen]} != {[w['name'] for w in want]}")
    for s, w in zip(seen, want):
        if fingerprint(s) != fingerprint(w):
            out.append(f"{s['name']}: spec changed")
    return out


def diff_names(observed: Iterable[Any], baseline: Iterable[Any]) -> set[str]:
    """Tool names present on one side only."""
    return {_as_spec(t)["name"] for t in observed} ^ {_as_spec(t)["name"] for t in baseline}


def assert_surface_parity(observed: Iterable[Any], baseline: Iterable[Any]) -> None:
    """Raise SurfaceDrift unless the observed surface equals the baseline exactly."""
    differences = diff_surface(observed, baseline)
    if differences:
        raise SurfaceDrift(differences)


def ensure_parity(request: Any, baseline: Iterable[Any]) -> None:
    """Final check for a request; a resumed request was checked when it first went out."""
    if request.resumed:
        return
    assert_surface_parity(freeze_surface(request.tools), baseline)


class SurfaceGate:
    """Holds the admitted surface of each agent and enforces it before sends."""

    __slots__ = ("_pins",)

    def __init__(self) -> None:
        self._pins: dict[str, tuple[dict[str, Any], ...]] = {}

    def pin(self, agent_name: str, tools: Iterable[Any]) -> None:
        self._pins[agent_name] = freeze_surface(tools)

    def pinned_for(self, agent_name: str) -> tuple[dict[str, Any], ...]:
        return self._pins[agent_name]

    def enforce(self, request: Any) -> None:
        assert_surface_parity(freeze_surface(request.tools), self._pins[request.agent_name])
