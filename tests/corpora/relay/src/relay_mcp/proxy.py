"""Proxies that expose the tools of MCP servers as FunctionTools."""

from __future__ import annotations

import functools
import logging
from typing import Any, Mapping

from relay.tools import FunctionTool
from relay_mcp import schemas as sch
from relay_mcp.session import MCPSession

log = logging.getLogger(__name__)


class MCPServerProxy:
    """Lists a server's tools and routes calls back to it."""

    def __init__(self, session: MCPSession, *, prefix: str = "", cache: bool = True) -> None:
        self.session = session
        self.prefix = prefix
        self.cache = cache
        self._schemas: dict[str, dict[str, Any]] = {}
        self._listed: list[FunctionTool] | None = None

    @property
    def server(self) -> str:
        return self.session.server

    def register_schema(self, name: str, schema: dict[str, Any]) -> None:
        """Override the argument schema the server advertises for ``name``."""
        self._schemas[name] = schema

    async def _invoke(self, remote_name: str, **arguments: Any) -> Any:
        result = await self.session.call_tool(remote_name, arguments)
        return result.get("structuredContent") or result.get("content")

    def to_function_tool(self, entry: Mapping[str, Any]) -> FunctionTool:
        remote = entry["name"]
        return FunctionTool(
            name=f"{self.prefix}{remote}",
            description=entry.get("description", ""),
            params_json_schema=sch.clone_schema(self._schemas.get(remote) or entry["inputSchema"]),
            on_invoke=functools.partial(self._invoke, remote),
            costly=bool((entry.get("annotations") or {}).get("costly")),
        )

    async def list_tools(self) -> list[FunctionTool]:
        if self.cache and self._listed is not None:
            return list(self._listed)
        listed = [self.to_function_tool(e) for e in await self.session.list_tools()]
        log.info("%s: %d tools", self.server, len(listed))
        self._listed = listed
        return list(listed)

    def sanitize(self, tools: list[FunctionTool]) -> list[FunctionTool]:
        """Strip keys some providers reject before the tools are offered."""
        for tool in tools:
            functools.reduce(sch.drop_key, sch.HIDDEN_KEYS, tool.params_json_schema)
        return tools
