"""The default matrix with the cases derived from the contract (those tried at the last boundary
before each model call, the fact rule's other branch, and the scenarios at each limit's edge),
against the catalogue alone on the recordings alone: plan and run on the guard, one core.

The ratio is what the contract-derived cases cost a run; the case counts are in the names.
"""

from toolsurface.harness._edges import with_edges
from toolsurface.harness._plan import plan
from toolsurface.harness._runner import Runner
from toolsurface.harness._targets import load_target
from toolsurface.mutators import MUTATORS, Reach
from toolsurface.scenarios import load

RECORDINGS = load()
DEFAULT = with_edges(RECORDINGS)
GUARDED = load_target("reference:guarded")
CATALOGUE = tuple(m for m in MUTATORS if m.reach is Reach.EVERY and m.variant != "trusted_fact_sources")
SIZES = {"all": len(plan(DEFAULT, 0, MUTATORS)), "catalogue": len(plan(RECORDINGS, 0, CATALOGUE))}


def planned_and_run(scenarios, mutators):
    return list(Runner(scenarios, GUARDED).run(plan(scenarios, 0, mutators)))


def test_default_matrix(benchmark):
    benchmark.group = "matrix"
    benchmark.name = f"default matrix: {SIZES['all']} cases"
    benchmark.extra_info.update(cases=SIZES["all"], against=[f"catalogue alone: {SIZES['catalogue']} cases"])
    results = benchmark.pedantic(planned_and_run, args=(DEFAULT, MUTATORS), rounds=1, iterations=1)
    assert all(r.verdict.kind.ok for r in results)


def test_catalogue_alone(benchmark):
    benchmark.group = "matrix"
    benchmark.name = f"catalogue alone: {SIZES['catalogue']} cases"
    benchmark.extra_info["cases"] = SIZES["catalogue"]
    benchmark.pedantic(planned_and_run, args=(RECORDINGS, CATALOGUE), rounds=1, iterations=1)
