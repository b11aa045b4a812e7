"""The default matrix with the cases derived from the contract (those tried at the last boundary
before each model call, and the fact rule's other branch), against the catalogue alone: plan and
run on the guard, one core.

The ratio is what the contract-derived cases cost a run; the case counts are in the names.
"""

from toolsurface.harness._plan import plan
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.mutators import MUTATORS, Reach
from toolsurface.scenarios import load

SCENARIOS = load()
GUARDED = load_target("reference:guarded")
CATALOGUE = tuple(m for m in MUTATORS if m.reach is Reach.EVERY and m.variant != "trusted_fact_sources")
SIZES = {name: len(plan(SCENARIOS, 0, mutators)) for name, mutators in (("all", MUTATORS), ("catalogue", CATALOGUE))}


def planned_and_run(mutators):
    return list(Runner(SCENARIOS, GUARDED).run(plan(SCENARIOS, 0, mutators)))


def test_default_matrix(benchmark):
    benchmark.group = "matrix"
    benchmark.name = f"default matrix: {SIZES['all']} cases"
    benchmark.extra_info.update(cases=SIZES["all"], against=[f"catalogue alone: {SIZES['catalogue']} cases"])
    results = benchmark.pedantic(planned_and_run, args=(MUTATORS,), rounds=1, iterations=1)
    assert all(r.verdict.kind.ok for r in results)


def test_catalogue_alone(benchmark):
    benchmark.group = "matrix"
    benchmark.name = f"catalogue alone: {SIZES['catalogue']} cases"
    benchmark.extra_info["cases"] = SIZES["catalogue"]
    benchmark.pedantic(planned_and_run, args=(CATALOGUE,), rounds=1, iterations=1)
