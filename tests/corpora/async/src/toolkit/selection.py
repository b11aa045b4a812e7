"""Ranking and picking among candidate tools."""

from __future__ import annotations

import heapq
import logging
from typing import Any, Callable, Sequence, TypeVar

from .wire import tool_name

log = logging.getLogger(__name__)

T = TypeVar("T")


def rank(candidates: Sequence[T], score: Callable[[T], float]) -> list[T]:
    """Candidates by descending score; ties keep their order."""
    return sorted(candidates, key=score, reverse=True)


def cheapest(candidates: Sequence[T], count: int, cost: Callable[[T], int]) -> list[T]:
    """The ``count`` candidates that cost least."""
    return heapq.nsmallest(count, candidates, key=cost)


def pick(entries: Sequence[T], limit: int) -> list[T]:
    """The first ``limit`` entries; what is left out is logged."""
    picked: list[T] = []
    for index, entry in enumerate(entries):
        if index < limit:
            picked.append(entry)
        else:
            log.info("left out entry %d of %d", index, len(entries))
    return picked


def preview(specs: Sequence[Any], width: int = 5) -> str:
    """A short human preview of an offer, for log lines."""
    names = [getattr(spec, "name", None) or tool_name(spec) for spec in specs[:width]]
    more = len(specs) - width
    return ", ".join(names) + (f" (+{more} more)" if more > 0 else "")
