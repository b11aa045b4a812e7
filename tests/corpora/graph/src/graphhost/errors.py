"""Exceptions raised by the graph host."""

from __future__ import annotations


class HostError(Exception):
    """Base class for every failure the host raises on purpose."""


class ToolsetDrift(HostError):
    """The tools a request carries are not the tools that were admitted for it."""

    def __init__(self, added: list[str], removed: list[str], changed: list[str]) -> None:
        self.added = list(added)
        self.removed = list(removed)
        self.changed = list(changed)
        parts = [f"{label}={names}" for label, names in
                 (("added", self.added), ("removed", self.removed), ("changed", self.changed)) if names]
        super().__init__("toolset drift: " + ", ".join(parts or ["unknown"]))


class BudgetRefused(HostError):
    """The graph's budget cannot fund the call."""

    def __init__(self, graph_id: str, cents: int) -> None:
        self.graph_id = graph_id
        self.cents = cents
        super().__init__(f"budget refused {cents}c for graph {graph_id}")


class TooManyTools(HostError):
    """More tools were admitted than the deployment allows."""

    def __init__(self, count: int, limit: int) -> None:
        self.count = count
        self.limit = limit
        super().__init__(f"{count} tools admitted, the limit is {limit}")


class ProviderError(HostError):
    """A provider answered with an error or not at all."""
