"""Defects of the rest of the contract: who may narrow the surface, what recovery restores, what
context fitting may do, what an entry summary may say, and why the early check exists.

Each is the shipped guard with exactly one step replaced.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Iterable, Sequence
from typing import Any, ClassVar

from toolsurface.contract._facts import FactKind, OwnerFact
from toolsurface.contract._guard import Capacity, GuardedRequest

from ._careless import diagnostic_hides, first_that_fit
from ._guarded import GuardedPipeline
from ._stages import Run, run_of


class FinalOnly(GuardedPipeline):
    """No early check: an owner re-validation that rebuilds the surface launders a hook's edit
    into something the final check accepts."""

    name: ClassVar[str] = "reference:defect/final-only"

    def early_check(self, run: Run) -> None:
        pass


class DiagnosticAuthority(GuardedRequest):
    """Reads diagnostic fields of tool results in the live request as availability, and hides tools."""

    name: ClassVar[str] = "reference:defect/diagnostic-authority"

    def hidden(self) -> frozenset[str]:
        return super().hidden() | diagnostic_hides(run_of(self).messages, self.web_tools)


class IdentityBlind(GuardedRequest):
    """Takes every availability fact at face value: never asks who produced it or whom it binds."""

    name: ClassVar[str] = "reference:defect/identity-blind"

    def facts(self) -> Iterable[OwnerFact]:
        binding = self.owner.binding
        return tuple(dataclasses.replace(fact, owner=fact.kind.producer, bound_to=binding) for fact in super().facts())


class AnyKnownOwner(GuardedRequest):
    """Trusts a fact from any owner it knows, whichever kind it is: the host's word on the search
    budget counts, and the web gateway's on the run deadline."""

    name: ClassVar[str] = "reference:defect/any-known-owner"

    def facts(self) -> Iterable[OwnerFact]:
        known = {kind.producer for kind in FactKind}
        return tuple(
            dataclasses.replace(fact, owner=fact.kind.producer) if fact.owner in known else fact
            for fact in super().facts()
        )


class LastScopeSegment(GuardedRequest):
    """Matches a fact's scope on its last path segment: `scope:other/etf-compare` passes for
    `scope:research/etf-compare`."""

    name: ClassVar[str] = "reference:defect/last-scope-segment"

    def facts(self) -> Iterable[OwnerFact]:
        ours = self.owner.binding
        return tuple(
            dataclasses.replace(fact, bound_to=dataclasses.replace(fact.bound_to, scope=ours.scope))
            if _last_segment(fact.bound_to.scope) == _last_segment(ours.scope)
            else fact
            for fact in super().facts()
        )


def _last_segment(scope: str) -> str:
    return scope.rsplit("/", 1)[-1]


class ChildObeysParent(GuardedRequest):
    """A child request obeys the facts bound to its parent, as if they were its own."""

    name: ClassVar[str] = "reference:defect/child-obeys-parent"

    def facts(self) -> Iterable[OwnerFact]:
        parent, ours = run_of(self).scenario.identity.parent, self.owner.binding
        return tuple(
            dataclasses.replace(fact, bound_to=ours) if parent is not None and fact.bound_to == parent else fact
            for fact in super().facts()
        )


class FactsReadOnce(GuardedRequest):
    """Reads the owner facts once, when the request is first projected: a trusted fact that arrives
    mid-run is never obeyed, and the request goes out with the tools it hides."""

    name: ClassVar[str] = "reference:defect/facts-read-once"

    read: tuple[OwnerFact, ...] | None = None

    def facts(self) -> Iterable[OwnerFact]:
        if self.read is None:
            self.read = tuple(super().facts())
        return self.read


class BudgetHidesRead(GuardedRequest):
    """An exhausted search budget hides web read too, though source references remain to be read."""

    name: ClassVar[str] = "reference:defect/budget-hides-read"

    def facts(self) -> Iterable[OwnerFact]:
        return tuple(
            dataclasses.replace(fact, source_refs=()) if fact.kind is FactKind.SEARCH_BUDGET_EXHAUSTED else fact
            for fact in super().facts()
        )


class RecoveryReparse(GuardedRequest):
    """Recovery rebuilds availability from the transcript's tool results instead of the sealed
    receipt: what the transcript's diagnostics said when the request was recovered stays hidden."""

    name: ClassVar[str] = "reference:defect/recovery-reparse"

    reparsed: frozenset[str] | None = None

    def hidden(self) -> frozenset[str]:
        run = run_of(self)
        if self.reparsed is None and "recovered_from" in run.metadata:
            self.reparsed = diagnostic_hides(run.messages, self.web_tools)
        return super().hidden() | (self.reparsed or frozenset())


class SilentCapacityDrop(GuardedRequest):
    """When the tools do not fit, keeps the first that do and sends those as if nothing happened:
    the cut is taken for a narrowing, so the checks expect the shortened list too."""

    name: ClassVar[str] = "reference:defect/silent-capacity-drop"

    cut: frozenset[str] = frozenset()

    def fit(self, tools: Any, messages: Sequence[Any], capacity: Capacity | None = None) -> Any:
        budget = (capacity or self.capacity or Capacity(0)).budget_tokens
        kept = first_that_fit(tools, list(messages), budget, self.fmt)
        if len(kept) == len(tools):
            return tools
        self.cut |= {self.fmt.get_name(tool) for tool in tools[len(kept) :]}
        return kept

    def hidden(self) -> frozenset[str]:
        return super().hidden() | self.cut


class EntryOverclaim(GuardedRequest):
    """Checks an entry request's tools but not its capability summary, so an overclaim goes out."""

    name: ClassVar[str] = "reference:defect/entry-overclaim"

    def check_summary(self, checkpoint: str, messages: Iterable[Any]) -> None:
        pass
