"""What every framework target must do, whatever the framework: the guarded variant kills or
passes every case of the cross-section with typed refusals settled once on their lane, and no
case of either variant touches the network."""

import asyncio
import collections
import importlib.util

import pytest

from tests.fixtures.frameworks import (
    CROSS_SECTION,
    refuse_connections,
    run_cases,
    settled,
)
from toolsurface import scenarios
from toolsurface.contract._formats import FORMATS
from toolsurface.harness._adapters import ADAPTER_TARGETS
from toolsurface.harness._ports import Ports
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import Ending, LedgerOp, VerdictKind
from toolsurface.mutators import Kind

#: The import name each extra installs.
_MODULES = {"pydantic-ai": "pydantic_ai", "langchain": "langchain", "openai-agents": "agents"}


def _frameworks():
    for extra, module in _MODULES.items():
        missing = importlib.util.find_spec(module) is None
        reason = f"needs the {extra} extra: pip install 'toolsurface[{extra}]'"
        yield pytest.param(extra, marks=pytest.mark.skipif(missing, reason=reason), id=extra)


def test_every_framework_target_is_tested_here():
    # The reference MCP host's targets have their own tests, in tests/examples/test_mcp_host.py.
    assert {target.extra for target in ADAPTER_TARGETS.values()} == {*_MODULES, "mcp-host"}


#: Its module fixtures run many cases each: one worker takes all its tests (`--dist loadgroup`),
#: so each fixture runs once, not once per worker.
pytestmark = pytest.mark.xdist_group("guarded-targets")


@pytest.fixture(scope="module", params=list(_frameworks()))
def guarded(request) -> list:
    return run_cases(f"{request.param}:guarded", CROSS_SECTION)


def test_guarded_kills_or_passes_every_selected_case(guarded):
    bad = [f"{r.case.id}: {r.verdict.kind}: {r.verdict.reason}" for r in guarded if not r.verdict.kind.ok]
    assert not bad, "\n".join(bad[:20])
    verdicts = collections.Counter(result.verdict.kind for result in guarded)
    assert verdicts[VerdictKind.KILLED] > 500 and verdicts[VerdictKind.PASSED] > 100
    endings = collections.Counter(result.evidence.ending for result in guarded)
    assert endings[Ending.CAPACITY] > 0 and endings[Ending.DISPATCHED] > 0 and endings[Ending.REFUSED] > 0
    # Every point, kind and delivery the matrix plans was offered and exercised somewhere in the selection.
    assert {result.case.point for result in guarded} == set(scenarios.POINTS)
    assert {result.case.mutation.delivery for result in guarded} == {"replace", "in_place"}
    # Every planned kind but `mcp`: a framework agent takes its tools from the scenario, never from an
    # MCP server's list (`composed` is the explorer's, never planned).
    assert {result.case.mutation.kind for result in guarded} == set(Kind) - {Kind.MCP, Kind.COMPOSED}


def test_guarded_refusals_are_its_own_typed_refusals_settled_once_on_their_lane(guarded):
    by_id = {scenario.id: scenario for scenario in scenarios.load()}
    refused = [r for r in guarded if r.evidence.ending in (Ending.REFUSED, Ending.CAPACITY)]
    assert {r.case.lane.value for r in refused} == {"main", "child"}
    for result in refused:
        scenario = by_id[result.case.scenario]
        assert result.evidence.dispatches == 0
        assert settled(result) == (f"{scenario.lane}: settle {scenario.identity.request} as pre_dispatch_rejected",)
        # The guard refuses first: a framework's own refusal never stops a guarded request.
        assert result.evidence.stop.error_type in {"SurfaceRefused", "SummaryRefused", "CapacityExceeded"}
    types = collections.Counter(r.evidence.stop.error_type for r in refused)
    assert types["SummaryRefused"] > 0 and types["CapacityExceeded"] > 0 and types["SurfaceRefused"] > 0


@pytest.mark.parametrize("framework", list(_frameworks()))
def test_no_case_opens_a_socket(monkeypatch, framework):
    attempts = refuse_connections(monkeypatch)
    select = [
        "etf-compare-main-hooked/*/post_seal/add.*",
        "etf-compare-main-hooked/*/post_seal/legit.*",
        "entry-main-portfolio-document/*/hook/entry.*",
    ]
    for variant in ("guarded", "stock"):
        ran = run_cases(f"{framework}:{variant}", select)
        assert ran and all(r.verdict.kind is not VerdictKind.ERROR for r in ran)
    assert attempts == []


@pytest.mark.parametrize("framework", list(_frameworks()))
def test_guarded_follows_a_multi_step_run_and_checks_every_model_call(framework):
    target = f"{framework}:guarded"
    loop = next(s for s in scenarios.load() if s.id == "etf-compare-main-tool-loop")
    # Unchanged: the framework's own loop answers the recorded tool calls, three model calls, one settlement.
    host = load_target(target)
    ports = Ports(loop, FORMATS[host.tool_format], None, None)
    asyncio.run(host.run(loop, ports))
    assert [d.call for d in ports.gateway.log] == [1, 2, 3]
    assert [str(e) for e in ports.events if e.op is LedgerOp.SETTLE] == [
        f"main: settle {loop.identity.request} as dispatched"
    ]
    assert scenarios.Boundary("hook", 2) in ports.points and scenarios.Boundary("hook", 3) in ports.points
    # A change at the second call's hook boundary is refused after the first call went out, and settled once.
    ran = run_cases(target, ["etf-compare-main-tool-loop/*/hook@2/*"])
    assert ran and all(r.verdict.kind.ok for r in ran), [
        f"{r.case.id}: {r.verdict.reason}" for r in ran if not r.verdict.kind.ok
    ][:5]
    killed = [r for r in ran if r.verdict.kind is VerdictKind.KILLED]
    assert killed and all(r.evidence.dispatches == 1 for r in killed)
    assert all(settled(r) == (f"main: settle {loop.identity.request} as pre_dispatch_rejected",) for r in killed)
    assert any(r.verdict.kind is VerdictKind.PASSED and r.evidence.dispatches == 3 for r in ran)
