"""How a run ended is one of a closed set, each named for what happened: a host that lets the
ledger's refusal of its second settlement out of `run` did not return, a host that sends its list
from before an MCP change repaired nothing, and a capacity result before the case's point is said
so (a worker interrupted by SIGINT is in tests/test_cli_isolation.py)."""

import typing

import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._integrity import check_cases
from toolsurface.harness._oracles import MISSED, REPAIRED
from toolsurface.harness._types import Ending, SettlementRefused, Stop, VerdictKind
from toolsurface.mutators import Kind, Must


def test_every_ending_is_named_by_exactly_one_way_a_run_stops_or_by_a_dispatch():
    stops = typing.get_args(Stop)
    endings = [stop.ending for stop in stops]
    assert len(set(endings)) == len(endings) == len(stops)
    assert {*endings, Ending.DISPATCHED} == set(Ending)
    assert len({stop.tag for stop in stops}) == len(stops)


def recorded(target, select):
    session = prepare(RunOptions(target=target, red_target="none", select=select))
    return session.info, tuple(session.records())


def test_a_host_that_settles_a_refused_request_twice_ends_with_the_ledger_refusal_it_let_out():
    run, records = recorded("tests.fixtures.user_targets:DoubleSettle", ["web-read-child-single-tool/*"])
    refused = [r for r in records if r.case.must is Must.REFUSE and not r.case.equivalent]
    assert refused
    for record in refused:
        assert record.evidence.stop == SettlementRefused("second settlement")
        assert record.evidence.ending is Ending.SETTLEMENT_REFUSED
        assert record.verdict.kind is VerdictKind.SURVIVED and "second settlement" in record.verdict.reason
    # The cases it lets through settle once and end as they did.
    assert {r.evidence.ending for r in records if r.case.must is Must.DISPATCH} == {Ending.DISPATCHED}
    assert check_cases(run, records) is None


def test_a_host_that_misses_an_mcp_list_change_is_told_so_not_that_it_repaired_it():
    run, records = recorded("tests.fixtures.mcp_hosts:DeafHost", ["etf-compare-main-mcp-paged/*/mcp.*"])
    missed = [r for r in records if not r.verdict.kind.ok]
    assert missed and all(r.case.mutation.kind is Kind.MCP and r.case.must is Must.REFUSE for r in missed)
    for record in missed:
        assert record.verdict.reason.endswith(f"dispatched {MISSED}") and REPAIRED not in record.verdict.reason
        assert record.evidence.diff == () and record.evidence.ending is Ending.DISPATCHED
    assert check_cases(run, records) is None


@pytest.mark.parametrize("host", ["RepairingHost"])
def test_a_host_that_undoes_a_change_of_its_own_tools_is_still_told_it_repaired_it(host):
    _, records = recorded(f"tests.fixtures.reason_hosts:{host}", ["web-read-child-single-tool/*/post_seal/*"])
    repaired = [r for r in records if r.case.must is Must.REFUSE and not r.case.equivalent]
    assert repaired and all(r.verdict.reason == f"dispatched the expected surface: {REPAIRED}" for r in repaired)
