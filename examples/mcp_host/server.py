"""The MCP server the reference host discovers its tools from, in the same process.

It serves every tool the run knows of — the scenario's admitted tools, the host's control
catalogue and the tools admitted to other scopes of the run — so the host's admission has
something to refuse. Each tool goes out with its name, description and input schema exactly as
recorded.

It is built on the SDK's low-level `Server` rather than `MCPServer` (mcp 2's name for FastMCP):
`MCPServer` derives every input schema from a Python function's signature, and the recorded
schemas (`additionalProperties`, `enum`, `pattern`, nested objects) are the contract itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from mcp import types
from mcp.server import Server

from toolsurface import Contract, ToolDescriptor

#: What the server answers to a `tools/call`: the harness checks requests, it runs no tools.
OFFLINE = "this in-process server runs no tools: it only lists them"


def catalogue(contract: Contract) -> tuple[ToolDescriptor, ...]:
    """Everything the server lists for a contract, in recorded order, each name once."""
    seen: set[str] = set()
    listed = []
    for descriptor in (*contract.admitted, *contract.controls, *contract.admitted_elsewhere):
        if descriptor.name not in seen:
            seen.add(descriptor.name)
            listed.append(descriptor)
    return tuple(listed)


def build_server(descriptors: Iterable[ToolDescriptor], name: str = "market-data") -> Server[Any]:
    """A low-level MCP server whose `tools/list` returns these descriptors as recorded."""
    descriptors = tuple(descriptors)

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        # Fresh schema dicts on every listing (`input_schema` decodes the recorded bytes anew):
        # nothing a client does to one listing can reach the next.
        return types.ListToolsResult(
            tools=[types.Tool(name=d.name, description=d.description, input_schema=d.input_schema) for d in descriptors]
        )

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=OFFLINE)], is_error=True)

    return Server(name, on_list_tools=list_tools, on_call_tool=call_tool)


def serve(contract: Contract) -> Server[Any]:
    """The server for one scenario's run."""
    return build_server(catalogue(contract))
