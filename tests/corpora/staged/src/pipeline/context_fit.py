"""Context fit: make the request fit the provider's context and tool limits."""

from __future__ import annotations

import heapq
import logging
from typing import Any, Sequence

from support.errors import CapacityExceeded
from support.tokens import compress_messages, estimate_all, estimate_tokens, trim_to_budget

from .base import BaseStage
from .context import RequestContext
from .selection import pack

logger = logging.getLogger(__name__)

PROVIDER_TOOL_LIMITS = {"openai": 128, "anthropic": None, "mcp": None}


class ContextFitStage(BaseStage):
    """Compresses the transcript, then fits the tools into what is left."""

    name = "context_fit"

    def apply(self, ctx: RequestContext) -> None:
        tools = ctx.request.tools
        limit = self.settings.max_tools
        if len(tools) > limit:
            held = ctx.reservation.reservation_id if ctx.reservation is not None else "-"
            logger.info("capacity result for %s; settling reservation %s", ctx.request.request_id, held)
            self.settle_rejected(ctx, "capacity")
            raise CapacityExceeded(f"{len(tools)} tools for max_tools {limit}", tools=len(tools), limit=limit)

        budget = self.settings.budget_tokens
        ctx.request.messages = list(compress_messages(ctx.request.messages, budget // 2))
        room = budget - estimate_all(ctx.request.messages)
        needed = estimate_all(tools)
        if needed > room:
            heaviest = heapq.nlargest(3, tools, key=estimate_tokens)
            logger.warning(
                "tools need %d tokens, %d left on %s; heaviest: %s",
                needed,
                room,
                ctx.request.request_id,
                ", ".join(str(tool["name"]) for tool in heaviest),
            )
            if self.settings.fit_strategy == "pack":
                ctx.request.tools = list(pack(tools, room))
            else:
                ctx.request.tools = list(trim_to_budget(tools, room))

        provider_limit = PROVIDER_TOOL_LIMITS.get(self.settings.provider_format)
        if provider_limit is not None and len(ctx.request.tools) > provider_limit:
            ctx.request.tools = self._within_provider_limit(ctx.request.tools, provider_limit)

    def _within_provider_limit(self, tools: Sequence[dict[str, Any]], provider_limit: int) -> list[dict[str, Any]]:
        """Keep the pinned tools and as many others, in order, as the provider takes."""
        kept: list[dict[str, Any]] = []
        for index, tool in enumerate(tools):
            if index < provider_limit or tool["name"] in self.settings.pinned:
                kept.append(tool)
            else:
                logger.info("leaving out %s: past the provider's %d-tool limit", tool["name"], provider_limit)
        return kept
