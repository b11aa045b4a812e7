"""Defect variants of runs that call the model more than once: each later call must be checked
against the admitted surface, less what trusted facts in force by then hide."""

from __future__ import annotations

from typing import ClassVar

from toolsurface.contract._canonical import Snapshot

from ._guarded import GuardedPipeline
from ._stages import Run


class FirstCallOnly(GuardedPipeline):
    """Checks the first model call only: a later call goes out as the agent loop left it, so a
    hook that prepares the tools again for each call (pydantic-ai's per-tool `prepare`) changes
    it unseen."""

    name: ClassVar[str] = "reference:defect/first-call-only"

    def check(self, checkpoint: str, expected: Snapshot, run: Run) -> None:
        if run.call == 1:
            super().check(checkpoint, expected, run)


class FrozenAtFirstCall(GuardedPipeline):
    """Holds every later model call to the surface the first one carried: a trusted fact that
    arrives between calls narrows the request, and the check refuses what it narrowed."""

    name: ClassVar[str] = "reference:defect/frozen-at-first-call"

    def expected(self, run: Run) -> Snapshot:
        if run.call > 1 and run.first_call is not None:
            return run.first_call
        run.first_call = surface = super().expected(run)
        return surface
