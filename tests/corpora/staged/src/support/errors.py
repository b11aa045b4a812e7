"""Exception types shared by every layer of the host.

Refusals end a request before anything is sent; a capacity result says the
admitted tools cannot fit the provider's limits; a provider error says the
model call itself failed.  Each is settled differently by the billing layer.
"""

from __future__ import annotations

from typing import Sequence


class Refusal(Exception):
    """A request refused before dispatch."""

    def __init__(self, message: str, *, request_id: str | None = None) -> None:
        super().__init__(message)
        self.request_id = request_id


class SurfaceDrift(Refusal):
    """The tools about to be sent differ from the surface admitted for the request."""

    def __init__(self, changes: Sequence[str], *, request_id: str | None = None) -> None:
        self.changes = list(changes)
        shown = "; ".join(self.changes[:3])
        more = f" (+{len(self.changes) - 3} more)" if len(self.changes) > 3 else ""
        super().__init__(f"tool surface changed since admission: {shown}{more}", request_id=request_id)


class RequestRefused(Refusal):
    """A request the pipeline will not send for a reason other than drift."""


class CapacityExceeded(Exception):
    """The admitted tools and messages do not fit the provider's limits.

    This is an explicit result: the host never sends a shortened tool list instead.
    """

    def __init__(self, message: str, *, tools: int = 0, limit: int = 0) -> None:
        super().__init__(message)
        self.tools = tools
        self.limit = limit


class ProviderError(Exception):
    """The model provider failed the call (5xx, reset connection, timeout)."""

    def __init__(self, message: str, *, status: int | None = None, retryable: bool = True) -> None:
        super().__init__(message)
        self.status = status
        self.retryable = retryable
