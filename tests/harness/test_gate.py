import datetime

from hypothesis import given
from hypothesis import strategies as st

from toolsurface.harness._expectations import Expectation, Standing, judge_expectations
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
    result = gate(
        [
            Expectation("a/2", VerdictKind.SURVIVED, "known", TODAY),
            Expectation("a/1", VerdictKind.SURVIVED, "old", TODAY),
        ]
    )
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


verdicts = st.sampled_from(list(VerdictKind))
tallies_lists = st.lists(
    st.builds(Tally, st.sampled_from(["a/1", "a/2", "b/1", "b/2", "c/1"]), verdicts, st.none() | verdicts), max_size=12
)
expectation_lists = st.lists(
    st.builds(
        Expectation, st.sampled_from(["a/*", "b/1", "c/*", "z/*"]), verdicts, st.just("r"),
        st.sampled_from([TODAY, TODAY - datetime.timedelta(days=1)]),
    ),
    max_size=3,
)  # fmt: skip


@given(tallies_lists, expectation_lists)
def test_the_gate_on_the_tallies_kept_is_the_gate_on_every_tally(outcomes, expectations):
    # The gate, worked out over every tally by its rules, against the gate over what `Tallies` keeps.
    planned = [sum(e.matches(o.id) for o in outcomes) for e in expectations]
    judged = judge_expectations(expectations, planned, [(t.id, t.verdict) for t in outcomes], TODAY)
    covered = {case_id for j in judged if j.standing is Standing.ACCEPTED for case_id in j.cases}
    failing = tuple(t.id for t in outcomes if not t.verdict.ok and t.id not in covered)
    accepted = tuple(t.id for t in outcomes if t.id in covered)
    thresholds = Thresholds(min_cases=3, min_controlled=1)
    result = judge_gate(Tallies.of(outcomes, expectations), planned, TODAY, thresholds, partial=False)
    assert (result.failing, result.accepted, result.expectations) == (failing, accepted, judged)
    in_scope = sum(t.verdict is not VerdictKind.EQUIVALENT for t in outcomes)
    controlled = sum(t.controlled for t in outcomes)
    assert bool(result.shortfalls) == (in_scope < 3 or controlled < 1)


@given(tallies_lists, st.integers(min_value=1, max_value=4))
def test_tallies_merged_from_shards_are_the_tallies_of_the_whole(outcomes, count):
    expectations = (Expectation("b/*", VerdictKind.PASSED, "r", TODAY),)
    parts = []
    for index in range(count):
        part = Tallies(expectations)
        for at in range(index, len(outcomes), count):
            part.add(at, outcomes[at])
        parts.append(part)
    assert Tallies.merged(parts) == Tallies.of(outcomes, expectations)
