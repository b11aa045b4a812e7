"""`langchain:PKG.MOD:FACTORY`: the user's own LangChain agent as a target, its boundaries named by its middleware."""

from __future__ import annotations

import pytest

langchain = pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")
if not langchain.__version__.startswith("1."):
    pytest.skip(f"needs LangChain 1.x (the langchain extra), found {langchain.__version__}", allow_module_level=True)

from tests.fixtures.frameworks import run_cases  # noqa: E402
from toolsurface import scenarios  # noqa: E402
from toolsurface.harness._api import RunOptions, prepare  # noqa: E402
from toolsurface.harness._errors import TargetError  # noqa: E402
from toolsurface.harness._formats import FORMATS  # noqa: E402
from toolsurface.harness._ports import Ports  # noqa: E402
from toolsurface.harness._targets import load_target  # noqa: E402
from toolsurface.harness._types import VerdictKind  # noqa: E402

APP = "langchain:tests.fixtures.agents.langchain_app:{}"


def planned_points(factory: str, scenario: str) -> list[str]:
    session = prepare(RunOptions(target=APP.format(factory), red_target="none", select=[f"{scenario}/*"]))
    return list(dict.fromkeys(case.at for case in session.planned if case.scenario == scenario))


def test_the_boundaries_are_the_agents_own_named_by_its_middleware():
    assert planned_points("build", "etf-compare-main-hooked") == ["before:tracing", "after:tracing", "after:TokenSaver"]
    # Before each later model call of a run, the same boundaries again.
    assert planned_points("build", "etf-compare-main-tool-loop")[3:6] == ["before:tracing@2", "after:tracing@2", "after:TokenSaver@2"]


def test_an_agent_without_middleware_has_the_models_boundary():
    assert planned_points("build_plain", "etf-compare-main-hooked") == ["before:model"]
    # No tools to bind: the boundary is where the model is called.
    assert planned_points("build_plain", "entry-main-portfolio-document") == ["before:model"]


def test_the_flawed_middleware_fails_the_unchanged_request_in_its_own_words():
    (result,) = run_cases(APP.format("build"), ["etf-compare-main-hooked/*/after:TokenSaver/legit.replace:key_order:*"])[:1]
    assert result.verdict.kind is VerdictKind.FALSE_REJECT or result.verdict.kind is VerdictKind.SURVIVED
    assert "changed at /properties/query/description" in result.verdict.reason
    assert result.case.id.startswith("etf-compare-main-hooked/main/hooks/after:TokenSaver/")


def test_every_change_at_every_boundary_of_a_stock_agent_reaches_the_model():
    results = run_cases(APP.format("build_plain"), ["etf-compare-main-hooked/*/*/delete.*"])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results)
    assert all(r.evidence.points == ("before:model",) for r in results)


def test_a_sync_only_middleware_runs_the_agent_synchronously():
    results = run_cases(APP.format("build_sync"), ["web-read-child-single-tool/*/*/delete.*"])
    assert {r.case.at for r in results} == {"before:AuditLog", "after:AuditLog"}
    assert all(r.verdict.kind is VerdictKind.SURVIVED for r in results), [r.verdict for r in results]


def test_a_fact_recorded_for_a_model_call_is_in_force_from_that_calls_first_own_boundary():
    # The tool loop's budget fact arrives at the recorded `hook@3`; an agent's own boundaries are
    # not the recording's stages, so it joins the feed at the third call's first boundary.
    (scenario,) = [s for s in scenarios.load() if s.id == "etf-compare-main-tool-loop"]
    late = [fact for fact in scenario.contract.facts if fact.arrives == "hook@3"]
    assert late
    ports = Ports(scenario, FORMATS["logical"], None, None, own_boundaries=True)
    for call in (1, 2):
        ports.inject("before:model", [], [])
        assert not set(late) & set(ports.facts.current())
        ports.gateway.dispatch("req", [], [])
    ports.inject("before:model", [], [])
    assert set(late) <= set(ports.facts.current())


@pytest.mark.parametrize(
    ("factory", "expected"),
    [
        ("nothing", "has no attribute 'nothing'"),
        ("not_a_factory", "expected a factory FACTORY(tools, model) that returns the agent"),
    ],
)
def test_a_spec_that_names_no_agent_factory_is_a_one_line_error(factory, expected):
    with pytest.raises(TargetError) as error:
        load_target(APP.format(factory))
    assert expected in str(error.value)
    assert "\n" not in str(error.value)
