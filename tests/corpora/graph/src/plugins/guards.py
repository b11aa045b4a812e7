"""Middleware that guards what a call may carry, and the host's final gate."""

from __future__ import annotations

import logging
from typing import Sequence

from graphhost import assert_toolset_parity
from graphhost.models import ToolSpec

from .registry import CallContext

log = logging.getLogger(__name__)


class ParityInterceptor:
    """Stops a call whose tools differ from the pinned set."""

    def __init__(self, pinned: Sequence[ToolSpec]) -> None:
        self._pinned = pinned

    def apply(self, ctx: CallContext) -> None:
        assert_toolset_parity(ctx.request.tools, self._pinned)


class FinalGate:
    """The host's last comparison before a send, with counters for the dashboard."""

    def __init__(self) -> None:
        self.checked = 0
        self.sent = 0

    def enforce(self, tools: Sequence[ToolSpec], baseline: Sequence[ToolSpec]) -> None:
        self.checked += 1
        assert_toolset_parity(tools, baseline)

    def record(self, ctx: CallContext) -> None:
        self.sent += 1
        log.debug("graph %s sent %d tools", ctx.request.graph_id, len(ctx.request.tools))


def validate_schemas(ctx: CallContext) -> None:
    """Reject tools whose input schema is not an object schema."""
    for spec in ctx.request.tools:
        props = spec.input_schema.get("properties", {})
        if spec.input_schema.get("type") != "object" or not isinstance(props, dict):
            raise ValueError(f"tool {spec.name} has a malformed input schema")


def scrub_internal_args(ctx: CallContext) -> None:
    """Forbid arguments the model was not told about on tools it may call."""
    for spec in ctx.request.tools:
        if spec.name.startswith("internal_"):
            continue
        spec.input_schema["additionalProperties"] = False


class TenantScoper:
    """Pins the tenant argument of every tool to this deployment's tenant."""

    def __init__(self, tenant: str) -> None:
        self._tenant = tenant

    def apply(self, ctx: CallContext) -> None:
        for i, spec in enumerate(ctx.request.tools):
            schema = dict(spec.input_schema)
            if "properties" not in schema:
                continue
            schema["properties"]["tenant_id"] = {"type": "string", "const": self._tenant}
            schema["required"] = sorted({*schema.get("required", []), "tenant_id"})
            ctx.request.tools[i] = spec.model_copy(update={"input_schema": schema})
