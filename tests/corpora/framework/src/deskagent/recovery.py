"""Resuming and replaying requests from their sealed receipts."""

from __future__ import annotations

import logging

from agentcore import HookRegistry, Ledger, ModelGateway, ModelResponse, ProviderError, RequestRefused

from .context_fit import ContextFitter
from .parity import assert_surface_unchanged, freeze_surface
from .runtime import STAGES
from .sealing import ReceiptStore, restore_request

log = logging.getLogger(__name__)


class RecoveryLane:
    """Brings back requests that were sealed but never completed."""

    def __init__(
        self,
        gateway: ModelGateway,
        ledger: Ledger,
        receipts: ReceiptStore,
        fitter: ContextFitter,
        hooks: HookRegistry,
        *,
        lane: str = "main",
    ) -> None:
        self._gateway = gateway
        self._ledger = ledger
        self._receipts = receipts
        self._fitter = fitter
        self._hooks = hooks
        self.lane = lane

    def resume(self, run_id: str) -> ModelResponse:
        """Finish an interrupted request from its receipt."""
        receipt = self._receipts.load(run_id)
        outcome = "pre_dispatch_rejected"
        try:
            request = restore_request(receipt)
            self._hooks.run("before_model", request)
            baseline = freeze_surface(request.tools)
            if receipt.expired():
                raise RequestRefused(f"receipt for {run_id} expired", lane=self.lane)
            fitted = self._fitter.fit(request)
            assert_surface_unchanged(fitted.tools, baseline, lane=self.lane)
            response = self._gateway.invoke_model(fitted)
            outcome = "dispatched"
            return response
        except ProviderError:
            outcome = "failed"
            raise
        finally:
            self._ledger.settle(receipt.reservation, outcome)

    def replay(self, run_id: str) -> ModelResponse:
        """Send a sealed request again after a transport failure."""
        receipt = self._receipts.load(run_id)
        request = STAGES["restore"](receipt)
        self._hooks.run("before_model", request)
        try:
            response = STAGES["send"](request)
        except ProviderError:
            self._ledger.settle(receipt.reservation, "failed")
            raise
        self._ledger.settle(receipt.reservation, "dispatched")
        return response
