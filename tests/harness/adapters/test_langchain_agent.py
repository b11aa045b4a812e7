"""`langchain:PKG.MOD:FACTORY`: the user's own LangChain agent as a target, its boundaries named by its middleware."""

from __future__ import annotations

import pytest

langchain = pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")
if not langchain.__version__.startswith("1."):
    pytest.skip(f"needs LangChain 1.x (the langchain extra), found {langchain.__version__}", allow_module_level=True)

from tests.fixtures.frameworks import catalogue_at, run_cases
from toolsurface import scenarios
from toolsurface.contract._formats import FORMATS
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._ports import Ports
from toolsurface.harness._types import VerdictKind

APP = "langchain:tests.fixtures.agents.langchain_app:{}"


def planned_points(factory: str, scenario: str) -> list[str]:
    session = prepare(RunOptions(target=APP.format(factory), red_target="none", select=[f"{scenario}/*"]))
    return list(dict.fromkeys(str(case.boundary) for case in session.planned if case.scenario == scenario))


def test_the_boundaries_are_the_agents_own_named_by_its_middleware():
    assert planned_points("build", "etf-compare-main-hooked") == [
        "before:tracing",
        "after:tracing",
        "after:ProviderLimit",
    ]
    # Before each later model call of a run, the same boundaries again.
    assert planned_points("build", "etf-compare-main-tool-loop")[3:6] == [
        "before:tracing@2",
        "after:tracing@2",
        "after:ProviderLimit@2",
    ]
    # The guard's own middleware are not the agent's stages: with it, the same cases.
    assert planned_points("build_guarded", "etf-compare-main-hooked") == planned_points(
        "build", "etf-compare-main-hooked"
    )


def test_an_agent_without_middleware_has_the_models_boundary():
    assert planned_points("build_plain", "etf-compare-main-hooked") == ["before:model"]
    # No tools to bind: the boundary is where the model is called.
    assert planned_points("build_plain", "entry-main-portfolio-document") == ["before:model"]


OVER_LIMIT = "desk-research-main-openai-over-tool-limit/*/after:ProviderLimit/legit.*"


def test_the_flawed_middleware_fails_the_request_it_cuts_in_its_own_words():
    results = run_cases(APP.format("build"), [OVER_LIMIT])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results)
    assert all(
        "dispatched 128 of 140 required tools instead of an explicit capacity result" in r.verdict.reason
        for r in results
    )
    assert all(
        r.case.id.startswith("desk-research-main-openai-over-tool-limit/main/hooks/after:ProviderLimit/")
        for r in results
    )


#: A cross-section of the guarded agent's matrix: every kind at each of its boundaries, owner facts,
#: an entry summary, the tool loop's later calls, and the over-limit request its middleware would cut.
#: The cases derived from the contract (they test the shipped guard's comparisons, which the reference
#: run holds whole) run at the boundaries of one recording; the catalogue's at the tool loop's.
GUARDED_SELECTION = [
    "etf-compare-main-hooked/*/after:tracing/*",
    "etf-news-main-budget-exhausted/*/before:tracing/availability.*",
    "entry-main-portfolio-document/*/after:ProviderLimit/*",
    *catalogue_at("etf-compare-main-tool-loop/*/*@3"),
    "desk-research-main-openai-over-tool-limit/*/after:ProviderLimit/*",
]


def test_the_same_agent_with_the_guard_installed_passes():
    results = run_cases(APP.format("build_guarded"), GUARDED_SELECTION)
    failing = [(r.case.id, r.verdict) for r in results if not r.verdict.kind.ok]
    assert not failing, failing[:3]
    kinds = {r.verdict.kind for r in results}
    assert {VerdictKind.KILLED, VerdictKind.PASSED} <= kinds
    over = [
        r
        for r in results
        if r.case.scenario == "desk-research-main-openai-over-tool-limit" and r.case.must.value == "dispatch"
    ]
    assert over and all(r.verdict.reason.startswith("explicit capacity result") for r in over)


def test_every_change_at_every_boundary_of_a_stock_agent_reaches_the_model():
    results = run_cases(APP.format("build_plain"), ["etf-compare-main-hooked/*/*/delete.*"])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results)
    assert all(r.evidence.points == (scenarios.Boundary("before:model"),) for r in results)


def test_a_sync_only_middleware_runs_the_agent_synchronously():
    results = run_cases(APP.format("build_sync"), ["web-read-child-single-tool/*/*/delete.*"])
    assert {str(r.case.boundary) for r in results} == {"before:AuditLog", "after:AuditLog"}
    assert all(r.verdict.kind is VerdictKind.SURVIVED for r in results), [r.verdict for r in results]


def test_a_fact_recorded_for_a_model_call_is_in_force_from_that_calls_first_own_boundary():
    # The tool loop's budget fact arrives at the recorded `hook@3`; an agent's own boundaries are
    # not the recording's stages, so it joins the feed at the third call's first boundary.
    (scenario,) = [s for s in scenarios.load() if s.id == "etf-compare-main-tool-loop"]
    late = [fact for fact in scenario.contract.facts if fact.arrives == "hook@3"]
    assert late
    ports = Ports(scenario, FORMATS["logical"], None, None, own_boundaries=True)
    for _call in (1, 2):
        ports.inject("before:model", [], [])
        assert not set(late) & set(ports.facts.current())
        ports.gateway.dispatch("req", [], [])
    ports.inject("before:model", [], [])
    assert set(late) <= set(ports.facts.current())
