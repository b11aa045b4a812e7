"""Per-lane spend ledger: a reservation is opened before a request and settled once."""

from __future__ import annotations

import logging
import threading
import uuid

from .outcomes import Outcome
from .reservations import Reservation

logger = logging.getLogger(__name__)


class LedgerError(RuntimeError):
    """A reservation settled twice, or one the ledger never opened."""


class Ledger:
    """Open reservations and settled outcomes for one lane."""

    def __init__(self, lane: str) -> None:
        self.lane = lane
        self._open: dict[str, Reservation] = {}
        self._settled: dict[str, Outcome] = {}
        self._lock = threading.Lock()

    def reserve(self, request_id: str, amount: int) -> Reservation:
        """Hold *amount* for *request_id* until the request is settled."""
        with self._lock:
            if request_id in self._open or request_id in self._settled:
                raise LedgerError(f"request {request_id} already holds a reservation on {self.lane}")
            reservation = Reservation(
                reservation_id=uuid.uuid4().hex,
                request_id=request_id,
                lane=self.lane,
                amount=amount,
            )
            self._open[request_id] = reservation
        logger.info("reserved %d for %s on %s", amount, request_id, self.lane)
        return reservation

    def settle_reservation(self, reservation: Reservation, outcome: Outcome) -> None:
        """Close *reservation* with *outcome*; a second settlement is an error."""
        with self._lock:
            held = self._open.pop(reservation.request_id, None)
            if held is None or held.reservation_id != reservation.reservation_id:
                raise LedgerError(f"no open reservation {reservation.reservation_id} on {self.lane}")
            self._settled[reservation.request_id] = outcome
        reservation.outcome = outcome
        logger.info("settled %s on %s as %s", reservation.request_id, self.lane, outcome.value)

    def is_open(self, reservation: Reservation) -> bool:
        with self._lock:
            return reservation.request_id in self._open

    def open_reservations(self) -> list[Reservation]:
        with self._lock:
            return list(self._open.values())

    def outcome_of(self, request_id: str) -> Outcome | None:
        with self._lock:
            return self._settled.get(request_id)
