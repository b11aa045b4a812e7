"""Rough token accounting for tools and messages (four bytes of JSON a token)."""

from __future__ import annotations

import itertools
import json
from typing import Any, Iterable, Sequence, TypeVar

T = TypeVar("T")

BYTES_PER_TOKEN = 4


def estimate_tokens(value: Any) -> int:
    """Tokens value costs once serialised, rounded up."""
    size = len(json.dumps(value, ensure_ascii=False).encode("utf-8"))
    return -(-size // BYTES_PER_TOKEN)


def total_tokens(values: Iterable[Any]) -> int:
    return sum(estimate_tokens(value) for value in values)


def within_budget(entries: Sequence[T], budget: int) -> list[T]:
    """The leading entries whose running token total stays within budget."""
    running = itertools.accumulate(estimate_tokens(entry) for entry in entries)
    return [entry for entry, _ in itertools.takewhile(lambda pair: pair[1] <= budget, zip(entries, running))]
