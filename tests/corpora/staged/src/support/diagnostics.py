"""Readers for the diagnostics that tools and upstream services attach to their results."""

from __future__ import annotations

from collections import Counter
from typing import Any, Iterable, Mapping


def _diagnostics(result: Mapping[str, Any]) -> Mapping[str, Any]:
    meta = result.get("metadata") or {}
    return result.get("diagnostics") or meta.get("diagnostics") or {}


def quota_spent(result: Mapping[str, Any]) -> bool:
    """True when a tool result reports that its upstream quota is used up."""
    diag = _diagnostics(result)
    return bool(diag.get("quota_exhausted")) or int(diag.get("quota_remaining", 1)) <= 0


def deadline_hit(result: Mapping[str, Any]) -> bool:
    """True when a tool result reports that its upstream deadline passed."""
    return bool(_diagnostics(result).get("deadline_exceeded"))


def summarize(results: Iterable[Mapping[str, Any]]) -> dict[str, int]:
    """Counts of the diagnostic flags seen, for logs."""
    counts: Counter[str] = Counter()
    for result in results:
        for key, value in _diagnostics(result).items():
            if value:
                counts[key] += 1
    return dict(counts)
