"""Reservation records and the settlement steps stages share."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .outcomes import Outcome

if TYPE_CHECKING:
    from .ledger import Ledger

logger = logging.getLogger(__name__)


@dataclass
class Reservation:
    """Spend held for one request on one lane until it is settled."""

    reservation_id: str
    request_id: str
    lane: str
    amount: int
    outcome: Outcome | None = None

    @property
    def settled(self) -> bool:
        return self.outcome is not None


def settle_refusal(ledger: "Ledger", reservation: Reservation, reason: str = "") -> None:
    """Record a pre-dispatch rejection for *reservation*."""
    logger.info("settling %s as rejected: %s", reservation.reservation_id, reason or "refused")
    ledger.settle_reservation(reservation, Outcome.REJECTED)


def settle_failure(ledger: "Ledger", reservation: Reservation, exc: BaseException) -> None:
    """Record a provider failure for *reservation*."""
    logger.warning("settling %s as failed: %s", reservation.reservation_id, exc)
    ledger.settle_reservation(reservation, Outcome.FAILED)
