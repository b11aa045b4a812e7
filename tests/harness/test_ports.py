import pytest

from toolsurface.contract._formats import FORMATS
from toolsurface.contract._owner import Settlement
from toolsurface.harness._ports import LedgerRefused, Ports
from toolsurface.scenarios import Boundary, Point, load


@pytest.fixture
def scenario():
    return next(s for s in load() if s.publication is not None)


@pytest.fixture
def ports(scenario):
    return Ports(scenario, FORMATS[scenario.tool_format], None, None)


def test_gateway_snapshots_tools_at_dispatch_time(ports, scenario):
    tools = [ports.fmt.build(d) for d in scenario.contract.surface]
    ports.gateway.dispatch("req", tools, [])
    ports.fmt.set_name(tools[0], "edited_after_dispatch")
    assert ports.gateway.log[0].surface.names()[0] == scenario.contract.surface[0].name


def test_ledger_settles_a_reservation_once(ports):
    ledger = ports.ledger("main")
    reservation = ledger.reserve("req_1")
    ledger.settle(reservation, Settlement.PRE_DISPATCH_REJECTED)
    with pytest.raises(LedgerRefused, match="second settlement"):
        ledger.settle(reservation, Settlement.DISPATCHED)
    assert [e.accepted for e in ports.events] == [True, True, False]
    assert ports.open_reservations == ()


def test_ledger_refuses_and_records_a_settlement_without_reservation(ports):
    with pytest.raises(LedgerRefused, match="no reservation"):
        ports.ledger("child").settle("req_never_reserved", "failed")
    assert not ports.events[0].accepted and ports.events[0].lane == "child"


def test_lanes_have_separate_ledgers(ports):
    ports.ledger("main").reserve("req_1")
    with pytest.raises(LedgerRefused):
        ports.ledger("child").settle("req_1", Settlement.PRE_DISPATCH_REJECTED)
    assert ports.open_reservations == ("main:req_1",)


def test_unknown_outcome_is_rejected(ports):
    reservation = ports.ledger("main").reserve("req_1")
    with pytest.raises(ValueError):
        ports.ledger("main").settle(reservation, "maybe")


def test_publications_start_with_the_scenario_body(ports, scenario):
    assert ports.publications.snapshot() == {scenario.publication.id: scenario.publication.body}


def test_inject_applies_once_at_its_point_and_records_every_point(scenario):
    calls = []

    def injection(tools, messages, facts):
        calls.append(len(tools))
        return tools[:1], messages

    ports = Ports(scenario, FORMATS["logical"], Boundary("evidence"), injection)
    tools, _ = ports.inject("context_fit", [1, 2, 3], [])
    assert tools == [1, 2, 3]
    assert ports.inject("evidence", [1, 2, 3], [])[0] == [1]
    assert ports.inject("evidence", [1, 2, 3], [])[0] == [1, 2, 3]
    assert calls == [3] and ports.injected and list(map(str, ports.points)) == ["context_fit", "evidence", "evidence"]


def test_closed_ports_report_every_effect_as_late_and_still_record_it(ports, scenario):
    late = []
    reservation = ports.ledger("main").reserve("req")
    ports.close(late.append)
    ports.gateway.dispatch("req", [], [])
    ports.ledger("main").settle(reservation, "dispatched")
    ports.publications.publish("p", "body")
    ports.publications.withdraw("p")
    assert late == [
        "dispatched request 'req'",
        "settled 'req' as dispatched in the main ledger",
        "published 'p'",
        "withdrew publication 'p'",
    ]
    assert len(ports.gateway.log) == 1 and ports.open_reservations == ()


def test_effects_before_the_close_are_not_late(ports):
    late = []
    ports.gateway.dispatch("req", [], [])
    ports.close(late.append)
    assert late == []


def test_watched_boundaries_are_snapshotted_before_the_change(scenario):
    from toolsurface.contract._canonical import capture
    from toolsurface.contract._formats import LOGICAL

    tools = [descriptor.as_logical() for descriptor in scenario.surface]
    ports = Ports(scenario, LOGICAL, Boundary("evidence"), lambda t, m, f: ([], m), watch=2)
    ports.inject("hook", tools, [])
    ports.inject("evidence", tools, [])
    ports.inject("post_seal", [], [])
    assert [at for at, _ in ports.offered] == [Boundary(Point.HOOK), Boundary(Point.EVIDENCE)]
    assert ports.offered[1][1] == capture(tools, LOGICAL)


def test_a_fact_recorded_as_arriving_mid_run_joins_the_feed_at_its_boundary_before_the_change():
    late = next(s for s in load() if any(fact.arrives for fact in s.contract.facts))
    (fact,) = [fact for fact in late.contract.facts if fact.arrives]
    seen = []

    def inject(tools, messages, facts):
        seen.append(tuple(facts))
        return tools, messages

    ports = Ports(late, FORMATS[late.tool_format], Boundary.parse(fact.arrives), inject)
    for point in late.points:
        assert (fact in ports.facts.current()) == (Boundary.parse(fact.arrives) in ports.points), point
        ports.inject(point, [], [])
    assert (
        seen == [(*(f for f in late.contract.facts if not f.arrives), fact)] and ports.facts.current().count(fact) == 1
    )


def test_a_host_names_a_boundary_by_its_point_or_its_own_name_and_no_other(scenario):
    ports = Ports(scenario, FORMATS["logical"], None, None)
    ports.inject(Point.HOOK, [], [])
    ports.inject("before:model", [], [])
    assert ports.points == [Boundary("hook"), Boundary("before:model")]
    with pytest.raises(ValueError, match="'two words' is not an injection point: expected one of post_recovery"):
        ports.inject("two words", [], [])


def test_a_target_may_declare_its_boundaries_as_call_and_point_pairs(scenario):
    from toolsurface.harness._runner import offered_checkpoints

    class Declared:
        own_boundaries = True

        def checkpoints(self, scenario):
            return ((1, "before:model"), Boundary("before:model", 2))

        def run(self, scenario, ports):
            raise AssertionError("a target that declares its boundaries is not run to find them")

    offered = offered_checkpoints(Declared(), timeout=1.0)(scenario)
    assert offered == (Boundary("before:model"), Boundary("before:model", 2))
