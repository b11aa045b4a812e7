"""Model provider access."""

from .client import EventStream, ProviderClient, Response, default_client, send_sealed
from .fallback import send_via_lanes
from .gateway import Gateway, Lane, build_lanes

__all__ = [
    "EventStream",
    "Gateway",
    "Lane",
    "ProviderClient",
    "Response",
    "build_lanes",
    "default_client",
    "send_sealed",
    "send_via_lanes",
]
