"""Retrying a send on one transport."""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Any

from .transport import ProviderUnavailable, Transport, TransportError

if TYPE_CHECKING:
    from mcphost.requests import SealedRequest

log = logging.getLogger(__name__)


async def send_with_retry(
    transport: Transport,
    sealed: "SealedRequest",
    *,
    attempts: int = 2,
    backoff: float = 0.25,
) -> dict[str, Any]:
    """Send ``sealed`` on ``transport``, retrying transient failures with a linear backoff."""
    last: TransportError | None = None
    for attempt in range(1, attempts + 1):
        try:
            return await transport.send(sealed)
        except TransportError as exc:
            last = exc
            log.warning("%s: attempt %d of %d failed: %s", transport.provider, attempt, attempts, exc)
            await asyncio.sleep(backoff * attempt)
    raise ProviderUnavailable(f"{transport.provider}: {attempts} attempts failed") from last
