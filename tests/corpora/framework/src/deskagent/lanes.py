"""The lanes a request can go out by: primary, fallback, retrying and re-admitting."""

from __future__ import annotations

import logging
import time
from typing import Any, Callable, Sequence

from agentcore import ModelGateway, ModelRequest, ModelResponse, ProviderError, SurfaceDrift, ToolDef

from .lane_base import BaseLane

log = logging.getLogger(__name__)


class FallbackLane(BaseLane):
    """The plain lane: check, then send."""

    def attempt(self, request: ModelRequest) -> ModelResponse:
        self.verify(request)
        return self._send(request)


class LenientLane(BaseLane):
    """A lane for internal desks that may be told to tolerate surface changes."""

    def __init__(self, gateway: ModelGateway, baseline: Sequence[Any], *, lane: str, lenient: bool = False) -> None:
        super().__init__(gateway, baseline, lane=lane)
        self.lenient = lenient

    def attempt(self, request: ModelRequest) -> ModelResponse:
        try:
            self.verify(request)
        except SurfaceDrift as exc:
            if not self.lenient:
                raise
            log.warning("lane %s: sending despite surface change: %s", self.lane, exc)
        return self._send(request)


class RetryLane(BaseLane):
    """Retries transport failures with exponential backoff."""

    attempts = 3
    backoff = 0.5

    def attempt(self, request: ModelRequest) -> ModelResponse:
        if len(request.tools) != len(self.baseline):
            raise SurfaceDrift(f"{len(request.tools)} tools, {len(self.baseline)} admitted", lane=self.lane)
        failure: ProviderError | None = None
        for attempt in range(1, self.attempts + 1):
            try:
                return self._send(request)
            except ProviderError as exc:
                failure = exc
                log.warning("lane %s: attempt %d of %d failed: %s", self.lane, attempt, self.attempts, exc)
                time.sleep(self.backoff * 2 ** (attempt - 1))
        raise ProviderError(f"lane {self.lane}: {self.attempts} attempts failed") from failure


class ReadmittingLane(BaseLane):
    """When the surface changed, asks admission again; a re-admission that gives the
    pinned surface lets the request go on."""

    max_readmissions = 2

    def attempt(self, request: ModelRequest, readmit: Callable[[ModelRequest], list[ToolDef]]) -> ModelResponse:
        rounds = 0
        while True:
            try:
                self.verify(request)
            except SurfaceDrift:
                rounds += 1
                if rounds > self.max_readmissions:
                    raise
                request.tools = readmit(request)
                continue
            break
        return self._send(request)


def send_with_fallback(request: ModelRequest, primary: BaseLane, fallback: BaseLane) -> ModelResponse:
    """Try the primary lane, then the fallback, on transport failures only."""
    for lane in (primary, fallback):
        try:
            return lane.attempt(request)  # type: ignore[attr-defined]
        except ProviderError as exc:
            log.warning("%r failed: %s", lane, exc)
    raise ProviderError("every lane failed")
