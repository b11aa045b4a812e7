"""Child lanes: narrower requests a parent request spawns for sub-tasks."""

from __future__ import annotations

import copy
import logging
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any, Sequence

from billing import Ledger, Outcome
from support.copying import clone_tools
from support.errors import ProviderError, RequestRefused, SurfaceDrift
from support.parity import verify_surface_parity
from support.tokens import estimate_all

from .context import RequestContext
from .request import ModelRequest
from .settings import Settings
from .steps import STEPS

logger = logging.getLogger(__name__)

CHILD_TOOL_LIMIT = 16

@dataclass
class ChildRequest(ModelRequest):
    parent_id: str = ""

    def detach(self) -> "ChildRequest":
        """A standalone copy for the worker thread that runs the child lane."""
        twin = copy.copy(self)
        twin.metadata = dict(self.metadata)
        return twin


class ChildLane:
    """Admits, seals and sends child requests on their own ledger."""

    def __init__(self, settings: Settings, ledger: Ledger, *, settle_child_refusals: bool = False) -> None:
        self.settings = settings
        self.ledger = ledger
        self.settle_child_refusals = settle_child_refusals

    def admit(self, parent: RequestContext, names: Sequence[str]) -> RequestContext:
        """A child context holding the parent's tools named in *names*."""
        wanted = set(names)
        tools = [copy.deepcopy(tool) for tool in parent.request.tools if tool["name"] in wanted][:CHILD_TOOL_LIMIT]
        request = ChildRequest(
            request_id=f"{parent.request.request_id}/child-{len(parent.hooks_ran)}",
            run_id=parent.request.run_id,
            lane="child",
            turn=0,
            scope=parent.request.scope,
            tools=tools,
            messages=list(parent.request.messages),
            parent_id=parent.request.request_id,
        )
        ctx = RequestContext(request=request, settings=self.settings, binding=parent.binding, parent=parent)
        ctx.baseline = clone_tools(tools)
        return ctx

    def run(self, ctx: RequestContext) -> Any:
        reservation = self.ledger.reserve(ctx.request.request_id, amount=estimate_all(ctx.request.tools))
        ctx.reservation = reservation
        with ExitStack() as stack:
            stack.callback(self.ledger.settle_reservation, reservation, Outcome.REJECTED)
            if not ctx.request.tools:
                raise RequestRefused(f"child {ctx.request.request_id} has no tools", request_id=ctx.request.request_id)
            sealed = STEPS["seal"](ctx.request)
            if ctx.hooks_ran:
                verify_surface_parity(list(sealed.tools), ctx.baseline)
            stack.pop_all()
        try:
            response = STEPS["send"](sealed)
        except ProviderError:
            self.ledger.settle_reservation(reservation, Outcome.FAILED)
            raise
        self.ledger.settle_reservation(reservation, Outcome.DISPATCHED)
        return response

    def rerun(self, ctx: RequestContext, messages: Sequence[dict[str, Any]]) -> Any:
        """The next model call of a child request, once its tool calls returned."""
        ctx.request = ctx.request.next_turn(messages)
        reservation = self.ledger.reserve(f"{ctx.request.request_id}#{ctx.request.turn}", amount=estimate_all(ctx.request.tools))
        sealed = STEPS["seal"](ctx.request)
        try:
            verify_surface_parity(list(sealed.tools), ctx.baseline)
        except SurfaceDrift:
            if self.settle_child_refusals:
                self.ledger.settle_reservation(reservation, Outcome.REJECTED)
            raise
        try:
            response = STEPS["send"](sealed)
        except ProviderError:
            self.ledger.settle_reservation(reservation, Outcome.FAILED)
            raise
        self.ledger.settle_reservation(reservation, Outcome.DISPATCHED)
        return response
