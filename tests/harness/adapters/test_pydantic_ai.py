"""The pydantic-ai targets: a real Agent per case, offline, judged by the harness's own ports."""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest

pytest.importorskip("pydantic_ai", reason="needs the pydantic-ai extra: pip install 'toolsurface[pydantic-ai]'")

from pydantic_ai.messages import repair_messages

from tests.fixtures.frameworks import CROSS_SECTION, find_case, run_cases, settled
from toolsurface import scenarios
from toolsurface.contract._canonical import snapshot_of
from toolsurface.contract._formats import FORMATS
from toolsurface.contract._refusals import SurfaceRefused
from toolsurface.harness._adapters import ADAPTER_TARGETS
from toolsurface.harness._adapters import pydantic_ai as adapter
from toolsurface.harness._adapters._pydantic_ai_views import Crossing, history
from toolsurface.harness._ports import Ports
from toolsurface.harness._types import VerdictKind

GUARDED = "toolsurface.harness._adapters.pydantic_ai:guarded"
STOCK = "toolsurface.harness._adapters.pydantic_ai:stock"


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("pydantic-ai-adapter")


@pytest.fixture(scope="module")
def stock_results() -> dict:
    return {result.case.id: result for result in run_cases(STOCK, CROSS_SECTION)}


def test_factories_are_targets_with_a_format_and_a_name():
    for factory, name in ((adapter.stock, "pydantic-ai:stock"), (adapter.guarded, "pydantic-ai:guarded")):
        target = factory()
        assert target.name == name
        assert target.tool_format in FORMATS
        assert asyncio.iscoroutinefunction(target.run)
    assert {target.factory for target in ADAPTER_TARGETS.values() if target.extra == "pydantic-ai"} == {STOCK, GUARDED}


@pytest.mark.parametrize(
    "scenario, point, mutator, delivery, sent",
    [
        # A hook edits a schema in place: on the very dict the Tool holds.
        ("etf-compare-main-hooked", "hook", "schema.add_property", "in_place", "schema of"),
        ("etf-compare-main-hooked", "hook", "reorder.swap", "replace", "swapped"),
        ("etf-compare-main-hooked", "hook", "delete.first", "in_place", "removed"),
        # prepare_tools results are keyed by name: a second tool under an admitted name replaces it.
        ("etf-compare-main-hooked", "hook", "add.duplicate", "replace", "description of"),
        # Nothing checks the function tools after before_model_request, nor in a model wrapper.
        ("price-history-child-hooked", "context_fit", "add.foreign", "in_place", "added"),
        ("filings-scan-child-deadline", "async_prep", "description.append", "in_place", "description of"),
        ("etf-compare-main-hooked", "post_seal", "add.foreign", "replace", "added"),
        ("etf-compare-main-hooked", "post_seal", "rename.suffix", "in_place", "renamed"),
        ("entry-main-portfolio-document", "hook", "entry.overclaim", "in_place", "summary claims"),
    ],
)
def test_stock_dispatches_illegitimate_changes(stock_results, scenario, point, mutator, delivery, sent):
    result = find_case(stock_results.values(), scenario, point, mutator, delivery)
    assert result.verdict.kind is VerdictKind.SURVIVED, result.verdict.reason
    assert result.evidence.dispatches == 1
    assert any(line.startswith(sent) for line in result.evidence.diff), result.evidence.diff


def test_stock_sends_an_over_capacity_request_instead_of_a_capacity_result(stock_results):
    result = find_case(
        stock_results.values(), "holdings-review-main-over-capacity", "hook", "legit.compress", "replace"
    )
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "instead of an explicit capacity result" in result.verdict.reason


def test_stock_is_refused_by_pydantic_ai_itself_only_for_adds_and_renames_at_prepare_tools(stock_results):
    killed = [r for r in stock_results.values() if r.verdict.kind is VerdictKind.KILLED]
    assert killed
    for result in killed:
        assert result.evidence.stop.error_type == "FrameworkRefused"
        assert result.case.point in {"post_recovery", "hook", "post_revalidation"}
        assert result.case.mutation.kind in {"add", "rename", "control", "availability"}
        assert settled(result)[-1].endswith("as pre_dispatch_rejected")
    # A re-validation that rebuilds the tools launders a hook's add before pydantic-ai checks it.
    laundered = find_case(stock_results.values(), "note-refresh-main-mcp-hooked", "hook", "add.foreign", "replace")
    assert laundered.verdict.kind is VerdictKind.SURVIVED
    assert (
        find_case(stock_results.values(), "etf-compare-main-hooked", "hook", "add.foreign", "replace").verdict.kind
        is VerdictKind.KILLED
    )


# -- how pydantic-ai shares its objects --------------------------------------------------------


def _scenario(name: str):
    return next(s for s in scenarios.load(None) if s.id == name)


def _run(agent, scenario, point=None, injection=None, guarded=False) -> Ports:
    ports = Ports(scenario, FORMATS["logical"], point and scenarios.Boundary.parse(point), injection)
    asyncio.run(adapter.run_request(agent, adapter.Request.open(scenario, ports), guarded=guarded))
    return ports


def _mark_schema_in_place(tools, messages, facts):
    tools[0]["input_schema"]["x-edited"] = True  # the live dict: whatever shares it sees this
    return tools, messages


def _mark_schema_replaced(tools, messages, facts):
    first = {**tools[0], "input_schema": {**tools[0]["input_schema"], "x-edited": True}}
    return [first, *tools[1:]], messages


@pytest.mark.parametrize("point", ["hook", "context_fit", "post_seal"])
def test_an_in_place_schema_edit_leaks_into_later_runs_of_the_same_agent(point):
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario, guarded=False)
    first = _run(agent, scenario, point, _mark_schema_in_place)
    second = _run(agent, scenario)  # no mutation armed
    assert first.injected and first.gateway.log[0].surface != snapshot_of(scenario.surface)
    # `Tool.from_schema` keeps the dict it was given and hands it to every run's ToolDefinition.
    assert second.gateway.log[0].surface != snapshot_of(scenario.surface)
    assert second.gateway.log[0].surface.entries()[0][2]["x-edited"] is True


def test_a_replaced_schema_stays_in_its_own_run():
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario, guarded=False)
    _run(agent, scenario, "hook", _mark_schema_replaced)
    assert _run(agent, scenario).gateway.log[0].surface == snapshot_of(scenario.surface)


def test_the_guarded_agent_builds_each_runs_tools_so_an_edit_stays_in_its_run():
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario, guarded=True)
    with pytest.raises(SurfaceRefused) as refused:
        _run(agent, scenario, "post_seal", _mark_schema_in_place, guarded=True)
    assert refused.value.checkpoint == "final"
    # The next run of the same agent gets tools of its own, from the guard's baseline.
    assert _run(agent, scenario, guarded=True).gateway.log[0].surface == snapshot_of(scenario.surface)


def test_the_guarded_agent_carries_the_public_guard_with_the_contracts_baseline():
    from toolsurface.guard.pydantic_ai import SurfaceCheckpoint, SurfaceGuardCapability

    scenario = _scenario("etf-compare-main-hooked")
    chain = adapter.capabilities(scenario, SurfaceGuardCapability(adapter.contract_tools(scenario)))
    (guard,) = [c for c in chain if isinstance(c, SurfaceGuardCapability)]
    (early,) = [c for c in chain if isinstance(c, SurfaceCheckpoint)]
    assert early.guard is guard and early.name == "early"
    # Taken from the agent's Tool objects, the public guard's baseline is the contract's, byte for byte.
    assert guard.guard.baseline.raw == snapshot_of(scenario.contract.surface, guard.guard.fmt).raw


def test_the_target_keeps_one_agent_per_scenario():
    first, second = _scenario("etf-compare-main-hooked"), _scenario("price-history-child-hooked")
    target = adapter.stock()
    assert target.agent_for(first) is target.agent_for(first)
    assert target.agent_for(second) is not target.agent_for(first)
    assert adapter.stock().agent_for(first) is not target.agent_for(first)  # a host's agents are its own


# -- the views the harness sees --------------------------------------------------------------


@pytest.mark.parametrize("scenario", scenarios.load(None), ids=lambda s: s.id)
def test_a_recorded_conversation_survives_pydantic_ais_history_repair(scenario):
    """What the guard's capacity estimate and the gateway read is the recording, word for word."""
    repaired = repair_messages(history(scenario.request_messages), repair_last_response=False)
    assert Crossing((), repaired, "test").messages == [m.as_dict() for m in scenario.request_messages]


def test_an_unchanged_crossing_hands_back_the_framework_objects():
    scenario = _scenario("etf-compare-main-recovery")
    messages = history(scenario.request_messages)
    crossing = Crossing((), messages, "test")
    assert all(a is b for a, b in zip(crossing.model_messages(crossing.messages), messages, strict=True))


def test_an_in_place_message_edit_lands_on_the_live_part():
    scenario = _scenario("entry-main-portfolio-document")
    messages = history(scenario.request_messages)
    crossing = Crossing((), messages, "test")
    crossing.messages[0]["content"] = "edited"
    crossing.model_messages(crossing.messages)
    assert messages[0].parts[0].content == "edited"


def test_importing_without_pydantic_ai_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "pydantic_ai", None)
    monkeypatch.delitem(sys.modules, "toolsurface.harness._adapters.pydantic_ai")
    with pytest.raises(ImportError, match=r"toolsurface\[pydantic-ai\]"):
        importlib.import_module("toolsurface.harness._adapters.pydantic_ai")
