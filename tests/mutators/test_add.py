"""Add mutators: foreign, duplicate, elsewhere."""

import random

import pytest

from toolsurface.contract._formats import LOGICAL, OPENAI
from toolsurface.mutators import (
    Delivery,
    Edit,
    Insert,
    MutationNotApplicable,
    Tool,
    by_key,
)
from toolsurface.mutators._add import FOREIGN, TWIN_DESCRIPTION
from toolsurface.mutators._fixtures import HOLDINGS, PROFILE, SEARCH
from toolsurface.mutators._testing import (
    descriptor,
    live_tools,
    minimal_scenario,
    read_surface,
)

FOREIGN_NAMES = [tool.name for tool in FOREIGN]


def _aims(key: str, scenario) -> set:
    return {aim for seed in range(100) for aim in by_key(key).aims(scenario, random.Random(seed))}


def test_foreign_tools_look_real() -> None:
    for tool in FOREIGN:
        schema = tool.input_schema
        assert schema["type"] == "object" and schema["properties"] and schema["required"]


def test_foreign_picks_any_position_and_never_a_name_already_there() -> None:
    scenario = minimal_scenario([descriptor(SEARCH), FOREIGN[0]])
    assert _aims("add.foreign", scenario) == {Insert(FOREIGN_NAMES[1], position) for position in range(3)}
    assert _aims("add.foreign", minimal_scenario(FOREIGN)) == set()


def test_elsewhere_needs_tools_admitted_elsewhere() -> None:
    assert _aims("add.elsewhere", minimal_scenario([descriptor(SEARCH)])) == set()
    with_elsewhere = minimal_scenario([descriptor(SEARCH)], admitted_elsewhere=[descriptor(HOLDINGS)])
    assert _aims("add.elsewhere", with_elsewhere) == {Insert(HOLDINGS["name"], 0), Insert(HOLDINGS["name"], 1)}


def test_an_insertion_past_the_live_tools_is_not_applicable() -> None:
    scenario = minimal_scenario([descriptor(SEARCH), descriptor(PROFILE)])
    # A stage before this point dropped a tool: position 2 no longer exists.
    tools = live_tools([descriptor(SEARCH)], LOGICAL)
    with pytest.raises(MutationNotApplicable, match="position 2"):
        by_key("add.foreign").apply(
            Edit(tools, [], LOGICAL, Delivery.IN_PLACE, Insert("market__place_order", 2), scenario)
        )
    assert read_surface(tools, LOGICAL) == [SEARCH]


@pytest.mark.parametrize(
    ("aim", "error", "message"),
    [
        (Tool("market__place_order"), TypeError, r"add\.foreign takes Insert aims, not Tool\(name='market__pl"),
        (Insert("market__no_such_tool", 0), ValueError, r"add\.foreign: Insert\(.*\) names no tool of its catalogue"),
    ],
)
def test_a_wrong_aim_is_a_programming_error(aim, error: type, message: str) -> None:
    scenario = minimal_scenario([descriptor(SEARCH)])
    with pytest.raises(error, match=message):
        by_key("add.foreign").apply(
            Edit(live_tools(scenario.contract.surface, LOGICAL), [], LOGICAL, Delivery.REPLACE, aim, scenario)
        )


@pytest.mark.parametrize("delivery", list(Delivery))
def test_duplicate_twin_is_a_new_object_in_the_live_format(delivery: Delivery) -> None:
    scenario = minimal_scenario([descriptor(SEARCH)])
    tools = live_tools(scenario.contract.surface, OPENAI)
    original = tools[0]
    new_tools, _ = by_key("add.duplicate").apply(Edit(tools, [], OPENAI, delivery, Tool(SEARCH["name"]), scenario))
    twin = new_tools[1]
    assert twin is not original and OPENAI.get_schema(twin) is not OPENAI.get_schema(original)
    assert twin["type"] == "function" and OPENAI.get_name(twin) == SEARCH["name"]
    assert OPENAI.get_description(twin) == TWIN_DESCRIPTION != OPENAI.get_description(original)


def test_duplicate_of_a_tool_already_gone_is_not_applicable() -> None:
    scenario = minimal_scenario([descriptor(SEARCH), descriptor(PROFILE)])
    tools = live_tools([descriptor(SEARCH)], LOGICAL)
    with pytest.raises(MutationNotApplicable, match=PROFILE["name"]):
        by_key("add.duplicate").apply(Edit(tools, [], LOGICAL, Delivery.REPLACE, Tool(PROFILE["name"]), scenario))
