"""`reference:legacy` — the old path the guard replaced.

Its final check lives in an optional hook callback (so the no-hook path has none), its baseline
is a shallow copy that shares nested objects with the request, there is no early check, and a
refusal on the asynchronous-preparation path is raised without reaching the owner's ledger.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

from scenarios import StageKind

from .._canonical import Snapshot
from .._errors import SurfaceRefused
from ._guarded import GuardedPipeline, recapture, shallow_copies
from ._stages import Run


class LegacyPipeline(GuardedPipeline):
    """The old path: final check only in a hook callback, shallow-copied baseline, async refusals unsettled."""

    name: ClassVar[str] = "reference:legacy"

    def take_baseline(self, run: Run) -> Callable[[], Snapshot]:
        return recapture(shallow_copies(run.tools), run)

    def early_check(self, run: Run) -> None:
        pass

    def final_check(self, run: Run) -> None:
        if run.scenario.hooks:  # registered as an `on_before_dispatch` hook callback
            super().final_check(run)

    def settle_refusal(self, run: Run, refusal: SurfaceRefused) -> None:
        if run.scenario.stage(StageKind.ASYNC_PREP) is None:
            super().settle_refusal(run, refusal)
