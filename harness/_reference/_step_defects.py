"""Defect variants of runs that call the model more than once: each later call must be checked
against the admitted surface, less what trusted facts in force by then hide."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._guard import GuardedRequest

from ._stages import run_of


class FirstCallOnly(GuardedRequest):
    """Checks the first model call only: a later call goes out as the agent loop left it, so a
    hook that prepares the tools again for each call (pydantic-ai's per-tool `prepare`) changes
    it unseen."""

    name: ClassVar[str] = "reference:defect/first-call-only"

    def check(self, checkpoint: str, tools: Sequence[Any], messages: Iterable[Any] = ()) -> None:
        if run_of(self).call == 1:
            super().check(checkpoint, tools, messages)


class FrozenAtFirstCall(GuardedRequest):
    """Holds every later model call to the surface the first one carried: a trusted fact that
    arrives between calls narrows the request, and the check refuses what it narrowed."""

    name: ClassVar[str] = "reference:defect/frozen-at-first-call"

    first_call: Snapshot | None = None

    def expected(self) -> Snapshot:
        if run_of(self).call > 1 and self.first_call is not None:
            return self.first_call
        self.first_call = surface = super().expected()
        return surface
