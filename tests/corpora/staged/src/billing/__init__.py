"""Spend reservations and their settlement."""

from .guards import provider_failures_settled, settled
from .ledger import Ledger, LedgerError
from .outcomes import Outcome
from .reservations import Reservation, settle_failure, settle_refusal

__all__ = [
    "Ledger",
    "LedgerError",
    "Outcome",
    "Reservation",
    "provider_failures_settled",
    "settle_failure",
    "settle_refusal",
    "settled",
]
