"""Running a DeskAgent's model call through its middleware stack."""

from __future__ import annotations

import logging
from typing import Sequence

from agentcore import AgentMiddleware, AgentSpec, CapacityExceeded, Ledger, Message, ModelRequest, ModelResponse
from agentcore import ProviderError, compose

from .agents import DeskAgent
from .parity import assert_surface_unchanged
from .runtime import send_to_provider
from .settlement import settles_drift

log = logging.getLogger(__name__)


class AgentLoop:
    """One model call of an agent: middleware around a terminal call that checks and sends."""

    def __init__(
        self,
        spec: DeskAgent,
        ledger: Ledger,
        middleware: Sequence[AgentMiddleware] = (),
        *,
        lane: str = "main",
        max_messages: int = 200,
    ) -> None:
        self.spec = spec
        self._ledger = ledger
        self._middleware = list(middleware)
        self.lane = lane
        self.max_messages = max_messages
        self._baseline: AgentSpec | None = None

    def invoke(self, messages: Sequence[Message], *, run_id: str) -> ModelResponse:
        reservation = self._ledger.reserve(self.lane, run_id)
        self._baseline = self.spec.model_copy()
        request = ModelRequest(model=self.spec.model, messages=list(messages), tools=list(self.spec.tools), run_id=run_id)
        handler = compose(self._middleware, self._call_model)
        with settles_drift(self._ledger, reservation):
            if len(request.messages) > self.max_messages:
                raise CapacityExceeded(f"{len(request.messages)} messages for a window of {self.max_messages}", lane=self.lane)
            try:
                response = handler(request)
            except ProviderError:
                self._ledger.settle(reservation, "failed")
                raise
        self._ledger.settle(reservation, "dispatched")
        return response

    def _call_model(self, request: ModelRequest) -> ModelResponse:
        baseline = self._baseline
        if baseline is None:
            raise RuntimeError("invoke() pins the agent before the first model call")
        assert_surface_unchanged(request.tools, baseline.tools, lane=self.lane)
        return send_to_provider(request)
