"""The main request pipeline: admit, run hooks, fit, check, send, settle."""

from __future__ import annotations

import logging
from typing import Collection, Sequence

from agentcore import AgentSpec, HookRegistry, Ledger, Message, ModelGateway, ModelRequest, ModelResponse
from agentcore import ProviderError, RequestRefused

from .admission import admit
from .context_fit import ContextFitter
from .guards import ensure_parity
from .parity import freeze_surface
from .sealing import ReceiptStore, seal_request
from .settlement import settles_refusals

log = logging.getLogger(__name__)


class RequestPipeline:
    """One model call of the main lane."""

    def __init__(
        self,
        gateway: ModelGateway,
        ledger: Ledger,
        hooks: HookRegistry,
        fitter: ContextFitter,
        *,
        grants: Collection[str],
        allowed_models: Collection[str] = ("gpt-4.1", "gpt-4.1-mini"),
        receipts: ReceiptStore | None = None,
        lane: str = "main",
    ) -> None:
        self._gateway = gateway
        self._ledger = ledger
        self._hooks = hooks
        self._fitter = fitter
        self._grants = frozenset(grants)
        self._allowed_models = frozenset(allowed_models)
        self._receipts = receipts
        self.lane = lane

    def run(self, spec: AgentSpec, messages: Sequence[Message], *, run_id: str) -> ModelResponse:
        reservation = self._ledger.reserve(self.lane, run_id)
        admitted = admit(spec, self._grants)
        baseline = freeze_surface(admitted)
        request = ModelRequest(model=spec.model, messages=list(messages), tools=list(admitted), run_id=run_id)
        with settles_refusals(self._ledger, reservation):
            if request.model not in self._allowed_models:
                raise RequestRefused(f"model {request.model} is not enabled for this desk", lane=self.lane)
            self._hooks.run("before_model", request)
            request = self._fitter.fit(request)
            ensure_parity(request, baseline, lane=self.lane)
            if self._receipts is not None:
                self._receipts.save(seal_request(request, reservation))
            try:
                response = self._gateway.invoke_model(request)
            except ProviderError:
                self._ledger.settle(reservation, "failed")
                raise
        self._ledger.settle(reservation, "dispatched")
        return response
