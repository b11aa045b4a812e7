"""Exceptions the host raises when a request must not go out."""

from __future__ import annotations


class HostError(Exception):
    """Base class of the host's own errors."""


class OfferDriftError(HostError):
    """The tools about to be sent differ from the tools admitted for this model call."""

    def __init__(self, lane: str, changes: list[str]) -> None:
        self.lane = lane
        self.changes = list(changes)
        shown = "; ".join(self.changes[:3])
        more = f" (+{len(self.changes) - 3} more)" if len(self.changes) > 3 else ""
        super().__init__(f"offer on lane {lane!r} differs from its admission: {shown}{more}")


class CapacityExceeded(HostError):
    """The admitted tools and the messages do not fit the lane's context."""

    def __init__(self, lane: str, reason: str) -> None:
        self.lane = lane
        self.reason = reason
        super().__init__(f"lane {lane!r} cannot hold this request: {reason}")


class ProtocolError(HostError):
    """A provider answered in a shape the host does not understand."""


REFUSALS: tuple[type[HostError], ...] = (OfferDriftError, CapacityExceeded)
