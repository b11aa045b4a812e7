"""The main request pipeline: admit, narrow, intercept, fit, seal, check, send, settle."""

from __future__ import annotations

import logging
import time
import uuid
from contextlib import ExitStack
from typing import Any

from ledgerkit import Outcome
from relay import TransportError, send_with_retry as resend_sealed
from toolkit import freeze_offer

from .admission import Admission, admit
from .availability import allowed
from .base import BasePipeline
from .config import LaneSettings
from .context_fit import ContextFitter
from .errors import OfferDriftError
from .requests import ModelRequest, Receipt, Task
from .sealing import seal
from .session import HostSession
from .warmup import CacheWarmer

log = logging.getLogger(__name__)


class RequestPipeline(BasePipeline):
    """One model call on the main lane, from the grant to the provider's answer."""

    def __init__(self, session: HostSession, fitter: ContextFitter, warmer: CacheWarmer) -> None:
        super().__init__(session, fitter)
        self._warmer = warmer

    def _build_request(self, task: Task, admission: Admission, lane: LaneSettings) -> ModelRequest:
        return ModelRequest(
            run_id=self._session.run_id,
            lane=lane.name,
            invocation=task.invocation,
            scope=self._session.scope,
            fmt=lane.fmt,
            messages=task.messages(),
            tools=freeze_offer(admission.offer.entries),
            metadata={"connection": self._session.connection},
        )

    async def _narrow(self, request: ModelRequest, admission: Admission) -> list[dict[str, Any]]:
        """Hide what the run's facts and reports hide; returns the offer expected from here on."""
        facts = await self._session.facts.current(request.run_id)
        request.tools = allowed(request.tools, facts, request)
        return allowed(admission.baseline, facts, request)

    async def run(self, task: Task) -> dict[str, Any]:
        lane = self._session.settings.lanes[0]
        run_id = self._session.run_id
        reservation = self._ledger.reserve(run_id, lane.name)
        with ExitStack() as stack:
            stack.callback(self._ledger.settle, reservation, Outcome.REJECTED)
            admission = await admit(
                self._session.catalogue,
                self._session.settings,
                run_id=run_id,
                invocation=task.invocation,
                lane=lane,
                store=self._session.baselines,
            )
            if self._session.catalogue.changed_since(admission.admitted_at):
                raise OfferDriftError(lane.name, ["the server changed its tool list during admission"])
            self._session.adopt_offer(admission.offer.entries)
            self._warmer.remember(admission.offer.entries)
            request = self._build_request(task, admission, lane)
            await self._narrow(request, admission)
            if self._chain.registered("before_seal"):
                await self._chain.run("before_seal", request)
            request = await self._fitter.fit(request)
            await self._chain.run("before_send", request)
            expected = await self._narrow(request, admission)
            sealed = seal(request)
            await self._session.guard.enforce(sealed, expected)
            stack.pop_all()
        try:
            response = await self._session.lanes.send(sealed)
        except TransportError:
            self._ledger.settle(reservation, Outcome.FAILED)
            raise
        self._ledger.settle(reservation, Outcome.DISPATCHED)
        await self._session.receipts.save(
            Receipt(
                id=uuid.uuid4().hex,
                sealed=sealed,
                digest=sealed.digest,
                baseline=expected,
                expires_at=time.time() + self._session.settings.repeat_window,
            )
        )
        return response

    async def run_repeat(self, receipt: Receipt) -> dict[str, Any]:
        """Send again a request a client retried: same turn, same seal, same lane."""
        sealed = receipt.sealed
        reservation = self._ledger.reserve(sealed.request.run_id, sealed.request.lane)
        with ExitStack() as stack:
            if time.time() > receipt.expires_at:
                raise OfferDriftError(sealed.request.lane, [f"receipt {receipt.id} expired; admit the request again"])
            stack.callback(self._ledger.settle, reservation, Outcome.FAILED)
            response = await resend_sealed(self._transport, sealed, attempts=2)
            stack.pop_all()
        self._ledger.settle(reservation, Outcome.DISPATCHED)
        log.info("repeated %s on %s", receipt.id, sealed.request.lane)
        return response
