"""Delegation: sub-tasks fanned out as concurrent child requests."""

from __future__ import annotations

import asyncio
import copy
import logging
from dataclasses import dataclass
from typing import Any, Sequence

from ledgerkit import Outcome, Reservation, settle_failure, settle_rejection
from relay import TransportError
from relay.adapters import prepare_for_openai
from toolkit import Offer, freeze_offer
from toolkit.selection import cheapest
from toolkit.tokens import estimate_tokens, total_tokens
from toolkit.wire import snapshot_request

from .errors import CapacityExceeded, OfferDriftError
from .parity import verify_offer_parity
from .requests import ModelRequest, SubTask
from .sealing import seal
from .session import HostSession

log = logging.getLogger(__name__)


@dataclass
class DelegatedOffer(Offer):
    """An offer handed down to a child request."""

    parent_invocation: str = ""
    child_invocation: str = ""

    def rebind(self, invocation: str) -> "DelegatedOffer":
        """The same offer, handed to another child invocation."""
        clone = copy.copy(self)
        clone.child_invocation = invocation
        return clone


class Delegator:
    """Runs sub-tasks as child requests, each on its own lane, concurrently."""

    def __init__(self, session: HostSession) -> None:
        self._session = session
        self._lane = session.settings.lanes[-1]

    async def offer_for(self, parent: ModelRequest) -> DelegatedOffer:
        """The parent's specs as child lanes on OpenAI need them."""
        specs = await self._session.catalogue.granted(self._session.settings.granted)
        if self._lane.fmt == "openai":
            prepare_for_openai(specs)
        return DelegatedOffer(run_id=parent.run_id, lane=self._lane.name, specs=specs, parent_invocation=parent.invocation)

    async def run_all(self, parent: ModelRequest, tasks: Sequence[SubTask]) -> list[dict[str, Any]]:
        offer = await self.offer_for(parent)
        children = [offer.rebind(task.invocation) for task in tasks]
        log.info("delegating %d sub-tasks of %s (%d specs)", len(tasks), parent.invocation, len(offer.specs))
        return await asyncio.gather(
            *(self._run_one(parent, task, index, child) for index, (task, child) in enumerate(zip(tasks, children)))
        )

    def _child_request(self, parent: ModelRequest, task: SubTask, lane: str, child: DelegatedOffer) -> ModelRequest:
        limit = self._session.settings.max_child_tools
        return ModelRequest(
            run_id=parent.run_id,
            lane=lane,
            invocation=task.invocation,
            scope=parent.scope,
            fmt=parent.fmt,
            messages=[{"role": "user", "content": task.prompt}],
            tools=freeze_offer(cheapest(parent.tools, limit, cost=estimate_tokens)),
            metadata={
                "connection": parent.metadata.get("connection"),
                "parent": child.parent_invocation,
                "child": child.child_invocation,
                "delegated": child.names,
            },
        )

    async def _run_one(self, parent: ModelRequest, task: SubTask, index: int, child: DelegatedOffer) -> dict[str, Any]:
        lane = f"child-{index}"
        reservation = self._session.ledger.reserve(parent.run_id, lane)
        request = self._child_request(parent, task, lane, child)
        needed = total_tokens(request.tools) + total_tokens(request.messages)
        if needed > self._lane.budget_tokens:
            raise CapacityExceeded(lane, f"{needed} tokens for a budget of {self._lane.budget_tokens}")
        return await self._send_child(request, reservation)

    async def _send_child(self, request: ModelRequest, reservation: Reservation) -> dict[str, Any]:
        baseline = snapshot_request(request)
        await self._session.chain.run("before_send", request)
        sealed = seal(request)
        try:
            if self._session.intercepting:
                await verify_offer_parity(sealed.request.tools, baseline, lane=request.lane)
        except OfferDriftError as exc:
            settle_rejection(self._session.ledger, reservation, exc)
            raise
        try:
            response = await self._session.transport.send(sealed)
        except TransportError as exc:
            settle_failure(self._session.ledger, reservation, exc)
            raise
        self._session.ledger.settle(reservation, Outcome.DISPATCHED)
        return response
