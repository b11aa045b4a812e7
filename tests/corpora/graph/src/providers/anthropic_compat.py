"""Adapter for Anthropic-style messages endpoints."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from graphhost.models import CallRequest, CallResult, Message, ToolCall, ToolSpec, Usage

from . import schema_utils as su
from .base import BaseAdapter, LaneBase


class AnthropicLane(LaneBase):
    def reroute(self, route: str) -> "AnthropicLane":
        return AnthropicLane(self.tools, route)


class AnthropicAdapter(BaseAdapter):
    name = "anthropic"

    def __init__(self, gateway, settings) -> None:
        super().__init__(gateway, settings)
        self._rendered: dict[str, dict[str, Any]] = {}

    def remember_schema(self, spec: ToolSpec) -> dict[str, Any]:
        """The sanitised schema of a tool, rendered once per name."""
        if spec.name not in self._rendered:
            self._rendered[spec.name] = su.sanitize(spec.input_schema)
        return self._rendered[spec.name]

    def render_tools(self, tools: Sequence[ToolSpec]) -> list[dict[str, Any]]:
        rendered = []
        for spec in tools:
            su.strip_titles(spec.input_schema)
            schema = su.detached(self.remember_schema(spec))
            rendered.append({"name": spec.name, "description": spec.description, "input_schema": schema})
        return rendered

    def encode(self, request: CallRequest) -> dict[str, Any]:
        system = [m.content for m in request.messages if m.role == "system"]
        turns = [{"role": "user" if m.role == "tool" else m.role, "content": json.dumps(m.content)
                  if not isinstance(m.content, str) else m.content}
                 for m in request.messages if m.role != "system"]
        return {"model": request.model, "system": "\n\n".join(map(str, system)), "messages": turns,
                "tools": self.render_tools(request.tools), "max_tokens": 4096}

    def decode(self, raw: Mapping[str, Any]) -> CallResult:
        blocks = raw.get("content", [])
        text = "".join(b.get("text", "") for b in blocks if b.get("type") == "text")
        calls = [ToolCall(id=b["id"], name=b["name"], arguments=b.get("input", {}))
                 for b in blocks if b.get("type") == "tool_use"]
        usage = raw.get("usage", {})
        return CallResult(
            message=Message(role="assistant", content=text,
                            metadata={"provider_attempt": raw.get("_attempt", 1)}),
            usage=Usage(input_tokens=usage.get("input_tokens", 0), output_tokens=usage.get("output_tokens", 0)),
            tool_calls=calls,
        )

    async def complete(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> CallResult:
        self._final_check(request, baseline)
        payload = self.encode(request)
        raw = await self.gateway.invoke(payload, route="anthropic")
        return self.decode(raw)
