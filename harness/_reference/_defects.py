"""`reference:defect/<name>` — the shipped guard with exactly one step replaced.

Each flaw is a class that replaces one step: of the guard (a `SurfaceGuard`: how the baseline is
taken), of its request guard (a `GuardedRequest`: which facts it reads, what it compares, how it
settles a refusal) or of the pipeline that asks the guard (where and when it is asked). Flaws of the
surface check and of settlement are here; flaws of who may narrow the surface, recovery, capacity
and entry summaries are in `_contract_defects`; those of lists at real sizes in `_size_defects`;
those of runs of several model calls in `_step_defects`; those of MCP listing in `_mcp_defects`.
Every defect must be killed by at least one bundled case; `toolsurface defects` shows which.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from typing import Any, ClassVar

from toolsurface.contract._canonical import Snapshot, canonical_json, capture
from toolsurface.contract._guard import GuardedRequest, SurfaceGuard
from toolsurface.contract._owner import Settlement
from toolsurface.contract._refusals import RequestRefused
from toolsurface.mutators._base import fresh_copy
from toolsurface.mutators._conversion import StrictSchema
from toolsurface.scenarios import Lane, Stage

from ._careless import first_that_fit, recapture
from ._contract_defects import (
    AnyKnownOwner,
    BudgetHidesRead,
    ChildObeysParent,
    DiagnosticAuthority,
    EntryOverclaim,
    FactsReadOnce,
    FinalOnly,
    IdentityBlind,
    LastScopeSegment,
    RecoveryReparse,
    SilentCapacityDrop,
)
from ._guarded import GuardedPipeline, variant
from ._mcp_defects import FirstPageOnly, ListChangeAdopted, ListChangeIgnored
from ._size_defects import CapAfterCheck, DescriptionCutAfterCheck, NameCutAfterCheck, SelectorTrim
from ._stages import Run, run_of
from ._step_defects import FirstCallOnly, FrozenAtFirstCall


class SharedRef(SurfaceGuard):
    """The baseline is a new list of the very tool objects the request holds."""

    name: ClassVar[str] = "reference:defect/shared-ref"

    def take_baseline(
        self, admitted: Sequence[Any] | Snapshot, snapshot: Snapshot | None = None
    ) -> Callable[[], Snapshot]:
        if isinstance(admitted, Snapshot):
            return super().take_baseline(admitted)
        return recapture(list(admitted), self.fmt)


class SealBaseline(GuardedRequest):
    """The final check compares the request with the seal made from that same request."""

    name: ClassVar[str] = "reference:defect/seal-baseline"

    def expected(self) -> Snapshot:
        seal = run_of(self).seal
        return super().expected() if seal is None else seal


class HookOnlyFinal(GuardedPipeline):
    """The final check runs only when hooks are registered."""

    name: ClassVar[str] = "reference:defect/hook-only-final"

    def final_check(self, run: Run) -> None:
        if run.scenario.hooks:
            super().final_check(run)


class EarlyOnly(GuardedPipeline):
    """Only the early check runs; nothing after the hooks is checked."""

    name: ClassVar[str] = "reference:defect/early-only"

    def final_check(self, run: Run) -> None:
        pass


class NoSettle(GuardedRequest):
    """The refusal is raised, but the reservation is never settled."""

    name: ClassVar[str] = "reference:defect/no-settle"

    def settle_refusal(self, refusal: RequestRefused) -> None:
        pass


class TopNDrop(GuardedPipeline):
    """Context fitting sizes tools against the uncompressed conversation and keeps the first N that fit."""

    name: ClassVar[str] = "reference:defect/topn-drop"

    def fit_tools(self, run: Run, stage: Stage) -> None:
        run.tools = first_that_fit(run.tools, run.messages, stage.budget_tokens or 0, run.fmt)


class HookControl(GuardedRequest):
    """A control tool a hook added is taken into the baseline as if the host had admitted it."""

    name: ClassVar[str] = "reference:defect/hook-control"

    def check(self, checkpoint: str, tools: Sequence[Any], messages: Any = ()) -> None:
        if checkpoint == "early":
            controls = {control.name for control in run_of(self).scenario.contract.controls}
            expected = self.expected().entries()
            admitted = {entry[0] for entry in expected}
            added = [self.fmt.logical(tool) for tool in tools if self.fmt.get_name(tool) in controls - admitted]
            if added:
                rebased = Snapshot(canonical_json(expected + added))
                self.read_baseline = lambda: rebased
        super().check(checkpoint, tools, messages)


class NameKeyed(GuardedRequest):
    """Compares the surfaces as name → descriptor maps: blind to order."""

    name: ClassVar[str] = "reference:defect/name-keyed"

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        return _by_name(expected) == _by_name(actual)


class DescriptionPin(GuardedRequest):
    """Pins a hash of each tool's description by name, the way tool-pinning scanners do.

    Blind to schema edits, and to renames: an unknown name is trusted on first use.
    """

    name: ClassVar[str] = "reference:defect/description-pin"

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        pins = {name: _digest(description) for name, description, *_ in expected.entries()}
        entries = actual.entries()
        return len(entries) == len(pins) and all(
            pins.get(name, _digest(description)) == _digest(description) for name, description, *_ in entries
        )


class WireBlind(GuardedRequest):
    """Compares name, description and input schema only: blind to `strict`, MCP titles,
    annotations and output schemas, as when the check reads a logical copy of the tools."""

    name: ClassVar[str] = "reference:defect/wire-blind"

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        return _three_fields(expected) == _three_fields(actual)


class ConvertsAfterCheck(GuardedPipeline):
    """Hands the checked tools to a provider conversion on the way to the gateway: OpenAI strict
    mode closes every object, requires every property and turns `strict` on, after the final check."""

    name: ClassVar[str] = "reference:defect/converts-after-check"

    def sent(self, run: Run) -> list[Any]:
        converted = [fresh_copy(tool) for tool in run.tools]  # a converter builds new request dicts
        for tool in converted:
            StrictSchema.rewrite(run.fmt.get_schema(tool))
            if run.fmt.carries("strict"):
                run.fmt.set_wire(tool, "strict", True)
        return converted


class FinalOnlyLaundering(FinalOnly):
    """No early check, and re-validation re-bases the baseline on the request it re-validated."""

    name: ClassVar[str] = "reference:defect/final-only-laundering"

    def revalidate(self, run: Run, stage: Stage) -> None:
        super().revalidate(run, stage)
        rebased = capture(run.tools, run.fmt)
        run.request.read_baseline = lambda: rebased


class WrongLaneSettle(GuardedRequest):
    """A refusal is always settled in the main lane's ledger, whichever lane opened it."""

    name: ClassVar[str] = "reference:defect/wrong-lane-settle"

    def settle_refusal(self, refusal: RequestRefused) -> None:
        run = run_of(self)
        self.settled = True
        run.ports.ledger(Lane.MAIN).settle(run.scenario.identity.request, Settlement.PRE_DISPATCH_REJECTED)


class SecondReceipt(GuardedRequest):
    """After the owner's settlement, the guard records a receipt of its own for the refusal."""

    name: ClassVar[str] = "reference:defect/second-receipt"

    def settle_refusal(self, refusal: RequestRefused) -> None:
        super().settle_refusal(refusal)
        self.owner.settle(Settlement.FAILED, "surface guard receipt")


class DropsPublication(GuardedRequest):
    """A refusal withdraws the body that was already publishable, as if the turn had failed."""

    name: ClassVar[str] = "reference:defect/drops-publication"

    def settle_refusal(self, refusal: RequestRefused) -> None:
        super().settle_refusal(refusal)
        run = run_of(self)
        if run.scenario.publication is not None:
            run.ports.publications.withdraw(run.scenario.publication.id)


def _by_name(snapshot: Snapshot) -> dict[str, Any]:
    return {entry[0]: canonical_json(entry) for entry in snapshot.entries()}


def _three_fields(snapshot: Snapshot) -> bytes:
    return canonical_json([entry[:3] for entry in snapshot.entries()])


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


#: Every flaw, in the order the defect matrix lists them.
FLAWS: tuple[type[Any], ...] = (
    SharedRef,
    SealBaseline,
    HookOnlyFinal,
    EarlyOnly,
    NoSettle,
    TopNDrop,
    HookControl,
    NameKeyed,
    DescriptionPin,
    WireBlind,
    ConvertsAfterCheck,
    FinalOnlyLaundering,
    WrongLaneSettle,
    SecondReceipt,
    DropsPublication,
    FinalOnly,
    DiagnosticAuthority,
    IdentityBlind,
    AnyKnownOwner,
    LastScopeSegment,
    ChildObeysParent,
    FactsReadOnce,
    BudgetHidesRead,
    RecoveryReparse,
    SilentCapacityDrop,
    EntryOverclaim,
    FirstPageOnly,
    ListChangeIgnored,
    ListChangeAdopted,
    CapAfterCheck,
    DescriptionCutAfterCheck,
    NameCutAfterCheck,
    SelectorTrim,
    FirstCallOnly,
    FrozenAtFirstCall,
)

#: Defect name → its pipeline: the reference pipeline with the flaw's step in place.
DEFECTS: dict[str, type[GuardedPipeline]] = {
    flaw.name.removeprefix("reference:defect/"): variant(flaw) for flaw in FLAWS
}
