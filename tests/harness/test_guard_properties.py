"""Property: whatever sequence of edits lands at whatever point, the reference guard dispatches
exactly when the surface and capability summary keep parity and the tools fit, and otherwise
refuses (or gives a capacity result) and settles once on its own lane."""

from hypothesis import given, settings
from hypothesis import strategies as st

from toolsurface.contract._canonical import capture, snapshot_of
from toolsurface.contract._facts import hidden_by
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


def injection(mutations, fmt, scenario, seen=None):
    """Applies the mutations in order; `seen`, when given, keeps the live tools handed to them and
    the tools, messages and fact feed they leave."""

    def apply(tools, messages, facts):
        if seen is not None:
            seen["before"] = capture(tools, fmt)
        for mutation in mutations:
            edit = Edit(tools, messages, fmt, mutation.delivery, mutation.aim, scenario, facts)
            tools, messages = by_key(mutation.mutator).apply(edit)
        if seen is not None:
            seen.update(after=capture(tools, fmt), messages=list(messages), facts=tuple(facts))
        return tools, messages

    return apply


@settings(max_examples=60)
@given(st.data())
def test_guard_dispatches_exactly_when_parity_holds(data):
    scenario = data.draw(st.sampled_from(SCENARIOS), label="scenario")
    mutations = data.draw(edit_sequences(scenario, min_size=1, max_size=4), label="edits")
    point = data.draw(st.sampled_from(scenario.points), label="point")
    fmt = FORMATS[scenario.tool_format]

    seen: dict = {}
    ports = Ports(scenario, fmt, Boundary(point), injection(mutations, fmt, scenario, seen))
    try:
        GUARDED.run(scenario, ports)
        refused = capacity = False
    except CapacityExceeded:
        refused, capacity = True, True
    except RequestRefused:
        refused, capacity = True, False
    assert ports.injected
    # Parity: the edits left the live tools as they were handed over, or left exactly the admitted
    # surface less what every trusted fact in the feed hides (a host may narrow before the guard
    # does); and an entry request still states its summary word for word.
    hidden = hidden_by(seen["facts"], scenario.binding, scenario.contract.web_tools)
    narrowed = snapshot_of([tool for tool in scenario.contract.surface if tool.name not in hidden])
    parity = seen["after"] in {seen["before"], narrowed}
    parity = parity and Gateway.summary_of(seen["messages"]) == scenario.contract.summary
    settlements = [(e.lane, e.settlement) for e in ports.events if e.op == "settle"]
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
