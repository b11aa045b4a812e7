"""The stage base class: every pipeline stage shares its run() and helpers."""

from __future__ import annotations

import logging
import time
from typing import Any, Sequence

from billing import Ledger, Outcome
from providers import ProviderClient
from support.errors import SurfaceDrift
from support.parity import verify_surface_parity

from .context import RequestContext, Services
from .facts import FactFeed
from .settings import Settings

logger = logging.getLogger(__name__)


class BaseStage:
    """A stage of the request pipeline.

    Subclasses implement :meth:`apply`; :meth:`run` wraps it with timing and
    logging.  A stage that refuses a request settles its reservation before
    the refusal leaves the stage.
    """

    name = "stage"

    def __init__(self, settings: Settings, services: Services) -> None:
        self.settings = settings
        self.services = services

    @property
    def ledger(self) -> Ledger:
        return self.services.ledger

    @property
    def client(self) -> ProviderClient:
        return self.services.client

    @property
    def facts(self) -> FactFeed:
        return self.services.facts

    def run(self, ctx: RequestContext) -> RequestContext:
        logger.info("stage %s starting for %s", self.name, ctx.request.request_id)
        started = time.perf_counter()
        try:
            self.apply(ctx)
        finally:
            elapsed = (time.perf_counter() - started) * 1000
            logger.info("stage %s finished for %s in %.1f ms", self.name, ctx.request.request_id, elapsed)
        return ctx

    def apply(self, ctx: RequestContext) -> None:
        raise NotImplementedError(f"{type(self).__name__} must implement apply()")

    def listeners(self, event: str) -> Sequence[Any]:
        bus = self.services.bus
        return bus.listeners(event) if bus is not None else ()

    def emit(self, event: str, ctx: RequestContext) -> None:
        """Run the hooks registered for *event* on the live request."""
        bus = self.services.bus
        if bus is None:
            return
        bus.emit(event, ctx.request)
        ctx.hooks_ran.append(event)

    def assert_parity(self, ctx: RequestContext) -> None:
        """The final parity check: the sealed tools against the admitted baseline."""
        observed = list(ctx.sealed.tools) if ctx.sealed is not None else list(ctx.request.tools)
        try:
            verify_surface_parity(observed, ctx.baseline if ctx.baseline is not None else [])
        except SurfaceDrift as exc:
            self.settle_rejected(ctx, str(exc))
            raise

    def settle_rejected(self, ctx: RequestContext, reason: str) -> None:
        """Settle the request's reservation as rejected before dispatch."""
        logger.info("%s refused %s: %s", self.name, ctx.request.request_id, reason)
        self.ledger.settle_reservation(ctx.reservation, Outcome.REJECTED)

    def refund(self, ctx: RequestContext) -> None:
        """Give back a reservation the request will not spend."""
        if ctx.reservation is not None and ctx.reservation.amount > 0:
            self.ledger.settle_reservation(ctx.reservation, Outcome.REJECTED)
