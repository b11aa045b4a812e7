"""Fan a step out into child branches that run concurrently, each in its own scope."""

from __future__ import annotations

import asyncio
from typing import Sequence

from .catalog import ToolCatalog
from .errors import BudgetRefused, ToolsetDrift
from .ledger import Ledger
from .models import CallRequest, CallResult, ToolSpec
from .parity import diff_toolsets
from .settings import Settings
from .state import ScopeBase
from .util import copy_specs, deep_specs


class BranchScope(ScopeBase):
    """A child branch: its tools are a part of the parent's."""

    parent: str | None = None

    def branch(self, label: str) -> "BranchScope":
        return self.model_copy(update={"label": label, "parent": self.label})


def _drift_from(delta: dict[str, list[str]] | None) -> ToolsetDrift:
    delta = delta or {"added": [], "removed": [], "changed": []}
    return ToolsetDrift(delta["added"], delta["removed"], delta["changed"])


class Fanout:
    def __init__(self, runner, ledger: Ledger, catalog: ToolCatalog, settings: Settings,
                 admitted_tools: Sequence[ToolSpec]) -> None:
        self._runner = runner
        self._ledger = ledger
        self._catalog = catalog
        self._settings = settings
        self.baseline = deep_specs(admitted_tools)

    def plan_scopes(self, labels: Sequence[str], budget_cents: int) -> list[BranchScope]:
        """One scope per label, with an even share of the tool slots and the budget."""
        limit = max(1, self._settings.max_tools // max(1, len(labels)))
        scopes: list[BranchScope] = []
        for label in labels:
            picked: list[ToolSpec] = []
            for entry in self._catalog.enabled():
                if entry.expensive and label != "research":
                    continue
                if len(picked) >= limit:
                    break
                picked.append(entry)
            scopes.append(BranchScope(label=label, tools=picked, budget_cents=budget_cents // len(labels)))
        return scopes

    def _granted(self, scope: BranchScope) -> list[ToolSpec]:
        wanted = {t.name for t in scope.tools}
        return [t for t in self.baseline if t.name in wanted]

    async def _run_child(self, scope: BranchScope, parent: CallRequest) -> CallResult:
        request = parent.model_copy(update={
            "graph_id": f"{parent.graph_id}/{scope.label}",
            "turn": 0,
            "tools": [t.model_copy(deep=True) for t in scope.tools],
        })
        expected = copy_specs(scope.tools)
        hold = self._ledger.reserve(request.graph_id, scope.budget_cents)
        pinned = self._granted(scope)
        try:
            if (delta := diff_toolsets(request.tools, pinned)) is not None:
                raise _drift_from(delta)
            result = await self._runner.call_model(request, expected)
        except BudgetRefused:
            self._ledger.settle(hold, outcome="refused")
            raise
        hold.spent_cents = result.usage.output_tokens // 1000
        self._ledger.settle(hold)
        return result

    async def retry_child(self, request: CallRequest) -> CallResult:
        """Send a child request again after a transient provider error."""
        expected = [t.model_copy(deep=True) for t in request.tools]
        replay = request.model_copy(update={"replay_of": request.graph_id})
        return await self._runner.call_model(replay, expected)

    async def fan_out(self, parent: CallRequest, labels: Sequence[str], budget_cents: int) -> dict[str, CallResult]:
        scopes = self.plan_scopes(labels, budget_cents)
        async with asyncio.TaskGroup() as tg:
            tasks = {s.label: tg.create_task(self._run_child(s, parent)) for s in scopes}
        return {label: task.result() for label, task in tasks.items()}

    def split(self, scope: BranchScope, labels: Sequence[str]) -> list[BranchScope]:
        """Sub-branches of a scope that share its grant."""
        return [scope.branch(label) for label in labels]
