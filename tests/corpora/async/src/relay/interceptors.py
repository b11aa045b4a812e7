"""Interceptors: host extensions that see a request before it is sealed or sent.

Two events exist. ``before_seal`` interceptors may shape the request (they run before the
context fit); ``before_send`` interceptors run after the fit, just before the seal.
"""

from __future__ import annotations

import functools
import logging
from typing import TYPE_CHECKING, Awaitable, Callable

if TYPE_CHECKING:
    from mcphost.requests import ModelRequest

log = logging.getLogger(__name__)

Interceptor = Callable[["ModelRequest"], Awaitable[None]]
EVENTS = ("before_seal", "before_send")


class InterceptorChain:
    """Interceptors by event, run in registration order."""

    def __init__(self) -> None:
        self._registered: dict[str, list[Interceptor]] = {event: [] for event in EVENTS}

    def register_interceptor(self, event: str, interceptor: Interceptor) -> Callable[[], None]:
        """Register ``interceptor`` for ``event``; returns a callable that unregisters it."""
        if event not in self._registered:
            raise ValueError(f"unknown interceptor event {event!r}")
        self._registered[event].append(interceptor)
        log.info("registered %r for %s", interceptor, event)
        return functools.partial(self._unregister, event, interceptor)

    def _unregister(self, event: str, interceptor: Interceptor) -> None:
        try:
            self._registered[event].remove(interceptor)
        except ValueError:
            log.info("%r was not registered for %s", interceptor, event)

    def registered(self, event: str) -> tuple[Interceptor, ...]:
        return tuple(self._registered.get(event, ()))

    async def run(self, event: str, request: "ModelRequest") -> None:
        for interceptor in self.registered(event):
            await interceptor(request)


chain = InterceptorChain()


def register_interceptor(event: str, interceptor: Interceptor) -> Callable[[], None]:
    """Register on the process-wide chain."""
    return chain.register_interceptor(event, interceptor)
