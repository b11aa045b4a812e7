"""Admission: which tools a request may carry."""

from __future__ import annotations

import logging
from typing import Collection

from agentcore import AgentMiddleware, AgentSpec, ModelRequest, ModelResponse, ToolDef
from agentcore.middleware import Handler
from desktools import read_tool_result

from .parity import freeze_surface

log = logging.getLogger(__name__)


def admit(spec: AgentSpec, grants: Collection[str]) -> list[ToolDef]:
    """The spec's tools that the grants name, plus the controls those tools need."""
    admitted = [definition for definition in spec.tools if definition.name in grants]
    if any(definition.parameters.get("x-large-results") for definition in admitted):
        admitted.append(read_tool_result)
    log.info("admitted %d of %d tools for %s", len(admitted), len(spec.tools), spec.name)
    return admitted


class AdmissionMiddleware(AgentMiddleware):
    """Admits, per model call, the tools the run's grants allow, and pins what it admitted."""

    name = "admission"

    def __init__(self, grants: Collection[str]) -> None:
        self._grants = frozenset(grants)

    def wrap_model_call(self, request: ModelRequest, handler: Handler) -> ModelResponse:
        request.tools = [definition for definition in request.tools if definition.name in self._grants]
        request.state["pinned_surface"] = freeze_surface(request.tools)
        return handler(request)
