"""The hook bus and the host's own hooks.

Hooks run on the live request at stage boundaries (``after_admission``,
``before_seal``, ``before_send``).  They may add context to the transcript;
the surface they leave behind is what the final check compares.
"""

from __future__ import annotations

import copy
import hashlib
import json
import logging
from collections import defaultdict
from typing import Any, Callable

from support.controls import READ_TOOL_RESULT, read_result_spec
from support.parity import drift_report
from support.schema import normalized_copy, strictify

from .admission import BASELINES
from .request import ModelRequest

logger = logging.getLogger(__name__)

Hook = Callable[[ModelRequest], None]


class HookBus:
    """Hooks by event, run in registration order."""

    def __init__(self) -> None:
        self._listeners: dict[str, list[Hook]] = defaultdict(list)

    def attach_hook(self, event: str, fn: Hook) -> Hook:
        self._listeners[event].append(fn)
        logger.info("hook %r attached to %s", fn, event)
        return fn

    def listens(self, event: str) -> Callable[[Hook], Hook]:
        """Decorator form of :meth:`attach_hook`."""

        def register(fn: Hook) -> Hook:
            return self.attach_hook(event, fn)

        return register

    def listeners(self, event: str) -> list[Hook]:
        return list(self._listeners.get(event, ()))

    def emit(self, event: str, request: ModelRequest) -> None:
        for fn in self.listeners(event):
            fn(request)


bus = HookBus()
schema_catalog: list[dict[str, Any]] = []


@bus.listens("before_seal")
def pin_result_reader(request: ModelRequest) -> None:
    """Give the model a way to page through long tool results."""
    if any(tool.get("name") == READ_TOOL_RESULT for tool in request.tools):
        return
    request.tools.append(read_result_spec())


def tighten_schemas_hook(request: ModelRequest) -> None:
    """Close object schemas so the model cannot invent arguments."""
    for tool in request.tools:
        params = tool.get("input_schema") or {}
        if params.get("type") == "object":
            params.setdefault("additionalProperties", False)


def strict_mode_hook(request: ModelRequest) -> None:
    """Strict schemas for providers that enforce them."""
    for tool in request.tools:
        strictify(tool["input_schema"])


def fingerprint_hook(request: ModelRequest) -> None:
    """Log a stable fingerprint of each tool's argument shape for drift dashboards."""
    for tool in request.tools:
        shape = copy.deepcopy(tool.get("input_schema") or {})
        shape.pop("description", None)
        digest = hashlib.sha256(json.dumps(shape, sort_keys=True).encode("utf-8")).hexdigest()
        logger.info("argument shape of %s: %s", tool.get("name"), digest[:16])


def publish_schema_catalog_hook(request: ModelRequest) -> None:
    """Publish each tool's argument schema, titles stripped, to the docs catalogue."""
    for tool in request.tools:
        shape = normalized_copy(tool.get("input_schema") or {})
        shape["x-tool"] = tool.get("name")
        schema_catalog.append(shape)


def drift_telemetry_hook(request: ModelRequest) -> None:
    """Count how far hooks have moved the surface so far, for the drift dashboard."""
    try:
        baseline = BASELINES.lookup(request.request_id)
    except KeyError:
        return
    changes = drift_report(request.tools, baseline)
    if changes:
        logger.info("%d surface changes on %s so far: %s", len(changes), request.request_id, changes[:3])
