"""Tool catalogues, specs and schema utilities shared by the host and its relays."""

from .catalogue import ToolCatalogue, cached_listing
from .models import Offer, OfferModel, ToolSpec
from .registry import ToolRegistry
from .wire import deep_clone, freeze_offer, to_wire, tool_name

__all__ = [
    "Offer",
    "OfferModel",
    "ToolCatalogue",
    "ToolRegistry",
    "ToolSpec",
    "cached_listing",
    "deep_clone",
    "freeze_offer",
    "to_wire",
    "tool_name",
]
