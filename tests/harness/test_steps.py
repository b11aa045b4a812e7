"""Runs of several model calls: each call is judged against the surface in force at it, a change
before any call must be refused there, and each way an agent loop gets that wrong fails with a
reason that names the call."""

import asyncio
import re

import pytest

from tests.fixtures.docs import blocks
from tests.fixtures.planned import planned
from tests.fixtures.step_hosts import CheckedLoop
from toolsurface.contract._formats import FORMATS
from toolsurface.harness._ports import Ports
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind
from toolsurface.mutators import Must
from toolsurface.scenarios import Boundary, load

LOOP = "etf-compare-main-tool-loop"
FAILS = {VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT}


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def loop(scenarios):
    return next(s for s in scenarios if s.id == LOOP)


@pytest.fixture(scope="module")
def cases(scenarios):
    return tuple(c for c in planned(0) if c.scenario == LOOP)


def run(scenarios, cases, spec):
    return {r.case.id: r for r in Runner(scenarios, load_target(spec)).run(cases)}


@pytest.fixture(scope="module")
def checked(scenarios, cases):
    return run(scenarios, cases, "tests.fixtures.step_hosts:CheckedLoop")


def test_the_recording_narrows_only_the_call_after_its_fact_arrives(loop):
    assert loop.model_calls == 3
    search = loop.contract.web_tools.search
    assert [search in {t.name for t in loop.surface_at(call)} for call in (1, 2, 3)] == [True, True, False]
    assert loop.surface == loop.surface_at(3)


def test_cases_are_planned_at_the_boundaries_before_every_call(loop, cases):
    boundaries = {c.id.split("/")[3] for c in cases}
    assert boundaries == {"hook", "context_fit", "post_seal", "hook@2", "post_seal@2", "hook@3", "post_seal@3"}
    assert {c.boundary for c in cases} == set(loop.checkpoints)
    # A change planned before the third call is measured against that call's narrower surface.
    reveal = {
        c.call: c.change for c in cases if c.mutation.variant == "reveal" and c.mutation.delivery.value == "replace"
    }
    assert reveal[1] == reveal[2] != reveal[3] == ("added 'market__web_search' at 2",)


def test_the_gateway_answers_with_the_recorded_tool_calls_and_their_results(loop):
    ports = Ports(loop, FORMATS[loop.tool_format], None, None)
    tools = [ports.fmt.build(d) for d in loop.surface_at(1)]
    assert ports.inject("hook", tools, [])[0] is tools and ports.call == 1
    first = ports.gateway.dispatch("req", tools, [])
    assert [(c["id"], c["name"], c["arguments"]) for c in first["tool_calls"]] == [
        ("call_1_1", "market__get_instrument_profile", {"symbol": "SSAC.L"})
    ]
    assert ports.tool_result("call_1_1").startswith("[market__get_instrument_profile] SSAC.L")
    with pytest.raises(KeyError, match="call_2_1"):
        ports.tool_result("call_2_1")  # not asked for yet
    ports.inject("hook", tools, [])
    assert ports.points == [Boundary("hook"), Boundary("hook", 2)] and ports.call == 2
    assert ports.gateway.dispatch("req", tools, [])["tool_calls"][0]["name"] == "market__web_search"
    assert "tool_calls" not in ports.gateway.dispatch("req", tools, [])
    assert [d.call for d in ports.gateway.log] == [1, 2, 3]


def test_the_trusted_fact_arrives_at_its_boundary_before_the_third_call(loop):
    ports = Ports(loop, FORMATS[loop.tool_format], None, None)
    for _ in range(2):
        ports.gateway.dispatch("req", [], [])
    assert not any(f.arrives == "hook@3" for f in ports.facts.current())
    ports.inject("hook", [], [])
    assert any(f.arrives == "hook@3" for f in ports.facts.current())


def test_a_loop_that_checks_every_call_passes_every_case(checked):
    verdicts = {r.verdict.kind for r in checked.values()}
    assert verdicts <= {VerdictKind.KILLED, VerdictKind.PASSED, VerdictKind.EQUIVALENT}, [
        (i, r.verdict.reason) for i, r in checked.items() if not r.verdict.kind.ok
    ][:3]
    killed = [r for r in checked.values() if r.verdict.kind is VerdictKind.KILLED]
    # Refused before its own call: every earlier call went out, none after.
    assert {r.case.call for r in killed} == {1, 2, 3}
    assert all(r.evidence.dispatches == r.case.call - 1 for r in killed)
    # A failure case's provider fails a call: fewer go out (tests/harness/test_failures.py).
    passed = [r for r in checked.values() if r.verdict.kind is VerdictKind.PASSED and r.case.must is not Must.FAIL]
    assert passed and all(r.evidence.dispatches == 3 for r in passed)


@pytest.mark.parametrize(
    ("host", "calls", "says"),
    [
        ("FirstCallChecked", {2, 3}, "request(s) with the change"),
        ("PinnedToFirstCall", {1, 2, 3}, "a legitimate change was refused: model call 3 of 3 was never made: "),
        (
            "FactsReadAtStart",
            {1, 2, 3},
            "dispatched a surface that differs from the expected one: added 'market__web_search'",
        ),
    ],
)
def test_each_loop_bug_fails_with_a_reason_that_names_its_call(scenarios, cases, checked, host, calls, says):
    failed = [r for r in run(scenarios, cases, f"tests.fixtures.step_hosts:{host}").values() if r.verdict.kind in FAILS]
    assert failed and all(checked[r.case.id].verdict.kind.ok for r in failed)
    assert {r.case.call for r in failed} == calls
    assert any(says in r.verdict.reason for r in failed)
    named = [r for r in failed if re.search(r"\bmodel call [123] of 3\b", r.verdict.reason)]
    assert named == failed, [r.verdict.reason for r in failed if r not in named][:2]
    if host == "FirstCallChecked":
        assert all(r.verdict.reason.startswith(f"model call {r.case.call} of 3: ") for r in failed)


def test_a_loop_that_never_answers_the_tool_calls_never_passes(scenarios, cases):
    records = run(scenarios, cases, "tests.fixtures.step_hosts:OneShot").values()
    # Where the provider fails the first call, one call is all the request makes: that it settles right.
    assert not any(r.verdict.kind is VerdictKind.PASSED for r in records if r.case.must is not Must.FAIL)
    later = [r for r in records if r.case.call > 1 and not r.case.equivalent]
    assert later and all(
        r.verdict.kind is VerdictKind.ERROR and "never offered injection point" in r.verdict.reason for r in later
    )
    legit = [r for r in records if r.case.call == 1 and r.case.must is Must.DISPATCH]
    made = [r for r in legit if r.verdict.kind is VerdictKind.ERROR]
    assert made and all(r.verdict.reason.startswith("made 1 of the 3 model calls the recording makes") for r in made)
    # The rest recorded a trusted fact the host never narrowed by: its first call already fails.
    assert all(r.verdict.reason.startswith("model call 1 of 3: ") for r in legit if r not in made)


def test_the_host_runs_as_a_coroutine_to_its_last_call(loop):
    ports = Ports(loop, FORMATS[loop.tool_format], None, None)
    asyncio.run(CheckedLoop().run(loop, ports))
    assert [len(d.surface) for d in ports.gateway.log] == [6, 6, 5]
    assert [str(e) for e in ports.events] == [
        f"main: reserve {loop.identity.request}",
        f"main: settle {loop.identity.request} as dispatched",
    ]


def test_the_readme_host_follows_a_run_of_several_model_calls(tmp_path, scenarios, cases, monkeypatch):
    (sketch,) = blocks("README.md", "### A host of your own", "python")
    (tmp_path / "readme_host.py").write_text(sketch)
    monkeypatch.syspath_prepend(str(tmp_path))
    records = run(scenarios, [c for c in cases if c.mutation.kind.value in ("delete", "legit")], "readme_host:factory")
    assert {r.verdict.kind for r in records.values()} == {VerdictKind.KILLED, VerdictKind.PASSED}
    assert {r.case.call for r in records.values() if r.verdict.kind is VerdictKind.KILLED} == {1, 2, 3}
