"""Token budget: reservations taken before a turn and settled after it."""

from __future__ import annotations

import itertools
import logging
import threading
from contextlib import asynccontextmanager, contextmanager
from dataclasses import dataclass
from typing import AsyncIterator, Iterator

from relay.errors import BudgetRefused, LedgerError, LedgerExhausted

log = logging.getLogger(__name__)
_ids = itertools.count(1)


@dataclass(slots=True)
class Reservation:
    id: int
    turn: int
    amount: int
    committed: bool = False
    released: bool = False

    @property
    def open(self) -> bool:
        return not (self.committed or self.released)


class Ledger:
    """Per-run token ledger. reserve() before a send; commit() or release() after."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self._spent = 0
        self._held: dict[int, Reservation] = {}
        self._lock = threading.Lock()

    def remaining(self, turn: int | None = None) -> int:
        with self._lock:
            return self.limit - self._spent - sum(r.amount for r in self._held.values())

    def reserve(self, turn: int, amount: int) -> Reservation:
        with self._lock:
            free = self.limit - self._spent - sum(r.amount for r in self._held.values())
            if amount > free:
                raise LedgerExhausted(f"turn {turn}: {amount} > {free}")
            res = Reservation(next(_ids), turn, amount)
            self._held[res.id] = res
            return res

    def commit(self, res: Reservation, actual: int) -> None:
        with self._lock:
            if not res.open:
                return
            self._held.pop(res.id, None)
            self._spent += actual
            res.committed = True

    def release(self, res: Reservation) -> None:
        with self._lock:
            if not res.open:
                return
            if self._held.pop(res.id, None) is None:
                raise LedgerError(f"unknown reservation {res.id}")
            res.released = True

    @asynccontextmanager
    async def hold(self, turn: int, amount: int) -> AsyncIterator[Reservation]:
        """Reserve for the block; whatever the block did not commit is released."""
        res = self.reserve(turn, amount)
        try:
            yield res
        finally:
            self.release(res)


@contextmanager
def held(ledger: Ledger, turn: int, amount: int) -> Iterator[Reservation]:
    """Reserve for a synchronous block and charge the full amount when it ends."""
    res = ledger.reserve(turn, amount)
    yield res
    ledger.commit(res, amount)


def release_on_error(ledger: Ledger, res: Reservation, exc: BaseException) -> None:
    """Give a reservation back when the budget side refused the turn."""
    if isinstance(exc, BudgetRefused):
        ledger.release(res)
    else:
        log.debug("keeping reservation %s after %s", res.id, type(exc).__name__)
