import datetime

from toolsurface.harness._expectations import Expectation
from toolsurface.harness._gate import Tallies, Thresholds, judge_gate
from toolsurface.harness._types import Tally, VerdictKind

TODAY = datetime.date(2026, 12, 2)
OUTCOMES = [
    Tally("a/1", VerdictKind.KILLED, VerdictKind.SURVIVED),
    Tally("a/2", VerdictKind.SURVIVED, VerdictKind.SURVIVED),
    Tally("b/1", VerdictKind.EQUIVALENT, VerdictKind.EQUIVALENT),
]


def gate(expectations=(), thresholds=Thresholds(), partial=False):
    planned = [sum(e.matches(o.id) for o in OUTCOMES) for e in expectations]
    return judge_gate(Tallies.of(OUTCOMES, expectations), planned, TODAY, thresholds, partial=partial)


def test_a_failing_case_fails_the_gate():
    result = gate()
    assert not result.ok
    assert list(result.failing) == ["a/2"]


def test_an_accepted_failure_passes_the_gate():
    result = gate([Expectation("a/2", VerdictKind.SURVIVED, "known", TODAY)])
    assert result.ok and result.accepted == ("a/2",) and not result.failing


def test_an_expired_acceptance_fails_the_gate_and_its_case_too():
    result = gate([Expectation("a/2", VerdictKind.SURVIVED, "known", TODAY - datetime.timedelta(days=1))])
    assert not result.ok
    assert list(result.failing) == ["a/2"]


def test_a_stale_expectation_fails_an_otherwise_green_gate():
    result = gate([Expectation("a/2", VerdictKind.SURVIVED, "known", TODAY), Expectation("a/1", VerdictKind.SURVIVED, "old", TODAY)])
    assert not result.failing
    assert not result.ok


def test_thresholds_count_in_scope_and_controlled_cases():
    result = gate([Expectation("a/2", VerdictKind.SURVIVED, "known", TODAY)], Thresholds(min_cases=3, min_controlled=2))
    assert result.shortfalls == (
        "2 in-scope cases ran, fewer than min_cases = 3",
        "1 cases are controlled, fewer than min_controlled = 2",
    )
    assert not result.ok
    assert gate([Expectation("a/2", VerdictKind.SURVIVED, "k", TODAY)], Thresholds(min_cases=2, min_controlled=1)).ok


def test_a_shard_leaves_thresholds_to_the_merge():
    assert gate(thresholds=Thresholds(min_cases=100), partial=True).shortfalls == ()
