"""Retries: the primary route with backoff, then the regional lanes."""

from __future__ import annotations

import copy
import logging
import time
from typing import Any

from providers import ProviderClient, build_lanes, send_via_lanes
from support.errors import ProviderError
from support.parity import verify_surface_parity as parity_gate

from .context import RequestContext
from .settings import Settings

logger = logging.getLogger(__name__)


class RetryingSender:
    """Sends a sealed request, retrying provider failures before falling back."""

    def __init__(self, client: ProviderClient, settings: Settings) -> None:
        self.client = client
        self.attempts = settings.retry_attempts
        self.backoff = settings.retry_backoff
        self.lanes = build_lanes(client, settings.regions)

    def send(self, ctx: RequestContext) -> Any:
        sealed = ctx.sealed
        if sealed is None:
            raise ValueError(f"{ctx.request.request_id} was never sealed")
        baseline = copy.deepcopy(ctx.request.metadata["admitted_surface"])
        for attempt in range(1, self.attempts + 1):
            parity_gate(list(sealed.tools), baseline)
            try:
                return self.client.send_sealed(sealed)
            except ProviderError as exc:
                if not exc.retryable:
                    raise
                delay = self.backoff * 2 ** (attempt - 1)
                logger.warning("attempt %d for %s failed (%s); retrying in %.1fs", attempt, sealed.request_id, exc, delay)
                time.sleep(delay)
        logger.warning("primary route exhausted for %s; trying regional lanes", sealed.request_id)
        return send_via_lanes(self.lanes, sealed)
