"""`reference:guarded` — the correct design, built from overridable steps.

Immutable baseline captured before any hook runs; an early check after the hooks and a final
check right before dispatch, on every path; a refusal is a typed `SurfaceRefused`, settled as
`pre_dispatch_rejected` on the original lane's ledger; publications are left alone. Each defect
variant and the legacy path override one or more steps, so each differs from this by exactly
the flaw it names.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, ClassVar

from scenarios import Contract, Scenario, StageKind

from .._canonical import Snapshot, capture, snapshot_of
from .._errors import SurfaceRefused
from .._ports import Ports
from .._types import Outcome
from ._stages import Run, replay


class GuardedPipeline:
    """The correct design: immutable baseline, early and final checks on every path, settled refusals."""

    name: ClassVar[str] = "reference:guarded"
    refusals: ClassVar[tuple[type[BaseException], ...]] = (SurfaceRefused,)

    def run(self, scenario: Scenario, ports: Ports) -> None:
        ledger = ports.ledger(scenario.lane)
        run = Run(
            scenario=scenario,
            ports=ports,
            fmt=ports.fmt,
            ledger=ledger,
            reservation=ledger.reserve(scenario.identity.request),
            tools=[ports.fmt.build(descriptor) for descriptor in scenario.contract.surface],
            messages=[message.as_dict() for message in scenario.messages],
        )
        run.expected = self.take_baseline(run)
        try:
            self.prepare(run)
        except SurfaceRefused as refusal:
            self.settle_refusal(run, refusal)
            raise
        ports.gateway.dispatch(scenario.identity.request, run.tools, run.messages)
        ledger.settle(run.reservation, Outcome.DISPATCHED)

    def prepare(self, run: Run) -> None:
        early_done = False
        for stage in run.scenario.stages:
            if stage.kind is not StageKind.HOOK and not early_done:
                self.early_check(run)
                early_done = True
            if stage.kind is StageKind.CONTEXT_FIT:
                self.fit_tools(run, stage.budget_tokens or 0)
            replay(stage, run)
            if stage.kind is StageKind.REVALIDATE:
                self.revalidate(run)
            run.tools, run.messages = run.ports.inject(stage.point, run.tools, run.messages)
        self.final_check(run)

    # -- the steps the variants override -------------------------------------------------------

    def take_baseline(self, run: Run) -> Callable[[], Snapshot]:
        """An immutable snapshot of the admitted surface, straight from the contract's recorded
        descriptors: taken before any projection or hook can touch a live object, and bytes, so no
        later edit reaches it."""
        baseline = _admitted(run.scenario.contract)
        return lambda: baseline

    def early_check(self, run: Run) -> None:
        self.check("early", run.expected(), run)

    def final_check(self, run: Run) -> None:
        self.check("final", run.expected(), run)

    def revalidate(self, run: Run) -> None:
        """Owner re-validation checks the request against the contract; it never moves the baseline."""

    def fit_tools(self, run: Run, budget_tokens: int) -> None:
        """Tools are never cut to fit; a request that cannot hold them is a capacity result."""

    def settle_refusal(self, run: Run, refusal: SurfaceRefused) -> None:
        run.ledger.settle(run.reservation, Outcome.PRE_DISPATCH_REJECTED, f"{refusal.checkpoint} check")

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        """Parity: count, order, names, full descriptions and input schemas (key order aside)."""
        return expected == actual

    def check(self, checkpoint: str, expected: Snapshot, run: Run) -> None:
        actual = capture(run.tools, run.fmt)
        if not self.same(expected, actual):
            raise SurfaceRefused(checkpoint, expected, actual)


@functools.lru_cache(maxsize=64)
def _admitted(contract: Contract) -> Snapshot:
    """The admitted surface's snapshot: contracts are frozen, so one serves every request they admit."""
    return snapshot_of(contract.surface)


def shallow_copies(tools: list[Any]) -> list[Any]:
    """What `[dict(tool) for tool in tools]` gives: new outer dicts sharing every nested object."""
    return [dict(tool) for tool in tools]


def recapture(tools: list[Any], run: Run) -> Callable[[], Snapshot]:
    """A 'baseline' read from live objects at check time: edits to anything they share reach it."""
    return lambda: capture(tools, run.fmt)
