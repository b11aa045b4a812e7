"""Local tools the host serves itself, registered beside the servers' tools."""

from __future__ import annotations

import copy
import logging
from typing import Any, Iterable

from .models import ToolSpec

log = logging.getLogger(__name__)


class ToolRegistry:
    """Names, descriptions and input shapes of the host's own tools."""

    def __init__(self) -> None:
        self._descriptions: dict[str, str] = {}
        self._shapes: dict[str, dict[str, Any]] = {}

    def __contains__(self, name: object) -> bool:
        return name in self._shapes

    def register(self, name: str, description: str, input_shape: dict[str, Any]) -> None:
        """Register a host tool under ``name``."""
        if name in self._shapes:
            raise ValueError(f"tool {name!r} is already registered")
        self._descriptions[name] = description
        self._shapes[name] = input_shape
        log.info("registered host tool %s", name)

    def adopt(self, specs: Iterable[ToolSpec]) -> int:
        """Mirror specs listed elsewhere (a server's), replacing any of the same name."""
        count = 0
        for spec in specs:
            self._descriptions[spec.name] = spec.description
            self._shapes[spec.name] = copy.deepcopy(spec.input_shape)
            count += 1
        return count

    def spec(self, name: str) -> ToolSpec:
        """A fresh spec of a registered tool."""
        return ToolSpec(
            name=name,
            description=self._descriptions[name],
            input_shape=copy.deepcopy(self._shapes[name]),
        )

    def names(self) -> list[str]:
        return sorted(self._shapes)
