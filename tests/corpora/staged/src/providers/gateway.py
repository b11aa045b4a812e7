"""Front door to the provider, and the regional lanes behind it."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Any, Callable, Mapping, Sequence

from support.errors import SurfaceDrift
from support.parity import names_match, verify_surface_parity

from .client import ProviderClient, Sealed

logger = logging.getLogger(__name__)


@dataclass(frozen=True)
class Lane:
    """A route to the provider in one region."""

    name: str
    region: str
    send: Callable[..., Any]


def build_lanes(client: ProviderClient, regions: Sequence[str] = ("eu-west", "us-east")) -> list[Lane]:
    """One lane per region, each sending through *client*."""
    return [
        Lane(name=f"{client.name}:{region}", region=region, send=functools.partial(client.send_sealed, region=region))
        for region in regions
    ]


class Gateway:
    """Checks a sealed request against its baseline, then sends it."""

    def __init__(self, client: ProviderClient, *, timeout: float = 30.0) -> None:
        self.client = client
        self._send = functools.partial(client.send_sealed, timeout=timeout)

    def forward(self, sealed: Sealed, baseline: Sequence[Mapping[str, Any]]) -> Any:
        """Send *sealed* once its tools match *baseline*."""
        verify_surface_parity(list(sealed.tools), baseline)
        return self._send(sealed)

    def forward_listing(self, sealed: Sealed, listing: Sequence[Mapping[str, Any]]) -> Any:
        """Send a request whose tools came from an MCP server listing.

        Servers reorder nothing between pages, so the listing's names in order
        identify the admitted surface.
        """
        if not names_match(sealed.tools, listing):
            raise SurfaceDrift([f"tool names differ from the listing for {sealed.request_id}"])
        return self._send(sealed)
