"""Recovery: resuming a request interrupted after it was sealed."""

from __future__ import annotations

import logging
from typing import Any

from ledgerkit import Outcome, reservation_scope
from relay import TransportError
from toolkit.wire import deep_clone as detached

from .errors import REFUSALS
from .parity import verify_offer_parity as final_check
from .sealing import ReceiptStore, pinned_offer
from .session import HostSession
from .stages import prepare_context, run_stages

log = logging.getLogger(__name__)


class Recovery:
    """Restores a sealed receipt and finishes its request."""

    def __init__(self, session: HostSession, receipts: ReceiptStore) -> None:
        self._session = session
        self._receipts = receipts

    async def resume(self, receipt_id: str) -> dict[str, Any]:
        receipt = await self._receipts.load(receipt_id)
        sealed = receipt.sealed
        expected = detached(receipt.baseline) if receipt.baseline is not None else None
        if expected is None:
            # receipts written before baselines were stored: the seal is all there is
            expected = pinned_offer(sealed)
        reservation = self._session.ledger.reserve(sealed.request.run_id, sealed.request.lane)
        try:
            if self._session.chain.registered("before_send"):
                await self._session.chain.run("before_send", sealed.request)
            await final_check(sealed.request.tools, expected, lane=sealed.request.lane)
        except REFUSALS:
            self._session.ledger.settle(reservation, Outcome.REJECTED)
            raise
        try:
            response = await self._session.lanes.send(sealed)
        except TransportError:
            self._session.ledger.settle(reservation, Outcome.FAILED)
            raise
        self._session.ledger.settle(reservation, Outcome.DISPATCHED)
        log.info("resumed %s on %s", receipt_id, sealed.request.lane)
        return response

    async def replay(self, receipt_id: str) -> dict[str, Any] | None:
        """Replay a recorded request; its seal was checked when it was recorded."""
        receipt = await self._receipts.load(receipt_id)
        request = receipt.sealed.request
        ctx = prepare_context(
            self._session,
            request.messages,
            receipt.baseline or [],
            lane=request.lane,
            invocation=request.invocation,
            fmt=request.fmt,
            lane_limit=self._session.lanes.primary.max_tools,
        )
        async with reservation_scope(self._session.ledger, request.run_id, request.lane, refusals=REFUSALS) as tab:
            tab.mark_sent()
            await run_stages(ctx, order=("seal", "send"))
        return ctx.response
