"""Control mutators: inject, remove."""

import random

import pytest

from toolsurface.contract._formats import OPENAI
from toolsurface.mutators import Delivery, Edit, MutationNotApplicable, Tool, by_key
from toolsurface.mutators._fixtures import READ_TOOL_RESULT, SEARCH, WEB_READ
from toolsurface.mutators._testing import descriptor, live_tools, minimal_scenario

CONTROL = descriptor(READ_TOOL_RESULT)
RECALL = descriptor({**READ_TOOL_RESULT, "name": "recall_context", "description": "Recall a compressed message."})
ADMITTED = [descriptor(SEARCH), descriptor(WEB_READ)]


def _aims(key: str, scenario) -> set[Tool]:
    return {aim for seed in range(50) for aim in by_key(key).aims(scenario, random.Random(seed))}


def test_inject_offers_only_ineligible_controls_and_remove_only_eligible_ones() -> None:
    scenario = minimal_scenario(ADMITTED, controls=[CONTROL, RECALL], eligible_controls=[RECALL.name])
    assert _aims("control.inject", scenario) == {Tool(CONTROL.name)}
    assert _aims("control.remove", scenario) == {Tool(RECALL.name)}


def test_no_aims_without_a_catalogue() -> None:
    scenario = minimal_scenario(ADMITTED)
    assert _aims("control.inject", scenario) == set()
    assert _aims("control.remove", scenario) == set()


def test_all_eligible_leaves_nothing_to_inject() -> None:
    scenario = minimal_scenario(ADMITTED, controls=[CONTROL], eligible_controls=[CONTROL.name])
    assert _aims("control.inject", scenario) == set()


@pytest.mark.parametrize("delivery", list(Delivery))
def test_inject_builds_the_control_in_the_live_format(delivery: Delivery) -> None:
    scenario = minimal_scenario(ADMITTED, controls=[CONTROL])
    tools = live_tools(scenario.contract.surface, OPENAI)
    new_tools, _ = by_key("control.inject").apply(Edit(tools, [], OPENAI, delivery, Tool(CONTROL.name), scenario))
    function = {"name": CONTROL.name, "description": CONTROL.description, "parameters": CONTROL.input_schema}
    assert new_tools[-1] == {"type": "function", "function": function}


def test_inject_of_an_eligible_control_is_a_programming_error() -> None:
    scenario = minimal_scenario(ADMITTED, controls=[CONTROL], eligible_controls=[CONTROL.name])
    with pytest.raises(ValueError, match="no ineligible control"):
        by_key("control.inject").apply(
            Edit(live_tools(ADMITTED, OPENAI), [], OPENAI, Delivery.REPLACE, Tool(CONTROL.name), scenario)
        )


def test_removing_a_control_already_gone_is_not_applicable() -> None:
    scenario = minimal_scenario(ADMITTED, controls=[CONTROL], eligible_controls=[CONTROL.name])
    with pytest.raises(MutationNotApplicable, match=CONTROL.name):
        by_key("control.remove").apply(
            Edit(live_tools(ADMITTED, OPENAI), [], OPENAI, Delivery.IN_PLACE, Tool(CONTROL.name), scenario)
        )
