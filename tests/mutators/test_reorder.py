"""Reorder mutators: swap, reverse, rotate."""

import random

import pytest

from toolsurface.contract._formats import LOGICAL
from toolsurface.mutators import (
    Delivery,
    Edit,
    MutationNotApplicable,
    Reverse,
    Rotate,
    Swap,
    Tool,
    by_key,
)
from toolsurface.mutators._fixtures import (
    PROFILE,
    READ_TOOL_RESULT,
    SEARCH,
    WEB_READ,
    WEB_SEARCH,
)
from toolsurface.mutators._testing import (
    descriptor,
    live_tools,
    minimal_scenario,
    read_surface,
)

FOUR = [descriptor(tool) for tool in (SEARCH, PROFILE, WEB_SEARCH, WEB_READ)]


def _aims(key: str, scenario) -> set:
    return {aim for seed in range(200) for aim in by_key(key).aims(scenario, random.Random(seed))}


def test_a_single_tool_still_yields_reverse_and_rotate_but_no_swap() -> None:
    scenario = minimal_scenario(FOUR[:1])
    assert _aims("reorder.reverse", scenario) == {Reverse()}
    assert _aims("reorder.rotate", scenario) == {Rotate(1)}
    assert _aims("reorder.swap", scenario) == set()


def test_swap_and_rotate_cover_the_whole_surface_including_controls() -> None:
    control = descriptor(READ_TOOL_RESULT)
    scenario = minimal_scenario(FOUR[:2], controls=[control], eligible_controls=[control.name])
    assert _aims("reorder.swap", scenario) == {Swap(0, 1), Swap(0, 2), Swap(1, 2)}
    assert _aims("reorder.rotate", scenario) == {Rotate(1), Rotate(2)}


def test_nothing_to_reorder_on_an_empty_surface() -> None:
    assert all(
        _aims(key, minimal_scenario([])) == set() for key in ("reorder.swap", "reorder.reverse", "reorder.rotate")
    )


def test_rotate_wraps_around_a_shorter_live_list() -> None:
    scenario = minimal_scenario(FOUR)
    tools = live_tools(FOUR[:2], LOGICAL)
    new_tools, _ = by_key("reorder.rotate").apply(Edit(tools, [], LOGICAL, Delivery.REPLACE, Rotate(3), scenario))
    assert read_surface(new_tools, LOGICAL) == [PROFILE, SEARCH]


def test_swap_past_the_live_tools_is_not_applicable() -> None:
    scenario = minimal_scenario(FOUR)
    tools = live_tools(FOUR[:3], LOGICAL)
    with pytest.raises(MutationNotApplicable, match="0<->3"):
        by_key("reorder.swap").apply(Edit(tools, [], LOGICAL, Delivery.IN_PLACE, Swap(0, 3), scenario))
    assert read_surface(tools, LOGICAL) == [SEARCH, PROFILE, WEB_SEARCH]


@pytest.mark.parametrize(
    ("key", "aim"), [("reorder.swap", Rotate(3)), ("reorder.rotate", Swap(0, 1)), ("reorder.reverse", Tool("flip"))]
)
def test_another_mutators_aim_is_a_programming_error(key: str, aim) -> None:
    scenario = minimal_scenario(FOUR)
    with pytest.raises(TypeError, match=rf"{key} takes \w+ aims, not {type(aim).__name__}\("):
        by_key(key).apply(Edit(live_tools(FOUR, LOGICAL), [], LOGICAL, Delivery.REPLACE, aim, scenario))
