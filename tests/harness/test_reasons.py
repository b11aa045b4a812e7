"""A verdict's reason names what the host did: a repair is not a dispatch of the change, a swap
names both tools, and an undeclared refusal type gets a hint."""

import pytest

from tests.fixtures.reason_hosts import RepairingHost, UndeclaredRefusalHost
from toolsurface.harness._plan import plan, select
from toolsurface.harness._runner import Runner
from toolsurface.harness._types import VerdictKind
from toolsurface.scenarios import load

SCENARIO = "web-read-child-single-tool/*"


@pytest.fixture(scope="module")
def scenarios():
    return [s for s in load() if s.id in ("web-read-child-single-tool", "etf-compare-main-hooked")]


def records(scenarios, host, pattern):
    return list(Runner(scenarios, host).run(select(plan(scenarios, seed=0), [pattern])))


def test_a_host_that_repairs_a_change_is_told_apart_from_one_that_sends_it(scenarios):
    refused = [
        r
        for r in records(scenarios, RepairingHost(), "*/post_seal/*")
        if r.case.must.value == "refuse" and not r.case.equivalent
    ]
    assert refused and all(r.verdict.kind is VerdictKind.SURVIVED for r in refused)
    assert all(
        r.verdict.reason.startswith("dispatched the expected surface: the change was repaired instead of refused")
        for r in refused
    )


def test_a_swap_names_both_tools(scenarios):
    (swap,) = [r for r in records(scenarios, RepairingHost(), "etf-compare-main-hooked/*/hook/reorder.replace:swap:*")]
    assert swap.case.change[0].startswith("swapped '") and " and '" in swap.case.change[0]


def test_an_undeclared_refusal_that_was_settled_gets_the_hint_to_declare_it(scenarios):
    refused = [
        r
        for r in records(scenarios, UndeclaredRefusalHost(), SCENARIO)
        if r.case.must.value == "refuse" and not r.case.equivalent
    ]
    assert refused and all(r.verdict.kind is VerdictKind.ERROR for r in refused)
    assert all(
        r.verdict.reason
        == "target crashed: HostSaysNo: tool surface changed; it sent nothing and settled as a refusal: if "
        "HostSaysNo is its refusal,"
        " declare it in `refusals`"
        for r in refused
    )
