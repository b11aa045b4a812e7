"""Facts recorded into the feed: each forgery is wrong in one place only, and the bundled matrix
forges every identity field at every place, and the producer both ways."""

import pytest

from tests.fixtures.planned import planned
from toolsurface.mutators import (
    FactField,
    ForeignOwner,
    LookAlike,
    Narrowing,
    ParentBound,
    Where,
    by_key,
)
from toolsurface.mutators._facts import forged, look_alike_at
from toolsurface.scenarios import FactKind, hidden_by, load, rule

SCENARIOS = load()
BY_ID = {scenario.id: scenario for scenario in SCENARIOS}
SCOPE = "scope:research/etf-compare"


@pytest.mark.parametrize(
    ("where", "value"),
    [
        (Where.START, "tcope:research/etf-compare"),
        (Where.MIDDLE, "scope:researdh/etf-compare"),
        (Where.END, "scope:research/etf-comparf"),
    ],
)
def test_a_look_alike_differs_in_one_character_at_its_place(where, value):
    assert look_alike_at(SCOPE, where) == value
    assert len(value) == len(SCOPE)
    assert sum(a != b for a, b in zip(SCOPE, value, strict=True)) == 1


def test_look_alikes_wrap_digits_and_letters_within_their_alphabet():
    assert look_alike_at("inv_09", Where.END) == "inv_00"
    assert look_alike_at("Zulu_1", Where.START) == "Aulu_1"


@pytest.fixture(scope="module")
def cases():
    return planned(0)


def test_the_bundled_matrix_forges_every_identity_field_at_every_place(cases):
    aims = {c.mutation.aim for c in cases if c.mutation.variant == "look_alike_fact"}
    assert aims == {LookAlike(field, where) for field in FactField if field is not FactField.OWNER for where in Where}
    # A scope forged at its start or middle keeps its last segment: the bug that matches on it is reached.
    kept = [
        c
        for c in cases
        if c.mutation.aim in (LookAlike(FactField.SCOPE, Where.START), LookAlike(FactField.SCOPE, Where.MIDDLE))
    ]
    assert kept


def test_the_other_real_owner_speaks_to_each_kind(cases):
    aims = {c.mutation.aim for c in cases if c.mutation.variant == "foreign_owner_fact"}
    assert aims == {
        ForeignOwner("host", FactKind.SEARCH_BUDGET_EXHAUSTED),
        ForeignOwner("web_gateway", FactKind.RUN_DEADLINE_EXHAUSTED),
    }


def test_every_forged_fact_of_the_matrix_would_narrow_if_trusted_and_is_not(cases):
    """Each forgery hides a tool the request shows, were its one wrong field right; and it is wrong."""
    seen = set()
    for case in cases:
        if case.mutation.variant not in ("forged_fact", "look_alike_fact", "foreign_owner_fact", "parent_fact"):
            continue
        if (case.scenario, case.mutation.aim) in seen:
            continue
        seen.add((case.scenario, case.mutation.aim))
        scenario = BY_ID[case.scenario]
        (fact,) = by_key(case.mutation.mutator).records(scenario, case.mutation.aim)
        assert not rule(fact, scenario.binding, scenario.contract.web_tools).trusted, (case.id, fact)
        assert scenario.narrowed_by((fact,)) == scenario.surface
    assert len(seen) > 50


def test_parent_facts_go_to_every_child_whose_surface_they_would_narrow(cases):
    parented = {c.scenario for c in cases if c.mutation.variant == "parent_fact"}
    assert parented == {"news-scan-child-anthropic-hooked"}
    child = BY_ID["news-scan-child-anthropic-hooked"]
    for kind in FactKind:
        fact = forged(child, ParentBound(kind))
        assert fact.bound_to == child.identity.parent and fact.owner == kind.producer
        assert rule(fact, child.binding, child.contract.web_tools).ignored_because.startswith("bound to scope")


def test_a_trusted_fact_recorded_mid_run_narrows_the_expected_surface(cases):
    trusted = [c for c in cases if c.mutation.variant == "trusted_fact"]
    assert {c.point for c in trusted} == {point for s in SCENARIOS if s.contract.web_tools for point in s.points}
    for case in trusted:
        scenario = BY_ID[case.scenario]
        (fact,) = by_key(case.mutation.mutator).records(scenario, case.mutation.aim)
        web = scenario.contract.web_tools
        assert rule(fact, scenario.binding, web).trusted
        narrowed = {tool.name for tool in scenario.narrowed_by((fact,))}
        assert narrowed < {tool.name for tool in scenario.surface}
        assert hidden_by((fact,), scenario.binding, web) >= {web.search}


def test_a_narrowing_aim_names_its_kind_only():
    assert str(Narrowing(FactKind.RUN_DEADLINE_EXHAUSTED)) == "run_deadline_exhausted"
