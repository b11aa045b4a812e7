"""A minimal MCP client session over a JSON-RPC stream."""

from __future__ import annotations

import asyncio
import itertools
import json
from collections import deque
from contextlib import AsyncExitStack
from dataclasses import dataclass, field
from typing import Any, Awaitable, Callable, Protocol


class Stream(Protocol):
    async def send(self, data: bytes) -> None: ...

    async def receive(self) -> bytes: ...

    async def aclose(self) -> None: ...


@dataclass(slots=True)
class CallRecord:
    tool: str
    ok: bool
    elapsed_ms: float
    result_chars: int = 0


@dataclass
class MCPSession:
    """One connection to one MCP server."""

    server: str
    open_stream: Callable[[], Awaitable[Stream]]
    _stream: Stream | None = None
    _ids: Any = field(default_factory=lambda: itertools.count(1))
    _pending: dict[int, asyncio.Future[Any]] = field(default_factory=dict)
    _calls: deque[CallRecord] = field(default_factory=lambda: deque(maxlen=200))
    _stack: AsyncExitStack = field(default_factory=AsyncExitStack)

    async def __aenter__(self) -> "MCPSession":
        self._stream = await self.open_stream()
        self._stack.push_async_callback(self._stream.aclose)
        reader = asyncio.create_task(self._read_loop())
        self._stack.callback(reader.cancel)
        await self.send_request("initialize", {"protocolVersion": "2025-06-18", "capabilities": {}})
        return self

    async def __aexit__(self, *exc: Any) -> None:
        await self._stack.aclose()

    async def _read_loop(self) -> None:
        assert self._stream is not None
        while True:
            message = json.loads(await self._stream.receive())
            fut = self._pending.pop(message.get("id"), None)
            if fut is not None and not fut.done():
                if "error" in message:
                    fut.set_exception(RuntimeError(message["error"].get("message", "MCP error")))
                else:
                    fut.set_result(message.get("result"))

    async def send_request(self, method: str, params: dict[str, Any] | None = None) -> Any:
        assert self._stream is not None, "session not entered"
        rid = next(self._ids)
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[rid] = fut
        payload = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}
        await self._stream.send(json.dumps(payload).encode())
        return await fut

    async def list_tools(self) -> list[dict[str, Any]]:
        listed: list[dict[str, Any]] = []
        cursor = None
        while True:
            page = await self.send_request("tools/list", {"cursor": cursor} if cursor else {})
            listed.extend(page.get("tools", []))
            if not (cursor := page.get("nextCursor")):
                return listed

    async def call_tool(self, name: str, arguments: dict[str, Any]) -> dict[str, Any]:
        loop = asyncio.get_running_loop()
        started = loop.time()
        try:
            result = await self.send_request("tools/call", {"name": name, "arguments": arguments})
        except RuntimeError:
            self._calls.append(CallRecord(name, False, (loop.time() - started) * 1000))
            raise
        text = "".join(c.get("text", "") for c in result.get("content", []))
        self._calls.append(CallRecord(name, not result.get("isError"), (loop.time() - started) * 1000, len(text)))
        return result

    def recent_calls(self) -> list[CallRecord]:
        return list(self._calls)
