"""The MCP server the reference host discovers its tools from, in the same process.

It is a real MCP server in front of the harness-owned tool listing (`ports.mcp`): every tool the
run knows of — the scenario's admitted tools, the host's control catalogue and the tools admitted
to other scopes of the run — so the host's admission has something to refuse. It answers
`tools/list` page by page as the listing pages it (`nextCursor` until the last page), each tool
with its name, description and input schema exactly as recorded; it declares the
`tools.listChanged` capability, and when the listing changes mid-request it sends
`notifications/tools/list_changed` to the connected client.

It is built on the SDK's low-level `Server` rather than `MCPServer` (mcp 2's name for FastMCP):
`MCPServer` derives every input schema from a Python function's signature, and the recorded
schemas (`additionalProperties`, `enum`, `pattern`, nested objects) are the contract itself.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Sequence
from typing import Any, Protocol

from mcp import types
from mcp.server import Server
from mcp.server.lowlevel.server import NotificationOptions
from mcp.server.session import ServerSession

from toolsurface import ToolDescriptor

#: What the server answers to a `tools/call`: the harness checks requests, it runs no tools.
OFFLINE = "this in-process server runs no tools: it only lists them"


class Page(Protocol):
    @property
    def tools(self) -> Sequence[ToolDescriptor]: ...
    @property
    def next_cursor(self) -> str | None: ...


class Listing(Protocol):
    """What the server serves from: `ports.mcp` under toolsurface."""

    def list_tools(self, cursor: str | None = None) -> Page: ...
    def subscribe(self, listener: Callable[[], None]) -> None: ...


class ListingServer(Server[Any]):
    """A low-level server that declares `tools.listChanged`: its clients may expect notifications."""

    def create_initialization_options(
        self, notification_options: NotificationOptions | None = None, *args: Any, **kwargs: Any
    ) -> Any:
        options = notification_options or NotificationOptions(tools_changed=True)
        return super().create_initialization_options(options, *args, **kwargs)


def build_server(listing: Listing, name: str = "market-data") -> Server[Any]:
    """A low-level MCP server whose `tools/list` pages through `listing`, and that notifies its
    client of each change to it."""
    #: The session of the client that last listed (each request the host makes opens one); the SDK
    #: hands each request a session object of its own, so it is kept by the latest, not collected.
    client: list[ServerSession] = []
    sending: set[asyncio.Task[None]] = set()

    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        client[:] = [ctx.session]
        page = listing.list_tools(params.cursor if params else None)
        # Fresh schema dicts on every listing (`input_schema` decodes the recorded bytes anew):
        # nothing a client does to one listing can reach the next.
        tools = [types.Tool(name=d.name, description=d.description, input_schema=d.input_schema) for d in page.tools]
        return types.ListToolsResult(tools=tools, next_cursor=page.next_cursor)

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        return types.CallToolResult(content=[types.TextContent(type="text", text=OFFLINE)], is_error=True)

    def changed() -> None:
        # Told synchronously, from inside the host's own event loop: the notification goes out as a task.
        for session in client:
            task = asyncio.get_running_loop().create_task(session.send_tool_list_changed())
            sending.add(task)
            task.add_done_callback(_sent)

    def _sent(task: asyncio.Task[None]) -> None:
        sending.discard(task)
        if not task.cancelled():
            task.exception()  # a client that hung up before hearing of a change: nothing to tell it

    listing.subscribe(changed)
    return ListingServer(name, on_list_tools=list_tools, on_call_tool=call_tool)
