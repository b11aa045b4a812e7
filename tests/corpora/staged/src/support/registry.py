"""Registries of tool definitions known to the host."""

from __future__ import annotations

import copy
import logging
import threading
from dataclasses import dataclass
from typing import Any, Iterable, Iterator, Mapping

from .copying import snapshot_schema

logger = logging.getLogger(__name__)

_BUILTIN: dict[str, dict[str, Any]] = {}
_BUILTIN_LOCK = threading.Lock()


def register_builtin(name: str, input_schema: dict[str, Any], description: str = "") -> None:
    """Make a host-provided tool available to every lane."""
    with _BUILTIN_LOCK:
        if name in _BUILTIN:
            logger.warning("builtin tool %s registered twice; keeping the newer definition", name)
        _BUILTIN[name] = {"name": name, "description": description, "input_schema": input_schema}


def builtin_tools() -> list[dict[str, Any]]:
    """Deep copies of every builtin tool, in registration order."""
    with _BUILTIN_LOCK:
        return [copy.deepcopy(tool) for tool in _BUILTIN.values()]


@dataclass
class ToolEntry:
    """One registered tool."""

    name: str
    description: str
    input_schema: dict[str, Any]
    source: str = "config"

    @classmethod
    def from_mapping(cls, shape: Mapping[str, Any], *, source: str = "config") -> "ToolEntry":
        """An entry for a tool definition given as a mapping."""
        return cls(
            name=str(shape["name"]),
            description=str(shape.get("description", "")),
            input_schema=shape["input_schema"],
            source=source,
        )

    def as_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": copy.deepcopy(self.input_schema),
        }


class ToolRegistry:
    """Tools known by name, with where each came from."""

    def __init__(self) -> None:
        self._entries: dict[str, ToolEntry] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._entries

    def __iter__(self) -> Iterator[ToolEntry]:
        return iter(self._entries.values())

    def add(self, name: str, input_schema: Mapping[str, Any], description: str = "") -> ToolEntry:
        """Register a tool under *name*; the registry keeps its own copy of the schema."""
        entry = ToolEntry(name=name, description=description, input_schema=snapshot_schema(input_schema))
        self._entries[name] = entry
        return entry

    def record(self, entry: ToolEntry) -> None:
        self._entries[entry.name] = entry

    def get(self, name: str) -> ToolEntry | None:
        return self._entries.get(name)

    def definitions(self) -> list[dict[str, Any]]:
        return [entry.as_dict() for entry in self._entries.values()]


class ToolSet:
    """An ordered tool list owned by whoever holds the set."""

    def __init__(self, tools: Iterable[Mapping[str, Any]], *, lane: str = "main") -> None:
        self.tools = [copy.deepcopy(dict(tool)) for tool in tools]
        self.lane = lane

    def __len__(self) -> int:
        return len(self.tools)

    def names(self) -> list[str]:
        return [str(tool["name"]) for tool in self.tools]
