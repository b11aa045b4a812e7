"""Funding of model calls: one hold per call, sized from the settings."""

from __future__ import annotations

import contextlib
from typing import Sequence

from .errors import BudgetRefused
from .ledger import Hold, Ledger, LedgerClient
from .models import Usage
from .settings import Settings

_CENTS_PER_KTOK_IN = 0.3
_CENTS_PER_KTOK_OUT = 1.2


def cost_cents(usage: Usage) -> int:
    raw = usage.input_tokens / 1000 * _CENTS_PER_KTOK_IN + usage.output_tokens / 1000 * _CENTS_PER_KTOK_OUT
    return max(1, round(raw))


class CallFunding(LedgerClient):
    """Opens and closes the hold behind each model call."""

    def __init__(self, ledger: Ledger, settings: Settings) -> None:
        super().__init__(ledger)
        self._settings = settings

    def open(self, graph_id: str) -> Hold:
        hold = self._reserve_provisional(graph_id, self._settings.hold_cents)
        if self._ledger.overdrawn(graph_id):
            self._release(hold)
            raise BudgetRefused(graph_id, hold.amount_cents)
        return hold

    def close(self, hold: Hold, usage: Usage | None) -> None:
        hold.spent_cents = cost_cents(usage) if usage is not None else 0
        self._ledger.settle(hold)

    def fund_batch(self, graph_id: str, estimates: Sequence[int]) -> list[Hold]:
        """Holds for a batch of calls, all or none."""
        with contextlib.ExitStack() as stack:
            holds: list[Hold] = []
            for cents in estimates:
                hold = self._ledger.reserve(graph_id, cents)
                stack.callback(self._ledger.settle, hold, outcome="refused")
                holds.append(hold)
                if self._ledger.overdrawn(graph_id):
                    raise BudgetRefused(graph_id, cents)
            stack.pop_all()
            return holds
