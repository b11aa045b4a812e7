"""The request ledger: every request is reserved before it is prepared and settled once."""

from .scopes import Tab, held, reservation_scope
from .service import LedgerRefused, LedgerService, MemoryJournal, Outcome, Reservation, ledger
from .settlement import settle_failure, settle_rejection

__all__ = [
    "LedgerRefused",
    "LedgerService",
    "MemoryJournal",
    "Outcome",
    "Reservation",
    "Tab",
    "held",
    "ledger",
    "reservation_scope",
    "settle_failure",
    "settle_rejection",
]
