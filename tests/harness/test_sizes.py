"""Real sizes: the 46-, 128- and 140-tool recordings, the hosts that cap, select or cut at those
sizes, and capacity judged by a target's own token count where it declares one."""

import re

import pytest

from tests.fixtures.planned import planned
from toolsurface.harness._capacity import (
    ends_in_capacity,
    judged_on,
)
from toolsurface.harness._plan import select
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._traits import traits_of
from toolsurface.harness._types import Ending, VerdictKind
from toolsurface.mutators import Must
from toolsurface.scenarios import RequestOutcome, StageKind, load

SIZES = "desk-*"
OVER_LIMIT = "desk-research-main-openai-over-tool-limit"
OPENAI = "etf-compare-main-openai"


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def cases(scenarios):
    return planned(0)


def run(scenarios, cases, spec, *patterns):
    return list(Runner(scenarios, load_target(spec)).run(select(cases, patterns)))


def failing(records):
    return [r for r in records if not r.verdict.kind.ok]


def test_the_recordings_are_at_real_sizes(scenarios):
    by_id = {s.id: s for s in scenarios}
    sizes = {scenario_id: len(by_id[scenario_id].surface) for scenario_id in by_id if scenario_id.startswith("desk-")}
    assert sizes == {"desk-review-main-openai-46-tools": 46, "desk-research-main-mcp-128-tools": 128, OVER_LIMIT: 140}
    tools = by_id[OVER_LIMIT].surface
    assert max(len(t.name) for t in tools) == 64 and sum(len(t.name) > 48 for t in tools) >= 4
    assert max(len(t.description) for t in tools) > 4096
    assert {by_id[s].tool_format for s in sizes} == {"openai", "mcp"}
    assert all(by_id[s].stage(StageKind.CONTEXT_FIT).max_tools == 128 for s in sizes)


def test_the_guard_sends_128_tools_and_ends_140_in_a_capacity_result(scenarios, cases):
    records = run(scenarios, cases, "reference:guarded", f"{SIZES}/*")
    assert records and not failing(records)
    over = [r for r in records if r.case.scenario == OVER_LIMIT and r.case.must is Must.DISPATCH]
    assert over and all(r.evidence.ending is Ending.CAPACITY for r in over)
    # 140 tools, or fewer where a trusted fact recorded mid-run hid the web tools: still past the limit.
    assert all(
        re.search(r"1[34]\d required tools; the provider takes at most 128 per request", r.evidence.stop.message)
        for r in over
    )
    full = [
        r for r in records if r.case.scenario == "desk-research-main-mcp-128-tools" and r.case.must is Must.DISPATCH
    ]
    assert full and all(r.evidence.ending is Ending.DISPATCHED for r in full)


def test_the_new_mutations_are_refused_and_only_at_real_sizes(cases):
    new = {"delete.cap", "delete.select", "reorder.select", "rename.truncate", "description.limit"}
    mine = [c for c in cases if c.mutation.mutator in new]
    assert {c.mutation.mutator for c in mine} == new
    assert all(c.mutation.must is Must.REFUSE and c.scenario.startswith("desk-") for c in mine)


@pytest.mark.parametrize(
    ("defect", "why"),
    [
        ("cap-after-check", "removed 'fixed_income__get_spread_history' (was at 40)"),
        ("description-cut-after-check", "description of "),
        ("name-cut-after-check", "(cut to 48 characters)"),
        ("selector-trim", "dispatched 128 of 140 required tools instead of an explicit capacity result"),
    ],
)
def test_each_size_defect_is_killed_for_its_own_reason(scenarios, cases, defect, why):
    killed = failing(run(scenarios, cases, f"reference:defect/{defect}", f"{SIZES}/*"))
    assert killed and any(why in r.verdict.reason for r in killed)
    # Each sends a list other than the admitted one; where the guard sees the cut first (a spoofed
    # fact reads as hiding what a selector picked out), it refuses instead of a capacity result.
    refused = "refused instead of an explicit capacity result"
    assert all(r.verdict.kind is VerdictKind.SURVIVED or r.verdict.reason.startswith(refused) for r in killed)


HOSTS = "tests.fixtures.size_hosts:{}"


def test_a_host_of_another_style_that_checks_passes(scenarios, cases):
    assert not failing(run(scenarios, cases, HOSTS.format("CheckedHost"), f"{SIZES}/*"))


@pytest.mark.parametrize(
    ("host", "why"),
    [
        # Several changes are counted first, then named: `removed 6 tools, e.g. removed 'a' (was at 40); …`.
        (
            "CapsAt40",
            r"dispatched a surface that differs from the expected one: (removed \d+ tools, e\.g\. )?removed '",
        ),
        (
            "CutsDescriptions",
            r"dispatched a surface that differs from the expected one: (cut \d+ descriptions, e\.g\. )?description of ",
        ),
        ("SelectsToLimit", r"dispatched 128 of 140 required tools instead of an explicit capacity result"),
    ],
)
def test_a_host_that_caps_cuts_or_selects_fails_with_its_bug(scenarios, cases, host, why):
    failed = failing(run(scenarios, cases, HOSTS.format(host), f"{SIZES}/*"))
    assert failed and all(r.verdict.kind is VerdictKind.SURVIVED for r in failed)
    assert all(re.match(why, r.verdict.reason) for r in failed)
    if host == "CapsAt40":  # whichever tool is 41st once owner facts have narrowed the list
        assert all(r.evidence.diff[0].endswith("(was at 40)") and "(was at 40)" in r.verdict.reason for r in failed)


# -- capacity by the target's own arithmetic ------------------------------------------------------


def test_a_declared_cautious_estimator_is_held_to_its_own_count(scenarios, cases):
    # Not yet: a trusted fact recorded before context fitting narrows what the host must fit, and
    # whether the request then fits by the host's own count is decided per recording, not per case.
    mine = [case for case in cases if not case.mutation.mutator.startswith("availability.trusted_fact")]
    records = run(scenarios, mine, HOSTS.format("CautiousHost"), f"{OPENAI}/*")
    assert records and not failing(records)
    past = [r for r in records if r.case.point in ("context_fit", "evidence", "async_prep", "post_seal")]
    # Past context fitting the change is never made: each such case passes on its capacity result.
    assert past and all(r.verdict.kind is VerdictKind.PASSED and r.evidence.ending is Ending.CAPACITY for r in past)
    assert all(r.case.boundary not in r.evidence.points for r in past)


def test_without_a_declared_estimator_the_recording_decides(scenarios, cases):
    failed = failing(run(scenarios, cases, HOSTS.format("UndeclaredCautiousHost"), f"{OPENAI}/*"))
    kinds = {r.verdict.kind for r in failed}
    assert kinds == {VerdictKind.ERROR, VerdictKind.FALSE_REJECT}
    # Its own capacity result ended the request before the points past fitting: the reason says so.
    before = [r for r in failed if r.verdict.kind is VerdictKind.ERROR]
    assert before and all(r.evidence.ending is Ending.CAPACITY for r in before)
    assert any(
        r.verdict.reason.startswith("target ended in a capacity result before it reached injection point 'evidence'")
        for r in before
    )
    assert not any("never offered" in r.verdict.reason for r in before)


def test_an_estimator_never_makes_a_recorded_capacity_result_fit(scenarios):
    by_id = {s.id: s for s in scenarios}

    class Lenient:
        def estimate_tokens(self, value):
            return 1

    class Cautious:
        def estimate_tokens(self, value):
            return 10**6

    over, openai = by_id["holdings-review-main-over-capacity"], by_id[OPENAI]
    assert ends_in_capacity(over, traits_of(Lenient()).estimate_tokens)
    assert not ends_in_capacity(openai, traits_of(Lenient()).estimate_tokens)
    assert judged_on(traits_of(Cautious()).estimate_tokens, openai).outcome is RequestOutcome.CAPACITY
    assert judged_on(traits_of(object()).estimate_tokens, openai) is openai
