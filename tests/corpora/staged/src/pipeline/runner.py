"""The pipeline runner: reserves, runs the stages in order, settles."""

from __future__ import annotations

import logging
from typing import Any, Callable, Mapping, Sequence

from billing import Ledger, Outcome, provider_failures_settled, settle_failure
from providers import ProviderClient, default_client
from support import confirm_unchanged, ensure_parity
from support.errors import ProviderError, RequestRefused
from support.tokens import estimate_all

from . import hooks
from .admission import AdmissionStage, StaticAdmissionStage
from .availability import AvailabilityStage
from .base import BaseStage
from .context import RequestContext, Services
from .context_fit import ContextFitStage
from .dispatch import DispatchStage
from .facts import Binding, FactFeed, feed
from .middleware import ControlPresenceAudit, DescriptionTrimmer, ParityInterceptor, ResultPagerMiddleware
from .request import ModelRequest, SealedRequest
from .seal import SealStage
from .selection import ToolSelector
from .settings import Settings

logger = logging.getLogger(__name__)

ToolExecutor = Callable[[Sequence[Mapping[str, Any]]], list[dict[str, Any]]]


class PipelineRunner:
    """Runs requests of one deployment through admission, availability, fit, seal and dispatch."""

    def __init__(
        self,
        settings: Settings,
        *,
        client: ProviderClient | None = None,
        facts: FactFeed | None = None,
        bus: hooks.HookBus | None = None,
    ) -> None:
        self.settings = settings
        self.bus = bus if bus is not None else hooks.bus
        self.client = client if client is not None else default_client
        self.ledger = Ledger(settings.lane)
        self.services = Services(ledger=self.ledger, client=self.client, facts=facts or feed, bus=self.bus)
        self.availability = AvailabilityStage(settings, self.services)
        self.stages: list[BaseStage] = [
            AdmissionStage(settings, self.services),
            self.availability,
            ContextFitStage(settings, self.services),
            SealStage(settings, self.services),
            DispatchStage(settings, self.services),
        ]
        self.batch_settings = settings.with_lane("batch")
        self.batch_ledger = Ledger("batch")
        batch_services = Services(ledger=self.batch_ledger, client=self.client, facts=self.services.facts, bus=None)
        self.batch_stages: list[BaseStage] = [
            StaticAdmissionStage(self.batch_settings, batch_services),
            ContextFitStage(self.batch_settings, batch_services),
            SealStage(self.batch_settings, batch_services),
        ]
        self.selector = ToolSelector(settings.max_tools, always=settings.pinned)
        self.selector.prime(settings.catalogue)
        self._install_hooks()

    def _install_hooks(self) -> None:
        self.bus.attach_hook("after_admission", hooks.fingerprint_hook)
        self.bus.attach_hook("before_seal", ResultPagerMiddleware())
        self.bus.attach_hook("before_seal", DescriptionTrimmer(limit=1024))
        self.bus.attach_hook("before_seal", hooks.tighten_schemas_hook)
        if self.settings.strict_schemas:
            self.bus.attach_hook("before_seal", hooks.strict_mode_hook)
        self.bus.attach_hook("before_seal", hooks.publish_schema_catalog_hook)
        self.bus.attach_hook("before_send", hooks.drift_telemetry_hook)
        self.bus.attach_hook("before_send", ControlPresenceAudit())
        self.bus.attach_hook("before_send", ParityInterceptor())

    def suggest_tools(self, query: str) -> list[str]:
        """Names of the tools the selector would offer for *query*, for the console."""
        return [str(spec["name"]) for spec in self.selector.select(query)]

    def _start(self, request: ModelRequest, binding: Binding | None) -> RequestContext:
        ctx = RequestContext(request=request, settings=self.settings, binding=binding)
        ctx.reservation = self.ledger.reserve(request.request_id, amount=estimate_all(request.messages))
        return ctx

    def _run_stages(self, ctx: RequestContext) -> None:
        for stage in self.stages:
            stage.run(ctx)

    def run(self, request: ModelRequest, binding: Binding | None = None) -> Any:
        """One model call: every stage, then the dispatched settlement."""
        ctx = self._start(request, binding)
        try:
            self._run_stages(ctx)
        except ProviderError as exc:
            settle_failure(self.ledger, ctx.reservation, exc)
            raise
        self.ledger.settle_reservation(ctx.reservation, Outcome.DISPATCHED)
        return ctx.response

    def run_conversation(self, request: ModelRequest, execute_tools: ToolExecutor, binding: Binding | None = None) -> Any:
        """Model calls until the model stops calling tools, at most max_turns."""
        ctx = self._start(request, binding)
        try:
            self._run_stages(ctx)
            for _ in range(self.settings.max_turns):
                calls = ctx.response.tool_calls
                if not calls:
                    break
                results = execute_tools(calls)
                ctx.tool_results.extend(results)
                ctx.response = self.send_followup(ctx, [*ctx.request.messages, *results])
            else:
                raise RequestRefused(f"{request.request_id} still calling tools after {self.settings.max_turns} turns")
        except ProviderError as exc:
            settle_failure(self.ledger, ctx.reservation, exc)
            raise
        self.ledger.settle_reservation(ctx.reservation, Outcome.DISPATCHED)
        return ctx.response

    def send_followup(self, ctx: RequestContext, messages: Sequence[dict[str, Any]]) -> Any:
        """The next model call of a request, after its tool calls returned."""
        ctx.request = ctx.request.next_turn(messages)
        self.bus.emit("before_send", ctx.request)
        sealed = SealedRequest.seal(ctx.request)
        expected = self.availability.expected_surface(ctx)
        confirm_unchanged(sealed, expected, self.bus.listeners("before_send"))
        return self.client.send_sealed(sealed)

    def run_batch_item(self, request: ModelRequest) -> Any:
        """One request of the batch lane, whose tools are fixed by configuration."""
        ctx = RequestContext(request=request, settings=self.batch_settings)
        reservation = self.batch_ledger.reserve(request.request_id, amount=estimate_all(request.messages))
        ctx.reservation = reservation
        with provider_failures_settled(self.batch_ledger, reservation):
            for stage in self.batch_stages:
                stage.run(ctx)
            if ctx.sealed is None or not ctx.sealed.tools:
                raise RequestRefused(f"batch item {request.request_id} has no tools left to send")
            ensure_parity(ctx.sealed, ctx.baseline or [])
            response = self.client.send_sealed(ctx.sealed)
        self.batch_ledger.settle_reservation(reservation, Outcome.DISPATCHED)
        return response
