"""Properties every mutator keeps on any realistic surface (Hypothesis).

Each test draws one scenario and checks every mutator against it, rather than drawing scenarios
per mutator: generating realistic schemas is the expensive part.
"""

import dataclasses
import random

import orjson
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.harness._canonical import Snapshot, capture, snapshot_of
from toolsurface.harness._diff import Added, DescriptionChanged, Moved, Removed, Renamed, diff_snapshots
from toolsurface.harness._formats import LOGICAL, MCP, OPENAI
from toolsurface.mutators import Delivery, Edit, Expect, Kind, MUTATORS, Mutator
from toolsurface.mutators._strategies import edit_sequences, scenarios_for, surfaces
from toolsurface.mutators._pointer import split_last, split_target
from toolsurface.mutators._testing import live_tools
from toolsurface.scenarios import Scenario, hidden_by, rule

scenarios = surfaces().flatmap(scenarios_for)
formats = st.sampled_from((LOGICAL, OPENAI, MCP))
seeds = st.integers(0, 2**32 - 1)


def _applications(scenario: Scenario, seed: int):
    """Every (mutator, target, delivery) the planner could produce for `scenario` with `seed`."""
    for mutator in MUTATORS:
        for target in mutator.targets(scenario, random.Random(seed)):
            for delivery in mutator.deliveries:
                yield mutator, target, delivery


def _apply(mutator: Mutator, scenario: Scenario, target: str, delivery: Delivery, fmt=LOGICAL) -> Snapshot:
    tools = live_tools(scenario.surface, fmt)
    messages = [message.as_dict() for message in scenario.request_messages]
    new_tools, _ = mutator.apply(Edit(tools, messages, fmt, delivery, target, scenario))
    return capture(new_tools, fmt)


@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_mutations_change_the_canonical_surface_exactly_when_illegitimate(scenario: Scenario, seed: int, fmt) -> None:
    before = snapshot_of(scenario.surface)
    for mutator, target, delivery in _applications(scenario, seed):
        changed = _apply(mutator, scenario, target, delivery, fmt) != before
        if mutator.expect is Expect.DISPATCH:
            assert not changed, (mutator.key(), target, delivery)
        elif mutator.kind is Kind.REORDER and len(scenario.surface) == 1:
            assert not changed, (mutator.key(), target)  # counted as `equivalent`
        else:
            assert changed, (mutator.key(), target, delivery)


def _names_the_change(mutator: Mutator, target: str, changes: tuple, names: list[str]) -> bool:
    """Whether the diff's changes are exactly the one change `target` says the mutator made."""
    kind = mutator.kind
    if mutator.expect is Expect.DISPATCH:
        return changes == ()
    if kind is Kind.REORDER:
        # Which tools count as moved is the diff's choice (any longest run may stay), but a swap
        # never needs more than two.
        most = 2 if mutator.variant == "swap" else len(names)
        only_moves = all(isinstance(change, Moved) for change in changes)
        return only_moves and (1 <= len(changes) <= most or len(names) == 1)
    if kind is Kind.SCHEMA:
        name, pointer = split_target(target)
        # An edit inside an array (`/required/0`, `/enum/-`) is reported at the array.
        places = {pointer, split_last(pointer)[0]}
        return len(changes) == 1 and changes[0].name == name and changes[0].pointer in places
    if len(changes) != 1:
        return False
    (change,) = changes
    if kind is Kind.DELETE or mutator.variant in ("remove", "hide_search", "hide_read"):
        return change == Removed(target, names.index(target))
    if mutator.variant == "inject":
        return change == Added(target, len(names))
    if mutator.variant == "reveal":
        return isinstance(change, Added) and change.name == target
    if mutator.variant == "duplicate":
        return change == Added(target, names.index(target) + 1)
    if kind is Kind.ADD:
        name, _, position = target.rpartition("@")
        return change == Added(name, int(position))
    if kind is Kind.RENAME:
        return isinstance(change, Renamed) and (change.before, change.index) == (target, names.index(target))
    return change == DescriptionChanged(target)


@given(scenario=scenarios, seed=seeds)
def test_the_diff_names_exactly_the_change(scenario: Scenario, seed: int) -> None:
    before = snapshot_of(scenario.surface)
    names = [tool.name for tool in scenario.surface]
    for mutator, target, delivery in _applications(scenario, seed):
        changes = diff_snapshots(before, _apply(mutator, scenario, target, delivery))
        assert _names_the_change(mutator, target, changes, names), (mutator.key(), target, changes)


@given(scenario=scenarios, seed=seeds)
def test_key_order_changes_the_bytes_but_not_the_canonical_form(scenario: Scenario, seed: int) -> None:
    before = snapshot_of(scenario.surface)
    for mutator, target, delivery in _applications(scenario, seed):
        if mutator.variant == "key_order":
            after = _apply(mutator, scenario, target, delivery)
            assert after.raw != before.raw
            assert after == before


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
        tools = live_tools(scenario.surface, fmt)
        messages = [message.as_dict() for message in scenario.request_messages]
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
    tools = live_tools(scenario.surface, fmt)
    messages = [message.as_dict() for message in scenario.request_messages]
    by_key = {mutator.key(): mutator for mutator in MUTATORS}
    for step in steps:
        mutator = by_key[step.mutator]
        assert (step.kind, step.variant, step.expect) == (mutator.kind, mutator.variant, mutator.expect)
        # Raises MutationNotApplicable if a step's target is gone after the steps before it.
        tools, messages = mutator.apply(Edit(tools, messages, fmt, step.delivery, step.target, scenario))


@given(scenario=scenarios, seed=seeds)
def test_a_forged_fact_is_never_trusted_and_narrows_nothing(scenario: Scenario, seed: int) -> None:
    binding, web = scenario.binding, scenario.contract.web_tools
    for mutator, target, delivery in _applications(scenario, seed):
        if mutator.variant != "forged_fact":
            continue
        facts = list(scenario.contract.facts)
        tools = live_tools(scenario.surface, LOGICAL)
        mutator.apply(Edit(tools, [], LOGICAL, delivery, target, scenario, facts))
        (forged,) = facts[len(scenario.contract.facts):]
        ruling = rule(forged, binding, web)
        reason = "produced by" if target == "owner" else f"bound to {target} "
        assert not ruling.trusted and ruling.ignored_because.startswith(reason), (target, ruling)
        assert hidden_by(facts, binding, web) == hidden_by(scenario.contract.facts, binding, web)
