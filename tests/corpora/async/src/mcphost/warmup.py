"""Prompt-cache warming: the admitted tool block sent ahead of a run's first real call."""

from __future__ import annotations

import functools
import logging
import time
from typing import Any

from .requests import ModelRequest
from .sealing import seal
from .session import HostSession

log = logging.getLogger(__name__)


class CacheWarmer:
    """Primes the provider's prompt cache with the tool block the run's calls will start with."""

    def __init__(self, session: HostSession, *, ttl: float = 240.0) -> None:
        self._session = session
        self._ttl = ttl
        self._prime = functools.partial(session.transport.send, timeout=10.0)
        self._defs: list[dict[str, Any]] = []
        self._warmed_at = float("-inf")

    def remember(self, defs: list[dict[str, Any]]) -> None:
        """Keep the admitted definitions to warm the cache with."""
        self._defs = defs
        self._warmed_at = float("-inf")

    async def warm(self, invocation: str) -> bool:
        """Send a one-token request carrying the tool block, unless the cache is still warm."""
        if not self._defs or time.monotonic() - self._warmed_at < self._ttl:
            return False
        lane = self._session.lanes.primary
        request = ModelRequest(
            run_id=self._session.run_id,
            lane=f"{lane.name}:warmup",
            invocation=invocation,
            scope=self._session.scope,
            fmt=self._session.settings.lanes[0].fmt,
            messages=[{"role": "user", "content": "."}],
            tools=self._defs,
            metadata={"max_tokens": 1},
        )
        sealed = seal(request)
        await self._prime(sealed)
        self._warmed_at = time.monotonic()
        log.info("warmed %s with %d tools", lane.name, len(self._defs))
        return True
