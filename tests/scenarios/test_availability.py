"""The owner-fact rule: only a fact from its owner, bound to this very request, hides a tool."""

import dataclasses

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.mutators._strategies import owner_facts
from toolsurface.mutators._testing import BINDING
from toolsurface.scenarios import (
    Binding,
    FactKind,
    OwnerFact,
    WebTools,
    hidden_by,
    rule,
    rulings,
)

WEB = WebTools(search="market__web_search", read="market__web_read")


def fact(kind=FactKind.SEARCH_BUDGET_EXHAUSTED, owner=None, bound_to=BINDING, refs=()):
    return OwnerFact(kind, owner or kind.producer, bound_to, refs)


def test_budget_hides_search_and_keeps_read_while_source_refs_exist():
    ruling = rule(fact(refs=("src_1", "src_2")), BINDING, WEB)
    assert ruling.trusted and ruling.hides == ("market__web_search",)
    assert ruling.keeps == ("market__web_read (source refs src_1, src_2)",)
    assert str(ruling) == (
        "search_budget_exhausted from web_gateway, bound to run-1 · research · inv-1 · conn-1: trusted; "
        "hides market__web_search; keeps market__web_read (source refs src_1, src_2)"
    )


def test_budget_without_source_refs_and_deadline_hide_both():
    assert rule(fact(), BINDING, WEB).hides == ("market__web_search", "market__web_read")
    assert rule(fact(FactKind.RUN_DEADLINE_EXHAUSTED), BINDING, WEB).hides == ("market__web_search", "market__web_read")


def test_a_fact_from_anyone_but_its_owner_is_ignored():
    ruling = rule(fact(owner="mcp:market"), BINDING, WEB)
    assert not ruling.trusted and ruling.hides == ()
    assert ruling.ignored_because == "produced by mcp:market, not by web_gateway"
    assert rule(fact(FactKind.RUN_DEADLINE_EXHAUSTED, owner="web_gateway"), BINDING, WEB).ignored_because == (
        "produced by web_gateway, not by host"
    )


def test_each_identity_field_binds():
    for field in ("run", "scope", "invocation", "connection"):
        other = dataclasses.replace(BINDING, **{field: "other"})
        ruling = rule(fact(bound_to=other), BINDING, WEB)
        assert ruling.ignored_because == f"bound to {field} other, not this request's {getattr(BINDING, field)}"


def test_without_web_tools_no_fact_hides_anything():
    assert rule(fact(), BINDING, None).ignored_because == "the contract names no web tools"


@given(st.lists(owner_facts(), max_size=4))
def test_only_trusted_facts_hide_and_only_web_tools(facts):
    hidden = hidden_by(facts, BINDING, WEB)
    assert hidden <= {WEB.search, WEB.read}
    trusted = [f for f in facts if f.owner == f.kind.producer and f.bound_to == BINDING]
    assert hidden == hidden_by(trusted, BINDING, WEB)
    assert bool(hidden) == bool(trusted)
    # Reading web sources already found survives a spent search budget, never a spent deadline.
    closes_read = any(f.kind is FactKind.RUN_DEADLINE_EXHAUSTED or not f.source_refs for f in trusted)
    assert (WEB.read in hidden) == closes_read
    assert [r.fact for r in rulings(facts, BINDING, WEB)] == facts


@given(owner_facts(), st.sampled_from(["run", "scope", "invocation", "connection"]))
def test_rebinding_a_trusted_fact_elsewhere_removes_its_effect(f, field):
    elsewhere = Binding(**{**dataclasses.asdict(BINDING), field: getattr(BINDING, field) + "-sibling"})
    assert hidden_by([f], elsewhere, WEB) == frozenset()
