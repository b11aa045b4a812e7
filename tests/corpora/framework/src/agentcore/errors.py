"""Exceptions shared by the runtime and the hosts built on it."""

from __future__ import annotations

from typing import Sequence


class AgentError(Exception):
    """Base class of the runtime's own errors."""


class RequestRefused(AgentError):
    """A request the host decided not to send.

    ``lane`` names the provider lane whose ledger the request was reserved on, so that
    whoever catches the refusal can settle it there.
    """

    def __init__(self, message: str, *, lane: str = "main", changes: Sequence[str] = ()) -> None:
        super().__init__(message)
        self.lane = lane
        self.changes = tuple(changes)


class SurfaceDrift(RequestRefused):
    """The tools of a request differ from the ones admitted for it."""


class CapacityExceeded(RequestRefused):
    """The request's tools or messages do not fit the model's context or tool limit."""


class ProviderError(ConnectionError):
    """The model provider failed the call (5xx, dropped connection, timeout)."""
