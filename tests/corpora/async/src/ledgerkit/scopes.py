"""Async context managers that hold a reservation for the length of a block."""

from __future__ import annotations

import logging
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import AsyncIterator

from .service import LedgerService, Outcome, Reservation

log = logging.getLogger(__name__)


@dataclass
class Tab:
    """What a block tells its scope about the request it holds."""

    reservation: Reservation
    sent: bool = False

    def mark_sent(self) -> None:
        """Call just before the request is handed to a transport."""
        self.sent = True


@asynccontextmanager
async def reservation_scope(
    ledger: LedgerService,
    run_id: str,
    lane: str,
    *,
    refusals: tuple[type[BaseException], ...] = (),
) -> AsyncIterator[Tab]:
    """Reserve for one request and settle it however the block ends.

    A refusal settles as rejected; any other exception as failed once the request was handed
    to a transport, as rejected before; a block that completes as dispatched if it sent.
    """
    reservation = ledger.reserve(run_id, lane)
    tab = Tab(reservation)
    outcome = Outcome.REJECTED
    try:
        yield tab
        outcome = Outcome.DISPATCHED if tab.sent else Outcome.REJECTED
    except refusals:
        outcome = Outcome.REJECTED
        raise
    except BaseException:
        outcome = Outcome.FAILED if tab.sent else Outcome.REJECTED
        raise
    finally:
        ledger.settle(reservation, outcome)


@asynccontextmanager
async def held(ledger: LedgerService, run_id: str, lane: str) -> AsyncIterator[Reservation]:
    """Hold a reservation for a block that settles its own refusals and failures.

    When the block completes and the reservation is still open, it is settled as dispatched.
    """
    reservation = ledger.reserve(run_id, lane)
    yield reservation
    if reservation.settled is None:
        ledger.settle(reservation, Outcome.DISPATCHED)
