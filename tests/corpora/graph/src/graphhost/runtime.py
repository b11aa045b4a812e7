"""Runs a compiled graph and makes its model calls and tool calls."""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import Awaitable, Callable, Sequence

from plugins import CallContext, MiddlewareRegistry

from .billing import CallFunding, cost_cents
from .errors import BudgetRefused
from .graph import Graph
from .ledger import Ledger, held, settle_refused
from .models import CallRequest, CallResult, Message, ToolCall, ToolResult, ToolSpec
from .parity import assert_toolset_parity, freeze_toolset
from .settings import Settings
from .state import RunState

log = logging.getLogger(__name__)

ToolExecutor = Callable[[ToolCall], Awaitable[ToolResult]]


def estimate_cents(request: CallRequest) -> int:
    chars = sum(len(str(m.content)) for m in request.messages)
    return max(1, chars // 4000)


class GraphRunner:
    def __init__(self, graph: Graph, gateway, adapters, ledger: Ledger, middleware: MiddlewareRegistry,
                 settings: Settings, execute_tool: ToolExecutor) -> None:
        self.graph = graph
        self.adapters = adapters
        self.ledger = ledger
        self.middleware = middleware
        self.settings = settings
        self._execute_tool = execute_tool
        self._funding = CallFunding(ledger, settings)
        self._send = functools.partial(gateway.invoke, route="primary")
        self._baselines: dict[tuple[str, int], tuple[ToolSpec, ...]] = {}

    async def run(self, graph_id: str) -> RunState:
        state = self.graph.initial_state(graph_id)
        return await self.graph.run(state, self)

    async def call_model(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> CallResult:
        """Run the pre-call middleware, then send through the adapter for the model."""
        self._baselines.setdefault((request.graph_id, request.turn), freeze_toolset(baseline))
        ctx = CallContext(request=request)
        await self.middleware.run("pre_invoke", ctx)
        adapter = self.adapters.for_model(ctx.request.model)
        hold = self._funding.open(request.graph_id)
        try:
            result = await adapter.complete(ctx.request, baseline)
        except BaseException:
            self._funding.close(hold, None)
            raise
        self._funding.close(hold, result.usage)
        quota = result.message.metadata.get("quota_remaining")
        log.debug("graph %s turn %s: provider quota now %s", request.graph_id, request.turn, quota)
        ctx.result = result
        await self.middleware.run("post_invoke", ctx)
        return result

    async def replay_turn(self, request: CallRequest) -> CallResult:
        """Send a turn again, against the baseline that turn was first sent with."""
        baseline = self._baselines[(request.graph_id, request.turn)]
        replay = request.model_copy(update={"replay_of": f"{request.graph_id}:{request.turn}"}, deep=True)
        return await self.call_model(replay, baseline)

    async def prefetch(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> None:
        """Prime the provider's prompt cache with the tool block before a fan-out."""
        ctx = CallContext(request=request.model_copy(update={"messages": request.messages[:1]}, deep=True))
        await self.middleware.run("pre_invoke", ctx)
        if self.middleware.active:
            assert_toolset_parity(ctx.request.tools, baseline)
        await self._send(ctx.request.model_dump(mode="json"))

    async def call_tools(self, run: RunState, calls: Sequence[ToolCall]) -> list[ToolResult]:
        """Run the model's tool calls concurrently, each under its own hold."""
        share = max(1, self.settings.hold_cents // 4)

        async def one(call: ToolCall) -> ToolResult:
            async with held(self.ledger, run.graph_id, share) as hold:
                if self.ledger.overdrawn(run.graph_id):
                    raise BudgetRefused(run.graph_id, hold.amount_cents)
                result = await self._execute_tool(call)
                hold.spent_cents = result.cost_cents
                return result

        return list(await asyncio.gather(*(one(c) for c in calls)))

    async def summarize(self, run: RunState) -> str:
        """A closing summary of the run, funded and checked like any other call."""
        expected = self.graph.admitted.model_copy(deep=True)
        request = CallRequest(
            graph_id=run.graph_id,
            turn=run.step,
            model=self.settings.model,
            messages=[*run.messages, Message(role="user", content="Summarise what was done.")],
            tools=[t.model_copy(deep=True) for t in expected.tools],
        )
        estimate = estimate_cents(request)
        hold = self.ledger.reserve(run.graph_id, estimate)
        if self.ledger.overdrawn(run.graph_id):
            settle_refused(self.ledger, hold)
            raise BudgetRefused(run.graph_id, estimate)
        adapter = self.adapters.for_model(request.model)
        try:
            result = await adapter.complete(request, expected.tools)
            hold.spent_cents = cost_cents(result.usage)
        finally:
            self.ledger.settle(hold)
        return str(result.message.content)
