"""The interceptor chain run on every turn before it is sent."""

from __future__ import annotations

import inspect
import logging
from copy import deepcopy as clone
from typing import Any, Awaitable, Callable, Iterable, TypeVar

from relay.context import TurnRequest
from relay.surface import assert_surface_parity, freeze_surface

log = logging.getLogger(__name__)

Interceptor = Callable[[TurnRequest], Awaitable[TurnRequest | None]]
T = TypeVar("T")


async def _call(step: Any, request: TurnRequest) -> TurnRequest:
    fn = getattr(step, "apply", None) or getattr(step, "before_turn", None) or step
    out = fn(request)
    if inspect.isawaitable(out):
        out = await out
    return out if out is not None else request


class InterceptorChain:
    """An ordered list of interceptors; each may rewrite the request."""

    def __init__(self) -> None:
        self._interceptors: list[Any] = []
        self.pinned: list[dict[str, Any]] | None = None

    def register_interceptor(self, interceptor: T, *, first: bool = False) -> T:
        if first:
            self._interceptors.insert(0, interceptor)
        else:
            self._interceptors.append(interceptor)
        return interceptor

    @property
    def enabled(self) -> bool:
        return bool(self._interceptors)

    def pin(self, tools: Iterable[Any]) -> None:
        """Remember the surface the chain must hand on unchanged."""
        self.pinned = clone([t.to_spec() for t in tools])

    async def run(self, request: TurnRequest) -> TurnRequest:
        if not self._interceptors:
            return request
        for step in list(self._interceptors):
            request = await _call(step, request)
        if self.pinned is not None:
            assert_surface_parity(freeze_surface(request.tools), self.pinned)
        return request

    async def run_checked(self, request: TurnRequest, pinned: Iterable[Any]) -> TurnRequest:
        """Run the chain, then check the surface against ``pinned`` whatever ran."""
        if not self._interceptors:
            log.debug("no interceptors registered; checking the surface as built")
        else:
            for step in list(self._interceptors):
                request = await _call(step, request)
        assert_surface_parity(freeze_surface(request.tools), pinned)
        return request


DEFAULT_CHAIN = InterceptorChain()


def register_interceptor(interceptor: T) -> T:
    """Decorator form: add ``interceptor`` to the default chain."""
    return DEFAULT_CHAIN.register_interceptor(interceptor)
