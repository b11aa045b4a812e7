"""`pydantic-ai:PKG.MOD:FACTORY`: the user's own pydantic-ai agent as a target, its boundaries named by its
capabilities."""

from __future__ import annotations

import pytest

pydantic_ai = pytest.importorskip(
    "pydantic_ai", reason="needs the pydantic-ai extra: pip install 'toolsurface[pydantic-ai]'"
)
if not pydantic_ai.__version__.startswith("2."):
    pytest.skip(
        f"needs pydantic-ai 2.x (the pydantic-ai extra), found {pydantic_ai.__version__}", allow_module_level=True
    )

from tests.fixtures.frameworks import catalogue_at, run_cases
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._types import VerdictKind
from toolsurface.scenarios import Boundary

APP = "pydantic-ai:tests.fixtures.agents.pydantic_ai_app:{}"


def planned_points(factory: str, scenario: str) -> list[str]:
    session = prepare(RunOptions(target=APP.format(factory), red_target="none", select=[f"{scenario}/*"]))
    return list(dict.fromkeys(str(case.boundary) for case in session.planned if case.scenario == scenario))


def test_the_boundaries_are_the_agents_own_named_by_its_capabilities():
    # The tool hooks in capability order, then the history processor's request hook.
    assert planned_points("build", "etf-compare-main-hooked") == [
        "before:Tracing",
        "after:Tracing",
        "after:provider_limit",
        "after:keep_recent",
    ]
    # Before each later model call of a run, the same boundaries again.
    assert planned_points("build", "etf-compare-main-tool-loop")[4:8] == [
        "before:Tracing@2", "after:Tracing@2", "after:provider_limit@2", "after:keep_recent@2"
    ]  # fmt: skip
    # The guard's own capabilities are not the agent's stages: with them, the same cases.
    assert planned_points("build_guarded", "etf-compare-main-hooked") == planned_points(
        "build", "etf-compare-main-hooked"
    )


def test_an_agent_without_hooks_of_its_own_has_the_models_boundary():
    assert planned_points("build_plain", "etf-compare-main-hooked") == ["before:model"]
    results = run_cases(APP.format("build_plain"), ["etf-compare-main-hooked/*/*/delete.*"])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results)
    assert all(r.evidence.points == (Boundary("before:model"),) for r in results)


OVER_LIMIT = "desk-research-main-openai-over-tool-limit/*/after:provider_limit/legit.*"


def test_the_flawed_prepare_function_fails_the_request_it_cuts_in_its_own_words():
    results = run_cases(APP.format("build"), [OVER_LIMIT])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results)
    assert all(
        "dispatched 128 of 140 required tools instead of an explicit capacity result" in r.verdict.reason
        for r in results
    )
    assert all(
        r.case.id.startswith("desk-research-main-openai-over-tool-limit/main/hooks/after:provider_limit/")
        for r in results
    )


#: A cross-section of the guarded agent's matrix: every kind at a tool hook and at the history
#: processor, owner facts, an entry summary, the tool loop's later calls, a request over its
#: token budget, and the over-limit request its prepare function would cut. The cases derived from
#: the contract (they test the shipped guard's comparisons, which the reference run holds whole) run
#: at one boundary of one recording; the catalogue's at the others.
GUARDED_SELECTION = [
    "etf-compare-main-hooked/*/after:Tracing/*",
    "etf-compare-main-hooked/*/after:keep_recent/*",
    "etf-news-main-budget-exhausted/*/before:Tracing/availability.*",
    "entry-main-portfolio-document/*/after:provider_limit/*",
    *catalogue_at("etf-compare-main-tool-loop/*/*@3"),
    *catalogue_at("holdings-review-main-over-capacity/*/after:keep_recent"),
    "desk-research-main-openai-over-tool-limit/*/after:provider_limit/*",
]


def test_the_same_agent_with_the_guard_installed_passes():
    results = run_cases(APP.format("build_guarded"), GUARDED_SELECTION)
    failing = [(r.case.id, r.verdict) for r in results if not r.verdict.kind.ok]
    assert not failing, failing[:3]
    assert {VerdictKind.KILLED, VerdictKind.PASSED} <= {r.verdict.kind for r in results}
    over = [
        r
        for r in results
        if r.case.scenario == "desk-research-main-openai-over-tool-limit" and r.case.must.value == "dispatch"
    ]
    assert over and all(r.verdict.reason.startswith("explicit capacity result") for r in over)


def test_a_fallback_that_meets_the_guards_refusal_on_every_model_is_a_refusal_not_a_crash():
    # `ModelFallback(model, fallback_on=any error)`: the guard refuses the request on each model, and
    # pydantic-ai raises the attempts as one group; the request was refused, and settled once.
    stock = "pydantic-ai:tests.fixtures.agents.stock_middleware_pydantic_ai:model_fallback_on_any_error_guarded"
    results = run_cases(stock, ["holdings-review-main-over-capacity/*/legit.*", "etf-compare-main-hooked/*/delete.*"])
    failing = [(r.case.id, r.verdict.reason) for r in results if not r.verdict.kind.ok]
    assert results and not failing, failing[:2]
    assert {r.verdict.kind for r in results} == {VerdictKind.KILLED, VerdictKind.PASSED}


def test_an_agents_own_tools_are_read_under_the_names_its_toolsets_give_them():
    from pydantic_ai import Tool
    from pydantic_ai.toolsets import CombinedToolset, FunctionToolset

    from toolsurface.harness._adapters.pydantic_ai_agent import listed

    def search(query: str) -> str:
        """Search."""
        return query

    def read(url: str) -> str:
        """Read."""
        return url

    plain = FunctionToolset([Tool(search), Tool(read)])
    named = CombinedToolset([plain.prefixed("desk"), FunctionToolset([Tool(read)]).renamed({"fetch": "read"})])
    assert list(listed(named)) == ["desk_search", "desk_read", "fetch"]
    assert list(listed(plain.filtered(lambda ctx, tool: True))) == ["search", "read"]
