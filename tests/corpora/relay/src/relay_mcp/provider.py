"""Tool providers backed by MCP servers."""

from __future__ import annotations

import asyncio
import logging
from contextlib import AsyncExitStack
from typing import Any, Sequence

from relay.tools import FunctionTool
from relay_mcp.catalog import ToolCatalog
from relay_mcp.proxy import MCPServerProxy
from relay_mcp.schemas import coerce_schema
from relay_mcp.session import MCPSession

log = logging.getLogger(__name__)


class MCPToolProvider:
    """Aggregates several MCP servers into one ToolProvider."""

    def __init__(self, name: str, sessions: Sequence[MCPSession], *, prefix_servers: bool = True) -> None:
        self.name = name
        self._proxies = [
            MCPServerProxy(s, prefix=f"{s.server}__" if prefix_servers else "") for s in sessions
        ]
        self._stack = AsyncExitStack()
        self._tools: list[FunctionTool] = []
        self._overrides: dict[str, dict[str, Any]] = {}
        self.catalog = ToolCatalog()

    async def __aenter__(self) -> "MCPToolProvider":
        for proxy in self._proxies:
            await self._stack.enter_async_context(proxy.session)
        await self.refresh()
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.aclose()

    def attach(self, name: str, schema: Any) -> None:
        """Use ``schema`` for tool ``name`` instead of what its server lists."""
        self._overrides[name] = coerce_schema(schema)

    async def refresh(self) -> None:
        batches = await asyncio.gather(*(p.list_tools() for p in self._proxies))
        fresh: list[FunctionTool] = []
        for proxy, batch in zip(self._proxies, batches):
            for name, override in self._overrides.items():
                proxy.register_schema(name.removeprefix(proxy.prefix), override)
            self.catalog.remember(proxy.server, batch)
            fresh.extend(batch)
        self._tools = fresh
        self.catalog = ToolCatalog(fresh)

    def listing(self) -> list[FunctionTool]:
        return self._tools

    def current(self) -> list[FunctionTool]:
        return list(self._tools)

    async def tools_for(self, agent_name: str) -> list[FunctionTool]:
        return self.current()
