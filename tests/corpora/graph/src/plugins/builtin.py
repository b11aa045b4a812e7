"""Middleware that ships with the host and registers itself on import."""

from __future__ import annotations

import copy
import logging

from graphhost.models import Message
from graphhost.parity import assert_toolset_parity as check, freeze_toolset

from .paging import fetch_tool_output
from .registry import CallContext, register_middleware

log = logging.getLogger(__name__)

PINNED: dict[str, tuple] = {}


def pin(graph_id: str, toolset) -> None:
    PINNED[graph_id] = freeze_toolset(toolset)


@register_middleware("pre_invoke")
def pin_toolset(ctx: CallContext) -> None:
    """Refuse calls whose tools drifted from the set pinned for their graph."""
    pinned = PINNED.get(ctx.request.graph_id)
    if pinned is not None:
        check(ctx.request.tools, pinned)


@register_middleware("pre_invoke")
def drop_debug_args(ctx: CallContext) -> None:
    """Hide debug-only arguments from the model."""
    for tool in ctx.request.tools:
        props = tool.input_schema.get("properties", {})
        props.pop("debug", None)
        props.pop("trace_id", None)


@register_middleware("pre_invoke")
def describe_units(ctx: CallContext) -> None:
    """Spell out units in numeric argument descriptions, on copies of the schemas."""
    for i, tool in enumerate(ctx.request.tools):
        schema = copy.deepcopy(tool.input_schema)
        for prop in schema.get("properties", {}).values():
            if prop.get("type") == "number" and "unit" in prop:
                prop["description"] = f"{prop.get('description', '')} (in {prop['unit']})".strip()
        ctx.request.tools[i] = tool.model_copy(update={"input_schema": schema})


@register_middleware("pre_invoke")
def offer_paging_hook(ctx: CallContext) -> None:
    """Make sure the pager is offered whenever a tool result in the history was paged."""
    paged = any(m.metadata.get("paged") for m in ctx.request.messages if m.role == "tool")
    if paged and all(t.name != fetch_tool_output.name for t in ctx.request.tools):
        ctx.request.tools = ctx.request.tools + [fetch_tool_output]


@register_middleware("pre_invoke")
def paging_hint(ctx: CallContext) -> None:
    """Tell the model how to read paged results when the pager is on offer."""
    if any(t.name == fetch_tool_output.name for t in ctx.request.tools):
        ctx.request.messages.append(Message(role="system", content=(
            f"Long tool results are paged. Call {fetch_tool_output.name} with the call id to read on.")))


class OutputPager:
    """Offers the pager once a tool result in the request is longer than the threshold."""

    def __init__(self, threshold_chars: int = 16_000) -> None:
        self._threshold = threshold_chars

    def _long(self, message: Message) -> bool:
        return message.role == "tool" and len(str(message.content)) > self._threshold

    def apply(self, ctx: CallContext) -> None:
        if any(self._long(m) for m in ctx.request.messages):
            ctx.request.tools = [*ctx.request.tools, fetch_tool_output]
