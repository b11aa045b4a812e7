"""Ordering and budgeting helpers for tool selection."""

from __future__ import annotations

import itertools
import logging
from typing import Callable, Mapping, Sequence, TypeVar

log = logging.getLogger(__name__)

T = TypeVar("T")


def shortlist(catalogue: Sequence[T], scores: Mapping[str, float], limit: int) -> list[T]:
    """The best-scoring entries, best first."""
    ordered = sorted(catalogue, key=lambda item: scores.get(getattr(item, "name", ""), 0.0), reverse=True)
    picks: list[T] = []
    for position, item in enumerate(ordered):
        if position >= limit:
            log.info("shortlist full at %d of %d", limit, len(ordered))
            break
        picks.append(item)
    return picks


def rotate(entries: Sequence[T], start: int) -> list[T]:
    """Rotate so that ``entries[start]`` comes first; every entry is kept."""
    head: list[T] = []
    tail: list[T] = []
    for index, entry in enumerate(entries):
        if index < start:
            tail.append(entry)
        else:
            head.append(entry)
    return head + tail


def fill_budget(defs: Sequence[T], budget: int, estimate: Callable[[T], int]) -> list[T]:
    """The leading entries whose running cost stays within ``budget``."""
    running = itertools.accumulate(estimate(d) for d in defs)
    fitting = itertools.takewhile(lambda pair: pair[1] <= budget, zip(defs, running))
    return [d for d, _ in fitting]


def pack(candidates: Sequence[T], budget: int, estimate: Callable[[T], int]) -> list[T]:
    """Greedy packing in the given order."""
    kept: list[T] = []
    spent = 0
    for item in candidates:
        cost = estimate(item)
        if spent + cost > budget:
            continue
        spent += cost
        kept.append(item)
    return kept
