"""The ledger service: one reservation per request, settled exactly once."""

from __future__ import annotations

import enum
import itertools
import logging
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

log = logging.getLogger(__name__)


class Outcome(str, enum.Enum):
    DISPATCHED = "dispatched"
    REJECTED = "pre_dispatch_rejected"
    FAILED = "failed"


@dataclass
class Reservation:
    id: str
    run_id: str
    lane: str
    opened_at: float = field(default_factory=time.time)
    settled: Outcome | None = None


class LedgerRefused(RuntimeError):
    """A settlement the ledger cannot take: twice for one reservation, or for none."""


class Journal(Protocol):
    def append(self, record: dict[str, Any]) -> None: ...


class MemoryJournal:
    """An in-process journal, for tests and single-process hosts."""

    def __init__(self) -> None:
        self.records: list[dict[str, Any]] = []

    def append(self, record: dict[str, Any]) -> None:
        self.records.append(dict(record))

    def tail(self, limit: int = 20) -> list[dict[str, Any]]:
        return self.records[-limit:]


class LedgerService:
    """Reservations and their settlements, per run and lane."""

    def __init__(self, journal: Journal) -> None:
        self._journal = journal
        self._open: dict[str, Reservation] = {}
        self._ids = itertools.count(1)
        self._lock = threading.Lock()

    def reserve(self, run_id: str, lane: str) -> Reservation:
        with self._lock:
            reservation = Reservation(id=f"rsv_{next(self._ids):06d}", run_id=run_id, lane=lane)
            self._open[reservation.id] = reservation
        self._journal.append({"event": "reserved", "id": reservation.id, "run": run_id, "lane": lane})
        return reservation

    def settle(self, reservation: Reservation, outcome: Outcome) -> None:
        with self._lock:
            held = self._open.pop(reservation.id, None)
            if held is None:
                raise LedgerRefused(f"reservation {reservation.id} is not open: settled twice, or never reserved")
            reservation.settled = outcome
        self._journal.append(
            {"event": "settled", "id": reservation.id, "lane": reservation.lane, "outcome": outcome.value}
        )
        log.info("settled %s on %s as %s", reservation.id, reservation.lane, outcome.value)

    def open_reservations(self) -> list[Reservation]:
        with self._lock:
            return list(self._open.values())


ledger = LedgerService(MemoryJournal())
