"""The OpenAI Agents SDK targets: a real Agent per case, offline, judged by the harness's own ports."""

from __future__ import annotations

import asyncio
import importlib
import sys

import pytest

agents = pytest.importorskip("agents", reason="needs the openai-agents extra: pip install 'toolsurface[openai-agents]'")
if not all(hasattr(agents, name) for name in ("Agent", "FunctionTool", "Runner", "RunHooks", "RunConfig")):
    pytest.skip(
        "`agents` is not the OpenAI Agents SDK: pip install 'toolsurface[openai-agents]'", allow_module_level=True
    )

from tests.fixtures.frameworks import CROSS_SECTION, find_case, run_cases, settled
from toolsurface import scenarios
from toolsurface.contract._canonical import snapshot_of
from toolsurface.contract._formats import FORMATS
from toolsurface.contract._refusals import SurfaceRefused
from toolsurface.harness._adapters import openai_agents as adapter
from toolsurface.harness._adapters._openai_agents_views import (
    Crossing,
    input_items,
    message_views,
)
from toolsurface.harness._ports import Ports
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind
from toolsurface.mutators import Must

#: Loaded once: loading validates every recording.
SCENARIOS = {scenario.id: scenario for scenario in scenarios.load(None)}
GUARDED = "toolsurface.harness._adapters.openai_agents:guarded"
STOCK = "toolsurface.harness._adapters.openai_agents:stock"


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("openai-agents-adapter")


@pytest.fixture(scope="module")
def stock_results() -> list:
    return run_cases(STOCK, CROSS_SECTION)


def test_factories_are_targets_with_a_format_and_a_name():
    for factory, spec, name in (
        (adapter.stock, STOCK, "openai-agents:stock"),
        (adapter.guarded, GUARDED, "openai-agents:guarded"),
    ):
        target = factory()
        assert target.name == name
        assert target.tool_format in FORMATS
        assert asyncio.iscoroutinefunction(target.run)
        assert load_target(spec).name == name


def test_the_run_is_offline_with_tracing_off():
    scenario = _scenario("etf-compare-main-hooked")
    request = adapter.Request.open(scenario, Ports(scenario, FORMATS["logical"], None, None))
    config = adapter.run_config(request, None)
    assert config.tracing_disabled is True
    # Our own model object: the SDK never resolves a model name through a provider (no client, no key).
    assert isinstance(config.model, agents.models.interface.Model)


def test_guarded_refuses_a_hidden_tool_a_hook_puts_back_before_is_enabled_hides_it_again():
    ran = run_cases(GUARDED, ["etf-news-main-budget-exhausted/*/hook/availability.replace:reveal*"])
    result = find_case(ran, "etf-news-main-budget-exhausted", "hook", "availability.reveal", "replace")
    assert result.verdict.kind is VerdictKind.KILLED
    assert result.evidence.stop.error_type == "SurfaceRefused"


@pytest.mark.parametrize(
    "scenario, point, mutator, delivery, sent",
    [
        # A hook edits agent.tools before get_all_tools: the SDK sends whatever it finds there.
        ("etf-compare-main-hooked", "hook", "schema.add_property", "in_place", "schema of"),
        ("etf-compare-main-hooked", "hook", "reorder.swap", "replace", "swapped"),
        ("etf-compare-main-hooked", "hook", "delete.first", "in_place", "removed"),
        ("etf-compare-main-hooked", "hook", "add.foreign", "replace", "added"),
        ("etf-compare-main-recovery", "post_recovery", "rename.case", "replace", "renamed"),
        # Same-named tools: the SDK warns and keeps the last, so the hook's copy replaces the admitted one.
        ("etf-compare-main-hooked", "hook", "add.duplicate", "replace", "description of"),
        # After get_all_tools nothing checks the turn's tools: not the input filter, hooks or the model call.
        ("etf-news-main-budget-exhausted", "post_revalidation", "delete.last", "replace", "removed"),
        ("price-history-child-hooked", "context_fit", "add.foreign", "in_place", "added"),
        ("web-read-child-single-tool", "evidence", "schema.type", "in_place", "schema of"),
        ("etf-compare-main-mcp", "publication", "delete.last", "replace", "removed"),
        ("filings-scan-child-deadline", "async_prep", "description.append", "in_place", "description of"),
        ("etf-compare-main-hooked", "post_seal", "add.foreign", "replace", "added"),
        ("etf-compare-main-hooked", "post_seal", "rename.suffix", "in_place", "renamed"),
        # A rewritten capability summary, in the run input's own item and as a new message list.
        ("entry-main-portfolio-document", "hook", "entry.overclaim", "in_place", "summary claims"),
        ("entry-main-portfolio-document", "hook", "entry.overclaim", "replace", "summary claims"),
        ("entry-main-portfolio-document", "async_prep", "entry.overclaim", "replace", "summary claims"),
    ],
)
def test_stock_dispatches_illegitimate_changes(stock_results, scenario, point, mutator, delivery, sent):
    result = find_case(stock_results, scenario, point, mutator, delivery)
    assert result.verdict.kind is VerdictKind.SURVIVED, result.verdict.reason
    assert result.evidence.dispatches == 1
    assert any(line.startswith(sent) for line in result.evidence.diff), result.evidence.diff


def test_stock_sends_an_over_capacity_request_instead_of_a_capacity_result(stock_results):
    result = find_case(stock_results, "holdings-review-main-over-capacity", "hook", "legit.compress", "replace")
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "instead of an explicit capacity result" in result.verdict.reason


def test_stock_refuses_nothing_and_settles_every_request_once_as_dispatched(stock_results):
    by_id = SCENARIOS
    # A failure case's model call fails at the provider: nothing goes out (tests/harness/test_failures.py).
    ran = [r for r in stock_results if r.verdict.kind is not VerdictKind.EQUIVALENT and r.case.must is not Must.FAIL]
    assert all(r.verdict.kind in (VerdictKind.SURVIVED, VerdictKind.PASSED) for r in ran)
    for result in ran:
        scenario = by_id[result.case.scenario]
        assert result.evidence.dispatches == 1
        assert settled(result) == (f"{scenario.lane}: settle {scenario.identity.request} as dispatched",)


def test_stock_launders_some_hook_edits_before_they_reach_the_model(stock_results):
    # A re-validation that rebuilds agent.tools from the owners' descriptors undoes a hook's add ...
    rebuilt = find_case(stock_results, "note-refresh-main-mcp-hooked", "hook", "add.foreign", "replace")
    # ... and `is_enabled` hides again a hidden tool a hook put back: the model gets the expected surface.
    rehidden = find_case(stock_results, "etf-news-main-budget-exhausted", "hook", "availability.reveal", "replace")
    for result in (rebuilt, rehidden):
        assert result.verdict.kind is VerdictKind.SURVIVED  # an illegitimate change that was not refused
        assert result.evidence.dispatches == 1 and result.evidence.diff == ()


# -- how the SDK shares its objects ------------------------------------------------------------


def _scenario(name: str):
    return SCENARIOS[name]


def _run(agent, scenario, point=None, injection=None, guard=None) -> Ports:
    ports = Ports(scenario, FORMATS["logical"], point and scenarios.Boundary.parse(point), injection)
    asyncio.run(adapter.run_on(agent, guard, scenario, ports))
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
    agent = adapter.build_agent(scenario)
    first = _run(agent, scenario, point, _mark_schema_in_place)
    second = _run(agent, scenario)  # no mutation armed
    assert first.injected and first.gateway.log[0].surface != snapshot_of(scenario.surface)
    # A FunctionTool with strict_json_schema=False keeps the dict it was given, and every turn sends it.
    assert second.gateway.log[0].surface != snapshot_of(scenario.surface)
    assert second.gateway.log[0].surface.entries()[0][2]["x-edited"] is True


@pytest.mark.parametrize("point", ["context_fit", "async_prep", "post_seal"])
def test_a_replaced_tool_after_get_all_tools_stays_in_its_own_run(point):
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario)
    first = _run(agent, scenario, point, _mark_schema_replaced)
    assert first.gateway.log[0].surface.entries()[0][2]["x-edited"] is True
    assert _run(agent, scenario).gateway.log[0].surface == snapshot_of(scenario.surface)


def test_a_hook_replaces_the_agents_own_tools_for_every_later_run():
    # on_agent_start edits Agent.tools itself: even a replaced tool stays on the agent.
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario)
    _run(agent, scenario, "hook", _mark_schema_replaced)
    assert _run(agent, scenario).gateway.log[0].surface.entries()[0][2]["x-edited"] is True


@pytest.mark.parametrize("point, edit", [("hook", "replaced"), ("post_seal", "in_place")])
def test_the_guard_runs_each_request_on_a_clone_with_tools_of_its_own(point, edit):
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario)
    guard = adapter.guard_for(scenario, agent.tools)  # once, with the agent, as a host installs it
    mark = _mark_schema_replaced if edit == "replaced" else _mark_schema_in_place
    with pytest.raises(SurfaceRefused):
        _run(agent, scenario, point, mark, guard)
    # Neither a hook's new list nor an in-place edit reached the agent: the next run is as a clean one.
    assert _run(agent, scenario, guard=guard).gateway.log[0].surface == snapshot_of(scenario.surface)
    assert all("x-edited" not in tool.params_json_schema for tool in agent.tools)


# -- the views the harness sees --------------------------------------------------------------


@pytest.mark.parametrize("scenario", SCENARIOS.values(), ids=lambda s: s.id)
def test_a_recorded_conversation_reads_back_word_for_word(scenario):
    """What the guard's capacity estimate and the gateway read is the recording, word for word."""
    assert message_views(input_items(scenario.request_messages)) == [m.as_dict() for m in scenario.request_messages]


def test_every_tool_result_goes_out_right_after_its_call():
    items = input_items(_scenario("etf-compare-main-hooked").request_messages)
    for index, item in enumerate(items):
        if item.get("type") == "function_call_output":
            assert items[index - 1] == {**items[index - 1], "type": "function_call", "call_id": item["call_id"]}


def test_an_unchanged_crossing_hands_back_the_sdk_objects():
    items = input_items(_scenario("etf-compare-main-recovery").request_messages)
    crossing = Crossing((), items, "test", adapter.function_tool)
    assert all(a is b for a, b in zip(crossing.input_items(crossing.messages), items, strict=True))


def test_an_in_place_message_edit_lands_on_the_live_item():
    items = input_items(_scenario("entry-main-portfolio-document").request_messages)
    crossing = Crossing((), items, "test", adapter.function_tool)
    crossing.messages[0]["content"] = "edited"
    crossing.input_items(crossing.messages)
    assert items[0]["content"] == "edited"


def test_an_in_place_tool_edit_lands_on_the_live_function_tool():
    tools = adapter.project(_scenario("etf-compare-main-hooked"))
    crossing = Crossing(tools, (), "test", adapter.function_tool)
    crossing.tools[0]["name"] = "renamed"
    crossing.tools[1]["input_schema"]["x-edited"] = True
    back = crossing.function_tools(crossing.tools)
    assert back[0] is tools[0] and tools[0].name == "renamed"
    assert tools[1].params_json_schema["x-edited"] is True


def test_importing_without_the_sdk_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "agents", None)
    monkeypatch.delitem(sys.modules, "toolsurface.harness._adapters.openai_agents")
    with pytest.raises(ImportError, match=r"toolsurface\[openai-agents\]"):
        importlib.import_module("toolsurface.harness._adapters.openai_agents")
