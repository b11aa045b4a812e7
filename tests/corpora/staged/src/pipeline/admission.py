"""Admission: which tools a request may carry, and the baseline it is held to."""

from __future__ import annotations

import copy
import logging
import threading
from typing import Any, Sequence

from support.controls import read_result_spec
from support.copying import snapshot_tools
from support.errors import RequestRefused
from support.registry import ToolEntry, ToolRegistry, ToolSet, builtin_tools

from .base import BaseStage
from .context import RequestContext, Services
from .selection import pinned_first
from .settings import Settings

logger = logging.getLogger(__name__)


class BaselineStore:
    """Admitted surfaces by request id, each an independent snapshot."""

    def __init__(self) -> None:
        self._by_request: dict[str, list[dict[str, Any]]] = {}
        self._lock = threading.Lock()

    def put(self, request_id: str, tools: Sequence[dict[str, Any]]) -> None:
        with self._lock:
            self._by_request[request_id] = snapshot_tools(tools)

    def lookup(self, request_id: str) -> list[dict[str, Any]]:
        with self._lock:
            return snapshot_tools(self._by_request[request_id])

    def forget(self, request_id: str) -> None:
        with self._lock:
            self._by_request.pop(request_id, None)


BASELINES = BaselineStore()


class AdmittedSet(ToolSet):
    """The tools admitted for one request."""

    def for_lane(self, lane: str) -> "AdmittedSet":
        """The same admitted tools, owned by another lane."""
        return AdmittedSet(self.tools, lane=lane)


class AdmissionStage(BaseStage):
    """Admits the catalogued tools granted to the request's scope."""

    name = "admission"

    def __init__(self, settings: Settings, services: Services, registry: ToolRegistry | None = None) -> None:
        super().__init__(settings, services)
        self.registry = registry if registry is not None else ToolRegistry()

    def admit(self, ctx: RequestContext) -> list[dict[str, Any]]:
        granted = set(self.settings.granted_to(ctx.request.scope))
        admitted = [copy.deepcopy(tool) for tool in self.settings.catalogue if tool["name"] in granted]
        admitted.extend(builtin_tools())
        if any(len(str(m.get("content", ""))) > 8_000 for m in ctx.request.messages if m.get("role") == "tool"):
            admitted.append(read_result_spec())
        return pinned_first(admitted, self.settings.pinned)

    def apply(self, ctx: RequestContext) -> None:
        admitted = self.admit(ctx)
        if not admitted:
            self.refund(ctx)
            raise RequestRefused(f"no catalogued tool is granted to {ctx.request.scope}", request_id=ctx.request.request_id)
        ctx.request.tools = admitted
        ctx.baseline = snapshot_tools(admitted)
        ctx.request.metadata["admitted_surface"] = snapshot_tools(admitted)
        BASELINES.put(ctx.request.request_id, admitted)
        for tool in admitted:
            self.registry.record(ToolEntry.from_mapping(tool, source="admission"))
        logger.info("admitted %d tools for %s", len(admitted), ctx.request.request_id)
        self.emit("after_admission", ctx)


class StaticAdmissionStage(AdmissionStage):
    """Admission for lanes whose tools are fixed by configuration (batch, evaluation)."""

    name = "static_admission"

    def apply(self, ctx: RequestContext) -> None:
        ctx.request.tools = self.settings.catalogue
        ctx.baseline = self.settings.catalogue
        BASELINES.put(ctx.request.request_id, ctx.baseline)
        self.emit("after_admission", ctx)
