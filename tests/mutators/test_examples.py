"""Every mutator's examples, applied with every delivery to live tools of several formats.

The examples are the mutators' specification: this one test turns each of them into checks of
the resulting surface and of what each delivery did to the objects it was handed.
"""

import random

import orjson
import pytest

from toolsurface.contract._canonical import snapshot_of
from toolsurface.contract._formats import LOGICAL, MCP, OPENAI
from toolsurface.harness._mcp import McpCatalogue, served
from toolsurface.harness._ports import Gateway
from toolsurface.mutators import (
    EXPLORING,
    MUTATORS,
    Delivery,
    Edit,
    Example,
    Kind,
    Must,
    Mutator,
    NotCarried,
    WireField,
)
from toolsurface.mutators._testing import (
    descriptor,
    example_scenario,
    live_tools,
    read_surface,
)

FORMATS = (LOGICAL, OPENAI, MCP)


def example_listing(scenario):
    return [tool.as_logical() for tool in served(scenario.contract)]


EXAMPLES = [
    pytest.param(mutator, example, id=f"{mutator.key()}[{index}]")
    for mutator in (*MUTATORS, *EXPLORING)
    for index, example in enumerate(mutator.examples)
]

APPLICATIONS = [
    pytest.param(mutator, example, delivery, fmt, id=f"{mutator.key()}[{index}]-{delivery}-{fmt.name}")
    for mutator in (*MUTATORS, *EXPLORING)
    for index, example in enumerate(mutator.examples)
    for delivery in mutator.deliveries
    for fmt in FORMATS
]


@pytest.mark.parametrize(("mutator", "example", "delivery", "fmt"), APPLICATIONS)
def test_example_applies(mutator: Mutator, example: Example, delivery: Delivery, fmt) -> None:
    scenario = example_scenario(example)
    tools = live_tools(scenario.surface, fmt)
    messages = [dict(message) for message in example.messages_before]
    handed = list(tools)
    schemas = [fmt.get_schema(tool) for tool in tools]
    # Bytes, not ==: they also catch a replace delivery that reordered keys of the originals.
    snapshot = orjson.dumps([tools, messages])
    facts = list(example.facts)
    server = McpCatalogue(scenario)
    edit = Edit(tools, messages, fmt, delivery, example.aim, scenario, facts, server)
    if isinstance(example.aim, WireField) and not fmt.carries(example.aim.field):
        # A format without the field cannot send a change to it: the mutation says so and touches nothing.
        with pytest.raises(NotCarried, match=repr(example.aim.field)):
            mutator.apply(edit)
        assert orjson.dumps([tools, messages]) == snapshot
        return

    new_tools, new_messages = mutator.apply(edit)

    # Dict equality ignores key order, list equality does not: exactly parity's notion of "same".
    assert read_surface(new_tools, fmt) == list(example.after)
    expected = example.messages_before if example.messages_after is None else example.messages_after
    assert new_messages == list(expected)
    assert facts == [*example.facts, *example.recorded]
    # What the MCP server lists afterwards: unchanged, unless the example says how it changed.
    listed = [tool.as_logical() for tool in server.list_all()]
    assert listed == list(example.listed_after if example.listed_after is not None else example_listing(scenario))
    if delivery is Delivery.IN_PLACE:
        assert new_tools is tools
        assert new_messages is messages
        kept = [index for index, tool in enumerate(handed) if any(tool is new for new in new_tools)]
        # Nothing was copied: every surviving tool is a handed object, with its handed schema dict.
        assert len(kept) == min(len(example.before), len(example.after))
        for index in kept:
            assert fmt.get_schema(handed[index]) is schemas[index]
    else:
        assert orjson.dumps([tools, messages]) == snapshot
        assert all(tool is original for tool, original in zip(tools, handed, strict=True))


@pytest.mark.parametrize(("mutator", "example"), EXAMPLES)
def test_example_is_well_formed(mutator: Mutator, example: Example) -> None:
    scenario = example_scenario(example)
    # `before` must be the expected surface its scenario gives, or the example tests another case.
    assert [tool.as_logical() for tool in scenario.surface] == list(example.before)
    reachable = {aim for seed in range(200) for aim in mutator.aims(scenario, random.Random(seed))}
    assert example.aim in reachable


@pytest.mark.parametrize(("mutator", "example"), EXAMPLES)
def test_example_changes_the_surface_exactly_when_it_must(mutator: Mutator, example: Example) -> None:
    changed = snapshot_of([descriptor(t) for t in example.before]) != snapshot_of(
        [descriptor(t) for t in example.after]
    )
    after = example.messages_before if example.messages_after is None else example.messages_after
    summary_changed = Gateway.summary_of(list(example.messages_before)) != Gateway.summary_of(list(after))
    if mutator.kind is Kind.MCP:
        # The request is handed on as it is; the change is on the server's list.
        assert not changed and example.listed_after is not None
        assert list(example.listed_after) != example_listing(example_scenario(example))
    elif mutator.must in (Must.DISPATCH, Must.FAIL):  # a failure is the provider's: the request stays
        assert not changed and not summary_changed
    elif mutator.kind is Kind.REORDER and len(example.before) == 1:
        assert not changed  # the harness reports this case as `equivalent`
    elif mutator.kind is Kind.ENTRY:
        assert summary_changed and not changed  # the summary overclaims; the (empty) tool list stays
    else:
        assert changed
