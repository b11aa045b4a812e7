"""What one case costs as the surface grows: 5, 32, 128 and 512 admitted tools (~2 KB schemas).

The same recording at each size (`scenario_of`: the bundled hooked research request, grown with
generated tools), the same number of cases from its plan (every k-th, so each kind of mutation
is in the sample), run on `reference:guarded` in this process with the RED pairing off. A case
runs the host once with the mutation, then once more unchanged to catch state it left behind
(`Runner.observe`), so its cost is a few walks of the whole surface: it should grow as the tool
count does. conftest.py prints each size's time per case and its ratio to the size before it,
against the ratio of their tool counts (512 / 128 = 4.0).
"""

import functools

import pytest

from tests.benchmarks._surfaces import scenario_of
from toolsurface.harness._plan import plan
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.scenarios import parse

SIZES = (5, 32, 128, 512)
#: Cases per round at every size.
SAMPLE = 40


@functools.cache
def sample(tools: int):
    scenario = parse(scenario_of(tools))
    cases = plan([scenario], seed=0)
    chosen = cases[:: len(cases) // SAMPLE][:SAMPLE]
    runner = Runner([scenario], load_target("reference:guarded"))
    runner.prime()
    return runner, chosen


def name_of(tools: int) -> str:
    return f"one case, {tools} tools"


@pytest.mark.parametrize("tools", SIZES)
def test_case_cost_by_tool_count(benchmark, tools):
    runner, cases = sample(tools)
    benchmark.group = "per case"
    benchmark.name = name_of(tools)
    benchmark.extra_info["tools"] = tools
    benchmark.extra_info["per"] = len(cases)
    records = benchmark.pedantic(lambda: list(runner.run(cases)), rounds=6, iterations=1)
    assert len(records) == len(cases) and all(record.verdict.kind.ok for record in records)
