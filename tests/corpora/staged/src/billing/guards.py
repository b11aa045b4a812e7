"""Context managers that tie a reservation's settlement to a block of code."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

from support.errors import CapacityExceeded, ProviderError, Refusal

from .ledger import Ledger
from .outcomes import Outcome
from .reservations import Reservation

logger = logging.getLogger(__name__)


@contextmanager
def settled(ledger: Ledger, reservation: Reservation) -> Iterator[Reservation]:
    """Settle *reservation* exactly once however the block ends.

    A refusal or capacity result settles as rejected, any other exception as
    failed, and a block that completes as dispatched.
    """
    outcome = Outcome.FAILED
    try:
        yield reservation
        outcome = Outcome.DISPATCHED
    except (Refusal, CapacityExceeded):
        outcome = Outcome.REJECTED
        raise
    finally:
        ledger.settle_reservation(reservation, outcome)


@contextmanager
def provider_failures_settled(ledger: Ledger, reservation: Reservation) -> Iterator[Reservation]:
    """Settle *reservation* as failed when the provider call in the block fails.

    The caller settles the dispatched outcome after the block.
    """
    try:
        yield reservation
    except ProviderError as exc:
        logger.warning("provider failed %s: %s", reservation.request_id, exc)
        ledger.settle_reservation(reservation, Outcome.FAILED)
        raise
