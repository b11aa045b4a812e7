"""The explorer's changes are cases like the plan's: a composed change is judged by the same
oracle, its verdict expected from its edits, and one that changes nothing is equivalent."""

import random

import orjson
import pytest
from hypothesis import HealthCheck, find, settings

from toolsurface.harness._codec import decode, dumps
from toolsurface.harness._examples import explored_case
from toolsurface.harness._explore import Budget, Found, NotFound, changes, explore
from toolsurface.harness._plan import recorded_checkpoints
from toolsurface.harness._reference import GuardedPipeline, LegacyPipeline
from toolsurface.harness._runner import Runner
from toolsurface.harness._types import CaseRecord, VerdictKind
from toolsurface.mutators import Delivery, Kind, Must, Mutation, Swap, Tool, by_key
from toolsurface.mutators._composed import compose
from toolsurface.scenarios import load

SCENARIO = next(s for s in load(None) if s.id == "etf-compare-main-openai")
AT = SCENARIO.checkpoints[0]
FIRST, SECOND = SCENARIO.surface[0].name, SCENARIO.surface[1].name


def mutation(key: str, aim, delivery: Delivery = Delivery.REPLACE) -> Mutation:
    mutator = by_key(key)
    return Mutation(key, mutator.kind, mutator.variant, delivery, aim, mutator.must)


def record(target, change: Mutation) -> CaseRecord:
    (result,) = Runner([SCENARIO], target).run([explored_case(SCENARIO, AT, change, index=0)])
    assert isinstance(result, CaseRecord)
    return result


def test_a_legitimate_edit_beside_a_rename_must_be_refused_and_the_guard_refuses_it() -> None:
    change = compose(SCENARIO, [mutation("legit.key_order", Tool(FIRST)), mutation("rename.case", Tool(SECOND))])
    assert (change.kind, change.must) == (Kind.COMPOSED, Must.REFUSE)
    assert record(GuardedPipeline(), change).verdict.kind is VerdictKind.KILLED


def test_legitimate_edits_together_must_go_through() -> None:
    change = compose(
        SCENARIO,
        [mutation("legit.key_order", Tool(FIRST)), mutation("legit.key_order", Tool(SECOND), Delivery.IN_PLACE)],
    )
    assert (change.must, change.delivery) == (Must.DISPATCH, Delivery.IN_PLACE)
    assert record(GuardedPipeline(), change).verdict.kind is VerdictKind.PASSED


def test_two_swaps_that_cancel_out_are_equivalent_as_the_plan_decides() -> None:
    swap = mutation("reorder.swap", Swap(0, 1))
    change = compose(SCENARIO, [swap, swap])
    assert change.must is Must.REFUSE  # each swap changed the surface when it was made
    case = explored_case(SCENARIO, AT, change, index=0)
    assert case.change == () and case.equivalent
    assert record(GuardedPipeline(), change).verdict.kind is VerdictKind.EQUIVALENT


def test_a_composed_case_s_record_goes_through_the_results_codec() -> None:
    change = compose(SCENARIO, [mutation("rename.case", Tool(FIRST)), mutation("reorder.swap", Swap(0, 1))])
    found = record(LegacyPipeline(), change)
    assert decode(CaseRecord, orjson.loads(dumps(found))) == found


@pytest.mark.filterwarnings("ignore:Generating overly large repr")  # of the recording the strategy is given
@pytest.mark.parametrize("kind", [Kind.COMPOSED, Kind.AVAILABILITY, Kind.SCHEMA])
def test_the_strategy_draws_composed_changes_owner_facts_and_near_misses(kind: Kind) -> None:
    quiet = settings(database=None, max_examples=300, suppress_health_check=list(HealthCheck))
    found = find(changes([SCENARIO], recorded_checkpoints), lambda c: c.mutation.kind is kind, settings=quiet,
                 random=random.Random(0))  # fmt: skip
    case = explored_case(found.scenario, found.boundary, found.mutation, index=0)
    assert case.id.startswith("explored/") and case.change is not None


def test_a_correct_host_gives_nothing_and_the_same_seed_the_same_search() -> None:
    def search(seed: int) -> tuple[type, int]:
        runner = Runner([SCENARIO], GuardedPipeline())
        found = explore(runner, [SCENARIO], recorded_checkpoints, target="t", seed=seed, budget=Budget(15))
        assert isinstance(found, NotFound | Found)
        return type(found), found.tried

    first = search(3)
    assert first[0] is NotFound and first == search(3)
