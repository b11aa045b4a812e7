"""The reference pipeline uses the guard as hosts do: it retries a refused model call once from the
registered tools, makes an MCP host's guard from the live tools listed, and lets a child or an
entry request's owner name what the guard does not know. Each shape is shown to matter: a guard
flawed where the shape reaches is caught there."""

import pytest

from tests.fixtures.planned import planned
from toolsurface.contract._guard import GuardedRequest, SurfaceGuard
from toolsurface.harness._plan import select
from toolsurface.harness._reference._guarded import GuardedPipeline, variant
from toolsurface.harness._runner import Runner
from toolsurface.harness._types import VerdictKind
from toolsurface.scenarios import Lane, Mode, load


@pytest.fixture(scope="module")
def scenarios():
    return load()


def run(scenarios, target, *patterns):
    return list(Runner(scenarios, target).run(select(planned(0), patterns)))


class ForgetsItsRefusal(GuardedRequest):
    """A request guard whose refusal does not stand: a retried model call is checked afresh."""

    name = "forgets-its-refusal"

    def check(self, checkpoint, tools, messages=()):
        self.refusal = None
        super().check(checkpoint, tools, messages)


def test_a_refused_call_is_retried_from_the_registered_tools_and_the_refusal_stands(scenarios):
    pattern = "etf-compare-main-openai/main/no-hooks/post_seal/add.replace:foreign:*"
    shipped = run(scenarios, GuardedPipeline(), pattern)
    assert shipped and all(r.verdict.kind is VerdictKind.KILLED for r in shipped)
    flawed = run(scenarios, variant(ForgetsItsRefusal)(), pattern)
    # The retry sends the registered tools, repaired: with the refusal forgotten, that goes out.
    assert flawed and all(r.verdict.kind is VerdictKind.SURVIVED for r in flawed)
    assert all("repaired instead of refused" in r.verdict.reason for r in flawed)


class Made(GuardedPipeline):
    """The shipped pipeline, noting each guard it made and for which scenario."""

    def __init__(self):
        self.made = []

    def guarded(self, run, admitted):
        guard = super().guarded(run, admitted)
        self.made.append((run.scenario, guard))
        return guard


def test_each_guard_is_made_as_the_recorded_host_holds_its_tools(scenarios, monkeypatch):
    seen = {}
    original = SurfaceGuard.take_baseline

    def noting(self, admitted, snapshot=None):
        seen[id(self)] = snapshot
        return original(self, admitted, snapshot)

    monkeypatch.setattr(SurfaceGuard, "take_baseline", noting)
    target = Made()
    records = run(scenarios, target, "*/legit.replace:unchanged:request")
    assert records and all(r.verdict.kind is VerdictKind.PASSED for r in records)
    kinds = set()
    for scenario, guard in target.made:
        lists_over_mcp = scenario.mcp is not None
        assert (seen[id(guard)] is None) is lists_over_mcp, scenario.id
        owner_says = scenario.lane is Lane.CHILD or scenario.mode is Mode.ENTRY
        assert (guard.web_tools, guard.summary) == (
            (None, None) if owner_says else (scenario.contract.web_tools, scenario.contract.summary)
        ), scenario.id
        kinds.add((lists_over_mcp, owner_says))
    assert kinds == {(False, False), (True, False), (False, True)}


class IgnoresItsOwner(GuardedRequest):
    """A request guard that takes what facts govern, the summary and the capacity from its guard alone."""

    name = "ignores-its-owner"

    def __init__(self, guard, owner):
        super().__init__(guard, owner)
        self.web_tools, self.summary, self.capacity = guard.web_tools, guard.summary, guard.capacity


def test_a_request_guard_that_ignores_its_owner_is_caught_on_child_and_entry_requests(scenarios):
    owned = ("filings-scan-child-deadline", "entry-main-portfolio-document")
    flawed = run(scenarios, variant(IgnoresItsOwner)(), *(f"{scenario}/*" for scenario in owned))
    assert {r.case.scenario for r in flawed if not r.verdict.kind.ok} == set(owned)
