"""The cost of running targets in worker processes, on the default matrix paired with the legacy path.

Measured side by side in one run: two workers against one (the speed-up the isolation buys on a
2-core machine), one worker against the in-process mode (what the isolation costs per case: the
pipe, pickling every observation, judging in the parent), and what it costs to start, prime and
end one worker (paid once per run, and again after every worker that dies or is let go).
"""

import pytest

from toolsurface.harness._api import RunOptions, prepare
from toolsurface.harness._types import CaseRecord
from toolsurface.harness._workers import WorkerPool


def _session(jobs):
    return prepare(RunOptions(jobs=jobs, grace=0.0))


SESSIONS = {jobs: _session(jobs) for jobs in (0, 1, 2)}
CASES = len(SESSIONS[0].cases)
NAMES = {0: "in process (--jobs 0)", 1: "one worker (--jobs 1)", 2: "two workers (--jobs 2)"}
AGAINST = {1: NAMES[0], 2: NAMES[1]}


def _run(jobs):
    records = [item for item in SESSIONS[jobs].results() if isinstance(item, CaseRecord)]
    assert len(records) == CASES and all(record.verdict.kind.ok for record in records)


@pytest.mark.parametrize("jobs", [0, 1, 2])
def test_run(benchmark, jobs):
    benchmark.group = "workers"
    benchmark.name = NAMES[jobs]
    benchmark.extra_info["cases"] = CASES
    if jobs in AGAINST:
        benchmark.extra_info["against"] = AGAINST[jobs]
    benchmark.pedantic(_run, args=(jobs,), rounds=3, iterations=1)


def test_worker_start_up(benchmark):
    """Fork a worker, prime it with a clean run of every scenario on both targets, and end it."""
    benchmark.group = "worker start-up"
    benchmark.name = "start, prime and end one worker"
    session = SESSIONS[1]
    benchmark.pedantic(lambda: WorkerPool(session.runner, 1, 0.0)._prime(), rounds=5, iterations=1)
