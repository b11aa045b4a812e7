"""The tool catalogue: a server's list, fetched with ``tools/list``, cached and filtered.

The catalogue is refreshed when its entry is older than ``ttl`` or when the server sends
``notifications/tools/list_changed``. Raw listings are kept per server so that an operator
console can show what a server last said without asking it again.
"""

from __future__ import annotations

import asyncio
import copy
import logging
import time
from typing import Any, Iterable

from .mcp_client import McpClient
from .models import ToolSpec

log = logging.getLogger(__name__)

_LISTINGS: dict[str, list[dict[str, Any]]] = {}


class ToolCatalogue:
    """Specs of one MCP server's tools, refreshed on demand and on change notifications."""

    def __init__(self, client: McpClient, server: str, *, ttl: float = 300.0) -> None:
        self._client = client
        self._server = server
        self._ttl = ttl
        self._specs: list[ToolSpec] = []
        self._fetched_at = float("-inf")
        self._changed_at = float("-inf")
        self._lock = asyncio.Lock()
        client.on_list_changed(self.invalidate)

    @property
    def server(self) -> str:
        return self._server

    async def invalidate(self) -> None:
        """Forget the cached specs; the next read lists the server's tools again."""
        self._fetched_at = float("-inf")
        self._changed_at = time.monotonic()
        log.info("%s: catalogue invalidated", self._server)

    def changed_since(self, moment: float) -> bool:
        """Whether the server reported a changed list after ``moment`` (a monotonic time)."""
        return self._changed_at > moment

    async def refresh(self) -> list[ToolSpec]:
        """List the server's tools again and replace the cached specs."""
        async with self._lock:
            listing = await self._client.list_tools()
            _LISTINGS[self._server] = listing
            self._specs = [ToolSpec.from_listing(item) for item in listing]
            self._fetched_at = time.monotonic()
            log.info("%s: %d tools listed", self._server, len(self._specs))
            return list(self._specs)

    async def current(self) -> list[ToolSpec]:
        """The cached specs, refreshed first when they are older than the ttl."""
        if time.monotonic() - self._fetched_at > self._ttl:
            return await self.refresh()
        return list(self._specs)

    async def granted(self, names: Iterable[str]) -> list[ToolSpec]:
        """The specs named by a grant, in the grant's order; unknown names are logged."""
        wanted = list(names)
        by_name = {spec.name: spec for spec in await self.current()}
        missing = [name for name in wanted if name not in by_name]
        if missing:
            log.warning("%s: grant names tools the server does not list: %s", self._server, missing)
        return [by_name[name] for name in wanted if name in by_name]


def cached_listing(server: str) -> list[dict[str, Any]] | None:
    """A copy of what ``server`` last listed, or None if it was never listed."""
    listing = _LISTINGS.get(server)
    return copy.deepcopy(listing) if listing is not None else None

