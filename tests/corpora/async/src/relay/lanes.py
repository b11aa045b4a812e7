"""Provider fallback lanes: the same sealed request, tried on each provider in turn."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Sequence

from .transport import ProviderUnavailable, Transport, TransportError

if TYPE_CHECKING:
    from mcphost.requests import SealedRequest

log = logging.getLogger(__name__)


@dataclass
class Lane:
    name: str
    transport: Transport
    max_tools: int = 128


class FallbackLanes:
    """Sends a sealed request on the first provider lane that answers."""

    def __init__(self, lanes: Sequence[Lane]) -> None:
        if not lanes:
            raise ValueError("at least one lane is needed")
        self._lanes = list(lanes)

    @property
    def primary(self) -> Lane:
        return self._lanes[0]

    def __iter__(self):
        return iter(self._lanes)

    async def send(self, sealed: "SealedRequest") -> dict[str, Any]:
        """Send ``sealed`` on each lane in turn until one answers.

        The seal goes out exactly as it is on every lane; callers check it before handing it here.
        """
        failures: list[str] = []
        for lane in self._lanes:
            try:
                response = await lane.transport.send(sealed)
            except TransportError as exc:
                log.warning("lane %s failed: %s", lane.name, exc)
                failures.append(f"{lane.name}: {exc}")
                continue
            if failures:
                log.info("lane %s answered after %d failed lane(s)", lane.name, len(failures))
            return response
        raise ProviderUnavailable("; ".join(failures))
