"""Property: whatever sequence of edits lands at whatever point, the reference guard dispatches
exactly when the surface and capability summary keep parity and the tools fit, and otherwise
refuses (or gives a capacity result) and settles once on its own lane."""

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurface.contract._canonical import capture, snapshot_of
from toolsurface.contract._formats import FORMATS
from toolsurface.contract._owner import Settlement
from toolsurface.contract._refusals import CapacityExceeded, RequestRefused
from toolsurface.harness._ports import Gateway, Ports
from toolsurface.harness._targets import load_target
from toolsurface.mutators import Edit, by_key
from toolsurface.mutators._strategies import edit_sequences
from toolsurface.scenarios import Boundary, RequestOutcome, load

SCENARIOS = load()
GUARDED = load_target("reference:guarded")


def injection(mutations, fmt, scenario):
    def apply(tools, messages, facts):
        for mutation in mutations:
            edit = Edit(tools, messages, fmt, mutation.delivery, mutation.aim, scenario, facts)
            tools, messages = by_key(mutation.mutator).apply(edit)
        return tools, messages

    return apply


@settings(max_examples=60)
@given(st.data())
def test_guard_dispatches_exactly_when_parity_holds(data):
    scenario = data.draw(st.sampled_from(SCENARIOS), label="scenario")
    mutations = data.draw(edit_sequences(scenario, min_size=1, max_size=4), label="edits")
    point = data.draw(st.sampled_from(scenario.points), label="point")
    fmt = FORMATS[scenario.tool_format]

    # What the sequence does to the expected surface and summary, applied on its own.
    tools = [fmt.build(d) for d in scenario.surface]
    messages = [m.as_dict() for m in scenario.request_messages]
    changed, changed_messages = injection(mutations, fmt, scenario)(tools, messages, [])
    parity = capture(changed, fmt) == snapshot_of(scenario.surface)
    parity = parity and Gateway.summary_of(changed_messages) == scenario.contract.summary

    ports = Ports(scenario, fmt, Boundary(point), injection(mutations, fmt, scenario))
    try:
        GUARDED.run(scenario, ports)
        refused = capacity = False
    except CapacityExceeded:
        refused, capacity = True, True
    except RequestRefused:
        refused, capacity = True, False
    settlements = [(e.lane, e.settlement) for e in ports.events if e.op == "settle"]
    assert ports.injected
    if scenario.outcome is RequestOutcome.CAPACITY:
        # The tools never fit: a capacity result unless a check refused the change first.
        assert refused and (capacity or not parity) and ports.gateway.log == []
        assert settlements == [(scenario.lane.value, Settlement.PRE_DISPATCH_REJECTED.value)]
    elif parity:
        # Every model call of the request goes out: a recorded tool loop makes several.
        assert not refused and len(ports.gateway.log) == scenario.model_calls
        assert settlements == [(scenario.lane.value, Settlement.DISPATCHED.value)]
    else:
        assert refused and ports.gateway.log == []
        assert settlements == [(scenario.lane.value, Settlement.PRE_DISPATCH_REJECTED.value)]
    assert ports.open_reservations == ()
