"""Middleware registry: functions and objects run around each model call."""

from __future__ import annotations

import inspect
import logging
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any, Callable

from graphhost.models import CallRequest, CallResult

log = logging.getLogger(__name__)

EVENTS = ("pre_invoke", "post_invoke", "on_error")


@dataclass
class CallContext:
    request: CallRequest
    notes: list[str] = field(default_factory=list)
    result: CallResult | None = None


class MiddlewareRegistry:
    """Ordered chains of middleware per event.

    A middleware is a callable taking the CallContext, or an object with an ``apply`` method.
    """

    def __init__(self) -> None:
        self._chains: dict[str, list[Any]] = defaultdict(list)

    def register_middleware(self, event: str, handler: Any = None) -> Any:
        if event not in EVENTS:
            raise ValueError(f"unknown middleware event {event!r}")
        if handler is None:
            def decorate(fn: Callable[[CallContext], Any]) -> Callable[[CallContext], Any]:
                self._chains[event].append(fn)
                return fn
            return decorate
        self._chains[event].append(handler)
        return handler

    @property
    def active(self) -> bool:
        """Whether any pre-call middleware is registered."""
        return bool(self._chains["pre_invoke"])

    def has(self, event: str) -> bool:
        return bool(self._chains.get(event))

    async def run(self, event: str, ctx: CallContext) -> None:
        for handler in list(self._chains.get(event, ())):
            fn = getattr(handler, "apply", handler)
            out = fn(ctx)
            if inspect.isawaitable(out):
                await out

    def clear(self) -> None:
        self._chains.clear()


default_registry = MiddlewareRegistry()
register_middleware = default_registry.register_middleware
