"""Sending through the regional lanes when the primary route fails."""

from __future__ import annotations

import logging
from typing import Any, Sequence

from support.errors import ProviderError

from .client import Sealed
from .gateway import Lane

logger = logging.getLogger(__name__)


def send_via_lanes(lanes: Sequence[Lane], sealed: Sealed) -> Any:
    """Try each lane in order until one answers."""
    last: ProviderError | None = None
    for lane in lanes:
        try:
            return lane.send(sealed)
        except ProviderError as exc:
            logger.warning("lane %s failed %s: %s", lane.name, sealed.request_id, exc)
            last = exc
            if not exc.retryable:
                break
    raise ProviderError(f"no lane answered for {sealed.request_id}") from last
