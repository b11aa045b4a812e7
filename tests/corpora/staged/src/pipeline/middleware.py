"""Callable middleware objects the runner attaches to the hook bus."""

from __future__ import annotations

import logging
from typing import Any, Iterable, Mapping

from support.parity import verify_surface_parity

from .admission import BASELINES
from .request import ModelRequest

logger = logging.getLogger(__name__)


class ResultPagerMiddleware:
    """Offers the result pager when the transcript holds tool output that was cut."""

    def __init__(self, threshold_chars: int = 8_000) -> None:
        self.threshold_chars = threshold_chars

    def _has_long_results(self, messages: Iterable[Mapping[str, Any]]) -> bool:
        for message in messages:
            if message.get("role") == "tool" and len(str(message.get("content", ""))) >= self.threshold_chars:
                return True
        return False

    def __call__(self, request: ModelRequest) -> None:
        if not self._has_long_results(request.messages):
            return
        pager = {
            "name": "read_tool_result",
            "description": "Read the rest of a tool result that was cut.",
            "input_schema": {"type": "object", "properties": {"result_id": {"type": "string"}}, "required": ["result_id"]},
        }
        request.tools = [*request.tools, pager]


class DescriptionTrimmer:
    """Caps property descriptions so schemas stay within provider limits."""

    def __init__(self, limit: int = 1024) -> None:
        self.limit = limit

    def __call__(self, request: ModelRequest) -> None:
        for tool in request.tools:
            properties = (tool.get("input_schema") or {}).get("properties") or {}
            for prop in properties.values():
                text = prop.get("description")
                if isinstance(text, str) and len(text) > self.limit:
                    prop["description"] = text[: self.limit]


class ParityInterceptor:
    """Refuses a request whose tools moved since admission."""

    def __call__(self, request: ModelRequest) -> None:
        baseline = BASELINES.lookup(request.request_id)
        verify_surface_parity(request.tools, baseline)


class ControlPresenceAudit:
    """Logs whether the result pager is on offer; never changes the request."""

    def __call__(self, request: ModelRequest) -> None:
        offered = [tool for tool in request.tools if tool.get("name") == "read_tool_result"]
        logger.info("request %s offers the result pager: %s", request.request_id, bool(offered))
