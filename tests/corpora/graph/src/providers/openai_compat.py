"""Adapter for OpenAI-compatible chat-completion endpoints."""

from __future__ import annotations

import json
from typing import Any, Mapping, Sequence

from pydantic import BaseModel

from graphhost.models import CallRequest, CallResult, Message, ToolCall, ToolSpec, Usage
from graphhost.util import first_n

from . import schema_utils as su
from .base import BaseAdapter, BindingBase

MAX_FUNCTIONS = 128


class FunctionDef(BaseModel):
    name: str
    description: str = ""
    parameters: dict[str, Any]
    strict: bool = False


def to_function(name: str, description: str, schema: dict[str, Any]) -> FunctionDef:
    return FunctionDef(name=name, description=description, parameters=schema)


class OpenAIBinding(BindingBase):
    def for_model(self, model: str) -> "OpenAIBinding":
        return OpenAIBinding(self.toolset, model)

    def functions(self) -> list[dict[str, Any]]:
        return [{"type": "function", "function": to_function(s.name, s.description, s.input_schema).model_dump()}
                for s in self.toolset]


def _message(m: Message) -> dict[str, Any]:
    if m.role == "tool":
        return {"role": "tool", "tool_call_id": m.metadata.get("call_id"), "content": json.dumps(m.content)}
    return {"role": m.role, "content": m.content if isinstance(m.content, str) else json.dumps(m.content)}


class OpenAIAdapter(BaseAdapter):
    name = "openai"

    def encode(self, request: CallRequest) -> dict[str, Any]:
        functions = []
        for spec in first_n(request.tools, MAX_FUNCTIONS):
            params = su.inline_defs(su.detached(spec.input_schema))
            functions.append({"type": "function",
                              "function": to_function(spec.name, spec.description, params).model_dump()})
        history = request.messages[-self.settings.history_window:]
        return {"model": request.model, "messages": [_message(m) for m in history], "tools": functions}

    def decode(self, raw: Mapping[str, Any]) -> CallResult:
        choice = raw["choices"][0]["message"]
        calls = [ToolCall(id=c["id"], name=c["function"]["name"], arguments=json.loads(c["function"]["arguments"]))
                 for c in choice.get("tool_calls") or []]
        usage = raw.get("usage", {})
        return CallResult(
            message=Message(role="assistant", content=choice.get("content"),
                            metadata={"provider_attempt": raw.get("_attempt", 1)}),
            usage=Usage(input_tokens=usage.get("prompt_tokens", 0), output_tokens=usage.get("completion_tokens", 0)),
            tool_calls=calls,
        )

    async def complete(self, request: CallRequest, baseline: Sequence[ToolSpec]) -> CallResult:
        self._preflight(request, baseline)
        payload = self.encode(request)
        raw = await self.gateway.invoke(payload, route="openai")
        return self.decode(raw)
