"""MCP client side of relay: sessions, server proxies and the tool catalogue."""

from relay_mcp.catalog import ToolCatalog, rank_by_relevance, render_names
from relay_mcp.provider import MCPToolProvider
from relay_mcp.proxy import MCPServerProxy
from relay_mcp.schemas import clone_schema, strictify
from relay_mcp.session import MCPSession

__all__ = [
    "MCPServerProxy",
    "MCPSession",
    "MCPToolProvider",
    "ToolCatalog",
    "clone_schema",
    "rank_by_relevance",
    "render_names",
    "strictify",
]
