"""Wiring a host: transports, the MCP server, interceptors and the session they share."""

from __future__ import annotations

import logging
import uuid
from contextlib import AsyncExitStack, asynccontextmanager
from dataclasses import dataclass
from typing import Any, AsyncIterator

import httpx

from relay import FallbackLanes, InterceptorChain, Lane, Transport
from relay.middleware import (
    LongResultPaging,
    SchemaTighteningMiddleware,
    redaction_hook,
    strip_titles_hook,
    trace_hook,
)
from toolkit import ToolCatalogue, ToolRegistry
from toolkit.controls import read_tool_result_wire
from toolkit.mcp_client import connect_stdio

from .child import ChildPipeline
from .config import SETTINGS, HostSettings
from .console import HostCommands
from .context_fit import ChildContextFitter, ContextFitter
from .delegate import Delegator
from .facts import FactFeed, MemoryFactStore
from .offline import OfflinePipeline
from .parity import OfferGuard
from .pipeline import RequestPipeline
from .recovery import Recovery
from .session import HostSession
from .turns import ToolLoop, continuation_hook
from .warmup import CacheWarmer

log = logging.getLogger(__name__)

CLOCK_SHAPE: dict[str, Any] = {
    "type": "object",
    "properties": {"timezone": {"type": "string", "description": "IANA zone, e.g. Europe/Zurich."}},
    "required": [],
}


def build_registry() -> ToolRegistry:
    registry = ToolRegistry()
    registry.register("host__clock", "The current date and time.", CLOCK_SHAPE)
    return registry


def install_interceptors(chain: InterceptorChain, settings: HostSettings, guard: OfferGuard) -> list[Any]:
    """Register the stock interceptors this host runs; returns their unregister callables."""
    fmt = settings.lanes[0].fmt if settings.lanes else "anthropic"
    undo = [
        chain.register_interceptor("before_send", guard.before_send),
        chain.register_interceptor("before_seal", SchemaTighteningMiddleware(max_length=settings.max_argument_chars)),
        chain.register_interceptor("before_seal", continuation_hook),
        chain.register_interceptor("before_send", redaction_hook),
        chain.register_interceptor("before_send", trace_hook),
    ]
    if settings.result_paging:
        undo.append(chain.register_interceptor("before_seal", LongResultPaging(read_tool_result_wire(fmt))))
    if fmt == "anthropic":
        undo.append(chain.register_interceptor("before_seal", strip_titles_hook))
    return undo


@asynccontextmanager
async def open_host(settings: HostSettings = SETTINGS, *, run_id: str | None = None) -> AsyncIterator[HostSession]:
    """A session with its transports and server connection open for the length of the block."""
    async with AsyncExitStack() as stack:
        http = await stack.enter_async_context(httpx.AsyncClient())
        lanes = FallbackLanes(
            [
                Lane(
                    name=lane.name,
                    transport=Transport(lane.provider, lane.endpoint, lane.model, api_key_env=lane.api_key_env, client=http),
                    max_tools=lane.max_tools,
                )
                for lane in settings.lanes
            ]
        )
        client = await stack.enter_async_context(connect_stdio(settings.server_command))
        chain = InterceptorChain()
        guard = OfferGuard()
        for unregister in install_interceptors(chain, settings, guard):
            stack.callback(unregister)
        session = HostSession(
            run_id=run_id or f"run_{uuid.uuid4().hex[:12]}",
            settings=settings,
            catalogue=ToolCatalogue(client, settings.server),
            mcp=client,
            lanes=lanes,
            chain=chain,
            guard=guard,
            facts=FactFeed(MemoryFactStore()),
        )
        log.info("host %s open with %d lane(s)", session.run_id, len(settings.lanes))
        yield session


@dataclass
class Pipelines:
    """The pipelines of one session, and the console commands that drive them."""

    main: RequestPipeline
    child: ChildPipeline
    loop: ToolLoop
    delegate: Delegator
    offline: OfflinePipeline
    recovery: Recovery
    commands: HostCommands


def build_pipelines(session: HostSession) -> Pipelines:
    lane = session.settings.lanes[0]
    child_lane = session.settings.lanes[-1]
    fitter = ContextFitter(max_tools=lane.max_tools, budget_tokens=lane.budget_tokens)
    child_fitter = ChildContextFitter(max_tools=session.settings.max_child_tools, budget_tokens=child_lane.budget_tokens)
    warmer = CacheWarmer(session)
    main = RequestPipeline(session, fitter, warmer)
    recovery = Recovery(session, session.receipts)
    return Pipelines(
        main=main,
        child=ChildPipeline(session, child_fitter),
        loop=ToolLoop(session, fitter),
        delegate=Delegator(session),
        offline=OfflinePipeline(session, fitter),
        recovery=recovery,
        commands=HostCommands(session, main, recovery, session.receipts, warmer, build_registry()),
    )
