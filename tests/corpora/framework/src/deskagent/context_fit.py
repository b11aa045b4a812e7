"""Fitting a request into the model's context window and tool limit."""

from __future__ import annotations

import json
import logging
from typing import Any

from agentcore import CapacityExceeded, Message, ModelRequest, ToolDef

from .ranking import fill_budget

log = logging.getLogger(__name__)


def estimate_tokens(payload: Any) -> int:
    """Four bytes of JSON a token, rounded up."""
    return len(json.dumps(payload, ensure_ascii=False).encode()) // 4 + 1


def estimate_tool(definition: ToolDef) -> int:
    return estimate_tokens(definition.model_dump())


def estimate_messages(messages: list[Message]) -> int:
    return sum(estimate_tokens({"role": m.role, "content": m.content}) for m in messages)


def compress(messages: list[Message], keep_last: int = 12) -> list[Message]:
    """Keep the system prompt and the last turns; fold the middle into one note."""
    if len(messages) <= keep_last + 1:
        return list(messages)
    head, middle, tail = messages[:1], messages[1:-keep_last], messages[-keep_last:]
    note = Message(role="system", content=f"[{len(middle)} earlier messages summarised]")
    return [*head, note, *tail]


class ContextFitter:
    """Compresses the messages; a request whose tools do not fit ends in ``CapacityExceeded``."""

    def __init__(self, *, max_tools: int, budget_tokens: int) -> None:
        self.max_tools = max_tools
        self.budget_tokens = budget_tokens

    def fit(self, request: ModelRequest) -> ModelRequest:
        messages = compress(request.messages)
        used = estimate_messages(messages)
        for definition in request.tools:
            used += estimate_tool(definition)
            if used > self.budget_tokens:
                raise CapacityExceeded(f"tools need more than {self.budget_tokens} tokens with the messages")
        if len(request.tools) > self.max_tools:
            raise CapacityExceeded(f"{len(request.tools)} tools for max_tools {self.max_tools}")
        log.info("fitted %d tools (%s, ...)", len(request.tools), ", ".join(t.name for t in request.tools[:5]))
        request.messages = messages
        return request


class LegacyFitter(ContextFitter):
    """The fitter the batch lane used before capacity results existed."""

    def fit(self, request: ModelRequest) -> ModelRequest:
        request.messages = compress(request.messages)
        if len(request.tools) > self.max_tools:
            log.info("trimming %d tools to the provider limit of %d", len(request.tools), self.max_tools)
            request.tools = request.tools[: self.max_tools]
        return request


class BudgetFitter(ContextFitter):
    """Fits the tools into what the token budget leaves after the messages."""

    def fit(self, request: ModelRequest) -> ModelRequest:
        messages = compress(request.messages)
        room = self.budget_tokens - estimate_messages(messages)
        request.tools = fill_budget(request.tools, room, estimate_tool)
        request.messages = messages
        return request
