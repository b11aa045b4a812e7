"""Reorder mutators: swap, reverse, rotate."""

import random

import pytest

from toolsurface.harness._formats import LOGICAL
from toolsurface.mutators import Delivery, Edit, MutationNotApplicable, by_key
from toolsurface.mutators._fixtures import PROFILE, READ_TOOL_RESULT, SEARCH, WEB_READ, WEB_SEARCH
from toolsurface.mutators._testing import descriptor, live_tools, minimal_scenario, read_surface

FOUR = [descriptor(tool) for tool in (SEARCH, PROFILE, WEB_SEARCH, WEB_READ)]


def _targets(key: str, scenario) -> set[str]:
    return {t for seed in range(200) for t in by_key(key).targets(scenario, random.Random(seed))}


def test_a_single_tool_still_yields_reverse_and_rotate_but_no_swap() -> None:
    scenario = minimal_scenario(FOUR[:1])
    assert _targets("reorder.reverse", scenario) == {"reverse"}
    assert _targets("reorder.rotate", scenario) == {"rotate+1"}
    assert _targets("reorder.swap", scenario) == set()


def test_swap_and_rotate_cover_the_whole_surface_including_controls() -> None:
    control = descriptor(READ_TOOL_RESULT)
    scenario = minimal_scenario(FOUR[:2], controls=[control], eligible_controls=[control.name])
    assert _targets("reorder.swap", scenario) == {"0<->1", "0<->2", "1<->2"}
    assert _targets("reorder.rotate", scenario) == {"rotate+1", "rotate+2"}


def test_nothing_to_reorder_on_an_empty_surface() -> None:
    assert all(
        _targets(key, minimal_scenario([])) == set() for key in ("reorder.swap", "reorder.reverse", "reorder.rotate")
    )


def test_rotate_wraps_around_a_shorter_live_list() -> None:
    scenario = minimal_scenario(FOUR)
    tools = live_tools(FOUR[:2], LOGICAL)
    new_tools, _ = by_key("reorder.rotate").apply(Edit(tools, [], LOGICAL, Delivery.REPLACE, "rotate+3", scenario))
    assert read_surface(new_tools, LOGICAL) == [PROFILE, SEARCH]


def test_swap_past_the_live_tools_is_not_applicable() -> None:
    scenario = minimal_scenario(FOUR)
    tools = live_tools(FOUR[:3], LOGICAL)
    with pytest.raises(MutationNotApplicable, match="0<->3"):
        by_key("reorder.swap").apply(Edit(tools, [], LOGICAL, Delivery.IN_PLACE, "0<->3", scenario))
    assert read_surface(tools, LOGICAL) == [SEARCH, PROFILE, WEB_SEARCH]


@pytest.mark.parametrize(
    ("key", "target"), [("reorder.swap", "0,3"), ("reorder.rotate", "rotate-1"), ("reorder.reverse", "flip")]
)
def test_malformed_targets_are_programming_errors(key: str, target: str) -> None:
    scenario = minimal_scenario(FOUR)
    with pytest.raises(ValueError, match="target="):
        by_key(key).apply(Edit(live_tools(FOUR, LOGICAL), [], LOGICAL, Delivery.REPLACE, target, scenario))
