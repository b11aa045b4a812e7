"""The worker pool takes cases from the plan only as its workers need them, and tells a stuck
worker from a slow one."""

import os
import time
from multiprocessing.connection import Connection

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


def test_a_worker_slow_to_send_its_answers_is_not_taken_for_a_stuck_host(monkeypatch):
    # Pickling a chunk's answers can start a collection of the worker's whole heap, which on a
    # loaded machine takes seconds; the workers are forked from here, so they send this slowly.
    parent = os.getpid()
    send = Connection.send

    def slow_send(self, obj):
        if os.getpid() != parent:
            time.sleep(2)
        send(self, obj)

    monkeypatch.setattr(Connection, "send", slow_send)
    session = prepare(RunOptions(red_target="none", select=["etf-compare-main-hooked/*/hook/delete.replace:*"]))
    records = list(WorkerPool(session.runner, 1, 0.0).run(session.cases))
    assert records and all(record.verdict.kind.ok for record in records), [r.verdict for r in records]
