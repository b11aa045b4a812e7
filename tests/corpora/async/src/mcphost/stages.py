"""A request as a sequence of named stages, for hosts that compose their own pipeline."""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Sequence

from relay.adapters import enforce_tool_limit

from .parity import verify_offer_parity
from .requests import ModelRequest, SealedRequest
from .sealing import seal
from .session import HostSession

log = logging.getLogger(__name__)


@dataclass
class StageContext:
    session: HostSession
    request: ModelRequest
    expected: list[dict[str, Any]]
    lane_limit: int
    sealed: SealedRequest | None = None
    response: dict[str, Any] | None = None


Stage = Callable[[StageContext], Awaitable[None]]


async def fit_stage(ctx: StageContext) -> None:
    ctx.request.tools = enforce_tool_limit(ctx.request.tools, ctx.lane_limit)


async def seal_stage(ctx: StageContext) -> None:
    ctx.sealed = seal(ctx.request)


async def check_stage(ctx: StageContext) -> None:
    if ctx.sealed is None:
        raise RuntimeError("check stage ran before the seal stage")
    await verify_offer_parity(ctx.sealed.request.tools, ctx.expected, lane=ctx.request.lane)


async def send_stage(ctx: StageContext) -> None:
    if ctx.sealed is None:
        raise RuntimeError("send stage ran before the seal stage")
    ctx.response = await ctx.session.transport.send(ctx.sealed)


STAGES: dict[str, Stage] = {
    "fit": fit_stage,
    "seal": seal_stage,
    "check": check_stage,
    "send": send_stage,
}
DEFAULT_ORDER = ("fit", "seal", "check", "send")


async def run_stages(ctx: StageContext, order: Sequence[str] = DEFAULT_ORDER) -> StageContext:
    """Run the named stages in ``order``."""
    for name in order:
        log.info("%s: stage %s", ctx.request.invocation, name)
        await STAGES[name](ctx)
    return ctx


def prepare_context(
    session: HostSession,
    messages: Sequence[dict[str, Any]],
    admitted: list[dict[str, Any]],
    *,
    lane: str,
    invocation: str,
    fmt: str,
    lane_limit: int,
) -> StageContext:
    """A stage context for a request carrying the ``admitted`` tools."""
    request = ModelRequest(
        run_id=session.run_id, lane=lane, invocation=invocation, scope=session.scope,
        fmt=fmt, messages=list(messages), tools=admitted,
    )
    expected = copy.copy(admitted)
    return StageContext(session=session, request=request, expected=expected, lane_limit=lane_limit)
