"""The toolsurface target for the reference MCP host: `guarded()` and `unguarded()`, for OpenAI
(the default) and Anthropic.

    toolsurface run --target mcp-host:guarded
    toolsurface run --target mcp-host:unguarded-anthropic

Per case it builds the in-process MCP server in front of `ports.mcp` (the harness-owned listing:
paged, and changing mid-request where the scenario or the case says so), wires the host to the
harness-owned ports (the request owner's ledger, the owner-fact feed, the publication store,
`ports.inject` at every stage boundary), and gives the SDK an HTTP client whose transport is
`GatewayTransport`: it parses the body the SDK serialised, hands its tools and messages to
`ports.gateway.dispatch`, and answers with a well-formed provider response, carrying the tool
calls the recorded model made next, if any. The host runs those through `ports.tool_result`,
which gives each call's recorded result. Nothing else is a way out: a refused request never
reaches the transport.
"""

from __future__ import annotations

import json
from typing import Any, ClassVar

import httpx2

from toolsurface import CapacityExceeded, Ports, RequestRefused, Scenario

from .host import (
    PROVIDERS,
    REQUEST_HEADER,
    McpHost,
    Services,
    ToolCall,
    ToolRunner,
    Turn,
    trace_annotations,
)
from .server import build_server


class OpenAIWire:
    """What a Chat Completions request carries, and a completion that answers it."""

    path: ClassVar[str] = "/v1/chat/completions"

    @staticmethod
    def received(body: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        return list(body.get("tools", [])), list(body.get("messages", []))

    @staticmethod
    def reply(body: dict[str, Any], tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
        message: dict[str, Any] = {"role": "assistant", "content": "Recorded by the offline gateway."}
        if tool_calls:
            calls = [
                {
                    "id": c["id"],
                    "type": "function",
                    "function": {"name": c["name"], "arguments": json.dumps(c["arguments"])},
                }
                for c in tool_calls
            ]
            message = {"role": "assistant", "content": None, "tool_calls": calls}
        return {
            "id": "chatcmpl-offline",
            "object": "chat.completion",
            "created": 0,
            "model": body.get("model", ""),
            "choices": [
                {
                    "index": 0,
                    "finish_reason": "tool_calls" if tool_calls else "stop",
                    "message": message,
                    "logprobs": None,
                }
            ],
            "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
        }


class AnthropicWire:
    """What a Messages request carries (system blocks first, as messages), and a message that answers it."""

    path: ClassVar[str] = "/v1/messages"

    @staticmethod
    def received(body: dict[str, Any]) -> tuple[list[Any], list[Any]]:
        system = body.get("system", [])
        blocks = [{"type": "text", "text": system}] if isinstance(system, str) else system
        leading = [{"role": "system", "content": block.get("text", "")} for block in blocks]
        return list(body.get("tools", [])), leading + list(body.get("messages", []))

    @staticmethod
    def reply(body: dict[str, Any], tool_calls: list[dict[str, Any]]) -> dict[str, Any]:
        content = [{"type": "tool_use", "id": c["id"], "name": c["name"], "input": c["arguments"]} for c in tool_calls]
        return {
            "id": "msg_offline",
            "type": "message",
            "role": "assistant",
            "model": body.get("model", ""),
            "content": content or [{"type": "text", "text": "Recorded by the offline gateway."}],
            "stop_reason": "tool_use" if tool_calls else "end_turn",
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }


WIRES: dict[str, Any] = {"openai": OpenAIWire, "anthropic": AnthropicWire}


class GatewayTransport(httpx2.AsyncBaseTransport):
    """The SDK's only way out: each request it sends goes to the harness gateway, never a socket."""

    def __init__(self, gateway: Any, wire: Any) -> None:
        self.gateway = gateway
        self.wire = wire
        #: Every HTTP request that reached this transport, as (method, path, parsed body).
        self.requests: list[tuple[str, str, Any]] = []

    async def handle_async_request(self, request: httpx2.Request) -> httpx2.Response:
        body = json.loads(await request.aread() or b"null")
        self.requests.append((request.method, request.url.path, body))
        if request.method != "POST" or request.url.path != self.wire.path or not isinstance(body, dict):
            return httpx2.Response(
                404, json={"error": {"type": "not_found", "message": f"no route {request.url.path}"}}
            )
        tools, messages = self.wire.received(body)
        # The gateway's reply carries the recorded model's next tool calls while the recording goes on.
        reply = self.gateway.dispatch(request.headers[REQUEST_HEADER], tools, messages)
        return httpx2.Response(200, json=self.wire.reply(body, reply.get("tool_calls", [])))


class McpHostTarget:
    """A toolsurface target (`toolsurface.Target`) around `McpHost`."""

    refusals: ClassVar[tuple[type[BaseException], ...]] = (RequestRefused,)
    capacity_results: ClassVar[tuple[type[BaseException], ...]] = (CapacityExceeded,)
    #: The host it runs: a subclass of `McpHost` with a flaw of its own runs through the same wiring.
    host: ClassVar[type[McpHost]] = McpHost

    def __init__(self, provider: str = "openai", guarded: bool = True) -> None:
        if provider not in PROVIDERS:
            raise ValueError(f"{provider=} must be one of {', '.join(PROVIDERS)}")
        self.provider = provider
        self.guarded = guarded
        #: The shape of the live tools the host hands to `ports.inject`: the provider's.
        self.tool_format = PROVIDERS[provider]().tool_format
        self.name = f"mcp-host:{'guarded' if guarded else 'unguarded'}:{provider}"
        #: The transport of the latest run, so a test can count what reached it.
        self.last_transport: GatewayTransport | None = None

    async def run(self, scenario: Scenario, ports: Ports) -> str:
        transport = GatewayTransport(ports.gateway, WIRES[self.provider])
        self.last_transport = transport
        async with httpx2.AsyncClient(transport=transport) as http:
            services = Services(
                mcp_server=build_server(ports.mcp),
                ledger=ports.ledger(scenario.lane),
                facts=ports.facts.current,
                publications=ports.publications,
                http=http,
                run_tool=recorded_tools(ports),
                boundary=ports.inject,
            )
            hooks = (trace_annotations,) if scenario.hooks else ()
            host = self.host(PROVIDERS[self.provider](), services, self.guarded, hooks)
            return await host.send(Turn.of(scenario))


def recorded_tools(ports: Ports) -> ToolRunner:
    """The host's tool execution under toolsurface: each tool call gives the result the recording holds."""

    async def run_tool(call: ToolCall) -> str:
        return ports.tool_result(call.id)

    return run_tool


def guarded() -> McpHostTarget:
    """The MCP host with its guard, sending through the OpenAI SDK."""
    return McpHostTarget("openai", guarded=True)


def unguarded() -> McpHostTarget:
    """The same host with the guard removed, sending through the OpenAI SDK."""
    return McpHostTarget("openai", guarded=False)


def guarded_anthropic() -> McpHostTarget:
    return McpHostTarget("anthropic", guarded=True)


def unguarded_anthropic() -> McpHostTarget:
    return McpHostTarget("anthropic", guarded=False)
