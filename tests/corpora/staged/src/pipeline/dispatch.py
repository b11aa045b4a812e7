"""Dispatch: the last stage, which sends the sealed request."""

from __future__ import annotations

import logging
from typing import Any, Callable

from .base import BaseStage
from .context import RequestContext
from .seal import seal_request

logger = logging.getLogger(__name__)


class DispatchStage(BaseStage):
    """Runs the before_send hooks, re-seals if any ran, checks parity and sends."""

    name = "dispatch"

    def apply(self, ctx: RequestContext) -> None:
        if self.listeners("before_send"):
            self.emit("before_send", ctx)
            ctx.sealed = seal_request(ctx.request)
        self.assert_parity(ctx)
        ctx.response = self.client.send_sealed(ctx.sealed)
        logger.info("dispatched %s", ctx.request.request_id)


class StreamingDispatchStage(DispatchStage):
    """Dispatch for interactive lanes: events are handed on as they arrive."""

    name = "dispatch_stream"

    def __init__(self, *args: Any, on_event: Callable[[dict[str, Any]], None], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_event = on_event

    def apply(self, ctx: RequestContext) -> None:
        if ctx.sealed is None:
            ctx.sealed = seal_request(ctx.request)
        events: list[dict[str, Any]] = []
        with self.client.send_sealed(ctx.sealed, stream=True) as stream:
            for event in stream:
                events.append(event)
                self.on_event(event)
        ctx.response = events
        logger.info("streamed %d events for %s", len(events), ctx.request.request_id)
