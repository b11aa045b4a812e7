"""Interceptor classes the chain can be configured with."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any, Iterable, Sequence

from relay.context import TurnRequest
from relay.surface import assert_surface_parity, freeze_surface
from relay.tools import output_reader_spec, read_tool_output
from relay_mcp.schemas import strict_copy, strictify

log = logging.getLogger(__name__)

READER = read_tool_output
LONG_RESULT_CHARS = 12_000


class SurfacePin:
    """Refuses a turn whose tools no longer match the surface pinned at start-up."""

    __slots__ = ("_pinned", "agent")

    def __init__(self, pinned: Sequence[Any], agent: str | None = None) -> None:
        self._pinned = pinned
        self.agent = agent

    async def apply(self, request: TurnRequest) -> TurnRequest:
        if self.agent is None or request.agent_name == self.agent:
            assert_surface_parity(freeze_surface(request.tools), self._pinned)
        return request


class Paginator:
    """Offers the pager when a tool result in the conversation is too long to keep."""

    def __init__(self, max_chars: int = LONG_RESULT_CHARS) -> None:
        self.max_chars = max_chars

    def _has_long_result(self, request: TurnRequest) -> bool:
        return any(
            m.get("role") == "tool" and len(str(m.get("content", ""))) > self.max_chars
            for m in request.messages
        )

    async def apply(self, request: TurnRequest) -> TurnRequest:
        if self._has_long_result(request) and READER.name not in request.tool_names():
            request.tools += [READER]
        return request


class PagerOffer:
    """Offers the pager on turns that follow a truncated tool result."""

    async def before_turn(self, request: TurnRequest) -> TurnRequest:
        if request.state.get("truncated_calls"):
            request.tools = [*request.tools, output_reader_spec()]
        return request


class SchemaPruner:
    """Hides internal arguments (tenant ids, trace flags) from the model."""

    def __init__(self, hidden: Iterable[str] = ("tenant_id", "trace")) -> None:
        self.hidden = tuple(hidden)

    async def apply(self, request: TurnRequest) -> TurnRequest:
        for tool in request.tools:
            props = tool.params_json_schema.get("properties", {})
            for key in self.hidden:
                props.pop(key, None)
            if req := tool.params_json_schema.get("required"):
                tool.params_json_schema["required"] = [r for r in req if r not in self.hidden]
        return request


class StrictArgs:
    """Turns on strict argument validation for providers that support it."""

    def __init__(self, providers: Iterable[str] = ("openai",)) -> None:
        self.providers = set(providers)

    async def before_turn(self, request: TurnRequest) -> TurnRequest:
        if request.state.get("provider", "openai") in self.providers:
            for tool in request.tools:
                if tool.strict:
                    strictify(tool.params_json_schema)
        return request


class StrictCopies(StrictArgs):
    """Like StrictArgs, but swaps in strict copies instead of touching the tools."""

    async def before_turn(self, request: TurnRequest) -> TurnRequest:
        if request.state.get("provider", "openai") in self.providers:
            request.tools = [
                replace(t, params_json_schema=strict_copy(t.params_json_schema)) if t.strict else t
                for t in request.tools
            ]
        return request
