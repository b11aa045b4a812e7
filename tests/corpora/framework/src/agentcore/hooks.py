"""Named hook events and the registry that runs them."""

from __future__ import annotations

import logging
from collections import defaultdict
from typing import Any, Callable

log = logging.getLogger(__name__)

HookFn = Callable[..., Any]


class HookRegistry:
    """Functions to run at named points of a request (``before_model``, ``before_send`` ...)."""

    def __init__(self) -> None:
        self._events: dict[str, list[HookFn]] = defaultdict(list)

    def register_hook(self, event: str, fn: HookFn | None = None) -> Any:
        """Register ``fn`` for ``event``; without ``fn``, return a decorator that does."""
        if fn is None:

            def decorator(func: HookFn) -> HookFn:
                self._events[event].append(func)
                return func

            return decorator
        self._events[event].append(fn)
        return fn

    def hooks_for(self, event: str) -> list[HookFn]:
        return list(self._events.get(event, ()))

    def has_hooks(self, event: str) -> bool:
        return bool(self._events.get(event))

    def run(self, event: str, *args: Any, **kwargs: Any) -> None:
        for fn in self.hooks_for(event):
            log.info("running %s hook %s", event, getattr(fn, "__qualname__", fn))
            fn(*args, **kwargs)

    def clear(self, event: str | None = None) -> None:
        if event is None:
            self._events.clear()
        else:
            self._events.pop(event, None)


default_registry = HookRegistry()
register_hook = default_registry.register_hook
