"""Hiding tools that are no longer available to a request."""

from __future__ import annotations

import logging
from typing import Any

from agentcore import AgentMiddleware, ModelRequest

from .diagnostics import budget_spent
from .facts import Binding, FactFeed

log = logging.getLogger(__name__)

WEB_SEARCH = "market__web_search"
WEB_READ = "market__web_read"


def narrow_for_budget(request: ModelRequest) -> None:
    """Hide web search once a search result reports the budget as spent."""
    for message in request.messages:
        if message.role == "tool" and message.metadata.get("search_budget_remaining") == 0:
            request.tools = [t for t in request.tools if t.name != WEB_SEARCH]
            return


class BudgetAwareMiddleware(AgentMiddleware):
    """Stops offering web search when the search budget has run out."""

    name = "budget-aware"

    def before_model(self, state: dict[str, Any]) -> dict[str, Any] | None:
        if budget_spent(state["messages"]):
            state["tools"] = [t for t in state["tools"] if t.name != WEB_SEARCH]
        return None


class SurfaceNarrower:
    """Applies the owners' facts bound to a request."""

    def __init__(self, facts: FactFeed) -> None:
        self._facts = facts

    def apply(self, request: ModelRequest, binding: Binding) -> None:
        if request.messages:
            log.info("last message reports quota_remaining=%s", request.messages[-1].metadata.get("quota_remaining"))
        if self._facts.exhausted("run_deadline", binding):
            request.tools = [t for t in request.tools if t.name not in (WEB_SEARCH, WEB_READ)]
            return
        if self._facts.exhausted("search_budget", binding):
            refs = self._facts.source_refs("search_budget", binding)
            hidden = {WEB_SEARCH} if refs else {WEB_SEARCH, WEB_READ}
            request.tools = [t for t in request.tools if t.name not in hidden]
