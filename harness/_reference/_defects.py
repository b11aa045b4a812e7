"""`reference:defect/<name>` — the guarded design with exactly one flaw each.

Flaws of the surface check and of settlement are here; flaws of who may narrow the surface,
recovery, capacity and entry summaries are in `_contract_defects`; those of lists at real sizes
in `_size_defects`; those of runs of several model calls in `_step_defects`. Every defect must be killed by
at least one bundled case; `toolsurface defects` shows which.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from typing import Any, ClassVar

from toolsurface.contract._canonical import Snapshot, canonical_json, capture
from toolsurface.contract._owner import Settlement
from toolsurface.contract._refusals import RequestRefused
from toolsurface.mutators._base import fresh_copy
from toolsurface.mutators._conversion import StrictSchema
from toolsurface.scenarios import Lane, Stage

from .._capacity import estimate_tokens
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
from ._guarded import GuardedPipeline, recapture
from ._mcp_defects import FirstPageOnly, ListChangeAdopted, ListChangeIgnored
from ._size_defects import (
    CapAfterCheck,
    DescriptionCutAfterCheck,
    NameCutAfterCheck,
    SelectorTrim,
)
from ._stages import Run
from ._step_defects import FirstCallOnly, FrozenAtFirstCall


class SharedRef(GuardedPipeline):
    """The baseline is a new list of the very tool objects the request holds."""

    name: ClassVar[str] = "reference:defect/shared-ref"

    def take_baseline(self, run: Run) -> Callable[[], Snapshot]:
        return recapture(list(run.tools), run)


class SealBaseline(GuardedPipeline):
    """The final check compares the request with the seal made from that same request."""

    name: ClassVar[str] = "reference:defect/seal-baseline"

    def final_check(self, run: Run) -> None:
        self.check("final", run.seal or self.expected(run), run)


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


class NoSettle(GuardedPipeline):
    """The refusal is raised, but the reservation is never settled."""

    name: ClassVar[str] = "reference:defect/no-settle"

    def settle_refusal(self, run: Run, refusal: RequestRefused) -> None:
        pass


class TopNDrop(GuardedPipeline):
    """Context fitting sizes tools against the uncompressed conversation and keeps the first N that fit."""

    name: ClassVar[str] = "reference:defect/topn-drop"

    def fit_tools(self, run: Run, stage: Stage) -> None:
        room, kept = (stage.budget_tokens or 0) - estimate_tokens(run.messages), []
        for tool in run.tools:
            room -= estimate_tokens(run.fmt.logical(tool))
            if room < 0:
                break
            kept.append(tool)
        run.tools = kept


class HookControl(GuardedPipeline):
    """A control tool a hook added is taken into the baseline as if the host had admitted it."""

    name: ClassVar[str] = "reference:defect/hook-control"

    def early_check(self, run: Run) -> None:
        controls = {control.name for control in run.scenario.contract.controls}
        expected = self.expected(run).entries()
        admitted = {entry[0] for entry in expected}
        added = [run.fmt.logical(t) for t in run.tools if run.fmt.get_name(t) in controls - admitted]
        if added:
            rebased = Snapshot(canonical_json(expected + added))
            run.baseline = lambda: rebased
        super().early_check(run)


class NameKeyed(GuardedPipeline):
    """Compares the surfaces as name → descriptor maps: blind to order."""

    name: ClassVar[str] = "reference:defect/name-keyed"

    def same(self, expected: Snapshot, actual: Snapshot) -> bool:
        return _by_name(expected) == _by_name(actual)


class DescriptionPin(GuardedPipeline):
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


class WireBlind(GuardedPipeline):
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


class FinalOnlyLaundering(GuardedPipeline):
    """No early check, and re-validation re-bases the baseline on the request it re-validated."""

    name: ClassVar[str] = "reference:defect/final-only-laundering"

    def early_check(self, run: Run) -> None:
        pass

    def revalidate(self, run: Run, stage: Stage) -> None:
        super().revalidate(run, stage)
        rebased = capture(run.tools, run.fmt)
        run.baseline = lambda: rebased


class WrongLaneSettle(GuardedPipeline):
    """A refusal is always settled in the main lane's ledger, whichever lane opened it."""

    name: ClassVar[str] = "reference:defect/wrong-lane-settle"

    def settle_refusal(self, run: Run, refusal: RequestRefused) -> None:
        run.ports.ledger(Lane.MAIN).settle(run.reservation.request, Settlement.PRE_DISPATCH_REJECTED)


class SecondReceipt(GuardedPipeline):
    """After the owner's settlement, the guard records a receipt of its own for the refusal."""

    name: ClassVar[str] = "reference:defect/second-receipt"

    def settle_refusal(self, run: Run, refusal: RequestRefused) -> None:
        super().settle_refusal(run, refusal)
        run.ledger.settle(run.reservation, Settlement.FAILED, "surface guard receipt")


class DropsPublication(GuardedPipeline):
    """A refusal withdraws the body that was already publishable, as if the turn had failed."""

    name: ClassVar[str] = "reference:defect/drops-publication"

    def settle_refusal(self, run: Run, refusal: RequestRefused) -> None:
        super().settle_refusal(run, refusal)
        if run.scenario.publication is not None:
            run.ports.publications.withdraw(run.scenario.publication.id)


def _by_name(snapshot: Snapshot) -> dict[str, Any]:
    return {entry[0]: canonical_json(entry) for entry in snapshot.entries()}


def _three_fields(snapshot: Snapshot) -> bytes:
    return canonical_json([entry[:3] for entry in snapshot.entries()])


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


#: Defect name → its pipeline class.
DEFECTS: dict[str, type[GuardedPipeline]] = {
    cls.name.removeprefix("reference:defect/"): cls
    for cls in (
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
}
