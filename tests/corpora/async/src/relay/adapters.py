"""Provider-specific preparation of the tools a request carries."""

from __future__ import annotations

import functools
import logging
from typing import Any, Mapping, Sequence

from toolkit.models import ToolSpec
from toolkit.shapes import apply_override, strict_copy, strictify
from toolkit.wire import tool_name

log = logging.getLogger(__name__)

OPENAI_TOOL_LIMIT = 128


def prepare_for_openai(specs: Sequence[ToolSpec]) -> None:
    """Make every spec's input shape acceptable to OpenAI's strict function calling."""
    for spec in specs:
        strictify(spec.input_shape)
    log.info("prepared %d specs for strict mode", len(specs))


def apply_overrides(specs: Sequence[ToolSpec], overrides: Mapping[str, Mapping[str, Mapping[str, Any]]]) -> None:
    """Apply an operator's per-tool property overrides (tighter bounds, defaults)."""
    for spec in specs:
        patch = overrides.get(spec.name)
        if patch:
            functools.reduce(apply_override, patch.items(), spec.input_shape)


def to_openai_strict(spec: ToolSpec) -> dict[str, Any]:
    """The spec as an OpenAI strict function tool."""
    parameters = strict_copy(spec.input_shape)
    return {
        "type": "function",
        "function": {
            "name": spec.name,
            "description": spec.description,
            "parameters": parameters,
            "strict": True,
        },
    }


def enforce_tool_limit(offer: list[dict[str, Any]], limit: int = OPENAI_TOOL_LIMIT) -> list[dict[str, Any]]:
    """Keep a request within the provider's tool limit (OpenAI takes 128 tools a request)."""
    kept = list(offer)
    while len(kept) > limit:
        dropped = kept.pop()
        log.warning("dropping %s: over the provider's %d-tool limit", tool_name(dropped), limit)
    return kept
