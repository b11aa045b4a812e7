"""Defects of the rest of the contract: who may narrow the surface, what recovery restores, what
context fitting may do, what an entry summary may say, and why the early check exists.

Each is the guarded design with exactly one flaw.
"""

from __future__ import annotations

import dataclasses
from typing import ClassVar

from toolsurface.scenarios import FactKind, OwnerFact, Stage

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


class IdentityBlind(GuardedPipeline):
    """Takes every availability fact at face value: never asks who produced it or whom it binds."""

    name: ClassVar[str] = "reference:defect/identity-blind"

    def facts(self, run: Run) -> tuple[OwnerFact, ...]:
        binding = run.scenario.binding
        return tuple(
            dataclasses.replace(fact, owner=fact.kind.producer, bound_to=binding) for fact in super().facts(run)
        )


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
            run.self_hidden |= {run.fmt.get_name(tool) for tool in run.tools[len(kept):]}
            run.tools = kept


class EntryOverclaim(GuardedPipeline):
    """Checks an entry request's tools but not its capability summary, so an overclaim goes out."""

    name: ClassVar[str] = "reference:defect/entry-overclaim"

    def check_summary(self, checkpoint: str, run: Run) -> None:
        pass
