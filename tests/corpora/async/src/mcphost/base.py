"""Plumbing shared by the host's pipelines."""

from __future__ import annotations

import logging
from typing import Any, Mapping, Sequence

from ledgerkit import Outcome, Reservation

from .context_fit import ContextFitter
from .parity import verify_offer_parity
from .requests import SealedRequest
from .session import HostSession

log = logging.getLogger(__name__)


class BasePipeline:
    """Ledger, transport, interceptors and the final check, as every pipeline uses them."""

    lane_kind = "main"

    def __init__(self, session: HostSession, fitter: ContextFitter) -> None:
        self._session = session
        self._ledger = session.ledger
        self._transport = session.transport
        self._chain = session.chain
        self._fitter = fitter

    async def _final_check(self, sealed: SealedRequest, expected: Sequence[Mapping[str, Any]]) -> None:
        """Compare the sealed tools with the offer expected for this call; raises on any difference."""
        await verify_offer_parity(sealed.request.tools, expected, lane=sealed.request.lane)

    def _settle_if_open(self, reservation: Reservation, outcome: Outcome) -> None:
        """Settle ``reservation`` unless a step before already did."""
        if reservation.settled is not None:
            log.info("%s already settled as %s", reservation.id, reservation.settled.value)
            return
        self._ledger.settle(reservation, outcome)
