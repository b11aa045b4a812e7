"""A small MCP client: JSON-RPC over a server's stdio, paged tool listing, tool calls."""

from __future__ import annotations

import asyncio
import itertools
import json
import logging
from asyncio.subprocess import PIPE
from contextlib import asynccontextmanager
from typing import Any, AsyncIterator, Awaitable, Callable, Mapping, Protocol

log = logging.getLogger(__name__)

ListChanged = Callable[[], Awaitable[None]]
NotificationHandler = Callable[[dict[str, Any]], Awaitable[None]]

_LEVELS = {"info": logging.INFO, "notice": logging.INFO, "warning": logging.WARNING, "error": logging.ERROR}
PROTOCOL_VERSION = "2025-06-18"


class McpError(RuntimeError):
    """The server answered with a JSON-RPC error, or broke its protocol."""


class RpcChannel(Protocol):
    async def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]: ...


class StdioChannel:
    """JSON-RPC over a server process's stdin and stdout, one message a line."""

    def __init__(self, process: asyncio.subprocess.Process, on_notification: NotificationHandler | None = None) -> None:
        self._process = process
        self._ids = itertools.count(1)
        self._pending: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self._on_notification = on_notification
        self._reader: asyncio.Task[None] | None = None

    def start(self) -> None:
        self._reader = asyncio.create_task(self._read_loop(), name="mcp-stdio-reader")

    async def request(self, method: str, params: Mapping[str, Any]) -> dict[str, Any]:
        request_id = next(self._ids)
        future: asyncio.Future[dict[str, Any]] = asyncio.get_running_loop().create_future()
        self._pending[request_id] = future
        line = json.dumps({"jsonrpc": "2.0", "id": request_id, "method": method, "params": dict(params)})
        if self._process.stdin is None:
            raise McpError("server process has no stdin")
        self._process.stdin.write(line.encode("utf-8") + b"\n")
        await self._process.stdin.drain()
        return await future

    async def _read_loop(self) -> None:
        if self._process.stdout is None:
            return
        async for raw in self._process.stdout:
            try:
                message = json.loads(raw)
            except json.JSONDecodeError:
                log.warning("ignoring a line that is not JSON: %r", raw[:200])
                continue
            match message:
                case {"id": int(request_id), "result": dict(result)}:
                    self._resolve(request_id, result=result)
                case {"id": int(request_id), "error": dict(error)}:
                    self._resolve(request_id, error=error)
                case {"method": str()} if self._on_notification is not None:
                    await self._on_notification(message)
                case _:
                    log.info("unhandled message: %s", message)

    def _resolve(self, request_id: int, *, result: dict[str, Any] | None = None, error: dict[str, Any] | None = None) -> None:
        future = self._pending.pop(request_id, None)
        if future is None or future.done():
            return
        if error is not None:
            future.set_exception(McpError(f"{error.get('code')}: {error.get('message')}"))
        else:
            future.set_result(result or {})

    async def aclose(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
        for future in self._pending.values():
            if not future.done():
                future.set_exception(McpError("channel closed"))
        if self._process.returncode is None:
            self._process.terminate()
            await self._process.wait()


class McpClient:
    """Lists and calls one server's tools."""

    def __init__(self, channel: RpcChannel, *, server: str, max_pages: int = 64) -> None:
        self._channel = channel
        self.server = server
        self._max_pages = max_pages
        self._listeners: list[ListChanged] = []

    async def initialize(self) -> dict[str, Any]:
        return await self._channel.request(
            "initialize",
            {"protocolVersion": PROTOCOL_VERSION, "capabilities": {}, "clientInfo": {"name": "mcphost", "version": "2.4"}},
        )

    async def list_tools(self) -> list[dict[str, Any]]:
        """Every tool the server lists, following ``nextCursor`` to the last page."""
        listing: list[dict[str, Any]] = []
        cursor: str | None = None
        for page_number in range(1, self._max_pages + 1):
            page = await self._channel.request("tools/list", {"cursor": cursor} if cursor else {})
            listing.extend(page.get("tools", []))
            cursor = page.get("nextCursor")
            if not cursor:
                log.info("%s: %d tools in %d pages", self.server, len(listing), page_number)
                return listing
        raise McpError(f"{self.server}: tools/list still paging after {self._max_pages} pages")

    async def call_tool(self, name: str, arguments: Mapping[str, Any]) -> dict[str, Any]:
        return await self._channel.request("tools/call", {"name": name, "arguments": dict(arguments)})

    def on_list_changed(self, listener: ListChanged) -> None:
        """Call ``listener`` whenever the server says its tool list changed."""
        self._listeners.append(listener)

    async def handle_notification(self, message: Mapping[str, Any]) -> None:
        match message:
            case {"method": "notifications/tools/list_changed"}:
                log.info("%s: tool list changed", self.server)
                await asyncio.gather(*(listener() for listener in self._listeners))
            case {"method": "notifications/message", "params": {"level": str(level), "data": data}}:
                log.log(_LEVELS.get(level, logging.INFO), "%s: %s", self.server, data)
            case _:
                log.info("%s: ignored notification %s", self.server, message.get("method"))


@asynccontextmanager
async def connect_stdio(command: list[str]) -> AsyncIterator[McpClient]:
    """Start a server process and yield a client talking to it; the process ends with the block."""
    process = await asyncio.create_subprocess_exec(*command, stdin=PIPE, stdout=PIPE)
    clients: list[McpClient] = []

    async def forward(message: dict[str, Any]) -> None:
        for client in clients:
            await client.handle_notification(message)

    channel = StdioChannel(process, on_notification=forward)
    channel.start()
    client = McpClient(channel, server=command[0])
    clients.append(client)
    try:
        await client.initialize()
        yield client
    finally:
        await channel.aclose()
