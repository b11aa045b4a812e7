"""The run loop: build a turn, run the interceptors, check the surface, send, settle."""

from __future__ import annotations

import functools
import logging
from dataclasses import dataclass
from typing import Any

from relay.agent import Agent
from relay.context import ModelResponse, ScopeBase, TurnRequest
from relay.ledger import Ledger
from relay.surface import SurfaceGate, freeze_surface
from relay.surface import assert_surface_parity as final_check
from relay.tools import fresh_tools
from relay.transport import ModelTransport
from relay_guard.chain import InterceptorChain
from relay_guard.policies import with_output_reader
from relay_mcp.catalog import snapshot_tools

log = logging.getLogger(__name__)


class RunScope(ScopeBase):
    """A nesting level of a run; each child scope gets its own tool list."""

    __slots__ = ()

    def child(self) -> "RunScope":
        return RunScope(self.tools, self.depth + 1, self)


@dataclass
class RunResult:
    agent: str
    response: ModelResponse
    turns: int = 1

    @property
    def final_output(self) -> str:
        parts = [c.get("text", "") for item in self.response.output for c in item.get("content", [])]
        return "".join(parts)


class Runner:
    """Runs agents turn by turn against one transport and one ledger."""

    def __init__(self, transport: ModelTransport, ledger: Ledger, chain: InterceptorChain,
                 gate: SurfaceGate | None = None) -> None:
        self.transport = transport
        self.ledger = ledger
        self.chain = chain
        self.gate = gate or SurfaceGate()
        self._send = functools.partial(transport.send_turn, timeout=20.0)

    def admit(self, agent: Agent) -> None:
        """Pin the agent's surface, pager included, before its first turn."""
        self.gate.pin(agent.name, with_output_reader(agent.tools))

    def _build_request(self, agent: Agent, messages: list[dict[str, Any]], **extra: Any) -> TurnRequest:
        tools = with_output_reader(fresh_tools(agent.tools))
        return TurnRequest(agent.name, list(messages), tools, **extra)

    async def run(self, agent: Agent, messages: list[dict[str, Any]]) -> RunResult:
        request = self._build_request(agent, messages)
        async with self.ledger.hold(request.turn, request.max_output_tokens) as res:
            request = await self.chain.run(request)
            self.gate.enforce(request)
            response = await self.transport.send_turn(request)
            self.ledger.commit(res, response.total_tokens)
        return RunResult(agent.name, response)

    async def warm(self, agent: Agent, messages: list[dict[str, Any]]) -> ModelResponse:
        """Send a one-token turn so the provider caches the prompt prefix."""
        request = self._build_request(agent, messages, max_output_tokens=1)
        request = await self.chain.run(request)
        if self.chain.enabled:
            final_check(freeze_surface(request.tools), self.gate.pinned_for(agent.name))
        return await self._send(request)

    async def resume(self, request: TurnRequest) -> ModelResponse:
        """Send again a turn whose first attempt was cut off by the client."""
        baseline = freeze_surface(request.tools)
        request.resumed = True
        request = await self.chain.run(request)
        final_check(freeze_surface(request.tools), baseline)
        return await self.transport.send_turn(request)

    async def run_listed(self, agent: Agent, messages: list[dict[str, Any]]) -> RunResult:
        """Run an agent whose tools came from MCP listings and were never admitted."""
        specs = [t.to_spec() for t in agent.tools]
        baseline = snapshot_tools(specs)
        request = TurnRequest(agent.name, list(messages), agent.tools)
        request = await self.chain.run(request)
        final_check([t.to_spec() for t in request.tools], baseline)
        return RunResult(agent.name, await self.transport.send_turn(request))

    async def run_once(self, agent: Agent, messages: list[dict[str, Any]]) -> RunResult:
        """One-shot run for scripts and evals that skip admission."""
        pinned = list(agent.tools)
        request = TurnRequest(agent.name, list(messages), agent.tools)
        request = await self.chain.run(request)
        final_check(freeze_surface(request.tools), freeze_surface(pinned))
        return RunResult(agent.name, await self.transport.send_turn(request))
