"""The final parity check between what is about to be sent and what was admitted."""

from __future__ import annotations

import logging
from typing import Any, Mapping, Protocol, Sequence

from .diffing import diff_specs
from .errors import SurfaceDrift

logger = logging.getLogger(__name__)


class HasTools(Protocol):
    request_id: str
    tools: Sequence[Mapping[str, Any]]


def verify_surface_parity(
    observed: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]]
) -> None:
    """Raise :class:`SurfaceDrift` unless *observed* equals *baseline* exactly."""
    changes = diff_specs(observed, baseline)
    if changes:
        raise SurfaceDrift(changes)


def ensure_parity(request: HasTools, baseline: Sequence[Mapping[str, Any]]) -> None:
    """Check a request (or its seal) against its admitted baseline."""
    logger.info("parity check for %s (%d tools)", request.request_id, len(request.tools))
    verify_surface_parity(list(request.tools), baseline)


def confirm_unchanged(
    request: HasTools, baseline: Sequence[Mapping[str, Any]], hooks: Sequence[Any]
) -> None:
    """Confirm the surface survived the hooks that ran on *request*."""
    if not hooks:
        logger.info("no hooks ran on %s; surface is as admitted", request.request_id)
        return
    verify_surface_parity(list(request.tools), baseline)


def names_match(observed: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]]) -> bool:
    """True when both lists name the same tools in the same order."""
    return [tool.get("name") for tool in observed] == [tool.get("name") for tool in baseline]


def drift_report(observed: Sequence[Mapping[str, Any]], baseline: Sequence[Mapping[str, Any]]) -> list[str]:
    """The differences between two surfaces, for logs and dashboards only."""
    return diff_specs(observed, baseline)
