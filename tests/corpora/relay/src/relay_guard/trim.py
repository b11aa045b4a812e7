"""Keeping the offered tools within what the provider and the budget allow."""

from __future__ import annotations

import functools
import heapq
import logging
from contextlib import suppress
from itertools import islice
from operator import attrgetter, itemgetter
from typing import Any, Callable

from relay.context import TurnRequest
from relay.ledger import Ledger
from relay.tools import FunctionTool, ToolProvider
from relay_guard.quota import count_attempts, remaining_quota
from relay_mcp.catalog import rank_by_relevance, render_names

log = logging.getLogger(__name__)


class ScoringError(Exception):
    pass


def estimate_tokens(tool: FunctionTool) -> int:
    return (len(tool.name) + len(tool.description) + len(str(tool.params_json_schema))) // 4


class ToolTrimmer:
    """Applies the provider's function limit, the token budget and the quota hints."""

    def __init__(
        self,
        ledger: Ledger,
        provider: ToolProvider,
        *,
        max_tools: int = 32,
        token_budget: int = 6000,
        quota_floor: int = 50,
        slow_cutoff_ms: int = 3000,
        max_results: int = 6,
        scorer: Callable[[FunctionTool, str], float] | None = None,
        threshold: float = 0.1,
    ) -> None:
        self.ledger = ledger
        self.provider = provider
        self.max_tools = max_tools
        self.token_budget = token_budget
        self.quota_floor = quota_floor
        self.slow_cutoff_ms = slow_cutoff_ms
        self.max_results = max_results
        self.scorer = scorer or (lambda tool, query: 1.0)
        self.threshold = threshold

    def cap(self, request: TurnRequest) -> TurnRequest:
        """Providers reject more than max_tools functions in one request."""
        if len(request.tools) > self.max_tools:
            log.warning("request %s: offering %d of %d tools", request.request_id, self.max_tools, len(request.tools))
            request.tools = request.tools[: self.max_tools]
        return request

    def describe(self, request: TurnRequest) -> str:
        log.debug("turn %s offers %s", request.turn, ", ".join(t.name for t in request.tools[:8]))
        banner = render_names(request.tools[:5])
        return f"{len(request.tools)} tools: {banner}, ..."

    def from_provider(self) -> list[FunctionTool]:
        entries = self.provider.listing()
        return list(islice(entries, self.max_tools))

    def most_relevant(self, request: TurnRequest, query: str) -> TurnRequest:
        ranked = rank_by_relevance(request.tools, query)
        best = heapq.nlargest(self.max_tools, ranked, key=itemgetter(0))
        request.tools = [tool for _, tool in best]
        return request

    def select(self, tools: list[FunctionTool], query: str) -> list[FunctionTool]:
        kept: list[FunctionTool] = []
        for tool in sorted(tools, key=attrgetter("priority"), reverse=True):
            with suppress(ScoringError):
                if self.scorer(tool, query) < self.threshold:
                    continue
                if len(kept) < self.max_tools:
                    kept.append(tool)
        return kept

    def shortlist(self) -> list[FunctionTool]:
        pool = self.provider.current()
        while len(pool) > self.max_tools:
            pool.pop()
        return pool

    def fit_budget(self) -> list[FunctionTool]:
        kept: list[FunctionTool] = []
        spent = 0
        for entry in self.provider.listing():
            cost = estimate_tokens(entry)
            if spent + cost > self.token_budget:
                continue
            kept.append(entry)
            spent += cost
        return kept

    def recent_results(self, messages: list[dict[str, Any]]) -> list[dict[str, Any]]:
        window: list[dict[str, Any]] = []
        for msg in reversed(messages):
            if msg.get("role") != "tool":
                continue
            if len(window) >= self.max_results:
                break
            window.append(msg)
        return window[::-1]

    def shed_costly(self, request: TurnRequest) -> TurnRequest:
        """Hide the expensive tools when the quota is nearly spent."""
        request.tools = [t for t in request.tools if not t.costly or (remaining_quota(request.messages) or 0) >= self.quota_floor]
        return request

    def shed_flaky(self, request: TurnRequest) -> TurnRequest:
        """Stop offering flaky tools once the provider has been retried."""
        request.tools = [t for t in request.tools if not t.flaky or functools.reduce(count_attempts, request.messages, 0) < 2]
        return request

    def shed_slow(self, request: TurnRequest) -> TurnRequest:
        """Drop slow tools when the caller's deadline is close."""
        last = request.messages[-1] if request.messages else {}
        request.tools = [t for t in request.tools if not (t.slow and last.get("deadline_ms", 1e9) < self.slow_cutoff_ms)]
        return request

    def shed_by_budget(self, request: TurnRequest) -> TurnRequest:
        """Hide the expensive tools when this run's own budget is nearly spent."""
        hint = (request.messages[-1].get("metadata") or {}).get("quota_remaining") if request.messages else None
        log.info("turn %s: provider hint quota_remaining=%s", request.turn, hint)
        request.tools = [t for t in request.tools if not t.costly or self.ledger.remaining(request.turn) >= self.quota_floor]
        return request
