"""Budget-aware tool selection: what to offer when tokens, money, quota or time run short."""

from __future__ import annotations

import logging
from itertools import accumulate, takewhile
from typing import Sequence

from graphhost.models import Message, ToolResult, ToolSpec
from graphhost.settings import Settings
from graphhost.state import quota_left
from graphhost.util import estimate_tokens

log = logging.getLogger(__name__)


def _rank(spec: ToolSpec) -> tuple[int, str]:
    return (spec.tokens or estimate_tokens(spec), spec.name)


def deadline_left(results: Sequence[ToolResult]) -> float | None:
    """Seconds left before the earliest deadline the tools reported, if any did."""
    reported = [float(r.content["deadline_s"]) for r in results if "deadline_s" in r.content]
    return min(reported) if reported else None


def quota_pruned(messages: Sequence[Message], tools: list[ToolSpec], settings: Settings) -> list[ToolSpec]:
    """Drop the expensive tools once the provider quota runs low."""
    remaining = quota_left(messages)
    if remaining is not None and remaining < settings.max_attempts * 2:
        tools = [t for t in tools if not t.expensive]
    return tools


def owner_pruned(ledger, graph_id: str, tools: Sequence[ToolSpec], settings: Settings) -> list[ToolSpec]:
    """Drop the expensive tools once the graph's own budget runs low."""
    if ledger.budget_remaining(graph_id) < settings.hold_cents:
        return [t for t in tools if not t.expensive]
    return list(tools)


def within_tokens(tools: Sequence[ToolSpec], budget: int) -> list[ToolSpec]:
    """The leading tools whose schemas fit in the token budget."""
    running = accumulate(_rank(t)[0] for t in tools)
    return [t for t, _ in takewhile(lambda pair: pair[1] <= budget, zip(tools, running))]


def cheapest_first(toolset: Sequence[ToolSpec], cap: int) -> list[ToolSpec]:
    kept: list[ToolSpec] = []
    for spec in sorted(toolset, key=_rank):
        if len(kept) < cap:
            kept.append(spec)
    return kept


def fit_within(items: Sequence[ToolSpec], budget: int) -> list[ToolSpec]:
    """Offer what fits in the token budget, preferring the tools listed last (the newest)."""
    spent = 0
    chosen: list[ToolSpec] = []
    for spec in reversed(items):
        try:
            cost = _rank(spec)[0]
        except (TypeError, ValueError):
            log.warning("cannot size tool %s", spec.name)
            continue
        if spent + cost > budget:
            continue
        spent += cost
        chosen.append(spec)
    chosen.reverse()
    return chosen
