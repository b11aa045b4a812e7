"""Owner facts on the bundled matrix: forgeries change nothing, a trusted fact narrows whenever it
arrives, and each way of getting that wrong — in a reference defect or in a host of another
style — fails with a reason that names the tool it hid or kept."""

import pytest

from tests.fixtures.planned import planned
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import VerdictKind
from toolsurface.mutators import by_key
from toolsurface.scenarios import Mode, RequestOutcome, load

KILLS = {VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT}
FORGERIES = ("forged_fact", "look_alike_fact", "foreign_owner_fact", "parent_fact")
LATE = "etf-compare-main-late-budget"


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def cases(scenarios):
    """The default matrix's availability cases, and every case of the recording whose fact arrives mid-run."""
    return tuple(c for c in planned(0) if c.mutation.kind == "availability" or c.scenario == LATE)


def run(scenarios, cases, spec):
    return list(Runner(scenarios, load_target(spec)).run(cases))


@pytest.fixture(scope="module")
def guarded(scenarios, cases):
    return {r.case.id: r for r in run(scenarios, cases, "reference:guarded")}


def failed(scenarios, cases, guarded, spec):
    """The cases `spec` fails that the guard passes, by id."""
    return {
        r.case.id: r
        for r in run(scenarios, cases, spec)
        if r.verdict.kind in KILLS and guarded[r.case.id].verdict.kind.ok
    }


def test_the_guard_passes_every_fact_case_with_the_surface_the_facts_in_force_leave(guarded):
    assert {r.verdict.kind for r in guarded.values()} <= {
        VerdictKind.KILLED,
        VerdictKind.PASSED,
        VerdictKind.EQUIVALENT,
    }
    trusted = [r for r in guarded.values() if r.case.mutation.variant == "trusted_fact"]
    assert trusted and all(r.verdict.kind is VerdictKind.PASSED for r in trusted)
    # Sent without the tools the fact hides (a request over capacity sends nothing at all).
    assert all(r.evidence.diff == () for r in trusted if r.evidence.dispatches)
    # The fact the case recorded is in the evidence, trusted, and hides what the request went without.
    assert all(
        any(ruling.trusted and ruling.fact.arrives is None and ruling.hides for ruling in r.evidence.availability)
        for r in trusted
    )
    forged = [r for r in guarded.values() if r.case.mutation.variant in FORGERIES]
    assert forged and all(r.verdict.kind is VerdictKind.PASSED for r in forged)
    assert all(r.evidence.diff == () for r in forged if r.evidence.dispatches)


def test_the_recorded_late_fact_narrows_the_request_only_once_it_arrived(guarded):
    legit = [r for r in guarded.values() if r.case.scenario == LATE and r.case.mutation.kind == "legit"]
    assert legit and {r.verdict.kind for r in legit} == {VerdictKind.PASSED}
    assert all(
        any(
            ruling.fact.arrives == "async_prep" and ruling.hides == ("market__web_search",)
            for ruling in r.evidence.availability
        )
        for r in legit
    )


@pytest.mark.parametrize(
    ("defect", "variants"),
    [
        ("any-known-owner", {"foreign_owner_fact"}),
        ("last-scope-segment", {"look_alike_fact", "near_miss_fact"}),
        ("child-obeys-parent", {"parent_fact"}),
        ("facts-read-once", {"trusted_fact", "trusted_fact_sources"}),
    ],
)
def test_each_fact_defect_is_killed_by_the_cases_of_its_bug(scenarios, cases, guarded, defect, variants):
    killed = failed(scenarios, cases, guarded, f"reference:defect/{defect}").values()
    # Beyond the recordings whose facts arrive mid-run (where reading once fails every dispatch), only its bug's cases.
    arriving = {s.id for s in scenarios if any(f.arrives for f in s.contract.facts)}
    assert {r.case.mutation.variant for r in killed if r.case.scenario not in arriving} == variants
    assert all(r.verdict.kind is VerdictKind.SURVIVED for r in killed)


def test_last_scope_segment_falls_only_for_forged_scopes_that_keep_the_last_segment(scenarios, cases, guarded):
    killed = failed(scenarios, cases, guarded, "reference:defect/last-scope-segment")
    by_id = {scenario.id: scenario for scenario in scenarios}
    forged = {
        (r.case.scenario, fact.bound_to.scope)
        for r in killed.values()
        for fact in by_key(r.case.mutation.mutator).records(by_id[r.case.scenario], r.case.mutation.aim)
    }
    assert forged and all(
        scope != by_id[id].binding.scope and scope.rsplit("/")[-1] == by_id[id].binding.scope.rsplit("/")[-1]
        for id, scope in forged
    )
    # Look-alikes changed at the start or middle, and near misses that keep the end, are among them.
    aims = {str(r.case.mutation.aim) for r in killed.values()}
    assert {"scope@start", "scope~casefold", "scope~suffix"} <= aims and "scope~strip" not in aims


# -- hosts of another style, each with one of the bugs ---------------------------------------------


@pytest.fixture(scope="module")
def host_cases(scenarios, cases):
    """What a host without a capacity result or summary check, making one model call per request,
    can be held to: research recordings that dispatch once."""
    fit = {
        s.id
        for s in scenarios
        if s.mode is Mode.RESEARCH and s.outcome is RequestOutcome.DISPATCHED and s.model_calls == 1
    }
    return tuple(c for c in cases if c.scenario in fit)


def test_a_host_that_judges_its_facts_right_passes_every_fact_case(scenarios, host_cases):
    results = run(scenarios, host_cases, "tests.fixtures.fact_hosts:correct")
    assert {r.verdict.kind for r in results} <= {VerdictKind.KILLED, VerdictKind.PASSED, VerdictKind.EQUIVALENT}, [
        (r.case.id, r.verdict.reason) for r in results if not r.verdict.kind.ok
    ][:3]


@pytest.mark.parametrize(
    ("factory", "variants", "aims"),
    [
        (
            "any_known_owner",
            {"foreign_owner_fact"},
            {"host:search_budget_exhausted", "web_gateway:run_deadline_exhausted"},
        ),
        # The near misses that keep a scope's last segment: a changed first letter, a prefix before it.
        (
            "last_scope_segment",
            {"look_alike_fact", "near_miss_fact"},
            {
                "scope@start",
                "scope@middle",
                *(f"scope~{lossy}" for lossy in ("casefold", "nfkc", "zero_width", "suffix", "last_segment")),
            },
        ),
        ("child_obeys_parent", {"parent_fact"}, {"search_budget_exhausted", "run_deadline_exhausted"}),
        (
            "reads_facts_once",
            {"trusted_fact", "trusted_fact_sources"},
            {"search_budget_exhausted", "run_deadline_exhausted"},
        ),
    ],
)
def test_a_host_with_one_fact_bug_fails_the_cases_of_that_bug_saying_which_tool(
    scenarios, host_cases, factory, variants, aims
):
    results = run(scenarios, host_cases, f"tests.fixtures.fact_hosts:{factory}")
    failing = [r for r in results if not r.verdict.kind.ok]
    assert {r.case.mutation.variant for r in failing if r.case.scenario != LATE} == variants
    mine = [r for r in failing if r.case.mutation.variant in variants]
    assert {str(r.case.mutation.aim) for r in mine} == aims
    for r in mine:
        assert r.verdict.kind is VerdictKind.SURVIVED
        if r.case.mutation.variant.startswith("trusted_fact"):
            # It sent a tool the trusted fact hid: the reason names the tool, the evidence the fact.
            assert "added 'market__web_" in r.verdict.reason, r.verdict.reason
            assert any(ruling.trusted and ruling.hides for ruling in r.evidence.availability)
        else:
            # It hid a tool on a fact that binds someone else: the reason names the tool, the evidence why not.
            assert "removed 'market__web_" in r.verdict.reason, r.verdict.reason
            assert all(
                not ruling.trusted
                for ruling in r.evidence.availability
                if ruling.fact.arrives is None and ruling.hides == ()
            )


def test_a_host_that_reads_its_facts_once_sends_what_the_late_recorded_fact_hides(scenarios, host_cases):
    results = run(
        scenarios, [c for c in host_cases if c.scenario == LATE], "tests.fixtures.fact_hosts:reads_facts_once"
    )
    dispatching = [r for r in results if r.case.must.value == "dispatch"]
    assert dispatching and all(r.verdict.kind is VerdictKind.SURVIVED for r in dispatching)
    assert all("added 'market__web_search'" in r.verdict.reason for r in dispatching), dispatching[0].verdict.reason
