"""Resuming graphs from checkpoints after a restart or a provider outage."""

from __future__ import annotations

import logging
from typing import Sequence

from plugins import CallContext, MiddlewareRegistry
from plugins.guards import FinalGate
from providers import Gateway

from . import verify_toolset
from .errors import HostError, ToolsetDrift
from .models import CallRequest, ToolSpec
from .parity import assert_toolset_parity, resume_reference
from .state import CheckpointStore

log = logging.getLogger(__name__)


async def resume_pending(store: CheckpointStore, gateway: Gateway, graph_id: str) -> dict | None:
    """Send the request a graph was about to send when the host went down."""
    request = store.load_pending(graph_id)
    if request is None:
        return None
    baseline = store.load_baseline(graph_id)
    if baseline is None:
        log.warning("no pinned toolset for %s; resuming against the checkpointed request", graph_id)
        baseline = resume_reference(request)
    verify_toolset(request, baseline)
    response = await gateway.invoke(request.model_dump(mode="json"), route="primary")
    store.drop(graph_id)
    return response


async def resend(gateway: Gateway, gate: FinalGate, request: CallRequest,
                 baseline: Sequence[ToolSpec], *, attempts: int = 3) -> dict:
    """Send again, rebuilding the tools from the baseline if they drifted."""
    tries = 0
    while True:
        try:
            gate.enforce(request.tools, baseline)
            break
        except ToolsetDrift:
            tries += 1
            if tries >= attempts:
                raise
            log.info("tools drifted on %s; rebuilding from the baseline", request.graph_id)
            request = request.model_copy(update={"tools": [t.model_copy(deep=True) for t in baseline]})
    return await gateway.invoke(request.model_dump(mode="json"), route="primary")


async def resume_with_middleware(store: CheckpointStore, gateway: Gateway, registry: MiddlewareRegistry,
                                 graph_id: str) -> dict:
    """Resume through the middleware chain, as a fresh call would go."""
    request = store.load_pending(graph_id)
    baseline = store.load_baseline(graph_id)
    if request is None or baseline is None:
        raise HostError(f"nothing to resume for {graph_id}")
    ctx = CallContext(request=request)
    await registry.run("pre_invoke", ctx)
    assert_toolset_parity(ctx.request.tools, baseline)
    if registry.has("post_invoke"):
        ctx.notes.append("resumed")
    response = await gateway.invoke(ctx.request.model_dump(mode="json"), route="primary")
    await registry.run("post_invoke", ctx)
    store.drop(graph_id)
    return response
