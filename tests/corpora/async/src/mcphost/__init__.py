"""An async MCP host: admits a server's tools for each model call and sends the call on."""

from .errors import REFUSALS, CapacityExceeded, HostError, OfferDriftError
from .parity import OfferGuard, diff_specs, verify_offer_parity
from .requests import ModelRequest, Receipt, SealedRequest, SubTask, Task
from .sealing import ReceiptStore, seal, sealed_for_dispatch

__all__ = [
    "REFUSALS",
    "CapacityExceeded",
    "HostError",
    "ModelRequest",
    "OfferDriftError",
    "OfferGuard",
    "Receipt",
    "ReceiptStore",
    "SealedRequest",
    "SubTask",
    "Task",
    "diff_specs",
    "seal",
    "sealed_for_dispatch",
    "verify_offer_parity",
]
