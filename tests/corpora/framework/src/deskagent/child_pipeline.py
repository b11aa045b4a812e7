"""Child requests: a sub-agent's model call on its own lane, under the parent's run."""

from __future__ import annotations

import logging
from typing import Collection, Sequence

from agentcore import AgentSpec, HookRegistry, Ledger, Message, ModelGateway, ModelRequest, ModelResponse
from agentcore import ProviderError, SurfaceDrift

from .admission import admit
from .parity import diff_specs
from .settlement import settle_refusal

log = logging.getLogger(__name__)


class ChildPipeline:
    """One model call of a child agent."""

    def __init__(self, gateway: ModelGateway, ledger: Ledger, hooks: HookRegistry, *, lane: str = "child") -> None:
        self._gateway = gateway
        self._ledger = ledger
        self._hooks = hooks
        self.lane = lane

    def run(self, spec: AgentSpec, messages: Sequence[Message], *, parent_run: str, grants: Collection[str]) -> ModelResponse:
        reservation = self._ledger.reserve(self.lane, parent_run)
        admitted = admit(spec, grants)
        baseline = list(admitted)
        request = ModelRequest(
            model=spec.model,
            messages=list(messages),
            tools=[*admitted],
            run_id=f"{parent_run}/{spec.name}",
        )
        if self._hooks.has_hooks("before_model"):
            self._hooks.run("before_model", request)
        changes = diff_specs(request.tools, baseline)
        if changes:
            settle_refusal(self._ledger, reservation, "; ".join(changes))
            raise SurfaceDrift(f"child {spec.name}: {changes[0]}", lane=self.lane, changes=changes)
        try:
            response = self._gateway.invoke_model(request)
        except ProviderError:
            self._ledger.settle(reservation, "failed")
            raise
        self._ledger.settle(reservation, "dispatched")
        return response
