"""Retry and backoff around provider sends."""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Iterable

from relay import surface
from relay.context import ModelResponse, TurnRequest
from relay.errors import BudgetRefused, TransientError
from relay.ledger import Ledger

Send = Callable[[TurnRequest], Awaitable[ModelResponse]]


@dataclass(frozen=True)
class BackoffPolicy:
    max_attempts: int = 4
    base: float = 0.5
    cap: float = 8.0
    jitter: float = 0.2

    def delay(self, attempt: int) -> float:
        raw = min(self.cap, self.base * (2 ** (attempt - 1)))
        return raw * (1 + random.uniform(-self.jitter, self.jitter))


DEFAULT_POLICY = BackoffPolicy()


async def send_with_backoff(
    transport: Any,
    request: TurnRequest,
    baseline: Iterable[Any],
    *,
    policy: BackoffPolicy = DEFAULT_POLICY,
) -> ModelResponse:
    """Send, retrying transient failures; the surface is checked before every attempt."""
    attempt = 0
    while True:
        surface.ensure_parity(request, baseline)
        try:
            return await transport.send_turn(request)
        except TransientError:
            attempt += 1
            if attempt >= policy.max_attempts:
                raise
            request.resumed = True
            await asyncio.sleep(policy.delay(attempt))


async def resend(gate: surface.SurfaceGate, transport: Any, request: TurnRequest) -> ModelResponse:
    """Send a turn again after the caller edited its messages."""
    expected = gate.pinned_for(request.agent_name)
    surface.assert_surface_parity(surface.freeze_surface(request.tools), expected)
    return await transport.send_turn(request)


class BudgetedRetry:
    """Wraps a send so that retries draw on one reservation."""

    __slots__ = ("ledger", "policy")

    def __init__(self, ledger: Ledger, policy: BackoffPolicy = DEFAULT_POLICY) -> None:
        self.ledger = ledger
        self.policy = policy

    async def __call__(self, send: Send, request: TurnRequest) -> ModelResponse:
        need = request.max_output_tokens
        res = self.ledger.reserve(request.turn, need)
        for attempt in range(1, self.policy.max_attempts + 1):
            try:
                reply = await send(request)
            except TransientError:
                if self.ledger.remaining(request.turn) < need:
                    raise BudgetRefused(need, self.ledger.remaining(request.turn))
                await asyncio.sleep(self.policy.delay(attempt))
                continue
            self.ledger.commit(res, reply.total_tokens)
            return reply
        self.ledger.release(res)
        raise TransientError(f"gave up after {self.policy.max_attempts} attempts")


async def charge_or_refuse(ledger: Ledger, request: TurnRequest, send: Send) -> ModelResponse:
    """Reserve for one send; refuse up front when the headroom left is too thin."""
    res = ledger.reserve(request.turn, request.max_output_tokens)
    try:
        if ledger.remaining(request.turn) < request.max_output_tokens // 4:
            raise BudgetRefused(request.max_output_tokens, ledger.remaining(request.turn))
        reply = await send(request)
    except BudgetRefused:
        ledger.release(res)
        raise
    except BaseException:
        ledger.release(res)
        raise
    ledger.commit(res, reply.total_tokens)
    return reply
