"""How a reserved request ended."""

from __future__ import annotations

import enum


class Outcome(str, enum.Enum):
    """Exactly one outcome is recorded against each reservation."""

    DISPATCHED = "dispatched"
    REJECTED = "pre_dispatch_rejected"
    FAILED = "failed"
