"""Helpers the pipelines use around the final surface check."""

from __future__ import annotations

import logging
from typing import Any, Callable, Sequence

from agentcore import ModelRequest, ToolDef

from .parity import assert_surface_unchanged

log = logging.getLogger(__name__)


def ensure_parity(request: ModelRequest, baseline: Sequence[Any], *, lane: str) -> None:
    """The final surface check, made right before a request leaves the host."""
    assert_surface_unchanged(request.tools, baseline, lane=lane)


def recheck_after_hooks(
    request: ModelRequest,
    baseline: Sequence[Any],
    hooks: Sequence[Callable[..., Any]],
    *,
    lane: str,
) -> None:
    """Compare the surface again once the hooks have had the request.

    With no hooks registered nothing outside the pipeline touched the request, so there is
    nothing to compare.
    """
    if not hooks:
        log.info("no hooks ran for %s; surface taken as admitted", request.run_id)
        return
    assert_surface_unchanged(request.tools, baseline, lane=lane)


def pin_surface(admitted: Sequence[ToolDef]) -> list[ToolDef]:
    """Keep the admitted definitions for the comparison later in the request."""
    return [definition.model_copy() for definition in admitted]
