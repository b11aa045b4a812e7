"""Defects of the rest of the contract: who may narrow the surface, what recovery restores, what
context fitting may do, what an entry summary may say, and why the early check exists.

Each is the guarded design with exactly one flaw.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from toolsurface.contract._canonical import Snapshot
from toolsurface.contract._facts import FactKind, OwnerFact
from toolsurface.scenarios import Stage

from .._capacity import compress, estimate_tokens
from ._diagnostics import diagnostic_hides
from ._guarded import GuardedPipeline
from ._stages import Run


class FinalOnly(GuardedPipeline):
    """No early check: an owner re-validation that rebuilds the surface launders a hook's edit
    into something the final check accepts."""

    name: ClassVar[str] = "reference:defect/final-only"

    def early_check(self, run: Run) -> None:
        pass


class DiagnosticAuthority(GuardedPipeline):
    """Reads diagnostic fields of tool results in the live request as availability, and hides tools."""

    name: ClassVar[str] = "reference:defect/diagnostic-authority"

    def hidden(self, run: Run) -> frozenset[str]:
        return super().hidden(run) | diagnostic_hides(run.messages, run.scenario.contract.web_tools)

    def expected(self, run: Run) -> Snapshot:
        # Its checks take the diagnostic's word too, the moment it appears.
        return super().expected(run).without(diagnostic_hides(run.messages, run.scenario.contract.web_tools))


class IdentityBlind(GuardedPipeline):
    """Takes every availability fact at face value: never asks who produced it or whom it binds."""

    name: ClassVar[str] = "reference:defect/identity-blind"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        binding = run.scenario.binding
        return tuple(
            dataclasses.replace(fact, owner=fact.kind.producer, bound_to=binding) for fact in super().facts(run)
        )


class AnyKnownOwner(GuardedPipeline):
    """Trusts a fact from any owner it knows, whichever kind it is: the host's word on the search
    budget counts, and the web gateway's on the run deadline."""

    name: ClassVar[str] = "reference:defect/any-known-owner"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        known = {kind.producer for kind in FactKind}
        return tuple(
            dataclasses.replace(fact, owner=fact.kind.producer) if fact.owner in known else fact
            for fact in super().facts(run)
        )


class LastScopeSegment(GuardedPipeline):
    """Matches a fact's scope on its last path segment: `scope:other/etf-compare` passes for
    `scope:research/etf-compare`."""

    name: ClassVar[str] = "reference:defect/last-scope-segment"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        ours = run.scenario.binding
        return tuple(
            dataclasses.replace(fact, bound_to=dataclasses.replace(fact.bound_to, scope=ours.scope))
            if _last_segment(fact.bound_to.scope) == _last_segment(ours.scope)
            else fact
            for fact in super().facts(run)
        )


def _last_segment(scope: str) -> str:
    return scope.rsplit("/", 1)[-1]


class ChildObeysParent(GuardedPipeline):
    """A child request obeys the facts bound to its parent, as if they were its own."""

    name: ClassVar[str] = "reference:defect/child-obeys-parent"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        parent, ours = run.scenario.identity.parent, run.scenario.binding
        return tuple(
            dataclasses.replace(fact, bound_to=ours) if parent is not None and fact.bound_to == parent else fact
            for fact in super().facts(run)
        )


class FactsReadOnce(GuardedPipeline):
    """Reads the owner facts once, when the request is first projected: a trusted fact that arrives
    mid-run is never obeyed, and the request goes out with the tools it hides."""

    name: ClassVar[str] = "reference:defect/facts-read-once"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        if run.facts_read is None:
            run.facts_read = super().facts(run)
        return run.facts_read


class BudgetHidesRead(GuardedPipeline):
    """An exhausted search budget hides web read too, though source references remain to be read."""

    name: ClassVar[str] = "reference:defect/budget-hides-read"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        return tuple(
            dataclasses.replace(fact, source_refs=()) if fact.kind is FactKind.SEARCH_BUDGET_EXHAUSTED else fact
            for fact in super().facts(run)
        )


class RecoveryReparse(GuardedPipeline):
    """Recovery rebuilds availability from the transcript's tool results instead of the sealed receipt."""

    name: ClassVar[str] = "reference:defect/recovery-reparse"

    def recover(self, run: Run, stage: Stage) -> None:
        run.self_hidden = diagnostic_hides(run.messages, run.scenario.contract.web_tools)
        super().recover(run, stage)


class SilentCapacityDrop(GuardedPipeline):
    """When the tools do not fit, keeps the first that do and sends those as if nothing happened."""

    name: ClassVar[str] = "reference:defect/silent-capacity-drop"

    def fit_tools(self, run: Run, stage: Stage) -> None:
        fitted = compress(run.messages, stage.keep_messages or len(run.messages))
        room, kept = (stage.budget_tokens or 0) - estimate_tokens(fitted), []
        for tool in run.tools:
            room -= estimate_tokens(run.fmt.logical(tool))
            if room < 0:
                break
            kept.append(tool)
        if len(kept) < len(run.tools):
            # The cut is taken for a narrowing, so the checks expect the shortened list too.
            run.self_hidden |= {run.fmt.get_name(tool) for tool in run.tools[len(kept) :]}
            run.tools = kept


class EntryOverclaim(GuardedPipeline):
    """Checks an entry request's tools but not its capability summary, so an overclaim goes out."""

    name: ClassVar[str] = "reference:defect/entry-overclaim"

    def check_summary(self, checkpoint: str, run: Run) -> None:
        pass
