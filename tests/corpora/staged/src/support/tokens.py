"""Token estimates for messages and tool definitions."""

from __future__ import annotations

import json
from typing import Any, Iterable, Mapping, Sequence

BYTES_PER_TOKEN = 4


def estimate_tokens(value: Any) -> int:
    """Four bytes of compact JSON per token, rounded up."""
    size = len(json.dumps(value, separators=(",", ":"), ensure_ascii=False).encode("utf-8"))
    return -(-size // BYTES_PER_TOKEN)


def estimate_all(values: Iterable[Any]) -> int:
    return sum(estimate_tokens(value) for value in values)


def trim_to_budget(specs: Sequence[Mapping[str, Any]], budget: int) -> list[Mapping[str, Any]]:
    """The leading definitions whose combined estimate fits *budget*."""
    running = 0
    kept: list[Mapping[str, Any]] = []
    for spec in specs:
        cost = estimate_tokens(spec)
        if running + cost > budget:
            break
        kept.append(spec)
        running += cost
    return kept


def compress_messages(messages: Sequence[Mapping[str, Any]], budget: int, *, keep_head: int = 1) -> list[Mapping[str, Any]]:
    """Drop the oldest turns after the first *keep_head* until the transcript fits *budget*."""
    head = list(messages[:keep_head])
    tail = list(messages[keep_head:])
    while tail and estimate_all(head) + estimate_all(tail) > budget:
        tail.pop(0)
    return head + tail
