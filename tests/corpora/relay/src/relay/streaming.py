"""Streamed runs: events are yielded as the provider produces them."""

from __future__ import annotations

import logging
from dataclasses import dataclass
from typing import Any, AsyncIterator, Mapping

from relay.agent import Agent
from relay.context import TurnRequest
from relay.errors import SurfaceDrift
from relay.ledger import Ledger
from relay.surface import diff_names, diff_surface
from relay.tools import fresh_tools
from relay.transport import ModelTransport
from relay_guard.chain import InterceptorChain

log = logging.getLogger(__name__)


@dataclass
class StreamingAgent(Agent):
    """An agent whose replies are streamed to the caller in chunks."""

    chunk_chars: int = 400

    def with_instructions(self, text: str) -> "StreamingAgent":
        """The same agent with different instructions, e.g. a per-channel persona."""
        return type(self)(
            name=self.name,
            instructions=text,
            tools=self.tools,
            model=self.model,
            max_tools=self.max_tools,
            chunk_chars=self.chunk_chars,
        )


@dataclass(frozen=True)
class StreamEvent:
    kind: str
    data: Mapping[str, Any]


def _tokens_of(event: Mapping[str, Any]) -> int:
    usage = event.get("response", {}).get("usage") or {}
    return int(usage.get("output_tokens", 0)) + int(usage.get("input_tokens", 0))


class StreamRunner:
    """Streams turns; the pinned surfaces are handed in by the host at start-up."""

    def __init__(
        self,
        transport: ModelTransport,
        ledger: Ledger,
        chain: InterceptorChain,
        pinned: Mapping[str, tuple[dict[str, Any], ...]],
    ) -> None:
        self.transport = transport
        self.ledger = ledger
        self.chain = chain
        self._pinned = pinned

    async def stream(self, agent: Agent, messages: list[dict[str, Any]]) -> AsyncIterator[StreamEvent]:
        request = TurnRequest(agent.name, list(messages), fresh_tools(agent.tools))
        request = await self.chain.run(request)
        async with self.ledger.hold(request.turn, request.max_output_tokens) as res:
            baseline = self._pinned[request.agent_name]
            if drift := diff_surface(request.tools, baseline):
                raise SurfaceDrift(drift, agent=agent.name)
            used = 0
            async for raw in self.transport.stream_turn(request):
                if raw.get("type") == "response.completed":
                    used = _tokens_of(raw)
                yield StreamEvent(raw.get("type", "unknown"), raw)
            self.ledger.commit(res, used)

    async def reconnect(self, request: TurnRequest, last_seq: int) -> AsyncIterator[StreamEvent]:
        """Pick an interrupted stream up again after the last event the client saw."""
        baseline = request.admitted
        request.resumed = True
        request.state["resume_after"] = last_seq
        request = await self.chain.run(request)
        async with self.ledger.hold(request.turn, request.max_output_tokens) as res:
            if missing := diff_names(request.tools, baseline):
                raise SurfaceDrift(sorted(missing), agent=request.agent_name)
            used = 0
            async for raw in self.transport.stream_turn(request):
                if raw.get("sequence_number", 0) <= last_seq:
                    continue
                used = _tokens_of(raw) or used
                yield StreamEvent(raw.get("type", "unknown"), raw)
            self.ledger.commit(res, used)
