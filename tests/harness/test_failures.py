"""A model provider that fails ends the request there, and the request is still settled once, as
`failed` or `dispatched` (the host's call), never as a refusal; raised or handled alike. Every other
ending of such a request fails its case, named for what the ledger or the store shows."""

import pytest

from tests.test_cli import toolsurface
from toolsurface import FORMATS
from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._integrity import check_cases
from toolsurface.harness._ports import Gateway, ProviderFailed
from toolsurface.harness._types import Crashed, Returned, VerdictKind
from toolsurface.mutators import Kind, Must
from toolsurface.scenarios import load

#: A request of three model calls, and one of a single call on the child lane.
SELECT = ["etf-compare-main-tool-loop/*/failure.*", "web-read-child-single-tool/*/failure.*"]


def recorded(host):
    session = prepare(RunOptions(target=f"tests.fixtures.failure_hosts:{host}", red_target="none", select=SELECT))
    records = tuple(session.records())
    assert check_cases(session.info, records) is None
    return {record.case.call: record for record in records if record.case.scenario.endswith("tool-loop")}, records


def test_every_recording_that_makes_a_model_call_gets_a_failure_case_before_each_call():
    session = prepare(RunOptions(target="reference:guarded", red_target="none", select=["*/failure.*"]))
    records = tuple(session.records())
    scenarios = {scenario.id: scenario for scenario in load()}
    planned = {(r.case.scenario, r.case.call) for r in records}
    assert planned == {
        (s.id, call)
        for s in scenarios.values()
        if s.outcome.value == "dispatched" and s.edge is None
        for call in range(1, s.model_calls + 1)
    }
    assert all(r.case.mutation.kind is Kind.FAILURE and r.case.must is Must.FAIL for r in records)
    assert all(r.verdict.kind is VerdictKind.PASSED for r in records)


@pytest.mark.parametrize("host", ["Settles", "Handles", "Retries", "CountsTheCallAsSent", "SettlesAsFailed"])
def test_a_failed_request_settled_as_far_as_it_got_passes_raised_or_handled(host):
    by_call, records = recorded(host)
    assert sorted(by_call) == [1, 2, 3] and len(records) == 4
    for call, record in by_call.items():
        assert record.verdict.kind is VerdictKind.PASSED, record.verdict.reason
        assert record.verdict.code is ReasonCode.PROVIDER_FAILURE_SETTLED
        assert record.evidence.dispatches == call - 1
        assert record.evidence.provider_failures == (2 if host == "Retries" else 1)
        assert isinstance(record.evidence.stop, Returned if host == "Handles" else Crashed)
    first = "dispatched" if host == "CountsTheCallAsSent" else "failed"
    later = "failed" if host == "SettlesAsFailed" else "dispatched"
    assert by_call[1].verdict.reason.endswith(f"before any model call went out, settled once as {first}")
    assert by_call[2].verdict.reason.endswith(f"after an earlier model call went out, settled once as {later}")


@pytest.mark.parametrize(
    ("host", "calls", "code", "said"),
    [
        ("LeavesOpen", {1, 2, 3}, ReasonCode.PROVIDER_FAILURE_UNSETTLED, "reservation left open"),
        ("SettlesAsRefused", {1, 2, 3}, ReasonCode.PROVIDER_FAILURE_UNSETTLED, "expected "),
        ("SettlesTwice", {1, 2, 3}, ReasonCode.PROVIDER_FAILURE_UNSETTLED, "REFUSED"),
        ("PublishesAnyway", {1}, ReasonCode.PROVIDER_FAILURE_PUBLICATION_ADDED, "publication"),
    ],
)
def test_any_other_ending_of_a_failed_request_fails_its_case(host, calls, code, said):
    by_call, _ = recorded(host)
    failing = {call for call, record in by_call.items() if not record.verdict.kind.ok}
    assert failing == calls
    for call in calls:
        verdict = by_call[call].verdict
        assert (verdict.kind, verdict.code) == (VerdictKind.SURVIVED, code)
        assert verdict.reason.startswith(f"the provider failed model call {call} of 3, but ") and said in verdict.reason


def test_a_failing_gateway_sends_nothing_from_the_call_it_was_made_to_fail():
    gateway = Gateway(FORMATS["logical"])
    gateway.fail()
    for _ in range(2):
        with pytest.raises(ProviderFailed, match="failed model call 1: 503"):
            gateway.dispatch("req", [], [])
    assert (gateway.log, gateway.failed) == ([], 2)
    assert issubclass(ProviderFailed, ConnectionError)


def test_reproduce_shows_the_failure_the_request_ended_in_and_its_settlement():
    done = toolsurface(
        "reproduce", "etf-compare-main-tool-loop/main/hooks/post_seal@2/failure.replace:provider:request"
    )
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert "must fail" in lines[1] and "the model provider fails model call 2" in lines[2]
    assert "  main: settle req_main_0034 as dispatched" in lines
    assert "raised   ProviderFailed: the model provider failed model call 2: 503 Service Unavailable" in lines
    assert not any(line.startswith("Traceback") for line in lines)
    assert lines[-1].startswith("verdict  passed — ended in the provider's failure after an earlier model call")
