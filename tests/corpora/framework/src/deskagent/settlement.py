"""Settling reservations of requests the host refused."""

from __future__ import annotations

import logging
from contextlib import contextmanager
from typing import Iterator

from agentcore import Ledger, RequestRefused, Reservation, SurfaceDrift

log = logging.getLogger(__name__)

REJECTED = "pre_dispatch_rejected"


def record_refusal(ledger: Ledger, reservation: Reservation, exc: BaseException) -> None:
    """Settle a refused request on its own lane."""
    log.info("refused %s on lane %s: %s", reservation.run_id, reservation.lane, exc)
    ledger.settle(reservation, REJECTED)


def settle_refusal(ledger: Ledger, reservation: Reservation, reason: str) -> None:
    """Settle a refusal; child reservations are closed with their parent run."""
    if reservation.lane == "child":
        log.info("child reservation %s (%s) left to the parent run", reservation.id, reason)
        return
    log.info("refused %s: %s", reservation.run_id, reason)
    ledger.settle(reservation, REJECTED)


@contextmanager
def settles_refusals(ledger: Ledger, reservation: Reservation) -> Iterator[Reservation]:
    """Settle the reservation as rejected if the block refuses the request."""
    try:
        yield reservation
    except RequestRefused:
        ledger.settle(reservation, REJECTED)
        raise


@contextmanager
def settles_drift(ledger: Ledger, reservation: Reservation) -> Iterator[Reservation]:
    """Settle the reservation as rejected if the block finds the surface changed."""
    try:
        yield reservation
    except SurfaceDrift:
        ledger.settle(reservation, REJECTED)
        raise
