"""A failure the framework causes itself: what went out is the framework's form of what should have.

The form here stands in for a framework's conversion (LangChain's is in
tests/reports/test_framework_causes.py): it rewrites every description, as a conversion rewrites
every schema, so each test can say exactly what the framework did and what the host did beside it.
"""

import dataclasses

import pytest

from toolsurface.contract._canonical import Snapshot, canonical_json, capture
from toolsurface.contract._owner import Settlement
from toolsurface.harness._attribution import framework_own
from toolsurface.harness._observe import tool_format
from toolsurface.harness._oracles import judge
from toolsurface.harness._plan import plan
from toolsurface.harness._runner import expected_surface
from toolsurface.harness._traits import TargetTraits
from toolsurface.harness._types import (
    Dispatch,
    LedgerEvent,
    LedgerOp,
    Observation,
    Returned,
    VerdictKind,
)
from toolsurface.mutators import Must
from toolsurface.scenarios import load

#: How an agent target shows its tools: logical dicts, no wire field.
TRAITS = TargetTraits(tool_format="logical", wire_fields=frozenset())


def shouted(tools):
    """A framework's form: every description in capitals."""
    return [dict(tool, description=tool["description"].upper()) for tool in tools]


@pytest.fixture(scope="module")
def picked():
    (scenario,) = [s for s in load() if s.id == "desk-review-main-openai-46-tools"]
    cases = [c for c in plan([scenario], seed=0) if c.call == 1 and not c.equivalent]
    pick = {must: next(c for c in cases if c.must is must) for must in Must}
    fmt = tool_format(TRAITS, scenario)
    return scenario, fmt, {must: (case, expected_surface(TRAITS, scenario, case)) for must, case in pick.items()}


def in_form(form, surface, fmt):
    tools = [{"name": n, "description": d, "input_schema": s} for n, d, s, *_ in surface.entries()]
    return capture(form(tools), fmt)


def sent(scenario, surface):
    """The request went out once with `surface`, settled as dispatched: only its surface can fail it."""
    request, lane = scenario.identity.request, scenario.lane.value
    ledger = (
        LedgerEvent(lane, LedgerOp.RESERVE, request),
        LedgerEvent(lane, LedgerOp.SETTLE, request, Settlement.DISPATCHED),
    )
    observed = Observation((Dispatch(request, surface, 1),), ledger, (), (), True, None, Returned())
    return dataclasses.replace(observed, points=scenario.points)


def test_a_request_sent_in_the_frameworks_form_of_the_expected_surface_is_the_frameworks_own(picked):
    scenario, fmt, by_must = picked
    case, expected = by_must[Must.DISPATCH]
    observed = sent(scenario, in_form(shouted, expected[0], fmt))
    # The verdict stands: the request did not go out as admitted.
    assert judge(case, observed, scenario, expected).kind is VerdictKind.SURVIVED
    assert framework_own(case, observed, scenario, expected, shouted, fmt)


def test_a_change_of_the_hosts_beside_the_frameworks_form_stays_the_hosts(picked):
    scenario, fmt, by_must = picked
    case, expected = by_must[Must.DISPATCH]
    entries = in_form(shouted, expected[0], fmt).entries()
    cut = Snapshot(canonical_json(entries[:-1]))  # the host dropped the last tool, and the framework shouted
    observed = sent(scenario, cut)
    assert judge(case, observed, scenario, expected).kind is VerdictKind.SURVIVED
    assert not framework_own(case, observed, scenario, expected, shouted, fmt)


def test_a_change_that_must_be_refused_is_never_the_frameworks_even_sent_in_its_form(picked):
    # Nothing refused it: what went out is the framework's form of the expected surface, but the
    # case needed a refusal, and no form of any surface is one.
    scenario, fmt, by_must = picked
    case, expected = by_must[Must.REFUSE]
    observed = sent(scenario, in_form(shouted, expected[0], fmt))
    assert judge(case, observed, scenario, expected).kind is VerdictKind.SURVIVED
    assert not framework_own(case, observed, scenario, expected, shouted, fmt)


def test_a_form_that_changes_nothing_or_fails_explains_nothing(picked):
    scenario, fmt, by_must = picked
    case, expected = by_must[Must.DISPATCH]
    entries = expected[0].entries()
    observed = sent(scenario, Snapshot(canonical_json(entries[::-1])))  # the host reversed the tools

    def broken(tools):
        raise KeyError("input_schema")

    assert not framework_own(case, observed, scenario, expected, list, fmt)
    assert not framework_own(case, observed, scenario, expected, broken, fmt)
    # A form that reverses the tools, as a framework's tool order would, explains exactly that.
    assert framework_own(case, observed, scenario, expected, lambda tools: tools[::-1], fmt)
