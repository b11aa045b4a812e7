"""Properties every mutator keeps on any realistic surface (Hypothesis)."""

import dataclasses
import random

import orjson
import pytest
from harness._formats import LOGICAL, MCP, OPENAI
from hypothesis import given
from hypothesis import strategies as st

from mutators import MUTATORS, Delivery, Edit, Expect, Kind, Mutator, edit_sequences, scenarios_for, surfaces
from mutators._pointer import split_target
from mutators._testing import canonical, live_tools, read_surface
from scenarios import Scenario

REJECTING = [mutator for mutator in MUTATORS if mutator.expect is Expect.REJECT]
DISPATCHING = [mutator for mutator in MUTATORS if mutator.expect is Expect.DISPATCH]
#: Kinds that edit one named tool and must leave every other tool alone.
ONE_TOOL_KINDS = (Kind.RENAME, Kind.DESCRIPTION, Kind.SCHEMA)

scenarios = surfaces().flatmap(scenarios_for)
formats = st.sampled_from((LOGICAL, OPENAI, MCP))
seeds = st.integers(0, 2**32 - 1)


def _key(mutator: Mutator) -> str:
    return mutator.key()


def _apply(mutator: Mutator, scenario: Scenario, target: str, delivery: Delivery, fmt) -> list[dict]:
    tools = live_tools(scenario.contract.surface, fmt)
    messages = [message.as_dict() for message in scenario.messages]
    new_tools, _ = mutator.apply(Edit(tools, messages, fmt, delivery, target, scenario))
    return read_surface(new_tools, fmt)


@pytest.mark.parametrize("mutator", REJECTING, ids=_key)
@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_illegitimate_mutations_change_the_canonical_surface(mutator: Mutator, scenario: Scenario, seed: int, fmt) -> None:
    before = [tool.as_logical() for tool in scenario.contract.surface]
    for target in mutator.targets(scenario, random.Random(seed)):
        for delivery in mutator.deliveries:
            after = _apply(mutator, scenario, target, delivery, fmt)
            if mutator.kind is Kind.REORDER and len(before) == 1:
                assert canonical(after) == canonical(before)  # counted as `equivalent`
            else:
                assert canonical(after) != canonical(before)


@pytest.mark.parametrize("mutator", [m for m in REJECTING if m.kind in ONE_TOOL_KINDS], ids=_key)
@given(scenario=scenarios, seed=seeds)
def test_one_tool_edits_change_only_their_target(mutator: Mutator, scenario: Scenario, seed: int) -> None:
    before = [tool.as_logical() for tool in scenario.contract.surface]
    for target in mutator.targets(scenario, random.Random(seed)):
        name = split_target(target)[0] if mutator.kind is Kind.SCHEMA else target
        after = _apply(mutator, scenario, target, Delivery.IN_PLACE, LOGICAL)
        assert len(after) == len(before)
        changed = [old["name"] for old, new in zip(before, after) if canonical([old]) != canonical([new])]
        assert changed == [name]


@pytest.mark.parametrize("mutator", DISPATCHING, ids=_key)
@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_legitimate_changes_keep_the_canonical_surface(mutator: Mutator, scenario: Scenario, seed: int, fmt) -> None:
    before = [tool.as_logical() for tool in scenario.contract.surface]
    for target in mutator.targets(scenario, random.Random(seed)):
        for delivery in mutator.deliveries:
            assert canonical(_apply(mutator, scenario, target, delivery, fmt)) == canonical(before)


@given(scenario=scenarios, seed=seeds)
def test_key_order_changes_the_bytes_but_not_the_canonical_form(scenario: Scenario, seed: int) -> None:
    mutator = next(m for m in DISPATCHING if m.variant == "key_order")
    for target in mutator.targets(scenario, random.Random(seed)):
        after = _apply(mutator, scenario, target, Delivery.IN_PLACE, LOGICAL)
        assert orjson.dumps(after) != orjson.dumps([tool.as_logical() for tool in scenario.contract.surface])


@pytest.mark.parametrize("mutator", MUTATORS, ids=_key)
@given(scenario=scenarios, seed=seeds)
def test_same_seed_same_targets(mutator: Mutator, scenario: Scenario, seed: int) -> None:
    first = list(mutator.targets(scenario, random.Random(seed)))
    # An equal scenario built from fresh objects, and disturbed global randomness, change nothing.
    twin = dataclasses.replace(scenario, contract=dataclasses.replace(scenario.contract))
    random.seed(seed + 1)
    assert list(mutator.targets(twin, random.Random(seed))) == first


@pytest.mark.parametrize("mutator", MUTATORS, ids=_key)
@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_replace_never_touches_what_it_was_handed(mutator: Mutator, scenario: Scenario, seed: int, fmt) -> None:
    for target in mutator.targets(scenario, random.Random(seed)):
        tools = live_tools(scenario.contract.surface, fmt)
        messages = [message.as_dict() for message in scenario.messages]
        handed, snapshot = list(tools), orjson.dumps([tools, messages])
        mutator.apply(Edit(tools, messages, fmt, Delivery.REPLACE, target, scenario))
        assert orjson.dumps([tools, messages]) == snapshot
        assert all(tool is original for tool, original in zip(tools, handed, strict=True))


@given(st.data())
def test_edit_sequences_apply_in_order(data: st.DataObject) -> None:
    scenario = data.draw(scenarios)
    steps = data.draw(edit_sequences(scenario, min_size=0, max_size=4))
    assert len(steps) <= 4
    fmt = data.draw(formats)
    tools = live_tools(scenario.contract.surface, fmt)
    messages = [message.as_dict() for message in scenario.messages]
    by_key = {mutator.key(): mutator for mutator in MUTATORS}
    for step in steps:
        mutator = by_key[step.mutator]
        assert (step.kind, step.variant, step.expect) == (mutator.kind, mutator.variant, mutator.expect)
        # Raises MutationNotApplicable if a step's target is gone after the steps before it.
        tools, messages = mutator.apply(Edit(tools, messages, fmt, step.delivery, step.target, scenario))
