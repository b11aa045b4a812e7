"""Sending requests that the middleware stack already prepared (the chat desk)."""

from __future__ import annotations

import logging

from agentcore import HookRegistry, Ledger, ModelGateway, ModelRequest, ModelResponse
from agentcore import ProviderError, RequestRefused, SurfaceDrift

from .guards import recheck_after_hooks
from .settlement import record_refusal

log = logging.getLogger(__name__)


class StreamingPipeline:
    """Sends one prepared request; admission middleware pinned its surface on the request state."""

    def __init__(self, gateway: ModelGateway, ledger: Ledger, hooks: HookRegistry, *, lane: str = "main", timeout: float = 120.0) -> None:
        self._gateway = gateway
        self._ledger = ledger
        self._hooks = hooks
        self.lane = lane
        self.timeout = timeout

    def send(self, request: ModelRequest) -> ModelResponse:
        reservation = self._ledger.reserve(self.lane, request.run_id)
        baseline = request.state["pinned_surface"]
        hooks = self._hooks.hooks_for("before_model")
        try:
            self._hooks.run("before_model", request)
            recheck_after_hooks(request, baseline, hooks, lane=self.lane)
        except SurfaceDrift as exc:
            record_refusal(self._ledger, reservation, exc)
            raise RequestRefused(f"streamed request refused: {exc}", lane=self.lane) from exc
        try:
            response = self._gateway.invoke_model(request, timeout=self.timeout)
        except ProviderError:
            self._ledger.settle(reservation, "failed")
            raise
        self._ledger.settle(reservation, "dispatched")
        return response
