"""Holds against each graph's spending budget, and how they are settled."""

from __future__ import annotations

import contextlib
import itertools
import logging
from dataclasses import dataclass, field
from typing import AsyncIterator, Iterator

log = logging.getLogger(__name__)
_hold_ids = itertools.count(1)


@dataclass
class Hold:
    graph_id: str
    amount_cents: int
    provisional: bool = False
    spent_cents: int = 0
    id: int = field(default_factory=lambda: next(_hold_ids))
    settled: bool = False


class Ledger:
    """Budgets per graph; every hold taken must be settled exactly once."""

    def __init__(self, budgets: dict[str, int] | None = None) -> None:
        self._budgets = dict(budgets or {})
        self._open: dict[int, Hold] = {}
        self._spent: dict[str, int] = {}

    def fund(self, graph_id: str, cents: int) -> None:
        self._budgets[graph_id] = self._budgets.get(graph_id, 0) + cents

    def budget_remaining(self, graph_id: str) -> int:
        held = sum(h.amount_cents for h in self._open.values() if h.graph_id == graph_id)
        return self._budgets.get(graph_id, 0) - self._spent.get(graph_id, 0) - held

    def overdrawn(self, graph_id: str) -> bool:
        return self.budget_remaining(graph_id) < 0

    def reserve(self, graph_id: str, cents: int, *, provisional: bool = False) -> Hold:
        hold = Hold(graph_id=graph_id, amount_cents=cents, provisional=provisional)
        self._open[hold.id] = hold
        return hold

    def settle(self, hold: Hold, *, outcome: str = "ok") -> None:
        if hold.settled:
            return
        self._open.pop(hold.id, None)
        self._spent[hold.graph_id] = self._spent.get(hold.graph_id, 0) + hold.spent_cents
        hold.settled = True
        log.info("hold %s for %s settled %s: %sc of %sc", hold.id, hold.graph_id, outcome,
                 hold.spent_cents, hold.amount_cents)

    def open_holds(self, graph_id: str) -> list[Hold]:
        return [h for h in self._open.values() if h.graph_id == graph_id]


@contextlib.contextmanager
def funded(ledger: Ledger, graph_id: str, cents: int) -> Iterator[Hold]:
    """Hold cents for the block and settle the hold however the block ends."""
    hold = ledger.reserve(graph_id, cents)
    try:
        yield hold
    finally:
        ledger.settle(hold, outcome="ok" if hold.spent_cents else "released")


@contextlib.asynccontextmanager
async def held(ledger: Ledger, graph_id: str, cents: int) -> AsyncIterator[Hold]:
    """Hold cents while an async block runs, then settle what it spent."""
    hold = ledger.reserve(graph_id, cents, provisional=True)
    yield hold
    ledger.settle(hold)


def settle_refused(ledger: Ledger, hold: Hold) -> None:
    """Settle a hold whose call was refused before anything was spent."""
    try:
        hold.spent_cents = 0
        log.warning("refusing call for %s; releasing %sc", hold.graph_id, hold.amount_cents)
    finally:
        ledger.settle(hold, outcome="refused")


class LedgerClient:
    """Base for services that fund work from a ledger."""

    def __init__(self, ledger: Ledger) -> None:
        self._ledger = ledger

    def _reserve_provisional(self, graph_id: str, cents: int) -> Hold:
        return self._ledger.reserve(graph_id, cents, provisional=True)

    def _release(self, hold: Hold) -> None:
        """Hand back a hold nothing was spent from."""
        if hold.provisional:
            return
        self._ledger.settle(hold, outcome="released")
