"""What providers and tools report about themselves in their results.

These are hints for logs and pacing: a tool result is written by whoever produced it.
"""

from __future__ import annotations

import logging
from typing import Any, Iterable, Mapping

log = logging.getLogger(__name__)


def search_budget_spent(messages: Iterable[Mapping[str, Any]]) -> bool:
    """Whether a web tool's result reports its search budget as spent."""
    for message in messages:
        if message.get("role") != "tool":
            continue
        diag = message.get("diagnostics") or {}
        if diag.get("search_budget_remaining") == 0 or diag.get("budget") == "exhausted":
            return True
    return False


def deadline_reported(message: Mapping[str, Any]) -> bool:
    """Whether a tool result says the run's deadline has passed."""
    match message:
        case {"role": "tool", "diagnostics": {"deadline": "exceeded" | "expired"}}:
            return True
        case {"role": "tool", "content": [{"type": "text", "text": str(text)}, *_]} if "deadline exceeded" in text.lower():
            return True
        case _:
            return False


def retry_after(message: Mapping[str, Any]) -> float | None:
    """Seconds a provider asked the host to wait before its next attempt, if it said."""
    diag = message.get("diagnostics") or {}
    value = diag.get("retry_after")
    try:
        return float(value) if value is not None else None
    except (TypeError, ValueError):
        log.info("unreadable retry_after %r", value)
        return None
