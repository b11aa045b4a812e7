"""The public guard's core: what it lets through, what it refuses, and how it settles."""

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from toolsurface import (
    CapacityExceeded,
    Must,
    RequestRefused,
    Settlement,
    SurfaceRefused,
    capture,
    mutated_requests,
    scenarios_for,
    surfaces,
)
from toolsurface.contract._formats import FORMATS
from toolsurface.guard import Capacity, SurfaceGuard, current_owner, owning


class Owner:
    """An owner as a host writes one: its request's identity, a fact store, and a list for a ledger."""

    def __init__(self, binding, facts=()):
        self.binding = binding
        self.store = list(facts)
        self.settlements = []

    def facts(self):
        return tuple(self.store)

    def settle(self, settlement, note):
        self.settlements.append((settlement, note))


requests = st.sampled_from(["logical", "openai", "anthropic", "mcp"]).flatmap(
    lambda fmt: (
        surfaces()
        .flatmap(scenarios_for)
        .flatmap(lambda scenario: st.tuples(st.just(scenario), st.just(fmt), mutated_requests(scenario, fmt)))
    )
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(requests)
def test_a_request_is_refused_and_settled_once_exactly_when_its_change_must_be_refused(drawn):
    scenario, fmt, request = drawn
    guard = SurfaceGuard(
        request.admitted, FORMATS[fmt], web_tools=scenario.contract.web_tools, summary=scenario.contract.summary
    )
    owner = Owner(scenario.binding, (*scenario.contract.facts, *request.facts))
    guarded = guard.request(owner)
    # A trusted fact must be applied by the pipeline before the check: the mutated request is
    # the unnarrowed one, so the guard refuses it for still showing the tool the fact hides.
    narrowed_by_pipeline = request.mutation.variant == "trusted_fact"
    if request.must is Must.REFUSE or narrowed_by_pipeline:
        with pytest.raises(RequestRefused):
            guarded.check("final", request.tools, request.messages)
        assert owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "final check")]
    else:
        guarded.check("final", request.tools, request.messages)
        assert owner.settlements == []


def descriptor_tools(n):
    return [
        {
            "name": f"tool_{i}",
            "description": "d" * 40,
            "input_schema": {"type": "object", "properties": {"q": {"type": "string"}}},
        }
        for i in range(n)
    ]


def test_the_baseline_is_bytes_taken_when_the_guard_is_made():
    tools = descriptor_tools(2)
    guard = SurfaceGuard(tools)
    tools[0]["input_schema"]["properties"]["q"]["type"] = "integer"  # an in-place edit of the live object
    guarded = guard.request(Owner(binding=None))
    with pytest.raises(SurfaceRefused) as refused:
        guarded.check("final", tools)
    assert "schema of 'tool_0' changed" in str(refused.value)


def test_settling_settles_once_however_the_request_ends():
    guard = SurfaceGuard(descriptor_tools(1))
    sent, refused, failed, silent = (Owner(None) for _ in range(4))
    with guard.request(sent).settling() as request:
        request.sent()
    with pytest.raises(SurfaceRefused), guard.request(refused).settling() as request:
        request.check("early", [])
    with pytest.raises(KeyError), guard.request(failed).settling():
        raise KeyError("the model client broke")
    with guard.request(silent).settling():
        pass
    assert sent.settlements == [(Settlement.DISPATCHED, "")]
    assert refused.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "early check")]
    assert failed.settlements == [(Settlement.FAILED, "run failed: KeyError")]
    assert silent.settlements == [(Settlement.FAILED, "no model call")]


def test_a_refused_request_stays_refused_when_its_model_call_is_tried_again():
    tools = descriptor_tools(2)
    owner = Owner(None)
    request = SurfaceGuard(tools).request(owner)
    with pytest.raises(SurfaceRefused) as first:
        request.check("final", tools[:1])
    # A retry (or a fallback model) hands the check the admitted tools this time: still refused,
    # by the same refusal, and settled once.
    with pytest.raises(SurfaceRefused) as again:
        request.check("final", tools)
    assert again.value is first.value
    assert owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "final check")]


def test_tools_are_never_cut_to_fit():
    guarded = SurfaceGuard(descriptor_tools(3)).request(owner := Owner(None))
    guarded.fit(descriptor_tools(3), [], Capacity(10_000))
    with pytest.raises(CapacityExceeded) as over:
        guarded.fit(descriptor_tools(3), [], Capacity(10_000, max_tools=2))
    assert str(over.value) == "capacity: 3 required tools; the provider takes at most 2 per request"
    assert owner.settlements == [(Settlement.PRE_DISPATCH_REJECTED, "context_fit check")]


def test_the_owner_is_found_where_the_host_started_the_request():
    with pytest.raises(LookupError, match="owning"):
        current_owner()
    owner = Owner(None)
    with owning(owner):
        assert current_owner() is owner
    with pytest.raises(LookupError):
        current_owner()


def test_a_capture_of_the_same_tools_is_the_baseline():
    tools = descriptor_tools(4)
    assert SurfaceGuard(tools).baseline == capture(tools, FORMATS["logical"])
