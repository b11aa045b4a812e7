"""Sealing: freeze the request that the dispatch stage will send."""

from __future__ import annotations

import logging

from support.copying import snapshot_tools

from .base import BaseStage
from .context import RequestContext
from .request import ModelRequest, SealedRequest

logger = logging.getLogger(__name__)


def seal_request(request: ModelRequest) -> SealedRequest:
    """Seal *request* as it stands."""
    sealed = SealedRequest.seal(request)
    logger.info("sealed %s turn %d, digest %s", request.request_id, request.turn, sealed.digest[:12])
    return sealed


class SealStage(BaseStage):
    """Runs the before_seal hooks, then freezes the request."""

    name = "seal"

    def apply(self, ctx: RequestContext) -> None:
        self.emit("before_seal", ctx)
        ctx.sealed = seal_request(ctx.request)
        if ctx.baseline is None:
            logger.warning("no admitted baseline for %s; holding it to its sealed tools", ctx.request.request_id)
            ctx.baseline = snapshot_tools(ctx.request.tools)
        self.assert_parity(ctx)
