"""The reference MCP host, `toolsurface.examples.mcp_host`: a real MCP session, the real OpenAI and
Anthropic SDKs, an in-memory HTTP transport into the harness gateway — and no network."""

from __future__ import annotations

import asyncio
import collections
import fnmatch
import functools
import importlib
import json
import shutil
import socket
import subprocess
import sys
from pathlib import Path

import orjson
import pytest

_INSTALL = "the MCP host example needs the mcp-host extra: pip install 'toolsurface[mcp-host]'"
pytest.importorskip("mcp", reason=_INSTALL)
pytest.importorskip("openai", reason=_INSTALL)
pytest.importorskip("anthropic", reason=_INSTALL)

from mcp import Client, types

from tests.fixtures.frameworks import (
    CROSS_SECTION,
    find_case,
    refuse_connections,
    settled,
)
from tests.fixtures.strata import default_strata, sample, strata
from toolsurface import (
    FORMATS,
    capture,
    scenarios,
    snapshot_of,
)
from toolsurface.common._errors import TargetError
from toolsurface.contract._formats import LOGICAL
from toolsurface.examples.mcp_host import adapter
from toolsurface.examples.mcp_host import host as host_module
from toolsurface.examples.mcp_host.host import McpHost
from toolsurface.examples.mcp_host.server import build_server
from toolsurface.guard import GuardedRequest, SurfaceGuard
from toolsurface.harness._api import RunOptions, Session, prepare
from toolsurface.harness._mcp import served
from toolsurface.harness._mutants import run_mutants
from toolsurface.harness._oracles import judge
from toolsurface.harness._ports import Ports
from toolsurface.harness._recorder import record
from toolsurface.harness._runner import observe
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import Ending, Refused, VerdictKind
from toolsurface.mutators import Must

#: The guarded host through each SDK, by the specs `toolsurface list targets` shows.
TARGETS = ["mcp-host:guarded", "mcp-host:guarded-anthropic"]


#: Illegitimate changes the unguarded host sends: scenario, point, mutator, delivery, and how
#: the surface sent differs from the expected one.
UNGUARDED_SENDS = [
    ("etf-compare-main-hooked", "hook", "schema.add_property", "in_place", "schema of"),
    ("etf-compare-main-hooked", "hook", "reorder.swap", "replace", "swapped"),
    ("etf-compare-main-hooked", "hook", "delete.first", "in_place", "removed"),
    ("etf-compare-main-hooked", "post_seal", "add.foreign", "replace", "added"),
    ("etf-compare-main-hooked", "post_seal", "rename.suffix", "in_place", "renamed"),
    ("price-history-child-hooked", "context_fit", "add.foreign", "in_place", "added"),
    ("filings-scan-child-deadline", "async_prep", "description.append", "in_place", "description of"),
    ("entry-main-portfolio-document", "hook", "entry.overclaim", "in_place", "summary claims"),
    # The server redefines a tool mid-request: without the guard the host takes the new list in.
    ("etf-compare-main-mcp-paged", "context_fit", "mcp.description_changed", "replace", "description of"),
]
#: Also run on the unguarded host: the over-capacity request, and a hook's add laundered by a rebuild.
UNGUARDED_MORE = ["holdings-review-main-over-capacity/*/hook/*", "note-refresh-main-mcp-hooked/*/hook/*"]


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("mcp-host")


@pytest.fixture(scope="module", autouse=True)
def no_network():
    """Every test here runs with sockets that refuse to connect: the host must never need one."""
    with pytest.MonkeyPatch.context() as patch:
        attempts = refuse_connections(patch)
        yield attempts
    assert attempts == [], f"connection attempts: {attempts}"


@functools.cache
def session(target: str) -> Session:
    """One planned session per target, shared by the tests: planning the matrix is the slow part."""
    return prepare(RunOptions(target=target, red_target="none"))


def results(target: str, select: list[str]) -> list:
    planned = session(target)
    return list(planned.runner.run(c for c in planned.planned if any(fnmatch.fnmatchcase(c.id, p) for p in select)))


#: Beyond the frameworks' cross-section: the paged MCP recording's list changes, and the boundary
#: where its server adds a tool no grant names.
MCP_SECTION = ["etf-compare-main-mcp-paged/*/mcp.*", "etf-compare-main-mcp-paged/*/evidence/*"]


@pytest.fixture(scope="module")
def guarded_results(no_network) -> dict:
    return {target: results(target, CROSS_SECTION + MCP_SECTION) for target in TARGETS}


@pytest.fixture(scope="module")
def unguarded_results(no_network) -> list:
    # A case id's mutation part is `kind.delivery:variant:target`; a mutator key is `kind.variant`.
    sends = [f"{s}/*/{point}/{m.replace('.', f'.{d}:', 1)}:*" for s, point, m, d, _ in UNGUARDED_SENDS]
    return results("mcp-host:unguarded", sends + UNGUARDED_MORE)


def test_the_network_is_closed(no_network):
    with pytest.raises(OSError, match="offline"):
        socket.create_connection(("example.com", 443))
    no_network.clear()  # that attempt was this test's own


@pytest.mark.parametrize(
    "spec, factory, name, tool_format",
    [
        ("mcp-host:guarded", adapter.guarded, "mcp-host:guarded:openai", "openai"),
        ("mcp-host:unguarded", adapter.unguarded, "mcp-host:unguarded:openai", "openai"),
        ("mcp-host:guarded-anthropic", adapter.guarded_anthropic, "mcp-host:guarded:anthropic", "anthropic"),
        ("mcp-host:unguarded-anthropic", adapter.unguarded_anthropic, "mcp-host:unguarded:anthropic", "anthropic"),
    ],
)
def test_factories_are_targets_loaded_by_spec(spec, factory, name, tool_format):
    # The short spec and the module's own `package.module:factory` load the same target.
    for loaded in (load_target(spec), load_target(f"{factory.__module__}:{factory.__name__}")):
        assert (type(loaded), loaded.name, loaded.tool_format) == (adapter.McpHostTarget, name, tool_format)
        assert asyncio.iscoroutinefunction(loaded.run)


def test_without_the_extra_the_target_is_one_line_naming_it(monkeypatch):
    monkeypatch.setitem(sys.modules, "mcp", None)
    for name in [name for name in sys.modules if name.startswith("toolsurface.examples.mcp_host")]:
        monkeypatch.delitem(sys.modules, name)
    with pytest.raises(ImportError, match=r"pip install 'toolsurface\[mcp-host\]'"):
        importlib.import_module("toolsurface.examples.mcp_host.adapter")
    with pytest.raises(TargetError) as error:
        load_target("mcp-host:guarded")
    assert "pip install 'toolsurface[mcp-host]'" in str(error.value) and "\n" not in str(error.value)


def test_the_documented_spec_runs_from_the_installed_package(tmp_path):
    # From a folder outside the checkout: the target comes from the installed package, not the working directory.
    command = shutil.which("toolsurface", path=str(Path(sys.executable).parent)) or shutil.which("toolsurface")
    if command is None:
        pytest.fail("the `toolsurface` console script is not installed: run the README's install command first")
    select = ["--select", "etf-compare-main-hooked/*/post_seal/*"]
    run = [
        command,
        "run",
        "--target",
        "mcp-host:guarded",
        "--red-target",
        "mcp-host:unguarded",
        *select,
        "--out",
        "out",
    ]
    done = subprocess.run(run, cwd=tmp_path, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr
    document = json.loads((tmp_path / "out" / "results.json").read_text())
    run = document["run"]
    # Named by the specs given, not by the names the adapter gives itself (`mcp-host:guarded:openai`).
    assert (run["target"], run["red_target"]) == ("mcp-host:guarded", "mcp-host:unguarded")
    verdicts = collections.Counter((case["verdict"]["kind"], case["red_verdict"]["kind"]) for case in document["cases"])
    # Every change after sealing is one the guard refuses and the unguarded host sends, or a legitimate one both send,
    # save a trusted fact recorded after sealing: the guard narrows by it, the unguarded host never looks again.
    # An MCP wire field the host's OpenAI tools have no place for cannot reach either host's wire: equivalent on both.
    assert set(verdicts) == {
        ("killed", "survived"),
        ("passed", "passed"),
        ("passed", "survived"),
        ("equivalent", "equivalent"),
    }
    unreachable = {
        case["case"]["mutation"]["kind"] for case in document["cases"] if case["verdict"]["kind"] == "equivalent"
    }
    assert unreachable == {"wire"}
    late = {
        case["case"]["mutation"]["variant"]
        for case in document["cases"]
        if case["red_verdict"]["kind"] == "survived" and case["verdict"]["kind"] == "passed"
    }
    assert late == {"trusted_fact", "trusted_fact_sources"}


def test_the_server_lists_every_tool_of_the_run_as_recorded_page_by_page():
    async def listed(scenario):
        pages = []
        async with Client(build_server(Ports(scenario, LOGICAL, None, None).mcp), mode="legacy") as session:
            cursor = None
            while True:
                page = await session.list_tools(cursor=cursor)
                pages.append(page.tools)
                if (cursor := page.next_cursor) is None:
                    return pages

    for scenario in scenarios.load(None):
        pages = asyncio.run(listed(scenario))
        tools = [
            {"name": t.name, "description": t.description, "inputSchema": t.input_schema}
            for page in pages
            for t in page
        ]
        # Parity: the wire model moves `type` after the declared fields, object key order aside nothing changes.
        assert capture(tools, FORMATS["mcp"].only(())) == snapshot_of(served(scenario.contract), LOGICAL.only(())), (
            scenario.id
        )
        assert {t.name for t in scenario.contract.admitted_elsewhere} <= {t["name"] for t in tools}
        assert len(pages) == (4 if scenario.mcp and scenario.mcp.page_size == 2 else 1), scenario.id


def test_the_server_declares_list_changes_and_notifies_its_client():
    paged = next(s for s in scenarios.load(None) if s.id == "etf-compare-main-mcp-paged")
    ports = Ports(paged, LOGICAL, None, None)
    heard = []

    async def handler(message):
        heard.append(message)

    async def run():
        async with Client(build_server(ports.mcp), mode="legacy", message_handler=handler) as client:
            capabilities = client.server_capabilities
            await client.list_tools()
            ports.inject("evidence", [], [])  # the recorded change: the server adds a tool
            for _ in range(100):  # delivery is asynchronous: wait for it, boundedly
                if heard:
                    break
                await asyncio.sleep(0)
            relisted = await client.list_tools(cursor=None, cache_mode="refresh")
            return capabilities, relisted

    capabilities, relisted = asyncio.run(run())
    assert capabilities.tools is not None and capabilities.tools.list_changed is True
    assert [type(message) for message in heard] == [types.ToolListChangedNotification]
    assert [tool.name for tool in relisted.tools] == [tool.name for tool in served(paged.contract)][:2]


class FirstPageHost(McpHost):
    """The host, with a `tools/list` loop that stops at the first page."""

    async def discover(self, session):
        return list((await session.list_tools(cursor=None, cache_mode="refresh")).tools)


class FirstPageTarget(adapter.McpHostTarget):
    host = FirstPageHost


def test_a_host_that_reads_only_the_first_page_loses_the_tools_on_the_others(no_network):
    planned = session("mcp-host:guarded")
    case = next(
        c
        for c in planned.planned
        if fnmatch.fnmatchcase(c.id, "etf-compare-main-mcp-paged/*/evidence/mcp.replace:tool_added:*")
    )
    guarded = judged(planned, planned.runner.target, case)
    assert guarded.kind is VerdictKind.PASSED, guarded.reason
    # Its guard takes its baseline from that admission, so only the oracle's own expected surface catches it.
    verdict = judged(planned, FirstPageTarget(), case)
    assert verdict.kind is VerdictKind.SURVIVED
    assert verdict.reason.startswith("dispatched a surface that differs from the expected one: removed 3 tools, e.g. ")
    assert "removed 'market__web_search' (was at 2)" in verdict.reason


def judged(planned, target, case):
    scenario = planned.runner.scenarios[case.scenario]
    return judge(
        case,
        observe(target, case, scenario, planned.runner.timeout_for(case.scenario)),
        scenario,
        planned.runner.expected(case),
    )


@pytest.mark.parametrize("target", TARGETS)
def test_guarded_kills_or_passes_every_selected_case(guarded_results, target):
    ran = guarded_results[target]
    bad = [f"{r.case.id}: {r.verdict.kind}: {r.verdict.reason}" for r in ran if not r.verdict.kind.ok]
    assert not bad, "\n".join(bad[:20])
    verdicts = collections.Counter(r.verdict.kind for r in ran)
    assert verdicts[VerdictKind.KILLED] > 500 and verdicts[VerdictKind.PASSED] > 100
    endings = collections.Counter(r.evidence.ending for r in ran)
    assert endings[Ending.CAPACITY] > 0 and endings[Ending.DISPATCHED] > 0 and endings[Ending.REFUSED] > 0
    assert {r.case.point for r in ran} == set(scenarios.POINTS)


@pytest.mark.parametrize("target", TARGETS)
def test_guarded_refusals_are_typed_and_settled_once_on_their_lane(guarded_results, target):
    by_id = {scenario.id: scenario for scenario in scenarios.load(None)}
    refused = [r for r in guarded_results[target] if r.evidence.ending in (Ending.REFUSED, Ending.CAPACITY)]
    assert {r.case.lane.value for r in refused} == {"main", "child"}
    for result in refused:
        scenario = by_id[result.case.scenario]
        assert result.evidence.dispatches == 0
        assert settled(result) == (f"{scenario.lane}: settle {scenario.identity.request} as pre_dispatch_rejected",)
    types = collections.Counter(r.evidence.stop.error_type for r in refused)
    assert set(types) == {"SurfaceRefused", "SummaryRefused", "CapacityExceeded"}


@pytest.mark.parametrize("target", TARGETS)
def test_guarded_refuses_a_server_list_change_to_its_admitted_tools_and_goes_on_past_others(guarded_results, target):
    listed = [r for r in guarded_results[target] if r.case.mutation.kind.value == "mcp"]
    assert {r.case.mutation.variant for r in listed} == {
        "tool_added",
        "tool_removed",
        "description_changed",
        "schema_changed",
    }
    for result in listed:
        expected = Ending.DISPATCHED if result.case.mutation.variant == "tool_added" else Ending.REFUSED
        assert (result.verdict.kind.ok, result.evidence.ending) == (True, expected), result.case.id


@pytest.mark.parametrize("scenario, point, mutator, delivery, sent", UNGUARDED_SENDS)
def test_unguarded_dispatches_illegitimate_changes(unguarded_results, scenario, point, mutator, delivery, sent):
    result = find_case(unguarded_results, scenario, point, mutator, delivery)
    assert result.verdict.kind is VerdictKind.SURVIVED, result.verdict.reason
    assert result.evidence.dispatches == 1
    assert any(line.startswith(sent) for line in result.evidence.diff), result.evidence.diff


def test_unguarded_sends_an_over_capacity_request_and_never_errors(unguarded_results):
    result = find_case(unguarded_results, "holdings-review-main-over-capacity", "hook", "legit.compress", "replace")
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "instead of an explicit capacity result" in result.verdict.reason
    # A rebuild from the MCP server launders a hook's add: the same host, minus the early check, sends the admitted
    # tools.
    laundered = find_case(unguarded_results, "note-refresh-main-mcp-hooked", "hook", "add.foreign", "replace")
    assert laundered.verdict.kind is VerdictKind.SURVIVED and laundered.evidence.diff == ()
    assert not [r.case.id for r in unguarded_results if r.verdict.kind is VerdictKind.ERROR]


def _observe(target: str, scenario: str, point: str, mutator: str, delivery: str):
    """Run one planned case; return the target (with its transport), the case and what the ports saw."""
    planned = session(target)
    case = next(
        c
        for c in planned.planned
        if (c.scenario, c.point, c.mutation.mutator, c.mutation.delivery) == (scenario, point, mutator, delivery)
    )
    runner = planned.runner
    return (
        runner.target,
        case,
        observe(runner.target, case, runner.scenarios[case.scenario], runner.timeout_for(case.scenario)),
    )


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize(
    "scenario, point, mutator",
    [
        ("etf-compare-main-hooked", "post_seal", "schema.add_property"),
        ("entry-main-portfolio-document", "hook", "entry.overclaim"),
        ("note-refresh-main-mcp-hooked", "hook", "add.foreign"),
    ],
)
def test_a_refused_request_sends_nothing_over_http(target, scenario, point, mutator):
    host, case, observed = _observe(target, scenario, point, mutator, "in_place")
    assert case.must is Must.REFUSE and isinstance(observed.stop, Refused)
    assert host.last_transport is not None and host.last_transport.requests == []
    assert observed.dispatches == ()


@pytest.mark.parametrize(
    "target, path", [("mcp-host:guarded", "/v1/chat/completions"), ("mcp-host:guarded-anthropic", "/v1/messages")]
)
def test_a_dispatched_request_is_one_sdk_call_carrying_the_expected_surface(target, path):
    host, case, observed = _observe(target, "etf-compare-main-hooked", "hook", "legit.key_order", "in_place")
    scenario = next(s for s in scenarios.load(None) if s.id == case.scenario)
    assert [(method, sent) for method, sent, _ in host.last_transport.requests] == [("POST", path)]
    body = host.last_transport.requests[0][2]
    assert capture(body["tools"], FORMATS[host.tool_format]) == snapshot_of(scenario.surface)
    assert len(observed.dispatches) == 1 and observed.dispatches[0].surface == snapshot_of(scenario.surface)
    # Nothing the server lists beyond the grant is admitted.
    names = {tool["function"]["name"] if "function" in tool else tool["name"] for tool in body["tools"]}
    assert not names & {t.name for t in scenario.contract.admitted_elsewhere}


#: The recording of three model calls: a profile look-up and a web search between them, and a
#: trusted search-budget fact recorded before the third.
TOOL_LOOP = "etf-compare-main-tool-loop"


@pytest.mark.parametrize("target", TARGETS)
def test_the_tool_loop_goes_out_as_three_model_calls_each_answering_the_last_reply(target):
    planned = session(target)
    host, scenario = planned.runner.target, planned.runner.scenarios[TOOL_LOOP]
    ports = Ports(scenario, FORMATS[host.tool_format], None, None)
    asyncio.run(host.run(scenario, ports))
    assert [(d.call, d.surface) for d in ports.gateway.log] == [
        (call, snapshot_of(scenario.surface_at(call))) for call in (1, 2, 3)
    ]
    # The budget fact arrives at hook@3: the third call goes without web search.
    third = {
        tool["function"]["name"] if "function" in tool else tool["name"]
        for tool in host.last_transport.requests[2][2]["tools"]
    }
    assert "market__web_search" not in third and "market__web_read" in third
    # Each later call sends the model's tool call back with the recorded result, paired by its id.
    sent = json.dumps([body["messages"] for _, _, body in host.last_transport.requests])
    for call_id, made in (("call_1_1", scenario.steps[0].calls[0]), ("call_2_1", scenario.steps[1].calls[0])):
        assert sent.count(call_id) >= 2 and json.dumps(made.result)[1:-1] in sent
    assert [str(e) for e in ports.events if e.op.value == "settle"] == [
        f"main: settle {scenario.identity.request} as dispatched"
    ]


@pytest.mark.parametrize("target", TARGETS)
def test_a_change_before_the_second_model_call_is_refused_after_the_first_went_out(target):
    planned = session(target)
    case = next(
        c
        for c in planned.planned
        if (c.scenario, c.call, c.point, c.mutation.mutator, c.mutation.delivery)
        == (TOOL_LOOP, 2, "hook", "add.foreign", "in_place")
    )
    runner = planned.runner
    observed = observe(runner.target, case, runner.scenarios[TOOL_LOOP], runner.timeout_for(TOOL_LOOP))
    assert case.must is Must.REFUSE and isinstance(observed.stop, Refused)
    assert [d.call for d in observed.dispatches] == [1] and len(runner.target.last_transport.requests) == 1
    # Settled once, as refused, though a model call of the request had already gone out.
    assert [str(e) for e in observed.ledger if e.op.value == "settle"] == [
        "main: settle req_main_0034 as pre_dispatch_rejected"
    ]


REPLAYED = {
    "etf-compare-main-tool-loop",
    "holdings-review-main-over-capacity",
    "etf-compare-main-mcp-paged",
    "etf-compare-main-hooked",
    "entry-main-portfolio-document",
    "news-scan-child-anthropic-hooked",
    "etf-compare-main-recovery",
    "etf-compare-main-late-budget",
}


def test_a_recording_of_the_host_replays_to_the_verdicts_of_its_live_run(tmp_path):
    host = load_target("mcp-host:guarded")
    recorded = tmp_path / "recorded"
    # One recording of each shape (through the SDKs each costs seconds; recording every one is the
    # recorder's own test): a tool loop, capacity, a paged MCP listing, hooks, an entry request, a
    # child's Anthropic request, recovery, and an owner fact that arrives late.
    kept = [s for s in scenarios.load() if s.id in REPLAYED]
    for scenario in kept:
        (recorded / f"{scenario.id}.json").parent.mkdir(exist_ok=True)
        (recorded / f"{scenario.id}.json").write_bytes(orjson.dumps(record(host, scenario)))
    # After sealing, a stratified sample (every kind of change on every recording kept, in place and by
    # replacement); the over-capacity request and the tool loop's third call whole.
    select = [
        *(pattern for id in sorted(REPLAYED) for pattern in sample(f"{id}/*/post_seal", both_deliveries=True)),
        "holdings-review-main-over-capacity/*/hook/*",
        "etf-compare-main-tool-loop/*/post_seal@3/*",
    ]
    options = {"target": "mcp-host:guarded", "red_target": "mcp-host:unguarded", "select": select}
    ran = list(prepare(RunOptions(**options)).results())
    sealed = {(scenario, kind) for scenario, point, call, kind in default_strata() if (point, call) == ("post_seal", 1)}
    assert {(scenario, kind) for scenario, point, call, kind in strata(ran) if (point, call) == ("post_seal", 1)} == {
        (scenario, kind) for scenario, kind in sealed if scenario in {s.id for s in kept}
    }
    live = {r.case.id: (r.verdict.kind, r.red_verdict.kind) for r in ran}
    replayed = {
        r.case.id: (r.verdict.kind, r.red_verdict.kind)
        for r in prepare(RunOptions(scenarios=[recorded], **options)).results()
    }
    # A recording is in the host's own tool format (OpenAI tools): it has `strict`, which an MCP
    # recording does not, and none of the MCP fields an OpenAI tool cannot carry. Only the cases
    # that edit those wire fields differ between the two; every other case is judged the same.
    common = live.keys() & replayed.keys()
    assert all("/wire." in case for case in live.keys() ^ replayed.keys())
    assert {case: replayed[case] for case in common} == {case: live[case] for case in common} and len(common) > 150


def test_the_host_drives_mutants_of_the_shipped_guard_it_imports():
    # The host narrows its tools by the owner-fact rule itself as it makes a request; a trusted fact
    # then arrives in a hook, before the first check. A guard that forgot the hidden set in force as
    # the request was made refuses it; the reference pipeline, which narrows through the guard, never
    # tells the two apart.
    options = {"select": ["etf-compare-main-hooked/main/hooks/hook/availability.replace:trusted_fact*"]}
    forgets = "self.hidden()"

    def status_on(target: str, also: tuple[str, ...] = ()) -> dict[str, str]:
        run = run_mutants(
            RunOptions(target=target, **options),
            functions=frozenset({"GuardedRequest.__init__"}),
            operators=frozenset({"RemoveStatement"}),
            also=also,
        )
        return {r.mutant.original: r.status for r in run.results}

    assert status_on("reference:guarded")[forgets] == "Survived"
    assert status_on("reference:guarded", ("mcp-host:guarded",))[forgets] == "Killed"
    assert status_on("mcp-host:guarded")[forgets] == "Killed"
    # Its names are its own again after.
    assert host_module.SurfaceGuard is SurfaceGuard and host_module.GuardedRequest is GuardedRequest
