"""The LangChain targets: a real `create_agent` agent per case, offline, judged by the harness's own ports."""

from __future__ import annotations

import asyncio
import functools
import importlib
import os
import subprocess
import sys

import pytest

langchain = pytest.importorskip("langchain", reason="needs the langchain extra: pip install 'toolsurface[langchain]'")
if not langchain.__version__.startswith("1."):
    pytest.skip(f"needs LangChain 1.x (the langchain extra), found {langchain.__version__}", allow_module_level=True)

from langchain_core.utils.function_calling import convert_to_openai_tool

from tests.fixtures.frameworks import find_case, run_cases, settled
from toolsurface import scenarios
from toolsurface.contract._canonical import snapshot_of
from toolsurface.contract._formats import FORMATS
from toolsurface.contract._refusals import SurfaceRefused
from toolsurface.harness._adapters import langchain as adapter
from toolsurface.harness._adapters._langchain_views import (
    Crossing,
    history,
    message_views,
    tool_of,
    tool_view,
)
from toolsurface.harness._ports import Ports
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind

GUARDED = "toolsurface.harness._adapters.langchain:guarded"
STOCK = "toolsurface.harness._adapters.langchain:stock"

#: What the stock tests below look at.
STOCK_SELECTION = [
    "etf-compare-main-hooked/*/hook/*",
    "etf-compare-main-hooked/*/post_seal/*",
    "note-refresh-main-mcp-hooked/*/hook/*.replace:*",
    "price-history-child-hooked/*/context_fit/*.in_place:*",
    "filings-scan-child-deadline/*/async_prep/*.in_place:*",
    "entry-main-portfolio-document/*/hook/*",
    "holdings-review-main-over-capacity/*/hook/*.replace:*",
]


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("langchain-adapter")


@pytest.fixture(scope="module")
def stock_results() -> list:
    return run_cases(STOCK, STOCK_SELECTION)


def test_factories_are_targets_with_a_format_and_a_name():
    for spec, factory, name in (
        (STOCK, adapter.stock, "langchain:stock"),
        (GUARDED, adapter.guarded, "langchain:guarded"),
    ):
        target = factory()
        assert target.name == name
        assert target.tool_format in FORMATS
        assert asyncio.iscoroutinefunction(target.run)
        assert type(load_target(spec)) is adapter.LangChainTarget


@pytest.mark.parametrize(
    "scenario, point, mutator, delivery, sent",
    [
        # A hook edits a schema in place: on the very dict the ToolNode's StructuredTool holds.
        ("etf-compare-main-hooked", "hook", "schema.add_property", "in_place", "schema of"),
        ("etf-compare-main-hooked", "hook", "reorder.swap", "replace", "swapped"),
        ("etf-compare-main-hooked", "hook", "delete.first", "in_place", "removed"),
        # LangChain checks only that each tool's name is one its ToolNode knows: a second tool under an admitted name
        # passes.
        ("etf-compare-main-hooked", "hook", "add.duplicate", "replace", "added"),
        ("etf-compare-main-hooked", "post_seal", "add.duplicate", "in_place", "added"),
        # Nothing checks request.tools after a wrap_model_call but that name check.
        ("price-history-child-hooked", "context_fit", "description.append", "in_place", "description of"),
        ("filings-scan-child-deadline", "async_prep", "schema.add_property", "in_place", "schema of"),
        ("etf-compare-main-hooked", "post_seal", "control.remove", "replace", "removed"),
        ("entry-main-portfolio-document", "hook", "entry.overclaim", "in_place", "summary claims"),
    ],
)
def test_stock_dispatches_illegitimate_changes(stock_results, scenario, point, mutator, delivery, sent):
    result = find_case(stock_results, scenario, point, mutator, delivery)
    assert result.verdict.kind is VerdictKind.SURVIVED, result.verdict.reason
    assert result.evidence.dispatches == 1
    assert any(line.startswith(sent) for line in result.evidence.diff), result.evidence.diff


def test_stock_rewrites_every_schema_with_defs_on_its_way_to_the_model(stock_results):
    """Even a legitimate change goes out with another surface: `convert_to_openai_tool` inlines `$ref`s."""
    result = find_case(stock_results, "etf-compare-main-hooked", "hook", "legit.compress", "replace")
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert any(line.endswith("changed at /$defs (removed)") for line in result.evidence.diff), result.evidence.diff
    # Without tools nothing is rewritten: the entry request's legitimate changes pass.
    entry = [
        r
        for r in stock_results
        if r.case.scenario == "entry-main-portfolio-document" and r.case.mutation.kind == "legit"
    ]
    assert entry and all(r.verdict.kind is VerdictKind.PASSED for r in entry)


def test_stock_sends_an_over_capacity_request_instead_of_a_capacity_result(stock_results):
    result = find_case(stock_results, "holdings-review-main-over-capacity", "hook", "legit.compress", "replace")
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "instead of an explicit capacity result" in result.verdict.reason


def test_stock_is_refused_by_langchain_itself_only_for_names_its_tool_node_does_not_know(stock_results):
    killed = [r for r in stock_results if r.verdict.kind is VerdictKind.KILLED]
    assert killed
    for result in killed:
        assert result.evidence.stop.error_type == "FrameworkRefused"
        assert result.case.mutation.kind in {"add", "rename", "control"}
        assert result.evidence.dispatches == 0
        assert settled(result)[-1].endswith("as pre_dispatch_rejected")
    # At every point, post_seal included: LangChain checks names when it binds the tools. A rename
    # made in place is on the agent's own StructuredTool by then, so the refused change outlives its request.
    renamed = find_case(stock_results, "etf-compare-main-hooked", "post_seal", "rename.suffix", "in_place")
    assert renamed.evidence.stop.error_type == "FrameworkRefused" and renamed.evidence.dispatches == 0
    assert renamed.verdict.kind is VerdictKind.SURVIVED and "(else: killed" in renamed.verdict.reason
    assert renamed.evidence.aftermath[0].startswith("next request: at 'hook': renamed ")
    # A re-validation that rebuilds the tools launders a hook's add before LangChain checks it.
    laundered = find_case(stock_results, "note-refresh-main-mcp-hooked", "hook", "add.foreign", "replace")
    assert laundered.verdict.kind is VerdictKind.SURVIVED
    assert (
        find_case(stock_results, "etf-compare-main-hooked", "hook", "add.foreign", "replace").verdict.kind
        is VerdictKind.KILLED
    )


_TRACED_RUN = """
import asyncio, socket
attempts = []
def refuse(*args, **kwargs):
    attempts.append(args)
    raise OSError("network access during an offline run")
socket.socket.connect = socket.socket.connect_ex = refuse
socket.create_connection = socket.getaddrinfo = refuse
from toolsurface import scenarios
from toolsurface.contract._formats import FORMATS
from toolsurface.harness._ports import Ports
from toolsurface.harness._adapters import langchain as adapter
scenario = next(s for s in scenarios.load(None) if s.id == "etf-compare-main-hooked")
ports = Ports(scenario, FORMATS["logical"], None, None)
asyncio.run(adapter.run_request(adapter.build_agent(scenario, guarded=True), scenario, ports))
import time
time.sleep(1.5)  # a traced run posts from a background thread
print(len(ports.gateway.log), len(attempts))
"""


def test_langsmith_tracing_in_the_environment_stays_off():
    """With tracing switched on by the environment, LangSmith would post every run: the adapter turns it off."""
    environment = {**os.environ, "LANGSMITH_TRACING": "true", "LANGSMITH_API_KEY": "offline-test-key"}
    ran = subprocess.run(
        [sys.executable, "-c", _TRACED_RUN], capture_output=True, text=True, env=environment, timeout=60
    )
    assert ran.returncode == 0, ran.stderr
    assert ran.stdout.split() == ["1", "0"], ran.stderr


# -- how LangChain shares its objects ----------------------------------------------------------


@functools.cache
def _scenarios() -> tuple:
    return tuple(scenarios.load(None))


def _scenario(name: str):
    return next(s for s in _scenarios() if s.id == name)


def _run(agent, scenario, point=None, injection=None) -> Ports:
    ports = Ports(scenario, FORMATS["logical"], point and scenarios.Boundary.parse(point), injection)
    asyncio.run(adapter.run_request(agent, scenario, ports))
    return ports


def _mark_schema_in_place(tools, messages, facts):
    tools[0]["input_schema"]["x-edited"] = True  # the live dict: whatever shares it sees this
    return tools, messages


def _mark_schema_replaced(tools, messages, facts):
    first = {**tools[0], "input_schema": {**tools[0]["input_schema"], "x-edited": True}}
    return [first, *tools[1:]], messages


def _sent_schema(ports: Ports) -> dict:
    return ports.gateway.log[0].surface.entries()[0][2]


@pytest.mark.parametrize("point", ["hook", "context_fit", "post_seal"])
def test_an_in_place_schema_edit_leaks_into_later_runs_of_the_same_agent(point):
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario, guarded=False)
    first = _run(agent, scenario, point, _mark_schema_in_place)
    second = _run(agent, scenario)  # no mutation armed
    assert first.injected and _sent_schema(first)["x-edited"] is True
    # The ToolNode keeps the StructuredTools it was given and hands them to every run's ModelRequest.
    assert _sent_schema(second)["x-edited"] is True


def test_a_replaced_schema_stays_in_its_own_run():
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario, guarded=False)
    _run(agent, scenario, "hook", _mark_schema_replaced)
    assert "x-edited" not in _sent_schema(_run(agent, scenario))


def test_the_guarded_agent_hands_each_request_its_own_tools_so_an_edit_stays_in_its_run():
    scenario = _scenario("etf-compare-main-hooked")
    agent = adapter.build_agent(scenario, guarded=True)
    with pytest.raises(SurfaceRefused) as refused:
        _run(agent, scenario, "hook", _mark_schema_in_place)
    assert refused.value.checkpoint == "early"
    # The agent's own StructuredTools never reached the request: the next run is as a clean one.
    assert _run(agent, scenario).gateway.log[0].surface.raw == snapshot_of(scenario.surface).raw


def test_the_guarded_agent_sends_the_admitted_surface_byte_for_byte():
    scenario = _scenario("etf-compare-main-hooked")
    ports = _run(adapter.build_agent(scenario, guarded=True), scenario)
    assert ports.gateway.log[0].surface.raw == snapshot_of(scenario.surface).raw
    assert ports.ledger(scenario.lane).open == ()


def test_langchains_conversion_of_a_json_schema_tool_is_lossy():
    """Why the guard hands the model OpenAI-format dicts: a `BaseTool`'s schema is rewritten on the way."""
    descriptor = next(d for d in _scenario("etf-compare-main-hooked").surface if "$defs" in d.input_schema)
    converted = convert_to_openai_tool(tool_of(descriptor))["function"]["parameters"]
    assert "$defs" not in converted and converted != descriptor.input_schema


# -- the views the harness sees --------------------------------------------------------------


@pytest.mark.parametrize("scenario", scenarios.load(None), ids=lambda s: s.id)
def test_a_recorded_conversation_reads_back_word_for_word(scenario):
    """What the guard's capacity estimate and the gateway read is the recording, word for word."""
    messages = history(scenario.request_messages)
    expected = [m.as_dict() for m in scenario.request_messages]
    assert Crossing((), messages, "test").messages == expected
    assert message_views(messages) == expected


def test_an_unchanged_crossing_hands_back_the_framework_objects():
    scenario = _scenario("etf-compare-main-recovery")
    messages = history(scenario.request_messages)
    tools = [tool_of(d) for d in scenario.surface]
    crossing = Crossing(tools, messages, "test")
    assert all(a is b for a, b in zip(crossing.messages_back(crossing.messages), messages, strict=True))
    assert all(a is b for a, b in zip(crossing.tools_back(crossing.tools), tools, strict=True))
    assert all(view["input_schema"] is tool.args_schema for view, tool in zip(crossing.tools, tools, strict=True))


def test_a_dropped_message_keeps_every_tool_result_after_its_call():
    scenario = next(s for s in _scenarios() if any(m.role == "tool" for m in s.request_messages))
    messages = history(scenario.request_messages)
    crossing = Crossing((), messages, "test")
    back = crossing.messages_back(crossing.messages[:1] + [v for v in crossing.messages if v["role"] == "tool"])
    for index, message in enumerate(back):
        if type(message).__name__ == "ToolMessage":
            assert any(message.tool_call_id in {c["id"] for c in getattr(m, "tool_calls", ())} for m in back[:index])


def test_an_in_place_edit_lands_on_the_live_objects():
    scenario = _scenario("entry-main-portfolio-document")
    messages = history(scenario.request_messages)
    tool = tool_of(_scenario("etf-compare-main-hooked").surface[0])
    crossing = Crossing([tool], messages, "test")
    crossing.messages[0]["content"] = "edited"
    crossing.tools[0]["description"] = "re-described"
    crossing.messages_back(crossing.messages)
    assert crossing.tools_back(crossing.tools) == [tool]
    assert messages[0].content == "edited" and tool.description == "re-described"
    assert tool_view(tool)["description"] == "re-described"


def test_importing_without_langchain_names_the_extra(monkeypatch):
    monkeypatch.setitem(sys.modules, "langchain", None)
    monkeypatch.delitem(sys.modules, "toolsurface.harness._adapters.langchain")
    with pytest.raises(ImportError, match=r"toolsurface\[langchain\]"):
        importlib.import_module("toolsurface.harness._adapters.langchain")


def test_the_guarded_agent_is_the_stock_one_with_the_public_guard_first_and_its_final_check_last():
    from toolsurface.guard.langchain import SurfaceGuardMiddleware

    scenario = _scenario("etf-compare-main-hooked")
    guard = adapter.build_agent(scenario, guarded=True).guard
    assert isinstance(guard, SurfaceGuardMiddleware) and adapter.build_agent(scenario, guarded=False).guard is None
    stock, guarded = adapter.middleware(scenario, None), adapter.middleware(scenario, guard)
    assert guarded[0] is guard and guarded[-1] is guard.last
    assert [type(m) for m in guarded[1:-1]] == [type(m) for m in stock]
