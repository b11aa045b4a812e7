"""Readers for the usage hints providers and tool servers put in messages."""

from __future__ import annotations

from typing import Any, Iterable, Mapping


def remaining_quota(messages: Iterable[Mapping[str, Any]]) -> int | None:
    """The most recent quota_remaining a provider or tool server reported."""
    for msg in reversed(list(messages)):
        meta = msg.get("metadata") or {}
        if "quota_remaining" in meta:
            return int(meta["quota_remaining"])
    return None


def count_attempts(highest: int, message: Mapping[str, Any]) -> int:
    """Reducer over messages: the highest provider_attempt seen so far."""
    return max(highest, int((message.get("metadata") or {}).get("provider_attempt", 0)))


def summarize_usage(messages: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    totals: dict[str, int] = {}
    for msg in messages:
        for key, value in (msg.get("usage") or {}).items():
            totals[key] = totals.get(key, 0) + int(value)
    return totals
