"""The surface gate and the relay that sends requests after the ``before_send`` stage."""

from __future__ import annotations

import logging

from agentcore import HookRegistry, Ledger, ModelRequest, ModelResponse, ProviderError, RequestRefused

from .parity import assert_surface_unchanged
from .pins import PinStore
from .runtime import send_to_provider

log = logging.getLogger(__name__)


class SurfaceGate:
    """Compares a request with the surface pinned for its run."""

    def __init__(self, pins: PinStore, *, lane: str = "main") -> None:
        self._pins = pins
        self.lane = lane

    def enforce(self, request: ModelRequest) -> None:
        baseline = self._pins.lookup(request.run_id)
        assert_surface_unchanged(request.tools, baseline, lane=self.lane)


class HookRelay:
    """Runs the ``before_send`` stage and hands the request to the provider."""

    def __init__(self, hooks: HookRegistry, ledger: Ledger, *, lane: str = "main") -> None:
        self._hooks = hooks
        self._ledger = ledger
        self.lane = lane

    def relay(self, request: ModelRequest) -> ModelResponse:
        reservation = self._ledger.reserve(self.lane, request.run_id)
        try:
            self._hooks.run("before_send", request)
        except RequestRefused:
            self._ledger.settle(reservation, "pre_dispatch_rejected")
            raise
        try:
            response = send_to_provider(request)
        except ProviderError:
            self._ledger.settle(reservation, "failed")
            raise
        self._ledger.settle(reservation, "dispatched")
        return response
