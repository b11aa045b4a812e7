"""Stock interceptors shipped with the host.

Which of them a host runs is decided where the host is wired up (``mcphost.bootstrap``).
"""

from __future__ import annotations

import copy
import json
import logging
from typing import TYPE_CHECKING, Any, Mapping

from toolkit.shapes import described
from toolkit.wire import tool_name

if TYPE_CHECKING:
    from mcphost.requests import ModelRequest

log = logging.getLogger(__name__)

LONG_RESULT_CHARS = 16_000
_SHAPE_KEYS = ("input_schema", "inputSchema")


def _shape_of(entry: Mapping[str, Any]) -> dict[str, Any]:
    """The input shape inside a wire tool, whatever its format."""
    function = entry.get("function")
    if isinstance(function, Mapping):
        return function.get("parameters") or {}
    for key in _SHAPE_KEYS:
        if isinstance(entry.get(key), dict):
            return entry[key]
    return {}


def _is_long(message: Mapping[str, Any], threshold: int) -> bool:
    if message.get("role") != "tool":
        return False
    content = message.get("content")
    text = content if isinstance(content, str) else json.dumps(content, ensure_ascii=False)
    return len(text) >= threshold or bool(message.get("truncated"))


class LongResultPaging:
    """Offers the host's paging control when a tool result had to be cut for length."""

    def __init__(self, control: Mapping[str, Any], *, threshold: int = LONG_RESULT_CHARS) -> None:
        self._control = copy.deepcopy(dict(control))
        self._name = tool_name(control)
        self._threshold = threshold

    async def __call__(self, request: "ModelRequest") -> None:
        if not any(_is_long(message, self._threshold) for message in request.messages):
            return
        if self._name in {tool_name(entry) for entry in request.tools}:
            return
        log.info("%s: a result was cut for length; offering %s", request.invocation, self._name)
        request.tools = [*request.tools, copy.deepcopy(self._control)]


class SchemaTighteningMiddleware:
    """Caps free-text arguments so that one tool call cannot flood the context."""

    def __init__(self, max_length: int = 2048) -> None:
        self._max_length = max_length

    async def __call__(self, request: "ModelRequest") -> None:
        for entry in request.tools:
            props = _shape_of(entry).get("properties") or {}
            for name, prop in props.items():
                if not isinstance(prop, dict) or prop.get("type") != "string":
                    continue
                if "maxLength" not in prop and "enum" not in prop:
                    prop["maxLength"] = self._max_length
                    log.info("%s.%s capped at %d characters", tool_name(entry), name, self._max_length)


async def strip_titles_hook(request: "ModelRequest") -> None:
    """Drop the SDK-generated ``title`` keys that Anthropic's validator rejects."""
    for entry in request.tools:
        params = entry.get("input_schema")
        if not isinstance(params, dict):
            continue
        params.pop("title", None)
        for prop in (params.get("properties") or {}).values():
            if isinstance(prop, dict):
                prop.pop("title", None)


async def redaction_hook(request: "ModelRequest") -> None:
    """Log the input shapes about to be offered, without their examples and defaults."""
    if not log.isEnabledFor(logging.INFO):
        return
    for entry in request.tools:
        shape = copy.deepcopy(_shape_of(entry))
        shape.pop("examples", None)
        for prop in (shape.get("properties") or {}).values():
            if isinstance(prop, dict):
                prop.pop("default", None)
                prop.pop("examples", None)
        log.info("offering %s: %s", tool_name(entry), json.dumps(shape, sort_keys=True))


async def trace_hook(request: "ModelRequest") -> None:
    """Attach annotated previews of the offered shapes to the request's trace metadata."""
    previews: dict[str, Any] = {}
    for entry in request.tools:
        shape = _shape_of(entry)
        notes = {key: "free text" for key, prop in (shape.get("properties") or {}).items() if prop.get("type") == "string"}
        previews[tool_name(entry)] = described(shape, notes)
    request.metadata.setdefault("trace", {})["shape_previews"] = previews
