"""The runner and oracles on user targets that misbehave: none of them may pass."""

import gc

import pytest

from tests.fixtures.planned import planned as default_plan
from toolsurface.harness._codes import ReasonCode
from toolsurface.harness._reference import GuardedPipeline
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.harness._types import Crashed, Role, Verdict, VerdictKind
from toolsurface.mutators import Must
from toolsurface.scenarios import load

SPEC = "tests.fixtures.user_targets:{}"


@pytest.fixture(scope="module")
def scenarios():
    return load()


@pytest.fixture(scope="module")
def cases(scenarios):
    planned = default_plan(0)
    reject = next(c for c in planned if c.must is Must.REFUSE and c.change and c.mutation.kind == "schema")
    dispatch = next(c for c in planned if c.must is Must.DISPATCH)
    return reject, dispatch


def run(scenarios, name, case, timeout=10.0):
    return Runner(scenarios, load_target(SPEC.format(name)), timeout=timeout).run_case(case)


def test_a_correct_user_adapter_kills_and_passes(scenarios, cases):
    reject, dispatch = cases
    assert run(scenarios, "Adapter", reject).verdict.kind is VerdictKind.KILLED
    assert run(scenarios, "Adapter", dispatch).verdict.kind is VerdictKind.PASSED


def test_an_unchecked_adapter_survives(scenarios, cases):
    result = run(scenarios, "Unchecked", cases[0])
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert result.evidence.dispatches == 1
    assert result.evidence.diff == cases[0].change  # what was sent differs from the admitted surface exactly so


def test_an_unsettled_refusal_survives(scenarios, cases):
    result = run(scenarios, "Unsettled", cases[0])
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "never settled" in result.verdict.reason


def test_a_second_settlement_survives(scenarios, cases):
    result = run(scenarios, "DoubleSettle", cases[0])
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "second settlement" in result.verdict.reason


def test_a_crash_is_an_error_with_its_traceback(scenarios, cases):
    result = run(scenarios, "Crashing", cases[0])
    assert result.verdict.kind is VerdictKind.ERROR
    assert result.verdict.reason == "target crashed: RuntimeError: adapter bug"
    stop = result.evidence.stop
    assert isinstance(stop, Crashed) and "Traceback" in stop.traceback and "adapter bug" in stop.traceback


def test_a_hang_is_an_error_and_the_run_goes_on(scenarios, cases):
    reject, dispatch = cases
    runner = Runner(scenarios, load_target(SPEC.format("Hanging")), timeout=0.2)
    results = list(runner.run([reject, dispatch]))
    assert [r.verdict.kind for r in results] == [VerdictKind.ERROR, VerdictKind.ERROR]
    assert results[0].verdict.reason == "target timed out"


def test_touching_nothing_is_an_error_not_a_pass(scenarios, cases):
    for case in cases:
        result = run(scenarios, "Idle", case)
        assert result.verdict.kind is VerdictKind.ERROR
        assert result.verdict.reason.startswith("nothing observed")


def test_never_offering_the_point_is_an_error(scenarios, cases):
    result = run(scenarios, "NoInjection", cases[1])
    assert result.verdict.kind is VerdictKind.ERROR
    assert "never offered injection point" in result.verdict.reason


def test_equivalent_cases_are_counted_not_run(scenarios):
    equivalent = next(c for c in default_plan(0) if c.equivalent)
    result = run(scenarios, "Crashing", equivalent)
    assert result.verdict.kind is VerdictKind.EQUIVALENT


def test_an_async_host_is_driven_to_completion(scenarios, cases):
    reject, dispatch = cases
    assert run(scenarios, "AsyncAdapter", reject).verdict.kind is VerdictKind.KILLED
    assert run(scenarios, "AsyncAdapter", dispatch).verdict.kind is VerdictKind.PASSED


def test_an_async_hang_is_an_error(scenarios, cases):
    result = run(scenarios, "AsyncHanging", cases[0], timeout=0.2)
    assert result.verdict.kind is VerdictKind.ERROR and result.verdict.reason == "target timed out"


def test_an_exception_whose_message_itself_fails_is_still_a_value(scenarios, cases):
    result = run(scenarios, "RaisesBrokenMessage", cases[1])
    assert result.verdict.kind is VerdictKind.ERROR
    assert (
        result.verdict.reason == "target crashed: BrokenMessage: <str() of BrokenMessage failed: ValueError: no words>"
    )


def _in_place_rename(planned):
    return next(
        c for c in planned if c.mutation.kind == "rename" and c.mutation.delivery.value == "in_place" and c.change
    )


def test_a_change_that_outlives_its_request_fails_its_own_case(scenarios):
    from tests.fixtures.hostile_hosts import CachesTools

    case = _in_place_rename(default_plan(0))
    result = Runner(scenarios, CachesTools()).run_case(case)
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert result.verdict.reason.startswith("the change outlived its request")
    assert "else: killed" in result.verdict.reason  # the request itself was refused as it should be
    assert result.evidence.aftermath and result.evidence.aftermath[0].startswith("next request: ")


def test_state_an_earlier_case_left_is_named_not_read_as_a_wiring_fault(scenarios):
    from tests.fixtures.hostile_hosts import CachesTools

    planned = default_plan(0)
    culprit = _in_place_rename(planned)
    later = next(c for c in planned if c.scenario == culprit.scenario and c.must is Must.DISPATCH)
    runner = Runner(scenarios, CachesTools())
    runner.run_case(culprit)
    result = runner.run_case(later)
    assert result.verdict.kind is VerdictKind.ERROR
    assert result.verdict.reason.startswith(
        "host state left by an earlier case changed this one before its change was made: after "
    )
    # The earlier case's id fills most of a line: the evidence names it, and what it left, whole.
    assert result.evidence.before[0].startswith(f"after {culprit.id}: ")


def test_a_host_that_leaked_is_loaded_again_so_the_next_case_starts_fresh(scenarios):
    from tests.fixtures.hostile_hosts import CachesTools

    planned = default_plan(0)
    culprit = _in_place_rename(planned)
    later = next(c for c in planned if c.scenario == culprit.scenario and c.must is Must.DISPATCH)
    first = CachesTools()
    runner = Runner(scenarios, first, renew=lambda role: CachesTools())
    leaked = runner.observe(culprit, Role.TARGET)
    assert leaked.leaked and leaked.renewed and not leaked.spent
    assert runner.target is not first
    assert runner.run_case(later).verdict.kind is VerdictKind.PASSED
    # A reload that gives back the same object leaves the host spent: its state is still there.
    host = CachesTools()
    same = Runner(scenarios, host, renew=lambda role: host)
    assert same.observe(culprit, Role.TARGET).spent


def test_the_same_case_on_a_fresh_host_is_judged_on_its_own(scenarios):
    from tests.fixtures.hostile_hosts import CachesTools

    planned = default_plan(0)
    culprit = _in_place_rename(planned)
    later = next(c for c in planned if c.scenario == culprit.scenario and c.must is Must.DISPATCH)
    assert Runner(scenarios, CachesTools()).run_case(later).verdict.kind is VerdictKind.PASSED


def test_late_effects_are_amendments_after_the_records(scenarios, cases):
    from tests.fixtures.hostile_hosts import RetriesLater
    from toolsurface.harness._oracles import amend_all
    from toolsurface.harness._types import Amendment, Role

    reject, _ = cases
    # The retry ends once it has re-sent: the grace is a bound, never waited out here.
    stream = list(Runner(scenarios, RetriesLater()).run([reject], grace=60))
    assert [type(item).__name__ for item in stream] == ["CaseRecord", "Amendment"]
    assert stream[1] == Amendment(
        reject.index, Role.TARGET, "after run() returned: dispatched request " + repr(stream[1].note.split("'")[1])
    )
    (record,) = amend_all(stream)
    assert stream[0].verdict.kind is VerdictKind.KILLED
    assert record.verdict.kind is VerdictKind.SURVIVED and record.verdict.reason.startswith(
        "after run() returned: dispatched request"
    )
    assert record.evidence.aftermath == (stream[1].note,)


def test_collection_waits_while_a_case_runs_and_what_outlives_the_cases_is_frozen_only_for_the_run(scenarios, cases):
    """A case's host runs with cyclic collection paused (it resumes after); a run in this process
    freezes what it found, and leaves nothing frozen behind."""
    seen = []

    class Watched(GuardedPipeline):
        def run(self, scenario, ports):
            seen.append((gc.isenabled(), gc.get_freeze_count() > 0))
            return super().run(scenario, ports)

    reject, dispatch = cases
    assert gc.isenabled() and gc.get_freeze_count() == 0
    records = list(Runner(scenarios, Watched()).run([reject, dispatch]))
    assert [record.verdict.kind.ok for record in records] == [True, True]
    # The clean runs (primed on the first case) and each case's own run: paused, frozen.
    assert seen and all(paused == (False, True) for paused in seen)
    assert gc.isenabled() and gc.get_freeze_count() == 0


def test_a_host_that_catches_the_interrupt_and_runs_on_has_still_timed_out(scenarios, cases):
    from tests.fixtures.hostile_hosts import SlowAndSwallowsInterrupts

    result = Runner(scenarios, SlowAndSwallowsInterrupts(), timeout=0.05).run_case(cases[1])
    assert result.verdict == Verdict(VerdictKind.ERROR, "target timed out", ReasonCode.TIMED_OUT)
    assert result.evidence.dispatches == 1  # it did send, past its time: nothing of that is judged


def test_a_follow_up_request_that_fails_is_an_error_naming_it_not_a_verdict_on_state(scenarios, cases):
    # The host fails its even requests: four clean runs, the case's own first, so that the case is
    # the fifth request and its follow-up the sixth.
    others = [scenario.id for scenario in scenarios if scenario.id != cases[1].scenario][:3]
    target = load_target(SPEC.format("FailsEverySecondRequest"))
    result = Runner(scenarios, target, recordings=[cases[1].scenario, *others]).run_case(cases[1])
    assert result.verdict.kind is VerdictKind.ERROR
    assert result.verdict.reason.startswith(
        "the follow-up request on the same host crashed (ConnectionError: connection reset): "
        "whether the change outlived its request is unknown"
    )
    assert result.evidence.aftermath == ("next request: crashed (ConnectionError: connection reset)",)
    assert result.evidence.aftermath == ("next request: crashed (ConnectionError: connection reset)",)


def test_a_clean_run_that_fails_makes_each_case_of_its_scenario_an_error(scenarios, cases):
    # Its first request is the scenario's clean run, which works; the second, the case's, crashes
    # and so does every second one: here the clean run is the one that fails.
    runner = Runner(scenarios, load_target(SPEC.format("FailsEverySecondRequest")), recordings=[cases[1].scenario])
    runner.target.requests = 1
    result = runner.run_case(cases[1])
    assert result.verdict == Verdict(
        VerdictKind.ERROR,
        "the target's unchanged request on this recording crashed (ConnectionError: connection reset), "
        "so what this case started from and what it left cannot be told",
        ReasonCode.NO_CLEAN_RUN,
    )


def test_a_thread_still_running_when_the_grace_period_ends_makes_its_case_an_error(scenarios, cases):
    from tests.fixtures import user_targets
    from toolsurface.harness._oracles import amend_all

    user_targets.RELEASE.clear()
    try:
        stream = list(Runner(scenarios, user_targets.LeavesAWaitingThread()).run(list(cases), grace=0.05))
    finally:
        user_targets.RELEASE.set()
    records = amend_all(stream)
    # Two threads each (the case's request and its follow-up's), named as the host named them.
    assert [record.verdict.kind for record in records] == [VerdictKind.ERROR, VerdictKind.ERROR]
    for record in records:
        assert record.verdict.reason.startswith(
            "the host left 2 threads running ('keepalive', …) when the grace period ended"
        )
        assert record.evidence.aftermath


def test_threads_that_end_within_the_grace_period_cost_nothing(scenarios, cases):
    from tests.fixtures import user_targets

    user_targets.RELEASE.set()
    records = list(Runner(scenarios, user_targets.LeavesAWaitingThread()).run(list(cases), grace=5))
    assert [record.verdict.kind for record in records] == [VerdictKind.KILLED, VerdictKind.PASSED]


def test_a_finalizer_that_settles_again_acts_within_its_own_case(scenarios, cases):
    result = run(scenarios, "SettlesAgainWhenCollected", cases[0])
    assert result.verdict.kind is VerdictKind.SURVIVED
    assert "second settlement" in result.verdict.reason and not result.evidence.aftermath


def test_without_a_timeout_a_scenario_with_a_slow_clean_run_gets_more_time(scenarios):
    from toolsurface.harness._clean import CleanRun
    from toolsurface.harness._runner import DEFAULT_TIMEOUT, TIMEOUT_SCALE
    from toolsurface.harness._types import Ending

    runner = Runner(scenarios, GuardedPipeline())
    fast, slow = scenarios[0].id, scenarios[1].id
    runner.clean = {
        (Role.TARGET, fast): CleanRun((), Ending.DISPATCHED, (), 0.01),
        (Role.TARGET, slow): CleanRun((), Ending.DISPATCHED, (), 2.0),
    }
    assert runner.timeout_for(fast) == DEFAULT_TIMEOUT
    assert runner.timeout_for(slow) == TIMEOUT_SCALE * 2.0
    assert Runner(scenarios, GuardedPipeline(), timeout=0.5).timeout_for(slow) == 0.5
