"""Ordering and selection of candidate tools."""

from __future__ import annotations

import logging
import re
from typing import Any, Iterable, Mapping, Sequence

from support.tokens import estimate_tokens

logger = logging.getLogger(__name__)

_WORD = re.compile(r"[a-z0-9]+")


def pinned_first(tools: Sequence[dict[str, Any]], pinned: Sequence[str]) -> list[dict[str, Any]]:
    """The same tools with the pinned ones first, in pin order, the rest as given."""
    slots: list[dict[str, Any] | None] = [None] * len(pinned)
    order = {name: index for index, name in enumerate(pinned)}
    rest: list[dict[str, Any]] = []
    for position, tool in enumerate(tools):
        slot = order.get(tool["name"])
        if slot is not None and slot < len(slots) and slots[slot] is None:
            slots[slot] = tool
        else:
            rest.append(tool)
        logger.info("tool %s at %d", tool["name"], position)
    return [tool for tool in slots if tool is not None] + rest


def pack(defs: Sequence[Mapping[str, Any]], budget: int) -> list[Mapping[str, Any]]:
    """Greedy packing: smallest definitions first, each one kept if it still fits."""
    used = 0
    chosen: list[Mapping[str, Any]] = []
    for item in sorted(defs, key=estimate_tokens):
        cost = estimate_tokens(item)
        if used + cost > budget:
            continue
        chosen.append(item)
        used += cost
    return chosen


class ToolSelector:
    """Ranks candidate tools against the latest user turn and keeps the most relevant."""

    def __init__(self, max_tools: int, always: Iterable[str] = ()) -> None:
        self.max_tools = max_tools
        self.always = tuple(always)
        self._pool: list[dict[str, Any]] = []

    def prime(self, catalogue: list[dict[str, Any]]) -> None:
        """Remember the candidates for this deployment."""
        self._pool = catalogue
        logger.info("selector primed with %d candidates", len(catalogue))

    @staticmethod
    def _score(spec: Mapping[str, Any], query: str) -> float:
        wanted = set(_WORD.findall(query.lower()))
        text = f"{spec.get('name', '')} {spec.get('description', '')}".lower()
        words = set(_WORD.findall(text))
        return len(wanted & words) / (1 + len(words) ** 0.5)

    def select(self, query: str) -> list[dict[str, Any]]:
        """The pinned tools, then the best-scoring others up to max_tools."""
        ranked = sorted(self._pool, key=lambda spec: self._score(spec, query), reverse=True)
        kept = [spec for spec in ranked if spec["name"] in self.always]
        for spec in ranked:
            if spec["name"] in self.always:
                continue
            if len(kept) < self.max_tools:
                kept.append(spec)
        return kept
