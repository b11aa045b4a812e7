"""The nightly batch lane: many small requests, each on its own reservation."""

from __future__ import annotations

import logging
from typing import Any, Iterable, Protocol, Sequence

from agentcore import Ledger, ModelGateway, ModelRequest, ModelResponse, ProviderError, RequestRefused, SurfaceDrift

from .parity import assert_surface_unchanged

log = logging.getLogger(__name__)


class RequestCallback(Protocol):
    def on_request(self, request: ModelRequest) -> None: ...


class BatchRunner:
    """Runs batch items; callbacks (enrichment, redaction) may adjust each request first."""

    def __init__(
        self,
        gateway: ModelGateway,
        ledger: Ledger,
        *,
        callbacks: Iterable[RequestCallback] = (),
        lane: str = "batch",
        record_rejections: bool = True,
        timeout: float = 120.0,
    ) -> None:
        self._gateway = gateway
        self._ledger = ledger
        self._callbacks = list(callbacks)
        self.lane = lane
        self.record_rejections = record_rejections
        self.timeout = timeout

    def run_one(self, request: ModelRequest, baseline: Sequence[Any]) -> ModelResponse:
        reservation = self._ledger.reserve(self.lane, request.run_id)
        if self._callbacks:
            for callback in self._callbacks:
                callback.on_request(request)
            try:
                assert_surface_unchanged(request.tools, baseline, lane=self.lane)
            except SurfaceDrift as exc:
                if self.record_rejections:
                    self._ledger.settle(reservation, "pre_dispatch_rejected")
                raise RequestRefused(f"batch item {request.run_id} refused: {exc}", lane=self.lane) from exc
        try:
            response = self._gateway.invoke_model(request, timeout=self.timeout)
        except ProviderError:
            self._ledger.settle(reservation, "failed")
            raise
        self._ledger.settle(reservation, "dispatched")
        log.info("batch item %s done", request.run_id)
        return response
