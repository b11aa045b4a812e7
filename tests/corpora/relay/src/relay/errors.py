"""Exception types raised by the relay runtime."""

from __future__ import annotations

from typing import Sequence


class RelayError(Exception):
    """Base class of every error the runtime raises on purpose."""


class SurfaceDrift(RelayError):
    """The tools about to be sent differ from the ones admitted for the agent."""

    def __init__(self, differences: Sequence[str], *, agent: str | None = None) -> None:
        self.differences = list(differences)
        self.agent = agent
        head = "; ".join(self.differences[:3])
        super().__init__(f"tool surface drifted for {agent or '<anonymous>'}: {head}")


class BudgetRefused(RelayError):
    """A turn was refused before it was sent because it would overrun its budget."""

    def __init__(self, needed: int, available: int) -> None:
        self.needed = needed
        self.available = available
        super().__init__(f"turn needs {needed} tokens, {available} left")


class LedgerError(RelayError):
    """The ledger could not record a reservation or a settlement."""


class LedgerExhausted(LedgerError):
    """No headroom is left to reserve from."""


class TransientError(RelayError):
    """A provider call failed in a way that is worth retrying."""


class HandoffError(RelayError):
    """A handoff target could not be resolved."""
