"""Fitting a request into its lane's context window."""

from __future__ import annotations

import logging
from typing import Any, Sequence

from toolkit.tokens import total_tokens, within_budget

from .errors import CapacityExceeded
from .requests import ModelRequest

log = logging.getLogger(__name__)


class ContextFitter:
    """Compresses old messages to fit; a request whose tools do not fit is a capacity result."""

    def __init__(self, *, max_tools: int, budget_tokens: int, keep_messages: int = 24) -> None:
        self.max_tools = max_tools
        self.budget_tokens = budget_tokens
        self.keep_messages = keep_messages

    def _compress(self, messages: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
        """The first message (the capability summary) and the most recent ones."""
        if len(messages) <= self.keep_messages:
            return list(messages)
        head = list(messages[:1])
        tail = list(messages[-(self.keep_messages - 2):])
        omitted = len(messages) - len(head) - len(tail)
        return [*head, {"role": "user", "content": f"[{omitted} earlier messages omitted]"}, *tail]

    async def fit(self, request: ModelRequest) -> ModelRequest:
        messages = self._compress(request.messages)
        reason: str | None = None
        if len(request.tools) > self.max_tools:
            reason = f"{len(request.tools)} tools for max_tools {self.max_tools}"
        else:
            needed = total_tokens(request.tools) + total_tokens(messages)
            if needed > self.budget_tokens:
                reason = f"{needed} tokens for a budget of {self.budget_tokens}"
        if reason is not None:
            raise CapacityExceeded(request.lane, reason)
        return request.with_messages(messages)


class ChildContextFitter(ContextFitter):
    """Child lanes run on small models: they get the tools that fit rather than a capacity result."""

    async def fit(self, request: ModelRequest) -> ModelRequest:
        messages = self._compress(request.messages)
        if len(request.tools) > self.max_tools:
            log.info("%s: %d tools for a child lane of %d", request.lane, len(request.tools), self.max_tools)
            request.tools = request.tools[: self.max_tools]
        self._trim_to_budget(request, messages)
        return request.with_messages(messages)

    def _trim_to_budget(self, request: ModelRequest, messages: Sequence[dict[str, Any]]) -> None:
        room = self.budget_tokens - total_tokens(messages)
        before = len(request.tools)
        request.tools = within_budget(request.tools, room)
        if len(request.tools) < before:
            log.info("%s: %d of %d tools fit the child budget", request.lane, len(request.tools), before)
