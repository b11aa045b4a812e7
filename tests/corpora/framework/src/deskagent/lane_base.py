"""Provider lanes: where a checked request is sent, and how."""

from __future__ import annotations

import functools
import logging
from typing import Any, Sequence

from agentcore import ModelGateway, ModelRequest

from .parity import assert_surface_unchanged

log = logging.getLogger(__name__)


class BaseLane:
    """A lane sends requests to one gateway and knows the surface they must carry."""

    def __init__(self, gateway: ModelGateway, baseline: Sequence[Any], *, lane: str, timeout: float = 60.0) -> None:
        self.gateway = gateway
        self.baseline = baseline
        self.lane = lane
        self.timeout = timeout
        self._send = functools.partial(gateway.invoke_model, timeout=timeout)

    def verify(self, request: ModelRequest) -> None:
        """Refuse the request unless it carries the pinned surface."""
        assert_surface_unchanged(request.tools, self.baseline, lane=self.lane)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(lane={self.lane!r}, provider={self.gateway.provider!r})"
