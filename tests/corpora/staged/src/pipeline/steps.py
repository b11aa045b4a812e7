"""Default step functions a lane can be assembled from."""

from __future__ import annotations

from typing import Any, Callable

from providers import default_client

from .seal import seal_request

STEPS: dict[str, Callable[..., Any]] = {
    "seal": seal_request,
    "send": default_client.send_sealed,
}


def step(name: str) -> Callable[..., Any]:
    """The step registered under *name*."""
    try:
        return STEPS[name]
    except KeyError:
        raise LookupError(f"no step named {name!r}; known: {', '.join(sorted(STEPS))}") from None
