"""Availability: which admitted tools the owners' facts hide from this request."""

from __future__ import annotations

import logging
from typing import Any

from support.diagnostics import quota_spent, summarize

from .base import BaseStage
from .context import RequestContext
from .facts import RUN_DEADLINE_EXHAUSTED, SEARCH_BUDGET_EXHAUSTED, WEB_READ, WEB_SEARCH

logger = logging.getLogger(__name__)


class AvailabilityStage(BaseStage):
    """Narrows the request, and its baseline with it, by the facts in force."""

    name = "availability"

    def hidden_by_facts(self, ctx: RequestContext) -> set[str]:
        hidden: set[str] = set()
        if ctx.binding is None:
            return hidden
        for fact in self.facts.bound_to(ctx.binding):
            if fact.kind == SEARCH_BUDGET_EXHAUSTED:
                hidden.add(WEB_SEARCH)
                if not fact.source_refs:
                    hidden.add(WEB_READ)
            elif fact.kind == RUN_DEADLINE_EXHAUSTED:
                hidden.update((WEB_SEARCH, WEB_READ))
        return hidden

    def expected_surface(self, ctx: RequestContext) -> list[dict[str, Any]]:
        """The admitted baseline less what the facts in force hide."""
        hidden = self.hidden_by_facts(ctx)
        return [tool for tool in (ctx.baseline or []) if tool["name"] not in hidden]

    def log_tool_diagnostics(self, ctx: RequestContext) -> None:
        for result in ctx.tool_results:
            if (result.get("diagnostics") or {}).get("quota_exhausted"):
                logger.warning("tool %s reports an exhausted quota; waiting for the gateway's fact", result.get("tool"))
        logger.info("diagnostics on %s: %s", ctx.request.request_id, summarize(ctx.tool_results))

    def apply(self, ctx: RequestContext) -> None:
        self.log_tool_diagnostics(ctx)
        hidden = self.hidden_by_facts(ctx)
        if any(quota_spent(result) for result in ctx.tool_results):
            hidden.add(WEB_SEARCH)
        if not hidden:
            return
        logger.info("hiding %s from %s", sorted(hidden), ctx.request.request_id)
        ctx.request.tools = [tool for tool in ctx.request.tools if tool["name"] not in hidden]
        ctx.baseline = [tool for tool in (ctx.baseline or []) if tool["name"] not in hidden]
