"""Properties every mutator keeps on any realistic surface (Hypothesis).

Each test draws one scenario and checks every mutator against it, rather than drawing scenarios
per mutator: generating realistic schemas is the expensive part.
"""

import dataclasses
import random

import orjson
from harness._formats import LOGICAL, MCP, OPENAI
from hypothesis import given
from hypothesis import strategies as st

from mutators import MUTATORS, Delivery, Edit, Expect, Kind, Mutator, edit_sequences, scenarios_for, surfaces
from mutators._pointer import split_target
from mutators._testing import canonical, live_tools, read_surface
from scenarios import Scenario

#: Kinds that edit one named tool and must leave every other tool alone.
ONE_TOOL_KINDS = (Kind.RENAME, Kind.DESCRIPTION, Kind.SCHEMA)

scenarios = surfaces().flatmap(scenarios_for)
formats = st.sampled_from((LOGICAL, OPENAI, MCP))
seeds = st.integers(0, 2**32 - 1)


def _applications(scenario: Scenario, seed: int):
    """Every (mutator, target, delivery) the planner could produce for `scenario` with `seed`."""
    for mutator in MUTATORS:
        for target in mutator.targets(scenario, random.Random(seed)):
            for delivery in mutator.deliveries:
                yield mutator, target, delivery


def _apply(mutator: Mutator, scenario: Scenario, target: str, delivery: Delivery, fmt) -> list[dict]:
    tools = live_tools(scenario.contract.surface, fmt)
    messages = [message.as_dict() for message in scenario.messages]
    new_tools, _ = mutator.apply(Edit(tools, messages, fmt, delivery, target, scenario))
    return read_surface(new_tools, fmt)


@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_mutations_change_the_canonical_surface_exactly_when_illegitimate(scenario: Scenario, seed: int, fmt) -> None:
    before = canonical(tool.as_logical() for tool in scenario.contract.surface)
    for mutator, target, delivery in _applications(scenario, seed):
        changed = canonical(_apply(mutator, scenario, target, delivery, fmt)) != before
        if mutator.expect is Expect.DISPATCH:
            assert not changed, (mutator.key(), target, delivery)
        elif mutator.kind is Kind.REORDER and len(scenario.contract.surface) == 1:
            assert not changed, (mutator.key(), target)  # counted as `equivalent`
        else:
            assert changed, (mutator.key(), target, delivery)


@given(scenario=scenarios, seed=seeds)
def test_one_tool_edits_change_only_their_target(scenario: Scenario, seed: int) -> None:
    before = [tool.as_logical() for tool in scenario.contract.surface]
    for mutator, target, delivery in _applications(scenario, seed):
        if mutator.kind not in ONE_TOOL_KINDS:
            continue
        name = split_target(target)[0] if mutator.kind is Kind.SCHEMA else target
        after = _apply(mutator, scenario, target, delivery, LOGICAL)
        changed = [old["name"] for old, new in zip(before, after, strict=True) if canonical([old]) != canonical([new])]
        assert changed == [name], (mutator.key(), target)


@given(scenario=scenarios, seed=seeds)
def test_key_order_changes_the_bytes_but_not_the_canonical_form(scenario: Scenario, seed: int) -> None:
    before = [tool.as_logical() for tool in scenario.contract.surface]
    for mutator, target, delivery in _applications(scenario, seed):
        if mutator.variant == "key_order":
            after = _apply(mutator, scenario, target, delivery, LOGICAL)
            assert orjson.dumps(after) != orjson.dumps(before)
            assert canonical(after) == canonical(before)


@given(scenario=scenarios, seed=seeds)
def test_same_seed_same_targets(scenario: Scenario, seed: int) -> None:
    first = [list(mutator.targets(scenario, random.Random(seed))) for mutator in MUTATORS]
    # An equal scenario of fresh objects, and disturbed global randomness, must change nothing.
    twin = dataclasses.replace(scenario, contract=dataclasses.replace(scenario.contract))
    random.seed(seed + 1)
    assert [list(mutator.targets(twin, random.Random(seed))) for mutator in MUTATORS] == first


@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_replace_never_touches_what_it_was_handed(scenario: Scenario, seed: int, fmt) -> None:
    for mutator, target, delivery in _applications(scenario, seed):
        if delivery is not Delivery.REPLACE:
            continue
        tools = live_tools(scenario.contract.surface, fmt)
        messages = [message.as_dict() for message in scenario.messages]
        handed, snapshot = list(tools), orjson.dumps([tools, messages])
        mutator.apply(Edit(tools, messages, fmt, delivery, target, scenario))
        assert orjson.dumps([tools, messages]) == snapshot, (mutator.key(), target)
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
