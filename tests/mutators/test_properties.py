"""Properties every mutator keeps on any realistic surface (Hypothesis).

Each test draws one scenario and checks every mutator against it, rather than drawing scenarios
per mutator: generating realistic schemas is the expensive part.
"""

import dataclasses
import random

import orjson
from hypothesis import given
from hypothesis import strategies as st

from toolsurface.contract._canonical import (
    Snapshot,
    capture,
    entries_as_found,
    snapshot_of,
)
from toolsurface.contract._diff import (
    Added,
    DescriptionChanged,
    Moved,
    Removed,
    Renamed,
    SchemaChanged,
    Swapped,
    WireChanged,
    diff_snapshots,
)
from toolsurface.contract._formats import LOGICAL, MCP, OPENAI
from toolsurface.mutators import (
    MUTATORS,
    Aim,
    Cut,
    Delivery,
    Edit,
    FactField,
    Forgery,
    Insert,
    Kind,
    Must,
    Mutator,
    SchemaPath,
    Text,
    Tool,
    WireField,
)
from toolsurface.mutators._pointer import split_last
from toolsurface.mutators._strategies import edit_sequences, scenarios_for, surfaces
from toolsurface.mutators._testing import live_tools
from toolsurface.scenarios import Scenario, hidden_by, rule

scenarios = surfaces().flatmap(scenarios_for)
formats = st.sampled_from((LOGICAL, OPENAI, MCP))
seeds = st.integers(0, 2**32 - 1)


def _applications(scenario: Scenario, seed: int, fmt=LOGICAL):
    """Every (mutator, aim, delivery) the planner could produce for `scenario` with `seed` that
    live tools in `fmt` can carry (the others raise `NotCarried`, see test_examples)."""
    for mutator in MUTATORS:
        for aim in mutator.aims(scenario, random.Random(seed)):
            if isinstance(aim, WireField) and not fmt.carries(aim.field):
                continue
            for delivery in mutator.deliveries:
                yield mutator, aim, delivery


def _apply(mutator: Mutator, scenario: Scenario, aim: Aim, delivery: Delivery, fmt=LOGICAL) -> Snapshot:
    tools = live_tools(scenario.surface, fmt)
    messages = [message.as_dict() for message in scenario.request_messages]
    new_tools, _ = mutator.apply(Edit(tools, messages, fmt, delivery, aim, scenario))
    return capture(new_tools, fmt)


@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_mutations_change_the_canonical_surface_exactly_when_illegitimate(scenario: Scenario, seed: int, fmt) -> None:
    before = snapshot_of(scenario.surface, fmt)
    for mutator, aim, delivery in _applications(scenario, seed, fmt):
        changed = _apply(mutator, scenario, aim, delivery, fmt) != before
        if mutator.must in (Must.DISPATCH, Must.FAIL):  # a failure is the provider's: the tools stay
            assert not changed, (mutator.key(), aim, delivery)
        elif mutator.kind is Kind.REORDER and len(scenario.surface) == 1:
            assert not changed, (mutator.key(), aim)  # counted as `equivalent`
        else:
            assert changed, (mutator.key(), aim, delivery)


def _names_the_change(mutator: Mutator, aim: Aim, changes: tuple, names: list[str]) -> bool:
    """Whether the diff's changes are exactly the one change `aim` says the mutator made."""
    kind = mutator.kind
    if mutator.must in (Must.DISPATCH, Must.FAIL):
        return changes == ()
    if kind is Kind.REORDER:
        # Which tools count as moved is the diff's choice (any longest run may stay), but a swap
        # is one change that names both tools.
        if mutator.variant == "swap" and len(names) > 1:
            return len(changes) == 1 and isinstance(changes[0], Swapped)
        only_moves = all(isinstance(change, Moved | Swapped) for change in changes)
        return only_moves and (1 <= len(changes) <= len(names) or len(names) == 1)
    if isinstance(aim, WireField):
        # Dropping an output property also drops its `required` entry.
        places = {aim.pointer, "/required"} if aim.field == "output_schema" else {aim.pointer}
        return bool(changes) and all(
            change == WireChanged(aim.tool, aim.field, change.pointer) and change.pointer in places
            for change in changes
        )
    if kind is Kind.WIRE:
        # A provider conversion rewrites the whole schema: only that tool's schema changed.
        return bool(changes) and all(
            isinstance(change, SchemaChanged) and change.name == aim.name for change in changes
        )
    if isinstance(aim, SchemaPath) and mutator.variant.startswith("keyword_"):
        # A keyword's value edited whole: every place that differs is the keyword's or inside it.
        return bool(changes) and all(
            isinstance(change, SchemaChanged)
            and change.name == aim.tool
            and (change.pointer == aim.pointer or change.pointer.startswith(f"{aim.pointer}/"))
            for change in changes
        )
    if isinstance(aim, SchemaPath):
        # An edit inside an array (`/required/0`, `/enum/-`) is reported at the array.
        places = {aim.pointer, split_last(aim.pointer)[0]}
        return len(changes) == 1 and changes[0].name == aim.tool and changes[0].pointer in places
    if len(changes) != 1:
        return False
    (change,) = changes
    if isinstance(aim, Text):
        # A near miss: the one string changed, and the comparison it is aimed at cannot tell.
        if aim.place == "name":
            return (
                isinstance(change, Renamed)
                and change.before == aim.tool
                and aim.lossy.same(change.before, change.after)
            )
        if aim.place == "description":
            return change == DescriptionChanged(aim.tool) and aim.lossy.same(*change.texts)
        return isinstance(change, SchemaChanged) and (change.name, change.pointer) == (aim.tool, aim.place)
    if isinstance(aim, Insert):
        return change == Added(aim.name, aim.position)
    # A tool, or a tool's name or description cut to a length limit.
    assert isinstance(aim, Tool | Cut), (mutator.key(), aim)
    name = aim.name
    if kind is Kind.DELETE or mutator.variant in ("remove", "hide_search", "hide_read"):
        return change == Removed(name, names.index(name))
    if mutator.variant == "inject":
        return change == Added(name, len(names))
    if mutator.variant == "reveal":
        return isinstance(change, Added) and change.name == name
    if mutator.variant == "duplicate":
        return change == Added(name, names.index(name) + 1)
    if kind is Kind.RENAME:
        return isinstance(change, Renamed) and (change.before, change.index) == (name, names.index(name))
    return change == DescriptionChanged(name)


@given(scenario=scenarios, seed=seeds)
def test_the_diff_names_exactly_the_change(scenario: Scenario, seed: int) -> None:
    before = snapshot_of(scenario.surface)
    names = [tool.name for tool in scenario.surface]
    for mutator, aim, delivery in _applications(scenario, seed):
        changes = diff_snapshots(before, _apply(mutator, scenario, aim, delivery))
        assert _names_the_change(mutator, aim, changes, names), (mutator.key(), aim, changes)


@given(scenario=scenarios, seed=seeds)
def test_key_order_changes_the_tools_as_found_but_not_the_snapshot(scenario: Scenario, seed: int) -> None:
    before = snapshot_of(scenario.surface)
    as_found = orjson.dumps(entries_as_found(live_tools(scenario.surface, LOGICAL)))
    for mutator, aim, delivery in _applications(scenario, seed):
        if mutator.variant == "key_order":
            tools = live_tools(scenario.surface, LOGICAL)
            messages = [message.as_dict() for message in scenario.request_messages]
            changed, _ = mutator.apply(Edit(tools, messages, LOGICAL, delivery, aim, scenario))
            assert orjson.dumps(entries_as_found(changed)) != as_found
            assert capture(changed) == before and capture(changed).raw == before.raw


@given(scenario=scenarios, seed=seeds)
def test_same_seed_same_aims(scenario: Scenario, seed: int) -> None:
    first = [list(mutator.aims(scenario, random.Random(seed))) for mutator in MUTATORS]
    # An equal scenario of fresh objects, and disturbed global randomness, must change nothing.
    twin = dataclasses.replace(scenario, contract=dataclasses.replace(scenario.contract))
    random.seed(seed + 1)
    assert [list(mutator.aims(twin, random.Random(seed))) for mutator in MUTATORS] == first


@given(scenario=scenarios, seed=seeds, fmt=formats)
def test_replace_never_touches_what_it_was_handed(scenario: Scenario, seed: int, fmt) -> None:
    for mutator, aim, delivery in _applications(scenario, seed, fmt):
        if delivery is not Delivery.REPLACE:
            continue
        tools = live_tools(scenario.surface, fmt)
        messages = [message.as_dict() for message in scenario.request_messages]
        handed, snapshot = list(tools), orjson.dumps([tools, messages])
        mutator.apply(Edit(tools, messages, fmt, delivery, aim, scenario))
        assert orjson.dumps([tools, messages]) == snapshot, (mutator.key(), aim)
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
        assert (step.kind, step.variant, step.must) == (mutator.kind, mutator.variant, mutator.must)
        if isinstance(step.aim, WireField) and not fmt.carries(step.aim.field):
            continue  # NotCarried: the format has no place for the field (see test_examples)
        # Raises MutationNotApplicable if what a step aims at is gone after the steps before it.
        tools, messages = mutator.apply(Edit(tools, messages, fmt, step.delivery, step.aim, scenario))


@given(scenario=scenarios, seed=seeds)
def test_a_forged_fact_is_never_trusted_and_narrows_nothing(scenario: Scenario, seed: int) -> None:
    binding, web = scenario.binding, scenario.contract.web_tools
    for mutator, aim, delivery in _applications(scenario, seed):
        if not isinstance(aim, Forgery):
            continue
        facts = list(scenario.contract.facts)
        tools = live_tools(scenario.surface, LOGICAL)
        mutator.apply(Edit(tools, [], LOGICAL, delivery, aim, scenario, facts))
        (forged,) = facts[len(scenario.contract.facts) :]
        ruling = rule(forged, binding, web)
        reason = "produced by" if aim.field is FactField.OWNER else f"bound to {aim.field} "
        assert not ruling.trusted and ruling.ignored_because.startswith(reason), (aim, ruling)
        assert hidden_by(facts, binding, web) == hidden_by(scenario.contract.facts, binding, web)
