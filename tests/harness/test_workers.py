"""The worker pool takes cases from the plan only as its workers need them."""

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._workers import WorkerPool


def test_the_pool_takes_cases_from_the_plan_as_the_workers_need_them():
    session = prepare(RunOptions(red_target="none", select=["etf-compare-main-hooked/*"]))
    taken = []

    def plan():
        for case in session.cases:
            taken.append(case.index)
            yield case

    results = WorkerPool(session.runner, 2, 0.0).run(plan())
    first = next(results)
    assert first.case.index == taken[0]
    # A bounded lead over the workers, not the plan: 581 cases planned here.
    assert 0 < len(taken) <= 256 < len(session.cases)
    rest = list(results)
    assert (
        [first.case.index, *(record.case.index for record in rest)] == taken == [case.index for case in session.cases]
    )
