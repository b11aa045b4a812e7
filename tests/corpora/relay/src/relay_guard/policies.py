"""Built-in policies and the chain built from the host's YAML configuration."""

from __future__ import annotations

import copy
import logging
from dataclasses import replace
from typing import Any, Callable, Mapping

from relay.context import TurnRequest
from relay.tools import FunctionTool, read_tool_output
from relay.tools import read_tool_output as fetch_more
from relay_guard.chain import InterceptorChain, register_interceptor
from relay_guard.interceptors import Paginator, PagerOffer, SchemaPruner, StrictArgs, StrictCopies, SurfacePin
from relay_mcp.catalog import ToolCatalog

log = logging.getLogger(__name__)

# Parsed from relay.yaml; kept here as the defaults a fresh install starts from.
DEFAULT_CONFIG: dict[str, Any] = {
    "interceptors": [
        {"use": "prune_schema", "hidden": ["tenant_id", "trace"]},
        {"use": "strict_copies", "providers": ["openai"]},
        {"use": "paginate", "max_chars": 12000},
        {"use": "pin_surface"},
    ],
}

FACTORIES: dict[str, Callable[..., Any]] = {
    "prune_schema": SchemaPruner,
    "strict_args": StrictArgs,
    "strict_copies": StrictCopies,
    "pager_offer": PagerOffer,
}


def with_output_reader(tools: list[FunctionTool]) -> list[FunctionTool]:
    """The admitted tools plus the pager, which every agent gets."""
    if any(t.name == read_tool_output.name for t in tools):
        return list(tools)
    return [*tools, read_tool_output]


def build_chain(config: Mapping[str, Any], catalog: ToolCatalog) -> InterceptorChain:
    chain = InterceptorChain()
    for entry in config.get("interceptors", []):
        match entry:
            case {"use": "pin_surface", **rest}:
                expected = catalog.copy()
                chain.register_interceptor(SurfacePin(expected.tools, agent=rest.get("agent")))
            case {"use": "paginate", **rest}:
                chain.register_interceptor(Paginator(**rest))
            case {"use": str(kind), **rest} if kind in FACTORIES:
                chain.register_interceptor(FACTORIES[kind](**rest))
            case _:
                log.warning("unknown interceptor entry %r", entry)
    return chain


@register_interceptor
async def attach_pager(request: TurnRequest) -> TurnRequest:
    """Offer the pager once a tool result has been stored out of band."""
    if request.state.get("stored_outputs") and fetch_more not in request.tools:
        request.tools.append(fetch_more)
    return request


async def before_turn_note_pager(request: TurnRequest) -> TurnRequest:
    if request.state.get("stored_outputs"):
        request.notes.append(f"Long results are stored; call {read_tool_output.name} to page through them.")
    return request


async def before_turn_strict(request: TurnRequest) -> TurnRequest:
    for tool in request.tools:
        if tool.strict and tool.params_json_schema.get("type") == "object":
            tool.params_json_schema["additionalProperties"] = False
    return request


async def before_turn_describe(request: TurnRequest) -> TurnRequest:
    """Copy each tool's description into its schema for providers that read only the schema."""
    for i, tool in enumerate(request.tools):
        schema = copy.deepcopy(tool.params_json_schema)
        schema.setdefault("description", tool.description)
        request.tools[i] = replace(tool, params_json_schema=schema)
    return request
