"""Reservations made before a model call and settled once it ended."""

from __future__ import annotations

import itertools
import logging
import threading
from dataclasses import dataclass

log = logging.getLogger(__name__)

OUTCOMES = frozenset({"dispatched", "pre_dispatch_rejected", "failed"})


class SettlementError(RuntimeError):
    """A reservation settled twice, or one this ledger never made."""


@dataclass
class Reservation:
    id: str
    lane: str
    run_id: str
    outcome: str | None = None

    @property
    def open(self) -> bool:
        return self.outcome is None


class Ledger:
    """Per-lane ledger of model-call reservations."""

    def __init__(self, name: str = "default") -> None:
        self.name = name
        self._ids = itertools.count(1)
        self._entries: dict[str, Reservation] = {}
        self._lock = threading.Lock()

    def reserve(self, lane: str, run_id: str) -> Reservation:
        with self._lock:
            entry = Reservation(id=f"{self.name}-{next(self._ids)}", lane=lane, run_id=run_id)
            self._entries[entry.id] = entry
        log.info("reserved %s on lane %s for %s", entry.id, lane, run_id)
        return entry

    def settle(self, reservation: Reservation, outcome: str) -> None:
        if outcome not in OUTCOMES:
            raise ValueError(f"unknown outcome {outcome!r}")
        with self._lock:
            if self._entries.get(reservation.id) is not reservation:
                raise SettlementError(f"{reservation.id} was not reserved on ledger {self.name}")
            if not reservation.open:
                raise SettlementError(f"{reservation.id} already settled as {reservation.outcome}")
            reservation.outcome = outcome
        log.info("settled %s as %s", reservation.id, outcome)

    def open_entries(self) -> list[Reservation]:
        with self._lock:
            return [entry for entry in self._entries.values() if entry.open]
