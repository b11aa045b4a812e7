"""Builds the desk from its settings: catalogue, hooks, lanes and pipelines."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Collection, Sequence

from agentcore import AgentSpec, HookRegistry, Message, ModelRequest, ModelResponse, ToolDef, default_registry
from desktools import ToolCatalog

from .admission import admit
from .agents import DeskAgent, research_agent
from .batch import BatchRunner
from .context_fit import ContextFitter
from .gates import HookRelay, SurfaceGate
from .guards import pin_surface
from .interceptors import DescriptionTrimmer, attach_result_reader
from .lanes import FallbackLane, RetryLane
from .parity import freeze_surface
from .pins import PinStore
from .pipeline import RequestPipeline
from .runtime import GATEWAY, LEDGER
from .settings import SETTINGS, DeskSettings

log = logging.getLogger(__name__)


@dataclass
class Desk:
    agent: DeskAgent
    catalog: ToolCatalog
    pins: PinStore
    hooks: HookRegistry
    pipeline: RequestPipeline
    relay: HookRelay
    batch: BatchRunner


def build_desk(settings: DeskSettings = SETTINGS, *, hooks: HookRegistry = default_registry) -> Desk:
    offered = settings.catalogue[: settings.max_tools]
    catalog = ToolCatalog()
    catalog.load(offered)

    pins = PinStore()
    gate = SurfaceGate(pins)
    hooks.register_hook("before_send", gate.enforce)
    hooks.register_hook("before_send", DescriptionTrimmer(limit=settings.description_limit))
    hooks.register_hook("before_send", attach_result_reader)

    fitter = ContextFitter(max_tools=settings.max_tools, budget_tokens=settings.budget_tokens)
    pipeline = RequestPipeline(GATEWAY, LEDGER, hooks, fitter, grants=settings.grants)
    log.info("desk built with %d tools on offer", len(offered))
    return Desk(
        agent=research_agent(settings.catalogue, model=settings.model),
        catalog=catalog,
        pins=pins,
        hooks=hooks,
        pipeline=pipeline,
        relay=HookRelay(hooks, LEDGER),
        batch=BatchRunner(GATEWAY, LEDGER),
    )


def lanes_for(admitted: Sequence[ToolDef]) -> tuple[FallbackLane, RetryLane]:
    pinned = freeze_surface(admitted)
    return FallbackLane(GATEWAY, pinned, lane="main"), RetryLane(GATEWAY, pinned, lane="fallback")


def relay_run(desk: Desk, spec: AgentSpec, messages: Sequence[Message], *, run_id: str, grants: Collection[str]) -> ModelResponse:
    admitted = admit(spec, grants)
    desk.pins.pin(run_id, admitted)
    request = ModelRequest(model=spec.model, messages=list(messages), tools=list(admitted), run_id=run_id)
    try:
        return desk.relay.relay(request)
    finally:
        desk.pins.release(run_id)


def start_batch(desk: Desk, spec: AgentSpec, items: Sequence[Sequence[Message]], *, grants: Collection[str]) -> list[ModelResponse]:
    admitted = admit(spec, grants)
    baseline = pin_surface(admitted)
    responses: list[ModelResponse] = []
    for index, messages in enumerate(items):
        request = ModelRequest(
            model=spec.model,
            messages=list(messages),
            tools=list(admitted),
            run_id=f"{spec.name}-batch-{index}",
        )
        responses.append(desk.batch.run_one(request, baseline))
    return responses
