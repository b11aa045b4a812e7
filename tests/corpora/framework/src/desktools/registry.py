"""Shared schemas, the tool catalogue and helpers for turning functions into tools."""

from __future__ import annotations

import logging
from typing import Any, Callable, Iterable

from agentcore import BoundTool, ToolDef, clone_schema

log = logging.getLogger(__name__)

_SCHEMAS: dict[str, dict[str, Any]] = {}


def register_schema(name: str, schema: dict[str, Any]) -> None:
    """Make ``schema`` available to tools that reference it by name."""
    if name in _SCHEMAS:
        log.warning("schema %s registered again; the last registration wins", name)
    _SCHEMAS[name] = schema


def schema_for(name: str) -> dict[str, Any]:
    return clone_schema(_SCHEMAS[name])


class ToolCatalog:
    """Everything the desk could offer, by name."""

    def __init__(self) -> None:
        self._entries: list[ToolDef] = []
        self._shared: dict[str, dict[str, Any]] = {}

    def register(self, name: str, schema: dict[str, Any]) -> None:
        """Register a shared argument schema under ``name``."""
        self._shared[name] = clone_schema(schema)

    def load(self, catalogue: Iterable[ToolDef]) -> None:
        """Replace the entries with ``catalogue``."""
        self._entries = list(catalogue)
        log.info("catalog holds %d tools", len(self._entries))

    def find(self, name: str) -> ToolDef | None:
        return next((entry for entry in self._entries if entry.name == name), None)

    def names(self) -> list[str]:
        return [entry.name for entry in self._entries]


def wrap_function(
    fn: Callable[..., Any],
    shape: dict[str, Any],
    *,
    name: str | None = None,
    description: str = "",
) -> BoundTool:
    """Expose ``fn`` as a tool whose arguments are described by ``shape``."""
    return BoundTool(fn, name or fn.__name__, shape, description=description)


def drop_examples(defs: Iterable[ToolDef]) -> None:
    """Remove ``examples`` from the top of each argument schema; strict providers reject it."""
    for d in defs:
        d.parameters.pop("examples", None)
