"""Handoffs: an agent delegating a turn to one of its sub-agents."""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

from relay.agent import AgentBase
from relay.context import ModelResponse, TurnRequest, pinned_of
from relay.errors import BudgetRefused, HandoffError, SurfaceDrift
from relay.ledger import Ledger, held, release_on_error
from relay.surface import assert_surface_parity as final_check
from relay.surface import freeze_surface
from relay.tools import fresh_tools
from relay.transport import ModelTransport
from relay_mcp.schemas import clone_specs

log = logging.getLogger(__name__)

Interceptor = Callable[[TurnRequest], Awaitable[TurnRequest]]


@dataclass
class SubAgent(AgentBase):
    """An agent that only runs when another one hands off to it."""

    parent: str = ""
    max_cost: int = 8000

    def fork(self, parent: str) -> "SubAgent":
        """A per-delegation copy that remembers who handed off to it."""
        twin = copy.copy(self)
        twin.parent = parent
        return twin


@dataclass(frozen=True)
class Handoff:
    target: SubAgent
    tool_name: str
    description: str = ""
    input_filter: Callable[[list[dict[str, Any]]], list[dict[str, Any]]] | None = None

    def messages_for(self, history: list[dict[str, Any]]) -> list[dict[str, Any]]:
        return self.input_filter(history) if self.input_filter else list(history)


class HandoffExecutor:
    """Runs a handoff: builds the sub-agent's turn, checks it, reserves for it and sends it."""

    def __init__(self, transport: ModelTransport, ledger: Ledger, interceptors: Sequence[Interceptor]) -> None:
        self.transport = transport
        self.ledger = ledger
        self._interceptors = list(interceptors)
        self._by_tool: dict[str, Handoff] = {}

    def add(self, handoff: Handoff) -> None:
        self._by_tool[handoff.tool_name] = handoff

    def resolve(self, tool_name: str) -> Handoff:
        try:
            return self._by_tool[tool_name]
        except KeyError:
            raise HandoffError(f"no handoff behind {tool_name!r}") from None

    def preflight(self, handoff: Handoff, request: TurnRequest) -> int:
        """Estimate the delegated turn and refuse it early when the sub-agent cannot afford it."""
        cost = sum(len(str(m.get("content", ""))) // 4 for m in request.messages) + 512
        with held(self.ledger, request.turn, cost) as res:
            if cost > handoff.target.max_cost:
                raise BudgetRefused(cost, handoff.target.max_cost)
            log.debug("handoff %s fits: reservation %s", handoff.tool_name, res.id)
        return cost

    async def delegate(self, tool_name: str, request: TurnRequest) -> ModelResponse:
        handoff = self.resolve(tool_name)
        sub = handoff.target.fork(request.agent_name)
        sub_request = TurnRequest(
            agent_name=sub.name,
            messages=handoff.messages_for(request.messages),
            tools=fresh_tools(sub.tools),
            state=dict(request.state),
        )
        for interceptor in self._interceptors:
            sub_request = await interceptor(sub_request)
        expected = pinned_of(sub_request)
        res = self.ledger.reserve(sub_request.turn, self.preflight(handoff, sub_request))
        try:
            final_check(freeze_surface(sub_request.tools), expected)
            reply = await self.transport.send_turn(sub_request)
        except SurfaceDrift as exc:
            release_on_error(self.ledger, res, exc)
            raise
        self.ledger.commit(res, reply.total_tokens)
        return reply

    async def delegate_verbatim(self, tool_name: str, request: TurnRequest) -> ModelResponse:
        """Hand the sub-agent its admitted tools untouched: no interceptors run."""
        sub = self.resolve(tool_name).target
        pinned = clone_specs(t.to_spec() for t in sub.tools)
        sub_request = TurnRequest(sub.name, list(request.messages), fresh_tools(sub.tools))
        async with self.ledger.hold(sub_request.turn, sub.max_cost) as res:
            final_check(freeze_surface(sub_request.tools), pinned)
            reply = await self.transport.send_turn(sub_request)
            self.ledger.commit(res, reply.total_tokens)
        return reply
