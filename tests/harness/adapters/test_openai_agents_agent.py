"""`openai-agents:PKG.MOD:FACTORY`: the user's own Agents SDK agent as a target, its boundaries named by its hooks."""

from __future__ import annotations

import pytest

agents = pytest.importorskip("agents", reason="needs the openai-agents extra: pip install 'toolsurface[openai-agents]'")
if not getattr(agents, "__version__", "").startswith("0.24."):
    pytest.skip(
        f"needs the OpenAI Agents SDK 0.24, found {getattr(agents, '__version__', '?')}", allow_module_level=True
    )

from tests.fixtures.frameworks import run_cases
from toolsurface import scenarios
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind

APP = "openai-agents:tests.fixtures.agents.openai_agents_app:{}"


def planned_points(factory: str, scenario: str) -> list[str]:
    """The boundaries the target declares for the scenario, as case ids name them."""
    (loaded,) = [s for s in scenarios.load() if s.id == scenario]
    return [str(at) for at in load_target(APP.format(factory)).checkpoints(loaded)]


def test_the_boundaries_are_the_applications_own_named_by_its_hooks():
    points = ["before:AppHooks.on_agent_start", "after:AppHooks.on_agent_start", "after:AppHooks.on_llm_start"]
    assert planned_points("build", "etf-compare-main-hooked") == points
    # The guard's own hooks and model get none: the guarded application has the same boundaries.
    assert planned_points("build_guarded", "etf-compare-main-hooked") == points
    # `on_agent_start` runs once per run: before a later model call, only `on_llm_start` is crossed.
    assert planned_points("build", "etf-compare-main-tool-loop")[3:5] == [
        "before:AppHooks.on_llm_start@2",
        "after:AppHooks.on_llm_start@2",
    ]


def test_an_agent_is_run_with_its_agent_hooks_and_without_any_with_the_models_boundary():
    assert planned_points("build_agent", "etf-compare-main-hooked") == [
        "before:Greeter.on_start",
        "after:Greeter.on_start",
    ]
    # No piece of its own before a later model call: there, the model's boundary.
    assert planned_points("build_agent", "etf-compare-main-tool-loop")[2:3] == ["before:model@2"]
    assert planned_points("build_plain", "etf-compare-main-hooked") == ["before:model"]


def test_every_change_at_the_models_boundary_of_a_stock_agent_reaches_the_model():
    results = run_cases(APP.format("build_plain"), ["etf-compare-main-hooked/*/*/delete.*"])
    assert results and all(r.verdict.kind is VerdictKind.SURVIVED for r in results), [r.verdict for r in results]
    assert all(r.evidence.points == (scenarios.Boundary("before:model"),) for r in results)


def test_the_flawed_hook_fails_the_unchanged_request_in_its_own_words():
    (result,) = run_cases(
        APP.format("build"),
        ["desk-research-main-openai-over-tool-limit/*/before:AppHooks.on_agent_start/legit.replace:compress:*"],
    )
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "dispatched 128 of 140 required tools instead of an explicit capacity result" in result.verdict.reason


def test_the_guarded_application_passes_a_cross_section():
    results = run_cases(
        APP.format("build_guarded"),
        [
            "desk-research-main-openai-over-tool-limit/*/*/legit.*",
            "etf-compare-main-hooked/*/after:AppHooks.on_llm_start/*",
            "etf-compare-main-tool-loop/*/*AppHooks.on_llm_start@2/delete.*",
        ],
    )
    kinds = {r.verdict.kind for r in results}
    assert results and kinds <= {VerdictKind.KILLED, VerdictKind.PASSED, VerdictKind.EQUIVALENT}, [
        r.verdict for r in results if r.verdict.kind not in kinds
    ]
    assert VerdictKind.KILLED in kinds and VerdictKind.PASSED in kinds
    over = [r for r in results if r.case.scenario == "desk-research-main-openai-over-tool-limit"]
    assert over and all(r.verdict.kind is VerdictKind.PASSED for r in over)


def test_a_handoff_is_part_of_the_surface_the_agent_admits_and_a_hook_that_rewords_it_is_caught():
    # The transfer tool goes out with the tools: admitted by the agent, so its unchanged requests pass.
    select = ["etf-compare-main-hooked/*/*/legit.*"]
    plain = run_cases(APP.format("build_handing_off"), select)
    failing = [r.verdict.reason for r in plain if not r.verdict.kind.ok]
    assert plain and not failing, failing[:2]
    # A hook that rewords it on the agent is a change the model would read: every request fails, naming it.
    reworded = run_cases(APP.format("build_rewording_its_handoff"), select)
    assert reworded and all(r.verdict.kind is VerdictKind.SURVIVED for r in reworded)
    assert all("description of 'transfer_to_pricing_desk'" in r.verdict.reason for r in reworded), reworded[0].verdict
