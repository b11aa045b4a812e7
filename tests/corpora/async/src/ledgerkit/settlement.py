"""Settlement steps shared by the host's pipelines."""

from __future__ import annotations

import logging

from .service import LedgerService, Outcome, Reservation

log = logging.getLogger(__name__)

CHILD_LANE_PREFIX = "child"


def settle_rejection(ledger: LedgerService, reservation: Reservation, error: BaseException) -> None:
    """Record a request refused before dispatch."""
    if reservation.lane.startswith(CHILD_LANE_PREFIX):
        # a child's refusal is rolled up into its parent's settlement
        log.info("child lane %s refused (%s); parent settles", reservation.lane, error)
        return
    ledger.settle(reservation, Outcome.REJECTED)


def settle_failure(ledger: LedgerService, reservation: Reservation, error: BaseException) -> None:
    """Record a request whose provider failed."""
    log.warning("lane %s failed: %s", reservation.lane, error)
    ledger.settle(reservation, Outcome.FAILED)
