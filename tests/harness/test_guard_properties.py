"""Property: whatever sequence of edits lands at whatever point, the reference guard dispatches
exactly when the surface keeps parity, and otherwise refuses and settles once on its own lane."""

from hypothesis import given, settings
from hypothesis import strategies as st

from harness import FORMATS, Outcome, Ports, SurfaceRefused, capture, load_target, snapshot_of
from mutators import Edit, by_key, edit_sequences
from scenarios import load

SCENARIOS = load()
GUARDED = load_target("reference:guarded")


def injection(mutations, fmt, scenario):
    def apply(tools, messages):
        for mutation in mutations:
            edit = Edit(tools, messages, fmt, mutation.delivery, mutation.target, scenario)
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

    # What the sequence does to the admitted surface, applied on its own.
    tools = [fmt.build(d) for d in scenario.contract.surface]
    changed, _ = injection(mutations, fmt, scenario)(tools, [m.as_dict() for m in scenario.messages])
    parity = capture(changed, fmt) == snapshot_of(scenario.contract.surface)

    ports = Ports(scenario, fmt, point, injection(mutations, fmt, scenario))
    try:
        GUARDED.run(scenario, ports)
        refused = False
    except SurfaceRefused:
        refused = True
    settlements = [(e.lane, e.outcome) for e in ports.events if e.op == "settle"]
    assert ports.injected
    if parity:
        assert not refused and len(ports.gateway.log) == 1
        assert settlements == [(scenario.lane.value, Outcome.DISPATCHED.value)]
    else:
        assert refused and ports.gateway.log == []
        assert settlements == [(scenario.lane.value, Outcome.PRE_DISPATCH_REJECTED.value)]
    assert ports.open_reservations == ()
