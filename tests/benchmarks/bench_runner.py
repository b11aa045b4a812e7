"""Runner throughput on the default matrix, in cases per second on one core.

Compared in the same run with the bare reference pipeline on the same scenarios (no mutation,
no oracle): the ratio is the harness's own overhead per case.
"""

import contextlib

from toolsurface.contract._formats import FORMATS
from toolsurface.contract._refusals import CapacityExceeded
from toolsurface.harness._plan import plan
from toolsurface.harness._ports import Ports
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.scenarios import load

SCENARIOS = load()
CASES = plan(SCENARIOS, seed=0)
GUARDED = load_target("reference:guarded")
BY_ID = {s.id: s for s in SCENARIOS}


def test_runner_guarded_only(benchmark):
    benchmark.group = "runner"
    benchmark.name = f"runner: {len(CASES)} cases, guarded"
    benchmark.extra_info["cases"] = len(CASES)
    results = benchmark.pedantic(lambda: list(Runner(SCENARIOS, GUARDED).run(CASES)), rounds=3, iterations=1)
    assert all(r.verdict.kind.ok for r in results)


def test_runner_paired_with_legacy(benchmark):
    benchmark.group = "runner"
    benchmark.name = f"runner: {len(CASES)} cases, guarded + legacy pairing"
    benchmark.extra_info["cases"] = len(CASES)
    legacy = load_target("reference:legacy")
    results = benchmark.pedantic(lambda: list(Runner(SCENARIOS, GUARDED, legacy).run(CASES)), rounds=3, iterations=1)
    assert len(results) == len(CASES)


def bare_pipeline():
    for case in CASES:
        scenario = BY_ID[case.scenario]
        with contextlib.suppress(CapacityExceeded):  # the over-capacity recording ends so, mutated or not
            GUARDED.run(scenario, Ports(scenario, FORMATS[scenario.tool_format], None, None))


def test_bare_pipeline(benchmark):
    benchmark.group = "runner"
    benchmark.name = f"bare pipeline: {len(CASES)} runs, no mutation or oracle"
    benchmark.extra_info["cases"] = len(CASES)
    benchmark.pedantic(bare_pipeline, rounds=3, iterations=1)
