"""Per-request state carried through the stages."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Optional

from billing import Ledger, Reservation
from providers import ProviderClient

from .facts import Binding, FactFeed
from .request import ModelRequest, SealedRequest
from .settings import Settings

if TYPE_CHECKING:
    from .hooks import HookBus


@dataclass
class Services:
    """The long-lived collaborators stages share."""

    ledger: Ledger
    client: ProviderClient
    facts: FactFeed
    bus: Optional["HookBus"] = None


@dataclass
class RequestContext:
    request: ModelRequest
    settings: Settings
    binding: Binding | None = None
    baseline: list[dict[str, Any]] | None = None
    reservation: Reservation | None = None
    sealed: SealedRequest | None = None
    response: Any = None
    hooks_ran: list[str] = field(default_factory=list)
    tool_results: list[dict[str, Any]] = field(default_factory=list)
    parent: Optional["RequestContext"] = None
