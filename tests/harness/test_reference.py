"""The reference pipelines on the bundled scenarios: the guard holds, the old path and every
defect variant fail where they should."""

from collections import Counter

import pytest

from harness import DEFECTS, Runner, VerdictKind, load_target, plan
from scenarios import POINTS, load

SIX_KINDS = {"add", "delete", "rename", "reorder", "description", "schema"}


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def cases(scenarios):
    return plan(scenarios, seed=0)


def verdicts(scenarios, cases, spec):
    return list(Runner(scenarios, load_target(spec)).run(cases))


def test_the_default_matrix_is_large_and_complete(scenarios, cases):
    assert len(cases) >= 500
    assert len({c.id for c in cases}) == len(cases)
    assert {c.lane.value for c in cases} == {"main", "child"}
    assert {c.hooks for c in cases} == {True, False}
    kinds = {c.mutation.kind.value for c in cases}
    for point in POINTS:
        assert {c.mutation.kind.value for c in cases if c.point == point} == kinds, point


def test_guarded_kills_or_passes_every_case(scenarios, cases):
    results = verdicts(scenarios, cases, "reference:guarded")
    bad = [(r.case.id, r.verdict) for r in results if not r.verdict.kind.ok]
    assert bad == []
    counts = Counter(r.verdict.kind for r in results)
    assert counts[VerdictKind.KILLED] and counts[VerdictKind.PASSED] and counts[VerdictKind.EQUIVALENT]


def test_legacy_lets_at_least_13_through_over_all_six_kinds(scenarios, cases):
    survivors = [r for r in verdicts(scenarios, cases, "reference:legacy") if r.verdict.kind is VerdictKind.SURVIVED]
    assert len(survivors) >= 13
    assert {r.case.mutation.kind.value for r in survivors} >= SIX_KINDS
    assert any("never settled" in r.verdict.reason for r in survivors)  # the async-prep path
    assert any(r.evidence.dispatches for r in survivors)


@pytest.mark.parametrize("defect", sorted(DEFECTS))
def test_every_defect_is_killed(scenarios, cases, defect):
    results = verdicts(scenarios, cases, f"reference:defect/{defect}")
    assert {r.verdict.kind for r in results} & {VerdictKind.SURVIVED, VerdictKind.FALSE_REJECT}
    # A variant that crashes proves nothing. (topn-drop does leave later mutations without a tool
    # to edit: those cases are errors of the "could not be applied" kind, honestly.)
    errors = [r.verdict.reason for r in results if r.verdict.kind is VerdictKind.ERROR]
    assert all(reason.startswith("mutation could not be applied at ") for reason in errors)


def test_shared_reference_misses_in_place_edits_only(scenarios, cases):
    in_place = [c for c in cases if c.mutation.kind == "schema" and c.mutation.delivery == "in_place" and c.point == "async_prep"]
    replace = [c for c in cases if c.mutation.kind == "schema" and c.mutation.delivery == "replace" and c.point == "async_prep"]
    runner = Runner(scenarios, load_target("reference:defect/shared-ref"))
    assert {r.verdict.kind for r in runner.run(in_place)} == {VerdictKind.SURVIVED}
    assert {r.verdict.kind for r in runner.run(replace)} == {VerdictKind.KILLED}


def test_name_keyed_is_blind_to_order_only(scenarios, cases):
    runner = Runner(scenarios, load_target("reference:defect/name-keyed"))
    failing = {r.case.mutation.kind.value for r in runner.run(cases) if not r.verdict.kind.ok}
    assert failing == {"reorder"}


def test_lane_receipt_and_publication_defects_fail_for_their_own_reason(scenarios, cases):
    def reasons(defect):
        runner = Runner(scenarios, load_target(f"reference:defect/{defect}"))
        return [r for r in runner.run(cases) if r.verdict.kind is VerdictKind.SURVIVED]

    wrong_lane = reasons("wrong-lane-settle")
    assert wrong_lane and all(r.case.lane.value == "child" for r in wrong_lane)
    assert all("reservation child:" in r.verdict.reason and "never settled" in r.verdict.reason for r in wrong_lane)
    assert all("second settlement" in r.verdict.reason for r in reasons("second-receipt"))
    dropped = reasons("drops-publication")
    assert dropped and all("publication" in r.verdict.reason and "lost" in r.verdict.reason for r in dropped)
    assert {r.case.scenario for r in dropped} == {s.id for s in scenarios if s.publication is not None}


def test_laundering_is_caught_only_by_the_early_check(scenarios, cases):
    runner = Runner(scenarios, load_target("reference:defect/final-only-laundering"))
    survivors = {r.case.point for r in runner.run(cases) if r.verdict.kind is VerdictKind.SURVIVED}
    assert survivors == {"hook"}
