"""The catalogue of tools a deployment offers, and admission of a graph's toolset."""

from __future__ import annotations

import logging
from typing import Iterable

from plugins.paging import fetch_tool_output

from .errors import TooManyTools
from .models import ToolSpec, Toolset
from .settings import Settings

log = logging.getLogger(__name__)


class ToolCatalog:
    def __init__(self, settings: Settings) -> None:
        self._settings = settings
        self._entries: list[ToolSpec] = []
        self._disabled: set[str] = set()
        self._version = 0

    def adopt(self, entries: Iterable[ToolSpec]) -> None:
        """Replace the catalogue with the given entries."""
        self._entries = list(entries)
        self._version += 1
        log.info("catalogue v%d: %d entries", self._version, len(self._entries))

    def disable(self, name: str) -> None:
        self._disabled.add(name)

    def enable(self, name: str) -> None:
        self._disabled.discard(name)

    def enabled(self) -> list[ToolSpec]:
        return [e for e in self._entries if e.name not in self._disabled]

    def admit(self) -> Toolset:
        """Deep copies of the enabled tools, with the output pager when paging is on."""
        admitted = [e.model_copy(deep=True) for e in self.enabled()]
        if self._settings.paging:
            admitted.append(fetch_tool_output.model_copy(deep=True))
        if len(admitted) > self._settings.max_tools:
            raise TooManyTools(len(admitted), self._settings.max_tools)
        return Toolset(version=self._version, tools=admitted)
