"""An agent with tools of its own, on each framework: `FACTORY(model)` is tested on scenarios derived
from the tools it registers, its tools answered from the recording and never run."""

from __future__ import annotations

import pytest

from tests.fixtures.frameworks import run_cases
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._types import VerdictKind

APPS = [
    pytest.param("langchain", "langchain_own_tools_app", id="langchain"),
    pytest.param("pydantic-ai", "pydantic_ai_own_tools_app", id="pydantic-ai"),
    pytest.param("openai-agents", "openai_agents_own_tools_app", id="openai-agents"),
]
FRAMEWORK_MODULES = {"langchain": "langchain", "pydantic-ai": "pydantic_ai", "openai-agents": "agents"}


def _spec(framework, module, factory):
    pytest.importorskip(FRAMEWORK_MODULES[framework], reason=f"needs the {framework} extra")
    return f"{framework}:tests.fixtures.agents.{module}:{factory}"


@pytest.mark.parametrize(("framework", "module"), APPS)
def test_the_guarded_agent_passes_its_own_scenarios_and_its_tools_never_run(framework, module):
    # The fixture's tools raise if run: a passing tool loop had each of its calls answered.
    results = run_cases(_spec(framework, module, "build_guarded"), ["*/legit.*", "own-tool-loop/*/delete.*"])
    failing = [(r.case.id, r.verdict.reason) for r in results if not r.verdict.kind.ok]
    scenarios = {r.case.scenario for r in results}
    # The derived scenarios of its tools, and each at its limits' edges (`own-request@budget_tokens+1`).
    assert {scenario.partition("@")[0] for scenario in scenarios} == {
        "own-request",
        "own-tool-loop",
        "own-over-budget",
        "own-over-tool-limit",
    }
    assert not failing, failing[:3]
    loop = [r for r in results if r.case.scenario == "own-tool-loop" and r.verdict.kind is VerdictKind.PASSED]
    assert loop and {r.evidence.dispatches for r in loop} == {3}
    over = {r.case.scenario for r in results if r.verdict.code is ReasonCode.CAPACITY_RESULT}
    assert over == {"own-over-budget", "own-over-tool-limit"} | {s for s in scenarios if s.endswith("+1")}


@pytest.mark.parametrize(("framework", "module"), APPS)
def test_the_unguarded_agent_fails_in_its_flawed_piece_s_words(framework, module):
    results = run_cases(_spec(framework, module, "build"), ["own-request/*/legit.replace:evidence:*"])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results)
    assert all("description of 'get_weather' cut from 30 to 20 characters" in r.verdict.reason for r in results)


def test_an_agent_with_tools_of_its_own_refuses_a_recording_of_other_tools():
    from toolsurface.common._errors import UsageError
    from toolsurface.harness._api import RunOptions, prepare
    from toolsurface.scenarios import bundled_dir

    recording = bundled_dir() / "web-read-child-single-tool.json"
    options = RunOptions(target=_spec("langchain", "langchain_own_tools_app", "build"), scenarios=(recording,))
    with pytest.raises(UsageError, match=r"web-read-child-single-tool\.json: admits 'market__web_read', which"):
        prepare(options)


def test_a_pydantic_ai_agent_whose_capability_prefixes_its_tools_is_tested_under_the_names_the_model_sees():
    # PrefixTools renames the tools of the capability it wraps: the admitted tools are the renamed
    # ones, so unguarded the unchanged requests pass, and a renamed tool that reaches the model is
    # named by the name the model saw (pydantic-ai itself refuses one renamed in `prepare_tools`).
    results = run_cases(
        _spec("pydantic-ai", "stock_middleware_pydantic_ai", "prefix_tools"),
        ["own-request/*/legit.*", "own-request/*/rename.*"],
    )
    legit = [r for r in results if r.case.mutation.kind == "legit"]
    renamed = [r for r in results if r.case.mutation.kind == "rename"]
    assert legit and all(r.verdict.kind is VerdictKind.PASSED for r in legit), [r.verdict.reason for r in legit][:2]
    survived = [r for r in renamed if r.verdict.kind is VerdictKind.SURVIVED]
    assert renamed and {r.verdict.kind for r in renamed} == {VerdictKind.KILLED, VerdictKind.SURVIVED}
    assert all("renamed 'desk_" in r.verdict.reason for r in survived), survived[0].verdict.reason
